/* Private to src/store: the column schema shared by the per-rank writer, the merge and
 * the dump (see include/sitepack/store.h and docs/format.md). Not installed. */
#ifndef SITEPACK_STORE_INTERNAL_H
#define SITEPACK_STORE_INTERNAL_H

#include <hdf5.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "sitepack/error.h"
#include "sitepack/h5util.h"
#include "sitepack/result.h"

/** Column kinds: the C type of the field in the row struct of result.h. */
typedef enum sp_col_kind {
  SP_COL_I8, SP_COL_U8, SP_COL_U16, SP_COL_I32, SP_COL_U32, SP_COL_I64,
  SP_COL_F32, SP_COL_F64,
  SP_COL_F32X3,  /**< float[3]: a (N,3) dataset in the final file */
  SP_COL_STR,    /**< char[msize]: fixed-size NUL-padded string of fsize bytes in the final file */
  SP_COL_CHAR,   /**< one char: S1 in the final file */
  SP_COL_SEQ,    /**< int32 residue number where SP_SEQ_NONE prints as "." (stored as I32) */
} sp_col_kind;

/** One column: a field of a row struct, stored as one dataset of the final file. */
typedef struct sp_col {
  const char *name;   /**< dataset name under the table's group */
  size_t off;         /**< offsetof() in the row struct */
  int kind;           /**< sp_col_kind */
  size_t msize;       /**< bytes of the field in the struct */
  size_t fsize;       /**< bytes of one element in the final file */
  int optional;       /**< 1: in the final file only when some site has SP_SITE_SYMMETRY (/residues/symop),
                           2: only when some site has SP_SITE_ASSEMBLY (/residues/assembly_op): a run without
                           symmetry mates / assemblies writes exactly the columns it wrote before */
  int link;           /**< sp_link: what the value indexes; the merge (merge.c) makes a task's local indices
                           global from this alone, so that a new table or column needs no merge code */
  int to;             /**< the SP_T_* table a link column indexes (unused with SP_LINK_NONE, SP_LINK_FILE) */
  const char *ptr;    /**< SP_LINK_COUNT: name of the CSR pointer dataset [N+1] the merge writes beside the table */
  int utf8;           /**< a string column of text from the user's input (file names, the file's own
                           text), valid UTF-8 (io.h sp_path_escape): its HDF5 type says H5T_CSET_UTF8 (issue
                           16 item 6); 0: ASCII (sitepack's own names and ids) */
} sp_col;

/** What an integer column (SP_COL_I32 or SP_COL_I64) of a per-rank row refers to. In a per-rank
 *  file every index is local to its task; the merge checks it against the task's /tasks record and
 *  turns it into a row of the merged file by adding the task's first row of table `to` (the prefix
 *  sum of the row counts over the merge order). */
typedef enum sp_link {
  SP_LINK_NONE = 0,    /**< a value, copied as is */
  SP_LINK_FILE,        /**< the /structures row of the task's file: set by the merge, whatever the task wrote */
  SP_LINK_ROW,         /**< a row of table `to` of the same task: 0 <= v < the task's rows of `to` */
  SP_LINK_ROW_OR_NONE, /**< the same, or -1 (none), kept as -1 */
  SP_LINK_COUNT,       /**< v >= 0 rows of table `to` belong to this row, in row order; the rows of one task sum
                            to the task's rows of `to`. The merge writes the pointer dataset `ptr` (int64, N+1):
                            ptr[i] = first row of `to` of row i, ptr[N] = rows of `to` */
  SP_LINK_FILE_ROW_OR_NONE, /**< a row of table `to` written by the task of the same file that holds its structure
                            row (part 0; a table of per-file rows such as /chains), or -1: every part of a split
                            file points into its part 0's rows (/residues/chain_idx) */
} sp_link;

/** Table ids, in the order the per-rank /tasks index counts them. */
enum { SP_T_STRUCTURES = 0, SP_T_LIGANDS, SP_T_COMPONENTS, SP_T_SITES, SP_T_RESIDUES, SP_T_ATOMS, SP_T_INTERACTIONS,
       SP_T_BONDS, SP_T_CHAINS, SP_T_SEGMENTS, SP_T_SEQUENCES, SP_T_COUNT };

typedef struct sp_table {
  const char *name;   /**< group name: "structures", ... */
  size_t row_size;    /**< sizeof the row struct */
  size_t n_cols;
  const sp_col *cols;
  int is_union;       /**< 1: the merged table is the union of all tasks' rows keyed by the first column (a
                           string), one row per key in strcmp order, the first row in merge order kept
                           (/components); 0: every task's rows, in merge order, at their prefix-sum offsets */
  int since;          /**< the format_version that added the table (docs/format.md "File-level rules"): 2 for the
                           tables every version the C readers read has, 3 for /chains, /segments, /sequences */
} sp_table;

extern const sp_table sp_tables[SP_T_COUNT];

/** The format_version that added column @p c of table @p t (docs/format.md "File-level rules": what versions 3
 *  and 4 added): 4 for /structures/warnings, 3 for the version-3 columns and every column of a version-3
 *  table, else 2. A file of version v has
 *  exactly the columns with sp_col_since() <= v (optional columns aside). */
int sp_col_since(int t, const sp_col *c);

/** One /tasks row of a per-rank file (native layout). */
typedef struct sp_task_rec {
  int64_t file_idx;
  int32_t part, n_parts;
  int64_t n[SP_T_COUNT];      /**< rows of each table (n[SP_T_STRUCTURES] is 0 or 1) */
  int64_t start[SP_T_COUNT];  /**< first row of each table in the per-rank dataset */
} sp_task_rec;

/** Root attribute "format" of a per-rank file. */
#define SP_RANK_FORMAT_NAME "sitepack-rank"
#define SP_RANK_FORMAT_VERSION \
  10 /* 2: /interactions table; 3: residues' symop; 4: component descriptors, /bonds, atoms' ccd_charge/ccd_atom;
                                     5: /chains, /segments, /sequences, residues' chain_idx, structure quality and ligand fit columns;
                                     6: structures' warnings; 7: interactions' distance2 (merged format version 5);
                                     8: atoms' formal_charge, ligands' identities, instance_key and descriptors,
                                     components' descriptors, sites' quality (merged format version 6);
                                     9: ligand classes lipid and detergent, desc_flags bit unknown_orders (merged
                                     format version 7);
                                     10: bonds' source perceived with perceived orders, the perceived ligands'
                                     atoms' formal_charge (merged format version 8) */

/* HDF5 types (caller closes with H5Tclose). 0 > value on failure. */
hid_t sp_h5_col_memtype(const sp_col *c);   /**< native type of one element of the column buffer */
hid_t sp_h5_col_filetype(const sp_col *c);  /**< little-endian type of the final dataset */
hid_t sp_h5_row_type(int table);            /**< native compound of the whole row struct */
hid_t sp_h5_task_type(void);                /**< native compound of sp_task_rec */
hid_t sp_h5_col_str_type(const sp_col *c, size_t size); /**< sp_h5_str_type(size), UTF-8 for a utf8 column */
/** Bytes of one element of a column buffer (= of one dataset element). */
size_t sp_col_elsize(const sp_col *c);
/** Copy column @p c of @p n rows into / out of a packed column buffer. */
void sp_col_gather(const sp_col *c, const void *rows, size_t row_size, size_t n, void *colbuf);
void sp_col_scatter(const sp_col *c, void *rows, size_t row_size, size_t n, const void *colbuf);

/* ---- what every dataset means, in the file itself (describe.c; issue 26; docs/format.md "Units and codes") ---- */

/** Write the attributes (variable-length UTF-8 strings) of dataset @p dset, /@p table/@p column of the merged
 *  layout: `units` ("Å",
 *  "Å²", "e", "pH", "s", "bytes", "degree", or "1" for a pure number: count, index, code, fraction; absent on
 *  text columns), `note` where the units need a word, `missing` where a value stands for "none" ("-1: no site", "NaN: none",
 *  "-2147483648 (INT32_MIN): absent"), and for a coded column one of `codes` (JSON object code ->
 *  name), `flag_bits` (JSON object bit number -> name; the value is 1 << bit) or `values` (JSON array of the
 *  names a text column holds). The names come from the functions and headers that define the codes. And
 *  `description` (issue 39), sp_describe_text()'s sentence, where it has one.
 *  @return 0; SP_E_INTERNAL (the dataset has no description: a new column must get one); SP_E_HDF5. */
int sp_describe_dataset(hid_t dset, const char *table, const char *column, sp_err *err);

/** The `description` of dataset /@p table/@p column of the merged layout (describe_text.c, issue 39): one
 *  sentence of what a value is where units do not say it (which rows a CSR pointer of N+1 indexes, an offset
 *  into the site's atom block or a global row, an angle's meaning per interaction type). @return a static
 *  string, or NULL for a dataset without one (NULL arguments too). */
const char *sp_describe_text(const char *table, const char *column);

/** Write the root attributes `sitepack_version` (@p tool_version), `created` (@p created, ISO 8601 UTC; a
 *  timing field) and `job_json` (the job's options as JSON) of @p file. @return 0; SP_E_HDF5. */
int sp_describe_root(hid_t file, const char *tool_version, const char *created, const char *job_json, sp_err *err);

/** sitepack check's test of the above on an open merged file of format version 3 (@p path names it in the
 *  message): the three root attributes are strings, and every described dataset present has its `units`,
 *  `note`, `missing` and code attribute as strings. @return 0; SP_E_FORMAT naming the first one missing. */
int sp_check_describe(hid_t file, const char *path, sp_err *err);

/** The value checks of sp_check() (store.h; check_values.c), after the layout and index checks: /atoms/element
 *  in 0..SP_ELEMENT_MAX, /atoms/position finite, /ligands/class one of the class names, /interactions/type one
 *  of SP_IX_* (1..9), /residues/kind one of SP_RES_KIND_* (0..4), /sites/cutoff finite and > 0. @p rows: the
 *  tables' row counts (SP_T_*) the layout check learned. Each column is read in blocks of SP_CHECK_BLOCK rows
 *  (memory O(block), not O(rows)); stops at the first bad value. Adds the values checked to *@p n_values.
 *  @return 0; SP_E_BAD_VALUE ("PATH: /atoms/element[ROW] = 200: ..." with the first bad row); SP_E_NOMEM;
 *  SP_E_HDF5 (a read failed). */
int sp_check_values(hid_t file, const char *path, const int64_t rows[SP_T_COUNT], int64_t *n_values, sp_err *err);
/** The /components rule of sp_check() (docs/format.md "File-level rules"): /components/comp_id strictly
 *  increasing in byte order (sorted, one row per comp_id), and every /ligands/comp_id (an instance's first
 *  residue) one of them. Reads both columns whole (the component rows and 8 bytes or so per ligand).
 *  @return 0; SP_E_FORMAT ("PATH: /components/comp_id[ROW] 'B' after 'A': not sorted ..." or "PATH:
 *  /ligands/comp_id[ROW] 'X' has no /components row"); SP_E_NOMEM; SP_E_HDF5 (a read failed). */
int sp_check_components(hid_t file, const char *path, const int64_t rows[SP_T_COUNT], sp_err *err);
/** The /structures/warnings rule of sp_check() for a format-version-4 file (docs/format.md "/structures"; result.h
 *  sp_warnings_fit), row by row against /structures/n_warnings, in blocks of 4096 rows (4 MiB): "" exactly when
 *  n_warnings is 0; else no control byte but "\n", and its lines (split at "\n") are n_warnings messages, or k
 *  messages and a last line "... N more" (N >= 1) with k + N = n_warnings. @p n_rows: the /structures rows.
 *  @return 0; SP_E_FORMAT ("PATH: /structures/warnings[ROW] is empty but n_warnings is 3 ..."); SP_E_NOMEM;
 *  SP_E_HDF5 (a read failed). */
int sp_check_warnings(hid_t file, const char *path, int64_t n_rows, sp_err *err);
/** The /atoms/formal_charge rule of sp_check() (format version 6; check_charges.c, docs/format.md "/atoms"): a
 *  ligand atom's value equals sp_ligand_charges (valence.h) over the file's element, charge, ccd_charge, ccd_atom
 *  and its site's /bonds rows (what the SDF export writes), a site atom's its /atoms/charge. A file without the
 *  column (before version 6; check.c requires it from 6) passes. Reads the site pointers whole and the atom and
 *  bond columns in groups of sites of about SP_CHECK_BLOCK atoms; adds the atoms checked to *@p n_values.
 *  @return 0; SP_E_BAD_VALUE ("PATH: /atoms/formal_charge[ROW] = 0: not 2, ... of site S"); SP_E_NOMEM;
 *  SP_E_HDF5 (a read failed). */
int sp_check_formal_charges(hid_t file, const char *path, const int64_t rows[SP_T_COUNT], int64_t *n_values,
                            sp_err *err);
/** Rows per block of sp_check_values(): 262,144 (3 MiB of positions). */
#define SP_CHECK_BLOCK ((size_t)1 << 18)

#endif

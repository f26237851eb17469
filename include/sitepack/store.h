/**
 * @file store.h
 * @brief The HDF5 store: per-rank writer, merge into the final file, and a TSV reader.
 *
 * Data flow (DESIGN.md "The run, end to end"):
 *   every rank: sp_rank_writer_open() -> sp_rank_writer_append() per task -> sp_rank_writer_close()
 *   every rank: sp_merge_parallel(all per-rank paths) -> the final file (format "sitepack"); each
 *   rank writes its share of the rows at their offsets (sp_merge(): the same in one process)
 *   tools: sp_dump() prints one table of the final file as TSV.
 *
 * The final file is specified in docs/format.md (datasets, dtypes, shapes, units, flag bits,
 * the CSR convention and the ordering rules). Its content depends only on the set of task
 * results, never on the number of per-rank files or on which rank ran which task; the only
 * fields allowed to differ between runs are the timing fields (/structures/t_read, t_parse,
 * t_survey, t_site and the /run attributes n_ranks, created, wall_seconds).
 *
 * Per-rank files are an internal, chunked format (one group per table, one compound dataset
 * per table in the native row layout of result.h, plus a /tasks index); they are read only by
 * the store of the same build (sp_merge(), resume.h, shard.h; one reader: src/store/rankfile.h). They use the serial HDF5 API (one file per rank, no MPI-IO).
 *
 * Thread safety: none of these functions may be called concurrently from several threads of
 * one process (the HDF5 library is not built thread-safe).
 */
#ifndef SITEPACK_STORE_H
#define SITEPACK_STORE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "sitepack/error.h"
#include "sitepack/result.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Value of the root and /run attribute "format". */
#define SP_FORMAT_NAME "sitepack"
/** Value of the root and /run attribute "format_version" (int64). */
#define SP_FORMAT_VERSION 8
/** The oldest "format_version" the C commands read (check, dump, export, survey and the reader, reader.h): a
 *  version-2 file lacks what versions 3 to 5 added, a version-3 file what versions 4 and 5 added
 *  (/structures/warnings), a version-4 file what version 5 added (/interactions/distance2; its water-bridge rows
 *  hold that distance in angle2), a version-5 file what version 6 added (/atoms/formal_charge, the /ligands
 *  identities and instance_key, the ligand descriptors, the site quality; docs/format.md "Versions"); version 1
 *  is read by the Python package only. */
#define SP_FORMAT_VERSION_MIN 2

/** An open per-rank file. Opaque. */
typedef struct sp_rank_writer sp_rank_writer;

/**
 * Create (truncate) a per-rank file at @p path and its empty tables.
 * @param path  file to create; an existing file is replaced
 * @return the writer (release with sp_rank_writer_close()), or NULL with @p err set to
 *         SP_E_INVALID (NULL path), SP_E_NOMEM, or SP_E_HDF5 (the file or a dataset could not
 *         be created: e.g. directory missing or not writable).
 */
sp_rank_writer *sp_rank_writer_open(const char *path, sp_err *err);

/**
 * Append one task's result. The rows are validated first (every local index in range:
 * sites.ligand_idx < n_ligands, ligands.site_idx in [-1, n_sites), residues.site_idx <
 * n_sites, atoms.residue_idx < n_residues; the sum of sites.n_atoms equals n_atoms and the
 * sum of sites.n_residues equals n_residues; each site's residues carry its site_idx and
 * each site's atoms point at residues of that site; n_ligand <= n_atoms; the sum of
 * sites.n_interactions equals n_interactions, each site's interaction rows follow in site order
 * with its site_idx and atom offsets inside its block (water_atom -1 or inside); file_idx >= 0;
 * 0 <= part < n_parts); an invalid result is not written and leaves the file unchanged.
 * The /tasks index row is written last and the file is flushed (H5Fflush) before
 * returning, so a run killed later leaves a file holding every task appended before.
 * A result with has_structure_row == 0 (a later part of a split file) stores no structure row.
 * @return 0, SP_E_INVALID (NULL argument or an invariant above broken: message names it),
 *         SP_E_NOMEM, SP_E_HDF5 (a write or the flush failed; the file may then lack this task).
 */
int sp_rank_writer_append(sp_rank_writer *w, const sp_result *r, sp_err *err);

/** Number of results appended so far (0 for NULL). */
size_t sp_rank_writer_count(const sp_rank_writer *w);

/**
 * Flush and close the file and free @p w. Safe with NULL (returns 0). @p w is freed even
 * when closing fails.
 * @return 0, SP_E_HDF5.
 */
int sp_rank_writer_close(sp_rank_writer *w, sp_err *err);

/** Provenance written as attributes of /run in the merged file (all strings UTF-8; NULL = ""). */
typedef struct sp_merge_info {
  const char *tool_version;  /**< sitepack version (version.h SP_VERSION) */
  const char *git_sha;       /**< git sha of the build (version.h SP_GIT_SHA) */
  const char *job_json;      /**< the job file's JSON text, as run */
  const char *ccd_path;      /**< CCD source path as given in the job */
  const char *ccd_sha256;    /**< hex SHA-256 of the CCD file's bytes as stored */
  int64_t ccd_blocks;        /**< data blocks the run's CCD index held (0: no CCD; issue 16) */
  const char *created;       /**< creation time, ISO 8601 UTC; NULL = now (timing field) */
  int64_t n_ranks;           /**< number of MPI ranks P of the run (timing field) */
  double wall_seconds;       /**< wall time of the run up to the merge, s (timing field) */
} sp_merge_info;

/**
 * Merge per-rank files into the final file at @p out_path (created or truncated).
 *
 * Tasks of all inputs are ordered by (file_idx, part); rows are copied in that order and
 * local indices become global ones (structure_idx, ligand_idx, site_idx, residue_idx);
 * /sites/atom_ptr, residue_ptr, interaction_ptr and bond_ptr are built as CSR pointers
 * (int64, N+1; interaction atom fields stay offsets inside the site's atom block); components
 * are the union over all tasks, one row per comp_id sorted by strcmp (the first row in merge
 * order wins). Datasets are contiguous, unfiltered, allocated early, little-endian, aligned
 * to 4096 bytes when 64 KiB or larger. Large tables are copied task by task through bounded
 * buffers (memory: O(tasks + components + largest task), not O(atoms)).
 *
 * Calls no MPI: one process writes every row through HDF5 (`sitepack merge` without mpirun; a run
 * merges with sp_merge_parallel() below, the same file). Inputs may also be shard files of
 * SLURM array tasks: any set of per-rank files written by sp_rank_writer_*.
 *
 * @param out_path  final file
 * @param inputs    @p n_inputs per-rank file paths (n_inputs may be 0: an empty final file)
 * @param info      provenance for /run; NULL = all empty
 * @return 0, SP_E_INVALID (NULL argument; two tasks with the same (file_idx, part); a part
 *         of a split file whose file has no structure row; a file with two structure rows),
 *         SP_E_FORMAT (an input is not a sitepack per-rank file, or its tables are
 *         inconsistent: an index out of range), SP_E_NOT_FOUND (an input does not exist),
 *         SP_E_NOMEM, SP_E_HDF5.
 */
int sp_merge(const char *out_path, const char *const *inputs, size_t n_inputs, const sp_merge_info *info,
             sp_err *err);

/** Called on rank 0 by sp_merge_comm.gather() once per rank, in rank order: @p bytes bytes from rank
 *  @p from (borrowed for the call). Returns 0 or an SP_E_* class. */
typedef int (*sp_merge_take_fn)(void *arg, int from, const void *buf, size_t bytes);

/**
 * How the ranks of a parallel merge talk (sp_merge_parallel()). The store calls no MPI itself: the
 * caller fills this (src/app/merge_comm.c does it over an MPI communicator). Every function is
 * collective: all ranks call it, in the same order, and it returns the same value on all of them.
 */
typedef struct sp_merge_comm {
  int rank, size;  /**< this rank, number of ranks P */
  void *ctx;       /**< passed to every function */
  /** The first failure of any rank: returns the largest @p rc over the ranks (0: none failed) and copies the
   *  message of the lowest-numbered failed rank into @p err on every rank. */
  int (*agree)(void *ctx, int rc, sp_err *err);
  /** In place: v[i] = the largest v[i] over the ranks, for @p n values. Returns 0 or SP_E_MPI. */
  int (*max_i64)(void *ctx, int64_t *v, size_t n);
  /** @p bytes bytes of @p buf from rank 0 to every rank. Returns 0 or SP_E_MPI. */
  int (*bcast)(void *ctx, void *buf, size_t bytes);
  /** Every rank's @p bytes bytes of @p buf to rank 0, which calls @p take for each rank in rank order
   *  (the other ranks do not call it). Returns 0, take()'s first error, SP_E_NOMEM or SP_E_MPI. */
  int (*gather)(void *ctx, const void *buf, size_t bytes, sp_merge_take_fn take, void *arg);
} sp_merge_comm;

/** What one rank of a merge did (sp_merge_parallel()): seconds of each step and its share. */
typedef struct sp_merge_stats {
  double t_index;        /**< open every input, read its /tasks index, the prefix sums (every rank), s */
  double t_union;        /**< this rank's share of /components and the site flags; the union on rank 0, s */
  double t_create;       /**< rank 0: create the file, every dataset at its final size, the small tables, s */
  double t_copy;         /**< this rank's rows written at their offsets, s */
  double t_close;        /**< rank 0: /run, the root attributes, close, s */
  size_t tasks;          /**< tasks of this rank's share */
  int64_t bytes_written; /**< bytes of table rows this rank wrote */
  size_t index_bytes;    /**< bytes of the task index this rank held (all tasks: O(tasks), not O(rows)) */
} sp_merge_stats;

/**
 * sp_merge() over the P ranks of @p comm: the same file, byte for byte in its datasets (test:
 * tests/integration/merge_np.sh). Every rank opens every input and reads its /tasks index (small:
 * O(tasks)); the prefix sum of the row counts over the merge order gives every task its first row
 * in every table; the tasks are shared out as P contiguous runs of the merge order of about equal
 * bytes. Each rank reads its share's /components rows and rank 0 keeps their union (tables with
 * sp_table.is_union); rank 0 creates @p out_path with every dataset allocated early, contiguous,
 * at its final size, writes the small tables (/components, /structures' file_idx, n_parts,
 * ligand_ptr, site_ptr) and tells every rank the file offset of every dataset (H5Dget_offset());
 * then every rank writes its share's rows there with pwrite(2) (the datasets' file types are the
 * little-endian native ones: a big-endian host is refused) and rank 0 writes /run and the root
 * attributes last. With @p comm NULL: one process, writing through HDF5 (= sp_merge()).
 *
 * Memory per rank: the task index (sp_merge_stats.index_bytes: 224 bytes per task and growth slack), one
 * 8 MiB buffer per table, the components union; never O(rows).
 * Test hook: SITEPACK_TEST_MERGE_FAIL_RANK=R makes rank R's first row write fail (SP_E_IO, EIO).
 * Bench hook: SITEPACK_MERGE_TRACE=PREFIX makes rank r write PREFIX.r, a text line "offset bytes seconds"
 * for every row write (file offset and bytes of the pwrite, its seconds), then "# copy_seconds S" (the
 * copy step on this rank); bench/merge_io.py replays these extents (docs/decisions.md).
 *
 * @param comm   the ranks, or NULL
 * @param stats  filled for this rank (may be NULL)
 * @return on every rank the same: 0 or the class of the first failure (as sp_merge(), and SP_E_IO:
 *         a row write failed, e.g. ENOSPC; SP_E_MPI), its message in @p err; the partial file
 *         is removed.
 */
int sp_merge_parallel(const sp_merge_comm *comm, const char *out_path, const char *const *inputs, size_t n_inputs,
                      const sp_merge_info *info, sp_merge_stats *stats, sp_err *err);

/**
 * Print one table of a merged file as TSV: a header row of column names (docs/format.md),
 * then one line per row. Integers in decimal; flags as decimal integers; float32 with
 * "%.6g", float64 with "%.9g"; vectors (center) as three columns x y z; auth_seq_id and
 * label_seq_id equal to SP_SEQ_NONE print as "."; strings as stored with tab, CR and LF
 * replaced by spaces; NaN prints as "nan".
 *
 * Tables: "structures", "ligands", "components", "residues", "interactions" (columns of
 * docs/format.md, then type_name: sp_ix_type_name() of type), and "sites" (one row per site
 * joined with its ligand and structure: site_idx, path, comp_id, auth_asym_id,
 * auth_seq_id, ins_code, label_asym_id, altloc, class, n_ligand, n_atoms, n_residues,
 * flags, cutoff, center x y z, residues, other_residues; residues lists the site's polymer
 * residues (kind SP_RES_KIND_POLYMER) and other_residues its other ligands, ions and waters
 * (kinds 2-4), each in site order, space-separated, as auth_asym_id:comp_id:auth_seq_id[ins_code];
 * the site's own ligand residues are in neither).
 *
 * @param out  stream to write to
 * @return 0, SP_E_INVALID (NULL argument or unknown table: the message lists the valid
 *         names), SP_E_NOT_FOUND (no such file), SP_E_FORMAT (not a sitepack file, damaged or truncated:
 *         sp_h5_open_merged()'s message, as sp_check's; or a missing/misshapen dataset), SP_E_NOMEM,
 *         SP_E_HDF5, SP_E_IO (writing @p out failed).
 */
int sp_dump(const char *h5_path, const char *table, FILE *out, sp_err *err);

/**
 * The index of a merged file (issue 36; `sitepack dump OUT.h5 index`, docs/format.md "`sitepack dump OUT.h5
 * index`"): one row per site, a header line first, fields separated by @p sep: site_idx; the entry (/structures
 * entry_id, path, method, resolution, r_work, r_free, release_date); the ligand (ligand_idx, comp_id,
 * auth_asym_id, auth_seq_id ("." when absent), ins_code, ligand_residues, class, ligand_flags, molecule_key,
 * n_heavy_atoms and the fifteen descriptors of /ligands); the site (site_flags, n_residues, quality,
 * pass_quality, ligand_charge, n_interactions); ix_<type> the site's /interactions rows of each type 1..9
 * (sp_ix_type_name); pocket_residues, its polymer residues "CHAIN:COMP:SEQ[INS]" space-separated in site order;
 * then every /clusters and /splits dataset with one value per site, as cluster_NAME / split_NAME, in name order.
 * Numbers: integers as integers, float32 values with 9 significant digits (the stored value), NaN "nan".
 * @p sep '\t' (TSV: a tab or newline inside a text becomes a space) or ',' (CSV, RFC 4180: a field holding a comma,
 * quote or newline is quoted, its quotes doubled).
 * @return 0; SP_E_INVALID (NULL argument, another separator); SP_E_NOT_FOUND (no such file; a file of format
 *         version 4 or older: no descriptors and quality); SP_E_FORMAT (not a sitepack file, a missing dataset);
 *         SP_E_NOMEM; SP_E_HDF5; SP_E_IO (writing @p out failed).
 */
int sp_dump_index(const char *h5_path, FILE *out, char sep, sp_err *err);

/** What sp_check() saw (filled as far as it got, also on failure). */
typedef struct sp_check_summary {
  int64_t n_structures, n_ligands, n_components, n_sites, n_residues, n_atoms; /**< table rows */
  int64_t n_datasets;      /**< datasets whose type, shape, layout and placement were checked */
  int64_t n_spot_checked;  /**< sites spot-checked (atom flags, structure status) */
  uint64_t file_bytes;     /**< size of the file, bytes */
  uint64_t data_bytes;     /**< bytes of all checked datasets (their raw data) */
  int64_t n_interactions;  /**< rows of /interactions (added with that table) */
  int64_t format_version;  /**< the file's root attribute format_version (2 or 3), 0 before it was read */
  int64_t n_values;        /**< values checked by the value checks (rows of the scanned columns) */
} sp_check_summary;

/**
 * Validate a merged file against docs/format.md ("sitepack check"). Stops at the first problem.
 *
 * Checks, in order: the file exists, opens and every object header reads (sp_h5_open_merged(), h5util.h: HDF5
 * refuses a truncated file; the message ends "(the file is damaged or truncated)"); root attributes
 * format = "sitepack", format_version 2 to 8 (SP_FORMAT_VERSION_MIN .. SP_FORMAT_VERSION; a file by the layout
 * of its version: what a later version added may be absent, is checked when present; version 2: the /chains
 * content checks are skipped; versions 2 and 3: the /structures/warnings check is skipped; docs/format.md
 * "Versions"); every dataset of docs/format.md exists with its exact
 * file type (little-endian, fixed-size NUL-padded strings), shape ((n,) or (n,3); all columns of a
 * table with the same rows; CSR pointers n+1), contiguous, unfiltered, with a file offset
 * (H5Dget_offset) when non-empty, lying inside the file, and 4096-aligned when 64 KiB or larger;
 * /sites/atom_ptr, /sites/residue_ptr, /structures/ligand_ptr, /structures/site_ptr start at 0, never
 * decrease and end at the row count they index; sites' n_atoms / n_residues equal the pointer
 * differences and 0 <= n_ligand <= n_atoms; structures' n_ligands / n_sites equal theirs; every
 * index in range and pointing back (ligand.structure_idx in the structure's ligand block,
 * site.structure_idx in its site block, site.ligand_idx's site_idx == the site, every residue's
 * site_idx == its block's site, every atom's residue_idx inside its site's residue block and its ligand flag
 * (bit 0) set exactly on the first n_ligand atoms of its site;
 * /sites/interaction_ptr a CSR pointer over /interactions equal to the prefix sum of n_interactions,
 * every interaction's site_idx == its block's site, lig_atom / site_atom in [0, n_atoms of the site)
 * and water_atom in [-1, n_atoms)); every site's structure has status "ok" (/structures/status read whole);
 * and for
 * @p n_spot sites drawn with a seeded generator (splitmix64 from @p seed; all sites when N <= n_spot):
 * that status read again through a hyperslab of the site's own (a second read path). Then /components/comp_id sorted and unique, with a row for every
 * /ligands/comp_id (SP_E_FORMAT). Then the values (sp_check_values, class SP_E_BAD_VALUE): /atoms/element in
 * 0..118, /atoms/position finite, /ligands/class a class name, /interactions/type 1..9, /residues/kind 0..4,
 * /sites/cutoff finite and > 0, each streamed in blocks of 262,144 rows. In a version-4 file,
 * /structures/warnings against n_warnings (sp_check_warnings, SP_E_FORMAT): "" exactly when n_warnings is 0;
 * otherwise its lines (split at "\n") are n_warnings messages, or k messages and a last line "... N more" with
 * k + N = n_warnings; no control byte but the "\n" separators.
 *
 * Memory: O(sites + ligands + residues + structures) plus 10 MiB for scanning atoms (4 MiB for the values).
 * @param sum  filled with counts (may be NULL)
 * @return 0 (valid); SP_E_INVALID (NULL path); SP_E_NOT_FOUND (no such file); SP_E_IO (stat failed);
 *         SP_E_FORMAT (any layout, index or version check failed, or HDF5 cannot open the file: damaged or
 *         truncated; the message names the dataset and row; an unknown format_version: "unknown format version
 *         N (this sitepack reads SP_FORMAT_VERSION_MIN to SP_FORMAT_VERSION ...)"); SP_E_BAD_VALUE (a value check
 *         failed: "FILE: /atoms/element[ROW] = 200: not ..."); SP_E_NOMEM; SP_E_HDF5 (a read failed).
 */
int sp_check(const char *path, size_t n_spot, uint64_t seed, sp_check_summary *sum, sp_err *err);

/** Totals of a merged file, for a run's summary and report (they count the whole output,
 *  including tasks resumed from an earlier attempt). */
typedef struct sp_output_totals {
  int64_t n_structures, n_ok, n_failed, n_duplicates;  /**< /structures rows by status */
  int64_t n_repeated_entries; /**< rows "repeated_entry" (entries: first; issue 16): like duplicates, not failed */
  int64_t by_class[SP_ERRCLASS_COUNT];                 /**< rows per error class (duplicate included) */
  int64_t n_ligands, n_sites, n_site_atoms, n_interactions;  /**< table rows */
  int64_t n_with_warnings;  /**< /structures rows with n_warnings > 0 (their texts: /structures/warnings) */
  int64_t n_components;     /**< /components rows: the ligand comp ids of the run (issue 36 item 5) */
  int64_t n_not_in_ccd;     /**< ... of them with in_ccd 0: no CCD block, bond orders guessed or from the file */
  char not_in_ccd_ids[64];  /**< the first of those comp ids in /components order, space-separated, whole ids only
                                 (" ..." when not all fit); "" when none */
  char *failures;           /**< "path\tclass\tmessage\n" per failed row (not duplicates or repeated entries), in
                                 file order; owned */
  size_t failures_len, failures_cap;
} sp_output_totals;

/**
 * Read the totals of a merged file (status column, table sizes, failed rows).
 * @return 0; SP_E_HDF5 (cannot open or read), SP_E_FORMAT (not a merged sitepack file).
 *         Free with sp_output_totals_free() in every case.
 */
int sp_output_totals_read(const char *h5_path, sp_output_totals *t, sp_err *err);
void sp_output_totals_free(sp_output_totals *t);

/**
 * Read the string attribute @p name of /run of a merged file (docs/format.md: tool_version,
 * git_sha, job_json, ccd_path, ccd_sha256, created) into @p buf: NUL-terminated, cut to cap - 1
 * bytes; "" on failure.
 * @return 0; SP_E_INVALID (NULL argument or cap 0); SP_E_HDF5 (the file cannot be opened);
 *         SP_E_FORMAT (no /run group); SP_E_NOT_FOUND (no such string attribute).
 */
int sp_run_attr_str(const char *h5_path, const char *name, char *buf, size_t cap, sp_err *err);

/** A synthetic file in the merged layout being written (`sitepack bench read`, docs/reading.md).
 *  Opaque. */
typedef struct sp_synthetic sp_synthetic;

/**
 * Create (truncate) @p path with the datasets a reader of the merged layout (reader.h) maps, for
 * @p n_sites sites of @p atoms atoms each, as the merge creates them (sp_h5_create_final: contiguous,
 * allocated early, 4096-aligned): /sites/atom_ptr int64 (N+1), /sites/n_atoms and /sites/n_ligand
 * int32 (N), /sites/energy float64 (N), /atoms/position and /atoms/force float32 (N*atoms, 3) in Å
 * and (arbitrary) force units, /atoms/element uint8 (N*atoms). No other table of docs/format.md.
 * @return the writer, or NULL with @p err set: SP_E_INVALID (NULL path, n_sites < 0, atoms < 1),
 *         SP_E_NOMEM, SP_E_HDF5 (file or dataset creation failed; HDF5 prints its error stack).
 */
sp_synthetic *sp_synthetic_open(const char *path, int64_t n_sites, int atoms, sp_err *err);

/**
 * Write sites [m0, m0 + nm): @p pos and @p force [nm*atoms*3], @p element [nm*atoms], @p energy [nm];
 * atom_ptr = site * atoms (and its closing element with the last sites), n_atoms = atoms,
 * n_ligand = atoms / 4.
 * @return 0; SP_E_INVALID (range outside [0, n_sites)); SP_E_NOMEM; SP_E_HDF5. After a failure
 *         sp_synthetic_close() writes no format attributes.
 */
int sp_synthetic_append(sp_synthetic *w, int64_t m0, int64_t nm, const float *pos, const float *force,
                        const uint8_t *element, const double *energy, sp_err *err);

/**
 * Unless an append failed, write the root attributes format = "sitepack", format_version (the file
 * then opens with sp_reader_open()); close the file and free @p w. Safe with NULL (returns 0).
 * @return 0; SP_E_HDF5.
 */
int sp_synthetic_close(sp_synthetic *w, sp_err *err);

#ifdef __cplusplus
}
#endif
#endif

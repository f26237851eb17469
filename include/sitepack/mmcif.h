/**
 * @file mmcif.h
 * @brief PDBx/mmCIF structure reader: fills an sp_structure (model.h) from the data block
 *        of an mmCIF text that holds its `_atom_site` rows.
 *
 * Item names are those of the PDBx/mmCIF dictionary (https://mmcif.wwpdb.org/).
 * What is read:
 * - every `_atom_site` row (all models, all altlocs, hydrogens kept) in file order,
 *   through sp_structure_add_atom(): label_* and auth_* identifiers; where the file has
 *   only one naming system, it is used for both chain ids, comp id and atom name, while
 *   residue numbers stay SP_SEQ_NONE where absent (cases B13, B14, B15). Defaults for
 *   absent columns or null values: pdbx_PDB_model_num 1, occupancy 1.0, B_iso_or_equiv 0,
 *   no insertion code, no altloc, formal charge 0, serial (`id`) 0 when not an integer.
 *   A value that does not parse in a column a row can do without (issue 20, docs/format.md
 *   "Unreadable values in the input files"): occupancy 1.0, B_iso_or_equiv NaN, formal charge 0, with a warning
 *   at the first such value of each column and a count of them when there are more.
 *   `group_PDB` HETATM sets SP_ATOM_HETATM.
 * - element from `type_symbol`. When that column is absent or a value is blank/null/unknown,
 *   the element is inferred from the atom name (warning "elements inferred from atom
 *   names"): leading digits are skipped (1HB -> H); a name equal to its comp_id whose
 *   first two letters form an element is that element (CA in comp CA -> Ca, ZN -> Zn);
 *   otherwise the first letter if it is an element (C, N, O, S, P, H, ...), else the
 *   first two letters.
 * - `_entity` (id, type), `_entity_poly` (entity_id, type, pdbx_strand_id),
 *   `_entity_poly_seq` (entity_id, mon_id; at microheterogeneous positions (same num)
 *   only the first mon_id is kept) via sp_structure_add_entity/add_seq;
 * - `_struct_conn` (id, conn_type_id -> sp_conn_type; ptnr1/2 label and auth asym/comp/seq
 *   ids, atom ids, pdbx_ptnrN_label_alt_id, pdbx_ptnrN_PDB_ins_code, ptnrN_symmetry,
 *   pdbx_dist_value) via add_conn;
 * - `_chem_comp` (id, type) via add_file_comp, and the file's `_chem_comp_bond`
 *   (comp_id, atom_id_1, atom_id_2, value_order SING/DOUB/TRIP/AROM/DELO in any case,
 *   pdbx_aromatic_flag) via add_file_bond;
 * - `_entry.id`, `_exptl.method` (several rows joined with ", "), resolution from
 *   `_refine.ls_d_res_high`, else `_em_3d_reconstruction.resolution`, else
 *   `_reflns.d_resolution_high` (first non-null numeric value);
 * - has_label_ids (label_asym_id or label_seq_id column present), has_auth_ids (auth_asym_id
 *   or auth_seq_id column present); CIF warnings (e.g. "empty loop") are copied to the
 *   structure's warnings. Finally sp_structure_finish() is called.
 * Every data block is tokenised (a syntax error anywhere fails the file, as in gemmi); the
 * structure is read from the one block with `_atom_site` rows, wherever it is (blocks without
 * them, a header or a dictionary block of the file's components, are allowed; a warning says
 * when it is not the first block). `_atom_site` rows in two or more blocks: SP_E_MULTIPLE_BLOCKS,
 * naming the blocks (several structures in one file; gemmi refuses such files too).
 */
#ifndef SITEPACK_MMCIF_H
#define SITEPACK_MMCIF_H

#include <stddef.h>

#include "sitepack/error.h"
#include "sitepack/model.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Read an mmCIF text into @p s.
 * @param text,len the file content (text[len] may be '\0'; nothing beyond len is read)
 * @param s an sp_structure_init()ed structure, possibly re-used after sp_structure_clear()
 * @return 0; the sp_cif_parse() errors (SP_E_BINARY, SP_E_SYNTAX, SP_E_ROW_COUNT,
 *         SP_E_TOO_LARGE, SP_E_NOMEM); SP_E_NO_ATOMS (no data block, no _atom_site or zero
 *         rows in every block); SP_E_MULTIPLE_BLOCKS (_atom_site rows in more than one block); SP_E_MISSING_ITEM (no Cartn_x/y/z column, or no atom name / comp id column);
 *         SP_E_BAD_VALUE (a coordinate or model number that is not a number,
 *         or a residue number that is not an integer; the message names the row, the atom id
 *         and the line); SP_E_TOO_LARGE (more atoms than model.h allows).
 *         On error @p s may hold a partial structure: clear it before re-use.
 */
int sp_mmcif_read(const char *text, size_t len, sp_structure *s, sp_err *err);


/** Flag of sp_mmcif_read_ex: the caller has checked that the text has no NUL byte (the reader
 *  then does not look for one). */
#define SP_MMCIF_NUL_CHECKED 1u
/** Flag of sp_mmcif_read_ex, with SP_MMCIF_NUL_CHECKED: look for NUL bytes after the parse
 *  instead of before (one pass over the text from memory instead of two): a text with a NUL
 *  gives SP_E_BINARY and the structure as it was before the call, whatever the parse found,
 *  as if it had been checked first. */
#define SP_MMCIF_NUL_AFTER 2u

/**
 * sp_mmcif_read() with @p flags: 0 (the same as sp_mmcif_read), SP_MMCIF_NUL_CHECKED, or
 * SP_MMCIF_NUL_CHECKED | SP_MMCIF_NUL_AFTER. Used by the format dispatch (read.h), which has
 * already looked at the text. Errors as sp_mmcif_read().
 */
int sp_mmcif_read_ex(const char *text, size_t len, sp_structure *s, unsigned flags, sp_err *err);

#ifdef __cplusplus
}
#endif
#endif

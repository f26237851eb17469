/**
 * @file pdb.h
 * @brief Legacy PDB format reader (fixed columns), wwPDB "Atomic Coordinate Entry
 *        Format Version 3.3" (https://www.wwpdb.org/documentation/file-format-content/format33/v3.3.html),
 *        with the hybrid-36 extension for serials and residue numbers
 *        (R. W. Grosse-Kunstleve, http://cci.lbl.gov/hybrid_36/) and the MD-tool extensions below.
 *
 * Records read (columns are 1-based and inclusive, as in the format guide):
 *  - ATOM / HETATM: serial 7-11 (decimal or hybrid-36), name 13-16, altLoc 17,
 *    resName 18-20, chainID 22, resSeq 23-26 (decimal or hybrid-36), iCode 27,
 *    x 31-38, y 39-46, z 47-54 (Å), occupancy 55-60, tempFactor 61-66 (Å^2),
 *    element 77-78, charge 79-80 ("2+", "1-"; "+2" is accepted too).
 *    MD-tool extensions (case B20): a non-blank column 21 is the 4th character of the
 *    residue name (resName 18-21, e.g. "TIP3", "LIG1"; standard wwPDB files leave 21
 *    blank); when columns 23-26 are all digits and column 27 is a digit too, columns
 *    23-27 are a 5-digit residue number (e.g. 10000) and there is no insertion code.
 *    Blank occupancy -> 1.0, blank tempFactor -> 0, blank serial -> 0, blank resSeq ->
 *    SP_SEQ_NONE, blank chain / residue name -> "" (case B12). A value that does not parse
 *    in a column a row can do without (issue 20, docs/format.md "Unreadable values in the input files"):
 *    occupancy 1.0, tempFactor NaN, charge 0, serial 0, with a warning at the first such
 *    value of each column and a count of them when there are more ("*****" serials, the
 *    overflow mark of MD tools, are 0 without a warning).
 *  - Element when columns 77-78 are blank (or not an element symbol): from the atom
 *    name's alignment, the convention of the format guide (section ATOM, "Alignment of
 *    one-letter atom name such as C starts at column 14, while two-letter atom name such
 *    as FE starts at column 13"); see sp_pdb_element_from_name(). "CA  " (column 13) in
 *    HETATM residue CA is calcium, " CA " is carbon, "BR1 " is bromine (case B37).
 *    Such atoms get SP_ATOM_ELEMENT_FROM_NAME and the file one warning with their number.
 *    When any name of 1-2 characters stands in columns 15-16 (columns 13-14 blank: names
 *    right-justified, as "%4s" writes them), every such atom of the file takes the element of
 *    sp_pdb_element_from_bare_name() instead (issue 20, case tests/cases/R06).
 *  - MODEL / ENDMDL: model_num = the MODEL serial (1 when the file has no MODEL record;
 *    a blank serial: one above the largest so far). Every MODEL record starts a model, and so
 *    do atom records after ENDMDL that no MODEL record precedes (frames separated by ENDMDL
 *    only, as gemmi and biopython read them); a MODEL serial that is not above every model
 *    number before it (a trajectory with every frame written as MODEL 1, a number twice, out
 *    of order) is replaced by one above the largest so far, with a warning, so that the
 *    number names one model (issue 20; cases tests/cases/R03, R04). gemmi refuses repeated
 *    numbers ("duplicate MODEL number"); models are never merged.
 *  - HEADER idCode (63-66) -> entry_id; EXPDTA (11-79, continued lines joined) -> method;
 *    "REMARK   2 RESOLUTION." value (Å) -> resolution (NAN when absent or "NOT APPLICABLE").
 *  - SEQRES -> one polymer entity per chain (id = chain id, strand_ids = chain id,
 *    sequence = the residue names), poly_type guessed from the residue names.
 *    Atoms are NOT linked to these entities (chain.entity stays -1, residue entity_type
 *    SP_ENT_UNKNOWN): a PDB chain id also covers the chain's ligands and waters, so the
 *    survey decides polymer membership itself.
 *  - LINK -> sp_conn of type SP_CONN_COVALE, or SP_CONN_METALC when either atom is a metal
 *    (sp_element_is_metal on the element of the atom the end resolves to in model 1, else
 *    on the element guessed from its name); SSBOND -> SP_CONN_DISULF between the two SG
 *    atoms. Symmetry operators "1555" are stored in mmCIF spelling "1_555"; the distance
 *    (74-78) is stored, NAN when blank.
 *  - CONECT (section 10): serial 7-11 and the bonded serials 12-16, 17-21, 22-26, 27-31
 *    (decimal or hybrid-36), each field one sp_structure_add_conect() entry; the finished
 *    structure holds one sp_conect per bonded atom pair of model 1, its order the number of
 *    times the pair is listed (the repeated-serial convention of Open Babel and RDKit; wwPDB
 *    files list each bond once per direction: order 1). The hydrogen-bond and salt-bridge
 *    fields of format 2.x (columns 32-61) are not read; an unreadable serial drops its entry
 *    with a warning. Query: sp_structure_conect_order(), sp_structure_conect_first().
 *  - END stops reading. ANISOU, TER and all other records are ignored.
 * The PDB has no label ids: label_asym_id is a copy of the chain id (done by model.h),
 * label_seq_id is SP_SEQ_NONE, has_label_ids = 0, has_auth_ids = 1.
 * Lines may end in LF or CR LF (no CR ever reaches a field) and may be shorter than 80
 * columns (missing columns are blank).
 */
#ifndef SITEPACK_PDB_H
#define SITEPACK_PDB_H

#include <stddef.h>
#include <stdint.h>

#include "sitepack/error.h"
#include "sitepack/model.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Read a PDB-format text into @p s.
 * @param text the file content (need not be NUL-terminated), @p len bytes
 * @param s    an initialised structure (sp_structure_init), normally empty (sp_structure_clear
 *             to re-use one); atoms are appended, sp_structure_finish() is called at the end.
 *             On error its content is unspecified but valid (free or clear it).
 * @return 0; SP_E_NO_ATOMS (no ATOM/HETATM record, message "no atoms"), SP_E_BAD_VALUE
 *         (a coordinate, residue number or MODEL number that does not parse, or an atom
 *         line too short for its coordinates; the message gives the line number),
 *         SP_E_NOMEM, SP_E_TOO_LARGE (more atoms than model.h allows).
 *         Non-fatal oddities (serials that restart, unknown element, an unreadable
 *         occupancy, B, charge or serial, a renumbered MODEL, atoms after ENDMDL) are recorded with
 *         sp_structure_warn().
 */
int sp_pdb_read(const char *text, size_t len, sp_structure *s, sp_err *err);

/**
 * Decode a hybrid-36 number of field width @p width (4: resSeq, 5: serial), blanks around
 * the digits allowed. Decimal up to 10^width - 1; then "A000".."ZZZZ" (upper case) continue
 * at 10^width, then "a000".."zzzz" (lower case) continue after those (hybrid-36 rules,
 * http://cci.lbl.gov/hybrid_36/). A leading '-' is allowed for decimals.
 * @return 0 and *value; 1 if the field is blank (*value untouched); -1 if it is not a number.
 */
int sp_hy36_decode(const char *field, size_t width, int32_t *value);

/**
 * Element of a PDB atom whose element columns are blank, from its name field.
 * @param name4   columns 13-16 exactly as written (4 characters, blank-padded)
 * @param comp_id the residue name (for the standard-residue guard below)
 * Rules (wwPDB format guide v3.3, ATOM record, atom name alignment):
 *  1. column 13 blank or a digit (" CA ", "1HB "): one-letter element in column 14;
 *  2. a 4-character name starting with H or D in column 13 ("HD21", "HG12"): hydrogen;
 *  3. otherwise columns 13-14 as a two-letter symbol when it is one ("CA  " calcium,
 *     "BR1 " bromine, "FE  " iron), except in standard amino-acid / nucleotide / water
 *     residues, which hold no two-letter elements (a misaligned "CD1 " of LEU is carbon);
 *  4. else the one-letter element in column 13 ("C1A ", "O1  ").
 * D and T give hydrogen (1).
 * @return the atomic number, 0 if none of the rules gives an element.
 */
uint8_t sp_pdb_element_from_name(const char name4[4], sp_sv comp_id);

/**
 * Element of an atom from its name without column alignment: the rule for PDB files whose
 * names are right-justified ("%4s": "  CA", "   N", " CL1"), where columns 13-14 no longer
 * say where the element symbol starts (issue 20; case tests/cases/R06). gemmi gives no
 * element for such names (its rule reads column 14 when column 13 is blank).
 * @param name    the atom name, blanks trimmed
 * @param comp_id the residue name
 * Rules: leading digits are skipped ("1HB" -> H); a two-character name equal to its residue
 * name that is an element symbol is that element (ion residues: CA/CA calcium, ZN/ZN, CL/CL);
 * a first letter that is no element alone gives the two-letter element ("ZN1", "MG"); in a
 * residue that is not a standard amino acid, nucleotide or water, the two-letter elements BR,
 * CL, CR, CU, FE, NI, SE, SI win over their first letter ("BR1" bromine, "FE" of HEM iron,
 * "SE" of MSE selenium); otherwise the first letter ("CA" of ALA carbon, "HG" of SER
 * hydrogen, "CD" carbon, "PB" of ATP phosphorus). The remaining ambiguities (a ligand atom
 * named "CO" is carbon, never cobalt) are those of names without alignment.
 * @return the atomic number, 0 if no rule gives an element.
 */
uint8_t sp_pdb_element_from_bare_name(sp_sv name, sp_sv comp_id);

#ifdef __cplusplus
}
#endif
#endif

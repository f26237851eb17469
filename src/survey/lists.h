/* Component-id lists of the ligand survey (private to src/survey). Every list, its
 * rule and its source is documented in docs/ligands.md. */
#ifndef SITEPACK_SURVEY_LISTS_H
#define SITEPACK_SURVEY_LISTS_H

#include <stdbool.h>

/** Water names: HOH, DOD, WAT, H2O, and MD names TIP/TIP3/TIP4/TIP5/SPC/SOL/T3P/T4P. */
bool sp_list_is_water(const char *comp_id);
/** Standard polymer residues: the 20 amino acids, UNK, and the nucleotides A C G U I N
 *  DA DC DG DT DI DU (used only for PDB files without entity information). */
bool sp_list_is_standard_residue(const char *comp_id);
/** Amino acids among the standard residues, plus MSE. */
bool sp_list_is_amino_acid(const char *comp_id);
/** Reserved / placeholder ids: UNL, UNX, UNK, DUM, LIG, DRG, INH and two-digit 01..99. */
bool sp_list_is_reserved(const char *comp_id);
/** Polyatomic inorganic ions classified as `ion` (SO4, PO4, NO3, ..., from BioLiP's list IRI, SOH, ...). */
bool sp_list_is_polyatomic_ion(const char *comp_id);
/** Crystallisation / cryo-protection / buffer additives classified as `artifact` (PLINDER's and BioLiP's lists). */
bool sp_list_is_artifact(const char *comp_id);
/** Detergents classified as `detergent` (PLINDER's and BioLiP's lists). */
bool sp_list_is_detergent(const char *comp_id);
/** Lipids classified as `lipid` (BioLiP's list, some also PLINDER's). */
bool sp_list_is_lipid(const char *comp_id);
/** Cofactors classified as `cofactor`. */
bool sp_list_is_cofactor(const char *comp_id);
/** Monosaccharides classified as `glycan` when no CCD/file type says so. */
bool sp_list_is_sugar(const char *comp_id);

/** true when every list above is sorted (strcmp order), as bsearch needs. */
bool sp_list_self_check(void);

#endif

/* Component-id lists of the ligand survey; rules and sources: docs/ligands.md. */
#include "survey/lists.h"

#include <stdlib.h>
#include <string.h>

static int cmp_str(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

/* Each list must stay sorted (strcmp order): checked by test_survey_unit. */
static bool in_list(const char *id, const char *const *list, size_t n) {
  return bsearch(&id, list, n, sizeof *list, cmp_str) != NULL;
}
#define IN(id, list) in_list((id), (list), sizeof(list) / sizeof((list)[0]))

static const char *const k_water[] = {"D2O", "DOD", "H2O", "HOH", "SOL", "SPC", "T3P", "T4P",
                                      "TIP", "TIP3", "TIP4", "TIP5", "WAT"};

static const char *const k_amino[] = {"ALA", "ARG", "ASN", "ASP", "CYS", "GLN", "GLU", "GLY", "HIS", "ILE",
                                      "LEU", "LYS", "MET", "MSE", "PHE", "PRO", "SER", "THR", "TRP", "TYR",
                                      "UNK", "VAL"};

static const char *const k_nucleotide[] = {"A", "C", "DA", "DC", "DG", "DI", "DT", "DU", "G", "I", "N", "U"};

static const char *const k_reserved[] = {"DRG", "DUM", "INH", "LIG", "UNK", "UNL", "UNX"};

/* Inorganic polyatomic ions (oxoanions, ammonium, azide, cyanide, thiocyanate ...). */
static const char *const k_poly_ion[] = {"2HP", "AZI", "BCT", "BO3", "BO4", "CO3", "CYN", "FLO", "IOD",
                                         "MOO", "NH4", "NO2", "NO3", "OH",  "PER", "PI",  "PO3", "PO4",
                                         "SCN", "SO3", "SO4", "SUL", "TCN", "VO4", "WO4"};

/* Crystallisation, cryo-protection, buffer and detergent additives. */
static const char *const k_artifact[] = {
    "12P", "15P", "1PE", "1PG", "2PE", "7PE", "ACT", "B3P", "BCN", "BEN", "BME", "BOG", "BTB", "C8E", "CIT",
    "CXS", "DIO", "DMF", "DMS", "DTT", "EDO", "EPE", "ETE", "FLC", "FMT", "GOL", "HED", "HEZ", "IMD", "IPA",
    "LDA", "LMT", "MES", "MLA", "MLI", "MPD", "MRD", "NHE", "OGA", "P4C", "P6G", "PE4", "PE5", "PE8", "PEG",
    "PG0", "PG4", "PG5", "PG6", "PGE", "PGO", "PGR", "POL", "SGM", "SIN", "SPD", "SPM", "SRT", "TAM", "TAR",
    "TBU", "TLA", "TRS", "URE", "XPE"};

/* Cofactors (enzyme cofactors, prosthetic groups, nucleotide cofactors, metal clusters). */
static const char *const k_cofactor[] = {
    "ACO", "ADP", "AMP", "ANP", "ATP", "B12", "BCL", "BTN", "C2F", "CDP", "CHL", "CLA", "CNC", "COA", "CTP",
    "DHE", "F3S", "F420", "FAD", "FDA", "FES", "FMN", "GDP", "GMP", "GNP", "GTP", "H4B", "HAS", "HDD", "HEA",
    "HEB", "HEC", "HEM", "HEO", "LPA", "MGD", "MTE", "NAD", "NAI", "NAP", "NDP", "PLP", "PMP", "PQQ", "SAH",
    "SAM", "SF4", "SFS", "TDP", "TPP", "UDP", "UQ1", "UTP"};

/* Monosaccharides (used when neither the CCD nor the file gives a saccharide type). */
static const char *const k_sugar[] = {"A2G", "BDP", "BGC", "BMA", "FRU", "FUC", "FUL", "GAL", "GCU", "GLA",
                                      "GLC", "IDR", "MAN", "NAG", "NDG", "NGA", "SIA", "XYP", "XYS"};

bool sp_list_is_water(const char *id) { return IN(id, k_water); }
bool sp_list_is_amino_acid(const char *id) { return IN(id, k_amino); }
bool sp_list_is_standard_residue(const char *id) {
  return (IN(id, k_amino) && strcmp(id, "MSE") != 0) || IN(id, k_nucleotide);
}
bool sp_list_is_reserved(const char *id) {
  if (id[0] >= '0' && id[0] <= '9' && id[1] >= '0' && id[1] <= '9' && id[2] == '\0' && strcmp(id, "00") != 0)
    return true;
  return IN(id, k_reserved);
}
bool sp_list_is_polyatomic_ion(const char *id) { return IN(id, k_poly_ion); }
bool sp_list_is_artifact(const char *id) { return IN(id, k_artifact); }
bool sp_list_is_cofactor(const char *id) { return IN(id, k_cofactor); }
bool sp_list_is_sugar(const char *id) { return IN(id, k_sugar); }

bool sp_list_self_check(void) {
#define SORTED(l)                                                                  \
  for (size_t i = 1; i < sizeof(l) / sizeof((l)[0]); i++)                          \
    if (strcmp((l)[i - 1], (l)[i]) >= 0) return false;
  SORTED(k_water) SORTED(k_amino) SORTED(k_nucleotide) SORTED(k_reserved) SORTED(k_poly_ion)
  SORTED(k_artifact) SORTED(k_cofactor) SORTED(k_sugar)
#undef SORTED
  return true;
}

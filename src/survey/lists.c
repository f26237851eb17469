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

/* Inorganic polyatomic ions (oxoanions, ammonium, azide, cyanide, thiocyanate ...) and the metal ammine
 * complexes and the other inorganic oxoanions of the BioLiP list (IRI NCO RHD CON, SOH LCO LCP SE4 THJ:
 * tests/data/ligand_classes/classes.tsv). */
static const char *const k_poly_ion[] = {"2HP", "AZI", "BCT", "BO3", "BO4", "CO3", "CON", "CYN", "FLO",
                                         "IOD", "IRI", "LCO", "LCP", "MOO", "NCO", "NH4", "NO2", "NO3",
                                         "OH",  "PER", "PI",  "PO3", "PO4", "RHD", "SCN", "SE4", "SO3",
                                         "SO4", "SOH", "SUL", "TCN", "THJ", "VO4", "WO4"};

/* Crystallisation, cryo-protection, buffer and reducing-agent additives (docs/ligands.md "Classes"). Every id
 * is a row of tests/data/ligand_classes/classes.tsv with the published list(s) that name it (PLINDER's
 * artifacts_badlist.csv, BioLiP's ligand_list: third_party/ligand_lists/): checked by ligand_class_lists. */
static const char *const k_artifact[] = {
    "12P", "144", "15P", "16P", "1PE", "1PG", "2PE", "6JZ", "7PE", "7PG", "ACT", "AE3", "AE4", "B3P", "BCN", "BEN",
    "BME", "BTB", "BU1", "CAC", "CAD", "CIT", "CXS", "D1D", "DIO", "DMF", "DMS", "DTD", "DTT", "DTU", "DTV", "EDO",
    "EPE", "ETE", "ETF", "ETX", "FLC", "FMT", "GOL", "GVT", "HED", "HEZ", "HT3", "HTH", "HTO", "IMD", "IPA", "M2M",
    "ME2", "MES", "MLA", "MLI", "MPD", "MPO", "MRD", "NHE", "OGA", "P15", "P33", "P3G", "P4C", "P4G", "P6G", "PE3",
    "PE4", "PE5", "PE8", "PEG", "PEU", "PG0", "PG4", "PG5", "PG6", "PGE", "PGF", "PGO", "PGR", "POL", "SGM", "SIN",
    "SPD", "SPM", "SRT", "TAM", "TAR", "TBU", "TFA", "TLA", "TOE", "TRS", "URE", "XPE"};

/* Detergents (alkyl glycosides and maltosides, amine oxides, polyoxyethylene alkyl ethers, CHAPS), all from
 * the same lists (classes.tsv). */
static const char *const k_detergent[] = {"BGL", "BHG", "BNG", "BOG", "C10", "C8E", "CE1", "CE9", "CPS", "CXE", "DDQ",
                                          "DET", "HSG", "HSH", "HTG", "LDA", "LMT", "LMU", "N8E", "OES", "SOG", "UMQ"};

/* Lipids (fatty acids, acylglycerols, phospho-, glyco-, ether and sphingolipids, the lists' lipid fragments),
 * all from BioLiP's list, some also PLINDER's (classes.tsv). */
static const char *const k_lipid[] = {
    "02U", "1AG", "1EM", "2DP", "3PE", "3PH", "4AG", "6PE", "6PH", "6PL", "6UL", "7E8", "7E9", "7PH",
    "8PE", "9PE", "AGA", "B3H", "BXC", "CD4", "CDL", "CN3", "CN6", "CNS", "DAO", "DDR", "DGA", "DGD",
    "DGG", "DKA", "DPG", "FTT", "GGD", "HGP", "HGX", "L1P", "L2C", "L2P", "L3P", "L44", "L4P", "LFA",
    "LHG", "LI1", "LIO", "LMG", "LPP", "MC3", "MGE", "MVC", "MYR", "MYY", "NER", "OLA", "OLB", "OLC",
    "OPC", "P1O", "PA8", "PAM", "PC1", "PC2", "PC6", "PC7", "PC8", "PCF", "PCW", "PD7", "PEE", "PEF",
    "PEH", "PEK", "PEV", "PEX", "PG8", "PGT", "PGV", "PLC", "PLD", "PLM", "POV", "PSC", "PTY", "PX2",
    "PX4", "PX6", "PX8", "SPH", "SQD", "SQU", "STE", "TGL", "TRD", "UND", "UPL", "XP4", "XPA"};

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
bool sp_list_is_detergent(const char *id) { return IN(id, k_detergent); }
bool sp_list_is_lipid(const char *id) { return IN(id, k_lipid); }
bool sp_list_is_cofactor(const char *id) { return IN(id, k_cofactor); }
bool sp_list_is_sugar(const char *id) { return IN(id, k_sugar); }

bool sp_list_self_check(void) {
#define SORTED(l)                                         \
  for (size_t i = 1; i < sizeof(l) / sizeof((l)[0]); i++) \
    if (strcmp((l)[i - 1], (l)[i]) >= 0) return false
  SORTED(k_water);
  SORTED(k_amino);
  SORTED(k_nucleotide);
  SORTED(k_reserved);
  SORTED(k_poly_ion);
  SORTED(k_artifact);
  SORTED(k_detergent);
  SORTED(k_lipid);
  SORTED(k_cofactor);
  SORTED(k_sugar);
#undef SORTED
  return true;
}

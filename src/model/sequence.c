/* One-letter codes of polymer residues (model.h sp_one_letter_code, sp_structure_can_from_seq). */
#include "sitepack/model.h"

#include <string.h>

/* The standard residues of the PDB (wwPDB chem_comp one_letter_code of the 20 amino acids, SEC, PYL,
 * the ambiguity codes ASX/GLX, UNK; the DNA and RNA nucleotides and their unknowns), the letters
 * _entity_poly.pdbx_seq_one_letter_code_can writes for them. */
static const char k_codes[][2][4] = {
    {"ALA", "A"}, {"ARG", "R"}, {"ASN", "N"}, {"ASP", "D"}, {"CYS", "C"}, {"GLN", "Q"}, {"GLU", "E"},
    {"GLY", "G"}, {"HIS", "H"}, {"ILE", "I"}, {"LEU", "L"}, {"LYS", "K"}, {"MET", "M"}, {"PHE", "F"},
    {"PRO", "P"}, {"SER", "S"}, {"THR", "T"}, {"TRP", "W"}, {"TYR", "Y"}, {"VAL", "V"}, {"SEC", "U"},
    {"PYL", "O"}, {"ASX", "B"}, {"GLX", "Z"}, {"UNK", "X"}, {"DA", "A"},  {"DC", "C"},  {"DG", "G"},
    {"DT", "T"},  {"DU", "U"},  {"DI", "I"},  {"DN", "N"},  {"A", "A"},   {"C", "C"},   {"G", "G"},
    {"U", "U"},   {"T", "T"},   {"I", "I"},   {"N", "N"},
};

char sp_one_letter_code(const char *comp_id) {
  for (size_t i = 0; i < sizeof k_codes / sizeof *k_codes; i++)
    if (comp_id[0] == k_codes[i][0][0] && !strcmp(comp_id, k_codes[i][0])) return k_codes[i][1][0];
  return 0;
}

int sp_structure_can_from_seq(sp_structure *s, const char (*mod)[2][SP_ID_LEN], size_t n_mod, sp_err *err) {
  for (size_t e = 0; e < s->n_entities; e++) {
    sp_entity *en = &s->entities[e];
    if (en->type != SP_ENT_POLYMER || en->can_len || !en->seq_len) continue;
    for (uint32_t k = 0; k < en->seq_len; k++) {
      const char *comp = s->seq_comp[en->seq_first + k];
      char c = sp_one_letter_code(comp);
      for (size_t m = 0; !c && m < n_mod; m++)
        if (!strcmp(mod[m][0], comp)) c = sp_one_letter_code(mod[m][1]);
      if (!c) c = 'X';
      int rc = sp_structure_add_can(s, e, &c, 1, err);
      if (rc) return rc;
    }
  }
  return 0;
}

uint8_t sp_poly_type_guess(const char (*comp)[SP_ID_LEN], size_t n) {
  static const char *const k_aa[] = {"ALA", "ARG", "ASN", "ASP", "CYS", "GLN", "GLU", "GLY", "HIS", "ILE", "LEU",
                                     "LYS", "MET", "PHE", "PRO", "SER", "THR", "TRP", "TYR", "VAL", "MSE", "UNK"};
  /* the D-amino acids of the CCD (D-ALA ... D-VAL, D-norleucine DNE, D-methionine MED) */
  static const char *const k_daa[] = {"DAL", "DAR", "DSG", "DAS", "DCY", "DGN", "DGL", "DHI", "DIL", "DLE",
                                      "DLY", "MED", "DPN", "DPR", "DSN", "DTH", "DTR", "DTY", "DVA", "DNE"};
  static const char *const k_dna[] = {"DA", "DC", "DG", "DT", "DI", "DU", "DN"};
  static const char *const k_rna[] = {"A", "C", "G", "U", "I", "N"};
  size_t n_aa = 0, n_daa = 0, n_dna = 0, n_rna = 0;
  /* the first letter first: a strcmp call only for the names that can match (these calls were 6 % of
   * reading the corpus's PDB files, one per SEQRES residue and table entry; perf, issue 28) */
#define SP_COUNT_IN(tab, cnt) \
  for (size_t i = 0; i < sizeof tab / sizeof *tab; ++i) cnt += c[0] == tab[i][0] && !strcmp(c, tab[i])
  for (size_t k = 0; k < n; ++k) {
    const char *c = comp[k];
    SP_COUNT_IN(k_aa, n_aa);
    SP_COUNT_IN(k_daa, n_daa);
    SP_COUNT_IN(k_dna, n_dna);
    SP_COUNT_IN(k_rna, n_rna);
  }
#undef SP_COUNT_IN
  if (!n) return SP_POLY_NONE;
  if (n_aa * 2 > n) return SP_POLY_PEPTIDE_L;
  if (n_daa * 2 > n) return SP_POLY_PEPTIDE_D;
  if (n_dna && n_rna && (n_dna + n_rna) * 2 > n) return SP_POLY_NA_HYBRID;
  if (n_dna * 2 > n) return SP_POLY_DNA;
  if (n_rna * 2 > n) return SP_POLY_RNA;
  return SP_POLY_OTHER;
}

/* The descriptor shim (descriptors.h) on two molecules built as graphs, against RDKit's Python values of the
 * same molecules (Debian python3-rdkit 2022.09.3: Chem.MolFromSmiles, then Descriptors.MolWt, Crippen.MolLogP /
 * MolMR, Descriptors.TPSA, QED.qed, Lipinski.NumHDonors / NumHAcceptors / NHOHCount / NOCount,
 * Descriptors.NumRotatableBonds, CalcNumRings, CalcNumAromaticRings, CalcFractionCSP3, GetFormalCharge), the
 * molfile path on the same aspirin, a molecule RDKit rejects (pentavalent C) and the rule flags. The corpus
 * comparison is tests/peer/test_descriptors_rdkit.py. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sitepack/descriptors.h"
#include "sitepack/error.h"

static int fails;
#define CHECK(c, ...)                  \
  do {                                 \
    if (!(c)) {                        \
      fails++;                         \
      printf("FAIL %d: ", __LINE__);   \
      printf(__VA_ARGS__);             \
      printf("\n");                    \
    }                                  \
  } while (0)

typedef struct ref {
  double mw, logp, mr, tpsa, qed, fsp3;
  int hbd, hba, hbd_l, hba_l, rotb, rings, arom, charge, heavy;
} ref;

static void expect(const char *what, const sp_descriptors *d, const ref *r) {
  CHECK(d->flags & SP_DESCF_COMPUTED, "%s: not computed", what);
  CHECK(fabs(d->mw - r->mw) < 1e-3 && fabs(d->logp - r->logp) < 1e-4 && fabs(d->mr - r->mr) < 1e-3,
        "%s: mw %g logp %g mr %g", what, d->mw, d->logp, d->mr);
  CHECK(fabs(d->tpsa - r->tpsa) < 1e-3 && fabs(d->qed - r->qed) < 1e-5 && fabs(d->fsp3 - r->fsp3) < 1e-6,
        "%s: tpsa %g qed %g fsp3 %g", what, d->tpsa, d->qed, d->fsp3);
  CHECK(d->hbd == r->hbd && d->hba == r->hba && d->hbd_lipinski == r->hbd_l && d->hba_lipinski == r->hba_l,
        "%s: hbd %d hba %d lipinski %d %d", what, d->hbd, d->hba, d->hbd_lipinski, d->hba_lipinski);
  CHECK(d->rotatable_bonds == r->rotb && d->n_rings == r->rings && d->n_aromatic_rings == r->arom,
        "%s: rotb %d rings %d aromatic %d", what, d->rotatable_bonds, d->n_rings, d->n_aromatic_rings);
  CHECK(d->formal_charge == r->charge && d->heavy_atoms == r->heavy, "%s: charge %d heavy %d", what,
        d->formal_charge, d->heavy_atoms);
}

/* aspirin CC(=O)Oc1ccccc1C(=O)O, Kekulé bonds, no hydrogens */
static const uint8_t asp_el[] = {6, 6, 8, 8, 6, 6, 6, 6, 6, 6, 6, 8, 8};
static const uint32_t asp_b[] = {0, 1, 1, 2, 1, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 10, 12, 9, 4};
static const uint8_t asp_o[] = {1, 2, 1, 1, 2, 1, 2, 1, 2, 1, 2, 1, 1};
static const ref asp = {180.159, 1.3101, 44.7103, 63.6, 0.5501217966938848, 1.0 / 9, 1, 3, 1, 4, 2, 1, 1, 0, 13};

/* acetylcholine C[N+](C)(C)CCOC(C)=O */
static const uint8_t ach_el[] = {6, 7, 6, 6, 6, 6, 8, 6, 6, 8};
static const int8_t ach_q[] = {0, 1, 0, 0, 0, 0, 0, 0, 0, 0};
static const uint32_t ach_b[] = {0, 1, 1, 2, 1, 3, 1, 4, 4, 5, 5, 6, 6, 7, 7, 8, 7, 9};
static const uint8_t ach_o[] = {1, 1, 1, 1, 1, 1, 1, 1, 2};
static const ref ach = {146.21, 0.2557, 39.5324, 26.3, 0.4213777873274688, 6.0 / 7, 0, 2, 0, 3, 3, 0, 0, 1, 10};

static void molblock_aspirin(char *buf, size_t cap) {
  size_t u = (size_t)snprintf(buf, cap, "aspirin\n  test\n\n 13 13  0  0  0  0  0  0  0  0999 V2000\n");
  for (size_t i = 0; i < 13; i++)
    u += (size_t)snprintf(buf + u, cap - u, "%10.4f%10.4f%10.4f %-3s 0  0  0  0  0  0  0  0  0  0  0  0\n",
                          (double)i, 0.0, 0.0, asp_el[i] == 6 ? "C" : "O");
  for (size_t k = 0; k < 13; k++)
    u += (size_t)snprintf(buf + u, cap - u, "%3u%3u%3u  0\n", asp_b[2 * k] + 1, asp_b[2 * k + 1] + 1, asp_o[k]);
  snprintf(buf + u, cap - u, "M  END\n");
}

int main(void) {
  sp_descriptors d;
  CHECK(sp_desc_from_graph(13, asp_el, NULL, 13, asp_b, asp_o, &d) == 0, "aspirin graph");
  expect("aspirin graph", &d, &asp);
  CHECK(d.flags == (SP_DESCF_COMPUTED | SP_DESCF_RO5 | SP_DESCF_DRUG_LIKE), "aspirin flags %u", d.flags);
  char mb[4096];
  molblock_aspirin(mb, sizeof mb);
  CHECK(sp_desc_from_molblock(mb, &d) == 0, "aspirin molblock");
  expect("aspirin molblock", &d, &asp);
  CHECK(sp_desc_from_graph(10, ach_el, ach_q, 9, ach_b, ach_o, &d) == 0, "acetylcholine");
  expect("acetylcholine", &d, &ach);
  CHECK(d.flags == (SP_DESCF_COMPUTED | SP_DESCF_RO5 | SP_DESCF_RO3 | SP_DESCF_DRUG_LIKE), "ach flags %u", d.flags);
  /* a carbon with five single bonds: RDKit's valence check rejects it */
  static const uint8_t c6[] = {6, 6, 6, 6, 6, 6};
  static const uint32_t star[] = {0, 1, 0, 2, 0, 3, 0, 4, 0, 5};
  static const uint8_t ones[] = {1, 1, 1, 1, 1};
  CHECK(sp_desc_from_graph(6, c6, NULL, 5, star, ones, &d) == SP_E_BAD_VALUE, "pentavalent C accepted");
  CHECK(d.flags == 0 && d.hbd == -1 && isnan(d.mw), "not cleared");
  static const uint32_t bad[] = {0, 7};
  CHECK(sp_desc_from_graph(6, c6, NULL, 1, bad, ones, &d) == SP_E_BAD_VALUE, "bond out of range accepted");
  CHECK(sp_desc_from_graph(2, NULL, NULL, 0, NULL, NULL, &d) == SP_E_INVALID, "NULL elements accepted");
  CHECK(sp_desc_from_molblock("not a molfile", &d) == SP_E_BAD_VALUE, "garbage molblock accepted");
  /* the rules at their thresholds: Ro5 allows one violation, drug_like none */
  sp_descriptors r = {.mw = 501, .logp = 4, .hbd_lipinski = 2, .hba_lipinski = 5, .hbd = 2, .hba = 5,
                      .rotatable_bonds = 5, .tpsa = 90, .heavy_atoms = 35, .flags = SP_DESCF_COMPUTED};
  CHECK(sp_desc_rule_flags(&r) == SP_DESCF_RO5, "one violation: %u", sp_desc_rule_flags(&r));
  r.logp = 5.5f;
  CHECK(sp_desc_rule_flags(&r) == 0, "two violations: %u", sp_desc_rule_flags(&r));
  r.mw = 500, r.logp = 5;
  CHECK(sp_desc_rule_flags(&r) == (SP_DESCF_RO5 | SP_DESCF_DRUG_LIKE), "at the limits: %u", sp_desc_rule_flags(&r));
  r.rotatable_bonds = 11;
  CHECK(sp_desc_rule_flags(&r) == SP_DESCF_RO5, "Veber: %u", sp_desc_rule_flags(&r));
  printf("test_descriptors: %d failure(s)\n", fails);
  return fails ? 1 : 0;
}

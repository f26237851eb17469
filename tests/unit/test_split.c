/* Ligand fingerprints and Butina (include/sitepack/fingerprint.h, split.h; src/chem/fingerprint.c,
 * src/derive/butina.c): properties that hold whatever the hash: invariance to atom order and to explicit
 * hydrogens, Kekulé + aromatic flag = aromatic bonds, similarity ordering of a small series, Butina's centroid
 * rule and tie order; which ligand classes follow their protein in a split (src/derive/split_internal.h). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "derive/split_internal.h"
#include "sitepack/split.h"
#include "sp_test.h"

typedef struct mol {
  int n, nb;
  uint8_t z[24];
  int8_t q[24];
  int32_t a1[32], a2[32];
  uint8_t ord[32], arom[32];
} mol;

static void bond(mol *m, int a, int b, int o, int ar) {
  m->a1[m->nb] = a, m->a2[m->nb] = b, m->ord[m->nb] = (uint8_t)o, m->arom[m->nb++] = (uint8_t)ar;
}

/* benzene ring (Kekulé orders, aromatic flags) with substituents: @p sub = 0 none, 1 -OH (phenol), 2 -CH3
 * (toluene), 3 -C(=O)OH (benzoic acid); @p hyd adds explicit H on the ring (they must change nothing). */
static void ring(mol *m, int sub, int hyd) {
  memset(m, 0, sizeof *m);
  for (int i = 0; i < 6; i++) m->z[m->n++] = 6;
  for (int i = 0; i < 6; i++) bond(m, i, (i + 1) % 6, i % 2 ? 1 : 2, 1);
  if (sub == 1) m->z[m->n] = 8, bond(m, 0, m->n++, 1, 0);
  if (sub == 2) m->z[m->n] = 6, bond(m, 0, m->n++, 1, 0);
  if (sub == 3) {
    int c = m->n;
    m->z[m->n++] = 6, m->z[m->n++] = 8, m->z[m->n++] = 8;
    bond(m, 0, c, 1, 0), bond(m, c, c + 1, 2, 0), bond(m, c, c + 2, 1, 0);
  }
  if (hyd)
    for (int i = 1; i < 6; i++) m->z[m->n] = 1, bond(m, i, m->n++, 1, 0);
}

static void fp_of(const mol *m, uint64_t *fp) {
  CHECK(sp_morgan_fp(m->n, m->z, m->q, m->nb, m->a1, m->a2, m->ord, m->arom, 2, fp) == 0, "sp_morgan_fp");
}

/* The same molecule with its atoms in reverse order and its bonds in reverse order. */
static void reversed(const mol *m, mol *r) {
  *r = *m;
  for (int i = 0; i < m->n; i++) r->z[m->n - 1 - i] = m->z[i], r->q[m->n - 1 - i] = m->q[i];
  for (int b = 0; b < m->nb; b++) {
    int k = m->nb - 1 - b;
    r->a1[k] = m->n - 1 - m->a2[b], r->a2[k] = m->n - 1 - m->a1[b], r->ord[k] = m->ord[b], r->arom[k] = m->arom[b];
  }
}

static void test_invariance(void) {
  uint64_t a[SP_FP_WORDS], b[SP_FP_WORDS];
  for (int sub = 0; sub < 4; sub++) {
    mol m, r, h;
    ring(&m, sub, 0);
    ring(&h, sub, 1);
    reversed(&m, &r);
    fp_of(&m, a);
    fp_of(&r, b);
    CHECK(!memcmp(a, b, sizeof a), "substituent %d: atom order changes the fingerprint", sub);
    fp_of(&h, b);
    CHECK(!memcmp(a, b, sizeof a), "substituent %d: explicit H change the fingerprint", sub);
    CHECK(sp_tanimoto(a, a) == 1.0, "self similarity");
  }
  /* Kekulé orders with aromatic flags, and order 4 (aromatic without Kekulé order): the same bonds */
  mol k, o;
  ring(&k, 1, 0);
  o = k;
  for (int i = 0; i < 6; i++) o.ord[i] = 4, o.arom[i] = 0;
  fp_of(&k, a);
  fp_of(&o, b);
  CHECK(!memcmp(a, b, sizeof a), "aromatic flag and order 4 differ");
}

static void test_similarity(void) {
  uint64_t benz[SP_FP_WORDS], phen[SP_FP_WORDS], tol[SP_FP_WORDS], acid[SP_FP_WORDS], w[SP_FP_WORDS];
  mol m;
  ring(&m, 0, 0), fp_of(&m, benz);
  ring(&m, 1, 0), fp_of(&m, phen);
  ring(&m, 2, 0), fp_of(&m, tol);
  ring(&m, 3, 0), fp_of(&m, acid);
  memset(&m, 0, sizeof m); /* water: one O, no bond */
  m.n = 1, m.z[0] = 8;
  fp_of(&m, w);
  double bp = sp_tanimoto(benz, phen), pt = sp_tanimoto(phen, tol), ba = sp_tanimoto(benz, acid);
  CHECK(bp > 0 && bp < 1 && pt > 0 && pt < 1, "benzene-phenol %.3f, phenol-toluene %.3f", bp, pt);
  CHECK(ba < bp, "benzoic acid (%.3f) should be further from benzene than phenol (%.3f)", ba, bp);
  CHECK(sp_tanimoto(w, benz) == 0.0, "water and benzene share no bit");
  int bits = 0;
  for (int k = 0; k < SP_FP_WORDS; k++) bits += __builtin_popcountll(w[k]);
  CHECK(bits == 1, "an atom without bonds sets one bit (RDKit: no later rounds), got %d", bits);
  uint64_t zero[SP_FP_WORDS] = {0};
  CHECK(sp_tanimoto(zero, zero) == 0.0, "two empty fingerprints: 0");
  CHECK(sp_morgan_fp(-1, NULL, NULL, 0, NULL, NULL, NULL, NULL, 2, w) == SP_E_INVALID, "n < 0");
}

static void set_bits(uint64_t *fp, const int *b, int n) {
  memset(fp, 0, SP_FP_WORDS * sizeof *fp);
  for (int i = 0; i < n; i++) fp[b[i] / 64] |= 1ULL << (b[i] % 64);
}

static void test_butina(void) {
  /* 0: bits 1..10; 1: bits 1..9; 2: bits 1..7 and 20..22; 3: three other bits */
  uint64_t fps[4 * SP_FP_WORDS];
  int b0[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, b1[] = {1, 2, 3, 4, 5, 6, 7, 8, 9}, b2[] = {1, 2, 3, 4, 5, 6, 7, 20, 21, 22},
      b3[] = {100, 101, 102};
  set_bits(fps, b0, 10), set_bits(fps + SP_FP_WORDS, b1, 9), set_bits(fps + 2 * SP_FP_WORDS, b2, 10);
  set_bits(fps + 3 * SP_FP_WORDS, b3, 3);
  int64_t cl[4], nc = 0;
  /* sims: 0-1 0.9, 0-2 7/13 = 0.538, 1-2 7/12 = 0.583, 3 alone. Neighbour counts at 0.5: 0:2, 1:2, 2:2, 3:0;
   * ties in index order: 0 is the first centroid and takes 1 and 2 */
  CHECK(sp_butina(4, fps, 0.5, cl, &nc) == 0 && nc == 2, "clusters %lld", (long long)nc);
  CHECK(cl[0] == 0 && cl[1] == 0 && cl[2] == 0 && cl[3] == 1, "clusters %lld %lld %lld %lld", (long long)cl[0],
        (long long)cl[1], (long long)cl[2], (long long)cl[3]);
  /* at 0.55: 0-2 is out; counts 0:1, 1:2, 2:1: 1 is the centroid and takes 0 and 2 */
  CHECK(sp_butina(4, fps, 0.55, cl, &nc) == 0 && nc == 2 && cl[0] == 0 && cl[1] == 0 && cl[2] == 0 && cl[3] == 1,
        "threshold 0.55");
  /* at 0.6: only 0-1; 2 and 3 alone, numbered in centroid order (0, then 2, then 3) */
  CHECK(sp_butina(4, fps, 0.6, cl, &nc) == 0 && nc == 3 && cl[0] == 0 && cl[1] == 0 && cl[2] == 1 && cl[3] == 2,
        "threshold 0.6");
  CHECK(sp_butina(0, fps, 0.5, cl, &nc) == 0 && nc == 0, "no items");
}

static void test_side_names(void) {
  CHECK(!strcmp(sp_side_name(SP_SIDE_TRAIN), "train") && !strcmp(sp_side_name(SP_SIDE_VAL), "val") &&
        !strcmp(sp_side_name(SP_SIDE_TEST), "test") && !strcmp(sp_side_name(SP_SIDE_DROPPED), "dropped") &&
        sp_side_name(3) == NULL, "side names");
}

/* Ions, artifacts (buffers, cryo-protectants) and detergents join no ligand component and follow their protein;
 * every other class, lipids included, is a ligand of the ligand rule (docs/usage.md "Splits", docs/ligands.md). */
static void test_follows_protein(void) {
  static const char *const names[] = {"ion",    "artifact", "detergent", "small_molecule", "lipid",
                                      "glycan", "cofactor", "peptide",   "unknown"};
  static const int follows[] = {1, 1, 1, 0, 0, 0, 0, 0, 0};
  enum { N = 9, W = 16 };
  char cls[N * W];
  int64_t lidx[N];
  memset(cls, 0, sizeof cls);
  for (int i = 0; i < N; i++) memcpy(cls + i * W, names[i], strlen(names[i])), lidx[i] = N - 1 - i;
  sp_spl_in in;
  memset(&in, 0, sizeof in);
  in.n_sites = N, in.lidx = lidx, in.cls = cls, in.cls_w = W;
  for (int s = 0; s < N; s++) {
    int l = (int)lidx[s];
    CHECK(sp_spl_follows_protein(&in, s) == follows[l], "site of class %s: follows %d", names[l],
          sp_spl_follows_protein(&in, s));
  }
}

int main(void) {
  test_invariance();
  test_similarity();
  test_butina();
  test_side_names();
  test_follows_protein();
  return sp_test_done("test_split");
}

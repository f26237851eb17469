/* The ligand bound of sitepack split: connected components of the molecules at Tanimoto >= t on the
 * fingerprints of /clusters, and the largest train-to-val/test Tanimoto (split_internal.h; docs/usage.md
 * "Splits"). Butina clusters (/clusters/ligand) are not such a bound: a member can be >= t to a member of
 * another cluster; components are (single linkage), so a val/test ligand outside every train component is
 * below t to every train ligand. */
#include <stdlib.h>
#include <string.h>

#include "derive/split_internal.h"
#include "sitepack/fingerprint.h"

int64_t sp_spl_find(int64_t *p, int64_t x) {
  while (p[x] != x) x = p[x] = p[p[x]];
  return x;
}

void sp_spl_union(int64_t *p, int64_t a, int64_t b) {
  a = sp_spl_find(p, a), b = sp_spl_find(p, b);
  if (a != b) p[a < b ? b : a] = a < b ? a : b;
}

int sp_spl_follows_protein(const sp_spl_in *in, int64_t s) {
  const char *c = in->cls + in->lidx[s] * in->cls_w;
  return !strncmp(c, "ion", in->cls_w) || !strncmp(c, "artifact", in->cls_w) || !strncmp(c, "detergent", in->cls_w);
}

/* Molecules used by a site that joins ligand components (not an ion, artifact or detergent): used[M] set to 1. */
static void used_molecules(const sp_spl_in *in, uint8_t *used) {
  for (int64_t s = 0; s < in->n_sites; s++)
    if (!sp_spl_follows_protein(in, s)) used[in->mol[s]] = 1;
}

int sp_spl_ligand_components(const sp_spl_in *in, double t, int64_t *lc) {
  int64_t M = in->n_mol;
  int64_t *p = malloc(((size_t)M + 1) * sizeof *p);
  uint8_t *used = calloc((size_t)M + 1, 1);
  if (!p || !used) {
    free(p), free(used);
    return SP_E_NOMEM;
  }
  used_molecules(in, used);
  for (int64_t m = 0; m < M; m++) p[m] = m;
  for (int64_t a = 0; a < M; a++) {
    if (!used[a]) continue;
    for (int64_t b = a + 1; b < M; b++)
      if (used[b] && sp_tanimoto(in->fp + a * SP_FP_WORDS, in->fp + b * SP_FP_WORDS) >= t) sp_spl_union(p, a, b);
  }
  for (int64_t s = 0; s < in->n_sites; s++) lc[s] = sp_spl_follows_protein(in, s) ? -1 : sp_spl_find(p, in->mol[s]);
  free(p), free(used);
  return 0;
}

double sp_spl_max_cross_tanimoto(const sp_spl_in *in, const int8_t *side) {
  int64_t M = in->n_mol;
  uint8_t *on = calloc((size_t)M + 1, 1); /* bit 0: a train site's molecule, bit 1: a val/test site's */
  if (!on) return -1;
  for (int64_t s = 0; s < in->n_sites; s++) {
    if (side[s] < 0 || sp_spl_follows_protein(in, s)) continue;
    on[in->mol[s]] |= (uint8_t)(side[s] == 0 ? 1 : 2);
  }
  double best = 0;
  for (int64_t a = 0; a < M; a++) {
    if (!(on[a] & 2)) continue;
    for (int64_t b = 0; b < M; b++)
      if (on[b] & 1) {
        double x = sp_tanimoto(in->fp + a * SP_FP_WORDS, in->fp + b * SP_FP_WORDS);
        if (x > best) best = x;
      }
  }
  free(on);
  return best;
}

/* Butina clustering of fingerprints (split.h sp_butina; docs/usage.md "Splits"): Butina 1999 as RDKit's
 * Butina.ClusterData without reordering, over the Tanimoto similarity of chem's fingerprints
 * (fingerprint.h). */
#include <stdlib.h>

#include "sitepack/base.h"
#include "sitepack/split.h"

/* The same Tanimoto compiled for the POPCNT instruction, chosen at run time where the CPU has it (the
 * default x86-64 target calls a library popcount, several times slower). */
#if defined(__x86_64__) && defined(__GNUC__)
#define SP_FP_POPCNT 1
__attribute__((target("popcnt"))) static double tanimoto_popcnt(const uint64_t *a, const uint64_t *b) {
  int both = 0, any = 0;
  for (int k = 0; k < SP_FP_WORDS; k++) {
    both += __builtin_popcountll(a[k] & b[k]);
    any += __builtin_popcountll(a[k] | b[k]);
  }
  return any ? (double)both / any : 0.0;
}
#else
#define SP_FP_POPCNT 0
#endif

static const int *g_pc;
static int cmp_by_pc(const void *x, const void *y) {
  int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
  if (g_pc[a] != g_pc[b]) return g_pc[a] < g_pc[b] ? -1 : 1;
  return a < b ? -1 : a > b;
}

typedef struct nb_edge { int64_t i, j; } nb_edge;

static int cmp_edge(const void *x, const void *y) {
  const nb_edge *a = x, *b = y;
  return a->i != b->i ? (a->i < b->i ? -1 : 1) : (a->j < b->j ? -1 : a->j > b->j);
}

static const int64_t *g_count;
static int cmp_by_count(const void *x, const void *y) {
  int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
  if (g_count[a] != g_count[b]) return g_count[a] > g_count[b] ? -1 : 1;
  return a < b ? -1 : a > b;
}

int sp_butina(size_t m, const uint64_t *fps, double threshold, int64_t *cluster, int64_t *n_clusters) {
  nb_edge *e = NULL;
  size_t ne = 0, cap = 0;
  int *pc = malloc((m + 1) * sizeof *pc);
  if (!pc) return SP_E_NOMEM;
  for (size_t i = 0; i < m; i++) {
    const uint64_t *a = fps + i * SP_FP_WORDS;
    pc[i] = 0;
    for (int k = 0; k < SP_FP_WORDS; k++) pc[i] += __builtin_popcountll(a[k]);
  }
  /* pairs by popcount: |a&b| <= |a|, |a|b| >= |b|, so with |a| <= |b| a pair below |a| / |b| < threshold is
   * never a neighbour: each item meets only the items whose count lies in [|a|, |a| / threshold] */
  int64_t *byc = malloc((m + 1) * sizeof *byc);
  if (!byc) {
    free(pc);
    return SP_E_NOMEM;
  }
  for (size_t i = 0; i < m; i++) byc[i] = (int64_t)i;
  g_pc = pc;
  qsort(byc, m, sizeof *byc, cmp_by_pc);
  double (*tani)(const uint64_t *, const uint64_t *) = sp_tanimoto;
#if SP_FP_POPCNT
  if (__builtin_cpu_supports("popcnt")) tani = tanimoto_popcnt;
#endif
  for (size_t p = 0; p < m; p++) {
    int64_t i = byc[p];
    const uint64_t *a = fps + i * SP_FP_WORDS;
    for (size_t q = p + 1; q < m; q++) {
      int64_t j = byc[q];
      if ((double)pc[i] < threshold * pc[j]) break; /* and every later j */
      if (!pc[j] || tani(a, fps + j * SP_FP_WORDS) < threshold) continue;
      if (sp_grow((void **)&e, &cap, ne + 2, sizeof *e)) {
        free(e), free(pc), free(byc);
        return SP_E_NOMEM;
      }
      e[ne].i = i, e[ne++].j = j;
      e[ne].i = j, e[ne++].j = i;
    }
  }
  free(byc);
  free(pc);
  qsort(e, ne, sizeof *e, cmp_edge);
  int64_t *count = calloc(m + 1, sizeof *count), *ptr = calloc(m + 2, sizeof *ptr);
  int64_t *ord = malloc((m + 1) * sizeof *ord);
  if (!count || !ptr || !ord) {
    free(e), free(count), free(ptr), free(ord);
    return SP_E_NOMEM;
  }
  for (size_t k = 0; k < ne; k++) count[e[k].i]++;
  for (size_t i = 0; i < m; i++) ptr[i + 1] = ptr[i] + count[i], ord[i] = (int64_t)i, cluster[i] = -1;
  g_count = count;
  qsort(ord, m, sizeof *ord, cmp_by_count);
  int64_t nc = 0;
  for (size_t k = 0; k < m; k++) {
    int64_t c = ord[k];
    if (cluster[c] >= 0) continue;
    cluster[c] = nc;
    for (int64_t q = ptr[c]; q < ptr[c + 1]; q++)
      if (cluster[e[q].j] < 0) cluster[e[q].j] = nc;
    nc++;
  }
  *n_clusters = nc;
  free(e), free(count), free(ptr), free(ord);
  return 0;
}

/* Morgan-style fingerprints of ligands and their Tanimoto similarity (fingerprint.h; docs/usage.md "Splits").
 *
 * Rogers & Hahn 2010 (ECFP), with RDKit's connectivity invariants and radius convention: radius 2 with
 * 2048 bits is RDKit's GetMorganFingerprintAsBitVect(m, 2, 2048). The hashes are sitepack's own (sp_mix64
 * of the sorted neighbour list), so bit positions differ from RDKit's; the similarities agree closely
 * (ctest peer_split_fingerprints measures it on the corpus). Butina clustering of fingerprints: derive/butina.c. */
#include <stdlib.h>
#include <string.h>

#include "sitepack/base.h"
#include "sitepack/fingerprint.h"
#include "sitepack/valence.h"

typedef struct fp_graph {
  int n;
  int *ptr, *nbr, *btype, *bond_id; /* CSR adjacency: neighbour atom, bond type 1-4, bond index */
  int *korder;                      /* per adjacency entry: the bond's Kekulé order 1-3, 0 when it has none (4) */
  uint8_t *ring_bond;               /* per bond: not a bridge */
} fp_graph;

/* Bridges (Tarjan's lowlink), iterative: ring_bond[b] = 1 for every bond that is in a cycle. */
static int find_ring_bonds(fp_graph *g, int nbonds) {
  int n = g->n;
  int *disc = calloc((size_t)n + 1, sizeof *disc), *low = calloc((size_t)n + 1, sizeof *low);
  int *stack = malloc(((size_t)n + 1) * sizeof *stack), *it = calloc((size_t)n + 1, sizeof *it);
  int *via = malloc(((size_t)n + 1) * sizeof *via);
  if (!disc || !low || !stack || !it || !via) {
    free(disc), free(low), free(stack), free(it), free(via);
    return -1;
  }
  for (int b = 0; b < nbonds; b++) g->ring_bond[b] = 1;
  int t = 0;
  for (int s = 0; s < n; s++) {
    if (disc[s]) continue;
    int sp = 0;
    stack[sp++] = s;
    disc[s] = low[s] = ++t;
    via[s] = -1;
    it[s] = g->ptr[s];
    while (sp) {
      int u = stack[sp - 1];
      if (it[u] < g->ptr[u + 1]) {
        int k = it[u]++;
        int v = g->nbr[k], b = g->bond_id[k];
        if (b == via[u]) continue;
        if (!disc[v]) {
          disc[v] = low[v] = ++t;
          via[v] = b;
          it[v] = g->ptr[v];
          stack[sp++] = v;
        } else if (disc[v] < low[u]) {
          low[u] = disc[v];
        }
      } else {
        sp--;
        if (sp) {
          int p = stack[sp - 1];
          if (low[u] < low[p]) low[p] = low[u];
          if (low[u] > disc[p]) g->ring_bond[via[u]] = 0; /* a bridge */
        }
      }
    }
  }
  free(disc), free(low), free(stack), free(it), free(via);
  return 0;
}


static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

/* Build the heavy-atom graph: map[] old -> new index (-1 for H). 0, or -1 out of memory. */
static int build_graph(fp_graph *g, int n, const uint8_t *z, int nb, const int32_t *a1, const int32_t *a2,
                       const uint8_t *order, const uint8_t *arom, int *map, int *heavy, int *nbonds_out) {
  int h = 0;
  for (int i = 0; i < n; i++) map[i] = z[i] == 1 ? -1 : h++;
  for (int i = 0; i < n; i++)
    if (map[i] >= 0) heavy[map[i]] = i;
  g->n = h;
  g->ptr = calloc((size_t)h + 2, sizeof *g->ptr);
  g->nbr = malloc((2 * (size_t)nb + 1) * sizeof *g->nbr);
  g->btype = malloc((2 * (size_t)nb + 1) * sizeof *g->btype);
  g->korder = malloc((2 * (size_t)nb + 1) * sizeof *g->korder);
  g->bond_id = malloc((2 * (size_t)nb + 1) * sizeof *g->bond_id);
  g->ring_bond = malloc((size_t)nb + 1);
  if (!g->ptr || !g->nbr || !g->btype || !g->korder || !g->bond_id || !g->ring_bond) return -1;
  int m = 0;
  for (int b = 0; b < nb; b++) {
    int u = a1[b], v = a2[b];
    if (u < 0 || v < 0 || u >= n || v >= n || u == v || map[u] < 0 || map[v] < 0) continue;
    g->ptr[map[u] + 1]++, g->ptr[map[v] + 1]++;
    m++;
  }
  for (int i = 0; i < h; i++) g->ptr[i + 1] += g->ptr[i];
  int *fill = malloc(((size_t)h + 1) * sizeof *fill);
  if (!fill) return -1;
  memcpy(fill, g->ptr, (size_t)h * sizeof *fill);
  int k = 0;
  for (int b = 0; b < nb; b++) {
    int u = a1[b], v = a2[b];
    if (u < 0 || v < 0 || u >= n || v >= n || u == v || map[u] < 0 || map[v] < 0) continue;
    int t = (arom && arom[b]) || order[b] == 4 ? 4 : (order[b] >= 1 && order[b] <= 3 ? order[b] : 1);
    int x = map[u], y = map[v], ko = order[b] >= 1 && order[b] <= 3 ? order[b] : order[b] == 0 ? 1 : 0;
    g->nbr[fill[x]] = y, g->btype[fill[x]] = t, g->korder[fill[x]] = ko, g->bond_id[fill[x]++] = k;
    g->nbr[fill[y]] = x, g->btype[fill[y]] = t, g->korder[fill[y]] = ko, g->bond_id[fill[y]++] = k;
    k++;
  }
  free(fill);
  *nbonds_out = m;
  return 0;
}

/* Radius-0 invariants: RDKit's connectivity invariants over the heavy-atom graph. */
static void atom_invariants(const fp_graph *g, const uint8_t *z, const int8_t *charge, const int *heavy,
                            uint64_t *inv) {
  for (int a = 0; a < g->n; a++) {
    int deg = g->ptr[a + 1] - g->ptr[a], twice_used = 0, in_ring = 0, n_arom = 0, kekule = 0, all_kekule = 1;
    for (int k = g->ptr[a]; k < g->ptr[a + 1]; k++) {
      twice_used += g->btype[k] == 4 ? 3 : 2 * g->btype[k];
      n_arom += g->btype[k] == 4;
      in_ring |= g->ring_bond[g->bond_id[k]];
      kekule += g->korder[k];
      all_kekule &= g->korder[k] > 0;
    }
    /* the Kekulé orders where every bond has one (the CCD's and the perception's, aromatic or not: a pyrrole-type
     * [nH] keeps its H, as RDKit counts it from the Kekulé form); else two aromatic bonds count 3, as a Kekulé
     * single + double */
    int used = all_kekule ? kekule : (twice_used + 1) / 2;
    if (!all_kekule && n_arom == 3) used = 4;
    int q = charge ? charge[heavy[a]] : 0;
    int nh = sp_valence_implicit_h(z[heavy[a]], q, used); /* RDKit's rule over RDKit's lists (valence.h) */
    uint64_t h = sp_hash_combine(0, z[heavy[a]]);
    h = sp_hash_combine(h, (uint64_t)deg);
    h = sp_hash_combine(h, (uint64_t)nh);
    h = sp_hash_combine(h, (uint64_t)(int64_t)q);
    h = sp_hash_combine(h, (uint64_t)in_ring);
    inv[a] = h;
  }
}

static void free_graph(fp_graph *g) {
  free(g->ptr), free(g->nbr), free(g->btype), free(g->korder), free(g->bond_id), free(g->ring_bond);
}

/* One atom's environment of a round: the bonds it covers (W words), its new invariant, the atom. */
typedef struct fp_env { const uint64_t *bonds; uint64_t inv; int atom; } fp_env;
static int g_words;

static int cmp_env(const void *x, const void *y) {
  const fp_env *a = x, *b = y;
  int m = memcmp(a->bonds, b->bonds, (size_t)g_words * 8);
  if (m) return m;
  if (a->inv != b->inv) return a->inv < b->inv ? -1 : 1;
  return a->atom - b->atom;
}

static void set_bit(uint64_t *fp, uint64_t h) { fp[(h % SP_FP_BITS) / 64] |= 1ULL << (h % 64); }

/* The Morgan rounds with RDKit's duplicate rule (its legacy getFingerprint): round 0 sets every atom's bit; in
 * each later round an atom's environment (the set of bonds it covers) that equals one already seen, in this
 * round or before, sets no bit and the atom stops growing ("dead"), as does an atom without neighbours; among
 * equal environments of one round the one with the smaller invariant is kept. 0, or -1 out of memory. */
static int morgan_rounds(const fp_graph *g, int nbonds, uint64_t *inv, int radius, uint64_t *fp) {
  int n = g->n, W = (nbonds + 63) / 64 + 1, maxdeg = 0, rc = -1;
  for (int a = 0; a < n; a++)
    if (g->ptr[a + 1] - g->ptr[a] > maxdeg) maxdeg = g->ptr[a + 1] - g->ptr[a];
  uint64_t *cur = calloc((size_t)n * W + 1, 8), *nxt = calloc((size_t)n * W + 1, 8);
  uint64_t *seen = malloc(((size_t)n * radius + 1) * W * 8), *next = malloc(((size_t)n + 1) * 8);
  uint64_t *env = malloc(((size_t)maxdeg + 1) * 8);
  fp_env *all = malloc(((size_t)n + 1) * sizeof *all);
  uint8_t *dead = calloc((size_t)n + 1, 1);
  size_t n_seen = 0;
  if (!cur || !nxt || !seen || !next || !env || !all || !dead) goto out;
  for (int a = 0; a < n; a++) set_bit(fp, inv[a]);
  for (int r = 0; r < radius; r++) {
    int m = 0;
    for (int a = 0; a < n; a++) {
      uint64_t *bs = nxt + (size_t)a * W;
      memcpy(bs, cur + (size_t)a * W, (size_t)W * 8);
      next[a] = inv[a];
      if (dead[a]) continue;
      if (g->ptr[a + 1] == g->ptr[a]) {
        dead[a] = 1;
        continue;
      }
      int d = 0;
      for (int k = g->ptr[a]; k < g->ptr[a + 1]; k++) {
        int v = g->nbr[k], b = g->bond_id[k];
        env[d++] = sp_hash_combine((uint64_t)g->btype[k], inv[v]);
        bs[b / 64] |= 1ULL << (b % 64);
        for (int w = 0; w < W; w++) bs[w] |= cur[(size_t)v * W + w];
      }
      qsort(env, (size_t)d, sizeof *env, cmp_u64);
      uint64_t h = sp_hash_combine((uint64_t)r + 1, inv[a]);
      for (int k = 0; k < d; k++) h = sp_hash_combine(h, env[k]);
      next[a] = h;
      all[m].bonds = bs, all[m].inv = h, all[m++].atom = a;
    }
    g_words = W;
    qsort(all, (size_t)m, sizeof *all, cmp_env);
    for (int i = 0; i < m; i++) {
      int dup = 0;
      for (size_t q = 0; q < n_seen && !dup; q++) dup = !memcmp(seen + q * W, all[i].bonds, (size_t)W * 8);
      if (dup) {
        dead[all[i].atom] = 1;
        continue;
      }
      set_bit(fp, all[i].inv);
      memcpy(seen + n_seen++ * W, all[i].bonds, (size_t)W * 8);
    }
    uint64_t *t = cur;
    cur = nxt, nxt = t;
    memcpy(inv, next, (size_t)n * 8);
  }
  rc = 0;
out:
  free(cur), free(nxt), free(seen), free(next), free(env), free(all), free(dead);
  return rc;
}

int sp_morgan_fp(int n, const uint8_t *z, const int8_t *charge, int nb, const int32_t *a1, const int32_t *a2,
                 const uint8_t *order, const uint8_t *arom, int radius, uint64_t *fp) {
  memset(fp, 0, SP_FP_WORDS * sizeof *fp);
  if (n < 0 || nb < 0) return SP_E_INVALID;
  if (n == 0) return 0;
  fp_graph g;
  memset(&g, 0, sizeof g);
  int *map = malloc((size_t)n * sizeof *map), *heavy = malloc((size_t)n * sizeof *heavy);
  uint64_t *inv = NULL;
  int nbonds = 0, rc = SP_E_NOMEM;
  if (!map || !heavy || build_graph(&g, n, z, nb, a1, a2, order, arom, map, heavy, &nbonds) ||
      find_ring_bonds(&g, nbonds))
    goto done;
  inv = malloc(((size_t)g.n + 1) * sizeof *inv);
  if (!inv) goto done;
  atom_invariants(&g, z, charge, heavy, inv);
  if (morgan_rounds(&g, nbonds, inv, radius, fp)) goto done;
  rc = 0;
done:
  free(map), free(heavy), free(inv);
  free_graph(&g);
  return rc;
}

double sp_tanimoto(const uint64_t *a, const uint64_t *b) {
  int both = 0, any = 0;
  for (int k = 0; k < SP_FP_WORDS; k++) {
    both += __builtin_popcountll(a[k] & b[k]);
    any += __builtin_popcountll(a[k] | b[k]);
  }
  return any ? (double)both / any : 0.0;
}

/* Molecule key: Weisfeiler-Lehman hash of the heavy-atom graph + neutral-equivalent H
 * count. Algorithm and limits: include/sitepack/molkey.h, docs/ligands.md. */
#include "sitepack/molkey.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sitepack/base.h"
#include "sitepack/elements.h"

/* mix(x) of molkey.h: the splitmix64 finaliser of x + 0x9E3779B97F4A7C15. Part of the key's
 * definition (version wl1): sp_mix64 is frozen for it (base.h). */
static inline uint64_t mix64(uint64_t x) { return sp_mix64(x + SP_GOLDEN_GAMMA); }

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return (x > y) - (x < y);
}

static int cmp_edge(const void *a, const void *b) {
  const uint32_t *x = a, *y = b;
  if (x[0] != y[0]) return x[0] < y[0] ? -1 : 1;
  if (x[1] != y[1]) return x[1] < y[1] ? -1 : 1;
  return 0;
}

static size_t count_distinct(uint64_t *tmp, const uint64_t *lab, size_t n) {
  if (n == 0) return 0;
  memcpy(tmp, lab, n * sizeof *tmp);
  qsort(tmp, n, sizeof *tmp, cmp_u64);
  size_t d = 1;
  for (size_t i = 1; i < n; i++) d += tmp[i] != tmp[i - 1];
  return d;
}

void sp_molkey_format(uint64_t hash, long h, char out[SP_KEY_LEN]) {
  snprintf(out, SP_KEY_LEN, "%s-%016" PRIx64 "-h%ld", SP_MOLKEY_VERSION, hash, h);
}

int sp_molkey_hash(size_t n_atoms, const uint8_t *element, const int8_t *charge, size_t n_bonds,
                   const uint32_t (*bonds)[2], uint64_t *hash_out, long *h_out, sp_err *err) {
  if (n_atoms == 0) return sp_err_set(err, SP_E_INVALID, "molecule key: graph has no atoms");
  if (n_atoms >= UINT32_MAX) return sp_err_set(err, SP_E_INVALID, "molecule key: too many atoms (%zu)", n_atoms);
  if (!element) return sp_err_set(err, SP_E_INVALID, "molecule key: no element array");
  if (n_bonds > 0 && !bonds) return sp_err_set(err, SP_E_INVALID, "molecule key: no bond array");
  for (size_t i = 0; i < n_bonds; i++)
    if (bonds[i][0] >= n_atoms || bonds[i][1] >= n_atoms)
      return sp_err_set(err, SP_E_INVALID, "molecule key: bond %zu refers to atom %u of %zu", i,
                        (unsigned)(bonds[i][0] >= n_atoms ? bonds[i][0] : bonds[i][1]), n_atoms);

  long n_h = 0, net = 0;
  size_t n_nodes = 0;
  for (size_t i = 0; i < n_atoms; i++) {
    if (element[i] == 1) n_h++;
    else n_nodes++;
    if (charge) net += charge[i];
  }
  if (h_out) *h_out = n_h - net;

  uint32_t *node_of = malloc(n_atoms * sizeof *node_of);
  uint32_t (*edges)[2] = n_bonds ? malloc(n_bonds * sizeof *edges) : NULL;
  uint64_t *lab = malloc((n_nodes ? n_nodes : 1) * sizeof *lab);
  uint64_t *next = malloc((n_nodes ? n_nodes : 1) * sizeof *next);
  uint64_t *tmp = malloc((n_nodes ? n_nodes : 1) * sizeof *tmp);
  uint32_t *deg_ptr = calloc(n_nodes + 1, sizeof *deg_ptr);
  uint8_t *node_el = malloc((n_nodes ? n_nodes : 1));
  uint32_t *adj = NULL;
  int rc = 0;
  if (!node_of || (n_bonds && !edges) || !lab || !next || !tmp || !deg_ptr || !node_el) {
    rc = sp_err_set(err, SP_E_NOMEM, "molecule key: out of memory (%zu atoms)", n_atoms);
    goto done;
  }
  size_t k = 0;
  for (size_t i = 0; i < n_atoms; i++) {
    if (element[i] == 1) {
      node_of[i] = UINT32_MAX;
    } else {
      node_el[k] = element[i];
      node_of[i] = (uint32_t)k++;
    }
  }
  size_t n_edges = 0;
  for (size_t i = 0; i < n_bonds; i++) {
    uint32_t a = node_of[bonds[i][0]], b = node_of[bonds[i][1]];
    if (a == UINT32_MAX || b == UINT32_MAX || a == b) continue;
    if (sp_element_is_metal(node_el[a]) || sp_element_is_metal(node_el[b])) continue;
    edges[n_edges][0] = a < b ? a : b;
    edges[n_edges][1] = a < b ? b : a;
    n_edges++;
  }
  if (n_edges > 1) {
    qsort(edges, n_edges, sizeof *edges, cmp_edge);
    size_t u = 1;
    for (size_t i = 1; i < n_edges; i++)
      if (edges[i][0] != edges[u - 1][0] || edges[i][1] != edges[u - 1][1]) {
        edges[u][0] = edges[i][0];
        edges[u][1] = edges[i][1];
        u++;
      }
    n_edges = u;
  }
  /* CSR adjacency */
  for (size_t i = 0; i < n_edges; i++) {
    deg_ptr[edges[i][0] + 1]++;
    deg_ptr[edges[i][1] + 1]++;
  }
  for (size_t i = 0; i < n_nodes; i++) deg_ptr[i + 1] += deg_ptr[i];
  adj = malloc((n_edges ? 2 * n_edges : 1) * sizeof *adj);
  uint32_t *fill = malloc((n_nodes ? n_nodes : 1) * sizeof *fill);
  if (!adj || !fill) {
    free(fill);
    rc = sp_err_set(err, SP_E_NOMEM, "molecule key: out of memory (%zu bonds)", n_bonds);
    goto done;
  }
  for (size_t i = 0; i < n_nodes; i++) fill[i] = deg_ptr[i];
  for (size_t i = 0; i < n_edges; i++) {
    adj[fill[edges[i][0]]++] = edges[i][1];
    adj[fill[edges[i][1]]++] = edges[i][0];
  }
  free(fill);

  for (size_t v = 0; v < n_nodes; v++) lab[v] = mix64(0x574C310000000000ull + node_el[v]);
  size_t n_classes = count_distinct(tmp, lab, n_nodes);
  /* the neighbour buffer: at most the maximum degree */
  size_t max_deg = 0;
  for (size_t v = 0; v < n_nodes; v++) {
    size_t d = deg_ptr[v + 1] - deg_ptr[v];
    if (d > max_deg) max_deg = d;
  }
  uint64_t *nb = malloc((max_deg ? max_deg : 1) * sizeof *nb);
  if (!nb) {
    rc = sp_err_set(err, SP_E_NOMEM, "molecule key: out of memory");
    goto done;
  }
  for (size_t round = 0; round < n_nodes; round++) {
    for (size_t v = 0; v < n_nodes; v++) {
      size_t d = 0;
      for (uint32_t e = deg_ptr[v]; e < deg_ptr[v + 1]; e++) nb[d++] = lab[adj[e]];
      qsort(nb, d, sizeof *nb, cmp_u64);
      uint64_t acc = mix64(lab[v]);
      for (size_t j = 0; j < d; j++) acc = mix64(acc ^ nb[j]);
      next[v] = acc;
    }
    size_t c = count_distinct(tmp, next, n_nodes);
    uint64_t *sw = lab;
    lab = next;
    next = sw;
    if (c <= n_classes) break; /* stable partition */
    n_classes = c;
  }
  free(nb);
  memcpy(tmp, lab, n_nodes * sizeof *tmp);
  qsort(tmp, n_nodes, sizeof *tmp, cmp_u64);
  uint64_t acc = mix64((uint64_t)n_nodes) ^ mix64((uint64_t)n_edges + 0x10000u);
  for (size_t v = 0; v < n_nodes; v++) acc = mix64(acc ^ tmp[v]);
  if (hash_out) *hash_out = acc;

done:
  free(node_of);
  free(edges);
  free(lab);
  free(next);
  free(tmp);
  free(deg_ptr);
  free(node_el);
  free(adj);
  return rc;
}

int sp_molkey_graph(size_t n_atoms, const uint8_t *element, const int8_t *charge, size_t n_bonds,
                    const uint32_t (*bonds)[2], char out[SP_KEY_LEN], sp_err *err) {
  uint64_t h = 0;
  long nh = 0;
  out[0] = '\0';
  int rc = sp_molkey_hash(n_atoms, element, charge, n_bonds, bonds, &h, &nh, err);
  if (rc) return rc;
  sp_molkey_format(h, nh, out);
  return 0;
}

int sp_molkey_component(const sp_component *c, bool drop_leaving, char out[SP_KEY_LEN], sp_err *err) {
  out[0] = '\0';
  if (!c) return sp_err_set(err, SP_E_INVALID, "molecule key: no component");
  size_t n = c->n_atoms;
  if (n == 0) return sp_err_set(err, SP_E_INVALID, "molecule key: component %s has no atoms", c->id);
  uint32_t *map = malloc(n * sizeof *map);
  uint8_t *el = malloc(n);
  int8_t *ch = malloc(n);
  uint32_t (*bd)[2] = c->n_bonds ? malloc(c->n_bonds * sizeof *bd) : NULL;
  int rc = 0;
  if (!map || !el || !ch || (c->n_bonds && !bd)) {
    rc = sp_err_set(err, SP_E_NOMEM, "molecule key: out of memory for component %s", c->id);
    goto done;
  }
  size_t k = 0;
  for (size_t i = 0; i < n; i++) {
    if (drop_leaving && c->atoms[i].leaving) {
      map[i] = UINT32_MAX;
      continue;
    }
    el[k] = c->atoms[i].element;
    ch[k] = c->atoms[i].charge;
    map[i] = (uint32_t)k++;
  }
  if (k == 0) {
    rc = sp_err_set(err, SP_E_INVALID, "molecule key: component %s has only leaving atoms", c->id);
    goto done;
  }
  size_t nb = 0;
  for (size_t i = 0; i < c->n_bonds; i++) {
    size_t a = c->bonds[i].a, b = c->bonds[i].b;
    if (a >= n || b >= n) {
      rc = sp_err_set(err, SP_E_INVALID, "molecule key: component %s bond %zu out of range", c->id, i);
      goto done;
    }
    if (map[a] == UINT32_MAX || map[b] == UINT32_MAX) continue;
    bd[nb][0] = map[a];
    bd[nb][1] = map[b];
    nb++;
  }
  rc = sp_molkey_graph(k, el, ch, nb, (const uint32_t(*)[2])bd, out, err);
done:
  free(map);
  free(el);
  free(ch);
  free(bd);
  return rc;
}

/* ------------------------------------------------------------ exact confirmation (isomorphism) */

/* The heavy-atom graph of the key (molkey.h): nodes = atoms with element != 1, edges between
 * two nodes, neither a metal, no self-bonds, duplicates removed; CSR with sorted neighbours. */
typedef struct hgraph {
  size_t n, n_edges;
  uint8_t *el;
  uint32_t *ptr; /* [n + 1] */
  uint32_t *adj; /* [2 n_edges], sorted within each node */
} hgraph;

static void hgraph_free(hgraph *g) {
  free(g->el);
  free(g->ptr);
  free(g->adj);
  memset(g, 0, sizeof *g);
}

static int cmp_u32(const void *a, const void *b) {
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return (x > y) - (x < y);
}

static int hgraph_build(size_t n_atoms, const uint8_t *element, size_t n_bonds, const uint32_t (*bonds)[2],
                        hgraph *g, sp_err *err) {
  memset(g, 0, sizeof *g);
  if (!element && n_atoms) return sp_err_set(err, SP_E_INVALID, "isomorphism: no element array");
  if (n_bonds && !bonds) return sp_err_set(err, SP_E_INVALID, "isomorphism: no bond array");
  if (n_atoms >= UINT32_MAX) return sp_err_set(err, SP_E_INVALID, "isomorphism: too many atoms (%zu)", n_atoms);
  for (size_t i = 0; i < n_bonds; i++)
    if (bonds[i][0] >= n_atoms || bonds[i][1] >= n_atoms)
      return sp_err_set(err, SP_E_INVALID, "isomorphism: bond %zu refers to an atom out of range", i);
  uint32_t *node_of = malloc((n_atoms ? n_atoms : 1) * sizeof *node_of);
  uint32_t (*e)[2] = malloc((n_bonds ? n_bonds : 1) * sizeof *e);
  g->el = malloc(n_atoms ? n_atoms : 1);
  int rc = 0;
  if (!node_of || !e || !g->el) {
    rc = sp_err_set(err, SP_E_NOMEM, "isomorphism: out of memory (%zu atoms)", n_atoms);
    goto done;
  }
  for (size_t i = 0; i < n_atoms; i++) {
    if (element[i] == 1) {
      node_of[i] = UINT32_MAX;
    } else {
      g->el[g->n] = element[i];
      node_of[i] = (uint32_t)g->n++;
    }
  }
  size_t ne = 0;
  for (size_t i = 0; i < n_bonds; i++) {
    uint32_t a = node_of[bonds[i][0]], b = node_of[bonds[i][1]];
    if (a == UINT32_MAX || b == UINT32_MAX || a == b) continue;
    if (sp_element_is_metal(g->el[a]) || sp_element_is_metal(g->el[b])) continue;
    e[ne][0] = a < b ? a : b;
    e[ne][1] = a < b ? b : a;
    ne++;
  }
  if (ne > 1) {
    qsort(e, ne, sizeof *e, cmp_edge);
    size_t u = 1;
    for (size_t i = 1; i < ne; i++)
      if (e[i][0] != e[u - 1][0] || e[i][1] != e[u - 1][1]) {
        e[u][0] = e[i][0];
        e[u][1] = e[i][1];
        u++;
      }
    ne = u;
  }
  g->n_edges = ne;
  g->ptr = calloc(g->n + 1, sizeof *g->ptr);
  g->adj = malloc((ne ? 2 * ne : 1) * sizeof *g->adj);
  if (!g->ptr || !g->adj) {
    rc = sp_err_set(err, SP_E_NOMEM, "isomorphism: out of memory (%zu bonds)", n_bonds);
    goto done;
  }
  for (size_t i = 0; i < ne; i++) {
    g->ptr[e[i][0] + 1]++;
    g->ptr[e[i][1] + 1]++;
  }
  for (size_t i = 0; i < g->n; i++) g->ptr[i + 1] += g->ptr[i];
  {
    uint32_t *fill = node_of; /* reused as the fill cursor: n_atoms >= g->n entries */
    for (size_t i = 0; i < g->n; i++) fill[i] = g->ptr[i];
    for (size_t i = 0; i < ne; i++) {
      g->adj[fill[e[i][0]]++] = e[i][1];
      g->adj[fill[e[i][1]]++] = e[i][0];
    }
  }
  for (size_t i = 0; i < g->n; i++) qsort(g->adj + g->ptr[i], g->ptr[i + 1] - g->ptr[i], sizeof *g->adj, cmp_u32);
done:
  free(node_of);
  free(e);
  if (rc) hgraph_free(g);
  return rc;
}

static bool hg_adjacent(const hgraph *g, uint32_t a, uint32_t b) {
  size_t lo = g->ptr[a], hi = g->ptr[a + 1];
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (g->adj[mid] == b) return true;
    if (g->adj[mid] < b) lo = mid + 1;
    else hi = mid;
  }
  return false;
}

/* One colour-refinement round on g (labels in -> out), the same function as the key's. */
static void refine_round(const hgraph *g, const uint64_t *in, uint64_t *out, uint64_t *nb) {
  for (size_t v = 0; v < g->n; v++) {
    size_t d = 0;
    for (uint32_t e = g->ptr[v]; e < g->ptr[v + 1]; e++) nb[d++] = in[g->adj[e]];
    qsort(nb, d, sizeof *nb, cmp_u64);
    uint64_t acc = mix64(in[v]);
    for (size_t j = 0; j < d; j++) acc = mix64(acc ^ nb[j]);
    out[v] = acc;
  }
}

static bool same_multiset(uint64_t *t1, uint64_t *t2, const uint64_t *a, const uint64_t *b, size_t n) {
  memcpy(t1, a, n * sizeof *t1);
  memcpy(t2, b, n * sizeof *t2);
  qsort(t1, n, sizeof *t1, cmp_u64);
  qsort(t2, n, sizeof *t2, cmp_u64);
  return !memcmp(t1, t2, n * sizeof *t1);
}

/* Exact isomorphism of two heavy graphs of equal size: WL colours refined jointly (same rounds
 * on both graphs, so colours compare across them) as the initial partition, then depth-first
 * matching in BFS order of A (explicit stack, no recursion) with adjacency consistency to every
 * already-matched node (VF2-style feasibility), bounded by max_steps candidate tries. */
static int hg_isomorphic(const hgraph *A, const hgraph *B, uint64_t max_steps, int *verdict, uint64_t *steps_out,
                         sp_err *err) {
  *verdict = SP_ISO_NO;
  if (steps_out) *steps_out = 0;
  if (A->n != B->n || A->n_edges != B->n_edges) return 0;
  size_t n = A->n;
  if (n == 0) {
    *verdict = SP_ISO_YES;
    return 0;
  }
  size_t maxd = 0;
  for (size_t v = 0; v < n; v++) {
    size_t da = A->ptr[v + 1] - A->ptr[v], db = B->ptr[v + 1] - B->ptr[v];
    if (da > maxd) maxd = da;
    if (db > maxd) maxd = db;
  }
  uint64_t *ca = malloc(n * sizeof *ca), *cb = malloc(n * sizeof *cb), *na = malloc(n * sizeof *na),
           *nbb = malloc(n * sizeof *nbb), *t1 = malloc(n * sizeof *t1), *t2 = malloc(n * sizeof *t2),
           *nb = malloc((maxd ? maxd : 1) * sizeof *nb);
  uint32_t *order = malloc(n * sizeof *order), *parent = malloc(n * sizeof *parent), *map_a = malloc(n * sizeof *map_a),
           *map_b = malloc(n * sizeof *map_b), *iter = malloc(n * sizeof *iter);
  uint8_t *seen = calloc(n, 1);
  int rc = 0;
  if (!ca || !cb || !na || !nbb || !t1 || !t2 || !nb || !order || !parent || !map_a || !map_b || !iter || !seen) {
    rc = sp_err_set(err, SP_E_NOMEM, "isomorphism: out of memory (%zu nodes)", n);
    goto done;
  }
  for (size_t v = 0; v < n; v++) {
    ca[v] = mix64(0x574C310000000000ull + A->el[v]);
    cb[v] = mix64(0x574C310000000000ull + B->el[v]);
  }
  if (!same_multiset(t1, t2, ca, cb, n)) goto done;
  size_t classes = count_distinct(t1, ca, n);
  for (size_t round = 0; round < n; round++) {
    refine_round(A, ca, na, nb);
    refine_round(B, cb, nbb, nb); /* nb: room for the larger maximum degree of the two */
    if (!same_multiset(t1, t2, na, nbb, n)) goto done; /* colour histograms differ: not isomorphic */
    size_t c = count_distinct(t1, na, n);
    uint64_t *s;
    s = ca, ca = na, na = s;
    s = cb, cb = nbb, nbb = s;
    if (c <= classes) break;
    classes = c;
  }
  /* class sizes, to start each connected component at its rarest colour */
  memcpy(t1, ca, n * sizeof *t1);
  qsort(t1, n, sizeof *t1, cmp_u64);
  /* BFS order of A: roots = unvisited node with the smallest colour class */
  size_t no = 0;
  while (no < n) {
    size_t best = n, best_sz = SIZE_MAX;
    for (size_t v = 0; v < n; v++) {
      if (seen[v]) continue;
      /* size of v's class: equal range in sorted t1 */
      size_t lo = 0, hi = n;
      while (lo < hi) {
        size_t m = lo + (hi - lo) / 2;
        if (t1[m] < ca[v]) lo = m + 1;
        else hi = m;
      }
      size_t e = lo;
      while (e < n && t1[e] == ca[v]) e++;
      if (e - lo < best_sz) best_sz = e - lo, best = v;
    }
    size_t head = no;
    seen[best] = 1;
    parent[no] = UINT32_MAX;
    order[no++] = (uint32_t)best;
    while (head < no) {
      uint32_t v = order[head++];
      for (uint32_t e = A->ptr[v]; e < A->ptr[v + 1]; e++) {
        uint32_t u = A->adj[e];
        if (seen[u]) continue;
        seen[u] = 1;
        parent[no] = v;
        order[no++] = u;
      }
    }
  }
  for (size_t v = 0; v < n; v++) map_a[v] = map_b[v] = UINT32_MAX;
  /* iter[d]: next candidate position at depth d (into the parent image's neighbours, or 0..n-1) */
  uint64_t steps = 0;
  size_t d = 0;
  iter[0] = 0;
  for (;;) {
    uint32_t v = order[d];
    uint32_t p = parent[d];
    uint32_t lim = p == UINT32_MAX ? (uint32_t)n : B->ptr[map_a[p] + 1] - B->ptr[map_a[p]];
    bool placed = false;
    while (iter[d] < lim) {
      uint32_t w = p == UINT32_MAX ? iter[d] : B->adj[B->ptr[map_a[p]] + iter[d]];
      iter[d]++;
      if (map_b[w] != UINT32_MAX || cb[w] != ca[v]) continue;
      if (steps >= max_steps) { /* spent: steps never exceeds max_steps */
        *verdict = SP_ISO_UNDECIDED;
        goto done_steps;
      }
      steps++;
      /* every matched neighbour of v maps onto a neighbour of w, and w has no other matched neighbour */
      size_t ma = 0, mb = 0;
      bool ok = true;
      for (uint32_t e = A->ptr[v]; e < A->ptr[v + 1] && ok; e++) {
        uint32_t u = A->adj[e];
        if (map_a[u] == UINT32_MAX) continue;
        ma++;
        ok = hg_adjacent(B, w, map_a[u]);
      }
      if (!ok) continue;
      for (uint32_t e = B->ptr[w]; e < B->ptr[w + 1]; e++) mb += map_b[B->adj[e]] != UINT32_MAX;
      if (ma != mb) continue;
      map_a[v] = w;
      map_b[w] = v;
      placed = true;
      break;
    }
    if (placed) {
      if (d + 1 == n) {
        *verdict = SP_ISO_YES;
        goto done_steps;
      }
      iter[++d] = 0;
      continue;
    }
    /* exhausted at depth d: undo the match of depth d-1 and try its next candidate */
    if (d == 0) goto done_steps; /* SP_ISO_NO */
    d--;
    uint32_t pv = order[d];
    map_b[map_a[pv]] = UINT32_MAX;
    map_a[pv] = UINT32_MAX;
  }
done_steps:
  if (steps_out) *steps_out = steps;
done:
  free(ca);
  free(cb);
  free(na);
  free(nbb);
  free(t1);
  free(t2);
  free(nb);
  free(order);
  free(parent);
  free(map_a);
  free(map_b);
  free(iter);
  free(seen);
  return rc;
}

int sp_molkey_isomorphic(size_t n_a, const uint8_t *el_a, size_t nb_a, const uint32_t (*b_a)[2], size_t n_b,
                         const uint8_t *el_b, size_t nb_b, const uint32_t (*b_b)[2], uint64_t max_steps, int *verdict,
                         uint64_t *steps, sp_err *err) {
  if (!verdict) return sp_err_set(err, SP_E_INVALID, "isomorphism: no verdict pointer");
  *verdict = SP_ISO_NO;
  if (steps) *steps = 0;
  hgraph A, B;
  int rc = hgraph_build(n_a, el_a, nb_a, b_a, &A, err);
  if (rc) return rc;
  rc = hgraph_build(n_b, el_b, nb_b, b_b, &B, err);
  if (!rc) rc = hg_isomorphic(&A, &B, max_steps, verdict, steps, err);
  hgraph_free(&A);
  hgraph_free(&B);
  return rc;
}

/* element and bond arrays of a component (leaving atoms dropped on request) */
static int component_arrays(const sp_component *c, bool drop_leaving, size_t *n_out, uint8_t **el_out,
                            size_t *nb_out, uint32_t (**bd_out)[2], sp_err *err) {
  *el_out = NULL;
  *bd_out = NULL;
  size_t n = c->n_atoms;
  uint32_t *map = malloc((n ? n : 1) * sizeof *map);
  uint8_t *el = malloc(n ? n : 1);
  uint32_t (*bd)[2] = malloc((c->n_bonds ? c->n_bonds : 1) * sizeof *bd);
  if (!map || !el || !bd) {
    free(map);
    free(el);
    free(bd);
    return sp_err_set(err, SP_E_NOMEM, "isomorphism: out of memory for component %s", c->id);
  }
  size_t k = 0, nb = 0;
  for (size_t i = 0; i < n; i++) {
    if (drop_leaving && c->atoms[i].leaving) {
      map[i] = UINT32_MAX;
      continue;
    }
    el[k] = c->atoms[i].element;
    map[i] = (uint32_t)k++;
  }
  for (size_t i = 0; i < c->n_bonds; i++) {
    size_t a = c->bonds[i].a, b = c->bonds[i].b;
    if (a >= n || b >= n) {
      free(map);
      free(el);
      free(bd);
      return sp_err_set(err, SP_E_INVALID, "isomorphism: component %s bond %zu out of range", c->id, i);
    }
    if (map[a] == UINT32_MAX || map[b] == UINT32_MAX) continue;
    bd[nb][0] = map[a];
    bd[nb][1] = map[b];
    nb++;
  }
  free(map);
  *n_out = k;
  *el_out = el;
  *nb_out = nb;
  *bd_out = bd;
  return 0;
}

int sp_molkey_component_isomorphic(const sp_component *a, const sp_component *b, bool drop_leaving,
                                   uint64_t max_steps, int *verdict, uint64_t *steps, sp_err *err) {
  if (!verdict) return sp_err_set(err, SP_E_INVALID, "isomorphism: no verdict pointer");
  *verdict = SP_ISO_NO;
  if (!a || !b) return sp_err_set(err, SP_E_INVALID, "isomorphism: no component");
  size_t na = 0, nb = 0, ma = 0, mb = 0;
  uint8_t *ea = NULL, *eb = NULL;
  uint32_t (*ba)[2] = NULL, (*bb)[2] = NULL;
  int rc = component_arrays(a, drop_leaving, &na, &ea, &ma, &ba, err);
  if (!rc) rc = component_arrays(b, drop_leaving, &nb, &eb, &mb, &bb, err);
  if (!rc)
    rc = sp_molkey_isomorphic(na, ea, ma, (const uint32_t(*)[2])ba, nb, eb, mb, (const uint32_t(*)[2])bb, max_steps,
                              verdict, steps, err);
  free(ea);
  free(eb);
  free(ba);
  free(bb);
  return rc;
}

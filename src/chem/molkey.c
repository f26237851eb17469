/* Molecule key: Weisfeiler-Lehman hash of the heavy-atom graph + neutral-equivalent H
 * count. Algorithm and limits: include/sitepack/molkey.h, docs/ligands.md. */
#include "sitepack/molkey.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sitepack/elements.h"

static inline uint64_t mix64(uint64_t x) {
  uint64_t z = x + 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

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

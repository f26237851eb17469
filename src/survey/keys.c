/* Molecule graphs of ligand instances and their keys (survey_internal.h; the key itself:
 * include/sitepack/molkey.h; which graph for which instance: docs/ligands.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sitepack/base.h"
#include "sitepack/elements.h"
#include "survey/survey_internal.h"

/* Distance bonds: covalent radii + 0.4 Å (docs/ligands.md). */
#define DIST_BOND_TOL 0.4f

/* A molecule graph being built. An allocation failure sets `nomem` and makes every later
 * addition a no-op, so that a builder checks once, in graph_key(). */
typedef struct graph {
  size_t n, cap_el, cap_ch;       /* atoms; capacities of el and ch */
  uint8_t *el;
  int8_t *ch;
  size_t nb, capb;
  uint32_t (*b)[2];
  bool nomem;
} graph;

static void graph_free(graph *g) {
  free(g->el);
  free(g->ch);
  free(g->b);
  memset(g, 0, sizeof *g);
}

static void graph_add_atom(graph *g, uint8_t el, int8_t ch) {
  if (g->nomem) return;
  if (SP_GROW(g->el, g->cap_el, g->n + 1) || SP_GROW(g->ch, g->cap_ch, g->n + 1)) {
    g->nomem = true;
    return;
  }
  g->el[g->n] = el;
  g->ch[g->n] = ch;
  g->n++;
}

static void graph_add_bond(graph *g, size_t a, size_t b) {
  if (g->nomem) return;
  if (SP_GROW(g->b, g->capb, g->nb + 1)) {
    g->nomem = true;
    return;
  }
  g->b[g->nb][0] = (uint32_t)a;
  g->b[g->nb][1] = (uint32_t)b;
  g->nb++;
}

/* The key of g into out, then g is freed. 0, SP_E_NOMEM, or an error of sp_molkey_graph. */
static int graph_key(graph *g, char out[SP_KEY_LEN], sp_err *err) {
  int rc = g->nomem ? sp_err_set(err, SP_E_NOMEM, "survey: out of memory building a molecule graph")
                    : sp_molkey_graph(g->n, g->el, g->ch, g->nb, (const uint32_t(*)[2])g->b, out, err);
  graph_free(g);
  return rc;
}

/* ------------------------------------------------------------ from CCD definitions */

/* Definition d of residue r into g, minus leaving atoms not observed (heavy) or whose heavy
 * neighbour takes part in a link or was dropped (H). map[k] receives the graph atom of
 * definition atom k, -1 when dropped. */
static void add_definition(graph *g, const sp_structure *s, const char *alt, uint32_t r, const sp_component *d,
                           const link *links, size_t n_links, int32_t *map) {
  uint8_t *linked = calloc(2 * (d->n_atoms ? d->n_atoms : 1), 1);
  if (!linked) {
    g->nomem = true;
    return;
  }
  uint8_t *drop = linked + (d->n_atoms ? d->n_atoms : 1);
  for (size_t l = 0; l < n_links; l++)
    for (int end = 0; end < 2; end++) {
      int64_t at = end ? links[l].b : links[l].a;
      if (s->atom_residue[at] != r) continue;
      int k = sp_component_atom_index(d, s->atom_name[at]);
      if (k >= 0) linked[k] = 1;
    }
  for (size_t k = 0; k < d->n_atoms; k++)
    if (d->atoms[k].leaving && d->atoms[k].element != 1 && res_atom(s, alt, r, d->atoms[k].name) < 0) drop[k] = 1;
  for (size_t bi = 0; bi < d->n_bonds; bi++) {
    size_t a = d->bonds[bi].a, b = d->bonds[bi].b;
    if (a >= d->n_atoms || b >= d->n_atoms) continue;
    for (int pass = 0; pass < 2; pass++) {
      size_t h = pass ? b : a, o = pass ? a : b;
      if (d->atoms[h].element == 1 && d->atoms[h].leaving && (linked[o] || drop[o])) drop[h] = 1;
    }
  }
  for (size_t k = 0; k < d->n_atoms; k++) {
    map[k] = drop[k] ? -1 : (int32_t)g->n;
    if (!drop[k]) graph_add_atom(g, d->atoms[k].element, d->atoms[k].charge);
  }
  for (size_t bi = 0; bi < d->n_bonds; bi++) {
    size_t a = d->bonds[bi].a, b = d->bonds[bi].b;
    if (a >= d->n_atoms || b >= d->n_atoms || map[a] < 0 || map[b] < 0) continue;
    graph_add_bond(g, (size_t)map[a], (size_t)map[b]);
  }
  free(linked);
}

/* Graph atom of structure atom `at` (one end of a link), -1 if its definition lacks it. */
static int64_t mapped_end(comp_table *c, const uint32_t *res, size_t n_res, int32_t *const *map, int64_t at) {
  const sp_structure *s = c->s;
  int64_t g = -1;
  for (size_t i = 0; i < n_res; i++) {
    if (s->atom_residue[at] != res[i]) continue;
    int k = sp_component_atom_index(comp_get(c, s->residues[res[i]].comp_id)->def, s->atom_name[at]);
    if (k >= 0) g = map[i][k];
  }
  return g;
}

int key_from_definitions(comp_table *c, const char *alt, const uint32_t *res, size_t n_res, const link *links,
                         size_t n_links, char out[SP_KEY_LEN]) {
  const sp_structure *s = c->s;
  graph g = {0};
  int32_t **map = calloc(n_res ? n_res : 1, sizeof *map);
  g.nomem = !map;
  for (size_t i = 0; i < n_res && !g.nomem; i++) {
    comp_info *ci = comp_get(c, s->residues[res[i]].comp_id);
    map[i] = ci ? malloc((ci->def->n_atoms ? ci->def->n_atoms : 1) * sizeof **map) : NULL;
    if (!map[i]) g.nomem = true;
    else add_definition(&g, s, alt, res[i], ci->def, links, n_links, map[i]);
  }
  for (size_t l = 0; l < n_links && !g.nomem; l++) {
    int64_t ga = mapped_end(c, res, n_res, map, links[l].a), gb = mapped_end(c, res, n_res, map, links[l].b);
    if (ga >= 0 && gb >= 0) graph_add_bond(&g, (size_t)ga, (size_t)gb);
  }
  if (map)
    for (size_t i = 0; i < n_res; i++) free(map[i]);
  free(map);
  return graph_key(&g, out, c->err);
}

/* ------------------------------------------------------------ from observed atoms */

/* Distance bonds among atoms[lo..hi) of the graph (atoms given by structure index). */
static void distance_bonds(const sp_structure *s, graph *g, const uint32_t *atoms, size_t lo, size_t hi) {
  for (size_t i = lo; i < hi; i++)
    for (size_t j = i + 1; j < hi; j++) {
      uint32_t a = atoms[i], b = atoms[j];
      float r = sp_element_covalent_radius(s->element[a]) + sp_element_covalent_radius(s->element[b]) + DIST_BOND_TOL;
      float d2 = atom_dist2(s, a, b);
      if (d2 <= r * r && d2 > 0.16f) graph_add_bond(g, i, j);
    }
}

/* Distance bonds of atom atoms[i] to the other atoms of atoms[lo..hi) that no name bonds it to (a
 * repeated name): covalent radii + 0.4 Å; a pair of two such atoms once. */
static void repeated_by_distance(const sp_structure *s, graph *g, const uint32_t *atoms, size_t i, size_t lo,
                                 size_t hi) {
  for (size_t j = lo; j < hi; j++) {
    if (j == i || (j < i && (s->atom_flags[atoms[j]] & SP_ATOM_REPEATED_NAME))) continue;
    uint32_t a = atoms[i], b = atoms[j];
    float r = sp_element_covalent_radius(s->element[a]) + sp_element_covalent_radius(s->element[b]) + DIST_BOND_TOL;
    float d2 = atom_dist2(s, a, b);
    if (d2 <= r * r && d2 > 0.16f) graph_add_bond(g, i < j ? i : j, i < j ? j : i);
  }
}

/* Bond between the atoms named na and nb among atoms[lo..hi), if both are there and neither name
 * repeats in the residue (SP_ATOM_REPEATED_NAME: the name does not say which atom it means). */
static void bond_by_names(const sp_structure *s, graph *g, const uint32_t *atoms, size_t lo, size_t hi,
                          const char *na, const char *nb) {
  size_t ia = SIZE_MAX, ib = SIZE_MAX;
  for (size_t k = lo; k < hi; k++) {
    if (s->atom_flags[atoms[k]] & SP_ATOM_REPEATED_NAME) continue;
    if (!strcmp(s->atom_name[atoms[k]], na)) ia = k;
    if (!strcmp(s->atom_name[atoms[k]], nb)) ib = k;
  }
  if (ia != SIZE_MAX && ib != SIZE_MAX) graph_add_bond(g, ia, ib);
}

/* Intra-residue bonds of atoms[lo..hi) (one residue, comp ci): from the usable CCD definition,
 * else the file's _chem_comp_bond, else distances (then *used_distance = true). */
static void residue_bonds(const sp_structure *s, graph *g, const comp_info *ci, const uint32_t *atoms, size_t lo,
                          size_t hi, bool *used_distance) {
  if (ci->usable) {
    const sp_component *d = ci->def;
    for (size_t bi = 0; bi < d->n_bonds; bi++) {
      if (d->bonds[bi].a >= d->n_atoms || d->bonds[bi].b >= d->n_atoms) continue;
      bond_by_names(s, g, atoms, lo, hi, d->atoms[d->bonds[bi].a].name, d->atoms[d->bonds[bi].b].name);
    }
  } else if (ci->has_file_bonds) {
    for (size_t bi = 0; bi < s->n_file_bonds; bi++) {
      const sp_file_bond *fb = &s->file_bonds[bi];
      if (!strcmp(fb->comp_id, ci->id)) bond_by_names(s, g, atoms, lo, hi, fb->atom1, fb->atom2);
    }
  }
  if (ci->usable || ci->has_file_bonds) {
    /* atoms of a repeated name have no bond by name: they join by distance (as the site chemistry's
     * atoms without a definition do, src/site/sitechem_graph.c) */
    for (size_t i = lo; i < hi; i++)
      if (s->atom_flags[atoms[i]] & SP_ATOM_REPEATED_NAME) repeated_by_distance(s, g, atoms, i, lo, hi);
  } else {
    *used_distance = true;
    distance_bonds(s, g, atoms, lo, hi);
  }
}

int key_from_observed(comp_table *c, const uint32_t *atoms, size_t n_atoms, const uint32_t *res, size_t n_res,
                      const link *links, size_t n_links, char out[SP_KEY_LEN], bool *used_distance) {
  const sp_structure *s = c->s;
  graph g = {0};
  *used_distance = false;
  for (size_t i = 0; i < n_atoms; i++) graph_add_atom(&g, s->element[atoms[i]], s->charge[atoms[i]]);
  size_t lo = 0;
  for (size_t ri = 0; ri < n_res && !g.nomem; ri++) {
    size_t hi = lo;
    while (hi < n_atoms && s->atom_residue[atoms[hi]] == res[ri]) hi++;
    comp_info *ci = comp_get(c, s->residues[res[ri]].comp_id);
    if (!ci) g.nomem = true;
    else residue_bonds(s, &g, ci, atoms, lo, hi, used_distance);
    lo = hi;
  }
  for (size_t l = 0; l < n_links; l++) {
    size_t ia = SIZE_MAX, ib = SIZE_MAX;
    for (size_t k = 0; k < n_atoms; k++) {
      if (atoms[k] == links[l].a) ia = k;
      if (atoms[k] == links[l].b) ib = k;
    }
    if (ia != SIZE_MAX && ib != SIZE_MAX) graph_add_bond(&g, ia, ib);
  }
  return graph_key(&g, out, c->err);
}

/* ------------------------------------------------------------ from the file's _chem_comp_bond */

/* Index of name among names[0..*n); appended (a graph atom of unknown element) when absent. */
static size_t name_index(graph *g, char (*names)[SP_ID_LEN], size_t *n, const char *name) {
  size_t j = 0;
  while (j < *n && strcmp(names[j], name)) j++;
  if (j == *n) {
    snprintf(names[*n], SP_ID_LEN, "%s", name);
    graph_add_atom(g, 0, 0);
    (*n)++;
  }
  return j;
}

/* Component graph from the file's own _chem_comp_bond (atoms: the residue's observed atoms
 * plus every atom the bond table names; unobserved names starting with H or D bonded to one
 * atom are hydrogens, other unobserved atoms have unknown element). */
int key_from_file_bonds(comp_table *c, const char *id, uint32_t r, const char *alt, char out[SP_KEY_LEN],
                        int32_t *n_heavy_def) {
  const sp_structure *s = c->s;
  const sp_residue *R = &s->residues[r];
  size_t cap = R->n_atoms + 2 * s->n_file_bonds + 1;
  char(*names)[SP_ID_LEN] = malloc(cap * sizeof *names);
  int *deg = calloc(cap, sizeof *deg);
  graph g = {0};
  size_t n = 0;
  g.nomem = !names || !deg;
  for (uint32_t k = R->first_atom; k < R->first_atom + R->n_atoms && !g.nomem; k++) {
    if (s->altloc[k] && s->altloc[k] != alt[r]) continue;
    bool dup = false;
    for (size_t j = 0; j < n; j++)
      if (!strcmp(names[j], s->atom_name[k])) dup = true;
    if (dup) continue;
    memcpy(names[n], s->atom_name[k], SP_ID_LEN);
    graph_add_atom(&g, s->element[k], s->charge[k]);
    n++;
  }
  size_t n_obs = n;
  for (size_t bi = 0; bi < s->n_file_bonds && !g.nomem; bi++) {
    const sp_file_bond *fb = &s->file_bonds[bi];
    if (strcmp(fb->comp_id, id)) continue;
    size_t i0 = name_index(&g, names, &n, fb->atom1);
    size_t i1 = name_index(&g, names, &n, fb->atom2);
    if (i0 != i1 && !g.nomem) {
      deg[i0]++;
      deg[i1]++;
      graph_add_bond(&g, i0, i1);
    }
  }
  for (size_t j = n_obs; j < n && !g.nomem; j++) {
    char c0 = names[j][0];
    if ((c0 == 'H' || c0 == 'D') && deg[j] == 1) g.el[j] = 1;
    else if (c0 == 'C' || c0 == 'N' || c0 == 'O' || c0 == 'S' || c0 == 'P') g.el[j] = sp_element_from_symbol(names[j], 1);
  }
  if (n_heavy_def && !g.nomem) {
    int32_t nh = 0;
    for (size_t j = 0; j < n; j++) nh += g.el[j] != 1;
    *n_heavy_def = nh;
  }
  free(names);
  free(deg);
  return graph_key(&g, out, c->err);
}

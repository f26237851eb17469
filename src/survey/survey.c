/* Ligand survey: see include/sitepack/survey.h; rules and sources in docs/ligands.md. */
#include "sitepack/survey.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sitepack/elements.h"
#include "sitepack/molkey.h"
#include "survey/lists.h"

/* Largest chain that is still a `peptide` ligand, and the smallest chain that counts as
 * a receptor ("main chain") for that rule (docs/ligands.md). */
#define PEPTIDE_MAX_RES 20
/* Peptide (C-N) / phosphodiester (O3'-P) bond between neighbouring residues, Å. */
#define LINK_MAX_DIST 2.0f
/* Distance bonds: covalent radii + 0.4 Å (docs/ligands.md). */
#define DIST_BOND_TOL 0.4f

const char *sp_ligand_class_name(int cls) {
  static const char *const names[SP_CLASS_COUNT] = {"small_molecule", "ion",     "artifact", "glycan",
                                                     "cofactor",       "peptide", "unknown"};
  if (cls < 0 || cls >= SP_CLASS_COUNT) return "unknown";
  return names[cls];
}

void sp_survey_free(sp_survey *sv) {
  if (!sv) return;
  free(sv->ligands);
  free(sv->res_refs);
  free(sv->atom_refs);
  free(sv->res_role);
  free(sv->res_altloc);
  free(sv->res_ligand);
  free(sv->comps);
  memset(sv, 0, sizeof *sv);
}

/* ---------------------------------------------------------------- helpers */

typedef struct comp_info {
  char id[SP_ID_LEN];
  const sp_component *def; /* CCD block, NULL if none */
  bool in_ccd;
  bool usable;             /* definition usable: in CCD, has atoms, not OBS, not reserved */
  bool has_file_bonds;
  bool saccharide;         /* CCD or file type contains "saccharide" */
  int32_t n_heavy_nonleaving; /* usable only */
  char key[SP_KEY_LEN];
  char key_source[16];
  bool key_done;
  int64_t first_res;       /* first ligand residue with this comp, -1 none */
  int32_t file_heavy;      /* heavy atoms of the file's own definition, -1 unknown */
} comp_info;

typedef struct ctx {
  const sp_structure *s;
  sp_ccd *ccd;
  comp_info *comps;
  size_t n_comps, cap_comps;
  sp_err *err;
} ctx;

static bool ci_contains(const char *hay, const char *needle) {
  size_t n = strlen(needle);
  for (const char *p = hay; *p; p++) {
    size_t i = 0;
    while (i < n && p[i] && tolower((unsigned char)p[i]) == tolower((unsigned char)needle[i])) i++;
    if (i == n) return true;
  }
  return false;
}

/* Component info for comp_id (created on first use). NULL on allocation failure. */
static comp_info *get_comp(ctx *c, const char *id) {
  for (size_t i = 0; i < c->n_comps; i++)
    if (!strcmp(c->comps[i].id, id)) return &c->comps[i];
  if (c->n_comps == c->cap_comps) {
    size_t nc = c->cap_comps ? 2 * c->cap_comps : 16;
    comp_info *p = realloc(c->comps, nc * sizeof *p);
    if (!p) return NULL;
    c->comps = p;
    c->cap_comps = nc;
  }
  comp_info *ci = &c->comps[c->n_comps++];
  memset(ci, 0, sizeof *ci);
  snprintf(ci->id, sizeof ci->id, "%s", id);
  ci->n_heavy_nonleaving = -1;
  ci->first_res = -1;
  ci->file_heavy = -1;
  if (c->ccd) ci->def = sp_ccd_get(c->ccd, id, NULL);
  ci->in_ccd = ci->def != NULL;
  ci->usable = ci->def && ci->def->n_atoms > 0 && strcmp(ci->def->release_status, "OBS") != 0 &&
               !sp_list_is_reserved(id);
  if (ci->usable) {
    int32_t n = 0;
    for (size_t i = 0; i < ci->def->n_atoms; i++)
      if (ci->def->atoms[i].element != 1 && !ci->def->atoms[i].leaving) n++;
    ci->n_heavy_nonleaving = n;
  }
  if (ci->def && ci_contains(ci->def->type, "saccharide")) ci->saccharide = true;
  const sp_structure *s = c->s;
  for (size_t i = 0; i < s->n_file_comps; i++)
    if (!strcmp(s->file_comps[i].id, id) && ci_contains(s->file_comps[i].type, "saccharide")) ci->saccharide = true;
  for (size_t i = 0; i < s->n_file_bonds; i++)
    if (!strcmp(s->file_bonds[i].comp_id, id)) {
      ci->has_file_bonds = true;
      break;
    }
  return ci;
}

/* Atom of residue r named name, among the chosen conformer if possible; -1 if absent. */
static int64_t res_atom(const sp_structure *s, const char *res_altloc, uint32_t r, const char *name) {
  const sp_residue *R = &s->residues[r];
  int64_t any = -1;
  for (uint32_t k = R->first_atom; k < R->first_atom + R->n_atoms; k++) {
    if (strcmp(s->atom_name[k], name)) continue;
    if (s->altloc[k] == '\0' || s->altloc[k] == res_altloc[r]) return k;
    if (any < 0) any = k;
  }
  return any;
}

static float dist2(const sp_structure *s, size_t a, size_t b) {
  float dx = s->xyz[a][0] - s->xyz[b][0], dy = s->xyz[a][1] - s->xyz[b][1], dz = s->xyz[a][2] - s->xyz[b][2];
  return dx * dx + dy * dy + dz * dz;
}

/* Polymer link (peptide C-N or phosphodiester O3'-P) from residue r to residue r2. */
static bool polymer_linked(const sp_structure *s, const char *alt, uint32_t r, uint32_t r2, int64_t *aa,
                           int64_t *ab) {
  static const char *const from[] = {"C", "O3'", "O3*"};
  static const char *const to[] = {"N", "P", "P"};
  for (int i = 0; i < 3; i++) {
    int64_t a = res_atom(s, alt, r, from[i]);
    if (a < 0) continue;
    int64_t b = res_atom(s, alt, r2, to[i]);
    if (b < 0) continue;
    if (dist2(s, (size_t)a, (size_t)b) <= LINK_MAX_DIST * LINK_MAX_DIST) {
      if (aa) *aa = a;
      if (ab) *ab = b;
      return true;
    }
  }
  return false;
}

/* Resolve a connection end to an atom of model m: -1 if not found. */
static int64_t resolve_end(const sp_structure *s, uint32_t m, const sp_conn_end *e) {
  if (m == 0 && e->atom >= 0 && (size_t)e->atom < s->n_atoms) {
    uint32_t r = s->atom_residue[e->atom];
    if (s->chains[s->residues[r].chain].model == 0) return e->atom;
  }
  const sp_model *M = &s->models[m];
  bool by_label = e->label_asym_id[0] && s->has_label_ids;
  for (uint32_t ci = M->first_chain; ci < M->first_chain + M->n_chains; ci++) {
    const sp_chain *C = &s->chains[ci];
    if (by_label ? strcmp(C->label_asym_id, e->label_asym_id) : strcmp(C->auth_asym_id, e->auth_asym_id)) continue;
    for (uint32_t ri = C->first_residue; ri < C->first_residue + C->n_residues; ri++) {
      const sp_residue *R = &s->residues[ri];
      if (strcmp(R->comp_id, e->comp_id)) continue;
      if (by_label && e->label_seq_id != SP_SEQ_NONE && R->label_seq_id != SP_SEQ_NONE) {
        if (R->label_seq_id != e->label_seq_id) continue;
      } else if (R->auth_seq_id != e->auth_seq_id || R->ins_code != e->ins_code) {
        continue;
      }
      int64_t first = -1;
      for (uint32_t k = R->first_atom; k < R->first_atom + R->n_atoms; k++) {
        if (strcmp(s->atom_name[k], e->atom_name)) continue;
        if (!e->altloc || s->altloc[k] == e->altloc) return k;
        if (first < 0) first = k;
      }
      if (first >= 0) return first;
    }
  }
  return -1;
}

/* union-find over residue indices */
static uint32_t uf_find(uint32_t *p, uint32_t x) {
  while (p[x] != x) {
    p[x] = p[p[x]];
    x = p[x];
  }
  return x;
}
static void uf_union(uint32_t *p, uint32_t a, uint32_t b) {
  a = uf_find(p, a);
  b = uf_find(p, b);
  if (a == b) return;
  if (a < b) p[b] = a;
  else p[a] = b;
}

/* ---------------------------------------------------------------- graphs */

typedef struct graph {
  size_t n, cap;
  uint8_t *el;
  int8_t *ch;
  size_t nb, capb;
  uint32_t (*b)[2];
} graph;

static void graph_free(graph *g) {
  free(g->el);
  free(g->ch);
  free(g->b);
  memset(g, 0, sizeof *g);
}

static int graph_add_atom(graph *g, uint8_t el, int8_t ch) {
  if (g->n == g->cap) {
    size_t nc = g->cap ? 2 * g->cap : 64;
    uint8_t *e = realloc(g->el, nc);
    if (!e) return SP_E_NOMEM;
    g->el = e;
    int8_t *c = realloc(g->ch, nc);
    if (!c) return SP_E_NOMEM;
    g->ch = c;
    g->cap = nc;
  }
  g->el[g->n] = el;
  g->ch[g->n] = ch;
  g->n++;
  return 0;
}

static int graph_add_bond(graph *g, size_t a, size_t b) {
  if (g->nb == g->capb) {
    size_t nc = g->capb ? 2 * g->capb : 64;
    uint32_t(*p)[2] = realloc(g->b, nc * sizeof *p);
    if (!p) return SP_E_NOMEM;
    g->b = p;
    g->capb = nc;
  }
  g->b[g->nb][0] = (uint32_t)a;
  g->b[g->nb][1] = (uint32_t)b;
  g->nb++;
  return 0;
}

static int graph_key(graph *g, char out[SP_KEY_LEN], sp_err *err) {
  return sp_molkey_graph(g->n, g->el, g->ch, g->nb, (const uint32_t(*)[2])g->b, out, err);
}

/* A link between two residues of one instance (atom indices in the structure). */
typedef struct link {
  int64_t a, b;
} link;

/* Index of atom `name` of definition d, -1 if absent. */
static int def_atom(const sp_component *d, const char *name) { return sp_component_atom_index(d, name); }

/* Instance graph from the CCD definitions of all its residues (every residue usable):
 * definition atoms, minus leaving atoms not observed (heavy) or whose heavy neighbour takes
 * part in a link or was dropped (H), plus the links. */
static int key_from_definitions(ctx *c, const char *alt, const uint32_t *res, size_t n_res, const link *links,
                                size_t n_links, char out[SP_KEY_LEN]) {
  const sp_structure *s = c->s;
  graph g = {0};
  size_t *base = calloc(n_res, sizeof *base);
  int32_t **map = calloc(n_res, sizeof *map);
  int rc = 0;
  if (!base || !map) {
    rc = SP_E_NOMEM;
    goto done;
  }
  for (size_t i = 0; i < n_res; i++) {
    comp_info *ci = get_comp(c, s->residues[res[i]].comp_id);
    if (!ci) {
      rc = SP_E_NOMEM;
      goto done;
    }
    const sp_component *d = ci->def;
    map[i] = malloc((d->n_atoms ? d->n_atoms : 1) * sizeof **map);
    uint8_t *linked = calloc(d->n_atoms ? d->n_atoms : 1, 1);
    uint8_t *drop = calloc(d->n_atoms ? d->n_atoms : 1, 1);
    if (!map[i] || !linked || !drop) {
      free(linked);
      free(drop);
      rc = SP_E_NOMEM;
      goto done;
    }
    for (size_t l = 0; l < n_links; l++)
      for (int end = 0; end < 2; end++) {
        int64_t at = end ? links[l].b : links[l].a;
        if (s->atom_residue[at] != res[i]) continue;
        int k = def_atom(d, s->atom_name[at]);
        if (k >= 0) linked[k] = 1;
      }
    for (size_t k = 0; k < d->n_atoms; k++)
      if (d->atoms[k].leaving && d->atoms[k].element != 1 && res_atom(s, alt, res[i], d->atoms[k].name) < 0)
        drop[k] = 1;
    for (size_t bi = 0; bi < d->n_bonds; bi++) {
      size_t a = d->bonds[bi].a, b = d->bonds[bi].b;
      if (a >= d->n_atoms || b >= d->n_atoms) continue;
      for (int pass = 0; pass < 2; pass++) {
        size_t h = pass ? b : a, o = pass ? a : b;
        if (d->atoms[h].element == 1 && d->atoms[h].leaving && (linked[o] || drop[o])) drop[h] = 1;
      }
    }
    base[i] = g.n;
    for (size_t k = 0; k < d->n_atoms; k++) {
      if (drop[k]) {
        map[i][k] = -1;
        continue;
      }
      map[i][k] = (int32_t)g.n;
      if (graph_add_atom(&g, d->atoms[k].element, d->atoms[k].charge)) {
        free(linked);
        free(drop);
        rc = SP_E_NOMEM;
        goto done;
      }
    }
    for (size_t bi = 0; bi < d->n_bonds; bi++) {
      size_t a = d->bonds[bi].a, b = d->bonds[bi].b;
      if (a >= d->n_atoms || b >= d->n_atoms || map[i][a] < 0 || map[i][b] < 0) continue;
      if (graph_add_bond(&g, (size_t)map[i][a], (size_t)map[i][b])) {
        free(linked);
        free(drop);
        rc = SP_E_NOMEM;
        goto done;
      }
    }
    free(linked);
    free(drop);
  }
  for (size_t l = 0; l < n_links; l++) {
    int64_t ga = -1, gb = -1;
    for (size_t i = 0; i < n_res; i++) {
      const sp_component *d = get_comp(c, s->residues[res[i]].comp_id)->def;
      if (s->atom_residue[links[l].a] == res[i]) {
        int k = def_atom(d, s->atom_name[links[l].a]);
        if (k >= 0) ga = map[i][k];
      }
      if (s->atom_residue[links[l].b] == res[i]) {
        int k = def_atom(d, s->atom_name[links[l].b]);
        if (k >= 0) gb = map[i][k];
      }
    }
    if (ga >= 0 && gb >= 0 && graph_add_bond(&g, (size_t)ga, (size_t)gb)) {
      rc = SP_E_NOMEM;
      goto done;
    }
  }
  rc = graph_key(&g, out, c->err);
done:
  if (map)
    for (size_t i = 0; i < n_res; i++) free(map[i]);
  free(map);
  free(base);
  graph_free(&g);
  if (rc == SP_E_NOMEM) sp_err_set(c->err, SP_E_NOMEM, "survey: out of memory building a molecule graph");
  return rc;
}

/* Distance bonds among atoms[lo..hi) of the graph (atoms given by structure index). */
static int distance_bonds(const sp_structure *s, graph *g, const uint32_t *atoms, size_t lo, size_t hi) {
  for (size_t i = lo; i < hi; i++)
    for (size_t j = i + 1; j < hi; j++) {
      uint32_t a = atoms[i], b = atoms[j];
      float r = sp_element_covalent_radius(s->element[a]) + sp_element_covalent_radius(s->element[b]) + DIST_BOND_TOL;
      float d2 = dist2(s, a, b);
      if (d2 <= r * r && d2 > 0.16f && graph_add_bond(g, i, j)) return SP_E_NOMEM;
    }
  return 0;
}

/* Graph of the observed (chosen) atoms of an instance. Intra-residue bonds from the usable
 * CCD definition, else the file's _chem_comp_bond, else distances; plus the links.
 * *used_distance is set when some residue needed distances. */
static int key_from_observed(ctx *c, const uint32_t *atoms, size_t n_atoms, const uint32_t *res, size_t n_res,
                             const link *links, size_t n_links, char out[SP_KEY_LEN], bool *used_distance) {
  const sp_structure *s = c->s;
  graph g = {0};
  int rc = 0;
  *used_distance = false;
  for (size_t i = 0; i < n_atoms; i++)
    if (graph_add_atom(&g, s->element[atoms[i]], s->charge[atoms[i]])) goto nomem;
  size_t lo = 0;
  for (size_t ri = 0; ri < n_res; ri++) {
    size_t hi = lo;
    while (hi < n_atoms && s->atom_residue[atoms[hi]] == res[ri]) hi++;
    const char *id = s->residues[res[ri]].comp_id;
    comp_info *ci = get_comp(c, id);
    if (!ci) goto nomem;
    if (ci->usable) {
      const sp_component *d = ci->def;
      for (size_t bi = 0; bi < d->n_bonds; bi++) {
        if (d->bonds[bi].a >= d->n_atoms || d->bonds[bi].b >= d->n_atoms) continue;
        const char *na = d->atoms[d->bonds[bi].a].name, *nb = d->atoms[d->bonds[bi].b].name;
        size_t ia = SIZE_MAX, ib = SIZE_MAX;
        for (size_t k = lo; k < hi; k++) {
          if (!strcmp(s->atom_name[atoms[k]], na)) ia = k;
          if (!strcmp(s->atom_name[atoms[k]], nb)) ib = k;
        }
        if (ia != SIZE_MAX && ib != SIZE_MAX && graph_add_bond(&g, ia, ib)) goto nomem;
      }
    } else if (ci->has_file_bonds) {
      for (size_t bi = 0; bi < s->n_file_bonds; bi++) {
        const sp_file_bond *fb = &s->file_bonds[bi];
        if (strcmp(fb->comp_id, id)) continue;
        size_t ia = SIZE_MAX, ib = SIZE_MAX;
        for (size_t k = lo; k < hi; k++) {
          if (!strcmp(s->atom_name[atoms[k]], fb->atom1)) ia = k;
          if (!strcmp(s->atom_name[atoms[k]], fb->atom2)) ib = k;
        }
        if (ia != SIZE_MAX && ib != SIZE_MAX && graph_add_bond(&g, ia, ib)) goto nomem;
      }
    } else {
      *used_distance = true;
      if (distance_bonds(s, &g, atoms, lo, hi)) goto nomem;
    }
    lo = hi;
  }
  for (size_t l = 0; l < n_links; l++) {
    size_t ia = SIZE_MAX, ib = SIZE_MAX;
    for (size_t k = 0; k < n_atoms; k++) {
      if (atoms[k] == links[l].a) ia = k;
      if (atoms[k] == links[l].b) ib = k;
    }
    if (ia != SIZE_MAX && ib != SIZE_MAX && graph_add_bond(&g, ia, ib)) goto nomem;
  }
  rc = graph_key(&g, out, c->err);
  graph_free(&g);
  return rc;
nomem:
  graph_free(&g);
  return sp_err_set(c->err, SP_E_NOMEM, "survey: out of memory building a molecule graph");
}

/* Component graph from the file's own _chem_comp_bond (atoms: the residue's observed atoms
 * plus every atom the bond table names; unobserved names starting with H or D bonded to one
 * atom are hydrogens, other unobserved atoms have unknown element). */
static int key_from_file_bonds(ctx *c, const char *id, uint32_t r, const char *alt, char out[SP_KEY_LEN],
                               int32_t *n_heavy_def) {
  const sp_structure *s = c->s;
  const sp_residue *R = &s->residues[r];
  size_t cap = R->n_atoms + 2 * s->n_file_bonds + 1;
  char(*names)[SP_ID_LEN] = malloc(cap * sizeof *names);
  int *deg = calloc(cap, sizeof *deg);
  graph g = {0};
  size_t n = 0;
  int rc = 0;
  if (!names || !deg) goto nomem;
  for (uint32_t k = R->first_atom; k < R->first_atom + R->n_atoms; k++) {
    if (s->altloc[k] && s->altloc[k] != alt[r]) continue;
    bool dup = false;
    for (size_t j = 0; j < n; j++)
      if (!strcmp(names[j], s->atom_name[k])) dup = true;
    if (dup) continue;
    memcpy(names[n], s->atom_name[k], SP_ID_LEN);
    if (graph_add_atom(&g, s->element[k], s->charge[k])) goto nomem;
    n++;
  }
  size_t n_obs = n;
  for (size_t bi = 0; bi < s->n_file_bonds; bi++) {
    const sp_file_bond *fb = &s->file_bonds[bi];
    if (strcmp(fb->comp_id, id)) continue;
    size_t idx[2];
    const char *nm[2] = {fb->atom1, fb->atom2};
    for (int e = 0; e < 2; e++) {
      size_t j = 0;
      while (j < n && strcmp(names[j], nm[e])) j++;
      if (j == n) {
        snprintf(names[n], SP_ID_LEN, "%s", nm[e]);
        if (graph_add_atom(&g, 0, 0)) goto nomem;
        n++;
      }
      idx[e] = j;
    }
    if (idx[0] != idx[1]) {
      deg[idx[0]]++;
      deg[idx[1]]++;
      if (graph_add_bond(&g, idx[0], idx[1])) goto nomem;
    }
  }
  for (size_t j = n_obs; j < n; j++) {
    char c0 = names[j][0];
    if ((c0 == 'H' || c0 == 'D') && deg[j] == 1) g.el[j] = 1;
    else if (c0 == 'C' || c0 == 'N' || c0 == 'O' || c0 == 'S' || c0 == 'P') g.el[j] = sp_element_from_symbol(names[j], 1);
  }
  if (n_heavy_def) {
    int32_t nh = 0;
    for (size_t j = 0; j < n; j++) nh += g.el[j] != 1;
    *n_heavy_def = nh;
  }
  rc = graph_key(&g, out, c->err);
  free(names);
  free(deg);
  graph_free(&g);
  return rc;
nomem:
  free(names);
  free(deg);
  graph_free(&g);
  return sp_err_set(c->err, SP_E_NOMEM, "survey: out of memory building a molecule graph");
}

/* ---------------------------------------------------------------- survey */

typedef struct growbuf {
  void *p;
  size_t n, cap, el;
} growbuf;

static void *gb_push(growbuf *b) {
  if (b->n == b->cap) {
    size_t nc = b->cap ? 2 * b->cap : 64;
    void *p = realloc(b->p, nc * b->el);
    if (!p) return NULL;
    b->p = p;
    b->cap = nc;
  }
  return (char *)b->p + b->el * b->n++;
}

/* Choose the altloc of each residue: highest mean occupancy, ties to the first in file order. */
static void choose_altlocs(const sp_structure *s, char *res_alt) {
  for (size_t r = 0; r < s->n_residues; r++) {
    const sp_residue *R = &s->residues[r];
    char ids[64];
    double sum[64];
    int cnt[64];
    int n = 0;
    for (uint32_t k = R->first_atom; k < R->first_atom + R->n_atoms; k++) {
      char a = s->altloc[k];
      if (!a) continue;
      int j = 0;
      while (j < n && ids[j] != a) j++;
      if (j == n) {
        if (n == 64) continue;
        ids[n] = a;
        sum[n] = 0;
        cnt[n] = 0;
        n++;
      }
      sum[j] += s->occupancy[k];
      cnt[j]++;
    }
    res_alt[r] = '\0';
    double best = -1;
    for (int j = 0; j < n; j++) {
      double mean = sum[j] / cnt[j];
      if (mean > best + 1e-6) {
        best = mean;
        res_alt[r] = ids[j];
      }
    }
  }
}

/* Does an entity (by index) hold comp_id in its sequence? true when it has no sequence. */
static bool entity_has_comp(const sp_structure *s, int32_t ent, const char *id) {
  if (ent < 0 || (size_t)ent >= s->n_entities) return true;
  const sp_entity *e = &s->entities[ent];
  if (e->seq_len == 0) return true;
  for (uint32_t i = e->seq_first; i < e->seq_first + e->seq_len && i < s->n_seq; i++)
    if (!strcmp(s->seq_comp[i], id)) return true;
  return false;
}

/* A polymer entity (SEQRES) whose strand list names this auth chain id. */
static bool chain_in_seqres(const sp_structure *s, const char *auth) {
  size_t n = strlen(auth);
  if (!n) return false;
  for (size_t e = 0; e < s->n_entities; e++) {
    if (s->entities[e].type != SP_ENT_POLYMER) continue;
    const char *p = s->entities[e].strand_ids;
    while (*p) {
      while (*p == ',' || *p == ' ') p++;
      const char *q = p;
      while (*q && *q != ',' && *q != ' ') q++;
      if ((size_t)(q - p) == n && !strncmp(p, auth, n)) return true;
      p = q;
    }
  }
  return false;
}

int sp_survey_run(const sp_structure *s, sp_ccd *ccd, const sp_survey_opts *opts, sp_survey *out, sp_err *err) {
  memset(out, 0, sizeof *out);
  ctx c = {s, ccd, NULL, 0, 0, err};
  size_t nr = s->n_residues;
  bool all_models = opts && opts->all_models;
  size_t n_models = s->n_models == 0 ? 0 : (all_models ? s->n_models : 1);
  growbuf ligs = {NULL, 0, 0, sizeof(sp_ligand)}, rrefs = {NULL, 0, 0, sizeof(uint32_t)},
          arefs = {NULL, 0, 0, sizeof(uint32_t)};
  uint32_t *uf = NULL, *peptide_chain = NULL, *order = NULL, *tmp_atoms = NULL;
  uint8_t *cand = NULL, *flag_cov = NULL, *flag_metal = NULL;
  int64_t *attach = NULL;
  growbuf lk = {NULL, 0, 0, sizeof(link)};
  link *links = NULL, *ll = NULL;
  size_t n_links = 0;
  uint32_t *bucket_ptr = NULL, *bucket = NULL;
  int rc = 0;

  out->res_role = malloc(nr ? nr : 1);
  out->res_altloc = malloc(nr ? nr : 1);
  out->res_ligand = malloc((nr ? nr : 1) * sizeof *out->res_ligand);
  uf = malloc((nr ? nr : 1) * sizeof *uf);
  cand = calloc(nr ? nr : 1, 1);
  flag_cov = calloc(nr ? nr : 1, 1);
  flag_metal = calloc(nr ? nr : 1, 1);
  attach = malloc((nr ? nr : 1) * sizeof *attach);
  peptide_chain = malloc((s->n_chains ? s->n_chains : 1) * sizeof *peptide_chain);
  if (!out->res_role || !out->res_altloc || !out->res_ligand || !uf || !cand || !flag_cov || !flag_metal || !attach ||
      !peptide_chain)
    goto nomem;
  memset(out->res_role, SP_ROLE_OTHER, nr);
  for (size_t r = 0; r < nr; r++) {
    out->res_ligand[r] = -1;
    uf[r] = (uint32_t)r;
    attach[r] = -1;
  }
  choose_altlocs(s, out->res_altloc);
  const char *alt = out->res_altloc;
  bool any_seqres = false;
  for (size_t e = 0; e < s->n_entities; e++)
    if (s->entities[e].type == SP_ENT_POLYMER) any_seqres = true;

  for (size_t m = 0; m < n_models; m++) {
    const sp_model *M = &s->models[m];
    /* 1. roles: water / polymer / ligand candidate */
    for (uint32_t ci = M->first_chain; ci < M->first_chain + M->n_chains && ci < s->n_chains; ci++) {
      const sp_chain *C = &s->chains[ci];
      peptide_chain[ci] = 0;
      for (uint32_t ri = C->first_residue; ri < C->first_residue + C->n_residues && ri < nr; ri++) {
        const sp_residue *R = &s->residues[ri];
        uint8_t role;
        if (R->entity_type == SP_ENT_WATER || sp_list_is_water(R->comp_id)) {
          role = SP_ROLE_WATER;
        } else if (R->entity_type == SP_ENT_NONPOLYMER || R->entity_type == SP_ENT_BRANCHED ||
                   R->entity_type == SP_ENT_MACROLIDE) {
          role = SP_ROLE_LIGAND;
        } else {
          bool linked = (ri > C->first_residue && polymer_linked(s, alt, ri - 1, ri, NULL, NULL)) ||
                        (ri + 1 < C->first_residue + C->n_residues && polymer_linked(s, alt, ri, ri + 1, NULL, NULL));
          if (R->entity_type == SP_ENT_POLYMER && s->has_label_ids) {
            /* mmCIF: the entity type decides */
            role = SP_ROLE_POLYMER;
          } else if (R->entity_type == SP_ENT_POLYMER) {
            /* entity from SEQRES: polymer if in its sequence and ATOM or linked */
            role = (entity_has_comp(s, C->entity, R->comp_id) && (!R->all_hetatm || linked)) ? SP_ROLE_POLYMER
                                                                                           : SP_ROLE_LIGAND;
          } else if (linked) {
            role = SP_ROLE_POLYMER;
          } else if (!R->all_hetatm && chain_in_seqres(s, C->auth_asym_id) && entity_has_comp(s, -1, R->comp_id)) {
            role = SP_ROLE_POLYMER;
          } else if (!R->all_hetatm && !any_seqres && sp_list_is_standard_residue(R->comp_id) && C->n_residues > 1) {
            role = SP_ROLE_POLYMER;
          } else {
            role = SP_ROLE_LIGAND;
          }
        }
        out->res_role[ri] = role;
        cand[ri] = role == SP_ROLE_LIGAND;
      }
    }
    /* 2. peptides: short polypeptide chains beside a receptor chain of > PEPTIDE_MAX_RES residues */
    size_t longest = 0;
    for (uint32_t ci = M->first_chain; ci < M->first_chain + M->n_chains && ci < s->n_chains; ci++) {
      const sp_chain *C = &s->chains[ci];
      size_t np = 0;
      for (uint32_t ri = C->first_residue; ri < C->first_residue + C->n_residues && ri < nr; ri++)
        np += out->res_role[ri] == SP_ROLE_POLYMER;
      if (np > longest) longest = np;
    }
    if (longest > PEPTIDE_MAX_RES)
      for (uint32_t ci = M->first_chain; ci < M->first_chain + M->n_chains && ci < s->n_chains; ci++) {
        const sp_chain *C = &s->chains[ci];
        size_t np = 0, naa = 0;
        for (uint32_t ri = C->first_residue; ri < C->first_residue + C->n_residues && ri < nr; ri++)
          if (out->res_role[ri] == SP_ROLE_POLYMER) {
            np++;
            const char *id = s->residues[ri].comp_id;
            naa += sp_list_is_amino_acid(id) || (res_atom(s, alt, ri, "CA") >= 0 && res_atom(s, alt, ri, "N") >= 0);
          }
        uint8_t pt = C->entity >= 0 && (size_t)C->entity < s->n_entities ? s->entities[C->entity].poly_type : SP_POLY_NONE;
        bool is_pep = pt == SP_POLY_PEPTIDE_L || pt == SP_POLY_PEPTIDE_D ||
                      (pt == SP_POLY_NONE && naa * 2 > np);
        if (np == 0 || np > PEPTIDE_MAX_RES || !is_pep) continue;
        peptide_chain[ci] = 1;
        uint32_t first = UINT32_MAX;
        for (uint32_t ri = C->first_residue; ri < C->first_residue + C->n_residues && ri < nr; ri++)
          if (out->res_role[ri] == SP_ROLE_POLYMER) {
            out->res_role[ri] = SP_ROLE_LIGAND;
            if (first == UINT32_MAX) first = ri;
            else uf_union(uf, first, ri);
          }
      }
    /* 3. branched entities: one instance per chain */
    for (uint32_t ci = M->first_chain; ci < M->first_chain + M->n_chains && ci < s->n_chains; ci++) {
      const sp_chain *C = &s->chains[ci];
      uint32_t first = UINT32_MAX;
      for (uint32_t ri = C->first_residue; ri < C->first_residue + C->n_residues && ri < nr; ri++)
        if (cand[ri] && s->residues[ri].entity_type == SP_ENT_BRANCHED) {
          if (first == UINT32_MAX) first = ri;
          else uf_union(uf, first, ri);
        }
    }
    /* 4. connections */
    for (size_t k = 0; k < s->n_conns; k++) {
      const sp_conn *cn = &s->conns[k];
      if (cn->type != SP_CONN_COVALE && cn->type != SP_CONN_METALC) continue;
      int64_t a = resolve_end(s, (uint32_t)m, &cn->a), b = resolve_end(s, (uint32_t)m, &cn->b);
      if (a < 0 || b < 0 || (size_t)a >= s->n_atoms || (size_t)b >= s->n_atoms) continue;
      uint32_t ra = s->atom_residue[a], rb = s->atom_residue[b];
      if (ra == rb) continue;
      bool la = out->res_role[ra] == SP_ROLE_LIGAND, lb = out->res_role[rb] == SP_ROLE_LIGAND;
      bool pa = peptide_chain[s->residues[ra].chain] != 0, pb = peptide_chain[s->residues[rb].chain] != 0;
      if (cn->type == SP_CONN_METALC) {
        if (la) flag_metal[ra] = 1;
        if (lb) flag_metal[rb] = 1;
        continue;
      }
      if (cand[ra] && cand[rb]) {
        uf_union(uf, ra, rb);
        link *lp = gb_push(&lk);
        if (!lp) goto nomem;
        lp->a = a;
        lp->b = b;
      } else if (cand[ra] && (out->res_role[rb] == SP_ROLE_POLYMER || pb)) {
        flag_cov[ra] = 1;
        if (attach[ra] < 0) attach[ra] = b;
      } else if (cand[rb] && (out->res_role[ra] == SP_ROLE_POLYMER || pa)) {
        flag_cov[rb] = 1;
        if (attach[rb] < 0) attach[rb] = a;
      }
    }
    /* peptide bonds inside peptide chains are links of their instance graph */
    for (uint32_t ci = M->first_chain; ci < M->first_chain + M->n_chains && ci < s->n_chains; ci++) {
      if (!peptide_chain[ci]) continue;
      const sp_chain *C = &s->chains[ci];
      for (uint32_t ri = C->first_residue; ri + 1 < C->first_residue + C->n_residues && ri + 1 < nr; ri++) {
        int64_t a, b;
        if (!cand[ri] && out->res_role[ri] == SP_ROLE_LIGAND && !cand[ri + 1] &&
            out->res_role[ri + 1] == SP_ROLE_LIGAND && polymer_linked(s, alt, ri, ri + 1, &a, &b)) {
          link *lp = gb_push(&lk);
          if (!lp) goto nomem;
          lp->a = a;
          lp->b = b;
        }
      }
    }
  }

  /* 5. instances, in residue (file) order of their first residue */
  links = lk.p;
  n_links = lk.n;
  ll = malloc((n_links ? n_links : 1) * sizeof *ll);
  tmp_atoms = malloc((s->n_atoms ? s->n_atoms : 1) * sizeof *tmp_atoms);
  bucket_ptr = calloc(nr + 1, sizeof *bucket_ptr);
  bucket = malloc((nr ? nr : 1) * sizeof *bucket);
  if (!ll || !tmp_atoms || !bucket_ptr || !bucket) goto nomem;
  /* residues of each instance, grouped by root (= the instance's smallest residue index) */
  for (size_t q = 0; q < nr; q++)
    if (out->res_role[q] == SP_ROLE_LIGAND) bucket_ptr[uf_find(uf, (uint32_t)q) + 1]++;
  for (size_t q = 0; q < nr; q++) bucket_ptr[q + 1] += bucket_ptr[q];
  {
    uint32_t *fill = malloc((nr ? nr : 1) * sizeof *fill);
    if (!fill) goto nomem;
    memcpy(fill, bucket_ptr, nr * sizeof *fill);
    for (size_t q = 0; q < nr; q++)
      if (out->res_role[q] == SP_ROLE_LIGAND) bucket[fill[uf_find(uf, (uint32_t)q)]++] = (uint32_t)q;
    free(fill);
  }
  for (size_t r = 0; r < nr; r++) {
    if (out->res_role[r] != SP_ROLE_LIGAND || uf_find(uf, (uint32_t)r) != r) continue;
    /* r is the first residue (smallest index) of its instance */
    size_t n_res = bucket_ptr[r + 1] - bucket_ptr[r];
    order = bucket + bucket_ptr[r];
    sp_ligand *L = gb_push(&ligs);
    if (!L) goto nomem;
    memset(L, 0, sizeof *L);
    size_t lig_idx = ligs.n - 1;
    const sp_residue *R0 = &s->residues[r];
    L->model = s->chains[R0->chain].model;
    L->res_first = (uint32_t)rrefs.n;
    L->n_res = (uint32_t)n_res;
    L->atom_first = (uint32_t)arefs.n;
    L->attach_atom = -1;
    bool is_peptide = peptide_chain[R0->chain] && !cand[r];
    bool all_usable = true, any_not_in_ccd = false, any_unknown = false, all_sugar = true, any_cofactor = false;
    int32_t ccd_heavy = 0;
    size_t na = 0;
    for (size_t i = 0; i < n_res; i++) {
      uint32_t q = order[i];
      uint32_t *rp = gb_push(&rrefs);
      if (!rp) goto nomem;
      *rp = q;
      out->res_ligand[q] = (int32_t)lig_idx;
      const sp_residue *R = &s->residues[q];
      comp_info *ci = get_comp(&c, R->comp_id);
      if (!ci) goto nomem;
      if (ci->first_res < 0) ci->first_res = q;
      if (!ci->in_ccd) any_not_in_ccd = true;
      if (!ci->usable) all_usable = false;
      if (sp_list_is_reserved(R->comp_id) || (ci->in_ccd && !ci->usable)) any_unknown = true;
      if (!(ci->saccharide || sp_list_is_sugar(R->comp_id))) all_sugar = false;
      if (sp_list_is_cofactor(R->comp_id)) any_cofactor = true;
      if (ci->usable && ccd_heavy >= 0) ccd_heavy += ci->n_heavy_nonleaving;
      else ccd_heavy = -1;
      if (flag_cov[q]) {
        L->flags |= SP_LIG_COVALENT;
        if (L->attach_atom < 0) L->attach_atom = attach[q];
      }
      if (flag_metal[q]) L->flags |= SP_LIG_METAL_BOUND;
      for (uint32_t k = R->first_atom; k < R->first_atom + R->n_atoms; k++) {
        if (s->altloc[k]) L->flags |= SP_LIG_ALTLOC;
        if (s->altloc[k] && s->altloc[k] != alt[q]) continue;
        if (s->altloc[k] && !L->altloc) L->altloc = s->altloc[k];
        uint32_t *ap = gb_push(&arefs);
        if (!ap) goto nomem;
        *ap = k;
        tmp_atoms[na++] = k;
        L->n_atoms++;
        if (s->element[k] != 1) L->n_heavy++;
        if (!(s->occupancy[k] > 0.0f)) L->flags |= SP_LIG_ZERO_OCC;
      }
    }
    if (n_res > 1) L->flags |= SP_LIG_MULTI_RESIDUE;
    if (any_not_in_ccd) L->flags |= SP_LIG_NOT_IN_CCD;
    L->n_ccd_heavy = ccd_heavy;
    if (ccd_heavy >= 0 && (int32_t)L->n_heavy < ccd_heavy) L->flags |= SP_LIG_INCOMPLETE;
    /* class (order of the rules: docs/ligands.md) */
    comp_info *c0 = get_comp(&c, R0->comp_id);
    if (!c0) goto nomem;
    bool branched = R0->entity_type == SP_ENT_BRANCHED;
    if (is_peptide) L->cls = SP_CLASS_PEPTIDE;
    else if (any_unknown) L->cls = SP_CLASS_UNKNOWN;
    else if (branched || all_sugar) L->cls = SP_CLASS_GLYCAN;
    else if (n_res == 1 && ((c0->usable && c0->def && sp_component_heavy_atoms(c0->def) == 1) ||
                            (!c0->usable && L->n_heavy == 1) || sp_list_is_polyatomic_ion(R0->comp_id)))
      L->cls = SP_CLASS_ION;
    else if (any_cofactor) L->cls = SP_CLASS_COFACTOR;
    else if (n_res == 1 && sp_list_is_artifact(R0->comp_id)) L->cls = SP_CLASS_ARTIFACT;
    else L->cls = SP_CLASS_SMALL_MOLECULE;
    for (size_t i = 0; i < n_res; i++)
      if (L->cls == SP_CLASS_ION) out->res_role[order[i]] = SP_ROLE_ION;
    /* molecule key */
    size_t nl = 0; /* links of this instance */
    for (size_t k = 0; k < n_links; k++) {
      uint32_t ra = s->atom_residue[links[k].a], rb = s->atom_residue[links[k].b];
      if (out->res_role[ra] != SP_ROLE_OTHER && uf_find(uf, ra) == r && uf_find(uf, rb) == r &&
          s->chains[s->residues[ra].chain].model == L->model)
        ll[nl++] = links[k];
    }
    sp_err kerr = {0};
    c.err = &kerr;
    int krc = 0;
    if (n_res == 1 && c0->usable) {
      krc = sp_molkey_component(c0->def, false, L->molecule_key, &kerr);
      strcpy(L->key_source, "ccd");
    } else if (n_res > 1 && all_usable) {
      krc = key_from_definitions(&c, alt, order, n_res, ll, nl, L->molecule_key);
      strcpy(L->key_source, "ccd");
    } else if (n_res == 1 && c0->has_file_bonds) {
      int32_t def_heavy = -1;
      krc = key_from_file_bonds(&c, R0->comp_id, (uint32_t)r, alt, L->molecule_key, &def_heavy);
      strcpy(L->key_source, "file");
      /* the file's own definition gives the heavy-atom count of a lone, unlinked residue
       * (leaving atoms are not marked in _chem_comp_bond, so not for linked ones) */
      if (krc == 0 && def_heavy > 0) c0->file_heavy = def_heavy;
      if (krc == 0 && !(L->flags & SP_LIG_COVALENT) && def_heavy > 0) {
        L->n_ccd_heavy = def_heavy;
        if ((int32_t)L->n_heavy < def_heavy) L->flags |= SP_LIG_INCOMPLETE;
      }
    } else if (na > 0) {
      bool used_distance = false;
      krc = key_from_observed(&c, tmp_atoms, na, order, n_res, ll, nl, L->molecule_key, &used_distance);
      strcpy(L->key_source, used_distance ? "distance" : "file");
    } else {
      strcpy(L->key_source, "none");
    }
    c.err = err;
    if (krc == SP_E_NOMEM) goto nomem;
    if (krc) {
      L->molecule_key[0] = '\0';
      strcpy(L->key_source, "none");
    }
    if (n_res == 1 && !c0->key_done && !c0->usable) {
      /* the component row of a comp without usable definition takes its first instance's key */
      memcpy(c0->key, L->molecule_key, SP_KEY_LEN);
      snprintf(c0->key_source, sizeof c0->key_source, "%s", L->key_source);
      c0->key_done = true;
    }
  }

  /* 6. component rows, sorted by comp_id */
  out->comps = calloc(c.n_comps ? c.n_comps : 1, sizeof *out->comps);
  if (!out->comps) goto nomem;
  for (size_t i = 0; i < c.n_comps; i++) {
    comp_info *ci = &c.comps[i];
    sp_component_row *row = &out->comps[i].row;
    snprintf(row->comp_id, sizeof row->comp_id, "%s", ci->id);
    row->in_ccd = ci->in_ccd;
    row->n_heavy_atoms = -1;
    if (ci->def) {
      snprintf(row->formula, sizeof row->formula, "%s", ci->def->formula);
      snprintf(row->name, sizeof row->name, "%.79s", ci->def->name);
      snprintf(row->type, sizeof row->type, "%s", ci->def->type);
      if (ci->def->n_atoms) row->n_heavy_atoms = (int32_t)sp_component_heavy_atoms(ci->def);
    } else {
      for (size_t k = 0; k < s->n_file_comps; k++)
        if (!strcmp(s->file_comps[k].id, ci->id)) snprintf(row->type, sizeof row->type, "%s", s->file_comps[k].type);
    }
    if (ci->usable) {
      sp_err kerr = {0};
      if (sp_molkey_component(ci->def, false, row->molecule_key, &kerr) == 0) strcpy(row->key_source, "ccd");
      else strcpy(row->key_source, "none");
    } else if (ci->has_file_bonds && !ci->key_done && ci->first_res >= 0) {
      sp_err kerr = {0};
      c.err = &kerr;
      int32_t def_heavy = -1;
      int krc = key_from_file_bonds(&c, ci->id, (uint32_t)ci->first_res, alt, row->molecule_key, &def_heavy);
      if (krc == 0 && def_heavy > 0) row->n_heavy_atoms = def_heavy;
      c.err = err;
      if (krc == SP_E_NOMEM) goto nomem;
      strcpy(row->key_source, krc ? "none" : "file");
    } else if (ci->key_done) {
      memcpy(row->molecule_key, ci->key, SP_KEY_LEN);
      if (!ci->def) row->n_heavy_atoms = ci->file_heavy;
      snprintf(row->key_source, sizeof row->key_source, "%s", ci->key_source);
    } else {
      strcpy(row->key_source, "none");
    }
  }
  out->n_comps = c.n_comps;
  for (size_t i = 1; i < out->n_comps; i++) /* insertion sort: few rows */
    for (size_t j = i; j > 0 && strcmp(out->comps[j - 1].row.comp_id, out->comps[j].row.comp_id) > 0; j--) {
      sp_survey_comp t = out->comps[j];
      out->comps[j] = out->comps[j - 1];
      out->comps[j - 1] = t;
    }
  out->ligands = ligs.p;
  out->n_ligands = ligs.n;
  out->res_refs = rrefs.p;
  out->atom_refs = arefs.p;
  ligs.p = rrefs.p = arefs.p = NULL;
  goto done;
nomem:
  rc = sp_err_set(err, SP_E_NOMEM, "survey: out of memory (%zu residues)", nr);
  free(ligs.p);
  free(rrefs.p);
  free(arefs.p);
  sp_survey_free(out);
done:
  free(uf);
  free(cand);
  free(flag_cov);
  free(flag_metal);
  free(attach);
  free(peptide_chain);
  free(lk.p);
  free(ll);
  free(bucket_ptr);
  free(bucket);
  free(tmp_atoms);
  free(c.comps);
  return rc;
}

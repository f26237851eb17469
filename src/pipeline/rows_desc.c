/* RDKit's descriptors of a ligand instance (pipeline_internal.h; descriptors.h, issue 36): the molecule of its
 * SDF record as `sitepack export` writes it (src/derive/export_sdf.c, docs/format.md "Export files"), built
 * from the rows of the site just written: its ligand atoms (hydrogens where the file has them), the /bonds
 * rows inside the ligand but those to metals, the SD bond type of each (order 1-3, 4 aromatic, unknown as
 * single), the formal charge of each atom (the CCD atom's when matched, else the file's), completed by the
 * export's metal-bond rule and valence rule, restated here on the rows (tests/peer/test_descriptors_rdkit.py
 * checks the values against RDKit's of the exported SDF, so the two cannot drift apart unseen). */
#include <stdlib.h>
#include <string.h>

#include "pipeline_internal.h"
#include "sitepack/descriptors.h"
#include "sitepack/elements.h"

typedef struct lig_graph {
  size_t nl, nb;
  uint8_t *el, *order, *arom;
  int8_t *chg;
  int *val, *deg, *dq;
  uint32_t *ab;
  size_t n_metal;
  uint32_t *metal;   /* [2 * n_metal] the metal bonds inside the ligand */
} lig_graph;

static void graph_free(lig_graph *g) {
  free(g->el), free(g->order), free(g->arom), free(g->chg), free(g->val), free(g->deg), free(g->dq);
  free(g->ab), free(g->metal);
}

/* Valence of a neutral atom for the metal-bond rule (export_sdf.c neutral_valence). */
static int neutral_valence(uint8_t z) {
  switch (z) {
    case 6: return 4;
    case 7: case 15: return 3;
    case 8: case 16: case 34: return 2;
    default: return 0;
  }
}

static int graph_alloc(lig_graph *g, size_t nl, size_t nb) {
  size_t n = nl ? nl : 1, m = nb ? nb : 1;
  g->nl = nl;
  g->el = calloc(n, 1), g->arom = calloc(n, 1), g->chg = calloc(n, 1);
  g->val = calloc(n, sizeof(int)), g->deg = calloc(n, sizeof(int)), g->dq = calloc(n, sizeof(int));
  g->order = calloc(m, 1), g->ab = calloc(2 * m, sizeof(uint32_t)), g->metal = calloc(2 * m, sizeof(uint32_t));
  return g->el && g->arom && g->chg && g->val && g->deg && g->dq && g->order && g->ab && g->metal ? 0 : SP_E_NOMEM;
}

/* Atoms and bonds of the site's ligand from its rows: @p ar its first nl atom rows, @p br its nb bond rows. */
static void graph_fill(lig_graph *g, const sp_atom_row *ar, const sp_bond_row *br, size_t nb) {
  for (size_t k = 0; k < g->nl; k++) {
    g->el[k] = ar[k].element;
    g->chg[k] = (ar[k].ccd_atom & SP_CCD_ATOM_MATCHED) ? ar[k].ccd_charge : ar[k].charge;
  }
  for (size_t k = 0; k < nb; k++) {
    uint32_t a = (uint32_t)br[k].atom1, b = (uint32_t)br[k].atom2;
    if (b >= g->nl || a >= g->nl) continue;
    if (sp_element_is_metal(g->el[a]) || sp_element_is_metal(g->el[b])) {
      g->metal[2 * g->n_metal] = a, g->metal[2 * g->n_metal + 1] = b, g->n_metal++;
      continue;
    }
    uint8_t t = br[k].order >= 1 && br[k].order <= 4 ? br[k].order : 1;
    g->ab[2 * g->nb] = a, g->ab[2 * g->nb + 1] = b, g->order[g->nb++] = t;
    for (int e = 0; e < 2; e++) {
      uint32_t x = e ? b : a;
      g->deg[x]++;
      g->val[x] += t == 4 ? 1 : t;
      if (t == 4) g->arom[x] = 1;
    }
  }
}

/* The metal-bond rule of export_sdf.c metal_charges: X whose metal bond completed its neutral valence takes -1,
 * the metal +1. */
static void metal_charges(lig_graph *g) {
  for (size_t m = 0; m < g->n_metal; m++) {
    uint32_t a = g->metal[2 * m], b = g->metal[2 * m + 1];
    uint32_t metal = sp_element_is_metal(g->el[a]) ? a : b, other = metal == a ? b : a;
    int nv = neutral_valence(g->el[other]);
    if (!nv || g->chg[other] + g->dq[other] != 0 || sp_element_is_metal(g->el[other])) continue;
    if (g->val[other] + 1 <= nv) g->dq[other] -= 1, g->dq[metal] += 1;
  }
}

static int charge_open(const lig_graph *g, const sp_atom_row *ar, uint32_t k) {
  return !(ar[k].ccd_atom & SP_CCD_ATOM_MATCHED) && g->chg[k] + g->dq[k] == 0;
}

/* The valence rule of export_sdf.c valence_charges: an uncharged N without CCD charge at valence 4, none
 * aromatic, is N+; its terminal singly bonded O (or doubly bonded N) partner without CCD charge is then -1. */
static void valence_charges(lig_graph *g, const sp_atom_row *ar) {
  for (uint32_t k = 0; k < g->nl; k++) {
    if (g->el[k] != 7 || !charge_open(g, ar, k) || g->val[k] != 4 || g->arom[k]) continue;
    g->dq[k] += 1;
    for (size_t b = 0; b < g->nb; b++) {
      uint32_t x = g->ab[2 * b], y = g->ab[2 * b + 1], o = x == k ? y : y == k ? x : UINT32_MAX;
      if (o == UINT32_MAX || g->deg[o] != 1 || !charge_open(g, ar, o)) continue;
      if (!((g->el[o] == 8 && g->order[b] == 1) || (g->el[o] == 7 && g->order[b] == 2))) continue;
      g->dq[o] -= 1;
    }
  }
}

int sp_pl_fill_ligand_desc(sp_result *out, sp_ligand_row *lr, sp_err *err) {
  sp_desc_clear(&lr->desc);
  const sp_site_row *row = &out->sites[out->n_sites - 1];
  size_t nl = (size_t)row->n_ligand, nb = (size_t)row->n_bonds;
  /* the site's rows, the last of their tables (NULL when a table is still empty: no pointer arithmetic on NULL) */
  const sp_atom_row *ar = row->n_atoms > 0 ? &out->atoms[out->n_atoms - (size_t)row->n_atoms] : NULL;
  const sp_bond_row *br = nb ? &out->bonds[out->n_bonds - nb] : NULL;
  lig_graph g;
  memset(&g, 0, sizeof g);
  int rc = graph_alloc(&g, nl, nb);
  if (!rc) {
    graph_fill(&g, ar, br, nb);
    metal_charges(&g);
    valence_charges(&g, ar);
    for (size_t k = 0; k < nl; k++) g.chg[k] = (int8_t)(g.chg[k] + g.dq[k]);
    rc = sp_desc_from_graph(nl, g.el, g.chg, g.nb, g.ab, g.order, &lr->desc);
  }
  graph_free(&g);
  if (rc == SP_E_NOMEM) return sp_err_set(err, SP_E_NOMEM, "out of memory (ligand descriptors)");
  return 0; /* not sanitized by RDKit: the row says so (desc_flags 0) */
}

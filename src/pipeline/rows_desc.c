/* RDKit's descriptors of a ligand instance (pipeline_internal.h; descriptors.h, issue 36): the molecule of its
 * SDF record as `sitepack export` writes it (src/derive/export_sdf.c, docs/format.md "Export files"), built
 * from the rows of the site just written: its ligand atoms (hydrogens where the file has them), the /bonds
 * rows inside the ligand but those to metals, the SD bond type of each (order 1-3, 4 aromatic, unknown as
 * single), the formal charge of each atom its /atoms/formal_charge row (set by sp_pl_fill_site_bonds with the
 * export's own function, valence.h sp_ligand_charges: the CCD's or the file's charge, the metal-bond and valence
 * rules; tests/peer/test_descriptors_rdkit.py checks the values against RDKit's of the exported SDF), less the
 * hydrogens the export leaves out on linked atoms (the link-hydrogen rule, SD field link_hydrogens). A molecule
 * with a bond of unknown order (order 0: a distance bond, bonds.h) has its values of that bond read as single, as
 * the SDF has it, and the row says so (desc_flags bit unknown_orders, version 7; issue 37). */
#include <stdlib.h>
#include <string.h>

#include "pipeline_internal.h"
#include "sitepack/descriptors.h"
#include "sitepack/elements.h"

typedef struct lig_graph {
  size_t nl, nb;
  uint8_t *el, *order;
  int8_t *chg;
  int *map; /* map: ligand atom -> graph atom, -1 for an H the export leaves out */
  uint32_t *ab;
} lig_graph;

static void graph_free(lig_graph *g) { free(g->el), free(g->order), free(g->chg), free(g->map), free(g->ab); }

static int graph_alloc(lig_graph *g, size_t nl, size_t nb) {
  size_t n = nl ? nl : 1, m = nb ? nb : 1;
  g->nl = nl;
  g->el = calloc(n, 1), g->chg = calloc(n, 1), g->map = calloc(n, sizeof(int));
  g->order = calloc(m, 1), g->ab = calloc(2 * m, sizeof(uint32_t));
  return g->el && g->chg && g->map && g->order && g->ab ? 0 : SP_E_NOMEM;
}

/* Atoms and bonds of the site's ligand from its rows: @p ar its first nl atom rows, @p br its nb bond rows; the
 * hydrogens the link-hydrogen rule left out (@p own[k] >= 0, valence.h sp_lig_charges; NULL: none) and their
 * bonds are not in the graph, as they are not in the SDF record. Returns 1 when some bond of the graph has order 0
 * (unknown, a distance bond: single in the graph, as in the SDF record), else 0. */
static int graph_fill(lig_graph *g, const sp_atom_row *ar, const sp_bond_row *br, size_t nb, const int32_t *own) {
  size_t nl = g->nl, n = 0;
  int unknown = 0;
  for (size_t k = 0; k < nl; k++) {
    g->map[k] = own && own[k] >= 0 ? -1 : (int)n;
    if (g->map[k] < 0) continue;
    g->el[n] = ar[k].element;
    g->chg[n++] = ar[k].formal_charge;
  }
  for (size_t k = 0; k < nb; k++) {
    uint32_t a0 = (uint32_t)br[k].atom1, b0 = (uint32_t)br[k].atom2;
    if (b0 >= nl || a0 >= nl || g->map[a0] < 0 || g->map[b0] < 0) continue;
    uint32_t a = (uint32_t)g->map[a0], b = (uint32_t)g->map[b0];
    if (sp_element_is_metal(g->el[a]) || sp_element_is_metal(g->el[b])) continue; /* left out, as in the SDF */
    g->ab[2 * g->nb] = a, g->ab[2 * g->nb + 1] = b;
    g->order[g->nb++] = br[k].order >= 1 && br[k].order <= 4 ? br[k].order : 1;
    unknown |= br[k].order == 0;
  }
  g->nl = n;
  return unknown;
}

int sp_pl_fill_ligand_desc(sp_result *out, const sp_lig_charges *fq, sp_ligand_row *lr, sp_err *err) {
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
    int unknown = graph_fill(&g, ar, br, nb, fq && nl ? fq->own : NULL);
    rc = sp_desc_from_graph(g.nl, g.el, g.chg, g.nb, g.ab, g.order, &lr->desc);
    if (!rc && unknown && (lr->desc.flags & SP_DESCF_COMPUTED)) lr->desc.flags |= SP_DESCF_UNKNOWN_ORDERS;
  }
  graph_free(&g);
  if (rc == SP_E_NOMEM) return sp_err_set(err, SP_E_NOMEM, "out of memory (ligand descriptors)");
  return 0; /* not sanitized by RDKit: the row says so (desc_flags 0) */
}

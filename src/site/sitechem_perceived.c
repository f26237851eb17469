/* Site chemistry of ligand residues without a CCD block or bond table (issue 37 item 2): the orders and
 * charges perceived from their coordinates (bonds.h SP_BOND_SRC_PERCEIVED, perceive.h) replace the
 * distance graph's bond-length orders, and their rings are aromatic by those orders (Hückel's 4n + 2 over the
 * ring's atoms) instead of by planarity alone (docs/sites.md "aromatic rings"). */
#include "sitechem_internal.h"

/* The order of the bond between nodes a and b in the node lists (added if the distance graph lacks it). */
static void set_order(lnode *ln, int32_t a, int32_t b, uint8_t ord) {
  for (int e = 0; e < 2; e++) {
    lnode *n = &ln[e ? b : a];
    int32_t o = e ? a : b;
    int k = 0;
    while (k < n->deg && n->nb[k] != o) k++;
    if (k == n->deg) {
      if (n->deg >= MAXNB) continue;
      n->nb[n->deg++] = o;
    }
    n->ord[k] = ord;
  }
}

int sp_chem_perceived(ctx *c, sp_ccd *ccd) {
  sp_chem_ws *w = c->w;
  if (!c->bonds) { /* not given (sp_chem_opts.bonds): made here, and kept for sp_chem_covalent */
    int rc = sp_ligand_bonds(c->s, c->sv, c->lig, c->site, ccd, &w->bonds, c->err);
    if (rc) return rc;
    c->bonds = &w->bonds;
  }
  const sp_bond_list *B = c->bonds;
  for (size_t q = 0; q < B->n; q++) {
    const sp_bond *b = &B->bonds[q];
    if (b->source != SP_BOND_SRC_PERCEIVED || b->b >= c->site->n_ligand) continue;
    int32_t ia = w->lmap[b->a], ib = w->lmap[b->b];
    if (ia >= 0 && ib >= 0) set_order(w->ln, ia, ib, b->order);
  }
  for (size_t k = 0; k < c->site->n_ligand && k < B->n_atoms; k++) {
    int32_t i = w->lmap[k];
    if (i < 0 || !(B->ccd_atom[k] & SP_CCD_ATOM_PERCEIVED)) continue;
    w->ln[i].perceived = 1;
    w->ln[i].fcharge = B->ccd_charge[k];
  }
  return 0;
}

/* pi electrons of perceived node i in a ring: 1 with a double bond (to any neighbour but a terminal O / S:
 * an exocyclic C=O gives 0, as in 2-pyridone), 2 for an N, O or S with a lone pair (no double bond, at most 3
 * bonds), -1 for an atom that cannot be aromatic (an sp3 C). */
static int pi_electrons(const lnode *ln, int32_t i) {
  const lnode *n = &ln[i];
  int dbl = 0, exo_o = 0;
  for (int k = 0; k < n->deg; k++) {
    if (n->ord[k] != 2 && n->ord[k] != 4) continue;
    const lnode *o = &ln[n->nb[k]];
    if ((o->el == 8 || o->el == 16) && o->deg == 1) exo_o = 1;
    else dbl = 1;
  }
  if (dbl) return 1;
  if (exo_o) return 0;
  if ((n->el == 7 || n->el == 8 || n->el == 16) && n->deg <= 3) return 2;
  return -1;
}

int sp_chem_ring_perceived_aromatic(const ctx *c, const ring *rg, int *is_perceived) {
  const sp_chem_ws *w = c->w;
  int e = 0;
  *is_perceived = 1;
  for (int i = 0; i < rg->n; i++) {
    int32_t k = w->lmap[rg->atoms[i]];
    if (k < 0 || !w->ln[k].perceived) {
      *is_perceived = 0;
      return 0;
    }
    int p = pi_electrons(w->ln, k);
    if (p < 0) return 0;
    e += p;
  }
  return e % 4 == 2;
}

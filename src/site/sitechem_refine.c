/* Site chemistry, PLIP's refinements of the raw interaction lists, as plip/structure/preparation.py
 * (PLInteraction, Debian's plip 2.2.2) does them: refine_hbonds_ldon / _pdon (no H-bond inside a salt
 * bridge, one H-bond per donor), refine_hydrophobic (no contact between stacked rings, one per ligand
 * atom and residue number, one per protein atom and patch of bonded ligand atoms) and refine_water_bridges
 * (no bridge from a donor that already H-bonds, one per water and acceptor, two per water). Where PLIP
 * compares D–H···A or omega angles and the file has no H, the substitute is named at each step; the
 * rows that lack an H-dependent criterion carry SP_IXF_NO_H. See docs/sites.md ("PLIP's refinements"). */
#include "site/sitechem_internal.h"

/* compact o->ix, dropping rows whose type was set to 0 */
static void compact(sp_site_chem *o) {
  size_t n = 0;
  for (size_t i = 0; i < o->n_ix; i++)
    if (o->ix[i].type) o->ix[n++] = o->ix[i];
  o->n_ix = n;
}

static int in_list(int32_t a, const int32_t *l, int n) {
  for (int i = 0; i < n; i++)
    if (l[i] == a) return 1;
  return 0;
}

/* the group of the site's groups whose head is @p head and whose side (ligand or not) is @p ligand */
static const sp_titr_group *group_of_head(const sp_site_chem *o, int32_t head, int ligand) {
  for (size_t g = 0; g < o->n_groups; g++)
    if (o->groups[g].head == head && o->groups[g].ligand == ligand) return &o->groups[g];
  return NULL;
}

/* a group that PLIP's typing charges too (preparation.py find_charged: ligand carboxylate, phosphate,
 * sulfonic acid / sulfate, guanidine, quaternary and tertiary amines; residues Arg, His, Lys, Asp, Glu): PLIP's
 * exclusion of the H-bonds inside a salt bridge can only have removed H-bonds of those; sitepack's other
 * charged groups (amidinium, primary / secondary ammonium, termini) keep their charge-assisted H-bonds, as
 * PLIP keeps them (1BJU GP6's amidinium N–H···Asp189) */
static int plip_charged(const ctx *c, const sp_titr_group *g) {
  switch (g->kind) {
    case SP_TG_L_CARBOXYL: case SP_TG_L_PHOSPHATE: case SP_TG_L_SULFONATE: case SP_TG_L_GUANIDINE: case SP_TG_L_QUAT:
    case SP_TG_ARG: case SP_TG_HIS: case SP_TG_LYS: case SP_TG_ASP: case SP_TG_GLU:
      return 1;
    case SP_TG_L_AMINE: {
      int32_t i = c->w->lmap[g->head];
      return i >= 0 && c->w->ln[i].deg == 3;
    }
    default:
      return 0;
  }
}

/* is H-bond @p h between the charged atoms of the two groups of a salt-bridge row (PLIP: "Do not allow
 * groups which already form salt bridges to form H-Bonds"), both groups charged by PLIP's typing too */
static int inside_salt_bridge(const ctx *c, const sp_interaction *h) {
  const sp_site_chem *o = c->out;
  for (size_t i = 0; i < o->n_ix; i++) {
    const sp_interaction *b = &o->ix[i];
    if (b->type != SP_IX_SALT_BRIDGE) continue;
    const sp_titr_group *L = group_of_head(o, b->lig_atom, 1), *P = group_of_head(o, b->site_atom, 0);
    if (L && P && plip_charged(c, L) && plip_charged(c, P) && in_list(h->lig_atom, L->atoms, L->n_atoms) &&
        in_list(h->site_atom, P->atoms, P->n_atoms))
      return 1;
  }
  return 0;
}

static int32_t donor_of(const sp_interaction *h) { return (h->flags & SP_IXF_LIG_DONOR) ? h->lig_atom : h->site_atom; }

/* PLIP's refine_hbonds_ldon / _pdon: an H-bond between the charged atoms of a salt bridge's two groups is
 * dropped; then each donor atom keeps one H-bond, the one with the larger D–H···A angle. Where both rows
 * have a placed H (angle2, the sp2 N–H of the polymer) that angle decides, as PLIP; otherwise (no H
 * position) the shorter D···A, ties the larger heavy-atom angle (the criterion of PLIP's RDKit port). */
void sp_chem_refine_hbonds(ctx *c) {
  sp_site_chem *o = c->out;
  for (size_t i = 0; i < o->n_ix; i++)
    if (o->ix[i].type == SP_IX_HBOND && inside_salt_bridge(c, &o->ix[i])) o->ix[i].type = 0;
  for (size_t i = 0; i < o->n_ix; i++) {
    sp_interaction *h = &o->ix[i];
    if (h->type != SP_IX_HBOND) continue;
    int32_t don = donor_of(h);
    for (size_t j = i + 1; j < o->n_ix; j++) {
      sp_interaction *g = &o->ix[j];
      if (g->type != SP_IX_HBOND || donor_of(g) != don) continue;
      int g_better;
      if (!isnan(h->angle2) && !isnan(g->angle2)) {
        g_better = g->angle2 > h->angle2;
      } else {
        float ah = isnan(h->angle) ? -1 : h->angle, ag = isnan(g->angle) ? -1 : g->angle;
        g_better = g->distance < h->distance || (g->distance == h->distance && ag > ah);
      }
      if (g_better) *h = *g; /* keep the better one in the earlier slot */
      g->type = 0;
    }
  }
  compact(o);
}

/* the ring of w->rings whose first atom is @p a0 on side @p ligand; NULL if none */
static const ring *ring_of(const sp_chem_ws *w, int32_t a0, int ligand) {
  for (size_t r = 0; r < w->n_rings; r++)
    if (w->rings[r].atoms[0] == a0 && w->rings[r].ligand == ligand) return &w->rings[r];
  return NULL;
}

static int in_ring(const ring *R, int32_t a) {
  for (int i = 0; i < R->n; i++)
    if (R->atoms[i] == a) return 1;
  return 0;
}

/* rule 1: no hydrophobic contact between the atoms of two rings that pi-stack */
static void hydrophobic_stacked(ctx *c) {
  sp_site_chem *o = c->out;
  for (size_t p = 0; p < o->n_ix; p++) {
    const sp_interaction *s = &o->ix[p];
    if (s->type != SP_IX_PI_STACK_P && s->type != SP_IX_PI_STACK_T) continue;
    const ring *L = ring_of(c->w, s->lig_atom, 1), *P = ring_of(c->w, s->site_atom, 0);
    if (!L || !P) continue;
    for (size_t i = 0; i < o->n_ix; i++)
      if (o->ix[i].type == SP_IX_HYDROPHOBIC && in_ring(L, o->ix[i].lig_atom) && in_ring(P, o->ix[i].site_atom))
        o->ix[i].type = 0;
  }
  compact(o);
}

static int resnr(const ctx *c, int32_t k) {
  return c->s->residues[c->site->res[c->site->atom_res[k]].residue].auth_seq_id;
}

/* rule 2: a ligand atom touching several atoms of one residue number keeps the closest (PLIP keys on the
 * residue number alone, h.resnr: residues of two chains with the same number count as one) */
static void hydrophobic_per_residue(ctx *c) {
  sp_site_chem *o = c->out;
  for (size_t i = 0; i < o->n_ix; i++) {
    sp_interaction *h = &o->ix[i];
    if (h->type != SP_IX_HYDROPHOBIC) continue;
    int rn = resnr(c, h->site_atom);
    for (size_t j = i + 1; j < o->n_ix; j++) {
      sp_interaction *g = &o->ix[j];
      if (g->type != SP_IX_HYDROPHOBIC || g->lig_atom != h->lig_atom || resnr(c, g->site_atom) != rn) continue;
      if (h->distance > g->distance) *h = *g;
      g->type = 0;
    }
  }
  compact(o);
}

/* are ligand site atoms a and b bonded in the ligand graph */
static int lig_bonded(const ctx *c, int32_t a, int32_t b) {
  int32_t i = c->w->lmap[a], j = c->w->lmap[b];
  if (i < 0 || j < 0) return 0;
  const lnode *n = &c->w->ln[i];
  for (int k = 0; k < n->deg; k++)
    if (n->nb[k] == j) return 1;
  return 0;
}

/* rule 3: a protein atom touching several ligand atoms keeps, per patch of them connected by ligand
 * bonds, the closest contact. As PLIP's code: a contact whose ligand atom has no bonded neighbour among
 * the others of that protein atom belongs to no patch and is dropped (a protein atom with exactly one
 * contact keeps it). @p mem: scratch of 2 * o->n_ix entries (the rows of one protein atom, their patch). */
static void hydrophobic_patches(ctx *c, int32_t *mem) {
  sp_site_chem *o = c->out;
  size_t n = o->n_ix;
  int32_t *row = mem, *lab = mem + n;
  uint8_t *done = (uint8_t *)(mem + 2 * n);
  memset(done, 0, n);
  for (size_t i = 0; i < n; i++) {
    if (o->ix[i].type != SP_IX_HYDROPHOBIC || done[i]) continue;
    size_t m = 0;
    for (size_t j = i; j < n; j++)
      if (o->ix[j].type == SP_IX_HYDROPHOBIC && o->ix[j].site_atom == o->ix[i].site_atom) row[m++] = (int32_t)j, done[j] = 1;
    if (m == 1) continue;
    /* patches: label propagation over ligand bonds among the m rows; -1: no bonded neighbour */
    for (size_t x = 0; x < m; x++) {
      lab[x] = -1;
      for (size_t y = 0; y < m && lab[x] < 0; y++)
        if (y != x && lig_bonded(c, o->ix[row[x]].lig_atom, o->ix[row[y]].lig_atom)) lab[x] = (int32_t)x;
    }
    for (int changed = 1; changed;) {
      changed = 0;
      for (size_t x = 0; x < m; x++)
        for (size_t y = 0; y < m; y++)
          if (lab[x] >= 0 && lab[y] >= 0 && lab[y] < lab[x] && lig_bonded(c, o->ix[row[x]].lig_atom, o->ix[row[y]].lig_atom))
            lab[x] = lab[y], changed = 1;
    }
    /* the closest row of each patch stays (the first on ties); the others and the unpatched go */
    for (size_t x = 0; x < m; x++) {
      int keep = lab[x] >= 0;
      for (size_t y = 0; y < m && keep; y++)
        if (y != x && lab[y] == lab[x] &&
            (o->ix[row[y]].distance < o->ix[row[x]].distance || (o->ix[row[y]].distance == o->ix[row[x]].distance && y < x)))
          keep = 0;
      if (!keep) o->ix[row[x]].type = 0;
    }
  }
  compact(o);
}

int sp_chem_refine_hydrophobic(ctx *c) {
  hydrophobic_stacked(c);
  hydrophobic_per_residue(c);
  sp_chem_ws *w = c->w;
  if (SP_GROW(w->wb_keep, w->cap_wb_keep, 3 * c->out->n_ix + 1))
    return sp_err_set(c->err, SP_E_NOMEM, "site chemistry: out of memory");
  hydrophobic_patches(c, w->wb_keep);
  return 0;
}

/* PLIP's refine_water_bridges on the candidate bridges @p b[n] (in PLIP's order: ligand acceptors first),
 * writing the kept ones as rows: (1) a donor that already forms an H-bond forms no water bridge; (2) one
 * bridge per (water, acceptor): a later candidate replaces the kept one when the kept one's omega is
 * closer to 110° (PLIP's comparison, which keeps the one farther from 110°); (3) per water at most two,
 * by PLIP's own bookkeeping (the first two (water, acceptor) bridges, the second replaced by a later one
 * whose |110 - omega| exceeds the recorded value). omega: the acceptor–water–H angle with the donor's H;
 * without an H position (SP_IXF_NO_H rows) the donor atom stands in for the H. @p keep: scratch [n]. */
int sp_chem_refine_water_bridges(ctx *c, sp_wb_cand *b, size_t n, int32_t *keep) {
  const sp_site_chem *o = c->out;
  size_t nk = 0; /* (2): keep[] holds the kept candidate of each (water, acceptor), first-seen order */
  for (size_t i = 0; i < n; i++) {
    int hb = 0;
    for (size_t q = 0; q < o->n_ix && !hb; q++)
      hb = o->ix[q].type == SP_IX_HBOND && donor_of(&o->ix[q]) == b[i].donor;
    if (hb) continue;
    size_t k = 0;
    while (k < nk && !(b[keep[k]].ix.water_atom == b[i].ix.water_atom && b[keep[k]].acceptor == b[i].acceptor)) k++;
    if (k == nk) keep[nk++] = (int32_t)i;
    else if (fabsf(110.0f - b[keep[k]].omega) < fabsf(110.0f - b[i].omega)) keep[k] = (int32_t)i;
  }
  /* (3): per water, PLIP's list of at most two (value, bridge) */
  for (size_t k = 0; k < nk; k++) {
    sp_wb_cand *x = &b[keep[k]];
    x->slot = -1;
    int32_t wat = x->ix.water_atom;
    int first = -1, second = -1; /* earlier kept entries of this water (indices into keep) */
    for (size_t q = 0; q < k; q++)
      if (b[keep[q]].ix.water_atom == wat && b[keep[q]].slot >= 0) {
        if (b[keep[q]].slot == 0) first = (int)q;
        else second = (int)q;
      }
    float v = fabsf(110.0f - x->omega);
    if (first < 0) { x->slot = 0; x->value = v; continue; }
    if (second < 0) {
      /* PLIP appends and sorts by value: the smaller value first */
      if (v < b[keep[first]].value) { b[keep[first]].slot = 1; x->slot = 0; } else x->slot = 1;
      x->value = v;
      continue;
    }
    if (b[keep[second]].value < v) {
      b[keep[second]].slot = -1;
      x->slot = 1;
      x->value = x->omega; /* PLIP stores the raw angle here, not |110 - omega| */
    }
  }
  for (size_t k = 0; k < nk; k++)
    if (b[keep[k]].slot >= 0 && add_ix(c, &b[keep[k]].ix)) return SP_E_NOMEM;
  return 0;
}

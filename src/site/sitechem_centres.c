/* Site chemistry, interactions between centres: salt bridges (charge centres of groups of opposite
 * charge), pi-stacking (ring centres and normals) and pi-cation (ring centre and cation centre), with
 * PLIP's criteria. See sitechem.h (SP_IX_SALT_BRIDGE, SP_IX_PI_*) and docs/sites.md. */
#include "site/sitechem_internal.h"

/* PLIP's pi-stacking test of a ligand ring and a site ring: SP_IX_PI_STACK_P / _T, 0 when neither;
 * centre distance, angle between the normals (0..90) and offset through the pointers */
static int stack_type(const ring *L, const ring *P, float *d_out, float *ang_out, float *off_out) {
  float d = df(L->c, P->c);
  if (d <= SP_PLIP_MIN_DIST || d > SP_PLIP_PISTACK_DIST_MAX) return 0;
  float ang = vangle(L->nrm, P->nrm);
  if (ang > 90) ang = 180 - ang;
  float off = fminf(plane_offset(L->c, L->nrm, P->c), plane_offset(P->c, P->nrm, L->c));
  *d_out = d;
  *ang_out = ang;
  *off_out = off;
  if (ang <= SP_PLIP_PISTACK_ANG_DEV && off <= SP_PLIP_PISTACK_OFFSET_MAX) return SP_IX_PI_STACK_P;
  if (fabsf(90 - ang) <= SP_PLIP_PISTACK_ANG_DEV && off <= SP_PLIP_PISTACK_OFFSET_MAX) return SP_IX_PI_STACK_T;
  return 0;
}

/* PLIP's extra test for a ligand tertiary amine cation (detection.py pication, fgroup 'tertamine'): the
 * normal of the plane through the N's three heavy neighbours (the axis of its N–H+) must lie within 30°
 * of the ring normal, so that the cation faces the ring rather than reaching it "through" the ligand.
 * Returns 1 when @p G is not such an amine or the angle is within 30°. (PLIP then leaves the loop over
 * the charged groups of that ring, skipping the others: not reproduced.) */
static int amine_faces_ring(const ctx *c, const sp_titr_group *G, const ring *R) {
  if (!G->ligand || G->kind != SP_TG_L_AMINE) return 1;
  int32_t i = c->w->lmap[G->head];
  if (i < 0 || c->w->ln[i].deg != 3) return 1;
  const lnode *n = &c->w->ln[i];
  const float *p0 = X(c, c->w->nsite[n->nb[0]]), *p1 = X(c, c->w->nsite[n->nb[1]]), *p2 = X(c, c->w->nsite[n->nb[2]]);
  float u[3], v[3], m[3];
  for (int q = 0; q < 3; q++) u[q] = p1[q] - p0[q], v[q] = p0[q] - p2[q];
  m[0] = u[1] * v[2] - u[2] * v[1];
  m[1] = u[2] * v[0] - u[0] * v[2];
  m[2] = u[0] * v[1] - u[1] * v[0];
  float ang = vangle(R->nrm, m);
  if (isnan(ang)) return 1;
  if (ang > 90) ang = 180 - ang;
  return ang <= 30.0f;
}

/* does ligand ring @p R stack with a ring of the site residue that holds atom @p k */
static int stacks_with_residue(const ctx *c, const ring *R, int32_t k) {
  size_t rs = c->site->atom_res[k];
  for (size_t q = 0; q < c->w->n_rings; q++) {
    const ring *P = &c->w->rings[q];
    float d, ang, off;
    if (!P->ligand && c->site->atom_res[P->atoms[0]] == rs && stack_type(R, P, &d, &ang, &off)) return 1;
  }
  return 0;
}

/* ligand group – site group of opposite charge (a charge each can carry at the pH, group_sign),
 * centres within 5.5 Å */
int sp_chem_salt_bridges(ctx *c) {
  const sp_site_chem *o = c->out;
  for (size_t gi = 0; gi < o->n_groups; gi++) {
    const sp_titr_group *L = &o->groups[gi];
    if (!L->ligand) continue;
    for (size_t gj = 0; gj < o->n_groups; gj++) {
      const sp_titr_group *P = &o->groups[gj];
      if (P->ligand) continue;
      int lp = group_sign(L, +1) && group_sign(P, -1), ln_ = group_sign(L, -1) && group_sign(P, +1);
      if (!lp && !ln_) continue;
      float d = df(L->center, P->center);
      if (d <= SP_PLIP_MIN_DIST || d > SP_PLIP_SALTBRIDGE_DIST_MAX) continue;
      if (sp_chem_groups_excluded(c, L->atoms, L->n_atoms, P->atoms, P->n_atoms)) continue;
      sp_interaction ix = {0};
      ix.type = SP_IX_SALT_BRIDGE;
      ix.flags = (uint8_t)((lp ? SP_IXF_LIG_POSITIVE : SP_IXF_LIG_NEGATIVE) |
                           (L->ambiguous || P->ambiguous ? SP_IXF_AMBIGUOUS : 0));
      ix.lig_atom = L->head;
      ix.site_atom = P->head;
      ix.water_atom = -1;
      ix.distance = d;
      ix.angle = ix.angle2 = ix.offset = ix.distance2 = NAN;
      if (add_ix(c, &ix)) return SP_E_NOMEM;
    }
  }
  return 0;
}

/* ring centre – cation centre (ligand ring with a site cation, site ring with a ligand cation) within 6.0 Å,
 * the cation within 2.0 Å of the ring's axis */
int sp_chem_pi_cation(ctx *c) {
  const sp_site_chem *o = c->out;
  const sp_chem_ws *w = c->w;
  for (size_t r = 0; r < w->n_rings; r++) {
    const ring *R = &w->rings[r];
    for (size_t g = 0; g < o->n_groups; g++) {
      const sp_titr_group *G = &o->groups[g];
      if (G->ligand == R->ligand || !group_sign(G, +1)) continue;
      float d = df(R->c, G->center);
      if (d <= SP_PLIP_MIN_DIST || d > SP_PLIP_PICATION_DIST_MAX) continue;
      float off = plane_offset(R->c, R->nrm, G->center);
      if (off > SP_PLIP_PISTACK_OFFSET_MAX) continue;
      /* a histidine whose ring stacks with this ligand ring: the stacking only, not also a pi-cation
       * of its charged ring (PLIP refine_pi_cation_laro; the residue test as in PLIP's later
       * refine_pication, pharmai/plip plip/structure/preparation.py) */
      if (R->ligand && G->kind == SP_TG_HIS && stacks_with_residue(c, R, G->head)) continue;
      if (!R->ligand && !amine_faces_ring(c, G, R)) continue;
      if (R->ligand ? sp_chem_groups_excluded(c, R->atoms, R->n, G->atoms, G->n_atoms)
                    : sp_chem_groups_excluded(c, G->atoms, G->n_atoms, R->atoms, R->n))
        continue;
      sp_interaction ix = {0};
      ix.type = SP_IX_PI_CATION;
      ix.flags = (uint8_t)((R->ligand ? SP_IXF_LIG_RING : SP_IXF_LIG_POSITIVE) | (G->ambiguous ? SP_IXF_AMBIGUOUS : 0));
      ix.lig_atom = R->ligand ? R->atoms[0] : G->head;
      ix.site_atom = R->ligand ? G->head : R->atoms[0];
      ix.water_atom = -1;
      ix.distance = d;
      ix.angle = ix.angle2 = ix.distance2 = NAN;
      ix.offset = off;
      if (add_ix(c, &ix)) return SP_E_NOMEM;
    }
  }
  return 0;
}

/* ligand ring – site ring, stack_type */
int sp_chem_pi_stacking(ctx *c) {
  const sp_chem_ws *w = c->w;
  for (size_t r = 0; r < w->n_rings; r++) {
    const ring *L = &w->rings[r];
    if (!L->ligand) continue;
    for (size_t q = 0; q < w->n_rings; q++) {
      const ring *P = &w->rings[q];
      if (P->ligand) continue;
      float d, ang, off;
      int type = stack_type(L, P, &d, &ang, &off);
      if (!type || sp_chem_groups_excluded(c, L->atoms, L->n, P->atoms, P->n)) continue;
      sp_interaction ix = {0};
      ix.type = (uint8_t)type;
      ix.lig_atom = L->atoms[0];
      ix.site_atom = P->atoms[0];
      ix.water_atom = -1;
      ix.distance = d;
      ix.angle = ang;
      ix.angle2 = ix.distance2 = NAN;
      ix.offset = off;
      if (add_ix(c, &ix)) return SP_E_NOMEM;
    }
  }
  return 0;
}

/* Site chemistry, metal complexes: the metal's targets within 3.0 Å and PLIP's choice of coordination
 * geometry (outliers of the chosen geometry get no row). See sitechem.h (SP_IX_METAL) and docs/sites.md. */
#include "site/sitechem_internal.h"

#include "sitepack/elements.h"

/* Coordination geometry as PLIP's metal_complexation (pharmai/plip, plip/structure/detection.py):
 * for every coordination number 6..2 and each of its geometries, each "sub-signature" (the ideal
 * angles seen from one coordinating atom) is matched to the not yet used target whose observed angles
 * (to every other target) fit best (greedy per ideal angle, score = sqrt(sum of squared differences));
 * the geometry's score is the mean over its sub-signatures; targets left unused are the geometry's
 * outliers. The candidates are ordered by |targets - coordination number| and PLIP's rule picks one:
 * the first whose next candidate is worse by more than 0.5, else the next when its score is below 3.5.
 * The ideal signatures are PLIP's (including its square-planar set of four 90° angles). */
#define SP_METAL_MAX_TARGETS 32
static const struct metal_sig {
  int geom, coo, len;
  float sub[6][5];
} metal_sigs[] = {
    {SP_GEOM_OCTAHEDRAL, 6, 5, {{90, 90, 90, 90, 180}, {90, 90, 90, 90, 180}, {90, 90, 90, 90, 180},
                                {90, 90, 90, 90, 180}, {90, 90, 90, 90, 180}, {90, 90, 90, 90, 180}}},
    {SP_GEOM_TRIGONAL_BIPYRAMIDAL, 5, 4, {{120, 120, 90, 90}, {120, 120, 90, 90}, {120, 120, 90, 90},
                                          {90, 90, 90, 180}, {90, 90, 90, 180}}},
    {SP_GEOM_SQUARE_PYRAMIDAL, 5, 4, {{90, 90, 90, 180}, {90, 90, 90, 180}, {90, 90, 90, 180},
                                      {90, 90, 90, 180}, {90, 90, 90, 90}}},
    {SP_GEOM_TETRAHEDRAL, 4, 4, {{109.5f, 109.5f, 109.5f, 109.5f}, {109.5f, 109.5f, 109.5f, 109.5f},
                                 {109.5f, 109.5f, 109.5f, 109.5f}, {109.5f, 109.5f, 109.5f, 109.5f}}},
    {SP_GEOM_SQUARE_PLANAR, 4, 4, {{90, 90, 90, 90}, {90, 90, 90, 90}, {90, 90, 90, 90}, {90, 90, 90, 90}}},
    {SP_GEOM_TRIGONAL_PLANAR, 3, 2, {{120, 120}, {120, 120}, {120, 120}}},
    {SP_GEOM_TRIGONAL_PYRAMIDAL, 3, 2, {{109.5f, 109.5f}, {109.5f, 109.5f}, {109.5f, 109.5f}}},
    {SP_GEOM_LINEAR, 2, 1, {{180}, {180}}},
};
#define N_METAL_SIGS ((int)(sizeof metal_sigs / sizeof *metal_sigs))

/* n target vectors v (metal -> target), 2 <= n <= SP_METAL_MAX_TARGETS. Returns the geometry (SP_GEOM_NONE
 * when PLIP's rule decides for none), its coordination number (n when none), its score (degrees, NaN when
 * none) and the excluded targets (excl[t] = 1). */
static int metal_geometry(const float (*v)[3], int n, float *rms_out, int *coo_out, uint8_t *excl) {
  float ang[SP_METAL_MAX_TARGETS][SP_METAL_MAX_TARGETS];
  for (int i = 0; i < n; i++)
    for (int j = 0, q = 0; j < n; j++)
      if (j != i) ang[i][q++] = vangle(v[i], v[j]);
  double score[N_METAL_SIGS];
  uint8_t unused[N_METAL_SIGS][SP_METAL_MAX_TARGETS];
  for (int g = 0; g < N_METAL_SIGS; g++) {
    const struct metal_sig *S = &metal_sigs[g];
    uint8_t used[SP_METAL_MAX_TARGETS] = {0};
    double sum = 0;
    for (int s = 0; s < S->coo; s++) {
      int best_t = -1;
      double best = 999;
      for (int t = 0; t < n; t++) {
        if (used[t]) continue;
        uint8_t taken[SP_METAL_MAX_TARGETS] = {0};
        double ss = 0;
        for (int a = 0; a < S->len; a++) {
          int bj = -1;
          double bd = 999;
          for (int j = 0; j < n - 1; j++) {
            if (taken[j]) continue;
            double d = fabs((double)S->sub[s][a] - ang[t][j]);
            if (d < bd) bd = d, bj = j;
          }
          if (bj >= 0) taken[bj] = 1, ss += bd * bd;
        }
        double tot = sqrt(ss);
        if (tot < best) best = tot, best_t = t;
      }
      if (best_t >= 0) used[best_t] = 1;
      sum += best;
    }
    score[g] = sum / S->coo;
    for (int t = 0; t < n; t++) unused[g][t] = !used[t];
  }
  /* stable order by |n - coordination number| */
  int ord[N_METAL_SIGS], no = 0;
  for (int diff = 0; no < N_METAL_SIGS; diff++)
    for (int g = 0; g < N_METAL_SIGS; g++)
      if (abs(n - metal_sigs[g].coo) == diff) ord[no++] = g;
  int pick = -1;
  for (int i = 0; i + 1 < N_METAL_SIGS; i++) {
    int a = ord[i], b = ord[i + 1];
    if (score[b] - score[a] > 0.5) { pick = a; break; }
    if (score[b] < 3.5) { pick = b; break; }
  }
  if (pick < 0) {
    memset(excl, 0, (size_t)n);
    *rms_out = NAN;
    *coo_out = n;
    return SP_GEOM_NONE;
  }
  memcpy(excl, unused[pick], (size_t)n);
  *rms_out = (float)score[pick];
  *coo_out = metal_sigs[pick].coo;
  return metal_sigs[pick].geom;
}

/* may this atom coordinate a metal (PLIP's choice: side-chain O of ASP GLU SER THR TYR, HIS ring N,
 * CYS S, main-chain O; water O; any O/N/S of ligands) */
static int metal_partner(const ctx *c, int32_t k) {
  uint8_t el = EL(c, k);
  if (el != 7 && el != 8 && el != 16) return 0;
  uint16_t f = c->site->atom_flags[k];
  if (f & SP_SITE_ATOM_WATER) return el == 8;
  if (f & (SP_SITE_ATOM_LIGAND | SP_SITE_ATOM_OTHER_LIGAND)) return 1;
  if (!(f & SP_SITE_ATOM_POLYMER)) return 0;
  const char *rn = RNAME(c, k), *an = ANAME(c, k);
  if (!strcmp(an, "O") || !strcmp(an, "OXT")) return 1;
  if (el == 8 && (!strcmp(rn, "ASP") || !strcmp(rn, "GLU") || !strcmp(rn, "SER") || !strcmp(rn, "THR") || !strcmp(rn, "TYR")))
    return 1;
  if (el == 7 && !strcmp(rn, "HIS") && (!strcmp(an, "ND1") || !strcmp(an, "NE2"))) return 1;
  if (el == 16 && !strcmp(rn, "CYS")) return 1;
  if (!is_std_aa(c->w, rn) && (el == 8 || el == 16)) return 1;
  return 0;
}

int sp_chem_metals(ctx *c) {
  const sp_site *site = c->site;
  sp_chem_ws *w = c->w;
  if (SP_GROW(w->coord, w->cap_coord, site->n_atoms + 1)) return sp_err_set(c->err, SP_E_NOMEM, "site chemistry: out of memory");
  for (size_t m = 0; m < site->n_atoms; m++) {
    if (!sp_element_is_metal(EL(c, (int32_t)m))) continue;
    int lig_metal = m < site->n_ligand;
    if (!lig_metal && !(site->atom_flags[m] & (SP_SITE_ATOM_ION | SP_SITE_ATOM_OTHER_LIGAND | SP_SITE_ATOM_POLYMER)))
      continue;
    /* every coordinating atom within 3.0 Å counts, the metal's own ligand's included (the porphyrin N of
     * a haem, the S of an Fe-S cluster: PLIP's metal_binding of the ligand holds them); a site metal
     * matters only when it is within reach of the ligand; rows are made for ligand-site pairs only */
    size_t nc = 0;
    int touches_ligand = 0, touches_site = 0;
    for (size_t k = 0; k < site->n_atoms; k++) {
      if (k == m || !metal_partner(c, (int32_t)k)) continue;
      float d2 = d2f(X(c, (int32_t)m), X(c, (int32_t)k));
      if (d2 > SP_PLIP_METAL_DIST_MAX * SP_PLIP_METAL_DIST_MAX || d2 < SP_PLIP_MIN_DIST * SP_PLIP_MIN_DIST) continue;
      w->coord[nc++] = (int32_t)k;
      if (k < site->n_ligand) touches_ligand = 1;
      else touches_site = 1;
    }
    if (lig_metal ? !touches_site : !touches_ligand) continue;
    /* PLIP forms no complex when every target is a water oxygen */
    int only_water = 1;
    for (size_t q = 0; q < nc; q++) only_water &= (site->atom_flags[w->coord[q]] & SP_SITE_ATOM_WATER) != 0;
    if (only_water) continue;
    float v[SP_METAL_MAX_TARGETS][3], rms = NAN;
    uint8_t excl[SP_METAL_MAX_TARGETS] = {0};
    int geom = SP_GEOM_NONE, coo = (int)(nc > 255 ? 255 : nc);
    if (nc == 1) {
      rms = 0;
    } else if (nc >= 2 && nc <= SP_METAL_MAX_TARGETS) {
      for (size_t q = 0; q < nc; q++)
        for (int d = 0; d < 3; d++) v[q][d] = X(c, w->coord[q])[d] - X(c, (int32_t)m)[d];
      geom = metal_geometry((const float(*)[3])v, (int)nc, &rms, &coo, excl);
    }
    for (size_t q = 0; q < nc; q++) {
      int32_t k = w->coord[q];
      if (q < SP_METAL_MAX_TARGETS && excl[q]) continue; /* outlier of the chosen geometry (PLIP) */
      if (!lig_metal && k >= (int32_t)site->n_ligand) continue; /* site metal: rows for ligand atoms only */
      if (lig_metal && k < (int32_t)site->n_ligand) continue;   /* the metal's own ligand: counted, no row */
      sp_interaction ix = {0};
      ix.type = SP_IX_METAL;
      ix.flags = lig_metal ? SP_IXF_LIG_METAL : 0;
      ix.geometry = (uint8_t)geom;
      ix.coordination = (uint8_t)coo;
      ix.lig_atom = lig_metal ? (int32_t)m : k;
      ix.site_atom = lig_metal ? k : (int32_t)m;
      ix.water_atom = -1;
      ix.distance = df(X(c, (int32_t)m), X(c, k));
      ix.angle = rms;
      ix.angle2 = NAN;
      ix.offset = NAN;
      ix.distance2 = NAN;
      if (add_ix(c, &ix)) return SP_E_NOMEM;
    }
  }
  return 0;
}


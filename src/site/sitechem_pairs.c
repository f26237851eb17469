/* Site chemistry, atom-pair interactions: vdW contacts, hydrophobic contacts, hydrogen bonds (heavy-atom
 * angle, or PLIP's D–H···A with H placed for the sp2 N–H of the polymer), halogen bonds, water bridges,
 * and PLIP's one H-bond per donor. See sitechem.h (SP_IX_HYDROPHOBIC, _HBOND, _HALOGEN, _WATER_BRIDGE)
 * and docs/sites.md. */
#include "site/sitechem_internal.h"

#include "sitepack/elements.h"

/* smallest angle neighbour–D···A over the heavy neighbours of donor d; NaN when none known */
static float donor_angle(const ctx *c, int32_t d, int32_t a) {
  float best = NAN;
  if (d < (int32_t)c->site->n_ligand) {
    int32_t i = c->w->lmap[d];
    if (i < 0) return NAN;
    const lnode *n = &c->w->ln[i];
    for (int k = 0; k < n->deg; k++) {
      float ang = angle3(X(c, c->w->nsite[n->nb[k]]), X(c, d), X(c, a));
      if (isnan(best) || ang < best) best = ang;
    }
    return best;
  }
  size_t rs = c->site->atom_res[d];
  int32_t f = c->w->res_first[rs], nn = c->w->res_n[rs];
  for (int32_t k = f; k < f + nn; k++) {
    if (k == d || EL(c, k) == 1) continue;
    if (d2f(X(c, k), X(c, d)) > 1.9f * 1.9f) continue;
    float ang = angle3(X(c, k), X(c, d), X(c, a));
    if (isnan(best) || ang < best) best = ang;
  }
  return best;
}

/* Main-chain amide N of a polymer residue: its H lies in the peptide plane on the bisector opposite
 * C(i-1) and CA (sp2 N, N–H 1.01 Å). Returns 1 and the H position when both neighbours are found
 * (previous residue of the same chain, its C within 2.0 Å of N); 0 otherwise (proline, N-terminus). */
static int amide_h(const ctx *c, int32_t d, float h[3]) {
  const sp_structure *s = c->s;
  uint32_t ai = c->site->atoms[d];
  if (!(c->site->atom_flags[d] & SP_SITE_ATOM_POLYMER) || strcmp(s->atom_name[ai], "N")) return 0;
  uint32_t r = c->site->res[c->site->atom_res[d]].residue;
  const sp_residue *R = &s->residues[r];
  if (!strcmp(R->comp_id, "PRO") || r == 0 || s->residues[r - 1].chain != R->chain) return 0;
  const sp_residue *P = &s->residues[r - 1];
  const float *n = s->xyz[ai], *ca = NULL, *cp = NULL;
  for (uint32_t k = R->first_atom; k < R->first_atom + R->n_atoms; k++)
    if (!strcmp(s->atom_name[k], "CA") && d2f(s->xyz[k], n) < 2.0f * 2.0f) ca = s->xyz[k];
  for (uint32_t k = P->first_atom; k < P->first_atom + P->n_atoms; k++)
    if (!strcmp(s->atom_name[k], "C") && d2f(s->xyz[k], n) < 2.0f * 2.0f) cp = s->xyz[k];
  if (!ca || !cp) return 0;
  float u[3], len = 0;
  float l1 = df(ca, n), l2 = df(cp, n);
  for (int q = 0; q < 3; q++) u[q] = (n[q] - ca[q]) / l1 + (n[q] - cp[q]) / l2;
  for (int q = 0; q < 3; q++) len += u[q] * u[q];
  len = sqrtf(len);
  if (!(len > 1e-3f)) return 0;
  for (int q = 0; q < 3; q++) h[q] = n[q] + 1.01f * u[q] / len;
  /* a residue of a symmetry image: H was placed in the file's frame; move it with the residue */
  uint16_t img = c->site->res[c->site->atom_res[d]].image;
  if (img && c->site->images && img <= c->site->n_images) {
    const sp_site_image *im = &c->site->images[img - 1];
    float g[3];
    for (int q = 0; q < 3; q++)
      g[q] = (float)(im->rot[q][0] * h[0] + im->rot[q][1] * h[1] + im->rot[q][2] * h[2] + im->trn[q]);
    memcpy(h, g, sizeof g);
  }
  return 1;
}

/* The H of an sp2 side-chain donor of a standard residue, from the residue's own heavy atoms (the
 * construction amide_h uses for the main chain; N–H 1.01 Å):
 *  - ring / chain N with two heavy neighbours (ARG NE, HIS ND1 and NE2, TRP NE1): one H in the plane of
 *    the three atoms, on the bisector opposite both neighbours;
 *  - terminal NH2 of a planar amide or guanidinium (ARG NH1 and NH2, ASN ND2, GLN NE2): two H in the
 *    plane of the group (N, its carbon X, and X's other heavy neighbour Y), at 120° from N→X.
 * These N are sp2 (amide and guanidinium resonance, aromatic rings), so both H lie in the plane of the
 * group: Engh & Huber, Acta Cryst. 1991, A47, 392 (planar groups of the standard residue geometry), as
 * the H-placement tools build them (Reduce, Word et al., J. Mol. Biol. 1999, 285, 1735). The side chains
 * of HIS hold the H on the N asked for (tautomer not decided here). Returns the number of H written to
 * @p h (0: not such a donor, or an atom is missing / degenerate). */
static int sidechain_h(const ctx *c, int32_t d, float h[2][3]) {
  static const struct {
    const char *res, *atom, *x, *y; /* one H: bisector opposite x and y; two H: X = x, Y = y */
    int nh;
  } T[] = {
      {"ARG", "NE", "CD", "CZ", 1},    {"HIS", "ND1", "CG", "CE1", 1}, {"HIS", "NE2", "CD2", "CE1", 1},
      {"TRP", "NE1", "CD1", "CE2", 1}, {"ARG", "NH1", "CZ", "NE", 2},  {"ARG", "NH2", "CZ", "NE", 2},
      {"ASN", "ND2", "CG", "OD1", 2},  {"GLN", "NE2", "CD", "OE1", 2},
  };
  if (!is_polymer_atom(c, d) || EL(c, d) != 7) return 0;
  const char *rn = RNAME(c, d), *an = ANAME(c, d);
  size_t rs = c->site->atom_res[d];
  for (size_t t = 0; t < sizeof T / sizeof *T; t++) {
    if (strcmp(T[t].res, rn) || strcmp(T[t].atom, an)) continue;
    int32_t ix = res_atom(c, rs, T[t].x), iy = res_atom(c, rs, T[t].y);
    if (ix < 0 || iy < 0) return 0;
    const float *n = X(c, d), *x = X(c, ix), *y = X(c, iy);
    if (T[t].nh == 1) {
      if (d2f(n, x) > 2.0f * 2.0f || d2f(n, y) > 2.0f * 2.0f) return 0;
      float u[3], len = 0, l1 = df(x, n), l2 = df(y, n);
      for (int q = 0; q < 3; q++) u[q] = (n[q] - x[q]) / l1 + (n[q] - y[q]) / l2;
      for (int q = 0; q < 3; q++) len += u[q] * u[q];
      len = sqrtf(len);
      if (!(len > 1e-3f)) return 0;
      for (int q = 0; q < 3; q++) h[0][q] = n[q] + 1.01f * u[q] / len;
      return 1;
    }
    if (d2f(n, x) > 2.0f * 2.0f || d2f(x, y) > 2.0f * 2.0f) return 0;
    /* u: unit N→X; v: unit vector in the plane, perpendicular to u, on the side of Y */
    float u[3], v[3], lu = df(x, n), dot = 0, lv = 0;
    for (int q = 0; q < 3; q++) u[q] = (x[q] - n[q]) / lu;
    for (int q = 0; q < 3; q++) dot += (y[q] - x[q]) * u[q];
    for (int q = 0; q < 3; q++) v[q] = (y[q] - x[q]) - dot * u[q];
    for (int q = 0; q < 3; q++) lv += v[q] * v[q];
    lv = sqrtf(lv);
    if (!(lv > 1e-3f)) return 0;
    /* H at 120° from N→X: -cos60 along u, ±sin60 across (cis and trans to Y) */
    for (int q = 0; q < 3; q++) {
      h[0][q] = n[q] + 1.01f * (-0.5f * u[q] + 0.8660254f * v[q] / lv);
      h[1][q] = n[q] + 1.01f * (-0.5f * u[q] - 0.8660254f * v[q] / lv);
    }
    return 2;
  }
  return 0;
}

/* Halogen-bond acceptor Y–O / Y–N / Y–S of a polymer residue, PLIP's find_hal (pharmai/plip,
 * plip/structure/preparation.py): an O, N or S with exactly one heavy neighbour (its Y, returned),
 * so that a lone pair is free (carbonyl and carboxylate O, hydroxyl O, Cys S, terminal N); -1 for
 * any other atom. The main-chain N, bonded also to C of the previous residue (outside this residue's
 * atoms), is an amide N with no lone pair to give: excluded by name; ring N (HIS, TRP) and MET SD
 * have two neighbours in the residue. */
static int32_t halogen_acceptor(const ctx *c, int32_t a) {
  uint8_t el = EL(c, a);
  if (el != 7 && el != 8 && el != 16) return -1;
  if (el == 7 && !strcmp(ANAME(c, a), "N")) return -1;
  size_t rs = c->site->atom_res[a];
  int32_t f = c->w->res_first[rs], nn = c->w->res_n[rs], y = -1, n = 0;
  for (int32_t k = f; k < f + nn; k++)
    if (k != a && EL(c, k) != 1 && d2f(X(c, k), X(c, a)) < 1.9f * 1.9f) y = k, n++;
  return n == 1 ? y : -1;
}

/* PLIP's refine_hbonds_ldon / refine_hbonds_pdon (pharmai/plip, plip/structure/preparation.py): each
 * donor atom keeps one H-bond. PLIP keeps the one with the larger D–H···A angle; without hydrogen
 * positions sitepack keeps the shortest D···A (ties: the larger heavy-atom angle), the criterion of
 * PLIP's RDKit port for the same step. PLIP's other refinement, dropping an H-bond whose donor and
 * acceptor belong to the two groups of a salt bridge, is not applied: a charge-assisted H-bond is
 * reported as both (docs/sites.md, "PLIP agreement"). */
void sp_chem_refine_hbonds(ctx *c) {
  sp_site_chem *o = c->out;
  for (size_t i = 0; i < o->n_ix; i++) {
    sp_interaction *h = &o->ix[i];
    if (h->type != SP_IX_HBOND) continue;
    int32_t don = (h->flags & SP_IXF_LIG_DONOR) ? h->lig_atom : h->site_atom;
    for (size_t j = i + 1; j < o->n_ix; j++) {
      sp_interaction *g = &o->ix[j];
      if (g->type != SP_IX_HBOND || ((g->flags & SP_IXF_LIG_DONOR) ? g->lig_atom : g->site_atom) != don) continue;
      float ah = isnan(h->angle) ? -1 : h->angle, ag = isnan(g->angle) ? -1 : g->angle;
      int g_better = g->distance < h->distance || (g->distance == h->distance && ag > ah);
      if (g_better) {
        *h = *g; /* keep the better one in the earlier slot */
      }
      g->type = 0;
    }
  }
  size_t n = 0;
  for (size_t i = 0; i < o->n_ix; i++)
    if (o->ix[i].type) o->ix[n++] = o->ix[i];
  o->n_ix = n;
}

/* the candidates: non-ligand heavy site atoms within the cutoff (w->cand), their coordinates and vdW
 * radii as separate arrays for the scan; 0 or SP_E_NOMEM */
static int candidates(ctx *c, size_t *ncand_out) {
  const sp_site *site = c->site;
  sp_chem_ws *w = c->w;
  size_t ncand = 0;
  if (SP_GROW(w->cand, w->cap_cand, site->n_atoms + 1)) return sp_err_set(c->err, SP_E_NOMEM, "site chemistry: out of memory");
  for (size_t k = site->n_ligand; k < site->n_atoms; k++)
    if ((site->atom_flags[k] & SP_SITE_ATOM_WITHIN_CUTOFF) && EL(c, (int32_t)k) != 1) w->cand[ncand++] = (int32_t)k;
  int bad = 0;
  size_t c0 = w->cap_cand_xyz;
  bad |= sp_grow((void **)&w->cand_x, &c0, ncand + 1, sizeof(float));
  c0 = w->cap_cand_xyz;
  bad |= sp_grow((void **)&w->cand_y, &c0, ncand + 1, sizeof(float));
  c0 = w->cap_cand_xyz;
  bad |= sp_grow((void **)&w->cand_z, &c0, ncand + 1, sizeof(float));
  c0 = w->cap_cand_xyz;
  bad |= sp_grow((void **)&w->cand_r, &c0, ncand + 1, sizeof(float));
  bad |= SP_GROW(w->cand_hit, w->cap_cand_hit, ncand + 1);
  if (bad) return sp_err_set(c->err, SP_E_NOMEM, "site chemistry: out of memory");
  w->cap_cand_xyz = c0;
  for (size_t q = 0; q < ncand; q++) {
    const float *p = X(c, w->cand[q]);
    w->cand_x[q] = p[0], w->cand_y[q] = p[1], w->cand_z[q] = p[2];
    w->cand_r[q] = sp_element_vdw_radius(EL(c, w->cand[q]));
  }
  *ncand_out = ncand;
  return 0;
}

/* The four kinds of one ligand atom li – polymer atom k pair, d = their distance (Å), fa / fk their
 * SP_CHEM_* bits; @p ix holds the pair's atoms and distance, the other fields unset (NaN angles). */

/* hydrophobic: both carbons bonded to C/H only, d <= 4.0 */
static inline int pair_hydrophobic(ctx *c, sp_interaction ix, uint16_t fa, uint16_t fk) {
  if (!((fa & SP_CHEM_HYDROPHOBIC) && (fk & SP_CHEM_HYDROPHOBIC) && ix.distance <= SP_PLIP_HYDROPH_DIST_MAX)) return 0;
  ix.type = SP_IX_HYDROPHOBIC;
  return add_ix(c, &ix) ? SP_E_NOMEM : 0;
}

/* H-bond with the ligand atom as donor: the heavy-atom angle neighbour–D···A >= 60° */
static inline int pair_hbond_ligand_donor(ctx *c, sp_interaction ix, uint16_t fa, uint16_t fk) {
  if (!((fa & SP_CHEM_DONOR) && (fk & SP_CHEM_ACCEPTOR)) || ix.distance < SP_HBOND_DIST_MIN) return 0;
  float ang = donor_angle(c, ix.lig_atom, ix.site_atom);
  if (!(isnan(ang) || ang >= SP_HBOND_HEAVY_ANGLE_MIN)) return 0;
  ix.type = SP_IX_HBOND;
  ix.flags = SP_IXF_LIG_DONOR;
  ix.angle = ang;
  return add_ix(c, &ix) ? SP_E_NOMEM : 0;
}

/* H-bond with the ligand atom as acceptor: main-chain amide N and sp2 side-chain N with H placed from the
 * residue's atoms, PLIP's D–H···A > 100° with any of them; other donors: the heavy-atom angle */
static inline int pair_hbond_ligand_acceptor(ctx *c, sp_interaction ix, uint16_t fa, uint16_t fk) {
  if (!((fa & SP_CHEM_ACCEPTOR) && (fk & SP_CHEM_DONOR)) || ix.distance < SP_HBOND_DIST_MIN) return 0;
  const int32_t li = ix.lig_atom, k = ix.site_atom;
  const float *a = X(c, li);
  float ang = donor_angle(c, k, li), hpos[2][3];
  int nhp = amide_h(c, k, hpos[0]) ? 1 : sidechain_h(c, k, hpos), ok = 0;
  for (int hq = 0; hq < nhp; hq++) ok |= angle3(X(c, k), hpos[hq], a) > SP_PLIP_HBOND_DON_ANGLE_MIN;
  if (!nhp) ok = isnan(ang) || ang >= SP_HBOND_HEAVY_ANGLE_MIN;
  if (!ok) return 0;
  ix.type = SP_IX_HBOND;
  ix.flags = SP_IXF_LIG_ACCEPTOR;
  ix.angle = ang;
  return add_ix(c, &ix) ? SP_E_NOMEM : 0;
}

/* halogen bond C–X···Y–Z: d <= 4.0, C–X···Y 165±30°, X···Y–Z 120±30° */
static inline int pair_halogen(ctx *c, sp_interaction ix, uint16_t fa) {
  int32_t y;
  if (!((fa & SP_CHEM_HALOGEN_DONOR) && ix.distance <= SP_PLIP_HALOGEN_DIST_MAX &&
        (y = halogen_acceptor(c, ix.site_atom)) >= 0))
    return 0;
  const sp_chem_ws *w = c->w;
  const int32_t li = ix.lig_atom, k = ix.site_atom;
  const float *a = X(c, li);
  int32_t cx = w->nsite[w->ln[w->lmap[li]].nb[0]];
  float a1 = angle3(X(c, cx), a, X(c, k));
  float a2 = angle3(a, X(c, k), X(c, y));
  if (!(fabsf(a1 - SP_PLIP_HALOGEN_DON_ANGLE) <= SP_PLIP_HALOGEN_ANGLE_DEV &&
        fabsf(a2 - SP_PLIP_HALOGEN_ACC_ANGLE) <= SP_PLIP_HALOGEN_ANGLE_DEV))
    return 0;
  ix.type = SP_IX_HALOGEN;
  ix.flags = 0;
  ix.angle = a1;
  ix.angle2 = a2;
  return add_ix(c, &ix) ? SP_E_NOMEM : 0;
}

/* One scan over (ligand heavy atom, candidate) pairs: vdW contacts (SP_CHEM_CONTACT, res_contact) and, for
 * polymer atoms within the H-bond distance, the pair kinds above in this order per pair. */
int sp_chem_pairs(ctx *c) {
  const sp_site *site = c->site;
  sp_site_chem *o = c->out;
  sp_chem_ws *w = c->w;
  size_t ncand = 0;
  int rc = candidates(c, &ncand);
  if (rc) return rc;
  for (size_t li = 0; li < site->n_ligand; li++) {
    if (w->lmap[li] < 0) continue;
    const float *a = X(c, (int32_t)li);
    uint8_t ela = EL(c, (int32_t)li);
    float ra = sp_element_vdw_radius(ela);
    uint16_t fa = o->atom_chem[li];
    /* the candidates in contact or within the H-bond distance (the only ones the loop below acts on);
     * the same float expressions as there */
    size_t nhit = 0;
    for (size_t q = 0; q < ncand; q++) {
      float x = a[0] - w->cand_x[q], y = a[1] - w->cand_y[q], z = a[2] - w->cand_z[q];
      float d2 = x * x + y * y + z * z;
      float lim = ra + w->cand_r[q] + SP_CONTACT_TOLERANCE;
      w->cand_hit[nhit] = (int32_t)q;
      nhit += (d2 <= lim * lim) | (d2 <= SP_PLIP_HBOND_DIST_MAX * SP_PLIP_HBOND_DIST_MAX);
    }
    for (size_t h = 0; h < nhit; h++) {
      const size_t q = (size_t)w->cand_hit[h];
      int32_t k = w->cand[q];
      float d2 = d2f(a, X(c, k));
      float lim = ra + w->cand_r[q] + SP_CONTACT_TOLERANCE;
      if (d2 <= lim * lim) {
        o->atom_chem[k] |= SP_CHEM_CONTACT;
        o->res_contact[site->atom_res[k]] = 1;
      }
      if (d2 > SP_PLIP_HBOND_DIST_MAX * SP_PLIP_HBOND_DIST_MAX || d2 <= SP_PLIP_MIN_DIST * SP_PLIP_MIN_DIST) continue;
      if (!is_polymer_atom(c, k) || sp_chem_excluded(c, (int32_t)li, k)) continue;
      uint16_t fk = o->atom_chem[k];
      sp_interaction ix = {0};
      ix.lig_atom = (int32_t)li;
      ix.site_atom = k;
      ix.water_atom = -1;
      ix.distance = sqrtf(d2);
      ix.angle = ix.angle2 = ix.offset = NAN;
      if ((rc = pair_hydrophobic(c, ix, fa, fk)) || (rc = pair_hbond_ligand_donor(c, ix, fa, fk)) ||
          (rc = pair_hbond_ligand_acceptor(c, ix, fa, fk)) || (rc = pair_halogen(c, ix, fa)))
        return rc;
    }
  }
  return 0;
}

/* a water oxygen at covalent-bond distance (radii + 0.4 Å) of a heavy non-water atom of the site: it
 * overlaps that atom (an alternate model of the same place, as 1GDU's HOH 2102 0.35 Å from Arg3 NH2), so
 * it bridges nothing */
static int clash_water(const ctx *c, int32_t wk) {
  const sp_site *site = c->site;
  for (size_t k = 0; k < site->n_atoms; k++) {
    if ((int32_t)k == wk || (site->atom_flags[k] & SP_SITE_ATOM_WATER)) continue;
    uint8_t el = EL(c, (int32_t)k);
    if (el == 1 || sp_element_is_metal(el)) continue;
    float r = sp_element_covalent_radius(el) + sp_element_covalent_radius(8) + 0.4f;
    if (d2f(X(c, (int32_t)k), X(c, wk)) <= r * r) return 1;
  }
  return 0;
}

/* water bridges: ligand acceptor – water – site donor, ligand donor – water – site acceptor, each
 * distance 2.5–4.1 Å (the two heavy-atom distances only) */
int sp_chem_water_bridges(ctx *c) {
  const sp_site *site = c->site;
  const sp_site_chem *o = c->out;
  const sp_chem_ws *w = c->w;
  for (size_t k = site->n_ligand; k < site->n_atoms; k++) {
    if (!(site->atom_flags[k] & SP_SITE_ATOM_WATER) || EL(c, (int32_t)k) != 8) continue;
    const float *wo = X(c, (int32_t)k);
    int clash = -1; /* not yet known */
    for (size_t li = 0; li < site->n_ligand; li++) {
      uint16_t fa = o->atom_chem[li];
      if (!(fa & (SP_CHEM_DONOR | SP_CHEM_ACCEPTOR)) || w->lmap[li] < 0) continue;
      float d1 = df(X(c, (int32_t)li), wo);
      if (d1 < SP_PLIP_WATER_BRIDGE_MINDIST || d1 > SP_PLIP_WATER_BRIDGE_MAXDIST) continue;
      if (clash < 0) clash = clash_water(c, (int32_t)k);
      if (clash) break;
      for (size_t q = 0; q < site->n_atoms; q++) {
        if (q < site->n_ligand || !is_polymer_atom(c, (int32_t)q)) continue;
        uint16_t fk = o->atom_chem[q];
        int lacc = (fa & SP_CHEM_ACCEPTOR) && (fk & SP_CHEM_DONOR);
        int ldon = (fa & SP_CHEM_DONOR) && (fk & SP_CHEM_ACCEPTOR);
        if ((!lacc && !ldon) || sp_chem_excluded(c, (int32_t)li, (int32_t)q)) continue;
        float d2 = df(X(c, (int32_t)q), wo);
        if (d2 < SP_PLIP_WATER_BRIDGE_MINDIST || d2 > SP_PLIP_WATER_BRIDGE_MAXDIST) continue;
        sp_interaction ix = {0};
        ix.type = SP_IX_WATER_BRIDGE;
        ix.flags = (uint8_t)(lacc ? SP_IXF_LIG_ACCEPTOR : SP_IXF_LIG_DONOR);
        ix.lig_atom = (int32_t)li;
        ix.site_atom = (int32_t)q;
        ix.water_atom = (int32_t)k;
        ix.distance = d1;
        ix.angle = angle3(X(c, (int32_t)li), wo, X(c, (int32_t)q));
        ix.angle2 = d2;
        ix.offset = NAN;
        if (add_ix(c, &ix)) return SP_E_NOMEM;
      }
    }
  }
  return 0;
}

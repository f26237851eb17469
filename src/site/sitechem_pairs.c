/* Site chemistry, atom-pair interactions: vdW contacts, hydrophobic contacts, hydrogen bonds (PLIP's D–H···A with the
 * deposited H, the H placed for the sp2 N–H of the polymer, or the H Open Babel gives the donor (sitechem_hplace.c);
 * the heavy-atom angle where none can be placed), halogen bonds, water bridges,
 * and PLIP's one H-bond per donor. See sitechem.h (SP_IX_HYDROPHOBIC, _HBOND, _HALOGEN, _WATER_BRIDGE)
 * and docs/sites.md. */
#include "site/sitechem_internal.h"

#include "sitepack/elements.h"

/* The hydrogens deposited in the file on donor d (issue 37): H / D atoms of the site block bonded to it
 * (within SP_DEPOSITED_H_BOND Å; of the ligand for a ligand donor, of its own residue for a site donor), at
 * most max of them, their positions in h; their count (0: none deposited, the rules without H apply). */
#define SP_DEPOSITED_H_BOND 1.3f /* N/O/S-H 0.96-1.34 Å (Allen et al. 1987); the next heavy atom is >= 1.9 Å away */
static int deposited_h(const ctx *c, int32_t d, float h[][3], int max) {
  int32_t f = 0, nn = (int32_t)c->site->n_ligand, n = 0;
  if (d >= (int32_t)c->site->n_ligand) {
    size_t rs = c->site->atom_res[d];
    f = c->w->res_first[rs], nn = c->w->res_n[rs];
  }
  for (int32_t k = f; k < f + nn && n < max; k++)
    if (k != d && EL(c, k) == 1 && d2f(X(c, k), X(c, d)) <= SP_DEPOSITED_H_BOND * SP_DEPOSITED_H_BOND)
      memcpy(h[n++], X(c, k), sizeof h[0]);
  return n;
}

/* The largest D–H···A angle over the n hydrogens h of donor d towards acceptor a, degrees. */
static float best_dha(const ctx *c, int32_t d, const float (*h)[3], int n, const float *a) {
  float best = NAN;
  for (int q = 0; q < n; q++) {
    float dha = angle3(X(c, d), h[q], a);
    if (isnan(best) || dha > best) best = dha;
  }
  return best;
}

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

/* PLIP's find_hal counts only C, N, P, S neighbours of the acceptor */
static int hal_y_element(uint8_t el) { return el == 6 || el == 7 || el == 15 || el == 16; }

/* Is site atom a bonded to a C / N / P / S atom of another residue (Open Babel bonds PLIP's atoms by the file's
 * CONECT records, then by distance, OBMol::ConnectTheDots: the covalent radii + 0.45 Å): a CONECT bond or a
 * covalent / disulfide connection (LINK, SSBOND, _struct_conn covale / disulf) of the file, or a site atom of
 * another residue within that distance */
static int bonded_outside(const ctx *c, int32_t a) {
  const sp_structure *s = c->s;
  int64_t ai = (int64_t)c->site->atoms[a];
  uint32_t ra = s->atom_residue[ai];
  for (size_t q = 0; q < s->n_conects; q++) {
    int64_t o = s->conects[q].a == ai ? s->conects[q].b : s->conects[q].b == ai ? s->conects[q].a : -1;
    if (o >= 0 && s->atom_residue[o] != ra && hal_y_element(s->element[o])) return 1;
  }
  for (size_t q = 0; q < s->n_conns; q++) {
    const sp_conn *k = &s->conns[q];
    if (k->type != SP_CONN_COVALE && k->type != SP_CONN_DISULF) continue;
    int64_t o = k->a.atom == ai ? k->b.atom : k->b.atom == ai ? k->a.atom : -1;
    if (o >= 0 && hal_y_element(s->element[o])) return 1;
  }
  size_t rs = c->site->atom_res[a];
  float rad = sp_element_covalent_radius(EL(c, a));
  for (size_t k = 0; k < c->site->n_atoms; k++) {
    uint8_t ek = EL(c, (int32_t)k);
    float lim = rad + sp_element_covalent_radius(ek) + 0.45f;
    if (c->site->atom_res[k] != rs && hal_y_element(ek) && d2f(X(c, (int32_t)k), X(c, a)) <= lim * lim) return 1;
  }
  return 0;
}

/* Halogen-bond acceptor Y–O / Y–N / Y–S of a polymer residue, PLIP's find_hal (pharmai/plip,
 * plip/structure/preparation.py BindingSite.find_hal): an O, N or S with exactly one C / N / P / S neighbour
 * (its Y, returned), so that a lone pair is free (carbonyl and carboxylate O, hydroxyl O, Cys S, terminal N);
 * -1 for any other atom. Neighbours: the residue's atoms within 1.9 Å, and (issue 37) the C / N / P / S of
 * other residues it is bonded to (bonded_outside): a disulfide-bonded Cys SG has two, CB and the other SG, and
 * is no acceptor for PLIP (2FZZ Cys191, SG-SG 2.67 Å, bonded by its CONECT records).
 * The main-chain N, bonded also to C of the previous residue, is an amide N with no lone pair to give:
 * excluded by name; ring N (HIS, TRP) and MET SD have two neighbours in the residue. */
static int32_t halogen_acceptor(const ctx *c, int32_t a) {
  uint8_t el = EL(c, a);
  if (el != 7 && el != 8 && el != 16) return -1;
  if (el == 7 && !strcmp(ANAME(c, a), "N")) return -1;
  size_t rs = c->site->atom_res[a];
  int32_t f = c->w->res_first[rs], nn = c->w->res_n[rs], y = -1, n = 0;
  for (int32_t k = f; k < f + nn; k++)
    if (k != a && hal_y_element(EL(c, k)) && d2f(X(c, k), X(c, a)) < 1.9f * 1.9f) y = k, n++;
  return n == 1 && !bonded_outside(c, a) ? y : -1;
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

/* H-bond with the ligand atom as donor: with H deposited on it, else placed as Open Babel does (sp_chem_place_h),
 * PLIP's D–H···A > 100° for one of them (angle2: the best); without, the heavy-atom angle neighbour–D···A >= 60°
 * (SP_IXF_NO_H) */
static inline int pair_hbond_ligand_donor(ctx *c, sp_interaction ix, uint16_t fa, uint16_t fk) {
  if (!((fa & SP_CHEM_DONOR) && (fk & SP_CHEM_ACCEPTOR)) || ix.distance < SP_HBOND_DIST_MIN) return 0;
  float ang = donor_angle(c, ix.lig_atom, ix.site_atom), hpos[4][3];
  int nh = deposited_h(c, ix.lig_atom, hpos, 4);
  if (!nh) nh = sp_chem_place_h(c, ix.lig_atom, hpos, 4);
  float best = nh ? best_dha(c, ix.lig_atom, (const float(*)[3])hpos, nh, X(c, ix.site_atom)) : NAN;
  if (nh ? !(best > SP_PLIP_HBOND_DON_ANGLE_MIN) : !(isnan(ang) || ang >= SP_HBOND_HEAVY_ANGLE_MIN)) return 0;
  ix.type = SP_IX_HBOND;
  ix.flags = (uint8_t)(SP_IXF_LIG_DONOR | (nh ? 0 : SP_IXF_NO_H));
  ix.angle = ang;
  ix.angle2 = best;
  return add_ix(c, &ix) ? SP_E_NOMEM : 0;
}

/* H-bond with the ligand atom as acceptor: H deposited on the donor, else for main-chain amide N and sp2
 * side-chain N H placed from the residue's atoms, else as Open Babel places it (sp_chem_place_h): PLIP's
 * D–H···A > 100° with any of them; donors with none: the heavy-atom angle */
static inline int pair_hbond_ligand_acceptor(ctx *c, sp_interaction ix, uint16_t fa, uint16_t fk) {
  if (!((fa & SP_CHEM_ACCEPTOR) && (fk & SP_CHEM_DONOR)) || ix.distance < SP_HBOND_DIST_MIN) return 0;
  const int32_t li = ix.lig_atom, k = ix.site_atom;
  const float *a = X(c, li);
  float ang = donor_angle(c, k, li), hpos[4][3];
  int nhp = deposited_h(c, k, hpos, 4), ok = 0;
  if (!nhp) nhp = amide_h(c, k, hpos[0]) ? 1 : sidechain_h(c, k, hpos);
  if (!nhp) nhp = sp_chem_place_h(c, k, hpos, 4);
  float best = NAN;
  for (int hq = 0; hq < nhp; hq++) {
    float dha = angle3(X(c, k), hpos[hq], a);
    if (dha > SP_PLIP_HBOND_DON_ANGLE_MIN) ok = 1;
    if (isnan(best) || dha > best) best = dha;
  }
  if (!nhp) ok = isnan(ang) || ang >= SP_HBOND_HEAVY_ANGLE_MIN;
  if (!ok) return 0;
  ix.type = SP_IX_HBOND;
  ix.flags = (uint8_t)(SP_IXF_LIG_ACCEPTOR | (nhp ? 0 : SP_IXF_NO_H));
  ix.angle = ang;
  ix.angle2 = best; /* D–H···A with the placed H (the best of them); NaN without */
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
      ix.angle = ix.angle2 = ix.offset = ix.distance2 = NAN;
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
  const float *wo = X(c, wk);
  for (size_t k = 0; k < site->n_atoms; k++) {
    if ((int32_t)k == wk || (site->atom_flags[k] & SP_SITE_ATOM_WATER)) continue;
    float d2 = d2f(X(c, (int32_t)k), wo);
    if (d2 > 2.6f * 2.6f) continue; /* above any covalent radius (<= 1.5 Å here) + O 0.66 + 0.4 */
    uint8_t el = EL(c, (int32_t)k);
    if (el == 1 || sp_element_is_metal(el)) continue;
    float r = sp_element_covalent_radius(el) + sp_element_covalent_radius(8) + 0.4f;
    if (d2 <= r * r) return 1;
  }
  return 0;
}

/* vecangle(u, v) of PLIP for the points: angle between (b - a) and (d - c), degrees */
static float vec_angle4(const float *a, const float *b, const float *c, const float *d) {
  float u[3], v[3];
  for (int q = 0; q < 3; q++) u[q] = b[q] - a[q], v[q] = d[q] - c[q];
  return vangle(u, v);
}

/* PLIP's angle windows of one bridge acceptor A – water W – donor D (detection.py water_bridges): with the
 * donor's H deposited in the file (any donor) or placed (the sp2 N–H of the polymer; other N / O as Open Babel
 * places it, sp_chem_place_h), theta = W···H–D > 100°
 * (WATER_BRIDGE_THETA_MIN) and omega = the angle between A→W and W→H in (71°, 140°) for some H. Without an H
 * position (none deposited and none placed: sitechem_hplace.c's exceptions) the heavy-atom substitutes of the H-bond
 * rule: theta becomes neighbour–D···W >= 60° (SP_HBOND_HEAVY_ANGLE_MIN: an H turned towards W then has
 * W···H–D >= 100°), omega is measured with D in place of H and its window widened by the angle the D–H bond
 * (1.01 Å) can subtend at W, asin(1.01 / W···D), so that every position of the H that could pass PLIP's window
 * passes (a necessary condition, as the heavy-atom H-bond angle); the row is flagged SP_IXF_NO_H. 0: rejected. */
static int wb_angles(const ctx *c, int32_t acc, int32_t wat, int32_t don, float *omega, uint8_t *flags) {
  float hp[4][3];
  int nh = deposited_h(c, don, hp, 4);
  if (!nh && don >= (int32_t)c->site->n_ligand) nh = amide_h(c, don, hp[0]) ? 1 : sidechain_h(c, don, hp);
  if (!nh) nh = sp_chem_place_h(c, don, hp, 4);
  const float *a = X(c, acc), *wo = X(c, wat), *d = X(c, don);
  if (!nh) {
    float heavy = donor_angle(c, don, wat), om = vec_angle4(a, wo, wo, d), dwd = df(wo, d);
    float slack = dwd > 1.01f ? (float)(asin(1.01 / dwd) * RAD2DEG) : 90.0f;
    if (!(isnan(heavy) || heavy >= SP_HBOND_HEAVY_ANGLE_MIN)) return 0;
    if (!(om > SP_PLIP_WATER_BRIDGE_OMEGA_MIN - slack && om < SP_PLIP_WATER_BRIDGE_OMEGA_MAX + slack)) return 0;
    *omega = om;
    *flags |= SP_IXF_NO_H;
    return 1;
  }
  for (int h = 0; h < nh; h++) {
    float theta = angle3(d, hp[h], wo), om = vec_angle4(a, wo, wo, hp[h]);
    if (theta > SP_PLIP_WATER_BRIDGE_THETA_MIN && om > SP_PLIP_WATER_BRIDGE_OMEGA_MIN && om < SP_PLIP_WATER_BRIDGE_OMEGA_MAX) {
      *omega = om;
      return 1;
    }
  }
  return 0;
}

static int in_wb_range(float d) { return d >= SP_PLIP_WATER_BRIDGE_MINDIST && d <= SP_PLIP_WATER_BRIDGE_MAXDIST; }

/* one candidate bridge ligand atom li – water k – site atom q, the ligand the acceptor (lacc) or the donor */
static int wb_candidate(ctx *c, int32_t li, int32_t k, int32_t q, int lacc, sp_wb_cand **arr, size_t *cap, size_t *nb) {
  float d1 = df(X(c, li), X(c, k)), d2 = df(X(c, q), X(c, k)), om = NAN;
  uint8_t fl = (uint8_t)(lacc ? SP_IXF_LIG_ACCEPTOR : SP_IXF_LIG_DONOR);
  int32_t acc = lacc ? li : q, don = lacc ? q : li;
  if (!in_wb_range(d1) || !in_wb_range(d2) || !wb_angles(c, acc, k, don, &om, &fl)) return 0;
  if (SP_GROW(*arr, *cap, *nb + 1)) return sp_err_set(c->err, SP_E_NOMEM, "site chemistry: out of memory");
  sp_wb_cand *x = &(*arr)[(*nb)++];
  memset(x, 0, sizeof *x);
  x->ix.type = SP_IX_WATER_BRIDGE;
  x->ix.flags = fl;
  x->ix.lig_atom = li;
  x->ix.site_atom = q;
  x->ix.water_atom = k;
  x->ix.distance = d1;
  x->ix.angle = angle3(X(c, li), X(c, k), X(c, q));
  x->ix.angle2 = NAN;
  x->ix.offset = NAN;
  x->ix.distance2 = d2;
  x->omega = om;
  x->donor = don;
  x->acceptor = acc;
  return 0;
}

/* the bridge waters: water O of the site within the window of some polar ligand atom and not overlapping
 * a heavy atom (w->cand reused: the candidates' scan is over) */
static size_t bridge_waters(ctx *c) {
  const sp_site *site = c->site;
  size_t nw = 0;
  for (size_t k = site->n_ligand; k < site->n_atoms; k++) {
    if (!(site->atom_flags[k] & SP_SITE_ATOM_WATER) || EL(c, (int32_t)k) != 8) continue;
    int near = 0;
    for (size_t li = 0; li < site->n_ligand && !near; li++)
      near = (c->out->atom_chem[li] & (SP_CHEM_DONOR | SP_CHEM_ACCEPTOR)) && c->w->lmap[li] >= 0 &&
             in_wb_range(df(X(c, (int32_t)li), X(c, (int32_t)k)));
    if (near && !clash_water(c, (int32_t)k)) c->w->cand[nw++] = (int32_t)k;
  }
  return nw;
}

/* water bridges ligand acceptor – water – site donor and ligand donor – water – site acceptor: each leg
 * 2.5–4.1 Å, PLIP's theta / omega where the donor's H is placed (wb_angles), then PLIP's
 * refine_water_bridges (sitechem_refine.c); candidates in PLIP's order (all ligand-acceptor bridges, by
 * water, ligand atom, site atom; then the ligand-donor ones, by water, site atom, ligand atom) */
/* the polar atoms of one side within the window of water @p k: ligand atoms (lig) or polymer atoms */
static size_t wb_partners(const ctx *c, int32_t k, int lig, int32_t *out) {
  const sp_site *site = c->site;
  size_t n = 0, k0 = lig ? 0 : site->n_ligand, k1 = lig ? site->n_ligand : site->n_atoms;
  for (size_t a = k0; a < k1; a++) {
    if (!(c->out->atom_chem[a] & (SP_CHEM_DONOR | SP_CHEM_ACCEPTOR))) continue;
    if (lig ? c->w->lmap[a] < 0 : !is_polymer_atom(c, (int32_t)a)) continue;
    if (in_wb_range(df(X(c, (int32_t)a), X(c, k)))) out[n++] = (int32_t)a;
  }
  return n;
}

int sp_chem_water_bridges(ctx *c) {
  const sp_site *site = c->site;
  const sp_site_chem *o = c->out;
  sp_chem_ws *w = c->w;
  size_t nw = bridge_waters(c), nb[2] = {0, 0};
  if (SP_GROW(w->wb_keep, w->cap_wb_keep, 2 * site->n_atoms + 2))
    return sp_err_set(c->err, SP_E_NOMEM, "site chemistry: out of memory");
  int32_t *L = w->wb_keep, *P = w->wb_keep + site->n_atoms + 1; /* scratch until the refinement */
  int rc = 0;
  /* one pass over the waters; the ligand-donor candidates (pass 1) go to w->wb1 and follow the others */
  for (size_t iw = 0; iw < nw && !rc; iw++) {
    int32_t k = w->cand[iw];
    size_t nl = wb_partners(c, k, 1, L), np = wb_partners(c, k, 0, P);
    for (int pass = 0; pass < 2 && !rc; pass++)
      for (size_t x = 0; x < (pass ? np : nl) && !rc; x++)
        for (size_t y = 0; y < (pass ? nl : np) && !rc; y++) {
          int32_t li = pass ? L[y] : L[x], q = pass ? P[x] : P[y];
          uint16_t fa = o->atom_chem[li], fk = o->atom_chem[q];
          int ok = pass ? (fa & SP_CHEM_DONOR) && (fk & SP_CHEM_ACCEPTOR) : (fa & SP_CHEM_ACCEPTOR) && (fk & SP_CHEM_DONOR);
          if (ok && !sp_chem_excluded(c, li, q)) rc = wb_candidate(c, li, k, q, !pass, pass ? &w->wb1 : &w->wb, pass ? &w->cap_wb1 : &w->cap_wb, &nb[pass]);
        }
  }
  if (rc) return rc;
  if (SP_GROW(w->wb, w->cap_wb, nb[0] + nb[1] + 1) || SP_GROW(w->wb_keep, w->cap_wb_keep, nb[0] + nb[1] + 1))
    return sp_err_set(c->err, SP_E_NOMEM, "site chemistry: out of memory");
  if (nb[1]) memcpy(w->wb + nb[0], w->wb1, nb[1] * sizeof *w->wb);
  return sp_chem_refine_water_bridges(c, w->wb, nb[0] + nb[1], w->wb_keep);
}

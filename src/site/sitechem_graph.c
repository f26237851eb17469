/* Site chemistry, the ligand graph: heavy-atom nodes, bonds from the CCD definition, the file's
 * _chem_comp_bond or distances, formal charges the file does not state, H counts, and the aromatic
 * 5- and 6-rings. See sitechem_internal.h and docs/sites.md ("Ligand graph"). */
#include "site/sitechem_internal.h"

#include "sitepack/elements.h"
#include "sitepack/valence.h"

/* centre and unit normal (Newell's method) of a ring; max deviation from the plane (Å) */
float sp_chem_ring_plane(const sp_structure *s, const sp_site *site, ring *r) {
  float c[3] = {0, 0, 0}, n[3] = {0, 0, 0};
  for (int k = 0; k < r->n; k++)
    for (int d = 0; d < 3; d++) c[d] += site_xyz(s, site, (size_t)r->atoms[k])[d];
  for (int d = 0; d < 3; d++) c[d] /= r->n;
  for (int k = 0; k < r->n; k++) {
    const float *a = site_xyz(s, site, (size_t)r->atoms[k]), *b = site_xyz(s, site, (size_t)r->atoms[(k + 1) % r->n]);
    n[0] += (a[1] - b[1]) * (a[2] + b[2]);
    n[1] += (a[2] - b[2]) * (a[0] + b[0]);
    n[2] += (a[0] - b[0]) * (a[1] + b[1]);
  }
  float l = sqrtf(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
  if (!(l > 0)) l = 1, n[2] = 1;
  float dev = 0;
  for (int d = 0; d < 3; d++) {
    r->c[d] = c[d];
    r->nrm[d] = n[d] / l;
  }
  for (int k = 0; k < r->n; k++) {
    const float *a = site_xyz(s, site, (size_t)r->atoms[k]);
    float h = fabsf((a[0] - c[0]) * r->nrm[0] + (a[1] - c[1]) * r->nrm[1] + (a[2] - c[2]) * r->nrm[2]);
    if (h > dev) dev = h;
  }
  return dev;
}

static int lig_add_bond(lnode *ln, int32_t a, int32_t b, uint8_t ord) {
  if (a == b) return 0;
  for (int k = 0; k < ln[a].deg; k++)
    if (ln[a].nb[k] == b) return 0;
  if (ln[a].deg >= MAXNB || ln[b].deg >= MAXNB) return 0;
  ln[a].nb[ln[a].deg] = b;
  ln[a].ord[ln[a].deg++] = ord;
  ln[b].nb[ln[b].deg] = a;
  ln[b].ord[ln[b].deg++] = ord;
  return 0;
}

/* Valence for the implicit hydrogens of atoms without a definition: the default valence of the one table
 * (valence.h: RDKit's, C 4, N 3, O 2, S 2, Se 2, P 3, B 3, Si 4 ...); 0 for the halogens (default valence 1): a
 * halogen with its one bond has no H, and one without a bond is a halide ion (the CCD's F, CL, BR, IOD carry
 * charge -1), not HX. */
static int valence(uint8_t el) {
  int v = sp_valence_default(el);
  return v == 1 ? 0 : v;
}

/* one node per ligand heavy atom (w->ln, w->lmap, w->nsite; c->nl), element and the file's charge */
static int ligand_nodes(ctx *c) {
  const sp_structure *s = c->s;
  const sp_site *site = c->site;
  sp_chem_ws *w = c->w;
  size_t nlig = site->n_ligand;
  if (SP_GROW(w->lmap, w->cap_lmap, nlig + 1) || SP_GROW(w->ln, w->cap_ln, nlig + 1) ||
      SP_GROW(w->nsite, w->cap_nsite, nlig + 1))
    return sp_err_set(c->err, SP_E_NOMEM, "site chemistry: out of memory");
  size_t nl = 0;
  for (size_t k = 0; k < nlig; k++) {
    uint8_t el = s->element[site->atoms[k]];
    if (el == 1) {
      w->lmap[k] = -1;
      continue;
    }
    w->lmap[k] = (int32_t)nl;
    w->nsite[nl] = (int32_t)k;
    lnode *n = &w->ln[nl];
    memset(n, 0, sizeof *n);
    n->el = el;
    n->fcharge = s->charge[site->atoms[k]];
    nl++;
  }
  c->nl = nl;
  return 0;
}

/* bonds, H counts, charges and aromatic flags of the ligand atoms [k0, k1) of one residue from its CCD
 * definition @p def */
static int bonds_from_ccd(ctx *c, const sp_component *def, size_t k0, size_t k1) {
  const sp_structure *s = c->s;
  const sp_site *site = c->site;
  sp_chem_ws *w = c->w;
  if (SP_GROW(w->dmap, w->cap_dmap, def->n_atoms)) return sp_err_set(c->err, SP_E_NOMEM, "site chemistry: out of memory");
  for (size_t i = 0; i < def->n_atoms; i++) w->dmap[i] = -1;
  for (size_t k = k0; k < k1; k++) {
    if (w->lmap[k] < 0 || (s->atom_flags[site->atoms[k]] & SP_ATOM_REPEATED_NAME)) continue; /* no def: distances */
    int di = sp_component_atom_index(def, s->atom_name[site->atoms[k]]);
    if (di >= 0) {
      w->dmap[di] = w->lmap[k];
      lnode *n = &w->ln[w->lmap[k]];
      n->has_def = 1;
      if (def->atoms[di].charge_known) n->fcharge = def->atoms[di].charge;
      if (def->atoms[di].aromatic) n->arom = 1;
    }
  }
  for (size_t b = 0; b < def->n_bonds; b++) {
    const sp_comp_bond *cb = &def->bonds[b];
    if (cb->a >= def->n_atoms || cb->b >= def->n_atoms) continue;
    int32_t ia = w->dmap[cb->a], ib = w->dmap[cb->b];
    uint8_t ea = def->atoms[cb->a].element, eb = def->atoms[cb->b].element;
    if (ia >= 0 && eb == 1) w->ln[ia].nh++;
    else if (ib >= 0 && ea == 1) w->ln[ib].nh++;
    else if (ia >= 0 && ib >= 0) lig_add_bond(w->ln, ia, ib, cb->aromatic ? 4 : cb->order);
  }
  c->out->flags |= SP_CHEMF_GRAPH_CCD;
  return 0;
}

/* bonds and H counts of the ligand atoms [k0, k1) of one residue (component @p comp) from the file's
 * _chem_comp_bond rows */
static void bonds_from_file(ctx *c, const char *comp, size_t k0, size_t k1) {
  const sp_structure *s = c->s;
  const sp_site *site = c->site;
  sp_chem_ws *w = c->w;
  int any = 0;
  for (size_t b = 0; b < s->n_file_bonds; b++) {
    const sp_file_bond *fb = &s->file_bonds[b];
    if (strcmp(fb->comp_id, comp)) continue;
    int32_t ia = -1, ib = -1, ha = 0, hb = 0;
    for (size_t k = k0; k < k1; k++) {
      const char *nm = s->atom_name[site->atoms[k]];
      if (s->atom_flags[site->atoms[k]] & SP_ATOM_REPEATED_NAME) continue;
      if (!strcmp(nm, fb->atom1)) ia = (int32_t)k;
      if (!strcmp(nm, fb->atom2)) ib = (int32_t)k;
    }
    ha = fb->atom1[0] == 'H';
    hb = fb->atom2[0] == 'H';
    any = 1;
    if (ia >= 0 && w->lmap[ia] >= 0 && (ib >= 0 ? w->lmap[ib] < 0 : hb)) w->ln[w->lmap[ia]].nh++;
    else if (ib >= 0 && w->lmap[ib] >= 0 && (ia >= 0 ? w->lmap[ia] < 0 : ha)) w->ln[w->lmap[ib]].nh++;
    else if (ia >= 0 && ib >= 0 && w->lmap[ia] >= 0 && w->lmap[ib] >= 0) {
      lig_add_bond(w->ln, w->lmap[ia], w->lmap[ib], fb->aromatic ? 4 : fb->order);
    }
    if (ia >= 0 && w->lmap[ia] >= 0) w->ln[w->lmap[ia]].has_def = 2;
    if (ib >= 0 && w->lmap[ib] >= 0) w->ln[w->lmap[ib]].has_def = 2;
  }
  if (any) c->out->flags |= SP_CHEMF_GRAPH_FILE;
}

/* distance bonds: pairs where an atom has no definition, and pairs of different residues
 * (covalent radii + 0.4 Å, DESIGN.md's distance rule as in the survey) */
static void bonds_by_distance(ctx *c) {
  const sp_structure *s = c->s;
  const sp_site *site = c->site;
  sp_chem_ws *w = c->w;
  const size_t nl = c->nl;
  int used_dist = 0;
  for (size_t i = 0; i < nl; i++) {
    const float *a = X(c, w->nsite[i]);
    uint32_t ra = s->atom_residue[site->atoms[w->nsite[i]]];
    float rca = sp_element_covalent_radius(w->ln[i].el);
    for (size_t j = i + 1; j < nl; j++) {
      uint32_t rb = s->atom_residue[site->atoms[w->nsite[j]]];
      if (ra == rb && w->ln[i].has_def && w->ln[j].has_def) continue;
      if (sp_element_is_metal(w->ln[i].el) || sp_element_is_metal(w->ln[j].el)) continue;
      float lim = rca + sp_element_covalent_radius(w->ln[j].el) + 0.4f;
      float d2 = d2f(a, X(c, w->nsite[j]));
      if (d2 <= lim * lim && d2 > 0.16f) {
        /* bond order from the length where it is unambiguous: C=O < 1.30 Å (C-O 1.43), C=N < 1.30 Å
         * (amide 1.33, amine 1.47), C=S < 1.70 Å (C-S 1.82) */
        uint8_t ei = w->ln[i].el, ej = w->ln[j].el, ord = 1;
        uint8_t other = ei == 6 ? ej : ej == 6 ? ei : 0;
        if ((other == 8 || other == 7) && d2 < 1.30f * 1.30f) ord = 2;
        if (other == 16 && d2 < 1.70f * 1.70f) ord = 2;
        lig_add_bond(w->ln, (int32_t)i, (int32_t)j, ord);
        used_dist = 1;
      }
    }
  }
  if (used_dist) c->out->flags |= SP_CHEMF_GRAPH_DISTANCE;
}

/* charges the file does not state, for atoms without a definition: an N with four single bonds to
 * heavy atoms is a quaternary N+ (four sigma bonds, no lone pair), and a terminal O singly bonded to
 * it is the O- of an amine N-oxide R3N+-O- (IUPAC Gold Book, "amine oxides"), which carries no H */
static void implicit_charges(ctx *c) {
  sp_chem_ws *w = c->w;
  for (size_t i = 0; i < c->nl; i++) {
    lnode *n = &w->ln[i];
    if (n->has_def == 1 || n->el != 7 || n->deg != 4 || n->fcharge != 0) continue;
    int single = 1;
    for (int k = 0; k < n->deg; k++) single &= n->ord[k] == 1;
    if (!single) continue;
    n->fcharge = 1;
    for (int k = 0; k < n->deg; k++) {
      lnode *o = &w->ln[n->nb[k]];
      if (o->el == 8 && o->deg == 1 && o->has_def != 1 && o->fcharge == 0) o->fcharge = -1;
    }
  }
}

/* hydrogens: explicit H atoms of the file bonded by distance where no definition counted them;
 * else implicit from valence for atoms without a definition */
static void hydrogens(ctx *c) {
  sp_chem_ws *w = c->w;
  const size_t nlig = c->site->n_ligand;
  for (size_t i = 0; i < c->nl; i++) {
    lnode *n = &w->ln[i];
    if (n->has_def == 1) continue;
    int explicit_h = 0;
    for (size_t k = 0; k < nlig; k++)
      if (w->lmap[k] < 0 && d2f(X(c, (int32_t)k), X(c, w->nsite[i])) < 1.3f * 1.3f) explicit_h++;
    if (explicit_h) {
      n->nh = (uint8_t)explicit_h;
      n->explicit_h = 1;
      continue;
    }
    if (n->has_def == 2 && n->nh) continue;
    double sum = 0;
    for (int k = 0; k < n->deg; k++) sum += n->ord[k] == 4 ? 1.5 : n->ord[k];
    int v = valence(n->el) + (n->el == 7 && n->fcharge > 0 ? 1 : 0) - (n->el == 8 && n->fcharge < 0 ? 1 : 0);
    int h = v - (int)(sum + 0.5);
    n->nh = (uint8_t)(h > 0 ? h : 0);
  }
}

int sp_chem_ligand_graph(ctx *c, sp_ccd *ccd) {
  const sp_structure *s = c->s;
  const sp_site *site = c->site;
  int rc = ligand_nodes(c);
  if (rc) return rc;
  /* per ligand residue: CCD definition, else the file's bonds */
  const size_t nlig = site->n_ligand;
  size_t k0 = 0;
  while (k0 < nlig) {
    uint32_t r = s->atom_residue[site->atoms[k0]];
    size_t k1 = k0;
    while (k1 < nlig && s->atom_residue[site->atoms[k1]] == r) k1++;
    const char *comp = s->residues[r].comp_id;
    const sp_component *def = ccd ? sp_ccd_get(ccd, comp, NULL) : NULL;
    if (def && def->n_atoms) {
      if ((rc = bonds_from_ccd(c, def, k0, k1))) return rc;
    } else {
      bonds_from_file(c, comp, k0, k1);
    }
    k0 = k1;
  }
  bonds_by_distance(c);
  implicit_charges(c);
  hydrogens(c);
  return 0;
}

/* Whether ligand node i can be on a kept ring: at most 3 neighbours besides metals (every kept ring's atoms are
 * sp2: flagged aromatic by their definition, or C/N/O/S with <= 3 heavy neighbours; a haem N keeps its Fe). A
 * dense cluster of atoms, whose ring paths grow as the fifth power of its bonds per atom, is not walked. */
static int ring_candidate(const lnode *ln, int32_t i) {
  int k = 0;
  for (int j = 0; j < ln[i].deg; j++) k += !sp_element_is_metal(ln[ln[i].nb[j]].el);
  return k <= 3;
}

/* rings of 5 and 6 ligand heavy atoms (simple cycles through the smallest atom index) */
int sp_chem_add_ring(ctx *c, const int32_t *path, int n, int ligand) {
  sp_chem_ws *w = c->w;
  /* duplicate? compare atom sets */
  for (size_t r = 0; r < w->n_rings; r++) {
    if (w->rings[r].n != n || w->rings[r].ligand != ligand) continue;
    int same = 1;
    for (int i = 0; i < n && same; i++) {
      int f = 0;
      for (int j = 0; j < n; j++) f |= w->rings[r].atoms[j] == path[i];
      same = f;
    }
    if (same) return 0;
  }
  if (SP_GROW(w->rings, w->cap_rings, w->n_rings + 1)) return sp_err_set(c->err, SP_E_NOMEM, "site chemistry: out of memory");
  ring *rg = &w->rings[w->n_rings];
  memset(rg, 0, sizeof *rg);
  rg->n = (uint8_t)n;
  rg->ligand = (uint8_t)ligand;
  for (int i = 0; i < n; i++) rg->atoms[i] = path[i];
  w->n_rings++;
  return 0;
}

/* PLIP's ring_is_planar (plip/basic/supplemental.py): at each ring atom the normal of the plane through it and
 * its two ring neighbours; planar when every two of those normals are within SP_PLIP_AROMATIC_PLANARITY (5°)
 * of parallel or antiparallel. PLIP's find_rings (plip/structure/preparation.py) keeps a 5- or 6-ring that
 * Open Babel calls aromatic or that is planar by this test. */
static int ring_planar_plip(const ctx *c, const ring *rg) {
  float nrm[6][3];
  for (int i = 0; i < rg->n; i++) {
    const float *a = X(c, rg->atoms[i]), *p = X(c, rg->atoms[(i + rg->n - 1) % rg->n]);
    const float *q = X(c, rg->atoms[(i + 1) % rg->n]);
    float u[3] = {p[0] - a[0], p[1] - a[1], p[2] - a[2]}, v[3] = {q[0] - a[0], q[1] - a[1], q[2] - a[2]};
    nrm[i][0] = u[1] * v[2] - u[2] * v[1], nrm[i][1] = u[2] * v[0] - u[0] * v[2], nrm[i][2] = u[0] * v[1] - u[1] * v[0];
  }
  for (int i = 0; i < rg->n; i++)
    for (int j = i + 1; j < rg->n; j++) {
      float ang = vangle(nrm[i], nrm[j]);
      if (isnan(ang) || (ang > SP_PLIP_AROMATIC_PLANARITY && ang < 180.0f - SP_PLIP_AROMATIC_PLANARITY)) return 0;
    }
  return 1;
}

int sp_chem_ligand_rings(ctx *c) {
  sp_chem_ws *w = c->w;
  lnode *ln = w->ln;
  size_t nl = c->nl;
  /* iterative DFS of depth <= 6 from each start atom s over atoms > s */
  for (size_t s0 = 0; s0 < nl; s0++) {
    if (!ring_candidate(ln, (int32_t)s0)) continue;
    int32_t path[6];
    int it[6];
    int depth = 0;
    path[0] = (int32_t)s0;
    it[0] = 0;
    while (depth >= 0) {
      lnode *cur = &ln[path[depth]];
      if (it[depth] >= cur->deg) {
        depth--;
        continue;
      }
      int32_t nx = cur->nb[it[depth]++];
      if (nx == (int32_t)s0 && depth >= 4) {
        int32_t sp[6];
        for (int i = 0; i <= depth; i++) sp[i] = w->nsite[path[i]];
        if (sp_chem_add_ring(c, sp, depth + 1, 1)) return SP_E_NOMEM;
        continue;
      }
      if (nx <= (int32_t)s0 || depth >= 5 || !ring_candidate(ln, nx)) continue;
      int seen = 0;
      for (int i = 1; i <= depth; i++) seen |= path[i] == nx;
      if (seen) continue;
      path[++depth] = nx;
      it[depth] = 0;
    }
  }
  /* keep aromatic rings: every atom flagged aromatic by its definition, or (no flags) every
   * atom C/N/O/S with at most 3 heavy neighbours and the ring planar within 0.15 Å */
  size_t keep = 0;
  for (size_t r = 0; r < w->n_rings; r++) {
    ring *rg = &w->rings[r];
    int all_flag = 1, sp2 = 1, any_def = 0;
    for (int i = 0; i < rg->n; i++) {
      lnode *n = &ln[w->lmap[rg->atoms[i]]];
      all_flag &= n->arom;
      any_def |= n->has_def == 1;
      sp2 &= (n->el == 6 || n->el == 7 || n->el == 8 || n->el == 16) && n->deg <= 3;
      if (n->has_def && n->el == 6 && n->deg + n->nh > 3) sp2 = 0; /* sp3 carbon by its definition */
    }
    float dev = sp_chem_ring_plane(c->s, c->site, rg);
    int arom = any_def ? all_flag : (sp2 && dev <= 0.15f);
    /* a ring of a defined ligand that its definition does not flag aromatic but that is planar by PLIP's test:
     * a ring for PLIP's ring interactions (pi-stacking, pi-cation, the stacked-ring hydrophobic refinement), not
     * an aromatic ring for the atoms' chemistry (PLIP types atoms with Open Babel, not from its ring list):
     * the Kekule-flagged pyrroles B and D of a haem (1U5U HEM-Arg349 pi-cation) */
    rg->planar_only = (uint8_t)(!arom && any_def && ring_planar_plip(c, rg));
    if (arom || rg->planar_only) w->rings[keep++] = *rg;
  }
  w->n_rings = keep;
  for (size_t r = 0; r < keep; r++)
    for (int i = 0; i < w->rings[r].n && !w->rings[r].planar_only; i++)
      ln[w->lmap[w->rings[r].atoms[i]]].arom = 2; /* 2: in an aromatic ring */
  for (size_t i = 0; i < nl; i++) {
    if (ln[i].arom == 1) ln[i].arom = 0; /* flagged but in no 5/6 ring: not used as aromatic */
    /* implicit H of aromatic atoms without a definition: one ring bond counted double */
    if (ln[i].arom == 2 && ln[i].has_def != 1 && !ln[i].explicit_h) {
      int h = valence(ln[i].el) - 1 - ln[i].deg;
      ln[i].nh = (uint8_t)(h > 0 ? h : 0);
    }
  }
  return 0;
}


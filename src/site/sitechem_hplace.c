/* Site chemistry, hydrogens of donors that have none in the file (issue 37 item 1): placed where Open Babel
 * puts them when PLIP protonates the complex, so that PLIP's D–H···A, theta and omega criteria apply to them.
 *
 * PLIP 2.2.2 (plip/structure/preparation.py, PDBComplex.load_pdb) reads the PDB file with Open Babel (single
 * bonds from ConnectTheDots and CONECT, then PerceiveBondOrders) and calls OBMol::AddPolarHydrogens(); every
 * N/O with a hydrogen is then a donor and each (donor, H) pair is tested (detection.py hbonds: D–H···A >
 * HBOND_DON_ANGLE_MIN 100°; water_bridges: theta and omega with that H). AddPolarHydrogens (Open Babel 3.1.1,
 * src/mol.cpp AddNewHydrogens) adds the implicit hydrogens of each N, O, S, P one at a time, each at
 * OBBuilder::GetNewBondVector(atom, length) (src/builder.cpp), length = 0.31 Å + the donor's covalent radius
 * (x 0.95 for sp2: N–H 1.02 / 0.98, O–H 0.97 / 0.94 Å), with the bonds present at that moment:
 *  - one bond (to X): sp3 at 109.47° from X, sp2 at 120°, in the plane of D, X and "a-2" and anti to a-2,
 *    a-2 being the last neighbour of X other than D in X's bond list;
 *  - two bonds b1, b2 (unit vectors from the neighbours to D, in D's bond list order): sp2 on the bisector
 *    -(b1 + b2); sp3 at v2 + v1 / sqrt(2), v1 the unit bisector, v2 the unit b1 x b2;
 *  - three bonds, sp3: along b1 + b2 + b3.
 * The order of a bond list is the order the bonds were made: for polymer atoms (no CONECT) ConnectTheDots
 * walks the atoms by increasing z, so the neighbours come by increasing z of the file's coordinates; for
 * ligand atoms the CONECT records (by serial), so by file order. Measured on 8 corpus files without H
 * (1gzm 1hii 1iqj 1k6p 1kmk 1kwf 1n7g 1osn): the H Open Babel adds is anti to the neighbour that rule names
 * for 6756 of 7190 polymer and 186 of 235 ligand donors with one heavy neighbour (the rest: carboxyl O,
 * which Open Babel treats apart and sitepack does not count as donors at pH 7.4, and ligands without CONECT).
 * Hybridization as Open Babel's atom typer gives it (checked on SMILES with pybel): sp2 when the donor has a
 * double or aromatic bond, or is bonded to a C or N that has one (amide N, aniline N, phenol and enol O,
 * pyrrole N); sp3 otherwise (alcohols, amines, sulfonamide N, phosphate O). */
#include "site/sitechem_internal.h"

#define OB_MAXNB 8

/* in-residue heavy atoms bonded to polymer site atom k (within 1.9 Å) */
static int polymer_neighbours(const ctx *c, int32_t k, int32_t *out) {
  size_t rs = c->site->atom_res[k];
  int32_t f = c->w->res_first[rs], nn = c->w->res_n[rs];
  int n = 0;
  for (int32_t q = f; q < f + nn && n < OB_MAXNB; q++)
    if (q != k && EL(c, q) != 1 && d2f(X(c, q), X(c, k)) <= 1.9f * 1.9f) out[n++] = q;
  return n;
}

/* the heavy neighbours of site atom k in Open Babel's bond-list order (see the file's head): ligand atoms
 * by file order, polymer atoms by increasing z in the file's frame; -1 when k's bonds are not known */
static int ob_neighbours(const ctx *c, int32_t k, int32_t *out) {
  int n = 0;
  int lig = k < (int32_t)c->site->n_ligand;
  if (lig) {
    int32_t i = c->w->lmap[k];
    if (i < 0) return -1;
    const lnode *L = &c->w->ln[i];
    for (int q = 0; q < L->deg && n < OB_MAXNB; q++) out[n++] = c->w->nsite[L->nb[q]];
  } else {
    if (!is_polymer_atom(c, k)) return -1;
    n = polymer_neighbours(c, k, out);
  }
  for (int a = 1; a < n; a++) /* insertion sort: few atoms */
    for (int b = a; b > 0; b--) {
      const float *p = c->s->xyz[c->site->atoms[out[b - 1]]], *q = c->s->xyz[c->site->atoms[out[b]]];
      int swap = lig ? c->site->atoms[out[b - 1]] > c->site->atoms[out[b]] : p[2] > q[2];
      if (!swap) break;
      int32_t t = out[b];
      out[b] = out[b - 1], out[b - 1] = t;
    }
  return n;
}

/* does ligand atom k have a double, triple or aromatic bond */
static int lig_unsaturated(const ctx *c, int32_t k) {
  int32_t i = c->w->lmap[k];
  if (i < 0) return 0;
  const lnode *L = &c->w->ln[i];
  if (L->arom) return 1;
  for (int q = 0; q < L->deg; q++)
    if (L->ord[q] >= 2) return 1;
  return 0;
}

/* Open Babel's hybridization (2 or 3) of donor d and the number of H it adds; 0 when not known here */
static int ob_donor_type(const ctx *c, int32_t d, const int32_t *nb, int n, int *nh) {
  if (d >= (int32_t)c->site->n_ligand) {
    static const struct { const char *res, *atom; int hyb, nh; } T[] = {
        {"SER", "OG", 3, 1}, {"THR", "OG1", 3, 1}, {"TYR", "OH", 2, 1}, {"LYS", "NZ", 3, 2},
    };
    for (size_t t = 0; t < sizeof T / sizeof *T; t++)
      if (!strcmp(RNAME(c, d), T[t].res) && !strcmp(ANAME(c, d), T[t].atom)) return *nh = T[t].nh, T[t].hyb;
    return 0;
  }
  int32_t i = c->w->lmap[d];
  if (i < 0 || !c->w->ln[i].nh) return 0;
  *nh = c->w->ln[i].nh > 3 ? 3 : c->w->ln[i].nh;
  if (lig_unsaturated(c, d)) return 2;
  for (int q = 0; q < n; q++) {
    uint8_t e = EL(c, nb[q]);
    if ((e == 6 || e == 7) && lig_unsaturated(c, nb[q])) return 2;
  }
  return 3;
}

static void sub3(const float *a, const float *b, double *o) {
  for (int q = 0; q < 3; q++) o[q] = (double)a[q] - b[q];
}
static int unit3(double *v) {
  double l = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
  if (!(l > 1e-6)) return 0;
  for (int q = 0; q < 3; q++) v[q] /= l;
  return 1;
}
static void cross3(const double *a, const double *b, double *o) {
  o[0] = a[1] * b[2] - a[2] * b[1], o[1] = a[2] * b[0] - a[0] * b[2], o[2] = a[0] * b[1] - a[1] * b[0];
}

/* GetNewBondVector's direction for donor D at @p dp with one bond, to X (site atom x): in the plane of
 * a-2 (the last neighbour of X other than D), anti to it, at 120° (sp2) or 109.47° (sp3) from X */
static int one_bond(const ctx *c, int32_t d, const float *dp, int32_t x, int hyb, double *nb) {
  int32_t xn[OB_MAXNB];
  int m = ob_neighbours(c, x, xn);
  int32_t a2 = -1;
  for (int q = 0; q < m; q++)
    if (xn[q] != d) a2 = xn[q];
  if (a2 < 0) return 0; /* Open Babel turns to a random vector: not reproducible */
  double b1[3], b2[3], v1[3], v2[3];
  sub3(dp, X(c, x), b1);
  sub3(X(c, x), X(c, a2), b2);
  if (!unit3(b1)) return 0;
  cross3(b1, b2, v1);
  cross3(b1, v1, v2);
  if (!unit3(v2)) return 0;
  double t = hyb == 2 ? 1.7320508075688772 /* tan 60° */ : 2.8284271247461903 /* tan 70.529° */;
  for (int q = 0; q < 3; q++) nb[q] = b1[q] - v2[q] * t;
  return unit3(nb);
}

/* GetNewBondVector's direction with two or three bonds from the points p[0..n) (D's bond list order) */
static int more_bonds(const float *dp, const float (*p)[3], int n, int hyb, double *nb) {
  double b[3][3];
  for (int k = 0; k < n; k++) {
    sub3(dp, p[k], b[k]);
    if (!unit3(b[k])) return 0;
  }
  if (n == 3) {
    if (hyb != 3) return 0;
    for (int q = 0; q < 3; q++) nb[q] = b[0][q] + b[1][q] + b[2][q];
    return unit3(nb);
  }
  double v1[3] = {b[0][0] + b[1][0], b[0][1] + b[1][1], b[0][2] + b[1][2]}, v2[3];
  if (!unit3(v1)) return 0;
  if (hyb == 2) return memcpy(nb, v1, sizeof v1), 1;
  cross3(b[0], b[1], v2);
  if (!unit3(v2)) return 0;
  for (int q = 0; q < 3; q++) nb[q] = v2[q] + v1[q] * 0.7071067811865476;
  return unit3(nb);
}

int sp_chem_place_h(const ctx *c, int32_t d, float h[][3], int max) {
  uint8_t el = EL(c, d);
  if (el != 7 && el != 8) return 0;
  int32_t nb[OB_MAXNB];
  int n = ob_neighbours(c, d, nb), nh = 0;
  if (n < 1 || n > 3) return 0;
  int hyb = ob_donor_type(c, d, nb, n, &nh);
  if (!hyb) return 0;
  if (nh > max) nh = max;
  const float *dp = X(c, d);
  float pts[3][3]; /* D's bond list: its heavy neighbours, then the H added so far */
  for (int q = 0; q < n; q++) memcpy(pts[q], X(c, nb[q]), sizeof pts[0]);
  double len = 0.31 + (el == 7 ? 0.71 : 0.66) * (hyb == 2 ? 0.95 : 1.0); /* Open Babel's covalent radii */
  int placed = 0;
  for (int k = 0; k < nh && n + k <= 3; k++) {
    double v[3];
    int ok = n + k == 1 ? one_bond(c, d, dp, nb[0], hyb, v) : more_bonds(dp, (const float(*)[3])pts, n + k, hyb, v);
    if (!ok) break;
    for (int q = 0; q < 3; q++) h[placed][q] = (float)(dp[q] + v[q] * len);
    if (n + k < 3) memcpy(pts[n + k], h[placed], sizeof pts[0]);
    placed++;
  }
  return placed;
}

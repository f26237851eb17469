/* Heavy-atom states of perceive.h: which atoms the geometry shows unsaturated, and how many units each must,
 * or may, pair. Thresholds (perceive.h): planar when the three bond angles add to >= 350 degrees (sp3 ~ 328),
 * linear at >= 155 degrees, shortened when a bond is >= 0.08 Å (aromatic, >= 0.10 for a terminal atom)
 * shorter than the sum of the Cordero covalent radii (sp3 single bonds: C-C 1.52, C-N 1.47, C-O 1.42 Å;
 * aromatic C-C 1.39, C=C 1.33, C=O 1.21, C#C 1.20, C#N 1.16), triple at >= 0.24 Å. */
#include <math.h>

#include "perceive_internal.h"

#define PLANAR_SUM_DEG 350.0
#define LINEAR_DEG 155.0
#define SHORT_RING_A 0.08
#define SHORT_DOUBLE_A 0.10
#define SHORT_TRIPLE_A 0.24
/* A 5- or 6-membered ring is flat when every atom lies within 0.12 Å of its mean plane (aromatic rings of
 * deposited ligands ~0.02-0.05 Å; envelope / half-chair rings 0.2-0.3 Å); a CH2 in a flat ring (indane) is told
 * from an aromatic CH by its two ring bonds, on average >= 0.04 Å shorter than single for an aromatic C (1.39
 * against 1.52 Å), ~0.01 Å for an sp3 C. */
#define FLAT_RING_A 0.12
/* A C with two bonds outside a flat ring is sp2 only with its angle >= 115 degrees (sp2 ~120-125, sp3 CH2
 * 109-113: the CH2 of a poly(ethylene glycol) whose C-O bonds are short in a poor deposit stays sp3) and a bond
 * >= 0.10 Å short. */
#define CHAIN_SP2_DEG 115.0
#define FLAT_CH_SHORT_A 0.04

/* Angle (degrees) at atom i between its neighbours j and k. */
static double angle(const pc_mol *M, uint32_t i, uint32_t j, uint32_t k) {
  double u[3], v[3], uu = 0, vv = 0, uv = 0;
  for (int c = 0; c < 3; c++) {
    u[c] = M->xyz[j][c] - M->xyz[i][c], v[c] = M->xyz[k][c] - M->xyz[i][c];
    uu += u[c] * u[c], vv += v[c] * v[c], uv += u[c] * v[c];
  }
  if (uu <= 0 || vv <= 0) return 0;
  double x = uv / sqrt(uu * vv);
  return acos(x > 1 ? 1 : x < -1 ? -1 : x) * (180.0 / 3.14159265358979323846);
}

/* Sum of the angles at i between each pair of its (up to three) neighbours in the molecule; the one angle for
 * two. */
static double angle_sum(const pc_mol *M, uint32_t i) {
  const uint32_t *nb = M->nbr + M->off[i];
  int d = (int)(M->off[i + 1] - M->off[i]);
  if (d == 2) return angle(M, i, nb[0], nb[1]);
  if (d == 3) return angle(M, i, nb[0], nb[1]) + angle(M, i, nb[0], nb[2]) + angle(M, i, nb[1], nb[2]);
  return 0;
}

/* Largest shortening (Å) of atom i's counted bonds against the sum of covalent radii. */
static double max_short(const pc_mol *M, uint32_t i) {
  double m = -1e9;
  for (uint32_t t = M->off[i]; t < M->off[i + 1]; t++)
    if (M->esc[M->nbond[t]] > m) m = M->esc[M->nbond[t]];
  return m;
}

/* Whether bond slot t of atom i is a terminal O / N-oxide pair: i an N with 3 bonds, its neighbour an O with
 * only that bond, shortened >= 0.10 Å (nitro and N-oxide N-O 1.22-1.30 Å; N-OH 1.40, single 1.37). */
static bool n_oxide_slot(const pc_mol *M, uint32_t i, uint32_t t) {
  uint32_t j = M->nbr[t];
  return M->z[i] == 7 && M->off[i + 1] - M->off[i] == 3 && M->z[j] == 8 && M->off[j + 1] - M->off[j] == 1 &&
         M->esc[M->nbond[t]] >= SHORT_DOUBLE_A;
}

/* Whether terminal atom i is bound to an N with four bonds (an amine oxide's O: IUPAC Gold Book, "amine
 * oxides"; sitepack's valence rule, valence.h). */
static bool on_quaternary_n(const pc_mol *M, uint32_t i) {
  if (M->off[i + 1] - M->off[i] != 1) return false;
  uint32_t j = M->nbr[M->off[i]];
  return M->z[j] == 7 && M->off[j + 1] - M->off[j] + (M->ext ? M->ext[j] : 0) == 4; /* its links counted */
}

/* Whether atom i is the N of an N-oxide pair (some bond slot of it is one), or the O of one (its one bond, seen
 * from the N's side: the N's slot that points back to i). */
static bool has_n_oxide(const pc_mol *M, uint32_t i) {
  for (uint32_t t = M->off[i]; t < M->off[i + 1]; t++) {
    if (n_oxide_slot(M, i, t)) return true;
    uint32_t j = M->nbr[t];
    for (uint32_t u = M->off[j]; u < M->off[j + 1]; u++)
      if (M->nbr[u] == i && n_oxide_slot(M, j, u)) return true;
  }
  return false;
}

/* Whether atom i with d bonds (its bonds in the molecule and to outside) is planar: three angles adding to >=
 * 350 degrees, or, with one of its three bonds outside the molecule, its one angle >= 114 (sp2 120, sp3 109.5). */
static bool planar3(const pc_mol *M, uint32_t i, int d) {
  int dn = (int)(M->off[i + 1] - M->off[i]);
  double a = angle_sum(M, i);
  return d == 3 && ((dn == 3 && a >= PLANAR_SUM_DEG) || (dn == 2 && a >= 114.0));
}

/* Largest distance (Å) of the ring's atoms from the plane through their centroid with Newell's normal. */
static double ring_deviation(const pc_mol *M, const uint32_t *r, int n) {
  double c[3] = {0, 0, 0}, nv[3] = {0, 0, 0};
  for (int i = 0; i < n; i++)
    for (int k = 0; k < 3; k++) c[k] += M->xyz[r[i]][k] / n;
  for (int i = 0; i < n; i++) {
    const float *p = M->xyz[r[i]], *q = M->xyz[r[(i + 1) % n]];
    nv[0] += (p[1] - q[1]) * (p[2] + q[2]);
    nv[1] += (p[2] - q[2]) * (p[0] + q[0]);
    nv[2] += (p[0] - q[0]) * (p[1] + q[1]);
  }
  double len = sqrt(nv[0] * nv[0] + nv[1] * nv[1] + nv[2] * nv[2]), dev = 0;
  if (len <= 0) return 1e9;
  for (int i = 0; i < n; i++) {
    double h = 0;
    for (int k = 0; k < 3; k++) h += (M->xyz[r[i]][k] - c[k]) * nv[k] / len;
    if (fabs(h) > dev) dev = fabs(h);
  }
  return dev;
}

/* Whether ring atoms may be aromatic: C, N, O, S, Se with at most 3 bonds. */
static bool ring_element_ok(const void *ctx, uint32_t a) {
  const pc_mol *M = ctx;
  uint8_t z = M->z[a];
  return (z == 6 || z == 7 || z == 8 || z == 16 || z == 34) && M->off[a + 1] - M->off[a] <= 3;
}

static void mark_if_flat(void *ctx, const uint32_t *r, int n) {
  pc_mol *M = ctx;
  if (ring_deviation(M, r, n) > FLAT_RING_A) return;
  for (int i = 0; i < n; i++) M->flat[r[i]] = 1;
}

void pc_mark_flat_rings(pc_mol *M) { pc_small_rings(M->n, M->off, M->nbr, ring_element_ok, mark_if_flat, M); }

/* Mean shortening (Å) of atom i's bonds to atoms of flat rings. */
static double ring_short(const pc_mol *M, uint32_t i) {
  double sum = 0;
  int n = 0;
  for (uint32_t t = M->off[i]; t < M->off[i + 1]; t++)
    if (M->flat[M->nbr[t]]) sum += M->esc[M->nbond[t]], n++;
  return n ? sum / n : -1e9;
}

/* Whether C atom i has a terminal O or S bonded >= 0.15 Å shorter than single (C=O 1.20-1.25 Å against C-O
 * 1.42; a carboxyl or carbonyl C whose deposited angles are not planar). */
static bool carbonyl(const pc_mol *M, uint32_t i) {
  for (uint32_t t = M->off[i]; t < M->off[i + 1]; t++) {
    uint32_t j = M->nbr[t];
    if ((M->z[j] == 8 || M->z[j] == 16) && M->off[j + 1] - M->off[j] == 1 && M->esc[M->nbond[t]] >= 0.15f) return true;
  }
  return false;
}

/* Units a carbon's geometry says it has: 3 bonds planar 1; 2 bonds linear 2, shortened 1; 1 bond by its
 * length (double / triple). */
static int carbon_units(const pc_mol *M, uint32_t i, int d) {
  double s = max_short(M, i), a = angle_sum(M, i);
  int dn = (int)(M->off[i + 1] - M->off[i]);
  if (M->flat[i] && d == 3) return 1;
  if (M->flat[i] && d == 2 && dn == 2) return ring_short(M, i) >= FLAT_CH_SHORT_A;
  if (d == 3) return planar3(M, i, d) || carbonyl(M, i);
  if (d == 2 && dn == 2) return a >= LINEAR_DEG ? 2 : (a >= CHAIN_SP2_DEG && s >= SHORT_DOUBLE_A);
  if (d == 2 || d == 1) return s >= SHORT_TRIPLE_A && d == 1 ? 2 : s >= SHORT_DOUBLE_A;
  return 0;
}

void pc_states_geometry(pc_mol *M, uint32_t i, int d) {
  pc_atom *a = &M->atoms[i];
  a->nst = 0;
  double ang = angle_sum(M, i), s = max_short(M, i);
  bool planar = planar3(M, i, d) || (M->flat[i] && d == 3),
       linear = d == 2 && M->off[i + 1] - M->off[i] == 2 && ang >= LINEAR_DEG;
  switch (M->z[i]) {
    case 6: {
      int u = carbon_units(M, i, d);
      if (u > 4 - d) u = 4 - d;
      if (u > 0) pc_add_state(a, u, u, 0, 0);
      /* a bond outside the molecule (d counts it) may hold one of the units: the Schiff base C=N of a PLP
       * bound to a lysine, whose order the link does not state */
      if (u > 0 && d > (int)(M->off[i + 1] - M->off[i])) pc_add_state(a, u - 1, u - 1, 0, 0);
      pc_add_state(a, 0, 0, 0, u > 0 ? 4 : 0);
      break;
    }
    case 7:
      if (d == 4) pc_add_state(a, 0, 0, +1, 1);
      if (planar && has_n_oxide(M, i)) pc_add_state(a, 1, 1, +1, 0); /* nitro, N-oxide N+ */
      if (d == 3) pc_add_state(a, 0, 0, 0, 0);
      if (planar) pc_add_state(a, 1, 1, +1, 1);
      if (d == 2) pc_add_state(a, 0, 1, 0, 0);
      if (linear) pc_add_state(a, 2, 2, +1, 1);
      if (d <= 1) pc_add_state(a, 0, d ? (s >= SHORT_TRIPLE_A ? 2 : 1) : 0, 0, 0);
      break;
    case 8:
      if (d == 1 && has_n_oxide(M, i)) pc_add_state(a, 1, 1, 0, 0), pc_add_state(a, 0, 0, -1, 0); /* its O= and O- */
      else if (d == 1 && on_quaternary_n(M, i)) pc_add_state(a, 0, 0, -1, 0); /* amine oxide R3N+-O- */
      else if (d <= 1) pc_add_state(a, 0, d, 0, 0);
      if (d == 2) pc_add_state(a, 0, 0, 0, 0);
      if (d == 2 && s >= SHORT_RING_A / 2) pc_add_state(a, 1, 1, +1, 1);
      if (d == 3) pc_add_state(a, 0, 0, +1, 1);
      break;
    case 16:
    case 34:
      if (d <= 1) pc_add_state(a, 0, d, 0, 0);
      if (d == 2) pc_add_state(a, 0, 0, 0, 0);
      if (d == 3) pc_add_state(a, 1, 1, 0, 0), pc_add_state(a, 0, 0, +1, 1);
      if (d == 4) pc_add_state(a, 2, 2, 0, 0), pc_add_state(a, 0, 0, 0, 4);
      if (d == 6) pc_add_state(a, 0, 0, 0, 0);
      break;
    case 15:
    case 33:
      if (d == 4) pc_add_state(a, 1, 1, 0, 0), pc_add_state(a, 0, 0, +1, 1);
      if (d == 3 || d == 5) pc_add_state(a, 0, 0, 0, 0);
      break;
    default:
      pc_states_explicit(a, M->z[i], d); /* H, B, halogens, Si ...: as their bonds say */
      break;
  }
}

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

static void add(pc_atom *a, int lo, int hi, int q, int cost) {
  if (a->nst < PC_MAX_STATES) a->st[a->nst++] = (pc_state){(int8_t)lo, (int8_t)hi, (int8_t)q, (uint8_t)cost};
}

/* Angle (degrees) at atom i between its neighbours j and k. */
static double angle(const pc_mol *M, uint32_t i, uint32_t j, uint32_t k) {
  double u[3], v[3], uu = 0, vv = 0, uv = 0;
  for (int c = 0; c < 3; c++) {
    u[c] = M->xyz[j][c] - M->xyz[i][c], v[c] = M->xyz[k][c] - M->xyz[i][c];
    uu += u[c] * u[c], vv += v[c] * v[c], uv += u[c] * v[c];
  }
  if (uu <= 0 || vv <= 0) return 0;
  double x = uv / sqrt(uu * vv);
  return acos(x > 1 ? 1 : x < -1 ? -1 : x) * 180.0 / M_PI;
}

/* Sum of the angles at i between each pair of its (up to three) neighbours; the one angle for two. */
static double angle_sum(const pc_mol *M, uint32_t i, int d) {
  const uint32_t *nb = M->nbr + M->off[i];
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

static bool has_n_oxide(const pc_mol *M, uint32_t i) {
  for (uint32_t t = M->off[i]; t < M->off[i + 1]; t++)
    if (n_oxide_slot(M, i, t) || n_oxide_slot(M, M->nbr[t], M->off[M->nbr[t]])) return true;
  return false;
}

/* Units a carbon's geometry says it has: 3 bonds planar 1; 2 bonds linear 2, shortened 1; 1 bond by its
 * length (double / triple). */
static int carbon_units(const pc_mol *M, uint32_t i, int d) {
  double s = max_short(M, i), a = angle_sum(M, i, d);
  if (d == 3) return a >= PLANAR_SUM_DEG;
  if (d == 2) return a >= LINEAR_DEG ? 2 : s >= SHORT_RING_A;
  if (d == 1) return s >= SHORT_TRIPLE_A ? 2 : s >= SHORT_DOUBLE_A;
  return 0;
}

void pc_states_geometry(pc_mol *M, uint32_t i, int d) {
  pc_atom *a = &M->atoms[i];
  a->nst = 0;
  double ang = angle_sum(M, i, d), s = max_short(M, i);
  switch (M->z[i]) {
  case 6: {
    int u = carbon_units(M, i, d);
    if (u > 4 - d) u = 4 - d;
    if (u > 0) add(a, u, u, 0, 0);
    add(a, 0, 0, 0, u > 0 ? 4 : 0);
    break;
  }
  case 7:
    if (d == 4) add(a, 0, 0, +1, 1);
    if (d == 3 && ang >= PLANAR_SUM_DEG && has_n_oxide(M, i)) add(a, 1, 1, +1, 0); /* nitro, N-oxide N+ */
    if (d == 3) add(a, 0, 0, 0, 0);
    if (d == 3 && ang >= PLANAR_SUM_DEG) add(a, 1, 1, +1, 1);
    if (d == 2) add(a, 0, 1, 0, 0);
    if (d == 2 && ang >= LINEAR_DEG) add(a, 2, 2, +1, 1);
    if (d <= 1) add(a, 0, d ? (s >= SHORT_TRIPLE_A ? 2 : 1) : 0, 0, 0);
    break;
  case 8:
    if (d == 1 && has_n_oxide(M, i)) add(a, 1, 1, 0, 0), add(a, 0, 0, -1, 0); /* its O= and O- */
    else if (d <= 1) add(a, 0, d, 0, 0);
    if (d == 2) add(a, 0, 0, 0, 0);
    if (d == 2 && s >= SHORT_RING_A / 2) add(a, 1, 1, +1, 1);
    if (d == 3) add(a, 0, 0, +1, 1);
    break;
  case 16:
  case 34:
    if (d <= 1) add(a, 0, d, 0, 0);
    if (d == 2) add(a, 0, 0, 0, 0);
    if (d == 3) add(a, 1, 1, 0, 0), add(a, 0, 0, +1, 1);
    if (d == 4) add(a, 2, 2, 0, 0), add(a, 0, 0, 0, 4);
    if (d == 6) add(a, 0, 0, 0, 0);
    break;
  case 15:
  case 33:
    if (d == 4) add(a, 1, 1, 0, 0), add(a, 0, 0, +1, 1);
    if (d == 3 || d == 5) add(a, 0, 0, 0, 0);
    break;
  default:
    pc_states_explicit(a, M->z[i], d); /* H, B, halogens, Si ...: as their bonds say */
    break;
  }
}

/* Shrake–Rupley solvent-accessible surface (include/sitepack/sitechem.h, docs/sites.md). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sitepack/sitechem.h"
#include "sasa_internal.h"

/* Points on the unit sphere, golden-section spiral (the construction of MDTraj's
 * shrake_rupley, so that results are directly comparable):
 * y_k = k*2/n - 1 + 1/n, r_k = sqrt(1 - y_k^2), phi_k = k*pi*(3 - sqrt 5). */
void sp_sasa_sphere_points(int n, float (*p)[3]) {
  const double inc = M_PI * (3.0 - sqrt(5.0));
  const double off = 2.0 / n;
  for (int k = 0; k < n; k++) {
    double y = k * off - 1.0 + off / 2.0;
    double r = sqrt(fmax(0.0, 1.0 - y * y));
    double phi = k * inc;
    p[k][0] = (float)(cos(phi) * r);
    p[k][1] = (float)y;
    p[k][2] = (float)(sin(phi) * r);
  }
}

typedef struct nb {
  float x, y, z, r2;
} nb;

static int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return x < y ? -1 : x > y;
}

int sp_sasa(size_t n, const float (*xyz)[3], const float *radii, const uint8_t *query, float probe, int n_points,
            float *out, sp_err *err) {
  if ((n && (!xyz || !radii || !out)) || n_points < 1 || n_points > 100000 || !(probe >= 0.0f) || !isfinite(probe))
    return sp_err_set(err, SP_E_INVALID, "sasa: bad argument (n_points %d, probe %g)", n_points, (double)probe);
  if (n == 0) return 0;
  float rmax = 0.0f;
  for (size_t i = 0; i < n; i++) {
    if (!(radii[i] > 0.0f) || !isfinite(radii[i]))
      return sp_err_set(err, SP_E_INVALID, "sasa: atom %zu has radius %g", i, (double)radii[i]);
    if (radii[i] > rmax) rmax = radii[i];
  }
  int rc = 0;
  float(*pts)[3] = malloc((size_t)n_points * sizeof *pts);
  /* cell list over finite atoms: key = packed cell coordinates, sorted */
  int64_t *keys = malloc(n * sizeof *keys);
  uint32_t *order = malloc(n * sizeof *order);
  nb *nbs = malloc(n * sizeof *nbs);
  size_t *idx = malloc(n * sizeof *idx);
  if (!pts || !keys || !order || !nbs || !idx) {
    rc = sp_err_set(err, SP_E_NOMEM, "sasa: out of memory (%zu atoms)", n);
    goto done;
  }
  sp_sasa_sphere_points(n_points, pts);
  const float cell = 2.0f * (rmax + probe);
  const float inv = 1.0f / cell;
  /* key: 21 bits per axis, offset; keys sorted with the atom index in the low bits is not
   * possible for large n, so sort (key, index) pairs through an index array */
  size_t nf = 0;
  for (size_t i = 0; i < n; i++) {
    out[i] = NAN;
    if (!isfinite(xyz[i][0]) || !isfinite(xyz[i][1]) || !isfinite(xyz[i][2])) continue;
    int64_t c[3];
    for (int d = 0; d < 3; d++) {
      double v = floor((double)xyz[i][d] * inv);
      if (v < -(1 << 20)) v = -(1 << 20);
      if (v > (1 << 20) - 2) v = (1 << 20) - 2;
      c[d] = (int64_t)v + (1 << 20);
    }
    keys[nf] = (c[0] << 42) | (c[1] << 21) | c[2];
    idx[nf] = i;
    nf++;
  }
  /* sort indices by key (pairs packed into a temporary array of int64: key is < 2^63) */
  {
    int64_t *pk = malloc(nf * 2 * sizeof *pk);
    if (!pk) {
      rc = sp_err_set(err, SP_E_NOMEM, "sasa: out of memory (%zu atoms)", n);
      goto done;
    }
    for (size_t k = 0; k < nf; k++) {
      pk[2 * k] = keys[k];
      pk[2 * k + 1] = (int64_t)idx[k];
    }
    qsort(pk, nf, 2 * sizeof *pk, cmp_i64); /* compares the key (first int64 of each pair) */
    for (size_t k = 0; k < nf; k++) {
      keys[k] = pk[2 * k];
      order[k] = (uint32_t)pk[2 * k + 1];
    }
    free(pk);
  }
  for (size_t i = 0; i < n; i++) {
    if (query && !query[i]) continue;
    if (!isfinite(xyz[i][0]) || !isfinite(xyz[i][1]) || !isfinite(xyz[i][2])) continue;
    const float ri = radii[i] + probe;
    int64_t c[3];
    for (int d = 0; d < 3; d++) {
      double v = floor((double)xyz[i][d] * inv);
      if (v < -(1 << 20)) v = -(1 << 20);
      if (v > (1 << 20) - 2) v = (1 << 20) - 2;
      c[d] = (int64_t)v + (1 << 20);
    }
    size_t nn = 0;
    for (int dx = -1; dx <= 1; dx++)
      for (int dy = -1; dy <= 1; dy++) {
        /* the three z cells of (dx, dy) are contiguous in key order */
        int64_t k0 = ((c[0] + dx) << 42) | ((c[1] + dy) << 21) | (c[2] - 1);
        int64_t k1 = k0 + 2;
        size_t lo = 0, hi = nf;
        while (lo < hi) {
          size_t mid = (lo + hi) / 2;
          if (keys[mid] < k0) lo = mid + 1;
          else hi = mid;
        }
        for (size_t k = lo; k < nf && keys[k] <= k1; k++) {
          size_t j = order[k];
          if (j == i) continue;
          float rj = radii[j] + probe;
          float ddx = xyz[j][0] - xyz[i][0], ddy = xyz[j][1] - xyz[i][1], ddz = xyz[j][2] - xyz[i][2];
          float d2 = ddx * ddx + ddy * ddy + ddz * ddz;
          float lim = ri + rj;
          if (d2 < lim * lim) {
            nbs[nn].x = ddx;
            nbs[nn].y = ddy;
            nbs[nn].z = ddz;
            nbs[nn].r2 = rj * rj;
            nn++;
          }
        }
      }
    int acc = 0;
    size_t last = 0;
    for (int p = 0; p < n_points; p++) {
      float px = pts[p][0] * ri, py = pts[p][1] * ri, pz = pts[p][2] * ri;
      int buried = 0;
      if (nn) {
        /* the last occluder first: neighbouring points are usually hidden by the same atom */
        const nb *b = &nbs[last];
        float ex = px - b->x, ey = py - b->y, ez = pz - b->z;
        if (ex * ex + ey * ey + ez * ez < b->r2) buried = 1;
        for (size_t k = 0; k < nn && !buried; k++) {
          b = &nbs[k];
          ex = px - b->x;
          ey = py - b->y;
          ez = pz - b->z;
          if (ex * ex + ey * ey + ez * ez < b->r2) {
            buried = 1;
            last = k;
          }
        }
      }
      acc += !buried;
    }
    out[i] = (float)(4.0 * M_PI * (double)ri * (double)ri * (double)acc / (double)n_points);
  }
done:
  free(pts);
  free(keys);
  free(order);
  free(nbs);
  free(idx);
  return rc;
}

static inline int finite3(const float *p) { return isfinite(p[0]) && isfinite(p[1]) && isfinite(p[2]); }

/* Occluder lists in structure-of-arrays form, padded to a multiple of 8 with entries that never
 * cover (r2 = -1), so that the test runs 8 occluders at a time (two 4-wide vectors with the GNU
 * vector extension; a plain loop elsewhere). */
typedef struct occ_list {
  float *x, *y, *z, *r2;
  size_t n, n8;
  size_t last;
} occ_list;

static void occ_pad(occ_list *o) {
  o->n8 = (o->n + 7) & ~(size_t)7;
  for (size_t k = o->n; k < o->n8; k++) o->x[k] = o->y[k] = o->z[k] = 0.0f, o->r2[k] = -1.0f;
  o->last = 0;
}

#if defined(__GNUC__)
typedef float v4f __attribute__((vector_size(16)));
typedef int v4i __attribute__((vector_size(16)));
static inline v4f ld4(const float *p) {
  v4f v;
  memcpy(&v, p, sizeof v);
  return v;
}
#endif

/* does any occluder cover the point (px, py, pz)? the last hit is tried first */
static inline int covered(occ_list *o, float px, float py, float pz) {
  if (!o->n) return 0;
  size_t l = o->last;
  float ex = px - o->x[l], ey = py - o->y[l], ez = pz - o->z[l];
  if (ex * ex + ey * ey + ez * ez < o->r2[l]) return 1;
#if defined(__GNUC__)
  const v4f vx = {px, px, px, px}, vy = {py, py, py, py}, vz = {pz, pz, pz, pz};
  for (size_t k = 0; k < o->n8; k += 8) {
    v4f ax = vx - ld4(o->x + k), ay = vy - ld4(o->y + k), az = vz - ld4(o->z + k);
    v4f bx = vx - ld4(o->x + k + 4), by = vy - ld4(o->y + k + 4), bz = vz - ld4(o->z + k + 4);
    v4i ma = (ax * ax + ay * ay + az * az) < ld4(o->r2 + k);
    v4i mb = (bx * bx + by * by + bz * bz) < ld4(o->r2 + k + 4);
    v4i m = ma | mb;
    if (m[0] | m[1] | m[2] | m[3]) {
      for (size_t j = k; j < k + 8; j++) {
        float fx = px - o->x[j], fy = py - o->y[j], fz = pz - o->z[j];
        if (fx * fx + fy * fy + fz * fz < o->r2[j]) {
          o->last = j;
          return 1;
        }
      }
      return 1;
    }
  }
  return 0;
#else
  for (size_t k = 0; k < o->n; k++) {
    float fx = px - o->x[k], fy = py - o->y[k], fz = pz - o->z[k];
    if (fx * fx + fy * fy + fz * fz < o->r2[k]) {
      o->last = k;
      return 1;
    }
  }
  return 0;
#endif
}

void sp_sasa_two(size_t nq, size_t n, const float (*xyz)[3], const float *radii, float probe, int n_points,
                 const float (*pts)[3], float *scratch, float *out_free, float *out_cplx) {
  const size_t cap = (n + 8) & ~(size_t)7; /* per array, >= the padded length of either list */
  occ_list lig = {scratch, scratch + cap, scratch + 2 * cap, scratch + 3 * cap, 0, 0, 0};
  occ_list env = {scratch + 4 * cap, scratch + 5 * cap, scratch + 6 * cap, scratch + 7 * cap, 0, 0, 0};
  for (size_t i = 0; i < nq; i++) {
    out_free[i] = out_cplx[i] = NAN;
    if (!finite3(xyz[i])) continue;
    const float ri = radii[i] + probe;
    lig.n = env.n = 0;
    for (size_t j = 0; j < n; j++) {
      if (j == i || !finite3(xyz[j])) continue;
      float rj = radii[j] + probe;
      float dx = xyz[j][0] - xyz[i][0], dy = xyz[j][1] - xyz[i][1], dz = xyz[j][2] - xyz[i][2];
      float lim = ri + rj;
      if (dx * dx + dy * dy + dz * dz >= lim * lim) continue;
      occ_list *o = j < nq ? &lig : &env;
      o->x[o->n] = dx;
      o->y[o->n] = dy;
      o->z[o->n] = dz;
      o->r2[o->n] = rj * rj;
      o->n++;
    }
    occ_pad(&lig);
    occ_pad(&env);
    int acc_free = 0, acc_cplx = 0;
    for (int p = 0; p < n_points; p++) {
      float px = pts[p][0] * ri, py = pts[p][1] * ri, pz = pts[p][2] * ri;
      if (covered(&lig, px, py, pz)) continue;
      acc_free++;
      acc_cplx += !covered(&env, px, py, pz);
    }
    const double area = 4.0 * M_PI * (double)ri * (double)ri / (double)n_points;
    out_free[i] = (float)(area * acc_free);
    out_cplx[i] = (float)(area * acc_cplx);
  }
}

/* Cell list for fixed-radius neighbour search: see cells.h. */
#include "site/cells.h"

#include "sitepack/base.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void sp_cells_free(sp_cells *c) {
  if (!c) return;
  free(c->start);
  free(c->pts);
  free(c->tmp);
  free(c->px);
  free(c->py);
  free(c->pz);
  memset(c, 0, sizeof *c);
}

static inline int32_t clamp_cell(double t) {
  if (!(t > -(double)SP_CELLS_CLAMP)) return -SP_CELLS_CLAMP; /* also NaN */
  if (t > (double)SP_CELLS_CLAMP) return SP_CELLS_CLAMP;
  int32_t q = (int32_t)t; /* floor(t) without a libm call: truncation, one down for negative non-integers */
  return q - (t < (double)q);
}

void sp_cells_coord(const sp_cells *c, float x, float y, float z, int32_t out[3]) {
  out[0] = clamp_cell(((double)x - c->origin[0]) * c->inv_edge);
  out[1] = clamp_cell(((double)y - c->origin[1]) * c->inv_edge);
  out[2] = clamp_cell(((double)z - c->origin[2]) * c->inv_edge);
}

size_t sp_cells_bucket(const sp_cells *c, int32_t ix, int32_t iy, int32_t iz) {
  if (!c->hashed) {
    if (ix < 0 || iy < 0 || iz < 0 || ix >= c->nx || iy >= c->ny || iz >= c->nz) return SIZE_MAX;
    return (size_t)ix + (size_t)c->nx * ((size_t)iy + (size_t)c->ny * (size_t)iz);
  }
  /* coordinates lie in [-2^20-1, 2^20+1]: offset to non-negative 22-bit fields */
  uint64_t k = ((uint64_t)(uint32_t)(ix + (1 << 21)) << 44) | ((uint64_t)(uint32_t)(iy + (1 << 21)) << 22) |
               (uint64_t)(uint32_t)(iz + (1 << 21));
  return (size_t)(sp_mix64(k) /* splitmix64 finaliser */ & (uint64_t)(c->n_buckets - 1));
}

static int grow_xyz(sp_cells *c, size_t need) {
  if (need <= c->cap_xyz) return 0;
  size_t cap = c->cap_xyz, c1 = cap, c2 = cap, c3 = cap;
  if (sp_grow((void **)&c->px, &c1, need, sizeof *c->px) || sp_grow((void **)&c->py, &c2, need, sizeof *c->py) ||
      sp_grow((void **)&c->pz, &c3, need, sizeof *c->pz))
    return -1;
  c->cap_xyz = c1 < c2 ? (c1 < c3 ? c1 : c3) : (c2 < c3 ? c2 : c3);
  return 0;
}

int sp_cells_build(sp_cells *c, const sp_cell_pt *in, size_t n, float edge) {
  c->edge = edge;
  c->inv_edge = 1.0 / (double)edge;
  c->n_pts = 0;
  c->hashed = 0;
  c->nx = c->ny = c->nz = 1;
  c->n_buckets = 1;
  c->origin[0] = c->origin[1] = c->origin[2] = 0.0;

  /* bounding box of the finite points */
  double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
  size_t n_ok = 0;
  for (size_t i = 0; i < n; i++) {
    if (!isfinite(in[i].x) || !isfinite(in[i].y) || !isfinite(in[i].z)) continue;
    for (int d = 0; d < 3; d++) {
      double v = d == 0 ? in[i].x : d == 1 ? in[i].y : in[i].z;
      if (v < lo[d]) lo[d] = v;
      if (v > hi[d]) hi[d] = v;
    }
    n_ok++;
  }
  if (n_ok == 0) {
    if (sp_grow((void **)&c->start, &c->cap_buckets, 2, sizeof *c->start)) return -1;
    c->start[0] = c->start[1] = 0;
    return 0;
  }
  for (int d = 0; d < 3; d++) c->origin[d] = lo[d];

  /* dense dimensions, if the box is small enough */
  size_t dense_cap = n_ok * SP_CELLS_DENSE_FACTOR;
  if (dense_cap < 4096) dense_cap = 4096;
  double cells = 1.0;
  int32_t dim[3];
  for (int d = 0; d < 3; d++) {
    double nd = floor((hi[d] - lo[d]) * c->inv_edge) + 1.0;
    if (nd > (double)SP_CELLS_CLAMP) nd = (double)SP_CELLS_CLAMP;
    dim[d] = (int32_t)nd;
    cells *= nd;
  }
  if (cells <= (double)dense_cap) {
    c->nx = dim[0];
    c->ny = dim[1];
    c->nz = dim[2];
    c->n_buckets = (size_t)cells;
  } else {
    c->hashed = 1;
    size_t nb = 64;
    while (nb < 2 * n_ok) nb *= 2;
    c->n_buckets = nb;
  }

  if (sp_grow((void **)&c->start, &c->cap_buckets, c->n_buckets + 1, sizeof *c->start) ||
      sp_grow((void **)&c->pts, &c->cap_pts, n_ok, sizeof *c->pts) ||
      sp_grow((void **)&c->tmp, &c->cap_tmp, n_ok, sizeof *c->tmp) || grow_xyz(c, n_ok + 4)) {
    /* keep a valid empty grid */
    c->hashed = 0;
    c->nx = c->ny = c->nz = 1;
    c->n_buckets = 1;
    if (c->start && c->cap_buckets >= 2) c->start[0] = c->start[1] = 0;
    return -1;
  }

  memset(c->start, 0, (c->n_buckets + 1) * sizeof *c->start);
  size_t k = 0;
  for (size_t i = 0; i < n; i++) {
    if (!isfinite(in[i].x) || !isfinite(in[i].y) || !isfinite(in[i].z)) continue;
    int32_t cc[3];
    sp_cells_coord(c, in[i].x, in[i].y, in[i].z, cc);
    size_t b = sp_cells_bucket(c, cc[0], cc[1], cc[2]);
    if (b == SIZE_MAX) b = 0; /* cannot happen: every finite point lies in the box */
    c->tmp[k++] = (uint32_t)b;
    c->start[b + 1]++;
  }
  for (size_t b = 0; b < c->n_buckets; b++) c->start[b + 1] += c->start[b];
  /* scatter (stable: input order kept within a bucket); start[b] is used as a cursor
     and restored afterwards by shifting */
  k = 0;
  for (size_t i = 0; i < n; i++) {
    if (!isfinite(in[i].x) || !isfinite(in[i].y) || !isfinite(in[i].z)) continue;
    uint32_t b = c->tmp[k++];
    c->pts[c->start[b]++] = in[i];
  }
  for (size_t b = c->n_buckets; b > 0; b--) c->start[b] = c->start[b - 1];
  c->start[0] = 0;
  for (size_t j = 0; j < n_ok; j++) c->px[j] = c->pts[j].x, c->py[j] = c->pts[j].y, c->pz[j] = c->pts[j].z;
  for (size_t j = n_ok; j < n_ok + 4; j++) c->px[j] = c->py[j] = c->pz[j] = 0.0f;
  c->n_pts = n_ok;
  return 0;
}

int sp_cells_build_dense(sp_cells *c, const sp_cell_pt *in, const uint32_t *bucket, size_t n, float edge,
                         const double origin[3], const int32_t dims[3]) {
  c->edge = edge;
  c->inv_edge = 1.0 / (double)edge;
  c->n_pts = 0;
  c->hashed = 0;
  for (int d = 0; d < 3; d++) c->origin[d] = origin[d];
  c->nx = dims[0], c->ny = dims[1], c->nz = dims[2];
  c->n_buckets = (size_t)dims[0] * (size_t)dims[1] * (size_t)dims[2];
  if (sp_grow((void **)&c->start, &c->cap_buckets, c->n_buckets + 1, sizeof *c->start) ||
      sp_grow((void **)&c->pts, &c->cap_pts, n ? n : 1, sizeof *c->pts) || grow_xyz(c, n + 4)) {
    c->nx = c->ny = c->nz = 1;
    c->n_buckets = 1;
    if (c->start && c->cap_buckets >= 2) c->start[0] = c->start[1] = 0;
    return -1;
  }
  memset(c->start, 0, (c->n_buckets + 1) * sizeof *c->start);
  for (size_t i = 0; i < n; i++) c->start[bucket[i] + 1]++;
  for (size_t b = 0; b < c->n_buckets; b++) c->start[b + 1] += c->start[b];
  for (size_t i = 0; i < n; i++) c->pts[c->start[bucket[i]]++] = in[i]; /* stable */
  for (size_t b = c->n_buckets; b > 0; b--) c->start[b] = c->start[b - 1];
  c->start[0] = 0;
  for (size_t j = 0; j < n; j++) c->px[j] = c->pts[j].x, c->py[j] = c->pts[j].y, c->pz[j] = c->pts[j].z;
  for (size_t j = n; j < n + 4; j++) c->px[j] = c->py[j] = c->pz[j] = 0.0f;
  c->n_pts = n;
  return 0;
}

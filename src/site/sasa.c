/* Shrake–Rupley solvent-accessible surface (include/sitepack/sasa.h, docs/sites.md).
 *
 * A point p = ri u (u on the unit sphere, ri = r_vdW + probe) of atom i is buried when some other atom
 * j, at offset o, has |p - o|^2 < (rj + probe)^2, tested in single precision exactly as
 *     ex = u.x * ri - o.x; ...; (ex*ex + ey*ey) + ez*ez < rj^2.
 * The SASA is 4 pi ri^2 times the fraction of points not buried.
 *
 * Speed without changing a single result: the points of the sphere are grouped once (per point
 * count) into blocks of SP_SASA_BLOCK neighbouring points with a bounding cone each. Per occluder,
 * its cap on the sphere is classified against the cones with a safety margin: blocks certainly
 * outside the cap are skipped, blocks certainly inside are marked buried, and only the blocks on
 * the cap's rim are tested point by point with the test above. Buried points are kept as bit masks;
 * blocks already fully buried are skipped. Occluders are applied largest cap first. The margin
 * (SASA_REL on R^2, SASA_COS_EPS on cosines, SASA_CONE_SLOP on the cones) is orders of magnitude
 * above the rounding error of the float test, so a point is classified without a test only where
 * the test's answer is certain: the counts equal those of testing every point against every
 * occluder. The rim test runs 8 (AVX2), 4 (SSE2) or 1 (plain C) points at a time; the variant is
 * chosen at run time and all variants give identical bits (tests/unit/test_sasa.c checks this). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sitepack/sasa.h"

#include "sitepack/base.h"
#include "sasa_internal.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && !defined(SP_SASA_PORTABLE)
#define SASA_X86 1
#include <immintrin.h>
#else
#define SASA_X86 0
#endif

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

/* ------------------------------------------------------------------ sphere blocks */

#define SP_SASA_BLOCK 16
#define SP_SASA_FULL ((uint16_t)0xFFFF)
#define SASA_REL 1e-4       /* relative margin on R^2 for "certainly inside / outside" (float error ~1e-6) */
#define SASA_COS_EPS 1e-5   /* margin on a cosine computed in float from float unit vectors (~1e-6) */
#define SASA_CONE_SLOP 1e-3 /* radians added to each cone's half-angle */
#define SASA_DMIN 1e-3      /* Å: an occluder closer than this to the centre is tested on every block */

typedef struct sp_sasa_sphere {
  int n_points, nb;     /* points; blocks of SP_SASA_BLOCK (the last one padded) */
  float *ux, *uy, *uz;  /* [nb * SP_SASA_BLOCK]: the points, grouped by block; padding repeats a point */
  float *cx, *cy, *cz;  /* [nb rounded up to 64, zeros after nb]: unit vector of each block's cone axis */
  uint16_t *pad;        /* [nb]: bits of the padding entries (they start buried and are never counted) */
  uint64_t *pad_full;   /* [(nb + 63) / 64]: blocks whose every entry is padding (none in practice) */
  double cosb, sinb;    /* cos / sin of the largest cone half-angle, plus SASA_CONE_SLOP */
} sp_sasa_sphere;

typedef struct sasa_occ {
  float x, y, z, r2;   /* offset from the atom's centre, (rj + probe)^2 */
  float key;           /* cosine of the cap's half-angle: smaller = larger cap (order only) */
  float ux, uy, uz;    /* sasa_occ_prep: unit vector of the cap's axis (0 when o is at the centre) */
  float tin, tout;     /* ... a block is inside when cos(axis, cone axis) > tin, outside when < tout */
} sasa_occ;

typedef struct sasa_atoms { /* finite atoms in structure-of-arrays form, padded to a multiple of 8 */
  float *x, *y, *z, *r;     /* r = radius + probe; padding: far away, r = 0 */
  size_t n, nq;             /* atoms; the first nq of them are query atoms */
} sasa_atoms;

typedef struct sasa_work {
  sasa_occ *q, *e;
  uint64_t *ord;
  uint16_t *mask;
  uint64_t *full;
} sasa_work;

struct sp_sasa_ws {
  sp_sasa_sphere sph;
  sasa_atoms A;
  sasa_work wk;
  size_t *slot;
  size_t cap_atoms, cap_slot;
};

static void sphere_free(sp_sasa_sphere *s) {
  free(s->ux); free(s->uy); free(s->uz); free(s->cx); free(s->cy); free(s->cz); free(s->pad); free(s->pad_full);
  memset(s, 0, sizeof *s);
}

typedef struct pv {
  float v;
  int i;
} pv;
static int cmp_pv(const void *a, const void *b) {
  const pv *x = a, *y = b;
  if (x->v != y->v) return x->v < y->v ? -1 : 1;
  return (x->i > y->i) - (x->i < y->i);
}

/* recursive median split along the axis of largest extent, into groups of whole blocks */
static void split_blocks(const float (*p)[3], int *idx, pv *tmp, int n) {
  if (n <= SP_SASA_BLOCK) return;
  float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
  for (int k = 0; k < n; k++)
    for (int d = 0; d < 3; d++) {
      float v = p[idx[k]][d];
      if (v < lo[d]) lo[d] = v;
      if (v > hi[d]) hi[d] = v;
    }
  int ax = 0;
  for (int d = 1; d < 3; d++)
    if (hi[d] - lo[d] > hi[ax] - lo[ax]) ax = d;
  for (int k = 0; k < n; k++) tmp[k].v = p[idx[k]][ax], tmp[k].i = idx[k];
  qsort(tmp, (size_t)n, sizeof *tmp, cmp_pv);
  for (int k = 0; k < n; k++) idx[k] = tmp[k].i;
  const int left = ((n + SP_SASA_BLOCK - 1) / SP_SASA_BLOCK / 2) * SP_SASA_BLOCK;
  split_blocks(p, idx, tmp, left);
  split_blocks(p, idx + left, tmp, n - left);
}

static int sphere_build(sp_sasa_sphere *s, int n) {
  if (s->n_points == n && s->ux) return 0;
  sphere_free(s);
  const int nb = (n + SP_SASA_BLOCK - 1) / SP_SASA_BLOCK, nb64 = (nb + 63) & ~63, nw = nb64 / 64;
  const size_t np = (size_t)nb * SP_SASA_BLOCK;
  float(*p)[3] = malloc((size_t)n * sizeof *p);
  int *idx = malloc((size_t)n * sizeof *idx);
  pv *tmp = malloc((size_t)n * sizeof *tmp);
  s->ux = malloc(np * sizeof *s->ux);
  s->uy = malloc(np * sizeof *s->uy);
  s->uz = malloc(np * sizeof *s->uz);
  s->cx = calloc((size_t)nb64, sizeof *s->cx);
  s->cy = calloc((size_t)nb64, sizeof *s->cy);
  s->cz = calloc((size_t)nb64, sizeof *s->cz);
  s->pad = calloc((size_t)nb, sizeof *s->pad);
  s->pad_full = calloc((size_t)nw, sizeof *s->pad_full);
  if (!p || !idx || !tmp || !s->ux || !s->uy || !s->uz || !s->cx || !s->cy || !s->cz || !s->pad || !s->pad_full) {
    free(p), free(idx), free(tmp);
    sphere_free(s);
    return -1;
  }
  sp_sasa_sphere_points(n, p);
  for (int k = 0; k < n; k++) idx[k] = k;
  split_blocks((const float(*)[3])p, idx, tmp, n);
  double bmax = 0.0;
  for (int b = 0; b < nb; b++) {
    const int k0 = b * SP_SASA_BLOCK, k1 = k0 + SP_SASA_BLOCK < n ? k0 + SP_SASA_BLOCK : n;
    double c[3] = {0, 0, 0};
    for (int k = k0; k < k1; k++)
      for (int d = 0; d < 3; d++) c[d] += p[idx[k]][d];
    double l = sqrt(c[0] * c[0] + c[1] * c[1] + c[2] * c[2]);
    if (!(l > 0.0)) c[0] = 1.0, c[1] = c[2] = 0.0, l = 1.0; /* cannot happen for compact blocks */
    s->cx[b] = (float)(c[0] / l), s->cy[b] = (float)(c[1] / l), s->cz[b] = (float)(c[2] / l);
    for (int t = 0; t < SP_SASA_BLOCK; t++) {
      const int k = k0 + t < k1 ? idx[k0 + t] : idx[k0];
      if (k0 + t >= k1) s->pad[b] |= (uint16_t)(1u << t);
      s->ux[(size_t)b * SP_SASA_BLOCK + t] = p[k][0];
      s->uy[(size_t)b * SP_SASA_BLOCK + t] = p[k][1];
      s->uz[(size_t)b * SP_SASA_BLOCK + t] = p[k][2];
      /* angle between the (float) axis and the point's direction */
      const double pl = sqrt((double)p[k][0] * p[k][0] + (double)p[k][1] * p[k][1] + (double)p[k][2] * p[k][2]);
      double ct = ((double)p[k][0] * s->cx[b] + (double)p[k][1] * s->cy[b] + (double)p[k][2] * s->cz[b]) / pl;
      double ca = sqrt((double)s->cx[b] * s->cx[b] + (double)s->cy[b] * s->cy[b] + (double)s->cz[b] * s->cz[b]);
      ct /= ca;
      if (ct > 1.0) ct = 1.0;
      if (ct < -1.0) ct = -1.0;
      const double a = acos(ct);
      if (a > bmax) bmax = a;
    }
    if (s->pad[b] == SP_SASA_FULL) s->pad_full[b / 64] |= (uint64_t)1 << (b % 64);
  }
  bmax += SASA_CONE_SLOP;
  if (bmax > M_PI) bmax = M_PI;
  s->cosb = cos(bmax);
  s->sinb = sin(bmax);
  s->n_points = n;
  s->nb = nb;
  free(p), free(idx), free(tmp);
  return 0;
}

/* ------------------------------------------------------------------ helpers of the kernels */

static inline int sasa_ctz64(uint64_t m) {
#if defined(__GNUC__) || defined(__clang__)
  return __builtin_ctzll(m);
#else
  int k = 0;
  while (!(m & 1)) m >>= 1, k++;
  return k;
#endif
}

static inline int popcount64(uint64_t x) {
  x = x - ((x >> 1) & 0x5555555555555555ull);
  x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
  x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0Full;
  return (int)((x * 0x0101010101010101ull) >> 56);
}

/* buried points of the sphere: padding entries not counted */
static inline int sasa_count(const sp_sasa_sphere *s, const uint16_t *mask) {
  int c = 0, b = 0;
  for (; b + 4 <= s->nb; b += 4) {
    uint64_t m, p;
    memcpy(&m, mask + b, sizeof m);
    memcpy(&p, s->pad + b, sizeof p);
    c += popcount64(m & ~p);
  }
  for (; b < s->nb; b++) c += popcount64((uint64_t)(mask[b] & ~s->pad[b]));
  return c;
}

static inline int sasa_all_full(const uint64_t *full, int nb) {
  int w = 0;
  for (; (w + 1) * 64 <= nb; w++)
    if (~full[w]) return 0;
  return w * 64 == nb || full[w] == (((uint64_t)1 << (nb - w * 64)) - 1);
}

static inline void sasa_occ_set(sasa_occ *o, float dx, float dy, float dz, float rj, float ri) {
  o->x = dx, o->y = dy, o->z = dz, o->r2 = rj * rj;
  const float d2 = dx * dx + dy * dy + dz * dz;
  o->key = d2 > 0.0f ? (ri * ri + d2 - o->r2) / (2.0f * ri * sqrtf(d2)) : -2.0f;
  if (!(o->key == o->key)) o->key = -2.0f;
}

/* The cap of occluder o on the sphere of radius ri, against the cones of the sphere's blocks.
 * A point u of the unit sphere is covered when |ri u - o|^2 < R^2, i.e. cos(u, o) > c with
 * c = (ri^2 + d^2 - R^2) / (2 ri d). With R^2 shrunk / grown by SASA_REL the float test is certainly
 * true inside the inner cap and certainly false outside the outer one; a block (cone half-angle b) lies
 * inside the inner cap when its axis is within theta_in - b of o, outside the outer one when beyond
 * theta_out + b. Returns 0 when the occluder covers no point. Double precision; done when the occluder
 * is about to be applied (not for those left when every block is already full). */
static inline int sasa_occ_prep(const sp_sasa_sphere *sph, float ri, sasa_occ *o) {
  const double d2 = (double)o->x * o->x + (double)o->y * o->y + (double)o->z * o->z;
  if (!(d2 > SASA_DMIN * SASA_DMIN)) { /* o at the centre: every block is tested */
    o->ux = o->uy = o->uz = 0.0f;
    o->tin = 2.0f, o->tout = -2.0f;
    return 1;
  }
  const double d = sqrt(d2), r = ri, R2 = o->r2, inv = 1.0 / (2.0 * r * d);
  const double cin = (r * r + d2 - R2 * (1.0 - SASA_REL)) * inv;
  const double cout = (r * r + d2 - R2 * (1.0 + SASA_REL)) * inv;
  if (cout >= 1.0) return 0; /* covers no point */
  double t_in, t_out;
  if (cin <= -1.0) t_in = -3.0;
  else if (cin >= sph->cosb) t_in = 3.0;
  else t_in = cin * sph->cosb + sqrt(1.0 - cin * cin) * sph->sinb; /* cos(theta_in - b) */
  if (cout <= -sph->cosb) t_out = -3.0;
  else t_out = cout * sph->cosb - sqrt(1.0 - cout * cout) * sph->sinb; /* cos(theta_out + b) */
  o->tin = (float)(t_in + SASA_COS_EPS);
  o->tout = (float)(t_out - SASA_COS_EPS);
  const double id = 1.0 / d;
  o->ux = (float)(o->x * id), o->uy = (float)(o->y * id), o->uz = (float)(o->z * id);
  return 1;
}

/* The order of the n occluders o in ord: smallest key (largest cap) first, ties by index. Returns n. */
static inline size_t sasa_occ_order(const sasa_occ *o, size_t n, uint64_t *ord) {
  for (size_t k = 0; k < n; k++) {
    uint32_t u;
    memcpy(&u, &o[k].key, sizeof u);
    u = (u & 0x80000000u) ? ~u : (u | 0x80000000u); /* order-preserving map of the float */
    const uint64_t v = ((uint64_t)u << 32) | (uint32_t)k;
    size_t j = k;
    while (j > 0 && ord[j - 1] > v) ord[j] = ord[j - 1], j--;
    ord[j] = v;
  }
  return n;
}

/* ------------------------------------------------------------------ the kernels */

/* plain C */
#define KN(name) sasa_##name##_c
#define KTGT
#define KW 1
#include "sasa_kernel.inc"

#if SASA_X86
/* SSE2 (baseline of x86-64) */
#define KN(name) sasa_##name##_sse2
#define KTGT
#define KW 4
#define VF __m128
#define VSET1 _mm_set1_ps
#define VLOAD _mm_loadu_ps
#define VSUB _mm_sub_ps
#define VMUL _mm_mul_ps
#define VADD _mm_add_ps
#define VLT(a, b) ((unsigned)_mm_movemask_ps(_mm_cmplt_ps(a, b)))
#define VGT(a, b) ((unsigned)_mm_movemask_ps(_mm_cmpgt_ps(a, b)))
#define VGE(a, b) ((unsigned)_mm_movemask_ps(_mm_cmpge_ps(a, b)))
#include "sasa_kernel.inc"

/* AVX2 (run-time checked); no FMA: every product and sum is rounded on its own, as in the C test */
#define KN(name) sasa_##name##_avx2
#define KTGT __attribute__((target("avx2")))
#define KW 8
#define VF __m256
#define VSET1 _mm256_set1_ps
#define VLOAD _mm256_loadu_ps
#define VSUB _mm256_sub_ps
#define VMUL _mm256_mul_ps
#define VADD _mm256_add_ps
#define VLT(a, b) ((unsigned)_mm256_movemask_ps(_mm256_cmp_ps(a, b, _CMP_LT_OQ)))
#define VGT(a, b) ((unsigned)_mm256_movemask_ps(_mm256_cmp_ps(a, b, _CMP_GT_OQ)))
#define VGE(a, b) ((unsigned)_mm256_movemask_ps(_mm256_cmp_ps(a, b, _CMP_GE_OQ)))
#include "sasa_kernel.inc"
#endif

int sp_sasa_isa_available(int isa) {
  switch (isa) {
    case SP_SASA_ISA_AUTO:
    case SP_SASA_ISA_C: return 1;
#if SASA_X86
    case SP_SASA_ISA_SSE2: return 1;
    case SP_SASA_ISA_AVX2: return __builtin_cpu_supports("avx2") ? 1 : 0;
#endif
    default: return 0;
  }
}

static int isa_resolve(int isa) {
  if (isa != SP_SASA_ISA_AUTO) return sp_sasa_isa_available(isa) ? isa : -1;
#if SASA_X86
  return __builtin_cpu_supports("avx2") ? SP_SASA_ISA_AVX2 : SP_SASA_ISA_SSE2;
#else
  return SP_SASA_ISA_C;
#endif
}

const char *sp_sasa_isa_name(void) {
  switch (isa_resolve(SP_SASA_ISA_AUTO)) {
    case SP_SASA_ISA_AVX2: return "avx2";
    case SP_SASA_ISA_SSE2: return "sse2";
    default: return "c";
  }
}

/* ------------------------------------------------------------------ workspace */

sp_sasa_ws *sp_sasa_ws_new(void) { return calloc(1, sizeof(sp_sasa_ws)); }

void sp_sasa_ws_free(sp_sasa_ws *ws) {
  if (!ws) return;
  sphere_free(&ws->sph);
  free(ws->A.x); free(ws->A.y); free(ws->A.z); free(ws->A.r);
  free(ws->wk.q); free(ws->wk.e); free(ws->wk.ord); free(ws->wk.mask); free(ws->wk.full);
  free(ws->slot);
  free(ws);
}

/* room for n atoms (occluder lists, SoA arrays padded to 8) and for the masks of the sphere */
static int ws_reserve(sp_sasa_ws *ws, size_t n, int n_points) {
  if (sphere_build(&ws->sph, n_points)) return -1;
  const size_t need = n + 8;
  if (need > ws->cap_atoms) {
    size_t cap = ws->cap_atoms ? ws->cap_atoms : 256;
    while (cap < need) cap *= 2;
    float *x = sp_realloc_array(ws->A.x, cap, sizeof *x);
    if (x) ws->A.x = x;
    float *y = sp_realloc_array(ws->A.y, cap, sizeof *y);
    if (y) ws->A.y = y;
    float *z = sp_realloc_array(ws->A.z, cap, sizeof *z);
    if (z) ws->A.z = z;
    float *r = sp_realloc_array(ws->A.r, cap, sizeof *r);
    if (r) ws->A.r = r;
    sasa_occ *q = sp_realloc_array(ws->wk.q, cap, sizeof *q);
    if (q) ws->wk.q = q;
    sasa_occ *e = sp_realloc_array(ws->wk.e, cap, sizeof *e);
    if (e) ws->wk.e = e;
    uint64_t *o = sp_realloc_array(ws->wk.ord, cap, sizeof *o);
    if (o) ws->wk.ord = o;
    if (!x || !y || !z || !r || !q || !e || !o) return -1;
    ws->cap_atoms = cap;
  }
  /* masks are sized for the current sphere (re-sized when the point count changes) */
  const size_t nb = (size_t)ws->sph.nb, nw = (nb + 63) / 64;
  uint16_t *m = sp_realloc_array(ws->wk.mask, (nb + 4), sizeof *m);
  if (m) ws->wk.mask = m;
  uint64_t *f = sp_realloc_array(ws->wk.full, (nw + 1), sizeof *f);
  if (f) ws->wk.full = f;
  if (!m || !f) return -1;
  return 0;
}

static inline int finite3(const float *p) { return isfinite(p[0]) && isfinite(p[1]) && isfinite(p[2]); }

int sp_sasa_two(sp_sasa_ws *ws, int isa, size_t nq, size_t n, const float (*xyz)[3], const float *radii, float probe,
                int n_points, float *out_free, float *out_cplx) {
  isa = isa_resolve(isa);
  if (isa < 0 || !ws || n_points < 1 || n_points > 100000) return -1;
  if (ws_reserve(ws, n, n_points)) return -1;
  if (nq > ws->cap_slot) {
    size_t *s = sp_realloc_array(ws->slot, (nq + 16), sizeof *s);
    if (!s) return -1;
    ws->slot = s;
    ws->cap_slot = nq + 16;
  }
  sasa_atoms *A = &ws->A;
  size_t m = 0;
  for (size_t j = 0; j < n; j++) {
    if (j == nq) A->nq = m;
    if (j < nq) ws->slot[j] = SIZE_MAX;
    if (!finite3(xyz[j])) continue;
    if (j < nq) ws->slot[j] = m;
    A->x[m] = xyz[j][0], A->y[m] = xyz[j][1], A->z[m] = xyz[j][2], A->r[m] = radii[j] + probe;
    m++;
  }
  if (nq >= n) A->nq = m;
  A->n = m;
  for (size_t k = m; k < ((m + 7) & ~(size_t)7); k++) A->x[k] = A->y[k] = A->z[k] = 1e18f, A->r[k] = 0.0f;
#if SASA_X86
  if (isa == SP_SASA_ISA_AVX2)
    sasa_two_avx2(nq, A, ws->slot, radii, probe, &ws->sph, &ws->wk, out_free, out_cplx);
  else if (isa == SP_SASA_ISA_SSE2)
    sasa_two_sse2(nq, A, ws->slot, radii, probe, &ws->sph, &ws->wk, out_free, out_cplx);
  else
#endif
    sasa_two_c(nq, A, ws->slot, radii, probe, &ws->sph, &ws->wk, out_free, out_cplx);
  return 0;
}

/* ------------------------------------------------------------------ public sp_sasa */

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
  const int isa = isa_resolve(SP_SASA_ISA_AUTO);
  int rc = 0;
  sp_sasa_ws *ws = sp_sasa_ws_new();
  /* cell list over finite atoms: key = packed cell coordinates, sorted */
  int64_t *keys = malloc(n * sizeof *keys);
  uint32_t *order = malloc(n * sizeof *order);
  int64_t *pk = malloc(n * 2 * sizeof *pk);
  if (!ws || !keys || !order || !pk || ws_reserve(ws, n, n_points)) {
    rc = sp_err_set(err, SP_E_NOMEM, "sasa: out of memory (%zu atoms)", n);
    goto done;
  }
  const float cell = 2.0f * (rmax + probe);
  const float inv = 1.0f / cell;
  size_t nf = 0;
  for (size_t i = 0; i < n; i++) {
    out[i] = NAN;
    if (!finite3(xyz[i])) continue;
    int64_t c[3];
    for (int d = 0; d < 3; d++) {
      double v = floor((double)xyz[i][d] * inv);
      if (v < -(1 << 20)) v = -(1 << 20);
      if (v > (1 << 20) - 2) v = (1 << 20) - 2;
      c[d] = (int64_t)v + (1 << 20);
    }
    pk[2 * nf] = (c[0] << 42) | (c[1] << 21) | c[2];
    pk[2 * nf + 1] = (int64_t)i;
    nf++;
  }
  qsort(pk, nf, 2 * sizeof *pk, cmp_i64); /* compares the key (first int64 of each pair) */
  for (size_t k = 0; k < nf; k++) keys[k] = pk[2 * k], order[k] = (uint32_t)pk[2 * k + 1];
  for (size_t i = 0; i < n; i++) {
    if (query && !query[i]) continue;
    if (!finite3(xyz[i])) continue;
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
          float lim = ri + rj;
          if (ddx * ddx + ddy * ddy + ddz * ddz < lim * lim) sasa_occ_set(&ws->wk.q[nn++], ddx, ddy, ddz, rj, ri);
        }
      }
    int acc = 0;
#if SASA_X86
    if (isa == SP_SASA_ISA_AVX2)
      sasa_atom_avx2(&ws->sph, ri, ws->wk.q, nn, NULL, 0, ws->wk.ord, ws->wk.mask, ws->wk.full, &acc, NULL);
    else if (isa == SP_SASA_ISA_SSE2)
      sasa_atom_sse2(&ws->sph, ri, ws->wk.q, nn, NULL, 0, ws->wk.ord, ws->wk.mask, ws->wk.full, &acc, NULL);
    else
#endif
      sasa_atom_c(&ws->sph, ri, ws->wk.q, nn, NULL, 0, ws->wk.ord, ws->wk.mask, ws->wk.full, &acc, NULL);
    (void)isa;
    out[i] = (float)(4.0 * M_PI * (double)ri * (double)ri * (double)acc / (double)n_points);
  }
done:
  sp_sasa_ws_free(ws);
  free(keys);
  free(order);
  free(pk);
  return rc;
}

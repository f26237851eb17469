/* The Shrake–Rupley kernel of site chemistry (src/site/sasa.c, sp_sasa_two) skips points and marks
 * points buried without testing them (sphere blocks with bounding cones, docs/sites.md "burial").
 * This test checks that this changes no bit: on random atom sets (dense and sparse, coincident and
 * nearly coincident atoms, non-finite coordinates, radii 0.2-3.2 Å, probes 0-3 Å, 1 to 5000 points)
 * and on real coordinates (1GYA, ligand-sized query sets), every instruction-set variant available on
 * the host (plain C, SSE2, AVX2) gives exactly the floats of the plain algorithm: every point of every
 * query atom tested against every occluder (atoms with d^2 < (ri + rj)^2), the same float expression.
 *
 * usage: test_sasa_kernel STRUCTURES_DIR */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sitepack/elements.h"
#include "sitepack/read.h"
#include "sitepack/sasa.h"
#include "site/sasa_internal.h"

#include "sp_test.h"

static int finite3(const float *p) { return isfinite(p[0]) && isfinite(p[1]) && isfinite(p[2]); }

/* the plain algorithm (the code before the block culling), free and complex SASA */
static void brute_two(size_t nq, size_t n, const float (*xyz)[3], const float *radii, float probe, int np,
                      float *of, float *oc) {
  float(*pts)[3] = malloc((size_t)np * sizeof *pts);
  sp_sasa_sphere_points(np, pts);
  size_t *nb = malloc((n + 1) * sizeof *nb);
  for (size_t i = 0; i < nq; i++) {
    of[i] = oc[i] = NAN;
    if (!finite3(xyz[i])) continue;
    const float ri = radii[i] + probe;
    size_t nn = 0;
    for (size_t j = 0; j < n; j++) {
      if (j == i || !finite3(xyz[j])) continue;
      float rj = radii[j] + probe;
      float dx = xyz[j][0] - xyz[i][0], dy = xyz[j][1] - xyz[i][1], dz = xyz[j][2] - xyz[i][2];
      float lim = ri + rj;
      if (dx * dx + dy * dy + dz * dz < lim * lim) nb[nn++] = j;
    }
    int af = 0, ac = 0;
    for (int p = 0; p < np; p++) {
      float px = pts[p][0] * ri, py = pts[p][1] * ri, pz = pts[p][2] * ri;
      int bl = 0, be = 0;
      for (size_t k = 0; k < nn; k++) {
        size_t j = nb[k];
        float rj = radii[j] + probe, r2 = rj * rj;
        float ox = xyz[j][0] - xyz[i][0], oy = xyz[j][1] - xyz[i][1], oz = xyz[j][2] - xyz[i][2];
        float ex = px - ox, ey = py - oy, ez = pz - oz;
        if (ex * ex + ey * ey + ez * ez < r2) {
          if (j < nq) bl = 1;
          else be = 1;
        }
      }
      af += !bl;
      ac += !bl && !be;
    }
    const double area = 4.0 * M_PI * (double)ri * (double)ri / (double)np;
    of[i] = (float)(area * af);
    oc[i] = (float)(area * ac);
  }
  free(pts);
  free(nb);
}

static uint64_t rs = 0x9E3779B97F4A7C15ull;
static double rnd(void) {
  rs ^= rs << 13;
  rs ^= rs >> 7;
  rs ^= rs << 17;
  return (double)(rs >> 11) * (1.0 / 9007199254740992.0);
}

static long n_cmp, n_cases;

/* every available variant against the plain algorithm, bit for bit */
static void compare(sp_sasa_ws *ws, const char *what, size_t nq, size_t n, const float (*xyz)[3], const float *r,
                    float probe, int np) {
  float *bf = malloc((nq + 1) * sizeof *bf), *bc = malloc((nq + 1) * sizeof *bc);
  float *kf = malloc((nq + 1) * sizeof *kf), *kc = malloc((nq + 1) * sizeof *kc);
  brute_two(nq, n, xyz, r, probe, np, bf, bc);
  for (int isa = SP_SASA_ISA_AUTO; isa <= SP_SASA_ISA_AVX2; isa++) {
    if (!sp_sasa_isa_available(isa)) continue;
    int rc = sp_sasa_two(ws, isa, nq, n, xyz, r, probe, np, kf, kc);
    CHECK(rc == 0, "%s: isa %d failed", what, isa);
    if (rc) continue;
    size_t bad = 0, first = 0;
    for (size_t i = 0; i < nq; i++)
      if (memcmp(&kf[i], &bf[i], sizeof *kf) || memcmp(&kc[i], &bc[i], sizeof *kc)) {
        if (!bad) first = i;
        bad++;
      }
    CHECK(bad == 0, "%s (isa %d, %zu/%zu atoms, probe %g, %d points): %zu atoms differ, first %zu: %.9g %.9g vs %.9g %.9g",
          what, isa, nq, n, (double)probe, np, bad, first, bad ? (double)kf[first] : 0.0, bad ? (double)kc[first] : 0.0,
          bad ? (double)bf[first] : 0.0, bad ? (double)bc[first] : 0.0);
    n_cmp += (long)nq;
  }
  n_cases++;
  free(bf), free(bc), free(kf), free(kc);
}

static void random_cases(sp_sasa_ws *ws) {
  static const int NP[] = {1, 2, 7, 15, 16, 17, 33, 100, 960, 960, 960, 1000, 5000};
  static const float PR[] = {0.0f, 0.5f, 1.4f, 1.4f, 3.0f};
  static const float RA[] = {1.1f, 1.2f, 1.52f, 1.55f, 1.7f, 1.8f, 2.0f};
  for (int c = 0; c < 300; c++) {
    size_t n = 1 + (size_t)(rnd() * (c < 200 ? 40 : 250));
    size_t nq = (size_t)(rnd() * (double)(n + 1));
    float box = (float)(1.0 + rnd() * 25.0);
    float(*x)[3] = malloc(n * sizeof *x);
    float *r = malloc(n * sizeof *r);
    for (size_t i = 0; i < n; i++) {
      for (int d = 0; d < 3; d++) x[i][d] = (float)(rnd() * box) + (c % 7 == 0 ? 5000.0f : 0.0f);
      r[i] = rnd() < 0.8 ? RA[(int)(rnd() * 7)] : (float)(0.2 + rnd() * 3.0);
      if (i && rnd() < 0.04) memcpy(x[i], x[i - 1], sizeof x[i]); /* coincident */
      if (i && rnd() < 0.04) {                                      /* nearly coincident */
        memcpy(x[i], x[i - 1], sizeof x[i]);
        x[i][(int)(rnd() * 3)] += (float)(rnd() * 2e-3);
      }
      if (rnd() < 0.01) x[i][(int)(rnd() * 3)] = rnd() < 0.5 ? NAN : INFINITY;
    }
    char what[64];
    snprintf(what, sizeof what, "random case %d", c);
    compare(ws, what, nq, n, (const float(*)[3])x, r, PR[(int)(rnd() * 5)], NP[(int)(rnd() * 13)]);
    free(x), free(r);
  }
  /* touching and nested spheres on the axes, where caps are exactly tangent or cover everything */
  {
    float x[6][3] = {{0, 0, 0}, {3.1f, 0, 0}, {0, 6.2f, 0}, {0, 0, 0.5f}, {-1e-4f, 0, 0}, {0, 0, -9.3f}};
    float r[6] = {1.7f, 1.7f, 1.7f, 3.0f, 0.5f, 1.7f};
    compare(ws, "tangent and nested", 6, 6, (const float(*)[3])x, r, 1.4f, 960);
    compare(ws, "tangent and nested, ligand 2", 2, 6, (const float(*)[3])x, r, 1.4f, 960);
    compare(ws, "tangent and nested, no probe", 6, 6, (const float(*)[3])x, r, 0.0f, 5000);
  }
}

static void real_cases(sp_sasa_ws *ws, const char *dir) {
  char path[1024];
  snprintf(path, sizeof path, "%s/1gya.pdb", dir);
  sp_structure s;
  sp_err err = {0};
  int rc = read_structure(path, &s, &err);
  CHECK(rc == 0, "%s: %s", path, err.msg);
  if (rc) return;
  /* heavy atoms of model 1, Bondi radii; query sets: 30 consecutive heavy atoms at several places
   * (a "ligand"), the rest within 12 Å of them as environment */
  size_t n0 = s.models[0].n_atoms, a0 = s.models[0].first_atom, n = 0;
  float(*x)[3] = malloc(n0 * sizeof *x);
  float *r = malloc(n0 * sizeof *r);
  for (size_t a = a0; a < a0 + n0; a++) {
    if (s.element[a] == 1) continue;
    memcpy(x[n], s.xyz[a], sizeof x[n]);
    r[n] = sp_element_vdw_radius(s.element[a]);
    n++;
  }
  float(*y)[3] = malloc(n * sizeof *y);
  float *ry = malloc(n * sizeof *ry);
  for (size_t start = 0; start + 30 <= n; start += n / 7) {
    size_t m = 0;
    for (size_t k = start; k < start + 30; k++) memcpy(y[m], x[k], sizeof y[m]), ry[m++] = r[k];
    for (size_t k = 0; k < n; k++) {
      if (k >= start && k < start + 30) continue;
      float dx = x[k][0] - x[start][0], dy = x[k][1] - x[start][1], dz = x[k][2] - x[start][2];
      if (dx * dx + dy * dy + dz * dz < 144.0f) memcpy(y[m], x[k], sizeof y[m]), ry[m++] = r[k];
    }
    char what[64];
    snprintf(what, sizeof what, "1gya heavy atoms %zu..%zu", start, start + 29);
    compare(ws, what, 30, m, (const float(*)[3])y, ry, 1.4f, 960);
  }
  compare(ws, "1gya all heavy atoms", n, n, (const float(*)[3])x, r, 1.4f, 960);
  free(x), free(r), free(y), free(ry);
  sp_structure_free(&s);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s STRUCTURES_DIR\n", argv[0]);
    return 2;
  }
  sp_sasa_ws *ws = sp_sasa_ws_new();
  CHECK(ws != NULL, "workspace");
  if (!ws) return 1;
  printf("test_sasa_kernel: variant in use \"%s\"; variants checked:", sp_sasa_isa_name());
  for (int isa = SP_SASA_ISA_C; isa <= SP_SASA_ISA_AVX2; isa++)
    if (sp_sasa_isa_available(isa)) printf(" %s", isa == SP_SASA_ISA_C ? "c" : isa == SP_SASA_ISA_SSE2 ? "sse2" : "avx2");
  printf("\n");
  random_cases(ws);
  real_cases(ws, argv[1]);
  CHECK(sp_sasa_isa_available(99) == 0, "unknown variant reported available");
  float one[1][3] = {{0, 0, 0}}, r1 = 1.0f, o1, o2;
  CHECK(sp_sasa_two(ws, 99, 1, 1, (const float(*)[3])one, &r1, 1.4f, 960, &o1, &o2) == -1, "unknown variant runs");
  printf("test_sasa_kernel: %ld cases, %ld atom results compared bit for bit\n", n_cases, n_cmp);
  sp_sasa_ws_free(ws);
  return sp_test_done("test_sasa_kernel");
}

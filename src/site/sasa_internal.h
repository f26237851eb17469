/* Internal to src/site: the Shrake–Rupley kernel that site chemistry uses (sasa.c). */
#ifndef SITEPACK_SITE_SASA_INTERNAL_H
#define SITEPACK_SITE_SASA_INTERNAL_H
#include <stddef.h>
#include <stdint.h>

/** Unit-sphere points, golden-section spiral (as MDTraj). p: [n][3]. */
void sp_sasa_sphere_points(int n, float (*p)[3]);

/**
 * SASA (Å²) of the query atoms [0, nq) of xyz, once among the query atoms only (out_free) and once with
 * every atom [0, n) present (out_cplx), in one pass over the points: a point buried by a query atom is
 * buried in both, one buried only by an environment atom [nq, n) only in the complex. Atoms with a
 * non-finite coordinate neither count (NaN out) nor occlude. pts: n_points unit-sphere points.
 * scratch: SP_SASA_SCRATCH(n) floats. radii > 0 (checked by the caller). No allocation.
 */
void sp_sasa_two(size_t nq, size_t n, const float (*xyz)[3], const float *radii, float probe, int n_points,
                 const float (*pts)[3], float *scratch, float *out_free, float *out_cplx);
#define SP_SASA_SCRATCH(n) (8 * (((size_t)(n) + 8) & ~(size_t)7))
#endif

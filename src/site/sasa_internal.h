/* Internal to src/site: the Shrake–Rupley kernel that site chemistry uses (sasa.c). */
#ifndef SITEPACK_SITE_SASA_INTERNAL_H
#define SITEPACK_SITE_SASA_INTERNAL_H
#include <stddef.h>
#include <stdint.h>

/** Unit-sphere points, golden-section spiral (as MDTraj). p: [n][3]. */
void sp_sasa_sphere_points(int n, float (*p)[3]);

/** Reusable SASA workspace: the sphere points of one point count, grouped into blocks with bounding
 *  cones (built on first use and whenever the point count changes), and the per-call buffers.
 *  One per thread. */
typedef struct sp_sasa_ws sp_sasa_ws;
/** @return a new workspace or NULL when out of memory. */
sp_sasa_ws *sp_sasa_ws_new(void);
void sp_sasa_ws_free(sp_sasa_ws *ws);

/** Instruction-set variants of the kernel (all give bit-identical results). */
enum { SP_SASA_ISA_AUTO = 0, SP_SASA_ISA_C = 1, SP_SASA_ISA_SSE2 = 2, SP_SASA_ISA_AVX2 = 3 };
/** Whether variant @p isa can run on this host (AUTO and C always can). */
int sp_sasa_isa_available(int isa);
/** Name of the variant that SP_SASA_ISA_AUTO runs on this host: "avx2", "sse2" or "c". */
const char *sp_sasa_isa_name(void);

/**
 * SASA (Å²) of the query atoms [0, nq) of xyz, once among the query atoms only (out_free) and once with
 * every atom [0, n) present (out_cplx), in one pass over the points: a point buried by a query atom is
 * buried in both, one buried only by an environment atom [nq, n) only in the complex. Atoms with a
 * non-finite coordinate neither count (NaN out) nor occlude. radii > 0 (checked by the caller).
 * n_points: 1 .. 100000. No allocation once the workspace is large enough.
 * @return 0; -1 when out of memory or @p isa is not available on this host (outputs then undefined).
 */
int sp_sasa_two(sp_sasa_ws *ws, int isa, size_t nq, size_t n, const float (*xyz)[3], const float *radii,
                float probe, int n_points, float *out_free, float *out_cplx);
#endif

/**
 * @file sasa.h
 * @brief Shrake–Rupley solvent-accessible surface area of a set of atoms.
 *
 * Plain C, no MPI. Method: Shrake & Rupley, J. Mol. Biol. 1973, 79, 351. Points on a golden-section
 * spiral (the construction MDTraj's shrake_rupley uses, so that results compare); a point p = r_i u of
 * atom i (r_i = radius + probe) is buried when another atom j at o has |p − o|² < (r_j + probe)² in
 * single precision; SASA = 4π r_i² × (points not buried) / n_points. The result is that of testing every
 * point against every atom, bit for bit, on every host (docs/sites.md "Site chemistry", "SASA check").
 * The site chemistry's burial (sitechem.h, sasa_free / sasa_complex) runs the same kernel.
 */
#ifndef SITEPACK_SASA_H
#define SITEPACK_SASA_H

#include <stddef.h>
#include <stdint.h>

#include "sitepack/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Shrake–Rupley solvent-accessible surface area of the atoms @p query among @p n atoms.
 * @param xyz     [n][3] positions, Å (atoms with a non-finite coordinate neither count nor occlude)
 * @param radii   [n] van der Waals radii, Å (> 0)
 * @param query   [n] 1 = compute this atom's SASA, or NULL for all atoms
 * @param probe   probe radius, Å (>= 0)
 * @param n_points points per sphere (golden-section spiral), 1 .. 100000
 * @param out     [n] Å² for query atoms; others are set to NaN (caller-owned)
 * @return 0; SP_E_INVALID (NULL array, bad n_points or probe, radius <= 0 or NaN); SP_E_NOMEM.
 */
int sp_sasa(size_t n, const float (*xyz)[3], const float *radii, const uint8_t *query, float probe, int n_points,
            float *out, sp_err *err);

#ifdef __cplusplus
}
#endif
#endif

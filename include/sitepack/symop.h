/**
 * @file symop.h
 * @brief Crystal symmetry operators as the model holds them (sp_symop, model.h): operator
 *        strings ("-x+1/2,y,-z") as in _space_group_symop.operation_xyz, their tags, and
 *        unit-cell matrices. Owned by model: the readers that fill sp_structure.symops use it.
 *
 * Conventions: fractional coordinates u = F x, Cartesian x = O u, with the PDB/mmCIF standard
 * orthogonalisation (a along x, b in the xy plane; the same as gemmi's UnitCell and the default
 * SCALEn of the PDB). An operator maps fractional u to rot u + trn.
 *
 * Plain C, no MPI; every function is pure and thread-safe.
 */
#ifndef SITEPACK_SYMOP_H
#define SITEPACK_SYMOP_H

#include <stdbool.h>
#include <stddef.h>

#include "sitepack/model.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Most operators of any space group (including centring: F m -3 m has 192). */
#define SP_SYM_MAX_OPS 192

/**
 * Parse one operator written as three comma-separated expressions in x, y, z
 * ("x,y,z", "-x+1/2, y, -z", "1/2+X,-Y,Z", "x-y,x,z+5/6", "-y+0.25,x,z"). Case and blanks are
 * ignored; a term is [sign] ([number[/number]] [*] variable | number[/number]); numbers are
 * decimal. The rotation part must be a matrix of determinant +1 or -1 with entries in [-6, 6],
 * translations finite with magnitude at most 1000.
 * @param p  text (need not be NUL-terminated), @p n bytes
 * @return 0, or -1 (garbage, missing or extra component, division by zero, bad determinant):
 *         @p op is then unspecified.
 */
int sp_symop_parse(const char *p, size_t n, sp_symop *op);

/** Write @p op as a triplet "-x+1/2,y,-z" (translations as fractions n/24 when they are, else
 *  decimals), the notation gemmi.Op() reads. @return the length written (truncated at @p cap). */
size_t sp_symop_format(const sp_symop *op, char *buf, size_t cap);

/** Is op the identity rotation (translation not looked at)? */
bool sp_symop_is_identity_rot(const sp_symop *op);

/**
 * Whether a cell is a real crystal cell: six finite values, lengths >= 2 Å (the 1 1 1 dummy cell
 * of NMR/EM entries is not), angles in (0, 180) degrees and a positive volume.
 */
bool sp_cell_is_crystal(const double cell[6]);

/** Orthogonalisation (fractional -> Cartesian) and fractionalisation matrices of a cell.
 *  @return 0, or -1 when !sp_cell_is_crystal(cell). */
int sp_cell_matrices(const double cell[6], double orth[3][3], double frac[3][3]);

/** Symmetry tag of operator index @p op (0-based) and lattice translation @p t in the PDB
 *  notation "2_655" (op + 1, then 5 + t per axis) when every 5 + t is a digit, else
 *  "2_-6_0_1" (op + 1 and the signed translations). @p cap >= 16. */
void sp_symop_tag(int op, const int t[3], char *buf, size_t cap);


#ifdef __cplusplus
}
#endif
#endif

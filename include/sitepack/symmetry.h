/**
 * @file symmetry.h
 * @brief Crystal symmetry of the site search: space-group operators by name (CCP4's csymlib
 *        and syminfo.lib) and the resolved symmetry of one structure (operator strings and
 *        cell matrices: symop.h, the model's). Used by the site search when symmetry mates are asked for
 *        (sp_site_opts.symmetry_mates; docs/sites.md "Symmetry mates").
 *
 * Conventions: fractional coordinates u = F x, Cartesian x = O u, with the PDB/mmCIF standard
 * orthogonalisation (a along x, b in the xy plane; the same as gemmi's UnitCell and the default
 * SCALEn of the PDB). An operator maps fractional u to rot u + trn.
 *
 * Plain C, no MPI. sp_spacegroup_ops() / sp_crystal_resolve() call csymlib, which reads syminfo.lib
 * and keeps global error state: call them from one thread of a process at a time (every sitepack
 * rank is one thread).
 */
#ifndef SITEPACK_SYMMETRY_H
#define SITEPACK_SYMMETRY_H

#include <stdbool.h>
#include <stddef.h>

#include "sitepack/error.h"
#include "sitepack/model.h"
#include "sitepack/symop.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * The operators of the space group called @p name (Hermann-Mauguin as in PDB files: "P 1 21 1",
 * "P 21 21 21", "H 3", "R 3 2", "I 41/a", "C 1 2 1", ...), centring translations included, in the
 * order of CCP4's syminfo.lib (the identity first). A rhombohedral name without setting ("R 3",
 * "R 3 2") is taken in the hexagonal setting unless the cell is rhombohedral (a = b = c,
 * alpha = beta = gamma != 90), as gemmi does. Blanks are normalised; names with characters
 * other than letters, digits, blanks, '-', '/', ':' and '.' or longer than 30 characters are
 * refused without asking the library.
 * @param cell   the cell (for the R setting), NULL for none
 * @param ops    room for SP_SYM_MAX_OPS operators
 * @param n_ops  number written
 * @param xhm    if not NULL, the library's extended name (e.g. "R 3 :H"), @p xhm_cap bytes
 * @return 0; SP_E_NOT_FOUND (unknown name, or no space-group library in this build: the message
 *         says which); SP_E_INVALID (NULL argument, refused name).
 */
int sp_spacegroup_ops(const char *name, const double cell[6], sp_symop *ops, int *n_ops, char *xhm, size_t xhm_cap,
                      sp_err *err);

/** 1 when this build has a space-group library (CCP4 libccp4c), else 0. */
int sp_spacegroup_library(void);

/** Where the operators of an sp_crystal come from. */
enum {
  SP_SYM_NONE = 0,      /**< no crystal symmetry: no cell, the dummy cell, or no operators */
  SP_SYM_FILE = 1,      /**< the file's explicit operators */
  SP_SYM_NAME = 2,      /**< the space-group name, through sp_spacegroup_ops() */
};

/** The crystal symmetry of one structure. */
typedef struct sp_crystal {
  int source;           /**< SP_SYM_* */
  int n_ops;            /**< 0 when source is SP_SYM_NONE */
  sp_symop ops[SP_SYM_MAX_OPS];
  double frac[3][3];    /**< Cartesian -> fractional: u = frac x + shift */
  double shift[3];      /**< fractional shift (non-zero only for a non-standard SCALEn / fract_transf_vector) */
  double orth[3][3];    /**< fractional -> Cartesian: x = orth (u - shift) */
  int file_frame;       /**< 1: frac/shift are the file's own (SCALEn, _atom_sites.fract_transf_*), which differ
                             from the standard frame of the cell (as in 4HHB); 0: standard */
  char why[160];        /**< SP_SYM_NONE: why there is none ("no cell", "dummy cell 1 1 1", ...) */
} sp_crystal;

/**
 * Resolve the symmetry of @p s: none when the cell is absent or not a crystal cell
 * (sp_cell_is_crystal: NMR/EM entries' 1 1 1 cell); else the file's explicit operators when it
 * has them (they win over the name), else the operators of its space-group name; none (with
 * @p out->why) when the name is empty or unknown. The frame is the file's own fractionalisation
 * (SCALEn / _atom_sites.fract_transf_matrix and _vector) when it gives one that differs from the
 * standard one of its cell by more than rounding (1e-5 per matrix element, 1e-4 in the vector), as
 * gemmi does; else the standard frame.
 * @return 0 (also when there is no symmetry), SP_E_INVALID for NULL arguments.
 */
int sp_crystal_resolve(const sp_structure *s, sp_crystal *out, sp_err *err);

#ifdef __cplusplus
}
#endif
#endif

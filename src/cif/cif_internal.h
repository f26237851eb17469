/* Internal helpers shared by the mmCIF and CCD readers (not a public interface). */
#ifndef SITEPACK_CIF_INTERNAL_H
#define SITEPACK_CIF_INTERNAL_H

#include <stdint.h>

#include "sitepack/cif.h"

/**
 * Bond order of a _chem_comp_bond.value_order (PDBx: SING, DOUB, TRIP, QUAD, AROM, DELO,
 * PI, POLY) or monomer-library _chem_comp_bond.type (single, double, triple, aromatic,
 * deloc, metal) value, case-insensitive: 1, 2, 3, else 4 (delocalised/unknown).
 * Sets *aromatic to 1 for AROM / aromatic (leaves it alone otherwise).
 */
uint8_t sp_cif_bond_order(const sp_cif_value *v, uint8_t *aromatic);

/** Column index of @p item in @p cat (case-insensitive), -1 if @p cat is NULL or lacks it. */
static inline int sp_cif_col(const sp_cif_doc *d, const sp_cif_category *cat, const char *item) {
  return cat ? sp_cif_find_column(d, cat, item) : -1;
}

#endif

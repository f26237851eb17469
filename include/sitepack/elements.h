/**
 * @file elements.h
 * @brief Chemical elements: symbols, atomic numbers and per-element constants.
 *
 * Atomic numbers are IUPAC's (1 = H ... 118 = Og). Deuterium and tritium (symbols D,
 * T, as written in some PDB/mmCIF files) map to 1. 0 means "unknown element".
 */
#ifndef SITEPACK_ELEMENTS_H
#define SITEPACK_ELEMENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Highest atomic number known. */
#define SP_ELEMENT_MAX 118

/**
 * Atomic number of an element symbol, case-insensitive, surrounding blanks ignored
 * ("FE", "Fe", " C", "D" -> 1). @p n is the length of @p sym (no NUL needed).
 * @return 1..118, or 0 for an unknown symbol, an empty string or "X".
 */
uint8_t sp_element_from_symbol(const char *sym, size_t n);

/** Canonical symbol ("C", "Fe") of atomic number @p z; "X" for 0 or out of range.
 *  @return a static string, never NULL. */
const char *sp_element_symbol(uint8_t z);

/** true for H (z == 1). */
static inline bool sp_element_is_hydrogen(uint8_t z) { return z == 1; }

/**
 * true for metals and metalloid ions that coordinate rather than bond covalently in
 * the sense of the molecule key (DESIGN.md: "bonds to metals removed"): alkali,
 * alkaline earth, transition, post-transition metals, lanthanides, actinides.
 * B, Si, Ge, As, Sb, Te are not metals here.
 */
bool sp_element_is_metal(uint8_t z);

/**
 * Covalent radius in Å (Cordero et al., Dalton Trans. 2008, 2832; sp3 C = 0.76).
 * @return the radius, or 1.5 for unknown elements (z == 0 or no value).
 */
float sp_element_covalent_radius(uint8_t z);

/**
 * Van der Waals radius in Å (Bondi, J. Phys. Chem. 1964, 68, 441; elements Bondi does
 * not give: Alvarez, Dalton Trans. 2013, 42, 8617). @return 2.0 for unknown elements.
 */
float sp_element_vdw_radius(uint8_t z);

#ifdef __cplusplus
}
#endif
#endif

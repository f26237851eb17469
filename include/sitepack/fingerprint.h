/* Morgan-style fingerprints of molecular graphs and their Tanimoto similarity (src/chem/fingerprint.c).
 *
 * Pure chemistry of one graph: no file, no HDF5. The ligand clusters of sitepack cluster (split.h sp_cluster,
 * sp_butina) are built on them; docs/usage.md "Splits" says how the bits compare with RDKit's.
 *
 * Sources of the rules:
 * - Morgan / ECFP fingerprints (Rogers & Hahn 2010, "Extended-connectivity fingerprints", J. Chem. Inf. Model.
 *   50:742), with RDKit's connectivity invariants, radius and folding convention (radius 2 with 2048 bits is
 *   RDKit's GetMorganFingerprintAsBitVect(m, 2, 2048), ECFP4-like) and its duplicate-environment rule;
 * - the implicit hydrogen count: RDKit's valence lists and implicit-valence rule (valence.h sp_valence_implicit_h);
 * - Tanimoto (Jaccard) similarity of bit sets.
 */
#ifndef SITEPACK_FINGERPRINT_H
#define SITEPACK_FINGERPRINT_H

#include <stdint.h>

#include "sitepack/error.h"

/** Bits and 64-bit words of one fingerprint: bit b is bit (b % 64) of word b / 64. */
#define SP_FP_BITS 2048
#define SP_FP_WORDS (SP_FP_BITS / 64)

/** Morgan-style fingerprint of one molecular graph (Rogers & Hahn 2010), folded to SP_FP_BITS bits.
 *  @p n atoms with atomic numbers @p z[n] (hydrogens, z == 1, are left out of the graph) and formal charges
 *  @p charge[n] (units of e; may be NULL: all 0); @p nb bonds between atoms @p a1[nb], @p a2[nb] (0-based, < n;
 *  bonds to or from H, self-bonds or out of range are ignored) with @p order[nb] (1, 2, 3; 4 aromatic without
 *  Kekulé order; 0 unknown, taken as 1) and @p arom[nb] (1 aromatic; may be NULL). @p z and, when nb > 0, @p a1,
 *  @p a2 and @p order must not be NULL (n == 0 reads nothing). Atom invariants are RDKit's connectivity
 *  invariants (atomic number, heavy degree, hydrogen count, formal charge, ring membership), with the hydrogen
 *  count from RDKit's valence lists and implicit-valence rule at the atom's charge (valence.h) and the bond
 *  orders (no deposited H needed); bond types single/double/triple/aromatic; @p radius >= 0 iterations
 *  (2 = ECFP4-like). The hash function is sitepack's own (sp_hash_combine, base.h; frozen), so the bits are
 *  not RDKit's: similarities agree, bit positions do not (docs/usage.md "Splits"). @p fp: SP_FP_WORDS words
 *  owned by the caller, overwritten (all zero on error).
 *  Not thread-safe (its sort uses file-scope state). Memory O(n * radius * (nb / 64 + 1)) words, freed before it
 *  returns. @return 0; SP_E_NOMEM; SP_E_INVALID (n < 0 or nb < 0). */
int sp_morgan_fp(int n, const uint8_t *z, const int8_t *charge, int nb, const int32_t *a1, const int32_t *a2,
                 const uint8_t *order, const uint8_t *arom, int radius, uint64_t *fp);

/** Tanimoto similarity |a & b| / |a | b| (0..1) of two fingerprints @p a, @p b of SP_FP_WORDS words each;
 *  0 when both are empty. No errors. */
double sp_tanimoto(const uint64_t *a, const uint64_t *b);

#endif

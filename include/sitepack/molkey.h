/**
 * @file molkey.h
 * @brief Molecule key: an identity of the chemistry of a molecule that does not depend
 *        on protonation, tautomer, stereochemistry or atom names (DESIGN.md "molecule key").
 *
 * Key string: "wl1-<16 lowercase hex digits>-h<N>", e.g. "wl1-3f0c9a1b2d4e5f60-h4".
 *  - "wl1" is the algorithm version; any change to the hash below gets a new version.
 *  - the 64-bit hash is a Weisfeiler-Lehman (1-WL, colour refinement) hash of the
 *    heavy-atom graph:
 *      nodes  = atoms whose element is not H (atomic number != 1; unknown elements,
 *               z = 0, are nodes with label 0),
 *      labels = atomic number only (no charge, no aromaticity, no isotopes),
 *      edges  = bonds between two such nodes, unlabeled (bond order ignored), duplicates
 *               and self-bonds ignored, and every bond with a metal end
 *               (sp_element_is_metal) removed: a metal is an isolated node.
 *  - N = neutral-equivalent hydrogen count = (number of H atoms) - (net formal charge),
 *    signed (a Ca2+ ion gives "h-2"; sulfate SO4 2- with no H gives "h2").
 *
 * Hash (all arithmetic on uint64_t, so identical on every platform):
 *   mix(x)   = splitmix64 finaliser of x + 0x9E3779B97F4A7C15 (Steele, Lea, Flood,
 *              "Fast splittable pseudorandom number generators", OOPSLA 2014):
 *              z = x + 0x9E3779B97F4A7C15; z = (z ^ z>>30) * 0xBF58476D1CE4E5B9;
 *              z = (z ^ z>>27) * 0x94D049BB133111EB; return z ^ z>>31.
 *   label_0(v)     = mix(0x574C310000000000 + element(v))
 *   label_{k+1}(v) = fold(mix(label_k(v)), sorted labels_k of the neighbours of v),
 *                    fold(a, x_1..x_m) = a_m with a_i = mix(a_{i-1} ^ x_i)
 *   iterate until the number of distinct labels stops growing (the partition is
 *   stable), at most n_nodes rounds;
 *   hash = fold(mix(n_nodes) ^ mix(n_edges + 0x10000), sorted final labels).
 *
 * Limits (documented in docs/ligands.md): 1-WL cannot tell apart some non-isomorphic
 * graphs with the same element multiset, notably regular graphs (cyclohexane vs two
 * cyclopropanes: both 2-regular carbon graphs) and some fused/bridged ring systems;
 * stereoisomers (enantiomers, cis/trans) share a key by design; bond orders are not
 * part of the key, so two molecules that differ only by bond order and hydrogen
 * placement with the same H count collide too (they are tautomers by this
 * definition). A key match means "same molecule" only up to these limits: callers that
 * need certainty confirm a match with an exact graph comparison.
 */
#ifndef SITEPACK_MOLKEY_H
#define SITEPACK_MOLKEY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sitepack/component.h"
#include "sitepack/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Bytes of a molecule key string, NUL included ("wl1-" + 16 hex + "-h" + count fits in 40).
 *  The /ligands and /components columns molecule_key have this size (docs/format.md). */
#define SP_KEY_LEN 40

/** Algorithm version prefix of every key this library makes. */
#define SP_MOLKEY_VERSION "wl1"

/**
 * The 64-bit WL hash and hydrogen count of a molecular graph (the parts of the key).
 * @param n_atoms   number of atoms (all, H included), >= 1
 * @param element   [n_atoms] atomic numbers (1 = H; 0 = unknown, treated as a heavy node)
 * @param charge    [n_atoms] formal charges, or NULL for all zero
 * @param n_bonds   number of bonds
 * @param bonds     [n_bonds][2] 0-based atom indices (order within a pair irrelevant)
 * @param hash_out  the WL hash (may be NULL)
 * @param h_out     H count minus net formal charge (may be NULL)
 * @return 0; SP_E_INVALID when n_atoms == 0, n_atoms > UINT32_MAX - 1, element is NULL,
 *         bonds is NULL with n_bonds > 0, or a bond index is >= n_atoms; SP_E_NOMEM.
 */
int sp_molkey_hash(size_t n_atoms, const uint8_t *element, const int8_t *charge, size_t n_bonds,
                   const uint32_t (*bonds)[2], uint64_t *hash_out, long *h_out, sp_err *err);

/**
 * The molecule key string of a graph (see sp_molkey_hash for the arguments).
 * @param out receives "wl1-<16 hex>-h<N>" (NUL-terminated, < SP_KEY_LEN bytes)
 * @return as sp_molkey_hash; out is "" on error.
 */
int sp_molkey_graph(size_t n_atoms, const uint8_t *element, const int8_t *charge, size_t n_bonds,
                    const uint32_t (*bonds)[2], char out[SP_KEY_LEN], sp_err *err);

/**
 * The molecule key of a component definition (CCD block or file-defined component):
 * its atoms (charges from _chem_comp_atom.charge, '?' counted as 0) and bonds.
 * @param drop_leaving true: leave out atoms with pdbx_leaving_atom_flag Y (and their bonds)
 * @return 0; SP_E_INVALID when @p c is NULL, has no atoms (left), or a bond index is out of
 *         range; SP_E_NOMEM. out is "" on error.
 */
int sp_molkey_component(const sp_component *c, bool drop_leaving, char out[SP_KEY_LEN], sp_err *err);

/** Format a key from its parts into @p out (SP_KEY_LEN bytes). */
void sp_molkey_format(uint64_t hash, long h, char out[SP_KEY_LEN]);

/** Verdicts of the exact confirmation (sp_molkey_isomorphic). */
enum {
  SP_ISO_NO = 0,        /**< the heavy-atom graphs are not isomorphic (a WL collision if keys match) */
  SP_ISO_YES = 1,       /**< isomorphic: a key match is confirmed */
  SP_ISO_UNDECIDED = 2, /**< the search hit max_steps before deciding */
};

/** Default bound on candidate tries for sp_molkey_isomorphic (enough for every CCD component
 *  tried, including symmetric ones such as C60 and long alkyl chains; docs/ligands.md). */
#define SP_ISO_DEFAULT_STEPS 1000000u

/**
 * Exact confirmation of a key match: are the heavy-atom graphs of A and B isomorphic, as
 * element-labelled graphs? The graphs are those the key hashes (molkey.h: non-H atoms, bonds
 * between them, bonds to metals removed, duplicates and self-bonds ignored, bond orders
 * ignored); the H count part of the key is not compared here (equal keys already have
 * equal N). Method: WL colour refinement run jointly on both graphs (the key's label
 * function, same rounds, so colours compare across graphs; different colour histograms
 * decide "no" at once), then depth-first matching in breadth-first order of A starting at
 * its rarest colour, candidates restricted to B nodes of the same colour adjacent to the
 * image of the BFS parent, with VF2-style feasibility (adjacency to every matched node
 * agrees both ways). Iterative (explicit stack): no recursion.
 * Arguments as sp_molkey_hash for each graph (n_*, el_*, nb_*, b_*).
 * @param max_steps bound on candidate tries (SP_ISO_DEFAULT_STEPS is a reasonable value)
 * @param verdict   receives SP_ISO_YES, SP_ISO_NO or SP_ISO_UNDECIDED
 * @param steps     receives the candidate tries spent (may be NULL)
 * @return 0 (the answer is in *verdict); SP_E_INVALID (NULL verdict, NULL arrays with
 *         nonzero counts, bond index out of range, more than UINT32_MAX-1 atoms); SP_E_NOMEM.
 */
int sp_molkey_isomorphic(size_t n_a, const uint8_t *el_a, size_t nb_a, const uint32_t (*b_a)[2], size_t n_b,
                         const uint8_t *el_b, size_t nb_b, const uint32_t (*b_b)[2], uint64_t max_steps, int *verdict,
                         uint64_t *steps, sp_err *err);

/**
 * sp_molkey_isomorphic on the graphs of two component definitions (all atoms, or without
 * leaving atoms when @p drop_leaving), i.e. the graphs sp_molkey_component hashes.
 * @return as sp_molkey_isomorphic; SP_E_INVALID also for a NULL component or a bond out of range.
 */
int sp_molkey_component_isomorphic(const sp_component *a, const sp_component *b, bool drop_leaving,
                                   uint64_t max_steps, int *verdict, uint64_t *steps, sp_err *err);

#ifdef __cplusplus
}
#endif
#endif

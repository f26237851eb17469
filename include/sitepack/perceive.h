/**
 * @file perceive.h
 * @brief Bond orders and formal charges of a molecule from its 3D coordinates and connectivity: the
 *        perception for ligands without a CCD block (issue 37 item 2; src/chem/perceive.c).
 *
 * Method: xyz2mol (Kim & Kim, "Universal structure conversion method for organic molecules: from atomic
 * connectivity to three-dimensional geometry", Bull. Korean Chem. Soc. 2015, 36, 1769-1777; Jan Jensen's
 * xyz2mol, the code RDKit's rdDetermineBonds ports), which RDKit 2022.09 in Debian does not ship (no
 * GraphMol/DetermineBonds): every atom's unsaturation DU = valence - bonds, the unsaturated atoms paired along
 * their bonds (one pairing = one extra bond order) until no pair is left, and the formal charges from the
 * orders, q = valence electrons - 8 + bond-order sum (N 4 bonds +1, O 1 bond -1; S and P at valence 6 and 5
 * neutral; B 3 - sum). Where xyz2mol enumerates the product of every atom's valence list and needs the
 * molecule's total charge, this solver takes no total charge: it searches the pairings of the unsaturated
 * atoms exactly (branch and bound), each atom at its smallest valence of the list that holds its bonds, and
 * lets an atom move to a charged state only where that completes the pairing: an N / P with 3 bonds, an O
 * with 2 or an S with 3 may take one more bond as a cation (pyridinium, imidazolium, guanidinium, nitro N+,
 * flavylium O+), an atom left with a free unit becomes the anion (O-, N-, S-) or, for S with 3 bonds, the
 * sulfonium cation. The best pairing has the fewest charged atoms (a charged C counts 4), then the smallest
 * |total charge| (nitro as N+ / O-, not two O-), then the largest sum over its double and triple bonds of
 * the bond's shortening against its single-bond length (the Kekulé form the geometry shows; ties in file
 * order; from heavy atoms only, a double bond to a terminal N counts 0.05 Å less, so that the amino form of
 * adenine, cytosine and guanine and the amide of nicotinamide win over their imino forms).
 *
 * Hydrogens: with SP_PERCEIVE_EXPLICIT_H every hydrogen is in the atom list (a CCD block's ideal
 * coordinates, a deposited ligand with hydrogens), so an atom's bonds fix its unsaturation. Without it the
 * molecule is heavy atoms only and the geometry decides which atoms are unsaturated (src/chem/perceive_geom.c):
 * a C with 3 bonds whose angles add to >= 350 degrees (sp3 ~ 328) must pair one unit; a C with 2 bonds at
 * >= 155 degrees two, with a bond >= 0.08 Å shorter than its single bond (the sum of the Cordero covalent
 * radii, elements.h: C-C 1.52, aromatic 1.39 Å) one; a terminal C by its bond (>= 0.10 Å shorter: double,
 * >= 0.24 Å: triple); N with 1 or 2 bonds, terminal O and S may pair (a unit they do not pair is an implicit
 * hydrogen, no charge), S with 3 / 4 bonds pairs 1 / 2 (sulfoxide, sulfone; else the sulfonium S+), P with 4
 * pairs 1; a planar N with 3 bonds may become N+ to pair (pyridinium), at no cost when it holds a terminal O
 * >= 0.10 Å short (nitro, N-oxide: N+=O, O-); among pairings of equal cost the largest shortening wins, so the
 * geometry picks the tautomer. Charges of heavy-atom molecules are only those the pairing forces; the
 * protonation of acids and amines cannot be seen without hydrogens.
 *
 * Plain C, no MPI, no allocation outside the call's own scratch.
 */
#ifndef SITEPACK_PERCEIVE_H
#define SITEPACK_PERCEIVE_H

#include <stddef.h>
#include <stdint.h>

#include "sitepack/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/** sp_perceive flags. */
enum {
  SP_PERCEIVE_EXPLICIT_H = 1u << 0, /**< every hydrogen of the molecule is in the atom list */
};

/** Most atoms one call takes (larger molecules: SP_E_TOO_LARGE). */
#define SP_PERCEIVE_MAX_ATOMS 1024

/** What the perception found, for the caller's flags and warnings. */
typedef struct sp_perceive_info {
  int n_charged;    /**< atoms given a nonzero formal charge */
  int net_charge;   /**< sum of the formal charges (e) */
  int n_unpaired;   /**< heavy-atom mode: carbons the geometry shows unsaturated that the pairing left
                           with a free unit (a radical reading; > 0 means the result is doubtful) */
  int exhausted;    /**< 1: the search hit its node limit; the best pairing found so far was kept */
  int n_implicit_h; /**< hydrogens the result implies beyond the atom list (valence.h sp_valence_implicit_h
                           of each atom's charge and bond-order sum, links included): 0 for a molecule whose
                           hydrogens are all there; the caller's test of whether they are */
} sp_perceive_info;

/** Perceive bond orders and formal charges.
 *  @param n      number of atoms (1..SP_PERCEIVE_MAX_ATOMS)
 *  @param z      [n] atomic numbers (1 H ...); an atom of an element without a valence (valence.h: metals,
 *                noble gases, z 0) and its bonds keep order 1 and charge 0 and take no part
 *  @param xyz    [n][3] coordinates, Å
 *  @param nb     number of bonds
 *  @param pairs  [nb][2] atom indices (0-based, distinct, < n; each pair once): the connectivity, e.g. from
 *                distances (bonds.c, covalent radii + 0.4 Å)
 *  @param ext    [n] or NULL: bonds each atom has to atoms outside the molecule (a link to the next residue,
 *                to the polymer), counted as single bonds in its valence
 *  @param flags  SP_PERCEIVE_* bits
 *  @param order  [nb] out: 1, 2 or 3 (Kekulé orders)
 *  @param charge [n] out: formal charges (e)
 *  @param info   out (may be NULL)
 *  @param err    filled on failure (may be NULL)
 *  @return 0; SP_E_INVALID for a NULL array with n or nb > 0, an index out of range or a pair of one atom;
 *          SP_E_TOO_LARGE above SP_PERCEIVE_MAX_ATOMS atoms; SP_E_NOMEM. On failure order[] is all 1 and
 *          charge[] all 0. */
int sp_perceive(size_t n, const uint8_t *z, const float (*xyz)[3], size_t nb, const uint32_t (*pairs)[2],
                const uint8_t *ext, unsigned flags, uint8_t *order, int8_t *charge, sp_perceive_info *info,
                sp_err *err);

/** Aromatic bonds from Kekulé orders and formal charges (sp_perceive's output, or any): a bond is aromatic when
 *  it lies on a 5- or 6-membered ring whose atoms give 4n + 2 pi electrons, counted per atom as RDKit's model
 *  counts a single ring (The RDKit Book, "Aromaticity"): 1 for a double bond in the ring or to an atom of another
 *  such ring, 0 for an exocyclic double bond to an O, N or S (2-pyridone, uracil), 2 for an N, O, S or Se with a
 *  lone pair and no double bond (pyrrole, furan, thiophene) or a C-, 0 for a C+; an sp3 atom or an exocyclic
 *  C=C keeps the ring non-aromatic (benzoquinone, fulvene); two fused rings (sharing one bond) that are not both
 *  aromatic alone are aromatic when the atoms of the two give 4n + 2 (RDKit's fused-system rule, taken for pairs:
 *  azulene; RDKit also tries larger fused sets). Hydrogens (z 1) are no ring atoms.
 *  @param n, z, nb, pairs as sp_perceive
 *  @param order  [nb] 1, 2, 3
 *  @param charge [n] formal charges
 *  @param arom   [nb] out: 1 aromatic, 0 not
 *  @return 0; SP_E_INVALID (a NULL array, an index out of range); SP_E_NOMEM. */
int sp_perceive_aromatic(size_t n, const uint8_t *z, size_t nb, const uint32_t (*pairs)[2], const uint8_t *order,
                         const int8_t *charge, uint8_t *arom, sp_err *err);

#ifdef __cplusplus
}
#endif

#endif

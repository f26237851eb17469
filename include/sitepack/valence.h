/**
 * @file valence.h
 * @brief Valences of the main-group elements and the formal charges of a ligand's atoms: the one table and
 *        the one set of charge rules that the site chemistry, the SDF export, the fingerprints and the
 *        pipeline's /atoms/formal_charge use (src/chem/valence.c, src/chem/formal_charge.c).
 *
 * The table: RDKit's valence lists (its periodic table, Code/GraphMol/atomic_data.cpp, as RDKit 2022.09
 * reports them through Chem.GetPeriodicTable().GetValenceList) of every element that is no metal
 * (sp_element_is_metal, elements.h) and has a positive default valence: H 1; B 3; C 4; N 3; O 2; F 1;
 * Si 4, 6; P 3, 5, 7; S 2, 4, 6; Cl 1; Ge 4; As 3, 5, 7; Se 2, 4, 6; Br 1; Sb 3, 5, 7; Te 2, 4, 6;
 * I 1, 3, 5; At 1, 3, 5. The first entry is RDKit's default valence (GetDefaultValence), which is also the
 * normal valence of the Daylight SMILES organic subset (B 3, C 4, N 3, O 2, P 3, S 2, halogens 1). Every
 * other element (metals, noble gases, Ts, Og) has no entry. tests/peer/test_valence_table.py compares the
 * table with the installed RDKit.
 *
 * The charge rules (sp_ligand_charges): docs/usage.md "Export" and docs/format.md "/atoms" (formal_charge).
 */
#ifndef SITEPACK_VALENCE_H
#define SITEPACK_VALENCE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Most valences one element has in the table. */
#define SP_VALENCE_MAX_LIST 3

/** The valence list of element @p z (atomic number), ascending, into @p out[SP_VALENCE_MAX_LIST].
 *  @return the number of entries written, 0 for an element without an entry (z == 0, metals, noble gases,
 *  every element the table above does not name). */
int sp_valence_list(uint8_t z, int out[SP_VALENCE_MAX_LIST]);

/** The default (first, smallest) valence of a neutral atom of element @p z: C 4, N 3, P 3, O 2, S 2, Se 2,
 *  B 3, halogens 1 ...; 0 for an element without an entry. */
int sp_valence_default(uint8_t z);

/** The largest valence RDKit's sanitization accepts for element @p z at formal charge @p charge (units of e):
 *  the last entry of the list; for a charged atom of B..F the list of its isoelectronic neutral element
 *  (atomic number z - charge, which must be B..F too: N+ as C 4, O+ as N 3, O- as F 1, B- as C 4), as RDKit
 *  does for these elements. @return the valence; -1 where this check does not judge (an element without an
 *  entry, a charged atom outside B..F or whose isoelectronic element is outside B..F). */
int sp_valence_max(uint8_t z, int charge);

/** Implicit hydrogens of an atom of element @p z, formal charge @p charge, whose explicit bonds add up to
 *  @p used (bond orders; an aromatic pair counted as the Kekulé form): RDKit's implicit-valence rule
 *  (Atom::calcImplicitValence, RDKit 2022.09): the smallest valence v of the list with v + shift >= used, where
 *  shift = -charge for B, Ge and Sb (RDKit's "early" atoms: B- as BH4-, valence 4), -|charge| for H and C
 *  (C+ and C- both 3, H+ and H- 0), +charge for every other element (N+ 4, O- 1, S+ 3, Cl- 0); the count is
 *  v + shift - used, 0 when no entry reaches @p used (tests/peer/test_valence_table.py checks it against
 *  RDKit for charges -1, 0, +1 and 0..7 bonds).
 *  @return the count (>= 0); 0 for an element without an entry. */
int sp_valence_implicit_h(uint8_t z, int charge, int used);

/** What the link-hydrogen rule of sp_ligand_charges (step 0) needs besides the ligand's own columns: the site's
 *  atoms, positions and bond flags. The export, the pipeline (/atoms/formal_charge) and `sitepack check` pass it,
 *  so that all three leave out the same hydrogens before the charge rules. */
typedef struct sp_lig_links {
  size_t n_all;          /**< atoms of the site block (ligand atoms first): `element` covers [0, n_all) */
  const float *xyz;      /**< [n][3] ligand atom positions (Å); NULL: an H without a bond has no owner */
  const uint8_t *flags;  /**< [nb] the bonds' SP_BOND_* bits (/bonds/flags) */
  uint8_t link_bits;     /**< the bits that make a bond a link: SP_BOND_INTER_RESIDUE | SP_BOND_TO_POLYMER */
} sp_lig_links;

/** Per-atom results and work space of sp_ligand_charges, reused from ligand to ligand. Zero-initialise it once;
 *  free it with sp_ligand_charges_free(). After a call, arrays [0, n) hold: */
typedef struct sp_lig_charges {
  int8_t *charge;      /**< the formal charge the rules give (units of e) */
  uint8_t *by_valence; /**< 1 when the valence rule set it (SD field valence_charges) */
  int *deg;            /**< the atom's bonds among the ligand atoms, metal bonds excepted */
  int *val;            /**< the sum of their orders, an aromatic (4) or unknown (0) bond counted 1 */
  uint8_t *arom;       /**< 1 when one of them is aromatic (order 4) */
  int32_t *own;        /**< a hydrogen left out by the link-hydrogen rule: the linked atom it sits on; -1 others */
  int n_link_h;        /**< hydrogens left out by the link-hydrogen rule */
  size_t cap;          /**< elements allocated in each array */
  int n_valence_charged; /**< atoms whose charge the valence rule set */
} sp_lig_charges;

/**
 * The formal charges of the @p n ligand atoms of one site, as the SDF export writes them and
 * /atoms/formal_charge stores them (docs/usage.md "Export", docs/format.md "/atoms"):
 *  1. the CCD's charge where the atom matches a CCD atom (@p ccd_atom bit 0, SP_CCD_ATOM_MATCHED of bonds.h),
 *     else the file's;
 *  0. (with @p links, after 1's charges) link-hydrogen rule: a deposited H on an atom X that a link uses (a bond
 *     of the site, not to a metal, with a link bit), where the H would put X above sp_valence_max at X's charge
 *     (the glycosidic O6 of a BMA that keeps its HO6: valence 3), is left out of the molecule, one H per unit of
 *     excess, in atom order: X is the H's one bond partner, or with no bond the nearest heavy ligand atom within
 *     1.3 Å; an H bonded to a metal or to two atoms is kept. The H's bond leaves the molecule (rules 2 and 3 do
 *     not see it; deg and val are without it), out->own[H] = X, and its charge is the file's @p charge. The CCD's
 *     leaving-atom flags say the same of the free component (HO6, HO4 of the sugars);
 *  2. metal-bond rule: for each bond to a metal (sp_element_is_metal of either atom), in bond order, a non-metal
 *     X uncharged so far whose other bonds (val) + 1 <= its default valence (sp_valence_default; an element
 *     without one is left alone) takes -1 and the metal +1, as InChI's metal disconnection does;
 *  3. valence rule: an uncharged N without a CCD atom whose bonds add up to val 4, none aromatic, is N+, and
 *     each terminal partner of it (deg 1, uncharged, no CCD atom) that is an O on a single bond or an N on a
 *     double bond is the anion (-1): amine N-oxides, nitro groups, azides (IUPAC Gold Book).
 * Bonds with an atom outside [0, @p n) (links to site atoms) or a self-bond are ignored.
 * @param element   [n] atomic numbers
 * @param charge    [n] the file's formal charges (/atoms/charge)
 * @param ccd_charge [n] the CCD atoms' charges (/atoms/ccd_charge); NULL: all 0
 * @param ccd_atom  [n] SP_CCD_ATOM_* bits (/atoms/ccd_atom); NULL: none matched
 * @param nb        bonds in @p a1, @p a2, @p order (the site's /bonds block, 0-based atom offsets)
 * @param order     [nb] 1, 2, 3, 4 aromatic; other values count as 1 (single)
 * @param links     the link-hydrogen rule's inputs (element then covers links->n_all atoms); NULL: no H left out
 * @param out       results (grown as needed)
 * @return 0; SP_E_INVALID (NULL array with n or nb > 0, links without flags); SP_E_NOMEM (out keeps what it had).
 */
int sp_ligand_charges(size_t n, const uint8_t *element, const int8_t *charge, const int8_t *ccd_charge,
                      const uint8_t *ccd_atom, size_t nb, const int32_t *a1, const int32_t *a2, const uint8_t *order,
                      const sp_lig_links *links, sp_lig_charges *out);

/** Free the arrays of @p c and zero it; NULL accepted. */
void sp_ligand_charges_free(sp_lig_charges *c);

#ifdef __cplusplus
}
#endif
#endif

/**
 * @file descriptors.h
 * @brief Ligand descriptors through RDKit itself (issue 36; docs/format.md "Ligand descriptors").
 *
 * A small C API over RDKit's C++ library (Debian librdkit-dev 2022.09.3, the same release as Debian's
 * python3-rdkit, so the values agree exactly with RDKit's Python `Descriptors`, `rdMolDescriptors`,
 * `Crippen`, `MolSurf` and `QED`): outside sitepack's core, a well-kept library beats our own code
 * (docs/architecture.md "Decisions"). The shim is src/chem/descriptors.cpp, the one C++ file of the
 * project; no Python runs at run time.
 *
 * The molecule: the given atoms (hydrogens included where given, as explicit atoms) with their formal
 * charges, and the given bonds (order 1, 2, 3; 4 aromatic: the bond and its two atoms marked aromatic,
 * as RDKit's molfile reader does for bond type 4; any other order counts as single), read as RDKit's molfile
 * reader reads a record (Chem.MolFromMolBlock(block), sanitize and removeHs: MolFileParser.cpp): the cleanup
 * step of sanitization (nitro groups, ...), the explicit hydrogens removed (MolOps::removeHs), then full
 * sanitization (implicit hydrogens by RDKit's default valences, Kekulé form, aromaticity). A hydrogen that
 * makes its atom over-valent is thus removed before the valence check, as the reader does. Then, on that
 * molecule (RDKit 2022.09 names):
 *  - mw: Descriptors.MolWt (rdMolDescriptors._CalcMolWt: average atomic weights, implicit H included), Da;
 *  - heavy_atoms: Mol.GetNumHeavyAtoms(); formal_charge: Chem.GetFormalCharge;
 *  - hbd, hba: Lipinski.NumHDonors / NumHAcceptors (rdMolDescriptors.CalcNumHBD / CalcNumHBA, RDKit's
 *    SMARTS definitions); hbd_lipinski, hba_lipinski: Lipinski.NHOHCount / NOCount
 *    (CalcNumLipinskiHBD / HBA: Lipinski's N-H + O-H and N + O counts);
 *  - rotatable_bonds: Descriptors.NumRotatableBonds (CalcNumRotatableBonds, its Default option);
 *  - tpsa: Descriptors.TPSA (Ertl 2000, N and O only), Å²; logp, mr: Crippen.MolLogP / MolMR
 *    (Wildman & Crippen 1999);
 *  - n_rings, n_aromatic_rings: rdMolDescriptors.CalcNumRings / CalcNumAromaticRings;
 *  - fsp3: rdMolDescriptors.CalcFractionCSP3;
 *  - qed: QED.qed (Bickerton et al., Nat. Chem. 4, 90, 2012) with the mean weights: RDKit's QED is Python
 *    only (rdkit/Chem/QED.py, version 1.1.0 of RDKit 2022.09.3); its formula, ADS parameters, weights,
 *    acceptor and structural-alert SMARTS are ported into the shim, the SMARTS matched by RDKit's
 *    SubstructMatch exactly as QED.py matches them.
 * Speed, not values: each molecule is computed once per process (a cache by the exact input graph, then one by
 * RDKit's canonical SMILES of the sanitized molecule, so an instance equal to its component or to a ligand of an
 * earlier file is not computed again). The SMARTS of QED and of Crippen's atom typing go to RDKit's SubstructMatch
 * after an exact screen (descriptors.cpp): an upper bound of what each query atom and bond can match, read from
 * RDKit's own query trees, skips a call only when no match can exist. Crippen's typing is the loop of RDKit's
 * Crippen.cpp (getCrippenAtomContribs over CrippenParamCollection, on the molecule with explicit hydrogens) run in
 * the shim with that screen. The values are those of the RDKit calls named above (tests/peer; make bench-desc
 * times it).
 * Flags (SP_DESCF_*) from those values:
 *  - SP_DESCF_RO5: Lipinski's rule of five (Lipinski et al., Adv. Drug Deliv. Rev. 23, 3, 1997) with at
 *    most one violation, the paper's alert being two or more: mw <= 500, logp <= 5, hbd_lipinski <= 5,
 *    hba_lipinski <= 10;
 *  - SP_DESCF_RO3: the fragment "rule of three" (Congreve et al., Drug Discov. Today 8, 876, 2003), all six:
 *    mw <= 300, logp <= 3, hbd <= 3, hba <= 3, rotatable_bonds <= 3, tpsa <= 60;
 *  - SP_DESCF_DRUG_LIKE: the preset "drug-like" of sitepack: no rule-of-five violation at all, Veber's
 *    oral-bioavailability criteria (Veber et al., J. Med. Chem. 45, 2615, 2002: rotatable_bonds <= 10,
 *    tpsa <= 140), and 10 <= heavy_atoms (no ion, solvent or fragment-sized artifact).
 */
#ifndef SITEPACK_DESCRIPTORS_H
#define SITEPACK_DESCRIPTORS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Bits of sp_descriptors.flags (/components/desc_flags, /ligands/desc_flags). */
enum {
  SP_DESCF_COMPUTED = 1u << 0,   /**< RDKit sanitized the molecule: the values are set */
  SP_DESCF_RO5 = 1u << 1,        /**< rule of five, at most one violation */
  SP_DESCF_RO3 = 1u << 2,        /**< rule of three, all six criteria */
  SP_DESCF_DRUG_LIKE = 1u << 3,  /**< no Ro5 violation, Veber's two, heavy_atoms >= 10 */
  SP_DESCF_UNKNOWN_ORDERS = 1u << 4, /**< /ligands only (version 7): some bond among the ligand's atoms (not to a
                                          metal) has order 0, unknown (a distance bond, bonds.h), which the molecule
                                          has as single, as the SDF export writes it: the values are those of that
                                          all-single-bond reading, not of the ligand's real chemistry (issue 37;
                                          set by the pipeline, never by sp_desc_from_graph) */
};

/** Descriptors of one molecule. Counts are -1 and values NaN when not computed (flags 0). */
typedef struct sp_descriptors {
  float mw;                 /**< Da (g/mol) */
  float tpsa;               /**< Å² */
  float logp;               /**< Crippen logP */
  float mr;                 /**< Crippen molar refractivity (MolMR), cm³/mol */
  float fsp3;               /**< fraction of sp3 carbons, 0..1 */
  float qed;                /**< 0..1 */
  int32_t heavy_atoms;
  int32_t formal_charge;
  int32_t hbd, hba;         /**< RDKit's definitions */
  int32_t hbd_lipinski, hba_lipinski;
  int32_t rotatable_bonds;
  int32_t n_rings, n_aromatic_rings;
  uint8_t flags;            /**< SP_DESCF_* */
} sp_descriptors;

/** Set @p d to "not computed": counts -1, values NaN, flags 0. */
void sp_desc_clear(sp_descriptors *d);

/**
 * Descriptors of the molecule of @p n_atoms atoms and @p n_bonds bonds (the rules above).
 * @param element [n_atoms] atomic numbers (0: a dummy atom, which RDKit keeps)
 * @param charge  [n_atoms] formal charges, or NULL for all 0
 * @param bond_atoms [2 * n_bonds] atom indices (0-based) of each bond; read only
 * @param bond_order [n_bonds] 1, 2, 3, 4 aromatic; other values single
 * @param out     receives the values; cleared (sp_desc_clear) on any error
 * @return 0; SP_E_BAD_VALUE (error.h) when RDKit does not sanitize the molecule (a valence it does not
 *         accept, an aromatic bond outside a ring it can kekulize) or a bond names an atom out of range,
 *         or an element above 118; SP_E_INVALID for NULL arrays with counts > 0; SP_E_NOMEM;
 *         SP_E_INTERNAL for any other exception of RDKit (none known).
 */
int sp_desc_from_graph(size_t n_atoms, const uint8_t *element, const int8_t *charge, size_t n_bonds,
                       const uint32_t *bond_atoms, const uint8_t *bond_order, sp_descriptors *out);

/**
 * Descriptors of the molecule of a molfile block (V2000 or V3000, as `sitepack export` writes them), read
 * by RDKit's MolBlockToMol (sanitize, remove hydrogens), which is what Chem.MolFromMolBlock does.
 * @return 0; SP_E_BAD_VALUE when RDKit does not read or sanitize it; SP_E_INVALID (NULL); SP_E_NOMEM;
 *         SP_E_INTERNAL. @p out cleared on error.
 */
int sp_desc_from_molblock(const char *molblock, sp_descriptors *out);

/** The SP_DESCF_RO5 / RO3 / DRUG_LIKE bits of computed values @p d (0 when SP_DESCF_COMPUTED is clear). */
uint8_t sp_desc_rule_flags(const sp_descriptors *d);

#ifdef __cplusplus
}
#endif
#endif

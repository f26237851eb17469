/**
 * @file bonds.h
 * @brief The covalent bonds of one ligand instance, on its site's atom block: the bonds among
 *        the ligand's atoms (orders and aromaticity from the CCD or the file) and its covalent
 *        links to other atoms of the site (attachment to a polymer residue, glycosidic link,
 *        metal bond). Rules and sources: docs/format.md "/bonds".
 *
 * Plain C, no MPI. Built once per ligand instance from its site (sp_site_compute): every atom
 * is an offset in the site's atom block (0 = the first ligand atom), as /interactions does, so
 * the list serves the store (/bonds rows), the site chemistry (bonded and 1-3 related atoms are
 * never an interaction) and the exporters alike.
 */
#ifndef SITEPACK_BONDS_H
#define SITEPACK_BONDS_H

#include <stddef.h>
#include <stdint.h>

#include "sitepack/ccd.h"
#include "sitepack/error.h"
#include "sitepack/model.h"
#include "sitepack/site.h"
#include "sitepack/survey.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Where a bond comes from (/bonds/source names via sp_bond_source_name). */
typedef enum sp_bond_source {
  SP_BOND_SRC_CCD = 0,         /**< the component's CCD block (_chem_comp_bond) */
  SP_BOND_SRC_FILE = 1,        /**< the entry's own _chem_comp_bond (no usable CCD block) */
  SP_BOND_SRC_CONECT = 2,      /**< PDB CONECT (sp_conect: order = times the pair is listed, aromatic 0) */
  SP_BOND_SRC_STRUCT_CONN = 3, /**< _struct_conn covale/disulf/metalc, PDB LINK/SSBOND */
  SP_BOND_SRC_DISTANCE = 4,    /**< perceived: covalent radii + 0.4 Å (order 0, unknown), or the
                                   C-N peptide link of consecutive residues of a peptide ligand
                                   (C-N <= 2.0 Å, order 1) */
  SP_BOND_SRC_PERCEIVED = 5,   /**< format version 8: a residue without a CCD block or bond table of its own:
                                   connectivity from CONECT (every pair listed once) or from distances as
                                   SP_BOND_SRC_DISTANCE, orders 1-3 perceived from the coordinates
                                   (perceive.h sp_perceive); the residue's atoms carry SP_CCD_ATOM_PERCEIVED.
                                   A doubtful perception (an unpaired unit, the node limit) stays
                                   SP_BOND_SRC_DISTANCE order 0 / SP_BOND_SRC_CONECT */
  SP_BOND_SRC_COUNT
} sp_bond_source;

/** "ccd", "file", "conect", "struct_conn", "distance"; "?" out of range. */
const char *sp_bond_source_name(int src);

/** Bond flag bits (sp_bond.flags, /bonds/flags). */
enum {
  SP_BOND_INTER_RESIDUE = 1u << 0, /**< the two atoms are in different residues */
  SP_BOND_TO_POLYMER = 1u << 1,    /**< the second atom is a polymer atom of the site */
  SP_BOND_TO_METAL = 1u << 2,      /**< one atom is a metal (sp_element_is_metal), or a metalc link */
};

/** Per-atom CCD bits (sp_bond_list.ccd_atom, /atoms/ccd_atom). */
enum {
  SP_CCD_ATOM_MATCHED = 1u << 0,   /**< the atom's name is an atom of its residue's CCD definition */
  SP_CCD_ATOM_AROMATIC = 1u << 1,  /**< that CCD atom has pdbx_aromatic_flag Y */
  SP_CCD_ATOM_LEAVING = 1u << 2,   /**< that CCD atom has pdbx_leaving_atom_flag Y */
  SP_CCD_ATOM_PERCEIVED = 1u << 3, /**< format version 8: no CCD atom; ccd_charge is the charge perceived with
                                        the residue's bond orders (SP_BOND_SRC_PERCEIVED) */
};

/** One bond. a < b, both offsets in the site's atom block; a is a ligand atom (a < n_ligand). */
typedef struct sp_bond {
  uint32_t a, b;
  uint8_t order;     /**< 1, 2, 3 (Kekulé order of the CCD/file); 4 aromatic/delocalised without a
                          Kekulé order (monomer-library "aromatic", "deloc"); 0 unknown (distance) */
  uint8_t aromatic;  /**< 1: pdbx_aromatic_flag Y (or order spelled AROM/aromatic) */
  uint8_t source;    /**< sp_bond_source */
  uint8_t flags;     /**< SP_BOND_* */
} sp_bond;

/** The bonds of one ligand instance and its atoms' CCD data. Arrays owned, grown on use (a list
 *  is re-used across ligands); sp_bond_list_free(). */
typedef struct sp_bond_list {
  size_t n, cap;
  sp_bond *bonds;      /**< intra-residue bonds residue by residue (definition order), then links
                            (peptide links, then _struct_conn order); no pair twice */
  size_t n_atoms, cap_atoms;  /**< = the site's n_ligand */
  int8_t *ccd_charge;         /**< [n_atoms] the CCD atom's formal charge (_chem_comp_atom.charge), or the
                            perceived charge (SP_CCD_ATOM_PERCEIVED); 0 when unmatched or '?' */
  uint8_t *ccd_atom;   /**< [n_atoms] SP_CCD_ATOM_* */
  uint32_t lig_flags;  /**< SP_LIG_NAME_NOT_IN_CCD when some atom's name is not in its definition */
} sp_bond_list;

/**
 * The bonds of ligand @p lig on its site @p site (rules: docs/format.md "/bonds").
 * Intra-residue: the residue's usable CCD block (in the CCD, with atoms, not obsolete, as the
 * survey's molecule key), matched by atom name; else the entry's _chem_comp_bond of that comp_id;
 * else the file's CONECT bonds among the residue's atoms (PDB input, when CONECT bonds two of
 * them); else distances (covalent radii + 0.4 Å). An atom whose name its definition lacks gets no
 * intra-residue bond and sets SP_LIG_NAME_NOT_IN_CCD; CCD atoms absent from the site block (not
 * observed, leaving atoms, another conformer) give no bond. Links: _struct_conn covale, disulf and
 * metalc rows (model 1, the identity operator) with one end on the ligand and the other in the site
 * block (not a symmetry image), peptide links between consecutive residues of the instance, then
 * the CONECT bonds of the ligand to other residues of the site block that no link before gives
 * (PDB files without LINK records), then ligand-polymer links by distance where neither gives one
 * (heavy, non-metal atoms, covalent radii + 0.4 Å, source distance).
 * @param s     finished structure
 * @param sv    its survey
 * @param lig   index into sv->ligands
 * @param site  the site of @p lig (sp_site_compute)
 * @param ccd   the CCD, or NULL (then file bonds or distances)
 * @param out   zero-initialised before first use; cleared and filled
 * @return 0; SP_E_INVALID (NULL argument, @p lig out of range); SP_E_NOMEM.
 */
int sp_ligand_bonds(const sp_structure *s, const sp_survey *sv, size_t lig, const sp_site *site, sp_ccd *ccd,
                    sp_bond_list *out, sp_err *err);

/** Free the arrays of @p b and zero it; NULL accepted. */
void sp_bond_list_free(sp_bond_list *b);

#ifdef __cplusplus
}
#endif
#endif

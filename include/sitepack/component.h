/**
 * @file component.h
 * @brief One chemical component as a graph: its atoms and bonds with the items of the
 *        wwPDB Chemical Component Dictionary (PDBx/mmCIF chem_comp, chem_comp_atom,
 *        chem_comp_bond, pdbx_chem_comp_descriptor).
 *
 * Owned by chem, the module of component graphs (DESIGN.md), so that the molecule key
 * (molkey.h) works on components without knowing how they were read. The CCD reader
 * (ccd.h, in cif) fills it from the CCD or from a file's own _chem_comp_atom/_chem_comp_bond.
 */
#ifndef SITEPACK_COMPONENT_H
#define SITEPACK_COMPONENT_H

#include <stddef.h>
#include <stdint.h>

#include "sitepack/model.h"

#ifdef __cplusplus
extern "C" {
#endif

/** One _chem_comp_atom row. */
typedef struct sp_comp_atom {
  char name[SP_ID_LEN];     /**< atom_id */
  uint8_t element;          /**< type_symbol as atomic number, 0 unknown */
  int8_t charge;            /**< charge; 0 when '?' (then charge_known = 0) */
  uint8_t charge_known;     /**< 0 when the charge was '?' or absent */
  uint8_t leaving;          /**< pdbx_leaving_atom_flag Y */
  uint8_t aromatic;         /**< pdbx_aromatic_flag Y */
  uint8_t has_model_xyz;    /**< model_Cartn_x/y/z all numbers (not '?') */
  uint8_t has_ideal_xyz;    /**< pdbx_model_Cartn_x_ideal/... all numbers */
  float model_xyz[3];       /**< Å, 0 when absent */
  float ideal_xyz[3];       /**< Å, 0 when absent */
} sp_comp_atom;

/** One _chem_comp_bond row; a and b index sp_component.atoms. */
typedef struct sp_comp_bond {
  uint16_t a, b;
  uint8_t order;            /**< 1 SING, 2 DOUB, 3 TRIP, 4 AROM/DELO/unknown (value_order, or .type of
                                 monomer-library style files, case-insensitive) */
  uint8_t aromatic;         /**< pdbx_aromatic_flag Y, or order spelled AROM */
} sp_comp_bond;

/** Sizes of the descriptor strings (bytes with the terminating NUL). A longer value is cut and
 *  flagged (sp_component.desc_cut, /components/descriptor_flags), never cut silently. The excerpt
 *  of the tests (shared/data/ccd) holds SMILES of up to 297 characters and InChI of up to 606. */
#define SP_SMILES_LEN 512
#define SP_INCHI_LEN 1024
#define SP_INCHIKEY_LEN 28   /**< 27 characters, "XXXXXXXXXXXXXX-YYYYYYYYFV-P" */

/** Bits of sp_component.desc_cut and /components/descriptor_flags: the value did not fit. */
enum {
  SP_DESC_SMILES_CUT = 1u << 0,
  SP_DESC_INCHI_CUT = 1u << 1,
  SP_DESC_INCHIKEY_CUT = 1u << 2,
};

/** The program whose canonical SMILES is kept (_pdbx_chem_comp_descriptor.type SMILES_CANONICAL,
 *  .program "OpenEye OEToolkits"): present in every block of the CCD excerpt but one (SMJ). */
#define SP_SMILES_PROGRAM "OpenEye OEToolkits"

/** One component. Arrays are owned; free with sp_component_free(). */
typedef struct sp_component {
  char id[SP_ID_LEN];            /**< _chem_comp.id (up to 5 characters) */
  char type[40];                 /**< _chem_comp.type, e.g. "NON-POLYMER", "L-peptide linking" */
  char name[128];                /**< _chem_comp.name (truncated) */
  char formula[64];              /**< _chem_comp.formula */
  char release_status[12];       /**< _chem_comp.pdbx_release_status: REL, OBS, REF_ONLY, ... */
  char replaced_by[SP_ID_LEN];   /**< _chem_comp.pdbx_replaced_by, "" when '?' */
  char parent_comp_id[SP_ID_LEN];/**< _chem_comp.mon_nstd_parent_comp_id, "" when '?' */
  float formal_charge;           /**< _chem_comp.pdbx_formal_charge, 0 when '?' */
  char inchikey[SP_INCHIKEY_LEN];/**< _pdbx_chem_comp_descriptor type InChIKey, "" if none */
  char inchi[SP_INCHI_LEN];      /**< ... type InChI (standard InChI, "InChI=1S/..."), "" if none */
  char smiles[SP_SMILES_LEN];    /**< ... type SMILES_CANONICAL of program SP_SMILES_PROGRAM, "" if none */
  uint8_t desc_cut;              /**< SP_DESC_*_CUT: a descriptor longer than its field (cut) */
  size_t n_atoms;
  sp_comp_atom *atoms;
  size_t n_bonds;
  sp_comp_bond *bonds;
} sp_component;

/** Free the arrays of @p c and zero it. */
void sp_component_free(sp_component *c);

/** Number of heavy atoms (element != H); unknown elements count as heavy. */
size_t sp_component_heavy_atoms(const sp_component *c);
/** Index of atom @p name in @p c, -1 if absent. */
int sp_component_atom_index(const sp_component *c, const char *name);

#ifdef __cplusplus
}
#endif
#endif

/**
 * @file survey.h
 * @brief Ligand survey: which residues are ligands, how they group into ligand
 *        instances, their class, flags and molecule key (DESIGN.md "Words";
 *        rules and sources in docs/ligands.md).
 *
 * Plain C, no MPI. Input: one sp_structure (after sp_structure_finish) and an optional
 * CCD. Output: an sp_survey that lists ligand instances of the chosen model(s) and,
 * for every residue of the structure, its role and chosen altloc (used by sites).
 */
#ifndef SITEPACK_SURVEY_H
#define SITEPACK_SURVEY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sitepack/ccd.h"
#include "sitepack/descriptors.h"
#include "sitepack/error.h"
#include "sitepack/model.h"
#include "sitepack/molkey.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Ligand classes (DESIGN.md; rules: docs/ligands.md "Classes"). Names via sp_ligand_class_name(). LIPID and
 *  DETERGENT are format version 7 (docs/format.md): appended, so the codes of the older classes stay. */
typedef enum sp_ligand_class {
  SP_CLASS_SMALL_MOLECULE = 0,
  SP_CLASS_ION = 1,
  SP_CLASS_ARTIFACT = 2,
  SP_CLASS_GLYCAN = 3,
  SP_CLASS_COFACTOR = 4,
  SP_CLASS_PEPTIDE = 5,
  SP_CLASS_UNKNOWN = 6,
  SP_CLASS_LIPID = 7,     /**< a lipid of BioLiP's / PLINDER's lists (src/survey/lists.c) */
  SP_CLASS_DETERGENT = 8, /**< a detergent of the same lists */
  SP_CLASS_COUNT
} sp_ligand_class;

/** "small_molecule", "ion", "artifact", "glycan", "cofactor", "peptide", "unknown", "lipid", "detergent";
 *  "unknown" for a code out of range. */
const char *sp_ligand_class_name(int cls);

/** Ligand flag bits (sp_ligand.flags, /ligands/flags). */
enum {
  SP_LIG_COVALENT = 1u << 0,     /**< struct_conn covale / LINK to a polymer residue */
  SP_LIG_INCOMPLETE = 1u << 1,   /**< resolved heavy atoms < CCD heavy atoms (leaving atoms excluded) */
  SP_LIG_ALTLOC = 1u << 2,       /**< has alternate locations */
  SP_LIG_NOT_IN_CCD = 1u << 3,   /**< at least one comp_id has no CCD block */
  SP_LIG_ZERO_OCC = 1u << 4,     /**< some chosen atom has occupancy 0 */
  SP_LIG_MULTI_RESIDUE = 1u << 5,/**< more than one residue (glycan, covalently joined residues) */
  SP_LIG_METAL_BOUND = 1u << 6,  /**< a metalc connection to another residue */
  SP_LIG_NAME_NOT_IN_CCD = 1u << 7, /**< an observed atom's name is not in its residue's usable CCD
                                         definition (renamed or foreign atom): it has no CCD bonds
                                         (bonds.h, set when the site's bonds are built) */
};

/** Names of the SP_LIG_* bits, bit 0 first ("covalent", "incomplete", "altloc", "not_in_ccd",
 *  "zero_occupancy", "multi_residue", "metal_bound", "name_not_in_ccd"); NULL past the last. */
const char *sp_ligand_flag_name(int bit);

/** Residue roles (sp_survey.res_role). */
enum {
  SP_ROLE_POLYMER = 0,   /**< residue of a polymer chain (incl. modified residues) */
  SP_ROLE_LIGAND = 1,    /**< part of a ligand instance (non-ion) */
  SP_ROLE_ION = 2,       /**< part of a ligand instance of class ion */
  SP_ROLE_WATER = 3,     /**< HOH, DOD, WAT ... */
  SP_ROLE_OTHER = 4,     /**< not surveyed (e.g. models not selected) */
};

/** One ligand instance. */
typedef struct sp_ligand {
  uint32_t model;            /**< index into sp_structure.models */
  uint32_t res_first;        /**< its residues: sp_survey.res_refs[res_first .. res_first+n_res) (file order) */
  uint32_t n_res;
  uint32_t atom_first;       /**< its chosen atoms: sp_survey.atom_refs[atom_first .. atom_first+n_atoms) */
  uint32_t n_atoms;          /**< atoms of the chosen conformer, H included */
  uint32_t n_heavy;          /**< heavy atoms among them */
  int32_t n_ccd_heavy;       /**< heavy atoms of the definition(s), leaving atoms excluded; -1 unknown */
  char altloc;               /**< chosen altloc, '\0' none */
  uint8_t cls;               /**< sp_ligand_class */
  uint32_t flags;            /**< SP_LIG_* */
  char molecule_key[SP_KEY_LEN];  /**< molkey.h, "" when no graph */
  char key_source[16];       /**< "ccd", "file", "distance", "none" */
  int64_t attach_atom;       /**< covalent ligands: polymer atom it is bonded to, -1 otherwise */
  /** microheterogeneity (docs/ligands.md "Instances"): "COMP:ALTLOCS:OCC" of each identity at the ligand's
   *  one position, file order, space-separated (OCC: mean occupancy of that residue's atoms); "" otherwise */
  char identities[64];
  uint32_t copy;             /**< k of a ligand whose identifiers another ligand of the model shares (1, 2, ... in
                                  file order); 0 when they are its own */
} sp_ligand;

/** What the survey knows of one ligand comp_id; written as it is as a /components row (docs/format.md). */
typedef struct sp_component_row {
  char comp_id[SP_ID_LEN];
  uint8_t in_ccd;
  char molecule_key[SP_KEY_LEN];
  char key_source[16];
  char formula[64];
  char name[80];
  char type[40];
  int32_t n_heavy_atoms;         /**< -1 unknown */
  /* descriptors of the CCD block (_pdbx_chem_comp_descriptor; "" when the CCD has none or the
     component is not in the CCD): component.h sp_component */
  char smiles[SP_SMILES_LEN];    /**< SMILES_CANONICAL of SP_SMILES_PROGRAM (OpenEye OEToolkits) */
  char inchi[SP_INCHI_LEN];      /**< standard InChI */
  char inchikey[SP_INCHIKEY_LEN];/**< InChIKey */
  uint8_t descriptor_flags;      /**< SP_DESC_*_CUT (component.h): that value was longer than its column, cut */
  /** RDKit's descriptors of the CCD definition (descriptors.h; issue 36): every atom of the block, hydrogens
   *  and leaving atoms included, its charges and bond orders; not computed (flags 0) without a usable block */
  sp_descriptors desc;
} sp_component_row;

/** Per-comp_id chemistry seen in the survey. */
typedef struct sp_survey_comp {
  sp_component_row row;      /**< comp_id, in_ccd, molecule_key, key_source, formula, name, type, n_heavy_atoms */
} sp_survey_comp;

typedef struct sp_survey_opts {
  bool all_models;           /**< false: first model only (default) */
} sp_survey_opts;

/** Survey output. Arrays owned; sp_survey_free(). */
typedef struct sp_survey {
  size_t n_ligands;
  sp_ligand *ligands;        /**< ordered by model, then by file order of the first residue */
  uint32_t *res_refs;        /**< residue indices of all ligands */
  uint32_t *atom_refs;       /**< atom indices of all ligands */
  uint8_t *res_role;         /**< [sp_structure.n_residues] SP_ROLE_* */
  char *res_altloc;          /**< [n_residues] chosen altloc per residue ('\0': blank or none) */
  int32_t *res_ligand;       /**< [n_residues] ligand index, -1 when not part of a ligand (the other
                                  identities of a microheterogeneous ligand: that ligand's index) */
  size_t n_shared_ids;       /**< identifier sets that several ligands of one model share (sp_ligand.copy) */
  size_t n_comps;
  sp_survey_comp *comps;     /**< one per distinct ligand comp_id, sorted by comp_id */
  /** issue 36: covalent links (struct_conn covale / LINK) between two ligand residues that are both ions or
   *  buffers (sp_survey_is_ion_or_buffer: two sulfates joined O-O): not joined, the residues stay two ligands;
   *  [n_split_links][2] residue indices, in struct_conn order (the caller warns: pipeline stages.c) */
  size_t n_split_links;
  uint32_t (*split_links)[2];
  double t_desc;             /**< s, of the survey's time: RDKit's descriptors of the component rows (issue 36) */
} sp_survey;

/**
 * Survey a structure.
 * @param s    finished structure (sp_structure_finish)
 * @param ccd  the CCD, or NULL (then every comp_id is "not in CCD")
 * @param opts options, NULL for defaults
 * @param out  zero-initialised; filled on success
 * @return 0, SP_E_NOMEM, SP_E_INTERNAL.
 */
/** Whether the CCD block @p def of @p comp_id defines the molecule (the rule of the molecule key,
 *  docs/ligands.md): a block with atoms, not obsolete (pdbx_release_status OBS), and comp_id not
 *  a reserved placeholder (UNL, UNX, UNK, DUM, LIG, DRG, INH, 01..99). false for NULL. */
bool sp_survey_definition_usable(const sp_component *def, const char *comp_id);

int sp_survey_run(const sp_structure *s, sp_ccd *ccd, const sp_survey_opts *opts, sp_survey *out, sp_err *err);
/** Whether a covalent link never joins a residue of @p comp_id to another such residue (issue 36;
 *  docs/ligands.md "Links between ions"): a polyatomic inorganic ion of the ion list (SO4, PO4, ...), an additive
 *  of the artifact list (buffers, cryo-protectants: GOL, EDO, ...) or of the detergent list, or a component whose CCD definition @p def
 *  (NULL: none) has one heavy atom (a monatomic ion). */
bool sp_survey_is_ion_or_buffer(const char *comp_id, const sp_component *def);
void sp_survey_free(sp_survey *sv);

/** true if atom @p i belongs to the chosen conformer of its residue: altloc blank, or equal
 *  to the residue's chosen altloc. */
static inline bool sp_survey_atom_chosen(const sp_structure *s, const sp_survey *sv, size_t i) {
  char a = s->altloc[i];
  return a == '\0' || a == sv->res_altloc[s->atom_residue[i]];
}

#ifdef __cplusplus
}
#endif
#endif

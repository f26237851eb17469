/**
 * @file site.h
 * @brief Binding sites: residues within a cutoff of a ligand, found with a cell list
 *        (DESIGN.md "site"; definitions and sources in docs/sites.md).
 *
 * Plain C, no MPI. A site of one ligand instance holds the ligand's chosen atoms
 * first, then every chosen-conformer atom of each residue (polymer residues, and,
 * flagged by kind, other ligands, ions and waters) that has any atom within
 * opts.cutoff Å of any ligand heavy atom, in the same model; the asymmetric unit only, unless
 * opts.symmetry_mates asks for the residues of crystal symmetry images too (docs/sites.md
 * "Symmetry mates": flagged, tagged with their operator, atoms at transformed positions).
 */
#ifndef SITEPACK_SITE_H
#define SITEPACK_SITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sitepack/error.h"
#include "sitepack/model.h"
#include "sitepack/survey.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Site flag bits (sp_site.flags, /sites/flags). */
enum {
  SP_SITE_OVERSIZE = 1u << 0,    /**< more than opts.max_atoms atoms: residues recorded, only ligand atoms stored */
  SP_SITE_NO_HEAVY = 1u << 1,    /**< the ligand has no heavy atom (site empty) */
  SP_SITE_SYMMETRY = 1u << 2,    /**< holds residues of crystal symmetry images (opts.symmetry_mates) */
  SP_SITE_ASSEMBLY = 1u << 4,    /**< holds residues of other copies of the first biological assembly
                                      (opts.assembly; docs/sites.md "Biological assemblies") */
  SP_SITE_SYMMETRY_PARTIAL = 1u << 3, /**< symmetry images were left out: more candidate images than
                                           SP_SITE_MAX_IMAGES, a translation beyond +-99 cells, or more
                                           than 65535 image residues (implausible cells) */
};

/** Most candidate (operator, lattice translation) images examined per ligand. */
#define SP_SITE_MAX_IMAGES 100000

/** Per-atom flag bits of site atoms (/atoms/flags). */
enum {
  SP_SITE_ATOM_LIGAND = 1u << 0,       /**< atom of the site's ligand */
  SP_SITE_ATOM_POLYMER = 1u << 1,
  SP_SITE_ATOM_OTHER_LIGAND = 1u << 2,
  SP_SITE_ATOM_ION = 1u << 3,
  SP_SITE_ATOM_WATER = 1u << 4,
  SP_SITE_ATOM_HYDROGEN = 1u << 5,
  SP_SITE_ATOM_ALTLOC = 1u << 6,       /**< atom has a non-blank altloc */
  SP_SITE_ATOM_HETATM = 1u << 7,
  SP_SITE_ATOM_WITHIN_CUTOFF = 1u << 8,/**< this atom itself is within the cutoff */
  SP_SITE_ATOM_SYMMETRY = 1u << 9,     /**< atom of a crystal symmetry image (position transformed) */
  SP_SITE_ATOM_ASSEMBLY = 1u << 12,    /**< atom of another copy of the first assembly (position transformed) */
  SP_SITE_ATOM_ELEMENT_FROM_NAME = 1u << 10, /**< element inferred from the atom name (SP_ATOM_ELEMENT_FROM_NAME) */
  SP_SITE_ATOM_REPEATED_NAME = 1u << 11, /**< another atom of its residue has its name and altloc
                                              (SP_ATOM_REPEATED_NAME): no CCD atom, no CCD bond */
};

/** Kinds of site residues (sp_site_res.kind, /residues/kind). */
enum {
  SP_RES_KIND_LIGAND = 0,        /**< a residue of the site's own ligand */
  SP_RES_KIND_POLYMER = 1,
  SP_RES_KIND_OTHER_LIGAND = 2,
  SP_RES_KIND_ION = 3,
  SP_RES_KIND_WATER = 4,
};

typedef struct sp_site_opts {
  float cutoff;          /**< Å, default 6.0 */
  size_t max_atoms;      /**< default 12000 */
  bool symmetry_mates;   /**< also residues of crystal symmetry images (default false: asymmetric unit) */
  bool assembly;         /**< also residues of the other copies of the first biological assembly (job
                              site.assembly first; default false, "none") */
} sp_site_opts;

/** One residue of a site. */
typedef struct sp_site_res {
  uint32_t residue;      /**< index into sp_structure.residues */
  uint8_t kind;          /**< SP_RES_KIND_* */
  uint16_t image;        /**< 0: the residue as in the file; k > 0: its symmetry image images[k-1] */
  float min_distance;    /**< Å to the nearest ligand heavy atom; 0 for ligand residues */
} sp_site_res;

/** A crystal symmetry image: operator and lattice translation, as a Cartesian transform. */
typedef struct sp_site_image {
  int op;                /**< 0-based index into the structure's operators (sp_crystal_resolve) */
  int t[3];              /**< lattice translation (cells) */
  double rot[3][3];      /**< Cartesian: x' = rot x + trn */
  double trn[3];         /**< Å */
  char tag[16];          /**< PDB notation, "2_655" (sp_symop_tag); assembly copies: the operator's id
                              (_pdbx_struct_oper_list.id / BIOMT serial; "1x2" for a product) */
  uint8_t assembly;      /**< 1: a copy of the first assembly (op = index into sp_structure.asm_ops) */
} sp_site_image;

/** A site. Arrays owned by the caller's sp_site (re-used across calls); sp_site_free(). */
typedef struct sp_site {
  size_t n_atoms, cap_atoms;
  uint32_t *atoms;       /**< atom indices: ligand atoms first (n_ligand), then site atoms grouped by residue */
  uint16_t *atom_flags;  /**< SP_SITE_ATOM_* per atom */
  uint32_t *atom_res;    /**< index into res[] per atom */
  float (*xyz)[3];       /**< position of each atom, Å: as in the file, transformed for symmetry-image atoms */
  size_t n_ligand;
  size_t n_res, cap_res;
  sp_site_res *res;      /**< ligand residues first, then site residues in file order */
  uint32_t flags;        /**< SP_SITE_* */
  float center[3];       /**< mean of ligand heavy atoms, Å */
  size_t n_images, cap_images;
  sp_site_image *images; /**< symmetry images used by res[].image (opts.symmetry_mates) */
} sp_site;

/** Reusable neighbour-search workspace (cell list of one model). */
typedef struct sp_site_ws sp_site_ws;

/** Create a workspace (empty; grows on use, O(atoms of the largest model seen)).
 *  One workspace per thread. @return NULL when out of memory. */
sp_site_ws *sp_site_ws_new(void);
/** Free a workspace and everything it holds; NULL is accepted. */
void sp_site_ws_free(sp_site_ws *ws);

/**
 * Compute the site of ligand @p lig of @p sv (rules: file comment above, docs/sites.md).
 * The workspace caches the cell list of the last (structure, model, cutoff) it saw; the
 * cache key also holds the survey pointer, atom/residue counts and a fingerprint of 64
 * sampled atoms, so a structure re-filled with another file is detected. Coordinates
 * edited in place between calls need a fresh workspace.
 * @param s     finished structure
 * @param sv    its survey (res_role, res_altloc, res_ligand, ligands, res_refs, atom_refs)
 * @param lig   index into sv->ligands
 * @param opts  NULL, or options: cutoff <= 0 or NaN -> 6.0 Å; max_atoms 0 -> 12000
 * @param ws    workspace (sp_site_ws_new)
 * @param out   zero-initialised before its first use, then re-used across calls (its
 *              arrays grow, no allocation once large enough); filled on success: ligand
 *              atoms first (n_ligand), then site atoms grouped by residue; res[]: ligand
 *              residues first (kind SP_RES_KIND_LIGAND, min_distance 0), then site residues
 *              in file order; center = mean of ligand heavy atoms (NaN if none). No heavy
 *              atom: SP_SITE_NO_HEAVY and only the ligand's atoms. More than max_atoms
 *              atoms: SP_SITE_OVERSIZE, res[] complete, atoms[] = ligand atoms only.
 *              With opts->symmetry_mates and a crystal structure (sp_crystal_resolve): after the
 *              asymmetric-unit residues, the residues of every symmetry image (operator, lattice
 *              translation; not the identity) with a chosen atom within the cutoff of a ligand heavy
 *              atom, grouped by image (operator order, then translation), file order inside an
 *              image; res[].image names the image, their atoms carry SP_SITE_ATOM_SYMMETRY and
 *              transformed positions in xyz[]; flag SP_SITE_SYMMETRY. Image atoms within 0.8 Å of
 *              their own original position (special positions) do not count as contacts.
 *              With opts->assembly: then the residues of every other copy of the first biological
 *              assembly (sp_structure.asm_gens: each generator's non-identity operators applied to its
 *              chains) with a chosen atom within the cutoff of a ligand heavy atom, grouped by copy
 *              (generator, then operator order), as symmetry images are, with image->assembly = 1,
 *              atoms flagged SP_SITE_ATOM_ASSEMBLY, site flag SP_SITE_ASSEMBLY. The ligand itself stays
 *              the file's. Each atom is held once at each position (within 0.03 Å): a copy that lies on
 *              the file's atom (special position) or on an assembly copy of it (a crystal operator that
 *              is an assembly operator) is left out, so such a copy keeps its assembly label
 *              (src/site/copies.h, docs/sites.md "Symmetry mates and assembly copies together").
 * @return 0; SP_E_NOMEM; SP_E_INVALID (NULL argument, ligand index out of range, infinite
 *         cutoff, ligand model/residue/atom indices out of bounds or outside its model).
 */
int sp_site_compute(const sp_structure *s, const sp_survey *sv, size_t lig, const sp_site_opts *opts,
                    sp_site_ws *ws, sp_site *out, sp_err *err);
/** Free the arrays of @p site and zero it (re-usable afterwards); NULL is accepted. */
void sp_site_free(sp_site *site);

#ifdef __cplusplus
}
#endif
#endif

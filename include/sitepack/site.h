/**
 * @file site.h
 * @brief Binding sites: residues within a cutoff of a ligand, found with a cell list
 *        (DESIGN.md "site"; definitions and sources in docs/sites.md).
 *
 * Plain C, no MPI. A site of one ligand instance holds the ligand's chosen atoms
 * first, then every chosen-conformer atom of each residue (polymer residues, and,
 * flagged by kind, other ligands, ions and waters) that has any atom within
 * opts.cutoff Å of any ligand heavy atom, in the same model, asymmetric unit only.
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
  SP_SITE_OVERSIZE = 1u << 0,    /**< more than opts.max_atoms atoms: recorded, atoms not stored */
  SP_SITE_NO_HEAVY = 1u << 1,    /**< the ligand has no heavy atom (site empty) */
};

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
};

typedef struct sp_site_opts {
  float cutoff;          /**< Å, default 6.0 */
  size_t max_atoms;      /**< default 12000 */
} sp_site_opts;

/** One residue of a site. */
typedef struct sp_site_res {
  uint32_t residue;      /**< index into sp_structure.residues */
  uint8_t kind;          /**< SP_RES_KIND_* (result.h) */
  float min_distance;    /**< Å to the nearest ligand heavy atom; 0 for ligand residues */
} sp_site_res;

/** A site. Arrays owned by the caller's sp_site (re-used across calls); sp_site_free(). */
typedef struct sp_site {
  size_t n_atoms, cap_atoms;
  uint32_t *atoms;       /**< atom indices: ligand atoms first (n_ligand), then site atoms grouped by residue */
  uint16_t *atom_flags;  /**< SP_SITE_ATOM_* per atom */
  uint32_t *atom_res;    /**< index into res[] per atom */
  size_t n_ligand;
  size_t n_res, cap_res;
  sp_site_res *res;      /**< ligand residues first, then site residues in file order */
  uint32_t flags;        /**< SP_SITE_* */
  float center[3];       /**< mean of ligand heavy atoms, Å */
} sp_site;

/** Reusable neighbour-search workspace (cell list of one model). */
typedef struct sp_site_ws sp_site_ws;

/** Create a workspace. @return NULL when out of memory. */
sp_site_ws *sp_site_ws_new(void);
void sp_site_ws_free(sp_site_ws *ws);

/**
 * Compute the site of ligand @p lig of @p sv.
 * The workspace caches the cell list of the last (structure, model, cutoff) it saw.
 * @return 0, SP_E_NOMEM, SP_E_INVALID (bad ligand index).
 */
int sp_site_compute(const sp_structure *s, const sp_survey *sv, size_t lig, const sp_site_opts *opts,
                    sp_site_ws *ws, sp_site *out, sp_err *err);
void sp_site_free(sp_site *site);

#ifdef __cplusplus
}
#endif
#endif

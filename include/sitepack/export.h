/**
 * @file export.h
 * @brief Standard files from a merged sitepack file: each selected site's ligand as an MDL SDF
 *        (coordinates, elements, formal charges, bond orders from /bonds) and its pocket as PDB or
 *        mmCIF (the site's residues, whole, the ligand as HETATM). Command: `sitepack export`
 *        (docs/usage.md "Export"); file layout and SD fields: docs/format.md "Export files".
 *
 * Plain C, no MPI. The whole merged file's site tables are read once (HDF5), then files are
 * written site by site.
 */
#ifndef SITEPACK_EXPORT_H
#define SITEPACK_EXPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "sitepack/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Output kinds (sp_export_opts.formats bits). */
enum {
  SP_EXPORT_SDF = 1u << 0,   /**< <stem>_ligand.sdf */
  SP_EXPORT_PDB = 1u << 1,   /**< <stem>_pocket.pdb */
  SP_EXPORT_CIF = 1u << 2,   /**< <stem>_pocket.cif */
};

/** What to export. Exactly one selection: sites (n_sites > 0), all, cls or comp. */
typedef struct sp_export_opts {
  const int64_t *sites;  /**< rows of /sites, in the order given */
  size_t n_sites;
  int all;               /**< every site */
  const char *cls;       /**< every site whose ligand has this /ligands/class */
  const char *comp;      /**< every site whose ligand has this comp_id (first residue) or contains it */
  unsigned formats;      /**< SP_EXPORT_* bits, at least one */
  const char *out_dir;   /**< directory (created if absent), or NULL to write everything to @p stream */
  FILE *stream;          /**< with out_dir NULL: all SDF records (a multi-molecule SDF), then pockets */
  int force;             /**< overwrite existing files */
} sp_export_opts;

typedef struct sp_export_summary {
  int64_t n_sites;       /**< sites exported */
  int64_t n_files;       /**< files written (0 with a stream) */
  int64_t n_single_bond_fallback; /**< ligands whose bond orders are not known, written as single bonds: some
                                       bond perceived from distances (no CCD block, no bond table in the file), or
                                       from CONECT in an entry whose CONECT bonds are all order 1 (SD field
                                       bond_orders `unknown: ...`) */
  int64_t n_valence_charged; /**< atoms without a CCD charge that the valence rule charged (N+ with four single
                                  bonds, the O- of an amine N-oxide; SD field valence_charges) */
  int64_t n_over_valence;    /**< ligands with an atom above its valence after the rules (SD field warning):
                                  RDKit's sanitization rejects them */
  int64_t n_link_hydrogens;  /**< deposited hydrogens left out of the SDF: on an atom that a link to another
                                  residue uses, which they would put above its valence (SD field link_hydrogens) */
  int64_t n_fragmented;      /**< ligands whose written molecule is more than one connected fragment (SD field
                                  fragments, a warning) */
  double seconds;        /**< wall time of the writing (after the tables are loaded), s */
  double load_seconds;   /**< wall time of loading the tables, s */
} sp_export_summary;

/**
 * Export the selected sites of the merged file @p h5_path (file names, SDF and pocket layouts:
 * docs/format.md "Export files").
 * @return 0; SP_E_INVALID (bad options: no or two selections, no format), SP_E_NOT_FOUND (no such
 *         file, a requested site index that does not exist, or a selection that matches nothing),
 *         SP_E_FORMAT (not a sitepack file of this version), SP_E_IO (an output exists without
 *         force, cannot be created or written), SP_E_HDF5, SP_E_NOMEM.
 */
int sp_export(const char *h5_path, const sp_export_opts *opts, sp_export_summary *sum, sp_err *err);

#ifdef __cplusplus
}
#endif
#endif

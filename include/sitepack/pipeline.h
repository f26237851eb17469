/**
 * @file pipeline.h
 * @brief The worker stages of one task, without MPI: read (zlib) -> parse (mmCIF / PDB)
 *        -> survey ligands (CCD) -> compute sites -> rows of an sp_result (result.h).
 *
 * A file that cannot be read or parsed is not an error of the run: its /structures row
 * gets status = the error class name and the message, and no other rows.
 */
#ifndef SITEPACK_PIPELINE_H
#define SITEPACK_PIPELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sitepack/ccd.h"
#include "sitepack/error.h"
#include "sitepack/result.h"
#include "sitepack/plan.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Default of sp_task_opts.max_file_site_atoms (job limits.max_file_site_atoms): 10 million site atoms,
 * about 0.75 GB of merged output for one file. The largest file of shared/data/structures has 10,463;
 * the 156-frame trajectory of issue 20 read as one model had 48 million (a 5.4 GB output). */
#define SP_DEFAULT_MAX_FILE_SITE_ATOMS ((size_t)10000000)

/** Options of the worker stages (the job file's values). */
typedef struct sp_task_opts {
  float cutoff;            /**< site cutoff, Å (default 6.0) */
  size_t max_site_atoms;   /**< sites above this are flagged oversize (default 12000) */
  bool all_models;         /**< false: first model only (default) */
  double ph;               /**< job pH (default 7.4); recorded, used by site chemistry */
  size_t max_text_bytes;   /**< refuse files larger than this after gunzip (0 = no limit) */
  size_t max_atoms;        /**< issue 9: a file with more atom records is recorded as "too_many_atoms" and
                                skipped after the parse (0 = no limit) */
  size_t max_file_site_atoms; /**< issue 20: a file whose sites hold more atoms in all is recorded as
                                "too_many_atoms" with no rows (a bound on the output of one file: about
                                75 bytes per site atom in the merged file); checked after each site, for
                                unsplit files only (as max_seconds); default SP_DEFAULT_MAX_FILE_SITE_ATOMS,
                                0 = no limit */
  double max_seconds;      /**< issue 9: a task running longer is recorded as "timeout" (checked after the
                                parse, after the survey and between ligands; only for unsplit files, whose
                                rows are all in one task); 0 = no limit */
  bool symmetry_mates;     /**< sites also hold residues of crystal symmetry images (job site.symmetry_mates,
                                --symmetry-mates; default false; docs/sites.md "Symmetry mates") */
  bool assembly;           /**< sites also hold residues of the first biological assembly's other copies (job
                                site.assembly first, --assembly first; default false = none; docs/sites.md) */
} sp_task_opts;

/** Defaults of DESIGN.md: cutoff 6.0 Å, 12000 atoms, first model, pH 7.4, no size limit. */
void sp_task_opts_default(sp_task_opts *o);

/** Reusable per-rank worker state (structure arrays, buffers, neighbour-search workspace). */
typedef struct sp_worker sp_worker;

/** @return a new worker, or NULL when out of memory. */
sp_worker *sp_worker_new(void);
void sp_worker_free(sp_worker *w);

/**
 * Process one file: @p root "/" @p relpath. Fills @p out (cleared first) with the
 * /structures row (path = @p relpath) and, when the file is read, its ligands,
 * components, sites, residues and atoms. @p ccd may be NULL.
 * @return 0 when the file was processed (even if it failed: out->st.status says how);
 *         SP_E_NOMEM or SP_E_INTERNAL when the worker itself failed (the run should stop).
 */
int sp_worker_process(sp_worker *w, const char *root, const char *relpath, int64_t file_idx, sp_ccd *ccd,
                      const sp_task_opts *opts, sp_result *out, sp_err *err);

/**
 * Process part @p part of @p n_parts of a file (a split file: sched.h sp_split_parts()):
 * read and parse the whole file, survey it, and compute the sites of ligands
 * [lo, hi) = sp_split_range(n_ligands, part, n_parts) only. out->part/n_parts are set;
 * part 0 carries the /structures row (with the whole file's n_ligands and n_sites, one site
 * per ligand) and the file's /components rows; other parts carry only their ligands, sites,
 * residues and atoms (local indices from 0). Concatenating the parts in order gives exactly
 * the rows of sp_worker_process() (n_parts = 1), so the merged output does not depend on the
 * split. A file that cannot be read or surveyed fails the same way in every part (part 0
 * records why, the others are empty).
 * @return 0; SP_E_INVALID (NULL argument, part not in [0, n_parts)); SP_E_NOMEM;
 *         SP_E_INTERNAL when a site computation fails in a split file (with n_parts = 1 that
 *         is a failed file, status set; split, the other parts' rows would no longer match,
 *         so the run must stop).
 */
int sp_worker_process_part(sp_worker *w, const char *root, const char *relpath, int64_t file_idx, int part,
                           int n_parts, sp_ccd *ccd, const sp_task_opts *opts, sp_result *out, sp_err *err);

/**
 * Part 0 of a file whose split is decided here: read, parse and survey it, set
 * out->n_parts = sp_split_parts_model(split, model, stored bytes, gzip, atoms, ligands)
 * (1 when the file fails; @p model may be NULL: no cost guard), and
 * compute part 0 of that many parts exactly as sp_worker_process_part() does. The caller
 * then runs parts 1 .. out->n_parts-1 (this is how `sitepack run` learns the ligand count of
 * a large file without parsing it twice: docs/scheduling.md "Splitting").
 * @return as sp_worker_process_part(); SP_E_INVALID also for a NULL @p split.
 */
int sp_worker_process_first(sp_worker *w, const char *root, const char *relpath, int64_t file_idx,
                            const sp_split_opts *split, const sp_cost_model *model, sp_ccd *ccd,
                            const sp_task_opts *opts, sp_result *out, sp_err *err);

/** Peak bytes held by the worker's structure arrays so far (memory report). */
size_t sp_worker_peak_bytes(const sp_worker *w);

/** Bytes per atom of the in-memory model (sp_structure_bytes / atoms, arrays at capacity) of
 *  the largest file (most atoms) this worker read so far; 0 before the first file with atoms.
 *  Small files are dominated by fixed allocations, so the largest file is the meaningful one. */
double sp_worker_max_bytes_per_atom(const sp_worker *w);

/** The facts the site quality criteria judge (result.h SP_QUAL_*), gathered by the pipeline for one site. */
typedef struct sp_quality_in {
  float resolution, r_work, r_free;  /**< Å, 1, 1; NaN when the entry has none */
  uint32_t lig_flags;                /**< SP_LIG_* of the ligand (survey.h) */
  int n_altlocs;                     /**< distinct altloc ids among the ligand's atoms, every conformer */
  float occupancy_mean;              /**< of the ligand's heavy atoms (/ligands/occupancy_mean) */
  float b_mean, site_b_mean;         /**< Å² (/ligands/b_mean, site_b_mean); NaN: not judged */
  bool pocket_incomplete;            /**< a polymer residue of the site lacks a heavy atom of its CCD definition */
  bool pocket_gap;                   /**< a label_seq_id missing inside a chain's pocket span */
  bool crystal_contact;              /**< the site holds crystal symmetry-image residues (SP_SITE_SYMMETRY) */
} sp_quality_in;

/** The SP_QUAL_* bits of @p q (result.h: each criterion, its threshold and source). Pure; NULL gives 0. */
uint32_t sp_site_quality(const sp_quality_in *q);

#ifdef __cplusplus
}
#endif
#endif

/**
 * @file task.h
 * @brief The worker stages of one task, without MPI: read (zlib) -> parse (mmCIF / PDB)
 *        -> survey ligands (CCD) -> compute sites -> rows of an sp_result (result.h).
 *
 * A file that cannot be read or parsed is not an error of the run: its /structures row
 * gets status = the error class name and the message, and no other rows.
 */
#ifndef SITEPACK_TASK_H
#define SITEPACK_TASK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sitepack/ccd.h"
#include "sitepack/error.h"
#include "sitepack/result.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Options of the worker stages (the job file's values). */
typedef struct sp_task_opts {
  float cutoff;            /**< site cutoff, Å (default 6.0) */
  size_t max_site_atoms;   /**< sites above this are flagged oversize (default 12000) */
  bool all_models;         /**< false: first model only (default) */
  double ph;               /**< job pH (default 7.4); recorded, used by site chemistry */
  size_t max_text_bytes;   /**< refuse files larger than this after gunzip (0 = no limit) */
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

/** Peak bytes held by the worker's structure arrays so far (memory report). */
size_t sp_worker_peak_bytes(const sp_worker *w);

#ifdef __cplusplus
}
#endif
#endif

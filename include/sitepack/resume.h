/**
 * @file resume.h
 * @brief Completed tasks of earlier (killed or failed) runs, read back from their per-rank files
 *        so that `sitepack run --resume` skips them (issue 9, docs/reliability.md).
 *
 * A per-rank file lists a task in /tasks only after all its rows are written, and the writer
 * flushes after each task (store.h sp_rank_writer_append), so every task listed by a readable
 * per-rank file is complete. Files are grouped into *generations* (the per-rank files of one run
 * attempt, which share one numbering of the input files): a task is identified by
 * (generation, file_idx, part), and an input file counts as completed in a generation when all
 * its parts 0 .. n_parts-1 are there and part 0 carries its /structures row. That row names the
 * file (path relative to the input directory), its size and SHA-256 as stored: the caller
 * compares them with the current file before reusing the result.
 *
 * A per-rank file that HDF5 cannot open or whose tables are inconsistent (a kill during a
 * flush can leave one) is skipped as a whole and counted in sp_resume_set.n_unreadable: its
 * tasks are simply not found, so they are run again.
 *
 * Memory: O(tasks) for the index; copying holds one task's rows at a time.
 * Not thread-safe (HDF5). No MPI.
 */
#ifndef SITEPACK_RESUME_H
#define SITEPACK_RESUME_H

#include <stddef.h>
#include <stdint.h>

#include "sitepack/error.h"
#include "sitepack/result.h"
#include "sitepack/store.h"

#ifdef __cplusplus
extern "C" {
#endif

/** One completed input file found in the earlier per-rank files. */
typedef struct sp_resume_entry {
  char path[SP_PATH_LEN];   /**< path relative to the input directory (the /structures row) */
  char sha256[65];          /**< hex SHA-256 of the file as stored, as recorded then */
  char status[24];          /**< its status then ("ok" or an error class name) */
  int64_t bytes;            /**< size as stored, bytes, as recorded then */
  int generation;           /**< generation it was found in (the highest, when several have it) */
  int32_t n_parts;          /**< tasks of the file (1 unless it was split) */
} sp_resume_entry;

/** What sp_resume_scan() found. Release with sp_resume_free(). */
typedef struct sp_resume_set {
  size_t n;                     /**< completed input files */
  sp_resume_entry *entries;     /**< [n], sorted by path (strcmp), one per path */
  size_t n_tasks;               /**< tasks of those files (sum of n_parts) */
  size_t n_files_read;          /**< per-rank files read */
  size_t n_unreadable;          /**< per-rank files skipped as unreadable or inconsistent */
  char first_problem[SP_ERR_MSG_LEN]; /**< why the first skipped file was skipped ("" if none) */
  void *priv;                   /**< internal: open files and the task index */
} sp_resume_set;

/**
 * Read the task index of @p n per-rank files.
 * @param paths       per-rank file paths (written by sp_rank_writer_*)
 * @param generation  [n] generation of each file (files of one run attempt share one value)
 * @param out         filled; the files stay open (read-only) until sp_resume_free()
 * @return 0 (also when some files were skipped: see out->n_unreadable); SP_E_INVALID (NULL
 *         argument); SP_E_NOMEM.
 */
int sp_resume_scan(const char *const *paths, const int *generation, size_t n, sp_resume_set *out, sp_err *err);

/** Index of the entry for @p path (binary search), or -1. */
long sp_resume_find(const sp_resume_set *s, const char *path);

/**
 * Append every task of entry @p idx to @p w with file_idx = @p new_file_idx (the file's index in
 * the current run's sorted input list) and the structure row's entry_first = @p entry_first (the
 * current run's, result.h), rows unchanged otherwise. @p scratch is a result used as
 * buffer (sp_result_init()ed by the caller; reused across calls).
 * @return 0; SP_E_INVALID (bad index or argument); SP_E_NOMEM; SP_E_HDF5 (a read, or the
 *         append: store.h sp_rank_writer_append()).
 */
int sp_resume_copy(const sp_resume_set *s, size_t idx, int64_t new_file_idx, int64_t entry_first, sp_rank_writer *w,
                   sp_result *scratch, sp_err *err);

/** Close the files and free the index. Safe on a zeroed set. */
void sp_resume_free(sp_resume_set *s);

#ifdef __cplusplus
}
#endif
#endif

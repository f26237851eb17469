/**
 * @file shard.h
 * @brief Shard files of SLURM job arrays: pack a shard run's per-rank files into one shard file,
 *        and read a shard file's identity back for `sitepack merge` (issue 8, docs/slurm.md).
 *
 * A shard file is a per-rank-format file (store.h: read by sp_merge(); format "sitepack-rank") with
 * these root attributes and one dataset added:
 *
 *   shard_index, shard_count   int64   this shard I of N (0 <= I < N <= SP_SHARD_MAX)
 *   n_files                    int64   files in the full sorted input list
 *   job_fingerprint            string  hex SHA-256 of the input list, job JSON, CCD and split options
 *                                      (app/cmd_merge.h sp_shard_fingerprint()): equal for shards of one job
 *   job_json, ccd_path, ccd_sha256, tool_version, git_sha   strings, as the merged /run needs them
 *   n_ranks                    int64   MPI ranks of this shard
 *   wall_seconds               float64 wall time of the shard run up to the pack, s
 *   /shard_files               int64 [k] the file indices planned for this shard, ascending
 *
 * Not thread-safe (HDF5). No MPI.
 */
#ifndef SITEPACK_SHARD_H
#define SITEPACK_SHARD_H

#include <stddef.h>
#include <stdint.h>

#include "sitepack/error.h"
#include "sitepack/store.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Root attribute that marks a shard file (the "format" attribute is the per-rank one). */
#define SP_SHARD_ATTR "shard_count"
/** Largest shard count N of `--shard I/N` (a SLURM array of more tasks is not a use we know). */
#define SP_SHARD_MAX 100000
/** Bytes read at most of the text attributes job_json and ccd_path (NUL included). */
#define SP_SHARD_TEXT_CAP 65536

/** What a shard run records (filled by the CLI's planner, app/cmd_merge.h sp_shard_plan();
 *  free with sp_shard_meta_free()). */
typedef struct sp_shard_meta {
  int index, count;       /**< shard I of N */
  int64_t n_files;        /**< files in the full sorted list */
  int64_t *files;         /**< [n_assigned] file indices of this shard, ascending (malloc'd) */
  size_t n_assigned;
  char fingerprint[65];   /**< hex SHA-256 job fingerprint, NUL-terminated */
} sp_shard_meta;

/** Free meta->files and zero @p meta. Safe with NULL and on a zeroed meta. */
void sp_shard_meta_free(sp_shard_meta *meta);

/**
 * Pack @p n_parts per-rank files (sp_rank_writer_*) into the shard file @p out_path (created or
 * truncated): every task of every input, in input then task order, re-appended with
 * sp_rank_writer_append() (so validated again), then the shard attributes above from @p meta and
 * @p info (job_json, ccd_path, ccd_sha256, tool_version, git_sha, n_ranks, wall_seconds).
 * @return 0; SP_E_INVALID (NULL argument, or a task that sp_rank_writer_append() refuses);
 *         SP_E_NOT_FOUND (an input is missing); SP_E_FORMAT (an input is not a per-rank file of
 *         this build, or its task index is inconsistent); SP_E_NOMEM; SP_E_HDF5.
 */
int sp_shard_pack(const char *out_path, const char *const *parts, size_t n_parts, const sp_merge_info *info,
                  const sp_shard_meta *meta, sp_err *err);

/** A shard file's identity and plan, as sp_shard_read() found them. Free with sp_shard_file_free(). */
typedef struct sp_shard_file {
  int64_t index, count;       /**< shard_index, shard_count: 0 <= index < count <= SP_SHARD_MAX */
  int64_t n_files;            /**< n_files (>= 0) */
  int64_t n_ranks;            /**< n_ranks */
  int64_t ccd_blocks;         /**< ccd_blocks (issue 16); 0 when absent */
  double wall_seconds;        /**< wall_seconds, s; 0 when absent or unreadable */
  char fingerprint[80];       /**< job_fingerprint */
  char tool_version[64], git_sha[64], ccd_sha256[80];
  char *job_json, *ccd_path;  /**< malloc'd, at most SP_SHARD_TEXT_CAP bytes with the NUL */
  int64_t *files;             /**< [n_planned] /shard_files: the planned file indices, as stored (malloc'd) */
  size_t n_planned;
  int64_t *task_files;        /**< [n_task_files] file_idx of each part-0 task, in task order (malloc'd) */
  size_t n_task_files;
} sp_shard_file;

/**
 * Read the shard file @p path: open it as a per-rank file (format, version and a consistent task
 * index, as sp_merge() needs), then its shard attributes and /shard_files.
 * @param out  zeroed, then filled; free with sp_shard_file_free() in every case
 * @return 0; SP_E_NOT_FOUND (no such file); SP_E_IO; SP_E_FORMAT (not a per-rank file of this build,
 *         "PATH is not a shard file (no shard attributes: ...)", incomplete or out-of-range shard
 *         attributes, /shard_files unreadable: the message names the file); SP_E_HDF5; SP_E_NOMEM.
 */
int sp_shard_read(const char *path, sp_shard_file *out, sp_err *err);

/** Free what sp_shard_read() allocated and zero @p s. Safe with NULL and on a zeroed struct. */
void sp_shard_file_free(sp_shard_file *s);

#ifdef __cplusplus
}
#endif
#endif

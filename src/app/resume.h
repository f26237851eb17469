/* `sitepack run`: the files of the parts directory before the tasks run (issue 9,
 * docs/reliability.md): duplicate inputs, --resume, and the run's own job stamp. Rank 0 only; no MPI
 * (the hashing may be spread over the ranks by the caller's sp_hasher).
 * Private to src/app. */
#ifndef SITEPACK_APP_RESUME_H
#define SITEPACK_APP_RESUME_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "app/app.h"

/* What sp_run_prepare() decided. */
typedef struct sp_prepare_out {
  uint8_t *skip;          /* [n] 1: no task this run (resumed from an earlier run, or a duplicate); owned */
  size_t n_resumed;       /* input files whose results were taken over from earlier per-rank files */
  size_t n_resumed_tasks; /* their tasks */
  size_t n_duplicates;    /* input files with the bytes (SHA-256) of an earlier file in the sorted list */
  size_t n_repeated;      /* entries: first: later files of an entry (repeated_entry rows written) */
  size_t n_changed;       /* files found earlier but changed since (size or SHA-256): run again */
  size_t n_unreadable;    /* earlier per-rank files that could not be read (their tasks run again) */
  size_t n_stale_attempts;/* earlier attempts of another job, CCD or build: ignored */
  size_t n_hashed;        /* files hashed (duplicate candidates and resume candidates) */
  int has_prepared;       /* PARTS/prepared.h5 exists: an input of the merge */
  double seconds;         /* wall time of sp_run_prepare */
} sp_prepare_out;

/* A way to hash many input files at once: the run spreads them over its ranks (app/hash_share.h).
 * hash(ctx, idx, n, sha, gz): for k < n, sha[k] = the hex SHA-256 of the stored bytes of file idx[k]
 * ("" where it cannot be read), gz[k] = 1 when it starts with the gzip magic. */
typedef struct sp_hasher {
  void *ctx;
  void (*hash)(void *ctx, const size_t *idx, size_t n, char (*sha)[65], uint8_t *gz);
} sp_hasher;

/* SHA-256 (hex) of the stored bytes of @p root/@p rel and whether they start with the gzip magic
 * (io.h sp_file_digest). Returns 0, or -1 when the file cannot be read or the path does not fit. */
int sp_run_hash_file(const char *root, const char *rel, char out[65], uint8_t *gzip);

/* The entry of each input file (issue 16 item 12; app/run_ctx.h), for sp_run_prepare(). */
typedef struct sp_prepare_entries {
  const int64_t *first;   /* [n] the first file of each file's entry, -1 none (result.h entry_first) */
  const char (*key)[32];  /* [n] each file's entry id, "" none */
  int keep_first;         /* entries: first: a later file of an entry gets a repeated_entry row, no task */
} sp_prepare_entries;

/* What the per-rank files of earlier runs of one output hold (sp_run_parts_held()). */
typedef struct sp_parts_held {
  size_t n_tasks;         /* finished tasks --resume can take over (of the input files below) */
  size_t n_files;         /* input files all of whose tasks are there (duplicate and repeated_entry rows not counted) */
  size_t n_attempt_files; /* per-rank files in OUT.resume/attempt-* (a --resume that stopped before its tasks) */
  size_t n_unreadable;    /* per-rank files HDF5 could not read (nothing of them counted) */
  size_t n_failed_files;  /* rank-*.h5.failed (of OUT.parts and the attempts): files whose write failed (never
                             trusted, not read) */
} sp_parts_held;

/*
 * Rank 0: the finished tasks of earlier runs of @p output: in the per-rank files of @p parts_dir
 * (rank-*.h5, prepared.h5) and of OUT.resume/attempt-* (a --resume stopped in its prepare step), read
 * back as --resume reads them (resume.h sp_resume_scan: only input files whose tasks are all there;
 * a rank-*.h5.failed file, whose write failed, is not trusted and not counted). The job stamps are not
 * compared: this counts the work at stake, whichever job made it. Reads only; HDF5 opens the files
 * read-only and closes them again. Returns 0 or SP_EXIT_RUNTIME (out of memory; printed).
 */
int sp_run_parts_held(const char *output, const char *parts_dir, sp_parts_held *held);

/*
 * Rank 0, after the scan and the CCD open, before any per-rank file is created.
 *  - Removes per-rank files of earlier runs from @p parts_dir (without --resume: they would mix with
 *    this run's; the run refused them before its scan when they hold finished tasks, unless --force,
 *    which also removes OUT.resume/attempt-*), or (with --resume) moves them to
 *    OUT.resume/attempt-NNN and reads them back;
 *  - writes PARTS/job.txt (the job, CCD SHA-256 and build this run's files belong to);
 *  - finds duplicate inputs (same size, then same SHA-256 of the stored bytes; the first in path
 *    order is processed, the others get a row with status "duplicate");
 *  - with @p ent->keep_first (entries: first), gives every later file of an entry (not a duplicate) a row
 *    with status "repeated_entry" naming the entry and its first file;
 *  - writes PARTS/prepared.h5 (through a .tmp name and a rename): the resumed tasks with this run's
 *    file indices, the duplicates' and repeated entries' rows, each with entry_first = ent->first[f];
 *    with @p only (a shard run's files, [n] 1 = this shard's; NULL: every file) only the rows of those
 *    files, the duplicates still decided on the whole list.
 * The files to hash (every file of a size shared with another; every resumed file whose size is
 * unchanged) are hashed in two batches through @p hasher (NULL: one by one here).
 * Shard runs (--shard) never resume (refused by the job: a failed shard is rerun whole, docs/slurm.md).
 * Returns 0 or an exit status (SP_EXIT_RUNTIME) after printing the reason.
 */
int sp_run_prepare(const sp_job *job, const char *parts_dir, char *const *paths, const int64_t *bytes, size_t n,
                   const char *ccd_sha, const uint8_t *only, const sp_hasher *hasher, const sp_prepare_entries *ent,
                   sp_prepare_out *out);

void sp_prepare_out_free(sp_prepare_out *o);

#endif

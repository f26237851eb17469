/* sitepack CLI: shards of a SLURM array (`sitepack run --shard I/N`) and `sitepack merge`.
 * Not a public header. See docs/slurm.md.
 *
 * A shard run scans the same sorted input as a single run, keeps its share of the files (an LPT
 * plan over the N shards with the run's own bytes-only cost estimates, sched.h sp_plan_lpt()),
 * runs them with the usual phases (file_idx stays the index in the full sorted list), and packs
 * its per-rank files into ONE shard file (sitepack/shard.h: the store owns its format, packing and
 * reading; this header plans shards and runs `sitepack merge`).
 *
 * `sitepack merge OUT.h5 SHARD...` checks a complete, consistent set and calls sp_merge(), so the
 * merged file equals the one a single run over all inputs writes (timing fields excepted). */
#ifndef SITEPACK_CMD_MERGE_H
#define SITEPACK_CMD_MERGE_H

#include <stddef.h>
#include <stdint.h>

#include "sitepack/error.h"
#include "sitepack/sched.h"
#include "sitepack/shard.h"
#include "sitepack/store.h"

/* Parse a --shard value: "I/N" (0 <= I < N <= SP_SHARD_MAX, decimal) or "auto" (SLURM array
 * variables: I = SLURM_ARRAY_TASK_ID - SLURM_ARRAY_TASK_MIN, N = SLURM_ARRAY_TASK_COUNT, which must equal
 * SLURM_ARRAY_TASK_MAX - SLURM_ARRAY_TASK_MIN + 1: an array without steps). Returns 0, or -1 with
 * a one-line reason in @p msg (cap bytes). */
int sp_shard_parse(const char *spec, int *index, int *count, char *msg, size_t cap);

/* Hex SHA-256 job fingerprint (shard.h job_fingerprint): of the input list (relative path, stored
 * bytes and gzip flag of every file, in order), the job JSON, the CCD's SHA-256 and the split
 * options. @p gz may be NULL (no gzip). @p split may be NULL. */
void sp_shard_fingerprint(char *const *paths, const int64_t *bytes, const uint8_t *gz, size_t n,
                          const char *job_json, const char *ccd_sha256, const sp_split_opts *split, char out[65]);

/* Rank 0 of a shard run: plan the files over @p count shards (sp_plan_lpt() of @p cost, the
 * [n] per-file estimates the run plans phase A with, in file order), fill @p meta (index, count,
 * n_files, files, fingerprint from paths/bytes/gz/job_json/ccd_sha256/split), and keep only this
 * shard's entries of the parallel arrays @p tasks and @p cost (compacted in place, file order kept,
 * *n_tasks set to the kept count; tasks[f] must be file f, part 0). @p kept_bytes (may be NULL)
 * gets the stored bytes of the kept files.
 * Returns 0, SP_E_INVALID (index not in [0, count), NULL argument), SP_E_NOMEM, or sp_plan_lpt()'s error. */
int sp_shard_plan(int index, int count, char *const *paths, const int64_t *bytes, const uint8_t *gz, size_t n,
                  const char *job_json, const char *ccd_sha256, const sp_split_opts *split, sp_task_ref *tasks,
                  double *cost, size_t *n_tasks, double *kept_bytes, sp_shard_meta *meta, sp_err *err);

/* `sitepack merge OUT.h5 SHARD... [--force] [--quiet]` (argv[0] = "merge"). Under mpirun (Open MPI,
 * PMIx or PMI variables set) it initialises MPI, every rank makes the same checks (only rank 0 prints)
 * and the merge is sp_merge_parallel() over MPI_COMM_WORLD; without them, sp_merge() as before. A SHARD argument with
 * a wildcard (* ? [) is expanded with glob(3) (sorted; quote it so the shell leaves it alone).
 * Refuses, with a one-line reason: a file that is not a shard file; shards of different jobs
 * (job fingerprint, shard count or file count differ); a shard given twice; a missing shard; file
 * plans that do not partition the input list; a shard whose tasks do not match its planned files.
 * Writes OUT.h5.tmp and renames it. Returns 0, 1 (merge or write failed, or the shard set was
 * refused), 2 (bad command line, no shard given, output exists without --force). */
int sp_cmd_merge(int argc, char **argv);

#endif

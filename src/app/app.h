/* sitepack CLI: internal declarations (not a public header). */
#ifndef SITEPACK_APP_H
#define SITEPACK_APP_H

#include <stdbool.h>
#include <stddef.h>

#include "sitepack/sched.h"
#include "sitepack/pipeline.h"

/* Exit statuses (documented in `sitepack --help` and docs/usage.md). */
enum {
  SP_EXIT_OK = 0,        /* the run completed (files that failed have their status in /structures) */
  SP_EXIT_RUNTIME = 1,   /* the run started but could not complete (output not writable, MPI, internal) */
  SP_EXIT_USAGE = 2,     /* bad command line or job file, unreadable CCD, no input files */
};

/* Ranges of the job's numbers, the same for flags and job-file keys (issue 16 item 9) */
#define SP_MAX_CUTOFF 50.0                      /* site.cutoff, --cutoff: (0, 50] Angstrom */
#define SP_MAX_SITE_ATOMS 1000000000LL          /* site.max_atoms, --max-site-atoms: [1, 1e9] */
#define SP_MAX_COUNT 9007199254740992LL         /* byte and atom counts: 2^53, the largest exact JSON integer */
#define SP_MAX_PARTS 1024LL                     /* split.max_parts, --split-max-parts: [1, 1024] */

/* A job: the job file's values, then command-line overrides. */
typedef struct sp_job {
  char *input;           /* input directory (or one file) */
  char *ccd;             /* CCD file (components.cif[.gz]); NULL: run without CCD */
  char *output;          /* merged HDF5 file */
  char *report;          /* run report JSON; default <output without .h5>.report.json */
  char *json;            /* the effective job as JSON text (recorded in /run) */
  sp_task_opts opts;     /* cutoff, max site atoms, model policy, pH */
  bool force;            /* overwrite an existing output */
  bool quiet;            /* no progress lines */
  bool keep_parts;       /* keep the per-rank files */
  bool no_steal;         /* static plan only (benchmarks): --no-steal */
  sp_split_opts split;   /* splitting of large files: job file "split", --split-* flags. Not part of
                            json: the merged content does not depend on it (docs/scheduling.md) */
  int shard_index;       /* --shard I/N (issue 8, docs/slurm.md): this run is shard I of N ... */
  int shard_count;       /* ... N; 0: not a shard run */
  bool resume;           /* --resume (issue 9, docs/reliability.md): reuse the tasks of earlier attempts */
  bool entries_first;    /* entries: first (--entries first, issue 16 item 12): of the files of one entry only the
                            first in path order is processed, the later ones get a repeated_entry row; false:
                            all (the default: every readable input is processed, docs/usage.md "Entries") */
} sp_job;

/* Parse `run` arguments (argv[0] = "run"). Fills job; on error prints to stderr and returns
 * SP_EXIT_USAGE; returns -1 when --help was printed (exit 0). */
int sp_job_from_args(int argc, char **argv, sp_job *job);
void sp_job_free(sp_job *job);

int sp_cmd_run(int argc, char **argv);
int sp_cmd_dump(int argc, char **argv);
void sp_print_run_help(FILE *f);

#endif

/* `sitepack run`: the state of one run, shared by the phases of run.c, the task loop of run_task.c
 * and the report of report.c. Private to src/app.
 *
 * One `struct run_ctx` lives on the stack of sp_cmd_run() for the whole run. It is made of typed groups,
 * one per phase group that fills them (the order of the run, DESIGN.md "The run, end to end"): each
 * group says which ranks hold it and who owns what, and each phase takes only the groups it touches.
 * Everything the context owns is freed by one function, run_ctx_free() in run.c: a field added here is
 * freed there. All fields start zeroed.
 */
#ifndef SITEPACK_APP_RUN_CTX_H
#define SITEPACK_APP_RUN_CTX_H

#include <stddef.h>
#include <stdint.h>

#include "app/app.h"
#include "app/cmd_merge.h"
#include "app/resume.h"
#include "sitepack/ccd.h"
#include "app/ccd_shared.h"
#include "sitepack/io.h"
#include "sitepack/sched.h"
#include "sitepack/store.h"
#include "sitepack/pipeline.h"

/* Per-rank counters reduced to rank 0 for the summary and the report. */
enum { C_FILES_OK, C_FILES_FAILED, C_FILES_WARNED, C_LIGANDS, C_SITES, C_SITE_ATOMS, C_ATOMS, C_BYTES, C_TEXT_BYTES, C_N };
/* The tasks' seconds by phase (the report's "work_seconds", docs/usage.md): read (file read + inflate), SHA-256,
   parse, survey, site (search and the site's tables), chemistry (bonds, protonation, interactions, SASA), write
   (append to the rank's HDF5 file). */
enum { W_READ, W_SHA256, W_PARSE, W_SURVEY, W_SITE, W_CHEM, W_WRITE, W_DESC, W_N };

/* One measured task (this rank's), for the cost fit and the makespan bound: doubles
   {phase, task, seconds, bytes, gzip, atoms, ligands, n_parts} */
enum { S_PHASE, S_TASK, S_SECONDS, S_BYTES, S_GZIP, S_ATOMS, S_LIGANDS, S_PARTS, S_N };

/* Bytes of the path buffers of the run (the parts directory, a per-rank file in it). */
enum { RUN_DIR_CAP = 4096, RUN_PATH_CAP = 4200 };

/* The run (run_ctx_open, all ranks). */
struct run_env {
  sp_job job;            /* owned; job.input is rewritten by the scan when the input is one file */
  int rank, n_ranks;     /* MPI_COMM_WORLD */
  double t_start;        /* MPI_Wtime() at the start of the command */
  int tty;               /* stderr is a terminal: a progress bar instead of progress lines */
  char parts_dir[RUN_DIR_CAP]; /* OUT.parts: the per-rank files, job stamp, prepared.h5 */
  int lock_fd;           /* rank 0: the output lock OUT.lock (run_guard.h), -1 when not held */
  int stop_signal;       /* SIGINT or SIGTERM received by some rank (agreed on closing the output); 0: none */
  int h5_broken;         /* a write of an HDF5 file failed (e.g. disk full: this rank's file, prepared.h5, the
                            merge): skip HDF5's shutdown */
  sp_cost_model model;   /* the planner's constants (also the split's cost guard) */
  int delay_ms;          /* test hook SITEPACK_TEST_TASK_DELAY_MS (0: off) */
  unsigned rng;          /* its random state */
};

/* The input files: rank 0 scans; run_phase_share_files gives paths and bytes to every rank,
   run_phase_file_heads the gzip flags and entry ids. */
struct run_files {
  sp_scan_list scan;     /* rank 0: the scan; owns rank 0's path strings */
  char **paths;          /* [n] relative paths, sorted; rank 0: into scan; other ranks: one blob owned
                            through paths[0] */
  int64_t *bytes;        /* [n] stored sizes; owned */
  size_t n;
  uint8_t *gz;           /* [n] 1 where the file starts with the gzip magic (run_phase_file_heads, every rank); owned */
  char (*entry_key)[32]; /* [n] every rank: the entry id of each file's head (read.h sp_read_entry_peek), "" none;
                            rank 0 groups the entries by it, a failed file's row takes it as entry_id; owned */
  int64_t *entry_first;  /* [n] every rank: the first file of each file's entry, -1 none (result.h); owned */
  size_t n_entries_repeated, n_files_repeated; /* rank 0: entries in more than one file; their later files */
};

/* The CCD (phase_ccd_open, all ranks; phase_ccd_check, rank 0). */
struct run_ccd {
  sp_ccd_shared *shared; /* owned; closing it (collective) closes ccd */
  sp_ccd *ccd;           /* NULL: run without a CCD */
  char sha[65];          /* SHA-256 of the CCD file as stored; "" without one */
  size_t blocks;         /* rank 0: data blocks the CCD index holds (summary, report, /run) */
  size_t duplicates;     /* rank 0: blocks left out for a later block of the same id (warning, summary, report) */
};

/* Resume, duplicates, shard (rank 0). */
struct run_resume {
  sp_prepare_out prep;   /* what sp_run_prepare() decided (skip[], counts); owned */
  sp_shard_meta shard;   /* --shard I/N: this shard's files (phase_shard_plan); owned */
};

/* This rank's output (phase_rank_output .. phase_close_output, all ranks). */
struct run_output {
  char part_path[RUN_PATH_CAP]; /* PARTS/rank-NNNNN.h5 */
  sp_worker *worker;     /* owned */
  sp_result result;      /* the current task's rows; owned */
  sp_rank_writer *writer;/* owned until phase_close_output */
};

/* Phases A and B (tasks: all ranks; plans: rank 0). */
struct run_sched {
  int phase;             /* 0: A (every file, part 0 with the split decided), 1: B (the other parts) */
  sp_task_ref *tasks;    /* [n_tasks] tasks of the current phase (every rank); owned */
  size_t n_tasks;
  int32_t *parts_found;  /* [n] phase A: n_parts decided for each file this rank ran (0 = not run here) */
  int64_t *ligs_found;   /* [n] phase A: ligands of those files */
  int64_t *atoms_found;  /* [n] phase A: atoms of those files */
  size_t n_big;          /* files of at least split.min_bytes (with splitting on): phase B may run */
  double bytes_total;    /* rank 0: stored bytes of the files this run processes */
  double *cost_a;        /* [n] rank 0: phase A's estimated task costs; owned */
  sp_plan plan_a, plan_b;/* rank 0; owned */
  double *weight_a, *weight_b; /* rank 0: per-task progress weights (bytes); owned */
  sp_sched_stats st_a, st_b; /* this rank's scheduler statistics of each phase */
  double t_phase_a, t_phase_b; /* wall time of each phase */
  int run_rc;            /* error class that stopped the tasks (agreed after phase A and on closing); 0: none. Not an
                            exit status: the gather and the "stopped" message still follow */
  int phase_b_ran;       /* phase B had tasks (all ranks) */
  size_t n_split, n_parts_added; /* rank 0: files split, extra tasks of phase B */
};

/* This rank's task accounting (run_task.c). */
struct run_acct {
  int64_t counts[C_N];
  int64_t fail_by_class[SP_ERRCLASS_COUNT];
  char *fail_lines;      /* "path\tclass\tmessage\n" for each failed file of this rank; owned */
  size_t fail_len, fail_cap;
  double *samples;       /* [n_samples][S_N]; owned */
  size_t n_samples, cap_samples;
  double bytes_done;     /* stored bytes of the tasks this rank ran (a part: bytes / n_parts) */
  double work[W_N];      /* this rank's task seconds by phase (run_task.c; the report's "work_seconds") */
};

/* Progress over both phases (rank 0: the totals set by the plans, lines by run_task.c). */
struct run_progress {
  double last_line;      /* elapsed time of the last progress line */
  int64_t tasks_base, tasks_total;
  double bytes_base, bytes_total, cost_base, cost_total, time_base;
};

/* The gather (phase_gather: rank 0 holds every rank's figures, [n_ranks] each; all owned). */
struct run_gathered {
  sp_sched_stats *all, *all_a, *all_b; /* both phases summed, phase A, phase B */
  long *rss_kib;         /* peak resident set (KiB; -1 unknown) */
  double *bpa;           /* model bytes per atom of the rank's largest file */
  double *rank_bytes;    /* stored bytes each rank ran */
  int64_t counts[C_N];   /* summed counters; after the merge: read back from the merged file */
  double work[W_N];      /* task seconds by phase, summed over the ranks */
  int64_t by_class[SP_ERRCLASS_COUNT];
  char *fails;           /* "path\tclass\tmessage\n" lines of every failed file */
  double *samples;       /* [n_samples][S_N] task timings of every rank */
  size_t n_samples;
  double t_run;          /* seconds from the start to the end of the gather */
  int64_t n_comps;       /* read back: /components rows (issue 36 item 5: summary, report) */
  int64_t n_comps_no_ccd;/* ... of them without a CCD block (in_ccd 0) */
  char comps_no_ccd[64]; /* ... the first of their comp ids (sp_output_totals.not_in_ccd_ids) */
};

/* The merge, the steps and the report's figures. */
struct run_figures {
  double merge_s, wall;  /* rank 0: seconds of the merge (with the read-back); of the whole run */
  double readback_s;     /* rank 0: seconds of the totals read back from the merged file */
  sp_merge_stats merge_st;   /* this rank's share of the parallel merge (store.h) */
  sp_merge_stats *merge_all; /* rank 0: [n_ranks] every rank's; owned */
  struct run_step { const char *name; double seconds; } steps[24]; /* each phase's wall seconds on this rank */
  size_t n_steps;
  double largest, total, lower_bound, makespan; /* schedule figures (seconds; run_report_write) */
};

struct run_ctx {
  struct run_env env;
  struct run_files files;
  struct run_ccd ccd;
  struct run_resume resume;
  struct run_output out;
  struct run_sched sched;
  struct run_acct acct;
  struct run_progress prog;
  struct run_gathered g;
  struct run_figures fig;
};

/* run_task.c. Rank 0: the LPT plan of the current phase (s->tasks with their estimated costs
 * @p cost [s->n_tasks], seconds) over @p n_ranks; *weight (owned by the caller) gets each task's
 * progress weight (a file's stored bytes f->bytes on its part 0, 0 on other parts).
 * Returns 0; SP_E_NOMEM; the planner's error (printed). */
int run_plan_tasks(const struct run_sched *s, const struct run_files *f, int n_ranks, const double *cost,
                   sp_plan *plan, double **weight);

/* run_task.c. Collective: broadcast rank 0's c->sched.tasks, run @p plan (rank 0's; ignored elsewhere)
 * with work stealing, each task through the worker into c->out.writer, counted in c->acct, progress in
 * c->prog. *stats gets this rank's scheduler statistics, *t_phase the phase's wall seconds. Returns 0 or
 * this rank's error class (printed): SP_E_NOMEM (task list), a task's failure to run or to be written,
 * the scheduler's. */
int run_sched_tasks(struct run_ctx *c, const sp_plan *plan, const double *weight, sp_sched_stats *stats,
                    double *t_phase);

/* entries.c. Rank 0, after the scan (issue 16 item 12): f->entry_first [f->n] from f->entry_key: each file's
 * entry's first file in path order (its own index when it is the first; -1 for a file whose head names no
 * entry), f->n_entries_repeated (entries in more than one file) and f->n_files_repeated (their later files).
 * Returns 0 or -1 (out of memory). */
int run_entries_first(struct run_files *f);

/* run_files.c. Collective: rank 0's input root e->job.input (changed by the scan for a single-file input)
 * and file list (f->paths, f->bytes [f->n]) to every rank (owned by f). Returns 0; out of memory aborts
 * the run (MPI_Abort, SP_EXIT_RUNTIME). */
int run_phase_share_files(struct run_env *e, struct run_files *f);

/* run_files.c. Collective, issue 21: the head of every file read by one rank, every P-th file each
 * (read.h sp_read_entry_peek): f->gz [f->n] and f->entry_key [f->n] on every rank (MPI_Allreduce, MPI_BOR
 * of zeroed values), then rank 0's run_entries_first() and f->entry_first to every rank;
 * all owned by f. Returns 0; out of memory aborts the run. */
int run_phase_file_heads(const struct run_env *e, struct run_files *f);

/* run_parts.c. Rank 0, before the scan (docs/reliability.md "Output path safety"): the finished tasks
 * that an earlier interrupted or failed run left in e->parts_dir and OUT.resume (app/resume.h
 * sp_run_parts_held) are never discarded silently. Without --resume a run that finds some refuses to
 * start ("OUT.parts holds N finished tasks (F files) of an interrupted run: rerun with --resume to keep
 * them, or --force to discard them"); with --force it says what it discards (sp_run_prepare removes
 * them). A shard run never resumes (docs/slurm.md): its rerun starts over, unchecked. Returns 0;
 * SP_EXIT_USAGE (refused) or SP_EXIT_RUNTIME (out of memory), printed. */
int run_phase_check_parts(const struct run_env *e);

/* run_parts.c. Rank 0, after a stop (the per-rank files closed): what the parts directory really keeps,
 * counted as --resume would take it over, and what to do next, into @p buf [cap]: "N finished tasks
 * (F files) are kept in OUT.parts: <fix>rerun with --resume", or "nothing was kept in OUT.parts (why):
 * <fix>rerun (--resume will start over)"; a shard run: "<fix>rerun this shard ...". @p fix: "" or
 * e.g. "fix the cause (e.g. free disk space) and ". */
void run_kept_words(const struct run_env *e, const char *fix, char *buf, size_t cap);

/* report.c. The current UTC time as ISO 8601 ("2026-01-31T12:00:00Z") into @p buf [cap >= 21]. */
void run_iso_now(char *buf, size_t cap);

/* report.c. Rank 0, after the merge: the schedule's measured figures (c->fig.largest, c->fig.total,
 * c->fig.lower_bound, c->fig.makespan), then the run report JSON at c->env.job.report.
 * Returns 0; SP_EXIT_RUNTIME when the report cannot be written (printed; the merged file is complete). */
int run_report_write(struct run_ctx *c);

/* report.c. Rank 0: the human summary of a completed run on stdout (reads every group). */
void run_summary_print(const struct run_ctx *c);

#endif

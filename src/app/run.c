/* `sitepack run`: the whole run under MPI (DESIGN.md "The run, end to end").
 *
 *   rank 0  check the output paths, scan the input; all: the file list, each rank the head (gzip
 *           magic, entry id) of every P-th file
 *   all     open the CCD (one text per node); rank 0 checks it is one
 *   rank 0  duplicates, --resume, the job stamp (app/resume.h); every rank hashes a share of the files
 *   all     open this rank's HDF5 file (store.h)
 *   all     phase A: every file, each large one (>= split.min_bytes) running as part 0 of a split
 *           that its own task decides after the survey; phase B (only when some file split): the
 *           remaining parts. Each phase is one LPT plan run with work stealing (sched.h, run_task.c);
 *           every task goes through the worker stages (pipeline.h) into this rank's file
 *   all     gather statistics, counters, task timings and failures to rank 0
 *   all     merge the per-rank files (ordered by input path): each rank writes its share of the rows
 *           at their offsets of the merged file (store.h sp_merge_parallel(), app/merge_comm.h)
 *   rank 0  fit the cost model to the measured
 *           task times, write the report, summarise (report.c)
 *
 * Each step is a phase_*() function over the run's context (app/run_ctx.h), listed in order in
 * run_phases[] below; after each one agree_status() makes every rank agree on whether the run goes
 * on. A phase returns its rank's exit status (0: go on); a phase that only rank 0 runs returns 0 on
 * the other ranks. A failure of the tasks themselves is no exit status but c->run_rc: the run goes on
 * to the gather and says why it stopped (phase_merge).
 */
#include <errno.h>
#include <limits.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <signal.h>
#include <fcntl.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "app/cli_opts.h"
#include "app/hash_share.h"
#include "app/merge_comm.h"
#include "app/out_files.h"
#include "app/run_ctx.h"
#include "app/run_guard.h"
#include "sitepack/read.h"
#include "sitepack/version.h"

/* Add one phase's statistics to the running per-rank totals. */
static void add_stats(sp_sched_stats *sum, const sp_sched_stats *s) {
  sum->rank = s->rank;
  sum->tasks_planned += s->tasks_planned;
  sum->cost_planned += s->cost_planned;
  sum->tasks_done += s->tasks_done;
  sum->cost_done += s->cost_done;
  sum->steals += s->steals;
  sum->stolen += s->stolen;
  sum->steal_attempts += s->steal_attempts;
  sum->polls += s->polls;
  sum->busy_s += s->busy_s;
  sum->idle_s += s->idle_s;
  sum->wall_s += s->wall_s;
}

/* This process's peak resident set size (KiB), -1 when unknown. */
static long peak_rss_kib(void) {
  struct rusage ru;
  if (getrusage(RUSAGE_SELF, &ru)) return -1;
  return ru.ru_maxrss;
}
/* Rank 0, issue 16 item 1: when the file system of the parts directory is (nearly) full, say so
   (the same words for a stop in the tasks and in the merge). */
static void say_if_disk_full(const struct run_ctx *c) {
  double avail = 0;
  if (sp_out_disk_full(c->parts_dir, &avail))
    fprintf(stderr, "sitepack run: no space left on device: %.0f bytes free on the file system of %s\n", avail,
            c->parts_dir);
}

/* What to fix before a rerun after a failed write (run_kept_words' @p fix). */
#define FIX_HINT "fix the cause (e.g. free disk space) and "

/* ---- the context ---------------------------------------------------------------------------- */

/* Set up @p c (zeroed first) after MPI_Init: rank, size, the job (rank 0 reads it first, so that its
 * errors are printed once, then every other rank), the test hook, the cost model, the parts directory.
 * Returns 0; -1 when --help was printed; an exit status (SP_EXIT_USAGE: bad job, printed by rank 0).
 * On a nonzero return @p c owns nothing. A rank other than 0 that cannot read the job that rank 0
 * read aborts the run (MPI_Abort, SP_EXIT_USAGE). */
static int run_ctx_open(struct run_ctx *c, int argc, char **argv) {
  memset(c, 0, sizeof *c);
  MPI_Comm_rank(MPI_COMM_WORLD, &c->rank);
  MPI_Comm_size(MPI_COMM_WORLD, &c->n_ranks);
  c->t_start = MPI_Wtime();
  c->lock_fd = -1;
  int status = 0; /* 0 go on, -1 help printed, else exit code */
  if (c->rank == 0) status = sp_job_from_args(argc, argv, &c->job);
  MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (status != 0) {
    if (c->rank == 0) sp_job_free(&c->job);
    return status;
  }
  if (c->rank != 0 && sp_job_from_args(argc, argv, &c->job) != 0) {
    fprintf(stderr, "sitepack: rank %d cannot read the job\n", c->rank);
    MPI_Abort(MPI_COMM_WORLD, SP_EXIT_USAGE);
  }
  c->tty = isatty(2);
  run_signals_install(); /* issue 16 item 11: SIGINT/SIGTERM stop the tasks at a task boundary */
  c->rng = 2654435761u * (unsigned)(c->rank + 1);
  const char *d = getenv("SITEPACK_TEST_TASK_DELAY_MS");
  c->delay_ms = d ? atoi(d) : 0;
  if (c->delay_ms < 0 || c->delay_ms > 10000) c->delay_ms = 0;
  sp_result_init(&c->result);
  sp_cost_model_default(&c->model);
  sp_out_sibling(c->job.output, SP_SIB_PARTS, c->parts_dir, sizeof c->parts_dir);
  return 0;
}

/* Free everything @p c owns (a field added to struct run_ctx is freed here). Collective: the shared
 * CCD's close frees its MPI window. A writer still open (the run stopped before phase_close_output) is
 * closed without error report. */
static void run_ctx_free(struct run_ctx *c) {
  if (c->writer) sp_rank_writer_close(c->writer, NULL);
  run_unlock_output(c->job.output, c->lock_fd);
  c->lock_fd = -1;
  sp_worker_free(c->worker);
  sp_result_free(&c->result);
  sp_ccd_shared_close(c->ccd_shared); /* collective (MPI_Win_free); closes c->ccd */
  free(c->fail_lines);
  free(c->samples);
  free(c->tasks);
  free(c->parts_found);
  free(c->ligs_found);
  free(c->atoms_found);
  if (c->rank == 0) {
    free(c->paths); /* the strings belong to scan */
    sp_scan_list_free(&c->scan);
  } else if (c->paths) {
    if (c->n) free(c->paths[0]); /* the blob */
    free(c->paths);
  }
  free(c->bytes);
  free(c->gz);
  free(c->entry_key);
  free(c->entry_first);
  free(c->cost_a);
  free(c->weight_a);
  free(c->weight_b);
  sp_plan_free(&c->plan_a);
  sp_plan_free(&c->plan_b);
  sp_shard_meta_free(&c->shard);
  sp_prepare_out_free(&c->prep);
  struct run_gathered *g = &c->g;
  free(g->all);
  free(g->all_a);
  free(g->all_b);
  free(g->rss_kib);
  free(g->bpa);
  free(g->rank_bytes);
  free(g->fails);
  free(g->samples);
  free(c->merge_all);
  sp_job_free(&c->job);
}

/* Collective, between two phases: the run's status, the largest of the ranks' statuses @p mine (exit
 * statuses: 0 go on, SP_EXIT_RUNTIME, SP_EXIT_USAGE; each phase fails with one of them). The shape of
 * app/ccd_shared.c:agree(). */
static int agree_status(int mine) {
  int all = mine;
  MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  return all;
}

/* ---- before the tasks ----------------------------------------------------------------------- */

/* Issue 16 item 2: @p path made absolute with its directory resolved (realpath of the directory, then
   the last name), into @p out [cap]; a directory that does not exist yet: the path as given. */
static void canonical_path(const char *path, char *out, size_t cap) {
  char dir[4096], res[PATH_MAX];
  snprintf(dir, sizeof dir, "%s", path);
  char *slash = strrchr(dir, '/');
  const char *base = slash ? slash + 1 : path;
  if (slash == dir) snprintf(dir, sizeof dir, "/");
  else if (slash) *slash = 0;
  else snprintf(dir, sizeof dir, ".");
  if (realpath(dir, res)) snprintf(out, cap, "%s/%s", strcmp(res, "/") ? res : "", base);
  else snprintf(out, cap, "%s", path);
}

/* 1 when @p a and @p b name the same file: the same inode when both exist, else the same canonical path. */
static int same_file(const char *a, const char *b) {
  struct stat sa, sb;
  if (stat(a, &sa) == 0 && stat(b, &sb) == 0) return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
  char ca[8192], cb[8192];
  canonical_path(a, ca, sizeof ca);
  canonical_path(b, cb, sizeof cb);
  return !strcmp(ca, cb);
}

/* Issue 16 item 2: an output path (@p what: "output" or "report") is never an input of the run: not
   the CCD, not the input file, not a structure file under the input directory. Returns 0, or
   SP_EXIT_USAGE (printed). */
static int check_not_input(const sp_job *job, const char *what, const char *path) {
  struct stat sb;
  int bad = (job->ccd && same_file(path, job->ccd)) || same_file(path, job->input);
  if (!bad && stat(job->input, &sb) == 0 && S_ISDIR(sb.st_mode)) {
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    char cp[8192], ci[8192];
    canonical_path(path, cp, sizeof cp);
    canonical_path(job->input, ci, sizeof ci);
    size_t n = strlen(ci);
    bad = sp_scan_is_structure_name(base) && !strncmp(cp, ci, n) && cp[n] == '/';
  }
  if (bad) fprintf(stderr, "sitepack run: %s %s is an input of the run (the CCD or a structure file): refused\n",
                   what, path);
  return bad ? SP_EXIT_USAGE : 0;
}

/* The suffix (".parts", ".lock", ".tmp") when @p report names one of the run's own files next to
   @p output (the parts directory, the output lock of run_guard.h, the merge's temporary file), else NULL. */
static const char *report_is_run_file(const char *output, const char *report) {
  static const sp_sibling own[] = {SP_SIB_PARTS, SP_SIB_LOCK, SP_SIB_TMP};
  char p[RUN_PATH_CAP];
  for (size_t k = 0; k < sizeof own / sizeof *own; k++) {
    sp_out_sibling(output, own[k], p, sizeof p);
    if (same_file(report, p)) return sp_out_sibling_suffix(own[k]);
  }
  return NULL;
}

/* Rank 0: the output policy, before any work: the output and the report are not directories, the
 * output does not exist (without --force), the output's and the report's directories exist (created),
 * the output can be created there, then the report. Returns 0; SP_EXIT_USAGE or SP_EXIT_RUNTIME (printed).
 * Owns nothing. */
static int phase_check_output(struct run_ctx *c) {
  if (c->rank != 0) return 0;
  const sp_job *job = &c->job;
  struct stat sb;
  char dir[4096];
  if (stat(job->output, &sb) == 0 && S_ISDIR(sb.st_mode)) {
    fprintf(stderr, "sitepack run: output %s is a directory (give a file name, e.g. %s/sites.h5)\n", job->output,
            job->output);
    return SP_EXIT_USAGE;
  } else if (stat(job->report, &sb) == 0 && S_ISDIR(sb.st_mode)) {
    fprintf(stderr, "sitepack run: report %s is a directory (give a file name)\n", job->report);
    return SP_EXIT_USAGE;
  } else if (!job->force && stat(job->output, &sb) == 0) {
    fprintf(stderr, "sitepack run: output %s exists (use --force to overwrite)\n", job->output);
    return SP_EXIT_USAGE;
  } else if (check_not_input(job, "output", job->output) || check_not_input(job, "report", job->report)) {
    return SP_EXIT_USAGE;
  } else if (same_file(job->report, job->output)) { /* issue 16 item 2: the report obeys the output's rules */
    fprintf(stderr, "sitepack run: report %s is the output file (give another --report)\n", job->report);
    return SP_EXIT_USAGE;
  } else if (report_is_run_file(job->output, job->report)) {
    fprintf(stderr, "sitepack run: report %s is the run's own %s of %s (give another --report)\n", job->report,
            report_is_run_file(job->output, job->report), job->output);
    return SP_EXIT_USAGE;
  } else if (!job->force && stat(job->report, &sb) == 0) {
    fprintf(stderr, "sitepack run: report %s exists (use --force to overwrite)\n", job->report);
    return SP_EXIT_USAGE;
  } else if (sp_out_mkdir_parent(job->output, dir, sizeof dir)) { /* the parts, lock and merge's .tmp go there too */
    fprintf(stderr, "sitepack run: cannot create the output's directory %s: %s\n", dir, strerror(errno));
    return SP_EXIT_RUNTIME;
  } else if (!sp_out_writable(job->output)) { /* the output first: the path the user gave (--out) */
    fprintf(stderr, "sitepack run: cannot write output %s: %s\n", job->output, strerror(errno));
    return SP_EXIT_RUNTIME;
  } else if (sp_out_mkdir_parent(job->report, dir, sizeof dir)) {
    fprintf(stderr, "sitepack run: cannot create the report's directory %s: %s\n", dir, strerror(errno));
    return SP_EXIT_RUNTIME;
  } else if (!sp_out_writable(job->report)) { /* found now, not after the whole run */
    fprintf(stderr, "sitepack run: cannot write report %s: %s\n", job->report, strerror(errno));
    return SP_EXIT_RUNTIME;
  }
  return 0;
}

/* Rank 0, issue 16 item 8: the output lock (run_guard.h), held until the end of the run, so that a
 * second run or a resume of the same output cannot clobber this run's parts. Returns 0 or
 * run_lock_output()'s exit status (printed). */
static int phase_lock(struct run_ctx *c) {
  return c->rank == 0 ? run_lock_output(c->job.output, &c->lock_fd) : 0;
}

/* Rank 0: scan the input (io.h sp_scan_dir) into c->scan, create the parts directory, fill c->paths,
 * c->bytes [c->n] (owned by c; the path strings by c->scan; the gzip flags and entry ids: run_phase_file_heads). A single file as input: its
 * directory becomes job.input. Returns 0; SP_EXIT_USAGE (no such input, no structure files) or
 * SP_EXIT_RUNTIME (parts directory, out of memory), printed. */
static int phase_scan(struct run_ctx *c) {
  if (c->rank != 0) return 0;
  sp_job *job = &c->job;
  sp_err err = {0};
  struct stat sb;
  if (sp_scan_dir(job->input, &c->scan, &err)) {
    fprintf(stderr, "sitepack run: input %s: %s\n", job->input, err.msg);
    return SP_EXIT_USAGE;
  } else if (c->scan.n == 0) {
    fprintf(stderr, "sitepack run: no structure files (.cif .mmcif .pdb .ent, optionally .gz) under %s\n",
            job->input);
    return SP_EXIT_USAGE;
  } else if (sp_out_mkdir_p(c->parts_dir)) {
    fprintf(stderr, "sitepack run: cannot create %s: %s\n", c->parts_dir, strerror(errno));
    return SP_EXIT_RUNTIME;
  }
  /* scan of a single file: its root is its directory */
  if (stat(job->input, &sb) == 0 && S_ISREG(sb.st_mode)) {
    char *slash = strrchr(job->input, '/');
    if (slash) *slash = 0;
    else strcpy(job->input, ".");
  }
  c->n = c->scan.n;
  c->paths = calloc(c->n, sizeof *c->paths);
  c->bytes = calloc(c->n, sizeof *c->bytes);
  if (!c->paths || !c->bytes) {
    fprintf(stderr, "sitepack run: out of memory\n");
    return SP_EXIT_RUNTIME;
  }
  for (size_t i = 0; i < c->n; ++i) {
    c->paths[i] = c->scan.files[i].path;
    c->bytes[i] = c->scan.files[i].bytes;
  }
  if (!job->quiet)
    fprintf(stderr, "sitepack %s: %zu files under %s, %d rank%s\n", SP_VERSION, c->n, job->input, c->n_ranks,
            c->n_ranks == 1 ? "" : "s");
  return 0;
}

/* Collective: the CCD (issue 4, ccd2): one copy of the text per node (ccd_shared.h: a mapped plain
 * file, or a gzip file inflated once per node into an MPI shared window); index and cache per rank.
 * c->ccd_shared (owned) and c->ccd; c->ccd_sha = SHA-256 of the file as stored (provenance). No CCD in
 * the job: nothing. Returns 0 or SP_EXIT_USAGE (the open failed on this rank; rank 0 prints why). */
static int phase_ccd_open(struct run_ctx *c) {
  if (!c->job.ccd) return 0;
  sp_err err = {0};
  int rc = sp_ccd_open_shared(MPI_COMM_WORLD, c->job.ccd, &c->ccd_shared, c->ccd_sha, &err);
  if (rc && c->rank == 0) sp_opt_file_error("run", "CCD", c->job.ccd, err.msg, NULL); /* the path once */
  c->ccd = sp_ccd_shared_get(c->ccd_shared);
  return rc ? SP_EXIT_USAGE : 0;
}

/* Rank 0: a CCD's blocks are components: data_XXX with _chem_comp.id XXX. Anything else (a structure
 * file given as --ccd by mistake) would make every comp_id "not in CCD": refuse it. Returns 0 or
 * SP_EXIT_USAGE (printed). */
static int phase_ccd_check(struct run_ctx *c) {
  if (c->rank != 0 || !c->ccd) return 0;
  const sp_ccd_index *ix = sp_ccd_get_index(c->ccd);
  c->ccd_blocks = ix->n; /* issue 16: said in the summary, the report and /run@ccd_blocks */
  char dup[SP_ID_LEN];
  c->ccd_duplicates = sp_ccd_duplicates(c->ccd, dup);
  if (c->ccd_duplicates) /* the CCD's warning, with its other messages (stderr), the summary and the report */
    fprintf(stderr, "sitepack run: warning: CCD %s: %zu data block%s repeat%s the id of a later block (first: data_%s); "
            "the last block of each id is used\n", c->job.ccd, c->ccd_duplicates, c->ccd_duplicates == 1 ? "" : "s",
            c->ccd_duplicates == 1 ? "s" : "", dup);
  sp_err e2 = {0};
  const sp_component *first = ix->n ? sp_ccd_get(c->ccd, ix->ids[0], &e2) : NULL;
  if (!first || strcmp(first->id, ix->ids[0])) {
    fprintf(stderr, "sitepack run: CCD %s: its first block data_%s is not a chemical component (%s)\n", c->job.ccd,
            ix->n ? ix->ids[0] : "", first ? "_chem_comp.id differs from the block name" : e2.msg);
    return SP_EXIT_USAGE;
  }
  return 0;
}

/* Rank 0, before the scan: a CCD that cannot be opened is refused at once, with the words the CCD step
 * would use, instead of after a scan of the whole input (minutes on the archive). The CCD step opens it
 * again and checks what it holds. Returns 0 or SP_EXIT_USAGE (printed). */
static int phase_ccd_exists(struct run_ctx *c) {
  if (c->rank != 0 || !c->job.ccd) return 0;
  int fd = open(c->job.ccd, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    char msg[300];
    snprintf(msg, sizeof msg, "cannot open: %s", strerror(errno));
    sp_opt_file_error("run", "CCD", c->job.ccd, msg, NULL);
    return SP_EXIT_USAGE;
  }
  close(fd);
  return 0;
}

/* Rank 0, issue 9 (reliability): duplicates, --resume and the job stamp (app/resume.h; files hashed through
 * @p hasher) into c->prep
 * (owned), before any per-rank file of this run is created. A shard run (never --resume: a failed
 * shard is rerun whole, docs/slurm.md) decides the duplicates on the global sorted list too (issue 16
 * item 5) and writes the rows of its own files (c->shard). Returns 0 or sp_run_prepare()'s exit
 * status (printed). */
static int prepare_files(struct run_ctx *c, const sp_hasher *hasher) {
  const sp_job *job = &c->job;
  const sp_prepare_out *prep = &c->prep;
  uint8_t *mine = NULL; /* [n] a shard's files */
  if (job->shard_count > 0) {
    if (!(mine = calloc(c->n ? c->n : 1, 1))) {
      fprintf(stderr, "sitepack run: out of memory (prepare)\n");
      return SP_EXIT_RUNTIME;
    }
    for (size_t k = 0; k < c->shard.n_assigned; k++) mine[c->shard.files[k]] = 1;
  }
  sp_prepare_entries ent = {c->entry_first, (const char(*)[32])c->entry_key, job->entries_first};
  int status = sp_run_prepare(job, c->parts_dir, c->paths, c->bytes, c->n, c->ccd_sha, mine, hasher, &ent, &c->prep);
  free(mine);
  /* issue 16 item 1: a failed write of prepared.h5 (a full disk) leaves HDF5 unable to close it: its
     shutdown would loop ("infinite loop closing library"); leave without it */
  if (status == SP_EXIT_RUNTIME) {
    c->h5_broken = 1;
    say_if_disk_full(c);
    char kept[3 * RUN_PATH_CAP];
    run_kept_words(c, FIX_HINT, kept, sizeof kept);
    fprintf(stderr, "sitepack run: %s stopped: no output written; %s\n", job->resume ? "--resume" : "the prepare step",
            kept);
  }
  if (status || job->quiet || !(job->resume || prep->n_duplicates)) return status;
  if (job->resume)
    fprintf(stderr, "sitepack: --resume: %zu files (%zu tasks) resumed, %zu changed since, %zu duplicates; %zu hashed in %.2f s\n",
            prep->n_resumed, prep->n_resumed_tasks, prep->n_changed, prep->n_duplicates, prep->n_hashed, prep->seconds);
  else
    fprintf(stderr, "sitepack: %zu duplicates (same SHA-256 as an earlier file); %zu files of equal size hashed in %.2f s\n",
            prep->n_duplicates, prep->n_hashed, prep->seconds);
  return 0;
}

/* Collective: rank 0 prepares the parts directory (prepare_files); the files it must hash (equal sizes,
 * --resume) are hashed by every rank, each every P-th of a batch (app/hash_share.h). Returns rank 0's
 * status, 0 elsewhere. */
static int phase_resume(struct run_ctx *c) {
  run_hash_share hs = {MPI_COMM_WORLD, c->job.input, c->paths, c->n};
  if (c->rank != 0) {
    run_hash_serve(&hs);
    return 0;
  }
  sp_hasher hasher = run_hasher(&hs);
  int status = prepare_files(c, &hasher);
  run_hash_stop(&hs);
  return status;
}

/* All ranks: this rank's worker and HDF5 file PARTS/rank-NNNNN.h5 (c->worker, c->writer), and the
 * phase A arrays c->parts_found, c->ligs_found, c->atoms_found [n] (all owned by c). Returns 0 or
 * SP_EXIT_RUNTIME (cannot create the file, out of memory; printed). */
static int phase_rank_output(struct run_ctx *c) {
  sp_err err = {0};
  snprintf(c->part_path, sizeof c->part_path, "%s/rank-%05d.h5", c->parts_dir, c->rank);
  c->worker = sp_worker_new();
  c->writer = c->worker ? sp_rank_writer_open(c->part_path, &err) : NULL;
  size_t n1 = c->n ? c->n : 1;
  c->parts_found = calloc(n1, sizeof *c->parts_found);
  c->ligs_found = malloc(n1 * sizeof *c->ligs_found);
  c->atoms_found = malloc(n1 * sizeof *c->atoms_found);
  int status = 0;
  if (!c->writer) {
    fprintf(stderr, "sitepack: rank %d: cannot create %s: %s\n", c->rank, c->part_path, err.msg);
    status = SP_EXIT_RUNTIME;
  }
  if (!c->parts_found || !c->ligs_found || !c->atoms_found) {
    fprintf(stderr, "sitepack: rank %d: out of memory\n", c->rank);
    return SP_EXIT_RUNTIME;
  }
  for (size_t f = 0; f < c->n; f++) c->ligs_found[f] = c->atoms_found[f] = -1;
  return status;
}

/* ---- the tasks: phase A, phase B ------------------------------------------------------------ */

/* Phase A: every file, as part 0 of a split that the file's own task decides after its survey
 * (pipeline.h sp_worker_process_first(); files under the size threshold never split). Phase B: parts 1..
 * of the files split in phase A; skipped (no barrier) when no file split. */

/* Rank 0: one part-0 task per file of the scan into c->tasks [c->n_tasks = c->n] with its bytes-only cost
 * estimate (nothing is parsed yet) in c->cost_a, c->bytes_total their stored bytes (owned by c).
 * Returns 0 or SP_E_NOMEM. */
static int all_file_tasks(struct run_ctx *c) {
  free(c->tasks);
  free(c->cost_a);
  c->tasks = malloc((c->n ? c->n : 1) * sizeof *c->tasks);
  c->cost_a = malloc((c->n ? c->n : 1) * sizeof *c->cost_a);
  if (!c->tasks || !c->cost_a) return SP_E_NOMEM;
  c->bytes_total = 0;
  for (size_t f = 0; f < c->n; f++) {
    c->tasks[f] = (sp_task_ref){(int64_t)f, 0, 1};
    c->cost_a[f] = sp_cost_estimate(&c->model, c->bytes[f], c->gz[f], -1, -1);
    c->bytes_total += (double)c->bytes[f];
  }
  c->n_tasks = c->n;
  return 0;
}

/* Rank 0, a shard run (issue 8, slurm): this shard's LPT share of the files over the N shards
 * (c->shard; c->tasks, c->cost_a keep its files, file_idx global), before the duplicates are decided
 * (phase_resume: on the global list, rows for this shard's files). Returns 0 or SP_EXIT_RUNTIME
 * (printed). */
static int phase_shard_plan(struct run_ctx *c) {
  const sp_job *job = &c->job;
  if (c->rank != 0 || job->shard_count == 0) return 0;
  sp_err err = {0};
  int prc = all_file_tasks(c);
  if (prc) fprintf(stderr, "sitepack run: out of memory (tasks)\n");
  if (!prc) {
    prc = sp_shard_plan(job->shard_index, job->shard_count, c->paths, c->bytes, c->gz, c->n, job->json, c->ccd_sha,
                        &job->split, c->tasks, c->cost_a, &c->n_tasks, &c->bytes_total, &c->shard, &err);
    if (prc) fprintf(stderr, "sitepack run: shard: %s\n", err.msg);
  }
  if (!prc && !job->quiet)
    fprintf(stderr, "sitepack: shard %d/%d: %zu of %zu files\n", job->shard_index, job->shard_count, c->n_tasks, c->n);
  return prc ? SP_EXIT_RUNTIME : 0;
}

/* All ranks: c->n_big. Rank 0: phase A's tasks (c->tasks: every file, or a shard's share from
 * phase_shard_plan, less the files skipped by the resume step: resumed files and duplicates), their
 * bytes-only cost estimates (c->cost_a), the plan (c->plan_a, c->weight_a) and the progress totals;
 * all owned by c. Returns 0 or SP_EXIT_RUNTIME (printed). */
static int phase_plan_a(struct run_ctx *c) {
  const sp_job *job = &c->job;
  c->n_big = 0;
  for (size_t f = 0; f < c->n; f++)
    if (job->split.enabled && c->bytes[f] >= job->split.min_bytes) c->n_big++;
  c->phase = 0;
  if (c->rank != 0) return 0;
  int prc = job->shard_count > 0 ? 0 : all_file_tasks(c);
  double *cost_a = c->cost_a;
  if (!prc && c->prep.skip) { /* issue 9: resumed files and duplicates have their rows in prepared.h5 */
    size_t k = 0;
    for (size_t t = 0; t < c->n_tasks; t++) {
      if (c->prep.skip[c->tasks[t].file_idx]) {
        c->bytes_total -= (double)c->bytes[c->tasks[t].file_idx];
        continue;
      }
      c->tasks[k] = c->tasks[t];
      cost_a[k++] = cost_a[t];
    }
    c->n_tasks = k;
  }
  c->prog_cost_total = 0;
  for (size_t t = 0; !prc && t < c->n_tasks; t++) c->prog_cost_total += cost_a[t];
  c->prog_tasks_total = (int64_t)c->n_tasks;
  c->prog_bytes_total = c->bytes_total;
  if (prc) fprintf(stderr, "sitepack run: out of memory (tasks)\n");
  if (!prc) prc = run_plan_tasks(c, cost_a, &c->plan_a, &c->weight_a);
  return prc ? SP_EXIT_RUNTIME : 0;
}

/* Collective: run phase A (run_task.c); c->st_a, c->t_phase_a; c->run_rc agreed over the ranks.
 * Returns 0 (a failed task stops the tasks through c->run_rc, not the run). */
static int phase_run_a(struct run_ctx *c) {
  c->run_rc = run_sched_tasks(c, &c->plan_a, c->weight_a, &c->st_a, &c->t_phase_a);
  MPI_Allreduce(MPI_IN_PLACE, &c->run_rc, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  return 0;
}

/* Rank 0: phase B's tasks: the parts 1.. of every file split in phase A, from the same expansion as
 * the planner of any run (only large files have known ligands), into c->tasks with their plan
 * (c->plan_b, c->weight_b; owned by c); c->n_split, c->n_parts_added and the progress totals.
 * Returns 0 or SP_EXIT_RUNTIME: expansion failed, out of memory, a file whose split differs from
 * phase A's (it changed during the run); printed. */
static int plan_b_tasks(struct run_ctx *c) {
  sp_err err = {0};
  c->prog_tasks_base = (int64_t)c->n;
  c->prog_bytes_base = c->bytes_total;
  c->prog_cost_base = c->prog_cost_total;
  c->prog_time_base = c->t_phase_a;
  sp_task_ref *all_t = NULL;
  double *all_c = NULL, *cost_b = NULL;
  size_t n_all = 0;
  int prc = sp_tasks_expand(c->n, c->bytes, c->gz, c->atoms_found, c->ligs_found, &c->job.split, &c->model, &all_t,
                            &all_c, &n_all, &err);
  if (prc) fprintf(stderr, "sitepack run: tasks: %s\n", err.msg);
  free(c->tasks);
  c->tasks = prc ? NULL : malloc((n_all ? n_all : 1) * sizeof *c->tasks);
  cost_b = prc ? NULL : malloc((n_all ? n_all : 1) * sizeof *cost_b);
  if (!prc && (!c->tasks || !cost_b)) prc = SP_E_NOMEM;
  size_t k = 0;
  for (size_t t = 0; !prc && t < n_all; t++) {
    size_t f = (size_t)all_t[t].file_idx;
    int found = c->parts_found[f] > 0 ? c->parts_found[f] : 1;
    if (all_t[t].n_parts != found) {
      fprintf(stderr, "sitepack run: %s changed during the run (split into %d, then %d parts)\n", c->paths[f], found,
              all_t[t].n_parts);
      prc = SP_E_INVALID;
      break;
    }
    if (all_t[t].part == 0) continue; /* ran in phase A */
    if (all_t[t].part == 1) c->n_split++;
    c->n_parts_added++;
    c->tasks[k] = all_t[t];
    cost_b[k] = all_c[t];
    k++;
  }
  c->n_tasks = k;
  if (!prc && k) prc = run_plan_tasks(c, cost_b, &c->plan_b, &c->weight_b);
  if (!prc) {
    c->prog_tasks_total = (int64_t)(c->n + k);
    for (size_t t = 0; t < k; t++) c->prog_cost_total += cost_b[t];
  }
  free(all_t);
  free(all_c);
  free(cost_b);
  c->phase_b_ran = !prc && k > 0;
  return prc ? SP_EXIT_RUNTIME : 0;
}

/* Collective, when phase A completed and some file is large: the split decisions of phase A (from the
 * ranks that ran each large file), then rank 0 plans phase B (plan_b_tasks) and tells every rank
 * whether it runs (c->phase_b_ran). Returns 0 or rank 0's SP_EXIT_RUNTIME. */
static int phase_plan_b(struct run_ctx *c) {
  if (c->run_rc || c->n_big == 0) return 0;
  MPI_Allreduce(MPI_IN_PLACE, c->parts_found, (int)c->n, MPI_INT32_T, MPI_MAX, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, c->ligs_found, (int)c->n, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, c->atoms_found, (int)c->n, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
  int status = c->rank == 0 ? plan_b_tasks(c) : 0;
  MPI_Bcast(&c->phase_b_ran, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return status;
}

/* Collective, when phase B has tasks: run it (run_task.c); c->st_b, c->t_phase_b, c->run_rc (this
 * rank's; agreed by phase_close_output). Returns 0. */
static int phase_run_b(struct run_ctx *c) {
  if (!c->phase_b_ran) return 0;
  c->phase = 1;
  c->run_rc = run_sched_tasks(c, &c->plan_b, c->weight_b, &c->st_b, &c->t_phase_b);
  return 0;
}

/* Collective: close this rank's file (c->writer; a failed close, e.g. a full disk, sets c->h5_broken
 * and c->run_rc = SP_E_HDF5), then agree on c->run_rc. Returns 0. */
static int phase_close_output(struct run_ctx *c) {
  sp_err err = {0};
  if (sp_rank_writer_close(c->writer, &err)) {
    fprintf(stderr, "sitepack: rank %d: closing %s: %s\n", c->rank, c->part_path, err.msg);
    if (!c->run_rc) c->run_rc = SP_E_HDF5;
    c->h5_broken = 1;
  }
  c->writer = NULL;
  /* issue 16 item 11: a signal that came after this rank's last task still stops the run before the merge */
  c->stop_signal = run_stop_signal();
  MPI_Allreduce(MPI_IN_PLACE, &c->stop_signal, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (c->stop_signal && !c->run_rc) c->run_rc = SP_E_INTERRUPTED;
  MPI_Allreduce(MPI_IN_PLACE, &c->run_rc, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  return 0;
}

/* ---- after the tasks ------------------------------------------------------------------------ */

/* Collective: gather per-rank statistics, counters, memory, task timings and failures into c->g on
 * rank 0 (owned by c), then c->g.t_run. Returns 0; out of memory on rank 0 aborts the run (MPI_Abort,
 * SP_EXIT_RUNTIME). */
static int phase_gather(struct run_ctx *c) {
  int rank = c->rank, P = c->n_ranks;
  struct run_gathered *g = &c->g;
  sp_err err = {0};
  if (rank == 0) {
    g->all = calloc((size_t)P, sizeof *g->all);
    g->all_a = calloc((size_t)P, sizeof *g->all_a);
    g->all_b = calloc((size_t)P, sizeof *g->all_b);
    g->rss_kib = calloc((size_t)P, sizeof *g->rss_kib);
    g->bpa = calloc((size_t)P, sizeof *g->bpa);
    g->rank_bytes = calloc((size_t)P, sizeof *g->rank_bytes);
    if (!g->all || !g->all_a || !g->all_b || !g->rss_kib || !g->bpa || !g->rank_bytes)
      MPI_Abort(MPI_COMM_WORLD, SP_EXIT_RUNTIME);
  }
  sp_sched_gather_stats(MPI_COMM_WORLD, &c->st_a, g->all_a, &err);
  sp_sched_gather_stats(MPI_COMM_WORLD, &c->st_b, g->all_b, &err);
  long my_rss = peak_rss_kib();
  MPI_Gather(&my_rss, 1, MPI_LONG, g->rss_kib, 1, MPI_LONG, 0, MPI_COMM_WORLD);
  /* bytes per atom of the in-memory model, for this rank's largest file */
  double my_bpa = c->worker ? sp_worker_max_bytes_per_atom(c->worker) : 0;
  MPI_Gather(&my_bpa, 1, MPI_DOUBLE, g->bpa, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  MPI_Gather(&c->bytes_done, 1, MPI_DOUBLE, g->rank_bytes, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  MPI_Reduce(c->counts, g->counts, C_N, MPI_INT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
  MPI_Reduce(c->work, g->work, W_N, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  MPI_Reduce(c->fail_by_class, g->by_class, SP_ERRCLASS_COUNT, MPI_INT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
  int my_len = (int)c->fail_len;
  int *lens = rank == 0 ? calloc((size_t)P, sizeof *lens) : NULL;
  int *displ = rank == 0 ? calloc((size_t)P, sizeof *displ) : NULL;
  MPI_Gather(&my_len, 1, MPI_INT, lens, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    int tot = 0;
    for (int i = 0; i < P; ++i) {
      displ[i] = tot;
      tot += lens[i];
    }
    g->fails = calloc((size_t)tot + 1, 1);
  }
  MPI_Gatherv(c->fail_lines ? c->fail_lines : "", my_len, MPI_CHAR, g->fails, lens, displ, MPI_CHAR, 0,
              MPI_COMM_WORLD);
  /* task timings (S_N doubles per task) */
  int my_ns = (int)(c->n_samples * S_N);
  MPI_Gather(&my_ns, 1, MPI_INT, lens, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    int tot = 0;
    for (int i = 0; i < P; ++i) {
      displ[i] = tot;
      tot += lens[i];
    }
    g->n_samples = (size_t)tot / S_N;
    g->samples = malloc(((size_t)tot ? (size_t)tot : 1) * sizeof *g->samples);
    if (!g->samples) MPI_Abort(MPI_COMM_WORLD, SP_EXIT_RUNTIME);
  }
  MPI_Gatherv(c->samples ? c->samples : (double *)&c->bytes_done, my_ns, MPI_DOUBLE, g->samples, lens, displ,
              MPI_DOUBLE, 0, MPI_COMM_WORLD);
  g->t_run = MPI_Wtime() - c->t_start;
  free(lens);
  free(displ);
  for (int i = 0; rank == 0 && i < P; ++i) {
    add_stats(&g->all[i], &g->all_a[i]);
    add_stats(&g->all[i], &g->all_b[i]);
    g->all[i].rank = i; /* a phase B that did not run has zeroed statistics, rank 0 too */
  }
  return 0;
}

/* Rank 0, issue 9: the tasks stopped (c->run_rc): a failed write (a full disk, a quota) leaves
 * resumable state: every task listed in the per-rank files is complete, and nothing is written under
 * the final name. Says so (and how much space is left). Issue 16 item 11: stopped by a signal, says
 * how many files are done. Returns SP_EXIT_RUNTIME, or 128 + the signal (130 SIGINT, 143 SIGTERM). */
static int report_stopped(const struct run_ctx *c) {
  char kept[3 * RUN_PATH_CAP];
  if (c->run_rc == SP_E_INTERRUPTED) {
    int64_t done = c->g.counts[C_FILES_OK] + c->g.counts[C_FILES_FAILED] + (int64_t)c->prep.n_resumed +
                   (int64_t)c->prep.n_duplicates + (int64_t)c->prep.n_repeated;
    size_t total = c->job.shard_count > 0 ? c->shard.n_assigned : c->n;
    run_kept_words(c, "", kept, sizeof kept);
    fprintf(stderr, "sitepack run: interrupted (%s) after %lld of %zu files; no output written; %s\n",
            c->stop_signal == SIGINT ? "SIGINT" : "SIGTERM", (long long)done, total, kept);
    return 128 + (c->stop_signal ? c->stop_signal : SIGTERM);
  }
  say_if_disk_full(c);
  run_kept_words(c, FIX_HINT, kept, sizeof kept);
  fprintf(stderr, "sitepack run: stopped (%s): no output written; %s\n", sp_errclass_name(c->run_rc), kept);
  return SP_EXIT_RUNTIME;
}

/* Rank 0: the summary and the report count the whole output (tasks resumed from an earlier attempt
 * and duplicates included), read back from the merged file into c->g (counts, by_class, fails).
 * Returns 0 or SP_EXIT_RUNTIME (printed). */
static int read_back_totals(struct run_ctx *c) {
  sp_err err = {0};
  sp_output_totals tot;
  int status = 0;
  if (sp_output_totals_read(c->job.output, &tot, &err) == 0) {
    c->g.counts[C_FILES_OK] = tot.n_ok;
    c->g.counts[C_FILES_FAILED] = tot.n_failed;
    c->g.counts[C_FILES_WARNED] = tot.n_with_warnings;
    c->g.counts[C_LIGANDS] = tot.n_ligands;
    c->g.counts[C_SITES] = tot.n_sites;
    c->g.counts[C_SITE_ATOMS] = tot.n_site_atoms;
    memcpy(c->g.by_class, tot.by_class, sizeof tot.by_class);
    c->n_comps = tot.n_components; /* issue 36 item 5 */
    c->n_comps_no_ccd = tot.n_not_in_ccd;
    memcpy(c->comps_no_ccd, tot.not_in_ccd_ids, sizeof c->comps_no_ccd);
    free(c->g.fails);
    c->g.fails = tot.failures;
    tot.failures = NULL;
  } else {
    fprintf(stderr, "sitepack run: cannot read back %s: %s\n", c->job.output, err.msg);
    status = SP_EXIT_RUNTIME;
  }
  sp_output_totals_free(&tot);
  return status;
}

/* The merge's inputs: PARTS/rank-NNNNN.h5 of every rank, then PARTS/prepared.h5 when @p prepared
 * (issue 9: resumed tasks, duplicates' rows). *n set; NULL when out of memory. Free with free_inputs(). */
static char **merge_inputs(const struct run_ctx *c, int prepared, size_t *n) {
  int P = c->n_ranks;
  char **inputs = calloc((size_t)P + 1, sizeof *inputs);
  *n = (size_t)P + (prepared ? 1 : 0);
  for (size_t i = 0; inputs && i < *n; ++i) {
    if (!(inputs[i] = malloc(RUN_PATH_CAP))) {
      for (size_t k = 0; k < i; k++) free(inputs[k]);
      free(inputs);
      return NULL;
    }
    if (i < (size_t)P) snprintf(inputs[i], RUN_PATH_CAP, "%s/rank-%05zu.h5", c->parts_dir, i);
    else snprintf(inputs[i], RUN_PATH_CAP, "%s/prepared.h5", c->parts_dir);
  }
  return inputs;
}

static void free_inputs(char **inputs, size_t n) {
  for (size_t i = 0; inputs && i < n; ++i) free(inputs[i]);
  free(inputs);
}

/* Collective: every rank's merge statistics to rank 0 (c->merge_all, owned). */
static void gather_merge_stats(struct run_ctx *c) {
  if (c->rank == 0) c->merge_all = calloc((size_t)c->n_ranks, sizeof *c->merge_all);
  MPI_Gather(&c->merge_st, (int)sizeof c->merge_st, MPI_BYTE, c->merge_all, (int)sizeof c->merge_st, MPI_BYTE, 0,
             MPI_COMM_WORLD);
}

/* Collective, once the output is in place: the parts removed (unless --keep-parts), each rank its own
 * per-rank file (removing a large file costs about 0.1-0.3 s per GB here), then rank 0 prepared.h5, the job
 * stamp and the directory. */
static void remove_parts(const struct run_ctx *c, char **inputs, size_t n_inputs) {
  if (c->job.keep_parts) return;
  if ((size_t)c->rank < n_inputs) remove(inputs[c->rank]);
  MPI_Barrier(MPI_COMM_WORLD);
  if (c->rank != 0) return;
  for (size_t i = (size_t)c->n_ranks; i < n_inputs; ++i) remove(inputs[i]);
  char stamp[RUN_PATH_CAP];
  snprintf(stamp, sizeof stamp, "%s/job.txt", c->parts_dir);
  remove(stamp);
  rmdir(c->parts_dir);
}

/* Rank 0, after the merge into @p tmp: a failure said (issue 16 item 1: the parts are kept, the words of
 * a stop in the tasks, no HDF5 shutdown), or @p tmp renamed to the output. Returns 0 or SP_EXIT_RUNTIME. */
static int place_output(struct run_ctx *c, const char *tmp, int mrc, const sp_err *err) {
  if (mrc) {
    remove(tmp);
    say_if_disk_full(c);
    char kept[3 * RUN_PATH_CAP];
    run_kept_words(c, FIX_HINT, kept, sizeof kept);
    fprintf(stderr, "sitepack run: merge failed (%s: %s): no output written; %s\n", sp_errclass_name(mrc), err->msg,
            kept);
    c->h5_broken = 1; /* HDF5 cannot close the half-written file: its shutdown would crash */
    return SP_EXIT_RUNTIME;
  }
  if (rename(tmp, c->job.output)) {
    fprintf(stderr, "sitepack run: cannot rename %s to %s: %s\n", tmp, c->job.output, strerror(errno));
    return SP_EXIT_RUNTIME;
  }
  return 0;
}

/* Collective: merge the per-rank files (and PARTS/prepared.h5) into OUT.tmp, every rank writing its share
 * of the rows (store.h sp_merge_parallel()); a shard run: rank 0 packs them into one shard file (issue 8). Rank 0 then
 * renames OUT.tmp to the output (place_output), every rank removes its part (remove_parts), rank 0 reads the
 * totals back (not for a shard). c->merge_s, c->wall on rank 0, c->merge_st on every rank.
 * Returns 0; on rank 0 SP_EXIT_RUNTIME when the tasks stopped (report_stopped), or the merge, rename or
 * read-back failed (printed; OUT.tmp removed, the parts kept). */
static int phase_merge(struct run_ctx *c) {
  int prepared = c->prep.has_prepared;
  MPI_Bcast(&prepared, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (c->run_rc) return c->rank == 0 ? report_stopped(c) : 0; /* run_rc is agreed: every rank returns here */
  const sp_job *job = &c->job;
  int P = c->n_ranks, status = 0;
  sp_err err = {0};
  double t_m0 = MPI_Wtime();
  size_t n_inputs = 0;
  char **inputs = merge_inputs(c, prepared, &n_inputs);
  char tmp[RUN_PATH_CAP];
  sp_out_sibling(job->output, SP_SIB_TMP, tmp, sizeof tmp);
  char created[32];
  run_iso_now(created, sizeof created);
  char ccd_abs[PATH_MAX]; /* /run@ccd_path: absolute, so `sitepack survey OUT.h5` finds it from any directory */
  const char *ccd_rec = job->ccd && realpath(job->ccd, ccd_abs) ? ccd_abs : job->ccd;
  sp_merge_info info = {.tool_version = SP_VERSION, .git_sha = SP_GIT_SHA, .job_json = job->json,
                        .ccd_path = ccd_rec, .ccd_sha256 = c->ccd_sha, .ccd_blocks = (int64_t)c->ccd_blocks,
                        .created = created,
                        .n_ranks = P, .wall_seconds = c->g.t_run};
  int mrc = inputs ? 0 : SP_E_NOMEM;
  MPI_Allreduce(MPI_IN_PLACE, &mrc, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (!mrc && job->shard_count > 0) { /* issue 8 (slurm): one shard file for `sitepack merge` */
    if (c->rank == 0) mrc = sp_shard_pack(tmp, (const char *const *)inputs, n_inputs, &info, &c->shard, &err);
  } else if (!mrc) {
    MPI_Comm world = MPI_COMM_WORLD;
    sp_merge_comm mc;
    sp_merge_comm_mpi(&world, &mc);
    mrc = sp_merge_parallel(&mc, tmp, (const char *const *)inputs, n_inputs, &info, &c->merge_st, &err);
  }
  gather_merge_stats(c);
  if (c->rank == 0) status = place_output(c, tmp, mrc, &err);
  MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (!status) remove_parts(c, inputs, n_inputs);
  free_inputs(inputs, n_inputs);
  if (c->rank != 0) return 0;
  double t0 = MPI_Wtime();
  if (!status && job->shard_count == 0) status = read_back_totals(c);
  c->readback_s = MPI_Wtime() - t0;
  c->merge_s = MPI_Wtime() - t_m0;
  c->wall = MPI_Wtime() - c->t_start;
  return status;
}

/* Rank 0: the schedule's figures and the run report (report.c). Returns 0 or SP_EXIT_RUNTIME. */
static int phase_report(struct run_ctx *c) {
  return c->rank == 0 ? run_report_write(c) : 0;
}

/* Rank 0: the summary on stdout (report.c). Returns 0. */
static int phase_summary(struct run_ctx *c) {
  if (c->rank == 0) run_summary_print(c);
  return 0;
}

/* ---- the run -------------------------------------------------------------------------------- */

/* The run, in order (DESIGN.md "The run, end to end"). A new step is one row here and one phase_*()
 * function above: it returns its rank's exit status, agree_status() follows it on every rank. */
static const struct run_phase {
  const char *name;
  int (*run)(struct run_ctx *c);
} run_phases[] = {
  {"check output", phase_check_output}, /* rank 0: output, report paths: before any work */
  {"lock", phase_lock},                 /* rank 0: OUT.lock, one run per output */
  {"earlier parts", run_phase_check_parts}, /* rank 0: finished tasks in OUT.parts need --resume or --force */
  {"CCD exists", phase_ccd_exists},     /* rank 0: a CCD that cannot be opened, before the scan */
  {"scan", phase_scan},                 /* rank 0: input files, sizes */
  {"share files", run_phase_share_files},   /* all: the file list */
  {"file heads", run_phase_file_heads},   /* all: gzip flag, entry id of every P-th file */
  {"CCD", phase_ccd_open},              /* all: one CCD text per node */
  {"CCD check", phase_ccd_check},       /* rank 0: it is a CCD */
  {"shard plan", phase_shard_plan},     /* rank 0: a shard's share of the files */
  {"resume", phase_resume},             /* rank 0: duplicates, --resume, job stamp; all: the hashing */
  {"per-rank output", phase_rank_output}, /* all: worker, PARTS/rank-NNNNN.h5 */
  {"plan A", phase_plan_a},             /* rank 0: LPT plan of every file (part 0) */
  {"phase A", phase_run_a},             /* all: run it with work stealing */
  {"plan B", phase_plan_b},             /* rank 0: the other parts of split files */
  {"phase B", phase_run_b},             /* all: run them */
  {"close output", phase_close_output}, /* all: close the per-rank files */
  {"gather", phase_gather},             /* all -> rank 0: statistics, counters, timings, failures */
  {"merge", phase_merge},               /* all: one merged file, by input path, each rank its rows */
  {"report", phase_report},             /* rank 0: the run report (JSON) */
  {"summary", phase_summary},           /* rank 0: the human summary */
};

/* glibc's malloc for a run (issue 28): blocks up to 64 MiB from the heap, and up to 128 MiB of free heap kept
 * instead of returned, so that each file's text, inflated text and model arrays reuse pages that are mapped
 * already (the default maps a fresh region for every block above its threshold and returns it on free: a page
 * fault per 4 KiB of every file, expensive on a virtual machine). Measured (-np 1 on the corpus, 4 alternated
 * pairs, load 3-5): run wall median 1.62 -> 1.40 s, peak RSS 44.2 -> 46.1 MB. Other C libraries: unchanged. */
static void run_malloc_policy(void) {
#if defined(__GLIBC__) && defined(M_MMAP_THRESHOLD) && defined(M_TRIM_THRESHOLD)
  mallopt(M_MMAP_THRESHOLD, 64 << 20);
  mallopt(M_TRIM_THRESHOLD, 128 << 20);
#endif
}

int sp_cmd_run(int argc, char **argv) {
  run_malloc_policy();
  int provided;
  MPI_Init_thread(NULL, NULL, MPI_THREAD_SINGLE, &provided);
  run_die_with_launcher(); /* issue 16 item 8: no orphan ranks after kill -9 of mpirun */
  struct run_ctx c;
  int status = run_ctx_open(&c, argc, argv);
  if (status != 0) {
    MPI_Finalize();
    return status < 0 ? SP_EXIT_OK : status;
  }
  for (size_t i = 0; status == 0 && i < sizeof run_phases / sizeof *run_phases; i++) {
    double t0 = MPI_Wtime();
    status = agree_status(run_phases[i].run(&c));
    if (c.n_steps < sizeof c.steps / sizeof *c.steps)
      c.steps[c.n_steps++] = (struct run_step){run_phases[i].name, MPI_Wtime() - t0};
  }
  /* a run that could not start leaves no empty parts directory behind (rmdir only removes it empty) */
  if (c.rank == 0 && status == SP_EXIT_USAGE) rmdir(c.parts_dir);
  int h5_broken = c.h5_broken;
  run_ctx_free(&c);
  if (h5_broken) {
    /* HDF5 1.10 keeps a file whose close failed half-open and crashes closing it again at its shutdown
       (inside MPI_Finalize): leave without it; the file's finished tasks are flushed already */
    fflush(stdout);
    fflush(stderr);
    _exit(SP_EXIT_RUNTIME);
  }
  MPI_Finalize();
  return status;
}

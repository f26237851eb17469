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
 * the other ranks. A failure of the tasks themselves is no exit status but c->sched.run_rc: the run goes on
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
static void say_if_disk_full(const struct run_env *e) {
  double avail = 0;
  if (sp_out_disk_full(e->parts_dir, &avail))
    fprintf(stderr, "sitepack run: no space left on device: %.0f bytes free on the file system of %s\n", avail,
            e->parts_dir);
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
  MPI_Comm_rank(MPI_COMM_WORLD, &c->env.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &c->env.n_ranks);
  c->env.t_start = MPI_Wtime();
  c->env.lock_fd = -1;
  int status = 0; /* 0 go on, -1 help printed, else exit code */
  if (c->env.rank == 0) status = sp_job_from_args(argc, argv, &c->env.job);
  MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (status != 0) {
    if (c->env.rank == 0) sp_job_free(&c->env.job);
    return status;
  }
  if (c->env.rank != 0 && sp_job_from_args(argc, argv, &c->env.job) != 0) {
    fprintf(stderr, "sitepack: rank %d cannot read the job\n", c->env.rank);
    MPI_Abort(MPI_COMM_WORLD, SP_EXIT_USAGE);
  }
  c->env.tty = isatty(2);
  run_signals_install(); /* issue 16 item 11: SIGINT/SIGTERM stop the tasks at a task boundary */
  c->env.rng = 2654435761u * (unsigned)(c->env.rank + 1);
  const char *d = getenv("SITEPACK_TEST_TASK_DELAY_MS");
  c->env.delay_ms = d ? atoi(d) : 0;
  if (c->env.delay_ms < 0 || c->env.delay_ms > 10000) c->env.delay_ms = 0;
  sp_result_init(&c->out.result);
  sp_cost_model_default(&c->env.model);
  sp_out_sibling(c->env.job.output, SP_SIB_PARTS, c->env.parts_dir, sizeof c->env.parts_dir);
  return 0;
}

/* Free everything @p c owns (a field added to struct run_ctx is freed here). Collective: the shared
 * CCD's close frees its MPI window. A writer still open (the run stopped before phase_close_output) is
 * closed without error report. */
static void run_ctx_free(struct run_ctx *c) {
  if (c->out.writer) sp_rank_writer_close(c->out.writer, NULL);
  run_unlock_output(c->env.job.output, c->env.lock_fd);
  c->env.lock_fd = -1;
  sp_worker_free(c->out.worker);
  sp_result_free(&c->out.result);
  sp_ccd_shared_close(c->ccd.shared); /* collective (MPI_Win_free); closes c->ccd.ccd */
  free(c->acct.fail_lines);
  free(c->acct.samples);
  free(c->sched.tasks);
  free(c->sched.parts_found);
  free(c->sched.ligs_found);
  free(c->sched.atoms_found);
  if (c->env.rank == 0) {
    free(c->files.paths); /* the strings belong to scan */
    sp_scan_list_free(&c->files.scan);
  } else if (c->files.paths) {
    if (c->files.n) free(c->files.paths[0]); /* the blob */
    free(c->files.paths);
  }
  free(c->files.bytes);
  free(c->files.gz);
  free(c->files.entry_key);
  free(c->files.entry_first);
  free(c->sched.cost_a);
  free(c->sched.weight_a);
  free(c->sched.weight_b);
  sp_plan_free(&c->sched.plan_a);
  sp_plan_free(&c->sched.plan_b);
  sp_shard_meta_free(&c->resume.shard);
  sp_prepare_out_free(&c->resume.prep);
  struct run_gathered *g = &c->g;
  free(g->all);
  free(g->all_a);
  free(g->all_b);
  free(g->rss_kib);
  free(g->bpa);
  free(g->rank_bytes);
  free(g->fails);
  free(g->samples);
  free(c->fig.merge_all);
  sp_job_free(&c->env.job);
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
static int phase_check_output(const struct run_env *e) {
  if (e->rank != 0) return 0;
  const sp_job *job = &e->job;
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
static int phase_lock(struct run_env *e) {
  return e->rank == 0 ? run_lock_output(e->job.output, &e->lock_fd) : 0;
}

/* Rank 0: scan the input (io.h sp_scan_dir) into fl->scan, create the parts directory, fill fl->paths,
 * fl->bytes [fl->n] (owned by fl; the path strings by fl->scan; the gzip flags and entry ids:
 * run_phase_file_heads). A single file as input: its
 * directory becomes job.input. Returns 0; SP_EXIT_USAGE (no such input, no structure files) or
 * SP_EXIT_RUNTIME (parts directory, out of memory), printed. */
static int phase_scan(struct run_env *e, struct run_files *fl) {
  if (e->rank != 0) return 0;
  sp_job *job = &e->job;
  sp_err err = {0};
  struct stat sb;
  if (sp_scan_dir(job->input, &fl->scan, &err)) {
    fprintf(stderr, "sitepack run: input %s: %s\n", job->input, err.msg);
    return SP_EXIT_USAGE;
  } else if (fl->scan.n == 0) {
    fprintf(stderr, "sitepack run: no structure files (.cif .mmcif .pdb .ent, optionally .gz) under %s\n",
            job->input);
    return SP_EXIT_USAGE;
  } else if (sp_out_mkdir_p(e->parts_dir)) {
    fprintf(stderr, "sitepack run: cannot create %s: %s\n", e->parts_dir, strerror(errno));
    return SP_EXIT_RUNTIME;
  }
  /* scan of a single file: its root is its directory */
  if (stat(job->input, &sb) == 0 && S_ISREG(sb.st_mode)) {
    char *slash = strrchr(job->input, '/');
    if (slash) *slash = 0;
    else strcpy(job->input, ".");
  }
  fl->n = fl->scan.n;
  fl->paths = calloc(fl->n, sizeof *fl->paths);
  fl->bytes = calloc(fl->n, sizeof *fl->bytes);
  if (!fl->paths || !fl->bytes) {
    fprintf(stderr, "sitepack run: out of memory\n");
    return SP_EXIT_RUNTIME;
  }
  for (size_t i = 0; i < fl->n; ++i) {
    fl->paths[i] = fl->scan.files[i].path;
    fl->bytes[i] = fl->scan.files[i].bytes;
  }
  if (!job->quiet)
    fprintf(stderr, "sitepack %s: %zu files under %s, %d rank%s\n", SP_VERSION, fl->n, job->input, e->n_ranks,
            e->n_ranks == 1 ? "" : "s");
  return 0;
}

/* Collective: the CCD (issue 4, ccd2): one copy of the text per node (ccd_shared.h: a mapped plain
 * file, or a gzip file inflated once per node into an MPI shared window); index and cache per rank.
 * cc->shared (owned) and cc->ccd; cc->sha = SHA-256 of the file as stored (provenance). No CCD in
 * the job: nothing. Returns 0 or SP_EXIT_USAGE (the open failed on this rank; rank 0 prints why). */
static int phase_ccd_open(const struct run_env *e, struct run_ccd *cc) {
  if (!e->job.ccd) return 0;
  sp_err err = {0};
  int rc = sp_ccd_open_shared(MPI_COMM_WORLD, e->job.ccd, &cc->shared, cc->sha, &err);
  if (rc && e->rank == 0) sp_opt_file_error("run", "CCD", e->job.ccd, err.msg, NULL); /* the path once */
  cc->ccd = sp_ccd_shared_get(cc->shared);
  return rc ? SP_EXIT_USAGE : 0;
}

/* Rank 0: a CCD's blocks are components: data_XXX with _chem_comp.id XXX. Anything else (a structure
 * file given as --ccd by mistake) would make every comp_id "not in CCD": refuse it. Returns 0 or
 * SP_EXIT_USAGE (printed). */
static int phase_ccd_check(const struct run_env *e, struct run_ccd *cc) {
  if (e->rank != 0 || !cc->ccd) return 0;
  const sp_ccd_index *ix = sp_ccd_get_index(cc->ccd);
  cc->blocks = ix->n; /* issue 16: said in the summary, the report and /run@ccd_blocks */
  char dup[SP_ID_LEN];
  cc->duplicates = sp_ccd_duplicates(cc->ccd, dup);
  if (cc->duplicates) /* the CCD's warning, with its other messages (stderr), the summary and the report */
    fprintf(stderr, "sitepack run: warning: CCD %s: %zu data block%s repeat%s the id of a later block (first: data_%s); "
            "the last block of each id is used\n", e->job.ccd, cc->duplicates, cc->duplicates == 1 ? "" : "s",
            cc->duplicates == 1 ? "s" : "", dup);
  sp_err e2 = {0};
  const sp_component *first = ix->n ? sp_ccd_get(cc->ccd, ix->ids[0], &e2) : NULL;
  if (!first || strcmp(first->id, ix->ids[0])) {
    fprintf(stderr, "sitepack run: CCD %s: its first block data_%s is not a chemical component (%s)\n", e->job.ccd,
            ix->n ? ix->ids[0] : "", first ? "_chem_comp.id differs from the block name" : e2.msg);
    return SP_EXIT_USAGE;
  }
  return 0;
}

/* Rank 0, before the scan: a CCD that cannot be opened is refused at once, with the words the CCD step
 * would use, instead of after a scan of the whole input (minutes on the archive). The CCD step opens it
 * again and checks what it holds. Returns 0 or SP_EXIT_USAGE (printed). */
static int phase_ccd_exists(const struct run_env *e) {
  if (e->rank != 0 || !e->job.ccd) return 0;
  int fd = open(e->job.ccd, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    char msg[300];
    snprintf(msg, sizeof msg, "cannot open: %s", strerror(errno));
    sp_opt_file_error("run", "CCD", e->job.ccd, msg, NULL);
    return SP_EXIT_USAGE;
  }
  close(fd);
  return 0;
}

/* Rank 0, issue 9 (reliability): duplicates, --resume and the job stamp (app/resume.h; files hashed through
 * @p hasher) into r->prep
 * (owned), before any per-rank file of this run is created. A shard run (never --resume: a failed
 * shard is rerun whole, docs/slurm.md) decides the duplicates on the global sorted list too (issue 16
 * item 5) and writes the rows of its own files (r->shard). Returns 0 or sp_run_prepare()'s exit
 * status (printed). */
static int prepare_files(struct run_env *e, const struct run_files *fl, const struct run_ccd *cc, struct run_resume *r,
                         const sp_hasher *hasher) {
  const sp_job *job = &e->job;
  const sp_prepare_out *prep = &r->prep;
  uint8_t *mine = NULL; /* [n] a shard's files */
  if (job->shard_count > 0) {
    if (!(mine = calloc(fl->n ? fl->n : 1, 1))) {
      fprintf(stderr, "sitepack run: out of memory (prepare)\n");
      return SP_EXIT_RUNTIME;
    }
    for (size_t k = 0; k < r->shard.n_assigned; k++) mine[r->shard.files[k]] = 1;
  }
  sp_prepare_entries ent = {fl->entry_first, (const char(*)[32])fl->entry_key, job->entries_first};
  int status = sp_run_prepare(job, e->parts_dir, fl->paths, fl->bytes, fl->n, cc->sha, mine, hasher, &ent, &r->prep);
  free(mine);
  /* issue 16 item 1: a failed write of prepared.h5 (a full disk) leaves HDF5 unable to close it: its
     shutdown would loop ("infinite loop closing library"); leave without it */
  if (status == SP_EXIT_RUNTIME) {
    e->h5_broken = 1;
    say_if_disk_full(e);
    char kept[3 * RUN_PATH_CAP];
    run_kept_words(e, FIX_HINT, kept, sizeof kept);
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
static int phase_resume(struct run_env *e, const struct run_files *fl, const struct run_ccd *cc, struct run_resume *r) {
  run_hash_share hs = {MPI_COMM_WORLD, e->job.input, fl->paths, fl->n};
  if (e->rank != 0) {
    run_hash_serve(&hs);
    return 0;
  }
  sp_hasher hasher = run_hasher(&hs);
  int status = prepare_files(e, fl, cc, r, &hasher);
  run_hash_stop(&hs);
  return status;
}

/* All ranks: this rank's worker and HDF5 file PARTS/rank-NNNNN.h5 (o->worker, o->writer), and the
 * phase A arrays s->parts_found, s->ligs_found, s->atoms_found [n] (all owned by o and s). Returns 0 or
 * SP_EXIT_RUNTIME (cannot create the file, out of memory; printed). */
static int phase_rank_output(const struct run_env *e, const struct run_files *fl, struct run_output *o,
                             struct run_sched *s) {
  sp_err err = {0};
  snprintf(o->part_path, sizeof o->part_path, "%s/rank-%05d.h5", e->parts_dir, e->rank);
  o->worker = sp_worker_new();
  o->writer = o->worker ? sp_rank_writer_open(o->part_path, &err) : NULL;
  size_t n1 = fl->n ? fl->n : 1;
  s->parts_found = calloc(n1, sizeof *s->parts_found);
  s->ligs_found = malloc(n1 * sizeof *s->ligs_found);
  s->atoms_found = malloc(n1 * sizeof *s->atoms_found);
  int status = 0;
  if (!o->writer) {
    fprintf(stderr, "sitepack: rank %d: cannot create %s: %s\n", e->rank, o->part_path, err.msg);
    status = SP_EXIT_RUNTIME;
  }
  if (!s->parts_found || !s->ligs_found || !s->atoms_found) {
    fprintf(stderr, "sitepack: rank %d: out of memory\n", e->rank);
    return SP_EXIT_RUNTIME;
  }
  for (size_t f = 0; f < fl->n; f++) s->ligs_found[f] = s->atoms_found[f] = -1;
  return status;
}

/* ---- the tasks: phase A, phase B ------------------------------------------------------------ */

/* Phase A: every file, as part 0 of a split that the file's own task decides after its survey
 * (pipeline.h sp_worker_process_first(); files under the size threshold never split). Phase B: parts 1..
 * of the files split in phase A; skipped (no barrier) when no file split. */

/* Rank 0: one part-0 task per file of the scan into s->tasks [s->n_tasks = fl->n] with its bytes-only cost
 * estimate (nothing is parsed yet) in s->cost_a, s->bytes_total their stored bytes (owned by s).
 * Returns 0 or SP_E_NOMEM. */
static int all_file_tasks(const struct run_env *e, const struct run_files *fl, struct run_sched *s) {
  free(s->tasks);
  free(s->cost_a);
  s->tasks = malloc((fl->n ? fl->n : 1) * sizeof *s->tasks);
  s->cost_a = malloc((fl->n ? fl->n : 1) * sizeof *s->cost_a);
  if (!s->tasks || !s->cost_a) return SP_E_NOMEM;
  s->bytes_total = 0;
  for (size_t f = 0; f < fl->n; f++) {
    s->tasks[f] = (sp_task_ref){(int64_t)f, 0, 1};
    s->cost_a[f] = sp_cost_estimate(&e->model, fl->bytes[f], fl->gz[f], -1, -1);
    s->bytes_total += (double)fl->bytes[f];
  }
  s->n_tasks = fl->n;
  return 0;
}

/* Rank 0, a shard run (issue 8, slurm): this shard's LPT share of the files over the N shards
 * (r->shard; s->tasks, s->cost_a keep its files, file_idx global), before the duplicates are decided
 * (phase_resume: on the global list, rows for this shard's files). Returns 0 or SP_EXIT_RUNTIME
 * (printed). */
static int phase_shard_plan(const struct run_env *e, const struct run_files *fl, const struct run_ccd *cc,
                            struct run_resume *r, struct run_sched *s) {
  const sp_job *job = &e->job;
  if (e->rank != 0 || job->shard_count == 0) return 0;
  sp_err err = {0};
  int prc = all_file_tasks(e, fl, s);
  if (prc) fprintf(stderr, "sitepack run: out of memory (tasks)\n");
  if (!prc) {
    prc = sp_shard_plan(job->shard_index, job->shard_count, fl->paths, fl->bytes, fl->gz, fl->n, job->json, cc->sha,
                        &job->split, s->tasks, s->cost_a, &s->n_tasks, &s->bytes_total, &r->shard, &err);
    if (prc) fprintf(stderr, "sitepack run: shard: %s\n", err.msg);
  }
  if (!prc && !job->quiet)
    fprintf(stderr, "sitepack: shard %d/%d: %zu of %zu files\n", job->shard_index, job->shard_count, s->n_tasks, fl->n);
  return prc ? SP_EXIT_RUNTIME : 0;
}

/* All ranks: s->n_big. Rank 0: phase A's tasks (s->tasks: every file, or a shard's share from
 * phase_shard_plan, less the files skipped by the resume step: resumed files and duplicates), their
 * bytes-only cost estimates (s->cost_a), the plan (s->plan_a, s->weight_a) and the progress totals;
 * all owned by s. Returns 0 or SP_EXIT_RUNTIME (printed). */
static int phase_plan_a(const struct run_env *e, const struct run_files *fl, const struct run_resume *r,
                        struct run_sched *s, struct run_progress *pr) {
  const sp_job *job = &e->job;
  s->n_big = 0;
  for (size_t f = 0; f < fl->n; f++)
    if (job->split.enabled && fl->bytes[f] >= job->split.min_bytes) s->n_big++;
  s->phase = 0;
  if (e->rank != 0) return 0;
  int prc = job->shard_count > 0 ? 0 : all_file_tasks(e, fl, s);
  double *cost_a = s->cost_a;
  if (!prc && r->prep.skip) { /* issue 9: resumed files and duplicates have their rows in prepared.h5 */
    size_t k = 0;
    for (size_t t = 0; t < s->n_tasks; t++) {
      if (r->prep.skip[s->tasks[t].file_idx]) {
        s->bytes_total -= (double)fl->bytes[s->tasks[t].file_idx];
        continue;
      }
      s->tasks[k] = s->tasks[t];
      cost_a[k++] = cost_a[t];
    }
    s->n_tasks = k;
  }
  pr->cost_total = 0;
  for (size_t t = 0; !prc && t < s->n_tasks; t++) pr->cost_total += cost_a[t];
  pr->tasks_total = (int64_t)s->n_tasks;
  pr->bytes_total = s->bytes_total;
  if (prc) fprintf(stderr, "sitepack run: out of memory (tasks)\n");
  if (!prc) prc = run_plan_tasks(s, fl, e->n_ranks, cost_a, &s->plan_a, &s->weight_a);
  return prc ? SP_EXIT_RUNTIME : 0;
}

/* Collective: run phase A (run_task.c); c->sched.st_a, c->sched.t_phase_a; c->sched.run_rc agreed over the ranks.
 * Returns 0 (a failed task stops the tasks through c->sched.run_rc, not the run). */
static int phase_run_a(struct run_ctx *c) {
  c->sched.run_rc = run_sched_tasks(c, &c->sched.plan_a, c->sched.weight_a, &c->sched.st_a, &c->sched.t_phase_a);
  MPI_Allreduce(MPI_IN_PLACE, &c->sched.run_rc, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  return 0;
}

/* Rank 0: phase B's tasks: the parts 1.. of every file split in phase A, from the same expansion as
 * the planner of any run (only large files have known ligands), into s->tasks with their plan
 * (s->plan_b, s->weight_b; owned by s); s->n_split, s->n_parts_added and the progress totals.
 * Returns 0 or SP_EXIT_RUNTIME: expansion failed, out of memory, a file whose split differs from
 * phase A's (it changed during the run); printed. */
static int plan_b_tasks(const struct run_env *e, const struct run_files *fl, struct run_sched *s,
                        struct run_progress *pr) {
  sp_err err = {0};
  pr->tasks_base = (int64_t)fl->n;
  pr->bytes_base = s->bytes_total;
  pr->cost_base = pr->cost_total;
  pr->time_base = s->t_phase_a;
  sp_task_ref *all_t = NULL;
  double *all_c = NULL, *cost_b = NULL;
  size_t n_all = 0;
  int prc = sp_tasks_expand(fl->n, fl->bytes, fl->gz, s->atoms_found, s->ligs_found, &e->job.split, &e->model, &all_t,
                            &all_c, &n_all, &err);
  if (prc) fprintf(stderr, "sitepack run: tasks: %s\n", err.msg);
  free(s->tasks);
  s->tasks = prc ? NULL : malloc((n_all ? n_all : 1) * sizeof *s->tasks);
  cost_b = prc ? NULL : malloc((n_all ? n_all : 1) * sizeof *cost_b);
  if (!prc && (!s->tasks || !cost_b)) prc = SP_E_NOMEM;
  size_t k = 0;
  for (size_t t = 0; !prc && t < n_all; t++) {
    size_t f = (size_t)all_t[t].file_idx;
    int found = s->parts_found[f] > 0 ? s->parts_found[f] : 1;
    if (all_t[t].n_parts != found) {
      fprintf(stderr, "sitepack run: %s changed during the run (split into %d, then %d parts)\n", fl->paths[f], found,
              all_t[t].n_parts);
      prc = SP_E_INVALID;
      break;
    }
    if (all_t[t].part == 0) continue; /* ran in phase A */
    if (all_t[t].part == 1) s->n_split++;
    s->n_parts_added++;
    s->tasks[k] = all_t[t];
    cost_b[k] = all_c[t];
    k++;
  }
  s->n_tasks = k;
  if (!prc && k) prc = run_plan_tasks(s, fl, e->n_ranks, cost_b, &s->plan_b, &s->weight_b);
  if (!prc) {
    pr->tasks_total = (int64_t)(fl->n + k);
    for (size_t t = 0; t < k; t++) pr->cost_total += cost_b[t];
  }
  free(all_t);
  free(all_c);
  free(cost_b);
  s->phase_b_ran = !prc && k > 0;
  return prc ? SP_EXIT_RUNTIME : 0;
}

/* Collective, when phase A completed and some file is large: the split decisions of phase A (from the
 * ranks that ran each large file), then rank 0 plans phase B (plan_b_tasks) and tells every rank
 * whether it runs (s->phase_b_ran). Returns 0 or rank 0's SP_EXIT_RUNTIME. */
static int phase_plan_b(const struct run_env *e, const struct run_files *fl, struct run_sched *s,
                        struct run_progress *pr) {
  if (s->run_rc || s->n_big == 0) return 0;
  MPI_Allreduce(MPI_IN_PLACE, s->parts_found, (int)fl->n, MPI_INT32_T, MPI_MAX, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, s->ligs_found, (int)fl->n, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, s->atoms_found, (int)fl->n, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
  int status = e->rank == 0 ? plan_b_tasks(e, fl, s, pr) : 0;
  MPI_Bcast(&s->phase_b_ran, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return status;
}

/* Collective, when phase B has tasks: run it (run_task.c); c->sched.st_b, c->sched.t_phase_b, c->sched.run_rc (this
 * rank's; agreed by phase_close_output). Returns 0. */
static int phase_run_b(struct run_ctx *c) {
  if (!c->sched.phase_b_ran) return 0;
  c->sched.phase = 1;
  c->sched.run_rc = run_sched_tasks(c, &c->sched.plan_b, c->sched.weight_b, &c->sched.st_b, &c->sched.t_phase_b);
  return 0;
}

/* Collective: close this rank's file (o->writer; a failed close, e.g. a full disk, sets e->h5_broken
 * and s->run_rc = SP_E_HDF5), then agree on s->run_rc. Returns 0. */
static int phase_close_output(struct run_env *e, struct run_output *o, struct run_sched *s) {
  sp_err err = {0};
  if (sp_rank_writer_close(o->writer, &err)) {
    fprintf(stderr, "sitepack: rank %d: closing %s: %s\n", e->rank, o->part_path, err.msg);
    if (!s->run_rc) s->run_rc = SP_E_HDF5;
    e->h5_broken = 1;
  }
  o->writer = NULL;
  /* issue 16 item 11: a signal that came after this rank's last task still stops the run before the merge */
  e->stop_signal = run_stop_signal();
  MPI_Allreduce(MPI_IN_PLACE, &e->stop_signal, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (e->stop_signal && !s->run_rc) s->run_rc = SP_E_INTERRUPTED;
  MPI_Allreduce(MPI_IN_PLACE, &s->run_rc, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  return 0;
}

/* ---- after the tasks ------------------------------------------------------------------------ */

/* Collective: gather per-rank statistics, counters, memory, task timings and failures into g on
 * rank 0 (owned by g), then g->t_run. Returns 0; out of memory on rank 0 aborts the run (MPI_Abort,
 * SP_EXIT_RUNTIME). */
static int phase_gather(const struct run_env *e, const struct run_output *o, const struct run_sched *s,
                        const struct run_acct *a, struct run_gathered *g) {
  int rank = e->rank, P = e->n_ranks;
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
  sp_sched_gather_stats(MPI_COMM_WORLD, &s->st_a, g->all_a, &err);
  sp_sched_gather_stats(MPI_COMM_WORLD, &s->st_b, g->all_b, &err);
  long my_rss = peak_rss_kib();
  MPI_Gather(&my_rss, 1, MPI_LONG, g->rss_kib, 1, MPI_LONG, 0, MPI_COMM_WORLD);
  /* bytes per atom of the in-memory model, for this rank's largest file */
  double my_bpa = o->worker ? sp_worker_max_bytes_per_atom(o->worker) : 0;
  MPI_Gather(&my_bpa, 1, MPI_DOUBLE, g->bpa, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  MPI_Gather(&a->bytes_done, 1, MPI_DOUBLE, g->rank_bytes, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  MPI_Reduce(a->counts, g->counts, C_N, MPI_INT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
  MPI_Reduce(a->work, g->work, W_N, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  MPI_Reduce(a->fail_by_class, g->by_class, SP_ERRCLASS_COUNT, MPI_INT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
  int my_len = (int)a->fail_len;
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
  MPI_Gatherv(a->fail_lines ? a->fail_lines : "", my_len, MPI_CHAR, g->fails, lens, displ, MPI_CHAR, 0,
              MPI_COMM_WORLD);
  /* task timings (S_N doubles per task) */
  int my_ns = (int)(a->n_samples * S_N);
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
  MPI_Gatherv(a->samples ? a->samples : (double *)&a->bytes_done, my_ns, MPI_DOUBLE, g->samples, lens, displ,
              MPI_DOUBLE, 0, MPI_COMM_WORLD);
  g->t_run = MPI_Wtime() - e->t_start;
  free(lens);
  free(displ);
  for (int i = 0; rank == 0 && i < P; ++i) {
    add_stats(&g->all[i], &g->all_a[i]);
    add_stats(&g->all[i], &g->all_b[i]);
    g->all[i].rank = i; /* a phase B that did not run has zeroed statistics, rank 0 too */
  }
  return 0;
}

/* Rank 0, issue 9: the tasks stopped (c->sched.run_rc): a failed write (a full disk, a quota) leaves
 * resumable state: every task listed in the per-rank files is complete, and nothing is written under
 * the final name. Says so (and how much space is left). Issue 16 item 11: stopped by a signal, says
 * how many files are done. Returns SP_EXIT_RUNTIME, or 128 + the signal (130 SIGINT, 143 SIGTERM). */
static int report_stopped(const struct run_ctx *c) {
  char kept[3 * RUN_PATH_CAP];
  if (c->sched.run_rc == SP_E_INTERRUPTED) {
    int64_t done = c->g.counts[C_FILES_OK] + c->g.counts[C_FILES_FAILED] + (int64_t)c->resume.prep.n_resumed +
                   (int64_t)c->resume.prep.n_duplicates + (int64_t)c->resume.prep.n_repeated;
    size_t total = c->env.job.shard_count > 0 ? c->resume.shard.n_assigned : c->files.n;
    run_kept_words(&c->env, "", kept, sizeof kept);
    fprintf(stderr, "sitepack run: interrupted (%s) after %lld of %zu files; no output written; %s\n",
            c->env.stop_signal == SIGINT ? "SIGINT" : "SIGTERM", (long long)done, total, kept);
    return 128 + (c->env.stop_signal ? c->env.stop_signal : SIGTERM);
  }
  say_if_disk_full(&c->env);
  run_kept_words(&c->env, FIX_HINT, kept, sizeof kept);
  fprintf(stderr, "sitepack run: stopped (%s): no output written; %s\n", sp_errclass_name(c->sched.run_rc), kept);
  return SP_EXIT_RUNTIME;
}

/* Rank 0: the summary and the report count the whole output (tasks resumed from an earlier attempt
 * and duplicates included), read back from the merged file into g (counts, by_class, fails).
 * Returns 0 or SP_EXIT_RUNTIME (printed). */
static int read_back_totals(const struct run_env *e, struct run_gathered *g) {
  sp_err err = {0};
  sp_output_totals tot;
  int status = 0;
  if (sp_output_totals_read(e->job.output, &tot, &err) == 0) {
    g->counts[C_FILES_OK] = tot.n_ok;
    g->counts[C_FILES_FAILED] = tot.n_failed;
    g->counts[C_FILES_WARNED] = tot.n_with_warnings;
    g->counts[C_LIGANDS] = tot.n_ligands;
    g->counts[C_SITES] = tot.n_sites;
    g->counts[C_SITE_ATOMS] = tot.n_site_atoms;
    memcpy(g->by_class, tot.by_class, sizeof tot.by_class);
    free(g->fails);
    g->fails = tot.failures;
    g->n_comps = tot.n_components; /* issue 36 item 5 */
    g->n_comps_no_ccd = tot.n_not_in_ccd;
    memcpy(g->comps_no_ccd, tot.not_in_ccd_ids, sizeof g->comps_no_ccd);
    tot.failures = NULL;
  } else {
    fprintf(stderr, "sitepack run: cannot read back %s: %s\n", e->job.output, err.msg);
    status = SP_EXIT_RUNTIME;
  }
  sp_output_totals_free(&tot);
  return status;
}

/* The merge's inputs: PARTS/rank-NNNNN.h5 of every rank, then PARTS/prepared.h5 when @p prepared
 * (issue 9: resumed tasks, duplicates' rows). *n set; NULL when out of memory. Free with free_inputs(). */
static char **merge_inputs(const struct run_env *e, int prepared, size_t *n) {
  int P = e->n_ranks;
  char **inputs = calloc((size_t)P + 1, sizeof *inputs);
  *n = (size_t)P + (prepared ? 1 : 0);
  for (size_t i = 0; inputs && i < *n; ++i) {
    if (!(inputs[i] = malloc(RUN_PATH_CAP))) {
      for (size_t k = 0; k < i; k++) free(inputs[k]);
      free(inputs);
      return NULL;
    }
    if (i < (size_t)P) snprintf(inputs[i], RUN_PATH_CAP, "%s/rank-%05zu.h5", e->parts_dir, i);
    else snprintf(inputs[i], RUN_PATH_CAP, "%s/prepared.h5", e->parts_dir);
  }
  return inputs;
}

static void free_inputs(char **inputs, size_t n) {
  for (size_t i = 0; inputs && i < n; ++i) free(inputs[i]);
  free(inputs);
}

/* Collective: every rank's merge statistics to rank 0 (fig->merge_all, owned). */
static void gather_merge_stats(const struct run_env *e, struct run_figures *fig) {
  if (e->rank == 0) fig->merge_all = calloc((size_t)e->n_ranks, sizeof *fig->merge_all);
  MPI_Gather(&fig->merge_st, (int)sizeof fig->merge_st, MPI_BYTE, fig->merge_all, (int)sizeof fig->merge_st, MPI_BYTE,
             0, MPI_COMM_WORLD);
}

/* Collective, once the output is in place: the parts removed (unless --keep-parts), each rank its own
 * per-rank file (removing a large file costs about 0.1-0.3 s per GB here), then rank 0 prepared.h5, the job
 * stamp and the directory. */
static void remove_parts(const struct run_env *e, char **inputs, size_t n_inputs) {
  if (e->job.keep_parts) return;
  if ((size_t)e->rank < n_inputs) remove(inputs[e->rank]);
  MPI_Barrier(MPI_COMM_WORLD);
  if (e->rank != 0) return;
  for (size_t i = (size_t)e->n_ranks; i < n_inputs; ++i) remove(inputs[i]);
  char stamp[RUN_PATH_CAP];
  snprintf(stamp, sizeof stamp, "%s/job.txt", e->parts_dir);
  remove(stamp);
  rmdir(e->parts_dir);
}

/* Rank 0, after the merge into @p tmp: a failure said (issue 16 item 1: the parts are kept, the words of
 * a stop in the tasks, no HDF5 shutdown), or @p tmp renamed to the output. Returns 0 or SP_EXIT_RUNTIME. */
static int place_output(struct run_env *e, const char *tmp, int mrc, const sp_err *err) {
  if (mrc) {
    remove(tmp);
    say_if_disk_full(e);
    char kept[3 * RUN_PATH_CAP];
    run_kept_words(e, FIX_HINT, kept, sizeof kept);
    fprintf(stderr, "sitepack run: merge failed (%s: %s): no output written; %s\n", sp_errclass_name(mrc), err->msg,
            kept);
    e->h5_broken = 1; /* HDF5 cannot close the half-written file: its shutdown would crash */
    return SP_EXIT_RUNTIME;
  }
  if (rename(tmp, e->job.output)) {
    fprintf(stderr, "sitepack run: cannot rename %s to %s: %s\n", tmp, e->job.output, strerror(errno));
    return SP_EXIT_RUNTIME;
  }
  return 0;
}

/* Collective: merge the per-rank files (and PARTS/prepared.h5) into OUT.tmp, every rank writing its share
 * of the rows (store.h sp_merge_parallel()); a shard run: rank 0 packs them into one shard file (issue 8). Rank 0 then
 * renames OUT.tmp to the output (place_output), every rank removes its part (remove_parts), rank 0 reads the
 * totals back (not for a shard). c->fig.merge_s, c->fig.wall on rank 0, c->fig.merge_st on every rank.
 * Returns 0; on rank 0 SP_EXIT_RUNTIME when the tasks stopped (report_stopped), or the merge, rename or
 * read-back failed (printed; OUT.tmp removed, the parts kept). */
static int phase_merge(struct run_ctx *c) {
  int prepared = c->resume.prep.has_prepared;
  MPI_Bcast(&prepared, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (c->sched.run_rc) return c->env.rank == 0 ? report_stopped(c) : 0; /* run_rc is agreed: every rank returns here */
  const sp_job *job = &c->env.job;
  int P = c->env.n_ranks, status = 0;
  sp_err err = {0};
  double t_m0 = MPI_Wtime();
  size_t n_inputs = 0;
  char **inputs = merge_inputs(&c->env, prepared, &n_inputs);
  char tmp[RUN_PATH_CAP];
  sp_out_sibling(job->output, SP_SIB_TMP, tmp, sizeof tmp);
  char created[32];
  run_iso_now(created, sizeof created);
  char ccd_abs[PATH_MAX]; /* /run@ccd_path: absolute, so `sitepack survey OUT.h5` finds it from any directory */
  const char *ccd_rec = job->ccd && realpath(job->ccd, ccd_abs) ? ccd_abs : job->ccd;
  sp_merge_info info = {.tool_version = SP_VERSION, .git_sha = SP_GIT_SHA, .job_json = job->json,
                        .ccd_path = ccd_rec, .ccd_sha256 = c->ccd.sha, .ccd_blocks = (int64_t)c->ccd.blocks,
                        .created = created,
                        .n_ranks = P, .wall_seconds = c->g.t_run};
  int mrc = inputs ? 0 : SP_E_NOMEM;
  MPI_Allreduce(MPI_IN_PLACE, &mrc, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (!mrc && job->shard_count > 0) { /* issue 8 (slurm): one shard file for `sitepack merge` */
    if (c->env.rank == 0)
      mrc = sp_shard_pack(tmp, (const char *const *)inputs, n_inputs, &info, &c->resume.shard, &err);
  } else if (!mrc) {
    MPI_Comm world = MPI_COMM_WORLD;
    sp_merge_comm mc;
    sp_merge_comm_mpi(&world, &mc);
    mrc = sp_merge_parallel(&mc, tmp, (const char *const *)inputs, n_inputs, &info, &c->fig.merge_st, &err);
  }
  gather_merge_stats(&c->env, &c->fig);
  if (c->env.rank == 0) status = place_output(&c->env, tmp, mrc, &err);
  MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (!status) remove_parts(&c->env, inputs, n_inputs);
  free_inputs(inputs, n_inputs);
  if (c->env.rank != 0) return 0;
  double t0 = MPI_Wtime();
  if (!status && job->shard_count == 0) status = read_back_totals(&c->env, &c->g);
  c->fig.readback_s = MPI_Wtime() - t0;
  c->fig.merge_s = MPI_Wtime() - t_m0;
  c->fig.wall = MPI_Wtime() - c->env.t_start;
  return status;
}

/* Rank 0: the schedule's figures and the run report (report.c). Returns 0 or SP_EXIT_RUNTIME. */
static int phase_report(struct run_ctx *c) {
  return c->env.rank == 0 ? run_report_write(c) : 0;
}

/* Rank 0: the summary on stdout (report.c). Returns 0. */
static int phase_summary(struct run_ctx *c) {
  if (c->env.rank == 0) run_summary_print(c);
  return 0;
}

/* ---- the run -------------------------------------------------------------------------------- */

/* Each phase over the run's context: the groups of app/run_ctx.h that it takes (const: read only). */
static int on_check_output(struct run_ctx *c) { return phase_check_output(&c->env); }
static int on_lock(struct run_ctx *c) { return phase_lock(&c->env); }
static int on_check_parts(struct run_ctx *c) { return run_phase_check_parts(&c->env); }
static int on_ccd_exists(struct run_ctx *c) { return phase_ccd_exists(&c->env); }
static int on_scan(struct run_ctx *c) { return phase_scan(&c->env, &c->files); }
static int on_share_files(struct run_ctx *c) { return run_phase_share_files(&c->env, &c->files); }
static int on_file_heads(struct run_ctx *c) { return run_phase_file_heads(&c->env, &c->files); }
static int on_ccd_open(struct run_ctx *c) { return phase_ccd_open(&c->env, &c->ccd); }
static int on_ccd_check(struct run_ctx *c) { return phase_ccd_check(&c->env, &c->ccd); }
static int on_shard_plan(struct run_ctx *c) {
  return phase_shard_plan(&c->env, &c->files, &c->ccd, &c->resume, &c->sched);
}
static int on_resume(struct run_ctx *c) { return phase_resume(&c->env, &c->files, &c->ccd, &c->resume); }
static int on_rank_output(struct run_ctx *c) { return phase_rank_output(&c->env, &c->files, &c->out, &c->sched); }
static int on_plan_a(struct run_ctx *c) { return phase_plan_a(&c->env, &c->files, &c->resume, &c->sched, &c->prog); }
static int on_plan_b(struct run_ctx *c) { return phase_plan_b(&c->env, &c->files, &c->sched, &c->prog); }
static int on_close_output(struct run_ctx *c) { return phase_close_output(&c->env, &c->out, &c->sched); }
static int on_gather(struct run_ctx *c) { return phase_gather(&c->env, &c->out, &c->sched, &c->acct, &c->g); }

/* The run, in order (DESIGN.md "The run, end to end"). A new step is one row here, one phase_*() function
 * above that takes the groups it touches, and its on_*() line: it returns its rank's exit status,
 * agree_status() follows it on every rank. The tasks (run_task.c), the merge, the report and the summary
 * take the whole context: they read every group. */
static const struct run_phase {
  const char *name;
  int (*run)(struct run_ctx *c);
} run_phases[] = {
  {"check output", on_check_output},    /* rank 0: output, report paths: before any work */
  {"lock", on_lock},                    /* rank 0: OUT.lock, one run per output */
  {"earlier parts", on_check_parts},    /* rank 0: finished tasks in OUT.parts need --resume or --force */
  {"CCD exists", on_ccd_exists},        /* rank 0: a CCD that cannot be opened, before the scan */
  {"scan", on_scan},                    /* rank 0: input files, sizes */
  {"share files", on_share_files},      /* all: the file list */
  {"file heads", on_file_heads},        /* all: gzip flag, entry id of every P-th file */
  {"CCD", on_ccd_open},                 /* all: one CCD text per node */
  {"CCD check", on_ccd_check},          /* rank 0: it is a CCD */
  {"shard plan", on_shard_plan},        /* rank 0: a shard's share of the files */
  {"resume", on_resume},                /* rank 0: duplicates, --resume, job stamp; all: the hashing */
  {"per-rank output", on_rank_output},  /* all: worker, PARTS/rank-NNNNN.h5 */
  {"plan A", on_plan_a},                /* rank 0: LPT plan of every file (part 0) */
  {"phase A", phase_run_a},             /* all: run it with work stealing */
  {"plan B", on_plan_b},                /* rank 0: the other parts of split files */
  {"phase B", phase_run_b},             /* all: run them */
  {"close output", on_close_output},    /* all: close the per-rank files */
  {"gather", on_gather},                /* all -> rank 0: statistics, counters, timings, failures */
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
    if (c.fig.n_steps < sizeof c.fig.steps / sizeof *c.fig.steps)
      c.fig.steps[c.fig.n_steps++] = (struct run_step){run_phases[i].name, MPI_Wtime() - t0};
  }
  /* a run that could not start leaves no empty parts directory behind (rmdir only removes it empty) */
  if (c.env.rank == 0 && status == SP_EXIT_USAGE) rmdir(c.env.parts_dir);
  int h5_broken = c.env.h5_broken;
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

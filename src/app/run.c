/* `sitepack run`: the whole run under MPI (DESIGN.md "The run, end to end").
 *
 *   rank 0  scan input, open the CCD, estimate costs (cost model, sched.h)
 *   all     open the CCD; phase A: every file, each large one (>= split.min_bytes) running as
 *           part 0 of a split that its own task decides after the survey; phase B (only when some
 *           file split): the remaining parts. Each phase is one LPT plan run with work stealing
 *           (sched.h); every task goes through the worker stages (task.h) into this rank's HDF5
 *           file (store.h)
 *   rank 0  merge the per-rank files (ordered by input path), fit the cost model to the measured
 *           task times, write the report, summarise
 */
#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include "app/app.h"
#include "app/cmd_merge.h"
#include "app/resume.h"
#include "sitepack/ccd.h"
#include "sitepack/ccd_shared.h"
#include "sitepack/io.h"
#include "sitepack/sched.h"
#include "sitepack/store.h"
#include "sitepack/task.h"
#include "sitepack/version.h"

/* Per-rank counters reduced to rank 0 for the summary and the report. */
enum { C_FILES_OK, C_FILES_FAILED, C_LIGANDS, C_SITES, C_SITE_ATOMS, C_ATOMS, C_BYTES, C_TEXT_BYTES, C_N };

/* One measured task (this rank's), for the cost fit and the makespan bound: doubles
   {phase, task, seconds, bytes, gzip, atoms, ligands, n_parts} */
enum { S_PHASE, S_TASK, S_SECONDS, S_BYTES, S_GZIP, S_ATOMS, S_LIGANDS, S_PARTS, S_N };

typedef struct run_ctx {
  const sp_job *job;
  int rank;
  char **paths;          /* [n] relative paths, sorted */
  int64_t *bytes;        /* [n] stored sizes */
  size_t n;
  int phase;             /* 0: A (large files, part 0 with the split decided), 1: B */
  sp_task_ref *tasks;    /* [n_tasks] tasks of the current phase (every rank) */
  size_t n_tasks;
  int32_t *parts_found;  /* [n] phase A: n_parts decided for each file this rank ran (0 = not run here) */
  int64_t *ligs_found;   /* [n] phase A: ligands of those files */
  int64_t *atoms_found;  /* [n] phase A: atoms of those files */
  const sp_cost_model *model; /* the planner's constants (also the split's cost guard) */
  sp_ccd *ccd;
  sp_worker *worker;
  sp_result result;
  sp_rank_writer *writer;
  int64_t counts[C_N];
  int64_t fail_by_class[SP_ERRCLASS_COUNT];
  char *fail_lines;      /* "path\tclass\tmessage\n" for each failed file of this rank */
  size_t fail_len, fail_cap;
  double *samples;       /* [n_samples][S_N] */
  size_t n_samples, cap_samples;
  double bytes_done;     /* stored bytes of the tasks this rank ran (a part: bytes / n_parts) */
  int delay_ms;          /* test hook SITEPACK_TEST_TASK_DELAY_MS */
  unsigned rng;
  int tty;
  double last_line;
  /* progress over both phases (rank 0) */
  int64_t prog_tasks_base, prog_tasks_total;
  double prog_bytes_base, prog_bytes_total, prog_cost_base, prog_cost_total, prog_time_base;
  int h5_broken;         /* issue 9: closing this rank's file failed (e.g. disk full): skip HDF5's shutdown */
  const char *part_path; /* issue 9: this rank's per-rank file */
} run_ctx;

static void append_fail(run_ctx *c, const sp_structure_row *st) {
  char line[SP_PATH_LEN + SP_ERR_MSG_LEN + 64];
  int n = snprintf(line, sizeof line, "%s\t%s\t%s\n", st->path, st->status, st->error);
  if (n <= 0) return;
  if ((size_t)n >= sizeof line) n = sizeof line - 1;
  if (c->fail_len + (size_t)n + 1 > c->fail_cap) {
    size_t nc = (c->fail_cap + (size_t)n + 1) * 2;
    char *p = realloc(c->fail_lines, nc);
    if (!p) return;
    c->fail_lines = p;
    c->fail_cap = nc;
  }
  memcpy(c->fail_lines + c->fail_len, line, (size_t)n);
  c->fail_len += (size_t)n;
  c->fail_lines[c->fail_len] = 0;
}

static int add_sample(run_ctx *c, const double *v) {
  if (c->n_samples == c->cap_samples) {
    size_t nc = c->cap_samples ? c->cap_samples * 2 : 256;
    double *p = realloc(c->samples, nc * S_N * sizeof *p);
    if (!p) return SP_E_NOMEM;
    c->samples = p;
    c->cap_samples = nc;
  }
  memcpy(c->samples + c->n_samples * S_N, v, S_N * sizeof *v);
  c->n_samples++;
  return 0;
}

/* Test hook: SITEPACK_TEST_TASK_DELAY_MS=N sleeps a random 0..N ms after each task (outside the
   measured task time, inside the scheduler's busy time), to shuffle which rank runs what. */
static void test_delay(run_ctx *c) {
  if (c->delay_ms <= 0) return;
  c->rng = c->rng * 1103515245u + 12345u;
  double ms = (double)((c->rng >> 8) % (unsigned)(c->delay_ms + 1));
  struct timespec ts = {(time_t)(ms / 1000), (long)fmod(ms, 1000.0) * 1000000L};
  nanosleep(&ts, NULL);
}

static int do_task(size_t task, void *user) {
  run_ctx *c = user;
  sp_err err = {0};
  double t0 = MPI_Wtime();
  const sp_task_ref *tr = &c->tasks[task];
  size_t f = (size_t)tr->file_idx;
  int rc = c->phase == 0
               ? sp_worker_process_first(c->worker, c->job->input, c->paths[f], tr->file_idx, &c->job->split, c->model,
                                         c->ccd, &c->job->opts, &c->result, &err)
               : sp_worker_process_part(c->worker, c->job->input, c->paths[f], tr->file_idx, tr->part, tr->n_parts,
                                        c->ccd, &c->job->opts, &c->result, &err);
  if (rc) {
    fprintf(stderr, "sitepack: rank %d: %s\n", c->rank, err.msg);
    return rc;
  }
  const sp_structure_row *st = &c->result.st;
  if (c->result.has_structure_row) {
    if (!strcmp(st->status, "ok")) {
      c->counts[C_FILES_OK]++;
    } else {
      c->counts[C_FILES_FAILED]++;
      for (int k = 0; k < SP_ERRCLASS_COUNT; ++k)
        if (!strcmp(st->status, sp_errclass_name(k))) c->fail_by_class[k]++;
      append_fail(c, st);
    }
    c->counts[C_ATOMS] += st->n_atoms;
    c->counts[C_BYTES] += st->bytes;
    c->counts[C_TEXT_BYTES] += st->text_bytes;
  }
  c->counts[C_LIGANDS] += (int64_t)c->result.n_ligands;
  c->counts[C_SITES] += (int64_t)c->result.n_sites;
  c->counts[C_SITE_ATOMS] += (int64_t)c->result.n_atoms;
  int n_parts = c->result.n_parts;
  if (c->phase == 0) {
    c->parts_found[f] = n_parts;
    c->ligs_found[f] = !strcmp(st->status, "ok") ? st->n_ligands : -1;
    c->atoms_found[f] = st->n_atoms;
  }
  rc = sp_rank_writer_append(c->writer, &c->result, &err);
  if (rc) {
    fprintf(stderr, "sitepack: rank %d: cannot write %s: %s\n", c->rank, st->path, err.msg);
    /* issue 9: a failed write or flush (a full disk) can leave chunks of earlier tasks damaged on disk:
       the file is renamed to *.failed so that --resume does not trust it (its tasks run again) */
    char failed[4300];
    if (c->part_path && snprintf(failed, sizeof failed, "%s.failed", c->part_path) < (int)sizeof failed)
      rename(c->part_path, failed);
    return rc;
  }
  double secs = MPI_Wtime() - t0;
  c->bytes_done += (double)c->bytes[f] / (n_parts > 0 ? n_parts : 1);
  double v[S_N] = {c->phase, (double)task, secs, (double)st->bytes, st->gzip, (double)st->n_atoms,
                   (double)c->result.n_ligands, n_parts};
  if (add_sample(c, v)) {
    fprintf(stderr, "sitepack: rank %d: out of memory (task timings)\n", c->rank);
    return SP_E_NOMEM;
  }
  test_delay(c);
  return 0;
}

static void progress(const sp_progress *p, void *user) {
  run_ctx *c = user;
  if (c->job->quiet) return;
  int64_t done = c->prog_tasks_base + p->tasks_done, total = c->prog_tasks_total;
  double mb = (c->prog_bytes_base + p->weight_done) / 1e6, mb_total = c->prog_bytes_total / 1e6;
  double cost_done = c->prog_cost_base + p->cost_done;
  double frac = c->prog_cost_total > 0 ? cost_done / c->prog_cost_total : 1.0;
  if (frac > 1) frac = 1;
  double el = c->prog_time_base + p->elapsed_s;
  double rate = el > 0 ? mb / el : 0;
  /* ETA from the estimated cost left (the cost model is in seconds of one rank) */
  double eta = frac > 0 && frac < 1 ? el * (1 - frac) / frac : 0;
  int last = p->final; /* the end of a phase (phase B, when it runs, starts a new line) */
  if (c->tty) {
    int w = 24, k = (int)(frac * w + 0.5);
    char bar[32];
    for (int i = 0; i < w; ++i) bar[i] = i < k ? '#' : '.';
    bar[w] = 0;
    fprintf(stderr, "\r[%s] %lld/%lld tasks  %.1f/%.1f MB  %5.1f%%  %.1f MB/s  ETA %.0f s ", bar, (long long)done,
            (long long)total, mb, mb_total, 100 * frac, rate, eta);
    if (last) fputc('\n', stderr);
  } else if (last || el - c->last_line >= 10.0) {
    c->last_line = el;
    fprintf(stderr,
            "progress: %lld/%lld tasks, %.1f/%.1f MB (%.1f%% of estimated work), %.1f MB/s, elapsed %.1f s, ETA %.0f s\n",
            (long long)done, (long long)total, mb, mb_total, 100 * frac, rate, el, eta);
  }
  fflush(stderr);
}

static int is_gzip_file(const char *root, const char *rel) {
  char full[4096];
  snprintf(full, sizeof full, "%s/%s", root, rel);
  unsigned char magic[2] = {0, 0};
  int fd = open(full, O_RDONLY);
  if (fd >= 0) {
    if (read(fd, magic, 2) != 2) magic[0] = 0;
    close(fd);
  }
  return magic[0] == 0x1f && magic[1] == 0x8b;
}

/* Rank 0 -> all: the tasks of a phase. */
static int bcast_tasks(run_ctx *c) {
  uint64_t n = c->n_tasks;
  MPI_Bcast(&n, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  if (n > (uint64_t)INT32_MAX / 3) return -1;
  int64_t *buf = malloc((n ? n : 1) * 3 * sizeof *buf);
  int bad = buf == NULL;
  if (c->rank != 0 && !bad) {
    free(c->tasks);
    c->tasks = malloc((n ? n : 1) * sizeof *c->tasks);
    bad = c->tasks == NULL;
  }
  int any_bad = 0;
  MPI_Allreduce(&bad, &any_bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (any_bad) {
    free(buf);
    return -1;
  }
  if (c->rank == 0)
    for (size_t t = 0; t < n; t++) {
      buf[3 * t] = c->tasks[t].file_idx;
      buf[3 * t + 1] = c->tasks[t].part;
      buf[3 * t + 2] = c->tasks[t].n_parts;
    }
  if (n) MPI_Bcast(buf, (int)(3 * n), MPI_INT64_T, 0, MPI_COMM_WORLD);
  c->n_tasks = (size_t)n;
  for (size_t t = 0; t < n; t++) {
    c->tasks[t].file_idx = buf[3 * t];
    c->tasks[t].part = (int32_t)buf[3 * t + 1];
    c->tasks[t].n_parts = (int32_t)buf[3 * t + 2];
  }
  free(buf);
  return 0;
}

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

/* mkdir -p: create @p path and its missing parents. */
/* 1 when the run report can be written at `path`: opened for writing without truncation (a file this
   probe creates is removed again); 0 with errno set otherwise */
static int report_writable(const char *path) {
  struct stat sb;
  int existed = stat(path, &sb) == 0;
  int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return 0;
  close(fd);
  if (!existed) unlink(path);
  return 1;
}

static int mkdir_p(const char *path) {
  char buf[4096];
  size_t n = strlen(path);
  if (n == 0 || n >= sizeof buf) return -1;
  memcpy(buf, path, n + 1);
  for (char *p = buf + 1; *p; ++p) {
    if (*p != '/') continue;
    *p = 0;
    if (mkdir(buf, 0777) && errno != EEXIST) return -1;
    *p = '/';
  }
  if (mkdir(buf, 0777) && errno != EEXIST) return -1;
  return 0;
}

/* Broadcast the file list from rank 0. */
static int bcast_files(run_ctx *c, int rank) {
  uint64_t hdr[2] = {c->n, 0};
  char *blob = NULL;
  if (rank == 0) {
    size_t tot = 0;
    for (size_t i = 0; i < c->n; ++i) tot += strlen(c->paths[i]) + 1;
    hdr[1] = tot;
    blob = malloc(tot ? tot : 1);
    if (!blob) return -1;
    size_t o = 0;
    for (size_t i = 0; i < c->n; ++i) {
      size_t l = strlen(c->paths[i]) + 1;
      memcpy(blob + o, c->paths[i], l);
      o += l;
    }
  }
  MPI_Bcast(hdr, 2, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  if (rank != 0) {
    c->n = hdr[0];
    blob = malloc(hdr[1] ? hdr[1] : 1);
    c->paths = calloc(c->n ? c->n : 1, sizeof *c->paths);
    c->bytes = calloc(c->n ? c->n : 1, sizeof *c->bytes);
    if (!blob || !c->paths || !c->bytes) return -1;
  }
  /* blobs above 2 GiB are not expected (paths of millions of files fit easily) */
  MPI_Bcast(blob, (int)hdr[1], MPI_CHAR, 0, MPI_COMM_WORLD);
  MPI_Bcast(c->bytes, (int)c->n, MPI_INT64_T, 0, MPI_COMM_WORLD);
  if (rank != 0) {
    size_t o = 0;
    for (size_t i = 0; i < c->n; ++i) {
      c->paths[i] = blob + o;
      o += strlen(blob + o) + 1;
    }
    /* blob is owned through paths[0] */
  } else {
    free(blob);
  }
  return 0;
}

static void iso_now(char *buf, size_t cap) {
  time_t t = time(NULL);
  struct tm tm;
  gmtime_r(&t, &tm);
  strftime(buf, cap, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static long peak_rss_kib(void) {
  struct rusage ru;
  if (getrusage(RUSAGE_SELF, &ru)) return -1;
  return ru.ru_maxrss;
}

static cJSON *model_json(const sp_cost_model *m) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddNumberToObject(o, "intercept_s", m->intercept);
  cJSON_AddNumberToObject(o, "per_plain_byte_s", m->per_plain_byte);
  cJSON_AddNumberToObject(o, "per_gz_byte_s", m->per_gz_byte);
  cJSON_AddNumberToObject(o, "per_atom_s", m->per_atom);
  cJSON_AddNumberToObject(o, "per_ligand_s", m->per_ligand);
  cJSON_AddNumberToObject(o, "bytes_only_intercept_s", m->bo_intercept);
  cJSON_AddNumberToObject(o, "bytes_only_per_plain_byte_s", m->bo_per_plain_byte);
  cJSON_AddNumberToObject(o, "bytes_only_per_gz_byte_s", m->bo_per_gz_byte);
  cJSON_AddNumberToObject(o, "n_samples", (double)m->n_samples);
  if (isfinite(m->r2)) cJSON_AddNumberToObject(o, "r2", m->r2);
  else cJSON_AddNullToObject(o, "r2");
  if (isfinite(m->r2_bytes_only)) cJSON_AddNumberToObject(o, "r2_bytes_only", m->r2_bytes_only);
  else cJSON_AddNullToObject(o, "r2_bytes_only");
  return o;
}

static cJSON *stats_json(const sp_sched_stats *s) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddNumberToObject(o, "tasks_planned", (double)s->tasks_planned);
  cJSON_AddNumberToObject(o, "tasks", (double)s->tasks_done);
  cJSON_AddNumberToObject(o, "cost_planned_s", s->cost_planned);
  cJSON_AddNumberToObject(o, "cost_done_s", s->cost_done);
  cJSON_AddNumberToObject(o, "busy_seconds", s->busy_s);
  cJSON_AddNumberToObject(o, "idle_seconds", s->idle_s);
  cJSON_AddNumberToObject(o, "wall_seconds", s->wall_s);
  cJSON_AddNumberToObject(o, "steals", (double)s->steals);
  cJSON_AddNumberToObject(o, "stolen", (double)s->stolen);
  cJSON_AddNumberToObject(o, "steal_attempts", (double)s->steal_attempts);
  cJSON_AddNumberToObject(o, "polls", (double)s->polls);
  return o;
}

/* Rank 0's report. `sched` (ownership taken) is the "schedule" object; per_rank[i] the
   per-phase objects of rank i (ownership taken). */
static int write_report(const sp_job *job, int P, const sp_sched_stats *all, const long *rss_kib,
                        const double *bpa, const double *rank_bytes, cJSON **per_rank, const int64_t *counts, const int64_t *by_class,
                        const char *fails, size_t n_files, double wall, double merge_s, cJSON *sched,
                        const char *ccd_sha) {
  cJSON *r = cJSON_CreateObject();
  cJSON_AddStringToObject(r, "tool", "sitepack");
  cJSON_AddStringToObject(r, "version", SP_VERSION);
  cJSON_AddStringToObject(r, "git_sha", SP_GIT_SHA);
  char created[32];
  iso_now(created, sizeof created);
  cJSON_AddStringToObject(r, "created", created);
  cJSON_AddItemToObject(r, "job", cJSON_Parse(job->json));
  cJSON_AddStringToObject(r, "output", job->output);
  if (ccd_sha) cJSON_AddStringToObject(r, "ccd_sha256", ccd_sha);
  cJSON_AddNumberToObject(r, "n_ranks", P);
  cJSON_AddNumberToObject(r, "wall_seconds", wall);
  cJSON_AddNumberToObject(r, "merge_seconds", merge_s);
  cJSON *files = cJSON_AddObjectToObject(r, "files");
  cJSON_AddNumberToObject(files, "total", (double)n_files);
  cJSON_AddNumberToObject(files, "ok", (double)counts[C_FILES_OK]);
  cJSON_AddNumberToObject(files, "failed", (double)counts[C_FILES_FAILED]);
  /* duplicates are neither ok nor failed (docs/reliability.md): counted on their own */
  cJSON_AddNumberToObject(files, "duplicates", (double)by_class[SP_E_DUPLICATE]);
  cJSON *fc = cJSON_AddObjectToObject(files, "failed_by_class");
  for (int k = 1; k < SP_ERRCLASS_COUNT; ++k)
    if (by_class[k] && k != SP_E_DUPLICATE) cJSON_AddNumberToObject(fc, sp_errclass_name(k), (double)by_class[k]);
  cJSON *fl = cJSON_AddArrayToObject(files, "failures");
  if (fails) {
    const char *p = fails;
    while (*p) {
      const char *nl = strchr(p, '\n');
      if (!nl) break;
      char line[SP_PATH_LEN + SP_ERR_MSG_LEN + 64];
      size_t l = (size_t)(nl - p) < sizeof line - 1 ? (size_t)(nl - p) : sizeof line - 1;
      memcpy(line, p, l);
      line[l] = 0;
      char *t1 = strchr(line, '\t'), *t2 = t1 ? strchr(t1 + 1, '\t') : NULL;
      if (t1 && t2) {
        *t1 = *t2 = 0;
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "path", line);
        cJSON_AddStringToObject(o, "class", t1 + 1);
        cJSON_AddStringToObject(o, "message", t2 + 1);
        cJSON_AddItemToArray(fl, o);
      }
      p = nl + 1;
    }
  }
  cJSON_AddNumberToObject(r, "ligands", (double)counts[C_LIGANDS]);
  cJSON_AddNumberToObject(r, "sites", (double)counts[C_SITES]);
  cJSON_AddNumberToObject(r, "site_atoms", (double)counts[C_SITE_ATOMS]);
  cJSON_AddNumberToObject(r, "atoms_read", (double)counts[C_ATOMS]);
  cJSON_AddNumberToObject(r, "bytes_read", (double)counts[C_BYTES]);
  cJSON_AddNumberToObject(r, "text_bytes", (double)counts[C_TEXT_BYTES]);
  cJSON_AddNumberToObject(r, "files_per_second", wall > 0 ? (double)n_files / wall : 0);
  cJSON *ms = cJSON_GetObjectItem(sched, "makespan_over_lower_bound");
  cJSON_AddNumberToObject(r, "makespan_over_lower_bound", ms ? ms->valuedouble : 0);
  cJSON_AddItemToObject(r, "schedule", sched);
  cJSON *ranks = cJSON_AddArrayToObject(r, "ranks");
  for (int i = 0; i < P; ++i) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "rank", all[i].rank);
    cJSON_AddNumberToObject(o, "tasks_planned", (double)all[i].tasks_planned);
    cJSON_AddNumberToObject(o, "tasks", (double)all[i].tasks_done);
    cJSON_AddNumberToObject(o, "bytes", rank_bytes[i]);
    cJSON_AddNumberToObject(o, "cost_done", all[i].cost_done);
    cJSON_AddNumberToObject(o, "busy_seconds", all[i].busy_s);
    cJSON_AddNumberToObject(o, "idle_seconds", all[i].idle_s);
    cJSON_AddNumberToObject(o, "wall_seconds", all[i].wall_s);
    cJSON_AddNumberToObject(o, "steals", (double)all[i].steals);
    cJSON_AddNumberToObject(o, "stolen", (double)all[i].stolen);
    cJSON_AddNumberToObject(o, "steal_attempts", (double)all[i].steal_attempts);
    cJSON_AddNumberToObject(o, "peak_rss_bytes", rss_kib[i] >= 0 ? (double)rss_kib[i] * 1024.0 : -1);
    cJSON_AddNumberToObject(o, "model_bytes_per_atom_largest_file", bpa[i]);
    if (per_rank[i]) cJSON_AddItemToObject(o, "phases", per_rank[i]);
    per_rank[i] = NULL;
    cJSON_AddItemToArray(ranks, o);
  }
  char *text = cJSON_Print(r);
  cJSON_Delete(r);
  if (!text) return -1;
  FILE *f = fopen(job->report, "w");
  int rc = -1;
  if (f) {
    rc = fputs(text, f) < 0 ? -1 : 0;
    fputc('\n', f);
    if (fclose(f)) rc = -1;
  }
  cJSON_free(text);
  return rc;
}

/* Rank 0: the plan of the current phase from c->tasks and their costs; weights (progress) = bytes. */
static int plan_phase(run_ctx *c, const double *cost, int P, sp_plan *plan, double **weight) {
  sp_err err = {0};
  *weight = malloc((c->n_tasks ? c->n_tasks : 1) * sizeof **weight);
  if (!*weight) return SP_E_NOMEM;
  for (size_t t = 0; t < c->n_tasks; t++) {
    const sp_task_ref *tr = &c->tasks[t];
    (*weight)[t] = tr->part == 0 ? (double)c->bytes[tr->file_idx] : 0; /* MB done: a file counts with its part 0 */
  }
  int rc = sp_plan_lpt(cost, c->n_tasks, P, plan, &err);
  if (rc) fprintf(stderr, "sitepack run: plan: %s\n", err.msg);
  return rc;
}

/* Run one phase (collective): broadcast rank 0's tasks, run its plan with work stealing. */
static int run_phase(run_ctx *c, const sp_plan *plan, const double *weight, sp_sched_stats *stats, double *t_phase) {
  sp_err err = {0};
  if (bcast_tasks(c)) {
    fprintf(stderr, "sitepack: rank %d: out of memory (task list)\n", c->rank);
    return SP_E_NOMEM;
  }
  sp_sched_opts so;
  sp_sched_opts_default(&so);
  so.progress = progress;
  so.progress_user = c;
  so.progress_interval_s = c->tty ? 0.2 : 1.0;
  so.no_steal = c->job->no_steal;
  so.weight = weight;
  memset(stats, 0, sizeof *stats);
  double t0 = MPI_Wtime();
  int rc = sp_sched_run_ex(MPI_COMM_WORLD, c->rank == 0 ? plan : NULL, do_task, c, &so, stats, &err);
  *t_phase = MPI_Wtime() - t0;
  if (rc && c->rank == 0) fprintf(stderr, "sitepack run: %s\n", err.msg);
  return rc;
}

int sp_cmd_run(int argc, char **argv) {
  int provided;
  MPI_Init_thread(NULL, NULL, MPI_THREAD_SINGLE, &provided);
  int rank, P;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  double t_start = MPI_Wtime();

  sp_job job;
  int status = 0; /* 0 go on, -1 help printed, else exit code */
  if (rank == 0) status = sp_job_from_args(argc, argv, &job);
  MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (status != 0) {
    if (rank == 0) sp_job_free(&job);
    MPI_Finalize();
    return status < 0 ? SP_EXIT_OK : status;
  }
  if (rank != 0 && sp_job_from_args(argc, argv, &job) != 0) {
    fprintf(stderr, "sitepack: rank %d cannot read the job\n", rank);
    MPI_Abort(MPI_COMM_WORLD, SP_EXIT_USAGE);
  }

  run_ctx c;
  memset(&c, 0, sizeof c);
  c.job = &job;
  c.rank = rank;
  c.tty = isatty(2);
  c.rng = 2654435761u * (unsigned)(rank + 1);
  {
    const char *d = getenv("SITEPACK_TEST_TASK_DELAY_MS");
    c.delay_ms = d ? atoi(d) : 0;
    if (c.delay_ms < 0 || c.delay_ms > 10000) c.delay_ms = 0;
  }
  sp_result_init(&c.result);
  sp_scan_list scan = {0};
  sp_plan plan_a = {0}, plan_b = {0};
  double *cost_a = NULL, *weight_a = NULL, *weight_b = NULL;
  uint8_t *gz = NULL;
  char parts_dir[4096] = "";
  char ccd_sha[65] = "";
  sp_ccd_shared *ccd_shared = NULL; /* issue 4 (ccd2): one CCD text per node */
  sp_err err = {0};
  sp_cost_model model;
  sp_cost_model_default(&model);
  c.model = &model;
  sp_shard_meta shard = {0}; /* issue 8 (slurm): --shard I/N, rank 0 */
  sp_prepare_out prep;       /* issue 9 (reliability): rank 0 */
  memset(&prep, 0, sizeof prep);

  /* rank 0: output policy, scan, gzip flags */
  if (rank == 0) {
    struct stat sb;
    snprintf(parts_dir, sizeof parts_dir, "%s.parts", job.output);
    char report_dir[4096];
    snprintf(report_dir, sizeof report_dir, "%s", job.report);
    char *rslash = strrchr(report_dir, '/');
    if (rslash) *rslash = 0;
    if (stat(job.output, &sb) == 0 && S_ISDIR(sb.st_mode)) {
      fprintf(stderr, "sitepack run: output %s is a directory (give a file name, e.g. %s/sites.h5)\n", job.output,
              job.output);
      status = SP_EXIT_USAGE;
    } else if (stat(job.report, &sb) == 0 && S_ISDIR(sb.st_mode)) {
      fprintf(stderr, "sitepack run: report %s is a directory (give a file name)\n", job.report);
      status = SP_EXIT_USAGE;
    } else if (!job.force && stat(job.output, &sb) == 0) {
      fprintf(stderr, "sitepack run: output %s exists (use --force to overwrite)\n", job.output);
      status = SP_EXIT_USAGE;
    } else if (rslash && report_dir[0] && mkdir_p(report_dir)) {
      fprintf(stderr, "sitepack run: cannot create the report's directory %s: %s\n", report_dir, strerror(errno));
      status = SP_EXIT_RUNTIME;
    } else if (!report_writable(job.report)) { /* found now, not after the whole run */
      fprintf(stderr, "sitepack run: cannot write report %s: %s\n", job.report, strerror(errno));
      status = SP_EXIT_RUNTIME;
    } else if (sp_scan_dir(job.input, &scan, &err)) {
      fprintf(stderr, "sitepack run: input %s: %s\n", job.input, err.msg);
      status = SP_EXIT_USAGE;
    } else if (scan.n == 0) {
      fprintf(stderr, "sitepack run: no structure files (.cif .mmcif .pdb .ent, optionally .gz) under %s\n",
              job.input);
      status = SP_EXIT_USAGE;
    } else if (mkdir_p(parts_dir)) {
      fprintf(stderr, "sitepack run: cannot create %s: %s\n", parts_dir, strerror(errno));
      status = SP_EXIT_RUNTIME;
    }
    if (!status) {
      /* scan of a single file: its root is its directory */
      if (stat(job.input, &sb) == 0 && S_ISREG(sb.st_mode)) {
        char *slash = strrchr(job.input, '/');
        if (slash) *slash = 0;
        else strcpy(job.input, ".");
      }
      c.n = scan.n;
      c.paths = calloc(c.n, sizeof *c.paths);
      c.bytes = calloc(c.n, sizeof *c.bytes);
      gz = calloc(c.n, 1);
      if (!c.paths || !c.bytes || !gz) {
        fprintf(stderr, "sitepack run: out of memory\n");
        status = SP_EXIT_RUNTIME;
      } else {
        for (size_t i = 0; i < c.n; ++i) {
          c.paths[i] = scan.files[i].path;
          c.bytes[i] = scan.files[i].bytes;
          gz[i] = (uint8_t)is_gzip_file(job.input, c.paths[i]);
        }
      }
    }
    if (!job.quiet && !status)
      fprintf(stderr, "sitepack %s: %zu files under %s, %d ranks\n", SP_VERSION, c.n, job.input, P);
  }
  MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (status) goto done;
  /* input root may have been changed on rank 0 (single-file input) */
  {
    int l = rank == 0 ? (int)strlen(job.input) + 1 : 0;
    MPI_Bcast(&l, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank != 0) {
      char *p = realloc(job.input, (size_t)l);
      if (!p) MPI_Abort(MPI_COMM_WORLD, SP_EXIT_RUNTIME);
      job.input = p;
    }
    MPI_Bcast(job.input, l, MPI_CHAR, 0, MPI_COMM_WORLD);
  }
  if (bcast_files(&c, rank)) {
    fprintf(stderr, "sitepack: rank %d: out of memory\n", rank);
    MPI_Abort(MPI_COMM_WORLD, SP_EXIT_RUNTIME);
  }

  /* CCD (issue 4, ccd2): one copy of the text per node (ccd_shared.h: a mapped plain file, or a
   * gzip file inflated once per node into an MPI shared window); index and cache per rank.
   * Collective; ccd_sha = SHA-256 of the file as stored (provenance). */
  int ccd_rc = 0;
  if (job.ccd) {
    ccd_rc = sp_ccd_open_shared(MPI_COMM_WORLD, job.ccd, &ccd_shared, ccd_sha, &err);
    if (ccd_rc && rank == 0) fprintf(stderr, "sitepack run: CCD %s: %s\n", job.ccd, err.msg);
    c.ccd = sp_ccd_shared_get(ccd_shared);
  }
  MPI_Allreduce(MPI_IN_PLACE, &ccd_rc, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (ccd_rc) {
    status = SP_EXIT_USAGE;
    goto done;
  }
  if (rank == 0 && c.ccd) {
    /* a CCD's blocks are components: data_XXX with _chem_comp.id XXX. Anything else (a structure
     * file given as --ccd by mistake) would make every comp_id "not in CCD": refuse it. */
    const sp_ccd_index *ix = sp_ccd_get_index(c.ccd);
    sp_err e2 = {0};
    const sp_component *first = ix->n ? sp_ccd_get(c.ccd, ix->ids[0], &e2) : NULL;
    if (!first || strcmp(first->id, ix->ids[0])) {
      fprintf(stderr, "sitepack run: CCD %s: its first block data_%s is not a chemical component (%s)\n", job.ccd,
              ix->n ? ix->ids[0] : "", first ? "_chem_comp.id differs from the block name" : e2.msg);
      status = SP_EXIT_USAGE;
    }
  }
  MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (status) goto done;

  /* issue 9 (reliability): duplicates, --resume and the job stamp (app/resume.h), before any per-rank
     file of this run is created; shard runs are rerun whole instead (docs/slurm.md) */
  if (rank == 0 && job.shard_count == 0) {
    status = sp_run_prepare(&job, parts_dir, c.paths, c.bytes, c.n, ccd_sha, &prep);
    if (!status && !job.quiet && (job.resume || prep.n_duplicates))
    {
      if (job.resume)
        fprintf(stderr, "sitepack: --resume: %zu files (%zu tasks) resumed, %zu changed since, %zu duplicates; %zu hashed in %.2f s\n",
                prep.n_resumed, prep.n_resumed_tasks, prep.n_changed, prep.n_duplicates, prep.n_hashed, prep.seconds);
      else
        fprintf(stderr, "sitepack: %zu duplicates (same SHA-256 as an earlier file); %zu files of equal size hashed in %.2f s\n",
                prep.n_duplicates, prep.n_hashed, prep.seconds);
    }
  }
  MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (status) goto done;

  /* per-rank output */
  if (rank != 0) snprintf(parts_dir, sizeof parts_dir, "%s.parts", job.output);
  char part_path[4200];
  snprintf(part_path, sizeof part_path, "%s/rank-%05d.h5", parts_dir, rank);
  c.worker = sp_worker_new();
  c.writer = c.worker ? sp_rank_writer_open(part_path, &err) : NULL;
  c.part_path = part_path;
  c.parts_found = calloc(c.n ? c.n : 1, sizeof *c.parts_found);
  c.ligs_found = malloc((c.n ? c.n : 1) * sizeof *c.ligs_found);
  c.atoms_found = malloc((c.n ? c.n : 1) * sizeof *c.atoms_found);
  int open_rc = c.writer ? 0 : 1;
  if (open_rc) fprintf(stderr, "sitepack: rank %d: cannot create %s: %s\n", rank, part_path, err.msg);
  if (!c.parts_found || !c.ligs_found || !c.atoms_found) {
    fprintf(stderr, "sitepack: rank %d: out of memory\n", rank);
    open_rc = 1;
  }
  MPI_Allreduce(MPI_IN_PLACE, &open_rc, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (open_rc) {
    status = SP_EXIT_RUNTIME;
    goto done;
  }
  for (size_t f = 0; f < c.n; f++) c.ligs_found[f] = c.atoms_found[f] = -1;

  /* Phase A: every file, as part 0 of a split that the file's own task decides after its survey
     (task.h sp_worker_process_first(); files under the size threshold never split). Phase B:
     parts 1.. of the files split in phase A; skipped (no barrier) when no file split. */
  size_t n_big = 0;
  for (size_t f = 0; f < c.n; f++)
    if (job.split.enabled && c.bytes[f] >= job.split.min_bytes) n_big++;
  double bytes_total = 0;
  sp_sched_stats st_a, st_b;
  memset(&st_a, 0, sizeof st_a);
  memset(&st_b, 0, sizeof st_b);
  int run_rc = 0, phase_b_ran = 0;
  double t_phase_a = 0, t_phase_b = 0;
  size_t n_split = 0, n_parts_added = 0;
  c.phase = 0;
  if (rank == 0) {
    c.tasks = malloc((c.n ? c.n : 1) * sizeof *c.tasks);
    cost_a = malloc((c.n ? c.n : 1) * sizeof *cost_a);
    int prc = !c.tasks || !cost_a ? SP_E_NOMEM : 0;
    for (size_t f = 0; !prc && f < c.n; f++) {
      c.tasks[f] = (sp_task_ref){(int64_t)f, 0, 1};
      cost_a[f] = sp_cost_estimate(&model, c.bytes[f], gz[f], -1, -1); /* bytes only: nothing parsed yet */
      bytes_total += (double)c.bytes[f];
      c.prog_cost_total += cost_a[f];
    }
    c.n_tasks = c.n;
    if (!prc && prep.skip) { /* issue 9: resumed files and duplicates have their rows in prepared.h5 */
      size_t k = 0;
      for (size_t t = 0; t < c.n; t++) {
        if (prep.skip[c.tasks[t].file_idx]) {
          bytes_total -= (double)c.bytes[c.tasks[t].file_idx];
          c.prog_cost_total -= cost_a[t];
          continue;
        }
        c.tasks[k] = c.tasks[t];
        cost_a[k++] = cost_a[t];
      }
      c.n_tasks = k;
    }
    /* issue 8 (slurm): a shard keeps its LPT share of the files over the N shards (file_idx stays global) */
    if (!prc && job.shard_count > 0) {
      prc = sp_shard_plan(job.shard_index, job.shard_count, c.paths, c.bytes, gz, c.n, job.json, ccd_sha, &job.split,
                          c.tasks, cost_a, &c.n_tasks, &bytes_total, &shard, &err);
      if (prc) fprintf(stderr, "sitepack run: shard: %s\n", err.msg);
      c.prog_cost_total = 0;
      for (size_t t = 0; !prc && t < c.n_tasks; t++) c.prog_cost_total += cost_a[t];
      if (!prc && !job.quiet)
        fprintf(stderr, "sitepack: shard %d/%d: %zu of %zu files\n", job.shard_index, job.shard_count, c.n_tasks, c.n);
    }
    c.prog_tasks_total = (int64_t)c.n_tasks;
    c.prog_bytes_total = bytes_total;
    if (!prc) prc = plan_phase(&c, cost_a, P, &plan_a, &weight_a);
    if (prc) status = SP_EXIT_RUNTIME;
  }
  MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (status) goto done;
  run_rc = run_phase(&c, &plan_a, weight_a, &st_a, &t_phase_a);
  MPI_Allreduce(MPI_IN_PLACE, &run_rc, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (!run_rc && n_big > 0) {
    /* the split decisions, from the ranks that ran each large file */
    MPI_Allreduce(MPI_IN_PLACE, c.parts_found, (int)c.n, MPI_INT32_T, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, c.ligs_found, (int)c.n, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, c.atoms_found, (int)c.n, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0) {
      c.prog_tasks_base = (int64_t)c.n;
      c.prog_bytes_base = bytes_total;
      c.prog_cost_base = c.prog_cost_total;
      c.prog_time_base = t_phase_a;
      sp_task_ref *all_t = NULL;
      double *all_c = NULL, *cost_b = NULL;
      size_t n_all = 0;
      /* the same expansion as the planner of any run: only large files have known ligands */
      int prc = sp_tasks_expand(c.n, c.bytes, gz, c.atoms_found, c.ligs_found, &job.split, &model, &all_t, &all_c,
                                &n_all, &err);
      if (prc) fprintf(stderr, "sitepack run: tasks: %s\n", err.msg);
      free(c.tasks);
      c.tasks = prc ? NULL : malloc((n_all ? n_all : 1) * sizeof *c.tasks);
      cost_b = prc ? NULL : malloc((n_all ? n_all : 1) * sizeof *cost_b);
      if (!prc && (!c.tasks || !cost_b)) prc = SP_E_NOMEM;
      size_t k = 0;
      for (size_t t = 0; !prc && t < n_all; t++) {
        size_t f = (size_t)all_t[t].file_idx;
        int found = c.parts_found[f] > 0 ? c.parts_found[f] : 1;
        if (all_t[t].n_parts != found) {
          fprintf(stderr, "sitepack run: %s changed during the run (split into %d, then %d parts)\n", c.paths[f],
                  found, all_t[t].n_parts);
          prc = SP_E_INVALID;
          break;
        }
        if (all_t[t].part == 0) continue; /* ran in phase A */
        if (all_t[t].part == 1) n_split++;
        n_parts_added++;
        c.tasks[k] = all_t[t];
        cost_b[k] = all_c[t];
        k++;
      }
      c.n_tasks = k;
      if (!prc && k) prc = plan_phase(&c, cost_b, P, &plan_b, &weight_b);
      if (!prc) {
        c.prog_tasks_total = (int64_t)(c.n + k);
        for (size_t t = 0; t < k; t++) c.prog_cost_total += cost_b[t];
      }
      free(all_t);
      free(all_c);
      free(cost_b);
      if (prc) status = SP_EXIT_RUNTIME;
      phase_b_ran = !prc && k > 0;
    }
    MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (status) goto done;
    MPI_Bcast(&phase_b_ran, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (phase_b_ran) {
      c.phase = 1;
      run_rc = run_phase(&c, &plan_b, weight_b, &st_b, &t_phase_b);
    }
  }
  if (sp_rank_writer_close(c.writer, &err)) {
    fprintf(stderr, "sitepack: rank %d: closing %s: %s\n", rank, part_path, err.msg);
    if (!run_rc) run_rc = SP_E_HDF5;
    c.h5_broken = 1;
  }
  c.writer = NULL;
  MPI_Allreduce(MPI_IN_PLACE, &run_rc, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);

  /* gather statistics, counters, task timings and failures */
  sp_sched_stats *all = rank == 0 ? calloc((size_t)P, sizeof *all) : NULL;
  sp_sched_stats *all_a = rank == 0 ? calloc((size_t)P, sizeof *all_a) : NULL;
  sp_sched_stats *all_b = rank == 0 ? calloc((size_t)P, sizeof *all_b) : NULL;
  long *rss = rank == 0 ? calloc((size_t)P, sizeof *rss) : NULL;
  double *bpa = rank == 0 ? calloc((size_t)P, sizeof *bpa) : NULL;
  double *rank_bytes = rank == 0 ? calloc((size_t)P, sizeof *rank_bytes) : NULL;
  if (rank == 0 && (!all || !all_a || !all_b || !rss || !bpa || !rank_bytes)) MPI_Abort(MPI_COMM_WORLD, SP_EXIT_RUNTIME);
  sp_sched_gather_stats(MPI_COMM_WORLD, &st_a, all_a, &err);
  sp_sched_gather_stats(MPI_COMM_WORLD, &st_b, all_b, &err);
  long my_rss = peak_rss_kib();
  MPI_Gather(&my_rss, 1, MPI_LONG, rss, 1, MPI_LONG, 0, MPI_COMM_WORLD);
  /* bytes per atom of the in-memory model, for this rank's largest file */
  double my_bpa = c.worker ? sp_worker_max_bytes_per_atom(c.worker) : 0;
  MPI_Gather(&my_bpa, 1, MPI_DOUBLE, bpa, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  MPI_Gather(&c.bytes_done, 1, MPI_DOUBLE, rank_bytes, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  int64_t counts[C_N], by_class[SP_ERRCLASS_COUNT];
  MPI_Reduce(c.counts, counts, C_N, MPI_INT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
  MPI_Reduce(c.fail_by_class, by_class, SP_ERRCLASS_COUNT, MPI_INT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
  int my_len = (int)c.fail_len;
  int *lens = rank == 0 ? calloc((size_t)P, sizeof *lens) : NULL;
  int *displ = rank == 0 ? calloc((size_t)P, sizeof *displ) : NULL;
  MPI_Gather(&my_len, 1, MPI_INT, lens, 1, MPI_INT, 0, MPI_COMM_WORLD);
  char *fails = NULL;
  if (rank == 0) {
    int tot = 0;
    for (int i = 0; i < P; ++i) {
      displ[i] = tot;
      tot += lens[i];
    }
    fails = calloc((size_t)tot + 1, 1);
  }
  MPI_Gatherv(c.fail_lines ? c.fail_lines : "", my_len, MPI_CHAR, fails, lens, displ, MPI_CHAR, 0, MPI_COMM_WORLD);
  /* task timings (S_N doubles per task) */
  int my_ns = (int)(c.n_samples * S_N);
  MPI_Gather(&my_ns, 1, MPI_INT, lens, 1, MPI_INT, 0, MPI_COMM_WORLD);
  double *samples = NULL;
  size_t n_samples = 0;
  if (rank == 0) {
    int tot = 0;
    for (int i = 0; i < P; ++i) {
      displ[i] = tot;
      tot += lens[i];
    }
    n_samples = (size_t)tot / S_N;
    samples = malloc(((size_t)tot ? (size_t)tot : 1) * sizeof *samples);
    if (!samples) MPI_Abort(MPI_COMM_WORLD, SP_EXIT_RUNTIME);
  }
  MPI_Gatherv(c.samples ? c.samples : (double *)&c.bytes_done, my_ns, MPI_DOUBLE, samples, lens, displ, MPI_DOUBLE,
              0, MPI_COMM_WORLD);
  double t_run = MPI_Wtime() - t_start;

  /* rank 0: merge, report, summary */
  if (rank == 0) {
    for (int i = 0; i < P; ++i) {
      add_stats(&all[i], &all_a[i]);
      add_stats(&all[i], &all_b[i]);
    }
    if (run_rc) {
      status = SP_EXIT_RUNTIME;
      /* issue 9: a failed write (a full disk, a quota) leaves resumable state: every task listed in the
         per-rank files is complete, and nothing is written under the final name */
      struct statvfs vfs;
      if (statvfs(parts_dir, &vfs) == 0 && (double)vfs.f_bavail * (double)vfs.f_frsize < 1048576.0)
        fprintf(stderr, "sitepack run: no space left on device: %.0f bytes free on the file system of %s\n",
                (double)vfs.f_bavail * (double)vfs.f_frsize, parts_dir);
      fprintf(stderr,
              "sitepack run: stopped (%s): no output written; the finished tasks are kept in %s: fix the cause "
              "(e.g. free disk space) and rerun with --resume\n",
              sp_errclass_name(run_rc), parts_dir);
    } else {
      double t_m0 = MPI_Wtime();
      char **inputs = calloc((size_t)P + 1, sizeof *inputs);
      for (int i = 0; inputs && i < P; ++i) {
        inputs[i] = malloc(4200);
        if (inputs[i]) snprintf(inputs[i], 4200, "%s/rank-%05d.h5", parts_dir, i);
      }
      size_t n_inputs = (size_t)P; /* issue 9: + prepared.h5 (resumed tasks, duplicates' rows) */
      if (inputs && prep.has_prepared && (inputs[P] = malloc(4200)))
        snprintf(inputs[n_inputs++], 4200, "%s/prepared.h5", parts_dir);
      char tmp[4200];
      snprintf(tmp, sizeof tmp, "%s.tmp", job.output);
      char created[32];
      iso_now(created, sizeof created);
      sp_merge_info info = {.tool_version = SP_VERSION, .git_sha = SP_GIT_SHA, .job_json = job.json,
                            .ccd_path = job.ccd, .ccd_sha256 = ccd_sha, .created = created,
                            .n_ranks = P, .wall_seconds = t_run};
      int mrc = !inputs ? SP_E_NOMEM
                : job.shard_count > 0 /* issue 8 (slurm): one shard file for `sitepack merge` */
                    ? sp_shard_pack(tmp, (const char *const *)inputs, (size_t)P, &info, &shard, &err)
                    : sp_merge(tmp, (const char *const *)inputs, n_inputs, &info, &err);
      if (mrc) {
        fprintf(stderr, "sitepack run: merge failed: %s: %s\n", sp_errclass_name(mrc), err.msg);
        status = SP_EXIT_RUNTIME;
        remove(tmp);
      } else if (rename(tmp, job.output)) {
        fprintf(stderr, "sitepack run: cannot rename %s to %s: %s\n", tmp, job.output, strerror(errno));
        status = SP_EXIT_RUNTIME;
      }
      if (!status && !job.keep_parts) {
        for (size_t i = 0; i < n_inputs; ++i) remove(inputs[i]);
        char stamp[4200];
        snprintf(stamp, sizeof stamp, "%s/job.txt", parts_dir);
        remove(stamp);
        rmdir(parts_dir);
      }
      for (size_t i = 0; inputs && i < n_inputs; ++i) free(inputs[i]);
      free(inputs);
      /* The summary and the report count the whole output (tasks resumed from an earlier
       * attempt and duplicates included), read back from the merged file. */
      if (!status && job.shard_count == 0) {
        sp_output_totals tot;
        if (sp_output_totals_read(job.output, &tot, &err) == 0) {
          counts[C_FILES_OK] = tot.n_ok;
          counts[C_FILES_FAILED] = tot.n_failed;
          counts[C_LIGANDS] = tot.n_ligands;
          counts[C_SITES] = tot.n_sites;
          counts[C_SITE_ATOMS] = tot.n_site_atoms;
          memcpy(by_class, tot.by_class, sizeof tot.by_class);
          free(fails);
          fails = tot.failures;
          tot.failures = NULL;
        } else {
          fprintf(stderr, "sitepack run: cannot read back %s: %s\n", job.output, err.msg);
          status = SP_EXIT_RUNTIME;
        }
        sp_output_totals_free(&tot);
      }
      double merge_s = MPI_Wtime() - t_m0;
      double wall = MPI_Wtime() - t_start;

      /* measured makespan of the scheduled phases against max(largest task, total / P) */
      sp_cost_sample *cs = calloc(n_samples ? n_samples : 1, sizeof *cs);
      double largest = 0, total = 0;
      for (size_t i = 0; i < n_samples; i++) {
        const double *v = samples + i * S_N;
        if (v[S_SECONDS] > largest) largest = v[S_SECONDS];
        total += v[S_SECONDS];
        if (cs) cs[i] = (sp_cost_sample){v[S_SECONDS], (int64_t)v[S_BYTES], (int)v[S_GZIP], (int64_t)v[S_ATOMS],
                                         (int64_t)v[S_LIGANDS]};
      }
      sp_cost_model fitted;
      sp_cost_fit(cs, cs ? n_samples : 0, &fitted, &err);
      free(cs);
      double lb = total / P > largest ? total / P : largest;
      double makespan = t_phase_a + t_phase_b;
      cJSON *sched = cJSON_CreateObject();
      cJSON_AddStringToObject(sched, "policy", job.no_steal ? "lpt" : "lpt+steal");
      cJSON *sp = cJSON_AddObjectToObject(sched, "split");
      cJSON_AddBoolToObject(sp, "enabled", job.split.enabled);
      cJSON_AddNumberToObject(sp, "min_bytes", (double)job.split.min_bytes);
      cJSON_AddNumberToObject(sp, "min_ligands", (double)job.split.min_ligands);
      cJSON_AddNumberToObject(sp, "max_parts", job.split.max_parts);
      cJSON_AddBoolToObject(sp, "cost_guard", job.split.cost_guard);
      cJSON_AddNumberToObject(sp, "large_files", (double)n_big);
      cJSON_AddNumberToObject(sp, "files_split", (double)n_split);
      cJSON_AddNumberToObject(sp, "extra_parts", (double)n_parts_added);
      cJSON_AddNumberToObject(sched, "tasks", (double)n_samples);
      cJSON_AddNumberToObject(sched, "phase_a_seconds", t_phase_a);
      cJSON_AddNumberToObject(sched, "phase_b_seconds", t_phase_b);
      cJSON_AddNumberToObject(sched, "makespan_seconds", makespan);
      cJSON_AddNumberToObject(sched, "largest_task_seconds", largest);
      cJSON_AddNumberToObject(sched, "total_task_seconds", total);
      cJSON_AddNumberToObject(sched, "lower_bound_seconds", lb);
      cJSON_AddNumberToObject(sched, "makespan_over_lower_bound", lb > 0 ? makespan / lb : 0);
      if (c.delay_ms) cJSON_AddNumberToObject(sched, "test_task_delay_ms", c.delay_ms);
      cJSON_AddItemToObject(sched, "cost_model_used", model_json(&model));
      cJSON_AddItemToObject(sched, "cost_model_fitted", model_json(&fitted));
      size_t n_run_files = job.shard_count > 0 ? shard.n_assigned : c.n; /* issue 8: a shard's own files */
      cJSON **per_rank = calloc((size_t)P, sizeof *per_rank);
      for (int i = 0; per_rank && i < P; ++i) {
        per_rank[i] = cJSON_CreateObject();
        cJSON_AddItemToObject(per_rank[i], "a", stats_json(&all_a[i]));
        if (phase_b_ran) cJSON_AddItemToObject(per_rank[i], "b", stats_json(&all_b[i]));
      }
      if (!status && per_rank &&
          write_report(&job, P, all, rss, bpa, rank_bytes, per_rank, counts, by_class, fails, n_run_files, wall, merge_s, sched,
                       ccd_sha[0] ? ccd_sha : NULL)) {
        fprintf(stderr, "sitepack run: cannot write report %s: %s\n", job.report, strerror(errno));
        status = SP_EXIT_RUNTIME; /* the merged file is complete; only its report is missing */
      }
      else if (status || !per_rank)
        cJSON_Delete(sched);
      for (int i = 0; per_rank && i < P; ++i) cJSON_Delete(per_rank[i]);
      free(per_rank);
      if (!status) {
        printf("sitepack: %zu files in %.2f s (%.1f files/s, %.1f MB/s) on %d ranks\n", n_run_files, wall,
               (double)n_run_files / wall, bytes_total / 1e6 / wall, P);
        printf("  files ok %lld, failed %lld", (long long)counts[C_FILES_OK], (long long)counts[C_FILES_FAILED]);
        int first = 1;
        for (int k = 1; k < SP_ERRCLASS_COUNT; ++k)
          if (by_class[k] && k != SP_E_DUPLICATE) { /* duplicates: their own line below */
            printf("%s%s %lld", first ? " (" : ", ", sp_errclass_name(k), (long long)by_class[k]);
            first = 0;
          }
        printf("%s\n", first ? "" : ")");
        printf("  ligands %lld, sites %lld, site atoms %lld\n", (long long)counts[C_LIGANDS],
               (long long)counts[C_SITES], (long long)counts[C_SITE_ATOMS]);
        if (n_split) printf("  split %zu large files into %zu extra tasks\n", n_split, n_parts_added);
        if (job.resume) /* issue 9 */
          printf("  resumed %zu files (%zu tasks) from an earlier run, %zu changed since\n", prep.n_resumed,
                 prep.n_resumed_tasks, prep.n_changed);
        if (prep.n_duplicates) printf("  %zu duplicates (same SHA-256 as an earlier file: not processed again)\n", prep.n_duplicates);
        int64_t steals = 0;
        for (int i = 0; i < P; ++i) steals += all[i].steals;
        printf("  %zu tasks, steals %lld, makespan %.2f s = %.3f x max(largest task, total/P); busy/wall per rank:",
               n_samples, (long long)steals, makespan, lb > 0 ? makespan / lb : 0);
        for (int i = 0; i < P && i < 32; ++i) printf(" %.2f/%.2f", all[i].busy_s, all[i].wall_s);
        printf("\n  output %s\n  report %s\n", job.output, job.report);
        if (counts[C_FILES_FAILED] && fails) {
          printf("  failed files:\n");
          const char *p = fails;
          int shown = 0;
          while (*p && shown < 20) {
            const char *nl = strchr(p, '\n');
            if (!nl) break;
            printf("    %.*s\n", (int)(nl - p), p);
            p = nl + 1;
            ++shown;
          }
          if (counts[C_FILES_FAILED] > 20) printf("    ... (all in the report and in /structures)\n");
        }
      }
    }
  }
  free(all);
  free(all_a);
  free(all_b);
  free(rss);
  free(bpa);
  free(rank_bytes);
  free(lens);
  free(displ);
  free(fails);
  free(samples);
  MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);

done:
  /* a run that could not start leaves no empty parts directory behind (rmdir only removes it empty) */
  if (rank == 0 && status == SP_EXIT_USAGE && parts_dir[0]) rmdir(parts_dir);
  if (c.writer) sp_rank_writer_close(c.writer, NULL);
  sp_worker_free(c.worker);
  sp_result_free(&c.result);
  sp_ccd_shared_close(ccd_shared); /* collective (MPI_Win_free); closes c.ccd */
  free(c.fail_lines);
  free(c.samples);
  free(c.tasks);
  free(c.parts_found);
  free(c.ligs_found);
  free(c.atoms_found);
  if (rank == 0) {
    free(c.paths); /* the strings belong to scan */
    sp_scan_list_free(&scan);
  } else if (c.paths) {
    if (c.n) free(c.paths[0]); /* the blob */
    free(c.paths);
  }
  free(c.bytes);
  free(gz);
  free(cost_a);
  free(weight_a);
  free(weight_b);
  sp_plan_free(&plan_a);
  sp_plan_free(&plan_b);
  sp_shard_meta_free(&shard);
  sp_prepare_out_free(&prep);
  sp_job_free(&job);
  if (c.h5_broken) {
    /* HDF5 1.10 keeps a file whose close failed half-open and crashes closing it again at its shutdown
       (inside MPI_Finalize): leave without it; the file's finished tasks are flushed already */
    fflush(stdout);
    fflush(stderr);
    _exit(SP_EXIT_RUNTIME);
  }
  MPI_Finalize();
  return status;
}

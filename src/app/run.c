/* `sitepack run`: the whole run under MPI (DESIGN.md "The run, end to end").
 *
 *   rank 0  scan input, open the CCD, plan (LPT on estimated cost)
 *   all     open the CCD, run the plan with work stealing (sched.h); every task goes
 *           through the worker stages (task.h) into this rank's HDF5 file (store.h)
 *   rank 0  merge the per-rank files (ordered by input path), write the report, summarise
 */
#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "app/app.h"
#include "sitepack/ccd.h"
#include "sitepack/io.h"
#include "sitepack/sched.h"
#include "sitepack/store.h"
#include "sitepack/task.h"
#include "sitepack/version.h"

/* Per-rank counters reduced to rank 0 for the summary and the report. */
enum { C_FILES_OK, C_FILES_FAILED, C_LIGANDS, C_SITES, C_SITE_ATOMS, C_ATOMS, C_BYTES, C_TEXT_BYTES, C_N };

typedef struct run_ctx {
  const sp_job *job;
  int rank;
  char **paths;          /* [n] relative paths, sorted */
  int64_t *bytes;        /* [n] stored sizes */
  size_t n;
  sp_ccd *ccd;
  sp_worker *worker;
  sp_result result;
  sp_rank_writer *writer;
  int64_t counts[C_N];
  int64_t fail_by_class[SP_ERRCLASS_COUNT];
  char *fail_lines;      /* "path\tclass\tmessage\n" for each failed file of this rank */
  size_t fail_len, fail_cap;
  size_t peak_model_bytes;
  int tty;
  double last_line;
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

static int do_task(size_t task, void *user) {
  run_ctx *c = user;
  sp_err err = {0};
  int rc = sp_worker_process(c->worker, c->job->input, c->paths[task], (int64_t)task, c->ccd, &c->job->opts,
                             &c->result, &err);
  if (rc) {
    fprintf(stderr, "sitepack: rank %d: %s\n", c->rank, err.msg);
    return rc;
  }
  const sp_structure_row *st = &c->result.st;
  if (!strcmp(st->status, "ok")) {
    c->counts[C_FILES_OK]++;
  } else {
    c->counts[C_FILES_FAILED]++;
    for (int k = 0; k < SP_ERRCLASS_COUNT; ++k)
      if (!strcmp(st->status, sp_errclass_name(k))) c->fail_by_class[k]++;
    append_fail(c, st);
  }
  c->counts[C_LIGANDS] += (int64_t)c->result.n_ligands;
  c->counts[C_SITES] += (int64_t)c->result.n_sites;
  c->counts[C_SITE_ATOMS] += (int64_t)c->result.n_atoms;
  c->counts[C_ATOMS] += st->n_atoms;
  c->counts[C_BYTES] += st->bytes;
  c->counts[C_TEXT_BYTES] += st->text_bytes;
  rc = sp_rank_writer_append(c->writer, &c->result, &err);
  if (rc) {
    fprintf(stderr, "sitepack: rank %d: cannot write %s: %s\n", c->rank, st->path, err.msg);
    return rc;
  }
  return 0;
}

static void progress(const sp_progress *p, void *user) {
  run_ctx *c = user;
  if (c->job->quiet) return;
  double frac = p->cost_total > 0 ? p->cost_done / p->cost_total : 1.0;
  double rate = p->elapsed_s > 0 ? (double)p->tasks_done / p->elapsed_s : 0;
  double eta = frac > 0 && frac < 1 ? p->elapsed_s * (1 - frac) / frac : 0;
  if (c->tty) {
    int w = 30, k = (int)(frac * w + 0.5);
    char bar[40];
    for (int i = 0; i < w; ++i) bar[i] = i < k ? '#' : '.';
    bar[w] = 0;
    fprintf(stderr, "\r[%s] %lld/%lld files %5.1f%%  %.1f files/s  ETA %.0f s ", bar, (long long)p->tasks_done,
            (long long)p->tasks_total, 100 * frac, rate, eta);
    if (p->final) fputc('\n', stderr);
  } else if (p->final || p->elapsed_s - c->last_line >= 10.0) {
    c->last_line = p->elapsed_s;
    fprintf(stderr, "progress: %lld/%lld files (%.1f%% of estimated work), %.1f files/s, elapsed %.1f s, ETA %.0f s\n",
            (long long)p->tasks_done, (long long)p->tasks_total, 100 * frac, rate, p->elapsed_s, eta);
  }
  fflush(stderr);
}

/* Estimated cost of a file for the plan: bytes of text; gzip bytes weighted by 4
 * (about the inflate ratio of PDB entries). */
static double file_cost(const char *root, const char *rel, int64_t bytes) {
  char full[4096];
  snprintf(full, sizeof full, "%s/%s", root, rel);
  unsigned char magic[2] = {0, 0};
  int fd = open(full, O_RDONLY);
  if (fd >= 0) {
    if (read(fd, magic, 2) != 2) magic[0] = 0;
    close(fd);
  }
  double w = (magic[0] == 0x1f && magic[1] == 0x8b) ? 4.0 : 1.0;
  return w * (double)(bytes > 0 ? bytes : 1);
}

/* mkdir -p: create @p path and its missing parents. */
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

static int write_report(const sp_job *job, int P, const sp_sched_stats *all, const long *rss_kib,
                        const int64_t *counts, const int64_t *by_class, const char *fails, size_t n_files,
                        double wall, double merge_s, double makespan_lb_ratio, const char *ccd_sha) {
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
  cJSON *fc = cJSON_AddObjectToObject(files, "failed_by_class");
  for (int k = 1; k < SP_ERRCLASS_COUNT; ++k)
    if (by_class[k]) cJSON_AddNumberToObject(fc, sp_errclass_name(k), (double)by_class[k]);
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
  cJSON_AddNumberToObject(r, "makespan_over_lower_bound", makespan_lb_ratio);
  cJSON *ranks = cJSON_AddArrayToObject(r, "ranks");
  for (int i = 0; i < P; ++i) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "rank", all[i].rank);
    cJSON_AddNumberToObject(o, "tasks_planned", (double)all[i].tasks_planned);
    cJSON_AddNumberToObject(o, "tasks", (double)all[i].tasks_done);
    cJSON_AddNumberToObject(o, "cost_done", all[i].cost_done);
    cJSON_AddNumberToObject(o, "busy_seconds", all[i].busy_s);
    cJSON_AddNumberToObject(o, "idle_seconds", all[i].idle_s);
    cJSON_AddNumberToObject(o, "wall_seconds", all[i].wall_s);
    cJSON_AddNumberToObject(o, "steals", (double)all[i].steals);
    cJSON_AddNumberToObject(o, "stolen", (double)all[i].stolen);
    cJSON_AddNumberToObject(o, "steal_attempts", (double)all[i].steal_attempts);
    cJSON_AddNumberToObject(o, "peak_rss_bytes", rss_kib[i] >= 0 ? (double)rss_kib[i] * 1024.0 : -1);
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
  sp_result_init(&c.result);
  sp_scan_list scan = {0};
  sp_plan plan = {0};
  char parts_dir[4096] = "";
  char ccd_sha[65] = "";
  sp_err err = {0};

  /* rank 0: output policy, scan, CCD check, plan */
  if (rank == 0) {
    struct stat sb;
    snprintf(parts_dir, sizeof parts_dir, "%s.parts", job.output);
    if (!job.force && stat(job.output, &sb) == 0) {
      fprintf(stderr, "sitepack run: output %s exists (use --force to overwrite)\n", job.output);
      status = SP_EXIT_USAGE;
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
      double *cost = calloc(c.n, sizeof *cost);
      if (!c.paths || !c.bytes || !cost) {
        fprintf(stderr, "sitepack run: out of memory\n");
        status = SP_EXIT_RUNTIME;
      } else {
        for (size_t i = 0; i < c.n; ++i) {
          c.paths[i] = scan.files[i].path;
          c.bytes[i] = scan.files[i].bytes;
          cost[i] = file_cost(job.input, c.paths[i], c.bytes[i]);
        }
        if (sp_plan_lpt(cost, c.n, P, &plan, &err)) {
          fprintf(stderr, "sitepack run: plan: %s\n", err.msg);
          status = SP_EXIT_RUNTIME;
        }
      }
      free(cost);
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

  /* CCD: every rank reads its own copy (a node-shared copy is future work, issue 4) */
  int ccd_rc = 0;
  if (job.ccd) {
    ccd_rc = sp_ccd_open(job.ccd, &c.ccd, &err);
    if (ccd_rc && rank == 0) fprintf(stderr, "sitepack run: CCD %s: %s\n", job.ccd, err.msg);
    if (!ccd_rc && rank == 0) {
      sp_buf b = {0};
      sp_err e2 = {0};
      /* provenance: hash of the CCD file as stored */
      if (!sp_file_read(job.ccd, 0, &b, &e2)) memcpy(ccd_sha, b.sha256, sizeof ccd_sha);
      sp_buf_free(&b);
    }
  }
  MPI_Allreduce(MPI_IN_PLACE, &ccd_rc, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (ccd_rc) {
    status = SP_EXIT_USAGE;
    goto done;
  }

  /* per-rank output */
  if (rank != 0) snprintf(parts_dir, sizeof parts_dir, "%s.parts", job.output);
  char part_path[4200];
  snprintf(part_path, sizeof part_path, "%s/rank-%05d.h5", parts_dir, rank);
  c.worker = sp_worker_new();
  c.writer = c.worker ? sp_rank_writer_open(part_path, &err) : NULL;
  int open_rc = c.writer ? 0 : 1;
  if (open_rc) fprintf(stderr, "sitepack: rank %d: cannot create %s: %s\n", rank, part_path, err.msg);
  MPI_Allreduce(MPI_IN_PLACE, &open_rc, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (open_rc) {
    status = SP_EXIT_RUNTIME;
    goto done;
  }

  /* the run */
  sp_sched_opts so;
  sp_sched_opts_default(&so);
  so.progress = progress;
  so.progress_user = &c;
  so.progress_interval_s = c.tty ? 0.2 : 1.0;
  sp_sched_stats stats;
  memset(&stats, 0, sizeof stats);
  int run_rc = sp_sched_run_ex(MPI_COMM_WORLD, rank == 0 ? &plan : NULL, do_task, &c, &so, &stats, &err);
  if (run_rc && rank == 0) fprintf(stderr, "sitepack run: %s\n", err.msg);
  if (sp_rank_writer_close(c.writer, &err)) {
    fprintf(stderr, "sitepack: rank %d: closing %s: %s\n", rank, part_path, err.msg);
    if (!run_rc) run_rc = SP_E_HDF5;
  }
  c.writer = NULL;
  MPI_Allreduce(MPI_IN_PLACE, &run_rc, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);

  /* gather statistics, counters and failures */
  sp_sched_stats *all = rank == 0 ? calloc((size_t)P, sizeof *all) : NULL;
  long *rss = rank == 0 ? calloc((size_t)P, sizeof *rss) : NULL;
  sp_sched_gather_stats(MPI_COMM_WORLD, &stats, all, &err);
  long my_rss = peak_rss_kib();
  MPI_Gather(&my_rss, 1, MPI_LONG, rss, 1, MPI_LONG, 0, MPI_COMM_WORLD);
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
  double t_run = MPI_Wtime() - t_start;

  /* rank 0: merge, report, summary */
  if (rank == 0) {
    if (run_rc) {
      status = SP_EXIT_RUNTIME;
    } else {
      double t_m0 = MPI_Wtime();
      char **inputs = calloc((size_t)P, sizeof *inputs);
      for (int i = 0; inputs && i < P; ++i) {
        inputs[i] = malloc(4200);
        if (inputs[i]) snprintf(inputs[i], 4200, "%s/rank-%05d.h5", parts_dir, i);
      }
      char tmp[4200];
      snprintf(tmp, sizeof tmp, "%s.tmp", job.output);
      char created[32];
      iso_now(created, sizeof created);
      sp_merge_info info = {.tool_version = SP_VERSION, .git_sha = SP_GIT_SHA, .job_json = job.json,
                            .ccd_path = job.ccd, .ccd_sha256 = ccd_sha, .created = created,
                            .n_ranks = P, .wall_seconds = t_run};
      int mrc = inputs ? sp_merge(tmp, (const char *const *)inputs, (size_t)P, &info, &err) : SP_E_NOMEM;
      if (mrc) {
        fprintf(stderr, "sitepack run: merge failed: %s: %s\n", sp_errclass_name(mrc), err.msg);
        status = SP_EXIT_RUNTIME;
        remove(tmp);
      } else if (rename(tmp, job.output)) {
        fprintf(stderr, "sitepack run: cannot rename %s to %s: %s\n", tmp, job.output, strerror(errno));
        status = SP_EXIT_RUNTIME;
      }
      if (!status && !job.keep_parts) {
        for (int i = 0; i < P; ++i) remove(inputs[i]);
        rmdir(parts_dir);
      }
      for (int i = 0; inputs && i < P; ++i) free(inputs[i]);
      free(inputs);
      double merge_s = MPI_Wtime() - t_m0;
      double wall = MPI_Wtime() - t_start;
      double lb = sp_plan_lower_bound(&plan), span = 0;
      for (int i = 0; i < P; ++i)
        if (all[i].cost_done > span) span = all[i].cost_done;
      if (!status &&
          write_report(&job, P, all, rss, counts, by_class, fails, c.n, wall, merge_s, lb > 0 ? span / lb : 0,
                       ccd_sha[0] ? ccd_sha : NULL))
        fprintf(stderr, "sitepack run: cannot write report %s\n", job.report);
      if (!status) {
        printf("sitepack: %zu files in %.2f s (%.1f files/s) on %d ranks\n", c.n, wall, (double)c.n / wall, P);
        printf("  files ok %lld, failed %lld", (long long)counts[C_FILES_OK], (long long)counts[C_FILES_FAILED]);
        int first = 1;
        for (int k = 1; k < SP_ERRCLASS_COUNT; ++k)
          if (by_class[k]) {
            printf("%s%s %lld", first ? " (" : ", ", sp_errclass_name(k), (long long)by_class[k]);
            first = 0;
          }
        printf("%s\n", first ? "" : ")");
        printf("  ligands %lld, sites %lld, site atoms %lld\n", (long long)counts[C_LIGANDS],
               (long long)counts[C_SITES], (long long)counts[C_SITE_ATOMS]);
        int64_t steals = 0;
        for (int i = 0; i < P; ++i) steals += all[i].steals;
        printf("  steals %lld; busy/wall per rank:", (long long)steals);
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
  free(rss);
  free(lens);
  free(displ);
  free(fails);
  MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);

done:
  if (c.writer) sp_rank_writer_close(c.writer, NULL);
  sp_worker_free(c.worker);
  sp_result_free(&c.result);
  if (c.ccd) sp_ccd_close(c.ccd);
  free(c.fail_lines);
  if (rank == 0) {
    free(c.paths); /* the strings belong to scan */
    sp_scan_list_free(&scan);
  } else if (c.paths) {
    if (c.n) free(c.paths[0]); /* the blob */
    free(c.paths);
  }
  free(c.bytes);
  sp_plan_free(&plan);
  sp_job_free(&job);
  MPI_Finalize();
  return status;
}

/* `sitepack run`: the tasks of one scheduled phase (app/run_ctx.h): the plan, the broadcast of the
 * task list, the work-stealing run, and per task the worker's stages, the append to this rank's file,
 * the counters, failures and timings that the report gathers, and the progress lines. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "app/run_ctx.h"
#include "app/run_guard.h"

/* Append "path\tclass\tmessage\n" of a failed file to c->fail_lines (grown as needed; a line that
   does not fit the buffer is cut; out of memory: the line is dropped, the report lists fewer). */
static void append_fail(struct run_ctx *c, const sp_structure_row *st) {
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
/* Append one task timing v[S_N] to c->samples. Returns 0 or SP_E_NOMEM. */
static int add_sample(struct run_ctx *c, const double *v) {
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
static void test_delay(struct run_ctx *c) {
  if (c->delay_ms <= 0) return;
  c->rng = c->rng * 1103515245u + 12345u;
  double ms = (double)((c->rng >> 8) % (unsigned)(c->delay_ms + 1));
  struct timespec ts = {(time_t)(ms / 1000), (long)fmod(ms, 1000.0) * 1000000L};
  nanosleep(&ts, NULL);
}

/* The task callback of the scheduler (sched.h): task @p task of c->tasks through the worker (phase A:
   sp_worker_process_first, deciding the split; phase B: one part), appended to c->writer; counted.
   Returns 0 or the error class that stops the run (printed). */
static int do_task(size_t task, void *user) {
  struct run_ctx *c = user;
  sp_err err = {0};
  if (run_stop_signal()) return SP_E_INTERRUPTED; /* issue 16: stop at a task boundary (not run, not written) */
  double t0 = MPI_Wtime();
  const sp_task_ref *tr = &c->tasks[task];
  size_t f = (size_t)tr->file_idx;
  int rc = c->phase == 0
               ? sp_worker_process_first(c->worker, c->job.input, c->paths[f], tr->file_idx, &c->job.split, &c->model,
                                         c->ccd, &c->job.opts, &c->result, &err)
               : sp_worker_process_part(c->worker, c->job.input, c->paths[f], tr->file_idx, tr->part, tr->n_parts,
                                        c->ccd, &c->job.opts, &c->result, &err);
  if (rc) {
    fprintf(stderr, "sitepack: rank %d: %s\n", c->rank, err.msg);
    return rc;
  }
  const sp_structure_row *st = &c->result.st;
  if (c->result.has_structure_row) c->result.st.entry_first = c->entry_first[f]; /* issue 16 item 12 */
  /* a file that failed before its parser named the entry (truncated_gzip, syntax_error ...): the entry id
     its head gave the scan, so that grouping by entry_id sees what entry_first links (docs/format.md) */
  if (c->result.has_structure_row && strcmp(c->result.st.status, "ok") && !c->result.st.entry_id[0])
    sp_text_escape_fit(c->result.st.entry_id, sizeof c->result.st.entry_id, c->entry_key[f]);
  if (c->result.has_structure_row) {
    if (!strcmp(st->status, "ok")) {
      c->counts[C_FILES_OK]++;
    } else {
      c->counts[C_FILES_FAILED]++;
      int k = sp_errclass_from_name(st->status);
      if (k > 0) c->fail_by_class[k]++;
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
  double t_write = MPI_Wtime();
  rc = sp_rank_writer_append(c->writer, &c->result, &err);
  t_write = MPI_Wtime() - t_write;
  if (rc) {
    fprintf(stderr, "sitepack: rank %d: cannot write %s: %s\n", c->rank, st->path, err.msg);
    /* issue 9: a failed write or flush (a full disk) can leave chunks of earlier tasks damaged on disk:
       the file is renamed to *.failed so that --resume does not trust it (its tasks run again) */
    char failed[4300];
    if (c->part_path[0] && snprintf(failed, sizeof failed, "%s.failed", c->part_path) < (int)sizeof failed)
      rename(c->part_path, failed);
    return rc;
  }
  double secs = MPI_Wtime() - t0;
  /* a file whose site failed has no t_site: its chemistry so far is not counted either */
  double chem = c->result.t_chem < st->t_site ? c->result.t_chem : st->t_site;
  /* issue 36: the descriptors out of the survey (components) and the chemistry (instances) into their own phase */
  double dc = c->result.t_desc_comp < st->t_survey ? c->result.t_desc_comp : st->t_survey;
  double dl = c->result.t_desc_lig < chem ? c->result.t_desc_lig : chem;
  const double w[W_N] = {st->t_read - c->result.t_sha256, c->result.t_sha256, st->t_parse, st->t_survey - dc,
                         st->t_site - chem, chem - dl, t_write, dc + dl};
  for (int k = 0; k < W_N; k++) c->work[k] += w[k];
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

/* The scheduler's progress callback (rank 0): one line per 10 s, or a bar on a terminal, over both phases. */
static void progress(const sp_progress *p, void *user) {
  struct run_ctx *c = user;
  if (c->job.quiet) return;
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

/* Collective: rank 0's c->tasks of the phase to every rank (other ranks' c->tasks replaced). Returns 0,
   or -1 on every rank when one is out of memory or the list is too long for one MPI message. */
static int bcast_tasks(struct run_ctx *c) {
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

static int cmp_task_up(const void *a, const void *b) {
  size_t x = *(const size_t *)a, y = *(const size_t *)b;
  return x < y ? -1 : x > y;
}
static int cmp_task_down(const void *a, const void *b) { return cmp_task_up(b, a); }

/* Test hook: SITEPACK_TEST_TASK_ORDER=input (or reverse) runs each rank's queue in task order (the sorted
 * input list), or in reverse, instead of the plan's largest-first order, so that a test can show that the
 * merged content does not depend on what a rank processed before (tests/integration/order.sh). */
static void test_task_order(sp_plan *plan, int n_ranks) {
  const char *o = getenv("SITEPACK_TEST_TASK_ORDER");
  if (!o || (strcmp(o, "input") && strcmp(o, "reverse"))) return;
  for (int r = 0; r < n_ranks; r++)
    qsort(plan->queue + plan->queue_ptr[r], plan->queue_ptr[r + 1] - plan->queue_ptr[r], sizeof *plan->queue,
          strcmp(o, "input") ? cmp_task_down : cmp_task_up);
}

/* Declared in app/run_ctx.h. */
int run_plan_tasks(struct run_ctx *c, const double *cost, sp_plan *plan, double **weight) {
  sp_err err = {0};
  *weight = malloc((c->n_tasks ? c->n_tasks : 1) * sizeof **weight);
  if (!*weight) return SP_E_NOMEM;
  for (size_t t = 0; t < c->n_tasks; t++) {
    const sp_task_ref *tr = &c->tasks[t];
    (*weight)[t] = tr->part == 0 ? (double)c->bytes[tr->file_idx] : 0; /* MB done: a file counts with its part 0 */
  }
  int rc = sp_plan_lpt(cost, c->n_tasks, c->n_ranks, plan, &err);
  if (rc) fprintf(stderr, "sitepack run: plan: %s\n", err.msg);
  if (!rc) test_task_order(plan, c->n_ranks);
  return rc;
}

/* Declared in app/run_ctx.h. */
int run_sched_tasks(struct run_ctx *c, const sp_plan *plan, const double *weight, sp_sched_stats *stats,
                    double *t_phase) {
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
  so.no_steal = c->job.no_steal;
  so.weight = weight;
  memset(stats, 0, sizeof *stats);
  double t0 = MPI_Wtime();
  int rc = sp_sched_run_ex(MPI_COMM_WORLD, c->rank == 0 ? plan : NULL, do_task, c, &so, stats, &err);
  *t_phase = MPI_Wtime() - t0;
  if (rc && rc != SP_E_INTERRUPTED && c->rank == 0) fprintf(stderr, "sitepack run: %s\n", err.msg);
  return rc;
}

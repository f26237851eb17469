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

/* Append "path\tclass\tmessage\n" of a failed file to a->fail_lines (grown as needed; a line that
   does not fit the buffer is cut; out of memory: the line is dropped, the report lists fewer). */
static void append_fail(struct run_acct *a, const sp_structure_row *st) {
  char line[SP_PATH_LEN + SP_ERR_MSG_LEN + 64];
  int n = snprintf(line, sizeof line, "%s\t%s\t%s\n", st->path, st->status, st->error);
  if (n <= 0) return;
  if ((size_t)n >= sizeof line) n = sizeof line - 1;
  if (a->fail_len + (size_t)n + 1 > a->fail_cap) {
    size_t nc = (a->fail_cap + (size_t)n + 1) * 2;
    char *p = realloc(a->fail_lines, nc);
    if (!p) return;
    a->fail_lines = p;
    a->fail_cap = nc;
  }
  memcpy(a->fail_lines + a->fail_len, line, (size_t)n);
  a->fail_len += (size_t)n;
  a->fail_lines[a->fail_len] = 0;
}
/* Append one task timing v[S_N] to a->samples. Returns 0 or SP_E_NOMEM. */
static int add_sample(struct run_acct *a, const double *v) {
  if (a->n_samples == a->cap_samples) {
    size_t nc = a->cap_samples ? a->cap_samples * 2 : 256;
    double *p = realloc(a->samples, nc * S_N * sizeof *p);
    if (!p) return SP_E_NOMEM;
    a->samples = p;
    a->cap_samples = nc;
  }
  memcpy(a->samples + a->n_samples * S_N, v, S_N * sizeof *v);
  a->n_samples++;
  return 0;
}

/* Test hook: SITEPACK_TEST_TASK_DELAY_MS=N sleeps a random 0..N ms after each task (outside the
   measured task time, inside the scheduler's busy time), to shuffle which rank runs what. */
static void test_delay(struct run_env *e) {
  if (e->delay_ms <= 0) return;
  e->rng = e->rng * 1103515245u + 12345u;
  double ms = (double)((e->rng >> 8) % (unsigned)(e->delay_ms + 1));
  struct timespec ts = {(time_t)(ms / 1000), (long)fmod(ms, 1000.0) * 1000000L};
  nanosleep(&ts, NULL);
}

/* Task @p tr (of phase @p phase) through the worker into o->result: phase A sp_worker_process_first,
   deciding the split; phase B one part. Returns 0 or the worker's error class (printed). */
static int task_stages(const struct run_env *e, const struct run_files *fl, const struct run_ccd *cc, int phase,
                       const sp_task_ref *tr, struct run_output *o) {
  sp_err err = {0};
  const char *path = fl->paths[tr->file_idx];
  int rc = phase == 0 ? sp_worker_process_first(o->worker, e->job.input, path, tr->file_idx, &e->job.split, &e->model,
                                                cc->ccd, &e->job.opts, &o->result, &err)
                      : sp_worker_process_part(o->worker, e->job.input, path, tr->file_idx, tr->part, tr->n_parts,
                                               cc->ccd, &e->job.opts, &o->result, &err);
  if (rc) fprintf(stderr, "sitepack: rank %d: %s\n", e->rank, err.msg);
  return rc;
}

/* The structure row of file @p f in @p r takes the entry fields of the scan (issue 16 item 12): entry_first,
   and for a file that failed before its parser named the entry (truncated_gzip, syntax_error ...) the entry
   id its head gave the scan, so that grouping by entry_id sees what entry_first links (docs/format.md). */
static void task_entry(const struct run_files *fl, size_t f, sp_result *r) {
  if (!r->has_structure_row) return;
  r->st.entry_first = fl->entry_first[f];
  if (strcmp(r->st.status, "ok") && !r->st.entry_id[0])
    sp_text_escape_fit(r->st.entry_id, sizeof r->st.entry_id, fl->entry_key[f]);
}

/* The rows of @p r counted in @p a (a failed file: its class and line); phase A (@p phase 0): the split
   decided for file @p f, its ligands and atoms into @p s. */
static void task_count(struct run_acct *a, struct run_sched *s, int phase, size_t f, const sp_result *r) {
  const sp_structure_row *st = &r->st;
  if (r->has_structure_row) {
    if (!strcmp(st->status, "ok")) {
      a->counts[C_FILES_OK]++;
    } else {
      a->counts[C_FILES_FAILED]++;
      int k = sp_errclass_from_name(st->status);
      if (k > 0) a->fail_by_class[k]++;
      append_fail(a, st);
    }
    a->counts[C_ATOMS] += st->n_atoms;
    a->counts[C_BYTES] += st->bytes;
    a->counts[C_TEXT_BYTES] += st->text_bytes;
  }
  a->counts[C_LIGANDS] += (int64_t)r->n_ligands;
  a->counts[C_SITES] += (int64_t)r->n_sites;
  a->counts[C_SITE_ATOMS] += (int64_t)r->n_atoms;
  if (phase == 0) {
    s->parts_found[f] = r->n_parts;
    s->ligs_found[f] = !strcmp(st->status, "ok") ? st->n_ligands : -1;
    s->atoms_found[f] = st->n_atoms;
  }
}

/* o->result appended to this rank's file; *t_write its seconds. Returns 0 or the writer's error class
   (printed). */
static int task_write(const struct run_env *e, struct run_output *o, double *t_write) {
  sp_err err = {0};
  double t0 = MPI_Wtime();
  int rc = sp_rank_writer_append(o->writer, &o->result, &err);
  *t_write = MPI_Wtime() - t0;
  if (rc) {
    fprintf(stderr, "sitepack: rank %d: cannot write %s: %s\n", e->rank, o->result.st.path, err.msg);
    /* issue 9: a failed write or flush (a full disk) can leave chunks of earlier tasks damaged on disk:
       the file is renamed to *.failed so that --resume does not trust it (its tasks run again) */
    char failed[4300];
    if (o->part_path[0] && snprintf(failed, sizeof failed, "%s.failed", o->part_path) < (int)sizeof failed)
      rename(o->part_path, failed);
  }
  return rc;
}

/* Task @p task of phase @p phase (file @p f, @p secs seconds in all, @p t_write of them writing) in the
   timings of @p a: seconds by phase, bytes done, one sample. Returns 0 or SP_E_NOMEM. */
static int task_time(struct run_acct *a, const struct run_files *fl, int phase, size_t task, size_t f,
                     const sp_result *r, double secs, double t_write) {
  const sp_structure_row *st = &r->st;
  int n_parts = r->n_parts;
  /* a file whose site failed has no t_site: its chemistry so far is not counted either */
  double chem = r->t_chem < st->t_site ? r->t_chem : st->t_site;
  /* issue 36: the descriptors out of the survey (components) and the chemistry (instances) into their own phase */
  double dc = r->t_desc_comp < st->t_survey ? r->t_desc_comp : st->t_survey;
  double dl = r->t_desc_lig < chem ? r->t_desc_lig : chem;
  const double w[W_N] = {st->t_read - r->t_sha256, r->t_sha256, st->t_parse, st->t_survey - dc,
                         st->t_site - chem, chem - dl, t_write, dc + dl};
  for (int k = 0; k < W_N; k++) a->work[k] += w[k];
  a->bytes_done += (double)fl->bytes[f] / (n_parts > 0 ? n_parts : 1);
  double v[S_N] = {phase, (double)task, secs, (double)st->bytes, st->gzip, (double)st->n_atoms, (double)r->n_ligands,
                   n_parts};
  return add_sample(a, v);
}

/* The task callback of the scheduler (sched.h): task @p task of c->sched.tasks through the worker's stages
   (task_stages), its entry fields (task_entry), counted (task_count), appended to c->out.writer
   (task_write), timed (task_time). Returns 0 or the error class that stops the run (printed). */
static int do_task(size_t task, void *user) {
  struct run_ctx *c = user;
  if (run_stop_signal()) return SP_E_INTERRUPTED; /* issue 16: stop at a task boundary (not run, not written) */
  double t0 = MPI_Wtime(), t_write = 0;
  const sp_task_ref *tr = &c->sched.tasks[task];
  size_t f = (size_t)tr->file_idx;
  int phase = c->sched.phase;
  int rc = task_stages(&c->env, &c->files, &c->ccd, phase, tr, &c->out);
  if (rc) return rc;
  task_entry(&c->files, f, &c->out.result);
  task_count(&c->acct, &c->sched, phase, f, &c->out.result);
  if ((rc = task_write(&c->env, &c->out, &t_write))) return rc;
  if (task_time(&c->acct, &c->files, phase, task, f, &c->out.result, MPI_Wtime() - t0, t_write)) {
    fprintf(stderr, "sitepack: rank %d: out of memory (task timings)\n", c->env.rank);
    return SP_E_NOMEM;
  }
  test_delay(&c->env);
  return 0;
}

/* The scheduler's progress callback (rank 0): one line per 10 s, or a bar on a terminal, over both phases. */
static void progress(const sp_progress *p, void *user) {
  struct run_ctx *c = user;
  const struct run_env *e = &c->env;
  struct run_progress *pr = &c->prog;
  if (e->job.quiet) return;
  int64_t done = pr->tasks_base + p->tasks_done, total = pr->tasks_total;
  double mb = (pr->bytes_base + p->weight_done) / 1e6, mb_total = pr->bytes_total / 1e6;
  double cost_done = pr->cost_base + p->cost_done;
  double frac = pr->cost_total > 0 ? cost_done / pr->cost_total : 1.0;
  if (frac > 1) frac = 1;
  double el = pr->time_base + p->elapsed_s;
  double rate = el > 0 ? mb / el : 0;
  /* ETA from the estimated cost left (the cost model is in seconds of one rank) */
  double eta = frac > 0 && frac < 1 ? el * (1 - frac) / frac : 0;
  int last = p->final; /* the end of a phase (phase B, when it runs, starts a new line) */
  if (e->tty) {
    int w = 24, k = (int)(frac * w + 0.5);
    char bar[32];
    for (int i = 0; i < w; ++i) bar[i] = i < k ? '#' : '.';
    bar[w] = 0;
    fprintf(stderr, "\r[%s] %lld/%lld tasks  %.1f/%.1f MB  %5.1f%%  %.1f MB/s  ETA %.0f s ", bar, (long long)done,
            (long long)total, mb, mb_total, 100 * frac, rate, eta);
    if (last) fputc('\n', stderr);
  } else if (last || el - pr->last_line >= 10.0) {
    pr->last_line = el;
    fprintf(stderr,
            "progress: %lld/%lld tasks, %.1f/%.1f MB (%.1f%% of estimated work), %.1f MB/s, elapsed %.1f s, ETA %.0f s\n",
            (long long)done, (long long)total, mb, mb_total, 100 * frac, rate, el, eta);
  }
  fflush(stderr);
}

/* Collective: rank 0's s->tasks of the phase to every rank (other ranks' s->tasks replaced). Returns 0,
   or -1 on every rank when one is out of memory or the list is too long for one MPI message. */
static int bcast_tasks(struct run_sched *s, int rank) {
  uint64_t n = s->n_tasks;
  MPI_Bcast(&n, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  if (n > (uint64_t)INT32_MAX / 3) return -1;
  int64_t *buf = malloc((n ? n : 1) * 3 * sizeof *buf);
  int bad = buf == NULL;
  if (rank != 0 && !bad) {
    free(s->tasks);
    s->tasks = malloc((n ? n : 1) * sizeof *s->tasks);
    bad = s->tasks == NULL;
  }
  int any_bad = 0;
  MPI_Allreduce(&bad, &any_bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (any_bad) {
    free(buf);
    return -1;
  }
  if (rank == 0)
    for (size_t t = 0; t < n; t++) {
      buf[3 * t] = s->tasks[t].file_idx;
      buf[3 * t + 1] = s->tasks[t].part;
      buf[3 * t + 2] = s->tasks[t].n_parts;
    }
  if (n) MPI_Bcast(buf, (int)(3 * n), MPI_INT64_T, 0, MPI_COMM_WORLD);
  s->n_tasks = (size_t)n;
  for (size_t t = 0; t < n; t++) {
    s->tasks[t].file_idx = buf[3 * t];
    s->tasks[t].part = (int32_t)buf[3 * t + 1];
    s->tasks[t].n_parts = (int32_t)buf[3 * t + 2];
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
int run_plan_tasks(const struct run_sched *s, const struct run_files *f, int n_ranks, const double *cost,
                   sp_plan *plan, double **weight) {
  sp_err err = {0};
  *weight = malloc((s->n_tasks ? s->n_tasks : 1) * sizeof **weight);
  if (!*weight) return SP_E_NOMEM;
  for (size_t t = 0; t < s->n_tasks; t++) {
    const sp_task_ref *tr = &s->tasks[t];
    (*weight)[t] = tr->part == 0 ? (double)f->bytes[tr->file_idx] : 0; /* MB done: a file counts with its part 0 */
  }
  int rc = sp_plan_lpt(cost, s->n_tasks, n_ranks, plan, &err);
  if (rc) fprintf(stderr, "sitepack run: plan: %s\n", err.msg);
  if (!rc) test_task_order(plan, n_ranks);
  return rc;
}

/* Declared in app/run_ctx.h. */
int run_sched_tasks(struct run_ctx *c, const sp_plan *plan, const double *weight, sp_sched_stats *stats,
                    double *t_phase) {
  sp_err err = {0};
  if (bcast_tasks(&c->sched, c->env.rank)) {
    fprintf(stderr, "sitepack: rank %d: out of memory (task list)\n", c->env.rank);
    return SP_E_NOMEM;
  }
  sp_sched_opts so;
  sp_sched_opts_default(&so);
  so.progress = progress;
  so.progress_user = c;
  so.progress_interval_s = c->env.tty ? 0.2 : 1.0;
  so.no_steal = c->env.job.no_steal;
  so.weight = weight;
  memset(stats, 0, sizeof *stats);
  double t0 = MPI_Wtime();
  int rc = sp_sched_run_ex(MPI_COMM_WORLD, c->env.rank == 0 ? plan : NULL, do_task, c, &so, stats, &err);
  *t_phase = MPI_Wtime() - t0;
  if (rc && rc != SP_E_INTERRUPTED && c->env.rank == 0) fprintf(stderr, "sitepack run: %s\n", err.msg);
  return rc;
}

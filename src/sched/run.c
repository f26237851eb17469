/* The MPI run loop: per-rank queues in an MPI_Win_allocate window, claims by
 * MPI_Fetch_and_op on per-task flags, cost-aware stealing, progress counters.
 * Protocol and proofs: docs/scheduling.md. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sitepack/sched.h"

/* Window layout, in 8-byte slots (disp_unit 8). Counters in slots 0..7; then, for the
   n tasks of this rank's queue: n claim flags (int64), n task ids (int64), n costs (double). */
enum {
  SLOT_HEAD = 0,      /* int64: front claims made by the owner (fetch-and-add 1 each) */
  SLOT_TAIL = 1,      /* int64: back claims made by thieves (fetch-and-add 1 each) */
  SLOT_LOAD = 2,      /* double: unclaimed cost of this queue + cost of the task this rank runs */
  SLOT_ABORT = 3,     /* int64, rank 0 only: > 0 once some rank's task failed */
  SLOT_DONE = 4,      /* int64, rank 0 only: tasks finished, all ranks */
  SLOT_COST_DONE = 5, /* double, rank 0 only: cost of the finished tasks */
  SLOT_WEIGHT_DONE = 6, /* double, rank 0 only: sp_sched_opts.weight of the finished tasks */
  SLOT_HDR = 8
};

typedef struct ctx {
  MPI_Comm comm;
  MPI_Win win;
  int rank, size;
  sp_plan plan;       /* full copy on every rank */
  void *base;         /* this rank's window memory */
  double t_start;
  sp_sched_stats st;
  const sp_sched_opts *opts;
  double last_progress;
  double cost_total;  /* sum of plan.cost */
  double *weight;     /* [n_tasks] copy of rank 0's opts->weight, or NULL */
  double weight_total;
  int abort_seen;
  sp_task_fn fn;
  void *user;
} ctx;

#define MPICHECK(call)                                                         \
  do {                                                                         \
    int mpi_rc_ = (call);                                                      \
    if (mpi_rc_ != MPI_SUCCESS) return mpi_fail(#call, mpi_rc_, err);          \
  } while (0)

static int mpi_fail(const char *what, int code, sp_err *err) {
  char s[MPI_MAX_ERROR_STRING] = "";
  int len = 0;
  if (MPI_Error_string(code, s, &len) != MPI_SUCCESS) s[0] = '\0';
  return sp_err_set(err, SP_E_MPI, "sched: %.60s failed: %.120s", what, s);
}

static size_t qlen(const ctx *c, int r) { return c->plan.queue_ptr[r + 1] - c->plan.queue_ptr[r]; }

static MPI_Aint slot_flag(size_t k) { return (MPI_Aint)(SLOT_HDR + k); }

/* Fetch-and-op helpers: results are valid after the next flush of the target. */
static int fao_i64(ctx *c, const int64_t *operand, int64_t *result, int target, MPI_Aint slot, MPI_Op op,
                   sp_err *err) {
  MPICHECK(MPI_Fetch_and_op(operand, result, MPI_INT64_T, target, slot, op, c->win));
  return 0;
}

static int fao_dbl(ctx *c, const double *operand, double *result, int target, MPI_Aint slot, MPI_Op op,
                   sp_err *err) {
  MPICHECK(MPI_Fetch_and_op(operand, result, MPI_DOUBLE, target, slot, op, c->win));
  return 0;
}

static int acc_dbl(ctx *c, const double *v, int target, MPI_Aint slot, sp_err *err) {
  MPICHECK(MPI_Accumulate(v, 1, MPI_DOUBLE, target, slot, 1, MPI_DOUBLE, MPI_SUM, c->win));
  return 0;
}

static int acc_i64(ctx *c, const int64_t *v, int target, MPI_Aint slot, sp_err *err) {
  MPICHECK(MPI_Accumulate(v, 1, MPI_INT64_T, target, slot, 1, MPI_INT64_T, MPI_SUM, c->win));
  return 0;
}

static int flush(ctx *c, int target, sp_err *err) {
  MPICHECK(MPI_Win_flush(target, c->win));
  return 0;
}

static int flush_all(ctx *c, sp_err *err) {
  MPICHECK(MPI_Win_flush_all(c->win));
  return 0;
}

/* Enter the MPI library so that implementations without asynchronous progress serve
   other ranks' RMA requests aimed at this one. No message is ever sent on c->comm. */
static int poke_progress(ctx *c, sp_err *err) {
  int flag = 0;
  MPICHECK(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, c->comm, &flag, MPI_STATUS_IGNORE));
  return 0;
}

static void idle_sleep(double s) {
  struct timespec ts;
  ts.tv_sec = (time_t)s;
  ts.tv_nsec = (long)((s - (double)ts.tv_sec) * 1e9);
  nanosleep(&ts, NULL);
}

/* Rank 0: read the global counters and call the progress callback (throttled unless final). */
static int report_progress(ctx *c, int final, sp_err *err) {
  if (c->rank != 0 || !c->opts->progress) return 0;
  double now = MPI_Wtime();
  if (!final && c->last_progress >= 0 && now - c->last_progress < c->opts->progress_interval_s) return 0;
  int64_t zero = 0, done = 0;
  double dzero = 0, cost_done = 0, weight_done = 0;
  int rc;
  if ((rc = fao_i64(c, &zero, &done, 0, SLOT_DONE, MPI_NO_OP, err))) return rc;
  if ((rc = fao_dbl(c, &dzero, &cost_done, 0, SLOT_COST_DONE, MPI_NO_OP, err))) return rc;
  if ((rc = fao_dbl(c, &dzero, &weight_done, 0, SLOT_WEIGHT_DONE, MPI_NO_OP, err))) return rc;
  if ((rc = flush(c, 0, err))) return rc;
  sp_progress p = {.tasks_done = done,
                   .tasks_total = (int64_t)c->plan.n_tasks,
                   .cost_done = cost_done,
                   .cost_total = c->cost_total,
                   .elapsed_s = now - c->t_start,
                   .final = final,
                   .weight_done = weight_done,
                   .weight_total = c->weight_total};
  c->last_progress = now;
  c->opts->progress(&p, c->opts->progress_user);
  return 0;
}

/* Run one claimed task and publish its completion: own load -= cost, global counters += (1, cost);
   read rank 0's abort flag in the same flush. A failing fn sets the abort flag. */
static int run_task(ctx *c, size_t task, int *task_rc, sp_err *err) {
  double cost = c->plan.cost[task];
  double t0 = MPI_Wtime();
  int frc = c->fn(task, c->user);
  c->st.busy_s += MPI_Wtime() - t0;
  c->st.tasks_done++;
  c->st.cost_done += cost;
  double neg = -cost;
  int64_t one = 1, zero = 0, abort_flag = 0;
  int rc;
  if ((rc = acc_dbl(c, &neg, c->rank, SLOT_LOAD, err))) return rc;
  if ((rc = acc_i64(c, &one, 0, SLOT_DONE, err))) return rc;
  if ((rc = acc_dbl(c, &cost, 0, SLOT_COST_DONE, err))) return rc;
  if (c->weight && (rc = acc_dbl(c, &c->weight[task], 0, SLOT_WEIGHT_DONE, err))) return rc;
  if (frc != 0) {
    if ((rc = acc_i64(c, &one, 0, SLOT_ABORT, err))) return rc;
    *task_rc = frc;
    sp_err_set(err, frc, "sched: task %zu failed on rank %d (%s)", task, c->rank, sp_errclass_name(frc));
    c->abort_seen = 1;
  } else {
    if ((rc = fao_i64(c, &zero, &abort_flag, 0, SLOT_ABORT, MPI_NO_OP, err))) return rc;
  }
  /* complete the updates at rank 0 and at this rank (only those two: no O(P) flush per task) */
  if ((rc = flush(c, 0, err))) return rc;
  if (c->rank != 0 && (rc = flush(c, c->rank, err))) return rc;
  if (abort_flag > 0) c->abort_seen = 1;
  if ((rc = poke_progress(c, err))) return rc;
  return report_progress(c, 0, err);
}

/* Pop the front of this rank's own queue until every index is claimed or covered by a
   thief's back claim (head index i with i + tail >= n: see docs/scheduling.md). */
static int own_queue(ctx *c, int *task_rc, sp_err *err) {
  size_t n = qlen(c, c->rank);
  const int64_t *ids = (const int64_t *)c->base + SLOT_HDR + n;
  int64_t one = 1, zero = 0;
  int rc;
  while (!c->abort_seen && !*task_rc) {
    int64_t i = 0, t = 0, old = 0;
    if ((rc = fao_i64(c, &one, &i, c->rank, SLOT_HEAD, MPI_SUM, err))) return rc;
    if ((rc = fao_i64(c, &zero, &t, c->rank, SLOT_TAIL, MPI_NO_OP, err))) return rc;
    if ((rc = flush(c, c->rank, err))) return rc;
    if (i < 0 || (uint64_t)i >= n || (uint64_t)i + (uint64_t)(t < 0 ? 0 : t) >= n) return 0;
    if ((rc = fao_i64(c, &one, &old, c->rank, slot_flag((size_t)i), MPI_SUM, err))) return rc;
    if ((rc = flush(c, c->rank, err))) return rc;
    if (old != 0) continue; /* a thief took it */
    int64_t task = ids[i];
    if (task < 0 || (uint64_t)task >= c->plan.n_tasks)
      return sp_err_set(err, SP_E_INTERNAL, "sched: task id %lld out of range in rank %d's window",
                        (long long)task, c->rank);
    if ((rc = run_task(c, (size_t)task, task_rc, err))) return rc;
  }
  return 0;
}

/* Read every other rank's counters; pick the victim with the most estimated work left among
   those with unclaimed tasks whose back task pays to steal. *any: some queue has unclaimed work. */
static int choose_victim(ctx *c, int64_t *head, int64_t *tail, double *load, int *victim, int *any, sp_err *err) {
  int64_t zero = 0, abort_flag = 0;
  double dzero = 0;
  int rc;
  for (int v = 0; v < c->size; v++) {
    head[v] = tail[v] = 0;
    load[v] = 0;
    if (v == c->rank || qlen(c, v) == 0) continue;
    if ((rc = fao_i64(c, &zero, &head[v], v, SLOT_HEAD, MPI_NO_OP, err))) return rc;
    if ((rc = fao_i64(c, &zero, &tail[v], v, SLOT_TAIL, MPI_NO_OP, err))) return rc;
    if ((rc = fao_dbl(c, &dzero, &load[v], v, SLOT_LOAD, MPI_NO_OP, err))) return rc;
  }
  if ((rc = fao_i64(c, &zero, &abort_flag, 0, SLOT_ABORT, MPI_NO_OP, err))) return rc;
  if ((rc = flush_all(c, err))) return rc;
  c->st.polls++;
  if (abort_flag > 0) c->abort_seen = 1;
  *victim = -1;
  *any = 0;
  for (int v = 0; v < c->size; v++) {
    int64_t n = (int64_t)qlen(c, v);
    if (v == c->rank || n == 0) continue;
    int64_t h = head[v] < 0 ? 0 : head[v], t = tail[v] < 0 ? 0 : tail[v];
    if (h >= n || t >= n || h + t >= n) continue;
    int64_t unclaimed = n - h - t;
    *any = 1;
    /* the task a back claim would get now: index n-1-t of v's queue */
    size_t back = c->plan.queue[c->plan.queue_ptr[v] + (size_t)(n - 1 - t)];
    double cost = c->plan.cost[back];
    /* pays: v has another unclaimed task to do meanwhile, or is still running one (its
       load counts its running task, so load > cost) */
    int pays = unclaimed >= 2 || load[v] > cost;
    if (pays && (*victim < 0 || load[v] > load[*victim])) *victim = v;
  }
  return 0;
}

/* TEST ONLY, never set in a real run: SITEPACK_TEST_STEAL_DELAY_US=N makes a thief sleep N microseconds
   between choosing its victim and its back claim (SLOT_TAIL). Meanwhile the owner's front claims can take
   the very task the back claim then lands on, which on two cores otherwise almost never happens; the
   thief must then see the task's flag taken and not run it (ctest sched_mpi_crossing_delay_np3,
   docs/scheduling.md). Read once per process; unset, empty or not a number > 0: no delay. */
static double steal_test_delay_s(void) {
  static double d = -1;
  if (d < 0) {
    const char *e = getenv("SITEPACK_TEST_STEAL_DELAY_US");
    double v = e ? atof(e) * 1e-6 : 0;
    d = v > 0 && v < 10 ? v : 0;
  }
  return d;
}

/* One back claim on victim v. *got: 1 if a task was claimed (and run). */
static int steal_from(ctx *c, int v, int *got, int *task_rc, sp_err *err) {
  int64_t one = 1, j = 0, old = 0;
  int rc;
  *got = 0;
  c->st.steal_attempts++;
  if (steal_test_delay_s() > 0) idle_sleep(steal_test_delay_s());
  if ((rc = fao_i64(c, &one, &j, v, SLOT_TAIL, MPI_SUM, err))) return rc;
  if ((rc = flush(c, v, err))) return rc;
  int64_t n = (int64_t)qlen(c, v);
  if (j < 0 || j >= n) return 0;
  int64_t idx = n - 1 - j;
  if ((rc = fao_i64(c, &one, &old, v, slot_flag((size_t)idx), MPI_SUM, err))) return rc;
  if ((rc = flush(c, v, err))) return rc;
  if (old != 0) return 0; /* the owner got there first */
  size_t task = c->plan.queue[c->plan.queue_ptr[v] + (size_t)idx];
  double cost = c->plan.cost[task], neg = -cost;
  /* the cost moves from v's load to ours until the task is done */
  if ((rc = acc_dbl(c, &neg, v, SLOT_LOAD, err))) return rc;
  if ((rc = acc_dbl(c, &cost, c->rank, SLOT_LOAD, err))) return rc;
  if ((rc = flush(c, v, err))) return rc; /* the victim's load is right before our task starts */
  c->st.steals++;
  *got = 1;
  return run_task(c, task, task_rc, err);
}

static int steal_loop(ctx *c, int *task_rc, sp_err *err) {
  size_t P = (size_t)c->size;
  int64_t *head = malloc(P * sizeof *head), *tail = malloc(P * sizeof *tail);
  double *load = malloc(P * sizeof *load);
  if (!head || !tail || !load) {
    free(head);
    free(tail);
    free(load);
    return sp_err_set(err, SP_E_NOMEM, "sched: out of memory for %d ranks' counters", c->size);
  }
  double sleep_max = c->opts->idle_sleep_max_s > 0 ? c->opts->idle_sleep_max_s : 1e-3;
  double sleep_s = 1e-5;
  int rc = 0;
  while (!c->abort_seen && !*task_rc) {
    int victim = -1, any = 0, got = 0;
    if ((rc = choose_victim(c, head, tail, load, &victim, &any, err))) break;
    if (c->abort_seen || !any) break;
    if (c->opts->no_steal) victim = -1; /* static plan only: wait for the owners */
    if (victim >= 0) {
      if ((rc = steal_from(c, victim, &got, task_rc, err))) break;
      if (got) {
        sleep_s = 1e-5;
        continue;
      }
      if ((rc = poke_progress(c, err))) break;
      continue; /* lost a race: read the counters again at once */
    }
    /* work is left but stealing it does not pay yet: its owner is about to take it */
    if ((rc = poke_progress(c, err))) break;
    if ((rc = report_progress(c, 0, err))) break;
    idle_sleep(sleep_s);
    sleep_s = sleep_s * 2 < sleep_max ? sleep_s * 2 : sleep_max;
  }
  free(head);
  free(tail);
  free(load);
  return rc;
}

/* Broadcast rank 0's plan into c->plan (every rank, rank 0 included, gets its own copy). */
static int bcast_plan(ctx *c, const sp_plan *plan, int fn_ok, sp_err *err) {
  /* hdr: status, n_tasks, n_ranks, status of fn over all ranks folded in below */
  int64_t hdr[3] = {0, 0, 0};
  if (c->rank == 0) {
    sp_err e0 = {0};
    if (!plan)
      hdr[0] = sp_err_set(err, SP_E_INVALID, "sched: NULL plan on rank 0");
    else if (sp_plan_check(plan, &e0))
      hdr[0] = sp_err_set(err, e0.cls, "sched: %s", e0.msg);
    else if (plan->n_ranks != c->size)
      hdr[0] = sp_err_set(err, SP_E_INVALID, "sched: plan is for %d ranks, communicator has %d", plan->n_ranks,
                          c->size);
    else if (plan->n_tasks > (size_t)INT_MAX)
      hdr[0] = sp_err_set(err, SP_E_TOO_LARGE, "sched: %zu tasks exceed an MPI count", plan->n_tasks);
    if (!hdr[0]) {
      hdr[1] = (int64_t)plan->n_tasks;
      hdr[2] = plan->n_ranks;
    }
  }
  MPICHECK(MPI_Bcast(hdr, 3, MPI_INT64_T, 0, c->comm));
  int all_fn_ok = 0;
  MPICHECK(MPI_Allreduce(&fn_ok, &all_fn_ok, 1, MPI_INT, MPI_MIN, c->comm));
  if (hdr[0]) {
    if (c->rank != 0)
      sp_err_set(err, (int)hdr[0], "sched: rank 0 rejected the plan (%s)", sp_errclass_name((int)hdr[0]));
    return (int)hdr[0];
  }
  if (!all_fn_ok) return sp_err_set(err, SP_E_INVALID, "sched: NULL task function on some rank");
  size_t n = (size_t)hdr[1];
  int P = (int)hdr[2];
  sp_plan *p = &c->plan;
  int nomem = 0;
  p->n_tasks = n;
  p->n_ranks = P;
  p->cost = malloc((n ? n : 1) * sizeof *p->cost);
  p->queue = malloc((n ? n : 1) * sizeof *p->queue);
  p->queue_ptr = malloc(((size_t)P + 1) * sizeof *p->queue_ptr);
  p->load = malloc((size_t)P * sizeof *p->load);
  uint64_t *tmp = malloc(((n > (size_t)P + 1 ? n : (size_t)P + 1)) * sizeof *tmp);
  nomem = !p->cost || !p->queue || !p->queue_ptr || !p->load || !tmp;
  int any_nomem = 0;
  MPICHECK(MPI_Allreduce(&nomem, &any_nomem, 1, MPI_INT, MPI_MAX, c->comm));
  if (any_nomem) {
    free(tmp);
    return sp_err_set(err, SP_E_NOMEM, "sched: out of memory for a plan of %zu tasks (some rank)", n);
  }
  if (c->rank == 0) {
    memcpy(p->cost, plan->cost, n * sizeof *p->cost);
    memcpy(p->load, plan->load, (size_t)P * sizeof *p->load);
  }
  int mrc = MPI_SUCCESS;
  if (n) mrc = MPI_Bcast(p->cost, (int)n, MPI_DOUBLE, 0, c->comm);
  if (mrc == MPI_SUCCESS) mrc = MPI_Bcast(p->load, P, MPI_DOUBLE, 0, c->comm);
  if (c->rank == 0)
    for (int r = 0; r <= P; r++) tmp[r] = plan->queue_ptr[r];
  if (mrc == MPI_SUCCESS) mrc = MPI_Bcast(tmp, P + 1, MPI_UINT64_T, 0, c->comm);
  for (int r = 0; r <= P; r++) p->queue_ptr[r] = (size_t)tmp[r];
  if (c->rank == 0)
    for (size_t k = 0; k < n; k++) tmp[k] = plan->queue[k];
  if (n && mrc == MPI_SUCCESS) mrc = MPI_Bcast(tmp, (int)n, MPI_UINT64_T, 0, c->comm);
  for (size_t k = 0; k < n; k++) p->queue[k] = (size_t)tmp[k];
  free(tmp);
  if (mrc != MPI_SUCCESS) return mpi_fail("MPI_Bcast of the plan", mrc, err);
  /* optional per-task weights (progress only) */
  int has_w = c->rank == 0 && c->opts->weight != NULL, w_nomem = 0, any_w_nomem = 0;
  MPICHECK(MPI_Bcast(&has_w, 1, MPI_INT, 0, c->comm));
  if (!has_w) return 0;
  c->weight = malloc((n ? n : 1) * sizeof *c->weight);
  w_nomem = c->weight == NULL;
  MPICHECK(MPI_Allreduce(&w_nomem, &any_w_nomem, 1, MPI_INT, MPI_MAX, c->comm));
  if (any_w_nomem) return sp_err_set(err, SP_E_NOMEM, "sched: out of memory for %zu task weights (some rank)", n);
  if (c->rank == 0 && n) memcpy(c->weight, c->opts->weight, n * sizeof *c->weight);
  if (n) MPICHECK(MPI_Bcast(c->weight, (int)n, MPI_DOUBLE, 0, c->comm));
  for (size_t k = 0; k < n; k++) {
    if (!(c->weight[k] >= 0) || c->weight[k] > 1e300) c->weight[k] = 0; /* NaN / negative / inf: ignored */
    c->weight_total += c->weight[k];
  }
  return 0;
}

void sp_sched_opts_default(sp_sched_opts *o) {
  if (!o) return;
  memset(o, 0, sizeof *o);
  o->progress_interval_s = 1.0;
  o->idle_sleep_max_s = 1e-3;
}

int sp_sched_run(MPI_Comm comm, const sp_plan *plan, sp_task_fn fn, void *user, sp_sched_stats *stats,
                 sp_err *err) {
  return sp_sched_run_ex(comm, plan, fn, user, NULL, stats, err);
}

/* Create the window, run both loops, agree on the outcome, free the window. */
static int run_window(ctx *c, sp_err *err) {
  size_t n = qlen(c, c->rank);
  MPI_Aint bytes = (MPI_Aint)((SLOT_HDR + 3 * n) * 8);
  MPICHECK(MPI_Win_allocate(bytes, 8, MPI_INFO_NULL, c->comm, &c->base, &c->win));
  int64_t *slots = (int64_t *)c->base;
  double *dslots = (double *)c->base;
  int rc = 0, task_rc = 0;
  if (MPI_Win_lock_all(MPI_MODE_NOCHECK, c->win) != MPI_SUCCESS) {
    MPI_Win_free(&c->win);
    return sp_err_set(err, SP_E_MPI, "sched: MPI_Win_lock_all failed");
  }
  memset(c->base, 0, (size_t)bytes);
  dslots[SLOT_LOAD] = c->plan.load[c->rank];
  for (size_t k = 0; k < n; k++) {
    size_t task = c->plan.queue[c->plan.queue_ptr[c->rank] + k];
    slots[SLOT_HDR + n + k] = (int64_t)task;
    dslots[SLOT_HDR + 2 * n + k] = c->plan.cost[task];
  }
  if (MPI_Win_sync(c->win) != MPI_SUCCESS || MPI_Barrier(c->comm) != MPI_SUCCESS ||
      MPI_Win_sync(c->win) != MPI_SUCCESS)
    rc = sp_err_set(err, SP_E_MPI, "sched: window initialisation failed");
  if (!rc) rc = report_progress(c, 0, err);
  if (!rc) rc = own_queue(c, &task_rc, err);
  if (!rc) rc = steal_loop(c, &task_rc, err);
  /* a failure here leaves the others to finish (thieves drain our queue) */
  if (rc && !task_rc) {
    int64_t one = 1;
    if (MPI_Accumulate(&one, 1, MPI_INT64_T, 0, SLOT_ABORT, 1, MPI_INT64_T, MPI_SUM, c->win) != MPI_SUCCESS)
      rc = SP_E_MPI;
  }
  int local = rc ? rc : task_rc;
  if (MPI_Win_flush_all(c->win) != MPI_SUCCESS && !local) local = sp_err_set(err, SP_E_MPI, "sched: flush failed");
  struct {
    int cls, rank;
  } in = {local, c->rank}, out = {0, 0};
  if (MPI_Allreduce(&in, &out, 1, MPI_2INT, MPI_MAXLOC, c->comm) != MPI_SUCCESS) {
    out.cls = SP_E_MPI;
    if (!local) sp_err_set(err, SP_E_MPI, "sched: MPI_Allreduce of the outcome failed");
  }
  if (!out.cls && report_progress(c, 1, err)) out.cls = SP_E_MPI;
  if (out.cls && !local)
    sp_err_set(err, out.cls, "sched: run aborted: rank %d failed (%s)", out.rank, sp_errclass_name(out.cls));
  int urc = MPI_Win_unlock_all(c->win);
  int frc = MPI_Win_free(&c->win);
  if (!out.cls && (urc != MPI_SUCCESS || frc != MPI_SUCCESS))
    return sp_err_set(err, SP_E_MPI, "sched: closing the window failed");
  return out.cls;
}

int sp_sched_run_ex(MPI_Comm comm, const sp_plan *plan, sp_task_fn fn, void *user, const sp_sched_opts *opts,
                    sp_sched_stats *stats, sp_err *err) {
  ctx c;
  memset(&c, 0, sizeof c);
  sp_sched_opts dflt;
  sp_sched_opts_default(&dflt);
  c.opts = opts ? opts : &dflt;
  c.fn = fn;
  c.user = user;
  c.last_progress = -1;
  c.t_start = MPI_Wtime();
  c.comm = MPI_COMM_NULL;
  int rc = 0;
  if (MPI_Comm_dup(comm, &c.comm) != MPI_SUCCESS) {
    rc = sp_err_set(err, SP_E_MPI, "sched: MPI_Comm_dup failed");
  } else if (MPI_Comm_rank(c.comm, &c.rank) != MPI_SUCCESS || MPI_Comm_size(c.comm, &c.size) != MPI_SUCCESS) {
    rc = sp_err_set(err, SP_E_MPI, "sched: MPI_Comm_rank/size failed");
  }
  c.st.rank = c.rank;
  if (!rc) rc = bcast_plan(&c, c.rank == 0 ? plan : NULL, fn != NULL, err);
  if (!rc) {
    c.st.tasks_planned = (int64_t)qlen(&c, c.rank);
    c.st.cost_planned = c.plan.load[c.rank];
    for (size_t t = 0; t < c.plan.n_tasks; t++) c.cost_total += c.plan.cost[t];
    rc = run_window(&c, err);
  }
  /* tasks of our queue not run here ran elsewhere (exactly once; exact when rc == 0) */
  int64_t own_run = c.st.tasks_done - c.st.steals;
  c.st.stolen = rc ? 0 : c.st.tasks_planned - own_run;
  c.st.wall_s = MPI_Wtime() - c.t_start;
  c.st.idle_s = c.st.wall_s - c.st.busy_s;
  if (c.st.idle_s < 0) c.st.idle_s = 0;
  if (stats) *stats = c.st;
  sp_plan_free(&c.plan);
  free(c.weight);
  if (c.comm != MPI_COMM_NULL) MPI_Comm_free(&c.comm);
  return rc;
}

/* Stats travel as doubles (counts are exact below 2^53). */
enum { NSTAT = 12 };

static void pack_stats(const sp_sched_stats *s, double *d) {
  d[0] = s->rank;
  d[1] = (double)s->tasks_planned;
  d[2] = s->cost_planned;
  d[3] = (double)s->tasks_done;
  d[4] = s->cost_done;
  d[5] = (double)s->steals;
  d[6] = (double)s->stolen;
  d[7] = (double)s->steal_attempts;
  d[8] = (double)s->polls;
  d[9] = s->busy_s;
  d[10] = s->idle_s;
  d[11] = s->wall_s;
}

static void unpack_stats(const double *d, sp_sched_stats *s) {
  s->rank = (int)d[0];
  s->tasks_planned = (int64_t)d[1];
  s->cost_planned = d[2];
  s->tasks_done = (int64_t)d[3];
  s->cost_done = d[4];
  s->steals = (int64_t)d[5];
  s->stolen = (int64_t)d[6];
  s->steal_attempts = (int64_t)d[7];
  s->polls = (int64_t)d[8];
  s->busy_s = d[9];
  s->idle_s = d[10];
  s->wall_s = d[11];
}

int sp_sched_gather_stats(MPI_Comm comm, const sp_sched_stats *mine, sp_sched_stats *all, sp_err *err) {
  int rank = 0, size = 0;
  MPICHECK(MPI_Comm_rank(comm, &rank));
  MPICHECK(MPI_Comm_size(comm, &size));
  int ok = mine != NULL && (rank != 0 || all != NULL), all_ok = 0;
  double *buf = NULL;
  if (ok && rank == 0) {
    buf = malloc((size_t)size * NSTAT * sizeof *buf);
    if (!buf) ok = -1;
  }
  MPICHECK(MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, comm));
  if (all_ok != 1) {
    free(buf);
    if (all_ok < 0) return sp_err_set(err, SP_E_NOMEM, "sched: out of memory gathering %d ranks' stats", size);
    return sp_err_set(err, SP_E_INVALID, "sched: NULL stats argument on some rank");
  }
  double d[NSTAT];
  pack_stats(mine, d);
  int mrc = MPI_Gather(d, NSTAT, MPI_DOUBLE, buf, NSTAT, MPI_DOUBLE, 0, comm);
  if (mrc != MPI_SUCCESS) {
    free(buf);
    return mpi_fail("MPI_Gather", mrc, err);
  }
  if (rank == 0)
    for (int r = 0; r < size; r++) unpack_stats(buf + (size_t)r * NSTAT, &all[r]);
  free(buf);
  return 0;
}

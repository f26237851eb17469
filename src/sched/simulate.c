/* A discrete-event simulation of sp_sched_run()'s protocol (no MPI): own queue front to
 * back, cost-aware steals from the back of the most loaded rank. See docs/scheduling.md. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sitepack/plan.h"

typedef struct sim_rank {
  double free_at;  /* time this rank next acts */
  double load;     /* estimated: unclaimed cost of its queue + cost of the task it runs */
  double finish;   /* time it stopped */
  size_t head, tail, n;
  int64_t running; /* task it runs until free_at, -1 none */
  int waiting;     /* idle with work left that does not pay to steal: acts after others at a tie */
  int done;
} sim_rank;

int sp_sched_simulate(const sp_plan *plan, const double *actual, double steal_latency, sp_sched_sim *out,
                      sp_err *err) {
  if (!out) return sp_err_set(err, SP_E_INVALID, "simulate: NULL output");
  memset(out, 0, sizeof *out);
  sp_err e = {0};
  if (sp_plan_check(plan, &e)) return sp_err_set(err, e.cls, "simulate: %s", e.msg);
  if (!isfinite(steal_latency) || steal_latency < 0)
    return sp_err_set(err, SP_E_INVALID, "simulate: steal latency %g must be finite and >= 0", steal_latency);
  const double *est = plan->cost;
  const double *act = actual ? actual : plan->cost;
  for (size_t t = 0; t < plan->n_tasks; t++)
    if (!isfinite(act[t]) || act[t] < 0)
      return sp_err_set(err, SP_E_INVALID, "simulate: actual time of task %zu is %g", t, act[t]);
  int P = plan->n_ranks;
  sim_rank *R = calloc((size_t)P, sizeof *R);
  if (!R) return sp_err_set(err, SP_E_NOMEM, "simulate: out of memory for %d ranks", P);

  double total = 0, largest = 0;
  for (size_t t = 0; t < plan->n_tasks; t++) {
    total += act[t];
    if (act[t] > largest) largest = act[t];
  }
  for (int r = 0; r < P; r++) {
    R[r].n = plan->queue_ptr[r + 1] - plan->queue_ptr[r];
    R[r].load = plan->load[r];
    R[r].running = -1;
    double sum = 0;
    for (size_t k = plan->queue_ptr[r]; k < plan->queue_ptr[r + 1]; k++) sum += act[plan->queue[k]];
    if (sum > out->static_makespan) out->static_makespan = sum;
  }
  out->lower_bound = total / P > largest ? total / P : largest;

  for (;;) {
    /* next rank to act: smallest (free_at, waiting, rank) among those not done */
    int r = -1;
    for (int v = 0; v < P; v++) {
      if (R[v].done) continue;
      if (r < 0 || R[v].free_at < R[r].free_at ||
          (R[v].free_at == R[r].free_at && R[v].waiting < R[r].waiting))
        r = v;
    }
    if (r < 0) break;
    sim_rank *me = &R[r];
    double T = me->free_at;
    me->waiting = 0;
    if (me->running >= 0) {
      me->load -= est[me->running];
      me->running = -1;
    }
    if (me->head + me->tail < me->n) {
      size_t task = plan->queue[plan->queue_ptr[r] + me->head++];
      me->running = (int64_t)task;
      me->free_at = T + act[task];
      continue;
    }
    /* own queue done: choose a victim as choose_victim() in run.c does */
    int victim = -1, any = 0;
    for (int v = 0; v < P; v++) {
      if (v == r || R[v].head + R[v].tail >= R[v].n) continue;
      any = 1;
      size_t unclaimed = R[v].n - R[v].head - R[v].tail;
      size_t back = plan->queue[plan->queue_ptr[v] + R[v].n - 1 - R[v].tail];
      int pays = unclaimed >= 2 || R[v].load > est[back];
      if (pays && (victim < 0 || R[v].load > R[victim].load)) victim = v;
    }
    if (victim >= 0) {
      sim_rank *vr = &R[victim];
      size_t task = plan->queue[plan->queue_ptr[victim] + vr->n - 1 - vr->tail++];
      vr->load -= est[task];
      me->load += est[task];
      me->running = (int64_t)task;
      me->free_at = T + steal_latency + act[task];
      out->steals++;
    } else if (any) {
      /* wait for the next event of a working rank: the owner of the work left is working (its
         queue is not done, so it is neither done nor waiting), hence next is finite and >= T,
         and a waiting rank never waits on another waiting one */
      double next = INFINITY;
      for (int v = 0; v < P; v++)
        if (v != r && !R[v].done && !R[v].waiting && R[v].free_at < next) next = R[v].free_at;
      me->free_at = next > T ? next : T;
      me->waiting = 1;
    } else {
      me->done = 1;
      me->finish = T;
      if (T > out->makespan) out->makespan = T;
    }
  }
  free(R);
  return 0;
}

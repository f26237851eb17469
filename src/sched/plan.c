/* The static plan: Graham's LPT rule and explicit assignments (no MPI). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sitepack/plan.h"

static int check_costs(const double *cost, size_t n_tasks, int n_ranks, sp_plan *out, sp_err *err) {
  if (!out) return sp_err_set(err, SP_E_INVALID, "plan: NULL output plan");
  memset(out, 0, sizeof *out);
  if (n_ranks < 1) return sp_err_set(err, SP_E_INVALID, "plan: n_ranks must be >= 1 (got %d)", n_ranks);
  if (n_tasks > 0 && !cost) return sp_err_set(err, SP_E_INVALID, "plan: NULL cost array for %zu tasks", n_tasks);
  if ((uint64_t)n_tasks > (uint64_t)INT64_MAX || n_tasks > SIZE_MAX / (2 * sizeof(double)) ||
      (size_t)n_ranks + 1 > SIZE_MAX / sizeof(size_t))
    return sp_err_set(err, SP_E_TOO_LARGE, "plan: %zu tasks is too many", n_tasks);
  for (size_t t = 0; t < n_tasks; t++) {
    if (!isfinite(cost[t]) || cost[t] < 0)
      return sp_err_set(err, SP_E_INVALID, "plan: cost of task %zu is %g (must be finite and >= 0)", t, cost[t]);
  }
  return 0;
}

static int alloc_plan(sp_plan *p, size_t n_tasks, int n_ranks, const double *cost, sp_err *err) {
  p->n_tasks = n_tasks;
  p->n_ranks = n_ranks;
  p->cost = malloc((n_tasks ? n_tasks : 1) * sizeof *p->cost);
  p->queue = malloc((n_tasks ? n_tasks : 1) * sizeof *p->queue);
  p->queue_ptr = calloc((size_t)n_ranks + 1, sizeof *p->queue_ptr);
  p->load = calloc((size_t)n_ranks, sizeof *p->load);
  if (!p->cost || !p->queue || !p->queue_ptr || !p->load) {
    sp_plan_free(p);
    return sp_err_set(err, SP_E_NOMEM, "plan: out of memory for %zu tasks, %d ranks", n_tasks, n_ranks);
  }
  if (n_tasks) memcpy(p->cost, cost, n_tasks * sizeof *cost);
  return 0;
}

/* A merge sort (stable, no global state, O(n log n)) of task ids by (cost desc, id asc). */
static int task_before(const double *cost, size_t i, size_t j) {
  if (cost[i] != cost[j]) return cost[i] > cost[j];
  return i < j;
}

static void sort_tasks(size_t *ids, size_t *tmp, size_t n, const double *cost) {
  for (size_t width = 1; width < n; width *= 2) {
    for (size_t lo = 0; lo < n; lo += 2 * width) {
      size_t mid = lo + width < n ? lo + width : n;
      size_t hi = lo + 2 * width < n ? lo + 2 * width : n;
      size_t a = lo, b = mid, k = lo;
      while (a < mid && b < hi) tmp[k++] = task_before(cost, ids[b], ids[a]) ? ids[b++] : ids[a++];
      while (a < mid) tmp[k++] = ids[a++];
      while (b < hi) tmp[k++] = ids[b++];
    }
    memcpy(ids, tmp, n * sizeof *ids);
  }
}

/* Min-heap of ranks by (load, rank). */
static int heap_less(const double *load, int a, int b) {
  if (load[a] != load[b]) return load[a] < load[b];
  return a < b;
}

static void heap_sift_down(int *h, int n, const double *load, int i) {
  for (;;) {
    int l = 2 * i + 1, r = l + 1, m = i;
    if (l < n && heap_less(load, h[l], h[m])) m = l;
    if (r < n && heap_less(load, h[r], h[m])) m = r;
    if (m == i) return;
    int t = h[i];
    h[i] = h[m];
    h[m] = t;
    i = m;
  }
}

/* Fill queue/queue_ptr/load from rank_of (rank of every task) and the sorted order. */
static void build_queues(sp_plan *p, const int *rank_of, const size_t *order) {
  size_t n = p->n_tasks;
  int P = p->n_ranks;
  memset(p->queue_ptr, 0, ((size_t)P + 1) * sizeof *p->queue_ptr);
  for (int r = 0; r < P; r++) p->load[r] = 0;
  for (size_t t = 0; t < n; t++) p->queue_ptr[rank_of[t] + 1]++;
  for (int r = 0; r < P; r++) p->queue_ptr[r + 1] += p->queue_ptr[r];
  /* fill in sorted order, walking queue_ptr[r] forward as the cursor of rank r, then
     shifting it back (queue_ptr[r] ends at the start of rank r+1) */
  for (size_t k = 0; k < n; k++) {
    size_t t = order[k];
    int r = rank_of[t];
    p->queue[p->queue_ptr[r]++] = t;
    p->load[r] += p->cost[t];
  }
  for (int r = P; r > 0; r--) p->queue_ptr[r] = p->queue_ptr[r - 1];
  p->queue_ptr[0] = 0;
}

/* explicit_ranks 0: LPT; 1: the assignment rank_of_in (length n_tasks). */
static int plan_common(const double *cost, size_t n_tasks, int n_ranks, const int *rank_of_in, int explicit_ranks,
                       sp_plan *out, sp_err *err) {
  int rc = check_costs(cost, n_tasks, n_ranks, out, err);
  if (rc) return rc;
  if (explicit_ranks && n_tasks > 0 && !rank_of_in)
    return sp_err_set(err, SP_E_INVALID, "plan: NULL assignment for %zu tasks", n_tasks);
  if (explicit_ranks) {
    for (size_t t = 0; t < n_tasks; t++)
      if (rank_of_in[t] < 0 || rank_of_in[t] >= n_ranks)
        return sp_err_set(err, SP_E_INVALID, "plan: task %zu assigned to rank %d, outside [0, %d)", t,
                          rank_of_in[t], n_ranks);
  }
  sp_plan p = {0};
  if ((rc = alloc_plan(&p, n_tasks, n_ranks, cost, err))) return rc;
  size_t nn = n_tasks ? n_tasks : 1;
  size_t *order = malloc(nn * sizeof *order);
  size_t *tmp = malloc(nn * sizeof *tmp);
  int *rank_of = explicit_ranks ? NULL : malloc(nn * sizeof *rank_of);
  int *heap = explicit_ranks ? NULL : malloc((size_t)n_ranks * sizeof *heap);
  if (!order || !tmp || (!explicit_ranks && (!rank_of || !heap))) {
    free(order);
    free(tmp);
    free(rank_of);
    free(heap);
    sp_plan_free(&p);
    return sp_err_set(err, SP_E_NOMEM, "plan: out of memory for %zu tasks", n_tasks);
  }
  for (size_t t = 0; t < n_tasks; t++) order[t] = t;
  sort_tasks(order, tmp, n_tasks, cost);
  if (!explicit_ranks) {
    /* LPT: each task, largest first, to the least-loaded rank (ties: lowest rank).
       The heap's keys are p.load, updated in place at the root. */
    for (int r = 0; r < n_ranks; r++) heap[r] = r; /* all loads 0: already a heap by rank */
    for (size_t k = 0; k < n_tasks; k++) {
      size_t t = order[k];
      int r = heap[0];
      rank_of[t] = r;
      p.load[r] += cost[t];
      heap_sift_down(heap, n_ranks, p.load, 0);
    }
    build_queues(&p, rank_of, order);
  } else {
    build_queues(&p, rank_of_in, order);
  }
  free(order);
  free(tmp);
  free(rank_of);
  free(heap);
  *out = p;
  return 0;
}

int sp_plan_lpt(const double *cost, size_t n_tasks, int n_ranks, sp_plan *out, sp_err *err) {
  return plan_common(cost, n_tasks, n_ranks, NULL, 0, out, err);
}

int sp_plan_from_assignment(const double *cost, size_t n_tasks, int n_ranks, const int *rank_of_task,
                            sp_plan *out, sp_err *err) {
  return plan_common(cost, n_tasks, n_ranks, rank_of_task, 1, out, err);
}

void sp_plan_free(sp_plan *plan) {
  if (!plan) return;
  free(plan->cost);
  free(plan->queue_ptr);
  free(plan->queue);
  free(plan->load);
  memset(plan, 0, sizeof *plan);
}

double sp_plan_makespan(const sp_plan *plan) {
  if (!plan || !plan->load) return 0;
  double m = 0;
  for (int r = 0; r < plan->n_ranks; r++)
    if (plan->load[r] > m) m = plan->load[r];
  return m;
}

double sp_plan_lower_bound(const sp_plan *plan) {
  if (!plan || !plan->cost || plan->n_ranks < 1) return 0;
  double total = 0, largest = 0;
  for (size_t t = 0; t < plan->n_tasks; t++) {
    total += plan->cost[t];
    if (plan->cost[t] > largest) largest = plan->cost[t];
  }
  double avg = total / plan->n_ranks;
  return avg > largest ? avg : largest;
}

int sp_plan_check(const sp_plan *plan, sp_err *err) {
  if (!plan) return sp_err_set(err, SP_E_INVALID, "plan: NULL");
  if (plan->n_ranks < 1) return sp_err_set(err, SP_E_INVALID, "plan: n_ranks %d < 1", plan->n_ranks);
  if (!plan->queue_ptr || !plan->load || (plan->n_tasks > 0 && (!plan->cost || !plan->queue)))
    return sp_err_set(err, SP_E_INVALID, "plan: missing arrays");
  if (plan->queue_ptr[0] != 0) return sp_err_set(err, SP_E_INVALID, "plan: queue_ptr[0] != 0");
  for (int r = 0; r < plan->n_ranks; r++)
    if (plan->queue_ptr[r + 1] < plan->queue_ptr[r] || plan->queue_ptr[r + 1] > plan->n_tasks)
      return sp_err_set(err, SP_E_INVALID, "plan: queue_ptr of rank %d out of order or range", r);
  if (plan->queue_ptr[plan->n_ranks] != plan->n_tasks)
    return sp_err_set(err, SP_E_INVALID, "plan: queues hold %zu tasks, plan has %zu",
                      plan->queue_ptr[plan->n_ranks], plan->n_tasks);
  unsigned char *seen = calloc(plan->n_tasks ? plan->n_tasks : 1, 1);
  if (!seen) return sp_err_set(err, SP_E_NOMEM, "plan: out of memory checking %zu tasks", plan->n_tasks);
  int rc = 0;
  for (size_t k = 0; k < plan->n_tasks && !rc; k++) {
    size_t t = plan->queue[k];
    if (t >= plan->n_tasks)
      rc = sp_err_set(err, SP_E_INVALID, "plan: task id %zu out of range [0, %zu)", t, plan->n_tasks);
    else if (seen[t]++)
      rc = sp_err_set(err, SP_E_INVALID, "plan: task %zu queued twice", t);
    else if (!isfinite(plan->cost[t]) || plan->cost[t] < 0)
      rc = sp_err_set(err, SP_E_INVALID, "plan: cost of task %zu is %g", t, plan->cost[t]);
  }
  free(seen);
  return rc;
}

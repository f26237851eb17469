/* Unit tests of the static plan (no MPI): Graham's LPT rule on known instances, the
 * 4/3 - 1/(3P) bound against brute-forced optima, explicit assignments, errors. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sitepack/plan.h"

#include "sp_test.h"

static void expect_queue(const sp_plan *p, int r, const size_t *ids, size_t n) {
  size_t len = p->queue_ptr[r + 1] - p->queue_ptr[r];
  CHECK(len == n, "rank %d queue length %zu, expected %zu", r, len, n);
  for (size_t k = 0; k < n && k < len; k++)
    CHECK(p->queue[p->queue_ptr[r] + k] == ids[k], "rank %d queue[%zu] = %zu, expected %zu", r, k,
          p->queue[p->queue_ptr[r] + k], ids[k]);
}

/* Invariants every plan must satisfy, checked independently of sp_plan_check(). */
static void check_invariants(const sp_plan *p, const double *cost, size_t n, int P) {
  sp_err e = {0};
  CHECK(sp_plan_check(p, &e) == 0, "sp_plan_check: %s", e.msg);
  CHECK(p->n_tasks == n && p->n_ranks == P, "sizes %zu/%d", p->n_tasks, p->n_ranks);
  CHECK(p->queue_ptr[0] == 0 && p->queue_ptr[P] == n, "queue_ptr ends %zu..%zu", p->queue_ptr[0], p->queue_ptr[P]);
  int *count = calloc(n ? n : 1, sizeof *count);
  for (int r = 0; r < P; r++) {
    double sum = 0;
    for (size_t k = p->queue_ptr[r]; k < p->queue_ptr[r + 1]; k++) {
      size_t t = p->queue[k];
      CHECK(t < n, "task id %zu out of range", t);
      if (t >= n) continue;
      count[t]++;
      sum += cost[t];
      if (k > p->queue_ptr[r]) {
        size_t prev = p->queue[k - 1];
        CHECK(cost[prev] > cost[t] || (cost[prev] == cost[t] && prev < t),
              "rank %d queue not largest-first at %zu (%zu, %zu)", r, k, prev, t);
      }
    }
    CHECK(fabs(sum - p->load[r]) <= 1e-9 * (1 + sum), "rank %d load %g, sum of queue %g", r, p->load[r], sum);
  }
  for (size_t t = 0; t < n; t++) CHECK(count[t] == 1, "task %zu queued %d times", t, count[t]);
  free(count);
}

/* Graham's LPT example with P = 2: {3,3,2,2,2} -> LPT makespan 7, optimum 6 ({3,3},{2,2,2}). */
static void test_graham_p2(void) {
  double cost[] = {3, 3, 2, 2, 2};
  sp_plan p = {0};
  sp_err e = {0};
  CHECK(sp_plan_lpt(cost, 5, 2, &p, &e) == 0, "%s", e.msg);
  check_invariants(&p, cost, 5, 2);
  size_t q0[] = {0, 2, 4}, q1[] = {1, 3};
  expect_queue(&p, 0, q0, 3);
  expect_queue(&p, 1, q1, 2);
  CHECK(p.load[0] == 7 && p.load[1] == 5, "loads %g %g", p.load[0], p.load[1]);
  CHECK(sp_plan_makespan(&p) == 7, "makespan %g", sp_plan_makespan(&p));
  CHECK(sp_plan_lower_bound(&p) == 6, "lower bound %g", sp_plan_lower_bound(&p));
  sp_plan_free(&p);
  CHECK(p.queue == NULL && p.n_tasks == 0, "free zeroes");
}

/* Graham's tight instance for P = 3: {5,5,4,4,3,3,3}: LPT 11 = (4/3 - 1/9) * optimum 9. */
static void test_graham_tight_p3(void) {
  double cost[] = {3, 5, 4, 3, 5, 3, 4}; /* shuffled on purpose */
  sp_plan p = {0};
  sp_err e = {0};
  CHECK(sp_plan_lpt(cost, 7, 3, &p, &e) == 0, "%s", e.msg);
  check_invariants(&p, cost, 7, 3);
  /* order: 5(1) 5(4) 4(2) 4(6) 3(0) 3(3) 3(5)
     r0 5(1) ; r1 5(4) ; r2 4(2) ; r2 4(6) -> 8 ; r0 3(0) -> 8 ; r1 3(3) -> 8 ; r0 3(5) -> 11 */
  size_t q0[] = {1, 0, 5}, q1[] = {4, 3}, q2[] = {2, 6};
  expect_queue(&p, 0, q0, 3);
  expect_queue(&p, 1, q1, 2);
  expect_queue(&p, 2, q2, 2);
  CHECK(sp_plan_makespan(&p) == 11, "makespan %g", sp_plan_makespan(&p));
  sp_plan_free(&p);
}

/* Equal costs: round-robin by rank, ties broken by task index (deterministic). */
static void test_ties(void) {
  double cost[] = {1, 1, 1, 1, 1, 1, 1};
  sp_plan p = {0};
  sp_err e = {0};
  CHECK(sp_plan_lpt(cost, 7, 3, &p, &e) == 0, "%s", e.msg);
  size_t q0[] = {0, 3, 6}, q1[] = {1, 4}, q2[] = {2, 5};
  expect_queue(&p, 0, q0, 3);
  expect_queue(&p, 1, q1, 2);
  expect_queue(&p, 2, q2, 2);
  /* the same input twice gives the same plan */
  sp_plan p2 = {0};
  CHECK(sp_plan_lpt(cost, 7, 3, &p2, &e) == 0, "%s", e.msg);
  CHECK(memcmp(p.queue, p2.queue, 7 * sizeof *p.queue) == 0, "plans differ");
  sp_plan_free(&p);
  sp_plan_free(&p2);
}

/* Edge sizes: no tasks; fewer tasks than ranks; one rank; zero costs. */
static void test_edges(void) {
  sp_plan p = {0};
  sp_err e = {0};
  CHECK(sp_plan_lpt(NULL, 0, 4, &p, &e) == 0, "%s", e.msg);
  check_invariants(&p, NULL, 0, 4);
  CHECK(sp_plan_makespan(&p) == 0 && sp_plan_lower_bound(&p) == 0, "empty makespan");
  sp_plan_free(&p);

  double c2[] = {10, 20};
  CHECK(sp_plan_lpt(c2, 2, 5, &p, &e) == 0, "%s", e.msg);
  check_invariants(&p, c2, 2, 5);
  size_t q0[] = {1}, q1[] = {0};
  expect_queue(&p, 0, q0, 1);
  expect_queue(&p, 1, q1, 1);
  for (int r = 2; r < 5; r++) expect_queue(&p, r, NULL, 0);
  CHECK(sp_plan_lower_bound(&p) == 20, "bound %g", sp_plan_lower_bound(&p));
  sp_plan_free(&p);

  double c3[] = {2, 0, 7, 0};
  CHECK(sp_plan_lpt(c3, 4, 1, &p, &e) == 0, "%s", e.msg);
  size_t all[] = {2, 0, 1, 3};
  expect_queue(&p, 0, all, 4);
  CHECK(p.load[0] == 9, "load %g", p.load[0]);
  sp_plan_free(&p);
}

static void test_errors(void) {
  sp_plan p = {0};
  sp_err e = {0};
  double bad[] = {1, -1};
  CHECK(sp_plan_lpt(bad, 2, 2, &p, &e) == SP_E_INVALID && e.cls == SP_E_INVALID, "negative cost accepted");
  CHECK(strstr(e.msg, "task 1") != NULL, "message '%s' names the task", e.msg);
  double nanc[] = {NAN};
  CHECK(sp_plan_lpt(nanc, 1, 2, &p, &e) == SP_E_INVALID, "NaN accepted");
  double infc[] = {INFINITY};
  CHECK(sp_plan_lpt(infc, 1, 2, &p, &e) == SP_E_INVALID, "inf accepted");
  double ok[] = {1, 2};
  CHECK(sp_plan_lpt(ok, 2, 0, &p, &e) == SP_E_INVALID, "0 ranks accepted");
  CHECK(sp_plan_lpt(NULL, 2, 2, &p, &e) == SP_E_INVALID, "NULL cost accepted");
  CHECK(sp_plan_lpt(ok, 2, 2, NULL, &e) == SP_E_INVALID, "NULL out accepted");
  CHECK(p.queue == NULL, "failed plan left arrays");
  int ranks_bad[] = {0, 2};
  CHECK(sp_plan_from_assignment(ok, 2, 2, ranks_bad, &p, &e) == SP_E_INVALID, "rank 2 of 2 accepted");
  int ranks_neg[] = {-1, 0};
  CHECK(sp_plan_from_assignment(ok, 2, 2, ranks_neg, &p, &e) == SP_E_INVALID, "rank -1 accepted");
  CHECK(sp_plan_from_assignment(ok, 2, 2, NULL, &p, &e) == SP_E_INVALID, "NULL assignment accepted");
  CHECK(sp_plan_check(NULL, &e) == SP_E_INVALID, "check(NULL)");

  /* sp_plan_check catches a duplicated task */
  CHECK(sp_plan_lpt(ok, 2, 1, &p, &e) == 0, "%s", e.msg);
  p.queue[1] = p.queue[0];
  CHECK(sp_plan_check(&p, &e) == SP_E_INVALID && strstr(e.msg, "twice"), "duplicate not caught: %s", e.msg);
  p.queue[1] = 7;
  CHECK(sp_plan_check(&p, &e) == SP_E_INVALID && strstr(e.msg, "out of range"), "range not caught: %s", e.msg);
  sp_plan_free(&p);
  sp_plan_free(NULL);
}

static void test_assignment(void) {
  double cost[] = {1, 5, 3, 5, 2};
  int on0[] = {0, 0, 0, 0, 0};
  sp_plan p = {0};
  sp_err e = {0};
  CHECK(sp_plan_from_assignment(cost, 5, 3, on0, &p, &e) == 0, "%s", e.msg);
  check_invariants(&p, cost, 5, 3);
  size_t q0[] = {1, 3, 2, 4, 0};
  expect_queue(&p, 0, q0, 5);
  expect_queue(&p, 1, NULL, 0);
  expect_queue(&p, 2, NULL, 0);
  CHECK(p.load[0] == 16 && p.load[1] == 0, "loads %g %g", p.load[0], p.load[1]);
  sp_plan_free(&p);
  int mixed[] = {2, 1, 2, 0, 1};
  CHECK(sp_plan_from_assignment(cost, 5, 3, mixed, &p, &e) == 0, "%s", e.msg);
  size_t m0[] = {3}, m1[] = {1, 4}, m2[] = {2, 0};
  expect_queue(&p, 0, m0, 1);
  expect_queue(&p, 1, m1, 2);
  expect_queue(&p, 2, m2, 2);
  sp_plan_free(&p);
}

/* Optimal makespan by exhaustive search over assignments (task 0 fixed on rank 0). */
static double brute_opt(const double *cost, size_t n, int P) {
  int a[12] = {0};
  double best = INFINITY;
  for (;;) {
    double load[8] = {0};
    for (size_t t = 0; t < n; t++) load[a[t]] += cost[t];
    double m = 0;
    for (int r = 0; r < P; r++) m = load[r] > m ? load[r] : m;
    if (m < best) best = m;
    size_t t = 1;
    while (t < n && ++a[t] == P) a[t++] = 0;
    if (t >= n) break;
  }
  return best;
}

/* Random tiny instances: OPT <= LPT <= (4/3 - 1/(3P)) OPT (Graham 1969). */
static void test_lpt_bound(void) {
  unsigned seed = 12345u;
  int worst_hit = 0;
  for (int inst = 0; inst < 300; inst++) {
    int P = 2 + inst % 3;           /* 2..4 */
    size_t n = 1 + (size_t)(inst % 8); /* 1..8 */
    double cost[12];
    for (size_t t = 0; t < n; t++) {
      seed = seed * 1103515245u + 12345u;
      cost[t] = 1 + (double)((seed >> 16) % 20);
    }
    sp_plan p = {0};
    sp_err e = {0};
    CHECK(sp_plan_lpt(cost, n, P, &p, &e) == 0, "%s", e.msg);
    check_invariants(&p, cost, n, P);
    double lpt = sp_plan_makespan(&p), opt = brute_opt(cost, n, P);
    double bound = (4.0 / 3.0 - 1.0 / (3.0 * P)) * opt;
    CHECK(lpt >= opt - 1e-9, "instance %d: LPT %g below optimum %g", inst, lpt, opt);
    CHECK(lpt <= bound + 1e-9, "instance %d: LPT %g above bound %g (opt %g, P %d)", inst, lpt, bound, opt, P);
    CHECK(sp_plan_lower_bound(&p) <= opt + 1e-9, "lower bound %g above opt %g", sp_plan_lower_bound(&p), opt);
    if (lpt > opt) worst_hit++;
    sp_plan_free(&p);
  }
  /* the random set must contain instances where LPT is not optimal, or the test proves little */
  CHECK(worst_hit > 0, "no instance where LPT is suboptimal");
}

/* A larger instance: makespan close to the lower bound with many small tasks. */
static void test_many(void) {
  size_t n = 20000;
  int P = 20;
  double *cost = malloc(n * sizeof *cost);
  unsigned seed = 7u;
  for (size_t t = 0; t < n; t++) {
    seed = seed * 1103515245u + 12345u;
    cost[t] = 1000 + (double)((seed >> 8) % 100000);
  }
  sp_plan p = {0};
  sp_err e = {0};
  CHECK(sp_plan_lpt(cost, n, P, &p, &e) == 0, "%s", e.msg);
  check_invariants(&p, cost, n, P);
  double lb = sp_plan_lower_bound(&p), ms = sp_plan_makespan(&p);
  /* LPT's makespan exceeds the bound by at most the last (smallest) task on the critical rank */
  CHECK(ms <= lb + 101000, "makespan %g, bound %g", ms, lb);
  sp_plan_free(&p);
  free(cost);
}

/* The protocol simulation: known small cases, then the DESIGN.md target on a noisy instance. */
static void test_simulate(void) {
  sp_err e = {0};
  sp_plan p = {0};
  sp_sched_sim sim;
  /* 40 unit tasks all on rank 0 of 4: the three others steal; the end is 40 / 4 = 10 */
  double unit[40];
  int on0[40] = {0};
  for (int t = 0; t < 40; t++) unit[t] = 1;
  CHECK(sp_plan_from_assignment(unit, 40, 4, on0, &p, &e) == 0, "%s", e.msg);
  CHECK(sp_sched_simulate(&p, NULL, 0, &sim, &e) == 0, "%s", e.msg);
  CHECK(sim.makespan == 10 && sim.static_makespan == 40 && sim.lower_bound == 10 && sim.steals == 30,
        "all on 0: makespan %g static %g bound %g steals %lld", sim.makespan, sim.static_makespan, sim.lower_bound,
        (long long)sim.steals);
  /* a steal latency of 0.5: thieves run a task per 1.5, the owner one per 1; balance at
     T + 3 T / 1.5 = 40, T = 13.33, give or take the granularity of one task */
  CHECK(sp_sched_simulate(&p, NULL, 0.5, &sim, &e) == 0, "%s", e.msg);
  CHECK(sim.makespan >= 13 && sim.makespan <= 14 && sim.steals < 30, "latency 0.5: makespan %g steals %lld",
        sim.makespan, (long long)sim.steals);
  sp_plan_free(&p);

  /* {10, 1} on rank 0 of 2: rank 0 runs 10, rank 1 steals the 1 (rank 0 is busy): makespan 10 */
  double two[] = {10, 1};
  int two_on0[] = {0, 0};
  CHECK(sp_plan_from_assignment(two, 2, 2, two_on0, &p, &e) == 0, "%s", e.msg);
  CHECK(sp_sched_simulate(&p, NULL, 0, &sim, &e) == 0, "%s", e.msg);
  CHECK(sim.makespan == 10 && sim.steals == 1, "{10,1}: makespan %g steals %lld", sim.makespan,
        (long long)sim.steals);
  sp_plan_free(&p);

  /* one task on an idle owner: stealing it does not pay; makespan 5, no steal */
  double one[] = {5};
  int on1[] = {1};
  CHECK(sp_plan_from_assignment(one, 1, 2, on1, &p, &e) == 0, "%s", e.msg);
  CHECK(sp_sched_simulate(&p, NULL, 0, &sim, &e) == 0, "%s", e.msg);
  CHECK(sim.makespan == 5 && sim.steals == 0, "{5}: makespan %g steals %lld", sim.makespan, (long long)sim.steals);
  sp_plan_free(&p);

  /* P = 20, 4000 tasks with heavy-tailed estimates and actual times off by 0.5x..2x:
     the static LPT plan misses the bound by far, stealing gets within 5 % (DESIGN.md) */
  size_t n = 4000;
  double *est = malloc(n * sizeof *est), *act = malloc(n * sizeof *act);
  unsigned seed = 99u;
  for (size_t t = 0; t < n; t++) {
    seed = seed * 1103515245u + 12345u;
    double u = ((seed >> 8) & 0xffff) / 65536.0;
    est[t] = 1000 * exp(3 * u); /* 1e3 .. 2e4 */
    seed = seed * 1103515245u + 12345u;
    double f = ((seed >> 8) & 0xffff) / 65536.0;
    act[t] = est[t] * pow(2, 2 * f - 1); /* 0.5x .. 2x */
  }
  CHECK(sp_plan_lpt(est, n, 20, &p, &e) == 0, "%s", e.msg);
  CHECK(sp_sched_simulate(&p, act, 0, &sim, &e) == 0, "%s", e.msg);
  CHECK(sim.makespan >= sim.lower_bound * (1 - 1e-12), "makespan %g below bound %g", sim.makespan, sim.lower_bound);
  CHECK(sim.makespan <= 1.05 * sim.lower_bound, "makespan %g, bound %g (ratio %.4f)", sim.makespan,
        sim.lower_bound, sim.makespan / sim.lower_bound);
  CHECK(sim.static_makespan > 1.05 * sim.lower_bound, "static plan already within 5%%: %g vs %g",
        sim.static_makespan, sim.lower_bound);
  CHECK(sim.steals > 0, "no steals");
  printf("simulate P=20 n=%zu: makespan/bound %.4f (static LPT %.4f), %lld steals\n", n,
         sim.makespan / sim.lower_bound, sim.static_makespan / sim.lower_bound, (long long)sim.steals);
  /* errors */
  act[3] = -1;
  CHECK(sp_sched_simulate(&p, act, 0, &sim, &e) == SP_E_INVALID, "negative actual time accepted");
  CHECK(sp_sched_simulate(&p, NULL, NAN, &sim, &e) == SP_E_INVALID, "NaN latency accepted");
  CHECK(sp_sched_simulate(NULL, NULL, 0, &sim, &e) == SP_E_INVALID, "NULL plan accepted");
  CHECK(sp_sched_simulate(&p, NULL, 0, NULL, &e) == SP_E_INVALID, "NULL out accepted");
  sp_plan_free(&p);
  free(est);
  free(act);
}

int main(void) {
  test_graham_p2();
  test_graham_tight_p3();
  test_ties();
  test_edges();
  test_errors();
  test_assignment();
  test_lpt_bound();
  test_many();
  test_simulate();
  return sp_test_done("test_sched_plan");
}

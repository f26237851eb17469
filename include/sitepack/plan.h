/**
 * @file plan.h
 * @brief Scheduling without MPI: the static plan (Graham's LPT rule), its simulation, the
 *        cost model and the splitting of large files into tasks. See docs/scheduling.md.
 *
 * sp_plan_lpt() turns estimated task costs into one queue per rank, largest task first,
 * each task on the currently least-loaded rank; the MPI run of a plan is sched.h's.
 * Worker code (pipeline.h), benchmarks and tests use this header without seeing <mpi.h>.
 *
 * Costs are in arbitrary, consistent units chosen by the caller's cost model (e.g.
 * bytes of text, with gzip bytes weighted by ~4); only ratios matter.
 */
#ifndef SITEPACK_PLAN_H
#define SITEPACK_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "sitepack/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------------------ */
/* Plan (no MPI)                                                                          */
/* ------------------------------------------------------------------------------------ */

/**
 * A static assignment of tasks to ranks: one queue per rank in CSR layout.
 * Rank r's queue is queue[queue_ptr[r] .. queue_ptr[r+1]), task ids, largest estimated
 * cost first (ties: lower task id first). Every task id 0..n_tasks-1 appears exactly
 * once over all queues. All arrays are owned by the plan; free with sp_plan_free().
 * A zeroed sp_plan ({0}) is a valid "no plan" value for sp_plan_free().
 */
typedef struct sp_plan {
  size_t n_tasks;       /**< number of tasks */
  int n_ranks;          /**< number of queues (>= 1) */
  double *cost;         /**< [n_tasks] estimated cost of each task (>= 0, finite) */
  size_t *queue_ptr;    /**< [n_ranks + 1] offsets into queue; queue_ptr[0] = 0, queue_ptr[n_ranks] = n_tasks */
  size_t *queue;        /**< [n_tasks] task ids, grouped by rank */
  double *load;         /**< [n_ranks] sum of the costs in each rank's queue */
} sp_plan;

/**
 * Graham's LPT rule (R. L. Graham, "Bounds on multiprocessing timing anomalies",
 * SIAM J. Appl. Math. 17(2), 1969): sort tasks by cost descending (ties by task
 * index ascending, so the result is deterministic), give each in turn to the rank
 * with the smallest current load (ties: the lowest rank). The makespan (largest
 * load) is at most (4/3 - 1/(3 n_ranks)) times the optimum. O(n log n + n log P).
 *
 * @param cost     [n_tasks] estimated costs, each finite and >= 0 (may be NULL when n_tasks == 0)
 * @param n_tasks  number of tasks (0 gives empty queues)
 * @param n_ranks  number of queues, >= 1
 * @param out      filled on success (previous content is not freed); zeroed on failure
 * @return 0; SP_E_INVALID (n_ranks < 1, NULL cost with n_tasks > 0, NULL out, a cost
 *         negative / NaN / infinite), SP_E_TOO_LARGE (n_tasks above INT64_MAX or the
 *         arrays' byte size overflows size_t), SP_E_NOMEM.
 */
int sp_plan_lpt(const double *cost, size_t n_tasks, int n_ranks, sp_plan *out, sp_err *err);

/**
 * A plan from an explicit assignment (e.g. for tests, or a caller's own policy):
 * task t goes to rank rank_of_task[t]; inside each queue tasks are ordered as in
 * sp_plan_lpt() (cost descending, ties by task id ascending).
 *
 * @param cost          [n_tasks] costs, finite and >= 0
 * @param rank_of_task  [n_tasks] ranks, each in [0, n_ranks)
 * @return 0; SP_E_INVALID (as sp_plan_lpt(), or a rank out of range), SP_E_TOO_LARGE, SP_E_NOMEM.
 */
int sp_plan_from_assignment(const double *cost, size_t n_tasks, int n_ranks, const int *rank_of_task,
                            sp_plan *out, sp_err *err);

/** Free the plan's arrays and zero it. NULL and zeroed plans are fine. */
void sp_plan_free(sp_plan *plan);

/** Largest per-rank load of the plan (0 for an empty plan or NULL). */
double sp_plan_makespan(const sp_plan *plan);

/**
 * Lower bound of any schedule's makespan: max(largest task cost, total cost / n_ranks)
 * (DESIGN.md's scheduling target is "within 5% of" this bound). 0 for NULL / empty.
 */
double sp_plan_lower_bound(const sp_plan *plan);

/**
 * Check a plan's invariants: n_ranks >= 1, queue_ptr monotone from 0 to n_tasks,
 * every task id in range and present exactly once, costs finite and >= 0.
 * @return 0; SP_E_INVALID (naming the first broken invariant), SP_E_NOMEM.
 */
int sp_plan_check(const sp_plan *plan, sp_err *err);

/* ------------------------------------------------------------------------------------ */
/* Simulation (no MPI)                                                                    */
/* ------------------------------------------------------------------------------------ */

/** Result of sp_sched_simulate(). Times are in the units of the actual costs. */
typedef struct sp_sched_sim {
  double makespan;          /**< time the last rank finishes */
  double static_makespan;   /**< the same plan without stealing: max over ranks of the actual queue sums */
  double lower_bound;       /**< max(largest actual cost, total actual cost / n_ranks) */
  int64_t steals;           /**< tasks run by a rank other than their queue's owner */
} sp_sched_sim;

/**
 * Simulate sp_sched_run()'s protocol on one plan, without MPI: each rank runs its own
 * queue front to back; a rank with an empty queue steals the back task of the rank with
 * the largest estimated load among those where stealing pays (same rule and estimates,
 * plan costs, as the real run); tasks take @p actual time. Events are processed in time
 * order (ties: lowest rank), so the result is deterministic. This is how DESIGN.md's
 * scheduling target ("makespan within 5% of max(largest task, total / P) at P = 20") is
 * checked from measured costs.
 *
 * @param plan           a valid plan (sp_plan_check())
 * @param actual         [plan->n_tasks] actual time of each task, finite and >= 0
 *                       (NULL: the plan's estimated costs)
 * @param steal_latency  time added to each steal (>= 0; e.g. the cost of two remote atomics)
 * @param out            filled on success
 * @return 0; SP_E_INVALID (bad plan, NULL out, an actual time negative or not finite,
 *         negative or non-finite latency), SP_E_NOMEM. O(n_tasks * n_ranks).
 */
int sp_sched_simulate(const sp_plan *plan, const double *actual, double steal_latency, sp_sched_sim *out,
                      sp_err *err);

/* ------------------------------------------------------------------------------------ */
/* Cost model and splitting (no MPI)                                                      */
/* ------------------------------------------------------------------------------------ */

/**
 * Linear model of a task's time in seconds (docs/scheduling.md "Cost model"):
 *
 *   t = intercept + per_plain_byte * B_plain + per_gz_byte * B_gz + per_atom * atoms + per_ligand * ligands
 *
 * B_plain: bytes as stored of a plain-text file (0 for gzip), B_gz: bytes as stored of a gzip
 * file (0 for plain text), atoms: every atom record read, ligands: ligand instances whose sites
 * the task computes. The plan knows only the bytes and gzip before parsing; atoms and ligands
 * are used when known (-1: unknown, then the bytes terms alone estimate them through the
 * *_only constants).
 */
typedef struct sp_cost_model {
  double intercept;       /**< s per task (open, sha256 setup, rows) */
  double per_plain_byte;  /**< s per stored byte of plain text */
  double per_gz_byte;     /**< s per stored byte of gzip (inflate + parse of ~4x as much text) */
  double per_atom;        /**< s per atom record */
  double per_ligand;      /**< s per ligand instance (survey share + site) */
  /* bytes-only model, for files whose atoms/ligands are unknown (fitted separately) */
  double bo_intercept;    /**< s per task */
  double bo_per_plain_byte; /**< s per stored byte of plain text */
  double bo_per_gz_byte;  /**< s per stored byte of gzip */
  int64_t n_samples;      /**< tasks the constants were fitted on (0: built-in defaults) */
  double r2;              /**< coefficient of determination of the full model's fit (NaN if unknown) */
  double r2_bytes_only;   /**< the same for the bytes-only model */
} sp_cost_model;

/**
 * The built-in constants, fitted on /work/shared/data/structures (225 files, components_excerpt
 * CCD) by `bench/sched.sh fit` (docs/scheduling.md gives the command and the values).
 */
void sp_cost_model_default(sp_cost_model *m);

/**
 * Estimated seconds of one task: the full model when @p atoms >= 0 and @p ligands >= 0,
 * else the bytes-only model. Never negative; at least 1e-6 (every task costs something,
 * so LPT spreads empty files too).
 * @param bytes  stored size in bytes (values < 0 count as 0)
 * @param gzip   nonzero for a gzip file
 */
double sp_cost_estimate(const sp_cost_model *m, int64_t bytes, int gzip, int64_t atoms, int64_t ligands);

/** One measured task, for sp_cost_fit(). */
typedef struct sp_cost_sample {
  double seconds;   /**< measured time of the task (read + parse + survey + sites) */
  int64_t bytes;    /**< stored bytes */
  int gzip;         /**< 1 gzip */
  int64_t atoms;    /**< atom records read */
  int64_t ligands;  /**< ligand instances whose sites the task computed */
} sp_cost_sample;

/**
 * Fit both models by non-negative least squares (every constant >= 0; exact: the best of
 * all subsets of active constants, each solved by its normal equations; 2^5 + 2^3 small
 * solves). Samples with a non-finite or negative time are skipped.
 * @param s      [n] samples (may be NULL when n == 0)
 * @param out    filled on success; with fewer usable samples than 2 the defaults are returned
 *               with n_samples = 0
 * @return 0; SP_E_INVALID (NULL out, NULL s with n > 0).
 */
int sp_cost_fit(const sp_cost_sample *s, size_t n, sp_cost_model *out, sp_err *err);

/** Splitting of large files into ranges of their ligands (job file `split`). */
typedef struct sp_split_opts {
  int64_t min_bytes;     /**< split only files of at least this many stored bytes (default 2 MB = 2000000) */
  int64_t min_ligands;   /**< ... with more than this many ligands; also the target ligands per part
                              (default 24) */
  int max_parts;         /**< at most this many parts per file (default 16) */
  int enabled;           /**< 0: never split (default 1) */
  int cost_guard;        /**< 1 (default): at most floor(ligand work / re-parse work) parts, by the cost
                              model, so that each part saves at least what its extra parse costs
                              (sp_split_parts_model()); 0: the size and ligand thresholds alone */
} sp_split_opts;

/** Defaults: enabled, 2000000 bytes, 24 ligands, 16 parts, cost guard on. */
void sp_split_opts_default(sp_split_opts *o);

/**
 * Number of parts of a file: 1 unless split is enabled, bytes >= min_bytes and
 * n_ligands > min_ligands (n_ligands < 0: unknown, 1); then ceil(n_ligands / min_ligands),
 * at most max_parts (and at least 1). Independent of the number of ranks, so that the output
 * does not depend on P.
 */
int sp_split_parts(const sp_split_opts *o, int64_t bytes, int64_t n_ligands);

/**
 * sp_split_parts() with the cost guard of @p o (when o->cost_guard and @p m is not NULL): the
 * number of parts is also at most floor(m->per_ligand * n_ligands / base), base being the
 * model's estimate of the file without its ligand term (sp_cost_estimate(m, bytes, gzip,
 * atoms, 0)), and at least 1. Every part re-parses the whole file, so a part that computes
 * less ligand work than one parse makes the run slower. @p atoms < 0: unknown (the bytes-only
 * estimate is the base).
 */
int sp_split_parts_model(const sp_split_opts *o, const sp_cost_model *m, int64_t bytes, int gzip, int64_t atoms,
                         int64_t n_ligands);

/**
 * Ligands [*lo, *hi) of part @p part of @p n_parts for a file of @p n_ligands ligands:
 * lo = floor(part * n / n_parts), hi = floor((part + 1) * n / n_parts) (consecutive, in
 * order, covering 0..n exactly once). part outside [0, n_parts) or n_parts < 1 gives 0, 0.
 */
void sp_split_range(int64_t n_ligands, int part, int n_parts, int64_t *lo, int64_t *hi);

/** One task of a run: a whole file (part 0 of 1) or a range of its ligands. */
typedef struct sp_task_ref {
  int64_t file_idx;  /**< index in the sorted file list */
  int32_t part;      /**< 0 .. n_parts-1 */
  int32_t n_parts;   /**< parts of this file (1: not split) */
} sp_task_ref;

/**
 * Expand files into tasks and estimate each task's cost (used by `sitepack run` and by the
 * benchmark's simulations alike). Tasks come in file order, parts in order. The number of
 * parts of a file is sp_split_parts_model(split, model, ...). A split file's
 * part k costs the file's estimate without its ligand term, plus per_ligand times the
 * ligands of the part (sp_split_range()): every part parses the whole file again.
 *
 * @param n_files   number of files
 * @param bytes     [n_files] stored sizes
 * @param gzip      [n_files] nonzero for gzip (NULL: none)
 * @param atoms     [n_files] atoms when known, -1 unknown (NULL: all unknown)
 * @param ligands   [n_files] ligands when known, -1 unknown (NULL: all unknown; nothing splits)
 * @param split     splitting rule (NULL: no splitting)
 * @param model     cost model (NULL: sp_cost_model_default())
 * @param tasks     out: [*n_tasks] tasks, malloc'd (free()); non-NULL even when empty
 * @param cost      out: [*n_tasks] estimated costs in seconds, malloc'd (free())
 * @return 0; SP_E_INVALID (NULL bytes with n_files > 0, NULL outputs), SP_E_TOO_LARGE, SP_E_NOMEM.
 */
int sp_tasks_expand(size_t n_files, const int64_t *bytes, const uint8_t *gzip, const int64_t *atoms,
                    const int64_t *ligands, const sp_split_opts *split, const sp_cost_model *model,
                    sp_task_ref **tasks, double **cost, size_t *n_tasks, sp_err *err);

#ifdef __cplusplus
}
#endif
#endif

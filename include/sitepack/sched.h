/**
 * @file sched.h
 * @brief Scheduling: the static plan (Graham's LPT rule) and the MPI run loop with
 *        work-stealing queues in one-sided (RMA) windows. See docs/scheduling.md.
 *
 * Two parts:
 *  - the plan (no MPI): sp_plan_lpt() turns estimated task costs into one queue per
 *    rank, largest task first, each task on the currently least-loaded rank;
 *  - the run (MPI): sp_sched_run() broadcasts the plan from rank 0, puts every rank's
 *    queue into an MPI_Win_allocate window on that rank, and runs every task exactly
 *    once: each rank pops the front of its own queue, an idle rank steals from the back
 *    of the queue of the rank with the most estimated work left. Every claim is one
 *    MPI_Fetch_and_op on a per-task claim flag (no compare-and-swap, no locks held
 *    across work, no master handing out tasks by messages).
 *
 * Costs are in arbitrary, consistent units chosen by the caller's cost model (e.g.
 * bytes of text, with gzip bytes weighted by ~4); only ratios matter.
 */
#ifndef SITEPACK_SCHED_H
#define SITEPACK_SCHED_H

#include <stddef.h>
#include <stdint.h>

#include <mpi.h>

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
/* Run (MPI)                                                                              */
/* ------------------------------------------------------------------------------------ */

/**
 * The work of one task. Called as fn(task_id, user) once for every task this rank
 * claims, in claim order, from the thread that called sp_sched_run().
 * @return 0 to go on. A non-zero value (an sp_errclass, e.g. SP_E_NOMEM) is fatal for
 *         the whole run: every rank stops claiming after its current task and
 *         sp_sched_run() returns an error on every rank. Per-task failures that the run
 *         survives (a bad input file) must be recorded by fn and return 0.
 */
typedef int (*sp_task_fn)(size_t task_id, void *user);

/** Global progress, as read by rank 0 from the counters in its window. */
typedef struct sp_progress {
  int64_t tasks_done;   /**< tasks finished by all ranks so far */
  int64_t tasks_total;  /**< tasks of the plan */
  double cost_done;     /**< estimated cost of the finished tasks (plan units) */
  double cost_total;    /**< estimated cost of all tasks */
  double elapsed_s;     /**< seconds since sp_sched_run() started on rank 0 */
  int final;            /**< 1 for the last call, after every rank has stopped */
  double weight_done;   /**< sum of sp_sched_opts.weight over finished tasks (0 without weights) */
  double weight_total;  /**< sum of sp_sched_opts.weight over all tasks (0 without weights) */
} sp_progress;

/** Progress callback, called on rank 0 only, between its tasks (never inside fn). */
typedef void (*sp_progress_fn)(const sp_progress *p, void *user);

/** Options of sp_sched_run_ex(). Zero-initialise, or use sp_sched_opts_default(). */
typedef struct sp_sched_opts {
  sp_progress_fn progress;     /**< rank 0's progress callback; NULL: none */
  void *progress_user;         /**< passed to progress */
  double progress_interval_s;  /**< least seconds between two non-final calls (0: after every task
                                    and every idle poll of rank 0) */
  double idle_sleep_max_s;     /**< longest sleep of an idle rank between two polls (0: 1e-3 s);
                                    sleeps start at 1e-5 s and double */
  int no_steal;                /**< 1: never steal (a rank whose queue is done only waits and reports
                                    progress): the static plan alone, for benchmarks */
  const double *weight;        /**< [n_tasks] optional second quantity per task (e.g. bytes), summed over
                                    finished tasks into sp_progress.weight_done; significant on rank 0
                                    only (NULL: none). Must stay valid during the run. */
} sp_sched_opts;

/** Defaults: no progress callback, interval 1 s, idle sleep up to 1 ms. */
void sp_sched_opts_default(sp_sched_opts *o);

/** Per-rank statistics of one sp_sched_run(), for the run report. */
typedef struct sp_sched_stats {
  int rank;                 /**< rank in the communicator passed to sp_sched_run() */
  int64_t tasks_planned;    /**< tasks in this rank's queue of the plan */
  double cost_planned;      /**< their estimated cost */
  int64_t tasks_done;       /**< tasks this rank ran (own and stolen) */
  double cost_done;         /**< estimated cost of the tasks this rank ran */
  int64_t steals;           /**< tasks this rank took from other ranks' queues (and ran) */
  int64_t stolen;           /**< tasks of this rank's queue run by other ranks (0 after a failed run) */
  int64_t steal_attempts;   /**< claims tried on other ranks' queues (successful or not) */
  int64_t polls;            /**< rounds of reading every rank's counters while idle */
  double busy_s;            /**< seconds inside fn */
  double idle_s;            /**< wall_s - busy_s: scheduling, waiting, setup (seconds) */
  double wall_s;            /**< seconds from entry to return of sp_sched_run() */
} sp_sched_stats;

/**
 * Run every task of the plan exactly once over the ranks of @p comm (collective).
 *
 * Rank 0's @p plan is broadcast (other ranks' @p plan is ignored and may be NULL);
 * its n_ranks must equal the size of @p comm. The queues live in an MPI_Win_allocate
 * window (passive target, one MPI_Win_lock_all epoch); claims and counters use only
 * MPI_Fetch_and_op and MPI_Accumulate, so the window works with Open MPI's osc sm
 * (run with `--mca osc sm` on Open MPI 4.1; see docs/scheduling.md). Between tasks
 * each rank calls into MPI (flush, MPI_Iprobe) so that progress-less RMA
 * implementations still advance. Rank 0 works too.
 *
 * @param comm   communicator (duplicated inside; not used for messages of the caller)
 * @param plan   the plan, significant on rank 0 only
 * @param fn     task function (must not be NULL on any rank)
 * @param user   passed to fn
 * @param stats  this rank's statistics (may be NULL); filled also on error
 * @return the same value on every rank: 0; SP_E_INVALID (NULL or inconsistent plan on
 *         rank 0, n_ranks != comm size, NULL fn), SP_E_TOO_LARGE (more tasks than an
 *         MPI count can describe), SP_E_NOMEM, SP_E_MPI (an MPI call failed; note that
 *         MPI's default error handler aborts first), SP_E_INTERNAL (a corrupt window), or
 *         the class returned by a failing fn (the message names the rank and the task).
 *         After an error, tasks not yet run stay unrun; no task has run twice.
 */
int sp_sched_run(MPI_Comm comm, const sp_plan *plan, sp_task_fn fn, void *user, sp_sched_stats *stats,
                 sp_err *err);

/** sp_sched_run() with options (@p opts may be NULL: sp_sched_opts_default()). */
int sp_sched_run_ex(MPI_Comm comm, const sp_plan *plan, sp_task_fn fn, void *user, const sp_sched_opts *opts,
                    sp_sched_stats *stats, sp_err *err);

/**
 * Bring every rank's statistics to rank 0 (collective over @p comm).
 * @param mine  this rank's statistics (not NULL)
 * @param all   on rank 0: [comm size] array, filled in rank order; ignored elsewhere (may be NULL)
 * @return the same value on every rank: 0; SP_E_INVALID (NULL mine on some rank, or NULL all
 *         on rank 0), SP_E_NOMEM, SP_E_MPI.
 */
int sp_sched_gather_stats(MPI_Comm comm, const sp_sched_stats *mine, sp_sched_stats *all, sp_err *err);

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

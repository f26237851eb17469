/**
 * @file sched.h
 * @brief Scheduling under MPI: the run loop with work-stealing queues in one-sided (RMA)
 *        windows. See docs/scheduling.md. The plan it runs, without MPI: plan.h.
 *
 * sp_sched_run() broadcasts the plan from rank 0, puts every rank's queue into an
 * MPI_Win_allocate window on that rank, and runs every task exactly once: each rank pops
 * the front of its own queue, an idle rank steals from the back of the queue of the rank
 * with the most estimated work left. Every claim is one MPI_Fetch_and_op on a per-task
 * claim flag (no compare-and-swap, no locks held across work, no master handing out
 * tasks by messages).
 */
#ifndef SITEPACK_SCHED_H
#define SITEPACK_SCHED_H

#include <stddef.h>
#include <stdint.h>

#include <mpi.h>

#include "sitepack/error.h"
#include "sitepack/plan.h"

#ifdef __cplusplus
extern "C" {
#endif

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

#ifdef __cplusplus
}
#endif
#endif

/* `sitepack run`: what keeps one run from harming another and from outliving its launcher
 * (issue 16 items 8, 11). Private to src/app.
 *
 * - The output lock: rank 0 holds an exclusive flock(2) on OUT.lock (next to OUT.parts/, which
 *   --resume renames, so the lock cannot live inside it) from before the scan to the end of the
 *   run; the file holds rank 0's pid. The kernel drops the lock when the process dies (kill -9
 *   included), so a lock file left behind never blocks a later run.
 * - Signals: SIGINT and SIGTERM set a flag (run_stop_signal); the task loop stops at the next task
 *   boundary; a second signal of the same kind acts as the default (SA_RESETHAND).
 * - The launcher: a rank started by mpirun (Open MPI sets OMPI_COMM_WORLD_SIZE) asks the kernel
 *   for SIGKILL when its parent dies (prctl PR_SET_PDEATHSIG): under Open MPI 4.1 the parent of
 *   each rank is mpirun on its node (or the orted daemon of a remote node), so `kill -9` of mpirun
 *   leaves no orphan writing the per-rank files. A rank whose parent is already gone exits.
 */
#ifndef SITEPACK_APP_RUN_GUARD_H
#define SITEPACK_APP_RUN_GUARD_H

/* Rank 0: take the lock of @p output (the file "OUTPUT.lock", created 0644). *fd_out: the open
 * lock (close it with run_unlock_output), -1 on failure. Returns 0; SP_EXIT_USAGE when another
 * process holds it ("another run (pid N) is writing OUTPUT", printed); SP_EXIT_RUNTIME when the
 * lock file cannot be created (printed). */
int run_lock_output(const char *output, int *fd_out);

/* Rank 0: remove the lock file of @p output and release the lock @p fd (no-op for fd < 0). */
void run_unlock_output(const char *output, int fd);

/* Install the SIGINT and SIGTERM handlers (every rank, before the tasks). */
void run_signals_install(void);

/* The first SIGINT or SIGTERM received (its number), 0 when none. Async-signal-safe to read. */
int run_stop_signal(void);

/* Under mpirun: die with the launcher (PR_SET_PDEATHSIG SIGKILL); a singleton run: nothing. */
void run_die_with_launcher(void);

#endif

/* `sitepack run`: the finished tasks kept in OUT.parts (docs/reliability.md "Output path safety"):
 * a run never discards them without --force, and a stopped run says how many it really keeps. See
 * app/run_ctx.h run_phase_check_parts(), run_kept_words(). */
#include <stdio.h>

#include "app/run_ctx.h"

/* Rank 0: "OUT.parts" or "OUT.parts and OUT.resume" (where the per-rank files of @p h lie) into @p buf [cap]. */
static void held_where(const struct run_env *e, const sp_parts_held *h, char *buf, size_t cap) {
  if (h->n_attempt_files) snprintf(buf, cap, "%s and %s.resume", e->parts_dir, e->job.output);
  else snprintf(buf, cap, "%s", e->parts_dir);
}

int run_phase_check_parts(const struct run_env *e) {
  if (e->rank != 0 || e->job.resume || e->job.shard_count > 0) return 0;
  sp_parts_held h;
  if (sp_run_parts_held(e->job.output, e->parts_dir, &h)) return SP_EXIT_RUNTIME;
  if (!h.n_tasks) return 0;
  char where[2 * RUN_PATH_CAP];
  held_where(e, &h, where, sizeof where);
  if (!e->job.force) {
    fprintf(stderr, "sitepack run: %s holds %zu finished tasks (%zu files) of an interrupted run: rerun with "
            "--resume to keep them, or --force to discard them\n", where, h.n_tasks, h.n_files);
    return SP_EXIT_USAGE;
  }
  fprintf(stderr, "sitepack run: --force: discarding %zu finished tasks (%zu files) of an earlier run in %s\n",
          h.n_tasks, h.n_files, where);
  return 0;
}

void run_kept_words(const struct run_env *e, const char *fix, char *buf, size_t cap) {
  sp_parts_held h = {0};
  int bad = sp_run_parts_held(e->job.output, e->parts_dir, &h); /* out of memory: not counted, said so */
  char where[2 * RUN_PATH_CAP], what[96];
  held_where(e, &h, where, sizeof where);
  const char *hint = e->job.shard_count > 0 ? "rerun this shard (a shard run does not resume)" : "rerun with --resume";
  if (bad || h.n_tasks) {
    if (bad) snprintf(what, sizeof what, "the finished tasks (not counted)");
    else snprintf(what, sizeof what, "%zu finished tasks (%zu files)", h.n_tasks, h.n_files);
    snprintf(buf, cap, "%s are kept in %s: %s%s", what, where, fix, hint);
    return;
  }
  const char *why = h.n_failed_files > 1 ? "the per-rank files whose write failed are not trusted; they stay there as "
                                           "rank-*.h5.failed for a look, and take disk space until deleted"
                    : h.n_failed_files ? "the per-rank file whose write failed is not trusted; it stays there as "
                                         "rank-*.h5.failed for a look, and takes disk space until deleted"
                    : h.n_unreadable   ? "its per-rank files cannot be read"
                                       : "no task had finished";
  snprintf(buf, cap, "nothing was kept in %s (%s): %s%s", e->parts_dir, why, fix,
           e->job.shard_count > 0 ? hint : "rerun (--resume will start over)");
}

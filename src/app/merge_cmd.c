/* Shards of a SLURM array and `sitepack merge` (issue 8; cmd_merge.h, docs/slurm.md).
 *
 * Shard files (sitepack/shard.h: written and read by the store) are per-rank-format files packed
 * from a shard run's per-rank files, plus root attributes that identify the job and the shard. Here:
 * the --shard option, the shard plan and fingerprint, and `sitepack merge`, which checks that a set
 * of shard files is one complete job and hands them to sp_merge(), which orders every task by
 * (file_idx, part). */
#include <errno.h>
#include <glob.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <sys/types.h>
#include <time.h>

#include "app/cli_opts.h"
#include "app/cmd_merge.h"
#include "app/merge_comm.h"
#include "app/out_files.h"
#include "sitepack/io.h"
#include "sitepack/store.h"
#include "sitepack/version.h"

/* ------------------------------------------------------------------------------------------ */
/* --shard I/N and the SLURM array variables                                                    */
/* ------------------------------------------------------------------------------------------ */

static int parse_nonneg(const char *s, long long *out) {
  if (!s || !*s) return -1;
  char *end = NULL;
  errno = 0;
  long long v = strtoll(s, &end, 10);
  if (errno || !end || *end || v < 0 || s[0] == '-' || s[0] == '+') return -1;
  *out = v;
  return 0;
}

int sp_shard_parse(const char *spec, int *index, int *count, char *msg, size_t cap) {
  long long i = -1, n = -1;
  if (!spec || !index || !count) {
    snprintf(msg, cap, "no shard given");
    return -1;
  }
  if (!strcmp(spec, "auto")) {
    const char *id = getenv("SLURM_ARRAY_TASK_ID"), *cnt = getenv("SLURM_ARRAY_TASK_COUNT");
    const char *mn = getenv("SLURM_ARRAY_TASK_MIN"), *mx = getenv("SLURM_ARRAY_TASK_MAX");
    long long vid, vcnt, vmin, vmax;
    if (parse_nonneg(id, &vid) || parse_nonneg(cnt, &vcnt) || parse_nonneg(mn, &vmin) || parse_nonneg(mx, &vmax)) {
      snprintf(msg, cap, "--shard auto needs SLURM_ARRAY_TASK_ID, _COUNT, _MIN and _MAX (not in a SLURM array task?)");
      return -1;
    }
    if (vmax < vmin || vcnt != vmax - vmin + 1 || vid < vmin || vid > vmax) {
      snprintf(msg, cap,
               "--shard auto: array %lld-%lld has %lld tasks: use an array without steps or gaps (--array=0-%lld), "
               "or give --shard I/N explicitly",
               vmin, vmax, vcnt, vcnt > 0 ? vcnt - 1 : 0);
      return -1;
    }
    i = vid - vmin;
    n = vcnt;
  } else {
    const char *slash = strchr(spec, '/');
    char a[32];
    size_t la = slash ? (size_t)(slash - spec) : 0;
    if (!slash || la == 0 || la >= sizeof a) {
      snprintf(msg, cap, "--shard must be I/N (0 <= I < N) or auto, got '%s'", spec);
      return -1;
    }
    memcpy(a, spec, la);
    a[la] = 0;
    if (parse_nonneg(a, &i) || parse_nonneg(slash + 1, &n)) {
      snprintf(msg, cap, "--shard must be I/N with decimal integers 0 <= I < N, got '%s'", spec);
      return -1;
    }
  }
  if (n < 1 || n > SP_SHARD_MAX || i < 0 || i >= n) {
    snprintf(msg, cap, "--shard %lld/%lld: need 0 <= I < N <= %d", i, n, SP_SHARD_MAX);
    return -1;
  }
  *index = (int)i;
  *count = (int)n;
  return 0;
}

/* ------------------------------------------------------------------------------------------ */
/* Fingerprint and plan                                                                          */
/* ------------------------------------------------------------------------------------------ */

typedef struct sbuf {
  char *p;
  size_t len, cap;
  int oom;
} sbuf;

static void sb_add(sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_add(sbuf *b, const char *fmt, ...) {
  if (b->oom) return;
  for (;;) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(b->p ? b->p + b->len : NULL, b->p ? b->cap - b->len : 0, fmt, ap);
    va_end(ap);
    if (n < 0) {
      b->oom = 1;
      return;
    }
    if (b->p && b->len + (size_t)n < b->cap) {
      b->len += (size_t)n;
      return;
    }
    size_t nc = (b->cap + (size_t)n + 1) * 2;
    char *q = realloc(b->p, nc);
    if (!q) {
      b->oom = 1;
      return;
    }
    b->p = q;
    b->cap = nc;
  }
}

void sp_shard_fingerprint(char *const *paths, const int64_t *bytes, const uint8_t *gz, size_t n,
                          const char *job_json, const char *ccd_sha256, const sp_split_opts *split, char out[65]) {
  sbuf b = {0};
  sb_add(&b, "sitepack-shard-v1\nfiles %zu\n", n);
  for (size_t i = 0; i < n; i++)
    sb_add(&b, "%s\t%lld\t%d\n", paths[i], (long long)bytes[i], gz ? (int)gz[i] : 0);
  sb_add(&b, "job %s\nccd %s\n", job_json ? job_json : "", ccd_sha256 ? ccd_sha256 : "");
  if (split)
    sb_add(&b, "split %d %lld %lld %d %d\n", split->enabled, (long long)split->min_bytes,
           (long long)split->min_ligands, split->max_parts, split->cost_guard);
  if (b.oom) /* cannot hash the list: a value no real hash takes, so merges of it are refused */
    snprintf(out, 65, "%s", "out-of-memory");
  else
    sp_sha256_hex(b.p, b.len, out);
  free(b.p);
}

int sp_shard_plan(int index, int count, char *const *paths, const int64_t *bytes, const uint8_t *gz, size_t n,
                  const char *job_json, const char *ccd_sha256, const sp_split_opts *split, sp_task_ref *tasks,
                  double *cost, size_t *n_tasks, double *kept_bytes, sp_shard_meta *meta, sp_err *err) {
  if (!meta || !n_tasks || (n && (!paths || !bytes || !tasks || !cost)))
    return sp_err_set(err, SP_E_INVALID, "sp_shard_plan: NULL argument");
  memset(meta, 0, sizeof *meta);
  if (count < 1 || index < 0 || index >= count)
    return sp_err_set(err, SP_E_INVALID, "shard %d/%d: need 0 <= I < N", index, count);
  for (size_t f = 0; f < n; f++)
    if (tasks[f].file_idx != (int64_t)f || tasks[f].part != 0)
      return sp_err_set(err, SP_E_INVALID, "sp_shard_plan: task %zu is not file %zu part 0", f, f);
  sp_plan plan = {0};
  int rc = sp_plan_lpt(cost, n, count, &plan, err);
  if (rc) return rc;
  size_t k0 = plan.queue_ptr[index], k1 = plan.queue_ptr[index + 1];
  uint8_t *mine = calloc(n ? n : 1, 1);
  meta->files = malloc((k1 > k0 ? k1 - k0 : 1) * sizeof *meta->files);
  if (!mine || !meta->files) {
    free(mine);
    sp_plan_free(&plan);
    sp_shard_meta_free(meta);
    return sp_err_set(err, SP_E_NOMEM, "out of memory planning shard %d/%d", index, count);
  }
  for (size_t k = k0; k < k1; k++) mine[plan.queue[k]] = 1;
  sp_plan_free(&plan);
  size_t kept = 0;
  double kb = 0;
  for (size_t f = 0; f < n; f++) {
    if (!mine[f]) continue;
    tasks[kept] = tasks[f];
    cost[kept] = cost[f];
    meta->files[kept] = (int64_t)f;
    kb += (double)bytes[f];
    kept++;
  }
  free(mine);
  *n_tasks = kept;
  if (kept_bytes) *kept_bytes = kb;
  meta->index = index;
  meta->count = count;
  meta->n_files = (int64_t)n;
  meta->n_assigned = kept;
  sp_shard_fingerprint(paths, bytes, gz, n, job_json, ccd_sha256, split, meta->fingerprint);
  return 0;
}

/* ------------------------------------------------------------------------------------------ */
/* sitepack merge                                                                                */
/* ------------------------------------------------------------------------------------------ */

typedef struct shard_in {
  char *path;
  sp_shard_file f;  /* shard.h sp_shard_read() */
} shard_in;

/* This process's rank under mpirun (0 without MPI): only rank 0 speaks, every rank does the same checks;
   mc_world: MPI_COMM_WORLD under mpirun, NULL without MPI (the merge is then sp_merge(), as before). */
static int mc_rank = 0;
static MPI_Comm *mc_world = NULL;

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...) {
  if (mc_rank != 0) return;
  va_list ap;
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
}

static int merge_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int merge_fail(const char *fmt, ...) {
  if (mc_rank != 0) return 1;
  va_list ap;
  va_start(ap, fmt);
  fputs("sitepack merge: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  return 1;
}

static int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return x < y ? -1 : x > y;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static void merge_usage(FILE *f) {
  fprintf(f,
          "usage: sitepack merge OUT.h5 SHARD.h5... [--force] [--quiet] [--no-check]\n"
          "Merges the shard files of `sitepack run --shard I/N` (one per shard 0..N-1, any order) into the\n"
          "file one run over all inputs writes. A SHARD argument with * ? or [ is expanded (quote it:\n"
          "sitepack merge out.h5 'shards/shard-*.h5'). Refuses shards of different jobs, a shard given\n"
          "twice, or a missing shard, and says which (docs/slurm.md).\n"
          "  --force   overwrite an existing OUT.h5 (never one of the SHARD files: refused)\n"
          "  --quiet   no summary line\n"
          "  --no-check  do not validate the merged file (by default it must pass `sitepack check`'s layout,\n"
          "            index and value checks before it is renamed to OUT.h5: a damaged shard is refused;\n"
          "            0.26 s per GB of output on rank 0, page cache warm: 0.042 s for 162 MB; docs/slurm.md)\n"
          "exit status: 0 merged, 1 refused or the merge failed, 2 bad command line or OUT exists\n");
}

typedef struct merge_args {
  const char *out;
  int force, quiet, help, no_check;
  char **paths;  /* [n] shard paths, glob patterns expanded (strdup'd) */
  size_t n, cap;
} merge_args;

static void merge_args_free(merge_args *a) {
  for (size_t k = 0; k < a->n; k++) free(a->paths[k]);
  free(a->paths);
  a->paths = NULL;
  a->n = a->cap = 0;
}

/* Append one shard argument to a->paths: itself, or the files its wildcard matches (glob(3), sorted). */
static int add_shard_arg(merge_args *a, const char *arg) {
  glob_t g;
  memset(&g, 0, sizeof g);
  int is_glob = strpbrk(arg, "*?[") != NULL, status = 0;
  if (is_glob) {
    int grc = glob(arg, 0, NULL, &g);
    if (grc == GLOB_NOMATCH || (grc == 0 && g.gl_pathc == 0)) {
      say("sitepack merge: no shard file matches %s\n", arg);
      globfree(&g);
      return 1;
    } else if (grc) {
      say("sitepack merge: cannot expand %s\n", arg);
      globfree(&g);
      return 1;
    }
  }
  size_t add = is_glob ? g.gl_pathc : 1;
  if (a->n + add > a->cap) {
    size_t nc = (a->n + add) * 2 + 8;
    char **p = realloc(a->paths, nc * sizeof *p);
    if (!p) {
      if (is_glob) globfree(&g);
      return merge_fail("out of memory");
    }
    a->paths = p;
    a->cap = nc;
  }
  for (size_t k = 0; k < add; k++) {
    a->paths[a->n] = strdup(is_glob ? g.gl_pathv[k] : arg);
    if (!a->paths[a->n]) {
      status = merge_fail("out of memory");
      break;
    }
    a->n++;
  }
  if (is_glob) globfree(&g);
  return status;
}

/* The command line: 0, or the exit status (1, 2) after saying why; a->help for --help. */
static int parse_merge_args(int argc, char **argv, merge_args *a) {
  /* issue 16 item 13: getopt_long, the options anywhere, `--` before a name that starts with '-' */
  static const struct option longopts[] = {{"force", no_argument, NULL, 'f'},
                                           {"quiet", no_argument, NULL, 'q'},
                                           {"no-check", no_argument, NULL, 'n'},
                                           {"help", no_argument, NULL, 'h'},
                                           {NULL, 0, NULL, 0}};
  int opt;
  sp_opt_reset();
  while ((opt = sp_opt_next("merge", argc, argv, "hq", longopts)) != -1) {
    if (opt == '?') return 2;
    if (opt == 'h') {
      a->help = 1;
      return 0;
    }
    if (opt == 'f') a->force = 1;
    if (opt == 'q') a->quiet = 1;
    if (opt == 'n') a->no_check = 1;
  }
  for (int i = optind; i < argc; i++) {
    if (!a->out) {
      a->out = argv[i];
      continue;
    }
    int status = add_shard_arg(a, argv[i]);
    if (status) return status;
  }
  if (!a->out || a->n == 0) {
    if (mc_rank == 0) merge_usage(stderr);
    return 2;
  }
  struct stat sb, si;
  if (stat(a->out, &sb) == 0) /* the output is never one of the shards, --force or not (as `run`) */
    for (size_t k = 0; k < a->n; k++)
      if (stat(a->paths[k], &si) == 0 && si.st_dev == sb.st_dev && si.st_ino == sb.st_ino) {
        say("sitepack merge: output %s is an input of the merge: refused\n", a->out);
        return 2;
      }
  if (!a->force && stat(a->out, &sb) == 0) {
    say("sitepack merge: output %s exists (use --force to overwrite)\n", a->out);
    return 2;
  }
  /* as run: the output's missing directories are created, and the output probed before any work, through the
     OUT.tmp the merge writes (a probe of OUT itself could be seen by another rank's "exists" test above); on
     rank 0, merge_body's MPI_MAX of the status stops every rank */
  char dir[4096], probe[4200];
  if (mc_rank != 0) return 0;
  if (sp_out_mkdir_parent(a->out, dir, sizeof dir)) {
    say("sitepack merge: cannot create the output's directory %s: %s\n", dir, strerror(errno));
    return 1;
  }
  sp_out_sibling(a->out, SP_SIB_TMP, probe, sizeof probe);
  if (!sp_out_writable(probe)) {
    say("sitepack merge: cannot write output %s: %s\n", a->out, strerror(errno));
    return 1;
  }
  return 0;
}

/* One job: fingerprint, shard count and file count agree. */
static int check_one_job(const shard_in *sh, size_t n) {
  const sp_shard_file *a = &sh[0].f;
  for (size_t k = 1; k < n; k++) {
    const sp_shard_file *b = &sh[k].f;
    if (strcmp(b->fingerprint, a->fingerprint) || b->count != a->count || b->n_files != a->n_files)
      return merge_fail("shards of different jobs: %s (job %.12s, %lld shards, %lld files) and %s (job %.12s, %lld "
                        "shards, %lld files); every shard must come from the same input, job options, CCD and N",
                        sh[0].path, a->fingerprint, (long long)a->count, (long long)a->n_files, sh[k].path,
                        b->fingerprint, (long long)b->count, (long long)b->n_files);
  }
  return 0;
}

/* Every shard 0..N-1 exactly once. */
static int check_each_shard_once(const shard_in *sh, size_t n) {
  size_t N = (size_t)sh[0].f.count;
  ssize_t *who = malloc(N * sizeof *who);
  if (!who) return merge_fail("out of memory");
  int status = 0;
  for (size_t i = 0; i < N; i++) who[i] = -1;
  for (size_t k = 0; !status && k < n; k++) {
    size_t i = (size_t)sh[k].f.index;
    if (who[i] >= 0)
      status = merge_fail("shard %zu/%zu given twice: %s and %s", i, N, sh[who[i]].path, sh[k].path);
    else
      who[i] = (ssize_t)k;
  }
  if (!status && n < N) {
    char list[1024] = "";
    size_t len = 0, missing = 0;
    int cut = 0;
    for (size_t i = 0; i < N; i++) {
      if (who[i] >= 0) continue;
      missing++;
      if (len < sizeof list - 32) len += (size_t)snprintf(list + len, sizeof list - len, "%s%zu", missing > 1 ? ", " : "", i);
      else if (!cut) { /* once: the count before the list says how many */
        len += (size_t)snprintf(list + len, sizeof list - len, ", ...");
        cut = 1;
      }
    }
    status = merge_fail("missing %zu of %zu shards: %s (of 0..%zu); rerun each with `sitepack run ... --shard I/%zu` "
                        "(docs/slurm.md)", missing, N, list, N - 1, N);
  }
  free(who);
  return status;
}

/* The shards' plans partition the file list 0..n_files-1. */
static int check_plans_partition(const shard_in *sh, size_t n) {
  int64_t nf = sh[0].f.n_files;
  ssize_t *owner = malloc((size_t)(nf ? nf : 1) * sizeof *owner);
  if (!owner) return merge_fail("out of memory");
  int status = 0;
  for (int64_t f = 0; f < nf; f++) owner[f] = -1;
  for (size_t k = 0; !status && k < n; k++)
    for (size_t j = 0; !status && j < sh[k].f.n_planned; j++) {
      int64_t f = sh[k].f.files[j];
      if (f < 0 || f >= nf)
        status = merge_fail("%s: planned file_idx %lld outside the %lld files", sh[k].path, (long long)f, (long long)nf);
      else if (owner[f] >= 0)
        status = merge_fail("file_idx %lld planned in two shards (%s and %s): not shards of one plan", (long long)f,
                            sh[owner[f]].path, sh[k].path);
      else
        owner[f] = (ssize_t)k;
    }
  for (int64_t f = 0; !status && f < nf; f++)
    if (owner[f] < 0) status = merge_fail("file_idx %lld is planned in no shard: not shards of one plan", (long long)f);
  free(owner);
  return status;
}

/* Each shard ran exactly its planned files (its part-0 tasks, sorted, equal /shard_files). */
static int check_results_match_plans(shard_in *sh, size_t n) {
  for (size_t k = 0; k < n; k++) {
    sp_shard_file *s = &sh[k].f;
    qsort(s->task_files, s->n_task_files, sizeof *s->task_files, cmp_i64);
    int same = s->n_task_files == s->n_planned;
    for (size_t j = 0; same && j < s->n_task_files; j++) same = s->task_files[j] == s->files[j];
    if (!same)
      return merge_fail("%s (shard %lld/%lld): its results (%zu files) do not match its plan (%zu files): an "
                        "incomplete or altered shard file; rerun that shard",
                        sh[k].path, (long long)s->index, (long long)s->count, s->n_task_files, s->n_planned);
  }
  return 0;
}

static void warn_mixed_builds(const shard_in *sh, size_t n) {
  for (size_t k = 1; k < n; k++)
    if (strcmp(sh[k].f.git_sha, sh[0].f.git_sha) || strcmp(sh[k].f.tool_version, sh[0].f.tool_version)) {
      say("sitepack merge: warning: shards written by different builds (%s %s and %s %s)\n",
              sh[0].f.tool_version, sh[0].f.git_sha, sh[k].f.tool_version, sh[k].f.git_sha);
      break;
    }
}

/* Issue 16 item 1: the merge into @p out failed (@p mrc, @p err): say a full disk as the run does, then
   leave at once with exit 1: HDF5's shutdown would crash on the file it could not close. */
static void merge_failed_exit(const char *out, int mrc, const sp_err *err) {
  char dir[4200];
  snprintf(dir, sizeof dir, "%s", out);
  char *sl = strrchr(dir, '/');
  if (sl) *sl = 0;
  else snprintf(dir, sizeof dir, ".");
  double avail = 0;
  int full = sp_out_disk_full(dir, &avail);
  if (full) say("sitepack merge: no space left on device: %.0f bytes free on the file system of %s\n", avail, dir);
  merge_fail("merge failed (%s: %s): no output written; the shard files are unchanged: fix the cause%s and merge "
             "again", sp_errclass_name(mrc), err->msg, full ? " (free disk space)" : "");
  fflush(stdout);
  fflush(stderr);
  _exit(1);
}

/* sp_merge() of the shards into OUT.tmp, renamed to OUT; the summary line unless quiet. */
static int merge_shards(const shard_in *sh, size_t n, const merge_args *a, const struct timespec *ts0) {
  const char **inputs = malloc(n * sizeof *inputs);
  size_t tmp_cap = strlen(a->out) + 8; /* OUT + ".tmp" */
  char *tmp = malloc(tmp_cap);
  int status = 0;
  if (!inputs || !tmp) {
    status = merge_fail("out of memory");
  } else {
    int64_t ranks = 0;
    double wall = 0;
    for (size_t k = 0; k < n; k++) {
      inputs[k] = sh[k].path;
      ranks += sh[k].f.n_ranks;
      if (sh[k].f.wall_seconds > wall) wall = sh[k].f.wall_seconds;
    }
    char created[32];
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(created, sizeof created, "%Y-%m-%dT%H:%M:%SZ", &tm);
    const sp_shard_file *s0 = &sh[0].f;
    sp_merge_info info = {.tool_version = s0->tool_version, .git_sha = s0->git_sha, .job_json = s0->job_json,
                          .ccd_path = s0->ccd_path, .ccd_sha256 = s0->ccd_sha256, .ccd_blocks = s0->ccd_blocks,
                          .created = created,
                          .n_ranks = ranks, .wall_seconds = wall};
    sp_out_sibling(a->out, SP_SIB_TMP, tmp, tmp_cap);
    sp_err err = {0};
    int mrc;
    if (mc_world) { /* under mpirun: every rank writes its share of the rows (store.h sp_merge_parallel()) */
      sp_merge_comm mc;
      sp_merge_comm_mpi(mc_world, &mc);
      mrc = sp_merge_parallel(&mc, tmp, inputs, n, &info, NULL, &err);
    } else {
      mrc = sp_merge(tmp, inputs, n, &info, &err);
    }
    if (mrc) {
      if (mc_rank == 0) remove(tmp);
      merge_failed_exit(a->out, mrc, &err);
    } else if (mc_rank != 0) {
      /* rank 0 checks, renames and speaks */
    } else if (!a->no_check && (mrc = sp_check(tmp, 0, 1, NULL, &err)) != 0) {
      /* the shards' rows are copied as they are: a damaged shard gives a file check refuses (damaged-file hunt) */
      remove(tmp);
      status = merge_fail("the merged file fails sitepack check (%s: %s): a damaged shard? no output written; the "
                          "shard files are unchanged (rerun the damaged shard; --no-check keeps the merged file to "
                          "inspect)", sp_errclass_name(mrc), err.msg);
    } else if (rename(tmp, a->out)) {
      status = merge_fail("cannot rename %s to %s: %s", tmp, a->out, strerror(errno));
      remove(tmp);
    } else if (!a->quiet) {
      struct timespec ts1;
      clock_gettime(CLOCK_MONOTONIC, &ts1);
      double secs = (double)(ts1.tv_sec - ts0->tv_sec) + 1e-9 * (double)(ts1.tv_nsec - ts0->tv_nsec);
      int P = 1;
      if (mc_world) MPI_Comm_size(*mc_world, &P);
      printf("sitepack merge: %zu shards, %lld files, %lld ranks in all, slowest shard %.2f s -> %s (%.2f s, %d merge "
             "rank%s)\n", n, (long long)s0->n_files, (long long)ranks, wall, a->out, secs, P, P == 1 ? "" : "s");
    }
  }
  free(inputs);
  free(tmp);
  return status;
}

static int merge_body(int argc, char **argv) {
  merge_args a = {0};
  int status = parse_merge_args(argc, argv, &a);
  if (a.help) {
    if (mc_rank == 0) merge_usage(stdout);
    merge_args_free(&a);
    return 0;
  }
  size_t n = a.n;
  shard_in *sh = status ? NULL : calloc(n, sizeof *sh);
  if (!status && !sh) status = merge_fail("out of memory");
  struct timespec ts0;
  clock_gettime(CLOCK_MONOTONIC, &ts0);
  if (!status) qsort(a.paths, n, sizeof *a.paths, cmp_str);
  for (size_t k = 0; !status && k < n; k++) { /* the shard takes the path over */
    sh[k].path = a.paths[k];
    a.paths[k] = NULL;
    sp_err err = {0};
    if (sp_shard_read(sh[k].path, &sh[k].f, &err)) status = merge_fail("%s", err.msg);
  }
  if (!status) status = check_one_job(sh, n);
  if (!status) status = check_each_shard_once(sh, n);
  if (!status) status = check_plans_partition(sh, n);
  if (!status) status = check_results_match_plans(sh, n);
  if (mc_world) MPI_Allreduce(MPI_IN_PLACE, &status, 1, MPI_INT, MPI_MAX, *mc_world); /* a check failed somewhere */
  if (!status) {
    warn_mixed_builds(sh, n);
    status = merge_shards(sh, n, &a, &ts0);
  }
  for (size_t k = 0; sh && k < n; k++) {
    free(sh[k].path);
    sp_shard_file_free(&sh[k].f);
  }
  free(sh);
  merge_args_free(&a);
  return status;
}

/* Started by mpirun (Open MPI, PMIx or a PMI launcher): the merge runs over MPI_COMM_WORLD. */
static int launched_by_mpirun(void) {
  return getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMIX_RANK") || getenv("PMI_RANK") || getenv("PMI_SIZE");
}

int sp_cmd_merge(int argc, char **argv) {
  static MPI_Comm world;
  int mpi = launched_by_mpirun();
  if (mpi) {
    int provided;
    MPI_Init_thread(NULL, NULL, MPI_THREAD_SINGLE, &provided);
    world = MPI_COMM_WORLD;
    mc_world = &world;
    MPI_Comm_rank(world, &mc_rank);
  }
  int status = merge_body(argc, argv);
  if (mpi) {
    fflush(stdout);
    MPI_Finalize();
  }
  return status;
}

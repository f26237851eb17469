/* `sitepack run`: rank 0's run report (JSON, docs/usage.md) and the human summary of a completed run,
 * from the gathered figures of app/run_ctx.h. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "app/run_ctx.h"
#include "sitepack/version.h"

/* Declared in app/run_ctx.h. */
void run_iso_now(char *buf, size_t cap) {
  time_t t = time(NULL);
  struct tm tm;
  gmtime_r(&t, &tm);
  strftime(buf, cap, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* Files this run processed: a shard's own files (issue 8), else all scanned files. */
static size_t run_files(const struct run_ctx *c) {
  return c->env.job.shard_count > 0 ? c->resume.shard.n_assigned : c->files.n;
}

/* A cost model's constants as a new JSON object (owned by the caller; r2 null when not finite). */
static cJSON *model_json(const sp_cost_model *m) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddNumberToObject(o, "intercept_s", m->intercept);
  cJSON_AddNumberToObject(o, "per_plain_byte_s", m->per_plain_byte);
  cJSON_AddNumberToObject(o, "per_gz_byte_s", m->per_gz_byte);
  cJSON_AddNumberToObject(o, "per_atom_s", m->per_atom);
  cJSON_AddNumberToObject(o, "per_ligand_s", m->per_ligand);
  cJSON_AddNumberToObject(o, "bytes_only_intercept_s", m->bo_intercept);
  cJSON_AddNumberToObject(o, "bytes_only_per_plain_byte_s", m->bo_per_plain_byte);
  cJSON_AddNumberToObject(o, "bytes_only_per_gz_byte_s", m->bo_per_gz_byte);
  cJSON_AddNumberToObject(o, "n_samples", (double)m->n_samples);
  if (isfinite(m->r2)) cJSON_AddNumberToObject(o, "r2", m->r2);
  else cJSON_AddNullToObject(o, "r2");
  if (isfinite(m->r2_bytes_only)) cJSON_AddNumberToObject(o, "r2_bytes_only", m->r2_bytes_only);
  else cJSON_AddNullToObject(o, "r2_bytes_only");
  return o;
}

/* One rank's scheduler statistics of one phase as a new JSON object (owned by the caller). */
static cJSON *stats_json(const sp_sched_stats *s) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddNumberToObject(o, "tasks_planned", (double)s->tasks_planned);
  cJSON_AddNumberToObject(o, "tasks", (double)s->tasks_done);
  cJSON_AddNumberToObject(o, "cost_planned_s", s->cost_planned);
  cJSON_AddNumberToObject(o, "cost_done_s", s->cost_done);
  cJSON_AddNumberToObject(o, "busy_seconds", s->busy_s);
  cJSON_AddNumberToObject(o, "idle_seconds", s->idle_s);
  cJSON_AddNumberToObject(o, "wall_seconds", s->wall_s);
  cJSON_AddNumberToObject(o, "steals", (double)s->steals);
  cJSON_AddNumberToObject(o, "stolen", (double)s->stolen);
  cJSON_AddNumberToObject(o, "steal_attempts", (double)s->steal_attempts);
  cJSON_AddNumberToObject(o, "polls", (double)s->polls);
  return o;
}

/* The measured makespan of the scheduled phases (s) against max(largest task, total / P) of the gathered
   task timings (g) into fig->largest, fig->total, fig->lower_bound, fig->makespan; *fitted: the cost model
   fitted to those timings
   (with fewer than 2 usable samples: the defaults with n_samples 0, sched.h sp_cost_fit). */
static void measure_schedule(const struct run_gathered *g, const struct run_sched *s, int n_ranks,
                             struct run_figures *fig, sp_cost_model *fitted) {
  size_t n_samples = g->n_samples;
  sp_cost_sample *cs = calloc(n_samples ? n_samples : 1, sizeof *cs);
  double largest = 0, total = 0;
  for (size_t i = 0; i < n_samples; i++) {
    const double *v = g->samples + i * S_N;
    if (v[S_SECONDS] > largest) largest = v[S_SECONDS];
    total += v[S_SECONDS];
    if (cs) cs[i] = (sp_cost_sample){v[S_SECONDS], (int64_t)v[S_BYTES], (int)v[S_GZIP], (int64_t)v[S_ATOMS],
                                     (int64_t)v[S_LIGANDS]};
  }
  sp_err err = {0};
  sp_cost_fit(cs, cs ? n_samples : 0, fitted, &err);
  free(cs);
  fig->largest = largest;
  fig->total = total;
  fig->lower_bound = total / n_ranks > largest ? total / n_ranks : largest;
  fig->makespan = s->t_phase_a + s->t_phase_b;
}

/* The report's "schedule" object (new, owned by the caller): policy, split, makespan figures, cost models. */
static cJSON *schedule_json(const struct run_ctx *c, const sp_cost_model *fitted) {
  const sp_job *job = &c->env.job;
  double lb = c->fig.lower_bound, makespan = c->fig.makespan;
  cJSON *sched = cJSON_CreateObject();
  cJSON_AddStringToObject(sched, "policy", job->no_steal ? "lpt" : "lpt+steal");
  cJSON *sp = cJSON_AddObjectToObject(sched, "split");
  cJSON_AddBoolToObject(sp, "enabled", job->split.enabled);
  cJSON_AddNumberToObject(sp, "min_bytes", (double)job->split.min_bytes);
  cJSON_AddNumberToObject(sp, "min_ligands", (double)job->split.min_ligands);
  cJSON_AddNumberToObject(sp, "max_parts", job->split.max_parts);
  cJSON_AddBoolToObject(sp, "cost_guard", job->split.cost_guard);
  cJSON_AddNumberToObject(sp, "large_files", (double)c->sched.n_big);
  cJSON_AddNumberToObject(sp, "files_split", (double)c->sched.n_split);
  cJSON_AddNumberToObject(sp, "extra_parts", (double)c->sched.n_parts_added);
  cJSON_AddNumberToObject(sched, "tasks", (double)c->g.n_samples);
  cJSON_AddNumberToObject(sched, "phase_a_seconds", c->sched.t_phase_a);
  cJSON_AddNumberToObject(sched, "phase_b_seconds", c->sched.t_phase_b);
  cJSON_AddNumberToObject(sched, "makespan_seconds", makespan);
  cJSON_AddNumberToObject(sched, "largest_task_seconds", c->fig.largest);
  cJSON_AddNumberToObject(sched, "total_task_seconds", c->fig.total);
  cJSON_AddNumberToObject(sched, "lower_bound_seconds", lb);
  cJSON_AddNumberToObject(sched, "makespan_over_lower_bound", lb > 0 ? makespan / lb : 0);
  if (c->env.delay_ms) cJSON_AddNumberToObject(sched, "test_task_delay_ms", c->env.delay_ms);
  cJSON_AddItemToObject(sched, "cost_model_used", model_json(&c->env.model));
  cJSON_AddItemToObject(sched, "cost_model_fitted", model_json(fitted));
  return sched;
}

/* Issue 16 item 4: add the report's "scan" object to @p r: the paths the scan could not enter or read
   (io.h sp_scan_problem), counted by kind and listed (path escaped as in /structures, io.h). */
static void add_scan_json(cJSON *r, const struct run_files *fl) {
  const sp_scan_list *l = &fl->scan;
  cJSON *scan = cJSON_AddObjectToObject(r, "scan");
  cJSON_AddNumberToObject(scan, "files", (double)l->n);
  cJSON_AddNumberToObject(scan, "skipped", (double)l->n_skipped);
  cJSON_AddNumberToObject(scan, "problems", (double)l->n_problems);
  cJSON *by = cJSON_AddObjectToObject(scan, "problems_by_kind");
  size_t count[SP_SCAN_KIND_COUNT] = {0};
  for (size_t i = 0; i < l->n_problems; i++)
    if (l->problems[i].kind >= 0 && l->problems[i].kind < SP_SCAN_KIND_COUNT) count[l->problems[i].kind]++;
  for (int k = 0; k < SP_SCAN_KIND_COUNT; k++)
    if (count[k]) cJSON_AddNumberToObject(by, sp_scan_problem_name(k), (double)count[k]);
  cJSON *list = cJSON_AddArrayToObject(scan, "paths");
  for (size_t i = 0; i < l->n_problems; i++) {
    const sp_scan_problem *q = &l->problems[i];
    char esc[2048];
    sp_path_escape(q->path, esc, sizeof esc);
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "path", esc);
    cJSON_AddStringToObject(o, "kind", sp_scan_problem_name(q->kind));
    if (q->errno_value) cJSON_AddStringToObject(o, "error", strerror(q->errno_value));
    cJSON_AddItemToArray(list, o);
  }
}

/* Add the report's "files" object to @p r: totals, failures by class and the failed files' lines. */
static void add_files_json(cJSON *r, const struct run_ctx *c, size_t n_files) {
  const int64_t *counts = c->g.counts, *by_class = c->g.by_class;
  cJSON *files = cJSON_AddObjectToObject(r, "files");
  cJSON_AddNumberToObject(files, "total", (double)n_files);
  cJSON_AddNumberToObject(files, "ok", (double)counts[C_FILES_OK]);
  cJSON_AddNumberToObject(files, "failed", (double)counts[C_FILES_FAILED]);
  /* files (ok or failed) whose readers recorded warnings: the texts are /structures/warnings */
  cJSON_AddNumberToObject(files, "with_warnings", (double)counts[C_FILES_WARNED]);
  /* duplicates are neither ok nor failed (docs/reliability.md): counted on their own */
  cJSON_AddNumberToObject(files, "duplicates", (double)by_class[SP_E_DUPLICATE]);
  /* issue 16 item 12: files of an entry an earlier file has (entries: all: processed; first: repeated_entry) */
  cJSON *ent = cJSON_AddObjectToObject(files, "entries");
  cJSON_AddStringToObject(ent, "policy", c->env.job.entries_first ? "first" : "all");
  cJSON_AddNumberToObject(ent, "in_several_files", (double)c->files.n_entries_repeated);
  cJSON_AddNumberToObject(ent, "later_files", (double)c->files.n_files_repeated);
  cJSON_AddNumberToObject(ent, "not_processed", (double)by_class[SP_E_REPEATED_ENTRY]);
  cJSON *fc = cJSON_AddObjectToObject(files, "failed_by_class");
  for (int k = 1; k < SP_ERRCLASS_COUNT; ++k)
    if (by_class[k] && k != SP_E_DUPLICATE && k != SP_E_REPEATED_ENTRY)
      cJSON_AddNumberToObject(fc, sp_errclass_name(k), (double)by_class[k]);
  cJSON *fl = cJSON_AddArrayToObject(files, "failures");
  const char *p = c->g.fails;
  while (p && *p) {
    const char *nl = strchr(p, '\n');
    if (!nl) break;
    char line[SP_PATH_LEN + SP_ERR_MSG_LEN + 64];
    size_t l = (size_t)(nl - p) < sizeof line - 1 ? (size_t)(nl - p) : sizeof line - 1;
    memcpy(line, p, l);
    line[l] = 0;
    char *t1 = strchr(line, '\t'), *t2 = t1 ? strchr(t1 + 1, '\t') : NULL;
    if (t1 && t2) {
      *t1 = *t2 = 0;
      cJSON *o = cJSON_CreateObject();
      cJSON_AddStringToObject(o, "path", line);
      cJSON_AddStringToObject(o, "class", t1 + 1);
      cJSON_AddStringToObject(o, "message", t2 + 1);
      cJSON_AddItemToArray(fl, o);
    }
    p = nl + 1;
  }
}

/* One rank's share of the parallel merge (store.h sp_merge_stats) into @p o. */
static void merge_json(cJSON *o, const sp_merge_stats *m) {
  const double v[8] = {(double)m->tasks, (double)m->bytes_written, (double)m->index_bytes, m->t_index, m->t_union,
                       m->t_create, m->t_copy, m->t_close};
  static const char *const name[8] = {"tasks", "bytes_written", "index_bytes", "index_seconds", "union_seconds",
                                      "create_seconds", "copy_seconds", "close_seconds"};
  for (int k = 0; k < 8; k++) cJSON_AddNumberToObject(o, name[k], v[k]);
}

/* Add the report's "ranks" array to @p r: per rank its summed statistics, bytes, memory, and the
   per-phase object per_rank[i] (ownership taken; per_rank[i] set to NULL). */
static void add_ranks_json(cJSON *r, const struct run_ctx *c, cJSON **per_rank) {
  const sp_sched_stats *all = c->g.all;
  cJSON *ranks = cJSON_AddArrayToObject(r, "ranks");
  for (int i = 0; i < c->env.n_ranks; ++i) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "rank", all[i].rank);
    cJSON_AddNumberToObject(o, "tasks_planned", (double)all[i].tasks_planned);
    cJSON_AddNumberToObject(o, "tasks", (double)all[i].tasks_done);
    cJSON_AddNumberToObject(o, "bytes", c->g.rank_bytes[i]);
    cJSON_AddNumberToObject(o, "cost_done", all[i].cost_done);
    cJSON_AddNumberToObject(o, "busy_seconds", all[i].busy_s);
    cJSON_AddNumberToObject(o, "idle_seconds", all[i].idle_s);
    cJSON_AddNumberToObject(o, "wall_seconds", all[i].wall_s);
    cJSON_AddNumberToObject(o, "steals", (double)all[i].steals);
    cJSON_AddNumberToObject(o, "stolen", (double)all[i].stolen);
    cJSON_AddNumberToObject(o, "steal_attempts", (double)all[i].steal_attempts);
    cJSON_AddNumberToObject(o, "peak_rss_bytes", c->g.rss_kib[i] >= 0 ? (double)c->g.rss_kib[i] * 1024.0 : -1);
    cJSON_AddNumberToObject(o, "model_bytes_per_atom_largest_file", c->g.bpa[i]);
    if (c->fig.merge_all) /* its share of the merge */
      merge_json(cJSON_AddObjectToObject(o, "merge"), &c->fig.merge_all[i]);
    if (per_rank[i]) cJSON_AddItemToObject(o, "phases", per_rank[i]);
    per_rank[i] = NULL;
    cJSON_AddItemToArray(ranks, o);
  }
}

/* Add "steps_seconds": each phase of the run on rank 0 (wall seconds, waiting for the other ranks
   included), and "merge": rank 0's steps of the merge and the totals read back. */
static void add_steps_json(cJSON *r, const struct run_ctx *c) {
  cJSON *st = cJSON_AddObjectToObject(r, "steps_seconds");
  for (size_t i = 0; i < c->fig.n_steps; i++)
    cJSON_AddNumberToObject(st, c->fig.steps[i].name, c->fig.steps[i].seconds);
  cJSON *mo = cJSON_AddObjectToObject(r, "merge");
  merge_json(mo, &c->fig.merge_st); /* rank 0's share; the whole merge's rows and bytes follow */
  cJSON_AddNumberToObject(mo, "read_back_seconds", c->fig.readback_s);
  if (c->fig.merge_all) {
    double tasks = 0, bytes = 0;
    for (int i = 0; i < c->env.n_ranks; i++)
      tasks += (double)c->fig.merge_all[i].tasks, bytes += (double)c->fig.merge_all[i].bytes_written;
    cJSON_AddNumberToObject(mo, "tasks_all_ranks", tasks);
    cJSON_AddNumberToObject(mo, "bytes_written_all_ranks", bytes);
  }
  static const char *const wname[W_N] = {"read",      "sha256", "parse", "survey", "site",
                                         "chemistry", "write",  "descriptors"};
  cJSON *wo = cJSON_AddObjectToObject(r, "work_seconds"); /* the tasks' seconds by phase, all ranks summed */
  for (int k = 0; k < W_N; k++) cJSON_AddNumberToObject(wo, wname[k], c->g.work[k]);
}

/* Write the report to c->env.job.report. `sched` (ownership taken) is the "schedule" object; per_rank[i]
   the per-phase objects of rank i (ownership taken). Returns 0, or -1 with errno set (or out of memory). */
static int write_report(const struct run_ctx *c, cJSON *sched, cJSON **per_rank) {
  const sp_job *job = &c->env.job;
  const int64_t *counts = c->g.counts;
  size_t n_files = run_files(c);
  double wall = c->fig.wall;
  cJSON *r = cJSON_CreateObject();
  cJSON_AddStringToObject(r, "tool", "sitepack");
  cJSON_AddStringToObject(r, "version", SP_VERSION);
  cJSON_AddStringToObject(r, "git_sha", SP_GIT_SHA);
  char created[32];
  run_iso_now(created, sizeof created);
  cJSON_AddStringToObject(r, "created", created);
  cJSON_AddItemToObject(r, "job", cJSON_Parse(job->json));
  cJSON_AddStringToObject(r, "output", job->output);
  if (c->ccd.sha[0]) cJSON_AddStringToObject(r, "ccd_sha256", c->ccd.sha);
  if (c->ccd.ccd) cJSON_AddNumberToObject(r, "ccd_blocks", (double)c->ccd.blocks); /* issue 16 item 3 */
  cJSON_AddNumberToObject(r, "comp_ids", (double)c->g.n_comps); /* issue 36 item 5 */
  cJSON_AddNumberToObject(r, "comp_ids_without_ccd", (double)c->g.n_comps_no_ccd);
  if (c->ccd.ccd) cJSON_AddNumberToObject(r, "ccd_duplicate_blocks", (double)c->ccd.duplicates);
  add_scan_json(r, &c->files);
  cJSON_AddNumberToObject(r, "n_ranks", c->env.n_ranks);
  cJSON_AddNumberToObject(r, "wall_seconds", wall);
  cJSON_AddNumberToObject(r, "merge_seconds", c->fig.merge_s);
  add_steps_json(r, c);
  add_files_json(r, c, n_files);
  cJSON_AddNumberToObject(r, "ligands", (double)counts[C_LIGANDS]);
  cJSON_AddNumberToObject(r, "sites", (double)counts[C_SITES]);
  cJSON_AddNumberToObject(r, "site_atoms", (double)counts[C_SITE_ATOMS]);
  cJSON_AddNumberToObject(r, "atoms_read", (double)counts[C_ATOMS]);
  cJSON_AddNumberToObject(r, "bytes_read", (double)counts[C_BYTES]);
  cJSON_AddNumberToObject(r, "text_bytes", (double)counts[C_TEXT_BYTES]);
  cJSON_AddNumberToObject(r, "files_per_second", wall > 0 ? (double)n_files / wall : 0);
  cJSON *ms = cJSON_GetObjectItem(sched, "makespan_over_lower_bound");
  cJSON_AddNumberToObject(r, "makespan_over_lower_bound", ms ? ms->valuedouble : 0);
  cJSON_AddItemToObject(r, "schedule", sched);
  add_ranks_json(r, c, per_rank);
  char *text = cJSON_Print(r);
  cJSON_Delete(r);
  if (!text) return -1;
  FILE *f = fopen(job->report, "w");
  int rc = -1;
  if (f) {
    rc = fputs(text, f) < 0 ? -1 : 0;
    fputc('\n', f);
    if (fclose(f)) rc = -1;
  }
  cJSON_free(text);
  return rc;
}

/* Declared in app/run_ctx.h. */
int run_report_write(struct run_ctx *c) {
  int status = 0;
  sp_cost_model fitted;
  measure_schedule(&c->g, &c->sched, c->env.n_ranks, &c->fig, &fitted);
  cJSON *sched = schedule_json(c, &fitted);
  cJSON **per_rank = calloc((size_t)c->env.n_ranks, sizeof *per_rank);
  for (int i = 0; per_rank && i < c->env.n_ranks; ++i) {
    per_rank[i] = cJSON_CreateObject();
    cJSON_AddItemToObject(per_rank[i], "a", stats_json(&c->g.all_a[i]));
    if (c->sched.phase_b_ran) cJSON_AddItemToObject(per_rank[i], "b", stats_json(&c->g.all_b[i]));
  }
  if (per_rank && write_report(c, sched, per_rank)) {
    fprintf(stderr, "sitepack run: cannot write report %s: %s\n", c->env.job.report, strerror(errno));
    status = SP_EXIT_RUNTIME; /* the merged file is complete; only its report is missing */
  } else if (!per_rank) {
    cJSON_Delete(sched);
  }
  for (int i = 0; per_rank && i < c->env.n_ranks; ++i) cJSON_Delete(per_rank[i]);
  free(per_rank);
  return status;
}

/* @p path with "." components, repeated slashes and "dir/.." pairs removed (lexically: no file system
   call), into @p out [cap]: the summary prints "out/demo.h5", not "jobs/../out/demo.h5". A leading ".."
   stays; "" becomes ".". Returns @p out. */
static const char *lexical_path(const char *path, char *out, size_t cap) {
  size_t len = 0, keep = 0; /* keep: bytes of leading "../" (and "/") that no later ".." may remove */
  int abs = path[0] == '/';
  if (cap < 3) return path;
  if (abs) out[len++] = '/', keep = 1;
  for (const char *p = path; *p;) {
    while (*p == '/') p++;
    const char *e = strchr(p, '/');
    size_t n = e ? (size_t)(e - p) : strlen(p);
    if (n == 0 || (n == 1 && p[0] == '.')) {
      /* nothing */
    } else if (n == 2 && p[0] == '.' && p[1] == '.' && len > keep) {
      while (len > keep && out[len - 1] != '/') len--; /* drop the last component and its slash */
      if (len > keep) len--;
    } else if (!(n == 2 && p[0] == '.' && p[1] == '.' && abs)) {
      if (len + n + 2 > cap) return path;
      if (len > (size_t)abs) out[len++] = '/';
      memcpy(out + len, p, n);
      len += n;
      if (n == 2 && p[0] == '.' && p[1] == '.') keep = len;
    }
    p += n;
  }
  if (len == 0) out[len++] = '.';
  out[len] = 0;
  return out;
}

/* @p len bytes of the escaped name @p esc, then @p cut, in double quotes, each `"` written `\x22`. */
static void print_quoted(const char *esc, size_t len, const char *cut) {
  putchar('"');
  for (size_t k = 0; k < len; k++)
    if (esc[k] == '"') fputs("\\x22", stdout);
    else putchar(esc[k]);
  printf("%s\"", cut);
}

/* Issue 6/16: @p raw for the summary: as is when plain, else escaped (io.h) and in double quotes, so
   that a name with a tab, a newline or undecodable bytes stays one field of one line. Inside the
   quotes a `"` is written `\x22` like every other escape (a backslash is `\x5c` already): replacing
   each `\xNN` by its byte gives the name back, one rule (docs/usage.md). */
static void print_name(const char *raw) {
  char esc[2048];
  size_t n = sp_path_escape(raw, esc, sizeof esc);
  int odd = strcmp(esc, raw) != 0 || strchr(raw, ' ') || strchr(raw, '"');
  if (!odd) {
    printf("%s", esc);
    return;
  }
  print_quoted(esc, strlen(esc), n >= sizeof esc ? "..." : "");
}

/* Issue 16 item 4: the paths the scan could not enter or read, counted by kind, the first 20 listed. */
static void print_scan_problems(const struct run_files *fl) {
  const sp_scan_list *l = &fl->scan;
  size_t count[SP_SCAN_KIND_COUNT] = {0};
  for (size_t i = 0; i < l->n_problems; i++)
    if (l->problems[i].kind >= 0 && l->problems[i].kind < SP_SCAN_KIND_COUNT) count[l->problems[i].kind]++;
  printf("  scan: %zu paths could not be read (", l->n_problems);
  for (int k = 0, first = 1; k < SP_SCAN_KIND_COUNT; k++)
    if (count[k]) {
      printf("%s%s %zu", first ? "" : ", ", sp_scan_problem_name(k), count[k]);
      first = 0;
    }
  printf("); not in the output:\n");
  for (size_t i = 0; i < l->n_problems && i < 20; i++) {
    printf("    ");
    print_name(l->problems[i].path);
    printf("\t%s\n", sp_scan_problem_name(l->problems[i].kind));
  }
  if (l->n_problems > 20) printf("    ... (all in the report, scan.paths)\n");
}

/* Print the first 20 lines of the failed files ("path\tclass\tmessage"), indented. */
static void print_failures(const struct run_ctx *c) {
  printf("  failed files:\n");
  const char *p = c->g.fails;
  int shown = 0;
  while (*p && shown < 20) {
    const char *nl = strchr(p, '\n');
    if (!nl) break;
    const char *tab = memchr(p, '\t', (size_t)(nl - p)); /* the path: escaped already (/structures/path) */
    int plen = tab ? (int)(tab - p) : (int)(nl - p);
    int odd = memchr(p, '\\', (size_t)plen) || memchr(p, ' ', (size_t)plen) || memchr(p, '"', (size_t)plen);
    fputs("    ", stdout);
    if (odd) print_quoted(p, (size_t)plen, "");
    else printf("%.*s", plen, p);
    printf("%.*s\n", (int)(nl - p) - plen, p + plen);
    p = nl + 1;
    ++shown;
  }
  if (c->g.counts[C_FILES_FAILED] > 20) printf("    ... (all in the report and in /structures)\n");
}

/* Declared in app/run_ctx.h. */
void run_summary_print(const struct run_ctx *c) {
  const sp_job *job = &c->env.job;
  const sp_prepare_out *prep = &c->resume.prep;
  const int64_t *counts = c->g.counts, *by_class = c->g.by_class;
  const sp_sched_stats *all = c->g.all;
  int P = c->env.n_ranks;
  size_t n_run_files = run_files(c);
  double wall = c->fig.wall, lb = c->fig.lower_bound;
  printf("sitepack: %zu file%s in %.2f s (%.1f files/s, %.1f MB/s) on %d rank%s\n", n_run_files,
         n_run_files == 1 ? "" : "s", wall,
         (double)n_run_files / wall, c->sched.bytes_total / 1e6 / wall, P, P == 1 ? "" : "s");
  printf("  files ok %lld, failed %lld", (long long)counts[C_FILES_OK], (long long)counts[C_FILES_FAILED]);
  int first = 1;
  for (int k = 1; k < SP_ERRCLASS_COUNT; ++k)
    if (by_class[k] && k != SP_E_DUPLICATE && k != SP_E_REPEATED_ENTRY) { /* their own lines below */
      printf("%s%s %lld", first ? " (" : ", ", sp_errclass_name(k), (long long)by_class[k]);
      first = 0;
    }
  printf("%s\n", first ? "" : ")");
  if (counts[C_FILES_WARNED])
    printf("  files with warnings %lld: their texts in /structures/warnings (sitepack dump %s structures)\n",
           (long long)counts[C_FILES_WARNED], job->output);
  printf("  ligands %lld, sites %lld, site atoms %lld\n", (long long)counts[C_LIGANDS], (long long)counts[C_SITES],
         (long long)counts[C_SITE_ATOMS]);
  if (c->sched.n_split)
    printf("  split %zu large files into %zu extra tasks\n", c->sched.n_split, c->sched.n_parts_added);
  if (job->resume) /* issue 9 */
    printf("  resumed %zu files (%zu tasks) from an earlier run, %zu changed since\n", prep->n_resumed,
           prep->n_resumed_tasks, prep->n_changed);
  if (prep->n_duplicates)
    printf("  %zu duplicates (same SHA-256 as an earlier file: not processed again)\n", prep->n_duplicates);
  if (c->files.n_entries_repeated && job->entries_first) /* issue 16 item 12 */
    printf("  entries in more than one file: %zu; their %lld later files not processed (entries: first; status "
           "repeated_entry)\n", c->files.n_entries_repeated, (long long)by_class[SP_E_REPEATED_ENTRY]);
  else if (c->files.n_entries_repeated)
    printf("  entries in more than one file: %zu; their %zu later files kept (processed unless a duplicate;\n"
           "    /structures/entry_first names each entry's first file; entries: first keeps only that one)\n",
           c->files.n_entries_repeated, c->files.n_files_repeated);
  int64_t steals = 0;
  for (int i = 0; i < P; ++i) steals += all[i].steals;
  printf("  %zu tasks, steals %lld, makespan %.2f s = %.3f x max(largest task, total/P); busy/wall per rank:",
         c->g.n_samples, (long long)steals, c->fig.makespan, lb > 0 ? c->fig.makespan / lb : 0);
  for (int i = 0; i < P && i < 32; ++i) printf(" %.2f/%.2f", all[i].busy_s, all[i].wall_s);
  char out_n[4096], rep_n[4096], ccd_n[4096];
  printf("\n  output %s\n  report %s\n", lexical_path(job->output, out_n, sizeof out_n),
         lexical_path(job->report, rep_n, sizeof rep_n));
  if (c->ccd.ccd) /* issue 16 item 3 */
    printf("  CCD %s: %zu blocks indexed%s\n", lexical_path(job->ccd, ccd_n, sizeof ccd_n), c->ccd.blocks,
           c->ccd.duplicates ? " (some ids twice: the last block of each used, see the warning)" : "");
  if (c->g.n_comps_no_ccd) /* issue 36 item 5: a wrong or partial CCD shows at once */
    printf(
        "  ligand comp ids without a CCD block: %lld of %lld (bond orders from the file or perceived from the "
        "coordinates): %s\n",
        (long long)c->g.n_comps_no_ccd, (long long)c->g.n_comps, c->g.comps_no_ccd);
  else if (c->g.n_comps)
    printf("  ligand comp ids without a CCD block: 0 of %lld\n", (long long)c->g.n_comps);
  if (c->files.scan.n_problems) print_scan_problems(&c->files);
  if (counts[C_FILES_FAILED] && c->g.fails) print_failures(c);
}

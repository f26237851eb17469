/* Job file (JSON, cJSON) + command-line overrides. Paths inside a job file are relative to
 * the job file's directory; paths given as flags are relative to the working directory. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/app.h"
#include "app/out_files.h"
#include "app/cli_opts.h"
#include "app/cmd_merge.h"
#include "app/run_opts.h"

void sp_print_run_help(FILE *f) {
  fprintf(f,
          "usage: mpirun -np P sitepack run [JOB.json] [options]\n"
          "\n"
          "Scans the input directory (recursive: .cif .mmcif .pdb .ent, each optionally .gz; gzip is\n"
          "detected by its magic bytes), finds every ligand, computes its binding site and writes one\n"
          "merged HDF5 file (docs/format.md) plus a run report (JSON). Options override the job file.\n"
          "\n"
          "Options take their value as --opt VALUE or --opt=VALUE (a unique prefix of a long option is\n"
          "enough); `--` ends the options. Numbers are checked: integers must be whole numbers in range.\n"
          "\n");
  sp_run_opts_help(f); /* the option lines and the job file's keys, from the table (run_opts.c) */
  fprintf(f,
          "\n"
          "environment: SITEPACK_TEST_TASK_DELAY_MS=N (test hook) sleeps a random 0..N ms after each task;\n"
          "             SITEPACK_TEST_TASK_ORDER=input|reverse (test hook) runs each rank's tasks in input order\n");
}

static char *dup_str(const char *s) {
  size_t n = strlen(s) + 1;
  char *d = malloc(n);
  if (d) memcpy(d, s, n);
  return d;
}

static char *read_text(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  size_t cap = 4096, len = 0;
  char *b = malloc(cap);
  size_t k;
  while (b && (k = fread(b + len, 1, cap - len - 1, f)) > 0) {
    len += k;
    if (len + 1 == cap) {
      if (cap > (64u << 20)) break; /* a job file is small; refuse giant ones */
      char *nb = realloc(b, cap * 2);
      if (!nb) {
        free(b);
        b = NULL;
        break;
      }
      b = nb;
      cap *= 2;
    }
  }
  fclose(f);
  if (b) b[len] = 0;
  return b;
}

static int bad(const char *what, const char *detail) {
  fprintf(stderr, "sitepack run: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
  return SP_EXIT_USAGE;
}

static int job_unknown(const char *section, const char *key) {
  char known[512];
  sp_run_opt_section_keys(section, known, sizeof known);
  fprintf(stderr, "sitepack run: job file: unknown key in %s: %s (known: %s)\n", section, key, known);
  return SP_EXIT_USAGE;
}

/* One top-level key @p it of the job file onto @p job (through the option table, run_opts.h): an option's key, a
 * section's object of keys, or a comment (free text: a string). Returns 0 or SP_EXIT_USAGE (printed). */
static int job_key(const cJSON *it, const char *dir, sp_job *job) {
  const char *k = it->string;
  const sp_run_opt *o = sp_run_opt_by_key(NULL, k);
  if (o) return sp_run_opt_apply_key(o, it, dir, job);
  if (sp_run_opt_is_section(k)) {
    if (!cJSON_IsObject(it)) {
      fprintf(stderr, "sitepack run: job file: %s must be an object\n", k);
      return SP_EXIT_USAGE;
    }
    int rc = 0;
    for (const cJSON *s = it->child; s && !rc; s = s->next) {
      const sp_run_opt *so = sp_run_opt_by_key(k, s->string);
      rc = so ? sp_run_opt_apply_key(so, s, dir, job) : job_unknown(k, s->string);
    }
    return rc;
  }
  if (!strcmp(k, "comment") || !strcmp(k, "_comment"))
    return cJSON_IsString(it) ? 0 : bad("job file: value must be a string", k);
  return bad("job file: unknown key", k);
}

/* 1 when an object at or under @p obj has a key twice; its dotted path ("site.cutoff"; @p prefix:
 * the path of @p obj, "" at the top) is then in @p out [cap]. Arrays are searched element by element. */
static int job_key_twice(const cJSON *obj, const char *prefix, char *out, size_t cap) {
  for (const cJSON *a = obj->child; a; a = a->next) {
    char path[512];
    if (cJSON_IsObject(obj)) snprintf(path, sizeof path, "%s%s%s", prefix, *prefix ? "." : "", a->string);
    else snprintf(path, sizeof path, "%s", prefix);
    for (const cJSON *b = a->next; cJSON_IsObject(obj) && b; b = b->next)
      if (!strcmp(a->string, b->string)) {
        snprintf(out, cap, "%s", path);
        return 1;
      }
    if ((cJSON_IsObject(a) || cJSON_IsArray(a)) && job_key_twice(a, path, out, cap)) return 1;
  }
  return 0;
}

static int load_job_file(const char *path, sp_job *job) {
  char *text = read_text(path);
  if (!text) return bad("cannot read job file", path);
  const char *end = NULL;
  cJSON *root = cJSON_ParseWithOpts(text, &end, 1);
  if (!root) {
    /* say where: line and column of the first character cJSON could not take */
    int line = 1, col = 1;
    for (const char *p = text; end && p < end && *p; ++p) {
      if (*p == '\n') ++line, col = 1;
      else ++col;
    }
    fprintf(stderr, "sitepack run: job file %s: JSON syntax error at line %d, column %d\n", path, line, col);
    free(text);
    return SP_EXIT_USAGE;
  }
  free(text);
  if (!cJSON_IsObject(root)) {
    cJSON_Delete(root);
    return bad("job file is not a JSON object", path);
  }
  /* a key given twice is a mistake (the last value would silently win), at any depth */
  char twice[512];
  if (job_key_twice(root, "", twice, sizeof twice)) {
    cJSON_Delete(root);
    return bad("job file: key given twice", twice);
  }
  char *dir = dup_str(path);
  char *slash = dir ? strrchr(dir, '/') : NULL;
  if (slash)
    *slash = 0;
  else {
    free(dir);
    dir = NULL;
  }
  int rc = 0;
  for (cJSON *it = root->child; it && !rc; it = it->next) rc = job_key(it, dir, job);
  free(dir);
  cJSON_Delete(root);
  return rc;
}

/* Issue 16 item 13: getopt_long (cli_opts.h) over the table's options (run_opts.h). Pass 1 checks every option
 * and finds the operand (the job file: one at most, anywhere); the job file is read; pass 2 applies the options
 * over it. Returns 0, -1 (--help printed) or SP_EXIT_USAGE. */
static int parse_run_args(int argc, char **argv, sp_job *job) {
  struct option longopts[SP_RUN_LONGOPTS_CAP];
  char shortopts[8];
  sp_run_longopts(longopts, shortopts, sizeof shortopts);
  int c, negated;
  sp_opt_reset();
  while ((c = sp_opt_next("run", argc, argv, shortopts, longopts)) != -1) {
    if (c == '?') return SP_EXIT_USAGE;
    const sp_run_opt *o = sp_run_opt_of(c, &negated);
    if (o && o->kind == RO_HELP) {
      sp_print_run_help(stdout);
      return -1;
    }
  }
  if (argc - optind > 1) return bad("unexpected argument (one job file at most)", argv[optind + 1]);
  if (argc - optind == 1) {
    int rc = load_job_file(argv[optind], job);
    if (rc) return rc;
  }
  sp_opt_reset();
  while ((c = sp_opt_next("run", argc, argv, shortopts, longopts)) != -1) {
    const sp_run_opt *o = sp_run_opt_of(c, &negated);
    int rc = o ? sp_run_opt_apply_flag(o, negated, optarg, job) : bad("internal error: unhandled option", NULL);
    if (rc) return rc;
  }
  return 0;
}

int sp_job_from_args(int argc, char **argv, sp_job *job) {
  sp_run_job_defaults(job);
  int prc = parse_run_args(argc, argv, job);
  if (prc) return prc;
  /* issue 16 item 5: a shard keeps no resumable state (docs/slurm.md: a failed shard is rerun whole) */
  if (job->resume && job->shard_count > 0)
    return bad("--resume does not work with --shard: rerun the failed shard without --resume (docs/slurm.md)", NULL);
  if (!job->input) return bad("no input directory (give --input DIR or a job file with \"input\")", NULL);
  if (!job->output) return bad("no output file (give --out FILE.h5 or a job file with \"output\")", NULL);
  if (!(job->opts.cutoff > 0 && job->opts.cutoff <= 50)) return bad("site cutoff must be in (0, 50] Angstrom", NULL);
  if (job->opts.ph < 0 || job->opts.ph > 14) return bad("ph must be in [0, 14]", NULL);
  if (!job->report) {
    size_t cap = strlen(job->output) + SP_OUT_REPORT_EXTRA;
    job->report = malloc(cap);
    if (!job->report) return bad("out of memory", NULL);
    sp_out_report_path(job->output, job->report, cap);
  }
  /* the effective job, recorded in the output (run_opts.h: the table's recorded keys) */
  cJSON *j = sp_run_opts_record(job);
  if (!j) return bad("out of memory", NULL);
  job->json = cJSON_PrintUnformatted(j);
  cJSON_Delete(j);
  return 0;
}

void sp_job_free(sp_job *job) {
  free(job->input); free(job->ccd); free(job->output); free(job->report);
  if (job->json) cJSON_free(job->json);
  memset(job, 0, sizeof *job);
}

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
          "\n"
          "  --input DIR           directory of structure files (or one file)\n"
          "  --ccd FILE            wwPDB CCD, components.cif or .cif.gz (optional: without it every\n"
          "                        component is 'not in CCD')\n"
          "  --out FILE.h5         merged output (refuses to overwrite without --force); --output too\n"
          "  --report FILE.json    run report (default: OUT without .h5 + .report.json)\n"
          "  --ph X                pH of the site chemistry (default 7.4)\n"
          "  --cutoff A            site cutoff in Angstrom (default 6.0)\n"
          "  --max-site-atoms N    larger sites are recorded and flagged (default 12000)\n"
          "  --symmetry-mates      sites also hold residues of crystal symmetry images, tagged with\n"
          "                        their operator (default: asymmetric unit only; docs/sites.md);\n"
          "                        --no-symmetry-mates turns a job file's site.symmetry_mates off\n"
          "  --assembly none|first sites also hold residues of the first biological assembly's other\n"
          "                        copies within the cutoff, tagged with their operator (default none;\n"
          "                        docs/sites.md \"Biological assemblies\")\n"
          "  --model first|all     models to survey (default first)\n"
          "  --entries all|first   files of the same entry (1abc.cif and 1abc.pdb): process all\n"
          "                        (default; /structures/entry_first groups them) or only the first\n"
          "                        in path order (the later ones: status repeated_entry)\n"
          "  --force               overwrite an existing output file; discard the finished tasks\n"
          "                        of an interrupted run in OUT.h5.parts/ (else: refused, exit 2)\n"
          "  --quiet, -q           no progress lines\n"
          "  --keep-parts          keep the per-rank HDF5 files (OUT.h5.parts/)\n"
          "  --no-steal            run the static LPT plan only, no work stealing (benchmarks)\n"
          "  --no-split            never split a file into ligand ranges\n"
          "  --split-min-bytes N   split files of at least N stored bytes (default 2000000) ...\n"
          "  --split-min-ligands N ... with more than N ligands, into parts of about N (default 24)\n"
          "  --split-max-parts N   at most N parts per file (default 16)\n"
          "  --split-no-guard      split by the thresholds alone (default: only as many parts as the\n"
          "                        cost model says save more than their extra parse costs)\n"
          "  --resume              reuse the finished tasks of an earlier killed or failed run of the\n"
          "                        same job (OUT.h5.parts/), run the rest (docs/reliability.md)\n"
          "  --max-atoms N         record a file with more than N atom records as too_many_atoms\n"
          "                        and skip it (default: no limit)\n"
          "  --max-file-site-atoms N  record a file whose sites hold more than N atoms in all as\n"
          "                        too_many_atoms, with no rows (default 10000000; 0: no limit)\n"
          "  --task-timeout S      record a file still running after S seconds as timeout (default: none)\n"
          "  --help, -h            this text\n"
          "  --shard I/N|auto      shard I of N of a SLURM array (auto: SLURM_ARRAY_TASK_*): run this\n"
          "                        shard's share of the files, write a shard file to --out; then\n"
          "                        `sitepack merge` (docs/slurm.md)\n"
          "\n"
          "job file keys: input, ccd, output, report, ph, model, entries, site: {cutoff, max_atoms, symmetry_mates, assembly},\n"
          "               split: {min_bytes, min_ligands, max_parts, enabled, cost_guard}, steal (true/false),\n"
          "               limits: {max_atoms, max_seconds, max_file_site_atoms}\n"
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

/* Resolve a job-file path against the job file's directory. */
static char *resolve(const char *base_dir, const char *p) {
  if (!base_dir || p[0] == '/') return dup_str(p);
  size_t n = strlen(base_dir) + strlen(p) + 2;
  char *d = malloc(n);
  if (d) snprintf(d, n, "%s/%s", base_dir, p);
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

/* Issue 16 item 9: job-file numbers follow the flags' rules. An integer key takes a JSON number
 * that is a whole number in [lo, hi] (1.5 and 1e20 are refused, never rounded or wrapped); a
 * number key a finite number in [lo, hi] ((lo, hi] with lo_open). The error names the key, the
 * value as written by cJSON, and the range. */
static int job_value_error(const cJSON *v, const char *key, const char *what) {
  char *text = cJSON_PrintUnformatted(v);
  fprintf(stderr, "sitepack run: job file: %s must be %s, got %s\n", key, what, text ? text : "?");
  cJSON_free(text);
  return SP_EXIT_USAGE;
}

static int job_int(const cJSON *v, const char *key, int64_t lo, int64_t hi, int64_t *out) {
  double d = cJSON_IsNumber(v) ? v->valuedouble : NAN;
  if (!(d >= (double)lo && d <= (double)hi && d == floor(d))) {
    char what[96];
    snprintf(what, sizeof what, "an integer in [%lld, %lld]", (long long)lo, (long long)hi);
    return job_value_error(v, key, what);
  }
  *out = (int64_t)d;
  return 0;
}

static int job_number(const cJSON *v, const char *key, double lo, int lo_open, double hi, double *out) {
  double d = cJSON_IsNumber(v) ? v->valuedouble : NAN;
  if (!(isfinite(d) && d >= lo && !(lo_open && d == lo) && d <= hi)) {
    char what[96];
    snprintf(what, sizeof what, "a number in %c%g, %g]", lo_open ? '(' : '[', lo, hi);
    return job_value_error(v, key, what);
  }
  *out = d;
  return 0;
}

static int job_bool(const cJSON *v, const char *key, bool *out) {
  if (!cJSON_IsBool(v)) return job_value_error(v, key, "true or false");
  *out = cJSON_IsTrue(v);
  return 0;
}

static int job_unknown(const char *section, const char *key, const char *known) {
  fprintf(stderr, "sitepack run: job file: unknown key in %s: %s (known: %s)\n", section, key, known);
  return SP_EXIT_USAGE;
}

/* "site": {cutoff, max_atoms, symmetry_mates, assembly} */
static int job_site_key(const cJSON *s, sp_job *job) {
  const char *k = s->string;
  double d;
  int64_t n;
  bool b;
  int rc;
  if (!strcmp(k, "cutoff")) {
    if (!(rc = job_number(s, "site.cutoff", 0, 1, SP_MAX_CUTOFF, &d))) job->opts.cutoff = (float)d;
  } else if (!strcmp(k, "max_atoms")) {
    if (!(rc = job_int(s, "site.max_atoms", 1, SP_MAX_SITE_ATOMS, &n))) job->opts.max_site_atoms = (size_t)n;
  } else if (!strcmp(k, "symmetry_mates")) {
    if (!(rc = job_bool(s, "site.symmetry_mates", &b))) job->opts.symmetry_mates = b;
  } else if (!strcmp(k, "assembly")) {
    if (!cJSON_IsString(s) || (strcmp(s->valuestring, "none") && strcmp(s->valuestring, "first")))
      rc = bad("job file: site.assembly must be \"none\" or \"first\"", NULL);
    else job->opts.assembly = !strcmp(s->valuestring, "first"), rc = 0;
  } else {
    rc = job_unknown("site", k, "cutoff, max_atoms, symmetry_mates, assembly");
  }
  return rc;
}

/* "split": {min_bytes, min_ligands, max_parts, enabled, cost_guard} */
static int job_split_key(const cJSON *s, sp_job *job) {
  const char *k = s->string;
  int64_t n;
  bool b;
  int rc;
  if (!strcmp(k, "min_bytes")) {
    if (!(rc = job_int(s, "split.min_bytes", 0, SP_MAX_COUNT, &n))) job->split.min_bytes = n;
  } else if (!strcmp(k, "min_ligands")) {
    if (!(rc = job_int(s, "split.min_ligands", 1, SP_MAX_COUNT, &n))) job->split.min_ligands = n;
  } else if (!strcmp(k, "max_parts")) {
    if (!(rc = job_int(s, "split.max_parts", 1, SP_MAX_PARTS, &n))) job->split.max_parts = (int)n;
  } else if (!strcmp(k, "enabled")) {
    if (!(rc = job_bool(s, "split.enabled", &b))) job->split.enabled = b;
  } else if (!strcmp(k, "cost_guard")) {
    if (!(rc = job_bool(s, "split.cost_guard", &b))) job->split.cost_guard = b;
  } else {
    rc = job_unknown("split", k, "min_bytes, min_ligands, max_parts, enabled, cost_guard");
  }
  return rc;
}

/* "limits": {max_atoms, max_seconds, max_file_site_atoms} (issues 9, 20: per-task guards) */
static int job_limits_key(const cJSON *s, sp_job *job) {
  const char *k = s->string;
  double d;
  int64_t n;
  int rc;
  if (!strcmp(k, "max_atoms")) {
    if (!(rc = job_int(s, "limits.max_atoms", 0, SP_MAX_COUNT, &n))) job->opts.max_atoms = (size_t)n;
  } else if (!strcmp(k, "max_seconds")) {
    if (!(rc = job_number(s, "limits.max_seconds", 0, 0, 1e9, &d))) job->opts.max_seconds = d;
  } else if (!strcmp(k, "max_file_site_atoms")) {
    if (!(rc = job_int(s, "limits.max_file_site_atoms", 0, SP_MAX_COUNT, &n))) job->opts.max_file_site_atoms = (size_t)n;
  } else {
    rc = job_unknown("limits", k, "max_atoms, max_seconds, max_file_site_atoms");
  }
  return rc;
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
  for (cJSON *it = root->child; it && !rc; it = it->next) {
    const char *k = it->string;
    if (!strcmp(k, "input") || !strcmp(k, "ccd") || !strcmp(k, "output") || !strcmp(k, "report")) {
      if (!cJSON_IsString(it)) {
        rc = bad("job file: value must be a string", k);
        break;
      }
      char **dst = !strcmp(k, "input") ? &job->input : !strcmp(k, "ccd") ? &job->ccd
                   : !strcmp(k, "output") ? &job->output : &job->report;
      if (!it->valuestring[0]) {
        fprintf(stderr, "sitepack run: job file: %s must name a file, got an empty string\n", k);
        rc = SP_EXIT_USAGE;
        break;
      }
      free(*dst);
      *dst = resolve(dir, it->valuestring);
    } else if (!strcmp(k, "ph")) {
      double d;
      if (!(rc = job_number(it, "ph", 0, 0, 14, &d))) job->opts.ph = d;
    } else if (!strcmp(k, "model")) {
      if (!cJSON_IsString(it) || (strcmp(it->valuestring, "first") && strcmp(it->valuestring, "all")))
        rc = bad("job file: model must be \"first\" or \"all\"", NULL);
      else job->opts.all_models = !strcmp(it->valuestring, "all");
    } else if (!strcmp(k, "entries")) { /* issue 16 item 12 */
      if (!cJSON_IsString(it) || (strcmp(it->valuestring, "first") && strcmp(it->valuestring, "all")))
        rc = bad("job file: entries must be \"all\" or \"first\"", NULL);
      else job->entries_first = !strcmp(it->valuestring, "first");
    } else if (!strcmp(k, "site") || !strcmp(k, "split") || !strcmp(k, "limits")) {
      if (!cJSON_IsObject(it)) {
        fprintf(stderr, "sitepack run: job file: %s must be an object\n", k);
        rc = SP_EXIT_USAGE;
        break;
      }
      for (cJSON *s = it->child; s && !rc; s = s->next)
        rc = !strcmp(k, "site") ? job_site_key(s, job) : !strcmp(k, "split") ? job_split_key(s, job)
                                                                             : job_limits_key(s, job);
    } else if (!strcmp(k, "steal")) {
      if (!cJSON_IsBool(it)) rc = bad("job file: steal must be true or false", NULL);
      else job->no_steal = !cJSON_IsTrue(it);
    } else if (!strcmp(k, "comment") || !strcmp(k, "_comment")) { /* free text: a string */
      if (!cJSON_IsString(it)) rc = bad("job file: value must be a string", k);
    } else {
      rc = bad("job file: unknown key", k);
    }
  }
  free(dir);
  cJSON_Delete(root);
  return rc;
}

enum {
  /* options with a value: O_INPUT .. O_SPLIT_MAX_PARTS (parse_run_args) */
  O_INPUT = 256, O_CCD, O_OUT, O_REPORT, O_PH, O_CUTOFF, O_MAX_SITE_ATOMS, O_MAX_ATOMS, O_MAX_FILE_SITE_ATOMS, O_TASK_TIMEOUT, O_MODEL, O_ENTRIES,
  O_ASSEMBLY, O_SHARD, O_SPLIT_MIN_BYTES, O_SPLIT_MIN_LIGANDS, O_SPLIT_MAX_PARTS, O_FORCE, O_KEEP_PARTS, O_NO_STEAL,
  O_RESUME, O_NO_SPLIT, O_SPLIT_NO_GUARD, O_SYMMETRY_MATES, O_NO_SYMMETRY_MATES
};

static const struct option k_run_options[] = {
    {"input", required_argument, NULL, O_INPUT},
    {"ccd", required_argument, NULL, O_CCD},
    {"out", required_argument, NULL, O_OUT},
    {"output", required_argument, NULL, O_OUT},
    {"report", required_argument, NULL, O_REPORT},
    {"ph", required_argument, NULL, O_PH},
    {"cutoff", required_argument, NULL, O_CUTOFF},
    {"max-site-atoms", required_argument, NULL, O_MAX_SITE_ATOMS},
    {"max-atoms", required_argument, NULL, O_MAX_ATOMS},
    {"max-file-site-atoms", required_argument, NULL, O_MAX_FILE_SITE_ATOMS},
    {"task-timeout", required_argument, NULL, O_TASK_TIMEOUT},
    {"model", required_argument, NULL, O_MODEL},
    {"entries", required_argument, NULL, O_ENTRIES},
    {"shard", required_argument, NULL, O_SHARD},
    {"split-min-bytes", required_argument, NULL, O_SPLIT_MIN_BYTES},
    {"split-min-ligands", required_argument, NULL, O_SPLIT_MIN_LIGANDS},
    {"split-max-parts", required_argument, NULL, O_SPLIT_MAX_PARTS},
    {"force", no_argument, NULL, O_FORCE},
    {"quiet", no_argument, NULL, 'q'},
    {"keep-parts", no_argument, NULL, O_KEEP_PARTS},
    {"no-steal", no_argument, NULL, O_NO_STEAL},
    {"resume", no_argument, NULL, O_RESUME},
    {"no-split", no_argument, NULL, O_NO_SPLIT},
    {"split-no-guard", no_argument, NULL, O_SPLIT_NO_GUARD},
    {"symmetry-mates", no_argument, NULL, O_SYMMETRY_MATES},
    {"no-symmetry-mates", no_argument, NULL, O_NO_SYMMETRY_MATES},
    {"assembly", required_argument, NULL, O_ASSEMBLY},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

/* A path option's value: never empty (issue 16 item 10: `--out ""` ran the whole job, then failed) */
static int set_path(char **dst, const char *opt, const char *v) {
  if (!v[0]) {
    fprintf(stderr, "sitepack run: %s must name a file, got an empty string\n", opt);
    return SP_EXIT_USAGE;
  }
  free(*dst);
  *dst = dup_str(v);
  return *dst ? 0 : bad("out of memory", NULL);
}

/* One option with a value (optarg) onto the job; 0 or SP_EXIT_USAGE (the message printed). */
static int apply_value_option(int c, const char *v, sp_job *job) {
  double d;
  int64_t n;
  switch (c) {
  case O_INPUT: return set_path(&job->input, "--input", v);
  case O_CCD: return set_path(&job->ccd, "--ccd", v);
  case O_OUT: return set_path(&job->output, "--out", v);
  case O_REPORT: return set_path(&job->report, "--report", v);
  case O_PH:
    if (sp_opt_double("run", "--ph", v, 0, 0, 14, &d)) return SP_EXIT_USAGE;
    job->opts.ph = d;
    return 0;
  case O_CUTOFF:
    if (sp_opt_double("run", "--cutoff", v, 0, 1, SP_MAX_CUTOFF, &d)) return SP_EXIT_USAGE;
    job->opts.cutoff = (float)d;
    return 0;
  case O_TASK_TIMEOUT:
    if (sp_opt_double("run", "--task-timeout", v, 0, 0, 1e9, &d)) return SP_EXIT_USAGE;
    job->opts.max_seconds = d;
    return 0;
  case O_MAX_SITE_ATOMS:
    if (sp_opt_int("run", "--max-site-atoms", v, 1, SP_MAX_SITE_ATOMS, &n)) return SP_EXIT_USAGE;
    job->opts.max_site_atoms = (size_t)n;
    return 0;
  case O_MAX_ATOMS:
    if (sp_opt_int("run", "--max-atoms", v, 0, SP_MAX_COUNT, &n)) return SP_EXIT_USAGE;
    job->opts.max_atoms = (size_t)n;
    return 0;
  case O_MAX_FILE_SITE_ATOMS:
    if (sp_opt_int("run", "--max-file-site-atoms", v, 0, SP_MAX_COUNT, &n)) return SP_EXIT_USAGE;
    job->opts.max_file_site_atoms = (size_t)n;
    return 0;
  case O_SPLIT_MIN_BYTES:
    if (sp_opt_int("run", "--split-min-bytes", v, 0, SP_MAX_COUNT, &n)) return SP_EXIT_USAGE;
    job->split.min_bytes = n;
    return 0;
  case O_SPLIT_MIN_LIGANDS:
    if (sp_opt_int("run", "--split-min-ligands", v, 1, SP_MAX_COUNT, &n)) return SP_EXIT_USAGE;
    job->split.min_ligands = n;
    return 0;
  case O_SPLIT_MAX_PARTS:
    if (sp_opt_int("run", "--split-max-parts", v, 1, SP_MAX_PARTS, &n)) return SP_EXIT_USAGE;
    job->split.max_parts = (int)n;
    return 0;
  case O_ASSEMBLY:
    if (strcmp(v, "none") && strcmp(v, "first")) return bad("--assembly must be none or first", v);
    job->opts.assembly = !strcmp(v, "first");
    return 0;
  case O_MODEL:
    if (strcmp(v, "first") && strcmp(v, "all")) return bad("--model must be first or all", v);
    job->opts.all_models = !strcmp(v, "all");
    return 0;
  case O_ENTRIES:
    if (strcmp(v, "first") && strcmp(v, "all")) return bad("--entries must be all or first", v);
    job->entries_first = !strcmp(v, "first");
    return 0;
  case O_SHARD: { /* issue 8 (slurm): cmd_merge.h sp_shard_parse() */
    char msg[256];
    if (sp_shard_parse(v, &job->shard_index, &job->shard_count, msg, sizeof msg)) return bad(msg, NULL);
    return 0;
  }
  }
  return bad("internal error: unhandled option", NULL);
}

/* One option without a value onto the job. */
static void apply_flag(int c, sp_job *job) {
  switch (c) {
  case O_FORCE: job->force = true; break;
  case 'q': job->quiet = true; break;
  case O_KEEP_PARTS: job->keep_parts = true; break;
  case O_NO_STEAL: job->no_steal = true; break;
  case O_RESUME: job->resume = true; break;
  case O_NO_SPLIT: job->split.enabled = 0; break;
  case O_SPLIT_NO_GUARD: job->split.cost_guard = 0; break;
  case O_SYMMETRY_MATES: job->opts.symmetry_mates = true; break;
  case O_NO_SYMMETRY_MATES: job->opts.symmetry_mates = false; break;
  }
}

/* Issue 16 item 13: getopt_long (cli_opts.h). Pass 1 checks every option and finds the operand
 * (the job file: one at most, anywhere); the job file is read; pass 2 applies the options over it.
 * Returns 0, -1 (--help printed) or SP_EXIT_USAGE. */
static int parse_run_args(int argc, char **argv, sp_job *job) {
  int c;
  sp_opt_reset();
  while ((c = sp_opt_next("run", argc, argv, "hq", k_run_options)) != -1) {
    if (c == '?') return SP_EXIT_USAGE;
    if (c == 'h') {
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
  while ((c = sp_opt_next("run", argc, argv, "hq", k_run_options)) != -1) {
    int has_value = c >= O_INPUT && c <= O_SPLIT_MAX_PARTS;
    int rc = has_value ? apply_value_option(c, optarg, job) : (apply_flag(c, job), 0);
    if (rc) return rc;
  }
  return 0;
}

int sp_job_from_args(int argc, char **argv, sp_job *job) {
  memset(job, 0, sizeof *job);
  sp_task_opts_default(&job->opts);
  sp_split_opts_default(&job->split);
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
  /* the effective job, recorded in the output */
  cJSON *j = cJSON_CreateObject();
  cJSON_AddStringToObject(j, "input", job->input);
  if (job->ccd) cJSON_AddStringToObject(j, "ccd", job->ccd);
  cJSON_AddNumberToObject(j, "ph", job->opts.ph);
  cJSON_AddStringToObject(j, "model", job->opts.all_models ? "all" : "first");
  /* issue 16 item 12: recorded only when not the default (a default job records the same JSON as before) */
  if (job->entries_first) cJSON_AddStringToObject(j, "entries", "first");
  cJSON *site = cJSON_AddObjectToObject(j, "site");
  cJSON_AddNumberToObject(site, "cutoff", job->opts.cutoff);
  cJSON_AddNumberToObject(site, "max_atoms", (double)job->opts.max_site_atoms);
  /* recorded only when on: a run without it records the same job as before the option existed */
  if (job->opts.symmetry_mates) cJSON_AddTrueToObject(site, "symmetry_mates");
  if (job->opts.assembly) cJSON_AddStringToObject(site, "assembly", "first");
  /* issue 9, 20: recorded only when set (a default job records the same JSON as before the keys existed) */
  bool file_site_atoms_set = job->opts.max_file_site_atoms != SP_DEFAULT_MAX_FILE_SITE_ATOMS;
  if (job->opts.max_atoms || job->opts.max_seconds > 0 || file_site_atoms_set) {
    cJSON *lim = cJSON_AddObjectToObject(j, "limits");
    if (job->opts.max_atoms) cJSON_AddNumberToObject(lim, "max_atoms", (double)job->opts.max_atoms);
    if (job->opts.max_seconds > 0) cJSON_AddNumberToObject(lim, "max_seconds", job->opts.max_seconds);
    if (file_site_atoms_set)
      cJSON_AddNumberToObject(lim, "max_file_site_atoms", (double)job->opts.max_file_site_atoms);
  }
  job->json = cJSON_PrintUnformatted(j);
  cJSON_Delete(j);
  return 0;
}

void sp_job_free(sp_job *job) {
  free(job->input); free(job->ccd); free(job->output); free(job->report);
  if (job->json) cJSON_free(job->json);
  memset(job, 0, sizeof *job);
}

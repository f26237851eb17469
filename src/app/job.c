/* Job file (JSON, cJSON) + command-line overrides. Paths inside a job file are relative to
 * the job file's directory; paths given as flags are relative to the working directory. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/app.h"
#include "app/cmd_merge.h"

void sp_print_run_help(FILE *f) {
  fprintf(f,
          "usage: mpirun -np P sitepack run [JOB.json] [options]\n"
          "\n"
          "Scans the input directory (recursive: .cif .mmcif .pdb .ent, each optionally .gz; gzip is\n"
          "detected by its magic bytes), finds every ligand, computes its binding site and writes one\n"
          "merged HDF5 file (docs/format.md) plus a run report (JSON). Options override the job file.\n"
          "\n"
          "  --input DIR           directory of structure files (or one file)\n"
          "  --ccd FILE            wwPDB CCD, components.cif or .cif.gz (optional: without it every\n"
          "                        component is 'not in CCD')\n"
          "  --out FILE.h5         merged output (refuses to overwrite without --force)\n"
          "  --report FILE.json    run report (default: OUT without .h5 + .report.json)\n"
          "  --ph X                pH of the site chemistry (default 7.4)\n"
          "  --cutoff A            site cutoff in Angstrom (default 6.0)\n"
          "  --max-site-atoms N    larger sites are recorded and flagged (default 12000)\n"
          "  --symmetry-mates      sites also hold residues of crystal symmetry images, tagged with\n"
          "                        their operator (default: asymmetric unit only; docs/sites.md);\n"
          "                        --no-symmetry-mates turns a job file's site.symmetry_mates off\n"
          "  --model first|all     models to survey (default first)\n"
          "  --force               overwrite an existing output file\n"
          "  --quiet               no progress lines\n"
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
          "  --task-timeout S      record a file still running after S seconds as timeout (default: none)\n"
          "  --shard I/N|auto      shard I of N of a SLURM array (auto: SLURM_ARRAY_TASK_*): run this\n"
          "                        shard's share of the files, write a shard file to --out; then\n"
          "                        `sitepack merge` (docs/slurm.md)\n"
          "\n"
          "job file keys: input, ccd, output, report, ph, model, site: {cutoff, max_atoms, symmetry_mates},\n"
          "               split: {min_bytes, min_ligands, max_parts, enabled, cost_guard}, steal (true/false),\n"
          "               limits: {max_atoms, max_seconds}\n"
          "\n"
          "environment: SITEPACK_TEST_TASK_DELAY_MS=N (test hook) sleeps a random 0..N ms after each task\n");
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
  /* a key given twice is a mistake (the last value would silently win) */
  for (cJSON *a = root->child; a; a = a->next)
    for (cJSON *b = a->next; b; b = b->next)
      if (!strcmp(a->string, b->string)) {
        int rc = bad("job file: key given twice", a->string);
        cJSON_Delete(root);
        return rc;
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
      free(*dst);
      *dst = resolve(dir, it->valuestring);
    } else if (!strcmp(k, "ph")) {
      if (!cJSON_IsNumber(it)) rc = bad("job file: ph must be a number", NULL);
      else job->opts.ph = it->valuedouble;
    } else if (!strcmp(k, "model")) {
      if (!cJSON_IsString(it) || (strcmp(it->valuestring, "first") && strcmp(it->valuestring, "all")))
        rc = bad("job file: model must be \"first\" or \"all\"", NULL);
      else job->opts.all_models = !strcmp(it->valuestring, "all");
    } else if (!strcmp(k, "site")) {
      if (!cJSON_IsObject(it)) {
        rc = bad("job file: site must be an object", NULL);
        break;
      }
      for (cJSON *s = it->child; s && !rc; s = s->next) {
        if (!strcmp(s->string, "cutoff") && cJSON_IsNumber(s)) job->opts.cutoff = (float)s->valuedouble;
        else if (!strcmp(s->string, "max_atoms") && cJSON_IsNumber(s) && s->valuedouble >= 1)
          job->opts.max_site_atoms = (size_t)s->valuedouble;
        else if (!strcmp(s->string, "symmetry_mates") && cJSON_IsBool(s))
          job->opts.symmetry_mates = cJSON_IsTrue(s);
        else if (!strcmp(s->string, "cutoff")) rc = bad("job file: site.cutoff must be a number (Angstrom)", NULL);
        else if (!strcmp(s->string, "max_atoms")) rc = bad("job file: site.max_atoms must be an integer >= 1", NULL);
        else if (!strcmp(s->string, "symmetry_mates"))
          rc = bad("job file: site.symmetry_mates must be true or false", NULL);
        else rc = bad("job file: unknown key in site (cutoff, max_atoms, symmetry_mates)", s->string);
      }
    } else if (!strcmp(k, "split")) {
      if (!cJSON_IsObject(it)) {
        rc = bad("job file: split must be an object", NULL);
        break;
      }
      for (cJSON *s = it->child; s && !rc; s = s->next) {
        int num = cJSON_IsNumber(s) && s->valuedouble >= 0 && s->valuedouble == floor(s->valuedouble) &&
                  s->valuedouble < 9e15;
        if (!strcmp(s->string, "min_bytes") && num) job->split.min_bytes = (int64_t)s->valuedouble;
        else if (!strcmp(s->string, "min_ligands") && num && s->valuedouble >= 1)
          job->split.min_ligands = (int64_t)s->valuedouble;
        else if (!strcmp(s->string, "max_parts") && num && s->valuedouble >= 1 && s->valuedouble <= 1024)
          job->split.max_parts = (int)s->valuedouble;
        else if (!strcmp(s->string, "enabled") && cJSON_IsBool(s)) job->split.enabled = cJSON_IsTrue(s);
        else if (!strcmp(s->string, "cost_guard") && cJSON_IsBool(s)) job->split.cost_guard = cJSON_IsTrue(s);
        else rc = bad("job file: unknown or bad key in split (min_bytes >= 0, min_ligands >= 1, "
                      "max_parts 1..1024, enabled, cost_guard true/false)", s->string);
      }
    } else if (!strcmp(k, "limits")) { /* issue 9 (reliability): per-task guards */
      if (!cJSON_IsObject(it)) {
        rc = bad("job file: limits must be an object", NULL);
        break;
      }
      for (cJSON *s = it->child; s && !rc; s = s->next) {
        if (!strcmp(s->string, "max_atoms") && cJSON_IsNumber(s) && s->valuedouble >= 0 &&
            s->valuedouble == floor(s->valuedouble) && s->valuedouble < 9e15)
          job->opts.max_atoms = (size_t)s->valuedouble;
        else if (!strcmp(s->string, "max_seconds") && cJSON_IsNumber(s) && s->valuedouble >= 0 &&
                 isfinite(s->valuedouble))
          job->opts.max_seconds = s->valuedouble;
        else rc = bad("job file: unknown or bad key in limits (max_atoms: integer >= 0, max_seconds: number >= 0)",
                      s->string);
      }
    } else if (!strcmp(k, "steal")) {
      if (!cJSON_IsBool(it)) rc = bad("job file: steal must be true or false", NULL);
      else job->no_steal = !cJSON_IsTrue(it);
    } else if (!strcmp(k, "comment") || !strcmp(k, "_comment")) {
      /* free text */
    } else {
      rc = bad("job file: unknown key", k);
    }
  }
  free(dir);
  cJSON_Delete(root);
  return rc;
}

static int parse_double(const char *s, double *out) {
  char *end;
  errno = 0;
  double v = strtod(s, &end);
  if (errno || end == s || *end || !isfinite(v)) return -1;
  *out = v;
  return 0;
}

int sp_job_from_args(int argc, char **argv, sp_job *job) {
  memset(job, 0, sizeof *job);
  sp_task_opts_default(&job->opts);
  sp_split_opts_default(&job->split);
  int i = 1;
  if (i < argc && argv[i][0] != '-') {
    int rc = load_job_file(argv[i], job);
    if (rc) return rc;
    ++i;
  }
  for (; i < argc; ++i) {
    const char *a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    double d;
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      sp_print_run_help(stdout);
      return -1;
    } else if (!strcmp(a, "--force")) {
      job->force = true;
    } else if (!strcmp(a, "--quiet") || !strcmp(a, "-q")) {
      job->quiet = true;
    } else if (!strcmp(a, "--keep-parts")) {
      job->keep_parts = true;
    } else if (!strcmp(a, "--no-steal")) {
      job->no_steal = true;
    } else if (!strcmp(a, "--resume")) {
      job->resume = true;
    } else if (!strcmp(a, "--no-split")) {
      job->split.enabled = 0;
    } else if (!strcmp(a, "--symmetry-mates")) {
      job->opts.symmetry_mates = true;
    } else if (!strcmp(a, "--split-no-guard")) {
      job->split.cost_guard = 0;
    } else if (a[0] != '-') {
      return bad("unexpected argument (one job file at most, before the options)", a);
    } else if (!strcmp(a, "--no-symmetry-mates")) {
      job->opts.symmetry_mates = false;
    } else if (!v) {
      static const char *const with_value[] = {"--input", "--ccd", "--out", "--output", "--report", "--ph",
                                               "--cutoff", "--max-atoms", "--max-site-atoms", "--model", "--shard",
                                               "--split-max-parts", "--split-min-bytes", "--split-min-ligands",
                                               "--task-timeout"};
      for (size_t k = 0; k < sizeof with_value / sizeof *with_value; ++k)
        if (!strcmp(a, with_value[k])) return bad("missing value for", a);
      return bad("unknown option", a);
    } else if (!strcmp(a, "--input") || !strcmp(a, "--ccd") || !strcmp(a, "--out") || !strcmp(a, "--output") ||
               !strcmp(a, "--report")) {
      char **dst = !strcmp(a, "--input") ? &job->input : !strcmp(a, "--ccd") ? &job->ccd
                   : !strcmp(a, "--report") ? &job->report : &job->output;
      free(*dst);
      *dst = dup_str(v);
      ++i;
    } else if (!strcmp(a, "--ph")) {
      if (parse_double(v, &d) || d < 0 || d > 14) return bad("--ph must be a number in [0, 14]", v);
      job->opts.ph = d;
      ++i;
    } else if (!strcmp(a, "--cutoff")) {
      if (parse_double(v, &d) || d <= 0 || d > 50) return bad("--cutoff must be a number in (0, 50] Angstrom", v);
      job->opts.cutoff = (float)d;
      ++i;
    } else if (!strcmp(a, "--max-site-atoms")) {
      if (parse_double(v, &d) || d < 1 || d != floor(d)) return bad("--max-site-atoms must be a positive integer", v);
      job->opts.max_site_atoms = (size_t)d;
      ++i;
    } else if (!strcmp(a, "--max-atoms")) {
      if (parse_double(v, &d) || d < 0 || d != floor(d) || d > 9e15) return bad("--max-atoms must be an integer >= 0", v);
      job->opts.max_atoms = (size_t)d;
      ++i;
    } else if (!strcmp(a, "--task-timeout")) {
      if (parse_double(v, &d) || d < 0) return bad("--task-timeout must be a number of seconds >= 0", v);
      job->opts.max_seconds = d;
      ++i;
    } else if (!strcmp(a, "--split-min-bytes") || !strcmp(a, "--split-min-ligands") ||
               !strcmp(a, "--split-max-parts")) {
      int is_parts = !strcmp(a, "--split-max-parts"), is_lig = !strcmp(a, "--split-min-ligands");
      double lo = is_parts || is_lig ? 1 : 0, hi = is_parts ? 1024 : 9e15;
      if (parse_double(v, &d) || d < lo || d > hi || d != floor(d)) return bad("bad integer value for", a);
      if (is_parts) job->split.max_parts = (int)d;
      else if (is_lig) job->split.min_ligands = (int64_t)d;
      else job->split.min_bytes = (int64_t)d;
      ++i;
    } else if (!strcmp(a, "--shard")) { /* issue 8 (slurm): cmd_merge.h sp_shard_parse() */
      char msg[256];
      if (sp_shard_parse(v, &job->shard_index, &job->shard_count, msg, sizeof msg)) return bad(msg, NULL);
      ++i;
    } else if (!strcmp(a, "--model")) {
      if (strcmp(v, "first") && strcmp(v, "all")) return bad("--model must be first or all", v);
      job->opts.all_models = !strcmp(v, "all");
      ++i;
    } else {
      return bad("unknown option", a);
    }
  }
  if (!job->input) return bad("no input directory (give --input DIR or a job file with \"input\")", NULL);
  if (!job->output) return bad("no output file (give --out FILE.h5 or a job file with \"output\")", NULL);
  if (!(job->opts.cutoff > 0 && job->opts.cutoff <= 50)) return bad("site cutoff must be in (0, 50] Angstrom", NULL);
  if (job->opts.ph < 0 || job->opts.ph > 14) return bad("ph must be in [0, 14]", NULL);
  if (!job->report) {
    size_t n = strlen(job->output);
    job->report = malloc(n + 16);
    if (!job->report) return bad("out of memory", NULL);
    memcpy(job->report, job->output, n + 1);
    if (n > 3 && !strcmp(job->report + n - 3, ".h5")) job->report[n - 3] = 0;
    strcat(job->report, ".report.json");
  }
  /* the effective job, recorded in the output */
  cJSON *j = cJSON_CreateObject();
  cJSON_AddStringToObject(j, "input", job->input);
  if (job->ccd) cJSON_AddStringToObject(j, "ccd", job->ccd);
  cJSON_AddNumberToObject(j, "ph", job->opts.ph);
  cJSON_AddStringToObject(j, "model", job->opts.all_models ? "all" : "first");
  cJSON *site = cJSON_AddObjectToObject(j, "site");
  cJSON_AddNumberToObject(site, "cutoff", job->opts.cutoff);
  cJSON_AddNumberToObject(site, "max_atoms", (double)job->opts.max_site_atoms);
  /* recorded only when on: a run without it records the same job as before the option existed */
  if (job->opts.symmetry_mates) cJSON_AddTrueToObject(site, "symmetry_mates");
  if (job->opts.max_atoms || job->opts.max_seconds > 0) { /* issue 9: recorded only when set */
    cJSON *lim = cJSON_AddObjectToObject(j, "limits");
    if (job->opts.max_atoms) cJSON_AddNumberToObject(lim, "max_atoms", (double)job->opts.max_atoms);
    if (job->opts.max_seconds > 0) cJSON_AddNumberToObject(lim, "max_seconds", job->opts.max_seconds);
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

/* `sitepack run`: the options in one table and what is made of it (see run_opts.h). */
#include "app/run_opts.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "app/cli_opts.h"
#include "app/cmd_merge.h"

#define F(field) offsetof(sp_job, field)

/* The job's options. Ranges: app.h (issue 16 item 9: the same for flags and keys); defaults: sp_run_job_defaults(). */
const sp_run_opt sp_run_opts[] = {
    {.flag = "input", .main_usage = 1, .arg = "DIR", .key = "input", .kind = RO_PATH, .offset = F(input),
     .type = RF_STR, .record = RR_ALWAYS, .argv_order = 0, .help = "directory of structure files (or one file)"},
    {.flag = "ccd", .main_usage = 1, .arg = "FILE", .key = "ccd", .kind = RO_PATH, .offset = F(ccd), .type = RF_STR,
     .record = RR_CHANGED, .argv_order = 1,
     .help = "wwPDB CCD, components.cif or .cif.gz (optional: without it every\ncomponent is 'not in CCD')"},
    {.flag = "out", .main_usage = 1, .alias = "output", .arg = "FILE.h5", .key = "output", .kind = RO_PATH,
     .offset = F(output), .type = RF_STR, .argv_order = 2,
     .help = "merged output (refuses to overwrite without --force)"},
    {.flag = "report", .main_usage = 1, .arg = "FILE.json", .key = "report", .kind = RO_PATH, .offset = F(report),
     .type = RF_STR, .argv_order = 3, .help = "run report (default: OUT without .h5 + .report.json)"},
    {.flag = "ph", .main_usage = 1, .arg = "X", .key = "ph", .kind = RO_NUMBER, .lo = 0, .hi = 14,
     .offset = F(opts.ph), .type = RF_DOUBLE, .record = RR_ALWAYS, .argv_order = 4,
     .help = "pH of the site chemistry (default 7.4)"},
    {.flag = "model", .main_usage = 1, .key = "model", .kind = RO_CHOICE, .choices = {"first", "all"},
     .offset = F(opts.all_models), .type = RF_BOOL, .record = RR_ALWAYS, .argv_order = 10,
     .help = "models to survey (default first)"},
    {.flag = "entries", .main_usage = 1, .key = "entries", .kind = RO_CHOICE, .choices = {"all", "first"},
     .offset = F(entries_first), .type = RF_BOOL, .record = RR_CHANGED, .argv_order = 11,
     .help = "files of the same entry (1abc.cif and 1abc.pdb): process all\n(default; /structures/entry_first groups "
             "them) or only the first\nin path order (the later ones: status repeated_entry)"},
    {.flag = "cutoff", .main_usage = 1, .arg = "A", .key = "site.cutoff", .kind = RO_NUMBER, .lo = 0, .lo_open = 1,
     .hi = SP_MAX_CUTOFF, .offset = F(opts.cutoff), .type = RF_FLOAT, .record = RR_ALWAYS, .argv_order = 5,
     .help = "site cutoff in Angstrom (default 6.0)"},
    {.flag = "max-site-atoms", .main_usage = 1, .arg = "N", .key = "site.max_atoms", .kind = RO_INTEGER, .lo = 1,
     .hi = (double)SP_MAX_SITE_ATOMS, .offset = F(opts.max_site_atoms), .type = RF_SIZE, .record = RR_ALWAYS,
     .argv_order = 6, .help = "larger sites are recorded and flagged (default 12000)"},
    {.flag = "symmetry-mates", .main_usage = 1, .no_flag = "no-symmetry-mates", .key = "site.symmetry_mates",
     .kind = RO_BOOL, .offset = F(opts.symmetry_mates), .type = RF_BOOL, .record = RR_CHANGED, .argv_order = 23,
     .help = "sites also hold residues of crystal symmetry images, tagged with\ntheir operator (default: asymmetric "
             "unit only; docs/sites.md);"},
    {.flag = "assembly", .main_usage = 1, .key = "site.assembly", .kind = RO_CHOICE, .choices = {"none", "first"},
     .offset = F(opts.assembly), .type = RF_BOOL, .record = RR_CHANGED, .argv_order = 24,
     .help = "sites also hold residues of the first biological assembly's other\ncopies within the cutoff, tagged "
             "with their operator (default none;\ndocs/sites.md \"Biological assemblies\")"},
    {.flag = "split-min-bytes", .arg = "N", .key = "split.min_bytes", .kind = RO_INTEGER, .lo = 0,
     .hi = (double)SP_MAX_COUNT, .offset = F(split.min_bytes), .type = RF_I64, .argv_order = 13,
     .help = "split files of at least N stored bytes (default 2000000) ..."},
    {.flag = "split-min-ligands", .arg = "N", .key = "split.min_ligands", .kind = RO_INTEGER, .lo = 1,
     .hi = (double)SP_MAX_COUNT, .offset = F(split.min_ligands), .type = RF_I64, .argv_order = 14,
     .help = "... with more than N ligands, into parts of about N (default 24)"},
    {.flag = "split-max-parts", .arg = "N", .key = "split.max_parts", .kind = RO_INTEGER, .lo = 1,
     .hi = (double)SP_MAX_PARTS, .offset = F(split.max_parts), .type = RF_INT, .argv_order = 15,
     .help = "at most N parts per file (default 16)"},
    {.no_flag = "no-split", .key = "split.enabled", .kind = RO_BOOL, .offset = F(split.enabled), .type = RF_INT,
     .argv_order = 21, .help = "never split a file into ligand ranges"},
    {.no_flag = "split-no-guard", .key = "split.cost_guard", .kind = RO_BOOL, .offset = F(split.cost_guard),
     .type = RF_INT, .argv_order = 22,
     .help = "split by the thresholds alone (default: only as many parts as the\ncost model says save more than their "
             "extra parse costs)"},
    {.no_flag = "no-steal", .key = "steal", .kind = RO_BOOL, .offset = F(no_steal), .type = RF_BOOL, .invert = 1,
     .argv_order = 19, .help = "run the static LPT plan only, no work stealing (benchmarks)"},
    {.flag = "max-atoms", .arg = "N", .key = "limits.max_atoms", .kind = RO_INTEGER, .lo = 0,
     .hi = (double)SP_MAX_COUNT, .offset = F(opts.max_atoms), .type = RF_SIZE, .record = RR_CHANGED,
     .argv_order = 7,
     .help = "record a file with more than N atom records as too_many_atoms\nand skip it (default: no limit)"},
    {.flag = "task-timeout", .arg = "S", .key = "limits.max_seconds", .kind = RO_NUMBER, .lo = 0, .hi = 1e9,
     .offset = F(opts.max_seconds), .type = RF_DOUBLE, .record = RR_CHANGED, .argv_order = 9,
     .help = "record a file still running after S seconds as timeout (default: none)"},
    {.flag = "max-file-site-atoms", .arg = "N", .key = "limits.max_file_site_atoms", .kind = RO_INTEGER, .lo = 0,
     .hi = (double)SP_MAX_COUNT, .offset = F(opts.max_file_site_atoms), .type = RF_SIZE, .record = RR_CHANGED,
     .argv_order = 8,
     .help = "record a file whose sites hold more than N atoms in all as\ntoo_many_atoms, with no rows (default "
             "10000000; 0: no limit)"},
    {.flag = "force", .main_usage = 1, .kind = RO_BOOL, .offset = F(force), .type = RF_BOOL, .argv_order = 16,
     .help = "overwrite an existing output file; discard the finished tasks\nof an interrupted run in OUT.h5.parts/ "
             "(else: refused, exit 2)"},
    {.flag = "quiet", .main_usage = 1, .short_flag = 'q', .kind = RO_BOOL, .offset = F(quiet), .type = RF_BOOL,
     .argv_order = 17, .help = "no progress lines"},
    {.flag = "keep-parts", .main_usage = 1, .kind = RO_BOOL, .offset = F(keep_parts), .type = RF_BOOL,
     .argv_order = 18, .help = "keep the per-rank HDF5 files (OUT.h5.parts/)"},
    {.flag = "resume", .main_usage = 1, .kind = RO_BOOL, .offset = F(resume), .type = RF_BOOL, .argv_order = 20,
     .help = "reuse the finished tasks of an earlier killed or failed run of the\nsame job (OUT.h5.parts/), run the "
             "rest (docs/reliability.md)"},
    {.flag = "shard", .main_usage = 1, .arg = "I/N|auto", .kind = RO_SHARD, .argv_order = 12,
     .help = "shard I of N of a SLURM array (auto: SLURM_ARRAY_TASK_*): run this\nshard's share of the files, write a "
             "shard file to --out; then\n`sitepack merge` (docs/slurm.md)"},
    {.flag = "help", .short_flag = 'h', .kind = RO_HELP, .argv_order = 25, .help = "this text"},
};
const size_t sp_run_opts_n = sizeof sp_run_opts / sizeof *sp_run_opts;

/* ---- the field of a row ---------------------------------------------------------------------------------- */

static void *field(const sp_run_opt *o, sp_job *job) { return (char *)job + o->offset; }

/* A number or boolean field as a double. */
static double get_value(const sp_run_opt *o, const sp_job *job) {
  const void *p = (const char *)job + o->offset;
  switch (o->type) {
  case RF_FLOAT: return *(const float *)p;
  case RF_DOUBLE: return *(const double *)p;
  case RF_SIZE: return (double)*(const size_t *)p;
  case RF_I64: return (double)*(const int64_t *)p;
  case RF_INT: return *(const int *)p;
  case RF_BOOL: return *(const bool *)p;
  default: return 0;
  }
}

/* A number or boolean field set to @p v (a whole number for the integer types). */
static void set_value(const sp_run_opt *o, sp_job *job, double v) {
  void *p = field(o, job);
  switch (o->type) {
  case RF_FLOAT: *(float *)p = (float)v; break;
  case RF_DOUBLE: *(double *)p = v; break;
  case RF_SIZE: *(size_t *)p = (size_t)v; break;
  case RF_I64: *(int64_t *)p = (int64_t)v; break;
  case RF_INT: *(int *)p = (int)v; break;
  case RF_BOOL: *(bool *)p = v != 0; break;
  default: break;
  }
}

/* An RO_BOOL's logical value (the key's true/false) onto its field. */
static void set_bool(const sp_run_opt *o, sp_job *job, int on) { set_value(o, job, o->invert ? !on : on); }

static int bad(const char *what, const char *detail) {
  fprintf(stderr, "sitepack run: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
  return SP_EXIT_USAGE;
}

/* A path field set to a copy of @p v (the job file's: resolved against @p dir). Returns 0 or SP_EXIT_USAGE. */
static int set_path(const sp_run_opt *o, sp_job *job, const char *dir, const char *v) {
  char **dst = field(o, job);
  size_t n = (dir && v[0] != '/' ? strlen(dir) + 1 : 0) + strlen(v) + 1;
  char *d = malloc(n);
  if (!d) return bad("out of memory", NULL);
  if (dir && v[0] != '/') snprintf(d, n, "%s/%s", dir, v);
  else memcpy(d, v, n);
  free(*dst);
  *dst = d;
  return 0;
}

/* ---- getopt_long ----------------------------------------------------------------------------------------- */

enum { VAL_BASE = 256 }; /* a long option's val: VAL_BASE + 2 * row (+ 1 for its no_flag) */

void sp_run_longopts(struct option *out, char *shortopts, size_t cap) {
  size_t n = 0, k = 0;
  for (int pos = 0; pos < (int)sp_run_opts_n; pos++)
    for (size_t i = 0; i < sp_run_opts_n; i++) {
      const sp_run_opt *o = &sp_run_opts[i];
      if (o->argv_order != pos) continue;
      int has_arg = o->kind == RO_BOOL || o->kind == RO_HELP ? no_argument : required_argument;
      int val = o->short_flag ? o->short_flag : VAL_BASE + 2 * (int)i;
      if (o->flag && n + 1 < SP_RUN_LONGOPTS_CAP) out[n++] = (struct option){o->flag, has_arg, NULL, val};
      if (o->alias && n + 1 < SP_RUN_LONGOPTS_CAP) out[n++] = (struct option){o->alias, has_arg, NULL, val};
      if (o->no_flag && n + 1 < SP_RUN_LONGOPTS_CAP) out[n++] = (struct option){o->no_flag, no_argument, NULL, val + 1};
    }
  out[n] = (struct option){NULL, 0, NULL, 0};
  for (size_t i = 0; i < sp_run_opts_n; i++)
    if (sp_run_opts[i].short_flag && k + 1 < cap) shortopts[k++] = sp_run_opts[i].short_flag;
  shortopts[k] = 0;
}

const sp_run_opt *sp_run_opt_of(int val, int *negated) {
  *negated = 0;
  if (val < VAL_BASE) {
    for (size_t i = 0; i < sp_run_opts_n; i++)
      if (val && sp_run_opts[i].short_flag == val) return &sp_run_opts[i];
    return NULL;
  }
  size_t i = (size_t)(val - VAL_BASE) / 2;
  *negated = (val - VAL_BASE) % 2;
  return i < sp_run_opts_n ? &sp_run_opts[i] : NULL;
}

/* ---- flags ----------------------------------------------------------------------------------------------- */

int sp_run_opt_apply_flag(const sp_run_opt *o, int negated, const char *v, sp_job *job) {
  char opt[64], msg[256];
  snprintf(opt, sizeof opt, "--%s", o->flag ? o->flag : o->no_flag);
  double d;
  int64_t n;
  switch (o->kind) {
  case RO_PATH:
    if (v[0]) return set_path(o, job, NULL, v);
    fprintf(stderr, "sitepack run: %s must name a file, got an empty string\n", opt); /* issue 16 item 10 */
    return SP_EXIT_USAGE;
  case RO_NUMBER:
    if (sp_opt_double("run", opt, v, o->lo, o->lo_open, o->hi, &d)) return SP_EXIT_USAGE;
    set_value(o, job, d);
    return 0;
  case RO_INTEGER:
    if (sp_opt_int("run", opt, v, (int64_t)o->lo, (int64_t)o->hi, &n)) return SP_EXIT_USAGE;
    set_value(o, job, (double)n);
    return 0;
  case RO_CHOICE:
    if (strcmp(v, o->choices[0]) && strcmp(v, o->choices[1])) {
      snprintf(msg, sizeof msg, "%s must be %s or %s", opt, o->choices[0], o->choices[1]);
      return bad(msg, v);
    }
    set_value(o, job, !strcmp(v, o->choices[1]));
    return 0;
  case RO_BOOL: set_bool(o, job, !negated); return 0;
  case RO_SHARD: /* issue 8 (slurm): cmd_merge.h sp_shard_parse() */
    return sp_shard_parse(v, &job->shard_index, &job->shard_count, msg, sizeof msg) ? bad(msg, NULL) : 0;
  case RO_HELP: return 0;
  }
  return bad("internal error: unhandled option", NULL);
}

/* ---- job-file keys --------------------------------------------------------------------------------------- */

/* Issue 16 item 9: job-file numbers follow the flags' rules. The error names the key, the value as written by
 * cJSON, and the range. */
static int key_value_error(const cJSON *v, const char *key, const char *what) {
  char *text = cJSON_PrintUnformatted(v);
  fprintf(stderr, "sitepack run: job file: %s must be %s, got %s\n", key, what, text ? text : "?");
  cJSON_free(text);
  return SP_EXIT_USAGE;
}

/* An integer key takes a JSON number that is a whole number in [lo, hi] (1.5 and 1e20 are refused, never rounded
 * or wrapped); a number key a finite number in [lo, hi] ((lo, hi] with lo_open). Returns 0 or SP_EXIT_USAGE. */
static int key_number(const sp_run_opt *o, const cJSON *v) {
  double d = cJSON_IsNumber(v) ? v->valuedouble : NAN;
  char what[96];
  if (o->kind == RO_INTEGER && !(d >= o->lo && d <= o->hi && d == floor(d))) {
    snprintf(what, sizeof what, "an integer in [%lld, %lld]", (long long)o->lo, (long long)o->hi);
    return key_value_error(v, o->key, what);
  } else if (o->kind == RO_NUMBER && !(isfinite(d) && d >= o->lo && !(o->lo_open && d == o->lo) && d <= o->hi)) {
    snprintf(what, sizeof what, "a number in %c%g, %g]", o->lo_open ? '(' : '[', o->lo, o->hi);
    return key_value_error(v, o->key, what);
  }
  return 0;
}

/* A path key: a string, never empty. Returns 0 or SP_EXIT_USAGE. */
static int key_path(const sp_run_opt *o, const cJSON *v, const char *dir, sp_job *job) {
  if (!cJSON_IsString(v)) return bad("job file: value must be a string", o->key);
  if (!v->valuestring[0]) {
    fprintf(stderr, "sitepack run: job file: %s must name a file, got an empty string\n", o->key);
    return SP_EXIT_USAGE;
  }
  return set_path(o, job, dir, v->valuestring);
}

/* A boolean key: true or false (the message of a top-level key, "steal", has no value, as before the table). */
static int key_bool(const sp_run_opt *o, const cJSON *v, sp_job *job) {
  if (!cJSON_IsBool(v)) {
    if (strchr(o->key, '.')) return key_value_error(v, o->key, "true or false");
    fprintf(stderr, "sitepack run: job file: %s must be true or false\n", o->key);
    return SP_EXIT_USAGE;
  }
  set_bool(o, job, cJSON_IsTrue(v));
  return 0;
}

int sp_run_opt_apply_key(const sp_run_opt *o, const cJSON *v, const char *dir, sp_job *job) {
  char msg[256];
  int rc;
  switch (o->kind) {
  case RO_PATH: return key_path(o, v, dir, job);
  case RO_NUMBER:
  case RO_INTEGER:
    if (!(rc = key_number(o, v))) set_value(o, job, v->valuedouble);
    return rc;
  case RO_CHOICE:
    if (!cJSON_IsString(v) || (strcmp(v->valuestring, o->choices[0]) && strcmp(v->valuestring, o->choices[1]))) {
      snprintf(msg, sizeof msg, "job file: %s must be \"%s\" or \"%s\"", o->key, o->choices[0], o->choices[1]);
      return bad(msg, NULL);
    }
    set_value(o, job, !strcmp(v->valuestring, o->choices[1]));
    return 0;
  case RO_BOOL: return key_bool(o, v, job);
  default: return bad("internal error: unhandled key", o->key);
  }
}

/* 1 when key @p k ("section.name" or "name") is @p name in @p section ("" or NULL: the top level). */
static int key_is(const char *k, const char *section, const char *name) {
  size_t s = section ? strlen(section) : 0;
  if (!s) return !strchr(k, '.') && !strcmp(k, name);
  return !strncmp(k, section, s) && k[s] == '.' && !strcmp(k + s + 1, name);
}

const sp_run_opt *sp_run_opt_by_key(const char *section, const char *name) {
  for (size_t i = 0; i < sp_run_opts_n; i++)
    if (sp_run_opts[i].key && key_is(sp_run_opts[i].key, section, name)) return &sp_run_opts[i];
  return NULL;
}

/* The length of the section of key @p k ("site" of "site.cutoff"), 0 at the top level. */
static size_t section_len(const char *k) {
  const char *dot = strchr(k, '.');
  return dot ? (size_t)(dot - k) : 0;
}

int sp_run_opt_is_section(const char *name) {
  for (size_t i = 0; i < sp_run_opts_n; i++) {
    const char *k = sp_run_opts[i].key;
    if (k && section_len(k) == strlen(name) && !strncmp(k, name, strlen(name))) return 1;
  }
  return 0;
}

void sp_run_opt_section_keys(const char *section, char *buf, size_t cap) {
  size_t len = 0, s = strlen(section);
  buf[0] = 0;
  for (size_t i = 0; i < sp_run_opts_n; i++) {
    const char *k = sp_run_opts[i].key;
    if (!k || section_len(k) != s || strncmp(k, section, s)) continue;
    int w = snprintf(buf + len, cap - len, "%s%s", len ? ", " : "", k + s + 1);
    if (w > 0 && (size_t)w < cap - len) len += (size_t)w;
  }
}

/* ---- --help ---------------------------------------------------------------------------------------------- */

/* The help's text @p text on @p f, its first line after @p lead (padded to the text column), each further
 * line ('\n') indented to it, then @p tail (or nothing) on the last line. */
static void help_text(FILE *f, const char *lead, const char *text, const char *tail) {
  enum { COL = 24 };
  int n = fprintf(f, "  %s", lead);
  fprintf(f, "%*s", n < COL ? COL - n : 2, ""); /* past the column: two spaces */
  for (const char *p = text; *p;) {
    const char *nl = strchr(p, '\n');
    size_t l = nl ? (size_t)(nl - p) : strlen(p);
    fprintf(f, "%.*s%s\n", (int)l, p, nl ? "" : tail ? tail : "");
    if (!nl) break;
    fprintf(f, "%*s", COL, "");
    p = nl + 1;
  }
}

/* Row @p o as "[--flag ARG]" (a choice: "a|b") into @p buf [cap]. */
static void usage_item(const sp_run_opt *o, char *buf, size_t cap) {
  const char *name = o->flag ? o->flag : o->no_flag;
  if (o->kind == RO_CHOICE) snprintf(buf, cap, "[--%s %s|%s]", name, o->choices[0], o->choices[1]);
  else if (o->arg) snprintf(buf, cap, "[--%s %s]", name, o->arg);
  else snprintf(buf, cap, "[--%s]", name);
}

void sp_run_opts_usage(FILE *f, const char *lead, const char *first, const char *last) {
  enum { WIDTH = 100 };
  int indent = fprintf(f, "  %s ", lead), col = indent + fprintf(f, "%s", first);
  char item[128];
  for (size_t i = 0; i <= sp_run_opts_n; i++) {
    if (i < sp_run_opts_n && !sp_run_opts[i].main_usage) continue;
    if (i < sp_run_opts_n) usage_item(&sp_run_opts[i], item, sizeof item);
    else snprintf(item, sizeof item, "%s", last);
    if (col > indent && col + 1 + (int)strlen(item) > WIDTH) col = fprintf(f, "\n%*s", indent, "") - 1;
    else if (col > indent) col += fprintf(f, " ");
    col += fprintf(f, "%s", item);
  }
  fprintf(f, "\n");
}

/* One option's lines of --help. */
static void help_option(FILE *f, const sp_run_opt *o) {
  char lead[96], tail[160] = "";
  const char *name = o->flag ? o->flag : o->no_flag;
  if (o->kind == RO_CHOICE) snprintf(lead, sizeof lead, "--%s %s|%s", name, o->choices[0], o->choices[1]);
  else if (o->arg) snprintf(lead, sizeof lead, "--%s %s", name, o->arg);
  else if (o->short_flag) snprintf(lead, sizeof lead, "--%s, -%c", name, o->short_flag);
  else snprintf(lead, sizeof lead, "--%s", name);
  if (o->alias) snprintf(tail, sizeof tail, "; --%s too", o->alias);
  if (o->flag && o->no_flag && o->key) snprintf(tail, sizeof tail, "\n%24s--%s turns a job file's %s off", "",
                                                o->no_flag, o->key);
  help_text(f, lead, o->help, tail);
}

/* The "job file keys:" paragraph: the top-level keys and each section's keys, in the table's order, wrapped. */
static void help_keys(FILE *f) {
  enum { WIDTH = 118, INDENT = 15 }; /* INDENT: strlen("job file keys: ") */
  int col = fprintf(f, "job file keys: "), first = 1;
  for (size_t i = 0; i < sp_run_opts_n; i++) {
    const char *k = sp_run_opts[i].key;
    size_t s = k ? section_len(k) : 0;
    int seen = 0; /* a section is one item, at its first key */
    for (size_t j = 0; k && s && j < i; j++)
      seen |= sp_run_opts[j].key && section_len(sp_run_opts[j].key) == s && !strncmp(sp_run_opts[j].key, k, s);
    if (!k || seen) continue;
    char item[512], keys[400];
    if (s) {
      snprintf(item, sizeof item, "%.*s", (int)s, k);
      sp_run_opt_section_keys(item, keys, sizeof keys);
      snprintf(item, sizeof item, "%.*s: {%s}", (int)s, k, keys);
    } else {
      snprintf(item, sizeof item, "%s%s", k, sp_run_opts[i].kind == RO_BOOL ? " (true/false)" : "");
    }
    if (!first && col + (int)strlen(item) + 2 > WIDTH) {
      fputs(",\n", f);
      col = fprintf(f, "%*s", INDENT, "");
    } else if (!first) {
      col += fprintf(f, ", ");
    }
    col += fprintf(f, "%s", item);
    first = 0;
  }
  fprintf(f, "\n");
}

void sp_run_opts_help(FILE *f) {
  for (size_t i = 0; i < sp_run_opts_n; i++) help_option(f, &sp_run_opts[i]);
  fprintf(f, "\n");
  help_keys(f);
}

/* ---- the recorded job ------------------------------------------------------------------------------------ */

void sp_run_job_defaults(sp_job *job) {
  memset(job, 0, sizeof *job);
  sp_task_opts_default(&job->opts);
  sp_split_opts_default(&job->split);
}

/* 1 when row @p o of @p job differs from its default in @p def. */
static int changed(const sp_run_opt *o, const sp_job *job, const sp_job *def) {
  if (o->type == RF_STR) return *(char *const *)((const char *)job + o->offset) != NULL;
  return get_value(o, job) != get_value(o, def);
}

/* Row @p o's value in the JSON object @p obj under @p name. */
static void record_value(cJSON *obj, const char *name, const sp_run_opt *o, const sp_job *job) {
  double v = get_value(o, job);
  if (o->type == RF_STR) cJSON_AddStringToObject(obj, name, *(char *const *)((const char *)job + o->offset));
  else if (o->kind == RO_CHOICE) cJSON_AddStringToObject(obj, name, o->choices[v != 0]);
  else if (o->kind == RO_BOOL) cJSON_AddBoolToObject(obj, name, o->invert ? v == 0 : v != 0);
  else cJSON_AddNumberToObject(obj, name, v);
}

cJSON *sp_run_opts_record(const sp_job *job) {
  sp_job def;
  sp_run_job_defaults(&def);
  cJSON *j = cJSON_CreateObject();
  for (size_t i = 0; j && i < sp_run_opts_n; i++) {
    const sp_run_opt *o = &sp_run_opts[i];
    if (!o->key || o->record == RR_NO || (o->record == RR_CHANGED && !changed(o, job, &def))) continue;
    size_t s = section_len(o->key);
    cJSON *obj = j;
    if (s) { /* the section's object, made at its first recorded key */
      char sec[64];
      snprintf(sec, sizeof sec, "%.*s", (int)s, o->key);
      obj = cJSON_GetObjectItemCaseSensitive(j, sec);
      if (!obj) obj = cJSON_AddObjectToObject(j, sec);
    }
    if (obj) record_value(obj, o->key + (s ? s + 1 : 0), o, job);
  }
  return j;
}

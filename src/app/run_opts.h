/* `sitepack run`: the options in one table (issue 33 item 6). Each row is one option of the job: its flags, its
 * job-file key, its value's kind and range, the sp_job field it sets, whether the recorded job (/run@job_json)
 * holds it, and its --help text. The getopt_long options, the job-file parser, the range checks and their error
 * texts, --help and the recorded job are all made from the table (job.c); docs/usage.md's option table says the
 * same (tests/integration/run_options.py checks both). Private to src/app. */
#ifndef SITEPACK_APP_RUN_OPTS_H
#define SITEPACK_APP_RUN_OPTS_H

#include <cjson/cJSON.h>
#include <getopt.h>
#include <stddef.h>
#include <stdio.h>

#include "app/app.h"

typedef enum {
  RO_PATH,    /* a file or directory name, never empty; a job file's is relative to its directory */
  RO_NUMBER,  /* a finite decimal number in [lo, hi] ((lo, hi] with lo_open) */
  RO_INTEGER, /* a whole number in [lo, hi] */
  RO_CHOICE,  /* one of choices[0] (the default) and choices[1]; the field holds 1 for choices[1] */
  RO_BOOL,    /* flag: true, no_flag: false, the key: true or false */
  RO_SHARD,   /* --shard I/N|auto (cmd_merge.h sp_shard_parse) */
  RO_HELP     /* --help: print the help */
} sp_run_opt_kind;

typedef enum { RF_NONE, RF_STR, RF_FLOAT, RF_DOUBLE, RF_SIZE, RF_I64, RF_INT, RF_BOOL } sp_run_field;

typedef enum {
  RR_NO,      /* not in the recorded job: it does not change the merged content */
  RR_ALWAYS,  /* always recorded */
  RR_CHANGED  /* recorded when not at its default (a job without it records what it did before it existed) */
} sp_run_record;

typedef struct sp_run_opt {
  const char *flag;       /* long option without "--"; NULL: none (an RO_BOOL set by its no_flag only) */
  const char *no_flag;    /* RO_BOOL: the long option that sets it false; NULL: none */
  const char *alias;      /* another long name of flag; NULL: none */
  char short_flag;        /* 'q' for -q; 0: none */
  const char *arg;        /* the value's name in --help ("FILE.h5"); NULL: no value (an RO_CHOICE shows "a|b") */
  const char *key;        /* job-file key, "name" or "section.name"; NULL: command line only */
  sp_run_opt_kind kind;
  double lo, hi;          /* RO_NUMBER, RO_INTEGER: the range */
  int lo_open;            /* 1: lo itself excluded */
  const char *choices[2]; /* RO_CHOICE */
  size_t offset;          /* the sp_job field (offsetof) */
  sp_run_field type;      /* its C type */
  int invert;             /* RO_BOOL: the field holds the negation of the key (steal: no_steal) */
  sp_run_record record;
  int argv_order;         /* the row's place among getopt_long's options, the order of an ambiguous prefix's
                             candidates ("could be --shard, --split-min-bytes, ..."), unchanged since before the
                             table (tests/integration/cli.sh) */
  const char *help;       /* --help text; '\n' starts a continuation line */
  int main_usage;         /* 1: also in the run line of `sitepack --help` */
} sp_run_opt;

/* The table: sp_run_opts[0 .. sp_run_opts_n - 1], in the job's order (the recorded job's keys, the job file's
 * sections and their keys, --help). */
extern const sp_run_opt sp_run_opts[];
extern const size_t sp_run_opts_n;

/* Room for sp_run_longopts(): every flag, no_flag and alias, and the terminating row. */
enum { SP_RUN_LONGOPTS_CAP = 64 };

/* The getopt_long options of the table into @p out [SP_RUN_LONGOPTS_CAP] (ending with a zero row, in
 * argv_order) and the short options into @p shortopts [cap >= 8] ("hq"). An option's val names its row
 * and sign: decode it with sp_run_opt_of(). */
void sp_run_longopts(struct option *out, char *shortopts, size_t cap);

/* The row of getopt_long's @p val (from sp_run_longopts), NULL for none; *negated: 1 for a no_flag. */
const sp_run_opt *sp_run_opt_of(int val, int *negated);

/* The row of job-file key @p name in @p section ("" or NULL: the top level), NULL for none. */
const sp_run_opt *sp_run_opt_by_key(const char *section, const char *name);

/* 1 when @p name is a section of the job file (some key is "name.x"). */
int sp_run_opt_is_section(const char *name);

/* The keys of @p section, "a, b, c", into @p buf [cap] (the "known:" list of an unknown key). */
void sp_run_opt_section_keys(const char *section, char *buf, size_t cap);

/* Flag @p o (its no_flag when @p negated) with value @p v (NULL for none) onto @p job. Returns 0;
 * SP_EXIT_USAGE after printing "sitepack run: --cutoff must be a number in (0, 50], got '60'" and the like. */
int sp_run_opt_apply_flag(const sp_run_opt *o, int negated, const char *v, sp_job *job);

/* Job-file key @p o with JSON value @p v onto @p job; a path is resolved against @p dir (the job file's
 * directory; NULL: as written). Returns 0; SP_EXIT_USAGE after printing "sitepack run: job file:
 * site.cutoff must be a number in (0, 50], got 60" and the like. */
int sp_run_opt_apply_key(const sp_run_opt *o, const cJSON *v, const char *dir, sp_job *job);

/* The run line of `sitepack --help` on @p f: "  " @p lead " " @p first, then "[--flag ARG]" of each main_usage
 * row and @p last, wrapped at 100 columns under @p first. */
void sp_run_opts_usage(FILE *f, const char *lead, const char *first, const char *last);

/* The option lines of --help and the "job file keys:" paragraph, on @p f. */
void sp_run_opts_help(FILE *f);

/* @p job zeroed, with every option at its default (sp_task_opts_default, sp_split_opts_default). */
void sp_run_job_defaults(sp_job *job);

/* The recorded job of @p job (the RR_ALWAYS rows, and the RR_CHANGED rows not at their default), as new JSON
 * (owned by the caller); NULL when out of memory. */
cJSON *sp_run_opts_record(const sp_job *job);

#endif

/* sitepack CLI: the survey's tables and counts of a merged file, shared by `sitepack survey` (survey_cmd.c,
 * which prints them) and `sitepack report` (report_html*.c, which draws them), so that both give the same
 * numbers. Tables are read through sp_dump (TSV, store.h): this code depends on the documented columns of
 * docs/format.md only. Not a public header. */
#ifndef SITEPACK_SURVEY_DATA_H
#define SITEPACK_SURVEY_DATA_H

#include <stdbool.h>
#include <stddef.h>

#include "sitepack/ccd.h"
#include "sitepack/error.h"
#include "sitepack/survey.h"

/* One table of sp_dump in memory: the dump's text, fields NUL-separated in place. */
typedef struct sp_table {
  char *text;
  size_t n_rows, n_cols;
  char **cell; /* [n_rows * n_cols] */
  char **head; /* [n_cols] */
} sp_table;

/* Dump table @p name of @p path (sp_dump) into @p t. 0; the error of sp_dump; SP_E_NOMEM; SP_E_FORMAT (no
 * header line). On an error @p t is empty. */
int sp_table_load(const char *path, const char *name, sp_table *t, sp_err *err);
void sp_table_free(sp_table *t);
/* The column named @p name, or -1. */
int sp_table_col(const sp_table *t, const char *name);
/* Cell (@p r, @p c): a NUL-terminated field ("" for a missing one). */
static inline const char *sp_table_at(const sp_table *t, size_t r, int c) {
  return t->cell[r * t->n_cols + (size_t)c];
}

/* Per /components row (one per comp id, sorted): its instances, distinct molecule keys, classes seen. */
typedef struct sp_comp_stat {
  const char *comp_id;
  size_t instances;
  size_t n_keys, cap_keys;
  const char **keys; /* distinct molecule keys of its instances (non-empty) */
  unsigned classes;  /* bit per class seen */
} sp_comp_stat;

/* One survey: the options, the tables, and what is counted from them. */
typedef struct sp_file_survey {
  const char *cmd;                /* command name for messages ("survey", "report") */
  const char *path, *ccd_arg;
  bool per_comp, quiet;
  sp_table st, lg, cp, ch;        /* structures, ligands, components, chains (empty for a version-2 file) */
  int s_status, l_comp, l_class, l_key, c_comp, c_in, c_key, c_src; /* column indices */
  size_t n_ok;                    /* structures with status ok */
  size_t by_status[SP_ERRCLASS_COUNT]; /* the others, by error class (error.h names; duplicate and
                                          repeated_entry are not processed: not failed) */
  size_t n_other;                 /* a status that names no class (a file of another build) */
  sp_comp_stat *cs;               /* [nc] per /components row */
  size_t nc;
  const char **allkeys;           /* molecule keys of the instances that have one, sorted */
  size_t n_allkeys, n_nokey, n_mol, n_not_in;
  size_t by_class[SP_CLASS_COUNT];
  sp_ccd *ccd;                    /* to confirm key groups; NULL when none or unreadable */
  size_t *order, no;              /* /components rows with a key, sorted by key */
} sp_file_survey;

/* The protein context (docs/format.md "/chains", "/ligands"): chains, UniProt coverage, chains per polymer
 * type, PLINDER systems. */
typedef struct sp_fsurvey_context {
  bool present;                   /* the columns exist (false for files without /chains or systems) */
  size_t n_chains, n_unp, n_acc;  /* chains; with a UNP reference; distinct UniProt accessions */
  size_t n_types;                 /* distinct chain types ... */
  const char **type_name;         /* [n_types] sorted ("" for none) ... */
  size_t *type_count;             /* [n_types] their chains */
  size_t n_sys, n_multi, in_multi;/* systems; of 2+ ligands; ligands in those */
  long largest;                   /* ligands of the largest system */
} sp_fsurvey_context;

/* Counts of the comp-id groups sharing a molecule key (2 or more comp ids). */
typedef struct sp_key_groups {
  size_t groups, confirmed, collisions, unconfirmed;
} sp_key_groups;

void sp_fsurvey_free(sp_file_survey *s);
/* The file passes sitepack check's checks (sp_check), then /structures, /ligands, /components and /chains
 * (absent in version 2) load, a --ccd (s->ccd_arg) opens. -1 to go on, else the exit status after printing
 * why ("sitepack CMD: CLASS: MSG", sp_opt_input_error). */
int sp_fsurvey_load(sp_file_survey *s);
/* Count structures, instances by class, keys, and per comp id. 0 or -1 (out of memory). */
int sp_fsurvey_count(sp_file_survey *s);
/* The protein context into @p c (free with sp_fsurvey_context_free). 0 or -1 (out of memory). */
int sp_fsurvey_context_get(const sp_file_survey *s, sp_fsurvey_context *c);
void sp_fsurvey_context_free(sp_fsurvey_context *c);
/* The CCD to confirm key groups with: --ccd, else /run@ccd_path; none or unreadable leaves s->ccd NULL. */
void sp_fsurvey_open_ccd(sp_file_survey *s);
/* The /components rows with a key, sorted by key (s->order). 0 or -1 (out of memory). */
int sp_fsurvey_sort_by_key(sp_file_survey *s);
/* Walk the key groups of s->order: @p each (may be NULL) is called per group order[i, j) with its verdict
 * ("confirmed", "collision", "undecided", "unconfirmed": exact isomorphism of the CCD definitions); the
 * counts go to @p g. */
void sp_fsurvey_key_groups(const sp_file_survey *s, void (*each)(const sp_file_survey *, size_t, size_t, const char *, void *),
                          void *arg, sp_key_groups *g);
/* Failed structures (not ok, not duplicate, not repeated_entry). */
size_t sp_fsurvey_failed(const sp_file_survey *s);

#endif

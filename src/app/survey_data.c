/* The survey's tables and counts of a merged file (app/survey_data.h), shared by `sitepack survey` and
 * `sitepack report`. Tables are read through sp_dump (TSV, store.h), so this file depends on the documented
 * columns of docs/format.md only; the CCD path comes from the /run attribute ccd_path (store.h
 * sp_run_attr_str()). */
#define _GNU_SOURCE 1 /* open_memstream */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/app.h"
#include "app/cli_opts.h"
#include "app/survey_data.h"
#include "sitepack/io.h"
#include "sitepack/molkey.h"
#include "sitepack/store.h"

/* ------------------------------------------------------------ a TSV table in memory */

void sp_table_free(sp_table *t) {
  free(t->text);
  free(t->cell);
  free(t->head);
  memset(t, 0, sizeof *t);
}

/* Split the dump's lines (header, t->n_rows rows) and fields in place. */
static void table_split(sp_table *t) {
  char *p = t->text, *nl;
  size_t nc = t->n_cols;
  for (size_t r = 0; r <= t->n_rows; ++r) {
    nl = strchr(p, '\n');
    if (!nl) break;
    *nl = 0;
    char **dst = r ? t->cell + (r - 1) * nc : t->head;
    size_t c = 0;
    for (char *f = p;;) {
      char *tab = strchr(f, '\t');
      if (tab) *tab = 0;
      if (c < nc) dst[c++] = f;
      if (!tab) break;
      f = tab + 1;
    }
    for (; c < nc; ++c) dst[c] = nl; /* missing fields: "" */
    p = nl + 1;
  }
}

int sp_table_load(const char *path, const char *name, sp_table *t, sp_err *err) {
  memset(t, 0, sizeof *t);
  size_t len = 0;
  FILE *m = open_memstream(&t->text, &len);
  if (!m) return sp_err_set(err, SP_E_NOMEM, "out of memory (table %s)", name);
  int rc = sp_dump(path, name, m, err);
  fclose(m);
  if (rc) {
    sp_table_free(t);
    return rc;
  }
  size_t lines = 0;
  for (size_t i = 0; i < len; ++i) lines += t->text[i] == '\n';
  if (!lines) {
    sp_table_free(t);
    return sp_err_set(err, SP_E_FORMAT, "%s: table %s has no header", path, name);
  }
  char *nl = strchr(t->text, '\n');
  size_t nc = 1;
  for (char *q = t->text; q < nl; ++q) nc += *q == '\t';
  t->n_cols = nc;
  t->n_rows = lines - 1;
  t->head = calloc(nc, sizeof *t->head);
  t->cell = calloc((t->n_rows ? t->n_rows : 1) * nc, sizeof *t->cell);
  if (!t->head || !t->cell) {
    sp_table_free(t);
    return sp_err_set(err, SP_E_NOMEM, "out of memory (table %s)", name);
  }
  table_split(t);
  return 0;
}

int sp_table_col(const sp_table *t, const char *name) {
  for (size_t c = 0; c < t->n_cols; ++c)
    if (!strcmp(t->head[c], name)) return (int)c;
  return -1;
}

#define at sp_table_at
#define col sp_table_col

/* ------------------------------------------------------------ helpers */

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static int comp_find(sp_comp_stat *cs, size_t n, const char *id) {
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t m = lo + (hi - lo) / 2;
    int c = strcmp(cs[m].comp_id, id);
    if (!c) return (int)m;
    if (c < 0) lo = m + 1;
    else hi = m;
  }
  return -1;
}

static int class_index(const char *name) {
  for (int k = 0; k < SP_CLASS_COUNT; ++k)
    if (!strcmp(sp_ligand_class_name(k), name)) return k;
  return -1;
}

void sp_fsurvey_free(sp_file_survey *s) {
  if (s->cs)
    for (size_t r = 0; r < s->cp.n_rows; ++r) free(s->cs[r].keys);
  free(s->cs);
  free(s->allkeys);
  free(s->order);
  sp_ccd_close(s->ccd);
  sp_table_free(&s->st);
  sp_table_free(&s->lg);
  sp_table_free(&s->cp);
  sp_table_free(&s->ch);
}

/* --ccd names a CCD other than the run's (its SHA-256, as stored, differs from /run@ccd_sha256): say so,
   since the key groups are then confirmed against definitions the run did not use (fresh-user trial). */
static void warn_other_ccd(const sp_file_survey *s) {
  char run_sha[80] = "", sha[65] = "";
  int64_t bytes = 0;
  int gz = 0;
  if (sp_run_attr_str(s->path, "ccd_sha256", run_sha, sizeof run_sha, NULL) || !run_sha[0]) return;
  if (sp_file_digest(s->ccd_arg, sha, &bytes, &gz, NULL) || !strcmp(sha, run_sha)) return;
  fprintf(stderr, "sitepack %s: warning: CCD %s is not the file the run read (SHA-256 of its stored bytes %.12s..., /run@ccd_sha256 %.12s...): "
          "key groups are confirmed against it\n", s->cmd, s->ccd_arg, sha, run_sha);
}

/* The columns the counts use; -1 to go on, else the exit status after saying which is missing. */
static int find_columns(sp_file_survey *s) {
  s->s_status = col(&s->st, "status");
  s->l_comp = col(&s->lg, "comp_id");
  s->l_class = col(&s->lg, "class");
  s->l_key = col(&s->lg, "molecule_key");
  s->c_comp = col(&s->cp, "comp_id");
  s->c_in = col(&s->cp, "in_ccd");
  s->c_key = col(&s->cp, "molecule_key");
  s->c_src = col(&s->cp, "key_source");
  if (s->s_status < 0 || s->l_comp < 0 || s->l_class < 0 || s->l_key < 0 || s->c_comp < 0 || s->c_in < 0 ||
      s->c_key < 0 || s->c_src < 0) {
    fprintf(stderr, "sitepack %s: %s: a column of docs/format.md is missing\n", s->cmd, s->path);
    return SP_EXIT_RUNTIME;
  }
  return -1;
}

int sp_fsurvey_load(sp_file_survey *s) {
  sp_err err = {0};
  /* the counts below trust the tables (sorted /components, classes, structure indices): the file passes
     sitepack check's checks first (a damaged-file hunt: swapped /components rows dropped a comp id, exit 0) */
  int rc = sp_check(s->path, 0, 1, NULL, &err);
  if (rc) {
    sp_opt_input_error(s->cmd, s->path, rc, err.msg);
    return rc == SP_E_NOT_FOUND || rc == SP_E_INVALID ? SP_EXIT_USAGE : SP_EXIT_RUNTIME;
  }
  rc = sp_table_load(s->path, "structures", &s->st, &err);
  if (!rc) rc = sp_table_load(s->path, "ligands", &s->lg, &err);
  if (!rc) rc = sp_table_load(s->path, "components", &s->cp, &err);
  if (rc) {
    sp_opt_input_error(s->cmd, s->path, rc, err.msg);
    return SP_EXIT_RUNTIME;
  }
  /* a version-2 file has no /chains (docs/format.md "Versions"; sp_dump says not_found): no protein context */
  if ((rc = sp_table_load(s->path, "chains", &s->ch, &err)) && rc != SP_E_NOT_FOUND) {
    sp_opt_input_error(s->cmd, s->path, rc, err.msg);
    return SP_EXIT_RUNTIME;
  }
  /* the run's own CCD, recorded in /run, may have moved since: then the key groups stay
     unconfirmed, with a warning (sp_fsurvey_open_ccd()) */
  if (s->ccd_arg) {
    sp_err cerr = {0};
    if (sp_ccd_open(s->ccd_arg, &s->ccd, &cerr)) {
      sp_opt_file_error(s->cmd, "CCD", s->ccd_arg, cerr.msg, NULL);
      s->ccd = NULL;
      return SP_EXIT_USAGE;
    }
    warn_other_ccd(s);
  }
  return find_columns(s);
}

/* Add @p key to the distinct keys of @p c. 0 or -1 (out of memory). */
static int comp_add_key(sp_comp_stat *c, const char *key) {
  for (size_t j = 0; j < c->n_keys; ++j)
    if (!strcmp(c->keys[j], key)) return 0;
  if (c->n_keys == c->cap_keys) {
    size_t ncap = c->cap_keys ? 2 * c->cap_keys : 4;
    const char **q = realloc(c->keys, ncap * sizeof *q);
    if (!q) return -1;
    c->keys = q;
    c->cap_keys = ncap;
  }
  c->keys[c->n_keys++] = key;
  return 0;
}

/* The /components rows are one per comp id, sorted: docs/format.md. */
int sp_fsurvey_count(sp_file_survey *s) {
  for (size_t r = 0; r < s->st.n_rows; ++r) {
    const char *st = at(&s->st, r, s->s_status);
    int k = sp_errclass_from_name(st);
    if (k == SP_OK) s->n_ok++;
    else if (k > 0) s->by_status[k]++;
    else s->n_other++;
  }
  s->nc = s->cp.n_rows;
  s->cs = calloc(s->nc ? s->nc : 1, sizeof *s->cs);
  s->allkeys = calloc(s->lg.n_rows ? s->lg.n_rows : 1, sizeof *s->allkeys);
  if (!s->cs || !s->allkeys) return -1;
  for (size_t r = 0; r < s->nc; ++r) s->cs[r].comp_id = at(&s->cp, r, s->c_comp);
  for (size_t r = 0; r < s->lg.n_rows; ++r) {
    int k = class_index(at(&s->lg, r, s->l_class));
    if (k >= 0) s->by_class[k]++;
    const char *key = at(&s->lg, r, s->l_key);
    if (*key) s->allkeys[s->n_allkeys++] = key;
    else s->n_nokey++;
    int i = comp_find(s->cs, s->nc, at(&s->lg, r, s->l_comp));
    if (i < 0) continue; /* every ligand's first comp id has a /components row; tolerate otherwise */
    sp_comp_stat *c = &s->cs[i];
    c->instances++;
    if (k >= 0) c->classes |= 1u << k;
    if (*key && comp_add_key(c, key)) return -1;
  }
  qsort(s->allkeys, s->n_allkeys, sizeof *s->allkeys, cmp_str);
  for (size_t i = 0; i < s->n_allkeys; ++i) s->n_mol += !i || strcmp(s->allkeys[i], s->allkeys[i - 1]);
  for (size_t r = 0; r < s->nc; ++r) s->n_not_in += !strcmp(at(&s->cp, r, s->c_in), "0");
  return 0;
}

size_t sp_fsurvey_failed(const sp_file_survey *s) {
  size_t failed = s->n_other;
  for (int k = 1; k < SP_ERRCLASS_COUNT; ++k)
    if (k != SP_E_DUPLICATE && k != SP_E_REPEATED_ENTRY) failed += s->by_status[k];
  return failed;
}

void sp_fsurvey_context_free(sp_fsurvey_context *c) {
  free(c->type_name);
  free(c->type_count);
  memset(c, 0, sizeof *c);
}

/* Chains, their UniProt coverage and types into @p c; @p acc, @p types: scratch of ch->n_rows + 1. */
static void context_chains(const sp_table *ch, int c_db, int c_acc, int c_type, const char **acc,
                           const char **types, sp_fsurvey_context *c) {
  for (size_t r = 0; r < ch->n_rows; ++r) {
    types[r] = at(ch, r, c_type);
    if (strcmp(at(ch, r, c_db), "UNP")) continue;
    acc[c->n_unp++] = at(ch, r, c_acc);
  }
  qsort(acc, c->n_unp, sizeof *acc, cmp_str);
  qsort(types, ch->n_rows, sizeof *types, cmp_str);
  for (size_t i = 0; i < c->n_unp; ++i) c->n_acc += !i || strcmp(acc[i], acc[i - 1]);
  c->n_chains = ch->n_rows;
  for (size_t i = 0, j; i < ch->n_rows; i = j, ++c->n_types) {
    for (j = i; j < ch->n_rows && !strcmp(types[i], types[j]); ++j) {}
    c->type_name[c->n_types] = types[i];
    c->type_count[c->n_types] = j - i;
  }
}

/* The PLINDER systems of the ligands into @p c. */
static void context_systems(const sp_table *lg, int l_st, int l_sys, int l_size, sp_fsurvey_context *c) {
  long next = 0;
  for (size_t r = 0; r < lg->n_rows; ++r) {
    long size = strtol(at(lg, r, l_size), NULL, 10), id = strtol(at(lg, r, l_sys), NULL, 10);
    if (size > c->largest) c->largest = size;
    if (size > 1) c->in_multi++;
    /* ids count up per structure in the order of their first ligand: a new id is a new system */
    if (r == 0 || strcmp(at(lg, r, l_st), at(lg, r - 1, l_st))) next = 0;
    bool first = id == next;
    next += first;
    c->n_sys += first;
    c->n_multi += first && size > 1;
  }
}

int sp_fsurvey_context_get(const sp_file_survey *s, sp_fsurvey_context *c) {
  memset(c, 0, sizeof *c);
  const sp_table *ch = &s->ch, *lg = &s->lg;
  int c_db = col(ch, "db_name"), c_acc = col(ch, "db_accession"), c_type = col(ch, "type");
  int l_st = col(lg, "structure_idx"), l_sys = col(lg, "system_id"), l_size = col(lg, "system_size");
  if (c_db < 0 || c_acc < 0 || c_type < 0 || l_st < 0 || l_sys < 0 || l_size < 0) return 0;
  const char **acc = calloc(ch->n_rows + 1, sizeof *acc), **types = calloc(ch->n_rows + 1, sizeof *types);
  c->type_name = calloc(ch->n_rows + 1, sizeof *c->type_name);
  c->type_count = calloc(ch->n_rows + 1, sizeof *c->type_count);
  int rc = !acc || !types || !c->type_name || !c->type_count ? -1 : 0;
  if (!rc) {
    c->present = true;
    context_chains(ch, c_db, c_acc, c_type, acc, types, c);
    context_systems(lg, l_st, l_sys, l_size, c);
  }
  free(acc);
  free(types);
  if (rc) sp_fsurvey_context_free(c);
  return rc;
}

void sp_fsurvey_open_ccd(sp_file_survey *s) {
  char ccd_path[1024] = "";
  if (s->ccd_arg) snprintf(ccd_path, sizeof ccd_path, "%s", s->ccd_arg);
  else if (sp_run_attr_str(s->path, "ccd_path", ccd_path, sizeof ccd_path, NULL)) ccd_path[0] = 0;
  sp_err cerr = {0};
  if (!s->ccd && ccd_path[0] && sp_ccd_open(ccd_path, &s->ccd, &cerr)) {
    sp_opt_file_error(s->cmd, "CCD", ccd_path, cerr.msg, "(key groups stay unconfirmed)");
    s->ccd = NULL;
  }
}

/* Stable on row order: the (key, row) pairs compare on the key pointer's string. */
int sp_fsurvey_sort_by_key(sp_file_survey *s) {
  s->order = malloc((s->nc ? s->nc : 1) * sizeof *s->order);
  if (!s->order) return -1;
  s->no = 0;
  for (size_t r = 0; r < s->nc; ++r)
    if (*at(&s->cp, r, s->c_key)) s->order[s->no++] = r;
  const char **kk = malloc((s->no ? s->no : 1) * 2 * sizeof *kk);
  if (!kk) return -1;
  for (size_t i = 0; i < s->no; ++i) {
    kk[2 * i] = at(&s->cp, s->order[i], s->c_key);
    kk[2 * i + 1] = (const char *)(uintptr_t)s->order[i];
  }
  qsort(kk, s->no, 2 * sizeof *kk, cmp_str); /* compares the first pointer of each pair: the key */
  for (size_t i = 0; i < s->no; ++i) s->order[i] = (size_t)(uintptr_t)kk[2 * i + 1];
  free(kk);
  return 0;
}

/* The verdict on the key group order[i, j): every member checked exactly against the first, on CCD
 * definitions (key_source ccd): "confirmed", "collision", "undecided" or "unconfirmed". */
static const char *group_verdict(const sp_file_survey *s, size_t i, size_t j) {
  const char *verdict = "confirmed";
  const sp_component *first = NULL;
  for (size_t k = i; k < j; ++k) {
    const char *id = at(&s->cp, s->order[k], s->c_comp);
    const sp_component *c = NULL;
    if (s->ccd && !strcmp(at(&s->cp, s->order[k], s->c_src), "ccd")) c = sp_ccd_get(s->ccd, id, NULL);
    if (!c) return "unconfirmed";
    if (!first) {
      first = c;
      continue;
    }
    int v = SP_ISO_UNDECIDED;
    sp_err ierr = {0};
    if (sp_molkey_component_isomorphic(first, c, false, SP_ISO_DEFAULT_STEPS, &v, NULL, &ierr)) v = SP_ISO_UNDECIDED;
    if (v == SP_ISO_NO) return "collision";
    if (v == SP_ISO_UNDECIDED) verdict = "undecided";
  }
  return verdict;
}

void sp_fsurvey_key_groups(const sp_file_survey *s, void (*each)(const sp_file_survey *, size_t, size_t, const char *, void *),
                          void *arg, sp_key_groups *g) {
  memset(g, 0, sizeof *g);
  for (size_t i = 0; i < s->no;) {
    size_t j = i + 1;
    while (j < s->no && !strcmp(at(&s->cp, s->order[j], s->c_key), at(&s->cp, s->order[i], s->c_key))) ++j;
    if (j - i >= 2) {
      g->groups++;
      const char *verdict = group_verdict(s, i, j);
      if (!strcmp(verdict, "confirmed")) g->confirmed++;
      else if (!strcmp(verdict, "collision")) g->collisions++;
      else g->unconfirmed++;
      if (each) each(s, i, j, verdict, arg);
    }
    i = j;
  }
}

/* `sitepack survey FILE.h5`: the ligand survey summary of a merged file (app/cmd_survey.h).
 * Tables are read through sp_dump (TSV, store.h), so this file depends on the documented
 * columns of docs/format.md only; the CCD path comes from the /run attribute ccd_path (store.h
 * sp_run_attr_str()). */
#define _GNU_SOURCE 1 /* open_memstream */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/app.h"
#include "app/cmd_survey.h"
#include "app/cli_opts.h"
#include "sitepack/ccd.h"
#include "sitepack/io.h"
#include "sitepack/molkey.h"
#include "sitepack/store.h"
#include "sitepack/survey.h"

/* ------------------------------------------------------------ a TSV table in memory */

typedef struct table {
  char *text;      /* the dump, fields NUL-separated in place */
  size_t n_rows, n_cols;
  char **cell;     /* [n_rows * n_cols] */
  char **head;     /* [n_cols] */
} table;

static void table_free(table *t) {
  free(t->text);
  free(t->cell);
  free(t->head);
  memset(t, 0, sizeof *t);
}

static int table_load(const char *path, const char *name, table *t, sp_err *err) {
  memset(t, 0, sizeof *t);
  size_t len = 0;
  FILE *m = open_memstream(&t->text, &len);
  if (!m) return sp_err_set(err, SP_E_NOMEM, "out of memory (table %s)", name);
  int rc = sp_dump(path, name, m, err);
  fclose(m);
  if (rc) {
    table_free(t);
    return rc;
  }
  size_t lines = 0;
  for (size_t i = 0; i < len; ++i) lines += t->text[i] == '\n';
  if (!lines) {
    table_free(t);
    return sp_err_set(err, SP_E_FORMAT, "%s: table %s has no header", path, name);
  }
  char *p = t->text, *nl = strchr(p, '\n');
  size_t nc = 1;
  for (char *q = p; q < nl; ++q) nc += *q == '\t';
  t->n_cols = nc;
  t->n_rows = lines - 1;
  t->head = calloc(nc, sizeof *t->head);
  t->cell = calloc((t->n_rows ? t->n_rows : 1) * nc, sizeof *t->cell);
  if (!t->head || !t->cell) {
    table_free(t);
    return sp_err_set(err, SP_E_NOMEM, "out of memory (table %s)", name);
  }
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
  return 0;
}

static int col(const table *t, const char *name) {
  for (size_t c = 0; c < t->n_cols; ++c)
    if (!strcmp(t->head[c], name)) return (int)c;
  return -1;
}

static const char *at(const table *t, size_t r, int c) { return t->cell[r * t->n_cols + (size_t)c]; }

/* ------------------------------------------------------------ helpers */

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

typedef struct comp_stat {
  const char *comp_id;
  size_t instances;
  size_t n_keys, cap_keys;
  const char **keys; /* distinct molecule keys of its instances (non-empty) */
  unsigned classes;  /* bit per class seen */
} comp_stat;

static int comp_find(comp_stat *cs, size_t n, const char *id) {
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

static void usage(FILE *f) {
  fprintf(f, "usage: sitepack survey FILE.h5 [--ccd FILE] [--per-comp] [--quiet]\n"
             "  the ligand survey of a merged file: instances by class, distinct molecules, comp ids not\n"
             "  in the CCD, per comp id instances and molecules, comp ids sharing a molecule key (confirmed\n"
             "  by exact graph isomorphism of their CCD definitions; --ccd, default the run's CCD).\n"
             "  The per-comp-id table is printed when there are at most 50 comp ids, or always with --per-comp.\n"
             "exit status: 0 printed; 1 FILE.h5 is not a valid sitepack file (sitepack check's checks run\n"
             "first); 2 bad command line, no such file, a --ccd that cannot be opened.\n");
}

/* One survey: the options, the three tables, and what is counted from them. */
typedef struct survey {
  const char *path, *ccd_arg;
  bool per_comp, quiet;
  table st, lg, cp, ch;
  int s_status, l_comp, l_class, l_key, c_comp, c_in, c_key, c_src; /* column indices */
  size_t n_ok;                    /* structures with status ok */
  size_t by_status[SP_ERRCLASS_COUNT]; /* the others, by error class (error.h names; duplicate and
                                          repeated_entry are not processed: not failed) */
  size_t n_other;                 /* a status that names no class (a file of another build) */
  comp_stat *cs;                  /* [nc] per /components row (one per comp id, sorted) */
  size_t nc;
  const char **allkeys;           /* molecule keys of the instances that have one, sorted */
  size_t n_allkeys, n_nokey, n_mol, n_not_in;
  size_t by_class[SP_CLASS_COUNT];
  sp_ccd *ccd;                    /* to confirm key groups; NULL when none or unreadable */
  size_t *order, no;              /* /components rows with a key, sorted by key */
} survey;

static void survey_free(survey *s) {
  if (s->cs)
    for (size_t r = 0; r < s->cp.n_rows; ++r) free(s->cs[r].keys);
  free(s->cs);
  free(s->allkeys);
  free(s->order);
  sp_ccd_close(s->ccd);
  table_free(&s->st);
  table_free(&s->lg);
  table_free(&s->cp);
  table_free(&s->ch);
}

/* Step 1: the command line. -1 to go on, else the exit status. */
static int parse_survey_args(int argc, char **argv, survey *s) {
  static const struct option longopts[] = {{"ccd", required_argument, NULL, 'c'},
                                           {"per-comp", no_argument, NULL, 'p'},
                                           {"quiet", no_argument, NULL, 'q'},
                                           {"help", no_argument, NULL, 'h'},
                                           {NULL, 0, NULL, 0}};
  int opt;
  sp_opt_reset();
  while ((opt = sp_opt_next("survey", argc, argv, "hq", longopts)) != -1) {
    if (opt == '?') return SP_EXIT_USAGE;
    if (opt == 'h') {
      usage(stdout);
      return SP_EXIT_OK;
    }
    if (opt == 'c') s->ccd_arg = optarg;
    else if (opt == 'p') s->per_comp = true;
    else if (opt == 'q') s->quiet = true;
  }
  if (argc - optind > 1) {
    fprintf(stderr, "sitepack survey: unexpected argument: %s (one FILE.h5)\n", argv[optind + 1]);
    return SP_EXIT_USAGE;
  }
  if (optind < argc) s->path = argv[optind];
  if (!s->path) {
    usage(stderr);
    return SP_EXIT_USAGE;
  }
  return -1;
}

/* --ccd names a CCD other than the run's (its SHA-256, as stored, differs from /run@ccd_sha256): say so,
   since the key groups are then confirmed against definitions the run did not use (fresh-user trial). */
static void warn_other_ccd(const survey *s) {
  char run_sha[80] = "", sha[65] = "";
  int64_t bytes = 0;
  int gz = 0;
  if (sp_run_attr_str(s->path, "ccd_sha256", run_sha, sizeof run_sha, NULL) || !run_sha[0]) return;
  if (sp_file_digest(s->ccd_arg, sha, &bytes, &gz, NULL) || !strcmp(sha, run_sha)) return;
  fprintf(stderr, "sitepack survey: warning: CCD %s is not the file the run read (SHA-256 of its stored bytes %.12s..., /run@ccd_sha256 %.12s...): "
          "key groups are confirmed against it\n", s->ccd_arg, sha, run_sha);
}

/* Step 2: /structures, /ligands and /components as TSV (sp_dump), a CCD named with --ccd (it must
 * open: exit 2 otherwise), and the columns used. -1 to go on, else the exit status after saying why. */
static int load_tables(survey *s) {
  sp_err err = {0};
  /* the counts below trust the tables (sorted /components, classes, structure indices): the file passes
     sitepack check's checks first (a damaged-file hunt: swapped /components rows dropped a comp id, exit 0) */
  int rc = sp_check(s->path, 0, 1, NULL, &err);
  if (rc) {
    sp_opt_input_error("survey", s->path, rc, err.msg);
    return rc == SP_E_NOT_FOUND || rc == SP_E_INVALID ? SP_EXIT_USAGE : SP_EXIT_RUNTIME;
  }
  rc = table_load(s->path, "structures", &s->st, &err);
  if (!rc) rc = table_load(s->path, "ligands", &s->lg, &err);
  if (!rc) rc = table_load(s->path, "components", &s->cp, &err);
  if (rc) {
    sp_opt_input_error("survey", s->path, rc, err.msg);
    return SP_EXIT_RUNTIME;
  }
  /* a version-2 file has no /chains (docs/format.md "Versions"; sp_dump says not_found): no protein context */
  if ((rc = table_load(s->path, "chains", &s->ch, &err)) && rc != SP_E_NOT_FOUND) {
    sp_opt_input_error("survey", s->path, rc, err.msg);
    return SP_EXIT_RUNTIME;
  }
  /* the run's own CCD, recorded in /run, may have moved since: then the key groups stay
     unconfirmed, with a warning (open_ccd()) */
  if (s->ccd_arg) {
    sp_err cerr = {0};
    if (sp_ccd_open(s->ccd_arg, &s->ccd, &cerr)) {
      sp_opt_file_error("survey", "CCD", s->ccd_arg, cerr.msg, NULL);
      s->ccd = NULL;
      return SP_EXIT_USAGE;
    }
    warn_other_ccd(s);
  }
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
    fprintf(stderr, "sitepack survey: %s: a column of docs/format.md is missing\n", s->path);
    return SP_EXIT_RUNTIME;
  }
  return -1;
}

/* Add @p key to the distinct keys of @p c. 0 or -1 (out of memory). */
static int comp_add_key(comp_stat *c, const char *key) {
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

/* Step 3: count structures, instances by class, keys, and per comp id (the /components rows are
 * one per comp id, sorted: docs/format.md). 0 or -1 (out of memory). */
static int count_instances(survey *s) {
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
    comp_stat *c = &s->cs[i];
    c->instances++;
    if (k >= 0) c->classes |= 1u << k;
    if (*key && comp_add_key(c, key)) return -1;
  }
  qsort(s->allkeys, s->n_allkeys, sizeof *s->allkeys, cmp_str);
  for (size_t i = 0; i < s->n_allkeys; ++i) s->n_mol += !i || strcmp(s->allkeys[i], s->allkeys[i - 1]);
  for (size_t r = 0; r < s->nc; ++r) s->n_not_in += !strcmp(at(&s->cp, r, s->c_in), "0");
  return 0;
}

/* The structures by status, in the words of the run's summary (report.c run_summary_print): "structures:
 * N (ok A, failed B (class n, ...), duplicates D, repeated_entry R)"; a duplicate or a repeated entry is
 * not processed, neither ok nor failed (store/totals.c counts them so too). */
static void print_structures(const survey *s) {
  size_t failed = s->n_other;
  for (int k = 1; k < SP_ERRCLASS_COUNT; ++k)
    if (k != SP_E_DUPLICATE && k != SP_E_REPEATED_ENTRY) failed += s->by_status[k];
  printf("structures: %zu (ok %zu, failed %zu", s->st.n_rows, s->n_ok, failed);
  const char *sep = " (";
  for (int k = 1; k < SP_ERRCLASS_COUNT; ++k)
    if (s->by_status[k] && k != SP_E_DUPLICATE && k != SP_E_REPEATED_ENTRY) {
      printf("%s%s %zu", sep, sp_errclass_name(k), s->by_status[k]);
      sep = ", ";
    }
  if (s->n_other) {
    printf("%sother %zu", sep, s->n_other);
    sep = ", ";
  }
  if (sep[0] == ',') printf(")");
  if (s->by_status[SP_E_DUPLICATE]) printf(", duplicates %zu", s->by_status[SP_E_DUPLICATE]);
  if (s->by_status[SP_E_REPEATED_ENTRY]) printf(", repeated_entry %zu", s->by_status[SP_E_REPEATED_ENTRY]);
  printf(")\n");
}

/* Step 4: the summary lines, and the per-comp-id table (at most 50 comp ids, or --per-comp). */
static void print_summary(const survey *s) {
  const table *cp = &s->cp;
  printf("survey of %s\n", s->path);
  print_structures(s);
  printf("ligand instances: %zu; distinct molecules (molecule keys): %zu; instances without a key: %zu\n",
         s->lg.n_rows, s->n_mol, s->n_nokey);
  printf("instances by class:");
  for (int k = 0; k < SP_CLASS_COUNT; ++k)
    printf(" %s %zu%s", sp_ligand_class_name(k), s->by_class[k], k + 1 < SP_CLASS_COUNT ? "," : "\n");
  printf("comp ids (first residue of an instance or any residue of one): %zu; not in the CCD: %zu\n", s->nc,
         s->n_not_in);
  if (s->n_not_in) {
    printf("not in the CCD:");
    for (size_t r = 0; r < s->nc; ++r)
      if (!strcmp(at(cp, r, s->c_in), "0")) printf(" %s", at(cp, r, s->c_comp));
    printf("\n");
  }
  sp_survey_print_quality(s->path); /* issue 36: descriptors and site quality */
  if ((s->per_comp || s->nc <= 50) && !s->quiet) {
    printf("\nper comp id (instances whose first residue has it):\ncomp_id\tinstances\tmolecules\tclasses\n");
    for (size_t r = 0; r < s->nc; ++r) {
      const comp_stat *c = &s->cs[r];
      if (!c->instances) continue;
      printf("%s\t%zu\t%zu\t", c->comp_id, c->instances, c->n_keys);
      bool first = true;
      for (int k = 0; k < SP_CLASS_COUNT; ++k)
        if (c->classes & (1u << k)) printf("%s%s", first ? "" : ",", sp_ligand_class_name(k)), first = false;
      printf("\n");
    }
  }
}

/* Step 4b: the protein context (docs/format.md "/chains", "/ligands"): chains, their UniProt coverage and
 * polymer types, and the PLINDER systems of the ligands. 0 or -1 (out of memory). */
static int print_context(const survey *s) {
  const table *ch = &s->ch, *lg = &s->lg;
  int c_db = col(ch, "db_name"), c_acc = col(ch, "db_accession"), c_type = col(ch, "type");
  int l_st = col(lg, "structure_idx"), l_sys = col(lg, "system_id"), l_size = col(lg, "system_size");
  if (c_db < 0 || c_acc < 0 || c_type < 0 || l_st < 0 || l_sys < 0 || l_size < 0) return 0;
  const char **acc = calloc(ch->n_rows + 1, sizeof *acc), **types = calloc(ch->n_rows + 1, sizeof *types);
  if (!acc || !types) {
    free(acc);
    free(types);
    return -1;
  }
  size_t n_unp = 0, n_acc = 0, n_types = 0;
  for (size_t r = 0; r < ch->n_rows; ++r) {
    types[r] = at(ch, r, c_type);
    if (strcmp(at(ch, r, c_db), "UNP")) continue;
    acc[n_unp++] = at(ch, r, c_acc);
  }
  qsort(acc, n_unp, sizeof *acc, cmp_str);
  qsort(types, ch->n_rows, sizeof *types, cmp_str);
  for (size_t i = 0; i < n_unp; ++i) n_acc += !i || strcmp(acc[i], acc[i - 1]);
  printf("polymer chains: %zu; with a UniProt reference: %zu (%.1f %%), distinct UniProt accessions: %zu\n",
         ch->n_rows, n_unp, ch->n_rows ? 100.0 * (double)n_unp / (double)ch->n_rows : 0.0, n_acc);
  printf("chains by type:");
  for (size_t i = 0, j; i < ch->n_rows; i = j, ++n_types) {
    for (j = i; j < ch->n_rows && !strcmp(types[i], types[j]); ++j) {}
    printf("%s %s %zu", n_types ? "," : "", *types[i] ? types[i] : "(none)", j - i);
  }
  printf("\n");
  size_t n_sys = 0, n_multi = 0, in_multi = 0;
  long largest = 0, next = 0;
  for (size_t r = 0; r < lg->n_rows; ++r) {
    long size = strtol(at(lg, r, l_size), NULL, 10), id = strtol(at(lg, r, l_sys), NULL, 10);
    if (size > largest) largest = size;
    if (size > 1) in_multi++;
    /* ids count up per structure in the order of their first ligand: a new id is a new system */
    if (r == 0 || strcmp(at(lg, r, l_st), at(lg, r - 1, l_st))) next = 0;
    bool first = id == next;
    next += first;
    n_sys += first;
    n_multi += first && size > 1;
  }
  printf("systems (ligands of one model within 4 A, PLINDER): %zu; of 2 or more ligands: %zu, holding %zu "
         "ligands; largest: %ld\n", n_sys, n_multi, in_multi, largest);
  free(acc);
  free(types);
  return 0;
}

/* Step 5: the CCD to confirm key groups with: --ccd (opened in load_tables()), else the run's
 * /run@ccd_path (store.h sp_run_attr_str()); none or unreadable leaves s->ccd NULL (groups stay
 * unconfirmed). */
static void open_ccd(survey *s) {
  char ccd_path[1024] = "";
  if (s->ccd_arg) snprintf(ccd_path, sizeof ccd_path, "%s", s->ccd_arg);
  else if (sp_run_attr_str(s->path, "ccd_path", ccd_path, sizeof ccd_path, NULL)) ccd_path[0] = 0;
  sp_err cerr = {0};
  if (!s->ccd && ccd_path[0] && sp_ccd_open(ccd_path, &s->ccd, &cerr)) {
    sp_opt_file_error("survey", "CCD", ccd_path, cerr.msg, "(key groups stay unconfirmed)");
    s->ccd = NULL;
  }
}

/* Step 6: the /components rows with a molecule key, sorted by key (stable on row order: the
 * (key, row) pairs compare on the key pointer's string). 0 or -1 (out of memory). */
static int sort_by_key(survey *s) {
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
static const char *group_verdict(const survey *s, size_t i, size_t j) {
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

/* Step 7: comp ids sharing a molecule key (groups of two or more), each with its verdict, and the
 * closing count line. */
static void print_key_groups(const survey *s) {
  const table *cp = &s->cp;
  size_t groups = 0, confirmed = 0, collisions = 0, unconfirmed = 0;
  for (size_t i = 0; i < s->no;) {
    size_t j = i + 1;
    while (j < s->no && !strcmp(at(cp, s->order[j], s->c_key), at(cp, s->order[i], s->c_key))) ++j;
    if (j - i >= 2) {
      if (!groups++ && !s->quiet) printf("\ncomp ids that share a molecule key:\nmolecule_key\tcomp_ids\tconfirmation\n");
      const char *verdict = group_verdict(s, i, j);
      if (!strcmp(verdict, "confirmed")) confirmed++;
      else if (!strcmp(verdict, "collision")) collisions++;
      else unconfirmed++;
      if (!s->quiet) {
        printf("%s\t", at(cp, s->order[i], s->c_key));
        for (size_t k = i; k < j; ++k) printf("%s%s", k > i ? " " : "", at(cp, s->order[k], s->c_comp));
        printf("\t%s\n", verdict);
      }
    }
    i = j;
  }
  printf("key groups (comp ids sharing a molecule key): %zu; confirmed %zu, WL collisions %zu, unconfirmed or "
         "undecided %zu%s\n",
         groups, confirmed, collisions, unconfirmed, s->ccd ? "" : " (no CCD to confirm with: give --ccd)");
}

int sp_cmd_survey(int argc, char **argv) {
  survey s;
  memset(&s, 0, sizeof s);
  int status = parse_survey_args(argc, argv, &s);
  if (status >= 0) return status;
  status = load_tables(&s);
  if (status < 0) {
    status = SP_EXIT_OK;
    int oom = count_instances(&s);
    if (!oom) {
      print_summary(&s);
      oom = print_context(&s);
    }
    if (!oom) {
      open_ccd(&s);
      oom = sort_by_key(&s);
    }
    if (!oom) print_key_groups(&s);
    if (oom) {
      fprintf(stderr, "sitepack survey: out of memory\n");
      status = SP_EXIT_RUNTIME;
    }
  }
  survey_free(&s);
  return status;
}

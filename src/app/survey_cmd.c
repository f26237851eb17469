/* `sitepack survey FILE.h5`: the ligand survey summary of a merged file (app/cmd_survey.h).
 * Tables are read through sp_dump (TSV, store.h), so this file depends on the documented
 * columns of docs/format.md only; the CCD path comes from the /run attribute ccd_path. */
#define _GNU_SOURCE 1 /* open_memstream */
#include <hdf5.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/app.h"
#include "app/cmd_survey.h"
#include "app/cli_opts.h"
#include "sitepack/ccd.h"
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

/* /run attribute ccd_path (fixed-size string), "" when absent */
static void run_ccd_path(const char *path, char *out, size_t cap) {
  out[0] = 0;
  H5E_auto2_t fn;
  void *data;
  H5Eget_auto2(H5E_DEFAULT, &fn, &data);
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
  hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  if (f >= 0) {
    if (H5Aexists_by_name(f, "/run", "ccd_path", H5P_DEFAULT) > 0) {
      hid_t a = H5Aopen_by_name(f, "/run", "ccd_path", H5P_DEFAULT, H5P_DEFAULT);
      hid_t t = a >= 0 ? H5Aget_type(a) : -1;
      if (t >= 0 && H5Tget_class(t) == H5T_STRING && !H5Tis_variable_str(t)) {
        size_t n = H5Tget_size(t);
        char *b = calloc(n + 1, 1);
        if (b && H5Aread(a, t, b) >= 0) snprintf(out, cap, "%s", b);
        free(b);
      }
      if (t >= 0) H5Tclose(t);
      if (a >= 0) H5Aclose(a);
    }
    H5Fclose(f);
  }
  H5Eset_auto2(H5E_DEFAULT, fn, data);
}

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
             "  The per-comp-id table is printed when there are at most 50 comp ids, or always with --per-comp.\n");
}

int sp_cmd_survey(int argc, char **argv) {
  const char *path = NULL, *ccd_arg = NULL;
  bool per_comp = false, quiet = false;
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
    if (opt == 'c') ccd_arg = optarg;
    else if (opt == 'p') per_comp = true;
    else if (opt == 'q') quiet = true;
  }
  if (argc - optind > 1) {
    fprintf(stderr, "sitepack survey: unexpected argument: %s (one FILE.h5)\n", argv[optind + 1]);
    return SP_EXIT_USAGE;
  }
  if (optind < argc) path = argv[optind];
  if (!path) {
    usage(stderr);
    return SP_EXIT_USAGE;
  }
  sp_err err = {0};
  table st, lg, cp;
  int rc = table_load(path, "structures", &st, &err);
  if (rc) {
    fprintf(stderr, "sitepack survey: %s\n", err.msg);
    return rc == SP_E_NOT_FOUND ? SP_EXIT_USAGE : SP_EXIT_RUNTIME;
  }
  if ((rc = table_load(path, "ligands", &lg, &err))) {
    table_free(&st);
    fprintf(stderr, "sitepack survey: %s\n", err.msg);
    return SP_EXIT_RUNTIME;
  }
  if ((rc = table_load(path, "components", &cp, &err))) {
    table_free(&st);
    table_free(&lg);
    fprintf(stderr, "sitepack survey: %s\n", err.msg);
    return SP_EXIT_RUNTIME;
  }
  /* a CCD named on the command line must open (exit 2 otherwise); the run's own, recorded in
     /run, may have moved since: then the key groups stay unconfirmed, with a warning */
  sp_ccd *ccd = NULL;
  if (ccd_arg) {
    sp_err cerr = {0};
    if (sp_ccd_open(ccd_arg, &ccd, &cerr)) {
      fprintf(stderr, "sitepack survey: CCD %s: %s\n", ccd_arg, cerr.msg);
      table_free(&st);
      table_free(&lg);
      table_free(&cp);
      return SP_EXIT_USAGE;
    }
  }
  int s_status = col(&st, "status"), l_comp = col(&lg, "comp_id"), l_class = col(&lg, "class"),
      l_key = col(&lg, "molecule_key"), c_comp = col(&cp, "comp_id"), c_in = col(&cp, "in_ccd"),
      c_key = col(&cp, "molecule_key"), c_src = col(&cp, "key_source");
  int status = SP_EXIT_OK;
  comp_stat *cs = NULL;
  const char **allkeys = NULL;
  size_t *order = NULL;
  if (s_status < 0 || l_comp < 0 || l_class < 0 || l_key < 0 || c_comp < 0 || c_in < 0 || c_key < 0 || c_src < 0) {
    fprintf(stderr, "sitepack survey: %s: a column of docs/format.md is missing\n", path);
    status = SP_EXIT_RUNTIME;
    goto out;
  }
  size_t n_ok = 0;
  for (size_t r = 0; r < st.n_rows; ++r) n_ok += !strcmp(at(&st, r, s_status), "ok");

  /* per comp id: the /components rows are one per comp id, sorted (docs/format.md) */
  size_t nc = cp.n_rows;
  cs = calloc(nc ? nc : 1, sizeof *cs);
  allkeys = calloc(lg.n_rows ? lg.n_rows : 1, sizeof *allkeys);
  if (!cs || !allkeys) goto oom;
  for (size_t r = 0; r < nc; ++r) cs[r].comp_id = at(&cp, r, c_comp);
  size_t by_class[SP_CLASS_COUNT] = {0}, n_nokey = 0, n_allkeys = 0;
  for (size_t r = 0; r < lg.n_rows; ++r) {
    int k = class_index(at(&lg, r, l_class));
    if (k >= 0) by_class[k]++;
    const char *key = at(&lg, r, l_key);
    if (*key) allkeys[n_allkeys++] = key;
    else n_nokey++;
    int i = comp_find(cs, nc, at(&lg, r, l_comp));
    if (i < 0) continue; /* every ligand's first comp id has a /components row; tolerate otherwise */
    comp_stat *c = &cs[i];
    c->instances++;
    if (k >= 0) c->classes |= 1u << k;
    if (!*key) continue;
    bool seen = false;
    for (size_t j = 0; j < c->n_keys && !seen; ++j) seen = !strcmp(c->keys[j], key);
    if (seen) continue;
    if (c->n_keys == c->cap_keys) {
      size_t ncap = c->cap_keys ? 2 * c->cap_keys : 4;
      const char **q = realloc(c->keys, ncap * sizeof *q);
      if (!q) goto oom;
      c->keys = q;
      c->cap_keys = ncap;
    }
    c->keys[c->n_keys++] = key;
  }
  qsort(allkeys, n_allkeys, sizeof *allkeys, cmp_str);
  size_t n_mol = 0;
  for (size_t i = 0; i < n_allkeys; ++i) n_mol += !i || strcmp(allkeys[i], allkeys[i - 1]);
  size_t n_not_in = 0;
  for (size_t r = 0; r < nc; ++r) n_not_in += !strcmp(at(&cp, r, c_in), "0");

  printf("survey of %s\n", path);
  printf("structures: %zu (ok %zu, failed %zu)\n", st.n_rows, n_ok, st.n_rows - n_ok);
  printf("ligand instances: %zu; distinct molecules (molecule keys): %zu; instances without a key: %zu\n", lg.n_rows,
         n_mol, n_nokey);
  printf("instances by class:");
  for (int k = 0; k < SP_CLASS_COUNT; ++k) printf(" %s %zu%s", sp_ligand_class_name(k), by_class[k], k + 1 < SP_CLASS_COUNT ? "," : "\n");
  printf("comp ids (first residue of an instance or any residue of one): %zu; not in the CCD: %zu\n", nc, n_not_in);
  if (n_not_in) {
    printf("not in the CCD:");
    for (size_t r = 0; r < nc; ++r)
      if (!strcmp(at(&cp, r, c_in), "0")) printf(" %s", at(&cp, r, c_comp));
    printf("\n");
  }
  if ((per_comp || nc <= 50) && !quiet) {
    printf("\nper comp id (instances whose first residue has it):\ncomp_id\tinstances\tmolecules\tclasses\n");
    for (size_t r = 0; r < nc; ++r) {
      if (!cs[r].instances) continue;
      printf("%s\t%zu\t%zu\t", cs[r].comp_id, cs[r].instances, cs[r].n_keys);
      bool first = true;
      for (int k = 0; k < SP_CLASS_COUNT; ++k)
        if (cs[r].classes & (1u << k)) printf("%s%s", first ? "" : ",", sp_ligand_class_name(k)), first = false;
      printf("\n");
    }
  }

  /* comp ids sharing a definition key: /components rows grouped by molecule_key */
  char ccd_path[1024] = "";
  if (ccd_arg) snprintf(ccd_path, sizeof ccd_path, "%s", ccd_arg);
  else run_ccd_path(path, ccd_path, sizeof ccd_path);
  sp_err cerr = {0};
  if (!ccd && ccd_path[0] && sp_ccd_open(ccd_path, &ccd, &cerr)) {
    fprintf(stderr, "sitepack survey: CCD %s: %s (key groups stay unconfirmed)\n", ccd_path, cerr.msg);
    ccd = NULL;
  }
  order = malloc((nc ? nc : 1) * sizeof *order);
  if (!order) goto oom;
  size_t no = 0;
  for (size_t r = 0; r < nc; ++r)
    if (*at(&cp, r, c_key)) order[no++] = r;
  /* row numbers sorted by key: (key, row) pairs sorted on the key pointer's string */
  {
    const char **kk = malloc((no ? no : 1) * 2 * sizeof *kk);
    if (!kk) goto oom;
    for (size_t i = 0; i < no; ++i) {
      kk[2 * i] = at(&cp, order[i], c_key);
      kk[2 * i + 1] = (const char *)(uintptr_t)order[i];
    }
    qsort(kk, no, 2 * sizeof *kk, cmp_str); /* compares the first pointer of each pair: the key */
    for (size_t i = 0; i < no; ++i) order[i] = (size_t)(uintptr_t)kk[2 * i + 1];
    free(kk);
  }
  size_t groups = 0, confirmed = 0, collisions = 0, unconfirmed = 0;
  for (size_t i = 0; i < no;) {
    size_t j = i + 1;
    while (j < no && !strcmp(at(&cp, order[j], c_key), at(&cp, order[i], c_key))) ++j;
    if (j - i >= 2) {
      if (!groups++ && !quiet) printf("\ncomp ids that share a molecule key:\nmolecule_key\tcomp_ids\tconfirmation\n");
      /* exact check of every member against the first, on CCD definitions (key_source ccd) */
      const char *verdict = "confirmed";
      const sp_component *first = NULL;
      for (size_t k = i; k < j; ++k) {
        const char *id = at(&cp, order[k], c_comp);
        const sp_component *c = NULL;
        if (ccd && !strcmp(at(&cp, order[k], c_src), "ccd")) c = sp_ccd_get(ccd, id, NULL);
        if (!c) {
          verdict = "unconfirmed";
          break;
        }
        if (!first) {
          first = c;
          continue;
        }
        int v = SP_ISO_UNDECIDED;
        sp_err ierr = {0};
        if (sp_molkey_component_isomorphic(first, c, false, SP_ISO_DEFAULT_STEPS, &v, NULL, &ierr)) v = SP_ISO_UNDECIDED;
        if (v == SP_ISO_NO) {
          verdict = "collision";
          break;
        }
        if (v == SP_ISO_UNDECIDED) verdict = "undecided";
      }
      if (!strcmp(verdict, "confirmed")) confirmed++;
      else if (!strcmp(verdict, "collision")) collisions++;
      else unconfirmed++;
      if (!quiet) {
        printf("%s\t", at(&cp, order[i], c_key));
        for (size_t k = i; k < j; ++k) printf("%s%s", k > i ? " " : "", at(&cp, order[k], c_comp));
        printf("\t%s\n", verdict);
      }
    }
    i = j;
  }
  printf("key groups (comp ids sharing a molecule key): %zu; confirmed %zu, WL collisions %zu, unconfirmed or "
         "undecided %zu%s\n",
         groups, confirmed, collisions, unconfirmed, ccd ? "" : " (no CCD to confirm with: give --ccd)");
  goto out;
oom:
  fprintf(stderr, "sitepack survey: out of memory\n");
  status = SP_EXIT_RUNTIME;
out:
  if (cs)
    for (size_t r = 0; r < cp.n_rows; ++r) free(cs[r].keys);
  free(cs);
  free(allkeys);
  free(order);
  sp_ccd_close(ccd);
  table_free(&st);
  table_free(&lg);
  table_free(&cp);
  return status;
}

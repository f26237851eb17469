/* The aggregates of `sitepack report` (app/report_html.h): counts and histograms only, never per-site rows, so
 * the page's size does not grow with the file. The survey's numbers are survey_data.c's (the same as
 * `sitepack survey`); the rest are read from the columns of docs/format.md. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/report_html.h"
#include "sitepack/sitechem.h"
#include "sitepack/survey.h"

#define at sp_table_at
#define col sp_table_col
#define fact sp_rh_fact

/* ------------------------------------------------------------ JSON building blocks */

cJSON *sp_rh_section(cJSON *sections, const char *id, const char *title, const char *absent) {
  cJSON *s = cJSON_CreateObject();
  cJSON_AddStringToObject(s, "id", id);
  cJSON_AddStringToObject(s, "title", title);
  if (absent) cJSON_AddStringToObject(s, "absent", absent);
  cJSON_AddArrayToObject(s, "plots");
  cJSON_AddItemToArray(sections, s);
  return s;
}

cJSON *sp_rh_plot(cJSON *section, const char *id, const char *title, const char *kind, const char *xlabel) {
  cJSON *p = cJSON_CreateObject();
  cJSON_AddStringToObject(p, "id", id);
  cJSON_AddStringToObject(p, "title", title);
  cJSON_AddStringToObject(p, "kind", kind);
  cJSON_AddStringToObject(p, "xlabel", xlabel);
  cJSON_AddArrayToObject(p, "labels");
  cJSON_AddArrayToObject(p, "series");
  cJSON_AddItemToArray(cJSON_GetObjectItem(section, "plots"), p);
  return p;
}

void sp_rh_label(cJSON *plot, const char *label) {
  cJSON_AddItemToArray(cJSON_GetObjectItem(plot, "labels"), cJSON_CreateString(label));
}

void sp_rh_series(cJSON *plot, const char *name, const double *v, size_t n) {
  cJSON *s = cJSON_CreateObject();
  cJSON_AddStringToObject(s, "name", name);
  cJSON *a = cJSON_AddArrayToObject(s, "values");
  for (size_t i = 0; i < n; ++i) cJSON_AddItemToArray(a, cJSON_CreateNumber(isfinite(v[i]) ? v[i] : 0));
  cJSON_AddItemToArray(cJSON_GetObjectItem(plot, "series"), s);
}

/* A plot of one series from @p n (label, count) pairs. */
static void count_plot(cJSON *sec, const char *id, const char *title, const char *kind, const char *xlabel,
                       const char *const *labels, const double *v, size_t n, const char *series) {
  cJSON *p = sp_rh_plot(sec, id, title, kind, xlabel);
  for (size_t i = 0; i < n; ++i) sp_rh_label(p, labels[i]);
  sp_rh_series(p, series, v, n);
}

/* ------------------------------------------------------------ string counts */

typedef struct strcount {
  const char **key;
  double *n;
  size_t len, cap;
} strcount;

static int sc_add(strcount *c, const char *key) {
  for (size_t i = 0; i < c->len; ++i)
    if (!strcmp(c->key[i], key)) return c->n[i]++, 0;
  if (c->len == c->cap) {
    size_t ncap = c->cap ? 2 * c->cap : 16;
    const char **k = realloc(c->key, ncap * sizeof *k);
    if (!k) return -1;
    c->key = k;
    double *n = realloc(c->n, ncap * sizeof *n);
    if (!n) return -1;
    c->n = n;
    c->cap = ncap;
  }
  c->key[c->len] = key;
  c->n[c->len++] = 1;
  return 0;
}

static void sc_free(strcount *c) {
  free(c->key);
  free(c->n);
}

/* Sort by key (ascending); insertion sort: the lists are short (methods, years). */
static void sc_sort(strcount *c) {
  for (size_t i = 1; i < c->len; ++i)
    for (size_t j = i; j > 0 && strcmp(c->key[j - 1], c->key[j]) > 0; --j) {
      const char *k = c->key[j];
      c->key[j] = c->key[j - 1], c->key[j - 1] = k;
      double n = c->n[j];
      c->n[j] = c->n[j - 1], c->n[j - 1] = n;
    }
}

/* ------------------------------------------------------------ the survey */

static void survey_facts(const sp_file_survey *s, cJSON *sec) {
  fact(sec, "structures", "structures", (double)s->st.n_rows);
  fact(sec, "ok", "structures ok", (double)s->n_ok);
  fact(sec, "failed", "structures failed", (double)sp_fsurvey_failed(s));
  fact(sec, "duplicates", "duplicates (same bytes)", (double)s->by_status[SP_E_DUPLICATE]);
  fact(sec, "repeated_entry", "repeated entries (not processed)", (double)s->by_status[SP_E_REPEATED_ENTRY]);
  fact(sec, "ligands", "ligand instances", (double)s->lg.n_rows);
  fact(sec, "molecules", "distinct molecules (molecule keys)", (double)s->n_mol);
  fact(sec, "no_key", "instances without a key", (double)s->n_nokey);
  fact(sec, "comp_ids", "comp ids", (double)s->nc);
  fact(sec, "not_in_ccd", "comp ids not in the CCD", (double)s->n_not_in);
  sp_key_groups g;
  sp_fsurvey_key_groups(s, NULL, NULL, &g);
  fact(sec, "key_groups", "key groups (comp ids sharing a molecule key)", (double)g.groups);
  fact(sec, "key_confirmed", "key groups confirmed", (double)g.confirmed);
  fact(sec, "key_collisions", "key groups: WL collisions", (double)g.collisions);
  fact(sec, "key_unconfirmed", "key groups unconfirmed or undecided", (double)g.unconfirmed);
}

/* Failed structures by error class (a plot only when some failed). */
static void failed_plot(const sp_file_survey *s, cJSON *sec) {
  const char *labels[SP_ERRCLASS_COUNT + 1];
  double v[SP_ERRCLASS_COUNT + 1];
  size_t n = 0;
  for (int k = 1; k < SP_ERRCLASS_COUNT; ++k)
    if (s->by_status[k] && k != SP_E_DUPLICATE && k != SP_E_REPEATED_ENTRY)
      labels[n] = sp_errclass_name(k), v[n++] = (double)s->by_status[k];
  if (s->n_other) labels[n] = "other", v[n++] = (double)s->n_other;
  if (n) count_plot(sec, "failed", "Failed structures by error class", "hbar", "error class", labels, v, n, "structures");
}

/* The 30 comp ids with most instances (ties in comp id order), as survey --per-comp lists them. */
static void comp_plot(const sp_file_survey *s, cJSON *sec) {
  size_t *ord = malloc((s->nc ? s->nc : 1) * sizeof *ord), n = 0;
  if (!ord) return;
  for (size_t r = 0; r < s->nc; ++r)
    if (s->cs[r].instances) ord[n++] = r;
  for (size_t i = 1; i < n; ++i) /* stable insertion sort, most instances first */
    for (size_t j = i; j > 0 && s->cs[ord[j - 1]].instances < s->cs[ord[j]].instances; --j) {
      size_t t = ord[j];
      ord[j] = ord[j - 1], ord[j - 1] = t;
    }
  if (n > 30) n = 30;
  cJSON *p = sp_rh_plot(sec, "comp_ids", "Comp ids with most instances (first residue)", "hbar", "comp_id");
  double inst[30], mol[30];
  for (size_t i = 0; i < n; ++i) {
    sp_rh_label(p, s->cs[ord[i]].comp_id);
    inst[i] = (double)s->cs[ord[i]].instances;
    mol[i] = (double)s->cs[ord[i]].n_keys;
  }
  sp_rh_series(p, "instances", inst, n);
  sp_rh_series(p, "molecules", mol, n);
  free(ord);
}

static void section_survey(const sp_file_survey *s, cJSON *sections) {
  cJSON *sec = sp_rh_section(sections, "survey", "Ligand survey", NULL);
  survey_facts(s, sec);
  const char *labels[SP_CLASS_COUNT];
  double v[SP_CLASS_COUNT];
  for (int k = 0; k < SP_CLASS_COUNT; ++k) labels[k] = sp_ligand_class_name(k), v[k] = (double)s->by_class[k];
  count_plot(sec, "classes", "Ligand instances by class", "bar", "class", labels, v, SP_CLASS_COUNT, "instances");
  comp_plot(s, sec);
  failed_plot(s, sec);
}

static int section_context(const sp_file_survey *s, cJSON *sections) {
  sp_fsurvey_context c;
  if (sp_fsurvey_context_get(s, &c)) return -1;
  if (!c.present) {
    sp_rh_section(sections, "protein", "Protein context", "This file has no /chains (format version 2).");
    return 0;
  }
  cJSON *sec = sp_rh_section(sections, "protein", "Protein context", NULL);
  fact(sec, "chains", "polymer chains", (double)c.n_chains);
  fact(sec, "uniprot_chains", "chains with a UniProt reference", (double)c.n_unp);
  fact(sec, "uniprot_accessions", "distinct UniProt accessions", (double)c.n_acc);
  fact(sec, "systems", "systems (ligands of one model within 4 A, PLINDER)", (double)c.n_sys);
  fact(sec, "systems_multi", "systems of 2 or more ligands", (double)c.n_multi);
  fact(sec, "systems_multi_ligands", "ligands in those", (double)c.in_multi);
  fact(sec, "system_largest", "ligands of the largest system", (double)c.largest);
  double *v = malloc((c.n_types + 1) * sizeof *v);
  const char **lab = malloc((c.n_types + 1) * sizeof *lab);
  if (v && lab) {
    for (size_t i = 0; i < c.n_types; ++i) v[i] = (double)c.type_count[i], lab[i] = *c.type_name[i] ? c.type_name[i] : "(none)";
    count_plot(sec, "chain_types", "Polymer chains by type", "hbar", "type", lab, v, c.n_types, "chains");
  }
  free(v);
  free(lab);
  sp_fsurvey_context_free(&c);
  return v && lab ? 0 : -1;
}

/* ------------------------------------------------------------ structures: method, resolution, years */

/* Resolution bins, Å: [0,1) [1,1.5) ... [4,5) [5,inf), then none. */
static const double res_edge[] = {0, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0, 5.0};
static const char *const res_label[] = {"< 1.0", "1.0-1.5", "1.5-2.0", "2.0-2.5", "2.5-3.0",
                                        "3.0-3.5", "3.5-4.0", "4.0-5.0", ">= 5.0", "none"};
#define N_RES 10

static int section_structures(const sp_file_survey *s, cJSON *sections) {
  const sp_table *st = &s->st;
  int c_m = col(st, "method"), c_r = col(st, "resolution"), c_d = col(st, "release_date");
  cJSON *sec = sp_rh_section(sections, "structures", "Structures: method, resolution, release year", NULL);
  strcount meth = {0}, year = {0};
  double res[N_RES] = {0};
  char (*years)[8] = calloc(st->n_rows + 1, sizeof *years);
  int rc = years ? 0 : -1;
  for (size_t r = 0; r < st->n_rows && !rc; ++r) {
    if (strcmp(at(st, r, s->s_status), "ok")) continue; /* failed, duplicate, repeated: no content */
    const char *m = c_m >= 0 && *at(st, r, c_m) ? at(st, r, c_m) : "(none)";
    const char *d = c_d >= 0 ? at(st, r, c_d) : "";
    snprintf(years[r], sizeof years[r], "%.4s", strlen(d) >= 4 ? d : "none");
    rc = sc_add(&meth, m) || sc_add(&year, years[r]) ? -1 : 0;
    double x = c_r >= 0 ? strtod(at(st, r, c_r), NULL) : NAN;
    int b = N_RES - 1;
    if (isfinite(x)) for (b = N_RES - 2; b > 0 && x < res_edge[b]; --b) {}
    res[b]++;
  }
  if (!rc) {
    sc_sort(&meth);
    sc_sort(&year);
    count_plot(sec, "methods", "Structures by experimental method (status ok)", "hbar", "method", meth.key, meth.n,
               meth.len, "structures");
    count_plot(sec, "resolution", "Resolution (status ok)", "bar", "resolution (A)", res_label, res, N_RES, "structures");
    count_plot(sec, "years", "Release year (status ok)", "bar", "year", year.key, year.n, year.len, "structures");
  }
  sc_free(&meth);
  sc_free(&year);
  free(years);
  return rc;
}

/* ------------------------------------------------------------ sites: pocket size, interactions */

#define N_POCKET 13 /* polymer residues of a site: 0-4, 5-9, ... 55-59, >= 60 */

static int class_of_site(const sp_file_survey *s, int64_t lig) {
  if (lig < 0 || (size_t)lig >= s->lg.n_rows) return -1;
  const char *name = at(&s->lg, (size_t)lig, s->l_class);
  for (int k = 0; k < SP_CLASS_COUNT; ++k)
    if (!strcmp(sp_ligand_class_name(k), name)) return k;
  return -1;
}

typedef struct site_cols {
  int64_t n, nr, ni;
  int64_t *rptr, *iptr, *lig;
  uint8_t *kind, *contact, *type;
} site_cols;

static void site_cols_free(site_cols *c) {
  free(c->rptr), free(c->iptr), free(c->lig), free(c->kind), free(c->contact), free(c->type);
}

static int site_cols_read(hid_t f, site_cols *c, sp_err *err) {
  int64_t m = 0;
  memset(c, 0, sizeof *c);
  c->lig = sp_rh_read(f, "/sites/ligand_idx", H5T_NATIVE_INT64, 8, 0, -1, &c->n, err);
  if (c->lig) c->rptr = sp_rh_read(f, "/sites/residue_ptr", H5T_NATIVE_INT64, 8, 0, -1, &m, err);
  if (c->rptr) c->iptr = sp_rh_read(f, "/sites/interaction_ptr", H5T_NATIVE_INT64, 8, 0, -1, &m, err);
  if (c->iptr) c->kind = sp_rh_read(f, "/residues/kind", H5T_NATIVE_UINT8, 1, 0, -1, &c->nr, err);
  if (c->kind) c->contact = sp_rh_read(f, "/residues/contact", H5T_NATIVE_UINT8, 1, 0, -1, &c->nr, err);
  if (c->contact) c->type = sp_rh_read(f, "/interactions/type", H5T_NATIVE_UINT8, 1, 0, -1, &c->ni, err);
  return c->type ? 0 : -1;
}

static void pocket_plot(cJSON *sec, const double *pocket, const double *contact) {
  const char *lab[N_POCKET];
  char buf[N_POCKET][16];
  for (int b = 0; b < N_POCKET; ++b) {
    if (b < N_POCKET - 1) snprintf(buf[b], sizeof buf[b], "%d-%d", 5 * b, 5 * b + 4);
    else snprintf(buf[b], sizeof buf[b], ">= %d", 5 * b);
    lab[b] = buf[b];
  }
  cJSON *p = sp_rh_plot(sec, "pocket", "Pocket size: polymer residues per site", "bar", "residues");
  for (int b = 0; b < N_POCKET; ++b) sp_rh_label(p, lab[b]);
  sp_rh_series(p, "within the cutoff", pocket, N_POCKET);
  sp_rh_series(p, "in contact (vdW + 0.5 A)", contact, N_POCKET);
}

/* Interactions per type (rows) per ligand class (series), and per site of the class. */
static void interaction_plots(cJSON *sec, double ix[SP_CLASS_COUNT][SP_IX_COUNT], const double *sites_of) {
  cJSON *p = sp_rh_plot(sec, "interactions", "Interactions per type per ligand class", "stacked", "type");
  cJSON *q = sp_rh_plot(sec, "interactions_per_site", "Interactions per site of each class", "bar", "type");
  for (int t = 1; t < SP_IX_COUNT; ++t) sp_rh_label(p, sp_ix_type_name(t)), sp_rh_label(q, sp_ix_type_name(t));
  for (int k = 0; k < SP_CLASS_COUNT; ++k) {
    double per[SP_IX_COUNT];
    for (int t = 1; t < SP_IX_COUNT; ++t) per[t] = sites_of[k] ? ix[k][t] / sites_of[k] : 0;
    sp_rh_series(p, sp_ligand_class_name(k), ix[k] + 1, SP_IX_COUNT - 1);
    if (sites_of[k]) sp_rh_series(q, sp_ligand_class_name(k), per + 1, SP_IX_COUNT - 1);
  }
}

static int section_sites(const sp_file_survey *s, hid_t f, cJSON *sections, sp_err *err) {
  site_cols c;
  if (site_cols_read(f, &c, err)) return site_cols_free(&c), -1;
  double pocket[N_POCKET] = {0}, contact[N_POCKET] = {0}, sites_of[SP_CLASS_COUNT] = {0};
  double ix[SP_CLASS_COUNT][SP_IX_COUNT];
  memset(ix, 0, sizeof ix);
  double sum_pocket = 0, n_ix = 0;
  for (int64_t i = 0; i < c.n; ++i) {
    int64_t np = 0, nc = 0;
    for (int64_t r = c.rptr[i]; r < c.rptr[i + 1] && r < c.nr; ++r) np += c.kind[r] == 1, nc += c.kind[r] == 1 && c.contact[r];
    pocket[np / 5 < N_POCKET - 1 ? np / 5 : N_POCKET - 1]++;
    contact[nc / 5 < N_POCKET - 1 ? nc / 5 : N_POCKET - 1]++;
    sum_pocket += (double)np;
    int k = class_of_site(s, c.lig[i]);
    if (k < 0) continue;
    sites_of[k]++;
    for (int64_t x = c.iptr[i]; x < c.iptr[i + 1] && x < c.ni; ++x)
      if (c.type[x] > 0 && c.type[x] < SP_IX_COUNT) ix[k][c.type[x]]++, n_ix++;
  }
  cJSON *sec = sp_rh_section(sections, "sites", "Sites: pocket size and interactions", NULL);
  fact(sec, "sites", "sites", (double)c.n);
  fact(sec, "interactions", "typed interactions (PLIP criteria)", (double)c.ni);
  fact(sec, "mean_pocket", "mean polymer residues per site", c.n ? sum_pocket / (double)c.n : 0);
  pocket_plot(sec, pocket, contact);
  const char *lab[SP_CLASS_COUNT];
  for (int k = 0; k < SP_CLASS_COUNT; ++k) lab[k] = sp_ligand_class_name(k);
  count_plot(sec, "sites_by_class", "Sites by ligand class", "bar", "class", lab, sites_of, SP_CLASS_COUNT, "sites");
  interaction_plots(sec, ix, sites_of);
  site_cols_free(&c);
  return 0;
}

/* ------------------------------------------------------------ clusters, splits */

/* The histogram of float column @p path (sp_rh_hist) titled @p title; its NaN rows a fact "N not scored"
 * (key not_scored_ID), never a bar. 0 or -1 with @p err set. */
static int score_plot(hid_t f, const char *path, const char *title, const char *xlabel, cJSON *sec, sp_err *err) {
  int64_t n = 0;
  double *v = sp_rh_read(f, path, H5T_NATIVE_DOUBLE, 8, 0, -1, &n, err);
  if (!v) return -1;
  int64_t nan = sp_rh_hist(sec, path, title, xlabel, v, n);
  char key[420], label[520];
  snprintf(key, sizeof key, "not_scored_%s", path);
  snprintf(label, sizeof label, "%s: %lld not scored (NaN: train and off-side sites)", title, (long long)nan);
  fact(sec, key, label, (double)nan);
  free(v);
  return 0;
}

/* Cluster sizes of one /clusters site column: clusters of 1, 2, 3-5, 6-10, 11-20, 21-50, > 50 sites. */
static int cluster_plot(hid_t f, const char *name, cJSON *sec, sp_err *err) {
  char path[128];
  snprintf(path, sizeof path, "/clusters/%s", name);
  if (!sp_rh_exists(f, path)) return 0;
  int64_t n = 0, k = 0, none = 0;
  int64_t *v = sp_rh_read(f, path, H5T_NATIVE_INT64, 8, 0, -1, &n, err);
  if (!v) return -1;
  for (int64_t i = 0; i < n; ++i) k = v[i] + 1 > k ? v[i] + 1 : k;
  int64_t *size = calloc((size_t)k + 1, sizeof *size);
  if (!size) return free(v), sp_err_set(err, SP_E_NOMEM, "out of memory"), -1;
  for (int64_t i = 0; i < n; ++i) v[i] >= 0 ? size[v[i]]++ : none++;
  static const int64_t edge[] = {1, 2, 3, 6, 11, 21, 51};
  static const char *const lab[] = {"1", "2", "3-5", "6-10", "11-20", "21-50", "> 50"};
  double h[7] = {0};
  int64_t with_site = 0;
  for (int64_t c = 0; c < k; ++c) {
    int b = 6;
    while (b > 0 && size[c] < edge[b]) --b;
    if (size[c]) h[b]++, with_site++;
  }
  char title[160], key[160];
  snprintf(title, sizeof title, "Cluster sizes: %s (sites per cluster)", name);
  count_plot(sec, path, title, "bar", "sites in the cluster", lab, h, 7, "clusters");
  snprintf(key, sizeof key, "clusters_%s", name);
  snprintf(title, sizeof title, "%s: clusters with a site (the histogram's total)", name);
  fact(sec, key, title, (double)with_site);
  snprintf(key, sizeof key, "cluster_ids_%s", name);
  snprintf(title, sizeof title, "%s: cluster ids 0 to max (those with no site are not in the histogram)", name);
  fact(sec, key, title, (double)k);
  snprintf(key, sizeof key, "no_cluster_%s", name);
  snprintf(title, sizeof title, "%s: sites without a cluster (-1)", name);
  fact(sec, key, title, (double)none);
  free(size);
  free(v);
  return 0;
}

static int section_clusters(hid_t f, cJSON *sections, sp_err *err) {
  char **names = NULL;
  size_t n = 0;
  if (sp_rh_list(f, "/clusters", &names, &n)) return sp_err_set(err, SP_E_NOMEM, "out of memory"), -1;
  cJSON *sec = sp_rh_section(sections, "clusters", "Clusters", n ? NULL : "This file has no /clusters (run sitepack cluster).");
  int rc = 0;
  for (size_t i = 0; i < n && !rc; ++i)
    if (!strncmp(names[i], "protein_", 8) || !strcmp(names[i], "ligand")) rc = cluster_plot(f, names[i], sec, err);
  sp_rh_list_free(names, n);
  return rc;
}

/* The leakage scores of split @p name (/split_scores/NAME, sitepack split): max_identity and max_tanimoto as
 * histograms, the novelty strata as counts (codes: docs/format.md "/split_scores"). 0, or -1 with @p err set. */
static int split_scores_plots(hid_t f, const char *name, cJSON *sec, sp_err *err) {
  char group[300], path[400];
  snprintf(group, sizeof group, "/split_scores/%s", name);
  if (H5Lexists(f, "/split_scores", H5P_DEFAULT) <= 0 || H5Lexists(f, group, H5P_DEFAULT) <= 0) return 0;
  static const char *const score[] = {"max_identity", "max_tanimoto"};
  for (int k = 0; k < 2; ++k) {
    char title[400];
    snprintf(path, sizeof path, "%s/%s", group, score[k]);
    snprintf(title, sizeof title, "Split %s: %s of val/test sites", name, score[k]);
    if (score_plot(f, path, title, score[k], sec, err)) return -1;
  }
  static const char *const strata[] = {"not_scored", "not_novel", "novel_protein", "novel_ligand", "novel_both"};
  snprintf(path, sizeof path, "%s/stratum", group);
  int64_t m = 0;
  int8_t *v = sp_rh_read(f, path, H5T_NATIVE_INT8, 1, 0, -1, &m, err);
  if (!v) return -1;
  double c[5] = {0};
  for (int64_t j = 0; j < m; ++j) c[v[j] >= -1 && v[j] <= 3 ? v[j] + 1 : 0]++;
  char title[300];
  snprintf(title, sizeof title, "Split %s: novelty strata of the val/test sites", name);
  count_plot(sec, path, title, "bar", "stratum", strata, c, 5, "sites");
  free(v);
  return 0;
}

/* Each /splits column: sites per side (train, val, test, and the codes of sites on no side: src/derive/split.c
 * SP_SPLIT_CODES), its leakage scores when present; a float column as a histogram. */
static int section_splits(hid_t f, cJSON *sections, sp_err *err) {
  char **names = NULL;
  size_t n = 0;
  if (sp_rh_list(f, "/splits", &names, &n)) return sp_err_set(err, SP_E_NOMEM, "out of memory"), -1;
  cJSON *sec = sp_rh_section(sections, "splits", "Splits and leakage", n ? NULL : "This file has no /splits (run sitepack split).");
  static const char *const sides[] = {"train", "val", "test", "dropped", "copy", "undated", "redundant", "other"};
  int rc = 0;
  for (size_t i = 0; i < n && !rc; ++i) {
    char path[512];
    snprintf(path, sizeof path, "/splits/%s", names[i]);
    hid_t d = H5Dopen2(f, path, H5P_DEFAULT), t = d >= 0 ? H5Dget_type(d) : -1;
    H5T_class_t cls = t >= 0 ? H5Tget_class(t) : H5T_NO_CLASS;
    size_t size = t >= 0 ? H5Tget_size(t) : 0;
    if (t >= 0) H5Tclose(t);
    if (d >= 0) H5Dclose(d);
    if (cls == H5T_FLOAT) {
      char title[400];
      snprintf(title, sizeof title, "Split column %s", names[i]);
      rc = score_plot(f, path, title, names[i], sec, err);
      continue;
    }
    if (cls != H5T_INTEGER || size != 1) continue;
    int64_t m = 0;
    int8_t *v = sp_rh_read(f, path, H5T_NATIVE_INT8, 1, 0, -1, &m, err);
    if (!v) return sp_rh_list_free(names, n), -1;
    double c[8] = {0};
    for (int64_t j = 0; j < m; ++j) c[v[j] >= 0 && v[j] <= 2 ? v[j] : v[j] >= -4 && v[j] <= -1 ? 2 - v[j] : 7]++;
    char title[300];
    snprintf(title, sizeof title, "Split %s: sites per side", names[i]);
    count_plot(sec, path, title, "bar", "side", sides, c, 8, "sites");
    free(v);
    rc = split_scores_plots(f, names[i], sec, err);
  }
  sp_rh_list_free(names, n);
  return rc;
}

int sp_rh_sections(const sp_file_survey *s, hid_t f, cJSON *sections, sp_err *err) {
  section_survey(s, sections);
  if (section_context(s, sections) || section_structures(s, sections))
    return sp_err_set(err, SP_E_NOMEM, "out of memory");
  if (section_sites(s, f, sections, err)) return err->cls ? err->cls : SP_E_NOMEM;
  if (section_clusters(f, sections, err) || section_splits(f, sections, err) ||
      sp_rh_section_descriptors(f, sections, err) || sp_rh_section_quality(f, sections, err))
    return err->cls ? err->cls : SP_E_NOMEM;
  return 0;
}

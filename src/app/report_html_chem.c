/* The descriptors and quality sections of `sitepack report` (app/report_html.h; docs/report.md): the ligand
 * descriptor columns of /ligands (docs/format.md "Ligand descriptors") as histograms over the ligands that have
 * a site and computed descriptors, with their Ro5 / Ro3 / drug-like pass rates, and the site quality columns
 * /sites/quality and /sites/pass_quality (docs/format.md "Site quality") as the share of sites meeting each
 * criterion, the same counts as `sitepack survey` prints. Both are absent only in a file without the columns
 * (format version 4 or older). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/report_html.h"
#include "sitepack/descriptors.h"
#include "sitepack/h5util.h"
#include "sitepack/result.h"

/* The numeric descriptor columns of /ligands, in docs/format.md's order (desc_flags is the pass rates). */
static const char *const desc_cols[] = {"mw",           "formal_charge",    "hbd",  "hba",  "hbd_lipinski",
                                        "hba_lipinski", "rotatable_bonds",  "tpsa", "logp", "mr",
                                        "n_rings",      "n_aromatic_rings", "fsp3", "qed"};
#define N_DESC (sizeof desc_cols / sizeof desc_cols[0])

/* ------------------------------------------------------------ histograms */

int64_t sp_rh_hist(cJSON *sec, const char *id, const char *title, const char *xlabel, const double *v, int64_t n) {
  double lo = INFINITY, hi = -INFINITY;
  int64_t nan = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (!isfinite(v[i])) {
      nan++;
      continue;
    }
    if (v[i] < lo) lo = v[i];
    if (v[i] > hi) hi = v[i];
  }
  int nb = lo < hi ? 20 : lo == hi ? 1 : 0; /* one bin at the value when every value is the same */
  double h[20] = {0}, w = lo < hi ? (hi - lo) / 20 : 1;
  for (int64_t i = 0; i < n; ++i)
    if (isfinite(v[i])) h[nb == 1 ? 0 : (int)fmin(19, floor((v[i] - lo) / w))]++;
  cJSON *p = sp_rh_plot(sec, id, title, "bar", xlabel);
  for (int b = 0; b < nb; ++b) {
    char lab[40];
    snprintf(lab, sizeof lab, "%.4g", lo + w * b);
    sp_rh_label(p, lab);
  }
  sp_rh_series(p, "rows", h, (size_t)nb);
  return nan;
}

void sp_rh_fact(cJSON *section, const char *key, const char *label, double value) {
  cJSON *t = cJSON_GetObjectItem(section, "facts");
  if (!t) t = cJSON_AddArrayToObject(section, "facts");
  cJSON *r = cJSON_CreateObject();
  cJSON_AddStringToObject(r, "key", key);
  cJSON_AddStringToObject(r, "label", label);
  cJSON_AddNumberToObject(r, "value", isfinite(value) ? value : 0);
  cJSON_AddItemToArray(t, r);
}

/* ------------------------------------------------------------ descriptors */

/* 1 for each ligand row with a site and the computed bit set (*n_site: ligands with a site). NULL with @p err. */
static uint8_t *desc_rows(hid_t f, const uint32_t *flags, int64_t nl, int64_t *n_site, sp_err *err) {
  int64_t ns = 0;
  int64_t *lig = sp_rh_read(f, "/sites/ligand_idx", H5T_NATIVE_INT64, 8, 0, -1, &ns, err);
  uint8_t *keep = lig ? calloc((size_t)nl + 1, 1) : NULL;
  if (lig && !keep) sp_err_set(err, SP_E_NOMEM, "out of memory");
  *n_site = 0;
  for (int64_t i = 0; keep && i < ns; ++i)
    if (lig[i] >= 0 && lig[i] < nl && !keep[lig[i]]) keep[lig[i]] = 1, ++*n_site;
  for (int64_t r = 0; keep && r < nl; ++r) keep[r] = keep[r] && (flags[r] & SP_DESCF_COMPUTED);
  free(lig);
  return keep;
}

/* The histogram of /ligands/@p name over the rows @p keep (@p m of them). 0 or -1 with @p err set. */
static int desc_plot(hid_t f, const char *name, const uint8_t *keep, int64_t nl, int64_t m, cJSON *sec, sp_err *err) {
  char path[128], title[160];
  snprintf(path, sizeof path, "/ligands/%s", name);
  int64_t n = 0;
  double *v = sp_rh_read(f, path, H5T_NATIVE_DOUBLE, 8, 0, -1, &n, err);
  double *x = v ? malloc((size_t)(m ? m : 1) * sizeof *x) : NULL;
  if (!x) return free(v), v ? sp_err_set(err, SP_E_NOMEM, "out of memory") : 0, -1;
  int64_t k = 0;
  for (int64_t r = 0; r < n && r < nl; ++r)
    if (keep[r]) x[k++] = v[r];
  snprintf(title, sizeof title, "%s of the ligands with a site and computed descriptors", name);
  int64_t nan = sp_rh_hist(sec, path, title, name, x, k);
  if (nan) {
    char key[160];
    snprintf(key, sizeof key, "no_value_%s", name);
    snprintf(title, sizeof title, "%s: ligands without a value (NaN)", name);
    sp_rh_fact(sec, key, title, (double)nan);
  }
  free(x);
  free(v);
  return 0;
}

static void desc_rates(cJSON *sec, const uint32_t *flags, const uint8_t *keep, int64_t nl, int64_t n_site, int64_t m) {
  static const uint32_t bit[] = {SP_DESCF_RO5, SP_DESCF_RO3, SP_DESCF_DRUG_LIKE};
  static const char *const key[] = {"ro5", "ro3", "drug_like"};
  static const char *const label[] = {"rule of five (at most one violation)", "rule of three (all six)",
                                      "drug-like (no Ro5 violation, Veber, >= 10 heavy atoms)"};
  double pass[3] = {0};
  for (int64_t r = 0; r < nl; ++r)
    for (int k = 0; k < 3; ++k) pass[k] += keep[r] && (flags[r] & bit[k]);
  sp_rh_fact(sec, "desc_ligands_with_site", "ligands with a site", (double)n_site);
  sp_rh_fact(sec, "desc_computed", "of those, with computed descriptors (desc_flags bit computed)", (double)m);
  double rate[3];
  for (int k = 0; k < 3; ++k) {
    char fkey[32];
    snprintf(fkey, sizeof fkey, "pass_%s", key[k]);
    sp_rh_fact(sec, fkey, label[k], pass[k]);
    rate[k] = m ? pass[k] / (double)m : 0;
  }
  cJSON *p = sp_rh_plot(sec, "/ligands/desc_flags", "Pass rates of the ligands with a site and computed descriptors",
                        "hbar", "rule");
  for (int k = 0; k < 3; ++k) sp_rh_label(p, key[k]);
  sp_rh_series(p, "pass rate", rate, 3);
}

int sp_rh_section_descriptors(hid_t f, cJSON *sections, sp_err *err) {
  if (!sp_rh_exists(f, "/ligands/desc_flags")) {
    sp_rh_section(sections, "descriptors", "Ligand descriptors",
                  "This file has no ligand descriptors (/ligands/desc_flags: format version 4 or older).");
    return 0;
  }
  cJSON *sec = sp_rh_section(sections, "descriptors", "Ligand descriptors (RDKit)", NULL);
  int64_t nl = 0, n_site = 0, m = 0;
  uint32_t *flags = sp_rh_read(f, "/ligands/desc_flags", H5T_NATIVE_UINT32, 4, 0, -1, &nl, err);
  uint8_t *keep = flags ? desc_rows(f, flags, nl, &n_site, err) : NULL;
  int rc = keep ? 0 : -1;
  for (int64_t r = 0; keep && r < nl; ++r) m += keep[r];
  if (!rc) desc_rates(sec, flags, keep, nl, n_site, m);
  for (size_t c = 0; c < N_DESC && !rc; ++c) rc = desc_plot(f, desc_cols[c], keep, nl, m, sec, err);
  free(keep);
  free(flags);
  return rc;
}

/* ------------------------------------------------------------ site quality */

/* The name of quality bit @p b from the dataset's flag_bits attribute (JSON {"0": "resolution", ...}, written
 * by src/store/describe.c), else "bit B". */
static void qual_name(const cJSON *bits, int b, char *out, size_t cap) {
  char k[8];
  snprintf(k, sizeof k, "%d", b);
  const cJSON *s = bits ? cJSON_GetObjectItemCaseSensitive(bits, k) : NULL;
  if (cJSON_IsString(s)) snprintf(out, cap, "%s", s->valuestring);
  else snprintf(out, cap, "bit %d", b);
}

static cJSON *qual_bits(hid_t f) {
  char buf[2048] = "";
  hid_t d = H5Dopen2(f, "/sites/quality", H5P_DEFAULT);
  if (d < 0) return NULL;
  int rc = sp_h5_read_attr_str(d, "flag_bits", buf, sizeof buf);
  H5Dclose(d);
  return rc ? NULL : cJSON_Parse(buf);
}

int sp_rh_section_quality(hid_t f, cJSON *sections, sp_err *err) {
  if (!sp_rh_exists(f, "/sites/quality") || !sp_rh_exists(f, "/sites/pass_quality")) {
    sp_rh_section(sections, "quality", "Site quality",
                  "This file has no site quality (/sites/quality: format version 4 or older).");
    return 0;
  }
  int64_t n = 0, np = 0;
  uint32_t *q = sp_rh_read(f, "/sites/quality", H5T_NATIVE_UINT32, 4, 0, -1, &n, err);
  uint8_t *pq = q ? sp_rh_read(f, "/sites/pass_quality", H5T_NATIVE_UINT8, 1, 0, -1, &np, err) : NULL;
  if (!pq) return free(q), -1;
  cJSON *sec = sp_rh_section(sections, "quality", "Site quality", NULL), *bits = qual_bits(f);
  double meet[SP_QUAL_COUNT + 1] = {0}, rate[SP_QUAL_COUNT + 1];
  for (int64_t i = 0; i < n; ++i)
    for (int b = 0; b < SP_QUAL_COUNT; ++b) meet[b] += !(q[i] & (1u << b));
  for (int64_t i = 0; i < np; ++i) meet[SP_QUAL_COUNT] += pq[i] == 1;
  sp_rh_fact(sec, "quality_sites", "sites", (double)n);
  sp_rh_fact(sec, "pass_quality", "sites meeting every criterion (pass_quality)", meet[SP_QUAL_COUNT]);
  cJSON *p = sp_rh_plot(sec, "/sites/quality", "Share of the sites meeting each quality criterion (bit clear)", "hbar",
                        "criterion");
  for (int b = 0; b <= SP_QUAL_COUNT; ++b) {
    char name[64], key[96], label[128];
    if (b < SP_QUAL_COUNT) qual_name(bits, b, name, sizeof name);
    else snprintf(name, sizeof name, "pass_quality");
    sp_rh_label(p, name);
    rate[b] = n ? meet[b] / (double)n : 0;
    if (b == SP_QUAL_COUNT) continue;
    snprintf(key, sizeof key, "meet_%s", name);
    snprintf(label, sizeof label, "sites meeting %s", name);
    sp_rh_fact(sec, key, label, meet[b]);
  }
  sp_rh_series(p, "share of sites", rate, SP_QUAL_COUNT + 1);
  cJSON_Delete(bits);
  free(pq);
  free(q);
  return 0;
}

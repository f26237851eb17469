/* Site case tests: the real pipeline (sp_read_structure_file, sp_survey_run,
 * sp_site_compute) on the synthetic cases of shared/cases that have `site_residues`
 * (schema: shared/cases/README.md). For each listed ligand the polymer residues of its
 * site must be exactly `site_residues`, and none of `not_site_residues` may be in it;
 * per-model expectations (`models`) are checked with a survey of all models.
 *
 * usage: test_site_cases CCD_FILE CASE_DIR...   (CCD_FILE: used when a case has no ccd.cif)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "sitepack/ccd.h"
#include "sitepack/read.h"
#include "sitepack/site.h"
#include "sitepack/survey.h"
#include "sp_test.h"
#include "test_site_util.h"

/* Is @p file named by expect_error (an object or a list of objects)? */
static int expected_to_fail(const cJSON *exp, const char *file) {
  const cJSON *e = cJSON_GetObjectItemCaseSensitive(exp, "expect_error");
  if (!e || cJSON_IsNull(e)) return 0;
  if (cJSON_IsObject(e)) {
    const cJSON *f = cJSON_GetObjectItemCaseSensitive(e, "file");
    return cJSON_IsString(f) && !strcmp(f->valuestring, file);
  }
  const cJSON *it;
  cJSON_ArrayForEach(it, e) {
    const cJSON *f = cJSON_GetObjectItemCaseSensitive(it, "file");
    if (cJSON_IsString(f) && !strcmp(f->valuestring, file)) return 1;
  }
  return 0;
}

/* A key (expected.json convention) for ligand @p l of model @p model: "COMP/CHAIN/NUM[ICODE]",
 * with "#k" when several ligands of the model share it. */
static void ligand_key(const sp_structure *s, const sp_survey *sv, size_t l, char *out, size_t cap) {
  uint32_t r = sv->res_refs[sv->ligands[l].res_first];
  char chain[16], num[24];
  tsu_residue_ids(s, r, chain, sizeof chain, num, sizeof num);
  snprintf(out, cap, "%s/%s/%s", s->residues[r].comp_id, chain, num);
  size_t same = 0, idx = 0;
  for (size_t k = 0; k < sv->n_ligands; k++) {
    if (sv->ligands[k].model != sv->ligands[l].model) continue;
    uint32_t r2 = sv->res_refs[sv->ligands[k].res_first];
    char c2[16], n2[24], key2[64];
    tsu_residue_ids(s, r2, c2, sizeof c2, n2, sizeof n2);
    snprintf(key2, sizeof key2, "%s/%s/%s", s->residues[r2].comp_id, c2, n2);
    if (!strcmp(key2, out)) {
      same++;
      if (k == l) idx = same;
    }
  }
  if (same > 1) {
    size_t n = strlen(out);
    snprintf(out + n, cap - n, "#%zu", idx);
  }
}

/* Check one map {ligand key: [residue keys]} for model index @p mi. */
static void check_sites(const char *what, const sp_structure *s, const sp_survey *sv, size_t mi, const cJSON *in_map,
                        const cJSON *out_map, sp_site_ws *ws) {
  const cJSON *entry;
  sp_site site = {0};
  cJSON_ArrayForEach(entry, in_map) {
    const char *key = entry->string;
    size_t lig = SIZE_MAX;
    for (size_t l = 0; l < sv->n_ligands; l++) {
      if (sv->ligands[l].model != mi) continue;
      char k[64];
      ligand_key(s, sv, l, k, sizeof k);
      if (!strcmp(k, key)) lig = l;
    }
    TSU_CHECK(lig != SIZE_MAX, "%s: ligand %s not found by the survey (model %zu)", what, key, mi + 1);
    if (lig == SIZE_MAX) continue;
    sp_err err = {0};
    int rc = sp_site_compute(s, sv, lig, NULL, ws, &site, &err);
    TSU_CHECK(rc == 0, "%s: %s: %s", what, key, err.msg);
    if (rc) continue;
    tsu_check_site(s, sv, lig, 6.0f, 12000, &site); /* brute force on the real pipeline too */

    /* polymer residue keys of the site */
    size_t n_poly = 0;
    for (size_t k = 0; k < site.n_res; k++) {
      if (site.res[k].kind != SP_RES_KIND_POLYMER) continue;
      n_poly++;
      char rk[64];
      tsu_residue_key(s, site.res[k].residue, rk, sizeof rk);
      int listed = 0;
      const cJSON *e;
      cJSON_ArrayForEach(e, entry) if (cJSON_IsString(e) && !strcmp(e->valuestring, rk)) listed = 1;
      TSU_CHECK(listed, "%s: %s: site has %s, not in site_residues", what, key, rk);
    }
    TSU_CHECK(n_poly == (size_t)cJSON_GetArraySize(entry), "%s: %s: %zu polymer site residues, expected %d", what, key,
              n_poly, cJSON_GetArraySize(entry));
    const cJSON *not = out_map ? cJSON_GetObjectItemCaseSensitive(out_map, key) : NULL;
    const cJSON *e;
    cJSON_ArrayForEach(e, not) {
      if (!cJSON_IsString(e)) continue;
      int found = 0, exists = 0;
      for (size_t r = s->models[mi].first_residue; r < (size_t)s->models[mi].first_residue + s->models[mi].n_residues; r++) {
        char rk[64];
        tsu_residue_key(s, (uint32_t)r, rk, sizeof rk);
        if (!strcmp(rk, e->valuestring)) exists = 1;
      }
      for (size_t k = 0; k < site.n_res; k++) {
        char rk[64];
        tsu_residue_key(s, site.res[k].residue, rk, sizeof rk);
        if (!strcmp(rk, e->valuestring)) found = 1;
      }
      TSU_CHECK(exists, "%s: %s: residue %s of not_site_residues does not exist", what, key, e->valuestring);
      TSU_CHECK(!found, "%s: %s: %s is in the site but listed in not_site_residues", what, key, e->valuestring);
    }
  }
  sp_site_free(&site);
}

static void run_case(const char *dir, sp_ccd *shared_ccd, size_t *n_checked) {
  char path[1024];
  snprintf(path, sizeof path, "%s/expected.json", dir);
  char *text = slurp(path, NULL);
  TSU_CHECK(text != NULL, "cannot read %s", path);
  if (!text) return;
  cJSON *exp = cJSON_Parse(text);
  free(text);
  TSU_CHECK(exp != NULL, "bad JSON in %s", path);
  if (!exp) return;

  sp_ccd *ccd = shared_ccd, *own = NULL;
  const cJSON *ccdname = cJSON_GetObjectItemCaseSensitive(exp, "ccd");
  if (cJSON_IsString(ccdname)) {
    snprintf(path, sizeof path, "%s/%s", dir, ccdname->valuestring);
    sp_err err = {0};
    TSU_CHECK(sp_ccd_open(path, &own, &err) == 0, "%s: %s", path, err.msg);
    if (own) ccd = own;
  }
  const cJSON *inputs = cJSON_GetObjectItemCaseSensitive(exp, "inputs"), *in;
  cJSON_ArrayForEach(in, inputs) {
    if (!cJSON_IsString(in) || expected_to_fail(exp, in->valuestring)) continue;
    const cJSON *src = exp, *pf = cJSON_GetObjectItemCaseSensitive(exp, "per_file");
    const cJSON *over = pf ? cJSON_GetObjectItemCaseSensitive(pf, in->valuestring) : NULL;
    const cJSON *site_in = cJSON_GetObjectItemCaseSensitive(over && cJSON_GetObjectItemCaseSensitive(over, "site_residues") ? over : src, "site_residues");
    const cJSON *site_out = cJSON_GetObjectItemCaseSensitive(over && cJSON_GetObjectItemCaseSensitive(over, "not_site_residues") ? over : src, "not_site_residues");
    const cJSON *models = cJSON_GetObjectItemCaseSensitive(exp, "models");
    if (!site_in && !models) continue;

    snprintf(path, sizeof path, "%s/%s", dir, in->valuestring);
    sp_structure s;
    sp_err err = {0};
    int rc = read_structure(path, &s, &err);
    TSU_CHECK(rc == 0, "%s: read failed: %s", path, err.msg);
    if (rc == 0) {
      sp_site_ws *ws = sp_site_ws_new();
      sp_survey sv;
      memset(&sv, 0, sizeof sv);
      rc = sp_survey_run(&s, ccd, NULL, &sv, &err);
      TSU_CHECK(rc == 0, "%s: survey failed: %s", path, err.msg);
      if (rc == 0 && site_in) {
        check_sites(path, &s, &sv, 0, site_in, site_out, ws);
        (*n_checked)++;
      }
      sp_survey_free(&sv);
      if (models) { /* per-model sites with a survey of all models */
        sp_survey_opts o = {.all_models = true};
        memset(&sv, 0, sizeof sv);
        rc = sp_survey_run(&s, ccd, &o, &sv, &err);
        TSU_CHECK(rc == 0, "%s: survey (all models) failed: %s", path, err.msg);
        const cJSON *m;
        cJSON_ArrayForEach(m, models) {
          const cJSON *num = cJSON_GetObjectItemCaseSensitive(m, "model");
          const cJSON *sr = cJSON_GetObjectItemCaseSensitive(m, "site_residues");
          if (rc || !cJSON_IsNumber(num) || !sr) continue;
          size_t mi = SIZE_MAX;
          for (size_t k = 0; k < s.n_models; k++)
            if (s.models[k].model_num == num->valueint) mi = k;
          TSU_CHECK(mi != SIZE_MAX, "%s: no model %d", path, num->valueint);
          if (mi == SIZE_MAX) continue;
          check_sites(path, &s, &sv, mi, sr, NULL, ws);
          (*n_checked)++;
        }
        sp_survey_free(&sv);
      }
      sp_site_ws_free(ws);
    }
    sp_structure_free(&s);
  }
  if (own) sp_ccd_close(own);
  cJSON_Delete(exp);
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s CCD_FILE CASE_DIR...\n", argv[0]);
    return 2;
  }
  sp_ccd *ccd = NULL;
  sp_err err = {0};
  TSU_CHECK(sp_ccd_open(argv[1], &ccd, &err) == 0, "%s: %s", argv[1], err.msg);
  size_t n_checked = 0;
  for (int i = 2; i < argc; i++) run_case(argv[i], ccd, &n_checked);
  if (ccd) sp_ccd_close(ccd);
  TSU_CHECK(n_checked > 0, "no site expectation was checked");
  if (tsu_failures) {
    fprintf(stderr, "test_site_cases: %d failures\n", tsu_failures);
    return 1;
  }
  printf("test_site_cases: %zu structure/model site sets match expected.json\n", n_checked);
  return 0;
}

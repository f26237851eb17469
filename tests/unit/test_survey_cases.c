/* Survey against the shared edge cases (cases/Bxx/expected.json) with the real readers.
 * usage: test_survey_cases CASES_DIR DEFAULT_CCD [CASE_ID ...]
 *        test_survey_cases --print FILE CCD    (print the survey of one file)
 * Every case folder whose expected.json has `ligands`, `not_ligands`, `same_molecule`,
 * `not_same_molecule` or `models` is checked (case ids filter when given). The CCD of a
 * case is its ccd.cif if present, else DEFAULT_CCD. */
#include <cjson/cJSON.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sitepack/io.h"
#include "sitepack/molkey.h"
#include "sitepack/read.h"
#include "sitepack/survey.h"

#define SP_TEST_PREFIX() fprintf(stderr, "[%s] ", cur)
#include "sp_test.h"
static const char *cur = "";

/* "COMP/CHAIN/NUM[ICODE]" of residue r (auth ids when the file has them). */
static void res_key(const sp_structure *s, uint32_t r, char *out, size_t cap) {
  const sp_residue *R = &s->residues[r];
  const sp_chain *C = &s->chains[R->chain];
  char num[16];
  int32_t n = R->auth_seq_id != SP_SEQ_NONE ? R->auth_seq_id : R->label_seq_id;
  if (n == SP_SEQ_NONE) snprintf(num, sizeof num, ".");
  else snprintf(num, sizeof num, "%d", n);
  char ic[2] = {R->ins_code, 0};
  snprintf(out, cap, "%s/%s/%s%s", R->comp_id, C->auth_asym_id[0] ? C->auth_asym_id : C->label_asym_id, num, ic);
}

static void print_survey(const sp_structure *s, const sp_survey *sv) {
  for (size_t i = 0; i < sv->n_ligands; i++) {
    const sp_ligand *L = &sv->ligands[i];
    char k[64];
    printf("ligand %zu model %u class %s n_res %u atoms %u heavy %u ccd_heavy %d alt '%c' flags 0x%x key %s (%s) attach %lld:",
           i, L->model, sp_ligand_class_name(L->cls), L->n_res, L->n_atoms, L->n_heavy, L->n_ccd_heavy,
           L->altloc ? L->altloc : ' ', L->flags, L->molecule_key, L->key_source, (long long)L->attach_atom);
    for (uint32_t j = 0; j < L->n_res; j++) {
      res_key(s, sv->res_refs[L->res_first + j], k, sizeof k);
      printf(" %s", k);
    }
    printf("\n");
  }
  for (size_t i = 0; i < sv->n_comps; i++) {
    const sp_component_row *r = &sv->comps[i].row;
    printf("comp %s in_ccd %d key %s (%s) heavy %d type '%s' formula '%s'\n", r->comp_id, r->in_ccd, r->molecule_key,
           r->key_source, r->n_heavy_atoms, r->type, r->formula);
  }
}

static const char *jstr(const cJSON *o, const char *k) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
  return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* index of the ligand whose key (first residue) is `key`, -1 if none */
static long find_ligand(const sp_structure *s, const sp_survey *sv, uint32_t model, const char *key) {
  char k[64];
  for (size_t i = 0; i < sv->n_ligands; i++) {
    if (sv->ligands[i].model != model) continue;
    res_key(s, sv->res_refs[sv->ligands[i].res_first], k, sizeof k);
    if (!strcmp(k, key)) return (long)i;
  }
  return -1;
}

static bool has_flag(const cJSON *flags, const char *name) {
  const cJSON *f;
  cJSON_ArrayForEach(f, flags) if (cJSON_IsString(f) && !strcmp(f->valuestring, name)) return true;
  return false;
}

static void check_ligands(const sp_structure *s, const sp_survey *sv, uint32_t model, const cJSON *ligs,
                          sp_ccd *ccd) {
  size_t n_ours = 0;
  for (size_t i = 0; i < sv->n_ligands; i++) n_ours += sv->ligands[i].model == model;
  if ((size_t)cJSON_GetArraySize(ligs) != n_ours) {
    FAIL("model %u: %d ligands expected, %zu found", model + 1, cJSON_GetArraySize(ligs), n_ours);
    print_survey(s, sv);
  }
  const cJSON *e;
  cJSON_ArrayForEach(e, ligs) {
    char key[64];
    const char *ic = jstr(e, "ins_code");
    snprintf(key, sizeof key, "%s/%s/%s%s", jstr(e, "comp_id"), jstr(e, "auth_asym_id"), jstr(e, "auth_seq_id"),
             ic ? ic : "");
    long li = find_ligand(s, sv, model, key);
    if (li < 0) {
      FAIL("model %u: ligand %s not found", model + 1, key);
      continue;
    }
    const sp_ligand *L = &sv->ligands[li];
    const sp_residue *R0 = &s->residues[sv->res_refs[L->res_first]];
    const char *cls = jstr(e, "class");
    if (cls && strcmp(cls, sp_ligand_class_name(L->cls))) FAIL("%s: class %s, expected %s", key, sp_ligand_class_name(L->cls), cls);
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(e, "n_heavy_atoms");
    if (cJSON_IsNumber(v) && (int)L->n_heavy != v->valueint) FAIL("%s: %u heavy atoms, expected %d", key, L->n_heavy, v->valueint);
    v = cJSON_GetObjectItemCaseSensitive(e, "n_residues");
    if (cJSON_IsNumber(v) && (int)L->n_res != v->valueint) FAIL("%s: %u residues, expected %d", key, L->n_res, v->valueint);
    const char *alt = jstr(e, "altloc");
    char ours[2] = {L->altloc, 0};
    if (alt && strcmp(alt, ours)) FAIL("%s: altloc '%s', expected '%s'", key, ours, alt);
    const char *lab = jstr(e, "label_asym_id");
    if (lab && strcmp(lab, s->chains[R0->chain].label_asym_id))
      FAIL("%s: label_asym_id %s, expected %s", key, s->chains[R0->chain].label_asym_id, lab);
    const cJSON *res = cJSON_GetObjectItemCaseSensitive(e, "residues");
    if (cJSON_IsArray(res)) {
      int j = 0;
      const cJSON *r;
      cJSON_ArrayForEach(r, res) {
        char k[64];
        if ((uint32_t)j < L->n_res) res_key(s, sv->res_refs[L->res_first + j], k, sizeof k);
        else k[0] = 0;
        if (!cJSON_IsString(r) || strcmp(k, r->valuestring)) FAIL("%s: residue %d is %s, expected %s", key, j, k, r->valuestring);
        j++;
      }
    }
    const cJSON *flags = cJSON_GetObjectItemCaseSensitive(e, "flags");
    /* flags named by the cases, mapped onto the survey's bits and fields (docs/ligands.md) */
    struct {
      const char *name;
      bool ours;
      bool reverse; /* also: set only when expected */
    } fm[] = {
        {"covalent", (L->flags & SP_LIG_COVALENT) != 0, true},
        {"zero_occupancy", (L->flags & SP_LIG_ZERO_OCC) != 0, true},
        {"incomplete", (L->flags & SP_LIG_INCOMPLETE) != 0, true},
        {"not_in_ccd", (L->flags & SP_LIG_NOT_IN_CCD) != 0, false},
        {"altloc", (L->flags & SP_LIG_ALTLOC) != 0, false},
        {"bonds_from_distance", !strcmp(L->key_source, "distance"), false},
        {"reserved_or_obsolete_id", L->cls == SP_CLASS_UNKNOWN, false},
        {"no_template_atoms", L->n_ccd_heavy < 0 && !(L->flags & SP_LIG_NOT_IN_CCD), false},
    };
    for (size_t f = 0; f < sizeof fm / sizeof fm[0]; f++) {
      bool want = has_flag(flags, fm[f].name);
      if (want && !fm[f].ours) FAIL("%s: flag %s expected, not set (flags 0x%x, key source %s)", key, fm[f].name, L->flags, L->key_source);
      if (!want && fm[f].reverse && fm[f].ours) FAIL("%s: flag %s set, not expected", key, fm[f].name);
    }
    /* the other direction of altloc and not_in_ccd, which the cases name only where they matter: from
     * facts of the file and of the CCD, not from the survey. altloc set <=> some atom of the ligand's
     * residues has an altloc id; not_in_ccd set <=> some residue's comp_id has no block in the CCD. */
    bool any_alt = false, any_missing = false;
    for (uint32_t j = 0; j < L->n_res; j++) {
      const sp_residue *R = &s->residues[sv->res_refs[L->res_first + j]];
      for (uint32_t k = R->first_atom; k < R->first_atom + R->n_atoms; k++) any_alt |= s->altloc[k] != 0;
      sp_err ce = {0};
      if (!sp_ccd_get(ccd, R->comp_id, &ce) && !strstr(ce.msg, "parse")) any_missing = true;
    }
    if (any_alt != ((L->flags & SP_LIG_ALTLOC) != 0))
      FAIL("%s: altloc flag %d, but its residues %s altloc atoms", key, (L->flags & SP_LIG_ALTLOC) != 0,
           any_alt ? "have" : "have no");
    if (any_missing != ((L->flags & SP_LIG_NOT_IN_CCD) != 0))
      FAIL("%s: not_in_ccd flag %d, but %s of its comp_ids is missing from the CCD", key,
           (L->flags & SP_LIG_NOT_IN_CCD) != 0, any_missing ? "one" : "none");
    /* bonds_from_file: PDB CONECT records are not kept by the reader (model.h), so a
     * reserved id read from PDB gets distance bonds: documented in docs/ligands.md. */
    if (has_flag(flags, "bonds_from_file") && strcmp(L->key_source, "file") && strcmp(L->key_source, "distance"))
      FAIL("%s: bonds_from_file expected, key source %s", key, L->key_source);
    /* key present and versioned for every ligand with atoms */
    if (strncmp(L->molecule_key, "wl1-", 4)) FAIL("%s: no molecule key (%s)", key, L->key_source);
    /* comps row of the first comp */
    bool row = false;
    for (size_t i = 0; i < sv->n_comps; i++)
      if (!strcmp(sv->comps[i].row.comp_id, R0->comp_id)) {
        row = true;
        bool in = ccd && sp_ccd_get(ccd, R0->comp_id, NULL);
        if (sv->comps[i].row.in_ccd != in) FAIL("%s: comps row in_ccd %d", key, sv->comps[i].row.in_ccd);
      }
    if (!row) FAIL("%s: no comps row", key);
  }
}

static void check_not_ligands(const sp_structure *s, const sp_survey *sv, const cJSON *nl) {
  const cJSON *e;
  cJSON_ArrayForEach(e, nl) {
    const char *comp = jstr(e, "comp_id"), *ch = jstr(e, "auth_asym_id"), *num = jstr(e, "auth_seq_id");
    size_t seen = 0;
    for (size_t r = 0; r < s->n_residues; r++) {
      const sp_residue *R = &s->residues[r];
      if (s->chains[R->chain].model != 0 || strcmp(R->comp_id, comp)) continue;
      if (ch && strcmp(s->chains[R->chain].auth_asym_id, ch)) continue;
      if (num && R->auth_seq_id != atoi(num)) continue;
      seen++;
      if (sv->res_ligand[r] >= 0) FAIL("%s %s %s is a ligand (%s)", comp, ch ? ch : "", num ? num : "", jstr(e, "why"));
      if (sv->res_role[r] == SP_ROLE_LIGAND || sv->res_role[r] == SP_ROLE_ION) FAIL("%s has a ligand role", comp);
    }
    if (!seen) FAIL("not_ligands: %s not in the structure at all", comp);
  }
}

static void check_pairs(const sp_structure *s, const sp_survey *sv, const cJSON *pairs, bool same) {
  const cJSON *p;
  cJSON_ArrayForEach(p, pairs) {
    const char *a = cJSON_GetArrayItem(p, 0)->valuestring, *b = cJSON_GetArrayItem(p, 1)->valuestring;
    long la = find_ligand(s, sv, 0, a), lb = find_ligand(s, sv, 0, b);
    if (la < 0 || lb < 0) {
      FAIL("pair %s %s: ligand missing", a, b);
      continue;
    }
    bool eq = !strcmp(sv->ligands[la].molecule_key, sv->ligands[lb].molecule_key) && sv->ligands[la].molecule_key[0];
    if (same && !eq) FAIL("%s and %s should share a molecule key: %s vs %s", a, b, sv->ligands[la].molecule_key, sv->ligands[lb].molecule_key);
    if (!same && (eq || la == lb)) FAIL("%s and %s should be different molecules", a, b);
  }
}

static int run_one(const char *path, sp_ccd *ccd, bool all_models, sp_structure *s, sp_survey *sv) {
  sp_buf buf = {0};
  sp_err err = {0};
  int fmt = 0;
  sp_structure_init(s);
  int rc = sp_read_structure_file(path, 0, &buf, s, &fmt, &err);
  sp_buf_free(&buf);
  if (rc) {
    FAIL("read %s: %s", path, err.msg);
    return rc;
  }
  sp_survey_opts o = {all_models};
  rc = sp_survey_run(s, ccd, &o, sv, &err);
  if (rc) FAIL("survey %s: %s", path, err.msg);
  return rc;
}

static bool is_error_file(const cJSON *ex, const char *file) {
  const cJSON *ee = cJSON_GetObjectItemCaseSensitive(ex, "expect_error");
  if (cJSON_IsObject(ee)) return jstr(ee, "file") && !strcmp(jstr(ee, "file"), file);
  const cJSON *e;
  cJSON_ArrayForEach(e, ee) if (jstr(e, "file") && !strcmp(jstr(e, "file"), file)) return true;
  return false;
}

static int check_case(const char *dir, const char *default_ccd) {
  char path[2048];
  snprintf(path, sizeof path, "%s/expected.json", dir);
  char *txt = slurp(path, NULL);
  if (!txt) {
    FAIL("%s: cannot read", path);
    return 1;
  }
  cJSON *ex = cJSON_Parse(txt);
  if (!ex) {
    const char *e = cJSON_GetErrorPtr();
    FAIL("%s: not valid JSON (near byte %ld)", path, e ? (long)(e - txt) : -1L);
    free(txt);
    return 1;
  }
  free(txt);
  static const char *const keys[] = {"ligands", "not_ligands", "same_molecule", "not_same_molecule", "models", "per_file"};
  bool relevant = false;
  for (size_t i = 0; i < 6; i++) relevant |= cJSON_GetObjectItemCaseSensitive(ex, keys[i]) != NULL;
  const cJSON *pf = cJSON_GetObjectItemCaseSensitive(ex, "per_file");
  if (pf && !cJSON_GetObjectItemCaseSensitive(ex, "ligands")) {
    relevant = false;
    const cJSON *f;
    cJSON_ArrayForEach(f, pf) if (cJSON_GetObjectItemCaseSensitive(f, "ligands")) relevant = true;
  }
  if (!relevant) {
    cJSON_Delete(ex);
    return 0;
  }
  snprintf(path, sizeof path, "%s/ccd.cif", dir);
  sp_ccd *ccd = NULL;
  sp_err err = {0};
  FILE *f = fopen(path, "r");
  if (f) fclose(f);
  if (sp_ccd_open(f ? path : default_ccd, &ccd, &err)) {
    FAIL("CCD %s: %s", f ? path : default_ccd, err.msg);
    cJSON_Delete(ex);
    return 1;
  }
  const cJSON *in;
  int n_checked = 0;
  cJSON_ArrayForEach(in, cJSON_GetObjectItemCaseSensitive(ex, "inputs")) {
    const char *file = in->valuestring;
    if (is_error_file(ex, file)) continue;
    const cJSON *spec = ex;
    const cJSON *o = pf ? cJSON_GetObjectItemCaseSensitive(pf, file) : NULL;
    char label[2048];
    snprintf(label, sizeof label, "%s/%s", strrchr(dir, '/') ? strrchr(dir, '/') + 1 : dir, file);
    cur = label;
    snprintf(path, sizeof path, "%s/%s", dir, file);
    const cJSON *ligs = (o && cJSON_GetObjectItemCaseSensitive(o, "ligands")) ? cJSON_GetObjectItemCaseSensitive(o, "ligands")
                                                                             : cJSON_GetObjectItemCaseSensitive(spec, "ligands");
    const cJSON *nl = (o && cJSON_GetObjectItemCaseSensitive(o, "not_ligands")) ? cJSON_GetObjectItemCaseSensitive(o, "not_ligands")
                                                                               : cJSON_GetObjectItemCaseSensitive(spec, "not_ligands");
    const cJSON *models = cJSON_GetObjectItemCaseSensitive(spec, "models");
    sp_structure s;
    sp_survey sv;
    if (run_one(path, ccd, models != NULL, &s, &sv) == 0) {
      if (ligs) check_ligands(&s, &sv, 0, ligs, ccd);
      if (nl) check_not_ligands(&s, &sv, nl);
      const cJSON *p = cJSON_GetObjectItemCaseSensitive(spec, "same_molecule");
      if (p) check_pairs(&s, &sv, p, true);
      p = cJSON_GetObjectItemCaseSensitive(spec, "not_same_molecule");
      if (p) check_pairs(&s, &sv, p, false);
      const cJSON *m;
      cJSON_ArrayForEach(m, models) {
        const cJSON *num = cJSON_GetObjectItemCaseSensitive(m, "model");
        uint32_t mi = UINT32_MAX;
        for (size_t k = 0; k < s.n_models; k++)
          if (cJSON_IsNumber(num) && s.models[k].model_num == num->valueint) mi = (uint32_t)k;
        if (mi == UINT32_MAX) FAIL("model %d missing", num ? num->valueint : -1);
        else check_ligands(&s, &sv, mi, cJSON_GetObjectItemCaseSensitive(m, "ligands"), ccd);
      }
      n_checked++;
      sp_survey_free(&sv);
    }
    sp_structure_free(&s);
  }
  printf("%s: %d file(s) checked\n", dir, n_checked);
  sp_ccd_close(ccd);
  cJSON_Delete(ex);
  return n_checked;
}

static int cmp_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

int main(int argc, char **argv) {
  if (argc == 4 && !strcmp(argv[1], "--print")) {
    sp_ccd *ccd = NULL;
    sp_err err = {0};
    if (sp_ccd_open(argv[3], &ccd, &err)) {
      fprintf(stderr, "%s\n", err.msg);
      return 2;
    }
    sp_structure s;
    sp_survey sv;
    cur = argv[2];
    if (run_one(argv[2], ccd, false, &s, &sv) == 0) {
      print_survey(&s, &sv);
      sp_survey_free(&sv);
    }
    sp_structure_free(&s);
    sp_ccd_close(ccd);
    return g_fail ? 1 : 0;
  }
  if (argc < 3) {
    fprintf(stderr, "usage: %s CASES_DIR DEFAULT_CCD [CASE_ID ...]\n", argv[0]);
    return 2;
  }
  DIR *d = opendir(argv[1]);
  if (!d) {
    fprintf(stderr, "cannot open %s\n", argv[1]);
    return 2;
  }
  char *names[256];
  size_t n = 0;
  struct dirent *de;
  while ((de = readdir(d)) && n < 256) {
    if (de->d_name[0] != 'B' && de->d_name[0] != 'R') continue; /* shared, tests/cases */
    char p[1024];
    struct stat st;
    snprintf(p, sizeof p, "%s/%s", argv[1], de->d_name);
    if (stat(p, &st) == 0 && S_ISDIR(st.st_mode)) names[n++] = strdup(de->d_name); /* folders only (README.md) */
  }
  closedir(d);
  qsort(names, n, sizeof *names, cmp_name);
  int total = 0;
  for (size_t i = 0; i < n; i++) {
    bool want = argc == 3;
    for (int a = 3; a < argc; a++)
      if (!strncmp(names[i], argv[a], strlen(argv[a]))) want = true;
    if (want) {
      char dir[1024];
      snprintf(dir, sizeof dir, "%s/%s", argv[1], names[i]);
      total += check_case(dir, argv[2]);
    }
    free(names[i]);
  }
  if (total == 0) {
    fprintf(stderr, "no case checked\n");
    return 1;
  }
  if (g_fail) {
    fprintf(stderr, "%d failure(s)\n", g_fail);
    return 1;
  }
  printf("test_survey_cases: %d files, all checks passed\n", total);
  return 0;
}

/* Reader cases of tests/cases/Rxx_* (issue 20): every input of one case folder, mmCIF or PDB, read
 * through sp_read_structure_file (format detection included) and checked against the case's
 * expected.json. Keys (each optional; per_file.<input>.<key> overrides the top-level key):
 *   format            "pdb" / "mmcif": the detected format
 *   expect_error      {"file": INPUT, "class": "...", "message_contains": "..."} or a list of
 *                     them (the form of shared/cases): that input must fail so
 *   n_atoms, n_models total atom records, models
 *   models            [{"model": NUM, "n_atoms": N}]: model NUM (the MODEL / pdbx_PDB_model_num
 *                     number as stored) holds N atoms
 *   atoms_check       [{"atom_name", "comp_id", "auth_seq_id", "model", "element", "b_iso",
 *                     "occupancy", "charge", "element_from_name"}]: an atom of model `model`
 *                     (default: the first) with that name and residue has those values; "b_iso"
 *                     may be "nan"; element_from_name true/false: SP_ATOM_ELEMENT_FROM_NAME set
 *   n_element_from_name  atoms whose element came from their name
 *   warnings_contain  substrings (case-insensitive) that some warning must contain
 *   entry_id          the entry id sp_read_entry_peek finds in the file's head (upper-case)
 * usage: test_reader_cases CASE_DIR */
#include <cjson/cJSON.h>
#include <ctype.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sitepack/elements.h"
#include "sitepack/io.h"
#include "sitepack/read.h"

#include "sp_test.h"

static cJSON *load_json(const char *path) {
  sp_buf b;
  sp_err err = {0};
  if (sp_file_read(path, 0, &b, &err)) {
    fprintf(stderr, "cannot read %s: %s\n", path, err.msg);
    return NULL;
  }
  cJSON *j = cJSON_ParseWithLength(b.data, b.len);
  sp_buf_free(&b);
  return j;
}

static const sp_model *model_by_num(const sp_structure *s, int num) {
  for (size_t m = 0; m < s->n_models; ++m)
    if (s->models[m].model_num == num) return &s->models[m];
  return NULL;
}

static void check_atoms(const char *tag, const sp_structure *s, const cJSON *list) {
  const cJSON *a;
  cJSON_ArrayForEach(a, list) {
    const char *name = case_str(a, "atom_name"), *comp = case_str(a, "comp_id"), *num = case_str(a, "auth_seq_id");
    const cJSON *mdl = cJSON_GetObjectItemCaseSensitive(a, "model");
    const sp_model *m = mdl ? model_by_num(s, mdl->valueint) : (s->n_models ? &s->models[0] : NULL);
    size_t candidates = 0;
    bool found = false;
    for (uint32_t i = m ? m->first_atom : 0; m && i < m->first_atom + m->n_atoms && !found; ++i) {
      const sp_residue *r = &s->residues[s->atom_residue[i]];
      char nb[16];
      snprintf(nb, sizeof nb, "%d", r->auth_seq_id);
      if (name && strcmp(s->atom_name[i], name)) continue;
      if (comp && strcmp(r->comp_id, comp)) continue;
      if (num && strcmp(nb, num)) continue;
      ++candidates;
      found = case_atom_has(s, i, a);
    }
    CHECK_ATOM_FOUND(tag, found, a, candidates);
  }
}

static void check_models(const char *tag, const sp_structure *s, const cJSON *list) {
  const cJSON *m;
  cJSON_ArrayForEach(m, list) {
    const cJSON *num = cJSON_GetObjectItemCaseSensitive(m, "model"), *na = cJSON_GetObjectItemCaseSensitive(m, "n_atoms");
    const sp_model *sm = cJSON_IsNumber(num) ? model_by_num(s, num->valueint) : NULL;
    CHECK(sm != NULL, "%s: model %d missing", tag, cJSON_IsNumber(num) ? num->valueint : -1);
    if (sm && na) CHECK((int)sm->n_atoms == na->valueint, "%s: model %d: %u atoms, want %d", tag, num->valueint,
                        sm->n_atoms, na->valueint);
  }
}

static void check_read(const char *tag, const cJSON *exp, const char *file, const char *path, const sp_structure *s,
                       int fmt) {
  const cJSON *v;
  const char *f = (v = case_key(exp, file, "format")) && cJSON_IsString(v) ? v->valuestring : NULL;
  if (f) CHECK(!strcmp(sp_format_name(fmt), f), "%s: format %s, want %s", tag, sp_format_name(fmt), f);
  if ((v = case_key(exp, file, "n_atoms"))) CHECK((int)s->n_atoms == v->valueint, "%s: %zu atoms, want %d", tag, s->n_atoms, v->valueint);
  if ((v = case_key(exp, file, "n_models"))) CHECK((int)s->n_models == v->valueint, "%s: %zu models, want %d", tag, s->n_models, v->valueint);
  if ((v = case_key(exp, file, "models"))) check_models(tag, s, v);
  if ((v = case_key(exp, file, "atoms_check"))) check_atoms(tag, s, v);
  if ((v = case_key(exp, file, "n_element_from_name"))) {
    int n = 0;
    for (size_t i = 0; i < s->n_atoms; ++i) n += !!(s->atom_flags[i] & SP_ATOM_ELEMENT_FROM_NAME);
    CHECK(n == v->valueint, "%s: %d atoms with the element from the name, want %d", tag, n, v->valueint);
  }
  if ((v = case_key(exp, file, "entry_id")) && cJSON_IsString(v)) {
    char id[64];
    CHECK(sp_read_entry_peek(path, id, sizeof id, NULL) == 0 && !strcmp(id, v->valuestring),
          "%s: entry id from the head '%s', want '%s'", tag, id, v->valuestring);
  }
  if ((v = case_key(exp, file, "warnings_contain"))) {
    const cJSON *w;
    cJSON_ArrayForEach(w, v) {
      bool found = false;
      for (size_t i = 0; i < s->n_warnings && !found; ++i) found = ci_contains(sp_structure_warning(s, i), w->valuestring);
      CHECK(found, "%s: no warning containing '%s'", tag, w->valuestring);
    }
  }
}

static void check_file(const char *dir, const cJSON *exp, const char *file) {
  char path[2200], tag[512];
  snprintf(path, sizeof path, "%s/%s", dir, file);
  const char *id = case_str(exp, "case");
  snprintf(tag, sizeof tag, "%s %s", id ? id : "?", file);
  sp_structure s;
  sp_structure_init(&s);
  sp_buf b = {0};
  sp_err err = {0};
  int fmt = 0;
  int rc = sp_read_structure_file(path, 0, &b, &s, &fmt, &err);
  const cJSON *ee = case_error(exp, file);
  if (ee) {
    const char *cls = case_str(ee, "class"), *mc = case_str(ee, "message_contains");
    CHECK(rc != 0 && cls && !strcmp(sp_errclass_name(rc), cls), "%s: got %s (%s), want %s", tag,
          sp_errclass_name(rc), err.msg, cls ? cls : "?");
    if (mc) CHECK(ci_contains(err.msg, mc), "%s: message '%s' lacks '%s'", tag, err.msg, mc);
  } else {
    CHECK(rc == 0, "%s: %s: %s", tag, sp_errclass_name(rc), err.msg);
    if (!rc) check_read(tag, exp, file, path, &s, fmt);
  }
  printf("%s: %s, %zu atoms, %zu models, %zu warnings\n", tag, sp_errclass_name(rc), s.n_atoms, s.n_models,
         s.n_warnings);
  for (size_t i = 0; i < s.n_warnings; ++i) printf("  warning: %s\n", sp_structure_warning(&s, i));
  sp_buf_free(&b);
  sp_structure_free(&s);
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s CASE_DIR\n", argv[0]);
    return 2;
  }
  char jp[2100];
  snprintf(jp, sizeof jp, "%s/expected.json", argv[1]);
  cJSON *exp = load_json(jp);
  CHECK(exp != NULL, "cannot parse %s", jp);
  if (!exp) return sp_test_done("test_reader_cases");
  const cJSON *inputs = cJSON_GetObjectItemCaseSensitive(exp, "inputs"), *in;
  int n = 0;
  cJSON_ArrayForEach(in, inputs) {
    check_file(argv[1], exp, in->valuestring);
    ++n;
  }
  CHECK(n > 0, "%s: no inputs", argv[1]);
  cJSON_Delete(exp);
  return sp_test_done("test_reader_cases");
}

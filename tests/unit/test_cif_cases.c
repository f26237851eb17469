/* Case-driven tests of the CIF tokenizer, the mmCIF reader and the CCD reader.
 * Usage: test_cif_cases CASE_DIR   (a folder of shared/cases with expected.json)
 * Checks every key of expected.json that concerns reading: values_check, loops_check,
 * expect_error (class + message hint), n_models, n_atoms_model1, atoms_check, ligands
 * (residue identity, label chain, heavy atoms), site/not_site residue identities,
 * residue_atom_counts, links (struct_conn ends resolved), warnings_contain, ccd_check.
 * PDB inputs (.pdb) are skipped: another module reads them. */
#define _GNU_SOURCE 1 /* strcasestr */
#include <ctype.h>
#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <cjson/cJSON.h>

#include "sitepack/ccd.h"
#include "sitepack/cif.h"
#include "sitepack/elements.h"
#include "sitepack/mmcif.h"

#include "sp_test.h"

static bool ends_with(const char *s, const char *suf) {
  size_t a = strlen(s), b = strlen(suf);
  return a >= b && !strcmp(s + a - b, suf);
}

static const char *jstr(const cJSON *o, const char *k) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
  return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* key lookup with per_file override */
static const cJSON *jget(const cJSON *top, const cJSON *pf, const char *k) {
  const cJSON *v = pf ? cJSON_GetObjectItemCaseSensitive(pf, k) : NULL;
  return v ? v : cJSON_GetObjectItemCaseSensitive(top, k);
}

/* ------------------------------------------------------------ residue keys */

/* number text "101", "100A", "." -> seq + icode */
static bool parse_num(const char *s, int32_t *seq, char *icode) {
  *icode = 0;
  if (!strcmp(s, ".")) {
    *seq = SP_SEQ_NONE;
    return true;
  }
  char *end;
  long v = strtol(s, &end, 10);
  if (end == s) return false;
  *seq = (int32_t)v;
  if (*end && isalpha((unsigned char)*end) && !end[1]) *icode = *end;
  else if (*end) return false;
  return true;
}

static bool res_num_eq(const sp_residue *r, int32_t seq, char icode) {
  int32_t have = r->auth_seq_id != SP_SEQ_NONE ? r->auth_seq_id : r->label_seq_id;
  return have == seq && r->ins_code == icode;
}

/* find the residue (model index m) with auth chain, comp and number; the n-th match (0-based) */
static long find_res(const sp_structure *s, size_t m, const char *chain, const char *comp, const char *num, int nth) {
  int32_t seq;
  char ic;
  if (!parse_num(num, &seq, &ic)) return -1;
  const sp_model *mo = &s->models[m];
  for (uint32_t r = mo->first_residue; r < mo->first_residue + mo->n_residues; ++r) {
    const sp_residue *res = &s->residues[r];
    const sp_chain *c = &s->chains[res->chain];
    if (strcmp(c->auth_asym_id, chain) || strcmp(res->comp_id, comp) || !res_num_eq(res, seq, ic)) continue;
    if (nth-- == 0) return r;
  }
  return -1;
}

/* key "COMP/CHAIN/NUM" (ligand) or "CHAIN/COMP/NUM" (polymer residue), optional "#k" suffix,
 * optional trailing "/ATOM" when want_atom. Tries both orders. */
static long find_key(const sp_structure *s, const char *key, char *atom_out) {
  char buf[128];
  snprintf(buf, sizeof buf, "%s", key);
  int nth = 0;
  char *hash = strchr(buf, '#');
  if (hash) {
    nth = atoi(hash + 1) - 1;
    *hash = 0;
  }
  char *parts[5] = {0};
  int np = 0;
  for (char *p = buf; np < 5;) {
    parts[np++] = p;
    char *sl = strchr(p, '/');
    if (!sl) break;
    *sl = 0;
    p = sl + 1;
  }
  if (np < 3) return -1;
  if (atom_out) {
    if (np < 4) return -1;
    snprintf(atom_out, SP_ID_LEN, "%s", parts[3]);
  }
  long r = find_res(s, 0, parts[1], parts[0], parts[2], nth); /* COMP/CHAIN/NUM */
  if (r < 0) r = find_res(s, 0, parts[0], parts[1], parts[2], nth); /* CHAIN/COMP/NUM */
  return r;
}

static long find_atom_key(const sp_structure *s, const char *key) {
  char atom[SP_ID_LEN];
  long r = find_key(s, key, atom);
  if (r < 0) return -1;
  const sp_residue *res = &s->residues[r];
  for (uint32_t k = res->first_atom; k < res->first_atom + res->n_atoms; ++k)
    if (!strcmp(s->atom_name[k], atom)) return k;
  return -1;
}

/* ------------------------------------------------------------ checks */

static void check_values(const char *dir, const char *file, const cJSON *top) {
  const cJSON *vc = cJSON_GetObjectItemCaseSensitive(top, "values_check");
  const cJSON *lc = cJSON_GetObjectItemCaseSensitive(top, "loops_check");
  if (!vc && !lc) return;
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", dir, file);
  size_t len;
  char *text = slurp(path, &len);
  CHECK(text, "cannot read %s", path);
  if (!text) return;
  sp_cif_doc doc = {0};
  sp_err err = {0};
  int rc = sp_cif_parse(text, len, 0, &doc, &err);
  CHECK(rc == 0, "%s: parse failed: %s", file, err.msg);
  if (rc || !doc.n_blocks) goto done;
  const cJSON *it;
  cJSON_ArrayForEach(it, vc) {
    const char *f = jstr(it, "file");
    if (f && strcmp(f, file)) continue;
    const char *tag = jstr(it, "tag");
    const cJSON *row = cJSON_GetObjectItemCaseSensitive(it, "row");
    const sp_cif_block *b = &doc.blocks[0];
    const char *bn = jstr(it, "block");
    if (bn)
      for (size_t i = 0; i < doc.n_blocks; ++i)
        if (doc.blocks[i].name.n == strlen(bn) && !strncasecmp(doc.blocks[i].name.p, bn, strlen(bn))) b = &doc.blocks[i];
    const sp_cif_value *v = sp_cif_find_value(&doc, b, tag, row ? (uint32_t)row->valueint : 0);
    CHECK(v, "%s: %s row %d not found", file, tag, row ? row->valueint : 0);
    if (!v) continue;
    const char *want = jstr(it, "value");
    const char *rx = jstr(it, "value_regex");
    const cJSON *isnull = cJSON_GetObjectItemCaseSensitive(it, "is_null");
    if (cJSON_IsFalse(isnull)) CHECK(!sp_cif_is_null(v), "%s: %s should not be null", file, tag);
    if (want)
      CHECK(v->n == strlen(want) && !memcmp(v->p, want, v->n) && !sp_cif_is_null(v),
            "%s: %s = [%.*s], expected [%s]", file, tag, (int)v->n, v->p, want);
    if (rx) {
      regex_t re;
      char *val = strndup(v->p, v->n);
      CHECK(regcomp(&re, rx, REG_EXTENDED | REG_NOSUB) == 0, "bad regex %s", rx);
      CHECK(regexec(&re, val, 0, NULL, 0) == 0, "%s: %s = [%s] does not match %s", file, tag, val, rx);
      regfree(&re);
      free(val);
    }
  }
  cJSON_ArrayForEach(it, lc) {
    const char *f = jstr(it, "file");
    if (f && strcmp(f, file)) continue;
    const char *catn = jstr(it, "category");
    const sp_cif_category *c = sp_cif_find_category(&doc, &doc.blocks[0], catn);
    CHECK(c, "%s: loop %s not found", file, catn);
    if (!c) continue;
    int nc = cJSON_GetObjectItemCaseSensitive(it, "n_columns")->valueint;
    int nr = cJSON_GetObjectItemCaseSensitive(it, "n_rows")->valueint;
    CHECK(c->is_loop, "%s: %s is not a loop", file, catn);
    CHECK((int)c->n_cols == nc, "%s: %s has %u columns, expected %d", file, catn, c->n_cols, nc);
    CHECK((int)c->n_rows == nr, "%s: %s has %u rows, expected %d", file, catn, c->n_rows, nr);
  }
done:
  sp_cif_doc_free(&doc);
  free(text);
}

static int g_no_warnings; /* --no-warnings: warnings_contain is checked by a later stage's test */

static void check_structure(const char *file, const sp_structure *s, const cJSON *top, const cJSON *pf) {
  const cJSON *v;
  if ((v = jget(top, pf, "n_models"))) CHECK((int)s->n_models == v->valueint, "%s: %zu models, expected %d", file, s->n_models, v->valueint);
  if ((v = jget(top, pf, "n_atoms_model1")))
    CHECK((int)s->models[0].n_atoms == v->valueint, "%s: %u atoms in model 1, expected %d", file, s->models[0].n_atoms,
          v->valueint);
  const cJSON *it;
  cJSON_ArrayForEach(it, jget(top, pf, "atoms_check")) {
    const char *name = jstr(it, "atom_name"), *comp = jstr(it, "comp_id"), *chain = jstr(it, "auth_asym_id");
    const char *num = jstr(it, "auth_seq_id");
    const cJSON *model = cJSON_GetObjectItemCaseSensitive(it, "model");
    long found = -1;
    for (size_t m = 0; m < s->n_models && found < 0; ++m) {
      if (model ? s->models[m].model_num != model->valueint : m != 0) continue;
      const sp_model *mo = &s->models[m];
      for (uint32_t a = mo->first_atom; a < mo->first_atom + mo->n_atoms; ++a) {
        const sp_residue *r = &s->residues[s->atom_residue[a]];
        if (strcmp(s->atom_name[a], name) || (comp && strcmp(r->comp_id, comp))) continue;
        if (chain && strcmp(s->chains[r->chain].auth_asym_id, chain)) continue;
        if (num) {
          int32_t seq;
          char ic;
          if (!parse_num(num, &seq, &ic) || !res_num_eq(r, seq, ic)) continue;
        }
        found = a;
        break;
      }
    }
    CHECK(found >= 0, "%s: atom %s of %s not found", file, name, comp ? comp : "?");
    if (found < 0) continue;
    const char *el = jstr(it, "element");
    if (el) CHECK(!strcasecmp(sp_element_symbol(s->element[found]), el), "%s: atom %s element %s, expected %s", file, name,
                  sp_element_symbol(s->element[found]), el);
    const cJSON *xyz = cJSON_GetObjectItemCaseSensitive(it, "xyz");
    if (cJSON_GetArraySize(xyz) == 3)
      for (int k = 0; k < 3; ++k) {
        double w = cJSON_GetArrayItem(xyz, k)->valuedouble;
        CHECK(fabs(s->xyz[found][k] - w) < 5e-4, "%s: atom %s coord %d = %.4f, expected %.3f", file, name, k,
              s->xyz[found][k], w);
      }
    const cJSON *occ = cJSON_GetObjectItemCaseSensitive(it, "occupancy");
    if (occ) CHECK(fabs(s->occupancy[found] - occ->valuedouble) < 1e-4, "%s: atom %s occupancy %.3f", file, name, s->occupancy[found]);
    const cJSON *chg = cJSON_GetObjectItemCaseSensitive(it, "charge");
    if (chg) CHECK(s->charge[found] == chg->valueint, "%s: atom %s charge %d", file, name, s->charge[found]);
    const cJSON *ser = cJSON_GetObjectItemCaseSensitive(it, "serial");
    if (ser && cJSON_IsNumber(ser)) CHECK(s->serial[found] == ser->valueint, "%s: atom %s serial %d", file, name, s->serial[found]);
    const cJSON *ish = cJSON_GetObjectItemCaseSensitive(it, "is_hydrogen");
    if (ish) CHECK((s->element[found] == 1) == cJSON_IsTrue(ish), "%s: atom %s hydrogen flag", file, name);
  }
  cJSON_ArrayForEach(it, jget(top, pf, "ligands")) {
    const char *comp = jstr(it, "comp_id"), *chain = jstr(it, "auth_asym_id"), *num = jstr(it, "auth_seq_id");
    const char *ins = jstr(it, "ins_code"), *lab = jstr(it, "label_asym_id");
    char numbuf[32];
    snprintf(numbuf, sizeof numbuf, "%s%s", num, ins ? ins : "");
    long r = find_res(s, 0, chain, comp, numbuf, 0);
    CHECK(r >= 0, "%s: ligand residue %s/%s/%s not found", file, comp, chain, numbuf);
    if (r < 0) continue;
    const sp_residue *res = &s->residues[r];
    if (lab) CHECK(!strcmp(s->chains[res->chain].label_asym_id, lab), "%s: ligand %s label_asym_id %s, expected %s", file,
                   comp, s->chains[res->chain].label_asym_id, lab);
    /* heavy atoms: single-residue ligands without altlocs */
    const cJSON *nh = cJSON_GetObjectItemCaseSensitive(it, "n_heavy_atoms");
    const cJSON *nres = cJSON_GetObjectItemCaseSensitive(it, "n_residues");
    const cJSON *resl = cJSON_GetObjectItemCaseSensitive(it, "residues");
    long total = 0;
    bool alt = false;
    int count = 0;
    if (nres && nres->valueint > 1 && cJSON_IsArray(resl)) {
      const cJSON *rk;
      cJSON_ArrayForEach(rk, resl) {
        long rr = find_key(s, rk->valuestring, NULL);
        CHECK(rr >= 0, "%s: ligand residue %s not found", file, rk->valuestring);
        if (rr < 0) continue;
        ++count;
        const sp_residue *x = &s->residues[rr];
        for (uint32_t k = x->first_atom; k < x->first_atom + x->n_atoms; ++k) total += s->element[k] != 1, alt |= s->altloc[k] != 0;
      }
      CHECK(count == nres->valueint, "%s: %d residues of ligand %s", file, count, comp);
    } else {
      for (uint32_t k = res->first_atom; k < res->first_atom + res->n_atoms; ++k) total += s->element[k] != 1, alt |= s->altloc[k] != 0;
    }
    if (nh && !alt) CHECK(total == nh->valueint, "%s: ligand %s has %ld heavy atoms, expected %d", file, comp, total, nh->valueint);
  }
  const char *sets[2] = {"site_residues", "not_site_residues"};
  for (int k = 0; k < 2; ++k) {
    const cJSON *lig;
    cJSON_ArrayForEach(lig, jget(top, pf, sets[k])) {
      CHECK(find_key(s, lig->string, NULL) >= 0, "%s: ligand key %s not found", file, lig->string);
      const cJSON *rk;
      cJSON_ArrayForEach(rk, lig) CHECK(find_key(s, rk->valuestring, NULL) >= 0, "%s: residue %s not found", file, rk->valuestring);
    }
  }
  const cJSON *rc;
  cJSON_ArrayForEach(rc, jget(top, pf, "residue_atom_counts")) {
    long r = find_key(s, rc->string, NULL);
    CHECK(r >= 0 && (int)s->residues[r].n_atoms == rc->valueint, "%s: residue %s has %d atoms, expected %d", file, rc->string,
          r >= 0 ? (int)s->residues[r].n_atoms : -1, rc->valueint);
  }
  cJSON_ArrayForEach(it, jget(top, pf, "links")) {
    long a = find_atom_key(s, jstr(it, "from")), b = find_atom_key(s, jstr(it, "to"));
    CHECK(a >= 0 && b >= 0, "%s: link atoms %s / %s not found", file, jstr(it, "from"), jstr(it, "to"));
    bool seen = false;
    for (size_t i = 0; i < s->n_conns; ++i)
      if ((s->conns[i].a.atom == a && s->conns[i].b.atom == b) || (s->conns[i].a.atom == b && s->conns[i].b.atom == a)) {
        seen = true;
        const char *ty = jstr(it, "type");
        if (ty && !strcmp(ty, "covalent")) CHECK(s->conns[i].type == SP_CONN_COVALE, "%s: link type %d", file, s->conns[i].type);
      }
    CHECK(seen, "%s: no _struct_conn resolves to %s - %s", file, jstr(it, "from"), jstr(it, "to"));
  }
  if (g_no_warnings) return; /* warnings of a later stage (e.g. CCD template matching, case B27) */
  cJSON_ArrayForEach(it, jget(top, pf, "warnings_contain")) {
    bool seen = false;
    for (size_t i = 0; i < s->n_warnings; ++i) seen |= strcasestr(sp_structure_warning(s, i), it->valuestring) != NULL;
    CHECK(seen, "%s: no warning contains '%s'", file, it->valuestring);
  }
}

static void check_ccd(const char *dir, const cJSON *top) {
  const cJSON *it;
  cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(top, "ccd_check")) {
    const char *file = jstr(it, "file");
    if (!file) file = jstr(top, "ccd");
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    size_t len;
    char *text = slurp(path, &len);
    CHECK(text, "cannot read %s", path);
    if (!text) continue;
    sp_ccd *ccd = NULL;
    sp_err err = {0};
    int rc = sp_ccd_open_source(&(sp_ccd_source){.kind = SP_CCD_SRC_TEXT, .text = text, .len = len}, &ccd, &err);
    free(text);
    CHECK(rc == 0, "%s: %s", file, err.msg);
    if (rc) continue;
    const char *id = jstr(it, "comp_id");
    const sp_component *c = sp_ccd_get(ccd, id, &err);
    CHECK(c, "%s: component %s: %s", file, id, err.msg);
    if (c) {
      const cJSON *v;
      if ((v = cJSON_GetObjectItemCaseSensitive(it, "n_atoms"))) CHECK((int)c->n_atoms == v->valueint, "%s %s: %zu atoms", file, id, c->n_atoms);
      if ((v = cJSON_GetObjectItemCaseSensitive(it, "n_heavy_atoms")))
        CHECK((int)sp_component_heavy_atoms(c) == v->valueint, "%s %s: %zu heavy atoms", file, id, sp_component_heavy_atoms(c));
      if ((v = cJSON_GetObjectItemCaseSensitive(it, "n_bonds"))) CHECK((int)c->n_bonds == v->valueint, "%s %s: %zu bonds", file, id, c->n_bonds);
      int narom = 0, ndoub = 0;
      for (size_t i = 0; i < c->n_bonds; ++i) narom += c->bonds[i].aromatic, ndoub += c->bonds[i].order == 2;
      if ((v = cJSON_GetObjectItemCaseSensitive(it, "n_aromatic_bonds"))) CHECK(narom == v->valueint, "%s %s: %d aromatic bonds", file, id, narom);
      if ((v = cJSON_GetObjectItemCaseSensitive(it, "n_double_bonds"))) CHECK(ndoub == v->valueint, "%s %s: %d double bonds", file, id, ndoub);
      const char *rs = jstr(it, "release_status");
      if (rs) CHECK(!strcmp(c->release_status, rs), "%s %s: release status %s", file, id, c->release_status);
      const cJSON *lst = cJSON_GetObjectItemCaseSensitive(it, "atoms_without_model_xyz");
      if (lst) {
        int nmiss = 0;
        for (size_t i = 0; i < c->n_atoms; ++i) nmiss += !c->atoms[i].has_model_xyz;
        CHECK(nmiss == cJSON_GetArraySize(lst), "%s %s: %d atoms without model xyz", file, id, nmiss);
        const cJSON *a;
        cJSON_ArrayForEach(a, lst) {
          int k = sp_component_atom_index(c, a->valuestring);
          CHECK(k >= 0 && !c->atoms[k].has_model_xyz && c->atoms[k].has_ideal_xyz, "%s %s: atom %s model/ideal flags", file, id,
                a->valuestring);
        }
      }
      lst = cJSON_GetObjectItemCaseSensitive(it, "unknown_charge_atoms");
      if (lst) {
        int nunk = 0;
        for (size_t i = 0; i < c->n_atoms; ++i) nunk += !c->atoms[i].charge_known;
        CHECK(nunk == cJSON_GetArraySize(lst), "%s %s: %d atoms with unknown charge", file, id, nunk);
        const cJSON *a;
        cJSON_ArrayForEach(a, lst) {
          int k = sp_component_atom_index(c, a->valuestring);
          CHECK(k >= 0 && !c->atoms[k].charge_known && c->atoms[k].charge == 0, "%s %s: atom %s charge", file, id, a->valuestring);
        }
      }
      if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(it, "ideal_coordinates_missing")))
        for (size_t i = 0; i < c->n_atoms; ++i) CHECK(!c->atoms[i].has_ideal_xyz, "%s %s: atom %s has ideal xyz", file, id, c->atoms[i].name);
      if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(it, "no_zero_coordinates")))
        for (size_t i = 0; i < c->n_atoms; ++i) {
          const sp_comp_atom *a = &c->atoms[i];
          const float *x = a->has_model_xyz ? a->model_xyz : a->has_ideal_xyz ? a->ideal_xyz : NULL;
          CHECK(x && (x[0] != 0 || x[1] != 0 || x[2] != 0), "%s %s: atom %s has no usable coordinates", file, id, a->name);
        }
    }
    sp_ccd_close(ccd);
  }
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s CASE_DIR [--no-warnings]\n", argv[0]);
    return 2;
  }
  const char *dir = argv[1];
  g_no_warnings = argc > 2 && !strcmp(argv[2], "--no-warnings");
  char path[1024];
  snprintf(path, sizeof path, "%s/expected.json", dir);
  size_t len;
  char *js = slurp(path, &len);
  if (!js) {
    fprintf(stderr, "cannot read %s\n", path);
    return 1;
  }
  cJSON *top = cJSON_Parse(js);
  free(js);
  if (!top) {
    fprintf(stderr, "bad JSON in %s\n", path);
    return 1;
  }
  const cJSON *errs = cJSON_GetObjectItemCaseSensitive(top, "expect_error");
  const cJSON *per_file = cJSON_GetObjectItemCaseSensitive(top, "per_file");
  const cJSON *in;
  int n_inputs = 0;
  cJSON_ArrayForEach(in, cJSON_GetObjectItemCaseSensitive(top, "inputs")) {
    const char *file = in->valuestring;
    if (!ends_with(file, ".cif")) continue;
    ++n_inputs;
    const cJSON *expect = NULL, *e;
    if (cJSON_IsObject(errs) && !strcmp(jstr(errs, "file"), file)) expect = errs;
    if (cJSON_IsArray(errs)) {
      cJSON_ArrayForEach(e, errs) if (!strcmp(jstr(e, "file"), file)) expect = e;
    }
    snprintf(path, sizeof path, "%s/%s", dir, file);
    char *text = slurp(path, &len);
    CHECK(text, "cannot read %s", path);
    if (!text) continue;
    sp_structure s;
    sp_structure_init(&s);
    sp_err err = {0};
    int rc = sp_mmcif_read(text, len, &s, &err);
    if (expect) {
      const char *cls = jstr(expect, "class"), *hint = jstr(expect, "message_contains");
      CHECK(rc != 0 && !strcmp(sp_errclass_name(rc), cls), "%s: got %s (%s), expected %s", file, sp_errclass_name(rc), err.msg, cls);
      CHECK(err.cls == rc, "%s: err.cls %d != rc %d", file, err.cls, rc);
      if (hint) CHECK(strcasestr(err.msg, hint) != NULL, "%s: message '%s' lacks '%s'", file, err.msg, hint);
      printf("%s: %s: %s\n", file, sp_errclass_name(rc), err.msg);
    } else {
      CHECK(rc == 0, "%s: read failed: %s: %s", file, sp_errclass_name(rc), err.msg);
      if (!rc) {
        check_structure(file, &s, top, per_file ? cJSON_GetObjectItemCaseSensitive(per_file, file) : NULL);
        check_values(dir, file, top);
        /* re-use after clear gives the same structure */
        size_t n = s.n_atoms, nr = s.n_residues;
        sp_structure_clear(&s);
        CHECK(sp_mmcif_read(text, len, &s, &err) == 0 && s.n_atoms == n && s.n_residues == nr, "%s: re-read differs", file);
      }
    }
    sp_structure_free(&s);
    free(text);
  }
  check_ccd(dir, top);
  cJSON_Delete(top);
  printf("%s: %d mmCIF inputs, %d checks, %d failed\n", dir, n_inputs, g_checks, g_fail);
  return g_fail ? 1 : 0;
}

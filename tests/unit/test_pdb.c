/* Unit tests of the PDB reader (src/pdb/pdb.c):
 *   --rules            hybrid-36, element-from-name rule, inline texts (CRLF, short lines, errors)
 *   --case CASE_DIR    every PDB input of a synthetic case against its expected.json
 *                      (n_models, n_atoms_model1, atoms_check, models, residue_order, ligand
 *                      residues and altlocs seen, site residue keys, expect_error, warnings)
 *   --real SHARED_DIR  19hc.pdb.gz (LINK), pdb1aq5.ent.gz (20 models), 104d.pdb, 4kya.pdb */
#include <cjson/cJSON.h>
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sitepack/elements.h"
#include "sitepack/io.h"
#include "sitepack/pdb.h"

#include "sp_test.h"

static const char *g_shared;

static int read_pdb_file(const char *path, sp_buf *b, sp_structure *s, sp_err *err) {
  int rc = sp_file_read(path, 0, b, err);
  if (rc) return rc;
  return sp_pdb_read(b->data, b->len, s, err);
}

static cJSON *load_json(const char *path) {
  sp_buf b;
  sp_err err = {0};
  if (sp_file_read(path, 0, &b, &err)) {
    fprintf(stderr, "cannot read %s: %s\n", path, err.msg);
    return NULL;
  }
  cJSON *j = cJSON_Parse(b.data);
  sp_buf_free(&b);
  return j;
}

/* "100A" from a residue */
static void res_num(const sp_residue *r, char out[24]) {
  if (r->auth_seq_id == SP_SEQ_NONE) snprintf(out, 24, ".");
  else if (r->ins_code) snprintf(out, 24, "%d%c", r->auth_seq_id, r->ins_code);
  else snprintf(out, 24, "%d", r->auth_seq_id);
}

static const sp_model *model_by_num(const sp_structure *s, int num) {
  for (size_t m = 0; m < s->n_models; ++m)
    if (s->models[m].model_num == num) return &s->models[m];
  return NULL;
}

/* Does residue r (of chain c) match chain/comp/num given as strings (NULL = any)? */
static bool res_match(const sp_structure *s, const sp_residue *r, const char *chain, const char *comp,
                      const char *num) {
  char nb[24];
  res_num(r, nb);
  if (chain && strcmp(s->chains[r->chain].auth_asym_id, chain)) return false;
  if (comp && strcmp(r->comp_id, comp)) return false;
  if (num && strcmp(nb, num)) return false;
  return true;
}

static void check_atoms(const char *tag, const sp_structure *s, const cJSON *list) {
  const cJSON *a;
  cJSON_ArrayForEach(a, list) {
    const char *name = case_str(a, "atom_name"), *comp = case_str(a, "comp_id");
    const char *chain = case_str(a, "auth_asym_id"), *num = case_str(a, "auth_seq_id"), *serial = case_str(a, "serial");
    const cJSON *mdl = cJSON_GetObjectItemCaseSensitive(a, "model");
    int32_t want_serial = 0;
    if (serial) { /* as written in columns 7-11: right-justified, decimal or hybrid-36 */
      char pad[16];
      snprintf(pad, sizeof pad, "%5s", serial);
      CHECK(strlen(pad) == 5 && sp_hy36_decode(pad, 5, &want_serial) == 0, "serial '%s'", serial);
    }
    bool found = false;
    size_t candidates = 0;
    for (size_t i = 0; i < s->n_atoms && !found; ++i) {
      const sp_residue *r = &s->residues[s->atom_residue[i]];
      if (name && strcmp(s->atom_name[i], name)) continue;
      if (!res_match(s, r, chain, comp, num)) continue;
      const sp_model *m = &s->models[s->chains[r->chain].model];
      if (mdl ? m->model_num != mdl->valueint : m != &s->models[0]) continue;
      ++candidates;
      found = case_atom_has(s, i, a) && (!serial || s->serial[i] == want_serial);
    }
    CHECK_ATOM_FOUND(tag, found, a, candidates);
  }
}

/* "A/LYS/100A" residue keys of site lists must exist in model 1 */
static void check_residue_keys(const char *tag, const sp_structure *s, const cJSON *map) {
  const cJSON *lig;
  cJSON_ArrayForEach(lig, map) {
    const cJSON *k;
    cJSON_ArrayForEach(k, lig) {
      if (!cJSON_IsString(k)) continue;
      char buf[64];
      snprintf(buf, sizeof buf, "%s", k->valuestring);
      char *c1 = strchr(buf, '/'), *c2 = c1 ? strchr(c1 + 1, '/') : NULL;
      if (!c1 || !c2) continue;
      *c1 = *c2 = 0;
      bool found = false;
      const sp_model *m = &s->models[0];
      for (uint32_t r = m->first_residue; r < m->first_residue + m->n_residues && !found; ++r)
        found = res_match(s, &s->residues[r], buf, c1 + 1, c2 + 1);
      CHECK(found, "%s: residue %s not found", tag, k->valuestring);
    }
  }
}

static void check_no_cr(const char *tag, const sp_structure *s) {
  bool clean = true;
  for (size_t i = 0; i < s->n_atoms; ++i)
    if (strchr(s->atom_name[i], '\r')) clean = false;
  for (size_t i = 0; i < s->n_residues; ++i)
    if (strchr(s->residues[i].comp_id, '\r') || s->residues[i].ins_code == '\r') clean = false;
  for (size_t i = 0; i < s->n_chains; ++i)
    if (strchr(s->chains[i].auth_asym_id, '\r')) clean = false;
  for (size_t i = 0; i < s->n_atoms; ++i)
    if (s->altloc[i] == '\r') clean = false;
  CHECK(clean, "%s: a CR reached a field", tag);
}

static void check_file(const char *case_dir, const cJSON *exp, const char *file) {
  char path[2200], tag[512];
  snprintf(path, sizeof path, "%s/%s", case_dir, file);
  const char *case_id = case_str(exp, "case");
  snprintf(tag, sizeof tag, "%s %s", case_id ? case_id : "?", file);
  sp_structure s;
  sp_structure_init(&s);
  sp_buf b;
  sp_err err = {0};
  int rc = read_pdb_file(path, &b, &s, &err);
  const cJSON *ee = case_error(exp, file);
  if (ee) {
    const char *cls = case_str(ee, "class"), *mc = case_str(ee, "message_contains");
    CHECK(rc != 0 && cls && !strcmp(sp_errclass_name(rc), cls), "%s: got %s (%s), want %s", tag,
          sp_errclass_name(rc), err.msg, cls ? cls : "?");
    if (mc) CHECK(ci_contains(err.msg, mc), "%s: message '%s' lacks '%s'", tag, err.msg, mc);
    sp_buf_free(&b);
    sp_structure_free(&s);
    return;
  }
  CHECK(rc == 0, "%s: %s: %s", tag, sp_errclass_name(rc), err.msg);
  if (rc) {
    sp_buf_free(&b);
    sp_structure_free(&s);
    return;
  }
  CHECK(s.has_label_ids == 0 && s.has_auth_ids == 1, "%s: id flags", tag);
  check_no_cr(tag, &s);
  const cJSON *v;
  if ((v = case_key(exp, file, "n_models"))) CHECK((int)s.n_models == v->valueint, "%s: %zu models, want %d", tag, s.n_models, v->valueint);
  if ((v = case_key(exp, file, "n_atoms_model1")))
    CHECK(s.n_models && (int)s.models[0].n_atoms == v->valueint, "%s: %u atoms in model 1, want %d", tag,
          s.n_models ? s.models[0].n_atoms : 0, v->valueint);
  if ((v = case_key(exp, file, "atoms_check"))) check_atoms(tag, &s, v);
  if ((v = case_key(exp, file, "site_residues"))) check_residue_keys(tag, &s, v);
  if ((v = case_key(exp, file, "not_site_residues"))) check_residue_keys(tag, &s, v);
  if ((v = case_key(exp, file, "models"))) {
    const cJSON *m;
    cJSON_ArrayForEach(m, v) {
      int num = cJSON_GetObjectItemCaseSensitive(m, "model")->valueint;
      const sp_model *sm = model_by_num(&s, num);
      CHECK(sm != NULL, "%s: model %d missing", tag, num);
      const cJSON *na = cJSON_GetObjectItemCaseSensitive(m, "n_atoms");
      if (sm && na) CHECK((int)sm->n_atoms == na->valueint, "%s: model %d: %u atoms, want %d", tag, num, sm->n_atoms, na->valueint);
      const cJSON *nh = cJSON_GetObjectItemCaseSensitive(m, "n_hydrogens");
      if (sm && nh) {
        int h = 0;
        for (uint32_t i = sm->first_atom; i < sm->first_atom + sm->n_atoms; ++i) h += s.element[i] == 1;
        CHECK(h == nh->valueint, "%s: model %d: %d H, want %d", tag, num, h, nh->valueint);
      }
    }
  }
  if ((v = case_key(exp, file, "residue_order"))) {
    const cJSON *ch;
    cJSON_ArrayForEach(ch, v) {
      /* the residues of that chain whose key is listed, in file order, equal the list */
      int n = cJSON_GetArraySize(ch), k = 0;
      bool ok = true;
      const sp_model *m = &s.models[0];
      for (uint32_t r = m->first_residue; r < m->first_residue + m->n_residues; ++r) {
        const sp_residue *res = &s.residues[r];
        if (strcmp(s.chains[res->chain].auth_asym_id, ch->string)) continue;
        char nb[24];
        res_num(res, nb);
        bool listed = false;
        for (int i = 0; i < n; ++i) listed |= !strcmp(cJSON_GetArrayItem(ch, i)->valuestring, nb);
        if (!listed) continue;
        if (k >= n || strcmp(cJSON_GetArrayItem(ch, k)->valuestring, nb)) ok = false;
        ++k;
      }
      CHECK(ok && k == n, "%s: residue order of chain %s", tag, ch->string);
    }
  }
  if ((v = case_key(exp, file, "ligands"))) {
    const cJSON *l;
    cJSON_ArrayForEach(l, v) {
      const char *comp = case_str(l, "comp_id"), *chain = case_str(l, "auth_asym_id"), *num = case_str(l, "auth_seq_id");
      const char *ic = case_str(l, "ins_code");
      char key[32];
      snprintf(key, sizeof key, "%s%s", num ? num : "", ic ? ic : "");
      const sp_model *m = &s.models[0];
      const sp_residue *found = NULL;
      for (uint32_t r = m->first_residue; r < m->first_residue + m->n_residues && !found; ++r)
        if (res_match(&s, &s.residues[r], chain, comp, key)) found = &s.residues[r];
      CHECK(found != NULL, "%s: ligand residue %s/%s/%s missing", tag, comp, chain, key);
      const cJSON *seen = cJSON_GetObjectItemCaseSensitive(l, "altlocs_seen");
      if (found && seen) {
        char alts[16] = {0};
        size_t na = 0;
        for (uint32_t i = found->first_atom; i < found->first_atom + found->n_atoms; ++i)
          if (s.altloc[i] && !strchr(alts, s.altloc[i]) && na < 15) alts[na++] = s.altloc[i];
        bool same = (int)na == cJSON_GetArraySize(seen);
        const cJSON *a;
        cJSON_ArrayForEach(a, seen) same = same && strchr(alts, a->valuestring[0]) != NULL;
        CHECK(same, "%s: ligand %s/%s altlocs '%s'", tag, comp, key, alts);
      }
    }
  }
  if ((v = case_key(exp, file, "warnings_contain"))) {
    const cJSON *w;
    cJSON_ArrayForEach(w, v) {
      bool found = false;
      for (size_t i = 0; i < s.n_warnings && !found; ++i) found = ci_contains(sp_structure_warning(&s, i), w->valuestring);
      CHECK(found, "%s: no warning containing '%s'", tag, w->valuestring);
    }
  }
  sp_buf_free(&b);
  sp_structure_free(&s);
}

static void run_case(const char *dir) {
  char jp[1100];
  snprintf(jp, sizeof jp, "%s/expected.json", dir);
  cJSON *exp = load_json(jp);
  CHECK(exp != NULL, "cannot parse %s", jp);
  if (!exp) return;
  const cJSON *inputs = cJSON_GetObjectItemCaseSensitive(exp, "inputs"), *in;
  int n = 0;
  cJSON_ArrayForEach(in, inputs) {
    size_t L = strlen(in->valuestring);
    if (L > 4 && !strcmp(in->valuestring + L - 4, ".pdb")) {
      check_file(dir, exp, in->valuestring);
      ++n;
    }
  }
  CHECK(n > 0, "%s: no PDB input", dir);
  cJSON_Delete(exp);
}

/* ---- specific checks ---- */

static void test_hy36_and_elements(void) {
  int32_t v = 0;
  CHECK(sp_hy36_decode("99999", 5, &v) == 0 && v == 99999, "99999");
  CHECK(sp_hy36_decode("A0000", 5, &v) == 0 && v == 100000, "A0000 -> %d", v);
  CHECK(sp_hy36_decode("A0001", 5, &v) == 0 && v == 100001, "A0001 -> %d", v);
  CHECK(sp_hy36_decode("ZZZZZ", 5, &v) == 0 && v == 100000 + 26 * 1679616 - 1, "ZZZZZ -> %d", v);
  CHECK(sp_hy36_decode("a0000", 5, &v) == 0 && v == 100000 + 26 * 1679616, "a0000 -> %d", v);
  CHECK(sp_hy36_decode("A000", 4, &v) == 0 && v == 10000, "A000 -> %d", v);
  CHECK(sp_hy36_decode("  -12", 5, &v) == 0 && v == -12, "-12");
  CHECK(sp_hy36_decode("     ", 5, &v) == 1, "blank");
  CHECK(sp_hy36_decode("A0a00", 5, &v) == -1, "mixed case");
  CHECK(sp_hy36_decode(" A000", 5, &v) == -1, "short hybrid");
  CHECK(sp_hy36_decode("1 2  ", 5, &v) == -1, "inner blank");
  sp_sv ca = {"CA", 2}, asp = {"ASP", 3}, lg = {"LG3", 3}, hem = {"HEM", 3}, leu = {"LEU", 3};
  CHECK(sp_pdb_element_from_name("CA  ", ca) == 20, "CA ion");
  CHECK(sp_pdb_element_from_name(" CA ", asp) == 6, "C-alpha");
  CHECK(sp_pdb_element_from_name("BR1 ", lg) == 35, "BR1");
  CHECK(sp_pdb_element_from_name("FE  ", hem) == 26, "FE");
  CHECK(sp_pdb_element_from_name("1HB ", asp) == 1, "1HB");
  CHECK(sp_pdb_element_from_name("HD21", leu) == 1, "HD21");
  CHECK(sp_pdb_element_from_name("CD1 ", leu) == 6, "misaligned CD1 in LEU is carbon");
  CHECK(sp_pdb_element_from_name("C1A ", hem) == 6, "C1A");
  CHECK(sp_pdb_element_from_name(" D  ", asp) == 1, "deuterium");
}

static void test_inline(void) {
  sp_structure s;
  sp_structure_init(&s);
  sp_err err = {0};
  /* CRLF, a short line without element columns, MODEL numbers, charge "+2", bad coordinate */
  const char *t =
      "HEADER    TEST                                    01-JAN-00   9XYZ\r\n"
      "EXPDTA    X-RAY DIFFRACTION\r\n"
      "REMARK   2 RESOLUTION.    2.10 ANGSTROMS.\r\n"
      "MODEL        7\r\n"
      "HETATM    1 ZN    ZN A 301       1.000   2.000   3.000  0.50 10.00          ZN+2\r\n"
      "ATOM      2  CA  GLY A   1       4.000   5.000   6.000\r\n"
      "ENDMDL\r\n"
      "END\r\n"
      "ATOM      3  CA  GLY A   2      4.000   5.000   6.000  1.00  0.00           C\r\n";
  CHECK(sp_pdb_read(t, strlen(t), &s, &err) == 0, "inline: %s", err.msg);
  CHECK(s.n_atoms == 2 && s.n_models == 1 && s.models[0].model_num == 7, "inline: %zu atoms, model %d", s.n_atoms,
        s.n_models ? s.models[0].model_num : -1);
  CHECK(!strcmp(s.entry_id, "9XYZ") && !strcmp(s.method, "X-RAY DIFFRACTION") && fabsf(s.resolution - 2.1f) < 1e-6,
        "metadata '%s' '%s' %g", s.entry_id, s.method, s.resolution);
  if (s.n_atoms == 2) {
    CHECK(s.element[0] == 30 && s.charge[0] == 2 && fabsf(s.occupancy[0] - 0.5f) < 1e-6, "zinc +2");
    CHECK(s.element[1] == 6 && s.occupancy[1] == 1.0f && s.b_iso[1] == 0.0f, "short line defaults");
    CHECK(s.residues[0].label_seq_id == SP_SEQ_NONE && !strcmp(s.chains[0].label_asym_id, "A") &&
              !strcmp(s.chains[0].auth_asym_id, "A"),
          "no label ids in PDB: label chain copies auth, label_seq_id none");
  }
  sp_structure_free(&s);

  /* MD tools: 4-character residue name (column 21) and a 5-digit residue number (23-27) */
  sp_structure_init(&s);
  const char *md =
      "ATOM     52  OH2 TIP3W9999       9.296  11.745  -7.384  1.00  0.00           O\n"
      "ATOM     55  OH2 TIP3W10000      6.496  11.745  -4.484  1.00  0.00           O\n"
      "ATOM     56  H1  TIP3W10000      7.050  12.524  -4.516  1.00  0.00           H\n";
  CHECK(sp_pdb_read(md, strlen(md), &s, &err) == 0 && s.n_residues == 2, "MD names: %s, %zu residues", err.msg,
        s.n_residues);
  if (s.n_residues == 2) {
    CHECK(!strcmp(s.residues[0].comp_id, "TIP3") && s.residues[0].auth_seq_id == 9999, "TIP3 9999");
    CHECK(!strcmp(s.residues[1].comp_id, "TIP3") && s.residues[1].auth_seq_id == 10000 &&
              s.residues[1].ins_code == 0 && s.residues[1].n_atoms == 2 && !strcmp(s.chains[0].auth_asym_id, "W"),
          "TIP3 10000: seq %d icode '%c'", s.residues[1].auth_seq_id, s.residues[1].ins_code);
  }
  sp_structure_free(&s);

  sp_structure_init(&s);
  const char *bad = "ATOM      1  CA  GLY A   1       4.0x0   5.000   6.000  1.00  0.00           C\n";
  CHECK(sp_pdb_read(bad, strlen(bad), &s, &err) == SP_E_BAD_VALUE && strstr(err.msg, "line 1"), "bad x: %s",
        err.msg);
  sp_structure_free(&s);
  sp_structure_init(&s);
  const char *shortl = "REMARK\nATOM      1  CA  GLY A   1      4.000   5.000\n";
  CHECK(sp_pdb_read(shortl, strlen(shortl), &s, &err) == SP_E_BAD_VALUE && strstr(err.msg, "line 2"), "short: %s",
        err.msg);
  sp_structure_free(&s);
  sp_structure_init(&s);
  const char *badseq = "ATOM      1  CA  GLY A  x1       4.000   5.000   6.000  1.00  0.00           C\n";
  CHECK(sp_pdb_read(badseq, strlen(badseq), &s, &err) == SP_E_BAD_VALUE, "bad resSeq: %s", err.msg);
  sp_structure_free(&s);
  sp_structure_init(&s);
  CHECK(sp_pdb_read("", 0, &s, &err) == SP_E_NO_ATOMS && strstr(err.msg, "no atoms"), "empty");
  sp_structure_free(&s);
}

static int count_lines(const sp_buf *b, const char *rec) {
  int n = 0;
  size_t k = strlen(rec);
  for (const char *p = b->data; p && *p;) {
    if (!strncmp(p, rec, k)) ++n;
    const char *nl = strchr(p, '\n');
    p = nl ? nl + 1 : NULL;
  }
  return n;
}

static void real_path(char *out, size_t n, const char *name) {
  snprintf(out, n, "%s/data/structures/%s", g_shared, name);
}

static void test_real_files(void) {
  char p[1024];
  sp_structure s;
  sp_buf b;
  sp_err err = {0};

  /* 19hc.pdb.gz: 18 haems, LINK records (Fe-His metal coordination, Cys thioethers) */
  real_path(p, sizeof p, "19hc.pdb.gz");
  sp_structure_init(&s);
  CHECK(read_pdb_file(p, &b, &s, &err) == 0, "19hc: %s", err.msg);
  CHECK(b.gzip == 1, "19hc gzip");
  CHECK(s.n_models == 1 && s.n_atoms == 6098, "19hc: %zu atoms", s.n_atoms);
  CHECK(!strcmp(s.entry_id, "19HC") && !strcmp(s.method, "X-RAY DIFFRACTION") && fabsf(s.resolution - 1.80f) < 1e-5,
        "19hc metadata");
  int n_link = count_lines(&b, "LINK  "), n_ss = count_lines(&b, "SSBOND");
  CHECK(n_link == 72, "19hc has %d LINK lines", n_link);
  CHECK((int)s.n_conns == n_link + n_ss, "19hc: %zu conns, %d LINK + %d SSBOND", s.n_conns, n_link, n_ss);
  int n_hem = 0, n_metalc = 0, n_unresolved = 0, n_fe_links = 0, type_ok = 1;
  for (size_t r = 0; r < s.n_residues; ++r) n_hem += !strcmp(s.residues[r].comp_id, "HEM");
  CHECK(n_hem == 18, "19hc: %d HEM", n_hem);
  for (size_t i = 0; i < s.n_conns; ++i) {
    const sp_conn *c = &s.conns[i];
    n_unresolved += (c->a.atom < 0) + (c->b.atom < 0);
    n_metalc += c->type == SP_CONN_METALC;
    bool fe = !strcmp(c->a.atom_name, "FE") || !strcmp(c->b.atom_name, "FE");
    n_fe_links += fe;
    if (fe != (c->type == SP_CONN_METALC)) type_ok = 0;
    if (c->a.atom >= 0 && c->b.atom >= 0 && !isnan(c->distance)) {
      float d2 = 0;
      for (int k = 0; k < 3; ++k) d2 += (s.xyz[c->a.atom][k] - s.xyz[c->b.atom][k]) * (s.xyz[c->a.atom][k] - s.xyz[c->b.atom][k]);
      if (fabsf(sqrtf(d2) - c->distance) > 0.05f) {
        type_ok = 0;
        fprintf(stderr, "  link %zu: distance %.3f vs LINK %.2f\n", i, sqrtf(d2), c->distance);
      }
    }
  }
  CHECK(n_unresolved == 0, "19hc: %d unresolved link ends", n_unresolved);
  CHECK(n_fe_links > 0 && n_metalc == n_fe_links && type_ok, "19hc: %d metalc, %d Fe links", n_metalc, n_fe_links);
  if (s.n_conns) {
    const sp_conn *c = &s.conns[0]; /* LINK FE HEM A 301 - NE2 HIS A 37 1555 1555 2.00 */
    CHECK(c->type == SP_CONN_METALC && !strcmp(c->a.comp_id, "HEM") && c->a.auth_seq_id == 301 &&
              !strcmp(c->a.auth_asym_id, "A") && !strcmp(c->b.atom_name, "NE2") && c->b.auth_seq_id == 37 &&
              !strcmp(c->a.symmetry, "1_555") && fabsf(c->distance - 2.00f) < 1e-5 && s.element[c->a.atom] == 26,
          "19hc first LINK");
    const sp_conn *c3 = &s.conns[2]; /* LINK CAB HEM A 301 - SG CYS A 47 1.82 */
    CHECK(c3->type == SP_CONN_COVALE && !strcmp(c3->a.atom_name, "CAB") && !strcmp(c3->b.comp_id, "CYS") &&
              c3->b.auth_seq_id == 47 && fabsf(c3->distance - 1.82f) < 1e-5,
          "19hc third LINK");
  }
  int alt_a = 0, alt_b = 0;
  for (size_t i = 0; i < s.n_atoms; ++i) alt_a += s.altloc[i] == 'A', alt_b += s.altloc[i] == 'B';
  CHECK(alt_a > 0 && alt_b > 0, "19hc altlocs A %d B %d", alt_a, alt_b);
  CHECK(s.n_entities > 0 && s.entities[0].type == SP_ENT_POLYMER && s.entities[0].poly_type == SP_POLY_PEPTIDE_L,
        "19hc SEQRES entity");
  sp_buf_free(&b);
  sp_structure_free(&s);

  /* pdb1aq5.ent.gz: 20-model NMR ensemble */
  real_path(p, sizeof p, "pdb1aq5.ent.gz");
  sp_structure_init(&s);
  CHECK(read_pdb_file(p, &b, &s, &err) == 0, "1aq5: %s", err.msg);
  CHECK(s.n_models == 20, "1aq5: %zu models", s.n_models);
  bool nums = true, sizes = true;
  for (size_t m = 0; m < s.n_models; ++m) {
    nums &= s.models[m].model_num == (int)m + 1;
    sizes &= s.models[m].n_atoms == 2292;
  }
  CHECK(nums && sizes, "1aq5: model numbers 1..20, 2292 atoms each");
  CHECK(!strcmp(s.entry_id, "1AQ5") && !strcmp(s.method, "SOLUTION NMR") && isnan(s.resolution), "1aq5 metadata");
  CHECK(count_lines(&b, "MODEL ") == 20, "1aq5 MODEL lines");
  sp_buf_free(&b);
  sp_structure_free(&s);

  /* 104d.pdb: format v3.0 file, DNA/RNA hybrid */
  real_path(p, sizeof p, "104d.pdb");
  sp_structure_init(&s);
  CHECK(read_pdb_file(p, &b, &s, &err) == 0, "104d: %s", err.msg);
  CHECK(s.n_models == 1 && s.n_atoms == 766, "104d: %zu atoms", s.n_atoms);
  CHECK(!strcmp(s.entry_id, "104D") && !strcmp(s.method, "NMR") && isnan(s.resolution), "104d metadata");
  CHECK(s.n_entities == 2, "104d: %zu entities", s.n_entities);
  if (s.n_entities == 2) {
    const sp_entity *e = &s.entities[0];
    CHECK(!strcmp(e->id, "A") && !strcmp(e->strand_ids, "A") && e->seq_len == 12 && e->poly_type == SP_POLY_NA_HYBRID,
          "104d entity A: %s len %u type %u", e->id, e->seq_len, e->poly_type);
    CHECK(!strcmp(s.seq_comp[e->seq_first], "C") && !strcmp(s.seq_comp[e->seq_first + 4], "DT") &&
              !strcmp(s.seq_comp[e->seq_first + 11], "DG"),
          "104d sequence");
    CHECK(s.chains[0].entity == -1, "PDB chains are not linked to SEQRES entities");
  }
  sp_buf_free(&b);
  sp_structure_free(&s);

  /* 4kya.pdb: 33k atoms, 8 copies of 4 ligands */
  real_path(p, sizeof p, "4kya.pdb");
  sp_structure_init(&s);
  double t0 = sp_now();
  CHECK(read_pdb_file(p, &b, &s, &err) == 0, "4kya: %s", err.msg);
  double t1 = sp_now();
  CHECK(s.n_atoms == 33184, "4kya: %zu atoms", s.n_atoms);
  int n1ug = 0, nfol = 0, nndp = 0, nump = 0;
  for (size_t r = 0; r < s.n_residues; ++r) {
    n1ug += !strcmp(s.residues[r].comp_id, "1UG");
    nfol += !strcmp(s.residues[r].comp_id, "FOL");
    nndp += !strcmp(s.residues[r].comp_id, "NDP");
    nump += !strcmp(s.residues[r].comp_id, "UMP");
  }
  CHECK(n1ug == 8 && nfol == 8 && nndp == 8 && nump == 8, "4kya ligands %d %d %d %d", n1ug, nfol, nndp, nump);
  CHECK(fabsf(s.resolution - 3.26f) < 1e-5, "4kya resolution %g", s.resolution);
  printf("4kya.pdb: %zu atoms read+parsed in %.1f ms (informational)\n", s.n_atoms, (t1 - t0) * 1e3);
  sp_buf_free(&b);
  sp_structure_free(&s);
}

/* Mixed line ends (records joined by a lone CR inside LF-terminated text: a fresh-user trial's 1HVI with its
 * ligand block so) are read as line ends with one warning counting them; a serial that does not increase is
 * one warning for the file and one more with the count (before: one per model, which pushed the other
 * warnings out of /structures/warnings). */
static void test_line_ends_and_serials(void) {
  sp_structure s;
  sp_structure_init(&s);
  sp_err err = {0};
  const char *t =
      "MODEL        1\n"
      "ATOM      1  CA  GLY A   1       1.000   2.000   3.000  1.00  0.00           C\n"
      "HETATM    2  C1  LIG A 101       4.000   5.000   6.000  1.00  0.00           C\r"
      "HETATM    3  C2  LIG A 101       5.000   5.000   6.000  1.00  0.00           C\r"
      "HETATM    4  O1  LIG A 101       6.000   5.000   6.000  1.00  0.00           O\n"
      "HETATM    2  C1  LIG A 102       9.000   5.000   6.000  1.00  0.00           C\n"
      "ENDMDL\n"
      "MODEL        2\n"
      "ATOM      5  CA  GLY A   1       1.000   2.000   3.000  1.00  0.00           C\n"
      "ATOM      5  CB  GLY A   1       1.000   3.000   3.000  1.00  0.00           C\n"
      "ATOM      5  N   GLY A   1       1.000   4.000   3.000  1.00  0.00           N\n"
      "ENDMDL\n"
      "END\n";
  CHECK(sp_pdb_read(t, strlen(t), &s, &err) == 0, "line ends: %s", err.msg);
  CHECK(s.n_atoms == 8 && s.n_models == 2 && s.models[0].n_atoms == 5, "line ends: %zu atoms, %zu models (want 8, 2)",
        s.n_atoms, s.n_models);
  size_t n_cr = 0, n_serial = 0, n_more = 0;
  for (size_t i = 0; i < s.n_warnings; ++i) {
    const char *w = sp_structure_warning(&s, i);
    n_cr += strstr(w, "2 lone CR characters inside LF-terminated lines") != NULL;
    n_serial += strstr(w, "does not increase (previous 4)") != NULL;
    n_more += strstr(w, "atom serial does not increase at 2 more records") != NULL;
  }
  CHECK(n_cr == 1 && n_serial == 1 && n_more == 1 && s.n_warnings == 3,
        "warnings: CR %zu, serial %zu, count %zu of %zu (want 1, 1, 1 of 3)", n_cr, n_serial, n_more, s.n_warnings);
  sp_structure_free(&s);
}

int main(int argc, char **argv) {
  if (argc < 2 || (strcmp(argv[1], "--rules") && argc < 3)) {
    fprintf(stderr, "usage: %s --rules | --case CASE_DIR | --real SHARED_DIR\n", argv[0]);
    return 2;
  }
  if (!strcmp(argv[1], "--rules")) {
    test_hy36_and_elements();
    test_inline();
    test_line_ends_and_serials();
  } else if (!strcmp(argv[1], "--case")) {
    run_case(argv[2]);
  } else if (!strcmp(argv[1], "--real")) {
    g_shared = argv[2];
    test_real_files();
  } else {
    fprintf(stderr, "unknown mode %s\n", argv[1]);
    return 2;
  }
  printf("test_pdb %s: %d checks, %d failures\n", argv[1], g_checks, g_fail);
  return g_fail ? 1 : 0;
}

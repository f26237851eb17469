/* CIF 1.1 lexical and grammar rules on small inline texts (include/sitepack/cif.h). */
#define _GNU_SOURCE 1 /* strcasestr */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sitepack/ccd.h"
#include "sitepack/cif.h"
#include "sitepack/mmcif.h"

#include "sp_test.h"

static sp_cif_doc g_doc;

static int parse(const char *t) {
  sp_err e = {0};
  int rc = sp_cif_parse(t, strlen(t), 0, &g_doc, &e);
  if (rc) CHECK(e.cls == rc && e.msg[0], "error record not filled");
  return rc;
}

/* value of tag in row of block 0 as a NUL-terminated copy (static buffer), "<absent>" if absent */
static const char *val(const char *tag, uint32_t row, uint32_t *kind) {
  static char buf[512];
  const sp_cif_value *v = g_doc.n_blocks ? sp_cif_find_value(&g_doc, &g_doc.blocks[0], tag, row) : NULL;
  if (!v) return "<absent>";
  snprintf(buf, sizeof buf, "%.*s", (int)v->n, v->p);
  if (kind) *kind = v->kind;
  return buf;
}

static void expect_error(const char *text, int cls, const char *hint) {
  sp_err e = {0};
  int rc = sp_cif_parse(text, strlen(text), 0, &g_doc, &e);
  CHECK(rc == cls, "expected %s, got %s (%s) for: %.60s", sp_errclass_name(cls), sp_errclass_name(rc), e.msg, text);
  if (hint) CHECK(strcasestr(e.msg, hint) != NULL, "message '%s' lacks '%s'", e.msg, hint);
}

int main(void) {
  uint32_t kind = 99;

  /* quotes close only before whitespace; delimiters stripped; '' is empty, not null */
  CHECK(parse("data_x\n_a.b 'C4''\n_a.c \"O5'\"\n_a.d ''\n_a.e ?\n_a.f .\n_a.g '?'\n_a.h 'it's ok'\n") == 0, "parse");
  CHECK(!strcmp(val("_a.b", 0, &kind), "C4'") && kind == SP_CIF_QUOTED, "C4' got [%s]", val("_a.b", 0, NULL));
  CHECK(!strcmp(val("_a.c", 0, NULL), "O5'"), "O5'");
  CHECK(!strcmp(val("_a.d", 0, &kind), "") && kind == SP_CIF_QUOTED, "'' is an empty string");
  val("_a.e", 0, &kind);
  CHECK(kind == SP_CIF_UNKNOWN, "? is unknown");
  val("_a.f", 0, &kind);
  CHECK(kind == SP_CIF_INAPPLICABLE, ". is inapplicable");
  CHECK(!strcmp(val("_a.g", 0, &kind), "?") && kind == SP_CIF_QUOTED, "'?' is a string");
  CHECK(!strcmp(val("_a.h", 0, NULL), "it's ok"), "embedded quote: [%s]", val("_a.h", 0, NULL));
  CHECK(g_doc.blocks[0].n_cats == 1 && g_doc.cats[0].n_cols == 7, "pair items group into one category");

  /* comments: only at line start or after whitespace */
  CHECK(parse("# head\ndata_x # c\n_a.b TU#58 # comment\n_a.c x#y\n#_a.d 1\n") == 0, "parse");
  CHECK(!strcmp(val("_a.b", 0, NULL), "TU#58"), "TU#58");
  CHECK(!strcmp(val("_a.c", 0, NULL), "x#y"), "x#y");
  CHECK(!strcmp(val("_a.d", 0, NULL), "<absent>"), "commented item absent");

  /* text fields: lose only the final line terminator; CRLF normalised; ; inside line is data */
  CHECK(parse("data_x\r\n_a.t\r\n;line one\r\nline two; not end\r\n;\r\n_a.u\n;\nX\n;\n_a.v ;abc\n") == 0, "parse");
  CHECK(!strcmp(val("_a.t", 0, &kind), "line one\nline two; not end") && kind == SP_CIF_TEXT, "text [%s]", val("_a.t", 0, NULL));
  CHECK(!strcmp(val("_a.u", 0, NULL), "\nX"), "leading empty line kept: [%s]", val("_a.u", 0, NULL));
  CHECK(!strcmp(val("_a.v", 0, NULL), ";abc"), "mid-line ; is plain: [%s]", val("_a.v", 0, NULL));

  /* case-insensitive names, values keep case; loops spread over lines; CRLF */
  CHECK(parse("DATA_X\r\nLOOP_\r\n_Atom_Site.ID\r\n_ATOM_SITE.cartn_X\r\n1 1.5\r\n2\r\n-2.25 3 'x y'\r\n") == 0, "parse");
  const sp_cif_category *c = sp_cif_find_category(&g_doc, &g_doc.blocks[0], "_atom_site");
  CHECK(c && c->is_loop && c->n_rows == 3 && c->n_cols == 2, "loop shape");
  CHECK(c && sp_cif_find_column(&g_doc, c, "Cartn_x") == 1, "column lookup case-insensitive");
  CHECK(!strcmp(val("_atom_site.cartn_x", 2, NULL), "x y"), "row 3 col 2: [%s]", val("_atom_site.cartn_x", 2, NULL));
  CHECK(!strcmp(val("_atom_site.Cartn_x", 1, NULL), "-2.25"), "no CR in values: [%s]", val("_atom_site.Cartn_x", 1, NULL));
  CHECK(g_doc.blocks[0].name.n == 1 && g_doc.blocks[0].name.p[0] == 'X', "block name keeps case");

  /* several blocks; max_blocks stops early */
  {
    const char *t = "data_a\n_x.y 1\ndata_b\n_x.y 2\ndata_c\n_x.y 3\n";
    sp_err e = {0};
    CHECK(sp_cif_parse(t, strlen(t), 0, &g_doc, &e) == 0 && g_doc.n_blocks == 3, "3 blocks");
    const sp_cif_value *v = sp_cif_find_value(&g_doc, &g_doc.blocks[2], "_x.y", 0);
    CHECK(v && v->n == 1 && v->p[0] == '3', "block 3 value");
    CHECK(sp_cif_parse(t, strlen(t), 1, &g_doc, &e) == 0 && g_doc.n_blocks == 1, "max_blocks 1");
  }

  /* empty loops: at EOF, before a loop, before an item (another category ends the header) */
  CHECK(parse("data_x\nloop_\n_a.x\n_a.y\n") == 0 && g_doc.n_warnings == 1 && strstr(sp_cif_warning(&g_doc, 0), "empty loop"),
        "empty loop at EOF");
  CHECK(parse("data_x\nloop_\n_a.x\n_a.y\n_b.z 5\n") == 0 && !strcmp(val("_b.z", 0, NULL), "5") && g_doc.n_warnings == 1,
        "empty loop before item");
  CHECK(parse("data_x\nloop_\n_a.x\nloop_\n_b.z\n1 2\n") == 0 && !strcmp(val("_b.z", 1, NULL), "2"), "empty loop before loop");

  /* save frames skipped with a warning; nothing from them is visible */
  CHECK(parse("data_x\nsave_foo\n_a.b 1\nsave_\n_c.d 2\n") == 0 && !strcmp(val("_a.b", 0, NULL), "<absent>") &&
            !strcmp(val("_c.d", 0, NULL), "2") && g_doc.n_warnings == 1,
        "save frame");
  CHECK(parse("") == 0 && g_doc.n_blocks == 0, "empty text: no blocks");
  CHECK(parse("# only a comment\n\n") == 0 && g_doc.n_blocks == 0, "comment-only text");

  /* errors */
  expect_error("data_x\n_struct.title $frame\n", SP_E_SYNTAX, "_struct.title");
  expect_error("data_x\n_struct.title\n_struct.id 1\n", SP_E_SYNTAX, "_struct.title");
  expect_error("data_x\nloop_\n_atom_site.a\n_atom_site.b\n1 _ 2 3\n", SP_E_SYNTAX, "_atom_site");
  expect_error("data_x\nloop_\n_atom_site.a\n_atom_site.b\n1 2\n3\n#\n", SP_E_ROW_COUNT, "_atom_site");
  expect_error("data_x\nloop_\n_atom_site.a\n_atom_site.b\n1 2\n3\n_next.x 1\n", SP_E_ROW_COUNT, "_atom_site");
  expect_error("data_x\n_a.b 'open\n", SP_E_SYNTAX, "unterminated");
  expect_error("data_x\n_a.b\n;never closed\n", SP_E_SYNTAX, "text field");
  expect_error("data_x\nloop_\n1 2\n", SP_E_SYNTAX, "loop_");
  expect_error("_a.b 1\n", SP_E_SYNTAX, "data_");
  expect_error("global_\n_a.b 1\n", SP_E_SYNTAX, "global_");
  expect_error("data_x\nsave_a\n_a.b 1\n", SP_E_SYNTAX, "save");
  {
    const char bin[] = "data_x\n_a.b 1\0\1\2";
    sp_err e = {0};
    CHECK(sp_cif_parse(bin, sizeof bin - 1, 0, &g_doc, &e) == SP_E_BINARY, "NUL -> binary");
  }
  /* nothing is read beyond len: the text is cut inside a quoted value */
  {
    const char *t = "data_x\n_a.b 'abc' \n";
    sp_err e = {0};
    CHECK(sp_cif_parse(t, 15, 0, &g_doc, &e) == SP_E_SYNTAX, "cut quote -> syntax error");
    CHECK(sp_cif_parse(t, 17, 0, &g_doc, &e) == 0 && !strcmp(val("_a.b", 0, NULL), "abc"), "quote closed by end of text");
  }

  /* numbers: exact to the written precision */
  {
    double d;
    CHECK(sp_cif_parse_double("15.212", 6, &d) && d == 15.212, "15.212");
    CHECK(sp_cif_parse_double("-0.296", 6, &d) && d == -0.296, "-0.296");
    CHECK(sp_cif_parse_double("1.5e3", 5, &d) && d == 1500.0, "exponent");
    CHECK(sp_cif_parse_double("0.12(3)", 7, &d) && d == 0.12, "esd ignored");
    CHECK(sp_cif_parse_double("+7", 2, &d) && d == 7.0, "+7");
    CHECK(sp_cif_parse_double("12345.6789012345678", 19, &d) && fabs(d - 12345.6789012345678) < 1e-9, "long mantissa");
    CHECK((float)(sp_cif_parse_double("-8.682", 6, &d), d) == -8.682f, "float rounding");
    CHECK(!sp_cif_parse_double("?", 1, &d) && !sp_cif_parse_double("1.2.3", 5, &d) && !sp_cif_parse_double("nan", 3, &d) &&
              !sp_cif_parse_double("", 0, &d) && !sp_cif_parse_double("-", 1, &d) && !sp_cif_parse_double("inf", 3, &d),
          "non-numbers rejected");
    int32_t i;
    CHECK(sp_cif_parse_int("-12", 3, &i) && i == -12, "int");
    CHECK(!sp_cif_parse_int("2147483648", 10, &i) && sp_cif_parse_int("-2147483648", 11, &i) && i == INT32_MIN, "int range");
    CHECK(!sp_cif_parse_int("12A", 3, &i), "12A not an int");
  }

  /* mmCIF: minimal atom_site, errors */
  {
    const char *t =
        "data_m\nloop_\n_atom_site.id\n_atom_site.label_atom_id\n_atom_site.label_comp_id\n_atom_site.label_asym_id\n"
        "_atom_site.Cartn_x\n_atom_site.Cartn_y\n_atom_site.Cartn_z\n"
        "1 CA CA A 1.0 2.0 3.0\n2 1HB ALA B 4 5 6\n3 ZN ALA B 7 8 9\n";
    sp_structure s;
    sp_structure_init(&s);
    sp_err e = {0};
    CHECK(sp_mmcif_read(t, strlen(t), &s, &e) == 0, "minimal mmCIF: %s", e.msg);
    CHECK(s.n_atoms == 3 && s.element[0] == 20 && s.element[1] == 1 && s.element[2] == 30,
          "elements from names: %u %u %u", s.element[0], s.element[1], s.element[2]);
    CHECK(s.n_warnings >= 1 && strstr(sp_structure_warning(&s, 0), "inferred"), "inferred-element warning");
    CHECK(s.occupancy[0] == 1.0f && s.b_iso[0] == 0.0f && s.models[0].model_num == 1, "defaults");
    CHECK(!strcmp(s.chains[0].auth_asym_id, "A") && s.residues[0].auth_seq_id == SP_SEQ_NONE, "label copied to auth chain");
    CHECK(s.has_label_ids && !s.has_auth_ids, "id systems");
    sp_structure_free(&s);

    /* a one-atom _atom_site written as pairs, not a loop; HETATM, charge, altloc, ins code */
    sp_structure_init(&s);
    const char *one = "data_o\n_atom_site.group_PDB HETATM\n_atom_site.id 7\n_atom_site.type_symbol ZN\n"
                      "_atom_site.label_atom_id ZN\n_atom_site.label_alt_id B\n_atom_site.label_comp_id ZN\n"
                      "_atom_site.auth_asym_id Q\n_atom_site.auth_seq_id 301\n_atom_site.pdbx_PDB_ins_code A\n"
                      "_atom_site.Cartn_x -1.25\n_atom_site.Cartn_y 2.5\n_atom_site.Cartn_z 1e1\n"
                      "_atom_site.occupancy 0.50\n_atom_site.pdbx_formal_charge 2\n_atom_site.pdbx_PDB_model_num 3\n";
    CHECK(sp_mmcif_read(one, strlen(one), &s, &e) == 0, "pair-form atom_site: %s", e.msg);
    CHECK(s.n_atoms == 1 && s.element[0] == 30 && s.charge[0] == 2 && s.altloc[0] == 'B' && s.serial[0] == 7 &&
              s.xyz[0][0] == -1.25f && s.xyz[0][2] == 10.0f && s.occupancy[0] == 0.5f &&
              (s.atom_flags[0] & SP_ATOM_HETATM) && s.models[0].model_num == 3 && s.residues[0].auth_seq_id == 301 &&
              s.residues[0].ins_code == 'A' && s.residues[0].label_seq_id == SP_SEQ_NONE &&
              !strcmp(s.chains[0].label_asym_id, "Q") && !s.has_label_ids && s.has_auth_ids,
          "pair-form atom values");
    sp_structure_free(&s);

    sp_structure_init(&s);
    const char *bad = "data_m\nloop_\n_atom_site.id\n_atom_site.label_atom_id\n_atom_site.label_comp_id\n"
                      "_atom_site.Cartn_x\n_atom_site.Cartn_y\n_atom_site.Cartn_z\n1 C X 1 2 3\n2 C X 1 abc 3\n";
    CHECK(sp_mmcif_read(bad, strlen(bad), &s, &e) == SP_E_BAD_VALUE && strstr(e.msg, "row 2") && strstr(e.msg, "Cartn_y"),
          "bad coordinate: %s", e.msg);
    sp_structure_free(&s);
    sp_structure_init(&s);
    const char *noz = "data_m\nloop_\n_atom_site.id\n_atom_site.label_atom_id\n_atom_site.label_comp_id\n"
                      "_atom_site.Cartn_x\n_atom_site.Cartn_y\n1 C X 1 2\n";
    CHECK(sp_mmcif_read(noz, strlen(noz), &s, &e) == SP_E_MISSING_ITEM && strstr(e.msg, "Cartn_z"), "missing z: %s", e.msg);
    sp_structure_free(&s);
    sp_structure_init(&s);
    CHECK(sp_mmcif_read("data_m\n_entry.id X\n", 18, &s, &e) == SP_E_NO_ATOMS, "no atom_site");
    CHECK(sp_mmcif_read("", 0, &s, &e) == SP_E_NO_ATOMS, "empty file");
    CHECK(sp_mmcif_read("\x89PNG\r\n\x1a\n\0\0", 10, &s, &e) == SP_E_BINARY, "binary");
    sp_structure_free(&s);
  }

  /* CCD parse: obsolete entry, UNL with no atoms, monomer-library bond spelling */
  {
    const char *t = "data_UNL\n_chem_comp.id UNL\n_chem_comp.type NON-POLYMER\n_chem_comp.pdbx_release_status REL\n"
                    "data_OBX\n_chem_comp.id OBX\n_chem_comp.pdbx_release_status OBS\n_chem_comp.pdbx_replaced_by NEW\n"
                    "loop_\n_chem_comp_atom.comp_id\n_chem_comp_atom.atom_id\n_chem_comp_atom.type_symbol\n"
                    "_chem_comp_atom.charge\nOBX C1 C 0\nOBX N1 N ?\n"
                    "loop_\n_chem_comp_bond.comp_id\n_chem_comp_bond.atom_id_1\n_chem_comp_bond.atom_id_2\n"
                    "_chem_comp_bond.type\nOBX C1 N1 Triple\n";
    sp_ccd *ccd = NULL;
    sp_err e = {0};
    CHECK(sp_ccd_open_source(&(sp_ccd_source){.kind = SP_CCD_SRC_TEXT, .text = t, .len = strlen(t)},
        &ccd, &e) == 0, "ccd: %s", e.msg);
    if (ccd) {
      CHECK(sp_ccd_get_index(ccd)->n == 2, "2 blocks");
      const sp_component *u = sp_ccd_get(ccd, "UNL", &e);
      CHECK(u && u->n_atoms == 0 && u->n_bonds == 0, "UNL with no atoms");
      const sp_component *o = sp_ccd_get(ccd, "OBX", &e);
      CHECK(o && !strcmp(o->release_status, "OBS") && !strcmp(o->replaced_by, "NEW"), "obsolete");
      CHECK(o && o->n_bonds == 1 && o->bonds[0].order == 3 && o->atoms[1].charge_known == 0 && o->atoms[0].charge_known,
            "bond .type and ? charge");
      CHECK(o == sp_ccd_get(ccd, "OBX", &e), "cached pointer");
      CHECK(!sp_ccd_get(ccd, "ZZZ", &e) && e.cls == SP_E_NOT_FOUND, "absent id");
      sp_ccd_close(ccd);
    }
    CHECK(sp_ccd_open_source(&(sp_ccd_source){.kind = SP_CCD_SRC_TEXT, .text = "no blocks here\n", .len = 15},
        &ccd, &e) == SP_E_FORMAT && !ccd, "no data_ -> format");
    sp_component comp;
    CHECK(sp_component_parse("data_X\n_chem_comp.name foo\n", 27, &comp, &e) == SP_E_MISSING_ITEM, "no id");
  }

  /* long loop: values of every length 1..90 (crossing the scanner's 64-byte blocks), quoted
   * values with blanks, comments, text fields and nulls at varying places; every value is
   * compared with what was written */
  {
    size_t cap = 1 << 20, n = 0;
    char *t = malloc(cap);
    char(*want)[128] = malloc(3000 * sizeof *want);
    n += (size_t)sprintf(t + n, "data_L\nloop_\n_l.a\n_l.b\n_l.c\n");
    uint32_t seed = 7;
    for (int i = 0; i < 3000; ++i) {
      seed = seed * 1103515245u + 12345u;
      int len = 1 + (int)((seed >> 8) % 90), form = (int)((seed >> 20) % 7);
      char v[100];
      for (int k = 0; k < len; ++k) v[k] = (char)('A' + (i + k) % 26);
      v[len] = 0;
      const char *sep = (i % 3 == 2) ? "\n" : ((seed >> 4) & 1) ? " " : "\t  ";
      if (form == 0) n += (size_t)sprintf(t + n, "'%s x'%s", v, sep), snprintf(want[i], 128, "%s x", v);
      else if (form == 1 && !strcmp(sep, "\n")) n += (size_t)sprintf(t + n, "%s # c 'q\n", v), snprintf(want[i], 128, "%s", v);
      else if (form == 2) n += (size_t)sprintf(t + n, "\n;%s\n;\n", v), snprintf(want[i], 128, "%s", v);
      else if (form == 3) n += (size_t)sprintf(t + n, "?%s", sep), snprintf(want[i], 128, "?");
      else n += (size_t)sprintf(t + n, "%s%s", v, sep), snprintf(want[i], 128, "%s", v);
    }
    sp_err e = {0};
    CHECK(sp_cif_parse(t, n, 0, &g_doc, &e) == 0, "long loop: %s", e.msg);
    const sp_cif_category *lc = g_doc.n_blocks ? sp_cif_find_category(&g_doc, &g_doc.blocks[0], "_l") : NULL;
    CHECK(lc && lc->n_rows == 1000 && lc->n_cols == 3, "long loop shape");
    int bad = 0;
    for (uint32_t i = 0; lc && i < 3000; ++i) {
      const sp_cif_value *v = sp_cif_cell(&g_doc, lc, i % 3, i / 3);
      if (!(v->n == strlen(want[i]) && !memcmp(v->p, want[i], v->n))) {
        if (bad++ < 3) CHECK(0, "long loop value %u = [%.*s], expected [%s]", i, (int)v->n, v->p, want[i]);
      }
    }
    CHECK(bad == 0, "long loop: %d wrong values", bad);
    free(t);
    free(want);
  }

  /* robustness: deterministic mutations of a small entry never crash and always give a
   * clean result (0, or an error class with its message) */
  {
    const char *base =
        "data_F\n_entry.id F\n_struct.title\n;a title\n;\nloop_\n_entity.id\n_entity.type\n1 polymer\n2 'non-polymer'\n"
        "loop_\n_struct_conn.id\n_struct_conn.conn_type_id\n_struct_conn.ptnr1_label_asym_id\n"
        "_struct_conn.ptnr1_label_comp_id\n_struct_conn.ptnr1_label_seq_id\n_struct_conn.ptnr1_label_atom_id\n"
        "_struct_conn.ptnr2_label_asym_id\n_struct_conn.ptnr2_label_comp_id\n_struct_conn.ptnr2_label_seq_id\n"
        "_struct_conn.ptnr2_label_atom_id\ncovale1 covale A CYS 1 SG B LIG . C1\n"
        "loop_\n_atom_site.group_PDB\n_atom_site.id\n_atom_site.type_symbol\n_atom_site.label_atom_id\n"
        "_atom_site.label_comp_id\n_atom_site.label_asym_id\n_atom_site.label_entity_id\n_atom_site.label_seq_id\n"
        "_atom_site.Cartn_x\n_atom_site.Cartn_y\n_atom_site.Cartn_z\n_atom_site.pdbx_PDB_model_num\n"
        "ATOM 1 S SG CYS A 1 1 1.000 2.000 3.000 1\nHETATM 2 C C1 LIG B 2 . 1.500 2.500 3.500 1\n"
        "HETATM 3 O \"O5'\" LIG B 2 . 2.5 3.5 4.5 1\n";
    size_t n = strlen(base);
    char *buf = malloc(n + 16);
    const char pool[] = "'\";_#$.? \n\r\t\0aZ9-";
    uint32_t seed = 12345;
    int n_ok = 0, n_err = 0;
    for (int it = 0; it < 3000; ++it) {
      memcpy(buf, base, n);
      size_t m = n;
      int edits = 1 + it % 3;
      for (int k = 0; k < edits; ++k) {
        seed = seed * 1103515245u + 12345u;
        if (m == 0) break;
        size_t at = (seed >> 8) % m;
        seed = seed * 1103515245u + 12345u;
        int op = (int)((seed >> 8) % 3);
        if (op == 0) buf[at] = pool[(seed >> 16) % (sizeof pool - 1)];
        else if (op == 1) m = at; /* truncate */
        else if (m > 1) { memmove(buf + at, buf + at + 1, m - at - 1); --m; } /* delete */
      }
      char *copy = malloc(m ? m : 1); /* exact size: any read beyond len is caught by ASan */
      memcpy(copy, buf, m);
      sp_structure s;
      sp_structure_init(&s);
      sp_err e = {0};
      int rc = sp_mmcif_read(copy, m, &s, &e);
      CHECK(rc >= 0 && rc < SP_ERRCLASS_COUNT && (rc == 0 || (e.cls == rc && e.msg[0])), "mutation %d: rc %d", it, rc);
      if (rc == 0) CHECK(s.n_atoms > 0 && s.n_models > 0, "mutation %d: success without atoms", it);
      rc ? ++n_err : ++n_ok;
      sp_component comp;
      rc = sp_component_parse(copy, m, &comp, &e);
      if (!rc) sp_component_free(&comp);
      sp_structure_free(&s);
      free(copy);
    }
    CHECK(n_ok > 100 && n_err > 100, "mutations: %d read, %d rejected", n_ok, n_err);
    printf("mutations: %d read, %d rejected cleanly\n", n_ok, n_err);
    free(buf);
  }

  sp_cif_doc_free(&g_doc);
  if (g_fail) fprintf(stderr, "%d failures\n", g_fail);
  else printf("all tokenizer checks passed\n");
  return g_fail ? 1 : 0;
}

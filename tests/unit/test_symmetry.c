/* Crystal symmetry (symmetry.h) and symmetry mates in sites (site.h, docs/sites.md "Symmetry mates"):
 * operator strings, cell matrices, space groups by name (CCP4), the readers' cell / space group /
 * SCALE / explicit operators on hostile input, and sp_site_compute with symmetry mates against a
 * brute force over every operator and every lattice translation in [-3, 3]^3 on real entries.
 * usage: test_symmetry [STRUCTURE_FILE...] (real entries with symmetry contacts: 5KC1, 2ZOZ, 1R6A) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sitepack/read.h"
#include "sitepack/site.h"
#include "sitepack/survey.h"
#include "sitepack/symmetry.h"
#include "test_site_util.h"

#define CHECK TSU_CHECK

static int op_eq(const sp_symop *a, const double rot[9], const double trn[3]) {
  for (int i = 0; i < 3; i++) {
    for (int j = 0; j < 3; j++)
      if (fabs(a->rot[i][j] - rot[3 * i + j]) > 1e-12) return 0;
    if (fabs(a->trn[i] - trn[i]) > 1e-12) return 0;
  }
  return 1;
}

static void test_parse(void) {
  struct {
    const char *s;
    double rot[9], trn[3];
  } ok[] = {
      {"x,y,z", {1, 0, 0, 0, 1, 0, 0, 0, 1}, {0, 0, 0}},
      {"-x+1/2,y,-z", {-1, 0, 0, 0, 1, 0, 0, 0, -1}, {0.5, 0, 0}},
      {" 1/2+X , -Y ,Z ", {1, 0, 0, 0, -1, 0, 0, 0, 1}, {0.5, 0, 0}},
      {"x-y,x,z+5/6", {1, -1, 0, 1, 0, 0, 0, 0, 1}, {0, 0, 5.0 / 6}},
      {"-y+0.25,x,z", {0, -1, 0, 1, 0, 0, 0, 0, 1}, {0.25, 0, 0}},
      {"-x+y+2/3,-x+1/3,z+1/3", {-1, 1, 0, -1, 0, 0, 0, 0, 1}, {2.0 / 3, 1.0 / 3, 1.0 / 3}},
      {"+x,+y,+z", {1, 0, 0, 0, 1, 0, 0, 0, 1}, {0, 0, 0}},
      {"x,y,z-1", {1, 0, 0, 0, 1, 0, 0, 0, 1}, {0, 0, -1}},
      {"1*x,y,z", {1, 0, 0, 0, 1, 0, 0, 0, 1}, {0, 0, 0}},
  };
  for (size_t k = 0; k < sizeof ok / sizeof *ok; k++) {
    sp_symop op;
    int rc = sp_symop_parse(ok[k].s, strlen(ok[k].s), &op);
    CHECK(rc == 0 && op_eq(&op, ok[k].rot, ok[k].trn), "parse '%s'", ok[k].s);
    if (rc) continue;
    /* round trip through the triplet writer */
    char t[128];
    sp_symop_format(&op, t, sizeof t);
    sp_symop back;
    CHECK(sp_symop_parse(t, strlen(t), &back) == 0 && op_eq(&back, ok[k].rot, ok[k].trn), "round trip '%s' -> '%s'",
          ok[k].s, t);
  }
  char t[128];
  sp_symop op;
  sp_symop_parse("-x+1/2,y,-z", 11, &op);
  sp_symop_format(&op, t, sizeof t);
  CHECK(!strcmp(t, "-x+1/2,y,-z"), "format gives '%s'", t);
  const char *bad[] = {"", "x,y", "x,y,z,x", "x,,z", "x,y,w", "x+,y,z", "x,y,z/0", "1/0+x,y,z", "2x,y,z",
                       "x,x,z", "0,y,z", "x,y,z+1e999", "x*y,y,z", "x;y;z", "++x,y,z", "x,y,1/2", "--", "x,y,z+",
                       "x,y,z 1", "7*x,y,z", "x,y,z+2000"};
  for (size_t k = 0; k < sizeof bad / sizeof *bad; k++)
    CHECK(sp_symop_parse(bad[k], strlen(bad[k]), &op) != 0, "'%s' must be refused", bad[k]);
  CHECK(sp_symop_parse("x,y\0,z", 6, &op) != 0, "an embedded NUL is refused");
  CHECK(sp_symop_parse(NULL, 3, &op) != 0, "NULL refused");
  /* deterministic garbage: never crashes, anything accepted is a valid operator */
  uint64_t st = 12345;
  const char alphabet[] = "xyzXYZ+-*/,.0123456789 ";
  for (int it = 0; it < 200000; it++) {
    char b[24];
    size_t n = 1 + (size_t)(st % 20);
    for (size_t i = 0; i < n; i++) {
      st = st * 6364136223846793005ULL + 1442695040888963407ULL;
      b[i] = alphabet[(st >> 33) % (sizeof alphabet - 1)];
    }
    if (sp_symop_parse(b, n, &op) == 0) {
      for (int i = 0; i < 3; i++) CHECK(isfinite(op.trn[i]), "accepted '%.*s' with a non-finite translation", (int)n, b);
    }
  }
  char tag[16];
  sp_symop_tag(1, (const int[3]){1, 0, 0}, tag, sizeof tag);
  CHECK(!strcmp(tag, "2_655"), "tag %s", tag);
  sp_symop_tag(0, (const int[3]){-5, 4, 0}, tag, sizeof tag);
  CHECK(!strcmp(tag, "1_095"), "tag %s", tag);
  sp_symop_tag(191, (const int[3]){-6, 0, 99}, tag, sizeof tag);
  CHECK(!strcmp(tag, "192_-6_0_99"), "tag %s", tag);
}

static void test_cell(void) {
  const double cells[][6] = {{71.47, 72.0, 73.39, 90, 101.13, 90}, {50, 50, 120, 90, 90, 120},
                             {40.1, 50.2, 60.3, 70.5, 80.5, 95.5}};
  for (size_t k = 0; k < 3; k++) {
    double o[3][3], f[3][3];
    CHECK(sp_cell_matrices(cells[k], o, f) == 0, "cell %zu", k);
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++) {
        double v = 0;
        for (int q = 0; q < 3; q++) v += o[i][q] * f[q][j];
        CHECK(fabs(v - (i == j)) < 1e-12, "cell %zu: orth * frac [%d][%d] = %g", k, i, j, v);
      }
    CHECK(fabs(o[0][0] - cells[k][0]) < 1e-12, "a along x");
    /* |orth e_b| = b */
    double bl = sqrt(o[0][1] * o[0][1] + o[1][1] * o[1][1] + o[2][1] * o[2][1]);
    CHECK(fabs(bl - cells[k][1]) < 1e-9, "|b| = %g", bl);
  }
  const double dummy[6] = {1, 1, 1, 90, 90, 90}, flat[6] = {10, 10, 10, 90, 90, 180}, nanc[6] = {NAN, 1, 1, 90, 90, 90};
  const double degen[6] = {10, 10, 10, 120, 120, 120}, neg[6] = {-10, 10, 10, 90, 90, 90};
  CHECK(!sp_cell_is_crystal(dummy) && !sp_cell_is_crystal(flat) && !sp_cell_is_crystal(nanc) &&
            !sp_cell_is_crystal(degen) && !sp_cell_is_crystal(neg),
        "dummy / degenerate cells are not crystal cells");
}

static void test_spacegroups(void) {
  if (!sp_spacegroup_library()) {
    fprintf(stderr, "test_symmetry: no CCP4 library in this build: space-group names not tested\n");
    return;
  }
  struct {
    const char *name;
    int n;
    const char *xhm;
  } g[] = {{"P 1", 1, "P 1"},           {"P -1", 2, "P -1"},          {"P 1 21 1", 2, "P 1 21 1"},
           {"P 21", 2, "P 1 21 1"},     {"C 1 2 1", 4, "C 1 2 1"},    {"P 21 21 21", 4, "P 21 21 21"},
           {"'P 21 21 21'", -1, ""},    {"P  21  21  21 ", 4, "P 21 21 21"}, {"H 3", 9, "R 3 :H"},
           {"R 3", 9, "R 3 :H"},        {"R 3 2", 18, "R 3 2 :H"},    {"H 3 2", 18, "R 3 2 :H"},
           {"I 41/a", 16, "I 41/a :1"}, {"P 43 21 2", 8, "P 43 21 2"}, {"B 1 1 2", 4, "B 1 1 2"},
           {"F 4 3 2", 96, "F 4 3 2"},  {"I 21 3", 24, "I 21 3"},     {"P 65 2 2", 12, "P 65 2 2"},
           {"P 2 21 21", 4, "P 2 21 21"}};
  sp_symop *ops = malloc(SP_SYM_MAX_OPS * sizeof *ops);
  for (size_t k = 0; k < sizeof g / sizeof *g; k++) {
    int n = 0;
    char xhm[24];
    sp_err e = {0};
    int rc = sp_spacegroup_ops(g[k].name, NULL, ops, &n, xhm, sizeof xhm, &e);
    if (g[k].n < 0) {
      CHECK(rc != 0, "'%s' must be refused", g[k].name);
      continue;
    }
    CHECK(rc == 0 && n == g[k].n && !strcmp(xhm, g[k].xhm), "'%s': rc %d, %d operators (%s), expected %d (%s): %s",
          g[k].name, rc, n, xhm, g[k].n, g[k].xhm, e.msg);
    if (rc == 0) CHECK(sp_symop_is_identity_rot(&ops[0]) && ops[0].trn[0] == 0, "'%s': identity first", g[k].name);
  }
  /* a rhombohedral cell selects the rhombohedral setting */
  const double rcell[6] = {50, 50, 50, 80, 80, 80};
  int n = 0;
  char xhm[24];
  CHECK(sp_spacegroup_ops("R 3 2", rcell, ops, &n, xhm, sizeof xhm, NULL) == 0 && n == 6 && !strcmp(xhm, "R 3 2 :R"),
        "R 3 2 in a rhombohedral cell: %d %s", n, xhm);
  const char *refused[] = {"", "   ", "P 1; rm -rf", "P 1\n", "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", "P 1 %s"};
  for (size_t k = 0; k < sizeof refused / sizeof *refused; k++)
    CHECK(sp_spacegroup_ops(refused[k], NULL, ops, &n, NULL, 0, NULL) == SP_E_INVALID, "'%s' refused", refused[k]);
  CHECK(sp_spacegroup_ops("Q 9 9 9", NULL, ops, &n, NULL, 0, NULL) == SP_E_NOT_FOUND, "unknown group");
  free(ops);
}

/* Readers on hand-made and hostile text: never a crash, never a failed file. */
static void test_readers(void) {
  sp_structure s;
  sp_structure_init(&s);
  sp_crystal *cr = malloc(sizeof *cr);
  const char *atom = "ATOM      1  CA  ALA A   1      11.104   6.134  -6.504  1.00  0.00           C\n";
  struct {
    const char *cryst;
    int crystal;
    double a;
    const char *sg;
  } p[] = {
      {"CRYST1   71.470   72.000   73.390  90.00 101.13  90.00 C 1 2 1       4          \n", 1, 71.47, "C 1 2 1"},
      {"CRYST1    1.000    1.000    1.000  90.00  90.00  90.00 P 1           1          \n", 0, 1.0, "P 1"},
      {"CRYST1   71.470   7x.000   73.390  90.00 101.13  90.00 C 1 2 1       4          \n", 0, NAN, ""},
      {"CRYST1   71.470\n", 0, NAN, ""},
      {"CRYST1\n", 0, NAN, ""},
      {"CRYST1   71.470   72.000   73.390  90.00 101.13  90.00 Q 9 9         4          \n", 0, 71.47, "Q 9 9"},
      {"CRYST1   71.470   72.000   73.390 -90.00 101.13  90.00 P 1                      \n", 0, 71.47, "P 1"},
      {"CRYST1 99999999 99999999 99999999 179.99 179.99 179.99 P 1                      \n", 0, 99999999, "P 1"},
  };
  for (size_t k = 0; k < sizeof p / sizeof *p; k++) {
    char text[512];
    snprintf(text, sizeof text, "%s%s", p[k].cryst, atom);
    sp_structure_clear(&s);
    int fmt = 0;
    sp_err e = {0};
    int rc = sp_read_structure_text(text, strlen(text), &s, &fmt, &e);
    CHECK(rc == 0, "CRYST1 case %zu: %s", k, e.msg);
    if (rc) continue;
    CHECK(isnan(p[k].a) ? isnan(s.cell[0]) : fabs(s.cell[0] - p[k].a) < 1e-9, "case %zu: a = %g", k, s.cell[0]);
    CHECK(!strcmp(s.spacegroup, p[k].sg), "case %zu: space group '%s'", k, s.spacegroup);
    sp_crystal_resolve(&s, cr, NULL);
    CHECK((cr->n_ops > 0) == p[k].crystal || !sp_spacegroup_library(), "case %zu: %d operators (%s)", k, cr->n_ops,
          cr->why);
  }
  /* mmCIF: explicit operators win over the name; one bad operator drops them all (name used instead) */
  const char *cif_head =
      "data_X\n_cell.length_a 50\n_cell.length_b 60\n_cell.length_c 70\n_cell.angle_alpha 90\n"
      "_cell.angle_beta 90\n_cell.angle_gamma 90\n_symmetry.space_group_name_H-M 'P 21 21 21'\n";
  const char *cif_atoms =
      "loop_\n_atom_site.group_PDB\n_atom_site.id\n_atom_site.type_symbol\n_atom_site.label_atom_id\n"
      "_atom_site.label_comp_id\n_atom_site.label_asym_id\n_atom_site.label_seq_id\n_atom_site.Cartn_x\n"
      "_atom_site.Cartn_y\n_atom_site.Cartn_z\nATOM 1 C CA ALA A 1 1.0 2.0 3.0\n";
  const char *ops_good = "loop_\n_space_group_symop.id\n_space_group_symop.operation_xyz\n1 x,y,z\n2 '-x, y+1/2, -z'\n";
  const char *ops_bad = "loop_\n_space_group_symop.id\n_space_group_symop.operation_xyz\n1 x,y,z\n2 -x,y+1/2,-w\n";
  const char *ops_equiv = "loop_\n_symmetry_equiv.id\n_symmetry_equiv.pos_as_xyz\n1 x,y,z\n2 -x,-y,z\n3 ?\n";
  const char *variants[3] = {ops_good, ops_bad, ops_equiv};
  const size_t want_file_ops[3] = {2, 0, 0};
  const int want_ops[3] = {2, 4, 4};
  for (int k = 0; k < 3; k++) {
    char text[2048];
    snprintf(text, sizeof text, "%s%s%s", cif_head, variants[k], cif_atoms);
    sp_structure_clear(&s);
    int fmt = 0;
    sp_err e = {0};
    int rc = sp_read_structure_text(text, strlen(text), &s, &fmt, &e);
    CHECK(rc == 0, "mmCIF case %d: %s", k, e.msg);
    if (rc) continue;
    CHECK(s.n_symops == want_file_ops[k], "mmCIF case %d: %zu explicit operators", k, s.n_symops);
    sp_crystal_resolve(&s, cr, NULL);
    if (sp_spacegroup_library() || k == 0)
      CHECK(cr->n_ops == want_ops[k] && cr->source == (k == 0 ? SP_SYM_FILE : SP_SYM_NAME),
            "mmCIF case %d: %d operators from %d (%s)", k, cr->n_ops, cr->source, cr->why);
    CHECK(fabs(s.cell[2] - 70) < 1e-12 && !strcmp(s.spacegroup, "P 21 21 21"), "mmCIF case %d: cell/name", k);
  }
  free(cr);
  sp_structure_free(&s);
}

/* ---- sites with symmetry mates vs a brute force ---- */

typedef struct bf_res {
  int op, t[3];
  uint32_t res;
  float d;
} bf_res;

static int cmp_bf(const void *a, const void *b) {
  const bf_res *x = a, *y = b;
  if (x->op != y->op) return x->op - y->op;
  for (int d = 0; d < 3; d++)
    if (x->t[d] != y->t[d]) return x->t[d] - y->t[d];
  return (x->res > y->res) - (x->res < y->res);
}

static void test_real(const char *path) {
  sp_structure s;
  sp_structure_init(&s);
  sp_buf buf = {0};
  sp_err e = {0};
  int fmt = 0;
  if (sp_read_structure_file(path, 0, &buf, &s, &fmt, &e)) {
    CHECK(0, "%s: %s", path, e.msg);
    sp_buf_free(&buf);
    return;
  }
  sp_buf_free(&buf);
  sp_survey sv;
  memset(&sv, 0, sizeof sv);
  CHECK(tsu_survey(&s, &sv) == 0, "survey");
  sp_crystal *cr = malloc(sizeof *cr);
  sp_crystal_resolve(&s, cr, NULL);
  if (cr->n_ops == 0) {
    CHECK(!sp_spacegroup_library(), "%s: no crystal symmetry resolved: %s", path, cr->why);
    goto done;
  }
  sp_site_ws *ws = sp_site_ws_new(), *ws2 = sp_site_ws_new();
  sp_site off = {0}, on = {0};
  const float cutoff = 6.0f;
  sp_site_opts o_off = {.cutoff = cutoff}, o_on = {.cutoff = cutoff, .symmetry_mates = true};
  size_t cap = 1 << 16, n_img_total = 0, n_lig_with = 0;
  bf_res *bf = malloc(cap * sizeof *bf);
  for (size_t li = 0; li < sv.n_ligands; li++) {
    if (sv.ligands[li].model != 0) continue;
    CHECK(sp_site_compute(&s, &sv, li, &o_off, ws, &off, &e) == 0, "site off: %s", e.msg);
    CHECK(sp_site_compute(&s, &sv, li, &o_on, ws2, &on, &e) == 0, "site on: %s", e.msg);
    if (on.flags & SP_SITE_OVERSIZE) continue;
    /* the asymmetric-unit part is the ordinary site, unchanged */
    size_t n_asym_res = 0;
    while (n_asym_res < on.n_res && on.res[n_asym_res].image == 0) n_asym_res++;
    CHECK(n_asym_res == off.n_res, "%s ligand %zu: %zu asymmetric-unit residues, %zu without symmetry", path, li,
          n_asym_res, off.n_res);
    for (size_t r = 0; r < off.n_res && r < on.n_res; r++)
      CHECK(on.res[r].residue == off.res[r].residue && on.res[r].min_distance == off.res[r].min_distance,
            "residue %zu differs", r);
    for (size_t a = 0; a < off.n_atoms && a < on.n_atoms; a++)
      CHECK(on.atoms[a] == off.atoms[a] && on.atom_flags[a] == off.atom_flags[a] &&
                !memcmp(on.xyz[a], s.xyz[on.atoms[a]], sizeof on.xyz[a]),
            "atom %zu differs", a);
    CHECK(!(on.flags & SP_SITE_SYMMETRY_PARTIAL), "no partial flag");
    CHECK(((on.flags & SP_SITE_SYMMETRY) != 0) == (on.n_res > off.n_res), "symmetry flag");
    /* brute force: every operator, every translation in [-3, 3]^3 except the identity, every chosen atom */
    const sp_ligand *L = &sv.ligands[li];
    size_t nb = 0;
    double mlo[3] = {INFINITY, INFINITY, INFINITY}, mhi[3] = {-INFINITY, -INFINITY, -INFINITY};
    double llo[3] = {INFINITY, INFINITY, INFINITY}, lhi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (size_t a = s.models[0].first_atom; a < (size_t)s.models[0].first_atom + s.models[0].n_atoms; a++)
      for (int i = 0; i < 3; i++) {
        mlo[i] = fmin(mlo[i], s.xyz[a][i]);
        mhi[i] = fmax(mhi[i], s.xyz[a][i]);
      }
    for (size_t h = 0; h < L->n_atoms; h++) {
      uint32_t la = sv.atom_refs[L->atom_first + h];
      if (s.element[la] == 1) continue;
      for (int i = 0; i < 3; i++) {
        llo[i] = fmin(llo[i], s.xyz[la][i]);
        lhi[i] = fmax(lhi[i], s.xyz[la][i]);
      }
    }
    for (int k = 0; k < cr->n_ops; k++) {
      double rf[3][3], M[3][3], T0[3];
      for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
          rf[i][j] = 0;
          for (int q = 0; q < 3; q++) rf[i][j] += cr->ops[k].rot[i][q] * cr->frac[q][j];
        }
      for (int i = 0; i < 3; i++) {
        T0[i] = 0;
        for (int j = 0; j < 3; j++) {
          M[i][j] = 0;
          for (int q = 0; q < 3; q++) M[i][j] += cr->orth[i][q] * rf[q][j];
          double tv = cr->ops[k].trn[j] - cr->shift[j];
          for (int q = 0; q < 3; q++) tv += cr->ops[k].rot[j][q] * cr->shift[q];
          T0[i] += cr->orth[i][j] * tv;
        }
      }
      int t[3];
      for (t[0] = -3; t[0] <= 3; t[0]++)
        for (t[1] = -3; t[1] <= 3; t[1]++)
          for (t[2] = -3; t[2] <= 3; t[2]++) {
            if (sp_symop_is_identity_rot(&cr->ops[k]) && cr->ops[k].trn[0] + t[0] == 0 &&
                cr->ops[k].trn[1] + t[1] == 0 && cr->ops[k].trn[2] + t[2] == 0)
              continue;
            double T[3];
            for (int i = 0; i < 3; i++) T[i] = T0[i] + cr->orth[i][0] * t[0] + cr->orth[i][1] * t[1] + cr->orth[i][2] * t[2];
            /* skip images whose Cartesian box (the 8 corners of the model's box, transformed) misses the
               ligand's box grown by the cutoff: a necessary condition, independent of the code's own */
            int miss = 0;
            for (int i = 0; i < 3 && !miss; i++) {
              double lo = INFINITY, hi = -INFINITY;
              for (int c = 0; c < 8; c++) {
                double v = T[i];
                for (int j = 0; j < 3; j++) v += M[i][j] * ((c >> j & 1) ? mhi[j] : mlo[j]);
                lo = fmin(lo, v);
                hi = fmax(hi, v);
              }
              miss = hi < llo[i] - cutoff - 0.01 || lo > lhi[i] + cutoff + 0.01;
            }
            if (miss) continue;
            const sp_model *m = &s.models[0];
            uint32_t last_r = UINT32_MAX;
            for (size_t a = m->first_atom; a < (size_t)m->first_atom + m->n_atoms; a++) {
              if (!sp_survey_atom_chosen(&s, &sv, a)) continue;
              double y[3];
              for (int i = 0; i < 3; i++)
                y[i] = M[i][0] * s.xyz[a][0] + M[i][1] * s.xyz[a][1] + M[i][2] * s.xyz[a][2] + T[i];
              double self = 0;
              for (int i = 0; i < 3; i++) self += (y[i] - s.xyz[a][i]) * (y[i] - s.xyz[a][i]);
              if (self < 0.64) continue;
              double best = INFINITY;
              for (size_t h = 0; h < L->n_atoms; h++) {
                uint32_t la = sv.atom_refs[L->atom_first + h];
                if (s.element[la] == 1) continue;
                double d2 = 0;
                for (int i = 0; i < 3; i++) d2 += (y[i] - s.xyz[la][i]) * (y[i] - s.xyz[la][i]);
                if (d2 < best) best = d2;
              }
              if (best > (double)cutoff * cutoff) continue;
              uint32_t r = s.atom_residue[a];
              if (nb && last_r == r && bf[nb - 1].res == r && bf[nb - 1].op == k && !memcmp(bf[nb - 1].t, t, sizeof t)) {
                if (sqrt(best) < bf[nb - 1].d) bf[nb - 1].d = (float)sqrt(best);
                continue;
              }
              if (nb == cap) bf = realloc(bf, (cap *= 2) * sizeof *bf);
              bf[nb++] = (bf_res){k, {t[0], t[1], t[2]}, r, (float)sqrt(best)};
              last_r = r;
            }
          }
    }
    qsort(bf, nb, sizeof *bf, cmp_bf);
    size_t u = 0; /* merge duplicates (atoms of one residue need not be contiguous in the scan above) */
    for (size_t i = 0; i < nb; i++) {
      if (u && !cmp_bf(&bf[u - 1], &bf[i])) {
        if (bf[i].d < bf[u - 1].d) bf[u - 1].d = bf[i].d;
      } else {
        bf[u++] = bf[i];
      }
    }
    nb = u;
    size_t n_img = on.n_res - n_asym_res;
    CHECK(n_img == nb, "%s ligand %zu: %zu image residues, brute force %zu", path, li, n_img, nb);
    for (size_t i = 0; i < nb && i < n_img; i++) {
      const sp_site_res *R = &on.res[n_asym_res + i];
      const sp_site_image *im = &on.images[R->image - 1];
      CHECK(im->op == bf[i].op && !memcmp(im->t, bf[i].t, sizeof im->t) && R->residue == bf[i].res &&
                fabsf(R->min_distance - bf[i].d) < 1e-3f,
            "%s ligand %zu image residue %zu: op %d t %d %d %d res %u d %.4f vs brute force op %d t %d %d %d res %u d %.4f",
            path, li, i, im->op, im->t[0], im->t[1], im->t[2], R->residue, R->min_distance, bf[i].op, bf[i].t[0],
            bf[i].t[1], bf[i].t[2], bf[i].res, bf[i].d);
    }
    /* image atoms: transformed positions, symmetry flag, every chosen atom of the residue */
    for (size_t a = off.n_atoms; a < on.n_atoms; a++) {
      const sp_site_res *R = &on.res[on.atom_res[a]];
      CHECK(R->image > 0 && (on.atom_flags[a] & SP_SITE_ATOM_SYMMETRY), "image atom flags");
      if (!R->image) continue;
      const sp_site_image *im = &on.images[R->image - 1];
      const float *x = s.xyz[on.atoms[a]];
      for (int i = 0; i < 3; i++) {
        double v = im->rot[i][0] * x[0] + im->rot[i][1] * x[1] + im->rot[i][2] * x[2] + im->trn[i];
        CHECK(fabs(v - on.xyz[a][i]) < 1e-3, "image atom position");
      }
    }
    n_img_total += n_img;
    n_lig_with += n_img > 0;
  }
  printf("%s: %d operators (%s), %zu ligands, %zu with symmetry mates, %zu image residues (brute force agrees)\n",
         path, cr->n_ops, cr->source == SP_SYM_FILE ? "file" : "name", sv.n_ligands, n_lig_with, n_img_total);
  CHECK(n_img_total > 0, "%s: the entry has symmetry contacts", path);
  free(bf);
  sp_site_free(&off);
  sp_site_free(&on);
  sp_site_ws_free(ws);
  sp_site_ws_free(ws2);
done:
  free(cr);
  tsu_survey_free(&sv);
  sp_structure_free(&s);
}

int main(int argc, char **argv) {
  test_parse();
  test_cell();
  test_spacegroups();
  test_readers();
  for (int i = 1; i < argc; i++) test_real(argv[i]);
  if (tsu_failures) {
    fprintf(stderr, "test_symmetry: %d checks failed\n", tsu_failures);
    return 1;
  }
  printf("test_symmetry: ok\n");
  return 0;
}

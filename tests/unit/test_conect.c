/* PDB CONECT records (include/sitepack/model.h sp_conect, pdb.h, bonds.h source `conect`).
 *   test_conect CCD.cif CONECT_ORDERS.pdb
 * 1. the synthetic file tests/unit/conect_orders.pdb: one bond per pair from records written in both
 *    directions, orders 2 and 3 from repeated serials, both altlocs of O1, serials of model 1 in a
 *    two-model file, the serial 999 that is no atom (a warning), sp_structure_conect_order both ways;
 * 2. inline texts: a pair listed 4 times (order 1, warning), an unreadable serial (warning, the other
 *    fields kept), a serial that two atoms of model 1 carry (no bond, warning), CONECT in a file
 *    without MODEL, no CONECT at all (no bonds; mmCIF never has any);
 * 3. /bonds through sp_ligand_bonds on the survey and site of the synthetic file: QQQ (no CCD block)
 *    takes its bonds from CONECT with their orders, and its CONECT link to CYS SG (no LINK record) is
 *    an inter-residue, to-polymer `conect` bond; GOL (CCD block) keeps the CCD's bonds, not CONECT;
 *    without CONECT records, QQQ's bonds and its link are perceived from distances. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sitepack/bonds.h"
#include "sitepack/ccd.h"
#include "sitepack/pdb.h"
#include "sitepack/read.h"
#include "sitepack/site.h"
#include "sitepack/survey.h"
#include "sp_test.h"

static sp_ccd *g_ccd;

static int64_t atom_of(const sp_structure *s, int32_t serial) {
  for (size_t i = 0; i < s->models[0].n_atoms; i++)
    if (s->serial[i] == serial) return (int64_t)i;
  return -1;
}

static bool has_warning(const sp_structure *s, const char *part) {
  for (size_t i = 0; i < s->n_warnings; i++)
    if (strstr(sp_structure_warning(s, i), part)) return true;
  return false;
}

static void test_synthetic_records(const char *path) {
  sp_structure s;
  sp_err err = {0};
  CHECK(read_structure(path, &s, &err) == 0, "%s: %s", path, err.msg);
  CHECK(s.n_models == 2 && s.n_conects == 11, "%zu models, %zu CONECT bonds (want 2, 11)", s.n_models, s.n_conects);
  static const int32_t want[][3] = {{6, 7, 1},   {7, 8, 2},   {7, 11, 1},  {7, 12, 1},  {8, 9, 1}, {9, 10, 3},
                                    {13, 14, 1}, {13, 15, 1}, {15, 16, 1}, {15, 17, 1}, {17, 18, 1}};
  for (size_t k = 0; k < s.n_conects && k < 11; k++) {
    const sp_conect *c = &s.conects[k];
    CHECK(c->a < c->b && c->b < (int64_t)s.models[0].n_atoms, "bond %zu: atoms %lld %lld (model 1)", k,
          (long long)c->a, (long long)c->b);
    CHECK(s.serial[c->a] == want[k][0] && s.serial[c->b] == want[k][1] && c->order == want[k][2],
          "bond %zu: serials %d-%d order %d, want %d-%d order %d", k, s.serial[c->a], s.serial[c->b], c->order,
          want[k][0], want[k][1], want[k][2]);
  }
  int64_t c1 = atom_of(&s, 7), c2 = atom_of(&s, 8), n1 = atom_of(&s, 10), c3 = atom_of(&s, 9);
  CHECK(sp_structure_conect_order(&s, c2, c1) == 2 && sp_structure_conect_order(&s, c1, c2) == 2, "C1=C2 both ways");
  CHECK(sp_structure_conect_order(&s, n1, c3) == 3, "C3#N1");
  CHECK(sp_structure_conect_order(&s, c1, n1) == 0, "C1 N1 are not bonded");
  CHECK(sp_structure_conect_order(&s, c1 + (int64_t)s.models[0].n_atoms, c2 + (int64_t)s.models[0].n_atoms) == 0,
        "model-2 atoms have no CONECT bond");
  size_t k = sp_structure_conect_first(&s, c1);
  CHECK(k == 1 && s.conects[k].a == c1, "first bond of C1 at %zu", k);
  CHECK(sp_structure_conect_first(&s, atom_of(&s, 19)) == s.n_conects, "HOH has no bond above it");
  CHECK(has_warning(&s, "1 CONECT entries name a serial that is no atom of model 1"), "warning for serial 999");
  sp_structure_free(&s);
}

static void read_text(const char *text, sp_structure *s) {
  sp_err err = {0};
  sp_structure_init(s);
  CHECK(sp_pdb_read(text, strlen(text), s, &err) == 0, "inline text: %s", err.msg);
}

#define A1 "HETATM    1  C1  QQQ A   1       0.000   0.000   0.000  1.00  0.00           C\n"
#define A2 "HETATM    2  C2  QQQ A   1       1.200   0.000   0.000  1.00  0.00           C\n"
#define A3 "HETATM    3  C3  QQQ A   1       2.400   0.000   0.000  1.00  0.00           C\n"

static void test_inline(void) {
  sp_structure s;
  read_text(A1 A2 "CONECT    1    2    2    2    2\nCONECT    2    1\n", &s);
  CHECK(s.n_conects == 1 && s.conects[0].order == 1, "listed 4 times: %zu bonds, order %d", s.n_conects,
        s.n_conects ? s.conects[0].order : -1);
  CHECK(has_warning(&s, "listed more than 3 times"), "warning for 4 listings");
  sp_structure_free(&s);

  read_text(A1 A2 A3 "CONECT    1    x    2\nCONECT    3    2\n", &s);
  CHECK(s.n_conects == 2, "unreadable field: %zu bonds (want 2: 1-2, 2-3)", s.n_conects);
  CHECK(has_warning(&s, "CONECT serial 'x'"), "warning for an unreadable serial");
  sp_structure_free(&s);

  read_text(A1 A2 "HETATM    2  C3  QQQ A   1       2.400   0.000   0.000  1.00  0.00           C\n"
                  "CONECT    1    2\n",
            &s);
  CHECK(s.n_conects == 0 && has_warning(&s, "two atoms of model 1 carry"), "serial twice in model 1: %zu bonds",
        s.n_conects);
  sp_structure_free(&s);

  read_text(A1 A2 A3, &s);
  CHECK(s.n_conects == 0, "no CONECT records, %zu bonds", s.n_conects);
  sp_structure_free(&s);
}

static const sp_bond *find_bond(const sp_bond_list *L, const sp_site *site, const sp_structure *s, int32_t sa,
                                int32_t sb) {
  for (size_t k = 0; k < L->n; k++) {
    int32_t x = s->serial[site->atoms[L->bonds[k].a]], y = s->serial[site->atoms[L->bonds[k].b]];
    if ((x == sa && y == sb) || (x == sb && y == sa)) return &L->bonds[k];
  }
  return NULL;
}

static int ligand_of(const sp_structure *s, const sp_survey *sv, const char *comp) {
  for (size_t l = 0; l < sv->n_ligands; l++)
    if (sv->ligands[l].model == 0 && !strcmp(s->residues[sv->res_refs[sv->ligands[l].res_first]].comp_id, comp))
      return (int)l;
  return -1;
}

/* The bonds of ligand `comp` (model 1) of structure s. */
static void ligand_bonds(const sp_structure *s, const char *comp, sp_site *site, sp_bond_list *L) {
  sp_survey sv;
  memset(&sv, 0, sizeof sv);
  sp_err err = {0};
  CHECK(sp_survey_run(s, g_ccd, NULL, &sv, &err) == 0, "survey: %s", err.msg);
  int lig = ligand_of(s, &sv, comp);
  CHECK(lig >= 0, "no ligand %s", comp);
  sp_site_ws *ws = sp_site_ws_new();
  if (lig >= 0) {
    CHECK(sp_site_compute(s, &sv, (size_t)lig, NULL, ws, site, &err) == 0, "site: %s", err.msg);
    CHECK(sp_ligand_bonds(s, &sv, (size_t)lig, site, g_ccd, L, &err) == 0, "bonds: %s", err.msg);
  }
  sp_site_ws_free(ws);
  sp_survey_free(&sv);
}

static void test_bonds(const char *path) {
  sp_structure s;
  sp_err err = {0};
  CHECK(read_structure(path, &s, &err) == 0, "%s: %s", path, err.msg);
  sp_site site = {0};
  sp_bond_list L = {0};
  ligand_bonds(&s, "QQQ", &site, &L);
  /* C1=C2, C1-O1 (altloc A, the chosen one: occupancy 0.6), C2-C3, C3#N1, and the link C1-SG */
  static const int32_t want[][3] = {{7, 8, 2}, {7, 11, 1}, {8, 9, 1}, {9, 10, 3}};
  CHECK(L.n == 5, "QQQ: %zu bonds (want 4 CONECT + 1 CONECT link)", L.n);
  for (int k = 0; k < 4; k++) {
    const sp_bond *b = find_bond(&L, &site, &s, want[k][0], want[k][1]);
    CHECK(b && b->source == SP_BOND_SRC_CONECT && b->order == want[k][2] && !b->aromatic && !b->flags,
          "QQQ %d-%d: %s order %d", want[k][0], want[k][1], b ? sp_bond_source_name(b->source) : "missing",
          b ? b->order : -1);
  }
  const sp_bond *link = find_bond(&L, &site, &s, 7, 6);
  CHECK(link && link->source == SP_BOND_SRC_CONECT && link->order == 1 &&
            link->flags == (SP_BOND_INTER_RESIDUE | SP_BOND_TO_POLYMER),
        "QQQ C1-SG link: %s flags %d", link ? sp_bond_source_name(link->source) : "missing", link ? link->flags : -1);
  ligand_bonds(&s, "GOL", &site, &L);
  size_t n_ccd = 0;
  for (size_t k = 0; k < L.n; k++) n_ccd += L.bonds[k].source == SP_BOND_SRC_CCD;
  CHECK(L.n == 5 && n_ccd == 5, "GOL: %zu bonds, %zu from the CCD (want 5, 5: its heavy-atom bonds)", L.n, n_ccd);
  /* the same file without its CONECT records: QQQ's bonds from distances, their orders perceived from the
   * coordinates (format version 8: source perceived, C1=C2 and C3#N1 as CONECT stated them), and its link to SG
   * perceived as a ligand-polymer distance link */
  s.n_conects = 0;
  ligand_bonds(&s, "QQQ", &site, &L);
  size_t n_perc = 0, n_dist = 0;
  for (size_t k = 0; k < L.n; k++) {
    n_perc += L.bonds[k].source == SP_BOND_SRC_PERCEIVED && L.bonds[k].order >= 1;
    n_dist += L.bonds[k].source == SP_BOND_SRC_DISTANCE;
  }
  const sp_bond *dl = find_bond(&L, &site, &s, 7, 6);
  CHECK(L.n == 5 && n_perc == 4 && n_dist == 1 && dl && dl->source == SP_BOND_SRC_DISTANCE &&
            dl->flags == (SP_BOND_INTER_RESIDUE | SP_BOND_TO_POLYMER),
        "QQQ without CONECT: %zu bonds, %zu perceived, %zu distance (want 5: 4 perceived in QQQ, the distance link "
        "to SG)",
        L.n, n_perc, n_dist);
  for (int k = 0; k < 4; k++) { /* the orders CONECT stated, now perceived from the coordinates */
    const sp_bond *b = find_bond(&L, &site, &s, want[k][0], want[k][1]);
    CHECK(b && b->source == SP_BOND_SRC_PERCEIVED && b->order == want[k][2], "QQQ %d-%d without CONECT: %s order %d",
          want[k][0], want[k][1], b ? sp_bond_source_name(b->source) : "missing", b ? b->order : -1);
  }
  sp_bond_list_free(&L);
  sp_site_free(&site);
  sp_structure_free(&s);
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s CCD.cif CONECT_ORDERS.pdb\n", argv[0]);
    return 2;
  }
  sp_err err = {0};
  if (sp_ccd_open(argv[1], &g_ccd, &err)) {
    fprintf(stderr, "%s: %s\n", argv[1], err.msg);
    return 2;
  }
  test_synthetic_records(argv[2]);
  test_inline();
  test_bonds(argv[2]);
  sp_ccd_close(g_ccd);
  return sp_test_done("test_conect");
}

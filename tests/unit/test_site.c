/* Unit tests of src/site: sp_site_compute against a brute-force O(N*M) site on random
 * structures, on real PDB coordinates (files given as arguments), and edge cases
 * (empty/hydrogen-only ligands, a single atom, huge coordinates, degenerate boxes,
 * oversize sites, cache invalidation, bad arguments). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "site/cells.h"
#include "sitepack/site.h"
#include "test_site_util.h"

static uint64_t rng_state = 88172645463325252ULL;
static double urand(void) { /* xorshift64 */
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return (double)(rng_state >> 11) / 9007199254740992.0;
}

/* Build a random structure: n_res residues of 1..12 atoms scattered in a box of edge
   `box` Å (clustered around residue centres), some hetero residues (ligands, ions),
   waters, altlocs and hydrogens; `models` models with jittered coordinates. */
static void build_random(sp_structure *s, int n_res, float box, int models) {
  sp_structure_init(s);
  static const char *chains[] = {"A", "B", "C"};
  for (int mdl = 1; mdl <= models; mdl++) {
    rng_state = 1234567ULL + (uint64_t)n_res * 31u + (uint64_t)(box * 7); /* same residues in each model */
    for (int r = 0; r < n_res; r++) {
      double u = urand();
      const char *comp = u < 0.70 ? "ALA" : u < 0.80 ? "HOH" : u < 0.85 ? "ZN" : "LIG";
      int het = strcmp(comp, "ALA") != 0;
      int n_at = !strcmp(comp, "HOH") ? 1 + (urand() < 0.3 ? 2 : 0) : !strcmp(comp, "ZN") ? 1 : 1 + (int)(urand() * 12);
      float cx = (float)(urand() * box), cy = (float)(urand() * box), cz = (float)(urand() * box);
      const char *chain = chains[r % 3];
      int with_alt = urand() < 0.1;
      for (int k = 0; k < n_at; k++) {
        char name[16];
        snprintf(name, sizeof name, "X%d", k);
        int el = !strcmp(comp, "ZN") ? 30 : (!strcmp(comp, "HOH") ? (k ? 1 : 8) : (urand() < 0.25 ? 1 : 6));
        float x = cx + (float)(urand() * 6 - 3) + (float)(mdl - 1) * 0.3f;
        float y = cy + (float)(urand() * 6 - 3), z = cz + (float)(urand() * 6 - 3);
        char alt = (with_alt && k % 2) ? 'A' : '\0';
        tsu_add(s, mdl, chain, comp, r + 1, name, alt, el, het, x, y, z, 0.6f);
        if (alt) tsu_add(s, mdl, chain, comp, r + 1, name, 'B', el, het, x + 1.5f, y, z, 0.4f);
      }
    }
  }
  sp_err err = {0};
  sp_structure_finish(s, &err);
}

static void check_all(const sp_structure *s, const sp_survey *sv, sp_site_ws *ws, float cutoff, size_t max_atoms,
                      size_t *n_sites, size_t *n_atoms) {
  sp_site site = {0};
  sp_site_opts o = {cutoff, max_atoms, false, false};
  float eff = cutoff > 0 ? cutoff : 6.0f;
  size_t eff_max = max_atoms ? max_atoms : 12000;
  for (size_t l = 0; l < sv->n_ligands; l++) {
    sp_err err = {0};
    int rc = sp_site_compute(s, sv, l, &o, ws, &site, &err);
    TSU_CHECK(rc == 0, "sp_site_compute rc %d: %s", rc, err.msg);
    if (rc) continue;
    tsu_check_site(s, sv, l, eff, eff_max, &site);
    if (n_sites) (*n_sites)++;
    if (n_atoms) *n_atoms += site.n_atoms;
  }
  sp_site_free(&site);
}

static void test_random(void) {
  sp_site_ws *ws = sp_site_ws_new();
  TSU_CHECK(ws != NULL, "ws");
  struct {
    int n_res;
    float box;
    int models;
  } cfg[] = {{1, 1, 1}, {5, 3, 1}, {60, 20, 2}, {400, 40, 1}, {400, 120, 1}, {1500, 60, 3}, {300, 0.5f, 1}};
  float cutoffs[] = {6.0f, 0.0f, 3.5f, 10.0f, 0.7f};
  size_t n_sites = 0, n_atoms = 0;
  for (size_t i = 0; i < sizeof cfg / sizeof cfg[0]; i++) {
    sp_structure s;
    memset(&s, 0, sizeof s);
    build_random(&s, cfg[i].n_res, cfg[i].box, cfg[i].models);
    sp_survey sv;
    TSU_CHECK(tsu_survey(&s, &sv) == 0, "survey");
    TSU_CHECK(sv.n_ligands > 0 || cfg[i].n_res < 5, "random structure %zu has no ligands", i);
    for (size_t c = 0; c < sizeof cutoffs / sizeof cutoffs[0]; c++) check_all(&s, &sv, ws, cutoffs[c], 0, &n_sites, &n_atoms);
    check_all(&s, &sv, ws, 6.0f, 40, NULL, NULL); /* small max_atoms: some oversize */
    tsu_survey_free(&sv);
    sp_structure_free(&s);
  }
  printf("random: %zu sites, %zu site atoms checked against brute force\n", n_sites, n_atoms);
  sp_site_ws_free(ws);
}

static void test_real(const char *path) {
  sp_structure s;
  memset(&s, 0, sizeof s);
  sp_structure_init(&s);
  if (tsu_load_pdb(path, &s)) {
    TSU_CHECK(0, "cannot load %s", path);
    sp_structure_free(&s);
    return;
  }
  sp_survey sv;
  TSU_CHECK(tsu_survey(&s, &sv) == 0, "survey");
  TSU_CHECK(sv.n_ligands > 0, "%s: no HETATM ligand found", path);
  sp_site_ws *ws = sp_site_ws_new();
  size_t n_sites = 0, n_atoms = 0, n_res = 0, n_polymer_sites = 0;
  check_all(&s, &sv, ws, 6.0f, 0, &n_sites, &n_atoms);
  check_all(&s, &sv, ws, 4.0f, 0, NULL, NULL);
  /* real sites: every non-water ligand with heavy atoms in a protein has polymer neighbours somewhere */
  sp_site site = {0};
  sp_err err = {0};
  clock_t t0 = clock();
  for (int rep = 0; rep < 20; rep++)
    for (size_t l = 0; l < sv.n_ligands; l++) {
      sp_site_compute(&s, &sv, l, NULL, ws, &site, &err);
      if (rep == 0) {
        n_res += site.n_res;
        for (size_t k = 0; k < site.n_res; k++)
          if (site.res[k].kind == SP_RES_KIND_POLYMER) {
            n_polymer_sites++;
            break;
          }
      }
    }
  double dt = (double)(clock() - t0) / CLOCKS_PER_SEC;
  TSU_CHECK(n_polymer_sites > 0, "%s: no site has a polymer residue", path);
  printf("%s: %zu atoms, %zu models, %zu ligands, %zu site atoms, %zu site residues; %.3f us per site atom "
         "(informational)\n",
         path, s.n_atoms, s.n_models, sv.n_ligands, n_atoms, n_res, n_atoms ? dt / 20 / (double)n_atoms * 1e6 : 0.0);
  sp_site_free(&site);
  sp_site_ws_free(ws);
  tsu_survey_free(&sv);
  sp_structure_free(&s);
}

/* Structure with a ligand near (x0,y0,z0) and three residues at given offsets. */
static void small_site(sp_structure *s, float x0, float y0, float z0, int outlier) {
  memset(s, 0, sizeof *s);
  sp_structure_init(s);
  tsu_add(s, 1, "A", "GLY", 1, "CA", 0, 6, 0, x0 + 4.0f, y0, z0, 1);    /* 4 Å: in */
  tsu_add(s, 1, "A", "GLY", 1, "H", 0, 1, 0, x0 + 4.5f, y0, z0, 1);     /* H of a site residue: kept */
  tsu_add(s, 1, "A", "GLY", 2, "CA", 0, 6, 0, x0 + 6.5f, y0, z0, 1);    /* 6.5 Å: out */
  tsu_add(s, 1, "A", "GLY", 3, "CA", 0, 6, 0, x0, y0 - 5.9f, z0, 1);    /* 5.9 Å: in */
  tsu_add(s, 1, "A", "GLY", 3, "CB", 0, 6, 0, x0, y0 - 7.0f, z0, 1);    /* out itself, kept with its residue */
  tsu_add(s, 1, "L", "LIG", 1, "C1", 0, 6, 1, x0, y0, z0, 1);
  tsu_add(s, 1, "L", "LIG", 1, "H1", 0, 1, 1, x0 - 5.5f, y0, z0, 1);    /* ligand H: not a query atom */
  tsu_add(s, 1, "W", "HOH", 1, "O", 0, 8, 1, x0 - 10.0f, y0, z0, 1);    /* 4.5 Å from H1 only: out */
  tsu_add(s, 1, "W", "HOH", 2, "O", 0, 8, 1, x0, y0, z0 + 3.0f, 1);     /* in, water */
  /* one far outlier atom forces a huge bounding box */
  if (outlier) tsu_add(s, 1, "Z", "ALA", 9, "CA", 0, 6, 0, 9999.999f, -999.999f, -999.999f, 1);
  sp_err err = {0};
  sp_structure_finish(s, &err);
}

static void test_small_and_huge(void) {
  float origins[][3] = {{0, 0, 0}, {9999.999f - 10.0f, 9999.999f - 10.0f, 9999.999f - 10.0f}, {-999.0f, 50.0f, 9990.0f}};
  sp_site_ws *ws = sp_site_ws_new();
  for (size_t o = 0; o < 3; o++) {
    sp_structure s;
    small_site(&s, origins[o][0], origins[o][1], origins[o][2], o == 2);
    sp_survey sv;
    tsu_survey(&s, &sv);
    TSU_CHECK(sv.n_ligands == 1, "one ligand, got %zu", sv.n_ligands);
    sp_site site = {0};
    sp_err err = {0};
    TSU_CHECK(sp_site_compute(&s, &sv, 0, NULL, ws, &site, &err) == 0, "%s", err.msg);
    tsu_check_site(&s, &sv, 0, 6.0f, 12000, &site);
    /* explicit expectations: residues GLY1, GLY3, HOH2 */
    TSU_CHECK(site.n_res == 4, "origin %zu: %zu residues", o, site.n_res);
    if (site.n_res == 4) {
      TSU_CHECK(!strcmp(s.residues[site.res[1].residue].comp_id, "GLY") && s.residues[site.res[1].residue].auth_seq_id == 1,
                "first site residue GLY 1");
      TSU_CHECK(s.residues[site.res[2].residue].auth_seq_id == 3, "second site residue GLY 3");
      TSU_CHECK(site.res[3].kind == SP_RES_KIND_WATER, "water kind");
      TSU_CHECK(fabsf(site.res[1].min_distance - 4.0f) < 2e-3f, "min distance %g", site.res[1].min_distance);
    }
    TSU_CHECK(site.n_ligand == 2 && site.n_atoms == 2 + 2 + 2 + 1, "atoms %zu/%zu", site.n_ligand, site.n_atoms);
    TSU_CHECK(fabsf(site.center[0] - origins[o][0]) < 1e-3f, "centre is the single heavy atom");
    sp_site_free(&site);
    tsu_survey_free(&sv);
    sp_structure_free(&s);
  }
  sp_site_ws_free(ws);

  /* the cell list stays O(points) for an extreme box */
  sp_cell_pt pts[3] = {{-999.999f, -999.999f, -999.999f, 0}, {9999.999f, 9999.999f, 9999.999f, 1}, {0, 0, 0, 2}};
  sp_cells c;
  memset(&c, 0, sizeof c);
  TSU_CHECK(sp_cells_build(&c, pts, 3, 6.0f) == 0, "build");
  TSU_CHECK(c.n_buckets <= 4096, "buckets %zu", c.n_buckets);
  TSU_CHECK(c.hashed == 1, "extreme box is hashed");
  /* tiny cutoff over a normal box, and a NaN point that must be dropped */
  sp_cell_pt p2[2] = {{0, 0, 0, 0}, {NAN, 1, 1, 1}};
  TSU_CHECK(sp_cells_build(&c, p2, 2, 1e-6f) == 0 && c.n_pts == 1, "NaN dropped, %zu points", c.n_pts);
  sp_cells_free(&c);
}

static void test_degenerate(void) {
  /* all atoms on one point, on a line, on a plane */
  sp_site_ws *ws = sp_site_ws_new();
  for (int shape = 0; shape < 3; shape++) {
    sp_structure s;
    memset(&s, 0, sizeof s);
    sp_structure_init(&s);
    for (int r = 0; r < 200; r++) {
      float x = shape >= 1 ? (float)r * 0.9f : 5.0f;
      float y = shape == 2 ? (float)(r % 13) * 1.1f : 5.0f;
      const char *comp = r % 17 == 0 ? "LIG" : "ALA";
      tsu_add(&s, 1, "A", comp, r + 1, "CA", 0, 6, r % 17 == 0, x, y, 5.0f, 1);
    }
    sp_err err = {0};
    sp_structure_finish(&s, &err);
    sp_survey sv;
    tsu_survey(&s, &sv);
    TSU_CHECK(sv.n_ligands == 12, "shape %d: %zu ligands", shape, sv.n_ligands);
    check_all(&s, &sv, ws, 6.0f, 0, NULL, NULL);
    if (shape == 0) { /* all coincident: every residue is in every site */
      sp_site site = {0};
      sp_site_compute(&s, &sv, 0, NULL, ws, &site, &err);
      TSU_CHECK(site.n_res == 200, "coincident: %zu residues", site.n_res);
      sp_site_free(&site);
    }
    tsu_survey_free(&sv);
    sp_structure_free(&s);
  }
  sp_site_ws_free(ws);
}

static void test_special_ligands(void) {
  sp_site_ws *ws = sp_site_ws_new();
  sp_site site = {0};
  sp_err err = {0};

  /* a single atom: an ion alone */
  sp_structure s;
  memset(&s, 0, sizeof s);
  sp_structure_init(&s);
  tsu_add(&s, 1, "A", "ZN", 1, "ZN", 0, 30, 1, 1, 2, 3, 1);
  sp_structure_finish(&s, &err);
  sp_survey sv;
  tsu_survey(&s, &sv);
  TSU_CHECK(sv.n_ligands == 1 && sv.ligands[0].cls == SP_CLASS_ION, "single ion ligand");
  TSU_CHECK(sp_site_compute(&s, &sv, 0, NULL, ws, &site, &err) == 0, "%s", err.msg);
  TSU_CHECK(site.n_res == 1 && site.n_atoms == 1 && site.n_ligand == 1 && site.flags == 0, "single atom site");
  TSU_CHECK(site.atom_flags[0] == (SP_SITE_ATOM_LIGAND | SP_SITE_ATOM_HETATM | SP_SITE_ATOM_WITHIN_CUTOFF),
            "flags %x", site.atom_flags[0]);
  TSU_CHECK(site.center[0] == 1 && site.center[1] == 2 && site.center[2] == 3, "centre");
  /* bad ligand index */
  TSU_CHECK(sp_site_compute(&s, &sv, 1, NULL, ws, &site, &err) == SP_E_INVALID && err.cls == SP_E_INVALID,
            "bad index -> invalid");
  TSU_CHECK(sp_site_compute(&s, &sv, 0, NULL, NULL, &site, &err) == SP_E_INVALID, "NULL ws -> invalid");
  sp_site_opts inf = {INFINITY, 0, false, false};
  TSU_CHECK(sp_site_compute(&s, &sv, 0, &inf, ws, &site, &err) == SP_E_INVALID, "infinite cutoff -> invalid");

  /* a ligand with no atoms at all (e.g. a survey listing an unresolved component) */
  sv.ligands[0].n_atoms = 0;
  sv.ligands[0].n_heavy = 0;
  TSU_CHECK(sp_site_compute(&s, &sv, 0, NULL, ws, &site, &err) == 0, "%s", err.msg);
  TSU_CHECK(site.flags == SP_SITE_NO_HEAVY && site.n_atoms == 0 && site.n_res == 1, "empty ligand: flags %u", site.flags);
  TSU_CHECK(isnan(site.center[0]), "empty ligand: NaN centre");
  tsu_survey_free(&sv);
  sp_structure_free(&s);

  /* hydrogen-only ligand next to a protein residue */
  memset(&s, 0, sizeof s);
  sp_structure_init(&s);
  tsu_add(&s, 1, "A", "ALA", 1, "CA", 0, 6, 0, 0, 0, 1, 1);
  tsu_add(&s, 1, "B", "H2", 1, "H1", 0, 1, 1, 0, 0, 0, 1);
  tsu_add(&s, 1, "B", "H2", 1, "H2", 0, 1, 1, 0, 0, 0.74f, 1);
  sp_structure_finish(&s, &err);
  tsu_survey(&s, &sv);
  TSU_CHECK(sv.n_ligands == 1, "H2 ligand");
  TSU_CHECK(sp_site_compute(&s, &sv, 0, NULL, ws, &site, &err) == 0, "%s", err.msg);
  TSU_CHECK(site.flags == SP_SITE_NO_HEAVY && site.n_res == 1 && site.n_atoms == 2 && site.n_ligand == 2,
            "H-only ligand: flags %u, %zu res, %zu atoms", site.flags, site.n_res, site.n_atoms);
  tsu_check_site(&s, &sv, 0, 6.0f, 12000, &site);
  tsu_survey_free(&sv);
  sp_structure_free(&s);

  /* oversize: a ligand buried among many residues, max_atoms 10 */
  memset(&s, 0, sizeof s);
  sp_structure_init(&s);
  for (int r = 0; r < 30; r++) tsu_add(&s, 1, "A", "ALA", r + 1, "CA", 0, 6, 0, (float)(r % 5), (float)(r / 5), 2, 1);
  tsu_add(&s, 1, "B", "LIG", 1, "C1", 0, 6, 1, 2, 2, 0, 1);
  tsu_add(&s, 1, "B", "LIG", 1, "C2", 0, 6, 1, 2, 3, 0, 1);
  sp_structure_finish(&s, &err);
  tsu_survey(&s, &sv);
  sp_site_opts o = {6.0f, 10, false, false};
  TSU_CHECK(sp_site_compute(&s, &sv, 0, &o, ws, &site, &err) == 0, "%s", err.msg);
  TSU_CHECK((site.flags & SP_SITE_OVERSIZE) && site.n_atoms == 2 && site.n_ligand == 2 && site.n_res == 31,
            "oversize: flags %u atoms %zu res %zu", site.flags, site.n_atoms, site.n_res);
  tsu_check_site(&s, &sv, 0, 6.0f, 10, &site);
  o.max_atoms = 32;
  TSU_CHECK(sp_site_compute(&s, &sv, 0, &o, ws, &site, &err) == 0 && site.flags == 0 && site.n_atoms == 32,
            "32 atoms fit max_atoms 32");
  tsu_survey_free(&sv);
  sp_structure_free(&s);
  sp_site_free(&site);
  sp_site_ws_free(ws);
}

/* The workspace must notice a structure object re-filled with another file of the
   same atom count, a new survey, a new model and a new cutoff. */
static void test_cache(void) {
  sp_site_ws *ws = sp_site_ws_new();
  sp_site site = {0};
  sp_err err = {0};
  sp_structure s;
  memset(&s, 0, sizeof s);
  sp_structure_init(&s);
  for (int pass = 0; pass < 2; pass++) {
    sp_structure_clear(&s);
    float shift = pass ? 20.0f : 0.0f; /* second "file": the protein moved away */
    for (int r = 0; r < 50; r++)
      tsu_add(&s, 1, "A", "ALA", r + 1, "CA", 0, 6, 0, (float)(r % 7) * 1.5f + shift, (float)(r / 7) * 1.5f, 0, 1);
    tsu_add(&s, 1, "B", "LIG", 1, "C1", 0, 6, 1, 3, 3, 1, 1);
    sp_structure_finish(&s, &err);
    sp_survey sv;
    tsu_survey(&s, &sv);
    TSU_CHECK(sp_site_compute(&s, &sv, 0, NULL, ws, &site, &err) == 0, "%s", err.msg);
    tsu_check_site(&s, &sv, 0, 6.0f, 12000, &site);
    TSU_CHECK(pass ? site.n_res < 10 : site.n_res > 10, "pass %d: %zu residues", pass, site.n_res);
    sp_site_opts o = {2.0f, 0, false, false};
    TSU_CHECK(sp_site_compute(&s, &sv, 0, &o, ws, &site, &err) == 0, "%s", err.msg);
    tsu_check_site(&s, &sv, 0, 2.0f, 12000, &site);
    tsu_survey_free(&sv);
  }
  sp_structure_free(&s);
  sp_site_free(&site);
  sp_site_ws_free(ws);
}

/* The cell list holds only the cells around the ligands the survey listed when it was built: a ligand
   outside them (here: the survey's ligand list shortened to its first ligand while the list is built, then
   restored, same pointers) must still get its exact site (the workspace falls back on the whole model). */
static void test_ligand_cells(void) {
  sp_site_ws *ws = sp_site_ws_new();
  sp_site site = {0};
  sp_err err = {0};
  sp_structure s;
  memset(&s, 0, sizeof s);
  build_random(&s, 1500, 60, 1);
  sp_survey sv;
  TSU_CHECK(tsu_survey(&s, &sv) == 0, "survey");
  TSU_CHECK(sv.n_ligands > 10, "%zu ligands", sv.n_ligands);
  size_t n_lig = sv.n_ligands, n_far = 0;
  for (size_t l = 1; l < n_lig; l++) {
    sv.n_ligands = 1;
    TSU_CHECK(sp_site_compute(&s, &sv, 0, NULL, ws, &site, &err) == 0, "%s", err.msg); /* built around ligand 0 */
    tsu_check_site(&s, &sv, 0, 6.0f, 12000, &site);
    sv.n_ligands = n_lig;
    TSU_CHECK(sp_site_compute(&s, &sv, l, NULL, ws, &site, &err) == 0, "%s", err.msg);
    tsu_check_site(&s, &sv, l, 6.0f, 12000, &site);
    n_far += site.n_res > 1;
  }
  TSU_CHECK(n_far > 0, "no ligand with neighbours");
  tsu_survey_free(&sv);
  sp_structure_free(&s);
  sp_site_free(&site);
  sp_site_ws_free(ws);
}

int main(int argc, char **argv) {
  test_random();
  test_ligand_cells();
  test_small_and_huge();
  test_degenerate();
  test_special_ligands();
  test_cache();
  for (int i = 1; i < argc; i++) test_real(argv[i]);
  if (tsu_failures) {
    fprintf(stderr, "test_site: %d failures\n", tsu_failures);
    return 1;
  }
  printf("test_site: all checks passed\n");
  return 0;
}

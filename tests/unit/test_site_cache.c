/* The site search's and the site chemistry's workspaces keep per-model state (the cell list, the SASA
 * environment) for the next site of the same model. Output may depend on the input file alone (issue 20,
 * item 1): here every file of a list is processed with workspaces that have just processed another file
 * read into the same sp_structure / sp_survey objects (the way a rank works through its tasks), and each
 * site's chemistry and site must equal, bit for bit, that of fresh workspaces. The pairs of the list are
 * the same entry as mmCIF and as PDB (identical atoms at identical coordinates, different residue
 * numbering and ligands: what made the earlier file's burial leak into the later one), a file after itself,
 * and a file after an unrelated one; with and without symmetry mates.
 * usage: test_site_cache CCD STRUCTURES_DIR FILE...   (files processed in the order given) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sitepack/read.h"
#include "sitepack/site.h"
#include "sitepack/sitechem.h"
#include "sitepack/survey.h"

#include "sp_test.h"

/* one site's output as a hash over every field the pipeline stores */
static uint64_t mix(uint64_t h, const void *p, size_t n) {
  const unsigned char *b = p;
  for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 0x100000001b3ull;
  return h;
}
static uint64_t site_hash(const sp_site *st, const sp_site_chem *ch) {
  uint64_t h = 0xcbf29ce484222325ull;
  h = mix(h, &st->n_atoms, sizeof st->n_atoms);
  h = mix(h, st->atoms, st->n_atoms * sizeof *st->atoms);
  h = mix(h, st->atom_flags, st->n_atoms * sizeof *st->atom_flags);
  h = mix(h, st->xyz, st->n_atoms * sizeof *st->xyz);
  h = mix(h, &st->n_images, sizeof st->n_images);
  h = mix(h, &ch->n_atoms, sizeof ch->n_atoms);
  h = mix(h, ch->atom_chem, ch->n_atoms * sizeof *ch->atom_chem);
  h = mix(h, ch->sasa_free, ch->n_atoms * sizeof *ch->sasa_free);
  h = mix(h, ch->sasa_complex, ch->n_atoms * sizeof *ch->sasa_complex);
  h = mix(h, ch->pka, ch->n_atoms * sizeof *ch->pka);
  h = mix(h, ch->groups, ch->n_groups * sizeof *ch->groups);
  h = mix(h, ch->ix, ch->n_ix * sizeof *ch->ix);
  h = mix(h, &ch->sasa_complex_total, sizeof ch->sasa_complex_total);
  return h;
}

static sp_ccd *ccd;

/* every site of the file at path, with workspaces ws / cw (new ones when NULL), into s / sv (the caller's
 * objects, re-filled); hashes into out (up to cap), count returned, -1 on error */
static long run_file(const char *path, int mates, sp_structure *s, sp_survey *sv, sp_site_ws *ws, sp_chem_ws *cw,
                     uint64_t *out, size_t cap, float *first_cplx) {
  sp_err err = {0};
  int own = !ws;
  if (own) ws = sp_site_ws_new(), cw = sp_chem_ws_new();
  long n = -1;
  if (read_structure(path, s, &err) || sp_survey_run(s, ccd, NULL, sv, &err)) {
    CHECK(0, "%s: %s", path, err.msg);
    goto done;
  }
  sp_site site = {0};
  sp_site_chem ch = {0};
  sp_site_opts so = {0};
  so.symmetry_mates = mates;
  n = 0;
  for (size_t l = 0; l < sv->n_ligands && (size_t)n < cap; l++) {
    int rc = sp_site_compute(s, sv, l, &so, ws, &site, &err);
    if (!rc) rc = sp_site_chem_compute(s, sv, l, &site, ccd, NULL, cw, &ch, &err);
    CHECK(rc == 0, "%s ligand %zu: %s", path, l, err.msg);
    if (rc) continue;
    if (n == 0 && first_cplx) *first_cplx = ch.sasa_complex_total;
    out[n++] = site_hash(&site, &ch);
  }
  sp_site_free(&site);
  sp_site_chem_free(&ch);
done:
  if (own) sp_site_ws_free(ws), sp_chem_ws_free(cw);
  return n;
}

#define CAP 4096
int main(int argc, char **argv) {
  if (argc < 4) return fprintf(stderr, "usage: %s CCD DIR FILE...\n", argv[0]), 2;
  sp_err err = {0};
  if (sp_ccd_open(argv[1], &ccd, &err)) return fprintf(stderr, "%s\n", err.msg), 1;
  static uint64_t alone[CAP], after[CAP];
  for (int mates = 0; mates <= 1; mates++) {
    sp_site_ws *ws = sp_site_ws_new();
    sp_chem_ws *cw = sp_chem_ws_new();
    sp_structure s;
    sp_survey sv;
    memset(&sv, 0, sizeof sv);
    sp_structure_init(&s);
    for (int i = 3; i < argc; i++) {
      char path[2048];
      if (argv[i][0] == '/') snprintf(path, sizeof path, "%s", argv[i]); /* a file made by the test's CMake */
      else snprintf(path, sizeof path, "%s/%s", argv[2], argv[i]);
      sp_structure s1;
      sp_survey sv1;
      memset(&sv1, 0, sizeof sv1);
      float c_alone = NAN, c_after = NAN;
      long na = run_file(path, mates, &s1, &sv1, NULL, NULL, alone, CAP, &c_alone);
      sp_survey_free(&sv1);
      sp_structure_free(&s1);
      /* the shared objects: freed and re-filled in place, so their addresses repeat */
      sp_survey_free(&sv);
      sp_structure_free(&s);
      long nb = run_file(path, mates, &s, &sv, ws, cw, after, CAP, &c_after);
      CHECK(na == nb && na >= 0, "%s: %ld sites alone, %ld after %s", argv[i], na, nb, i > 3 ? argv[i - 1] : "-");
      long diff = 0;
      for (long k = 0; k < na && k < nb; k++) diff += alone[k] != after[k];
      CHECK(diff == 0, "%s%s: %ld of %ld sites differ after %s (first site sasa_complex %.2f alone, %.2f after)",
            argv[i], mates ? " (symmetry mates)" : "", diff, na, i > 3 ? argv[i - 1] : "-", (double)c_alone,
            (double)c_after);
    }
    sp_survey_free(&sv);
    sp_structure_free(&s);
    sp_site_ws_free(ws);
    sp_chem_ws_free(cw);
  }
  sp_ccd_close(ccd);
  return sp_test_done("test_site_cache");
}

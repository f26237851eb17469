/* site-hash: a hash of every output of sp_site_compute + sp_site_chem_compute for every ligand of the given
 * structure files, at one or more pH values (default 4, 7.4, 10): site atoms, flags, residues, minimum
 * distances, centre, per-atom chemistry bits, pKa, protonated fraction, charges, per-atom SASA free /
 * complex, residue contacts, groups, interactions, totals, flags. Floats are hashed by their bits, so two
 * builds print the same line only when every output is identical bit for bit. Used to check that speed
 * work leaves the results unchanged (bench/site_hash.sh compares against a stored line).
 *
 * With --passes N every file's sites are computed N times at each pH with the same workspaces (cached
 * per-model grids) and the hash covers every pass; --fresh uses a new workspace per file; --symmetry-mates and
 * --assembly add the copies (site options symmetry_mates, assembly). Every output of sp_site is hashed: the
 * atoms, their flags, residue slots and positions, the residues (residue, kind, image, minimum distance), the
 * images (operator, translation, transform, tag, assembly). The file's columns from later steps (charges,
 * identities, descriptors, quality: src/pipeline) are not outputs of these two functions: the rank-count
 * checks compare whole files (tests/integration/compare_h5.py; compare_covers.py checks it sees every column).
 *
 * build: cc -O2 -std=c11 -D_GNU_SOURCE -Iinclude -Isrc bench/site_hash.c build-X/libsitepack.a -ldeflate -lz -lcrypto -lm -lccp4c -lpthread
 * usage: site_hash [--ph X]... [--passes N] [--fresh] [--per-file] [--symmetry-mates] [--assembly] CCD
 *        STRUCTURES_DIR FILE...
 * prints: one line per pH "ph X sites N atoms M hash H", then "all H" */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sitepack/read.h"
#include "sitepack/site.h"
#include "sitepack/sitechem.h"
#include "sitepack/survey.h"

#include "bench_load.h"

/* FNV-1a, 64 bit */
static uint64_t h_bytes(uint64_t h, const void *p, size_t n) {
  const unsigned char *c = p;
  for (size_t i = 0; i < n; i++) h = (h ^ c[i]) * 0x100000001b3ULL;
  return h;
}
#define H(h, x) h_bytes((h), &(x), sizeof(x))
#define HA(h, p, n) ((n) ? h_bytes((h), (p), (n) * sizeof *(p)) : (h))

static uint64_t hash_site(uint64_t h, const sp_site *s) {
  uint64_t n = s->n_atoms, nl = s->n_ligand, nr = s->n_res;
  h = H(h, n), h = H(h, nl), h = H(h, nr), h = H(h, s->flags);
  h = HA(h, s->center, 3);
  h = HA(h, s->atoms, s->n_atoms);
  h = HA(h, s->atom_flags, s->n_atoms);
  h = HA(h, s->atom_res, s->n_atoms);
  h = HA(h, s->xyz, s->n_atoms);
  for (size_t r = 0; r < s->n_res; r++) {
    h = H(h, s->res[r].residue);
    h = H(h, s->res[r].kind);
    h = H(h, s->res[r].image);
    h = H(h, s->res[r].min_distance);
  }
  uint64_t ni = s->n_images;
  h = H(h, ni);
  for (size_t i = 0; i < s->n_images; i++) {
    const sp_site_image *im = &s->images[i];
    h = H(h, im->op), h = HA(h, im->t, 3), h = HA(h, &im->rot[0][0], 9), h = HA(h, im->trn, 3);
    h = h_bytes(h, im->tag, strnlen(im->tag, sizeof im->tag)), h = H(h, im->assembly);
  }
  return h;
}

static uint64_t hash_chem(uint64_t h, const sp_site_chem *c) {
  uint64_t n = c->n_atoms, nr = c->n_res, ng = c->n_groups, ni = c->n_ix;
  h = H(h, n), h = H(h, nr), h = H(h, ng), h = H(h, ni);
  h = HA(h, c->atom_chem, c->n_atoms);
  h = HA(h, c->pka, c->n_atoms);
  h = HA(h, c->frac_protonated, c->n_atoms);
  h = HA(h, c->charge_ph, c->n_atoms);
  h = HA(h, c->sasa_free, c->n_atoms);
  h = HA(h, c->sasa_complex, c->n_atoms);
  h = HA(h, c->res_contact, c->n_res);
  for (size_t g = 0; g < c->n_groups; g++) {
    const sp_titr_group *t = &c->groups[g];
    h = H(h, t->kind), h = H(h, t->ligand), h = H(h, t->ambiguous), h = H(h, t->charge_prot);
    h = H(h, t->charge_deprot), h = H(h, t->charge), h = H(h, t->n_atoms), h = H(h, t->head);
    size_t na = t->n_atoms <= 4 ? t->n_atoms : 4;
    h = HA(h, t->atoms, na);
    h = H(h, t->pka), h = H(h, t->frac_protonated);
    h = HA(h, t->center, 3);
  }
  for (size_t i = 0; i < c->n_ix; i++) {
    const sp_interaction *x = &c->ix[i];
    h = H(h, x->type), h = H(h, x->flags), h = H(h, x->geometry), h = H(h, x->coordination);
    h = H(h, x->lig_atom), h = H(h, x->site_atom), h = H(h, x->water_atom);
    h = H(h, x->distance), h = H(h, x->angle), h = H(h, x->angle2), h = H(h, x->offset);
  }
  h = H(h, c->sasa_free_total), h = H(h, c->sasa_complex_total);
  h = H(h, c->ligand_charge), h = H(h, c->site_charge), h = H(h, c->flags);
  return h;
}

#define MAXPH 8

int main(int argc, char **argv) {
  double ph[MAXPH];
  int n_ph = 0, passes = 1, fresh = 0, per_file = 0, sym = 0, assembly = 0, ai = 1;
  while (ai < argc && !strncmp(argv[ai], "--", 2)) {
    if (!strcmp(argv[ai], "--ph") && ai + 1 < argc && n_ph < MAXPH) ph[n_ph++] = atof(argv[++ai]);
    else if (!strcmp(argv[ai], "--passes") && ai + 1 < argc) passes = atoi(argv[++ai]);
    else if (!strcmp(argv[ai], "--fresh")) fresh = 1;
    else if (!strcmp(argv[ai], "--per-file")) per_file = 1;
    else if (!strcmp(argv[ai], "--symmetry-mates")) sym = 1;
    else if (!strcmp(argv[ai], "--assembly")) assembly = 1;
    else return fprintf(stderr, "unknown option %s\n", argv[ai]), 2;
    ai++;
  }
  if (!n_ph) ph[0] = 4.0, ph[1] = 7.4, ph[2] = 10.0, n_ph = 3;
  if (passes < 1) passes = 1;
  if (argc - ai < 3) {
    fprintf(stderr,
            "usage: %s [--ph X]... [--passes N] [--fresh] [--per-file] [--symmetry-mates] [--assembly] CCD "
            "DIR FILE...\n",
            argv[0]);
    return 2;
  }
  sp_ccd *ccd = NULL;
  sp_err err = {0};
  if (sp_ccd_open(argv[ai], &ccd, &err)) return fprintf(stderr, "%s\n", err.msg), 1;
  uint64_t hp[MAXPH];
  long sites[MAXPH] = {0}, atoms[MAXPH] = {0}, errors = 0;
  for (int k = 0; k < n_ph; k++) hp[k] = 0xcbf29ce484222325ULL;
  sp_site_ws *ws = sp_site_ws_new();
  sp_chem_ws *cw = sp_chem_ws_new();
  sp_site site = {0};
  sp_site_chem ch = {0};
  for (int fi = ai + 2; fi < argc; fi++) {
    sp_structure s;
    sp_survey sv;
    if (bench_load(argv[ai + 1], argv[fi], ccd, &s, &sv, &err)) {
      fprintf(stderr, "%s: %s\n", argv[fi], err.msg);
      continue;
    }
    if (fresh) {
      sp_site_ws_free(ws);
      sp_chem_ws_free(cw);
      ws = sp_site_ws_new();
      cw = sp_chem_ws_new();
    }
    uint64_t hf = 0xcbf29ce484222325ULL;
    for (int k = 0; k < n_ph; k++) {
      sp_chem_opts co;
      sp_chem_opts_default(&co);
      co.ph = ph[k];
      sp_site_opts so = {0};
      memset(&so, 0, sizeof so);
      so.cutoff = 6.0f;
      so.max_atoms = 12000;
      so.symmetry_mates = sym;
      so.assembly = assembly;
      for (int p = 0; p < passes; p++)
        for (size_t l = 0; l < sv.n_ligands; l++) {
          uint64_t h = hp[k];
          int rc = sp_site_compute(&s, &sv, l, &so, ws, &site, &err);
          h = H(h, rc);
          if (!rc) {
            h = hash_site(h, &site);
            rc = sp_site_chem_compute(&s, &sv, l, &site, ccd, &co, cw, &ch, &err);
            h = H(h, rc);
            if (!rc) h = hash_chem(h, &ch);
          }
          if (rc) errors++;
          if (p == 0 && !rc) sites[k]++, atoms[k] += (long)site.n_atoms;
          hp[k] = h;
          hf = h_bytes(hf, &h, sizeof h);
        }
    }
    if (per_file) printf("file %s %016llx\n", argv[fi], (unsigned long long)hf);
    sp_survey_free(&sv);
    sp_structure_free(&s);
  }
  uint64_t all = 0xcbf29ce484222325ULL;
  for (int k = 0; k < n_ph; k++) {
    printf("ph %g sites %ld atoms %ld hash %016llx\n", ph[k], sites[k], atoms[k], (unsigned long long)hp[k]);
    all = h_bytes(all, &hp[k], sizeof hp[k]);
  }
  printf("errors %ld\nall %016llx\n", errors, (unsigned long long)all);
  sp_site_free(&site);
  sp_site_chem_free(&ch);
  sp_site_ws_free(ws);
  sp_chem_ws_free(cw);
  sp_ccd_close(ccd);
  return 0;
}

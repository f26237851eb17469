/* bench-site: sites per second and seconds per 1000 site atoms of the site computation (cell-list
 * search) plus the site chemistry (contacts, protonation, PLIP-criteria interactions, Shrake–Rupley
 * SASA of the ligand alone and in the complex, 960 points) over the given structure files.
 * Reading, parsing and the survey are outside the timed part. (The segment-scaling run of issue 5
 * is not part of this program yet.)
 *
 * build: cc -O2 -Iinclude -Isrc bench/site_bench.c build-X/libsitepack.a -lz -lcrypto -lm
 * usage: site_bench CCD STRUCTURES_DIR FILE...   (prints one JSON object) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sitepack/read.h"
#include "sitepack/site.h"
#include "sitepack/sitechem.h"
#include "sitepack/survey.h"

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: %s CCD DIR FILE...\n", argv[0]);
    return 2;
  }
  sp_ccd *ccd = NULL;
  sp_err err = {0};
  if (sp_ccd_open(argv[1], &ccd, &err)) return fprintf(stderr, "%s\n", err.msg), 1;
  sp_site_ws *ws = sp_site_ws_new();
  sp_chem_ws *cw = sp_chem_ws_new();
  sp_site site = {0};
  sp_site_chem ch = {0};
  double t_site = 0, t_chem = 0, t_sasa_share = 0;
  long n_sites = 0, n_atoms = 0, n_files = 0;
  (void)t_sasa_share;
  for (int fi = 3; fi < argc; fi++) {
    char path[2048];
    snprintf(path, sizeof path, "%s/%s", argv[2], argv[fi]);
    sp_structure s;
    memset(&s, 0, sizeof s);
    sp_structure_init(&s);
    sp_buf buf;
    memset(&buf, 0, sizeof buf);
    int fmt = 0;
    sp_survey sv;
    memset(&sv, 0, sizeof sv);
    if (sp_read_structure_file(path, 0, &buf, &s, &fmt, &err) || sp_survey_run(&s, ccd, NULL, &sv, &err)) {
      sp_buf_free(&buf);
      sp_survey_free(&sv);
      sp_structure_free(&s);
      continue;
    }
    sp_buf_free(&buf);
    n_files++;
    for (size_t l = 0; l < sv.n_ligands; l++) {
      double t0 = now();
      if (sp_site_compute(&s, &sv, l, NULL, ws, &site, &err)) continue;
      double t1 = now();
      if (sp_site_chem_compute(&s, &sv, l, &site, ccd, NULL, cw, &ch, &err)) continue;
      double t2 = now();
      t_site += t1 - t0;
      t_chem += t2 - t1;
      n_sites++;
      n_atoms += (long)site.n_atoms;
    }
    sp_survey_free(&sv);
    sp_structure_free(&s);
  }
  double total = t_site + t_chem;
  printf("{\"files\": %ld, \"sites\": %ld, \"site_atoms\": %ld, \"seconds_site_search\": %.6f, "
         "\"seconds_site_chemistry\": %.6f, \"sites_per_second\": %.1f, \"seconds_per_1000_site_atoms\": %.3e, "
         "\"speedup_vs_1.34s\": %.0f}\n",
         n_files, n_sites, n_atoms, t_site, t_chem, n_sites / total, total / (n_atoms / 1000.0),
         1.34 / (total / (n_atoms / 1000.0)));
  sp_site_free(&site);
  sp_site_chem_free(&ch);
  sp_site_ws_free(ws);
  sp_chem_ws_free(cw);
  sp_ccd_close(ccd);
  return 0;
}

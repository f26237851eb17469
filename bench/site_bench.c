/* bench-site: sites per second and seconds per 1000 site atoms of the site computation (cell-list
 * search) plus the site chemistry (contacts, protonation, PLIP-criteria interactions, Shrake–Rupley
 * SASA of the ligand alone and in the complex, 960 points) over the given structure files.
 * Reading, parsing and the survey are outside the timed part. Wall time (CLOCK_MONOTONIC) and CPU
 * time of the process (CLOCK_PROCESS_CPUTIME_ID, robust to other load on shared cores) are reported.
 *
 * Options (before CCD):
 *   --cutoff X    site cutoff in Å (default 6.0, maximum site size 12 000 atoms); the segment-scaling run
 *                 uses a cutoff larger than the segment so that the whole segment is the site
 *                 (bench/site_scaling.py; maximum site size then 1 000 000 atoms)
 *   --repeat N    compute every site N times (default 1) and report the median of the N passes
 *   --per-file    one JSON object per file (site atoms, seconds per 1000 site atoms) instead of the total
 *
 * build: cc -O2 -std=c11 -D_GNU_SOURCE -Iinclude -Isrc bench/site_bench.c build-X/libsitepack.a -ldeflate -lz -lcrypto -lm -lccp4c -lpthread
 * usage: site_bench [--cutoff X] [--repeat N] [--per-file] CCD STRUCTURES_DIR FILE...   (prints JSON) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>

#include "sitepack/read.h"
#include "sitepack/site.h"
#include "sitepack/sitechem.h"
#include "sitepack/survey.h"

#include "bench_load.h"

static double clk(clockid_t id) {
  struct timespec ts;
  clock_gettime(id, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* minor + major page faults of the process so far */
static long faults(void) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_minflt + ru.ru_majflt;
}

static int cmpd(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

#define MAXREP 64

int main(int argc, char **argv) {
  double cutoff = 6.0;
  int repeat = 1, per_file = 0, ai = 1;
  while (ai < argc && !strncmp(argv[ai], "--", 2)) {
    if (!strcmp(argv[ai], "--cutoff") && ai + 1 < argc) cutoff = atof(argv[++ai]);
    else if (!strcmp(argv[ai], "--repeat") && ai + 1 < argc) repeat = atoi(argv[++ai]);
    else if (!strcmp(argv[ai], "--per-file")) per_file = 1;
    else return fprintf(stderr, "unknown option %s\n", argv[ai]), 2;
    ai++;
  }
  if (repeat < 1) repeat = 1;
  if (repeat > MAXREP) repeat = MAXREP;
  if (argc - ai < 3) {
    fprintf(stderr, "usage: %s [--cutoff X] [--repeat N] [--per-file] CCD DIR FILE...\n", argv[0]);
    return 2;
  }
  sp_ccd *ccd = NULL;
  sp_err err = {0};
  if (sp_ccd_open(argv[ai], &ccd, &err)) return fprintf(stderr, "%s\n", err.msg), 1;
  sp_site_ws *ws = sp_site_ws_new();
  sp_chem_ws *cw = sp_chem_ws_new();
  sp_site site = {0};
  sp_site_chem ch = {0};
  sp_site_opts so = {0};
  so.cutoff = (float)cutoff;
  so.max_atoms = cutoff > 6.0 ? 1000000 : 12000; /* the scaling run stores whole segments */
  static double w_site[MAXREP], w_chem[MAXREP], c_all[MAXREP];
  static long pf[MAXREP]; /* page faults inside the timed part, per pass */
  long n_sites = 0, n_atoms = 0, n_files = 0;
  double sasa_sum = 0; /* checksum: sum of the per-site SASA totals (free + complex), first pass */
  for (int fi = ai + 2; fi < argc; fi++) {
    sp_structure s;
    sp_survey sv;
    if (bench_load(argv[ai + 1], argv[fi], ccd, &s, &sv, &err)) {
      continue;
    }
    n_files++;
    long f_sites = 0, f_atoms = 0;
    double f_cpu[MAXREP];
    for (int r = 0; r < repeat; r++) {
      long pf0 = faults();
      double c0 = clk(CLOCK_PROCESS_CPUTIME_ID);
      for (size_t l = 0; l < sv.n_ligands; l++) {
        double t0 = clk(CLOCK_MONOTONIC);
        if (sp_site_compute(&s, &sv, l, &so, ws, &site, &err)) continue;
        double t1 = clk(CLOCK_MONOTONIC);
        if (sp_site_chem_compute(&s, &sv, l, &site, ccd, NULL, cw, &ch, &err)) continue;
        double t2 = clk(CLOCK_MONOTONIC);
        w_site[r] += t1 - t0;
        w_chem[r] += t2 - t1;
        if (r == 0) f_sites++, f_atoms += (long)site.n_atoms, sasa_sum += ch.sasa_free_total + ch.sasa_complex_total;
      }
      f_cpu[r] = clk(CLOCK_PROCESS_CPUTIME_ID) - c0;
      pf[r] += faults() - pf0;
      c_all[r] += f_cpu[r];
    }
    n_sites += f_sites;
    n_atoms += f_atoms;
    if (per_file) {
      double cold = f_cpu[0];
      qsort(f_cpu, (size_t)repeat, sizeof *f_cpu, cmpd);
      double med = f_cpu[repeat / 2];
      printf("{\"file\": \"%s\", \"sites\": %ld, \"site_atoms\": %ld, \"cpu_seconds_first_pass\": %.6f, "
             "\"cpu_seconds_median\": %.6f, "
             "\"seconds_per_1000_site_atoms\": %.3e, \"speedup_vs_1.34s\": %.0f}\n",
             argv[fi], f_sites, f_atoms, cold, med, f_atoms ? med / (f_atoms / 1000.0) : 0.0,
             f_atoms ? 1.34 / (med / (f_atoms / 1000.0)) : 0.0);
    }
    sp_survey_free(&sv);
    sp_structure_free(&s);
  }
  if (!per_file) {
    double wt[MAXREP];
    for (int r = 0; r < repeat; r++) wt[r] = w_site[r] + w_chem[r];
    /* medians over the passes */
    double ws_[MAXREP], wc_[MAXREP];
    memcpy(ws_, w_site, sizeof ws_);
    memcpy(wc_, w_chem, sizeof wc_);
    qsort(wt, (size_t)repeat, sizeof *wt, cmpd);
    qsort(ws_, (size_t)repeat, sizeof *ws_, cmpd);
    qsort(wc_, (size_t)repeat, sizeof *wc_, cmpd);
    qsort(c_all, (size_t)repeat, sizeof *c_all, cmpd);
    double total = wt[repeat / 2], cpu = c_all[repeat / 2];
    printf("{\"files\": %ld, \"sites\": %ld, \"site_atoms\": %ld, \"cutoff\": %.1f, \"passes\": %d, "
           "\"seconds_site_search\": %.6f, \"seconds_site_chemistry\": %.6f, \"wall_seconds\": %.6f, "
           "\"cpu_seconds\": %.6f, \"sites_per_second\": %.1f, \"seconds_per_1000_site_atoms_wall\": %.3e, "
           "\"seconds_per_1000_site_atoms_cpu\": %.3e, \"speedup_vs_1.34s_cpu\": %.0f, \"sasa_checksum\": %.3f, "
           "\"page_faults_first_pass\": %ld, \"page_faults_last_pass\": %ld}\n",
           n_files, n_sites, n_atoms, cutoff, repeat, ws_[repeat / 2], wc_[repeat / 2], total, cpu,
           n_sites / total, total / (n_atoms / 1000.0), cpu / (n_atoms / 1000.0), 1.34 / (cpu / (n_atoms / 1000.0)),
           sasa_sum, pf[0], pf[repeat - 1]);
  }
  sp_site_free(&site);
  sp_site_chem_free(&ch);
  sp_site_ws_free(ws);
  sp_chem_ws_free(cw);
  sp_ccd_close(ccd);
  return 0;
}

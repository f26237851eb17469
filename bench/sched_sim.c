/* Scheduling benchmark, simulated (docs/scaling.md): replays per-task costs through the SAME
 * planning, splitting and stealing code as `sitepack run` (sp_tasks_expand, sp_plan_lpt,
 * sp_plan_from_assignment, sp_sched_simulate; sched.h) for P = 1, 2, 4, ..., 1024 under four
 * policies, and prints one JSON object.
 *
 *   sitepack_bench_sched replay STRUCTURES.tsv [LATENCY_S]
 *       measured costs: the TSV of `sitepack dump OUT.h5 structures` of an unsplit -np 1 run
 *       (a file's time = t_parse + t_survey + t_site; a part of a split file: t_parse + t_survey
 *       + t_site * its share of the ligands)
 *   sitepack_bench_sched synthetic N SEED [LATENCY_S] [STRUCTURES.tsv]
 *       N PDB-like files (log-normal sizes, 2/3 gzip, a few giant entries with thousands of
 *       ligands); time = text bytes * parse rate + ligands * ligand rate, rates measured from the
 *       TSV when given, times log-normal noise (sigma 0.3) the planner does not see
 *
 * Policies: rr (static round robin in input order), lpt (static LPT plan), lpt+steal,
 * lpt+steal+split (the run's phases: every file, large ones deciding their split, then the extra
 * parts if any; makespan = sum of both phases), with the cost guard as in the CLI default and without it
 * (thresholds only). Ratio = makespan / max(largest file, total file time / P) (the unsplit
 * bound: any schedule of whole files needs at least that).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sitepack/plan.h"

typedef struct file_t {
  int64_t bytes;
  uint8_t gzip;
  int64_t atoms, ligands;
  double t_fixed;  /* parse + survey (every part pays it) */
  double t_lig;    /* ligand-proportional part (sites) */
} file_t;

static double uni(unsigned long long *s) {
  *s ^= *s << 13;
  *s ^= *s >> 7;
  *s ^= *s << 17;
  return ((double)(*s >> 11) + 0.5) / 9007199254740992.0;
}
static double gauss(unsigned long long *s) { return sqrt(-2 * log(uni(s))) * cos(6.283185307179586 * uni(s)); }

static int read_tsv(const char *path, file_t **out, size_t *n_out) {
  FILE *f = fopen(path, "r");
  if (!f) return -1;
  char line[8192];
  int col[8];
  const char *names[8] = {"bytes", "gzip", "n_atoms", "n_ligands", "t_parse", "t_survey", "t_site", "status"};
  if (!fgets(line, sizeof line, f)) {
    fclose(f);
    return -1;
  }
  for (int k = 0; k < 8; k++) col[k] = -1;
  int c = 0;
  for (char *tok = strtok(line, "\t\n"); tok; tok = strtok(NULL, "\t\n"), c++)
    for (int k = 0; k < 8; k++)
      if (!strcmp(tok, names[k])) col[k] = c;
  for (int k = 0; k < 8; k++)
    if (col[k] < 0) {
      fclose(f);
      return -1;
    }
  size_t cap = 256, n = 0;
  file_t *v = malloc(cap * sizeof *v);
  while (v && fgets(line, sizeof line, f)) {
    char *fld[64];
    int nf = 0;
    for (char *p = line, *q; nf < 64; p = q + 1) {
      fld[nf++] = p;
      q = strchr(p, '\t');
      if (!q) break;
      *q = 0;
    }
    if (nf <= col[6]) continue;
    if (n == cap) {
      file_t *nv = realloc(v, (cap *= 2) * sizeof *v);
      if (!nv) break;
      v = nv;
    }
    file_t *x = &v[n++];
    x->bytes = atoll(fld[col[0]]);
    x->gzip = (uint8_t)atoi(fld[col[1]]);
    x->atoms = atoll(fld[col[2]]);
    x->ligands = atoll(fld[col[3]]);
    x->t_fixed = atof(fld[col[4]]) + atof(fld[col[5]]);
    x->t_lig = atof(fld[col[6]]);
  }
  fclose(f);
  if (!v) return -1;
  *out = v;
  *n_out = n;
  return 0;
}

static double part_time(const file_t *f, int part, int n_parts) {
  if (n_parts <= 1 || f->ligands <= 0) return f->t_fixed + f->t_lig;
  int64_t lo, hi;
  sp_split_range(f->ligands, part, n_parts, &lo, &hi);
  return f->t_fixed + f->t_lig * (double)(hi - lo) / (double)f->ligands;
}

static void die(const char *what, const sp_err *e) {
  fprintf(stderr, "sitepack_bench_sched: %s: %s\n", what, e ? e->msg : "");
  exit(1);
}

/* Simulate one phase: tasks [n] with estimates and actual times. Returns the makespan (with
   stealing unless static_only, then the plan's static makespan); *steals added. */
static double sim_phase(const double *est, const double *act, size_t n, int P, int rr, int static_only,
                        double latency, int64_t *steals) {
  if (n == 0) return 0;
  sp_plan plan;
  sp_err e = {0};
  if (rr) {
    int *r = malloc(n * sizeof *r);
    if (!r) die("out of memory", NULL);
    for (size_t t = 0; t < n; t++) r[t] = (int)(t % (size_t)P);
    if (sp_plan_from_assignment(est, n, P, r, &plan, &e)) die("plan", &e);
    free(r);
  } else if (sp_plan_lpt(est, n, P, &plan, &e)) {
    die("plan", &e);
  }
  sp_sched_sim s;
  if (sp_sched_simulate(&plan, act, latency, &s, &e)) die("simulate", &e);
  sp_plan_free(&plan);
  if (steals) *steals += s.steals;
  return static_only ? s.static_makespan : s.makespan;
}

/* The run's phases with splitting (src/app/run.c): phase A = every file, a large one (>= min_bytes)
   running its part 0 with the split decided from its (then known) atoms and ligands; phase B =
   parts 1.. of the split files, only when some file split (its makespan adds to phase A's). */
static double sim_split(const file_t *F, size_t n, int P, const sp_split_opts *so, const sp_cost_model *m,
                        double latency, int64_t *steals, size_t *n_tasks_out) {
  int64_t *bytes = malloc((n ? n : 1) * sizeof *bytes), *atoms = malloc((n ? n : 1) * sizeof *atoms);
  int64_t *ligs = malloc((n ? n : 1) * sizeof *ligs);
  uint8_t *gz = malloc(n ? n : 1);
  double *est_a = malloc((n ? n : 1) * sizeof *est_a), *act_a = malloc((n ? n : 1) * sizeof *act_a);
  if (!bytes || !atoms || !ligs || !gz || !est_a || !act_a) die("out of memory", NULL);
  for (size_t f = 0; f < n; f++) {
    bytes[f] = F[f].bytes;
    gz[f] = F[f].gzip;
    int big = so->enabled && F[f].bytes >= so->min_bytes;
    atoms[f] = big ? F[f].atoms : -1;
    ligs[f] = big ? F[f].ligands : -1;
    int k = sp_split_parts_model(so, m, F[f].bytes, F[f].gzip, atoms[f], ligs[f]);
    est_a[f] = sp_cost_estimate(m, F[f].bytes, F[f].gzip, -1, -1);
    act_a[f] = part_time(&F[f], 0, k);
  }
  double span = sim_phase(est_a, act_a, n, P, 0, 0, latency, steals);
  sp_task_ref *t = NULL;
  double *c = NULL;
  size_t nt = 0;
  sp_err e = {0};
  if (sp_tasks_expand(n, bytes, gz, atoms, ligs, so, m, &t, &c, &nt, &e)) die("tasks", &e);
  double *est_b = malloc((nt ? nt : 1) * sizeof *est_b), *act_b = malloc((nt ? nt : 1) * sizeof *act_b);
  if (!est_b || !act_b) die("out of memory", NULL);
  size_t nb = 0;
  for (size_t k = 0; k < nt; k++) {
    if (t[k].part == 0) continue; /* ran in phase A */
    est_b[nb] = c[k];
    act_b[nb] = part_time(&F[t[k].file_idx], t[k].part, t[k].n_parts);
    nb++;
  }
  span += sim_phase(est_b, act_b, nb, P, 0, 0, latency, steals);
  *n_tasks_out = n + nb;
  free(bytes);
  free(atoms);
  free(ligs);
  free(gz);
  free(est_a);
  free(act_a);
  free(est_b);
  free(act_b);
  free(t);
  free(c);
  return span;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s replay STRUCTURES.tsv [LATENCY_S] | synthetic N SEED [LATENCY_S] [STRUCTURES.tsv]\n",
            argv[0]);
    return 2;
  }
  file_t *F = NULL;
  size_t n = 0;
  double latency = 2e-5;
  int synthetic = !strcmp(argv[1], "synthetic");
  double r_parse_plain = 6e-9, r_parse_gz = 5e-8, r_lig = 2.3e-4;
  if (!synthetic) {
    if (read_tsv(argv[2], &F, &n)) {
      fprintf(stderr, "cannot read %s (a `sitepack dump OUT.h5 structures` TSV)\n", argv[2]);
      return 1;
    }
    if (argc > 3) latency = atof(argv[3]);
  } else {
    if (argc < 4) return 2;
    n = (size_t)atoll(argv[2]);
    unsigned long long seed = strtoull(argv[3], NULL, 10) * 2654435761ull + 88172645463325252ull;
    if (argc > 4) latency = atof(argv[4]);
    if (argc > 5) { /* rates measured from a replay TSV */
      file_t *M = NULL;
      size_t nm = 0;
      if (read_tsv(argv[5], &M, &nm) == 0) {
        double tp[2] = {0, 0}, by[2] = {0, 0}, tl = 0, nl = 0;
        for (size_t i = 0; i < nm; i++) {
          tp[M[i].gzip ? 1 : 0] += M[i].t_fixed;
          by[M[i].gzip ? 1 : 0] += (double)M[i].bytes;
          tl += M[i].t_lig;
          nl += (double)M[i].ligands;
        }
        if (by[0] > 0) r_parse_plain = tp[0] / by[0];
        if (by[1] > 0) r_parse_gz = tp[1] / by[1];
        if (nl > 0) r_lig = tl / nl;
        free(M);
      }
    }
    F = calloc(n ? n : 1, sizeof *F);
    if (!F) return 1;
    size_t n_giant = n / 5000 + 2;
    for (size_t i = 0; i < n; i++) {
      file_t *x = &F[i];
      x->gzip = uni(&seed) < 2.0 / 3.0;
      double text = exp(log(6e5) + 1.0 * gauss(&seed)); /* median 600 kB of text */
      if (text > 6e7) text = 6e7;
      double lig_mean = 1 + text / 1.5e5;
      x->ligands = (int64_t)(-lig_mean * log(uni(&seed)));
      if (i % (n / n_giant ? n / n_giant : 1) == 7 % (n ? n : 1)) { /* giant entry (ribosome-like) */
        text = 1e8 + 2e8 * uni(&seed);
        x->ligands = 1000 + (int64_t)(4000 * uni(&seed));
      }
      x->bytes = (int64_t)(x->gzip ? text / 4.5 : text);
      x->atoms = (int64_t)(text / 81);
      double noise = exp(0.3 * gauss(&seed));
      x->t_fixed = (double)x->bytes * (x->gzip ? r_parse_gz : r_parse_plain) * noise;
      x->t_lig = (double)x->ligands * r_lig * noise;
    }
  }
  sp_cost_model m;
  sp_cost_model_default(&m);
  sp_split_opts guard, thresh;
  sp_split_opts_default(&guard);
  thresh = guard;
  thresh.cost_guard = 0;
  double *est = malloc((n ? n : 1) * sizeof *est), *act = malloc((n ? n : 1) * sizeof *act);
  if (!est || !act) return 1;
  double total = 0, largest = 0;
  for (size_t f = 0; f < n; f++) {
    est[f] = sp_cost_estimate(&m, F[f].bytes, F[f].gzip, -1, -1);
    act[f] = F[f].t_fixed + F[f].t_lig;
    total += act[f];
    if (act[f] > largest) largest = act[f];
  }
  printf("{\n  \"input\": \"%s\",\n  \"files\": %zu,\n  \"total_seconds\": %.6g,\n  \"largest_seconds\": %.6g,\n",
         synthetic ? "synthetic" : argv[2], n, total, largest);
  if (synthetic)
    printf("  \"rates\": {\"parse_plain_s_per_byte\": %.4g, \"parse_gz_s_per_byte\": %.4g, \"ligand_s\": %.4g},\n",
           r_parse_plain, r_parse_gz, r_lig);
  printf("  \"steal_latency_seconds\": %g,\n  \"P\": [\n", latency);
  for (int P = 1; P <= 1024; P *= 2) {
    double lb = total / P > largest ? total / P : largest;
    int64_t st = 0, st_s = 0, st_t = 0;
    double rr = sim_phase(est, act, n, P, 1, 1, latency, NULL);
    double lpt = sim_phase(est, act, n, P, 0, 1, latency, NULL);
    double steal = sim_phase(est, act, n, P, 0, 0, latency, &st);
    size_t nt_g = 0, nt_t = 0;
    double split = sim_split(F, n, P, &guard, &m, latency, &st_s, &nt_g);
    double split_t = sim_split(F, n, P, &thresh, &m, latency, &st_t, &nt_t);
    printf("    {\"P\": %d, \"lower_bound\": %.6g, \"rr\": %.4f, \"lpt\": %.4f, \"lpt_steal\": %.4f, "
           "\"lpt_steal_split\": %.4f, \"lpt_steal_split_noguard\": %.4f, \"steals\": %lld, \"tasks_split\": %zu, "
           "\"tasks_split_noguard\": %zu}%s\n",
           P, lb, rr / lb, lpt / lb, steal / lb, split / lb, split_t / lb, (long long)st, nt_g, nt_t,
           P < 1024 ? "," : "");
    if (P == 16) { /* P = 20 is the design target: not a power of two, reported as well */
      int Q = 20;
      double lbq = total / Q > largest ? total / Q : largest;
      int64_t sq = 0;
      size_t a = 0, b = 0;
      double r_rr = sim_phase(est, act, n, Q, 1, 1, latency, NULL) / lbq;
      double r_lpt = sim_phase(est, act, n, Q, 0, 1, latency, NULL) / lbq;
      double r_st = sim_phase(est, act, n, Q, 0, 0, latency, &sq) / lbq;
      int64_t sq_st = sq;
      double r_sp = sim_split(F, n, Q, &guard, &m, latency, &sq, &a) / lbq;
      double r_spt = sim_split(F, n, Q, &thresh, &m, latency, &sq, &b) / lbq;
      printf("    {\"P\": 20, \"lower_bound\": %.6g, \"rr\": %.4f, \"lpt\": %.4f, \"lpt_steal\": %.4f, "
             "\"lpt_steal_split\": %.4f, \"lpt_steal_split_noguard\": %.4f, \"steals\": %lld, \"tasks_split\": %zu, "
             "\"tasks_split_noguard\": %zu},\n",
             lbq, r_rr, r_lpt, r_st, r_sp, r_spt, (long long)sq_st, a, b);
    }
  }
  printf("  ]\n}\n");
  free(F);
  free(est);
  free(act);
  return 0;
}

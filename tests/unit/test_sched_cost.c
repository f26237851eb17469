/* Unit tests of the cost model and splitting (no MPI): NNLS fit on exact synthetic data,
 * split rules and ranges, task expansion, and on a real file (19HC, 23 ligands): the parts of a
 * split file concatenate to exactly the rows of the unsplit task.
 * usage: test_sched_cost DATA_DIR   (tests/data: structures/, ccd/components_sample.cif) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sitepack/ccd.h"
#include "sitepack/plan.h"
#include "sitepack/pipeline.h"

#include "sp_test.h"

static double rel(double a, double b) { return fabs(a - b) / (fabs(b) > 1e-300 ? fabs(b) : 1); }

static void test_fit(void) {
  /* exact data from known constants: the fit must recover them */
  enum { N = 400 };
  sp_cost_sample s[N];
  unsigned x = 12345;
  for (int i = 0; i < N; i++) {
    x = x * 1103515245u + 12345u;
    s[i].gzip = (x >> 16) & 1;
    s[i].bytes = 1000 + (int64_t)((x >> 4) % 3000000);
    x = x * 1103515245u + 12345u;
    s[i].atoms = s[i].bytes / 80 + (int64_t)((x >> 8) % 5000);
    s[i].ligands = (int64_t)((x >> 20) % 200);
    s[i].seconds = 1e-3 + (s[i].gzip ? 5e-8 : 6e-9) * (double)s[i].bytes + 2e-7 * (double)s[i].atoms +
                   3e-4 * (double)s[i].ligands;
  }
  sp_cost_model m;
  sp_err e = {0};
  CHECK(sp_cost_fit(s, N, &m, &e) == 0, "%s", e.msg);
  CHECK(m.n_samples == N, "n_samples %lld", (long long)m.n_samples);
  CHECK(rel(m.intercept, 1e-3) < 1e-6, "intercept %g", m.intercept);
  CHECK(rel(m.per_plain_byte, 6e-9) < 1e-6, "plain %g", m.per_plain_byte);
  CHECK(rel(m.per_gz_byte, 5e-8) < 1e-6, "gz %g", m.per_gz_byte);
  CHECK(rel(m.per_atom, 2e-7) < 1e-6, "atom %g", m.per_atom);
  CHECK(rel(m.per_ligand, 3e-4) < 1e-6, "ligand %g", m.per_ligand);
  CHECK(m.r2 > 0.999999, "r2 %g", m.r2);
  CHECK(m.r2_bytes_only < m.r2, "bytes-only r2 %g not below full %g", m.r2_bytes_only, m.r2);
  CHECK(m.bo_per_gz_byte > m.bo_per_plain_byte, "bytes-only gz %g plain %g", m.bo_per_gz_byte, m.bo_per_plain_byte);

  /* a negative true coefficient: NNLS clamps it to 0 and still fits the rest */
  for (int i = 0; i < N; i++) s[i].seconds = 2e-3 + 1e-8 * (double)s[i].bytes - 1e-6 * (double)s[i].ligands;
  CHECK(sp_cost_fit(s, N, &m, &e) == 0, "%s", e.msg);
  CHECK(m.per_ligand == 0, "per_ligand %g should be clamped to 0", m.per_ligand);
  CHECK(m.intercept >= 0 && m.per_plain_byte >= 0 && m.per_gz_byte >= 0 && m.per_atom >= 0, "negative constant");
  CHECK(m.per_plain_byte > 5e-9, "plain %g", m.per_plain_byte);

  /* too few samples: the defaults, n_samples 0; NaN times are skipped */
  s[0].seconds = NAN;
  CHECK(sp_cost_fit(s, 2, &m, &e) == 0 && m.n_samples == 0, "n_samples %lld", (long long)m.n_samples);
  CHECK(sp_cost_fit(NULL, 3, &m, &e) == SP_E_INVALID, "NULL samples accepted");
  CHECK(sp_cost_fit(s, 3, NULL, &e) == SP_E_INVALID, "NULL output accepted");

  sp_cost_model d;
  sp_cost_model_default(&d);
  CHECK(sp_cost_estimate(&d, 1000000, 1, -1, -1) > sp_cost_estimate(&d, 1000000, 0, -1, -1), "gzip not dearer");
  CHECK(sp_cost_estimate(&d, 0, 0, 0, 0) >= 1e-6, "zero-cost task");
  CHECK(sp_cost_estimate(&d, 2000000, 0, 10000, 50) >= sp_cost_estimate(&d, 2000000, 0, 10000, 0), "ligands");
}

static void test_split(void) {
  sp_split_opts o;
  sp_split_opts_default(&o);
  CHECK(o.min_bytes == 2000000 && o.min_ligands == 24 && o.max_parts == 16 && o.enabled && o.cost_guard, "defaults");
  CHECK(sp_split_parts(&o, 1999999, 1000) == 1, "below the size threshold");
  CHECK(sp_split_parts(&o, 2000000, 24) == 1, "24 ligands is not more than 24");
  CHECK(sp_split_parts(&o, 2000000, 25) == 2, "25 ligands: 2 parts, got %d", sp_split_parts(&o, 2000000, 25));
  CHECK(sp_split_parts(&o, 5000000, 72) == 3, "72 ligands: 3 parts");
  CHECK(sp_split_parts(&o, 5000000, 100000) == 16, "capped at max_parts");
  CHECK(sp_split_parts(&o, 5000000, -1) == 1, "unknown ligands");
  o.enabled = 0;
  CHECK(sp_split_parts(&o, 5000000, 100) == 1, "disabled");
  CHECK(sp_split_parts(NULL, 5000000, 100) == 1, "NULL opts");
  o.enabled = 1;
  /* cost guard: 100 ligands at 1e-3 s each against a base of 0.03 s: at most 3 parts */
  sp_cost_model m;
  memset(&m, 0, sizeof m);
  m.intercept = 0.03;
  m.per_ligand = 1e-3;
  CHECK(sp_split_parts_model(&o, &m, 3000000, 0, 1000, 100) == 3, "guard: %d",
        sp_split_parts_model(&o, &m, 3000000, 0, 1000, 100));
  m.per_ligand = 1e-4; /* 0.01 s of ligand work < one parse: no split */
  CHECK(sp_split_parts_model(&o, &m, 3000000, 0, 1000, 100) == 1, "guard should refuse");
  o.cost_guard = 0;
  CHECK(sp_split_parts_model(&o, &m, 3000000, 0, 1000, 100) == 5, "no guard: thresholds alone");

  /* ranges: consecutive, in order, cover 0..n exactly once, sizes differ by at most 1 */
  for (int64_t n = 0; n < 70; n++)
    for (int k = 1; k <= 17; k++) {
      int64_t prev = 0, mn = n + 1, mx = -1;
      for (int p = 0; p < k; p++) {
        int64_t lo, hi;
        sp_split_range(n, p, k, &lo, &hi);
        CHECK(lo == prev && hi >= lo, "n=%lld k=%d part %d: [%lld,%lld)", (long long)n, k, p, (long long)lo,
              (long long)hi);
        prev = hi;
        if (hi - lo < mn) mn = hi - lo;
        if (hi - lo > mx) mx = hi - lo;
      }
      CHECK(prev == n, "n=%lld k=%d ends at %lld", (long long)n, k, (long long)prev);
      CHECK(mx - mn <= 1, "n=%lld k=%d uneven %lld..%lld", (long long)n, k, (long long)mn, (long long)mx);
    }
  int64_t lo, hi;
  sp_split_range(10, 3, 3, &lo, &hi);
  CHECK(lo == 0 && hi == 0, "part out of range");

  /* expansion: parts in order, costs = base + ligand share */
  int64_t bytes[3] = {100, 3000000, 2500000}, atoms[3] = {-1, 1000, 2000}, ligs[3] = {-1, 100, 10};
  uint8_t gz[3] = {0, 0, 1};
  o.cost_guard = 0;
  sp_task_ref *t = NULL;
  double *c = NULL;
  size_t n = 0;
  sp_err e = {0};
  CHECK(sp_tasks_expand(3, bytes, gz, atoms, ligs, &o, &m, &t, &c, &n, &e) == 0, "%s", e.msg);
  CHECK(n == 1 + 5 + 1, "tasks %zu", n);
  if (n == 7) {
    CHECK(t[0].file_idx == 0 && t[0].n_parts == 1, "task 0");
    double whole = sp_cost_estimate(&m, bytes[1], 0, 1000, 100), sum = 0;
    for (int k = 0; k < 5; k++) {
      CHECK(t[1 + k].file_idx == 1 && t[1 + k].part == k && t[1 + k].n_parts == 5, "part %d", k);
      CHECK(fabs(c[1 + k] - (whole - m.per_ligand * 80)) < 1e-12, "part cost %g", c[1 + k]);
      sum += c[1 + k];
    }
    CHECK(sum > whole, "split parts must cost more in total (re-parse): %g vs %g", sum, whole);
    CHECK(t[6].file_idx == 2 && t[6].n_parts == 1, "10 ligands: not split");
  }
  free(t);
  free(c);
  CHECK(sp_tasks_expand(0, NULL, NULL, NULL, NULL, NULL, NULL, &t, &c, &n, &e) == 0 && n == 0, "empty");
  free(t);
  free(c);
  CHECK(sp_tasks_expand(2, NULL, NULL, NULL, NULL, NULL, NULL, &t, &c, &n, &e) == SP_E_INVALID, "NULL bytes");
}

/* rows of a table equal (memcmp) between two results, after the first `off` rows of `whole` */
#define SAME_ROWS(whole, part, field, off, cnt) \
  (memcmp((whole)->field + (off), (part)->field, (cnt) * sizeof *(part)->field) == 0)

static void test_parts_real(const char *data) {
  char root[4096], ccd_path[4096];
  snprintf(root, sizeof root, "%s/structures", data);
  snprintf(ccd_path, sizeof ccd_path, "%s/ccd/components_sample.cif", data);
  sp_ccd *ccd = NULL;
  sp_err e = {0};
  CHECK(sp_ccd_open(ccd_path, &ccd, &e) == 0, "CCD: %s", e.msg);
  sp_worker *w = sp_worker_new();
  sp_result whole, part;
  sp_result_init(&whole);
  sp_result_init(&part);
  CHECK(w != NULL, "worker");
  const char *file = "19hc.pdb.gz"; /* MANIFEST: ligand_instances=23 (ACTx5, HEMx18) */
  CHECK(sp_worker_process(w, root, file, 7, ccd, NULL, &whole, &e) == 0, "%s", e.msg);
  CHECK(!strcmp(whole.st.status, "ok") && whole.n_ligands == 23 && whole.n_parts == 1, "19hc: %s, %zu ligands",
        whole.st.status, whole.n_ligands);
  for (int K = 2; K <= 5 && !g_fail; K++) {
    size_t lig = 0, site = 0, res = 0, atom = 0;
    for (int p = 0; p < K; p++) {
      CHECK(sp_worker_process_part(w, root, file, 7, p, K, ccd, NULL, &part, &e) == 0, "%s", e.msg);
      CHECK(part.part == p && part.n_parts == K && part.has_structure_row == (p == 0), "part header");
      if (p == 0) {
        CHECK(part.st.n_ligands == 23 && part.st.n_sites == 23, "part 0 carries the file's counts");
        CHECK(part.n_components == whole.n_components &&
                  SAME_ROWS(&whole, &part, components, 0, whole.n_components),
              "components");
      } else {
        CHECK(part.n_components == 0, "components only with part 0");
      }
      CHECK(lig + part.n_ligands <= whole.n_ligands && site + part.n_sites <= whole.n_sites &&
                res + part.n_residues <= whole.n_residues && atom + part.n_atoms <= whole.n_atoms,
            "K=%d part %d too many rows", K, p);
      if (g_fail) break;
      /* local indices: shift the part's to the whole's numbering, then rows must be identical */
      for (size_t i = 0; i < part.n_ligands; i++)
        if (part.ligands[i].site_idx >= 0) part.ligands[i].site_idx += (int64_t)site;
      for (size_t i = 0; i < part.n_sites; i++) part.sites[i].ligand_idx += (int64_t)lig;
      for (size_t i = 0; i < part.n_residues; i++) part.residues[i].site_idx += (int64_t)site;
      for (size_t i = 0; i < part.n_atoms; i++) part.atoms[i].residue_idx += (int64_t)res;
      CHECK(SAME_ROWS(&whole, &part, ligands, lig, part.n_ligands), "K=%d part %d ligands", K, p);
      CHECK(SAME_ROWS(&whole, &part, sites, site, part.n_sites), "K=%d part %d sites", K, p);
      CHECK(SAME_ROWS(&whole, &part, residues, res, part.n_residues), "K=%d part %d residues", K, p);
      CHECK(SAME_ROWS(&whole, &part, atoms, atom, part.n_atoms), "K=%d part %d atoms", K, p);
      lig += part.n_ligands;
      site += part.n_sites;
      res += part.n_residues;
      atom += part.n_atoms;
    }
    CHECK(lig == whole.n_ligands && site == whole.n_sites && res == whole.n_residues && atom == whole.n_atoms,
          "K=%d: parts hold %zu/%zu ligands, %zu/%zu atoms", K, lig, whole.n_ligands, atom, whole.n_atoms);
  }
  /* the first part decides the split: 23 ligands, threshold 5 -> 5 parts (guard off) */
  sp_split_opts o;
  sp_split_opts_default(&o);
  o.min_bytes = 0;
  o.min_ligands = 5;
  o.cost_guard = 0;
  CHECK(sp_worker_process_first(w, root, file, 7, &o, NULL, ccd, NULL, &part, &e) == 0, "%s", e.msg);
  CHECK(part.n_parts == 5 && part.n_ligands == 4 /* floor(23 / 5) */, "first: %d parts, %zu ligands", part.n_parts, part.n_ligands);
  CHECK(sp_worker_process_part(w, root, file, 7, 2, 2, ccd, NULL, &part, &e) == SP_E_INVALID, "part 2 of 2");
  /* a file that cannot be read: part 0 records it, other parts are empty */
  CHECK(sp_worker_process_part(w, root, "no-such-file.cif", 9, 1, 3, ccd, NULL, &part, &e) == 0, "%s", e.msg);
  CHECK(!part.has_structure_row && part.n_ligands == 0 && strcmp(part.st.status, "ok"), "missing file part 1");
  sp_result_free(&whole);
  sp_result_free(&part);
  sp_worker_free(w);
  sp_ccd_close(ccd);
}

int main(int argc, char **argv) {
  test_fit();
  test_split();
  if (argc > 1) test_parts_real(argv[1]);
  return sp_test_done("test_sched_cost");
}

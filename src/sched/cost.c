/* The cost model of a task (fit and estimate) and the splitting of large files into tasks.
 * No MPI. See include/sitepack/plan.h and docs/scheduling.md "Cost model". */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sitepack/plan.h"

void sp_cost_model_default(sp_cost_model *m) {
  if (!m) return;
  memset(m, 0, sizeof *m);
  /* Fitted on /work/shared/data/structures (225 files, components_excerpt CCD) at -np 1 on a
     quiet 2-core host by `bench/sched.sh fit` (NNLS, docs/scheduling.md "Cost model"); seconds.
     per_ligand: the NNLS fits scatter between 0 and 4.6e-5 s from run to run (ligand and atom
     counts are correlated, and sites are ~5 % of the time), so the default is the directly
     measured site time per ligand of the same run (sum t_site / ligands = 5.2e-5 s). */
  m->intercept = 0;
  m->per_plain_byte = 5.7e-9;
  m->per_gz_byte = 4.9e-8;
  m->per_atom = 1.7e-8;
  m->per_ligand = 5.0e-5;
  m->bo_intercept = 0;
  m->bo_per_plain_byte = 5.8e-9;
  m->bo_per_gz_byte = 5.0e-8;
  m->n_samples = 0;
  m->r2 = NAN;
  m->r2_bytes_only = NAN;
}

double sp_cost_estimate(const sp_cost_model *m, int64_t bytes, int gzip, int64_t atoms, int64_t ligands) {
  sp_cost_model d;
  if (!m) {
    sp_cost_model_default(&d);
    m = &d;
  }
  double b = bytes > 0 ? (double)bytes : 0;
  double t;
  if (atoms >= 0 && ligands >= 0)
    t = m->intercept + (gzip ? m->per_gz_byte : m->per_plain_byte) * b + m->per_atom * (double)atoms +
        m->per_ligand * (double)ligands;
  else
    t = m->bo_intercept + (gzip ? m->bo_per_gz_byte : m->bo_per_plain_byte) * b;
  if (!(t >= 1e-6)) t = 1e-6; /* also catches NaN from a corrupt model */
  return t;
}

/* Solve the k x k system A x = b in place (Gaussian elimination, partial pivoting).
   Returns 0, or -1 when (numerically) singular. */
static int solve(double *A, double *b, int k) {
  for (int col = 0; col < k; col++) {
    int piv = col;
    for (int r = col + 1; r < k; r++)
      if (fabs(A[r * k + col]) > fabs(A[piv * k + col])) piv = r;
    if (fabs(A[piv * k + col]) < 1e-12) return -1;
    if (piv != col) {
      for (int c = 0; c < k; c++) {
        double t = A[col * k + c];
        A[col * k + c] = A[piv * k + c];
        A[piv * k + c] = t;
      }
      double t = b[col];
      b[col] = b[piv];
      b[piv] = t;
    }
    for (int r = col + 1; r < k; r++) {
      double f = A[r * k + col] / A[col * k + col];
      for (int c = col; c < k; c++) A[r * k + c] -= f * A[col * k + c];
      b[r] -= f * b[col];
    }
  }
  for (int r = k - 1; r >= 0; r--) {
    double s = b[r];
    for (int c = r + 1; c < k; c++) s -= A[r * k + c] * b[c];
    b[r] = s / A[r * k + r];
  }
  return 0;
}

enum { NF_MAX = 5 };

/* Non-negative least squares y ~ X beta over nf <= NF_MAX features (columns of X, row-major
   [n][nf]), exact by enumerating the subsets of active features. Columns are scaled to unit
   RMS first. beta receives the best non-negative solution (all zero if none beats it).
   Returns the residual sum of squares. */
static double nnls_small(const double *X, const double *y, size_t n, int nf, double *beta) {
  double scale[NF_MAX];
  for (int j = 0; j < nf; j++) {
    double ss = 0;
    for (size_t i = 0; i < n; i++) ss += X[i * (size_t)nf + (size_t)j] * X[i * (size_t)nf + (size_t)j];
    scale[j] = ss > 0 ? sqrt(ss / (double)n) : 0;
  }
  double best = 0;
  for (size_t i = 0; i < n; i++) best += y[i] * y[i]; /* beta = 0 */
  for (int j = 0; j < nf; j++) beta[j] = 0;
  for (unsigned mask = 1; mask < (1u << nf); mask++) {
    int idx[NF_MAX], k = 0, ok = 1;
    for (int j = 0; j < nf; j++)
      if (mask & (1u << j)) {
        if (scale[j] == 0) ok = 0;
        idx[k++] = j;
      }
    if (!ok) continue;
    double A[NF_MAX * NF_MAX] = {0}, b[NF_MAX] = {0};
    for (size_t i = 0; i < n; i++) {
      const double *row = X + i * (size_t)nf;
      for (int a = 0; a < k; a++) {
        double xa = row[idx[a]] / scale[idx[a]];
        b[a] += xa * y[i];
        for (int c = 0; c < k; c++) A[a * k + c] += xa * row[idx[c]] / scale[idx[c]];
      }
    }
    if (solve(A, b, k)) continue;
    for (int a = 0; a < k; a++)
      if (!(b[a] >= 0)) ok = 0;
    if (!ok) continue;
    double ssr = 0;
    for (size_t i = 0; i < n; i++) {
      double p = 0;
      for (int a = 0; a < k; a++) p += X[i * (size_t)nf + (size_t)idx[a]] / scale[idx[a]] * b[a];
      ssr += (y[i] - p) * (y[i] - p);
    }
    if (ssr < best) {
      best = ssr;
      for (int j = 0; j < nf; j++) beta[j] = 0;
      for (int a = 0; a < k; a++) beta[idx[a]] = b[a] / scale[idx[a]];
    }
  }
  return best;
}

int sp_cost_fit(const sp_cost_sample *s, size_t n, sp_cost_model *out, sp_err *err) {
  if (!out) return sp_err_set(err, SP_E_INVALID, "cost fit: NULL output");
  if (n > 0 && !s) return sp_err_set(err, SP_E_INVALID, "cost fit: NULL samples for %zu tasks", n);
  sp_cost_model_default(out);
  size_t m = 0;
  for (size_t i = 0; i < n; i++)
    if (isfinite(s[i].seconds) && s[i].seconds >= 0) m++;
  if (m < 2) return 0;
  double *X = malloc(m * NF_MAX * sizeof *X), *Xb = malloc(m * 3 * sizeof *Xb), *y = malloc(m * sizeof *y);
  if (!X || !Xb || !y) {
    free(X);
    free(Xb);
    free(y);
    return sp_err_set(err, SP_E_NOMEM, "cost fit: out of memory for %zu samples", m);
  }
  size_t k = 0;
  double mean = 0;
  for (size_t i = 0; i < n; i++) {
    if (!(isfinite(s[i].seconds) && s[i].seconds >= 0)) continue;
    double b = s[i].bytes > 0 ? (double)s[i].bytes : 0;
    double *r = X + k * NF_MAX, *rb = Xb + k * 3;
    r[0] = rb[0] = 1.0;
    r[1] = rb[1] = s[i].gzip ? 0 : b;
    r[2] = rb[2] = s[i].gzip ? b : 0;
    r[3] = s[i].atoms > 0 ? (double)s[i].atoms : 0;
    r[4] = s[i].ligands > 0 ? (double)s[i].ligands : 0;
    y[k] = s[i].seconds;
    mean += y[k];
    k++;
  }
  mean /= (double)m;
  double sst = 0;
  for (size_t i = 0; i < m; i++) sst += (y[i] - mean) * (y[i] - mean);
  double beta[NF_MAX], bb[3];
  double ssr = nnls_small(X, y, m, NF_MAX, beta);
  double ssr_b = nnls_small(Xb, y, m, 3, bb);
  out->intercept = beta[0];
  out->per_plain_byte = beta[1];
  out->per_gz_byte = beta[2];
  out->per_atom = beta[3];
  out->per_ligand = beta[4];
  out->bo_intercept = bb[0];
  out->bo_per_plain_byte = bb[1];
  out->bo_per_gz_byte = bb[2];
  out->n_samples = (int64_t)m;
  out->r2 = sst > 0 ? 1 - ssr / sst : NAN;
  out->r2_bytes_only = sst > 0 ? 1 - ssr_b / sst : NAN;
  free(X);
  free(Xb);
  free(y);
  return 0;
}

void sp_split_opts_default(sp_split_opts *o) {
  if (!o) return;
  o->min_bytes = 2000000;
  o->min_ligands = 24;
  o->max_parts = 16;
  o->enabled = 1;
  o->cost_guard = 1;
}

int sp_split_parts(const sp_split_opts *o, int64_t bytes, int64_t n_ligands) {
  if (!o || !o->enabled || n_ligands < 0 || bytes < o->min_bytes || n_ligands <= o->min_ligands) return 1;
  int64_t per = o->min_ligands > 0 ? o->min_ligands : 1;
  int64_t k = (n_ligands + per - 1) / per;
  int64_t cap = o->max_parts > 0 ? o->max_parts : 1;
  if (k > cap) k = cap;
  return k < 1 ? 1 : (int)k;
}

int sp_split_parts_model(const sp_split_opts *o, const sp_cost_model *m, int64_t bytes, int gzip, int64_t atoms,
                         int64_t n_ligands) {
  int k = sp_split_parts(o, bytes, n_ligands);
  if (k <= 1 || !o->cost_guard || !m) return k;
  double base = sp_cost_estimate(m, bytes, gzip, atoms, atoms >= 0 ? 0 : -1);
  double lig = m->per_ligand * (double)n_ligands;
  double kmax = base > 0 ? floor(lig / base) : (double)k;
  if (!(kmax >= 1)) return 1;
  return kmax < (double)k ? (int)kmax : k;
}

void sp_split_range(int64_t n_ligands, int part, int n_parts, int64_t *lo, int64_t *hi) {
  *lo = *hi = 0;
  if (n_parts < 1 || part < 0 || part >= n_parts || n_ligands <= 0) return;
  /* floor(n * p / N) without overflow: n = q N + r, so it is q p + floor(r p / N), r p < N^2 < 2^62 */
  int64_t N = n_parts, q = n_ligands / N, r = n_ligands % N;
  *lo = q * part + r * part / N;
  *hi = q * (part + 1) + r * (part + 1) / N;
}

int sp_tasks_expand(size_t n_files, const int64_t *bytes, const uint8_t *gzip, const int64_t *atoms,
                    const int64_t *ligands, const sp_split_opts *split, const sp_cost_model *model,
                    sp_task_ref **tasks, double **cost, size_t *n_tasks, sp_err *err) {
  if (!tasks || !cost || !n_tasks) return sp_err_set(err, SP_E_INVALID, "tasks: NULL output");
  *tasks = NULL;
  *cost = NULL;
  *n_tasks = 0;
  if (n_files > 0 && !bytes) return sp_err_set(err, SP_E_INVALID, "tasks: NULL bytes for %zu files", n_files);
  sp_cost_model dm;
  if (!model) {
    sp_cost_model_default(&dm);
    model = &dm;
  }
  size_t n = 0;
  for (size_t f = 0; f < n_files; f++) {
    int k = sp_split_parts_model(split, model, bytes[f], gzip ? gzip[f] != 0 : 0, atoms ? atoms[f] : -1,
                                 ligands ? ligands[f] : -1);
    if (n > SIZE_MAX / 2 - (size_t)k) return sp_err_set(err, SP_E_TOO_LARGE, "tasks: too many tasks");
    n += (size_t)k;
  }
  *tasks = malloc((n ? n : 1) * sizeof **tasks);
  *cost = malloc((n ? n : 1) * sizeof **cost);
  if (!*tasks || !*cost) {
    free(*tasks);
    free(*cost);
    *tasks = NULL;
    *cost = NULL;
    return sp_err_set(err, SP_E_NOMEM, "tasks: out of memory for %zu tasks", n);
  }
  size_t t = 0;
  for (size_t f = 0; f < n_files; f++) {
    int64_t nl = ligands ? ligands[f] : -1, na = atoms ? atoms[f] : -1;
    int gz = gzip ? gzip[f] != 0 : 0;
    int k = sp_split_parts_model(split, model, bytes[f], gz, na, nl);
    double whole = sp_cost_estimate(model, bytes[f], gz, na, nl);
    for (int p = 0; p < k; p++, t++) {
      (*tasks)[t].file_idx = (int64_t)f;
      (*tasks)[t].part = p;
      (*tasks)[t].n_parts = k;
      if (k == 1) {
        (*cost)[t] = whole;
      } else {
        int64_t lo, hi;
        sp_split_range(nl, p, k, &lo, &hi);
        double c = whole - model->per_ligand * (double)(nl - (hi - lo));
        (*cost)[t] = c >= 1e-6 ? c : 1e-6;
      }
    }
  }
  *n_tasks = n;
  return 0;
}

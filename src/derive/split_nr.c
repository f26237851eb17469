/* The non-redundant subset of sitepack split --non-redundant (split_internal.h sp_spl_non_redundant;
 * docs/usage.md "Splits"): one site per (fine protein cluster, molecule), the best by a documented order. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "derive/split_internal.h"
#include "sitepack/h5util.h"

typedef struct nr_in {
  const sp_spl_in *in;
  int64_t *p90, *nheavy, *nccd;
  double *res, *occ;
} nr_in;

static const nr_in *g_nr; /* qsort has no context argument */

/* Resolution ascending (NaN and <= 0 last), completeness (heavy atoms / CCD heavy atoms) descending, mean
 * occupancy descending, entry key ascending (byte order, then length), site index. */
static int better(int64_t a, int64_t b) {
  const nr_in *r = g_nr;
  const sp_spl_in *in = r->in;
  double ra = r->res[in->sidx[a]], rb = r->res[in->sidx[b]];
  int ga = ra > 0 && !isnan(ra), gb = rb > 0 && !isnan(rb);
  if (ga != gb) return ga ? -1 : 1;
  if (ga && ra != rb) return ra < rb ? -1 : 1;
  int64_t la = in->lidx[a], lb = in->lidx[b];
  double ca = r->nccd[la] > 0 ? (double)r->nheavy[la] / (double)r->nccd[la] : 0;
  double cb = r->nccd[lb] > 0 ? (double)r->nheavy[lb] / (double)r->nccd[lb] : 0;
  if (ca != cb) return ca > cb ? -1 : 1;
  double oa = isnan(r->occ[la]) ? -1 : r->occ[la], ob = isnan(r->occ[lb]) ? -1 : r->occ[lb];
  if (oa != ob) return oa > ob ? -1 : 1;
  size_t ka, kb;
  const char *xa = sp_spl_entry_key(in, sp_spl_entry_of(in, a), &ka);
  const char *xb = sp_spl_entry_key(in, sp_spl_entry_of(in, b), &kb);
  int m = memcmp(xa, xb, ka < kb ? ka : kb);
  if (m || ka != kb) return m ? m : ka < kb ? -1 : 1;
  return a < b ? -1 : a > b;
}

static int cmp_nr(const void *x, const void *y) {
  int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
  const nr_in *r = g_nr;
  if (r->p90[a] != r->p90[b]) return r->p90[a] < r->p90[b] ? -1 : 1;
  if (r->in->mol[a] != r->in->mol[b]) return r->in->mol[a] < r->in->mol[b] ? -1 : 1;
  return better(a, b);
}

/* The columns of the order, read whole; 0 or an error. */
static int nr_read(const char *path, const sp_spl_in *in, nr_in *r, sp_err *err) {
  hid_t f = sp_spl_open_read(path, 3, "/chains", err);
  if (f < 0) return err->cls;
  char high[48] = "", col[80];
  hid_t g = H5Gopen2(f, "/clusters", H5P_DEFAULT);
  if (g >= 0) sp_h5_read_attr_str(g, "protein_high", high, sizeof high), H5Gclose(g);
  snprintf(col, sizeof col, "/clusters/%s", high[0] ? high : "protein_90");
  int64_t n[5] = {0};
  int bad = !(r->p90 = sp_spl_read(f, path, col, H5T_NATIVE_INT64, 8, &n[0], err)) ||
            !(r->res = sp_spl_read(f, path, "/structures/resolution", H5T_NATIVE_DOUBLE, 8, &n[1], err)) ||
            !(r->nheavy = sp_spl_read(f, path, "/ligands/n_heavy_atoms", H5T_NATIVE_INT64, 8, &n[2], err)) ||
            !(r->nccd = sp_spl_read(f, path, "/ligands/n_ccd_heavy_atoms", H5T_NATIVE_INT64, 8, &n[3], err)) ||
            !(r->occ = sp_spl_read(f, path, "/ligands/occupancy_mean", H5T_NATIVE_DOUBLE, 8, &n[4], err));
  H5Fclose(f);
  if (bad) return err->cls;
  if (n[0] != in->n_sites || n[1] != in->n_struct || n[2] != in->n_lig || n[3] != in->n_lig || n[4] != in->n_lig)
    return sp_err_set(err, SP_E_FORMAT, "%s: /clusters, /structures or /ligands rows do not match the file", path);
  return 0;
}

int sp_spl_non_redundant(const char *path, const sp_spl_in *in, const int8_t *eligible, uint8_t *rep, sp_err *err) {
  nr_in r = {.in = in};
  int64_t *idx = malloc(((size_t)in->n_sites + 1) * sizeof *idx), k = 0;
  int rc = idx ? nr_read(path, in, &r, err) : sp_err_set(err, SP_E_NOMEM, "%s: out of memory", path);
  if (!rc) {
    for (int64_t s = 0; s < in->n_sites; s++) {
      rep[s] = 0;
      if (eligible[s]) idx[k++] = s;
    }
    g_nr = &r;
    qsort(idx, (size_t)k, sizeof *idx, cmp_nr);
    for (int64_t i = 0; i < k; i++)
      rep[idx[i]] = i == 0 || r.p90[idx[i]] != r.p90[idx[i - 1]] || in->mol[idx[i]] != in->mol[idx[i - 1]];
  }
  free(idx), free(r.p90), free(r.res), free(r.nheavy), free(r.nccd), free(r.occ);
  return rc;
}

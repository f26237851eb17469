/* The splits of a merged file in a few lines, for sitepack survey (split.h sp_split_report; docs/usage.md
 * "Leakage scores"): sides, the largest cross-side Tanimoto and identity, the novelty strata. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "derive/split_internal.h"
#include "sitepack/h5util.h"
#include "sitepack/split.h"

typedef struct rep_ctx {
  hid_t file;
  const char *path;
  FILE *out;
  int n;
} rep_ctx;

/* One split: its side counts (codes -3..2) and, when it has scores, the strata of val and test. */
static void report_one(rep_ctx *r, const char *name) {
  char full[200], by[32] = "?";
  snprintf(full, sizeof full, "/splits/%s", name);
  sp_err err = {0};
  int64_t n = 0, ns = 0;
  int8_t *side = sp_spl_read(r->file, r->path, full, H5T_NATIVE_INT8, 1, &n, &err);
  if (!side) return;
  int64_t cnt[6] = {0};
  for (int64_t s = 0; s < n; s++)
    if (side[s] >= -3 && side[s] <= 2) cnt[side[s] + 3]++;
  double cross = NAN, ident = NAN;
  hid_t d = H5Dopen2(r->file, full, H5P_DEFAULT);
  if (d >= 0) {
    sp_h5_read_attr_str(d, "by", by, sizeof by);
    if (H5Aexists(d, "max_cross_tanimoto") > 0) sp_h5_read_attr_f64(d, "max_cross_tanimoto", &cross);
    if (H5Aexists(d, "max_cross_identity") > 0) sp_h5_read_attr_f64(d, "max_cross_identity", &ident);
    H5Dclose(d);
  }
  fprintf(r->out, "split %s (by %s): train %lld, val %lld, test %lld, dropped %lld, copy %lld, undated %lld; "
          "largest train-val/test Tanimoto %.3f, chain identity %.3f\n", name, by, (long long)cnt[3],
          (long long)cnt[4], (long long)cnt[5], (long long)cnt[2], (long long)cnt[1], (long long)cnt[0], cross, ident);
  snprintf(full, sizeof full, "/split_scores/%s/stratum", name);
  sp_err e2 = {0};
  int there = H5Lexists(r->file, "/split_scores", H5P_DEFAULT) > 0 && H5Lexists(r->file, full, H5P_DEFAULT) > 0;
  int8_t *st = there ? sp_spl_read(r->file, r->path, full, H5T_NATIVE_INT8, 1, &ns, &e2) : NULL;
  if (st && ns == n) {
    int64_t k4[2][4] = {{0}};
    for (int64_t s = 0; s < n; s++)
      if ((side[s] == SP_SIDE_VAL || side[s] == SP_SIDE_TEST) && st[s] >= 0 && st[s] < 4) k4[side[s] - 1][st[s]]++;
    for (int k = 0; k < 2; k++)
      fprintf(r->out, "split %s %s strata: novel_both %lld, novel_protein %lld, novel_ligand %lld, not_novel %lld\n",
              name, k ? "test" : "val", (long long)k4[k][3], (long long)k4[k][1], (long long)k4[k][2],
              (long long)k4[k][0]);
  }
  free(st), free(side);
  r->n++;
}

static herr_t visit(hid_t g, const char *name, const H5L_info_t *info, void *ctx) {
  (void)g, (void)info;
  report_one(ctx, name);
  return 0;
}

int sp_split_report(const char *path, FILE *out, int *n_splits, sp_err *err) {
  *n_splits = 0;
  hid_t f = sp_spl_open_read(path, 3, "/chains", err);
  if (f < 0) return err->cls;
  sp_h5_quiet q;
  sp_h5_quiet_begin(&q);
  rep_ctx r = {f, path, out, 0};
  if (H5Lexists(f, "/splits", H5P_DEFAULT) > 0) {
    hid_t g = H5Gopen2(f, "/splits", H5P_DEFAULT);
    hsize_t idx = 0;
    if (g >= 0) H5Literate(g, H5_INDEX_NAME, H5_ITER_INC, &idx, visit, &r); /* by name: deterministic */
    if (g >= 0) H5Gclose(g);
  }
  sp_h5_quiet_end(&q);
  H5Fclose(f);
  *n_splits = r.n;
  return 0;
}

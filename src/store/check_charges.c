/* sp_check_formal_charges(): `sitepack check`'s rule for /atoms/formal_charge (store_internal.h, docs/format.md
 * "/atoms"): every ligand atom's value is what sp_ligand_charges (valence.h, the SDF export's function) gives from
 * the file's own element, charge, ccd_charge, ccd_atom, position and /bonds columns (atoms, order, flags: the
 * link-hydrogen rule), every site atom's its /atoms/charge;
 * so the stored column and the export cannot disagree. Sites are read in groups of about SP_CHECK_BLOCK atoms. */
#include "store_internal.h"

#include <stdio.h>
#include <stdlib.h>

#include "sitepack/bonds.h"
#include "sitepack/valence.h"

typedef struct fc_cols {
  int64_t *ap, *bp;          /* /sites/atom_ptr, bond_ptr (N + 1) */
  int32_t *nl;               /* /sites/n_ligand (N) */
  uint8_t *el, *ca, *ord, *fl; /* one group of sites: /atoms/element, ccd_atom; /bonds/order, flags */
  float *xyz;                /* /atoms/position ([n][3], Å) */
  int8_t *q, *qc, *fc;       /* /atoms/charge, ccd_charge, formal_charge */
  int32_t *a1, *a2;          /* /bonds/atom1, atom2 */
} fc_cols;

/* rows [start, start + n) of dataset @p name (@p width values a row: 1, or 3 for /atoms/position) into @p buf as
 * @p mt; 0 or -1 */
static int fc_read_w(hid_t file, const char *name, hid_t mt, int64_t start, int64_t n, int width, void *buf) {
  if (n <= 0) return 0;
  hsize_t st[2] = {(hsize_t)start, 0}, cnt[2] = {(hsize_t)n, (hsize_t)width};
  int rank = width > 1 ? 2 : 1;
  hid_t d = H5Dopen2(file, name, H5P_DEFAULT), fs = d >= 0 ? H5Dget_space(d) : -1;
  hid_t ms = H5Screate_simple(rank, cnt, NULL);
  int ok = fs >= 0 && ms >= 0 && H5Sselect_hyperslab(fs, H5S_SELECT_SET, st, NULL, cnt, NULL) >= 0 &&
           H5Dread(d, mt, ms, fs, H5P_DEFAULT, buf) >= 0;
  if (ms >= 0) H5Sclose(ms);
  if (fs >= 0) H5Sclose(fs);
  if (d >= 0) H5Dclose(d);
  return ok ? 0 : -1;
}

static int fc_read(hid_t file, const char *name, hid_t mt, int64_t start, int64_t n, void *buf) {
  return fc_read_w(file, name, mt, start, n, 1, buf);
}

/* the atom and bond columns of sites [s0, s1) (atoms from ap[s0], bonds from bp[s0]); 0 or an error */
static int fc_group(hid_t file, const char *path, fc_cols *c, int64_t s0, int64_t s1, sp_err *err) {
  int64_t a0 = c->ap[s0], na = c->ap[s1] - a0, b0 = c->bp[s0], nb = c->bp[s1] - b0;
  free(c->el), free(c->ca), free(c->ord), free(c->q), free(c->qc), free(c->fc), free(c->a1), free(c->a2);
  free(c->fl), free(c->xyz);
  c->el = malloc((size_t)na + 1), c->ca = malloc((size_t)na + 1), c->q = malloc((size_t)na + 1);
  c->qc = malloc((size_t)na + 1), c->fc = malloc((size_t)na + 1), c->ord = malloc((size_t)nb + 1);
  c->a1 = malloc(((size_t)nb + 1) * 4), c->a2 = malloc(((size_t)nb + 1) * 4), c->fl = malloc((size_t)nb + 1);
  c->xyz = malloc(((size_t)na + 1) * 3 * sizeof *c->xyz);
  if (!c->el || !c->ca || !c->q || !c->qc || !c->fc || !c->ord || !c->a1 || !c->a2 || !c->fl || !c->xyz)
    return sp_err_set(err, SP_E_NOMEM, "out of memory for the formal-charge check of %s", path);
  if (fc_read(file, "/atoms/element", H5T_NATIVE_UINT8, a0, na, c->el) ||
      fc_read(file, "/atoms/charge", H5T_NATIVE_INT8, a0, na, c->q) ||
      fc_read(file, "/atoms/ccd_charge", H5T_NATIVE_INT8, a0, na, c->qc) ||
      fc_read(file, "/atoms/ccd_atom", H5T_NATIVE_UINT8, a0, na, c->ca) ||
      fc_read(file, "/atoms/formal_charge", H5T_NATIVE_INT8, a0, na, c->fc) ||
      fc_read(file, "/bonds/atom1", H5T_NATIVE_INT32, b0, nb, c->a1) ||
      fc_read(file, "/bonds/atom2", H5T_NATIVE_INT32, b0, nb, c->a2) ||
      fc_read(file, "/bonds/order", H5T_NATIVE_UINT8, b0, nb, c->ord) ||
      fc_read(file, "/bonds/flags", H5T_NATIVE_UINT8, b0, nb, c->fl) ||
      fc_read_w(file, "/atoms/position", H5T_NATIVE_FLOAT, a0, na, 3, c->xyz))
    return sp_h5_fail(err, "cannot read the atom and bond columns for the formal-charge check of", path);
  return 0;
}

/* the sites [s0, s1) of the group read by fc_group against the rule; 0 or SP_E_BAD_VALUE, SP_E_NOMEM */
static int fc_sites(const char *path, const fc_cols *c, int64_t s0, int64_t s1, sp_lig_charges *w, sp_err *err) {
  for (int64_t s = s0; s < s1; s++) {
    int64_t a = c->ap[s] - c->ap[s0], b = c->bp[s] - c->bp[s0], n = c->ap[s + 1] - c->ap[s];
    int64_t nl = c->nl[s] < 0 ? 0 : c->nl[s] > n ? n : c->nl[s];
    sp_lig_links ln = {(size_t)n, c->xyz + 3 * a, c->fl + b, SP_BOND_INTER_RESIDUE | SP_BOND_TO_POLYMER};
    if (sp_ligand_charges((size_t)nl, c->el + a, c->q + a, c->qc + a, c->ca + a, (size_t)(c->bp[s + 1] - c->bp[s]),
                          c->a1 + b, c->a2 + b, c->ord + b, &ln, w))
      return sp_err_set(err, SP_E_NOMEM, "out of memory for the formal-charge check of %s", path);
    for (int64_t k = 0; k < n; k++) {
      int want = k < nl ? w->charge[k] : c->q[a + k];
      if (c->fc[a + k] == want) continue;
      const char *why = k < nl ? "the charge the SDF export writes for that ligand atom (ccd_charge or charge, "
                                 "then, after the link-hydrogen rule, the metal-bond and valence rules over the "
                                 "site's bonds)"
                               : "its /atoms/charge, a site atom";
      return sp_err_set(err, SP_E_BAD_VALUE, "%s: /atoms/formal_charge[%lld] = %d: not %d, %s of site %lld "
                        "(docs/format.md \"/atoms\")", path, (long long)(c->ap[s] + k), c->fc[a + k], want, why,
                        (long long)s);
    }
  }
  return 0;
}

int sp_check_formal_charges(hid_t file, const char *path, const int64_t rows[SP_T_COUNT], int64_t *n_values,
                            sp_err *err) {
  if (H5Lexists(file, "/atoms/formal_charge", H5P_DEFAULT) <= 0) return 0; /* before version 6 */
  int64_t N = rows[SP_T_SITES];
  fc_cols c = {0};
  sp_lig_charges w = {0};
  c.ap = malloc(((size_t)N + 1) * 8), c.bp = malloc(((size_t)N + 1) * 8), c.nl = malloc(((size_t)N + 1) * 4);
  int rc = 0;
  if (!c.ap || !c.bp || !c.nl)
    rc = sp_err_set(err, SP_E_NOMEM, "out of memory for the formal-charge check of %s", path);
  if (!rc && (fc_read(file, "/sites/atom_ptr", H5T_NATIVE_INT64, 0, N + 1, c.ap) ||
              fc_read(file, "/sites/bond_ptr", H5T_NATIVE_INT64, 0, N + 1, c.bp) ||
              fc_read(file, "/sites/n_ligand", H5T_NATIVE_INT32, 0, N, c.nl)))
    rc = sp_h5_fail(err, "cannot read the site pointers for the formal-charge check of", path);
  for (int64_t s0 = 0, s1; !rc && s0 < N; s0 = s1) {
    for (s1 = s0 + 1; s1 < N && c.ap[s1 + 1] - c.ap[s0] <= (int64_t)SP_CHECK_BLOCK; s1++) {}
    rc = fc_group(file, path, &c, s0, s1, err);
    if (!rc) rc = fc_sites(path, &c, s0, s1, &w, err);
  }
  if (!rc && n_values) *n_values += rows[SP_T_ATOMS];
  free(c.ap), free(c.bp), free(c.nl), free(c.el), free(c.ca), free(c.ord), free(c.q), free(c.qc), free(c.fc);
  free(c.a1), free(c.a2), free(c.fl), free(c.xyz);
  sp_ligand_charges_free(&w);
  H5Eclear2(H5E_DEFAULT);
  return rc;
}

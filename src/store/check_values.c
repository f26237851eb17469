/* sp_check_values(): the value checks of `sitepack check` (store_internal.h, docs/format.md). Each column is
 * streamed in blocks of SP_CHECK_BLOCK rows; the first bad row is reported with class bad_value. */
#include "store_internal.h"

#include "sitepack/elements.h"
#include "sitepack/site.h"
#include "sitepack/sitechem.h"
#include "sitepack/survey.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The columns whose values are checked, and what each must hold (docs/format.md). */
enum { CV_ELEMENT, CV_POSITION, CV_CLASS, CV_IX_TYPE, CV_RES_KIND, CV_CUTOFF, CV_IX_DISTANCE2, CV_COUNT };

typedef struct cv_col {
  int table;         /* SP_T_* */
  const char *name;  /* dataset under the table's group */
  const char *rule;  /* what a value must be, for the message */
} cv_col;

static const cv_col cv_cols[CV_COUNT] = {
    [CV_ELEMENT] = {SP_T_ATOMS, "element", "an atomic number 0..118 (0: unknown)"},
    [CV_POSITION] = {SP_T_ATOMS, "position", "finite coordinates (x, y, z in Å)"},
    [CV_CLASS] = {SP_T_LIGANDS, "class",
                  "one of small_molecule, ion, artifact, glycan, cofactor, peptide, unknown, lipid, detergent"},
    [CV_IX_TYPE] = {SP_T_INTERACTIONS, "type", "an interaction type 1..9 (hydrophobic .. metal)"},
    [CV_RES_KIND] = {SP_T_RESIDUES, "kind", "a residue kind 0..4 (ligand, polymer, other ligand, ion, water)"},
    [CV_CUTOFF] = {SP_T_SITES, "cutoff", "a finite cutoff > 0 Å"},
    /* format version 5: absent from older files (checked where present; check.c requires it from version 5) */
    [CV_IX_DISTANCE2] = {SP_T_INTERACTIONS, "distance2", "NaN (not a water bridge) or a finite distance >= 0 Å"},
};

/* The memory type of column @p k (caller closes). */
static hid_t cv_memtype(int k) {
  switch (k) {
    case CV_POSITION: case CV_CUTOFF: case CV_IX_DISTANCE2: return H5Tcopy(H5T_NATIVE_FLOAT);
    case CV_CLASS: return sp_h5_str_type(16);
    default: return H5Tcopy(H5T_NATIVE_UINT8);
  }
}

/* Whether row @p i of block @p buf of column @p k breaks its rule. */
static int cv_bad(int k, const void *buf, size_t i) {
  const unsigned char *u8 = buf;
  const float *f = buf;
  switch (k) {
    case CV_ELEMENT: return u8[i] > SP_ELEMENT_MAX;
    case CV_POSITION: return !isfinite(f[3 * i]) || !isfinite(f[3 * i + 1]) || !isfinite(f[3 * i + 2]);
    case CV_CLASS: {
      char s[17];
      memcpy(s, u8 + 16 * i, 16);
      s[16] = '\0';
      for (int c = 0; c < SP_CLASS_COUNT; c++)
        if (!strcmp(s, sp_ligand_class_name(c))) return 0;
      return 1;
    }
    case CV_IX_TYPE: return u8[i] < SP_IX_HYDROPHOBIC || u8[i] >= SP_IX_COUNT;
    case CV_RES_KIND: return u8[i] > SP_RES_KIND_WATER;
    case CV_CUTOFF: return !(isfinite(f[i]) && f[i] > 0.0f);
    case CV_IX_DISTANCE2: return !isnan(f[i]) && !(isfinite(f[i]) && f[i] >= 0.0f);
    default: return 0;
  }
}

/* Row @p i of column @p k as text, for the message. */
static void cv_value(int k, const void *buf, size_t i, char *val, size_t cap) {
  const unsigned char *u8 = buf;
  const float *f = buf;
  if (k == CV_POSITION)
    snprintf(val, cap, "(%g, %g, %g)", (double)f[3 * i], (double)f[3 * i + 1], (double)f[3 * i + 2]);
  else if (k == CV_CUTOFF || k == CV_IX_DISTANCE2)
    snprintf(val, cap, "%g", (double)f[i]);
  else if (k == CV_CLASS)
    snprintf(val, cap, "'%.16s'", (const char *)u8 + 16 * i);
  else
    snprintf(val, cap, "%u", u8[i]);
}

/* Rows [start, start+n) of the open dataset @p d (1-D, or (A, 3) with @p three) into @p buf as @p mt. */
static int cv_read(hid_t d, hid_t mt, int three, int64_t start, size_t n, void *buf) {
  hsize_t st[2] = {(hsize_t)start, 0}, cnt[2] = {n, 3};
  hid_t fs = H5Dget_space(d), ms = H5Screate_simple(three ? 2 : 1, cnt, NULL);
  int ok = fs >= 0 && ms >= 0 && H5Sselect_hyperslab(fs, H5S_SELECT_SET, st, NULL, cnt, NULL) >= 0 &&
           H5Dread(d, mt, ms, fs, H5P_DEFAULT, buf) >= 0;
  if (ms >= 0) H5Sclose(ms);
  if (fs >= 0) H5Sclose(fs);
  return ok ? 0 : -1;
}

/* Column @p k over its @p n rows, block by block, in the reusable buffer @p buf of SP_CHECK_BLOCK rows. */
static int cv_column(hid_t file, const char *path, int k, int64_t n, void *buf, sp_err *err) {
  const cv_col *cc = &cv_cols[k];
  char full[64];
  snprintf(full, sizeof full, "/%s/%s", sp_tables[cc->table].name, cc->name);
  hid_t d = H5Dopen2(file, full, H5P_DEFAULT), mt = cv_memtype(k);
  int rc = d < 0 || mt < 0 ? sp_h5_fail(err, "cannot open", full) : 0;
  for (int64_t r0 = 0; !rc && r0 < n; r0 += (int64_t)SP_CHECK_BLOCK) {
    size_t m = (size_t)(n - r0) < SP_CHECK_BLOCK ? (size_t)(n - r0) : SP_CHECK_BLOCK;
    if (cv_read(d, mt, k == CV_POSITION, r0, m, buf) < 0) {
      rc = sp_h5_fail(err, "cannot read", full);
      break;
    }
    for (size_t i = 0; i < m; i++)
      if (cv_bad(k, buf, i)) {
        char val[96];
        cv_value(k, buf, i, val, sizeof val);
        rc = sp_err_set(err, SP_E_BAD_VALUE, "%s: %s[%lld] = %s: not %s (docs/format.md \"/%s\")", path, full,
                        (long long)(r0 + (int64_t)i), val, cc->rule, sp_tables[cc->table].name);
        break;
      }
  }
  if (mt >= 0) H5Tclose(mt);
  if (d >= 0) H5Dclose(d);
  return rc;
}

int sp_check_values(hid_t file, const char *path, const int64_t rows[SP_T_COUNT], int64_t *n_values, sp_err *err) {
  void *buf = malloc(SP_CHECK_BLOCK * 16); /* the widest row: a class name (S16) */
  if (!buf) return sp_err_set(err, SP_E_NOMEM, "out of memory for the value checks of %s", path);
  int rc = 0;
  for (int k = 0; !rc && k < CV_COUNT; k++) {
    int64_t n = rows[cv_cols[k].table];
    if (k == CV_IX_DISTANCE2 && H5Lexists(file, "/interactions/distance2", H5P_DEFAULT) <= 0) continue; /* before v5 */
    rc = cv_column(file, path, k, n, buf, err);
    if (!rc && n_values) *n_values += n;
  }
  free(buf);
  H5Eclear2(H5E_DEFAULT);
  return rc;
}

/* A whole fixed-size string column @p full of @p n rows: *buf (n * *width bytes, owned by the caller). */
static int cc_strings(hid_t file, const char *full, int64_t n, char **buf, size_t *width, sp_err *err) {
  hid_t d = H5Dopen2(file, full, H5P_DEFAULT);
  hid_t ft = d >= 0 ? H5Dget_type(d) : -1;
  *width = ft >= 0 ? H5Tget_size(ft) : 0;
  hid_t mt = *width ? sp_h5_str_type(*width) : -1;
  *buf = mt >= 0 ? malloc((size_t)n * *width + 1) : NULL;
  int rc = 0;
  if (d < 0 || mt < 0) rc = sp_h5_fail(err, "cannot open", full);
  else if (!*buf) rc = sp_err_set(err, SP_E_NOMEM, "out of memory reading %s", full);
  else if (n && H5Dread(d, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, *buf) < 0) rc = sp_h5_fail(err, "cannot read", full);
  if (mt >= 0) H5Tclose(mt);
  if (ft >= 0) H5Tclose(ft);
  if (d >= 0) H5Dclose(d);
  return rc;
}

/* 1 when the @p n sorted rows of width @p w at @p rows hold @p key (NUL-padded to w): a binary search. */
static int cc_has(const char *rows, int64_t n, size_t w, const char *key) {
  int64_t lo = 0, hi = n - 1;
  while (lo <= hi) {
    int64_t mid = lo + (hi - lo) / 2;
    int d = strncmp(rows + (size_t)mid * w, key, w);
    if (!d) return 1;
    if (d < 0) lo = mid + 1;
    else hi = mid - 1;
  }
  return 0;
}

int sp_check_components(hid_t file, const char *path, const int64_t rows[SP_T_COUNT], sp_err *err) {
  char *cp = NULL, *lg = NULL;
  size_t wc = 0, wl = 0;
  int64_t nc = rows[SP_T_COMPONENTS], nl = rows[SP_T_LIGANDS];
  int rc = cc_strings(file, "/components/comp_id", nc, &cp, &wc, err);
  if (!rc) rc = cc_strings(file, "/ligands/comp_id", nl, &lg, &wl, err);
  for (int64_t i = 1; !rc && i < nc; i++)
    if (strncmp(cp + (size_t)(i - 1) * wc, cp + (size_t)i * wc, wc) >= 0)
      rc = sp_err_set(err, SP_E_FORMAT, "%s: /components/comp_id[%lld] '%.*s' after '%.*s': not sorted, one row per "
                      "comp_id (docs/format.md \"File-level rules\")", path, (long long)i, (int)wc,
                      cp + (size_t)i * wc, (int)wc, cp + (size_t)(i - 1) * wc);
  char key[256];
  for (int64_t i = 0; !rc && i < nl; i++) {
    const char *l = lg + (size_t)i * wl;
    size_t len = strnlen(l, wl);
    memset(key, 0, sizeof key);
    memcpy(key, l, len < sizeof key ? len : sizeof key - 1);
    /* a ligand comp_id longer than the component column's width (or the key buffer) matches no row */
    if (len > wc || wc >= sizeof key || !cc_has(cp, nc, wc, key))
      rc = sp_err_set(err, SP_E_FORMAT, "%s: /ligands/comp_id[%lld] '%.*s' has no /components row (docs/format.md "
                      "\"/components\")", path, (long long)i, (int)len, l);
  }
  free(cp);
  free(lg);
  H5Eclear2(H5E_DEFAULT);
  return rc;
}

/* Why row text @p t [@p w bytes, NUL-padded or full] is no /structures/warnings value for @p n warnings
 * (store.h sp_check; result.h sp_warnings_fit) into @p why; 0 when it is one. */
static int cw_why(const char *t, size_t w, int32_t n, char *why, size_t cap) {
  size_t len = strnlen(t, w), lines = 1, last = 0;
  if (n == 0 && len == 0) return 0;
  if (n < 0) return snprintf(why, cap, "goes with a negative n_warnings (%d)", n), 1;
  if (n == 0) return snprintf(why, cap, "is not empty but n_warnings is 0"), 1;
  if (len == 0) return snprintf(why, cap, "is empty but n_warnings is %d", n), 1;
  for (size_t i = 0; i < len; i++) {
    unsigned char b = (unsigned char)t[i];
    if (b == '\n') lines++, last = i + 1;
    else if (b < 0x20 || b == 0x7f)
      return snprintf(why, cap, "has the control byte 0x%02x at byte %zu (only \"\\n\" separates messages)", b, i), 1;
  }
  if (lines == (size_t)n) return 0;
  /* k messages and a last line "... N more" (N: decimal, no leading zero) with k + N = n */
  const char *l = t + last, *e = t + len;
  long long more = -1;
  if (e - l > 9 && !memcmp(l, "... ", 4) && l[4] >= '1' && l[4] <= '9' && !memcmp(e - 5, " more", 5)) {
    more = 0;
    for (const char *q = l + 4; q < e - 5 && more >= 0; q++)
      more = *q >= '0' && *q <= '9' && more < 100000000 ? more * 10 + (*q - '0') : -1;
  }
  if (more >= 1 && (long long)lines - 1 + more == (long long)n) return 0;
  if (more >= 1)
    return snprintf(why, cap, "holds %zu message%s and \"... %lld more\" (%lld), but n_warnings is %d", lines - 1,
                    lines == 2 ? "" : "s", more, (long long)lines - 1 + more, n), 1;
  return snprintf(why, cap, "holds %zu message%s (lines) and no last line \"... N more\", but n_warnings is %d", lines,
                  lines == 1 ? "" : "s", n), 1;
}

int sp_check_warnings(hid_t file, const char *path, int64_t n_rows, sp_err *err) {
  const char *full = "/structures/warnings";
  hid_t d = H5Dopen2(file, full, H5P_DEFAULT), dn = H5Dopen2(file, "/structures/n_warnings", H5P_DEFAULT);
  hid_t ft = d >= 0 ? H5Dget_type(d) : -1;
  size_t w = ft >= 0 ? H5Tget_size(ft) : 0;
  hid_t mt = w ? sp_h5_str_type_of(ft, w) : -1; /* the file's cset (UTF-8): HDF5 converts none */
  size_t blk = SP_CHECK_BLOCK / 64;               /* 4096 rows: 4 MiB of 1024-byte texts */
  char *buf = w ? malloc(blk * w) : NULL;
  int32_t *nw = malloc(blk * sizeof *nw);
  int rc = d < 0 || dn < 0 || mt < 0 ? sp_h5_fail(err, "cannot open", full) : 0;
  if (!rc && (!buf || !nw)) rc = sp_err_set(err, SP_E_NOMEM, "out of memory for the check of %s", full);
  for (int64_t r0 = 0; !rc && r0 < n_rows; r0 += (int64_t)blk) {
    size_t m = (size_t)(n_rows - r0) < blk ? (size_t)(n_rows - r0) : blk;
    if (cv_read(d, mt, 0, r0, m, buf) < 0 || cv_read(dn, H5T_NATIVE_INT32, 0, r0, m, nw) < 0) {
      rc = sp_h5_fail(err, "cannot read", full);
      break;
    }
    for (size_t i = 0; i < m; i++) {
      char why[160];
      if (cw_why(buf + i * w, w, nw[i], why, sizeof why)) {
        rc = sp_err_set(err, SP_E_FORMAT, "%s: %s[%lld] %s (docs/format.md \"/structures\")", path, full,
                        (long long)(r0 + (int64_t)i), why);
        break;
      }
    }
  }
  free(buf);
  free(nw);
  if (mt >= 0) H5Tclose(mt);
  if (ft >= 0) H5Tclose(ft);
  if (dn >= 0) H5Dclose(dn);
  if (d >= 0) H5Dclose(d);
  H5Eclear2(H5E_DEFAULT);
  return rc;
}

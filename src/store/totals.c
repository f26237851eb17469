/* Totals of a merged file for the run's summary and report: see sp_output_totals_read() in store.h. */
#include <hdf5.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sitepack/base.h"
#include "sitepack/h5util.h"
#include "sitepack/store.h"
#include "store_internal.h"

/* A whole fixed-size string column: *width bytes per row, NUL-padded (not terminated when full). */
static char *read_strings(hid_t f, const char *name, int64_t n, size_t *width) {
  hid_t ds = H5Dopen2(f, name, H5P_DEFAULT);
  if (ds < 0) return NULL;
  hid_t ft = H5Dget_type(ds);
  size_t w = ft >= 0 ? H5Tget_size(ft) : 0;
  char *buf = w ? calloc((size_t)(n ? n : 1), w) : NULL;
  hid_t mt = sp_h5_str_type_of(ft, w); /* the column's cset: UTF-8 for path and error (issue 16) */
  if (buf && mt >= 0 &&
      (n == 0 || H5Dread(ds, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) >= 0)) {
    *width = w;
  } else {
    free(buf);
    buf = NULL;
  }
  if (mt >= 0) H5Tclose(mt);
  if (ft >= 0) H5Tclose(ft);
  H5Dclose(ds);
  return buf;
}

/* Rows of /structures/n_warnings above 0; 0 when the column cannot be read. */
static int64_t rows_with_warnings(hid_t f, int64_t n) {
  hid_t ds = H5Dopen2(f, "/structures/n_warnings", H5P_DEFAULT);
  if (ds < 0) return 0;
  int32_t *v = calloc((size_t)(n ? n : 1), sizeof *v);
  int64_t k = 0;
  if (v && (n == 0 || H5Dread(ds, H5T_NATIVE_INT32, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) >= 0))
    for (int64_t i = 0; i < n; ++i) k += v[i] > 0;
  free(v);
  H5Dclose(ds);
  return k;
}

/* /components rows, those with in_ccd 0 and the first of their comp ids (issue 36 item 5); 0 rows when the
 * table cannot be read. */
static void components_not_in_ccd(hid_t f, sp_output_totals *t) {
  int64_t n = sp_h5_rows(f, "/components/in_ccd");
  if (n <= 0) return;
  hid_t ds = H5Dopen2(f, "/components/in_ccd", H5P_DEFAULT);
  uint8_t *v = calloc((size_t)n, 1);
  size_t w = 0;
  char *ids = read_strings(f, "/components/comp_id", n, &w);
  if (ds >= 0 && v && ids && H5Dread(ds, H5T_NATIVE_UINT8, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) >= 0) {
    t->n_components = n;
    size_t used = 0, cap = sizeof t->not_in_ccd_ids;
    for (int64_t i = 0; i < n; i++) {
      if (v[i]) continue;
      t->n_not_in_ccd++;
      size_t len = strnlen(ids + (size_t)i * w, w);
      if (used == SIZE_MAX) continue;
      if (used + len + 1 + 4 >= cap) { /* room for " ..." */
        memcpy(t->not_in_ccd_ids + used, " ...", 5);
        used = SIZE_MAX;
        continue;
      }
      if (used) t->not_in_ccd_ids[used++] = ' ';
      memcpy(t->not_in_ccd_ids + used, ids + (size_t)i * w, len);
      used += len;
      t->not_in_ccd_ids[used] = 0;
    }
  }
  free(v);
  free(ids);
  if (ds >= 0) H5Dclose(ds);
}

static void append(sp_output_totals *t, const char *s, size_t n) {
  if (SP_GROW(t->failures, t->failures_cap, t->failures_len + n + 1)) return; /* out of memory: the line is dropped */
  memcpy(t->failures + t->failures_len, s, n);
  t->failures_len += n;
  t->failures[t->failures_len] = 0;
}

int sp_output_totals_read(const char *h5_path, sp_output_totals *t, sp_err *err) {
  memset(t, 0, sizeof *t);
  hid_t f = -1;
  H5E_BEGIN_TRY { f = H5Fopen(h5_path, H5F_ACC_RDONLY, H5P_DEFAULT); }
  H5E_END_TRY;
  if (f < 0) return sp_err_set(err, SP_E_HDF5, "%s: cannot open", h5_path);
  int rc = 0;
  char *status = NULL, *path = NULL, *msg = NULL;
  H5E_BEGIN_TRY {
    t->n_structures = sp_h5_rows(f, "/structures/status");
    t->n_ligands = sp_h5_rows(f, "/ligands/comp_id");
    t->n_sites = sp_h5_rows(f, "/sites/n_atoms");
    t->n_site_atoms = sp_h5_rows(f, "/atoms/element");
    t->n_interactions = sp_h5_rows(f, "/interactions/type");
    size_t ws = 0, wp = 0, wm = 0;
    if (t->n_structures < 0 || t->n_ligands < 0 || t->n_sites < 0 || t->n_site_atoms < 0) {
      rc = sp_err_set(err, SP_E_FORMAT, "%s: not a merged sitepack file (missing tables)", h5_path);
    } else if (!(status = read_strings(f, "/structures/status", t->n_structures, &ws)) ||
               !(path = read_strings(f, "/structures/path", t->n_structures, &wp)) ||
               !(msg = read_strings(f, "/structures/error", t->n_structures, &wm))) {
      rc = sp_err_set(err, SP_E_HDF5, "%s: cannot read /structures", h5_path);
    } else {
      if (t->n_interactions < 0) t->n_interactions = 0;
      t->n_with_warnings = rows_with_warnings(f, t->n_structures);
      components_not_in_ccd(f, t);
      for (int64_t i = 0; i < t->n_structures; ++i) {
        char s[64];
        size_t n = ws < sizeof s - 1 ? ws : sizeof s - 1;
        memcpy(s, status + (size_t)i * ws, n);
        s[n] = 0;
        int k = sp_errclass_from_name(s);
        if (k == SP_OK) {
          t->n_ok++;
          continue;
        }
        if (k > 0) t->by_class[k]++;
        if (k == SP_E_DUPLICATE || k == SP_E_REPEATED_ENTRY) { /* not processed: neither ok nor failed */
          if (k == SP_E_DUPLICATE) t->n_duplicates++;
          else t->n_repeated_entries++;
          continue;
        }
        t->n_failed++;
        const char *p = path + (size_t)i * wp, *m = msg + (size_t)i * wm;
        append(t, p, strnlen(p, wp));
        append(t, "\t", 1);
        append(t, s, strlen(s));
        append(t, "\t", 1);
        append(t, m, strnlen(m, wm));
        append(t, "\n", 1);
      }
    }
  }
  H5E_END_TRY;
  free(status);
  free(path);
  free(msg);
  H5Fclose(f);
  return rc;
}

void sp_output_totals_free(sp_output_totals *t) {
  free(t->failures);
  memset(t, 0, sizeof *t);
}

int sp_run_attr_str(const char *h5_path, const char *name, char *buf, size_t cap, sp_err *err) {
  if (!h5_path || !name || !buf || !cap) return sp_err_set(err, SP_E_INVALID, "sp_run_attr_str: bad argument");
  buf[0] = '\0';
  sp_h5_quiet q;
  sp_h5_quiet_begin(&q);
  hid_t fapl = sp_h5_fapl(0);
  hid_t f = fapl >= 0 ? H5Fopen(h5_path, H5F_ACC_RDONLY, fapl) : -1;
  int rc = f < 0 ? sp_h5_fail(err, "cannot open", h5_path) : 0; /* before H5Pclose clears the stack */
  if (fapl >= 0) H5Pclose(fapl);
  hid_t g = f >= 0 ? H5Gopen2(f, "run", H5P_DEFAULT) : -1;
  if (!rc && g < 0) rc = sp_err_set(err, SP_E_FORMAT, "%s: no /run group (not a merged sitepack file)", h5_path);
  if (!rc && sp_h5_read_attr_str(g, name, buf, cap) < 0)
    rc = sp_err_set(err, SP_E_NOT_FOUND, "%s: /run has no string attribute %s", h5_path, name);
  if (g >= 0) H5Gclose(g);
  if (f >= 0) H5Fclose(f);
  H5Eclear2(H5E_DEFAULT);
  sp_h5_quiet_end(&q);
  return rc;
}

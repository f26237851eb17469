/* Whole-column and row-range reads of a merged file for `sitepack report` (app/report_html.h). */
#include <stdlib.h>
#include <string.h>

#include "app/report_html.h"
#include "sitepack/h5util.h"

hid_t sp_rh_open(const char *path, sp_err *err) {
  sp_h5_quiet q;
  sp_h5_quiet_begin(&q);
  hid_t fapl = sp_h5_fapl(0);
  hid_t f = H5Fopen(path, H5F_ACC_RDONLY, fapl);
  if (fapl >= 0) H5Pclose(fapl);
  sp_h5_quiet_end(&q);
  if (f < 0) sp_err_set(err, SP_E_FORMAT, "%s: not an HDF5 file (or damaged): not a sitepack file", path);
  return f;
}

int sp_rh_exists(hid_t f, const char *name) {
  sp_h5_quiet q;
  sp_h5_quiet_begin(&q);
  int ok = 1;
  /* each component of the path must exist before H5Lexists may look at the next */
  char buf[256];
  snprintf(buf, sizeof buf, "%s", name);
  for (char *p = buf + 1; ok; ++p) {
    char c = *p;
    if (c != '/' && c) continue;
    *p = 0;
    ok = H5Lexists(f, buf, H5P_DEFAULT) > 0;
    *p = c;
    if (!c) break;
  }
  sp_h5_quiet_end(&q);
  return ok;
}

/* Open @p name, its space, rank and dims; < 0 with the error set. */
static hid_t open_ds(hid_t f, const char *name, hsize_t dims[2], int *rank, sp_err *err) {
  if (!sp_rh_exists(f, name)) {
    sp_err_set(err, SP_E_FORMAT, "missing dataset %s", name);
    return -1;
  }
  hid_t d = H5Dopen2(f, name, H5P_DEFAULT);
  if (d < 0) {
    sp_h5_fail(err, "open", name);
    return -1;
  }
  hid_t sp = H5Dget_space(d);
  *rank = sp >= 0 ? H5Sget_simple_extent_ndims(sp) : -1;
  dims[0] = dims[1] = 1;
  if (*rank >= 1 && *rank <= 2) H5Sget_simple_extent_dims(sp, dims, NULL);
  if (sp >= 0) H5Sclose(sp);
  if (*rank < 1 || *rank > 2) {
    H5Dclose(d);
    sp_err_set(err, SP_E_FORMAT, "dataset %s is not one- or two-dimensional", name);
    return -1;
  }
  return d;
}

/* Read rows [start, start + n) of the open dataset @p d into @p buf as @p mtype. 0 or -1. */
static int read_rows(hid_t d, hid_t mtype, int rank, const hsize_t dims[2], int64_t start, int64_t n, void *buf) {
  if (!n) return 0;
  hsize_t off[2] = {(hsize_t)start, 0}, cnt[2] = {(hsize_t)n, dims[1]};
  hid_t fs = H5Dget_space(d), ms = H5Screate_simple(rank, cnt, NULL);
  int rc = fs < 0 || ms < 0 || H5Sselect_hyperslab(fs, H5S_SELECT_SET, off, NULL, cnt, NULL) < 0 ||
                   H5Dread(d, mtype, ms, fs, H5P_DEFAULT, buf) < 0
               ? -1
               : 0;
  if (fs >= 0) H5Sclose(fs);
  if (ms >= 0) H5Sclose(ms);
  return rc;
}

/* The range [start, start + n) of a dataset of @p total rows (n < 0: all); -1 with the error when outside. */
static int64_t range(const char *name, int64_t total, int64_t start, int64_t n, sp_err *err) {
  if (n < 0) n = total - start;
  if (start < 0 || n < 0 || start + n > total) {
    sp_err_set(err, SP_E_FORMAT, "rows %lld..%lld outside dataset %s (%lld rows)", (long long)start,
               (long long)(start + n), name, (long long)total);
    return -1;
  }
  return n;
}

void *sp_rh_read(hid_t f, const char *name, hid_t mtype, size_t es, int64_t start, int64_t n, int64_t *rows,
                 sp_err *err) {
  hsize_t dims[2];
  int rank = 0;
  hid_t d = open_ds(f, name, dims, &rank, err);
  if (d < 0) return NULL;
  n = range(name, (int64_t)dims[0], start, n, err);
  size_t per = rank == 2 ? (size_t)dims[1] : 1;
  void *buf = n < 0 ? NULL : malloc(n ? (size_t)n * per * es : 1);
  if (n >= 0 && !buf) sp_err_set(err, SP_E_NOMEM, "%s: out of memory", name);
  if (buf && read_rows(d, mtype, rank, dims, start, n, buf)) {
    free(buf);
    buf = NULL;
    sp_h5_fail(err, "read", name);
  }
  H5Dclose(d);
  if (buf) *rows = n;
  return buf;
}

char *sp_rh_read_str(hid_t f, const char *name, int64_t start, int64_t n, size_t *width, int64_t *rows, sp_err *err) {
  hsize_t dims[2];
  int rank = 0;
  hid_t d = open_ds(f, name, dims, &rank, err);
  if (d < 0) return NULL;
  hid_t ft = H5Dget_type(d);
  size_t w = ft >= 0 && H5Tget_class(ft) == H5T_STRING && !H5Tis_variable_str(ft) ? H5Tget_size(ft) + 1 : 0;
  hid_t mt = w ? sp_h5_str_type_of(ft, w) : -1;
  if (ft >= 0) H5Tclose(ft);
  char *buf = NULL;
  if (mt < 0) sp_err_set(err, SP_E_FORMAT, "dataset %s is not a fixed-size string", name);
  else if ((n = range(name, (int64_t)dims[0], start, n, err)) >= 0 && !(buf = calloc(n ? (size_t)n : 1, w)))
    sp_err_set(err, SP_E_NOMEM, "%s: out of memory", name);
  if (buf && read_rows(d, mt, rank, dims, start, n, buf)) {
    free(buf);
    buf = NULL;
    sp_h5_fail(err, "read", name);
  }
  if (mt >= 0) H5Tclose(mt);
  H5Dclose(d);
  if (buf) {
    *rows = n;
    *width = w;
  }
  return buf;
}

typedef struct name_list {
  char **v;
  size_t n, cap;
  int oom;
} name_list;

static herr_t add_name(hid_t g, const char *name, const H5L_info_t *info, void *arg) {
  name_list *l = arg;
  H5O_info_t oi;
  if (H5Oget_info_by_name2(g, name, &oi, H5O_INFO_BASIC, H5P_DEFAULT) < 0 || oi.type != H5O_TYPE_DATASET) return 0;
  if (l->n == l->cap) {
    size_t ncap = l->cap ? 2 * l->cap : 8;
    char **q = realloc(l->v, ncap * sizeof *q);
    if (!q) return l->oom = 1, -1;
    l->v = q;
    l->cap = ncap;
  }
  if (!(l->v[l->n] = strdup(name))) return l->oom = 1, -1;
  l->n++;
  return 0;
}

int sp_rh_list(hid_t f, const char *group, char ***names, size_t *n) {
  name_list l = {0};
  *names = NULL;
  *n = 0;
  if (!sp_rh_exists(f, group)) return 0;
  sp_h5_quiet q;
  sp_h5_quiet_begin(&q);
  hid_t g = H5Gopen2(f, group, H5P_DEFAULT);
  if (g >= 0) {
    H5Literate(g, H5_INDEX_NAME, H5_ITER_INC, NULL, add_name, &l);
    H5Gclose(g);
  }
  sp_h5_quiet_end(&q);
  if (l.oom) {
    sp_rh_list_free(l.v, l.n);
    return -1;
  }
  *names = l.v;
  *n = l.n;
  return 0;
}

void sp_rh_list_free(char **names, size_t n) {
  for (size_t i = 0; i < n; ++i) free(names[i]);
  free(names);
}

/* Whole-column reads and final-layout column writes for sitepack cluster / split (split_internal.h). */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "derive/split_internal.h"
#include "sitepack/fingerprint.h"
#include "sitepack/h5util.h"
#include "sitepack/store.h"

hid_t sp_spl_open_read_version(const char *path, int min_version, const char *why, int64_t *version, sp_err *err) {
  int64_t ver = 0;
  hid_t f = -1;
  if (sp_h5_open_merged(path, &f, &ver, NULL, err)) return -1; /* one diagnosis for all readers (h5util.h) */
  if (ver < min_version) {
    sp_err_set(err, SP_E_FORMAT, "%s: format version %lld has no %s (version %d or later needed)", path,
               (long long)ver, why, min_version);
    H5Fclose(f);
    return -1;
  }
  *version = ver;
  return f;
}

hid_t sp_spl_open_read(const char *path, int min_version, const char *why, sp_err *err) {
  int64_t ver = 0;
  return sp_spl_open_read_version(path, min_version, why, &ver, err);
}

/* Dataset @p name of @p file, opened quietly; -1 with SP_E_FORMAT "PATH: missing dataset NAME" when absent. */
static hid_t open_dataset(hid_t file, const char *path, const char *name, sp_err *err) {
  sp_h5_quiet q;
  sp_h5_quiet_begin(&q);
  int there = H5Lexists(file, name, H5P_DEFAULT) > 0;
  hid_t d = there ? H5Dopen2(file, name, H5P_DEFAULT) : -1;
  sp_h5_quiet_end(&q);
  if (d < 0) sp_err_set(err, SP_E_FORMAT, "%s: missing dataset %s", path, name);
  return d;
}

void *sp_spl_read(hid_t file, const char *path, const char *name, hid_t mtype, size_t elsize, int64_t *n,
                  sp_err *err) {
  hid_t d = open_dataset(file, path, name, err);
  if (d < 0) return NULL;
  hid_t sp = H5Dget_space(d);
  int rank = sp >= 0 ? H5Sget_simple_extent_ndims(sp) : -1;
  hsize_t dims[2] = {0, 0};
  if (rank == 1) H5Sget_simple_extent_dims(sp, dims, NULL);
  if (sp >= 0) H5Sclose(sp);
  if (rank != 1) {
    H5Dclose(d);
    sp_err_set(err, SP_E_FORMAT, "%s: dataset %s is not one-dimensional", path, name);
    return NULL;
  }
  void *buf = malloc(dims[0] ? dims[0] * elsize : 1);
  if (!buf) {
    H5Dclose(d);
    sp_err_set(err, SP_E_NOMEM, "%s: %s: out of memory", path, name);
    return NULL;
  }
  if (dims[0] && H5Dread(d, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0) {
    free(buf);
    H5Dclose(d);
    sp_h5_fail(err, "read", name);
    return NULL;
  }
  H5Dclose(d);
  *n = (int64_t)dims[0];
  return buf;
}

char *sp_spl_read_str(hid_t file, const char *path, const char *name, size_t *width, int64_t *n, sp_err *err) {
  hid_t d = open_dataset(file, path, name, err);
  if (d < 0) return NULL;
  hid_t ft = H5Dget_type(d);
  size_t w = ft >= 0 && H5Tget_class(ft) == H5T_STRING && !H5Tis_variable_str(ft) ? H5Tget_size(ft) : 0;
  hid_t mt = w ? sp_h5_str_type_of(ft, w) : -1;
  if (ft >= 0) H5Tclose(ft);
  H5Dclose(d);
  if (mt < 0) {
    sp_err_set(err, SP_E_FORMAT, "%s: dataset %s is not a fixed-size string column", path, name);
    return NULL;
  }
  char *buf = sp_spl_read(file, path, name, mt, w, n, err);
  H5Tclose(mt);
  *width = w;
  return buf;
}

hid_t sp_spl_write(hid_t loc, const char *name, hid_t ftype, hid_t mtype, int64_t n, const void *buf,
                   const char *units, const char *codes) {
  hid_t d = sp_h5_create_final(loc, name, ftype, n, 0);
  if (d < 0) return -1;
  if (sp_h5_write_slab(d, mtype, 0, (size_t)n, 0, buf) < 0 || sp_h5_attr_vstr(d, "units", units) < 0 ||
      (codes && sp_h5_attr_vstr(d, "codes", codes) < 0)) {
    H5Dclose(d);
    return -1;
  }
  return d;
}

hid_t sp_spl_open_group(const char *path, const char *group, int replace, hid_t *file, sp_err *err) {
  hid_t fapl = sp_h5_fapl(1);
  sp_h5_quiet q;
  sp_h5_quiet_begin(&q);
  hid_t f = fapl >= 0 ? H5Fopen(path, H5F_ACC_RDWR, fapl) : -1;
  if (fapl >= 0) H5Pclose(fapl);
  hid_t g = -1;
  if (f >= 0) {
    int there = H5Lexists(f, group, H5P_DEFAULT) > 0;
    if (there && replace) there = H5Ldelete(f, group, H5P_DEFAULT) < 0 ? -1 : 0;
    if (there == 1) g = H5Gopen2(f, group, H5P_DEFAULT);
    else if (there == 0) {
      hid_t gcpl = H5Pcreate(H5P_GROUP_CREATE);
      if (gcpl >= 0 && H5Pset_obj_track_times(gcpl, 0) >= 0)
        g = H5Gcreate2(f, group, H5P_DEFAULT, gcpl, H5P_DEFAULT);
      if (gcpl >= 0) H5Pclose(gcpl);
    }
  }
  sp_h5_quiet_end(&q);
  if (g < 0) {
    sp_h5_fail(err, f < 0 ? "open for writing" : "create group", path);
    if (f >= 0) H5Fclose(f);
    return -1;
  }
  *file = f;
  return g;
}

uint64_t sp_spl_fnv(const void *p, size_t n) {
  const unsigned char *s = p;
  uint64_t h = 1469598103934665603ULL;
  for (size_t i = 0; i < n; i++) h = (h ^ s[i]) * 1099511628211ULL;
  return h;
}

double sp_spl_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

uint64_t *sp_spl_read_fp(hid_t file, const char *path, int64_t *m, sp_err *err) {
  const char *name = "/clusters/fingerprint";
  hid_t d = open_dataset(file, path, name, err);
  if (d < 0) return NULL;
  hid_t sp = H5Dget_space(d);
  hsize_t dims[2] = {0, 0};
  int rank = sp >= 0 ? H5Sget_simple_extent_ndims(sp) : -1;
  if (rank == 2) H5Sget_simple_extent_dims(sp, dims, NULL);
  if (sp >= 0) H5Sclose(sp);
  if (rank != 2 || dims[1] != SP_FP_WORDS * 8) {
    H5Dclose(d);
    sp_err_set(err, SP_E_FORMAT, "%s: %s is not (M, %d) bytes", path, name, SP_FP_WORDS * 8);
    return NULL;
  }
  size_t nb = (size_t)dims[0] * SP_FP_WORDS * 8;
  uint8_t *b = malloc(nb + 1);
  uint64_t *w = malloc(nb + 8);
  if (!b || !w || (nb && H5Dread(d, H5T_NATIVE_UINT8, H5S_ALL, H5S_ALL, H5P_DEFAULT, b) < 0)) {
    if (!b || !w) sp_err_set(err, SP_E_NOMEM, "%s: %s: out of memory", path, name);
    else sp_h5_fail(err, "read", name);
    free(b), free(w), H5Dclose(d);
    return NULL;
  }
  H5Dclose(d);
  for (size_t i = 0; i < nb / 8; i++) { /* bit i % 8 of byte i / 8 is bit i of the fingerprint */
    uint64_t x = 0;
    for (int k = 7; k >= 0; k--) x = x << 8 | b[i * 8 + (size_t)k];
    w[i] = x;
  }
  free(b);
  *m = (int64_t)dims[0];
  return w;
}

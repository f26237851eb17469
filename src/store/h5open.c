/* sp_h5_open_merged(): the one open and diagnosis of a merged file that every reader uses (h5util.h, issue 39);
 * sp_h5_rows(), the row count of a dataset (dump index and the run totals). */
#include <stdio.h>
#include <string.h>

#include "sitepack/h5util.h"

/* H5Ovisit2 callback (HDF5 1.10's H5O_info_t, as Debian 12 ships): nothing to do per object; reading its
   header is the test. */
static herr_t visit_cb(hid_t obj, const char *name, const H5O_info_t *info, void *data) {
  (void)obj;
  (void)name;
  (void)info;
  (*(size_t *)data)++;
  return 0;
}

/* SP_E_FORMAT "WHAT (PATH): <deepest HDF5 message> (the file is damaged or truncated)" from the HDF5 stack. */
static int damaged(sp_err *err, const char *what, const char *path) {
  sp_err e = {0};
  sp_h5_fail(&e, what, path);
  int keep = SP_ERR_MSG_LEN - 1 - (int)sizeof(" " SP_H5_DAMAGED_HINT); /* the hint survives a long HDF5 text */
  return sp_err_set(err, SP_E_FORMAT, "%.*s " SP_H5_DAMAGED_HINT, keep, e.msg);
}

/* The steps after stat(2): signature, open, walk of every object header, root attributes. 0 or the class. */
static int open_steps(const char *path, hid_t *file, int64_t *ver, sp_err *err) {
  if (H5Fis_hdf5(path) <= 0) return sp_err_set(err, SP_E_FORMAT, "%s is not an HDF5 file " SP_H5_NO_SIGNATURE, path);
  hid_t fapl = sp_h5_fapl(0);
  hid_t f = fapl >= 0 ? H5Fopen(path, H5F_ACC_RDONLY, fapl) : -1;
  int rc = f < 0 ? damaged(err, "cannot open", path) : 0; /* before H5Pclose clears the stack */
  if (fapl >= 0) H5Pclose(fapl);
  if (rc) return rc;
  size_t n = 0;
  if (H5Ovisit2(f, H5_INDEX_NAME, H5_ITER_NATIVE, visit_cb, &n, H5O_INFO_BASIC) < 0)
    rc = damaged(err, "cannot read its groups and datasets", path);
  int64_t v = 0;
  if (!rc) rc = sp_h5_read_format(f, path, &v, err);
  if (rc) {
    H5Fclose(f);
    return rc;
  }
  if (ver) *ver = v;
  *file = f;
  return 0;
}

int sp_h5_open_merged(const char *path, hid_t *file, int64_t *ver, struct stat *st, sp_err *err) {
  struct stat sb;
  if (file) *file = -1;
  if (!path || !file) return sp_err_set(err, SP_E_INVALID, "sp_h5_open_merged: NULL argument");
  int rc = sp_h5_input_stat(path, st ? st : &sb, err);
  if (rc) return rc;
  sp_h5_quiet q;
  sp_h5_quiet_begin(&q);
  rc = open_steps(path, file, ver, err);
  H5Eclear2(H5E_DEFAULT);
  sp_h5_quiet_end(&q);
  return rc;
}

int sp_h5_damaged(const sp_err *err) {
  if (!err || err->cls != SP_E_FORMAT) return 0;
  return strstr(err->msg, SP_H5_DAMAGED_HINT) || strstr(err->msg, SP_H5_NO_SIGNATURE) ||
         strstr(err->msg, SP_H5_NOT_REGULAR);
}

int64_t sp_h5_rows(hid_t loc, const char *name) {
  hid_t ds = H5Dopen2(loc, name, H5P_DEFAULT);
  if (ds < 0) return -1;
  hid_t sp = H5Dget_space(ds);
  hsize_t dims[2] = {0, 0};
  int nd = sp >= 0 ? H5Sget_simple_extent_dims(sp, dims, NULL) : -1;
  if (sp >= 0) H5Sclose(sp);
  H5Dclose(ds);
  return nd >= 1 ? (int64_t)dims[0] : -1;
}

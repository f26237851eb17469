/* Synthetic files in the merged layout, for `sitepack bench read` (store.h sp_synthetic_*). */
#include "sitepack/store.h"
#include "store_internal.h"

#include <stdlib.h>
#include <string.h>

struct sp_synthetic {
  int64_t n_sites;
  int atoms;               /* atoms per site */
  hid_t file, grp[2];      /* /sites, /atoms */
  hid_t ds[7];             /* atom_ptr, n_atoms, n_ligand, energy, position, force, element */
  int64_t *ptr;            /* per chunk: atom_ptr, n_atoms, n_ligand values */
  int32_t *cnt, *nlig;
  size_t cap;
  int failed;              /* a write failed: no root attributes at close */
};

static void synthetic_free(sp_synthetic *w) {
  for (int k = 0; k < 7; k++)
    if (w->ds[k] >= 0) H5Dclose(w->ds[k]);
  for (int k = 0; k < 2; k++)
    if (w->grp[k] >= 0) H5Gclose(w->grp[k]);
  free(w->ptr);
  free(w->cnt);
  free(w->nlig);
  free(w);
}

sp_synthetic *sp_synthetic_open(const char *path, int64_t n_sites, int atoms, sp_err *err) {
  if (!path || n_sites < 0 || atoms < 1) {
    sp_err_set(err, SP_E_INVALID, "sp_synthetic_open: bad argument");
    return NULL;
  }
  sp_synthetic *w = calloc(1, sizeof *w);
  if (!w) {
    sp_err_set(err, SP_E_NOMEM, "out of memory");
    return NULL;
  }
  w->n_sites = n_sites;
  w->atoms = atoms;
  w->file = w->grp[0] = w->grp[1] = -1;
  for (int k = 0; k < 7; k++) w->ds[k] = -1;
  const int64_t N = n_sites, na = atoms;
  hid_t fapl = sp_h5_fapl(1), fcpl = H5Pcreate(H5P_FILE_CREATE);
  H5Pset_obj_track_times(fcpl, 0);
  w->file = H5Fcreate(path, H5F_ACC_TRUNC, fcpl, fapl);
  H5Pclose(fapl);
  H5Pclose(fcpl);
  if (w->file >= 0) {
    w->grp[0] = H5Gcreate2(w->file, "sites", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    w->grp[1] = H5Gcreate2(w->file, "atoms", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    w->ds[0] = sp_h5_create_final(w->grp[0], "atom_ptr", H5T_STD_I64LE, N + 1, 0);
    w->ds[1] = sp_h5_create_final(w->grp[0], "n_atoms", H5T_STD_I32LE, N, 0);
    w->ds[2] = sp_h5_create_final(w->grp[0], "n_ligand", H5T_STD_I32LE, N, 0);
    w->ds[3] = sp_h5_create_final(w->grp[0], "energy", H5T_IEEE_F64LE, N, 0);
    w->ds[4] = sp_h5_create_final(w->grp[1], "position", H5T_IEEE_F32LE, N * na, 1);
    w->ds[5] = sp_h5_create_final(w->grp[1], "force", H5T_IEEE_F32LE, N * na, 1);
    w->ds[6] = sp_h5_create_final(w->grp[1], "element", H5T_STD_U8LE, N * na, 0);
  }
  int bad = w->file < 0;
  for (int k = 0; k < 7; k++)
    if (w->ds[k] < 0) bad = 1;
  if (bad) {
    sp_h5_fail(err, "cannot create", path);
    if (w->file >= 0) H5Fclose(w->file);
    synthetic_free(w);
    return NULL;
  }
  return w;
}

int sp_synthetic_append(sp_synthetic *w, int64_t m0, int64_t nm, const float *pos, const float *force,
                        const uint8_t *element, const double *energy, sp_err *err) {
  if (!w || m0 < 0 || nm < 0 || m0 + nm > w->n_sites) return sp_err_set(err, SP_E_INVALID, "sp_synthetic_append: bad range");
  const int na = w->atoms;
  if ((size_t)nm + 1 > w->cap) {
    size_t nc = (size_t)nm + 1;
    int64_t *p = realloc(w->ptr, nc * sizeof *p);
    if (p) w->ptr = p;
    int32_t *c = realloc(w->cnt, nc * sizeof *c);
    if (c) w->cnt = c;
    int32_t *l = realloc(w->nlig, nc * sizeof *l);
    if (l) w->nlig = l;
    if (!p || !c || !l) {
      w->failed = 1;
      return sp_err_set(err, SP_E_NOMEM, "out of memory");
    }
    w->cap = nc;
  }
  for (int64_t m = 0; m <= nm; m++) w->ptr[m] = (m0 + m) * na;
  for (int64_t m = 0; m < nm; m++) {
    w->cnt[m] = na;
    w->nlig[m] = na / 4;
  }
  int64_t a0 = m0 * na, an = nm * na;
  int rc = 0;
  rc |= sp_h5_write_slab(w->ds[0], H5T_NATIVE_INT64, m0, (size_t)nm + (m0 + nm == w->n_sites), 0, w->ptr);
  rc |= sp_h5_write_slab(w->ds[1], H5T_NATIVE_INT32, m0, (size_t)nm, 0, w->cnt);
  rc |= sp_h5_write_slab(w->ds[2], H5T_NATIVE_INT32, m0, (size_t)nm, 0, w->nlig);
  rc |= sp_h5_write_slab(w->ds[3], H5T_NATIVE_DOUBLE, m0, (size_t)nm, 0, energy);
  rc |= sp_h5_write_slab(w->ds[4], H5T_NATIVE_FLOAT, a0, (size_t)an, 1, pos);
  rc |= sp_h5_write_slab(w->ds[5], H5T_NATIVE_FLOAT, a0, (size_t)an, 1, force);
  rc |= sp_h5_write_slab(w->ds[6], H5T_NATIVE_UINT8, a0, (size_t)an, 0, element);
  if (rc) {
    w->failed = 1;
    return sp_h5_fail(err, "cannot write synthetic sites", NULL);
  }
  return 0;
}

int sp_synthetic_close(sp_synthetic *w, sp_err *err) {
  if (!w) return 0;
  int rc = 0;
  if (!w->failed &&
      (sp_h5_attr_str(w->file, "format", SP_FORMAT_NAME) | sp_h5_attr_i64(w->file, "format_version", SP_FORMAT_VERSION)))
    rc = sp_h5_fail(err, "cannot write root attributes", NULL);
  hid_t f = w->file;
  synthetic_free(w);
  if (H5Fclose(f) < 0 && !rc) rc = sp_h5_fail(err, "cannot close synthetic file", NULL);
  return rc;
}

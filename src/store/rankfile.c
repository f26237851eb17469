/* Reading per-rank files: open, format check, task index (rankfile.h). */
#include "rankfile.h"
#include "sitepack/base.h"
#include "sitepack/store.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

void sp_rankfile_init(sp_rankfile *rf) {
  memset(rf, 0, sizeof *rf);
  rf->file = -1;
  for (int t = 0; t < SP_T_COUNT; t++) rf->dset[t] = rf->rowtype[t] = -1;
}

void sp_rankfile_close(sp_rankfile *rf) {
  if (!rf) return;
  sp_h5_quiet q;
  sp_h5_quiet_begin(&q);
  for (int t = 0; t < SP_T_COUNT; t++) {
    if (rf->dset[t] >= 0) H5Dclose(rf->dset[t]);
    if (rf->rowtype[t] >= 0) H5Tclose(rf->rowtype[t]);
  }
  if (rf->file >= 0) H5Fclose(rf->file);
  free(rf->tasks);
  H5Eclear2(H5E_DEFAULT);
  sp_h5_quiet_end(&q);
  sp_rankfile_init(rf);
}

/* The file itself: it exists, is HDF5, opens, and says it is a per-rank file of this version. */
static int open_file(sp_rankfile *rf, sp_err *err) {
  const char *path = rf->path;
  struct stat sb;
  int rs = sp_h5_input_stat(path, &sb, err);
  if (rs) return rs;
  if (H5Fis_hdf5(path) <= 0) return sp_err_set(err, SP_E_FORMAT, "%s is not an HDF5 file", path);
  hid_t fapl = sp_h5_fapl(0);
  rf->file = fapl >= 0 ? H5Fopen(path, H5F_ACC_RDONLY, fapl) : -1;
  int rc = rf->file < 0 ? sp_h5_fail(err, "cannot open", path) : 0; /* before H5Pclose clears the stack */
  if (fapl >= 0) H5Pclose(fapl);
  if (rc) return rc;
  char fmt[32];
  int64_t ver = 0;
  int got_fmt = sp_h5_read_attr_str(rf->file, "format", fmt, sizeof fmt) >= 0;
  if (got_fmt && !strcmp(fmt, SP_FORMAT_NAME))
    return sp_err_set(err, SP_E_FORMAT, "%s is a merged sitepack output, not a shard or per-rank file (merge takes "
                      "the shard files of `sitepack run --shard I/N`)", path);
  if (!got_fmt || strcmp(fmt, SP_RANK_FORMAT_NAME) != 0 ||
      sp_h5_read_attr_i64(rf->file, "format_version", &ver) < 0 || ver != SP_RANK_FORMAT_VERSION)
    return sp_err_set(err, SP_E_FORMAT, "%s is not a sitepack per-rank or shard file of this version (format %s %d)",
                      path, SP_RANK_FORMAT_NAME, SP_RANK_FORMAT_VERSION);
  rf->has_site_flags = H5Aexists(rf->file, "site_flags_or") > 0 &&
                       sp_h5_read_attr_i64(rf->file, "site_flags_or", &rf->site_flags_or) == 0;
  return 0;
}

/* Every /<table>/rows: present, one-dimensional, with the row size and column count of this build. */
static int open_tables(sp_rankfile *rf, sp_err *err) {
  for (int t = 0; t < SP_T_COUNT; t++) {
    if ((rf->rowtype[t] = sp_h5_row_type(t)) < 0) return sp_h5_fail(err, "cannot build row types", NULL);
    char name[64];
    snprintf(name, sizeof name, "%s/rows", sp_tables[t].name);
    rf->dset[t] = H5Dopen2(rf->file, name, H5P_DEFAULT);
    if (rf->dset[t] < 0) return sp_err_set(err, SP_E_FORMAT, "%s: missing dataset /%s", rf->path, name);
    hid_t sp = H5Dget_space(rf->dset[t]);
    hsize_t d = 0;
    int nd = sp >= 0 ? H5Sget_simple_extent_ndims(sp) : -1;
    if (nd == 1) H5Sget_simple_extent_dims(sp, &d, NULL);
    if (sp >= 0) H5Sclose(sp);
    hid_t ft = H5Dget_type(rf->dset[t]);
    int same = ft >= 0 && H5Tget_size(ft) == sp_tables[t].row_size && H5Tget_nmembers(ft) == (int)sp_tables[t].n_cols;
    if (ft >= 0) H5Tclose(ft);
    if (nd != 1 || !same)
      return sp_err_set(err, SP_E_FORMAT, "%s: dataset /%s has an unexpected shape or row type", rf->path, name);
    rf->extent[t] = (int64_t)d;
  }
  return 0;
}

/* /tasks into rf->tasks. */
static int read_tasks(sp_rankfile *rf, sp_err *err) {
  hid_t td = H5Dopen2(rf->file, "tasks", H5P_DEFAULT);
  if (td < 0) return sp_err_set(err, SP_E_FORMAT, "%s: missing dataset /tasks", rf->path);
  hid_t sp = H5Dget_space(td);
  hsize_t nt = 0;
  int ok = sp >= 0 && H5Sget_simple_extent_ndims(sp) == 1 && H5Sget_simple_extent_dims(sp, &nt, NULL) >= 0;
  if (sp >= 0) H5Sclose(sp);
  if (!ok) {
    H5Dclose(td);
    return sp_err_set(err, SP_E_FORMAT, "%s: /tasks is not one-dimensional", rf->path);
  }
  rf->tasks = malloc((nt ? nt : 1) * sizeof *rf->tasks);
  if (!rf->tasks || nt > SIZE_MAX / sizeof *rf->tasks) {
    H5Dclose(td);
    return sp_err_set(err, SP_E_NOMEM, "out of memory reading the %llu tasks of %s", (unsigned long long)nt, rf->path);
  }
  hid_t tt = sp_h5_task_type();
  ok = tt >= 0 && (nt == 0 || H5Dread(td, tt, H5S_ALL, H5S_ALL, H5P_DEFAULT, rf->tasks) >= 0);
  if (tt >= 0) H5Tclose(tt);
  H5Dclose(td);
  if (!ok) return sp_err_set(err, SP_E_FORMAT, "%s: cannot read /tasks", rf->path);
  rf->n_tasks = (size_t)nt;
  return 0;
}

/* Each task record: a file index, a part of its file, at most one structure row, rows inside the tables. */
static int validate_tasks(const sp_rankfile *rf, sp_err *err) {
  for (size_t k = 0; k < rf->n_tasks; k++) {
    const sp_task_rec *r = &rf->tasks[k];
    int bad = r->file_idx < 0 || r->n_parts < 1 || r->part < 0 || r->part >= r->n_parts ||
              r->n[SP_T_STRUCTURES] < 0 || r->n[SP_T_STRUCTURES] > 1;
    for (int t = 0; t < SP_T_COUNT && !bad; t++)
      bad = r->n[t] < 0 || r->start[t] < 0 || r->start[t] > rf->extent[t] || r->n[t] > rf->extent[t] - r->start[t];
    if (bad)
      return sp_err_set(err, SP_E_FORMAT, "%s: task %zu (file_idx %lld) has an inconsistent index row", rf->path, k,
                        (long long)r->file_idx);
  }
  return 0;
}

int sp_rankfile_open(sp_rankfile *rf, const char *path, sp_err *err) {
  if (!rf) return sp_err_set(err, SP_E_INVALID, "sp_rankfile_open: NULL argument");
  sp_rankfile_init(rf);
  if (!path) return sp_err_set(err, SP_E_INVALID, "sp_rankfile_open: NULL path");
  rf->path = path;
  sp_h5_quiet q;
  sp_h5_quiet_begin(&q);
  int rc = open_file(rf, err);
  if (!rc) rc = open_tables(rf, err);
  if (!rc) rc = read_tasks(rf, err);
  if (!rc) rc = validate_tasks(rf, err);
  H5Eclear2(H5E_DEFAULT);
  sp_h5_quiet_end(&q);
  return rc;
}

int sp_rankfile_read_rows(const sp_rankfile *rf, int table, int64_t start, size_t n, void *buf, sp_err *err) {
  if (n == 0) return 0;
  sp_h5_quiet q;
  sp_h5_quiet_begin(&q);
  hsize_t st = (hsize_t)start, cnt = n;
  hid_t fs = H5Dget_space(rf->dset[table]);
  hid_t ms = H5Screate_simple(1, &cnt, NULL);
  int ok = fs >= 0 && ms >= 0 && H5Sselect_hyperslab(fs, H5S_SELECT_SET, &st, NULL, &cnt, NULL) >= 0 &&
           H5Dread(rf->dset[table], rf->rowtype[table], ms, fs, H5P_DEFAULT, buf) >= 0;
  int rc = ok ? 0 : sp_h5_fail(err, "cannot read per-rank file", rf->path); /* before H5Sclose clears the stack */
  if (ms >= 0) H5Sclose(ms);
  if (fs >= 0) H5Sclose(fs);
  H5Eclear2(H5E_DEFAULT);
  sp_h5_quiet_end(&q);
  return rc;
}

/* Make room for n rows of elsize bytes in *arr (capacity *cap). 0 or -1. */
static int reserve(void **arr, size_t *cap, size_t n, size_t elsize) {
  if (n <= *cap) return 0;
  void *q = sp_realloc_array(*arr, n, elsize);
  if (!q) return -1;
  *arr = q;
  *cap = n;
  return 0;
}

int sp_rankfile_read_task(const sp_rankfile *rf, size_t k, sp_result *r, sp_err *err) {
  if (!rf || !r || k >= rf->n_tasks) return sp_err_set(err, SP_E_INVALID, "sp_rankfile_read_task: bad argument");
  const sp_task_rec *rec = &rf->tasks[k];
  sp_result_clear(r);
  r->file_idx = rec->file_idx;
  r->part = rec->part;
  r->n_parts = rec->n_parts;
  r->has_structure_row = rec->n[SP_T_STRUCTURES] == 1;
  void **arr[SP_T_COUNT] = {NULL, (void **)&r->ligands, (void **)&r->components, (void **)&r->sites,
                            (void **)&r->residues, (void **)&r->atoms, (void **)&r->interactions, (void **)&r->bonds,
                            (void **)&r->chains, (void **)&r->segments, (void **)&r->sequences};
  size_t *caps[SP_T_COUNT] = {NULL, &r->cap_ligands, &r->cap_components, &r->cap_sites, &r->cap_residues,
                              &r->cap_atoms, &r->cap_interactions, &r->cap_bonds, &r->cap_chains, &r->cap_segments,
                              &r->cap_sequences};
  size_t *ns[SP_T_COUNT] = {NULL, &r->n_ligands, &r->n_components, &r->n_sites, &r->n_residues, &r->n_atoms,
                            &r->n_interactions, &r->n_bonds, &r->n_chains, &r->n_segments, &r->n_sequences};
  for (int t = 0; t < SP_T_COUNT; t++) {
    size_t n = (size_t)rec->n[t];
    void *dst = &r->st; /* n is 0 or 1: validated at open */
    if (t != SP_T_STRUCTURES) {
      if (reserve(arr[t], caps[t], n, sp_tables[t].row_size))
        return sp_err_set(err, SP_E_NOMEM, "out of memory copying %zu rows of %s", n, rf->path);
      dst = *arr[t];
      *ns[t] = n;
    }
    if (n) memset(dst, 0, n * sp_tables[t].row_size);
    int rc = sp_rankfile_read_rows(rf, t, rec->start[t], n, dst, err);
    if (rc) return rc;
  }
  return 0;
}

/* Shard files of SLURM arrays: pack and read (include/sitepack/shard.h, docs/slurm.md). */
#include "sitepack/shard.h"
#include "rankfile.h"
#include "store_internal.h"

#include <stdlib.h>
#include <string.h>

void sp_shard_meta_free(sp_shard_meta *meta) {
  if (!meta) return;
  free(meta->files);
  memset(meta, 0, sizeof *meta);
}

/* ------------------------------------------------------------------------------------------ */
/* Pack                                                                                          */
/* ------------------------------------------------------------------------------------------ */

/* Every task of one per-rank file, re-appended to @p w. */
static int pack_part(sp_rank_writer *w, const char *path, sp_result *r, sp_err *err) {
  sp_rankfile in;
  int rc = sp_rankfile_open(&in, path, err);
  for (size_t k = 0; !rc && k < in.n_tasks; k++) {
    rc = sp_rankfile_read_task(&in, k, r, err);
    if (!rc) rc = sp_rank_writer_append(w, r, err);
  }
  sp_rankfile_close(&in);
  return rc;
}

/* The shard attributes and /shard_files, on the closed shard file reopened. */
static int write_shard_attrs(const char *path, const sp_merge_info *info, const sp_shard_meta *meta, sp_err *err) {
  hid_t fapl = sp_h5_fapl(0);
  hid_t f = fapl >= 0 ? H5Fopen(path, H5F_ACC_RDWR, fapl) : -1;
  int rc = f < 0 ? sp_h5_fail(err, "cannot reopen shard file", path) : 0;
  if (fapl >= 0) H5Pclose(fapl);
  if (rc) return rc;
  int bad = sp_h5_attr_i64(f, "shard_index", meta->index) < 0 || sp_h5_attr_i64(f, SP_SHARD_ATTR, meta->count) < 0 ||
            sp_h5_attr_i64(f, "n_files", meta->n_files) < 0 ||
            sp_h5_attr_str(f, "job_fingerprint", meta->fingerprint) < 0 ||
            sp_h5_attr_str(f, "job_json", info->job_json) < 0 || sp_h5_attr_str(f, "ccd_path", info->ccd_path) < 0 ||
            sp_h5_attr_str(f, "ccd_sha256", info->ccd_sha256) < 0 || sp_h5_attr_i64(f, "ccd_blocks", info->ccd_blocks) < 0 ||
            sp_h5_attr_str(f, "tool_version", info->tool_version) < 0 ||
            sp_h5_attr_str(f, "git_sha", info->git_sha) < 0 || sp_h5_attr_i64(f, "n_ranks", info->n_ranks) < 0 ||
            sp_h5_attr_f64(f, "wall_seconds", info->wall_seconds) < 0;
  if (!bad) {
    hsize_t dim = meta->n_assigned;
    hid_t sp = H5Screate_simple(1, &dim, NULL);
    hid_t d = sp >= 0 ? H5Dcreate2(f, "shard_files", H5T_STD_I64LE, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT) : -1;
    bad = d < 0 || (dim && H5Dwrite(d, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, meta->files) < 0);
    if (d >= 0) H5Dclose(d);
    if (sp >= 0) H5Sclose(sp);
  }
  if (bad) rc = sp_h5_fail(err, "cannot write shard attributes of", path);
  if (H5Fclose(f) < 0 && !rc) rc = sp_h5_fail(err, "cannot close shard file", path);
  return rc;
}

int sp_shard_pack(const char *out_path, const char *const *parts, size_t n_parts, const sp_merge_info *info,
                  const sp_shard_meta *meta, sp_err *err) {
  if (!out_path || (n_parts && !parts) || !info || !meta)
    return sp_err_set(err, SP_E_INVALID, "sp_shard_pack: NULL argument");
  sp_h5_quiet q;
  sp_h5_quiet_begin(&q);
  sp_rank_writer *w = sp_rank_writer_open(out_path, err);
  int rc = w ? 0 : SP_E_HDF5;
  sp_result r;
  sp_result_init(&r);
  for (size_t p = 0; !rc && p < n_parts; p++) rc = pack_part(w, parts[p], &r, err);
  sp_result_free(&r);
  sp_err cerr = {0};
  if (w && sp_rank_writer_close(w, &cerr) && !rc) {
    if (err) *err = cerr;
    rc = SP_E_HDF5;
  }
  if (!rc) rc = write_shard_attrs(out_path, info, meta, err);
  sp_h5_quiet_end(&q);
  return rc;
}

/* ------------------------------------------------------------------------------------------ */
/* Read                                                                                          */
/* ------------------------------------------------------------------------------------------ */

void sp_shard_file_free(sp_shard_file *s) {
  if (!s) return;
  free(s->job_json);
  free(s->ccd_path);
  free(s->files);
  free(s->task_files);
  memset(s, 0, sizeof *s);
}

/* The root attributes of the shard file @p f (opened as a per-rank file). */
static int read_attrs(hid_t f, const char *path, sp_shard_file *s, sp_err *err) {
  if (H5Aexists(f, SP_SHARD_ATTR) <= 0)
    return sp_err_set(err, SP_E_FORMAT,
                      "%s is not a shard file (no shard attributes: write shards with `sitepack run --shard I/N`)", path);
  s->job_json = malloc(SP_SHARD_TEXT_CAP);
  s->ccd_path = malloc(SP_SHARD_TEXT_CAP);
  if (!s->job_json || !s->ccd_path) return sp_err_set(err, SP_E_NOMEM, "out of memory");
  if (sp_h5_read_attr_i64(f, "shard_index", &s->index) < 0 || sp_h5_read_attr_i64(f, SP_SHARD_ATTR, &s->count) < 0 ||
      sp_h5_read_attr_i64(f, "n_files", &s->n_files) < 0 ||
      sp_h5_read_attr_str(f, "job_fingerprint", s->fingerprint, sizeof s->fingerprint) < 0 ||
      sp_h5_read_attr_str(f, "job_json", s->job_json, SP_SHARD_TEXT_CAP) < 0 ||
      sp_h5_read_attr_str(f, "ccd_path", s->ccd_path, SP_SHARD_TEXT_CAP) < 0 ||
      sp_h5_read_attr_str(f, "ccd_sha256", s->ccd_sha256, sizeof s->ccd_sha256) < 0 ||
      sp_h5_read_attr_str(f, "tool_version", s->tool_version, sizeof s->tool_version) < 0 ||
      sp_h5_read_attr_str(f, "git_sha", s->git_sha, sizeof s->git_sha) < 0 ||
      sp_h5_read_attr_i64(f, "n_ranks", &s->n_ranks) < 0)
    return sp_err_set(err, SP_E_FORMAT, "%s: incomplete shard attributes (damaged shard file?)", path);
  /* issue 16: the CCD's block count (a shard of an older build does not have it: 0) */
  if (H5Aexists(f, "ccd_blocks") <= 0 || sp_h5_read_attr_i64(f, "ccd_blocks", &s->ccd_blocks) < 0) s->ccd_blocks = 0;
  if (sp_h5_read_attr_f64(f, "wall_seconds", &s->wall_seconds) < 0) s->wall_seconds = 0;
  if (s->count < 1 || s->count > SP_SHARD_MAX || s->index < 0 || s->index >= s->count || s->n_files < 0)
    return sp_err_set(err, SP_E_FORMAT, "%s: bad shard attributes (shard %lld/%lld, %lld files)", path,
                      (long long)s->index, (long long)s->count, (long long)s->n_files);
  return 0;
}

/* /shard_files: the planned file indices. */
static int read_planned(hid_t f, const char *path, sp_shard_file *s, sp_err *err) {
  hid_t d = H5Dopen2(f, "shard_files", H5P_DEFAULT);
  hid_t sp = d >= 0 ? H5Dget_space(d) : -1;
  hsize_t n = 0;
  int ok = sp >= 0 && H5Sget_simple_extent_ndims(sp) == 1 && H5Sget_simple_extent_dims(sp, &n, NULL) >= 0;
  if (ok) {
    s->files = malloc((n ? n : 1) * sizeof *s->files);
    ok = s->files && (n == 0 || H5Dread(d, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, s->files) >= 0);
  }
  if (sp >= 0) H5Sclose(sp);
  if (d >= 0) H5Dclose(d);
  if (!ok) return sp_err_set(err, SP_E_FORMAT, "%s: cannot read /shard_files (damaged shard file?)", path);
  s->n_planned = (size_t)n;
  return 0;
}

int sp_shard_read(const char *path, sp_shard_file *out, sp_err *err) {
  if (!out) return sp_err_set(err, SP_E_INVALID, "sp_shard_read: NULL argument");
  memset(out, 0, sizeof *out);
  if (!path) return sp_err_set(err, SP_E_INVALID, "sp_shard_read: NULL path");
  sp_rankfile in;
  int rc = sp_rankfile_open(&in, path, err);
  sp_h5_quiet q;
  sp_h5_quiet_begin(&q);
  if (!rc) rc = read_attrs(in.file, path, out, err);
  if (!rc) rc = read_planned(in.file, path, out, err);
  if (!rc) {
    out->task_files = malloc((in.n_tasks ? in.n_tasks : 1) * sizeof *out->task_files);
    if (!out->task_files) rc = sp_err_set(err, SP_E_NOMEM, "out of memory");
  }
  for (size_t k = 0; !rc && k < in.n_tasks; k++)
    if (in.tasks[k].part == 0) out->task_files[out->n_task_files++] = in.tasks[k].file_idx;
  H5Eclear2(H5E_DEFAULT);
  sp_h5_quiet_end(&q);
  sp_rankfile_close(&in);
  return rc;
}

/* Shards of a SLURM array and `sitepack merge` (issue 8; cmd_merge.h, docs/slurm.md).
 *
 * Shard files are per-rank-format files (store.h) packed from a shard run's per-rank files, plus
 * root attributes that identify the job and the shard; `sitepack merge` checks that a set of them
 * is one complete job and hands them to sp_merge(), which orders every task by (file_idx, part). */
#include <errno.h>
#include <glob.h>
#include <hdf5.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>

#include "app/cli_opts.h"
#include "app/cmd_merge.h"
#include "sitepack/io.h"
#include "sitepack/version.h"
#include "store/store_internal.h"

#define SHARD_MAX 100000
#define ATTR_TEXT_CAP 65536

/* ------------------------------------------------------------------------------------------ */
/* --shard I/N and the SLURM array variables                                                    */
/* ------------------------------------------------------------------------------------------ */

static int parse_nonneg(const char *s, long long *out) {
  if (!s || !*s) return -1;
  char *end = NULL;
  errno = 0;
  long long v = strtoll(s, &end, 10);
  if (errno || !end || *end || v < 0 || s[0] == '-' || s[0] == '+') return -1;
  *out = v;
  return 0;
}

int sp_shard_parse(const char *spec, int *index, int *count, char *msg, size_t cap) {
  long long i = -1, n = -1;
  if (!spec || !index || !count) {
    snprintf(msg, cap, "no shard given");
    return -1;
  }
  if (!strcmp(spec, "auto")) {
    const char *id = getenv("SLURM_ARRAY_TASK_ID"), *cnt = getenv("SLURM_ARRAY_TASK_COUNT");
    const char *mn = getenv("SLURM_ARRAY_TASK_MIN"), *mx = getenv("SLURM_ARRAY_TASK_MAX");
    long long vid, vcnt, vmin, vmax;
    if (parse_nonneg(id, &vid) || parse_nonneg(cnt, &vcnt) || parse_nonneg(mn, &vmin) || parse_nonneg(mx, &vmax)) {
      snprintf(msg, cap, "--shard auto needs SLURM_ARRAY_TASK_ID, _COUNT, _MIN and _MAX (not in a SLURM array task?)");
      return -1;
    }
    if (vmax < vmin || vcnt != vmax - vmin + 1 || vid < vmin || vid > vmax) {
      snprintf(msg, cap,
               "--shard auto: array %lld-%lld has %lld tasks: use an array without steps or gaps (--array=0-%lld), "
               "or give --shard I/N explicitly",
               vmin, vmax, vcnt, vcnt > 0 ? vcnt - 1 : 0);
      return -1;
    }
    i = vid - vmin;
    n = vcnt;
  } else {
    const char *slash = strchr(spec, '/');
    char a[32];
    size_t la = slash ? (size_t)(slash - spec) : 0;
    if (!slash || la == 0 || la >= sizeof a) {
      snprintf(msg, cap, "--shard must be I/N (0 <= I < N) or auto, got '%s'", spec);
      return -1;
    }
    memcpy(a, spec, la);
    a[la] = 0;
    if (parse_nonneg(a, &i) || parse_nonneg(slash + 1, &n)) {
      snprintf(msg, cap, "--shard must be I/N with decimal integers 0 <= I < N, got '%s'", spec);
      return -1;
    }
  }
  if (n < 1 || n > SHARD_MAX || i < 0 || i >= n) {
    snprintf(msg, cap, "--shard %lld/%lld: need 0 <= I < N <= %d", i, n, SHARD_MAX);
    return -1;
  }
  *index = (int)i;
  *count = (int)n;
  return 0;
}

/* ------------------------------------------------------------------------------------------ */
/* Fingerprint and plan                                                                          */
/* ------------------------------------------------------------------------------------------ */

typedef struct sbuf {
  char *p;
  size_t len, cap;
  int oom;
} sbuf;

static void sb_add(sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_add(sbuf *b, const char *fmt, ...) {
  if (b->oom) return;
  for (;;) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(b->p ? b->p + b->len : NULL, b->p ? b->cap - b->len : 0, fmt, ap);
    va_end(ap);
    if (n < 0) {
      b->oom = 1;
      return;
    }
    if (b->p && b->len + (size_t)n < b->cap) {
      b->len += (size_t)n;
      return;
    }
    size_t nc = (b->cap + (size_t)n + 1) * 2;
    char *q = realloc(b->p, nc);
    if (!q) {
      b->oom = 1;
      return;
    }
    b->p = q;
    b->cap = nc;
  }
}

void sp_shard_fingerprint(char *const *paths, const int64_t *bytes, const uint8_t *gz, size_t n,
                          const char *job_json, const char *ccd_sha256, const sp_split_opts *split, char out[65]) {
  sbuf b = {0};
  sb_add(&b, "sitepack-shard-v1\nfiles %zu\n", n);
  for (size_t i = 0; i < n; i++)
    sb_add(&b, "%s\t%lld\t%d\n", paths[i], (long long)bytes[i], gz ? (int)gz[i] : 0);
  sb_add(&b, "job %s\nccd %s\n", job_json ? job_json : "", ccd_sha256 ? ccd_sha256 : "");
  if (split)
    sb_add(&b, "split %d %lld %lld %d %d\n", split->enabled, (long long)split->min_bytes,
           (long long)split->min_ligands, split->max_parts, split->cost_guard);
  if (b.oom) /* cannot hash the list: a value no real hash takes, so merges of it are refused */
    snprintf(out, 65, "%s", "out-of-memory");
  else
    sp_sha256_hex(b.p, b.len, out);
  free(b.p);
}

void sp_shard_meta_free(sp_shard_meta *meta) {
  if (!meta) return;
  free(meta->files);
  memset(meta, 0, sizeof *meta);
}

int sp_shard_plan(int index, int count, char *const *paths, const int64_t *bytes, const uint8_t *gz, size_t n,
                  const char *job_json, const char *ccd_sha256, const sp_split_opts *split, sp_task_ref *tasks,
                  double *cost, size_t *n_tasks, double *kept_bytes, sp_shard_meta *meta, sp_err *err) {
  if (!meta || !n_tasks || (n && (!paths || !bytes || !tasks || !cost)))
    return sp_err_set(err, SP_E_INVALID, "sp_shard_plan: NULL argument");
  memset(meta, 0, sizeof *meta);
  if (count < 1 || index < 0 || index >= count)
    return sp_err_set(err, SP_E_INVALID, "shard %d/%d: need 0 <= I < N", index, count);
  for (size_t f = 0; f < n; f++)
    if (tasks[f].file_idx != (int64_t)f || tasks[f].part != 0)
      return sp_err_set(err, SP_E_INVALID, "sp_shard_plan: task %zu is not file %zu part 0", f, f);
  sp_plan plan = {0};
  int rc = sp_plan_lpt(cost, n, count, &plan, err);
  if (rc) return rc;
  size_t k0 = plan.queue_ptr[index], k1 = plan.queue_ptr[index + 1];
  uint8_t *mine = calloc(n ? n : 1, 1);
  meta->files = malloc((k1 > k0 ? k1 - k0 : 1) * sizeof *meta->files);
  if (!mine || !meta->files) {
    free(mine);
    sp_plan_free(&plan);
    sp_shard_meta_free(meta);
    return sp_err_set(err, SP_E_NOMEM, "out of memory planning shard %d/%d", index, count);
  }
  for (size_t k = k0; k < k1; k++) mine[plan.queue[k]] = 1;
  sp_plan_free(&plan);
  size_t kept = 0;
  double kb = 0;
  for (size_t f = 0; f < n; f++) {
    if (!mine[f]) continue;
    tasks[kept] = tasks[f];
    cost[kept] = cost[f];
    meta->files[kept] = (int64_t)f;
    kb += (double)bytes[f];
    kept++;
  }
  free(mine);
  *n_tasks = kept;
  if (kept_bytes) *kept_bytes = kb;
  meta->index = index;
  meta->count = count;
  meta->n_files = (int64_t)n;
  meta->n_assigned = kept;
  sp_shard_fingerprint(paths, bytes, gz, n, job_json, ccd_sha256, split, meta->fingerprint);
  return 0;
}

/* ------------------------------------------------------------------------------------------ */
/* Reading per-rank files (the layout of store_internal.h, same build)                          */
/* ------------------------------------------------------------------------------------------ */

typedef struct rank_in {
  hid_t file;
  hid_t dset[SP_T_COUNT];
  sp_task_rec *recs;
  size_t n_recs;
} rank_in;

static void rank_in_close(rank_in *r) {
  for (int t = 0; t < SP_T_COUNT; t++)
    if (r->dset[t] >= 0) H5Dclose(r->dset[t]);
  if (r->file >= 0) H5Fclose(r->file);
  free(r->recs);
  memset(r, 0, sizeof *r);
  r->file = -1;
  for (int t = 0; t < SP_T_COUNT; t++) r->dset[t] = -1;
}

/* Open a per-rank (or shard) file and read its /tasks. */
static int rank_in_open(const char *path, rank_in *r, sp_err *err) {
  memset(r, 0, sizeof *r);
  r->file = -1;
  for (int t = 0; t < SP_T_COUNT; t++) r->dset[t] = -1;
  struct stat sb;
  if (stat(path, &sb) != 0)
    return sp_err_set(err, errno == ENOENT ? SP_E_NOT_FOUND : SP_E_IO, "cannot open %s: %s", path, strerror(errno));
  if (H5Fis_hdf5(path) <= 0) return sp_err_set(err, SP_E_FORMAT, "%s is not an HDF5 file", path);
  hid_t fapl = sp_h5_fapl(0);
  r->file = fapl >= 0 ? H5Fopen(path, H5F_ACC_RDONLY, fapl) : -1;
  int rc = r->file < 0 ? sp_h5_fail(err, "cannot open", path) : 0;
  if (fapl >= 0) H5Pclose(fapl);
  if (rc) return rc;
  char fmt[32];
  int64_t ver = 0;
  if (sp_h5_read_attr_str(r->file, "format", fmt, sizeof fmt) < 0 || strcmp(fmt, SP_RANK_FORMAT_NAME) != 0 ||
      sp_h5_read_attr_i64(r->file, "format_version", &ver) < 0 || ver != SP_RANK_FORMAT_VERSION) {
    H5Eclear2(H5E_DEFAULT);
    return sp_err_set(err, SP_E_FORMAT, "%s is not a sitepack per-rank or shard file of this version (format %s %d)",
                      path, SP_RANK_FORMAT_NAME, SP_RANK_FORMAT_VERSION);
  }
  for (int t = 0; t < SP_T_COUNT; t++) {
    char name[64];
    snprintf(name, sizeof name, "%s/rows", sp_tables[t].name);
    r->dset[t] = H5Dopen2(r->file, name, H5P_DEFAULT);
    if (r->dset[t] < 0) {
      H5Eclear2(H5E_DEFAULT);
      return sp_err_set(err, SP_E_FORMAT, "%s: missing dataset /%s", path, name);
    }
  }
  hid_t td = H5Dopen2(r->file, "tasks", H5P_DEFAULT);
  if (td < 0) {
    H5Eclear2(H5E_DEFAULT);
    return sp_err_set(err, SP_E_FORMAT, "%s: missing dataset /tasks", path);
  }
  hid_t sp = H5Dget_space(td);
  hsize_t nt = 0;
  int ok = sp >= 0 && H5Sget_simple_extent_ndims(sp) == 1 && H5Sget_simple_extent_dims(sp, &nt, NULL) >= 0;
  if (sp >= 0) H5Sclose(sp);
  if (ok && nt) {
    r->recs = malloc(nt * sizeof *r->recs);
    hid_t tt = sp_h5_task_type();
    ok = r->recs && tt >= 0 && H5Dread(td, tt, H5S_ALL, H5S_ALL, H5P_DEFAULT, r->recs) >= 0;
    if (tt >= 0) H5Tclose(tt);
  }
  H5Dclose(td);
  if (!ok) {
    H5Eclear2(H5E_DEFAULT);
    return sp_err_set(err, r->recs || !nt ? SP_E_FORMAT : SP_E_NOMEM, "%s: cannot read /tasks", path);
  }
  r->n_recs = (size_t)nt;
  return 0;
}

static int read_rows(hid_t d, int t, int64_t start, int64_t n, void *buf) {
  if (n <= 0) return 0;
  hsize_t st = (hsize_t)start, cnt = (hsize_t)n;
  hid_t fs = H5Dget_space(d), ms = H5Screate_simple(1, &cnt, NULL), rt = sp_h5_row_type(t);
  int ok = fs >= 0 && ms >= 0 && rt >= 0 && H5Sselect_hyperslab(fs, H5S_SELECT_SET, &st, NULL, &cnt, NULL) >= 0 &&
           H5Dread(d, rt, ms, fs, H5P_DEFAULT, buf) >= 0;
  if (rt >= 0) H5Tclose(rt);
  if (ms >= 0) H5Sclose(ms);
  if (fs >= 0) H5Sclose(fs);
  return ok ? 0 : -1;
}

/* ------------------------------------------------------------------------------------------ */
/* Pack                                                                                          */
/* ------------------------------------------------------------------------------------------ */

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
            sp_h5_attr_str(f, "ccd_sha256", info->ccd_sha256) < 0 ||
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
  void *buf[SP_T_COUNT] = {0};
  size_t cap[SP_T_COUNT] = {0};
  for (size_t p = 0; !rc && p < n_parts; p++) {
    rank_in in;
    rc = rank_in_open(parts[p], &in, err);
    for (size_t k = 0; !rc && k < in.n_recs; k++) {
      const sp_task_rec *tr = &in.recs[k];
      sp_result r;
      memset(&r, 0, sizeof r);
      r.file_idx = tr->file_idx;
      r.part = tr->part;
      r.n_parts = tr->n_parts;
      r.has_structure_row = tr->n[SP_T_STRUCTURES] == 1;
      for (int t = 0; !rc && t < SP_T_COUNT; t++) {
        int64_t n = tr->n[t];
        if (n < 0 || (t == SP_T_STRUCTURES && n > 1) || (uint64_t)n > SIZE_MAX / sp_tables[t].row_size) {
          rc = sp_err_set(err, SP_E_FORMAT, "%s: task %zu has a bad row count", parts[p], k);
          break;
        }
        void *dst = NULL;
        if (t == SP_T_STRUCTURES) {
          dst = &r.st;
        } else if (n > 0) {
          if ((size_t)n > cap[t]) {
            void *nb = realloc(buf[t], (size_t)n * sp_tables[t].row_size);
            if (!nb) {
              rc = sp_err_set(err, SP_E_NOMEM, "out of memory packing %s", parts[p]);
              break;
            }
            buf[t] = nb;
            cap[t] = (size_t)n;
          }
          dst = buf[t];
        }
        if (read_rows(in.dset[t], t, tr->start[t], n, dst) < 0)
          rc = sp_h5_fail(err, "cannot read per-rank file", parts[p]);
      }
      if (rc) break;
      r.n_ligands = (size_t)tr->n[SP_T_LIGANDS];
      r.ligands = buf[SP_T_LIGANDS];
      r.n_components = (size_t)tr->n[SP_T_COMPONENTS];
      r.components = buf[SP_T_COMPONENTS];
      r.n_sites = (size_t)tr->n[SP_T_SITES];
      r.sites = buf[SP_T_SITES];
      r.n_residues = (size_t)tr->n[SP_T_RESIDUES];
      r.residues = buf[SP_T_RESIDUES];
      r.n_atoms = (size_t)tr->n[SP_T_ATOMS];
      r.atoms = buf[SP_T_ATOMS];
      r.n_interactions = (size_t)tr->n[SP_T_INTERACTIONS];
      r.interactions = buf[SP_T_INTERACTIONS];
      rc = sp_rank_writer_append(w, &r, err);
    }
    rank_in_close(&in);
  }
  for (int t = 0; t < SP_T_COUNT; t++) free(buf[t]);
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
/* sitepack merge                                                                                */
/* ------------------------------------------------------------------------------------------ */

typedef struct shard_in {
  char *path;
  int64_t index, count, n_files, n_ranks;
  double wall;
  char fingerprint[80];
  char tool_version[64], git_sha[64], ccd_sha[80];
  char *job_json, *ccd_path;
  int64_t *files;
  size_t n_files_planned;
  int64_t *task_files; /* file_idx of each part-0 task */
  size_t n_task_files;
} shard_in;

static void shard_in_free(shard_in *s) {
  free(s->path);
  free(s->job_json);
  free(s->ccd_path);
  free(s->files);
  free(s->task_files);
}

static int merge_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int merge_fail(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("sitepack merge: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  return 1;
}

static int read_shard(shard_in *s) {
  sp_err err = {0};
  rank_in in;
  int rc = rank_in_open(s->path, &in, &err);
  if (rc) {
    rank_in_close(&in);
    return merge_fail("%s", err.msg);
  }
  hid_t f = in.file;
  if (H5Aexists(f, SP_SHARD_ATTR) <= 0) {
    rank_in_close(&in);
    return merge_fail("%s is not a shard file (no shard attributes: write shards with `sitepack run --shard I/N`)",
                      s->path);
  }
  s->job_json = malloc(ATTR_TEXT_CAP);
  s->ccd_path = malloc(ATTR_TEXT_CAP);
  if (!s->job_json || !s->ccd_path) {
    rank_in_close(&in);
    return merge_fail("out of memory");
  }
  if (sp_h5_read_attr_i64(f, "shard_index", &s->index) < 0 || sp_h5_read_attr_i64(f, SP_SHARD_ATTR, &s->count) < 0 ||
      sp_h5_read_attr_i64(f, "n_files", &s->n_files) < 0 ||
      sp_h5_read_attr_str(f, "job_fingerprint", s->fingerprint, sizeof s->fingerprint) < 0 ||
      sp_h5_read_attr_str(f, "job_json", s->job_json, ATTR_TEXT_CAP) < 0 ||
      sp_h5_read_attr_str(f, "ccd_path", s->ccd_path, ATTR_TEXT_CAP) < 0 ||
      sp_h5_read_attr_str(f, "ccd_sha256", s->ccd_sha, sizeof s->ccd_sha) < 0 ||
      sp_h5_read_attr_str(f, "tool_version", s->tool_version, sizeof s->tool_version) < 0 ||
      sp_h5_read_attr_str(f, "git_sha", s->git_sha, sizeof s->git_sha) < 0 ||
      sp_h5_read_attr_i64(f, "n_ranks", &s->n_ranks) < 0) {
    H5Eclear2(H5E_DEFAULT);
    rank_in_close(&in);
    return merge_fail("%s: incomplete shard attributes (damaged shard file?)", s->path);
  }
  hid_t wa = H5Aexists(f, "wall_seconds") > 0 ? H5Aopen(f, "wall_seconds", H5P_DEFAULT) : -1;
  if (wa < 0 || H5Aread(wa, H5T_NATIVE_DOUBLE, &s->wall) < 0) s->wall = 0;
  if (wa >= 0) H5Aclose(wa);
  if (s->count < 1 || s->count > SHARD_MAX || s->index < 0 || s->index >= s->count || s->n_files < 0) {
    rank_in_close(&in);
    return merge_fail("%s: bad shard attributes (shard %lld/%lld, %lld files)", s->path, (long long)s->index,
                      (long long)s->count, (long long)s->n_files);
  }
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
  if (!ok) {
    H5Eclear2(H5E_DEFAULT);
    rank_in_close(&in);
    return merge_fail("%s: cannot read /shard_files (damaged shard file?)", s->path);
  }
  s->n_files_planned = (size_t)n;
  s->task_files = malloc((in.n_recs ? in.n_recs : 1) * sizeof *s->task_files);
  if (!s->task_files) {
    rank_in_close(&in);
    return merge_fail("out of memory");
  }
  for (size_t k = 0; k < in.n_recs; k++)
    if (in.recs[k].part == 0) s->task_files[s->n_task_files++] = in.recs[k].file_idx;
  rank_in_close(&in);
  return 0;
}

static int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return x < y ? -1 : x > y;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static void merge_usage(FILE *f) {
  fprintf(f,
          "usage: sitepack merge OUT.h5 SHARD.h5... [--force] [--quiet]\n"
          "Merges the shard files of `sitepack run --shard I/N` (one per shard 0..N-1, any order) into the\n"
          "file one run over all inputs writes. A SHARD argument with * ? or [ is expanded (quote it:\n"
          "sitepack merge out.h5 'shards/shard-*.h5'). Refuses shards of different jobs, a shard given\n"
          "twice, or a missing shard, and says which (docs/slurm.md).\n"
          "  --force   overwrite an existing OUT.h5\n"
          "  --quiet   no summary line\n"
          "exit status: 0 merged, 1 refused or the merge failed, 2 bad command line or OUT exists\n");
}

int sp_cmd_merge(int argc, char **argv) {
  const char *out = NULL;
  int force = 0, quiet = 0;
  char **paths = NULL;
  size_t n = 0, cap = 0;
  int status = 0;
  /* issue 16 item 13: getopt_long, the options anywhere, `--` before a name that starts with '-' */
  static const struct option longopts[] = {{"force", no_argument, NULL, 'f'},
                                           {"quiet", no_argument, NULL, 'q'},
                                           {"help", no_argument, NULL, 'h'},
                                           {NULL, 0, NULL, 0}};
  int opt;
  sp_opt_reset();
  while ((opt = sp_opt_next("merge", argc, argv, "hq", longopts)) != -1) {
    if (opt == '?') return 2;
    if (opt == 'h') {
      merge_usage(stdout);
      return 0;
    }
    if (opt == 'f') force = 1;
    if (opt == 'q') quiet = 1;
  }
  for (int i = optind; i < argc && !status; i++) {
    const char *a = argv[i];
    if (!out) {
      out = a;
      continue;
    }
    glob_t g;
    memset(&g, 0, sizeof g);
    int is_glob = strpbrk(a, "*?[") != NULL;
    if (is_glob) {
      int grc = glob(a, 0, NULL, &g);
      if (grc == GLOB_NOMATCH || (grc == 0 && g.gl_pathc == 0)) {
        fprintf(stderr, "sitepack merge: no shard file matches %s\n", a);
        status = 1;
        globfree(&g);
        break;
      } else if (grc) {
        fprintf(stderr, "sitepack merge: cannot expand %s\n", a);
        status = 1;
        globfree(&g);
        break;
      }
    }
    size_t add = is_glob ? g.gl_pathc : 1;
    if (n + add > cap) {
      size_t nc = (n + add) * 2 + 8;
      char **p = realloc(paths, nc * sizeof *p);
      if (!p) {
        status = merge_fail("out of memory");
        if (is_glob) globfree(&g);
        break;
      }
      paths = p;
      cap = nc;
    }
    for (size_t k = 0; k < add; k++) {
      paths[n] = strdup(is_glob ? g.gl_pathv[k] : a);
      if (!paths[n]) {
        status = merge_fail("out of memory");
        break;
      }
      n++;
    }
    if (is_glob) globfree(&g);
  }
  if (!status && (!out || n == 0)) {
    merge_usage(stderr);
    status = 2;
  }
  struct stat sb;
  if (!status && !force && stat(out, &sb) == 0) {
    fprintf(stderr, "sitepack merge: output %s exists (use --force to overwrite)\n", out);
    status = 2;
  }
  shard_in *sh = status ? NULL : calloc(n, sizeof *sh);
  if (!status && !sh) status = merge_fail("out of memory");
  struct timespec ts0;
  clock_gettime(CLOCK_MONOTONIC, &ts0);
  if (!status) qsort(paths, n, sizeof *paths, cmp_str);
  for (size_t k = 0; !status && k < n; k++) {
    sh[k].path = paths[k];
    paths[k] = NULL;
    status = read_shard(&sh[k]);
  }
  /* one job: fingerprint, shard count and file count agree */
  for (size_t k = 1; !status && k < n; k++)
    if (strcmp(sh[k].fingerprint, sh[0].fingerprint) || sh[k].count != sh[0].count ||
        sh[k].n_files != sh[0].n_files)
      status = merge_fail("shards of different jobs: %s (job %.12s, %lld shards, %lld files) and %s (job %.12s, %lld "
                          "shards, %lld files); every shard must come from the same input, job options, CCD and N",
                          sh[0].path, sh[0].fingerprint, (long long)sh[0].count, (long long)sh[0].n_files, sh[k].path,
                          sh[k].fingerprint, (long long)sh[k].count, (long long)sh[k].n_files);
  /* every shard exactly once */
  size_t N = status ? 0 : (size_t)sh[0].count;
  ssize_t *who = status ? NULL : malloc(N * sizeof *who);
  if (!status && !who) status = merge_fail("out of memory");
  for (size_t i = 0; !status && i < N; i++) who[i] = -1;
  for (size_t k = 0; !status && k < n; k++) {
    size_t i = (size_t)sh[k].index;
    if (who[i] >= 0)
      status = merge_fail("shard %zu/%zu given twice: %s and %s", i, N, sh[who[i]].path, sh[k].path);
    else
      who[i] = (ssize_t)k;
  }
  if (!status && n < N) {
    char list[1024] = "";
    size_t len = 0, missing = 0;
    for (size_t i = 0; i < N; i++) {
      if (who[i] >= 0) continue;
      missing++;
      if (len < sizeof list - 32) len += (size_t)snprintf(list + len, sizeof list - len, "%s%zu", missing > 1 ? ", " : "", i);
      else if (len < sizeof list - 1) len += (size_t)snprintf(list + len, sizeof list - len, ", ...");
    }
    status = merge_fail("missing %zu of %zu shards: %s (of 0..%zu); rerun each with `sitepack run ... --shard I/%zu` "
                        "(docs/slurm.md)", missing, N, list, N - 1, N);
  }
  /* the shards' plans partition the file list, and each shard ran exactly its planned files */
  int64_t nf = status ? 0 : sh[0].n_files;
  ssize_t *owner = status ? NULL : malloc((size_t)(nf ? nf : 1) * sizeof *owner);
  if (!status && !owner) status = merge_fail("out of memory");
  for (int64_t f = 0; !status && f < nf; f++) owner[f] = -1;
  for (size_t k = 0; !status && k < n; k++)
    for (size_t j = 0; !status && j < sh[k].n_files_planned; j++) {
      int64_t f = sh[k].files[j];
      if (f < 0 || f >= nf)
        status = merge_fail("%s: planned file_idx %lld outside the %lld files", sh[k].path, (long long)f, (long long)nf);
      else if (owner[f] >= 0)
        status = merge_fail("file_idx %lld planned in two shards (%s and %s): not shards of one plan", (long long)f,
                            sh[owner[f]].path, sh[k].path);
      else
        owner[f] = (ssize_t)k;
    }
  for (int64_t f = 0; !status && f < nf; f++)
    if (owner[f] < 0) status = merge_fail("file_idx %lld is planned in no shard: not shards of one plan", (long long)f);
  for (size_t k = 0; !status && k < n; k++) {
    qsort(sh[k].task_files, sh[k].n_task_files, sizeof *sh[k].task_files, cmp_i64);
    int same = sh[k].n_task_files == sh[k].n_files_planned;
    for (size_t j = 0; same && j < sh[k].n_task_files; j++) same = sh[k].task_files[j] == sh[k].files[j];
    if (!same)
      status = merge_fail("%s (shard %lld/%lld): its results (%zu files) do not match its plan (%zu files): an "
                          "incomplete or altered shard file; rerun that shard",
                          sh[k].path, (long long)sh[k].index, (long long)sh[k].count, sh[k].n_task_files,
                          sh[k].n_files_planned);
  }
  free(who);
  free(owner);
  if (!status) {
    for (size_t k = 1; k < n; k++)
      if (strcmp(sh[k].git_sha, sh[0].git_sha) || strcmp(sh[k].tool_version, sh[0].tool_version)) {
        fprintf(stderr, "sitepack merge: warning: shards written by different builds (%s %s and %s %s)\n",
                sh[0].tool_version, sh[0].git_sha, sh[k].tool_version, sh[k].git_sha);
        break;
      }
    const char **inputs = malloc(n * sizeof *inputs);
    char *tmp = malloc(strlen(out) + 8);
    if (!inputs || !tmp) {
      status = merge_fail("out of memory");
    } else {
      int64_t ranks = 0;
      double wall = 0;
      for (size_t k = 0; k < n; k++) {
        inputs[k] = sh[k].path;
        ranks += sh[k].n_ranks;
        if (sh[k].wall > wall) wall = sh[k].wall;
      }
      char created[32];
      time_t now = time(NULL);
      struct tm tm;
      gmtime_r(&now, &tm);
      strftime(created, sizeof created, "%Y-%m-%dT%H:%M:%SZ", &tm);
      sp_merge_info info = {.tool_version = sh[0].tool_version, .git_sha = sh[0].git_sha,
                            .job_json = sh[0].job_json, .ccd_path = sh[0].ccd_path, .ccd_sha256 = sh[0].ccd_sha,
                            .created = created, .n_ranks = ranks, .wall_seconds = wall};
      sprintf(tmp, "%s.tmp", out);
      sp_err err = {0};
      int mrc = sp_merge(tmp, inputs, n, &info, &err);
      if (mrc) {
        status = merge_fail("merge failed: %s: %s", sp_errclass_name(mrc), err.msg);
        remove(tmp);
      } else if (rename(tmp, out)) {
        status = merge_fail("cannot rename %s to %s: %s", tmp, out, strerror(errno));
        remove(tmp);
      } else if (!quiet) {
        struct timespec ts1;
        clock_gettime(CLOCK_MONOTONIC, &ts1);
        double secs = (double)(ts1.tv_sec - ts0.tv_sec) + 1e-9 * (double)(ts1.tv_nsec - ts0.tv_nsec);
        printf("sitepack merge: %zu shards, %lld files, %lld ranks in all, slowest shard %.2f s -> %s (%.2f s)\n", n,
               (long long)nf, (long long)ranks, wall, out, secs);
      }
    }
    free(inputs);
    free(tmp);
  }
  for (size_t k = 0; sh && k < n; k++) shard_in_free(&sh[k]);
  free(sh);
  for (size_t k = 0; k < n; k++) free(paths[k]);
  free(paths);
  return status;
}

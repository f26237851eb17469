/* Merge per-rank files into the final sitepack file (store.h sp_merge(), sp_merge_parallel();
 * docs/format.md, docs/decisions.md "The parallel merge"). No MPI: the ranks of a parallel merge
 * talk through the caller's sp_merge_comm.
 *
 * Steps (each ends with every rank agreeing on the first failure):
 *   index   every rank: open every input, read its /tasks, order the tasks by (file_idx, part), the
 *           prefix sums (every task's first row of every table), this rank's share
 *   union   every rank: its share's /components rows and site flags; rank 0: the union (merge_union.c)
 *   create  rank 0: the output, every dataset at its final size, /structures' file columns, the
 *           datasets' offsets (to every rank)
 *   copy    every rank: its share's rows of every table, indices made global (sp_col.link), written
 *           at their rows: pwrite(2) at the dataset's offset, or through HDF5 in one process; rank 0:
 *           the union and the closing CSR pointers
 *   close   rank 0: /run, the root attributes (last: a file cut short is no sitepack file), close */
#include "sitepack/store.h"
#include "merge_internal.h"
#include "rankfile.h"
#include "sitepack/base.h"
#include "store_internal.h"

#include "sitepack/site.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Rows buffered per table before a column slab is written. */
#define SP_MERGE_BUF_BYTES (8u * 1024u * 1024u)

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ---- the ranks (NULL comm: one process) ---- */

int mg_agree(merge_ctx *c, int rc) { return c->comm ? c->comm->agree(c->comm->ctx, rc, c->err) : rc; }

static int mg_bcast(merge_ctx *c, void *buf, size_t bytes) {
  int rc = c->comm ? c->comm->bcast(c->comm->ctx, buf, bytes) : 0;
  return rc ? sp_err_set(c->err, rc, "merge: cannot broadcast the dataset offsets") : 0;
}

/* ---- step 1: the index ---- */

static int cmp_task(const void *a, const void *b) {
  const task_ref *x = a, *y = b;
  if (x->rec.file_idx != y->rec.file_idx) return x->rec.file_idx < y->rec.file_idx ? -1 : 1;
  if (x->rec.part != y->rec.part) return x->rec.part < y->rec.part ? -1 : 1;
  return 0;
}

/* Open input i (sp_rankfile_open(): format, version, validated task index) and append its tasks; the
 * rankfile's own copy of the index is freed (the merge keeps one). */
static int open_input(merge_ctx *c, size_t i, const char *path, size_t *cap) {
  sp_rankfile *f = &c->in[i];
  int rc = sp_rankfile_open(f, path, c->err);
  if (rc) return rc;
  if (SP_GROW(c->tasks, *cap, c->n_tasks + f->n_tasks))
    return sp_err_set(c->err, SP_E_NOMEM, "out of memory reading %zu tasks of %s", f->n_tasks, path);
  for (size_t k = 0; k < f->n_tasks; k++) {
    task_ref *tr = &c->tasks[c->n_tasks++];
    memset(tr, 0, sizeof *tr);
    tr->rec = f->tasks[k];
    tr->input = i;
  }
  free(f->tasks);
  f->tasks = NULL;
  return 0;
}

/* Every input opened, its tasks collected and ordered by (file_idx, part). */
static int open_inputs(merge_ctx *c, const char *const *inputs) {
  size_t cap = 0;
  for (size_t i = 0; i < c->n_in; i++) {
    if (!inputs[i]) return sp_err_set(c->err, SP_E_INVALID, "sp_merge: input %zu is NULL", i);
    int rc = open_input(c, i, inputs[i], &cap);
    if (rc) return rc;
  }
  if (c->n_tasks) qsort(c->tasks, c->n_tasks, sizeof *c->tasks, cmp_task);
  if (c->stats) c->stats->index_bytes = cap * sizeof *c->tasks + c->n_in * sizeof *c->in;
  return 0;
}

/* Group tasks by file (exactly one structure row per file, no (file_idx, part) twice) and give every
 * task its global structure row and, by the exclusive prefix sum of the row counts over the merge
 * order, its first global row of each table. */
static int place_tasks(merge_ctx *c) {
  c->n_st = 0;
  for (size_t a = 0; a < c->n_tasks;) {
    size_t b = a;
    int64_t has = 0;
    while (b < c->n_tasks && c->tasks[b].rec.file_idx == c->tasks[a].rec.file_idx) {
      if (b > a && c->tasks[b].rec.part == c->tasks[b - 1].rec.part)
        return sp_err_set(c->err, SP_E_INVALID, "task file_idx %lld part %d appears twice (%s and %s)",
                          (long long)c->tasks[b].rec.file_idx, c->tasks[b].rec.part,
                          c->in[c->tasks[b - 1].input].path, c->in[c->tasks[b].input].path);
      has += c->tasks[b].rec.n[SP_T_STRUCTURES];
      b++;
    }
    if (has != 1)
      return sp_err_set(c->err, SP_E_INVALID, "file_idx %lld has %lld structure rows over its %zu task(s), expected 1",
                        (long long)c->tasks[a].rec.file_idx, (long long)has, b - a);
    /* its tasks are parts 0 .. n_parts-1, once each, all of one n_parts (/structures/n_parts comes from the
       first: a damaged shard's n_parts of 2^31-1 reached the merged file) */
    for (size_t k = a; k < b; k++)
      if (c->tasks[k].rec.n_parts != (int)(b - a) || c->tasks[k].rec.part != (int)(k - a))
        return sp_err_set(c->err, SP_E_INVALID, "file_idx %lld: task %s part %d of %d, but the inputs hold %zu part(s) "
                          "of it (expected parts 0..n_parts-1)", (long long)c->tasks[k].rec.file_idx,
                          c->in[c->tasks[k].input].path, c->tasks[k].rec.part, c->tasks[k].rec.n_parts, b - a);
    size_t owner = a; /* the task with the structure row: per-file tables (/chains) are its rows */
    for (size_t k = a; k < b; k++)
      if (c->tasks[k].rec.n[SP_T_STRUCTURES]) owner = k;
    for (size_t k = a; k < b; k++) c->tasks[k].st_global = c->n_st, c->tasks[k].owner = owner;
    c->n_st++;
    a = b;
  }
  for (size_t i = 0; i < c->n_tasks; i++)
    for (int t = 0; t < SP_T_COUNT; t++) {
      c->tasks[i].off[t] = c->total[t];
      c->total[t] += c->tasks[i].rec.n[t];
    }
  return 0;
}

/* Bytes a task adds to the merged tables (the share's weight), at least 1. */
static double task_bytes(const task_ref *tr) {
  double b = 1;
  for (int t = 0; t < SP_T_COUNT; t++)
    if (!sp_tables[t].is_union) b += (double)tr->rec.n[t] * (double)sp_tables[t].row_size;
  return b;
}

/* This rank's share [c->lo, c->hi): the tasks whose bytes before them, over the merge order, fall into
 * the rank's P-th of all bytes. Contiguous, the same on every rank, and every rank writes sequentially. */
static void share_tasks(merge_ctx *c) {
  double all = 0, before = 0;
  for (size_t i = 0; i < c->n_tasks; i++) all += task_bytes(&c->tasks[i]);
  c->lo = c->hi = c->n_tasks;
  for (size_t i = 0; i < c->n_tasks; i++) {
    int owner = (int)(before * c->size / all);
    if (owner >= c->size) owner = c->size - 1;
    before += task_bytes(&c->tasks[i]);
    if (owner < c->rank) continue;
    if (owner > c->rank) break;
    if (c->lo == c->n_tasks) c->lo = i;
    c->hi = i + 1;
  }
  if (c->lo == c->n_tasks) c->lo = c->hi = c->n_tasks;
}

static int step_index(merge_ctx *c, const char *const *inputs) {
  int rc = open_inputs(c, inputs);
  if (!rc) rc = place_tasks(c);
  if (!rc) share_tasks(c);
  return rc;
}

/* ---- step 3: the output file ---- */

/* Table t's datasets: its columns (the optional ones once some site has symmetry mates), then the CSR
 * pointer dataset [N+1] of each SP_LINK_COUNT column. */
static int create_table(merge_ctx *c, int t, int optional) {
  const sp_table *tb = &sp_tables[t];
  if (tb->n_cols + 4 > SP_MERGE_MAX_DSETS) /* its columns and up to four CSR pointers */
    return sp_err_set(c->err, SP_E_INTERNAL, "/%s has %zu columns: more than SP_MERGE_MAX_DSETS allows", tb->name,
                      tb->n_cols);
  for (size_t k = 0; k < tb->n_cols; k++) {
    const sp_col *col = &tb->cols[k];
    if (col->optional != optional || (optional == 1 && !c->any_symmetry) || (optional == 2 && !c->any_assembly))
      continue;
    hid_t ft = sp_h5_col_filetype(col);
    c->dset[t][k] = ft >= 0 ? sp_h5_create_final(c->gr[t], col->name, ft, c->total[t], col->kind == SP_COL_F32X3) : -1;
    if (ft >= 0) H5Tclose(ft);
    if (c->dset[t][k] < 0) return sp_h5_fail(c->err, "cannot create output dataset", col->name);
    int rc = sp_describe_dataset(c->dset[t][k], tb->name, col->name, c->err);
    if (rc) return rc;
  }
  return 0;
}

static int create_pointers(merge_ctx *c, int t) {
  const sp_table *tb = &sp_tables[t];
  for (size_t k = 0, q = 0; k < tb->n_cols; k++) {
    if (tb->cols[k].link != SP_LINK_COUNT) continue;
    size_t slot = tb->n_cols + q++;
    c->dset[t][slot] = sp_h5_create_final(c->gr[t], tb->cols[k].ptr, H5T_STD_I64LE, c->total[t] + 1, 0);
    if (c->dset[t][slot] < 0) return sp_h5_fail(c->err, "cannot create output pointer dataset", tb->cols[k].ptr);
    int rc = sp_describe_dataset(c->dset[t][slot], tb->name, tb->cols[k].ptr, c->err);
    if (rc) return rc;
  }
  return 0;
}

/* /structures' datasets from the task index: file_idx, n_parts; ligand_ptr, site_ptr (S+1). */
static int create_file_columns(merge_ctx *c) {
  hid_t g = c->gr[SP_T_STRUCTURES];
  c->st_dset[0] = sp_h5_create_final(g, "file_idx", H5T_STD_I64LE, c->n_st, 0);
  c->st_dset[1] = sp_h5_create_final(g, "n_parts", H5T_STD_I32LE, c->n_st, 0);
  c->st_dset[2] = sp_h5_create_final(g, "ligand_ptr", H5T_STD_I64LE, c->n_st + 1, 0);
  c->st_dset[3] = sp_h5_create_final(g, "site_ptr", H5T_STD_I64LE, c->n_st + 1, 0);
  static const char *const names[4] = {"file_idx", "n_parts", "ligand_ptr", "site_ptr"};
  for (int e = 0; e < 4; e++)
    if (c->st_dset[e] < 0) return sp_h5_fail(c->err, "cannot create output pointer datasets", c->out_path);
  for (int e = 0; e < 4; e++) {
    int rc = sp_describe_dataset(c->st_dset[e], "structures", names[e], c->err);
    if (rc) return rc;
  }
  return 0;
}

/* The file (no time stamps), a group per table and /run, and every dataset, in the order of the serial
 * merge before it (tables, /structures' pointers, the CSR pointers, the optional columns). */
static int create_output(merge_ctx *c) {
  int rc = 0;
  hid_t fapl = sp_h5_fapl(1);
  hid_t fcpl = H5Pcreate(H5P_FILE_CREATE);
  if (fapl >= 0 && fcpl >= 0 && H5Pset_obj_track_times(fcpl, 0) >= 0)
    c->out = H5Fcreate(c->out_path, H5F_ACC_TRUNC, fcpl, fapl);
  if (c->out < 0) rc = sp_h5_fail(c->err, "cannot create output file", c->out_path);
  c->created = c->out >= 0;
  if (fapl >= 0) H5Pclose(fapl);
  if (fcpl >= 0) H5Pclose(fcpl);
  if (rc) return rc;
  hid_t gcpl = H5Pcreate(H5P_GROUP_CREATE);
  if (gcpl >= 0) H5Pset_obj_track_times(gcpl, 0);
  for (int t = 0; t < SP_T_COUNT && gcpl >= 0; t++)
    if ((c->gr[t] = H5Gcreate2(c->out, sp_tables[t].name, H5P_DEFAULT, gcpl, H5P_DEFAULT)) < 0) break;
  c->grun = gcpl >= 0 ? H5Gcreate2(c->out, "run", H5P_DEFAULT, gcpl, H5P_DEFAULT) : -1;
  if (gcpl >= 0) H5Pclose(gcpl);
  int gbad = c->grun < 0;
  for (int t = 0; t < SP_T_COUNT; t++)
    if (c->gr[t] < 0) gbad = 1;
  if (gbad) return sp_h5_fail(c->err, "cannot create output groups", c->out_path);
  for (int t = 0; t < SP_T_COUNT && !rc; t++) rc = create_table(c, t, 0);
  if (!rc) rc = create_file_columns(c);
  for (int t = 0; t < SP_T_COUNT && !rc; t++) rc = create_pointers(c, t);
  for (int t = 0; t < SP_T_COUNT && !rc; t++) rc = create_table(c, t, 1);
  for (int t = 0; t < SP_T_COUNT && !rc; t++) rc = create_table(c, t, 2);
  return rc;
}

/* /structures' file_idx, n_parts, ligand_ptr, site_ptr (first ligand / site of each file's first task). */
static int write_file_columns(merge_ctx *c) {
  size_t n = (size_t)c->n_st;
  int64_t *fi = malloc((n + 1) * sizeof *fi), *np = malloc((n + 1) * sizeof *np);
  int64_t *lp = malloc((n + 1) * sizeof *lp), *sp = malloc((n + 1) * sizeof *sp);
  int rc = !fi || !np || !lp || !sp ? sp_err_set(c->err, SP_E_NOMEM, "out of memory writing structure pointers") : 0;
  for (size_t i = 0, s = 0; !rc && i < c->n_tasks; i++)
    if (i == 0 || c->tasks[i].rec.file_idx != c->tasks[i - 1].rec.file_idx) {
      fi[s] = c->tasks[i].rec.file_idx;
      np[s] = c->tasks[i].rec.n_parts;
      lp[s] = c->tasks[i].off[SP_T_LIGANDS];
      sp[s] = c->tasks[i].off[SP_T_SITES];
      s++;
    }
  if (!rc) {
    lp[n] = c->total[SP_T_LIGANDS];
    sp[n] = c->total[SP_T_SITES];
    if (sp_h5_write_slab(c->st_dset[0], H5T_NATIVE_INT64, 0, n, 0, fi) < 0 ||
        sp_h5_write_slab(c->st_dset[1], H5T_NATIVE_INT64, 0, n, 0, np) < 0 ||
        sp_h5_write_slab(c->st_dset[2], H5T_NATIVE_INT64, 0, n + 1, 0, lp) < 0 ||
        sp_h5_write_slab(c->st_dset[3], H5T_NATIVE_INT64, 0, n + 1, 0, sp) < 0)
      rc = sp_h5_fail(c->err, "cannot write structure pointers", c->out_path);
  }
  free(fi);
  free(np);
  free(lp);
  free(sp);
  return rc;
}

/* Raw writes only: the file offset of every dataset (-1: not in the file, or empty). */
static int find_offsets(merge_ctx *c) {
  for (int t = 0; t < SP_T_COUNT; t++)
    for (int k = 0; k < SP_MERGE_MAX_DSETS; k++) {
      haddr_t a = c->dset[t][k] >= 0 ? H5Dget_offset(c->dset[t][k]) : HADDR_UNDEF;
      c->addr[t][k] = a == HADDR_UNDEF ? -1 : (int64_t)a;
    }
  if (H5Fflush(c->out, H5F_SCOPE_LOCAL) < 0) return sp_h5_fail(c->err, "cannot flush output file", c->out_path);
  return 0;
}

static int step_create(merge_ctx *c) {
  int rc = 0;
  if (c->rank == 0) {
    rc = create_output(c);
    if (!rc) rc = write_file_columns(c);
    if (!rc && c->raw) rc = find_offsets(c);
  }
  rc = mg_agree(c, rc);
  if (!rc && c->raw) rc = mg_agree(c, mg_bcast(c, c->addr, sizeof c->addr));
  return rc;
}

/* ---- step 4: the rows ---- */

/* Write all @p bytes of @p buf at file offset @p at of the output (raw writes). 0 or SP_E_IO. */
static int pwrite_all(merge_ctx *c, int64_t at, const void *buf, size_t bytes) {
  if (c->fail_inject) {
    c->fail_inject = 0;
    return sp_err_set(c->err, SP_E_IO, "cannot write %s (rank %d): %s (SITEPACK_TEST_MERGE_FAIL_RANK)", c->out_path,
                      c->rank, strerror(EIO));
  }
  const char *p = buf;
  double t0 = c->trace ? now_s() : 0;
  int64_t at0 = at;
  size_t bytes0 = bytes;
  while (bytes > 0) {
    ssize_t w = pwrite(c->fd, p, bytes, (off_t)at);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0)
      return sp_err_set(c->err, SP_E_IO, "cannot write %s (rank %d): %s", c->out_path, c->rank,
                        w < 0 ? strerror(errno) : "nothing written");
    p += w;
    at += w;
    bytes -= (size_t)w;
  }
  if (c->stats) c->stats->bytes_written += (int64_t)(p - (const char *)buf);
  if (c->trace) fprintf(c->trace, "%lld %zu %.9f\n", (long long)at0, bytes0, now_s() - t0);
  return 0;
}

/* 1 when dataset slot k of table t is in the output (an optional column may not be). */
static int present(const merge_ctx *c, int t, size_t k) {
  return c->raw ? c->addr[t][k] >= 0 || c->total[t] == 0 : c->dset[t][k] >= 0;
}

/* Rows [row, row + n) of dataset slot k of table t (a column, or a CSR pointer dataset of int64) from
 * the packed buffer @p buf: raw at the dataset's offset, or through HDF5. */
int mg_put(merge_ctx *c, int t, size_t k, int64_t row, size_t n, const void *buf) {
  if (n == 0) return 0;
  const sp_table *tb = &sp_tables[t];
  const sp_col *col = k < tb->n_cols ? &tb->cols[k] : NULL;
  size_t es = col ? sp_col_elsize(col) : sizeof(int64_t);
  if (c->raw) return pwrite_all(c, c->addr[t][k] + row * (int64_t)es, buf, n * es);
  hid_t mt = col ? sp_h5_col_memtype(col) : H5Tcopy(H5T_NATIVE_INT64);
  int rc = mt >= 0 ? sp_h5_write_slab(c->dset[t][k], mt, row, n, col && col->kind == SP_COL_F32X3, buf) : -1;
  if (mt >= 0) H5Tclose(mt);
  return rc < 0 ? sp_h5_fail(c->err, "cannot write output dataset", col ? col->name : "CSR pointer") : 0;
}

/* One table's buffers: rows, one packed column, and the CSR pointers of its count columns. */
typedef struct table_buf {
  int t;
  size_t cap, fill;           /* rows the buffer holds, rows in it */
  int64_t row;                /* global row of the buffer's first row */
  char *rows, *colbuf;
  size_t n_counts;
  size_t count_col[8];        /* the SP_LINK_COUNT columns */
  int64_t *ptr[8];            /* [cap] their pointers */
  int64_t acc[8];             /* next pointer value of each */
} table_buf;

static int64_t get_int(const char *p, int kind) {
  if (kind == SP_COL_I64) {
    int64_t v;
    memcpy(&v, p, sizeof v);
    return v;
  }
  int32_t v;
  memcpy(&v, p, sizeof v);
  return v;
}

static void set_int(char *p, int kind, int64_t v) {
  if (kind == SP_COL_I64) {
    memcpy(p, &v, sizeof v);
  } else {
    int32_t w = (int32_t)v;
    memcpy(p, &w, sizeof w);
  }
}

/* Rules of one table beyond its links: a site's ligand atoms are among its atoms. 1: the row is valid. */
static int row_ok(int t, const char *row) {
  if (t != SP_T_SITES) return 1;
  const sp_site_row *s = (const sp_site_row *)row;
  return s->n_ligand >= 0 && s->n_ligand <= s->n_atoms;
}

/* Turn the local indices of the @p k rows at b->rows + b->fill of task tr into global ones (sp_col.link)
 * and note their CSR pointers. Returns 0 or SP_E_FORMAT. */
static int translate(merge_ctx *c, table_buf *b, const task_ref *tr, size_t k) {
  const sp_table *tb = &sp_tables[b->t];
  const sp_task_rec *r = &tr->rec;
  for (size_t j = 0; j < k; j++) {
    char *row = b->rows + (b->fill + j) * tb->row_size;
    size_t q = 0;
    for (size_t m = 0; m < tb->n_cols; m++) {
      const sp_col *col = &tb->cols[m];
      if (col->link == SP_LINK_NONE) continue;
      int64_t v = get_int(row + col->off, col->kind);
      int64_t lo = col->link == SP_LINK_ROW_OR_NONE ? -1 : 0;
      if (col->link == SP_LINK_FILE) {
        set_int(row + col->off, col->kind, tr->st_global);
      } else if (col->link == SP_LINK_COUNT) {
        if (v < 0) goto bad;
        b->ptr[q][b->fill + j] = b->acc[q];
        b->acc[q++] += v;
      } else if (col->link == SP_LINK_FILE_ROW_OR_NONE) {
        const task_ref *ow = &c->tasks[tr->owner];
        if (v < -1 || v >= ow->rec.n[col->to]) goto bad;
        if (v >= 0) set_int(row + col->off, col->kind, v + ow->off[col->to]);
      } else if (v < lo || v >= r->n[col->to]) {
        goto bad;
      } else if (v >= 0) {
        set_int(row + col->off, col->kind, v + tr->off[col->to]);
      }
    }
    if (!row_ok(b->t, row)) goto bad;
  }
  return 0;
bad:
  return sp_err_set(c->err, SP_E_FORMAT, "%s: task file_idx %lld part %d: a /%s row has an index out of range",
                    c->in[tr->input].path, (long long)r->file_idx, r->part, tb->name);
}

/* The buffered rows: each column gathered and written, then the CSR pointers. */
static int flush_buf(merge_ctx *c, table_buf *b) {
  const sp_table *tb = &sp_tables[b->t];
  int rc = 0;
  for (size_t k = 0; k < tb->n_cols && !rc; k++) {
    if (!present(c, b->t, k)) continue; /* an optional column this merge does not write */
    sp_col_gather(&tb->cols[k], b->rows, tb->row_size, b->fill, b->colbuf);
    rc = mg_put(c, b->t, k, b->row, b->fill, b->colbuf);
  }
  for (size_t q = 0; q < b->n_counts && !rc; q++) rc = mg_put(c, b->t, tb->n_cols + q, b->row, b->fill, b->ptr[q]);
  b->row += (int64_t)b->fill;
  b->fill = 0;
  return rc;
}

static void buf_free(table_buf *b) {
  free(b->rows);
  free(b->colbuf);
  for (size_t q = 0; q < b->n_counts; q++) free(b->ptr[q]);
}

static int buf_init(merge_ctx *c, table_buf *b, int t) {
  const sp_table *tb = &sp_tables[t];
  memset(b, 0, sizeof *b);
  b->t = t;
  b->cap = SP_MERGE_BUF_BYTES / tb->row_size;
  if (b->cap < 1) b->cap = 1;
  size_t maxel = 1;
  for (size_t k = 0; k < tb->n_cols; k++) {
    if (sp_col_elsize(&tb->cols[k]) > maxel) maxel = sp_col_elsize(&tb->cols[k]);
    if (tb->cols[k].link == SP_LINK_COUNT && b->n_counts < 8) b->count_col[b->n_counts++] = k;
  }
  b->rows = malloc(b->cap * tb->row_size);
  b->colbuf = malloc(b->cap * maxel);
  int bad = !b->rows || !b->colbuf;
  for (size_t q = 0; q < b->n_counts; q++) bad |= !(b->ptr[q] = malloc(b->cap * sizeof(int64_t)));
  return bad ? sp_err_set(c->err, SP_E_NOMEM, "out of memory merging /%s", tb->name) : 0;
}

/* The rows of one task's count columns sum to its rows of the tables they count. */
static int check_counts(merge_ctx *c, const table_buf *b, const task_ref *tr, const int64_t *acc0) {
  const sp_table *tb = &sp_tables[b->t];
  for (size_t q = 0; q < b->n_counts; q++) {
    const sp_col *col = &tb->cols[b->count_col[q]];
    if (b->acc[q] - acc0[q] != tr->rec.n[col->to])
      return sp_err_set(c->err, SP_E_FORMAT, "%s: task file_idx %lld part %d: /%s rows count %lld %s rows (%s), "
                        "the task has %lld", c->in[tr->input].path, (long long)tr->rec.file_idx, tr->rec.part,
                        tb->name, (long long)(b->acc[q] - acc0[q]), sp_tables[col->to].name, col->name,
                        (long long)tr->rec.n[col->to]);
  }
  return 0;
}

/* Table t's rows of this rank's share, task by task through the buffer, at their global rows. */
static int copy_table(merge_ctx *c, int t) {
  table_buf b;
  int rc = buf_init(c, &b, t);
  b.row = c->lo < c->n_tasks ? c->tasks[c->lo].off[t] : c->total[t];
  for (size_t i = c->lo; i < c->hi && !rc; i++) {
    const task_ref *tr = &c->tasks[i];
    size_t n = (size_t)tr->rec.n[t], done = 0;
    int64_t acc0[8];
    for (size_t q = 0; q < b.n_counts; q++) /* the task's first row of the counted table */
      acc0[q] = b.acc[q] = tr->off[sp_tables[t].cols[b.count_col[q]].to];
    while (done < n && !rc) {
      size_t k = b.cap - b.fill < n - done ? b.cap - b.fill : n - done;
      char *dst = b.rows + b.fill * sp_tables[t].row_size;
      memset(dst, 0, k * sp_tables[t].row_size);
      rc = sp_rankfile_read_rows(&c->in[tr->input], t, tr->rec.start[t] + (int64_t)done, k, dst, c->err);
      if (!rc) rc = translate(c, &b, tr, k);
      b.fill += k;
      done += k;
      if (!rc && b.fill == b.cap) rc = flush_buf(c, &b);
    }
    if (!rc) rc = check_counts(c, &b, tr, acc0);
  }
  if (!rc && b.fill) rc = flush_buf(c, &b);
  buf_free(&b);
  return rc;
}

/* Rank 0: the closing element of every CSR pointer dataset, ptr[N] = rows of the counted table. */
static int write_closing(merge_ctx *c) {
  int rc = 0;
  for (int t = 0; t < SP_T_COUNT && !rc; t++) {
    const sp_table *tb = &sp_tables[t];
    for (size_t k = 0, q = 0; k < tb->n_cols && !rc; k++)
      if (tb->cols[k].link == SP_LINK_COUNT) rc = mg_put(c, t, tb->n_cols + q++, c->total[t], 1, &c->total[tb->cols[k].to]);
  }
  return rc;
}

/* Bench hook SITEPACK_MERGE_TRACE=PREFIX (raw writes only): rank r writes PREFIX.r, one line "offset bytes
 * seconds" per row write (pwrite_all()), then "# copy_seconds S" (the step's time on this rank); read by
 * bench/merge_io.py. A trace that cannot be opened is no error: the merge runs untraced. */
static void trace_open(merge_ctx *c) {
  const char *pre = getenv("SITEPACK_MERGE_TRACE");
  if (!c->raw || !pre || !*pre) return;
  char path[4096];
  snprintf(path, sizeof path, "%s.%d", pre, c->rank);
  c->trace = fopen(path, "w");
}

static void trace_close(merge_ctx *c, double t0) {
  if (!c->trace) return;
  fprintf(c->trace, "# copy_seconds %.9f\n", now_s() - t0);
  fclose(c->trace);
  c->trace = NULL;
}

static int step_copy(merge_ctx *c) {
  int rc = 0;
  double t0 = now_s();
  trace_open(c);
  if (c->raw && (c->fd = open(c->out_path, O_WRONLY | O_CLOEXEC)) < 0)
    rc = sp_err_set(c->err, SP_E_IO, "cannot open %s for writing (rank %d): %s", c->out_path, c->rank, strerror(errno));
  for (int t = 0; t < SP_T_COUNT && !rc; t++)
    if (!sp_tables[t].is_union) rc = copy_table(c, t);
  if (!rc && c->rank == 0) rc = mg_write_union(c);
  if (!rc && c->rank == 0) rc = write_closing(c);
  if (c->fd >= 0 && close(c->fd) && !rc)
    rc = sp_err_set(c->err, SP_E_IO, "cannot write %s (rank %d): %s", c->out_path, c->rank, strerror(errno));
  c->fd = -1;
  trace_close(c, t0);
  return mg_agree(c, rc);
}

/* ---- step 5: /run and the root attributes ---- */

static void now_iso(char *buf, size_t cap) {
  time_t t = time(NULL);
  struct tm tmv;
  if (gmtime_r(&t, &tmv)) strftime(buf, cap, "%Y-%m-%dT%H:%M:%SZ", &tmv);
  else snprintf(buf, cap, "unknown");
}

static int write_run(merge_ctx *c, const sp_merge_info *info, const char *created) {
  hid_t g = c->grun;
  if (sp_h5_attr_str(g, "format", SP_FORMAT_NAME) < 0 || sp_h5_attr_i64(g, "format_version", SP_FORMAT_VERSION) < 0 ||
      sp_h5_attr_str(g, "tool_version", info->tool_version) < 0 || sp_h5_attr_str(g, "git_sha", info->git_sha) < 0 ||
      sp_h5_attr_str(g, "job_json", info->job_json) < 0 || sp_h5_attr_str(g, "ccd_path", info->ccd_path) < 0 ||
      sp_h5_attr_str(g, "ccd_sha256", info->ccd_sha256) < 0 || sp_h5_attr_i64(g, "ccd_blocks", info->ccd_blocks) < 0 ||
      sp_h5_attr_i64(g, "n_ranks", info->n_ranks) < 0 ||
      sp_h5_attr_str(g, "created", created) < 0 || sp_h5_attr_f64(g, "wall_seconds", info->wall_seconds) < 0 ||
      sp_h5_attr_i64(g, "n_tasks", (int64_t)c->n_tasks) < 0)
    return sp_h5_fail(c->err, "cannot write /run attributes", c->out_path);
  return 0;
}

/* Close every dataset and group of the output (rank 0). */
static void close_handles(merge_ctx *c) {
  for (int t = 0; t < SP_T_COUNT; t++) {
    for (int k = 0; k < SP_MERGE_MAX_DSETS; k++)
      if (c->dset[t][k] >= 0) H5Dclose(c->dset[t][k]);
    if (c->gr[t] >= 0) H5Gclose(c->gr[t]);
    c->gr[t] = -1;
    for (int k = 0; k < SP_MERGE_MAX_DSETS; k++) c->dset[t][k] = -1;
  }
  for (int e = 0; e < 4; e++) {
    if (c->st_dset[e] >= 0) H5Dclose(c->st_dset[e]);
    c->st_dset[e] = -1;
  }
}

static int step_close(merge_ctx *c, const sp_merge_info *info) {
  int rc = 0;
  if (c->rank == 0) {
    static const sp_merge_info empty;
    if (!info) info = &empty;
    char created[40];
    if (info->created) snprintf(created, sizeof created, "%s", info->created);
    else now_iso(created, sizeof created);
    rc = write_run(c, info, created);
    if (!rc) rc = sp_describe_root(c->out, info->tool_version, created, info->job_json, c->err);
    if (!rc && (sp_h5_attr_str(c->out, "format", SP_FORMAT_NAME) < 0 ||
                sp_h5_attr_i64(c->out, "format_version", SP_FORMAT_VERSION) < 0))
      rc = sp_h5_fail(c->err, "cannot write root attributes", c->out_path);
    close_handles(c);
    if (c->grun >= 0) H5Gclose(c->grun);
    c->grun = -1;
    if (H5Fclose(c->out) < 0 && !rc) rc = sp_h5_fail(c->err, "cannot close output file", c->out_path);
    c->out = -1;
  }
  return mg_agree(c, rc);
}

/* ---- the merge ---- */

static int merge_body(merge_ctx *c, const char *const *inputs, const sp_merge_info *info) {
  sp_merge_stats *st = c->stats;
  double t0 = now_s();
  int rc = mg_agree(c, step_index(c, inputs));
  double t1 = now_s();
  if (!rc) rc = mg_union(c);
  double t2 = now_s();
  if (!rc) rc = step_create(c);
  double t3 = now_s();
  if (!rc) rc = step_copy(c);
  double t4 = now_s();
  if (!rc) rc = step_close(c, info);
  if (st) {
    st->t_index = t1 - t0;
    st->t_union = t2 - t1;
    st->t_create = t3 - t2;
    st->t_copy = t4 - t3;
    st->t_close = now_s() - t4;
    st->tasks = c->hi - c->lo;
  }
  return rc;
}

static int little_endian(void) {
  const uint16_t one = 1;
  unsigned char b;
  memcpy(&b, &one, 1);
  return b == 1;
}

int sp_merge_parallel(const sp_merge_comm *comm, const char *out_path, const char *const *inputs, size_t n_inputs,
                      const sp_merge_info *info, sp_merge_stats *stats, sp_err *err) {
  if (!out_path || (n_inputs && !inputs)) return sp_err_set(err, SP_E_INVALID, "sp_merge: NULL argument");
  merge_ctx c;
  memset(&c, 0, sizeof c);
  c.err = err;
  c.comm = comm;
  c.rank = comm ? comm->rank : 0;
  c.size = comm ? comm->size : 1;
  c.raw = comm != NULL;
  c.out_path = out_path;
  c.n_in = n_inputs;
  c.out = c.grun = c.fd = -1;
  c.stats = stats;
  if (stats) memset(stats, 0, sizeof *stats);
  for (int t = 0; t < SP_T_COUNT; t++) {
    c.gr[t] = -1;
    for (int k = 0; k < SP_MERGE_MAX_DSETS; k++) c.dset[t][k] = -1;
  }
  for (int e = 0; e < 4; e++) c.st_dset[e] = -1;
  const char *inj = getenv("SITEPACK_TEST_MERGE_FAIL_RANK");
  c.fail_inject = c.raw && inj && *inj && atoi(inj) == c.rank;
  int rc = c.raw && !little_endian()
               ? sp_err_set(err, SP_E_INVALID, "the parallel merge writes little-endian rows: not on this host")
               : 0;
  c.in = n_inputs ? calloc(n_inputs, sizeof *c.in) : NULL;
  if (!rc && n_inputs && !c.in) rc = sp_err_set(err, SP_E_NOMEM, "out of memory opening %zu inputs", n_inputs);
  for (size_t i = 0; c.in && i < n_inputs; i++) sp_rankfile_init(&c.in[i]);
  sp_h5_quiet q;
  sp_h5_quiet_begin(&q);
  rc = mg_agree(&c, rc);
  if (!rc) rc = merge_body(&c, inputs, info);
  close_handles(&c);
  if (c.grun >= 0) H5Gclose(c.grun);
  if (c.out >= 0) H5Fclose(c.out);
  if (c.fd >= 0) close(c.fd);
  for (size_t i = 0; c.in && i < n_inputs; i++) sp_rankfile_close(&c.in[i]);
  if (rc && c.created) unlink(out_path);
  free(c.in);
  free(c.tasks);
  mg_union_free(&c);
  H5Eclear2(H5E_DEFAULT);
  sp_h5_quiet_end(&q);
  return rc;
}

int sp_merge(const char *out_path, const char *const *inputs, size_t n_inputs, const sp_merge_info *info,
             sp_err *err) {
  return sp_merge_parallel(NULL, out_path, inputs, n_inputs, info, NULL, err);
}

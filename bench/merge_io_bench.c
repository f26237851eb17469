/* The write paths of the parallel merge, measured on the merge's own extents (issue 21; bench/merge_io.py,
 * `make bench-merge-io`, docs/decisions.md "The parallel merge").
 *
 *   mpirun -np P sitepack_bench_merge_io --merged REF.h5 --trace PREFIX --out TARGET [--backends LIST] [--keep 1]
 *
 * REF.h5 is a file written by `sitepack merge` (or `sitepack run`) at the same P with
 * SITEPACK_MERGE_TRACE=PREFIX (store.h): PREFIX.r lists rank r's row writes as "offset bytes seconds".
 * Every rank reads its extents' bytes from REF.h5 (not timed), then each backend of LIST (comma list, in
 * that order) writes exactly those extents, the same bytes at the same dataset rows, to a new TARGET:
 *
 *   pwrite        open(2), one pwrite(2) per extent at its offset, close: the merge's own path
 *   mpiio-indep   MPI_File_open, one MPI_File_write_at per extent (independent), MPI_File_close
 *   mpiio-coll    the same with MPI_File_write_at_all (collective): every rank makes as many calls as the
 *                 rank with the most extents, the extra ones with count 0
 *   phdf5-indep   H5Pset_fapl_mpio: the file and every dataset of REF.h5 created collectively (same type,
 *                 shape and creation properties, in file-offset order), one H5Dwrite of a hyperslab of rows
 *                 per extent, H5FD_MPIO_INDEPENDENT
 *   phdf5-coll    the same with H5FD_MPIO_COLLECTIVE: per dataset, every rank makes as many H5Dwrite calls
 *                 as the rank with the most extents in it, the extra ones with an empty selection
 *
 * (the phdf5 backends only when the HDF5 library has MPI: H5_HAVE_PARALLEL; otherwise the bench says so
 * and skips them). Before each backend rank 0 calls sync(2) (no dirty pages left from the one before).
 * Each extent is first copied into one staging buffer, as the merge gathers a column slab before its
 * pwrite (not timed). Timed per rank: the write calls alone ("write_s"), and open (the parallel HDF5 file
 * creation apart: "create_s"), writes and close ("open_write_close_s"). After each backend every rank reads its extents back from TARGET (through HDF5 for the
 * phdf5 backends, at the dataset rows) and compares them with REF.h5's bytes: "verified". For the
 * phdf5 backends also (not timed): rank 0 makes the same create calls through the serial API (sec2
 * driver) into TARGET.serial, and the bench says whether every dataset got the same offset with the
 * MPI-IO driver ("same_offsets_as_serial_api") and that file's size ("serial_api_file_bytes"); the
 * order of the calls is that of REF.h5's object headers, not necessarily the merge's, so the offsets
 * themselves may differ from REF.h5's.
 *
 * Output (rank 0, stdout): one JSON object per backend per line. Exit 0, 1 on a failure (message on stderr),
 * 2 on a bad command line. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <hdf5.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_DSETS 1024
#define MAX_NAME 256

typedef struct dset_info {
  char name[MAX_NAME];
  int64_t addr, bytes; /* REF.h5: file offset and storage bytes of its data */
  int64_t hdr;         /* REF.h5: address of its object header (the creation order of the merge) */
  size_t row_bytes;    /* bytes of one row (element size x the dimensions after the first) */
  hid_t type, space, dcpl;
} dset_info;

typedef struct group_info {
  char name[MAX_NAME];
  int64_t hdr; /* REF.h5: address of its object header */
} group_info;

typedef struct extent {
  int64_t off;   /* file offset in REF.h5 */
  size_t bytes;
  int d;         /* dataset index */
  hsize_t row, rows;
  char *data;    /* into the rank's buffer */
} extent;

typedef struct bench {
  int rank, size;
  const char *ref, *trace, *out;
  dset_info d[MAX_DSETS];
  int nd;
  group_info g[MAX_DSETS]; /* REF.h5's groups but the root */
  int ng;
  extent *x;
  size_t nx;
  char *buf;
  size_t buf_bytes;
  long long twin_size; /* phdf5: the serial API's file of the same calls, bytes */
  char *stage;         /* [the largest extent]: each extent is copied here before its write, as the merge
                          gathers a column slab into its buffer before the pwrite (a cache-warm source) */
  double t_stage;      /* seconds of those copies in the current backend (not counted as writing) */
} bench;

static void die(const bench *b, const char *msg, const char *what) {
  fprintf(stderr, "merge_io_bench (rank %d): %s%s%s\n", b->rank, msg, what ? ": " : "", what ? what : "");
  MPI_Abort(MPI_COMM_WORLD, 1);
  exit(1);
}

/* The extent's bytes copied into the staging buffer (the merge writes from its just-gathered buffer). */
static const char *stage(bench *b, const extent *e) {
  double t0 = MPI_Wtime();
  memcpy(b->stage, e->data, e->bytes);
  b->t_stage += MPI_Wtime() - t0;
  return b->stage;
}

/* ---- REF.h5's datasets ---- */

static herr_t visit(hid_t obj, const char *name, const H5O_info_t *info, void *op) {
  bench *b = op;
  if (info->type == H5O_TYPE_GROUP && strcmp(name, ".") && b->ng < MAX_DSETS) {
    snprintf(b->g[b->ng].name, MAX_NAME, "/%s", name);
    b->g[b->ng++].hdr = (int64_t)info->addr;
  }
  if (info->type != H5O_TYPE_DATASET) return 0;
  if (b->nd >= MAX_DSETS) return -1;
  hid_t ds = H5Dopen2(obj, name, H5P_DEFAULT);
  if (ds < 0) return -1;
  dset_info *di = &b->d[b->nd];
  haddr_t a = H5Dget_offset(ds);
  di->type = H5Dget_type(ds);
  di->space = H5Dget_space(ds);
  di->dcpl = H5Dget_create_plist(ds);
  di->bytes = (int64_t)H5Dget_storage_size(ds);
  di->addr = a == HADDR_UNDEF ? -1 : (int64_t)a;
  di->hdr = (int64_t)info->addr;
  snprintf(di->name, sizeof di->name, "/%s", name);
  hsize_t dims[8] = {0};
  int nd = H5Sget_simple_extent_ndims(di->space);
  H5Sget_simple_extent_dims(di->space, dims, NULL);
  di->row_bytes = H5Tget_size(di->type);
  for (int k = 1; k < nd; k++) di->row_bytes *= dims[k];
  H5Dclose(ds);
  b->nd++;
  return 0;
}

static int cmp_addr(const void *a, const void *b) {
  const dset_info *x = a, *y = b;
  return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static void read_datasets(bench *b) {
  hid_t f = H5Fopen(b->ref, H5F_ACC_RDONLY, H5P_DEFAULT);
  if (f < 0) die(b, "cannot open", b->ref);
  if (H5Ovisit2(f, H5_INDEX_NAME, H5_ITER_INC, visit, b, H5O_INFO_BASIC) < 0) die(b, "cannot list the datasets of", b->ref);
  H5Fclose(f);
  qsort(b->d, (size_t)b->nd, sizeof *b->d, cmp_addr);
}

/* ---- the trace: this rank's extents, mapped to dataset rows, their bytes read from REF.h5 ---- */

static int find_dset(const bench *b, int64_t off, size_t bytes) {
  int lo = 0, hi = b->nd - 1, at = -1;
  while (lo <= hi) { /* the last dataset whose data starts at or before off */
    int mid = (lo + hi) / 2;
    if (b->d[mid].addr <= off) at = mid, lo = mid + 1;
    else hi = mid - 1;
  }
  if (at < 0 || b->d[at].addr < 0 || off + (int64_t)bytes > b->d[at].addr + b->d[at].bytes) return -1;
  return at;
}

static void read_trace(bench *b) {
  char path[4096], line[256];
  snprintf(path, sizeof path, "%s.%d", b->trace, b->rank);
  FILE *t = fopen(path, "r");
  if (!t) die(b, "cannot open the trace (run the merge at this -np with SITEPACK_MERGE_TRACE)", path);
  size_t cap = 0;
  while (fgets(line, sizeof line, t)) {
    long long off;
    size_t bytes;
    if (line[0] == '#' || sscanf(line, "%lld %zu", &off, &bytes) != 2) continue;
    if (b->nx == cap && !(b->x = realloc(b->x, (cap = cap ? 2 * cap : 1024) * sizeof *b->x))) die(b, "out of memory", NULL);
    extent *e = &b->x[b->nx++];
    memset(e, 0, sizeof *e);
    e->off = off;
    e->bytes = bytes;
    b->buf_bytes += bytes;
  }
  fclose(t);
  snprintf(path, sizeof path, "%s.%d", b->trace, b->size);
  if (access(path, F_OK) == 0) die(b, "the trace has more ranks than this run (start the bench at the merge's -np)", path);
}

static void map_extents(bench *b) {
  size_t most = 1;
  for (size_t i = 0; i < b->nx; i++)
    if (b->x[i].bytes > most) most = b->x[i].bytes;
  if (!(b->buf = malloc(b->buf_bytes ? b->buf_bytes : 1)) || !(b->stage = malloc(most))) die(b, "out of memory", NULL);
  int fd = open(b->ref, O_RDONLY);
  if (fd < 0) die(b, "cannot open", b->ref);
  size_t at = 0;
  for (size_t i = 0; i < b->nx; i++) {
    extent *e = &b->x[i];
    e->d = find_dset(b, e->off, e->bytes);
    if (e->d < 0) die(b, "an extent of the trace is in no dataset of the merged file (another file's trace?)", b->ref);
    const dset_info *di = &b->d[e->d];
    if ((size_t)(e->off - di->addr) % di->row_bytes || e->bytes % di->row_bytes) die(b, "an extent is not whole rows of", di->name);
    e->row = (hsize_t)(e->off - di->addr) / di->row_bytes;
    e->rows = e->bytes / di->row_bytes;
    e->data = b->buf + at;
    if (pread(fd, e->data, e->bytes, e->off) != (ssize_t)e->bytes) die(b, "cannot read an extent of", b->ref);
    at += e->bytes;
  }
  close(fd);
}

/* ---- the backends; each returns the seconds of its writes alone in *w ---- */

static void raw_pwrite(bench *b, double *w) {
  int fd = open(b->out, O_WRONLY);
  if (fd < 0) die(b, "cannot open", b->out);
  for (size_t i = 0; i < b->nx; i++) {
    const char *p = stage(b, &b->x[i]);
    double t0 = MPI_Wtime();
    if (pwrite(fd, p, b->x[i].bytes, b->x[i].off) != (ssize_t)b->x[i].bytes) die(b, "pwrite failed on", b->out);
    *w += MPI_Wtime() - t0;
  }
  if (close(fd)) die(b, "close failed on", b->out);
}

static void mpiio(bench *b, int collective, double *w) {
  MPI_File fh;
  if (MPI_File_open(MPI_COMM_WORLD, b->out, MPI_MODE_WRONLY, MPI_INFO_NULL, &fh) != MPI_SUCCESS) die(b, "MPI_File_open failed on", b->out);
  unsigned long long mine = b->nx, calls = b->nx;
  if (collective) MPI_Allreduce(&mine, &calls, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
  for (size_t i = 0; i < calls; i++) {
    const extent *e = i < b->nx ? &b->x[i] : NULL;
    MPI_Offset off = e ? (MPI_Offset)e->off : 0;
    int n = e ? (int)e->bytes : 0;
    const char *p = e ? stage(b, e) : b->stage;
    MPI_Status st;
    double t0 = MPI_Wtime();
    int rc = collective ? MPI_File_write_at_all(fh, off, p, n, MPI_BYTE, &st)
                        : MPI_File_write_at(fh, off, p, n, MPI_BYTE, &st);
    *w += MPI_Wtime() - t0;
    if (rc != MPI_SUCCESS) die(b, "MPI_File_write_at failed on", b->out);
  }
  if (MPI_File_close(&fh) != MPI_SUCCESS) die(b, "MPI_File_close failed on", b->out);
}

#ifdef H5_HAVE_PARALLEL
static const bench *order_of; /* qsort context: the datasets by object header address */
static int cmp_hdr(const void *a, const void *b) {
  int64_t x = order_of->d[*(const int *)a].hdr, y = order_of->d[*(const int *)b].hdr;
  return x < y ? -1 : x > y;
}
static int cmp_group(const void *a, const void *b) {
  int64_t x = ((const group_info *)a)->hdr, y = ((const group_info *)b)->hdr;
  return x < y ? -1 : x > y;
}

/* The file, REF.h5's groups and every dataset with @p fapl (MPI-IO: collectively), in the order of their
 * object headers in REF.h5, with REF.h5's creation properties and the merge's alignment. */
static hid_t phdf5_create(bench *b, hid_t fapl, const char *path, hid_t *ds) {
  hid_t fcpl = H5Pcreate(H5P_FILE_CREATE), gcpl = H5Pcreate(H5P_GROUP_CREATE);
  H5Pset_alignment(fapl, 65536, 4096); /* the merge's (store/schema.c sp_h5_fapl(1)) */
  H5Pset_obj_track_times(fcpl, 0);
  H5Pset_obj_track_times(gcpl, 0);
  hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, fcpl, fapl);
  if (f < 0) die(b, "H5Fcreate failed on", path);
  qsort(b->g, (size_t)b->ng, sizeof b->g[0], cmp_group);
  for (int k = 0; k < b->ng; k++) {
    hid_t g = H5Gcreate2(f, b->g[k].name, H5P_DEFAULT, gcpl, H5P_DEFAULT);
    if (g < 0) die(b, "H5Gcreate failed", b->g[k].name);
    H5Gclose(g);
  }
  int *order = malloc((size_t)b->nd * sizeof *order);
  if (!order) die(b, "out of memory", NULL);
  for (int k = 0; k < b->nd; k++) order[k] = k;
  order_of = b;
  qsort(order, (size_t)b->nd, sizeof *order, cmp_hdr);
  for (int j = 0; j < b->nd; j++) {
    int k = order[j];
    ds[k] = H5Dcreate2(f, b->d[k].name, b->d[k].type, b->d[k].space, H5P_DEFAULT, b->d[k].dcpl, H5P_DEFAULT);
    if (ds[k] < 0) die(b, "H5Dcreate failed", b->d[k].name);
  }
  free(order);
  H5Pclose(fcpl);
  H5Pclose(gcpl);
  return f;
}

static int64_t offset_of(hid_t ds) {
  haddr_t a = H5Dget_offset(ds);
  return a == HADDR_UNDEF ? -1 : (int64_t)a;
}

/* Rank 0, not timed: the same calls through the serial API (sec2 driver) into TARGET.serial; its datasets'
 * offsets into @p off and its size (after close) into *size: what the MPI-IO driver is compared with. */
static void serial_twin(bench *b, int64_t *off, long long *size) {
  char path[4200];
  snprintf(path, sizeof path, "%s.serial", b->out);
  hid_t *ds = calloc((size_t)b->nd, sizeof *ds), fapl = H5Pcreate(H5P_FILE_ACCESS);
  if (!ds) die(b, "out of memory", NULL);
  hid_t f = phdf5_create(b, fapl, path, ds);
  for (int k = 0; k < b->nd; k++) off[k] = offset_of(ds[k]), H5Dclose(ds[k]);
  H5Fclose(f);
  H5Pclose(fapl);
  struct stat st;
  *size = stat(path, &st) == 0 ? (long long)st.st_size : -1;
  unlink(path);
  free(ds);
}

static void phdf5_write(bench *b, hid_t ds, const extent *e, hid_t dxpl, double *w) {
  hid_t fs = H5Dget_space(ds);
  int nd = H5Sget_simple_extent_ndims(fs);
  hsize_t dims[8] = {0}, start[8] = {0}, count[8] = {0};
  H5Sget_simple_extent_dims(fs, dims, NULL);
  for (int k = 1; k < nd; k++) count[k] = dims[k];
  hid_t ms;
  if (e) {
    start[0] = e->row;
    count[0] = e->rows;
    H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL);
    ms = H5Screate_simple(nd, count, NULL);
  } else {
    H5Sselect_none(fs);
    ms = H5Screate(H5S_NULL);
    H5Sselect_none(ms);
  }
  hid_t mt = H5Dget_type(ds);
  const char *p = e ? stage(b, e) : b->stage;
  double t0 = MPI_Wtime();
  if (H5Dwrite(ds, mt, ms, fs, dxpl, p) < 0) die(b, "H5Dwrite failed on", b->out);
  *w += MPI_Wtime() - t0;
  H5Tclose(mt);
  H5Sclose(ms);
  H5Sclose(fs);
}

/* Independent: the trace's order. Collective: dataset by dataset, the j-th extent of every rank together. */
static void phdf5(bench *b, int collective, double *w, double *create, int *same) {
  hid_t *ds = calloc((size_t)b->nd, sizeof *ds), fapl = H5Pcreate(H5P_FILE_ACCESS);
  int64_t *twin = calloc((size_t)b->nd, sizeof *twin);
  if (!ds || !twin) die(b, "out of memory", NULL);
  if (b->rank == 0) serial_twin(b, twin, &b->twin_size);
  MPI_Bcast(twin, b->nd, MPI_INT64_T, 0, MPI_COMM_WORLD);
  H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  hid_t f = phdf5_create(b, fapl, b->out, ds);
  *create = MPI_Wtime() - t0;
  H5Pclose(fapl);
  *same = 1;
  for (int k = 0; k < b->nd; k++)
    if (offset_of(ds[k]) != twin[k]) *same = 0;
  free(twin);
  hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
  H5Pset_dxpl_mpio(dxpl, collective ? H5FD_MPIO_COLLECTIVE : H5FD_MPIO_INDEPENDENT);
  if (!collective) {
    for (size_t i = 0; i < b->nx; i++) phdf5_write(b, ds[b->x[i].d], &b->x[i], dxpl, w);
  } else {
    int *mine = calloc((size_t)b->nd, sizeof *mine), *most = calloc((size_t)b->nd, sizeof *most);
    if (!mine || !most) die(b, "out of memory", NULL);
    for (size_t i = 0; i < b->nx; i++) mine[b->x[i].d]++;
    MPI_Allreduce(mine, most, b->nd, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    for (int k = 0; k < b->nd; k++) {
      size_t i = 0;
      for (int j = 0; j < most[k]; j++) {
        while (i < b->nx && b->x[i].d != k) i++;
        phdf5_write(b, ds[k], i < b->nx ? &b->x[i] : NULL, dxpl, w);
        if (i < b->nx) i++;
      }
    }
    free(mine);
    free(most);
  }
  H5Pclose(dxpl);
  for (int k = 0; k < b->nd; k++) H5Dclose(ds[k]);
  if (H5Fclose(f) < 0) die(b, "parallel H5Fclose failed on", b->out);
  free(ds);
}

/* Read every extent back at its dataset rows of TARGET (serial HDF5, each rank alone). */
static int verify_phdf5(bench *b) {
  int ok = 1;
  hid_t f = H5Fopen(b->out, H5F_ACC_RDONLY, H5P_DEFAULT);
  if (f < 0) return 0;
  char *tmp = NULL;
  size_t cap = 0;
  for (size_t i = 0; i < b->nx && ok; i++) {
    const extent *e = &b->x[i];
    if (e->bytes > cap && !(tmp = realloc(tmp, cap = e->bytes))) die(b, "out of memory", NULL);
    hid_t ds = H5Dopen2(f, b->d[e->d].name, H5P_DEFAULT), fs = H5Dget_space(ds), mt = H5Dget_type(ds);
    int nd = H5Sget_simple_extent_ndims(fs);
    hsize_t dims[8] = {0}, start[8] = {0}, count[8] = {0};
    H5Sget_simple_extent_dims(fs, dims, NULL);
    for (int k = 1; k < nd; k++) count[k] = dims[k];
    start[0] = e->row;
    count[0] = e->rows;
    H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL);
    hid_t ms = H5Screate_simple(nd, count, NULL);
    ok = H5Dread(ds, mt, ms, fs, H5P_DEFAULT, tmp) >= 0 && !memcmp(tmp, e->data, e->bytes);
    H5Sclose(ms);
    H5Tclose(mt);
    H5Sclose(fs);
    H5Dclose(ds);
  }
  free(tmp);
  H5Fclose(f);
  return ok;
}
#endif

/* Read every extent back at its file offset of TARGET. */
static int verify_raw(bench *b) {
  int fd = open(b->out, O_RDONLY), ok = fd >= 0;
  char *tmp = NULL;
  size_t cap = 0;
  for (size_t i = 0; i < b->nx && ok; i++) {
    const extent *e = &b->x[i];
    if (e->bytes > cap && !(tmp = realloc(tmp, cap = e->bytes))) die(b, "out of memory", NULL);
    ok = pread(fd, tmp, e->bytes, e->off) == (ssize_t)e->bytes && !memcmp(tmp, e->data, e->bytes);
  }
  free(tmp);
  if (fd >= 0) close(fd);
  return ok;
}

/* ---- one backend: fresh TARGET, barrier, timed, verified, reported ---- */

static void run_backend(bench *b, const char *name) {
  int is_raw = !strcmp(name, "pwrite"), is_mpiio = !strncmp(name, "mpiio-", 6), is_h5 = !strncmp(name, "phdf5-", 6);
  int coll = strstr(name, "-coll") != NULL;
  if (!is_raw && !is_mpiio && !is_h5) die(b, "unknown backend", name);
#ifndef H5_HAVE_PARALLEL
  if (is_h5) {
    if (b->rank == 0) printf("{\"backend\": \"%s\", \"skipped\": \"HDF5 without MPI (H5_HAVE_PARALLEL unset)\"}\n", name);
    return;
  }
#endif
  if (b->rank == 0) { /* the raw paths write into a new empty file, as the merge into the one rank 0 made */
    unlink(b->out);
    sync(); /* no dirty pages of earlier backends (or of anything else) left to write back meanwhile */
    if (!is_h5) {
      int fd = open(b->out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (fd < 0 || close(fd)) die(b, "cannot create", b->out);
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  double w = 0, create = 0;
  b->t_stage = 0;
  double t0 = MPI_Wtime();
  int same = -1, ok;
  if (is_raw) raw_pwrite(b, &w);
  else if (is_mpiio) mpiio(b, coll, &w);
#ifdef H5_HAVE_PARALLEL
  else phdf5(b, coll, &w, &create, &same);
#endif
  double total = MPI_Wtime() - t0 - create - b->t_stage;
  MPI_Barrier(MPI_COMM_WORLD);
#ifdef H5_HAVE_PARALLEL
  ok = is_h5 ? verify_phdf5(b) : verify_raw(b);
#else
  ok = verify_raw(b);
#endif
  double mine[2] = {w, total}, all[2 * 4096];
  long long bytes = (long long)b->buf_bytes, nx = (long long)b->nx, allb[4096], allx[4096];
  int P = b->size > 4096 ? 4096 : b->size, allok = 0;
  MPI_Gather(mine, 2, MPI_DOUBLE, all, 2, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  MPI_Gather(&bytes, 1, MPI_LONG_LONG, allb, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
  MPI_Gather(&nx, 1, MPI_LONG_LONG, allx, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
  MPI_Reduce(&ok, &allok, 1, MPI_INT, MPI_LAND, 0, MPI_COMM_WORLD);
  if (b->rank) return;
  struct stat st;
  long long fsize = stat(b->out, &st) == 0 ? (long long)st.st_size : -1;
  printf("{\"backend\": \"%s\", \"np\": %d, \"verified\": %s, \"file_bytes\": %lld", name, b->size,
         allok ? "true" : "false", fsize);
  if (is_h5)
    printf(", \"create_s\": %.6f, \"same_offsets_as_serial_api\": %s, \"serial_api_file_bytes\": %lld", create,
           same ? "true" : "false", b->twin_size);
  const char *keys[2] = {"write_s", "open_write_close_s"};
  for (int q = 0; q < 2; q++) {
    printf(", \"%s\": [", keys[q]);
    for (int r = 0; r < P; r++) printf("%s%.6f", r ? ", " : "", all[2 * r + q]);
    printf("]");
  }
  printf(", \"bytes\": [");
  for (int r = 0; r < P; r++) printf("%s%lld", r ? ", " : "", allb[r]);
  printf("], \"extents\": [");
  for (int r = 0; r < P; r++) printf("%s%lld", r ? ", " : "", allx[r]);
  printf("]}\n");
  fflush(stdout);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  static bench b;
  MPI_Comm_rank(MPI_COMM_WORLD, &b.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &b.size);
  const char *backends = "pwrite,mpiio-indep,mpiio-coll,phdf5-indep,phdf5-coll";
  int keep = 0;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "--merged")) b.ref = argv[i + 1];
    else if (!strcmp(argv[i], "--trace")) b.trace = argv[i + 1];
    else if (!strcmp(argv[i], "--out")) b.out = argv[i + 1];
    else if (!strcmp(argv[i], "--backends")) backends = argv[i + 1];
    else if (!strcmp(argv[i], "--keep")) keep = atoi(argv[i + 1]);
    else b.ref = NULL, i = argc;
  }
  if (!b.ref || !b.trace || !b.out) {
    if (b.rank == 0)
      fprintf(stderr, "usage: mpirun -np P %s --merged REF.h5 --trace PREFIX --out TARGET [--backends LIST] [--keep 1]\n", argv[0]);
    MPI_Finalize();
    return 2;
  }
  read_datasets(&b);
  read_trace(&b);
  map_extents(&b);
  char *list = strdup(backends);
  for (char *tok = strtok(list, ","); tok; tok = strtok(NULL, ",")) run_backend(&b, tok);
  free(list);
  if (b.rank == 0 && !keep) unlink(b.out);
  free(b.x);
  free(b.buf);
  free(b.stage);
  for (int k = 0; k < b.nd; k++) H5Tclose(b.d[k].type), H5Sclose(b.d[k].space), H5Pclose(b.d[k].dcpl);
  MPI_Finalize();
  return 0;
}

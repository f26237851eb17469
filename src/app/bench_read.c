/* `sitepack bench read`: read/write benchmark of the merged layout against an atompack-style
 * chunked HDF5 structure-of-arrays and a plain memcpy (docs/reading.md, results/read-*.md). */
#include <errno.h>
#include <fcntl.h>
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "app/cli_opts.h"
#include "app/cmd_store.h"
#include "sitepack/base.h"
#include "sitepack/reader.h"
#include "sitepack/store.h"
#include "sitepack/version.h"

#define MAX_RUNS 64

typedef struct opts {
  int64_t n;           /* synthetic molecules */
  int atoms;           /* atoms per synthetic molecule */
  int64_t count;       /* indices per pattern */
  int reps;
  uint64_t seed;
  const char *dir;
  const char *real;    /* merged real file, or NULL */
  const char *out;     /* JSON path, or NULL */
  int reuse;           /* keep existing synthetic files */
  int cold;            /* one cold run per backend (posix_fadvise DONTNEED of our own files) */
} opts;

typedef struct run_rec {
  char data[16], backend[32], pattern[16];
  int64_t mols, atoms;
  double bytes;        /* bytes delivered to the caller */
  double med_s, min_s, max_s, cold_s;
  uint64_t checksum;
} run_rec;

typedef struct bench {
  opts o;
  run_rec runs[MAX_RUNS];
  int n_runs;
  char paths[3][512];
  double write_s[3];
  double sizes[3];
  double real_soa_size, real_size;
  double load_before[3], load_after[3];
} bench;

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static uint64_t mix64(uint64_t z) { return sp_mix64(z + SP_GOLDEN_GAMMA); }

static uint64_t fnv(uint64_t h, const void *p, size_t n) {
  const unsigned char *b = p;
  for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 0x100000001B3ull;
  return h;
}

static double file_size(const char *p) {
  struct stat st;
  return stat(p, &st) == 0 ? (double)st.st_size : -1.0;
}

static void evict(const char *p) {
  int fd = open(p, O_RDONLY);
  if (fd >= 0) {
    posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    close(fd);
  }
}

/* ---------- synthetic data: deterministic in (molecule, atom) ---------- */

static void gen_chunk(int64_t m0, int64_t nm, int na, float *pos, float *frc, uint8_t *z, double *e) {
  for (int64_t m = 0; m < nm; m++) {
    int64_t mol = m0 + m;
    e[m] = -0.5 * (double)mol - 0.001 * (double)(mix64((uint64_t)mol) % 1000);
    for (int j = 0; j < na; j++) {
      uint64_t h = mix64((uint64_t)mol * 1000003u + (uint64_t)j);
      size_t a = (size_t)(m * na + j);
      z[a] = (uint8_t)(1 + h % 17);
      for (int k = 0; k < 3; k++) {
        pos[3 * a + (size_t)k] = (float)((double)((h >> (8 * k)) & 0xffff) / 4096.0);
        frc[3 * a + (size_t)k] = (float)((double)((h >> (16 + 8 * k)) & 0xfff) / 1024.0 - 2.0);
      }
    }
  }
}

#define WCHUNK 16384

static hid_t chunked(hid_t f, const char *name, hid_t type, int rank, const hsize_t *dims, const hsize_t *chunk) {
  hid_t sp = H5Screate_simple(rank, dims, NULL), dcpl = H5Pcreate(H5P_DATASET_CREATE);
  hid_t d = -1;
  if (sp >= 0 && dcpl >= 0 && H5Pset_chunk(dcpl, rank, chunk) >= 0 && H5Pset_obj_track_times(dcpl, 0) >= 0)
    d = H5Dcreate2(f, name, type, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
  if (dcpl >= 0) H5Pclose(dcpl);
  if (sp >= 0) H5Sclose(sp);
  return d;
}

static int write_nd(hid_t d, hid_t mt, int rank, int64_t row0, int64_t nrows, const hsize_t *dims, const void *buf) {
  hsize_t st[3] = {(hsize_t)row0, 0, 0}, cnt[3] = {(hsize_t)nrows, rank > 1 ? dims[1] : 1, rank > 2 ? dims[2] : 1};
  hid_t fs = H5Dget_space(d), ms = H5Screate_simple(rank, cnt, NULL);
  int ok = fs >= 0 && ms >= 0 && H5Sselect_hyperslab(fs, H5S_SELECT_SET, st, NULL, cnt, NULL) >= 0 &&
           H5Dwrite(d, mt, ms, fs, H5P_DEFAULT, buf) >= 0;
  if (ms >= 0) H5Sclose(ms);
  if (fs >= 0) H5Sclose(fs);
  return ok ? 0 : -1;
}

/* Write the synthetic set in three layouts; time each writer (generation not timed). */
static int write_synthetic(bench *b) {
  const int64_t N = b->o.n;
  const int na = b->o.atoms;
  float *pos = malloc((size_t)WCHUNK * (size_t)na * 12), *frc = malloc((size_t)WCHUNK * (size_t)na * 12);
  uint8_t *z = malloc((size_t)WCHUNK * (size_t)na);
  double *e = malloc((size_t)WCHUNK * sizeof *e);
  if (!pos || !frc || !z || !e) {
    fprintf(stderr, "bench: out of memory\n");
    return -1;
  }
  int rc = 0;
  for (int w = 0; w < 3 && !rc; w++) {
    double t = 0;
    double t0 = now_s();
    hid_t f = -1, ds[4] = {-1, -1, -1, -1};
    sp_synthetic *sw = NULL;
    sp_err err = {0};
    FILE *raw = NULL;
    hsize_t d3[3] = {(hsize_t)N, (hsize_t)na, 3}, d2[2] = {(hsize_t)N, (hsize_t)na}, d1[1] = {(hsize_t)N};
    if (w == 0) { /* sitepack: the merge's dataset creation and slab writes (store.h sp_synthetic_*) */
      sw = sp_synthetic_open(b->paths[0], N, na, &err);
      if (!sw) rc = -1;
    } else if (w == 1) { /* hdf5_soa: one chunked dataset per field, 256 molecules per chunk */
      hid_t fcpl = H5Pcreate(H5P_FILE_CREATE);
      H5Pset_obj_track_times(fcpl, 0);
      f = H5Fcreate(b->paths[1], H5F_ACC_TRUNC, fcpl, H5P_DEFAULT);
      H5Pclose(fcpl);
      hsize_t cm = (hsize_t)N < 256 && N > 0 ? (hsize_t)N : 256; /* a chunk is at most the fixed dimension */
      hsize_t c3[3] = {cm, (hsize_t)na, 3}, c2[2] = {cm, (hsize_t)na}, c1[1] = {cm};
      if (f >= 0) {
        ds[0] = chunked(f, "positions", H5T_IEEE_F32LE, 3, d3, c3);
        ds[1] = chunked(f, "forces", H5T_IEEE_F32LE, 3, d3, c3);
        ds[2] = chunked(f, "atomic_numbers", H5T_STD_U8LE, 2, d2, c2);
        ds[3] = chunked(f, "energy", H5T_IEEE_F64LE, 1, d1, c1);
      }
      for (int k = 0; k < 4; k++)
        if (ds[k] < 0) rc = -1;
    } else { /* plain SoA: the four arrays as raw bytes, one after the other (size reference) */
      raw = fopen(b->paths[2], "wb");
      if (!raw) rc = -1;
    }
    t += now_s() - t0;
    if (rc || (w == 1 && f < 0)) {
      fprintf(stderr, "bench: cannot create %s\n", b->paths[w]);
      rc = -1;
    }
    for (int pass = 0; pass < (w == 2 ? 4 : 1) && !rc; pass++)
      for (int64_t m0 = 0; m0 < N && !rc; m0 += WCHUNK) {
        int64_t nm = N - m0 < WCHUNK ? N - m0 : WCHUNK;
        gen_chunk(m0, nm, na, pos, frc, z, e);
        t0 = now_s();
        if (w == 0) {
          rc |= sp_synthetic_append(sw, m0, nm, pos, frc, z, e, &err) ? -1 : 0;
        } else if (w == 1) {
          rc |= write_nd(ds[0], H5T_NATIVE_FLOAT, 3, m0, nm, d3, pos);
          rc |= write_nd(ds[1], H5T_NATIVE_FLOAT, 3, m0, nm, d3, frc);
          rc |= write_nd(ds[2], H5T_NATIVE_UINT8, 2, m0, nm, d2, z);
          rc |= write_nd(ds[3], H5T_NATIVE_DOUBLE, 1, m0, nm, d1, e);
        } else {
          /* raw file: pass 0 positions, 1 forces, 2 atomic numbers, 3 energies (each array whole) */
          size_t an = (size_t)(nm * na);
          const void *src = pass == 0 ? (const void *)pos : pass == 1 ? (const void *)frc : pass == 2 ? (const void *)z : (const void *)e;
          size_t sz = pass < 2 ? an * 12 : pass == 2 ? an : (size_t)nm * 8;
          if (fwrite(src, 1, sz, raw) != sz) rc = -1;
        }
        t += now_s() - t0;
      }
    t0 = now_s();
    if (w == 0 && sp_synthetic_close(sw, &err)) rc = -1;
    for (int k = 0; k < 4; k++)
      if (ds[k] >= 0) H5Dclose(ds[k]);
    if (f >= 0 && H5Fclose(f) < 0) rc = -1;
    if (raw && fclose(raw) != 0) rc = -1;
    t += now_s() - t0;
    b->write_s[w] = t;
    b->sizes[w] = file_size(b->paths[w]);
    if (rc) fprintf(stderr, "bench: writing %s failed\n", b->paths[w]);
    else fprintf(stderr, "bench: wrote %s (%.0f MB) in %.2f s (%.0f molecules/s)\n", b->paths[w], b->sizes[w] / 1e6, t,
                 (double)N / t);
  }
  free(pos); free(frc); free(z); free(e);
  return rc ? -1 : 0;
}

/* ---------- read backends ---------- */

typedef struct rd_out {   /* caller-side destination of one pass over the indices */
  float *pos, *frc;
  uint8_t *z;
  uint16_t *flags;
  double *e;
  size_t cap_atoms;
} rd_out;

typedef struct backend_ctx {
  int kind;                 /* 0 sitepack mmap batch, 1 sitepack hdf5 batch, 2 sitepack mmap per site, 3 hdf5_soa, 4 memcpy */
  int real;                 /* 1: real merged file (fields position, element, flags) */
  sp_reader *rd;
  sp_site_batch batch;
  hid_t f, d[4], fs[4], ms[4];
  int64_t *soa_ptr;         /* real hdf5_soa: atom_ptr in memory */
  char *src;                /* memcpy: source buffer */
  size_t src_bytes;
  int na;
} backend_ctx;

/* One pass: read every index, return checksum of the delivered data in request order (or 0 on error). */
static int run_pass(backend_ctx *c, const int64_t *idx, size_t n, rd_out *o, int64_t *atoms_out, double *bytes_out,
                    uint64_t *sum, int do_sum) {
  sp_err err = {0};
  int64_t atoms = 0;
  double bytes = 0;
  if (c->kind == 0 || c->kind == 1) {
    unsigned fields = SP_FIELD_POSITION | SP_FIELD_ELEMENT | (c->real ? SP_FIELD_FLAGS : 0);
    if (sp_reader_read_sites(c->rd, idx, n, fields, &c->batch, &err)) goto fail;
    atoms = (int64_t)c->batch.n_atoms;
    bytes = (double)atoms * (c->real ? 15.0 : 13.0);
    if (!c->real) {
      if (sp_reader_gather_atoms(c->rd, "/atoms/force", idx, n, o->frc, o->cap_atoms * 12, NULL, &err) ||
          sp_reader_gather_sites(c->rd, "/sites/energy", idx, n, o->e, n * 8, NULL, &err))
        goto fail;
      bytes += (double)atoms * 12.0 + (double)n * 8.0;
    }
    if (do_sum) {
      uint64_t h = 1469598103934665603ull;
      h = fnv(h, c->batch.position, (size_t)atoms * 12);
      h = fnv(h, c->batch.element, (size_t)atoms);
      if (c->real) h = fnv(h, c->batch.flags, (size_t)atoms * 2);
      else {
        h = fnv(h, o->frc, (size_t)atoms * 12);
        h = fnv(h, o->e, n * 8);
      }
      *sum = h;
    }
  } else if (c->kind == 2) { /* per site through the mapped reader (synthetic only) */
    for (size_t k = 0; k < n; k++) {
      if (sp_reader_read_site(c->rd, idx[k], SP_FIELD_POSITION | SP_FIELD_ELEMENT, &c->batch, &err) ||
          sp_reader_gather_atoms(c->rd, "/atoms/force", &idx[k], 1, o->frc + 3 * atoms,
                                 (o->cap_atoms - (size_t)atoms) * 12, NULL, &err) ||
          sp_reader_gather_sites(c->rd, "/sites/energy", &idx[k], 1, o->e + k, 8, NULL, &err))
        goto fail;
      size_t na = c->batch.n_atoms;
      memcpy(o->pos + 3 * atoms, c->batch.position, na * 12);
      memcpy(o->z + atoms, c->batch.element, na);
      atoms += (int64_t)na;
    }
    bytes = (double)atoms * 25.0 + (double)n * 8.0;
    if (do_sum) {
      uint64_t h = 1469598103934665603ull;
      h = fnv(h, o->pos, (size_t)atoms * 12);
      h = fnv(h, o->z, (size_t)atoms);
      h = fnv(h, o->frc, (size_t)atoms * 12);
      *sum = fnv(h, o->e, n * 8);
    }
  } else if (c->kind == 3) { /* hdf5_soa: per molecule, one hyperslab H5Dread per field */
    for (size_t k = 0; k < n; k++) {
      int64_t a0, cnt;
      if (c->real) {
        a0 = c->soa_ptr[idx[k]];
        cnt = c->soa_ptr[idx[k] + 1] - a0;
      } else {
        a0 = idx[k];
        cnt = c->na;
      }
      int nf = c->real ? 3 : 4;
      for (int fdx = 0; fdx < nf; fdx++) {
        hsize_t st[3] = {(hsize_t)(c->real ? a0 : idx[k]), 0, 0}, ct[3] = {c->real ? (hsize_t)cnt : 1, 1, 1};
        void *dst;
        hid_t mt;
        int rank;
        hsize_t mdim[3];
        if (c->real) {
          rank = fdx == 0 ? 2 : 1;
          ct[1] = 3;
          mdim[0] = (hsize_t)cnt * (fdx == 0 ? 3 : 1);
          dst = fdx == 0 ? (void *)(o->pos + 3 * atoms) : fdx == 1 ? (void *)(o->z + atoms) : (void *)(o->flags + atoms);
          mt = fdx == 0 ? H5T_NATIVE_FLOAT : fdx == 1 ? H5T_NATIVE_UINT8 : H5T_NATIVE_UINT16;
        } else {
          rank = fdx < 2 ? 3 : fdx == 2 ? 2 : 1;
          ct[1] = (hsize_t)c->na;
          ct[2] = 3;
          mdim[0] = fdx < 2 ? (hsize_t)cnt * 3 : fdx == 2 ? (hsize_t)cnt : 1;
          dst = fdx == 0 ? (void *)(o->pos + 3 * atoms) : fdx == 1 ? (void *)(o->frc + 3 * atoms)
              : fdx == 2 ? (void *)(o->z + atoms) : (void *)(o->e + k);
          mt = fdx < 2 ? H5T_NATIVE_FLOAT : fdx == 2 ? H5T_NATIVE_UINT8 : H5T_NATIVE_DOUBLE;
        }
        hid_t ms = H5Screate_simple(1, mdim, NULL);
        int ok = ms >= 0 && H5Sselect_hyperslab(c->fs[fdx], H5S_SELECT_SET, st, NULL, ct, NULL) >= 0 &&
                 H5Dread(c->d[fdx], mt, ms, c->fs[fdx], H5P_DEFAULT, dst) >= 0;
        if (ms >= 0) H5Sclose(ms);
        (void)rank;
        if (!ok) {
          sp_err_set(&err, SP_E_HDF5, "hdf5_soa read failed at molecule %lld", (long long)idx[k]);
          goto fail;
        }
      }
      atoms += cnt;
    }
    bytes = c->real ? (double)atoms * 15.0 : (double)atoms * 25.0 + (double)n * 8.0;
    if (do_sum) {
      uint64_t h = 1469598103934665603ull;
      h = fnv(h, o->pos, (size_t)atoms * 12);
      h = fnv(h, o->z, (size_t)atoms);
      if (c->real) h = fnv(h, o->flags, (size_t)atoms * 2);
      else {
        h = fnv(h, o->frc, (size_t)atoms * 12);
        h = fnv(h, o->e, n * 8);
      }
      *sum = h;
    }
  } else { /* memcpy of the same number of bytes, one contiguous copy from memory */
    memcpy(o->pos, c->src, c->src_bytes);
    bytes = (double)c->src_bytes;
    atoms = 0;
    if (do_sum) *sum = 0;
  }
  *atoms_out = atoms;
  *bytes_out = bytes;
  return 0;
fail:
  fprintf(stderr, "bench: %s\n", err.msg);
  return -1;
}

static int cmp_d(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static int backend_open(backend_ctx *c, const char *path, int kind, int real, int na) {
  memset(c, 0, sizeof *c);
  c->kind = kind;
  c->real = real;
  c->na = na;
  c->f = -1;
  for (int k = 0; k < 4; k++) c->d[k] = c->fs[k] = c->ms[k] = -1;
  sp_err err = {0};
  if (kind <= 2) {
    c->rd = sp_reader_open(path, kind == 1 ? SP_READER_HDF5 : SP_READER_AUTO, &err);
    if (!c->rd) { /* the class and message every reader of a merged file prints (sp_opt_input_error) */
      sp_opt_input_error("bench", path, (int)err.cls, err.msg);
      return -1;
    }
    if (kind != 1 && sp_reader_field_mapped(c->rd, SP_FIELD_POSITION) != 1) {
      fprintf(stderr, "bench: %s: positions are not on the mapped path\n", path);
      return -1;
    }
  } else if (kind == 3) {
    c->f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    static const char *syn[4] = {"positions", "forces", "atomic_numbers", "energy"};
    static const char *rl[3] = {"position", "element", "flags"};
    for (int k = 0; k < (real ? 3 : 4) && c->f >= 0; k++) {
      c->d[k] = H5Dopen2(c->f, real ? rl[k] : syn[k], H5P_DEFAULT);
      c->fs[k] = c->d[k] >= 0 ? H5Dget_space(c->d[k]) : -1;
      if (c->fs[k] < 0) return -1;
    }
    if (c->f < 0) return -1;
    if (real) {
      hid_t d = H5Dopen2(c->f, "atom_ptr", H5P_DEFAULT), sp = d >= 0 ? H5Dget_space(d) : -1;
      hssize_t np = sp >= 0 ? H5Sget_simple_extent_npoints(sp) : -1;
      c->soa_ptr = np > 0 ? malloc((size_t)np * 8) : NULL;
      int ok = c->soa_ptr && H5Dread(d, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, c->soa_ptr) >= 0;
      if (sp >= 0) H5Sclose(sp);
      if (d >= 0) H5Dclose(d);
      if (!ok) return -1;
    }
  }
  return 0;
}

static void backend_close(backend_ctx *c) {
  sp_reader_close(c->rd);
  sp_site_batch_free(&c->batch);
  for (int k = 0; k < 4; k++) {
    if (c->fs[k] >= 0) H5Sclose(c->fs[k]);
    if (c->d[k] >= 0) H5Dclose(c->d[k]);
  }
  if (c->f >= 0) H5Fclose(c->f);
  free(c->soa_ptr);
  free(c->src);
  memset(c, 0, sizeof *c);
}

/* Warm-up + reps timed passes (+ optional cold pass) of one backend on one index set. */
static int measure(bench *b, const char *data, const char *bname, const char *path, int kind, int real, int na,
                   const char *pattern, const int64_t *idx, size_t n, rd_out *o, double memcpy_bytes, uint64_t *sum_out) {
  if (b->n_runs == MAX_RUNS) return -1;
  backend_ctx c;
  if (backend_open(&c, path, kind, real, na)) {
    fprintf(stderr, "bench: cannot open %s for %s\n", path, bname);
    backend_close(&c);
    return -1;
  }
  run_rec *r = &b->runs[b->n_runs];
  memset(r, 0, sizeof *r);
  snprintf(r->data, sizeof r->data, "%s", data);
  snprintf(r->backend, sizeof r->backend, "%s", bname);
  snprintf(r->pattern, sizeof r->pattern, "%s", pattern);
  r->cold_s = -1;
  int64_t atoms = 0;
  double bytes = 0;
  uint64_t sum = 0;
  if (kind == 4) { /* the same bytes the readers deliver for this index set */
    c.src_bytes = (size_t)memcpy_bytes;
    c.src = malloc(c.src_bytes ? c.src_bytes : 1);
    if (!c.src) return -1;
    memset(c.src, 1, c.src_bytes);
  }
  int rc = run_pass(&c, idx, n, o, &atoms, &bytes, &sum, 1); /* warm-up, checksummed */
  double t[16];
  int reps = b->o.reps > 16 ? 16 : b->o.reps;
  for (int k = 0; k < reps && !rc; k++) {
    double t0 = now_s();
    rc = run_pass(&c, idx, n, o, &atoms, &bytes, &sum, 0);
    t[k] = now_s() - t0;
  }
  backend_close(&c);
  if (!rc && b->o.cold && kind != 4) {
    evict(path);
    if (backend_open(&c, path, kind, real, na) == 0) {
      if (kind <= 2) evict(path); /* opening read atom_ptr: keep only the in-memory index warm */
      double t0 = now_s();
      uint64_t s2;
      rc = run_pass(&c, idx, n, o, &atoms, &bytes, &s2, 0);
      r->cold_s = now_s() - t0;
    }
    backend_close(&c);
  }
  if (rc) return -1;
  qsort(t, (size_t)reps, sizeof t[0], cmp_d);
  r->med_s = t[reps / 2];
  r->min_s = t[0];
  r->max_s = t[reps - 1];
  r->mols = (int64_t)n;
  r->atoms = atoms;
  r->bytes = bytes;
  r->checksum = sum;
  if (kind != 4) *sum_out = sum;
  fprintf(stderr, "bench: %-9s %-22s %-10s %8.0f molecules/s (median of %d, %.4f s)%s\n", data, bname, pattern,
          (double)n / r->med_s, reps, r->med_s, kind == 4 ? " [memcpy]" : "");
  b->n_runs++;
  return 0;
}

/* sequential 0..n-1 and a seeded shuffle: the first n of a Fisher-Yates permutation of 0..N-1. */
static int make_indices(int64_t N, int64_t count, uint64_t seed, int64_t **seq, int64_t **shuf, size_t *n) {
  size_t c = (size_t)(count < N ? count : N);
  int64_t *perm = malloc((size_t)N * sizeof *perm);
  *seq = malloc(c * sizeof **seq);
  *shuf = malloc(c * sizeof **shuf);
  if (!perm || !*seq || !*shuf) {
    free(perm);
    return -1;
  }
  for (int64_t i = 0; i < N; i++) perm[i] = i;
  uint64_t s = seed;
  for (size_t i = 0; i < c; i++) {
    s = mix64(s);
    size_t j = i + (size_t)(s % (uint64_t)(N - (int64_t)i));
    int64_t t = perm[i];
    perm[i] = perm[j];
    perm[j] = t;
  }
  for (size_t i = 0; i < c; i++) {
    (*seq)[i] = (int64_t)i;
    (*shuf)[i] = perm[i];
  }
  free(perm);
  *n = c;
  return 0;
}

/* For the real file: an atompack-style chunked SoA copy of its site atoms (position, element, flags). 0; -2 when
   @p src does not open (the reason printed); -1 otherwise. */
static int write_real_soa(bench *b, const char *src, const char *dst, double *write_s) {
  sp_err err = {0};
  sp_reader *rd = sp_reader_open(src, SP_READER_AUTO, &err);
  if (!rd) { /* the class and message every reader of a merged file prints (sp_opt_input_error) */
    sp_opt_input_error("bench", src, (int)err.cls, err.msg);
    return -2;
  }
  sp_file_counts cn;
  sp_reader_counts(rd, &cn);
  int64_t N = cn.n_sites;
  int64_t *all = malloc((size_t)(N ? N : 1) * sizeof *all);
  sp_site_batch sb = {0};
  int rc = all ? 0 : -1;
  for (int64_t i = 0; i < N && all; i++) all[i] = i;
  if (!rc) rc = sp_reader_read_sites(rd, all, (size_t)N, SP_FIELD_ALL, &sb, &err);
  double t0 = now_s();
  hid_t f = rc ? -1 : H5Fcreate(dst, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  hsize_t A = sb.n_atoms, mean = N ? (hsize_t)(A / (hsize_t)N) : 1;
  hsize_t ch = 256 * (mean ? mean : 1);
  if (ch > A && A) ch = A;
  if (!ch) ch = 1;
  hsize_t d2[2] = {A, 3}, c2[2] = {ch, 3}, d1[1] = {A}, c1[1] = {ch}, dp[1] = {(hsize_t)N + 1},
          cp[1] = {(hsize_t)N + 1 < 256 ? (hsize_t)N + 1 : 256}; /* a chunk is at most the fixed dimension */
  hid_t dpos = f >= 0 ? chunked(f, "position", H5T_IEEE_F32LE, 2, d2, c2) : -1;
  hid_t del = f >= 0 ? chunked(f, "element", H5T_STD_U8LE, 1, d1, c1) : -1;
  hid_t dfl = f >= 0 ? chunked(f, "flags", H5T_STD_U16LE, 1, d1, c1) : -1;
  hid_t dptr = f >= 0 ? chunked(f, "atom_ptr", H5T_STD_I64LE, 1, dp, cp) : -1;
  if (dpos < 0 || del < 0 || dfl < 0 || dptr < 0 ||
      (A && (H5Dwrite(dpos, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, sb.position) < 0 ||
             H5Dwrite(del, H5T_NATIVE_UINT8, H5S_ALL, H5S_ALL, H5P_DEFAULT, sb.element) < 0 ||
             H5Dwrite(dfl, H5T_NATIVE_UINT16, H5S_ALL, H5S_ALL, H5P_DEFAULT, sb.flags) < 0)) ||
      H5Dwrite(dptr, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, sb.atom_start) < 0)
    rc = -1;
  if (dpos >= 0) H5Dclose(dpos);
  if (del >= 0) H5Dclose(del);
  if (dfl >= 0) H5Dclose(dfl);
  if (dptr >= 0) H5Dclose(dptr);
  if (f >= 0 && H5Fclose(f) < 0) rc = -1;
  *write_s = now_s() - t0;
  sp_site_batch_free(&sb);
  free(all);
  sp_reader_close(rd);
  b->real_soa_size = file_size(dst);
  return rc;
}

static void json_str(FILE *f, const char *s) {
  fputc('"', f);
  for (; *s; s++) {
    if (*s == '"' || *s == '\\') fprintf(f, "\\%c", *s);
    else if ((unsigned char)*s < 0x20) fprintf(f, "\\u%04x", *s);
    else fputc(*s, f);
  }
  fputc('"', f);
}

static const run_rec *find_run(const bench *b, const char *data, const char *backend, const char *pattern) {
  for (int i = 0; i < b->n_runs; i++)
    if (!strcmp(b->runs[i].data, data) && !strcmp(b->runs[i].backend, backend) && !strcmp(b->runs[i].pattern, pattern))
      return &b->runs[i];
  return NULL;
}

static double rate(const run_rec *r) { return r && r->med_s > 0 ? (double)r->mols / r->med_s : 0; }

static int write_json(const bench *b, FILE *f) {
  char host[256] = "unknown", date[64];
  gethostname(host, sizeof host);
  time_t tt = time(NULL);
  struct tm tmv;
  gmtime_r(&tt, &tmv);
  strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &tmv);
  unsigned maj = 0, mnr = 0, rel = 0;
  H5get_libversion(&maj, &mnr, &rel);
  struct utsname un;
  uname(&un);
  fprintf(f, "{\n  \"benchmark\": \"sitepack bench read\",\n  \"date\": \"%s\",\n", date);
  fprintf(f, "  \"provenance\": {\"git_sha\": ");
  json_str(f, SP_GIT_SHA);
  fprintf(f, ", \"tool_version\": ");
  json_str(f, SP_VERSION);
  fprintf(f, ", \"host\": ");
  json_str(f, host);
  fprintf(f, ", \"kernel\": \"%s %s %s\", \"cores\": %ld, \"hdf5_version\": \"%u.%u.%u\",\n", un.sysname, un.release,
          un.machine, sysconf(_SC_NPROCESSORS_ONLN), maj, mnr, rel);
  fprintf(f, "    \"load_before\": [%.2f, %.2f, %.2f], \"load_after\": [%.2f, %.2f, %.2f]},\n", b->load_before[0],
          b->load_before[1], b->load_before[2], b->load_after[0], b->load_after[1], b->load_after[2]);
  fprintf(f, "  \"method\": {\"n_synthetic\": %lld, \"atoms_per_site\": %d, \"count\": %lld, \"reps\": %d, "
             "\"statistic\": \"median of reps after one warm-up over the same indices (warm page cache)\", "
             "\"seed\": %llu, \"cold\": %s},\n",
          (long long)b->o.n, b->o.atoms, (long long)b->o.count, b->o.reps, (unsigned long long)b->o.seed,
          b->o.cold ? "\"one pass after posix_fadvise(DONTNEED) of the benchmark's own file (no global cache drop)\""
                    : "null");
  fprintf(f, "  \"inputs\": {\"synthetic_sitepack\": ");
  json_str(f, b->paths[0]);
  fprintf(f, ", \"synthetic_hdf5_soa\": ");
  json_str(f, b->paths[1]);
  fprintf(f, ", \"synthetic_plain_soa\": ");
  json_str(f, b->paths[2]);
  fprintf(f, ", \"real\": ");
  if (b->o.real) json_str(f, b->o.real);
  else fprintf(f, "null");
  fprintf(f, "},\n");
  double plain = (double)b->o.n * ((double)b->o.atoms * 25.0 + 8.0);
  const char *wn[3] = {"sitepack", "hdf5_soa", "plain_soa"};
  fprintf(f, "  \"writes\": [\n");
  for (int w = 0; w < 3; w++)
    fprintf(f, "    {\"layout\": \"%s\", \"seconds\": %.4f, \"molecules_per_s\": %.0f, \"file_bytes\": %.0f, "
               "\"size_vs_plain_soa\": %.4f}%s\n",
            wn[w], b->write_s[w], b->write_s[w] > 0 ? (double)b->o.n / b->write_s[w] : 0, b->sizes[w],
            b->sizes[w] / plain, w < 2 ? "," : "");
  fprintf(f, "  ],\n  \"plain_soa_bytes\": %.0f,\n", plain);
  if (b->o.real) fprintf(f, "  \"real_sizes\": {\"sitepack\": %.0f, \"hdf5_soa_copy\": %.0f},\n", b->real_size, b->real_soa_size);
  fprintf(f, "  \"reads\": [\n");
  for (int i = 0; i < b->n_runs; i++) {
    const run_rec *r = &b->runs[i];
    const run_rec *soa = find_run(b, r->data, "hdf5_soa", r->pattern);
    const run_rec *mc = find_run(b, r->data, "memcpy", r->pattern);
    fprintf(f, "    {\"data\": \"%s\", \"backend\": \"%s\", \"pattern\": \"%s\", \"molecules\": %lld, \"atoms\": %lld, "
               "\"bytes\": %.0f, \"median_s\": %.6f, \"min_s\": %.6f, \"max_s\": %.6f, \"molecules_per_s\": %.0f, "
               "\"GB_per_s\": %.3f, \"vs_hdf5_soa\": %.2f, \"vs_memcpy\": %.3f, \"cold_s\": %.6f, \"checksum\": \"%016llx\"}%s\n",
            r->data, r->backend, r->pattern, (long long)r->mols, (long long)r->atoms, r->bytes, r->med_s, r->min_s,
            r->max_s, rate(r), r->bytes / r->med_s / 1e9, soa ? rate(r) / rate(soa) : 0, mc ? rate(r) / rate(mc) : 0,
            r->cold_s, (unsigned long long)r->checksum, i + 1 < b->n_runs ? "," : "");
  }
  fprintf(f, "  ]\n}\n");
  return ferror(f) ? -1 : 0;
}

static void bench_usage(FILE *f) {
  fprintf(f,
          "usage: sitepack bench read [--n N] [--atoms K] [--count C] [--reps R] [--seed S] [--dir DIR]\n"
          "                           [--real MERGED.h5] [--out RESULT.json] [--reuse] [--cold]\n"
          "Writes N synthetic sites of K atoms (default 1000000 x 64: positions, forces float32, atomic numbers,\n"
          "energy) in three layouts under DIR (default /tmp/sitepack-bench): the sitepack merged layout, an\n"
          "atompack-style chunked HDF5 SoA (256 molecules per chunk) and a plain SoA; times the writes; then reads\n"
          "C indices (default 10000) sequential (0..C-1) and shuffled (seeded), one warm-up then the median of R\n"
          "(default 3) passes, with: sitepack mmap (batch and per site), sitepack HDF5 hyperslabs, hdf5_soa per\n"
          "molecule, and a memcpy of the same bytes. --real adds the same reads on a merged sitepack file.\n"
          "--reuse keeps existing synthetic files; --cold adds one pass after evicting the file from the page\n"
          "cache (posix_fadvise DONTNEED on our own files only). Results: JSON to --out, progress to stderr.\n");
}

/* The options after "read" into b->o: -1 to go on, else the exit status (0 after --help). */
static int parse_bench_args(int argc, char **argv, bench *b) {
  b->o = (opts){1000000, 64, 10000, 3, 42, "/tmp/sitepack-bench", NULL, NULL, 0, 0};
  static const struct option longopts[] = {
      {"n", required_argument, NULL, 'n'},     {"atoms", required_argument, NULL, 'a'},
      {"count", required_argument, NULL, 'c'}, {"reps", required_argument, NULL, 'r'},
      {"seed", required_argument, NULL, 's'},  {"dir", required_argument, NULL, 'd'},
      {"real", required_argument, NULL, 'R'},  {"out", required_argument, NULL, 'o'},
      {"reuse", no_argument, NULL, 'u'},       {"cold", no_argument, NULL, 'C'},
      {"help", no_argument, NULL, 'h'},        {NULL, 0, NULL, 0}};
  int c;
  int64_t x;
  sp_opt_reset();
  /* argv[1] = "read": the options follow it */
  while ((c = sp_opt_next("bench read", argc - 1, argv + 1, "h", longopts)) != -1) {
    const char *name = c == 'n' ? "--n" : c == 'a' ? "--atoms" : c == 'c' ? "--count" : c == 'r' ? "--reps" : "--seed";
    int64_t hi = c == 'a' ? 100000 : c == 'r' ? 15 : INT64_MAX;
    if (c == '?' || ((c == 'n' || c == 'a' || c == 'c' || c == 'r' || c == 's') &&
                     sp_opt_int("bench read", name, optarg, 1, hi, &x)))
      return 2;
    switch (c) {
    case 'h': bench_usage(stdout); return 0;
    case 'u': b->o.reuse = 1; break;
    case 'C': b->o.cold = 1; break;
    case 'd': b->o.dir = optarg; break;
    case 'R': b->o.real = optarg; break;
    case 'o': b->o.out = optarg; break;
    case 'n': b->o.n = x; break;
    case 'a': b->o.atoms = (int)x; break;
    case 'c': b->o.count = x; break;
    case 'r': b->o.reps = (int)x; break;
    case 's': b->o.seed = (uint64_t)x; break;
    }
  }
  if (optind + 1 < argc) {
    fprintf(stderr, "sitepack bench read: unexpected argument: %s\n", argv[optind + 1]);
    return 2;
  }
  return -1;
}

/* The three synthetic files under --dir: written, or kept with --reuse when all three exist. */
static int prepare_synthetic(bench *b) {
  mkdir(b->o.dir, 0755);
  snprintf(b->paths[0], sizeof b->paths[0], "%s/synthetic_sitepack.h5", b->o.dir);
  snprintf(b->paths[1], sizeof b->paths[1], "%s/synthetic_hdf5_soa.h5", b->o.dir);
  snprintf(b->paths[2], sizeof b->paths[2], "%s/synthetic_plain_soa.bin", b->o.dir);
  int have = file_size(b->paths[0]) > 0 && file_size(b->paths[1]) > 0 && file_size(b->paths[2]) > 0;
  if (!(b->o.reuse && have)) return write_synthetic(b);
  for (int w = 0; w < 3; w++) b->sizes[w] = file_size(b->paths[w]), b->write_s[w] = -1;
  return 0;
}

/* Destination buffers large enough for every pass: the synthetic count, and the real file's atoms. */
static int alloc_out(const bench *b, rd_out *o) {
  const int64_t A = (int64_t)b->o.atoms * (b->o.count < b->o.n ? b->o.count : b->o.n);
  size_t cap = (size_t)A + 1;
  if (b->o.real) {
    sp_err err = {0};
    sp_reader *rd = sp_reader_open(b->o.real, SP_READER_AUTO, &err);
    if (!rd) { /* the class and message every reader of a merged file prints (sp_opt_input_error) */
      sp_opt_input_error("bench", b->o.real, (int)err.cls, err.msg);
      return -1;
    }
    sp_file_counts cn;
    sp_reader_counts(rd, &cn);
    if ((size_t)cn.n_atoms + 1 > cap) cap = (size_t)cn.n_atoms + 1;
    sp_reader_close(rd);
  }
  o->cap_atoms = cap;
  o->pos = malloc(cap * 32); /* also the memcpy destination: every delivered byte (<= 25 per atom + 8 per site) fits */
  o->frc = malloc(cap * 12);
  o->z = malloc(cap);
  o->flags = malloc(cap * 2);
  o->e = malloc(cap * 8);
  return o->pos && o->frc && o->z && o->flags && o->e ? 0 : -1;
}

static void free_out(rd_out *o) {
  free(o->pos);
  free(o->frc);
  free(o->z);
  free(o->flags);
  free(o->e);
}

static const char *const backend_names[5] = {"sitepack_mmap", "sitepack_hdf5", "sitepack_mmap_per_site", "hdf5_soa",
                                             "memcpy"};
static const char *const pattern_names[2] = {"sequential", "shuffled"};

/* The backends @p ks [nk] (backend_open() kinds) over one index set; hdf5_soa (3) reads @p soa_path,
 * the others @p path. Every checksum must equal sitepack_mmap's (kind 0, first); memcpy copies its bytes. */
static int measure_backends(bench *b, const char *data, const int *ks, int nk, const char *path, const char *soa_path,
                            int real, int na, const char *pattern, const int64_t *idx, size_t n, rd_out *o) {
  uint64_t ref = 0;
  double bytes_ref = 0;
  int rc = 0;
  for (int q = 0; q < nk && !rc; q++) {
    int k = ks[q];
    uint64_t s = 0;
    rc = measure(b, data, backend_names[k], k == 3 ? soa_path : path, k, real, na, pattern, idx, n, o, bytes_ref, &s);
    if (!rc && k == 0) {
      ref = s;
      bytes_ref = b->runs[b->n_runs - 1].bytes;
    } else if (!rc && k < 4 && s != ref) {
      fprintf(stderr, "bench: %s%s read different data than sitepack_mmap (checksum)\n", real ? "real " : "",
              backend_names[k]);
      rc = -1;
    }
  }
  return rc;
}

/* The synthetic set: every backend, sequential then shuffled indices. */
static int bench_synthetic(bench *b, rd_out *o) {
  int64_t *seq = NULL, *shuf = NULL;
  size_t n = 0;
  int rc = make_indices(b->o.n, b->o.count, b->o.seed, &seq, &shuf, &n) ? -1 : 0;
  static const int ks[5] = {0, 1, 2, 3, 4};
  for (int p = 0; p < 2 && !rc; p++)
    rc = measure_backends(b, "synthetic", ks, 5, b->paths[0], b->paths[1], 0, b->o.atoms, pattern_names[p],
                          p ? shuf : seq, n, o);
  free(seq);
  free(shuf);
  return rc;
}

/* --real: a chunked SoA copy of the merged file, then the batch, HDF5, hdf5_soa and memcpy backends. */
static int bench_real(bench *b, rd_out *o) {
  char soa[600];
  snprintf(soa, sizeof soa, "%s/real_hdf5_soa.h5", b->o.dir);
  double ws = 0;
  int rc = 0;
  b->real_size = file_size(b->o.real);
  int wr = write_real_soa(b, b->o.real, soa, &ws);
  if (wr) {
    if (wr != -2) fprintf(stderr, "bench: cannot write %s\n", soa); /* -2: the file did not open, said why */
    rc = -1;
  }
  sp_err err = {0};
  sp_reader *rd = rc ? NULL : sp_reader_open(b->o.real, SP_READER_AUTO, &err);
  sp_file_counts cn = {0};
  if (rd) sp_reader_counts(rd, &cn);
  else if (!rc) { /* the class and message every reader of a merged file prints (sp_opt_input_error) */
    sp_opt_input_error("bench", b->o.real, (int)err.cls, err.msg);
    rc = -1;
  }
  sp_reader_close(rd);
  int64_t *rseq = NULL, *rshuf = NULL;
  size_t rn = 0;
  if (!rc && cn.n_sites < 1) { /* a valid file of entries without ligands: nothing to time */
    fprintf(stderr, "bench: %s has no sites: nothing to read (--real needs a file with sites)\n", b->o.real);
    rc = -1;
  }
  if (!rc && make_indices(cn.n_sites, b->o.count, b->o.seed, &rseq, &rshuf, &rn)) {
    fprintf(stderr, "bench: out of memory for %lld indices\n", (long long)cn.n_sites);
    rc = -1;
  }
  static const int ks[4] = {0, 1, 3, 4};
  for (int p = 0; p < 2 && !rc; p++)
    rc = measure_backends(b, "real", ks, 4, b->o.real, soa, 1, 0, pattern_names[p], p ? rshuf : rseq, rn, o);
  free(rseq);
  free(rshuf);
  return rc;
}

int sp_cmd_bench(int argc, char **argv) {
  if (argc < 2 || strcmp(argv[1], "read") != 0) {
    bench_usage(argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) ? stdout : stderr);
    return argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) ? 0 : 2;
  }
  bench *b = calloc(1, sizeof *b);
  if (!b) return 1;
  int status = parse_bench_args(argc, argv, b);
  if (status >= 0) {
    free(b);
    return status;
  }
  getloadavg(b->load_before, 3);
  rd_out o = {0};
  int rc = prepare_synthetic(b);
  if (!rc) rc = alloc_out(b, &o);
  if (!rc) rc = bench_synthetic(b, &o);
  if (!rc && b->o.real) rc = bench_real(b, &o);
  getloadavg(b->load_after, 3);
  if (!rc) {
    FILE *f = b->o.out ? fopen(b->o.out, "w") : stdout;
    if (!f || write_json(b, f)) {
      fprintf(stderr, "bench: cannot write %s: %s\n", b->o.out ? b->o.out : "stdout", strerror(errno));
      rc = -1;
    }
    if (f && f != stdout) fclose(f);
  }
  free_out(&o);
  free(b);
  return rc ? 1 : 0;
}

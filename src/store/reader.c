/* Fast reader of merged sitepack files: mmap + dataset offsets, HDF5 hyperslab fallback (reader.h). */
#include "sitepack/reader.h"
#include "sitepack/store.h"
#include "store_internal.h"
#include "sitepack/base.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define RD_MAX_COLS 16

/* One dataset the reader uses. */
typedef struct rcol {
  char name[64];       /* full path, e.g. "/atoms/position" */
  hid_t d;             /* open dataset */
  hid_t memtype;       /* native type for the H5Dread fallback */
  int rank;
  hsize_t dims[2];
  size_t elsize;       /* bytes of one element */
  size_t row_bytes;    /* elsize * dims[1] (rank 2) */
  const char *base;    /* mapped address of row 0; NULL: read through HDF5 */
} rcol;

struct sp_reader {
  char *path;
  unsigned flags;
  hid_t file;
  int fd;
  void *map;
  size_t map_len;
  uint64_t file_size;
  int64_t n_sites, n_atoms;
  int64_t *atom_ptr;   /* N+1, in memory */
  int32_t *n_ligand;   /* N, in memory; NULL when the file has no /sites/n_ligand */
  sp_file_counts counts;
  size_t n_cols;
  rcol cols[RD_MAX_COLS];
};

static int host_is_le(void) {
  const uint16_t one = 1;
  unsigned char b;
  memcpy(&b, &one, 1);
  return b == 1;
}

static int64_t first_dim(hid_t file, const char *name) {
  if (H5Lexists(file, name, H5P_DEFAULT) <= 0) return -1;
  hid_t d = H5Dopen2(file, name, H5P_DEFAULT);
  if (d < 0) return -1;
  hid_t sp = H5Dget_space(d);
  hsize_t dims[4] = {0};
  int nd = sp >= 0 ? H5Sget_simple_extent_ndims(sp) : -1;
  if (nd >= 1 && nd <= 4) H5Sget_simple_extent_dims(sp, dims, NULL);
  if (sp >= 0) H5Sclose(sp);
  H5Dclose(d);
  return nd >= 1 && nd <= 4 ? (int64_t)dims[0] : -1;
}

/* Does "/a/b" exist (every link on the way)? */
static int path_exists(hid_t file, const char *name) {
  char buf[128];
  snprintf(buf, sizeof buf, "%s", name);
  for (char *p = buf + 1; *p; p++) {
    if (*p == '/') {
      *p = '\0';
      int e = H5Lexists(file, buf, H5P_DEFAULT);
      *p = '/';
      if (e <= 0) return 0;
    }
  }
  return H5Lexists(file, buf, H5P_DEFAULT) > 0;
}

static void col_close(rcol *c) {
  if (c->memtype >= 0) H5Tclose(c->memtype);
  if (c->d >= 0) H5Dclose(c->d);
  c->memtype = c->d = -1;
}

/* Open dataset @p name as a column whose first dimension must be @p rows. Returns the column,
 * or NULL with err set (SP_E_NOT_FOUND, SP_E_FORMAT, SP_E_INVALID when the cache is full). */
static rcol *get_col(sp_reader *r, const char *name, int64_t rows, sp_err *err) {
  for (size_t i = 0; i < r->n_cols; i++)
    if (!strcmp(r->cols[i].name, name)) {
      if ((int64_t)r->cols[i].dims[0] != rows) {
        sp_err_set(err, SP_E_FORMAT, "%s: %s has %llu rows, expected %lld", r->path, name,
                   (unsigned long long)r->cols[i].dims[0], (long long)rows);
        return NULL;
      }
      return &r->cols[i];
    }
  if (strlen(name) >= sizeof r->cols[0].name || name[0] != '/') {
    sp_err_set(err, SP_E_INVALID, "dataset name '%s' must be an absolute path under 64 bytes", name);
    return NULL;
  }
  if (r->n_cols == RD_MAX_COLS) {
    sp_err_set(err, SP_E_INVALID, "%s: more than %d different datasets opened by one reader", r->path, RD_MAX_COLS);
    return NULL;
  }
  if (!path_exists(r->file, name)) {
    H5Eclear2(H5E_DEFAULT);
    sp_err_set(err, SP_E_NOT_FOUND, "%s: no dataset %s", r->path, name);
    return NULL;
  }
  rcol c;
  memset(&c, 0, sizeof c);
  c.d = c.memtype = -1;
  snprintf(c.name, sizeof c.name, "%s", name);
  c.d = H5Dopen2(r->file, name, H5P_DEFAULT);
  if (c.d < 0) {
    sp_h5_fail(err, "cannot open dataset", name);
    return NULL;
  }
  hid_t sp = H5Dget_space(c.d), ft = H5Dget_type(c.d), dcpl = H5Dget_create_plist(c.d);
  int ok = sp >= 0 && ft >= 0 && dcpl >= 0;
  c.rank = ok ? H5Sget_simple_extent_ndims(sp) : -1;
  ok = ok && (c.rank == 1 || c.rank == 2) && H5Sget_simple_extent_dims(sp, c.dims, NULL) >= 0;
  if (c.rank == 1) c.dims[1] = 1;
  H5T_class_t cls = ok ? H5Tget_class(ft) : H5T_NO_CLASS;
  ok = ok && (cls == H5T_INTEGER || cls == H5T_FLOAT || (cls == H5T_STRING && H5Tis_variable_str(ft) == 0));
  if (ok) {
    c.elsize = H5Tget_size(ft);
    c.row_bytes = c.elsize * (size_t)c.dims[1];
    c.memtype = cls == H5T_STRING ? H5Tcopy(ft) : H5Tget_native_type(ft, H5T_DIR_ASCEND);
    ok = c.memtype >= 0 && H5Tget_size(c.memtype) == c.elsize;
  }
  if (ok && (int64_t)c.dims[0] != rows) {
    sp_err_set(err, SP_E_FORMAT, "%s: %s has %llu rows, expected %lld", r->path, name, (unsigned long long)c.dims[0],
               (long long)rows);
    ok = -1;
  }
  if (ok == 1 && r->map) {
    /* mapped when contiguous, unfiltered, allocated, inside the file, and stored as the host reads it */
    H5T_order_t ord = H5Tget_order(ft);
    haddr_t off = H5Dget_offset(c.d);
    uint64_t bytes = (uint64_t)c.dims[0] * c.row_bytes;
    int le = cls == H5T_STRING || c.elsize == 1 || ord == H5T_ORDER_LE;
    if (H5Pget_layout(dcpl) == H5D_CONTIGUOUS && H5Pget_nfilters(dcpl) == 0 && le && host_is_le() &&
        off != HADDR_UNDEF && off <= r->file_size && bytes <= r->file_size - off)
      c.base = (const char *)r->map + off;
    else if (bytes == 0)
      c.base = (const char *)r->map; /* nothing to copy */
    H5Eclear2(H5E_DEFAULT);
  }
  if (sp >= 0) H5Sclose(sp);
  if (ft >= 0) H5Tclose(ft);
  if (dcpl >= 0) H5Pclose(dcpl);
  if (ok != 1) {
    if (ok == 0) sp_err_set(err, SP_E_FORMAT, "%s: %s has an unsupported shape or type", r->path, name);
    col_close(&c);
    return NULL;
  }
  r->cols[r->n_cols] = c;
  return &r->cols[r->n_cols++];
}

static int read_all(hid_t d, hid_t mt, void *buf) { return H5Dread(d, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0 ? -1 : 0; }

static int open_body(sp_reader *r, sp_err *err) {
  struct stat st;
  int64_t ver = 0; /* versions 2 to 8: the datasets read here are the same in all */
  int rc = sp_h5_open_merged(r->path, &r->file, &ver, &st, err); /* one diagnosis for all readers (h5util.h) */
  if (rc) return rc;
  r->file_size = (uint64_t)st.st_size;
  if (!(r->flags & SP_READER_HDF5) && r->file_size > 0 && r->file_size <= (uint64_t)SIZE_MAX) {
    r->fd = open(r->path, O_RDONLY | O_CLOEXEC);
    if (r->fd >= 0) {
      void *m = mmap(NULL, (size_t)r->file_size, PROT_READ, MAP_SHARED, r->fd, 0);
      if (m != MAP_FAILED) {
        r->map = m;
        r->map_len = (size_t)r->file_size;
      }
    }
  }
  int64_t np1 = first_dim(r->file, "/sites/atom_ptr");
  if (np1 < 1) {
    H5Eclear2(H5E_DEFAULT);
    return sp_err_set(err, SP_E_FORMAT, "%s: missing or empty /sites/atom_ptr", r->path);
  }
  r->n_sites = np1 - 1;
  r->atom_ptr = malloc((size_t)np1 * sizeof *r->atom_ptr);
  if (!r->atom_ptr) return sp_err_set(err, SP_E_NOMEM, "out of memory reading atom_ptr of %s", r->path);
  rcol *ap = get_col(r, "/sites/atom_ptr", np1, err);
  if (!ap) return err ? err->cls : SP_E_FORMAT;
  if (ap->elsize != 8 || ap->rank != 1 || H5Tget_class(ap->memtype) != H5T_INTEGER)
    return sp_err_set(err, SP_E_FORMAT, "%s: /sites/atom_ptr is not a 1-D int64 dataset", r->path);
  if (read_all(ap->d, H5T_NATIVE_INT64, r->atom_ptr) < 0) return sp_h5_fail(err, "cannot read /sites/atom_ptr", r->path);
  int64_t a_rows = first_dim(r->file, "/atoms/position");
  if (a_rows < 0) {
    H5Eclear2(H5E_DEFAULT);
    return sp_err_set(err, SP_E_FORMAT, "%s: missing /atoms/position", r->path);
  }
  if (r->atom_ptr[0] != 0)
    return sp_err_set(err, SP_E_FORMAT, "%s: /sites/atom_ptr[0] = %lld, expected 0", r->path, (long long)r->atom_ptr[0]);
  for (int64_t i = 0; i < r->n_sites; i++) {
    int64_t d = r->atom_ptr[i + 1] - r->atom_ptr[i];
    if (r->atom_ptr[i + 1] < r->atom_ptr[i] || d > INT32_MAX)
      return sp_err_set(err, SP_E_FORMAT, "%s: /sites/atom_ptr is not non-decreasing at site %lld (%lld then %lld)",
                        r->path, (long long)i, (long long)r->atom_ptr[i], (long long)r->atom_ptr[i + 1]);
  }
  r->n_atoms = r->atom_ptr[r->n_sites];
  if (r->n_atoms != a_rows)
    return sp_err_set(err, SP_E_FORMAT, "%s: /sites/atom_ptr ends at %lld, /atoms/position has %lld rows", r->path,
                      (long long)r->n_atoms, (long long)a_rows);
  rcol *pos = get_col(r, "/atoms/position", r->n_atoms, err);
  if (!pos) return err ? err->cls : SP_E_FORMAT;
  if (pos->rank != 2 || pos->dims[1] != 3 || pos->elsize != 4 || H5Tget_class(pos->memtype) != H5T_FLOAT)
    return sp_err_set(err, SP_E_FORMAT, "%s: /atoms/position is not float32 (A,3)", r->path);
  sp_err tmp = {0};
  rcol *el = get_col(r, "/atoms/element", r->n_atoms, &tmp);
  if (el && el->row_bytes != 1) return sp_err_set(err, SP_E_FORMAT, "%s: /atoms/element is not uint8", r->path);
  if (!el && tmp.cls != SP_E_NOT_FOUND) return sp_err_set(err, tmp.cls, "%s", tmp.msg);
  rcol *fl = get_col(r, "/atoms/flags", r->n_atoms, &tmp);
  if (fl && fl->row_bytes != 2) return sp_err_set(err, SP_E_FORMAT, "%s: /atoms/flags is not uint16", r->path);
  if (!fl && tmp.cls != SP_E_NOT_FOUND) return sp_err_set(err, tmp.cls, "%s", tmp.msg);
  rcol *nl = get_col(r, "/sites/n_ligand", r->n_sites, &tmp);
  if (nl) {
    r->n_ligand = malloc((size_t)(r->n_sites ? r->n_sites : 1) * sizeof *r->n_ligand);
    if (!r->n_ligand) return sp_err_set(err, SP_E_NOMEM, "out of memory reading n_ligand of %s", r->path);
    if (nl->row_bytes != 4 || read_all(nl->d, H5T_NATIVE_INT32, r->n_ligand) < 0)
      return sp_h5_fail(err, "cannot read /sites/n_ligand", r->path);
    for (int64_t i = 0; i < r->n_sites; i++) /* handed to the caller as the ligand's atoms of the site: in range */
      if (r->n_ligand[i] < 0 || r->n_ligand[i] > r->atom_ptr[i + 1] - r->atom_ptr[i])
        return sp_err_set(err, SP_E_FORMAT, "%s: site %lld: n_ligand %d outside [0, n_atoms %lld]", r->path,
                          (long long)i, r->n_ligand[i], (long long)(r->atom_ptr[i + 1] - r->atom_ptr[i]));
  } else if (tmp.cls != SP_E_NOT_FOUND) {
    return sp_err_set(err, tmp.cls, "%s", tmp.msg);
  }
  H5Eclear2(H5E_DEFAULT);
  r->counts.n_sites = r->n_sites;
  r->counts.n_atoms = r->n_atoms;
  int64_t v;
  r->counts.n_structures = (v = first_dim(r->file, "/structures/path")) > 0 ? v : 0;
  r->counts.n_ligands = (v = first_dim(r->file, "/ligands/structure_idx")) > 0 ? v : 0;
  r->counts.n_residues = (v = first_dim(r->file, "/residues/site_idx")) > 0 ? v : 0;
  H5Eclear2(H5E_DEFAULT);
  return 0;
}

sp_reader *sp_reader_open(const char *path, unsigned flags, sp_err *err) {
  if (!path) {
    sp_err_set(err, SP_E_INVALID, "sp_reader_open: NULL path");
    return NULL;
  }
  if (flags & ~(unsigned)SP_READER_HDF5) {
    sp_err_set(err, SP_E_INVALID, "sp_reader_open: unknown flags 0x%x", flags);
    return NULL;
  }
  sp_reader *r = calloc(1, sizeof *r);
  char *p = r ? strdup(path) : NULL;
  if (!r || !p) {
    free(r);
    sp_err_set(err, SP_E_NOMEM, "out of memory opening %s", path);
    return NULL;
  }
  r->path = p;
  r->flags = flags;
  r->file = -1;
  r->fd = -1;
  sp_h5_quiet q;
  sp_h5_quiet_begin(&q);
  int rc = open_body(r, err);
  H5Eclear2(H5E_DEFAULT);
  sp_h5_quiet_end(&q);
  if (rc) {
    sp_reader_close(r);
    return NULL;
  }
  return r;
}

void sp_reader_close(sp_reader *r) {
  if (!r) return;
  sp_h5_quiet q;
  sp_h5_quiet_begin(&q);
  for (size_t i = 0; i < r->n_cols; i++) col_close(&r->cols[i]);
  if (r->file >= 0) H5Fclose(r->file);
  H5Eclear2(H5E_DEFAULT);
  sp_h5_quiet_end(&q);
  if (r->map) munmap(r->map, r->map_len);
  if (r->fd >= 0) close(r->fd);
  free(r->atom_ptr);
  free(r->n_ligand);
  free(r->path);
  free(r);
}

int sp_reader_counts(const sp_reader *r, sp_file_counts *out) {
  if (!r || !out) return SP_E_INVALID;
  *out = r->counts;
  return 0;
}

static const char *field_name(unsigned field) {
  switch (field) {
    case SP_FIELD_POSITION: return "/atoms/position";
    case SP_FIELD_ELEMENT: return "/atoms/element";
    case SP_FIELD_FLAGS: return "/atoms/flags";
    default: return NULL;
  }
}

static rcol *find_col(const sp_reader *r, const char *name) {
  for (size_t i = 0; i < r->n_cols; i++)
    if (!strcmp(r->cols[i].name, name)) return (rcol *)&r->cols[i];
  return NULL;
}

int sp_reader_field_mapped(const sp_reader *r, unsigned field) {
  const char *nm = r ? field_name(field) : NULL;
  const rcol *c = nm ? find_col(r, nm) : NULL;
  if (!c) return -1;
  return c->base != NULL;
}

int sp_reader_site_range(const sp_reader *r, int64_t i, int64_t *a0, int64_t *a1) {
  if (!r || !a0 || !a1 || i < 0 || i >= r->n_sites) return SP_E_INVALID;
  *a0 = r->atom_ptr[i];
  *a1 = r->atom_ptr[i + 1];
  return 0;
}

static int grow(void **p, size_t n, size_t elsize) {
  void *q = sp_realloc_array(*p, n, elsize);
  if (!q) return -1;
  *p = q;
  return 0;
}

/* Copy rows [a0, a0+cnt) of column c to dst, through the map or one H5Dread. */
static int copy_rows(const sp_reader *r, rcol *c, hid_t fspace, int64_t a0, int64_t cnt, char *dst, sp_err *err) {
  if (cnt == 0) return 0;
  if (c->base) {
    memcpy(dst, c->base + (size_t)a0 * c->row_bytes, (size_t)cnt * c->row_bytes);
    return 0;
  }
  hsize_t st[2] = {(hsize_t)a0, 0}, n[2] = {(hsize_t)cnt, c->dims[1]};
  hid_t ms = H5Screate_simple(c->rank, n, NULL);
  int ok = ms >= 0 && H5Sselect_hyperslab(fspace, H5S_SELECT_SET, st, NULL, n, NULL) >= 0 &&
           H5Dread(c->d, c->memtype, ms, fspace, H5P_DEFAULT, dst) >= 0;
  int rc = ok ? 0 : sp_h5_fail(err, "cannot read", c->name);
  if (ms >= 0) H5Sclose(ms);
  (void)r;
  return rc;
}

/* Gather rows of column c: per item k, rows [lo[k], lo[k] + cnt[k]) -> dst at out_row[k]. */
static int gather_col(sp_reader *r, rcol *c, size_t n, const int64_t *lo, const int64_t *hi, char *dst, sp_err *err) {
  hid_t fs = -1;
  if (!c->base && (fs = H5Dget_space(c->d)) < 0) return sp_h5_fail(err, "cannot read", c->name);
  int rc = 0;
  if (c->base) {
    /* the fast path: one memcpy per item, no HDF5 call */
    const size_t rb = c->row_bytes;
    for (size_t k = 0; k < n; k++) {
      size_t len = (size_t)(hi[k] - lo[k]) * rb;
      memcpy(dst, c->base + (size_t)lo[k] * rb, len);
      dst += len;
    }
  } else {
    for (size_t k = 0; k < n && !rc; k++) {
      rc = copy_rows(r, c, fs, lo[k], hi[k] - lo[k], dst, err);
      dst += (size_t)(hi[k] - lo[k]) * c->row_bytes;
    }
  }
  if (fs >= 0) H5Sclose(fs);
  return rc;
}

int sp_reader_read_sites(sp_reader *r, const int64_t *idx, size_t n, unsigned fields, sp_site_batch *b, sp_err *err) {
  if (!r || !b || (n && !idx)) return sp_err_set(err, SP_E_INVALID, "sp_reader_read_sites: NULL argument");
  if (fields & ~(unsigned)SP_FIELD_ALL)
    return sp_err_set(err, SP_E_INVALID, "sp_reader_read_sites: unknown field bits 0x%x", fields);
  int64_t total = 0;
  for (size_t k = 0; k < n; k++) {
    if (idx[k] < 0 || idx[k] >= r->n_sites)
      return sp_err_set(err, SP_E_INVALID, "site index %lld out of range [0, %lld) at position %zu", (long long)idx[k],
                        (long long)r->n_sites, k);
    total += r->atom_ptr[idx[k] + 1] - r->atom_ptr[idx[k]];
  }
  rcol *cols[3] = {NULL, NULL, NULL};
  for (int f = 0; f < 3; f++) {
    unsigned bit = 1u << f;
    if (!(fields & bit)) continue;
    cols[f] = find_col(r, field_name(bit));
    if (!cols[f]) return sp_err_set(err, SP_E_NOT_FOUND, "%s: no dataset %s", r->path, field_name(bit));
  }
  if (n + 1 > b->cap_sites) {
    size_t c = n + 1 > 2 * b->cap_sites ? n + 1 : 2 * b->cap_sites;
    if (grow((void **)&b->n_atoms_site, c, sizeof(int32_t)) || grow((void **)&b->n_ligand, c, sizeof(int32_t)) ||
        grow((void **)&b->atom_start, c, sizeof(int64_t)))
      return sp_err_set(err, SP_E_NOMEM, "out of memory for a batch of %zu sites", n);
    b->cap_sites = c;
  }
  if ((size_t)total > b->cap_atoms || (fields && (((fields & SP_FIELD_POSITION) && !b->position) ||
                                                  ((fields & SP_FIELD_ELEMENT) && !b->element) ||
                                                  ((fields & SP_FIELD_FLAGS) && !b->flags)))) {
    size_t c = (size_t)total > 2 * b->cap_atoms ? (size_t)total : 2 * b->cap_atoms;
    if (c < b->cap_atoms) c = b->cap_atoms;
    /* every atom array of the batch has the same capacity, requested or not */
    if (grow((void **)&b->position, c, 3 * sizeof(float)) || grow((void **)&b->element, c, 1) ||
        grow((void **)&b->flags, c, sizeof(uint16_t)))
      return sp_err_set(err, SP_E_NOMEM, "out of memory for a batch of %lld atoms", (long long)total);
    b->cap_atoms = c;
  }
  /* per-site counts; lo/hi ranges reuse atom_start storage: lo = atom_ptr[idx], computed on the fly */
  int64_t acc = 0;
  for (size_t k = 0; k < n; k++) {
    int64_t i = idx[k], na = r->atom_ptr[i + 1] - r->atom_ptr[i];
    b->atom_start[k] = acc;
    b->n_atoms_site[k] = (int32_t)na;
    b->n_ligand[k] = r->n_ligand ? r->n_ligand[i] : 0;
    acc += na;
  }
  b->atom_start[n] = acc;
  b->n_sites = n;
  b->n_atoms = (size_t)acc;
  char *dst[3] = {(char *)b->position, (char *)b->element, (char *)b->flags};
  for (int f = 0; f < 3; f++) {
    rcol *c = cols[f];
    if (!c) continue;
    char *o = dst[f];
    if (c->base) {
      const size_t rb = c->row_bytes;
      const char *base = c->base;
      for (size_t k = 0; k < n; k++) {
        int64_t a0 = r->atom_ptr[idx[k]];
        size_t len = (size_t)(r->atom_ptr[idx[k] + 1] - a0) * rb;
        memcpy(o, base + (size_t)a0 * rb, len);
        o += len;
      }
    } else {
      sp_h5_quiet q;
      sp_h5_quiet_begin(&q);
      hid_t fs = H5Dget_space(c->d);
      int rc = fs < 0 ? sp_h5_fail(err, "cannot read", c->name) : 0;
      for (size_t k = 0; k < n && !rc; k++) {
        int64_t a0 = r->atom_ptr[idx[k]], cnt = r->atom_ptr[idx[k] + 1] - a0;
        rc = copy_rows(r, c, fs, a0, cnt, o, err);
        o += (size_t)cnt * c->row_bytes;
      }
      if (fs >= 0) H5Sclose(fs);
      H5Eclear2(H5E_DEFAULT);
      sp_h5_quiet_end(&q);
      if (rc) return rc;
    }
  }
  return 0;
}

int sp_reader_read_site(sp_reader *r, int64_t i, unsigned fields, sp_site_batch *b, sp_err *err) {
  return sp_reader_read_sites(r, &i, 1, fields, b, err);
}

static int gather_common(sp_reader *r, const char *dataset, const int64_t *idx, size_t n, void *out,
                         size_t out_bytes, size_t *row_bytes, int atoms, sp_err *err) {
  if (!r || !dataset || (n && (!idx || !out)))
    return sp_err_set(err, SP_E_INVALID, "sp_reader_gather_%s: NULL argument", atoms ? "atoms" : "sites");
  sp_h5_quiet q;
  sp_h5_quiet_begin(&q);
  rcol *c = get_col(r, dataset, atoms ? r->n_atoms : r->n_sites, err);
  sp_h5_quiet_end(&q);
  if (!c) return err ? err->cls : SP_E_FORMAT;
  if (row_bytes) *row_bytes = c->row_bytes;
  uint64_t rows = 0;
  for (size_t k = 0; k < n; k++) {
    if (idx[k] < 0 || idx[k] >= r->n_sites)
      return sp_err_set(err, SP_E_INVALID, "site index %lld out of range [0, %lld) at position %zu", (long long)idx[k],
                        (long long)r->n_sites, k);
    rows += atoms ? (uint64_t)(r->atom_ptr[idx[k] + 1] - r->atom_ptr[idx[k]]) : 1u;
  }
  if (rows * c->row_bytes > out_bytes)
    return sp_err_set(err, SP_E_INVALID, "%s: output buffer of %zu bytes, %llu needed", dataset, out_bytes,
                      (unsigned long long)(rows * c->row_bytes));
  if (n == 0) return 0;
  int64_t *lo = malloc(2 * n * sizeof *lo);
  if (!lo) return sp_err_set(err, SP_E_NOMEM, "out of memory gathering %s", dataset);
  int64_t *hi = lo + n;
  for (size_t k = 0; k < n; k++) {
    lo[k] = atoms ? r->atom_ptr[idx[k]] : idx[k];
    hi[k] = atoms ? r->atom_ptr[idx[k] + 1] : idx[k] + 1;
  }
  sp_h5_quiet_begin(&q);
  int rc = gather_col(r, c, n, lo, hi, out, err);
  H5Eclear2(H5E_DEFAULT);
  sp_h5_quiet_end(&q);
  free(lo);
  return rc;
}

int sp_reader_gather_atoms(sp_reader *r, const char *dataset, const int64_t *idx, size_t n, void *out,
                           size_t out_bytes, size_t *row_bytes, sp_err *err) {
  return gather_common(r, dataset, idx, n, out, out_bytes, row_bytes, 1, err);
}

int sp_reader_gather_sites(sp_reader *r, const char *dataset, const int64_t *idx, size_t n, void *out,
                           size_t out_bytes, size_t *row_bytes, sp_err *err) {
  return gather_common(r, dataset, idx, n, out, out_bytes, row_bytes, 0, err);
}

void sp_site_batch_free(sp_site_batch *b) {
  if (!b) return;
  free(b->position);
  free(b->element);
  free(b->flags);
  free(b->n_atoms_site);
  free(b->n_ligand);
  free(b->atom_start);
  memset(b, 0, sizeof *b);
}

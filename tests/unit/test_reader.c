/* Reader (reader.h) and sp_check (store.h) on the merged files left by test_store (fixture
 * store_h5_files): values encoded by test_store's synthetic tasks, mapped vs HDF5 paths, a chunked
 * (non-mappable) dataset, every error return, and corrupted copies (truncated, a flipped byte in
 * atom_ptr, a deleted dataset, a ligand flag cleared). Usage: test_reader DIR. */
#include <hdf5.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sitepack/reader.h"
#include "sitepack/site.h"
#include "sitepack/store.h"
#include "store/store_internal.h"

#include "sp_test.h"

static char DIR_[1024];

static void pathf(char *buf, size_t cap, const char *name) { snprintf(buf, cap, "%s/%s", DIR_, name); }

static int copy_file(const char *src, const char *dst) {
  FILE *a = fopen(src, "rb"), *b = fopen(dst, "wb");
  int rc = a && b ? 0 : -1;
  char buf[65536];
  size_t n;
  while (!rc && (n = fread(buf, 1, sizeof buf, a)) > 0)
    if (fwrite(buf, 1, n, b) != n) rc = -1;
  if (a) fclose(a);
  if (b && fclose(b) != 0) rc = -1;
  return rc;
}

/* Expected sites of test_store's tasks in merge order: (file_idx, part*100+local site, first local atom,
 * n_ligand, n_atoms). */
typedef struct exp_site { int file, key, atom0, n_lig, n_atoms; } exp_site;
static const exp_site EXP[6] = {
    {0, 0, 0, 31, 43}, {0, 1, 43, 1, 7}, {2, 0, 0, 14, 23}, {2, 100, 0, 14, 22}, {4, 0, 0, 8, 14}, {5, 0, 0, 31, 6031},
};

static void check_batch(const sp_site_batch *b, const int64_t *idx, size_t n, const char *what) {
  CHECK(b->n_sites == n, "%s: n_sites %zu", what, b->n_sites);
  int64_t acc = 0;
  for (size_t k = 0; k < n; k++) {
    const exp_site *e = &EXP[idx[k]];
    CHECK(b->atom_start[k] == acc, "%s: atom_start[%zu] = %lld, expected %lld", what, k, (long long)b->atom_start[k],
          (long long)acc);
    CHECK(b->n_atoms_site[k] == e->n_atoms && b->n_ligand[k] == e->n_lig, "%s: site %lld counts %d/%d, expected %d/%d",
          what, (long long)idx[k], b->n_atoms_site[k], b->n_ligand[k], e->n_atoms, e->n_lig);
    for (int a = 0; a < e->n_atoms && a < b->n_atoms_site[k]; a++) {
      const float *p = b->position + 3 * (size_t)(acc + a);
      int lig = a < e->n_lig;
      if (p[0] != (float)e->file || p[1] != (float)e->key || p[2] != (float)(e->atom0 + a) ||
          b->element[acc + a] != (lig ? 6 : 7) ||
          b->flags[acc + a] != (lig ? SP_SITE_ATOM_LIGAND : SP_SITE_ATOM_POLYMER)) {
        CHECK(0, "%s: site %lld atom %d: (%g %g %g) element %u flags %u", what, (long long)idx[k], a, p[0], p[1], p[2],
              b->element[acc + a], b->flags[acc + a]);
        break;
      }
    }
    acc += e->n_atoms;
  }
  CHECK(b->n_atoms == (size_t)acc && b->atom_start[n] == acc, "%s: n_atoms %zu, expected %lld", what, b->n_atoms,
        (long long)acc);
}

static void check_reader(const char *path, unsigned flags, int expect_mapped) {
  sp_err e = {0};
  sp_reader *r = sp_reader_open(path, flags, &e);
  CHECK(r != NULL, "open %s: %s", path, e.msg);
  if (!r) return;
  sp_file_counts c;
  CHECK(sp_reader_counts(r, &c) == 0, "counts");
  CHECK(c.n_structures == 6 && c.n_ligands == 8 && c.n_sites == 6 && c.n_atoms == 6140,
        "counts %lld %lld %lld %lld", (long long)c.n_structures, (long long)c.n_ligands, (long long)c.n_sites,
        (long long)c.n_atoms);
  CHECK(sp_reader_field_mapped(r, SP_FIELD_POSITION) == expect_mapped, "position mapped %d, expected %d",
        sp_reader_field_mapped(r, SP_FIELD_POSITION), expect_mapped);
  int64_t a0, a1;
  CHECK(sp_reader_site_range(r, 5, &a0, &a1) == 0 && a0 == 109 && a1 == 6140, "site 5 range %lld %lld", (long long)a0,
        (long long)a1);
  CHECK(sp_reader_site_range(r, 6, &a0, &a1) == SP_E_INVALID, "site 6 is out of range");
  sp_site_batch b = {0};
  const int64_t idx[] = {3, 0, 5, 3, 1, 2, 4};
  CHECK(sp_reader_read_sites(r, idx, 7, SP_FIELD_ALL, &b, &e) == 0, "read_sites: %s", e.msg);
  check_batch(&b, idx, 7, flags ? "hdf5 batch" : "auto batch");
  CHECK(sp_reader_read_site(r, 1, SP_FIELD_ALL, &b, &e) == 0, "read_site: %s", e.msg);
  const int64_t one = 1;
  check_batch(&b, &one, 1, "one site (buffers reused)");
  CHECK(sp_reader_read_sites(r, idx, 0, SP_FIELD_ALL, &b, &e) == 0 && b.n_atoms == 0 && b.n_sites == 0, "empty batch");
  /* generic gathers: b_iso = 20 + atom index in its residue; center = (file, local ligand, -1.5) */
  float biso[64], center[6];
  size_t rb = 0;
  CHECK(sp_reader_gather_atoms(r, "/atoms/b_iso", &one, 1, biso, sizeof biso, &rb, &e) == 0 && rb == 4,
        "gather b_iso: %s", e.msg);
  CHECK(biso[0] == 20.0f && biso[1] == 20.0f && biso[2] == 21.0f, "b_iso of site 1: %g %g %g", biso[0], biso[1], biso[2]);
  const int64_t two[] = {4, 1};
  CHECK(sp_reader_gather_sites(r, "/sites/center", two, 2, center, sizeof center, &rb, &e) == 0 && rb == 12,
        "gather center: %s", e.msg);
  CHECK(center[0] == 4.0f && center[1] == 0.0f && center[2] == -1.5f && center[3] == 0.0f && center[4] == 1.0f,
        "centers %g %g %g / %g %g", center[0], center[1], center[2], center[3], center[4]);
  /* errors */
  const int64_t bad[] = {0, 6};
  CHECK(sp_reader_read_sites(r, bad, 2, SP_FIELD_ALL, &b, &e) == SP_E_INVALID && strstr(e.msg, "out of range"),
        "index 6: %s", e.msg);
  const int64_t neg = -1;
  CHECK(sp_reader_read_sites(r, &neg, 1, SP_FIELD_POSITION, &b, &e) == SP_E_INVALID, "index -1");
  CHECK(sp_reader_read_sites(r, idx, 1, 1u << 7, &b, &e) == SP_E_INVALID, "unknown field bit");
  CHECK(sp_reader_gather_atoms(r, "/atoms/force", &one, 1, biso, sizeof biso, NULL, &e) == SP_E_NOT_FOUND,
        "no /atoms/force: %d %s", e.cls, e.msg);
  CHECK(sp_reader_gather_atoms(r, "/atoms/b_iso", &one, 1, biso, 8, NULL, &e) == SP_E_INVALID && strstr(e.msg, "28"),
        "small buffer: %s", e.msg);
  CHECK(sp_reader_gather_sites(r, "/atoms/b_iso", &one, 1, biso, sizeof biso, NULL, &e) == SP_E_FORMAT,
        "per-atom dataset as per-site: %s", e.msg);
  sp_site_batch_free(&b);
  sp_reader_close(r);
}

/* Replace /atoms/position by a chunked copy: the reader must fall back to H5Dread for it. */
static int rechunk_position(const char *path) {
  hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
  if (f < 0) return -1;
  hid_t d = H5Dopen2(f, "/atoms/position", H5P_DEFAULT);
  hid_t sp = H5Dget_space(d);
  hsize_t dims[2];
  H5Sget_simple_extent_dims(sp, dims, NULL);
  float *buf = malloc(dims[0] * 3 * sizeof *buf);
  int rc = buf && H5Dread(d, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) >= 0 ? 0 : -1;
  H5Dclose(d);
  H5Ldelete(f, "/atoms/position", H5P_DEFAULT);
  hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
  hsize_t ch[2] = {100, 3};
  H5Pset_chunk(dcpl, 2, ch);
  H5Pset_deflate(dcpl, 1);
  d = H5Dcreate2(f, "/atoms/position", H5T_IEEE_F32LE, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
  if (d < 0 || H5Dwrite(d, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0) rc = -1;
  if (d >= 0) H5Dclose(d);
  H5Pclose(dcpl);
  H5Sclose(sp);
  H5Fclose(f);
  free(buf);
  return rc;
}

/* Byte offset of a dataset in the file. */
static long long ds_offset(const char *path, const char *name) {
  hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  hid_t d = f >= 0 ? H5Dopen2(f, name, H5P_DEFAULT) : -1;
  haddr_t off = d >= 0 ? H5Dget_offset(d) : HADDR_UNDEF;
  if (d >= 0) H5Dclose(d);
  if (f >= 0) H5Fclose(f);
  return off == HADDR_UNDEF ? -1 : (long long)off;
}

static int patch(const char *path, long long off, const void *bytes, size_t n) {
  FILE *f = fopen(path, "r+b");
  if (!f) return -1;
  int rc = fseek(f, off, SEEK_SET) == 0 && fwrite(bytes, 1, n, f) == n ? 0 : -1;
  return fclose(f) == 0 ? rc : -1;
}

static void check_check(const char *good) {
  sp_err e = {0};
  sp_check_summary s;
  CHECK(sp_check(good, 100, 1, &s, &e) == 0, "check %s: %s", good, e.msg);
  /* every column of the schema plus file_idx, n_parts, ligand_ptr, site_ptr, atom_ptr, residue_ptr,
   * interaction_ptr, bond_ptr, and the chains' seq_ptr, segment_ptr */
  int64_t n_ds = 10;
  for (int t = 0; t < SP_T_COUNT; t++)
    for (size_t k = 0; k < sp_tables[t].n_cols; k++)
      n_ds += !sp_tables[t].cols[k].optional; /* optional columns (residues' symop) are absent here */
  CHECK(s.n_sites == 6 && s.n_atoms == 6140 && s.n_structures == 6 && s.n_ligands == 8 && s.n_components == 6 &&
            s.n_spot_checked == 6 && s.n_datasets == n_ds && n_ds >= 80,
        "summary %lld sites %lld atoms %lld datasets %lld spot", (long long)s.n_sites, (long long)s.n_atoms,
        (long long)s.n_datasets, (long long)s.n_spot_checked);
  CHECK(sp_check(good, 3, 7, &s, &e) == 0 && s.n_spot_checked == 3, "3 spot checks");
  char p[1200];
  /* truncated */
  pathf(p, sizeof p, "reader_trunc.h5");
  CHECK(copy_file(good, p) == 0 && truncate(p, 40000) == 0, "copy");
  CHECK(sp_check(p, 100, 1, &s, &e) == SP_E_FORMAT && strstr(e.msg, "truncated"), "truncated: %s", e.msg);
  sp_reader *r = sp_reader_open(p, 0, &e);
  CHECK(!r && e.cls == SP_E_FORMAT && strstr(e.msg, "truncated") && strstr(e.msg, SP_H5_DAMAGED_HINT), "reader on truncated: %s",
        e.msg); /* the same class and hint as sp_check (sp_h5_open_merged, issue 39) */
  sp_reader_close(r);
  /* atom_ptr[2] made smaller than atom_ptr[1] (50 -> 3): non-monotonic */
  pathf(p, sizeof p, "reader_flip.h5");
  long long off = ds_offset(good, "/sites/atom_ptr");
  unsigned char three = 3;
  CHECK(off > 0 && copy_file(good, p) == 0 && patch(p, off + 8 * 2, &three, 1) == 0, "patch atom_ptr");
  CHECK(sp_check(p, 100, 1, &s, &e) == SP_E_FORMAT && strstr(e.msg, "/sites/atom_ptr decreases at row 1"),
        "flipped atom_ptr: %s", e.msg);
  r = sp_reader_open(p, 0, &e);
  CHECK(!r && e.cls == SP_E_FORMAT && strstr(e.msg, "non-decreasing"), "reader on flipped atom_ptr: %s", e.msg);
  sp_reader_close(r);
  /* last atom_ptr value changed: does not end at the atom count */
  pathf(p, sizeof p, "reader_last.h5");
  unsigned char big = 0x7f;
  CHECK(copy_file(good, p) == 0 && patch(p, off + 8 * 6 + 3, &big, 1) == 0, "patch last");
  CHECK(sp_check(p, 100, 1, &s, &e) == SP_E_FORMAT && strstr(e.msg, "atom_ptr ends at"), "last atom_ptr: %s", e.msg);
  /* a ligand atom's flag cleared: every atom's flag is checked, with or without a spot check (export and merge
     run sp_check without one: a damaged-file hunt's cleared flags passed them) */
  pathf(p, sizeof p, "reader_flag.h5");
  long long foff = ds_offset(good, "/atoms/flags");
  const unsigned char zero2[2] = {0, 0};
  CHECK(foff > 0 && copy_file(good, p) == 0 && patch(p, foff + 2 * 43, zero2, 2) == 0, "patch flags");
  CHECK(sp_check(p, 100, 1, &s, &e) == SP_E_FORMAT && strstr(e.msg, "site 1: atom 0 ") && strstr(e.msg, "lacks"),
        "flag: %s", e.msg);
  CHECK(sp_check(p, 0, 1, &s, &e) == SP_E_FORMAT && strstr(e.msg, "site 1: atom 0 ") && strstr(e.msg, "lacks"),
        "flag without a spot check: %s", e.msg);
  /* a deleted dataset (also done with h5py in tests/peer/test_reader_h5.py) */
  pathf(p, sizeof p, "reader_del.h5");
  CHECK(copy_file(good, p) == 0, "copy");
  hid_t f = H5Fopen(p, H5F_ACC_RDWR, H5P_DEFAULT);
  CHECK(f >= 0 && H5Ldelete(f, "/residues/kind", H5P_DEFAULT) >= 0, "delete");
  if (f >= 0) H5Fclose(f);
  CHECK(sp_check(p, 100, 1, &s, &e) == SP_E_FORMAT && strstr(e.msg, "missing dataset /residues/kind"), "deleted: %s",
        e.msg);
  /* chunked + compressed position: check refuses, reader falls back and reads the same values */
  pathf(p, sizeof p, "reader_chunked.h5");
  CHECK(copy_file(good, p) == 0 && rechunk_position(p) == 0, "rechunk");
  CHECK(sp_check(p, 100, 1, &s, &e) == SP_E_FORMAT && strstr(e.msg, "/atoms/position is not contiguous"), "chunked: %s",
        e.msg);
  check_reader(p, SP_READER_AUTO, 0);
  /* not a file / not HDF5 / not sitepack */
  pathf(p, sizeof p, "reader_none.h5");
  unlink(p);
  CHECK(sp_check(p, 1, 1, &s, &e) == SP_E_NOT_FOUND, "missing: %s", e.msg);
  r = sp_reader_open(p, 0, &e);
  CHECK(!r && e.cls == SP_E_NOT_FOUND, "reader missing: %s", e.msg);
  pathf(p, sizeof p, "reader_text.h5");
  FILE *t = fopen(p, "w");
  if (t) {
    fputs("not hdf5\n", t);
    fclose(t);
  }
  CHECK(sp_check(p, 1, 1, &s, &e) == SP_E_FORMAT && strstr(e.msg, "not an HDF5"), "text: %s", e.msg);
  r = sp_reader_open(p, 0, &e);
  CHECK(!r && e.cls == SP_E_FORMAT, "reader text: %s", e.msg);
  pathf(p, sizeof p, "reader_rank.h5");
  sp_rank_writer *w = sp_rank_writer_open(p, &e);
  CHECK(w && sp_rank_writer_close(w, &e) == 0, "rank file: %s", e.msg);
  CHECK(sp_check(p, 1, 1, &s, &e) == SP_E_FORMAT && strstr(e.msg, "format"), "rank file check: %s", e.msg);
  r = sp_reader_open(p, 0, &e);
  CHECK(!r && e.cls == SP_E_FORMAT && strstr(e.msg, "a shard or per-rank file") && strstr(e.msg, "sitepack merge"), "reader rank file: %s", e.msg);
  CHECK(sp_check(NULL, 1, 1, &s, &e) == SP_E_INVALID, "NULL path");
  CHECK(!sp_reader_open(NULL, 0, &e) && e.cls == SP_E_INVALID, "NULL path reader");
  CHECK(!sp_reader_open(good, 4, &e) && e.cls == SP_E_INVALID, "bad flags");
}

/* A copy of @p good named @p name in DIR_ with n_warnings[row] set to @p n (-1: unchanged) and, when @p text,
   warnings[row] starting with it (and its NUL); @p version > 0: /structures/warnings deleted and the root
   format_version set to it. The copy's path in @p p [cap]. */
static int warn_copy(const char *good, const char *name, int row, int32_t n, const char *text, int version, char *p,
                     size_t cap) {
  pathf(p, cap, name);
  if (copy_file(good, p)) return -1;
  long long on = ds_offset(p, "/structures/n_warnings"), ow = ds_offset(p, "/structures/warnings");
  unsigned char le[4] = {(unsigned char)n, (unsigned char)(n >> 8), (unsigned char)(n >> 16), (unsigned char)(n >> 24)};
  if (n >= 0 && (on < 0 || patch(p, on + 4 * row, le, 4))) return -1;
  if (text && (ow < 0 || patch(p, ow + (long long)SP_WARNINGS_LEN * row, text, strlen(text) + 1))) return -1;
  if (version <= 0) return 0;
  hid_t f = H5Fopen(p, H5F_ACC_RDWR, H5P_DEFAULT);
  int bad = f < 0 || H5Ldelete(f, "/structures/warnings", H5P_DEFAULT) < 0 || H5Adelete(f, "format_version") < 0 ||
            sp_h5_attr_i64(f, "format_version", version) < 0;
  if (f >= 0) H5Fclose(f);
  return bad ? -1 : 0;
}

/* Format version 4: /structures/warnings against n_warnings (test_store's rows: file f has f % 3 warnings, 0, 1, 2,
   0, 1, 2); a version-3 copy without the column is valid, whatever its n_warnings; a version-4 one is not. */
static void check_warnings(const char *good) {
  sp_err e = {0};
  sp_check_summary s;
  char p[1200];
  CHECK(warn_copy(good, "warn_n0.h5", 1, 0, NULL, 0, p, sizeof p) == 0 &&
            sp_check(p, 10, 1, &s, &e) == SP_E_FORMAT &&
            strstr(e.msg, "/structures/warnings[1] is not empty but n_warnings is 0"),
        "text without n_warnings: %s", e.msg);
  CHECK(warn_copy(good, "warn_empty.h5", 3, 3, NULL, 0, p, sizeof p) == 0 &&
            sp_check(p, 10, 1, &s, &e) == SP_E_FORMAT && strstr(e.msg, "/structures/warnings[3] is empty but n_warnings is 3"),
        "n_warnings without text: %s", e.msg);
  CHECK(warn_copy(good, "warn_count.h5", 2, 3, NULL, 0, p, sizeof p) == 0 &&
            sp_check(p, 10, 1, &s, &e) == SP_E_FORMAT && strstr(e.msg, "/structures/warnings[2] holds 2 messages") &&
            strstr(e.msg, "but n_warnings is 3"),
        "3 counted, 2 written: %s", e.msg);
  CHECK(warn_copy(good, "warn_more.h5", 5, 9, "x\n... 7 more", 0, p, sizeof p) == 0 &&
            sp_check(p, 10, 1, &s, &e) == SP_E_FORMAT &&
            strstr(e.msg, "/structures/warnings[5] holds 1 message and \"... 7 more\" (8), but n_warnings is 9"),
        "a tail that does not add up: %s", e.msg);
  CHECK(warn_copy(good, "warn_more_ok.h5", 5, 8, "x\n... 7 more", 0, p, sizeof p) == 0 &&
            sp_check(p, 10, 1, &s, &e) == 0, "1 message and '... 7 more' for 8: %s", e.msg);
  CHECK(warn_copy(good, "warn_zero_more.h5", 5, 1, "x\n... 0 more", 0, p, sizeof p) == 0 &&
            sp_check(p, 10, 1, &s, &e) == SP_E_FORMAT && strstr(e.msg, "holds 2 messages (lines)"),
        "'... 0 more' is no tail: %s", e.msg);
  CHECK(warn_copy(good, "warn_tab.h5", 1, -1, "a\tb", 0, p, sizeof p) == 0 && sp_check(p, 10, 1, &s, &e) == SP_E_FORMAT &&
            strstr(e.msg, "/structures/warnings[1] has the control byte 0x09 at byte 1"),
        "a raw tab: %s", e.msg);
  CHECK(warn_copy(good, "warn_v3.h5", 3, 3, NULL, 3, p, sizeof p) == 0 && sp_check(p, 10, 1, &s, &e) == 0 &&
            s.format_version == 3,
        "version 3 without warnings (n_warnings 3 unchecked): %s", e.msg);
  CHECK(warn_copy(good, "warn_v4_missing.h5", 0, -1, NULL, 4, p, sizeof p) == 0 &&
            sp_check(p, 10, 1, &s, &e) == SP_E_FORMAT && strstr(e.msg, "missing dataset /structures/warnings"),
        "version 4 without warnings: %s", e.msg);
}

int main(int argc, char **argv) {
  snprintf(DIR_, sizeof DIR_, "%s", argc > 1 ? argv[1] : "store_test_out");
  char good[1200], empty[1200];
  pathf(good, sizeof good, "merged_p2.h5");
  check_reader(good, SP_READER_AUTO, 1);
  check_reader(good, SP_READER_HDF5, 0);
  check_check(good);
  check_warnings(good);
  /* the empty merged file: valid, no sites */
  pathf(empty, sizeof empty, "merged_empty.h5");
  sp_err e = {0};
  sp_check_summary s;
  CHECK(sp_check(empty, 100, 1, &s, &e) == 0 && s.n_sites == 0 && s.n_atoms == 0, "empty: %s", e.msg);
  sp_reader *r = sp_reader_open(empty, 0, &e);
  sp_file_counts c = {1, 1, 1, 1, 1};
  CHECK(r && sp_reader_counts(r, &c) == 0 && c.n_sites == 0 && c.n_atoms == 0, "empty reader: %s", e.msg);
  sp_site_batch b = {0};
  CHECK(r && sp_reader_read_sites(r, NULL, 0, SP_FIELD_ALL, &b, &e) == 0 && b.n_atoms == 0, "empty batch");
  sp_site_batch_free(&b);
  sp_reader_close(r);
  return sp_test_done("test_reader");
}

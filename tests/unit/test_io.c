/* Unit tests of src/io: gzip reading (multi-member, truncated, corrupt, magic bytes both
 * ways: case B11), SHA-256 against MANIFEST.tsv, directory scan of a temporary tree with
 * a symlink loop and odd extensions.
 * usage: test_io SHARED_DIR */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "sitepack/io.h"

#include "sp_test.h"

static char g_tmp[256];

static char *path_in(const char *dir, const char *name) {
  static char buf[4][1024];
  static int k = 0;
  k = (k + 1) % 4;
  snprintf(buf[k], sizeof buf[k], "%s/%s", dir, name);
  return buf[k];
}

/* Deterministic pseudo-random text (so that it compresses, but not to nothing). */
static char *make_text(size_t n, unsigned seed) {
  char *t = malloc(n + 1);
  static const char words[][8] = {"ATOM  ", "HETATM", " CA ", " N  ", "12.345", "  1.00", "\n", "ALA", "GLY"};
  size_t i = 0;
  unsigned x = seed;
  while (i < n) {
    x = x * 1103515245u + 12345u;
    const char *w = words[(x >> 16) % 9];
    for (size_t k = 0; w[k] && i < n; ++k) t[i++] = w[k];
  }
  t[n] = 0;
  return t;
}

static void test_sha256(void) {
  char hex[65];
  sp_sha256_hex("abc", 3, hex); /* FIPS 180-2 appendix B.1 */
  CHECK(!strcmp(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"), "got %s", hex);
  sp_sha256_hex("", 0, hex);
  CHECK(!strcmp(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"), "got %s", hex);
}

/* Issue 16 item 6: the escape rule of docs/format.md, and a cut that keeps whole UTF-8 sequences and
   whole \xNN (sp_text_escape_fit did not exist on 6dbf0bd: the cut text could end inside "\xe9"). */
static void test_escape(void) {
  char out[64];
  size_t n = sp_path_escape("caf\xc3\xa9\tx\\y\xe9\n", out, sizeof out);
  CHECK(!strcmp(out, "caf\xc3\xa9\\x09x\\x5cy\\xe9\\x0a") && n == strlen(out), "escaped: %s", out);
  char col[10];
  CHECK(sp_text_escape_fit(col, sizeof col, "short") == 0 && !strcmp(col, "short") && col[9] == 0, "fit: %s", col);
  /* [10] holds 9 bytes; a cut leaves room for "...". The old cut (9 bytes, the last 3 made "...") would
     give "abc\\x0..." and "abcde\xc3..." here: half an escape, half a UTF-8 sequence */
  CHECK(sp_text_escape_fit(col, sizeof col, "ab\tcdefgh") == 1 && !strcmp(col, "ab\\x09..."), "escape kept: %s", col);
  CHECK(sp_text_escape_fit(col, sizeof col, "abc\tdefgh") == 1 && !strcmp(col, "abc..."), "cut before an escape: %s", col);
  CHECK(sp_text_escape_fit(col, sizeof col, "abc\xc3\xa9xyzwv") == 1 && !strcmp(col, "abc\xc3\xa9x..."),
        "cut after a whole UTF-8 sequence: %s", col);
  CHECK(sp_text_escape_fit(col, sizeof col, "abcde\xc3\xa9xyz") == 1 && !strcmp(col, "abcde..."),
        "cut before a UTF-8 sequence that does not fit: %s", col);
  CHECK(sp_text_escape_fit(col, sizeof col, "123456789") == 0 && !strcmp(col, "123456789"), "exact fit: %s", col);
  CHECK(sp_text_escape_fit(col, sizeof col, "1234567890") == 1 && !strcmp(col, "123456..."), "one over: %s", col);
}

static void test_gzip_memory(void) {
  size_t n1 = 3u << 20, n2 = 37; /* big first member, tiny last member: ISIZE hint far too small */
  char *t1 = make_text(n1, 1), *t2 = make_text(n2, 2);
  size_t g1n, g2n;
  unsigned char *g1 = gzip_bytes(t1, n1, 6, &g1n), *g2 = gzip_bytes(t2, n2, 6, &g2n);
  CHECK(g1 && g2, "deflate failed");
  if (!g1 || !g2) return;
  sp_err err = {0};
  sp_buf b;

  /* one member */
  CHECK(sp_gunzip(g1, g1n, 0, &b, &err) == 0, "%s", err.msg);
  CHECK(b.len == n1 && !memcmp(b.data, t1, n1) && b.data[b.len] == 0 && b.gzip == 1, "single member content");
  CHECK(b.stored_bytes == g1n, "stored_bytes %zu", b.stored_bytes);
  sp_buf_free(&b);

  /* two members concatenated: read in full */
  size_t mn = g1n + g2n;
  unsigned char *multi = malloc(mn + 16);
  memcpy(multi, g1, g1n);
  memcpy(multi + g1n, g2, g2n);
  CHECK(sp_gunzip(multi, mn, 0, &b, &err) == 0, "%s", err.msg);
  CHECK(b.len == n1 + n2 && !memcmp(b.data, t1, n1) && !memcmp(b.data + n1, t2, n2) && b.data[b.len] == 0,
        "multi-member: len %zu, want %zu", b.len, n1 + n2);
  sp_buf_free(&b);

  /* three members, the small one first */
  unsigned char *m3 = malloc(g2n * 2 + g1n);
  memcpy(m3, g2, g2n);
  memcpy(m3 + g2n, g1, g1n);
  memcpy(m3 + g2n + g1n, g2, g2n);
  CHECK(sp_gunzip(m3, g2n * 2 + g1n, 0, &b, &err) == 0, "%s", err.msg);
  CHECK(b.len == n1 + 2 * n2 && !memcmp(b.data, t2, n2) && !memcmp(b.data + n2, t1, n1) &&
            !memcmp(b.data + n2 + n1, t2, n2),
        "three members");
  sp_buf_free(&b);
  free(m3);

  /* trailing zero padding is accepted, other trailing bytes are not */
  memset(multi + mn, 0, 16);
  CHECK(sp_gunzip(multi, mn + 16, 0, &b, &err) == 0 && b.len == n1 + n2, "zero padding: %s", err.msg);
  sp_buf_free(&b);
  memcpy(multi + mn, "garbage!", 8);
  err.cls = 0;
  CHECK(sp_gunzip(multi, mn + 8, 0, &b, &err) == SP_E_GZIP && b.data == NULL, "trailing garbage: %d", err.cls);

  /* every truncation of the small member (from 2 bytes to all but one) -> truncated_gzip */
  int all_trunc = 1;
  for (size_t k = 2; k < g2n; ++k) {
    sp_err e2 = {0};
    int rc = sp_gunzip(g2, k, 0, &b, &e2);
    if (rc != SP_E_TRUNCATED_GZIP || b.data) {
      all_trunc = 0;
      fprintf(stderr, "  prefix %zu of %zu: %s (%s)\n", k, g2n, sp_errclass_name(rc), e2.msg);
    }
  }
  CHECK(all_trunc, "every prefix of a gzip member must be truncated_gzip");
  /* a multi-member stream cut inside its second member */
  CHECK(sp_gunzip(multi, g1n + g2n / 2, 0, &b, &err) == SP_E_TRUNCATED_GZIP, "cut in 2nd member: %s",
        sp_errclass_name(err.cls));
  /* a complete member followed by the first byte(s) of the next one */
  CHECK(sp_gunzip(multi, g1n + 1, 0, &b, &err) == SP_E_TRUNCATED_GZIP, "1 byte of 2nd member: %s",
        sp_errclass_name(err.cls));
  CHECK(sp_gunzip(multi, g1n + 2, 0, &b, &err) == SP_E_TRUNCATED_GZIP, "2 bytes of 2nd member: %s",
        sp_errclass_name(err.cls));
  /* the big member cut in half */
  CHECK(sp_gunzip(g1, g1n / 2, 0, &b, &err) == SP_E_TRUNCATED_GZIP, "cut big member: %s", sp_errclass_name(err.cls));
  CHECK(strstr(err.msg, "gzip") != NULL, "message: %s", err.msg);

  /* corrupt: a flipped CRC-32 byte in the trailer, and corrupt deflate data */
  unsigned char *c = malloc(g2n);
  memcpy(c, g2, g2n);
  c[g2n - 8] ^= 0x55;
  CHECK(sp_gunzip(c, g2n, 0, &b, &err) == SP_E_GZIP && !b.data, "bad CRC: %s", sp_errclass_name(err.cls));
  memcpy(c, g2, g2n);
  c[g2n - 2] ^= 0x01; /* ISIZE */
  CHECK(sp_gunzip(c, g2n, 0, &b, &err) == SP_E_GZIP, "bad ISIZE: %s", sp_errclass_name(err.cls));
  free(c);
  unsigned char *c1 = malloc(g1n);
  memcpy(c1, g1, g1n);
  for (size_t k = 20; k < 60; ++k) c1[k] = 0xff; /* invalid block codes */
  CHECK(sp_gunzip(c1, g1n, 0, &b, &err) == SP_E_GZIP, "corrupt deflate: %s", sp_errclass_name(err.cls));
  free(c1);
  /* not gzip at all */
  CHECK(sp_gunzip("hello", 5, 0, &b, &err) == SP_E_GZIP, "no magic");

  /* size limit */
  CHECK(sp_gunzip(g1, g1n, 1000, &b, &err) == SP_E_TOO_LARGE && !b.data, "limit: %s", sp_errclass_name(err.cls));
  CHECK(sp_gunzip(g1, g1n, n1, &b, &err) == 0 && b.len == n1, "limit == size is fine: %s", err.msg);
  sp_buf_free(&b);
  free(multi);
  free(g1);
  free(g2);
  free(t1);
  free(t2);
}

static void test_file_read(const char *shared) {
  sp_err err = {0};
  sp_buf b;
  /* magic detection both ways, on files written here */
  const char *txt = "data_test\n_entry.id TEST\n";
  size_t gn;
  unsigned char *g = gzip_bytes(txt, strlen(txt), 6, &gn);
  char *p_gz_as_plain = path_in(g_tmp, "gzip_named.cif"), *p_plain_as_gz = path_in(g_tmp, "plain_named.cif.gz");
  write_file(p_gz_as_plain, g, gn);
  write_file(p_plain_as_gz, txt, strlen(txt));
  CHECK(sp_file_read(p_gz_as_plain, 0, &b, &err) == 0 && b.gzip == 1 && b.len == strlen(txt) &&
            !strcmp(b.data, txt) && b.stored_bytes == gn,
        "gzip named .cif: %s", err.msg);
  char hex[65];
  sp_sha256_hex(g, gn, hex);
  CHECK(!strcmp(b.sha256, hex), "sha256 is of the stored (compressed) bytes");
  sp_buf_free(&b);
  CHECK(sp_file_read(p_plain_as_gz, 0, &b, &err) == 0 && b.gzip == 0 && !strcmp(b.data, txt), "plain named .gz: %s",
        err.msg);
  sp_buf_free(&b);
  /* truncated file: class and message naming gzip and the file */
  char *p_trunc = path_in(g_tmp, "cut.pdb.gz");
  write_file(p_trunc, g, gn - 5);
  CHECK(sp_file_read(p_trunc, 0, &b, &err) == SP_E_TRUNCATED_GZIP && !b.data, "truncated: %s", err.msg);
  CHECK(strstr(err.msg, "gzip") && strstr(err.msg, "cut.pdb.gz"), "message: %s", err.msg);
  /* empty file, missing file, directory, limit */
  char *p_empty = path_in(g_tmp, "empty.pdb");
  write_file(p_empty, "", 0);
  CHECK(sp_file_read(p_empty, 0, &b, &err) == 0 && b.len == 0 && b.data && b.data[0] == 0 && b.gzip == 0,
        "empty file: %s", err.msg);
  CHECK(!strcmp(b.sha256, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"), "empty sha");
  sp_buf_free(&b);
  CHECK(sp_file_read(path_in(g_tmp, "nope.cif"), 0, &b, &err) == SP_E_NOT_FOUND && strstr(err.msg, "nope.cif"),
        "missing: %s", err.msg);
  CHECK(sp_file_read(g_tmp, 0, &b, &err) == SP_E_IO, "directory: %s", sp_errclass_name(err.cls));
  CHECK(sp_file_read(p_plain_as_gz, 5, &b, &err) == SP_E_TOO_LARGE, "limit plain: %s", sp_errclass_name(err.cls));
  free(g);

  /* case B11: gzip detected by magic bytes, not name; truncated gzip is a clean error */
  char dir[1024];
  snprintf(dir, sizeof dir, "%s/cases/B11_gzip_detection", shared);
  sp_buf ref, x;
  CHECK(sp_file_read(path_in(dir, "model.cif.gz"), 0, &ref, &err) == 0 && ref.gzip == 1, "B11 model: %s", err.msg);
  CHECK(sp_file_read(path_in(dir, "gzip_named_plain.cif"), 0, &x, &err) == 0 && x.gzip == 1, "B11 gz-as-cif: %s",
        err.msg);
  CHECK(x.len == ref.len && ref.data && x.data && !memcmp(x.data, ref.data, ref.len), "B11 same content (gz)");
  sp_buf_free(&x);
  CHECK(sp_file_read(path_in(dir, "plain_named_gzip.cif.gz"), 0, &x, &err) == 0 && x.gzip == 0,
        "B11 cif-as-gz: %s", err.msg);
  CHECK(x.len == ref.len && ref.data && x.data && !memcmp(x.data, ref.data, ref.len), "B11 same content (plain)");
  CHECK(x.len > 5 && !memcmp(x.data, "data_", 5), "B11 text starts with data_");
  sp_buf_free(&x);
  sp_buf_free(&ref);
  CHECK(sp_file_read(path_in(dir, "truncated.cif.gz"), 0, &x, &err) == SP_E_TRUNCATED_GZIP && !x.data,
        "B11 truncated: %s", sp_errclass_name(err.cls));
  CHECK(strstr(err.msg, "gzip") && strstr(err.msg, "truncated.cif.gz"), "B11 message: %s", err.msg);
}

/* sha256 and size of real files against MANIFEST.tsv (values of sha256sum on the stored files) */
static void test_manifest(const char *shared) {
  char mpath[1024];
  snprintf(mpath, sizeof mpath, "%s/data/MANIFEST.tsv", shared);
  FILE *f = fopen(mpath, "r");
  CHECK(f != NULL, "cannot open %s", mpath);
  if (!f) return;
  static const char *const want[] = {"structures/19hc.pdb.gz", "structures/104d.pdb", "structures/pdb1aq5.ent.gz",
                                     "ccd/components_excerpt.cif.gz"};
  int found = 0;
  char line[8192];
  while (fgets(line, sizeof line, f)) {
    char *cols[8] = {0};
    int nc = 0;
    for (char *t = line; t && nc < 8;) { /* split on every tab (fields may be empty) */
      cols[nc++] = t;
      char *tab = strchr(t, '\t');
      if (tab) *tab++ = 0;
      t = tab;
    }
    if (nc < 6) continue;
    for (size_t i = 0; i < sizeof want / sizeof *want; ++i) {
      if (strcmp(cols[0], want[i])) continue;
      ++found;
      char p[1200];
      snprintf(p, sizeof p, "%s/data/%s", shared, cols[0]);
      sp_buf b;
      sp_err err = {0};
      CHECK(sp_file_read(p, 0, &b, &err) == 0, "%s: %s", p, err.msg);
      CHECK(!strcmp(b.sha256, cols[5]), "%s: sha256 %s, manifest %s", cols[0], b.sha256, cols[5]);
      CHECK(b.stored_bytes == (size_t)strtoull(cols[4], NULL, 10), "%s: %zu bytes, manifest %s", cols[0],
            b.stored_bytes, cols[4]);
      int is_gz = strstr(cols[0], ".gz") != NULL;
      CHECK(b.gzip == is_gz && (!is_gz || b.len > b.stored_bytes), "%s: gzip %d len %zu", cols[0], b.gzip, b.len);
      sp_buf_free(&b);
    }
  }
  fclose(f);
  CHECK(found == (int)(sizeof want / sizeof *want), "found %d of the manifest rows", found);
}

/* scan of the real structures folder: every file listed in MANIFEST.tsv, sizes equal, sorted */
static void test_scan_real(const char *shared) {
  char root[1024], mpath[1024];
  snprintf(root, sizeof root, "%s/data/structures", shared);
  snprintf(mpath, sizeof mpath, "%s/data/MANIFEST.tsv", shared);
  sp_scan_list l;
  sp_err err = {0};
  CHECK(sp_scan_dir(root, &l, &err) == 0, "scan %s: %s", root, err.msg);
  CHECK(l.n == 225 && l.n_skipped == 0, "%zu structure files, %zu skipped", l.n, l.n_skipped);
  bool sorted = true;
  for (size_t i = 1; i < l.n; ++i) sorted &= strcmp(l.files[i - 1].path, l.files[i].path) < 0;
  CHECK(sorted, "sorted by path");
  FILE *f = fopen(mpath, "r");
  size_t n_rows = 0, n_match = 0;
  char line[8192];
  while (f && fgets(line, sizeof line, f)) {
    if (strncmp(line, "structures/", 11)) continue;
    ++n_rows;
    char *tab1 = strchr(line, '\t');
    if (!tab1) continue;
    *tab1 = 0;
    char *c = tab1 + 1; /* columns: source_repo source_path commit bytes */
    for (int k = 0; k < 3 && c; ++k) c = strchr(c, '\t') ? strchr(c, '\t') + 1 : NULL;
    long long bytes = c ? strtoll(c, NULL, 10) : -1;
    for (size_t i = 0; i < l.n; ++i)
      if (!strcmp(l.files[i].path, line + 11)) {
        n_match += l.files[i].bytes == bytes;
        break;
      }
  }
  if (f) fclose(f);
  CHECK(n_rows == 225 && n_match == n_rows, "manifest rows %zu, scan entries with equal size %zu", n_rows, n_match);
  sp_scan_list_free(&l);
}

static void mk(const char *rel, const char *content) {
  char *p = path_in(g_tmp, rel);
  write_file(p, content, strlen(content));
}

static void test_scan(void) {
  char root[512];
  snprintf(root, sizeof root, "%s/tree", g_tmp);
  char sub[600], deep[700];
  snprintf(sub, sizeof sub, "%s/sub", root);
  snprintf(deep, sizeof deep, "%s/sub/deep", root);
  CHECK(mkdir(root, 0755) == 0 && mkdir(sub, 0755) == 0 && mkdir(deep, 0755) == 0, "mkdir");
  mk("tree/a.cif", "a");
  mk("tree/B.PDB.GZ", "bb");
  mk("tree/c.ent", "ccc");
  mk("tree/d.mmCIF", "dddd");
  mk("tree/e.txt", "e");
  mk("tree/f.cif.gz", "ffffff");
  mk("tree/g.gz", "g");
  mk("tree/h.cif.bz2", "h");
  mk("tree/i.pdb.zip", "i");
  mk("tree/sub/x.pdb", "xxxxxxx");
  mk("tree/sub/deep/y.CIF", "yyyyyyyy");
  mk("tree/sub/deep/Z.Ent.Gz", "zz");
  char lp[800];
  snprintf(lp, sizeof lp, "%s/loop", deep);
  CHECK(symlink("../..", lp) == 0, "symlink loop: %s", strerror(errno)); /* deep/loop -> tree */
  snprintf(lp, sizeof lp, "%s/link.cif", root);
  CHECK(symlink("a.cif", lp) == 0, "symlink file");
  snprintf(lp, sizeof lp, "%s/broken.pdb", root);
  CHECK(symlink("does-not-exist.pdb", lp) == 0, "broken symlink");
  snprintf(lp, sizeof lp, "%s/self.cif", root);
  CHECK(symlink("self.cif", lp) == 0, "symlink to itself");
  snprintf(lp, sizeof lp, "%s/fifo.cif", root);
  CHECK(mkfifo(lp, 0644) == 0, "fifo: %s", strerror(errno));

  sp_scan_list l;
  sp_err err = {0};
  CHECK(sp_scan_dir(root, &l, &err) == 0, "scan: %s", err.msg);
  static const char *const want[] = {"B.PDB.GZ", "a.cif",          "c.ent",         "d.mmCIF",
                                     "f.cif.gz", "link.cif",       "sub/deep/Z.Ent.Gz", "sub/deep/y.CIF",
                                     "sub/x.pdb"};
  static const int64_t want_bytes[] = {2, 1, 3, 4, 6, 1, 2, 8, 7};
  size_t nw = sizeof want / sizeof *want;
  CHECK(l.n == nw, "%zu files, want %zu", l.n, nw);
  for (size_t i = 0; i < l.n && i < nw; ++i) {
    CHECK(!strcmp(l.files[i].path, want[i]), "file %zu: %s, want %s", i, l.files[i].path, want[i]);
    CHECK(l.files[i].bytes == want_bytes[i], "%s: %lld bytes", l.files[i].path, (long long)l.files[i].bytes);
  }
  /* skipped: e.txt g.gz h.cif.bz2 i.pdb.zip broken.pdb self.cif fifo.cif, and the loop back to the root */
  CHECK(l.n_skipped == 8, "n_skipped %zu, want 8", l.n_skipped);
  /* issue 16: the paths it could not read are listed, by kind (the others only counted) */
  static const char *const want_p[][2] = {{"broken.pdb", "broken_symlink"}, {"fifo.cif", "not_a_file"},
                                           {"self.cif", "symlink_loop"}, {"sub/deep/loop", "directory_loop"}};
  CHECK(l.n_problems == 4, "%zu problems, want 4", l.n_problems);
  for (size_t i = 0; i < l.n_problems && i < 4; ++i)
    CHECK(!strcmp(l.problems[i].path, want_p[i][0]) && !strcmp(sp_scan_problem_name(l.problems[i].kind), want_p[i][1]),
          "problem %zu: %s %s, want %s %s", i, l.problems[i].path, sp_scan_problem_name(l.problems[i].kind),
          want_p[i][0], want_p[i][1]);
  sp_scan_list_free(&l);
  CHECK(l.n == 0 && l.files == NULL, "freed");

  /* trailing slash gives the same relative paths */
  char root2[600];
  snprintf(root2, sizeof root2, "%s/", root);
  CHECK(sp_scan_dir(root2, &l, &err) == 0 && l.n == nw && !strcmp(l.files[l.n - 1].path, "sub/x.pdb"),
        "trailing slash: %s", l.n ? l.files[l.n - 1].path : "-");
  sp_scan_list_free(&l);

  /* a regular file as root: a one-file list, path = base name */
  char fp[700];
  snprintf(fp, sizeof fp, "%s/sub/x.pdb", root);
  CHECK(sp_scan_dir(fp, &l, &err) == 0 && l.n == 1 && !strcmp(l.files[0].path, "x.pdb") && l.files[0].bytes == 7,
        "file root");
  sp_scan_list_free(&l);
  snprintf(fp, sizeof fp, "%s/no-such-dir", root);
  CHECK(sp_scan_dir(fp, &l, &err) == SP_E_NOT_FOUND && l.n == 0, "missing root: %s", sp_errclass_name(err.cls));
}

static void rm_tree(const char *dir) {
  char cmd[1200];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd) != 0) fprintf(stderr, "warning: could not remove %s\n", dir);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s SHARED_DIR\n", argv[0]);
    return 2;
  }
  const char *tmpdir = getenv("TMPDIR");
  snprintf(g_tmp, sizeof g_tmp, "%s/sp_test_io_XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
  if (!mkdtemp(g_tmp)) {
    perror("mkdtemp");
    return 2;
  }
  double t0 = sp_now();
  test_sha256();
  test_escape();
  test_gzip_memory();
  test_file_read(argv[1]);
  test_manifest(argv[1]);
  test_scan();
  test_scan_real(argv[1]);
  double t1 = sp_now();
  CHECK(t1 >= t0, "monotonic clock went back");
  rm_tree(g_tmp);
  printf("test_io: %d checks, %d failures\n", g_checks, g_fail);
  return g_fail ? 1 : 0;
}

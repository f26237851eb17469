/* Hostile input for the readers (io + format dispatch + mmCIF + PDB): every input gets a
 * stable error class (error.h) and, when read from a file, a message that names the file;
 * nothing crashes, nothing reads out of bounds (run under ASan/UBSan by `make sanitize`).
 *   - empty and all-blank files;
 *   - truncated gzip: a real entry cut at every 61st byte, in memory and from files; a
 *     corrupt CRC; a gzip bomb above the limit;
 *   - binary garbage (with and without NUL bytes, with a data_ / ATOM prefix);
 *   - a 1 GiB line: in memory (1 GiB of address space backed by one 1 MiB page set mapped
 *     1024 times, so RSS stays small) through sp_read_structure_text as mmCIF value, PDB
 *     record and unknown text; and a 1 GiB sparse file refused by max_bytes before reading;
 *   - a loop with a missing value; 300 000 pair items in one category (linear time);
 *   - other formats: SDF, MOL2, PNG, JSON, XML, FASTA, small-molecule CIF, UTF-16;
 *   - non-UTF-8 bytes (Latin-1, invalid sequences) in names, values, text fields: kept
 *     byte for byte; a UTF-8 byte order mark;
 *   - a real mmCIF and a real PDB entry cut at many offsets.
 * usage: test_io_hostile SHARED_DIR */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "sitepack/cif.h"
#include "sitepack/io.h"
#include "sitepack/read.h"

#include "sp_test.h"

static char g_tmp[256];

/* Read a text through the dispatcher; returns the class. */
static int read_text(const char *t, size_t n, sp_structure *s, int *fmt, sp_err *e) {
  sp_structure_clear(s);
  memset(e, 0, sizeof *e);
  int rc = sp_read_structure_text(t, n, s, fmt, e);
  if (rc) {
    CHECK(rc > 0 && rc < SP_ERRCLASS_COUNT && e->cls == rc && e->msg[0], "class %d, err.cls %d, msg '%s'", rc, e->cls,
          e->msg);
  } else {
    CHECK(s->n_atoms > 0, "success with no atoms");
  }
  return rc;
}

/* Write bytes to a file, read it with sp_read_structure_file, check the class and the path in
 * the message. */
static void file_case(const char *name, const void *data, size_t len, size_t max_bytes, int want) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", g_tmp, name);
  write_file(path, data, len);
  sp_structure s;
  sp_structure_init(&s);
  sp_buf b = {0};
  sp_err e = {0};
  int fmt = -1;
  int rc = sp_read_structure_file(path, max_bytes, &b, &s, &fmt, &e);
  CHECK(rc == want, "%s: got %s (%s), expected %s", name, sp_errclass_name(rc), e.msg, sp_errclass_name(want));
  if (rc) CHECK(strstr(e.msg, path) != NULL, "%s: message '%s' does not name the file", name, e.msg);
  printf("%-28s %-16s %s\n", name, sp_errclass_name(rc), e.msg);
  sp_buf_free(&b);
  sp_structure_free(&s);
}

static char *slurp_gz(const char *path, size_t *len) {
  sp_buf b;
  sp_err e = {0};
  if (sp_file_read(path, 0, &b, &e)) {
    fprintf(stderr, "%s\n", e.msg);
    exit(2);
  }
  *len = b.len;
  return b.data; /* owned by the caller now */
}

/* ------------------------------------------------------------------ tests */

static void test_empty(void) {
  file_case("empty.cif", "", 0, 0, SP_E_NO_ATOMS);
  file_case("blank.pdb", " \n\t\r\n\n", 6, 0, SP_E_NO_ATOMS);
  file_case("comments_only.cif", "# nothing\n#\n", 12, 0, SP_E_FORMAT);
  file_case("data_only.cif", "data_x\n", 7, 0, SP_E_NO_ATOMS);
  file_case("header_only.pdb", "HEADER    X\nEND\n", 16, 0, SP_E_NO_ATOMS);
  size_t gl = 0;
  unsigned char *g = gzip_bytes("", 0, 6, &gl);
  file_case("empty.cif.gz", g, gl, 0, SP_E_NO_ATOMS);
  free(g);
}

static void test_gzip(const char *shared) {
  char path[1024];
  snprintf(path, sizeof path, "%s/data/structures/1crn.cif.gz", shared);
  size_t n = 0;
  unsigned char *raw = (unsigned char *)slurp(path, &n);
  if (!raw) exit(2);
  CHECK(n > 1000, "1crn.cif.gz: %zu bytes", n);
  /* every 61st cut and the last 12 cuts (trailer), in memory */
  size_t cuts = 0, ok = 0;
  for (size_t cut = 2; cut < n; cut += (cut + 12 >= n ? 1 : 61)) {
    sp_buf b;
    sp_err e = {0};
    int rc = sp_gunzip(raw, cut, 0, &b, &e);
    ++cuts;
    if (rc == SP_E_TRUNCATED_GZIP) ++ok;
    else fprintf(stderr, "cut %zu of %zu: %s %s\n", cut, n, sp_errclass_name(rc), e.msg);
    if (!rc) sp_buf_free(&b);
  }
  CHECK(ok == cuts, "truncated_gzip for %zu of %zu cuts", ok, cuts);
  printf("1crn.cif.gz cut at %zu offsets: truncated_gzip for %zu\n", cuts, ok);
  /* from files: the message names the file */
  file_case("cut_half.cif.gz", raw, n / 2, 0, SP_E_TRUNCATED_GZIP);
  file_case("cut_trailer.cif.gz", raw, n - 3, 0, SP_E_TRUNCATED_GZIP);
  file_case("cut_header.cif.gz", raw, 5, 0, SP_E_TRUNCATED_GZIP);
  file_case("magic_only.cif.gz", raw, 2, 0, SP_E_TRUNCATED_GZIP);
  file_case("one_byte.cif.gz", raw, 1, 0, SP_E_FORMAT); /* 1F alone is not the gzip magic: unknown text */
  unsigned char *bad = malloc(n);
  memcpy(bad, raw, n);
  bad[n - 6] ^= 0x55; /* CRC-32 of the trailer (RFC 1952: CRC32 then ISIZE) */
  file_case("bad_crc.cif.gz", bad, n, 0, SP_E_GZIP);
  memcpy(bad, raw, n);
  bad[3] = 0xE0; /* reserved FLG bits set: zlib rejects the header */
  file_case("bad_flags.cif.gz", bad, n, 0, SP_E_GZIP);
  free(bad);
  /* gzip bomb: 32 MiB of 'A' read with a 4 MiB limit */
  size_t big = (size_t)32 << 20, gl = 0;
  char *a = malloc(big);
  memset(a, 'A', big);
  unsigned char *g = gzip_bytes(a, big, 1, &gl);
  free(a);
  CHECK(g && gl < big / 100, "bomb of %zu bytes", gl);
  file_case("bomb.cif.gz", g, gl, (size_t)4 << 20, SP_E_TOO_LARGE);
  free(g);
  free(raw);
}

static uint64_t g_rng = 0x9E3779B97F4A7C15ull;
static unsigned rnd(void) {
  g_rng ^= g_rng << 13;
  g_rng ^= g_rng >> 7;
  g_rng ^= g_rng << 17;
  return (unsigned)(g_rng >> 24);
}

static void test_garbage(void) {
  size_t n = (size_t)1 << 20;
  unsigned char *g = malloc(n + 16);
  for (size_t i = 0; i < n; ++i) g[i] = (unsigned char)rnd();
  file_case("garbage.cif", g, n, 0, SP_E_BINARY);
  for (size_t i = 0; i < n; ++i)
    if (!g[i]) g[i] = 0x80; /* no NUL: text of unknown format */
  g[0] = 0xC7;
  file_case("garbage_nonul.pdb", g, n, 0, SP_E_FORMAT);
  sp_structure s;
  sp_structure_init(&s);
  sp_err e;
  int fmt;
  /* mmCIF / PDB prefix, then garbage: a clean error of the reader */
  memcpy(g, "data_x\n_atom_site.id ", 21);
  int rc = read_text((char *)g, n, &s, &fmt, &e);
  CHECK(fmt == SP_FMT_MMCIF && rc != 0, "data_ + garbage: fmt %d rc %d", fmt, rc);
  printf("%-28s %-16s %s\n", "data_ + garbage", sp_errclass_name(rc), e.msg);
  memcpy(g, "ATOM      1  CA ", 16);
  rc = read_text((char *)g, n, &s, &fmt, &e);
  CHECK(fmt == SP_FMT_PDB && rc == SP_E_BAD_VALUE, "ATOM + garbage: fmt %d %s", fmt, sp_errclass_name(rc));
  printf("%-28s %-16s %s\n", "ATOM + garbage", sp_errclass_name(rc), e.msg);
  /* many short random lines that start like records */
  static const char *const k_pre[] = {"ATOM  ", "HETATM", "MODEL ", "LINK  ", "SEQRES", "SSBOND", "REMARK   2 "};
  size_t k = 0;
  while (k + 100 < n) {
    const char *p = k_pre[rnd() % 7];
    size_t pl = strlen(p);
    memcpy(g + k, p, pl);
    size_t len = rnd() % 90;
    for (size_t i = 0; i < len; ++i) g[k + pl + i] = (unsigned char)(' ' + rnd() % 95);
    k += pl + len;
    g[k++] = '\n';
  }
  rc = read_text((char *)g, k, &s, &fmt, &e);
  CHECK(fmt == SP_FMT_PDB, "record-like garbage: fmt %d", fmt);
  printf("%-28s %-16s %s\n", "record-like garbage", sp_errclass_name(rc), e.msg);
  sp_structure_free(&s);
  free(g);
}

/* 1 GiB of 'A' after a prefix, as 1024 shared mappings of one 1 MiB memfd: the readers see
 * a contiguous 1 GiB line, the process holds about 1 MiB of it. */
static void test_gib_line(void) {
  const size_t chunk = (size_t)1 << 20, total = (size_t)1 << 30;
  int fd = memfd_create("sitepack_gib_line", 0);
  if (fd < 0 || ftruncate(fd, (off_t)chunk)) {
    CHECK(0, "memfd_create: %s", strerror(errno));
    return;
  }
  char *a = mmap(NULL, chunk, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (a == MAP_FAILED) {
    CHECK(0, "mmap");
    return;
  }
  memset(a, 'A', chunk);
  munmap(a, chunk);
  /* one private page of prefix, then 1 GiB of 'A', then one page for the end */
  size_t page = (size_t)sysconf(_SC_PAGESIZE), span = page + total + page;
  char *base = mmap(NULL, span, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (base == MAP_FAILED) {
    CHECK(0, "mmap of %zu bytes", span);
    return;
  }
  char *body = base + page;
  for (size_t off = 0; off < total; off += chunk)
    if (mmap(body + off, chunk, PROT_READ, MAP_SHARED | MAP_FIXED, fd, 0) == MAP_FAILED) {
      CHECK(0, "mmap chunk %zu: %s", off / chunk, strerror(errno));
      return;
    }
  close(fd);
  char *head = body - page, *tail = body + total;
  if (mprotect(head, page, PROT_READ | PROT_WRITE) || mprotect(tail, page, PROT_READ | PROT_WRITE)) {
    CHECK(0, "mprotect");
    return;
  }
  memset(tail, '\n', page);
  sp_structure s;
  sp_structure_init(&s);
  sp_err e;
  int fmt;
  struct {
    const char *prefix;
    int fmt, want;
  } k[] = {
      {"", SP_FMT_UNKNOWN, SP_E_FORMAT},                                    /* a 1 GiB unknown line */
      {"data_big\n_struct.title ", SP_FMT_MMCIF, SP_E_NO_ATOMS},            /* a 1 GiB CIF value */
      {"data_big\nloop_\n_atom_site.id\n", SP_FMT_MMCIF, SP_E_MISSING_ITEM}, /* 1 GiB value in _atom_site */
      {"ATOM      1  CA  ALA A   1    ", SP_FMT_PDB, SP_E_BAD_VALUE},      /* a 1 GiB ATOM record */
      {"HEADER    big\nREMARK 1 ", SP_FMT_PDB, SP_E_NO_ATOMS},              /* a 1 GiB REMARK */
  };
  for (size_t i = 0; i < sizeof k / sizeof *k; ++i) {
    size_t pl = strlen(k[i].prefix);
    memset(head, ' ', page);
    memcpy(body - pl, k[i].prefix, pl);
    int rc = read_text(body - pl, pl + total + 1, &s, &fmt, &e);
    CHECK(rc == k[i].want && fmt == k[i].fmt, "1 GiB line after '%s': fmt %d, %s (%s)", k[i].prefix, fmt,
          sp_errclass_name(rc), e.msg);
    printf("1 GiB line, prefix %-30.30s %-16s %s\n", k[i].prefix, sp_errclass_name(rc), e.msg);
  }
  sp_structure_free(&s);
  munmap(base, span);

  /* a 1 GiB sparse file: refused by max_bytes from its size, nothing read */
  char path[512];
  snprintf(path, sizeof path, "%s/gib_line.pdb", g_tmp);
  int f = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  CHECK(f >= 0 && ftruncate(f, (off_t)total) == 0, "sparse file");
  if (f >= 0) close(f);
  sp_buf b = {0};
  sp_structure s2;
  sp_structure_init(&s2);
  int rc = sp_read_structure_file(path, (size_t)256 << 20, &b, &s2, &fmt, &e);
  CHECK(rc == SP_E_TOO_LARGE && strstr(e.msg, path), "1 GiB file with a 256 MiB limit: %s (%s)", sp_errclass_name(rc),
        e.msg);
  printf("%-28s %-16s %s\n", "1 GiB sparse file", sp_errclass_name(rc), e.msg);
  sp_buf_free(&b);
  sp_structure_free(&s2);
  unlink(path);
}

static void test_missing_value(void) {
  const char *t =
      "data_x\nloop_\n_atom_site.group_PDB\n_atom_site.id\n_atom_site.type_symbol\n_atom_site.label_atom_id\n"
      "_atom_site.label_comp_id\n_atom_site.label_asym_id\n_atom_site.label_seq_id\n_atom_site.Cartn_x\n"
      "_atom_site.Cartn_y\n_atom_site.Cartn_z\n"
      "ATOM 1 N N ALA A 1 1.0 2.0 3.0\nATOM 2 C CA ALA A 1 2.0 2.0 3.0\nATOM 3 C C ALA A 1 3.0 3.0\n";
  file_case("missing_value.cif", t, strlen(t), 0, SP_E_ROW_COUNT);
  const char *t2 = "data_x\n_atom_site.id 1\n_atom_site.Cartn_x\n";
  file_case("missing_pair_value.cif", t2, strlen(t2), 0, SP_E_SYNTAX);
}

/* 300 000 distinct pair items in one category (a quadratic duplicate check would take minutes),
 * one duplicate among the first ones (warned, first value kept), then atoms. */
static void test_many_items(void) {
  size_t cap = (size_t)16 << 20, n = 0;
  char *t = malloc(cap);
  n += (size_t)snprintf(t + n, cap - n, "data_x\n_big.dup first\n_big.dup second\n");
  for (int i = 0; i < 300000; ++i) n += (size_t)snprintf(t + n, cap - n, "_big.item%d %d\n", i, i);
  n += (size_t)snprintf(t + n, cap - n,
                        "loop_\n_atom_site.label_atom_id\n_atom_site.label_comp_id\n_atom_site.Cartn_x\n"
                        "_atom_site.Cartn_y\n_atom_site.Cartn_z\nCA ALA 1.0 2.0 3.0\n");
  sp_cif_doc d = {0};
  sp_err e = {0};
  int rc = sp_cif_parse(t, n, 0, &d, &e);
  CHECK(rc == 0 && d.n_blocks == 1, "many items: %s", e.msg);
  if (!rc) {
    const sp_cif_value *v = sp_cif_find_value(&d, &d.blocks[0], "_big.dup", 0);
    CHECK(v && v->n == 5 && !memcmp(v->p, "first", 5), "duplicate item: first value kept");
    v = sp_cif_find_value(&d, &d.blocks[0], "_big.item299999", 0);
    CHECK(v && v->n == 6 && !memcmp(v->p, "299999", 6), "last item");
    CHECK(d.n_warnings >= 1 && strstr(sp_cif_warning(&d, 0), "duplicate"), "duplicate warned");
  }
  sp_cif_doc_free(&d);
  sp_structure s;
  sp_structure_init(&s);
  int fmt;
  rc = read_text(t, n, &s, &fmt, &e);
  CHECK(rc == 0 && s.n_atoms == 1, "many items + atoms: %s", e.msg);
  printf("300000 pair items in one category: %s\n", sp_errclass_name(rc));
  sp_structure_free(&s);
  free(t);
}

static void test_other_formats(void) {
  const char *sdf =
      "\n     RDKit          3D\n\n  1  0  0  0  0  0  0  0  0  0999 V2000\n"
      "    0.0000    0.0000    0.0000 C   0  0  0  0  0  0  0  0  0  0  0  0\nM  END\n$$$$\n";
  file_case("methane.sdf", sdf, strlen(sdf), 0, SP_E_FORMAT);
  const char *sdf2 = "aspirin\n  -OEChem-\n\n  0  0  0     0  0  0  0  0  0999 V2000\nM  END\n$$$$\n";
  file_case("named.sdf", sdf2, strlen(sdf2), 0, SP_E_FORMAT);
  const char *mol2 = "@<TRIPOS>MOLECULE\nx\n 1 0 0 0 0\nSMALL\n@<TRIPOS>ATOM\n 1 C 0 0 0 C.3\n";
  file_case("x.mol2", mol2, strlen(mol2), 0, SP_E_FORMAT);
  static const unsigned char png[] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 0, 0, 13, 'I', 'H', 'D',
                                      'R', 0, 0, 0, 1, 0, 0, 0, 1, 8, 6, 0, 0, 0, 0x1f, 0x15, 0xc4, 0x89};
  file_case("image.png", png, sizeof png, 0, SP_E_BINARY);
  const char *json = "{\"entry\": {\"id\": \"1ABC\"}, \"atoms\": [[0.0, 1.0, 2.0]]}\n";
  file_case("x.json", json, strlen(json), 0, SP_E_FORMAT);
  const char *xml = "<?xml version=\"1.0\"?>\n<PDBx:datablock datablockName=\"1ABC\"></PDBx:datablock>\n";
  file_case("pdbml.xml", xml, strlen(xml), 0, SP_E_FORMAT);
  const char *fasta = ">1ABC_1|Chain A\nMKTAYIAKQR\n";
  file_case("seq.fasta", fasta, strlen(fasta), 0, SP_E_FORMAT);
  /* a small-molecule (coreCIF) file: a data_ block without an mmCIF _atom_site category */
  const char *core =
      "data_nacl\n_cell_length_a 5.64\nloop_\n_atom_site_label\n_atom_site_fract_x\n_atom_site_fract_y\n"
      "_atom_site_fract_z\nNa1 0 0 0\nCl1 0.5 0.5 0.5\n";
  file_case("nacl_core.cif", core, strlen(core), 0, SP_E_NO_ATOMS);
  /* UTF-16LE "data_x": NUL bytes */
  static const unsigned char u16[] = {0xff, 0xfe, 'd', 0, 'a', 0, 't', 0, 'a', 0, '_', 0, 'x', 0, '\n', 0};
  file_case("utf16.cif", u16, sizeof u16, 0, SP_E_BINARY);
  /* a PNG inside gzip: inflated, then binary */
  size_t gl = 0;
  unsigned char *g = gzip_bytes(png, sizeof png, 6, &gl);
  file_case("image.png.gz", g, gl, 0, SP_E_BINARY);
  free(g);
}

static void test_encoding(void) {
  /* Latin-1 and invalid UTF-8 in a title, a text field, atom names and a comp id: kept byte for byte */
  const char *cif =
      "data_x\n_struct.title 'Prot\xe9ine \xc3\x28 \xff\xfe'\n_struct.pdbx_descriptor\n;caf\xe9\r\n;\n"
      "loop_\n_atom_site.group_PDB\n_atom_site.id\n_atom_site.type_symbol\n_atom_site.label_atom_id\n"
      "_atom_site.label_comp_id\n_atom_site.label_asym_id\n_atom_site.label_seq_id\n_atom_site.Cartn_x\n"
      "_atom_site.Cartn_y\n_atom_site.Cartn_z\n"
      "HETATM 1 C C\xe9" "1 L\xe9G A . 1.5 2.5 3.5\nHETATM 2 O \"O\xff\" L\xe9G A . 1.0 2.0 3.0\n";
  sp_structure s;
  sp_structure_init(&s);
  sp_err e;
  int fmt;
  int rc = read_text(cif, strlen(cif), &s, &fmt, &e);
  CHECK(rc == 0 && fmt == SP_FMT_MMCIF && s.n_atoms == 2, "Latin-1 mmCIF: %s (%s)", sp_errclass_name(rc), e.msg);
  if (!rc) {
    CHECK(!strcmp(s.atom_name[0], "C\xe9" "1") && !strcmp(s.atom_name[1], "O\xff"), "atom names '%s' '%s'",
          s.atom_name[0], s.atom_name[1]);
    CHECK(!strcmp(s.residues[0].comp_id, "L\xe9G") && s.n_residues == 1, "comp id '%s'", s.residues[0].comp_id);
    CHECK(s.element[0] == 6 && s.element[1] == 8 && s.xyz[0][2] == 3.5f, "elements %d %d", s.element[0], s.element[1]);
  }
  const char *pdb =
      "HEADER    CAF\xc9                                                1ABC\n"
      "REMARK   1 \xc3\x28\xff\xfe invalid UTF-8\n"
      "HETATM    1  C\xe9" "1 L\xe9G A   1       1.500   2.500   3.500  1.00 10.00           C\n"
      "HETATM    2  O   L\xe9G A   1       1.000   2.000   3.000  1.00 10.00           O\n";
  rc = read_text(pdb, strlen(pdb), &s, &fmt, &e);
  CHECK(rc == 0 && fmt == SP_FMT_PDB && s.n_atoms == 2, "Latin-1 PDB: %s (%s)", sp_errclass_name(rc), e.msg);
  if (!rc) {
    CHECK(!strcmp(s.atom_name[0], "C\xe9" "1") && !strcmp(s.residues[0].comp_id, "L\xe9G"), "PDB names '%s' '%s'",
          s.atom_name[0], s.residues[0].comp_id);
    CHECK(s.element[0] == 6 && s.xyz[0][0] == 1.5f, "PDB element %d", s.element[0]);
  }
  /* UTF-8 byte order mark before data_ / HEADER */
  char bom[4096];
  snprintf(bom, sizeof bom, "\xef\xbb\xbf%s", cif);
  rc = read_text(bom, strlen(bom), &s, &fmt, &e);
  CHECK(rc == 0 && fmt == SP_FMT_MMCIF && s.n_atoms == 2, "BOM mmCIF: %s (%s)", sp_errclass_name(rc), e.msg);
  snprintf(bom, sizeof bom, "\xef\xbb\xbf%s", pdb);
  rc = read_text(bom, strlen(bom), &s, &fmt, &e);
  CHECK(rc == 0 && fmt == SP_FMT_PDB && s.n_atoms == 2, "BOM PDB: %s (%s)", sp_errclass_name(rc), e.msg);
  sp_structure_free(&s);
  printf("non-UTF-8 mmCIF and PDB, UTF-8 BOM: read, bytes kept\n");
}

/* A real entry cut at many offsets: 0 or a documented class, never a crash. */
static void test_truncated_texts(const char *shared) {
  static const char *const files[] = {"1crn.cif.gz", "1crn.pdb", "2koc.cif"};
  sp_structure s;
  sp_structure_init(&s);
  for (size_t f = 0; f < 3; ++f) {
    char path[1024];
    snprintf(path, sizeof path, "%s/data/structures/%s", shared, files[f]);
    size_t n = 0;
    char *t = slurp_gz(path, &n);
    size_t step = n / 150 + 1, counts[SP_ERRCLASS_COUNT] = {0};
    for (size_t cut = 0; cut <= n; cut += step) {
      /* an exact-size copy, so that a read past the cut is an ASan error */
      char *c = malloc(cut ? cut : 1);
      memcpy(c, t, cut);
      sp_err e;
      int fmt;
      int rc = read_text(c, cut, &s, &fmt, &e);
      if (rc >= 0 && rc < SP_ERRCLASS_COUNT) counts[rc]++;
      free(c);
    }
    printf("%s cut at %zu offsets:", files[f], n / step + 1);
    for (int k = 0; k < SP_ERRCLASS_COUNT; ++k)
      if (counts[k]) printf(" %s %zu", sp_errclass_name(k), counts[k]);
    printf("\n");
    /* the early cuts have no atoms yet; the late ones read (a partial structure is only ever
     * reported as such by PDB, which has no end marker that a cut could remove) */
    CHECK(counts[SP_E_NO_ATOMS] > 0 && counts[SP_OK] + counts[SP_E_ROW_COUNT] + counts[SP_E_SYNTAX] +
                                               counts[SP_E_BAD_VALUE] + counts[SP_E_NO_ATOMS] + counts[SP_E_FORMAT] ==
                                           n / step + 1,
          "%s: unexpected classes", files[f]);
    free(t);
  }
  sp_structure_free(&s);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s SHARED_DIR\n", argv[0]);
    return 2;
  }
  snprintf(g_tmp, sizeof g_tmp, "/tmp/sp_hostile_XXXXXX");
  if (!mkdtemp(g_tmp)) {
    fprintf(stderr, "mkdtemp: %s\n", strerror(errno));
    return 2;
  }
  test_empty();
  test_gzip(argv[1]);
  test_garbage();
  test_gib_line();
  test_missing_value();
  test_many_items();
  test_other_formats();
  test_encoding();
  test_truncated_texts(argv[1]);
  char cmd[512];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_tmp);
  if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", g_tmp);
  printf("test_io_hostile: %d checks, %d failed\n", g_checks, g_fail);
  return g_fail ? 1 : 0;
}

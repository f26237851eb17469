/* CCD texts as they come from other hands (adversarial trial, finding 11 and its minor items):
 * a UTF-8 byte order mark before the first block, CR LF line ends, both, plain or gzip, through
 * every way of opening a CCD (text, file, mapped file); a block id that occurs twice (a CCD with
 * local components appended: the last block of the id is used, sp_ccd_duplicates says so); a bond
 * listed twice in a block (one bond) and a bond of an atom to itself (none). With the excerpt
 * (optional argument): its 131 blocks with a BOM, and with a BOM and CR LF line ends, plain and gzip.
 * Usage: test_ccd_text_variants [CCD_EXCERPT_CIF] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "sitepack/ccd.h"
#include "sitepack/io.h"

#include "sp_test.h"

static const char *k_ccd =
    "data_ZZ1\n"
    "_chem_comp.id ZZ1\n"
    "_chem_comp.name 'first block'\n"
    "_chem_comp.type NON-POLYMER\n"
    "loop_\n"
    "_chem_comp_atom.comp_id\n"
    "_chem_comp_atom.atom_id\n"
    "_chem_comp_atom.type_symbol\n"
    "ZZ1 C1 C\n"
    "ZZ1 O1 O\n"
    "ZZ1 C2 C\n"
    "ZZ1 O2 O\n"
    "#\n"
    "loop_\n"
    "_chem_comp_bond.comp_id\n"
    "_chem_comp_bond.atom_id_1\n"
    "_chem_comp_bond.atom_id_2\n"
    "_chem_comp_bond.value_order\n"
    "_chem_comp_bond.pdbx_aromatic_flag\n"
    "ZZ1 C1 O1 ? ?\n"
    "ZZ1 C1 C2 SING N\n"
    "ZZ1 C2 O2 DOUB N\n"
    "ZZ1 C1 C1 SING N\n"
    "ZZ1 O1 C1 SING N\n"
    "ZZ1 C1 C2 DOUB N\n"
    "#\n"
    "data_ZZ3\n"
    "_chem_comp.id ZZ3\n"
    "_chem_comp.name 'ZZ3 of the CCD'\n"
    "_chem_comp_atom.comp_id ZZ3\n"
    "_chem_comp_atom.atom_id C1\n"
    "_chem_comp_atom.type_symbol C\n"
    "#\n"
    "data_ZZ2\n"
    "_chem_comp.id ZZ2\n"
    "_chem_comp_atom.comp_id ZZ2\n"
    "_chem_comp_atom.atom_id N1\n"
    "_chem_comp_atom.type_symbol N\n"
    "#\n"
    "data_ZZ3\n"
    "_chem_comp.id ZZ3\n"
    "_chem_comp.name 'ZZ3 appended'\n"
    "_chem_comp_atom.comp_id ZZ3\n"
    "_chem_comp_atom.atom_id S1\n"
    "_chem_comp_atom.type_symbol S\n"
    "#\n";

/* @p t with a BOM in front (bom) and/or every LF as CR LF (crlf); malloc'd, *n its length */
static char *variant(const char *t, size_t len, int bom, int crlf, size_t *n) {
  char *o = malloc(2 * len + 4), *q = o;
  if (bom) *q++ = (char)0xEF, *q++ = (char)0xBB, *q++ = (char)0xBF;
  for (size_t i = 0; i < len; ++i) {
    if (crlf && t[i] == '\n') *q++ = '\r';
    *q++ = t[i];
  }
  *n = (size_t)(q - o);
  return o;
}

static void put_file(const char *path, const char *t, size_t n, int gz) {
  if (gz) {
    gzFile g = gzopen(path, "wb");
    CHECK(g && gzwrite(g, t, (unsigned)n) == (int)n, "gzwrite %s", path);
    if (g) gzclose(g);
  } else {
    FILE *f = fopen(path, "wb");
    CHECK(f && fwrite(t, 1, n, f) == n, "write %s", path);
    if (f) fclose(f);
  }
}

/* the inline CCD: 3 ids (ZZ3 twice: the second, appended block is used), ZZ1's bonds */
static void check_inline(sp_ccd *c, const char *tag) {
  const sp_ccd_index *ix = sp_ccd_get_index(c);
  CHECK(ix->n == 3, "%s: %zu blocks indexed, want 3", tag, ix->n);
  char dup[SP_ID_LEN] = "x";
  size_t nd = sp_ccd_duplicates(c, dup);
  CHECK(nd == 1 && !strcmp(dup, "ZZ3"), "%s: duplicates %zu (first '%s'), want 1 (ZZ3)", tag, nd, dup);
  sp_err err = {0};
  const sp_component *z1 = sp_ccd_get(c, "ZZ1", &err);
  CHECK(z1 && !strcmp(z1->name, "first block") && z1->n_atoms == 4, "%s: ZZ1 (the first block): %s", tag, err.msg);
  /* rows: C1-O1 ?, C1-C2 SING, C2-O2 DOUB, C1-C1 (self), O1-C1 SING (C1-O1 again), C1-C2 DOUB (again) */
  if (z1) {
    CHECK(z1->n_bonds == 3, "%s: ZZ1 has %zu bonds, want 3 (a pair listed twice is one bond, no self bond)", tag,
          z1->n_bonds);
    if (z1->n_bonds == 3) {
      CHECK(z1->bonds[0].a == 0 && z1->bonds[0].b == 1 && z1->bonds[0].order == 1,
            "%s: C1-O1 takes the order of its later row (SING), got %u", tag, z1->bonds[0].order);
      CHECK(z1->bonds[1].a == 0 && z1->bonds[1].b == 2 && z1->bonds[1].order == 1,
            "%s: C1-C2 keeps its first row's order (SING), got %u", tag, z1->bonds[1].order);
      CHECK(z1->bonds[2].a == 2 && z1->bonds[2].b == 3 && z1->bonds[2].order == 2, "%s: C2-O2 DOUB", tag);
    }
  }
  const sp_component *z3 = sp_ccd_get(c, "ZZ3", &err);
  CHECK(z3 && !strcmp(z3->name, "ZZ3 appended") && z3->n_atoms == 1 && !strcmp(z3->atoms[0].name, "S1"),
        "%s: ZZ3 is the last block of the id: %s", tag, z3 ? z3->name : err.msg);
  CHECK(sp_ccd_get(c, "ZZ2", &err) != NULL, "%s: ZZ2", tag);
}

static void check_excerpt(const char *path) {
  sp_buf b = {0};
  sp_err err = {0};
  CHECK(sp_file_read(path, 0, &b, &err) == 0, "read %s: %s", path, err.msg);
  if (!b.data) return;
  sp_ccd *c = NULL;
  CHECK(sp_ccd_open_source(&(sp_ccd_source){.kind = SP_CCD_SRC_TEXT, .text = b.data, .len = b.len},
      &c, &err) == 0, "excerpt: %s", err.msg);
  size_t n0 = c ? sp_ccd_get_index(c)->n : 0;
  const sp_component *k = c ? sp_ccd_get(c, sp_ccd_get_index(c)->ids[0], &err) : NULL;
  size_t atoms0 = k ? k->n_atoms : 0;
  CHECK(n0 == 131 && atoms0 > 0, "excerpt: %zu blocks, want 131", n0);
  sp_ccd_close(c);
  for (int v = 1; v < 4; ++v) {
    int bom = v & 1, crlf = v >> 1;
    size_t n;
    char *t = variant(b.data, b.len, bom, crlf, &n);
    for (int gz = 0; gz < 2; ++gz) {
      char path2[] = "/tmp/test_ccd_text_variants_XXXXXX";
      int fd = mkstemp(path2);
      CHECK(fd >= 0, "mkstemp");
      close(fd);
      put_file(path2, t, n, gz);
      c = NULL;
      CHECK(sp_ccd_open(path2, &c, &err) == 0, "excerpt bom %d crlf %d gz %d: %s", bom, crlf, gz, err.msg);
      if (c) {
        const sp_ccd_index *ix = sp_ccd_get_index(c);
        CHECK(ix->n == 131 && sp_ccd_duplicates(c, NULL) == 0, "excerpt bom %d crlf %d gz %d: %zu blocks, want 131",
              bom, crlf, gz, ix->n);
        k = sp_ccd_get(c, ix->ids[0], &err);
        CHECK(k && k->n_atoms == atoms0, "excerpt bom %d crlf %d gz %d: first block data_%s: %s", bom, crlf, gz,
              ix->ids[0], k ? "atoms differ" : err.msg);
        sp_ccd_close(c);
      }
      unlink(path2);
    }
    free(t);
  }
  sp_buf_free(&b);
}

int main(int argc, char **argv) {
  size_t len = strlen(k_ccd);
  sp_err err = {0};
  for (int v = 0; v < 4; ++v) {
    int bom = v & 1, crlf = v >> 1;
    size_t n;
    char *t = variant(k_ccd, len, bom, crlf, &n);
    char tag[96];
    snprintf(tag, sizeof tag, "text bom %d crlf %d", bom, crlf);
    sp_ccd *c = NULL;
    CHECK(sp_ccd_open_source(&(sp_ccd_source){.kind = SP_CCD_SRC_TEXT, .text = t, .len = n},
        &c, &err) == 0, "%s: %s", tag, err.msg);
    if (c) check_inline(c, tag);
    sp_ccd_close(c);
    sp_ccd_index idx;
    size_t nd = 0;
    CHECK(sp_ccd_index_build(t, n, &idx, &nd, &err) == 0 && idx.n == 3 && nd == 1 &&
              idx.offset[0] == (bom ? 3u : 0u),
          "%s: index_build: %zu blocks, %zu duplicates, first at %llu", tag, idx.n, nd,
          idx.n ? (unsigned long long)idx.offset[0] : 0ull);
    sp_ccd_index_free(&idx);
    for (int how = 0; how < 3; ++how) { /* file, gzip file, mapped file */
      char path[] = "/tmp/test_ccd_text_variants_XXXXXX";
      int fd = mkstemp(path);
      CHECK(fd >= 0, "mkstemp");
      close(fd);
      put_file(path, t, n, how == 1);
      snprintf(tag, sizeof tag, "%s bom %d crlf %d", how == 0 ? "file" : how == 1 ? "gzip file" : "mapped file", bom,
               crlf);
      c = NULL;
      int rc = how == 2 ? sp_ccd_open_source(&(sp_ccd_source){.kind = SP_CCD_SRC_MAPPED, .path = path},
          &c, &err) : sp_ccd_open(path, &c, &err);
      CHECK(rc == 0, "%s: %s", tag, err.msg);
      if (c) check_inline(c, tag);
      sp_ccd_close(c);
      unlink(path);
    }
    free(t);
  }
  if (argc > 1) check_excerpt(argv[1]);
  return sp_test_done("test_ccd_text_variants");
}

/* CCD reader on the real excerpt (shared/data/ccd/components_excerpt.cif, 131 wwPDB blocks):
 * index (every block found, sorted, offsets at "data_ID"), the gzip copy gives the same
 * index, and every component's atom / heavy-atom / bond / aromatic-bond / double-bond
 * counts, release status and InChIKey are compared with gemmi's CIF reader (Debian
 * python3-gemmi), run here through /usr/bin/python3.
 * Usage: test_ccd CCD_EXCERPT_CIF PYTHON3 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sitepack/ccd.h"

#include "sp_test.h"

static const char *k_py =
    "import sys, gemmi\n"
    "doc = gemmi.cif.read(sys.argv[1])\n"
    "for b in doc:\n"
    "    ids = list(b.find_values('_chem_comp_atom.atom_id'))\n"
    "    el = list(b.find_values('_chem_comp_atom.type_symbol'))\n"
    "    heavy = sum(1 for e in el if e.upper() not in ('H', 'D', 'T'))\n"
    "    orders = [o.upper() for o in b.find_values('_chem_comp_bond.value_order')]\n"
    "    arom = sum(1 for f in b.find_values('_chem_comp_bond.pdbx_aromatic_flag') if f.upper() == 'Y')\n"
    "    ik = ''\n"
    "    t = b.find('_pdbx_chem_comp_descriptor.', ['type', 'descriptor'])\n"
    "    for r in t:\n"
    "        if r.str(0) == 'InChIKey': ik = r.str(1); break\n"
    "    rs = b.find_value('_chem_comp.pdbx_release_status') or '?'\n"
    "    print(b.name, len(ids), heavy, len(orders), arom, orders.count('DOUB'), gemmi.cif.as_string(rs) or '-', ik or '-')\n";

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s CCD_CIF PYTHON3\n", argv[0]);
    return 2;
  }
  const char *path = argv[1];
  sp_ccd *ccd = NULL;
  sp_err err = {0};
  int rc = sp_ccd_open(path, &ccd, &err);
  CHECK(rc == 0, "open %s: %s", path, err.msg);
  if (rc) return 1;
  const sp_ccd_index *idx = sp_ccd_get_index(ccd);
  CHECK(idx->n == 131, "%zu blocks, expected 131", idx->n);
  const char *text = NULL;
  {
    /* offsets point at "data_ID" (re-read the file independently) */
    FILE *f = fopen(path, "rb");
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    char *b = malloc((size_t)n + 1);
    CHECK(b && fread(b, 1, (size_t)n, f) == (size_t)n, "read");
    fclose(f);
    CHECK((size_t)n == sp_ccd_text_bytes(ccd), "text bytes");
    uint64_t total = 0;
    for (size_t i = 0; i < idx->n; ++i) {
      if (i) CHECK(strcmp(idx->ids[i - 1], idx->ids[i]) < 0, "index sorted at %zu", i);
      CHECK(!strncmp(b + idx->offset[i], "data_", 5) && !strncmp(b + idx->offset[i] + 5, idx->ids[i], strlen(idx->ids[i])),
            "offset of %s", idx->ids[i]);
      CHECK(sp_ccd_index_find(idx, idx->ids[i]) == (long)i, "find %s", idx->ids[i]);
      total += idx->length[i];
    }
    CHECK(total + idx->offset[0] == (uint64_t)n || total <= (uint64_t)n, "lengths cover the text");
    CHECK(sp_ccd_index_find(idx, "ZZZZZ") == -1 && sp_ccd_index_find(idx, "") == -1, "absent ids");
    text = b;
    /* duplicate ids keep the last block */
    size_t nd = 99;
    sp_ccd_index i2;
    char *twice = malloc(2 * (size_t)n + 1);
    memcpy(twice, b, (size_t)n);
    memcpy(twice + n, b, (size_t)n);
    CHECK(sp_ccd_index_build(twice, 2 * (size_t)n, &i2, &nd, &err) == 0 && i2.n == 131 && nd == 131, "duplicates: %zu", nd);
    CHECK(i2.offset[0] >= (uint64_t)n, "last duplicate kept");
    sp_ccd_index_free(&i2);
    free(twice);
  }
  /* the gzip copy: same index */
  {
    char gz[1024];
    snprintf(gz, sizeof gz, "%s.gz", path);
    sp_ccd *c2 = NULL;
    if (sp_ccd_open(gz, &c2, &err) == 0) {
      CHECK(sp_ccd_get_index(c2)->n == 131 && sp_ccd_text_bytes(c2) == sp_ccd_text_bytes(ccd), "gz index");
      sp_ccd_close(c2);
    } else {
      CHECK(0, "open %s: %s", gz, err.msg);
    }
    CHECK(sp_ccd_open("/nonexistent/components.cif", &c2, &err) != 0 && !c2, "missing file is an error");
  }
  /* peer: gemmi */
  char script[] = "/tmp/sp_test_ccd_XXXXXX";
  int fd = mkstemp(script);
  CHECK(fd >= 0, "mkstemp");
  FILE *sf = fdopen(fd, "w");
  fputs(k_py, sf);
  fclose(sf);
  char cmd[2048];
  snprintf(cmd, sizeof cmd, "%s %s %s", argv[2], script, path);
  FILE *p = popen(cmd, "r");
  CHECK(p, "popen");
  char line[512];
  int n_lines = 0, n_hem = 0;
  while (p && fgets(line, sizeof line, p)) {
    char id[64], rs[64], ik[64];
    int na, nh, nb, nar, nd;
    if (sscanf(line, "%63s %d %d %d %d %d %63s %63s", id, &na, &nh, &nb, &nar, &nd, rs, ik) != 8) continue;
    ++n_lines;
    const sp_component *c = sp_ccd_get(ccd, id, &err);
    CHECK(c, "component %s: %s", id, err.msg);
    if (!c) continue;
    int arom = 0, doub = 0;
    for (size_t i = 0; i < c->n_bonds; ++i) arom += c->bonds[i].aromatic, doub += c->bonds[i].order == 2;
    CHECK((int)c->n_atoms == na && (int)sp_component_heavy_atoms(c) == nh && (int)c->n_bonds == nb && arom == nar &&
              doub == nd,
          "%s: atoms %zu/%d heavy %zu/%d bonds %zu/%d arom %d/%d double %d/%d", id, c->n_atoms, na,
          sp_component_heavy_atoms(c), nh, c->n_bonds, nb, arom, nar, doub, nd);
    /* release_status holds up to 11 characters ("REF_ONLY" whole) */
    CHECK(!strcmp(rs, "-") ? !c->release_status[0] : !strcmp(c->release_status, rs),
          "%s release %s/%s", id, c->release_status, rs);
    CHECK(!strcmp(ik, "-") ? !c->inchikey[0] : !strcmp(c->inchikey, ik), "%s inchikey %s/%s", id, c->inchikey, ik);
    CHECK(!strcmp(c->id, id), "%s id", id);
    /* every bond joins two distinct atoms */
    for (size_t i = 0; i < c->n_bonds; ++i)
      CHECK(c->bonds[i].a < c->n_atoms && c->bonds[i].b < c->n_atoms && c->bonds[i].a != c->bonds[i].b, "%s bond %zu", id, i);
    if (!strcmp(id, "HEM")) {
      ++n_hem;
      int fe = sp_component_atom_index(c, "FE");
      CHECK(fe >= 0 && c->atoms[fe].element == 26, "HEM FE");
    }
  }
  CHECK(p && pclose(p) == 0, "python/gemmi failed");
  unlink(script);
  CHECK(n_lines == 131, "gemmi listed %d blocks", n_lines);
  CHECK(n_hem == 1, "HEM present");
  /* parse a block directly */
  {
    long i = sp_ccd_index_find(idx, "NAG");
    CHECK(i >= 0, "NAG in index");
    if (i >= 0) {
      sp_component c;
      CHECK(sp_component_parse(text + idx->offset[i], (size_t)idx->length[i], &c, &err) == 0, "NAG parse: %s", err.msg);
      CHECK(!strcmp(c.id, "NAG") && c.n_atoms > 0 && c.inchikey[0], "NAG fields");
      const sp_component *cached = sp_ccd_get(ccd, "NAG", NULL);
      CHECK(cached && cached->n_atoms == c.n_atoms && cached->n_bonds == c.n_bonds, "NAG cached = parsed");
      sp_component_free(&c);
    }
  }
  free((void *)text);
  sp_ccd_close(ccd);
  if (g_fail) fprintf(stderr, "%d failures\n", g_fail);
  else printf("CCD: 131 blocks match gemmi\n");
  return g_fail ? 1 : 0;
}

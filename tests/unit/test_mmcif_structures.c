/* Every mmCIF file (*.cif, *.cif.gz) of shared/data/structures is read with sp_mmcif_read
 * and compared with gemmi's read_structure (Debian python3-gemmi, run here through
 * /usr/bin/python3): number of models, atoms of model 1, atoms in all models, and the
 * coordinates of the first and last atom of model 1.
 * Usage: test_mmcif_structures STRUCTURES_DIR PYTHON3 */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "sitepack/mmcif.h"

#include "sp_test.h"

static const char *k_py =
    "import sys, os, gemmi\n"
    "d = sys.argv[1]\n"
    "for f in sorted(os.listdir(d)):\n"
    "    if not (f.endswith('.cif') or f.endswith('.cif.gz')): continue\n"
    "    b = gemmi.cif.read(os.path.join(d, f)).sole_block()\n"
    "    st = gemmi.make_structure_from_block(b)\n"
    "    tot = sum(m.count_atom_sites() for m in st)\n"
    "    atoms = [a for ch in st[0] for r in ch for a in r]\n"
    "    a0, a1 = atoms[0].pos, atoms[-1].pos\n"
    "    n = lambda tag: len(b.find_values(tag))\n"
    "    print(f, len(st), st[0].count_atom_sites(), tot, '%.3f %.3f %.3f %.3f %.3f %.3f' % (a0.x, a0.y, a0.z, a1.x, a1.y, a1.z),\n"
    "          n('_entity.id'), n('_entity_poly_seq.mon_id'), n('_struct_conn.id'), n('_chem_comp.id'),\n"
    "          n('_chem_comp_bond.atom_id_1'), '%.2f' % (st.resolution or -1))\n";

/* read a file, inflating gzip (zlib's gzread reads plain files as they are) */
static char *slurp_gz(const char *path, size_t *len) {
  gzFile g = gzopen(path, "rb");
  if (!g) return NULL;
  size_t cap = 1 << 20, n = 0;
  char *b = malloc(cap);
  for (;;) {
    if (!b) break;
    if (n + 65536 + 1 > cap) {
      cap *= 2;
      char *nb = realloc(b, cap);
      if (!nb) {
        free(b);
        b = NULL;
        break;
      }
      b = nb;
    }
    int r = gzread(g, b + n, 65536);
    if (r <= 0) break;
    n += (size_t)r;
  }
  gzclose(g);
  if (b) b[n] = 0;
  *len = n;
  return b;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s DIR PYTHON3\n", argv[0]);
    return 2;
  }
  char script[] = "/tmp/sp_test_mmcif_XXXXXX";
  int fd = mkstemp(script);
  CHECK(fd >= 0, "mkstemp");
  FILE *sf = fdopen(fd, "w");
  fputs(k_py, sf);
  fclose(sf);
  char cmd[4096];
  snprintf(cmd, sizeof cmd, "%s %s %s", argv[2], script, argv[1]);
  FILE *p = popen(cmd, "r");
  CHECK(p, "popen");
  char line[1024];
  int n_files = 0;
  sp_structure s;
  sp_structure_init(&s);
  size_t atoms_total = 0;
  while (p && fgets(line, sizeof line, p)) {
    char name[512];
    int nm, n1, n_ent, n_seq, n_conn, n_comp, n_bond;
    long tot;
    double c[6], res;
    if (sscanf(line, "%511s %d %d %ld %lf %lf %lf %lf %lf %lf %d %d %d %d %d %lf", name, &nm, &n1, &tot, &c[0], &c[1], &c[2],
               &c[3], &c[4], &c[5], &n_ent, &n_seq, &n_conn, &n_comp, &n_bond, &res) != 16) {
      CHECK(0, "bad gemmi line: %s", line);
      continue;
    }
    ++n_files;
    char path[2048];
    snprintf(path, sizeof path, "%s/%s", argv[1], name);
    size_t len;
    char *text = slurp_gz(path, &len);
    CHECK(text, "cannot read %s", path);
    if (!text) continue;
    sp_structure_clear(&s); /* re-use across files */
    sp_err err = {0};
    int rc = sp_mmcif_read(text, len, &s, &err);
    CHECK(rc == 0, "%s: %s: %s", name, sp_errclass_name(rc), err.msg);
    if (!rc) {
      atoms_total += s.n_atoms;
      CHECK((int)s.n_models == nm, "%s: %zu models, gemmi %d", name, s.n_models, nm);
      CHECK((int)s.models[0].n_atoms == n1, "%s: %u atoms in model 1, gemmi %d", name, s.models[0].n_atoms, n1);
      CHECK((long)s.n_atoms == tot, "%s: %zu atoms, gemmi %ld", name, s.n_atoms, tot);
      uint32_t a0 = s.models[0].first_atom, a1 = a0 + s.models[0].n_atoms - 1;
      for (int k = 0; k < 3; ++k) {
        CHECK(fabs(s.xyz[a0][k] - c[k]) < 1.5e-3, "%s: first atom coord %d %.4f vs %.3f", name, k, s.xyz[a0][k], c[k]);
        CHECK(fabs(s.xyz[a1][k] - c[3 + k]) < 1.5e-3, "%s: last atom coord %d %.4f vs %.3f", name, k, s.xyz[a1][k], c[3 + k]);
      }
      CHECK(s.entry_id[0] != 0, "%s: no entry id", name);
      CHECK((int)s.n_entities == n_ent, "%s: %zu entities, gemmi %d", name, s.n_entities, n_ent);
      /* sequences: microheterogeneous positions keep one mon_id, so never more than gemmi's rows */
      CHECK((int)s.n_seq <= n_seq && (n_seq == 0) == (s.n_seq == 0), "%s: %zu sequence residues, gemmi rows %d", name, s.n_seq, n_seq);
      CHECK((int)s.n_conns == n_conn, "%s: %zu struct_conn, gemmi %d", name, s.n_conns, n_conn);
      CHECK((int)s.n_file_comps == n_comp, "%s: %zu chem_comp, gemmi %d", name, s.n_file_comps, n_comp);
      CHECK((int)s.n_file_bonds == n_bond, "%s: %zu chem_comp_bond, gemmi %d", name, s.n_file_bonds, n_bond);
      if (res > 0) CHECK(fabs(s.resolution - res) < 0.006, "%s: resolution %.2f, gemmi %.2f", name, s.resolution, res);
      else CHECK(isnan(s.resolution) || s.resolution > 0, "%s: resolution %.2f, gemmi none", name, s.resolution);
    }
    free(text);
  }
  CHECK(p && pclose(p) == 0, "python/gemmi failed");
  unlink(script);
  sp_structure_free(&s);
  CHECK(n_files >= 100, "only %d mmCIF files listed", n_files);
  printf("%d mmCIF files, %zu atoms: %s\n", n_files, atoms_total, g_fail ? "MISMATCHES" : "all match gemmi");
  return g_fail ? 1 : 0;
}

/* Helper for tests/peer/test_reader_h5.py: print sites read by the C reader (reader.h).
 * Usage: test_reader_dump FILE.h5 auto|hdf5 INDEX...   Output: a line "counts S L N R A", then per
 * site "site I n_atoms n_ligand", then one line per atom "x y z element flags" (%.9g: exact float32). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sitepack/reader.h"

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: test_reader_dump FILE.h5 auto|hdf5 INDEX...\n");
    return 2;
  }
  sp_err e = {0};
  sp_reader *r = sp_reader_open(argv[1], strcmp(argv[2], "hdf5") ? SP_READER_AUTO : SP_READER_HDF5, &e);
  if (!r) {
    fprintf(stderr, "test_reader_dump: %s\n", e.msg);
    return 1;
  }
  sp_file_counts c;
  sp_reader_counts(r, &c);
  printf("counts %lld %lld %lld %lld %lld\n", (long long)c.n_structures, (long long)c.n_ligands, (long long)c.n_sites,
         (long long)c.n_residues, (long long)c.n_atoms);
  size_t n = (size_t)(argc - 3);
  int64_t *idx = malloc((n ? n : 1) * sizeof *idx);
  for (size_t k = 0; idx && k < n; k++) idx[k] = strtoll(argv[3 + k], NULL, 10);
  sp_site_batch b = {0};
  int rc = idx ? sp_reader_read_sites(r, idx, n, SP_FIELD_ALL, &b, &e) : 1;
  if (rc) fprintf(stderr, "test_reader_dump: %s\n", e.msg);
  for (size_t k = 0; !rc && k < n; k++) {
    printf("site %lld %d %d\n", (long long)idx[k], b.n_atoms_site[k], b.n_ligand[k]);
    for (int64_t a = b.atom_start[k]; a < b.atom_start[k + 1]; a++)
      printf("%.9g %.9g %.9g %u %u\n", b.position[3 * a], b.position[3 * a + 1], b.position[3 * a + 2], b.element[a],
             b.flags[a]);
  }
  sp_site_batch_free(&b);
  free(idx);
  sp_reader_close(r);
  return rc ? 1 : 0;
}

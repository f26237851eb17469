/* Node-shared CCD (src/app/ccd_shared.h) under mpirun: the plain excerpt is mapped,
 * its gzip copy is inflated once into a shared window, SITEPACK_CCD_PRIVATE=1 gives private
 * copies; in every mode each rank sees the same index and the same components as a private
 * sp_ccd_open (atom, bond and heavy-atom counts, names, coordinates of every block), the
 * SHA-256 equals that of the file as stored, and errors (missing file, truncated gzip) come
 * back with the same class on every rank.
 * usage: mpirun -np P test_ccd_shared CCD_EXCERPT_CIF CCD_EXCERPT_CIF_GZ WORKDIR */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/ccd_shared.h"
#include "sitepack/io.h"

#define SP_TEST_PREFIX() fprintf(stderr, "rank %d ", g_rank)
#include "sp_test.h"
static int g_rank = 0;

static void same_as_private(const char *path, sp_ccd *c, const char *label) {
  sp_ccd *ref = NULL;
  sp_err err = {0};
  CHECK(sp_ccd_open(path, &ref, &err) == 0, "%s: private open: %s", label, err.msg);
  if (!ref) return;
  const sp_ccd_index *a = sp_ccd_get_index(c), *b = sp_ccd_get_index(ref);
  CHECK(a->n == 131 && a->n == b->n, "%s: %zu blocks vs %zu", label, a->n, b->n);
  CHECK(sp_ccd_text_bytes(c) == sp_ccd_text_bytes(ref) && !memcmp(sp_ccd_text(c), sp_ccd_text(ref), sp_ccd_text_bytes(c)),
        "%s: text differs", label);
  for (size_t i = 0; i < a->n && i < b->n; ++i) {
    CHECK(!strcmp(a->ids[i], b->ids[i]) && a->offset[i] == b->offset[i] && a->length[i] == b->length[i],
          "%s: index row %zu", label, i);
    const sp_component *x = sp_ccd_get(c, a->ids[i], &err), *y = sp_ccd_get(ref, b->ids[i], &err);
    CHECK(x && y, "%s: component %s", label, a->ids[i]);
    if (!x || !y) continue;
    CHECK(x->n_atoms == y->n_atoms && x->n_bonds == y->n_bonds &&
              sp_component_heavy_atoms(x) == sp_component_heavy_atoms(y) && !strcmp(x->inchikey, y->inchikey),
          "%s: %s counts", label, x->id);
    for (size_t k = 0; k < x->n_atoms && k < y->n_atoms; ++k)
      CHECK(!strcmp(x->atoms[k].name, y->atoms[k].name) &&
                !memcmp(x->atoms[k].ideal_xyz, y->atoms[k].ideal_xyz, sizeof x->atoms[k].ideal_xyz),
            "%s: %s atom %zu", label, x->id, k);
  }
  const sp_component *hem = sp_ccd_get(c, "HEM", &err);
  CHECK(hem && hem->n_atoms == 75 && sp_component_heavy_atoms(hem) == 43, "%s: HEM 75 atoms, 43 heavy", label);
  sp_ccd_close(ref);
}

static void one(const char *path, int want_mode, const char *label) {
  sp_ccd_shared *s = NULL;
  sp_err err = {0};
  char sha[65] = "x";
  int rc = sp_ccd_open_shared(MPI_COMM_WORLD, path, &s, sha, &err);
  CHECK(rc == 0 && s, "%s: open: %s", label, err.msg);
  if (!s) return;
  int P = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  CHECK(sp_ccd_shared_mode(s) == want_mode, "%s: mode %s", label, sp_ccd_shared_mode_name(sp_ccd_shared_mode(s)));
  CHECK(sp_ccd_shared_node_ranks(s) == P, "%s: %d node ranks of %d (one host)", label, sp_ccd_shared_node_ranks(s), P);
  sp_buf b = {0};
  CHECK(sp_file_read(path, 0, &b, &err) == 0 && !strcmp(b.sha256, sha), "%s: sha %s vs %s", label, sha, b.sha256);
  sp_buf_free(&b);
  same_as_private(path, sp_ccd_shared_get(s), label);
  sp_ccd_shared_close(s);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  if (argc < 4) {
    if (!g_rank) fprintf(stderr, "usage: test_ccd_shared CCD_CIF CCD_CIF_GZ WORKDIR\n");
    MPI_Finalize();
    return 2;
  }
  unsetenv("SITEPACK_CCD_PRIVATE");
  one(argv[1], SP_CCD_MAPPED, "plain");
  one(argv[2], SP_CCD_WINDOW, "gz");
  setenv("SITEPACK_CCD_PRIVATE", "1", 1);
  one(argv[1], SP_CCD_PRIVATE, "private plain");
  one(argv[2], SP_CCD_PRIVATE, "private gz");
  unsetenv("SITEPACK_CCD_PRIVATE");

  /* errors: same class on every rank */
  sp_ccd_shared *s = NULL;
  sp_err err = {0};
  char sha[65];
  int rc = sp_ccd_open_shared(MPI_COMM_WORLD, "/nonexistent/components.cif.gz", &s, sha, &err);
  CHECK(rc == SP_E_NOT_FOUND && !s && !sha[0], "missing file: rc %d (%s)", rc, err.msg);
  char cut[4096];
  snprintf(cut, sizeof cut, "%s/cut.cif.gz", argv[3]);
  if (g_rank == 0) { /* the gzip excerpt cut in half */
    FILE *f = fopen(argv[2], "rb"), *o = fopen(cut, "wb");
    char *tmp = malloc(1 << 20);
    size_t n = f && tmp ? fread(tmp, 1, 1 << 20, f) : 0;
    if (o) fwrite(tmp, 1, n / 2, o);
    if (f) fclose(f);
    if (o) fclose(o);
    free(tmp);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  rc = sp_ccd_open_shared(MPI_COMM_WORLD, cut, &s, NULL, &err);
  CHECK(rc == SP_E_TRUNCATED_GZIP && !s, "truncated gzip: rc %d (%s)", rc, err.msg);

  int all = 0;
  MPI_Allreduce(&g_fail, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (!g_rank && all) printf("test_ccd_shared: %d failure(s)\n", all);
  if (!g_rank && !all) printf("test_ccd_shared: all checks passed\n");
  MPI_Finalize();
  return all ? 1 : 0;
}

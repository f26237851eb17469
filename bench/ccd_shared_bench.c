/* Memory of a node-shared CCD vs one private copy per rank (issue 4). Every rank opens the CCD
 * with sp_ccd_open_shared (SITEPACK_CCD_PRIVATE=1: private copies), looks up N components, and
 * reports from /proc/self: VmHWM (peak RSS, which counts every shared page the rank touched),
 * VmRSS, RssAnon (private), RssFile + RssShmem (shared pages touched) and Pss (proportional
 * share: shared pages divided by the processes mapping them; the sum of Pss over the ranks is
 * the node's memory). Rank 0 prints one JSON object.
 * usage: mpirun -np P ccd_shared_bench CCD [N_LOOKUPS] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/ccd_shared.h"
#include "sitepack/io.h"

enum { F_HWM, F_RSS, F_ANON, F_FILE, F_SHMEM, F_PSS, F_N };
static const char *k_names[F_N] = {"VmHWM", "VmRSS", "RssAnon", "RssFile", "RssShmem", "Pss"};

static long field(const char *file, const char *key) {
  FILE *f = fopen(file, "r");
  char line[256];
  long v = -1;
  size_t kl = strlen(key);
  while (f && fgets(line, sizeof line, f))
    if (!strncmp(line, key, kl) && line[kl] == ':') {
      v = atol(line + kl + 1);
      break;
    }
  if (f) fclose(f);
  return v;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, P;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  if (argc < 2) {
    if (!rank) fprintf(stderr, "usage: ccd_shared_bench CCD [N_LOOKUPS]\n");
    MPI_Finalize();
    return 2;
  }
  int nlook = argc > 2 ? atoi(argv[2]) : 2000;
  sp_err err = {0};
  sp_ccd_shared *s = NULL;
  char sha[65];
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = sp_now();
  int rc = sp_ccd_open_shared(MPI_COMM_WORLD, argv[1], &s, sha, &err);
  double t_open = sp_now() - t0;
  if (rc) {
    if (!rank) fprintf(stderr, "open: %s\n", err.msg);
    MPI_Finalize();
    return 1;
  }
  sp_ccd *c = sp_ccd_shared_get(s);
  const sp_ccd_index *ix = sp_ccd_get_index(c);
  unsigned long long x = 88172645463325252ull + (unsigned long long)rank;
  double t1 = sp_now();
  int got = 0;
  for (int i = 0; i < nlook; ++i) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    got += sp_ccd_get(c, ix->ids[x % ix->n], NULL) != NULL;
  }
  double t_look = (sp_now() - t1) / nlook * 1e6;
  long mine[F_N + 1];
  for (int k = 0; k < F_N; ++k)
    mine[k] = field(k == F_PSS ? "/proc/self/smaps_rollup" : "/proc/self/status", k_names[k]);
  mine[F_N] = got;
  long *all = rank == 0 ? malloc(sizeof(long) * (F_N + 1) * (size_t)P) : NULL;
  double *topen = rank == 0 ? malloc(sizeof(double) * (size_t)P) : NULL;
  MPI_Gather(mine, F_N + 1, MPI_LONG, all, F_N + 1, MPI_LONG, 0, MPI_COMM_WORLD);
  MPI_Gather(&t_open, 1, MPI_DOUBLE, topen, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    printf("{\"ccd\": \"%s\", \"text_bytes\": %zu, \"ranks\": %d, \"node_ranks\": %d, \"mode\": \"%s\", "
           "\"lookups_per_rank\": %d, \"lookup_cold_us_mean_rank0\": %.2f, \"ranks_kib\": [",
           argv[1], sp_ccd_text_bytes(c), P, sp_ccd_shared_node_ranks(s), sp_ccd_shared_mode_name(sp_ccd_shared_mode(s)),
           nlook, t_look);
    long pss_sum = 0;
    for (int r = 0; r < P; ++r) {
      printf("%s{\"rank\": %d, \"open_s\": %.3f", r ? ", " : "", r, topen[r]);
      for (int k = 0; k < F_N; ++k) printf(", \"%s\": %ld", k_names[k], all[r * (F_N + 1) + k]);
      printf(", \"found\": %ld}", all[r * (F_N + 1) + F_N]);
      pss_sum += all[r * (F_N + 1) + F_PSS];
    }
    printf("], \"pss_sum_kib\": %ld}\n", pss_sum);
  }
  free(all);
  free(topen);
  sp_ccd_shared_close(s);
  MPI_Finalize();
  return 0;
}

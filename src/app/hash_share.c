/* The resume step's SHA-256 batches over the ranks (hash_share.h). */
#include "app/hash_share.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One digest as it travels: 64 hex characters and their NUL, then the gzip flag. */
enum { DIGEST = 66 };
/* Digests per MPI_Reduce (its count is an int). */
enum { CHUNK = 1 << 20 };

/* Memory for a batch on this rank; out of memory leaves the run (MPI_Abort): a batch is ~100 bytes a file. */
static void *need(MPI_Comm comm, size_t n, size_t size) {
  void *p = calloc(n ? n : 1, size);
  if (!p) {
    fprintf(stderr, "sitepack: out of memory hashing %zu files\n", n);
    MPI_Abort(comm, SP_EXIT_RUNTIME);
  }
  return p;
}

/* Collective over h->comm: batch idx[0..n) (every rank has it); this rank hashes every P-th file into
 * a zeroed buffer, MPI_BOR gives rank 0 every digest in @p out [n][DIGEST] (other ranks: NULL). */
static void hash_part(run_hash_share *h, const uint64_t *idx, size_t n, unsigned char *out) {
  int rank, P;
  MPI_Comm_rank(h->comm, &rank);
  MPI_Comm_size(h->comm, &P);
  unsigned char *mine = need(h->comm, n, DIGEST);
  for (size_t j = (size_t)rank; j < n; j += (size_t)P) {
    size_t f = (size_t)idx[j];
    uint8_t gz = 0;
    char sha[65];
    if (f < h->n && sp_run_hash_file(h->root, h->paths[f], sha, &gz) == 0) { /* unreadable: stays "" */
      memcpy(mine + j * DIGEST, sha, 65);
      mine[j * DIGEST + 65] = gz;
    }
  }
  for (size_t at = 0; at < n; at += CHUNK) {
    size_t k = n - at < CHUNK ? n - at : CHUNK;
    MPI_Reduce(mine + at * DIGEST, out ? out + at * DIGEST : NULL, (int)(k * DIGEST), MPI_BYTE, MPI_BOR, 0, h->comm);
  }
  free(mine);
}

/* Rank 0 side of a batch (sp_hasher.hash). */
static void hash_batch(void *ctx, const size_t *idx, size_t n, char (*sha)[65], uint8_t *gz) {
  run_hash_share *h = ctx;
  int64_t k = (int64_t)n;
  MPI_Bcast(&k, 1, MPI_INT64_T, 0, h->comm);
  uint64_t *ix = need(h->comm, n, sizeof *ix);
  unsigned char *out = need(h->comm, n, DIGEST);
  for (size_t j = 0; j < n; j++) ix[j] = idx[j];
  MPI_Bcast(ix, (int)n, MPI_UINT64_T, 0, h->comm);
  hash_part(h, ix, n, out);
  for (size_t j = 0; j < n; j++) {
    memcpy(sha[j], out + j * DIGEST, 65);
    sha[j][64] = 0;
    gz[j] = out[j * DIGEST + 65];
  }
  free(ix);
  free(out);
}

sp_hasher run_hasher(run_hash_share *h) { return (sp_hasher){h, hash_batch}; }

void run_hash_serve(run_hash_share *h) {
  for (;;) {
    int64_t k = -1;
    MPI_Bcast(&k, 1, MPI_INT64_T, 0, h->comm);
    if (k < 0) return;
    uint64_t *ix = need(h->comm, (size_t)k, sizeof *ix);
    MPI_Bcast(ix, (int)k, MPI_UINT64_T, 0, h->comm);
    hash_part(h, ix, (size_t)k, NULL);
    free(ix);
  }
}

void run_hash_stop(run_hash_share *h) {
  int64_t k = -1;
  MPI_Bcast(&k, 1, MPI_INT64_T, 0, h->comm);
}

/* `sitepack run`: the SHA-256 pre-pass of the resume step (app/resume.h sp_hasher) spread over the
 * ranks. Rank 0 runs sp_run_prepare() with run_hasher(); the other ranks serve its batches in
 * run_hash_serve() until rank 0 calls run_hash_stop(). Private to src/app. */
#ifndef SITEPACK_APP_HASH_SHARE_H
#define SITEPACK_APP_HASH_SHARE_H

#include <mpi.h>

#include "app/resume.h"

/* The files to hash: @p root / paths[i] (every rank holds the same list). Borrowed. */
typedef struct run_hash_share {
  MPI_Comm comm;
  const char *root;
  char *const *paths;
  size_t n;
} run_hash_share;

/* Rank 0: the sp_hasher of @p h: each batch is broadcast, every rank hashes every P-th file of it, rank 0
 * gets the digests (MPI_Reduce with MPI_BOR over zeroed buffers). */
sp_hasher run_hasher(run_hash_share *h);

/* Ranks other than 0: hash rank 0's batches until run_hash_stop(). */
void run_hash_serve(run_hash_share *h);

/* Rank 0: end the other ranks' run_hash_serve() (call it once, on every path out of the resume step). */
void run_hash_stop(run_hash_share *h);

#endif

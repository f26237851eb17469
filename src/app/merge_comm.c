/* sp_merge_comm over MPI (merge_comm.h): the store's parallel merge calls these collectives. */
#include "app/merge_comm.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static MPI_Comm comm_of(void *ctx) { return *(MPI_Comm *)ctx; }

/* The largest rc; the message of the lowest failed rank to every rank. */
static int agree(void *ctx, int rc, sp_err *err) {
  MPI_Comm comm = comm_of(ctx);
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  int v[2] = {rc, rc ? rank : size}, r[2] = {0, 0};
  int who;
  MPI_Allreduce(&v[0], &r[0], 1, MPI_INT, MPI_MAX, comm);
  MPI_Allreduce(&v[1], &who, 1, MPI_INT, MPI_MIN, comm);
  if (r[0] == 0) return 0;
  sp_err e;
  memset(&e, 0, sizeof e);
  if (rank == who && err) e = *err;
  MPI_Bcast(&e, (int)sizeof e, MPI_BYTE, who, comm);
  if (err) *err = e;
  return r[0];
}

static int max_i64(void *ctx, int64_t *v, size_t n) {
  return MPI_Allreduce(MPI_IN_PLACE, v, (int)n, MPI_INT64_T, MPI_MAX, comm_of(ctx)) == MPI_SUCCESS ? 0 : SP_E_MPI;
}

static int bcast(void *ctx, void *buf, size_t bytes) {
  if (bytes > INT_MAX) return SP_E_MPI;
  return MPI_Bcast(buf, (int)bytes, MPI_BYTE, 0, comm_of(ctx)) == MPI_SUCCESS ? 0 : SP_E_MPI;
}

/* Rank 0 receives each rank's bytes in rank order (one at a time: memory for one rank's part) and hands them
 * to take(); a take() failure still drains the other ranks. */
static int gather(void *ctx, const void *buf, size_t bytes, sp_merge_take_fn take, void *arg) {
  MPI_Comm comm = comm_of(ctx);
  int rank, size, rc = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  uint64_t mine = bytes;
  if (rank != 0) {
    MPI_Send(&mine, 1, MPI_UINT64_T, 0, 1, comm);
    if (bytes && bytes <= INT_MAX) MPI_Send(buf, (int)bytes, MPI_BYTE, 0, 2, comm);
    return 0;
  }
  rc = take(arg, 0, buf, bytes);
  char *in = NULL;
  for (int r = 1; r < size; r++) {
    uint64_t n = 0;
    MPI_Recv(&n, 1, MPI_UINT64_T, r, 1, comm, MPI_STATUS_IGNORE);
    if (n == 0) continue;
    if (n > INT_MAX) {
      rc = rc ? rc : SP_E_MPI; /* the sender sent nothing either */
      continue;
    }
    char *p = realloc(in, (size_t)n);
    if (p) in = p;
    else rc = rc ? rc : SP_E_NOMEM;
    MPI_Recv(p ? in : NULL, p ? (int)n : 0, MPI_BYTE, r, 2, comm, MPI_STATUS_IGNORE);
    if (!rc) rc = take(arg, r, in, (size_t)n);
  }
  free(in);
  return rc;
}

void sp_merge_comm_mpi(MPI_Comm *comm, sp_merge_comm *out) {
  memset(out, 0, sizeof *out);
  MPI_Comm_rank(*comm, &out->rank);
  MPI_Comm_size(*comm, &out->size);
  out->ctx = comm;
  out->agree = agree;
  out->max_i64 = max_i64;
  out->bcast = bcast;
  out->gather = gather;
}

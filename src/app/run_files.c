/* `sitepack run`: the input's file list on every rank (run_ctx.h run_phase_share_files,
 * run_phase_file_heads): rank 0 scanned it; every rank gets the paths and sizes, then reads the head
 * (gzip magic, entry id) of every P-th file; every rank gets every file's. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app/run_ctx.h"
#include "sitepack/read.h"

/* Collective: rank 0's file list (c->paths, c->bytes [c->n]) to every rank; the other ranks' paths point
   into one blob owned through paths[0] (run_ctx_free). Returns 0 or -1 (out of memory on this rank). */
static int bcast_files(struct run_ctx *c, int rank) {
  uint64_t hdr[2] = {c->n, 0};
  char *blob = NULL;
  if (rank == 0) {
    size_t tot = 0;
    for (size_t i = 0; i < c->n; ++i) tot += strlen(c->paths[i]) + 1;
    hdr[1] = tot;
    blob = malloc(tot ? tot : 1);
    if (!blob) return -1;
    size_t o = 0;
    for (size_t i = 0; i < c->n; ++i) {
      size_t l = strlen(c->paths[i]) + 1;
      memcpy(blob + o, c->paths[i], l);
      o += l;
    }
  }
  MPI_Bcast(hdr, 2, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  if (rank != 0) {
    c->n = hdr[0];
    blob = malloc(hdr[1] ? hdr[1] : 1);
    c->paths = calloc(c->n ? c->n : 1, sizeof *c->paths);
    c->bytes = calloc(c->n ? c->n : 1, sizeof *c->bytes);
    if (!blob || !c->paths || !c->bytes) return -1;
  }
  /* blobs above 2 GiB are not expected (paths of millions of files fit easily) */
  MPI_Bcast(blob, (int)hdr[1], MPI_CHAR, 0, MPI_COMM_WORLD);
  MPI_Bcast(c->bytes, (int)c->n, MPI_INT64_T, 0, MPI_COMM_WORLD);
  if (rank != 0) {
    size_t o = 0;
    for (size_t i = 0; i < c->n; ++i) {
      c->paths[i] = blob + o;
      o += strlen(blob + o) + 1;
    }
    /* blob is owned through paths[0] */
  } else {
    free(blob);
  }
  return 0;
}

/* Collective: rank 0's input root (changed by the scan for a single-file input) and file list to every
 * rank (c->paths, c->bytes; owned by c). Returns 0; out of memory aborts the run (MPI_Abort,
 * SP_EXIT_RUNTIME). */
int run_phase_share_files(struct run_ctx *c) {
  int l = c->rank == 0 ? (int)strlen(c->job.input) + 1 : 0;
  MPI_Bcast(&l, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (c->rank != 0) {
    char *p = realloc(c->job.input, (size_t)l);
    if (!p) MPI_Abort(MPI_COMM_WORLD, SP_EXIT_RUNTIME);
    c->job.input = p;
  }
  MPI_Bcast(c->job.input, l, MPI_CHAR, 0, MPI_COMM_WORLD);
  if (bcast_files(c, c->rank)) {
    fprintf(stderr, "sitepack: rank %d: out of memory\n", c->rank);
    MPI_Abort(MPI_COMM_WORLD, SP_EXIT_RUNTIME);
  }
  return 0;
}

/* @p n items of @p size bytes at @p buf combined over the ranks with MPI_BOR (every item set by one rank
 * only, zero elsewhere): on every rank with @p all, on rank 0 only otherwise. In pieces: counts are ints. */
static void or_bytes(void *buf, size_t n, size_t size, int all, int rank) {
  const size_t piece = (size_t)1 << 30;
  for (size_t at = 0; at < n * size; at += piece) {
    size_t k = n * size - at < piece ? n * size - at : piece;
    char *p = (char *)buf + at;
    if (all) MPI_Allreduce(MPI_IN_PLACE, p, (int)k, MPI_BYTE, MPI_BOR, MPI_COMM_WORLD);
    else MPI_Reduce(rank == 0 ? MPI_IN_PLACE : p, p, (int)k, MPI_BYTE, MPI_BOR, 0, MPI_COMM_WORLD);
  }
}

/* Declared in app/run_ctx.h. Reading the head of every file is a disk read per file (the gzip magic of
 * 20,000 files from a cold cache: 6.7 s, against 0.43 s for their directory entries and sizes). */
int run_phase_file_heads(struct run_ctx *c) {
  size_t n = c->n, n1 = n ? n : 1;
  c->gz = calloc(n1, 1);
  c->entry_key = calloc(n1, sizeof *c->entry_key);
  c->entry_first = calloc(n1, sizeof *c->entry_first);
  if (!c->gz || !c->entry_key || !c->entry_first) {
    fprintf(stderr, "sitepack: rank %d: out of memory\n", c->rank);
    MPI_Abort(MPI_COMM_WORLD, SP_EXIT_RUNTIME);
  }
  for (size_t i = (size_t)c->rank; i < n; i += (size_t)c->n_ranks) {
    char full[8192];
    int gz = 0;
    snprintf(full, sizeof full, "%s/%s", c->job.input, c->paths[i]);
    sp_read_entry_peek(full, c->entry_key[i], sizeof c->entry_key[i], &gz); /* unreadable: "", 0; its task says why */
    c->gz[i] = (uint8_t)gz;
  }
  or_bytes(c->gz, n, 1, 1, c->rank);
  or_bytes(c->entry_key, n, sizeof *c->entry_key, 1, c->rank); /* every rank: a failed file's entry_id (run_task.c) */
  if (c->rank == 0 && run_entries_first(c)) {
    fprintf(stderr, "sitepack run: out of memory\n");
    MPI_Abort(MPI_COMM_WORLD, SP_EXIT_RUNTIME);
  }
  for (size_t at = 0; at < n; at += (size_t)1 << 27)
    MPI_Bcast(c->entry_first + at, (int)(n - at < ((size_t)1 << 27) ? n - at : (size_t)1 << 27), MPI_INT64_T, 0,
              MPI_COMM_WORLD);
  return 0;
}

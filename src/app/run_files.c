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

/* Collective: rank 0's file list (f->paths, f->bytes [f->n]) to every rank; the other ranks' paths point
   into one blob owned through paths[0] (run_ctx_free). Returns 0 or -1 (out of memory on this rank). */
static int bcast_files(struct run_files *f, int rank) {
  uint64_t hdr[2] = {f->n, 0};
  char *blob = NULL;
  if (rank == 0) {
    size_t tot = 0;
    for (size_t i = 0; i < f->n; ++i) tot += strlen(f->paths[i]) + 1;
    hdr[1] = tot;
    blob = malloc(tot ? tot : 1);
    if (!blob) return -1;
    size_t o = 0;
    for (size_t i = 0; i < f->n; ++i) {
      size_t l = strlen(f->paths[i]) + 1;
      memcpy(blob + o, f->paths[i], l);
      o += l;
    }
  }
  MPI_Bcast(hdr, 2, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  if (rank != 0) {
    f->n = hdr[0];
    blob = malloc(hdr[1] ? hdr[1] : 1);
    f->paths = calloc(f->n ? f->n : 1, sizeof *f->paths);
    f->bytes = calloc(f->n ? f->n : 1, sizeof *f->bytes);
    if (!blob || !f->paths || !f->bytes) return -1;
  }
  /* blobs above 2 GiB are not expected (paths of millions of files fit easily) */
  MPI_Bcast(blob, (int)hdr[1], MPI_CHAR, 0, MPI_COMM_WORLD);
  MPI_Bcast(f->bytes, (int)f->n, MPI_INT64_T, 0, MPI_COMM_WORLD);
  if (rank != 0) {
    size_t o = 0;
    for (size_t i = 0; i < f->n; ++i) {
      f->paths[i] = blob + o;
      o += strlen(blob + o) + 1;
    }
    /* blob is owned through paths[0] */
  } else {
    free(blob);
  }
  return 0;
}

/* Collective: rank 0's input root (changed by the scan for a single-file input) and file list to every
 * rank (f->paths, f->bytes; owned by f). Returns 0; out of memory aborts the run (MPI_Abort,
 * SP_EXIT_RUNTIME). */
int run_phase_share_files(struct run_env *e, struct run_files *f) {
  int l = e->rank == 0 ? (int)strlen(e->job.input) + 1 : 0;
  MPI_Bcast(&l, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (e->rank != 0) {
    char *p = realloc(e->job.input, (size_t)l);
    if (!p) MPI_Abort(MPI_COMM_WORLD, SP_EXIT_RUNTIME);
    e->job.input = p;
  }
  MPI_Bcast(e->job.input, l, MPI_CHAR, 0, MPI_COMM_WORLD);
  if (bcast_files(f, e->rank)) {
    fprintf(stderr, "sitepack: rank %d: out of memory\n", e->rank);
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
int run_phase_file_heads(const struct run_env *e, struct run_files *f) {
  size_t n = f->n, n1 = n ? n : 1;
  f->gz = calloc(n1, 1);
  f->entry_key = calloc(n1, sizeof *f->entry_key);
  f->entry_first = calloc(n1, sizeof *f->entry_first);
  if (!f->gz || !f->entry_key || !f->entry_first) {
    fprintf(stderr, "sitepack: rank %d: out of memory\n", e->rank);
    MPI_Abort(MPI_COMM_WORLD, SP_EXIT_RUNTIME);
  }
  for (size_t i = (size_t)e->rank; i < n; i += (size_t)e->n_ranks) {
    char full[8192];
    int gz = 0;
    snprintf(full, sizeof full, "%s/%s", e->job.input, f->paths[i]);
    sp_read_entry_peek(full, f->entry_key[i], sizeof f->entry_key[i], &gz); /* unreadable: "", 0; its task says why */
    f->gz[i] = (uint8_t)gz;
  }
  or_bytes(f->gz, n, 1, 1, e->rank);
  or_bytes(f->entry_key, n, sizeof *f->entry_key, 1, e->rank); /* every rank: a failed file's entry_id (run_task.c) */
  if (e->rank == 0 && run_entries_first(f)) {
    fprintf(stderr, "sitepack run: out of memory\n");
    MPI_Abort(MPI_COMM_WORLD, SP_EXIT_RUNTIME);
  }
  for (size_t at = 0; at < n; at += (size_t)1 << 27)
    MPI_Bcast(f->entry_first + at, (int)(n - at < ((size_t)1 << 27) ? n - at : (size_t)1 << 27), MPI_INT64_T, 0,
              MPI_COMM_WORLD);
  return 0;
}

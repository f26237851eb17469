/* One copy of the CCD text per node: see src/app/ccd_shared.h. */
#define _GNU_SOURCE 1 /* mmap with -std=c11 */
#include "app/ccd_shared.h"

#include <limits.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "sitepack/io.h"


struct sp_ccd_shared {
  sp_ccd *ccd;
  int mode;
  int node_ranks;
  MPI_Comm node;      /* MPI_COMM_NULL when not split */
  MPI_Win win;        /* MPI_WIN_NULL unless mode == SP_CCD_WINDOW */
  void *map;          /* mapped mode: this rank's mapping of the file (the CCD's borrowed text); window mode,
                         node rank 0: the gzip bytes, until inflated */
  size_t map_len;
};

const char *sp_ccd_shared_mode_name(int mode) {
  switch (mode) {
    case SP_CCD_MAPPED: return "mapped";
    case SP_CCD_WINDOW: return "window";
    default: return "private";
  }
}

/* Everyone learns the worst status of the communicator; a rank that did not fail itself gets a
 * message naming the failing rank's class. Returns the agreed status. */
static int agree(MPI_Comm comm, int rc, sp_err *err) {
  int mine = rc, all = rc;
  if (MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MAX, comm) != MPI_SUCCESS)
    return sp_err_set(err, SP_E_MPI, "CCD: MPI_Allreduce failed");
  if (all && !mine) sp_err_set(err, all, "CCD: the open failed on another rank (%s)", sp_errclass_name(all));
  return all;
}

static void unmap(sp_ccd_shared *s) {
  if (s->map) munmap(s->map, s->map_len);
  s->map = NULL;
  s->map_len = 0;
}

/* MPI_Win_allocate_shared of `bytes` on node rank 0 (0 elsewhere); 1 when every rank of the
 * node got it, else 0 with no window left. Collective over s->node. */
static int alloc_window(sp_ccd_shared *s, int nrank, uint64_t bytes, char **base) {
  *base = NULL;
  int ok = 0, all_ok = 0;
  if (bytes <= (uint64_t)PTRDIFF_MAX) {
    MPI_Aint b = nrank == 0 ? (MPI_Aint)bytes : 0;
    ok = MPI_Win_allocate_shared(b, 1, MPI_INFO_NULL, s->node, base, &s->win) == MPI_SUCCESS;
  }
  MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, s->node);
  if (!all_ok) {
    if (ok) MPI_Win_free(&s->win);
    s->win = MPI_WIN_NULL;
  }
  return all_ok;
}

/* Node rank 0's index to the other ranks of the node (so they never scan the text). Collective
 * over s->node. Rank 0 passes its CCD; the others receive into *idx (malloc'd arrays). */
static int bcast_index(sp_ccd_shared *s, int nrank, sp_ccd_index *idx, sp_err *err) {
  uint64_t n = 0;
  const sp_ccd_index *mine = nrank == 0 ? sp_ccd_get_index(s->ccd) : NULL;
  if (mine) n = mine->n;
  MPI_Bcast(&n, 1, MPI_UINT64_T, 0, s->node);
  int rc = 0;
  if (nrank != 0) {
    memset(idx, 0, sizeof *idx);
    idx->ids = malloc((n ? n : 1) * sizeof *idx->ids);
    idx->offset = malloc((n ? n : 1) * sizeof *idx->offset);
    idx->length = malloc((n ? n : 1) * sizeof *idx->length);
    idx->n = (size_t)n;
    if (!idx->ids || !idx->offset || !idx->length) rc = sp_err_set(err, SP_E_NOMEM, "out of memory (CCD index)");
  }
  int any = 0;
  MPI_Allreduce(&rc, &any, 1, MPI_INT, MPI_MAX, s->node);
  if (any) {
    if (nrank != 0) sp_ccd_index_free(idx);
    return rc ? rc : sp_err_set(err, SP_E_NOMEM, "CCD: another rank of the node is out of memory");
  }
  /* in chunks: MPI counts are int */
  const uint64_t chunk = (uint64_t)1 << 24;
  for (uint64_t o = 0; o < n; o += chunk) {
    int k = (int)(n - o < chunk ? n - o : chunk);
    MPI_Bcast(nrank == 0 ? (void *)mine->ids[o] : (void *)idx->ids[o], k * SP_ID_LEN, MPI_CHAR, 0, s->node);
    MPI_Bcast(nrank == 0 ? (void *)(mine->offset + o) : (void *)(idx->offset + o), k, MPI_UINT64_T, 0, s->node);
    MPI_Bcast(nrank == 0 ? (void *)(mine->length + o) : (void *)(idx->length + o), k, MPI_UINT64_T, 0, s->node);
  }
  return 0;
}

/* The state of one sp_ccd_open_shared call on this rank. */
struct opening {
  const char *path;
  int nrank;               /* rank in the node */
  int mode;                /* SP_CCD_* of the node */
  int rc;                  /* this rank's status */
  const char *text;        /* the node's shared text (window, mapping) */
  uint64_t len;            /* its bytes */
  sp_buf buf;              /* window slow path, node rank 0: the inflated text */
  char *sha;               /* comm rank 0 asked for the hash: its 65 bytes, else NULL */
};

/* The node's rank 0 decides the mode for the node; it maps the file (its one open) unless private.
 * Plain: mapped; gzip: window; empty or not a regular file: private (the reading path reports it);
 * cannot open or map: mapped with the error, which reaches the node as a failed map. */
static void choose_mode(sp_ccd_shared *s, struct opening *op, sp_err *err) {
  op->mode = SP_CCD_PRIVATE;
  if (op->nrank == 0) {
    const char *e = getenv("SITEPACK_CCD_PRIVATE");
    bool priv = e && *e && strcmp(e, "0") != 0;
    if (!priv) op->rc = sp_file_map(op->path, &s->map, &s->map_len, err);
    const unsigned char *m = s->map;
    bool gz = m && sp_gzip_magic(m, s->map_len);
    if (!priv && (op->rc || m)) op->mode = gz ? SP_CCD_WINDOW : SP_CCD_MAPPED;
    if (m && op->sha) sp_sha256_hex(m, s->map_len, op->sha); /* the stored bytes, where they lie */
  }
  MPI_Bcast(&op->mode, 1, MPI_INT, 0, s->node);
}

/* The inflated size from the gzip trailer's ISIZE of node rank 0's mapping, 0 when implausible:
 * only between n/2 and deflate's maximum ratio 1032:1 (as io's reader), a cut or corrupt file has
 * arbitrary bytes there */
static uint64_t isize_hint(const sp_ccd_shared *s) {
  size_t n = s->map_len;
  if (n < 18) return 0;
  const unsigned char *t = (const unsigned char *)s->map + n - 4;
  uint64_t hint = (uint64_t)t[0] | (uint64_t)t[1] << 8 | (uint64_t)t[2] << 16 | (uint64_t)t[3] << 24;
  return hint < n / 2 || hint / 1032 > n ? 0 : hint;
}

/* Window fast path: inflate straight into the window, sized by ISIZE, so that rank 0 never holds a
 * second copy. 1 when it fits exactly (then op->len is set); else 0 with no window left. */
static int window_fast(sp_ccd_shared *s, struct opening *op) {
  uint64_t hint = op->nrank == 0 ? isize_hint(s) : 0;
  MPI_Bcast(&hint, 1, MPI_UINT64_T, 0, s->node);
  char *base = NULL;
  int fast = 0;
  if (!hint || !alloc_window(s, op->nrank, hint + 1, &base)) return 0;
  if (op->nrank == 0) fast = sp_gzip_inflate_exact(s->map, s->map_len, base, (size_t)hint);
  MPI_Bcast(&fast, 1, MPI_INT, 0, s->node);
  if (fast) op->len = hint;
  else MPI_Win_free(&s->win);
  return fast;
}

/* Window slow path (several members, over 4 GiB, corrupt data): rank 0 inflates the mapped bytes with
 * io's rules and error classes (no second read), then copies them into the window; when the window
 * cannot be allocated (e.g. /dev/shm too small) the node goes private, rank 0 keeping op->buf. */
static void window_slow(sp_ccd_shared *s, struct opening *op, sp_err *err) {
  if (op->nrank == 0) {
    op->rc = sp_gunzip(s->map, s->map_len, 0, &op->buf, err);
    if (op->rc && err) {
      char m[SP_ERR_MSG_LEN];
      memcpy(m, err->msg, sizeof m);
      sp_err_set(err, op->rc, "%s: %s", op->path, m);
    }
    op->len = (uint64_t)op->buf.len;
  }
  int rc0 = op->rc;
  MPI_Bcast(&rc0, 1, MPI_INT, 0, s->node);
  MPI_Bcast(&op->len, 1, MPI_UINT64_T, 0, s->node);
  if (rc0 && !op->rc)
    op->rc = sp_err_set(err, rc0, "CCD %s: the node's rank 0 could not read it (%s)", op->path, sp_errclass_name(rc0));
  if (op->rc) return;
  char *base = NULL;
  if (!alloc_window(s, op->nrank, op->len + 1, &base)) {
    op->mode = SP_CCD_PRIVATE;
  } else if (op->nrank == 0) {
    memcpy(base, op->buf.data, (size_t)op->len);
    sp_buf_free(&op->buf); /* the private copy is no longer needed */
  }
}

/* gzip: the text inflated once per node into an MPI shared window (rank 0 from its mapping, dropped
 * after); rank 0 indexes it */
static void open_window(sp_ccd_shared *s, struct opening *op, sp_err *err) {
  if (!window_fast(s, op)) window_slow(s, op, err);
  if (op->nrank == 0) unmap(s); /* the gzip bytes: inflated */
  if (op->rc || op->mode != SP_CCD_WINDOW) return;
  MPI_Win_fence(0, s->win); /* rank 0's writes are visible to the node after this */
  MPI_Aint qsize = 0;
  int disp = 0;
  char *q = NULL;
  MPI_Win_shared_query(s->win, 0, &qsize, &disp, &q);
  if (!q || (uint64_t)qsize < op->len + 1)
    op->rc = sp_err_set(err, SP_E_MPI, "CCD: shared window of %zu bytes not visible", (size_t)op->len);
  op->text = q;
  sp_ccd_source src = {.kind = SP_CCD_SRC_BORROWED, .text = q, .len = (size_t)op->len};
  if (!op->rc && op->nrank == 0) op->rc = sp_ccd_open_source(&src, &s->ccd, err);
}

/* plain: every rank maps the file (its one open), the page cache holds it once; rank 0 indexes it */
static void open_mapped_node(sp_ccd_shared *s, struct opening *op, sp_err *err) {
  if (op->nrank == 0 && !op->rc) {
    sp_ccd_source src = {.kind = SP_CCD_SRC_BORROWED, .path = op->path, .text = s->map, .len = s->map_len};
    op->rc = sp_ccd_open_source(&src, &s->ccd, err);
    op->len = s->map_len;
  }
  int rc0 = op->rc;
  MPI_Bcast(&rc0, 1, MPI_INT, 0, s->node);
  MPI_Bcast(&op->len, 1, MPI_UINT64_T, 0, s->node);
  if (rc0 && !op->rc)
    op->rc = sp_err_set(err, rc0, "CCD %s: the node's rank 0 could not map it (%s)", op->path, sp_errclass_name(rc0));
  if (!op->rc && op->nrank != 0) {
    sp_err e2 = {0};
    if (sp_file_map(op->path, &s->map, &s->map_len, &e2) || s->map_len != op->len || !s->map) {
      unmap(s);
      op->rc = sp_err_set(err, SP_E_IO, "CCD %s: cannot map it (or it changed size since rank 0 mapped it)", op->path);
    }
  }
  op->text = s->map;
}

/* private: every rank reads its own copy once (rank 0 of a window fallback already holds it) */
static void open_private(sp_ccd_shared *s, struct opening *op, sp_err *err) {
  unmap(s);
  sp_ccd_source src = {.kind = SP_CCD_SRC_FILE, .path = op->path, .sha256 = op->sha};
  if (op->nrank == 0 && op->buf.data)
    src = (sp_ccd_source){.kind = SP_CCD_SRC_TEXT, .path = op->path, .text = op->buf.data, .len = op->buf.len};
  op->rc = sp_ccd_open_source(&src, &s->ccd, err);
}

/* calloc'd handle with the node communicator, or NULL with the status in *rc (the same on every rank) */
static sp_ccd_shared *shared_new(MPI_Comm comm, int rank, int *rc, sp_err *err) {
  sp_ccd_shared *s = calloc(1, sizeof *s);
  *rc = s ? 0 : sp_err_set(err, SP_E_NOMEM, "out of memory (CCD)");
  if (agree(comm, *rc, err)) {
    free(s);
    *rc = SP_E_NOMEM;
    return NULL;
  }
  s->node = MPI_COMM_NULL;
  s->win = MPI_WIN_NULL;
  if (MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &s->node) != MPI_SUCCESS) {
    free(s);
    *rc = sp_err_set(err, SP_E_MPI, "CCD: MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) failed");
    return NULL;
  }
  MPI_Comm_set_errhandler(s->node, MPI_ERRORS_RETURN);
  MPI_Comm_size(s->node, &s->node_ranks);
  return s;
}

int sp_ccd_open_shared(MPI_Comm comm, const char *path, sp_ccd_shared **out, char *sha256, sp_err *err) {
  *out = NULL;
  if (sha256) sha256[0] = 0;
  int rank = 0, rc = 0;
  MPI_Comm_rank(comm, &rank);
  sp_ccd_shared *s = shared_new(comm, rank, &rc, err);
  if (!s) return rc;
  char sha[65] = "";
  struct opening op = {.path = path, .sha = rank == 0 && sha256 ? sha : NULL};
  MPI_Comm_rank(s->node, &op.nrank);
  choose_mode(s, &op, err);
  if (op.mode == SP_CCD_WINDOW) open_window(s, &op, err);
  else if (op.mode == SP_CCD_MAPPED) open_mapped_node(s, &op, err);
  /* window and mapped: rank 0's index to the node (the others never scan the text) */
  if (op.mode != SP_CCD_PRIVATE && agree(s->node, op.rc, err) == 0) {
    sp_ccd_index idx;
    op.rc = bcast_index(s, op.nrank, &idx, err);
    sp_ccd_source src = {.kind = SP_CCD_SRC_BORROWED, .path = path, .text = op.text, .len = (size_t)op.len,
                         .index = &idx};
    if (!op.rc && op.nrank != 0) op.rc = sp_ccd_open_source(&src, &s->ccd, err);
  }
  if (op.mode == SP_CCD_PRIVATE && !op.rc) open_private(s, &op, err);
  sp_buf_free(&op.buf);
  s->mode = op.mode;
  rc = agree(comm, op.rc, err);
  if (!rc && sha256) { /* provenance hash of the stored bytes, from rank 0 of comm's one read */
    MPI_Bcast(sha, 65, MPI_CHAR, 0, comm);
    memcpy(sha256, sha, 65);
  }
  if (rc) {
    sp_ccd_shared_close(s);
    return rc;
  }
  *out = s;
  return 0;
}

sp_ccd *sp_ccd_shared_get(sp_ccd_shared *s) { return s ? s->ccd : NULL; }

int sp_ccd_shared_mode(const sp_ccd_shared *s) { return s ? s->mode : SP_CCD_PRIVATE; }

int sp_ccd_shared_node_ranks(const sp_ccd_shared *s) { return s ? s->node_ranks : 0; }

void sp_ccd_shared_close(sp_ccd_shared *s) {
  if (!s) return;
  sp_ccd_close(s->ccd); /* borrowed text: left to the window */
  if (s->map) munmap(s->map, s->map_len);
  if (s->win != MPI_WIN_NULL) MPI_Win_free(&s->win);
  if (s->node != MPI_COMM_NULL) MPI_Comm_free(&s->node);
  free(s);
}

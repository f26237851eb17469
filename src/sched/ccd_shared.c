/* One copy of the CCD text per node: see include/sitepack/ccd_shared.h. */
#define _GNU_SOURCE 1 /* O_CLOEXEC, mmap with -std=c11 */
#include "sitepack/ccd_shared.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sitepack/io.h"


struct sp_ccd_shared {
  sp_ccd *ccd;
  int mode;
  int node_ranks;
  MPI_Comm node;      /* MPI_COMM_NULL when not split */
  MPI_Win win;        /* MPI_WIN_NULL unless mode == SP_CCD_WINDOW */
  void *map;          /* mapped mode, node ranks other than 0: their mapping of the file */
  size_t map_len;
};

const char *sp_ccd_shared_mode_name(int mode) {
  switch (mode) {
    case SP_CCD_MAPPED: return "mapped";
    case SP_CCD_WINDOW: return "window";
    default: return "private";
  }
}

/* 1 gzip, 0 plain or unreadable (the open itself then reports the error) */
static int file_is_gzip(const char *path) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  unsigned char m[2] = {0, 0};
  ssize_t n = read(fd, m, 2);
  close(fd);
  return n == 2 && m[0] == 0x1f && m[1] == 0x8b;
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

/* Whole file into malloc'd memory (no inflate, no hash). 0 or -1. */
static int read_whole(const char *path, unsigned char **out, size_t *n_out) {
  /* a non-empty regular file only: anything else takes the general path, which reports it */
  struct stat st;
  *out = NULL;
  *n_out = 0;
  if (stat(path, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size <= 0) return -1;
  return sp_file_read_stored(path, 0, out, n_out, NULL) ? -1 : 0;
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

int sp_ccd_open_shared(MPI_Comm comm, const char *path, sp_ccd_shared **out, char *sha256, sp_err *err) {
  *out = NULL;
  if (sha256) sha256[0] = 0;
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  sp_ccd_shared *s = calloc(1, sizeof *s);
  int rc = s ? 0 : sp_err_set(err, SP_E_NOMEM, "out of memory (CCD)");
  if (agree(comm, rc, err)) {
    free(s);
    return SP_E_NOMEM;
  }
  s->node = MPI_COMM_NULL;
  s->win = MPI_WIN_NULL;
  if (MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &s->node) != MPI_SUCCESS) {
    free(s);
    return sp_err_set(err, SP_E_MPI, "CCD: MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) failed");
  }
  MPI_Comm_set_errhandler(s->node, MPI_ERRORS_RETURN);
  int nrank = 0;
  MPI_Comm_rank(s->node, &nrank);
  MPI_Comm_size(s->node, &s->node_ranks);

  /* the node's rank 0 decides the mode for the node */
  int mode = SP_CCD_PRIVATE;
  if (nrank == 0) {
    const char *e = getenv("SITEPACK_CCD_PRIVATE");
    bool priv = e && *e && strcmp(e, "0") != 0;
    mode = priv ? SP_CCD_PRIVATE : file_is_gzip(path) ? SP_CCD_WINDOW : SP_CCD_MAPPED;
  }
  MPI_Bcast(&mode, 1, MPI_INT, 0, s->node);

  sp_buf buf = {0};         /* window mode, node rank 0: the inflated text */
  char stored_sha[65] = ""; /* SHA-256 of the stored bytes, when this rank read them */
  const char *text = NULL;  /* the node's shared text */
  uint64_t len = 0;
  if (mode == SP_CCD_WINDOW) {
    /* fast path: inflate straight into the window, sized by the gzip trailer's ISIZE, so that
     * rank 0 never holds a second copy; when that does not fit exactly (several members, over
     * 4 GiB, corrupt data) the window is dropped and the slow path below reports or reads it */
    unsigned char *raw = NULL;
    size_t n_raw = 0;
    uint64_t hint = 0;
    if (nrank == 0 && read_whole(path, &raw, &n_raw) == 0) {
      sp_sha256_hex(raw, n_raw, stored_sha);
      if (n_raw >= 18) {
        const unsigned char *t = raw + n_raw - 4;
        hint = (uint64_t)t[0] | (uint64_t)t[1] << 8 | (uint64_t)t[2] << 16 | (uint64_t)t[3] << 24;
        /* plausible only between n/2 and deflate's maximum ratio 1032:1 (as io's reader):
         * a cut or corrupt file has arbitrary bytes there */
        if (hint < n_raw / 2 || hint / 1032 > n_raw) hint = 0;
      }
    }
    MPI_Bcast(&hint, 1, MPI_UINT64_T, 0, s->node);
    int fast = 0;
    if (hint) {
      char *base = NULL;
      if (alloc_window(s, nrank, hint + 1, &base)) {
        if (nrank == 0) fast = sp_gzip_inflate_exact(raw, n_raw, base, (size_t)hint);
        MPI_Bcast(&fast, 1, MPI_INT, 0, s->node);
        if (fast) len = hint;
        else MPI_Win_free(&s->win);
      }
    }
    free(raw);
    if (!fast) { /* slow path: the io reader (all gzip rules and error classes), then a copy */
      if (nrank == 0) {
        rc = sp_file_read(path, 0, &buf, err);
        len = (uint64_t)buf.len;
        if (!rc) memcpy(stored_sha, buf.sha256, sizeof stored_sha);
      }
      int rc0 = rc;
      MPI_Bcast(&rc0, 1, MPI_INT, 0, s->node);
      MPI_Bcast(&len, 1, MPI_UINT64_T, 0, s->node);
      if (rc0 && !rc) rc = sp_err_set(err, rc0, "CCD %s: the node's rank 0 could not read it (%s)", path,
                                      sp_errclass_name(rc0));
      if (!rc) {
        char *base = NULL;
        if (!alloc_window(s, nrank, len + 1, &base)) {
          mode = SP_CCD_PRIVATE; /* e.g. /dev/shm too small: private copies instead */
        } else if (nrank == 0) {
          memcpy(base, buf.data, (size_t)len);
          sp_buf_free(&buf); /* the private copy is no longer needed */
        }
      }
    }
    if (!rc && mode == SP_CCD_WINDOW) {
      MPI_Win_fence(0, s->win); /* rank 0's writes are visible to the node after this */
      MPI_Aint qsize = 0;
      int disp = 0;
      char *q = NULL;
      MPI_Win_shared_query(s->win, 0, &qsize, &disp, &q);
      if (!q || (uint64_t)qsize < len + 1)
        rc = sp_err_set(err, SP_E_MPI, "CCD: shared window of %zu bytes not visible", (size_t)len);
      text = q;
      if (!rc && nrank == 0) rc = sp_ccd_open_text_borrowed(text, (size_t)len, &s->ccd, err);
    }
  } else if (mode == SP_CCD_MAPPED) {
    if (nrank == 0) {
      rc = sp_ccd_open_mapped(path, &s->ccd, err);
      if (!rc) len = sp_ccd_text_bytes(s->ccd);
    }
    int rc0 = rc;
    MPI_Bcast(&rc0, 1, MPI_INT, 0, s->node);
    MPI_Bcast(&len, 1, MPI_UINT64_T, 0, s->node);
    if (rc0 && !rc) rc = sp_err_set(err, rc0, "CCD %s: the node's rank 0 could not map it (%s)", path,
                                    sp_errclass_name(rc0));
    if (!rc && nrank != 0) { /* map the same file: the page cache holds it once */
      int fd = open(path, O_RDONLY | O_CLOEXEC);
      struct stat st;
      void *m = MAP_FAILED;
      if (fd >= 0 && fstat(fd, &st) == 0 && (uint64_t)st.st_size == len && len > 0)
        m = mmap(NULL, (size_t)len, PROT_READ, MAP_SHARED, fd, 0);
      if (fd >= 0) close(fd);
      if (m == MAP_FAILED) {
        rc = sp_err_set(err, SP_E_IO, "CCD %s: cannot map it (or it changed size since rank 0 mapped it)", path);
      } else {
        s->map = m;
        s->map_len = (size_t)len;
        text = m;
      }
    }
  }
  /* window and mapped: rank 0's index to the node (the others never scan the text) */
  if (mode != SP_CCD_PRIVATE && agree(s->node, rc, err) == 0) {
    sp_ccd_index idx;
    rc = bcast_index(s, nrank, &idx, err);
    if (!rc && nrank != 0) rc = sp_ccd_open_text_borrowed_indexed(text, (size_t)len, &idx, &s->ccd, err);
  }
  if (mode == SP_CCD_PRIVATE && !rc) {
    if (nrank == 0 && buf.data) { /* window fallback: rank 0 already holds the text */
      rc = sp_ccd_open_text(buf.data, buf.len, &s->ccd, err);
    } else {
      rc = sp_ccd_open(path, &s->ccd, err);
    }
  }
  sp_buf_free(&buf);
  s->mode = mode;
  rc = agree(comm, rc, err);

  /* provenance hash of the stored bytes, computed once by rank 0 of comm */
  if (!rc && sha256) {
    char sha[65] = "";
    if (rank == 0) {
      if (stored_sha[0]) {
        memcpy(sha, stored_sha, sizeof sha);
      } else if (mode == SP_CCD_MAPPED) { /* plain text = the stored bytes: hash them where they lie */
        sp_sha256_hex(sp_ccd_text(s->ccd), sp_ccd_text_bytes(s->ccd), sha);
      } else {
        sp_buf b = {0};
        sp_err e2 = {0};
        if (!sp_file_read(path, 0, &b, &e2)) memcpy(sha, b.sha256, sizeof sha);
        sp_buf_free(&b);
      }
    }
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

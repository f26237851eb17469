/* One copy of the CCD text per node: see include/sitepack/ccd_shared.h. */
#include "sitepack/ccd_shared.h"

#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sitepack/io.h"

struct sp_ccd_shared {
  sp_ccd *ccd;
  int mode;
  int node_ranks;
  MPI_Comm node;      /* MPI_COMM_NULL when not split */
  MPI_Win win;        /* MPI_WIN_NULL unless mode == SP_CCD_WINDOW */
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

  sp_buf buf = {0}; /* window mode, node rank 0: the inflated text */
  char stored_sha[65] = ""; /* SHA-256 of the stored bytes, when this rank read them */
  if (mode == SP_CCD_WINDOW) {
    uint64_t len = 0;
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
      MPI_Aint bytes = nrank == 0 ? (MPI_Aint)(len + 1) : 0;
      int wrc = MPI_Win_allocate_shared(bytes, 1, MPI_INFO_NULL, s->node, &base, &s->win);
      int ok = wrc == MPI_SUCCESS, all_ok = 0;
      MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, s->node);
      if (!all_ok) { /* e.g. /dev/shm too small: private copies instead */
        if (ok) MPI_Win_free(&s->win);
        s->win = MPI_WIN_NULL;
        mode = SP_CCD_PRIVATE;
      } else {
        if (nrank == 0) {
          memcpy(base, buf.data, (size_t)len);
          base[len] = 0;
        }
        MPI_Win_fence(0, s->win); /* rank 0's copy is visible to the node after this */
        MPI_Aint qsize = 0;
        int disp = 0;
        char *text = NULL;
        MPI_Win_shared_query(s->win, 0, &qsize, &disp, &text);
        if (!text || (uint64_t)qsize < len + 1)
          rc = sp_err_set(err, SP_E_MPI, "CCD: shared window of %zu bytes not visible", (size_t)len);
        else
          rc = sp_ccd_open_text_borrowed(text, (size_t)len, &s->ccd, err);
      }
      if (mode == SP_CCD_WINDOW) sp_buf_free(&buf); /* the private copy is no longer needed */
    }
  }
  if (mode == SP_CCD_MAPPED) rc = sp_ccd_open_mapped(path, &s->ccd, err);
  if (mode == SP_CCD_PRIVATE && !rc) {
    if (nrank == 0 && buf.data) { /* window fallback: rank 0 already holds the text */
      rc = sp_ccd_open_text(buf.data, buf.len, &s->ccd, err);
      sp_buf_free(&buf);
    } else {
      rc = sp_ccd_open(path, &s->ccd, err);
    }
  }
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
  sp_buf_free(&buf);
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
  if (s->win != MPI_WIN_NULL) MPI_Win_free(&s->win);
  if (s->node != MPI_COMM_NULL) MPI_Comm_free(&s->node);
  free(s);
}

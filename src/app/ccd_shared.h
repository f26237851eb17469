/**
 * @file ccd_shared.h
 * @brief One copy of the CCD text per node, shared by the MPI ranks of that node
 *        (issue 4; src/app/ccd_shared.c, private to app: the only CCD code that calls MPI, which
 *        the house allows in src/sched, src/store/merge* and src/app only; the MPI-free opens are
 *        cif's sp_ccd_open_source, include/sitepack/ccd.h). Used by `sitepack run` (run.c), the
 *        test test_ccd_shared and bench/ccd_shared_bench.c, which compile this file with theirs.
 *
 * The ranks of a node are those of MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED). The node's
 * rank 0 opens the file once (a read-only mapping) and decides the mode for the node from its
 * magic bytes; every rank opens the file at most once, and its bytes are read once per node
 * (private mode: once per rank). The SHA-256 is computed on those same bytes.
 *  - plain CCD file: every rank maps the file read-only (its one open) and builds its CCD on the
 *    mapping (sp_ccd_open_source, SP_CCD_SRC_BORROWED): the node holds one copy of the text, in
 *    the page cache; no MPI transfer of the text.
 *  - gzip CCD file: the node's rank 0 inflates its mapping of the file once, into an MPI-3 shared
 *    memory window (MPI_Win_allocate_shared, Open MPI backs it with a file in /dev/shm), sized
 *    by the gzip trailer's ISIZE; when that does not fit exactly (several members, over 4 GiB,
 *    corrupt data) it inflates the same mapped bytes with io's rules (sp_gunzip) and copies the
 *    text in, holding two copies for the time of that copy only. The other ranks of the node
 *    point at the same memory (MPI_Win_shared_query) and never open the file.
 * The node's rank 0 indexes the text once and broadcasts the index (about 40 k rows of 24
 * bytes for the real CCD) to the other ranks of the node (SP_CCD_SRC_BORROWED with .index),
 * so they never scan the text: a rank touches only the pages of the blocks it parses. Each
 * rank keeps its own copy of the index and its own cache of parsed components, so lookups
 * need no locking.
 *
 * Environment: SITEPACK_CCD_PRIVATE=1 (read on the node's rank 0 and applied to the whole
 * node) makes every rank read its own private copy (SP_CCD_SRC_FILE): the behaviour before
 * sharing, kept for comparison (memory measurements) and as a fallback. When the shared
 * window cannot be allocated (e.g. /dev/shm too small), the ranks fall back to private
 * copies too (rank 0 keeps the text it inflated, the others read the file), and
 * sp_ccd_shared_mode() says so. An empty file or one that is not a regular file (the node's
 * rank 0 cannot map it) is opened in private mode, whose read reports it.
 */
#ifndef SITEPACK_APP_CCD_SHARED_H
#define SITEPACK_APP_CCD_SHARED_H

#include <mpi.h>
#include <stddef.h>

#include "sitepack/ccd.h"
#include "sitepack/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/** A node-shared CCD. Opaque; sp_ccd_open_shared() / sp_ccd_shared_close(). */
typedef struct sp_ccd_shared sp_ccd_shared;

/** How the text is held (sp_ccd_shared_mode()). */
enum {
  SP_CCD_PRIVATE = 0, /**< one private copy per rank (SITEPACK_CCD_PRIVATE=1, or fallback) */
  SP_CCD_MAPPED = 1,  /**< plain file, read-only mapping shared through the page cache */
  SP_CCD_WINDOW = 2,  /**< gzip file inflated once per node into an MPI shared memory window */
};

/**
 * Open the CCD at @p path for every rank of @p comm. Collective over @p comm (every rank
 * calls it with the same path); returns the same status on every rank.
 * @param comm     the communicator of the run (e.g. MPI_COMM_WORLD); split by node inside
 * @param path     CCD file, plain or gzip (detected by the magic bytes 1F 8B)
 * @param out      receives the handle (NULL on error)
 * @param sha256   if not NULL, receives on every rank the hex SHA-256 (64 digits + NUL) of the
 *                 file's bytes as stored (by rank 0 of @p comm, on the bytes of its one read), "" on error
 * @return 0; the errors of sp_ccd_open_source (SP_E_NOT_FOUND, SP_E_IO, SP_E_TRUNCATED_GZIP, SP_E_GZIP,
 *         SP_E_FORMAT, SP_E_NOMEM) on every rank when any rank failed (the message of a rank
 *         that did not fail itself says that another did); SP_E_MPI when an MPI call failed.
 */
int sp_ccd_open_shared(MPI_Comm comm, const char *path, sp_ccd_shared **out, char *sha256, sp_err *err);

/** The CCD to use on this rank (lookups, cache: per rank). Valid until sp_ccd_shared_close(). */
sp_ccd *sp_ccd_shared_get(sp_ccd_shared *s);

/** SP_CCD_PRIVATE, SP_CCD_MAPPED or SP_CCD_WINDOW (the same on every rank of a node). */
int sp_ccd_shared_mode(const sp_ccd_shared *s);

/** "private", "mapped" or "window". */
const char *sp_ccd_shared_mode_name(int mode);

/** Number of ranks of this node (size of the node communicator). */
int sp_ccd_shared_node_ranks(const sp_ccd_shared *s);

/**
 * Close the CCD and release the window and the node communicator. Collective over the
 * communicator given to sp_ccd_open_shared() (MPI_Win_free); call before MPI_Finalize.
 * Safe with NULL (then not collective).
 */
void sp_ccd_shared_close(sp_ccd_shared *s);

#ifdef __cplusplus
}
#endif
#endif

/* Private to src/store: the reader of per-rank files (the format of store_internal.h, written by
 * writer.c). One owner for opening such a file, checking its format and version, and reading and
 * validating its /tasks index: the merge (merge.c), the resume index (resume.c) and the shard
 * files of SLURM arrays (shard.c) all read per-rank files through it. Not installed.
 *
 * A per-rank file holds one compound dataset per table, /<table>/rows in the native row layout of
 * result.h (sp_tables[] order), and /tasks: one sp_task_rec per appended task, in append order;
 * task k's rows of table t are rows [start[t], start[t] + n[t]) of /<table>/rows. Shard files
 * (shard.c) are per-rank files with extra root attributes.
 *
 * Use by a merge rank that copies only its own share of tasks: open every input (the /tasks
 * index is small: O(tasks)), pick the tasks it owns from rf.tasks, and read just their rows with
 * sp_rankfile_read_rows() (one table slab at a time, bounded buffers) or sp_rankfile_read_task()
 * (all tables of one task into an sp_result). Reads never modify the sp_rankfile, so one open file
 * can serve any order of reads; calls on different sp_rankfile objects are independent.
 *
 * Not thread-safe (HDF5). No MPI. HDF5's automatic error printing is switched off inside every
 * call and the error stack is cleared before returning. */
#ifndef SITEPACK_STORE_RANKFILE_H
#define SITEPACK_STORE_RANKFILE_H

#include <stddef.h>
#include <stdint.h>

#include "sitepack/error.h"
#include "sitepack/result.h"
#include "store_internal.h"

/** An open per-rank (or shard) file, read-only. Fields are read-only for callers. */
typedef struct sp_rankfile {
  const char *path;              /**< as given to sp_rankfile_open() (borrowed: must outlive the object) */
  hid_t file;                    /**< the HDF5 file, or -1 */
  hid_t dset[SP_T_COUNT];        /**< /<table>/rows of each table, or -1 */
  hid_t rowtype[SP_T_COUNT];     /**< native compound of each row struct (sp_h5_row_type()), or -1 */
  int64_t extent[SP_T_COUNT];    /**< rows of each /<table>/rows */
  sp_task_rec *tasks;            /**< [n_tasks] the /tasks index in file (append) order, validated (malloc'd) */
  size_t n_tasks;
  int has_site_flags;            /**< 1: the file was closed by its writer and says site_flags_or */
  int64_t site_flags_or;         /**< root attribute site_flags_or: OR of the flags of all its sites (SP_SITE_*) */
} sp_rankfile;

/** Set every handle to -1 and every count to 0, so that sp_rankfile_close() is safe on it. */
void sp_rankfile_init(sp_rankfile *rf);

/**
 * Open the per-rank or shard file @p path read-only (sp_h5_fapl(0): locking where the file system
 * supports it), check it, and read its task index. Checks, in order: the file exists; it is HDF5;
 * root attributes format = SP_RANK_FORMAT_NAME and format_version = SP_RANK_FORMAT_VERSION; each
 * /<table>/rows exists, is one-dimensional and has the row size and column count of sp_tables[];
 * /tasks exists and is one-dimensional; every task record is consistent: file_idx >= 0,
 * 0 <= part < n_parts, n[SP_T_STRUCTURES] is 0 or 1, and each table's rows [start, start + n) lie
 * inside its dataset. The root attribute site_flags_or, which the writer adds at close, is read when
 * present (rf->has_site_flags; a file left by a killed run has none).
 * @param rf    filled (sp_rankfile_init() first is not needed); on failure it may hold open handles:
 *              call sp_rankfile_close() in every case
 * @param path  the file (borrowed, see sp_rankfile.path)
 * @return 0; SP_E_INVALID (NULL argument); SP_E_NOT_FOUND (no such file); SP_E_IO (stat failed);
 *         SP_E_FORMAT (not HDF5, not a per-rank file of this version, a dataset missing or of
 *         another shape or row type, /tasks unreadable, a task record inconsistent: the message
 *         names the file, and the dataset or the task); SP_E_HDF5 (HDF5 cannot open the file, or a
 *         row type cannot be built); SP_E_NOMEM.
 */
int sp_rankfile_open(sp_rankfile *rf, const char *path, sp_err *err);

/**
 * Read rows [start, start + n) of table @p table (an SP_T_* id) into @p buf (n rows of
 * sp_tables[table].row_size bytes, native layout of result.h). n == 0 reads nothing.
 * The range must lie inside rf->extent[table] (true for any task record of rf->tasks).
 * @return 0; SP_E_HDF5 ("cannot read per-rank file PATH: <HDF5 message>").
 */
int sp_rankfile_read_rows(const sp_rankfile *rf, int table, int64_t start, size_t n, void *buf, sp_err *err);

/**
 * Read every row of task rf->tasks[@p k] into @p r: r is sp_result_clear()ed, its tables grown as
 * needed (r keeps and reuses its allocations across calls; sp_result_init() it once, sp_result_free()
 * it at the end), the rows zero-filled then read, and file_idx, part, n_parts and has_structure_row
 * (= n[SP_T_STRUCTURES] == 1) set from the record. The result is ready for sp_rank_writer_append().
 * @return 0; SP_E_INVALID (k out of range, NULL argument); SP_E_NOMEM; SP_E_HDF5 (a read failed).
 */
int sp_rankfile_read_task(const sp_rankfile *rf, size_t k, sp_result *r, sp_err *err);

/** Close every handle, free the task index and sp_rankfile_init() @p rf. Safe on an initialised or
 *  partly opened object, and with NULL. */
void sp_rankfile_close(sp_rankfile *rf);

#endif

/* Private to src/derive: whole-column reads and the column writes of /clusters and /splits (cluster.c,
 * split.c, split_io.c; include/sitepack/split.h). Not installed. */
#ifndef SITEPACK_SPLIT_INTERNAL_H
#define SITEPACK_SPLIT_INTERNAL_H

#include <hdf5.h>
#include <stddef.h>
#include <stdint.h>

#include "sitepack/error.h"

/** Open the merged file @p path read-only after sp_h5_input_stat() and check its root attributes
 *  (sp_h5_read_format) and that its version is at least @p min_version (else SP_E_FORMAT naming the file and
 *  @p why). Returns the file id, or < 0 with @p err set. */
hid_t sp_spl_open_read(const char *path, int min_version, const char *why, sp_err *err);

/** Read the whole 1-D dataset @p name of @p file as @p mtype (a native numeric type) into a new array of
 *  *@p n elements of @p elsize bytes (caller frees; an empty dataset gives a 1-byte allocation). A dataset of
 *  another rank than 1 is SP_E_FORMAT. @return the array, or NULL with @p err set (SP_E_FORMAT "PATH: missing
 *  dataset NAME", SP_E_NOMEM, SP_E_HDF5). */
void *sp_spl_read(hid_t file, const char *path, const char *name, hid_t mtype, size_t elsize, int64_t *n,
                  sp_err *err);

/** The same for a fixed-size string column: *@p width is the field size, the array is n * width bytes
 *  (not NUL-terminated where the value fills the field). */
char *sp_spl_read_str(hid_t file, const char *path, const char *name, size_t *width, int64_t *n, sp_err *err);

/** Create the 1-D final-layout dataset @p name in @p loc (sp_h5_create_final), write @p n values of
 *  @p buf (native type @p mtype) as file type @p ftype, and set its `units` attribute to @p units (and
 *  `codes` when @p codes is not NULL). Returns the open dataset for more attributes (caller closes), or < 0
 *  (the HDF5 error stack kept for sp_h5_fail). */
hid_t sp_spl_write(hid_t loc, const char *name, hid_t ftype, hid_t mtype, int64_t n, const void *buf,
                   const char *units, const char *codes);

/** Open @p path for writing with the merged file's access list (sp_h5_fapl(1): 4096-byte alignment of
 *  objects from 64 KiB), delete the group @p group when it exists and @p replace is set, and create it again
 *  when absent (an existing group is opened). Returns the group (caller closes it and *@p file), or < 0
 *  with @p err set. */
hid_t sp_spl_open_group(const char *path, const char *group, int replace, hid_t *file, sp_err *err);


/** FNV-1a 64 of @p n bytes: the stable key hash of the split (docs/usage.md "Splits"). */
uint64_t sp_spl_fnv(const void *p, size_t n);

/** Seconds of a monotonic clock. */
double sp_spl_now(void);



/* mmseqs.c */
/** Resolve @p name (a path with '/', else looked up in PATH) to an executable regular file into @p out.
 *  0, or -1 when there is none. */
int sp_spl_find_exe(const char *name, char *out, size_t cap);
/** Run @p exe with @p argv (NULL-terminated; standard input /dev/null, output and errors appended to
 *  @p log_path) and wait. Returns its exit status, 128 + signal when killed, -1 when fork failed. */
int sp_spl_spawn(const char *exe, char *const argv[], const char *log_path);
/** Remove the folder @p dir and everything in it (no symbolic link followed). */
void sp_spl_rmtree(const char *dir);
/** The last 300 bytes or so of @p log_path on one line (newlines as blanks) into @p out. */
void sp_spl_log_tail(const char *log_path, char *out, size_t cap);
#endif

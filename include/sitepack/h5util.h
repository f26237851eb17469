/* The HDF5 helpers of src/store (defined in src/store/schema.c; the open of a merged file in src/store/h5open.c)
 * that the modules above it use to read a merged file and add objects to it (src/derive: export, cluster, split):
 * the open and diagnosis, the input check and the format check of a
 * merged file, the file access list, final-layout datasets, error text and attributes. The column schema that the
 * writer, the merge and the dump share stays private to store (src/store/store_internal.h includes this header).
 *
 * Conventions: an hid_t returned is owned by the caller (close it with H5Tclose, H5Pclose, H5Dclose) and is < 0
 * on failure; an int-returning helper without sp_err returns 0 or -1, leaving the HDF5 error stack for
 * sp_h5_fail(). Strings in the file are NUL-padded fixed-size (ASCII or UTF-8) or variable-length UTF-8
 * (docs/format.md "File-level rules", "Units and codes"). No MPI.
 */
#ifndef SITEPACK_H5UTIL_H
#define SITEPACK_H5UTIL_H

#include <hdf5.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "sitepack/error.h"

/** Read the root attributes of a merged file: format = SP_FORMAT_NAME and a format_version in
 *  [SP_FORMAT_VERSION_MIN, SP_FORMAT_VERSION] (store.h), stored in *ver. One rule and one message for check,
 *  dump, export and the reader. @return 0; SP_E_FORMAT ("PATH: root attribute format is not ..." or
 *  "PATH: unknown format version N (this sitepack reads MIN to MAX; ...)"). */
int sp_h5_read_format(hid_t file, const char *path, int64_t *ver, sp_err *err);

/** Fixed-size NUL-padded ASCII string type of @p size bytes (0 taken as 1). */
hid_t sp_h5_str_type(size_t size);
/** sp_h5_str_type(size) with the character set of the string type @p ftype (a dataset's file type): HDF5
 *  converts no string between ASCII and UTF-8, so a reader of a column matches the file's cset. */
hid_t sp_h5_str_type_of(hid_t ftype, size_t size);

/** File access property list: sec2 driver, file locking used where the file system supports
 *  it and ignored where it does not (Lustre/NFS mounts without flock); with @p aligned, objects
 *  of 64 KiB or more start at multiples of 4096 bytes. Caller closes with H5Pclose; < 0 on failure. */
hid_t sp_h5_fapl(int aligned);

/** The first step of every reader of an existing sitepack file (merged, per-rank or shard): stat(2) @p path
 *  into @p st and refuse anything but a regular file, before HDF5 opens it (H5Fis_hdf5 / H5Fopen of a FIFO
 *  block until a writer comes; a device or directory is no sitepack file either).
 *  @return 0; SP_E_NOT_FOUND ("cannot open PATH: No such file or directory"), SP_E_IO (other stat errors, the
 *          errno text), SP_E_FORMAT ("PATH is not a regular file (a FIFO): not a sitepack file", with the kind). */
int sp_h5_input_stat(const char *path, struct stat *st, sp_err *err);

/** The hint that ends the message of a file HDF5 cannot open or walk (sp_h5_open_merged()); every reader of a
 *  merged file, the Python package too, ends the message with it. */
#define SP_H5_DAMAGED_HINT "(the file is damaged or truncated)"

/** The one open and diagnosis of an existing merged file for every command that reads one (check, dump,
 *  survey, export, cluster, split, the C reader; a new command calls it first), so that a truncated or damaged
 *  file gets the same class, message and exit status from each (issue 39): sp_h5_input_stat() (@p st, may be
 *  NULL, gets the stat), the HDF5 signature, H5Fopen read-only with sp_h5_fapl(0), a walk over every object
 *  header (H5Ovisit2: a damaged group or dataset header is told here, not by whichever dataset a command reads
 *  first; raw data are not read) and sp_h5_read_format() (@p ver, may be NULL, gets the format version). HDF5's
 *  automatic error printing is off inside; its stack is cleared on return.
 *  @return 0 with the file, read-only, in *@p file (the caller closes it with H5Fclose), or the class with
 *          *@p file = -1 and @p err (may be NULL) set: SP_E_INVALID (NULL path or file); sp_h5_input_stat()'s
 *          SP_E_NOT_FOUND, SP_E_IO, SP_E_FORMAT; SP_E_FORMAT "PATH is not an HDF5 file (no HDF5 signature)";
 *          SP_E_FORMAT "cannot open (PATH): <HDF5's text> (the file is damaged or truncated)" or "cannot read
 *          its groups and datasets (PATH): <HDF5's text> (the file is damaged or truncated)" (HDF5's text cut
 *          so that the hint stays); sp_h5_read_format()'s SP_E_FORMAT. */
int sp_h5_open_merged(const char *path, hid_t *file, int64_t *ver, struct stat *st, sp_err *err);
/** The text of sp_h5_open_merged()'s error for a file without the HDF5 signature (a zero-byte or text file). */
#define SP_H5_NO_SIGNATURE "(no HDF5 signature)"
/** The text of sp_h5_input_stat()'s error for a path that is not a regular file (a directory, a FIFO). */
#define SP_H5_NOT_REGULAR "is not a regular file"

/** 1 when @p err (may be NULL) is one of sp_h5_open_merged()'s errors for a file that cannot be read as HDF5 at
 *  all (SP_E_FORMAT ending with SP_H5_DAMAGED_HINT, or naming SP_H5_NO_SIGNATURE or SP_H5_NOT_REGULAR), else 0:
 *  a command whose exit status for other SP_E_FORMAT errors differs (cluster, split) exits 1 for it, as check,
 *  dump, survey and export do (issue 39). */
int sp_h5_damaged(const sp_err *err);

/** Create a dataset of the final layout (docs/format.md): contiguous, unfiltered, allocated early,
 *  never filled, no modification times; shape (n,) or, with @p three, (n, 3); file type @p ftype.
 *  Alignment comes from the file's access list (sp_h5_fapl(1)). Returns the dataset or < 0. */
hid_t sp_h5_create_final(hid_t loc, const char *name, hid_t ftype, int64_t n, int three);
/** Write rows [start, start+n) of a (n,) or (n,3) dataset from @p buf of native type @p mtype.
 *  0, or -1 with the HDF5 error stack kept for sp_h5_fail(). */
int sp_h5_write_slab(hid_t d, hid_t mtype, int64_t start, size_t n, int three, const void *buf);

/* Error helpers: silence HDF5's automatic stack printing inside our calls. */
typedef struct sp_h5_quiet { H5E_auto2_t func; void *data; } sp_h5_quiet;
/** Save the default error stack's automatic printing into @p q and switch it off. */
void sp_h5_quiet_begin(sp_h5_quiet *q);
/** Restore the printing that sp_h5_quiet_begin() saved in @p q. */
void sp_h5_quiet_end(const sp_h5_quiet *q);
/** Set err to SP_E_HDF5 with "@p what (@p path): <deepest HDF5 message>" (@p path NULL: no parentheses); a
 *  file driver's failed system call as "file write failed: <strerror text> (errno E)". A message longer
 *  than SP_ERR_MSG_LEN - 1 bytes ends with "..." (error.h). Clears the HDF5 error stack. Returns SP_E_HDF5. */
int sp_h5_fail(sp_err *err, const char *what, const char *path);

/* Attribute helpers: a new scalar attribute @p name of @p obj (an existing one is an error). */
int sp_h5_attr_str(hid_t obj, const char *name, const char *value);   /**< fixed-size UTF-8 string; 0 or -1 */
/** A variable-length UTF-8 string attribute, h5py reads it as str: the merged file's convention for `units`, `codes`,
 *  `missing` and the other text attributes of docs/format.md "Units and codes" (NULL value: ""). 0 or -1. */
int sp_h5_attr_vstr(hid_t obj, const char *name, const char *value);
int sp_h5_attr_i64(hid_t obj, const char *name, int64_t value);  /**< little-endian int64; 0 or -1 */
int sp_h5_attr_f64(hid_t obj, const char *name, double value);   /**< little-endian IEEE double; 0 or -1 */
/** Read a string attribute (fixed or variable) into buf (NUL-terminated, cut to @p cap - 1 bytes). 0 or -1
 *  (absent, another type class, more than one value, @p buf NULL or @p cap 0). */
int sp_h5_read_attr_str(hid_t obj, const char *name, char *buf, size_t cap);
/** Read an integer (_i64) or floating-point (_f64) attribute that holds exactly one value (a scalar or a
 *  one-element array) into *value. 0, or -1 when absent, of another type class, or holding more values. */
int sp_h5_read_attr_i64(hid_t obj, const char *name, int64_t *value);
int sp_h5_read_attr_f64(hid_t obj, const char *name, double *value);
/** Rows of dataset @p name of @p loc: its first dimension (a 1-D or 2-D dataset); -1 when it cannot be opened or
 *  has no dimension. Nothing is read but the dataspace. */
int64_t sp_h5_rows(hid_t loc, const char *name);

#endif

/**
 * @file error.h
 * @brief Stable error classes and the error record every fallible call fills.
 *
 * Every function of libsitepack that can fail returns an int: 0 on success, or a
 * positive sp_errclass value, and fills the caller's sp_err (when not NULL) with
 * that class and a one-line, human-readable message. The class names returned by
 * sp_errclass_name() are a stable interface: they are written to the output file
 * (`/structures/status`) and documented in docs/format.md. Never renumber or rename
 * a class; add new ones at the end.
 */
#ifndef SITEPACK_ERROR_H
#define SITEPACK_ERROR_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Stable error classes. SP_OK is 0. */
typedef enum sp_errclass {
  SP_OK = 0,
  SP_E_IO = 1,             /**< "io_error": open/read/stat/write failed (errno text in message) */
  SP_E_NOMEM = 2,          /**< "out_of_memory": an allocation failed */
  SP_E_TRUNCATED_GZIP = 3, /**< "truncated_gzip": gzip stream ends before its trailer */
  SP_E_GZIP = 4,           /**< "bad_gzip": corrupt deflate data or CRC/length mismatch */
  SP_E_NO_ATOMS = 5,       /**< "no_atoms": a structure file with no atom records (empty file too) */
  SP_E_SYNTAX = 6,         /**< "syntax_error": CIF lexical/grammar error (e.g. unquoted value starting with _ or $) */
  SP_E_ROW_COUNT = 7,      /**< "bad_row_count": loop value count not a multiple of its column count */
  SP_E_FORMAT = 8,         /**< "unknown_format": neither mmCIF nor PDB (binary, other text format) */
  SP_E_BAD_VALUE = 9,      /**< "bad_value": a required value cannot be parsed (e.g. coordinate not a number) */
  SP_E_MISSING_ITEM = 10,  /**< "missing_item": a required item/column is absent (e.g. no Cartn_x) */
  SP_E_TOO_LARGE = 11,     /**< "too_large": input above a configured or hard limit */
  SP_E_NOT_FOUND = 12,     /**< "not_found": a file, CCD block or key that was asked for does not exist */
  SP_E_INVALID = 13,       /**< "invalid_argument": bad argument / job file / option */
  SP_E_HDF5 = 14,          /**< "hdf5_error": an HDF5 call failed */
  SP_E_MPI = 15,           /**< "mpi_error": an MPI call failed */
  SP_E_INTERNAL = 16,      /**< "internal_error": a broken invariant (a bug: please report) */
  SP_E_BINARY = 17,        /**< "binary_input": NUL bytes or other non-text content in a text format */
  SP_E_DUPLICATE = 18,     /**< "duplicate": same bytes (SHA-256) as an earlier input file; not processed again (issue 9) */
  SP_E_TOO_MANY_ATOMS = 19,/**< "too_many_atoms": more atom records than the job's limits.max_atoms (issue 9) */
  SP_E_TIMEOUT = 20,       /**< "timeout": the task ran longer than the job's limits.max_seconds (issue 9) */
  SP_E_INTERRUPTED = 21,   /**< "interrupted": the run was stopped by SIGINT or SIGTERM (issue 16); never a file's status */
  SP_E_REPEATED_ENTRY = 22,/**< "repeated_entry": with `entries: first`, a later file of an entry an earlier file
                                (path order) has; not processed (issue 16 item 12) */
  SP_E_MULTIPLE_BLOCKS = 23, /**< "multiple_blocks": an mmCIF file with _atom_site rows in more than one data
                                  block (several structures in one file; gemmi refuses them too) */
  SP_ERRCLASS_COUNT
} sp_errclass;

/** Length of sp_err.msg including the terminating NUL. */
#define SP_ERR_MSG_LEN 256

/** An error record. Zero-initialise before use ({0}); cls == SP_OK means no error. */
typedef struct sp_err {
  int cls;                   /**< an sp_errclass */
  char msg[SP_ERR_MSG_LEN];  /**< NUL-terminated, one line, no trailing newline */
} sp_err;

/**
 * Stable lower-case name of an error class ("ok", "io_error", "truncated_gzip", ...).
 * @return a static string; "unknown_error" for values outside the enum. Never NULL.
 */
const char *sp_errclass_name(int cls);

/**
 * The class whose sp_errclass_name() is @p name (the inverse, for reading `/structures/status` back).
 * @param name NUL-terminated; NULL is treated as unknown.
 * @return SP_OK for "ok", an SP_E_* value for a class name, -1 for any other text ("unknown_error" included).
 */
int sp_errclass_from_name(const char *name);

/**
 * Fill @p err (if not NULL) with @p cls and a printf-style message, truncated to
 * SP_ERR_MSG_LEN-1 bytes (a cut message ends with "..."). Newlines and tabs in the formatted text are replaced by spaces.
 * @return @p cls, so that callers can write `return sp_err_set(err, SP_E_IO, ...)`.
 */
int sp_err_set(sp_err *err, int cls, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

#ifdef __cplusplus
}
#endif
#endif

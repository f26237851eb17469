/**
 * @file io.h
 * @brief File reading (whole file, gzip detected by magic bytes and inflated),
 *        SHA-256, and the recursive input-directory scan.
 */
#ifndef SITEPACK_IO_H
#define SITEPACK_IO_H

#include <stddef.h>
#include <stdint.h>

#include "sitepack/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/** A file's content in memory. data[len] is always '\0' (one extra byte allocated). */
typedef struct sp_buf {
  char *data;            /**< owned; free with sp_buf_free() */
  size_t len;            /**< bytes of (inflated) content */
  size_t stored_bytes;   /**< bytes of the file as stored on disk */
  int gzip;              /**< 1 if the file started with the gzip magic 1F 8B and was inflated */
  char sha256[65];       /**< hex SHA-256 of the stored bytes (filled by sp_file_read) */
  double sha256_seconds; /**< wall seconds sp_file_read spent on the SHA-256 (the run report's phase; 0 otherwise) */
} sp_buf;

/**
 * Read a whole file; if it starts with the gzip magic bytes (1F 8B) inflate it
 * (concatenated gzip members are read in full), regardless of its name.
 * @param max_bytes refuse content above this many bytes (0 = no limit): a plain file larger
 *        than that is refused from its size before anything is read; a gzip file once its
 *        inflated content passes the limit (inflation stops there)
 * @return 0; SP_E_NOT_FOUND (no such file), SP_E_IO (open/read error, a directory, ...),
 *         SP_E_TRUNCATED_GZIP (stream ends early), SP_E_GZIP (corrupt data, CRC mismatch),
 *         SP_E_TOO_LARGE, SP_E_NOMEM. Messages name the file.
 */
int sp_file_read(const char *path, size_t max_bytes, sp_buf *out, sp_err *err);

/**
 * Read a file's bytes as stored (no inflate, no hash) into malloc'd memory, one extra byte
 * allocated and set to '\0' ((*data)[*len] == 0). Regular files: st_size bytes, then until EOF;
 * pipes: until EOF. A plain (non-gzip) regular file above @p max_bytes (0 = no limit) is refused
 * before any byte is read; gzip files are not (their limit applies to the inflated size).
 * @param data  set to the bytes (caller frees with free()), NULL on error
 * @param len   set to the number of bytes
 * @return 0; SP_E_NOT_FOUND, SP_E_IO (open/stat/read error, a directory), SP_E_TOO_LARGE,
 *         SP_E_NOMEM. Messages name the file.
 */
int sp_file_read_stored(const char *path, size_t max_bytes, unsigned char **data, size_t *len, sp_err *err);

/**
 * SHA-256 (hex) of a regular file's bytes as stored, its size and whether it starts with the
 * gzip magic 1F 8B — what a /structures row records of a file, without inflating or parsing it.
 * @param sha    64 hex digits + NUL
 * @param bytes  size as stored (may be NULL)
 * @param gzip   1 when gzip-compressed, else 0 (may be NULL)
 * @return 0; SP_E_NOT_FOUND, SP_E_IO (not a regular file, open/read error), SP_E_NOMEM.
 */
int sp_file_digest(const char *path, char sha[65], int64_t *bytes, int *gzip, sp_err *err);

/** 1 when the @p n bytes at @p p start with the gzip magic 1f 8b (RFC 1952 ID1, ID2), else 0. */
static inline int sp_gzip_magic(const void *p, size_t n) {
  const unsigned char *b = (const unsigned char *)p;
  return n >= 2 && b[0] == 0x1f && b[1] == 0x8b;
}

/**
 * Map the file @p path read-only (one open, mmap MAP_SHARED; the descriptor is closed again). A non-empty
 * regular file: *map and *len set, unmap with munmap(*map, *len). An empty file or one that is not regular
 * (pipe, directory): 0 with *map NULL and *len 0, for the caller to read it with sp_file_read_stored, which
 * reports it.
 * @return 0; SP_E_NOT_FOUND (no such file), SP_E_IO (cannot open, cannot map: errno text, names the path).
 */
int sp_file_map(const char *path, void **map, size_t *len, sp_err *err);

/** Inflate gzip data already in memory (same rules and errors as sp_file_read). */
int sp_gunzip(const void *data, size_t len, size_t max_bytes, sp_buf *out, sp_err *err);

/**
 * Inflate one gzip member of @p in [0, @p n) into @p dst, which must come out exactly @p len
 * bytes and use all the input (e.g. @p len from the gzip trailer's ISIZE, RFC 1952), into a
 * buffer the caller owns (@p dst holds len + 1 bytes; dst[len] = 0 is written). libdeflate
 * when the build has it, else zlib.
 * @return 1 on success, 0 otherwise (several members, trailing bytes, another size, corrupt
 *         data, out of memory): no error class; the caller then takes a general path such as
 *         sp_gunzip(), which reports the error with its class.
 */
int sp_gzip_inflate_exact(const unsigned char *in, size_t n, char *dst, size_t len);

void sp_buf_free(sp_buf *b);

/** Hex SHA-256 (64 lowercase hex digits + NUL) of @p len bytes at @p data (OpenSSL libcrypto). */
void sp_sha256_hex(const void *data, size_t len, char out[65]);

/** One input file found by the scan. */
typedef struct sp_scan_entry {
  char *path;            /**< path relative to the scanned root, '/'-separated; owned */
  int64_t bytes;         /**< size as stored */
} sp_scan_entry;

/** Why the scan could not enter or read a path (issue 16; stable names: sp_scan_problem_name). */
typedef enum sp_scan_kind {
  SP_SCAN_UNREADABLE_DIR = 0, /**< "unreadable_directory": opendir failed (EACCES ...): its files are unknown */
  SP_SCAN_BROKEN_SYMLINK = 1, /**< "broken_symlink": a structure-named symlink whose target does not exist */
  SP_SCAN_SYMLINK_LOOP = 2,   /**< "symlink_loop": a structure-named symlink that resolves to itself (ELOOP) */
  SP_SCAN_NOT_A_FILE = 3,     /**< "not_a_file": a structure-named FIFO, socket or device (never opened) */
  SP_SCAN_DIR_REVISITED = 4,  /**< "directory_loop": a link back to a directory already scanned (reported once) */
  SP_SCAN_STAT_ERROR = 5,     /**< "stat_error": stat failed otherwise (EACCES on a path, EIO ...) */
  SP_SCAN_PATH_TOO_LONG = 6,  /**< "path_too_long": a structure file whose relative path, escaped
                                   (sp_path_escape), has more than SP_SCAN_MAX_PATH bytes (it would not fit
                                   /structures/path: never cut) */
  SP_SCAN_KIND_COUNT
} sp_scan_kind;

/** Longest relative path the scan lists, in bytes: the width of /structures/path (result.h
 *  SP_PATH_LEN, 512) less its NUL. A longer one is a problem (path_too_long), so that two files
 *  never share a cut path in the output (issue 16 item 7). */
#define SP_SCAN_MAX_PATH 511

/** A path the scan could not enter or read. */
typedef struct sp_scan_problem {
  char *path;            /**< relative to the scanned root, as sp_scan_entry.path; owned */
  int kind;              /**< an sp_scan_kind */
  int errno_value;       /**< errno of the failed call (0 for not_a_file, directory_loop) */
} sp_scan_problem;

typedef struct sp_scan_list {
  size_t n;
  sp_scan_entry *files;  /**< sorted by path (strcmp, byte order) */
  size_t n_skipped;      /**< entries skipped: other extensions, and every problem below */
  size_t n_problems;     /**< paths the scan could not enter or read (issue 16) ... */
  sp_scan_problem *problems; /**< ... [n_problems], sorted by path */
} sp_scan_list;

/** 1 when @p name (a file's last path component) is one the scan lists: .cif .mmcif .pdb .ent, each
 *  optionally .gz, case-insensitive, with something before the extension. */
int sp_scan_is_structure_name(const char *name);

/**
 * Issue 16 item 6: a path as sitepack writes it (/structures/path, the run report, the summary):
 * valid UTF-8 without control characters. Each byte that is not part of a valid UTF-8 sequence,
 * each control byte (0x00-0x1f, 0x7f) and each backslash is written as `\xNN` (two lower-case hex
 * digits), so the mapping is one to one: replacing every `\xNN` by its byte gives the name back.
 * Writes at most cap-1 bytes and a NUL into @p out (cap 0 / out NULL: nothing, to measure).
 * @return the length of the whole escaped text (>= cap: @p out holds a cut copy).
 */
size_t sp_path_escape(const char *raw, char *out, size_t cap);

/**
 * Issue 16 item 6: @p src escaped as sp_path_escape() does, into the fixed-size text column @p dst
 * [cap >= 4] (zero-padded to @p cap). A text whose escaped form does not fit is cut after its last
 * whole unit (a UTF-8 sequence or a `\xNN`) that leaves room for "...", which it then ends with: the
 * column stays valid UTF-8 and never holds half an escape.
 * @return 0, or 1 when the text was cut.
 */
int sp_text_escape_fit(char *dst, size_t cap, const char *src);

/** Stable name of an sp_scan_kind ("unreadable_directory", ...); "unknown" outside the enum. */
const char *sp_scan_problem_name(int kind);

/**
 * Recursively list structure files under @p root: names ending (case-insensitive)
 * in .cif .mmcif .pdb .ent, each optionally followed by .gz. Symlinks to files are
 * followed; directory symlink loops are detected (device, inode) and skipped. If
 * @p root is a regular file, the list holds that one file (path = its base name).
 * Every path the scan could not enter or read is listed in out->problems (a directory
 * it cannot open; a structure-named broken symlink, symlink loop, FIFO/socket/device or
 * path stat fails on; a second link to a directory already walked); other names are
 * only counted in n_skipped.
 * @return 0; SP_E_NOT_FOUND (root does not exist), SP_E_IO, SP_E_NOMEM.
 */
int sp_scan_dir(const char *root, sp_scan_list *out, sp_err *err);
void sp_scan_list_free(sp_scan_list *l);

/** Monotonic wall clock in seconds. */
double sp_now(void);

#ifdef __cplusplus
}
#endif
#endif

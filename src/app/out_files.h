/* The output paths of the commands that write a file (run, merge): the output's missing parent directories,
 * a probe that the path can be written before any work, and the full-disk test of a failed write. Not a
 * public header. */
#ifndef SITEPACK_OUT_FILES_H
#define SITEPACK_OUT_FILES_H

#include <stddef.h>

/* The run's own files beside its output OUT (docs/reliability.md), named by one table (out_files.c) so that
 * every command builds the same names: OUT.parts/ (per-rank files), OUT.tmp (the merge's file before its
 * rename), OUT.lock (run_guard.h), OUT.resume/ (an interrupted run's files kept for --resume). */
typedef enum { SP_SIB_PARTS, SP_SIB_TMP, SP_SIB_LOCK, SP_SIB_RESUME, SP_SIB_COUNT } sp_sibling;

/* The suffix of sibling @p k (".parts", ".tmp", ".lock", ".resume"); NULL for a value outside the enum. */
const char *sp_out_sibling_suffix(sp_sibling k);

/* @p output followed by the suffix of @p k into @p buf [@p cap] (NUL-terminated, cut to cap - 1 bytes).
 * Returns the length of the whole name (snprintf's count: >= cap when it was cut), or -1 for a bad @p k. */
int sp_out_sibling(const char *output, sp_sibling k, char *buf, size_t cap);

/* The default run report of @p output: OUT less a final ".h5", then ".report.json" (docs/reliability.md), into
 * @p buf [@p cap]; SP_OUT_REPORT_EXTRA bytes more than strlen(output) always suffice. Returns as
 * sp_out_sibling. */
#define SP_OUT_REPORT_EXTRA 16
int sp_out_report_path(const char *output, char *buf, size_t cap);

/* mkdir -p: create directory @p path and its missing parents (mode 0777 less the umask).
 * Returns 0, or -1 with errno set (a path of 4096 bytes or more: ENAMETOOLONG). */
int sp_out_mkdir_p(const char *path);

/* mkdir -p of the directory part of @p file_path (nothing for a name without '/'). Writes that directory,
 * NUL-terminated and cut to @p cap - 1 bytes, into @p dir (may be NULL) for the caller's message.
 * Returns 0, or -1 with errno set. */
int sp_out_mkdir_parent(const char *file_path, char *dir, unsigned long cap);

/* 1 when a file can be written at @p path: opened for writing without truncation (a file this probe
 * creates is removed again); 0 with errno set otherwise. */
int sp_out_writable(const char *path);

/* 1 when the file system of directory @p dir is (nearly) full: under 1 MiB available, on a file system
 * that has blocks at all (sysfs, procfs report 0 of 0: not a full disk); 0 otherwise or when statvfs(3)
 * fails. @p free_bytes (may be NULL) gets the available bytes. */
int sp_out_disk_full(const char *dir, double *free_bytes);

#endif

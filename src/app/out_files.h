/* The output paths of the commands that write a file (run, merge): the output's missing parent directories,
 * a probe that the path can be written before any work, and the full-disk test of a failed write. Not a
 * public header. */
#ifndef SITEPACK_OUT_FILES_H
#define SITEPACK_OUT_FILES_H

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

/* Output paths of run and merge: see out_files.h. */
#include "out_files.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

int sp_out_mkdir_p(const char *path) {
  char buf[4096];
  size_t n = strlen(path);
  if (n == 0 || n >= sizeof buf) {
    errno = n ? ENAMETOOLONG : ENOENT;
    return -1;
  }
  memcpy(buf, path, n + 1);
  for (char *p = buf + 1; *p; ++p) {
    if (*p != '/') continue;
    *p = 0;
    if (mkdir(buf, 0777) && errno != EEXIST) return -1;
    *p = '/';
  }
  if (mkdir(buf, 0777) && errno != EEXIST) return -1;
  return 0;
}

int sp_out_mkdir_parent(const char *file_path, char *dir, unsigned long cap) {
  char buf[4096];
  size_t n = strlen(file_path);
  if (n >= sizeof buf) {
    errno = ENAMETOOLONG;
    return -1;
  }
  memcpy(buf, file_path, n + 1);
  char *sl = strrchr(buf, '/');
  if (sl) *sl = 0;
  else buf[0] = 0;
  if (dir && cap) {
    size_t k = strlen(buf) < cap - 1 ? strlen(buf) : cap - 1;
    memcpy(dir, buf, k);
    dir[k] = 0;
  }
  return buf[0] ? sp_out_mkdir_p(buf) : 0;
}

int sp_out_writable(const char *path) {
  struct stat sb;
  int existed = stat(path, &sb) == 0;
  int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return 0;
  close(fd);
  if (!existed) unlink(path);
  return 1;
}

int sp_out_disk_full(const char *dir, double *free_bytes) {
  struct statvfs vfs;
  if (statvfs(dir, &vfs) != 0) return 0;
  double avail = (double)vfs.f_bavail * (double)vfs.f_frsize;
  if (free_bytes) *free_bytes = avail;
  return vfs.f_blocks > 0 && avail < 1048576.0;
}

static const char *const sibling_suffix[SP_SIB_COUNT] = {
    [SP_SIB_PARTS] = ".parts", [SP_SIB_TMP] = ".tmp", [SP_SIB_LOCK] = ".lock", [SP_SIB_RESUME] = ".resume"};

const char *sp_out_sibling_suffix(sp_sibling k) { return (unsigned)k < SP_SIB_COUNT ? sibling_suffix[k] : NULL; }

int sp_out_sibling(const char *output, sp_sibling k, char *buf, size_t cap) {
  const char *suffix = sp_out_sibling_suffix(k);
  if (!suffix) return -1;
  return snprintf(buf, cap, "%s%s", output, suffix);
}

int sp_out_report_path(const char *output, char *buf, size_t cap) {
  size_t n = strlen(output);
  int stem = n > 3 && !strcmp(output + n - 3, ".h5") ? (int)(n - 3) : (int)n;
  return snprintf(buf, cap, "%.*s.report.json", stem, output);
}

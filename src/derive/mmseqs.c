/* MMseqs2 as a child process for sitepack cluster (split.h sp_cluster; docs/usage.md "Splits"). */
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "derive/split_internal.h"

int sp_spl_find_exe(const char *name, char *out, size_t cap) {
  if (!name || !name[0]) return -1;
  if (strchr(name, '/')) {
    if (access(name, X_OK)) return -1;
    snprintf(out, cap, "%s", name);
    return 0;
  }
  const char *path = getenv("PATH");
  if (!path) path = "/usr/local/bin:/usr/bin:/bin";
  for (const char *p = path; *p;) {
    const char *e = strchr(p, ':');
    size_t len = e ? (size_t)(e - p) : strlen(p);
    if (len && len + strlen(name) + 2 < cap) {
      snprintf(out, cap, "%.*s/%s", (int)len, p, name);
      struct stat st;
      if (!stat(out, &st) && S_ISREG(st.st_mode) && !access(out, X_OK)) return 0;
    }
    if (!e) break;
    p = e + 1;
  }
  return -1;
}

int sp_spl_spawn(const char *exe, char *const argv[], const char *log_path) {
  pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    int fd = open(log_path, O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd >= 0) {
      dup2(fd, 1);
      dup2(fd, 2);
      close(fd);
    }
    int nul = open("/dev/null", O_RDONLY);
    if (nul >= 0) dup2(nul, 0);
    execv(exe, argv);
    _exit(127);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return -1;
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *ftw) {
  (void)st, (void)flag, (void)ftw;
  return remove(p);
}

void sp_spl_rmtree(const char *dir) { nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS); }

void sp_spl_log_tail(const char *log_path, char *out, size_t cap) {
  out[0] = '\0';
  FILE *f = fopen(log_path, "rb");
  if (!f) return;
  char buf[4096];
  fseek(f, 0, SEEK_END);
  long end = ftell(f);
  long start = end > 300 ? end - 300 : 0;
  fseek(f, start, SEEK_SET);
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = '\0';
  size_t k = 0;
  for (size_t i = 0; i < n && k + 1 < cap; i++) out[k++] = (buf[i] == '\n' || buf[i] == '\t') ? ' ' : buf[i];
  out[k] = '\0';
}

/* `sitepack run`: output lock, stop signals, the launcher's death. See run_guard.h. */
#include "app/run_guard.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "app/app.h"
#include "app/out_files.h"

static volatile sig_atomic_t g_stop_signal;

static void on_stop(int sig) {
  if (!g_stop_signal) g_stop_signal = sig;
}

void run_signals_install(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_stop;
  sa.sa_flags = SA_RESETHAND | SA_RESTART; /* a second signal: the default action */
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
}

int run_stop_signal(void) { return g_stop_signal; }

void run_die_with_launcher(void) {
  if (!getenv("OMPI_COMM_WORLD_SIZE")) return; /* not started by mpirun: the shell may go, the run stays */
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() == 1) _exit(SP_EXIT_RUNTIME); /* the launcher died before the request */
}

static void lock_path(const char *output, char *buf, size_t cap) { sp_out_sibling(output, SP_SIB_LOCK, buf, cap); }

int run_lock_output(const char *output, int *fd_out) {
  char path[4200];
  lock_path(output, path, sizeof path);
  *fd_out = -1;
  for (int attempt = 0; attempt < 8; attempt++) {
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) {
      fprintf(stderr, "sitepack run: cannot create the lock %s: %s\n", path, strerror(errno));
      return SP_EXIT_RUNTIME;
    }
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
      int e = errno;
      char pid[32] = "?";
      ssize_t n = e == EWOULDBLOCK ? pread(fd, pid, sizeof pid - 1, 0) : -1;
      pid[n > 0 ? n : 1] = 0;
      pid[strcspn(pid, "\n")] = 0;
      close(fd);
      if (e != EWOULDBLOCK) {
        fprintf(stderr, "sitepack run: cannot lock %s: %s\n", path, strerror(e));
        return SP_EXIT_RUNTIME;
      }
      fprintf(stderr, "sitepack run: another run (pid %s) is writing %s (it holds %s): wait for it to end or stop it\n",
              pid, output, path);
      return SP_EXIT_USAGE;
    }
    /* the file may have been removed by the run that held it, between our open and our lock: then
       the lock is on a dead inode; open the path again */
    struct stat a, b;
    if (fstat(fd, &a) == 0 && stat(path, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino) {
      char pid[32];
      int n = snprintf(pid, sizeof pid, "%ld\n", (long)getpid());
      if (ftruncate(fd, 0) != 0 || pwrite(fd, pid, (size_t)n, 0) != n) { /* the pid is for the message only */
      }
      *fd_out = fd;
      return 0;
    }
    close(fd);
  }
  fprintf(stderr, "sitepack run: cannot lock %s: it keeps being replaced\n", path);
  return SP_EXIT_RUNTIME;
}

void run_unlock_output(const char *output, int fd) {
  if (fd < 0) return;
  char path[4200];
  lock_path(output, path, sizeof path);
  unlink(path); /* while holding the lock: a waiting run sees the inode change and opens the path again */
  close(fd);
}

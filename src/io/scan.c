/* Recursive input-directory scan: see include/sitepack/io.h.
 *
 * Iterative depth-first walk (explicit stack, no recursion). Symlinks are followed
 * (stat, not lstat); every directory's (device, inode) is remembered, and a directory
 * reached a second time (a symlink loop, or a second link to the same directory) is
 * skipped and listed as a problem (directory_loop), so the walk always ends and never lists
 * a file twice through two links to one directory. Paths it cannot enter or read are listed in
 * problems (issue 16), never dropped without a word. */
#include "sitepack/io.h"
#include "sitepack/base.h"

#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

void sp_scan_list_free(sp_scan_list *l) {
  if (!l) return;
  for (size_t i = 0; i < l->n; ++i) free(l->files[i].path);
  free(l->files);
  for (size_t i = 0; i < l->n_problems; ++i) free(l->problems[i].path);
  free(l->problems);
  memset(l, 0, sizeof *l);
}

const char *sp_scan_problem_name(int kind) {
  static const char *const names[SP_SCAN_KIND_COUNT] = {"unreadable_directory", "broken_symlink", "symlink_loop",
                                                        "not_a_file", "directory_loop", "stat_error",
                                                        "path_too_long"};
  return kind >= 0 && kind < SP_SCAN_KIND_COUNT ? names[kind] : "unknown";
}

static int ends_with_ci(const char *s, size_t n, const char *suf) {
  size_t k = strlen(suf);
  if (n < k) return 0;
  for (size_t i = 0; i < k; ++i) {
    char c = s[n - k + i];
    if (c >= 'A' && c <= 'Z') c = (char)(c - 'A' + 'a');
    if (c != suf[i]) return 0;
  }
  return 1;
}

/* .cif .mmcif .pdb .ent, each optionally followed by .gz (case-insensitive). */
static int wanted_name(const char *name) {
  size_t n = strlen(name);
  if (ends_with_ci(name, n, ".gz")) n -= 3;
  static const char *const ext[] = {".cif", ".mmcif", ".pdb", ".ent"};
  for (size_t i = 0; i < sizeof ext / sizeof *ext; ++i)
    if (ends_with_ci(name, n, ext[i]) && n > strlen(ext[i])) return 1;
  return 0;
}

int sp_scan_is_structure_name(const char *name) { return wanted_name(name); }

/* Length of the valid UTF-8 sequence at @p p (RFC 3629: no overlongs, no surrogates, at most
   U+10FFFF), 0 when the bytes there are not one. */
static size_t utf8_seq(const unsigned char *p) {
  unsigned c = p[0];
  if (c < 0x80) return 1;
  size_t n = c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
  for (size_t k = 1; k < n; k++)
    if ((p[k] & 0xc0) != 0x80) return 0;
  if (n == 3 && ((c == 0xe0 && p[1] < 0xa0) || (c == 0xed && p[1] > 0x9f))) return 0;
  if (n == 4 && ((c == 0xf0 && p[1] < 0x90) || (c == 0xf4 && p[1] > 0x8f))) return 0;
  return n;
}

/* The next unit of the escaped text at @p p (not at its NUL): a valid UTF-8 sequence as it is, or one
   byte as `\xNN` (io.h sp_path_escape). *unit points at its bytes (into @p p or @p esc [4]); returns its
   length, *used the bytes of @p p it stands for. */
static size_t escape_unit(const unsigned char *p, char esc[4], const char **unit, size_t *used) {
  static const char hex[] = "0123456789abcdef";
  size_t n = utf8_seq(p);
  if (n == 0 || *p < 0x20 || *p == 0x7f || *p == '\\') {
    esc[0] = '\\', esc[1] = 'x', esc[2] = hex[*p >> 4], esc[3] = hex[*p & 15];
    *unit = esc;
    *used = 1;
    return 4;
  }
  *unit = (const char *)p;
  *used = n;
  return n;
}

size_t sp_path_escape(const char *raw, char *out, size_t cap) {
  const unsigned char *p = (const unsigned char *)raw;
  size_t len = 0;
  while (*p) {
    char esc[4];
    const char *src;
    size_t used, k = escape_unit(p, esc, &src, &used);
    for (size_t i = 0; i < k; i++, len++)
      if (out && len + 1 < cap) out[len] = src[i];
    p += used;
  }
  if (out && cap) out[len < cap ? len : cap - 1] = 0;
  return len;
}

int sp_text_escape_fit(char *dst, size_t cap, const char *src) {
  memset(dst, 0, cap);
  if (sp_path_escape(src, NULL, 0) < cap) {
    sp_path_escape(src, dst, cap);
    return 0;
  }
  const unsigned char *p = (const unsigned char *)src;
  size_t len = 0;
  while (*p) { /* whole units only, so that the cut text stays valid UTF-8 and every \xNN whole */
    char esc[4];
    const char *u;
    size_t used, k = escape_unit(p, esc, &u, &used);
    if (len + k + 3 > cap - 1) break;
    memcpy(dst + len, u, k);
    len += k;
    p += used;
  }
  memcpy(dst + len, "...", cap - 1 >= 3 ? 3 : cap - 1);
  return 1;
}

typedef struct {
  dev_t dev;
  ino_t ino;
} dev_ino;

typedef struct {
  sp_scan_list *out;
  size_t cap_files, cap_problems;
  dev_ino *seen; /* hash set of the directories walked (device, inode) */
  unsigned char *used;
  size_t n_seen, cap_seen;
  char **stack; /* relative directory paths still to walk ("" = root) */
  size_t n_stack, cap_stack;
} walk;

static int push_ptr(void ***arr, size_t *n, size_t *cap, void *p) {
  if (SP_GROW(*arr, *cap, *n + 1)) return -1;
  (*arr)[(*n)++] = p;
  return 0;
}

static size_t hash_di(dev_t dev, ino_t ino) {
  uint64_t h = (uint64_t)dev * 0x9E3779B97F4A7C15ull ^ (uint64_t)ino * 0xC2B2AE3D27D4EB4Full;
  return (size_t)(h ^ (h >> 29));
}

/* 1 if (dev, ino) was seen before; otherwise records it and returns 0; -1 on no memory.
 * Open-addressing hash set (power-of-two table, at most half full). */
static int seen_before(walk *w, dev_t dev, ino_t ino) {
  if ((w->n_seen + 1) * 2 > w->cap_seen) {
    size_t nc = w->cap_seen ? w->cap_seen * 2 : 64;
    dev_ino *ns = calloc(nc, sizeof *ns);
    unsigned char *nu = calloc(nc, 1);
    if (!ns || !nu) {
      free(ns);
      free(nu);
      return -1;
    }
    for (size_t i = 0; i < w->cap_seen; ++i)
      if (w->used[i]) {
        size_t k = hash_di(w->seen[i].dev, w->seen[i].ino) & (nc - 1);
        while (nu[k]) k = (k + 1) & (nc - 1);
        nu[k] = 1;
        ns[k] = w->seen[i];
      }
    free(w->seen);
    free(w->used);
    w->seen = ns;
    w->used = nu;
    w->cap_seen = nc;
  }
  size_t k = hash_di(dev, ino) & (w->cap_seen - 1);
  while (w->used[k]) {
    if (w->seen[k].dev == dev && w->seen[k].ino == ino) return 1;
    k = (k + 1) & (w->cap_seen - 1);
  }
  w->used[k] = 1;
  w->seen[k].dev = dev;
  w->seen[k].ino = ino;
  w->n_seen++;
  return 0;
}

static int add_file(walk *w, char *rel, int64_t bytes) {
  sp_scan_list *l = w->out;
  if (SP_GROW(l->files, w->cap_files, l->n + 1)) return -1;
  l->files[l->n].path = rel;
  l->files[l->n].bytes = bytes;
  l->n++;
  return 0;
}

/* Record a problem path (ownership of rel taken, also on failure); counted in n_skipped too. */
static int add_problem(walk *w, char *rel, int kind, int errno_value) {
  sp_scan_list *l = w->out;
  l->n_skipped++;
  if (l->n_problems == w->cap_problems) {
    size_t nc = w->cap_problems ? w->cap_problems * 2 : 16;
    sp_scan_problem *np = realloc(l->problems, nc * sizeof *np);
    if (!np) {
      free(rel);
      return -1;
    }
    l->problems = np;
    w->cap_problems = nc;
  }
  l->problems[l->n_problems++] = (sp_scan_problem){rel, kind, errno_value};
  return 0;
}

static char *join(const char *a, const char *b) {
  size_t na = strlen(a), nb = strlen(b);
  char *p = malloc(na + nb + 2);
  if (!p) return NULL;
  memcpy(p, a, na);
  size_t k = na;
  if (na && a[na - 1] != '/') p[k++] = '/';
  memcpy(p + k, b, nb + 1);
  return p;
}

static int cmp_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }
static int cmp_entry(const void *a, const void *b) {
  return strcmp(((const sp_scan_entry *)a)->path, ((const sp_scan_entry *)b)->path);
}
static int cmp_problem(const void *a, const void *b) {
  return strcmp(((const sp_scan_problem *)a)->path, ((const sp_scan_problem *)b)->path);
}

/* The problem kind of a child stat() failed on with errno @p e (a structure name, or any name
   for -1 = not worth a row: other names are only counted) */
static int stat_problem(const char *full, const char *name, int e) {
  struct stat ls;
  int is_link = lstat(full, &ls) == 0 && S_ISLNK(ls.st_mode);
  if (!wanted_name(name)) return -1;
  if (e == ELOOP) return SP_SCAN_SYMLINK_LOOP;
  if (is_link && (e == ENOENT || e == ENOTDIR)) return SP_SCAN_BROKEN_SYMLINK;
  return SP_SCAN_STAT_ERROR;
}

/* Walk one directory (relative path rel, already marked as seen). */
static int walk_dir(walk *w, const char *root, const char *rel, sp_err *err) {
  char *full = rel[0] ? join(root, rel) : strdup(root);
  if (!full) return sp_err_set(err, SP_E_NOMEM, "out of memory (scan)");
  DIR *d = opendir(full);
  if (!d) { /* unreadable directory: skipped, counted (the root itself is an error) */
    if (!rel[0]) {
      int e = errno;
      sp_err_set(err, SP_E_IO, "%s: cannot open directory: %s", full, strerror(e));
      free(full);
      return SP_E_IO;
    }
    int e = errno;
    free(full);
    char *r = strdup(rel);
    if (!r || add_problem(w, r, SP_SCAN_UNREADABLE_DIR, e)) return sp_err_set(err, SP_E_NOMEM, "out of memory (scan)");
    return 0;
  }
  char **names = NULL;
  size_t n_names = 0, cap_names = 0;
  int rc = 0;
  struct dirent *de;
  while ((de = readdir(d)) != NULL) {
    if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..")) continue;
    char *nm = strdup(de->d_name);
    if (!nm || push_ptr((void ***)&names, &n_names, &cap_names, nm)) {
      free(nm);
      rc = sp_err_set(err, SP_E_NOMEM, "out of memory (scan)");
      break;
    }
  }
  closedir(d);
  if (!rc && n_names) qsort(names, n_names, sizeof *names, cmp_name);
  /* push subdirectories in reverse order so that they are walked in name order */
  char **subdirs = NULL;
  size_t n_sub = 0, cap_sub = 0;
  for (size_t i = 0; i < n_names && !rc; ++i) {
    char *child_full = join(full, names[i]);
    char *child_rel = rel[0] ? join(rel, names[i]) : strdup(names[i]);
    if (!child_full || !child_rel) {
      free(child_full);
      free(child_rel);
      rc = sp_err_set(err, SP_E_NOMEM, "out of memory (scan)");
      break;
    }
    struct stat st;
    if (stat(child_full, &st) != 0) { /* broken symlink, loop, permission: a problem when structure-named */
      int e = errno, kind = stat_problem(child_full, names[i], e);
      if (kind < 0) {
        w->out->n_skipped++;
        free(child_rel);
      } else if (add_problem(w, child_rel, kind, e)) {
        rc = sp_err_set(err, SP_E_NOMEM, "out of memory (scan)");
      }
    } else if (S_ISDIR(st.st_mode)) {
      int sb = seen_before(w, st.st_dev, st.st_ino);
      if (sb < 0) {
        free(child_rel);
        rc = sp_err_set(err, SP_E_NOMEM, "out of memory (scan)");
      } else if (sb) { /* symlink loop or second link to a directory already walked: once per link */
        if (add_problem(w, child_rel, SP_SCAN_DIR_REVISITED, 0)) rc = sp_err_set(err, SP_E_NOMEM, "out of memory (scan)");
      } else if (push_ptr((void ***)&subdirs, &n_sub, &cap_sub, child_rel)) {
        free(child_rel);
        rc = sp_err_set(err, SP_E_NOMEM, "out of memory (scan)");
      }
    } else if (S_ISREG(st.st_mode) && wanted_name(names[i]) && sp_path_escape(child_rel, NULL, 0) > SP_SCAN_MAX_PATH) {
      if (add_problem(w, child_rel, SP_SCAN_PATH_TOO_LONG, 0)) rc = sp_err_set(err, SP_E_NOMEM, "out of memory (scan)");
    } else if (S_ISREG(st.st_mode) && wanted_name(names[i])) {
      if (add_file(w, child_rel, (int64_t)st.st_size)) {
        free(child_rel);
        rc = sp_err_set(err, SP_E_NOMEM, "out of memory (scan)");
      }
    } else if (!S_ISREG(st.st_mode) && wanted_name(names[i])) { /* FIFO, socket, device: never opened */
      if (add_problem(w, child_rel, SP_SCAN_NOT_A_FILE, 0)) rc = sp_err_set(err, SP_E_NOMEM, "out of memory (scan)");
    } else {
      w->out->n_skipped++;
      free(child_rel);
    }
    free(child_full);
  }
  while (n_sub) {
    char *s = subdirs[--n_sub];
    if (!rc && push_ptr((void ***)&w->stack, &w->n_stack, &w->cap_stack, s)) {
      rc = sp_err_set(err, SP_E_NOMEM, "out of memory (scan)");
      free(s);
    } else if (rc) {
      free(s);
    }
  }
  free(subdirs);
  for (size_t i = 0; i < n_names; ++i) free(names[i]);
  free(names);
  free(full);
  return rc;
}

int sp_scan_dir(const char *root, sp_scan_list *out, sp_err *err) {
  memset(out, 0, sizeof *out);
  struct stat st;
  if (stat(root, &st) != 0) {
    int e = errno;
    return sp_err_set(err, e == ENOENT || e == ENOTDIR ? SP_E_NOT_FOUND : SP_E_IO, "%s: cannot stat: %s", root,
                      strerror(e));
  }
  if (S_ISREG(st.st_mode)) {
    const char *base = strrchr(root, '/');
    base = base ? base + 1 : root;
    out->files = malloc(sizeof *out->files);
    char *p = strdup(base);
    if (!out->files || !p) {
      free(out->files);
      free(p);
      out->files = NULL;
      return sp_err_set(err, SP_E_NOMEM, "out of memory (scan)");
    }
    out->files[0].path = p;
    out->files[0].bytes = (int64_t)st.st_size;
    out->n = 1;
    return 0;
  }
  if (!S_ISDIR(st.st_mode)) return sp_err_set(err, SP_E_IO, "%s: neither a directory nor a regular file", root);

  walk w;
  memset(&w, 0, sizeof w);
  w.out = out;
  int rc = 0;
  char *r0 = strdup("");
  if (!r0 || seen_before(&w, st.st_dev, st.st_ino) < 0 || push_ptr((void ***)&w.stack, &w.n_stack, &w.cap_stack, r0)) {
    free(r0);
    rc = sp_err_set(err, SP_E_NOMEM, "out of memory (scan)");
  }
  while (!rc && w.n_stack) {
    char *rel = w.stack[--w.n_stack];
    rc = walk_dir(&w, root, rel, err);
    free(rel);
  }
  while (w.n_stack) free(w.stack[--w.n_stack]);
  free(w.stack);
  free(w.seen);
  free(w.used);
  if (rc) {
    sp_scan_list_free(out);
    return rc;
  }
  if (out->n > 1) qsort(out->files, out->n, sizeof *out->files, cmp_entry);
  if (out->n_problems > 1) qsort(out->problems, out->n_problems, sizeof *out->problems, cmp_problem);
  return 0;
}

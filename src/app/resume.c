/* `sitepack run`: duplicates, --resume and the job stamp of the parts directory (see app/resume.h,
 * docs/reliability.md "Resume protocol"). Rank 0 only. */
#define _GNU_SOURCE
#include "app/resume.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sitepack/io.h"
#include "sitepack/resume.h"
#include "sitepack/store.h"
#include "sitepack/version.h"

#define PATH_CAP 4200

/* dst = a "/" b; -1 (dst empty) when it does not fit */
static int join(char *dst, size_t cap, const char *a, const char *b) {
  int k = snprintf(dst, cap, "%s/%s", a, b);
  if (k < 0 || (size_t)k >= cap) {
    dst[0] = 0;
    return -1;
  }
  return 0;
}

void sp_prepare_out_free(sp_prepare_out *o) {
  if (!o) return;
  free(o->skip);
  memset(o, 0, sizeof *o);
}

/* SHA-256 (hex) of a file's bytes as stored, and whether it starts with the gzip magic. -1 if unreadable. */
static int hash_file(const char *root, const char *rel, char out[65], uint8_t *gzip) {
  char full[PATH_CAP];
  if (join(full, sizeof full, root, rel)) return -1;
  int gz = 0;
  if (sp_file_digest(full, out, NULL, &gz, NULL)) return -1;
  *gzip = (uint8_t)gz;
  return 0;
}

/* Per-rank files of sitepack in a parts directory: rank-*.h5, prepared.h5, their .tmp, job.txt. */
static int ours(const char *name) {
  size_t l = strlen(name);
  if (!strcmp(name, "job.txt") || !strcmp(name, "job.txt.tmp") || !strcmp(name, "prepared.h5") ||
      !strcmp(name, "prepared.h5.tmp"))
    return 1;
  /* rank-*.h5.failed: a per-rank file whose write failed (run.c), removed with the rest but never read */
  return !strncmp(name, "rank-", 5) && ((l > 8 && !strcmp(name + l - 3, ".h5")) || (l > 15 && !strcmp(name + l - 10, ".h5.failed")));
}

/* Remove sitepack's files in @p dir (not others'); returns how many there were. */
static size_t clear_ours(const char *dir, int remove_them) {
  DIR *d = opendir(dir);
  if (!d) return 0;
  size_t k = 0;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (!ours(e->d_name)) continue;
    k++;
    if (remove_them) {
      char p[PATH_CAP];
      if (join(p, sizeof p, dir, e->d_name)) continue;
      unlink(p);
    }
  }
  closedir(d);
  return k;
}

static char *read_small(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  char *b = calloc(1, 1 << 20);
  if (b && fread(b, 1, (1 << 20) - 1, f) == 0 && ferror(f)) {
    free(b);
    b = NULL;
  }
  fclose(f);
  return b;
}

static int write_stamp(const char *parts_dir, const char *stamp) {
  char tmp[PATH_CAP], fin[PATH_CAP];
  if (join(tmp, sizeof tmp, parts_dir, "job.txt.tmp") || join(fin, sizeof fin, parts_dir, "job.txt")) return -1;
  FILE *f = fopen(tmp, "w");
  if (!f) return -1;
  int bad = fputs(stamp, f) < 0;
  bad |= fflush(f) != 0 || fsync(fileno(f)) != 0;
  bad |= fclose(f) != 0;
  if (bad || rename(tmp, fin)) {
    unlink(tmp);
    return -1;
  }
  return 0;
}

typedef struct h5list {
  char **paths;
  int *gen;
  size_t n, cap;
} h5list;

static int h5list_add(h5list *l, const char *path, int gen) {
  if (l->n == l->cap) {
    size_t nc = l->cap ? l->cap * 2 : 64;
    char **p = realloc(l->paths, nc * sizeof *p);
    if (!p) return -1;
    l->paths = p;
    int *g = realloc(l->gen, nc * sizeof *g);
    if (!g) return -1;
    l->gen = g;
    l->cap = nc;
  }
  l->paths[l->n] = strdup(path);
  if (!l->paths[l->n]) return -1;
  l->gen[l->n++] = gen;
  return 0;
}

static void h5list_free(h5list *l) {
  for (size_t i = 0; i < l->n; i++) free(l->paths[i]);
  free(l->paths);
  free(l->gen);
  memset(l, 0, sizeof *l);
}

/* Remove OUT.resume/attempt-* (sitepack's files only) and the directory itself. */
static void remove_attempts(const char *root) {
  DIR *d = opendir(root);
  if (!d) return;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (strncmp(e->d_name, "attempt-", 8)) continue;
    char p[PATH_CAP];
    if (join(p, sizeof p, root, e->d_name)) continue;
    clear_ours(p, 1);
    rmdir(p);
  }
  closedir(d);
  rmdir(root);
}

static int fail(const char *what, const char *path) {
  fprintf(stderr, "sitepack run: %s %s: %s\n", what, path, strerror(errno));
  return SP_EXIT_RUNTIME;
}

int sp_run_prepare(const sp_job *job, const char *parts_dir, char *const *paths, const int64_t *bytes, size_t n,
                   const char *ccd_sha, sp_prepare_out *out) {
  double t0 = sp_now();
  memset(out, 0, sizeof *out);
  out->skip = calloc(n ? n : 1, 1);
  char (*sha)[65] = calloc(n ? n : 1, sizeof *sha); /* "" = not hashed (yet) */
  uint8_t *gz = calloc(n ? n : 1, 1);
  int64_t *dup_of = malloc((n ? n : 1) * sizeof *dup_of);
  size_t *order = malloc((n ? n : 1) * sizeof *order);
  sp_resume_set rs;
  memset(&rs, 0, sizeof rs);
  h5list files = {0};
  sp_rank_writer *w = NULL;
  sp_result r;
  sp_result_init(&r);
  int status = 0;
  char stamp[8192], resume_root[PATH_CAP], tmp[PATH_CAP], fin[PATH_CAP];
  snprintf(resume_root, sizeof resume_root, "%s.resume", job->output);
  join(tmp, sizeof tmp, parts_dir, "prepared.h5.tmp");
  join(fin, sizeof fin, parts_dir, "prepared.h5");
  /* what an earlier run's files must match to be reused: per-rank files are internal to one build,
     and the rows depend on the job (pH, cutoff, model, limits) and on the CCD's content */
  snprintf(stamp, sizeof stamp, "sitepack %s %s\njob %s\nccd_sha256 %s\n", SP_VERSION, SP_GIT_SHA,
           job->json ? job->json : "", ccd_sha ? ccd_sha : "");
  if (!out->skip || !sha || !gz || !dup_of || !order) {
    fprintf(stderr, "sitepack run: out of memory (prepare)\n");
    status = SP_EXIT_RUNTIME;
    goto done;
  }

  /* 1. earlier per-rank files: moved aside and read back (--resume), or removed */
  if (job->resume) {
    if (clear_ours(parts_dir, 0) > 0) {
      if (mkdir(resume_root, 0777) && errno != EEXIST) {
        status = fail("cannot create", resume_root);
        goto done;
      }
      int next = 1;
      DIR *d = opendir(resume_root);
      struct dirent *e;
      while (d && (e = readdir(d)))
        if (!strncmp(e->d_name, "attempt-", 8) && atoi(e->d_name + 8) >= next) next = atoi(e->d_name + 8) + 1;
      if (d) closedir(d);
      char dst[PATH_CAP], name[32];
      snprintf(name, sizeof name, "attempt-%04d", next);
      join(dst, sizeof dst, resume_root, name);
      if (rename(parts_dir, dst)) {
        status = fail("cannot move the earlier per-rank files to", dst);
        goto done;
      }
    }
    DIR *d = opendir(resume_root);
    struct dirent *e;
    while (d && (e = readdir(d))) {
      if (strncmp(e->d_name, "attempt-", 8)) continue;
      char dir[PATH_CAP], p[PATH_CAP];
      if (join(dir, sizeof dir, resume_root, e->d_name) || join(p, sizeof p, dir, "job.txt")) continue;
      char *st = read_small(p);
      int same = st && !strcmp(st, stamp);
      free(st);
      if (!same) {
        out->n_stale_attempts++;
        continue;
      }
      DIR *d2 = opendir(dir);
      struct dirent *e2;
      while (d2 && (e2 = readdir(d2))) {
        size_t l = strlen(e2->d_name);
        if (!ours(e2->d_name) || l < 4 || strcmp(e2->d_name + l - 3, ".h5")) continue;
        if (join(p, sizeof p, dir, e2->d_name)) continue;
        if (h5list_add(&files, p, atoi(e->d_name + 8))) status = SP_EXIT_RUNTIME;
      }
      if (d2) closedir(d2);
    }
    if (d) closedir(d);
    sp_err err = {0};
    if (!status && sp_resume_scan((const char *const *)files.paths, files.gen, files.n, &rs, &err)) {
      fprintf(stderr, "sitepack run: --resume: %s\n", err.msg);
      status = SP_EXIT_RUNTIME;
    }
    if (status) goto done;
    out->n_unreadable = rs.n_unreadable;
    if (rs.n_unreadable && !job->quiet)
      fprintf(stderr, "sitepack run: --resume: %zu earlier per-rank file(s) unreadable, their tasks run again (%s)\n",
              rs.n_unreadable, rs.first_problem);
  } else {
    clear_ours(parts_dir, 1);
  }
  if (mkdir(parts_dir, 0777) && errno != EEXIST) {
    status = fail("cannot create", parts_dir);
    goto done;
  }
  if (write_stamp(parts_dir, stamp)) {
    status = fail("cannot write the job stamp in", parts_dir);
    goto done;
  }

  /* 2. duplicates: equal sizes first (cheap), then equal SHA-256; the first in path order is kept */
  for (size_t i = 0; i < n; i++) {
    order[i] = i;
    dup_of[i] = -1;
  }
  /* insertion by size would be O(n^2): sort indices by (bytes, index) */
  {
    /* a simple heap sort keeps this file free of a comparison context */
    size_t m = n;
#define KEY_LT(a, b) (bytes[a] < bytes[b] || (bytes[a] == bytes[b] && (a) < (b)))
    for (size_t start = m / 2; start-- > 0;) {
      size_t root = start;
      for (;;) {
        size_t c = 2 * root + 1;
        if (c >= m) break;
        if (c + 1 < m && KEY_LT(order[c], order[c + 1])) c++;
        if (!KEY_LT(order[root], order[c])) break;
        size_t t = order[root]; order[root] = order[c]; order[c] = t;
        root = c;
      }
    }
    for (size_t end = m; end-- > 1;) {
      size_t t = order[0]; order[0] = order[end]; order[end] = t;
      size_t root = 0;
      for (;;) {
        size_t c = 2 * root + 1;
        if (c >= end) break;
        if (c + 1 < end && KEY_LT(order[c], order[c + 1])) c++;
        if (!KEY_LT(order[root], order[c])) break;
        size_t u = order[root]; order[root] = order[c]; order[c] = u;
        root = c;
      }
    }
#undef KEY_LT
  }
  for (size_t a = 0; a < n;) {
    size_t b = a + 1;
    while (b < n && bytes[order[b]] == bytes[order[a]]) b++;
    if (b - a > 1) {
      for (size_t k = a; k < b; k++) {
        size_t f = order[k];
        if (hash_file(job->input, paths[f], sha[f], &gz[f])) sha[f][0] = 0;
        else out->n_hashed++;
      }
      for (size_t k = a + 1; k < b; k++) { /* order inside a size group is by index */
        size_t f = order[k];
        for (size_t j = a; j < k && sha[f][0]; j++)
          if (!strcmp(sha[order[j]], sha[f])) {
            dup_of[f] = dup_of[order[j]] >= 0 ? dup_of[order[j]] : (int64_t)order[j];
            break;
          }
      }
    }
    a = b;
  }

  /* 3. the prepared file: resumed tasks (unchanged files) and the duplicates' rows */
  for (size_t f = 0; f < n && !status; f++) {
    sp_err err = {0};
    long e = dup_of[f] < 0 && rs.n ? sp_resume_find(&rs, paths[f]) : -1;
    if (dup_of[f] < 0 && e < 0) continue;
    if (e >= 0) {
      const sp_resume_entry *en = &rs.entries[e];
      if (!strcmp(en->status, sp_errclass_name(SP_E_DUPLICATE))) continue; /* decided afresh above */
      if (en->bytes != bytes[f]) {
        out->n_changed++;
        continue;
      }
      if (!sha[f][0]) {
        if (hash_file(job->input, paths[f], sha[f], &gz[f])) continue; /* unreadable now: its task says why */
        out->n_hashed++;
      }
      if (strcmp(sha[f], en->sha256)) {
        out->n_changed++;
        continue;
      }
    }
    if (!w && !(w = sp_rank_writer_open(tmp, &err))) {
      fprintf(stderr, "sitepack run: cannot create %s: %s\n", tmp, err.msg);
      status = SP_EXIT_RUNTIME;
      break;
    }
    int rc;
    if (e >= 0) {
      rc = sp_resume_copy(&rs, (size_t)e, (int64_t)f, w, &r, &err);
      if (!rc) {
        out->n_resumed++;
        out->n_resumed_tasks += (size_t)rs.entries[e].n_parts;
      }
    } else {
      sp_result_clear(&r);
      r.file_idx = (int64_t)f;
      r.has_structure_row = 1;
      sp_structure_row *st = &r.st;
      snprintf(st->path, sizeof st->path, "%s", paths[f]);
      memcpy(st->sha256, sha[f], 65);
      snprintf(st->status, sizeof st->status, "%s", sp_errclass_name(SP_E_DUPLICATE));
      snprintf(st->error, sizeof st->error, "same bytes (SHA-256) as %.200s", paths[dup_of[f]]);
      st->gzip = gz[f];
      st->bytes = bytes[f];
      st->resolution = NAN;
      rc = sp_rank_writer_append(w, &r, &err);
      if (!rc) out->n_duplicates++;
    }
    if (rc == SP_E_INVALID && e >= 0 && rs.entries[e].n_parts == 1) {
      /* rows that fail the writer's checks (nothing was written): a damaged earlier file; run it again */
      if (!job->quiet) fprintf(stderr, "sitepack run: --resume: %s: earlier rows damaged, run again (%s)\n", paths[f], err.msg);
      out->n_unreadable++;
      continue;
    }
    if (rc) {
      fprintf(stderr, "sitepack run: cannot write %s: %s: %s\n", tmp, sp_errclass_name(rc), err.msg);
      status = SP_EXIT_RUNTIME;
      break;
    }
    out->skip[f] = 1;
  }
  if (w) {
    sp_err err = {0};
    if (sp_rank_writer_close(w, &err) && !status) {
      fprintf(stderr, "sitepack run: cannot close %s: %s\n", tmp, err.msg);
      status = SP_EXIT_RUNTIME;
    }
    w = NULL;
    if (!status && rename(tmp, fin)) status = fail("cannot rename", tmp);
    if (status) unlink(tmp);
    out->has_prepared = !status;
  }
  /* the earlier attempts are now all in prepared.h5 (or of no use): remove them */
  if (!status && job->resume) {
    sp_resume_free(&rs);
    remove_attempts(resume_root);
  }

done:
  if (status && out->skip) memset(out->skip, 0, n ? n : 1);
  sp_resume_free(&rs);
  h5list_free(&files);
  sp_result_free(&r);
  free(sha);
  free(gz);
  free(dup_of);
  free(order);
  out->seconds = sp_now() - t0;
  return status;
}

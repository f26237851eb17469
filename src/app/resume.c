/* `sitepack run`: duplicates, --resume and the job stamp of the parts directory (see app/resume.h,
 * docs/reliability.md "Resume protocol"). Rank 0 only. */
#define _GNU_SOURCE
#include "app/resume.h"
#include "app/out_files.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sitepack/base.h"
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

int sp_run_hash_file(const char *root, const char *rel, char out[65], uint8_t *gzip) {
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
  size_t n, cap, cap_gen;
} h5list;

static int h5list_add(h5list *l, const char *path, int gen) {
  if (SP_GROW(l->paths, l->cap, l->n + 1) || SP_GROW(l->gen, l->cap_gen, l->n + 1)) return -1;
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

/* Add the readable kind of sitepack's per-rank files in @p dir (rank-*.h5, prepared.h5: never *.failed
   nor *.tmp) to @p l with generation @p gen. Returns 0 or -1 (out of memory; the listing goes on). */
static int list_ours_h5(h5list *l, const char *dir, int gen) {
  DIR *d = opendir(dir);
  if (!d) return 0;
  int status = 0;
  struct dirent *e;
  while ((e = readdir(d))) {
    size_t len = strlen(e->d_name);
    char f[PATH_CAP];
    if (!ours(e->d_name) || len < 4 || strcmp(e->d_name + len - 3, ".h5") || join(f, sizeof f, dir, e->d_name))
      continue;
    if (h5list_add(l, f, gen)) status = -1;
  }
  closedir(d);
  return status;
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

/* The work of one sp_run_prepare() call: its arguments, its scratch arrays [n] and the earlier
   attempts read back. Everything but the arguments and out is owned here and freed by prepare_free(). */
typedef struct prepare {
  const sp_job *job;
  const char *parts_dir;
  char *const *paths;
  const int64_t *bytes;
  size_t n;
  const uint8_t *only;  /* [n] the files whose rows this run writes (a shard's); NULL: every file */
  const sp_hasher *hasher; /* hashes a batch of files (NULL: hash_batch() hashes them here) */
  const sp_prepare_entries *ent; /* each file's entry (issue 16 item 12) */
  sp_prepare_out *out;
  char (*sha)[65];      /* [n] SHA-256 (hex) of the stored bytes; "" = not hashed (yet) */
  uint8_t *gz;          /* [n] the file starts with the gzip magic (where hashed) */
  int64_t *dup_of;      /* [n] the first file (path order) with the same bytes; -1: none */
  size_t *order;        /* [n] file indices sorted by (bytes, index) */
  sp_resume_set rs;     /* --resume: the completed tasks of earlier attempts */
  h5list files;         /* --resume: their per-rank files */
  sp_result r;          /* scratch rows */
  char stamp[8192];     /* the job stamp (PARTS/job.txt) of this run */
  char resume_root[PATH_CAP], tmp[PATH_CAP], fin[PATH_CAP]; /* OUT.resume, PARTS/prepared.h5(.tmp) */
} prepare;

/* Zero @p p, keep the arguments, allocate the scratch arrays and out->skip, write the stamp and the
   paths. Returns 0 or SP_EXIT_RUNTIME (out of memory, printed); prepare_free() in every case. */
static int prepare_open(prepare *p, const sp_job *job, const char *parts_dir, char *const *paths,
                        const int64_t *bytes, size_t n, const char *ccd_sha, sp_prepare_out *out) {
  *p = (prepare){.job = job, .parts_dir = parts_dir, .paths = paths, .bytes = bytes, .n = n, .out = out};
  memset(out, 0, sizeof *out);
  out->skip = calloc(n ? n : 1, 1);
  p->sha = calloc(n ? n : 1, sizeof *p->sha);
  p->gz = calloc(n ? n : 1, 1);
  p->dup_of = malloc((n ? n : 1) * sizeof *p->dup_of);
  p->order = malloc((n ? n : 1) * sizeof *p->order);
  sp_result_init(&p->r);
  sp_out_sibling(job->output, SP_SIB_RESUME, p->resume_root, sizeof p->resume_root);
  join(p->tmp, sizeof p->tmp, parts_dir, "prepared.h5.tmp");
  join(p->fin, sizeof p->fin, parts_dir, "prepared.h5");
  /* what an earlier run's files must match to be reused: per-rank files are internal to one build,
     and the rows depend on the job (pH, cutoff, model, limits) and on the CCD's content */
  snprintf(p->stamp, sizeof p->stamp, "sitepack %s %s\njob %s\nccd_sha256 %s\n", SP_VERSION, SP_GIT_SHA,
           job->json ? job->json : "", ccd_sha ? ccd_sha : "");
  if (!out->skip || !p->sha || !p->gz || !p->dup_of || !p->order) {
    fprintf(stderr, "sitepack run: out of memory (prepare)\n");
    return SP_EXIT_RUNTIME;
  }
  return 0;
}

/* Free what @p p owns (not its arguments, not out). */
static void prepare_free(prepare *p) {
  sp_resume_free(&p->rs);
  h5list_free(&p->files);
  sp_result_free(&p->r);
  free(p->sha);
  free(p->gz);
  free(p->dup_of);
  free(p->order);
}

/* --resume, step 1a: when the parts directory holds sitepack's files of an earlier run, move the whole
   directory to OUT.resume/attempt-NNNN (the next free number). Returns 0 or SP_EXIT_RUNTIME (printed). */
static int move_parts_aside(prepare *p) {
  if (clear_ours(p->parts_dir, 0) == 0) return 0;
  if (mkdir(p->resume_root, 0777) && errno != EEXIST) return fail("cannot create", p->resume_root);
  int next = 1;
  DIR *d = opendir(p->resume_root);
  struct dirent *e;
  while (d && (e = readdir(d)))
    if (!strncmp(e->d_name, "attempt-", 8) && atoi(e->d_name + 8) >= next) next = atoi(e->d_name + 8) + 1;
  if (d) closedir(d);
  char dst[PATH_CAP], name[32];
  snprintf(name, sizeof name, "attempt-%04d", next);
  join(dst, sizeof dst, p->resume_root, name);
  if (rename(p->parts_dir, dst)) return fail("cannot move the earlier per-rank files to", dst);
  return 0;
}

/* Issue 16 item 11: print the differences between a JSON job @p was and @p now, key by key (nested
   objects as "site.cutoff"), into @p out [cap] as "KEY: OLD in the earlier run, NEW now; ...". */
static void diff_json(const cJSON *was, const cJSON *now, const char *prefix, char *out, size_t cap) {
  for (int pass = 0; pass < 2; pass++) /* keys of the earlier job, then keys only in this one */
    for (const cJSON *a = (pass ? now : was)->child; a; a = a->next) {
      const cJSON *b = cJSON_GetObjectItemCaseSensitive(pass ? was : now, a->string);
      if (pass && b) continue;
      char key[128];
      snprintf(key, sizeof key, "%s%s", prefix, a->string);
      if (b && cJSON_IsObject(a) && cJSON_IsObject(b)) {
        char sub[130];
        snprintf(sub, sizeof sub, "%s.", key);
        diff_json(a, b, sub, out, cap);
        continue;
      }
      if (b && cJSON_Compare(a, b, 1)) continue;
      char *ta = cJSON_PrintUnformatted(pass ? NULL : a), *tb = cJSON_PrintUnformatted(pass ? a : b);
      size_t n = strlen(out);
      snprintf(out + n, cap - n, "%s%s: %s in the earlier run, %s now", n ? "; " : "", key, ta ? ta : "(not set)",
               tb ? tb : "(not set)");
      cJSON_free(ta);
      cJSON_free(tb);
    }
}

/* Issue 16 item 11: say why the attempt @p name (stamp @p old) is not reused by this run (stamp @p now):
   which job option, the CCD or the build differs (instead of a silent "resumed 0 files"). */
static void explain_stale(const char *name, const char *old, const char *now) {
  char what[1024] = "";
  const char *jo = strstr(old, "\njob "), *jn = strstr(now, "\njob ");
  const char *co = strstr(old, "\nccd_sha256 "), *cn = strstr(now, "\nccd_sha256 ");
  if (!jo || !jn || !co || !cn) {
    fprintf(stderr, "sitepack run: --resume: %s has no readable job stamp: its tasks are run again\n", name);
    return;
  }
  if (strncmp(old, now, (size_t)(jo - old)) || (size_t)(jo - old) != (size_t)(jn - now))
    snprintf(what, sizeof what, "another build (%.*s)", (int)(jo - old), old);
  cJSON *a = cJSON_ParseWithLength(jo + 5, (size_t)(co - jo - 5)), *b = cJSON_ParseWithLength(jn + 5, (size_t)(cn - jn - 5));
  if (a && b) {
    size_t n = strlen(what);
    if (n) snprintf(what + n, sizeof what - n, "; ");
    diff_json(a, b, "", what + strlen(what), sizeof what - strlen(what));
  }
  cJSON_Delete(a);
  cJSON_Delete(b);
  if (strcmp(co, cn)) {
    size_t n = strlen(what);
    snprintf(what + n, sizeof what - n, "%sanother CCD (SHA-256)", n ? "; " : "");
  }
  fprintf(stderr, "sitepack run: --resume: %s was a run of another job (%s): its tasks are run again\n", name,
          what[0] ? what : "its stamp differs");
}

/* --resume, step 1b: the per-rank files (*.h5 of ours) of every attempt whose job stamp is this run's
   into p->files, with the attempt's number as generation; attempts of another job, CCD or build are
   counted in out->n_stale_attempts. Returns 0 or SP_EXIT_RUNTIME (out of memory; the listing goes on). */
static int list_attempt_files(prepare *p) {
  int status = 0;
  DIR *d = opendir(p->resume_root);
  struct dirent *e;
  while (d && (e = readdir(d))) {
    if (strncmp(e->d_name, "attempt-", 8)) continue;
    char dir[PATH_CAP], f[PATH_CAP];
    if (join(dir, sizeof dir, p->resume_root, e->d_name) || join(f, sizeof f, dir, "job.txt")) continue;
    char *st = read_small(f);
    int same = st && !strcmp(st, p->stamp);
    if (!same) explain_stale(e->d_name, st ? st : "", p->stamp);
    free(st);
    if (!same) {
      p->out->n_stale_attempts++;
      continue;
    }
    if (list_ours_h5(&p->files, dir, atoi(e->d_name + 8))) status = SP_EXIT_RUNTIME;
  }
  if (d) closedir(d);
  return status;
}

/* Step 1: earlier per-rank files: moved aside and read back into p->rs (--resume), or removed (with
   --force the earlier attempts of OUT.resume too).
   Returns 0 or SP_EXIT_RUNTIME (printed). */
static int read_earlier_runs(prepare *p) {
  const sp_job *job = p->job;
  if (!job->resume) { /* the run checked before its scan that they hold no finished task, or --force */
    clear_ours(p->parts_dir, 1);
    if (job->force) remove_attempts(p->resume_root);
    return 0;
  }
  int status = move_parts_aside(p);
  if (status) return status;
  status = list_attempt_files(p);
  sp_err err = {0};
  if (!status && sp_resume_scan((const char *const *)p->files.paths, p->files.gen, p->files.n, &p->rs, &err)) {
    fprintf(stderr, "sitepack run: --resume: %s\n", err.msg);
    status = SP_EXIT_RUNTIME;
  }
  if (status) return status;
  p->out->n_unreadable = p->rs.n_unreadable;
  if (p->rs.n_unreadable && !job->quiet)
    fprintf(stderr, "sitepack run: --resume: %zu earlier per-rank file(s) unreadable, their tasks run again (%s)\n",
            p->rs.n_unreadable, p->rs.first_problem);
  return 0;
}

/* rank-*.h5.failed files (run_task.c: a per-rank file whose write failed) in @p dir. */
static size_t count_failed(const char *dir) {
  DIR *d = opendir(dir);
  size_t k = 0, len;
  struct dirent *e;
  while (d && (e = readdir(d)))
    k += ours(e->d_name) && (len = strlen(e->d_name)) > 10 && !strcmp(e->d_name + len - 10, ".h5.failed");
  if (d) closedir(d);
  return k;
}

int sp_run_parts_held(const char *output, const char *parts_dir, sp_parts_held *held) {
  memset(held, 0, sizeof *held);
  h5list l = {0};
  char root[PATH_CAP];
  sp_out_sibling(output, SP_SIB_RESUME, root, sizeof root);
  int status = 0;
  DIR *d = opendir(root);
  struct dirent *e;
  while (d && (e = readdir(d))) {
    char dir[PATH_CAP];
    if (strncmp(e->d_name, "attempt-", 8) || join(dir, sizeof dir, root, e->d_name)) continue;
    size_t before = l.n;
    if (list_ours_h5(&l, dir, atoi(e->d_name + 8))) status = SP_EXIT_RUNTIME;
    held->n_attempt_files += l.n - before;
    held->n_failed_files += count_failed(dir);
  }
  if (d) closedir(d);
  if (list_ours_h5(&l, parts_dir, INT_MAX)) status = SP_EXIT_RUNTIME; /* the newest: --resume makes it the last attempt */
  held->n_failed_files += count_failed(parts_dir);
  sp_resume_set rs = {0};
  sp_err err = {0};
  if (!status && l.n && sp_resume_scan((const char *const *)l.paths, l.gen, l.n, &rs, &err)) {
    fprintf(stderr, "sitepack run: reading the earlier per-rank files: %s\n", err.msg);
    status = SP_EXIT_RUNTIME;
  }
  if (status == SP_EXIT_RUNTIME && !err.msg[0]) fprintf(stderr, "sitepack run: out of memory (earlier per-rank files)\n");
  for (size_t k = 0; !status && k < rs.n; k++) {
    const char *st = rs.entries[k].status; /* duplicates and repeated entries are decided afresh: no work kept */
    if (!strcmp(st, sp_errclass_name(SP_E_DUPLICATE)) || !strcmp(st, sp_errclass_name(SP_E_REPEATED_ENTRY))) continue;
    held->n_files++;
    held->n_tasks += (size_t)rs.entries[k].n_parts;
  }
  held->n_unreadable = rs.n_unreadable;
  sp_resume_free(&rs);
  h5list_free(&l);
  return status;
}

#define KEY_LT(a, b) (bytes[a] < bytes[b] || (bytes[a] == bytes[b] && (a) < (b)))

/* Heap sort's sift-down of order[root] in the max-heap order[0 .. end-1], keyed by (bytes, index). */
static void sift_down(size_t *order, const int64_t *bytes, size_t root, size_t end) {
  for (;;) {
    size_t c = 2 * root + 1;
    if (c >= end) break;
    if (c + 1 < end && KEY_LT(order[c], order[c + 1])) c++;
    if (!KEY_LT(order[root], order[c])) break;
    size_t t = order[root]; order[root] = order[c]; order[c] = t;
    root = c;
  }
}
#undef KEY_LT

/* Sort @p order [n] (file indices) by (bytes, index): a heap sort, which keeps this file free of a
   comparison context (insertion by size would be O(n^2)). */
static void sort_by_size(size_t *order, const int64_t *bytes, size_t n) {
  for (size_t start = n / 2; start-- > 0;) sift_down(order, bytes, start, n);
  for (size_t end = n; end-- > 1;) {
    size_t t = order[0]; order[0] = order[end]; order[end] = t;
    sift_down(order, bytes, 0, end);
  }
}

/* Hash files idx[0..k) into p->sha, p->gz (an unreadable file stays ""), all at once through p->hasher
   (the run's ranks) or one by one here. Returns 0 or SP_EXIT_RUNTIME (out of memory, printed). */
static int hash_batch(prepare *p, const size_t *idx, size_t k) {
  if (!p->hasher) {
    for (size_t j = 0; j < k; j++) {
      size_t f = idx[j];
      if (sp_run_hash_file(p->job->input, p->paths[f], p->sha[f], &p->gz[f])) p->sha[f][0] = 0;
      else p->out->n_hashed++;
    }
    return 0;
  }
  char (*sha)[65] = calloc(k ? k : 1, sizeof *sha);
  uint8_t *gz = calloc(k ? k : 1, 1);
  if (!sha || !gz) {
    free(sha);
    free(gz);
    fprintf(stderr, "sitepack run: out of memory (hashing %zu files)\n", k);
    return SP_EXIT_RUNTIME;
  }
  p->hasher->hash(p->hasher->ctx, idx, k, sha, gz);
  for (size_t j = 0; j < k; j++) {
    memcpy(p->sha[idx[j]], sha[j], 65);
    p->gz[idx[j]] = gz[j];
    if (sha[j][0]) p->out->n_hashed++;
  }
  free(sha);
  free(gz);
  return 0;
}

/* Step 2: duplicates: equal sizes first (cheap), then equal SHA-256 (p->sha, p->gz of every file of a
   size shared with another, hashed in one batch; an unreadable file stays unhashed); p->dup_of: the
   first in path order. Zero-byte files are never duplicates (issue 39 item 1): each is read and gets
   its own class (no_atoms), docs/reliability.md. Returns 0 or hash_batch()'s SP_EXIT_RUNTIME. */
static int find_duplicates(prepare *p) {
  const int64_t *bytes = p->bytes;
  size_t n = p->n, *order = p->order, n_idx = 0;
  for (size_t i = 0; i < n; i++) {
    order[i] = i;
    p->dup_of[i] = -1;
  }
  sort_by_size(order, bytes, n);
  size_t *idx = malloc((n ? n : 1) * sizeof *idx);
  if (!idx) {
    fprintf(stderr, "sitepack run: out of memory (prepare)\n");
    return SP_EXIT_RUNTIME;
  }
  for (size_t a = 0, b; a < n; a = b) { /* every file of a size group of two or more */
    for (b = a + 1; b < n && bytes[order[b]] == bytes[order[a]];) b++;
    for (size_t j = a; b - a > 1 && bytes[order[a]] > 0 && j < b; j++) idx[n_idx++] = order[j]; /* not empty ones */
  }
  int status = hash_batch(p, idx, n_idx);
  free(idx);
  for (size_t a = 0; a < n && !status;) {
    size_t b = a + 1;
    while (b < n && bytes[order[b]] == bytes[order[a]]) b++;
    if (b - a > 1) { /* an unhashed file (empty, unreadable) has sha "" and is no duplicate */
      for (size_t k = a + 1; k < b; k++) { /* order inside a size group is by index */
        size_t f = order[k];
        for (size_t j = a; j < k && p->sha[f][0]; j++)
          if (!strcmp(p->sha[order[j]], p->sha[f])) {
            p->dup_of[f] = p->dup_of[order[j]] >= 0 ? p->dup_of[order[j]] : (int64_t)order[j];
            break;
          }
      }
    }
    a = b;
  }
  return status;
}

/* 1 when earlier entry @p e (of p->rs) can stand for file @p f of this run: not a duplicate row (those
   are decided afresh), same size and SHA-256 as now (hashed here if not yet; a change is counted in
   out->n_changed). 0 otherwise (also when the file is unreadable now: its task says why). */
static int resume_usable(prepare *p, size_t f, long e) {
  const sp_resume_entry *en = &p->rs.entries[e];
  if (!strcmp(en->status, sp_errclass_name(SP_E_DUPLICATE))) return 0; /* decided afresh above */
  if (en->bytes != p->bytes[f]) {
    p->out->n_changed++;
    return 0;
  }
  if (!p->sha[f][0]) {
    if (sp_run_hash_file(p->job->input, p->paths[f], p->sha[f], &p->gz[f])) return 0; /* unreadable now: its task says why */
    p->out->n_hashed++;
  }
  if (strcmp(p->sha[f], en->sha256)) {
    p->out->n_changed++;
    return 0;
  }
  return 1;
}

/* Append the structure row of duplicate file @p f (status "duplicate", the first file's path in its
   error text) to @p w. Returns sp_rank_writer_append()'s status. */
static int append_duplicate_row(prepare *p, size_t f, sp_rank_writer *w, sp_err *err) {
  sp_result *r = &p->r;
  sp_result_clear(r);
  r->file_idx = (int64_t)f;
  r->has_structure_row = 1;
  sp_structure_row *st = &r->st;
  sp_path_escape(p->paths[f], st->path, sizeof st->path); /* issue 16: as /structures/path holds it (io.h) */
  memcpy(st->sha256, p->sha[f], 65);
  snprintf(st->status, sizeof st->status, "%s", sp_errclass_name(SP_E_DUPLICATE));
  char first[201]; /* cut after a whole UTF-8 sequence or \xNN (io.h) */
  sp_text_escape_fit(first, sizeof first, p->paths[p->dup_of[f]]);
  snprintf(st->error, sizeof st->error, "same bytes (SHA-256) as %s", first);
  st->gzip = p->gz[f];
  st->bytes = p->bytes[f];
  st->resolution = NAN;
  st->entry_first = p->ent->first[f];
  return sp_rank_writer_append(w, r, err);
}

/* 1 when file @p f is not processed under `entries: first` (issue 16 item 12): a later file of an entry. */
static int repeated_entry(const prepare *p, size_t f) {
  return p->ent->keep_first && p->ent->first[f] >= 0 && p->ent->first[f] != (int64_t)f;
}

/* Append the structure row of file @p f, a later file of an entry (status "repeated_entry", the entry and
   its first file in its error text; path, sha256, bytes and gzip as for a duplicate) to @p w. Returns
   sp_rank_writer_append()'s status, or the file's read error class (SP_E_IO ...: it is then run, its task
   says why). */
static int append_repeated_row(prepare *p, size_t f, sp_rank_writer *w, sp_err *err) {
  if (!p->sha[f][0] && sp_run_hash_file(p->job->input, p->paths[f], p->sha[f], &p->gz[f]))
    return sp_err_set(err, SP_E_IO, "%s: cannot read", p->paths[f]);
  p->out->n_hashed++;
  sp_result *r = &p->r;
  sp_result_clear(r);
  r->file_idx = (int64_t)f;
  r->has_structure_row = 1;
  sp_structure_row *st = &r->st;
  sp_path_escape(p->paths[f], st->path, sizeof st->path);
  memcpy(st->sha256, p->sha[f], 65);
  snprintf(st->status, sizeof st->status, "%s", sp_errclass_name(SP_E_REPEATED_ENTRY));
  char first[161], id[32]; /* 6 + 31 + 7 + 160 + 36 bytes: the message fits st->error */
  size_t k = (size_t)p->ent->first[f];
  sp_text_escape_fit(first, sizeof first, p->paths[k]);
  sp_text_escape_fit(id, sizeof id, p->ent->key[f]);
  snprintf(st->error, sizeof st->error, "entry %s is in %s, processed instead (entries: first)", id, first);
  memcpy(st->entry_id, id, sizeof st->entry_id); /* as the file's head names it (upper-case) */
  st->gzip = p->gz[f];
  st->bytes = p->bytes[f];
  st->resolution = NAN;
  st->entry_first = (int64_t)k;
  return sp_rank_writer_append(w, r, err);
}

/* The earlier entry (of p->rs) of file @p f when it is no duplicate and has one, else -1. */
static long resume_entry(const prepare *p, size_t f) {
  char esc[SP_PATH_LEN]; /* issue 16: rows hold the escaped path (io.h sp_path_escape) */
  if (p->dup_of[f] >= 0 || !p->rs.n) return -1;
  sp_path_escape(p->paths[f], esc, sizeof esc);
  return sp_resume_find(&p->rs, esc);
}

/* Step 3a: hash, in one batch, every file whose earlier results this run may take over (same size,
   not hashed yet), so that resume_usable() finds their SHA-256. Returns 0 or SP_EXIT_RUNTIME. */
static int hash_resume_candidates(prepare *p) {
  if (!p->rs.n) return 0;
  size_t *idx = malloc((p->n ? p->n : 1) * sizeof *idx), k = 0;
  if (!idx) {
    fprintf(stderr, "sitepack run: out of memory (prepare)\n");
    return SP_EXIT_RUNTIME;
  }
  for (size_t f = 0; f < p->n; f++) {
    long e = resume_entry(p, f);
    if (e >= 0 && (!p->only || p->only[f]) && !p->sha[f][0] && p->rs.entries[e].bytes == p->bytes[f] &&
        strcmp(p->rs.entries[e].status, sp_errclass_name(SP_E_DUPLICATE)))
      idx[k++] = f;
  }
  int status = hash_batch(p, idx, k);
  free(idx);
  return status;
}

/* Step 3 for file @p f: its rows in the prepared file (*w, opened at the first one): the resumed
   tasks of an unchanged file, or a duplicate's row; out->skip[f] = 1 then. A resumed file whose rows
   fail the writer's checks runs again (counted as unreadable). Returns 0 or SP_EXIT_RUNTIME (cannot
   create or write the prepared file; printed). */
static int prepare_file(prepare *p, size_t f, sp_rank_writer **w) {
  sp_prepare_out *out = p->out;
  sp_err err = {0};
  int dup = p->dup_of[f] >= 0, rep = !dup && repeated_entry(p, f);
  long e = rep ? -1 : resume_entry(p, f);
  if (!dup && !rep && e < 0) return 0;
  if (p->only && !p->only[f]) return 0; /* another shard's file: that shard writes its row */
  if (e >= 0 && !resume_usable(p, f, e)) return 0;
  if (!*w && !(*w = sp_rank_writer_open(p->tmp, &err))) {
    fprintf(stderr, "sitepack run: cannot create %s: %s\n", p->tmp, err.msg);
    return SP_EXIT_RUNTIME;
  }
  int rc;
  if (e >= 0) {
    rc = sp_resume_copy(&p->rs, (size_t)e, (int64_t)f, p->ent->first[f], *w, &p->r, &err);
    if (!rc) {
      out->n_resumed++;
      out->n_resumed_tasks += (size_t)p->rs.entries[e].n_parts;
    }
  } else if (dup) {
    rc = append_duplicate_row(p, f, *w, &err);
    if (!rc) out->n_duplicates++;
  } else {
    rc = append_repeated_row(p, f, *w, &err);
    if (rc == SP_E_IO) return 0; /* unreadable now: its task says why */
    if (!rc) out->n_repeated++;
  }
  if (rc == SP_E_INVALID && e >= 0 && p->rs.entries[e].n_parts == 1) {
    /* rows that fail the writer's checks (nothing was written): a damaged earlier file; run it again */
    if (!p->job->quiet)
      fprintf(stderr, "sitepack run: --resume: %s: earlier rows damaged, run again (%s)\n", p->paths[f], err.msg);
    out->n_unreadable++;
    return 0;
  }
  if (rc) {
    fprintf(stderr, "sitepack run: cannot write %s: %s: %s\n", p->tmp, sp_errclass_name(rc), err.msg);
    return SP_EXIT_RUNTIME;
  }
  out->skip[f] = 1;
  return 0;
}

/* Step 3b: PARTS/prepared.h5 (through its .tmp name and a rename), only when some file has rows in it
   (out->has_prepared). Returns 0 or SP_EXIT_RUNTIME (printed; the .tmp file removed). */
static int write_prepared(prepare *p) {
  int status = 0;
  sp_rank_writer *w = NULL;
  for (size_t f = 0; f < p->n && !status; f++) status = prepare_file(p, f, &w);
  if (w) {
    sp_err err = {0};
    if (sp_rank_writer_close(w, &err) && !status) {
      fprintf(stderr, "sitepack run: cannot close %s: %s\n", p->tmp, err.msg);
      status = SP_EXIT_RUNTIME;
    }
    if (!status && rename(p->tmp, p->fin)) status = fail("cannot rename", p->tmp);
    if (status) unlink(p->tmp);
    p->out->has_prepared = !status;
  }
  return status;
}

int sp_run_prepare(const sp_job *job, const char *parts_dir, char *const *paths, const int64_t *bytes, size_t n,
                   const char *ccd_sha, const uint8_t *only, const sp_hasher *hasher, const sp_prepare_entries *ent,
                   sp_prepare_out *out) {
  double t0 = sp_now();
  prepare p;
  int status = prepare_open(&p, job, parts_dir, paths, bytes, n, ccd_sha, out);
  p.only = only;
  p.hasher = hasher;
  p.ent = ent;
  if (!status) status = read_earlier_runs(&p); /* 1. */
  if (!status && mkdir(parts_dir, 0777) && errno != EEXIST) status = fail("cannot create", parts_dir);
  if (!status && write_stamp(parts_dir, p.stamp)) status = fail("cannot write the job stamp in", parts_dir);
  if (!status) status = find_duplicates(&p);        /* 2. */
  if (!status) status = hash_resume_candidates(&p); /* 3. */
  if (!status) status = write_prepared(&p);
  /* the earlier attempts are now all in prepared.h5 (or of no use): remove them */
  if (!status && job->resume) {
    sp_resume_free(&p.rs);
    remove_attempts(p.resume_root);
  }
  if (status && out->skip) memset(out->skip, 0, n ? n : 1);
  prepare_free(&p);
  out->seconds = sp_now() - t0;
  return status;
}

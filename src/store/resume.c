/* Completed tasks of earlier runs, read back from per-rank files: see include/sitepack/resume.h. */
#include "sitepack/resume.h"
#include "rankfile.h"
#include "store_internal.h"
#include "sitepack/base.h"

#include <stdlib.h>
#include <string.h>

typedef struct rtask {
  int generation;
  size_t file;      /* index into rpriv.files */
  size_t k;         /* index into that file's tasks */
  sp_task_rec rec;
} rtask;

typedef struct rpriv {
  size_t n_files;
  sp_rankfile *files;  /* rankfile.h; a skipped file is closed */
  size_t n_tasks;
  rtask *tasks;       /* sorted by (generation, file_idx, part) */
  size_t *first_task; /* [entries] first task of each entry (its parts follow in order) */
} rpriv;

static int cmp_rtask(const void *a, const void *b) {
  const rtask *x = a, *y = b;
  if (x->generation != y->generation) return x->generation < y->generation ? -1 : 1;
  if (x->rec.file_idx != y->rec.file_idx) return x->rec.file_idx < y->rec.file_idx ? -1 : 1;
  if (x->rec.part != y->rec.part) return x->rec.part < y->rec.part ? -1 : 1;
  return 0;
}

typedef struct cand {
  sp_resume_entry e;
  size_t first;
} cand;

/* by path, then the highest generation first */
static int cmp_cand(const void *a, const void *b) {
  const cand *x = a, *y = b;
  int d = strcmp(x->e.path, y->e.path);
  if (d) return d;
  return x->e.generation > y->e.generation ? -1 : x->e.generation < y->e.generation;
}

/* Open per-rank file i (rankfile.h) and append its tasks; on any problem but memory the file is
   skipped: returns 1 with why in msg, 0 when read, or SP_E_NOMEM. */
static int open_one(rpriv *p, size_t i, const char *path, int generation, size_t *cap, char *msg, size_t msg_cap) {
  sp_rankfile *f = &p->files[i];
  sp_err e = {0};
  int rc = sp_rankfile_open(f, path, &e);
  if (rc == SP_E_NOMEM) return SP_E_NOMEM;
  if (rc) {
    snprintf(msg, msg_cap, "%s", e.msg);
    return 1;
  }
  if (SP_GROW(p->tasks, *cap, p->n_tasks + f->n_tasks)) return SP_E_NOMEM;
  for (size_t k = 0; k < f->n_tasks; k++) p->tasks[p->n_tasks++] = (rtask){generation, i, k, f->tasks[k]};
  return 0;
}

/* Step 1: open every file and collect its tasks; unreadable files are counted and skipped. */
static int scan_files(rpriv *p, const char *const *paths, const int *generation, sp_resume_set *out, sp_err *err) {
  size_t cap = 0;
  for (size_t i = 0; i < p->n_files; i++) {
    char msg[SP_ERR_MSG_LEN] = "";
    size_t before = p->n_tasks;
    int r = open_one(p, i, paths[i], generation[i], &cap, msg, sizeof msg);
    if (r == SP_E_NOMEM) return sp_err_set(err, SP_E_NOMEM, "out of memory reading %s", paths[i]);
    if (r) {
      p->n_tasks = before;
      sp_rankfile_close(&p->files[i]);
      if (!out->n_unreadable) snprintf(out->first_problem, sizeof out->first_problem, "%s", msg);
      out->n_unreadable++;
    } else {
      out->n_files_read++;
    }
  }
  if (p->n_tasks) qsort(p->tasks, p->n_tasks, sizeof *p->tasks, cmp_rtask);
  return 0;
}

/* Step 2: complete files per (generation, file_idx): parts 0..n_parts-1 once each, part 0 with its
 * structure row, which names the file. Fills cands[*nc] (cands: [p->n_tasks]). */
static void complete_files(const rpriv *p, cand *cands, size_t *nc) {
  *nc = 0;
  for (size_t a = 0; a < p->n_tasks;) {
    size_t b = a;
    while (b < p->n_tasks && p->tasks[b].generation == p->tasks[a].generation &&
           p->tasks[b].rec.file_idx == p->tasks[a].rec.file_idx)
      b++;
    const sp_task_rec *r0 = &p->tasks[a].rec;
    int good = r0->part == 0 && r0->n[SP_T_STRUCTURES] == 1 && (size_t)r0->n_parts == b - a;
    for (size_t k = a; good && k < b; k++)
      good = p->tasks[k].rec.part == (int32_t)(k - a) && p->tasks[k].rec.n_parts == r0->n_parts;
    sp_structure_row st;
    memset(&st, 0, sizeof st);
    sp_err e = {0};
    if (good && sp_rankfile_read_rows(&p->files[p->tasks[a].file], SP_T_STRUCTURES, r0->start[SP_T_STRUCTURES], 1,
                                      &st, &e))
      good = 0;
    if (good) {
      cand *c = &cands[(*nc)++];
      memset(c, 0, sizeof *c);
      memcpy(c->e.path, st.path, SP_PATH_LEN - 1);
      memcpy(c->e.sha256, st.sha256, 64);
      memcpy(c->e.status, st.status, sizeof c->e.status - 1);
      c->e.bytes = st.bytes;
      c->e.generation = p->tasks[a].generation;
      c->e.n_parts = r0->n_parts;
      c->first = a;
    }
    a = b;
  }
}

/* Step 3: one entry per path, the highest generation's, sorted by path. */
static int pick_entries(rpriv *p, cand *cands, size_t nc, sp_resume_set *out, sp_err *err) {
  if (nc) qsort(cands, nc, sizeof *cands, cmp_cand);
  out->entries = nc ? malloc(nc * sizeof *out->entries) : NULL;
  p->first_task = nc ? malloc(nc * sizeof *p->first_task) : NULL;
  if (nc && (!out->entries || !p->first_task)) return sp_err_set(err, SP_E_NOMEM, "out of memory (resume index)");
  size_t u = 0;
  for (size_t i = 0; i < nc; i++) {
    if (u && !strcmp(out->entries[u - 1].path, cands[i].e.path)) continue; /* an older generation's copy */
    out->entries[u] = cands[i].e;
    p->first_task[u] = cands[i].first;
    out->n_tasks += (size_t)cands[i].e.n_parts;
    u++;
  }
  out->n = u;
  return 0;
}

int sp_resume_scan(const char *const *paths, const int *generation, size_t n, sp_resume_set *out, sp_err *err) {
  if (!out || (n && (!paths || !generation))) return sp_err_set(err, SP_E_INVALID, "sp_resume_scan: NULL argument");
  memset(out, 0, sizeof *out);
  rpriv *p = calloc(1, sizeof *p);
  if (!p) return sp_err_set(err, SP_E_NOMEM, "out of memory (resume index)");
  out->priv = p;
  p->files = n ? calloc(n, sizeof *p->files) : NULL;
  if (n && !p->files) return sp_err_set(err, SP_E_NOMEM, "out of memory (resume index)");
  p->n_files = n;
  for (size_t i = 0; i < n; i++) sp_rankfile_init(&p->files[i]);
  int rc = scan_files(p, paths, generation, out, err);
  if (rc) return rc;
  cand *cands = p->n_tasks ? malloc(p->n_tasks * sizeof *cands) : NULL;
  if (p->n_tasks && !cands) return sp_err_set(err, SP_E_NOMEM, "out of memory (resume index)");
  size_t nc = 0;
  complete_files(p, cands, &nc);
  rc = pick_entries(p, cands, nc, out, err);
  free(cands);
  return rc;
}

long sp_resume_find(const sp_resume_set *s, const char *path) {
  if (!s || !path) return -1;
  size_t lo = 0, hi = s->n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    int d = strcmp(s->entries[mid].path, path);
    if (d == 0) return (long)mid;
    if (d < 0) lo = mid + 1;
    else hi = mid;
  }
  return -1;
}

int sp_resume_copy(const sp_resume_set *s, size_t idx, int64_t new_file_idx, int64_t entry_first, sp_rank_writer *w,
                   sp_result *r, sp_err *err) {
  if (!s || !s->priv || !w || !r || idx >= s->n || new_file_idx < 0)
    return sp_err_set(err, SP_E_INVALID, "sp_resume_copy: bad argument");
  const rpriv *p = s->priv;
  for (int32_t part = 0; part < s->entries[idx].n_parts; part++) {
    const rtask *tk = &p->tasks[p->first_task[idx] + (size_t)part];
    int rc = sp_rankfile_read_task(&p->files[tk->file], tk->k, r, err);
    r->file_idx = new_file_idx;
    if (r->has_structure_row) r->st.entry_first = entry_first; /* this run's file list decides it */
    if (!rc) rc = sp_rank_writer_append(w, r, err);
    if (rc) return rc;
  }
  return 0;
}

void sp_resume_free(sp_resume_set *s) {
  if (!s) return;
  rpriv *p = s->priv;
  if (p) {
    for (size_t i = 0; i < p->n_files; i++) sp_rankfile_close(&p->files[i]);
    free(p->files);
    free(p->tasks);
    free(p->first_task);
    free(p);
  }
  free(s->entries);
  memset(s, 0, sizeof *s);
}

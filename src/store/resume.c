/* Completed tasks of earlier runs, read back from per-rank files: see include/sitepack/resume.h. */
#include "sitepack/resume.h"
#include "store_internal.h"
#include "sitepack/base.h"

#include <stdlib.h>
#include <string.h>

typedef struct rfile {
  hid_t file;
  hid_t dset[SP_T_COUNT];
  int64_t extent[SP_T_COUNT];
  const char *path;
} rfile;

typedef struct rtask {
  int generation;
  size_t file;      /* index into rfile */
  sp_task_rec rec;
} rtask;

typedef struct rpriv {
  size_t n_files;
  rfile *files;
  size_t n_tasks;
  rtask *tasks;       /* sorted by (generation, file_idx, part) */
  size_t *first_task; /* [entries] first task of each entry (its parts follow in order) */
  hid_t rowtype[SP_T_COUNT];
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

static void close_file(rfile *f) {
  for (int t = 0; t < SP_T_COUNT; t++)
    if (f->dset[t] >= 0) {
      H5Dclose(f->dset[t]);
      f->dset[t] = -1;
    }
  if (f->file >= 0) H5Fclose(f->file);
  f->file = -1;
}

static int read_rows(const rpriv *p, const rfile *f, int t, int64_t start, size_t n, void *buf) {
  if (n == 0) return 0;
  hsize_t st = (hsize_t)start, cnt = n;
  hid_t fs = H5Dget_space(f->dset[t]);
  hid_t ms = H5Screate_simple(1, &cnt, NULL);
  int ok = fs >= 0 && ms >= 0 && H5Sselect_hyperslab(fs, H5S_SELECT_SET, &st, NULL, &cnt, NULL) >= 0 &&
           H5Dread(f->dset[t], p->rowtype[t], ms, fs, H5P_DEFAULT, buf) >= 0;
  if (ms >= 0) H5Sclose(ms);
  if (fs >= 0) H5Sclose(fs);
  return ok ? 0 : -1;
}

/* Open one per-rank file and append its tasks; on any problem the file is skipped (returns 1
   with why in msg), 0 when read, or SP_E_NOMEM. */
static int open_one(rpriv *p, size_t i, int generation, size_t *cap, char *msg, size_t msg_cap) {
  rfile *f = &p->files[i];
  if (H5Fis_hdf5(f->path) <= 0) {
    snprintf(msg, msg_cap, "%s: not a readable HDF5 file", f->path);
    return 1;
  }
  hid_t fapl = sp_h5_fapl(0);
  f->file = fapl >= 0 ? H5Fopen(f->path, H5F_ACC_RDONLY, fapl) : -1;
  if (fapl >= 0) H5Pclose(fapl);
  if (f->file < 0) {
    snprintf(msg, msg_cap, "%s: HDF5 cannot open it", f->path);
    return 1;
  }
  char fmt[32];
  int64_t ver = 0;
  if (sp_h5_read_attr_str(f->file, "format", fmt, sizeof fmt) < 0 || strcmp(fmt, SP_RANK_FORMAT_NAME) != 0 ||
      sp_h5_read_attr_i64(f->file, "format_version", &ver) < 0 || ver != SP_RANK_FORMAT_VERSION) {
    snprintf(msg, msg_cap, "%s: not a sitepack per-rank file of this version", f->path);
    return 1;
  }
  for (int t = 0; t < SP_T_COUNT; t++) {
    char name[64];
    snprintf(name, sizeof name, "%s/rows", sp_tables[t].name);
    f->dset[t] = H5Dopen2(f->file, name, H5P_DEFAULT);
    hid_t sp = f->dset[t] >= 0 ? H5Dget_space(f->dset[t]) : -1;
    hsize_t d = 0;
    int nd = sp >= 0 ? H5Sget_simple_extent_ndims(sp) : -1;
    if (nd == 1) H5Sget_simple_extent_dims(sp, &d, NULL);
    if (sp >= 0) H5Sclose(sp);
    hid_t ft = f->dset[t] >= 0 ? H5Dget_type(f->dset[t]) : -1;
    int same = ft >= 0 && H5Tget_size(ft) == sp_tables[t].row_size;
    if (ft >= 0) H5Tclose(ft);
    if (nd != 1 || !same) {
      snprintf(msg, msg_cap, "%s: dataset /%s missing or of another type", f->path, name);
      return 1;
    }
    f->extent[t] = (int64_t)d;
  }
  hid_t td = H5Dopen2(f->file, "tasks", H5P_DEFAULT);
  hid_t sp = td >= 0 ? H5Dget_space(td) : -1;
  hsize_t nt = 0;
  int ok = sp >= 0 && H5Sget_simple_extent_ndims(sp) == 1 && H5Sget_simple_extent_dims(sp, &nt, NULL) >= 0;
  if (sp >= 0) H5Sclose(sp);
  sp_task_rec *recs = ok && nt ? malloc(nt * sizeof *recs) : NULL;
  if (ok && nt && !recs) {
    H5Dclose(td);
    return SP_E_NOMEM;
  }
  hid_t tt = ok ? sp_h5_task_type() : -1;
  ok = ok && tt >= 0 && (nt == 0 || H5Dread(td, tt, H5S_ALL, H5S_ALL, H5P_DEFAULT, recs) >= 0);
  if (tt >= 0) H5Tclose(tt);
  if (td >= 0) H5Dclose(td);
  if (!ok) {
    free(recs);
    snprintf(msg, msg_cap, "%s: /tasks cannot be read", f->path);
    return 1;
  }
  for (size_t k = 0; k < nt; k++) {
    const sp_task_rec *r = &recs[k];
    int bad = r->file_idx < 0 || r->n_parts < 1 || r->part < 0 || r->part >= r->n_parts ||
              r->n[SP_T_STRUCTURES] < 0 || r->n[SP_T_STRUCTURES] > 1;
    for (int t = 0; t < SP_T_COUNT && !bad; t++)
      bad = r->n[t] < 0 || r->start[t] < 0 || r->start[t] > f->extent[t] || r->n[t] > f->extent[t] - r->start[t];
    if (bad) {
      free(recs);
      snprintf(msg, msg_cap, "%s: task %zu has an inconsistent index row", f->path, k);
      return 1;
    }
  }
  if (p->n_tasks + nt > *cap) {
    size_t nc = (p->n_tasks + nt) * 2 + 16;
    rtask *q = realloc(p->tasks, nc * sizeof *q);
    if (!q) {
      free(recs);
      return SP_E_NOMEM;
    }
    p->tasks = q;
    *cap = nc;
  }
  for (size_t k = 0; k < nt; k++) p->tasks[p->n_tasks++] = (rtask){generation, i, recs[k]};
  free(recs);
  return 0;
}

int sp_resume_scan(const char *const *paths, const int *generation, size_t n, sp_resume_set *out, sp_err *err) {
  if (!out || (n && (!paths || !generation))) return sp_err_set(err, SP_E_INVALID, "sp_resume_scan: NULL argument");
  memset(out, 0, sizeof *out);
  rpriv *p = calloc(1, sizeof *p);
  if (!p) return sp_err_set(err, SP_E_NOMEM, "out of memory (resume index)");
  out->priv = p;
  for (int t = 0; t < SP_T_COUNT; t++) p->rowtype[t] = -1;
  p->files = n ? calloc(n, sizeof *p->files) : NULL;
  if (n && !p->files) return sp_err_set(err, SP_E_NOMEM, "out of memory (resume index)");
  p->n_files = n;
  for (size_t i = 0; i < n; i++) {
    p->files[i].file = -1;
    p->files[i].path = paths[i];
    for (int t = 0; t < SP_T_COUNT; t++) p->files[i].dset[t] = -1;
  }
  for (int t = 0; t < SP_T_COUNT; t++)
    if ((p->rowtype[t] = sp_h5_row_type(t)) < 0) return sp_err_set(err, SP_E_HDF5, "cannot build row types");
  sp_h5_quiet q;
  sp_h5_quiet_begin(&q);
  size_t cap = 0;
  int rc = 0;
  for (size_t i = 0; i < n && !rc; i++) {
    char msg[SP_ERR_MSG_LEN] = "";
    size_t before = p->n_tasks;
    int r = open_one(p, i, generation[i], &cap, msg, sizeof msg);
    H5Eclear2(H5E_DEFAULT);
    if (r == SP_E_NOMEM) {
      rc = sp_err_set(err, SP_E_NOMEM, "out of memory reading %s", paths[i]);
    } else if (r) {
      p->n_tasks = before;
      close_file(&p->files[i]);
      if (!out->n_unreadable) snprintf(out->first_problem, sizeof out->first_problem, "%s", msg);
      out->n_unreadable++;
    } else {
      out->n_files_read++;
    }
  }
  if (rc) {
    sp_h5_quiet_end(&q);
    return rc;
  }
  if (p->n_tasks) qsort(p->tasks, p->n_tasks, sizeof *p->tasks, cmp_rtask);

  /* complete files per (generation, file_idx): parts 0..n_parts-1 once each, part 0 with its row */
  cand *cands = p->n_tasks ? malloc(p->n_tasks * sizeof *cands) : NULL;
  if (p->n_tasks && !cands) {
    sp_h5_quiet_end(&q);
    return sp_err_set(err, SP_E_NOMEM, "out of memory (resume index)");
  }
  size_t nc = 0;
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
    if (good && read_rows(p, &p->files[p->tasks[a].file], SP_T_STRUCTURES, r0->start[SP_T_STRUCTURES], 1, &st)) {
      H5Eclear2(H5E_DEFAULT);
      good = 0;
    }
    if (good) {
      cand *c = &cands[nc++];
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
  sp_h5_quiet_end(&q);
  if (nc) qsort(cands, nc, sizeof *cands, cmp_cand);
  out->entries = nc ? malloc(nc * sizeof *out->entries) : NULL;
  p->first_task = nc ? malloc(nc * sizeof *p->first_task) : NULL;
  if (nc && (!out->entries || !p->first_task)) {
    free(cands);
    return sp_err_set(err, SP_E_NOMEM, "out of memory (resume index)");
  }
  size_t u = 0;
  for (size_t i = 0; i < nc; i++) {
    if (u && !strcmp(out->entries[u - 1].path, cands[i].e.path)) continue; /* an older generation's copy */
    out->entries[u] = cands[i].e;
    p->first_task[u] = cands[i].first;
    out->n_tasks += (size_t)cands[i].e.n_parts;
    u++;
  }
  out->n = u;
  free(cands);
  return 0;
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

/* Make room for n rows of an array of the result. */
static int reserve(void **arr, size_t *cap, size_t n, size_t elsize) {
  if (n <= *cap) return 0;
  void *q = sp_realloc_array(*arr, n, elsize);
  if (!q) return -1;
  *arr = q;
  *cap = n;
  return 0;
}

int sp_resume_copy(const sp_resume_set *s, size_t idx, int64_t new_file_idx, sp_rank_writer *w, sp_result *r,
                   sp_err *err) {
  if (!s || !s->priv || !w || !r || idx >= s->n || new_file_idx < 0)
    return sp_err_set(err, SP_E_INVALID, "sp_resume_copy: bad argument");
  const rpriv *p = s->priv;
  for (int32_t part = 0; part < s->entries[idx].n_parts; part++) {
    const rtask *tk = &p->tasks[p->first_task[idx] + (size_t)part];
    const rfile *f = &p->files[tk->file];
    const sp_task_rec *rec = &tk->rec;
    sp_result_clear(r);
    r->file_idx = new_file_idx;
    r->part = rec->part;
    r->n_parts = rec->n_parts;
    r->has_structure_row = rec->n[SP_T_STRUCTURES] == 1;
    void **arr[SP_T_COUNT] = {NULL, (void **)&r->ligands, (void **)&r->components, (void **)&r->sites,
                              (void **)&r->residues, (void **)&r->atoms, (void **)&r->interactions};
    size_t *caps[SP_T_COUNT] = {NULL, &r->cap_ligands, &r->cap_components, &r->cap_sites, &r->cap_residues,
                                &r->cap_atoms, &r->cap_interactions};
    size_t *ns[SP_T_COUNT] = {NULL, &r->n_ligands, &r->n_components, &r->n_sites, &r->n_residues, &r->n_atoms,
                              &r->n_interactions};
    sp_h5_quiet q;
    sp_h5_quiet_begin(&q);
    int rc = 0;
    for (int t = 0; t < SP_T_COUNT && !rc; t++) {
      size_t n = (size_t)rec->n[t];
      void *dst = &r->st;
      if (t != SP_T_STRUCTURES) {
        if (reserve(arr[t], caps[t], n, sp_tables[t].row_size)) {
          rc = sp_err_set(err, SP_E_NOMEM, "out of memory copying %zu rows of %s", n, f->path);
          break;
        }
        dst = *arr[t];
        *ns[t] = n;
      }
      if (n) memset(dst, 0, n * sp_tables[t].row_size);
      if (read_rows(p, f, t, rec->start[t], n, dst)) rc = sp_h5_fail(err, "cannot read per-rank file", f->path);
    }
    sp_h5_quiet_end(&q);
    if (!rc) rc = sp_rank_writer_append(w, r, err);
    if (rc) return rc;
  }
  return 0;
}

void sp_resume_free(sp_resume_set *s) {
  if (!s) return;
  rpriv *p = s->priv;
  if (p) {
    sp_h5_quiet q;
    sp_h5_quiet_begin(&q);
    for (size_t i = 0; i < p->n_files; i++) close_file(&p->files[i]);
    for (int t = 0; t < SP_T_COUNT; t++)
      if (p->rowtype[t] >= 0) H5Tclose(p->rowtype[t]);
    H5Eclear2(H5E_DEFAULT);
    sp_h5_quiet_end(&q);
    free(p->files);
    free(p->tasks);
    free(p->first_task);
    free(p);
  }
  free(s->entries);
  memset(s, 0, sizeof *s);
}

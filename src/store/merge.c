/* Merge per-rank files into the final sitepack file (see store.h, docs/format.md). No MPI. */
#include "sitepack/store.h"
#include "rankfile.h"
#include "sitepack/base.h"
#include "store_internal.h"

#include "sitepack/site.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Rows buffered per table before a column slab is written. */
#define SP_MERGE_BUF_BYTES (8u * 1024u * 1024u)

typedef struct task_ref {
  sp_task_rec rec;
  size_t input;                 /* index into inputs */
  int64_t st_global;            /* global structure row of the task's file */
  int64_t off[SP_T_COUNT];      /* global first row of each table */
} task_ref;

typedef struct merge_ctx {
  sp_err *err;
  size_t n_in;
  sp_rankfile *in;              /* the inputs (rankfile.h) */
  size_t n_tasks;
  task_ref *tasks;
  int64_t total[SP_T_COUNT];    /* rows of the final tables (components: after the union) */
  int64_t n_st;                 /* structure rows: input files with results (place_tasks()) */
  hid_t out;
  hid_t gr[SP_T_COUNT];
  hid_t grun;
  hid_t out_dset[SP_T_COUNT][24];
  const char *out_path;
  int any_symmetry;             /* some site has SP_SITE_SYMMETRY: write the optional columns */
} merge_ctx;

static int cmp_task(const void *a, const void *b) {
  const task_ref *x = a, *y = b;
  if (x->rec.file_idx != y->rec.file_idx) return x->rec.file_idx < y->rec.file_idx ? -1 : 1;
  if (x->rec.part != y->rec.part) return x->rec.part < y->rec.part ? -1 : 1;
  return 0;
}

/* ---- reading the inputs ---- */

static int read_rows(merge_ctx *c, size_t input, int t, int64_t start, size_t n, void *buf) {
  return sp_rankfile_read_rows(&c->in[input], t, start, n, buf, c->err);
}

/* Open input i (sp_rankfile_open(): format, version, validated task index) and append its tasks. */
static int open_input(merge_ctx *c, size_t i, const char *path, size_t *cap) {
  sp_rankfile *f = &c->in[i];
  int rc = sp_rankfile_open(f, path, c->err);
  if (rc) return rc;
  if (SP_GROW(c->tasks, *cap, c->n_tasks + f->n_tasks))
    return sp_err_set(c->err, SP_E_NOMEM, "out of memory reading %zu tasks of %s", f->n_tasks, path);
  for (size_t k = 0; k < f->n_tasks; k++) {
    task_ref *tr = &c->tasks[c->n_tasks++];
    memset(tr, 0, sizeof *tr);
    tr->rec = f->tasks[k];
    tr->input = i;
  }
  return 0;
}

/* ---- writing the output ---- */

static int create_table(merge_ctx *c, int t, int64_t n) {
  const sp_table *tb = &sp_tables[t];
  for (size_t k = 0; k < tb->n_cols; k++) {
    if (tb->cols[k].optional) continue; /* create_optional(), once the sites are known */
    hid_t ft = sp_h5_col_filetype(&tb->cols[k]);
    c->out_dset[t][k] = ft >= 0 ? sp_h5_create_final(c->gr[t], tb->cols[k].name, ft, n, tb->cols[k].kind == SP_COL_F32X3) : -1;
    if (ft >= 0) H5Tclose(ft);
    if (c->out_dset[t][k] < 0) return sp_h5_fail(c->err, "cannot create output dataset", tb->cols[k].name);
  }
  return 0;
}

/* The optional columns of table t (residues' symop), when some site has symmetry mates. */
static int create_optional(merge_ctx *c, int t, int64_t n) {
  const sp_table *tb = &sp_tables[t];
  for (size_t k = 0; k < tb->n_cols && c->any_symmetry; k++) {
    if (!tb->cols[k].optional) continue;
    hid_t ft = sp_h5_col_filetype(&tb->cols[k]);
    c->out_dset[t][k] = ft >= 0 ? sp_h5_create_final(c->gr[t], tb->cols[k].name, ft, n, 0) : -1;
    if (ft >= 0) H5Tclose(ft);
    if (c->out_dset[t][k] < 0) return sp_h5_fail(c->err, "cannot create output dataset", tb->cols[k].name);
  }
  return 0;
}

/* Write n buffered rows of table t as column slabs at global row start. */
static int flush_rows(merge_ctx *c, int t, const void *rows, size_t n, int64_t start, void *colbuf) {
  const sp_table *tb = &sp_tables[t];
  for (size_t k = 0; k < tb->n_cols; k++) {
    const sp_col *col = &tb->cols[k];
    if (col->optional && c->out_dset[t][k] < 0) continue; /* not written by this merge */
    sp_col_gather(col, rows, tb->row_size, n, colbuf);
    hid_t mt = sp_h5_col_memtype(col);
    int rc = mt >= 0 ? sp_h5_write_slab(c->out_dset[t][k], mt, start, n, col->kind == SP_COL_F32X3, colbuf) : -1;
    if (mt >= 0) H5Tclose(mt);
    if (rc < 0) return sp_h5_fail(c->err, "cannot write output dataset", col->name);
  }
  return 0;
}

/* Extra int64 columns written alongside a table (structures: file_idx, n_parts; sites: the CSR pointers). */
typedef struct extra_col {
  hid_t dset;
  int64_t *buf;
} extra_col;

/* Turn local indices of rows [0, k) of task tr into global ones. Returns 0 or SP_E_FORMAT. */
static int translate(merge_ctx *c, int t, const task_ref *tr, void *rows, size_t k, extra_col *ex, size_t fill,
                     int64_t *acc) {
  const sp_task_rec *r = &tr->rec;
  const char *path = c->in[tr->input].path;
  for (size_t j = 0; j < k; j++) {
    if (t == SP_T_STRUCTURES) {
      ex[0].buf[fill + j] = r->file_idx;
      ex[1].buf[fill + j] = r->n_parts;
    } else if (t == SP_T_LIGANDS) {
      sp_ligand_row *l = (sp_ligand_row *)rows + j;
      if (l->site_idx < -1 || l->site_idx >= r->n[SP_T_SITES]) goto bad;
      l->structure_idx = tr->st_global;
      if (l->site_idx >= 0) l->site_idx += tr->off[SP_T_SITES];
    } else if (t == SP_T_SITES) {
      sp_site_row *s = (sp_site_row *)rows + j;
      if (s->ligand_idx < 0 || s->ligand_idx >= r->n[SP_T_LIGANDS] || s->n_atoms < 0 || s->n_residues < 0 ||
          s->n_ligand < 0 || s->n_ligand > s->n_atoms || s->n_interactions < 0 || s->n_bonds < 0)
        goto bad;
      s->structure_idx = tr->st_global;
      s->ligand_idx += tr->off[SP_T_LIGANDS];
      if (s->flags & SP_SITE_SYMMETRY) c->any_symmetry = 1;
      ex[0].buf[fill + j] = acc[0];
      ex[1].buf[fill + j] = acc[1];
      ex[2].buf[fill + j] = acc[2];
      ex[3].buf[fill + j] = acc[3];
      acc[0] += s->n_atoms;
      acc[1] += s->n_residues;
      acc[2] += s->n_interactions;
      acc[3] += s->n_bonds;
    } else if (t == SP_T_RESIDUES) {
      sp_residue_row *s = (sp_residue_row *)rows + j;
      if (s->site_idx < 0 || s->site_idx >= r->n[SP_T_SITES]) goto bad;
      s->site_idx += tr->off[SP_T_SITES];
    } else if (t == SP_T_ATOMS) {
      sp_atom_row *a = (sp_atom_row *)rows + j;
      if (a->residue_idx < 0 || a->residue_idx >= r->n[SP_T_RESIDUES]) goto bad;
      a->residue_idx += tr->off[SP_T_RESIDUES];
    } else if (t == SP_T_INTERACTIONS) {
      sp_interaction_row *x = (sp_interaction_row *)rows + j;
      if (x->site_idx < 0 || x->site_idx >= r->n[SP_T_SITES]) goto bad;
      x->site_idx += tr->off[SP_T_SITES];
    } else if (t == SP_T_BONDS) {
      sp_bond_row *x = (sp_bond_row *)rows + j;
      if (x->site_idx < 0 || x->site_idx >= r->n[SP_T_SITES]) goto bad;
      x->site_idx += tr->off[SP_T_SITES];
    }
  }
  return 0;
bad:
  return sp_err_set(c->err, SP_E_FORMAT, "%s: task file_idx %lld part %d: a /%s row has an index out of range",
                    path, (long long)r->file_idx, r->part, sp_tables[t].name);
}

/* Copy table t (not components) task by task through a bounded buffer. */
static int copy_table(merge_ctx *c, int t, extra_col *ex) {
  const sp_table *tb = &sp_tables[t];
  size_t cap = SP_MERGE_BUF_BYTES / tb->row_size;
  if (cap < 1) cap = 1;
  if ((int64_t)cap > c->total[t] && c->total[t] > 0) cap = (size_t)c->total[t];
  size_t maxel = 12;
  for (size_t k = 0; k < tb->n_cols; k++)
    if (sp_col_elsize(&tb->cols[k]) > maxel) maxel = sp_col_elsize(&tb->cols[k]);
  char *rows = malloc(cap * tb->row_size);
  char *colbuf = malloc(cap * maxel);
  int nex = t == SP_T_STRUCTURES ? 2 : t == SP_T_SITES ? 4 : 0;
  int rc = 0;
  for (int e = 0; e < nex; e++) ex[e].buf = malloc((cap + 1) * sizeof(int64_t));
  if (!rows || !colbuf || (nex && (!ex[0].buf || !ex[1].buf)) || (nex > 2 && (!ex[2].buf || !ex[3].buf))) {
    rc = sp_err_set(c->err, SP_E_NOMEM, "out of memory merging /%s", tb->name);
    goto out;
  }
  size_t fill = 0;
  int64_t written = 0, acc[4] = {0, 0, 0, 0};
  for (size_t i = 0; i < c->n_tasks && !rc; i++) {
    const task_ref *tr = &c->tasks[i];
    size_t n = (size_t)tr->rec.n[t], done = 0;
    int64_t a0 = acc[0], r0 = acc[1], x0 = acc[2], b0 = acc[3];
    while (done < n && !rc) {
      size_t k = cap - fill < n - done ? cap - fill : n - done;
      char *dst = rows + fill * tb->row_size;
      memset(dst, 0, k * tb->row_size);
      rc = read_rows(c, tr->input, t, tr->rec.start[t] + (int64_t)done, k, dst);
      if (!rc) rc = translate(c, t, tr, dst, k, ex, fill, acc);
      fill += k;
      done += k;
      if (!rc && fill == cap) {
        rc = flush_rows(c, t, rows, fill, written, colbuf);
        for (int e = 0; e < nex && !rc; e++)
          if (sp_h5_write_slab(ex[e].dset, H5T_NATIVE_INT64, written, fill, 0, ex[e].buf) < 0)
            rc = sp_h5_fail(c->err, "cannot write output dataset", tb->name);
        written += (int64_t)fill;
        fill = 0;
      }
    }
    if (!rc && t == SP_T_SITES &&
        (acc[0] - a0 != tr->rec.n[SP_T_ATOMS] || acc[1] - r0 != tr->rec.n[SP_T_RESIDUES] ||
         acc[2] - x0 != tr->rec.n[SP_T_INTERACTIONS] || acc[3] - b0 != tr->rec.n[SP_T_BONDS]))
      rc = sp_err_set(c->err, SP_E_FORMAT,
                      "%s: task file_idx %lld part %d: sites hold %lld atoms / %lld residues / %lld interactions / "
                      "%lld bonds, the task has %lld / %lld / %lld / %lld",
                      c->in[tr->input].path, (long long)tr->rec.file_idx, tr->rec.part, (long long)(acc[0] - a0),
                      (long long)(acc[1] - r0), (long long)(acc[2] - x0), (long long)(acc[3] - b0),
                      (long long)tr->rec.n[SP_T_ATOMS], (long long)tr->rec.n[SP_T_RESIDUES],
                      (long long)tr->rec.n[SP_T_INTERACTIONS], (long long)tr->rec.n[SP_T_BONDS]);
  }
  if (!rc && fill) {
    rc = flush_rows(c, t, rows, fill, written, colbuf);
    for (int e = 0; e < nex && !rc; e++)
      if (sp_h5_write_slab(ex[e].dset, H5T_NATIVE_INT64, written, fill, 0, ex[e].buf) < 0)
        rc = sp_h5_fail(c->err, "cannot write output dataset", tb->name);
    written += (int64_t)fill;
  }
  if (!rc && t == SP_T_SITES) {
    /* the closing element of the CSR pointers: atom_ptr[N] = atoms, residue_ptr[N] = residues,
     * interaction_ptr[N] = interactions, bond_ptr[N] = bonds */
    for (int e = 0; e < 4 && !rc; e++)
      if (sp_h5_write_slab(ex[e].dset, H5T_NATIVE_INT64, written, 1, 0, &acc[e]) < 0)
        rc = sp_h5_fail(c->err, "cannot write output dataset", "sites CSR pointer");
  }
out:
  for (int e = 0; e < nex; e++) {
    free(ex[e].buf);
    ex[e].buf = NULL;
  }
  free(rows);
  free(colbuf);
  return rc;
}

typedef struct comp_ref {
  sp_component_row row;
  size_t seq;   /* merge order */
} comp_ref;

static int cmp_comp(const void *a, const void *b) {
  const comp_ref *x = a, *y = b;
  int d = strncmp(x->row.comp_id, y->row.comp_id, SP_ID_LEN);
  if (d) return d;
  return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Read all component rows, keep the first row of each comp_id in merge order, sorted by comp_id. */
static int gather_components(merge_ctx *c, comp_ref **out, size_t *n_out) {
  size_t n = 0;
  for (size_t i = 0; i < c->n_tasks; i++) n += (size_t)c->tasks[i].rec.n[SP_T_COMPONENTS];
  comp_ref *cr = n ? calloc(n, sizeof *cr) : NULL;
  sp_component_row *tmp = NULL;
  if (n && !cr) return sp_err_set(c->err, SP_E_NOMEM, "out of memory reading %zu component rows", n);
  size_t k = 0, tmpcap = 0;
  for (size_t i = 0; i < c->n_tasks; i++) {
    const task_ref *tr = &c->tasks[i];
    size_t m = (size_t)tr->rec.n[SP_T_COMPONENTS];
    if (!m) continue;
    if (m > tmpcap) {
      sp_component_row *p = realloc(tmp, m * sizeof *p);
      if (!p) {
        free(tmp);
        free(cr);
        return sp_err_set(c->err, SP_E_NOMEM, "out of memory reading component rows");
      }
      tmp = p;
      tmpcap = m;
    }
    memset(tmp, 0, m * sizeof *tmp);
    int rc = read_rows(c, tr->input, SP_T_COMPONENTS, tr->rec.start[SP_T_COMPONENTS], m, tmp);
    if (rc) {
      free(tmp);
      free(cr);
      return rc;
    }
    for (size_t j = 0; j < m; j++, k++) {
      cr[k].row = tmp[j];
      cr[k].seq = k;
    }
  }
  free(tmp);
  if (n) qsort(cr, n, sizeof *cr, cmp_comp);
  size_t u = 0;
  for (size_t i = 0; i < n; i++)
    if (u == 0 || strncmp(cr[u - 1].row.comp_id, cr[i].row.comp_id, SP_ID_LEN) != 0) cr[u++] = cr[i];
  *out = cr;
  *n_out = u;
  return 0;
}

static void now_iso(char *buf, size_t cap) {
  time_t t = time(NULL);
  struct tm tmv;
  if (gmtime_r(&t, &tmv)) strftime(buf, cap, "%Y-%m-%dT%H:%M:%SZ", &tmv);
  else snprintf(buf, cap, "unknown");
}

static int write_run(merge_ctx *c, const sp_merge_info *info) {
  static const sp_merge_info empty;
  if (!info) info = &empty;
  char created[40];
  if (info->created) snprintf(created, sizeof created, "%s", info->created);
  else now_iso(created, sizeof created);
  hid_t g = c->grun;
  if (sp_h5_attr_str(g, "format", SP_FORMAT_NAME) < 0 || sp_h5_attr_i64(g, "format_version", SP_FORMAT_VERSION) < 0 ||
      sp_h5_attr_str(g, "tool_version", info->tool_version) < 0 || sp_h5_attr_str(g, "git_sha", info->git_sha) < 0 ||
      sp_h5_attr_str(g, "job_json", info->job_json) < 0 || sp_h5_attr_str(g, "ccd_path", info->ccd_path) < 0 ||
      sp_h5_attr_str(g, "ccd_sha256", info->ccd_sha256) < 0 || sp_h5_attr_i64(g, "ccd_blocks", info->ccd_blocks) < 0 ||
      sp_h5_attr_i64(g, "n_ranks", info->n_ranks) < 0 ||
      sp_h5_attr_str(g, "created", created) < 0 || sp_h5_attr_f64(g, "wall_seconds", info->wall_seconds) < 0 ||
      sp_h5_attr_i64(g, "n_tasks", (int64_t)c->n_tasks) < 0)
    return sp_h5_fail(c->err, "cannot write /run attributes", c->out_path);
  return 0;
}

/* Step 1: open every input (rankfile.h) and collect its tasks, ordered by (file_idx, part). */
static int open_inputs(merge_ctx *c, const char *const *inputs) {
  size_t cap = 0;
  for (size_t i = 0; i < c->n_in; i++) {
    if (!inputs[i]) return sp_err_set(c->err, SP_E_INVALID, "sp_merge: input %zu is NULL", i);
    int rc = open_input(c, i, inputs[i], &cap);
    if (rc) return rc;
  }
  if (c->n_tasks) qsort(c->tasks, c->n_tasks, sizeof *c->tasks, cmp_task);
  return 0;
}

/* Step 2: group tasks by file (exactly one structure row per file, no (file_idx, part) twice) and give
 * every task its global structure row and its first global row of each table, in merge order. */
static int place_tasks(merge_ctx *c) {
  c->n_st = 0;
  for (size_t a = 0; a < c->n_tasks;) {
    size_t b = a;
    int64_t has = 0;
    while (b < c->n_tasks && c->tasks[b].rec.file_idx == c->tasks[a].rec.file_idx) {
      if (b > a && c->tasks[b].rec.part == c->tasks[b - 1].rec.part)
        return sp_err_set(c->err, SP_E_INVALID, "task file_idx %lld part %d appears twice (%s and %s)",
                          (long long)c->tasks[b].rec.file_idx, c->tasks[b].rec.part,
                          c->in[c->tasks[b - 1].input].path, c->in[c->tasks[b].input].path);
      has += c->tasks[b].rec.n[SP_T_STRUCTURES];
      b++;
    }
    if (has != 1)
      return sp_err_set(c->err, SP_E_INVALID, "file_idx %lld has %lld structure rows over its %zu task(s), expected 1",
                        (long long)c->tasks[a].rec.file_idx, (long long)has, b - a);
    for (size_t k = a; k < b; k++) c->tasks[k].st_global = c->n_st;
    c->n_st++;
    a = b;
  }
  for (size_t i = 0; i < c->n_tasks; i++)
    for (int t = 0; t < SP_T_COUNT; t++) {
      c->tasks[i].off[t] = c->total[t];
      c->total[t] += c->tasks[i].rec.n[t];
    }
  return 0;
}

/* Step 3: the output file (no time stamps), a group per table and /run, and every table's datasets
 * except the optional columns (create_optional(), once the sites are copied). */
static int create_output(merge_ctx *c) {
  int rc = 0;
  hid_t fapl = sp_h5_fapl(1);
  hid_t fcpl = H5Pcreate(H5P_FILE_CREATE);
  if (fapl >= 0 && fcpl >= 0 && H5Pset_obj_track_times(fcpl, 0) >= 0)
    c->out = H5Fcreate(c->out_path, H5F_ACC_TRUNC, fcpl, fapl);
  if (c->out < 0) rc = sp_h5_fail(c->err, "cannot create output file", c->out_path);
  if (fapl >= 0) H5Pclose(fapl);
  if (fcpl >= 0) H5Pclose(fcpl);
  if (rc) return rc;
  hid_t gcpl = H5Pcreate(H5P_GROUP_CREATE);
  if (gcpl >= 0) H5Pset_obj_track_times(gcpl, 0);
  for (int t = 0; t < SP_T_COUNT && gcpl >= 0; t++)
    if ((c->gr[t] = H5Gcreate2(c->out, sp_tables[t].name, H5P_DEFAULT, gcpl, H5P_DEFAULT)) < 0) break;
  c->grun = gcpl >= 0 ? H5Gcreate2(c->out, "run", H5P_DEFAULT, gcpl, H5P_DEFAULT) : -1;
  if (gcpl >= 0) H5Pclose(gcpl);
  int gbad = c->grun < 0;
  for (int t = 0; t < SP_T_COUNT; t++)
    if (c->gr[t] < 0) gbad = 1;
  if (gbad) return sp_h5_fail(c->err, "cannot create output groups", c->out_path);
  for (int t = 0; t < SP_T_COUNT; t++)
    if ((rc = create_table(c, t, c->total[t]))) return rc;
  return 0;
}

/* The int64 pointer datasets beside the tables: /structures file_idx, n_parts (copied with the rows),
 * ligand_ptr, site_ptr (S+1); /sites atom_ptr, residue_ptr, interaction_ptr, bond_ptr (N+1, copied with the rows). */
typedef struct merge_ptrs {
  extra_col st_ex[2];    /* structures: file_idx, n_parts */
  extra_col site_ex[4];  /* sites: atom_ptr, residue_ptr, interaction_ptr, bond_ptr */
  hid_t st_ptr[2];       /* structures: ligand_ptr, site_ptr */
} merge_ptrs;

/* Step 4: create them. */
static int create_pointers(merge_ctx *c, merge_ptrs *p) {
  const int64_t n_st = c->n_st, n_sites = c->total[SP_T_SITES];
  p->st_ex[0].dset = sp_h5_create_final(c->gr[SP_T_STRUCTURES], "file_idx", H5T_STD_I64LE, n_st, 0);
  p->st_ex[1].dset = sp_h5_create_final(c->gr[SP_T_STRUCTURES], "n_parts", H5T_STD_I32LE, n_st, 0);
  p->st_ptr[0] = sp_h5_create_final(c->gr[SP_T_STRUCTURES], "ligand_ptr", H5T_STD_I64LE, n_st + 1, 0);
  p->st_ptr[1] = sp_h5_create_final(c->gr[SP_T_STRUCTURES], "site_ptr", H5T_STD_I64LE, n_st + 1, 0);
  p->site_ex[0].dset = sp_h5_create_final(c->gr[SP_T_SITES], "atom_ptr", H5T_STD_I64LE, n_sites + 1, 0);
  p->site_ex[1].dset = sp_h5_create_final(c->gr[SP_T_SITES], "residue_ptr", H5T_STD_I64LE, n_sites + 1, 0);
  p->site_ex[2].dset = sp_h5_create_final(c->gr[SP_T_SITES], "interaction_ptr", H5T_STD_I64LE, n_sites + 1, 0);
  p->site_ex[3].dset = sp_h5_create_final(c->gr[SP_T_SITES], "bond_ptr", H5T_STD_I64LE, n_sites + 1, 0);
  int bad = p->st_ex[0].dset < 0 || p->st_ex[1].dset < 0 || p->st_ptr[0] < 0 || p->st_ptr[1] < 0 ||
            p->site_ex[0].dset < 0 || p->site_ex[1].dset < 0 || p->site_ex[2].dset < 0 || p->site_ex[3].dset < 0;
  return bad ? sp_h5_fail(c->err, "cannot create output pointer datasets", c->out_path) : 0;
}

static void close_pointers(merge_ptrs *p) {
  for (int e = 2; e < 4; e++)
    if (p->site_ex[e].dset >= 0) H5Dclose(p->site_ex[e].dset);
  for (int e = 0; e < 2; e++) {
    if (p->st_ex[e].dset >= 0) H5Dclose(p->st_ex[e].dset);
    if (p->site_ex[e].dset >= 0) H5Dclose(p->site_ex[e].dset);
    if (p->st_ptr[e] >= 0) H5Dclose(p->st_ptr[e]);
  }
}

/* Step 5: /components, the union of gather_components(): small, written at once. */
static int write_components(merge_ctx *c, const comp_ref *comps, size_t n_comps) {
  if (!n_comps) return 0;
  int rc = 0;
  sp_component_row *rows = malloc(n_comps * sizeof *rows);
  size_t maxel = 0; /* the widest column (the InChI) */
  for (size_t k = 0; k < sp_tables[SP_T_COMPONENTS].n_cols; k++)
    if (sp_col_elsize(&sp_tables[SP_T_COMPONENTS].cols[k]) > maxel) maxel = sp_col_elsize(&sp_tables[SP_T_COMPONENTS].cols[k]);
  char *colbuf = malloc(n_comps * maxel);
  if (!rows || !colbuf) rc = sp_err_set(c->err, SP_E_NOMEM, "out of memory writing components");
  for (size_t i = 0; !rc && i < n_comps; i++) rows[i] = comps[i].row;
  if (!rc) rc = flush_rows(c, SP_T_COMPONENTS, rows, n_comps, 0, colbuf);
  free(rows);
  free(colbuf);
  return rc;
}

/* Step 6: structures' ligand_ptr / site_ptr (S+1): first ligand / site of each file's first task. */
static int write_structure_ptrs(merge_ctx *c, const merge_ptrs *p) {
  const int64_t n_st = c->n_st;
  int rc = 0;
  int64_t *lp = malloc((size_t)(n_st + 1) * sizeof *lp), *sp_ = malloc((size_t)(n_st + 1) * sizeof *sp_);
  if (!lp || !sp_) rc = sp_err_set(c->err, SP_E_NOMEM, "out of memory writing structure pointers");
  int64_t s = 0;
  for (size_t i = 0; !rc && i < c->n_tasks; i++)
    if (i == 0 || c->tasks[i].rec.file_idx != c->tasks[i - 1].rec.file_idx) {
      lp[s] = c->tasks[i].off[SP_T_LIGANDS];
      sp_[s] = c->tasks[i].off[SP_T_SITES];
      s++;
    }
  if (!rc) {
    lp[n_st] = c->total[SP_T_LIGANDS];
    sp_[n_st] = c->total[SP_T_SITES];
    if (sp_h5_write_slab(p->st_ptr[0], H5T_NATIVE_INT64, 0, (size_t)n_st + 1, 0, lp) < 0 ||
        sp_h5_write_slab(p->st_ptr[1], H5T_NATIVE_INT64, 0, (size_t)n_st + 1, 0, sp_) < 0)
      rc = sp_h5_fail(c->err, "cannot write structure pointers", c->out_path);
  }
  free(lp);
  free(sp_);
  return rc;
}

/* Step 7: the large tables, task by task in merge order (sites before residues: they decide the
 * optional columns). */
static int copy_tables(merge_ctx *c, merge_ptrs *p) {
  int rc = copy_table(c, SP_T_STRUCTURES, p->st_ex);
  if (!rc) rc = copy_table(c, SP_T_LIGANDS, NULL);
  if (!rc) rc = copy_table(c, SP_T_SITES, p->site_ex);
  if (!rc) rc = create_optional(c, SP_T_RESIDUES, c->total[SP_T_RESIDUES]);
  if (!rc) rc = copy_table(c, SP_T_RESIDUES, NULL);
  if (!rc) rc = copy_table(c, SP_T_ATOMS, NULL);
  if (!rc) rc = copy_table(c, SP_T_INTERACTIONS, NULL);
  if (!rc) rc = copy_table(c, SP_T_BONDS, NULL);
  return rc;
}

static int merge_body(merge_ctx *c, const char *const *inputs, const sp_merge_info *info) {
  int rc = open_inputs(c, inputs);
  if (!rc) rc = place_tasks(c);
  if (rc) return rc;
  comp_ref *comps = NULL;
  size_t n_comps = 0;
  if ((rc = gather_components(c, &comps, &n_comps))) return rc;
  c->total[SP_T_COMPONENTS] = (int64_t)n_comps;
  rc = create_output(c);
  merge_ptrs p = {{{-1, NULL}, {-1, NULL}}, {{-1, NULL}, {-1, NULL}, {-1, NULL}, {-1, NULL}}, {-1, -1}};
  if (!rc) rc = create_pointers(c, &p);
  if (!rc) rc = write_components(c, comps, n_comps);
  free(comps);
  if (!rc) rc = write_structure_ptrs(c, &p);
  if (!rc) rc = copy_tables(c, &p);
  close_pointers(&p);
  if (!rc) rc = write_run(c, info);
  /* the root format attributes last: a file cut short is not taken for a sitepack file */
  if (!rc && (sp_h5_attr_str(c->out, "format", SP_FORMAT_NAME) < 0 ||
              sp_h5_attr_i64(c->out, "format_version", SP_FORMAT_VERSION) < 0))
    rc = sp_h5_fail(c->err, "cannot write root attributes", c->out_path);
  return rc;
}

int sp_merge(const char *out_path, const char *const *inputs, size_t n_inputs, const sp_merge_info *info,
             sp_err *err) {
  if (!out_path || (n_inputs && !inputs)) return sp_err_set(err, SP_E_INVALID, "sp_merge: NULL argument");
  merge_ctx c;
  memset(&c, 0, sizeof c);
  c.err = err;
  c.out_path = out_path;
  c.n_in = n_inputs;
  c.out = c.grun = -1;
  for (int t = 0; t < SP_T_COUNT; t++) {
    c.gr[t] = -1;
    for (int k = 0; k < 24; k++) c.out_dset[t][k] = -1;
  }
  c.in = n_inputs ? calloc(n_inputs, sizeof *c.in) : NULL;
  if (n_inputs && !c.in) return sp_err_set(err, SP_E_NOMEM, "out of memory opening %zu inputs", n_inputs);
  for (size_t i = 0; i < n_inputs; i++) sp_rankfile_init(&c.in[i]);
  sp_h5_quiet q;
  sp_h5_quiet_begin(&q);
  int rc = merge_body(&c, inputs, info);
  int created = c.out >= 0;
  for (int t = 0; t < SP_T_COUNT; t++) {
    for (int k = 0; k < 24; k++)
      if (c.out_dset[t][k] >= 0) H5Dclose(c.out_dset[t][k]);
    if (c.gr[t] >= 0) H5Gclose(c.gr[t]);
  }
  if (c.grun >= 0) H5Gclose(c.grun);
  if (c.out >= 0 && H5Fclose(c.out) < 0 && !rc) rc = sp_h5_fail(err, "cannot close output file", out_path);
  for (size_t i = 0; i < n_inputs; i++) sp_rankfile_close(&c.in[i]);
  if (rc && created) unlink(out_path);
  free(c.in);
  free(c.tasks);
  H5Eclear2(H5E_DEFAULT);
  sp_h5_quiet_end(&q);
  return rc;
}

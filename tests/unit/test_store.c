/* Store tests: per-rank writer -> merge -> read back / dump (store.h).
 *
 * Synthetic results (several files, a file split in 3 parts with an empty part, a failed
 * file with only a structure row, a file without ligands, a 5-character comp_id, a site of
 * 6,000 atoms) are written through 1, 2 and 3 per-rank files with different task assignments
 * and orders, merged, and the merged files are compared (all datasets byte-identical apart
 * from the timing fields) and checked against values computed from the generator.
 *
 * Usage: test_store OUTDIR   (leaves merged_p1.h5, merged_p2.h5, merged_p3.h5, merged_empty.h5
 * in OUTDIR for tests/peer/test_store_h5.py). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <hdf5.h>

#include "sitepack/result.h"
#include "sitepack/store.h"
#include "sitepack/survey.h"
#include "sitepack/site.h"

#include "sp_test.h"

/* ---------- the synthetic tasks ---------- */

typedef struct lig_spec {
  const char *comp, *chain;
  int seq;                 /* SP_SEQ_NONE allowed */
  const char *icode;
  int n_lig_atoms;         /* ligand atoms of its site */
  int n_polres;            /* polymer residues of its site; -1: no site */
  int atoms_per_res;
} lig_spec;

typedef struct task_spec {
  int file_idx, part, n_parts, has_st;
  const char *status;      /* structure status */
  int n_lig;
  lig_spec ligs[3];
} task_spec;

#define NOSITE -1
static const task_spec TASKS[] = {
    {0, 0, 1, 1, "ok", 3, {{"ATP", "A", 501, "", 31, 4, 3}, {"MG", "A", 502, "", 1, 2, 3}, {"SO4", "B", 601, "", 5, NOSITE, 0}}},
    {1, 0, 1, 1, "syntax_error", 0, {{0}}},
    {2, 0, 3, 1, "ok", 1, {{"NAG", "C", 1, "", 14, 3, 3}}},
    {2, 1, 3, 0, "ok", 2, {{"NAG", "C", 2, "", 14, 2, 4}, {"GOL", "C", 3, "", 6, NOSITE, 0}}},
    {2, 2, 3, 0, "ok", 0, {{0}}},
    {3, 0, 1, 1, "ok", 0, {{0}}},
    {4, 0, 1, 1, "ok", 1, {{"A1BCD", "D", SP_SEQ_NONE, "A", 8, 3, 2}}},
    {5, 0, 1, 1, "ok", 1, {{"ATP", "E", 900, "", 31, 100, 60}}},
};
#define N_TASKS (sizeof TASKS / sizeof TASKS[0])
#define N_FILES 6

static const char *RES_COMPS[] = {"ALA", "SER", "HIS", "HOH"};

static void fill_component(sp_component_row *c, const char *comp) {
  snprintf(c->comp_id, sizeof c->comp_id, "%s", comp);
  c->in_ccd = strcmp(comp, "A1BCD") != 0;
  snprintf(c->molecule_key, sizeof c->molecule_key, "wl1:%s-key", comp);
  snprintf(c->key_source, sizeof c->key_source, "%s", c->in_ccd ? "ccd" : "file");
  snprintf(c->formula, sizeof c->formula, "C%zu H%zu", strlen(comp), 2 * strlen(comp));
  snprintf(c->name, sizeof c->name, "name of %s", comp);
  snprintf(c->type, sizeof c->type, "NON-POLYMER");
  c->n_heavy_atoms = (int32_t)strlen(comp) * 3;
}

/* Build the result of task ts. timing: a value that differs per assignment (timing fields). */
static void make_result(const task_spec *ts, double timing, sp_result *r) {
  sp_result_clear(r);
  r->file_idx = ts->file_idx;
  r->part = ts->part;
  r->n_parts = ts->n_parts;
  r->has_structure_row = ts->has_st;
  sp_structure_row *st = &r->st;
  snprintf(st->path, sizeof st->path, "sub/f%d.cif", ts->file_idx);
  for (int i = 0; i < 64; i++) st->sha256[i] = "0123456789abcdef"[(ts->file_idx * 7 + i) % 16];
  snprintf(st->format, sizeof st->format, "%s", "mmcif");
  snprintf(st->status, sizeof st->status, "%s", ts->status);
  if (strcmp(ts->status, "ok") != 0) snprintf(st->error, sizeof st->error, "line 3: unexpected\ttoken");
  st->gzip = (uint8_t)(ts->file_idx % 2);
  st->bytes = 1000 + ts->file_idx;
  st->text_bytes = 3000 + ts->file_idx;
  st->n_atoms = 100 * ts->file_idx;
  st->n_atoms_model1 = 90 * ts->file_idx;
  st->n_models = 1;
  st->n_ligands = ts->file_idx == 2 ? 3 : ts->n_lig;
  st->n_warnings = ts->file_idx % 3;
  /* format version 4: the texts of those warnings (two messages at most), as the worker fills them */
  static const char msgs[] = "line 7: occupancy 'x' is not readable\0a warning with a\ttab\0";
  sp_warnings_fit(st->warnings, sizeof st->warnings, msgs, (size_t)st->n_warnings);
  snprintf(st->entry_id, sizeof st->entry_id, "%dABC", ts->file_idx + 1);
  snprintf(st->method, sizeof st->method, "X-RAY DIFFRACTION");
  st->resolution = ts->file_idx == 3 ? NAN : 1.5f + 0.25f * (float)ts->file_idx;
  st->t_read = timing;
  st->t_parse = timing * 2;
  st->t_survey = timing * 3;
  st->t_site = timing * 4;

  size_t site = 0;
  for (int li = 0; li < ts->n_lig; li++) {
    const lig_spec *ls = &ts->ligs[li];
    sp_ligand_row *l = sp_result_add_ligand(r);
    if (!l) abort();
    l->structure_idx = 0;
    l->model_num = 1;
    snprintf(l->comp_id, sizeof l->comp_id, "%s", ls->comp);
    snprintf(l->label_asym_id, sizeof l->label_asym_id, "%c%s", 'a' + li, ls->chain);
    snprintf(l->auth_asym_id, sizeof l->auth_asym_id, "%s", ls->chain);
    l->auth_seq_id = ls->seq;
    l->label_seq_id = SP_SEQ_NONE;
    snprintf(l->ins_code, sizeof l->ins_code, "%s", ls->icode);
    snprintf(l->cls, sizeof l->cls, "%s", strcmp(ls->comp, "MG") == 0 ? "ion" : "small_molecule");
    l->flags = (uint32_t)(ts->file_idx + li) & 0x7fu;
    l->n_residues = 1;
    l->n_atoms = ls->n_lig_atoms;
    l->n_heavy_atoms = ls->n_lig_atoms;
    l->n_ccd_heavy_atoms = -1;
    snprintf(l->molecule_key, sizeof l->molecule_key, "wl1:%s-key", ls->comp);
    snprintf(l->key_source, sizeof l->key_source, "ccd");
    snprintf(l->residues, sizeof l->residues, "%s/%s/%d%s", ls->comp, ls->chain, ls->seq, ls->icode);
    l->site_idx = -1;
    /* one component row per ligand (duplicates on purpose) */
    fill_component(sp_result_add_component(r), ls->comp);
    if (ls->n_polres < 0) continue;
    l->site_idx = (int64_t)site;
    size_t res0 = r->n_residues, atom0 = r->n_atoms;
    for (int k = 0; k <= ls->n_polres; k++) {
      sp_residue_row *rr = sp_result_add_residue(r);
      if (!rr) abort();
      rr->site_idx = (int64_t)site;
      int is_lig = k == 0;
      const char *comp = is_lig ? ls->comp : RES_COMPS[(k - 1) % 4];
      snprintf(rr->comp_id, sizeof rr->comp_id, "%s", comp);
      snprintf(rr->auth_asym_id, sizeof rr->auth_asym_id, "%s", is_lig ? ls->chain : "P");
      snprintf(rr->label_asym_id, sizeof rr->label_asym_id, "%s", is_lig ? ls->chain : "Q");
      rr->auth_seq_id = is_lig ? ls->seq : (ts->file_idx == 4 && k == 2 ? SP_SEQ_NONE : 10 + k);
      rr->label_seq_id = is_lig ? SP_SEQ_NONE : k;
      if (ts->file_idx == 4 && k == 1) snprintf(rr->ins_code, sizeof rr->ins_code, "B");
      rr->kind = is_lig ? SP_RES_KIND_LIGAND : (k % 4 == 0 ? SP_RES_KIND_WATER : SP_RES_KIND_POLYMER);
      rr->min_distance = is_lig ? 0.0f : 3.5f + 0.25f * (float)k;
      int na = is_lig ? ls->n_lig_atoms : ls->atoms_per_res;
      for (int a = 0; a < na; a++) {
        sp_atom_row *at = sp_result_add_atom(r);
        if (!at) abort();
        /* position encodes (file, part*100+site, local atom): merged atoms sort lexicographically */
        at->position[0] = (float)ts->file_idx;
        at->position[1] = (float)(ts->part * 100 + (int)site);
        at->position[2] = (float)(r->n_atoms - 1);
        at->occupancy = a % 2 ? 1.0f : 0.5f;
        at->b_iso = 20.0f + (float)a;
        at->residue_idx = (int64_t)(r->n_residues - 1);
        snprintf(at->atom_name, sizeof at->atom_name, "%s%d", is_lig ? "C" : "N", a % 1000);
        at->element = (uint8_t)(is_lig ? 6 : 7);
        at->charge = (int8_t)(a % 3 - 1);
        at->formal_charge = at->charge; /* C and N atoms, no bond: the charge rules (valence.h) change nothing */
        at->altloc = a == 1 ? 'A' : '\0';
        at->flags = (uint16_t)(is_lig ? SP_SITE_ATOM_LIGAND : SP_SITE_ATOM_POLYMER);
      }
    }
    sp_site_row *s = sp_result_add_site(r);
    if (!s) abort();
    s->structure_idx = 0;
    s->ligand_idx = li;
    s->n_ligand = ls->n_lig_atoms;
    s->n_atoms = (int32_t)(r->n_atoms - atom0);
    s->n_residues = (int32_t)(r->n_residues - res0);
    s->flags = ts->file_idx == 5 ? 0 : SP_SITE_NO_HEAVY * (uint32_t)(li == 1);
    s->center[0] = (float)ts->file_idx;
    s->center[1] = (float)li;
    s->center[2] = -1.5f;
    s->cutoff = 6.0f;
    /* interactions: n_polres % 4 rows; distance encodes (file, local site, row), atoms are block offsets */
    int n_ix = ls->n_polres % 4;
    for (int j = 0; j < n_ix && s->n_atoms > s->n_ligand; j++) {
      sp_interaction_row *x = sp_result_add_interaction(r);
      if (!x) abort();
      s = &r->sites[r->n_sites - 1];
      x->site_idx = (int64_t)site;
      x->type = (uint8_t)(1 + j);
      x->flags = (uint8_t)j;
      x->lig_atom = j % s->n_ligand;
      x->site_atom = s->n_atoms - 1 - j;
      x->water_atom = j == 2 ? s->n_ligand : -1;
      x->distance = (float)(ts->file_idx * 100 + ts->part * 10 + (int)site) + 0.25f * (float)j;
      x->angle = j == 1 ? 120.0f : NAN;
      x->angle2 = NAN;
      x->distance2 = NAN;
      x->offset = NAN;
      s->n_interactions++;
    }
    site++;
    r->st.n_sites += 1;
  }
  if (ts->file_idx == 2) r->st.n_sites = 2;
}

/* ---------- writing and merging ---------- */

static char OUTDIR[1024];

static void pathf(char *buf, size_t cap, const char *fmt, ...) {
  char name[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(name, sizeof name, fmt, ap);
  va_end(ap);
  snprintf(buf, cap, "%s/%s", OUTDIR, name);
}

/* Write the tasks through n_ranks files: task i (in order[]) goes to rank assign[i]. */
static int write_ranks(const char *tag, int n_ranks, const int *order, const int *assign, double timing,
                       char paths[][1400]) {
  sp_rank_writer *w[4] = {0};
  sp_err e = {0};
  for (int k = 0; k < n_ranks; k++) {
    pathf(paths[k], 1400, "%s_rank%d.h5", tag, k);
    w[k] = sp_rank_writer_open(paths[k], &e);
    CHECK(w[k] != NULL, "open %s: %s", paths[k], e.msg);
    if (!w[k]) return -1;
  }
  sp_result r;
  sp_result_init(&r);
  for (size_t i = 0; i < N_TASKS; i++) {
    const task_spec *ts = &TASKS[order[i]];
    make_result(ts, timing + ts->file_idx, &r);
    int rc = sp_rank_writer_append(w[assign[i]], &r, &e);
    CHECK(rc == 0, "append: %s", e.msg);
  }
  sp_result_free(&r);
  size_t total = 0;
  for (int k = 0; k < n_ranks; k++) {
    total += sp_rank_writer_count(w[k]);
    CHECK(sp_rank_writer_close(w[k], &e) == 0, "close: %s", e.msg);
  }
  CHECK(total == N_TASKS, "%zu tasks written", total);
  return 0;
}

static int merge_paths(const char *out, char paths[][1400], int n, int n_ranks, sp_err *e) {
  const char *in[4];
  for (int k = 0; k < n; k++) in[k] = paths[k];
  sp_merge_info info = {"0.1.0", "abc123", "{\"input\": \"sub\"}", "ccd/components.cif", "feedbeef", 0, NULL, n_ranks,
                        1.25 * n_ranks};
  return sp_merge(out, in, (size_t)n, &info, e);
}

/* ---------- reading back ---------- */

typedef struct dsblob {
  char name[128];
  size_t bytes;
  unsigned char *data;
} dsblob;

typedef struct visit_ctx {
  dsblob *b;
  size_t n, cap;
} visit_ctx;

static herr_t visit_cb(hid_t obj, const char *name, const H5O_info_t *info, void *data) {
  visit_ctx *v = data;
  if (info->type != H5O_TYPE_DATASET) return 0;
  if (v->n == v->cap) {
    v->cap = v->cap ? v->cap * 2 : 64;
    v->b = realloc(v->b, v->cap * sizeof *v->b);
    if (!v->b) abort();
  }
  dsblob *b = &v->b[v->n++];
  snprintf(b->name, sizeof b->name, "%s", name);
  hid_t d = H5Dopen2(obj, name, H5P_DEFAULT);
  hid_t t = H5Dget_type(d);
  hid_t s = H5Dget_space(d);
  hssize_t np = H5Sget_simple_extent_npoints(s);
  b->bytes = (size_t)np * H5Tget_size(t);
  b->data = malloc(b->bytes + 1);
  if (!b->data) abort();
  if (np > 0) H5Dread(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, b->data);
  H5Sclose(s);
  H5Tclose(t);
  H5Dclose(d);
  return 0;
}

static visit_ctx read_all(const char *path) {
  visit_ctx v = {0};
  hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  CHECK(f >= 0, "open %s", path);
  if (f < 0) return v;
  H5Ovisit(f, H5_INDEX_NAME, H5_ITER_INC, visit_cb, &v);
  H5Fclose(f);
  return v;
}

static void free_all(visit_ctx *v) {
  for (size_t i = 0; i < v->n; i++) free(v->b[i].data);
  free(v->b);
}

static int is_timing(const char *name) { return strncmp(name, "structures/t_", 13) == 0; }

static void compare_files(const char *a, const char *b) {
  visit_ctx x = read_all(a), y = read_all(b);
  CHECK(x.n == y.n && x.n > 40, "%s has %zu datasets, %s has %zu", a, x.n, b, y.n);
  size_t n_timing = 0;
  for (size_t i = 0; i < x.n && i < y.n; i++) {
    CHECK(strcmp(x.b[i].name, y.b[i].name) == 0, "dataset %s vs %s", x.b[i].name, y.b[i].name);
    CHECK(x.b[i].bytes == y.b[i].bytes, "%s: %zu vs %zu bytes", x.b[i].name, x.b[i].bytes, y.b[i].bytes);
    if (is_timing(x.b[i].name)) {
      n_timing++;
      /* the generator gives every assignment different timings: they must differ */
      CHECK(x.b[i].bytes == 0 || memcmp(x.b[i].data, y.b[i].data, x.b[i].bytes) != 0, "%s equal", x.b[i].name);
      continue;
    }
    CHECK(x.b[i].bytes != y.b[i].bytes || memcmp(x.b[i].data, y.b[i].data, x.b[i].bytes) == 0,
          "%s differs between %s and %s", x.b[i].name, a, b);
  }
  CHECK(n_timing == 4, "%zu timing datasets", n_timing);
  free_all(&x);
  free_all(&y);
}

static void *read_ds(hid_t f, const char *name, hid_t mtype, size_t *n_out) {
  hid_t d = H5Dopen2(f, name, H5P_DEFAULT);
  CHECK(d >= 0, "dataset %s missing", name);
  if (d < 0) {
    *n_out = 0;
    return NULL;
  }
  hid_t s = H5Dget_space(d);
  hssize_t np = H5Sget_simple_extent_npoints(s);
  hsize_t dims[2] = {0, 0};
  H5Sget_simple_extent_dims(s, dims, NULL);
  *n_out = (size_t)dims[0];
  void *buf = malloc((size_t)np * H5Tget_size(mtype) + 1);
  if (!buf) abort();
  if (np > 0) CHECK(H5Dread(d, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) >= 0, "read %s", name);
  H5Sclose(s);
  H5Dclose(d);
  return buf;
}

/* The character set of dataset @p name's string type (H5T_CSET_ERROR when it cannot be read). */
static H5T_cset_t cset_of(hid_t f, const char *name) {
  hid_t d = H5Dopen2(f, name, H5P_DEFAULT);
  hid_t ft = d >= 0 ? H5Dget_type(d) : -1;
  H5T_cset_t cs = ft >= 0 ? H5Tget_cset(ft) : H5T_CSET_ERROR;
  if (ft >= 0) H5Tclose(ft);
  if (d >= 0) H5Dclose(d);
  return cs;
}

/* A fixed-size string column, read with the column's own cset (HDF5 converts no string between ASCII
   and UTF-8: the user-text columns are UTF-8, issue 16 item 6). */
static char *read_strs(hid_t f, const char *name, size_t width, size_t *n) {
  hid_t t = H5Tcopy(H5T_C_S1);
  H5Tset_size(t, width);
  H5Tset_strpad(t, H5T_STR_NULLPAD);
  H5Tset_cset(t, cset_of(f, name));
  char *b = read_ds(f, name, t, n);
  H5Tclose(t);
  return b;
}

static int64_t expected_total(int what) { /* 0 ligands, 1 sites, 2 residues, 3 atoms */
  int64_t n[4] = {0, 0, 0, 0};
  for (size_t i = 0; i < N_TASKS; i++)
    for (int l = 0; l < TASKS[i].n_lig; l++) {
      const lig_spec *ls = &TASKS[i].ligs[l];
      n[0]++;
      if (ls->n_polres < 0) continue;
      n[1]++;
      n[2] += 1 + ls->n_polres;
      n[3] += ls->n_lig_atoms + (int64_t)ls->n_polres * ls->atoms_per_res;
    }
  return n[what];
}

static void check_content(const char *path) {
  hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  CHECK(f >= 0, "open %s", path);
  if (f < 0) return;
  size_t ns, nl, nsi, nr, na, n2, nc;
  int64_t *fidx = read_ds(f, "structures/file_idx", H5T_NATIVE_INT64, &ns);
  CHECK(ns == N_FILES, "%zu structures", ns);
  for (size_t i = 0; i < ns; i++) CHECK(fidx[i] == (int64_t)i, "structure %zu file_idx %lld", i, (long long)fidx[i]);
  /* issue 16 item 6: the columns of the user's text say UTF-8, sitepack's own names ASCII (6dbf0bd: all ASCII) */
  CHECK(cset_of(f, "structures/path") == H5T_CSET_UTF8 && cset_of(f, "structures/error") == H5T_CSET_UTF8 &&
            cset_of(f, "structures/entry_id") == H5T_CSET_UTF8 && cset_of(f, "structures/method") == H5T_CSET_UTF8,
        "/structures path, error, entry_id, method are not H5T_CSET_UTF8");
  CHECK(cset_of(f, "structures/status") == H5T_CSET_ASCII && cset_of(f, "ligands/comp_id") == H5T_CSET_ASCII,
        "/structures/status or /ligands/comp_id is not ASCII");
  char *paths = read_strs(f, "structures/path", SP_PATH_LEN, &n2);
  CHECK(n2 == ns && strcmp(paths + 2 * SP_PATH_LEN, "sub/f2.cif") == 0, "path[2] %s", paths + 2 * SP_PATH_LEN);
  char *status = read_strs(f, "structures/status", 24, &n2);
  CHECK(strcmp(status + 24, "syntax_error") == 0 && strcmp(status, "ok") == 0, "status[1] %s", status + 24);
  int32_t *nparts = read_ds(f, "structures/n_parts", H5T_NATIVE_INT32, &n2);
  CHECK(nparts[2] == 3 && nparts[0] == 1, "n_parts[2] %d", nparts[2]);
  float *resol = read_ds(f, "structures/resolution", H5T_NATIVE_FLOAT, &n2);
  CHECK(isnan(resol[3]) && resol[5] == 2.75f, "resolution %g %g", (double)resol[3], (double)resol[5]);
  char *sha = read_strs(f, "structures/sha256", 64, &n2);
  CHECK(memcmp(sha + 64, "789abcdef0123456", 16) == 0, "sha256[1] %.16s", sha + 64);

  int64_t *lst = read_ds(f, "ligands/structure_idx", H5T_NATIVE_INT64, &nl);
  int64_t *lsite = read_ds(f, "ligands/site_idx", H5T_NATIVE_INT64, &n2);
  char *lcomp = read_strs(f, "ligands/comp_id", SP_ID_LEN, &n2);
  int64_t *lptr = read_ds(f, "structures/ligand_ptr", H5T_NATIVE_INT64, &n2);
  int64_t *sptr = read_ds(f, "structures/site_ptr", H5T_NATIVE_INT64, &n2);
  CHECK((int64_t)nl == expected_total(0), "%zu ligands, expected %lld", nl, (long long)expected_total(0));
  /* ligands in merge order: file 0: ATP MG SO4, file 2: NAG NAG GOL, file 4: A1BCD, file 5: ATP */
  static const char *lexp[] = {"ATP", "MG", "SO4", "NAG", "NAG", "GOL", "A1BCD", "ATP"};
  static const int64_t lst_exp[] = {0, 0, 0, 2, 2, 2, 4, 5};
  static const int64_t lsite_exp[] = {0, 1, -1, 2, 3, -1, 4, 5};
  for (size_t i = 0; i < nl && i < 8; i++) {
    CHECK(strcmp(lcomp + i * SP_ID_LEN, lexp[i]) == 0, "ligand %zu comp %s", i, lcomp + i * SP_ID_LEN);
    CHECK(lst[i] == lst_exp[i], "ligand %zu structure_idx %lld", i, (long long)lst[i]);
    CHECK(lsite[i] == lsite_exp[i], "ligand %zu site_idx %lld", i, (long long)lsite[i]);
  }
  static const int64_t lptr_exp[] = {0, 3, 3, 6, 6, 7, 8}, sptr_exp[] = {0, 2, 2, 4, 4, 5, 6};
  for (size_t i = 0; i <= N_FILES; i++)
    CHECK(lptr[i] == lptr_exp[i] && sptr[i] == sptr_exp[i], "ligand_ptr[%zu]=%lld site_ptr=%lld", i,
          (long long)lptr[i], (long long)sptr[i]);

  int64_t *ap = read_ds(f, "sites/atom_ptr", H5T_NATIVE_INT64, &n2);
  int64_t *rp = read_ds(f, "sites/residue_ptr", H5T_NATIVE_INT64, &n2);
  int64_t *sst = read_ds(f, "sites/structure_idx", H5T_NATIVE_INT64, &nsi);
  int64_t *slig = read_ds(f, "sites/ligand_idx", H5T_NATIVE_INT64, &n2);
  int32_t *snat = read_ds(f, "sites/n_atoms", H5T_NATIVE_INT32, &n2);
  int32_t *snres = read_ds(f, "sites/n_residues", H5T_NATIVE_INT32, &n2);
  int32_t *snlig = read_ds(f, "sites/n_ligand", H5T_NATIVE_INT32, &n2);
  CHECK(n2 == nsi && (int64_t)nsi == expected_total(1), "%zu sites", nsi);
  int64_t *rsite = read_ds(f, "residues/site_idx", H5T_NATIVE_INT64, &nr);
  uint8_t *rkind = read_ds(f, "residues/kind", H5T_NATIVE_UINT8, &n2);
  int64_t *ares = read_ds(f, "atoms/residue_idx", H5T_NATIVE_INT64, &na);
  float *pos = read_ds(f, "atoms/position", H5T_NATIVE_FLOAT, &n2);
  uint16_t *aflags = read_ds(f, "atoms/flags", H5T_NATIVE_UINT16, &n2);
  size_t nx = 0;
  int64_t *ip = read_ds(f, "sites/interaction_ptr", H5T_NATIVE_INT64, &n2);
  CHECK(n2 == nsi + 1, "interaction_ptr has %zu rows", n2);
  int32_t *snix = read_ds(f, "sites/n_interactions", H5T_NATIVE_INT32, &n2);
  int64_t *xsite = read_ds(f, "interactions/site_idx", H5T_NATIVE_INT64, &nx);
  int32_t *xlig = read_ds(f, "interactions/lig_atom", H5T_NATIVE_INT32, &n2);
  int32_t *xsat = read_ds(f, "interactions/site_atom", H5T_NATIVE_INT32, &n2);
  float *xdist = read_ds(f, "interactions/distance", H5T_NATIVE_FLOAT, &n2);
  /* fixture: n_polres % 4 rows per site: MG 2, NAG 3, NAG 2, A1BCD 3, ATP (4 and 100 residues) 0 */
  CHECK(nx == 10 && ip[0] == 0 && ip[nsi] == (int64_t)nx, "%zu interactions, interaction_ptr ends %lld", nx,
        (long long)ip[nsi]);
  for (size_t s = 0; s < nsi; s++) {
    CHECK(ip[s + 1] - ip[s] == snix[s], "site %zu interaction_ptr vs n_interactions", s);
    for (int64_t k = ip[s]; k < ip[s + 1]; k++) {
      CHECK(xsite[k] == (int64_t)s, "interaction %lld site %lld", (long long)k, (long long)xsite[k]);
      CHECK(xlig[k] >= 0 && xlig[k] < snlig[s] && xsat[k] >= snlig[s] && xsat[k] < snat[s],
            "interaction %lld atom offsets %d %d", (long long)k, xlig[k], xsat[k]);
      /* offsets stay local: the partner atom's row is ap[s] + offset, in this site's block */
      CHECK(pos[3 * (ap[s] + xsat[k])] == (float)sst[s], "interaction %lld partner in the site's file", (long long)k);
      CHECK((int)(xdist[k] / 100.0f) == (int)sst[s], "interaction %lld distance %g encodes file %lld", (long long)k,
            (double)xdist[k], (long long)sst[s]);
      CHECK(k == ip[s] || xdist[k] > xdist[k - 1], "interaction %lld order", (long long)k);
    }
  }
  free(ip); free(snix); free(xsite); free(xlig); free(xsat); free(xdist);
  CHECK((int64_t)nr == expected_total(2) && (int64_t)na == expected_total(3), "%zu residues %zu atoms", nr, na);
  CHECK(ap[0] == 0 && rp[0] == 0 && ap[nsi] == (int64_t)na && rp[nsi] == (int64_t)nr, "CSR ends %lld %lld",
        (long long)ap[nsi], (long long)rp[nsi]);
  for (size_t s = 0; s < nsi; s++) {
    CHECK(ap[s + 1] - ap[s] == snat[s] && rp[s + 1] - rp[s] == snres[s], "site %zu CSR", s);
    CHECK(ap[s] <= ap[s + 1] && rp[s] <= rp[s + 1], "site %zu CSR not monotonic", s);
    CHECK(slig[s] >= 0 && (size_t)slig[s] < nl && lsite[slig[s]] == (int64_t)s, "site %zu ligand %lld", s,
          (long long)slig[s]);
    CHECK(sst[s] == lst[slig[s]], "site %zu structure", s);
    for (int64_t k = rp[s]; k < rp[s + 1]; k++) {
      CHECK(rsite[k] == (int64_t)s, "residue %lld site %lld", (long long)k, (long long)rsite[k]);
      CHECK((k == rp[s]) == (rkind[k] == SP_RES_KIND_LIGAND), "residue %lld kind %u", (long long)k, rkind[k]);
    }
    for (int64_t k = ap[s]; k < ap[s + 1]; k++) {
      CHECK(ares[k] >= rp[s] && ares[k] < rp[s + 1], "atom %lld residue %lld", (long long)k, (long long)ares[k]);
      int lig_atom = k - ap[s] < snlig[s];
      CHECK(lig_atom == ((aflags[k] & SP_SITE_ATOM_LIGAND) != 0), "atom %lld flags", (long long)k);
      CHECK(pos[3 * k] == (float)sst[s], "atom %lld x %g", (long long)k, (double)pos[3 * k]);
    }
  }
  /* merged atoms sorted by (file, part*100+site, local index) */
  for (size_t k = 1; k < na; k++) {
    const float *p = pos + 3 * (k - 1), *q = pos + 3 * k;
    int lt = p[0] < q[0] || (p[0] == q[0] && (p[1] < q[1] || (p[1] == q[1] && p[2] < q[2])));
    CHECK(lt, "atom %zu out of merge order", k);
  }
  char *ccomp = read_strs(f, "components/comp_id", SP_ID_LEN, &nc);
  static const char *cexp[] = {"A1BCD", "ATP", "GOL", "MG", "NAG", "SO4"};
  CHECK(nc == 6, "%zu components", nc);
  for (size_t i = 0; i < nc && i < 6; i++)
    CHECK(strcmp(ccomp + i * SP_ID_LEN, cexp[i]) == 0, "component %zu %s", i, ccomp + i * SP_ID_LEN);
  uint8_t *inccd = read_ds(f, "components/in_ccd", H5T_NATIVE_UINT8, &n2);
  CHECK(inccd[0] == 0 && inccd[1] == 1, "in_ccd");
  void *bufs[] = {fidx, paths, status, nparts, resol, sha, lst, lsite, lcomp, lptr, sptr, ap, rp, sst, slig,
                  snat, snres, snlig, rsite, rkind, ares, pos, aflags, ccomp, inccd};
  for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++) free(bufs[i]);
  H5Fclose(f);
}

/* ---------- dump ---------- */

static char *dump_str(const char *h5, const char *table, int *rc, sp_err *e) {
  char *buf = NULL;
  size_t len = 0;
  FILE *m = open_memstream(&buf, &len);
  if (!m) abort();
  *rc = sp_dump(h5, table, m, e);
  fclose(m);
  return buf;
}

/* Drop the t_* columns of a structures dump (timing fields). */
static void drop_timing(char *s) {
  /* columns t_read..t_site are the last four: cut each line at its 4th tab from the end */
  char *out = s;
  for (char *line = s; *line;) {
    char *nl = strchr(line, '\n');
    size_t len = nl ? (size_t)(nl - line) : strlen(line);
    size_t cut = len;
    int tabs = 0;
    while (cut > 0 && tabs < 4)
      if (line[--cut] == '\t') tabs++;
    memmove(out, line, cut);
    out += cut;
    *out++ = '\n';
    line += len + (nl ? 1 : 0);
  }
  *out = '\0';
}

static void check_dumps(const char *a, const char *b) {
  static const char *tables[] = {"structures", "ligands", "components", "sites", "residues", "interactions"};
  sp_err e = {0};
  int rc;
  for (size_t i = 0; i < 6; i++) {
    char *x = dump_str(a, tables[i], &rc, &e);
    CHECK(rc == 0, "dump %s: %s", tables[i], e.msg);
    char *y = dump_str(b, tables[i], &rc, &e);
    CHECK(rc == 0, "dump %s: %s", tables[i], e.msg);
    if (i == 0) {
      CHECK(strcmp(x, y) != 0, "structures dumps differ in timing");
      drop_timing(x);
      drop_timing(y);
    }
    CHECK(strcmp(x, y) == 0, "dump %s differs:\n%s\n---\n%s", tables[i], x, y);
    free(x);
    free(y);
  }
  char *s = dump_str(a, "sites", &rc, &e);
  CHECK(rc == 0, "%s", e.msg);
  const char *hdr = "site_idx\tstructure_idx\tpath\tligand_idx\tcomp_id\tauth_asym_id\tauth_seq_id\tins_code\t"
                    "label_asym_id\taltloc\tmodel_num\tclass\tn_ligand\tn_atoms\tn_residues\tflags\tcutoff\tcenter_x\tcenter_y\t"
                    "center_z\tresidues\tother_residues\n";
  CHECK(strncmp(s, hdr, strlen(hdr)) == 0, "sites header: %.200s", s);
  const char *row0 = "\n0\t0\tsub/f0.cif\t0\tATP\tA\t501\t\taA\t\t1\tsmall_molecule\t31\t43\t5\t0\t6\t0\t0\t-1.5\t"
                     "P:ALA:11 P:SER:12 P:HIS:13\tP:HOH:14\n";
  CHECK(strstr(s, row0) != NULL, "site 0 row missing:\n%s", s);
  const char *row4 = "\n4\t4\tsub/f4.cif\t6\tA1BCD\tD\t.\tA\taD\t\t1\tsmall_molecule\t8\t14\t4\t0\t6\t4\t0\t-1.5\t"
                     "P:ALA:11B P:SER:. P:HIS:13\t\n";
  CHECK(strstr(s, row4) != NULL, "site 4 row missing:\n%s", s);
  size_t lines = 0;
  for (const char *p = s; *p; p++) lines += *p == '\n';
  CHECK(lines == 1 + 6, "sites dump has %zu lines", lines);
  free(s);

  s = dump_str(a, "structures", &rc, &e);
  CHECK(strstr(s, "\n1\t1\t1\tsub/f1.cif\t") != NULL, "structure 1 row:\n%.600s", s);
  CHECK(strstr(s, "syntax_error\tline 3: unexpected token\t1\t1001\t") != NULL, "error column (tab -> space)");
  /* /structures/warnings (format version 4): the separator printed as the two characters \n, a tab inside a
     message as the escape rule writes it (\x09), so no raw tab or newline in the field */
  CHECK(strstr(s, "\t1\tline 7: occupancy 'x' is not readable\t2ABC\t") != NULL, "warnings of structure 0 (1):\n%.900s", s);
  CHECK(strstr(s, "\t2\tline 7: occupancy 'x' is not readable\\na warning with a\\x09tab\t") != NULL,
        "warnings of a structure with 2 (separator \\n, tab \\x09):\n%.2000s", s);
  free(s);
  s = dump_str(a, "residues", &rc, &e);
  CHECK(strncmp(s, "residue_idx\tsite_idx\tlabel_asym_id\tauth_asym_id\tcomp_id\tauth_seq_id\t", 68) == 0,
        "residues header %.100s", s);
  CHECK(strstr(s, "\tP\tSER\t.\t2\t\t1\t") != NULL, "residue with no number prints '.'");
  free(s);
  s = dump_str(a, "ligands", &rc, &e);
  CHECK(strstr(s, "\n6\t4\t1\tA1BCD\taD\tD\t.\t.\tA\t\tsmall_molecule\t") != NULL, "ligand 6 row:\n%s", s);
  free(s);

  /* errors */
  s = dump_str(a, "bogus", &rc, &e);
  CHECK(rc == SP_E_INVALID && strstr(e.msg, "structures, ligands, components, sites, residues"), "bogus: %d %s", rc,
        e.msg);
  free(s);
  char missing[1400];
  pathf(missing, sizeof missing, "does_not_exist.h5");
  s = dump_str(missing, "sites", &rc, &e);
  CHECK(rc == SP_E_NOT_FOUND, "missing file: %d %s", rc, e.msg);
  free(s);
  char text[1400];
  pathf(text, sizeof text, "not_hdf5.txt");
  FILE *t = fopen(text, "w");
  fputs("hello\n", t);
  fclose(t);
  s = dump_str(text, "sites", &rc, &e);
  CHECK(rc == SP_E_FORMAT, "text file: %d %s", rc, e.msg);
  free(s);
}

/* ---------- error paths ---------- */

static void check_errors(void) {
  sp_err e = {0};
  char p[2][1400];
  pathf(p[0], sizeof p[0], "err_rank0.h5");
  pathf(p[1], sizeof p[1], "err_rank1.h5");
  sp_result r;
  sp_result_init(&r);

  /* an invalid result is refused and not written */
  sp_rank_writer *w = sp_rank_writer_open(p[0], &e);
  CHECK(w != NULL, "%s", e.msg);
  make_result(&TASKS[0], 0, &r);
  r.sites[0].ligand_idx = 7;
  CHECK(sp_rank_writer_append(w, &r, &e) == SP_E_INVALID && strstr(e.msg, "ligand_idx"), "bad ligand_idx: %s", e.msg);
  make_result(&TASKS[0], 0, &r);
  r.atoms[3].residue_idx = 6; /* a residue of site 1 */
  CHECK(sp_rank_writer_append(w, &r, &e) == SP_E_INVALID, "atom outside its site's residues");
  make_result(&TASKS[0], 0, &r);
  r.sites[1].n_atoms += 1;
  CHECK(sp_rank_writer_append(w, &r, &e) == SP_E_INVALID, "site atom counts");
  make_result(&TASKS[0], 0, &r);
  r.part = 1;
  CHECK(sp_rank_writer_append(w, &r, &e) == SP_E_INVALID, "part >= n_parts");
  make_result(&TASKS[0], 0, &r);
  CHECK(r.n_interactions > 0, "fixture task 0 has interactions");
  r.interactions[0].site_atom = r.sites[r.interactions[0].site_idx].n_atoms; /* one past the site's block */
  CHECK(sp_rank_writer_append(w, &r, &e) == SP_E_INVALID && strstr(e.msg, "offset"), "interaction atom: %s", e.msg);
  make_result(&TASKS[0], 0, &r);
  r.sites[0].n_interactions += 1;
  CHECK(sp_rank_writer_append(w, &r, &e) == SP_E_INVALID, "interaction counts");
  make_result(&TASKS[0], 0, &r);
  r.interactions[0].water_atom = -2;
  CHECK(sp_rank_writer_append(w, &r, &e) == SP_E_INVALID, "water atom -2");
  CHECK(sp_rank_writer_count(w) == 0, "refused results written");
  make_result(&TASKS[0], 0, &r);
  CHECK(sp_rank_writer_append(w, &r, &e) == 0, "%s", e.msg);
  CHECK(sp_rank_writer_close(w, &e) == 0, "%s", e.msg);

  /* the same task in two files */
  w = sp_rank_writer_open(p[1], &e);
  CHECK(sp_rank_writer_append(w, &r, &e) == 0, "%s", e.msg);
  CHECK(sp_rank_writer_close(w, &e) == 0, "%s", e.msg);
  char out[1400];
  pathf(out, sizeof out, "err_merged.h5");
  unlink(out); /* left by an earlier run of this test */
  CHECK(merge_paths(out, p, 2, 2, &e) == SP_E_INVALID && strstr(e.msg, "twice"), "duplicate task: %s", e.msg);
  struct stat stb;
  CHECK(stat(out, &stb) != 0, "failed merge left %s", out);

  /* a later part without its file's structure row */
  w = sp_rank_writer_open(p[1], &e);
  make_result(&TASKS[3], 0, &r);
  CHECK(sp_rank_writer_append(w, &r, &e) == 0, "%s", e.msg);
  CHECK(sp_rank_writer_close(w, &e) == 0, "%s", e.msg);
  CHECK(merge_paths(out, p, 2, 2, &e) == SP_E_INVALID && strstr(e.msg, "structure rows"), "orphan part: %s", e.msg);

  /* missing input, non-sitepack input */
  char bad[2][1400];
  pathf(bad[0], sizeof bad[0], "no_such_rank.h5");
  CHECK(merge_paths(out, bad, 1, 1, &e) == SP_E_NOT_FOUND, "missing input: %s", e.msg);
  CHECK(merge_paths(out, p, 1, 1, &e) == 0, "%s", e.msg);
  pathf(bad[0], sizeof bad[0], "err_merged.h5");  /* a merged file is not a per-rank file */
  pathf(out, sizeof out, "err_merged2.h5");
  CHECK(merge_paths(out, bad, 1, 1, &e) == SP_E_FORMAT, "merged file as input: %s", e.msg);
  int rc;
  char *s = dump_str(p[0], "sites", &rc, &e);
  CHECK(rc == SP_E_FORMAT, "dump of a per-rank file: %d %s", rc, e.msg);
  free(s);
  sp_result_free(&r);
  CHECK(sp_rank_writer_open(NULL, &e) == NULL && e.cls == SP_E_INVALID, "NULL path");
  pathf(out, sizeof out, "no_such_dir/x.h5");
  CHECK(sp_rank_writer_open(out, &e) == NULL && e.cls == SP_E_HDF5, "unwritable path: %s", e.msg);
}

/* A writer killed after some appends (no close): the merge still gets every appended task (files 0, 1 and the
 * three parts of file 2). A file of which only some parts are there (part 0 of 3) is refused: the merged
 * /structures/n_parts would say 3. */
static void check_killed(void) {
  char p[1][1400], out[1400], part[1][1400];
  pathf(p[0], sizeof p[0], "killed_rank0.h5");
  pathf(out, sizeof out, "killed_merged.h5");
  pathf(part[0], sizeof part[0], "part_of_a_file_rank0.h5");
  sp_err e0 = {0};
  sp_rank_writer *pw = sp_rank_writer_open(part[0], &e0); /* files 0, 1, and part 0 of file 2's 3 */
  sp_result pr;
  sp_result_init(&pr);
  for (size_t i = 0; pw && i < 3; i++) {
    make_result(&TASKS[i], 0, &pr);
    CHECK(sp_rank_writer_append(pw, &pr, &e0) == 0, "append: %s", e0.msg);
  }
  sp_result_free(&pr);
  CHECK(pw && sp_rank_writer_close(pw, &e0) == 0, "close: %s", e0.msg);
  CHECK(merge_paths(out, part, 1, 1, &e0) == SP_E_INVALID && strstr(e0.msg, "part 0 of 3") &&
        strstr(e0.msg, "expected parts 0..n_parts-1"), "a file's parts missing: %s", e0.msg);
  pid_t pid = fork();
  if (pid == 0) {
    sp_err e = {0};
    sp_rank_writer *w = sp_rank_writer_open(p[0], &e);
    sp_result r;
    sp_result_init(&r);
    for (size_t i = 0; w && i < 5; i++) {
      make_result(&TASKS[i], 0, &r);
      if (sp_rank_writer_append(w, &r, &e)) _exit(2);
    }
    _exit(w ? 0 : 1);  /* no close: as if killed */
  }
  int st = 0;
  waitpid(pid, &st, 0);
  CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child status %d", st);
  sp_err e = {0};
  CHECK(merge_paths(out, p, 1, 1, &e) == 0, "merge of an unclosed file: %s", e.msg);
  hid_t f = H5Fopen(out, H5F_ACC_RDONLY, H5P_DEFAULT);
  size_t ns = 0, nl = 0;
  int64_t *fi = f >= 0 ? read_ds(f, "structures/file_idx", H5T_NATIVE_INT64, &ns) : NULL;
  int64_t *ls = f >= 0 ? read_ds(f, "ligands/structure_idx", H5T_NATIVE_INT64, &nl) : NULL;
  CHECK(ns == 3 && nl == 6, "killed run: %zu structures, %zu ligands", ns, nl);
  free(fi);
  free(ls);
  if (f >= 0) H5Fclose(f);
}

static void check_empty(void) {
  char out[1400], p[1][1400];
  sp_err e = {0};
  pathf(out, sizeof out, "merged_empty.h5");
  CHECK(sp_merge(out, NULL, 0, NULL, &e) == 0, "empty merge: %s", e.msg);
  pathf(p[0], sizeof p[0], "empty_rank0.h5");
  sp_rank_writer *w = sp_rank_writer_open(p[0], &e);
  CHECK(sp_rank_writer_close(w, &e) == 0, "%s", e.msg);
  char out2[1400];
  pathf(out2, sizeof out2, "merged_empty2.h5");
  CHECK(merge_paths(out2, p, 1, 1, &e) == 0, "merge of a file with no tasks: %s", e.msg);
  hid_t f = H5Fopen(out, H5F_ACC_RDONLY, H5P_DEFAULT);
  size_t n = 9;
  int64_t *ap = read_ds(f, "sites/atom_ptr", H5T_NATIVE_INT64, &n);
  CHECK(n == 1 && ap[0] == 0, "empty atom_ptr: %zu", n);
  free(ap);
  float *pos = read_ds(f, "atoms/position", H5T_NATIVE_FLOAT, &n);
  CHECK(n == 0, "empty positions %zu", n);
  free(pos);
  H5Fclose(f);
  int rc;
  char *s = dump_str(out, "sites", &rc, &e);
  CHECK(rc == 0 && strchr(s, '\n') == s + strlen(s) - 1, "empty sites dump: %d %s", rc, s);
  free(s);
  s = dump_str(out2, "structures", &rc, &e);
  CHECK(rc == 0 && strncmp(s, "structure_idx\tfile_idx\tn_parts\tpath\t", 35) == 0, "empty structures dump");
  free(s);
}

int main(int argc, char **argv) {
  snprintf(OUTDIR, sizeof OUTDIR, "%s", argc > 1 ? argv[1] : "store_test_out");
  mkdir(OUTDIR, 0755);
  char paths[4][1400], merged[3][1400];
  sp_err e = {0};

  /* P = 1: tasks in list order */
  int order1[N_TASKS], assign1[N_TASKS];
  for (size_t i = 0; i < N_TASKS; i++) order1[i] = (int)i, assign1[i] = 0;
  write_ranks("a1", 1, order1, assign1, 0.5, paths);
  pathf(merged[0], sizeof merged[0], "merged_p1.h5");
  CHECK(merge_paths(merged[0], paths, 1, 1, &e) == 0, "merge P=1: %s", e.msg);

  /* P = 2: reversed order, alternating ranks (split file parts land on different ranks) */
  int order2[N_TASKS], assign2[N_TASKS];
  for (size_t i = 0; i < N_TASKS; i++) order2[i] = (int)(N_TASKS - 1 - i), assign2[i] = (int)(i % 2);
  write_ranks("a2", 2, order2, assign2, 10.5, paths);
  pathf(merged[1], sizeof merged[1], "merged_p2.h5");
  CHECK(merge_paths(merged[1], paths, 2, 2, &e) == 0, "merge P=2: %s", e.msg);

  /* P = 3: a scrambled order, uneven assignment, inputs passed in another order */
  int order3[N_TASKS] = {5, 3, 0, 7, 2, 1, 6, 4}, assign3[N_TASKS] = {2, 0, 2, 1, 2, 0, 2, 2};
  write_ranks("a3", 3, order3, assign3, 20.5, paths);
  char rev[3][1400];
  for (int k = 0; k < 3; k++) memcpy(rev[k], paths[2 - k], sizeof rev[k]);
  pathf(merged[2], sizeof merged[2], "merged_p3.h5");
  CHECK(merge_paths(merged[2], rev, 3, 3, &e) == 0, "merge P=3: %s", e.msg);

  for (int k = 0; k < 3; k++) check_content(merged[k]);
  compare_files(merged[0], merged[1]);
  compare_files(merged[0], merged[2]);
  check_dumps(merged[0], merged[2]);
  check_dumps(merged[1], merged[0]);
  check_errors();
  check_killed();
  check_empty();
  return sp_test_done("test_store");
}

/* sp_dump: print a table of a merged sitepack file as TSV (see store.h, docs/format.md). */
#include "sitepack/sitechem.h"
#include "sitepack/store.h"
#include "store_internal.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define SLAB_ROWS 4096

typedef struct dump_ctx {
  hid_t file;
  sp_err *err;
  const char *path;
  int has_optional;  /* the file has the optional columns of kind 1 (/residues/symop: symmetry mates) */
  int has_assembly;  /* ... of kind 2 (/residues/assembly_op: assembly copies) */
  int64_t ver;       /* the file's format_version: a column a later version added is not printed */
} dump_ctx;

/* Whether column c of table t is in the file (optional columns may be absent; a version-2 file has no
 * version-3 column, docs/format.md "Versions"). */
static int col_present(const dump_ctx *d, int t, const sp_col *c) {
  if (sp_col_since(t, c) > d->ver) return 0;
  return !c->optional || (c->optional == 1 ? d->has_optional : d->has_assembly);
}

/* Rows of table t: the length of its first column. */
static int table_rows(dump_ctx *d, int t, int64_t *n) {
  char name[96];
  snprintf(name, sizeof name, "/%s/%s", sp_tables[t].name, sp_tables[t].cols[0].name);
  hid_t ds = H5Dopen2(d->file, name, H5P_DEFAULT);
  if (ds < 0) return sp_err_set(d->err, SP_E_FORMAT, "%s: missing dataset %s", d->path, name);
  hid_t sp = H5Dget_space(ds);
  hsize_t dims[2] = {0, 0};
  int nd = sp >= 0 ? H5Sget_simple_extent_dims(sp, dims, NULL) : -1;
  if (sp >= 0) H5Sclose(sp);
  H5Dclose(ds);
  if (nd < 1) return sp_err_set(d->err, SP_E_FORMAT, "%s: dataset %s has no rows dimension", d->path, name);
  *n = (int64_t)dims[0];
  return 0;
}

/* Read one dataset's rows [first, first+n) into buf with memory type mt; shape checked against
 * total rows (and 3 columns when three). */
static int read_col(dump_ctx *d, const char *table, const char *col, hid_t mt, int three, int64_t total,
                    int64_t first, size_t n, void *buf) {
  char name[96];
  snprintf(name, sizeof name, "/%s/%s", table, col);
  hid_t ds = H5Dopen2(d->file, name, H5P_DEFAULT);
  if (ds < 0) return sp_err_set(d->err, SP_E_FORMAT, "%s: missing dataset %s", d->path, name);
  hid_t fs = H5Dget_space(ds);
  hsize_t dims[2] = {0, 0};
  int nd = fs >= 0 ? H5Sget_simple_extent_dims(fs, dims, NULL) : -1;
  if (nd != (three ? 2 : 1) || (int64_t)dims[0] != total || (three && dims[1] != 3)) {
    if (fs >= 0) H5Sclose(fs);
    H5Dclose(ds);
    return sp_err_set(d->err, SP_E_FORMAT, "%s: dataset %s has an unexpected shape", d->path, name);
  }
  int rc = 0;
  if (n) {
    hsize_t st[2] = {(hsize_t)first, 0}, cnt[2] = {n, 3};
    hid_t ms = H5Screate_simple(nd, cnt, NULL);
    if (ms < 0 || H5Sselect_hyperslab(fs, H5S_SELECT_SET, st, NULL, cnt, NULL) < 0 ||
        H5Dread(ds, mt, ms, fs, H5P_DEFAULT, buf) < 0)
      rc = sp_h5_fail(d->err, "cannot read dataset", name);
    if (ms >= 0) H5Sclose(ms);
  }
  H5Sclose(fs);
  H5Dclose(ds);
  return rc;
}

/* Read rows [first, first+n) of table t (all schema columns) into row structs. */
static int read_rows(dump_ctx *d, int t, int64_t total, int64_t first, size_t n, void *rows, void *colbuf) {
  const sp_table *tb = &sp_tables[t];
  memset(rows, 0, n * tb->row_size);
  for (size_t k = 0; k < tb->n_cols; k++) {
    const sp_col *c = &tb->cols[k];
    if (!col_present(d, t, c)) continue; /* stays zero: "" */
    hid_t mt = sp_h5_col_memtype(c);
    if (mt < 0) return sp_h5_fail(d->err, "cannot build a memory type", c->name);
    int rc = read_col(d, tb->name, c->name, mt, c->kind == SP_COL_F32X3, total, first, n, colbuf);
    H5Tclose(mt);
    if (rc) return rc;
    sp_col_scatter(c, rows, tb->row_size, n, colbuf);
  }
  return 0;
}

static int read_i64(dump_ctx *d, const char *table, const char *col, int64_t total, int64_t first, size_t n,
                    int64_t *buf) {
  return read_col(d, table, col, H5T_NATIVE_INT64, 0, total, first, n, buf);
}

static size_t max_elsize(int t) {
  size_t m = 12;
  for (size_t k = 0; k < sp_tables[t].n_cols; k++)
    if (sp_col_elsize(&sp_tables[t].cols[k]) > m) m = sp_col_elsize(&sp_tables[t].cols[k]);
  return m;
}

/* A string field as one TSV field: a tab, newline or CR prints as a space. With @p newline_escaped (a column
 * of the user's text, sp_col.utf8: escaped by the one rule of io.h sp_path_escape, so the only raw control
 * byte it holds is /structures/warnings' "\n" between messages) a newline prints as the two characters \n
 * instead (unambiguous: a backslash of the text itself is always the start of "\xNN"). */
static void put_str_as(FILE *out, const char *s, size_t max, bool newline_escaped) {
  for (size_t i = 0; i < max && s[i]; i++) {
    char ch = s[i];
    if (ch == '\n' && newline_escaped) fputs("\\n", out);
    else fputc(ch == '\t' || ch == '\n' || ch == '\r' ? ' ' : ch, out);
  }
}

static void put_str(FILE *out, const char *s, size_t max) { put_str_as(out, s, max, false); }

static void put_f32(FILE *out, float v) {
  if (isnan(v)) fputs("nan", out);
  else fprintf(out, "%.6g", (double)v);
}

static void put_value(FILE *out, const sp_col *c, const void *row) {
  const char *p = (const char *)row + c->off;
  switch (c->kind) {
    case SP_COL_I8: { int8_t v; memcpy(&v, p, 1); fprintf(out, "%d", v); break; }
    case SP_COL_U8: { uint8_t v; memcpy(&v, p, 1); fprintf(out, "%u", v); break; }
    case SP_COL_U16: { uint16_t v; memcpy(&v, p, 2); fprintf(out, "%u", v); break; }
    case SP_COL_I32: { int32_t v; memcpy(&v, p, 4); fprintf(out, "%d", v); break; }
    case SP_COL_SEQ: {
      int32_t v;
      memcpy(&v, p, 4);
      if (v == SP_SEQ_NONE) fputc('.', out);
      else fprintf(out, "%d", v);
      break;
    }
    case SP_COL_U32: { uint32_t v; memcpy(&v, p, 4); fprintf(out, "%u", v); break; }
    case SP_COL_I64: { int64_t v; memcpy(&v, p, 8); fprintf(out, "%lld", (long long)v); break; }
    case SP_COL_F32: { float v; memcpy(&v, p, 4); put_f32(out, v); break; }
    case SP_COL_F64: {
      double v;
      memcpy(&v, p, 8);
      if (isnan(v)) fputs("nan", out);
      else fprintf(out, "%.9g", v);
      break;
    }
    case SP_COL_F32X3: {
      float v[3];
      memcpy(v, p, sizeof v);
      for (int i = 0; i < 3; i++) {
        if (i) fputc('\t', out);
        put_f32(out, v[i]);
      }
      break;
    }
    case SP_COL_STR: put_str_as(out, p, c->msize, c->utf8); break;
    case SP_COL_CHAR: if (*p && *p != '\t' && *p != '\n' && *p != '\r') fputc(*p, out); break;
    default: break;
  }
}

static void put_header(FILE *out, const sp_col *c) {
  if (c->kind == SP_COL_F32X3) fprintf(out, "%s_x\t%s_y\t%s_z", c->name, c->name, c->name);
  else fputs(c->name, out);
}

/* Generic table: index column, then (structures) file_idx and n_parts, then the schema columns. */
static int dump_plain(dump_ctx *d, int t, FILE *out) {
  static const char *idx_names[SP_T_COUNT] = {"structure_idx", "ligand_idx", "component_idx",   "site_idx",
                                               "residue_idx",   "atom_idx",   "interaction_idx", "bond_idx",
                                               "chain_idx",     "segment_idx", "sequence_idx"};
  const sp_table *tb = &sp_tables[t];
  int64_t total = 0;
  int rc = table_rows(d, t, &total);
  if (rc) return rc;
  fputs(idx_names[t], out);
  if (t == SP_T_STRUCTURES) fputs("\tfile_idx\tn_parts", out);
  for (size_t k = 0; k < tb->n_cols; k++) {
    if (!col_present(d, t, &tb->cols[k])) continue;
    fputc('\t', out);
    put_header(out, &tb->cols[k]);
  }
  if (t == SP_T_INTERACTIONS) fputs("\ttype_name", out);
  fputc('\n', out);
  size_t cap = total < SLAB_ROWS ? (size_t)(total ? total : 1) : SLAB_ROWS;
  char *rows = malloc(cap * tb->row_size);
  char *colbuf = malloc(cap * max_elsize(t));
  int64_t *fidx = malloc(cap * sizeof *fidx), *nparts = malloc(cap * sizeof *nparts);
  if (!rows || !colbuf || !fidx || !nparts) rc = sp_err_set(d->err, SP_E_NOMEM, "out of memory dumping /%s", tb->name);
  for (int64_t first = 0; !rc && first < total; first += (int64_t)cap) {
    size_t n = (size_t)(total - first) < cap ? (size_t)(total - first) : cap;
    rc = read_rows(d, t, total, first, n, rows, colbuf);
    if (!rc && t == SP_T_STRUCTURES) {
      rc = read_i64(d, tb->name, "file_idx", total, first, n, fidx);
      if (!rc) rc = read_i64(d, tb->name, "n_parts", total, first, n, nparts);
    }
    for (size_t i = 0; !rc && i < n; i++) {
      const char *row = rows + i * tb->row_size;
      fprintf(out, "%lld", (long long)(first + (int64_t)i));
      if (t == SP_T_STRUCTURES) fprintf(out, "\t%lld\t%lld", (long long)fidx[i], (long long)nparts[i]);
      for (size_t k = 0; k < tb->n_cols; k++) {
        if (!col_present(d, t, &tb->cols[k])) continue;
        fputc('\t', out);
        put_value(out, &tb->cols[k], row);
      }
      if (t == SP_T_INTERACTIONS) fprintf(out, "\t%s", sp_ix_type_name(((const sp_interaction_row *)row)->type));
      fputc('\n', out);
    }
  }
  free(rows);
  free(colbuf);
  free(fidx);
  free(nparts);
  return rc;
}

static void put_seq(FILE *out, int32_t v) {
  if (v == SP_SEQ_NONE) fputc('.', out);
  else fprintf(out, "%d", v);
}

/* One row per site, joined with its ligand, its structure's path and its residues. */
static int dump_sites(dump_ctx *d, FILE *out) {
  int64_t n_sites = 0, n_lig = 0, n_st = 0, n_res = 0;
  int rc = table_rows(d, SP_T_SITES, &n_sites);
  if (!rc) rc = table_rows(d, SP_T_LIGANDS, &n_lig);
  if (!rc) rc = table_rows(d, SP_T_STRUCTURES, &n_st);
  if (!rc) rc = table_rows(d, SP_T_RESIDUES, &n_res);
  if (rc) return rc;
  fputs("site_idx\tstructure_idx\tpath\tligand_idx\tcomp_id\tauth_asym_id\tauth_seq_id\tins_code\tlabel_asym_id\t"
        "altloc\tmodel_num\tclass\tn_ligand\tn_atoms\tn_residues\tflags\tcutoff\tcenter_x\tcenter_y\tcenter_z\tresidues\t"
        "other_residues\n",
        out);
  size_t cap = n_sites < SLAB_ROWS ? (size_t)(n_sites ? n_sites : 1) : SLAB_ROWS;
  sp_site_row *sites = malloc(cap * sizeof *sites);
  int64_t *rptr = malloc((cap + 1) * sizeof *rptr);
  char *colbuf = malloc(cap * max_elsize(SP_T_SITES));
  sp_ligand_row *ligs = NULL;
  sp_residue_row *res = NULL;
  char (*paths)[SP_PATH_LEN] = NULL;
  char *cb2 = NULL;
  hid_t pt = sp_h5_col_str_type(&sp_tables[SP_T_STRUCTURES].cols[0], SP_PATH_LEN); /* /structures/path */
  if (!sites || !rptr || !colbuf || pt < 0) rc = sp_err_set(d->err, SP_E_NOMEM, "out of memory dumping /sites");
  for (int64_t first = 0; !rc && first < n_sites; first += (int64_t)cap) {
    size_t n = (size_t)(n_sites - first) < cap ? (size_t)(n_sites - first) : cap;
    rc = read_rows(d, SP_T_SITES, n_sites, first, n, sites, colbuf);
    if (!rc) rc = read_i64(d, "sites", "residue_ptr", n_sites + 1, first, n + 1, rptr);
    if (rc) break;
    int64_t lmin = INT64_MAX, lmax = -1, smin = INT64_MAX, smax = -1;
    for (size_t i = 0; i < n; i++) {
      const sp_site_row *s = &sites[i];
      if (s->ligand_idx < 0 || s->ligand_idx >= n_lig || s->structure_idx < 0 || s->structure_idx >= n_st ||
          rptr[i] < 0 || rptr[i] > rptr[i + 1] || rptr[i + 1] > n_res) {
        rc = sp_err_set(d->err, SP_E_FORMAT, "%s: site %lld has an index out of range", d->path,
                        (long long)(first + (int64_t)i));
        break;
      }
      if (s->ligand_idx < lmin) lmin = s->ligand_idx;
      if (s->ligand_idx > lmax) lmax = s->ligand_idx;
      if (s->structure_idx < smin) smin = s->structure_idx;
      if (s->structure_idx > smax) smax = s->structure_idx;
    }
    if (rc || n == 0) break;
    size_t nl = (size_t)(lmax - lmin + 1), ns = (size_t)(smax - smin + 1), nr = (size_t)(rptr[n] - rptr[0]);
    size_t need = nl > nr ? nl : nr;
    if (ns > need) need = ns;
    free(ligs);
    free(res);
    free(paths);
    free(cb2);
    ligs = malloc(nl * sizeof *ligs);
    res = malloc((nr ? nr : 1) * sizeof *res);
    paths = malloc(ns * sizeof *paths);
    cb2 = malloc(need * 128 + SP_PATH_LEN * ns);
    if (!ligs || !res || !paths || !cb2) {
      rc = sp_err_set(d->err, SP_E_NOMEM, "out of memory dumping /sites");
      break;
    }
    rc = read_rows(d, SP_T_LIGANDS, n_lig, lmin, nl, ligs, cb2);
    if (!rc) rc = read_rows(d, SP_T_RESIDUES, n_res, rptr[0], nr, res, cb2);
    if (!rc) rc = read_col(d, "structures", "path", pt, 0, n_st, smin, ns, paths);
    for (size_t i = 0; !rc && i < n; i++) {
      const sp_site_row *s = &sites[i];
      const sp_ligand_row *l = &ligs[s->ligand_idx - lmin];
      const char *path = paths[s->structure_idx - smin];
      fprintf(out, "%lld\t%lld\t", (long long)(first + (int64_t)i), (long long)s->structure_idx);
      put_str(out, path, SP_PATH_LEN);
      fprintf(out, "\t%lld\t", (long long)s->ligand_idx);
      put_str(out, l->comp_id, SP_ID_LEN);
      fputc('\t', out);
      put_str(out, l->auth_asym_id, SP_ID_LEN);
      fputc('\t', out);
      put_seq(out, l->auth_seq_id);
      fputc('\t', out);
      put_str(out, l->ins_code, sizeof l->ins_code);
      fputc('\t', out);
      put_str(out, l->label_asym_id, SP_ID_LEN);
      fputc('\t', out);
      put_str(out, l->altloc, sizeof l->altloc);
      fprintf(out, "\t%d\t", l->model_num); /* the ligand's model: sites of two models differ here */
      put_str(out, l->cls, sizeof l->cls);
      fprintf(out, "\t%d\t%d\t%d\t%u\t", s->n_ligand, s->n_atoms, s->n_residues, s->flags);
      put_f32(out, s->cutoff);
      for (int k = 0; k < 3; k++) {
        fputc('\t', out);
        put_f32(out, s->center[k]);
      }
      /* residues: polymer residues; other_residues: other ligands, ions, waters (site order) */
      for (int pass = 0; pass < 2; pass++) {
        fputc('\t', out);
        int firstres = 1;
        for (int64_t k = rptr[i]; k < rptr[i + 1]; k++) {
          const sp_residue_row *r = &res[k - rptr[0]];
          if (r->kind == SP_RES_KIND_LIGAND || (r->kind == SP_RES_KIND_POLYMER) != (pass == 0)) continue;
          if (!firstres) fputc(' ', out);
          firstres = 0;
          put_str(out, r->auth_asym_id, SP_ID_LEN);
          fputc(':', out);
          put_str(out, r->comp_id, SP_ID_LEN);
          fputc(':', out);
          put_seq(out, r->auth_seq_id);
          put_str(out, r->ins_code, sizeof r->ins_code);
          if (r->symop[0]) {
            fputc('@', out); /* a symmetry mate: "A:HIS:57@2_655" */
            put_str(out, r->symop, sizeof r->symop);
          }
          if (r->assembly_op[0]) {
            fputc('~', out); /* a copy of the first assembly: "B:HIS:57~2" (operator 2) */
            put_str(out, r->assembly_op, sizeof r->assembly_op);
          }
        }
      }
      fputc('\n', out);
    }
  }
  if (pt >= 0) H5Tclose(pt);
  free(sites);
  free(rptr);
  free(colbuf);
  free(ligs);
  free(res);
  free(paths);
  free(cb2);
  return rc;
}

int sp_dump(const char *h5_path, const char *table, FILE *out, sp_err *err) {
  static const char valid[] = "structures, ligands, components, sites, residues, interactions, bonds, chains, segments";
  if (!h5_path || !table || !out) return sp_err_set(err, SP_E_INVALID, "sp_dump: NULL argument");
  int t = -1;
  if (!strcmp(table, "structures")) t = SP_T_STRUCTURES;
  else if (!strcmp(table, "ligands")) t = SP_T_LIGANDS;
  else if (!strcmp(table, "components")) t = SP_T_COMPONENTS;
  else if (!strcmp(table, "sites")) t = SP_T_SITES;
  else if (!strcmp(table, "residues")) t = SP_T_RESIDUES;
  else if (!strcmp(table, "interactions")) t = SP_T_INTERACTIONS;
  else if (!strcmp(table, "bonds")) t = SP_T_BONDS;
  else if (!strcmp(table, "chains")) t = SP_T_CHAINS;
  else if (!strcmp(table, "segments")) t = SP_T_SEGMENTS;
  if (t < 0) return sp_err_set(err, SP_E_INVALID, "unknown table '%s' (valid tables: %s)", table, valid);
  dump_ctx d = {-1, err, h5_path, 0, 0, 0};
  int rc = sp_h5_open_merged(h5_path, &d.file, &d.ver, NULL, err); /* one diagnosis for all readers (h5util.h) */
  if (rc) return rc;
  sp_h5_quiet q;
  sp_h5_quiet_begin(&q);
  if (sp_tables[t].since > d.ver) {
    rc = sp_err_set(err, SP_E_NOT_FOUND, "%s: format version %lld has no table /%s (format version %d added it; "
                    "docs/format.md \"Versions\")", h5_path, (long long)d.ver, table, sp_tables[t].since);
    goto out;
  }
  d.has_optional = H5Lexists(d.file, "/residues/symop", H5P_DEFAULT) > 0;
  d.has_assembly = H5Lexists(d.file, "/residues/assembly_op", H5P_DEFAULT) > 0;
  H5Eclear2(H5E_DEFAULT);
  rc = t == SP_T_SITES ? dump_sites(&d, out) : dump_plain(&d, t, out);
  if (!rc && (fflush(out) != 0 || ferror(out))) rc = sp_err_set(err, SP_E_IO, "writing the dump of %s failed", h5_path);
out:
  if (d.file >= 0) H5Fclose(d.file);
  H5Eclear2(H5E_DEFAULT);
  sp_h5_quiet_end(&q);
  return rc;
}

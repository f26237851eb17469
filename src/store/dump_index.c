/* `sitepack dump OUT.h5 index` (store.h sp_dump_index; issue 36 item 4): one row per site, the PDBbind-like
 * index a benchmark is curated from, joined from /sites, /ligands, /structures, /residues, /interactions and, when
 * present, /clusters and /splits. Columns: docs/format.md "`sitepack dump OUT.h5 index`". */
#include <hdf5.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sitepack/site.h"
#include "sitepack/sitechem.h"
#include "sitepack/store.h"
#include "sitepack/survey.h"
#include "store_internal.h"

/* one column read whole: numbers as double (every int column of the file fits exactly), or fixed strings */
typedef struct icol {
  const char *group, *name, *header;
  int text;          /* 1: a fixed-size string column */
  int seq;           /* 1: INT32_MIN prints "." */
  int table;         /* 0 sites, 1 ligands, 2 structures: which index selects the row */
  double *num;
  char *str;
  size_t width;
} icol;

typedef struct ictx {
  hid_t f;
  const char *path;
  sp_err *err;
  char sep;
} ictx;

static int read_num(ictx *c, const char *dpath, int64_t n, double **out) {
  hid_t d = H5Dopen2(c->f, dpath, H5P_DEFAULT);
  if (d < 0) return sp_err_set(c->err, SP_E_FORMAT, "%s: missing dataset %s", c->path, dpath);
  *out = malloc((size_t)(n ? n : 1) * sizeof **out);
  int rc = !*out ? sp_err_set(c->err, SP_E_NOMEM, "out of memory (index)") : 0;
  if (!rc && n && H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, *out) < 0)
    rc = sp_err_set(c->err, SP_E_HDF5, "%s: cannot read %s", c->path, dpath);
  H5Dclose(d);
  return rc;
}

static int read_str(ictx *c, const char *dpath, int64_t n, char **out, size_t *width) {
  hid_t d = H5Dopen2(c->f, dpath, H5P_DEFAULT);
  if (d < 0) return sp_err_set(c->err, SP_E_FORMAT, "%s: missing dataset %s", c->path, dpath);
  hid_t ft = H5Dget_type(d);
  *width = ft >= 0 ? H5Tget_size(ft) : 0;
  hid_t mt = *width ? sp_h5_str_type_of(ft, *width) : -1;
  *out = mt >= 0 ? calloc((size_t)(n ? n : 1), *width) : NULL;
  int rc = !*out ? sp_err_set(c->err, SP_E_NOMEM, "out of memory (index)") : 0;
  if (!rc && n && H5Dread(d, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, *out) < 0)
    rc = sp_err_set(c->err, SP_E_HDF5, "%s: cannot read %s", c->path, dpath);
  if (mt >= 0) H5Tclose(mt);
  if (ft >= 0) H5Tclose(ft);
  H5Dclose(d);
  return rc;
}

/* A field: TSV replaces a tab or newline by a space; CSV quotes a field holding the separator, a quote or a
 * newline (RFC 4180: a quote doubled). */
static void put_text(FILE *o, const char *s, size_t max, char sep) {
  size_t n = strnlen(s, max);
  bool quote = sep == ',' && (memchr(s, ',', n) || memchr(s, '"', n) || memchr(s, '\n', n) || memchr(s, '\r', n));
  if (quote) fputc('"', o);
  for (size_t i = 0; i < n; i++) {
    char ch = s[i];
    if (quote && ch == '"') fputs("\"\"", o);
    else if (!quote && (ch == '\t' || ch == '\n' || ch == '\r')) fputc(' ', o);
    else fputc(ch, o);
  }
  if (quote) fputc('"', o);
}

/* A float32 value in the fewest significant digits (6 to 9) that read back as the same float32: 1.8, not
 * 1.79999995, and still the stored value (9 digits always suffice for float32: IEEE 754-2008, 5.12.2). */
static void put_f32_shortest(FILE *o, float f) {
  char buf[32];
  for (int p = 6; p <= 9; p++) {
    snprintf(buf, sizeof buf, "%.*g", p, (double)f);
    if (strtof(buf, NULL) == f || p == 9) break;
  }
  fputs(buf, o);
}

static void put_num(FILE *o, double v, int seq) {
  if (isnan(v)) fputs("nan", o);
  else if (seq && v == (double)INT32_MIN) fputc('.', o);
  else if (v == floor(v) && fabs(v) < 1e15) fprintf(o, "%.0f", v);
  else put_f32_shortest(o, (float)v); /* float32 columns */
}

#define N_FIXED 38
static const icol fixed_tmpl[N_FIXED] = {
    {"structures", "entry_id", "entry_id", 1, 0, 2, NULL, NULL, 0},
    {"structures", "path", "path", 1, 0, 2, NULL, NULL, 0},
    {"structures", "method", "method", 1, 0, 2, NULL, NULL, 0},
    {"structures", "resolution", "resolution", 0, 0, 2, NULL, NULL, 0},
    {"structures", "r_work", "r_work", 0, 0, 2, NULL, NULL, 0},
    {"structures", "r_free", "r_free", 0, 0, 2, NULL, NULL, 0},
    {"structures", "release_date", "release_date", 1, 0, 2, NULL, NULL, 0},
    {"sites", "ligand_idx", "ligand_idx", 0, 0, 0, NULL, NULL, 0},
    {"ligands", "comp_id", "comp_id", 1, 0, 1, NULL, NULL, 0},
    {"ligands", "auth_asym_id", "auth_asym_id", 1, 0, 1, NULL, NULL, 0},
    {"ligands", "auth_seq_id", "auth_seq_id", 0, 1, 1, NULL, NULL, 0},
    {"ligands", "ins_code", "ins_code", 1, 0, 1, NULL, NULL, 0},
    {"ligands", "residues", "ligand_residues", 1, 0, 1, NULL, NULL, 0},
    {"ligands", "class", "class", 1, 0, 1, NULL, NULL, 0},
    {"ligands", "flags", "ligand_flags", 0, 0, 1, NULL, NULL, 0},
    {"ligands", "molecule_key", "molecule_key", 1, 0, 1, NULL, NULL, 0},
    {"ligands", "n_heavy_atoms", "n_heavy_atoms", 0, 0, 1, NULL, NULL, 0},
    {"ligands", "mw", "mw", 0, 0, 1, NULL, NULL, 0},
    {"ligands", "formal_charge", "formal_charge", 0, 0, 1, NULL, NULL, 0},
    {"ligands", "hbd", "hbd", 0, 0, 1, NULL, NULL, 0},
    {"ligands", "hba", "hba", 0, 0, 1, NULL, NULL, 0},
    {"ligands", "hbd_lipinski", "hbd_lipinski", 0, 0, 1, NULL, NULL, 0},
    {"ligands", "hba_lipinski", "hba_lipinski", 0, 0, 1, NULL, NULL, 0},
    {"ligands", "rotatable_bonds", "rotatable_bonds", 0, 0, 1, NULL, NULL, 0},
    {"ligands", "tpsa", "tpsa", 0, 0, 1, NULL, NULL, 0},
    {"ligands", "logp", "logp", 0, 0, 1, NULL, NULL, 0},
    {"ligands", "mr", "mr", 0, 0, 1, NULL, NULL, 0},
    {"ligands", "n_rings", "n_rings", 0, 0, 1, NULL, NULL, 0},
    {"ligands", "n_aromatic_rings", "n_aromatic_rings", 0, 0, 1, NULL, NULL, 0},
    {"ligands", "fsp3", "fsp3", 0, 0, 1, NULL, NULL, 0},
    {"ligands", "qed", "qed", 0, 0, 1, NULL, NULL, 0},
    {"ligands", "desc_flags", "desc_flags", 0, 0, 1, NULL, NULL, 0},
    {"sites", "flags", "site_flags", 0, 0, 0, NULL, NULL, 0},
    {"sites", "n_residues", "n_residues", 0, 0, 0, NULL, NULL, 0},
    {"sites", "quality", "quality", 0, 0, 0, NULL, NULL, 0},
    {"sites", "pass_quality", "pass_quality", 0, 0, 0, NULL, NULL, 0},
    {"sites", "ligand_charge", "ligand_charge", 0, 0, 0, NULL, NULL, 0},
    {"sites", "n_interactions", "n_interactions", 0, 0, 0, NULL, NULL, 0},
};

typedef struct iextra {  /* /clusters and /splits columns of one value per site */
  char name[96], header[96];
  double *num;
} iextra;

typedef struct idata {
  icol col[N_FIXED];  /* fixed_tmpl with this file's columns read */
  int64_t n_sites, n_res, n_ix;
  double *s_lig, *s_st, *rptr, *xptr, *r_kind, *r_seq, *x_type;
  char *r_chain, *r_comp, *r_ins, *r_sym, *r_asm;  /* r_sym, r_asm: NULL when the file has no such column */
  size_t w_chain, w_comp, w_ins, w_sym, w_asm;
  iextra extra[64];
  int n_extra;
} idata;

/* The /clusters and /splits datasets with one value per site (names in HDF5's link order: by name). */
static herr_t extra_cb(hid_t g, const char *name, const H5L_info_t *info, void *op) {
  (void)info;
  void **a = op;
  idata *x = a[0];
  const char *grp = a[1];
  ictx *c = a[2];
  if (x->n_extra >= 64) return 0;
  char p[96];
  snprintf(p, sizeof p, "/%s/%s", grp, name);
  if (sp_h5_rows(c->f, p) != x->n_sites) return 0;
  hid_t d = H5Dopen2(g, name, H5P_DEFAULT);
  if (d < 0) return 0;
  hid_t s = H5Dget_space(d);
  int nd = s >= 0 ? H5Sget_simple_extent_ndims(s) : 0;
  if (s >= 0) H5Sclose(s);
  H5Dclose(d);
  if (nd != 1) return 0;
  iextra *e = &x->extra[x->n_extra++];
  snprintf(e->name, sizeof e->name, "%s", p);
  snprintf(e->header, sizeof e->header, "%s_%s", strcmp(grp, "splits") ? "cluster" : "split", name);
  return 0;
}

static int load_extra(ictx *c, idata *x) {
  static const char *const groups[2] = {"clusters", "splits"};
  for (int g = 0; g < 2; g++) {
    char p[16];
    snprintf(p, sizeof p, "/%s", groups[g]);
    if (H5Lexists(c->f, p, H5P_DEFAULT) <= 0) continue;
    hid_t gid = H5Gopen2(c->f, p, H5P_DEFAULT);
    if (gid < 0) continue;
    void *a[3] = {x, (void *)groups[g], c};
    H5Literate(gid, H5_INDEX_NAME, H5_ITER_INC, NULL, extra_cb, a);
    H5Gclose(gid);
  }
  for (int k = 0; k < x->n_extra; k++) {
    int rc = read_num(c, x->extra[k].name, x->n_sites, &x->extra[k].num);
    if (rc) return rc;
  }
  return 0;
}

static int load(ictx *c, idata *x) {
  x->n_sites = sp_h5_rows(c->f, "/sites/ligand_idx");
  x->n_res = sp_h5_rows(c->f, "/residues/kind");
  x->n_ix = sp_h5_rows(c->f, "/interactions/type");
  int64_t n_lig = sp_h5_rows(c->f, "/ligands/comp_id"), n_st = sp_h5_rows(c->f, "/structures/path");
  if (x->n_sites < 0 || x->n_res < 0 || x->n_ix < 0 || n_lig < 0 || n_st < 0)
    return sp_err_set(c->err, SP_E_FORMAT, "%s: not a merged sitepack file (missing tables)", c->path);
  for (int k = 0; k < N_FIXED; k++) {
    icol *q = &x->col[k];
    char p[64];
    snprintf(p, sizeof p, "/%s/%s", q->group, q->name);
    int64_t n = q->table == 0 ? x->n_sites : q->table == 1 ? n_lig : n_st;
    int rc = q->text ? read_str(c, p, n, &q->str, &q->width) : read_num(c, p, n, &q->num);
    if (rc) return rc;
  }
  int rc = read_num(c, "/sites/ligand_idx", x->n_sites, &x->s_lig);
  if (!rc) rc = read_num(c, "/sites/structure_idx", x->n_sites, &x->s_st);
  if (!rc) rc = read_num(c, "/sites/residue_ptr", x->n_sites + 1, &x->rptr);
  if (!rc) rc = read_num(c, "/sites/interaction_ptr", x->n_sites + 1, &x->xptr);
  if (!rc) rc = read_num(c, "/residues/kind", x->n_res, &x->r_kind);
  if (!rc) rc = read_num(c, "/residues/auth_seq_id", x->n_res, &x->r_seq);
  if (!rc) rc = read_num(c, "/interactions/type", x->n_ix, &x->x_type);
  if (!rc) rc = read_str(c, "/residues/auth_asym_id", x->n_res, &x->r_chain, &x->w_chain);
  if (!rc) rc = read_str(c, "/residues/comp_id", x->n_res, &x->r_comp, &x->w_comp);
  if (!rc) rc = read_str(c, "/residues/ins_code", x->n_res, &x->r_ins, &x->w_ins);
  if (!rc && H5Lexists(c->f, "/residues/symop", H5P_DEFAULT) > 0)
    rc = read_str(c, "/residues/symop", x->n_res, &x->r_sym, &x->w_sym);
  if (!rc && H5Lexists(c->f, "/residues/assembly_op", H5P_DEFAULT) > 0)
    rc = read_str(c, "/residues/assembly_op", x->n_res, &x->r_asm, &x->w_asm);
  if (!rc) rc = load_extra(c, x);
  return rc;
}

static void put_header(FILE *o, const idata *x, char sep) {
  fputs("site_idx", o);
  for (int k = 0; k < N_FIXED; k++) fprintf(o, "%c%s", sep, x->col[k].header);
  for (int t = 1; t <= 9; t++) fprintf(o, "%cix_%s", sep, sp_ix_type_name(t));
  fprintf(o, "%cpocket_residues", sep);
  for (int k = 0; k < x->n_extra; k++) fprintf(o, "%c%s", sep, x->extra[k].header);
  fputc('\n', o);
}

/* The site's polymer residues (kind 1), "CHAIN:COMP:SEQ[INS]" space-separated, as `dump sites` lists them: a
 * symmetry mate's with "@SYMOP" appended, an assembly copy's with "~OP". */
static void put_pocket(FILE *o, const idata *x, int64_t i, char sep) {
  size_t cap = 256, len = 0;
  char *buf = malloc(cap);
  if (!buf) return;
  buf[0] = 0;
  for (int64_t r = (int64_t)x->rptr[i]; r < (int64_t)x->rptr[i + 1]; r++) {
    if (x->r_kind[r] != SP_RES_KIND_POLYMER) continue;
    char one[160];
    const char *sym = x->r_sym ? x->r_sym + (size_t)r * x->w_sym : "", *as = x->r_asm ? x->r_asm + (size_t)r * x->w_asm : "";
    int ns = x->r_sym ? (int)strnlen(sym, x->w_sym) : 0, na = x->r_asm ? (int)strnlen(as, x->w_asm) : 0;
    int n = snprintf(one, sizeof one, "%s%.*s:%.*s:%.0f%.*s%s%.*s%s%.*s", len ? " " : "", (int)x->w_chain,
                     x->r_chain + (size_t)r * x->w_chain, (int)x->w_comp, x->r_comp + (size_t)r * x->w_comp,
                     x->r_seq[r], (int)x->w_ins, x->r_ins + (size_t)r * x->w_ins, ns ? "@" : "", ns, sym,
                     na ? "~" : "", na, as);
    if (n < 0) continue;
    if (len + (size_t)n + 1 > cap) {
      char *nb = realloc(buf, 2 * (len + (size_t)n + 1));
      if (!nb) break;
      buf = nb, cap = 2 * (len + (size_t)n + 1);
    }
    memcpy(buf + len, one, (size_t)n + 1);
    len += (size_t)n;
  }
  put_text(o, buf, len, sep);
  free(buf);
}

static void put_row(FILE *o, const idata *x, int64_t i, char sep) {
  int64_t li = (int64_t)x->s_lig[i], si = (int64_t)x->s_st[i];
  fprintf(o, "%lld", (long long)i);
  for (int k = 0; k < N_FIXED; k++) {
    const icol *q = &x->col[k];
    int64_t r = q->table == 0 ? i : q->table == 1 ? li : si;
    fputc(sep, o);
    if (q->text) put_text(o, q->str + (size_t)r * q->width, q->width, sep);
    else put_num(o, q->num[r], q->seq);
  }
  int64_t by[10] = {0};
  for (int64_t k = (int64_t)x->xptr[i]; k < (int64_t)x->xptr[i + 1]; k++) {
    int t = (int)x->x_type[k];
    if (t >= 1 && t <= 9) by[t]++;
  }
  for (int t = 1; t <= 9; t++) fprintf(o, "%c%lld", sep, (long long)by[t]);
  fputc(sep, o);
  put_pocket(o, x, i, sep);
  for (int k = 0; k < x->n_extra; k++) {
    fputc(sep, o);
    put_num(o, x->extra[k].num[i], 0);
  }
  fputc('\n', o);
}

static void free_data(idata *x) {
  for (int k = 0; k < N_FIXED; k++) free(x->col[k].num), free(x->col[k].str);
  free(x->s_lig), free(x->s_st), free(x->rptr), free(x->xptr), free(x->r_kind), free(x->r_seq), free(x->x_type);
  free(x->r_chain), free(x->r_comp), free(x->r_ins), free(x->r_sym), free(x->r_asm);
  for (int k = 0; k < x->n_extra; k++) free(x->extra[k].num);
}

int sp_dump_index(const char *h5_path, FILE *out, char sep, sp_err *err) {
  if (!h5_path || !out || (sep != '\t' && sep != ','))
    return sp_err_set(err, SP_E_INVALID, "sp_dump_index: NULL argument or a separator other than tab and comma");
  sp_h5_quiet q;
  sp_h5_quiet_begin(&q);
  ictx c = {-1, h5_path, err, sep};
  idata x;
  memset(&x, 0, sizeof x);
  memcpy(x.col, fixed_tmpl, sizeof x.col);
  int64_t ver = 0;
  int rc = sp_h5_open_merged(h5_path, &c.f, &ver, NULL, err); /* one diagnosis for all readers (h5util.h) */
  if (!rc && ver < 6)
    rc = sp_err_set(err, SP_E_NOT_FOUND, "%s: format version %lld has no index columns (descriptors and quality: "
                    "version 6; docs/format.md \"Versions\")", h5_path, (long long)ver);
  if (!rc) rc = load(&c, &x);
  if (!rc) {
    put_header(out, &x, sep);
    for (int64_t i = 0; i < x.n_sites; i++) put_row(out, &x, i, sep);
    if (fflush(out) != 0 || ferror(out)) rc = sp_err_set(err, SP_E_IO, "writing the index of %s failed", h5_path);
  }
  free_data(&x);
  if (c.f >= 0) H5Fclose(c.f);
  H5Eclear2(H5E_DEFAULT);
  sp_h5_quiet_end(&q);
  return rc;
}

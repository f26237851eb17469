/* Entry metadata of an mmCIF file beyond the atoms (mmcif.h sp_mmcif_read; docs/format.md "/chains",
 * "/structures"): canonical one-letter sequences, reference-database segments, refinement R factors,
 * deposition and release dates, the first biological assembly. Every value is optional: a missing or
 * unreadable item leaves its field empty / NAN and never fails the file. */
#include "cif_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sitepack/model.h"

static const sp_cif_value *cellv(const sp_cif_doc *d, const sp_cif_category *cat, int col, uint32_t row) {
  if (!cat || col < 0 || row >= cat->n_rows) return NULL;
  return sp_cif_cell(d, cat, (uint32_t)col, row);
}

static sp_sv cellsv(const sp_cif_doc *d, const sp_cif_category *cat, int col, uint32_t row) {
  const sp_cif_value *v = cellv(d, cat, col, row);
  sp_sv e = {"", 0};
  return v ? sp_cif_sv(v) : e;
}

static int32_t cellint(const sp_cif_doc *d, const sp_cif_category *cat, int col, uint32_t row) {
  const sp_cif_value *v = cellv(d, cat, col, row);
  int32_t x;
  if (!v || sp_cif_is_null(v) || !sp_cif_parse_int(v->p, v->n, &x)) return SP_SEQ_NONE;
  return x;
}

static char cellchar(const sp_cif_doc *d, const sp_cif_category *cat, int col, uint32_t row) {
  sp_sv v = cellsv(d, cat, col, row);
  return v.n ? v.p[0] : '\0';
}

static bool sv_same(sp_sv a, sp_sv b) { return a.n == b.n && (a.n == 0 || !memcmp(a.p, b.p, a.n)); }

/* ---- _entity_poly.pdbx_seq_one_letter_code_can ---- */

static int read_can(const sp_cif_doc *d, const sp_cif_block *b, sp_structure *s, sp_err *err) {
  const sp_cif_category *poly = sp_cif_find_category(d, b, "_entity_poly");
  int c_id = sp_cif_col(d, poly, "entity_id"), c_can = sp_cif_col(d, poly, "pdbx_seq_one_letter_code_can");
  if (c_id < 0 || c_can < 0) return 0;
  for (uint32_t row = 0; row < poly->n_rows; ++row) {
    sp_sv id = cellsv(d, poly, c_id, row), can = cellsv(d, poly, c_can, row);
    for (size_t e = 0; e < s->n_entities && can.n; ++e) {
      if (!sp_sv_eq(id, s->entities[e].id) || s->entities[e].can_len) continue;
      int rc = sp_structure_add_can(s, e, can.p, can.n, err);
      if (rc) return rc;
      break;
    }
  }
  return 0;
}

/* ---- _struct_ref + _struct_ref_seq ---- */

typedef struct ref_cols {
  const sp_cif_category *ref, *seq;
  int r_id, r_db, r_code, r_acc, r_ent;
  int q_ref, q_strand, q_acc, q_beg, q_end, q_dbeg, q_dend, q_abeg, q_aend, q_ibeg, q_iend;
} ref_cols;

static void ref_cols_of(const sp_cif_doc *d, const sp_cif_block *b, ref_cols *c) {
  c->ref = sp_cif_find_category(d, b, "_struct_ref");
  c->seq = sp_cif_find_category(d, b, "_struct_ref_seq");
  c->r_id = sp_cif_col(d, c->ref, "id"), c->r_db = sp_cif_col(d, c->ref, "db_name");
  c->r_code = sp_cif_col(d, c->ref, "db_code"), c->r_acc = sp_cif_col(d, c->ref, "pdbx_db_accession");
  c->r_ent = sp_cif_col(d, c->ref, "entity_id");
  c->q_ref = sp_cif_col(d, c->seq, "ref_id"), c->q_strand = sp_cif_col(d, c->seq, "pdbx_strand_id");
  c->q_acc = sp_cif_col(d, c->seq, "pdbx_db_accession");
  c->q_beg = sp_cif_col(d, c->seq, "seq_align_beg"), c->q_end = sp_cif_col(d, c->seq, "seq_align_end");
  c->q_dbeg = sp_cif_col(d, c->seq, "db_align_beg"), c->q_dend = sp_cif_col(d, c->seq, "db_align_end");
  c->q_abeg = sp_cif_col(d, c->seq, "pdbx_auth_seq_align_beg");
  c->q_aend = sp_cif_col(d, c->seq, "pdbx_auth_seq_align_end");
  c->q_ibeg = sp_cif_col(d, c->seq, "pdbx_seq_align_beg_ins_code");
  c->q_iend = sp_cif_col(d, c->seq, "pdbx_seq_align_end_ins_code");
}

static int read_dbrefs(const sp_cif_doc *d, const sp_cif_block *b, sp_structure *s, sp_err *err) {
  ref_cols c;
  ref_cols_of(d, b, &c);
  if (!c.ref || !c.seq || c.r_id < 0 || c.q_ref < 0) return 0;
  for (uint32_t row = 0; row < c.seq->n_rows; ++row) {
    sp_sv ref_id = cellsv(d, c.seq, c.q_ref, row);
    uint32_t k = 0;
    while (k < c.ref->n_rows && !sv_same(cellsv(d, c.ref, c.r_id, k), ref_id)) k++;
    if (k == c.ref->n_rows) {
      sp_structure_warn(s, "_struct_ref_seq row %u: ref_id '%.*s' is not in _struct_ref; segment ignored", row + 1,
                        (int)(ref_id.n > 20 ? 20 : ref_id.n), ref_id.p);
      continue;
    }
    sp_dbref r;
    memset(&r, 0, sizeof r);
    sp_sv_copy(r.auth_asym_id, sizeof r.auth_asym_id, cellsv(d, c.seq, c.q_strand, row));
    sp_sv_copy(r.entity_id, sizeof r.entity_id, cellsv(d, c.ref, c.r_ent, k));
    sp_sv_copy(r.db_name, sizeof r.db_name, cellsv(d, c.ref, c.r_db, k));
    sp_sv acc = cellsv(d, c.seq, c.q_acc, row);
    if (!acc.n) acc = cellsv(d, c.ref, c.r_acc, k);
    if (sp_sv_copy(r.db_accession, sizeof r.db_accession, acc))
      sp_structure_warn(s, "_struct_ref_seq row %u: accession longer than %zu characters, cut", row + 1,
                        sizeof r.db_accession - 1);
    sp_sv_copy(r.db_code, sizeof r.db_code, cellsv(d, c.ref, c.r_code, k));
    r.seq_begin = cellint(d, c.seq, c.q_beg, row), r.seq_end = cellint(d, c.seq, c.q_end, row);
    r.db_begin = cellint(d, c.seq, c.q_dbeg, row), r.db_end = cellint(d, c.seq, c.q_dend, row);
    r.auth_begin = cellint(d, c.seq, c.q_abeg, row), r.auth_end = cellint(d, c.seq, c.q_aend, row);
    r.ins_begin = cellchar(d, c.seq, c.q_ibeg, row), r.ins_end = cellchar(d, c.seq, c.q_iend, row);
    int rc = sp_structure_add_dbref(s, &r, err);
    if (rc) return rc;
  }
  return 0;
}

/* ---- _refine, dates ---- */

static float first_float(const sp_cif_doc *d, const sp_cif_block *b, const char *tag) {
  const sp_cif_value *v = sp_cif_find_value(d, b, tag, 0);
  double x;
  if (!v || sp_cif_is_null(v) || !sp_cif_parse_double(v->p, v->n, &x) || !isfinite(x)) return NAN;
  return (float)x;
}

/* A date "YYYY-MM-DD" (as mmCIF writes it; a time after it is dropped) into out[12]; "" when not one. */
static void copy_date(char out[12], const sp_cif_value *v) {
  memset(out, 0, 12);
  if (!v || sp_cif_is_null(v) || v->n < 10) return;
  for (int i = 0; i < 10; i++) {
    char ch = v->p[i];
    if ((i == 4 || i == 7) ? ch != '-' : (ch < '0' || ch > '9')) return;
  }
  memcpy(out, v->p, 10);
  out[10] = 0;
}

static void read_dates(const sp_cif_doc *d, const sp_cif_block *b, sp_structure *s) {
  copy_date(s->deposition_date, sp_cif_find_value(d, b, "_pdbx_database_status.recvd_initial_deposition_date", 0));
  if (!s->deposition_date[0]) copy_date(s->deposition_date, sp_cif_find_value(d, b, "_database_PDB_rev.date_original", 0));
  /* release: the revision with ordinal 1 (the first row when no ordinal), else _database_PDB_rev num 1 */
  const sp_cif_category *h = sp_cif_find_category(d, b, "_pdbx_audit_revision_history");
  int c_ord = sp_cif_col(d, h, "ordinal"), c_date = sp_cif_col(d, h, "revision_date");
  if (h && c_date >= 0 && h->n_rows) {
    uint32_t first = 0;
    for (uint32_t row = 0; c_ord >= 0 && row < h->n_rows; ++row)
      if (cellint(d, h, c_ord, row) == 1) {
        first = row;
        break;
      }
    copy_date(s->release_date, cellv(d, h, c_date, first));
  }
  const sp_cif_category *r = sp_cif_find_category(d, b, "_database_PDB_rev");
  int r_num = sp_cif_col(d, r, "num"), r_date = sp_cif_col(d, r, "date");
  for (uint32_t row = 0; r && r_date >= 0 && row < r->n_rows && !s->release_date[0]; ++row)
    if (r_num < 0 || cellint(d, r, r_num, row) == 1) copy_date(s->release_date, cellv(d, r, r_date, row));
}

static void read_quality(const sp_cif_doc *d, const sp_cif_block *b, sp_structure *s) {
  s->r_work = first_float(d, b, "_refine.ls_R_factor_R_work");
  if (isnan(s->r_work)) s->r_work = first_float(d, b, "_refine.ls_R_factor_obs");
  s->r_free = first_float(d, b, "_refine.ls_R_factor_R_free");
  read_dates(d, b, s);
}

/* ---- the first assembly: _pdbx_struct_assembly_gen, _pdbx_struct_oper_list ---- */

/* The operator of _pdbx_struct_oper_list with id @p id (text of n bytes); -1 when absent. */
static int find_oper(const sp_cif_doc *d, const sp_cif_category *ol, int c_id, const char *id, size_t n) {
  sp_sv want = {id, n};
  for (uint32_t row = 0; ol && row < ol->n_rows; ++row)
    if (sv_same(cellsv(d, ol, c_id, row), want)) return (int)row;
  return -1;
}

static bool oper_of(const sp_cif_doc *d, const sp_cif_category *ol, uint32_t row, sp_asm_oper *op) {
  memset(op, 0, sizeof *op);
  sp_sv_copy(op->id, sizeof op->id, cellsv(d, ol, sp_cif_col(d, ol, "id"), row));
  char item[32];
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 4; j++) {
      if (j < 3) snprintf(item, sizeof item, "matrix[%d][%d]", i + 1, j + 1);
      else snprintf(item, sizeof item, "vector[%d]", i + 1);
      const sp_cif_value *v = cellv(d, ol, sp_cif_col(d, ol, item), row);
      double x;
      if (!v || sp_cif_is_null(v) || !sp_cif_parse_double(v->p, v->n, &x) || !isfinite(x)) return false;
      if (j < 3) op->rot[i][j] = x;
      else op->trn[i] = x;
    }
  return true;
}

/* One parenthesised group of an oper_expression ("1,2,5-8" or "X0") as operator rows of the list. */
static int group_ops(const sp_cif_doc *d, const sp_cif_category *ol, int c_id, const char *p, size_t n, int *rows,
                     int cap) {
  int k = 0;
  size_t i = 0;
  while (i < n) {
    size_t j = i;
    while (j < n && p[j] != ',') j++;
    const char *dash = memchr(p + i, '-', j - i);
    int32_t lo, hi;
    if (dash && dash > p + i && sp_cif_parse_int(p + i, (size_t)(dash - p - i), &lo) &&
        sp_cif_parse_int(dash + 1, (size_t)(p + j - dash - 1), &hi) && lo <= hi && hi - lo < 100000) {
      for (int32_t x = lo; x <= hi; x++) {
        char buf[16];
        int m = snprintf(buf, sizeof buf, "%d", x);
        int r = find_oper(d, ol, c_id, buf, (size_t)m);
        if (r < 0 || k >= cap) return -1;
        rows[k++] = r;
      }
    } else {
      int r = find_oper(d, ol, c_id, p + i, j - i);
      if (r < 0 || k >= cap) return -1;
      rows[k++] = r;
    }
    i = j + 1;
  }
  return k;
}

/* a x b: apply b first, then a (the order an oper_expression "(a)(b)" is written in) */
static void compose(const sp_asm_oper *a, const sp_asm_oper *b, sp_asm_oper *out) {
  sp_asm_oper o;
  memset(&o, 0, sizeof o);
  snprintf(o.id, sizeof o.id, "%.7sx%.7s", a->id, b->id);
  for (int i = 0; i < 3; i++) {
    for (int j = 0; j < 3; j++)
      for (int k = 0; k < 3; k++) o.rot[i][j] += a->rot[i][k] * b->rot[k][j];
    o.trn[i] = a->trn[i];
    for (int k = 0; k < 3; k++) o.trn[i] += a->rot[i][k] * b->trn[k];
  }
  *out = o;
}

#define SP_ASM_MAX_OPS 4096 /* operators of one generator (icosahedral capsids: 60; 1M17-like: 1,680) */

/* Expand one oper_expression into operators appended to s->asm_ops; the count, or -1 when it names an
 * operator that is not in the list or is unreadable (a warning, no assembly). */
static int expand_expr(const sp_cif_doc *d, const sp_cif_category *ol, sp_sv ex, sp_structure *s, sp_err *err) {
  int c_id = sp_cif_col(d, ol, "id");
  const char *p = ex.p, *end = ex.p + ex.n;
  const char *g1 = p, *g1e = end, *g2 = NULL, *g2e = NULL;
  if (p < end && *p == '(') {
    g1 = p + 1;
    g1e = memchr(g1, ')', (size_t)(end - g1));
    if (!g1e) return -1;
    if (g1e + 1 < end && g1e[1] == '(') {
      g2 = g1e + 2;
      g2e = memchr(g2, ')', (size_t)(end - g2));
      if (!g2e) return -1;
    }
  }
  int *rows_a = malloc(2 * SP_ASM_MAX_OPS * sizeof *rows_a);
  if (!rows_a) return sp_err_set(err, SP_E_NOMEM, "out of memory (assembly)"), -2;
  int *rows_b = rows_a + SP_ASM_MAX_OPS, rc = 0;
  int na = group_ops(d, ol, c_id, g1, (size_t)(g1e - g1), rows_a, SP_ASM_MAX_OPS);
  int nb = g2 ? group_ops(d, ol, c_id, g2, (size_t)(g2e - g2), rows_b, SP_ASM_MAX_OPS) : 1;
  if (na <= 0 || nb <= 0 || (long)na * nb > SP_ASM_MAX_OPS) rc = -1;
  for (int i = 0; i < na && !rc; i++) {
    sp_asm_oper a, bo;
    if (!oper_of(d, ol, (uint32_t)rows_a[i], &a)) rc = -1;
    for (int j = 0; j < nb && !rc; j++) {
      sp_asm_oper o = a;
      if (g2 && !oper_of(d, ol, (uint32_t)rows_b[j], &bo)) rc = -1;
      else if (g2) compose(&a, &bo, &o);
      if (!rc && sp_structure_add_asm_oper(s, &o, err)) rc = -2;
    }
  }
  free(rows_a);
  return rc ? rc : na * nb;
}

static int read_assembly(const sp_cif_doc *d, const sp_cif_block *b, sp_structure *s, sp_err *err) {
  const sp_cif_category *gen = sp_cif_find_category(d, b, "_pdbx_struct_assembly_gen");
  const sp_cif_category *ol = sp_cif_find_category(d, b, "_pdbx_struct_oper_list");
  int g_asm = sp_cif_col(d, gen, "assembly_id"), g_expr = sp_cif_col(d, gen, "oper_expression");
  int g_asym = sp_cif_col(d, gen, "asym_id_list");
  if (!gen || !ol || g_asm < 0 || g_expr < 0 || g_asym < 0) return 0;
  /* the first assembly: the one of _pdbx_struct_assembly's first row, else of the first generator */
  const sp_cif_value *first = sp_cif_find_value(d, b, "_pdbx_struct_assembly.id", 0);
  sp_sv asm_id = first && !sp_cif_is_null(first) ? sp_cif_sv(first) : cellsv(d, gen, g_asm, 0);
  for (uint32_t row = 0; row < gen->n_rows; ++row) {
    if (!sv_same(cellsv(d, gen, g_asm, row), asm_id)) continue;
    sp_asm_gen g;
    memset(&g, 0, sizeof g);
    sp_sv chains = cellsv(d, gen, g_asym, row);
    char tmp[1024];
    snprintf(tmp, sizeof tmp, "%.*s", (int)(chains.n > 1000 ? 1000 : chains.n), chains.p);
    if (sp_text_fit(g.chains, sizeof g.chains, tmp))
      sp_structure_warn(s, "_pdbx_struct_assembly_gen row %u: asym_id_list longer than %zu characters; the "
                        "assembly holds the chains listed first", row + 1, sizeof g.chains - 4);
    g.by_label = 1;
    g.first_op = (uint32_t)s->n_asm_ops;
    int n = expand_expr(d, ol, cellsv(d, gen, g_expr, row), s, err);
    if (n == -2) return SP_E_NOMEM;
    if (n < 0) {
      sp_sv ex = cellsv(d, gen, g_expr, row);
      sp_structure_warn(s, "_pdbx_struct_assembly_gen row %u: oper_expression '%.*s' names an operator that is "
                        "absent or unreadable in _pdbx_struct_oper_list; no assembly", row + 1,
                        (int)(ex.n > 40 ? 40 : ex.n), ex.p);
      s->n_asm_gens = s->n_asm_ops = 0;
      return 0;
    }
    g.n_ops = (uint32_t)n;
    int rc = sp_structure_add_asm_gen(s, &g, err);
    if (rc) return rc;
  }
  return 0;
}

int sp_mmcif_read_context(const sp_cif_doc *d, const sp_cif_block *b, sp_structure *s, sp_err *err) {
  int rc = read_can(d, b, s, err);
  if (!rc) rc = read_dbrefs(d, b, s, err);
  if (!rc) read_quality(d, b, s);
  if (!rc) rc = read_assembly(d, b, s, err);
  return rc;
}

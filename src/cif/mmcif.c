/* PDBx/mmCIF structure reader: see include/sitepack/mmcif.h. */
#include "sitepack/mmcif.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cif_internal.h"
#include "sitepack/base.h"
#include "sitepack/model_inline.h"
#include "sitepack/cif.h"
#include "sitepack/elements.h"
#include "sitepack/symop.h"

#define SHOWN(n) ((int)((n) > 40 ? 40 : (n)))

uint8_t sp_cif_bond_order(const sp_cif_value *v, uint8_t *aromatic) {
  if (sp_cif_is_null(v) || v->n < 4) return 4;
  char w[5];
  for (int i = 0; i < 4; ++i) w[i] = (char)toupper((unsigned char)v->p[i]);
  w[4] = 0;
  if (!strcmp(w, "SING")) return 1;
  if (!strcmp(w, "DOUB")) return 2;
  if (!strcmp(w, "TRIP")) return 3;
  if (!strcmp(w, "AROM")) {
    *aromatic = 1;
    return 4;
  }
  return 4;
}

/* ------------------------------------------------------------ small helpers */

typedef struct rowctx {
  const sp_cif_doc *d;
  const sp_cif_category *cat;
  uint32_t row;
  const sp_cif_value *base; /* loops: the row's first value (columns are contiguous); NULL otherwise */
} rowctx;

/* value of column ci in the current row, NULL when the column is absent */
static inline const sp_cif_value *cell(const rowctx *r, int ci) {
  if (ci < 0) return NULL;
  return r->base ? r->base + ci : sp_cif_cell(r->d, r->cat, (uint32_t)ci, r->row);
}

static inline sp_sv cell_sv(const rowctx *r, int ci) {
  const sp_cif_value *v = cell(r, ci);
  if (!v) {
    sp_sv e = {"", 0};
    return e;
  }
  return sp_cif_sv(v);
}

static void copy_cell(char *dst, size_t cap, const rowctx *r, int ci) {
  sp_sv_copy(dst, cap, cell_sv(r, ci));
}

/* sp_cif_parse_int with an inline fast path for the common case: an optional '-' and 1 to 9
 * digits (always fits int32); anything else goes to sp_cif_parse_int. */
static inline bool parse_int_fast(const char *p, size_t n, int32_t *out) {
  size_t i = n && p[0] == '-';
  if (n - i >= 1 && n - i <= 9) {
    int32_t v = 0;
    for (size_t k = i; k < n; ++k) {
      unsigned dg = (unsigned)(p[k] - '0');
      if (dg > 9) return false;
      v = v * 10 + (int32_t)dg;
    }
    *out = i ? -v : v;
    return true;
  }
  return sp_cif_parse_int(p, n, out);
}

/* integer or SP_SEQ_NONE for nulls/absent; returns false on a non-integer value */
static inline bool cell_seq(const rowctx *r, int ci, int32_t *out) {
  const sp_cif_value *v = cell(r, ci);
  if (!v || sp_cif_is_null(v)) {
    *out = SP_SEQ_NONE;
    return true;
  }
  return parse_int_fast(v->p, v->n, out);
}

/* cell_seq on a value (absent columns: k_absent, a null) */
static inline bool seq_of(const sp_cif_value *v, int32_t *out) {
  if (sp_cif_is_null(v)) {
    *out = SP_SEQ_NONE;
    return true;
  }
  return parse_int_fast(v->p, v->n, out);
}

/* The alt id or insertion code of an _atom_site row (null, empty or blank: none); a value that is not one ASCII character goes
 * to the column's map (cif_internal.h sp_cif_char_map: its own character, chosen after the rows) */
static inline char char_id(sp_cif_char_map *m, const sp_cif_value *v) {
  if (sp_cif_is_null(v) || v->n == 0 || v->p[0] == ' ') return '\0';
  if (v->n == 1 && (unsigned char)v->p[0] < 0x80) return v->p[0];
  return sp_cif_char_map_code(m, sp_cif_sv(v));
}

/* Element by symbol with a small cache keyed on two letters. */
typedef struct elem_cache {
  int16_t z[27 * 27];
} elem_cache;

/* toupper of the C locale (the library never sets another), without the call */
static inline unsigned ascii_upper(unsigned char ch) { return (unsigned)(ch - 'a') < 26u ? ch - 32u : ch; }

static inline uint8_t elem_lookup(elem_cache *c, const char *p, size_t n) {
  if (n == 0 || n > 2) return sp_element_from_symbol(p, n);
  unsigned a = ascii_upper((unsigned char)p[0]) - 'A';
  unsigned b = n == 2 ? ascii_upper((unsigned char)p[1]) - 'A' + 1 : 0;
  if (a >= 26 || b > 26) return sp_element_from_symbol(p, n);
  int16_t *slot = &c->z[a * 27 + b];
  if (*slot < 0) *slot = sp_element_from_symbol(p, n);
  return (uint8_t)*slot;
}

/* Element from an atom name (PDBx names carry no column alignment). */
static uint8_t elem_from_name(elem_cache *c, sp_sv name, sp_sv comp) {
  size_t i = 0;
  while (i < name.n && isdigit((unsigned char)name.p[i])) ++i;
  size_t nl = 0;
  while (i + nl < name.n && isalpha((unsigned char)name.p[i + nl])) ++nl;
  if (nl == 0) return 0;
  const char *s = name.p + i;
  if (nl >= 2 && i == 0 && name.n == comp.n && !strncasecmp(name.p, comp.p, comp.n) && name.n <= 2) {
    uint8_t z = elem_lookup(c, s, 2);
    if (z) return z;
  }
  uint8_t z = elem_lookup(c, s, 1);
  if (z) return z;
  return nl >= 2 ? elem_lookup(c, s, 2) : 0;
}

static bool first_number(const sp_cif_doc *d, const sp_cif_block *b, const char *tag, float *out) {
  for (uint32_t row = 0;; ++row) {
    const sp_cif_value *v = sp_cif_find_value(d, b, tag, row);
    if (!v) return false;
    double x;
    if (!sp_cif_is_null(v) && sp_cif_parse_double(v->p, v->n, &x)) {
      *out = (float)x;
      return true;
    }
  }
}

/* ------------------------------------------------------------ atoms */

/* _atom_site is read row by row as the tokenizer finds the rows (sp_cif_stream), so that its
 * values are converted while they are in the L1 cache and never stored; a file whose first
 * _atom_site is a run of pair items (one atom) goes through the same two functions from the
 * document. Absent columns read as a null value, which every field treats as absent. */
static const sp_cif_value k_absent = {"", 0, SP_CIF_UNKNOWN};

/* The last value of a column whose values repeat (occupancy: nearly always "1.00"): a value
 * with the same bytes (at most 8) has the same float. */
typedef struct float_cache {
  uint64_t word; /* its bytes, zero-padded */
  uint32_t n;    /* its length, 0 = empty */
  float value;
} float_cache;

static inline bool float_cached(float_cache *c, const sp_cif_value *v, const char *end, float *out) {
  if (v->kind != SP_CIF_PLAIN || v->n - 1 >= 8 || v->p + 8 > end) return sp_cif_float(v, end, out);
  uint64_t w;
  memcpy(&w, v->p, 8);
  w &= ~0ull >> (64 - 8 * v->n);
  if (v->n == c->n && w == c->word) {
    *out = c->value;
    return true;
  }
  if (!sp_cif_float(v, end, out)) return false;
  c->word = w;
  c->n = v->n;
  c->value = *out;
  return true;
}

/* Columns a row can do without (issue 20): an unreadable value is a warning and a stand-in
 * value for that atom, not a failed file (docs/format.md, "Unreadable values in the input files"). */
enum { SOFT_OCC, SOFT_B, SOFT_CHARGE, N_SOFT };
static const char *const k_soft_item[N_SOFT] = {"occupancy", "B_iso_or_equiv", "pdbx_formal_charge"};
static const char *const k_soft_taken[N_SOFT] = {"1.0", "NaN", "0"};

typedef struct atom_reader {
  const sp_cif_doc *d;
  sp_cif_stream *st; /* the stream when streamed (begin may choose its row function) */
  const char *end; /* end of the text (sp_cif_float reads 8 bytes where they lie before it) */
  sp_structure *s;
  sp_err err;   /* the first error of begin/row (reported after the parse) */
  int c_group, c_id, c_type, c_latom, c_aatom, c_alt, c_lcomp, c_acomp, c_lasym, c_aasym, c_ent, c_lseq, c_aseq,
      c_ins, c_x, c_y, c_z, c_occ, c_b, c_chg, c_model;
  int col_rc;   /* SP_E_MISSING_ITEM found by begin (reported only if the loop has rows) */
  uint32_t row;
  float_cache occ;
  bool inferred;
  uint32_t n_unreadable[N_SOFT]; /* rows with an unreadable value, per column */
  /* cache of the last model number text */
  const char *last_model_p;
  uint32_t last_model_n;
  int32_t last_model;
  sp_atom_in a;
  elem_cache ec;
  sp_cif_char_map alt_map, ins_map; /* alt ids and insertion codes of more than one character */
} atom_reader;

/* An unreadable value of a column the row can do without: the first one of the file is a
 * warning (row, line, value, what it is taken as); the others are counted (unreadable_summary). */
static __attribute__((noinline, cold)) void unreadable(atom_reader *R, uint32_t rown, int c, const sp_cif_value *v) {
  if (!R->n_unreadable[c]++)
    sp_structure_warn(R->s, "_atom_site row %u (line %zu): %s '%.*s' is not readable, taken as %s", rown + 1,
                      sp_cif_line_of(R->d, v->p), k_soft_item[c], SHOWN(v->n), v->p, k_soft_taken[c]);
}

/* One warning per column whose unreadable values were more than the first one. */
static void unreadable_summary(const atom_reader *R) {
  for (int c = 0; c < N_SOFT; ++c)
    if (R->n_unreadable[c] > 1)
      sp_structure_warn(R->s, "%u _atom_site rows in all with an unreadable %s (taken as %s)", R->n_unreadable[c],
                        k_soft_item[c], k_soft_taken[c]);
}

static inline const sp_cif_value *col_of(const sp_cif_value *row, int ci) { return ci >= 0 ? row + ci : &k_absent; }

static int atoms_row_all(void *ctx, const sp_cif_value *row);

static int atoms_begin(void *ctx, const sp_cif_doc *d, const sp_cif_category *cat) {
  atom_reader *R = ctx;
  sp_structure *s = R->s;
  R->c_group = sp_cif_col(d, cat, "group_PDB"), R->c_id = sp_cif_col(d, cat, "id");
  R->c_type = sp_cif_col(d, cat, "type_symbol");
  R->c_latom = sp_cif_col(d, cat, "label_atom_id"), R->c_aatom = sp_cif_col(d, cat, "auth_atom_id");
  R->c_alt = sp_cif_col(d, cat, "label_alt_id");
  R->c_lcomp = sp_cif_col(d, cat, "label_comp_id"), R->c_acomp = sp_cif_col(d, cat, "auth_comp_id");
  R->c_lasym = sp_cif_col(d, cat, "label_asym_id"), R->c_aasym = sp_cif_col(d, cat, "auth_asym_id");
  R->c_ent = sp_cif_col(d, cat, "label_entity_id");
  R->c_lseq = sp_cif_col(d, cat, "label_seq_id"), R->c_aseq = sp_cif_col(d, cat, "auth_seq_id");
  R->c_ins = sp_cif_col(d, cat, "pdbx_PDB_ins_code");
  R->c_x = sp_cif_col(d, cat, "Cartn_x"), R->c_y = sp_cif_col(d, cat, "Cartn_y");
  R->c_z = sp_cif_col(d, cat, "Cartn_z");
  R->c_occ = sp_cif_col(d, cat, "occupancy"), R->c_b = sp_cif_col(d, cat, "B_iso_or_equiv");
  R->c_chg = sp_cif_col(d, cat, "pdbx_formal_charge"), R->c_model = sp_cif_col(d, cat, "pdbx_PDB_model_num");
  if (R->c_alt < 0) R->c_alt = sp_cif_col(d, cat, "auth_alt_id");
  /* a missing column is an error only for a loop with rows (zero rows: SP_E_NO_ATOMS first) */
  if (R->c_x < 0 || R->c_y < 0 || R->c_z < 0)
    R->col_rc = sp_err_set(&R->err, SP_E_MISSING_ITEM, "_atom_site has no %s column (line %zu)",
                           R->c_x < 0 ? "Cartn_x" : R->c_y < 0 ? "Cartn_y" : "Cartn_z", sp_cif_category_line(d, cat));
  else if (R->c_latom < 0 && R->c_aatom < 0)
    R->col_rc = sp_err_set(&R->err, SP_E_MISSING_ITEM,
                           "_atom_site has neither label_atom_id nor auth_atom_id (line %zu)",
                           sp_cif_category_line(d, cat));
  else if (R->c_lcomp < 0 && R->c_acomp < 0)
    R->col_rc = sp_err_set(&R->err, SP_E_MISSING_ITEM,
                           "_atom_site has neither label_comp_id nor auth_comp_id (line %zu)",
                           sp_cif_category_line(d, cat));
  if (R->col_rc) return R->col_rc;
  if (R->c_latom < 0) R->c_latom = R->c_aatom;
  if (R->c_lcomp < 0) R->c_lcomp = R->c_acomp;
  if (R->st && R->c_occ >= 0 && R->c_b >= 0 && R->c_model >= 0 && R->c_lseq >= 0 && R->c_aseq >= 0 && R->c_id >= 0 &&
      R->c_lasym >= 0 && R->c_aasym >= 0 && R->c_ent >= 0 && R->c_ins >= 0 && R->c_alt >= 0)
    R->st->row = atoms_row_all; /* every column present: the copy without the tests */
  s->has_label_ids = R->c_lasym >= 0 || R->c_lseq >= 0;
  s->has_auth_ids = R->c_aasym >= 0 || R->c_aseq >= 0;
  memset(R->ec.z, 0xff, sizeof R->ec.z);
  memset(&R->a, 0, sizeof R->a);
  R->last_model = 1;
  return 0;
}

/* One row. `all`: every column that col_of looks up is present (a constant at each call site, so
 * that the usual file, which has them all, gets a copy of this function without those tests). */
static inline __attribute__((always_inline)) int atoms_row_body(atom_reader *R, const sp_cif_value *row, bool all) {
#define col_of(row, ci) (all ? (row) + (ci) : col_of(row, ci))
  sp_structure *s = R->s;
  sp_atom_in *a = &R->a;
  uint32_t rown = R->row++;
  const char *what = NULL;
  const sp_cif_value *bad = NULL;
  const sp_cif_value *vx = row + R->c_x, *vy = row + R->c_y, *vz = row + R->c_z;
  a->x = a->y = a->z = 0.0f;
  const char *end = R->end;
  if (!sp_cif_float(vx, end, &a->x)) what = "Cartn_x", bad = vx;
  else if (!sp_cif_float(vy, end, &a->y)) what = "Cartn_y", bad = vy;
  else if (!sp_cif_float(vz, end, &a->z)) what = "Cartn_z", bad = vz;
  a->occupancy = 1.0f;
  a->b_iso = 0.0f;
  if (!what) {
    const sp_cif_value *v = col_of(row, R->c_occ);
    if (!sp_cif_is_null(v) && !float_cached(&R->occ, v, end, &a->occupancy))
      a->occupancy = 1.0f, unreadable(R, rown, SOFT_OCC, v);
    v = col_of(row, R->c_b);
    if (!sp_cif_is_null(v) && !sp_cif_float(v, end, &a->b_iso)) a->b_iso = NAN, unreadable(R, rown, SOFT_B, v);
  }
  a->model_num = 1;
  if (!what) {
    const sp_cif_value *v = col_of(row, R->c_model);
    if (!sp_cif_is_null(v)) {
      if (v->n == 1 && (unsigned)(v->p[0] - '0') < 10) { /* what sp_cif_parse_int gives */
        a->model_num = v->p[0] - '0';
      } else if (v->n == R->last_model_n && R->last_model_p && !memcmp(v->p, R->last_model_p, v->n)) {
        a->model_num = R->last_model;
      } else if (sp_cif_parse_int(v->p, v->n, &a->model_num)) {
        R->last_model_p = v->p;
        R->last_model_n = v->n;
        R->last_model = a->model_num;
      } else {
        what = "pdbx_PDB_model_num", bad = v;
      }
    }
  }
  if (!what) {
    const sp_cif_value *v = col_of(row, R->c_lseq);
    if (!seq_of(v, &a->label_seq_id)) what = "label_seq_id", bad = v;
  }
  if (!what) {
    const sp_cif_value *v = col_of(row, R->c_aseq);
    if (!seq_of(v, &a->auth_seq_id)) what = "auth_seq_id", bad = v;
  }
  if (what) {
    sp_sv id = sp_cif_sv(col_of(row, R->c_id));
    return sp_err_set(&R->err, SP_E_BAD_VALUE, "_atom_site row %u (id %.*s, line %zu): %s '%.*s' is not a number",
                      rown + 1, SHOWN(id.n), id.p, sp_cif_line_of(R->d, bad->p), what, SHOWN(bad->n), bad->p);
  }
  a->label_asym_id = sp_cif_sv(col_of(row, R->c_lasym));
  a->auth_asym_id = sp_cif_sv(col_of(row, R->c_aasym));
  a->entity_id = sp_cif_sv(col_of(row, R->c_ent));
  a->comp_id = sp_cif_sv(col_of(row, R->c_lcomp));
  if (!a->comp_id.n && R->c_acomp >= 0) a->comp_id = sp_cif_sv(row + R->c_acomp);
  a->atom_name = sp_cif_sv(col_of(row, R->c_latom));
  if (!a->atom_name.n && R->c_aatom >= 0) a->atom_name = sp_cif_sv(row + R->c_aatom);
  a->ins_code = char_id(&R->ins_map, col_of(row, R->c_ins));
  a->altloc = char_id(&R->alt_map, col_of(row, R->c_alt));
  a->element = 0;
  if (R->c_type >= 0) {
    sp_sv t = sp_cif_sv(row + R->c_type);
    a->element = elem_lookup(&R->ec, t.p, t.n);
  }
  a->element_from_name = !a->element;
  if (!a->element) {
    a->element = elem_from_name(&R->ec, a->atom_name, a->comp_id);
    if (a->element && !R->inferred) {
      R->inferred = true;
      sp_structure_warn(s, "elements inferred from atom names (type_symbol %s)",
                        R->c_type < 0 ? "column absent" : "blank or unknown");
    }
  }
  a->charge = 0;
  if (R->c_chg >= 0) {
    const sp_cif_value *v = row + R->c_chg;
    int32_t q;
    if (!sp_cif_is_null(v)) {
      if (sp_cif_parse_int(v->p, v->n, &q) && q >= -8 && q <= 8) a->charge = (int8_t)q;
      else unreadable(R, rown, SOFT_CHARGE, v);
    }
  }
  a->hetatm = false;
  if (R->c_group >= 0) {
    const sp_cif_value *v = row + R->c_group;
    a->hetatm = v->n == 6 && (v->p[0] == 'H' || v->p[0] == 'h') && sp_cif_value_ieq(v, "HETATM");
  }
  a->serial = 0;
  if (R->c_id >= 0) {
    const sp_cif_value *v = row + R->c_id;
    int32_t sv;
    if (!sp_cif_is_null(v) && parse_int_fast(v->p, v->n, &sv)) a->serial = sv;
  }
  return sp_structure_add_atom_inline(s, a, &R->err);
#undef col_of
}

static int atoms_row(void *ctx, const sp_cif_value *row) { return atoms_row_body(ctx, row, false); }
static int atoms_row_all(void *ctx, const sp_cif_value *row) { return atoms_row_body(ctx, row, true); }

/* _atom_site when it was not streamed (its first occurrence is a run of pair items) */
static int read_atoms_doc(atom_reader *R, const sp_cif_doc *d, const sp_cif_category *cat) {
  int rc = atoms_begin(R, d, cat);
  if (rc) return rc;
  sp_cif_value *row = malloc(((size_t)cat->n_cols + 1) * sizeof *row);
  if (!row) return sp_err_set(&R->err, SP_E_NOMEM, "out of memory (_atom_site)");
  for (uint32_t r = 0; r < cat->n_rows && !rc; ++r) {
    for (uint32_t c = 0; c < cat->n_cols; ++c) row[c] = *sp_cif_cell(d, cat, c, r);
    rc = atoms_row(R, row);
  }
  free(row);
  return rc;
}

/* ------------------------------------------------------------ entities */

static uint8_t entity_type(const sp_cif_value *v) {
  if (!v) return SP_ENT_UNKNOWN;
  if (sp_cif_value_ieq(v, "polymer")) return SP_ENT_POLYMER;
  if (sp_cif_value_ieq(v, "non-polymer")) return SP_ENT_NONPOLYMER;
  if (sp_cif_value_ieq(v, "branched")) return SP_ENT_BRANCHED;
  if (sp_cif_value_ieq(v, "water")) return SP_ENT_WATER;
  if (sp_cif_value_ieq(v, "macrolide")) return SP_ENT_MACROLIDE;
  return SP_ENT_UNKNOWN;
}

static uint8_t poly_type(const sp_cif_value *v) {
  if (!v || sp_cif_is_null(v)) return SP_POLY_NONE;
  if (sp_cif_value_ieq(v, "polypeptide(L)")) return SP_POLY_PEPTIDE_L;
  if (sp_cif_value_ieq(v, "polypeptide(D)")) return SP_POLY_PEPTIDE_D;
  if (sp_cif_value_ieq(v, "polydeoxyribonucleotide")) return SP_POLY_DNA;
  if (sp_cif_value_ieq(v, "polyribonucleotide")) return SP_POLY_RNA;
  if (sp_cif_value_ieq(v, "polydeoxyribonucleotide/polyribonucleotide hybrid")) return SP_POLY_NA_HYBRID;
  return SP_POLY_OTHER;
}

static bool sv_eq(sp_sv a, sp_sv b) { return a.n == b.n && (a.n == 0 || !memcmp(a.p, b.p, a.n)); }

static int read_entities(const sp_cif_doc *d, const sp_cif_block *b, sp_structure *s, sp_err *err) {
  const sp_cif_category *ent = sp_cif_find_category(d, b, "_entity");
  const sp_cif_category *poly = sp_cif_find_category(d, b, "_entity_poly");
  const sp_cif_category *seq = sp_cif_find_category(d, b, "_entity_poly_seq");
  int e_id = sp_cif_col(d, ent, "id"), e_type = sp_cif_col(d, ent, "type");
  int p_id = sp_cif_col(d, poly, "entity_id"), p_type = sp_cif_col(d, poly, "type");
  int p_strand = sp_cif_col(d, poly, "pdbx_strand_id");
  int q_id = sp_cif_col(d, seq, "entity_id"), q_mon = sp_cif_col(d, seq, "mon_id"), q_num = sp_cif_col(d, seq, "num");
  bool from_poly = e_id < 0; /* no _entity: entities from _entity_poly alone */
  const sp_cif_category *src = from_poly ? poly : ent;
  int src_id = from_poly ? p_id : e_id;
  if (!src || src_id < 0) return 0;
  /* runs of equal entity_id in _entity_poly_seq */
  size_t n_runs = 0, cap_runs = 0;
  struct run {
    sp_sv id;
    uint32_t first, end;
  } *runs = NULL;
  if (seq && q_id >= 0 && q_mon >= 0) {
    rowctx r = {d, seq, 0, NULL};
    for (uint32_t row = 0; row < seq->n_rows; ++row) {
      r.row = row;
      sp_sv id = cell_sv(&r, q_id);
      if (n_runs && sv_eq(runs[n_runs - 1].id, id)) {
        runs[n_runs - 1].end = row + 1;
        continue;
      }
      if (SP_GROW(runs, cap_runs, n_runs + 1)) {
        free(runs);
        return sp_err_set(err, SP_E_NOMEM, "out of memory (_entity_poly_seq)");
      }
      runs[n_runs].id = id;
      runs[n_runs].first = row;
      runs[n_runs].end = row + 1;
      n_runs++;
    }
  }
  int rc = 0;
  rowctx r = {d, src, 0, NULL};
  for (uint32_t row = 0; row < src->n_rows && !rc; ++row) {
    r.row = row;
    sp_entity e;
    memset(&e, 0, sizeof e);
    sp_sv id = cell_sv(&r, src_id);
    sp_sv_copy(e.id, sizeof e.id, id);
    e.type = from_poly ? SP_ENT_POLYMER : entity_type(cell(&r, e_type));
    if (poly && p_id >= 0) {
      rowctx pr = {d, poly, 0, NULL};
      for (uint32_t k = 0; k < poly->n_rows; ++k) {
        pr.row = k;
        if (!sv_eq(cell_sv(&pr, p_id), id)) continue;
        e.poly_type = poly_type(cell(&pr, p_type));
        copy_cell(e.strand_ids, sizeof e.strand_ids, &pr, p_strand);
        break;
      }
    }
    if ((rc = sp_structure_add_entity(s, &e, err))) break;
    rowctx qr = {d, seq, 0, NULL};
    for (size_t k = 0; k < n_runs && !rc; ++k) {
      if (!sv_eq(runs[k].id, id)) continue;
      sp_sv last_num = {NULL, 0};
      for (uint32_t q = runs[k].first; q < runs[k].end; ++q) {
        qr.row = q;
        sp_sv num = cell_sv(&qr, q_num);
        if (q_num >= 0 && last_num.p && sv_eq(num, last_num)) continue; /* microheterogeneity */
        last_num = num;
        if ((rc = sp_structure_add_seq(s, s->n_entities - 1, cell_sv(&qr, q_mon), err))) break;
      }
    }
  }
  free(runs);
  return rc;
}

/* ------------------------------------------------------------ struct_conn */

static uint8_t conn_type(const sp_cif_value *v) {
  if (!v || sp_cif_is_null(v)) return SP_CONN_OTHER;
  if (v->n >= 6 && !strncasecmp(v->p, "covale", 6)) return SP_CONN_COVALE;
  if (sp_cif_value_ieq(v, "disulf")) return SP_CONN_DISULF;
  if (sp_cif_value_ieq(v, "metalc")) return SP_CONN_METALC;
  if (sp_cif_value_ieq(v, "hydrog")) return SP_CONN_HYDROG;
  return SP_CONN_OTHER;
}

/* column indices of one partner (k = 1, 2) of _struct_conn, looked up once per category */
typedef struct conn_cols {
  int lasym, aasym, lcomp, acomp, lseq, aseq, latom, aatom, alt, ins, sym;
} conn_cols;

static void conn_cols_of(const sp_cif_doc *d, const sp_cif_category *cat, int k, conn_cols *c) {
  char name[64];
#define COL(fmt) (snprintf(name, sizeof name, fmt, k), sp_cif_col(d, cat, name))
  c->lasym = COL("ptnr%d_label_asym_id"), c->aasym = COL("ptnr%d_auth_asym_id");
  c->lcomp = COL("ptnr%d_label_comp_id"), c->acomp = COL("ptnr%d_auth_comp_id");
  c->lseq = COL("ptnr%d_label_seq_id"), c->aseq = COL("ptnr%d_auth_seq_id");
  c->latom = COL("ptnr%d_label_atom_id"), c->aatom = COL("pdbx_ptnr%d_auth_atom_id");
  c->alt = COL("pdbx_ptnr%d_label_alt_id"), c->ins = COL("pdbx_ptnr%d_PDB_ins_code");
  c->sym = COL("ptnr%d_symmetry");
#undef COL
}

static void conn_end(const conn_cols *cc, const rowctx *r, const atom_reader *R, sp_conn_end *e) {
  memset(e, 0, sizeof *e);
  copy_cell(e->label_asym_id, sizeof e->label_asym_id, r, cc->lasym);
  copy_cell(e->auth_asym_id, sizeof e->auth_asym_id, r, cc->aasym);
  if (!e->auth_asym_id[0]) memcpy(e->auth_asym_id, e->label_asym_id, sizeof e->auth_asym_id);
  sp_sv comp = cell_sv(r, cc->lcomp);
  if (!comp.n) comp = cell_sv(r, cc->acomp);
  sp_sv_copy(e->comp_id, sizeof e->comp_id, comp);
  sp_sv atom = cell_sv(r, cc->latom);
  if (!atom.n) atom = cell_sv(r, cc->aatom);
  sp_sv_copy(e->atom_name, sizeof e->atom_name, atom);
  if (!cell_seq(r, cc->lseq, &e->label_seq_id)) e->label_seq_id = SP_SEQ_NONE;
  if (!cell_seq(r, cc->aseq, &e->auth_seq_id)) e->auth_seq_id = SP_SEQ_NONE;
  e->ins_code = sp_cif_char_map_lookup(&R->ins_map, cell_sv(r, cc->ins)); /* as the atoms read it */
  e->altloc = sp_cif_char_map_lookup(&R->alt_map, cell_sv(r, cc->alt));
  copy_cell(e->symmetry, sizeof e->symmetry, r, cc->sym);
  e->atom = -1;
}

static int read_conns(const sp_cif_doc *d, const sp_cif_block *b, sp_structure *s, const atom_reader *R, sp_err *err) {
  const sp_cif_category *cat = sp_cif_find_category(d, b, "_struct_conn");
  if (!cat) return 0;
  int c_id = sp_cif_col(d, cat, "id"), c_type = sp_cif_col(d, cat, "conn_type_id");
  int c_dist = sp_cif_col(d, cat, "pdbx_dist_value");
  conn_cols c1, c2;
  conn_cols_of(d, cat, 1, &c1);
  conn_cols_of(d, cat, 2, &c2);
  rowctx r = {d, cat, 0, NULL};
  for (uint32_t row = 0; row < cat->n_rows; ++row) {
    r.row = row;
    sp_conn c;
    memset(&c, 0, sizeof c);
    c.type = conn_type(cell(&r, c_type));
    copy_cell(c.id, sizeof c.id, &r, c_id);
    c.distance = NAN;
    const sp_cif_value *v = cell(&r, c_dist);
    double x;
    if (v && !sp_cif_is_null(v) && sp_cif_parse_double(v->p, v->n, &x)) c.distance = (float)x;
    conn_end(&c1, &r, R, &c.a);
    conn_end(&c2, &r, R, &c.b);
    int rc = sp_structure_add_conn(s, &c, err);
    if (rc) return rc;
  }
  return 0;
}

/* ------------------------------------------------------------ chem_comp */

static int read_comps(const sp_cif_doc *d, const sp_cif_block *b, sp_structure *s, sp_err *err) {
  const sp_cif_category *cat = sp_cif_find_category(d, b, "_chem_comp");
  int c_id = sp_cif_col(d, cat, "id"), c_type = sp_cif_col(d, cat, "type");
  if (cat && c_id >= 0) {
    rowctx r = {d, cat, 0, NULL};
    for (uint32_t row = 0; row < cat->n_rows; ++row) {
      r.row = row;
      sp_file_comp fc;
      memset(&fc, 0, sizeof fc);
      copy_cell(fc.id, sizeof fc.id, &r, c_id);
      copy_cell(fc.type, sizeof fc.type, &r, c_type);
      int rc = sp_structure_add_file_comp(s, &fc, err);
      if (rc) return rc;
    }
  }
  cat = sp_cif_find_category(d, b, "_chem_comp_bond");
  int b_comp = sp_cif_col(d, cat, "comp_id"), b_a1 = sp_cif_col(d, cat, "atom_id_1");
  int b_a2 = sp_cif_col(d, cat, "atom_id_2"), b_ord = sp_cif_col(d, cat, "value_order");
  int b_arom = sp_cif_col(d, cat, "pdbx_aromatic_flag");
  if (b_ord < 0) b_ord = sp_cif_col(d, cat, "type");
  if (!cat || b_comp < 0 || b_a1 < 0 || b_a2 < 0) return 0;
  rowctx r = {d, cat, 0, NULL};
  for (uint32_t row = 0; row < cat->n_rows; ++row) {
    r.row = row;
    sp_file_bond fb;
    memset(&fb, 0, sizeof fb);
    copy_cell(fb.comp_id, sizeof fb.comp_id, &r, b_comp);
    copy_cell(fb.atom1, sizeof fb.atom1, &r, b_a1);
    copy_cell(fb.atom2, sizeof fb.atom2, &r, b_a2);
    const sp_cif_value *v = cell(&r, b_ord);
    fb.order = v ? sp_cif_bond_order(v, &fb.aromatic) : 4;
    const sp_cif_value *f = cell(&r, b_arom);
    if (f && (sp_cif_value_ieq(f, "Y") || sp_cif_value_ieq(f, "yes"))) fb.aromatic = 1;
    int rc = sp_structure_add_file_bond(s, &fb, err);
    if (rc) return rc;
  }
  return 0;
}

/* ------------------------------------------------------------ metadata */

static void read_meta(const sp_cif_doc *d, const sp_cif_block *b, sp_structure *s) {
  const sp_cif_value *v = sp_cif_find_value(d, b, "_entry.id", 0);
  if (v && sp_sv_copy(s->entry_id, sizeof s->entry_id, sp_cif_sv(v))) /* cut: it says so (issue 16) */
    memcpy(s->entry_id + sizeof s->entry_id - 4, "...", 3);
  size_t used = 0;
  s->method[0] = 0;
  for (uint32_t row = 0; (v = sp_cif_find_value(d, b, "_exptl.method", row)); ++row) {
    sp_sv m = sp_cif_sv(v);
    if (!m.n) continue;
    int w = snprintf(s->method + used, sizeof s->method - used, "%s%.*s", used ? ", " : "", (int)m.n, m.p);
    if (w < 0 || (size_t)w >= sizeof s->method - used) { /* cut: it says so (issue 16) */
      used = sizeof s->method - 1;
      memcpy(s->method + used - 3, "...", 4);
      break;
    }
    used += (size_t)w;
  }
  float res;
  s->resolution = NAN;
  if (first_number(d, b, "_refine.ls_d_res_high", &res) || first_number(d, b, "_em_3d_reconstruction.resolution", &res) ||
      first_number(d, b, "_reflns.d_resolution_high", &res))
    s->resolution = res;
}

/* Unit cell, space-group name and explicit operators (docs/sites.md "Symmetry mates"). A value that is
 * absent, '?' or not a number leaves the cell NAN (no symmetry); garbage never fails the file. */
static int read_symmetry(const sp_cif_doc *d, const sp_cif_block *b, sp_structure *s, sp_err *err) {
  static const char *const k_cell[6] = {"_cell.length_a",    "_cell.length_b",   "_cell.length_c",
                                        "_cell.angle_alpha", "_cell.angle_beta", "_cell.angle_gamma"};
  double cell[6];
  int ok = 1;
  for (int k = 0; k < 6 && ok; k++) {
    const sp_cif_value *v = sp_cif_find_value(d, b, k_cell[k], 0);
    ok = v && !sp_cif_is_null(v) && sp_cif_parse_double(v->p, v->n, &cell[k]) && isfinite(cell[k]);
  }
  if (ok) memcpy(s->cell, cell, sizeof cell);
  else if (sp_cif_find_value(d, b, "_cell.length_a", 0))
    sp_structure_warn(s, "_cell: a length or angle is missing or not a number; no crystal symmetry");
  const sp_cif_value *v = sp_cif_find_value(d, b, "_cell.Z_PDB", 0);
  int32_t z;
  if (v && !sp_cif_is_null(v) && sp_cif_parse_int(v->p, v->n, &z) && z > 0) s->cell_z = z;
  v = sp_cif_find_value(d, b, "_symmetry.space_group_name_H-M", 0);
  if (!v || sp_cif_is_null(v)) v = sp_cif_find_value(d, b, "_space_group.name_H-M_alt", 0);
  if (v && !sp_cif_is_null(v) && sp_sv_copy(s->spacegroup, sizeof s->spacegroup, sp_cif_sv(v)))
    sp_structure_warn(s, "space group name longer than %zu characters, truncated", sizeof s->spacegroup - 1);
  /* the file's fractionalisation matrix and vector (4HHB's is not the standard one) */
  int sc = 1;
  double m[3][4];
  for (int i = 0; i < 3 && sc; i++)
    for (int j = 0; j < 4 && sc; j++) {
      char tag[48];
      if (j < 3) snprintf(tag, sizeof tag, "_atom_sites.fract_transf_matrix[%d][%d]", i + 1, j + 1);
      else snprintf(tag, sizeof tag, "_atom_sites.fract_transf_vector[%d]", i + 1);
      v = sp_cif_find_value(d, b, tag, 0);
      sc = v && !sp_cif_is_null(v) && sp_cif_parse_double(v->p, v->n, &m[i][j]) && isfinite(m[i][j]);
    }
  if (sc) {
    memcpy(s->scale, m, sizeof m);
    s->has_scale = 1;
  }
  /* explicit operators: they win over the name (symmetry.h sp_crystal_resolve) */
  static const char *const k_ops[2] = {"_space_group_symop.operation_xyz", "_symmetry_equiv.pos_as_xyz"};
  for (int t = 0; t < 2 && s->n_symops == 0; t++) {
    uint32_t row = 0;
    for (; (v = sp_cif_find_value(d, b, k_ops[t], row)); ++row) {
      sp_symop op;
      if (sp_cif_is_null(v) || sp_symop_parse(v->p, v->n, &op)) {
        sp_structure_warn(s, "%s row %u: '%.*s' is not a symmetry operator; the file's operators are ignored",
                          k_ops[t], row + 1, (int)(v->n > 40 ? 40 : v->n), v->p);
        s->n_symops = 0;
        break;
      }
      if (s->n_symops >= SP_SYM_MAX_OPS) {
        sp_structure_warn(s, "%s: more than %d operators; the file's operators are ignored", k_ops[t], SP_SYM_MAX_OPS);
        s->n_symops = 0;
        break;
      }
      int rc = sp_structure_add_symop(s, &op, err);
      if (rc) return rc;
    }
    if (s->n_symops && !v) break;
  }
  return 0;
}

int sp_mmcif_read(const char *text, size_t len, sp_structure *s, sp_err *err) {
  return sp_mmcif_read_ex(text, len, s, 0, err);
}

/* Back to the counts (and scalars) of @p n0, a copy of the structure taken before this text was
 * read: its arrays may have moved since, so only counts and fixed fields are restored. */
static void restore_counts(sp_structure *s, const sp_structure *n0) {
  s->n_atoms = n0->n_atoms, s->n_residues = n0->n_residues, s->n_chains = n0->n_chains, s->n_models = n0->n_models;
  s->n_entities = n0->n_entities, s->n_seq = n0->n_seq, s->n_conns = n0->n_conns;
  s->n_file_bonds = n0->n_file_bonds, s->n_file_comps = n0->n_file_comps;
  s->n_can = n0->n_can, s->n_dbrefs = n0->n_dbrefs, s->n_asm_gens = n0->n_asm_gens, s->n_asm_ops = n0->n_asm_ops;
  s->r_work = n0->r_work, s->r_free = n0->r_free;
  memcpy(s->deposition_date, n0->deposition_date, sizeof s->deposition_date);
  memcpy(s->release_date, n0->release_date, sizeof s->release_date);
  s->n_warnings = n0->n_warnings, s->warnings_len = n0->warnings_len;
  s->has_label_ids = n0->has_label_ids, s->has_auth_ids = n0->has_auth_ids;
  memcpy(s->entry_id, n0->entry_id, sizeof s->entry_id);
  memcpy(s->method, n0->method, sizeof s->method);
  s->resolution = n0->resolution;
}

/* The last non-blank line of @p text is an _atom_site row as wwPDB writes them (first value ATOM or HETATM):
 * a loop may end at the end of a CIF file, but a wwPDB file closes every category with '#' and has more
 * after _atom_site, so a file that ends there was most likely cut at a line end (which parses). */
static int ends_in_atom_row(const char *text, size_t len) {
  size_t e = len;
  while (e > 0 && (text[e - 1] == '\n' || text[e - 1] == '\r' || text[e - 1] == ' ' || text[e - 1] == '\t')) --e;
  size_t b = e;
  while (b > 0 && text[b - 1] != '\n') --b;
  size_t n = e - b;
  return (n > 5 && !memcmp(text + b, "ATOM", 4) && (text[b + 4] == ' ' || text[b + 4] == '\t')) ||
         (n > 7 && !memcmp(text + b, "HETATM", 6) && (text[b + 6] == ' ' || text[b + 6] == '\t'));
}

/* Rows of _atom_site in block @p i: streamed (the stream's block) or stored in the document. */
static uint64_t block_atom_rows(const sp_cif_doc *d, const sp_cif_stream *st, size_t i) {
  if (st->state == SP_CIF_STREAM_DONE && st->block == i && st->n_rows) return st->n_rows;
  const sp_cif_category *cat = sp_cif_find_category(d, &d->blocks[i], "_atom_site");
  return cat ? cat->n_rows : 0;
}

/* The data block whose atoms are the structure (issue: adversarial trial, finding 6): the first
 * block with _atom_site rows, or the first block when none has any (its no_atoms message). A file
 * with _atom_site rows in two or more blocks holds several structures, of which sitepack would keep
 * one and drop the other's atoms without a word: it fails (SP_E_MULTIPLE_BLOCKS, naming the blocks),
 * as gemmi refuses it ("2+ blocks are ok if only the first one has coordinates", read_structure). A
 * block without atoms before or after it (a dictionary block of the file's components) is allowed. */
static int atoms_block(const sp_cif_doc *d, const sp_cif_stream *st, size_t *out, sp_err *err) {
  size_t first = SIZE_MAX, n_with = 0;
  char names[160] = "";
  size_t used = 0;
  for (size_t i = 0; i < d->n_blocks; ++i) {
    if (!block_atom_rows(d, st, i)) continue;
    if (first == SIZE_MAX) first = i;
    if (n_with++ < 4 && used < sizeof names) {
      const sp_cif_block *b = &d->blocks[i];
      int w = snprintf(names + used, sizeof names - used, "%s'%.*s'", used ? ", " : "", (int)(b->name.n > 24 ? 24 : b->name.n),
                       b->name.p);
      used += w > 0 ? (size_t)w : 0;
    }
  }
  *out = first == SIZE_MAX ? 0 : first;
  if (n_with < 2) return 0;
  return sp_err_set(err, SP_E_MULTIPLE_BLOCKS,
                    "_atom_site rows in %zu data blocks (%s%s): several structures in one file; sitepack reads one "
                    "structure per file (split the blocks into files)", n_with, names, n_with > 4 ? ", ..." : "");
}

_Static_assert(SP_MMCIF_NUL_CHECKED == SP_CIF_NUL_CHECKED, "the flag is handed on to the CIF parser");

int sp_mmcif_read_ex(const char *text, size_t len, sp_structure *s, unsigned flags, sp_err *err) {
  sp_cif_doc doc;
  memset(&doc, 0, sizeof doc);
  atom_reader *R = calloc(1, sizeof *R);
  if (!R) return sp_err_set(err, SP_E_NOMEM, "out of memory (mmCIF reader)");
  R->d = &doc;
  R->end = text + len;
  R->s = s;
  size_t w0 = s->n_warnings, wl0 = s->warnings_len;
  const sp_structure n0 = *s; /* counts before this text (see restore_counts) */
  /* the categories the functions below look up; other loops are only checked */
  static const char *const keep[] = {"entity", "entity_poly", "entity_poly_seq", "struct_conn", "chem_comp",
                                     "chem_comp_bond", "entry", "exptl", "refine", "em_3d_reconstruction",
                                     "reflns", "cell", "symmetry", "space_group", "space_group_symop",
                                     "symmetry_equiv", "atom_sites", "struct_ref", "struct_ref_seq",
                                     "pdbx_database_status", "pdbx_audit_revision_history", "database_PDB_rev",
                                     "pdbx_struct_assembly", "pdbx_struct_assembly_gen", "pdbx_struct_oper_list",
                                     NULL};
  sp_cif_stream st = {"atom_site", atoms_begin, atoms_row, R, keep, 0, 0, 0, 0};
  R->st = &st;
  int rc = sp_cif_parse_stream(text, len, 0, &doc, &st, flags, err); /* every block: which holds the atoms? */
  if (rc) { /* a CIF error: leave the structure as the parse found it (no atoms of this text) */
    restore_counts(s, &n0);
    goto done;
  }
  if (!doc.n_blocks) {
    rc = sp_err_set(err, SP_E_NO_ATOMS, len ? "no data_ block" : "empty file");
    goto done;
  }
  size_t bi = 0;
  if ((rc = atoms_block(&doc, &st, &bi, err))) {
    restore_counts(s, &n0);
    goto done;
  }
  const sp_cif_block *b = &doc.blocks[bi];
  /* the CIF warnings come first, then those of the atoms (added while streaming) */
  if (doc.n_warnings && s->warnings_len > wl0) {
    size_t n = s->warnings_len - wl0;
    char *aw = malloc(n);
    if (!aw) {
      rc = sp_err_set(err, SP_E_NOMEM, "out of memory (warnings)");
      goto done;
    }
    memcpy(aw, s->warnings + wl0, n);
    s->warnings_len = wl0;
    s->n_warnings = w0;
    for (size_t i = 0; i < doc.n_warnings; ++i) sp_structure_warn(s, "%s", sp_cif_warning(&doc, i));
    for (size_t i = 0; i < n; i += strlen(aw + i) + 1) sp_structure_warn(s, "%s", aw + i);
    free(aw);
  } else {
    for (size_t i = 0; i < doc.n_warnings; ++i) sp_structure_warn(s, "%s", sp_cif_warning(&doc, i));
  }
  uint64_t n_rows = st.n_rows;
  int arc = st.rc;
  if (st.state != SP_CIF_STREAM_DONE || st.block != bi || !st.n_rows) {
    /* not streamed (pairs, or no _atom_site), or the streamed loop had no rows and a later block's
     * loop (stored) has them: that one, from the document */
    R->st = NULL;
    R->col_rc = 0;
    memset(&R->err, 0, sizeof R->err);
    const sp_cif_category *cat = sp_cif_find_category(&doc, b, "_atom_site");
    n_rows = cat ? cat->n_rows : 0;
    arc = n_rows ? read_atoms_doc(R, &doc, cat) : 0;
  }
  if (bi > 0 && n_rows)
    sp_structure_warn(s, "the atoms are read from data block '%.*s' (block %zu of %zu): the block%s before it %s no "
                      "_atom_site rows", SHOWN(b->name.n), b->name.p, bi + 1, doc.n_blocks, bi > 1 ? "s" : "",
                      bi > 1 ? "have" : "has");
  if (n_rows == 0) {
    if (doc.n_blocks > 1)
      rc = sp_err_set(err, SP_E_NO_ATOMS, "no _atom_site rows in any of the %zu data blocks (the first is '%.*s')",
                      doc.n_blocks, SHOWN(b->name.n), b->name.p);
    else
      rc = sp_err_set(err, SP_E_NO_ATOMS, "no _atom_site rows in data block '%.*s'", SHOWN(b->name.n), b->name.p);
    goto done;
  }
  if (arc) {
    rc = arc;
    if (err) *err = R->err;
    goto done;
  }
  unreadable_summary(R);
  if ((rc = sp_cif_char_map_finish(&R->alt_map, s, n0.n_atoms, n0.n_residues, true, "label_alt_id", err)) ||
      (rc = sp_cif_char_map_finish(&R->ins_map, s, n0.n_atoms, n0.n_residues, false, "pdbx_PDB_ins_code", err)))
    goto done;
  if ((rc = read_entities(&doc, b, s, err))) goto done;
  if ((rc = read_conns(&doc, b, s, R, err))) goto done;
  if ((rc = read_comps(&doc, b, s, err))) goto done;
  read_meta(&doc, b, s);
  if ((rc = sp_mmcif_read_context(&doc, b, s, err))) goto done;
  if ((rc = read_symmetry(&doc, b, s, err))) goto done;
  rc = sp_structure_finish(s, err);
  if (!rc && ends_in_atom_row(text, len)) /* a cut at a line end parses; only the end of the text tells */
    sp_structure_warn(s, "the file ends in an _atom_site row, without the '#' that closes the category in wwPDB "
                         "files (and the categories after it): the file may be cut short");
done:
  free(R);
  sp_cif_doc_free(&doc);
  if ((flags & SP_MMCIF_NUL_AFTER) && len && memchr(text, '\0', len)) {
    /* checked after the parse, while the text is in the cache (the tokenizer reads a NUL as a blank) */
    restore_counts(s, &n0);
    return sp_err_set(err, SP_E_BINARY, "NUL byte at offset %zu: binary data, not CIF text",
                      (size_t)((const char *)memchr(text, '\0', len) - text));
  }
  return rc;
}

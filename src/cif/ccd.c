/* wwPDB Chemical Component Dictionary: index, component parser, cache. See include/sitepack/ccd.h. */
#define _GNU_SOURCE 1 /* memmem */
#include "sitepack/ccd.h"
#include "sitepack/base.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cif_internal.h"
#include "sitepack/cif.h"
#include "sitepack/elements.h"
#include "sitepack/io.h"

#define SHOWN(n) ((int)((n) > 40 ? 40 : (n)))

/* ------------------------------------------------------------ component */

static int atom_index_sv(const sp_component *c, sp_sv name) {
  if (name.n >= SP_ID_LEN) return -1;
  for (size_t i = 0; i < c->n_atoms; ++i)
    if (!strncmp(c->atoms[i].name, name.p, name.n) && c->atoms[i].name[name.n] == 0) return (int)i;
  return -1;
}

/* the bond between atoms a and b (either order) already read, or NULL: a linear scan, components
 * have tens of bonds, and it runs once per component (cached) */
static sp_comp_bond *find_bond(sp_component *c, int a, int b) {
  for (size_t k = 0; k < c->n_bonds; ++k)
    if ((c->bonds[k].a == a && c->bonds[k].b == b) || (c->bonds[k].a == b && c->bonds[k].b == a)) return &c->bonds[k];
  return NULL;
}

static const sp_cif_value *cellv(const sp_cif_doc *d, const sp_cif_category *cat, int col, uint32_t row) {
  return col < 0 ? NULL : sp_cif_cell(d, cat, (uint32_t)col, row);
}

static sp_sv cellsv(const sp_cif_doc *d, const sp_cif_category *cat, int col, uint32_t row) {
  const sp_cif_value *v = cellv(d, cat, col, row);
  if (!v) {
    sp_sv e = {"", 0};
    return e;
  }
  return sp_cif_sv(v);
}

static bool is_yes(const sp_cif_value *v) { return v && (sp_cif_value_ieq(v, "Y") || sp_cif_value_ieq(v, "yes")); }

/* three coordinates, all numbers */
static bool read_xyz(const sp_cif_doc *d, const sp_cif_category *cat, const int col[3], uint32_t row, float out[3]) {
  double v[3];
  for (int k = 0; k < 3; ++k) {
    const sp_cif_value *x = cellv(d, cat, col[k], row);
    if (!x || sp_cif_is_null(x) || !sp_cif_parse_double(x->p, x->n, &v[k])) return false;
  }
  for (int k = 0; k < 3; ++k) out[k] = (float)v[k];
  return true;
}

static void copy_item(const sp_cif_doc *d, const sp_cif_block *b, const char *tag, char *dst, size_t cap) {
  const sp_cif_value *v = sp_cif_find_value(d, b, tag, 0);
  sp_sv sv = {"", 0};
  if (v) sv = sp_cif_sv(v);
  sp_sv_copy(dst, cap, sv);
}

static int parse_block(const sp_cif_doc *d, const sp_cif_block *b, sp_component *out, sp_err *err) {
  const sp_cif_category *atoms = sp_cif_find_category(d, b, "_chem_comp_atom");
  const sp_cif_value *idv = sp_cif_find_value(d, b, "_chem_comp.id", 0);
  int a_comp = sp_cif_col(d, atoms, "comp_id");
  sp_sv id = {"", 0};
  if (idv) id = sp_cif_sv(idv);
  if (!id.n && atoms && atoms->n_rows && a_comp >= 0) id = cellsv(d, atoms, a_comp, 0); /* monomer library */
  if (!id.n)
    return sp_err_set(err, SP_E_MISSING_ITEM, "block data_%.*s has no _chem_comp.id", SHOWN(b->name.n), b->name.p);
  sp_sv_copy(out->id, sizeof out->id, id);
  copy_item(d, b, "_chem_comp.type", out->type, sizeof out->type);
  copy_item(d, b, "_chem_comp.name", out->name, sizeof out->name);
  copy_item(d, b, "_chem_comp.formula", out->formula, sizeof out->formula);
  copy_item(d, b, "_chem_comp.pdbx_release_status", out->release_status, sizeof out->release_status);
  copy_item(d, b, "_chem_comp.pdbx_replaced_by", out->replaced_by, sizeof out->replaced_by);
  copy_item(d, b, "_chem_comp.mon_nstd_parent_comp_id", out->parent_comp_id, sizeof out->parent_comp_id);
  const sp_cif_value *fc = sp_cif_find_value(d, b, "_chem_comp.pdbx_formal_charge", 0);
  double x;
  out->formal_charge = 0;
  if (fc && !sp_cif_is_null(fc) && sp_cif_parse_double(fc->p, fc->n, &x)) out->formal_charge = (float)x;

  /* descriptors: InChIKey, InChI, the canonical SMILES of SP_SMILES_PROGRAM (first row of each) */
  const sp_cif_category *desc = sp_cif_find_category(d, b, "_pdbx_chem_comp_descriptor");
  int d_type = sp_cif_col(d, desc, "type"), d_desc = sp_cif_col(d, desc, "descriptor");
  int d_prog = sp_cif_col(d, desc, "program");
  bool got_key = false, got_inchi = false, got_smiles = false;
  if (desc && d_type >= 0 && d_desc >= 0)
    for (uint32_t r = 0; r < desc->n_rows; ++r) {
      const sp_cif_value *ty = cellv(d, desc, d_type, r), *dv = cellv(d, desc, d_desc, r);
      if (!dv || sp_cif_is_null(dv)) continue;
      if (!got_key && sp_cif_value_ieq(ty, "InChIKey")) {
        got_key = true;
        if (sp_sv_copy(out->inchikey, sizeof out->inchikey, sp_cif_sv(dv))) out->desc_cut |= SP_DESC_INCHIKEY_CUT;
      } else if (!got_inchi && sp_cif_value_ieq(ty, "InChI")) {
        got_inchi = true;
        if (sp_sv_copy(out->inchi, sizeof out->inchi, sp_cif_sv(dv))) out->desc_cut |= SP_DESC_INCHI_CUT;
      } else if (!got_smiles && d_prog >= 0 && sp_cif_value_ieq(ty, "SMILES_CANONICAL") &&
                 sp_cif_value_ieq(cellv(d, desc, d_prog, r), SP_SMILES_PROGRAM)) {
        got_smiles = true;
        if (sp_sv_copy(out->smiles, sizeof out->smiles, sp_cif_sv(dv))) out->desc_cut |= SP_DESC_SMILES_CUT;
      }
    }

  /* atoms */
  if (atoms && atoms->n_rows) {
    int a_id = sp_cif_col(d, atoms, "atom_id"), a_type = sp_cif_col(d, atoms, "type_symbol");
    int a_chg = sp_cif_col(d, atoms, "charge"), a_leave = sp_cif_col(d, atoms, "pdbx_leaving_atom_flag");
    int a_arom = sp_cif_col(d, atoms, "pdbx_aromatic_flag");
    int mcol[3] = {sp_cif_col(d, atoms, "model_Cartn_x"), sp_cif_col(d, atoms, "model_Cartn_y"),
                   sp_cif_col(d, atoms, "model_Cartn_z")};
    int icol[3] = {sp_cif_col(d, atoms, "pdbx_model_Cartn_x_ideal"), sp_cif_col(d, atoms, "pdbx_model_Cartn_y_ideal"),
                   sp_cif_col(d, atoms, "pdbx_model_Cartn_z_ideal")};
    if (icol[0] < 0) { /* monomer library: x, y, z are ideal coordinates */
      icol[0] = sp_cif_col(d, atoms, "x");
      icol[1] = sp_cif_col(d, atoms, "y");
      icol[2] = sp_cif_col(d, atoms, "z");
    }
    if (a_id < 0)
      return sp_err_set(err, SP_E_MISSING_ITEM, "component %s: _chem_comp_atom has no atom_id column", out->id);
    if (atoms->n_rows > 65535)
      return sp_err_set(err, SP_E_TOO_LARGE, "component %s: more than 65535 atoms", out->id);
    out->atoms = calloc(atoms->n_rows, sizeof *out->atoms);
    if (!out->atoms) return sp_err_set(err, SP_E_NOMEM, "out of memory (component %s atoms)", out->id);
    for (uint32_t r = 0; r < atoms->n_rows; ++r) {
      if (a_comp >= 0 && idv) {
        sp_sv cid = cellsv(d, atoms, a_comp, r);
        if (cid.n && !(cid.n == id.n && !memcmp(cid.p, id.p, id.n))) continue; /* another component's row */
      }
      sp_comp_atom *a = &out->atoms[out->n_atoms++];
      sp_sv_copy(a->name, sizeof a->name, cellsv(d, atoms, a_id, r));
      sp_sv t = cellsv(d, atoms, a_type, r);
      a->element = sp_element_from_symbol(t.p, t.n);
      const sp_cif_value *q = cellv(d, atoms, a_chg, r);
      if (q && !sp_cif_is_null(q) && sp_cif_parse_double(q->p, q->n, &x)) {
        a->charge = (int8_t)lround(x);
        a->charge_known = 1;
      }
      a->leaving = is_yes(cellv(d, atoms, a_leave, r));
      a->aromatic = is_yes(cellv(d, atoms, a_arom, r));
      a->has_model_xyz = read_xyz(d, atoms, mcol, r, a->model_xyz);
      a->has_ideal_xyz = read_xyz(d, atoms, icol, r, a->ideal_xyz);
    }
  }

  /* bonds */
  const sp_cif_category *bonds = sp_cif_find_category(d, b, "_chem_comp_bond");
  if (bonds && bonds->n_rows) {
    int b_comp = sp_cif_col(d, bonds, "comp_id");
    int b1 = sp_cif_col(d, bonds, "atom_id_1"), b2 = sp_cif_col(d, bonds, "atom_id_2");
    int b_ord = sp_cif_col(d, bonds, "value_order"), b_arom = sp_cif_col(d, bonds, "pdbx_aromatic_flag");
    if (b_ord < 0) b_ord = sp_cif_col(d, bonds, "type");
    if (b1 < 0 || b2 < 0)
      return sp_err_set(err, SP_E_MISSING_ITEM, "component %s: _chem_comp_bond lacks atom_id_1/atom_id_2", out->id);
    out->bonds = calloc(bonds->n_rows, sizeof *out->bonds);
    if (!out->bonds) return sp_err_set(err, SP_E_NOMEM, "out of memory (component %s bonds)", out->id);
    for (uint32_t r = 0; r < bonds->n_rows; ++r) {
      if (b_comp >= 0 && idv) {
        sp_sv cid = cellsv(d, bonds, b_comp, r);
        if (cid.n && !(cid.n == id.n && !memcmp(cid.p, id.p, id.n))) continue;
      }
      sp_sv n1 = cellsv(d, bonds, b1, r), n2 = cellsv(d, bonds, b2, r);
      int i1 = atom_index_sv(out, n1), i2 = atom_index_sv(out, n2);
      if (i1 < 0 || i2 < 0) {
        sp_sv miss = i1 < 0 ? n1 : n2;
        return sp_err_set(err, SP_E_BAD_VALUE, "component %s: bond %u names atom '%.*s' that is not in _chem_comp_atom",
                          out->id, r + 1, SHOWN(miss.n), miss.p);
      }
      uint8_t arom = 0;
      const sp_cif_value *ov = cellv(d, bonds, b_ord, r);
      uint8_t order = ov ? sp_cif_bond_order(ov, &arom) : 4;
      if (is_yes(cellv(d, bonds, b_arom, r))) arom = 1;
      /* A pair listed twice (in either order) is one bond: the first row is kept, with the order of a
       * later row when the first has none ('?', '.': 4 and not aromatic), so that no bond is written
       * twice to /bonds. A bond of an atom to itself is no bond. PDBx/mmCIF: _chem_comp_bond's key is
       * (comp_id, atom_id_1, atom_id_2), and a bond is between two atoms. */
      if (i1 == i2) continue;
      sp_comp_bond *cb = find_bond(out, i1, i2);
      if (cb) {
        if (cb->order == 4 && !cb->aromatic) cb->order = order, cb->aromatic = arom;
        continue;
      }
      cb = &out->bonds[out->n_bonds++];
      cb->a = (uint16_t)i1;
      cb->b = (uint16_t)i2;
      cb->order = order;
      cb->aromatic = arom;
    }
  }
  return 0;
}

int sp_component_parse(const char *text, size_t len, sp_component *out, sp_err *err) {
  memset(out, 0, sizeof *out);
  sp_cif_doc doc;
  memset(&doc, 0, sizeof doc);
  int rc = sp_cif_parse(text, len, 1, &doc, err);
  if (!rc && !doc.n_blocks) rc = sp_err_set(err, SP_E_MISSING_ITEM, "no data_ block, so no _chem_comp.id");
  if (!rc) rc = parse_block(&doc, &doc.blocks[0], out, err);
  if (rc) sp_component_free(out);
  sp_cif_doc_free(&doc);
  return rc;
}

/* ------------------------------------------------------------ index */

void sp_ccd_index_free(sp_ccd_index *idx) {
  free(idx->ids);
  free(idx->offset);
  free(idx->length);
  memset(idx, 0, sizeof *idx);
}

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* First "\ndata_" in [p, end), or NULL. SSE2: 16 positions at a time are tested for
 * '\n' followed by "da" (3 loads, rare hits confirmed with memcmp), else memmem. */
static const char *find_data_line(const char *p, const char *end) {
#if defined(__SSE2__)
  const __m128i nl = _mm_set1_epi8('\n'), dd = _mm_set1_epi8('d'), aa = _mm_set1_epi8('a');
  while (end - p >= 18) {
    __m128i a = _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)p), nl);
    __m128i b = _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)(p + 1)), dd);
    __m128i c = _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)(p + 2)), aa);
    unsigned m = (unsigned)_mm_movemask_epi8(_mm_and_si128(_mm_and_si128(a, b), c));
    while (m) {
      const char *q = p + __builtin_ctz(m);
      if (end - q >= 6 && !memcmp(q, "\ndata_", 6)) return q;
      m &= m - 1;
    }
    p += 16;
  }
#endif
  return memmem(p, (size_t)(end - p), "\ndata_", 6);
}

typedef struct raw_block {
  char id[SP_ID_LEN];
  uint64_t off, len;
} raw_block;

static int cmp_raw(const void *a, const void *b) {
  const raw_block *x = a, *y = b;
  int c = strcmp(x->id, y->id);
  if (c) return c;
  return x->off < y->off ? -1 : x->off > y->off;
}

static int index_build(const char *text, size_t len, sp_ccd_index *idx, size_t *n_duplicates, char *first_duplicate,
                       sp_err *err) {
  memset(idx, 0, sizeof *idx);
  if (n_duplicates) *n_duplicates = 0;
  if (first_duplicate) first_duplicate[0] = 0;
  size_t n = 0, cap = 1024;
  raw_block *rb = malloc(cap * sizeof *rb);
  if (!rb) return sp_err_set(err, SP_E_NOMEM, "out of memory (CCD index)");
  const char *p = text, *end = text + len;
  /* a UTF-8 byte order mark (EF BB BF, written by Windows editors) before the first block: the
   * block starts after it (before, it was no line start, and the first block was lost) */
  if (len >= 3 && (unsigned char)text[0] == 0xEF && (unsigned char)text[1] == 0xBB && (unsigned char)text[2] == 0xBF)
    p += 3;
  bool at_start = end - p >= 5 && !memcmp(p, "data_", 5);
  for (;;) {
    const char *hit;
    if (at_start) {
      hit = p;
      at_start = false;
    } else {
      const char *nl = find_data_line(p, end);
      if (!nl) break;
      hit = nl + 1;
    }
    if (SP_GROW(rb, cap, n + 1)) {
      free(rb);
      return sp_err_set(err, SP_E_NOMEM, "out of memory (CCD index)");
    }
    const char *s = hit + 5, *e = s;
    while (e < end && *e != '\n' && *e != '\r' && *e != ' ' && *e != '\t' && e - s < SP_ID_LEN - 1) ++e;
    memset(rb[n].id, 0, SP_ID_LEN);
    memcpy(rb[n].id, s, (size_t)(e - s));
    rb[n].off = (uint64_t)(hit - text);
    if (n) rb[n - 1].len = rb[n].off - rb[n - 1].off;
    ++n;
    p = hit + 5;
  }
  if (!n) {
    free(rb);
    return sp_err_set(err, SP_E_FORMAT, "no data_ block: not a CIF dictionary");
  }
  rb[n - 1].len = (uint64_t)len - rb[n - 1].off;
  qsort(rb, n, sizeof *rb, cmp_raw);
  /* duplicates: keep the last block (largest offset) of each id. CIF 1.1 (paragraph 7 of the IUCr
   * syntax specification) wants block codes unique in a file, and the wwPDB CCD has each id once; a
   * file with an id twice is most likely a CCD with a local file of corrected or private components
   * appended (cat components.cif local.cif), whose later block is meant to replace the first. The
   * choice depends only on the text (sorted by id, then offset), so it is the same on every rank;
   * *n_duplicates counts the blocks left out (the run warns: sp_ccd_duplicates). */
  size_t m = 0;
  for (size_t i = 0; i < n; ++i) {
    if (i + 1 < n && !strcmp(rb[i].id, rb[i + 1].id)) {
      if (n_duplicates) ++*n_duplicates;
      if (first_duplicate && !first_duplicate[0]) memcpy(first_duplicate, rb[i].id, SP_ID_LEN);
      continue;
    }
    rb[m++] = rb[i];
  }
  idx->ids = malloc(m * sizeof *idx->ids);
  idx->offset = malloc(m * sizeof *idx->offset);
  idx->length = malloc(m * sizeof *idx->length);
  if (!idx->ids || !idx->offset || !idx->length) {
    free(rb);
    sp_ccd_index_free(idx);
    return sp_err_set(err, SP_E_NOMEM, "out of memory (CCD index)");
  }
  for (size_t i = 0; i < m; ++i) {
    memcpy(idx->ids[i], rb[i].id, SP_ID_LEN);
    idx->offset[i] = rb[i].off;
    idx->length[i] = rb[i].len;
  }
  idx->n = m;
  free(rb);
  return 0;
}

int sp_ccd_index_build(const char *text, size_t len, sp_ccd_index *idx, size_t *n_duplicates, sp_err *err) {
  return index_build(text, len, idx, n_duplicates, NULL, err);
}

long sp_ccd_index_find(const sp_ccd_index *idx, const char *id) {
  size_t lo = 0, hi = idx->n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    int c = strcmp(idx->ids[mid], id);
    if (!c) return (long)mid;
    if (c < 0) lo = mid + 1;
    else hi = mid;
  }
  return -1;
}

/* ------------------------------------------------------------ open CCD + cache */

enum { TEXT_OWNED = 0, TEXT_BORROWED = 1, TEXT_MAPPED = 2 };

struct sp_ccd {
  sp_buf buf;              /* the text: owned (malloc), borrowed (caller's) or mapped (mmap) */
  int text_kind;           /* TEXT_* */
  size_t map_len;          /* TEXT_MAPPED: bytes mapped */
  sp_ccd_index idx;
  uint32_t *slots;         /* open-addressing hash: block number + 1, 0 = empty */
  size_t n_slots;          /* power of two */
  sp_component **cache;    /* per block, NULL until parsed */
  size_t n_dup;            /* blocks left out for a later block of the same id (this process's index) */
  char first_dup[SP_ID_LEN]; /* the smallest such id, "" if none */
};

static uint64_t hash_id(const char *s) {
  uint64_t h = 1469598103934665603ull; /* FNV-1a */
  for (; *s; ++s) h = (h ^ (unsigned char)*s) * 1099511628211ull;
  return h;
}

/* hash table and cache over c->idx (already built) */
static int ccd_tables(sp_ccd *c, sp_err *err) {
  size_t ns = 16;
  while (ns < 2 * c->idx.n) ns *= 2;
  c->slots = calloc(ns, sizeof *c->slots);
  c->cache = calloc(c->idx.n ? c->idx.n : 1, sizeof *c->cache);
  if (!c->slots || !c->cache) return sp_err_set(err, SP_E_NOMEM, "out of memory (CCD cache)");
  if (c->idx.n >= UINT32_MAX) return sp_err_set(err, SP_E_TOO_LARGE, "more than 2^32-2 CCD blocks");
  c->n_slots = ns;
  for (size_t i = 0; i < c->idx.n; ++i) {
    size_t h = (size_t)hash_id(c->idx.ids[i]) & (ns - 1);
    while (c->slots[h]) h = (h + 1) & (ns - 1);
    c->slots[h] = (uint32_t)(i + 1);
  }
  return 0;
}

/* 1-based line number of byte offset @p off of @p text (counted only for an error message) */
static size_t line_of(const char *text, size_t off) {
  size_t line = 1;
  for (const char *p = text, *e = text + off; (p = memchr(p, '\n', (size_t)(e - p))) != NULL; ++p) ++line;
  return line;
}

/* 1 when the text [0, end) ends with a comment line ('#', the category separator of the wwPDB
   CCD), trailing blanks and line ends ignored */
static bool ends_with_hash_line(const char *text, size_t end) {
  while (end > 0 && (text[end - 1] == '\n' || text[end - 1] == '\r' || text[end - 1] == ' ' || text[end - 1] == '\t'))
    --end;
  size_t bol = end;
  while (bol > 0 && text[bol - 1] != '\n') --bol;
  return bol < end && text[bol] == '#';
}

/* 1 when the last category named in the block [b, e) is @p cat (its tag lines start "cat.") */
static bool last_category_is(const char *b, const char *e, const char *cat) {
  size_t k = strlen(cat);
  for (const char *p = e; p > b; --p)
    if (p[-1] == '\n' && p < e && *p == '_') return (size_t)(e - p) > k && !memcmp(p, cat, k) && p[k] == '.';
  return false;
}

/* Issue 16: a CCD cut short (a copy or download that stopped) must not pass for a complete one,
 * whose last block would be read as a whole component. Checked on the last block of the file
 * (the only one a cut can damage), in the layout of the wwPDB CCD: the text ends with a line end;
 * the block parses as CIF (every loop row complete, every quote and text field closed); and a
 * block that separates its categories with '#' lines ends with one too, or with the rows of
 * _pdbx_chem_comp_audit, the CCD's closing category (some blocks of the wwPDB file end so).
 * A block without '#' lines (hand-made, monomer library) is checked by the first two rules only;
 * a cut exactly at a category boundary passes (the CCD holds no block count to tell).
 * Returns SP_E_FORMAT naming the block and its first line. */
static int ccd_check_complete(const char *text, size_t len, const sp_ccd_index *idx, sp_err *err) {
  size_t last = 0;
  for (size_t i = 1; i < idx->n; ++i)
    if (idx->offset[i] > idx->offset[last]) last = i;
  size_t off = (size_t)idx->offset[last];
  const char *id = idx->ids[last];
  if (len == 0 || text[len - 1] != '\n')
    return sp_err_set(err, SP_E_FORMAT,
                      "the file ends inside a row of block data_%s (line %zu, which has no line end): the CCD is "
                      "truncated", id, line_of(text, len));
  sp_cif_doc doc;
  memset(&doc, 0, sizeof doc);
  sp_err e2 = {0};
  int rc = sp_cif_parse(text + off, len - off, 1, &doc, &e2);
  sp_cif_doc_free(&doc);
  if (rc)
    return sp_err_set(err, SP_E_FORMAT, "the last block data_%s (from line %zu) is incomplete: %s (lines counted from "
                      "the block's first): the CCD is truncated or damaged", id, line_of(text, off), e2.msg);
  bool separated = memmem(text + off, len - off, "\n#", 2) != NULL;
  if (separated && !ends_with_hash_line(text, len) && !last_category_is(text + off, text + len, "_pdbx_chem_comp_audit"))
    return sp_err_set(err, SP_E_FORMAT,
                      "the file ends inside block data_%s (from line %zu; it stops at line %zu, inside its last "
                      "category, without the '#' line that closes it): the CCD is truncated", id, line_of(text, off),
                      line_of(text, len - 1));
  return 0;
}

static int ccd_finish(sp_ccd *c, sp_err *err) {
  int rc = index_build(c->buf.data, c->buf.len, &c->idx, &c->n_dup, c->first_dup, err);
  if (!rc) rc = ccd_check_complete(c->buf.data, c->buf.len, &c->idx, err);
  return rc ? rc : ccd_tables(c, err);
}

static long ccd_lookup(const sp_ccd *c, const char *id) {
  size_t h = (size_t)hash_id(id) & (c->n_slots - 1);
  while (c->slots[h]) {
    uint32_t i = c->slots[h] - 1;
    if (!strcmp(c->idx.ids[i], id)) return (long)i;
    h = (h + 1) & (c->n_slots - 1);
  }
  return -1;
}

static int ccd_open_fail(sp_ccd *c, const char *path, int rc, sp_err *err) {
  if (rc == SP_E_FORMAT && err) {
    char m[SP_ERR_MSG_LEN];
    memcpy(m, err->msg, sizeof m);
    sp_err_set(err, rc, "%s: %s", path, m);
  }
  sp_ccd_close(c);
  return rc;
}

/* gzip stored bytes inflated into c->buf; sp_gunzip hashes the stored bytes, kept into @p sha when asked */
static int inflate_stored(sp_ccd *c, const unsigned char *raw, size_t n, char *sha, sp_err *err) {
  int rc = sp_gunzip(raw, n, 0, &c->buf, err);
  if (!rc && sha) memcpy(sha, c->buf.sha256, sizeof c->buf.sha256);
  return rc;
}

/* SP_CCD_SRC_FILE: one read of the stored bytes, inflated from them when gzip */
static int open_file(const sp_ccd_source *src, sp_ccd *c, sp_err *err) {
  unsigned char *raw = NULL;
  size_t n = 0;
  /* stored bytes, hashed only when asked: the CCD does not need it and it costs as much as the index */
  int rc = sp_file_read_stored(src->path, 0, &raw, &n, err);
  if (rc) return rc;
  if (sp_gzip_magic(raw, n)) {
    rc = inflate_stored(c, raw, n, src->sha256, err);
    free(raw);
    return rc;
  }
  if (src->sha256) sp_sha256_hex(raw, n, src->sha256);
  c->buf.data = (char *)raw;
  c->buf.len = c->buf.stored_bytes = n;
  return 0;
}

/* SP_CCD_SRC_MAPPED: one open; the mapping is the text (plain) or what is inflated (gzip) */
static int open_mapped(const sp_ccd_source *src, sp_ccd *c, sp_err *err) {
  void *m = NULL;
  size_t n = 0;
  int rc = sp_file_map(src->path, &m, &n, err);
  if (rc) return rc;
  if (!m) return open_file(src, c, err); /* empty, pipe, directory...: the reading path decides and reports */
  if (sp_gzip_magic(m, n)) { /* inflated from the mapping: the file is still read once */
    rc = inflate_stored(c, m, n, src->sha256, err);
    munmap(m, n);
    return rc;
  }
  if (src->sha256) sp_sha256_hex(m, n, src->sha256);
  c->text_kind = TEXT_MAPPED;
  c->map_len = n;
  c->buf.data = m;
  c->buf.len = c->buf.stored_bytes = n;
  return 0;
}

/* SP_CCD_SRC_TEXT: a private copy of the caller's text */
static int open_text(const sp_ccd_source *src, sp_ccd *c, sp_err *err) {
  c->buf.data = malloc(src->len + 1);
  if (!c->buf.data) return sp_err_set(err, SP_E_NOMEM, "out of memory (CCD text)");
  if (src->len) memcpy(c->buf.data, src->text, src->len);
  c->buf.data[src->len] = 0;
  c->buf.len = c->buf.stored_bytes = src->len;
  return 0;
}

/* SP_CCD_SRC_BORROWED: the caller's text, never written through (see text_kind) */
static int open_borrowed(const sp_ccd_source *src, sp_ccd *c) {
  c->text_kind = TEXT_BORROWED;
  c->buf.data = (char *)(uintptr_t)src->text;
  c->buf.len = c->buf.stored_bytes = src->len;
  return 0;
}

/* A prebuilt index into @p c (taken from @p idx, zeroed): bounds and order only, checking the text at
 * each offset would touch every page of it */
static int take_index(sp_ccd *c, sp_ccd_index *idx, sp_err *err) {
  size_t len = c->buf.len;
  for (size_t i = 0; i < idx->n; ++i) {
    bool ok = idx->offset[i] <= len && idx->length[i] <= len - idx->offset[i] &&
              memchr(idx->ids[i], 0, SP_ID_LEN) != NULL && (i == 0 || strcmp(idx->ids[i - 1], idx->ids[i]) < 0);
    if (!ok) {
      sp_ccd_index_free(idx);
      return sp_err_set(err, SP_E_INVALID, "CCD index row %zu does not fit the text (%zu bytes) or is out of order", i,
                        len);
    }
  }
  c->idx = *idx;
  memset(idx, 0, sizeof *idx);
  return c->idx.n ? ccd_tables(c, err) : sp_err_set(err, SP_E_FORMAT, "no data_ block: not a CIF dictionary");
}

static int check_source(const sp_ccd_source *src, sp_err *err) {
  if (!src) return sp_err_set(err, SP_E_INVALID, "CCD source is NULL");
  if (src->kind < SP_CCD_SRC_FILE || src->kind > SP_CCD_SRC_BORROWED)
    return sp_err_set(err, SP_E_INVALID, "CCD source kind %d is unknown", src->kind);
  if ((src->kind == SP_CCD_SRC_FILE || src->kind == SP_CCD_SRC_MAPPED) && !src->path)
    return sp_err_set(err, SP_E_INVALID, "CCD path is NULL");
  if ((src->kind == SP_CCD_SRC_TEXT || src->kind == SP_CCD_SRC_BORROWED) && !src->text && src->len)
    return sp_err_set(err, SP_E_INVALID, "CCD text is NULL");
  return 0;
}

int sp_ccd_open_source(const sp_ccd_source *src, sp_ccd **out, sp_err *err) {
  *out = NULL;
  if (src && src->sha256) src->sha256[0] = 0;
  int rc = check_source(src, err);
  if (rc) {
    if (src && src->index) sp_ccd_index_free(src->index);
    return rc;
  }
  sp_ccd *c = calloc(1, sizeof *c);
  if (!c) {
    if (src->index) sp_ccd_index_free(src->index);
    return sp_err_set(err, SP_E_NOMEM, "out of memory (CCD)");
  }
  switch (src->kind) {
    case SP_CCD_SRC_FILE: rc = open_file(src, c, err); break;
    case SP_CCD_SRC_MAPPED: rc = open_mapped(src, c, err); break;
    case SP_CCD_SRC_TEXT: rc = open_text(src, c, err); break;
    default: rc = open_borrowed(src, c); break;
  }
  if (!rc && src->kind == SP_CCD_SRC_BORROWED && src->index) rc = take_index(c, src->index, err);
  else if (!rc) rc = ccd_finish(c, err); /* index from the one buffer */
  if (src->index) sp_ccd_index_free(src->index); /* not taken (other kinds, errors): zeroed as documented */
  if (rc) {
    if (src->sha256) src->sha256[0] = 0;
    return src->path ? ccd_open_fail(c, src->path, rc, err) : (sp_ccd_close(c), rc);
  }
  *out = c;
  return 0;
}

int sp_ccd_open(const char *path, sp_ccd **out, sp_err *err) {
  sp_ccd_source src = {.kind = SP_CCD_SRC_FILE, .path = path};
  return sp_ccd_open_source(&src, out, err);
}

void sp_ccd_close(sp_ccd *ccd) {
  if (!ccd) return;
  if (ccd->cache)
    for (size_t i = 0; i < ccd->idx.n; ++i)
      if (ccd->cache[i]) {
        sp_component_free(ccd->cache[i]);
        free(ccd->cache[i]);
      }
  free(ccd->cache);
  free(ccd->slots);
  sp_ccd_index_free(&ccd->idx);
  if (ccd->text_kind == TEXT_OWNED) free(ccd->buf.data);
  else if (ccd->text_kind == TEXT_MAPPED && ccd->buf.data) munmap(ccd->buf.data, ccd->map_len);
  free(ccd);
}

const sp_ccd_index *sp_ccd_get_index(const sp_ccd *ccd) { return &ccd->idx; }

size_t sp_ccd_duplicates(const sp_ccd *ccd, char first_id[SP_ID_LEN]) {
  if (first_id) memcpy(first_id, ccd->first_dup, SP_ID_LEN);
  return ccd->n_dup;
}

size_t sp_ccd_text_bytes(const sp_ccd *ccd) { return ccd->buf.len; }

const char *sp_ccd_text(const sp_ccd *ccd) { return ccd->buf.data; }

const sp_component *sp_ccd_get(sp_ccd *ccd, const char *id, sp_err *err) {
  if (!id || !*id || strlen(id) >= SP_ID_LEN) {
    sp_err_set(err, SP_E_NOT_FOUND, "component '%s' is not in the CCD", id ? id : "");
    return NULL;
  }
  long i = ccd_lookup(ccd, id);
  if (i < 0) {
    sp_err_set(err, SP_E_NOT_FOUND, "component '%s' is not in the CCD", id);
    return NULL;
  }
  if (ccd->cache[i]) return ccd->cache[i];
  sp_component *c = calloc(1, sizeof *c);
  if (!c) {
    sp_err_set(err, SP_E_NOMEM, "out of memory (component %s)", id);
    return NULL;
  }
  int rc = sp_component_parse(ccd->buf.data + ccd->idx.offset[i], (size_t)ccd->idx.length[i], c, err);
  if (rc) {
    free(c);
    if (err) {
      char m[SP_ERR_MSG_LEN];
      memcpy(m, err->msg, sizeof m);
      sp_err_set(err, rc, "CCD block %s: %s", id, m);
    }
    return NULL;
  }
  ccd->cache[i] = c;
  return c;
}

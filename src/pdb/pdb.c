/* Legacy PDB reader: see include/sitepack/pdb.h for the columns and rules. */
#include "sitepack/pdb.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "sitepack/elements.h"
#include "sitepack/model_inline.h"
#include "pdb_internal.h"

/* ---- small helpers over one line (p, n): 1-based inclusive columns, blank beyond n ---- */

typedef struct {
  const char *p;
  size_t n;
  size_t no; /* line number, 1-based */
} line_t;

static char col(const line_t *l, size_t c) { return c - 1 < l->n ? l->p[c - 1] : ' '; }

/* Columns c0..c1 clipped to the line, blanks trimmed on both sides. */
static inline sp_sv fld(const line_t *l, size_t c0, size_t c1) {
  sp_sv v = {l->p, 0};
  if (c0 - 1 >= l->n) return v;
  size_t a = c0 - 1, b = c1 < l->n ? c1 : l->n; /* [a, b) */
  while (a < b && (l->p[a] == ' ' || l->p[a] == '\t')) ++a;
  while (b > a && (l->p[b - 1] == ' ' || l->p[b - 1] == '\t')) --b;
  v.p = l->p + a;
  v.n = b - a;
  return v;
}

/* Columns c0..c1 copied raw (blank-padded past the end of the line). */
static void raw(const line_t *l, size_t c0, size_t c1, char *out) {
  for (size_t c = c0; c <= c1; ++c) out[c - c0] = col(l, c);
}

static bool is_digit(char c) { return c >= '0' && c <= '9'; }
static bool is_alpha(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); }

static const double k_pow10[] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9,
                                 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18};

/* parse_real for the rare forms: more than 18 digits (the last ones only scale), or not a number.
 * @return 0 ok, 1 blank, -1 not a number. */
static int parse_real_slow(sp_sv v, double *out) {
  if (v.n == 0) return 1;
  size_t i = 0;
  bool neg = false;
  if (v.p[i] == '-' || v.p[i] == '+') neg = v.p[i++] == '-';
  uint64_t mant = 0;
  int nd = 0, frac = 0;
  bool any = false;
  while (i < v.n && is_digit(v.p[i])) {
    if (nd < 18) mant = mant * 10 + (uint64_t)(v.p[i] - '0'), ++nd;
    else if (frac > -18) --frac; /* more integer digits than we keep: scale up */
    any = true;
    ++i;
  }
  if (i < v.n && v.p[i] == '.') {
    ++i;
    while (i < v.n && is_digit(v.p[i])) {
      if (nd < 18) mant = mant * 10 + (uint64_t)(v.p[i] - '0'), ++nd, ++frac;
      any = true;
      ++i;
    }
  }
  if (!any || i != v.n) return -1;
  double d = (double)mant;
  if (frac > 0) d /= k_pow10[frac];
  else if (frac < 0) d *= k_pow10[-frac];
  *out = neg ? -d : d;
  return 0;
}

/* A decimal number of a fixed field: [blanks][sign]digits[.digits][blanks] (the view is trimmed).
 * One pass without per-digit bounds on the count for the usual fields (coordinates, occupancy, B:
 * at most 18 digits), the same arithmetic as parse_real_slow, which takes every other form, so the
 * same double. @return 0 ok, 1 blank, -1 not a number. */
static inline int parse_real(sp_sv v, double *out) {
  const char *p = v.p, *e = v.p + v.n;
  if (p == e) return 1;
  if (v.n > 19) return parse_real_slow(v, out);
  bool neg = *p == '-';
  if (*p == '-' || *p == '+') ++p;
  uint64_t mant = 0;
  const char *d0 = p;
  while (p < e && is_digit(*p)) mant = mant * 10 + (uint64_t)(*p++ - '0');
  size_t n_int = (size_t)(p - d0);
  int frac = 0;
  if (p < e && *p == '.') {
    const char *f0 = ++p;
    while (p < e && is_digit(*p)) mant = mant * 10 + (uint64_t)(*p++ - '0');
    frac = (int)(p - f0);
  }
  if (p != e || (n_int == 0 && frac == 0) || n_int + (size_t)frac > 18) return parse_real_slow(v, out);
  double d = (double)mant;
  if (frac > 0) d /= k_pow10[frac];
  *out = neg ? -d : d;
  return 0;
}

/* The usual form of a fixed-width decimal field as printf's %W.Df writes it (coordinates %8.3f,
 * occupancy and B %6.2f): blanks, an optional sign, integer digits, '.' at W-D-1, D digits. Reads the
 * W bytes at p (the caller checks the line holds them). @return 1 with *out as fld + parse_real give
 * it (the same digits, the same division), or 0 for any other form (the caller takes that path). */
static inline int fixed_real(const char *p, int w, int dec, double *out) {
  static const uint64_t k_p10[] = {1, 10, 100, 1000, 10000, 100000, 1000000};
  int dot = w - dec - 1;
  if (p[dot] != '.' || dot > 6 || dec > 6) return 0;
  uint64_t frac = 0;
  for (int k = dot + 1; k < w; ++k) {
    unsigned d = (unsigned)(unsigned char)p[k] - '0';
    if (d > 9) return 0;
    frac = frac * 10 + d;
  }
  uint64_t ip = 0;
  int k = dot - 1;
  for (uint64_t p10 = 1; k >= 0 && is_digit(p[k]); --k, p10 *= 10) ip += (uint64_t)(p[k] - '0') * p10;
  bool neg = false;
  if (k >= 0 && (p[k] == '-' || p[k] == '+')) neg = p[k--] == '-';
  for (; k >= 0; --k)
    if (p[k] != ' ') return 0;
  double d = (double)(ip * k_p10[dec] + frac) / k_pow10[dec];
  *out = neg ? -d : d;
  return 1;
}

static int base36_digit(char c) {
  if (is_digit(c)) return c - '0';
  if (c >= 'A' && c <= 'Z') return c - 'A' + 10;
  if (c >= 'a' && c <= 'z') return c - 'a' + 10;
  return -1;
}

int sp_hy36_decode(const char *field, size_t width, int32_t *value) {
  if (width == 0 || width > 8) return -1;
  size_t a = 0, b = width;
  if (is_digit(field[b - 1])) { /* the usual case: right-justified decimal digits after blanks */
    int64_t v = 0, p10 = 1;
    size_t i = b;
    while (i > 0 && is_digit(field[i - 1])) v += (field[--i] - '0') * p10, p10 *= 10;
    size_t j = i;
    while (j > 0 && field[j - 1] == ' ') --j;
    if (j == 0 && i > 0 && field[i - 1] == ' ') {
      *value = (int32_t)v;
      return 0;
    }
    if (i == 0) {
      *value = (int32_t)v;
      return 0;
    }
  }
  while (a < b && field[a] == ' ') ++a;
  while (b > a && field[b - 1] == ' ') --b;
  if (a == b) return 1;
  char c0 = field[a];
  if (is_digit(c0) || c0 == '-' || c0 == '+') {
    size_t i = a;
    bool neg = false;
    if (field[i] == '-' || field[i] == '+') neg = field[i++] == '-';
    if (i == b) return -1;
    int64_t v = 0;
    for (; i < b; ++i) {
      if (!is_digit(field[i])) return -1;
      v = v * 10 + (field[i] - '0');
    }
    *value = (int32_t)(neg ? -v : v);
    return 0;
  }
  /* hybrid-36: the field is full width, all upper or all lower case base-36 digits */
  if (a != 0 || b != width || !is_alpha(c0)) return -1;
  bool upper = c0 >= 'A' && c0 <= 'Z';
  int64_t v = 0, p36 = 1;
  for (size_t i = 0; i < width; ++i) {
    char c = field[i];
    if (is_alpha(c) && ((c >= 'A' && c <= 'Z') != upper)) return -1;
    int d = base36_digit(c);
    if (d < 0) return -1;
    v = v * 36 + d;
  }
  for (size_t i = 1; i < width; ++i) p36 *= 36;
  int64_t p10 = 1;
  for (size_t i = 0; i < width; ++i) p10 *= 10;
  /* upper: "A000..." (= 10 * 36^(w-1)) maps to 10^w; lower continues after "ZZZ..." */
  int64_t r = v - 10 * p36 + p10;
  if (!upper) r += 26 * p36;
  if (r > INT32_MAX) return -1;
  *value = (int32_t)r;
  return 0;
}

/* sp_hy36_decode with its usual case inline: 1-W right-justified decimal digits after blanks (serials,
 * residue numbers); anything else goes to sp_hy36_decode (the same value and return code). */
static inline int hy36(const char *f, size_t w, int32_t *value) {
  if (w > 8) return sp_hy36_decode(f, w, value);
  size_t i = w;
  int32_t v = 0, p10 = 1;
  while (i > 0 && is_digit(f[i - 1])) v += (f[--i] - '0') * p10, p10 = i ? p10 * 10 : p10;
  if (i == w) return sp_hy36_decode(f, w, value);
  size_t j = i;
  while (j > 0 && f[j - 1] == ' ') --j;
  if (j) return sp_hy36_decode(f, w, value);
  *value = v;
  return 0;
}

/* Standard residues that hold no two-letter element (amino acids, nucleotides, water). */
static bool standard_residue(sp_sv c) {
  static const char *const k_std[] = {"ALA", "ARG", "ASN", "ASP", "CYS", "GLN", "GLU", "GLY", "HIS", "ILE",
                                      "LEU", "LYS", "MET", "PHE", "PRO", "SER", "THR", "TRP", "TYR", "VAL",
                                      "UNK", "A",   "C",   "G",   "U",   "I",   "DA",  "DC",  "DG",  "DT",
                                      "DI",  "DU",  "N",   "DN",  "HOH", "WAT", "DOD", "TIP", "TIP3"};
  for (size_t i = 0; i < sizeof k_std / sizeof *k_std; ++i)
    if (sp_sv_eq(c, k_std[i])) return true;
  return false;
}

uint8_t sp_pdb_element_from_name(const char name4[4], sp_sv comp_id) {
  char c0 = name4[0], c1 = name4[1];
  if (c0 == ' ' || is_digit(c0)) /* rule 1 */
    return is_alpha(c1) ? sp_element_from_symbol(&c1, 1) : 0;
  if (!is_alpha(c0)) return 0;
  bool four = name4[1] != ' ' && name4[2] != ' ' && name4[3] != ' ';
  if (four && (c0 == 'H' || c0 == 'h' || c0 == 'D' || c0 == 'd')) return 1; /* rule 2 */
  uint8_t one = sp_element_from_symbol(&c0, 1);
  if (is_alpha(c1)) { /* rule 3 */
    uint8_t two = sp_element_from_symbol(name4, 2);
    if (two && !(one && standard_residue(comp_id))) return two;
  }
  return one; /* rule 4 */
}

/* Two-letter elements taken from a bare name whose first letter is itself an element, in a
 * residue that is not standard: the halogens and the metals and metalloids of ligands and
 * cofactors (BR, CL, FE of haems, SE of MSE, ...). Left out: those that read as an element and
 * a remoteness letter (CA, CD, CE, HG, NE: alpha, delta, epsilon, gamma) or that are common
 * ligand atom names (CM, CN, NO, PB/PG/PA of nucleotides). */
static bool two_letter_from_bare(char c0, char c1) {
  static const char k_two[][3] = {"BR", "CL", "CR", "CU", "FE", "NI", "SE", "SI"};
  char u0 = (char)(c0 & ~0x20), u1 = (char)(c1 & ~0x20);
  for (size_t i = 0; i < sizeof k_two / sizeof *k_two; ++i)
    if (k_two[i][0] == u0 && k_two[i][1] == u1) return true;
  return false;
}

uint8_t sp_pdb_element_from_bare_name(sp_sv name, sp_sv comp_id) {
  size_t i = 0;
  while (i < name.n && is_digit(name.p[i])) ++i;
  size_t nl = 0;
  while (i + nl < name.n && is_alpha(name.p[i + nl])) ++nl;
  if (!nl) return 0;
  const char *t = name.p + i;
  uint8_t one = sp_element_from_symbol(t, 1), two = nl >= 2 ? sp_element_from_symbol(t, 2) : 0;
  if (two && i == 0 && name.n == 2 && comp_id.n == 2 && (t[0] & ~0x20) == (comp_id.p[0] & ~0x20) &&
      (t[1] & ~0x20) == (comp_id.p[1] & ~0x20))
    return two; /* ion residue named after its element: CA/CA, ZN/ZN, CL/CL */
  if (!one) return two;
  if (two && !standard_residue(comp_id) && two_letter_from_bare(t[0], t[1])) return two;
  return one;
}

/* ---- the reader ---- */

/* Columns a row can do without (issue 20): an unreadable value is a warning and a stand-in
 * value for that atom, not a failed file (docs/format.md, "Unreadable values in the input files"). */
enum { COL_SERIAL, COL_OCC, COL_B, COL_CHARGE, N_SOFT_COLS };

typedef struct {
  sp_structure *s;
  sp_err *err;
  int32_t model_num;
  int32_t last_serial;
  bool serial_warned;
  uint32_t n_serial_more; /* serials that did not increase after the warned one (one warning gives the count) */
  uint32_t n_inner_cr;    /* lone CRs read as line ends inside LF-terminated text (one warning gives the count) */
  bool ended;         /* an END record was read (its absence: the file may be cut) */
  bool element_warned;
  bool right_justified;  /* a 1-2 character atom name in columns 15-16 (13-14 blank) */
  size_t n_element_from_name;
  uint32_t n_unreadable[N_SOFT_COLS]; /* atoms with an unreadable value, per column */
  /* models (issue 20): every MODEL record and every run of atoms after ENDMDL is a model of its
   * own; a number that is not above all numbers before it is replaced (see new_model_number) */
  bool any_model;        /* a model number is in use (MODEL read, or atoms read without MODEL) */
  bool model_closed;     /* ENDMDL read, no MODEL or atom since */
  int32_t max_model;     /* the largest model number in use */
  uint32_t n_renumbered, n_implicit;
  size_t n_atom_records;
  char method[128];
  size_t n_conn_pdb; /* number of sp_conn added from LINK (for the metal pass) */
  uint32_t conect_warned; /* unreadable CONECT serials so far */
} reader;

static const char *const k_soft_name[N_SOFT_COLS] = {"atom serial", "occupancy", "temperature factor", "charge"};
static const char *const k_soft_taken[N_SOFT_COLS] = {"0", "1.0", "NaN", "0"};

/* An unreadable value of a column the atom can do without: the first one of the file is a
 * warning (line, column, value, what it is taken as); the others are counted (unreadable_summary). */
static void unreadable(reader *r, const line_t *l, int c, sp_sv v) {
  if (!r->n_unreadable[c]++)
    sp_structure_warn(r->s, "line %zu: %s '%.*s' is not readable, taken as %s", l->no, k_soft_name[c],
                      (int)(v.n > 40 ? 40 : v.n), v.p, k_soft_taken[c]);
}

/* One warning per column whose unreadable values were more than the first one. */
static void unreadable_summary(reader *r) {
  for (int c = 0; c < N_SOFT_COLS; ++c)
    if (r->n_unreadable[c] > 1)
      sp_structure_warn(r->s, "%u atom records in all with an unreadable %s (taken as %s)", r->n_unreadable[c],
                        k_soft_name[c], k_soft_taken[c]);
}

/* Atoms whose element came from the name: one warning saying how many and by which rule. A file
 * with right-justified names (a name of 1-2 characters in columns 15-16, as "%4s" writes it) has
 * lost the column-13/14 alignment for every name, so that all of them are read again as bare
 * names (sp_pdb_element_from_bare_name). */
static void elements_from_names(reader *r) {
  sp_structure *s = r->s;
  if (!r->n_element_from_name) return;
  if (r->right_justified)
    for (size_t i = 0; i < s->n_atoms; ++i) {
      if (!(s->atom_flags[i] & SP_ATOM_ELEMENT_FROM_NAME)) continue;
      const char *comp = s->residues[s->atom_residue[i]].comp_id;
      s->element[i] = sp_pdb_element_from_bare_name((sp_sv){s->atom_name[i], strlen(s->atom_name[i])},
                                                     (sp_sv){comp, strlen(comp)});
      s->atom_flags[i] = (uint8_t)((s->atom_flags[i] & ~SP_ATOM_HYDROGEN) | (s->element[i] == 1 ? SP_ATOM_HYDROGEN : 0));
    }
  sp_structure_warn(s, "elements of %zu atom records inferred from atom names (%s)", r->n_element_from_name,
                    r->right_justified ? "names right-justified: read without their alignment"
                                       : "element columns 77-78 blank or unknown");
}

/* The model that the next atoms go to starts: number v as written, unless a model with that number
 * or a larger one came before (every frame of a trajectory written as MODEL 1, numbers out of
 * order): then the number above the largest so far, so that (structure, model number) still
 * names one model. gemmi refuses such files ("duplicate MODEL number"); biopython reads each
 * MODEL as a model of its own, as here. */
static void start_model(reader *r, const line_t *l, int32_t v, bool implicit) {
  if (implicit || (r->any_model && v <= r->max_model)) {
    int32_t n = r->max_model < INT32_MAX ? r->max_model + 1 : r->max_model;
    if (implicit && !r->n_implicit++)
      sp_structure_warn(r->s, "line %zu: atom records after ENDMDL without a MODEL record: read as model %d", l->no, n);
    if (!implicit && !r->n_renumbered++)
      sp_structure_warn(r->s, "line %zu: MODEL %d is not above the model numbers before it (%d): read as a separate model numbered %d",
                        l->no, v, r->max_model, n);
    v = n;
  }
  r->model_num = v;
  r->max_model = r->any_model && r->max_model > v ? r->max_model : v;
  r->any_model = true;
  r->model_closed = false;
  r->last_serial = 0; /* each model's serials may start again; one that does not increase within it is warned */
}

/* Before an ATOM/HETATM record: the model it belongs to. */
static void atom_model(reader *r, const line_t *l) {
  if (r->model_closed) start_model(r, l, 0, true);
  else if (!r->any_model) r->any_model = true, r->max_model = r->model_num; /* atoms without MODEL: model 1 */
}

static void model_summary(reader *r) {
  if (r->n_renumbered > 1)
    sp_structure_warn(r->s, "%u MODEL records in all renumbered (their number was not above those before)", r->n_renumbered);
  if (r->n_implicit > 1)
    sp_structure_warn(r->s, "%u runs of atom records in all after ENDMDL without MODEL, each read as a model", r->n_implicit);
}

static int bad(reader *r, const line_t *l, const char *what, sp_sv v) {
  return sp_err_set(r->err, SP_E_BAD_VALUE, "line %zu: %s '%.*s' is not a number", l->no, what,
                    (int)(v.n > 40 ? 40 : v.n), v.p);
}

/* Residue name: 18-20, or 18-21 when column 21 is not blank (MD tools). */
static sp_sv res_name(const line_t *l, size_t c18) {
  return fld(l, c18, col(l, c18 + 3) != ' ' ? c18 + 3 : c18 + 2);
}

/* Residue number + insertion code at columns c..c+4 (resSeq 4 columns + iCode).
 * @return 0, or -1 if the number does not parse. */
static int res_seq(const line_t *l, size_t c, int32_t *seq, char *icode) {
  char fb[5];
  const char *f = l->p + c - 1; /* in place when the line holds the columns (ATOM records: 54 at least) */
  if (c + 4 > l->n) {
    raw(l, c, c + 4, fb);
    f = fb;
  }
  bool digits4 = is_digit(f[0]) && is_digit(f[1]) && is_digit(f[2]) && is_digit(f[3]);
  if (digits4 && is_digit(f[4])) { /* 5-digit residue number (MD tools, case B20) */
    int32_t v = 0;
    for (int i = 0; i < 5; ++i) v = v * 10 + (f[i] - '0');
    *seq = v;
    *icode = 0;
    return 0;
  }
  int rc = hy36(f, 4, seq);
  if (rc < 0) return -1;
  if (rc == 1) *seq = SP_SEQ_NONE;
  *icode = f[4] == ' ' ? 0 : f[4];
  return 0;
}

static int read_atom(reader *r, const line_t *l, bool het) {
  sp_structure *s = r->s;
  /* every field set here or below, no memset: a memset of the struct (rep stos) and the loads of
   * fields it had just zeroed were a fifth of this function's time (perf, issue 28) */
  sp_atom_in a;
  a.model_num = r->model_num;
  a.hetatm = het;
  a.charge = 0;
  a.element_from_name = false;
  if (l->n < 54)
    return sp_err_set(r->err, SP_E_BAD_VALUE, "line %zu: %s record too short (%zu columns; coordinates need 54)",
                      l->no, het ? "HETATM" : "ATOM", l->n);
  /* serial: columns 7-11, in the line (54 columns at least) */
  const char *sf = l->p + 6;
  int rc = hy36(sf, 5, &a.serial);
  if (rc == 1) a.serial = 0;
  if (rc < 0) {
    a.serial = 0;
    if (memcmp(sf, "*****", 5)) unreadable(r, l, COL_SERIAL, fld(l, 7, 11)); /* ***** : MD tools' overflow */
  }
  if (a.serial && a.serial <= r->last_serial) { /* once a file, then counted (as unreadable values) */
    if (!r->serial_warned)
      sp_structure_warn(s, "line %zu: atom serial %d does not increase (previous %d): serials restart or repeat",
                        l->no, a.serial, r->last_serial);
    else
      r->n_serial_more++;
    r->serial_warned = true;
  }
  if (a.serial) r->last_serial = a.serial;

  a.atom_name = fld(l, 13, 16);
  char alt = col(l, 17);
  a.altloc = alt == ' ' ? 0 : alt;
  a.comp_id = res_name(l, 18);
  a.auth_asym_id = fld(l, 22, 22);
  a.label_asym_id.p = a.entity_id.p = l->p; /* field by field: a copy of the struct just stored stalls */
  a.label_asym_id.n = a.entity_id.n = 0;
  a.label_seq_id = SP_SEQ_NONE;
  if (res_seq(l, 23, &a.auth_seq_id, &a.ins_code)) return bad(r, l, "residue number", fld(l, 23, 26));

  double x, y, z, occ = 1.0, b = 0.0;
  sp_sv v;
  if (!fixed_real(l->p + 30, 8, 3, &x) && parse_real(v = fld(l, 31, 38), &x)) return bad(r, l, "x coordinate", v);
  if (!fixed_real(l->p + 38, 8, 3, &y) && parse_real(v = fld(l, 39, 46), &y)) return bad(r, l, "y coordinate", v);
  if (!fixed_real(l->p + 46, 8, 3, &z) && parse_real(v = fld(l, 47, 54), &z)) return bad(r, l, "z coordinate", v);
  if (!(l->n >= 60 && fixed_real(l->p + 54, 6, 2, &occ)) && parse_real(v = fld(l, 55, 60), &occ) < 0)
    occ = 1.0, unreadable(r, l, COL_OCC, v);
  if (!(l->n >= 66 && fixed_real(l->p + 60, 6, 2, &b)) && parse_real(v = fld(l, 61, 66), &b) < 0)
    b = NAN, unreadable(r, l, COL_B, v);
  a.x = (float)x;
  a.y = (float)y;
  a.z = (float)z;
  a.occupancy = (float)occ;
  a.b_iso = (float)b;

  /* element */
  sp_sv es = fld(l, 77, 78);
  uint8_t el = 0;
  if (es.n == 1) { /* fast path for the organic elements, the bulk of every file */
    switch (es.p[0]) {
      case 'C': el = 6; break;
      case 'N': el = 7; break;
      case 'O': el = 8; break;
      case 'H': el = 1; break;
      case 'S': el = 16; break;
      case 'P': el = 15; break;
      default: el = sp_element_from_symbol(es.p, es.n); break;
    }
  } else if (es.n) {
    el = sp_element_from_symbol(es.p, es.n);
  }
  if (!el) {
    const char *name4 = l->p + 12; /* columns 13-16 of an ATOM record (54 columns at least) */
    el = sp_pdb_element_from_name(name4, a.comp_id);
    a.element_from_name = true;
    r->n_element_from_name++;
    if (name4[0] == ' ' && name4[1] == ' ' && a.atom_name.n) r->right_justified = true;
    if (es.n && !r->element_warned) {
      sp_structure_warn(s, "line %zu: element '%.*s' unknown, guessed %s from the atom name", l->no, (int)es.n,
                        es.p, sp_element_symbol(el));
      r->element_warned = true;
    }
  }
  a.element = el;
  /* charge: digit then sign ("2+"), or sign then digit ("+2") */
  char q0 = col(l, 79), q1 = col(l, 80);
  if (q0 != ' ' || q1 != ' ') {
    int chg = 0;
    bool ok = true;
    if (is_digit(q0) && (q1 == '+' || q1 == '-')) chg = (q0 - '0') * (q1 == '-' ? -1 : 1);
    else if (is_digit(q1) && (q0 == '+' || q0 == '-')) chg = (q1 - '0') * (q0 == '-' ? -1 : 1);
    else if (q0 == ' ' && is_digit(q1)) chg = q1 - '0';
    else if (is_digit(q0) && q1 == ' ') chg = q0 - '0';
    else ok = false;
    if (!ok) unreadable(r, l, COL_CHARGE, (sp_sv){l->p + 78, l->n >= 80 ? 2 : 1});
    a.charge = (int8_t)chg;
  }
  r->n_atom_records++;
  return sp_structure_add_atom_inline(s, &a, r->err);
}

/* "  1555" -> "1_555" (mmCIF spelling); blank -> "". */
static void symop(const line_t *l, size_t c0, size_t c1, char out[12]) {
  sp_sv v = fld(l, c0, c1);
  out[0] = 0;
  if (!v.n) return;
  bool digits = v.n >= 4 && v.n <= 9;
  for (size_t i = 0; i < v.n && digits; ++i) digits = is_digit(v.p[i]);
  if (digits) {
    size_t k = v.n - 3;
    memcpy(out, v.p, k);
    out[k] = '_';
    memcpy(out + k + 1, v.p + k, 3);
    out[k + 4] = 0;
  } else {
    sp_sv_copy(out, 12, v);
  }
}

static void conn_end(const line_t *l, size_t c_name, size_t c_res, size_t c_chain, size_t c_seq,
                     sp_conn_end *e, bool ssbond) {
  memset(e, 0, sizeof *e);
  if (ssbond) {
    memcpy(e->atom_name, "SG", 3);
    e->altloc = 0;
  } else {
    sp_sv_copy(e->atom_name, SP_ID_LEN, fld(l, c_name, c_name + 3));
    char alt = col(l, c_name + 4);
    e->altloc = alt == ' ' ? 0 : alt;
  }
  sp_sv_copy(e->comp_id, SP_ID_LEN, ssbond ? fld(l, c_res, c_res + 2) : res_name(l, c_res));
  sp_sv_copy(e->auth_asym_id, SP_ID_LEN, fld(l, c_chain, c_chain));
  e->label_seq_id = SP_SEQ_NONE;
  int32_t seq = SP_SEQ_NONE;
  char ic = 0;
  if (res_seq(l, c_seq, &seq, &ic)) seq = SP_SEQ_NONE; /* unreadable number: end stays unresolved */
  e->auth_seq_id = seq;
  e->ins_code = ic;
  e->atom = -1;
}

static int read_link(reader *r, const line_t *l, bool ssbond) {
  sp_conn c;
  memset(&c, 0, sizeof c);
  c.distance = NAN;
  if (ssbond) {
    c.type = SP_CONN_DISULF;
    conn_end(l, 0, 12, 16, 18, &c.a, true);
    conn_end(l, 0, 26, 30, 32, &c.b, true);
  } else {
    c.type = SP_CONN_COVALE; /* may become METALC after the atoms are known */
    conn_end(l, 13, 18, 22, 23, &c.a, false);
    conn_end(l, 43, 48, 52, 53, &c.b, false);
  }
  symop(l, 60, 65, c.a.symmetry);
  symop(l, 67, 72, c.b.symmetry);
  double d;
  if (parse_real(fld(l, 74, 78), &d) == 0) c.distance = (float)d;
  if (!c.a.comp_id[0] && !c.a.atom_name[0]) return 0; /* empty record */
  int rc = sp_structure_add_conn(r->s, &c, r->err);
  if (!rc && !ssbond) r->n_conn_pdb++;
  return rc;
}

static int read_seqres(reader *r, const line_t *l) {
  sp_structure *s = r->s;
  sp_sv chain = fld(l, 12, 12);
  size_t ent;
  sp_entity *last = s->n_entities ? &s->entities[s->n_entities - 1] : NULL;
  if (last && sp_sv_eq(chain, last->id)) {
    ent = s->n_entities - 1;
  } else {
    for (size_t i = 0; i < s->n_entities; ++i)
      if (sp_sv_eq(chain, s->entities[i].id)) {
        sp_structure_warn(s, "line %zu: SEQRES of chain '%.*s' not contiguous, ignored", l->no, (int)chain.n,
                          chain.p);
        return 0;
      }
    sp_entity e;
    memset(&e, 0, sizeof e);
    sp_sv_copy(e.id, sizeof e.id, chain);
    sp_sv_copy(e.strand_ids, sizeof e.strand_ids, chain);
    e.type = SP_ENT_POLYMER;
    int rc = sp_structure_add_entity(s, &e, r->err);
    if (rc) return rc;
    ent = s->n_entities - 1;
  }
  /* residue names from column 20 on, blank-separated */
  size_t i = 19;
  while (i < l->n) {
    while (i < l->n && l->p[i] == ' ') ++i;
    size_t j = i;
    while (j < l->n && l->p[j] != ' ') ++j;
    if (j > i) {
      sp_sv v = {l->p + i, j - i};
      int rc = sp_structure_add_seq(s, ent, v, r->err);
      if (rc) return rc;
    }
    i = j;
  }
  return 0;
}

/* Polymer type of a SEQRES entity from its residue names (sp_poly_type_guess). */
static void guess_poly_types(sp_structure *s) {
  for (size_t e = 0; e < s->n_entities; ++e) {
    sp_entity *en = &s->entities[e];
    /* an entity of no SEQRES residue (a record without names) has no row in seq_comp, which may be NULL */
    if (en->seq_len == 0 || !s->seq_comp) {
      en->poly_type = sp_poly_type_guess(NULL, 0);
      continue;
    }
    en->poly_type = sp_poly_type_guess((const char(*)[SP_ID_LEN])s->seq_comp[en->seq_first], en->seq_len);
  }
}

static uint8_t end_element(const sp_structure *s, const sp_conn_end *e) {
  if (e->atom >= 0 && (size_t)e->atom < s->n_atoms) return s->element[e->atom];
  char name4[4] = {' ', ' ', ' ', ' '};
  size_t n = strlen(e->atom_name);
  /* LINK names carry the column-13 alignment, lost by trimming: a name of the residue's
   * own name (ion residues "ZN"/"ZN", "CA"/"CA") or of 4 characters starts in column 13 */
  bool col13 = n == 4 || !strcmp(e->atom_name, e->comp_id);
  memcpy(name4 + (col13 ? 0 : 1), e->atom_name, n > (col13 ? 4 : 3) ? (col13 ? 4 : 3) : n);
  sp_sv c = {e->comp_id, strlen(e->comp_id)};
  return sp_pdb_element_from_name(name4, c);
}

static bool rec(const line_t *l, const char *name) {
  size_t n = strlen(name);
  if (l->n < n || memcmp(l->p, name, n)) return false;
  for (size_t c = n + 1; c <= 6; ++c)
    if (col(l, c) != ' ') return false;
  return true;
}

/* CRYST1 (PDB format v3.3): a 7-15, b 16-24, c 25-33, alpha 34-40, beta 41-47, gamma 48-54, space group
 * 56-66, Z 67-70. A field that is not a number leaves the cell NAN (no symmetry), with a warning. */
static void read_cryst1(sp_structure *s, const line_t *l) {
  static const size_t k_col[6][2] = {{7, 15}, {16, 24}, {25, 33}, {34, 40}, {41, 47}, {48, 54}};
  double cell[6];
  for (int k = 0; k < 6; k++)
    if (parse_real(fld(l, k_col[k][0], k_col[k][1]), &cell[k]) != 0) {
      sp_structure_warn(s, "line %zu: CRYST1 columns %zu-%zu are not a number; no crystal symmetry", l->no,
                        k_col[k][0], k_col[k][1]);
      return;
    }
  memcpy(s->cell, cell, sizeof cell);
  sp_sv g = fld(l, 56, 66);
  if (sp_sv_copy(s->spacegroup, sizeof s->spacegroup, g)) s->spacegroup[0] = 0;
  double z;
  if (parse_real(fld(l, 67, 70), &z) == 0 && z >= 1 && z < 1e6) s->cell_z = (int32_t)z;
}

/* SCALEn: s[n][1..3] columns 11-20, 21-30, 31-40, u[n] 46-55. All three lines must be readable. */
static void read_scale(sp_structure *s, const line_t *l, unsigned *seen) {
  int n = col(l, 6) - '1';
  if (n < 0 || n > 2) return;
  static const size_t k_col[4][2] = {{11, 20}, {21, 30}, {31, 40}, {46, 55}};
  for (int j = 0; j < 4; j++)
    if (parse_real(fld(l, k_col[j][0], k_col[j][1]), &s->scale[n][j]) != 0 || !isfinite(s->scale[n][j])) {
      *seen |= 8u; /* unreadable: ignore all three */
      return;
    }
  *seen |= 1u << n;
  s->has_scale = *seen == 7u;
}

/* CONECT (format v3.3 section 10): serial 7-11, bonded serials 12-16, 17-21, 22-26, 27-31 (decimal
 * or hybrid-36); the hydrogen-bond and salt-bridge fields of format 2.x (32-61) are not bonds and
 * are not read. An unreadable serial drops its entry, with one warning per file. */
static void conect_unreadable(reader *r, const line_t *l, size_t c) {
  sp_sv v = fld(l, c, c + 4);
  if (!r->conect_warned++)
    sp_structure_warn(r->s, "line %zu: CONECT serial '%.*s' (columns %zu-%zu) is not readable: that entry is ignored",
                      l->no, (int)v.n, v.p, c, c + 4);
}

static int read_conect(reader *r, const line_t *l) {
  char f[5];
  int32_t from = 0, to = 0;
  raw(l, 7, 11, f);
  if (sp_hy36_decode(f, 5, &from) != 0 || from <= 0) {
    conect_unreadable(r, l, 7);
    return 0;
  }
  for (size_t c = 12; c <= 27; c += 5) {
    raw(l, c, c + 4, f);
    int rb = sp_hy36_decode(f, 5, &to);
    if (rb == 1) continue; /* blank field */
    if (rb < 0 || to <= 0) {
      conect_unreadable(r, l, c);
      continue;
    }
    int e = sp_structure_add_conect(r->s, from, to, r->err);
    if (e) return e;
  }
  return 0;
}

static void add_method(reader *r, const line_t *l) {
  sp_sv v = fld(l, 11, 79);
  size_t k = strlen(r->method);
  if (!v.n) return;
  if (k && k + 1 < sizeof r->method && r->method[k - 1] != ';' && v.p[0] != ';') r->method[k++] = ' ';
  size_t m = v.n < sizeof r->method - 1 - k ? v.n : sizeof r->method - 1 - k;
  memcpy(r->method + k, v.p, m);
  r->method[k + m] = 0;
}

int sp_pdb_read(const char *text, size_t len, sp_structure *s, sp_err *err) {
  reader r;
  memset(&r, 0, sizeof r);
  r.s = s;
  r.err = err;
  r.model_num = 1;
  unsigned scale_seen = 0;
  sp_pdb_meta meta;
  memset(&meta, 0, sizeof meta);
  const char *p = text, *end = text + len;
  size_t line_no = 0;
  int rc = 0;
  s->has_label_ids = 0;
  s->has_auth_ids = 1;
  while (p < end && !rc) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    const char *e = nl ? nl : end;
    /* a lone CR inside an LF-terminated line (mixed line ends: records joined by CR) ends the record, as
     * in a CR-only file (src/read/cr_lines.h); only lines longer than a record are searched */
    if (e - p > 81) {
      const char *cr = memchr(p, '\r', (size_t)(e - p) - 1);
      if (cr) e = nl = cr, r.n_inner_cr++;
    }
    line_t l = {p, (size_t)(e - p), ++line_no};
    p = nl ? nl + 1 : end;
    while (l.n && (l.p[l.n - 1] == '\r')) --l.n;
    if (l.n < 3) continue;
    if (l.p[0] == 'R' || l.p[0] == 'D' || (l.p[0] == 'M' && l.p[1] == 'O' && l.p[2] == 'D' && l.n > 4 && l.p[3] == 'R') ||
        (l.p[0] == 'H' && l.p[1] == 'E' && l.p[2] == 'A'))
      if ((rc = sp_pdb_meta_line(&meta, s, l.p, l.n, l.no, err))) break;
    switch (l.p[0]) {
      case 'A':
        if (l.n >= 4 && !memcmp(l.p, "ATOM", 4) && (l.n == 4 || l.p[4] == ' ')) {
          atom_model(&r, &l);
          rc = read_atom(&r, &l, false);
        }
        break;
      case 'H':
        if (l.n >= 6 && !memcmp(l.p, "HETATM", 6)) {
          atom_model(&r, &l);
          rc = read_atom(&r, &l, true);
        }
        else if (rec(&l, "HEADER")) sp_sv_copy(s->entry_id, sizeof s->entry_id, fld(&l, 63, 66));
        break;
      case 'M':
        if (rec(&l, "MODEL")) {
          int32_t v = 0;
          sp_sv f = fld(&l, 7, 80); /* the serial (columns 11-14), as the first token */
          for (size_t k = 0; k < f.n; ++k)
            if (f.p[k] == ' ' || f.p[k] == '\t') {
              f.n = k;
              break;
            }
          int hr = f.n && f.n <= 8 ? sp_hy36_decode(f.p, f.n, &v) : (f.n ? -1 : 1);
          if (hr < 0) {
            free(meta.mod);
            return sp_err_set(err, SP_E_BAD_VALUE, "line %zu: MODEL number '%.*s' is not a number", l.no,
                              (int)(f.n > 20 ? 20 : f.n), f.p);
          }
          if (hr == 1) v = r.any_model ? r.max_model + 1 : 1; /* a blank number: the next one */
          start_model(&r, &l, v, false);
        }
        break;
      case 'E':
        if (rec(&l, "END")) {
          r.ended = true;
          goto done;
        }
        if (rec(&l, "ENDMDL")) r.model_closed = true;
        if (rec(&l, "EXPDTA")) add_method(&r, &l);
        break;
      case 'R':
        if (l.n >= 10 && !memcmp(l.p, "REMARK   2", 10)) {
          sp_sv f = fld(&l, 11, 80);
          if (f.n > 11 && !memcmp(f.p, "RESOLUTION.", 11)) {
            sp_sv t = {f.p + 11, f.n - 11};
            while (t.n && t.p[0] == ' ') ++t.p, --t.n;
            size_t k = 0;
            while (k < t.n && t.p[k] != ' ') ++k;
            t.n = k;
            double d;
            if (parse_real(t, &d) == 0) s->resolution = (float)d;
          }
        }
        break;
      case 'C':
        if (rec(&l, "CRYST1")) read_cryst1(s, &l);
        else if (rec(&l, "CONECT")) rc = read_conect(&r, &l);
        break;
      case 'S':
        if (rec(&l, "SEQRES")) rc = read_seqres(&r, &l);
        else if (rec(&l, "SSBOND")) rc = read_link(&r, &l, true);
        else if (l.n >= 6 && !memcmp(l.p, "SCALE", 5)) read_scale(s, &l, &scale_seen);
        break;
      case 'L':
        if (rec(&l, "LINK")) rc = read_link(&r, &l, false);
        break;
      default:
        break;
    }
  }
done:
  if (!rc) rc = sp_pdb_meta_finish(&meta, s, err);
  else free(meta.mod);
  if (rc) return rc;
  unreadable_summary(&r);
  if (r.n_inner_cr)
    sp_structure_warn(s, "%u lone CR characters inside LF-terminated lines (mixed line ends) read as line ends",
                      r.n_inner_cr);
  if (r.n_serial_more)
    sp_structure_warn(s, "atom serial does not increase at %u more records after the one above", r.n_serial_more);
  model_summary(&r);
  if (!r.ended) /* a file cut at a line end parses; only the missing last record tells (issue: trial 3) */
    sp_structure_warn(s, "no END record (the last record of a PDB file, PDB format 3.3): the file may be cut short");
  elements_from_names(&r);
  sp_text_fit(s->method, sizeof s->method, r.method); /* a cut method ends with "..." */
  if (!r.n_atom_records) return sp_err_set(err, SP_E_NO_ATOMS, "no atoms (no ATOM/HETATM records)");
  guess_poly_types(s);
  if ((rc = sp_structure_finish(s, err))) return rc;
  for (size_t i = 0; i < s->n_conns; ++i) {
    sp_conn *c = &s->conns[i];
    if (c->type != SP_CONN_COVALE) continue;
    if (sp_element_is_metal(end_element(s, &c->a)) || sp_element_is_metal(end_element(s, &c->b)))
      c->type = SP_CONN_METALC;
  }
  return 0;
}

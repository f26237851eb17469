/* Internal helpers shared by the mmCIF and CCD readers (not a public interface). */
#ifndef SITEPACK_CIF_INTERNAL_H
#define SITEPACK_CIF_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "sitepack/cif.h"

/**
 * Bond order of a _chem_comp_bond.value_order (PDBx: SING, DOUB, TRIP, QUAD, AROM, DELO,
 * PI, POLY) or monomer-library _chem_comp_bond.type (single, double, triple, aromatic,
 * deloc, metal) value, case-insensitive: 1, 2, 3, else 4 (delocalised/unknown).
 * Sets *aromatic to 1 for AROM / aromatic (leaves it alone otherwise).
 */
uint8_t sp_cif_bond_order(const sp_cif_value *v, uint8_t *aromatic);

/**
 * The protein context of an mmCIF entry (src/cif/mmcif_meta.c), read after the atoms and entities:
 * _entity_poly.pdbx_seq_one_letter_code_can into each entity's one-letter sequence, _struct_ref +
 * _struct_ref_seq into sp_structure.dbrefs, _refine R factors, deposition and release dates
 * (_pdbx_database_status, _pdbx_audit_revision_history, _database_PDB_rev), and the first assembly
 * (_pdbx_struct_assembly_gen, _pdbx_struct_oper_list) into asm_gens / asm_ops. Missing or unreadable
 * values leave fields empty (a warning where a value is malformed). @return 0 or SP_E_NOMEM.
 */
struct sp_structure;
int sp_mmcif_read_context(const sp_cif_doc *d, const sp_cif_block *b, struct sp_structure *s, sp_err *err);

/** Column index of @p item in @p cat (case-insensitive), -1 if @p cat is NULL or lacks it. */
static inline int sp_cif_col(const sp_cif_doc *d, const sp_cif_category *cat, const char *item) {
  return cat ? sp_cif_find_column(d, cat, item) : -1;
}

/* ---- numbers of _atom_site: a float as the mmCIF reader stores it (here for its test) ---- */

/* A coordinate-like decimal as float (the reference for sp_cif_float_swar). With at most 7 digits and 10 decimals, mantissa and
 * power of ten are exact floats, so one IEEE division gives the float nearest to the
 * written decimal; anything else goes through sp_cif_parse_double. */
static inline bool sp_cif_float_scalar(const sp_cif_value *v, float *out) {
  static const float k_pow10f[] = {1e0f, 1e1f, 1e2f, 1e3f, 1e4f, 1e5f, 1e6f, 1e7f, 1e8f, 1e9f, 1e10f};
  if (v->kind >= SP_CIF_UNKNOWN) return false;
  const char *q = v->p, *e = v->p + v->n;
  bool neg = false;
  if (q < e && *q == '-') neg = true, ++q;
  uint32_t mant = 0;
  const char *d0 = q;
  while (q < e && (unsigned)(*q - '0') < 10) mant = mant * 10 + (unsigned)(*q++ - '0');
  size_t ip = (size_t)(q - d0), fr = 0;
  if (q < e && *q == '.') {
    const char *f0 = ++q;
    while (q < e && (unsigned)(*q - '0') < 10) mant = mant * 10 + (unsigned)(*q++ - '0');
    fr = (size_t)(q - f0);
  }
  if (q == e && ip + fr >= 1 && ip + fr <= 7 && fr <= 3) {
    /* Up to 3 decimals (coordinates, occupancy, B): a double product instead of a division.
     * Still the correctly rounded float: the product is within 2^-52 (relative) of the exact
     * m / 10^fr, while that value lies at least 2^-35 (relative) from any midpoint between two
     * floats (m < 10^7, so a midpoint k / 2^s with 25 significant bits differs from m / 10^fr
     * by at least 1 / (10^fr 2^s) >= x / (10^3 2^25)), and is never a midpoint itself (if 5^fr
     * divides m it is a float of at most 24 bits). Checked exhaustively against the division
     * for every m < 10^7 and fr <= 3. */
    static const double k_inv10[4] = {1.0, 0.1, 0.01, 0.001};
    float f = (float)((double)mant * k_inv10[fr]);
    *out = neg ? -f : f;
    return true;
  }
  if (q == e && ip + fr >= 1 && ip + fr <= 7 && fr <= 10) {
    float f = (float)mant / k_pow10f[fr];
    *out = neg ? -f : f;
    return true;
  }
  double x;
  if (!sp_cif_parse_double(v->p, v->n, &x)) return false;
  *out = (float)x;
  return true;
}

/* sp_cif_float_scalar's fast path in a few word operations (SWAR) for a plain value of at most 8
 * characters `[-]digits[.digits]` with 1 to 7 digits: the same mantissa, decimals and rounding,
 * so the same float, without a branch per character. Reads the 8 bytes at p: the caller
 * guarantees p + 8 <= end of the text. Returns false where it does not apply (the caller then
 * takes sp_cif_float_scalar). */
static inline bool sp_cif_float_swar(const char *p, uint32_t n, float *out) {
  static const float k_pow10f[] = {1e0f, 1e1f, 1e2f, 1e3f, 1e4f, 1e5f, 1e6f, 1e7f};
  if (n - 1 >= 8) return false;
  uint64_t x;
  memcpy(&x, p, 8); /* little-endian: byte i of x is p[i] */
  unsigned sh = 64 - 8 * n;
  uint64_t tok = ~0ull << sh; /* the value right-aligned: bytes 8-n .. 7 */
  x = (x << sh) | (0x3030303030303030ull & ~tok); /* '0' in front */
  uint64_t first = tok & (0 - tok);                /* lowest bit of the value's first byte */
  uint32_t neg = p[0] == '-'; /* signs of coordinates are random: no branch on them */
  x += first * (uint64_t)('0' - '-') & (0 - (uint64_t)neg); /* '-' -> '0' */
  uint64_t dots = x ^ 0x2e2e2e2e2e2e2e2eull;       /* zero byte where '.' */
  uint64_t dz = (dots - 0x0101010101010101ull) & ~dots & 0x8080808080808080ull;
  uint64_t low = dz & (0 - dz);                     /* top bit of the first '.' byte (exact), or 0 */
  uint64_t mj = (low << 1) - (low != 0);            /* bytes 0 .. that '.', or none */
  x = (x & ~mj) | (((x << 8) | 0x30) & mj);        /* the digits before the '.' move up over it */
  uint32_t fr = low ? 7 - ((uint32_t)__builtin_ctzll(low) >> 3) : 0;
  uint32_t m = n - neg - (low != 0);                /* digits written */
  if (m - 1 >= 7) return false;                     /* none, or 8 (the scalar path hands those to strtod) */
  if (((x & 0xf0f0f0f0f0f0f0f0ull) | (((x + 0x0606060606060606ull) & 0xf0f0f0f0f0f0f0f0ull) >> 4)) !=
      0x3333333333333333ull)
    return false; /* a second '.', a sign inside, 'e', ... */
  x = (x & 0x0f0f0f0f0f0f0f0full) * 2561 >> 8;
  x = (x & 0x00ff00ff00ff00ffull) * 6553601 >> 16;
  uint32_t mant = (uint32_t)((x & 0x0000ffff0000ffffull) * 42949672960001ull >> 32);
  float f;
  if (fr <= 3) {
    static const double k_inv10[4] = {1.0, 0.1, 0.01, 0.001}; /* see sp_cif_float_scalar */
    f = (float)((double)mant * k_inv10[fr]);
  } else {
    f = (float)mant / k_pow10f[fr];
  }
  uint32_t bits; /* -f by its sign bit, as neg ? -f : f gives (also -0.0f for -0.000) */
  memcpy(&bits, &f, sizeof bits);
  bits ^= neg << 31;
  memcpy(out, &bits, sizeof bits);
  return true;
}

/* A number of an _atom_site row (Cartn_x/y/z, occupancy, B_iso_or_equiv): the SWAR path where
 * it applies, else the scalar one; @p end is the end of the text (8 bytes are read at v->p). */
static inline bool sp_cif_float(const sp_cif_value *v, const char *end, float *out) {
  if (v->kind == SP_CIF_PLAIN && v->p + 8 <= end && sp_cif_float_swar(v->p, v->n, out)) return true;
  return sp_cif_float_scalar(v, out);
}

/**
 * A loop that sp_cif_parse_stream() hands to its reader row by row instead of storing its values
 * in the document: the first category named @p category of the text (in whichever data block
 * holds it first; sp_cif_stream.block says which), when that category is a loop outside save frames
 * (if its first occurrence is a run of pair items, nothing is streamed and the document holds it as
 * usual). A later loop of that name (another block's) is stored in the document as any loop. The category and its columns are in the
 * document, but with n_rows 0 and no values (the rows went to @p row); the values of a row point
 * into the text (or into the document's arena for text fields with CR LF) and stay valid as long
 * as the document. Errors of the reader are kept in @p rc: the first non-zero return of begin or
 * row stops the calls, never the parse, so that a syntax error anywhere in the text still wins.
 */
typedef struct sp_cif_stream {
  const char *category; /**< e.g. "atom_site" (no leading '_'; case-insensitive) */
  /** once, after the loop header: @p cat (valid during the call only) has its columns, no rows */
  int (*begin)(void *ctx, const sp_cif_doc *d, const sp_cif_category *cat);
  /** every complete row in order: vals[0 .. n_cols) */
  int (*row)(void *ctx, const sp_cif_value *vals);
  void *ctx;
  /** NULL, or the NULL-terminated names (no leading '_') of the other categories whose loops the
   *  reader looks up: loops of any block named by neither are checked and counted but not
   *  stored (zero rows in the document) */
  const char *const *keep;
  int state;       /**< out: SP_CIF_STREAM_ARMED (no such category), _DONE (streamed), _OFF (pairs: not streamed) */
  int rc;          /**< out: first non-zero return of begin/row, 0 if none */
  uint64_t n_rows; /**< out: rows of the streamed loop */
  size_t block;    /**< out: _DONE: index of the data block of the streamed loop */
} sp_cif_stream;

enum { SP_CIF_STREAM_ARMED = 0, SP_CIF_STREAM_DONE = 1, SP_CIF_STREAM_OFF = 2 };

/** Flag of sp_cif_parse_stream: the caller has checked that the text has no NUL byte. */
#define SP_CIF_NUL_CHECKED 1u

/** sp_cif_parse() with an optional streamed loop (@p st may be NULL) and flags. */
int sp_cif_parse_stream(const char *text, size_t len, size_t max_blocks, sp_cif_doc *doc, sp_cif_stream *st,
                        unsigned flags, sp_err *err);

/**
 * Alt ids and insertion codes of more than one character (PDBx/mmCIF allows any code in
 * _atom_site.label_alt_id and pdbx_PDB_ins_code; the PDB format, and sitepack's one-byte
 * sp_structure.altloc / sp_residue.ins_code, hold one): each distinct such value of a column
 * gets its own character, so that two of them (A1 and A2, or AA and AB) never become one altloc
 * or one residue (adversarial trial, finding 10; gemmi refuses such files: "Not a single
 * character"). While the rows are read, sp_cif_char_map_code gives each distinct value a
 * temporary code 0x80 | k (k in order of appearance); one-byte non-ASCII values go through the
 * map too (kept as they are), so that no other byte is in that range. sp_cif_char_map_finish then
 * chooses the characters: the value's first character when no one-character value of the column
 * and no earlier value took it, else the first free one of A-Z, a-z, 0-9; one warning per value
 * names it and what it was read as.
 */
typedef struct sp_cif_char_map {
  uint32_t n;          /**< distinct values seen */
  int overflow;        /**< more than 128 distinct values: the file fails (finish) */
  sp_sv val[128];      /**< the values (views into the text: valid while the document is) */
  char final[128];     /**< their characters, after sp_cif_char_map_finish */
} sp_cif_char_map;

/** The temporary code of @p v (a value that is not one ASCII character), out of line (rare). */
char sp_cif_char_map_code(sp_cif_char_map *m, sp_sv v);
/**
 * Choose the characters and rewrite the temporary codes of @p m in the atoms from @p atom0
 * (@p altloc true: sp_structure.altloc) or in the residues from @p res0 (false: ins_code) of
 * @p s, with one warning per multi-character value naming @p item. Nothing when m->n is 0.
 * @return 0; SP_E_BAD_VALUE (more than 128 distinct values, or no free character left).
 */
int sp_cif_char_map_finish(sp_cif_char_map *m, struct sp_structure *s, size_t atom0, size_t res0, bool altloc,
                           const char *item, sp_err *err);
/** The character @p v (a _struct_conn partner's alt id or insertion code) was read as in the
 *  atoms: its map entry's, else its first character; '\0' for an empty value. */
char sp_cif_char_map_lookup(const sp_cif_char_map *m, sp_sv v);

/* sp_mmcif_read_ex and its flags are public: mmcif.h (SP_MMCIF_NUL_CHECKED == SP_CIF_NUL_CHECKED). */

#endif

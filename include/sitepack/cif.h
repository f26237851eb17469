/**
 * @file cif.h
 * @brief A fast CIF 1.1 document reader: data blocks, items, loops; values as views
 *        into the caller's text.
 *
 * Grammar: CIF 1.1 (International Tables for Crystallography Vol. G, ch. 2.2, and
 * https://www.iucr.org/resources/cif/spec/version1.1/cifsyntax), as used by PDBx/mmCIF:
 *
 * - a document is a sequence of `data_NAME` blocks; each block holds items
 *   (`_category.item value`) and loops (`loop_`, then tags, then values);
 * - category and item names, and the reserved words `data_`, `loop_`, `save_`,
 *   `global_`, `stop_`, are matched case-insensitively; values keep their case;
 * - a value is unquoted (ends at whitespace), quoted with `'` or `"` (the quote closes
 *   only when followed by whitespace or end of text, so `'C4''` is `C4'`; a quoted
 *   value cannot span lines), or a text field: a line starting with `;` up to the next
 *   line starting with `;`. A text field's value is everything after the opening `;`
 *   up to, not including, the line terminator before the closing `;`; CR LF inside it
 *   is normalised to LF (the only values that are copied: see sp_cif_doc);
 * - `#` starts a comment only at the start of a line or after whitespace (so `TU#58`
 *   is one value); CR LF, LF and CR-LF-mixed files are accepted everywhere;
 * - unquoted `?` (unknown) and `.` (inapplicable) are nulls and are distinct kinds;
 *   quoted `'?'` is the string "?" and `''` is the empty string, not a null;
 * - a loop is a stream of values split into rows by its column count, so a row may
 *   span several lines; a loop with no values is accepted as a zero-row loop with a
 *   warning "empty loop ..."; in PDBx/mmCIF a loop holds one category, so a tag of
 *   another category right after a loop header (no values yet) ends that header;
 * - `save_` frames (dictionaries) are parsed for syntax and their content skipped
 *   with a warning; `global_` and `stop_` (STAR, not CIF) are rejected.
 *
 * Errors (all via sp_err, with the line number):
 * - SP_E_BINARY: a NUL byte in the text;
 * - SP_E_SYNTAX: an unquoted value starting with `_` (in the middle of a loop row) or
 *   `$` (message names the tag or the loop's category), an item with no value, an
 *   unterminated quoted value or text field, `loop_` without tags, data outside a
 *   block, `global_`/`stop_`;
 * - SP_E_ROW_COUNT: a loop whose value count is not a multiple of its column count
 *   (message names the category, e.g. "_atom_site");
 * - SP_E_TOO_LARGE: a value longer than 4 GiB - 1 bytes or more than 2^32-1 loop rows;
 * - SP_E_NOMEM.
 *
 * Speed: one pass over the text; each value is a (pointer, length, kind) view into the
 * text, stored in one growing array (no per-value allocation).
 */
#ifndef SITEPACK_CIF_H
#define SITEPACK_CIF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sitepack/error.h"
#include "sitepack/model.h"

#ifdef __cplusplus
extern "C" {
#endif

/** How a value was written. */
typedef enum sp_cif_kind {
  SP_CIF_PLAIN = 0,        /**< unquoted */
  SP_CIF_QUOTED = 1,       /**< 'single' or "double" quoted (delimiters stripped) */
  SP_CIF_TEXT = 2,         /**< ;text field; */
  SP_CIF_UNKNOWN = 3,      /**< unquoted ? (null: value unknown) */
  SP_CIF_INAPPLICABLE = 4, /**< unquoted . (null: not applicable) */
} sp_cif_kind;

/** One value: a view of n bytes at p (not NUL-terminated). For nulls p points at the
 *  '?' or '.' and n == 1. */
typedef struct sp_cif_value {
  const char *p;
  uint32_t n;
  uint32_t kind; /**< sp_cif_kind */
} sp_cif_value;

/** One column (tag) of a category. */
typedef struct sp_cif_column {
  sp_sv tag;      /**< the full tag as written, e.g. "_atom_site.Cartn_x" */
  sp_sv item;     /**< the part after the first '.', e.g. "Cartn_x" (the tag without '_' if no '.') */
  size_t first;   /**< index in sp_cif_doc.values of this column's row-0 value */
} sp_cif_column;

/** One category of a block: a loop, or a run of adjacent `_cat.item value` pairs. */
typedef struct sp_cif_category {
  sp_sv name;         /**< e.g. "_atom_site" as written (case kept; the text before '.') */
  size_t first_col;   /**< columns sp_cif_doc.cols[first_col .. first_col + n_cols) */
  uint32_t n_cols;
  uint32_t n_rows;    /**< 1 for pairs; 0 for an empty loop */
  uint32_t stride;    /**< distance between rows in sp_cif_doc.values (n_cols for loops, 0 for pairs) */
  uint8_t is_loop;
} sp_cif_category;

/** One data block. */
typedef struct sp_cif_block {
  sp_sv name;         /**< the text after "data_" */
  size_t first_cat;   /**< categories sp_cif_doc.cats[first_cat .. first_cat + n_cats) */
  size_t n_cats;
  size_t offset;      /**< byte offset of "data_" in the text */
} sp_cif_block;

/**
 * A parsed document. Values point into the caller's text (which must outlive the
 * document) or, for text fields that contained CR LF, into the document's own arena.
 * Zero-initialise ({0}) before the first sp_cif_parse(); re-usable (sp_cif_parse
 * clears it and keeps its allocations); free with sp_cif_doc_free().
 */
typedef struct sp_cif_doc {
  size_t n_blocks, cap_blocks;
  sp_cif_block *blocks;
  size_t n_cats, cap_cats;
  sp_cif_category *cats;
  size_t n_cols, cap_cols;
  sp_cif_column *cols;
  size_t n_values, cap_values;
  sp_cif_value *values;
  void *arena;          /**< private: chunks holding normalised text fields */
  char *warnings;       /**< NUL-separated warnings (at most 100 kept) */
  size_t warnings_len, warnings_cap, n_warnings;
  const char *text;     /**< the text of the last parse (not owned) */
  size_t text_len;
} sp_cif_doc;

/**
 * Parse CIF text.
 * @param text,len  the text (need not be NUL-terminated; nothing beyond len is read)
 * @param max_blocks stop before the (max_blocks+1)-th data_ block; 0 = read all
 * @param doc       zero-initialised or previously used document (cleared first)
 * @return 0, SP_E_BINARY, SP_E_SYNTAX, SP_E_ROW_COUNT, SP_E_TOO_LARGE, SP_E_NOMEM (see file
 *         comment). An empty text or one with only comments gives 0 blocks and 0.
 */
int sp_cif_parse(const char *text, size_t len, size_t max_blocks, sp_cif_doc *doc, sp_err *err);

/** Free everything owned by @p doc and zero it. */
void sp_cif_doc_free(sp_cif_doc *doc);

/** The i-th warning of the last parse, NULL if i >= n_warnings. */
const char *sp_cif_warning(const sp_cif_doc *doc, size_t i);

/**
 * First category of block @p b named @p name ("_atom_site" or "atom_site"; case-insensitive).
 * @return a pointer into doc->cats, or NULL when absent.
 */
const sp_cif_category *sp_cif_find_category(const sp_cif_doc *doc, const sp_cif_block *b, const char *name);

/** Column index (0-based, within @p cat) of item @p item ("Cartn_x", case-insensitive), -1 if absent. */
int sp_cif_find_column(const sp_cif_doc *doc, const sp_cif_category *cat, const char *item);

/** The value at (@p row, @p col) of @p cat; @p row < n_rows and @p col < n_cols are the caller's duty. */
static inline const sp_cif_value *sp_cif_cell(const sp_cif_doc *doc, const sp_cif_category *cat, uint32_t col,
                                              uint32_t row) {
  return &doc->values[doc->cols[cat->first_col + col].first + (size_t)row * cat->stride];
}

/**
 * The value of tag @p tag ("_struct.title", case-insensitive) in row @p row of block @p b,
 * searching every category of that name. @return NULL when absent or row out of range.
 */
const sp_cif_value *sp_cif_find_value(const sp_cif_doc *doc, const sp_cif_block *b, const char *tag, uint32_t row);

/** true for the nulls '?' and '.'. */
static inline bool sp_cif_is_null(const sp_cif_value *v) { return v->kind >= SP_CIF_UNKNOWN; }

/** The value as a string view; nulls give an empty view. */
static inline sp_sv sp_cif_sv(const sp_cif_value *v) {
  sp_sv r;
  r.p = v->p;
  r.n = v->kind >= SP_CIF_UNKNOWN ? 0 : v->n;
  return r;
}

/** Case-insensitive comparison of a non-null value with @p s. */
bool sp_cif_value_ieq(const sp_cif_value *v, const char *s);

/**
 * Parse a decimal number `[+-]digits[.digits][(e|E)[+-]digits]`, optionally followed by a
 * CIF standard uncertainty `(digits)` which is ignored. Up to 18 significant digits the
 * result is the correctly rounded double of the written decimal (integer mantissa divided
 * by an exact power of ten); longer numbers and exponents use strtod.
 * @return true and *out on success; false for nulls, empty or non-numeric text.
 */
bool sp_cif_parse_double(const char *p, size_t n, double *out);

/** Parse a decimal integer `[+-]digits` that fits int32. @return false otherwise. */
bool sp_cif_parse_int(const char *p, size_t n, int32_t *out);

/** 1-based line number of the byte at @p p in the last parsed text (counts LF; 0 when
 *  @p p is not inside that text). Costs a scan from the start of the text: for messages. */
size_t sp_cif_line_of(const sp_cif_doc *doc, const char *p);

/** 1-based line of the first tag of @p cat (see sp_cif_line_of). */
static inline size_t sp_cif_category_line(const sp_cif_doc *doc, const sp_cif_category *cat) {
  return sp_cif_line_of(doc, doc->cols[cat->first_col].tag.p);
}

#ifdef __cplusplus
}
#endif
#endif

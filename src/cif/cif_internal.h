/* Internal helpers shared by the mmCIF and CCD readers (not a public interface). */
#ifndef SITEPACK_CIF_INTERNAL_H
#define SITEPACK_CIF_INTERNAL_H

#include <stdint.h>

#include "sitepack/cif.h"

/**
 * Bond order of a _chem_comp_bond.value_order (PDBx: SING, DOUB, TRIP, QUAD, AROM, DELO,
 * PI, POLY) or monomer-library _chem_comp_bond.type (single, double, triple, aromatic,
 * deloc, metal) value, case-insensitive: 1, 2, 3, else 4 (delocalised/unknown).
 * Sets *aromatic to 1 for AROM / aromatic (leaves it alone otherwise).
 */
uint8_t sp_cif_bond_order(const sp_cif_value *v, uint8_t *aromatic);

/** Column index of @p item in @p cat (case-insensitive), -1 if @p cat is NULL or lacks it. */
static inline int sp_cif_col(const sp_cif_doc *d, const sp_cif_category *cat, const char *item) {
  return cat ? sp_cif_find_column(d, cat, item) : -1;
}

/**
 * A loop that sp_cif_parse_stream() hands to its reader row by row instead of storing its values
 * in the document: the first category named @p category of the first data block, when that
 * category is a loop outside save frames (if its first occurrence is a run of pair items, nothing
 * is streamed and the document holds it as usual). The category and its columns are in the
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
   *  reader looks up: loops of the first block named by neither are checked and counted but not
   *  stored (zero rows in the document) */
  const char *const *keep;
  int state;       /**< out: SP_CIF_STREAM_ARMED (no such category), _DONE (streamed), _OFF (pairs: not streamed) */
  int rc;          /**< out: first non-zero return of begin/row, 0 if none */
  uint64_t n_rows; /**< out: rows of the streamed loop */
} sp_cif_stream;

enum { SP_CIF_STREAM_ARMED = 0, SP_CIF_STREAM_DONE = 1, SP_CIF_STREAM_OFF = 2 };

/** Flag of sp_cif_parse_stream: the caller has checked that the text has no NUL byte. */
#define SP_CIF_NUL_CHECKED 1u

/** sp_cif_parse() with an optional streamed loop (@p st may be NULL) and flags. */
int sp_cif_parse_stream(const char *text, size_t len, size_t max_blocks, sp_cif_doc *doc, sp_cif_stream *st,
                        unsigned flags, sp_err *err);

/** Flag of sp_mmcif_read_ex: look for NUL bytes after the parse instead of before (with
 *  SP_CIF_NUL_CHECKED): a text with a NUL gives SP_E_BINARY and the structure as it was before the
 *  call, whatever the parse found, as if it had been checked first. */
#define SP_MMCIF_NUL_AFTER 2u

/** sp_mmcif_read() with flags SP_CIF_NUL_CHECKED (no NUL byte in the text) or
 *  SP_CIF_NUL_CHECKED | SP_MMCIF_NUL_AFTER. */
struct sp_structure;
int sp_mmcif_read_ex(const char *text, size_t len, struct sp_structure *s, unsigned flags, sp_err *err);

#endif

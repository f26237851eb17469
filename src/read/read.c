/* Format detection and dispatch (module read, above the readers cif and pdb): see include/sitepack/read.h. */
#include "sitepack/read.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "sitepack/mmcif.h"
#include "sitepack/pdb.h"
#include "cr_lines.h"

/* PDB record names, wwPDB format v3.3 (ORIGXn, SCALEn, MTRIXn by their stem), then records
 * of format v2.3 that old files still carry (FTNOTE HYDBND SLTBRG TURN SIGATM SIGUIJ) and
 * USER, written by MolProbity/Reduce at the top of their PDB output. */
static const char *const k_pdb_records[] = {
    "FTNOTE", "HYDBND", "SLTBRG", "TURN",   "SIGATM", "SIGUIJ", "USER",
    "HEADER", "OBSLTE", "TITLE",  "SPLIT",  "CAVEAT", "COMPND", "SOURCE", "KEYWDS", "EXPDTA", "NUMMDL",
    "MDLTYP", "AUTHOR", "REVDAT", "SPRSDE", "JRNL",   "REMARK", "DBREF1", "DBREF2", "DBREF",  "SEQADV",
    "SEQRES", "MODRES", "HETNAM", "HETSYN", "HETATM", "HET",    "FORMUL", "HELIX",  "SHEET",  "SSBOND",
    "LINK",   "CISPEP", "SITE",   "CRYST1", "ORIGX",  "SCALE",  "MTRIX",  "MODEL",  "ATOM",   "ANISOU",
    "TER",    "ENDMDL", "CONECT", "MASTER", "END"};

static bool is_pdb_record(const char *p, size_t n) {
  for (size_t i = 0; i < sizeof k_pdb_records / sizeof *k_pdb_records; ++i) {
    size_t k = strlen(k_pdb_records[i]);
    if (n < k || memcmp(p, k_pdb_records[i], k)) continue;
    if (n == k) return true;
    char c = p[k];
    if (c == ' ' || c == '\t' || c == '\r' || (c >= '0' && c <= '9')) return true;
  }
  return false;
}

/* A CIF 1.1 reserved word (data_, global_, loop_, save_, stop_, case-insensitive: the IUCr CIF 1.1
 * syntax specification, paragraphs 6 (data_, save_ headers) and 55-57 (global_, loop_, stop_)) or a
 * data name ('_' first, paragraph 2.4): only CIF text starts so, no PDB record does. A text whose first line is one of them
 * is CIF, so that the CIF reader says what is wrong with it ('global_' is STAR syntax, a tag before
 * the first data_ block: syntax_error) instead of the PDB reader misreading its ATOM rows. */
static bool is_cif_start(const char *q, size_t n) {
  static const char *const k_words[] = {"data_", "global_", "loop_", "save_", "stop_"};
  if (n && q[0] == '_') return true;
  for (size_t i = 0; i < sizeof k_words / sizeof *k_words; ++i) {
    size_t k = strlen(k_words[i]);
    if (n >= k && !strncasecmp(q, k_words[i], k)) return true;
  }
  return false;
}

/* An ATOM or HETATM record in column 1 (the coordinate records of the PDB format). */
static bool is_coordinate_record(const char *p, size_t n) {
  if (n < 4 || (p[0] != 'A' && p[0] != 'H')) return false;
  if (n >= 6 && !memcmp(p, "HETATM", 6)) return true;
  return !memcmp(p, "ATOM", 4) && (n == 4 || p[4] == ' ' || (p[4] >= '0' && p[4] <= '9'));
}

/* Format by content (sp_detect_format without the NUL scan; the caller has done it or does it
 * next). The first line that is neither blank nor a '#' comment decides when it is a `data_`
 * header (mmCIF) or a PDB record name in column 1 (PDB). When it is neither, the first
 * coordinate record decides, as in gemmi (read_pdb skips records it does not know, and
 * coor_format_from_content takes any text that is not mmCIF or JSON for PDB): an ATOM/HETATM
 * record in column 1 further down makes the text PDB (a file that starts with a record no
 * format version has, e.g. "TITEL", written by hand or by a tool); else the text is unknown
 * (SDF, MOL2, JSON, XML, FASTA have no such line). A later `data_` line does not make a text
 * mmCIF: CIF 1.1 allows nothing but comments before the first data block. */
static int detect_text(const char *text, size_t len) {
  const char *p = text, *end = text + len;
  bool first = true;
  while (p < end) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    const char *e = nl ? nl : end;
    if (first) {
      const char *q = p;
      while (q < e && (*q == ' ' || *q == '\t' || *q == '\r' || *q == '\f' || *q == '\v')) ++q;
      if (q < e && *q != '#') {
        if (is_cif_start(q, (size_t)(e - q))) return SP_FMT_MMCIF;
        /* PDB records start in column 1 */
        if (q == p && is_pdb_record(p, (size_t)(e - p))) return SP_FMT_PDB;
        first = false;
      }
    } else if (is_coordinate_record(p, (size_t)(e - p))) {
      return SP_FMT_PDB;
    }
    p = nl ? nl + 1 : end;
  }
  return SP_FMT_UNKNOWN;
}

int sp_detect_format(const char *text, size_t len) {
  if (!text || !len || memchr(text, '\0', len)) return SP_FMT_UNKNOWN;
  return detect_text(text, len);
}

const char *sp_format_name(int fmt) {
  switch (fmt) {
    case SP_FMT_MMCIF: return "mmcif";
    case SP_FMT_PDB: return "pdb";
    default: return "";
  }
}

static bool all_blank(const char *t, size_t n) {
  for (size_t i = 0; i < n; ++i)
    if (t[i] != ' ' && t[i] != '\t' && t[i] != '\r' && t[i] != '\n' && t[i] != '\f' && t[i] != '\v') return false;
  return true;
}

/* A copy of @p t with every lone CR (not followed by LF) made a LF; CR LF pairs are kept (both
 * readers take them). NULL when out of memory. */
static char *cr_to_lf(const char *t, size_t n) {
  char *c = malloc(n ? n : 1);
  if (!c) return NULL;
  memcpy(c, t, n);
  sp_cr_to_lf(c, n);
  return c;
}

static int read_text(const char *text, size_t len, sp_structure *s, int *fmt, sp_err *err);

int sp_read_structure_text(const char *text, size_t len, sp_structure *s, int *fmt, sp_err *err) {
  /* CR-only line ends (classic Mac OS): CIF 1.1 leaves the line terminator to the platform and CIF 2.0
   * names LF, CR and CR LF; the wwPDB PDB format guide defines records as 80-column lines. Both readers
   * split lines at LF, so the text is read from a copy with LF line ends: the same lines, the same
   * line numbers in messages, all atoms (never one "line" with one atom). */
  if (text && len && sp_cr_line_ends(text, len)) {
    char *c = cr_to_lf(text, len);
    if (!c) return sp_err_set(err, SP_E_NOMEM, "out of memory (a copy of a text with CR line ends)");
    int rc = read_text(c, len, s, fmt, err);
    free(c); /* the structure holds copies of its strings (read.h) */
    return rc;
  }
  return read_text(text, len, s, fmt, err);
}

static int read_text(const char *text, size_t len, sp_structure *s, int *fmt, sp_err *err) {
  if (fmt) *fmt = SP_FMT_UNKNOWN;
  /* a UTF-8 byte order mark (EF BB BF), written by some Windows editors, is skipped */
  if (text && len >= 3 && (unsigned char)text[0] == 0xEF && (unsigned char)text[1] == 0xBB &&
      (unsigned char)text[2] == 0xBF) {
    text += 3;
    len -= 3;
  }
  if (!text || all_blank(text, len)) return sp_err_set(err, SP_E_NO_ATOMS, "no atoms (empty file)");
  int f = detect_text(text, len); /* a NUL before the deciding line is just a byte here */
  if (f == SP_FMT_MMCIF) {
    /* the NUL check runs after the parse, on text then in the cache: one pass over the text
     * from memory instead of two; the result is the same as checking first */
    int rc = sp_mmcif_read_ex(text, len, s, SP_MMCIF_NUL_CHECKED | SP_MMCIF_NUL_AFTER, err);
    if (rc == SP_E_BINARY) return sp_err_set(err, SP_E_BINARY, "binary content (NUL bytes), not a structure file");
    if (fmt) *fmt = f;
    return rc;
  }
  if (memchr(text, '\0', len)) return sp_err_set(err, SP_E_BINARY, "binary content (NUL bytes), not a structure file");
  if (fmt) *fmt = f;
  switch (f) {
    case SP_FMT_MMCIF: return sp_mmcif_read_ex(text, len, s, SP_MMCIF_NUL_CHECKED, err); /* NULs checked above */
    case SP_FMT_PDB: return sp_pdb_read(text, len, s, err);
    default:
      return sp_err_set(err, SP_E_FORMAT, "unknown format: neither mmCIF (data_ block) nor PDB (record names)");
  }
}

int sp_read_structure_file(const char *path, size_t max_bytes, sp_buf *buf, sp_structure *s, int *fmt,
                           sp_err *err) {
  if (fmt) *fmt = SP_FMT_UNKNOWN;
  int rc = sp_file_read(path, max_bytes, buf, err);
  if (rc) return rc;
  sp_err e = {0};
  rc = sp_read_structure_text(buf->data, buf->len, s, fmt, &e);
  if (rc) return sp_err_set(err, rc, "%s: %s", path, e.msg);
  return 0;
}

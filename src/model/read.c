/* Format detection and dispatch: see include/sitepack/read.h. */
#include "sitepack/read.h"

#include <stdbool.h>
#include <string.h>

#include "cif/cif_internal.h"
#include "sitepack/mmcif.h"
#include "sitepack/pdb.h"

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

/* sp_detect_format without the NUL scan (the caller has done it) */
static int detect_text(const char *text, size_t len) {
  const char *p = text, *end = text + len;
  while (p < end) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    const char *e = nl ? nl : end;
    const char *q = p;
    while (q < e && (*q == ' ' || *q == '\t' || *q == '\r' || *q == '\f' || *q == '\v')) ++q;
    if (q < e && *q != '#') {
      size_t n = (size_t)(e - q);
      if (n >= 5 && (q[0] == 'd' || q[0] == 'D') && (q[1] == 'a' || q[1] == 'A') && (q[2] == 't' || q[2] == 'T') &&
          (q[3] == 'a' || q[3] == 'A') && q[4] == '_')
        return SP_FMT_MMCIF;
      /* PDB records start in column 1 */
      return q == p && is_pdb_record(p, (size_t)(e - p)) ? SP_FMT_PDB : SP_FMT_UNKNOWN;
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

int sp_read_structure_text(const char *text, size_t len, sp_structure *s, int *fmt, sp_err *err) {
  if (fmt) *fmt = SP_FMT_UNKNOWN;
  /* a UTF-8 byte order mark (EF BB BF), written by some Windows editors, is skipped */
  if (text && len >= 3 && (unsigned char)text[0] == 0xEF && (unsigned char)text[1] == 0xBB &&
      (unsigned char)text[2] == 0xBF) {
    text += 3;
    len -= 3;
  }
  if (!text || all_blank(text, len)) return sp_err_set(err, SP_E_NO_ATOMS, "no atoms (empty file)");
  int f = detect_text(text, len); /* reads the first lines only; a NUL there is just a byte */
  if (f == SP_FMT_MMCIF) {
    /* the NUL check runs after the parse, on text then in the cache: one pass over the text
     * from memory instead of two; the result is the same as checking first */
    int rc = sp_mmcif_read_ex(text, len, s, SP_CIF_NUL_CHECKED | SP_MMCIF_NUL_AFTER, err);
    if (rc == SP_E_BINARY) return sp_err_set(err, SP_E_BINARY, "binary content (NUL bytes), not a structure file");
    if (fmt) *fmt = f;
    return rc;
  }
  if (memchr(text, '\0', len)) return sp_err_set(err, SP_E_BINARY, "binary content (NUL bytes), not a structure file");
  if (fmt) *fmt = f;
  switch (f) {
    case SP_FMT_MMCIF: return sp_mmcif_read_ex(text, len, s, SP_CIF_NUL_CHECKED, err); /* NULs checked above */
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

/**
 * @file read.h
 * @brief Structure-format detection by content and one entry point that reads a file
 *        (plain or gzip, see io.h) as mmCIF (cif/mmcif.h) or legacy PDB (pdb.h).
 */
#ifndef SITEPACK_READ_H
#define SITEPACK_READ_H

#include <stddef.h>

#include "sitepack/error.h"
#include "sitepack/io.h"
#include "sitepack/model.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Structure file formats. */
enum { SP_FMT_UNKNOWN = 0, SP_FMT_MMCIF = 1, SP_FMT_PDB = 2 };

/**
 * Format of a structure text, by content (never by file name):
 *  - any NUL byte in the text -> SP_FMT_UNKNOWN (binary);
 *  - first line that is neither blank nor a '#' comment starts with a CIF 1.1 reserved word
 *    (`data_`, the data block header, or `global_`, `loop_`, `save_`, `stop_`; case-insensitive)
 *    or a data name (`_`) -> SP_FMT_MMCIF (the CIF reader then reports what is wrong with a text
 *    that does not start with `data_`: syntax_error);
 *  - it starts with a PDB record name of the wwPDB format v3.3 (HEADER, OBSLTE, TITLE,
 *    SPLIT, CAVEAT, COMPND, SOURCE, KEYWDS, EXPDTA, NUMMDL, MDLTYP, AUTHOR, REVDAT,
 *    SPRSDE, JRNL, REMARK, DBREF, DBREF1, DBREF2, SEQADV, SEQRES, MODRES, HET, HETNAM,
 *    HETSYN, FORMUL, HELIX, SHEET, SSBOND, LINK, CISPEP, SITE, CRYST1, ORIGXn, SCALEn,
 *    MTRIXn, MODEL, ATOM, ANISOU, TER, HETATM, ENDMDL, CONECT, MASTER, END; and FTNOTE,
 *    HYDBND, SLTBRG, TURN, SIGATM, SIGUIJ of format v2.3, and USER of MolProbity/Reduce),
 *    followed by a blank, a digit (ORIGX1...) or the end of the line -> SP_FMT_PDB;
 *  - it is neither: the first coordinate record decides, as in gemmi (whose PDB reader skips
 *    records it does not know): an ATOM (followed by a blank, a digit or the end of the line)
 *    or HETATM record in column 1 on any later line -> SP_FMT_PDB (a file that starts with a
 *    record of no format version, e.g. "TITEL" written by hand or a tool, then MODEL/ATOM);
 *    a later `data_` line does not count (CIF 1.1 allows only comments before the first
 *    data block);
 *  - anything else (including an empty or all-blank text; SDF, MOL2, JSON, PDBML/XML,
 *    FASTA) -> SP_FMT_UNKNOWN.
 * Reads the text up to the deciding line: the whole text when there is none.
 * @return SP_FMT_UNKNOWN, SP_FMT_MMCIF or SP_FMT_PDB.
 */
int sp_detect_format(const char *text, size_t len);

/** "mmcif", "pdb", or "" for SP_FMT_UNKNOWN / other values. Never NULL. */
const char *sp_format_name(int fmt);

/**
 * Detect the format of @p text and read it into @p s (initialised, normally empty; see
 * sp_pdb_read / sp_mmcif_read). @p fmt (may be NULL) receives the detected format.
 * A leading UTF-8 byte order mark (EF BB BF) is skipped. A text with classic Mac OS line ends (its
 * first line holds a CR followed by anything but CR or LF, or a CR ends the text) is read from a
 * copy in which every lone CR is a LF (CR LF pairs stay). Other bytes are taken as they are:
 * no encoding is assumed (non-UTF-8 bytes in values and names are kept byte for byte).
 * @return 0; SP_E_NO_ATOMS (empty or all-blank text, or no atom records), SP_E_BINARY
 *         (NUL bytes), SP_E_FORMAT (neither mmCIF nor PDB), or any error of the format's
 *         reader.
 */
int sp_read_structure_text(const char *text, size_t len, sp_structure *s, int *fmt, sp_err *err);

/**
 * Read the file @p path into @p buf with sp_file_read (gzip by magic bytes; @p max_bytes
 * as there, 0 = no limit) and parse it with sp_read_structure_text. @p buf is filled
 * even when parsing fails (its sha256 / stored_bytes stay useful); the caller frees it
 * with sp_buf_free (also after an error). The structure's string ids are copies, so
 * @p buf may be freed right after the call.
 * @return 0, any error of sp_file_read (SP_E_NOT_FOUND, SP_E_IO, SP_E_TRUNCATED_GZIP,
 *         SP_E_GZIP, SP_E_TOO_LARGE, SP_E_NOMEM) or of sp_read_structure_text. Messages
 *         of parse errors are prefixed with the file path.
 */
int sp_read_structure_file(const char *path, size_t max_bytes, sp_buf *buf, sp_structure *s, int *fmt,
                           sp_err *err);

/**
 * Issue 16 item 12: the entry id of the structure file @p path from its head, before any task: the
 * first 4096 bytes as stored (a gzip file, by its magic bytes: the text they inflate to, at most
 * 16 KiB), searched up to the first atom record for a PDB HEADER's idCode (columns 63-66) or an
 * mmCIF `_entry.id` pair item, whichever comes first; blanks and CIF quotes removed, upper-cased
 * (entry ids are case-insensitive), at most cap-1 bytes into @p id. The readers take the same
 * items, so the id equals /structures/entry_id (upper-cased) for every file that has them in its
 * head; "" when none is found there (the file is then of no entry: docs/format.md entry_first).
 * @p gzip (may be NULL): 1 when the file starts with the gzip magic 1f 8b.
 * @return 0, or -1 when the file cannot be opened or read
 * (@p id "", *gzip 0: its task says why).
 */
int sp_read_entry_peek(const char *path, char *id, size_t cap, int *gzip);

#ifdef __cplusplus
}
#endif
#endif

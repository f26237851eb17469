/**
 * @file ccd.h
 * @brief wwPDB Chemical Component Dictionary: index of data_ blocks, component
 *        records (atoms, bonds, descriptors) and a per-process cache.
 *
 * Item names are those of the CCD (PDBx/mmCIF chem_comp, chem_comp_atom,
 * chem_comp_bond, pdbx_chem_comp_descriptor). The record they fill, sp_component, is
 * chem's (component.h); this header reads it from CIF text.
 */
#ifndef SITEPACK_CCD_H
#define SITEPACK_CCD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sitepack/component.h"
#include "sitepack/error.h"
#include "sitepack/model.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Parse one CCD data block (text from "data_XXX" up to the next "data_" or EOF).
 * @param text,len the block (need not be NUL-terminated)
 * @return 0; SP_E_SYNTAX / SP_E_ROW_COUNT on malformed CIF; SP_E_MISSING_ITEM when the
 *         block has no _chem_comp.id (nor _chem_comp_atom.comp_id, as in monomer-library
 *         files); SP_E_BAD_VALUE when a bond names an atom absent from the block;
 *         SP_E_TOO_LARGE above 65,535 atoms; SP_E_NOMEM.
 * A bond listed twice (either atom order) is one bond (the first row, with a later row's
 * order when the first has none); a bond of an atom to itself is left out.
 */
int sp_component_parse(const char *text, size_t len, sp_component *out, sp_err *err);

/** Index of a CCD file: offset and length of every data_ block, sorted by id. */
typedef struct sp_ccd_index {
  size_t n;                 /**< number of blocks */
  char (*ids)[SP_ID_LEN];   /**< block ids (the text after "data_"), sorted (strcmp) */
  uint64_t *offset;         /**< byte offset of "data_" in the text */
  uint64_t *length;         /**< bytes up to the next block or EOF */
} sp_ccd_index;

/**
 * Build the index of a CCD text (components.cif). Finds every line that starts with
 * "data_" (the first block also after a UTF-8 byte order mark; LF or CR LF line ends);
 * duplicate ids keep the last block, the one with the largest offset (a CCD with a local
 * file of components appended: its blocks replace the CCD's), with the number of blocks
 * left out in *n_duplicates when not NULL. Does not parse blocks.
 * @return 0, SP_E_NOMEM, SP_E_FORMAT (no data_ block at all).
 */
int sp_ccd_index_build(const char *text, size_t len, sp_ccd_index *idx, size_t *n_duplicates, sp_err *err);
void sp_ccd_index_free(sp_ccd_index *idx);
/** Binary search. @return the block number, or -1 when @p id is absent. */
long sp_ccd_index_find(const sp_ccd_index *idx, const char *id);

/** An open CCD: its text (owned: read with io, gunzipped when gz), its index, and a
 *  per-process cache of parsed components. Not thread-safe. */
typedef struct sp_ccd sp_ccd;

/**
 * Open a CCD file (plain or gzip, detected by magic bytes), read it and index it.
 * @return 0; SP_E_IO / SP_E_NOT_FOUND (cannot read), SP_E_TRUNCATED_GZIP, SP_E_GZIP,
 *         SP_E_FORMAT (no data_ blocks), SP_E_NOMEM.
 */
int sp_ccd_open(const char *path, sp_ccd **out, sp_err *err);
/** Build a CCD from text already in memory (copied). Same errors as sp_ccd_open. */
int sp_ccd_open_text(const char *text, size_t len, sp_ccd **out, sp_err *err);
/**
 * Build a CCD on text the caller keeps (no copy): for text in a node-shared memory window
 * (sched's sp_ccd_open_shared) or any other buffer that outlives the CCD. The text is only
 * read, never written or freed; it must stay valid and unchanged until sp_ccd_close().
 * The index and the component cache are this CCD's own (per process).
 * @param text,len the CCD text (plain, not gzip; need not be NUL-terminated)
 * @return 0; SP_E_INVALID (text NULL with len > 0), SP_E_FORMAT (no data_ blocks), SP_E_NOMEM.
 */
int sp_ccd_open_text_borrowed(const char *text, size_t len, sp_ccd **out, sp_err *err);
/**
 * sp_ccd_open_text_borrowed with an index built elsewhere on the same text (e.g. by another
 * rank of the node: then this process never touches the pages of blocks it does not parse).
 * Takes ownership of @p idx's arrays (malloc'd, as sp_ccd_index_build makes them; @p idx is
 * zeroed, also on error). Every row is checked against the text's bounds and the sort order
 * (offset + length <= len, NUL-terminated ids, strictly increasing); the text at the offsets
 * is not read.
 * @return 0; SP_E_INVALID (NULL text/index, a row out of bounds or out of order),
 *         SP_E_FORMAT (no rows), SP_E_NOMEM.
 */
int sp_ccd_open_text_borrowed_indexed(const char *text, size_t len, sp_ccd_index *idx, sp_ccd **out, sp_err *err);
/**
 * Open a plain CCD file as a read-only shared file mapping (mmap PROT_READ, MAP_SHARED):
 * the processes of one host that map the same file share one copy of its pages (the page
 * cache), so the text costs no private memory. A gzip file (magic 1F 8B), an empty file or
 * one that is not a regular file is read as by sp_ccd_open (inflated, private copy).
 * The file must not be truncated while open (reading a mapped page past a new end of file
 * raises SIGBUS): the wwPDB CCD is replaced by a new file, not rewritten in place.
 * @return as sp_ccd_open; SP_E_IO also when mmap fails.
 */
int sp_ccd_open_mapped(const char *path, sp_ccd **out, sp_err *err);
/** Close the CCD: its cache, index, and its text when owned (sp_ccd_open, sp_ccd_open_text)
 *  or mapped (sp_ccd_open_mapped); borrowed text is left to its owner. Safe with NULL. */
void sp_ccd_close(sp_ccd *ccd);
/** The index (valid until sp_ccd_close). */
const sp_ccd_index *sp_ccd_get_index(const sp_ccd *ccd);
/**
 * Block ids that occur more than once in the CCD text (the last block of each is used, see
 * sp_ccd_index_build): the number of blocks left out, and the smallest such id into
 * @p first_id (may be NULL; "" when none). Known where this process built the index
 * (sp_ccd_open*, not sp_ccd_open_text_borrowed_indexed: 0 there).
 */
size_t sp_ccd_duplicates(const sp_ccd *ccd, char first_id[SP_ID_LEN]);
/** Bytes of CCD text held. */
size_t sp_ccd_text_bytes(const sp_ccd *ccd);
/** The CCD text (sp_ccd_text_bytes() bytes, read-only; valid until sp_ccd_close()). */
const char *sp_ccd_text(const sp_ccd *ccd);
/**
 * The component @p id, parsed on first use and cached.
 * @return a pointer owned by @p ccd (valid until sp_ccd_close), or NULL when @p id is not
 *         in the CCD or its block does not parse (then @p err, if given, says why).
 */
const sp_component *sp_ccd_get(sp_ccd *ccd, const char *id, sp_err *err);

#ifdef __cplusplus
}
#endif
#endif

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

/** An open CCD: its text (owned, mapped or borrowed: sp_ccd_source), its index, and a
 *  per-process cache of parsed components. Not thread-safe. */
typedef struct sp_ccd sp_ccd;

/** Where the text of a CCD comes from (sp_ccd_source.kind). */
enum {
  SP_CCD_SRC_FILE = 0,     /**< @p path read once into private memory (gzip, by magic bytes 1F 8B, inflated from
                                the bytes read) */
  SP_CCD_SRC_MAPPED = 1,   /**< @p path mapped read-only (mmap PROT_READ, MAP_SHARED): the processes of one host
                                that map the same file share one copy of its pages (the page cache). A gzip file
                                is inflated from the mapping (private copy; the mapping is dropped); an empty file
                                or one that is not a regular file is read as SP_CCD_SRC_FILE (it reports it). The
                                file must not be truncated while open (a mapped page past a new end of file
                                raises SIGBUS): the wwPDB CCD is replaced by a new file, not rewritten in place */
  SP_CCD_SRC_TEXT = 2,     /**< @p text, @p len in memory, copied */
  SP_CCD_SRC_BORROWED = 3, /**< @p text, @p len kept by the caller (no copy): a node-shared memory window (app's
                                sp_ccd_open_shared), a mapping, any buffer that outlives the CCD; only read, never
                                written or freed; must stay valid and unchanged until sp_ccd_close(). With
                                @p index, the index built elsewhere on the same text (e.g. by another rank of the
                                node: this process then never touches the pages of blocks it does not parse) */
};

/** A CCD source for sp_ccd_open_source(): one struct for every way of opening a CCD. */
typedef struct sp_ccd_source {
  int kind;            /**< SP_CCD_SRC_* */
  const char *path;    /**< FILE, MAPPED: the CCD file (plain or gzip). TEXT, BORROWED: the name a format
                            error gives the text (may be NULL) */
  const char *text;    /**< TEXT, BORROWED: the CCD text (plain, not gzip; need not be NUL-terminated) */
  size_t len;          /**< TEXT, BORROWED: bytes of @p text */
  sp_ccd_index *index; /**< BORROWED only, may be NULL: a prebuilt index of @p text, taken over (malloc'd arrays,
                            as sp_ccd_index_build makes them; zeroed, also on error). Every row is checked
                            against the text's bounds and the sort order (offset + length <= len, NUL-terminated
                            ids, strictly increasing); the text at the offsets is not read, and the last block's
                            completeness is not checked (the builder did) */
  char *sha256;        /**< FILE, MAPPED, may be NULL: receives the hex SHA-256 (64 digits + NUL) of the file's
                            bytes as stored, computed on the bytes of the one read ("" on error) */
} sp_ccd_source;

/**
 * Open a CCD from @p src: the file is read (or mapped) exactly once, then indexed from that one
 * buffer (sp_ccd_index_build; a last block cut short is SP_E_FORMAT, issue 16) unless
 * @p src->index is given. The per-process component cache starts empty.
 * @param out receives the CCD (NULL on error); sp_ccd_close() frees it
 * @return 0; SP_E_INVALID (NULL @p src, unknown kind, TEXT/BORROWED text NULL with len > 0, a
 *         BORROWED index row out of bounds or out of order); FILE, MAPPED: SP_E_NOT_FOUND /
 *         SP_E_IO (cannot open or read; MAPPED also when mmap fails), SP_E_TRUNCATED_GZIP,
 *         SP_E_GZIP; every kind: SP_E_FORMAT (no data_ blocks, a last block cut short; the
 *         message names @p path when given), SP_E_TOO_LARGE (2^32-2 blocks or more), SP_E_NOMEM.
 */
int sp_ccd_open_source(const sp_ccd_source *src, sp_ccd **out, sp_err *err);
/** sp_ccd_open_source() of {SP_CCD_SRC_FILE, @p path}: the common case (tests, survey). Same errors. */
int sp_ccd_open(const char *path, sp_ccd **out, sp_err *err);
/** Close the CCD: its cache, index, and its text when owned (SP_CCD_SRC_FILE, SP_CCD_SRC_TEXT, a
 *  gzip SP_CCD_SRC_MAPPED) or mapped (SP_CCD_SRC_MAPPED); borrowed text is left to its owner.
 *  Safe with NULL. */
void sp_ccd_close(sp_ccd *ccd);
/** The index (valid until sp_ccd_close). */
const sp_ccd_index *sp_ccd_get_index(const sp_ccd *ccd);
/**
 * Block ids that occur more than once in the CCD text (the last block of each is used, see
 * sp_ccd_index_build): the number of blocks left out, and the smallest such id into
 * @p first_id (may be NULL; "" when none). Known where this process built the index
 * (every source but SP_CCD_SRC_BORROWED with an index: 0 there).
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

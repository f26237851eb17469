/**
 * @file reader.h
 * @brief Read sites of a merged sitepack file fast: one site, or a batch of sites as flat arrays.
 *
 * The merged file (docs/format.md) stores every dataset contiguous, unfiltered, allocated early and
 * little-endian, with the atoms of site i at rows atom_ptr[i] : atom_ptr[i+1] of /atoms/<column>.
 * The reader loads /sites/atom_ptr (8 bytes per site) once at open, maps the file once (mmap,
 * read-only) and copies a site's atoms straight from each dataset's file offset (H5Dget_offset):
 * no HDF5 call per site ("mapped" path). A column falls back to HDF5 hyperslab reads (H5Dread of
 * rows a0:a1, one call per site and column) when its dataset is not contiguous, is filtered, has no
 * file offset, lies outside the file, has a type other than the expected little-endian one, the host
 * is not little-endian, the file cannot be mapped, or SP_READER_HDF5 is given.
 *
 * The batch layout follows atompack's get_molecules_flat: the atoms of the requested sites,
 * concatenated in request order, as flat arrays (positions (A,3) float32, elements uint8, ...), plus
 * per-site counts (n_atoms, n_ligand) and a prefix-sum (atom_start) to find site k's atoms.
 * Docs with examples: docs/reading.md.
 *
 * Thread safety: one sp_reader must not be used by two threads at once (the HDF5 fallback and the
 * batch buffers are not synchronised); separate readers of the same file may be used in parallel
 * on the mapped path only (the HDF5 library of Debian is not built thread-safe).
 */
#ifndef SITEPACK_READER_H
#define SITEPACK_READER_H

#include <stddef.h>
#include <stdint.h>

#include "sitepack/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/** An open merged file. Opaque; sp_reader_open() / sp_reader_close(). */
typedef struct sp_reader sp_reader;

/** sp_reader_open() flags. */
enum {
  SP_READER_AUTO = 0,   /**< mapped path where possible, HDF5 hyperslab reads elsewhere */
  SP_READER_HDF5 = 1,   /**< never map: every read goes through H5Dread (for comparison and tests) */
};

/** Fields of a batch (bit mask for sp_reader_read_sites()). */
enum {
  SP_FIELD_POSITION = 1u << 0, /**< /atoms/position: float32 (A,3), Å */
  SP_FIELD_ELEMENT = 1u << 1,  /**< /atoms/element: uint8 (A,), atomic number, 0 unknown */
  SP_FIELD_FLAGS = 1u << 2,    /**< /atoms/flags: uint16 (A,), SP_SITE_ATOM_* bits (site.h) */
  SP_FIELD_ALL = SP_FIELD_POSITION | SP_FIELD_ELEMENT | SP_FIELD_FLAGS,
};

/** Row counts of the file's tables (0 for a table the file lacks). */
typedef struct sp_file_counts {
  int64_t n_structures; /**< rows of /structures (length of /structures/path) */
  int64_t n_ligands;    /**< rows of /ligands */
  int64_t n_sites;      /**< N: rows of /sites (len(/sites/atom_ptr) - 1) */
  int64_t n_residues;   /**< rows of /residues */
  int64_t n_atoms;      /**< A: rows of /atoms (= atom_ptr[N]) */
} sp_file_counts;

/**
 * A batch of sites as flat arrays. Zero-initialise it (`sp_site_batch b = {0};`) before the first
 * sp_reader_read_sites(); the reader grows the arrays as needed and reuses them on the next call
 * (so a loop over batches allocates only while batches grow). The caller owns the arrays and frees
 * them with sp_site_batch_free(). Arrays of fields that were not requested are left unchanged.
 */
typedef struct sp_site_batch {
  size_t n_sites;        /**< sites in the batch (the request's length) */
  size_t n_atoms;        /**< A: atoms of all sites of the batch */
  float *position;       /**< (A, 3) float32, Å, row-major x y z */
  uint8_t *element;      /**< (A,) atomic numbers */
  uint16_t *flags;       /**< (A,) SP_SITE_ATOM_* bits */
  int32_t *n_atoms_site; /**< (n_sites,) atoms of each site (atom_ptr[i+1] - atom_ptr[i]) */
  int32_t *n_ligand;     /**< (n_sites,) ligand atoms: the first n_ligand atoms of each site */
  int64_t *atom_start;   /**< (n_sites + 1,) site k's atoms are rows atom_start[k] : atom_start[k+1] */
  size_t cap_atoms, cap_sites; /**< allocated capacity (atoms, sites): internal */
} sp_site_batch;

/**
 * Open a merged file read-only.
 *
 * Requires the root attributes format = "sitepack", format_version 2 to 8 (SP_FORMAT_VERSION_MIN ..
 * SP_FORMAT_VERSION, store.h; the datasets read here are the same in all of them; docs/format.md "Versions") and the datasets
 * /sites/atom_ptr (int64, N+1, starting at 0, non-decreasing) and /atoms/position (float32 (A,3)
 * with A = atom_ptr[N]); /atoms/element, /atoms/flags and /sites/n_ligand are used when present.
 * atom_ptr is read into memory (8 (N+1) bytes) and validated here, so later reads need no bounds
 * checks against the file beyond the site index; so is n_ligand (4 N bytes): 0 <= n_ligand <= the site's atoms.
 *
 * @param path   the merged file
 * @param flags  SP_READER_AUTO or SP_READER_HDF5
 * @return the reader (close with sp_reader_close()), or NULL with @p err set to SP_E_INVALID (NULL
 *         path, unknown flags), SP_E_NOT_FOUND (no such file), SP_E_FORMAT (not an HDF5 / sitepack
 *         file; a file HDF5 cannot open or walk, damaged or truncated: sp_h5_open_merged()'s message, as
 *         sp_check's; missing or misshapen atom_ptr / position, atom_ptr not a valid CSR pointer, an n_ligand
 *         outside [0, the site's atoms]), SP_E_NOMEM, SP_E_HDF5 (a read of a dataset failed).
 */
sp_reader *sp_reader_open(const char *path, unsigned flags, sp_err *err);

/** Close the file, unmap it and free @p r. Safe with NULL. */
void sp_reader_close(sp_reader *r);

/** Fill @p out with the table row counts. Returns 0, or SP_E_INVALID for a NULL argument. */
int sp_reader_counts(const sp_reader *r, sp_file_counts *out);

/**
 * Which path a field is read by: 1 mapped (memcpy from the file map), 0 HDF5 hyperslab reads,
 * -1 the file has no such dataset (or a NULL reader / unknown field). @p field is one SP_FIELD_* bit.
 */
int sp_reader_field_mapped(const sp_reader *r, unsigned field);

/**
 * Atom range of site @p i: its atoms are rows [*a0, *a1) of /atoms (no I/O: atom_ptr is in memory).
 * @return 0, or SP_E_INVALID (NULL argument, i outside [0, N)).
 */
int sp_reader_site_range(const sp_reader *r, int64_t i, int64_t *a0, int64_t *a1);

/**
 * Read the sites @p idx[0..n) (any order, repeats allowed, n may be 0) into @p b: the atoms of
 * site idx[k] are rows b->atom_start[k] : b->atom_start[k+1] of the batch arrays, in file order
 * (ligand atoms first). @p fields is a mask of SP_FIELD_*; n_atoms_site, atom_start and
 * n_ligand (0 when the file has no /sites/n_ligand) are always filled.
 *
 * @return 0; SP_E_INVALID (NULL argument, unknown field bit, an index outside [0, N): the batch is
 *         then unspecified), SP_E_NOT_FOUND (a requested field's dataset is absent), SP_E_NOMEM
 *         (growing the arrays failed: the old arrays stay owned by @p b), SP_E_HDF5 (a fallback
 *         read failed).
 */
int sp_reader_read_sites(sp_reader *r, const int64_t *idx, size_t n, unsigned fields, sp_site_batch *b,
                         sp_err *err);

/** One site: sp_reader_read_sites() with n = 1 (same errors). */
int sp_reader_read_site(sp_reader *r, int64_t i, unsigned fields, sp_site_batch *b, sp_err *err);

/**
 * Gather any per-atom dataset (@p dataset, e.g. "/atoms/b_iso" or "/atoms/force") for the sites
 * @p idx[0..n): the rows of each site's atom block, concatenated in request order (the same order as
 * sp_reader_read_sites()). Elements are copied as stored (little-endian; the native value on a
 * little-endian host; the HDF5 fallback converts to the native type of the same class and size);
 * one row is elsize * (product of the trailing dimensions) bytes.
 *
 * @param out        destination, at least @p out_bytes bytes
 * @param out_bytes  capacity of @p out; must hold every gathered row
 * @param row_bytes  if not NULL, receives the bytes of one row
 * @return 0; SP_E_INVALID (NULL argument, index out of range, @p out too small: the message gives
 *         the bytes needed), SP_E_NOT_FOUND (no such dataset), SP_E_FORMAT (first dimension is not
 *         A, or a type other than integer / float / fixed-size string), SP_E_NOMEM, SP_E_HDF5.
 */
int sp_reader_gather_atoms(sp_reader *r, const char *dataset, const int64_t *idx, size_t n, void *out,
                           size_t out_bytes, size_t *row_bytes, sp_err *err);

/**
 * Gather rows @p idx[0..n) of a per-site dataset (first dimension N, e.g. "/sites/center",
 * "/sites/ligand_idx" or "/sites/energy"), in request order, as sp_reader_gather_atoms() does.
 * Same errors, with N in place of A.
 */
int sp_reader_gather_sites(sp_reader *r, const char *dataset, const int64_t *idx, size_t n, void *out,
                           size_t out_bytes, size_t *row_bytes, sp_err *err);

/** Free the arrays of @p b and zero it. Safe with NULL. */
void sp_site_batch_free(sp_site_batch *b);

#ifdef __cplusplus
}
#endif
#endif

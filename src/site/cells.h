/**
 * @file cells.h
 * @brief Internal: a cell list (uniform grid) over a set of points, for fixed-radius
 *        neighbour queries. Used by site.c; not part of the public API.
 *
 * Cell edge = the query radius, so every neighbour of a point lies in the 27 cells
 * around the point's cell. Cells are stored densely (nx*ny*nz buckets) when the
 * bounding box is small enough (at most SP_CELLS_DENSE_FACTOR buckets per point,
 * and at least 4096 allowed); otherwise cell coordinates are hashed into a power-of-two
 * table of about 2 buckets per point. Memory is O(points) in both modes: a
 * huge coordinate (9999.999) or a single outlier never makes the grid blow up.
 * Cell coordinates are clamped to +-2^20, which keeps neighbouring cells neighbouring
 * (clamping is monotone), so queries stay exact for any finite coordinate.
 * Non-finite points are never inserted.
 */
#ifndef SITEPACK_SITE_CELLS_H
#define SITEPACK_SITE_CELLS_H

#include <stddef.h>
#include <stdint.h>

/** One stored point: position (Å) and the caller's id (an atom index). 16 bytes. */
typedef struct sp_cell_pt {
  float x, y, z;
  uint32_t id;
} sp_cell_pt;

/** Buckets allowed per point in dense mode before switching to hashing. */
#define SP_CELLS_DENSE_FACTOR 4
/** Clamp of integer cell coordinates (cells). */
#define SP_CELLS_CLAMP (1 << 20)

typedef struct sp_cells {
  float edge;            /**< cell edge, Å (> 0) */
  double inv_edge;       /**< 1 / edge */
  double origin[3];      /**< lower corner of the bounding box, Å */
  int hashed;            /**< 0: dense nx*ny*nz buckets; 1: hashed */
  int32_t nx, ny, nz;    /**< dense dimensions (cells) */
  size_t n_buckets;      /**< dense: nx*ny*nz; hashed: a power of two */
  size_t n_pts;
  uint32_t *start;       /**< [n_buckets+1] CSR offsets into pts */
  sp_cell_pt *pts;       /**< [n_pts] sorted by bucket */
  float *px, *py, *pz;   /**< [n_pts + 4] the same positions as separate arrays (for vector scans; 4 spare) */
  size_t cap_xyz;
  uint32_t *tmp;         /**< [n_pts] scratch: bucket of each input point */
  size_t cap_buckets, cap_pts, cap_tmp;
} sp_cells;

/** Free the arrays of @p c and zero it. */
void sp_cells_free(sp_cells *c);

/**
 * (Re)build @p c over @p n points @p in (non-finite ones are dropped) with cell edge
 * @p edge Å (> 0, finite). Arrays are re-used when large enough.
 * @return 0, or -1 when out of memory (c is then empty but valid).
 */
int sp_cells_build(sp_cells *c, const sp_cell_pt *in, size_t n, float edge);

/**
 * Build @p c as a dense grid of @p dims cells of edge @p edge with lower corner @p origin over @p n finite
 * points @p in, whose buckets x + nx (y + ny z) the caller computed with sp_cells_coord's expression
 * (@p bucket, each < dims[0] dims[1] dims[2]). Input order is kept within a bucket.
 * @return 0, or -1 when out of memory (c is then empty but valid).
 */
int sp_cells_build_dense(sp_cells *c, const sp_cell_pt *in, const uint32_t *bucket, size_t n, float edge,
                         const double origin[3], const int32_t dims[3]);

/** Integer cell coordinates of a position (clamped). */
void sp_cells_coord(const sp_cells *c, float x, float y, float z, int32_t out[3]);

/**
 * Bucket of cell (ix, iy, iz), or SIZE_MAX when the cell is outside a dense grid.
 * In hashed mode distinct cells may share a bucket: callers check distances.
 */
size_t sp_cells_bucket(const sp_cells *c, int32_t ix, int32_t iy, int32_t iz);

#endif

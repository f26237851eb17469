/* The 5- and 6-membered rings of a molecular graph (perceive_internal.h pc_small_rings): an iterative depth-first
 * walk of depth <= 6 from each start atom over atoms of larger index, so each simple cycle is met once per
 * direction from its smallest atom. */
#include "perceive_internal.h"

void pc_small_rings(size_t n, const uint32_t *off, const uint32_t *nbr, bool (*ok)(const void *ctx, uint32_t atom),
                    void (*visit)(void *ctx, const uint32_t *ring, int len), void *ctx) {
  for (size_t s0 = 0; s0 < n; s0++) {
    if (ok && !ok(ctx, (uint32_t)s0)) continue;
    uint32_t path[6], it[6];
    int depth = 0;
    path[0] = (uint32_t)s0, it[0] = off[s0];
    while (depth >= 0) {
      uint32_t cur = path[depth];
      if (it[depth] >= off[cur + 1]) {
        depth--;
        continue;
      }
      uint32_t nx = nbr[it[depth]++];
      if (nx == s0 && depth >= 4) {
        visit(ctx, path, depth + 1);
        continue;
      }
      if (nx <= s0 || depth >= 5 || (ok && !ok(ctx, nx))) continue;
      bool seen = false;
      for (int i = 1; i <= depth; i++) seen |= path[i] == nx;
      if (seen) continue;
      path[++depth] = nx, it[depth] = off[nx];
    }
  }
}

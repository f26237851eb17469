/* PDB CONECT bonds of a structure: the directed entries as written, resolved into one bond per
 * atom pair with its order (include/sitepack/model.h, sp_conect). */
#include <stdlib.h>
#include <string.h>

#include "sitepack/base.h"
#include "sitepack/model.h"
#include "model_internal.h"

/* Before resolution every sp_conect holds one directed entry: a = the serial of columns 7-11,
 * b = a bonded serial, order = 0. */

int sp_structure_add_conect(sp_structure *s, int32_t serial, int32_t bonded, sp_err *err) {
  if (SP_GROW(s->conects, s->cap_conects, s->n_conects + 1)) return sp_err_set(err, SP_E_NOMEM, "out of memory (CONECT)");
  s->conects[s->n_conects++] = (sp_conect){serial, bonded, 0};
  s->n_conect_raw_ = s->n_conects;
  return 0;
}

/* (serial, atom) of model 1, sorted by serial then atom. */
typedef struct {
  int32_t serial;
  uint32_t atom;
} serial_atom;

static int cmp_serial(const void *x, const void *y) {
  const serial_atom *p = x, *q = y;
  if (p->serial != q->serial) return p->serial < q->serial ? -1 : 1;
  return p->atom < q->atom ? -1 : p->atom > q->atom;
}

/* Atom of model 1 with this serial; -1 when none, -2 when two atoms carry it. */
static int64_t atom_of_serial(const serial_atom *m, size_t n, int32_t serial) {
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (m[mid].serial < serial) lo = mid + 1;
    else hi = mid;
  }
  if (lo == n || m[lo].serial != serial) return -1;
  if (lo + 1 < n && m[lo + 1].serial == serial) return -2;
  return m[lo].atom;
}

/* A directed entry on resolved atoms: the pair (lo, hi) and which end wrote it. */
typedef struct {
  int64_t lo, hi;
  uint8_t from_lo;
} directed;

static int cmp_directed(const void *x, const void *y) {
  const directed *p = x, *q = y;
  if (p->lo != q->lo) return p->lo < q->lo ? -1 : 1;
  if (p->hi != q->hi) return p->hi < q->hi ? -1 : 1;
  return (int)p->from_lo - (int)q->from_lo;
}

/* Merge the sorted directed entries into bonds: order = the larger count of the two directions. */
static size_t merge_pairs(sp_structure *s, const directed *d, size_t n, size_t *n_over) {
  size_t w = 0;
  for (size_t i = 0; i < n;) {
    size_t j = i, count[2] = {0, 0};
    while (j < n && d[j].lo == d[i].lo && d[j].hi == d[i].hi) count[d[j++].from_lo]++;
    size_t c = count[0] > count[1] ? count[0] : count[1];
    if (c > 3) ++*n_over;
    s->conects[w++] = (sp_conect){d[i].lo, d[i].hi, (uint8_t)(c > 3 ? 1 : c)};
    i = j;
  }
  return w;
}

int sp_structure_resolve_conects_(sp_structure *s, sp_err *err) {
  size_t n_raw = s->n_conect_raw_;
  s->n_conect_raw_ = 0;
  if (!n_raw) return 0; /* none, or resolved by an earlier call */
  const sp_model *m = s->n_models ? &s->models[0] : NULL;
  size_t nm = m ? m->n_atoms : 0;
  serial_atom *map = malloc((nm ? nm : 1) * sizeof *map);
  directed *d = malloc(n_raw * sizeof *d);
  if (!map || !d) {
    free(map);
    free(d);
    return sp_err_set(err, SP_E_NOMEM, "out of memory (CONECT)");
  }
  for (size_t k = 0; k < nm; k++) map[k] = (serial_atom){s->serial[m->first_atom + k], (uint32_t)(m->first_atom + k)};
  size_t k_sorted = 1; /* files number their atoms in order: the sort is then skipped (same map) */
  while (k_sorted < nm && cmp_serial(&map[k_sorted - 1], &map[k_sorted]) < 0) k_sorted++;
  if (k_sorted < nm) qsort(map, nm, sizeof *map, cmp_serial);
  size_t n = 0, n_missing = 0, n_twice = 0, n_self = 0, n_over = 0;
  for (size_t k = 0; k < n_raw; k++) {
    int64_t a = atom_of_serial(map, nm, (int32_t)s->conects[k].a), b = atom_of_serial(map, nm, (int32_t)s->conects[k].b);
    if (a == -2 || b == -2) n_twice++;
    else if (a < 0 || b < 0) n_missing++;
    else if (a == b) n_self++;
    else d[n++] = (directed){a < b ? a : b, a < b ? b : a, (uint8_t)(a < b)};
  }
  qsort(d, n, sizeof *d, cmp_directed);
  s->n_conects = merge_pairs(s, d, n, &n_over);
  free(map);
  free(d);
  if (n_missing)
    sp_structure_warn(s, "%zu CONECT entries name a serial that is no atom of model 1: no bond", n_missing);
  if (n_twice) sp_structure_warn(s, "%zu CONECT entries name a serial that two atoms of model 1 carry: no bond", n_twice);
  if (n_self) sp_structure_warn(s, "%zu CONECT entries bond an atom to itself: no bond", n_self);
  if (n_over) sp_structure_warn(s, "%zu CONECT bonds listed more than 3 times: taken as order 1", n_over);
  return 0;
}

size_t sp_structure_conect_first(const sp_structure *s, int64_t a) {
  size_t lo = 0, hi = s->n_conects;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (s->conects[mid].a < a) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

int sp_structure_conect_order(const sp_structure *s, int64_t a, int64_t b) {
  if (a > b) {
    int64_t t = a;
    a = b;
    b = t;
  }
  for (size_t k = sp_structure_conect_first(s, a); k < s->n_conects && s->conects[k].a == a; k++)
    if (s->conects[k].b == b) return s->conects[k].order;
  return 0;
}

/* One copy per atom position in a site: see src/site/copies.h and docs/sites.md. */
#include "site/copies.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* one atom row of the site, for grouping the copies of an atom */
typedef struct copy_key {
  uint32_t atom; /* index into the structure */
  uint32_t rank; /* 0: the file's own; 1: assembly copy; 2: symmetry image */
  uint32_t row;  /* row in the site */
} copy_key;

static int cmp_key(const void *pa, const void *pb) {
  const copy_key *a = pa, *b = pb;
  if (a->atom != b->atom) return a->atom < b->atom ? -1 : 1;
  if (a->rank != b->rank) return a->rank < b->rank ? -1 : 1;
  return (a->row > b->row) - (a->row < b->row);
}

static float dist2(const float *a, const float *b) {
  float dx = a[0] - b[0], dy = a[1] - b[1], dz = a[2] - b[2];
  return dx * dx + dy * dy + dz * dz;
}

/* keep[row] = 0 for every copy within SP_SITE_SAME_POSITION of a kept copy of its atom (keys sorted) */
static size_t mark_duplicates(const sp_site *st, const copy_key *k, size_t n, uint8_t *keep) {
  const float t2 = SP_SITE_SAME_POSITION * SP_SITE_SAME_POSITION;
  size_t dropped = 0;
  for (size_t g = 0; g < n;) {
    size_t e = g + 1;
    while (e < n && k[e].atom == k[g].atom) e++;
    for (size_t i = g + 1; i < e; i++) {
      if (k[i].rank == 0) continue; /* the file's own atom (twice in a site only as an error elsewhere) */
      for (size_t j = g; j < i; j++)
        if (keep[k[j].row] && dist2(st->xyz[k[i].row], st->xyz[k[j].row]) < t2) {
          keep[k[i].row] = 0;
          dropped++;
          break;
        }
    }
    g = e;
  }
  return dropped;
}

/* min distance (Å) of residue slot ri's kept atoms within the cutoff to the ligand's heavy atoms; INFINITY
   when it has none */
static float kept_min_distance(const sp_site *st, const uint8_t *keep, size_t ri) {
  float best = INFINITY;
  for (size_t j = st->n_ligand; j < st->n_atoms; j++) {
    if (st->atom_res[j] != ri || !keep[j] || !(st->atom_flags[j] & SP_SITE_ATOM_WITHIN_CUTOFF)) continue;
    for (size_t l = 0; l < st->n_ligand; l++) {
      if (st->atom_flags[l] & SP_SITE_ATOM_HYDROGEN) continue;
      float d2 = dist2(st->xyz[j], st->xyz[l]);
      if (d2 < best) best = d2;
    }
  }
  return isinf(best) ? best : sqrtf(best);
}

/* Residue slots that lost atoms: new min_distance, or dropped (res_new = UINT32_MAX) with their atoms */
static void settle_residues(sp_site *st, uint8_t *keep, uint32_t *res_new) {
  for (size_t ri = 0; ri < st->n_res; ri++) res_new[ri] = 0; /* 1: lost an atom */
  for (size_t j = 0; j < st->n_atoms; j++)
    if (!keep[j]) res_new[st->atom_res[j]] = 1;
  for (size_t ri = 0; ri < st->n_res; ri++) {
    if (!res_new[ri]) continue;
    float d = kept_min_distance(st, keep, ri);
    res_new[ri] = isinf(d) ? UINT32_MAX : 0;
    if (!isinf(d)) st->res[ri].min_distance = d;
  }
  for (size_t j = 0; j < st->n_atoms; j++)
    if (res_new[st->atom_res[j]] == UINT32_MAX) keep[j] = 0;
}

/* Compact res[] and images[] (dropped slots: res_new UINT32_MAX), then atoms[]; renumber and reflag */
static void compact(sp_site *st, const uint8_t *keep, uint32_t *res_new, uint32_t *img_new) {
  for (size_t i = 0; i < st->n_images; i++) img_new[i] = 0;
  for (size_t ri = 0; ri < st->n_res; ri++)
    if (res_new[ri] != UINT32_MAX && st->res[ri].image) img_new[st->res[ri].image - 1] = 1;
  size_t ni = 0;
  uint32_t flags = 0;
  for (size_t i = 0; i < st->n_images; i++) {
    if (!img_new[i]) continue;
    flags |= st->images[i].assembly ? SP_SITE_ASSEMBLY : SP_SITE_SYMMETRY;
    st->images[ni] = st->images[i];
    img_new[i] = (uint32_t)++ni;
  }
  st->n_images = ni;
  st->flags = (st->flags & ~(uint32_t)(SP_SITE_ASSEMBLY | SP_SITE_SYMMETRY)) | flags;
  size_t nr = 0;
  for (size_t ri = 0; ri < st->n_res; ri++) {
    if (res_new[ri] == UINT32_MAX) continue;
    st->res[nr] = st->res[ri];
    if (st->res[nr].image) st->res[nr].image = (uint16_t)img_new[st->res[nr].image - 1];
    res_new[ri] = (uint32_t)nr++;
  }
  st->n_res = nr;
  size_t na = 0;
  for (size_t j = 0; j < st->n_atoms; j++) {
    if (!keep[j]) continue;
    st->atoms[na] = st->atoms[j];
    st->atom_flags[na] = st->atom_flags[j];
    st->atom_res[na] = res_new[st->atom_res[j]];
    memcpy(st->xyz[na], st->xyz[j], sizeof st->xyz[na]);
    na++;
  }
  st->n_atoms = na;
}

int sp_site_merge_copies(sp_site *st) {
  if (!st->n_images) return 0;
  copy_key *k = malloc((st->n_atoms ? st->n_atoms : 1) * sizeof *k);
  uint8_t *keep = malloc(st->n_atoms ? st->n_atoms : 1);
  uint32_t *res_new = malloc((st->n_res ? st->n_res : 1) * sizeof *res_new);
  uint32_t *img_new = malloc(st->n_images * sizeof *img_new);
  int rc = -1;
  if (!k || !keep || !res_new || !img_new) goto done;
  for (size_t j = 0; j < st->n_atoms; j++) {
    uint16_t im = st->res[st->atom_res[j]].image;
    k[j].atom = st->atoms[j];
    k[j].rank = im == 0 ? 0 : st->images[im - 1].assembly ? 1 : 2;
    k[j].row = (uint32_t)j;
    keep[j] = 1;
  }
  qsort(k, st->n_atoms, sizeof *k, cmp_key);
  rc = 0;
  if (!mark_duplicates(st, k, st->n_atoms, keep)) goto done;
  settle_residues(st, keep, res_new);
  compact(st, keep, res_new, img_new);
done:
  free(k);
  free(keep);
  free(res_new);
  free(img_new);
  return rc;
}

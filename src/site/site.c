/* Binding sites: see include/sitepack/site.h and docs/sites.md. */
#include "sitepack/site.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sitepack/base.h"
#include "sitepack/symmetry.h"
#include "site/cells.h"
#include "site/copies.h"
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/** Default cutoff (Å) and maximum site size (atoms): DESIGN.md "Defaults and policies". */
#define SP_SITE_DEFAULT_CUTOFF 6.0f
#define SP_SITE_DEFAULT_MAX_ATOMS 12000u
/** Atoms sampled for the cache fingerprint. */
#define SP_SITE_FP_SAMPLES 64

struct sp_site_ws {
  /* cache key of the cell list */
  int valid;
  const sp_structure *s;
  const sp_survey *sv;
  size_t n_atoms;          /* s->n_atoms when built */
  size_t n_residues;
  size_t model;
  float cutoff;
  uint64_t fingerprint;

  sp_cells cells;
  sp_cell_pt *in;          /* build input scratch */
  uint32_t *in_bucket;     /* [cap_in] their buckets in the mask's grid */
  size_t cap_in;
  /* the cell list holds only the atoms in the cells around the model's ligand heavy atoms (mask over
     the model's grid: bit 1 = cell within one cell of a ligand heavy atom's cell, bit 2 = such a cell);
     full = 1: every chosen atom of the model (rebuilt so when a query atom's cell is not a marked one) */
  int full;
  uint8_t *mask;
  size_t cap_mask;
  int32_t mdim[3];          /* mask dims; its origin and edge are ws->cells' */

  /* per-model / per-structure scratch (stamped: never cleared per call) */
  uint32_t stamp;
  uint32_t *atom_hit;      /* [model atoms] stamp when the atom is within the cutoff */
  size_t cap_atom;
  uint32_t *res_hit;       /* [n_residues] stamp when some atom of the residue is within the cutoff */
  float *res_d2;           /* [n_residues] min squared distance (valid when res_hit == stamp) */
  uint32_t *res_in;        /* [n_residues] stamp when the residue is in out->res */
  uint32_t *res_slot;      /* [n_residues] its index in out->res (valid when res_in == stamp) */
  size_t cap_res;

  uint32_t *hits;          /* residues hit this call */
  size_t n_hits, cap_hits;
  uint32_t *lig_heavy;     /* ligand heavy atom indices this call */
  size_t cap_heavy;

  /* crystal symmetry of the cached structure (symmetry mates), computed on first need */
  int sym_valid;
  sp_crystal cryst;
  double (*sym_m)[3][3];   /* [n_ops] Cartesian rotation O R F */
  double (*sym_t)[3];      /* [n_ops] Cartesian translation O t */
  double flo[3], fhi[3];   /* fractional box of the model's chosen atoms */
  double clo[3], chi[3];   /* Cartesian box of the model's chosen atoms */
  float (*lig_q)[3];       /* ligand heavy atoms under the inverse of the current image */
  size_t cap_q;
  /* biological assembly copies: chains of the current generator, while its copies are searched (NULL:
     every chain counts), and the buffer that holds it */
  const uint8_t *chain_mask;
  uint8_t *chain_buf;
  size_t cap_chain_buf;
};

sp_site_ws *sp_site_ws_new(void) { return calloc(1, sizeof(sp_site_ws)); }

void sp_site_ws_free(sp_site_ws *ws) {
  if (!ws) return;
  sp_cells_free(&ws->cells);
  free(ws->in);
  free(ws->in_bucket);
  free(ws->mask);
  free(ws->atom_hit);
  free(ws->res_hit);
  free(ws->res_d2);
  free(ws->res_in);
  free(ws->res_slot);
  free(ws->hits);
  free(ws->lig_heavy);
  free(ws->sym_m);
  free(ws->sym_t);
  free(ws->chain_buf);
  free(ws->lig_q);
  free(ws);
}

void sp_site_free(sp_site *site) {
  if (!site) return;
  free(site->atoms);
  free(site->atom_flags);
  free(site->atom_res);
  free(site->res);
  free(site->xyz);
  free(site->images);
  memset(site, 0, sizeof *site);
}

/* Grow several parallel arrays that share one capacity. */
static int grow_res_arrays(sp_site_ws *ws, size_t need) {
  if (need <= ws->cap_res) return 0;
  size_t old = ws->cap_res, want = old || need > 64 ? need : 64;
  size_t c1 = old, c2 = old, c3 = old, c4 = old;
  if (SP_GROW(ws->res_hit, c1, want) || SP_GROW(ws->res_d2, c2, want) || SP_GROW(ws->res_in, c3, want) ||
      SP_GROW(ws->res_slot, c4, want))
    return -1;
  /* new entries must not look stamped */
  memset(ws->res_hit + old, 0, (c1 - old) * sizeof *ws->res_hit);
  memset(ws->res_in + old, 0, (c1 - old) * sizeof *ws->res_in);
  ws->cap_res = c1;
  return 0;
}

/* Grow the per-atom stamps; new entries must not look stamped (old ones hold past stamps only). */
static int grow_atom_hit(sp_site_ws *ws, size_t need) {
  size_t old = ws->cap_atom;
  if (sp_grow((void **)&ws->atom_hit, &ws->cap_atom, need, sizeof *ws->atom_hit)) return -1;
  if (ws->cap_atom > old) memset(ws->atom_hit + old, 0, (ws->cap_atom - old) * sizeof *ws->atom_hit);
  return 0;
}

static uint64_t fp_mix(uint64_t h, uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  return h;
}

/* A cheap fingerprint of the model's atoms (a sample of positions, altlocs and chosen
   altlocs) so that a structure object re-used for another file with the same atom
   count does not hit a stale cache. */
static uint64_t fingerprint(const sp_structure *s, const sp_survey *sv, const sp_model *m) {
  uint64_t h = fp_mix(0, m->first_atom);
  h = fp_mix(h, m->n_atoms);
  h = fp_mix(h, s->n_residues);
  h = fp_mix(h, (uint64_t)(uintptr_t)s->xyz);
  h = fp_mix(h, (uint64_t)(uintptr_t)sv->res_altloc);
  if (m->n_atoms == 0) return h;
  size_t step = m->n_atoms / SP_SITE_FP_SAMPLES + 1;
  for (size_t k = 0; k < m->n_atoms; k += step) {
    size_t i = (size_t)m->first_atom + k;
    uint32_t bits[3];
    memcpy(bits, s->xyz[i], sizeof bits);
    h = fp_mix(h, ((uint64_t)bits[0] << 32) | bits[1]);
    h = fp_mix(h, ((uint64_t)bits[2] << 16) | ((uint64_t)(unsigned char)s->altloc[i] << 8) |
                      (unsigned char)sv->res_altloc[s->atom_residue[i]]);
  }
  return h;
}

/* Cell edge for cutoff c: a little above c, so that every atom with a float squared distance <= c^2 from
   a point lies in the 3x3x3 cells around the point's cell whatever the grid's origin: that distance
   bounds each coordinate difference by c (1 + 2^-22), and cells two apart are more than one edge apart. */
static float cell_edge(float c) {
  float e = (float)((double)c * (1.0 + 1.0 / 65536.0));
  return e > c ? e : nextafterf(c, INFINITY);
}

/* Mark on ws->mask (a dense grid of edge `edge`, origin ws->morg, dims ws->mdim) the cells within one cell
 * of each heavy atom of the ligands of model mi (bit 1) and the heavy atoms' own cells (bit 2). The grid is
 * the ligands' heavy-atom box widened by one cell on each side. 0: marked; 1: no ligand heavy atom or too
 * large a box for a dense mask (the caller keeps every atom); -1: out of memory. */
static int mark_ligand_cells(sp_site_ws *ws, const sp_structure *s, const sp_survey *sv, size_t mi, float edge,
                             size_t n_model) {
  const sp_model *m = &s->models[mi];
  const size_t m_lo = m->first_atom, m_hi = (size_t)m->first_atom + m->n_atoms;
  double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
  for (int pass = 0; pass < 2; pass++) {
    const size_t nx = (size_t)ws->mdim[0], ny = (size_t)ws->mdim[1];
    for (size_t l = 0; l < sv->n_ligands; l++) {
      const sp_ligand *L = &sv->ligands[l];
      if (L->model != mi) continue;
      for (size_t k = 0; k < L->n_atoms; k++) {
        uint32_t a = sv->atom_refs[(size_t)L->atom_first + k];
        if (a < m_lo || a >= m_hi || s->element[a] == 1) continue;
        const float *p = s->xyz[a];
        if (!isfinite(p[0]) || !isfinite(p[1]) || !isfinite(p[2])) continue;
        if (pass == 0) {
          for (int d = 0; d < 3; d++) {
            if (p[d] < lo[d]) lo[d] = p[d];
            if (p[d] > hi[d]) hi[d] = p[d];
          }
          continue;
        }
        int32_t cc[3], c0[3], c1[3];
        sp_cells_coord(&ws->cells, p[0], p[1], p[2], cc);
        int in = 1;
        for (int d = 0; d < 3; d++) {
          in &= cc[d] >= 0 && cc[d] < ws->mdim[d];
          c0[d] = cc[d] - 1 < 0 ? 0 : cc[d] - 1;
          c1[d] = cc[d] + 1 >= ws->mdim[d] ? ws->mdim[d] - 1 : cc[d] + 1;
        }
        if (!in) continue; /* cannot happen (the box holds every such atom); never marked: a query from it
                              finds the mask uncovered and gets the whole model */
        for (int32_t z = c0[2]; z <= c1[2]; z++)
          for (int32_t y = c0[1]; y <= c1[1]; y++)
            for (int32_t x = c0[0]; x <= c1[0]; x++) ws->mask[(size_t)x + nx * ((size_t)y + ny * (size_t)z)] |= 1;
        ws->mask[(size_t)cc[0] + nx * ((size_t)cc[1] + ny * (size_t)cc[2])] |= 2;
      }
    }
    if (pass == 0) {
      if (!(lo[0] <= hi[0])) return 1;
      /* origin two edges below the box (its cells, as sp_cells_coord computes them, start at 1 or 2), one
         cell spare above: the 3x3x3 cells around each heavy atom lie inside the grid */
      double cells = 1.0, lim = (double)(n_model * SP_CELLS_DENSE_FACTOR) + 4096.0;
      for (int d = 0; d < 3; d++) {
        ws->cells.origin[d] = lo[d] - 2.0 * (double)edge;
        double nd = floor((hi[d] - ws->cells.origin[d]) * ws->cells.inv_edge) + 2.0;
        if (!(nd <= lim)) return 1;
        ws->mdim[d] = (int32_t)nd;
        cells *= nd;
      }
      if (cells > lim) return 1;
      if (sp_grow((void **)&ws->mask, &ws->cap_mask, (size_t)cells, 1)) return -1;
      memset(ws->mask, 0, (size_t)cells);
    }
  }
  return 0;
}

/* Make sure ws->cells holds the chosen atoms of model @p mi at cutoff @p cutoff: those in the cells around
 * the heavy atoms of the model's ligands (the only cells a query of this model reads; the grid's origin is
 * then just below those atoms), or with @p full (or when no dense mask fits) every chosen atom. */
static int ensure_cells(sp_site_ws *ws, const sp_structure *s, const sp_survey *sv, size_t mi, float cutoff,
                        int full, sp_err *err) {
  const sp_model *m = &s->models[mi];
  uint64_t fp = fingerprint(s, sv, m);
  if (ws->valid && ws->s == s && ws->sv == sv && ws->n_atoms == s->n_atoms && ws->n_residues == s->n_residues &&
      ws->model == mi && ws->cutoff == cutoff && ws->fingerprint == fp && (ws->full || !full))
    return 0;
  ws->valid = 0;
  ws->sym_valid = 0;
  size_t n = m->n_atoms;
  if (n > ws->cap_in) {
    size_t c1 = ws->cap_in, c2 = ws->cap_in;
    if (sp_grow((void **)&ws->in, &c1, n, sizeof *ws->in) || sp_grow((void **)&ws->in_bucket, &c2, n, sizeof *ws->in_bucket))
      return sp_err_set(err, SP_E_NOMEM, "site: out of memory for the cell list (%zu atoms)", n);
    ws->cap_in = c1 < c2 ? c1 : c2;
  }
  const float edge = cell_edge(cutoff);
  ws->cells.inv_edge = 1.0 / (double)edge;
  int mk = full ? 1 : mark_ligand_cells(ws, s, sv, mi, edge, n);
  if (mk < 0) return sp_err_set(err, SP_E_NOMEM, "site: out of memory for the cell list (%zu atoms)", n);
  size_t k = 0;
  if (mk == 0) {
    const double o0 = ws->cells.origin[0], o1 = ws->cells.origin[1], o2 = ws->cells.origin[2], inv = ws->cells.inv_edge;
    const double dx = ws->mdim[0], dy = ws->mdim[1], dz = ws->mdim[2];
    const size_t nx = (size_t)ws->mdim[0], ny = (size_t)ws->mdim[1];
    for (size_t i = m->first_atom; i < (size_t)m->first_atom + n; i++) {
      const float *p = s->xyz[i];
      /* sp_cells_coord's expression; inside the mask's grid t >= 0, so truncation is its floor (NaN and
         infinities fail the range test) */
      const double tx = ((double)p[0] - o0) * inv, ty = ((double)p[1] - o1) * inv, tz = ((double)p[2] - o2) * inv;
      if (!(tx >= 0 && tx < dx && ty >= 0 && ty < dy && tz >= 0 && tz < dz)) continue;
      const size_t b = (size_t)tx + nx * ((size_t)ty + ny * (size_t)tz);
      if (!(ws->mask[b] & 1)) continue;
      if (!sp_survey_atom_chosen(s, sv, i)) continue;
      ws->in[k].x = p[0];
      ws->in[k].y = p[1];
      ws->in[k].z = p[2];
      ws->in[k].id = (uint32_t)i;
      ws->in_bucket[k] = (uint32_t)b;
      k++;
    }
  } else {
    for (size_t i = m->first_atom; i < (size_t)m->first_atom + n; i++) {
      if (!sp_survey_atom_chosen(s, sv, i)) continue;
      ws->in[k].x = s->xyz[i][0];
      ws->in[k].y = s->xyz[i][1];
      ws->in[k].z = s->xyz[i][2];
      ws->in[k].id = (uint32_t)i;
      k++;
    }
  }
  /* masked: the mask's grid is the cell list's (dense; buckets computed above) */
  double org[3] = {ws->cells.origin[0], ws->cells.origin[1], ws->cells.origin[2]};
  if (mk == 0 ? sp_cells_build_dense(&ws->cells, ws->in, ws->in_bucket, k, edge, org, ws->mdim)
              : sp_cells_build(&ws->cells, ws->in, k, edge))
    return sp_err_set(err, SP_E_NOMEM, "site: out of memory for the cell list (%zu atoms)", n);
  if (grow_atom_hit(ws, n ? n : 1) || grow_res_arrays(ws, s->n_residues ? s->n_residues : 1))
    return sp_err_set(err, SP_E_NOMEM, "site: out of memory (%zu atoms, %zu residues)", n, s->n_residues);
  ws->valid = 1;
  ws->full = mk != 0;
  ws->s = s;
  ws->sv = sv;
  ws->n_atoms = s->n_atoms;
  ws->n_residues = s->n_residues;
  ws->model = mi;
  ws->cutoff = cutoff;
  ws->fingerprint = fp;
  return 0;
}

/* 1 when every cell a query from ligand heavy atom p reads was filled (p's cell is marked as a ligand
   heavy atom's cell at build time, or the cell list is full) */
static inline int covered(const sp_site_ws *ws, const float *p) {
  if (ws->full) return 1;
  int32_t cc[3];
  sp_cells_coord(&ws->cells, p[0], p[1], p[2], cc);
  if (cc[0] < 0 || cc[1] < 0 || cc[2] < 0 || cc[0] >= ws->mdim[0] || cc[1] >= ws->mdim[1] || cc[2] >= ws->mdim[2])
    return 0;
  return (ws->mask[(size_t)cc[0] + (size_t)ws->mdim[0] * ((size_t)cc[1] + (size_t)ws->mdim[1] * (size_t)cc[2])] & 2) != 0;
}

/* Next stamp value; on wrap-around clear every stamped array. */
static void next_stamp(sp_site_ws *ws) {
  if (ws->stamp == UINT32_MAX) {
    memset(ws->atom_hit, 0, ws->cap_atom * sizeof *ws->atom_hit);
    memset(ws->res_hit, 0, ws->cap_res * sizeof *ws->res_hit);
    memset(ws->res_in, 0, ws->cap_res * sizeof *ws->res_in);
    ws->stamp = 0;
  }
  ws->stamp++;
}

static int cmp_u32(const void *a, const void *b) {
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return (x > y) - (x < y);
}

/* SP_RES_KIND_* of residue r (not part of the site's own ligand). */
static uint8_t residue_kind(const sp_structure *s, const sp_survey *sv, size_t r) {
  switch (sv->res_role[r]) {
  case SP_ROLE_POLYMER: return SP_RES_KIND_POLYMER;
  case SP_ROLE_LIGAND: return SP_RES_KIND_OTHER_LIGAND;
  case SP_ROLE_ION: return SP_RES_KIND_ION;
  case SP_ROLE_WATER: return SP_RES_KIND_WATER;
  default: break;
  }
  /* not surveyed: fall back on the entity type / ligand membership */
  if (sv->res_ligand[r] >= 0) return SP_RES_KIND_OTHER_LIGAND;
  switch (s->residues[r].entity_type) {
  case SP_ENT_WATER: return SP_RES_KIND_WATER;
  case SP_ENT_NONPOLYMER:
  case SP_ENT_BRANCHED: return SP_RES_KIND_OTHER_LIGAND;
  default: return SP_RES_KIND_POLYMER;
  }
}

static uint16_t kind_flag(uint8_t kind) {
  switch (kind) {
  case SP_RES_KIND_LIGAND: return SP_SITE_ATOM_LIGAND;
  case SP_RES_KIND_POLYMER: return SP_SITE_ATOM_POLYMER;
  case SP_RES_KIND_OTHER_LIGAND: return SP_SITE_ATOM_OTHER_LIGAND;
  case SP_RES_KIND_ION: return SP_SITE_ATOM_ION;
  default: return SP_SITE_ATOM_WATER;
  }
}

static int reserve_atoms(sp_site *out, size_t need) {
  if (need <= out->cap_atoms) return 0;
  size_t want = out->cap_atoms || need > 256 ? need : 256;
  size_t c1 = out->cap_atoms, c2 = c1, c3 = c1, c4 = c1;
  if (SP_GROW(out->atoms, c1, want) || SP_GROW(out->atom_flags, c2, want) || SP_GROW(out->atom_res, c3, want) ||
      SP_GROW(out->xyz, c4, want))
    return -1;
  out->cap_atoms = c1;
  return 0;
}

static int push_res(sp_site *out, uint32_t residue, uint8_t kind, float min_distance, uint16_t image) {
  if (out->n_res == out->cap_res && SP_GROW(out->res, out->cap_res, out->cap_res ? out->n_res + 1 : 64)) return -1;
  sp_site_res *r = &out->res[out->n_res++];
  r->residue = residue;
  r->kind = kind;
  r->image = image;
  r->min_distance = min_distance;
  return 0;
}

static uint16_t atom_flags_of(const sp_structure *s, size_t i, uint16_t kflag, int within) {
  uint16_t f = kflag;
  if ((s->atom_flags[i] & SP_ATOM_HYDROGEN) || s->element[i] == 1) f |= SP_SITE_ATOM_HYDROGEN;
  if (s->altloc[i] != '\0') f |= SP_SITE_ATOM_ALTLOC;
  if (s->atom_flags[i] & SP_ATOM_HETATM) f |= SP_SITE_ATOM_HETATM;
  if (s->atom_flags[i] & SP_ATOM_ELEMENT_FROM_NAME) f |= SP_SITE_ATOM_ELEMENT_FROM_NAME;
  if (s->atom_flags[i] & SP_ATOM_REPEATED_NAME) f |= SP_SITE_ATOM_REPEATED_NAME;
  if (within) f |= SP_SITE_ATOM_WITHIN_CUTOFF;
  return f;
}

/* ------------------------------------------------------------------ symmetry mates */

/* Resolve the crystal symmetry of the cached structure once: operators as Cartesian transforms and the
 * fractional / Cartesian boxes of the model's chosen atoms (the points of the cell list). */
static int ensure_symmetry(sp_site_ws *ws, const sp_structure *s, sp_err *err) {
  if (ws->sym_valid) return 0;
  sp_crystal *cr = &ws->cryst;
  int rc = sp_crystal_resolve(s, cr, err);
  if (rc) return rc;
  if (cr->n_ops > 0) {
    double(*m)[3][3] = sp_realloc_array(ws->sym_m, (size_t)cr->n_ops, sizeof *m);
    if (!m) return sp_err_set(err, SP_E_NOMEM, "site: out of memory (symmetry)");
    ws->sym_m = m;
    double(*t)[3] = sp_realloc_array(ws->sym_t, (size_t)cr->n_ops, sizeof *t);
    if (!t) return sp_err_set(err, SP_E_NOMEM, "site: out of memory (symmetry)");
    ws->sym_t = t;
    for (int k = 0; k < cr->n_ops && cr->n_ops > 0; k++) {
      double rf[3][3];
      for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
          rf[i][j] = 0;
          for (int q = 0; q < 3; q++) rf[i][j] += cr->ops[k].rot[i][q] * cr->frac[q][j];
        }
      for (int i = 0; i < 3; i++) {
        ws->sym_t[k][i] = 0;
        for (int j = 0; j < 3; j++) {
          m[k][i][j] = 0;
          for (int q = 0; q < 3; q++) m[k][i][j] += cr->orth[i][q] * rf[q][j];
          /* x' = O (R (F x + v) + t - v): the translation part is O (R v + t - v) */
          double tv = cr->ops[k].trn[j] - cr->shift[j];
          for (int q = 0; q < 3; q++) tv += cr->ops[k].rot[j][q] * cr->shift[q];
          ws->sym_t[k][i] += cr->orth[i][j] * tv;
        }
      }
      /* the operator must be an isometry in this cell (M^T M = I), else the file's cell and
         operators disagree: no symmetry mates rather than wrong ones */
      for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
          double d = 0;
          for (int q = 0; q < 3; q++) d += m[k][q][i] * m[k][q][j];
          if (fabs(d - (i == j)) > 1e-3) {
            snprintf(cr->why, sizeof cr->why, "operator %d does not fit the cell", k + 1);
            cr->n_ops = 0;
            cr->source = SP_SYM_NONE;
          }
        }
    }
  }
  const sp_cells *cl = &ws->cells;
  for (int d = 0; d < 3; d++) {
    ws->flo[d] = ws->clo[d] = INFINITY;
    ws->fhi[d] = ws->chi[d] = -INFINITY;
  }
  for (size_t i = 0; i < cl->n_pts; i++) { /* the Cartesian box serves assembly copies too */
    double x[3] = {cl->pts[i].x, cl->pts[i].y, cl->pts[i].z};
    for (int d = 0; d < 3; d++) {
      double f = cr->frac[d][0] * x[0] + cr->frac[d][1] * x[1] + cr->frac[d][2] * x[2] + cr->shift[d];
      if (f < ws->flo[d]) ws->flo[d] = f;
      if (f > ws->fhi[d]) ws->fhi[d] = f;
      if (x[d] < ws->clo[d]) ws->clo[d] = x[d];
      if (x[d] > ws->chi[d]) ws->chi[d] = x[d];
    }
  }
  ws->sym_valid = 1;
  return 0;
}

static int is_identity(const sp_symop *op, const int n[3]) {
  if (!sp_symop_is_identity_rot(op)) return 0;
  for (int d = 0; d < 3; d++)
    if (fabs(op->trn[d] + n[d]) > 1e-9) return 0;
  return 1;
}

/* every chosen atom of site residue ri, in file order, with kind flag kf and its position: as in the file
   (M NULL) or moved by x -> M x + T (a symmetry image) */
static int push_residue_atoms(sp_site *out, const sp_structure *s, const sp_survey *sv, const sp_site_ws *ws,
                              size_t ri, uint16_t kf, const double (*M)[3], const double *T, size_t m_lo, size_t m_hi,
                              uint32_t st, sp_err *err) {
  const sp_residue *R = &s->residues[out->res[ri].residue];
  size_t a0 = R->first_atom, a1 = (size_t)R->first_atom + R->n_atoms;
  if (a0 < m_lo || a1 > m_hi) return sp_err_set(err, SP_E_INVALID, "site: residue atoms outside their model");
  if (reserve_atoms(out, out->n_atoms + R->n_atoms)) return sp_err_set(err, SP_E_NOMEM, "site: out of memory");
  for (size_t a = a0; a < a1; a++) {
    if (!sp_survey_atom_chosen(s, sv, a)) continue;
    size_t j = out->n_atoms++;
    out->atoms[j] = (uint32_t)a;
    out->atom_flags[j] = atom_flags_of(s, a, kf, ws->atom_hit[a - m_lo] == st);
    out->atom_res[j] = (uint32_t)ri;
    const float *y = s->xyz[a];
    if (!M) {
      memcpy(out->xyz[j], y, sizeof out->xyz[j]);
      continue;
    }
    for (int d = 0; d < 3; d++) out->xyz[j][d] = (float)(M[d][0] * y[0] + M[d][1] * y[1] + M[d][2] * y[2] + T[d]);
  }
  return 0;
}

/* atom @p a of the model [m_lo, ..) at squared distance d2 (Å²) from a ligand heavy atom (or its image):
 * stamp it, list its residue on the first hit (ws->hits) and keep the residue's minimum squared distance.
 * 0, or -1 when out of memory */
static inline int hit_atom(sp_site_ws *ws, const sp_structure *s, uint32_t a, float d2, size_t m_lo, uint32_t st) {
  uint32_t r = s->atom_residue[a];
  if (ws->chain_mask && !ws->chain_mask[s->residues[r].chain]) return 0; /* not a chain of this assembly copy */
  ws->atom_hit[a - m_lo] = st;
  if (ws->res_hit[r] != st) {
    ws->res_hit[r] = st;
    ws->res_d2[r] = d2;
    if (sp_grow((void **)&ws->hits, &ws->cap_hits, ws->n_hits + 1, sizeof *ws->hits)) return -1;
    ws->hits[ws->n_hits++] = r;
  } else if (d2 < ws->res_d2[r]) {
    ws->res_d2[r] = d2;
  }
  return 0;
}

/* Fractional box [ulo, uhi] of the ligand's finite heavy atoms; the number of them */
static size_t ligand_frac_box(const sp_structure *s, const sp_crystal *cr, const sp_site_ws *ws, size_t n_heavy,
                              double ulo[3], double uhi[3]) {
  size_t n_fin = 0;
  for (int d = 0; d < 3; d++) ulo[d] = INFINITY, uhi[d] = -INFINITY;
  for (size_t h = 0; h < n_heavy; h++) {
    const float *p = s->xyz[ws->lig_heavy[h]];
    if (!isfinite(p[0]) || !isfinite(p[1]) || !isfinite(p[2])) continue;
    n_fin++;
    for (int d = 0; d < 3; d++) {
      double f = cr->frac[d][0] * p[0] + cr->frac[d][1] * p[1] + cr->frac[d][2] * p[2] + cr->shift[d];
      if (f < ulo[d]) ulo[d] = f;
      if (f > uhi[d]) uhi[d] = f;
    }
  }
  return n_fin;
}

/* The lattice translations [nlo, nhi] of operator @p op whose image of the model's fractional box can reach
 * the ligand's fractional box [ulo, uhi] grown by fr (clamped to +-99: the site is then flagged partial).
 * @return 0, or 1 when there is none */
static int translation_range(const sp_symop *op, const sp_site_ws *ws, const double ulo[3], const double uhi[3],
                             const double fr[3], int nlo[3], int nhi[3], sp_site *out) {
  for (int d = 0; d < 3; d++) {
    double blo = op->trn[d], bhi = op->trn[d];
    for (int j = 0; j < 3; j++) {
      double a = op->rot[d][j] * ws->flo[j], b = op->rot[d][j] * ws->fhi[j];
      blo += a < b ? a : b;
      bhi += a < b ? b : a;
    }
    double lo = ceil(ulo[d] - fr[d] - bhi - 1e-6), hi = floor(uhi[d] + fr[d] - blo + 1e-6);
    if (!(lo <= hi)) return 1;
    if (lo < -99 || hi > 99) {
      out->flags |= SP_SITE_SYMMETRY_PARTIAL;
      if (lo < -99) lo = -99;
      if (hi > 99) hi = 99;
      if (lo > hi) return 1;
    }
    nlo[d] = (int)lo;
    nhi[d] = (int)hi;
  }
  return 0;
}

/* The residues of the image x -> M x + T within the cutoff of the ligand's heavy atoms (ws->hits, res_d2,
 * atom_hit stamped with a new stamp, *st_out): the ligand is moved by the inverse transform and the
 * asymmetric unit's cell list searched; none (no new stamp) when the moved ligand's box misses the model's.
 * 0, or -1 when out of memory */
static int image_hits(const sp_structure *s, sp_site_ws *ws, const double (*M)[3], const double T[3], size_t n_heavy,
                      float cutoff, size_t m_lo, uint32_t *st_out) {
  const sp_cells *cl = &ws->cells;
  const float c2 = cutoff * cutoff;
  ws->n_hits = 0;
  /* the ligand under the inverse transform: q = M^T (x - T); skip images whose box misses the model */
  float qlo[3] = {INFINITY, INFINITY, INFINITY}, qhi[3] = {-INFINITY, -INFINITY, -INFINITY};
  for (size_t h = 0; h < n_heavy; h++) {
    const float *p = s->xyz[ws->lig_heavy[h]];
    double v[3] = {p[0] - T[0], p[1] - T[1], p[2] - T[2]};
    for (int d = 0; d < 3; d++) {
      float q = (float)(M[0][d] * v[0] + M[1][d] * v[1] + M[2][d] * v[2]);
      ws->lig_q[h][d] = q;
      if (q < qlo[d]) qlo[d] = q;
      if (q > qhi[d]) qhi[d] = q;
    }
  }
  for (int d = 0; d < 3; d++)
    if (!(qlo[d] <= ws->chi[d] + cutoff && qhi[d] >= ws->clo[d] - cutoff)) return 0;
  next_stamp(ws);
  const uint32_t st = *st_out = ws->stamp;
  for (size_t h = 0; h < n_heavy; h++) {
    const float px = ws->lig_q[h][0], py = ws->lig_q[h][1], pz = ws->lig_q[h][2];
    if (!isfinite(px) || !isfinite(py) || !isfinite(pz)) continue;
    int32_t cc[3];
    sp_cells_coord(cl, px, py, pz, cc);
    for (int32_t dz = -1; dz <= 1; dz++)
      for (int32_t dy = -1; dy <= 1; dy++)
        for (int32_t dx = -1; dx <= 1; dx++) {
          size_t b = sp_cells_bucket(cl, cc[0] + dx, cc[1] + dy, cc[2] + dz);
          if (b == SIZE_MAX) continue;
          const sp_cell_pt *q = cl->pts + cl->start[b], *qe = cl->pts + cl->start[b + 1];
          for (; q < qe; q++) {
            float ex = q->x - px, ey = q->y - py, ez = q->z - pz;
            if (ex * ex + ey * ey + ez * ez > c2 * 1.01f) continue;
            /* the distance that counts is the image's own, in the ligand's frame (the same as
               above for an exact isometry; a file's 6-decimal SCALEn is not quite one) */
            const float *lx = s->xyz[ws->lig_heavy[h]];
            double y[3] = {q->x, q->y, q->z}, sp2 = 0, dd = 0;
            for (int d = 0; d < 3; d++) {
              double yi = M[d][0] * y[0] + M[d][1] * y[1] + M[d][2] * y[2] + T[d];
              sp2 += (yi - y[d]) * (yi - y[d]);
              dd += (yi - lx[d]) * (yi - lx[d]);
            }
            float d2 = (float)dd;
            if (d2 > c2) continue;
            /* an atom on a special position: its image is itself, not a neighbour */
            if (sp2 < 0.8 * 0.8) continue;
            if (hit_atom(ws, s, q->id, d2, m_lo, st)) return -1;
          }
        }
  }
  return 0;
}

static int add_copy(const sp_structure *s, const sp_survey *sv, sp_site_ws *ws, int k, const int n[3],
                    const char *asm_tag, const double (*M)[3], const double T[3], size_t m_lo, size_t m_hi,
                    uint32_t st, sp_site *out, sp_err *err);

/* Append image (operator k, lattice translation n; x -> M x + T) to the site with the residues it hit
 * (ws->hits) and their atoms, moved. 0; 1 when the site has its 65,535 images already (flagged partial:
 * stop); or an error */
static int add_image(const sp_structure *s, const sp_survey *sv, sp_site_ws *ws, int k, const int n[3],
                     const double (*M)[3], const double T[3], size_t m_lo, size_t m_hi, uint32_t st, sp_site *out,
                     sp_err *err) {
  return add_copy(s, sv, ws, k, n, NULL, M, T, m_lo, m_hi, st, out, err);
}

/* The copy of add_image() and of assembly_copies(): @p asm_tag NULL for a symmetry image (tag from k, n),
 * else the assembly operator's id. */
static int add_copy(const sp_structure *s, const sp_survey *sv, sp_site_ws *ws, int k, const int n[3],
                    const char *asm_tag, const double (*M)[3], const double T[3], size_t m_lo, size_t m_hi,
                    uint32_t st, sp_site *out, sp_err *err) {
  if (out->n_images >= 65535) {
    out->flags |= SP_SITE_SYMMETRY_PARTIAL;
    return 1;
  }
  if (out->n_images == out->cap_images) {
    size_t nc = out->cap_images ? out->cap_images * 2 : 8;
    sp_site_image *im = sp_realloc_array(out->images, nc, sizeof *im);
    if (!im) return sp_err_set(err, SP_E_NOMEM, "site: out of memory");
    out->images = im;
    out->cap_images = nc;
  }
  sp_site_image *im = &out->images[out->n_images++];
  im->op = k;
  memcpy(im->t, n, sizeof im->t);
  memcpy(im->rot, M, sizeof im->rot);
  memcpy(im->trn, T, sizeof im->trn);
  im->assembly = asm_tag != NULL;
  if (asm_tag) snprintf(im->tag, sizeof im->tag, "%s", asm_tag);
  else sp_symop_tag(k, n, im->tag, sizeof im->tag);
  uint16_t img = (uint16_t)out->n_images;
  if (ws->n_hits) qsort(ws->hits, ws->n_hits, sizeof *ws->hits, cmp_u32); /* hits is NULL before the first hit (C11 7.22.5: qsort needs a valid pointer even for 0) */
  size_t r0 = out->n_res;
  for (size_t h = 0; h < ws->n_hits; h++) {
    uint32_t r = ws->hits[h];
    if (push_res(out, r, residue_kind(s, sv, r), sqrtf(ws->res_d2[r]), img))
      return sp_err_set(err, SP_E_NOMEM, "site: out of memory");
  }
  for (size_t ri = r0; ri < out->n_res; ri++) {
    uint16_t kf = kind_flag(out->res[ri].kind) | (asm_tag ? SP_SITE_ATOM_ASSEMBLY : SP_SITE_ATOM_SYMMETRY);
    int rc = push_residue_atoms(out, s, sv, ws, ri, kf, M, T, m_lo, m_hi, st, err);
    if (rc) return rc;
  }
  out->flags |= asm_tag ? SP_SITE_ASSEMBLY : SP_SITE_SYMMETRY;
  return 0;
}

/* Append the residues of every symmetry image within the cutoff of the ligand's heavy atoms
 * (ws->lig_heavy[0..n_heavy)): for each operator, the lattice translations whose image of the model's
 * fractional box can reach the ligand's fractional box grown by the cutoff (a necessary condition, so
 * no image within the cutoff is missed); for each such image the ligand is moved by the inverse
 * transform and the asymmetric unit's cell list is searched, so the cost per image is that of one
 * ordinary site search. */
static int symmetry_mates(const sp_structure *s, const sp_survey *sv, size_t m_lo, size_t m_hi, float cutoff,
                          sp_site_ws *ws, size_t n_heavy, sp_site *out, sp_err *err) {
  int rc = ensure_symmetry(ws, s, err);
  if (rc) return rc;
  const sp_crystal *cr = &ws->cryst;
  if (cr->n_ops <= 0) return 0;
  if (sp_grow((void **)&ws->lig_q, &ws->cap_q, n_heavy, sizeof *ws->lig_q))
    return sp_err_set(err, SP_E_NOMEM, "site: out of memory");
  double ulo[3], uhi[3], fr[3];
  if (!ligand_frac_box(s, cr, ws, n_heavy, ulo, uhi)) return 0;
  /* the fractional reach of a sphere of radius cutoff along axis d: cutoff * |row d of F| */
  for (int d = 0; d < 3; d++)
    fr[d] = cutoff * sqrt(cr->frac[d][0] * cr->frac[d][0] + cr->frac[d][1] * cr->frac[d][1] +
                          cr->frac[d][2] * cr->frac[d][2]);
  double examined = 0;
  for (int k = 0; k < cr->n_ops; k++) {
    const sp_symop *op = &cr->ops[k];
    int nlo[3], nhi[3];
    if (translation_range(op, ws, ulo, uhi, fr, nlo, nhi, out)) continue;
    double count = (double)(nhi[0] - nlo[0] + 1) * (nhi[1] - nlo[1] + 1) * (nhi[2] - nlo[2] + 1);
    if (examined + count > SP_SITE_MAX_IMAGES) {
      out->flags |= SP_SITE_SYMMETRY_PARTIAL;
      break;
    }
    examined += count;
    const double(*M)[3] = ws->sym_m[k];
    int n[3];
    for (n[0] = nlo[0]; n[0] <= nhi[0]; n[0]++)
      for (n[1] = nlo[1]; n[1] <= nhi[1]; n[1]++)
        for (n[2] = nlo[2]; n[2] <= nhi[2]; n[2]++) {
          if (is_identity(op, n)) continue; /* the asymmetric unit itself: the ordinary site */
          double T[3];
          for (int d = 0; d < 3; d++)
            T[d] = ws->sym_t[k][d] + cr->orth[d][0] * n[0] + cr->orth[d][1] * n[1] + cr->orth[d][2] * n[2];
          uint32_t st = 0;
          if (image_hits(s, ws, M, T, n_heavy, cutoff, m_lo, &st)) return sp_err_set(err, SP_E_NOMEM, "site: out of memory");
          if (!ws->n_hits) continue;
          rc = add_image(s, sv, ws, k, n, M, T, m_lo, m_hi, st, out, err);
          if (rc == 1) return 0;
          if (rc) return rc;
        }
  }
  return 0;
}

static int is_identity_op(const sp_asm_oper *op) {
  for (int i = 0; i < 3; i++) {
    if (fabs(op->trn[i]) > 1e-6) return 0;
    for (int j = 0; j < 3; j++)
      if (fabs(op->rot[i][j] - (i == j)) > 1e-6) return 0;
  }
  return 1;
}

/* Append the residues of the first assembly's other copies within the cutoff of the ligand's heavy atoms:
 * for each generator, its chains (of the ligand's model) under each non-identity operator, searched as a
 * symmetry image is (image_hits with a chain mask). */
static int assembly_copies(const sp_structure *s, const sp_survey *sv, size_t model, size_t m_lo, size_t m_hi,
                           float cutoff, sp_site_ws *ws, size_t n_heavy, sp_site *out, sp_err *err) {
  int rc = ensure_symmetry(ws, s, err); /* the Cartesian box of the model's atoms */
  if (rc) return rc;
  if (sp_grow((void **)&ws->lig_q, &ws->cap_q, n_heavy, sizeof *ws->lig_q) ||
      sp_grow((void **)&ws->chain_buf, &ws->cap_chain_buf, s->n_chains ? s->n_chains : 1, 1))
    return sp_err_set(err, SP_E_NOMEM, "site: out of memory");
  for (size_t g = 0; g < s->n_asm_gens && !rc; g++) {
    const sp_asm_gen *G = &s->asm_gens[g];
    int any = 0;
    for (size_t c = 0; c < s->n_chains; c++) {
      const sp_chain *ch = &s->chains[c];
      ws->chain_buf[c] = ch->model == model && sp_asm_gen_has_chain(G, ch);
      any |= ws->chain_buf[c];
    }
    for (uint32_t k = G->first_op; any && k < G->first_op + G->n_ops && !rc; k++) {
      const sp_asm_oper *op = &s->asm_ops[k];
      if (is_identity_op(op)) continue; /* the file's own copy: the ordinary site */
      uint32_t st = 0;
      static const int zero[3] = {0, 0, 0};
      ws->chain_mask = ws->chain_buf;
      rc = image_hits(s, ws, op->rot, op->trn, n_heavy, cutoff, m_lo, &st);
      ws->chain_mask = NULL;
      if (rc) rc = sp_err_set(err, SP_E_NOMEM, "site: out of memory");
      else if (ws->n_hits) rc = add_copy(s, sv, ws, (int)k, zero, op->id, op->rot, op->trn, m_lo, m_hi, st, out, err);
      if (rc == 1) return 0; /* 65,535 copies and images: flagged partial */
    }
  }
  return rc;
}

/* one point of the cell list within the cutoff of a ligand heavy atom: mark it (hit_atom) */
static inline int mark_hit(sp_site_ws *ws, const sp_structure *s, const sp_cells *cl, size_t q, float px, float py,
                           float pz, size_t m_lo, uint32_t st) {
  const sp_cell_pt *p = &cl->pts[q];
  float ex = p->x - px, ey = p->y - py, ez = p->z - pz;
  return hit_atom(ws, s, p->id, ex * ex + ey * ey + ez * ez, m_lo, st);
}

/* every point of cl->pts[j0, j1) with d^2 <= c2 from (px, py, pz) (the test is the same float expression
 * in the vector and the plain loop) */
static inline int scan_range(sp_site_ws *ws, const sp_structure *s, const sp_cells *cl, size_t j0, size_t j1,
                             float px, float py, float pz, float c2, size_t m_lo, uint32_t st) {
#if defined(__SSE2__)
  const __m128 vx = _mm_set1_ps(px), vy = _mm_set1_ps(py), vz = _mm_set1_ps(pz), vc = _mm_set1_ps(c2);
  for (size_t j = j0; j < j1; j += 4) { /* cl->px etc. have 4 spare entries after the last point */
    __m128 ex = _mm_sub_ps(_mm_loadu_ps(cl->px + j), vx);
    __m128 ey = _mm_sub_ps(_mm_loadu_ps(cl->py + j), vy);
    __m128 ez = _mm_sub_ps(_mm_loadu_ps(cl->pz + j), vz);
    __m128 d2 = _mm_add_ps(_mm_add_ps(_mm_mul_ps(ex, ex), _mm_mul_ps(ey, ey)), _mm_mul_ps(ez, ez));
    unsigned m = (unsigned)_mm_movemask_ps(_mm_cmple_ps(d2, vc));
    if (j1 - j < 4) m &= (1u << (j1 - j)) - 1u;
    for (; m; m &= m - 1)
      if (mark_hit(ws, s, cl, j + (size_t)__builtin_ctz(m), px, py, pz, m_lo, st)) return -1;
  }
#else
  for (size_t j = j0; j < j1; j++) {
    float ex = cl->px[j] - px, ey = cl->py[j] - py, ez = cl->pz[j] - pz;
    if (!(ex * ex + ey * ey + ez * ez <= c2)) continue;
    if (mark_hit(ws, s, cl, j, px, py, pz, m_lo, st)) return -1;
  }
#endif
  return 0;
}

/* The ligand's model [m_lo, m_hi) after checking that its model, residues and atoms are in range */
static int check_ligand(const sp_structure *s, const sp_survey *sv, size_t lig, size_t *m_lo, size_t *m_hi,
                        sp_err *err) {
  const sp_ligand *L = &sv->ligands[lig];
  if (L->model >= s->n_models)
    return sp_err_set(err, SP_E_INVALID, "site: ligand %zu has model index %u of %zu", lig, L->model, s->n_models);
  const sp_model *m = &s->models[L->model];
  *m_lo = m->first_atom, *m_hi = (size_t)m->first_atom + m->n_atoms;
  if (*m_hi > s->n_atoms) return sp_err_set(err, SP_E_INVALID, "site: model %u atom range out of bounds", L->model);
  for (size_t k = 0; k < L->n_res; k++) {
    uint32_t r = sv->res_refs[(size_t)L->res_first + k];
    if (r >= s->n_residues)
      return sp_err_set(err, SP_E_INVALID, "site: ligand %zu residue index %u out of range", lig, r);
  }
  for (size_t k = 0; k < L->n_atoms; k++) {
    uint32_t a = sv->atom_refs[(size_t)L->atom_first + k];
    if (a < *m_lo || a >= *m_hi)
      return sp_err_set(err, SP_E_INVALID, "site: ligand %zu atom index %u outside its model", lig, a);
  }
  return 0;
}

/* The ligand's residues first (res_refs order = file order), its heavy atoms (ws->lig_heavy) and the
 * site's centre (their mean; none: SP_SITE_NO_HEAVY). The number of heavy atoms, or SIZE_MAX when out of
 * memory */
static size_t ligand_residues_heavy(const sp_structure *s, const sp_survey *sv, const sp_ligand *L, sp_site_ws *ws,
                                    uint32_t st, sp_site *out) {
  for (size_t k = 0; k < L->n_res; k++) {
    uint32_t r = sv->res_refs[(size_t)L->res_first + k];
    if (ws->res_in[r] == st) continue; /* listed twice */
    if (push_res(out, r, SP_RES_KIND_LIGAND, 0.0f, 0)) return SIZE_MAX;
    ws->res_in[r] = st;
    ws->res_slot[r] = (uint32_t)(out->n_res - 1);
  }
  size_t n_heavy = 0;
  double c[3] = {0, 0, 0};
  for (size_t k = 0; k < L->n_atoms; k++) {
    uint32_t a = sv->atom_refs[(size_t)L->atom_first + k];
    if (s->element[a] == 1) continue;
    ws->lig_heavy[n_heavy++] = a;
    for (int d = 0; d < 3; d++) c[d] += s->xyz[a][d];
  }
  if (n_heavy) {
    for (int d = 0; d < 3; d++) out->center[d] = (float)(c[d] / (double)n_heavy);
  } else {
    out->flags |= SP_SITE_NO_HEAVY;
  }
  return n_heavy;
}

/* Neighbour scan: every chosen model atom of the cell list within the cutoff (c2 = its square) of a ligand
 * heavy atom is stamped @p st, its residue listed in ws->hits with its minimum squared distance.
 * 0, or -1 when out of memory */
static int neighbour_scan(const sp_structure *s, sp_site_ws *ws, size_t n_heavy, float c2, size_t m_lo, uint32_t st) {
  const sp_cells *cl = &ws->cells;
  ws->n_hits = 0;
  if (!cl->n_pts) return 0;
  for (size_t h = 0; h < n_heavy; h++) {
    const float *p = s->xyz[ws->lig_heavy[h]];
    const float px = p[0], py = p[1], pz = p[2];
    if (!isfinite(px) || !isfinite(py) || !isfinite(pz)) continue;
    int32_t cc[3];
    sp_cells_coord(cl, px, py, pz, cc);
    for (int32_t dz = -1; dz <= 1; dz++)
      for (int32_t dy = -1; dy <= 1; dy++) {
        if (!cl->hashed) {
          /* dense: the cells dx = -1..1 are adjacent buckets, one range of points */
          const int32_t iy = cc[1] + dy, iz = cc[2] + dz;
          if (iy < 0 || iz < 0 || iy >= cl->ny || iz >= cl->nz) continue;
          const int32_t x0 = cc[0] - 1 < 0 ? 0 : cc[0] - 1, x1 = cc[0] + 1 >= cl->nx ? cl->nx - 1 : cc[0] + 1;
          if (x0 > x1) continue;
          const size_t b0 = sp_cells_bucket(cl, x0, iy, iz), b1 = sp_cells_bucket(cl, x1, iy, iz);
          if (scan_range(ws, s, cl, cl->start[b0], cl->start[b1 + 1], px, py, pz, c2, m_lo, st)) return -1;
          continue;
        }
        for (int32_t dx = -1; dx <= 1; dx++) {
          size_t b = sp_cells_bucket(cl, cc[0] + dx, cc[1] + dy, cc[2] + dz);
          if (b == SIZE_MAX) continue;
          if (scan_range(ws, s, cl, cl->start[b], cl->start[b + 1], px, py, pz, c2, m_lo, st)) return -1;
        }
      }
  }
  return 0;
}

/* The site residues (hit, not of ligand @p lig, in file order), then the ligand's atoms in atom_refs order
 * (out->n_ligand), then every chosen atom of each site residue */
static int site_residues_atoms(const sp_structure *s, const sp_survey *sv, size_t lig, sp_site_ws *ws, size_t m_lo,
                               size_t m_hi, uint32_t st, sp_site *out, sp_err *err) {
  const sp_ligand *L = &sv->ligands[lig];
  if (ws->n_hits) qsort(ws->hits, ws->n_hits, sizeof *ws->hits, cmp_u32); /* hits is NULL before the first hit (C11 7.22.5: qsort needs a valid pointer even for 0) */
  size_t first_site_res = out->n_res;
  for (size_t k = 0; k < ws->n_hits; k++) {
    uint32_t r = ws->hits[k];
    if (ws->res_in[r] == st) continue;          /* a residue of this ligand */
    if (sv->res_ligand[r] == (int32_t)lig) continue;
    if (push_res(out, r, residue_kind(s, sv, r), sqrtf(ws->res_d2[r]), 0))
      return sp_err_set(err, SP_E_NOMEM, "site: out of memory");
    ws->res_in[r] = st;
    ws->res_slot[r] = (uint32_t)(out->n_res - 1);
  }
  if (reserve_atoms(out, L->n_atoms ? L->n_atoms : 1)) return sp_err_set(err, SP_E_NOMEM, "site: out of memory");
  for (size_t k = 0; k < L->n_atoms; k++) {
    uint32_t a = sv->atom_refs[(size_t)L->atom_first + k];
    uint32_t r = s->atom_residue[a];
    if (r >= s->n_residues || ws->res_in[r] != st || ws->res_slot[r] >= first_site_res)
      return sp_err_set(err, SP_E_INVALID, "site: ligand %zu atom %u is not in one of its residues", lig, a);
    size_t j = out->n_atoms++;
    out->atoms[j] = a;
    out->atom_flags[j] = atom_flags_of(s, a, SP_SITE_ATOM_LIGAND, ws->atom_hit[a - m_lo] == st);
    out->atom_res[j] = ws->res_slot[r];
    memcpy(out->xyz[j], s->xyz[a], sizeof out->xyz[j]);
  }
  out->n_ligand = out->n_atoms;
  for (size_t ri = first_site_res; ri < out->n_res; ri++) {
    int rc = push_residue_atoms(out, s, sv, ws, ri, kind_flag(out->res[ri].kind), NULL, NULL, m_lo, m_hi, st, err);
    if (rc) return rc;
  }
  return 0;
}

int sp_site_compute(const sp_structure *s, const sp_survey *sv, size_t lig, const sp_site_opts *opts,
                    sp_site_ws *ws, sp_site *out, sp_err *err) {
  if (!s || !sv || !ws || !out) return sp_err_set(err, SP_E_INVALID, "site: NULL argument");
  out->n_atoms = out->n_ligand = out->n_res = 0;
  out->n_images = 0;
  out->flags = 0;
  out->center[0] = out->center[1] = out->center[2] = NAN;
  if (lig >= sv->n_ligands)
    return sp_err_set(err, SP_E_INVALID, "site: ligand index %zu out of range (%zu ligands)", lig, sv->n_ligands);

  float cutoff = SP_SITE_DEFAULT_CUTOFF;
  size_t max_atoms = SP_SITE_DEFAULT_MAX_ATOMS;
  if (opts) {
    if (isinf(opts->cutoff)) return sp_err_set(err, SP_E_INVALID, "site: cutoff is not finite");
    if (opts->cutoff > 0) cutoff = opts->cutoff;
    if (opts->max_atoms > 0) max_atoms = opts->max_atoms;
  }
  const sp_ligand *L = &sv->ligands[lig];
  size_t m_lo = 0, m_hi = 0;
  int rc = check_ligand(s, sv, lig, &m_lo, &m_hi, err);
  if (rc) return rc;

  /* symmetry mates search the asymmetric unit around images of the ligand, far from any ligand of the
     model, and bound their translations by the box of the model's atoms: they need the whole model */
  rc = ensure_cells(ws, s, sv, L->model, cutoff, opts && (opts->symmetry_mates || opts->assembly), err);
  if (rc) return rc;
  if (sp_grow((void **)&ws->lig_heavy, &ws->cap_heavy, L->n_atoms ? L->n_atoms : 1, sizeof *ws->lig_heavy))
    return sp_err_set(err, SP_E_NOMEM, "site: out of memory");
  next_stamp(ws);
  const uint32_t st = ws->stamp;
  const size_t n_heavy = ligand_residues_heavy(s, sv, L, ws, st, out);
  if (n_heavy == SIZE_MAX) return sp_err_set(err, SP_E_NOMEM, "site: out of memory");

  /* the cell list was filled around the ligands the survey had at build time: a ligand atom outside
     those cells (a survey changed in place) gets the whole model */
  for (size_t h = 0; h < n_heavy && !ws->full; h++) {
    const float *p = s->xyz[ws->lig_heavy[h]];
    if (!isfinite(p[0]) || !isfinite(p[1]) || !isfinite(p[2])) continue;
    if (!covered(ws, p) && (rc = ensure_cells(ws, s, sv, L->model, cutoff, 1, err))) return rc;
  }
  if (neighbour_scan(s, ws, n_heavy, cutoff * cutoff, m_lo, st)) return sp_err_set(err, SP_E_NOMEM, "site: out of memory");
  if ((rc = site_residues_atoms(s, sv, lig, ws, m_lo, m_hi, st, out, err))) return rc;
  if (opts && opts->symmetry_mates && n_heavy && ws->cells.n_pts) {
    rc = symmetry_mates(s, sv, m_lo, m_hi, cutoff, ws, n_heavy, out, err);
    if (rc) return rc;
  }
  if (opts && opts->assembly && s->n_asm_gens && n_heavy && ws->cells.n_pts) {
    rc = assembly_copies(s, sv, L->model, m_lo, m_hi, cutoff, ws, n_heavy, out, err);
    if (rc) return rc;
  }
  /* one copy per atom position: an assembly copy a crystal operator reproduces, a special position */
  if (sp_site_merge_copies(out)) return sp_err_set(err, SP_E_NOMEM, "site: out of memory");
  if (out->n_atoms > max_atoms) {
    out->flags |= SP_SITE_OVERSIZE;
    out->n_atoms = out->n_ligand;
  }
  return 0;
}

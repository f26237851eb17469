/* Site chemistry, burial: Shrake–Rupley SASA of the ligand's heavy atoms alone (sasa_free) and with every
 * other chosen non-water heavy atom of the model present (sasa_complex), one pass of the kernel
 * (sasa.c, sp_sasa_two). The environment of a model (its candidate atoms sorted by cell) is built once
 * and kept for the model's other sites. See sitechem.h and docs/sites.md ("Burial"). */
#include "site/sitechem_internal.h"
#include "site/sasa_internal.h"

#include "sitepack/elements.h"
#include "sitepack/survey.h"

#define ENV_CELL 4.0f
#define ENV_BIAS (1 << 20)

struct env_pair { int64_t key; uint32_t atom; uint32_t pad; };

struct chem_burial {
  float (*sx)[3]; size_t cap_sx;       /* SASA input: ligand heavy atoms, then the environment */
  float *sr; size_t cap_sr;
  float *so; size_t cap_so;
  /* SASA kernel workspace: sphere blocks (once per point count), neighbour and mask scratch */
  sp_sasa_ws *sasa;
  /* SASA environment of one model, built once per key (env_key_walk: the model's atoms, the survey's
   * choices and ligands): chosen-conformer heavy non-water atoms with finite coordinates, sorted by
   * packed cell key (cell ENV_CELL Å) */
  const sp_structure *env_s;           /* NULL: no environment held (else the structure it was built on) */
  unsigned char *key; size_t key_len, cap_key; /* the bytes it was built from (env_key_walk) */
  size_t env_n, cap_env;
  int64_t *env_key; float (*env_xyz)[3]; float *env_rad; uint32_t *env_res;
  float env_rmax;
  struct env_pair *env_tmp; size_t cap_env_tmp;
  struct env_pair *env_tmp2; size_t cap_env_tmp2; uint32_t *env_count; size_t cap_env_count;
  /* the environment holds only the atoms of the cells that the model's ligands' SASA queries read
   * (mask over cells env_mlo .. env_mlo + env_mdim - 1), or, with env_full, every candidate atom */
  int env_full;
  uint8_t *env_mask; size_t cap_env_mask;
  int64_t env_mlo[3], env_mdim[3];
};

void sp_chem_burial_free(chem_burial *b) {
  if (!b) return;
  free(b->sx); free(b->sr); free(b->so);
  sp_sasa_ws_free(b->sasa); free(b->env_key); free(b->env_xyz); free(b->env_rad); free(b->env_res); free(b->env_tmp);
  free(b->env_tmp2); free(b->env_count); free(b->env_mask); free(b->key);
  free(b);
}

static inline int64_t env_cell(float v) {
  const double t = (double)v * (1.0 / ENV_CELL); /* = v / ENV_CELL exactly: a power of two */
  if (!(t >= -ENV_BIAS)) return 0;                      /* floor(t) < -ENV_BIAS: clamped (v is finite) */
  if (t >= ENV_BIAS - 2) return 2 * (int64_t)ENV_BIAS - 2; /* floor(t) >= ENV_BIAS - 2 */
  int64_t q = (int64_t)t; /* floor(t) without a libm call */
  q -= t < (double)q;
  return q + ENV_BIAS;
}
static int64_t env_pack(int64_t x, int64_t y, int64_t z) { return (x << 42) | (y << 21) | z; }

static int cmp_env_pair(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return x < y ? -1 : x > y;
}

/* sort b->env_tmp[0..n) by key: a stable counting sort over the dense cell range of the model's box
 * (same order as sorting the packed keys: x, then y, then z), a comparison sort when the box is
 * huge or sparse (an outlier far away) */
static int env_sort(chem_burial *b, size_t n) {
  if (n < 2) return 0;
  const int64_t M = ((int64_t)1 << 21) - 1;
  int64_t lo[3] = {M, M, M}, hi[3] = {0, 0, 0};
  for (size_t k = 0; k < n; k++)
    for (int d = 0; d < 3; d++) {
      int64_t v = (b->env_tmp[k].key >> (42 - 21 * d)) & M;
      if (v < lo[d]) lo[d] = v;
      if (v > hi[d]) hi[d] = v;
    }
  const uint64_t nx = (uint64_t)(hi[0] - lo[0] + 1), ny = (uint64_t)(hi[1] - lo[1] + 1),
                 nz = (uint64_t)(hi[2] - lo[2] + 1);
  const uint64_t lim = 4 * (uint64_t)n + 4096;
  if (nx > lim || ny > lim || nz > lim || nx * ny > lim || nx * ny * nz > lim) {
    qsort(b->env_tmp, n, sizeof *b->env_tmp, cmp_env_pair);
    return 0;
  }
  const size_t R = (size_t)(nx * ny * nz);
  if (SP_GROW(b->env_count, b->cap_env_count, R + 1) || SP_GROW(b->env_tmp2, b->cap_env_tmp2, n + 1)) return -1;
  memset(b->env_count, 0, (R + 1) * sizeof *b->env_count);
  for (size_t k = 0; k < n; k++) {
    const int64_t key = b->env_tmp[k].key;
    const size_t cell = (size_t)((((key >> 42) & M) - lo[0]) * (int64_t)ny * (int64_t)nz +
                                 (((key >> 21) & M) - lo[1]) * (int64_t)nz + ((key & M) - lo[2]));
    b->env_tmp[k].pad = (uint32_t)cell;
    b->env_count[cell + 1]++;
  }
  for (size_t r = 0; r < R; r++) b->env_count[r + 1] += b->env_count[r];
  for (size_t k = 0; k < n; k++) b->env_tmp2[b->env_count[b->env_tmp[k].pad]++] = b->env_tmp[k];
  struct env_pair *t = b->env_tmp;
  size_t ct = b->cap_env_tmp;
  b->env_tmp = b->env_tmp2, b->cap_env_tmp = b->cap_env_tmp2;
  b->env_tmp2 = t, b->cap_env_tmp2 = ct;
  return 0;
}

/* The environment's key: a copy of everything the environment of model @p mi is made of, read straight
 * from the arrays: every atom's position (bit for bit), element, residue and altloc, the chosen altloc and
 * role of the model's residues, the atoms of the model's ligands (the mask) and the probe. A cached
 * environment is used only when these bytes are the ones it was built from, so a structure or survey
 * re-filled with another file (the same atoms from an mmCIF and a PDB file, say) is never served the
 * earlier file's atoms (issue 20). Comparing is one memcmp pass; a miss copies the bytes after the build. */
typedef struct env_key_cursor {
  chem_burial *b;
  size_t off;
  int same;   /* compare: all bytes so far equal the stored key */
  int copy;   /* 1: store the bytes (after a build); 0: compare */
  int nomem;
} env_key_cursor;

static void key_bytes(env_key_cursor *k, const void *p, size_t n) {
  chem_burial *b = k->b;
  if (k->copy) {
    if (SP_GROW(b->key, b->cap_key, k->off + n + 1)) k->nomem = 1;
    else if (n) memcpy(b->key + k->off, p, n);
  } else if (k->same) {
    k->same = k->off + n <= b->key_len && (!n || !memcmp(b->key + k->off, p, n));
  }
  k->off += n;
}

static void env_key_walk(env_key_cursor *k, const sp_structure *s, const sp_survey *sv, size_t mi, float probe) {
  const sp_model *m = &s->models[mi];
  const size_t a0 = m->first_atom, n = m->n_atoms;
  key_bytes(k, &mi, sizeof mi);
  key_bytes(k, &probe, sizeof probe);
  key_bytes(k, &a0, sizeof a0);
  key_bytes(k, &n, sizeof n);
  if (n) {
    key_bytes(k, s->xyz + a0, n * sizeof *s->xyz);
    key_bytes(k, s->element + a0, n * sizeof *s->element);
    key_bytes(k, s->atom_residue + a0, n * sizeof *s->atom_residue);
    key_bytes(k, s->altloc + a0, n * sizeof *s->altloc);
    size_t r0 = s->atom_residue[a0], r1 = s->atom_residue[a0 + n - 1];
    if (!(r0 <= r1 && r1 < s->n_residues)) r0 = 0, r1 = s->n_residues ? s->n_residues - 1 : 0; /* not in file order */
    if (s->n_residues) {
      key_bytes(k, sv->res_altloc + r0, (r1 - r0 + 1) * sizeof *sv->res_altloc);
      key_bytes(k, sv->res_role + r0, (r1 - r0 + 1) * sizeof *sv->res_role);
    }
  }
  for (size_t l = 0; l < sv->n_ligands; l++) {
    const sp_ligand *L = &sv->ligands[l];
    if (L->model != mi) continue;
    const size_t na = L->n_atoms;
    key_bytes(k, &l, sizeof l);
    key_bytes(k, &na, sizeof na);
    key_bytes(k, sv->atom_refs + L->atom_first, na * sizeof *sv->atom_refs);
  }
}

/* is the cached environment built from what model mi of (s, sv) holds now */
static int env_key_same(chem_burial *b, const sp_structure *s, const sp_survey *sv, size_t mi, float probe) {
  if (!b->env_s) return 0;
  env_key_cursor k = {b, 0, 1, 0, 0};
  env_key_walk(&k, s, sv, mi, probe);
  return k.same && k.off == b->key_len;
}

/* store the key of the environment just built; -1 when out of memory */
static int env_key_keep(chem_burial *b, const sp_structure *s, const sp_survey *sv, size_t mi, float probe) {
  env_key_cursor k = {b, 0, 0, 1, 0};
  env_key_walk(&k, s, sv, mi, probe);
  b->key_len = k.nomem ? 0 : k.off;
  return k.nomem ? -1 : 0;
}

/* Cell box [c0, c1] of what burial() reads for a ligand of bounding box [lo, hi] and largest radius rlig
 * (the same float expressions) */
static void env_query_box(const float lo[3], const float hi[3], float rlig, float rmax, float probe, int64_t c0[3],
                          int64_t c1[3]) {
  const float reach = rlig + rmax + 2.0f * probe;
  for (int d = 0; d < 3; d++) c0[d] = env_cell(lo[d] - reach), c1[d] = env_cell(hi[d] + reach);
}

/* Mark the cells the SASA queries of the ligands of model mi read: for each ligand, the box of all its
 * atoms (H included: a superset of its heavy atoms') with its largest radius (H included: not smaller),
 * rmax not below the model's largest candidate radius. Every step is monotone, so each query box of
 * burial() lies inside the marked box of its ligand (burial() checks it all the same).
 * 0: marked; 1: no mask (too large a box: keep every atom); -1: out of memory. */
static int env_mark(chem_burial *b, const float *vdw, const sp_structure *s, const sp_survey *sv, size_t mi, float rmax, float probe,
                    size_t n_env) {
  const sp_model *m = &s->models[mi];
  const size_t m_lo = m->first_atom, m_hi = (size_t)m->first_atom + m->n_atoms;
  int64_t blo[3] = {INT64_MAX, INT64_MAX, INT64_MAX}, bhi[3] = {INT64_MIN, INT64_MIN, INT64_MIN};
  for (int pass = 0; pass < 2; pass++) {
    const int64_t ny = b->env_mdim[1], nz = b->env_mdim[2];
    for (size_t l = 0; l < sv->n_ligands; l++) {
      const sp_ligand *L = &sv->ligands[l];
      if (L->model != mi) continue;
      float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY}, rlig = 0;
      for (size_t k = 0; k < L->n_atoms; k++) {
        uint32_t a = sv->atom_refs[(size_t)L->atom_first + k];
        if (a < m_lo || a >= m_hi) continue;
        const float *p = s->xyz[a];
        if (!isfinite(p[0]) || !isfinite(p[1]) || !isfinite(p[2])) continue;
        if (vdw[s->element[a]] > rlig) rlig = vdw[s->element[a]];
        for (int d = 0; d < 3; d++) {
          if (p[d] < lo[d]) lo[d] = p[d];
          if (p[d] > hi[d]) hi[d] = p[d];
        }
      }
      if (!(lo[0] <= hi[0])) continue;
      int64_t c0[3], c1[3];
      env_query_box(lo, hi, rlig, rmax, probe, c0, c1);
      if (pass == 0) {
        for (int d = 0; d < 3; d++) {
          if (c0[d] < blo[d]) blo[d] = c0[d];
          if (c1[d] > bhi[d]) bhi[d] = c1[d];
        }
        continue;
      }
      for (int64_t x = c0[0]; x <= c1[0]; x++)
        for (int64_t y = c0[1]; y <= c1[1]; y++)
          memset(b->env_mask + (size_t)((c0[2] - b->env_mlo[2]) + nz * ((y - b->env_mlo[1]) + ny * (x - b->env_mlo[0]))),
                 1, (size_t)(c1[2] - c0[2] + 1));
    }
    if (pass == 0) {
      if (blo[0] > bhi[0]) { /* no ligand with a finite atom: nothing is read */
        for (int d = 0; d < 3; d++) b->env_mlo[d] = 0, b->env_mdim[d] = 1;
        if (SP_GROW(b->env_mask, b->cap_env_mask, 1)) return -1;
        b->env_mask[0] = 0;
        return 0;
      }
      const uint64_t lim = 4 * (uint64_t)n_env + 4096;
      uint64_t cells = 1;
      for (int d = 0; d < 3; d++) {
        uint64_t nd = (uint64_t)(bhi[d] - blo[d] + 1);
        if (nd > lim || blo[d] <= 0 || bhi[d] >= 2 * (int64_t)ENV_BIAS - 2) return 1; /* clamped cells: no mask */
        cells *= nd;
        if (cells > lim) return 1;
        b->env_mlo[d] = blo[d];
        b->env_mdim[d] = (int64_t)nd;
      }
      if (SP_GROW(b->env_mask, b->cap_env_mask, (size_t)cells)) return -1;
      memset(b->env_mask, 0, (size_t)cells);
    }
  }
  return 0;
}

/* index of cell (x, y, z) in the mask (x-major: the order of the packed keys), or -1 outside it */
static inline int64_t env_mask_index(const chem_burial *b, int64_t x, int64_t y, int64_t z) {
  x -= b->env_mlo[0], y -= b->env_mlo[1], z -= b->env_mlo[2];
  if (x < 0 || y < 0 || z < 0 || x >= b->env_mdim[0] || y >= b->env_mdim[1] || z >= b->env_mdim[2]) return -1;
  return z + b->env_mdim[2] * (y + b->env_mdim[1] * x);
}

/* the SASA environment of model @p mi, cached in the workspace: the candidate atoms (chosen-conformer heavy
 * non-water atoms with finite coordinates) in the cells the model's ligands read, or with @p full all of them */
static int env_build(ctx *c, size_t mi, float probe, int full) {
  const sp_structure *s = c->s;
  const sp_survey *sv = c->sv;
  sp_chem_ws *w = c->w;
  chem_burial *b = w->burial;
  const sp_model *m = &s->models[mi];
  if ((b->env_full || !full) && env_key_same(b, s, sv, mi, probe)) return 0;
  b->env_s = NULL;
  size_t n = 0;
  const size_t a0 = m->first_atom, a1 = (size_t)m->first_atom + m->n_atoms;
  if (SP_GROW(b->env_tmp, b->cap_env_tmp, (size_t)m->n_atoms + 1))
    return sp_err_set(c->err, SP_E_NOMEM, "site chemistry: out of memory");
  /* the mask is marked with the largest heavy-atom radius of the model (not smaller than the candidates'
     largest, rmax below, which the queries use) */
  float rbound = 0;
  int mk = 1;
  if (!full) {
    uint8_t seen[256] = {0};
    for (size_t a = a0; a < a1; a++) seen[s->element[a]] = 1;
    for (int el = 0; el < 256; el++)
      if (seen[el] && el != 1 && w->vdw[el] > rbound) rbound = w->vdw[el];
    mk = env_mark(b, w->vdw, s, sv, mi, rbound, probe, m->n_atoms);
    if (mk < 0) return sp_err_set(c->err, SP_E_NOMEM, "site chemistry: out of memory");
  }
  float rmax = 0;
  const int64_t lx = b->env_mlo[0], ly = b->env_mlo[1], lz = b->env_mlo[2];
  const uint64_t nx = (uint64_t)b->env_mdim[0], ny = (uint64_t)b->env_mdim[1], nz = (uint64_t)b->env_mdim[2];
  const double ox = (double)(lx - ENV_BIAS), oy = (double)(ly - ENV_BIAS), oz = (double)(lz - ENV_BIAS);
  const double fx = (double)nx, fy = (double)ny, fz = (double)nz;
  if (mk == 0) { /* counting sort over the mask's cells (x-major: the packed keys' order), counted in the pass */
    if (SP_GROW(b->env_count, b->cap_env_count, (size_t)(nx * ny * nz) + 1))
      return sp_err_set(c->err, SP_E_NOMEM, "site chemistry: out of memory");
    memset(b->env_count, 0, ((size_t)(nx * ny * nz) + 1) * sizeof *b->env_count);
  }
  for (size_t a = a0; a < a1; a++) {
    uint8_t el = s->element[a];
    if (el == 1) continue;
    const float *p = s->xyz[a];
    const float r = w->vdw[el];
    if (r > rmax && isfinite(p[0]) && isfinite(p[1]) && isfinite(p[2]) &&
        sv->res_role[s->atom_residue[a]] != SP_ROLE_WATER && sp_survey_atom_chosen(s, sv, a))
      rmax = r; /* the whole model's largest candidate radius, whatever the mask keeps */
    int64_t cx, cy, cz;
    uint64_t idx = 0;
    if (mk == 0) {
      /* v / ENV_CELL - (mask corner - ENV_BIAS): exact (a power of two, then integers far below 2^53); at or
         above 0 inside the mask, where truncation is floor, so x + lx = env_cell(v) (the mask avoids the
         clamped cells); NaN and infinities fail the range test */
      const double tx = (double)p[0] * (1.0 / ENV_CELL) - ox, ty = (double)p[1] * (1.0 / ENV_CELL) - oy,
                   tz = (double)p[2] * (1.0 / ENV_CELL) - oz;
      if (!(tx >= 0 && tx < fx && ty >= 0 && ty < fy && tz >= 0 && tz < fz)) continue;
      const uint64_t x = (uint64_t)tx, y = (uint64_t)ty, z = (uint64_t)tz;
      idx = z + nz * (y + ny * x);
      if (!b->env_mask[idx]) continue;
      cx = (int64_t)x + lx, cy = (int64_t)y + ly, cz = (int64_t)z + lz;
    } else {
      if (!isfinite(p[0]) || !isfinite(p[1]) || !isfinite(p[2])) continue;
      cx = env_cell(p[0]), cy = env_cell(p[1]), cz = env_cell(p[2]);
    }
    if (sv->res_role[s->atom_residue[a]] == SP_ROLE_WATER || !sp_survey_atom_chosen(s, sv, a)) continue;
    b->env_tmp[n].key = env_pack(cx, cy, cz);
    b->env_tmp[n].atom = (uint32_t)a;
    b->env_tmp[n].pad = (uint32_t)idx;
    if (mk == 0) b->env_count[idx + 1]++;
    n++;
  }
  b->env_full = mk != 0;
  if (SP_GROW(b->env_key, b->cap_env, n + 1)) return sp_err_set(c->err, SP_E_NOMEM, "site chemistry: out of memory");
  size_t cap = b->cap_env;
  float(*x)[3] = sp_realloc_array(b->env_xyz, cap, sizeof *x);
  if (x) b->env_xyz = x;
  float *r = sp_realloc_array(b->env_rad, cap, sizeof *r);
  if (r) b->env_rad = r;
  uint32_t *re = sp_realloc_array(b->env_res, cap, sizeof *re);
  if (re) b->env_res = re;
  if (!x || !r || !re) return sp_err_set(c->err, SP_E_NOMEM, "site chemistry: out of memory");
  if (mk == 0) { /* stable scatter in key order; env_count[q] then ends cell q (burial() reads it) */
    for (size_t q = 0; q < (size_t)(nx * ny * nz); q++) b->env_count[q + 1] += b->env_count[q];
    for (size_t k = 0; k < n; k++) {
      const uint32_t a = b->env_tmp[k].atom, j = b->env_count[b->env_tmp[k].pad]++;
      b->env_key[j] = b->env_tmp[k].key;
      memcpy(b->env_xyz[j], s->xyz[a], sizeof b->env_xyz[j]);
      b->env_rad[j] = w->vdw[s->element[a]];
      b->env_res[j] = s->atom_residue[a];
    }
  } else {
    if (env_sort(b, n)) return sp_err_set(c->err, SP_E_NOMEM, "site chemistry: out of memory");
    for (size_t k = 0; k < n; k++) {
      uint32_t a = b->env_tmp[k].atom;
      b->env_key[k] = b->env_tmp[k].key;
      memcpy(b->env_xyz[k], s->xyz[a], sizeof b->env_xyz[k]);
      b->env_rad[k] = w->vdw[s->element[a]];
      b->env_res[k] = s->atom_residue[a];
    }
  }
  b->env_n = n;
  b->env_rmax = rmax;
  b->env_s = s;
  if (env_key_keep(b, s, sv, mi, probe)) {
    b->env_s = NULL;
    return sp_err_set(c->err, SP_E_NOMEM, "site chemistry: out of memory");
  }
  return 0;
}

/* The SASA input's first nl atoms: the ligand's heavy atoms (b->sx, b->sr), their box [lo, hi] (finite
 * atoms; lo > hi when none) and largest radius */
static int ligand_input(ctx *c, chem_burial *b, float lo[3], float hi[3], float *rlig_out) {
  const sp_chem_ws *w = c->w;
  const size_t nl = c->nl;
  if (SP_GROW(b->sx, b->cap_sx, nl + 1) || SP_GROW(b->sr, b->cap_sr, nl + 1))
    return sp_err_set(c->err, SP_E_NOMEM, "site chemistry: out of memory");
  float rlig = 0;
  for (int d = 0; d < 3; d++) lo[d] = INFINITY, hi[d] = -INFINITY;
  for (size_t i = 0; i < nl; i++) {
    const float *p = X(c, w->nsite[i]);
    memcpy(b->sx[i], p, sizeof b->sx[i]);
    b->sr[i] = sp_element_vdw_radius(w->ln[i].el);
    if (b->sr[i] > rlig) rlig = b->sr[i];
    if (!isfinite(p[0]) || !isfinite(p[1]) || !isfinite(p[2])) continue;
    for (int d = 0; d < 3; d++) {
      if (p[d] < lo[d]) lo[d] = p[d];
      if (p[d] > hi[d]) hi[d] = p[d];
    }
  }
  *rlig_out = rlig;
  return 0;
}

/* Append to the SASA input (from *n on) every environment atom inside the box [lo - reach, hi + reach]
 * that is not of ligand @p lig: every atom that can occlude a ligand atom's probe sphere
 * (d < r_lig + r_env + 2 probe) */
static int env_collect(ctx *c, chem_burial *b, size_t lig, float probe, const float lo[3], const float hi[3],
                       float reach, size_t *n_io) {
  const sp_survey *sv = c->sv;
  const size_t nl = c->nl;
  size_t n = *n_io;
  int64_t c0[3], c1[3];
  for (int d = 0; d < 3; d++) c0[d] = env_cell(lo[d] - reach), c1[d] = env_cell(hi[d] + reach);
  /* the environment holds the cells read by the ligands the survey had at build time; a box outside
     them (another site or survey passed) gets every atom of the model */
  int cov = 1, rc;
  for (int64_t cx = c0[0]; cx <= c1[0] && cov && !b->env_full; cx++)
    for (int64_t cy = c0[1]; cy <= c1[1] && cov; cy++) {
      const int64_t i0 = env_mask_index(b, cx, cy, c0[2]);
      cov = i0 >= 0 && env_mask_index(b, cx, cy, c1[2]) >= 0 &&
            !memchr(b->env_mask + i0, 0, (size_t)(c1[2] - c0[2] + 1));
    }
  if (!cov && (rc = env_build(c, sv->ligands[lig].model, probe, 1))) return rc;
  if (SP_GROW(b->sx, b->cap_sx, nl + b->env_n + 1) || SP_GROW(b->sr, b->cap_sr, nl + b->env_n + 1))
    return sp_err_set(c->err, SP_E_NOMEM, "site chemistry: out of memory");
  for (int64_t cx = c0[0]; cx <= c1[0]; cx++)
    for (int64_t cy = c0[1]; cy <= c1[1]; cy++) {
      int64_t k0 = env_pack(cx, cy, c0[2]), k1 = env_pack(cx, cy, c1[2]);
      size_t a = 0, z = b->env_n, end = b->env_n;
      if (!b->env_full) {
        /* masked: the column's cells are consecutive in the mask (covered, above); env_count[q] is the end
           of cell q's atoms, so [a, end) is the atoms of cells c0[2] .. c1[2] */
        const int64_t i0 = env_mask_index(b, cx, cy, c0[2]), i1 = i0 + (c1[2] - c0[2]);
        a = i0 ? b->env_count[i0 - 1] : 0;
        end = b->env_count[i1];
      } else {
        while (a < z) {
          size_t mid = (a + z) / 2;
          if (b->env_key[mid] < k0) a = mid + 1;
          else z = mid;
        }
      }
      for (size_t k = a; k < end && b->env_key[k] <= k1; k++) {
        const float *p = b->env_xyz[k];
        if (!(p[0] >= lo[0] - reach && p[0] <= hi[0] + reach && p[1] >= lo[1] - reach && p[1] <= hi[1] + reach &&
              p[2] >= lo[2] - reach && p[2] <= hi[2] + reach))
          continue;
        if (sv->res_ligand[b->env_res[k]] == (int32_t)lig) continue;
        memcpy(b->sx[n], p, sizeof b->sx[n]);
        b->sr[n] = b->env_rad[k];
        n++;
      }
    }
  *n_io = n;
  return 0;
}

/* SASA of the nl ligand atoms among the n atoms of the input, into the output's per-atom arrays and totals */
static int run_sasa(ctx *c, chem_burial *b, const sp_chem_opts *opt, size_t n) {
  sp_site_chem *o = c->out;
  const sp_chem_ws *w = c->w;
  const size_t nl = c->nl;
  if (SP_GROW(b->so, b->cap_so, 2 * nl + 2))
    return sp_err_set(c->err, SP_E_NOMEM, "site chemistry: out of memory");
  for (size_t i = 0; i < n; i++)
    if (!(b->sr[i] > 0.0f) || !isfinite(b->sr[i]))
      return sp_err_set(c->err, SP_E_INVALID, "site chemistry: atom with radius %g", (double)b->sr[i]);
  float *f = b->so, *cx = b->so + nl;
  if (sp_sasa_two(b->sasa, SP_SASA_ISA_AUTO, nl, n, (const float(*)[3])b->sx, b->sr, opt->probe, opt->sasa_points, f,
                  cx))
    return sp_err_set(c->err, SP_E_NOMEM, "site chemistry: out of memory (SASA, %zu atoms)", n);
  for (size_t i = 0; i < nl; i++) {
    o->sasa_free[w->nsite[i]] = f[i];
    o->sasa_complex[w->nsite[i]] = cx[i];
    if (isfinite(f[i])) o->sasa_free_total += f[i];
    if (isfinite(cx[i])) o->sasa_complex_total += cx[i];
  }
  return 0;
}

int sp_chem_burial(ctx *c, const sp_chem_opts *opt, size_t lig) {
  sp_site_chem *o = c->out;
  sp_chem_ws *w = c->w;
  const size_t nl = c->nl;
  o->sasa_free_total = o->sasa_complex_total = 0;
  if (nl == 0) return 0;
  if (!w->burial && !(w->burial = calloc(1, sizeof *w->burial)))
    return sp_err_set(c->err, SP_E_NOMEM, "site chemistry: out of memory");
  chem_burial *b = w->burial;
  const float probe = opt->probe;
  int rc = env_build(c, c->sv->ligands[lig].model, probe, 0);
  if (rc) return rc;
  if (!b->sasa && !(b->sasa = sp_sasa_ws_new())) return sp_err_set(c->err, SP_E_NOMEM, "site chemistry: out of memory");
  float lo[3], hi[3], rlig = 0;
  if ((rc = ligand_input(c, b, lo, hi, &rlig))) return rc;
  size_t n = nl;
  if (lo[0] <= hi[0] && (rc = env_collect(c, b, lig, probe, lo, hi, rlig + b->env_rmax + 2.0f * probe, &n))) return rc;
  return run_sasa(c, b, opt, n);
}

/* Bond orders and formal charges from coordinates and connectivity (perceive.h; issue 37 item 2): each atom's
 * possible states (units of unsaturation it must pair, its charge, a cost), chosen per atom by its bonds (with
 * explicit hydrogens) or by its geometry (heavy atoms only, perceive_geom.c); then an exact branch-and-bound
 * search, per connected set of atoms that can pair, for the pairing of fewest charged atoms, smallest |charge|,
 * largest bond shortening (perceive_search.c). The method and its sources: perceive.h. */
#include "sitepack/perceive.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "perceive_internal.h"
#include "sitepack/elements.h"
#include "sitepack/valence.h"

/* Periodic-table group of the nitrogen (15), oxygen (16) and halogen (17) families; 0 otherwise. */
static int group_of(uint8_t z) {
  switch (z) {
    case 7:
    case 15:
    case 33:
    case 51: return 15;
    case 8:
    case 16:
    case 34:
    case 52: return 16;
    case 9:
    case 17:
    case 35:
    case 53:
    case 85: return 17;
    default: return 0;
  }
}

void pc_add_state(pc_atom *a, int lo, int hi, int q, int cost) {
  if (a->nst >= PC_MAX_STATES || lo < 0 || hi < lo) return;
  a->st[a->nst++] = (pc_state){(int8_t)lo, (int8_t)hi, (int8_t)q, (uint8_t)cost};
}

/* The valences a neutral atom of z may take here: the valence list (valence.h) without the rare hypervalent
 * entries (P and As 7, Si 6, Sb, Te and halogens above their first), as xyz2mol's table (P 3 5, S 2 4 6). */
static int neutral_valences(uint8_t z, int v[SP_VALENCE_MAX_LIST]) {
  int n = sp_valence_list(z, v);
  if (z == 15 || z == 33) return n > 2 ? 2 : n;
  if (z == 16 || z == 34) return n;
  return n ? 1 : 0;
}

/* Explicit-hydrogen states of an atom with d bonds: every neutral valence v >= d (v - d units); the cation
 * (first valence + 1: N+ 4, O+ 3, S+ 3, P+ 4) and the anion (first valence - 1: N- 2, O- 1, halide 0) of the
 * nitrogen, oxygen and halogen groups, cost 1; B- (4); C- (3 bonds, xyz2mol's carbanion), cost 4. */
void pc_states_explicit(pc_atom *a, uint8_t z, int d) {
  int v[SP_VALENCE_MAX_LIST], n = neutral_valences(z, v);
  a->nst = 0;
  if (!n) return;
  for (int k = 0; k < n; k++)
    if (v[k] >= d) pc_add_state(a, v[k] - d, v[k] - d, 0, 0);
  int grp = group_of(z);
  if (grp == 15 || grp == 16 || grp == 17) {
    if (grp != 17 && v[0] + 1 >= d) pc_add_state(a, v[0] + 1 - d, v[0] + 1 - d, +1, 1);
    if (v[0] - 1 >= d) pc_add_state(a, v[0] - 1 - d, v[0] - 1 - d, -1, 1);
  } else if (z == 5 && 4 >= d) {
    pc_add_state(a, 4 - d, 4 - d, -1, 1);
  } else if (z == 6 && d <= 3) {
    pc_add_state(a, 3 - d, 3 - d, -1, 4);
  }
}

/* Bonds that count for the atoms' valences: both atoms have a valence entry (no metal bond, no bond to an
 * element the table lacks: a dative bond to a metal does not change the ligand atom's own valence). */
static bool counted(const uint8_t *z, uint32_t a, uint32_t b) {
  return sp_valence_default(z[a]) > 0 && sp_valence_default(z[b]) > 0;
}

int pc_csr(size_t n, size_t nb, const uint32_t (*pairs)[2], const uint8_t *keep, uint32_t **off, uint32_t **nbr,
           uint32_t **bond) {
  *off = calloc(n + 1, sizeof **off), *nbr = malloc((2 * nb + 1) * sizeof **nbr);
  *bond = malloc((2 * nb + 1) * sizeof **bond);
  uint32_t *fill = calloc(n + 1, sizeof *fill);
  if (!*off || !*nbr || !*bond || !fill) {
    free(fill);
    return SP_E_NOMEM;
  }
  for (size_t e = 0; e < nb; e++)
    if (keep[e]) (*off)[pairs[e][0] + 1]++, (*off)[pairs[e][1] + 1]++;
  for (size_t i = 0; i < n; i++) (*off)[i + 1] += (*off)[i];
  for (size_t e = 0; e < nb; e++) {
    if (!keep[e]) continue;
    uint32_t a = pairs[e][0], b = pairs[e][1];
    (*nbr)[(*off)[a] + fill[a]] = b, (*bond)[(*off)[a] + fill[a]++] = (uint32_t)e;
    (*nbr)[(*off)[b] + fill[b]] = a, (*bond)[(*off)[b] + fill[b]++] = (uint32_t)e;
  }
  free(fill);
  return 0;
}

/* The counted bonds (ok_bond), their shortening (esc) and their CSR. */
static int build_graph(pc_mol *M, size_t nb, const uint32_t (*pairs)[2]) {
  M->esc = malloc((nb + 1) * sizeof *M->esc);
  M->wsc = malloc((nb + 1) * sizeof *M->wsc);
  M->ok_bond = malloc(nb + 1);
  if (!M->esc || !M->wsc || !M->ok_bond) return SP_E_NOMEM;
  for (size_t e = 0; e < nb; e++) {
    uint32_t a = pairs[e][0], b = pairs[e][1];
    M->ok_bond[e] = counted(M->z, a, b);
    const float *p = M->xyz[a], *q = M->xyz[b];
    float dx = p[0] - q[0], dy = p[1] - q[1], dz = p[2] - q[2];
    M->esc[e] = sp_element_covalent_radius(M->z[a]) + sp_element_covalent_radius(M->z[b]) -
                sqrtf(dx * dx + dy * dy + dz * dz);
  }
  return pc_csr(M->n, nb, pairs, M->ok_bond, &M->off, &M->nbr, &M->nbond);
}

/* A unit on a bond adds its shortening less 0.10 Å to the score: between single (0) and aromatic / double C-C,
 * C-N, C-O (0.13-0.21 Å), so that an optional pair (an N or O that may keep its H) is made only on a bond that
 * is short, and not merely on any bond shorter than single. */
#define PAIR_SHORT_MIN_A 0.10f

/* The search's score per bond (perceive.h): the shortening less PAIR_SHORT_MIN_A; from heavy atoms only, less
 * 0.05 Å more for a bond to a terminal N (amino over imino tautomers), 0.10 Å for a bond from an atom of a flat ring
 * to a C or N outside its rings (the ring's own Kekulé form over an exocyclic C=C / C=N: the internal aldimine
 * of a PLP bound to a lysine keeps its pyridine ring; an exocyclic C=O or C=S is not affected). */
static void bond_scores(pc_mol *M, unsigned flags) {
  for (size_t e = 0; e < M->nb; e++) {
    M->wsc[e] = M->esc[e] - PAIR_SHORT_MIN_A;
    if (flags & SP_PERCEIVE_EXPLICIT_H || !M->ok_bond[e]) continue;
    uint32_t a = M->pairs[e][0], b = M->pairs[e][1];
    for (int k = 0; k < 2; k++) {
      uint32_t x = k ? b : a, y = k ? a : b;
      if (M->z[x] == 7 && M->off[x + 1] - M->off[x] == 1) M->wsc[e] -= 0.05f;
      if (M->flat[x] && !M->flat[y] && (M->z[y] == 6 || M->z[y] == 7)) M->wsc[e] -= 0.10f;
    }
  }
}

static void free_mol(pc_mol *M) {
  free(M->off), free(M->nbr), free(M->nbond), free(M->esc), free(M->wsc), free(M->ok_bond), free(M->atoms);
  free(M->extra), free(M->best_extra), free(M->committed), free(M->chosen), free(M->best_state), free(M->pos);
  free(M->comp), free(M->flat), free(M->used_ext);
}

static int check_args(size_t n, const uint8_t *z, const float (*xyz)[3], size_t nb, const uint32_t (*pairs)[2],
                      uint8_t *order, int8_t *charge, sp_err *err) {
  if (n > SP_PERCEIVE_MAX_ATOMS)
    return sp_err_set(err, SP_E_TOO_LARGE, "perceive: %zu atoms (at most %d)", n, SP_PERCEIVE_MAX_ATOMS);
  if ((n && (!z || !xyz || !charge)) || (nb && (!pairs || !order)))
    return sp_err_set(err, SP_E_INVALID, "perceive: a NULL array");
  for (size_t e = 0; e < nb; e++)
    if (pairs[e][0] >= n || pairs[e][1] >= n || pairs[e][0] == pairs[e][1])
      return sp_err_set(err, SP_E_INVALID, "perceive: bond %zu (%u, %u) out of range or of one atom", e, pairs[e][0],
                        pairs[e][1]);
  return 0;
}

int sp_perceive(size_t n, const uint8_t *z, const float (*xyz)[3], size_t nb, const uint32_t (*pairs)[2],
                const uint8_t *ext, unsigned flags, uint8_t *order, int8_t *charge, sp_perceive_info *info,
                sp_err *err) {
  for (size_t e = 0; order && e < nb; e++) order[e] = 1;
  for (size_t i = 0; charge && i < n; i++) charge[i] = 0;
  if (info) memset(info, 0, sizeof *info);
  int rc = check_args(n, z, xyz, nb, pairs, order, charge, err);
  if (rc) return rc;
  pc_mol M = {.n = n, .nb = nb, .z = z, .xyz = xyz, .pairs = pairs, .ext = ext};
  M.atoms = calloc(n + 1, sizeof *M.atoms);
  M.extra = calloc(nb + 1, 1), M.best_extra = calloc(nb + 1, 1);
  M.committed = calloc(n + 1, sizeof *M.committed), M.chosen = calloc(n + 1, sizeof *M.chosen);
  M.best_state = calloc(n + 1, sizeof *M.best_state), M.pos = calloc(n + 1, sizeof *M.pos);
  M.comp = calloc(n + 1, sizeof *M.comp), M.flat = calloc(n + 1, 1), M.used_ext = calloc(n + 1, 1);
  rc = (!M.atoms || !M.extra || !M.best_extra || !M.committed || !M.chosen || !M.best_state || !M.pos || !M.comp ||
        !M.flat || !M.used_ext)
           ? SP_E_NOMEM
           : build_graph(&M, nb, pairs);
  if (rc) {
    free_mol(&M);
    return sp_err_set(err, SP_E_NOMEM, "perceive: out of memory (%zu atoms)", n);
  }
  if (!(flags & SP_PERCEIVE_EXPLICIT_H)) pc_mark_flat_rings(&M);
  for (size_t i = 0; ext && i < n; i++) M.used_ext[i] = ext[i];
  for (size_t i = 0; i < n; i++) {
    int d = (int)(M.off[i + 1] - M.off[i]) + (ext ? ext[i] : 0);
    for (int pass = 0; pass < 2; pass++) {
      if (flags & SP_PERCEIVE_EXPLICIT_H) pc_states_explicit(&M.atoms[i], z[i], d);
      else pc_states_geometry(&M, (uint32_t)i, d);
      /* links that put the atom above every valence (a stray CONECT to a neighbour) are not counted */
      if (M.atoms[i].nst || !ext || !ext[i]) break;
      d -= ext[i];
      M.used_ext[i] = 0;
    }
  }
  bond_scores(&M, flags);
  sp_perceive_info in = {0};
  if (pc_solve(&M, &in)) {
    free_mol(&M);
    return sp_err_set(err, SP_E_NOMEM, "perceive: out of memory (%zu atoms)", n);
  }
  for (size_t e = 0; e < nb; e++) order[e] = (uint8_t)(1 + M.best_extra[e]);
  for (size_t i = 0; i < n; i++) {
    const pc_atom *a = &M.atoms[i];
    charge[i] = a->nst ? a->st[M.best_state[i]].q : 0;
    if (charge[i]) in.n_charged++, in.net_charge += charge[i];
    int used = (int)(M.off[i + 1] - M.off[i]) + M.used_ext[i];
    for (uint32_t t = M.off[i]; t < M.off[i + 1]; t++) used += M.best_extra[M.nbond[t]];
    if (a->nst) in.n_implicit_h += sp_valence_implicit_h(z[i], charge[i], used);
  }
  if (info) *info = in;
  free_mol(&M);
  return 0;
}

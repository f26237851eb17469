/* Shared by perceive.c, perceive_geom.c and perceive_search.c (not installed): the molecule, its atoms' states
 * and the search's scratch. */
#ifndef SITEPACK_PERCEIVE_INTERNAL_H
#define SITEPACK_PERCEIVE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sitepack/perceive.h"

#define PC_MAX_STATES 6

/** One state of an atom: it pairs between lo and hi units (extra bond orders) with its neighbours; units of
 *  [lo, hi] it does not pair become implicit hydrogens (heavy-atom mode; lo == hi with explicit H); q its
 *  formal charge in that state; cost what the search minimises (charged atoms, C counting 4). */
typedef struct pc_state {
  int8_t lo, hi, q;
  uint8_t cost;
} pc_state;

typedef struct pc_atom {
  int nst;                    /**< 0: takes no part (no valence entry, or more bonds than any valence) */
  int maxhi;                  /**< largest hi of its states (pc_solve) */
  pc_state st[PC_MAX_STATES]; /**< in the order tried: cheapest first */
} pc_atom;

typedef struct pc_mol {
  size_t n, nb;
  const uint8_t *z;
  const float (*xyz)[3];
  const uint32_t (*pairs)[2];
  const uint8_t *ext;          /**< [n] or NULL: bonds to atoms outside the molecule (perceive.h) */
  uint8_t *used_ext;           /**< [n] the links counted in each atom's valence (ext, or 0 where they put the
                                    atom above every valence) */
  uint32_t *off, *nbr, *nbond; /**< counted bonds as CSR: atom i's neighbours nbr[off[i] .. off[i+1]) */
  float *esc;                  /**< [nb] Å: sum of covalent radii - distance (> 0: shorter than single) */
  float *wsc;                  /**< [nb] the search's score per unit on the bond (perceive.c) */
  uint8_t *ok_bond;            /**< [nb] 1: counted (no metal) */
  pc_atom *atoms;              /**< [n] */
  uint8_t *flat;               /**< [n] 1: in a flat 5- or 6-membered ring (heavy-atom mode, perceive_geom.c) */
  /* search scratch */
  uint8_t *extra, *best_extra; /**< [nb] units on each bond: now and in the best pairing */
  int *committed;              /**< [n] units paired so far */
  int *chosen, *best_state;    /**< [n] state index now and in the best pairing */
  int *pos;                    /**< [n] position in the current component's order, -1 outside */
  uint32_t *comp;              /**< the current component's atoms, in search order */
  size_t ncomp;
  long nodes, limit;
  int best_cost, best_absq, have_best;
  double best_score;
  int exhausted;
} pc_mol;

/** Appends the state (lo, hi, q, cost) to a's list, in the order the search tries them; nothing when the list is
 *  full or lo > hi or lo < 0 (perceive.c). */
void pc_add_state(pc_atom *a, int lo, int hi, int q, int cost);
/** CSR adjacency of the bonds e with keep[e] != 0 among n atoms: *off [n + 1], *nbr and *bond [2 nb + 1]
 *  (neighbour atom, bond index), in bond order; the caller frees the three. @return 0 or SP_E_NOMEM (perceive.c). */
int pc_csr(size_t n, size_t nb, const uint32_t (*pairs)[2], const uint8_t *keep, uint32_t **off, uint32_t **nbr,
           uint32_t **bond);
/** Explicit-hydrogen states of an atom of element z with d counted bonds (perceive.c). */
void pc_states_explicit(pc_atom *a, uint8_t z, int d);
/** Heavy-atom states of atom i with d counted bonds, from its geometry (perceive_geom.c). */
void pc_states_geometry(pc_mol *M, uint32_t i, int d);
/** Every simple cycle of 5 or 6 atoms of the graph with CSR adjacency off[n + 1] / nbr (each once, from its
 *  smallest atom), atoms for which ok(ctx, atom) is false left out, handed to visit(ctx, ring, length)
 *  (perceive_rings.c). */
void pc_small_rings(size_t n, const uint32_t *off, const uint32_t *nbr, bool (*ok)(const void *ctx, uint32_t atom),
                    void (*visit)(void *ctx, const uint32_t *ring, int len), void *ctx);
/** Marks the atoms of flat 5- and 6-membered rings in M->flat (perceive_geom.c). */
void pc_mark_flat_rings(pc_mol *M);
/** The search over every component; fills best_extra, best_state and info->n_unpaired, exhausted
 *  (perceive_search.c). @return 0 or SP_E_NOMEM. */
int pc_solve(pc_mol *M, sp_perceive_info *info);

#endif

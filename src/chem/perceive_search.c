/* The pairing search of perceive.h: per connected set of atoms that can pair (a component), atoms in
 * breadth-first order; at each atom a state and its units on the bonds to later atoms; a bond holds at most 2
 * extra units (a triple bond); branch and bound on the cost, then |charge|, then the shortening score, with a
 * forward check that each later neighbour can still reach a state. Exact below the node limit. */
#include <stdlib.h>

#include "perceive_internal.h"

/* Nodes one component may visit; the best pairing found so far is kept beyond it (info->exhausted). */
#define NODE_LIMIT 200000L

static int imax(int a, int b) { return a > b ? a : b; }
static int imin(int a, int b) { return a < b ? a : b; }

/* Whether atom j, a later atom of the component (position > k) with the atoms up to position k decided, can still
 * reach some state: up to 2 more units on each of its bonds to atoms not yet decided. */
static bool reachable(const pc_mol *M, uint32_t j, size_t k) {
  int pot = 0;
  for (uint32_t t = M->off[j]; t < M->off[j + 1]; t++)
    if (M->pos[M->nbr[t]] > (int)k) pot += 2;
  const pc_atom *a = &M->atoms[j];
  for (int s = 0; s < a->nst; s++)
    if (a->st[s].hi >= M->committed[j] && a->st[s].lo <= M->committed[j] + pot) return true;
  return false;
}

static void keep_best(pc_mol *M, int cost, int q, double score) {
  int aq = abs(q);
  if (M->have_best && (cost > M->best_cost || (cost == M->best_cost && aq > M->best_absq) ||
                       (cost == M->best_cost && aq == M->best_absq && score <= M->best_score + 1e-6)))
    return;
  M->have_best = 1, M->best_cost = cost, M->best_absq = aq, M->best_score = score;
  for (size_t k = 0; k < M->ncomp; k++) {
    uint32_t i = M->comp[k];
    M->best_state[i] = M->chosen[i];
    for (uint32_t t = M->off[i]; t < M->off[i + 1]; t++) M->best_extra[M->nbond[t]] = M->extra[M->nbond[t]];
  }
}

static void visit(pc_mol *M, size_t k, int cost, int q, double score);

/* Place r more units of the atom at position k on its bonds to later atoms, from adjacency slot t on. */
static void place(pc_mol *M, size_t k, uint32_t t, int r, int cost, int q, double score) {
  uint32_t i = M->comp[k];
  for (; t < M->off[i + 1] && r > 0; t++)
    if (M->pos[M->nbr[t]] > (int)k) break;
  if (r == 0 || t >= M->off[i + 1]) {
    if (r) return;
    for (uint32_t u = M->off[i]; u < M->off[i + 1]; u++)
      if (M->pos[M->nbr[u]] > (int)k && !reachable(M, M->nbr[u], k)) return;
    visit(M, k + 1, cost, q, score);
    return;
  }
  uint32_t j = M->nbr[t], e = M->nbond[t];
  int cap = imin(imin(2, r), M->atoms[j].maxhi - M->committed[j]);
  for (int x = cap; x >= 0; x--) {
    M->extra[e] = (uint8_t)x, M->committed[j] += x;
    place(M, k, t + 1, r - x, cost, q, score + x * (double)M->wsc[e]);
    M->extra[e] = 0, M->committed[j] -= x;
    if (M->exhausted) return;
  }
}

static void visit(pc_mol *M, size_t k, int cost, int q, double score) {
  if (++M->nodes > M->limit) {
    M->exhausted = 1;
    return;
  }
  if (M->have_best && cost > M->best_cost) return;
  if (k == M->ncomp) {
    keep_best(M, cost, q, score);
    return;
  }
  uint32_t i = M->comp[k];
  const pc_atom *a = &M->atoms[i];
  int c = M->committed[i];
  for (int s = 0; s < a->nst && !M->exhausted; s++) {
    const pc_state *st = &a->st[s];
    if (st->hi < c || (M->have_best && cost + st->cost > M->best_cost)) continue;
    M->chosen[i] = s;
    for (int p = st->hi; p >= imax(st->lo, c) && !M->exhausted; p--)
      place(M, k, M->off[i], p - c, cost + st->cost, q + st->q, score);
  }
}

/* The first state that pairs nothing (an atom outside every component). */
static int idle_state(const pc_atom *a) {
  for (int s = 0; s < a->nst; s++)
    if (a->st[s].lo == 0) return s;
  return 0;
}

/* The component of atom `seed` (atoms that can pair, joined by counted bonds) in breadth-first order. */
static void gather(pc_mol *M, uint32_t seed, uint8_t *seen) {
  M->ncomp = 0;
  M->comp[M->ncomp++] = seed, seen[seed] = 1;
  for (size_t h = 0; h < M->ncomp; h++) {
    uint32_t i = M->comp[h];
    for (uint32_t t = M->off[i]; t < M->off[i + 1]; t++) {
      uint32_t j = M->nbr[t];
      if (seen[j] || M->atoms[j].maxhi <= 0) continue;
      seen[j] = 1, M->comp[M->ncomp++] = j;
    }
  }
  for (size_t h = 0; h < M->ncomp; h++) M->pos[M->comp[h]] = (int)h;
}

static void solve_component(pc_mol *M, sp_perceive_info *info) {
  M->nodes = 0, M->limit = NODE_LIMIT, M->have_best = 0, M->exhausted = 0;
  visit(M, 0, 0, 0, 0.0);
  if (M->exhausted) info->exhausted = 1;
  for (size_t h = 0; h < M->ncomp; h++) {
    uint32_t i = M->comp[h];
    if (!M->have_best) M->best_state[i] = idle_state(&M->atoms[i]);
    const pc_atom *a = &M->atoms[i];
    if (a->nst && a->st[M->best_state[i]].cost >= 4 && a->st[M->best_state[i]].q == 0) info->n_unpaired++;
    M->pos[i] = -1;
  }
}

int pc_solve(pc_mol *M, sp_perceive_info *info) {
  uint8_t *seen = calloc(M->n + 1, 1);
  if (!seen) return SP_E_NOMEM;
  for (size_t i = 0; i < M->n; i++) {
    pc_atom *a = &M->atoms[i];
    a->maxhi = 0;
    for (int s = 0; s < a->nst; s++) a->maxhi = imax(a->maxhi, a->st[s].hi);
    M->pos[i] = -1;
    M->best_state[i] = idle_state(a);
  }
  for (size_t i = 0; i < M->n; i++) {
    if (seen[i] || M->atoms[i].maxhi <= 0) continue;
    gather(M, (uint32_t)i, seen);
    solve_component(M, info);
  }
  free(seen);
  return 0;
}

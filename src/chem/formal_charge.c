/* The formal charges of a ligand's atoms (valence.h sp_ligand_charges): the CCD's or the file's charge, then
 * the metal-bond rule and the valence rule, as the SDF export writes them and /atoms/formal_charge stores them
 * (docs/usage.md "Export", docs/format.md "/atoms"). */
#include <stdlib.h>
#include <string.h>

#include "sitepack/elements.h"
#include "sitepack/error.h"
#include "sitepack/valence.h"

#define MATCHED 1u /* SP_CCD_ATOM_MATCHED of bonds.h (site, a higher layer): the atom matches a CCD atom */
/* MATCHED or SP_CCD_ATOM_PERCEIVED (bit 3, format version 8): ccd_charge holds the atom's charge */
#define CHARGE_GIVEN (1u | 8u)

static int grow(sp_lig_charges *c, size_t n) {
  if (n <= c->cap) return 0;
  int8_t *q = realloc(c->charge, n);
  if (!q) return SP_E_NOMEM;
  c->charge = q;
  uint8_t *bv = realloc(c->by_valence, n);
  if (!bv) return SP_E_NOMEM;
  c->by_valence = bv;
  int *deg = realloc(c->deg, n * sizeof *deg);
  if (!deg) return SP_E_NOMEM;
  c->deg = deg;
  int *val = realloc(c->val, n * sizeof *val);
  if (!val) return SP_E_NOMEM;
  c->val = val;
  uint8_t *arom = realloc(c->arom, n);
  if (!arom) return SP_E_NOMEM;
  c->arom = arom;
  int32_t *own = realloc(c->own, n * sizeof *own);
  if (!own) return SP_E_NOMEM;
  c->own = own;
  c->cap = n;
  return 0;
}

/* bond k joins two ligand atoms (not a link to a site atom, not a self-bond) */
static int in_ligand(size_t n, const int32_t *a1, const int32_t *a2, size_t k) {
  return a1[k] >= 0 && a2[k] >= 0 && (size_t)a1[k] < n && (size_t)a2[k] < n && a1[k] != a2[k];
}

static int is_metal_bond(const uint8_t *el, const int32_t *a1, const int32_t *a2, size_t k) {
  return sp_element_is_metal(el[a1[k]]) || sp_element_is_metal(el[a2[k]]);
}

/* bond type as the SDF writes it: 1..4, anything else single */
static int bond_type(const uint8_t *order, size_t k) { return order[k] >= 1 && order[k] <= 4 ? order[k] : 1; }

/* bond k is one of the written molecule's: among the ligand atoms, neither atom a hydrogen left out (step 0) */
static int written(size_t n, const int32_t *a1, const int32_t *a2, size_t k, const sp_lig_charges *c) {
  return in_ligand(n, a1, a2, k) && c->own[a1[k]] < 0 && c->own[a2[k]] < 0;
}

/* step 1, and deg / val / arom over the non-metal bonds among the ligand atoms */
static void start(size_t n, const uint8_t *el, const int8_t *charge, const int8_t *ccd_charge, const uint8_t *ccd_atom,
                  size_t nb, const int32_t *a1, const int32_t *a2, const uint8_t *order, sp_lig_charges *c) {
  for (size_t k = 0; k < n; k++)
    c->charge[k] = ccd_atom && (ccd_atom[k] & CHARGE_GIVEN) ? (ccd_charge ? ccd_charge[k] : 0) : charge[k];
  for (size_t k = 0; k < n; k++) c->own[k] = -1;
  c->n_link_h = 0;
  memset(c->by_valence, 0, n);
  memset(c->deg, 0, n * sizeof *c->deg);
  memset(c->val, 0, n * sizeof *c->val);
  memset(c->arom, 0, n);
  c->n_valence_charged = 0;
  for (size_t b = 0; b < nb; b++) {
    if (!in_ligand(n, a1, a2, b) || is_metal_bond(el, a1, a2, b)) continue;
    int t = bond_type(order, b);
    for (int e = 0; e < 2; e++) {
      int32_t k = e ? a2[b] : a1[b];
      c->deg[k]++;
      c->val[k] += t == 4 ? 1 : t;
      if (t == 4) c->arom[k] = 1;
    }
  }
}

/* step 2: an atom X whose metal bond completed its default valence takes -1 and the metal +1; a dative bond
 * (X already at its valence: the imine N of a haem) changes no charge */
static void metal_rule(size_t n, const uint8_t *el, size_t nb, const int32_t *a1, const int32_t *a2,
                       sp_lig_charges *c) {
  for (size_t b = 0; b < nb; b++) {
    if (!written(n, a1, a2, b, c) || !is_metal_bond(el, a1, a2, b)) continue;
    int32_t metal = sp_element_is_metal(el[a1[b]]) ? a1[b] : a2[b], other = metal == a1[b] ? a2[b] : a1[b];
    int nv = sp_valence_default(el[other]);
    if (!nv || c->charge[other] != 0 || sp_element_is_metal(el[other])) continue;
    if (c->val[other] + 1 <= nv) {
      c->charge[other] -= 1;
      c->charge[metal] += 1;
    }
  }
}

/* no CCD atom gives the atom a charge, and it is uncharged so far: the valence rule may charge it */
static int charge_open(const uint8_t *ccd_atom, const sp_lig_charges *c, int32_t k) {
  return !(ccd_atom && (ccd_atom[k] & CHARGE_GIVEN)) && c->charge[k] == 0;
}

/* step 3: a four-valent N (no lone pair) is N+, its terminal O (single bond) or N (double bond) the anion */
static void valence_rule(size_t n, const uint8_t *el, const uint8_t *ccd_atom, size_t nb, const int32_t *a1,
                         const int32_t *a2, const uint8_t *order, sp_lig_charges *c) {
  for (size_t k = 0; k < n; k++) {
    if (el[k] != 7 || !charge_open(ccd_atom, c, (int32_t)k) || c->val[k] != 4 || c->arom[k]) continue;
    c->charge[k] += 1;
    c->by_valence[k] = 1;
    c->n_valence_charged++;
    for (size_t b = 0; b < nb; b++) {
      if (!written(n, a1, a2, b, c) || is_metal_bond(el, a1, a2, b)) continue;
      int32_t o = a1[b] == (int32_t)k ? a2[b] : a2[b] == (int32_t)k ? a1[b] : -1;
      if (o < 0 || c->deg[o] != 1 || !charge_open(ccd_atom, c, o)) continue;
      int t = bond_type(order, b);
      if (!((el[o] == 8 && t == 1) || (el[o] == 7 && t == 2))) continue;
      c->charge[o] -= 1;
      c->by_valence[o] = 1;
      c->n_valence_charged++;
    }
  }
}

/* 1 when ligand atom k is linked to another residue: a bond of the site, not to a metal, whose flags have one of
 * the link bits (a glycosidic link inside the ligand, or a covalent link to a site atom) */
static int is_linked(size_t nb, const uint8_t *el, const int32_t *a1, const int32_t *a2, const sp_lig_links *ln,
                     int32_t k) {
  for (size_t b = 0; b < nb; b++)
    if ((a1[b] == k || a2[b] == k) && a1[b] >= 0 && a2[b] >= 0 && (size_t)a1[b] < ln->n_all &&
        (size_t)a2[b] < ln->n_all && !is_metal_bond(el, a1, a2, b) && (ln->flags[b] & ln->link_bits))
      return 1;
  return 0;
}

/* the heavy atom hydrogen k is deposited on: its one bond partner among the ligand's non-metal bonds; without
 * one, the nearest heavy ligand atom within 1.3 A (X-H bonds are 0.96-1.10 A: Allen et al., J. Chem. Soc.
 * Perkin Trans. 2, 1987, S1); -1: none, an H with more than one bond, or one bonded to a metal */
static int32_t h_owner(size_t n, const uint8_t *el, size_t nb, const int32_t *a1, const int32_t *a2,
                       const sp_lig_links *ln, const sp_lig_charges *c, int32_t k) {
  for (size_t b = 0; b < nb; b++)
    if (in_ligand(n, a1, a2, b) && (a1[b] == k || a2[b] == k) && is_metal_bond(el, a1, a2, b)) return -1;
  if (c->deg[k] == 1)
    for (size_t b = 0; b < nb; b++)
      if (written(n, a1, a2, b, c) && !is_metal_bond(el, a1, a2, b) && (a1[b] == k || a2[b] == k))
        return a1[b] == k ? a2[b] : a1[b];
  if (c->deg[k] || !ln->xyz) return -1;
  const float *p = ln->xyz + 3 * (size_t)k;
  int32_t best = -1;
  float best_d2 = 1.3f * 1.3f;
  for (size_t j = 0; j < n; j++) {
    if (el[j] <= 1) continue;
    const float *q = ln->xyz + 3 * j;
    float d2 = (p[0] - q[0]) * (p[0] - q[0]) + (p[1] - q[1]) * (p[1] - q[1]) + (p[2] - q[2]) * (p[2] - q[2]);
    if (d2 < best_d2) best_d2 = d2, best = (int32_t)j;
  }
  return best;
}

/* step 0 (after step 1's charges and the bond counts): a deposited H on an atom X that a link uses, which would
 * put X above sp_valence_max at X's charge, is left out (own[H] = X): its bond leaves deg / val, its charge is
 * the file's; one H per unit of excess, in atom order */
static void link_hydrogens(size_t n, const uint8_t *el, const int8_t *charge, size_t nb, const int32_t *a1,
                           const int32_t *a2, const uint8_t *order, const sp_lig_links *ln, sp_lig_charges *c) {
  for (size_t k = 0; k < n; k++) {
    if (el[k] != 1) continue;
    int32_t o = h_owner(n, el, nb, a1, a2, ln, c, (int32_t)k);
    if (o < 0 || !is_linked(nb, el, a1, a2, ln, o)) continue;
    int m = sp_valence_max(el[o], c->charge[o]);
    if (m < 0 || c->val[o] + (c->deg[k] ? 0 : 1) <= m) continue;
    for (size_t b = 0; c->deg[k] && b < nb; b++) {
      if (!written(n, a1, a2, b, c) || is_metal_bond(el, a1, a2, b) || (a1[b] != (int32_t)k && a2[b] != (int32_t)k))
        continue;
      int t = bond_type(order, b);
      for (int e = 0; e < 2; e++) {
        int32_t a = e ? a2[b] : a1[b];
        c->deg[a]--;
        c->val[a] -= t == 4 ? 1 : t;
      }
    }
    c->own[k] = o;
    c->charge[k] = charge[k];
    c->n_link_h++;
  }
}

int sp_ligand_charges(size_t n, const uint8_t *element, const int8_t *charge, const int8_t *ccd_charge,
                      const uint8_t *ccd_atom, size_t nb, const int32_t *a1, const int32_t *a2, const uint8_t *order,
                      const sp_lig_links *links, sp_lig_charges *out) {
  if (!out || (n && (!element || !charge)) || (nb && (!a1 || !a2 || !order))) return SP_E_INVALID;
  if (links && nb && !links->flags) return SP_E_INVALID;
  if (grow(out, n + 1)) return SP_E_NOMEM;
  start(n, element, charge, ccd_charge, ccd_atom, nb, a1, a2, order, out);
  if (links) link_hydrogens(n, element, charge, nb, a1, a2, order, links, out);
  metal_rule(n, element, nb, a1, a2, out);
  valence_rule(n, element, ccd_atom, nb, a1, a2, order, out);
  return 0;
}

void sp_ligand_charges_free(sp_lig_charges *c) {
  if (!c) return;
  free(c->charge);
  free(c->by_valence);
  free(c->deg);
  free(c->val);
  free(c->arom);
  free(c->own);
  memset(c, 0, sizeof *c);
}

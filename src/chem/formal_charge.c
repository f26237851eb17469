/* The formal charges of a ligand's atoms (valence.h sp_ligand_charges): the CCD's or the file's charge, then
 * the metal-bond rule and the valence rule, as the SDF export writes them and /atoms/formal_charge stores them
 * (docs/usage.md "Export", docs/format.md "/atoms"). */
#include <stdlib.h>
#include <string.h>

#include "sitepack/elements.h"
#include "sitepack/error.h"
#include "sitepack/valence.h"

#define MATCHED 1u /* SP_CCD_ATOM_MATCHED of bonds.h (site, a higher layer): the atom matches a CCD atom */

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

/* step 1, and deg / val / arom over the non-metal bonds among the ligand atoms */
static void start(size_t n, const uint8_t *el, const int8_t *charge, const int8_t *ccd_charge, const uint8_t *ccd_atom,
                  size_t nb, const int32_t *a1, const int32_t *a2, const uint8_t *order, sp_lig_charges *c) {
  for (size_t k = 0; k < n; k++)
    c->charge[k] = ccd_atom && (ccd_atom[k] & MATCHED) ? (ccd_charge ? ccd_charge[k] : 0) : charge[k];
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
    if (!in_ligand(n, a1, a2, b) || !is_metal_bond(el, a1, a2, b)) continue;
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
  return !(ccd_atom && (ccd_atom[k] & MATCHED)) && c->charge[k] == 0;
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
      if (!in_ligand(n, a1, a2, b) || is_metal_bond(el, a1, a2, b)) continue;
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

int sp_ligand_charges(size_t n, const uint8_t *element, const int8_t *charge, const int8_t *ccd_charge,
                      const uint8_t *ccd_atom, size_t nb, const int32_t *a1, const int32_t *a2, const uint8_t *order,
                      sp_lig_charges *out) {
  if (!out || (n && (!element || !charge)) || (nb && (!a1 || !a2 || !order))) return SP_E_INVALID;
  if (grow(out, n + 1)) return SP_E_NOMEM;
  start(n, element, charge, ccd_charge, ccd_atom, nb, a1, a2, order, out);
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
  memset(c, 0, sizeof *c);
}

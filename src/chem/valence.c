/* The valence table of valence.h: RDKit's valence lists (its periodic table, Code/GraphMol/atomic_data.cpp, as
 * RDKit 2022.09's Chem.GetPeriodicTable().GetValenceList reports them) of every element that is no metal here
 * (elements.h sp_element_is_metal) and whose default valence is positive (noble gases have 0, Ts and Og none);
 * the sources and the rules are in valence.h; tests/peer/test_valence_table.py compares it with RDKit. */
#include "sitepack/valence.h"

#include <stdlib.h>

/* {z, n, v0, v1, v2}: element, entries, valences ascending */
static const unsigned char table[][5] = {
    {1, 1, 1, 0, 0},  {5, 1, 3, 0, 0},  {6, 1, 4, 0, 0},  {7, 1, 3, 0, 0},  {8, 1, 2, 0, 0},
    {9, 1, 1, 0, 0},  {14, 2, 4, 6, 0}, {15, 3, 3, 5, 7}, {16, 3, 2, 4, 6}, {17, 1, 1, 0, 0},
    {32, 1, 4, 0, 0}, {33, 3, 3, 5, 7}, {34, 3, 2, 4, 6}, {35, 1, 1, 0, 0}, {51, 3, 3, 5, 7},
    {52, 3, 2, 4, 6}, {53, 3, 1, 3, 5}, {85, 3, 1, 3, 5},
};

int sp_valence_list(uint8_t z, int out[SP_VALENCE_MAX_LIST]) {
  for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
    if (table[i][0] != z) continue;
    for (int k = 0; k < table[i][1]; k++) out[k] = table[i][2 + k];
    return table[i][1];
  }
  return 0;
}

int sp_valence_default(uint8_t z) {
  int v[SP_VALENCE_MAX_LIST];
  return sp_valence_list(z, v) ? v[0] : 0;
}

int sp_valence_max(uint8_t z, int charge) {
  if (charge) {
    if (z < 5 || z > 9 || z - charge < 5 || z - charge > 9) return -1;
    z = (uint8_t)(z - charge);
  }
  int v[SP_VALENCE_MAX_LIST], n = sp_valence_list(z, v);
  return n ? v[n - 1] : -1;
}

int sp_valence_implicit_h(uint8_t z, int charge, int used) {
  int v[SP_VALENCE_MAX_LIST], n = sp_valence_list(z, v);
  int shift = z == 5 || z == 32 || z == 51 ? -charge : z == 1 || z == 6 ? -abs(charge) : charge;
  for (int k = 0; k < n; k++)
    if (v[k] + shift >= used) return v[k] + shift - used;
  return 0;
}

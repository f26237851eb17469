/* Prints the valence table of valence.h for tests/peer/test_valence_table.py, which compares it with RDKit:
 * one line per element z = 1..118 that is no metal: "z v0,v1,.. max(-1) max(0) max(+1) h(c,u)..." where h(c, u)
 * is sp_valence_implicit_h at charge c = -1, 0, +1 and used valence u = 0..7 (24 numbers, charge-major). */
#include <stdio.h>

#include "sitepack/elements.h"
#include "sitepack/valence.h"

int main(void) {
  for (int z = 1; z <= SP_ELEMENT_MAX; z++) {
    if (sp_element_is_metal((uint8_t)z)) continue;
    int v[SP_VALENCE_MAX_LIST], n = sp_valence_list((uint8_t)z, v);
    printf("%d ", z);
    for (int k = 0; k < n; k++) printf("%s%d", k ? "," : "", v[k]);
    if (!n) printf("-");
    for (int c = -1; c <= 1; c++) printf(" %d", sp_valence_max((uint8_t)z, c));
    for (int c = -1; c <= 1; c++)
      for (int u = 0; u < 8; u++) printf(" %d", sp_valence_implicit_h((uint8_t)z, c, u));
    printf("\n");
  }
  return 0;
}

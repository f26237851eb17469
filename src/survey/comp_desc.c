/* RDKit's descriptors of a CCD component (survey_internal.h; descriptors.h, issue 36): the whole definition,
 * every atom (hydrogens and leaving atoms included) with its charge, every bond with its value_order. */
#include <stdlib.h>

#include "survey_internal.h"

int sp_sv_component_desc(const sp_component *def, sp_descriptors *out) {
  sp_desc_clear(out);
  size_t na = def->n_atoms, nb = def->n_bonds;
  uint8_t *el = malloc(na ? na : 1), *order = malloc(nb ? nb : 1);
  int8_t *chg = malloc(na ? na : 1);
  uint32_t *ab = malloc((nb ? nb : 1) * 2 * sizeof *ab);
  int rc = 0;
  if (!el || !order || !chg || !ab) {
    rc = SP_E_NOMEM;
  } else {
    for (size_t i = 0; i < na; i++) {
      el[i] = def->atoms[i].element;
      chg[i] = def->atoms[i].charge;
    }
    for (size_t k = 0; k < nb; k++) {
      ab[2 * k] = def->bonds[k].a;
      ab[2 * k + 1] = def->bonds[k].b;
      order[k] = def->bonds[k].order;
    }
    rc = sp_desc_from_graph(na, el, chg, nb, ab, order, out);
  }
  free(el);
  free(order);
  free(chg);
  free(ab);
  return rc == SP_E_NOMEM ? SP_E_NOMEM : 0;
}

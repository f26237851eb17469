/* A chemical component as a graph: see include/sitepack/component.h. */
#include "sitepack/component.h"

#include <stdlib.h>
#include <string.h>

void sp_component_free(sp_component *c) {
  if (!c) return;
  free(c->atoms);
  free(c->bonds);
  memset(c, 0, sizeof *c);
}

size_t sp_component_heavy_atoms(const sp_component *c) {
  size_t n = 0;
  for (size_t i = 0; i < c->n_atoms; ++i) n += c->atoms[i].element != 1;
  return n;
}

int sp_component_atom_index(const sp_component *c, const char *name) {
  for (size_t i = 0; i < c->n_atoms; ++i)
    if (!strcmp(c->atoms[i].name, name)) return (int)i;
  return -1;
}

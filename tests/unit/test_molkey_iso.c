/* Exact confirmation of molecule-key matches (sp_molkey_component_isomorphic) on the real CCD
 * excerpt (shared/data/ccd/components_excerpt.cif):
 *  - every component with atoms is isomorphic to a copy of itself with its atoms and bonds in
 *    reverse order (within the default step bound: the bound is enough for real components);
 *  - every pair of components with equal wl1 keys is confirmed isomorphic (the excerpt holds
 *    no WL collision), and the pairs are the ones docs/ligands.md lists (HEB/HEC, ALA/DAL, ...);
 *  - every pair with different graph hashes but the same heavy-atom and edge counts is NOT
 *    isomorphic (the exact test agrees with WL where WL separates); pairs with the same hash
 *    but another H part (HEM/HEC, MO/6MO) are isomorphic heavy graphs.
 * Usage: test_molkey_iso CCD_EXCERPT_CIF */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sitepack/ccd.h"
#include "sitepack/molkey.h"

#include "sp_test.h"

/* atoms and bonds of c in reverse order */
static int reversed(const sp_component *c, sp_component *r) {
  *r = *c;
  r->atoms = malloc((c->n_atoms ? c->n_atoms : 1) * sizeof *r->atoms);
  r->bonds = malloc((c->n_bonds ? c->n_bonds : 1) * sizeof *r->bonds);
  if (!r->atoms || !r->bonds) return 1;
  size_t n = c->n_atoms;
  for (size_t i = 0; i < n; ++i) r->atoms[n - 1 - i] = c->atoms[i];
  for (size_t i = 0; i < c->n_bonds; ++i) {
    sp_comp_bond b = c->bonds[c->n_bonds - 1 - i];
    r->bonds[i] = b;
    r->bonds[i].a = (uint16_t)(n - 1 - b.b);
    r->bonds[i].b = (uint16_t)(n - 1 - b.a);
  }
  return 0;
}

static size_t heavy_edges(const sp_component *c) {
  size_t e = 0;
  for (size_t i = 0; i < c->n_bonds; ++i) e += c->atoms[c->bonds[i].a].element != 1 && c->atoms[c->bonds[i].b].element != 1;
  return e;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s CCD_CIF\n", argv[0]);
    return 2;
  }
  sp_ccd *ccd = NULL;
  sp_err err = {0};
  CHECK(sp_ccd_open(argv[1], &ccd, &err) == 0, "open: %s", err.msg);
  if (!ccd) return 1;
  const sp_ccd_index *ix = sp_ccd_get_index(ccd);
  size_t n = ix->n, n_with = 0, same = 0, same_graph = 0, diff_tested = 0;
  const sp_component **cs = calloc(n, sizeof *cs);
  char (*keys)[SP_KEY_LEN] = calloc(n, SP_KEY_LEN);
  uint64_t max_steps = 0;
  char max_id[SP_ID_LEN] = "";
  for (size_t i = 0; i < n; ++i) {
    const sp_component *c = sp_ccd_get(ccd, ix->ids[i], &err);
    if (!c || !c->n_atoms) continue;
    cs[i] = c;
    ++n_with;
    CHECK(sp_molkey_component(c, false, keys[i], &err) == 0, "%s key: %s", c->id, err.msg);
    sp_component r;
    CHECK(reversed(c, &r) == 0, "alloc");
    int v = -1;
    uint64_t st = 0;
    CHECK(sp_molkey_component_isomorphic(c, &r, false, SP_ISO_DEFAULT_STEPS, &v, &st, &err) == 0, "%s: %s", c->id,
          err.msg);
    CHECK(v == SP_ISO_YES, "%s vs its reversed copy: verdict %d after %llu steps", c->id, v, (unsigned long long)st);
    if (st > max_steps) max_steps = st, memcpy(max_id, c->id, SP_ID_LEN);
    free(r.atoms);
    free(r.bonds);
  }
  char pairs[2048] = "";
  for (size_t i = 0; i < n; ++i)
    for (size_t j = i + 1; j < n; ++j) {
      if (!cs[i] || !cs[j]) continue;
      int v = -1;
      bool eq = !strcmp(keys[i], keys[j]);
      bool same_hash = !strncmp(keys[i], keys[j], 20); /* "wl1-" + 16 hex: the graph part */
      if (!same_hash && (sp_component_heavy_atoms(cs[i]) != sp_component_heavy_atoms(cs[j]) ||
                  heavy_edges(cs[i]) != heavy_edges(cs[j])))
        continue;
      CHECK(sp_molkey_component_isomorphic(cs[i], cs[j], false, SP_ISO_DEFAULT_STEPS, &v, NULL, &err) == 0, "%s/%s: %s",
            cs[i]->id, cs[j]->id, err.msg);
      if (eq) {
        ++same;
        CHECK(v == SP_ISO_YES, "%s and %s share key %s but verdict %d", cs[i]->id, cs[j]->id, keys[i], v);
        size_t l = strlen(pairs);
        snprintf(pairs + l, sizeof pairs - l, " %s/%s", cs[i]->id, cs[j]->id);
      } else if (same_hash) { /* same heavy graph, other H count / charge (e.g. HEM vs HEC, MO vs 6MO) */
        ++same_graph;
        CHECK(v == SP_ISO_YES, "%s and %s share the graph hash but verdict %d", cs[i]->id, cs[j]->id, v);
      } else {
        ++diff_tested;
        CHECK(v == SP_ISO_NO, "%s and %s have different keys but verdict %d", cs[i]->id, cs[j]->id, v);
      }
    }
  printf("components with atoms: %zu; max steps for a self-match: %llu (%s)\n", n_with, (unsigned long long)max_steps,
         max_id);
  printf("same-key pairs confirmed: %zu:%s\n", same, pairs);
  printf("pairs with the same graph hash but another H part, confirmed isomorphic: %zu\n", same_graph);
  printf("different-key pairs with equal heavy atom and edge counts, not isomorphic: %zu\n", diff_tested);
  /* every block of the excerpt has atoms (UNX: one atom of element X; UNL is not in the excerpt) */
  CHECK(n_with == 131, "%zu components with atoms, expected 131", n_with);
  CHECK(same == 11, "%zu same-key pairs, expected 11", same);
  /* the same-molecule pairs of docs/ligands.md (InChIKey agreement) plus HEB/HEC and the water family */
  const char *expect[] = {"ALA/DAL", "ARG/DAR", "DSN/SER", "CSE/SEC", "BM3/NAG", "GLC/MAN", "REA/RXA", "HEB/HEC",
                          "DOD/HOH", "D3O/HOH", "D3O/DOD"};
  for (size_t k = 0; k < sizeof expect / sizeof *expect; ++k)
    CHECK(strstr(pairs, expect[k]) != NULL, "pair %s not among the confirmed same-key pairs", expect[k]);
  free(cs);
  free(keys);
  sp_ccd_close(ccd);
  return sp_test_done("test_molkey_iso");
}

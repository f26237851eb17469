/* Unit tests of the molecule key (include/sitepack/molkey.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sitepack/molkey.h"

#include "sp_test.h"

static void key(size_t n, const uint8_t *el, const int8_t *ch, size_t nb, const uint32_t (*b)[2], char *out) {
  sp_err e = {0};
  int rc = sp_molkey_graph(n, el, ch, nb, b, out, &e);
  if (rc) fprintf(stderr, "molkey error: %s\n", e.msg);
  CHECK(rc == 0);
}

int main(void) {
  char k1[SP_KEY_LEN], k2[SP_KEY_LEN], k3[SP_KEY_LEN];

  /* ethanol C1-C2-O with 6 H, two atom orders */
  const uint8_t eth_a[] = {6, 6, 8, 1, 1, 1, 1, 1, 1};
  const uint32_t eth_ab[][2] = {{0, 1}, {1, 2}, {0, 3}, {0, 4}, {0, 5}, {1, 6}, {1, 7}, {2, 8}};
  const uint8_t eth_b[] = {1, 8, 1, 6, 1, 1, 6, 1, 1};
  const uint32_t eth_bb[][2] = {{1, 3}, {6, 3}, {0, 1}, {2, 3}, {4, 3}, {5, 6}, {7, 6}, {8, 6}};
  key(9, eth_a, NULL, 8, eth_ab, k1);
  key(9, eth_b, NULL, 8, eth_bb, k2);
  CHECK(strcmp(k1, k2) == 0);
  CHECK(strncmp(k1, "wl1-", 4) == 0 && strlen(k1) == 4 + 16 + 3);
  CHECK(strcmp(k1 + 20, "-h6") == 0);
  /* dimethyl ether C-O-C: same formula, different graph */
  const uint8_t dme[] = {6, 8, 6};
  const uint32_t dme_b[][2] = {{0, 1}, {1, 2}};
  const uint8_t eth_heavy[] = {6, 6, 8};
  key(3, dme, NULL, 2, dme_b, k2);
  key(3, eth_heavy, NULL, 2, dme_b, k3);
  CHECK(strncmp(k2, k3, 20) != 0);
  /* heavy-atom graph only: H atoms do not change the hash part */
  CHECK(strncmp(k1, k3, 20) == 0);
  /* determinism across platforms: the value of wl1 for ethanol is part of the format */
  {
    uint64_t h = 0;
    long nh = 0;
    sp_err e = {0};
    CHECK(sp_molkey_hash(3, eth_heavy, NULL, 2, dme_b, &h, &nh, &e) == 0);
    char again[SP_KEY_LEN];
    sp_molkey_format(h, nh, again);
    CHECK(strcmp(again, k3) == 0);
    printf("ethanol heavy-atom key: %s\n", k3);
    CHECK(strcmp(k3, "wl1-" "8df0e88d93e7a315" "-h0") == 0);
  }

  /* acetic acid (4 H, neutral) vs acetate (3 H, -1): same key */
  const uint8_t acy[] = {6, 6, 8, 8, 1, 1, 1, 1};
  const uint32_t acy_b[][2] = {{0, 1}, {1, 2}, {1, 3}, {0, 4}, {0, 5}, {0, 6}, {3, 7}};
  const int8_t acy_c[] = {0, 0, 0, 0, 0, 0, 0, 0};
  const uint8_t act[] = {6, 6, 8, 8, 1, 1, 1};
  const uint32_t act_b[][2] = {{0, 1}, {1, 2}, {1, 3}, {0, 4}, {0, 5}, {0, 6}};
  const int8_t act_c[] = {0, 0, 0, -1, 0, 0, 0};
  key(8, acy, acy_c, 7, acy_b, k1);
  key(7, act, act_c, 6, act_b, k2);
  CHECK(strcmp(k1, k2) == 0);
  CHECK(strcmp(k1 + 20, "-h4") == 0);
  /* acetate without its charge: differs by the H count only */
  key(7, act, NULL, 6, act_b, k3);
  CHECK(strncmp(k1, k3, 20) == 0 && strcmp(k1, k3) != 0);

  /* bonds to metals are removed: Fe-N bond present or not, same key */
  const uint8_t fen[] = {26, 7, 6};
  const uint32_t fen_b1[][2] = {{0, 1}, {1, 2}};
  const uint32_t fen_b2[][2] = {{1, 2}};
  key(3, fen, NULL, 2, fen_b1, k1);
  key(3, fen, NULL, 1, fen_b2, k2);
  CHECK(strcmp(k1, k2) == 0);
  /* ... but a C-N bond is not removed */
  const uint32_t fen_b3[][2] = {{0, 1}};
  key(3, fen, NULL, 1, fen_b3, k3);
  CHECK(strcmp(k1, k3) != 0);

  /* metal ion: single node, h = -charge */
  const uint8_t ca[] = {20};
  const int8_t ca_c[] = {2};
  key(1, ca, ca_c, 0, NULL, k1);
  CHECK(strcmp(k1 + 20, "-h-2") == 0);
  const uint8_t mg[] = {12};
  key(1, mg, ca_c, 0, NULL, k2);
  CHECK(strncmp(k1, k2, 20) != 0);

  /* duplicate bonds and bond direction do not matter */
  const uint32_t dup_b[][2] = {{0, 1}, {1, 0}, {1, 2}, {2, 1}, {1, 2}};
  key(3, eth_heavy, NULL, 5, dup_b, k1);
  key(3, eth_heavy, NULL, 2, dme_b, k2);
  CHECK(strcmp(k1, k2) == 0);

  /* documented limit: 1-WL does not separate cyclohexane from two cyclopropanes */
  const uint8_t c6[] = {6, 6, 6, 6, 6, 6};
  const uint32_t ring6[][2] = {{0, 1}, {1, 2}, {2, 3}, {3, 4}, {4, 5}, {5, 0}};
  const uint32_t ring33[][2] = {{0, 1}, {1, 2}, {2, 0}, {3, 4}, {4, 5}, {5, 3}};
  key(6, c6, NULL, 6, ring6, k1);
  key(6, c6, NULL, 6, ring33, k2);
  CHECK(strcmp(k1, k2) == 0);
  /* but hexane (a path) differs from cyclohexane */
  key(6, c6, NULL, 5, ring6, k3);
  CHECK(strcmp(k1, k3) != 0);

  /* errors */
  {
    sp_err e = {0};
    const uint32_t bad[][2] = {{0, 7}};
    CHECK(sp_molkey_graph(3, eth_heavy, NULL, 1, bad, k1, &e) == SP_E_INVALID);
    CHECK(k1[0] == '\0' && strstr(e.msg, "bond") != NULL);
    CHECK(sp_molkey_graph(0, eth_heavy, NULL, 0, NULL, k1, &e) == SP_E_INVALID);
    CHECK(sp_molkey_graph(3, eth_heavy, NULL, 2, NULL, k1, &e) == SP_E_INVALID);
  }

  /* component: leaving atoms dropped on request */
  {
    sp_comp_atom atoms[4] = {0};
    const char *names[] = {"C1", "O1", "CL1", "N1"};
    const uint8_t els[] = {6, 8, 17, 7};
    for (int i = 0; i < 4; i++) {
      strcpy(atoms[i].name, names[i]);
      atoms[i].element = els[i];
    }
    atoms[2].leaving = 1;
    atoms[3].charge = 1;
    sp_comp_bond bonds[3] = {{0, 1, 1, 0}, {0, 2, 1, 0}, {0, 3, 1, 0}};
    sp_component c = {0};
    strcpy(c.id, "TST");
    c.atoms = atoms;
    c.n_atoms = 4;
    c.bonds = bonds;
    c.n_bonds = 3;
    sp_err e = {0};
    CHECK(sp_molkey_component(&c, false, k1, &e) == 0);
    CHECK(sp_molkey_component(&c, true, k2, &e) == 0);
    CHECK(strcmp(k1, k2) != 0);
    CHECK(strcmp(k1 + 20, "-h-1") == 0);
    const uint8_t el3[] = {6, 8, 7};
    const int8_t ch3[] = {0, 0, 1};
    const uint32_t b3[][2] = {{0, 1}, {0, 2}};
    key(3, el3, ch3, 2, b3, k3);
    CHECK(strcmp(k2, k3) == 0);
    bonds[1].b = 9;
    CHECK(sp_molkey_component(&c, false, k1, &e) == SP_E_INVALID);
    CHECK(sp_molkey_component(NULL, false, k1, &e) == SP_E_INVALID);
  }

  /* exact confirmation (sp_molkey_isomorphic) on the WL blind spots */
  {
    sp_err e = {0};
    int v = -1;
    uint64_t steps = 0;
    /* cyclohexane vs two cyclopropanes: same wl1 key (above), not isomorphic */
    CHECK(sp_molkey_isomorphic(6, c6, 6, ring6, 6, c6, 6, ring33, SP_ISO_DEFAULT_STEPS, &v, &steps, &e) == 0);
    CHECK(v == SP_ISO_NO);
    /* cyclohexane vs itself with atoms renumbered (ring 0-2-4-1-3-5) */
    const uint32_t ring6p[][2] = {{0, 2}, {2, 4}, {4, 1}, {1, 3}, {3, 5}, {5, 0}};
    CHECK(sp_molkey_isomorphic(6, c6, 6, ring6, 6, c6, 6, ring6p, SP_ISO_DEFAULT_STEPS, &v, &steps, &e) == 0);
    CHECK(v == SP_ISO_YES && steps >= 6);
    /* the bound: one candidate try cannot decide a 6-node match */
    CHECK(sp_molkey_isomorphic(6, c6, 6, ring6, 6, c6, 6, ring6p, 1, &v, &steps, &e) == 0);
    CHECK(v == SP_ISO_UNDECIDED && steps == 1);
    /* decalin vs bicyclopentyl (both C10H18): 1-WL gives both the same colours, so the same key;
     * decalin = two fused 6-rings (bridgeheads 0,1), bicyclopentyl = two 5-rings joined by 0-1 */
    const uint8_t c10[] = {6, 6, 6, 6, 6, 6, 6, 6, 6, 6};
    const uint32_t decalin[][2] = {{0, 1}, {0, 2}, {2, 3}, {3, 4}, {4, 5}, {5, 1},
                                   {0, 6}, {6, 7}, {7, 8}, {8, 9}, {9, 1}};
    const uint32_t bicp[][2] = {{0, 1}, {0, 2}, {2, 3}, {3, 4}, {4, 5}, {5, 0},
                                {1, 6}, {6, 7}, {7, 8}, {8, 9}, {9, 1}};
    char kd[SP_KEY_LEN], kb[SP_KEY_LEN];
    key(10, c10, NULL, 11, decalin, kd);
    key(10, c10, NULL, 11, bicp, kb);
    CHECK(strcmp(kd, kb) == 0);
    CHECK(sp_molkey_isomorphic(10, c10, 11, decalin, 10, c10, 11, bicp, SP_ISO_DEFAULT_STEPS, &v, &steps, &e) == 0);
    CHECK(v == SP_ISO_NO);
    /* H atoms and bonds to metals are not part of the compared graph (as in the key) */
    const uint8_t eth_h[] = {6, 6, 8, 1, 1};
    const uint32_t eth_hb[][2] = {{0, 1}, {1, 2}, {0, 3}, {2, 4}};
    CHECK(sp_molkey_isomorphic(5, eth_h, 4, eth_hb, 3, eth_heavy, 2, dme_b, 100, &v, NULL, &e) == 0 && v == SP_ISO_YES);
    const uint8_t mg_w[] = {12, 8, 8};
    const uint32_t mg_b[][2] = {{0, 1}, {0, 2}};
    CHECK(sp_molkey_isomorphic(3, mg_w, 2, mg_b, 3, mg_w, 0, NULL, 100, &v, NULL, &e) == 0 && v == SP_ISO_YES);
    /* ethanol is not dimethyl ether; different sizes are not isomorphic */
    CHECK(sp_molkey_isomorphic(3, eth_heavy, 2, dme_b, 3, dme, 2, dme_b, 100, &v, NULL, &e) == 0 && v == SP_ISO_NO);
    CHECK(sp_molkey_isomorphic(6, c6, 6, ring6, 3, dme, 2, dme_b, 100, &v, NULL, &e) == 0 && v == SP_ISO_NO);
    /* errors */
    const uint32_t bad2[][2] = {{0, 7}};
    CHECK(sp_molkey_isomorphic(3, eth_heavy, 1, bad2, 3, dme, 2, dme_b, 100, &v, NULL, &e) == SP_E_INVALID);
    CHECK(sp_molkey_isomorphic(3, eth_heavy, 2, dme_b, 3, dme, 2, dme_b, 100, NULL, NULL, &e) == SP_E_INVALID);
  }

  return sp_test_done("test_molkey");
}

/* Real CCD variety (issue 4): every block of the excerpt, flag by flag, against gemmi's reading of
 * the same file (Debian python3-gemmi): atoms with '?' model coordinates (00O, I, UNK, ...), with
 * '?' ideal coordinates (1G1, HEB: all atoms; 03R: two), '?' charges (3CD), leaving atoms (ALA:
 * 3), aromatic atoms and bonds, bond orders, release status and pdbx_replaced_by (NAC: OBS,
 * replaced by A3D). Then inline blocks in the CCD's own layout for what the excerpt lacks:
 * 5-character ids (index, lookup), UNL with no atoms at all, both value_order spellings (CCD
 * SING/DOUB/TRIP/AROM/DELO and the monomer library's _chem_comp_bond.type single/double/
 * aromatic/deloc, any case), numeric and '?' charges, a bond naming an absent atom, an id
 * longer than the CCD allows.
 * Usage: test_ccd_variety CCD_EXCERPT_CIF PYTHON3 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sitepack/ccd.h"
#include "sitepack/molkey.h"

#include "sp_test.h"

static const char *k_py =
    "import sys, gemmi\n"
    "d = gemmi.cif.read(sys.argv[1])\n"
    "for b in d:\n"
    "    t = b.find('_chem_comp_atom.', ['atom_id', 'charge', 'model_Cartn_x', 'pdbx_model_Cartn_x_ideal',\n"
    "                                    'pdbx_leaving_atom_flag', 'pdbx_aromatic_flag'])\n"
    "    q = lambda i: sum(1 for r in t if r[i] == '?')\n"
    "    y = lambda i: sum(1 for r in t if r[i].upper() == 'Y')\n"
    "    bo = [o.upper()[:4] for o in b.find_values('_chem_comp_bond.value_order')]\n"
    "    ba = sum(1 for f in b.find_values('_chem_comp_bond.pdbx_aromatic_flag') if f.upper() == 'Y')\n"
    "    rs = gemmi.cif.as_string(b.find_value('_chem_comp.pdbx_release_status') or '?') or '-'\n"
    "    rb = gemmi.cif.as_string(b.find_value('_chem_comp.pdbx_replaced_by') or '?') or '-'\n"
    "    print(b.name, len(t), q(2), q(3), q(1), y(4), y(5), len(bo), bo.count('SING'), bo.count('DOUB'),\n"
    "          bo.count('TRIP'), ba, rs, rb)\n";

static const char *k_five =
    "data_A1AA6\n"
    "#\n"
    "_chem_comp.id                                    A1AA6\n"
    "_chem_comp.name                                  \"five-character id\"\n"
    "_chem_comp.type                                  NON-POLYMER\n"
    "_chem_comp.formula                               \"C2 H4 O2\"\n"
    "_chem_comp.pdbx_formal_charge                    -1\n"
    "_chem_comp.pdbx_release_status                   REL\n"
    "_chem_comp.pdbx_replaced_by                      ?\n"
    "#\n"
    "loop_\n"
    "_chem_comp_atom.comp_id\n"
    "_chem_comp_atom.atom_id\n"
    "_chem_comp_atom.type_symbol\n"
    "_chem_comp_atom.charge\n"
    "_chem_comp_atom.pdbx_aromatic_flag\n"
    "_chem_comp_atom.pdbx_leaving_atom_flag\n"
    "_chem_comp_atom.model_Cartn_x\n"
    "_chem_comp_atom.model_Cartn_y\n"
    "_chem_comp_atom.model_Cartn_z\n"
    "_chem_comp_atom.pdbx_model_Cartn_x_ideal\n"
    "_chem_comp_atom.pdbx_model_Cartn_y_ideal\n"
    "_chem_comp_atom.pdbx_model_Cartn_z_ideal\n"
    "A1AA6 C1  C 0  N N 1.0 2.0 3.0 ? ? ?\n"
    "A1AA6 C2  C ?  N N ? ? ? 0.5 0.25 -1.5\n"
    "A1AA6 O1  O -1 N Y 1.5 . 2.5 0 0 0\n"
    "A1AA6 O2  O 0  y y 1 1 1 1 1 1\n"
    "A1AA6 H1  H 0  N N 0 0 0 0 0 0\n"
    "#\n"
    "loop_\n"
    "_chem_comp_bond.comp_id\n"
    "_chem_comp_bond.atom_id_1\n"
    "_chem_comp_bond.atom_id_2\n"
    "_chem_comp_bond.value_order\n"
    "_chem_comp_bond.pdbx_aromatic_flag\n"
    "A1AA6 C1 C2 SING N\n"
    "A1AA6 C2 O1 doub N\n"
    "A1AA6 C2 O2 AROM y\n"
    "A1AA6 C1 H1 DELO N\n"
    "#\n"
    /* UNL as in the wwPDB CCD: a _chem_comp record and nothing else */
    "data_UNL\n"
    "#\n"
    "_chem_comp.id                                   UNL\n"
    "_chem_comp.name                                 \"Unknown ligand\"\n"
    "_chem_comp.type                                 NON-POLYMER\n"
    "_chem_comp.formula                              ?\n"
    "_chem_comp.pdbx_formal_charge                   ?\n"
    "_chem_comp.pdbx_release_status                  REL\n"
    "_chem_comp.pdbx_replaced_by                     ?\n"
    "#\n"
    /* monomer-library spelling: _chem_comp_bond.type, no _chem_comp.id */
    "data_comp_MLB\n"
    "loop_\n"
    "_chem_comp_atom.comp_id\n"
    "_chem_comp_atom.atom_id\n"
    "_chem_comp_atom.type_symbol\n"
    "_chem_comp_atom.x\n"
    "_chem_comp_atom.y\n"
    "_chem_comp_atom.z\n"
    "MLB C1 C 0 0 0\n"
    "MLB C2 C 1.4 0 0\n"
    "MLB C3 C 2 1 0\n"
    "MLB N1 N 3 1 0\n"
    "MLB O1 O 4 1 0\n"
    "loop_\n"
    "_chem_comp_bond.comp_id\n"
    "_chem_comp_bond.atom_id_1\n"
    "_chem_comp_bond.atom_id_2\n"
    "_chem_comp_bond.type\n"
    "MLB C1 C2 single\n"
    "MLB C2 C3 DOUBLE\n"
    "MLB C3 N1 aromatic\n"
    "MLB N1 O1 deloc\n"
    "#\n"
    "data_BAD1\n"
    "_chem_comp.id BAD1\n"
    "loop_\n"
    "_chem_comp_atom.comp_id\n"
    "_chem_comp_atom.atom_id\n"
    "_chem_comp_atom.type_symbol\n"
    "BAD1 C1 C\n"
    "loop_\n"
    "_chem_comp_bond.comp_id\n"
    "_chem_comp_bond.atom_id_1\n"
    "_chem_comp_bond.atom_id_2\n"
    "_chem_comp_bond.value_order\n"
    "BAD1 C1 C9 SING\n"
    "#\n"
    "data_TOOLONGID12\n"
    "_chem_comp.id TOOLONGID12\n";

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s CCD_CIF PYTHON3\n", argv[0]);
    return 2;
  }
  sp_err err = {0};
  sp_ccd *ccd = NULL;
  CHECK(sp_ccd_open(argv[1], &ccd, &err) == 0, "open: %s", err.msg);
  if (!ccd) return 1;
  char cmd[8192];
  char tmp[] = "/tmp/test_ccd_variety_XXXXXX";
  int fd = mkstemp(tmp);
  CHECK(fd >= 0, "mkstemp");
  FILE *f = fdopen(fd, "w");
  fputs(k_py, f);
  fclose(f);
  snprintf(cmd, sizeof cmd, "%s %s %s", argv[2], tmp, argv[1]);
  FILE *p = popen(cmd, "r");
  CHECK(p != NULL, "popen");
  char id[64], rs[32], rb[32];
  int n, mq, iq, cq, lv, ar, nb, ns, nd, nt, ba, blocks = 0;
  int tot_mq = 0, tot_iq = 0, tot_cq = 0, tot_lv = 0, tot_obs = 0;
  while (p && fscanf(p, "%63s %d %d %d %d %d %d %d %d %d %d %d %31s %31s", id, &n, &mq, &iq, &cq, &lv, &ar, &nb, &ns, &nd,
                     &nt, &ba, rs, rb) == 14) {
    ++blocks;
    const sp_component *c = sp_ccd_get(ccd, id, &err);
    CHECK(c, "%s: %s", id, err.msg);
    if (!c) continue;
    int m_mq = 0, m_iq = 0, m_cq = 0, m_lv = 0, m_ar = 0, m_ns = 0, m_nd = 0, m_nt = 0, m_ba = 0;
    for (size_t i = 0; i < c->n_atoms; ++i) {
      const sp_comp_atom *a = &c->atoms[i];
      m_mq += !a->has_model_xyz;
      m_iq += !a->has_ideal_xyz;
      m_cq += !a->charge_known;
      m_lv += a->leaving;
      m_ar += a->aromatic;
      if (!a->has_model_xyz) CHECK(a->model_xyz[0] == 0 && a->model_xyz[1] == 0 && a->model_xyz[2] == 0, "%s xyz 0", id);
    }
    for (size_t i = 0; i < c->n_bonds; ++i) {
      m_ns += c->bonds[i].order == 1;
      m_nd += c->bonds[i].order == 2;
      m_nt += c->bonds[i].order == 3;
      m_ba += c->bonds[i].aromatic;
    }
    CHECK((int)c->n_atoms == n && m_mq == mq && m_iq == iq && m_cq == cq && m_lv == lv && m_ar == ar,
          "%s atoms %zu/%d model? %d/%d ideal? %d/%d charge? %d/%d leaving %d/%d arom %d/%d", id, c->n_atoms, n, m_mq, mq,
          m_iq, iq, m_cq, cq, m_lv, lv, m_ar, ar);
    CHECK((int)c->n_bonds == nb && m_ns == ns && m_nd == nd && m_nt == nt && m_ba == ba,
          "%s bonds %zu/%d sing %d/%d doub %d/%d trip %d/%d arom %d/%d", id, c->n_bonds, nb, m_ns, ns, m_nd, nd, m_nt, nt,
          m_ba, ba);
    CHECK(!strcmp(c->release_status, strcmp(rs, "-") ? rs : "") && !strcmp(c->replaced_by, strcmp(rb, "-") ? rb : ""),
          "%s status %s/%s replaced_by %s/%s", id, c->release_status, rs, c->replaced_by, rb);
    tot_mq += mq, tot_iq += iq, tot_cq += cq, tot_lv += lv, tot_obs += !strcmp(rs, "OBS");
  }
  CHECK(p && pclose(p) == 0, "gemmi script failed");
  unlink(tmp);
  CHECK(blocks == 131, "gemmi listed %d blocks", blocks);
  /* the variety is really there (so the comparison above is not vacuous) */
  CHECK(tot_mq > 0 && tot_iq > 0 && tot_cq > 0 && tot_lv > 0 && tot_obs == 1, "variety: %d %d %d %d %d", tot_mq, tot_iq,
        tot_cq, tot_lv, tot_obs);
  const sp_component *nac = sp_ccd_get(ccd, "NAC", &err), *g1 = sp_ccd_get(ccd, "1G1", &err),
                     *c3 = sp_ccd_get(ccd, "3CD", &err), *unx = sp_ccd_get(ccd, "UNX", &err);
  CHECK(nac && !strcmp(nac->release_status, "OBS") && !strcmp(nac->replaced_by, "A3D"), "NAC obsolete -> A3D");
  CHECK(g1 && g1->n_atoms == 95 && !g1->atoms[0].has_ideal_xyz && g1->atoms[0].has_model_xyz, "1G1 no ideal xyz");
  CHECK(c3 && c3->n_atoms == 73, "3CD");
  CHECK(unx && unx->n_atoms == 1 && unx->atoms[0].element == 0 && !unx->atoms[0].has_ideal_xyz, "UNX: one atom X");
  sp_ccd_close(ccd);

  /* inline blocks */
  CHECK(sp_ccd_open_source(&(sp_ccd_source){.kind = SP_CCD_SRC_TEXT, .text = k_five, .len = strlen(k_five)},
      &ccd, &err) == 0, "inline: %s", err.msg);
  if (!ccd) return 1;
  const sp_ccd_index *ix = sp_ccd_get_index(ccd);
  CHECK(ix->n == 5, "%zu inline blocks", ix->n);
  const sp_component *c = sp_ccd_get(ccd, "A1AA6", &err);
  CHECK(c && !strcmp(c->id, "A1AA6") && c->n_atoms == 5 && c->n_bonds == 4, "A1AA6: %s", err.msg);
  if (c) {
    CHECK(c->atoms[0].has_model_xyz && !c->atoms[0].has_ideal_xyz && c->atoms[0].model_xyz[2] == 3.0f, "C1 xyz");
    CHECK(!c->atoms[1].has_model_xyz && c->atoms[1].has_ideal_xyz && c->atoms[1].ideal_xyz[2] == -1.5f, "C2 xyz");
    CHECK(!c->atoms[1].charge_known && c->atoms[1].charge == 0, "C2 charge ?");
    CHECK(c->atoms[2].charge_known && c->atoms[2].charge == -1 && c->atoms[2].leaving, "O1 charge -1, leaving");
    CHECK(!c->atoms[2].has_model_xyz, "O1 '.' coordinate is not a number");
    CHECK(c->atoms[3].aromatic && c->atoms[3].leaving, "O2 lowercase y flags");
    CHECK(c->bonds[0].order == 1 && c->bonds[1].order == 2 && c->bonds[2].order == 4 && c->bonds[2].aromatic &&
              c->bonds[3].order == 4 && !c->bonds[3].aromatic,
          "value_order SING doub AROM DELO");
    CHECK(c->formal_charge == -1.0f, "formal charge");
    char k1[SP_KEY_LEN], k2[SP_KEY_LEN];
    CHECK(sp_molkey_component(c, false, k1, &err) == 0 && sp_molkey_component(c, true, k2, &err) == 0 && strcmp(k1, k2),
          "leaving atoms change the key");
  }
  CHECK(sp_ccd_get(ccd, "A1AA", NULL) == NULL && sp_ccd_get(ccd, "A1AA66", NULL) == NULL, "prefixes of 5-char ids");
  const sp_component *unl = sp_ccd_get(ccd, "UNL", &err);
  CHECK(unl && unl->n_atoms == 0 && unl->n_bonds == 0 && !strcmp(unl->release_status, "REL"), "UNL: no atoms");
  if (unl) {
    char k[SP_KEY_LEN];
    CHECK(sp_molkey_component(unl, false, k, &err) == SP_E_INVALID && !k[0], "UNL: no key");
  }
  /* a monomer-library block (data_comp_MLB: longer than an index id) parsed on its own */
  sp_component mlb;
  const char *ms = strstr(k_five, "data_comp_MLB"), *me = strstr(k_five, "data_BAD1");
  CHECK(sp_component_parse(ms, (size_t)(me - ms), &mlb, &err) == 0, "monomer library block: %s", err.msg);
  const sp_component *ml = &mlb;
  CHECK(!strcmp(ml->id, "MLB") && ml->n_atoms == 5 && ml->n_bonds == 4, "monomer library id and counts");
  if (ml->n_bonds == 4) {
    CHECK(ml->bonds[0].order == 1 && ml->bonds[1].order == 2 && ml->bonds[2].order == 4 && ml->bonds[2].aromatic &&
              ml->bonds[3].order == 4 && !ml->bonds[3].aromatic,
          "type single DOUBLE aromatic deloc");
    CHECK(ml->atoms[1].has_ideal_xyz && fabsf(ml->atoms[1].ideal_xyz[0] - 1.4f) < 1e-6f, "monomer library x,y,z = ideal");
  }
  sp_component_free(&mlb);
  err.cls = 0;
  CHECK(sp_ccd_get(ccd, "BAD1", &err) == NULL && err.cls == SP_E_BAD_VALUE && strstr(err.msg, "C9"),
        "bond to an absent atom: %s", err.msg);
  /* an id longer than SP_ID_LEN-1 is cut in the index; a lookup with the full id is "not found" */
  err.cls = 0;
  CHECK(sp_ccd_get(ccd, "TOOLONGID12", &err) == NULL && err.cls == SP_E_NOT_FOUND, "long id: %s", err.msg);
  sp_ccd_close(ccd);

  /* borrowed text (no copy) with an index built elsewhere; rows out of bounds or order refused */
  {
    size_t len = strlen(k_five);
    sp_ccd_index idx;
    CHECK(sp_ccd_index_build(k_five, len, &idx, NULL, &err) == 0 && idx.n == 5, "index");
    sp_ccd *b = NULL;
    CHECK(sp_ccd_open_source(&(sp_ccd_source){.kind = SP_CCD_SRC_BORROWED, .text = k_five, .len = len, .index = &idx},
        &b, &err) == 0 && idx.n == 0 && !idx.ids, "indexed: %s",
          err.msg);
    const sp_component *a = b ? sp_ccd_get(b, "A1AA6", &err) : NULL;
    CHECK(a && a->n_atoms == 5 && sp_ccd_text(b) == k_five, "borrowed text, same component");
    sp_ccd_close(b); /* must not free k_five */
    CHECK(sp_ccd_index_build(k_five, len, &idx, NULL, &err) == 0, "index");
    idx.length[2] = len; /* past the end */
    CHECK(sp_ccd_open_source(&(sp_ccd_source){.kind = SP_CCD_SRC_BORROWED, .text = k_five, .len = len, .index = &idx},
        &b, &err) == SP_E_INVALID && !b && !idx.ids,
          "row past the end: %s", err.msg);
    CHECK(sp_ccd_index_build(k_five, len, &idx, NULL, &err) == 0, "index");
    char t[SP_ID_LEN];
    memcpy(t, idx.ids[0], SP_ID_LEN);
    memcpy(idx.ids[0], idx.ids[1], SP_ID_LEN);
    memcpy(idx.ids[1], t, SP_ID_LEN);
    CHECK(sp_ccd_open_source(&(sp_ccd_source){.kind = SP_CCD_SRC_BORROWED, .text = k_five, .len = len, .index = &idx},
        &b, &err) == SP_E_INVALID && !b, "rows out of order");
    CHECK(sp_ccd_open_source(&(sp_ccd_source){.kind = SP_CCD_SRC_BORROWED, .text = k_five, .len = len},
        &b, &err) == 0 && sp_ccd_get_index(b)->n == 5, "borrowed");
    sp_ccd_close(b);
  }
  if (g_fail) {
    fprintf(stderr, "%d failure(s)\n", g_fail);
    return 1;
  }
  printf("test_ccd_variety: all checks passed (131 blocks vs gemmi; '?' model xyz %d atoms, '?' ideal %d, '?' charge "
         "%d, leaving %d)\n",
         tot_mq, tot_iq, tot_cq, tot_lv);
  return 0;
}

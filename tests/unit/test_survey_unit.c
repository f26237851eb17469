/* Survey unit tests on small structures built in memory (no reader, no file). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sitepack/survey.h"
#include "survey/lists.h"

#include "sp_test.h"

static sp_sv sv(const char *s) { return (sp_sv){s, strlen(s)}; }

static void atom(sp_structure *s, int model, const char *chain, const char *ent, const char *comp, int seq, const char *name,
                 int el, char alt, float occ, float x, float y, float z, bool het) {
  sp_atom_in a = {0};
  a.model_num = model;
  a.label_asym_id = a.auth_asym_id = sv(chain);
  a.entity_id = sv(ent);
  a.comp_id = sv(comp);
  a.label_seq_id = a.auth_seq_id = seq;
  a.atom_name = sv(name);
  a.altloc = alt;
  a.element = (uint8_t)el;
  a.hetatm = het;
  a.x = x;
  a.y = y;
  a.z = z;
  a.occupancy = occ;
  sp_err e = {0};
  CHECK(sp_structure_add_atom(s, &a, &e) == 0);
}

/* a backbone residue at x offset (peptide C-N 1.33 Å to the next one at +3.8) */
static void aa(sp_structure *s, const char *chain, const char *ent, const char *comp, int seq, float x0, bool het) {
  atom(s, 1, chain, ent, comp, seq, "N", 7, 0, 1, x0, 0, 0, het);
  atom(s, 1, chain, ent, comp, seq, "CA", 6, 0, 1, x0 + 1.2f, 0.8f, 0, het);
  atom(s, 1, chain, ent, comp, seq, "C", 6, 0, 1, x0 + 2.47f, 0, 0, het);
  atom(s, 1, chain, ent, comp, seq, "O", 8, 0, 1, x0 + 2.47f, -1.2f, 0, het);
}

static long lig_of(const sp_structure *s, const sp_survey *v, const char *comp, int seq) {
  for (size_t r = 0; r < s->n_residues; r++)
    if (!strcmp(s->residues[r].comp_id, comp) && s->residues[r].auth_seq_id == seq) return v->res_ligand[r];
  return -2;
}

int main(void) {
  CHECK(sp_list_self_check());
  CHECK(!strcmp(sp_ligand_class_name(SP_CLASS_ION), "ion") && !strcmp(sp_ligand_class_name(99), "unknown"));
  sp_err e = {0};

  /* 1. PDB-like (no entities): HETATM MSE linked inside a chain is polymer; a free HETATM
   *    GLY is a ligand; water is water; two ligands joined by a covale are one instance;
   *    a covale to the polymer sets covalent + attach atom; a Zn ion; altlocs. */
  {
    sp_structure s;
    sp_structure_init(&s);
    aa(&s, "A", "", "ALA", 1, 0, false);
    aa(&s, "A", "", "MSE", 2, 3.8f, true);
    aa(&s, "A", "", "SER", 3, 7.6f, false);
    atom(&s, 1, "A", "", "SER", 3, "OG", 8, 0, 1, 9.0f, 2.0f, 0, false);
    /* ligand L1 (2 atoms) + L2 (2 atoms) joined by covale; L1 C1 bonded to SER OG */
    atom(&s, 1, "A", "", "LG1", 101, "C1", 6, 0, 1, 9.0f, 3.4f, 0, true);
    atom(&s, 1, "A", "", "LG1", 101, "O1", 8, 0, 1, 9.0f, 4.8f, 0, true);
    atom(&s, 1, "A", "", "LG2", 102, "C1", 6, 0, 1, 10.4f, 4.8f, 0, true);
    atom(&s, 1, "A", "", "LG2", 102, "N1", 7, 0, 1, 11.8f, 4.8f, 0, true);
    /* free glycine far away */
    aa(&s, "B", "", "GLY", 1, 40, true);
    /* zinc, altloc B only with occupancy 0.6 + altloc C 0.4 */
    atom(&s, 1, "A", "", "ZN", 201, "ZN", 30, 'B', 0.6f, 20, 20, 20, true);
    atom(&s, 1, "A", "", "ZN", 201, "ZN", 30, 'C', 0.4f, 21, 20, 20, true);
    /* zero-occupancy ligand */
    atom(&s, 1, "A", "", "LG3", 202, "C1", 6, 0, 0.0f, 30, 30, 30, true);
    atom(&s, 1, "A", "", "LG3", 202, "C2", 6, 0, 0.0f, 31.5f, 30, 30, true);
    atom(&s, 1, "W", "", "HOH", 301, "O", 8, 0, 1, 50, 50, 50, true);
    sp_conn c = {0};
    c.type = SP_CONN_COVALE;
    strcpy(c.a.auth_asym_id, "A"); strcpy(c.a.comp_id, "LG1"); strcpy(c.a.atom_name, "O1");
    c.a.auth_seq_id = 101; c.a.label_seq_id = SP_SEQ_NONE;
    strcpy(c.b.auth_asym_id, "A"); strcpy(c.b.comp_id, "LG2"); strcpy(c.b.atom_name, "C1");
    c.b.auth_seq_id = 102; c.b.label_seq_id = SP_SEQ_NONE;
    CHECK(sp_structure_add_conn(&s, &c, &e) == 0);
    sp_conn c2 = c;
    strcpy(c2.a.comp_id, "SER"); strcpy(c2.a.atom_name, "OG"); c2.a.auth_seq_id = 3;
    strcpy(c2.b.comp_id, "LG1"); strcpy(c2.b.atom_name, "C1"); c2.b.auth_seq_id = 101;
    CHECK(sp_structure_add_conn(&s, &c2, &e) == 0);
    CHECK(sp_structure_finish(&s, &e) == 0);

    sp_survey v = {0};
    CHECK(sp_survey_run(&s, NULL, NULL, &v, &e) == 0);
    CHECK(v.n_ligands == 4);
    CHECK(lig_of(&s, &v, "MSE", 2) == -1);
    CHECK(lig_of(&s, &v, "HOH", 301) == -1);
    long l1 = lig_of(&s, &v, "LG1", 101), l2 = lig_of(&s, &v, "LG2", 102);
    CHECK(l1 >= 0 && l1 == l2);
    if (l1 >= 0) {
      const sp_ligand *L = &v.ligands[l1];
      CHECK(L->n_res == 2 && L->n_atoms == 4 && L->n_heavy == 4);
      CHECK((L->flags & (SP_LIG_COVALENT | SP_LIG_MULTI_RESIDUE | SP_LIG_NOT_IN_CCD)) ==
            (SP_LIG_COVALENT | SP_LIG_MULTI_RESIDUE | SP_LIG_NOT_IN_CCD));
      CHECK(L->attach_atom >= 0 && !strcmp(s.atom_name[L->attach_atom], "OG"));
      CHECK(L->cls == SP_CLASS_SMALL_MOLECULE && L->n_ccd_heavy == -1);
      /* no definitions: observed graph, distance bonds inside residues + the link */
      CHECK(!strcmp(L->key_source, "distance") && !strncmp(L->molecule_key, "wl1-", 4));
    }
    long lg = lig_of(&s, &v, "GLY", 1);
    CHECK(lg >= 0 && v.ligands[lg].cls == SP_CLASS_SMALL_MOLECULE && v.ligands[lg].n_heavy == 4);
    long lz = lig_of(&s, &v, "ZN", 201);
    CHECK(lz >= 0);
    if (lz >= 0) {
      const sp_ligand *L = &v.ligands[lz];
      CHECK(L->cls == SP_CLASS_ION && L->altloc == 'B' && L->n_atoms == 1 && (L->flags & SP_LIG_ALTLOC));
      CHECK(fabsf(s.xyz[v.atom_refs[L->atom_first]][0] - 20.0f) < 1e-4f);
    }
    long l3 = lig_of(&s, &v, "LG3", 202);
    CHECK(l3 >= 0 && (v.ligands[l3].flags & SP_LIG_ZERO_OCC));
    /* roles */
    for (size_t r = 0; r < s.n_residues; r++) {
      const char *id = s.residues[r].comp_id;
      if (!strcmp(id, "ZN")) CHECK(v.res_role[r] == SP_ROLE_ION);
      if (!strcmp(id, "HOH")) CHECK(v.res_role[r] == SP_ROLE_WATER);
      if (!strcmp(id, "MSE") || !strcmp(id, "ALA")) CHECK(v.res_role[r] == SP_ROLE_POLYMER);
    }
    /* ligands in file order of their first residue; comps sorted */
    for (size_t i = 1; i < v.n_ligands; i++) CHECK(v.res_refs[v.ligands[i - 1].res_first] < v.res_refs[v.ligands[i].res_first]);
    CHECK(v.n_comps == 5);
    for (size_t i = 1; i < v.n_comps; i++) CHECK(strcmp(v.comps[i - 1].row.comp_id, v.comps[i].row.comp_id) < 0);
    sp_survey_free(&v);
    sp_structure_free(&s);
  }

  /* 2. mmCIF-like entities: a branched entity is one glycan; a 5-residue peptide chain beside
   *    a 25-residue chain is a `peptide`; the same peptide next to a 10-residue chain is not. */
  for (int big = 0; big < 2; big++) {
    sp_structure s;
    sp_structure_init(&s);
    sp_entity ents[3] = {{"1", SP_ENT_POLYMER, SP_POLY_PEPTIDE_L, 0, 0, "A", 0, 0},
                         {"2", SP_ENT_POLYMER, SP_POLY_PEPTIDE_L, 0, 0, "P", 0, 0},
                         {"3", SP_ENT_BRANCHED, SP_POLY_NONE, 0, 0, "", 0, 0}};
    for (int i = 0; i < 3; i++) CHECK(sp_structure_add_entity(&s, &ents[i], &e) == 0);
    int n_main = big ? 25 : 10;
    for (int i = 0; i < n_main; i++) aa(&s, "A", "1", "ALA", i + 1, 3.8f * (float)i, false);
    for (int i = 0; i < 5; i++) aa(&s, "P", "2", "GLY", i + 1, 3.8f * (float)i + 200, false);
    atom(&s, 1, "G", "3", "NAG", 1, "C1", 6, 0, 1, 100, 100, 100, true);
    atom(&s, 1, "G", "3", "NAG", 2, "C1", 6, 0, 1, 104, 100, 100, true);
    s.has_label_ids = 1;
    CHECK(sp_structure_finish(&s, &e) == 0);
    sp_survey v = {0};
    CHECK(sp_survey_run(&s, NULL, NULL, &v, &e) == 0);
    long g = lig_of(&s, &v, "NAG", 1);
    CHECK(g >= 0 && g == lig_of(&s, &v, "NAG", 2));
    if (g >= 0) CHECK(v.ligands[g].cls == SP_CLASS_GLYCAN && v.ligands[g].n_res == 2);
    long p = lig_of(&s, &v, "GLY", 1);
    if (big) {
      CHECK(v.n_ligands == 2 && p >= 0 && p == lig_of(&s, &v, "GLY", 5));
      if (p >= 0) {
        CHECK(v.ligands[p].cls == SP_CLASS_PEPTIDE && v.ligands[p].n_res == 5 && v.ligands[p].n_heavy == 20);
        CHECK(!strcmp(v.ligands[p].key_source, "distance"));
      }
    } else {
      CHECK(v.n_ligands == 1 && p == -1);
    }
    sp_survey_free(&v);
    sp_structure_free(&s);
  }

  /* 3. models: by default only model 1 is surveyed; all_models gives one ligand per model */
  {
    sp_structure s;
    sp_structure_init(&s);
    for (int m = 1; m <= 2; m++) {
      atom(&s, m, "A", "", "LG1", 1, "C1", 6, 0, 1, 0, 0, 0, true);
      atom(&s, m, "A", "", "LG1", 1, "C2", 6, 0, 1, 1.5f, 0, 0, true);
    }
    CHECK(sp_structure_finish(&s, &e) == 0);
    sp_survey v = {0};
    CHECK(sp_survey_run(&s, NULL, NULL, &v, &e) == 0);
    CHECK(v.n_ligands == 1 && v.ligands[0].model == 0 && v.res_role[1] == SP_ROLE_OTHER);
    sp_survey_free(&v);
    sp_survey_opts o = {true};
    CHECK(sp_survey_run(&s, NULL, &o, &v, &e) == 0);
    CHECK(v.n_ligands == 2 && v.ligands[1].model == 1);
    CHECK(v.n_ligands == 2 && !strcmp(v.ligands[0].molecule_key, v.ligands[1].molecule_key));
    sp_survey_free(&v);
    sp_structure_free(&s);
  }

  /* 4. classes from the lists */
  CHECK(sp_list_is_water("HOH") && sp_list_is_water("TIP3") && !sp_list_is_water("HO"));
  CHECK(sp_list_is_reserved("UNL") && sp_list_is_reserved("42") && !sp_list_is_reserved("NAG"));
  CHECK(sp_list_is_artifact("GOL") && !sp_list_is_artifact("EOH") && !sp_list_is_artifact("ACY"));
  CHECK(sp_list_is_cofactor("HEM") && sp_list_is_polyatomic_ion("SO4") && sp_list_is_sugar("NAG"));

  return sp_test_done("test_survey_unit");
}

/* Survey of real entries against published references (shared/data/reference):
 * PLINDER (19HC, 1NGX: ion / artifact / covalent flags, heavy atoms), gemmi's tests (5I55,
 * 1PFE), PDBe bound molecules (1C4Q, 1TQH), and the 18 haems of 19HC sharing one key.
 * usage: test_survey_real DATA_DIR   (DATA_DIR = shared/data) */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sitepack/io.h"
#include "sitepack/read.h"
#include "sitepack/survey.h"

#define SP_TEST_PREFIX() fprintf(stderr, "[%s] ", cur)
#include "sp_test.h"
static const char *cur = "";

typedef struct run {
  sp_structure s;
  sp_survey sv;
  int ok;
} run;

static void load(run *r, const char *data, const char *file, sp_ccd *ccd) {
  char path[1024];
  snprintf(path, sizeof path, "%s/structures/%s", data, file);
  sp_buf buf = {0};
  sp_err err = {0};
  sp_structure_init(&r->s);
  memset(&r->sv, 0, sizeof r->sv);
  cur = file;
  r->ok = 0;
  if (sp_read_structure_file(path, 0, &buf, &r->s, NULL, &err)) {
    CHECK(0, "read: %s", err.msg);
  } else if (sp_survey_run(&r->s, ccd, NULL, &r->sv, &err)) {
    CHECK(0, "survey: %s", err.msg);
  } else {
    r->ok = 1;
  }
  sp_buf_free(&buf);
}

static void unload(run *r) {
  sp_survey_free(&r->sv);
  sp_structure_free(&r->s);
}

static const sp_residue *lres(const run *r, const sp_ligand *L, uint32_t j) {
  return &r->s.residues[r->sv.res_refs[L->res_first + j]];
}
static const sp_chain *lchain(const run *r, const sp_ligand *L) { return &r->s.chains[lres(r, L, 0)->chain]; }

/* PLINDER rows of entry `entry`: every row must have a ligand of ours with the same comp,
 * ion / artifact / covalent flags, and heavy-atom count (definition count when known). */
static void check_plinder(const run *r, const char *data, const char *entry, int *n_rows) {
  char path[1024];
  snprintf(path, sizeof path, "%s/reference/plinder/plinder_ligand_pockets.tsv", data);
  FILE *f = fopen(path, "r");
  CHECK(f != NULL, "%s", path);
  if (!f) return;
  char line[8192];
  *n_rows = 0;
  while (fgets(line, sizeof line, f)) {
    char *col[12] = {0};
    int nc = 0;
    for (char *p = strtok(line, "\t\n"); p && nc < 12; p = strtok(NULL, "\t\n")) col[nc++] = p;
    if (nc < 9 || strcmp(col[0], entry)) continue;
    (*n_rows)++;
    const char *ccd = col[4];
    bool ion = !strcmp(col[5], "True"), art = !strcmp(col[6], "True"), cov = !strcmp(col[7], "True");
    int heavy = atoi(col[8]);
    int found = 0;
    for (size_t i = 0; i < r->sv.n_ligands; i++) {
      const sp_ligand *L = &r->sv.ligands[i];
      if (strcmp(lres(r, L, 0)->comp_id, ccd)) continue;
      found++;
      CHECK((L->cls == SP_CLASS_ION) == ion, "%s ligand %zu: class %s, PLINDER is_ion %d", ccd, i, sp_ligand_class_name(L->cls), ion);
      CHECK((L->cls == SP_CLASS_ARTIFACT) == art, "%s ligand %zu: class %s, PLINDER is_artifact %d", ccd, i,
            sp_ligand_class_name(L->cls), art);
      CHECK(((L->flags & SP_LIG_COVALENT) != 0) == cov, "%s ligand %zu: flags 0x%x, PLINDER is_covalent %d", ccd, i, L->flags, cov);
      int ours = L->n_ccd_heavy >= 0 ? L->n_ccd_heavy : (int)L->n_heavy;
      CHECK(ours == heavy, "%s ligand %zu: %d heavy atoms, PLINDER %d", ccd, i, ours, heavy);
    }
    CHECK(found > 0, "PLINDER ligand %s not found", ccd);
  }
  fclose(f);
}

static size_t count_comp(const run *r, const char *comp) {
  size_t n = 0;
  for (size_t i = 0; i < r->sv.n_ligands; i++) n += !strcmp(lres(r, &r->sv.ligands[i], 0)->comp_id, comp);
  return n;
}

/* PDBe bound molecules: our instances are exactly PDBe's (same residue sets, same count). */
static void check_pdbe(const run *r, const char *data, const char *json) {
  char path[1024];
  snprintf(path, sizeof path, "%s/reference/pdbe_bound_molecules/%s", data, json);
  char *txt = slurp(path, NULL);
  CHECK(txt != NULL, "%s", path);
  if (!txt) return;
  cJSON *root = cJSON_Parse(txt);
  free(txt);
  const cJSON *bms = cJSON_GetObjectItemCaseSensitive(root, "boundMolecules");
  CHECK((size_t)cJSON_GetArraySize(bms) == r->sv.n_ligands, "PDBe %d bound molecules, ours %zu", cJSON_GetArraySize(bms),
        r->sv.n_ligands);
  const cJSON *bm;
  cJSON_ArrayForEach(bm, bms) {
    const cJSON *res = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(bm, "composition"), "residues");
    const cJSON *first = cJSON_GetArrayItem(res, 0);
    const char *ch = cJSON_GetObjectItemCaseSensitive(first, "auth_asym_id")->valuestring;
    int num = atoi(cJSON_GetObjectItemCaseSensitive(first, "auth_seq_id")->valuestring);
    long li = -1;
    for (size_t i = 0; i < r->sv.n_ligands; i++)
      for (uint32_t j = 0; j < r->sv.ligands[i].n_res; j++) {
        const sp_residue *R = lres(r, &r->sv.ligands[i], j);
        if (R->auth_seq_id == num && !strcmp(r->s.chains[R->chain].auth_asym_id, ch)) li = (long)i;
      }
    CHECK(li >= 0, "PDBe bound molecule at %s %d not found", ch, num);
    if (li < 0) continue;
    const sp_ligand *L = &r->sv.ligands[li];
    CHECK((int)L->n_res == cJSON_GetArraySize(res), "%s %d: %u residues, PDBe %d", ch, num, L->n_res, cJSON_GetArraySize(res));
    const cJSON *e;
    cJSON_ArrayForEach(e, res) {
      const char *c2 = cJSON_GetObjectItemCaseSensitive(e, "auth_asym_id")->valuestring;
      int n2 = atoi(cJSON_GetObjectItemCaseSensitive(e, "auth_seq_id")->valuestring);
      const char *comp = cJSON_GetObjectItemCaseSensitive(e, "label_comp_id")->valuestring;
      bool in = false;
      for (uint32_t j = 0; j < L->n_res; j++) {
        const sp_residue *R = lres(r, L, j);
        if (R->auth_seq_id == n2 && !strcmp(r->s.chains[R->chain].auth_asym_id, c2) && !strcmp(R->comp_id, comp)) in = true;
      }
      CHECK(in, "%s %s %d not in our instance", comp, c2, n2);
    }
  }
  cJSON_Delete(root);
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s SHARED_DATA_DIR\n", argv[0]);
    return 2;
  }
  const char *data = argv[1];
  char path[1024];
  snprintf(path, sizeof path, "%s/ccd/components_excerpt.cif", data);
  sp_ccd *ccd = NULL;
  sp_err err = {0};
  if (sp_ccd_open(path, &ccd, &err)) {
    fprintf(stderr, "CCD: %s\n", err.msg);
    return 1;
  }
  run r;

  /* 19HC: 18 haems, one molecule key from the CCD, covalent (LINK to Cys); PLINDER flags */
  load(&r, data, "19hc.pdb.gz", ccd);
  if (r.ok) {
    size_t n_hem = 0;
    const char *key = NULL;
    for (size_t i = 0; i < r.sv.n_ligands; i++) {
      const sp_ligand *L = &r.sv.ligands[i];
      if (strcmp(lres(&r, L, 0)->comp_id, "HEM")) continue;
      n_hem++;
      CHECK(!strcmp(L->key_source, "ccd"), "HEM %zu key source %s", i, L->key_source);
      if (!key) key = L->molecule_key;
      CHECK(!strcmp(key, L->molecule_key), "HEM %zu key %s vs %s", i, L->molecule_key, key);
      CHECK(L->cls == SP_CLASS_COFACTOR, "HEM class %s", sp_ligand_class_name(L->cls));
      CHECK(L->attach_atom >= 0 && !strcmp(r.s.residues[r.s.atom_residue[L->attach_atom]].comp_id, "CYS"),
            "HEM %zu attach atom %lld", i, (long long)L->attach_atom);
    }
    CHECK(n_hem == 18, "%zu haems", n_hem);
    CHECK(key && !strncmp(key, "wl1-", 4) && strstr(key, "-h32"), "haem key %s", key ? key : "");
    int rows = 0;
    check_plinder(&r, data, "19HC", &rows);
    CHECK(rows == 21, "%d PLINDER rows", rows);
    /* PLINDER lists 18 HEM + 3 ACT; the file has 5 ACT (docs/ligands.md: PLINDER keeps only
     * ligands of its systems) */
    CHECK(count_comp(&r, "ACT") == 5, "%zu ACT", count_comp(&r, "ACT"));
    CHECK(r.sv.n_ligands == 23, "%zu ligands", r.sv.n_ligands);
  }
  unload(&r);

  /* 1NGX: two JEF, not ion / artifact / covalent, 41 heavy atoms in the definition */
  load(&r, data, "pdb_00001ngx_xyz-enrich.cif.gz", ccd);
  if (r.ok) {
    int rows = 0;
    check_plinder(&r, data, "1NGX", &rows);
    CHECK(rows == 2, "%d PLINDER rows", rows);
    CHECK(count_comp(&r, "JEF") == 2, "%zu JEF", count_comp(&r, "JEF"));
    CHECK(r.sv.n_ligands == 2, "%zu ligands", r.sv.n_ligands);
  }
  unload(&r);

  /* 5I55 (gemmi tests/test_mol.py): two ligands MPD A101 and ACT, MSE first residue of the
   * polymer with 8 atoms, waters not ligands */
  load(&r, data, "5i55.cif", ccd);
  if (r.ok) {
    CHECK(r.sv.n_ligands == 2, "%zu ligands", r.sv.n_ligands);
    CHECK(count_comp(&r, "MPD") == 1 && count_comp(&r, "ACT") == 1, "MPD %zu ACT %zu", count_comp(&r, "MPD"), count_comp(&r, "ACT"));
    for (size_t i = 0; i < r.sv.n_ligands; i++) {
      const sp_ligand *L = &r.sv.ligands[i];
      CHECK(!strcmp(lchain(&r, L)->auth_asym_id, "A"), "ligand chain %s", lchain(&r, L)->auth_asym_id);
      if (!strcmp(lres(&r, L, 0)->comp_id, "MPD")) {
        CHECK(lres(&r, L, 0)->auth_seq_id == 101, "MPD number %d", lres(&r, L, 0)->auth_seq_id);
        CHECK(!strcmp(lchain(&r, L)->label_asym_id, "B"), "MPD subchain %s", lchain(&r, L)->label_asym_id);
      }
    }
    const sp_residue *R = &r.s.residues[0];
    CHECK(!strcmp(R->comp_id, "MSE") && R->n_atoms == 8 && r.sv.res_role[0] == SP_ROLE_POLYMER, "first residue %s %u atoms role %d",
          R->comp_id, R->n_atoms, r.sv.res_role[0]);
    size_t n_water = 0;
    for (size_t i = 0; i < r.s.n_residues; i++)
      if (!strcmp(r.s.residues[i].comp_id, "HOH")) {
        n_water++;
        CHECK(r.sv.res_role[i] == SP_ROLE_WATER && r.sv.res_ligand[i] < 0, "water role %d", r.sv.res_role[i]);
      }
    CHECK(n_water > 0, "no water");
  }
  unload(&r);

  /* 1PFE (gemmi): CL alone in subchain C, occupancy 0.17, an ion; N2C and NCY both at B3 (microheterogeneity
   * inside the polymer: not ligands) */
  load(&r, data, "1pfe.cif.gz", ccd);
  if (r.ok) {
    size_t n_cl = 0;
    for (size_t i = 0; i < r.sv.n_ligands; i++) {
      const sp_ligand *L = &r.sv.ligands[i];
      if (strcmp(lres(&r, L, 0)->comp_id, "CL")) continue;
      n_cl++;
      uint32_t a = r.sv.atom_refs[L->atom_first];
      CHECK(L->n_atoms == 1 && r.s.element[a] == 17 && r.s.occupancy[a] > 0.169f && r.s.occupancy[a] < 0.171f,
            "CL atoms %u element %u occupancy %.3f", L->n_atoms, r.s.element[a], r.s.occupancy[a]);
      CHECK(!strcmp(lchain(&r, L)->label_asym_id, "C"), "CL subchain %s", lchain(&r, L)->label_asym_id);
      CHECK(L->cls == SP_CLASS_ION && !(L->flags & SP_LIG_ZERO_OCC), "CL class %s flags 0x%x", sp_ligand_class_name(L->cls), L->flags);
    }
    CHECK(n_cl == 1, "%zu CL", n_cl);
    int seen = 0;
    for (size_t i = 0; i < r.s.n_residues; i++) {
      const sp_residue *R = &r.s.residues[i];
      if (R->auth_seq_id != 3 || strcmp(r.s.chains[R->chain].auth_asym_id, "B") || r.s.chains[R->chain].model != 0) continue;
      if (!strcmp(R->comp_id, "N2C")) {
        CHECK(seen == 0, "N2C after NCY");
        seen |= 1;
      }
      if (!strcmp(R->comp_id, "NCY")) seen |= 2;
      if (seen && (seen & 1)) CHECK(r.sv.res_role[i] == SP_ROLE_POLYMER, "%s B3 role %d", R->comp_id, r.sv.res_role[i]);
    }
    CHECK(seen == 3, "microheterogeneity at B3: %d", seen);
  }
  unload(&r);

  /* PDBe bound molecules */
  load(&r, data, "1c4q.cif.gz", ccd);
  if (r.ok) {
    check_pdbe(&r, data, "1c4q_bound_molecules.json");
    for (size_t i = 0; i < r.sv.n_ligands; i++)
      CHECK(r.sv.ligands[i].cls == SP_CLASS_GLYCAN, "1C4Q ligand %zu class %s", i, sp_ligand_class_name(r.sv.ligands[i].cls));
    /* all five trisaccharides are one molecule */
    for (size_t i = 1; i < r.sv.n_ligands; i++)
      CHECK(!strcmp(r.sv.ligands[i].molecule_key, r.sv.ligands[0].molecule_key), "glycan keys %s vs %s",
            r.sv.ligands[i].molecule_key, r.sv.ligands[0].molecule_key);
  }
  unload(&r);
  load(&r, data, "1tqh.cif.gz", ccd);
  if (r.ok) {
    check_pdbe(&r, data, "1tqh_bound_molecules.json");
    for (size_t i = 0; i < r.sv.n_ligands; i++) {
      const sp_ligand *L = &r.sv.ligands[i];
      if (strcmp(lres(&r, L, 0)->comp_id, "4PA")) continue;
      CHECK(L->flags & SP_LIG_COVALENT, "4PA flags 0x%x", L->flags);
      const sp_residue *P = L->attach_atom >= 0 ? &r.s.residues[r.s.atom_residue[L->attach_atom]] : NULL;
      CHECK(P && !strcmp(P->comp_id, "SER") && P->auth_seq_id == 94, "4PA attached to %s %d", P ? P->comp_id : "-",
            P ? P->auth_seq_id : 0);
    }
  }
  unload(&r);

  sp_ccd_close(ccd);
  return sp_test_done("test_survey_real");
}

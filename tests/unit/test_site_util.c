/* Helpers for the site tests: see test_site_util.h. */
#include "test_site_util.h"

#include <ctype.h>
#include <math.h>
#include <string.h>

#include "sitepack/elements.h"
#include "sitepack/result.h"

int tsu_failures = 0;

static int is_water(const char *comp) {
  return !strcmp(comp, "HOH") || !strcmp(comp, "WAT") || !strcmp(comp, "DOD") || !strcmp(comp, "H2O") ||
         !strcmp(comp, "TIP3");
}

static int ion_element(uint8_t z) { return sp_element_is_metal(z) || z == 9 || z == 17 || z == 35 || z == 53; }

int tsu_survey(const sp_structure *s, sp_survey *sv) {
  memset(sv, 0, sizeof *sv);
  size_t nr = s->n_residues ? s->n_residues : 1, na = s->n_atoms ? s->n_atoms : 1;
  sv->res_role = calloc(nr, 1);
  sv->res_altloc = calloc(nr, 1);
  sv->res_ligand = malloc(nr * sizeof *sv->res_ligand);
  sv->ligands = calloc(nr, sizeof *sv->ligands);
  sv->res_refs = malloc(nr * sizeof *sv->res_refs);
  sv->atom_refs = malloc(na * sizeof *sv->atom_refs);
  if (!sv->res_role || !sv->res_altloc || !sv->res_ligand || !sv->ligands || !sv->res_refs || !sv->atom_refs) {
    tsu_survey_free(sv);
    return -1;
  }
  size_t n_atom_refs = 0;
  for (size_t r = 0; r < s->n_residues; r++) {
    const sp_residue *R = &s->residues[r];
    sv->res_ligand[r] = -1;
    /* altloc with the highest summed occupancy; ties: first seen */
    char ids[64];
    float occ[64];
    int n_ids = 0;
    for (size_t a = R->first_atom; a < (size_t)R->first_atom + R->n_atoms; a++) {
      char al = s->altloc[a];
      if (!al) continue;
      int k = 0;
      while (k < n_ids && ids[k] != al) k++;
      if (k == n_ids && n_ids < 64) {
        ids[n_ids] = al;
        occ[n_ids++] = 0;
      }
      if (k < n_ids) occ[k] += s->occupancy[a];
    }
    int best = -1;
    for (int k = 0; k < n_ids; k++)
      if (best < 0 || occ[k] > occ[best]) best = k;
    sv->res_altloc[r] = best >= 0 ? ids[best] : '\0';

    if (is_water(R->comp_id)) {
      sv->res_role[r] = SP_ROLE_WATER;
    } else if (R->all_hetatm) {
      size_t li = sv->n_ligands++;
      sp_ligand *L = &sv->ligands[li];
      memset(L, 0, sizeof *L);
      L->model = s->chains[R->chain].model;
      L->res_first = (uint32_t)li;
      L->n_res = 1;
      sv->res_refs[li] = (uint32_t)r;
      L->atom_first = (uint32_t)n_atom_refs;
      uint8_t last_heavy = 0;
      for (size_t a = R->first_atom; a < (size_t)R->first_atom + R->n_atoms; a++) {
        if (!sp_survey_atom_chosen(s, sv, a)) continue;
        sv->atom_refs[n_atom_refs++] = (uint32_t)a;
        L->n_atoms++;
        if (s->element[a] != 1) {
          L->n_heavy++;
          last_heavy = s->element[a];
        }
      }
      L->altloc = sv->res_altloc[r];
      L->attach_atom = -1;
      L->n_ccd_heavy = -1;
      int ion = L->n_heavy == 1 && ion_element(last_heavy);
      L->cls = ion ? SP_CLASS_ION : SP_CLASS_SMALL_MOLECULE;
      sv->res_role[r] = ion ? SP_ROLE_ION : SP_ROLE_LIGAND;
      sv->res_ligand[r] = (int32_t)li;
    } else {
      sv->res_role[r] = SP_ROLE_POLYMER;
    }
  }
  return 0;
}

void tsu_survey_free(sp_survey *sv) {
  free(sv->res_role);
  free(sv->res_altloc);
  free(sv->res_ligand);
  free(sv->ligands);
  free(sv->res_refs);
  free(sv->atom_refs);
  memset(sv, 0, sizeof *sv);
}

int tsu_add(sp_structure *s, int model, const char *chain, const char *comp, int seq, const char *name, char altloc,
            int element, int hetatm, float x, float y, float z, float occ) {
  sp_atom_in a;
  memset(&a, 0, sizeof a);
  a.model_num = model;
  a.label_asym_id = (sp_sv){chain, strlen(chain)};
  a.auth_asym_id = a.label_asym_id;
  a.entity_id = (sp_sv){"", 0};
  a.comp_id = (sp_sv){comp, strlen(comp)};
  a.label_seq_id = seq;
  a.auth_seq_id = seq;
  a.atom_name = (sp_sv){name, strlen(name)};
  a.altloc = altloc;
  a.element = (uint8_t)element;
  a.hetatm = hetatm != 0;
  a.x = x;
  a.y = y;
  a.z = z;
  a.occupancy = occ;
  sp_err err = {0};
  return sp_structure_add_atom(s, &a, &err) ? -1 : 0;
}

/* strip blanks of a fixed column field */
static sp_sv field(const char *line, size_t len, size_t from, size_t to) {
  if (from >= len) return (sp_sv){line, 0};
  if (to > len) to = len;
  while (from < to && line[from] == ' ') from++;
  while (to > from && (line[to - 1] == ' ' || line[to - 1] == '\n' || line[to - 1] == '\r')) to--;
  return (sp_sv){line + from, to - from};
}

static float fnum(const char *line, size_t len, size_t from, size_t to) {
  char tmp[16];
  sp_sv v = field(line, len, from, to);
  if (v.n == 0 || v.n >= sizeof tmp) return 0.0f;
  memcpy(tmp, v.p, v.n);
  tmp[v.n] = 0;
  return strtof(tmp, NULL);
}

int tsu_load_pdb(const char *path, sp_structure *s) {
  FILE *f = fopen(path, "r");
  if (!f) return -1;
  char line[256];
  int model = 1, rc = 0;
  while (fgets(line, sizeof line, f)) {
    size_t len = strlen(line);
    if (!strncmp(line, "MODEL ", 6)) {
      model = (int)fnum(line, len, 10, 14);
      continue;
    }
    int het = !strncmp(line, "HETATM", 6);
    if (!het && strncmp(line, "ATOM  ", 6)) continue;
    if (len < 54) continue;
    sp_atom_in a;
    memset(&a, 0, sizeof a);
    a.model_num = model;
    a.atom_name = field(line, len, 12, 16);
    a.altloc = line[16] == ' ' ? '\0' : line[16];
    a.comp_id = field(line, len, 17, 21);
    a.label_asym_id = field(line, len, 21, 22);
    a.auth_asym_id = a.label_asym_id;
    a.entity_id = (sp_sv){"", 0};
    a.auth_seq_id = (int32_t)fnum(line, len, 22, 26);
    a.label_seq_id = a.auth_seq_id;
    a.ins_code = (len > 26 && line[26] != ' ') ? line[26] : '\0';
    a.x = fnum(line, len, 30, 38);
    a.y = fnum(line, len, 38, 46);
    a.z = fnum(line, len, 46, 54);
    a.occupancy = len >= 60 ? fnum(line, len, 54, 60) : 1.0f;
    a.hetatm = het;
    sp_sv el = field(line, len, 76, 78);
    if (el.n == 0) { /* no element column: first letter of the atom name */
      sp_sv nm = a.atom_name;
      size_t k = 0;
      while (k < nm.n && !isalpha((unsigned char)nm.p[k])) k++;
      el = (sp_sv){nm.p + k, k < nm.n ? 1 : 0};
    }
    a.element = sp_element_from_symbol(el.p, el.n);
    sp_err err = {0};
    if (sp_structure_add_atom(s, &a, &err)) {
      rc = -1;
      break;
    }
  }
  fclose(f);
  if (rc == 0) {
    sp_err err = {0};
    if (sp_structure_finish(s, &err)) rc = -1;
  }
  return rc;
}

static uint8_t brute_kind(const sp_survey *sv, size_t r) {
  switch (sv->res_role[r]) {
  case SP_ROLE_POLYMER: return SP_RES_KIND_POLYMER;
  case SP_ROLE_LIGAND: return SP_RES_KIND_OTHER_LIGAND;
  case SP_ROLE_ION: return SP_RES_KIND_ION;
  case SP_ROLE_WATER: return SP_RES_KIND_WATER;
  default: return 255;
  }
}

static float d2_of(const float *a, const float *b) {
  float ex = b[0] - a[0], ey = b[1] - a[1], ez = b[2] - a[2];
  return ex * ex + ey * ey + ez * ez;
}

int tsu_check_site(const sp_structure *s, const sp_survey *sv, size_t lig, float cutoff, size_t max_atoms,
                   const sp_site *site) {
  int before = tsu_failures;
  const sp_ligand *L = &sv->ligands[lig];
  const sp_model *m = &s->models[L->model];
  const float c2 = cutoff * cutoff;
  const uint32_t *la = sv->atom_refs + L->atom_first;

  /* heavy atoms, centre */
  size_t n_heavy = 0;
  double c[3] = {0, 0, 0};
  for (size_t k = 0; k < L->n_atoms; k++)
    if (s->element[la[k]] != 1) {
      n_heavy++;
      for (int d = 0; d < 3; d++) c[d] += s->xyz[la[k]][d];
    }
  TSU_CHECK(((site->flags & SP_SITE_NO_HEAVY) != 0) == (n_heavy == 0), "ligand %zu NO_HEAVY flag", lig);
  if (n_heavy)
    for (int d = 0; d < 3; d++)
      TSU_CHECK(site->center[d] == (float)(c[d] / (double)n_heavy), "ligand %zu centre[%d] %g vs %g", lig, d,
                site->center[d], c[d] / (double)n_heavy);

  /* brute-force residue list (file order) and min distances */
  size_t n_exp = 0, n_atoms_exp = L->n_atoms;
  uint32_t *exp_res = malloc((m->n_residues + 1) * sizeof *exp_res);
  float *exp_d2 = malloc((m->n_residues + 1) * sizeof *exp_d2);
  if (!exp_res || !exp_d2) {
    free(exp_res);
    free(exp_d2);
    TSU_CHECK(0, "out of memory");
    return 1;
  }
  for (size_t r = m->first_residue; r < (size_t)m->first_residue + m->n_residues; r++) {
    if (sv->res_ligand[r] == (int32_t)lig) continue;
    const sp_residue *R = &s->residues[r];
    float best = INFINITY;
    size_t n_chosen = 0;
    for (size_t a = R->first_atom; a < (size_t)R->first_atom + R->n_atoms; a++) {
      if (!sp_survey_atom_chosen(s, sv, a)) continue;
      n_chosen++;
      for (size_t k = 0; k < L->n_atoms; k++) {
        if (s->element[la[k]] == 1) continue;
        float d2 = d2_of(s->xyz[la[k]], s->xyz[a]);
        if (d2 < best) best = d2;
      }
    }
    if (best <= c2) {
      exp_res[n_exp] = (uint32_t)r;
      exp_d2[n_exp++] = best;
      n_atoms_exp += n_chosen;
    }
  }

  TSU_CHECK(site->n_res == L->n_res + n_exp, "ligand %zu: %zu residues, expected %u + %zu", lig, site->n_res,
            L->n_res, n_exp);
  if (site->n_res == L->n_res + n_exp) {
    for (size_t k = 0; k < L->n_res; k++) {
      TSU_CHECK(site->res[k].residue == sv->res_refs[L->res_first + k] && site->res[k].kind == SP_RES_KIND_LIGAND &&
                    site->res[k].min_distance == 0.0f,
                "ligand %zu residue %zu", lig, k);
    }
    for (size_t k = 0; k < n_exp; k++) {
      const sp_site_res *sr = &site->res[L->n_res + k];
      TSU_CHECK(sr->residue == exp_res[k], "ligand %zu site residue %zu: %u vs %u", lig, k, sr->residue, exp_res[k]);
      TSU_CHECK(sr->kind == brute_kind(sv, exp_res[k]), "ligand %zu residue %u kind %u", lig, exp_res[k], sr->kind);
      TSU_CHECK(sr->min_distance == sqrtf(exp_d2[k]), "ligand %zu residue %u min distance %g vs %g", lig, exp_res[k],
                sr->min_distance, sqrtf(exp_d2[k]));
    }
  }

  /* atoms */
  int oversize = n_atoms_exp > max_atoms;
  TSU_CHECK(((site->flags & SP_SITE_OVERSIZE) != 0) == oversize, "ligand %zu OVERSIZE flag (%zu atoms)", lig,
            n_atoms_exp);
  TSU_CHECK(site->n_ligand == L->n_atoms, "ligand %zu n_ligand %zu vs %u", lig, site->n_ligand, L->n_atoms);
  size_t want_atoms = oversize ? L->n_atoms : (n_heavy ? n_atoms_exp : L->n_atoms);
  TSU_CHECK(site->n_atoms == want_atoms, "ligand %zu n_atoms %zu vs %zu", lig, site->n_atoms, want_atoms);
  if (site->n_atoms == want_atoms && site->n_res == L->n_res + n_exp) {
    size_t j = 0;
    for (size_t k = 0; k < L->n_atoms; k++, j++)
      TSU_CHECK(site->atoms[j] == la[k] && (site->atom_flags[j] & SP_SITE_ATOM_LIGAND) &&
                    site->res[site->atom_res[j]].residue == s->atom_residue[la[k]],
                "ligand %zu ligand atom %zu", lig, k);
    for (size_t ri = L->n_res; ri < site->n_res && j < site->n_atoms; ri++) {
      const sp_residue *R = &s->residues[site->res[ri].residue];
      for (size_t a = R->first_atom; a < (size_t)R->first_atom + R->n_atoms; a++) {
        if (!sp_survey_atom_chosen(s, sv, a)) continue;
        float best = INFINITY;
        for (size_t k = 0; k < L->n_atoms; k++)
          if (s->element[la[k]] != 1) {
            float d2 = d2_of(s->xyz[la[k]], s->xyz[a]);
            if (d2 < best) best = d2;
          }
        uint16_t f = site->atom_flags[j];
        TSU_CHECK(site->atoms[j] == a && site->atom_res[j] == ri, "ligand %zu atom %zu is %u, expected %zu", lig, j,
                  site->atoms[j], a);
        TSU_CHECK(((f & SP_SITE_ATOM_WITHIN_CUTOFF) != 0) == (best <= c2), "ligand %zu atom %zu within flag", lig, a);
        TSU_CHECK(((f & SP_SITE_ATOM_HYDROGEN) != 0) == (s->element[a] == 1), "atom %zu H flag", a);
        TSU_CHECK(((f & SP_SITE_ATOM_ALTLOC) != 0) == (s->altloc[a] != 0), "atom %zu altloc flag", a);
        TSU_CHECK(((f & SP_SITE_ATOM_HETATM) != 0) == ((s->atom_flags[a] & SP_ATOM_HETATM) != 0), "atom %zu het", a);
        uint8_t kind = site->res[ri].kind;
        uint16_t kf = kind == SP_RES_KIND_POLYMER        ? SP_SITE_ATOM_POLYMER
                      : kind == SP_RES_KIND_OTHER_LIGAND ? SP_SITE_ATOM_OTHER_LIGAND
                      : kind == SP_RES_KIND_ION          ? SP_SITE_ATOM_ION
                                                         : SP_SITE_ATOM_WATER;
        TSU_CHECK((f & 0x1f) == kf, "atom %zu kind flags %x", a, f);
        j++;
      }
    }
    TSU_CHECK(j == site->n_atoms || oversize, "ligand %zu walked %zu of %zu atoms", lig, j, site->n_atoms);
  }
  free(exp_res);
  free(exp_d2);
  return tsu_failures - before;
}

void tsu_residue_ids(const sp_structure *s, uint32_t r, char *chain, size_t chain_cap, char *num, size_t num_cap) {
  const sp_residue *R = &s->residues[r];
  const sp_chain *C = &s->chains[R->chain];
  int use_auth = s->has_auth_ids || !s->has_label_ids;
  snprintf(chain, chain_cap, "%s", use_auth && C->auth_asym_id[0] ? C->auth_asym_id : C->label_asym_id);
  int32_t n = use_auth ? R->auth_seq_id : R->label_seq_id;
  if (n == SP_SEQ_NONE)
    snprintf(num, num_cap, ".");
  else if (R->ins_code)
    snprintf(num, num_cap, "%d%c", (int)n, R->ins_code);
  else
    snprintf(num, num_cap, "%d", (int)n);
}

void tsu_residue_key(const sp_structure *s, uint32_t r, char *out, size_t cap) {
  char chain[16], num[24];
  tsu_residue_ids(s, r, chain, sizeof chain, num, sizeof num);
  snprintf(out, cap, "%s/%s/%s", chain, s->residues[r].comp_id, num);
}

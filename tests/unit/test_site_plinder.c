/* Real-file check against PLINDER's 6 Å neighbourhood (shared/data/reference/plinder/
 * plinder_ligand_pockets.tsv, column neighboring_residues_6A, "neighboring_residue_threshold"
 * 6.0 in the JSON): for each ligand instance of the given entry, the polymer residues of
 * sitepack's site, written as label_asym_id:label_seq_id, must be exactly PLINDER's list
 * ("1.A:34,36;1.B:33" = instance 1, label chains A and B).
 *
 * usage: test_site_plinder TSV CCD_FILE ENTRY STRUCTURE_FILE [PLINDER_ENTRY_JSON]
 *
 * With PLINDER_ENTRY_JSON (for a PDB-format file, which has no label ids), PLINDER's label ids are
 * mapped to author ids through PLINDER's own entry JSON: a polymer residue "label chain X, label_seq n"
 * is chains[X].auth_id + chains[X].residues[n].auth_number; a non-polymer label chain has no residue
 * record there, so the non-polymer label chains of each author chain, in label order (the wwPDB assigns
 * label_asym_id in file order), are paired with sitepack's ligand/ion residues of that author chain in
 * file order; every pairing is checked by comp id (the TSV's ccd_code) and then by the exact
 * neighbourhood itself, so a wrong pairing cannot pass.
 */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sitepack/ccd.h"
#include "sitepack/read.h"
#include "sitepack/site.h"
#include "sitepack/survey.h"
#include "test_site_util.h"

#define MAXN 4096

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* label ids in wwPDB order: shorter first, then alphabetical */
static int cmp_label(const void *a, const void *b) {
  const char *x = *(const char *const *)a, *y = *(const char *const *)b;
  size_t lx = strlen(x), ly = strlen(y);
  return lx != ly ? (lx < ly ? -1 : 1) : strcmp(x, y);
}

static cJSON *load_json(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *t = n > 0 ? malloc((size_t)n + 1) : NULL;
  cJSON *j = NULL;
  /* PLINDER's JSON has bare NaN / Infinity values (Python's json module writes them), which JSON and
   * cJSON refuse: outside strings they are replaced by null (none of those fields is used) */
  char *u = n > 0 ? malloc((size_t)n * 2 + 1) : NULL;
  if (t && u && fread(t, 1, (size_t)n, f) == (size_t)n) {
    t[n] = 0;
    size_t o = 0;
    int in_str = 0;
    for (long i = 0; i < n; i++) {
      if (in_str) {
        u[o++] = t[i];
        if (t[i] == '\\' && i + 1 < n) u[o++] = t[++i];
        else if (t[i] == '"') in_str = 0;
      } else if (t[i] == '"') {
        in_str = 1;
        u[o++] = t[i];
      } else if (!strncmp(t + i, "NaN", 3) || !strncmp(t + i, "-Infinity", 9) || !strncmp(t + i, "Infinity", 8)) {
        memcpy(u + o, "null", 4);
        o += 4;
        i += t[i] == 'N' ? 2 : t[i] == '-' ? 8 : 7;
      } else {
        u[o++] = t[i];
      }
    }
    u[o] = 0;
    j = cJSON_Parse(u);
  }
  free(t);
  free(u);
  fclose(f);
  return j;
}

#define MAXLAB 1024
static char lab_id[MAXLAB][16];
static long lab_res[MAXLAB]; /* label chain -> sitepack residue (non-polymer chains) */
static size_t n_lab;

/* pair PLINDER's non-polymer label chains with sitepack's ligand/ion residues (see the header) */
static void map_ligand_chains(const cJSON *chains, const sp_structure *s, const sp_survey *sv) {
  const char *ids[MAXLAB];
  size_t n = 0;
  for (const cJSON *c = chains ? chains->child : NULL; c && n < MAXLAB; c = c->next) {
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(c, "chain_type_str");
    if (cJSON_IsString(t) && !strcmp(t->valuestring, "non-polymer")) ids[n++] = c->string;
  }
  qsort(ids, n, sizeof *ids, cmp_label);
  const sp_model *m = &s->models[0];
  for (size_t i = 0; i < n; i++) {
    const cJSON *c = cJSON_GetObjectItemCaseSensitive(chains, ids[i]);
    const cJSON *auth = cJSON_GetObjectItemCaseSensitive(c, "auth_id");
    snprintf(lab_id[n_lab], sizeof lab_id[0], "%s", ids[i]);
    lab_res[n_lab] = -1;
    if (cJSON_IsString(auth)) {
      /* the k-th non-polymer label chain of this author chain -> the k-th ligand/ion residue of it */
      size_t k = 0;
      for (size_t q = 0; q < i; q++) {
        const cJSON *a2 = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(chains, ids[q]), "auth_id");
        k += cJSON_IsString(a2) && !strcmp(a2->valuestring, auth->valuestring);
      }
      for (size_t r = m->first_residue; r < (size_t)m->first_residue + m->n_residues; r++) {
        if (sv->res_ligand[r] < 0 || strcmp(s->chains[s->residues[r].chain].auth_asym_id, auth->valuestring)) continue;
        if (k-- == 0) {
          lab_res[n_lab] = (long)r;
          break;
        }
      }
    }
    n_lab++;
  }
}

int main(int argc, char **argv) {
  if (argc != 5 && argc != 6) {
    fprintf(stderr, "usage: %s TSV CCD_FILE ENTRY STRUCTURE_FILE [PLINDER_ENTRY_JSON]\n", argv[0]);
    return 2;
  }
  sp_err err = {0};
  sp_ccd *ccd = NULL;
  TSU_CHECK(sp_ccd_open(argv[2], &ccd, &err) == 0, "%s: %s", argv[2], err.msg);
  sp_structure s;
  memset(&s, 0, sizeof s);
  sp_structure_init(&s);
  sp_buf buf;
  memset(&buf, 0, sizeof buf);
  int fmt = 0;
  int rc = sp_read_structure_file(argv[4], 0, &buf, &s, &fmt, &err);
  sp_buf_free(&buf);
  TSU_CHECK(rc == 0, "%s: %s", argv[4], err.msg);
  sp_survey sv;
  memset(&sv, 0, sizeof sv);
  if (rc == 0) {
    rc = sp_survey_run(&s, ccd, NULL, &sv, &err);
    TSU_CHECK(rc == 0, "survey: %s", err.msg);
  }
  cJSON *pj = NULL, *pchains = NULL;
  if (argc == 6) {
    pj = load_json(argv[5]);
    TSU_CHECK(pj != NULL, "cannot read %s", argv[5]);
    pchains = cJSON_GetObjectItemCaseSensitive(pj, "chains");
    if (rc == 0) map_ligand_chains(pchains, &s, &sv);
  }
  FILE *f = rc == 0 ? fopen(argv[1], "r") : NULL;
  TSU_CHECK(rc != 0 || f != NULL, "cannot open %s", argv[1]);
  sp_site_ws *ws = sp_site_ws_new();
  sp_site site = {0};
  static char line[1 << 16];
  static char ours_buf[MAXN][24], theirs_buf[MAXN][24];
  char *ours[MAXN], *theirs[MAXN];
  size_t n_rows = 0;
  while (f && fgets(line, sizeof line, f)) {
    /* entry system_id ligand_asym_id instance ccd_code is_ion is_artifact is_covalent
       num_heavy_atoms threshold neighboring_residues_6A interacting_residues */
    char *col[12] = {0};
    int nc = 0;
    char *p = line;
    while (nc < 12) {
      col[nc++] = p;
      char *t = strchr(p, '\t');
      if (!t) break;
      *t = 0;
      p = t + 1;
    }
    if (nc < 11 || strcmp(col[0], argv[3])) continue;
    /* the ligand whose first residue is in label chain col[2] with comp col[4] */
    size_t lig = SIZE_MAX;
    if (pchains) {
      for (size_t q = 0; q < n_lab; q++)
        if (!strcmp(lab_id[q], col[2]) && lab_res[q] >= 0 && !strcmp(s.residues[lab_res[q]].comp_id, col[4]))
          lig = (size_t)sv.res_ligand[lab_res[q]];
    } else {
      for (size_t l = 0; l < sv.n_ligands; l++) {
        uint32_t r = sv.res_refs[sv.ligands[l].res_first];
        if (!strcmp(s.chains[s.residues[r].chain].label_asym_id, col[2]) && !strcmp(s.residues[r].comp_id, col[4]))
          lig = l;
      }
    }
    TSU_CHECK(lig != SIZE_MAX, "%s: ligand %s in label chain %s not found", argv[3], col[4], col[2]);
    if (lig == SIZE_MAX) continue;
    rc = sp_site_compute(&s, &sv, lig, NULL, ws, &site, &err);
    TSU_CHECK(rc == 0, "%s", err.msg);
    if (rc) continue;
    TSU_CHECK(sv.ligands[lig].n_heavy > 0, "%s %s: no heavy atom", argv[3], col[2]);
    size_t n_ours = 0, n_theirs = 0;
    for (size_t k = 0; k < site.n_res && n_ours < MAXN; k++) {
      if (site.res[k].kind != SP_RES_KIND_POLYMER) continue;
      const sp_residue *R = &s.residues[site.res[k].residue];
      if (pchains)
        snprintf(ours_buf[n_ours], sizeof ours_buf[0], "%s:%d%c", s.chains[R->chain].auth_asym_id, (int)R->auth_seq_id,
                 R->ins_code ? R->ins_code : ' ');
      else
        snprintf(ours_buf[n_ours], sizeof ours_buf[0], "%s:%d", s.chains[R->chain].label_asym_id, (int)R->label_seq_id);
      ours[n_ours] = ours_buf[n_ours];
      n_ours++;
    }
    /* "1.A:34,36;1.B:33,35" */
    for (char *grp = strtok(col[10], ";"); grp; grp = strtok(NULL, ";")) {
      char *dot = strchr(grp, '.'), *colon = strchr(grp, ':');
      if (!dot || !colon || colon < dot) continue;
      *colon = 0;
      const char *chain = dot + 1;
      char *nums = colon + 1;
      for (char *q = nums; *q && n_theirs < MAXN;) {
        long v = strtol(q, &q, 10);
        if (pchains) {
          /* label chain + label_seq -> author chain + author number (+ insertion code) */
          const cJSON *c = cJSON_GetObjectItemCaseSensitive(pchains, chain);
          const cJSON *auth = cJSON_GetObjectItemCaseSensitive(c, "auth_id");
          char key[24];
          snprintf(key, sizeof key, "%ld", v);
          const cJSON *res = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(c, "residues"), key);
          const cJSON *an = cJSON_GetObjectItemCaseSensitive(res, "auth_number");
          const cJSON *ins = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(res, "validation"), "inscode");
          char ic = cJSON_IsString(ins) && ins->valuestring[0] && strcmp(ins->valuestring, "?") && strcmp(ins->valuestring, ".")
                        ? ins->valuestring[0] : ' ';
          TSU_CHECK(cJSON_IsString(auth) && cJSON_IsString(an), "%s: label %s:%ld not in the PLINDER JSON", argv[3], chain, v);
          snprintf(theirs_buf[n_theirs], sizeof theirs_buf[0], "%s:%s%c", cJSON_IsString(auth) ? auth->valuestring : "?",
                   cJSON_IsString(an) ? an->valuestring : "?", ic);
        } else {
          snprintf(theirs_buf[n_theirs], sizeof theirs_buf[0], "%s:%ld", chain, v);
        }
        theirs[n_theirs] = theirs_buf[n_theirs];
        n_theirs++;
        while (*q == ',' || *q == ' ' || *q == '\n' || *q == '\r') q++;
      }
    }
    qsort(ours, n_ours, sizeof *ours, cmp_str);
    qsort(theirs, n_theirs, sizeof *theirs, cmp_str);
    TSU_CHECK(n_ours == n_theirs, "%s %s: %zu polymer residues, PLINDER %zu", argv[3], col[2], n_ours, n_theirs);
    for (size_t k = 0; k < n_ours && k < n_theirs; k++)
      TSU_CHECK(!strcmp(ours[k], theirs[k]), "%s %s: %s vs PLINDER %s", argv[3], col[2], ours[k], theirs[k]);
    n_rows++;
  }
  if (f) fclose(f);
  TSU_CHECK(n_rows > 0, "no PLINDER row of %s checked", argv[3]);
  sp_site_free(&site);
  sp_site_ws_free(ws);
  sp_survey_free(&sv);
  sp_structure_free(&s);
  if (ccd) sp_ccd_close(ccd);
  cJSON_Delete(pj);
  if (tsu_failures) {
    fprintf(stderr, "test_site_plinder: %d failures\n", tsu_failures);
    return 1;
  }
  printf("test_site_plinder: %zu ligand instances of %s match PLINDER's 6 A neighbourhood\n", n_rows, argv[3]);
  return 0;
}

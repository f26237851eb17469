/* Real-file check against PLINDER's 6 Å neighbourhood (shared/data/reference/plinder/
 * plinder_ligand_pockets.tsv, column neighboring_residues_6A, "neighboring_residue_threshold"
 * 6.0 in the JSON): for each ligand instance of the given entry, the polymer residues of
 * sitepack's site, written as label_asym_id:label_seq_id, must be exactly PLINDER's list
 * ("1.A:34,36;1.B:33" = instance 1, label chains A and B).
 *
 * usage: test_site_plinder TSV CCD_FILE ENTRY STRUCTURE_FILE
 */
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

int main(int argc, char **argv) {
  if (argc != 5) {
    fprintf(stderr, "usage: %s TSV CCD_FILE ENTRY STRUCTURE_FILE\n", argv[0]);
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
    for (size_t l = 0; l < sv.n_ligands; l++) {
      uint32_t r = sv.res_refs[sv.ligands[l].res_first];
      if (!strcmp(s.chains[s.residues[r].chain].label_asym_id, col[2]) && !strcmp(s.residues[r].comp_id, col[4]))
        lig = l;
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
        snprintf(theirs_buf[n_theirs], sizeof theirs_buf[0], "%s:%ld", chain, v);
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
  if (tsu_failures) {
    fprintf(stderr, "test_site_plinder: %d failures\n", tsu_failures);
    return 1;
  }
  printf("test_site_plinder: %zu ligand instances of %s match PLINDER's 6 A neighbourhood\n", n_rows, argv[3]);
  return 0;
}

/* Real-file check against the wwPDB site records (shared/data/reference/wwpdb_sites/
 * struct_site.tsv: mmCIF _struct_site_gen / PDB SITE, generated at deposition with a
 * contact distance of about 4-5 Å). For each "BINDING SITE FOR RESIDUE COMP CHAIN NUM"
 * record of the given files, every non-water member residue must be in sitepack's 6 Å
 * site of the ligand instance holding that residue (model 1, author ids). Records of
 * other kinds ("ZN-BINDING SITE", "CATALYTIC TRIAD", ...) are skipped.
 *
 * The files used are entries whose records need no symmetry mate (some entries list
 * residues of a symmetry image under their asymmetric-unit chain id, which by design is
 * not in a site: DESIGN.md "symmetry mates: not in sites by default").
 *
 * usage: test_site_wwpdb TSV DATA_DIR CCD_FILE FILE...   (FILE as in the TSV's `file` column)
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "sitepack/ccd.h"
#include "sitepack/read.h"
#include "sitepack/site.h"
#include "sitepack/survey.h"
#include "test_site_util.h"

/* Residue of model 1 with author (comp, chain, number+icode), or -1. */
static long find_residue(const sp_structure *s, const char *comp, const char *chain, const char *num) {
  if (s->n_models == 0) return -1;
  const sp_model *m = &s->models[0];
  for (size_t r = m->first_residue; r < (size_t)m->first_residue + m->n_residues; r++) {
    if (strcmp(s->residues[r].comp_id, comp)) continue;
    char c[16], n[24];
    tsu_residue_ids(s, (uint32_t)r, c, sizeof c, n, sizeof n);
    if (!strcmp(c, chain) && !strcmp(n, num)) return (long)r;
  }
  return -1;
}

/* Parse "binding site for residue COMP CHAIN NUM" (any case). @return 1 if it matched. */
static int parse_details(const char *d, char *comp, char *chain, char *num) {
  static const char prefix[] = "binding site for residue ";
  if (strncasecmp(d, prefix, sizeof prefix - 1)) return 0;
  char extra[8];
  int n = sscanf(d + sizeof prefix - 1, "%7s %7s %15s %7s", comp, chain, num, extra);
  return n == 3;
}

int main(int argc, char **argv) {
  if (argc < 5) {
    fprintf(stderr, "usage: %s TSV DATA_DIR CCD_FILE FILE...\n", argv[0]);
    return 2;
  }
  sp_ccd *ccd = NULL;
  sp_err err = {0};
  TSU_CHECK(sp_ccd_open(argv[3], &ccd, &err) == 0, "%s: %s", argv[3], err.msg);
  size_t n_records = 0, n_members = 0;
  sp_site_ws *ws = sp_site_ws_new();
  sp_site site = {0};
  for (int fi = 4; fi < argc; fi++) {
    const char *file = argv[fi];
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", argv[2], file);
    sp_structure s;
    memset(&s, 0, sizeof s);
    sp_structure_init(&s);
    sp_buf buf;
    memset(&buf, 0, sizeof buf);
    int fmt = 0;
    int rc = sp_read_structure_file(path, 0, &buf, &s, &fmt, &err);
    sp_buf_free(&buf);
    TSU_CHECK(rc == 0, "%s: %s", path, err.msg);
    sp_survey sv;
    memset(&sv, 0, sizeof sv);
    if (rc == 0) {
      rc = sp_survey_run(&s, ccd, NULL, &sv, &err);
      TSU_CHECK(rc == 0, "%s: survey: %s", path, err.msg);
    }
    FILE *f = rc == 0 ? fopen(argv[1], "r") : NULL;
    TSU_CHECK(rc != 0 || f != NULL, "cannot open %s", argv[1]);
    static char line[1 << 16];
    size_t n_file_records = 0;
    while (f && fgets(line, sizeof line, f)) {
      /* entry, file, site_id, details, n_members, members */
      char *col[6] = {0};
      char *p = line;
      int nc = 0;
      while (nc < 6) {
        col[nc++] = p;
        char *t = strchr(p, '\t');
        if (!t) break;
        *t = 0;
        p = t + 1;
      }
      if (nc < 6 || strcmp(col[1], file)) continue;
      col[5][strcspn(col[5], "\r\n")] = 0;
      char comp[8], chain[8], num[16];
      if (!parse_details(col[3], comp, chain, num)) continue;
      long r = find_residue(&s, comp, chain, num);
      TSU_CHECK(r >= 0, "%s %s: residue %s %s %s not found", file, col[2], comp, chain, num);
      if (r < 0) continue;
      int32_t lig = sv.res_ligand[r];
      TSU_CHECK(lig >= 0, "%s %s: %s %s %s is not part of a ligand", file, col[2], comp, chain, num);
      if (lig < 0) continue;
      rc = sp_site_compute(&s, &sv, (size_t)lig, NULL, ws, &site, &err);
      TSU_CHECK(rc == 0, "%s: %s", file, err.msg);
      if (rc) continue;
      n_records++;
      n_file_records++;
      for (char *tok = strtok(col[5], " "); tok; tok = strtok(NULL, " ")) {
        char mc[8], mch[8], mn[16];
        if (sscanf(tok, "%7[^:]:%7[^:]:%15s", mc, mch, mn) != 3) continue;
        if (!strcmp(mc, "HOH") || !strcmp(mc, "DOD")) continue;
        long mr = find_residue(&s, mc, mch, mn);
        TSU_CHECK(mr >= 0, "%s %s: member %s not found", file, col[2], tok);
        if (mr < 0) continue;
        int in = 0;
        for (size_t k = 0; k < site.n_res; k++)
          if (site.res[k].residue == (uint32_t)mr) in = 1;
        TSU_CHECK(in, "%s %s (%s): member %s is not in the 6 A site", file, col[2], col[3], tok);
        n_members++;
      }
    }
    if (f) fclose(f);
    TSU_CHECK(rc != 0 || n_file_records > 0, "%s: no binding-site record checked", file);
    sp_survey_free(&sv);
    sp_structure_free(&s);
  }
  sp_site_free(&site);
  sp_site_ws_free(ws);
  if (ccd) sp_ccd_close(ccd);
  if (tsu_failures) {
    fprintf(stderr, "test_site_wwpdb: %d failures\n", tsu_failures);
    return 1;
  }
  printf("test_site_wwpdb: %zu records, %zu member residues inside the 6 A sites\n", n_records, n_members);
  return 0;
}

/* Site chemistry (sitechem.h) on real sites:
 *  - pH: 3PXF ligand 2AN A304 (a sulfonate, -1 at any pH) between Lys56 and His71. From the PROPKA3
 *    model pKa table (His 6.50, Lys 10.50): at pH 4 His71 is +1 (f = 0.997) and both salt bridges
 *    hold, unflagged; at pH 7.4 His71 is neutral (f = 0.112) but |pH - pKa| < 1, so its salt bridge is
 *    kept and flagged ambiguous; at pH 10 His71 is neutral and not ambiguous (no salt bridge) while
 *    Lys56 (f = 0.760) becomes ambiguous. Site charges follow: +1, 0, 0.
 *  - ATP in 1XDN (graph from the CCD): three phosphates (gamma -2 at pH 7.4, alpha/beta diesters -1),
 *    ligand charge -4, adenine rings stacked on Phe209, Mg2+ octahedral with 6 ligands.
 *  - fractions against Henderson–Hasselbalch computed here, model pKa table, oversize sites,
 *    bad arguments.
 * usage: test_site_chem CCD_FILE STRUCTURES_DIR */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sitepack/read.h"
#include "sitepack/site.h"
#include "sitepack/sitechem.h"
#include "sitepack/survey.h"

#include "sp_test.h"

typedef struct fx {
  sp_structure s;
  sp_survey sv;
  sp_site site;
  sp_site_ws *ws;
  sp_chem_ws *cw;
  sp_site_chem ch;
  size_t lig;
} fx;

static sp_ccd *ccd;

static int open_site(fx *f, const char *dir, const char *file, const char *comp, const char *chain, int num) {
  memset(f, 0, sizeof *f);
  sp_structure_init(&f->s);
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", dir, file);
  sp_buf buf;
  memset(&buf, 0, sizeof buf);
  sp_err err = {0};
  int fmt = 0;
  int rc = sp_read_structure_file(path, 0, &buf, &f->s, &fmt, &err);
  sp_buf_free(&buf);
  if (!rc) rc = sp_survey_run(&f->s, ccd, NULL, &f->sv, &err);
  CHECK(rc == 0, "%s: %s", path, err.msg);
  if (rc) return -1;
  for (size_t r = 0; r < f->s.n_residues; r++) {
    const sp_residue *R = &f->s.residues[r];
    if (!comp ? f->sv.res_ligand[r] == 0 : !strcmp(R->comp_id, comp) && (!comp || (R->auth_seq_id == num && !strcmp(f->s.chains[R->chain].auth_asym_id, chain))) &&
        f->sv.res_ligand[r] >= 0) {
      f->lig = (size_t)f->sv.res_ligand[r];
      f->ws = sp_site_ws_new();
      f->cw = sp_chem_ws_new();
      rc = sp_site_compute(&f->s, &f->sv, f->lig, NULL, f->ws, &f->site, &err);
      CHECK(rc == 0, "%s", err.msg);
      return rc ? -1 : 0;
    }
  }
  CHECK(0, "%s: ligand %s %s %d not found", file, comp ? comp : "(first)", chain ? chain : "", num);
  return -1;
}

static void close_site(fx *f) {
  sp_site_free(&f->site);
  sp_site_chem_free(&f->ch);
  sp_site_ws_free(f->ws);
  sp_chem_ws_free(f->cw);
  sp_survey_free(&f->sv);
  sp_structure_free(&f->s);
}

static int chem_at(fx *f, double ph) {
  sp_chem_opts o;
  sp_chem_opts_default(&o);
  o.ph = ph;
  sp_err err = {0};
  int rc = sp_site_chem_compute(&f->s, &f->sv, f->lig, &f->site, ccd, &o, f->cw, &f->ch, &err);
  CHECK(rc == 0, "%s", err.msg);
  return rc;
}

static const sp_titr_group *group_of(fx *f, int kind, int resnum) {
  for (size_t g = 0; g < f->ch.n_groups; g++) {
    const sp_titr_group *G = &f->ch.groups[g];
    uint32_t a = f->site.atoms[G->head];
    if (G->kind == kind && f->s.residues[f->s.atom_residue[a]].auth_seq_id == resnum) return G;
  }
  return NULL;
}

/* salt bridge row with partner residue resnum: its flags + 1, or 0 when absent */
static int salt_bridge(fx *f, int resnum) {
  for (size_t k = 0; k < f->ch.n_ix; k++) {
    const sp_interaction *x = &f->ch.ix[k];
    if (x->type != SP_IX_SALT_BRIDGE) continue;
    uint32_t a = f->site.atoms[x->site_atom];
    if (f->s.residues[f->s.atom_residue[a]].auth_seq_id == resnum) return x->flags + 1;
  }
  return 0;
}

static double hh(double ph, double pka) { return 1.0 / (1.0 + pow(10.0, ph - pka)); }

static void test_ph(const char *dir) {
  fx f;
  if (open_site(&f, dir, "3pxf.pdb", "2AN", "A", 304)) return;
  const double phs[3] = {4.0, 7.4, 10.0};
  const int his_q[3] = {1, 0, 0}, his_amb[3] = {0, 1, 0}, lys_amb[3] = {0, 0, 1}, site_q[3] = {1, 0, 0};
  const int his_sb[3] = {1, 1, 0};
  for (int i = 0; i < 3; i++) {
    if (chem_at(&f, phs[i])) break;
    const sp_titr_group *his = group_of(&f, SP_TG_HIS, 71), *lys = group_of(&f, SP_TG_LYS, 56);
    const sp_titr_group *so3 = group_of(&f, SP_TG_L_SULFONATE, 304);
    CHECK(his && lys && so3, "pH %.1f: groups His71 %p Lys56 %p sulfonate %p", phs[i], (void *)his, (void *)lys,
          (void *)so3);
    if (!his || !lys || !so3) break;
    CHECK(fabs(his->frac_protonated - hh(phs[i], 6.5)) < 1e-5, "pH %.1f His f %f", phs[i], his->frac_protonated);
    CHECK(fabs(lys->frac_protonated - hh(phs[i], 10.5)) < 1e-5, "pH %.1f Lys f %f", phs[i], lys->frac_protonated);
    CHECK(his->charge == his_q[i] && his->ambiguous == his_amb[i], "pH %.1f His q %d amb %d", phs[i], his->charge,
          his->ambiguous);
    CHECK(lys->charge == 1 && lys->ambiguous == lys_amb[i], "pH %.1f Lys q %d amb %d", phs[i], lys->charge, lys->ambiguous);
    CHECK(so3->charge == -1 && isnan(so3->pka), "sulfonate %d", so3->charge);
    CHECK(f.ch.ligand_charge == -1 && f.ch.site_charge == site_q[i], "pH %.1f charges %d %d", phs[i], f.ch.ligand_charge,
          f.ch.site_charge);
    int sb_his = salt_bridge(&f, 71), sb_lys = salt_bridge(&f, 56);
    CHECK((sb_his != 0) == his_sb[i], "pH %.1f His71 salt bridge %d", phs[i], sb_his);
    if (sb_his) CHECK(((sb_his - 1) & SP_IXF_AMBIGUOUS) == (his_amb[i] ? SP_IXF_AMBIGUOUS : 0), "His71 flag");
    CHECK(sb_lys != 0 && ((sb_lys - 1) & SP_IXF_LIG_NEGATIVE), "pH %.1f Lys56 salt bridge %d", phs[i], sb_lys);
    if (sb_lys) CHECK(((sb_lys - 1) & SP_IXF_AMBIGUOUS) == (lys_amb[i] ? SP_IXF_AMBIGUOUS : 0), "Lys56 flag");
    /* per-atom: the head atom carries the group charge */
    CHECK(f.ch.charge_ph[his->head] == his_q[i], "His head charge %d", f.ch.charge_ph[his->head]);
    printf("test_site_chem pH %.1f: His71 f=%.3f q=%d, Lys56 f=%.3f, site charge %d, salt bridges His71 %s Lys56 %s\n",
           phs[i], his->frac_protonated, his->charge, lys->frac_protonated, f.ch.site_charge,
           sb_his ? "yes" : "no", sb_lys ? "yes" : "no");
  }
  /* contacts: Lys56 (3.6 Å charge-centre distance) is in contact; burial is positive and below the free SASA */
  int lys_contact = 0;
  for (size_t r = 0; r < f.site.n_res; r++)
    if (f.s.residues[f.site.res[r].residue].auth_seq_id == 56 && f.ch.res_contact[r]) lys_contact = 1;
  CHECK(lys_contact, "Lys56 not in contact");
  CHECK(f.ch.sasa_free_total > 300 && f.ch.sasa_complex_total < f.ch.sasa_free_total && f.ch.sasa_complex_total > 0,
        "SASA %f %f", f.ch.sasa_free_total, f.ch.sasa_complex_total);
  close_site(&f);
}

static void test_atp(const char *dir) {
  fx f;
  if (open_site(&f, dir, "1xdn.pdb", "ATP", "A", 501)) return;
  if (chem_at(&f, 7.4) == 0) {
    CHECK(f.ch.flags & SP_CHEMF_GRAPH_CCD, "graph not from the CCD (%x)", f.ch.flags);
    int nph = 0, q = 0;
    for (size_t g = 0; g < f.ch.n_groups; g++)
      if (f.ch.groups[g].ligand && f.ch.groups[g].kind == SP_TG_L_PHOSPHATE) nph++, q += f.ch.groups[g].charge;
    CHECK(nph == 3 && q == -4 && f.ch.ligand_charge == -4, "phosphates %d charge %d ligand %d", nph, q, f.ch.ligand_charge);
    int stack = 0, mg = 0, geom = 0;
    for (size_t k = 0; k < f.ch.n_ix; k++) {
      const sp_interaction *x = &f.ch.ix[k];
      uint32_t a = f.site.atoms[x->site_atom];
      const sp_residue *R = &f.s.residues[f.s.atom_residue[a]];
      if ((x->type == SP_IX_PI_STACK_P || x->type == SP_IX_PI_STACK_T) && R->auth_seq_id == 209) stack++;
      if (x->type == SP_IX_METAL && !strcmp(R->comp_id, "MG")) {
        mg++;
        geom = x->geometry;
        CHECK(x->coordination == 6 && x->distance < 3.0f, "Mg cn %d d %f", x->coordination, x->distance);
      }
    }
    CHECK(stack == 1, "Phe209 stacking rows %d", stack);
    CHECK(mg == 2 && geom == SP_GEOM_OCTAHEDRAL, "Mg rows %d geometry %s", mg, sp_geometry_name(geom));
  }
  /* oversize: only ligand atoms kept; no interactions, ligand groups and SASA still there */
  sp_site_opts so = {6.0f, 40, false, false};
  sp_err err = {0};
  CHECK(sp_site_compute(&f.s, &f.sv, f.lig, &so, f.ws, &f.site, &err) == 0, "%s", err.msg);
  CHECK(f.site.flags & SP_SITE_OVERSIZE, "not oversize");
  if (chem_at(&f, 7.4) == 0) {
    CHECK((f.ch.flags & SP_CHEMF_OVERSIZE) && f.ch.n_ix == 0 && f.ch.ligand_charge == -4 && f.ch.sasa_complex_total > 0,
          "oversize: flags %x ix %zu charge %d", f.ch.flags, f.ch.n_ix, f.ch.ligand_charge);
  }
  /* bad arguments */
  CHECK(sp_site_chem_compute(NULL, &f.sv, 0, &f.site, ccd, NULL, f.cw, &f.ch, &err) == SP_E_INVALID, "NULL s");
  CHECK(sp_site_chem_compute(&f.s, &f.sv, f.sv.n_ligands, &f.site, ccd, NULL, f.cw, &f.ch, &err) == SP_E_INVALID,
        "lig out of range");
  close_site(&f);
}

/* The SASA environment holds only the cells the SASA of the model's ligands (as listed when it was built)
 * reads: built while the survey lists only the first ligand, then used for every other ligand (same
 * pointers), it must fall back on the whole model and give the SASA of a fresh workspace, bit for bit. */
static void test_env_cells(const char *dir, const char *file) {
  fx f;
  if (open_site(&f, dir, file, NULL, NULL, 0)) return;
  sp_site_ws *ws2 = sp_site_ws_new();
  sp_chem_ws *cw2 = sp_chem_ws_new();
  sp_site site2 = {0};
  sp_site_chem ch2 = {0};
  sp_err err = {0};
  size_t n_lig = f.sv.n_ligands, n_checked = 0;
  for (size_t l = 1; l < n_lig; l++) {
    if (f.sv.ligands[l].model != f.sv.ligands[0].model) continue;
    /* reference: fresh workspaces */
    sp_site_ws_free(ws2), sp_chem_ws_free(cw2);
    ws2 = sp_site_ws_new(), cw2 = sp_chem_ws_new();
    int rc = sp_site_compute(&f.s, &f.sv, l, NULL, ws2, &site2, &err);
    if (!rc) rc = sp_site_chem_compute(&f.s, &f.sv, l, &site2, ccd, NULL, cw2, &ch2, &err);
    CHECK(rc == 0, "%s", err.msg);
    if (rc) continue;
    /* environment built around ligand 0 alone, then ligand l */
    f.sv.n_ligands = 1;
    rc = sp_site_compute(&f.s, &f.sv, 0, NULL, f.ws, &f.site, &err);
    if (!rc) rc = sp_site_chem_compute(&f.s, &f.sv, 0, &f.site, ccd, NULL, f.cw, &f.ch, &err);
    f.sv.n_ligands = n_lig;
    if (!rc) rc = sp_site_compute(&f.s, &f.sv, l, NULL, f.ws, &f.site, &err);
    if (!rc) rc = sp_site_chem_compute(&f.s, &f.sv, l, &f.site, ccd, NULL, f.cw, &f.ch, &err);
    CHECK(rc == 0, "%s", err.msg);
    if (rc) continue;
    CHECK(f.ch.n_atoms == ch2.n_atoms && !memcmp(f.ch.sasa_free, ch2.sasa_free, ch2.n_atoms * sizeof(float)) &&
              !memcmp(f.ch.sasa_complex, ch2.sasa_complex, ch2.n_atoms * sizeof(float)),
          "%s ligand %zu: SASA %g / %g, fresh workspace %g / %g", file, l, (double)f.ch.sasa_free_total,
          (double)f.ch.sasa_complex_total, (double)ch2.sasa_free_total, (double)ch2.sasa_complex_total);
    n_checked++;
  }
  CHECK(n_checked > 0, "%s: no second ligand", file);
  sp_site_free(&site2);
  sp_site_chem_free(&ch2);
  sp_site_ws_free(ws2);
  sp_chem_ws_free(cw2);
  close_site(&f);
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s CCD_FILE STRUCTURES_DIR\n", argv[0]);
    return 2;
  }
  sp_err err = {0};
  if (sp_ccd_open(argv[1], &ccd, &err)) {
    fprintf(stderr, "%s\n", err.msg);
    return 1;
  }
  /* PROPKA3 model pKa table (propka.cfg) */
  CHECK(sp_tg_model_pka(SP_TG_ASP) == 3.80 && sp_tg_model_pka(SP_TG_GLU) == 4.50 && sp_tg_model_pka(SP_TG_HIS) == 6.50 &&
            sp_tg_model_pka(SP_TG_CYS) == 9.00 && sp_tg_model_pka(SP_TG_TYR) == 10.00 &&
            sp_tg_model_pka(SP_TG_LYS) == 10.50 && sp_tg_model_pka(SP_TG_ARG) == 12.50 &&
            sp_tg_model_pka(SP_TG_NTERM) == 8.00 && sp_tg_model_pka(SP_TG_CTERM) == 3.20,
        "protein pKa table");
  CHECK(isnan(sp_tg_model_pka(SP_TG_L_QUAT)) && isnan(sp_tg_model_pka(SP_TG_L_SULFONATE)), "permanent groups");
  CHECK(!strcmp(sp_ix_type_name(SP_IX_PI_STACK_T), "pi_stack_t") && !strcmp(sp_ix_type_name(99), "unknown"), "names");
  CHECK(!strcmp(sp_geometry_name(SP_GEOM_SQUARE_PYRAMIDAL), "square.pyramidal"), "geometry name");
  test_ph(argv[2]);
  test_atp(argv[2]);
  test_env_cells(argv[2], "1xdn.pdb");
  sp_ccd_close(ccd);
  return sp_test_done("test_site_chem");
}

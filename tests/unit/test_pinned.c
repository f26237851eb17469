/* Boundaries and pinned defaults of the pipeline, on small structures written here in PDB format
 * (every expected value below is worked out by hand from the coordinates, not by the library):
 *
 *  - defaults: sp_task_opts_default (cutoff 6.0 Å, 12000 site atoms, pH 7.4: DESIGN.md "Defaults and
 *    policies", docs/usage.md), sp_chem_opts_default (pH 7.4, 960 points, probe 1.4 Å: sitechem.h), and
 *    every SP_PLIP_* threshold against the same name in PLIP's own plip/basic/config.py (given as an
 *    argument: Debian's plip package), so that a changed threshold is seen whatever its value;
 *  - the site cutoff: atoms at exactly 6.000 Å along x, y and z are in the site (d² <= cutoff²,
 *    docs/sites.md), 6.001 Å is out, 5.999 Å is in, with NULL options (the default) and with
 *    cutoff 0 (the default too); the minimum distance recorded is 6.0 exactly; max_atoms at exactly
 *    the site size is not oversize, one less is;
 *  - residue identity: residues 1 and 1A of the same comp_id and chain without a repeated atom name are
 *    two residues and two ligands (the insertion code alone tells them apart);
 *  - covalent ligands across chains: LIG B 1 -- LIG C 1001 joined by a LINK are one instance of two
 *    residues (a four-digit number: the LINK columns 53-56 read exactly); LIG D 1 (no LINK, 1.6 Å
 *    away) is another;
 *  - metal_bound: a ZN LINKed to a polymer atom is flagged whether it is the first or the second
 *    partner of the record, an unlinked ZN is not;
 *  - a LINK to residue 1A joins 1A, not residue 1 of the same comp, chain and atom names;
 *  - peptide ligands: next to a 40-residue receptor, a chain of exactly 20 residues is one peptide
 *    ligand, one of 21 stays polymer (docs/ligands.md, PLINDER's cut-off of 20);
 *  - metals: sp_element_is_metal for every Z against the groups of the periodic table;
 *  - classes: CMO (two heavy atoms) is not an ion, ZN is;
 *  - the altloc: highest MEAN occupancy, the best conformer not the first in the file (B over A,
 *    C over A and B, A with 2 atoms at 0.6 over B with 4 atoms at 0.4, where the sum would pick B),
 *    a tie to the first;
 *  - SASA with the default options: one isolated carbon (ligand C with its partner atoms 20 Å away)
 *    has the whole sphere 4 pi (1.70 + 1.4)² Å² (Bondi radius of C + the default probe);
 *  - the SASA environment's box: one occluding carbon at 4.0-6.3 Å of a ligand carbon, on the high x and the
 *    low y face of the ligand's box, buries the analytic spherical cap 2 pi R (R - d/2), nothing from 6.2 Å;
 *  - PLIP limits, inclusive as docs/sites.md writes them (d <= limit): a ligand hydroxyl O to a SER OG
 *    at 4.00, 4.05, 4.10 Å is an H-bond each way (two rows, one per donor), at 4.12 Å is none; a ligand C to an ALA CB at 3.95 and 4.00 Å
 *    is hydrophobic, at 4.02 Å is not.
 *
 * usage: test_pinned CCD_FILE PLIP_CONFIG_PY */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sitepack/elements.h"
#include "sitepack/read.h"
#include "sitepack/site.h"
#include "sitepack/sitechem.h"
#include "sitepack/survey.h"
#include "sitepack/pipeline.h"

#include "sp_test.h"

static sp_ccd *g_ccd;

/* ---------------------------------------------------------------- PDB text */

typedef struct pdbtext {
  char *p;
  size_t n, cap;
  int serial;
} pdbtext;

static void put(pdbtext *t, const char *line) {
  size_t l = strlen(line);
  if (t->n + l + 1 > t->cap) {
    t->cap = (t->n + l + 1) * 2;
    t->p = realloc(t->p, t->cap);
    if (!t->p) exit(2);
  }
  memcpy(t->p + t->n, line, l + 1);
  t->n += l;
}

/* One ATOM/HETATM record in the fixed columns of the PDB format (name: 4 columns as written there). */
static void atom(pdbtext *t, int het, const char *name, char alt, const char *comp, char chain, int seq, char icode,
                 double x, double y, double z, double occ, const char *el) {
  char l[128];
  snprintf(l, sizeof l, "%-6s%5d %-4s%c%3s %c%4d%c   %8.3f%8.3f%8.3f%6.2f%6.2f          %2s\n", het ? "HETATM" : "ATOM",
           ++t->serial, name, alt ? alt : ' ', comp, chain, seq, icode ? icode : ' ', x, y, z, occ, 20.0, el);
  put(t, l);
}

typedef struct fx {
  sp_structure s;
  sp_survey sv;
  sp_site_ws *ws;
  sp_site site;
  sp_chem_ws *cw;
  sp_site_chem ch;
} fx;

static int load(fx *f, pdbtext *t) {
  memset(f, 0, sizeof *f);
  put(t, "END\n");
  sp_structure_init(&f->s);
  sp_err err = {0};
  int fmt = 0;
  int rc = sp_read_structure_text(t->p, t->n, &f->s, &fmt, &err);
  if (!rc) rc = sp_survey_run(&f->s, g_ccd, NULL, &f->sv, &err);
  CHECK(rc == 0, "read + survey: %s", err.msg);
  free(t->p);
  memset(t, 0, sizeof *t);
  f->ws = sp_site_ws_new();
  f->cw = sp_chem_ws_new();
  return rc;
}

static void unload(fx *f) {
  sp_site_free(&f->site);
  sp_site_chem_free(&f->ch);
  sp_site_ws_free(f->ws);
  sp_chem_ws_free(f->cw);
  sp_survey_free(&f->sv);
  sp_structure_free(&f->s);
}

/* the ligand whose first residue is comp/chain/seq/icode, -1 if none */
static long ligand_of(const fx *f, const char *comp, char chain, int seq, char icode) {
  for (size_t r = 0; r < f->s.n_residues; r++) {
    const sp_residue *R = &f->s.residues[r];
    if (!strcmp(R->comp_id, comp) && f->s.chains[R->chain].auth_asym_id[0] == chain && R->auth_seq_id == seq &&
        R->ins_code == icode)
      return f->sv.res_ligand[r];
  }
  return -1;
}

/* is residue comp/chain/seq in the site (as a site residue), and its min distance */
static int in_site(const fx *f, const char *comp, char chain, int seq, float *dmin) {
  for (size_t k = 0; k < f->site.n_res; k++) {
    const sp_residue *R = &f->s.residues[f->site.res[k].residue];
    if (!strcmp(R->comp_id, comp) && f->s.chains[R->chain].auth_asym_id[0] == chain && R->auth_seq_id == seq) {
      if (dmin) *dmin = f->site.res[k].min_distance;
      return 1;
    }
  }
  return 0;
}

/* ---------------------------------------------------------------- defaults */

/* NAME = number in PLIP's config.py; NAN when absent */
static double plip_value(const char *cfg, const char *name) {
  size_t l = strlen(name);
  for (const char *p = cfg; (p = strstr(p, name)); p += l) {
    if ((p != cfg && p[-1] != '\n') || (p[l] != ' ' && p[l] != '=')) continue;
    const char *q = p + l;
    while (*q == ' ') q++;
    if (*q != '=') continue;
    return strtod(q + 1, NULL);
  }
  return NAN;
}

static void test_defaults(const char *plip_cfg_path) {
  sp_task_opts to;
  sp_task_opts_default(&to);
  CHECK(to.cutoff == 6.0f, "task default cutoff %g (DESIGN.md: 6.0 Å)", (double)to.cutoff);
  CHECK(to.max_site_atoms == 12000, "task default max site atoms %zu (12000)", (size_t)to.max_site_atoms);
  CHECK(to.ph == 7.4, "task default pH %g (7.4)", to.ph);
  sp_chem_opts co;
  memset(&co, 0xff, sizeof co);
  sp_chem_opts_default(&co);
  CHECK(co.ph == 7.4, "chem default pH %g", co.ph);
  CHECK(co.sasa_points == 960, "chem default SASA points %d (960)", co.sasa_points);
  CHECK(co.probe == 1.4f, "chem default probe %g Å (1.4)", (double)co.probe);

  char *cfg = slurp(plip_cfg_path, NULL);
  CHECK(cfg != NULL, "cannot read PLIP's config %s (Debian package plip)", plip_cfg_path);
  if (!cfg) return;
  struct {
    const char *name;
    double ours;
  } t[] = {
      {"MIN_DIST", SP_PLIP_MIN_DIST},
      {"HYDROPH_DIST_MAX", SP_PLIP_HYDROPH_DIST_MAX},
      {"HBOND_DIST_MAX", SP_PLIP_HBOND_DIST_MAX},
      {"HBOND_DON_ANGLE_MIN", SP_PLIP_HBOND_DON_ANGLE_MIN},
      {"PISTACK_DIST_MAX", SP_PLIP_PISTACK_DIST_MAX},
      {"PISTACK_ANG_DEV", SP_PLIP_PISTACK_ANG_DEV},
      {"PISTACK_OFFSET_MAX", SP_PLIP_PISTACK_OFFSET_MAX},
      {"PICATION_DIST_MAX", SP_PLIP_PICATION_DIST_MAX},
      {"SALTBRIDGE_DIST_MAX", SP_PLIP_SALTBRIDGE_DIST_MAX},
      {"HALOGEN_DIST_MAX", SP_PLIP_HALOGEN_DIST_MAX},
      {"HALOGEN_ACC_ANGLE", SP_PLIP_HALOGEN_ACC_ANGLE},
      {"HALOGEN_DON_ANGLE", SP_PLIP_HALOGEN_DON_ANGLE},
      {"HALOGEN_ANGLE_DEV", SP_PLIP_HALOGEN_ANGLE_DEV},
      {"WATER_BRIDGE_MINDIST", SP_PLIP_WATER_BRIDGE_MINDIST},
      {"WATER_BRIDGE_MAXDIST", SP_PLIP_WATER_BRIDGE_MAXDIST},
      {"METAL_DIST_MAX", SP_PLIP_METAL_DIST_MAX},
      {"AROMATIC_PLANARITY", SP_PLIP_AROMATIC_PLANARITY},
  };
  for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
    double v = plip_value(cfg, t[i].name);
    CHECK(!isnan(v), "%s not in %s", t[i].name, plip_cfg_path);
    CHECK((float)v == (float)t[i].ours, "SP_PLIP_%s = %g, PLIP's config.py %g", t[i].name, t[i].ours, v);
  }
  free(cfg);
}

/* ---------------------------------------------------------------- site cutoff */

/* ligand LIG A 100: C1 (10,10,10), C2 (8.5,10,10); ALA residues of chain A (one CA each, a polymer of
 * several residues): 1 at x = 16.000 (6.000 from C1), 2 at y = 16.000, 3 at z = 16.000, 4 at y = 3.999
 * (6.001), 5 at z = 4.001 (5.999), 6 at x = 16.001 (6.001), 7 far away. */
static void cutoff_structure(fx *f) {
  pdbtext t = {0};
  const double at[7][3] = {{16, 10, 10}, {10, 16, 10}, {10, 10, 16}, {10, 3.999, 10},
                           {10, 10, 4.001}, {16.001, 10, 10}, {40, 40, 40}};
  for (int r = 0; r < 7; r++) atom(&t, 0, " CA ", 0, "ALA", 'A', r + 1, 0, at[r][0], at[r][1], at[r][2], 1, " C");
  atom(&t, 1, " C1 ", 0, "LIG", 'A', 100, 0, 10, 10, 10, 1, " C");
  atom(&t, 1, " C2 ", 0, "LIG", 'A', 100, 0, 8.5, 10, 10, 1, " C");
  load(f, &t);
}

static void check_cutoff_site(fx *f, const sp_site_opts *o, const char *what) {
  long lig = ligand_of(f, "LIG", 'A', 100, 0);
  CHECK(lig >= 0 && f->sv.n_ligands == 1, "%s: one ligand (%zu)", what, f->sv.n_ligands);
  if (lig < 0) return;
  sp_err err = {0};
  int rc = sp_site_compute(&f->s, &f->sv, (size_t)lig, o, f->ws, &f->site, &err);
  CHECK(rc == 0, "%s: %s", what, err.msg);
  if (rc) return;
  const int expect[7] = {1, 1, 1, 0, 1, 0, 0};
  for (int r = 0; r < 7; r++) {
    float d = -1;
    int in = in_site(f, "ALA", 'A', r + 1, &d);
    CHECK(in == expect[r], "%s: ALA %d in site %d, expected %d (d = %.4f)", what, r + 1, in, expect[r], (double)d);
    if (in && r < 3) CHECK(d == 6.0f, "%s: ALA %d min distance %.7g, expected 6 exactly", what, r + 1, (double)d);
  }
  CHECK(f->site.n_res == 5 && f->site.n_atoms == 6, "%s: %zu residues, %zu atoms (5, 6)", what, f->site.n_res,
        f->site.n_atoms);
}

static void test_cutoff(void) {
  fx f;
  cutoff_structure(&f);
  check_cutoff_site(&f, NULL, "NULL options");
  sp_site_opts o = {0, 0, false, false};
  check_cutoff_site(&f, &o, "cutoff 0 (default)");
  sp_task_opts to;
  sp_task_opts_default(&to);
  sp_site_opts o2 = {to.cutoff, to.max_site_atoms, false, false};
  check_cutoff_site(&f, &o2, "task defaults");
  /* max_atoms: exactly the site's 6 atoms is not oversize; 5 is */
  long lig = ligand_of(&f, "LIG", 'A', 100, 0);
  sp_err err = {0};
  sp_site_opts o3 = {6.0f, 6, false, false};
  CHECK(lig >= 0 && sp_site_compute(&f.s, &f.sv, (size_t)lig, &o3, f.ws, &f.site, &err) == 0, "%s", err.msg);
  CHECK(!(f.site.flags & SP_SITE_OVERSIZE) && f.site.n_atoms == 6, "max_atoms 6: flags %u, %zu atoms", f.site.flags,
        f.site.n_atoms);
  sp_site_opts o4 = {6.0f, 5, false, false};
  CHECK(lig >= 0 && sp_site_compute(&f.s, &f.sv, (size_t)lig, &o4, f.ws, &f.site, &err) == 0, "%s", err.msg);
  CHECK((f.site.flags & SP_SITE_OVERSIZE) && f.site.n_atoms == 2 && f.site.n_res == 5,
        "max_atoms 5: flags %u, %zu atoms, %zu residues", f.site.flags, f.site.n_atoms, f.site.n_res);
  /* a smaller cutoff: 5.999 Å is in at 5.999, nothing at 5.998 */
  sp_site_opts o5 = {5.999f, 0, false, false};
  CHECK(lig >= 0 && sp_site_compute(&f.s, &f.sv, (size_t)lig, &o5, f.ws, &f.site, &err) == 0, "%s", err.msg);
  CHECK(f.site.n_res == 2 && in_site(&f, "ALA", 'A', 5, NULL), "cutoff 5.999: %zu residues (2)", f.site.n_res);
  unload(&f);
}

/* ---------------------------------------------------------------- residues */

static void test_insertion_codes(void) {
  pdbtext t = {0};
  atom(&t, 1, " C1 ", 0, "LIG", 'A', 1, 0, 0, 0, 0, 1, " C");
  atom(&t, 1, " C2 ", 0, "LIG", 'A', 1, 0, 1.5, 0, 0, 1, " C");
  atom(&t, 1, " C3 ", 0, "LIG", 'A', 1, 'A', 20, 0, 0, 1, " C");
  atom(&t, 1, " C4 ", 0, "LIG", 'A', 1, 'A', 21.5, 0, 0, 1, " C");
  atom(&t, 1, " C5 ", 0, "LIG", 'A', 1, 'B', 40, 0, 0, 1, " C");
  atom(&t, 1, " C6 ", 0, "LIG", 'A', 1, 'B', 41.5, 0, 0, 1, " C");
  fx f;
  if (load(&f, &t)) return;
  CHECK(f.s.n_residues == 3, "residues 1, 1A, 1B: %zu residues (3)", f.s.n_residues);
  CHECK(f.sv.n_ligands == 3, "residues 1, 1A, 1B: %zu ligands (3)", f.sv.n_ligands);
  long a = ligand_of(&f, "LIG", 'A', 1, 0), b = ligand_of(&f, "LIG", 'A', 1, 'A'), c = ligand_of(&f, "LIG", 'A', 1, 'B');
  CHECK(a >= 0 && b >= 0 && c >= 0 && a != b && b != c && a != c, "ligands %ld %ld %ld", a, b, c);
  for (size_t l = 0; l < f.sv.n_ligands; l++)
    CHECK(f.sv.ligands[l].n_atoms == 2 && f.sv.ligands[l].n_res == 1, "ligand %zu: %u atoms, %u residues", l,
          f.sv.ligands[l].n_atoms, f.sv.ligands[l].n_res);
  unload(&f);
}

static void test_cross_chain_covalent(void) {
  pdbtext t = {0};
  put(&t, "LINK         C2  LIG B   1                 C3  LIG C1001     1555   1555  1.50\n");
  atom(&t, 1, " C1 ", 0, "LIG", 'B', 1, 0, 0, 0, 0, 1, " C");
  atom(&t, 1, " C2 ", 0, "LIG", 'B', 1, 0, 1.5, 0, 0, 1, " C");
  atom(&t, 1, " C3 ", 0, "LIG", 'C', 1001, 0, 3.0, 0, 0, 1, " C");
  atom(&t, 1, " C4 ", 0, "LIG", 'C', 1001, 0, 4.5, 0, 0, 1, " C");
  atom(&t, 1, " C5 ", 0, "LIG", 'D', 1, 0, 6.1, 0, 0, 1, " C");
  atom(&t, 1, " C6 ", 0, "LIG", 'D', 1, 0, 7.6, 0, 0, 1, " C");
  fx f;
  if (load(&f, &t)) return;
  CHECK(f.s.n_conns == 1, "%zu connections (1)", f.s.n_conns);
  long b = ligand_of(&f, "LIG", 'B', 1, 0), c = ligand_of(&f, "LIG", 'C', 1001, 0), d = ligand_of(&f, "LIG", 'D', 1, 0);
  CHECK(f.sv.n_ligands == 2, "%zu ligands (B1+C1001 linked, D1)", f.sv.n_ligands);
  CHECK(b >= 0 && b == c && d >= 0 && d != b, "ligand of B1 %ld, C1001 %ld, D1 %ld", b, c, d);
  if (b >= 0 && b == c) {
    const sp_ligand *L = &f.sv.ligands[b];
    CHECK(L->n_res == 2 && L->n_atoms == 4 && (L->flags & SP_LIG_MULTI_RESIDUE) && !(L->flags & SP_LIG_COVALENT),
          "B1+C1: %u residues, %u atoms, flags %u", L->n_res, L->n_atoms, L->flags);
  }
  unload(&f);
}

/* peptide ligands (docs/ligands.md "Peptides", PLINDER's polymer_cutoff = 20): next to a receptor of 40
 * residues, a chain of exactly 20 residues is one peptide ligand, a chain of 21 stays polymer. Residues
 * N, CA, C along x with peptide bonds C(i)-N(i+1) of 1.3 Å; chains 30 Å apart. */
static void peptide_chain(pdbtext *t, char chain, int n, double y) {
  for (int i = 0; i < n; i++) {
    double x = 3.8 * i;
    atom(t, 0, " N  ", 0, "ALA", chain, i + 1, 0, x, y, 0, 1, " N");
    atom(t, 0, " CA ", 0, "ALA", chain, i + 1, 0, x + 1.2, y, 0, 1, " C");
    atom(t, 0, " C  ", 0, "ALA", chain, i + 1, 0, x + 2.5, y, 0, 1, " C");
  }
}

static void test_peptides(void) {
  pdbtext t = {0};
  peptide_chain(&t, 'A', 40, 0);
  peptide_chain(&t, 'B', 21, 30);
  peptide_chain(&t, 'C', 20, 60);
  fx f;
  if (load(&f, &t)) return;
  CHECK(f.sv.n_ligands == 1, "%zu ligands: the 20-residue chain C only", f.sv.n_ligands);
  long c = ligand_of(&f, "ALA", 'C', 1, 0), b = ligand_of(&f, "ALA", 'B', 1, 0);
  CHECK(c >= 0 && f.sv.ligands[c].cls == SP_CLASS_PEPTIDE && f.sv.ligands[c].n_res == 20,
        "chain C (20 residues): ligand %ld class %s, %u residues", c, c >= 0 ? sp_ligand_class_name(f.sv.ligands[c].cls) : "-",
        c >= 0 ? f.sv.ligands[c].n_res : 0);
  CHECK(b < 0, "chain B (21 residues) is a ligand (%ld), expected polymer", b);
  unload(&f);
}

/* metals (elements.h: alkali, alkaline earth, transition, post-transition metals, lanthanides, actinides;
 * B, Si, Ge, As, Sb, Te, and the non-metals, are not), from the groups of the periodic table, every Z */
static void test_metals(void) {
  for (int z = 0; z <= 118; z++) {
    int alkali = z == 3 || z == 11 || z == 19 || z == 37 || z == 55 || z == 87;
    int earth = z == 4 || z == 12 || z == 20 || z == 38 || z == 56 || z == 88;
    int transition = (z >= 21 && z <= 30) || (z >= 39 && z <= 48) || (z >= 72 && z <= 80) || (z >= 104 && z <= 112);
    int post = z == 13 || z == 31 || z == 49 || z == 50 || (z >= 81 && z <= 84) || (z >= 113 && z <= 116);
    int f_block = (z >= 57 && z <= 71) || (z >= 89 && z <= 103);
    int want = alkali || earth || transition || post || f_block;
    CHECK(sp_element_is_metal((uint8_t)z) == (want != 0), "Z %d: metal %d, expected %d", z,
          sp_element_is_metal((uint8_t)z), want);
  }
}

/* a two-heavy-atom component (CMO, carbon monoxide, in the CCD excerpt) is not an ion; ZN is */
static void test_ion_class(void) {
  pdbtext t = {0};
  atom(&t, 1, " C  ", 0, "CMO", 'A', 1, 0, 0, 0, 0, 1, " C");
  atom(&t, 1, " O  ", 0, "CMO", 'A', 1, 0, 1.13, 0, 0, 1, " O");
  atom(&t, 1, "ZN  ", 0, " ZN", 'A', 2, 0, 20, 0, 0, 1, "ZN");
  fx f;
  if (load(&f, &t)) return;
  long c = ligand_of(&f, "CMO", 'A', 1, 0), z = ligand_of(&f, "ZN", 'A', 2, 0);
  CHECK(c >= 0 && f.sv.ligands[c].cls != SP_CLASS_ION, "CMO: class %s, not an ion",
        c >= 0 ? sp_ligand_class_name(f.sv.ligands[c].cls) : "-");
  CHECK(z >= 0 && f.sv.ligands[z].cls == SP_CLASS_ION, "ZN: class %s, an ion",
        z >= 0 ? sp_ligand_class_name(f.sv.ligands[z].cls) : "-");
  unload(&f);
}

/* a LINK to residue 1A is not a LINK to residue 1 (same comp, chain, number and atom names) */
static void test_link_insertion_code(void) {
  pdbtext t = {0};
  put(&t, "LINK         C2  LIG B   1A                C1  LIG C   5     1555   1555  1.50\n");
  atom(&t, 1, " C1 ", 0, "LIG", 'B', 1, 0, 0, 0, 0, 1, " C");
  atom(&t, 1, " C2 ", 0, "LIG", 'B', 1, 0, 1.5, 0, 0, 1, " C");
  atom(&t, 1, " C1 ", 0, "LIG", 'B', 1, 'A', 20, 0, 0, 1, " C");
  atom(&t, 1, " C2 ", 0, "LIG", 'B', 1, 'A', 21.5, 0, 0, 1, " C");
  atom(&t, 1, " C1 ", 0, "LIG", 'C', 5, 0, 23, 0, 0, 1, " C");
  atom(&t, 1, " C2 ", 0, "LIG", 'C', 5, 0, 24.5, 0, 0, 1, " C");
  fx f;
  if (load(&f, &t)) return;
  long b1 = ligand_of(&f, "LIG", 'B', 1, 0), b1a = ligand_of(&f, "LIG", 'B', 1, 'A'), c5 = ligand_of(&f, "LIG", 'C', 5, 0);
  CHECK(f.sv.n_ligands == 2 && b1a >= 0 && b1a == c5 && b1 >= 0 && b1 != b1a,
        "LINK B 1A -- C 5: %zu ligands, B1 %ld, B1A %ld, C5 %ld (expected B1A = C5, B1 alone)", f.sv.n_ligands, b1, b1a,
        c5);
  unload(&f);
}

/* metal_bound whichever partner of the LINK the metal is: ASP OD1 -> ZN 101 (metal second), ZN 102 -> HIS
 * NE2 (metal first); ZN 103, linked to nothing, is not metal-bound. Chain A (ASP 10, HIS 11, ALA 12) is
 * a polymer. */
static void test_metal_bound(void) {
  pdbtext t = {0};
  put(&t, "LINK         OD1 ASP A  10                ZN    ZN A 101     1555   1555  2.10\n");
  put(&t, "LINK        ZN    ZN A 102                 NE2 HIS A  11     1555   1555  2.10\n");
  atom(&t, 0, " CA ", 0, "ASP", 'A', 10, 0, 0, 0, 0, 1, " C");
  atom(&t, 0, " OD1", 0, "ASP", 'A', 10, 0, 1.5, 0, 0, 1, " O");
  atom(&t, 0, " CA ", 0, "HIS", 'A', 11, 0, 0, 10, 0, 1, " C");
  atom(&t, 0, " NE2", 0, "HIS", 'A', 11, 0, 1.5, 10, 0, 1, " N");
  atom(&t, 0, " CA ", 0, "ALA", 'A', 12, 0, 0, 20, 0, 1, " C");
  atom(&t, 1, "ZN  ", 0, "ZN", 'A', 101, 0, 3.6, 0, 0, 1, "ZN");
  atom(&t, 1, "ZN  ", 0, "ZN", 'A', 102, 0, 3.6, 10, 0, 1, "ZN");
  atom(&t, 1, "ZN  ", 0, "ZN", 'A', 103, 0, 3.6, 30, 0, 1, "ZN");
  fx f;
  if (load(&f, &t)) return;
  const int num[3] = {101, 102, 103}, want[3] = {1, 1, 0};
  for (int i = 0; i < 3; i++) {
    long l = ligand_of(&f, "ZN", 'A', num[i], 0);
    CHECK(l >= 0 && ((f.sv.ligands[l].flags & SP_LIG_METAL_BOUND) != 0) == want[i],
          "ZN %d: metal_bound %d, expected %d", num[i], l >= 0 ? (f.sv.ligands[l].flags & SP_LIG_METAL_BOUND) != 0 : -1,
          want[i]);
  }
  unload(&f);
}

/* ---------------------------------------------------------------- altlocs */

static void test_altlocs(void) {
  pdbtext t = {0};
  /* E1: A 0.30, B 0.70 -> B (second) */
  atom(&t, 1, " C1 ", 'A', "LIG", 'E', 1, 0, 0, 0, 0, 0.30, " C");
  atom(&t, 1, " C2 ", 'A', "LIG", 'E', 1, 0, 1.5, 0, 0, 0.30, " C");
  atom(&t, 1, " C1 ", 'B', "LIG", 'E', 1, 0, 0, 0.5, 0, 0.70, " C");
  atom(&t, 1, " C2 ", 'B', "LIG", 'E', 1, 0, 1.5, 0.5, 0, 0.70, " C");
  /* F1: A 0.20, B 0.30, C 0.50 -> C (third) */
  const char alts[3] = {'A', 'B', 'C'};
  const double occ3[3] = {0.20, 0.30, 0.50};
  for (int k = 0; k < 3; k++) {
    atom(&t, 1, " C1 ", alts[k], "LIG", 'F', 1, 0, 20, k * 0.3, 0, occ3[k], " C");
    atom(&t, 1, " C2 ", alts[k], "LIG", 'F', 1, 0, 21.5, k * 0.3, 0, occ3[k], " C");
  }
  /* G1: A two atoms at 0.60 (mean 0.6, sum 1.2), B four atoms at 0.40 (mean 0.4, sum 1.6) -> A */
  atom(&t, 1, " C1 ", 'A', "LIG", 'G', 1, 0, 40, 0, 0, 0.60, " C");
  atom(&t, 1, " C2 ", 'A', "LIG", 'G', 1, 0, 41.5, 0, 0, 0.60, " C");
  atom(&t, 1, " C1 ", 'B', "LIG", 'G', 1, 0, 40, 0.4, 0, 0.40, " C");
  atom(&t, 1, " C2 ", 'B', "LIG", 'G', 1, 0, 41.5, 0.4, 0, 0.40, " C");
  atom(&t, 1, " C3 ", 'B', "LIG", 'G', 1, 0, 43, 0.4, 0, 0.40, " C");
  atom(&t, 1, " C4 ", 'B', "LIG", 'G', 1, 0, 44.5, 0.4, 0, 0.40, " C");
  /* H1: B 0.50 then A 0.50 -> B (a tie goes to the first in the file); a blank-altloc atom C0 always in */
  atom(&t, 1, " C0 ", 0, "LIG", 'H', 1, 0, 60, 1.5, 0, 1.00, " C");
  atom(&t, 1, " C1 ", 'B', "LIG", 'H', 1, 0, 60, 0, 0, 0.50, " C");
  atom(&t, 1, " C1 ", 'A', "LIG", 'H', 1, 0, 60, 0.3, 0, 0.50, " C");
  fx f;
  if (load(&f, &t)) return;
  struct {
    char chain, alt;
    unsigned n_atoms;
  } want[] = {{'E', 'B', 2}, {'F', 'C', 2}, {'G', 'A', 2}, {'H', 'B', 2}};
  CHECK(f.sv.n_ligands == 4, "%zu ligands (4)", f.sv.n_ligands);
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
    long l = ligand_of(&f, "LIG", want[i].chain, 1, 0);
    CHECK(l >= 0, "ligand %c1", want[i].chain);
    if (l < 0) continue;
    const sp_ligand *L = &f.sv.ligands[l];
    CHECK(L->altloc == want[i].alt, "ligand %c1: altloc '%c', expected '%c'", want[i].chain, L->altloc ? L->altloc : '.',
          want[i].alt);
    CHECK(L->n_atoms == want[i].n_atoms && (L->flags & SP_LIG_ALTLOC), "ligand %c1: %u atoms (%u), flags %u",
          want[i].chain, L->n_atoms, want[i].n_atoms, L->flags);
    for (uint32_t k = 0; k < L->n_atoms; k++) {
      char a = f.s.altloc[f.sv.atom_refs[L->atom_first + k]];
      CHECK(a == 0 || a == want[i].alt, "ligand %c1: atom of altloc '%c' chosen", want[i].chain, a);
    }
  }
  unload(&f);
}

/* ---------------------------------------------------------------- site chemistry */

static int chem_of(fx *f, long lig, const sp_chem_opts *o) {
  sp_err err = {0};
  int rc = lig < 0 ? -1 : sp_site_compute(&f->s, &f->sv, (size_t)lig, NULL, f->ws, &f->site, &err);
  if (!rc) rc = sp_site_chem_compute(&f->s, &f->sv, (size_t)lig, &f->site, g_ccd, o, f->cw, &f->ch, &err);
  CHECK(rc == 0, "site chemistry of ligand %ld: %s", lig, err.msg);
  return rc;
}

static void test_sasa_default(void) {
  pdbtext t = {0};
  atom(&t, 0, " CA ", 0, "ALA", 'A', 1, 0, 40, 40, 40, 1, " C");
  atom(&t, 0, " CA ", 0, "ALA", 'A', 2, 0, 43.8, 40, 40, 1, " C");
  atom(&t, 1, " C1 ", 0, "LIG", 'A', 100, 0, 0, 0, 0, 1, " C");
  atom(&t, 1, " C2 ", 0, "LIG", 'A', 100, 0, 20, 0, 0, 1, " C"); /* its own residue, not bonded: far */
  fx f;
  if (load(&f, &t)) return;
  const double r = 1.70 + 1.4, full = 4.0 * M_PI * r * r;
  for (int pass = 0; pass < 2; pass++) {
    sp_chem_opts o = {7.4, 0, 0.0f, 0, NULL}; /* pass 1: zero probe / points = the defaults */
    if (chem_of(&f, ligand_of(&f, "LIG", 'A', 100, 0), pass ? &o : NULL)) break;
    CHECK(f.site.n_ligand == 2, "%zu ligand atoms", f.site.n_ligand);
    for (size_t k = 0; k < f.site.n_ligand && k < f.ch.n_atoms; k++)
      CHECK(fabs(f.ch.sasa_free[k] - full) < 1e-3 * full && fabs(f.ch.sasa_complex[k] - full) < 1e-3 * full,
            "pass %d atom %zu: SASA free %.3f, complex %.3f Å², expected 4 pi (1.70 + 1.4)^2 = %.3f", pass, k,
            (double)f.ch.sasa_free[k], (double)f.ch.sasa_complex[k], full);
  }
  unload(&f);
}

/* The SASA environment at the edge of its box (issue 33 item 9): sp_chem_burial collects the occluders inside
 * the ligand's box grown by reach = r_lig + r_env,max + 2 probe (src/site/sitechem_burial.c), which for a lone
 * carbon among carbons is 1.70 + 1.70 + 2.8 = 6.2 Å, exactly the distance below which one carbon occludes the
 * other's probe sphere. One ALA CA along +x or -y (the box's high and low faces) at d Å from ligand atom C1:
 * the area it buries is the spherical cap of C1's expanded sphere (R = 1.70 + 1.4) inside the occluder's,
 * 2 pi R h with h = R - d / 2 (equal radii; the analytic two-sphere result that any Shrake-Rupley count
 * approaches), here 0.97 Å² at 6.1 Å, the cap of about 8 of the 960 points; at 6.3 Å nothing is buried.
 * A box margin cut by a probe (4.8 Å) or by r_env drops the occluders from 4.8 (resp. 4.5) Å on. */
static void test_sasa_box_edge(void) {
  const double R = 1.70 + 1.4, full = 4.0 * M_PI * R * R, point = full / 960.0;
  const double ds[] = {4.0, 5.0, 5.6, 6.0, 6.1, 6.3};
  for (int face = 0; face < 2; face++)
    for (size_t i = 0; i < sizeof ds / sizeof ds[0]; i++) {
      const double d = ds[i];
      pdbtext t = {0};
      atom(&t, 0, " CA ", 0, "ALA", 'A', 1, 0, face ? 0 : d, face ? -d : 0, 0, 1, " C");
      atom(&t, 1, " C1 ", 0, "LIG", 'A', 100, 0, 0, 0, 0, 1, " C");
      atom(&t, 1, " C2 ", 0, "LIG", 'A', 100, 0, 0, 0, -20, 1, " C"); /* far: C1 is on the box's x and y faces */
      fx f;
      if (load(&f, &t)) return;
      long lig = ligand_of(&f, "LIG", 'A', 100, 0);
      if (chem_of(&f, lig, NULL)) {
        unload(&f);
        return;
      }
      size_t k1 = f.site.n_ligand; /* C1's index on the site block */
      for (size_t k = 0; k < f.site.n_ligand; k++)
        if (!strcmp(f.s.atom_name[f.site.atoms[k]], "C1")) k1 = k;
      CHECK(k1 < f.ch.n_atoms, "face %d d %.2f: ligand atom C1 on the site block", face, d);
      if (k1 >= f.ch.n_atoms) {
        unload(&f);
        return;
      }
      const double h = d < 2 * R ? R - d / 2 : 0, want = 2 * M_PI * R * h;
      const double got = (double)f.ch.sasa_free[k1] - (double)f.ch.sasa_complex[k1];
      /* a cap's count of golden-spiral points is off by at most a few points (and by about 1 %) */
      CHECK(fabs((double)f.ch.sasa_free[k1] - full) < 1e-3 * full, "face %d d %.2f: free SASA of C1 %.3f Å² (%.3f)",
            face, d, (double)f.ch.sasa_free[k1], full);
      CHECK(fabs(got - want) <= 3 * point + 0.02 * want && (want == 0) == (got == 0),
            "face %d d %.2f Å: C1 buried by the occluder %.3f Å², analytic cap 2 pi R h = %.3f Å² (one point %.3f)",
            face, d, got, want, point);
      unload(&f);
    }
}

static int count_ix(const fx *f, int type) {
  int n = 0;
  for (size_t k = 0; k < f->ch.n_ix; k++) n += f->ch.ix[k].type == type;
  return n;
}

/* One PLIP distance limit: for each distance d[i] (Å) the structure @p build writes, the rows of
   interaction @p type of the ligand (@p comp, @p chain, @p seq) are counted: want[i] rows exactly, or with
   @p any_row "some" (want 1) / "none" (want 0). @p what names the pair, @p rule the limit, in the message. */
typedef struct limit_case {
  const char *what, *rule, *comp;
  char chain;
  int seq, type, any_row;
  void (*build)(pdbtext *t, double d);
} limit_case;

static void check_limit(const limit_case *lc, const double *d, const int *want, int n_d) {
  for (int i = 0; i < n_d; i++) {
    pdbtext t = {0};
    lc->build(&t, d[i]);
    fx f;
    if (load(&f, &t)) return;
    if (!chem_of(&f, ligand_of(&f, lc->comp, lc->chain, lc->seq, 0), NULL)) {
      int n = count_ix(&f, lc->type), got = lc->any_row ? n > 0 : n;
      CHECK(got == want[i], "%s %.2f Å: %d rows, expected %s%d (%s)", lc->what, d[i], n, lc->any_row ? "rows > 0 = " : "",
            want[i], lc->rule);
    }
    unload(&f);
  }
}

/* ligand MOH-like C1-O1 along x (C1 at -1.43, O1 at 0); SER A 2 with CB-OG along x beyond OG at distance d
 * from O1 (the angles C1-O1...OG and CB-OG...O1 are 180°); two ALA residues of chain A make it a polymer. */
static void build_hbond(pdbtext *t, double d) {
  atom(t, 0, " CA ", 0, "ALA", 'A', 1, 0, 30, 30, 30, 1, " C");
  atom(t, 0, " N  ", 0, "SER", 'A', 2, 0, d + 2.9, 1.2, 0, 1, " N");
  atom(t, 0, " CA ", 0, "SER", 'A', 2, 0, d + 2.6, 0, 0, 1, " C");
  atom(t, 0, " CB ", 0, "SER", 'A', 2, 0, d + 1.43, 0, 0, 1, " C");
  atom(t, 0, " OG ", 0, "SER", 'A', 2, 0, d, 0, 0, 1, " O");
  atom(t, 0, " CA ", 0, "ALA", 'A', 3, 0, 33.8, 30, 30, 1, " C");
  atom(t, 1, " C1 ", 0, "LIG", 'A', 100, 0, -1.43, 0, 0, 1, " C");
  atom(t, 1, " O1 ", 0, "LIG", 'A', 100, 0, 0, 0, 0, 1, " O");
}

static void test_hbond_limit(void) {
  const double d[] = {4.00, 4.05, 4.10, 4.12};
  const int want[] = {2, 2, 2, 0}; /* O1 and OG are donors and acceptors: a row for each donor */
  const limit_case lc = {"O1...OG H-bond", "d <= 4.1 Å", "LIG", 'A', 100, SP_IX_HBOND, 0, build_hbond};
  check_limit(&lc, d, want, 4);
}

/* ligand C1-C2 (ethane-like, carbons bonded to C only) and ALA A 2 CB at distance d from C1 along x */
static void build_hydrophobic(pdbtext *t, double d) {
  atom(t, 0, " CA ", 0, "ALA", 'A', 1, 0, 30, 30, 30, 1, " C");
  atom(t, 0, " N  ", 0, "ALA", 'A', 2, 0, d + 2.4, 1.3, 0, 1, " N");
  atom(t, 0, " CA ", 0, "ALA", 'A', 2, 0, d + 1.53, 0, 0, 1, " C");
  atom(t, 0, " CB ", 0, "ALA", 'A', 2, 0, d, 0, 0, 1, " C");
  atom(t, 0, " CA ", 0, "ALA", 'A', 3, 0, 33.8, 30, 30, 1, " C");
  atom(t, 1, " C1 ", 0, "LIG", 'A', 100, 0, 0, 0, 0, 1, " C");
  atom(t, 1, " C2 ", 0, "LIG", 'A', 100, 0, -1.53, 0, 0, 1, " C");
}

static void test_hydrophobic_limit(void) {
  const double d[] = {3.95, 4.00, 4.02};
  const int want[] = {1, 1, 0};
  const limit_case lc = {"C1...CB hydrophobic", "d <= 4.0 Å", "LIG", 'A', 100, SP_IX_HYDROPHOBIC, 0, build_hydrophobic};
  check_limit(&lc, d, want, 3);
}

/* metal complexes at the PLIP limit (metal-O <= 3.0 Å, docs/sites.md): a ZN ligand between ASP A 10 OD1
 * and ASP A 12 OD1 on a line (linear), both at d: metal rows at 2.80 and 3.00 Å, none at 3.05 Å */
static void build_metal(pdbtext *t, double d) {
  atom(t, 0, " CA ", 0, "ASP", 'A', 10, 0, -d - 2.5, 0, 0, 1, " C");
  atom(t, 0, " CG ", 0, "ASP", 'A', 10, 0, -d - 1.25, 0, 0, 1, " C");
  atom(t, 0, " OD1", 0, "ASP", 'A', 10, 0, -d, 0, 0, 1, " O");
  atom(t, 0, " CA ", 0, "ALA", 'A', 11, 0, 0, 20, 0, 1, " C");
  atom(t, 0, " CA ", 0, "ASP", 'A', 12, 0, d + 2.5, 0, 0, 1, " C");
  atom(t, 0, " CG ", 0, "ASP", 'A', 12, 0, d + 1.25, 0, 0, 1, " C");
  atom(t, 0, " OD1", 0, "ASP", 'A', 12, 0, d, 0, 0, 1, " O");
  atom(t, 1, "ZN  ", 0, "ZN", 'B', 1, 0, 0, 0, 0, 1, "ZN");
}

static void test_metal_limit(void) {
  const double d[] = {2.80, 3.00, 3.05};
  const int want[] = {1, 1, 0};
  const limit_case lc = {"ZN...OD1 metal", "metal-O <= 3.0 Å", "ZN", 'B', 1, SP_IX_METAL, 1, build_metal};
  check_limit(&lc, d, want, 3);
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: test_pinned CCD_FILE PLIP_CONFIG_PY\n");
    return 2;
  }
  sp_err err = {0};
  if (sp_ccd_open(argv[1], &g_ccd, &err)) {
    fprintf(stderr, "test_pinned: %s: %s\n", argv[1], err.msg);
    return 1;
  }
  test_defaults(argv[2]);
  test_cutoff();
  test_insertion_codes();
  test_cross_chain_covalent();
  test_altlocs();
  test_link_insertion_code();
  test_metal_bound();
  test_peptides();
  test_metals();
  test_ion_class();
  test_sasa_default();
  test_sasa_box_edge();
  test_hbond_limit();
  test_hydrophobic_limit();
  test_metal_limit();
  sp_ccd_close(g_ccd);
  return sp_test_done("test_pinned");
}

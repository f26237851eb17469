/* Site chemistry: the driver and what the public header names (sp_site_chem_compute's steps live in
 * sitechem_*.c, listed in sitechem_internal.h). See include/sitepack/sitechem.h and docs/sites.md
 * ("Site chemistry"). */
#include "site/sitechem_internal.h"

/* ------------------------------------------------------------------ names, tables */

const char *sp_ix_type_name(int t) {
  static const char *n[SP_IX_COUNT] = {"unknown", "hydrophobic", "hbond", "salt_bridge", "pi_stack_parallel",
                                       "pi_stack_t", "pi_cation", "halogen", "water_bridge", "metal"};
  return t > 0 && t < SP_IX_COUNT ? n[t] : "unknown";
}

const char *sp_geometry_name(int g) {
  static const char *n[SP_GEOM_COUNT] = {"none", "linear", "trigonal.planar", "trigonal.pyramidal", "tetrahedral",
                                         "square.planar", "trigonal.bipyramidal", "square.pyramidal", "octahedral"};
  return g >= 0 && g < SP_GEOM_COUNT ? n[g] : "none";
}

const char *sp_tg_name(int k) {
  static const char *n[SP_TG_COUNT] = {"none", "asp", "glu", "his", "cys", "tyr", "lys", "arg", "n_term", "c_term",
                                       "carboxyl", "amine", "quaternary_ammonium", "phosphate", "sulfonate",
                                       "guanidine", "amidine", "aromatic_n", "thiol"};
  return k > 0 && k < SP_TG_COUNT ? n[k] : "none";
}

/* PROPKA3 propka.cfg model_pkas (Olsson et al. 2011). */
double sp_tg_model_pka(int k) {
  switch (k) {
    case SP_TG_ASP: return 3.80;
    case SP_TG_GLU: return 4.50;
    case SP_TG_HIS: return 6.50;
    case SP_TG_CYS: return 9.00;
    case SP_TG_TYR: return 10.00;
    case SP_TG_LYS: return 10.50;
    case SP_TG_ARG: return 12.50;
    case SP_TG_NTERM: return 8.00;
    case SP_TG_CTERM: return 3.20;
    case SP_TG_L_CARBOXYL: return 4.50;   /* OCO */
    case SP_TG_L_AMINE: return 10.00;     /* N30-N33 */
    case SP_TG_L_PHOSPHATE: return 6.00;  /* OP */
    case SP_TG_L_GUANIDINE: return 11.50; /* CG */
    case SP_TG_L_AMIDINE: return 11.50;   /* C2N */
    case SP_TG_L_AROM_N: return 5.00;     /* NAR */
    case SP_TG_L_THIOL: return 10.00;     /* SH */
    default: return NAN;
  }
}

void sp_chem_opts_default(sp_chem_opts *o) {
  o->ph = 7.4;
  o->sasa_points = 960;
  o->probe = 1.4f;
  o->plip_all_lists = 0;
  o->bonds = NULL;
}

/* ------------------------------------------------------------------ workspace */

sp_chem_ws *sp_chem_ws_new(void) { return calloc(1, sizeof(sp_chem_ws)); }

void sp_chem_ws_free(sp_chem_ws *w) {
  if (!w) return;
  free(w->ln); free(w->lmap); free(w->nsite); free(w->dmap); free(w->rings); free(w->cand);
  free(w->cand_x); free(w->cand_y); free(w->cand_z); free(w->cand_r); free(w->cand_hit);
  free(w->res_first); free(w->res_n); free(w->coord); free(w->excl); free(w->linked); free(w->wb); free(w->wb1); free(w->wb_keep);
  sp_bond_list_free(&w->bonds);
  sp_chem_burial_free(w->burial);
  free(w);
}

void sp_site_chem_free(sp_site_chem *c) {
  if (!c) return;
  free(c->atom_chem); free(c->pka); free(c->frac_protonated); free(c->charge_ph);
  free(c->sasa_free); free(c->sasa_complex); free(c->res_contact); free(c->groups); free(c->ix);
  memset(c, 0, sizeof *c);
}


/* ------------------------------------------------------------------ driver */

/* the site's indices are in range (sp_site_chem_compute's SP_E_INVALID) */
static int check_args(const sp_structure *s, const sp_survey *sv, size_t lig, const sp_site *site, sp_err *err) {
  if (lig >= sv->n_ligands) return sp_err_set(err, SP_E_INVALID, "site chemistry: ligand %zu out of range", lig);
  if (site->n_ligand > site->n_atoms) return sp_err_set(err, SP_E_INVALID, "site chemistry: bad site");
  for (size_t k = 0; k < site->n_atoms; k++)
    if (site->atoms[k] >= s->n_atoms || site->atom_res[k] >= site->n_res)
      return sp_err_set(err, SP_E_INVALID, "site chemistry: site atom %zu out of range", k);
  for (size_t r = 0; r < site->n_res; r++)
    if (site->res[r].residue >= s->n_residues)
      return sp_err_set(err, SP_E_INVALID, "site chemistry: site residue %zu out of range", r);
  return 0;
}

/* the options with defaults for what is unset or out of range */
static sp_chem_opts effective_opts(const sp_chem_opts *opts) {
  sp_chem_opts o;
  sp_chem_opts_default(&o);
  if (opts) {
    if (isfinite(opts->ph)) o.ph = opts->ph;
    if (opts->sasa_points > 0 && opts->sasa_points <= 100000) o.sasa_points = opts->sasa_points;
    if (opts->probe > 0 && isfinite(opts->probe)) o.probe = opts->probe;
    o.plip_all_lists = opts->plip_all_lists != 0;
    o.bonds = opts->bonds;
  }
  return o;
}

/* size and reset the output's per-atom and per-residue arrays and the workspace's residue index
 * (res_first / res_n of every site residue slot); -1 when out of memory */
static int reset_out(const sp_site *site, sp_chem_ws *w, sp_site_chem *out) {
  size_t na = site->n_atoms, nr = site->n_res;
  if (SP_GROW(out->atom_chem, out->cap_atoms, na + 1)) return -1;
  size_t cap = out->cap_atoms, c0;
  c0 = 0; if (sp_grow((void **)&out->pka, &c0, cap, sizeof *out->pka)) return -1;
  c0 = 0; if (sp_grow((void **)&out->frac_protonated, &c0, cap, sizeof *out->frac_protonated)) return -1;
  c0 = 0; if (sp_grow((void **)&out->charge_ph, &c0, cap, sizeof *out->charge_ph)) return -1;
  c0 = 0; if (sp_grow((void **)&out->sasa_free, &c0, cap, sizeof *out->sasa_free)) return -1;
  c0 = 0; if (sp_grow((void **)&out->sasa_complex, &c0, cap, sizeof *out->sasa_complex)) return -1;
  if (SP_GROW(out->res_contact, out->cap_res, nr + 1)) return -1;
  if (SP_GROW(w->res_first, w->cap_resr, nr + 1)) return -1;
  c0 = 0;
  if (sp_grow((void **)&w->res_n, &c0, w->cap_resr, sizeof *w->res_n)) return -1;
  out->n_atoms = na;
  out->n_res = nr;
  out->n_groups = out->n_ix = 0;
  out->flags = 0;
  out->ligand_charge = out->site_charge = 0;
  for (size_t k = 0; k < na; k++) {
    out->atom_chem[k] = 0;
    out->pka[k] = out->frac_protonated[k] = out->sasa_free[k] = out->sasa_complex[k] = NAN;
    out->charge_ph[k] = 0;
  }
  for (size_t r = 0; r < nr; r++) {
    out->res_contact[r] = 0;
    w->res_first[r] = 0;
    w->res_n[r] = 0;
  }
  for (size_t k = na; k-- > 0;) {
    w->res_first[site->atom_res[k]] = (int32_t)k;
    w->res_n[site->atom_res[k]]++;
  }
  w->n_rings = 0;
  return 0;
}

/* the ligand's groups (scratch: a flag per ligand node) */
static int ligand_groups(ctx *c) {
  uint8_t *used = calloc(c->nl + 1, 1);
  if (!used) return sp_err_set(c->err, SP_E_NOMEM, "site chemistry: out of memory (%zu atoms)", c->site->n_atoms);
  int rc = sp_chem_ligand_groups(c, used);
  free(used);
  return rc;
}

/* every interaction type, in the order of the rows: atom pairs (contacts, hydrophobic, H-bond, halogen),
 * salt bridges, pi-cation, pi-stacking; PLIP's refinements of the H-bonds and hydrophobic contacts; water
 * bridges (refined); metal complexes last */
static int interactions(ctx *c, int all_lists) {
  int rc = sp_chem_pairs(c);
  if (!rc) rc = sp_chem_salt_bridges(c);
  if (!rc) rc = sp_chem_pi_cation(c);
  if (!rc) rc = sp_chem_pi_stacking(c);
  if (rc) return rc;
  sp_chem_refine_hbonds(c);
  if (!all_lists) rc = sp_chem_refine_hydrophobic(c);
  if (!rc) rc = sp_chem_water_bridges(c);
  if (!rc) rc = sp_chem_metals(c);
  return rc;
}

int sp_site_chem_compute(const sp_structure *s, const sp_survey *sv, size_t lig, const sp_site *site, sp_ccd *ccd,
                         const sp_chem_opts *opts, sp_chem_ws *w, sp_site_chem *out, sp_err *err) {
  if (!s || !sv || !site || !w || !out) return sp_err_set(err, SP_E_INVALID, "site chemistry: NULL argument");
  int rc = check_args(s, sv, lig, site, err);
  if (rc) return rc;
  sp_chem_aa_tables(w);
  const sp_chem_opts o = effective_opts(opts);
  if (o.bonds && o.bonds->n_atoms != site->n_ligand)
    return sp_err_set(err, SP_E_INVALID, "site chemistry: the given bonds are of %zu ligand atoms, the site has %zu",
                      o.bonds->n_atoms, site->n_ligand);
  if (reset_out(site, w, out))
    return sp_err_set(err, SP_E_NOMEM, "site chemistry: out of memory (%zu atoms)", site->n_atoms);
  ctx c = {s, sv, site, w, out, err, o.ph, 0, lig, o.bonds};
  const int oversize = (site->flags & SP_SITE_OVERSIZE) != 0;
  rc = sp_chem_ligand_graph(&c, ccd);
  if (!rc) rc = sp_chem_covalent(&c, ccd);
  if (!rc) rc = sp_chem_ligand_rings(&c);
  if (!rc) rc = ligand_groups(&c);
  if (oversize) out->flags |= SP_CHEMF_OVERSIZE;
  if (!rc && !oversize) rc = sp_chem_residue_groups_rings(&c);
  if (!rc) sp_chem_type_atoms(&c);
  if (!rc && !oversize) rc = interactions(&c, o.plip_all_lists);
  if (!rc) rc = sp_chem_burial(&c, &o, lig);
  if (rc) return rc;
  for (size_t g = 0; g < out->n_groups; g++) {
    out->site_charge += out->groups[g].charge;
    if (out->groups[g].ligand) out->ligand_charge += out->groups[g].charge;
  }
  return 0;
}

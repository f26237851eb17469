/* The rows of one site (pipeline_internal.h): /sites, /residues, /atoms, /bonds, /interactions, and the
 * file's /chains, /segments, /sequences rows. */
#include <string.h>

#include "pipeline_internal.h"
#include "sitepack/base.h"

int sp_pl_fill_site(const sp_structure *s, const sp_site *site, int64_t lig_idx, float cutoff,
                    const int64_t *chain_of, sp_result *out, sp_err *err) {
  int64_t site_idx = (int64_t)out->n_sites;
  sp_site_row *row = sp_result_add_site(out);
  if (!row) return sp_err_set(err, SP_E_NOMEM, "out of memory (site rows)");
  row->structure_idx = 0;
  row->ligand_idx = lig_idx;
  row->n_ligand = (int32_t)site->n_ligand;
  row->n_atoms = (int32_t)site->n_atoms;
  row->n_residues = (int32_t)site->n_res;
  row->flags = site->flags;
  memcpy(row->center, site->center, sizeof row->center);
  row->cutoff = cutoff;
  int64_t res0 = (int64_t)out->n_residues;
  for (size_t k = 0; k < site->n_res; ++k) {
    const sp_site_res *sr = &site->res[k];
    const sp_residue *r = &s->residues[sr->residue];
    const sp_chain *c = &s->chains[r->chain];
    sp_residue_row *rr = sp_result_add_residue(out);
    if (!rr) return sp_err_set(err, SP_E_NOMEM, "out of memory (residue rows)");
    rr->site_idx = site_idx;
    memcpy(rr->label_asym_id, c->label_asym_id, SP_ID_LEN);
    memcpy(rr->auth_asym_id, c->auth_asym_id, SP_ID_LEN);
    memcpy(rr->comp_id, r->comp_id, SP_ID_LEN);
    rr->auth_seq_id = r->auth_seq_id;
    rr->label_seq_id = r->label_seq_id;
    rr->ins_code[0] = r->ins_code;
    rr->kind = sr->kind;
    rr->min_distance = sr->min_distance;
    rr->chain_idx = chain_of ? chain_of[r->chain] : -1;
    if (sr->image && sr->image <= site->n_images) {
      const sp_site_image *im = &site->images[sr->image - 1];
      sp_pl_copy_str(im->assembly ? rr->assembly_op : rr->symop, sizeof rr->symop, im->tag);
    }
  }
  for (size_t k = 0; k < site->n_atoms; ++k) {
    uint32_t ai = site->atoms[k];
    sp_atom_row *ar = sp_result_add_atom(out);
    if (!ar) return sp_err_set(err, SP_E_NOMEM, "out of memory (atom rows)");
    memcpy(ar->position, site->xyz ? site->xyz[k] : s->xyz[ai], sizeof ar->position);
    ar->occupancy = s->occupancy[ai];
    ar->b_iso = s->b_iso[ai];
    ar->residue_idx = res0 + (int64_t)site->atom_res[k];
    memcpy(ar->atom_name, s->atom_name[ai], SP_ID_LEN);
    ar->element = s->element[ai];
    ar->charge = s->charge[ai];
    ar->formal_charge = s->charge[ai]; /* site atoms; ligand atoms: pl_formal_charges */
    ar->altloc = s->altloc[ai];
    ar->flags = site->atom_flags[k];
  }
  return 0;
}

/* /atoms/formal_charge of the ligand atoms @p ar[0, n_ligand) of the site just written: sp_ligand_charges
 * (valence.h) over the values their rows store (element of every site atom, charge, ccd_charge, ccd_atom,
 * position) and the site's bonds (w->bonds, the site's /bonds rows, flags included), the link-hydrogen rule
 * included, so the export and `sitepack check`, which apply the same function to the stored columns, get the same
 * charges (docs/format.md "/atoms"). Returns 0 or SP_E_NOMEM. */
static int pl_formal_charges(sp_worker *w, sp_atom_row *ar, sp_err *err) {
  const sp_bond_list *b = &w->bonds;
  size_t n = w->site.n_ligand, na = w->site.n_atoms, nb = b->n;
  if (SP_GROW(w->fq_el, w->cap_fq_el, na + 1) || SP_GROW(w->fq_q, w->cap_fq_q, n + 1) ||
      SP_GROW(w->fq_qc, w->cap_fq_qc, n + 1) || SP_GROW(w->fq_ca, w->cap_fq_ca, n + 1) ||
      SP_GROW(w->fq_xyz, w->cap_fq_xyz, 3 * n + 3) || SP_GROW(w->fq_a1, w->cap_fq_a1, nb + 1) ||
      SP_GROW(w->fq_a2, w->cap_fq_a2, nb + 1) || SP_GROW(w->fq_ord, w->cap_fq_ord, nb + 1) ||
      SP_GROW(w->fq_fl, w->cap_fq_fl, nb + 1))
    return sp_err_set(err, SP_E_NOMEM, "out of memory (formal charges)");
  for (size_t k = 0; k < na; k++) w->fq_el[k] = ar[k].element;
  for (size_t k = 0; k < n; k++) {
    w->fq_q[k] = ar[k].charge;
    w->fq_qc[k] = ar[k].ccd_charge;
    w->fq_ca[k] = ar[k].ccd_atom;
    memcpy(w->fq_xyz + 3 * k, ar[k].position, 3 * sizeof *w->fq_xyz);
  }
  for (size_t k = 0; k < nb; k++) {
    w->fq_a1[k] = (int32_t)b->bonds[k].a;
    w->fq_a2[k] = (int32_t)b->bonds[k].b;
    w->fq_ord[k] = b->bonds[k].order;
    w->fq_fl[k] = b->bonds[k].flags;
  }
  sp_lig_links ln = {na, w->fq_xyz, w->fq_fl, SP_BOND_INTER_RESIDUE | SP_BOND_TO_POLYMER};
  int rc = sp_ligand_charges(n, w->fq_el, w->fq_q, w->fq_qc, w->fq_ca, nb, w->fq_a1, w->fq_a2, w->fq_ord, &ln, &w->fq);
  if (rc) return sp_err_set(err, rc, "formal charges of the ligand: out of memory");
  for (size_t k = 0; k < n; k++) ar[k].formal_charge = w->fq.charge[k];
  return 0;
}

/* The ligand's bonds (bonds.h) on the site just written by sp_pl_fill_site: /bonds rows, the CCD charge and
 * aromatic flag of its atoms, the ligand flag name_not_in_ccd on its row @p lr, and the ligand atoms'
 * formal_charge (pl_formal_charges). */
int sp_pl_fill_site_bonds(sp_worker *w, const sp_survey *sv, size_t li, sp_ccd *ccd, sp_ligand_row *lr,
                          sp_result *out, sp_err *err) {
  sp_err berr = {0};
  int rc = sp_ligand_bonds(&w->s, sv, li, &w->site, ccd, &w->bonds, &berr);
  if (rc) return sp_err_set(err, rc, "bonds of ligand %zu: %s", li, berr.msg);
  const sp_bond_list *b = &w->bonds;
  lr->flags |= b->lig_flags;
  sp_site_row *row = &out->sites[out->n_sites - 1];
  row->n_bonds = (int32_t)b->n;
  sp_atom_row *ar = &out->atoms[out->n_atoms - w->site.n_atoms];
  for (size_t k = 0; k < b->n_atoms; k++) {
    ar[k].ccd_charge = b->ccd_charge[k];
    ar[k].ccd_atom = b->ccd_atom[k];
  }
  for (size_t k = 0; k < b->n; k++) {
    sp_bond_row *br = sp_result_add_bond(out);
    if (!br) return sp_err_set(err, SP_E_NOMEM, "out of memory (bond rows)");
    const sp_bond *x = &b->bonds[k];
    br->site_idx = (int64_t)out->n_sites - 1;
    br->atom1 = (int32_t)x->a;
    br->atom2 = (int32_t)x->b;
    br->order = x->order;
    br->aromatic = x->aromatic;
    br->flags = x->flags;
    sp_pl_copy_str(br->source, sizeof br->source, sp_bond_source_name(x->source));
  }
  return pl_formal_charges(w, ar, err);
}

/* Site chemistry (engineer sitechem, docs/sites.md "Site chemistry"): contacts, protonation at the
 * job's pH, interactions and burial of the site just written by sp_pl_fill_site (the last site row, its
 * residue rows and atom rows, which are the last rows of their tables). */
int sp_pl_fill_site_chem(sp_worker *w, const sp_survey *sv, size_t li, sp_ccd *ccd, const sp_task_opts *opts,
                         sp_result *out, sp_err *err) {
  sp_chem_opts co;
  sp_chem_opts_default(&co);
  co.ph = opts->ph;
  co.bonds = &w->bonds; /* made by sp_pl_fill_site_bonds for this site: not made twice */
  sp_err cerr = {0};
  int rc = sp_site_chem_compute(&w->s, sv, li, &w->site, ccd, &co, w->cws, &w->chem, &cerr);
  if (rc) return sp_err_set(err, rc, "site chemistry of ligand %zu: %s", li, cerr.msg);
  const sp_site_chem *c = &w->chem;
  sp_site_row *row = &out->sites[out->n_sites - 1];
  row->ph = (float)co.ph;
  row->sasa_free = c->sasa_free_total;
  row->sasa_complex = c->sasa_complex_total;
  row->ligand_charge = c->ligand_charge;
  row->site_charge = c->site_charge;
  row->n_interactions = (int32_t)c->n_ix;
  row->chem_flags = c->flags;
  sp_residue_row *rr = &out->residues[out->n_residues - w->site.n_res];
  for (size_t k = 0; k < c->n_res; k++) rr[k].contact = c->res_contact[k];
  sp_atom_row *ar = &out->atoms[out->n_atoms - w->site.n_atoms];
  for (size_t k = 0; k < c->n_atoms; k++) {
    ar[k].chem = c->atom_chem[k];
    ar[k].charge_ph = c->charge_ph[k];
    ar[k].pka = c->pka[k];
    ar[k].frac_protonated = c->frac_protonated[k];
    ar[k].sasa_free = c->sasa_free[k];
    ar[k].sasa_complex = c->sasa_complex[k];
  }
  /* /interactions rows (engineer sitechem2): atom fields stay offsets inside the site's atom block */
  for (size_t k = 0; k < c->n_ix; k++) {
    sp_interaction_row *xr = sp_result_add_interaction(out);
    if (!xr) return sp_err_set(err, SP_E_NOMEM, "out of memory (interaction rows)");
    const sp_interaction *x = &c->ix[k];
    xr->site_idx = (int64_t)out->n_sites - 1;
    xr->type = x->type;
    xr->flags = x->flags;
    xr->geometry = x->geometry;
    xr->coordination = x->coordination;
    xr->lig_atom = x->lig_atom;
    xr->site_atom = x->site_atom;
    xr->water_atom = x->water_atom;
    xr->distance = x->distance;
    xr->angle = x->angle;
    xr->angle2 = x->angle2;
    xr->distance2 = x->distance2;
    xr->offset = x->offset;
  }
  return 0;
}

/* /chains, /segments and /sequences rows of the file (entry.h), with its structure row. */
int sp_pl_add_chain_rows(const sp_entry_chains *ec, sp_result *out, sp_err *err) {
  for (size_t k = 0; k < ec->n_chains; k++) {
    sp_chain_row *r = sp_result_add_chain(out);
    if (!r) return sp_err_set(err, SP_E_NOMEM, "out of memory (chain rows)");
    *r = ec->chains[k];
  }
  for (size_t k = 0; k < ec->n_segments; k++) {
    sp_segment_row *r = sp_result_add_segment(out);
    if (!r) return sp_err_set(err, SP_E_NOMEM, "out of memory (segment rows)");
    *r = ec->segments[k];
  }
  for (size_t k = 0; k < ec->n_codes; k++) {
    sp_sequence_row *r = sp_result_add_sequence(out);
    if (!r) return sp_err_set(err, SP_E_NOMEM, "out of memory (sequence rows)");
    r->code = (uint8_t)ec->codes[k];
  }
  out->st.n_chains = (int32_t)ec->n_chains;
  return 0;
}

/* The worker stages of one task: see include/sitepack/task.h. */
#include "sitepack/task.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sitepack/bonds.h"
#include "sitepack/entry.h"
#include "sitepack/io.h"
#include "sitepack/model.h"
#include "sitepack/plan.h"
#include "sitepack/read.h"
#include "sitepack/site.h"
#include "sitepack/sitechem.h"
#include "sitepack/survey.h"
#include "sitepack/symmetry.h"

struct sp_worker {
  sp_structure s;
  sp_buf buf;
  sp_site_ws *ws;
  sp_site site;
  size_t peak_bytes;
  double max_bytes_per_atom; /* of the largest file read (most atoms) */
  size_t max_atoms_seen;
  sp_chem_ws *cws;      /* site chemistry (sitechem.h): see fill_site_chem */
  sp_site_chem chem;
  sp_bond_list bonds;   /* the ligand's bonds on its site block (bonds.h): see fill_site_bonds */
};

void sp_task_opts_default(sp_task_opts *o) {
  memset(o, 0, sizeof *o);
  o->cutoff = 6.0f;
  o->max_site_atoms = 12000;
  o->max_file_site_atoms = SP_DEFAULT_MAX_FILE_SITE_ATOMS;
  o->ph = 7.4;
}

sp_worker *sp_worker_new(void) {
  sp_worker *w = calloc(1, sizeof *w);
  if (!w) return NULL;
  sp_structure_init(&w->s);
  w->ws = sp_site_ws_new();
  w->cws = sp_chem_ws_new();
  if (!w->ws || !w->cws) {
    sp_site_ws_free(w->ws);
    sp_chem_ws_free(w->cws);
    free(w);
    return NULL;
  }
  return w;
}

void sp_worker_free(sp_worker *w) {
  if (!w) return;
  sp_structure_free(&w->s);
  sp_buf_free(&w->buf);
  sp_site_ws_free(w->ws);
  sp_site_free(&w->site);
  sp_chem_ws_free(w->cws);
  sp_site_chem_free(&w->chem);
  sp_bond_list_free(&w->bonds);
  free(w);
}

size_t sp_worker_peak_bytes(const sp_worker *w) { return w->peak_bytes; }

double sp_worker_max_bytes_per_atom(const sp_worker *w) { return w->max_bytes_per_atom; }

_Static_assert(SP_SCAN_MAX_PATH + 1 == SP_PATH_LEN, "the scan lists only paths that fit /structures/path");

static void copy_str(char *dst, size_t cap, const char *src) {
  size_t n = strlen(src);
  if (n >= cap) n = cap - 1;
  memcpy(dst, src, n);
  memset(dst + n, 0, cap - n);
}

/* "COMP/CHAIN/NUM[ICODE]" in author terms (label when the file has no author ids). */
static int residue_key(const sp_structure *s, uint32_t ri, char *out, size_t cap) {
  const sp_residue *r = &s->residues[ri];
  const sp_chain *c = &s->chains[r->chain];
  int32_t num = r->auth_seq_id != SP_SEQ_NONE ? r->auth_seq_id : r->label_seq_id;
  char ins[2] = {r->ins_code, 0};
  if (num == SP_SEQ_NONE) return snprintf(out, cap, "%s/%s/.%s", r->comp_id, c->auth_asym_id, ins);
  return snprintf(out, cap, "%s/%s/%d%s", r->comp_id, c->auth_asym_id, num, ins);
}

static int fill_site(const sp_structure *s, const sp_site *site, int64_t lig_idx, float cutoff,
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
      copy_str(im->assembly ? rr->assembly_op : rr->symop, sizeof rr->symop, im->tag);
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
    ar->altloc = s->altloc[ai];
    ar->flags = site->atom_flags[k];
  }
  return 0;
}

/* The ligand's bonds (bonds.h) on the site just written by fill_site: /bonds rows, the CCD charge and
 * aromatic flag of its atoms, and the ligand flag name_not_in_ccd on its row @p lr. */
static int fill_site_bonds(sp_worker *w, const sp_survey *sv, size_t li, sp_ccd *ccd, sp_ligand_row *lr,
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
    copy_str(br->source, sizeof br->source, sp_bond_source_name(x->source));
  }
  return 0;
}

/* Site chemistry (engineer sitechem, docs/sites.md "Site chemistry"): contacts, protonation at the
 * job's pH, interactions and burial of the site just written by fill_site (the last site row, its
 * residue rows and atom rows, which are the last rows of their tables). */
static int fill_site_chem(sp_worker *w, const sp_survey *sv, size_t li, sp_ccd *ccd, const sp_task_opts *opts,
                          sp_result *out, sp_err *err) {
  sp_chem_opts co;
  sp_chem_opts_default(&co);
  co.ph = opts->ph;
  co.bonds = &w->bonds; /* made by fill_site_bonds for this site: not made twice */
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
static int add_chain_rows(const sp_entry_chains *ec, sp_result *out, sp_err *err) {
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

/* Mean and max B and mean occupancy of the ligand's heavy atoms (chosen conformer); NaN when it has none
 * (an unreadable B is NaN and left out of the B statistics). */
static void ligand_fit(const sp_structure *s, const sp_survey *sv, const sp_ligand *L, sp_ligand_row *row) {
  double sb = 0, so = 0;
  size_t nb = 0, no = 0;
  float bmax = NAN;
  for (uint32_t a = 0; a < L->n_atoms; a++) {
    uint32_t ai = sv->atom_refs[L->atom_first + a];
    if (s->element[ai] == 1) continue;
    so += s->occupancy[ai], no++;
    if (isnan(s->b_iso[ai])) continue;
    sb += s->b_iso[ai], nb++;
    if (!(s->b_iso[ai] <= bmax)) bmax = s->b_iso[ai];
  }
  row->b_mean = nb ? (float)(sb / (double)nb) : NAN;
  row->b_max = nb ? bmax : NAN;
  row->occupancy_mean = no ? (float)(so / (double)no) : NAN;
}

/* Mean and max B of the site's polymer heavy atoms (not symmetry images) within SP_FIT_POCKET_DISTANCE of a
 * ligand heavy atom; NaN when there are none. */
#define SP_FIT_POCKET_DISTANCE 4.0f
static void pocket_fit(const sp_structure *s, const sp_site *site, sp_ligand_row *row) {
  double sb = 0;
  size_t nb = 0;
  float bmax = NAN;
  const float d2 = SP_FIT_POCKET_DISTANCE * SP_FIT_POCKET_DISTANCE;
  for (size_t k = site->n_ligand; k < site->n_atoms; k++) {
    uint16_t f = site->atom_flags[k];
    if (!(f & SP_SITE_ATOM_POLYMER) || (f & (SP_SITE_ATOM_HYDROGEN | SP_SITE_ATOM_SYMMETRY | SP_SITE_ATOM_ASSEMBLY))) continue;
    const float *p = site->xyz ? site->xyz[k] : s->xyz[site->atoms[k]];
    int near = 0;
    for (size_t j = 0; j < site->n_ligand && !near; j++) {
      if (site->atom_flags[j] & SP_SITE_ATOM_HYDROGEN) continue;
      const float *q = site->xyz ? site->xyz[j] : s->xyz[site->atoms[j]];
      float dx = p[0] - q[0], dy = p[1] - q[1], dz = p[2] - q[2];
      near = dx * dx + dy * dy + dz * dz <= d2;
    }
    float b = s->b_iso[site->atoms[k]];
    if (!near || isnan(b)) continue;
    sb += b, nb++;
    if (!(b <= bmax)) bmax = b;
  }
  row->site_b_mean = nb ? (float)(sb / (double)nb) : NAN;
  row->site_b_max = nb ? bmax : NAN;
}

static void fill_ligand_row(const sp_structure *s, const sp_survey *sv, const sp_ligand *L, sp_ligand_row *row) {
  uint32_t r0 = sv->res_refs[L->res_first];
  const sp_residue *r = &s->residues[r0];
  const sp_chain *c = &s->chains[r->chain];
  row->structure_idx = 0;
  row->model_num = s->models[L->model].model_num;
  memcpy(row->comp_id, r->comp_id, SP_ID_LEN);
  memcpy(row->label_asym_id, c->label_asym_id, SP_ID_LEN);
  memcpy(row->auth_asym_id, c->auth_asym_id, SP_ID_LEN);
  row->auth_seq_id = r->auth_seq_id;
  row->label_seq_id = r->label_seq_id;
  row->ins_code[0] = r->ins_code;
  row->altloc[0] = L->altloc;
  copy_str(row->cls, sizeof row->cls, sp_ligand_class_name(L->cls));
  row->flags = L->flags;
  row->n_residues = (int32_t)L->n_res;
  row->n_atoms = (int32_t)L->n_atoms;
  row->n_heavy_atoms = (int32_t)L->n_heavy;
  row->n_ccd_heavy_atoms = L->n_ccd_heavy;
  ligand_fit(s, sv, L, row);
  row->site_b_mean = row->site_b_max = NAN;
  copy_str(row->molecule_key, sizeof row->molecule_key, L->molecule_key);
  copy_str(row->key_source, sizeof row->key_source, L->key_source);
  /* the whole list, then cut after the last residue that fits with " ..." (never cut silently) */
  char list[sizeof row->residues + 72];
  size_t used = 0, fits = 0;
  uint32_t k = 0;
  for (; k < L->n_res; ++k) {
    char key[64];
    int n = residue_key(s, sv->res_refs[L->res_first + k], key, sizeof key);
    if (n < 0 || used + (size_t)n + 1 >= sizeof list) break;
    if (k) list[used++] = ' ';
    memcpy(list + used, key, (size_t)n);
    used += (size_t)n;
    if (used + 4 < sizeof row->residues) fits = used; /* room for " ..." after it */
  }
  if (k == L->n_res && used < sizeof row->residues) fits = used;
  memcpy(row->residues, list, fits);
  if (fits < used || k < L->n_res) memcpy(row->residues + fits, " ...", 4);
  row->site_idx = -1;
}

int sp_worker_process(sp_worker *w, const char *root, const char *relpath, int64_t file_idx, sp_ccd *ccd,
                      const sp_task_opts *opts, sp_result *out, sp_err *err) {
  return sp_worker_process_part(w, root, relpath, file_idx, 0, 1, ccd, opts, out, err);
}

/* /structures/warnings (format version 4): the texts of the st->n_warnings warnings that n_warnings counts, the
   first ones @p s recorded (result.h sp_warnings_fit); "" when n_warnings is 0 (s may then be another file's) */
static void fill_warnings(sp_structure_row *st, const sp_structure *s) {
  size_t n = st->n_warnings > 0 ? (size_t)st->n_warnings : 0;
  if (n > s->n_warnings) n = s->n_warnings;
  sp_warnings_fit(st->warnings, sizeof st->warnings, s->warnings, n);
}

/* One task; with @p split, part must be 0 and n_parts is decided after the survey. */
static int process(sp_worker *w, const char *root, const char *relpath, int64_t file_idx, int part, int n_parts,
                   const sp_split_opts *split, const sp_cost_model *model, sp_ccd *ccd, const sp_task_opts *opts,
                   sp_result *out, sp_err *err);

int sp_worker_process_part(sp_worker *w, const char *root, const char *relpath, int64_t file_idx, int part,
                           int n_parts, sp_ccd *ccd, const sp_task_opts *opts, sp_result *out, sp_err *err) {
  return process(w, root, relpath, file_idx, part, n_parts, NULL, NULL, ccd, opts, out, err);
}

int sp_worker_process_first(sp_worker *w, const char *root, const char *relpath, int64_t file_idx,
                            const sp_split_opts *split, const sp_cost_model *model, sp_ccd *ccd,
                            const sp_task_opts *opts, sp_result *out, sp_err *err) {
  if (!split) return sp_err_set(err, SP_E_INVALID, "worker: NULL split options");
  return process(w, root, relpath, file_idx, 0, 1, split, model, ccd, opts, out, err);
}

static int process(sp_worker *w, const char *root, const char *relpath, int64_t file_idx, int part, int n_parts,
                   const sp_split_opts *split, const sp_cost_model *model, sp_ccd *ccd, const sp_task_opts *opts,
                   sp_result *out, sp_err *err) {
  sp_task_opts dflt;
  if (!opts) {
    sp_task_opts_default(&dflt);
    opts = &dflt;
  }
  if (!w || !root || !relpath || !out || n_parts < 1 || part < 0 || part >= n_parts)
    return sp_err_set(err, SP_E_INVALID, "worker: bad argument (part %d of %d)", part, n_parts);
  sp_result_clear(out);
  out->file_idx = file_idx;
  out->part = part;
  out->n_parts = n_parts;
  out->has_structure_row = part == 0;
  sp_structure_row *st = &out->st;
  sp_path_escape(relpath, st->path, sizeof st->path); /* issue 16: valid UTF-8 (the scan checked it fits) */
  st->resolution = st->r_work = st->r_free = NAN;
  st->entry_first = -1; /* issue 16 item 12: the run sets it from the whole file list (result.h) */

  char full[4096];
  int n = snprintf(full, sizeof full, "%s/%s", root, relpath);
  sp_err ferr = {0};
  if (n < 0 || (size_t)n >= sizeof full) {
    sp_err_set(&ferr, SP_E_INVALID, "%s: path too long", relpath);
    goto failed;
  }

  /* read + parse */
  sp_structure_clear(&w->s);
  sp_buf_free(&w->buf); /* the previous file's text: sp_file_read does not free its output */
  double t0 = sp_now();
  int fmt = 0;
  /* read (+ SHA-256 + inflate), then parse: the same as sp_read_structure_file, timed apart */
  int rc = sp_file_read(full, opts->max_text_bytes, &w->buf, &ferr);
  double t_mid = sp_now();
  st->t_read = t_mid - t0;
  if (!rc) {
    sp_err e = {0};
    rc = sp_read_structure_text(w->buf.data, w->buf.len, &w->s, &fmt, &e);
    if (rc) sp_err_set(&ferr, rc, "%s: %s", full, e.msg);
  }
  double t1 = sp_now();
  st->t_parse = t1 - t_mid;
  copy_str(st->sha256, sizeof st->sha256, w->buf.sha256);
  out->t_sha256 = w->buf.sha256_seconds;
  st->gzip = (uint8_t)w->buf.gzip;
  st->bytes = (int64_t)w->buf.stored_bytes;
  st->text_bytes = (int64_t)w->buf.len;
  copy_str(st->format, sizeof st->format, sp_format_name(fmt));
  if (rc && !w->buf.stored_bytes) {
    /* the read itself failed (e.g. truncated gzip): still record what the file is as stored */
    int gz = 0;
    if (sp_file_digest(full, st->sha256, &st->bytes, &gz, NULL) == 0) st->gzip = (uint8_t)gz;
  }
  size_t bytes = sp_structure_bytes(&w->s);
  if (bytes > w->peak_bytes) w->peak_bytes = bytes;
  if (rc) goto failed;
  if (w->s.n_atoms && w->s.n_atoms >= w->max_atoms_seen) {
    w->max_atoms_seen = w->s.n_atoms;
    w->max_bytes_per_atom = (double)bytes / (double)w->s.n_atoms;
  }

  st->n_atoms = (int64_t)w->s.n_atoms;
  st->n_models = (int32_t)w->s.n_models;
  st->n_atoms_model1 = w->s.n_models ? (int64_t)w->s.models[0].n_atoms : 0;
  st->n_warnings = (int32_t)w->s.n_warnings;
  /* issue 16 item 6: the file's own text, escaped like the path (valid UTF-8, H5T_CSET_UTF8); the method also in
     the mmCIF enumeration (issue 17: entry.h sp_method_normalise, escaped after) */
  sp_text_escape_fit(st->entry_id, sizeof st->entry_id, w->s.entry_id);
  char method[sizeof st->method];
  sp_method_normalise(w->s.method, method, sizeof method);
  sp_text_escape_fit(st->method, sizeof st->method, method);
  sp_text_escape_fit(st->method_file, sizeof st->method_file, w->s.method);
  st->resolution = w->s.resolution;
  st->r_work = w->s.r_work;
  st->r_free = w->s.r_free;
  memcpy(st->deposition_date, w->s.deposition_date, sizeof st->deposition_date);
  memcpy(st->release_date, w->s.release_date, sizeof st->release_date);
  /* issue 9 (reliability): per-task guards, recorded as the file's status and not fatal */
  if (opts->max_atoms && w->s.n_atoms > opts->max_atoms) {
    sp_err_set(&ferr, SP_E_TOO_MANY_ATOMS, "%s: %zu atom records, above the job's limit of %zu", relpath,
               (size_t)w->s.n_atoms, opts->max_atoms);
    goto failed;
  }
  if (opts->max_seconds > 0 && n_parts == 1 && sp_now() - t0 > opts->max_seconds) {
    sp_err_set(&ferr, SP_E_TIMEOUT, "%s: read and parse took %.3f s, above the job's limit of %g s", relpath,
               sp_now() - t0, opts->max_seconds);
    goto failed;
  }

  /* survey */
  sp_survey sv;
  memset(&sv, 0, sizeof sv);
  sp_survey_opts so = {.all_models = opts->all_models};
  rc = sp_survey_run(&w->s, ccd, &so, &sv, &ferr);
  double t2 = sp_now();
  st->t_survey = t2 - t1;
  if (rc) {
    sp_survey_free(&sv);
    if (rc == SP_E_NOMEM) return sp_err_set(err, rc, "%s: %s", relpath, ferr.msg);
    goto failed;
  }
  if (split) {
    n_parts = sp_split_parts_model(split, model, st->bytes, st->gzip, st->n_atoms, (int64_t)sv.n_ligands);
    out->n_parts = n_parts;
  }
  /* the components of the file: once, with its structure row (the merge takes the union) */
  for (size_t k = 0; part == 0 && k < sv.n_comps; ++k) {
    sp_component_row *cr = sp_result_add_component(out);
    if (!cr) {
      sp_survey_free(&sv);
      return sp_err_set(err, SP_E_NOMEM, "out of memory (component rows)");
    }
    *cr = sv.comps[k].row;
  }

  /* the file's polymer chains (entry.h): rows once, with its structure row; every part links its residues */
  sp_entry_chains ec;
  if (sp_entry_chains_build(&w->s, &sv, &ec, err)) {
    sp_survey_free(&sv);
    return SP_E_NOMEM;
  }
  /* the PLINDER systems of the file's ligands (entry.h), in every part: each needs its ligands' */
  int32_t *sys = malloc((2 * sv.n_ligands + 1) * sizeof *sys);
  if (!sys || sp_ligand_systems(&w->s, &sv, sys, sys + sv.n_ligands, err) ||
      (part == 0 && add_chain_rows(&ec, out, err))) {
    free(sys);
    sp_entry_chains_free(&ec);
    sp_survey_free(&sv);
    return sp_err_set(err, SP_E_NOMEM, "%s: out of memory (chains, systems)", relpath);
  }

  /* symmetry mates asked for on a crystal cell whose operators cannot be resolved (unknown space-group
     name, singular SCALEn): one warning with the reason, once per file (NMR/EM dummy cells: none) */
  if (opts->symmetry_mates && part == 0 && isfinite(w->s.cell[0]) && sp_cell_is_crystal(w->s.cell)) {
    sp_crystal *cry = malloc(sizeof *cry);
    sp_err ce = {0};
    if (cry && !sp_crystal_resolve(&w->s, cry, &ce) && cry->n_ops == 0) {
      sp_structure_warn(&w->s, "symmetry mates: none for this file: %s", cry->why);
      st->n_warnings = (int32_t)w->s.n_warnings;
    }
    free(cry);
  }

  /* sites */
  sp_site_opts sopt = {.cutoff = opts->cutoff, .max_atoms = opts->max_site_atoms,
                       .symmetry_mates = opts->symmetry_mates, .assembly = opts->assembly};
  int64_t lo, hi;
  sp_split_range((int64_t)sv.n_ligands, part, n_parts, &lo, &hi);
  for (size_t li = (size_t)lo; li < (size_t)hi; ++li) {
    sp_ligand_row *lr = sp_result_add_ligand(out);
    if (!lr) {
      sp_survey_free(&sv);
      sp_entry_chains_free(&ec);
  free(sys);
      return sp_err_set(err, SP_E_NOMEM, "out of memory (ligand rows)");
    }
    fill_ligand_row(&w->s, &sv, &sv.ligands[li], lr);
    lr->system_id = sys[li];
    lr->system_size = sys[sv.n_ligands + li];
    rc = sp_site_compute(&w->s, &sv, li, &sopt, w->ws, &w->site, &ferr);
    if (rc) {
      sp_survey_free(&sv);
      sp_entry_chains_free(&ec);
  free(sys);
      if (rc == SP_E_NOMEM) return sp_err_set(err, rc, "%s: %s", relpath, ferr.msg);
      /* a split file cannot fail in one part only: the other parts' rows are written already */
      if (n_parts > 1)
        return sp_err_set(err, SP_E_INTERNAL, "%s part %d/%d: site of ligand %zu failed: %s", relpath, part,
                          n_parts, li, ferr.msg);
      goto failed;
    }
    /* issue 9: the time guard between ligands (unsplit files only: a split file's parts must agree) */
    if (opts->max_seconds > 0 && n_parts == 1 && sp_now() - t0 > opts->max_seconds) {
      sp_err_set(&ferr, SP_E_TIMEOUT, "%s: still running after %.3f s (ligand %zu of %zu), above the job's limit of %g s",
                 relpath, sp_now() - t0, li, sv.n_ligands, opts->max_seconds);
      sp_survey_free(&sv);
  sp_entry_chains_free(&ec);
  free(sys);
      goto failed;
    }
    size_t local = li - (size_t)lo;
    out->ligands[local].site_idx = (int64_t)out->n_sites;
    pocket_fit(&w->s, &w->site, &out->ligands[local]);
    rc = fill_site(&w->s, &w->site, (int64_t)local, sopt.cutoff, ec.chain_of, out, err);
    double t_chem = sp_now();
    if (!rc) rc = fill_site_bonds(w, &sv, li, ccd, &out->ligands[local], out, err);
    if (!rc) rc = fill_site_chem(w, &sv, li, ccd, opts, out, err);
    out->t_chem += sp_now() - t_chem;
    if (rc) {
      sp_survey_free(&sv);
  sp_entry_chains_free(&ec);
  free(sys);
      return rc;
    }
    /* issue 20: a bound on what one file can write (unsplit files only, as the time guard) */
    if (opts->max_file_site_atoms && n_parts == 1 && out->n_atoms > opts->max_file_site_atoms) {
      sp_err_set(&ferr, SP_E_TOO_MANY_ATOMS,
                 "%s: %zu site atoms after %zu of %zu ligands, above the job's limit of %zu (limits.max_file_site_atoms)",
                 relpath, (size_t)out->n_atoms, li + 1, sv.n_ligands, opts->max_file_site_atoms);
      sp_survey_free(&sv);
  sp_entry_chains_free(&ec);
  free(sys);
      goto failed;
    }
  }
  st->t_site = sp_now() - t2;
  /* the whole file's counts (a part holds a range of them): one site per ligand */
  st->n_ligands = (int32_t)sv.n_ligands;
  st->n_sites = (int32_t)sv.n_ligands;
  sp_survey_free(&sv);
  sp_entry_chains_free(&ec);
  free(sys);
  copy_str(st->status, sizeof st->status, "ok");
  fill_warnings(st, &w->s);
  return 0;

failed:
  /* the file's row says why; nothing else of it is kept */
  out->n_ligands = out->n_components = out->n_sites = out->n_residues = out->n_atoms = 0;
  out->n_interactions = out->n_bonds = 0;
  out->n_chains = out->n_segments = out->n_sequences = 0;
  st->n_ligands = st->n_sites = st->n_chains = 0;
  copy_str(st->status, sizeof st->status, sp_errclass_name(ferr.cls));
  /* issue 16 item 6: the message names the file: escaped like the path (valid UTF-8), a cut one ends "..." */
  sp_text_escape_fit(st->error, sizeof st->error, ferr.msg);
  fill_warnings(st, &w->s); /* the warnings n_warnings counts (0 when the read itself failed) */
  return 0;
}

/* The stages of one task over its pl_file (pipeline_internal.h), in the order worker.c runs them. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pipeline_internal.h"
#include "sitepack/plan.h"
#include "sitepack/read.h"
#include "sitepack/symmetry.h"

void pl_file_free(pl_file *f) {
  sp_survey_free(&f->sv);
  sp_entry_chains_free(&f->ec);
  free(f->sys);
  f->sys = NULL;
}

/* The structure row's facts of the file as stored and as parsed (issue 16 item 6: texts escaped like the path,
   valid UTF-8; issue 17: the method also in the mmCIF enumeration, entry.h sp_method_normalise). */
static void record_stored(sp_worker *w, const char *full, int fmt, int rc, sp_result *out) {
  sp_structure_row *st = &out->st;
  sp_pl_copy_str(st->sha256, sizeof st->sha256, w->buf.sha256);
  out->t_sha256 = w->buf.sha256_seconds;
  st->gzip = (uint8_t)w->buf.gzip;
  st->bytes = (int64_t)w->buf.stored_bytes;
  st->text_bytes = (int64_t)w->buf.len;
  sp_pl_copy_str(st->format, sizeof st->format, sp_format_name(fmt));
  if (rc && !w->buf.stored_bytes) {
    /* the read itself failed (e.g. truncated gzip): still record what the file is as stored */
    int gz = 0;
    if (sp_file_digest(full, st->sha256, &st->bytes, &gz, NULL) == 0) st->gzip = (uint8_t)gz;
  }
  size_t bytes = sp_structure_bytes(&w->s);
  if (bytes > w->peak_bytes) w->peak_bytes = bytes;
  if (rc) return;
  if (w->s.n_atoms && w->s.n_atoms >= w->max_atoms_seen) {
    w->max_atoms_seen = w->s.n_atoms;
    w->max_bytes_per_atom = (double)bytes / (double)w->s.n_atoms;
  }
}

static void record_parsed(const sp_structure *s, sp_structure_row *st) {
  st->n_atoms = (int64_t)s->n_atoms;
  st->n_models = (int32_t)s->n_models;
  st->n_atoms_model1 = s->n_models ? (int64_t)s->models[0].n_atoms : 0;
  st->n_warnings = (int32_t)s->n_warnings;
  sp_text_escape_fit(st->entry_id, sizeof st->entry_id, s->entry_id);
  char method[sizeof st->method];
  sp_method_normalise(s->method, method, sizeof method);
  sp_text_escape_fit(st->method, sizeof st->method, method);
  sp_text_escape_fit(st->method_file, sizeof st->method_file, s->method);
  st->resolution = s->resolution;
  st->r_work = s->r_work;
  st->r_free = s->r_free;
  memcpy(st->deposition_date, s->deposition_date, sizeof st->deposition_date);
  memcpy(st->release_date, s->release_date, sizeof st->release_date);
}

int pl_stage_read(pl_file *f) {
  sp_worker *w = f->w;
  sp_structure_row *st = &f->out->st;
  sp_structure_clear(&w->s);
  sp_buf_free(&w->buf); /* the previous file's text: sp_file_read does not free its output */
  f->t0 = sp_now();
  int fmt = 0;
  /* read (+ SHA-256 + inflate), then parse: the same as sp_read_structure_file, timed apart */
  int rc = sp_file_read(f->full, f->opts->max_text_bytes, &w->buf, &f->ferr);
  double t_mid = sp_now();
  st->t_read = t_mid - f->t0;
  if (!rc) {
    sp_err e = {0};
    rc = sp_read_structure_text(w->buf.data, w->buf.len, &w->s, &fmt, &e);
    if (rc) sp_err_set(&f->ferr, rc, "%s: %s", f->full, e.msg);
  }
  f->t1 = sp_now();
  st->t_parse = f->t1 - t_mid;
  record_stored(w, f->full, fmt, rc, f->out);
  if (rc) return PL_FILE_FAILED;
  record_parsed(&w->s, st);
  return PL_GO_ON;
}

/* limits.max_seconds (issue 9): only for unsplit files, whose rows are all in one task */
static int over_time(const pl_file *f) {
  return f->opts->max_seconds > 0 && f->n_parts == 1 && sp_now() - f->t0 > f->opts->max_seconds;
}

int pl_stage_guards(pl_file *f) {
  const sp_task_opts *o = f->opts;
  size_t n_atoms = f->w->s.n_atoms;
  /* issue 9 (reliability): per-task guards, recorded as the file's status and not fatal */
  if (o->max_atoms && n_atoms > o->max_atoms) {
    sp_err_set(&f->ferr, SP_E_TOO_MANY_ATOMS, "%s: %zu atom records, above the job's limit of %zu", f->relpath,
               n_atoms, o->max_atoms);
    return PL_FILE_FAILED;
  }
  if (over_time(f)) {
    sp_err_set(&f->ferr, SP_E_TIMEOUT, "%s: read and parse took %.3f s, above the job's limit of %g s", f->relpath,
               sp_now() - f->t0, o->max_seconds);
    return PL_FILE_FAILED;
  }
  return PL_GO_ON;
}

int pl_stage_survey(pl_file *f, sp_err *err) {
  sp_result *out = f->out;
  sp_structure_row *st = &out->st;
  sp_survey_opts so = {.all_models = f->opts->all_models};
  int rc = sp_survey_run(&f->w->s, f->ccd, &so, &f->sv, &f->ferr);
  f->t2 = sp_now();
  st->t_survey = f->t2 - f->t1;
  out->t_desc_comp += f->sv.t_desc;
  if (rc == SP_E_NOMEM) return sp_err_set(err, rc, "%s: %s", f->relpath, f->ferr.msg);
  if (rc) return PL_FILE_FAILED;
  for (size_t k = 0; f->part == 0 && k < f->sv.n_split_links; ++k) { /* issue 36: two ions or buffers linked */
    const sp_residue *a = &f->w->s.residues[f->sv.split_links[k][0]], *c = &f->w->s.residues[f->sv.split_links[k][1]];
    sp_structure_warn(&f->w->s, "a covalent link joins two ions or buffers, %s %s/%d and %s %s/%d: kept as two "
                      "ligands", a->comp_id, f->w->s.chains[a->chain].auth_asym_id, (int)a->auth_seq_id, c->comp_id,
                      f->w->s.chains[c->chain].auth_asym_id, (int)c->auth_seq_id);
    st->n_warnings = (int32_t)f->w->s.n_warnings;
  }
  if (f->split) {
    f->n_parts = sp_split_parts_model(f->split, f->model, st->bytes, st->gzip, st->n_atoms,
                                      (int64_t)f->sv.n_ligands);
    out->n_parts = f->n_parts;
  }
  /* the components of the file: once, with its structure row (the merge takes the union) */
  for (size_t k = 0; f->part == 0 && k < f->sv.n_comps; ++k) {
    sp_component_row *cr = sp_result_add_component(out);
    if (!cr) return sp_err_set(err, SP_E_NOMEM, "out of memory (component rows)");
    *cr = f->sv.comps[k].row;
  }
  return PL_GO_ON;
}

/* Symmetry mates asked for on a crystal cell whose operators cannot be resolved (unknown space-group name,
   singular SCALEn): one warning with the reason, once per file (NMR/EM dummy cells: none). */
static void warn_no_symmetry_mates(pl_file *f) {
  sp_structure *s = &f->w->s;
  if (!f->opts->symmetry_mates || f->part != 0 || !isfinite(s->cell[0]) || !sp_cell_is_crystal(s->cell)) return;
  sp_crystal *cry = malloc(sizeof *cry);
  sp_err ce = {0};
  if (cry && !sp_crystal_resolve(s, cry, &ce) && cry->n_ops == 0) {
    sp_structure_warn(s, "symmetry mates: none for this file: %s", cry->why);
    f->out->st.n_warnings = (int32_t)s->n_warnings;
  }
  free(cry);
}

/* Ligands of one model that share comp_id, chain and number (copies in different places, sp_ligand.copy): one
   warning that names the first such identifier and how many sets there are, once per file (docs/ligands.md). */
static void warn_shared_identifiers(pl_file *f) {
  sp_structure *s = &f->w->s;
  const sp_survey *sv = &f->sv;
  if (f->part != 0 || !sv->n_shared_ids) return;
  size_t first = 0, n_copies = 0;
  while (first < sv->n_ligands && sv->ligands[first].copy != 1) first++;
  for (size_t i = first; i < sv->n_ligands; i++) {
    const sp_ligand *L = &sv->ligands[i], *F = &sv->ligands[first];
    const sp_residue *a = &s->residues[sv->res_refs[L->res_first]], *b = &s->residues[sv->res_refs[F->res_first]];
    if (L->copy && L->model == F->model && a->auth_seq_id == b->auth_seq_id && a->chain == b->chain &&
        !strcmp(a->comp_id, b->comp_id))
      n_copies++;
  }
  const sp_residue *r = &s->residues[sv->res_refs[sv->ligands[first].res_first]];
  sp_structure_warn(s, "ligand identifiers shared: %s %s %d (%zu instances in different places, instance_key "
                    "#1..#%zu)%s", r->comp_id, s->chains[r->chain].auth_asym_id, r->auth_seq_id, n_copies, n_copies,
                    sv->n_shared_ids > 1 ? " and other identifier sets" : "");
  f->out->st.n_warnings = (int32_t)s->n_warnings;
}

int pl_stage_context(pl_file *f, sp_err *err) {
  sp_structure *s = &f->w->s;
  /* the file's polymer chains (entry.h): rows once, with its structure row; every part links its residues */
  if (sp_entry_chains_build(s, &f->sv, &f->ec, err)) return SP_E_NOMEM;
  /* the PLINDER systems of the file's ligands (entry.h), in every part: each needs its ligands' */
  size_t nl = f->sv.n_ligands;
  f->sys = malloc((2 * nl + 1) * sizeof *f->sys);
  if (!f->sys || sp_ligand_systems(s, &f->sv, f->sys, f->sys + nl, err) ||
      (f->part == 0 && sp_pl_add_chain_rows(&f->ec, f->out, err)))
    return sp_err_set(err, SP_E_NOMEM, "%s: out of memory (chains, systems)", f->relpath);
  warn_no_symmetry_mates(f);
  warn_shared_identifiers(f);
  const sp_task_opts *o = f->opts;
  f->sopt = (sp_site_opts){.cutoff = o->cutoff, .max_atoms = o->max_site_atoms, .symmetry_mates = o->symmetry_mates,
                           .assembly = o->assembly};
  sp_split_range((int64_t)nl, f->part, f->n_parts, &f->lo, &f->hi);
  return PL_GO_ON;
}

/* The site of ligand @p li failed: a failed file, unless the worker is out of memory or the file is split (a
   split file cannot fail in one part only: the other parts' rows are written already). */
static int site_failed(pl_file *f, size_t li, int rc, sp_err *err) {
  if (rc == SP_E_NOMEM) return sp_err_set(err, rc, "%s: %s", f->relpath, f->ferr.msg);
  if (f->n_parts > 1)
    return sp_err_set(err, SP_E_INTERNAL, "%s part %d/%d: site of ligand %zu failed: %s", f->relpath, f->part,
                      f->n_parts, li, f->ferr.msg);
  return PL_FILE_FAILED;
}

/* The rows of the site of ligand @p li (local row @p local): pocket fit, site, bonds, chemistry. */
static int ligand_rows(pl_file *f, size_t li, size_t local, sp_err *err) {
  sp_worker *w = f->w;
  sp_result *out = f->out;
  out->ligands[local].site_idx = (int64_t)out->n_sites;
  sp_pl_pocket_fit(&w->s, &w->site, &out->ligands[local]);
  int rc = sp_pl_fill_site(&w->s, &w->site, (int64_t)local, f->sopt.cutoff, f->ec.chain_of, out, err);
  double t_chem = sp_now();
  if (!rc) rc = sp_pl_fill_site_bonds(w, &f->sv, li, f->ccd, &out->ligands[local], out, err);
  double t_desc = sp_now();
  if (!rc) rc = sp_pl_fill_ligand_desc(out, &w->fq, &out->ligands[local], err);
  out->t_desc_lig += sp_now() - t_desc;
  if (!rc) rc = sp_pl_fill_site_chem(w, &f->sv, li, f->ccd, f->opts, out, err);
  if (!rc) sp_pl_fill_site_quality(&w->s, &f->sv, li, &w->site, f->ccd, &out->ligands[local], &out->sites[out->n_sites - 1]);
  out->t_chem += sp_now() - t_chem;
  return rc;
}

int pl_stage_ligand(pl_file *f, size_t li, sp_err *err) {
  sp_worker *w = f->w;
  sp_result *out = f->out;
  const sp_task_opts *o = f->opts;
  sp_ligand_row *lr = sp_result_add_ligand(out);
  if (!lr) return sp_err_set(err, SP_E_NOMEM, "out of memory (ligand rows)");
  sp_pl_fill_ligand_row(&w->s, &f->sv, &f->sv.ligands[li], lr);
  lr->system_id = f->sys[li];
  lr->system_size = f->sys[f->sv.n_ligands + li];
  int rc = sp_site_compute(&w->s, &f->sv, li, &f->sopt, w->ws, &w->site, &f->ferr);
  if (rc) return site_failed(f, li, rc, err);
  /* issue 9: the time guard between ligands (unsplit files only: a split file's parts must agree) */
  if (over_time(f)) {
    sp_err_set(&f->ferr, SP_E_TIMEOUT, "%s: still running after %.3f s (ligand %zu of %zu), above the job's limit of %g s",
               f->relpath, sp_now() - f->t0, li, f->sv.n_ligands, o->max_seconds);
    return PL_FILE_FAILED;
  }
  rc = ligand_rows(f, li, li - (size_t)f->lo, err);
  if (rc) return rc;
  /* issue 20: a bound on what one file can write (unsplit files only, as the time guard) */
  if (o->max_file_site_atoms && f->n_parts == 1 && out->n_atoms > o->max_file_site_atoms) {
    sp_err_set(&f->ferr, SP_E_TOO_MANY_ATOMS,
               "%s: %zu site atoms after %zu of %zu ligands, above the job's limit of %zu (limits.max_file_site_atoms)",
               f->relpath, (size_t)out->n_atoms, li + 1, f->sv.n_ligands, o->max_file_site_atoms);
    return PL_FILE_FAILED;
  }
  return PL_GO_ON;
}

void pl_finish_ok(pl_file *f) {
  sp_structure_row *st = &f->out->st;
  st->t_site = sp_now() - f->t2;
  /* the whole file's counts (a part holds a range of them): one site per ligand */
  st->n_ligands = (int32_t)f->sv.n_ligands;
  st->n_sites = (int32_t)f->sv.n_ligands;
  sp_pl_copy_str(st->status, sizeof st->status, "ok");
  sp_pl_fill_warnings(st, &f->w->s);
}

void pl_finish_failed(pl_file *f) {
  sp_result *out = f->out;
  sp_structure_row *st = &out->st;
  out->n_ligands = out->n_components = out->n_sites = out->n_residues = out->n_atoms = 0;
  out->n_interactions = out->n_bonds = 0;
  out->n_chains = out->n_segments = out->n_sequences = 0;
  st->n_ligands = st->n_sites = st->n_chains = 0;
  sp_pl_copy_str(st->status, sizeof st->status, sp_errclass_name(f->ferr.cls));
  /* issue 16 item 6: the message names the file: escaped like the path (valid UTF-8), a cut one ends "..." */
  sp_text_escape_fit(st->error, sizeof st->error, f->ferr.msg);
  sp_pl_fill_warnings(st, &f->w->s); /* the warnings n_warnings counts (0 when the read itself failed) */
}

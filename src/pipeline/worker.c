/* The worker and the stages of one task in order: see include/sitepack/pipeline.h and pipeline_internal.h. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pipeline_internal.h"
#include "sitepack/plan.h"

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
  sp_ligand_charges_free(&w->fq);
  free(w->fq_el);
  free(w->fq_q);
  free(w->fq_qc);
  free(w->fq_ca);
  free(w->fq_a1);
  free(w->fq_a2);
  free(w->fq_ord);
  free(w->fq_fl);
  free(w->fq_xyz);
  free(w);
}

size_t sp_worker_peak_bytes(const sp_worker *w) { return w->peak_bytes; }

double sp_worker_max_bytes_per_atom(const sp_worker *w) { return w->max_bytes_per_atom; }

_Static_assert(SP_SCAN_MAX_PATH + 1 == SP_PATH_LEN, "the scan lists only paths that fit /structures/path");

/* One task; with @p split, part must be 0 and n_parts is decided after the survey. */
static int process(sp_worker *w, const char *root, const char *relpath, int64_t file_idx, int part, int n_parts,
                   const sp_split_opts *split, const sp_cost_model *model, sp_ccd *ccd, const sp_task_opts *opts,
                   sp_result *out, sp_err *err);

int sp_worker_process(sp_worker *w, const char *root, const char *relpath, int64_t file_idx, sp_ccd *ccd,
                      const sp_task_opts *opts, sp_result *out, sp_err *err) {
  return sp_worker_process_part(w, root, relpath, file_idx, 0, 1, ccd, opts, out, err);
}

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

/* The result and its structure row before any stage: cleared, the task's place, the path. */
static void begin_result(sp_result *out, const char *relpath, int64_t file_idx, int part, int n_parts) {
  sp_result_clear(out);
  out->file_idx = file_idx;
  out->part = part;
  out->n_parts = n_parts;
  out->has_structure_row = part == 0;
  sp_structure_row *st = &out->st;
  sp_path_escape(relpath, st->path, sizeof st->path); /* issue 16: valid UTF-8 (the scan checked it fits) */
  st->resolution = st->r_work = st->r_free = NAN;
  st->entry_first = -1; /* issue 16 item 12: the run sets it from the whole file list (result.h) */
}

/* The stages in order, each answering PL_GO_ON, PL_FILE_FAILED or an error of the worker. */
static int run_stages(pl_file *f, const char *root, sp_err *err) {
  int n = snprintf(f->full, sizeof f->full, "%s/%s", root, f->relpath);
  if (n < 0 || (size_t)n >= sizeof f->full) {
    sp_err_set(&f->ferr, SP_E_INVALID, "%s: path too long", f->relpath);
    return PL_FILE_FAILED;
  }
  int rc = pl_stage_read(f);
  if (!rc) rc = pl_stage_guards(f);
  if (!rc) rc = pl_stage_survey(f, err);
  if (!rc) rc = pl_stage_context(f, err);
  for (size_t li = (size_t)f->lo; !rc && li < (size_t)f->hi; ++li) rc = pl_stage_ligand(f, li, err);
  return rc;
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
  begin_result(out, relpath, file_idx, part, n_parts);
  pl_file f = {.w = w, .relpath = relpath, .part = part, .n_parts = n_parts, .split = split, .model = model,
               .ccd = ccd, .opts = opts, .out = out};
  int rc = run_stages(&f, root, err);
  if (rc == PL_GO_ON) pl_finish_ok(&f);
  if (rc == PL_FILE_FAILED) pl_finish_failed(&f);
  pl_file_free(&f);
  return rc == PL_FILE_FAILED ? 0 : rc;
}

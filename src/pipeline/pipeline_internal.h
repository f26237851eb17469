/* Private to src/pipeline: the worker, the per-file state the stages share, the stages and the row fillers.
 *
 * One task (a file, or one part of a split file) is the stages of worker.c run in order over one
 * pl_file (stages.c): read + parse, the guards after the parse, survey, the file's context (chains,
 * PLINDER systems, symmetry warning), then one ligand stage per ligand of the part, then finish_ok.
 * Every stage answers PL_GO_ON, PL_FILE_FAILED (the file's row records pl_file.ferr: a failed file is
 * not an error of the run) or an error class of the worker itself (err set: the run stops). All that a
 * stage allocates lives in pl_file and is freed once, by pl_file_free. */
#ifndef SITEPACK_PIPELINE_INTERNAL_H
#define SITEPACK_PIPELINE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "sitepack/bonds.h"
#include "sitepack/entry.h"
#include "sitepack/io.h"
#include "sitepack/model.h"
#include "sitepack/pipeline.h"
#include "sitepack/site.h"
#include "sitepack/sitechem.h"
#include "sitepack/survey.h"
#include "sitepack/valence.h"

struct sp_worker {
  sp_structure s;
  sp_buf buf;
  sp_site_ws *ws;
  sp_site site;
  size_t peak_bytes;
  double max_bytes_per_atom; /* of the largest file read (most atoms) */
  size_t max_atoms_seen;
  sp_chem_ws *cws;      /* site chemistry (sitechem.h): see sp_pl_fill_site_chem */
  sp_site_chem chem;
  sp_bond_list bonds;   /* the ligand's bonds on its site block (bonds.h): see sp_pl_fill_site_bonds */
  /* the ligand atoms' formal charges (valence.h sp_ligand_charges) and its inputs gathered from the site:
   * the site atoms' element, the ligand atoms' charge, ccd_charge, ccd_atom, position as their rows hold them; the
   * bonds' atoms, orders and flags (the link-hydrogen rule) */
  sp_lig_charges fq;
  uint8_t *fq_el, *fq_ca;
  int8_t *fq_q, *fq_qc;
  int32_t *fq_a1, *fq_a2;
  uint8_t *fq_ord, *fq_fl;
  float *fq_xyz;
  size_t cap_fq_el, cap_fq_ca, cap_fq_q, cap_fq_qc, cap_fq_a1, cap_fq_a2, cap_fq_ord, cap_fq_fl, cap_fq_xyz;
};

/* ---------------------------------------------------------------- the per-file state (stages.c) */

/** What a stage answers besides an error class of the worker (error.h codes are > 0). */
enum { PL_GO_ON = 0, PL_FILE_FAILED = -1 };

/** One task in progress. The inputs are borrowed; sv, ec and sys are owned and freed by pl_file_free. */
typedef struct pl_file {
  sp_worker *w;
  const char *relpath;          /* the file as listed (messages name it) */
  char full[4096];              /* root "/" relpath */
  int part, n_parts;            /* n_parts is decided by the survey stage when split != NULL */
  const sp_split_opts *split;   /* NULL: n_parts is given */
  const sp_cost_model *model;   /* may be NULL */
  sp_ccd *ccd;                  /* may be NULL */
  const sp_task_opts *opts;
  sp_result *out;
  sp_err ferr;                  /* why the file failed: its status and error text */
  double t0, t1, t2;            /* sp_now() at the start, after the parse, after the survey (s) */
  sp_survey sv;                 /* the ligands of the file */
  sp_entry_chains ec;           /* its polymer chains */
  int32_t *sys;                 /* [2 * n_ligands]: PLINDER system id, then system size, per ligand */
  sp_site_opts sopt;
  int64_t lo, hi;               /* the part's ligands [lo, hi) */
} pl_file;

/** Frees what the stages allocated (safe on a zeroed or partly filled pl_file). */
void pl_file_free(pl_file *f);

/** Read (+ SHA-256 + inflate) and parse the file into w->s; the structure row's file facts and times. */
int pl_stage_read(pl_file *f);
/** The per-task guards after the parse (limits.max_atoms, limits.max_seconds), recorded as the status. */
int pl_stage_guards(pl_file *f);
/** Survey the ligands; decide n_parts when split; the file's /components rows (part 0). */
int pl_stage_survey(pl_file *f, sp_err *err);
/** Chains, PLINDER systems, /chains rows (part 0), the symmetry-mates warning; the part's ligand range. */
int pl_stage_context(pl_file *f, sp_err *err);
/** Ligand @p li: its /ligands row, site, bonds and chemistry rows, and the guards between ligands. */
int pl_stage_ligand(pl_file *f, size_t li, sp_err *err);
/** The whole file's counts, status "ok" and its warnings. */
void pl_finish_ok(pl_file *f);
/** The file's row says why it failed; nothing else of it is kept. */
void pl_finish_failed(pl_file *f);

/* ---------------------------------------------------------------- row fillers (rows_site.c, rows_ligand.c) */

/** Copy @p src into @p dst[cap], cut to cap - 1 bytes, NUL-padded. */
void sp_pl_copy_str(char *dst, size_t cap, const char *src);

/** The /sites row, its /residues and /atoms rows of @p site (of ligand row @p lig_idx, local).
 *  @p chain_of: /chains row per chain of @p s (entry.h), or NULL. @return 0; SP_E_NOMEM. */
int sp_pl_fill_site(const sp_structure *s, const sp_site *site, int64_t lig_idx, float cutoff,
                    const int64_t *chain_of, sp_result *out, sp_err *err);
/** The ligand's bonds (bonds.h) on the site just written: /bonds rows, the CCD charge and atom of its atoms,
 *  the ligand flags on row @p lr. @return 0; the error of sp_ligand_bonds; SP_E_NOMEM. */
int sp_pl_fill_site_bonds(sp_worker *w, const sp_survey *sv, size_t li, sp_ccd *ccd, sp_ligand_row *lr,
                          sp_result *out, sp_err *err);
/** RDKit's descriptors (descriptors.h) of the ligand of the site just written, as its exported SDF record
 *  (rows_desc.c), into @p lr->desc; not computed (flags 0) when RDKit does not sanitize it. @p fq: that site's
 *  sp_ligand_charges result (the worker's w->fq, whose own[] names the hydrogens left out; NULL: none).
 *  @return 0; SP_E_NOMEM. */
int sp_pl_fill_ligand_desc(sp_result *out, const sp_lig_charges *fq, sp_ligand_row *lr, sp_err *err);
/** The quality bits and pass_quality (result.h SP_QUAL_*; rows_quality.c) of site row @p row of ligand @p li, its
 *  ligand row @p lr already filled (flags, occupancy, B, site B). */
void sp_pl_fill_site_quality(const sp_structure *s, const sp_survey *sv, size_t li, const sp_site *site,
                             sp_ccd *ccd, const sp_ligand_row *lr, sp_site_row *row);
/** Site chemistry of the site just written (docs/sites.md "Site chemistry"): site, residue and atom columns
 *  and /interactions rows. @return 0; the error of sp_site_chem_compute; SP_E_NOMEM. */
int sp_pl_fill_site_chem(sp_worker *w, const sp_survey *sv, size_t li, sp_ccd *ccd, const sp_task_opts *opts,
                         sp_result *out, sp_err *err);
/** /chains, /segments and /sequences rows of the file; st.n_chains. @return 0; SP_E_NOMEM. */
int sp_pl_add_chain_rows(const sp_entry_chains *ec, sp_result *out, sp_err *err);
/** The /ligands row of @p L (fit statistics, residue list cut with " ..."); site_idx -1, site B NaN. */
void sp_pl_fill_ligand_row(const sp_structure *s, const sp_survey *sv, const sp_ligand *L, sp_ligand_row *row);
/** Mean and max B of the site's polymer heavy atoms near the ligand (site_b_mean, site_b_max on @p row). */
void sp_pl_pocket_fit(const sp_structure *s, const sp_site *site, sp_ligand_row *row);
/** /structures/warnings: the texts of the st->n_warnings warnings that n_warnings counts. */
void sp_pl_fill_warnings(sp_structure_row *st, const sp_structure *s);

#endif

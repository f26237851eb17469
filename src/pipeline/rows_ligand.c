/* The /ligands row of one ligand and the /structures warnings (pipeline_internal.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "pipeline_internal.h"

void sp_pl_copy_str(char *dst, size_t cap, const char *src) {
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
void sp_pl_pocket_fit(const sp_structure *s, const sp_site *site, sp_ligand_row *row) {
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

void sp_pl_fill_ligand_row(const sp_structure *s, const sp_survey *sv, const sp_ligand *L, sp_ligand_row *row) {
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
  sp_pl_copy_str(row->cls, sizeof row->cls, sp_ligand_class_name(L->cls));
  row->flags = L->flags;
  row->n_residues = (int32_t)L->n_res;
  row->n_atoms = (int32_t)L->n_atoms;
  row->n_heavy_atoms = (int32_t)L->n_heavy;
  row->n_ccd_heavy_atoms = L->n_ccd_heavy;
  sp_desc_clear(&row->desc); /* computed with its site (rows_desc.c) */
  ligand_fit(s, sv, L, row);
  row->site_b_mean = row->site_b_max = NAN;
  sp_pl_copy_str(row->molecule_key, sizeof row->molecule_key, L->molecule_key);
  sp_pl_copy_str(row->key_source, sizeof row->key_source, L->key_source);
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
  sp_pl_copy_str(row->identities, sizeof row->identities, L->identities);
  char key[64];
  int n = residue_key(s, r0, key, sizeof key);
  for (int i = 0; i < n; i++)
    if (key[i] == '/') key[i] = ':';
  if (L->copy) snprintf(key + (n > 0 ? n : 0), sizeof key - (size_t)(n > 0 ? n : 0), "#%u", L->copy);
  sp_pl_copy_str(row->instance_key, sizeof row->instance_key, key);
}

/* /structures/warnings (format version 4): the texts of the st->n_warnings warnings that n_warnings counts, the
   first ones @p s recorded (result.h sp_warnings_fit); "" when n_warnings is 0 (s may then be another file's) */
void sp_pl_fill_warnings(sp_structure_row *st, const sp_structure *s) {
  size_t n = st->n_warnings > 0 ? (size_t)st->n_warnings : 0;
  if (n > s->n_warnings) n = s->n_warnings;
  sp_warnings_fit(st->warnings, sizeof st->warnings, s->warnings, n);
}

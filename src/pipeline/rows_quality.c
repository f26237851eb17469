/* Site quality (result.h SP_QUAL_*, pipeline.h sp_site_quality; issue 36): the criteria, and the facts of one site
 * they judge, gathered from the structure, its survey and the site's rows. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pipeline_internal.h"

uint32_t sp_site_quality(const sp_quality_in *q) {
  if (!q) return 0;
  uint32_t b = 0;
  /* NaN compares false: an entry value that is unknown does not meet its criterion */
  if (!(q->resolution <= SP_QUAL_MAX_RESOLUTION)) b |= SP_QUAL_RESOLUTION;
  if (!(q->r_work <= SP_QUAL_MAX_R)) b |= SP_QUAL_R_WORK;
  if (!(q->r_free <= SP_QUAL_MAX_R_FREE)) b |= SP_QUAL_R_FREE;
  if (!(q->r_free - q->r_work <= SP_QUAL_MAX_R_GAP)) b |= SP_QUAL_R_GAP;
  if (q->lig_flags & SP_LIG_INCOMPLETE) b |= SP_QUAL_LIG_INCOMPLETE;
  if (q->n_altlocs > 1) b |= SP_QUAL_LIG_ALTLOCS;
  if (!(q->occupancy_mean >= SP_QUAL_MIN_OCCUPANCY)) b |= SP_QUAL_LIG_OCCUPANCY;
  if (!isnan(q->b_mean) && !isnan(q->site_b_mean) && q->b_mean > SP_QUAL_MAX_B_RATIO * q->site_b_mean)
    b |= SP_QUAL_LIG_B;
  if (q->pocket_incomplete) b |= SP_QUAL_POCKET_INCOMPLETE;
  if (q->pocket_gap) b |= SP_QUAL_POCKET_GAP;
  if (q->crystal_contact) b |= SP_QUAL_CRYSTAL_CONTACT;
  return b;
}

/* Distinct altloc ids among the atoms of the ligand's residues, every conformer. */
static int ligand_altlocs(const sp_structure *s, const sp_survey *sv, const sp_ligand *L) {
  char seen[64];
  int n = 0;
  for (uint32_t k = 0; k < L->n_res; k++) {
    const sp_residue *r = &s->residues[sv->res_refs[L->res_first + k]];
    for (uint32_t i = r->first_atom; i < r->first_atom + r->n_atoms; i++) {
      char a = s->altloc[i];
      if (!a || memchr(seen, a, (size_t)n)) continue;
      if (n < (int)sizeof seen) seen[n++] = a;
    }
  }
  return n;
}

/* Heavy atoms of the chosen conformer of residue @p ri against its CCD definition's non-leaving heavy atoms: true
 * when fewer (not judged without a usable block). */
static bool residue_incomplete(const sp_structure *s, const sp_survey *sv, uint32_t ri, sp_ccd *ccd) {
  const sp_residue *r = &s->residues[ri];
  const sp_component *def = ccd ? sp_ccd_get(ccd, r->comp_id, NULL) : NULL;
  if (!def || !def->n_atoms) return false;
  size_t need = 0, have = 0;
  for (size_t a = 0; a < def->n_atoms; a++) need += def->atoms[a].element != 1 && !def->atoms[a].leaving;
  for (uint32_t i = r->first_atom; i < r->first_atom + r->n_atoms; i++)
    have += s->element[i] != 1 && sp_survey_atom_chosen(s, sv, i);
  return have < need;
}

/* A label_seq_id missing between the smallest and largest of chain @p c's residues in the site. */
static bool chain_gap(const sp_structure *s, const sp_site *site, uint32_t c) {
  int32_t lo = INT32_MAX, hi = INT32_MIN;
  for (size_t k = 0; k < site->n_res; k++) {
    const sp_site_res *sr = &site->res[k];
    const sp_residue *r = &s->residues[sr->residue];
    if (sr->kind != SP_RES_KIND_POLYMER || sr->image || r->chain != c || r->label_seq_id == SP_SEQ_NONE) continue;
    if (r->label_seq_id < lo) lo = r->label_seq_id;
    if (r->label_seq_id > hi) hi = r->label_seq_id;
  }
  if (lo >= hi || hi - lo > 100000) return false;
  uint8_t *seen = calloc((size_t)(hi - lo + 1), 1);
  if (!seen) return false; /* out of memory: not judged */
  const sp_chain *ch = &s->chains[c];
  for (uint32_t ri = ch->first_residue; ri < ch->first_residue + ch->n_residues; ri++) {
    int32_t q = s->residues[ri].label_seq_id;
    if (q != SP_SEQ_NONE && q >= lo && q <= hi) seen[q - lo] = 1;
  }
  bool gap = memchr(seen, 0, (size_t)(hi - lo + 1)) != NULL;
  free(seen);
  return gap;
}

/* The pocket facts: incomplete residues, gaps in the chains' spans (each chain judged once). */
static void pocket_facts(const sp_structure *s, const sp_survey *sv, const sp_site *site, sp_ccd *ccd,
                         sp_quality_in *q) {
  for (size_t k = 0; k < site->n_res; k++) {
    const sp_site_res *sr = &site->res[k];
    if (sr->kind != SP_RES_KIND_POLYMER || sr->image) continue;
    if (!q->pocket_incomplete && residue_incomplete(s, sv, sr->residue, ccd)) q->pocket_incomplete = true;
    uint32_t c = s->residues[sr->residue].chain;
    bool first = true; /* the chain's first residue in the site: judge its span once */
    for (size_t j = 0; j < k && first; j++)
      first = !(site->res[j].kind == SP_RES_KIND_POLYMER && !site->res[j].image &&
                s->residues[site->res[j].residue].chain == c);
    if (first && !q->pocket_gap && chain_gap(s, site, c)) q->pocket_gap = true;
  }
}

void sp_pl_fill_site_quality(const sp_structure *s, const sp_survey *sv, size_t li, const sp_site *site,
                             sp_ccd *ccd, const sp_ligand_row *lr, sp_site_row *row) {
  sp_quality_in q = {.resolution = s->resolution, .r_work = s->r_work, .r_free = s->r_free,
                     .lig_flags = lr->flags, .occupancy_mean = lr->occupancy_mean, .b_mean = lr->b_mean,
                     .site_b_mean = lr->site_b_mean};
  q.n_altlocs = ligand_altlocs(s, sv, &sv->ligands[li]);
  pocket_facts(s, sv, site, ccd, &q);
  q.crystal_contact = (site->flags & SP_SITE_SYMMETRY) != 0;
  row->quality = sp_site_quality(&q);
  row->pass_quality = row->quality == 0;
}

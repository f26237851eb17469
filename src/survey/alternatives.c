/* Microheterogeneity and copies with identical identifiers (survey_internal.h; docs/ligands.md "Instances"). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sitepack/base.h"
#include "sitepack/survey.h"
#include "survey/survey_internal.h"

/* Residues a and b sit at one position: same chain, author number, insertion code and label number. */
static bool same_position(const sp_structure *s, uint32_t a, uint32_t b) {
  const sp_residue *x = &s->residues[a], *y = &s->residues[b];
  return x->chain == y->chain && x->auth_seq_id == y->auth_seq_id && x->ins_code == y->ins_code &&
         x->label_seq_id == y->label_seq_id;
}

/* Mean occupancy of residue r's atoms; *all_alt: every atom has an altloc; *alts: its altloc ids (up to 15). */
static double residue_occupancy(const sp_structure *s, uint32_t r, bool *all_alt, char alts[16]) {
  const sp_residue *R = &s->residues[r];
  double sum = 0;
  size_t na = 0;
  *all_alt = R->n_atoms > 0;
  memset(alts, 0, 16);
  for (uint32_t k = R->first_atom; k < R->first_atom + R->n_atoms; k++) {
    if (!s->altloc[k]) *all_alt = false;
    else if (!strchr(alts, s->altloc[k]) && na < 15) alts[na++] = s->altloc[k];
    sum += s->occupancy[k];
  }
  return R->n_atoms ? sum / R->n_atoms : 0;
}

static bool alts_disjoint(const char *a, const char *b) {
  for (; *a; a++)
    if (strchr(b, *a)) return false;
  return true;
}

/* The run of residues from r0 on that sit at r0's position, are lone ligand candidates (alone in their
 * instance: size[root] == 1) with every atom in an altloc, no altloc shared, and more than one comp_id; its
 * length (0: not such a run). */
static uint32_t microhet_run(const sp_structure *s, const uint8_t *cand, const uint32_t *size, uint32_t r0,
                             uint32_t end) {
  char seen[16 * 8 + 1] = "";
  bool two_comps = false;
  uint32_t n = 0;
  for (uint32_t r = r0; r < end && n < 8 && same_position(s, r0, r); r++, n++) {
    bool all_alt;
    char alts[16];
    residue_occupancy(s, r, &all_alt, alts);
    if (!cand[r] || size[r] != 1 || !all_alt || !alts_disjoint(alts, seen)) break;
    strcat(seen, alts);
    if (strcmp(s->residues[r].comp_id, s->residues[r0].comp_id)) two_comps = true;
  }
  return two_comps && n > 1 ? n : 0;
}

static uint32_t root_of(const uint32_t *uf, uint32_t x) {
  while (uf[x] != x) x = uf[x];
  return x;
}

int survey_microhet(const sp_structure *s, const sp_model *M, const uint32_t *uf, uint8_t *role, uint8_t *cand,
                    char *res_alt, uint32_t *mh_primary) {
  size_t nr = s->n_residues;
  uint32_t *size = calloc(nr ? nr : 1, sizeof *size);
  if (!size) return SP_E_NOMEM;
  for (size_t r = 0; r < nr; r++)
    if (role[r] == SP_ROLE_LIGAND) size[root_of(uf, (uint32_t)r)]++;
  for (size_t r = 0; r < nr; r++) size[r] = role[r] == SP_ROLE_LIGAND ? size[root_of(uf, (uint32_t)r)] : 0;
  for (uint32_t ci = M->first_chain; ci < M->first_chain + M->n_chains && ci < s->n_chains; ci++) {
    const sp_chain *C = &s->chains[ci];
    uint32_t end = C->first_residue + C->n_residues;
    for (uint32_t r = C->first_residue; r < end; r++) {
      uint32_t n = microhet_run(s, cand, size, r, end);
      if (!n) continue;
      uint32_t best = r;
      double best_occ = -1;
      for (uint32_t q = r; q < r + n; q++) { /* the identity of highest mean occupancy; ties: the first */
        bool all_alt;
        char alts[16];
        double occ = residue_occupancy(s, q, &all_alt, alts);
        if (occ > best_occ + 1e-6) best = q, best_occ = occ;
      }
      for (uint32_t q = r; q < r + n; q++) {
        mh_primary[q] = best;
        if (q == best) continue;
        role[q] = SP_ROLE_OTHER; /* an alternative identity: none of its atoms is chosen */
        cand[q] = 0;
        res_alt[q] = res_alt[best];
      }
      r += n - 1;
    }
  }
  free(size);
  return 0;
}

void survey_identities(const sp_structure *s, const uint32_t *mh_primary, uint32_t r, char *out, size_t cap) {
  out[0] = '\0';
  if (mh_primary[r] != r) return;
  const sp_chain *C = &s->chains[s->residues[r].chain];
  uint32_t q = r;
  while (q > C->first_residue && mh_primary[q - 1] == r) q--;
  size_t used = 0;
  for (; q < C->first_residue + C->n_residues && mh_primary[q] == r; q++) {
    bool all_alt;
    char alts[16];
    double occ = residue_occupancy(s, q, &all_alt, alts);
    int n = snprintf(out + used, cap - used, "%s%s:%s:%.2f", used ? " " : "", s->residues[q].comp_id, alts, occ);
    if (n < 0 || (size_t)n >= cap - used) { /* cut after the last identity that fits */
      out[used] = '\0';
      return;
    }
    used += (size_t)n;
  }
}

/* Ligands a and b have the same identifiers: model, comp_id, chain, author number and insertion code of their
 * first residue. */
static bool same_identifiers(const sp_structure *s, const uint32_t *res_refs, const sp_ligand *a, const sp_ligand *b) {
  const sp_residue *x = &s->residues[res_refs[a->res_first]], *y = &s->residues[res_refs[b->res_first]];
  return a->model == b->model && x->auth_seq_id == y->auth_seq_id && x->ins_code == y->ins_code &&
         x->label_seq_id == y->label_seq_id && !strcmp(x->comp_id, y->comp_id) &&
         !strcmp(s->chains[x->chain].auth_asym_id, s->chains[y->chain].auth_asym_id);
}

size_t survey_copies(const sp_structure *s, const uint32_t *res_refs, sp_ligand *ligs, size_t n) {
  size_t n_shared = 0;
  for (size_t i = 0; i < n; i++) {
    if (ligs[i].copy) continue;
    uint32_t k = 1;
    for (size_t j = i + 1; j < n; j++)
      if (!ligs[j].copy && same_identifiers(s, res_refs, &ligs[i], &ligs[j])) ligs[j].copy = ++k;
    if (k > 1) ligs[i].copy = 1, n_shared++;
  }
  return n_shared;
}

/* Repeated atom names inside one residue (issue 13): a step of sp_structure_finish (model.h). */
#include <string.h>

#include "model_internal.h"

/* Identical residue identifiers in one chain: only a repeated (atom name, altloc) in
 * sp_structure_add_atom separates two such neighbours. */
static bool same_ids(const sp_residue *a, const sp_residue *b) {
  return a->chain == b->chain && !strcmp(a->comp_id, b->comp_id) && a->label_seq_id == b->label_seq_id &&
         a->auth_seq_id == b->auth_seq_id && a->ins_code == b->ins_code;
}

static bool same_pair(const sp_structure *s, uint32_t i, uint32_t k) {
  return s->altloc[i] == s->altloc[k] && !strcmp(s->atom_name[i], s->atom_name[k]);
}

/* Whether the (atom name, altloc) of atom k occurs among atoms [lo, hi) other than k itself. */
static bool pair_in(const sp_structure *s, uint32_t k, uint32_t lo, uint32_t hi) {
  for (uint32_t i = lo; i < hi; i++)
    if (i != k && same_pair(s, i, k)) return true;
  return false;
}

/* Whether residue b (after a) is a second copy of a (case B16: two NAG with the same ids) rather than
 * the rest of a whose names repeat: at least half of the atoms of b repeat a pair of a, and they are at
 * least half as many as the atoms of a, and they are two or more unless a and b are single atoms (two
 * waters or ions with the same ids). Two copies of a residue repeat (nearly) every name; a ligand
 * whose H are all "H" repeats one name of many, a bad deposition's second "C1" one of the rest. */
static bool is_copy(const sp_structure *s, const sp_residue *a, const sp_residue *b) {
  uint32_t hits = 0;
  for (uint32_t k = b->first_atom; k < b->first_atom + b->n_atoms; k++)
    hits += pair_in(s, k, a->first_atom, a->first_atom + a->n_atoms);
  return 2 * hits >= b->n_atoms && 2 * hits >= a->n_atoms && (hits >= 2 || (a->n_atoms == 1 && b->n_atoms == 1));
}

/* Flag the atoms of residue r whose (atom name, altloc) repeats; one warning per repeated pair for
 * residues of model 1, a count for later models. */
static void flag_repeats(sp_structure *s, uint32_t r, size_t *n_later) {
  const sp_residue *R = &s->residues[r];
  uint32_t lo = R->first_atom, hi = lo + R->n_atoms;
  for (uint32_t k = lo; k < hi; k++) {
    if ((s->atom_flags[k] & SP_ATOM_REPEATED_NAME) || !pair_in(s, k, lo, hi)) continue;
    uint32_t n = 0;
    for (uint32_t i = k; i < hi; i++)
      if (same_pair(s, i, k)) {
        s->atom_flags[i] |= SP_ATOM_REPEATED_NAME;
        n++;
      }
    const sp_chain *c = &s->chains[R->chain];
    if (c->model) {
      ++*n_later;
      continue;
    }
    char ins[2] = {R->ins_code, 0}, alt[2] = {s->altloc[k], 0};
    sp_structure_warn(s, "repeated_atom_name: residue %s %s %d%s: %u atoms named '%s'%s%s, kept as one residue; "
                      "their CCD bonds are left out", R->comp_id, c->auth_asym_id, (int)R->auth_seq_id, ins, n,
                      s->atom_name[k], alt[0] ? " altloc " : "", alt);
  }
}

/* Renumber chains, models and atoms after residues were joined. */
static void renumber(sp_structure *s) {
  uint32_t next = 0;
  for (size_t ci = 0; ci < s->n_chains; ci++) {
    s->chains[ci].first_residue = next;
    next += s->chains[ci].n_residues;
  }
  for (size_t mi = 0; mi < s->n_models; mi++) {
    sp_model *m = &s->models[mi];
    m->first_residue = m->n_chains ? s->chains[m->first_chain].first_residue : next;
  }
  for (size_t r = 0; r < s->n_residues; r++) {
    const sp_residue *R = &s->residues[r];
    for (uint32_t k = R->first_atom; k < R->first_atom + R->n_atoms; k++) s->atom_residue[k] = (uint32_t)r;
  }
}

void sp_structure_join_repeats_(sp_structure *s) {
  if (s->n_residues < 2) return;
  size_t w = 1, n_later = 0;
  bool joined = false;
  for (size_t r = 1; r < s->n_residues; r++) {
    sp_residue *prev = &s->residues[w - 1];
    const sp_residue *cur = &s->residues[r];
    if (same_ids(prev, cur) && !is_copy(s, prev, cur)) {
      prev->n_atoms += cur->n_atoms;
      prev->all_hetatm = prev->all_hetatm && cur->all_hetatm;
      prev->pad_ = 1; /* joined: the only residues that hold a repeated pair (the scan splits the others) */
      s->chains[cur->chain].n_residues--;
      s->models[s->chains[cur->chain].model].n_residues--;
      joined = true;
      continue;
    }
    if (w != r) s->residues[w] = *cur;
    w++;
  }
  if (!joined) return;
  s->n_residues = w;
  s->rb_residue_ = SIZE_MAX;
  renumber(s);
  for (size_t r = 0; r < s->n_residues; r++)
    if (s->residues[r].pad_) {
      s->residues[r].pad_ = 0;
      flag_repeats(s, (uint32_t)r, &n_later);
    }
  if (n_later)
    sp_structure_warn(s, "repeated_atom_name: %zu more repeated atom names in residues of models after the first",
                      n_later);
}

/* Repeated atom names inside one residue (issue 13): a step of sp_structure_finish (model.h). */
#include <stdlib.h>
#include <string.h>

#include "model_internal.h"

/* Identical residue identifiers in one chain: only a repeated (atom name, altloc) in
 * sp_structure_add_atom separates two such neighbours. */
static bool same_ids(const sp_residue *a, const sp_residue *b) {
  return a->chain == b->chain && !strcmp(a->comp_id, b->comp_id) && a->label_seq_id == b->label_seq_id &&
         a->auth_seq_id == b->auth_seq_id && a->ins_code == b->ins_code;
}


/* Whether the (atom name, altloc) of atom k occurs among atoms [lo, hi) other than k itself. */
static bool pair_in(const sp_structure *s, uint32_t k, uint32_t lo, uint32_t hi) {
  for (uint32_t i = lo; i < hi; i++)
    if (i != k && sp_same_pair_(s, i, k)) return true;
  return false;
}

/* Whether some atom of b repeats an atom of a exactly: same (atom name, altloc) at the same
 * coordinates (a record written twice). */
static bool has_duplicate(const sp_structure *s, const sp_residue *a, const sp_residue *b) {
  for (uint32_t k = b->first_atom; k < b->first_atom + b->n_atoms; k++)
    for (uint32_t i = a->first_atom; i < a->first_atom + a->n_atoms; i++)
      if (sp_same_pair_(s, i, k) && sp_same_xyz_(s, i, k)) return true;
  return false;
}

/* Bonded by distance (Å): 2.2 between heavy atoms (C-C 1.54, C-Cl 1.77, C-Br 1.94, S-S 2.05: a
 * continuation of one molecule), 1.3 with an H (O-H 0.96, C-H 1.09), while two molecules stay apart
 * (O...O of two waters 2.5 or more, H...O of a hydrogen bond 1.7 or more). The model knows no
 * covalent radii (it sits below chem), and these two bounds separate the cases that matter here. */
static bool bonded(const sp_structure *s, uint32_t i, uint32_t k) {
  float d2 = 0;
  for (int c = 0; c < 3; c++) d2 += (s->xyz[i][c] - s->xyz[k][c]) * (s->xyz[i][c] - s->xyz[k][c]);
  float lim = (s->element[i] == 1 || s->element[k] == 1) ? 1.3f : 2.2f;
  return d2 <= lim * lim;
}

static bool any_bond(const sp_structure *s, const sp_residue *a, const sp_residue *b) {
  for (uint32_t k = b->first_atom; k < b->first_atom + b->n_atoms; k++)
    for (uint32_t i = a->first_atom; i < a->first_atom + a->n_atoms; i++)
      if (bonded(s, i, k)) return true;
  return false;
}

/* A name of one or two letters only: an element symbol as Open Babel-style writers name atoms (C, O,
 * CL), which says nothing about which atom of a molecule it is. */
static bool element_like(const char *name) {
  size_t n = strlen(name);
  if (n < 1 || n > 2) return false;
  for (size_t i = 0; i < n; i++)
    if (!((name[i] >= 'A' && name[i] <= 'Z') || (name[i] >= 'a' && name[i] <= 'z'))) return false;
  return true;
}

/* Every atom of b that repeats a pair of a has an element-like name. */
static bool repeats_element_like(const sp_structure *s, const sp_residue *a, const sp_residue *b) {
  for (uint32_t k = b->first_atom; k < b->first_atom + b->n_atoms; k++)
    if (pair_in(s, k, a->first_atom, a->first_atom + a->n_atoms) && !element_like(s->atom_name[k])) return false;
  return true;
}

/* Whether residue b (after a, identical identifiers) is a second copy of a (case B16: two NAG with
 * the same ids; waters or ions of one chain with label_seq_id '.' and no auth_seq_id) rather than
 * the rest of a whose names repeat. All of these must hold:
 * 1. names: at least half of the atoms of b repeat a pair of a, and they are at least half as many
 *    as the atoms of a, and they are two or more unless a and b are single atoms. Two copies of a
 *    residue repeat (nearly) every name; a ligand whose H are all "H" repeats one name of many, a
 *    bad deposition's second "C1" one of the rest;
 * 2. no atom of b is an exact duplicate of one of a (same name, altloc and coordinates): a record
 *    written twice is no second molecule (the duplicates are dropped, see drop_duplicates);
 * 3. b is not a bonded continuation of a: where an atom of b is within bonding distance of one of a
 *    and b has at most two atoms or repeats only element-like names (C, O, C, O, C, O as Open Babel
 *    writes them, or C, C, C, O, O, O), the repeated names say nothing about copies and the pieces
 *    are one molecule (gemmi 0.5.7 reads such a ligand as one residue). Two copies of a larger
 *    residue with real atom names may be bonded (a glycan NAG-NAG whose two residues have identical
 *    ids: one O4-C1 link) and stay two; two waters or ions are not bonded. */
static bool is_copy(const sp_structure *s, const sp_residue *a, const sp_residue *b) {
  uint32_t hits = 0;
  for (uint32_t k = b->first_atom; k < b->first_atom + b->n_atoms; k++)
    hits += pair_in(s, k, a->first_atom, a->first_atom + a->n_atoms);
  if (!(2 * hits >= b->n_atoms && 2 * hits >= a->n_atoms && (hits >= 2 || (a->n_atoms == 1 && b->n_atoms == 1))))
    return false;
  if (has_duplicate(s, a, b)) return false;
  if ((b->n_atoms <= 2 || repeats_element_like(s, a, b)) && any_bond(s, a, b)) return false;
  return true;
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
      if (sp_same_pair_(s, i, k)) {
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

/* Drop the atoms with keep[k] == 0 from every per-atom array; residues and models shrink. */
static void compact_atoms(sp_structure *s, const uint8_t *keep) {
  size_t w = 0;
  for (size_t k = 0; k < s->n_atoms; k++) {
    if (!keep[k]) continue;
    if (w != k) {
#define MOVE_ROW(f) memcpy(&s->f[w], &s->f[k], sizeof s->f[k]);
      SP_ATOM_ARRAYS(MOVE_ROW)
#undef MOVE_ROW
    }
    w++;
  }
  s->n_atoms = w;
  uint32_t next = 0;
  for (size_t r = 0; r < s->n_residues; r++) {
    sp_residue *R = &s->residues[r];
    uint32_t n = 0;
    for (uint32_t k = R->first_atom; k < R->first_atom + R->n_atoms; k++) n += keep[k];
    R->first_atom = next, R->n_atoms = n;
    next += n;
  }
  for (size_t m = 0; m < s->n_models; m++) {
    sp_model *M = &s->models[m];
    M->n_atoms = 0;
    if (M->n_residues) M->first_atom = s->residues[M->first_residue].first_atom;
    for (uint32_t r = M->first_residue; r < M->first_residue + M->n_residues; r++) M->n_atoms += s->residues[r].n_atoms;
  }
}

/* Exact duplicate atom records (same residue, atom name, altloc and coordinates: a record written
 * twice) in the residues marked pad_: the later records are dropped, with one warning per residue of
 * model 1 that says how many ("duplicate atom records"), one with the count for later models. gemmi
 * keeps them (one residue of both copies); we drop them so that heavy-atom counts, the chosen
 * conformer and the site are those of one molecule. Nothing refers to atom rows yet (CONECT serials
 * and connection ends are resolved after this step; a CONECT record naming a dropped serial then
 * gives no bond). */
static void drop_duplicates(sp_structure *s) {
  uint8_t *keep = NULL;
  size_t n_later = 0;
  for (size_t r = 0; r < s->n_residues; r++) {
    const sp_residue *R = &s->residues[r];
    if (!R->pad_) continue;
    uint32_t lo = R->first_atom, hi = lo + R->n_atoms, n = 0;
    for (uint32_t k = lo + 1; k < hi; k++)
      for (uint32_t i = lo; i < k; i++)
        if (sp_same_pair_(s, i, k) && sp_same_xyz_(s, i, k)) {
          if (!keep) {
            if (!(keep = malloc(s->n_atoms))) return; /* no memory: kept, and flagged as repeats */
            memset(keep, 1, s->n_atoms);
          }
          keep[k] = 0;
          n++;
          break;
        }
    if (!n) continue;
    const sp_chain *c = &s->chains[R->chain];
    if (c->model) {
      n_later += n;
      continue;
    }
    char ins[2] = {R->ins_code, 0};
    sp_structure_warn(s, "duplicate atom records: residue %s %s %d%s: %u records repeat an atom of the residue "
                      "(same name, altloc and coordinates), dropped", R->comp_id, c->auth_asym_id,
                      (int)R->auth_seq_id, ins, n);
  }
  if (n_later)
    sp_structure_warn(s, "duplicate atom records: %zu more in residues of models after the first, dropped", n_later);
  if (keep) compact_atoms(s, keep);
  free(keep);
}

void sp_structure_join_repeats_(sp_structure *s) {
  size_t w = 1, n_later = 0;
  bool joined = false;
  for (size_t r = 1; r < s->n_residues; r++) {
    sp_residue *prev = &s->residues[w - 1];
    const sp_residue *cur = &s->residues[r];
    if (same_ids(prev, cur) && !is_copy(s, prev, cur)) {
      prev->n_atoms += cur->n_atoms;
      prev->all_hetatm = prev->all_hetatm && cur->all_hetatm;
      prev->pad_ = 1; /* joined: with the residues that add_atom kept whole at a cut name, the only ones
                         that hold a repeated pair (the scan splits the others) */
      s->chains[cur->chain].n_residues--;
      s->models[s->chains[cur->chain].model].n_residues--;
      joined = true;
      continue;
    }
    if (w != r) s->residues[w] = *cur;
    w++;
  }
  if (joined) {
    s->n_residues = w;
    s->rb_residue_ = SIZE_MAX;
    renumber(s);
  }
  drop_duplicates(s);
  for (size_t r = 0; r < s->n_residues; r++)
    if (s->residues[r].pad_) {
      s->residues[r].pad_ = 0;
      flag_repeats(s, (uint32_t)r, &n_later);
    }
  if (n_later)
    sp_structure_warn(s, "repeated_atom_name: %zu more repeated atom names in residues of models after the first",
                      n_later);
}

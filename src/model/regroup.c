/* Residues and models that a file gives in pieces: a step of sp_structure_finish (model.h).
 *
 * sp_structure_add_atom starts a residue (and a model) whenever the identifiers change from the
 * previous atom record, so a residue whose atoms are not next to each other in the file became two
 * residues: H atoms that reduce / PDBFixer-style writers append after the other records, an altloc B
 * block written after other residues, and mmCIF rows of model 1 after rows of model 2 (models
 * interleaved). gemmi (0.5.7, read_pdb / read_atom_site) adds such atoms to the residue it already
 * has: a residue is (model, chain, seq id, insertion code, name), wherever its atoms are. So do we,
 * as one pass that moves whole residue pieces, stably:
 *
 * - model entries with the same number are one model (PDBx/mmCIF: pdbx_PDB_model_num is the model's
 *   identifier). The PDB reader gives every MODEL record a number of its own (R04), so this joins
 *   only mmCIF rows;
 * - a residue piece whose identifiers (model, label_asym_id, auth_asym_id, comp_id, label_seq_id,
 *   auth_seq_id, insertion code) equal those of an earlier, not adjacent piece of the same model
 *   moves to follow that piece, unless it holds an (atom name, altloc) of that residue at other
 *   coordinates: then it is another instance with the same identifiers (chain ids reused by a
 *   writer, a second copy), kept where it is, and one warning counts such pieces. (gemmi joins
 *   pieces within one run of a chain only, whatever their names; we join across runs of the same
 *   chain ids, where PDB files put a chain's HETATM records after the other chains, but never two
 *   pieces that name one atom twice.)
 *
 * The moved pieces are then adjacent to their residue; sp_structure_join_repeats_ joins them (it
 * joins adjacent pieces with identical identifiers that are no second copy). Nothing that refers to
 * atom rows exists yet: CONECT serials and connection ends are resolved after this step.
 *
 * Cost: a file whose models come in increasing numbers and whose residue numbers (label_seq_id,
 * auth_seq_id, insertion code) increase along each chain's ids, over all runs of those ids, cannot
 * hold a piece to move; that check is one comparison per residue (and one per pair of chain runs of
 * a model, up to 64 runs). Other files take one hash lookup per residue (40 of the 225 files of
 * shared/data/structures, thrombin's reverse-coded insertion codes among them); check and lookups
 * together are 0.13 % of sp_read_structure_file's time there. Only files with pieces to move are
 * reordered. */
#include <stdlib.h>
#include <string.h>

#include "model_internal.h"
#include "sitepack/model_inline.h"

/* (label_seq_id, auth_seq_id, insertion code) strictly increasing from residue a to b */
static bool seq_after(const sp_residue *a, const sp_residue *b) {
  if (a->label_seq_id != b->label_seq_id) return b->label_seq_id > a->label_seq_id;
  if (a->auth_seq_id != b->auth_seq_id) return b->auth_seq_id > a->auth_seq_id;
  return (unsigned char)b->ins_code > (unsigned char)a->ins_code;
}

static bool same_chain_ids(const sp_chain *a, const sp_chain *b) {
  return pack_fixed(a->label_asym_id) == pack_fixed(b->label_asym_id) &&
         pack_fixed(a->auth_asym_id) == pack_fixed(b->auth_asym_id);
}

/* The quick test: nothing can need moving (see the file comment). Runs of one chain's ids (PDB files
 * put a chain's HETATM records and waters after the other chains) pass when each run starts above
 * the end of the run before it with the same ids. */
static bool plainly_ordered(const sp_structure *s) {
  for (size_t m = 1; m < s->n_models; m++)
    if (s->models[m].model_num <= s->models[m - 1].model_num) return false;
  for (size_t r = 1; r < s->n_residues; r++)
    if (s->residues[r].chain == s->residues[r - 1].chain && !seq_after(&s->residues[r - 1], &s->residues[r]))
      return false;
  for (size_t m = 0; m < s->n_models; m++) {
    const sp_model *M = &s->models[m];
    if (M->n_chains > 64) return false; /* the pairwise test below stays small */
    for (uint32_t b = M->first_chain + 1; b < M->first_chain + M->n_chains; b++)
      for (uint32_t a = b; a-- > M->first_chain;) {
        const sp_chain *A = &s->chains[a], *B = &s->chains[b];
        if (!same_chain_ids(A, B)) continue;
        if (!A->n_residues || !B->n_residues ||
            !seq_after(&s->residues[A->first_residue + A->n_residues - 1], &s->residues[B->first_residue]))
          return false;
        break; /* the latest run before b with its ids */
      }
  }
  return true;
}

/* Model group of every model entry: the index of the first entry with its number; mnext[m] the next
 * entry of m's group (UINT32_MAX at the end). */
typedef struct {
  int32_t num;
  uint32_t idx;
} model_key;

static int cmp_model_key(const void *pa, const void *pb) {
  const model_key *a = pa, *b = pb;
  if (a->num != b->num) return a->num < b->num ? -1 : 1;
  return a->idx < b->idx ? -1 : a->idx > b->idx;
}

static int model_groups(const sp_structure *s, uint32_t *mg, uint32_t *mnext, bool *any) {
  model_key *k = malloc((s->n_models ? s->n_models : 1) * sizeof *k);
  if (!k) return SP_E_NOMEM;
  for (size_t m = 0; m < s->n_models; m++) k[m] = (model_key){s->models[m].model_num, (uint32_t)m};
  qsort(k, s->n_models, sizeof *k, cmp_model_key);
  *any = false;
  for (size_t i = 0; i < s->n_models; i++) {
    bool same = i && k[i].num == k[i - 1].num;
    mg[k[i].idx] = same ? mg[k[i - 1].idx] : k[i].idx;
    mnext[k[i].idx] = i + 1 < s->n_models && k[i + 1].num == k[i].num ? k[i + 1].idx : UINT32_MAX;
    *any |= same;
  }
  free(k);
  return 0;
}

static uint64_t res_hash(const sp_structure *s, const uint32_t *mg, uint32_t r) {
  const sp_residue *R = &s->residues[r];
  const sp_chain *C = &s->chains[R->chain];
  uint64_t h = sp_hash_combine(0, mg[C->model]);
  h = sp_hash_combine(h, pack_fixed(C->label_asym_id));
  h = sp_hash_combine(h, pack_fixed(C->auth_asym_id));
  h = sp_hash_combine(h, pack_fixed(R->comp_id));
  h = sp_hash_combine(h, (uint64_t)(uint32_t)R->label_seq_id << 32 | (uint32_t)R->auth_seq_id);
  return sp_hash_combine(h, (unsigned char)R->ins_code);
}

static bool same_res(const sp_structure *s, const uint32_t *mg, uint32_t a, uint32_t b) {
  const sp_residue *A = &s->residues[a], *B = &s->residues[b];
  const sp_chain *CA = &s->chains[A->chain], *CB = &s->chains[B->chain];
  return mg[CA->model] == mg[CB->model] && same_chain_ids(CA, CB) &&
         pack_fixed(A->comp_id) == pack_fixed(B->comp_id) && A->label_seq_id == B->label_seq_id &&
         A->auth_seq_id == B->auth_seq_id && A->ins_code == B->ins_code;
}

/* Whether piece r names an atom (name, altloc) of the pieces of group `lead` (linked by next[]) at
 * other coordinates; a group too large to scan counts as such (kept apart). */
static bool conflicts(const sp_structure *s, const uint32_t *next, uint32_t lead, uint32_t r) {
  const sp_residue *R = &s->residues[r];
  uint32_t total = R->n_atoms;
  for (uint32_t q = lead; q != UINT32_MAX; q = next[q]) total += s->residues[q].n_atoms;
  if (total > 2 * SP_RESIDUE_REPEAT_SCAN) return true;
  for (uint32_t q = lead; q != UINT32_MAX; q = next[q]) {
    const sp_residue *Q = &s->residues[q];
    for (uint32_t k = R->first_atom; k < R->first_atom + R->n_atoms; k++)
      for (uint32_t j = Q->first_atom; j < Q->first_atom + Q->n_atoms; j++)
        if (sp_same_pair_(s, j, k) && !sp_same_xyz_(s, j, k))
          return true;
  }
  return false;
}

typedef struct {
  uint32_t *mg;    /* model group of each model entry */
  uint32_t *mnext; /* next model entry of the same group */
  uint32_t *lead;  /* group leader of each residue */
  uint32_t *next;  /* next member of the leader's group, UINT32_MAX at the end */
  uint32_t *tail;  /* last member of a leader's group */
  uint32_t *order; /* residues in their new order */
} plan;

/* Find the pieces to move: lead[r] != r for a piece that joins an earlier residue. @return the
 * number of pieces moved (>0), 0, or -1 when out of memory. */
static long find_pieces(sp_structure *s, plan *p, size_t *n_apart) {
  size_t cap = 16;
  while (cap < 2 * s->n_residues) cap *= 2;
  uint32_t *tab = malloc(cap * sizeof *tab); /* residue index of the last piece of each key */
  if (!tab) return -1;
  memset(tab, 0xff, cap * sizeof *tab);
  long moved = 0;
  for (uint32_t r = 0; r < s->n_residues; r++) {
    p->lead[r] = p->tail[r] = r;
    p->next[r] = UINT32_MAX;
    size_t h = (size_t)res_hash(s, p->mg, r) & (cap - 1);
    while (tab[h] != UINT32_MAX && !same_res(s, p->mg, tab[h], r)) h = (h + 1) & (cap - 1);
    uint32_t q = tab[h];
    tab[h] = r;
    if (q == UINT32_MAX) continue;
    uint32_t L = p->lead[q];
    if (q + 1 != r) {
      if (conflicts(s, p->next, L, r)) {
        ++*n_apart;
        continue;
      }
      moved++;
    }
    p->lead[r] = L; /* an adjacent piece (a copy, or a split at a repeated name) stays in its group */
    p->next[p->tail[L]] = r;
    p->tail[L] = r;
  }
  free(tab);
  return moved;
}

/* The new residue order: models by group (first appearance), in each the residues of its entries
 * in file order, each group of pieces at its first piece. */
static void make_order(const sp_structure *s, plan *p) {
  size_t w = 0;
  for (size_t g = 0; g < s->n_models; g++) {
    if (p->mg[g] != g) continue;
    for (uint32_t m = (uint32_t)g; m != UINT32_MAX; m = p->mnext[m]) {
      const sp_model *M = &s->models[m];
      for (uint32_t r = M->first_residue; r < M->first_residue + M->n_residues; r++)
        if (p->lead[r] == r)
          for (uint32_t q = r; q != UINT32_MAX; q = p->next[q]) p->order[w++] = q;
    }
  }
}

#define PERMUTE(arr)                                                     \
  do {                                                                   \
    size_t k_ = 0;                                                       \
    for (size_t i_ = 0; i_ < s->n_residues; i_++) {                      \
      const sp_residue *R_ = &res[i_];                                   \
      memcpy((char *)tmp + k_ * sizeof *s->arr, &s->arr[R_->first_atom], \
             (size_t)R_->n_atoms * sizeof *s->arr);                      \
      k_ += R_->n_atoms;                                                 \
    }                                                                    \
    memcpy(s->arr, tmp, s->n_atoms * sizeof *s->arr);                    \
  } while (0);

/* Move the atoms to the residue order of `res` (the old residues, reordered), then renumber (every
 * per-atom array moves, SP_ATOM_ARRAYS; atom_residue is then written again). */
static int move_atoms(sp_structure *s, sp_residue *res) {
  void *tmp = malloc(s->n_atoms * sizeof *s->xyz); /* xyz: the widest per-atom element (12 bytes) */
  if (!tmp) return SP_E_NOMEM;
  SP_ATOM_ARRAYS(PERMUTE)
  free(tmp);
  uint32_t k = 0;
  for (size_t r = 0; r < s->n_residues; r++) {
    res[r].first_atom = k;
    for (uint32_t j = 0; j < res[r].n_atoms; j++) s->atom_residue[k++] = (uint32_t)r;
  }
  return 0;
}

/* Chains and models again from the new residue order: a chain run ends where the chain ids or the
 * model group change (as sp_structure_add_atom reads them); every chain and model keeps the fields
 * of its first entry. */
static int rebuild(sp_structure *s, const plan *p, sp_residue *res) {
  sp_chain *ch = malloc((s->n_chains ? s->n_chains : 1) * sizeof *ch);
  sp_model *md = malloc((s->n_models ? s->n_models : 1) * sizeof *md);
  if (!ch || !md) {
    free(ch), free(md);
    return SP_E_NOMEM;
  }
  size_t nc = 0, nm = 0;
  uint32_t cur = UINT32_MAX; /* model group of md[nm - 1] */
  for (size_t r = 0; r < s->n_residues; r++) {
    const sp_chain *oc = &s->chains[res[r].chain];
    bool new_model = p->mg[oc->model] != cur;
    if (new_model) {
      cur = p->mg[oc->model];
      md[nm] = s->models[cur];
      md[nm].first_atom = res[r].first_atom;
      md[nm].first_residue = (uint32_t)r;
      md[nm].first_chain = (uint32_t)nc;
      md[nm].n_atoms = md[nm].n_residues = md[nm].n_chains = 0;
      nm++;
    }
    sp_model *M = &md[nm - 1];
    if (new_model || !same_chain_ids(&ch[nc - 1], oc)) {
      ch[nc] = *oc;
      ch[nc].model = (uint32_t)(nm - 1);
      ch[nc].first_residue = (uint32_t)r;
      ch[nc].n_residues = 0;
      nc++;
      M->n_chains++;
    }
    res[r].chain = (uint32_t)(nc - 1);
    ch[nc - 1].n_residues++;
    M->n_residues++;
    M->n_atoms += res[r].n_atoms;
  }
  memcpy(s->chains, ch, nc * sizeof *ch);
  memcpy(s->models, md, nm * sizeof *md);
  s->n_chains = nc, s->n_models = nm;
  free(ch), free(md);
  return 0;
}

int sp_structure_regroup_(sp_structure *s, sp_err *err) {
  if (s->n_residues < 2 || plainly_ordered(s)) return 0;
  plan p = {0};
  size_t nr = s->n_residues;
  p.mg = malloc((s->n_models ? s->n_models : 1) * sizeof *p.mg);
  p.mnext = malloc((s->n_models ? s->n_models : 1) * sizeof *p.mnext);
  p.lead = malloc(nr * sizeof *p.lead), p.next = malloc(nr * sizeof *p.next);
  p.tail = malloc(nr * sizeof *p.tail), p.order = malloc(nr * sizeof *p.order);
  sp_residue *res = malloc(nr * sizeof *res);
  int rc = SP_E_NOMEM;
  bool models_joined = false;
  if (!p.mg || !p.mnext || !p.lead || !p.next || !p.tail || !p.order || !res) goto out;
  if (model_groups(s, p.mg, p.mnext, &models_joined)) goto out;
  size_t n_apart = 0;
  long moved = find_pieces(s, &p, &n_apart);
  if (moved < 0) goto out;
  rc = 0;
  if (n_apart)
    sp_structure_warn(s, "%zu residue piece%s repeat%s the identifiers of an earlier, not adjacent residue and name%s "
                      "one of its atoms again at other coordinates: read as separate residues", n_apart,
                      n_apart == 1 ? "" : "s", n_apart == 1 ? "s" : "", n_apart == 1 ? "s" : "");
  if (!moved && !models_joined) goto out;
  make_order(s, &p);
  for (size_t i = 0; i < nr; i++) res[i] = s->residues[p.order[i]];
  if ((rc = move_atoms(s, res)) || (rc = rebuild(s, &p, res))) goto out;
  memcpy(s->residues, res, nr * sizeof *res);
  s->rb_residue_ = SIZE_MAX;
  if (moved)
    sp_structure_warn(s, "%ld residue piece%s joined to an earlier residue with the same identifiers (atoms of one "
                      "residue not contiguous in the file)", moved, moved == 1 ? "" : "s");
  if (models_joined)
    sp_structure_warn(s, "atom records of one model number not contiguous in the file: read as one model");
out:
  if (rc == SP_E_NOMEM) sp_err_set(err, SP_E_NOMEM, "out of memory (regrouping residues)");
  free(p.mg), free(p.mnext), free(p.lead), free(p.next), free(p.tail), free(p.order), free(res);
  return rc;
}

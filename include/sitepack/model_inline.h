/**
 * @file model_inline.h
 * @brief sp_structure_add_atom() and its helpers as inline functions, for the readers that
 *        build the model (the mmCIF reader calls sp_structure_add_atom_inline directly, so that
 *        the atom it has just converted goes into the arrays without a call and without passing
 *        through memory). Same contract, arguments, errors and result as sp_structure_add_atom
 *        (model.h), which is this function out of line. Names ending in '_' are its helpers,
 *        not for other callers.
 */
#ifndef SITEPACK_MODEL_INLINE_H
#define SITEPACK_MODEL_INLINE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sitepack/base.h"
#include "sitepack/model.h"

_Static_assert(SP_ID_LEN == 8, "identifiers are compared and stored as one 64-bit word");

/* Largest residue (atoms) scanned for a repeated atom name; see sp_structure_add_atom. */
#define SP_RESIDUE_REPEAT_SCAN 512

static inline int sp_model_grow_atoms_(sp_structure *s, size_t need) {
  if (need <= s->cap_atoms) return 0;
  size_t nc = s->cap_atoms ? s->cap_atoms : 1024;
  while (nc < need) nc += nc / 2;
#define RE(f)                                            \
  do {                                                   \
    void *p_ = sp_realloc_array(s->f, nc, sizeof *s->f); \
    if (!p_) return SP_E_NOMEM;                          \
    s->f = p_;                                           \
  } while (0);
  SP_ATOM_ARRAYS(RE)
#undef RE
  s->cap_atoms = nc;
  return 0;
}

/* Identifier fields are SP_ID_LEN (8) bytes, NUL-padded by sp_sv_copy, so an identifier
 * compares as one 64-bit word: the view packed the same way (truncated to 7 characters). */
static inline uint64_t pack_sv(sp_sv v) {
  size_t n = v.n < SP_ID_LEN - 1 ? v.n : SP_ID_LEN - 1;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  /* two overlapping loads that stay inside the view (the bytes they share are equal, so OR
   * joins them): no byte beyond v.p[n-1] is read, no call to memcpy */
  const unsigned char *p = (const unsigned char *)v.p;
  if (n >= 4) {
    uint32_t lo, hi;
    memcpy(&lo, p, 4);
    memcpy(&hi, p + n - 4, 4);
    return (uint64_t)lo | (uint64_t)hi << ((n - 4) * 8);
  }
  if (n >= 2) {
    uint16_t lo, hi;
    memcpy(&lo, p, 2);
    memcpy(&hi, p + n - 2, 2);
    return (uint64_t)lo | (uint64_t)hi << ((n - 2) * 8);
  }
  return n ? p[0] : 0;
#else
  char b[SP_ID_LEN] = {0};
  if (n) memcpy(b, v.p, n);
  uint64_t w;
  memcpy(&w, b, sizeof w);
  return w;
#endif
}

static inline uint64_t pack_fixed(const char *fixed) {
  uint64_t w;
  memcpy(&w, fixed, sizeof w);
  return w;
}

static inline bool id_eq(const char *fixed, sp_sv v) { return pack_fixed(fixed) == pack_sv(v); }

static inline void copy_id(sp_structure *s, char *dst, sp_sv v, const char *what) {
  if (sp_sv_copy(dst, SP_ID_LEN, v) && !s->n_cut_ids++) /* once a file; the count: sp_structure_finish */
    sp_structure_warn(s, "%s '%.*s' longer than %d characters, truncated", what, (int)(v.n > 64 ? 64 : v.n),
                      v.p, SP_ID_LEN - 1);
}

/* sp_structure_add_atom, inlined into its callers */
static inline __attribute__((always_inline)) int sp_structure_add_atom_inline(sp_structure *s, const sp_atom_in *a,
                                                                            sp_err *err) {
  if (s->n_atoms >= (size_t)UINT32_MAX - 1) return sp_err_set(err, SP_E_TOO_LARGE, "more than 2^32-2 atoms");
  if (sp_model_grow_atoms_(s, s->n_atoms + 1)) return sp_err_set(err, SP_E_NOMEM, "out of memory (atoms)");
  size_t i = s->n_atoms;

  /* model */
  sp_model *m = s->n_models ? &s->models[s->n_models - 1] : NULL;
  bool new_model = !m || m->model_num != a->model_num;
  if (new_model) {
    if (sp_grow((void **)&s->models, &s->cap_models, s->n_models + 1, sizeof *s->models))
      return sp_err_set(err, SP_E_NOMEM, "out of memory (models)");
    m = &s->models[s->n_models++];
    memset(m, 0, sizeof *m);
    m->model_num = a->model_num;
    m->first_atom = (uint32_t)i;
    m->first_residue = (uint32_t)s->n_residues;
    m->first_chain = (uint32_t)s->n_chains;
  }
  /* chain */
  sp_chain *c = (!new_model && s->n_chains) ? &s->chains[s->n_chains - 1] : NULL;
  bool new_chain = !c || !id_eq(c->label_asym_id, a->label_asym_id.n ? a->label_asym_id : a->auth_asym_id) ||
                   !id_eq(c->auth_asym_id, a->auth_asym_id.n ? a->auth_asym_id : a->label_asym_id);
  if (new_chain) {
    if (sp_grow((void **)&s->chains, &s->cap_chains, s->n_chains + 1, sizeof *s->chains))
      return sp_err_set(err, SP_E_NOMEM, "out of memory (chains)");
    c = &s->chains[s->n_chains++];
    memset(c, 0, sizeof *c);
    copy_id(s, c->label_asym_id, a->label_asym_id.n ? a->label_asym_id : a->auth_asym_id, "label_asym_id");
    copy_id(s, c->auth_asym_id, a->auth_asym_id.n ? a->auth_asym_id : a->label_asym_id, "auth_asym_id");
    copy_id(s, c->entity_id, a->entity_id, "entity_id");
    c->entity = -1;
    c->model = (uint32_t)(s->n_models - 1);
    c->first_residue = (uint32_t)s->n_residues;
    m->n_chains++;
  }
  /* residue */
  sp_residue *r = (!new_chain && s->n_residues) ? &s->residues[s->n_residues - 1] : NULL;
  bool new_res = !r || !id_eq(r->comp_id, a->comp_id) || r->label_seq_id != a->label_seq_id ||
                 r->auth_seq_id != a->auth_seq_id || r->ins_code != a->ins_code;
  uint64_t name = pack_sv(a->atom_name);
  /* the pair's bit in the residue's Bloom filter (rb_bits_) */
  uint64_t bit = 1ull << (((name ^ (uint64_t)(unsigned char)a->altloc << 56) * 0x9E3779B97F4A7C15ull) >> 58);
  /* a name longer than the column is cut (copy_id, with a warning): names that the cut makes equal
   * (LONGNAME0 ... LONGNAME5) are no evidence of a second copy, so such an atom never starts a
   * residue; sp_structure_finish flags the repeats of the residue it marks (pad_) */
  bool cut = a->atom_name.n >= SP_ID_LEN;
  if (!new_res && r->n_atoms <= SP_RESIDUE_REPEAT_SCAN && !cut) {
    /* identical identifiers: a repeated (atom name, altloc) starts the next residue (B16).
     * Only residues of up to SP_RESIDUE_REPEAT_SCAN atoms are scanned, which bounds the cost
     * per atom; larger residues (no CCD component has that many atoms) are kept whole. The
     * filter rules out most repeats without the scan (a pair whose bit is clear is new). */
    bool known = s->rb_residue_ == s->n_residues && s->rb_atoms_ == r->n_atoms;
    if (!known || (s->rb_bits_ & bit))
      for (uint32_t k = r->first_atom; k < i; ++k)
        if (s->altloc[k] == a->altloc && pack_fixed(s->atom_name[k]) == name) {
          new_res = true;
          break;
        }
  }
  if (new_res) {
    if (sp_grow((void **)&s->residues, &s->cap_residues, s->n_residues + 1, sizeof *s->residues))
      return sp_err_set(err, SP_E_NOMEM, "out of memory (residues)");
    r = &s->residues[s->n_residues++];
    memset(r, 0, sizeof *r);
    copy_id(s, r->comp_id, a->comp_id, "comp_id");
    r->label_seq_id = a->label_seq_id;
    r->auth_seq_id = a->auth_seq_id;
    r->ins_code = a->ins_code;
    uint64_t ent = pack_sv(a->entity_id); /* the row's entity (at most 7 characters, as the chain's) */
    memcpy(r->entity_id, &ent, sizeof ent);
    r->all_hetatm = 1;
    r->chain = (uint32_t)(s->n_chains - 1);
    r->first_atom = (uint32_t)i;
    c->n_residues++;
    m->n_residues++;
    s->rb_bits_ = 0;
    s->rb_residue_ = s->n_residues;
    s->rb_atoms_ = 0;
  }
  if (s->rb_residue_ == s->n_residues && s->rb_atoms_ == r->n_atoms) {
    s->rb_bits_ |= bit;
    s->rb_atoms_ = r->n_atoms + 1;
  }
  r->n_atoms++;
  if (!a->hetatm) r->all_hetatm = 0;
  m->n_atoms++;

  s->xyz[i][0] = a->x;
  s->xyz[i][1] = a->y;
  s->xyz[i][2] = a->z;
  s->occupancy[i] = a->occupancy;
  s->b_iso[i] = a->b_iso;
  if (a->atom_name.n < SP_ID_LEN) { /* the common case: one 8-byte store, NUL-padded */
    memcpy(s->atom_name[i], &name, sizeof name);
  } else {
    copy_id(s, s->atom_name[i], a->atom_name, "atom name");
    r->pad_ = 1;
  }
  s->serial[i] = a->serial;
  s->atom_residue[i] = (uint32_t)(s->n_residues - 1);
  s->element[i] = a->element;
  s->charge[i] = a->charge;
  s->altloc[i] = a->altloc;
  s->atom_flags[i] = (uint8_t)((a->hetatm ? SP_ATOM_HETATM : 0) | (a->element == 1 ? SP_ATOM_HYDROGEN : 0) |
                               (a->element_from_name ? SP_ATOM_ELEMENT_FROM_NAME : 0));
  s->n_atoms++;
  return 0;
}

#endif

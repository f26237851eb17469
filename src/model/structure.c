/* The in-memory structure: see include/sitepack/model.h. */
#include "sitepack/model.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sitepack/model_inline.h"
#include "model_internal.h"

_Static_assert(SP_ID_LEN == 8, "identifiers are compared and stored as one 64-bit word");

int sp_sv_copy(char *dst, size_t cap, sp_sv v) {
  size_t n = v.n < cap - 1 ? v.n : cap - 1;
  if (n) memcpy(dst, v.p, n);
  memset(dst + n, 0, cap - n);
  return v.n > cap - 1;
}

int sp_text_fit(char *dst, size_t cap, const char *src) {
  size_t n = strlen(src);
  int cut = n > cap - 1;
  if (cut) n = cap - 1;
  memcpy(dst, src, n);
  memset(dst + n, 0, cap - n);
  if (cut) memcpy(dst + cap - 4, "...", 3);
  return cut;
}

bool sp_sv_eq(sp_sv v, const char *s) {
  size_t n = strlen(s);
  return n == v.n && (n == 0 || memcmp(v.p, s, n) == 0);
}

static void clear_crystal(sp_structure *s) {
  for (int k = 0; k < 6; k++) s->cell[k] = NAN;
  s->spacegroup[0] = 0;
  s->cell_z = 0;
  s->has_scale = 0;
  s->n_symops = 0;
}

int sp_structure_init(sp_structure *s) {
  memset(s, 0, sizeof *s);
  s->resolution = s->r_work = s->r_free = NAN;
  clear_crystal(s);
  return 0;
}

void sp_structure_free(sp_structure *s) {
#define FREE_ATOMS(f) free(s->f);
  SP_ATOM_ARRAYS(FREE_ATOMS)
#undef FREE_ATOMS
  free(s->residues); free(s->chains); free(s->models); free(s->entities); free(s->seq_comp);
  free(s->conns); free(s->file_bonds); free(s->file_comps); free(s->conects); free(s->warnings);
  free(s->symops); free(s->seq_can); free(s->dbrefs); free(s->asm_gens); free(s->asm_ops);
  sp_structure_init(s);
}

void sp_structure_clear(sp_structure *s) {
  s->n_atoms = s->n_residues = s->n_chains = s->n_models = s->n_entities = 0;
  s->n_seq = s->n_conns = s->n_file_bonds = s->n_file_comps = s->n_conects = s->n_conect_raw_ = 0;
  s->warnings_len = s->n_warnings = 0;
  s->n_cut_ids = 0;
  s->entry_id[0] = s->method[0] = 0;
  s->resolution = s->r_work = s->r_free = NAN;
  memset(s->deposition_date, 0, sizeof s->deposition_date);
  memset(s->release_date, 0, sizeof s->release_date);
  s->n_can = s->n_dbrefs = s->n_asm_gens = s->n_asm_ops = 0;
  s->has_label_ids = s->has_auth_ids = 0;
  clear_crystal(s);
}

void sp_structure_warn(sp_structure *s, const char *fmt, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  if (n < 0) return;
  if ((size_t)n >= sizeof buf) n = sizeof buf - 1;
  if (s->n_warnings >= 1000) return; /* bounded: a pathological file cannot grow this forever */
  size_t cap = s->warnings_cap;
  if (sp_grow((void **)&s->warnings, &cap, s->warnings_len + (size_t)n + 1, 1)) return;
  s->warnings_cap = cap;
  memcpy(s->warnings + s->warnings_len, buf, (size_t)n + 1);
  s->warnings_len += (size_t)n + 1;
  s->n_warnings++;
}

const char *sp_structure_warning(const sp_structure *s, size_t i) {
  if (i >= s->n_warnings) return NULL;
  const char *p = s->warnings;
  while (i--) p += strlen(p) + 1;
  return p;
}

int sp_structure_add_atom(sp_structure *s, const sp_atom_in *a, sp_err *err) {
  return sp_structure_add_atom_inline(s, a, err);
}

int sp_structure_add_entity(sp_structure *s, const sp_entity *e, sp_err *err) {
  if (sp_grow((void **)&s->entities, &s->cap_entities, s->n_entities + 1, sizeof *s->entities))
    return sp_err_set(err, SP_E_NOMEM, "out of memory (entities)");
  s->entities[s->n_entities] = *e;
  s->entities[s->n_entities].seq_first = (uint32_t)s->n_seq;
  s->entities[s->n_entities].seq_len = 0;
  s->entities[s->n_entities].can_first = (uint32_t)s->n_can;
  s->entities[s->n_entities].can_len = 0;
  s->n_entities++;
  return 0;
}

int sp_structure_add_seq(sp_structure *s, size_t entity, sp_sv comp_id, sp_err *err) {
  if (entity >= s->n_entities) return sp_err_set(err, SP_E_INTERNAL, "sequence for unknown entity %zu", entity);
  if (sp_grow((void **)&s->seq_comp, &s->cap_seq, s->n_seq + 1, sizeof *s->seq_comp))
    return sp_err_set(err, SP_E_NOMEM, "out of memory (sequences)");
  sp_entity *e = &s->entities[entity];
  if (e->seq_first + e->seq_len != s->n_seq)
    return sp_err_set(err, SP_E_INTERNAL, "sequence of entity %s is not the last one", e->id);
  sp_sv_copy(s->seq_comp[s->n_seq++], SP_ID_LEN, comp_id);
  e->seq_len++;
  return 0;
}

int sp_structure_add_can(sp_structure *s, size_t entity, const char *codes, size_t n, sp_err *err) {
  if (entity >= s->n_entities) return sp_err_set(err, SP_E_INTERNAL, "sequence for unknown entity %zu", entity);
  sp_entity *e = &s->entities[entity];
  if (e->can_len && e->can_first + e->can_len != s->n_can)
    return sp_err_set(err, SP_E_INTERNAL, "one-letter sequence of entity %zu not contiguous", entity);
  if (SP_GROW(s->seq_can, s->cap_can, s->n_can + n)) return sp_err_set(err, SP_E_NOMEM, "out of memory (sequence)");
  if (!e->can_len) e->can_first = (uint32_t)s->n_can;
  for (size_t i = 0; i < n; i++) {
    char c = codes[i];
    if (c == ' ' || c == '\n' || c == '\r' || c == '\t') continue;
    s->seq_can[s->n_can++] = c;
    e->can_len++;
  }
  return 0;
}

int sp_structure_add_dbref(sp_structure *s, const sp_dbref *d, sp_err *err) {
  if (SP_GROW(s->dbrefs, s->cap_dbrefs, s->n_dbrefs + 1)) return sp_err_set(err, SP_E_NOMEM, "out of memory (dbrefs)");
  s->dbrefs[s->n_dbrefs++] = *d;
  return 0;
}

int sp_structure_add_asm_oper(sp_structure *s, const sp_asm_oper *op, sp_err *err) {
  if (SP_GROW(s->asm_ops, s->cap_asm_ops, s->n_asm_ops + 1))
    return sp_err_set(err, SP_E_NOMEM, "out of memory (assembly operators)");
  s->asm_ops[s->n_asm_ops++] = *op;
  return 0;
}

int sp_structure_add_asm_gen(sp_structure *s, const sp_asm_gen *g, sp_err *err) {
  if (SP_GROW(s->asm_gens, s->cap_asm_gens, s->n_asm_gens + 1))
    return sp_err_set(err, SP_E_NOMEM, "out of memory (assembly generators)");
  s->asm_gens[s->n_asm_gens++] = *g;
  return 0;
}

int sp_structure_add_conn(sp_structure *s, const sp_conn *c, sp_err *err) {
  if (sp_grow((void **)&s->conns, &s->cap_conns, s->n_conns + 1, sizeof *s->conns))
    return sp_err_set(err, SP_E_NOMEM, "out of memory (connections)");
  s->conns[s->n_conns] = *c;
  s->conns[s->n_conns].a.atom = s->conns[s->n_conns].b.atom = -1;
  s->n_conns++;
  return 0;
}

int sp_structure_add_file_bond(sp_structure *s, const sp_file_bond *b, sp_err *err) {
  if (sp_grow((void **)&s->file_bonds, &s->cap_file_bonds, s->n_file_bonds + 1, sizeof *s->file_bonds))
    return sp_err_set(err, SP_E_NOMEM, "out of memory (bonds)");
  s->file_bonds[s->n_file_bonds++] = *b;
  return 0;
}

int sp_structure_add_file_comp(sp_structure *s, const sp_file_comp *c, sp_err *err) {
  if (sp_grow((void **)&s->file_comps, &s->cap_file_comps, s->n_file_comps + 1, sizeof *s->file_comps))
    return sp_err_set(err, SP_E_NOMEM, "out of memory (components)");
  s->file_comps[s->n_file_comps++] = *c;
  return 0;
}

int sp_structure_add_symop(sp_structure *s, const sp_symop *op, sp_err *err) {
  if (sp_grow((void **)&s->symops, &s->cap_symops, s->n_symops + 1, sizeof *s->symops))
    return sp_err_set(err, SP_E_NOMEM, "out of memory (symmetry operators)");
  s->symops[s->n_symops++] = *op;
  return 0;
}

/* Two identifiers equal: the first byte before the call (most pairs differ there). */
static inline bool id_same(const char *a, const char *b) { return a[0] == b[0] && !strcmp(a, b); }

/* Resolve a connection end to an atom of model 1. The tests of a residue are all required, the
 * numbers are tested before the names (cheaper, the same atom found; a struct_conn of a
 * ribosome's thousand ions scanned every residue with strcmp, 3 % of a run, issue 28). */
static int64_t resolve_end(const sp_structure *s, const sp_conn_end *e) {
  if (!s->n_models) return -1;
  const sp_model *m = &s->models[0];
  bool by_label = e->label_asym_id[0] && s->has_label_ids;
  for (uint32_t ci = m->first_chain; ci < m->first_chain + m->n_chains; ++ci) {
    const sp_chain *c = &s->chains[ci];
    if (by_label ? !id_same(c->label_asym_id, e->label_asym_id) : !id_same(c->auth_asym_id, e->auth_asym_id)) continue;
    for (uint32_t ri = c->first_residue; ri < c->first_residue + c->n_residues; ++ri) {
      const sp_residue *r = &s->residues[ri];
      if (by_label && e->label_seq_id != SP_SEQ_NONE) {
        if (r->label_seq_id != e->label_seq_id) continue;
        /* label_seq_id '.' (non-polymers): fall through to auth numbers when given */
      } else if (e->auth_seq_id != SP_SEQ_NONE) {
        if (r->auth_seq_id != e->auth_seq_id || r->ins_code != e->ins_code) continue;
      }
      if (by_label && e->label_seq_id == SP_SEQ_NONE && e->auth_seq_id != SP_SEQ_NONE &&
          (r->auth_seq_id != e->auth_seq_id || r->ins_code != e->ins_code))
        continue;
      if (!id_same(r->comp_id, e->comp_id)) continue;
      int64_t first = -1;
      for (uint32_t k = r->first_atom; k < r->first_atom + r->n_atoms; ++k) {
        if (!id_same(s->atom_name[k], e->atom_name)) continue;
        if (!e->altloc || s->altloc[k] == e->altloc) return k;
        if (first < 0) first = k;
      }
      if (first >= 0) return first;
    }
  }
  return -1;
}

/* The entity type of residue @p r from its own label_entity_id (PDBx/mmCIF: _atom_site.label_entity_id
 * names the row's entity, and _entity.type says what it is), not from its chain's first row: a
 * label_asym_id shared by a polymer and a ligand, or '.' on every row as some non-wwPDB writers leave
 * it, would make the ligand a polymer or water residue and drop it (adversarial trial, finding 4;
 * gemmi keeps each residue's entity_id too). @p t_chain: the type of the chain's entity, taken when
 * the residue names no entity (PDB files) or the chain's. An entity id not in _entity: unknown. */
static uint8_t residue_entity_type(const sp_structure *s, const sp_residue *r, const sp_chain *c, uint8_t t_chain) {
  if (!r->entity_id[0] || !strcmp(r->entity_id, c->entity_id)) return t_chain;
  for (size_t e = 0; e < s->n_entities; ++e)
    if (!strcmp(s->entities[e].id, r->entity_id)) return s->entities[e].type;
  return SP_ENT_UNKNOWN;
}

int sp_structure_finish(sp_structure *s, sp_err *err) {
  if (!s->n_atoms) return sp_err_set(err, SP_E_NO_ATOMS, "no atom records");
  if (s->n_cut_ids > 1)
    sp_structure_warn(s, "%zu more identifiers longer than %d characters truncated", s->n_cut_ids - 1, SP_ID_LEN - 1);
  int rc = sp_structure_regroup_(s, err);
  if (rc) return rc;
  sp_structure_join_repeats_(s);
  for (size_t ci = 0; ci < s->n_chains; ++ci) {
    sp_chain *c = &s->chains[ci];
    c->entity = -1;
    if (c->entity_id[0])
      for (size_t e = 0; e < s->n_entities; ++e)
        if (!strcmp(s->entities[e].id, c->entity_id)) {
          c->entity = (int32_t)e;
          break;
        }
    uint8_t t = c->entity >= 0 ? s->entities[c->entity].type : SP_ENT_UNKNOWN;
    for (uint32_t ri = c->first_residue; ri < c->first_residue + c->n_residues; ++ri)
      s->residues[ri].entity_type = residue_entity_type(s, &s->residues[ri], c, t);
  }
  for (size_t i = 0; i < s->n_conns; ++i) {
    s->conns[i].a.atom = resolve_end(s, &s->conns[i].a);
    s->conns[i].b.atom = resolve_end(s, &s->conns[i].b);
  }
  return sp_structure_resolve_conects_(s, err);
}

size_t sp_structure_bytes(const sp_structure *s) {
#define ATOM_BYTES(f) +sizeof *s->f
  size_t per_atom = 0 SP_ATOM_ARRAYS(ATOM_BYTES);
#undef ATOM_BYTES
  return sizeof *s + s->cap_atoms * per_atom + s->cap_residues * sizeof *s->residues +
         s->cap_chains * sizeof *s->chains + s->cap_models * sizeof *s->models +
         s->cap_entities * sizeof *s->entities + s->cap_seq * sizeof *s->seq_comp +
         s->cap_conns * sizeof *s->conns + s->cap_file_bonds * sizeof *s->file_bonds +
         s->cap_file_comps * sizeof *s->file_comps + s->cap_conects * sizeof *s->conects +
         s->cap_symops * sizeof *s->symops + s->warnings_cap + s->cap_can + s->cap_dbrefs * sizeof *s->dbrefs +
         s->cap_asm_gens * sizeof *s->asm_gens + s->cap_asm_ops * sizeof *s->asm_ops;
}

int sp_asm_gen_has_chain(const sp_asm_gen *g, const sp_chain *ch) {
  const char *id = g->by_label ? ch->label_asym_id : ch->auth_asym_id;
  size_t n = strlen(id);
  for (const char *p = g->chains; *p;) {
    size_t k = strcspn(p, ",");
    if (k == n && !memcmp(p, id, n)) return 1;
    p += k + (p[k] == ',');
  }
  return 0;
}

/* Task results: see include/sitepack/result.h. */
#include "sitepack/result.h"

#include "sitepack/base.h"
#include "sitepack/io.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sp_result_init(sp_result *r) {
  memset(r, 0, sizeof *r);
  r->n_parts = 1;
}

void sp_result_free(sp_result *r) {
  free(r->ligands); free(r->components); free(r->sites); free(r->residues); free(r->atoms);
  free(r->interactions);
  free(r->bonds);
  free(r->chains); free(r->segments); free(r->sequences);
  sp_result_init(r);
}

void sp_result_clear(sp_result *r) {
  r->n_ligands = r->n_components = r->n_sites = r->n_residues = r->n_atoms = 0;
  r->n_interactions = 0;
  r->n_bonds = 0;
  r->n_chains = r->n_segments = r->n_sequences = 0;
  memset(&r->st, 0, sizeof r->st);
  r->file_idx = 0;
  r->part = 0;
  r->n_parts = 1;
  r->has_structure_row = 0;
  r->t_sha256 = r->t_chem = 0;
  r->t_desc_comp = r->t_desc_lig = 0;
}

static void *push(void **arr, size_t *n, size_t *cap, size_t elsize) {
  if (sp_grow(arr, cap, *n + 1, elsize)) return NULL;
  char *row = (char *)*arr + (*n)++ * elsize;
  memset(row, 0, elsize);
  return row;
}

#define SP_PUSH(fn, type, field)                                                        \
  type *fn(sp_result *r) {                                                              \
    return push((void **)&r->field, &r->n_##field, &r->cap_##field, sizeof(type));      \
  }
SP_PUSH(sp_result_add_ligand, sp_ligand_row, ligands)
SP_PUSH(sp_result_add_component, sp_component_row, components)
SP_PUSH(sp_result_add_site, sp_site_row, sites)
/* a residue row starts with no chain (chain_idx -1: zero would name the file's first chain) */
sp_residue_row *sp_result_add_residue(sp_result *r) {
  sp_residue_row *row = push((void **)&r->residues, &r->n_residues, &r->cap_residues, sizeof(sp_residue_row));
  if (row) row->chain_idx = -1;
  return row;
}
SP_PUSH(sp_result_add_atom, sp_atom_row, atoms)
SP_PUSH(sp_result_add_interaction, sp_interaction_row, interactions)
SP_PUSH(sp_result_add_bond, sp_bond_row, bonds)
SP_PUSH(sp_result_add_chain, sp_chain_row, chains)
SP_PUSH(sp_result_add_segment, sp_segment_row, segments)
SP_PUSH(sp_result_add_sequence, sp_sequence_row, sequences)

/* One message as written (an empty one would be an empty line, or an empty column for n_warnings 1). */
static const char *warning_text(const char *m) { return *m ? m : "(empty)"; }

size_t sp_warnings_fit(char *dst, size_t cap, const char *msgs, size_t n) {
  if (!dst || cap == 0) return n;
  memset(dst, 0, cap);
  if (n == 0 || !msgs || cap < 64) return n;
  size_t room = cap - 1, total = 0;
  const char *m = msgs;
  for (size_t i = 0; i < n; i++, m += strlen(m) + 1) total += (i ? 1 : 0) + sp_path_escape(warning_text(m), NULL, 0);
  size_t k = n, len = 0;
  if (total > room) {
    /* the most whole messages that fit with the line "... N more" after them: prefix(k) + tail(n - k) never
       decreases with k (a message adds at least its "\n", the tail loses at most one digit) */
    size_t pre = 0;
    k = 0;
    m = msgs;
    for (size_t i = 0; i + 1 < n; i++, m += strlen(m) + 1) {
      size_t next = pre + sp_path_escape(warning_text(m), NULL, 0) + 1;
      if (next + (size_t)snprintf(NULL, 0, "... %zu more", n - i - 1) > room) break;
      pre = next;
      k = i + 1;
    }
    if (k == 0) { /* not even the first whole: it is cut (and ends "..."), the rest counted */
      char tail[32] = "";
      if (n > 1) snprintf(tail, sizeof tail, "\n... %zu more", n - 1);
      sp_text_escape_fit(dst, room + 1 - strlen(tail), warning_text(msgs));
      memcpy(dst + strlen(dst), tail, strlen(tail));
      return n - 1;
    }
  }
  m = msgs;
  for (size_t i = 0; i < k; i++, m += strlen(m) + 1) {
    if (i) dst[len++] = '\n';
    len += sp_path_escape(warning_text(m), dst + len, cap - len);
  }
  if (k < n) snprintf(dst + len, cap - len, "\n... %zu more", n - k);
  return n - k;
}

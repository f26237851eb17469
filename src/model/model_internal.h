/* Private to src/model: steps of sp_structure_finish that live in their own files. */
#ifndef SITEPACK_MODEL_INTERNAL_H
#define SITEPACK_MODEL_INTERNAL_H

#include <string.h>

#include "sitepack/model.h"

/* Atoms i and k have the same (atom name, altloc): the pair that identifies an atom in its residue. */
static inline bool sp_same_pair_(const sp_structure *s, uint32_t i, uint32_t k) {
  return s->altloc[i] == s->altloc[k] && !strcmp(s->atom_name[i], s->atom_name[k]);
}

/* Atoms i and k are at the same coordinates (bit for bit: the same record written twice). */
static inline bool sp_same_xyz_(const sp_structure *s, uint32_t i, uint32_t k) {
  return !memcmp(s->xyz[i], s->xyz[k], sizeof s->xyz[i]);
}

/* Resolve the directed CONECT entries (sp_structure_add_conect) into sp_structure.conects:
 * serials to atoms of model 1, one bond per pair with its order, sorted by (a, b); warnings for
 * the entries that give no bond (src/model/conect.c). @return 0 or SP_E_NOMEM. */
int sp_structure_resolve_conects_(sp_structure *s, sp_err *err);

/* Join the pieces of residues and models that the file does not give contiguously (atoms of one
 * residue apart in the file, mmCIF rows of one model number apart): model entries of one number become
 * one model, and a residue piece moves to follow an earlier residue with the same identifiers in the
 * same model, unless it names one of its atoms again at other coordinates (src/model/regroup.c). Runs
 * before sp_structure_join_repeats_, which joins the now adjacent pieces. @return 0 or SP_E_NOMEM. */
int sp_structure_regroup_(sp_structure *s, sp_err *err);

/* Undo the residue splits of sp_structure_add_atom that are no second copy (a repeated atom name
 * inside one residue, issue 13): join such neighbours, flag their repeated-name atoms
 * SP_ATOM_REPEATED_NAME and warn (class repeated_atom_name) once per repeated name of model 1
 * (src/model/repeats.c). Cannot fail. */
void sp_structure_join_repeats_(sp_structure *s);

#endif

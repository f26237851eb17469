/* Private to src/model: steps of sp_structure_finish that live in their own files. */
#ifndef SITEPACK_MODEL_INTERNAL_H
#define SITEPACK_MODEL_INTERNAL_H

#include "sitepack/model.h"

/* Resolve the directed CONECT entries (sp_structure_add_conect) into sp_structure.conects:
 * serials to atoms of model 1, one bond per pair with its order, sorted by (a, b); warnings for
 * the entries that give no bond (src/model/conect.c). @return 0 or SP_E_NOMEM. */
int sp_structure_resolve_conects_(sp_structure *s, sp_err *err);

#endif

/* Shared by the survey's steps (survey.c) and its molecule graphs (keys.c); private to
 * src/survey. Rules and sources: docs/ligands.md. */
#ifndef SITEPACK_SURVEY_INTERNAL_H
#define SITEPACK_SURVEY_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sitepack/ccd.h"
#include "sitepack/descriptors.h"
#include "sitepack/error.h"
#include "sitepack/model.h"
#include "sitepack/molkey.h"
#include "sitepack/survey.h"

/* What the survey knows of one comp_id (first use creates it: comp_get). */
typedef struct comp_info {
  char id[SP_ID_LEN];
  const sp_component *def; /* CCD block, NULL if none */
  bool in_ccd;
  bool usable;             /* definition usable: in CCD, has atoms, not OBS, not reserved */
  bool has_file_bonds;
  bool saccharide;         /* CCD or file type contains "saccharide" */
  int32_t n_heavy_nonleaving; /* usable only */
  char key[SP_KEY_LEN];
  char key_source[16];
  bool key_done;
  int64_t first_res;       /* first ligand residue with this comp, -1 none */
  int32_t file_heavy;      /* heavy atoms of the file's own definition, -1 unknown */
} comp_info;

/* The components of one survey, and where graph errors go. */
typedef struct comp_table {
  const sp_structure *s;
  sp_ccd *ccd;
  comp_info *comps;
  size_t n_comps, cap_comps;
  sp_err *err;
} comp_table;

/* Component info for comp_id (created on first use). NULL on allocation failure. */
comp_info *comp_get(comp_table *c, const char *id);

/* Atom of residue r named name, among the chosen conformer (res_altloc) if possible; -1 if absent. */
int64_t res_atom(const sp_structure *s, const char *res_altloc, uint32_t r, const char *name);

/* Squared distance of atoms a and b, Å². */
static inline float atom_dist2(const sp_structure *s, size_t a, size_t b) {
  float dx = s->xyz[a][0] - s->xyz[b][0], dy = s->xyz[a][1] - s->xyz[b][1], dz = s->xyz[a][2] - s->xyz[b][2];
  return dx * dx + dy * dy + dz * dz;
}

/* A link between two residues of one instance (atom indices in the structure). */
typedef struct link {
  int64_t a, b;
} link;

/* Molecule keys of an instance (keys.c). Each returns 0, SP_E_NOMEM (message set in c->err) or an
 * error of sp_molkey_graph. */

/* From the CCD definitions of all its residues (every residue usable), joined by its links. */
int key_from_definitions(comp_table *c, const char *alt, const uint32_t *res, size_t n_res, const link *links,
                         size_t n_links, char out[SP_KEY_LEN]);
/* From its observed atoms (atoms[0..n_atoms), grouped by residue in res order); *used_distance
 * is set when some residue needed distance bonds. */
int key_from_observed(comp_table *c, const uint32_t *atoms, size_t n_atoms, const uint32_t *res, size_t n_res,
                      const link *links, size_t n_links, char out[SP_KEY_LEN], bool *used_distance);
/* From the file's own _chem_comp_bond of comp `id`, atoms of residue r; *n_heavy_def (may be
 * NULL) receives the heavy atoms of that definition. */
int key_from_file_bonds(comp_table *c, const char *id, uint32_t r, const char *alt, char out[SP_KEY_LEN],
                        int32_t *n_heavy_def);

/* Microheterogeneity and identical identifiers (alternatives.c; docs/ligands.md "Instances"). */

/* Model M: runs of lone ligand candidates (alone in their union-find set uf) at one position (chain, author
 * number, insertion code, label number) with different comp_ids, every atom in an altloc and no altloc shared,
 * are one ligand: the identity of highest mean occupancy (ties: the first in file order) stays the candidate,
 * the others get role SP_ROLE_OTHER, cand 0 and res_alt of the chosen one (so none of their atoms is chosen);
 * mh_primary[q] = the chosen residue for every residue q of the run (untouched elsewhere). 0 or SP_E_NOMEM. */
int survey_microhet(const sp_structure *s, const sp_model *M, const uint32_t *uf, uint8_t *role, uint8_t *cand,
                    char *res_alt, uint32_t *mh_primary);
/* The identities of chosen residue r (mh_primary[r] == r): "COMP:ALTLOCS:OCC" per residue of its run, file
 * order, space-separated, cut after the last that fits in cap; "" when r is no such residue. */
void survey_identities(const sp_structure *s, const uint32_t *mh_primary, uint32_t r, char *out, size_t cap);
/* Sets ligs[i].copy = k (1, 2, ... in order) for the ligands of one model that share comp_id, author chain,
 * number, insertion code and label number of their first residue (res_refs: their residues); the number of
 * such identifier sets. */
size_t survey_copies(const sp_structure *s, const uint32_t *res_refs, sp_ligand *ligs, size_t n);
/* comp_desc.c: RDKit's descriptors (descriptors.h) of the CCD definition @p def, every atom and bond of it;
 * @p out cleared when RDKit does not sanitize it. 0 (also then) or SP_E_NOMEM. */
int sp_sv_component_desc(const sp_component *def, sp_descriptors *out);

#endif

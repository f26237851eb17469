/* Helpers shared by the site tests (tests/unit/test_site*.c): a tiny hand-made survey
 * for structures built in memory, a minimal PDB loader for real coordinates (so the
 * brute-force checks do not depend on the readers), and a brute-force O(N*M) site to
 * compare sp_site_compute against. */
#ifndef SITEPACK_TEST_SITE_UTIL_H
#define SITEPACK_TEST_SITE_UTIL_H

#include <stdio.h>
#include <stdlib.h>

#include "sitepack/model.h"
#include "sitepack/site.h"
#include "sitepack/survey.h"

extern int tsu_failures;

#define TSU_CHECK(cond, ...)                                                  \
  do {                                                                        \
    if (!(cond)) {                                                            \
      tsu_failures++;                                                         \
      fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond); \
      fprintf(stderr, __VA_ARGS__);                                           \
      fprintf(stderr, "\n");                                                  \
    }                                                                         \
  } while (0)

/** Fill @p sv for @p s by simple rules: HOH/WAT/DOD/H2O/TIP3 -> water; residues whose atoms are all
 *  HETATM -> one ligand each (ion when it has exactly one heavy atom that is a metal or halide);
 *  everything else polymer. Altloc per residue: highest summed occupancy, ties to the first
 *  seen. Ligands of every model. @return 0 or -1 (out of memory). */
int tsu_survey(const sp_structure *s, sp_survey *sv);
void tsu_survey_free(sp_survey *sv);

/** Load the ATOM/HETATM/MODEL records of a PDB file (fixed columns). @return 0 or -1. */
int tsu_load_pdb(const char *path, sp_structure *s);

/** Compare @p site with a brute-force site of ligand @p lig (cutoff Å, max_atoms).
 *  @return number of mismatches (also added to tsu_failures). */
int tsu_check_site(const sp_structure *s, const sp_survey *sv, size_t lig, float cutoff, size_t max_atoms,
                   const sp_site *site);

/** Append an atom with the given fields to @p s (test shorthand). */
int tsu_add(sp_structure *s, int model, const char *chain, const char *comp, int seq, const char *name, char altloc,
            int element, int hetatm, float x, float y, float z, float occ);

/** Chain and number of residue @p r as the cases write them: author ids when the file has
 *  them, else label ids; "." when there is no number; insertion code appended. */
void tsu_residue_ids(const sp_structure *s, uint32_t r, char *chain, size_t chain_cap, char *num, size_t num_cap);
/** "CHAIN/COMP/NUM[ICODE]" (polymer residue key of the cases). */
void tsu_residue_key(const sp_structure *s, uint32_t r, char *out, size_t cap);

#endif

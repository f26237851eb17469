/* Private to src/pdb: the entry-context records of a PDB file (pdb_meta.c), read by sp_pdb_read. */
#ifndef SITEPACK_PDB_INTERNAL_H
#define SITEPACK_PDB_INTERNAL_H

#include <stddef.h>

#include "sitepack/error.h"
#include "sitepack/model.h"

/** What pdb_meta.c gathers while the lines go by (zero-initialise). */
typedef struct sp_pdb_meta {
  char (*mod)[2][SP_ID_LEN];   /**< MODRES pairs {resName, stdRes}, first of each resName */
  size_t n_mod, cap_mod;
  int in_biomol1;               /**< inside REMARK 350 BIOMOLECULE: 1 */
  int biomol_done;              /**< BIOMOLECULE 1 ended (a later one began) */
  int gen_open;                 /**< the last generator may still take BIOMT rows */
  double biomt[3][4];           /**< rows of the operator being read */
  unsigned biomt_seen;          /**< bits of the BIOMT1..3 rows read for it */
  int release_mod;              /**< smallest REVDAT modNum seen (0: none) */
  int rwork_kind;               /**< where r_work came from: 3 (WORKING SET), 2 (WORKING + TEST SET),
                                     1 (WORKING SET, NO CUTOFF), 0 none; a higher one replaces a lower one */
  int rfree_kind;               /**< r_free: 2 FREE R VALUE, 1 FREE R VALUE (NO CUTOFF), 0 none */
  int dbref1_pending;           /**< index+1 of a DBREF1 waiting for its DBREF2 */
} sp_pdb_meta;

/**
 * One record of the entry context: HEADER (deposition date, columns 51-59), REVDAT (release: the date
 * of the lowest modNum, columns 14-22), REMARK 3 (R VALUE (WORKING SET), else R VALUE (WORKING + TEST
 * SET), else R VALUE (WORKING SET, NO CUTOFF); FREE R VALUE, else FREE R VALUE (NO CUTOFF)), REMARK 350 (BIOMOLECULE 1: APPLY THE FOLLOWING TO CHAINS / AND CHAINS, BIOMT1-3),
 * DBREF / DBREF1 / DBREF2 (PDB format v3.3 columns), MODRES. Other lines are ignored.
 * @param p,n,no the line (no line feed), its 1-based number. @return 0 or SP_E_NOMEM.
 */
int sp_pdb_meta_line(sp_pdb_meta *m, sp_structure *s, const char *p, size_t n, size_t no, sp_err *err);

/** After the last line: one-letter sequences from SEQRES and MODRES (sp_structure_can_from_seq), and
 *  free @p m. @return 0 or SP_E_NOMEM. */
int sp_pdb_meta_finish(sp_pdb_meta *m, sp_structure *s, sp_err *err);

#endif

/* Private to src/store: the state of one merge (merge.c) shared with its /components union
 * (merge_union.c). Not installed. See store.h sp_merge_parallel() and docs/decisions.md
 * "The parallel merge". */
#ifndef SITEPACK_STORE_MERGE_INTERNAL_H
#define SITEPACK_STORE_MERGE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "rankfile.h"
#include "sitepack/store.h"
#include "store_internal.h"

/* Datasets per table: its columns [0, n_cols), then the CSR pointer dataset of each SP_LINK_COUNT
 * column in column order [n_cols, n_cols + counts). */
#define SP_MERGE_MAX_DSETS 64 /* columns + CSR pointers of one table (/ligands: 42 since issue 36); create_table checks */

/* One task of the merge order. */
typedef struct task_ref {
  sp_task_rec rec;              /* its /tasks record */
  size_t input;                 /* index into merge_ctx.in */
  int64_t st_global;            /* the /structures row of its file */
  int64_t off[SP_T_COUNT];      /* its first row of each table in the merged file (exclusive prefix sum) */
  size_t owner;                 /* the task of its file that holds the structure row (SP_LINK_FILE_ROW_OR_NONE) */
} task_ref;

typedef struct merge_ctx {
  sp_err *err;
  const sp_merge_comm *comm;    /* NULL: one process */
  int rank, size;               /* 0, 1 without comm */
  int raw;                      /* 1: rows written with pwrite(2) at the datasets' offsets (with comm) */
  size_t n_in;
  sp_rankfile *in;              /* [n_in] the inputs (rankfile.h), every rank */
  size_t n_tasks;
  task_ref *tasks;              /* [n_tasks] every task, in merge order, every rank */
  size_t lo, hi;                /* this rank's share: tasks [lo, hi) */
  int64_t total[SP_T_COUNT];    /* rows of the merged tables (components: after the union) */
  int64_t n_st;                 /* /structures rows: input files with results */
  int64_t any_symmetry;         /* some site has SP_SITE_SYMMETRY: the optional columns of kind 1 are written */
  int64_t any_assembly;         /* some site has SP_SITE_ASSEMBLY: those of kind 2 (/residues/assembly_op) */
  hid_t out, grun;              /* rank 0: the output and its /run group */
  hid_t gr[SP_T_COUNT];         /* rank 0: a group per table */
  hid_t dset[SP_T_COUNT][SP_MERGE_MAX_DSETS]; /* rank 0: every dataset of each table, or -1 */
  hid_t st_dset[4];             /* rank 0: /structures file_idx, n_parts, ligand_ptr, site_ptr */
  int64_t addr[SP_T_COUNT][SP_MERGE_MAX_DSETS]; /* raw: file offset of each dataset's data, -1: none */
  int created;                  /* rank 0 created the output (removed again on failure) */
  int fd;                       /* raw: this rank's descriptor of the output, or -1 */
  int fail_inject;              /* test hook SITEPACK_TEST_MERGE_FAIL_RANK names this rank */
  FILE *trace;                  /* raw: SITEPACK_MERGE_TRACE's file of this rank (every row write), or NULL */
  const char *out_path;
  int uni_t;                    /* the union table (sp_table.is_union), -1: none */
  char *uni;                    /* merge_union.c: [n_uni] entries (uint64 order, then the row); this rank's share's
                                   first row of each key, then on rank 0 the union; sorted by key */
  size_t n_uni;
  sp_merge_stats *stats;        /* may be NULL */
} merge_ctx;

/* merge.c: every rank's first failure (sp_merge_comm.agree; the identity in one process). */
int mg_agree(merge_ctx *c, int rc);
/* merge.c: rows [row, row + n) of dataset slot k of table t from the packed buffer @p buf. 0 or SP_E_IO /
 * SP_E_HDF5. */
int mg_put(merge_ctx *c, int t, size_t k, int64_t row, size_t n, const void *buf);

/* merge_union.c, step 2 (collective): this rank's share of every union table's rows (the first row of each
 * key in its merge order) and of the site flags (c->any_symmetry, c->any_assembly, then agreed); rank 0 gathers the union
 * (the first row of each key over the ranks in rank order = merge order) and sets c->total of the table.
 * Returns the agreed status. */
int mg_union(merge_ctx *c);
/* merge_union.c, rank 0, once the output exists (step 4): the union rows at row 0 (mg_put()). */
int mg_write_union(merge_ctx *c);
/* merge_union.c: free the union rows. */
void mg_union_free(merge_ctx *c);

#endif

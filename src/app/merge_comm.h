/* The ranks of a parallel merge over MPI (store.h sp_merge_comm), for `sitepack run` and `sitepack
 * merge` under mpirun. Private to src/app. */
#ifndef SITEPACK_APP_MERGE_COMM_H
#define SITEPACK_APP_MERGE_COMM_H

#include <mpi.h>

#include "sitepack/store.h"

/* Fill @p out with the functions of sp_merge_comm over @p comm (rank, size from it). @p comm must stay
 * valid while @p out is used; nothing to free. */
void sp_merge_comm_mpi(MPI_Comm *comm, sp_merge_comm *out);

#endif

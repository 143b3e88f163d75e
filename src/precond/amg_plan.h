/* A halo plan over a partition of columns (amg_plan.c): which of its own
 * columns (coarse rows of an interpolation, rows of a square level
 * matrix) each neighbour reads, and where the columns it reads of others
 * arrive.  Shared by the cycle's transfers (amg_transfer.c) and the
 * aggregation setup's level matrices (amg_csr.c).  No hypre type.
 * Private to src/precond. */
#ifndef OVK_AMG_PLAN_H
#define OVK_AMG_PLAN_H

#include "precond.h"

typedef struct ovk__amg_plan {
    int nsend, *send_rank, *send_ptr, *send_idx; /* the own columns (local ids) each neighbour reads */
    int nrecv, *recv_rank, *recv_ptr;            /* the other columns by owner (contiguous: cmap ascends) */
} ovk__amg_plan;

/* Collective over comm (statuses agreed): the plan of nx columns of other
 * ranks, cmap [nx] their global ids ascending, on the partition in rank
 * order whose rank owns the columns from c0 to the next rank's c0 (a
 * rank owning none gives its successor's c0).  *pl zeroed first; on an
 * error it holds nothing. */
int ovk__amg_plan_make(MPI_Comm comm, ovk_gidx c0, int nx, const ovk_gidx *cmap, ovk__amg_plan *pl);
void ovk__amg_plan_free(ovk__amg_plan *pl);
/* Collective over comm, statuses agreed (a setup's exchange, not a
 * cycle's): ext[q W .. q W + W) = the W values own[i W ..] of column q's
 * owner, i its local id; status: the caller's so far (nonzero: nothing
 * sent, the agreed status returned). */
int ovk__amg_plan_exchange(MPI_Comm comm, const ovk__amg_plan *pl, int W, const double *own, double *ext, int status);

#endif

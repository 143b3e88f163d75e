/* The aggregation setup's distributed matrix (amg_csr.c): a level matrix
 * A_l or an interpolation P_l as the rank's rows, split like ovk_matrix
 * (and hypre's ParCSR) into a diag block (the columns the rank owns, local
 * ids) and an offd block (the others, by their global ids in cmap), with
 * the halo plan of its offd columns (amg_plan.c).  Level 0 is made from
 * the library's ovk_matrix, a coarse level from rows with global columns.
 * No hypre type.  Private to src/precond. */
#ifndef OVK_AMG_CSR_H
#define OVK_AMG_CSR_H

#include "amg_plan.h"
#include "precond.h"

typedef struct ovk__amg_csr {
    MPI_Comm comm;            /* borrowed (the amg's own communicator) */
    ovk_gidx nrows, ncols;    /* global */
    ovk_gidx r0, c0;          /* the first local row, the first own column */
    int n, nc;                /* local rows, own columns */
    int *dptr, *dcol;         /* diag block [n + 1], local columns (square: the diagonal entry first in its row) */
    double *dval;
    int nx;                   /* offd columns */
    int *optr, *ocol;         /* offd block [n + 1], columns into cmap */
    double *oval;
    ovk_gidx *cmap;           /* [nx] global ids, ascending */
    ovk__amg_plan plan;       /* the own columns each neighbour's offd columns read */
} ovk__amg_csr;

/* Collective over comm (A's ranks in A's order; statuses agreed): a copy of
 * A (both triangles whatever its storage form, a_ii first in its row), its
 * values times 2^-scale_exp, the halo plan A's own. */
int ovk__amg_csr_of_matrix(MPI_Comm comm, const ovk_matrix *A, int scale_exp, ovk__amg_csr **out);
/* Collective over comm (statuses agreed): N x M from the rank's n rows
 * from r0 (ptr [n + 1], global columns gcol and values val, borrowed),
 * the rank owning columns c0 .. c1 - 1 (the partition in rank order);
 * square: the diagonal entry first in its row. */
int ovk__amg_csr_of_rows(MPI_Comm comm, ovk_gidx N, ovk_gidx M, ovk_gidx r0, int n, ovk_gidx c0, ovk_gidx c1,
                         const int *ptr, const ovk_gidx *gcol, const double *val, int square, ovk__amg_csr **out);
/* Local: a matrix of the shape given, room for nd diag and no offd entries
 * and nx offd columns, the arrays unset, no plan (OVK_ENOMEM: nothing made) */
int ovk__amg_csr_alloc(MPI_Comm comm, ovk_gidx N, ovk_gidx M, ovk_gidx r0, int n, ovk_gidx c0, int nc, int nd,
                       int no, int nx, ovk__amg_csr **out);
/* Collective over comm, A's ranks (statuses agreed; status: the caller's so
 * far, nonzero where *A was not made): *A's halo plan from its cmap, once
 * its blocks are filled; on an error *A is freed and NULL on every rank. */
int ovk__amg_csr_finish(MPI_Comm comm, ovk__amg_csr **A, int status);
/* Local: *out = a copy of A, its plan too (OVK_ENOMEM: nothing made; the
 * caller agrees on the outcome) */
int ovk__amg_csr_copy(const ovk__amg_csr *A, ovk__amg_csr **out);
/* Collective over A's ranks, statuses agreed: ext[q W ..] (nx W) = the W
 * values own[i W ..] (nc W) of offd column q at its owner (i its local id);
 * status: the caller's so far (nonzero: nothing sent, returned agreed). */
int ovk__amg_csr_halo(const ovk__amg_csr *A, int W, const double *own, double *ext, int status);
/* Local: the entries of the diag and offd blocks */
static inline int ovk__amg_csr_dnnz(const ovk__amg_csr *A) { return A->dptr[A->n]; }
static inline int ovk__amg_csr_onnz(const ovk__amg_csr *A) { return A->optr[A->n]; }
void ovk__amg_csr_free(ovk__amg_csr *A);

#endif

/* Test helper: the aggregation setup's level type (precond/amg_csr.h) as a
 * dense matrix on every rank. */
#ifndef OVK_TEST_AMG_DENSE_H
#define OVK_TEST_AMG_DENSE_H

#include <stdlib.h>

#include <mpi.h>

#include "precond/amg_csr.h"

/* Collective over M's ranks: M as a dense rows x cols matrix (row major)
 * on every rank; pattern: its stored entries as 1 (0 elsewhere) */
static inline double *amg_dense_of(const ovk__amg_csr *M, int pattern)
{
    size_t R = (size_t)M->nrows, C = (size_t)M->ncols;
    double *d = calloc(R * C + 1, sizeof(double));
    for (int i = 0; i < M->n; i++) {
        for (int e = M->dptr[i]; e < M->dptr[i + 1]; e++)
            d[(size_t)(M->r0 + i) * C + (size_t)(M->c0 + M->dcol[e])] += pattern ? 1.0 : M->dval[e];
        for (int e = M->optr[i]; e < M->optr[i + 1]; e++)
            d[(size_t)(M->r0 + i) * C + (size_t)M->cmap[M->ocol[e]]] += pattern ? 1.0 : M->oval[e];
    }
    MPI_Allreduce(MPI_IN_PLACE, d, (int)(R * C), MPI_DOUBLE, MPI_SUM, M->comm);
    return d;
}
static inline double *amg_dense(const ovk__amg_csr *M) { return amg_dense_of(M, 0); }

/* Collective: M's entries over its ranks */
static inline long amg_entries(const ovk__amg_csr *M)
{
    long mine = (long)ovk__amg_csr_dnnz(M) + (long)ovk__amg_csr_onnz(M), all = 0;
    MPI_Allreduce(&mine, &all, 1, MPI_LONG, MPI_SUM, M->comm);
    return all;
}

#endif

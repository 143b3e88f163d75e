/* Test helper: a hypre ParCSR matrix as a dense matrix on every rank. */
#ifndef OVK_TEST_HYPRE_DENSE_H
#define OVK_TEST_HYPRE_DENSE_H

#include <stdlib.h>

#include <mpi.h>

#include <_hypre_parcsr_ls.h>

/* Collective: M as a dense rows x cols matrix (row major) on every rank */
static inline double *hypre_dense(hypre_ParCSRMatrix *M)
{
    MPI_Comm comm = hypre_ParCSRMatrixComm(M);
    size_t R = (size_t)hypre_ParCSRMatrixGlobalNumRows(M), C = (size_t)hypre_ParCSRMatrixGlobalNumCols(M);
    double *d = calloc(R * C + 1, sizeof(double));
    hypre_CSRMatrix *D = hypre_ParCSRMatrixDiag(M), *O = hypre_ParCSRMatrixOffd(M);
    int n = hypre_CSRMatrixNumRows(D);
    HYPRE_BigInt r0 = hypre_ParCSRMatrixFirstRowIndex(M), c0 = hypre_ParCSRMatrixFirstColDiag(M);
    for (int i = 0; i < n; i++) {
        for (int e = hypre_CSRMatrixI(D)[i]; e < hypre_CSRMatrixI(D)[i + 1]; e++)
            d[(size_t)(r0 + i) * C + (size_t)(c0 + hypre_CSRMatrixJ(D)[e])] += hypre_CSRMatrixData(D)[e];
        if (hypre_CSRMatrixNumCols(O))
            for (int e = hypre_CSRMatrixI(O)[i]; e < hypre_CSRMatrixI(O)[i + 1]; e++)
                d[(size_t)(r0 + i) * C + (size_t)hypre_ParCSRMatrixColMapOffd(M)[hypre_CSRMatrixJ(O)[e]]] +=
                    hypre_CSRMatrixData(O)[e];
    }
    MPI_Allreduce(MPI_IN_PLACE, d, (int)(R * C), MPI_DOUBLE, MPI_SUM, comm);
    return d;
}

#endif

/* The diag block as plain CSR, whatever storage form the matrix chose
 * (16-bit offsets, one triangle kept, runs), for consumers that hand the
 * matrix to another library: the amg preconditioner builds hypre's ParCSR
 * from it and the offd block, which has ParCSR's shape already. */
#include <stdlib.h>
#include <string.h>

#include "matrix.h"

int ovk__matrix_diag_ptr(const ovk_matrix *A, int *ptr)
{
    const ovk__csr *d = &A->diag;
    int n = A->lay.nlocal;
    for (int i = 0; i <= n; i++) ptr[i] = 0;
    for (int i = 0; i < n; i++) {
        ptr[i + 1] += d->rowptr[i + 1] - d->rowptr[i];
        if (!d->upper) continue;
        for (int k = d->rowptr[i]; k < d->rowptr[i + 1]; k++) {
            int j = ovk__csr_col(d, i, k);
            if (j > i) ptr[j + 1]++; /* a_ji = a_ij, not stored */
        }
    }
    int64_t sum = 0;
    for (int i = 0; i < n; i++) {
        sum += ptr[i + 1];
        if (sum > INT32_MAX)
            return ovk__fail(OVK_EUNSUPPORTED, "diag block: more than 2^31 - 1 entries on one rank");
        ptr[i + 1] = (int)sum;
    }
    return OVK_OK;
}

int ovk__matrix_diag_fill(const ovk_matrix *A, const int *ptr, int *col, double *val)
{
    const ovk__csr *d = &A->diag;
    int n = A->lay.nlocal;
    int *pos = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    if (!pos) return ovk__fail(OVK_ENOMEM, "diag block: %d rows", n);
    memcpy(pos, ptr, sizeof(int) * (size_t)n);
    /* the rows in order: row i's mirrored a_ij (j < i) arrive before its own
     * entries, so a row of a kept triangle holds its columns ascending */
    for (int i = 0; i < n; i++)
        for (int k = d->rowptr[i]; k < d->rowptr[i + 1]; k++) {
            int j = ovk__csr_col(d, i, k);
            col[pos[i]] = j;
            val[pos[i]++] = d->val[k];
            if (d->upper && j > i) {
                col[pos[j]] = i;
                val[pos[j]++] = d->val[k];
            }
        }
    free(pos);
    /* a_ii first in its row */
    for (int i = 0; i < n; i++)
        for (int k = ptr[i]; k < ptr[i + 1]; k++) {
            if (col[k] != i) continue;
            int c = col[ptr[i]];
            double v = val[ptr[i]];
            col[ptr[i]] = i, val[ptr[i]] = val[k];
            col[k] = c, val[k] = v;
            break;
        }
    return OVK_OK;
}

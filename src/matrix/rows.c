/* The owned rows as plain CSR with global column ids, whatever storage form
 * the matrix chose (16-bit offsets, one triangle of the diag block), for
 * consumers that hand the matrix to another library (the amg
 * preconditioner builds hypre's ParCSR from it). */
#include <stdlib.h>
#include <string.h>

#include "matrix.h"

/* column of entry k of row i of the diag block (local id) */
static int diag_col(const ovk__csr *d, int i, int k) { return d->off16 ? i + d->off16[k] : d->col[k]; }

/* entries of each row: both blocks, and for a diag block kept as one
 * triangle the mirrored a_ji of the rows above */
static void count_rows(const ovk_matrix *A, int *len)
{
    const ovk__csr *d = &A->diag, *o = &A->offd;
    int n = A->lay.nlocal;
    for (int i = 0; i < n; i++) len[i] = d->rowptr[i + 1] - d->rowptr[i] + o->rowptr[i + 1] - o->rowptr[i];
    if (!d->upper) return;
    for (int i = 0; i < n; i++)
        for (int k = d->rowptr[i]; k < d->rowptr[i + 1]; k++) {
            int j = diag_col(d, i, k);
            if (j > i) len[j]++; /* a_ji = a_ij */
        }
}

static int rows_alloc(ovk__rows *r, int n, int64_t nnz)
{
    memset(r, 0, sizeof *r);
    r->n = n;
    r->ptr = malloc(sizeof(int64_t) * ((size_t)n + 1));
    r->col = malloc(sizeof(ovk_gidx) * (size_t)(nnz > 0 ? nnz : 1));
    r->val = malloc(sizeof(double) * (size_t)(nnz > 0 ? nnz : 1));
    if (r->ptr && r->col && r->val) return OVK_OK;
    ovk__rows_free(r);
    return ovk__fail(OVK_ENOMEM, "matrix rows: %d rows, %lld entries", n, (long long)nnz);
}

/* fill the rows in the order: diag block entries, mirrored entries, offd */
static void fill_rows(const ovk_matrix *A, ovk__rows *r, int64_t *pos)
{
    const ovk__csr *d = &A->diag, *o = &A->offd;
    ovk_gidx r0 = A->lay.row_start;
    int n = A->lay.nlocal;
    for (int i = 0; i < n; i++) pos[i] = r->ptr[i];
    for (int i = 0; i < n; i++)
        for (int k = d->rowptr[i]; k < d->rowptr[i + 1]; k++) {
            int j = diag_col(d, i, k);
            r->col[pos[i]] = r0 + j;
            r->val[pos[i]++] = d->val[k];
            if (d->upper && j > i) {
                r->col[pos[j]] = r0 + i;
                r->val[pos[j]++] = d->val[k];
            }
        }
    for (int i = 0; i < n; i++)
        for (int k = o->rowptr[i]; k < o->rowptr[i + 1]; k++) {
            r->col[pos[i]] = A->col_map[o->col[k]];
            r->val[pos[i]++] = o->val[k];
        }
}

int ovk__matrix_rows(const ovk_matrix *A, ovk__rows *r)
{
    int n = A->lay.nlocal;
    int *len = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    int64_t *pos = malloc(sizeof(int64_t) * (size_t)(n > 0 ? n : 1));
    int rc = (len && pos) ? OVK_OK : ovk__fail(OVK_ENOMEM, "matrix rows: %d rows", n);
    if (rc) goto cleanup;
    count_rows(A, len);
    int64_t nnz = 0;
    for (int i = 0; i < n; i++) nnz += len[i];
    rc = rows_alloc(r, n, nnz);
    if (rc) goto cleanup;
    r->ptr[0] = 0;
    for (int i = 0; i < n; i++) r->ptr[i + 1] = r->ptr[i] + len[i];
    fill_rows(A, r, pos);
cleanup:
    free(len);
    free(pos);
    return rc;
}

void ovk__rows_free(ovk__rows *r)
{
    free(r->ptr);
    free(r->col);
    free(r->val);
    memset(r, 0, sizeof *r);
}

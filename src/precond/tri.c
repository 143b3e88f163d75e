/* The rank's diagonal block as an upper triangle, and the triangular solves
 * of IC(0) and SSOR on it. */
#include <stdlib.h>
#include <string.h>

#include "precond.h"

/* entries of row i of the diag block right of the diagonal, as (j, a_ij) */
static int upper_len(const ovk__csr *d, int i)
{
    if (d->upper) return d->rowptr[i + 1] - d->rowptr[i] - 1; /* a_ii first, then j > i */
    int len = 0;
    for (int k = d->rowptr[i]; k < d->rowptr[i + 1]; k++) len += ovk__csr_col(d, i, k) > i;
    return len;
}

static int upper_alloc(ovk__upper *u, int n, int nnz)
{
    memset(u, 0, sizeof *u);
    u->n = n;
    u->ptr = malloc(sizeof(int) * ((size_t)n + 1));
    u->col = malloc(sizeof(int) * (size_t)(nnz > 0 ? nnz : 1));
    u->val = malloc(sizeof(double) * (size_t)(nnz > 0 ? nnz : 1));
    if (u->ptr && u->col && u->val) return OVK_OK;
    ovk__upper_free(u);
    return ovk__fail(OVK_ENOMEM, "upper triangle of %d rows, %d entries", n, nnz);
}

int ovk__upper_from(const ovk_matrix *A, ovk__upper *u)
{
    const ovk__csr *d = &A->diag;
    int n = A->lay.nlocal, nnz = 0;
    for (int i = 0; i < n; i++) nnz += 1 + upper_len(d, i);
    int rc = upper_alloc(u, n, nnz);
    if (rc) return rc;
    int pos = 0;
    for (int i = 0; i < n; i++) {
        u->ptr[i] = pos;
        u->col[pos] = i;
        u->val[pos++] = A->diagonal[i]; /* 0 when absent: the setup refuses it */
        for (int k = d->rowptr[i]; k < d->rowptr[i + 1]; k++) {
            int j = ovk__csr_col(d, i, k);
            if (j <= i) continue;
            u->col[pos] = j; /* rows are sorted by column after a_ii */
            u->val[pos++] = d->val[k];
        }
    }
    u->ptr[n] = pos;
    return OVK_OK;
}

void ovk__upper_free(ovk__upper *u)
{
    free(u->ptr);
    free(u->col);
    free(u->val);
    memset(u, 0, sizeof *u);
}

/* The forward solve of k systems, row by row: each row of U read once for
 * the k of them, each system's operations those of its single solve (k a
 * constant where inlined with one) */
static inline void solve_t_rows(const ovk__upper *u, double w, int k, const double *const *r, double *const *y,
                                const ovk__hook *h)
{
    const int *restrict ptr = u->ptr, *restrict col = u->col;
    const double *restrict val = u->val;
    int n = u->n, step = ovk__chunk_rows(n, h);
    for (int j = 0; j < k; j++)
        if (y[j] != r[j]) memcpy(y[j], r[j], sizeof(double) * (size_t)n);
    for (int lo = 0; lo < n; lo += step) {
        int hi = ovk__chunk_end(lo, step, n);
        for (int i = lo; i < hi; i++)
            for (int j = 0; j < k; j++) {
                double *yj = y[j];
                double yi = yj[i] / val[ptr[i]]; /* y_i = (r_i - w sum_k u_ki y_k) / u_ii */
                yj[i] = yi;
                for (int q = ptr[i] + 1; q < ptr[i + 1]; q++) yj[col[q]] -= w * val[q] * yi;
            }
        ovk__poke(h);
    }
}

/* the backward solve of k systems, as solve_t_rows */
static inline void solve_rows(const ovk__upper *u, double w, int k, const double *const *r, double *const *y,
                              const ovk__hook *h)
{
    const int *restrict ptr = u->ptr, *restrict col = u->col;
    const double *restrict val = u->val;
    int n = u->n, step = ovk__chunk_rows(n, h);
    for (int hi = n; hi > 0; hi -= step) {
        int lo = hi > step ? hi - step : 0;
        for (int i = hi - 1; i >= lo; i--)
            for (int j = 0; j < k; j++) {
                const double *yj = y[j];
                double s = r[j][i]; /* y_i = (r_i - w sum_j u_ij y_j) / u_ii */
                for (int q = ptr[i] + 1; q < ptr[i + 1]; q++) s -= w * val[q] * yj[col[q]];
                y[j][i] = s / val[ptr[i]];
            }
        ovk__poke(h);
    }
}

void ovk__upper_solve_t(const ovk__upper *u, double w, const double *r, double *y, const ovk__hook *h)
{
    solve_t_rows(u, w, 1, &r, &y, h);
}

void ovk__upper_solve(const ovk__upper *u, double w, const double *r, double *y, const ovk__hook *h)
{
    solve_rows(u, w, 1, &r, &y, h);
}

void ovk__upper_solve_t_many(const ovk__upper *u, double w, int k, const double *const *r, double *const *y,
                             const ovk__hook *h)
{
    solve_t_rows(u, w, k, r, y, h);
}

void ovk__upper_solve_many(const ovk__upper *u, double w, int k, const double *const *r, double *const *y,
                           const ovk__hook *h)
{
    solve_rows(u, w, k, r, y, h);
}

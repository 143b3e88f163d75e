/* The rank's diagonal block as an upper triangle, and the triangular solves
 * of IC(0) and SSOR on it. */
#include <stdint.h>
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
    ovk__free_each(3, (void *[]){u->ptr, u->col, u->val});
    memset(u, 0, sizeof *u);
}

/* row i's sweep asks for the entries OVK__PREFETCH_AHEAD on in its
 * direction dir (+1, -1) */
static inline void ahead(const ovk__upper *u, int i, int dir)
{
    OVK__AHEAD(u->val + u->ptr[i], dir);
    OVK__AHEAD(u->col + u->ptr[i], dir);
}

void ovk__upper_solve_t(const ovk__upper *u, double w, const double *r, double *y, const ovk__hook *h)
{
    const int *restrict ptr = u->ptr, *restrict col = u->col;
    const double *restrict val = u->val;
    int n = u->n, step = ovk__chunk_rows(n, h);
    if (y != r) memcpy(y, r, sizeof(double) * (size_t)n);
    for (int lo = 0; lo < n; lo += step) {
        int hi = ovk__chunk_end(lo, step, n);
        for (int i = lo; i < hi; i++) {
            ahead(u, i, 1);
            double yi = y[i] / val[ptr[i]]; /* y_i = (r_i - w sum_k u_ki y_k) / u_ii */
            y[i] = yi;
            for (int k = ptr[i] + 1; k < ptr[i + 1]; k++) y[col[k]] -= w * val[k] * yi;
        }
        ovk__poke(h);
    }
}

void ovk__upper_solve(const ovk__upper *u, double w, const double *r, double *y, const ovk__hook *h)
{
    const int *restrict ptr = u->ptr, *restrict col = u->col;
    const double *restrict val = u->val;
    int n = u->n, step = ovk__chunk_rows(n, h);
    for (int hi = n; hi > 0; hi -= step) {
        int lo = hi > step ? hi - step : 0;
        for (int i = hi - 1; i >= lo; i--) {
            ahead(u, i, -1);
            double s = r[i]; /* y_i = (r_i - w sum_j u_ij y_j) / u_ii */
            for (int k = ptr[i] + 1; k < ptr[i + 1]; k++) s -= w * val[k] * y[col[k]];
            y[i] = s / val[ptr[i]];
        }
        ovk__poke(h);
    }
}

/* row i's k values (yb + i k) into v, then yb's rows c > i of row i's
 * entries: y_c -= (w u_ic) y_i (the forward solve's update) */
static inline void forward_rows(const ovk__upper *u, double w, int k, double *restrict yb, int lo, int hi)
{
    const int *restrict ptr = u->ptr, *restrict col = u->col;
    const double *restrict val = u->val;
    double v[OVK__UPPER_BLOCK_MAX];
    for (int i = lo; i < hi; i++) {
        ahead(u, i, 1);
        double *restrict yi = yb + (size_t)i * (size_t)k, d = val[ptr[i]];
        for (int j = 0; j < k; j++) v[j] = yi[j] = yi[j] / d; /* y_i = (r_i - w sum_k u_ki y_k) / u_ii */
        for (int q = ptr[i] + 1; q < ptr[i + 1]; q++) {
            double a = w * val[q], *restrict yc = yb + (size_t)col[q] * (size_t)k;
            for (int j = 0; j < k; j++) yc[j] -= a * v[j];
        }
    }
}

/* rows [lo, hi) of the backward solve, descending, in place */
static inline void backward_rows(const ovk__upper *u, double w, int k, double *restrict yb, int lo, int hi)
{
    const int *restrict ptr = u->ptr, *restrict col = u->col;
    const double *restrict val = u->val;
    double s[OVK__UPPER_BLOCK_MAX];
    for (int i = hi - 1; i >= lo; i--) {
        ahead(u, i, -1);
        double *restrict yi = yb + (size_t)i * (size_t)k;
        for (int j = 0; j < k; j++) s[j] = yi[j]; /* y_i = (r_i - w sum_j u_ij y_j) / u_ii */
        for (int q = ptr[i] + 1; q < ptr[i + 1]; q++) {
            double a = w * val[q];
            const double *restrict yc = yb + (size_t)col[q] * (size_t)k;
            for (int j = 0; j < k; j++) s[j] -= a * yc[j];
        }
        for (int j = 0; j < k; j++) yi[j] = s[j] / val[ptr[i]];
    }
}

/* the block's two sweeps (k a constant where inlined with one) */
static inline void sweeps(const ovk__upper *u, double w, const double *scale, int k, double *yb, const ovk__hook *h)
{
    int n = u->n, step = ovk__chunk_rows(n, h);
    for (int lo = 0; lo < n; lo += step) {
        forward_rows(u, w, k, yb, lo, ovk__chunk_end(lo, step, n));
        ovk__poke(h);
    }
    if (scale)
        for (int i = 0; i < n; i++)
            for (int j = 0; j < k; j++) yb[(size_t)i * (size_t)k + (size_t)j] *= scale[i];
    for (int hi = n; hi > 0; hi -= step) {
        backward_rows(u, w, k, yb, hi > step ? hi - step : 0, hi);
        ovk__poke(h);
    }
}

void ovk__upper_sweeps_block(const ovk__upper *u, double w, const double *scale, int k, const double *const *r,
                             double *const *z, double *yb, const ovk__hook *h)
{
    int n = u->n;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < k; j++) yb[(size_t)i * (size_t)k + (size_t)j] = r[j][i];
    if (k == 8) sweeps(u, w, scale, 8, yb, h);
    else if (k == 4) sweeps(u, w, scale, 4, yb, h);
    else sweeps(u, w, scale, k, yb, h);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < k; j++) z[j][i] = yb[(size_t)i * (size_t)k + (size_t)j];
}

int ovk__upper_apply_many(const ovk__upper *u, double w, const double *scale, int k, const double *const *r,
                          double *const *z, ovk__upper_scratch *sc, const ovk__hook *h)
{
    size_t n = (size_t)(u->n > 0 ? u->n : 1), need = n * (size_t)(k < OVK__UPPER_BLOCK_MAX ? k : OVK__UPPER_BLOCK_MAX);
    if (sc->len < need) {
        free(sc->yb);
        sc->yb = malloc(sizeof(double) * need);
        sc->len = sc->yb ? need : 0;
    }
    if (!sc->yb) return OVK_ENOMEM; /* the caller applies system by system */
    for (int j0 = 0; j0 < k; j0 += OVK__UPPER_BLOCK_MAX) {
        int kb = k - j0 < OVK__UPPER_BLOCK_MAX ? k - j0 : OVK__UPPER_BLOCK_MAX;
        ovk__upper_sweeps_block(u, w, scale, kb, r + j0, z + j0, sc->yb, h);
    }
    return OVK_OK;
}

void ovk__tri_free(ovk__tri *t)
{
    free(t->ptr);
    free(t->col);
    free(t->off);
    free(t->val);
    free(t->valf);
    memset(t, 0, sizeof *t);
}

int ovk__tri_offsets_fit(const ovk__tri *t, int n)
{
    for (int i = 0; i < n; i++)
        for (int k = t->ptr[i]; k < t->ptr[i + 1]; k++)
            if (t->col[k] - i < INT16_MIN || t->col[k] - i > INT16_MAX) return 0;
    return 1;
}

int ovk__tri_compact(ovk__tri *t, int n, int off, int single, const char *who)
{
    size_t nnz = (size_t)t->ptr[n];
    if (off) {
        t->off = malloc(sizeof(int16_t) * (nnz > 0 ? nnz : 1));
        if (!t->off) return ovk__fail(OVK_ENOMEM, "%s: offsets of %zu entries", who, nnz);
        for (int i = 0; i < n; i++)
            for (int k = t->ptr[i]; k < t->ptr[i + 1]; k++) t->off[k] = (int16_t)(t->col[k] - i);
        free(t->col);
        t->col = NULL;
    }
    if (!single) return OVK_OK;
    t->valf = malloc(sizeof(float) * (nnz > 0 ? nnz : 1));
    if (!t->valf) return ovk__fail(OVK_ENOMEM, "%s: float factor of %zu entries", who, nnz);
    for (size_t k = 0; k < nnz; k++) t->valf[k] = (float)t->val[k];
    free(t->val);
    t->val = NULL;
    return OVK_OK;
}

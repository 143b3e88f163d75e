/* Block Jacobi with ILU(0) (PETSc's default for nonsymmetric matrices):
 * each rank factors its own diagonal block as L U on the block's own
 * pattern (no fill), L unit lower, no communication.  C = U^-1 L^-1.
 * For any matrix, symmetric or not; with a symmetric block it is IC(0)
 * up to the diagonal scaling, at twice its memory. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "precond.h"

/* A triangle of the factor without its diagonal, as CSR whose columns
 * are 16-bit offsets from the row (the sweeps stream 10 B per entry, not
 * 12), the entries too far from their row for 16 bits apart: row frow[f],
 * column fcol[f], value fval[f], by increasing row. */
typedef struct ilu0_tri {
    int *ptr;
    int16_t *off;
    double *val;
    int nfar;
    int *frow, *fcol;
    double *fval;
} ilu0_tri;

typedef struct ilu0 {
    int n;
    int *ptr, *col; /* the block's CSR, each row sorted by column (setup only) */
    double *val;    /* L (strictly lower, unit diagonal implied) and U in place */
    int *dpos;      /* index of u_ii in row i */
    double *dinv;   /* 1 / u_ii */
    /* the factor as the sweeps read it: each sweep streams its own
     * triangle, not the whole rows (half the bytes of the combined CSR) */
    ilu0_tri lo, up;
    long long row_start; /* of the first row, in the index base of details */
} ilu0;

static void tri_free(ilu0_tri *t)
{
    free(t->ptr);
    free(t->off);
    free(t->val);
    free(t->frow);
    free(t->fcol);
    free(t->fval);
    t->ptr = t->frow = t->fcol = NULL;
    t->off = NULL;
    t->val = t->fval = NULL;
    t->nfar = 0;
}

/* the combined CSR's arrays, kept only while factoring */
static void ilu0_free_block(ilu0 *f)
{
    free(f->ptr);
    free(f->col);
    free(f->val);
    free(f->dpos);
    f->ptr = f->col = f->dpos = NULL;
    f->val = NULL;
}

static void ilu0_free_factor(ilu0 *f)
{
    ilu0_free_block(f);
    free(f->dinv);
    f->dinv = NULL;
    tri_free(&f->lo);
    tri_free(&f->up);
}

/* entry k of row i of the factored block lies within 16 bits of its row */
static int near(const ilu0 *f, int i, int k) { return f->col[k] - i >= -INT16_MAX && f->col[k] - i <= INT16_MAX; }

/* t = the strictly lower (upper = 0) or strictly upper triangle of the
 * factored block, each row's near entries in their order, the far ones
 * apart */
static int split_tri(const ilu0 *f, int upper, ilu0_tri *t)
{
    int n = f->n;
    size_t nfar = 0;
    t->ptr = malloc(sizeof(int) * ((size_t)n + 1));
    if (!t->ptr) return ovk__fail(OVK_ENOMEM, "ilu0: %d rows", n);
    t->ptr[0] = 0;
    for (int i = 0; i < n; i++) {
        int k0 = upper ? f->dpos[i] + 1 : f->ptr[i], k1 = upper ? f->ptr[i + 1] : f->dpos[i], kept = 0;
        for (int k = k0; k < k1; k++) kept += near(f, i, k);
        nfar += (size_t)(k1 - k0 - kept);
        t->ptr[i + 1] = t->ptr[i] + kept;
    }
    size_t nnz = (size_t)t->ptr[n];
    t->off = malloc(sizeof(int16_t) * (nnz > 0 ? nnz : 1));
    t->val = malloc(sizeof(double) * (nnz > 0 ? nnz : 1));
    t->frow = malloc(sizeof(int) * (nfar > 0 ? nfar : 1));
    t->fcol = malloc(sizeof(int) * (nfar > 0 ? nfar : 1));
    t->fval = malloc(sizeof(double) * (nfar > 0 ? nfar : 1));
    if (!t->off || !t->val || !t->frow || !t->fcol || !t->fval)
        return ovk__fail(OVK_ENOMEM, "ilu0: %zu entries", nnz + nfar);
    for (int i = 0, q = 0, p = 0; i < n; i++) {
        int k0 = upper ? f->dpos[i] + 1 : f->ptr[i], k1 = upper ? f->ptr[i + 1] : f->dpos[i];
        for (int k = k0; k < k1; k++) {
            if (near(f, i, k)) {
                t->off[q] = (int16_t)(f->col[k] - i);
                t->val[q++] = f->val[k];
            } else {
                t->frow[p] = i;
                t->fcol[p] = f->col[k];
                t->fval[p++] = f->val[k];
            }
        }
    }
    t->nfar = (int)nfar;
    return OVK_OK;
}

static int ilu0_create(ovk__opts *opts, void **state)
{
    (void)opts;
    return ovk__pc_zeroed_state(sizeof(ilu0), "ilu0", state);
}

static void ilu0_destroy(void *state)
{
    ilu0_free_factor(state);
    free(state);
}

/* each row's entries by increasing column (rows are short: insertion sort) */
static void sort_rows(ilu0 *f)
{
    for (int i = 0; i < f->n; i++)
        for (int k = f->ptr[i] + 1; k < f->ptr[i + 1]; k++) {
            int c = f->col[k], t = k;
            double v = f->val[k];
            for (; t > f->ptr[i] && f->col[t - 1] > c; t--) {
                f->col[t] = f->col[t - 1];
                f->val[t] = f->val[t - 1];
            }
            f->col[t] = c;
            f->val[t] = v;
        }
}

/* the block as sorted CSR, and room for the factor */
static int copy_block(ilu0 *f, const ovk_matrix *A)
{
    int n = f->n = A->lay.nlocal;
    f->ptr = malloc(sizeof(int) * ((size_t)n + 1));
    f->dpos = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    f->dinv = malloc(sizeof(double) * (size_t)(n > 0 ? n : 1));
    if (!f->ptr || !f->dpos || !f->dinv) return ovk__fail(OVK_ENOMEM, "ilu0: %d rows", n);
    int rc = ovk__matrix_diag_ptr(A, f->ptr);
    if (rc) return rc;
    size_t nnz = (size_t)f->ptr[n];
    f->col = malloc(sizeof(int) * (nnz > 0 ? nnz : 1));
    f->val = malloc(sizeof(double) * (nnz > 0 ? nnz : 1));
    if (!f->col || !f->val) return ovk__fail(OVK_ENOMEM, "ilu0: %zu entries", nnz);
    rc = ovk__matrix_diag_fill(A, f->ptr, f->col, f->val);
    if (rc) return rc;
    sort_rows(f);
    for (int i = 0; i < n; i++) {
        f->dpos[i] = -1;
        for (int k = f->ptr[i]; k < f->ptr[i + 1]; k++)
            if (f->col[k] == i) f->dpos[i] = k;
    }
    return OVK_OK;
}

static int bad_pivot(const ilu0 *f, int i, double piv)
{
    return ovk__fail(OVK_EPRECOND,
                     "ilu0: pivot %g at row %lld (incomplete LU of this rank's diagonal block breaks down; "
                     "try 'jacobi', or reorder the rows)",
                     piv, f->row_start + i);
}

/* IKJ ILU(0) in place, row i through the dense row w (n doubles): its
 * entries scattered, the updates a_ij -= l_ir u_rj made for every column j
 * of row r's U (those outside row i's pattern land in w and are never
 * read back: no fill, no test per update), its entries gathered back */
static int factor(ilu0 *f, double *w)
{
    int *ptr = f->ptr, *col = f->col;
    double *val = f->val;
    for (int i = 0; i < f->n; i++) {
        if (f->dpos[i] < 0) return bad_pivot(f, i, 0.0);
        for (int k = ptr[i]; k < ptr[i + 1]; k++) w[col[k]] = val[k];
        for (int k = ptr[i]; k < f->dpos[i]; k++) {
            int r = col[k];
            double l = w[r] * f->dinv[r]; /* l_ir = a_ir / u_rr */
            w[r] = l;
            for (int t = f->dpos[r] + 1; t < ptr[r + 1]; t++) w[col[t]] -= l * val[t]; /* a_ij -= l_ir u_rj */
        }
        for (int k = ptr[i]; k < ptr[i + 1]; k++) val[k] = w[col[k]];
        double piv = val[f->dpos[i]];
        if (piv == 0.0 || !isfinite(piv) || !isfinite(1.0 / piv)) return bad_pivot(f, i, piv);
        f->dinv[i] = 1.0 / piv;
    }
    return OVK_OK;
}

static int ilu0_setup(void *state, const ovk__pc_env *env)
{
    ilu0 *f = state;
    ilu0_free_factor(f);
    f->row_start = ovk__row_id(&env->A->lay, 0); /* as details print it */
    int rc = copy_block(f, env->A);
    if (rc) return rc;
    double *w = calloc((size_t)(f->n > 0 ? f->n : 1), sizeof(double));
    if (!w) return ovk__fail(OVK_ENOMEM, "ilu0: %d rows", f->n);
    rc = factor(f, w);
    free(w);
    if (!rc) rc = split_tri(f, 0, &f->lo); /* L and U apart for the sweeps */
    if (!rc) rc = split_tri(f, 1, &f->up);
    ilu0_free_block(f);
    return rc;
}

/* sum_k val[k] z[i + off[k]] over row i's near entries [k0, k1), in two
 * partial sums (even and odd entries): half the chain of additions a row
 * waits for */
static inline double row_sum(const int16_t *restrict off, const double *restrict val, const double *restrict z, int i,
                             int k0, int k1)
{
    const double *restrict zi = z + i;
    double a = 0.0, b = 0.0;
    int k = k0;
    for (; k + 1 < k1; k += 2) {
        a += val[k] * zi[off[k]];
        b += val[k + 1] * zi[off[k + 1]];
    }
    if (k < k1) a += val[k] * zi[off[k]];
    return a + b;
}

/* y = L^-1 r for rows [lo, hi), unit L; *f: the next far entry */
static void forward_rows(const ilu0_tri *t, const double *restrict r, double *restrict z, int lo, int hi, int *f)
{
    const int *restrict ptr = t->ptr;
    for (int i = lo; i < hi; i++) {
        double s = r[i] - row_sum(t->off, t->val, z, i, ptr[i], ptr[i + 1]); /* y_i = r_i - sum_{j<i} l_ij y_j */
        for (; *f < t->nfar && t->frow[*f] == i; ++*f) s -= t->fval[*f] * z[t->fcol[*f]];
        z[i] = s;
    }
}

/* z = U^-1 y for rows [lo, hi), from the last; *f: one past the next far
 * entry (counting down) */
static void backward_rows(const ilu0_tri *t, const double *restrict dinv, double *restrict z, int lo, int hi, int *f)
{
    const int *restrict ptr = t->ptr;
    for (int i = hi - 1; i >= lo; i--) {
        double s = z[i] - row_sum(t->off, t->val, z, i, ptr[i], ptr[i + 1]); /* y_i - sum_{j>i} u_ij z_j */
        for (; *f > 0 && t->frow[*f - 1] == i; --*f) s -= t->fval[*f - 1] * z[t->fcol[*f - 1]];
        z[i] = s * dinv[i]; /* / u_ii */
    }
}

/* z = U^-1 L^-1 r: the forward sweep with unit L, then the backward one */
static int ilu0_apply(void *state, const double *r, double *z, const ovk__hook *h)
{
    const ilu0 *f = state;
    int n = f->n, step = ovk__chunk_rows(n, h), far = 0;
    for (int lo = 0; lo < n; lo += step) {
        forward_rows(&f->lo, r, z, lo, ovk__chunk_end(lo, step, n), &far);
        ovk__poke(h);
    }
    far = f->up.nfar;
    for (int hi = n; hi > 0; hi -= step) {
        backward_rows(&f->up, f->dinv, z, hi > step ? hi - step : 0, hi, &far);
        ovk__poke(h);
    }
    return OVK_OK;
}

const ovk__pc_type ovk__pc_ilu0 = {
    .name = "ilu0",
    .description = "block Jacobi ILU(0): incomplete LU of each rank's diagonal block, no communication, any matrix",
    .options = "",
    .needs_matrix = 1,
    .create = ilu0_create, .setup = ilu0_setup, .destroy = ilu0_destroy,
    .apply = ilu0_apply,
};

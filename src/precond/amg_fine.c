/* The amg cycle's products with level 0 in single precision
 * (amg:precision=single): the solver's matrix read through its own
 * structure (row pointers, columns, halo plan) with a float copy of its
 * values, so that the two products of the cycle's fine level stream 4
 * bytes a value instead of 8; the Krylov solver's own product keeps the
 * double values.  The cycle is then a V-cycle on the rounded matrix: still
 * symmetric (the rounding of a symmetric matrix is) and positive definite
 * as long as its smoother's bound holds, which the l1 norms of the double
 * values give up to a relative 2^-24.
 *
 * The diag block's forms read here: one triangle kept or both, columns as
 * int or as 16-bit offsets, values in double.  Any other form (runs of one
 * repeated row, far columns, values already packed in fewer bytes) already
 * streams fewer bytes than this would: no copy, the matrix layer's product. */
#include <stdlib.h>
#include <string.h>

#include "amg_fine.h"

struct ovk__amg_fine {
    const ovk_matrix *A; /* the solver's matrix (borrowed) */
    float *dval, *oval;  /* its diag and offd values in float, as stored */
};

void ovk__amg_fine_free(ovk__amg_fine *f)
{
    if (!f) return;
    free(f->dval), free(f->oval);
    free(f);
}

/* 1 when the diag block has a form the kernels below read */
static int readable(const ovk__csr *d) { return d->vform == OVK__VAL_DOUBLE && !d->runs && !d->esc16; }

static size_t block_values(const ovk__csr *b, int n) { return n > 0 ? (size_t)b->rowptr[n] : 0; }

static void to_float(const double *v, size_t n, float *f)
{
    for (size_t k = 0; k < n; k++) f[k] = (float)v[k];
}

int ovk__amg_fine_make(const ovk_matrix *A, ovk__amg_fine **out)
{
    *out = NULL;
    if (!readable(&A->diag)) return OVK_OK;
    int n = A->lay.nlocal;
    size_t nd = block_values(&A->diag, n), no = block_values(&A->offd, n);
    ovk__amg_fine *f = calloc(1, sizeof *f);
    if (f) f->dval = malloc(sizeof(float) * (nd + 1)), f->oval = malloc(sizeof(float) * (no + 1));
    if (!f || !f->dval || !f->oval) {
        ovk__amg_fine_free(f);
        return ovk__fail(OVK_ENOMEM, "amg: float values of level 0 (%zu entries)", nd + no);
    }
    f->A = A;
    ovk__amg_fine_refresh(f);
    *out = f;
    return OVK_OK;
}

void ovk__amg_fine_refresh(ovk__amg_fine *f)
{
    int n = f->A->lay.nlocal;
    to_float(f->A->diag.val, block_values(&f->A->diag, n), f->dval);
    to_float(f->A->offd.val, block_values(&f->A->offd, n), f->oval);
}

/* y[lo, hi) = D x, column BASE + IDX[k] (off16: i + offset; col: the
 * column).  UPPER: one triangle kept, a_ii first in its row: row i adds
 * a_ij x_j (j >= i) to what the rows above left in y_i and a_ij x_i to y_j
 * (a_ji = a_ij; y zero before the first row) */
#define ROWS(NAME, IDX_T, IDX, BASE, UPPER)                                                                   \
    static void NAME(const ovk__csr *m, const float *restrict v, const double *restrict x, double *restrict y, \
                     int lo, int hi)                                                                          \
    {                                                                                                         \
        const int *restrict ptr = m->rowptr;                                                                  \
        const IDX_T *restrict idx = m->IDX;                                                                   \
        for (int i = lo; i < hi; i++) {                                                                       \
            int k = ptr[i], end = ptr[i + 1];                                                                 \
            double xi = x[i], s = (UPPER) ? y[i] + (double)v[k++] * xi : 0.0;                                 \
            for (; k < end; k++) {                                                                            \
                int j = (BASE) + idx[k];                                                                      \
                s += (double)v[k] * x[j];                                                                     \
                if (UPPER) y[j] += (double)v[k] * xi;                                                         \
            }                                                                                                 \
            y[i] = s;                                                                                         \
        }                                                                                                     \
    }
ROWS(full_col, int, col, 0, 0)
ROWS(full_off, int16_t, off16, i, 0)
ROWS(upper_col, int, col, 0, 1)
ROWS(upper_off, int16_t, off16, i, 1)

typedef void (*rows_fn)(const ovk__csr *, const float *, const double *, double *, int, int);

int ovk__amg_fine_matvec(const ovk__amg_fine *f, const double *x, double *y, const ovk__hook *h)
{
    const ovk_matrix *A = f->A;
    const ovk__csr *d = &A->diag, *o = &A->offd;
    int n = A->lay.nlocal, step = ovk__chunk_rows(n, h);
    rows_fn rows = d->upper ? (d->off16 ? upper_off : upper_col) : (d->off16 ? full_off : full_col);
    int rc = ovk__halo_begin(A, x);
    if (rc) return rc;
    if (d->upper && n > 0) memset(y, 0, sizeof(double) * (size_t)n);
    for (int lo = 0; lo < n; lo += step) { /* y = D x while the halo flies */
        int hi = ovk__chunk_end(lo, step, n);
        rows(d, f->dval, x, y, lo, hi);
        ovk__poke(h);
    }
    rc = ovk__halo_end(A);
    if (rc || A->ncols_offd == 0) return rc;
    const double *ext = A->halo.ext;
    for (int i = 0; i < n; i++) /* y += O ext */
        if (o->rowptr[i] < o->rowptr[i + 1]) {
            double s = 0.0;
            for (int k = o->rowptr[i]; k < o->rowptr[i + 1]; k++) s += (double)f->oval[k] * ext[o->col[k]];
            y[i] += s;
        }
    return OVK_OK;
}

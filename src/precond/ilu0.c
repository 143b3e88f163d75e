/* Block Jacobi with ILU(0) (PETSc's default for nonsymmetric matrices):
 * each rank factors its own diagonal block as L U on the block's own
 * pattern (no fill), L unit lower, no communication.  C = U^-1 L^-1.
 * For any matrix, symmetric or not; with a symmetric block it is IC(0)
 * up to the diagonal scaling, at twice its memory.
 *
 * The sweeps stream the factor: each triangle keeps its columns as 16-bit
 * offsets from the row where all fit (else as int), and with
 * precision=single its values rounded to float (the factorisation itself
 * in double; the sweeps multiply and add in double; a factor value beyond
 * float's range is OVK_EPRECOND naming its row).  Offsets change no
 * bit of z; float values change C a little and stay one fixed operator. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "precond.h"

static const char *const precision_names[] = {"double", "single", NULL};
enum { PREC_DOUBLE, PREC_SINGLE };

typedef struct ilu0 {
    int n;
    int *ptr, *col; /* the block's CSR, each row sorted by column (setup only) */
    double *val;    /* L (strictly lower, unit diagonal implied) and U in place */
    int *dpos;      /* index of u_ii in row i */
    double *dinv;   /* 1 / u_ii */
    /* the factor as the sweeps read it: each sweep streams its own
     * triangle, not the whole rows (half the bytes of the combined CSR) */
    ovk__tri lo, up;
    long long row_start; /* of the first row, in the index base of details */
    int precision;       /* of the sweeps' values (PREC_*) */
} ilu0;

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
    ovk__tri_free(&f->lo);
    ovk__tri_free(&f->up);
}

/* t = the strictly lower (upper = 0) or strictly upper triangle of the
 * factored block, each row's entries in their order */
static int split_tri(const ilu0 *f, int upper, ovk__tri *t)
{
    int n = f->n;
    t->ptr = malloc(sizeof(int) * ((size_t)n + 1));
    if (!t->ptr) return ovk__fail(OVK_ENOMEM, "ilu0: %d rows", n);
    t->ptr[0] = 0;
    for (int i = 0; i < n; i++)
        t->ptr[i + 1] = t->ptr[i] + (upper ? f->ptr[i + 1] - f->dpos[i] - 1 : f->dpos[i] - f->ptr[i]);
    size_t nnz = (size_t)t->ptr[n];
    t->col = malloc(sizeof(int) * (nnz > 0 ? nnz : 1));
    t->val = malloc(sizeof(double) * (nnz > 0 ? nnz : 1));
    if (!t->col || !t->val) return ovk__fail(OVK_ENOMEM, "ilu0: %zu entries", nnz);
    for (int i = 0; i < n; i++) {
        int k0 = upper ? f->dpos[i] + 1 : f->ptr[i];
        for (int k = t->ptr[i]; k < t->ptr[i + 1]; k++) {
            t->col[k] = f->col[k0 + k - t->ptr[i]];
            t->val[k] = f->val[k0 + k - t->ptr[i]];
        }
    }
    return OVK_OK;
}

/* OVK_EPRECOND naming the first value of t beyond float's range (the
 * factor of row i: L or U), else OVK_OK */
static int float_fits(const ilu0 *f, const ovk__tri *t, const char *which)
{
    for (int i = 0; i < f->n; i++)
        for (int k = t->ptr[i]; k < t->ptr[i + 1]; k++)
            if (!(fabs(t->val[k]) <= FLT_MAX))
                return ovk__fail(OVK_EPRECOND,
                                 "ilu0:precision=single: %s factor value %g at row %lld is beyond float's range; "
                                 "use precision=double",
                                 which, t->val[k], f->row_start + i);
    return OVK_OK;
}

static int ilu0_create(ovk__opts *opts, void **state)
{
    int precision = PREC_DOUBLE;
    const ovk__opt_entry t[] = {OVK__OPT_CHOICE("precision", precision_names, &precision)};
    int rc = ovk__opts_read(opts, "ilu0", t, 1);
    if (!rc) rc = ovk__pc_zeroed_state(sizeof(ilu0), "ilu0", state);
    if (!rc) ((ilu0 *)*state)->precision = precision;
    return rc;
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
    int off = !rc && ovk__tri_offsets_fit(&f->lo, f->n) && ovk__tri_offsets_fit(&f->up, f->n);
    int single = f->precision == PREC_SINGLE;
    if (!rc && single) rc = float_fits(f, &f->lo, "L");
    if (!rc && single) rc = float_fits(f, &f->up, "U");
    if (!rc) rc = ovk__tri_compact(&f->lo, f->n, off, single, "ilu0");
    if (!rc) rc = ovk__tri_compact(&f->up, f->n, off, single, "ilu0");
    return rc;
}

/* the sweeps for one storage form: column of entry k of row i COL(i, k),
 * its value VAL(k); CP, VP their addresses (for the prefetch) */
#define SWEEPS(NAME, COL, VAL, CP, VP)                                                        \
    static void NAME(const ilu0 *f, const double *restrict r, double *restrict z, const ovk__hook *h) \
    {                                                                                         \
        const int *restrict lptr = f->lo.ptr, *restrict uptr = f->up.ptr;                     \
        const int *restrict lcol = f->lo.col, *restrict ucol = f->up.col;                     \
        const int16_t *restrict loff = f->lo.off, *restrict uoff = f->up.off;                 \
        const double *restrict lval = f->lo.val, *restrict uval = f->up.val;                  \
        const float *restrict lvalf = f->lo.valf, *restrict uvalf = f->up.valf;               \
        const double *restrict dinv = f->dinv;                                                \
        (void)lcol, (void)ucol, (void)loff, (void)uoff, (void)lval, (void)uval, (void)lvalf, (void)uvalf; \
        int n = f->n, step = ovk__chunk_rows(n, h);                                           \
        for (int lo = 0; lo < n; lo += step) {                                                \
            int hi = ovk__chunk_end(lo, step, n);                                             \
            for (int i = lo; i < hi; i++) {                                                   \
                OVK__AHEAD(VP(l, lptr[i]), 1);                                                \
                OVK__AHEAD(CP(l, lptr[i]), 1);                                                \
                double s = r[i]; /* y_i = r_i - sum_{j<i} l_ij y_j */                         \
                for (int k = lptr[i]; k < lptr[i + 1]; k++) s -= VAL(l, k) * z[COL(l, i, k)]; \
                z[i] = s;                                                                     \
            }                                                                                 \
            ovk__poke(h);                                                                     \
        }                                                                                     \
        for (int hi = n; hi > 0; hi -= step) {                                                \
            int lo = hi > step ? hi - step : 0;                                               \
            for (int i = hi - 1; i >= lo; i--) {                                              \
                OVK__AHEAD(VP(u, uptr[i]), -1);                                               \
                OVK__AHEAD(CP(u, uptr[i]), -1);                                               \
                double s = z[i]; /* z_i = (y_i - sum_{j>i} u_ij z_j) / u_ii */                \
                for (int k = uptr[i]; k < uptr[i + 1]; k++) s -= VAL(u, k) * z[COL(u, i, k)]; \
                z[i] = s * dinv[i];                                                           \
            }                                                                                 \
            ovk__poke(h);                                                                     \
        }                                                                                     \
    }
#define COL_INT(t, i, k) t##col[k]
#define COL_OFF(t, i, k) ((i) + t##off[k])
#define VAL_DOUBLE(t, k) t##val[k]
#define VAL_FLOAT(t, k) ((double)t##valf[k])
#define AT_COL(t, k) (t##col + (k))
#define AT_OFF(t, k) (t##off + (k))
#define AT_DOUBLE(t, k) (t##val + (k))
#define AT_FLOAT(t, k) (t##valf + (k))
SWEEPS(sweeps_col_d, COL_INT, VAL_DOUBLE, AT_COL, AT_DOUBLE)
SWEEPS(sweeps_off_d, COL_OFF, VAL_DOUBLE, AT_OFF, AT_DOUBLE)
SWEEPS(sweeps_col_f, COL_INT, VAL_FLOAT, AT_COL, AT_FLOAT)
SWEEPS(sweeps_off_f, COL_OFF, VAL_FLOAT, AT_OFF, AT_FLOAT)

/* z = U^-1 L^-1 r: the forward sweep with unit L, then the backward one,
 * in the kernel of the triangles' form (both in the same one) */
static int ilu0_apply(void *state, const double *r, double *z, const ovk__hook *h)
{
    const ilu0 *f = state;
    int off = f->lo.off != NULL, single = f->lo.valf != NULL;
    if (off) (single ? sweeps_off_f : sweeps_off_d)(f, r, z, h);
    else (single ? sweeps_col_f : sweeps_col_d)(f, r, z, h);
    return OVK_OK;
}

const ovk__pc_type ovk__pc_ilu0 = {
    .needs_matrix = 1,
    .create = ilu0_create, .setup = ilu0_setup, .destroy = ilu0_destroy,
    .apply = ilu0_apply,
};

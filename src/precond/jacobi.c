/* Jacobi: C = diag(A)^-1.  Applied as hypre's DiagScale (a division through
 * a_ii, Fig. 4 of the PCG-Overlap paper) where the solver wants <r,z> in the
 * same pass (alg1: bitwise hypre's iterates), as a multiplication by 1/a_ii
 * in the solvers' fused kernels, and split as L^-1 = diag(A)^-1/2 stored at
 * setup (DiagInvScale, Fig. 5). */
#include <math.h>
#include <stdlib.h>

#include "precond.h"

typedef struct jacobi {
    const double *a; /* the matrix's diagonal, read at apply */
    double *dinv;    /* 1 / a_ii */
    double *linv;    /* 1 / sqrt(a_ii) */
    int n;
} jacobi;

static int jacobi_create(ovk__opts *opts, void **state)
{
    (void)opts;
    return ovk__pc_zeroed_state(sizeof(jacobi), "jacobi", state);
}

static void jacobi_destroy(void *state)
{
    jacobi *j = state;
    free(j->dinv);
    free(j->linv);
    free(j);
}

static int jacobi_setup(void *state, const ovk__pc_env *env)
{
    jacobi *j = state;
    int rc = ovk__pc_diag_check_sign(env->A, "jacobi", env->nonsymmetric);
    if (rc) return rc;
    if (!j->dinv || j->n != env->n) { /* a value update keeps the sizes */
        free(j->dinv);
        free(j->linv);
        j->linv = NULL;
        j->n = env->n;
        rc = ovk__pc_alloc(env->n, "jacobi", &j->dinv);
        if (rc) return rc;
        rc = ovk__pc_alloc(env->n, "jacobi", &j->linv);
        if (rc) return rc;
    }
    j->a = env->A->diagonal;
    for (int i = 0; i < j->n; i++) {
        j->dinv[i] = 1.0 / j->a[i];
        j->linv[i] = 1.0 / sqrt(j->a[i]); /* NaN for a_ii < 0: no split solver is nonsymmetric */
    }
    return OVK_OK;
}

static int jacobi_apply(void *state, const double *r, double *z, const ovk__hook *h)
{
    jacobi *j = state;
    ovk__mul(j->n, j->dinv, r, z, h); /* z = D^-1 r */
    return OVK_OK;
}

/* Rows [lo, hi): z = r ./ a_ii, *rz += <r,z>, *rr += <r,r>.  The same
 * division as hypre's DiagScale, but the diagonal is read from a contiguous
 * copy instead of through A_data[A_i[i]] (a cache line of the matrix per
 * row: 8x slower). */
static void divide_rows(const double *restrict d, const double *restrict r, double *restrict z, int lo, int hi,
                        double *rz, double *rr)
{
    double a = *rz, b = *rr;
    for (int i = lo; i < hi; i++) {
        z[i] = r[i] / d[i];
        a += r[i] * z[i];
        b += r[i] * r[i];
    }
    *rz = a;
    *rr = b;
}

static int jacobi_apply_dots(void *state, const double *restrict r, double *restrict z, double *rz, double *rr,
                             const ovk__hook *h)
{
    jacobi *j = state;
    int n = j->n, step = ovk__chunk_rows(n, h);
    *rz = *rr = 0.0;
    for (int lo = 0; lo < n; lo += step) {
        divide_rows(j->a, r, z, lo, ovk__chunk_end(lo, step, n), rz, rr);
        ovk__poke(h);
    }
    return OVK_OK;
}

/* Rows per block of the k systems' pass: the block of the diagonal stays in
 * cache while each system's rows go through. */
enum { MANY_BLOCK_ROWS = 1024 };

/* k systems: as jacobi_apply (rz == NULL) or jacobi_apply_dots, the
 * diagonal read once; each system's sums in its own row order */
static int jacobi_apply_many(void *state, int k, const double *const *r, double *const *z, double *rz, double *rr,
                             const ovk__hook *h)
{
    jacobi *j = state;
    int n = j->n, step = ovk__chunk_rows(n, h);
    if (step > MANY_BLOCK_ROWS) step = MANY_BLOCK_ROWS;
    for (int s = 0; rz && s < k; s++) rz[s] = rr[s] = 0.0;
    for (int lo = 0; lo < n; lo += step) {
        int hi = ovk__chunk_end(lo, step, n);
        for (int s = 0; s < k; s++) {
            const double *restrict rs = r[s];
            double *restrict zs = z[s];
            if (rz) divide_rows(j->a, rs, zs, lo, hi, &rz[s], &rr[s]);
            else
                for (int i = lo; i < hi; i++) zs[i] = j->dinv[i] * rs[i]; /* z = D^-1 r */
        }
        ovk__poke(h);
    }
    return OVK_OK;
}

static int jacobi_split(void *state, const double *x, double *y, const ovk__hook *h)
{
    jacobi *j = state;
    ovk__mul(j->n, j->linv, x, y, h); /* y = L^-1 x = L^-T x */
    return OVK_OK;
}

static const double *jacobi_diagonal(void *state) { return ((jacobi *)state)->dinv; }
static const double *jacobi_split_diagonal(void *state) { return ((jacobi *)state)->linv; }
static const double *jacobi_divisor(void *state) { return ((jacobi *)state)->a; }

const ovk__pc_type ovk__pc_jacobi = {
    .needs_matrix = 1,
    .create = jacobi_create, .setup = jacobi_setup, .destroy = jacobi_destroy,
    .apply = jacobi_apply, .apply_dots = jacobi_apply_dots, .apply_many = jacobi_apply_many,
    .apply_left = jacobi_split, .apply_right = jacobi_split,
    .diagonal = jacobi_diagonal, .split_diagonal = jacobi_split_diagonal, .divisor = jacobi_divisor,
};

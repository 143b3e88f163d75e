/* Block Jacobi with IC(0): each rank factors its own diagonal block as
 * U^T U on the block's upper-triangle pattern (no fill), no communication.
 * C = U^-1 U^-T, split as L^-1 = U^-T. */
#include <math.h>
#include <stdlib.h>

#include "precond.h"

typedef struct ic0 {
    ovk__upper u; /* the factor U, diagonal first in each row */
    ovk__upper_scratch many; /* apply_many's interleaved block */
    long long row_start; /* of the first row, in the index base of details */
} ic0;

static int ic0_create(ovk__opts *opts, void **state)
{
    (void)opts;
    return ovk__pc_zeroed_state(sizeof(ic0), "ic0", state);
}

static void ic0_destroy(void *state)
{
    ovk__upper_free(&((ic0 *)state)->u);
    free(((ic0 *)state)->many.yb);
    free(state);
}

/* a_jl -= u_kj u_kl for the l >= j of row k that are in row j's pattern */
static void eliminate(ovk__upper *u, int k, int p)
{
    int j = u->col[p], t = u->ptr[j] + 1, end = u->ptr[j + 1];
    double ukj = u->val[p];
    u->val[u->ptr[j]] -= ukj * ukj; /* l = j */
    for (int q = p + 1; q < u->ptr[k + 1]; q++) {
        int l = u->col[q];
        while (t < end && u->col[t] < l) t++;
        if (t < end && u->col[t] == l) u->val[t] -= ukj * u->val[q];
    }
}

/* right-looking IC(0) of the upper rows, in place */
static int factor(ic0 *f)
{
    ovk__upper *u = &f->u;
    for (int k = 0; k < u->n; k++) {
        double piv = u->val[u->ptr[k]];
        if (!(piv > 0.0) || !isfinite(piv))
            return ovk__fail(OVK_EPRECOND,
                             "ic0: pivot %g at row %lld is not positive (incomplete Cholesky of this block breaks "
                             "down; try 'ssor' or 'jacobi')",
                             piv, f->row_start + k);
        double ukk = sqrt(piv);
        u->val[u->ptr[k]] = ukk;
        for (int p = u->ptr[k] + 1; p < u->ptr[k + 1]; p++) u->val[p] /= ukk; /* u_kj = a_kj / u_kk */
        for (int p = u->ptr[k] + 1; p < u->ptr[k + 1]; p++) eliminate(u, k, p);
    }
    return OVK_OK;
}

static int ic0_setup(void *state, const ovk__pc_env *env)
{
    ic0 *f = state;
    ovk__upper_free(&f->u);
    f->row_start = ovk__row_id(&env->A->lay, 0); /* as details print it */
    int rc = ovk__upper_from(env->A, &f->u);
    if (rc) return rc;
    return factor(f);
}

static int ic0_left(void *state, const double *r, double *t, const ovk__hook *h)
{
    ovk__upper_solve_t(&((ic0 *)state)->u, 1.0, r, t, h); /* t = U^-T r */
    return OVK_OK;
}

static int ic0_right(void *state, const double *t, double *w, const ovk__hook *h)
{
    ovk__upper_solve(&((ic0 *)state)->u, 1.0, t, w, h); /* w = U^-1 t */
    return OVK_OK;
}

static int ic0_apply(void *state, const double *r, double *z, const ovk__hook *h)
{
    ic0_left(state, r, z, h);         /* z = U^-T r */
    return ic0_right(state, z, z, h); /* z = U^-1 z */
}

/* k systems: z[j] = U^-1 U^-T r[j], interleaved, each sweep reading U
 * once (without the room for that, one system after the other) */
static int ic0_apply_many(void *state, int k, const double *const *r, double *const *z, double *rz, double *rr,
                          const ovk__hook *h)
{
    ic0 *f = state;
    (void)rz, (void)rr; /* no apply_dots: never asked for the sums */
    if (ovk__upper_apply_many(&f->u, 1.0, NULL, k, r, z, &f->many, h))
        for (int j = 0; j < k; j++) ic0_apply(state, r[j], z[j], h);
    return OVK_OK;
}

const ovk__pc_type ovk__pc_ic0 = {
    .needs_matrix = 1, .symmetric_only = 1,
    .create = ic0_create, .setup = ic0_setup, .destroy = ic0_destroy,
    .apply = ic0_apply, .apply_many = ic0_apply_many, .apply_left = ic0_left, .apply_right = ic0_right,
};

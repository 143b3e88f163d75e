/* No preconditioner: C = I. */
#include <stdlib.h>
#include <string.h>

#include "precond.h"

typedef struct none {
    double *ones; /* C's diagonal, for the solvers' fused kernels */
    int n;
} none;

static int none_create(ovk__opts *opts, void **state)
{
    (void)opts;
    return ovk__pc_zeroed_state(sizeof(none), "none", state);
}

static void none_destroy(void *state)
{
    free(((none *)state)->ones);
    free(state);
}

static int none_setup(void *state, const ovk__pc_env *env)
{
    none *p = state;
    if (p->ones && p->n == env->n) return OVK_OK;
    free(p->ones);
    p->n = env->n;
    int rc = ovk__pc_alloc(env->n, "none", &p->ones);
    if (rc) return rc;
    for (int i = 0; i < p->n; i++) p->ones[i] = 1.0;
    return OVK_OK;
}

static int none_apply(void *state, const double *r, double *z, const ovk__hook *h)
{
    (void)h;
    memcpy(z, r, sizeof(double) * (size_t)((none *)state)->n); /* z = r */
    return OVK_OK;
}

static int none_apply_dots(void *state, const double *restrict r, double *restrict z, double *rz, double *rr,
                           const ovk__hook *h)
{
    none *p = state;
    int n = p->n, step = ovk__chunk_rows(n, h);
    double a = 0.0;
    for (int lo = 0; lo < n; lo += step) {
        int hi = ovk__chunk_end(lo, step, n);
        for (int i = lo; i < hi; i++) {
            z[i] = r[i];
            a += r[i] * r[i];
        }
        ovk__poke(h);
    }
    *rz = a;
    *rr = a;
    return OVK_OK;
}

static const double *none_diagonal(void *state) { return ((none *)state)->ones; }

const ovk__pc_type ovk__pc_none = {
    .fixed = 1,
    .create = none_create, .setup = none_setup, .destroy = none_destroy,
    .apply = none_apply, .apply_dots = none_apply_dots, .apply_left = none_apply, .apply_right = none_apply,
    .diagonal = none_diagonal, .split_diagonal = none_diagonal,
};

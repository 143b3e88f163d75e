/* Block Jacobi SSOR: a symmetric Gauss-Seidel (omega = 1) or SSOR sweep over
 * each rank's diagonal block, no communication.  With A's block = L + D + U,
 *   M = (D + w L) D^-1 (D + w U) / (w (2 - w)),   C = M^-1,
 * split as M = K K^T, K = (D + w L) D^-1/2 / sqrt(w (2 - w)). */
#include <math.h>
#include <stdlib.h>

#include "precond.h"

typedef struct ssor {
    double omega;
    ovk__upper u; /* the block's diagonal and upper triangle */
    double *sq;   /* sqrt(w (2 - w) a_ii) */
    double *scale; /* w (2 - w) a_ii */
    ovk__upper_scratch many; /* apply_many's interleaved block */
} ssor;

static int ssor_create(ovk__opts *opts, void **state)
{
    ssor *s = calloc(1, sizeof(ssor));
    if (!s) return ovk__fail(OVK_ENOMEM, "ssor");
    *state = s;
    s->omega = 1.0;
    int rc = ovk__opt_double(opts, "ssor", "omega", 1e-3, 2.0 - 1e-3, &s->omega);
    return rc;
}

static void ssor_destroy(void *state)
{
    ssor *s = state;
    ovk__upper_free(&s->u);
    free(s->sq);
    free(s->scale);
    free(s->many.yb);
    free(s);
}

static int ssor_setup(void *state, const ovk__pc_env *env)
{
    ssor *s = state;
    int rc = ovk__pc_diag_check(env->A, "ssor");
    if (rc) return rc;
    ovk__upper_free(&s->u);
    free(s->sq);
    free(s->scale);
    s->sq = s->scale = NULL;
    rc = ovk__upper_from(env->A, &s->u);
    if (rc) return rc;
    rc = ovk__pc_alloc(env->n, "ssor", &s->sq);
    if (rc) return rc;
    rc = ovk__pc_alloc(env->n, "ssor", &s->scale);
    if (rc) return rc;
    double f = s->omega * (2.0 - s->omega);
    for (int i = 0; i < env->n; i++) {
        s->scale[i] = f * env->A->diagonal[i];
        s->sq[i] = sqrt(s->scale[i]);
    }
    return OVK_OK;
}

static int ssor_apply(void *state, const double *r, double *z, const ovk__hook *h)
{
    ssor *s = state;
    ovk__upper_solve_t(&s->u, s->omega, r, z, h);       /* z = (D + w L)^-1 r */
    for (int i = 0; i < s->u.n; i++) z[i] *= s->scale[i]; /* z = w (2 - w) D z */
    ovk__upper_solve(&s->u, s->omega, z, z, h);          /* z = (D + w U)^-1 z */
    return OVK_OK;
}

/* k systems as ssor_apply, interleaved, each sweep reading the triangle
 * once (without the room for that, one system after the other) */
static int ssor_apply_many(void *state, int k, const double *const *r, double *const *z, double *rz, double *rr,
                           const ovk__hook *h)
{
    ssor *s = state;
    (void)rz, (void)rr; /* no apply_dots: never asked for the sums */
    if (ovk__upper_apply_many(&s->u, s->omega, s->scale, k, r, z, &s->many, h))
        for (int j = 0; j < k; j++) ssor_apply(state, r[j], z[j], h);
    return OVK_OK;
}

static int ssor_left(void *state, const double *r, double *t, const ovk__hook *h)
{
    ssor *s = state;
    ovk__upper_solve_t(&s->u, s->omega, r, t, h);    /* t = (D + w L)^-1 r */
    for (int i = 0; i < s->u.n; i++) t[i] *= s->sq[i]; /* t = K^-1 r */
    return OVK_OK;
}

static int ssor_right(void *state, const double *t, double *w, const ovk__hook *h)
{
    ssor *s = state;
    for (int i = 0; i < s->u.n; i++) w[i] = t[i] * s->sq[i]; /* w = sqrt(w (2 - w)) D^1/2 t */
    ovk__upper_solve(&s->u, s->omega, w, w, h);              /* w = K^-T t */
    return OVK_OK;
}

const ovk__pc_type ovk__pc_ssor = {
    .needs_matrix = 1, .symmetric_only = 1,
    .create = ssor_create, .setup = ssor_setup, .destroy = ssor_destroy,
    .apply = ssor_apply, .apply_many = ssor_apply_many, .apply_left = ssor_left, .apply_right = ssor_right,
};

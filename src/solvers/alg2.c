/* PCG-Algorithm2 (Fig. 6 of the PCG-Overlap paper): the split-preconditioned
 * loop with C = L^-T L^-1 (Jacobi: L = sqrt(diag A), L^-1 stored once at
 * setup and applied as a multiplication, DiagInvScale, Fig. 5; IC(0) and
 * SSOR: their triangular factors).  The x update lags one iteration
 * (x += alpha p_prev), so <s,p> is not needed until after it; the iterates
 * equal Algorithm1's in exact arithmetic. */
#include <math.h>
#include <stdlib.h>

#include "solver.h"

typedef struct alg2_work {
    double *block, *r, *t, *w, *s, *p, *p_prev;
} alg2_work;

static int iterate(ovk__ctx *c, alg2_work *w, double gamma, double bb)
{
    int rc = OVK_OK, done = 0;
    double alpha = 0.0, beta = 0.0;
    for (int iter = 1; iter <= c->opts->max_iter; iter++) {
        if ((rc = ovk__ctx_pc_right(c, w->t, w->w))) return rc; /* w = L^-T t */
        ovk__tic t0 = ovk__tic_start(c);
        ovk__zxpby(c->n, w->w, beta, w->p_prev, w->p, &c->hook); /* p = w + beta p_prev */
        ovk__tic_stop(c, OVK_TIMER_AXPY, t0);
        if ((rc = ovk__ctx_matvec(c, w->p, w->s))) return rc; /* s = A p */
        double sdotp = ovk__dot(c->n, w->s, w->p);
        if ((rc = ovk__sum(c, OVK__SDOTP, &sdotp, 1))) return rc; /* sdotp = <s,p> */
        ovk__ctx_axpy(c, alpha, w->p_prev, c->x); /* x += alpha p_prev */
        if (!isfinite(sdotp) || sdotp <= 0.0) {
            ovk__stop(c, iter, isfinite(sdotp) ? OVK_REASON_BREAKDOWN : OVK_REASON_NONFINITE, "<s,p>", sdotp);
            return OVK_OK;
        }
        alpha = gamma / sdotp;
        ovk__lanczos_add(c, alpha, beta);
        double iprod, gamma_old = gamma;
        t0 = ovk__tic_start(c);
        ovk__axpy_dot(c->n, -alpha, w->s, w->r, &iprod, &c->hook); /* r -= alpha s */
        ovk__tic_stop(c, OVK_TIMER_AXPY, t0);
        if ((rc = ovk__sum(c, OVK__IPROD, &iprod, 1))) return rc; /* iprod = <r,r> */
        if ((rc = ovk__ctx_pc_left(c, w->r, w->t, &gamma))) return rc; /* t = L^-1 r */
        if ((rc = ovk__sum(c, OVK__GAMMA, &gamma, 1))) return rc; /* gamma = <t,t> */
        beta = gamma / gamma_old;
        rc = ovk__lagged_iter_end(c, iter, iprod, bb, alpha, &w->p, &w->p_prev, &done);
        if (rc || done) return rc;
    }
    c->res->reason = OVK_REASON_MAXIT;
    return OVK_OK;
}

static int alg2_setup(ovk__ctx *c, void **work)
{
    alg2_work *w = calloc(1, sizeof *w);
    *work = w;
    if (!w) return ovk__agree(c->comm, ovk__fail(OVK_ENOMEM, "alg2")); /* meets the others' agree below */
    double **vecs[] = {&w->r, &w->t, &w->w, &w->s, &w->p, &w->p_prev};
    return ovk__ctx_alloc_block(c, 6, vecs, &w->block);
}

static void alg2_destroy(void *work)
{
    alg2_work *w = work;
    free(w->block);
    free(w);
}

static int alg2_solve(ovk__ctx *c, void *work)
{
    alg2_work *w = work;
    int rc, decided = 0;
    double bb = 0.0, gamma = 0.0;
    double t_solve = ovk__now();
    for (int i = 0; i < c->n; i++) w->p_prev[i] = 0.0;
    rc = ovk__ctx_residual(c, w->r); /* r = b - A x */
    if (!rc) rc = ovk__initial_check(c, w->r, &bb, &decided);
    if (rc || decided) goto done;
    rc = ovk__ctx_pc_left(c, w->r, w->t, &gamma); /* t = L^-1 r */
    if (!rc) rc = ovk__sum(c, OVK__GAMMA, &gamma, 1); /* gamma = <t,t> */
    if (!rc) rc = iterate(c, w, gamma, bb);
done:
    c->t[OVK_TIMER_SOLVE] = ovk__now() - t_solve;
    return rc;
}

const ovk__solver ovk__solver_alg2 = {
    .name = "alg2",
    .description = "PCG-Algorithm2: split preconditioner C = L^-T L^-1, x update one step late",
    .options = "",
    .split = 1,
    .setup = alg2_setup,
    .solve = alg2_solve,
    .destroy = alg2_destroy,
};

/* PCG-Algorithm2 (Fig. 6 of the PCG-Overlap paper): the split-preconditioned
 * loop with C = L^-T L^-1 (Jacobi: L = sqrt(diag A), L^-1 stored once at
 * setup and applied as a multiplication, DiagInvScale, Fig. 5; IC(0) and
 * SSOR: their triangular factors).  The x update lags one iteration
 * (x += alpha p_prev), so <s,p> is not needed until after it; the iterates
 * equal Algorithm1's in exact arithmetic.  Convergence of the recursive
 * residual is confirmed with the true one (ovk__lagged_confirm); if it does
 * not hold, r = b - A x replaces r and the iteration goes on. */
#include <stddef.h>

#include "../../solver.h"

typedef struct alg2_work {
    double *r, *t, *w, *s, *p, *p_prev;
} alg2_work;

static int iterate_from(ovk__ctx *c, alg2_work *w, double gamma, double bb)
{
    int rc = OVK_OK, done = 0;
    double alpha = 0.0, beta = 0.0;
    for (int iter = 1; iter <= c->opts->max_iter; iter++) {
        rc = ovk__ctx_pc_right(c, w->t, w->w); /* w = L^-T t */
        if (rc) return rc;
        ovk__tic t0 = ovk__tic_start(c);
        ovk__zxpby(c->n, w->w, beta, w->p_prev, w->p, &c->hook); /* p = w + beta p_prev */
        ovk__tic_stop(c, OVK_TIMER_AXPY, t0);
        rc = ovk__ctx_matvec(c, w->p, w->s); /* s = A p */
        if (rc) return rc;
        double sdotp = ovk__dot(c->n, w->s, w->p);
        rc = ovk__sum(c, OVK__SDOTP, &sdotp, 1); /* sdotp = <s,p> */
        if (rc) return rc;
        ovk__ctx_axpy(c, alpha, w->p_prev, c->x); /* x += alpha p_prev */
        if (ovk__breakdown(c, iter, "<s,p>", sdotp, 0)) return OVK_OK;
        alpha = gamma / sdotp;
        ovk__lanczos_add(c, alpha, beta);
        double iprod, gamma_old = gamma;
        t0 = ovk__tic_start(c);
        ovk__axpy_dot(c->n, -alpha, w->s, w->r, &iprod, &c->hook); /* r -= alpha s */
        ovk__tic_stop(c, OVK_TIMER_AXPY, t0);
        rc = ovk__sum(c, OVK__IPROD, &iprod, 1); /* iprod = <r,r> */
        if (rc) return rc;
        rc = ovk__ctx_pc_left(c, w->r, w->t, &gamma); /* t = L^-1 r */
        if (rc) return rc;
        rc = ovk__sum(c, OVK__GAMMA, &gamma, 1); /* gamma = <t,t> */
        if (rc) return rc;
        beta = gamma / gamma_old;
        rc = ovk__lagged_iter_end(c, iter, iprod, bb, alpha, &w->p, &w->p_prev, &done);
        int stopped = done;
        if (!rc && done) rc = ovk__lagged_confirm(c, iter, bb, w->r, &alpha, &done);
        if (rc || done) return rc;
        if (stopped) { /* not confirmed: r was replaced by b - A x; t, gamma and beta from it */
            rc = ovk__ctx_pc_left(c, w->r, w->t, &gamma); /* t = L^-1 r */
            if (!rc) rc = ovk__sum(c, OVK__GAMMA, &gamma, 1); /* gamma = <t,t> */
            if (rc) return rc;
            beta = gamma / gamma_old;
        }
    }
    c->res->reason = OVK_REASON_MAXIT;
    return OVK_OK;
}

/* t = L^-1 r, gamma = <t,t>, p_prev = 0, then the iterations */
static int iterate(ovk__ctx *c, void *work, double bb)
{
    alg2_work *w = work;
    double gamma = 0.0;
    for (int i = 0; i < c->n; i++) w->p_prev[i] = 0.0;
    int rc = ovk__ctx_pc_left(c, w->r, w->t, &gamma); /* t = L^-1 r */
    if (rc) return rc;
    rc = ovk__sum(c, OVK__GAMMA, &gamma, 1); /* gamma = <t,t> */
    if (rc) return rc;
    return iterate_from(c, w, gamma, bb);
}

#define V(f) offsetof(alg2_work, f)
const ovk__solver_ops ovk__solver_alg2 = {
    .split = 1,
    .caps = OVK__CAP_CONDEST,
    OVK__WORK_VECTORS(alg2_work, V(r), V(t), V(w), V(s), V(p), V(p_prev)),
    .iterate = iterate,
};

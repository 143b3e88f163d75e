/* PCG-Overlap (Fig. 7 of the PCG-Overlap paper): PCG-Algorithm2 with each of
 * its three inner products started early and completed late:
 *   gamma = <t,t>  overlaps  w = L^-T t        (DiagInvScale for Jacobi)
 *   sdotp = <s,p>  overlaps  x += alpha p_prev (X axpy)
 *   iprod = <r,r>  overlaps  t = L^-1 r        (DiagInvScale for Jacobi)
 * The kernels drive the backend's progress through the hook while they run.
 * Convergence of the recursive residual is confirmed with the true one
 * (ovk__lagged_confirm); if it does not hold, r = b - A x replaces r and
 * the iteration goes on. */
#include <stddef.h>

#include "../../solver.h"

typedef struct ovl_work {
    double *r, *t, *w, *s, *p, *p_prev;
    double gamma, sdotp, iprod; /* reduced in place */
    ovk_request *gamma_req;     /* in flight between iterations */
} ovl_work;

/* One iteration up to and including the start of the next gamma reduction. */
static int step(ovk__ctx *c, ovl_work *w, int iter, double *alpha, double *gamma_old)
{
    ovk_request *req = NULL;
    int rc = ovk__ctx_pc_right(c, w->t, w->w); /* w = L^-T t */
    if (rc) return rc;
    rc = ovk__sum_end(c, OVK__GAMMA, w->gamma_req); /* gamma = wait <t,t> */
    w->gamma_req = NULL; /* released even when the wait failed: not waited again at the end */
    if (rc) return rc;
    double beta = iter == 1 ? 0.0 : w->gamma / *gamma_old;
    ovk__tic t0 = ovk__tic_start(c);
    ovk__zxpby(c->n, w->w, beta, w->p_prev, w->p, &c->hook); /* p = w + beta p_prev */
    ovk__tic_stop(c, OVK_TIMER_AXPY, t0);
    rc = ovk__ctx_matvec(c, w->p, w->s); /* s = A p */
    if (rc) return rc;
    w->sdotp = ovk__dot(c->n, w->s, w->p);
    rc = ovk__sum_begin(c, OVK__SDOTP, &w->sdotp, 1, &req); /* init <s,p> */
    if (rc) return rc;
    ovk__ctx_axpy(c, *alpha, w->p_prev, c->x); /* x += alpha p_prev */
    rc = ovk__sum_end(c, OVK__SDOTP, req); /* sdotp = wait <s,p> */
    if (rc) return rc;
    if (ovk__breakdown(c, iter, "<s,p>", w->sdotp, 0)) return OVK_OK;
    *alpha = w->gamma / w->sdotp;
    ovk__lanczos_add(c, *alpha, beta);
    t0 = ovk__tic_start(c);
    ovk__axpy_dot(c->n, -*alpha, w->s, w->r, &w->iprod, &c->hook); /* r -= alpha s */
    ovk__tic_stop(c, OVK_TIMER_AXPY, t0);
    rc = ovk__sum_begin(c, OVK__IPROD, &w->iprod, 1, &req); /* init <r,r> */
    if (rc) return rc;
    double tt = 0.0;
    rc = ovk__ctx_pc_left(c, w->r, w->t, &tt); /* t = L^-1 r */
    rc = ovk__sum_finish(c, OVK__IPROD, req, rc); /* iprod = wait <r,r> */
    if (rc) return rc;
    *gamma_old = w->gamma;
    w->gamma = tt;
    return ovk__sum_begin(c, OVK__GAMMA, &w->gamma, 1, &w->gamma_req); /* init <t,t> */
}

/* The recursive residual converged: the gamma in flight completed, then
 * the true residual confirmed (ovk__lagged_confirm); if it does not hold,
 * r = b - A x replaced r, so t = L^-1 r and <t,t> are started again. */
static int settle(ovk__ctx *c, ovl_work *w, int iter, double bb, double *alpha, int *done)
{
    int rc = ovk__sum_end(c, OVK__GAMMA, w->gamma_req);
    w->gamma_req = NULL;
    if (!rc) rc = ovk__lagged_confirm(c, iter, bb, w->r, alpha, done);
    if (rc || *done) return rc;
    rc = ovk__ctx_pc_left(c, w->r, w->t, &w->gamma); /* t = L^-1 r */
    if (rc) return rc;
    return ovk__sum_begin(c, OVK__GAMMA, &w->gamma, 1, &w->gamma_req); /* init <t,t> */
}

static int iterate_from(ovk__ctx *c, ovl_work *w, double bb)
{
    int rc = OVK_OK, done = 0;
    double alpha = 0.0, gamma_old = 1.0;
    for (int iter = 1; iter <= c->opts->max_iter; iter++) {
        rc = step(c, w, iter, &alpha, &gamma_old);
        if (rc || c->res->reason != OVK_REASON_NONE) return rc; /* error or breakdown */
        rc = ovk__lagged_iter_end(c, iter, w->iprod, bb, alpha, &w->p, &w->p_prev, &done);
        if (!rc && done && c->res->reason == OVK_REASON_CONVERGED) rc = settle(c, w, iter, bb, &alpha, &done);
        if (rc || done) return rc;
    }
    c->res->reason = OVK_REASON_MAXIT;
    return OVK_OK;
}

/* t = L^-1 r, start <t,t>, p_prev = 0, then the iterations; the last
 * gamma is not needed, but its reduction must complete */
static int iterate(ovk__ctx *c, void *work, double bb)
{
    ovl_work *w = work;
    for (int i = 0; i < c->n; i++) w->p_prev[i] = 0.0;
    w->gamma_req = NULL;
    int rc = ovk__ctx_pc_left(c, w->r, w->t, &w->gamma); /* t = L^-1 r */
    if (rc) return rc;
    rc = ovk__sum_begin(c, OVK__GAMMA, &w->gamma, 1, &w->gamma_req); /* init <t,t> */
    if (rc) return rc;
    rc = iterate_from(c, w, bb);
    if (w->gamma_req) rc = ovk__sum_finish(c, OVK__GAMMA, w->gamma_req, rc);
    w->gamma_req = NULL;
    return rc;
}

#define V(f) offsetof(ovl_work, f)
const ovk__solver_ops ovk__solver_overlap = {
    .split = 1,
    .caps = OVK__CAP_CONDEST,
    OVK__WORK_VECTORS(ovl_work, V(r), V(t), V(w), V(s), V(p), V(p_prev)),
    .iterate = iterate,
};

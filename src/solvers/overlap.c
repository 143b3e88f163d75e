/* PCG-Overlap (Fig. 7 of the PCG-Overlap paper): PCG-Algorithm2 with each of
 * its three inner products started early and completed late:
 *   gamma = <t,t>  overlaps  w = L^-T t        (DiagInvScale for Jacobi)
 *   sdotp = <s,p>  overlaps  x += alpha p_prev (X axpy)
 *   iprod = <r,r>  overlaps  t = L^-1 r        (DiagInvScale for Jacobi)
 * The kernels drive the backend's progress through the hook while they run. */
#include <math.h>
#include <stdlib.h>

#include "solver.h"

typedef struct ovl_work {
    double *block, *r, *t, *w, *s, *p, *p_prev;
    double gamma, sdotp, iprod; /* reduced in place */
    ovk_request *gamma_req;     /* in flight between iterations */
} ovl_work;

/* One iteration up to and including the start of the next gamma reduction. */
static int step(ovk__ctx *c, ovl_work *w, int iter, double *alpha, double *gamma_old)
{
    ovk_request *req = NULL;
    int rc;
    if ((rc = ovk__ctx_pc_right(c, w->t, w->w))) return rc; /* w = L^-T t */
    rc = ovk__sum_end(c, OVK__GAMMA, w->gamma_req); /* gamma = wait <t,t> */
    w->gamma_req = NULL; /* released even when the wait failed: not waited again at the end */
    if (rc) return rc;
    double beta = iter == 1 ? 0.0 : w->gamma / *gamma_old;
    ovk__tic t0 = ovk__tic_start(c);
    ovk__zxpby(c->n, w->w, beta, w->p_prev, w->p, &c->hook); /* p = w + beta p_prev */
    ovk__tic_stop(c, OVK_TIMER_AXPY, t0);
    if ((rc = ovk__ctx_matvec(c, w->p, w->s))) return rc; /* s = A p */
    w->sdotp = ovk__dot(c->n, w->s, w->p);
    if ((rc = ovk__sum_begin(c, OVK__SDOTP, &w->sdotp, 1, &req))) return rc; /* init <s,p> */
    ovk__ctx_axpy(c, *alpha, w->p_prev, c->x); /* x += alpha p_prev */
    if ((rc = ovk__sum_end(c, OVK__SDOTP, req))) return rc; /* sdotp = wait <s,p> */
    if (!isfinite(w->sdotp) || w->sdotp <= 0.0) {
        ovk__stop(c, iter, isfinite(w->sdotp) ? OVK_REASON_BREAKDOWN : OVK_REASON_NONFINITE, "<s,p>", w->sdotp);
        return OVK_OK;
    }
    *alpha = w->gamma / w->sdotp;
    ovk__lanczos_add(c, *alpha, beta);
    t0 = ovk__tic_start(c);
    ovk__axpy_dot(c->n, -*alpha, w->s, w->r, &w->iprod, &c->hook); /* r -= alpha s */
    ovk__tic_stop(c, OVK_TIMER_AXPY, t0);
    if ((rc = ovk__sum_begin(c, OVK__IPROD, &w->iprod, 1, &req))) return rc; /* init <r,r> */
    double tt = 0.0;
    rc = ovk__ctx_pc_left(c, w->r, w->t, &tt); /* t = L^-1 r */
    int rc2 = ovk__sum_end(c, OVK__IPROD, req); /* iprod = wait <r,r> */
    if (rc || (rc = rc2)) return rc;
    *gamma_old = w->gamma;
    w->gamma = tt;
    return ovk__sum_begin(c, OVK__GAMMA, &w->gamma, 1, &w->gamma_req); /* init <t,t> */
}

static int iterate(ovk__ctx *c, ovl_work *w, double bb)
{
    int rc = OVK_OK, done = 0;
    double alpha = 0.0, gamma_old = 1.0;
    for (int iter = 1; iter <= c->opts->max_iter; iter++) {
        rc = step(c, w, iter, &alpha, &gamma_old);
        if (rc || c->res->reason != OVK_REASON_NONE) return rc; /* error or breakdown */
        rc = ovk__lagged_iter_end(c, iter, w->iprod, bb, alpha, &w->p, &w->p_prev, &done);
        if (rc || done) return rc;
    }
    c->res->reason = OVK_REASON_MAXIT;
    return OVK_OK;
}

static int overlap_setup(ovk__ctx *c, void **work)
{
    ovl_work *w = calloc(1, sizeof *w);
    *work = w;
    if (!w) return ovk__agree(c->comm, ovk__fail(OVK_ENOMEM, "overlap")); /* meets the others' agree below */
    double **vecs[] = {&w->r, &w->t, &w->w, &w->s, &w->p, &w->p_prev};
    return ovk__ctx_alloc_block(c, 6, vecs, &w->block);
}

static void overlap_destroy(void *work)
{
    ovl_work *w = work;
    free(w->block);
    free(w);
}

static int overlap_solve(ovk__ctx *c, void *work)
{
    ovl_work *w = work;
    int rc, decided = 0;
    double bb = 0.0;
    double t_solve = ovk__now();
    for (int i = 0; i < c->n; i++) w->p_prev[i] = 0.0;
    w->gamma_req = NULL;
    rc = ovk__ctx_residual(c, w->r); /* r = b - A x */
    if (!rc) rc = ovk__initial_check(c, w->r, &bb, &decided);
    if (rc || decided) goto done;
    rc = ovk__ctx_pc_left(c, w->r, w->t, &w->gamma); /* t = L^-1 r */
    if (!rc) rc = ovk__sum_begin(c, OVK__GAMMA, &w->gamma, 1, &w->gamma_req); /* init <t,t> */
    if (!rc) rc = iterate(c, w, bb);
done:
    if (w->gamma_req) { /* the last gamma is not needed, but must complete */
        int rc2 = ovk__sum_end(c, OVK__GAMMA, w->gamma_req);
        if (!rc) rc = rc2;
        w->gamma_req = NULL;
    }
    c->t[OVK_TIMER_SOLVE] = ovk__now() - t_solve;
    return rc;
}

const ovk__solver ovk__solver_overlap = {
    .name = "overlap",
    .description = "PCG-Overlap: Algorithm2 with inner products started early, completed late",
    .options = "",
    .split = 1,
    .setup = overlap_setup,
    .solve = overlap_solve,
    .destroy = overlap_destroy,
};

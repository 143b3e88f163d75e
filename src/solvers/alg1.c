/* PCG-Algorithm1 (Fig. 3 of the PCG-Overlap paper): hypre's PCG loop with
 * three blocking inner products per iteration, <s,p>, <r,s> and <r,r>, and
 * the DiagScale preconditioner. */
#include <math.h>
#include <stdlib.h>

#include "solver.h"

typedef struct alg1_work {
    double *r, *s, *p;
} alg1_work;

/* s = C r with local <r,s> and <r,r> in the same pass */
static void precond(ovk__ctx *c, const double *r, double *s, double *rs, double *rr)
{
    ovk__tic t0 = ovk__tic_start(c);
    if (c->opts->precond == OVK_PRECOND_NONE) ovk__identity_dots(c->n, r, s, rs, rr, &c->hook);
    else ovk__diagscale_dots(c->A, r, s, rs, rr, &c->hook);
    ovk__tic_stop(c, OVK_TIMER_PRECOND, t0);
}

static int iterate(ovk__ctx *c, alg1_work *w, double gamma, double bb)
{
    int n = c->n, rc = OVK_OK, stop = 0;
    double *r = w->r, *s = w->s, *p = w->p, *x = c->x, beta = 0.0;
    for (int iter = 1; iter <= c->opts->max_iter; iter++) {
        rc = ovk__ctx_matvec(c, p, s); /* s = A p */
        if (rc) return rc;
        double sdotp = ovk__dot(n, s, p); /* sdotp = <s,p> */
        if ((rc = ovk__sum(c, OVK__SDOTP, &sdotp, 1))) return rc;
        if (!isfinite(sdotp) || sdotp <= 0.0) {
            ovk__stop(c, iter, isfinite(sdotp) ? OVK_REASON_BREAKDOWN : OVK_REASON_NONFINITE, "<s,p>", sdotp);
            return OVK_OK;
        }
        double alpha = gamma / sdotp, gamma_old = gamma;
        ovk__lanczos_add(c, alpha, beta);
        ovk__tic t0 = ovk__tic_start(c);
        ovk__axpy2(n, alpha, p, x, s, r, &c->hook); /* x += alpha p; r -= alpha s */
        ovk__tic_stop(c, OVK_TIMER_AXPY, t0);
        double iprod;
        precond(c, r, s, &gamma, &iprod); /* s = C r, gamma = <r,s>, iprod = <r,r> */
        if ((rc = ovk__sum(c, OVK__GAMMA, &gamma, 1))) return rc;
        if ((rc = ovk__sum(c, OVK__IPROD, &iprod, 1))) return rc;
        ovk__iterate_check(c, iter, iprod, bb, &stop);
        if (stop) return OVK_OK;
        if (!isfinite(gamma) || gamma < 0.0) {
            ovk__stop(c, iter, isfinite(gamma) ? OVK_REASON_BREAKDOWN : OVK_REASON_NONFINITE, "<r,Cr>", gamma);
            return OVK_OK;
        }
        t0 = ovk__tic_start(c);
        beta = gamma / gamma_old;
        ovk__xpay(n, s, beta, p, &c->hook); /* p = s + beta p */
        ovk__tic_stop(c, OVK_TIMER_AXPY, t0);
    }
    c->res->reason = OVK_REASON_MAXIT;
    return OVK_OK;
}

static int alg1_solve(ovk__ctx *c)
{
    alg1_work w = {0};
    double **vecs[] = {&w.r, &w.s, &w.p};
    int rc = ovk__ctx_alloc(c, 3, vecs), decided = 0;
    double bb = 0.0, gamma = 0.0, rr = 0.0;
    if (rc) goto cleanup;
    double t_solve = ovk__now();
    rc = ovk__ctx_residual(c, w.r); /* r = b - A x */
    if (rc) goto cleanup;
    rc = ovk__initial_check(c, w.r, &bb, &decided);
    if (rc || decided) goto done;
    precond(c, w.r, w.p, &gamma, &rr); /* p = C r, gamma = <r,p> */
    rc = ovk__sum(c, OVK__GAMMA, &gamma, 1);
    if (!rc) rc = iterate(c, &w, gamma, bb);
done:
    c->t[OVK_TIMER_SOLVE] = ovk__now() - t_solve;
cleanup:
    free(w.r);
    free(w.s);
    free(w.p);
    return rc;
}

const ovk__solver ovk__solver_alg1 = {
    .name = "alg1",
    .description = "PCG-Algorithm1: hypre's PCG, three blocking inner products, DiagScale",
    .solve = alg1_solve,
};

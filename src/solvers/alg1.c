/* PCG-Algorithm1 (Fig. 3 of the PCG-Overlap paper): hypre's PCG loop with
 * three blocking inner products per iteration, <s,p>, <r,s> and <r,r>, and
 * any preconditioner (Jacobi as hypre's DiagScale, with <r,s> and <r,r> in
 * the pass that makes s).  Three passes per iteration: s = A p with <s,p>
 * (ovk__matvec_dot), then (Jacobi) x += alpha p, r -= alpha s, s = r ./ a_ii
 * with <r,s>, <r,r>, then p = s + beta p: 88 B per row besides the matvec
 * instead of 112 (docs/solvers.md).  On one rank the iterates are bitwise
 * those of the four-pass loop; on more, <s,p> sums each row's diag-block
 * and offd parts separately (the last bits may differ). */
#include <math.h>
#include <stdlib.h>

#include "fused.h"

extern const ovk__pc_type ovk__pc_jacobi;

typedef struct alg1_work {
    double *block, *r, *s, *p;
} alg1_work;

/* x += alpha p; r -= alpha s; s = C r with the local <r,s>, <r,r>: one
 * pass with Jacobi on a matrix (DiagScale's division, bitwise the two-pass
 * result), else the update, then the preconditioner */
static int update(ovk__ctx *c, double alpha, alg1_work *w, double *rs, double *rr)
{
    ovk__tic t0 = ovk__tic_start(c);
    if (c->A && c->pc->type == &ovk__pc_jacobi) {
        ovk__alg1_update(c->n, alpha, w->p, c->x, w->s, w->r, c->A->diagonal, rs, rr, &c->hook);
        ovk__tic_stop(c, OVK_TIMER_AXPY, t0);
        return OVK_OK;
    }
    ovk__axpy2(c->n, alpha, w->p, c->x, w->s, w->r, &c->hook); /* x += alpha p; r -= alpha s */
    ovk__tic_stop(c, OVK_TIMER_AXPY, t0);
    return ovk__ctx_pc_dots(c, w->r, w->s, rs, rr); /* s = C r, <r,s>, <r,r> */
}

static int iterate(ovk__ctx *c, alg1_work *w, double gamma, double bb)
{
    int n = c->n, rc = OVK_OK, stop = 0;
    double *s = w->s, *p = w->p, beta = 0.0;
    for (int iter = 1; iter <= c->opts->max_iter; iter++) {
        double sdotp;
        rc = ovk__ctx_matvec_dot(c, p, s, &sdotp); /* s = A p, sdotp = <s,p> in the same pass */
        if (rc) return rc;
        if ((rc = ovk__sum(c, OVK__SDOTP, &sdotp, 1))) return rc;
        if (!isfinite(sdotp) || sdotp <= 0.0) {
            ovk__stop(c, iter, isfinite(sdotp) ? OVK_REASON_BREAKDOWN : OVK_REASON_NONFINITE, "<s,p>", sdotp);
            return OVK_OK;
        }
        double alpha = gamma / sdotp, gamma_old = gamma;
        ovk__lanczos_add(c, alpha, beta);
        double iprod;
        if ((rc = update(c, alpha, w, &gamma, &iprod))) return rc; /* x += alpha p; r -= alpha s; s = C r */
        if ((rc = ovk__sum(c, OVK__GAMMA, &gamma, 1))) return rc;
        if ((rc = ovk__sum(c, OVK__IPROD, &iprod, 1))) return rc;
        if ((rc = ovk__iterate_check(c, iter, iprod, bb, &stop)) || stop) return rc;
        if (!isfinite(gamma) || gamma < 0.0) {
            ovk__stop(c, iter, isfinite(gamma) ? OVK_REASON_BREAKDOWN : OVK_REASON_NONFINITE, "<r,Cr>", gamma);
            return OVK_OK;
        }
        ovk__tic t0 = ovk__tic_start(c);
        beta = gamma / gamma_old;
        ovk__xpay(n, s, beta, p, &c->hook); /* p = s + beta p */
        ovk__tic_stop(c, OVK_TIMER_AXPY, t0);
    }
    c->res->reason = OVK_REASON_MAXIT;
    return OVK_OK;
}

static int alg1_setup(ovk__ctx *c, void **work)
{
    alg1_work *w = calloc(1, sizeof *w);
    *work = w;
    if (!w) return ovk__agree(c->comm, ovk__fail(OVK_ENOMEM, "alg1")); /* meets the others' agree below */
    double **vecs[] = {&w->r, &w->s, &w->p};
    return ovk__ctx_alloc_block(c, 3, vecs, &w->block);
}

static void alg1_destroy(void *work)
{
    alg1_work *w = work;
    free(w->block);
    free(w);
}

static int alg1_solve(ovk__ctx *c, void *work)
{
    alg1_work *w = work;
    int rc, decided = 0;
    double bb = 0.0, gamma = 0.0, rr = 0.0;
    double t_solve = ovk__now();
    rc = ovk__ctx_residual(c, w->r); /* r = b - A x */
    if (!rc) rc = ovk__initial_check(c, w->r, &bb, &decided);
    if (rc || decided) goto done;
    rc = ovk__ctx_pc_dots(c, w->r, w->p, &gamma, &rr); /* p = C r, gamma = <r,p> */
    if (!rc) rc = ovk__sum(c, OVK__GAMMA, &gamma, 1);
    if (!rc) rc = iterate(c, w, gamma, bb);
done:
    c->t[OVK_TIMER_SOLVE] = ovk__now() - t_solve;
    return rc;
}

const ovk__solver ovk__solver_alg1 = {
    .name = "alg1",
    .description = "PCG-Algorithm1: hypre's PCG, three blocking inner products, any preconditioner",
    .options = "",
    .setup = alg1_setup,
    .solve = alg1_solve,
    .destroy = alg1_destroy,
};

/* PCG-Algorithm1 (Fig. 3 of the PCG-Overlap paper): hypre's PCG loop with
 * three blocking inner products per iteration, <s,p>, <r,s> and <r,r>, and
 * any preconditioner (Jacobi as hypre's DiagScale, with <r,s> and <r,r> in
 * the pass that makes s).  Three passes per iteration: s = A p with <s,p>
 * (ovk__matvec_dot), then (Jacobi) x += alpha p, r -= alpha s, s = r ./ a_ii
 * with <r,s>, <r,r>, then p = s + beta p: 88 B per row besides the matvec
 * instead of 112 (docs/solvers.md).  With any other C the test on <r,r>
 * comes before s = C r, so a solve of k iterations applies C k times (as
 * PETSc's KSPCG), not k + 1: the last application, wasted, would cost 1/k
 * of the solve with an expensive C (amg).  With norm=natural the test is on
 * gamma = <r,s> (PETSc's natural norm): s = C r comes first and <r,r> is
 * not summed (two reductions an iteration).  On one rank the iterates are
 * bitwise those of the four-pass loop; on more, <s,p> sums each row's
 * diag-block and offd parts separately (the last bits may differ). */
#include <stddef.h>

#include "fused.h"

typedef struct alg1_work {
    double *r, *s, *p;
} alg1_work;

/* s = C r with <r,s>, and the sums of gamma = <r,s> and Z^T s */
static int precondition(ovk__ctx *c, alg1_work *w, double *gz)
{
    double rr = 0.0;
    int rc = ovk__ctx_pc_dots(c, w->r, w->s, &gz[0], &rr); /* s = C r, <r,s> */
    if (rc) return rc;
    return ovk__sum(c, OVK__GAMMA, gz, ovk__nullspace_append(c, gz, 1, 1, w->s)); /* gamma, Z^T s */
}

/* The check stopped the solve: a convergence of the recursive residual
 * must hold for the true one (one product, one reduction); if it does not,
 * r = b - A x replaces r (counted as a replacement), the direction is
 * kept and the iteration goes on (*stop = 0). */
static int settle(ovk__ctx *c, alg1_work *w, double bb, int *stop)
{
    if (c->res->reason != OVK_REASON_CONVERGED) return OVK_OK;
    int ok = 0, rc = ovk__confirm(c, bb, w->r, &ok); /* r = b - A x */
    if (rc || ok) return rc;
    c->res->replacements++;
    *stop = 0;
    return OVK_OK;
}

/* norm=natural, the check stopped the solve converged: the true residual
 * r = b - A x, s = C r and the sums of <r,s>, Z^T s (one product, one
 * application, one reduction) must meet the tolerance; if they do not,
 * r and s replace the recursive ones (gz their sums: counted as a
 * replacement) and the iteration goes on (*stop = 0). */
static int settle_natural(ovk__ctx *c, alg1_work *w, double bb, double *gz, int *stop)
{
    if (c->res->reason != OVK_REASON_CONVERGED || c->watch.user_converged) return OVK_OK;
    int ok = 0, rc = ovk__ctx_residual(c, w->r); /* r = b - A x */
    if (!rc) rc = precondition(c, w, gz);       /* s = C r, gamma, Z^T s */
    if (!rc && ovk__breakdown(c, c->res->iterations, "<r,Cr>", gz[0], 1)) return OVK_OK;
    if (!rc) rc = ovk__confirm_value(c, bb, gz[0], &ok);
    if (rc || ok) return rc;
    c->res->replacements++;
    *stop = 0;
    return OVK_OK;
}

/* norm=natural: the test on gamma = <r, C r> (KSPCG's natural norm),
 * which the iteration sums anyway: no <r,r>, one reduction fewer */
static int check_natural(ovk__ctx *c, int iter, alg1_work *w, double bb, double *gz, int *stop)
{
    if (ovk__breakdown(c, iter, "<r,Cr>", gz[0], 1)) {
        *stop = 1;
        return OVK_OK;
    }
    int rc = ovk__iterate_check(c, iter, gz[0], bb, stop);
    if (rc || !*stop) return rc;
    return settle_natural(c, w, bb, gz, stop);
}

/* Jacobi: x += alpha p; r -= alpha s; s = r ./ a with <r,s>, <r,r> in one
 * pass (DiagScale's division, bitwise the two-pass result); the sums of
 * gamma, Z^T s and <r,r>; the test */
static int step_jacobi(ovk__ctx *c, int iter, double alpha, const double *a, alg1_work *w, double bb,
                       double *gz, int *stop)
{
    double iprod;
    ovk__tic t0 = ovk__tic_start(c);
    ovk__alg1_update(c->n, alpha, w->p, c->x, w->s, w->r, a, &gz[0], &iprod, &c->hook);
    ovk__tic_stop(c, OVK_TIMER_AXPY, t0);
    int rc = ovk__sum(c, OVK__GAMMA, gz, ovk__nullspace_append(c, gz, 1, 1, w->s)); /* gamma, Z^T s */
    if (rc) return rc;
    if (c->mon.natural) return check_natural(c, iter, w, bb, gz, stop);
    rc = ovk__sum(c, OVK__IPROD, &iprod, 1);
    if (rc) return rc;
    rc = ovk__iterate_check(c, iter, iprod, bb, stop);
    if (rc || !*stop) return rc;
    rc = settle(c, w, bb, stop);
    if (rc || *stop) return rc;
    return precondition(c, w, gz); /* r was replaced: s = C r again */
}

/* any other C: x += alpha p; r -= alpha s; the sum of <r,r>; the test;
 * only then (not stopped) s = C r with <r,s> and the sums of gamma, Z^T s,
 * so C is applied k times in k iterations */
static int step_general(ovk__ctx *c, int iter, double alpha, alg1_work *w, double bb, double *gz, int *stop)
{
    double iprod;
    ovk__tic t0 = ovk__tic_start(c);
    ovk__axpy2(c->n, alpha, w->p, c->x, w->s, w->r, &c->hook); /* x += alpha p; r -= alpha s */
    ovk__tic_stop(c, OVK_TIMER_AXPY, t0);
    if (c->mon.natural) { /* s = C r first: the test is on <r,s> */
        int rc = precondition(c, w, gz);
        return rc ? rc : check_natural(c, iter, w, bb, gz, stop);
    }
    int rc = ovk__ctx_dots(c, 1, (const double *[]){w->r}, (const double *[]){w->r}, &iprod); /* <r,r> */
    if (rc) return rc;
    rc = ovk__iterate_check(c, iter, iprod, bb, stop);
    if (!rc && *stop) rc = settle(c, w, bb, stop);
    if (rc || *stop) return rc;
    return precondition(c, w, gz);
}

static int iterate_from(ovk__ctx *c, alg1_work *w, double gamma, double bb)
{
    int n = c->n, rc = OVK_OK, stop = 0;
    const double *a = ovk__ctx_pc_divisor(c);
    double *s = w->s, *p = w->p, beta = 0.0, gz[1 + OVK__NULLSPACE_MAX]; /* gamma, Z^T s */
    for (int iter = 1; iter <= c->opts->max_iter; iter++) {
        double sdotp;
        rc = ovk__ctx_matvec_dot(c, p, s, &sdotp); /* s = A p, sdotp = <s,p> in the same pass */
        if (rc) return rc;
        rc = ovk__sum(c, OVK__SDOTP, &sdotp, 1);
        if (rc) return rc;
        if (ovk__breakdown(c, iter, "<s,p>", sdotp, 0)) return OVK_OK;
        double alpha = gamma / sdotp, gamma_old = gamma;
        ovk__lanczos_add(c, alpha, beta);
        rc = a ? step_jacobi(c, iter, alpha, a, w, bb, gz, &stop) : step_general(c, iter, alpha, w, bb, gz, &stop);
        if (rc || stop) return rc;
        gamma = gz[0];
        if (ovk__breakdown(c, iter, "<r,Cr>", gamma, 1)) return OVK_OK;
        ovk__nullspace_remove(c, gz + 1, s, 0.0, NULL); /* s -= Z Z^T s */
        ovk__tic t0 = ovk__tic_start(c);
        beta = gamma / gamma_old;
        ovk__xpay(n, s, beta, p, &c->hook); /* p = s + beta p */
        ovk__tic_stop(c, OVK_TIMER_AXPY, t0);
    }
    c->res->reason = OVK_REASON_MAXIT;
    return OVK_OK;
}

/* norm=natural: the initial check on the sums gz = {gamma, Z^T p} of
 * p = C r0 with <b,b> and <b, C b> beside them in the same reduction (x0
 * = 0: r0 = b, so <b, C b> is gamma; else t = C b in s, one application
 * more, as PETSc's KSPCG with a nonzero guess) */
static int initial_natural(ovk__ctx *c, alg1_work *w, double rr, double *gz, double *bb, int *decided)
{
    double v[2] = {rr, 0.0}; /* <b,b>, <b, C b> */
    int k = ovk__nullspace_append(c, gz, 1, 1, w->p), rc = OVK_OK;
    if (!c->guess_zero) rc = ovk__ctx_pc_dots(c, c->b, w->s, &v[1], &v[0]); /* s = C b */
    if (rc) return rc;
    gz[k] = v[0], gz[k + 1] = v[1];
    rc = ovk__sum(c, OVK__GAMMA, gz, k + 2);
    if (rc) return rc;
    if (c->guess_zero) gz[k + 1] = gz[0];
    return ovk__initial_natural(c, (double[]){gz[k], gz[k + 1], gz[0]}, bb, decided);
}

/* p = C r, gamma = <r,p>, then the iterations */
static int iterate(ovk__ctx *c, void *work, double bb)
{
    alg1_work *w = work;
    double gz[3 + OVK__NULLSPACE_MAX] = {0.0}, rr = 0.0; /* gamma, Z^T p (natural: and <b,b>, <b, C b>) */
    int rc = ovk__ctx_pc_dots(c, w->r, w->p, &gz[0], &rr); /* p = C r, gamma = <r,p> */
    if (rc) return rc;
    int decided = 0;
    if (c->mon.natural) rc = initial_natural(c, w, rr, gz, &bb, &decided);
    else rc = ovk__sum(c, OVK__GAMMA, gz, ovk__nullspace_append(c, gz, 1, 1, w->p));
    if (rc || decided) return rc;
    ovk__nullspace_remove(c, gz + 1, w->p, 0.0, NULL); /* p -= Z Z^T p */
    return iterate_from(c, w, gz[0], bb);
}

#define V(f) offsetof(alg1_work, f)
const ovk__solver_ops ovk__solver_alg1 = {
    .caps = OVK__CAP_NULLSPACE | OVK__CAP_NATURAL_NORM | OVK__CAP_CONDEST,
    OVK__WORK_VECTORS(alg1_work, V(r), V(s), V(p)),
    .iterate = iterate,
};

/* The decisions of the single-reduction variants (cg1, pipecg), taken after
 * each reduction from reduced values only, so that every rank decides the
 * same:
 *   - convergence: when the recursive residual meets the tolerance, the true
 *     residual b - A x is computed and must meet it too (else: replacement);
 *   - the step: beta = gamma / gamma_old and alpha = gamma / <p,Ap>, with
 *     <p,Ap> = <u,w> + beta (<u,s_old> + <p_old,w>) + beta^2 <p_old,s_old>,
 *     which is <p,s> of the new p = u + beta p_old, s = w + beta s_old
 *     expanded, from sums of the previous pass (cg1 takes <p_old,w> as
 *     <u,s_old>, as its w = A u).  The usual delta - beta gamma / alpha_old (Chronopoulos-Gear,
 *     Ghysels-Vanroose) assumes <u, r_old> = 0, which rounding destroys on
 *     ill-conditioned matrices (more steps for cg1; pipecg can lose
 *     positivity and stagnate);
 *   - breakdown: <r,Cr> < 0, <p,Ap> <= 0 or a non-finite value restarts the
 *     iteration from the current x (directions reset); if it happens again
 *     before a step is done, the solve stops with OVK_REASON_BREAKDOWN
 *     (NONFINITE);
 *   - residual replacement (opts->replace_every): every k steps, or, in the
 *     automatic mode, when the estimated gap between the recursive and the
 *     true residual crosses sqrt(eps) ||r|| (Cools, Yetkin, Agullo, Giraud,
 *     Vanroose, SIMAX 39(1) 2018, after van der Vorst and Ye) and matters for
 *     the tolerance, again at every DROP of ||r|| while it stays above, or
 *     (pipecg) when ||r|| has not halved in STALL steps.
 *
 * The gap bounds, with a = |alpha_k|, b = |beta_k|, ||A|| = ||A||_inf,
 * mv = the longest row, and the local rounding of each recurrence
 * e_* = eps (norms of its terms):
 *   F_{k+1} = F_k + a G_k + e_f      gap of r:  b - A x - r
 *   G_k     = H_k + b G_{k-1} + e_g  gap of s:  A p - s
 *   H_{k+1} = H_k + a J_k + e_h      gap of w:  A u - w    (pipecg)
 *   J_k     = b J_{k-1} + e_j        gap of z:  A q - z    (pipecg)
 * In cg1, w = A u is computed, so H_k is the rounding of that product.
 * The rounding of a product y = A x is bounded by mv eps ||A||_inf ||x||_2:
 * componentwise |fl(Ax) - Ax| <= mv eps |A||x|, and || |A| ||_2 <= ||A||_inf
 * for a symmetric A.  Cools et al. (and PETSc's KSPPIPECGRR) use
 * mv sqrt(N) instead; on the 27-point Laplacian at 432000 rows that factor
 * of 657 put the bound of a freshly computed b - A x at 2.5e-9 ||b||, near
 * the tolerance, and the criterion replaced 3-6 times per solve for
 * nothing. */
#include <math.h>
#include <float.h>

#include "../../solver.h"

enum { STALL = 100 }; /* steps without halving ||r|| that force a replacement */
#define DROP 1e-3     /* ||r|| drop since the last replacement that renews one (see crossed) */

/* ||A||_inf and the longest row for the gap bounds come from c. */
static void single_reduction_init(ovk__ctx *c, ovk__single_reduction *st, double bb, int pipelined)
{
    *st = (ovk__single_reduction){.bb = bb, .pipelined = pipelined, .restarted = 1, .eps = DBL_EPSILON / 2};
    st->rstop = sqrt(c->watch.rr_stop);
    st->anorm = c->norms.anorm; /* ||A||_inf and the longest row, from the setup */
    st->longest_row = c->norms.longest_row;
}

/* Bounds after a replacement or restart: only the rounding of the products
 * that recomputed r = b - A x, s = A p, w = A u, z = A q. */
static void gap_reset(ovk__single_reduction *st, const double *v)
{
    double e = st->eps, an = st->anorm;
    st->f = e * ((st->longest_row + 1.0) * an * sqrt(v[OVK__V_XX]) + sqrt(st->bb));
    st->g = e * st->longest_row * an * sqrt(v[OVK__V_PP]);
    st->h = e * st->longest_row * an * sqrt(v[OVK__V_UU]);
    st->j = e * st->longest_row * an * sqrt(v[OVK__V_QQ]);
    st->f_old = st->f;
    st->rnorm = st->rnorm_old = sqrt(v[OVK__V_RR]);
    st->r_ref = st->r_fresh = st->rnorm;
    st->stalled = 0;
    st->pp_old = v[OVK__V_PP];
    st->ss_old = v[OVK__V_SS];
    st->qq_old = v[OVK__V_QQ];
    st->zz_old = v[OVK__V_ZZ];
}

/* The criterion of Cools et al.: the bound on the gap of r crosses
 * sqrt(eps) ||r||, and (ours) exceeds the converged residual norm
 * max(tol ||b||, atol).  Below that the gap cannot
 * keep the true residual from meeting the tolerance by more than a factor
 * 2, which the exit test catches anyway, and the bound is a worst case
 * (measured on plat362: 1e3-1e5 times the real gap); without the condition
 * a solve on a large grid paid a replacement at ||r|| = 0.15 ||b||.
 * Also (ours) while the bound stays above sqrt(eps) ||r|| (and the
 * tolerance), once ||r|| has dropped DROP since the last replacement: once
 * ||r|| is below the bound of a fresh b - A x over sqrt(eps), no crossing
 * can happen again, and the gap then grew unchecked down to the floor
 * (pipecg with Jacobi ended 1.3-2.9 orders short of alg1's attainable
 * accuracy on bcsstk09, 1138_bus, bcsstk08, bcsstk14; with the renewal
 * within 0.2, and plat362 took 5308 steps instead of 7467 at 1 rank). */
static int crossed(const ovk__single_reduction *st)
{
    double tau = sqrt(st->eps);
    if (!(st->f > tau * st->rnorm && st->f > st->rstop)) return 0;
    return st->f_old <= tau * st->rnorm_old || st->rnorm < DROP * st->r_fresh;
}

/* No halving of ||r|| in STALL steps: the auxiliary recurrences have drifted
 * enough to delay convergence (pipecg on plat362 stalls near 1e-7 for
 * thousands of steps without it).  pipecg only: cg1 computes w = A u every
 * step, and replacing did not help it but delayed it (plat362 at 1 rank:
 * 4016 steps without, 5000-5500 with). */
static int stalled(ovk__single_reduction *st)
{
    if (st->rnorm < 0.5 * st->r_ref) {
        st->r_ref = st->rnorm;
        st->stalled = 0;
    }
    return ++st->stalled > STALL;
}

/* Bounds after step k (alpha, beta) from the norms of its vectors in v;
 * returns 1 when the automatic mode wants a replacement. */
static int gap_update(ovk__single_reduction *st, const double *v)
{
    double e = st->eps, an = st->anorm, a = fabs(st->alpha), b = fabs(st->beta);
    double nx = sqrt(v[OVK__V_XX]), np = sqrt(v[OVK__V_PP]), ns = sqrt(v[OVK__V_SS]);
    double nu = sqrt(v[OVK__V_UU]), nw = sqrt(v[OVK__V_WW]);
    double e_f = e * (an * nx + 2.0 * an * a * np + st->rnorm + 2.0 * a * ns);
    double e_g = e * (an * nu + 2.0 * b * an * sqrt(st->pp_old) + nw + 2.0 * b * sqrt(st->ss_old));
    if (st->pipelined) {
        double nq = sqrt(v[OVK__V_QQ]), nz = sqrt(v[OVK__V_ZZ]), nm = sqrt(v[OVK__V_MM]);
        double e_j = e * ((st->longest_row + 2.0) * an * nm + 2.0 * b * an * sqrt(st->qq_old) + 2.0 * b * sqrt(st->zz_old));
        double e_h = e * (an * nu + 2.0 * a * an * nq + nw + 2.0 * a * nz);
        st->j = b * st->j + e_j;                  /* J_k */
        st->g = st->h + b * st->g + e_g;          /* G_k */
        st->h = st->h + a * st->j + e_h;          /* H_{k+1} */
    } else {
        st->g = e * st->longest_row * an * nu + b * st->g + e_g; /* G_k, H_k = rounding of w = A u */
    }
    st->f_old = st->f;
    st->f = st->f + a * st->g + e_f;              /* F_{k+1} */
    st->rnorm_old = st->rnorm;
    st->rnorm = sqrt(v[OVK__V_RR]);
    st->pp_old = v[OVK__V_PP];
    st->ss_old = v[OVK__V_SS];
    st->qq_old = v[OVK__V_QQ];
    st->zz_old = v[OVK__V_ZZ];
    return (st->pipelined && stalled(st)) || crossed(st);
}

/* A breakdown or a non-finite value: restart once, report if it persists. */
static void trouble(ovk__ctx *c, ovk__single_reduction *st, int iter, ovk_reason why, const char *what, double value,
                    int fatal, ovk__single_reduction_action *act)
{
    if (st->restarted || fatal) {
        ovk__stop(c, iter, why, what, value);
        *act = OVK__SINGLE_STOP;
        return;
    }
    c->res->restarts++;
    st->restarted = 1; /* the next step starts with beta = 0 */
    *act = OVK__SINGLE_RESTART;
}

static int all_finite(const double *v)
{
    for (int i = 0; i < OVK__V_COUNT; i++)
        if (!isfinite(v[i])) return 0;
    return 1;
}

/* Convergence (confirmed) and the iteration limit; *act = STOP or REPLACE
 * when decided, else left alone. */
static int check_stop(ovk__ctx *c, ovk__single_reduction *st, int iter, const double *v, int fresh, double *r,
                      ovk__single_reduction_action *act)
{
    int stop = 0, ok = 1, rc = OVK_OK;
    if (iter > 0 && (rc = ovk__iterate_check(c, iter, v[OVK__V_RR], st->bb, &stop))) return rc;
    if (stop && c->res->reason != OVK_REASON_CONVERGED) { /* the monitor */
        *act = OVK__SINGLE_STOP;
        return OVK_OK;
    }
    if (stop) {
        if (!fresh) rc = ovk__confirm(c, st->bb, r, &ok); /* after a replacement r is the true residual */
        if (rc || ok) {
            *act = OVK__SINGLE_STOP;
            return rc;
        }
        c->res->replacements++;
        *act = OVK__SINGLE_REPLACE;
        return OVK_OK;
    }
    if (iter >= c->opts->max_iter) {
        c->res->reason = OVK_REASON_MAXIT;
        *act = OVK__SINGLE_STOP;
    }
    return OVK_OK;
}

/* beta, alpha of the next step, or a breakdown */
static void coefficients(ovk__ctx *c, ovk__single_reduction *st, int iter, const double *v,
                         ovk__single_reduction_action *act)
{
    double gamma = v[OVK__V_GAMMA], delta = v[OVK__V_DELTA];
    if (gamma < 0.0) {
        trouble(c, st, iter, OVK_REASON_BREAKDOWN, "<r,Cr>", gamma, 0, act);
        return;
    }
    double beta = st->restarted ? 0.0 : gamma / st->gamma_old;
    double cross = v[OVK__V_US] + v[OVK__V_PW];
    double denom = st->restarted ? delta : delta + beta * cross + beta * beta * v[OVK__V_PS]; /* <p,Ap> */
    if (!(denom > 0.0) || !isfinite(gamma / denom) || !isfinite(beta)) {
        trouble(c, st, iter, isfinite(denom) ? OVK_REASON_BREAKDOWN : OVK_REASON_NONFINITE, "<p,Ap>", denom, 0,
                act);
        return;
    }
    st->beta = beta;
    st->alpha = gamma / denom;
    st->gamma_old = gamma;
    st->restarted = 0;
    st->since_replace++;
    *act = OVK__SINGLE_STEP;
}

/* After the reduction of the values v (OVK__V_* slots) of iteration iter:
 * fresh = 1 when they come from a replacement or restart rather than a
 * step.  Checks convergence (confirmed with the true residual, computed
 * into r), the iteration limit, breakdowns, the replacement schedule, and
 * sets alpha and beta.  Every decision uses reduced values only. */
static int decide(ovk__ctx *c, ovk__single_reduction *st, int iter, const double *v, int fresh, double *r,
                  ovk__single_reduction_action *act)
{
    int every = c->opts->replace_every, due = 0;
    if (fresh) gap_reset(st, v);
    else due = gap_update(st, v);
    *act = OVK__SINGLE_STEP;
    if (!all_finite(v)) {
        int fatal = !isfinite(v[OVK__V_XX]); /* x itself is lost: nothing to restart from */
        trouble(c, st, iter, OVK_REASON_NONFINITE, "a reduced value", v[OVK__V_RR], fatal, act);
        return OVK_OK;
    }
    int rc = check_stop(c, st, iter, v, fresh, r, act);
    if (rc || *act != OVK__SINGLE_STEP) return rc;
    if (fresh) st->since_replace = 0;
    else if ((every > 0 && st->since_replace >= every) || (every == 0 && due)) {
        c->res->replacements++;
        *act = OVK__SINGLE_REPLACE;
        return OVK_OK;
    }
    coefficients(c, st, iter, v, act);
    return OVK_OK;
}

/* decide, refreshing as it asks, until it decides a step or a stop */
static int settle(ovk__ctx *c, ovk__single_reduction *st, int iter, const double *v, int fresh, double *r,
                  ovk__single_reduction_refresh refresh, void *work, ovk__single_reduction_action *act)
{
    for (;;) {
        int rc = decide(c, st, iter, v, fresh, r, act);
        if (rc || *act == OVK__SINGLE_STEP || *act == OVK__SINGLE_STOP) return rc;
        rc = refresh(c, work, *act == OVK__SINGLE_RESTART);
        if (rc) return rc;
        fresh = 1;
    }
}

static int single_reduction_iterate(ovk__ctx *c, const ovk__single_reduction_ops *ops, void *work,
                                    ovk__single_reduction *st, double *r, const double *v)
{
    for (int iter = 0, fresh = 1;; iter++, fresh = 0) {
        ovk__single_reduction_action act;
        int rc = settle(c, st, iter, v, fresh, r, ops->refresh, work, &act);
        if (rc || act == OVK__SINGLE_STOP) return rc;
        ovk__lanczos_add(c, st->alpha, st->beta);
        rc = ops->step(c, work, st, iter + 1 < c->opts->max_iter);
        if (rc) return rc;
    }
}

int ovk__single_reduction_run(ovk__ctx *c, const ovk__single_reduction_ops *ops, void *work, double *r, const double *v,
                              double bb)
{
    ovk__single_reduction st;
    single_reduction_init(c, &st, bb, ops->pipelined);
    int rc = ops->start(c, work);
    if (rc) return rc;
    return single_reduction_iterate(c, ops, work, &st, r, v);
}

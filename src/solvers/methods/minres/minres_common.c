/* The parts the MINRES variants share (minres.h): the rotations of the QR
 * factorization (Paige-Saunders, in the form of SciPy's and Choi's codes:
 * one Givens rotation per column, the two before it applied to it), the
 * decision after each reduction, and the fused pass of a step. */
#include <float.h>
#include <math.h>
#include <string.h>

#include "minres.h"

/* the update of no column: the first pass changes neither x, r nor d */
static void no_update(ovk__minres_qr *qr)
{
    qr->p_eps = qr->p_delta = qr->p_phi = qr->p_pc = 0.0;
    qr->p_gamma = qr->p_s2 = 1.0;
}


void ovk__minres_clear(ovk__ctx *c, ovk__minres_vecs *mv)
{
    double *zero[] = {mv->u_old, mv->v_old, mv->w_old, mv->d_old, mv->d};
    for (int k = 0; k < 5; k++)
        if (zero[k]) memset(zero[k], 0, sizeof(double) * (size_t)c->n);
}

int ovk__minres_restart_head(ovk__ctx *c, ovk__minres_vecs *mv, double *sums, int room)
{
    memset(sums, 0, sizeof(double) * (size_t)room);
    if (c->n > 0) memcpy(mv->u, mv->r, sizeof(double) * (size_t)c->n);
    ovk__minres_clear(c, mv);
    return ovk__ctx_pc_dots(c, mv->u, mv->v, &sums[OVK__MR_BB], &sums[OVK__MR_RR]); /* v^ = C u^ */
}

int ovk__minres_iterate(ovk__ctx *c, void *work, ovk__minres_vecs *mv, ovk__minres_growth *g, double bb,
                        ovk__minres_start_fn start, ovk__minres_step_fn step)
{
    ovk__minres_action act = OVK__MR_RESTART;
    int iter = 0, rc = OVK_OK;
    mv->x = c->x;
    *g = (ovk__minres_growth){.kept_tt = INFINITY};
    if (c->opts->max_iter <= 0) {
        c->res->reason = OVK_REASON_MAXIT;
        return OVK_OK;
    }
    while (!rc && act != OVK__MR_STOP) {
        if (act == OVK__MR_RESTART) rc = start(c, work, iter, &act);
        else rc = step(c, work, ++iter, bb, &act);
    }
    return rc;
}

/* the pass over rows [lo, hi) (see ovk__minres_pass): x, d and r by the
 * pending rotation, u_j = u^_j / beta, v_j and u^_{j+1} = w_j - alpha u_j
 * - beta u_{j-1}, and their sums.  pipe (pminres): also w_j, v^_{j+1} = m_j
 * - alpha v_j - beta v_{j-1} and w^_{j+1} = n_j - alpha w_j - beta w_{j-1},
 * with <u^,v^> and <v^,w^>.  Inlined with pipe a constant: one loop each. */
static inline OVK__ALWAYS_INLINE void pass_rows(int lo, int hi, const ovk__minres_vecs *mv,
                                                const ovk__minres_qr *qr, double *s, int pipe)
{
    double *restrict r = mv->r, *restrict x = mv->x, *restrict uo = mv->u_old, *restrict u = mv->u;
    double *restrict vo = mv->v_old, *restrict v = mv->v, *restrict wo = mv->w_old, *restrict w = mv->w;
    double *restrict dd = mv->d_old;
    const double *restrict m = mv->m, *restrict nv = mv->n, *restrict d = mv->d;
    double ib = 1.0 / qr->beta, a = qr->alpha, b = qr->beta, g = 1.0 / qr->p_gamma;
    double bb = 0.0, ab = 0.0, rr = 0.0, ru = 0.0, uu = 0.0, xx = 0.0;
    for (int i = lo; i < hi; i++) {
        double uj = u[i] * ib, vj = v[i] * ib, wj = w[i] * ib;
        double dn = (vo[i] - qr->p_eps * dd[i] - qr->p_delta * d[i]) * g; /* d_{j-1} */
        x[i] += qr->p_phi * dn;
        xx += x[i] * x[i];
        r[i] = qr->p_s2 * r[i] - qr->p_pc * uj; /* r_{j-1} */
        dd[i] = dn;
        double un = wj - a * uj - b * uo[i]; /* u^_{j+1} */
        if (pipe) {
            double vn = m[i] * ib - a * vj - b * vo[i];  /* v^_{j+1} = C u^_{j+1} */
            double wn = nv[i] * ib - a * wj - b * wo[i]; /* w^_{j+1} = A v^_{j+1} */
            w[i] = wj;
            vo[i] = vn;
            wo[i] = wn;
            bb += un * vn;
            ab += vn * wn;
        }
        u[i] = uj;
        v[i] = vj;
        uo[i] = un;
        rr += r[i] * r[i];
        ru += r[i] * un;
        uu += un * un;
    }
    if (pipe) ovk__sums_add(s, OVK__MR_RR, (const double[]){bb, ab}); /* BB, AB */
    ovk__sums_add(s + OVK__MR_RR, 4, (const double[]){rr, ru, uu, xx}); /* RR, RU, UU, XX */
}

static void swap(double **a, double **b)
{
    double *t = *a;
    *a = *b;
    *b = t;
}

void ovk__minres_pass(ovk__ctx *c, ovk__minres_vecs *mv, ovk__minres_qr *qr, double *sums)
{
    ovk__tic t0 = ovk__tic_start(c);
    int step = ovk__chunk_rows(c->n, &c->hook);
    for (int k = 0; k < OVK__MR_ROOM; k++) sums[k] = 0.0;
    for (int lo = 0; lo < c->n; lo += step) {
        int hi = ovk__chunk_end(lo, step, c->n);
        if (mv->m) pass_rows(lo, hi, mv, qr, sums, 1);
        else pass_rows(lo, hi, mv, qr, sums, 0);
        ovk__poke(&c->hook);
    }
    swap(&mv->u_old, &mv->u);
    swap(&mv->v_old, &mv->v);
    if (mv->w_old) swap(&mv->w_old, &mv->w);
    swap(&mv->d_old, &mv->d);
    ovk__tic_stop(c, OVK_TIMER_AXPY, t0);
}

/* The solve stops at iteration iter on a breakdown whose cause is known. */
static void refuse(ovk__ctx *c, int iter, const char *what, double value, const char *cause)
{
    c->res->iterations = iter;
    c->res->reason = OVK_REASON_BREAKDOWN;
    ovk__fail(OVK_EBREAKDOWN, "iteration %d: %s = %g: %s", iter, what, value, cause);
}

static const char *const NOT_SPD =
    "the preconditioner is not SPD (minres and pminres need a symmetric positive definite one: none, jacobi on a "
    "positive diagonal, or a callback applying an SPD approximation of |A|^-1; with an indefinite one use gmres or "
    "fgmres)";

/* The reduced values of the recurrence are finite and <u^, C u^> > 0;
 * else the solve stops (<x,x> and <t,t> may overflow: x grew). */
static int usable(ovk__ctx *c, int iter, const double *v)
{
    static const char *const what[OVK__MR_XX] = {
        "<u, C u> (the preconditioner's output C u overflowed or is NaN: a singular or badly scaled preconditioner, "
        "or a NaN from its callback?)",
        "<C u, A C u> (A C u overflowed or is NaN: the preconditioner or A scaled far too large, or a NaN from a "
        "callback?)",
        "<r, r> (the residual overflowed or is NaN)", "<r, u> (the residual or the Lanczos vector overflowed)",
        "<u, u> (the Lanczos vector A C u overflowed: the preconditioner or A scaled far too large?)"};
    for (int k = 0; k < OVK__MR_XX; k++)
        if (!isfinite(v[k])) {
            ovk__stop(c, iter, OVK_REASON_NONFINITE, what[k], v[k]);
            return 0;
        }
    if (v[OVK__MR_BB] < 0.0) {
        refuse(c, iter, "<r, C r>", v[OVK__MR_BB], NOT_SPD);
        return 0;
    }
    return 1;
}

void ovk__minres_begin(ovk__ctx *c, ovk__minres_qr *qr, int iter, const double *v, ovk__minres_action *act)
{
    *act = OVK__MR_STOP;
    if (!usable(c, iter, v)) return;
    if (v[OVK__MR_BB] == 0.0 && v[OVK__MR_RR] == 0.0) { /* r = 0 (a restart at a tolerance of 0) */
        c->res->iterations = iter;
        c->res->rel_residual = 0.0;
        c->res->reason = OVK_REASON_CONVERGED;
        return;
    }
    if (v[OVK__MR_BB] == 0.0) {
        refuse(c, iter, "<r, C r>", 0.0, NOT_SPD);
        return;
    }
    double beta = sqrt(v[OVK__MR_BB]);
    *qr = (ovk__minres_qr){.cs = -1.0, .phibar = beta, .beta = beta, .alpha = v[OVK__MR_AB] / v[OVK__MR_BB],
                           .rr = v[OVK__MR_RR]};
    no_update(qr);
    *act = OVK__MR_STEP;
}

/* rotation j on column j of T (alpha_j, beta_{j+1}): the update of x, d, r
 * it defines becomes the pending one; *rr the expanded ||r_j||^2 */
static void rotate(ovk__minres_qr *qr, const double *v, double *rr)
{
    double beta = sqrt(v[OVK__MR_BB]), alpha = qr->alpha;
    double oldeps = qr->eps, delta = qr->cs * qr->dbar + qr->sn * alpha, gbar = qr->sn * qr->dbar - qr->cs * alpha;
    qr->eps = qr->sn * beta;
    qr->dbar = -qr->cs * beta;
    double gamma = hypot(gbar, beta);
    qr->cs = gamma > 0.0 ? gbar / gamma : 1.0;
    qr->sn = gamma > 0.0 ? beta / gamma : 0.0;
    double phi = qr->cs * qr->phibar, s2 = qr->sn * qr->sn, pc = qr->sn * qr->phibar * qr->cs;
    qr->phibar *= qr->sn;
    /* ||r_j||^2 = ||s^2 r_{j-1} - phibar c u^_{j+1} / beta||^2 */
    *rr = s2 * s2 * v[OVK__MR_RR];
    if (beta > 0.0) *rr += -2.0 * s2 * pc * v[OVK__MR_RU] / beta + pc * pc * v[OVK__MR_UU] / v[OVK__MR_BB];
    if (*rr < 0.0) *rr = 0.0; /* cancellation: the confirmation decides */
    *qr = (ovk__minres_qr){.cs = qr->cs, .sn = qr->sn, .dbar = qr->dbar, .eps = qr->eps, .phibar = qr->phibar,
                           .alpha = beta > 0.0 ? v[OVK__MR_AB] / v[OVK__MR_BB] : 0.0, .beta = beta, .pending = 1,
                           .p_eps = oldeps, .p_delta = delta, .p_gamma = gamma, .p_phi = phi, .p_s2 = s2, .p_pc = pc};
}

/* the pending update of x: x += phi_j d_j (the d and r of the pass not kept) */
static void finish(ovk__ctx *c, const ovk__minres_vecs *mv, const ovk__minres_qr *qr)
{
    ovk__tic t0 = ovk__tic_start(c);
    const double *vo = mv->v_old, *dd = mv->d_old, *d = mv->d;
    double g = 1.0 / qr->p_gamma;
    for (int i = 0; i < c->n; i++) mv->x[i] += qr->p_phi * (vo[i] - qr->p_eps * dd[i] - qr->p_delta * d[i]) * g;
    ovk__tic_stop(c, OVK_TIMER_AXPY, t0);
}

#define GREW                                                                                                     \
    "x grew past what the recurrence's residual holds (eps ||A|| ||x|| above it): A singular or nearly so, and b " \
    "outside its range? The x returned is the iterate of the smaller true residual, which is the one reported"
#define DECLARE                                                                                                  \
    "; declare A's null space (ovk_solver_set_nullspace, or the option nullspace=constant): minres and pminres " \
    "project it out of x and solve in A's range"
#define DECLARE_REST "; the declared null space is not all of A's: declare the rest (ovk_solver_set_nullspace)"

/* what x's growth tells: declare the null space, or (declared) the rest of it */
static const char *grew_note(const ovk__ctx *c) { return c->ns ? GREW DECLARE_REST : GREW DECLARE; }

/* Local: the checkpoint whose <t,t> came with v kept when it is the best
 * (x_kept and x_cand swapped) */
static void take_checkpoint(ovk__minres_vecs *mv, ovk__minres_growth *g, const double *v)
{
    if (!g->pending) return;
    g->pending = 0;
    double tt = v[OVK__MR_TT];
    if (!(tt < g->kept_tt)) return; /* not finite, or no better */
    double *t = mv->x_kept;
    mv->x_kept = mv->x_cand;
    mv->x_cand = t;
    g->kept = 1;
    g->kept_tt = tt;
}

/* the rounding of A x alone could exceed ||b||: x = 0 may be better than x */
static int grew_past_b(const ovk__ctx *c, const double *v, double bb)
{
    return c->norms.current && !(DBL_EPSILON * c->norms.anorm * sqrt(v[OVK__MR_XX]) <= sqrt(bb));
}

/* Collective: a solve stopping short of convergence reports the true
 * residual of the x it returns: x's, or the kept checkpoint's when it is
 * smaller (then x = x_kept).  One product and one blocking reduction. */
static int report_true(ovk__ctx *c, ovk__minres_vecs *mv, ovk__minres_growth *g, double bb)
{
    double rr = 0.0;
    int rc = ovk__ctx_residual(c, mv->r); /* r = b - A x */
    if (!rc) rc = ovk__ctx_dots(c, 1, (const double *[]){mv->r}, (const double *[]){mv->r}, &rr);
    if (rc) return rc;
    if (g->kept && !(rr <= g->kept_tt)) { /* reduced: every rank alike */
        if (c->n > 0) memcpy(mv->x, mv->x_kept, sizeof(double) * (size_t)c->n);
        rr = g->kept_tt;
        c->watch.limit_note = grew_note(c);
    }
    c->res->rel_residual = sqrt(rr / bb);
    return OVK_OK;
}

/* stopped (converged, the monitor, divergence) or at the limit: x updated;
 * a convergence confirmed by the true residual, else a restart (none at
 * the limit: the limit stands, with x's true residual) */
static int stop_or_restart(ovk__ctx *c, ovk__minres_vecs *mv, const ovk__minres_qr *qr, ovk__minres_growth *g,
                           int iter, double bb, ovk__minres_action *act)
{
    int ok = 1;
    finish(c, mv, qr);
    *act = OVK__MR_STOP;
    if (c->res->reason == OVK_REASON_CONVERGED) {
        int rc = ovk__confirm(c, bb, mv->r, &ok); /* r = b - A x */
        if (rc || ok) return rc;
        if (iter < c->opts->max_iter) {
            c->res->restarts++;
            *act = OVK__MR_RESTART;
            return OVK_OK;
        }
        c->res->reason = OVK_REASON_MAXIT;
    }
    if (c->res->reason != OVK_REASON_MAXIT) return OVK_OK;
    return report_true(c, mv, g, bb);
}

int ovk__minres_decide(ovk__ctx *c, ovk__minres_vecs *mv, ovk__minres_qr *qr, ovk__minres_growth *g, int iter,
                       const double *reduced, double bb, ovk__minres_action *act)
{
    double rr = 0.0, v[OVK__MR_COUNT];
    int stop = 0;
    *act = OVK__MR_STOP;
    memcpy(v, reduced, sizeof v);
    /* beta^2 at the Krylov space's end: 0 to rounding, which pminres's carried
     * sums can leave negative (-1e-11 on a 60-row Neumann line, 59 steps) */
    if (v[OVK__MR_BB] < 0.0 && -v[OVK__MR_BB] <= 1e-8 * g->bb_max) v[OVK__MR_BB] = v[OVK__MR_AB] = 0.0;
    if (!usable(c, iter, v)) return OVK_OK;
    if (v[OVK__MR_BB] > g->bb_max) g->bb_max = v[OVK__MR_BB];
    take_checkpoint(mv, g, v);
    if (grew_past_b(c, v, bb)) { /* x_{j-1} may be worse than x = 0: stop with the better iterate */
        double grown = DBL_EPSILON * c->norms.anorm * sqrt(v[OVK__MR_XX] / bb);
        c->res->iterations = iter;
        c->res->reason = OVK_REASON_BREAKDOWN;
        int rc = report_true(c, mv, g, bb);
        if (rc) return rc;
        c->watch.limit_note = NULL;
        ovk__fail(OVK_EBREAKDOWN, "iteration %d: eps ||A|| ||x|| = %.3g ||b||; the x returned has ||b - A x||/||b|| = "
                  "%.3g: %s", iter, grown, c->res->rel_residual, grew_note(c));
        return OVK_OK;
    }
    rotate(qr, v, &rr);
    if (!(qr->p_gamma > 0.0)) { /* alpha_j = beta_{j+1} = 0 after a zero rotation: T singular */
        double cu = v[OVK__MR_UU] > 0.0 ? v[OVK__MR_BB] / v[OVK__MR_UU] : 1.0; /* C's Rayleigh quotient on u */
        if (cu < 1e-150) { /* C (nearly) annihilates u: its coefficients underflowed, not A's fault */
            c->res->iterations = iter;
            c->res->reason = OVK_REASON_BREAKDOWN;
            ovk__fail(OVK_EBREAKDOWN, "iteration %d: gamma = 0: the Lanczos matrix is singular with <u, C u> / <u, u> "
                      "= %g: the preconditioner (nearly) annihilates u (scaled toward zero, or singular?)", iter, cu);
        } else {
            refuse(c, iter, "gamma", qr->p_gamma, "the Lanczos matrix is singular (A singular, and b not in its range?)");
        }
        return OVK_OK;
    }
    qr->rr = rr;
    int rc = ovk__iterate_check(c, iter, rr, bb, &stop);
    if (rc) return rc;
    if (stop) return stop_or_restart(c, mv, qr, g, iter, bb, act);
    if (iter >= c->opts->max_iter) {
        c->res->reason = OVK_REASON_MAXIT;
        return stop_or_restart(c, mv, qr, g, iter, bb, act);
    }
    if (qr->beta == 0.0) { /* an invariant subspace short of the tolerance: start again from b - A x */
        finish(c, mv, qr);
        c->res->restarts++;
        *act = OVK__MR_RESTART;
        return ovk__ctx_residual(c, mv->r);
    }
    *act = OVK__MR_STEP;
    return OVK_OK;
}

void ovk__minres_project(ovk__ctx *c, const double *vals, double *v)
{
    ovk__nullspace_remove(c, vals + OVK__MR_COUNT, v, 0.0, NULL); /* v -= Z Z^T v */
}

int ovk__minres_checkpoint(ovk__ctx *c, ovk__minres_vecs *mv, ovk__minres_growth *g, int iter, double *sums)
{
    if (iter % OVK__MR_EVERY || !mv->x_cand) return OVK_OK;
    if (c->n > 0) memcpy(mv->x_cand, mv->x, sizeof(double) * (size_t)c->n);
    int rc = ovk__ctx_matvec(c, mv->x_cand, mv->t);
    if (rc) return rc;
    ovk__tic t0 = ovk__tic_start(c);
    double tt = 0.0;
    for (int i = 0; i < c->n; i++) {
        mv->t[i] = c->b[i] - mv->t[i]; /* t = b - A x */
        tt += mv->t[i] * mv->t[i];
    }
    ovk__tic_stop(c, OVK_TIMER_AXPY, t0);
    sums[OVK__MR_TT] = tt;
    g->pending = 1;
    return OVK_OK;
}

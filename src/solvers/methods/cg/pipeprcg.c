/* Pipelined predict-and-recompute PCG (Chen and Carson, "Predict-and-
 * recompute conjugate gradient variants", SISC 42(5), 2020, pipe-PR-CG;
 * PETSc's KSPPIPEPRCG).  With rt = C r, w = A rt, wt = C w, s = A p,
 * st = C s, u = A st, ut = C u, the one reduction of a step (nu = <rt,r>,
 * mu = <p,s>, delta = <rt,s>, gamma = <st,s>, and <r,r> for the exit test)
 * is started right after the updates and completed after two matvecs and
 * two preconditioner applications, which drive the backend's progress:
 *
 *   alpha = nu / mu
 *   nu' = nu - 2 alpha delta + alpha^2 gamma;  beta = nu' / nu   (predict)
 *   x += alpha p;  r -= alpha s;  rt -= alpha st;  w -= alpha u;
 *   wt -= alpha ut;  p = rt + beta p;  s = w + beta s;
 *   st = wt + beta st                              (one pass, with the sums)
 *   nu, mu, delta, gamma, <r,r>  -> start the reduction
 *   u = A st;  ut = C u;  w = A rt;  wt = C w      (overlap; w, wt recomputed)
 *   wait for the reduction                         (nu recomputed)
 *
 * The predicted nu' only sets beta; the next alpha uses nu = <rt,r>
 * recomputed by the reduction, and w = A rt is recomputed rather than
 * carried, which is what keeps the attainable accuracy near classical CG's
 * (docs/solvers.md) where pipecg's recurrences lose digits.
 *
 * As in cg1/pipecg the exit is confirmed with the true residual (else a
 * residual replacement: every vector recomputed from x and p), and a
 * negative nu or non-positive mu restarts from x once (p = rt). */
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "fused.h"

enum { NU = OVK__PR_NU, MU = OVK__PR_MU, DELTA = OVK__PR_DELTA, GAMMA = OVK__PR_GAMMA, RR = OVK__PR_RR, NSUMS = OVK__PR_COUNT };

typedef struct prcg_work {
    double *r, *rt, *w, *wt, *p, *s, *st, *u, *ut;
    double sums[NSUMS + OVK__NULLSPACE_MAX]; /* then Z^T p */
} prcg_work;

/* the local sums of a step or refresh */
static void sums_of(const prcg_work *w, int n, double *v)
{
    const double *x[] = {w->rt, w->p, w->rt, w->st, w->r};
    const double *y[] = {w->r, w->s, w->s, w->s, w->r};
    ovk__dots(n, NSUMS, x, y, v, NULL);
}

/* m = A v; mt = C m */
static int matvec_pc(ovk__ctx *c, const double *v, double *m, double *mt)
{
    int rc = ovk__ctx_matvec(c, v, m);
    if (rc) return rc;
    return ovk__ctx_pc(c, m, mt);
}

/* r = b - A x (unless r_ready), rt = C r, w = A rt, wt = C w; then p = rt,
 * s = w, st = wt (restart) or s = A p, st = C s (replacement, p kept);
 * u = A st, ut = C u; the sums, reduced at once. */
static int refresh_from(ovk__ctx *c, prcg_work *w, int restart, int r_ready)
{
    size_t bytes = sizeof(double) * (size_t)c->n;
    int rc = r_ready ? OVK_OK : ovk__ctx_residual(c, w->r); /* r = b - A x */
    if (rc) return rc;
    rc = ovk__ctx_pc(c, w->r, w->rt); /* rt = C r */
    if (rc) return rc;
    rc = matvec_pc(c, w->rt, w->w, w->wt); /* w = A rt; wt = C w */
    if (rc) return rc;
    if (restart) {
        memcpy(w->p, w->rt, bytes);
        memcpy(w->s, w->w, bytes);
        memcpy(w->st, w->wt, bytes);
    } else {
        rc = matvec_pc(c, w->p, w->s, w->st); /* s = A p; st = C s */
        if (rc) return rc;
    }
    rc = matvec_pc(c, w->st, w->u, w->ut); /* u = A st; ut = C u */
    if (rc) return rc;
    ovk__tic t0 = ovk__tic_start(c);
    sums_of(w, c->n, w->sums);
    ovk__tic_stop(c, OVK_TIMER_AXPY, t0);
    rc = ovk__sum(c, OVK__IPROD, w->sums, ovk__nullspace_append(c, w->sums, NSUMS, NSUMS, w->p));
    if (!rc) ovk__nullspace_remove(c, w->sums + NSUMS, w->p, 0.0, NULL); /* p -= Z Z^T p */
    return rc;
}


/* the work behind a step's reduction: u = A st; ut = C u; w = A rt;
 * wt = C w (recomputed) */
static int behind(ovk__ctx *c, prcg_work *w)
{
    int rc = matvec_pc(c, w->st, w->u, w->ut);
    if (rc) return rc;
    return matvec_pc(c, w->rt, w->w, w->wt);
}

/* One step: the pass, then the reduction in flight while u = A st,
 * ut = C u, w = A rt, wt = C w run. */
static int step(ovk__ctx *c, prcg_work *w, double alpha, double beta)
{
    ovk_request *req = NULL;
    ovk__tic t0 = ovk__tic_start(c);
    ovk__prcg_vecs vv = {c->x, w->r, w->rt, w->w, w->wt, w->p, w->s, w->st, w->u, w->ut};
    ovk__prcg_update(c->n, alpha, beta, &vv, w->sums, &c->hook);
    ovk__tic_stop(c, OVK_TIMER_AXPY, t0);
    int rc = ovk__sum_begin(c, OVK__IPROD, w->sums, ovk__nullspace_append(c, w->sums, NSUMS, NSUMS, w->p), &req);
    if (rc) return rc;
    rc = behind(c, w);
    rc = ovk__sum_finish(c, OVK__IPROD, req, rc);
    /* p -= Z Z^T p: the null-space part rt = C r brought into the new p
     * (x takes p at the next step; s = A p and the sums are unchanged: A Z = 0) */
    if (!rc) ovk__nullspace_remove(c, w->sums + NSUMS, w->p, 0.0, NULL);
    return rc;
}

typedef enum { GO, STOP, REFRESH } verdict;

/* After the reduction of iteration iter: the exit test (confirmed with the
 * true residual unless the vectors are fresh), the iteration limit, and the
 * positivity of nu and mu.  *restart is set for REFRESH. */
static int decide(ovk__ctx *c, prcg_work *w, int iter, int fresh, int restarted, double bb, verdict *vd,
                  int *restart)
{
    const double *v = w->sums;
    int stop = 0, ok = 1, rc = OVK_OK;
    *vd = GO;
    *restart = 0;
    if (iter > 0) {
        rc = ovk__iterate_check(c, iter, v[RR], bb, &stop);
        if (rc) return rc;
    }
    if (stop && c->res->reason == OVK_REASON_CONVERGED && !fresh) {
        rc = ovk__confirm(c, bb, w->r, &ok);
        if (rc) return rc;
    }
    if (stop && ok) {
        *vd = STOP;
        return rc;
    }
    if (stop) { /* the true residual misses the tolerance: replace */
        c->res->replacements++;
        *vd = REFRESH;
        return OVK_OK;
    }
    if (iter >= c->opts->max_iter) {
        c->res->reason = OVK_REASON_MAXIT;
        *vd = STOP;
        return OVK_OK;
    }
    int finite = isfinite(v[NU]) && isfinite(v[MU]) && isfinite(v[DELTA]) && isfinite(v[GAMMA]);
    if (finite && v[NU] >= 0.0 && v[MU] > 0.0) return OVK_OK;
    if (restarted) { /* fresh vectors from a restart and still no SPD step */
        ovk__stop(c, iter, finite ? OVK_REASON_BREAKDOWN : OVK_REASON_NONFINITE, v[NU] < 0.0 ? "<r,Cr>" : "<p,Ap>",
                  v[NU] < 0.0 ? v[NU] : v[MU]);
        *vd = STOP;
        return OVK_OK;
    }
    c->res->restarts++;
    *restart = 1;
    *vd = REFRESH;
    return OVK_OK;
}

/* From fresh vectors at iteration iter0 (0, or plcg's count when it falls
 * back here) until a stop. */
static int iterate_from(ovk__ctx *c, prcg_work *w, double bb, int iter0)
{
    int fresh = 1, restarted = 1;
    double beta = 0.0;
    for (int iter = iter0;;) {
        verdict vd;
        int restart, rc = decide(c, w, iter, fresh, restarted, bb, &vd, &restart);
        if (rc || vd == STOP) return rc;
        if (vd == REFRESH) {
            rc = refresh_from(c, w, restart, 0);
            if (rc) return rc;
            fresh = 1;
            restarted = restart;
            if (restart) beta = 0.0;
            continue;
        }
        const double *v = w->sums;
        double alpha = v[NU] / v[MU];
        double nu_next = v[NU] - 2.0 * alpha * v[DELTA] + alpha * alpha * v[GAMMA]; /* predicted <rt,r> */
        ovk__lanczos_add(c, alpha, beta);
        beta = nu_next / v[NU];
        rc = step(c, w, alpha, beta);
        if (rc) return rc;
        iter++;
        fresh = restarted = 0;
    }
}

static int iterate(ovk__ctx *c, void *work, double bb)
{
    int rc = refresh_from(c, work, 1, 1); /* r is there: rt = C r, p = rt, ... */
    if (rc) return rc;
    return iterate_from(c, work, bb, 0);
}

/* another variant's solve from the current x (plcg's fallback) */
static int resume(ovk__ctx *c, void *work, double bb, int iter0)
{
    int rc = refresh_from(c, work, 1, 0); /* r = b - A x, p = C r */
    if (rc) return rc;
    return iterate_from(c, work, bb, iter0);
}

#define V(f) offsetof(prcg_work, f)
const ovk__solver_ops ovk__solver_pipeprcg = {
    .caps = OVK__CAP_NULLSPACE | OVK__CAP_CONDEST,
    OVK__WORK_VECTORS(prcg_work, V(r), V(rt), V(w), V(wt), V(p), V(s), V(st), V(u), V(ut)),
    .iterate = iterate, .resume = resume,
};

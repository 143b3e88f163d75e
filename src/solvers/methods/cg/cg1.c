/* Single-reduction PCG (Chronopoulos and Gear, J. Comput. Appl. Math. 25,
 * 1989).  s = A p is carried by the recurrence s = w + beta s with w = A u,
 * u = C r, so the inner products of a step, <r,u>, <w,u> and <r,r>, are
 * known together and summed in one blocking reduction:
 *
 *   beta  = gamma / gamma_old;  alpha = gamma / <p,Ap>   (single_reduction.c)
 *   p = u + beta p;  s = w + beta s;  x += alpha p;  r -= alpha s;  u = C r
 *   w = A u;  gamma = <r,u>, delta = <w,u>, <r,r>  -> one reduction
 *
 * With a diagonal C the first line is one fused pass (cg1_fused.c), which
 * also computes the local <r,u>, <r,r> and the norms the residual-gap
 * estimate needs.  With any other C the updates are one pass, u = C r and
 * w = A u follow, and the sums take one more pass.  The decisions
 * (convergence, replacement, breakdown) are in single_reduction.c. */
#include <stddef.h>
#include <string.h>

#include "fused.h"

typedef struct cg1_work {
    double *r, *u, *w, *p, *s;
    double sums[OVK__V_COUNT + OVK__NULLSPACE_MAX]; /* reduced values, OVK__V_* slots; then Z^T p */
} cg1_work;

/* the sums of the refreshed vectors, in OVK__V_* order up to WW */
static int reduce_all(ovk__ctx *c, cg1_work *w)
{
    const double *x[] = {w->r, w->w, w->r, w->u, w->p, w->p, c->x, w->p, w->s, w->u, w->w};
    const double *y[] = {w->u, w->u, w->r, w->s, w->w, w->s, c->x, w->p, w->s, w->u, w->w};
    return ovk__ctx_dots(c, OVK__V_WW + 1, x, y, w->sums);
}

/* r = b - A x (unless r_ready), u = C r, w = A u, s = A p (p = s = 0 on a
 * restart), and their sums */
static int refresh_from(ovk__ctx *c, cg1_work *w, int restart, int r_ready)
{
    int rc = ovk__restart_vectors(c, r_ready, w->r, w->u, w->w);
    if (rc) return rc;
    if (restart) {
        memset(w->p, 0, sizeof(double) * (size_t)c->n);
        memset(w->s, 0, sizeof(double) * (size_t)c->n);
    } else {
        rc = ovk__ctx_matvec(c, w->p, w->s); /* s = A p */
        if (rc) return rc;
    }
    return reduce_all(c, w);
}

static int refresh(ovk__ctx *c, void *work, int restart) { return refresh_from(c, work, restart, 0); }

/* p = u + b p; s = w + b s; x += a p; r -= a s (any C: u is formed after) */
static void update(int n, double a, double b, const double *restrict u, const double *restrict w,
                   double *restrict p, double *restrict s, double *restrict x, double *restrict r)
{
    for (int i = 0; i < n; i++) {
        p[i] = u[i] + b * p[i];
        s[i] = w[i] + b * s[i];
        x[i] += a * p[i];
        r[i] -= a * s[i];
    }
}

/* The reduction of a step's sums, with a null space Z^T p too, and then
 * p -= Z Z^T p, x -= alpha Z Z^T p (the p of the step: u and the
 * directions carried over, whose null-space part it removes) */
static int sum_project(ovk__ctx *c, cg1_work *w, double alpha)
{
    int k = ovk__nullspace_append(c, w->sums, OVK__V_WW + 1, OVK__V_COUNT, w->p);
    int rc = ovk__sum(c, OVK__IPROD, w->sums, k);
    if (!rc) ovk__nullspace_remove(c, w->sums + OVK__V_COUNT, w->p, alpha, c->x);
    return rc;
}

/* One step with any C: the updates, u = C r, w = A u, all sums, one reduction. */
static int step_any(ovk__ctx *c, cg1_work *w, const ovk__single_reduction *st)
{
    ovk__tic t0 = ovk__tic_start(c);
    update(c->n, st->alpha, st->beta, w->u, w->w, w->p, w->s, c->x, w->r);
    ovk__tic_stop(c, OVK_TIMER_AXPY, t0);
    int rc = ovk__ctx_pc(c, w->r, w->u); /* u = C r */
    if (rc) return rc;
    rc = ovk__ctx_matvec(c, w->u, w->w); /* w = A u */
    if (rc) return rc;
    ovk__tic t1 = ovk__tic_start(c);
    const double *x[] = {w->r, w->w, w->r, w->u, w->p, w->p, c->x, w->p, w->s, w->u, w->w};
    const double *y[] = {w->u, w->u, w->r, w->s, w->w, w->s, c->x, w->p, w->s, w->u, w->w};
    ovk__dots(c->n, OVK__V_WW + 1, x, y, w->sums, &c->hook);
    ovk__tic_stop(c, OVK_TIMER_AXPY, t1);
    return sum_project(c, w, st->alpha);
}

/* One step: the fused updates, w = A u, <w,u>, and the one reduction
 * (which ends the step: `more` changes nothing). */
static int step(ovk__ctx *c, void *work, const ovk__single_reduction *st, int more)
{
    cg1_work *w = work;
    const double *d = ovk__ctx_pc_diagonal(c);
    (void)more;
    if (!d) return step_any(c, w, st);
    ovk__tic t0 = ovk__tic_start(c);
    /* p = u + beta p; s = w + beta s; x += alpha p; r -= alpha s; u = C r */
    ovk__cg1_update(c->n, st->alpha, st->beta, d, w->w, w->u, w->p, w->s, c->x, w->r, w->sums, &c->hook);
    ovk__tic_stop(c, OVK_TIMER_AXPY, t0);
    /* <w,u> stays a pass of its own (ovk__dots, 4 lanes): the matvec's
     * pass would sum it in another order, which changes the iteration
     * counts on ill-conditioned matrices */
    int rc = ovk__ctx_matvec(c, w->u, w->w); /* w = A u */
    if (rc) return rc;
    t0 = ovk__tic_start(c);
    ovk__dots(c->n, 1, (const double *[]){w->w}, (const double *[]){w->u}, &w->sums[OVK__V_DELTA], &c->hook);
    ovk__tic_stop(c, OVK_TIMER_AXPY, t0);
    w->sums[OVK__V_PW] = w->sums[OVK__V_US]; /* <p,w> = <p,Au> = <Ap,u> ~ <s,u>: w = A u here */
    return sum_project(c, w, st->alpha); /* gamma, delta, <r,r>, norms */
}

static int start(ovk__ctx *c, void *work) { return refresh_from(c, work, 1, 1); }

static int iterate(ovk__ctx *c, void *work, double bb)
{
    static const ovk__single_reduction_ops ops = {.pipelined = 0, .refresh = refresh, .start = start, .step = step};
    cg1_work *w = work;
    return ovk__single_reduction_run(c, &ops, w, w->r, w->sums, bb);
}

#define V(f) offsetof(cg1_work, f)
const ovk__solver_ops ovk__solver_cg1 = {
    .needs_norm = 1, .caps = OVK__CAP_NULLSPACE | OVK__CAP_CONDEST,
    OVK__WORK_VECTORS(cg1_work, V(r), V(u), V(w), V(p), V(s)),
    .iterate = iterate,
};

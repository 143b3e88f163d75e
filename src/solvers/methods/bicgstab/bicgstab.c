/* BiCGStab (van der Vorst, SISC 13, 1992; PETSc's KSPBCGS, hypre's
 * BiCGSTAB), right-preconditioned: the iterates solve A C y = b with
 * x = C y, so the residual it monitors is b - A x itself.  Three blocking
 * reductions per iteration, as the method has:
 *
 *   beta = (rho / rho_old) (alpha / omega)
 *   p = r + beta (p - omega v);  z = C p;  v = A z
 *   alpha = rho / <rhat,v>                                  (reduction 1)
 *   s = r - alpha v  (in r)
 *   zs = C s;  t = A zs
 *   omega = <t,s> / <t,t>                                   (reduction 2)
 *   x += alpha z + omega zs;  r = s - omega t;
 *   rho = <rhat,r>, <r,r>                                   (reduction 3)
 *
 * The last line is one pass over the vectors (keeping zs apart from z
 * costs a vector and saves two sweeps over x and one over r); a diagonal
 * C (Jacobi) is applied in the passes that make p and s.
 * Breakdowns (rho or <rhat,v> negligible, omega = 0) restart from the
 * current x with rhat = r (bcgs_common.c); a second one at once stops
 * the solve.
 *
 * With a preconditioner that has the split form M = Lt Ut (precond.h:
 * eisenstat) and an assembled A outside a batch, without
 * -ovk_monitor_true or a convergence test of the application's, the same
 * loop runs on A^ x^ = b^ (A^ = Lt^-1 A Ut^-1, b^ = sigma Lt^-1 r0, sigma
 * the preconditioner's power of two): p and s are multiplied by the fused
 * A^ (no separate C), x^ accumulates in z and x = x0 + Ut^-1 x^ / sigma
 * (a scaled solve, scaling.c: times 2^-kc, as 2^-kc C; A^ does not scale).
 * Its r is r^ = sigma Lt^-1 r; the history, the monitor and the tolerance
 * see the estimate q ||r^|| of ||r|| (q = ||r|| / ||r^||, from r0, then
 * from each true residual).  When the estimate meets the tolerance (or at
 * any stop, or on an error) x is formed; on the tolerance b - A x is
 * computed: convergence only when it meets the tolerance, else q is
 * renewed, r^ = sigma Lt^-1 (b - A x) replaces the recursive one (one more
 * reduction, for <r^,r^>) and the loop restarts from it.  Should <r^,r^>
 * not be a positive finite number while r != 0, the loop leaves the split
 * form and goes on as the plain one from the current x and r. */
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "bcgs.h"

typedef struct bicg_work {
    double *r, *rhat, *p, *v, *z, *zs, *t;
    ovk__bcgs_restarts rs;
    double rho, rho_old, alpha, omega, rr; /* rr = <r,r>, and <rhat,rhat> = rr at the restart */
    double hh;
    int split;   /* iterating on A^ (the preconditioner's split form) */
    double q2;   /* split: (||r|| / ||r^||)^2 as last measured */
} bicg_work;

/* rhat = r, the directions reset */
static void restart(ovk__ctx *c, bicg_work *w)
{
    size_t bytes = sizeof(double) * (size_t)c->n;
    if (c->n > 0) {
        memcpy(w->rhat, w->r, bytes);
        memset(w->p, 0, bytes);
        memset(w->v, 0, bytes);
    }
    w->rho = w->hh = w->rr;
    w->rho_old = w->alpha = w->omega = 1.0;
}

/* p = r + beta (p - omega v), and with a diagonal C (d) z = C p in the
 * same pass */
static void directions(ovk__ctx *c, bicg_work *w, double beta, const double *d)
{
    double *restrict p = w->p, *restrict z = w->z, om = w->omega;
    const double *restrict r = w->r, *restrict v = w->v;
    ovk__tic t0 = ovk__tic_start(c);
    if (d) {
#pragma omp simd
        for (int i = 0; i < c->n; i++) {
            p[i] = r[i] + beta * (p[i] - om * v[i]);
            z[i] = d[i] * p[i];
        }
    } else {
#pragma omp simd
        for (int i = 0; i < c->n; i++) p[i] = r[i] + beta * (p[i] - om * v[i]);
    }
    ovk__tic_stop(c, OVK_TIMER_AXPY, t0);
}

/* s = r - alpha v (in r), and with a diagonal C (d) zs = C s in the same
 * pass */
static void half_residual(ovk__ctx *c, bicg_work *w, const double *d)
{
    double *restrict r = w->r, *restrict zs = w->zs, a = w->alpha;
    const double *restrict v = w->v;
    ovk__tic t0 = ovk__tic_start(c);
    if (d) {
#pragma omp simd
        for (int i = 0; i < c->n; i++) {
            r[i] -= a * v[i];
            zs[i] = d[i] * r[i];
        }
    } else {
        ovk__axpy(c->n, -a, v, r, &c->hook);
    }
    ovk__tic_stop(c, OVK_TIMER_AXPY, t0);
}

/* v = A^ p (the split form's fused product), timed as matvec */
static int split_product(ovk__ctx *c, const double *p, double *v)
{
    ovk__tic t0 = ovk__tic_start(c);
    int rc = c->pc->type->split_op(c->pc->state, p, v, &c->hook);
    ovk__tic_stop(c, OVK_TIMER_MATVEC, t0);
    return rc;
}

/* p = r + beta (p - omega v);  z = C p;  v = A z;  alpha = rho / <rhat,v>;
 * s = r - alpha v (with d, C's diagonal: zs = C s too).  *rv = <rhat,v>;
 * *broke: it is negligible (nothing updated). */
static int first_half(ovk__ctx *c, bicg_work *w, const double *d, double *rv, int *broke)
{
    double beta = (w->rho / w->rho_old) * (w->alpha / w->omega), g[2];
    directions(c, w, beta, d);
    int rc;
    if (w->split) {
        rc = split_product(c, w->p, w->v); /* v = A^ p */
    } else {
        rc = d ? OVK_OK : ovk__ctx_pc(c, w->p, w->z); /* z = C p */
        if (!rc) rc = ovk__ctx_matvec(c, w->z, w->v); /* v = A z */
    }
    if (!rc) rc = ovk__ctx_dots(c, 2, (const double *[]){w->rhat, w->v}, (const double *[]){w->v, w->v}, g);
    if (rc) return rc;
    *rv = g[0];
    *broke = ovk__bcgs_tiny(g[0], w->hh, g[1]);
    if (*broke) return OVK_OK;
    w->alpha = w->rho / g[0];
    half_residual(c, w, d);
    return OVK_OK;
}

/* rows per block of update's sums: fixed, so that the sums' bits do not
 * depend on how often the backend's hook asks to be called */
enum { SUM_ROWS = 2048 };

/* x += alpha z + omega zs;  r = s - omega t;  h = <rhat,r>, <r,r> (local),
 * one pass, the sums in SIMD lanes per block of SUM_ROWS rows */
static void update(ovk__ctx *c, bicg_work *w, double h[2])
{
    const double *restrict z = w->z, *restrict zs = w->zs, *restrict t = w->t, *restrict rhat = w->rhat;
    double *restrict x = c->x, *restrict r = w->r, a = w->alpha, o = w->omega;
    const double *restrict p = w->p;
    int n = c->n, every = ovk__chunk_rows(n, &c->hook), split = w->split;
    double hr = 0.0, rr = 0.0;
    for (int lo = 0, since = 0; lo < n; lo += SUM_ROWS) {
        int hi = ovk__chunk_end(lo, SUM_ROWS, n);
        double bh = 0.0, br = 0.0;
        if (split) { /* x^ += alpha p + omega s (s in r; x^ in z, read here only as xh) */
            double *restrict xh = w->z;
#pragma omp simd reduction(+ : bh, br)
            for (int i = lo; i < hi; i++) {
                double si = r[i], ri = si - o * t[i];
                xh[i] += a * p[i] + o * si;
                r[i] = ri;
                bh += rhat[i] * ri;
                br += ri * ri;
            }
        } else {
#pragma omp simd reduction(+ : bh, br)
            for (int i = lo; i < hi; i++) {
                x[i] += a * z[i] + o * zs[i];
                double ri = r[i] - o * t[i];
                r[i] = ri;
                bh += rhat[i] * ri;
                br += ri * ri;
            }
        }
        hr += bh;
        rr += br;
        since += hi - lo;
        if (since >= every || hi == n) {
            ovk__poke(&c->hook);
            since = 0;
        }
    }
    h[0] = hr;
    h[1] = rr;
}

/* zs = C s (unless first_half made it: d);  t = A zs;  omega = <t,s> /
 * <t,t>;  x += alpha z + omega zs;  r = s - omega t; then rho = <rhat,r>
 * and rr = <r,r>.  *broke: omega = 0 (r = s).  Sums of omega that are
 * not finite stop the solve at iteration iter (reason set) before x moves. */
static int second_half(ovk__ctx *c, bicg_work *w, int iter, const double *d, int *broke)
{
    double g[2], h[2];
    int rc;
    if (w->split) {
        rc = split_product(c, w->r, w->t); /* t = A^ s */
    } else {
        rc = d ? OVK_OK : ovk__ctx_pc(c, w->r, w->zs); /* zs = C s */
        if (!rc) rc = ovk__ctx_matvec(c, w->zs, w->t); /* t = A zs */
    }
    if (rc) return rc;
    ovk__tic t0 = ovk__tic_start(c);
    ovk__dots(c->n, 2, (const double *[]){w->t, w->t}, (const double *[]){w->r, w->t}, g, &c->hook);
    ovk__tic_stop(c, OVK_TIMER_AXPY, t0);
    rc = ovk__sum(c, OVK__GAMMA, g, 2);
    if (rc || ovk__bcgs_nonfinite(c, iter, g, 2, "<t,s> or <t,t>")) return rc; /* x not updated from them */
    *broke = g[1] == 0.0 || g[0] == 0.0;
    w->omega = *broke ? 0.0 : g[0] / g[1];
    t0 = ovk__tic_start(c);
    update(c, w, h);
    ovk__tic_stop(c, OVK_TIMER_AXPY, t0);
    rc = ovk__sum(c, OVK__IPROD, h, 2);
    w->rho_old = w->rho;
    w->rho = h[0];
    w->rr = h[1];
    return rc;
}

/* after a breakdown of iteration iter (what = value): restart, or stop
 * (returns 1) */
static int recover(ovk__ctx *c, bicg_work *w, int iter, const char *what, double value)
{
    if (ovk__bcgs_breakdown(c, &w->rs, iter, what, value)) return 1;
    restart(c, w);
    return 0;
}

/* 1 when the loop may run on the split form (see the top of the file) */
static int split_usable(const ovk__ctx *c)
{
    const ovk__pc_type *t = c->pc ? c->pc->type : NULL;
    /* split_flush undoes the scaling by 2^-kc, right only where C scales
     * with A (kc = ka) */
    return t && t->split_op && t->split_in && t->split_out && c->A && !c->ops->combined &&
           !c->mon.print_true && !c->mon.conv_fn && c->scale.ka == c->scale.kc;
}

/* split: x += 2^-kc Ut^-1 x^ / sigma (through tmp), x^ = 0 */
static int split_flush(ovk__ctx *c, bicg_work *w, double *tmp)
{
    ovk__tic t0 = ovk__tic_start(c);
    int rc = c->pc->type->split_out(c->pc->state, w->z, tmp, -c->scale.kc, &c->hook);
    ovk__tic_stop(c, OVK_TIMER_PRECOND, t0);
    if (rc) return rc;
    ovk__ctx_axpy(c, 1.0, tmp, c->x);
    if (c->n > 0) memset(w->z, 0, sizeof(double) * (size_t)c->n);
    return OVK_OK;
}

/* split: r^ = sigma Lt^-1 r (made in t, then in r), w->rr = <r^,r^> and,
 * from rr = <r,r> (< 0: summed here too), q2 = <r,r> / <r^,r^>.  When r
 * != 0 and <r^,r^> is not a positive finite number (or q2 not finite) the
 * split form is left: r kept, w->rr = <r,r>, w->split = 0 (reduced
 * values: every rank decides the same). */
static int split_residual(ovk__ctx *c, bicg_work *w, double rr)
{
    double g[2] = {rr < 0.0 ? ovk__dot(c->n, w->r, w->r) : 0.0, 0.0};
    ovk__tic t0 = ovk__tic_start(c);
    int rc = c->pc->type->split_in(c->pc->state, w->r, w->t, &c->hook);
    ovk__tic_stop(c, OVK_TIMER_PRECOND, t0);
    if (rc) return rc;
    g[1] = ovk__dot(c->n, w->t, w->t);
    rc = ovk__sum(c, OVK__IPROD, g, 2);
    if (rc) return rc;
    if (rr >= 0.0) g[0] = rr;
    double q2 = g[0] == 0.0 && g[1] == 0.0 ? 1.0 : g[0] / g[1]; /* r = 0: any q */
    if (!(isfinite(g[1]) && isfinite(q2))) { /* <r^,r^> overflowed or underflowed to 0 */
        w->split = 0;
        w->rr = g[0];
        return OVK_OK;
    }
    if (c->n > 0) memcpy(w->r, w->t, sizeof(double) * (size_t)c->n);
    w->rr = g[1];
    w->q2 = q2;
    return OVK_OK;
}

/* split: the decision of iteration iter on the estimate q2 <r^,r^>, the
 * true residual b - A x (in zs, x formed first) deciding convergence, as
 * ovk__bcgs_check does for the unsplit loop; *replaced: r^ renewed from it */
static int split_check(ovk__ctx *c, bicg_work *w, int iter, double bb, int *stop, int *replaced)
{
    int ok = 1, last = iter >= c->opts->max_iter;
    *replaced = 0;
    int rc = ovk__iterate_check(c, iter, w->q2 * w->rr, bb, stop);
    if (rc) return rc;
    if (!*stop && !last) return OVK_OK;
    rc = split_flush(c, w, w->zs);
    if (rc) return rc;
    if (*stop && c->res->reason != OVK_REASON_CONVERGED) return OVK_OK; /* monitor, divergence, non-finite */
    rc = ovk__confirm(c, bb, w->zs, &ok); /* zs = b - A x */
    if (rc) return rc;
    if (ok) { /* converged or stagnated, as confirmed */
        *stop = 1;
        return OVK_OK;
    }
    if (last) { /* rel_residual is the true residual's */
        *stop = 1;
        c->res->reason = OVK_REASON_MAXIT;
        return OVK_OK;
    }
    *stop = 0;
    *replaced = 1;
    c->res->replacements++;
    memcpy(w->r, w->zs, sizeof(double) * (size_t)c->n);
    return split_residual(c, w, c->res->rel_residual * c->res->rel_residual * bb);
}

/* an error rc in the split loop: x formed from x^ first (local: split_out
 * and an axpy), so that x is the current iterate; returns rc */
static int split_fail(ovk__ctx *c, bicg_work *w, int rc)
{
    if (w->split) (void)split_flush(c, w, w->zs);
    return rc;
}

/* an early stop of the split loop (a breakdown): x formed, rel_residual
 * that of b - A x (the reason kept) */
static int split_end(ovk__ctx *c, bicg_work *w, double bb)
{
    if (!w->split) return OVK_OK;
    int ok = 0, rc = split_flush(c, w, w->zs);
    ovk_reason why = c->res->reason;
    if (!rc) rc = ovk__confirm(c, bb, w->zs, &ok);
    c->res->reason = why;
    return rc;
}

static int iterate(ovk__ctx *c, void *work, double bb)
{
    bicg_work *w = work;
    int rc;
    w->split = split_usable(c);
    if (w->split) { /* r^ = Lt^-1 r0, x^ = 0 */
        if (c->n > 0) memset(w->z, 0, sizeof(double) * (size_t)c->n);
        rc = split_residual(c, w, -1.0);
    } else {
        rc = ovk__ctx_dots(c, 1, (const double *[]){w->r}, (const double *[]){w->r}, &w->rr);
    }
    if (rc) return rc;
    const double *d = w->split ? NULL : ovk__ctx_pc_diagonal(c); /* a diagonal C: applied in the vector updates' passes */
    w->rs.last = -1;
    restart(c, w);
    for (int iter = 1; iter <= c->opts->max_iter; iter++) {
        int broke = 0, stop = 0, replaced = 0;
        double rv = 0.0;
        rc = first_half(c, w, d, &rv, &broke);
        if (rc) return split_fail(c, w, rc);
        if (broke) {
            if (recover(c, w, iter, "<rhat,v>", rv)) return split_end(c, w, bb);
            continue;
        }
        rc = second_half(c, w, iter, d, &broke);
        if (rc) return split_fail(c, w, rc);
        if (c->res->reason == OVK_REASON_NONFINITE) return split_end(c, w, bb);
        if (w->split) rc = split_check(c, w, iter, bb, &stop, &replaced);
        else rc = ovk__bcgs_check(c, iter, w->rr, bb, w->r, &stop, &replaced);
        if (rc) return split_fail(c, w, rc);
        if (stop) return OVK_OK;
        if (replaced) { /* r = b - A x (split: r^ of it): its norm from the check */
            if (!w->split) w->rr = c->res->rel_residual * c->res->rel_residual * bb;
            restart(c, w);
        } else if (broke) {
            if (recover(c, w, iter, "omega", w->omega)) return split_end(c, w, bb);
        } else if (ovk__bcgs_tiny(w->rho, w->hh, w->rr)) {
            if (recover(c, w, iter, "rho", w->rho)) return split_end(c, w, bb);
        }
    }
    rc = w->split ? split_flush(c, w, w->zs) : OVK_OK;
    return rc ? rc : ovk__bcgs_limit(c, bb, w->r); /* a breakdown at the last iteration */
}

#define V(f) offsetof(bicg_work, f)
const ovk__solver_ops ovk__solver_bicgstab = {
    .caps = OVK__CAP_NONSYMMETRIC,
    OVK__WORK_VECTORS(bicg_work, V(r), V(rhat), V(p), V(v), V(z), V(zs), V(t)),
    .iterate = iterate,
};

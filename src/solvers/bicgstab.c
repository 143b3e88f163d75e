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
 * the solve. */
#include <stddef.h>
#include <string.h>

#include "bcgs.h"

typedef struct bicg_work {
    double *r, *rhat, *p, *v, *z, *zs, *t;
    ovk__bcgs_restarts rs;
    double rho, rho_old, alpha, omega, rr; /* rr = <r,r>, and <rhat,rhat> = rr at the restart */
    double hh;
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

/* p = r + beta (p - omega v);  z = C p;  v = A z;  alpha = rho / <rhat,v>;
 * s = r - alpha v (with d, C's diagonal: zs = C s too).  *rv = <rhat,v>;
 * *broke: it is negligible (nothing updated). */
static int first_half(ovk__ctx *c, bicg_work *w, const double *d, double *rv, int *broke)
{
    double beta = (w->rho / w->rho_old) * (w->alpha / w->omega), g[2];
    directions(c, w, beta, d);
    int rc = d ? OVK_OK : ovk__ctx_pc(c, w->p, w->z); /* z = C p */
    if (!rc) rc = ovk__ctx_matvec(c, w->z, w->v);     /* v = A z */
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
    int n = c->n, every = ovk__chunk_rows(n, &c->hook);
    double hr = 0.0, rr = 0.0;
    for (int lo = 0, since = 0; lo < n; lo += SUM_ROWS) {
        int hi = ovk__chunk_end(lo, SUM_ROWS, n);
        double bh = 0.0, br = 0.0;
#pragma omp simd reduction(+ : bh, br)
        for (int i = lo; i < hi; i++) {
            x[i] += a * z[i] + o * zs[i];
            double ri = r[i] - o * t[i];
            r[i] = ri;
            bh += rhat[i] * ri;
            br += ri * ri;
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
 * and rr = <r,r>.  *broke: omega = 0 (r = s). */
static int second_half(ovk__ctx *c, bicg_work *w, const double *d, int *broke)
{
    double g[2], h[2];
    int rc = d ? OVK_OK : ovk__ctx_pc(c, w->r, w->zs); /* zs = C s */
    if (!rc) rc = ovk__ctx_matvec(c, w->zs, w->t);      /* t = A zs */
    if (rc) return rc;
    ovk__tic t0 = ovk__tic_start(c);
    ovk__dots(c->n, 2, (const double *[]){w->t, w->t}, (const double *[]){w->r, w->t}, g, &c->hook);
    ovk__tic_stop(c, OVK_TIMER_AXPY, t0);
    rc = ovk__sum(c, OVK__GAMMA, g, 2);
    if (rc) return rc;
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

static int iterate(ovk__ctx *c, void *work, double bb)
{
    bicg_work *w = work;
    int rc = ovk__ctx_dots(c, 1, (const double *[]){w->r}, (const double *[]){w->r}, &w->rr);
    if (rc) return rc;
    const double *d = ovk__ctx_pc_diagonal(c); /* a diagonal C: applied in the vector updates' passes */
    w->rs.last = -1;
    restart(c, w);
    for (int iter = 1; iter <= c->opts->max_iter; iter++) {
        int broke = 0, stop = 0, replaced = 0;
        double rv = 0.0;
        rc = first_half(c, w, d, &rv, &broke);
        if (rc) return rc;
        if (broke) {
            if (recover(c, w, iter, "<rhat,v>", rv)) return OVK_OK;
            continue;
        }
        rc = second_half(c, w, d, &broke);
        if (rc) return rc;
        rc = ovk__bcgs_check(c, iter, w->rr, bb, w->r, &stop, &replaced);
        if (rc || stop) return rc;
        if (replaced) { /* r = b - A x: its norm from the check */
            w->rr = c->res->rel_residual * c->res->rel_residual * bb;
            restart(c, w);
        } else if (broke) {
            if (recover(c, w, iter, "omega", w->omega)) return OVK_OK;
        } else if (ovk__bcgs_tiny(w->rho, w->hh, w->rr)) {
            if (recover(c, w, iter, "rho", w->rho)) return OVK_OK;
        }
    }
    return ovk__bcgs_limit(c, bb, w->r); /* a breakdown at the last iteration */
}

#define V(f) offsetof(bicg_work, f)
const ovk__solver ovk__solver_bicgstab = {
    .name = "bicgstab",
    .description = "BiCGStab (van der Vorst), right-preconditioned: any matrix, three blocking reductions",
    .options = "",
    .nonsymmetric = 1,
    .work_size = sizeof(bicg_work), .nvec = 7,
    .vec = (const size_t[]){V(r), V(rhat), V(p), V(v), V(z), V(zs), V(t)},
    .iterate = iterate,
};

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
 * costs a vector and saves two sweeps over x and one over r).
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

/* p = r + beta (p - omega v);  z = C p;  v = A z;  alpha = rho / <rhat,v>;
 * s = r - alpha v.  *rv = <rhat,v>; *broke: it is negligible (nothing
 * updated). */
static int first_half(ovk__ctx *c, bicg_work *w, double *rv, int *broke)
{
    int n = c->n;
    double beta = (w->rho / w->rho_old) * (w->alpha / w->omega), d[2];
    ovk__tic t0 = ovk__tic_start(c);
    for (int i = 0; i < n; i++) w->p[i] = w->r[i] + beta * (w->p[i] - w->omega * w->v[i]);
    ovk__tic_stop(c, OVK_TIMER_AXPY, t0);
    int rc = ovk__ctx_pc(c, w->p, w->z); /* z = C p */
    if (!rc) rc = ovk__ctx_matvec(c, w->z, w->v); /* v = A z */
    if (!rc) rc = ovk__ctx_dots(c, 2, (const double *[]){w->rhat, w->v}, (const double *[]){w->v, w->v}, d);
    if (rc) return rc;
    *rv = d[0];
    *broke = ovk__bcgs_tiny(d[0], w->hh, d[1]);
    if (*broke) return OVK_OK;
    w->alpha = w->rho / d[0];
    t0 = ovk__tic_start(c);
    ovk__axpy(n, -w->alpha, w->v, w->r, &c->hook); /* s = r - alpha v */
    ovk__tic_stop(c, OVK_TIMER_AXPY, t0);
    return OVK_OK;
}

/* x += alpha z + omega zs;  r = s - omega t;  h = <rhat,r>, <r,r> (local),
 * one pass, two partial sums each */
static void update(ovk__ctx *c, bicg_work *w, double h[2])
{
    enum { CACHE_ROWS = 2048 };
    const double *restrict z = w->z, *restrict zs = w->zs, *restrict t = w->t, *restrict rhat = w->rhat;
    double *restrict x = c->x, *restrict r = w->r, a = w->alpha, o = w->omega;
    int n = c->n, every = ovk__chunk_rows(n, &c->hook), step = every < CACHE_ROWS ? every : CACHE_ROWS;
    double s[4] = {0.0, 0.0, 0.0, 0.0}; /* <rhat,r>, <r,r> on even rows; on odd rows */
    for (int lo = 0, since = 0; lo < n; lo += step) {
        int hi = ovk__chunk_end(lo, step, n);
        for (int i = lo; i < hi; i++) {
            x[i] += a * z[i] + o * zs[i];
            double ri = r[i] - o * t[i];
            r[i] = ri;
            if (i & 1) {
                s[2] += rhat[i] * ri;
                s[3] += ri * ri;
            } else {
                s[0] += rhat[i] * ri;
                s[1] += ri * ri;
            }
        }
        since += hi - lo;
        if (since >= every || hi == n) {
            ovk__poke(&c->hook);
            since = 0;
        }
    }
    h[0] = s[0] + s[2];
    h[1] = s[1] + s[3];
}

/* zs = C s;  t = A zs;  omega = <t,s> / <t,t>;  x += alpha z + omega zs;
 * r = s - omega t; then rho = <rhat,r> and rr = <r,r>.  *broke: omega = 0
 * (r = s). */
static int second_half(ovk__ctx *c, bicg_work *w, int *broke)
{
    double g[2], h[2];
    int rc = ovk__ctx_pc(c, w->r, w->zs); /* zs = C s */
    if (!rc) rc = ovk__ctx_matvec(c, w->zs, w->t); /* t = A zs */
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
    w->rs.last = -1;
    restart(c, w);
    for (int iter = 1; iter <= c->opts->max_iter; iter++) {
        int broke = 0, stop = 0, replaced = 0;
        double rv = 0.0;
        rc = first_half(c, w, &rv, &broke);
        if (rc) return rc;
        if (broke) {
            if (recover(c, w, iter, "<rhat,v>", rv)) return OVK_OK;
            continue;
        }
        rc = second_half(c, w, &broke);
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

/* Recycled PCG, not pipelined: deflated PCG (Saad, Yeung, Erhel and
 * Guyomarc'h, SISC 2000) with the space the solver keeps across solves
 * (engine/recycle.c), built eigCG-style from the CG coefficients as
 * rpipecg's.  Per step, with W and A W kept:
 *
 *   s = A p, <p,s>                                    reduction 1
 *   alpha = gamma / <p,s>;  x += alpha p;  r -= alpha s
 *   z = C r;  gamma = <r,z>, <r,r>, g = (A W)^T z     reduction 2
 *   mu = E^-1 g;  p = z - W mu + beta p               (E = W^T A W)
 *
 * so that p stays A-orthogonal to W: 2 reductions, 1 product, 1
 * preconditioner application and 2K vectors more than PCG (the K sums of g
 * in z's pass, W mu in p's), against rpipecg's 3K or 4K and its eigCG
 * window in flight.  The solve starts with x += W E^-1 W^T r (one
 * reduction); in a solve that collects (recycle.c) each step's
 * z / sqrt(gamma) and alpha, beta feed the eigCG window, from which the
 * solve's end makes the space again.  With a diagonal C one pass makes
 * x, r, z = d .* r and the step's sums.  A true residual
 * that does not confirm a convergence restarts from it (the window's
 * sequence ends there). */
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "../../solver.h"

typedef struct rcg_work {
    double *r, *z, *p, *s;
    int k;                /* the dimension this solve deflates */
    ovk__eigwin win;
    double sums[3 + OVK__RECYCLE_MAX]; /* gamma, <r,r>, g */
    double mu[OVK__RECYCLE_MAX];
} rcg_work;

enum { ROWS = 256 };

/* the local gamma = <r,z>, <r,r> and g = (A W)^T z, chunk by chunk; with
 * a diagonal C (d) z = d .* r formed in the same pass, after x += a p,
 * r -= a s when a is not 0 (one pass over x, r, p, s, z) */
static void advance_sums(ovk__ctx *c, rcg_work *w, const double *d, double a)
{
    const ovk__recycle *sp = &c->recycle;
    double *v = w->sums;
    memset(v, 0, sizeof(double) * (size_t)(2 + w->k));
    for (int i0 = 0; i0 < c->n; i0 += ROWS) {
        int len = c->n - i0 < ROWS ? c->n - i0 : ROWS;
        double *restrict r = w->r + i0, *restrict z = w->z + i0, *restrict x = c->x + i0;
        const double *restrict p = w->p + i0, *restrict s = w->s + i0;
        double g = 0.0, rr = 0.0;
        if (d && a == 0.0) {
            const double *restrict dd = d + i0;
#pragma omp simd reduction(+ : g, rr)
            for (int i = 0; i < len; i++) {
                z[i] = dd[i] * r[i];
                g += r[i] * z[i];
                rr += r[i] * r[i];
            }
        } else if (d) {
            const double *restrict dd = d + i0;
#pragma omp simd reduction(+ : g, rr)
            for (int i = 0; i < len; i++) {
                double ri = r[i] - a * s[i];
                x[i] += a * p[i];
                r[i] = ri;
                z[i] = dd[i] * ri;
                g += ri * z[i];
                rr += ri * ri;
            }
        } else {
#pragma omp simd reduction(+ : g, rr)
            for (int i = 0; i < len; i++) {
                g += r[i] * z[i];
                rr += r[i] * r[i];
            }
        }
        v[0] += g;
        v[1] += rr;
        ovk__recycle_dots(z, sp->AW, w->k, i0, len, v + 2);
    }
}

/* x += a p, r -= a s (a = 0: neither), z = C r, then the local gamma =
 * <r,z>, <r,r> and g = (A W)^T z: one pass with a diagonal C */
static int advance(ovk__ctx *c, rcg_work *w, double a)
{
    const double *d = ovk__ctx_pc_diagonal(c);
    if (!d) {
        ovk__tic t0 = ovk__tic_start(c);
        if (a != 0.0)
            for (int i = 0; i < c->n; i++) {
                c->x[i] += a * w->p[i];
                w->r[i] -= a * w->s[i];
            }
        ovk__tic_stop(c, OVK_TIMER_AXPY, t0);
        int rc = ovk__ctx_pc(c, w->r, w->z);
        if (rc) return rc;
    }
    ovk__tic t0 = ovk__tic_start(c);
    advance_sums(c, w, d, a);
    ovk__tic_stop(c, OVK_TIMER_AXPY, t0);
    return OVK_OK;
}

/* z = C r, then the local gamma = <r,z>, <r,r> and g = (A W)^T z */
static int precondition(ovk__ctx *c, rcg_work *w) { return advance(c, w, 0.0); }

/* p = z - W mu + beta p (element-wise: the same bits in every clone) */
OVK__CLONES static void direction(int n, int k, double *const *W, const double *mu, const double *z, double beta,
                                  double *p)
{
    double acc[ROWS];
    for (int i0 = 0; i0 < n; i0 += ROWS) {
        int len = n - i0 < ROWS ? n - i0 : ROWS;
        memset(acc, 0, sizeof(double) * (size_t)len);
        for (int j = 0; j < k; j += 4) {
            int nj = k - j < 4 ? k - j : 4;
            const double *restrict x0 = W[j] + i0, *restrict x1 = W[j + (nj > 1)] + i0;
            const double *restrict x2 = W[j + (nj > 2 ? 2 : 0)] + i0, *restrict x3 = W[j + (nj > 3 ? 3 : 0)] + i0;
            double m0 = mu[j], m1 = nj > 1 ? mu[j + 1] : 0.0, m2 = nj > 2 ? mu[j + 2] : 0.0, m3 = nj > 3 ? mu[j + 3] : 0.0;
#pragma omp simd
            for (int i = 0; i < len; i++) acc[i] += m0 * x0[i] + m1 * x1[i] + m2 * x2[i] + m3 * x3[i];
        }
        double *restrict pp = p + i0;
        const double *restrict zz = z + i0;
#pragma omp simd
        for (int i = 0; i < len; i++) pp[i] = zz[i] - acc[i] + beta * pp[i];
    }
}

/* the sums of precondition reduced; mu = E^-1 g; p = z - W mu + beta p */
static int reduce_and_direct(ovk__ctx *c, rcg_work *w, double beta)
{
    int rc = ovk__sum(c, OVK__GAMMA, w->sums, 2 + w->k);
    if (rc) return rc;
    ovk__recycle_solve(&c->recycle, w->k, w->sums + 2, w->mu);
    ovk__tic t0 = ovk__tic_start(c);
    direction(c->n, w->k, c->recycle.W, w->mu, w->z, beta, w->p);
    ovk__tic_stop(c, OVK_TIMER_AXPY, t0);
    return OVK_OK;
}

static int iterate(ovk__ctx *c, void *work, double bb)
{
    rcg_work *w = work;
    int rc = ovk__recycle_project(c, w->r, &w->k), stop = 0;
    if (rc) return rc;
    w->win.cnt = 0;
    w->win.open = ovk__recycle_collect(c);
    memset(w->p, 0, sizeof(double) * (size_t)c->n);
    rc = precondition(c, w);
    if (!rc) rc = reduce_and_direct(c, w, 0.0); /* p = z - W mu */
    if (rc) return rc;
    double gamma = w->sums[0], beta = 0.0, alpha_old = 0.0;
    if (w->k > 0) { /* the projection may have solved it: the true residual decides */
        rc = ovk__iterate_check(c, 0, w->sums[1], bb, &stop);
        if (!rc && stop && c->res->reason == OVK_REASON_CONVERGED) {
            int ok = 0;
            rc = ovk__confirm(c, bb, w->r, &ok); /* r = b - A x */
            if (rc || ok) return rc;
            stop = 0;
            rc = precondition(c, w);
            if (!rc) rc = reduce_and_direct(c, w, 0.0);
            gamma = w->sums[0];
        }
        if (rc || stop) return rc;
    }
    if (ovk__breakdown(c, 0, "<r,Cr>", gamma, 1)) return OVK_OK;
    for (int iter = 1; iter <= c->opts->max_iter; iter++) {
        double sdotp = 0.0;
        rc = ovk__ctx_matvec_dot(c, w->p, w->s, &sdotp); /* s = A p, <p,s> */
        if (!rc) rc = ovk__sum(c, OVK__SDOTP, &sdotp, 1);
        if (rc) return rc;
        if (ovk__breakdown(c, iter, "<s,p>", sdotp, 0)) return OVK_OK;
        double alpha = gamma / sdotp, scale = 0.0;
        int first = beta == 0.0 || alpha_old == 0.0;
        double *lv = ovk__eigwin_next(&w->win, gamma, 1.0 / alpha + (first ? 0.0 : beta / alpha_old),
                                      first ? 0.0 : -sqrt(beta) / alpha_old, &scale);
        ovk__tic t0 = ovk__tic_start(c);
        if (lv) /* the window's Lanczos vector z / sqrt(gamma) */
            for (int i = 0; i < c->n; i++) lv[i] = scale * w->z[i];
        ovk__tic_stop(c, OVK_TIMER_AXPY, t0);
        ovk__lanczos_add(c, alpha, beta);
        alpha_old = alpha;
        rc = advance(c, w, alpha); /* x += alpha p; r -= alpha s; z = C r; gamma, <r,r>, g */
        if (!rc) rc = ovk__sum(c, OVK__GAMMA, w->sums, 2 + w->k);
        if (!rc) rc = ovk__iterate_check(c, iter, w->sums[1], bb, &stop);
        if (rc) return rc;
        if (stop && c->res->reason == OVK_REASON_CONVERGED) {
            int ok = 0;
            rc = ovk__confirm(c, bb, w->r, &ok); /* r = b - A x */
            if (rc || ok) return rc;
            c->res->replacements++; /* not confirmed: a restart from the true residual */
            stop = 0;
            w->win.open = 0;
            rc = precondition(c, w);
            if (!rc) rc = reduce_and_direct(c, w, 0.0);
            if (rc) return rc;
            gamma = w->sums[0];
            beta = alpha_old = 0.0;
            continue;
        }
        if (stop) return OVK_OK;
        ovk__eigwin_compress(c, &w->win);
        if (ovk__breakdown(c, iter, "<r,Cr>", w->sums[0], 1)) return OVK_OK;
        beta = w->sums[0] / gamma;
        gamma = w->sums[0];
        ovk__recycle_solve(&c->recycle, w->k, w->sums + 2, w->mu);
        t0 = ovk__tic_start(c);
        direction(c->n, w->k, c->recycle.W, w->mu, w->z, beta, w->p); /* p = z - W mu + beta p */
        ovk__tic_stop(c, OVK_TIMER_AXPY, t0);
    }
    c->res->reason = OVK_REASON_MAXIT;
    return OVK_OK;
}

static int run(ovk__ctx *c, void *work, double bb)
{
    int rc = iterate(c, work, bb);
    rcg_work *w = work;
    if (!rc && (c->res->reason == OVK_REASON_CONVERGED || c->res->reason == OVK_REASON_MAXIT))
        rc = ovk__recycle_update(c, &w->win);
    return rc;
}

static int setup(ovk__ctx *c, void *work)
{
    rcg_work *w = work;
    int rc = ovk__recycle_reserve(c, 1);
    if (rc) return rc;
    return ovk__eigwin_alloc(&w->win, c->n, c->recycle.want);
}

static void destroy(void *work)
{
    rcg_work *w = work;
    ovk__eigwin_free(&w->win);
}

#define V(f) offsetof(rcg_work, f)
const ovk__solver_ops ovk__solver_rcg = {
    .caps = OVK__CAP_RECYCLES | OVK__CAP_CONDEST,
    OVK__WORK_VECTORS(rcg_work, V(r), V(z), V(p), V(s)),
    .setup = setup, .iterate = run, .destroy = destroy,
};

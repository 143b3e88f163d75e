/* Pipelined IDR(s): idrs.c's iterates (the biorthogonal IDR(s) of van
 * Gijzen and Sonneveld, right-preconditioned, the same shadow space P and
 * omega rule) with each step's one reduction in flight behind that step's
 * preconditioner application and product, by auxiliary images in the
 * manner of pipelined BiCGStab (Cools and Vanroose) and pipelined CG
 * (Ghysels and Vanroose).  Besides r, U (C-preconditioned directions) and
 * G = A U it carries r^ = C r, r~ = A C r, G^ = C G and G~ = A C G, so
 * that a step's vector needs no product before its sums:
 *
 *   inner step k = 0..s-1:
 *     solve M(k:,k:) c = f(k:)
 *     u_k = omega (r^ - G^(:,k:) c) + U(:,k:) c       (omega C v, v = r - G c)
 *     g_k = omega (r~ - G~(:,k:) c) + G(:,k:) c       (= A u_k)
 *     m = P^T g_k, <g_k,g_k>, <r,r>  posted;  g^_k = C g_k;  g~_k = A g^_k;  wait
 *     alpha: M(:k,:k) alpha = m(:k);  M(k:,k) = m(k:) - M(k:,:k) alpha
 *     g_k, g^_k, g~_k, u_k -= (G, G^, G~, U)(:,:k) alpha
 *     beta = f_k / M(k,k);  r, r^, r~ -= beta (g_k, g^_k, g~_k);  x += beta u_k
 *     f(k+1:) -= beta M(k+1:,k)
 *   the omega step (t = A C r = r~, no product):
 *     P^T r, P^T t, <t,r>, <t,t>, <r,r>  posted;  t^ = C t;  t~ = A t^;  wait
 *     omega (kappa = 0.7 rule);  x += omega r^;  r, r^, r~ -= omega (t, t^, t~)
 *     f = P^T r - omega P^T t
 *
 * So a step is one preconditioner application, one product and one
 * reduction in flight behind both; C must be linear (a fixed
 * preconditioner).  With a diagonal C (Jacobi) r^ = d r and G^ = d G are
 * not carried: u_k = omega d (r - G(:,k:) c) + U(:,k:) c, as idrs makes it,
 * and x += omega d r (fewer vector passes, fewer recurrences to drift).  As in idrs, <r,r> rides one step late: step j's
 * reduction carries the norm of step j - 1's residual, checked after the
 * wait, before step j updates x.  Rounding makes r, r^, r~ drift from
 * b - A x, C r, A C r (and G from A U): a converged recursive residual is
 * confirmed on b - A x, which restarts the cycle from it when it does not
 * meet the tolerance, as does a breakdown (M(k,k) negligible, <t,t> = 0).
 * A restart: G = U = G^ = G~ = 0, M = I, omega = 1, then the images.
 * Residual replacement every `replace_every` steps (pipebicgstab's
 * meaning: 0, every 100 steps up to 1000; < 0, never): r = b - A x and its
 * images at the end of the cycle (where the next step uses all of f =
 * P^T r), the subspace (G, U, their images, M, omega) kept; dropping it as
 * a restart does costs IDR(s) its progress (convection-diffusion with
 * Jacobi: 162 steps instead of 102).  The images: f = P^T r in flight
 * while r^ = C r and r~ = A r^ are computed (one reduction, behind one
 * preconditioner application and one product). */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bcgs.h"

enum { MAX_S = OVK__IDR_MAX_S, BLOCK = OVK__IDR_BLOCK };
enum { AUTO_EVERY = 100, AUTO_UNTIL = 1000 }; /* pipebicgstab's replacement schedule */

typedef struct pidrs_work {
    ovk__idr idr;          /* first: what idrs shares */
    double *rh, *rt;       /* r^ = C r, r~ = A C r */
    double *th, *tt;       /* the omega step's t^ = C t, t~ = A t^ */
    double *Gh[MAX_S], *Gt[MAX_S];
    const double *diag;    /* C's diagonal when C is diagonal (r^ and G^ then not carried), else NULL */
    int due;               /* a residual replacement is due at the cycle's end */
} pidrs_work;

/* ---- local kernels ----------------------------------------------------------- */

/* rows lo..lo+m of u_k: omega (r^ - G^(:,k:) c) + U(:,k:) c, or with a
 * diagonal C omega d (r - G(:,k:) c) + U(:,k:) c (r^ = d r, G^ = d G: not
 * carried) */
static void direction_u(pidrs_work *w, int k, int lo, int m, double *const *XU, const double *coef)
{
    int q = w->idr.s - k;
    if (!w->diag) {
        ovk__idr_block_comb(lo, m, w->idr.U[k], w->idr.omega, w->rh + lo, 2 * q, XU, coef);
        return;
    }
    double z[BLOCK], mc[MAX_S];
    for (int j = 0; j < q; j++) mc[j] = -w->idr.cf[k + j];
    ovk__idr_block_comb(0, m, z, 1.0, w->idr.r + lo, 0, NULL, NULL);
    for (int j = 0; j < q; j++) {
        const double *restrict g = w->idr.G[k + j] + lo;
#pragma omp simd
        for (int i = 0; i < m; i++) z[i] += mc[j] * g[i];
    }
    const double *restrict d = w->diag + lo;
    for (int i = 0; i < m; i++) z[i] *= d[i];
    ovk__idr_block_comb(lo, m, w->idr.U[k], w->idr.omega, z, q, w->idr.U + k, w->idr.cf + k);
}

/* u_k (direction_u);  g_k = omega (r~ - G~(:,k:) c) + G(:,k:) c;  the local
 * P^T g_k, <g_k,g_k> in vals[0..s] */
static void direction(ovk__ctx *c, pidrs_work *w, int k)
{
    int n = c->n, s = w->idr.s, q = s - k, every = ovk__chunk_rows(n, &c->hook);
    double *XU[2 * MAX_S], *XG[2 * MAX_S], coef[2 * MAX_S];
    for (int j = 0; j < q; j++) {
        XU[j] = w->Gh[k + j];
        XU[q + j] = w->idr.U[k + j];
        XG[j] = w->Gt[k + j];
        XG[q + j] = w->idr.G[k + j];
        coef[j] = -w->idr.omega * w->idr.cf[k + j];
        coef[q + j] = w->idr.cf[k + j];
    }
    double *vals = w->idr.vals;
    for (int j = 0; j <= s; j++) vals[j] = 0.0;
    ovk__tic t0 = ovk__tic_start(c);
    for (int lo = 0, since = 0; lo < n; lo += BLOCK) {
        int m = ovk__chunk_end(lo, BLOCK, n) - lo;
        direction_u(w, k, lo, m, XU, coef); /* before g_k overwrites G(:,k) */
        ovk__idr_block_comb(lo, m, w->idr.G[k], w->idr.omega, w->rt + lo, 2 * q, XG, coef);
        const double *restrict g = w->idr.G[k] + lo;
        for (int j = 0; j < s; j++) {
            const double *restrict p = w->idr.P[j] + lo;
            double d = 0.0;
#pragma omp simd reduction(+ : d)
            for (int i = 0; i < m; i++) d += p[i] * g[i];
            vals[j] += d;
        }
        double gg = 0.0;
#pragma omp simd reduction(+ : gg)
        for (int i = 0; i < m; i++) gg += g[i] * g[i];
        vals[s] += gg;
        ovk__idr_progress(c, m, every, lo + m == n, &since);
    }
    ovk__tic_stop(c, OVK_TIMER_AXPY, t0);
}

/* (g_k, g^_k, g~_k, u_k) -= (G, G^, G~, U)(:,:k) alpha;  (r, r^, r~) -=
 * beta (g_k, g^_k, g~_k);  x += beta u_k;  rr_loc = <r,r>, xx_loc = <x,x>: one pass (g^_k
 * and r^ not with a diagonal C) */
static void inner_update(ovk__ctx *c, void *work, int k, double beta)
{
    pidrs_work *w = work;
    int n = c->n, every = ovk__chunk_rows(n, &c->hook);
    double ma[MAX_S], rr = 0.0, xx = 0.0;
    for (int j = 0; j < k; j++) ma[j] = -w->idr.al[j];
    ovk__tic t0 = ovk__tic_start(c);
    for (int lo = 0, since = 0; lo < n; lo += BLOCK) {
        int m = ovk__chunk_end(lo, BLOCK, n) - lo;
        ovk__idr_block_comb(lo, m, w->idr.G[k], 1.0, w->idr.G[k] + lo, k, w->idr.G, ma);
        if (!w->diag) ovk__idr_block_comb(lo, m, w->Gh[k], 1.0, w->Gh[k] + lo, k, w->Gh, ma);
        ovk__idr_block_comb(lo, m, w->Gt[k], 1.0, w->Gt[k] + lo, k, w->Gt, ma);
        ovk__idr_block_comb(lo, m, w->idr.U[k], 1.0, w->idr.U[k] + lo, k, w->idr.U, ma);
        const double *restrict g = w->idr.G[k] + lo, *restrict gh = w->Gh[k] + lo, *restrict gt = w->Gt[k] + lo;
        const double *restrict u = w->idr.U[k] + lo;
        double *restrict r = w->idr.r + lo, *restrict rh = w->rh + lo, *restrict rt = w->rt + lo;
        double *restrict x = c->x + lo, br = 0.0, bx = 0.0;
        if (!w->diag)
            for (int i = 0; i < m; i++) rh[i] -= beta * gh[i];
#pragma omp simd reduction(+ : br, bx)
        for (int i = 0; i < m; i++) {
            double ri = r[i] - beta * g[i], xi = x[i] + beta * u[i];
            r[i] = ri;
            rt[i] -= beta * gt[i];
            x[i] = xi;
            br += ri * ri;
            bx += xi * xi;
        }
        rr += br;
        xx += bx;
        ovk__idr_progress(c, m, every, lo + m == n, &since);
    }
    w->idr.rr_loc = rr;
    w->idr.xx_loc = xx;
    ovk__tic_stop(c, OVK_TIMER_AXPY, t0);
}

/* x += omega r^ (d r with a diagonal C);  (r, r^, r~) -= omega (r~, t^, t~);
 * rr_loc = <r,r>, xx_loc = <x,x> */
static void omega_update(ovk__ctx *c, void *work)
{
    pidrs_work *w = work;
    double *restrict r = w->idr.r, *restrict rh = w->rh, *restrict rt = w->rt, *restrict x = c->x;
    const double *restrict th = w->th, *restrict tt = w->tt, *restrict d = w->diag;
    double om = w->idr.omega, rr = 0.0, xx = 0.0;
    int n = c->n;
    ovk__tic t0 = ovk__tic_start(c);
    if (d) {
        for (int i = 0; i < n; i++) x[i] += om * d[i] * r[i];
    } else {
        for (int i = 0; i < n; i++) {
            x[i] += om * rh[i];
            rh[i] -= om * th[i];
        }
    }
#pragma omp simd reduction(+ : rr, xx)
    for (int i = 0; i < n; i++) {
        double ri = r[i] - om * rt[i];
        r[i] = ri;
        rt[i] -= om * tt[i];
        rr += ri * ri;
        xx += x[i] * x[i];
    }
    w->idr.rr_loc = rr;
    w->idr.xx_loc = xx;
    ovk__tic_stop(c, OVK_TIMER_AXPY, t0);
}

/* ---- the steps ----------------------------------------------------------------- */

/* vals[0..k) posted, in flight while y = C x and ax = A y; then waited for */
static int sums_behind(ovk__ctx *c, pidrs_work *w, int k, const double *x, double *y, double *ax)
{
    ovk_request *req = NULL;
    int rc = ovk__sum_begin(c, OVK__IPROD, w->idr.vals, k, &req);
    if (rc) return rc;
    rc = ovk__ctx_pc(c, x, y);
    if (!rc) rc = ovk__ctx_matvec(c, y, ax);
    return ovk__sum_finish(c, OVK__IPROD, req, rc);
}

/* from r: f = P^T r in flight while r^ = C r, r~ = A r^ */
static int images(ovk__ctx *c, pidrs_work *w)
{
    int s = w->idr.s;
    ovk__idr_shadow_dots(c, s, w->idr.P, 1, (const double *[]){w->idr.r}, w->idr.vals); /* P^T r; <r,r> not reduced */
    int rc = sums_behind(c, w, s, w->idr.r, w->rh, w->rt);
    if (rc) return rc;
    memcpy(w->idr.f, w->idr.vals, sizeof(double) * (size_t)s);
    return OVK_OK;
}

/* the cycle anew from r: G = U = G^ = G~ = 0, M = I, omega = 1, the images */
static int restart(ovk__ctx *c, void *work)
{
    pidrs_work *w = work;
    size_t bytes = sizeof(double) * (size_t)c->n;
    ovk__idr_reset(c, &w->idr);
    for (int j = 0; j < w->idr.s && c->n > 0; j++) {
        memset(w->Gh[j], 0, bytes);
        memset(w->Gt[j], 0, bytes);
    }
    return images(c, w);
}

/* r = b - A x, rr_loc its local <r,r> */
static int true_residual(ovk__ctx *c, void *work)
{
    pidrs_work *w = work;
    int rc = ovk__ctx_residual(c, w->idr.r);
    if (!rc) w->idr.rr_loc = ovk__dot(c->n, w->idr.r, w->idr.r);
    return rc;
}

/* inner step k up to its wait: u_k, g_k by the recurrences; m = P^T g_k,
 * <g_k,g_k>, <r,r>, <x,x> (the last two of the previous update) in flight while g^_k = C g_k, g~_k = A g^_k */
static int inner_sums(ovk__ctx *c, void *work, int k)
{
    pidrs_work *w = work;
    int s = w->idr.s;
    ovk__idr_solve_c(s, k, w->idr.M, w->idr.f, w->idr.cf); /* M(k:,k:) c = f(k:) */
    direction(c, w, k);
    w->idr.vals[s + 1] = w->idr.rr_loc;
    w->idr.vals[s + 2] = w->idr.xx_loc;
    return sums_behind(c, w, s + 3, w->idr.G[k], w->diag ? w->th : w->Gh[k], w->Gt[k]); /* g^_k kept without d */
}

/* the omega step up to its wait: P^T r, P^T t, <t,r>, <t,t>, <r,r>, <x,x> (t = r~)
 * in flight while t^ = C t, t~ = A t^ */
static int omega_sums(ovk__ctx *c, void *work)
{
    pidrs_work *w = work;
    int s = w->idr.s;
    ovk__idr_shadow_dots(c, s, w->idr.P, 2, (const double *[]){w->idr.r, w->rt}, w->idr.vals);
    w->idr.vals[2 * s + 2] = w->idr.rr_loc;
    w->idr.vals[2 * s + 3] = w->idr.xx_loc;
    return sums_behind(c, w, 2 * s + 4, w->rt, w->th, w->tt);
}

/* replace_every k > 0: every k steps; 0: every 100 steps up to 1000; < 0: never */
static int replacement_due(const ovk__ctx *c, int iter)
{
    int every = c->opts->replace_every;
    if (every > 0) return iter % every == 0;
    return every == 0 && iter % AUTO_EVERY == 0 && iter <= AUTO_UNTIL;
}

/* at a cycle's end (f all used), when due: r = b - A x and its images, its
 * norm checked by the next step */
static int after_step(ovk__ctx *c, void *work, int iter, int next, int k)
{
    pidrs_work *w = work;
    w->due = next && (w->due || replacement_due(c, iter)); /* a restart replaced r already */
    if (!w->due || k != 0 || iter >= c->opts->max_iter) return OVK_OK;
    w->due = 0;
    int rc = true_residual(c, w);
    if (!rc) rc = images(c, w);
    if (!rc) c->res->replacements++;
    return rc;
}

static void begin(ovk__ctx *c, void *work)
{
    pidrs_work *w = work;
    w->diag = ovk__ctx_pc_diagonal(c);
    w->due = 0;
}

/* a breakdown restarts from r = b - A x */
static const ovk__idr_ops ops = {
    .inner_sums = inner_sums, .inner_update = inner_update, .omega_sums = omega_sums,
    .omega_update = omega_update, .restart = restart, .after_breakdown = true_residual,
    .begin = begin, .after_step = after_step,
};

static int iterate(ovk__ctx *c, void *work, double bb) { return ovk__idr_iterate(c, &ops, work, "pipeidrs", bb); }

/* ---- options, vectors, set-up ------------------------------------------------------ */

static int pidrs_parse(ovk__opts *o, void **params) { return ovk__idr_parse(o, params, "pipeidrs"); }

/* r, r^, r~, t^, t~, then P, G, U, G^, G~ (s each) */
static int pidrs_vectors(const void *params, size_t *vec)
{
    int s = (int)((const ovk__idr_params *)params)->s, k = 0;
    if (!vec) return 5 + 5 * s;
    vec[k++] = offsetof(pidrs_work, idr.r);
    vec[k++] = offsetof(pidrs_work, rh);
    vec[k++] = offsetof(pidrs_work, rt);
    vec[k++] = offsetof(pidrs_work, th);
    vec[k++] = offsetof(pidrs_work, tt);
    for (int j = 0; j < s; j++) {
        size_t off = sizeof(double *) * (size_t)j;
        vec[k++] = offsetof(pidrs_work, idr.P) + off;
        vec[k++] = offsetof(pidrs_work, idr.G) + off;
        vec[k++] = offsetof(pidrs_work, idr.U) + off;
        vec[k++] = offsetof(pidrs_work, Gh) + off;
        vec[k++] = offsetof(pidrs_work, Gt) + off;
    }
    return k;
}

/* local: the small arrays (M, f, c, alpha, the sums) */
static int pidrs_setup(ovk__ctx *c, void *work)
{
    return ovk__idr_setup(work, "pipeidrs", ((const ovk__idr_params *)c->params)->s);
}

/* collective: the shadow space, and s checked against the rows */
static int pidrs_after_setup(ovk__ctx *c, void *work) { return ovk__idr_after_setup(c, work, "pipeidrs"); }

static void pidrs_destroy(void *work) { ovk__idr_destroy(work); }

static void pidrs_view(const void *work, FILE *f)
{
    const pidrs_work *w = work;
    fprintf(f, "  pipeidrs: s = %d (pipelined biorthogonal IDR(s), %d steps a cycle), shadow space of %d "
               "orthonormal random vectors; one reduction per step (%d values, the omega step's %d) in flight "
               "behind the step's preconditioner application and product\n",
            w->idr.s, w->idr.s + 1, w->idr.s, w->idr.s + 3, 2 * w->idr.s + 4);
}

const ovk__solver_ops ovk__solver_pipeidrs = {
    .caps = OVK__CAP_NONSYMMETRIC,
    .work_size = sizeof(pidrs_work), .vectors = pidrs_vectors,
    .parse = pidrs_parse, .setup = pidrs_setup, .after_setup = pidrs_after_setup, .destroy = pidrs_destroy,
    .view = pidrs_view,
    .iterate = iterate,
};

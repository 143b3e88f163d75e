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

typedef struct pidrs_params {
    long s;
} pidrs_params;

typedef struct pidrs_work {
    double *r, *rh, *rt;   /* r, r^ = C r, r~ = A C r */
    double *th, *tt;       /* the omega step's t^ = C t, t~ = A t^ */
    double *P[MAX_S], *G[MAX_S], *U[MAX_S], *Gh[MAX_S], *Gt[MAX_S];
    int s;
    double *M;             /* s x s, M[i + s j] = <p_i, g_j> */
    double *f, *cf, *al;   /* P^T r; the step's c; alpha */
    double *vals;          /* the step's sums: 2 s + 4 */
    double omega;
    double rr_loc;         /* the local <r,r> of the last update */
    double xx_loc;         /* the local <x,x> of the last update: not finite when x grew past 1e154 */
    const double *diag;    /* C's diagonal when C is diagonal (r^ and G^ then not carried), else NULL */
    int shadow;            /* P is set up */
    long long nglobal;
    int last_restart;      /* the step of the latest breakdown restart, or -1 */
} pidrs_work;

/* ---- local kernels ----------------------------------------------------------- */

/* rows lo..lo+m of u_k: omega (r^ - G^(:,k:) c) + U(:,k:) c, or with a
 * diagonal C omega d (r - G(:,k:) c) + U(:,k:) c (r^ = d r, G^ = d G: not
 * carried) */
static void direction_u(pidrs_work *w, int k, int lo, int m, double *const *XU, const double *coef)
{
    int q = w->s - k;
    if (!w->diag) {
        ovk__idr_block_comb(lo, m, w->U[k], w->omega, w->rh + lo, 2 * q, XU, coef);
        return;
    }
    double z[BLOCK], mc[MAX_S];
    for (int j = 0; j < q; j++) mc[j] = -w->cf[k + j];
    ovk__idr_block_comb(0, m, z, 1.0, w->r + lo, 0, NULL, NULL);
    for (int j = 0; j < q; j++) {
        const double *restrict g = w->G[k + j] + lo;
#pragma omp simd
        for (int i = 0; i < m; i++) z[i] += mc[j] * g[i];
    }
    const double *restrict d = w->diag + lo;
    for (int i = 0; i < m; i++) z[i] *= d[i];
    ovk__idr_block_comb(lo, m, w->U[k], w->omega, z, q, w->U + k, w->cf + k);
}

/* u_k (direction_u);  g_k = omega (r~ - G~(:,k:) c) + G(:,k:) c;  the local
 * P^T g_k, <g_k,g_k> in vals[0..s] */
static void direction(ovk__ctx *c, pidrs_work *w, int k)
{
    int n = c->n, s = w->s, q = s - k, every = ovk__chunk_rows(n, &c->hook);
    double *XU[2 * MAX_S], *XG[2 * MAX_S], coef[2 * MAX_S];
    for (int j = 0; j < q; j++) {
        XU[j] = w->Gh[k + j];
        XU[q + j] = w->U[k + j];
        XG[j] = w->Gt[k + j];
        XG[q + j] = w->G[k + j];
        coef[j] = -w->omega * w->cf[k + j];
        coef[q + j] = w->cf[k + j];
    }
    double *vals = w->vals;
    for (int j = 0; j <= s; j++) vals[j] = 0.0;
    ovk__tic t0 = ovk__tic_start(c);
    for (int lo = 0, since = 0; lo < n; lo += BLOCK) {
        int m = ovk__chunk_end(lo, BLOCK, n) - lo;
        direction_u(w, k, lo, m, XU, coef); /* before g_k overwrites G(:,k) */
        ovk__idr_block_comb(lo, m, w->G[k], w->omega, w->rt + lo, 2 * q, XG, coef);
        const double *restrict g = w->G[k] + lo;
        for (int j = 0; j < s; j++) {
            const double *restrict p = w->P[j] + lo;
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
static void inner_update(ovk__ctx *c, pidrs_work *w, int k, double beta)
{
    int n = c->n, every = ovk__chunk_rows(n, &c->hook);
    double ma[MAX_S], rr = 0.0, xx = 0.0;
    for (int j = 0; j < k; j++) ma[j] = -w->al[j];
    ovk__tic t0 = ovk__tic_start(c);
    for (int lo = 0, since = 0; lo < n; lo += BLOCK) {
        int m = ovk__chunk_end(lo, BLOCK, n) - lo;
        ovk__idr_block_comb(lo, m, w->G[k], 1.0, w->G[k] + lo, k, w->G, ma);
        if (!w->diag) ovk__idr_block_comb(lo, m, w->Gh[k], 1.0, w->Gh[k] + lo, k, w->Gh, ma);
        ovk__idr_block_comb(lo, m, w->Gt[k], 1.0, w->Gt[k] + lo, k, w->Gt, ma);
        ovk__idr_block_comb(lo, m, w->U[k], 1.0, w->U[k] + lo, k, w->U, ma);
        const double *restrict g = w->G[k] + lo, *restrict gh = w->Gh[k] + lo, *restrict gt = w->Gt[k] + lo;
        const double *restrict u = w->U[k] + lo;
        double *restrict r = w->r + lo, *restrict rh = w->rh + lo, *restrict rt = w->rt + lo;
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
    w->rr_loc = rr;
    w->xx_loc = xx;
    ovk__tic_stop(c, OVK_TIMER_AXPY, t0);
}

/* x += omega r^ (d r with a diagonal C);  (r, r^, r~) -= omega (r~, t^, t~);
 * rr_loc = <r,r>, xx_loc = <x,x> */
static void omega_update(ovk__ctx *c, pidrs_work *w)
{
    double *restrict r = w->r, *restrict rh = w->rh, *restrict rt = w->rt, *restrict x = c->x;
    const double *restrict th = w->th, *restrict tt = w->tt, *restrict d = w->diag;
    double om = w->omega, rr = 0.0, xx = 0.0;
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
    w->rr_loc = rr;
    w->xx_loc = xx;
    ovk__tic_stop(c, OVK_TIMER_AXPY, t0);
}

/* ---- the steps ----------------------------------------------------------------- */

/* vals[0..k) posted, in flight while y = C x and ax = A y; then waited for */
static int sums_behind(ovk__ctx *c, pidrs_work *w, int k, const double *x, double *y, double *ax)
{
    ovk_request *req = NULL;
    int rc = ovk__sum_begin(c, OVK__IPROD, w->vals, k, &req);
    if (rc) return rc;
    rc = ovk__ctx_pc(c, x, y);
    if (!rc) rc = ovk__ctx_matvec(c, y, ax);
    return ovk__sum_finish(c, OVK__IPROD, req, rc);
}

/* from r: f = P^T r in flight while r^ = C r, r~ = A r^ */
static int images(ovk__ctx *c, pidrs_work *w)
{
    int s = w->s;
    ovk__idr_shadow_dots(c, s, w->P, 1, (const double *[]){w->r}, w->vals); /* P^T r; <r,r> not reduced */
    int rc = sums_behind(c, w, s, w->r, w->rh, w->rt);
    if (rc) return rc;
    memcpy(w->f, w->vals, sizeof(double) * (size_t)s);
    return OVK_OK;
}

/* the cycle anew from r: G = U = G^ = G~ = 0, M = I, omega = 1, the images */
static int restart(ovk__ctx *c, pidrs_work *w)
{
    int s = w->s;
    size_t bytes = sizeof(double) * (size_t)c->n;
    for (int j = 0; j < s && c->n > 0; j++) {
        memset(w->G[j], 0, bytes);
        memset(w->U[j], 0, bytes);
        memset(w->Gh[j], 0, bytes);
        memset(w->Gt[j], 0, bytes);
    }
    memset(w->M, 0, sizeof(double) * (size_t)(s * s));
    for (int j = 0; j < s; j++) w->M[j + s * j] = 1.0;
    w->omega = 1.0;
    return images(c, w);
}

/* r = b - A x, rr_loc its local <r,r> */
static int true_residual(ovk__ctx *c, pidrs_work *w)
{
    int rc = ovk__ctx_residual(c, w->r);
    if (!rc) w->rr_loc = ovk__dot(c->n, w->r, w->r);
    return rc;
}

/* inner step k up to its wait: u_k, g_k by the recurrences; m = P^T g_k,
 * <g_k,g_k>, <r,r>, <x,x> (the last two of the previous update) in flight while g^_k = C g_k, g~_k = A g^_k */
static int inner_sums(ovk__ctx *c, pidrs_work *w, int k)
{
    int s = w->s;
    ovk__idr_solve_c(s, k, w->M, w->f, w->cf); /* M(k:,k:) c = f(k:) */
    direction(c, w, k);
    w->vals[s + 1] = w->rr_loc;
    w->vals[s + 2] = w->xx_loc;
    return sums_behind(c, w, s + 3, w->G[k], w->diag ? w->th : w->Gh[k], w->Gt[k]); /* g^_k kept without d */
}

/* inner step k after its wait; *broke: M(k,k) negligible (nothing updated,
 * *mkk its value) */
static void inner_finish(ovk__ctx *c, pidrs_work *w, int k, int *broke, double *mkk)
{
    int s = w->s;
    double *M = w->M;
    *broke = ovk__idr_column(s, k, M, w->vals, w->al); /* alpha, M(:,k) */
    *mkk = M[k + s * k];
    if (!*broke) inner_update(c, w, k, ovk__idr_beta(s, k, M, w->f));
}

/* the omega step up to its wait: P^T r, P^T t, <t,r>, <t,t>, <r,r>, <x,x> (t = r~)
 * in flight while t^ = C t, t~ = A t^ */
static int omega_sums(ovk__ctx *c, pidrs_work *w)
{
    int s = w->s;
    ovk__idr_shadow_dots(c, s, w->P, 2, (const double *[]){w->r, w->rt}, w->vals);
    w->vals[2 * s + 2] = w->rr_loc;
    w->vals[2 * s + 3] = w->xx_loc;
    return sums_behind(c, w, 2 * s + 4, w->rt, w->th, w->tt);
}

/* the omega step after its wait; *broke: <t,t> = 0 */
static void omega_finish(ovk__ctx *c, pidrs_work *w, int *broke)
{
    *broke = ovk__idr_omega_step(w->s, w->vals, &w->omega, w->f);
    if (!*broke) omega_update(c, w);
}

/* step iter (inner step k < s, or the omega step k = s): its sums and the
 * work in flight, the check of step iter - 1 (unless checked), then its
 * updates.  *next: 1 when the step was done, 0 when the cycle restarted
 * (a replaced residual, a breakdown); *stop: the solve ends. */
static int step(ovk__ctx *c, pidrs_work *w, int k, int iter, int checked, double bb, int *next, int *stop)
{
    int s = w->s, replaced = 0, broke = 0, count = k < s ? s + 2 : 2 * s + 3;
    double value = 0.0;
    *next = *stop = 0;
    int rc = k < s ? inner_sums(c, w, k) : omega_sums(c, w);
    if (rc) return rc;
    if (!checked) {
        rc = ovk__bcgs_check(c, iter - 1, w->vals[count - 1], bb, w->r, stop, &replaced);
        if (rc || *stop) return rc;
        if (replaced) { /* r = b - A x: its norm from the check */
            w->rr_loc = 0.0;
            return restart(c, w);
        }
    }
    if (ovk__idr_nonfinite(c, w->vals, count, iter) || ovk__idr_unbounded(c, w->vals[count], iter)) {
        *stop = 1;
        return OVK_OK;
    }
    if (k < s) inner_finish(c, w, k, &broke, &value);
    else omega_finish(c, w, &broke);
    if (!broke) {
        *next = 1;
        return OVK_OK;
    }
    const char *what = k < s ? "M(k,k) = <p_k,g_k>" : "<t,t>";
    if (ovk__idr_breakdown(c, &w->last_restart, s, iter, what, k < s ? value : w->vals[2 * s + 1])) {
        *stop = 1;
        return OVK_OK;
    }
    rc = true_residual(c, w);
    return rc ? rc : restart(c, w);
}

/* replace_every k > 0: every k steps; 0: every 100 steps up to 1000; < 0: never */
static int replacement_due(const ovk__ctx *c, int iter)
{
    int every = c->opts->replace_every;
    if (every > 0) return iter % every == 0;
    return every == 0 && iter % AUTO_EVERY == 0 && iter <= AUTO_UNTIL;
}

static int iterate(ovk__ctx *c, void *work, double bb)
{
    pidrs_work *w = work;
    int rc = OVK_OK, checked = 1, k = 0, due = 0;
    if (!w->shadow) rc = ovk__idr_shadow(c, "pipeidrs", w->s, w->P, w->M, &w->nglobal); /* a batch's instance */
    if (rc) return rc;
    w->shadow = 1;
    w->diag = ovk__ctx_pc_diagonal(c);
    w->last_restart = -1;
    w->rr_loc = w->xx_loc = 0.0;
    rc = restart(c, w); /* r = b - A x0 from the frame, its norm checked */
    if (rc) return rc;
    for (int iter = 1; iter <= c->opts->max_iter;) {
        int next = 0, stop = 0;
        rc = step(c, w, k, iter, checked, bb, &next, &stop);
        if (rc || stop) return rc;
        checked = !next; /* a restart comes from a checked residual */
        k = next ? (k + 1) % (w->s + 1) : 0;
        due = next && (due || replacement_due(c, iter)); /* a restart replaced r already */
        if (due && k == 0 && iter < c->opts->max_iter) { /* at a cycle's end: f all used */
            due = 0;
            rc = true_residual(c, w); /* its norm checked by the next step */
            if (!rc) rc = images(c, w);
            if (rc) return rc;
            c->res->replacements++;
        }
        iter += next;
    }
    return ovk__idr_limit(c, bb, w->r, checked);
}

/* ---- options, vectors, set-up ------------------------------------------------------ */

static int pidrs_parse(ovk__opts *o, void **params)
{
    pidrs_params *p = calloc(1, sizeof *p);
    *params = p;
    if (!p) return ovk__fail(OVK_ENOMEM, "pipeidrs");
    return ovk__idr_parse_s(o, "pipeidrs", &p->s);
}

/* r, r^, r~, t^, t~, then P, G, U, G^, G~ (s each) */
static int pidrs_vectors(const void *params, size_t *vec)
{
    int s = (int)((const pidrs_params *)params)->s, k = 0;
    if (!vec) return 5 + 5 * s;
    vec[k++] = offsetof(pidrs_work, r);
    vec[k++] = offsetof(pidrs_work, rh);
    vec[k++] = offsetof(pidrs_work, rt);
    vec[k++] = offsetof(pidrs_work, th);
    vec[k++] = offsetof(pidrs_work, tt);
    for (int j = 0; j < s; j++) {
        size_t off = sizeof(double *) * (size_t)j;
        vec[k++] = offsetof(pidrs_work, P) + off;
        vec[k++] = offsetof(pidrs_work, G) + off;
        vec[k++] = offsetof(pidrs_work, U) + off;
        vec[k++] = offsetof(pidrs_work, Gh) + off;
        vec[k++] = offsetof(pidrs_work, Gt) + off;
    }
    return k;
}

/* local: the small arrays (M, f, c, alpha, the sums) */
static int pidrs_setup(ovk__ctx *c, void *work)
{
    pidrs_work *w = work;
    int s = (int)((const pidrs_params *)c->params)->s;
    w->s = s;
    return ovk__idr_small_arrays("pipeidrs", s, &w->M, &w->f, &w->cf, &w->al, &w->vals);
}

/* collective: the shadow space, and s checked against the rows */
static int pidrs_after_setup(ovk__ctx *c, void *work)
{
    pidrs_work *w = work;
    if (w->shadow) return OVK_OK; /* the same on every rank: a fresh instance has none */
    int rc = ovk__idr_shadow(c, "pipeidrs", w->s, w->P, w->M, &w->nglobal);
    w->shadow = rc == OVK_OK;
    return rc;
}

static void pidrs_destroy(void *work)
{
    pidrs_work *w = work;
    free(w->M);
    w->M = NULL;
}

static void pidrs_view(const void *work, FILE *f)
{
    const pidrs_work *w = work;
    fprintf(f, "  pipeidrs: s = %d (pipelined biorthogonal IDR(s), %d steps a cycle), shadow space of %d "
               "orthonormal random vectors; one reduction per step (%d values, the omega step's %d) in flight "
               "behind the step's preconditioner application and product\n",
            w->s, w->s + 1, w->s, w->s + 3, 2 * w->s + 4);
}

const ovk__solver ovk__solver_pipeidrs = {
    .name = "pipeidrs",
    .description = "pipelined IDR(s): idrs's iterates, right-preconditioned, any matrix, one reduction per step in "
                   "flight behind the step's preconditioner application and matvec",
    .options = "s=1..64: the shadow space's dimension (4); a step is one product and one reduction",
    .nonsymmetric = 1,
    .work_size = sizeof(pidrs_work), .vectors = pidrs_vectors,
    .parse = pidrs_parse, .setup = pidrs_setup, .after_setup = pidrs_after_setup, .destroy = pidrs_destroy,
    .view = pidrs_view,
    .iterate = iterate,
};

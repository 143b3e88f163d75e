/* IDR(s) (Sonneveld and van Gijzen, SISC 31, 2008) in the biorthogonal
 * form of van Gijzen and Sonneveld (ACM TOMS 38, 2011, Algorithm 913),
 * right-preconditioned: U holds C-preconditioned directions and G = A U, so
 * x += beta u goes with r -= beta g and the residual it monitors is
 * b - A x itself.  P is the shadow space (s orthonormal random vectors,
 * the same rows on any partition), M = P^T G (lower triangular, kept
 * across cycles), f = P^T r.  A cycle is s + 1 steps, each one product,
 * one preconditioner application and ONE reduction:
 *
 *   inner step k = 0..s-1:
 *     solve M(k:,k:) c = f(k:);  v = r - G(:,k:) c;  z = C v
 *     u_k = omega z + U(:,k:) c;  g_k = A u_k
 *     m = P^T g_k, <g_k,g_k>, <r,r>                  (reduction: s + 2)
 *     alpha: M(:k,:k) alpha = m(:k) (forward), g_k -= G(:,:k) alpha,
 *     u_k -= U(:,:k) alpha;  M(k:,k) = m(k:) - M(k:,:k) alpha
 *     beta = f_k / M(k,k);  r -= beta g_k;  x += beta u_k
 *     f(k+1:) -= beta M(k+1:,k)
 *   the omega step:
 *     z = C r;  t = A z
 *     P^T r, P^T t, <t,r>, <t,t>, <r,r>               (reduction: 2s + 3)
 *     omega = <t,r> / <t,t>, raised to kappa ||r|| / ||t|| when
 *     |<t,r>| < kappa ||t|| ||r|| (kappa = 0.7, "maintaining the
 *     convergence", Sleijpen and van der Vorst)
 *     r -= omega t;  x += omega z;  f = P^T r - omega P^T t
 *
 * With a diagonal C (Jacobi) u_k is made in one pass, v and z not formed.
 * The paper's modified Gram-Schmidt biorthogonalisation (k dependent
 * sums) becomes one classical pass on the s sums P^T g_k, and the norm of
 * the residual rides one step late: step j's reduction carries <r,r> of
 * the residual of step j - 1, which is checked there, before step j
 * updates x (a converged x is the checked one; one product more than the
 * steps, which are the iterations).  f needs no reduction of its own but
 * at a (re)start.  A converged recursive residual is confirmed on b - A x,
 * which restarts the cycle from it when it does not meet the tolerance.
 * Breakdowns (M(k,k) negligible beside ||g_k||, <t,t> = 0) restart the
 * cycle from the current x (G = U = 0, M = I, f = P^T r: one reduction);
 * a second one at the same step stops the solve. */
#include <float.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bcgs.h"

enum { MAX_S = OVK__IDR_MAX_S };

typedef struct idrs_params {
    long s;
} idrs_params;

typedef struct idrs_work {
    double *r, *v, *z;
    double *P[MAX_S], *G[MAX_S], *U[MAX_S];
    int s;
    double *M;             /* s x s, M[i + s j] = <p_i, g_j> */
    double *f, *cf, *al;   /* P^T r; the step's c; alpha */
    double *vals;          /* the step's sums: 2 s + 4 */
    double omega;
    double rr_loc;         /* the local <r,r> of the last update */
    double xx_loc;         /* the local <x,x> of the last update: not finite when x grew past 1e154 */
    int shadow;            /* P is set up */
    long long nglobal;
    int last_restart;      /* the step of the latest breakdown restart, or -1 */
} idrs_work;

/* collective: P, and s checked against the rows */
static int shadow_space(ovk__ctx *c, idrs_work *w)
{
    int rc = ovk__idr_shadow(c, "idrs", w->s, w->P, w->M, &w->nglobal); /* M: scratch until the restart */
    if (rc) return rc;
    w->shadow = 1;
    return OVK_OK;
}

/* ---- local kernels ------------------------------------------------------- */

/* with a diagonal C (d): u_k = omega d (r - G(:,k:) c) + U(:,k:) c in one
 * pass (v and z not made) */
static void direction_diag(ovk__ctx *c, idrs_work *w, int k, const double *d)
{
    int n = c->n, s = w->s, every = ovk__chunk_rows(n, &c->hook);
    double mc[MAX_S], z[OVK__IDR_BLOCK];
    for (int j = k; j < s; j++) mc[j] = -w->cf[j];
    ovk__tic t0 = ovk__tic_start(c);
    for (int lo = 0, since = 0; lo < n; lo += OVK__IDR_BLOCK) {
        int m = ovk__chunk_end(lo, OVK__IDR_BLOCK, n) - lo;
        ovk__idr_block_comb(0, m, z, 1.0, w->r + lo, 0, NULL, NULL);
        for (int j = k; j < s; j++) {
            const double *restrict g = w->G[j] + lo;
#pragma omp simd
            for (int i = 0; i < m; i++) z[i] += mc[j] * g[i];
        }
        for (int i = 0; i < m; i++) z[i] *= d[lo + i];
        ovk__idr_block_comb(lo, m, w->U[k], w->omega, z, s - k, w->U + k, w->cf + k);
        since += m;
        if (since >= every || lo + m == n) {
            ovk__poke(&c->hook);
            since = 0;
        }
    }
    ovk__tic_stop(c, OVK_TIMER_AXPY, t0);
}

/* g_k -= G(:,:k) alpha;  u_k -= U(:,:k) alpha;  r -= beta g_k;
 * x += beta u_k;  rr_loc = <r,r>, xx_loc = <x,x>: one pass */
static void inner_update(ovk__ctx *c, idrs_work *w, int k, double beta)
{
    double *restrict r = w->r, *restrict x = c->x, ma[MAX_S];
    int n = c->n, every = ovk__chunk_rows(n, &c->hook);
    double rr = 0.0, xx = 0.0;
    for (int j = 0; j < k; j++) ma[j] = -w->al[j];
    ovk__tic t0 = ovk__tic_start(c);
    for (int lo = 0, since = 0; lo < n; lo += OVK__IDR_BLOCK) {
        int m = ovk__chunk_end(lo, OVK__IDR_BLOCK, n) - lo;
        ovk__idr_block_comb(lo, m, w->G[k], 1.0, w->G[k] + lo, k, w->G, ma);
        ovk__idr_block_comb(lo, m, w->U[k], 1.0, w->U[k] + lo, k, w->U, ma);
        const double *restrict g = w->G[k] + lo, *restrict u = w->U[k] + lo;
        double *restrict rb = r + lo, *restrict xb = x + lo, br = 0.0, bx = 0.0;
#pragma omp simd reduction(+ : br, bx)
        for (int i = 0; i < m; i++) {
            double ri = rb[i] - beta * g[i], xi = xb[i] + beta * u[i];
            rb[i] = ri;
            xb[i] = xi;
            br += ri * ri;
            bx += xi * xi;
        }
        rr += br;
        xx += bx;
        since += m;
        if (since >= every || lo + m == n) {
            ovk__poke(&c->hook);
            since = 0;
        }
    }
    w->rr_loc = rr;
    w->xx_loc = xx;
    ovk__tic_stop(c, OVK_TIMER_AXPY, t0);
}

/* r -= omega t;  x += omega z;  rr_loc = <r,r>, xx_loc = <x,x> */
static void omega_update(ovk__ctx *c, idrs_work *w, const double *t)
{
    double *restrict r = w->r, *restrict x = c->x, om = w->omega, rr = 0.0, xx = 0.0;
    const double *restrict z = w->z;
    ovk__tic t0 = ovk__tic_start(c);
#pragma omp simd reduction(+ : rr, xx)
    for (int i = 0; i < c->n; i++) {
        double ri = r[i] - om * t[i], xi = x[i] + om * z[i];
        r[i] = ri;
        x[i] = xi;
        rr += ri * ri;
        xx += xi * xi;
    }
    w->rr_loc = rr;
    w->xx_loc = xx;
    ovk__tic_stop(c, OVK_TIMER_AXPY, t0);
}

/* ---- the steps ------------------------------------------------------------ */

/* G = U = 0, M = I, omega = 1, f = P^T r (one reduction) */
static int restart(ovk__ctx *c, idrs_work *w)
{
    int s = w->s;
    size_t bytes = sizeof(double) * (size_t)c->n;
    for (int j = 0; j < s && c->n > 0; j++) {
        memset(w->G[j], 0, bytes);
        memset(w->U[j], 0, bytes);
    }
    memset(w->M, 0, sizeof(double) * (size_t)(s * s));
    for (int j = 0; j < s; j++) w->M[j + s * j] = 1.0;
    w->omega = 1.0;
    ovk__idr_shadow_dots(c, w->s, w->P, 1, (const double *[]){w->r}, w->vals); /* P^T r and <r,r>: the latter dropped */
    memcpy(w->f, w->vals, sizeof(double) * (size_t)s);
    return ovk__sum(c, OVK__IPROD, w->f, s);
}

/* inner step k up to its reduction: vals = P^T g_k, <g_k,g_k>, <r,r>,
 * <x,x> (the last two of the previous step's update) */
static int inner_sums(ovk__ctx *c, idrs_work *w, int k)
{
    int s = w->s;
    ovk__idr_solve_c(s, k, w->M, w->f, w->cf); /* M(k:,k:) c = f(k:) */
    const double *d = ovk__ctx_pc_diagonal(c);
    int rc = OVK_OK;
    if (d) {
        direction_diag(c, w, k, d);
    } else {
        double mc[MAX_S];
        for (int j = k; j < s; j++) mc[j] = -w->cf[j];
        ovk__idr_lincomb(c, w->v, 1.0, w->r, s - k, w->G + k, mc + k); /* v = r - G c */
        rc = ovk__ctx_pc(c, w->v, w->z);                     /* z = C v */
        if (rc) return rc;
        ovk__idr_lincomb(c, w->U[k], w->omega, w->z, s - k, w->U + k, w->cf + k); /* u_k = omega z + U c */
    }
    rc = ovk__ctx_matvec(c, w->U[k], w->G[k]);                        /* g_k = A u_k */
    if (rc) return rc;
    ovk__idr_shadow_dots(c, w->s, w->P, 1, (const double *[]){w->G[k]}, w->vals);
    w->vals[s + 1] = w->rr_loc;
    w->vals[s + 2] = w->xx_loc;
    return ovk__sum(c, OVK__IPROD, w->vals, s + 3);
}

/* inner step k after its reduction: biorthogonalise g_k, the new column
 * of M, the updates of r, x and f; *mkk: M(k,k) when negligible (nothing
 * updated), else 0 */
static void inner_finish(ovk__ctx *c, idrs_work *w, int k, int *broke, double *mkk)
{
    int s = w->s;
    double *M = w->M;
    *broke = ovk__idr_column(s, k, M, w->vals, w->al); /* alpha, M(:,k) */
    *mkk = M[k + s * k];
    if (!*broke) inner_update(c, w, k, ovk__idr_beta(s, k, M, w->f));
}

/* the omega step up to its reduction: z = C r;  t = A z (in v);
 * vals = P^T r, P^T t, <t,r>, <t,t>, <r,r>, <x,x> */
static int omega_sums(ovk__ctx *c, idrs_work *w)
{
    int s = w->s, rc = ovk__ctx_pc(c, w->r, w->z);
    if (!rc) rc = ovk__ctx_matvec(c, w->z, w->v);
    if (rc) return rc;
    ovk__idr_shadow_dots(c, w->s, w->P, 2, (const double *[]){w->r, w->v}, w->vals);
    w->vals[2 * s + 2] = w->rr_loc;
    w->vals[2 * s + 3] = w->xx_loc;
    return ovk__sum(c, OVK__IPROD, w->vals, 2 * s + 4);
}

/* the omega step after its reduction; *broke: <t,t> = 0 (A C r = 0) */
static void omega_finish(ovk__ctx *c, idrs_work *w, int *broke)
{
    *broke = ovk__idr_omega_step(w->s, w->vals, &w->omega, w->f);
    if (!*broke) omega_update(c, w, w->v);
}

/* step iter (inner step k < s, or the omega step k = s): its sums, the
 * check of step iter - 1 (checked: its norm was known already), then its
 * updates.  *next: 1 when the step was done, 0 when the cycle restarts
 * from the current x (a replaced residual, a breakdown); *stop: the solve
 * ends. */
static int step(ovk__ctx *c, idrs_work *w, int k, int iter, int checked, double bb, int *next, int *stop)
{
    int s = w->s, replaced = 0, broke = 0, count = k < s ? s + 2 : 2 * s + 3;
    double value = 0.0;
    *next = *stop = 0;
    int rc = k < s ? inner_sums(c, w, k) : omega_sums(c, w);
    if (rc) return rc;
    double rr = w->vals[count - 1];
    if (!checked) {
        rc = ovk__bcgs_check(c, iter - 1, rr, bb, w->r, stop, &replaced);
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
    return restart(c, w);
}

static int iterate(ovk__ctx *c, void *work, double bb)
{
    idrs_work *w = work;
    int rc = OVK_OK, checked = 1, k = 0;
    if (!w->shadow) rc = shadow_space(c, w); /* a system of a batch: its own instance, no after_setup */
    if (rc) return rc;
    w->last_restart = -1;
    w->rr_loc = w->xx_loc = 0.0;
    rc = restart(c, w);
    if (rc) return rc;
    for (int iter = 1; iter <= c->opts->max_iter;) {
        int next = 0, stop = 0;
        rc = step(c, w, k, iter, checked, bb, &next, &stop);
        if (rc || stop) return rc;
        checked = !next; /* a restart comes from a checked residual */
        k = next ? (k + 1) % (w->s + 1) : 0;
        iter += next;
    }
    return ovk__idr_limit(c, bb, w->r, checked);
}

/* ---- options, vectors, set-up ---------------------------------------------- */

static int idrs_parse(ovk__opts *o, void **params)
{
    idrs_params *p = calloc(1, sizeof *p);
    *params = p;
    if (!p) return ovk__fail(OVK_ENOMEM, "idrs");
    return ovk__idr_parse_s(o, "idrs", &p->s);
}

/* r, v, z, then P, G, U (s each) */
static int idrs_vectors(const void *params, size_t *vec)
{
    int s = (int)((const idrs_params *)params)->s, k = 0;
    if (!vec) return 3 + 3 * s;
    vec[k++] = offsetof(idrs_work, r);
    vec[k++] = offsetof(idrs_work, v);
    vec[k++] = offsetof(idrs_work, z);
    for (int j = 0; j < s; j++) {
        vec[k++] = offsetof(idrs_work, P) + sizeof(double *) * (size_t)j;
        vec[k++] = offsetof(idrs_work, G) + sizeof(double *) * (size_t)j;
        vec[k++] = offsetof(idrs_work, U) + sizeof(double *) * (size_t)j;
    }
    return k;
}

/* local: the small arrays (M, f, c, alpha, the sums) */
static int idrs_setup(ovk__ctx *c, void *work)
{
    idrs_work *w = work;
    int s = (int)((const idrs_params *)c->params)->s;
    w->s = s;
    return ovk__idr_small_arrays("idrs", s, &w->M, &w->f, &w->cf, &w->al, &w->vals);
}

/* collective: the shadow space, and s checked against the rows */
static int idrs_after_setup(ovk__ctx *c, void *work)
{
    idrs_work *w = work;
    return w->shadow ? OVK_OK : shadow_space(c, w); /* the same on every rank: a fresh instance has none */
}

static void idrs_destroy(void *work)
{
    idrs_work *w = work;
    free(w->M);
    w->M = NULL;
}

static void idrs_view(const void *work, FILE *f)
{
    const idrs_work *w = work;
    fprintf(f, "  idrs: s = %d (biorthogonal IDR(s), %d steps a cycle), shadow space of %d orthonormal random "
               "vectors; one reduction per step (%d values, the omega step's %d), <r,r> and <x,x> one step late\n",
            w->s, w->s + 1, w->s, w->s + 3, 2 * w->s + 4);
}

const ovk__solver ovk__solver_idrs = {
    .name = "idrs",
    .description = "IDR(s) (biorthogonal, van Gijzen-Sonneveld), right-preconditioned: any matrix, one blocking "
                   "reduction per step, s + 1 steps a cycle",
    .options = "s=1..64: the shadow space's dimension (4); a step is one product and one reduction",
    .nonsymmetric = 1,
    .work_size = sizeof(idrs_work), .vectors = idrs_vectors,
    .parse = idrs_parse, .setup = idrs_setup, .after_setup = idrs_after_setup, .destroy = idrs_destroy,
    .view = idrs_view,
    .iterate = iterate,
};

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

typedef struct idrs_work {
    ovk__idr idr; /* first: what pipeidrs shares */
    double *v, *z;
} idrs_work;

/* ---- local kernels ------------------------------------------------------- */

/* with a diagonal C (d): u_k = omega d (r - G(:,k:) c) + U(:,k:) c in one
 * pass (v and z not made) */
static void direction_diag(ovk__ctx *c, idrs_work *w, int k, const double *d)
{
    int n = c->n, s = w->idr.s, every = ovk__chunk_rows(n, &c->hook);
    double mc[MAX_S], z[OVK__IDR_BLOCK];
    for (int j = k; j < s; j++) mc[j] = -w->idr.cf[j];
    ovk__tic t0 = ovk__tic_start(c);
    for (int lo = 0, since = 0; lo < n; lo += OVK__IDR_BLOCK) {
        int m = ovk__chunk_end(lo, OVK__IDR_BLOCK, n) - lo;
        ovk__idr_block_comb(0, m, z, 1.0, w->idr.r + lo, 0, NULL, NULL);
        for (int j = k; j < s; j++) {
            const double *restrict g = w->idr.G[j] + lo;
#pragma omp simd
            for (int i = 0; i < m; i++) z[i] += mc[j] * g[i];
        }
        for (int i = 0; i < m; i++) z[i] *= d[lo + i];
        ovk__idr_block_comb(lo, m, w->idr.U[k], w->idr.omega, z, s - k, w->idr.U + k, w->idr.cf + k);
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
static void inner_update(ovk__ctx *c, void *work, int k, double beta)
{
    idrs_work *w = work;
    double *restrict r = w->idr.r, *restrict x = c->x, ma[MAX_S];
    int n = c->n, every = ovk__chunk_rows(n, &c->hook);
    double rr = 0.0, xx = 0.0;
    for (int j = 0; j < k; j++) ma[j] = -w->idr.al[j];
    ovk__tic t0 = ovk__tic_start(c);
    for (int lo = 0, since = 0; lo < n; lo += OVK__IDR_BLOCK) {
        int m = ovk__chunk_end(lo, OVK__IDR_BLOCK, n) - lo;
        ovk__idr_block_comb(lo, m, w->idr.G[k], 1.0, w->idr.G[k] + lo, k, w->idr.G, ma);
        ovk__idr_block_comb(lo, m, w->idr.U[k], 1.0, w->idr.U[k] + lo, k, w->idr.U, ma);
        const double *restrict g = w->idr.G[k] + lo, *restrict u = w->idr.U[k] + lo;
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
    w->idr.rr_loc = rr;
    w->idr.xx_loc = xx;
    ovk__tic_stop(c, OVK_TIMER_AXPY, t0);
}

/* r -= omega t;  x += omega z;  rr_loc = <r,r>, xx_loc = <x,x> (t in v) */
static void omega_update(ovk__ctx *c, void *work)
{
    idrs_work *w = work;
    const double *restrict t = w->v;
    double *restrict r = w->idr.r, *restrict x = c->x, om = w->idr.omega, rr = 0.0, xx = 0.0;
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
    w->idr.rr_loc = rr;
    w->idr.xx_loc = xx;
    ovk__tic_stop(c, OVK_TIMER_AXPY, t0);
}

/* ---- the steps ------------------------------------------------------------ */

/* G = U = 0, M = I, omega = 1, f = P^T r (one reduction) */
static int restart(ovk__ctx *c, void *work)
{
    idrs_work *w = work;
    int s = w->idr.s;
    ovk__idr_reset(c, &w->idr);
    ovk__idr_shadow_dots(c, s, w->idr.P, 1, (const double *[]){w->idr.r}, w->idr.vals); /* P^T r and <r,r>: the latter dropped */
    memcpy(w->idr.f, w->idr.vals, sizeof(double) * (size_t)s);
    return ovk__sum(c, OVK__IPROD, w->idr.f, s);
}

/* inner step k up to its reduction: vals = P^T g_k, <g_k,g_k>, <r,r>,
 * <x,x> (the last two of the previous step's update) */
static int inner_sums(ovk__ctx *c, void *work, int k)
{
    idrs_work *w = work;
    int s = w->idr.s;
    ovk__idr_solve_c(s, k, w->idr.M, w->idr.f, w->idr.cf); /* M(k:,k:) c = f(k:) */
    const double *d = ovk__ctx_pc_diagonal(c);
    int rc = OVK_OK;
    if (d) {
        direction_diag(c, w, k, d);
    } else {
        double mc[MAX_S];
        for (int j = k; j < s; j++) mc[j] = -w->idr.cf[j];
        ovk__idr_lincomb(c, w->v, 1.0, w->idr.r, s - k, w->idr.G + k, mc + k); /* v = r - G c */
        rc = ovk__ctx_pc(c, w->v, w->z);                     /* z = C v */
        if (rc) return rc;
        ovk__idr_lincomb(c, w->idr.U[k], w->idr.omega, w->z, s - k, w->idr.U + k, w->idr.cf + k); /* u_k = omega z + U c */
    }
    rc = ovk__ctx_matvec(c, w->idr.U[k], w->idr.G[k]);                        /* g_k = A u_k */
    if (rc) return rc;
    ovk__idr_shadow_dots(c, w->idr.s, w->idr.P, 1, (const double *[]){w->idr.G[k]}, w->idr.vals);
    w->idr.vals[s + 1] = w->idr.rr_loc;
    w->idr.vals[s + 2] = w->idr.xx_loc;
    return ovk__sum(c, OVK__IPROD, w->idr.vals, s + 3);
}

/* the omega step up to its reduction: z = C r;  t = A z (in v);
 * vals = P^T r, P^T t, <t,r>, <t,t>, <r,r>, <x,x> */
static int omega_sums(ovk__ctx *c, void *work)
{
    idrs_work *w = work;
    int s = w->idr.s, rc = ovk__ctx_pc(c, w->idr.r, w->z);
    if (!rc) rc = ovk__ctx_matvec(c, w->z, w->v);
    if (rc) return rc;
    ovk__idr_shadow_dots(c, w->idr.s, w->idr.P, 2, (const double *[]){w->idr.r, w->v}, w->idr.vals);
    w->idr.vals[2 * s + 2] = w->idr.rr_loc;
    w->idr.vals[2 * s + 3] = w->idr.xx_loc;
    return ovk__sum(c, OVK__IPROD, w->idr.vals, 2 * s + 4);
}

static const ovk__idr_ops ops = {
    .inner_sums = inner_sums, .inner_update = inner_update, .omega_sums = omega_sums,
    .omega_update = omega_update, .restart = restart,
};

static int iterate(ovk__ctx *c, void *work, double bb) { return ovk__idr_iterate(c, &ops, work, "idrs", bb); }

/* ---- options, vectors, set-up ---------------------------------------------- */

static int idrs_parse(ovk__opts *o, void **params) { return ovk__idr_parse(o, params, "idrs"); }

/* r, v, z, then P, G, U (s each) */
static int idrs_vectors(const void *params, size_t *vec)
{
    int s = (int)((const ovk__idr_params *)params)->s, k = 0;
    if (!vec) return 3 + 3 * s;
    vec[k++] = offsetof(idrs_work, idr.r);
    vec[k++] = offsetof(idrs_work, v);
    vec[k++] = offsetof(idrs_work, z);
    for (int j = 0; j < s; j++) {
        vec[k++] = offsetof(idrs_work, idr.P) + sizeof(double *) * (size_t)j;
        vec[k++] = offsetof(idrs_work, idr.G) + sizeof(double *) * (size_t)j;
        vec[k++] = offsetof(idrs_work, idr.U) + sizeof(double *) * (size_t)j;
    }
    return k;
}

/* local: the small arrays (M, f, c, alpha, the sums) */
static int idrs_setup(ovk__ctx *c, void *work)
{
    return ovk__idr_setup(work, "idrs", ((const ovk__idr_params *)c->params)->s);
}

/* collective: the shadow space, and s checked against the rows */
static int idrs_after_setup(ovk__ctx *c, void *work) { return ovk__idr_after_setup(c, work, "idrs"); }

static void idrs_destroy(void *work) { ovk__idr_destroy(work); }

static void idrs_view(const void *work, FILE *f)
{
    const idrs_work *w = work;
    fprintf(f, "  idrs: s = %d (biorthogonal IDR(s), %d steps a cycle), shadow space of %d orthonormal random "
               "vectors; one reduction per step (%d values, the omega step's %d), <r,r> and <x,x> one step late\n",
            w->idr.s, w->idr.s + 1, w->idr.s, w->idr.s + 3, 2 * w->idr.s + 4);
}

const ovk__solver_ops ovk__solver_idrs = {
    .caps = OVK__CAP_NONSYMMETRIC,
    .work_size = sizeof(idrs_work), .vectors = idrs_vectors,
    .parse = idrs_parse, .setup = idrs_setup, .after_setup = idrs_after_setup, .destroy = idrs_destroy,
    .view = idrs_view,
    .iterate = iterate,
};

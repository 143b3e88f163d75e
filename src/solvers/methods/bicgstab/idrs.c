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

enum { MAX_S = 64 };
static const double KAPPA = 0.7;

typedef struct idrs_params {
    long s;
} idrs_params;

typedef struct idrs_work {
    double *r, *v, *z;
    double *P[MAX_S], *G[MAX_S], *U[MAX_S];
    int s;
    double *M;             /* s x s, M[i + s j] = <p_i, g_j> */
    double *f, *cf, *al;   /* P^T r; the step's c; alpha */
    double *vals;          /* the step's sums: 2 s + 3 */
    double omega;
    double rr_loc;         /* the local <r,r> of the last update */
    int shadow;            /* P is set up */
    long long nglobal;
    int last_restart;      /* the step of the latest breakdown restart, or -1 */
} idrs_work;

/* ---- the shadow space --------------------------------------------------- */

/* a value in [-1, 1) from global row g and column j (SplitMix64) */
static double shadow_entry(uint64_t g, int j)
{
    uint64_t x = g * (uint64_t)MAX_S + (uint64_t)j + 0x1D8E4E27C47D124Full;
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    x ^= x >> 31;
    return 2.0 * (double)(x >> 11) * (1.0 / 9007199254740992.0) - 1.0;
}

/* collective: one Cholesky QR pass, P = P L^-T with L L^T = P^T P;
 * returns OVK_OK or OVK_EINVAL (the same on every rank: reduced Gram) */
static int cholqr(idrs_work *w, int n, MPI_Comm comm)
{
    int s = w->s;
    double *g = w->M; /* s x s scratch, lower triangle: g[i + s j], j <= i */
    for (int i = 0; i < s; i++)
        for (int j = 0; j <= i; j++) g[i + s * j] = ovk__dot(n, w->P[i], w->P[j]);
    int rc = ovk__mpi(MPI_Allreduce(MPI_IN_PLACE, g, s * s, MPI_DOUBLE, MPI_SUM, comm), "MPI_Allreduce (idrs P)");
    if (rc) return rc;
    for (int j = 0; j < s; j++) { /* Cholesky, in place */
        double d = g[j + s * j];
        for (int k = 0; k < j; k++) d -= g[j + s * k] * g[j + s * k];
        if (!(d > 0.0 && isfinite(d)))
            return ovk__fail(OVK_EINVAL, "solver idrs: the shadow space's %d random vectors are dependent", s);
        g[j + s * j] = sqrt(d);
        for (int i = j + 1; i < s; i++) {
            double e = g[i + s * j];
            for (int k = 0; k < j; k++) e -= g[i + s * k] * g[j + s * k];
            g[i + s * j] = e / g[j + s * j];
        }
    }
    for (int r = 0; r < n; r++) /* each row y = p L^-T, in place */
        for (int j = 0; j < s; j++) {
            double y = w->P[j][r];
            for (int k = 0; k < j; k++) y -= g[j + s * k] * w->P[k][r];
            w->P[j][r] = y / g[j + s * j];
        }
    return OVK_OK;
}

/* collective: the rows' global offset, the check s <= rows, and P (two
 * Cholesky QR passes: orthonormal to rounding) */
static int shadow_space(ovk__ctx *c, idrs_work *w)
{
    long long n = c->n, start = 0, total = 0;
    int rc = ovk__mpi(MPI_Exscan(&n, &start, 1, MPI_LONG_LONG, MPI_SUM, c->comm), "MPI_Exscan (idrs rows)");
    if (rc) return rc;
    rc = ovk__mpi(MPI_Allreduce(&n, &total, 1, MPI_LONG_LONG, MPI_SUM, c->comm), "MPI_Allreduce (idrs rows)");
    if (rc) return rc;
    if (c->rank == 0) start = 0; /* MPI_Exscan leaves rank 0's undefined */
    w->nglobal = total;
    if (w->s > total)
        return ovk__fail(OVK_EOPTION, "solver idrs: option s=%d exceeds the system's %lld rows (the shadow space "
                                      "needs s independent vectors)", w->s, total);
    for (int j = 0; j < w->s; j++)
        for (int i = 0; i < c->n; i++) w->P[j][i] = shadow_entry((uint64_t)(start + i), j);
    rc = cholqr(w, c->n, c->comm);
    if (!rc) rc = cholqr(w, c->n, c->comm);
    if (rc) return rc;
    w->shadow = 1;
    return OVK_OK;
}

/* ---- local kernels ------------------------------------------------------- */

/* the kernels run over blocks of BLOCK rows, each sum of vectors one vector
 * at a time into a block on the stack (vectorised, in cache) */
enum { BLOCK = 512 };

/* rows lo..lo+m of y = a x + sum_j coef[j] X[j], x given from row lo (x
 * and X read before y is written: y may be one of them) */
static void block_comb(int lo, int m, double *y, double a, const double *x, int k, double *const *X, const double *coef)
{
    double b[BLOCK];
    for (int i = 0; i < m; i++) b[i] = a * x[i];
    for (int j = 0; j < k; j++) {
        const double *restrict xj = X[j] + lo;
        double cj = coef[j];
#pragma omp simd
        for (int i = 0; i < m; i++) b[i] += cj * xj[i];
    }
    memcpy(y + lo, b, sizeof(double) * (size_t)m);
}

/* y = a x + sum_j coef[j] X[j] over k vectors (y may be x or one of X) */
static void lincomb(ovk__ctx *c, double *y, double a, const double *x, int k, double *const *X, const double *coef)
{
    int n = c->n, every = ovk__chunk_rows(n, &c->hook);
    ovk__tic t0 = ovk__tic_start(c);
    for (int lo = 0, since = 0; lo < n; lo += BLOCK) {
        int m = ovk__chunk_end(lo, BLOCK, n) - lo;
        block_comb(lo, m, y, a, x + lo, k, X, coef);
        since += m;
        if (since >= every || lo + m == n) {
            ovk__poke(&c->hook);
            since = 0;
        }
    }
    ovk__tic_stop(c, OVK_TIMER_AXPY, t0);
}

/* with a diagonal C (d): u_k = omega d (r - G(:,k:) c) + U(:,k:) c in one
 * pass (v and z not made) */
static void direction_diag(ovk__ctx *c, idrs_work *w, int k, const double *d)
{
    int n = c->n, s = w->s, every = ovk__chunk_rows(n, &c->hook);
    double mc[MAX_S], z[BLOCK];
    for (int j = k; j < s; j++) mc[j] = -w->cf[j];
    ovk__tic t0 = ovk__tic_start(c);
    for (int lo = 0, since = 0; lo < n; lo += BLOCK) {
        int m = ovk__chunk_end(lo, BLOCK, n) - lo;
        block_comb(0, m, z, 1.0, w->r + lo, 0, NULL, NULL);
        for (int j = k; j < s; j++) {
            const double *restrict g = w->G[j] + lo;
#pragma omp simd
            for (int i = 0; i < m; i++) z[i] += mc[j] * g[i];
        }
        for (int i = 0; i < m; i++) z[i] *= d[lo + i];
        block_comb(lo, m, w->U[k], w->omega, z, s - k, w->U + k, w->cf + k);
        since += m;
        if (since >= every || lo + m == n) {
            ovk__poke(&c->hook);
            since = 0;
        }
    }
    ovk__tic_stop(c, OVK_TIMER_AXPY, t0);
}

/* the local sums out[a s + j] = <p_j, Y[a]> (a < ny, j < s), then
 * <Y[0],Y[0]> (ny = 1) or <Y[1],Y[0]>, <Y[1],Y[1]> (ny = 2): each vector
 * read once, block by block */
static void shadow_dots(ovk__ctx *c, idrs_work *w, int ny, const double *const *Y, double *out)
{
    int n = c->n, s = w->s, every = ovk__chunk_rows(n, &c->hook), nout = ny * s + ny;
    ovk__tic t0 = ovk__tic_start(c);
    for (int j = 0; j < nout; j++) out[j] = 0.0;
    for (int lo = 0, since = 0; lo < n; lo += BLOCK) {
        int m = ovk__chunk_end(lo, BLOCK, n) - lo;
        for (int a = 0; a < ny; a++) {
            const double *restrict y = Y[a] + lo;
            for (int j = 0; j < s; j++) {
                const double *restrict p = w->P[j] + lo;
                double d = 0.0;
#pragma omp simd reduction(+ : d)
                for (int i = 0; i < m; i++) d += p[i] * y[i];
                out[a * s + j] += d;
            }
        }
        const double *restrict y0 = Y[0] + lo, *restrict y1 = Y[ny - 1] + lo;
        double d0 = 0.0, d1 = 0.0;
#pragma omp simd reduction(+ : d0, d1)
        for (int i = 0; i < m; i++) {
            d0 += y1[i] * y0[i];
            d1 += y1[i] * y1[i];
        }
        out[ny * s] += d0;
        if (ny == 2) out[ny * s + 1] += d1;
        since += m;
        if (since >= every || lo + m == n) {
            ovk__poke(&c->hook);
            since = 0;
        }
    }
    ovk__tic_stop(c, OVK_TIMER_AXPY, t0);
}

/* g_k -= G(:,:k) alpha;  u_k -= U(:,:k) alpha;  r -= beta g_k;
 * x += beta u_k;  rr_loc = <r,r>: one pass */
static void inner_update(ovk__ctx *c, idrs_work *w, int k, double beta)
{
    double *restrict r = w->r, *restrict x = c->x, ma[MAX_S];
    int n = c->n, every = ovk__chunk_rows(n, &c->hook);
    double rr = 0.0;
    for (int j = 0; j < k; j++) ma[j] = -w->al[j];
    ovk__tic t0 = ovk__tic_start(c);
    for (int lo = 0, since = 0; lo < n; lo += BLOCK) {
        int m = ovk__chunk_end(lo, BLOCK, n) - lo;
        block_comb(lo, m, w->G[k], 1.0, w->G[k] + lo, k, w->G, ma);
        block_comb(lo, m, w->U[k], 1.0, w->U[k] + lo, k, w->U, ma);
        const double *restrict g = w->G[k] + lo, *restrict u = w->U[k] + lo;
        double *restrict rb = r + lo, *restrict xb = x + lo, br = 0.0;
#pragma omp simd reduction(+ : br)
        for (int i = 0; i < m; i++) {
            double ri = rb[i] - beta * g[i];
            rb[i] = ri;
            xb[i] += beta * u[i];
            br += ri * ri;
        }
        rr += br;
        since += m;
        if (since >= every || lo + m == n) {
            ovk__poke(&c->hook);
            since = 0;
        }
    }
    w->rr_loc = rr;
    ovk__tic_stop(c, OVK_TIMER_AXPY, t0);
}

/* r -= omega t;  x += omega z;  rr_loc = <r,r> */
static void omega_update(ovk__ctx *c, idrs_work *w, const double *t)
{
    double *restrict r = w->r, *restrict x = c->x, om = w->omega, rr = 0.0;
    const double *restrict z = w->z;
    ovk__tic t0 = ovk__tic_start(c);
#pragma omp simd reduction(+ : rr)
    for (int i = 0; i < c->n; i++) {
        double ri = r[i] - om * t[i];
        r[i] = ri;
        x[i] += om * z[i];
        rr += ri * ri;
    }
    w->rr_loc = rr;
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
    shadow_dots(c, w, 1, (const double *[]){w->r}, w->vals); /* P^T r and <r,r>: the latter dropped */
    memcpy(w->f, w->vals, sizeof(double) * (size_t)s);
    return ovk__sum(c, OVK__IPROD, w->f, s);
}

/* inner step k up to its reduction: vals = P^T g_k, <g_k,g_k>, <r,r> */
static int inner_sums(ovk__ctx *c, idrs_work *w, int k)
{
    int s = w->s;
    const double *M = w->M;
    for (int i = k; i < s; i++) { /* M(k:,k:) c = f(k:) */
        double e = w->f[i];
        for (int j = k; j < i; j++) e -= M[i + s * j] * w->cf[j];
        w->cf[i] = e / M[i + s * i];
    }
    const double *d = ovk__ctx_pc_diagonal(c);
    int rc = OVK_OK;
    if (d) {
        direction_diag(c, w, k, d);
    } else {
        double mc[MAX_S];
        for (int j = k; j < s; j++) mc[j] = -w->cf[j];
        lincomb(c, w->v, 1.0, w->r, s - k, w->G + k, mc + k); /* v = r - G c */
        rc = ovk__ctx_pc(c, w->v, w->z);                     /* z = C v */
        if (rc) return rc;
        lincomb(c, w->U[k], w->omega, w->z, s - k, w->U + k, w->cf + k); /* u_k = omega z + U c */
    }
    rc = ovk__ctx_matvec(c, w->U[k], w->G[k]);                        /* g_k = A u_k */
    if (rc) return rc;
    shadow_dots(c, w, 1, (const double *[]){w->G[k]}, w->vals);
    w->vals[s + 1] = w->rr_loc;
    return ovk__sum(c, OVK__IPROD, w->vals, s + 2);
}

/* 1 when |d| is negligible beside ||g|| (||p|| = 1), or not finite */
static int negligible(double d, double gg) { return !isfinite(d) || fabs(d) <= DBL_EPSILON * sqrt(gg); }

/* inner step k after its reduction: biorthogonalise g_k, the new column
 * of M, the updates of r, x and f; *mkk: M(k,k) when negligible (nothing
 * updated), else 0 */
static int inner_finish(ovk__ctx *c, idrs_work *w, int k, int *broke, double *mkk)
{
    int s = w->s;
    double *M = w->M, *m = w->vals;
    for (int i = 0; i < k; i++) { /* M(:k,:k) alpha = m(:k) */
        double e = m[i];
        for (int j = 0; j < i; j++) e -= M[i + s * j] * w->al[j];
        w->al[i] = e / M[i + s * i];
    }
    for (int i = 0; i < s; i++) {
        double e = i < k ? 0.0 : m[i];
        for (int j = 0; i >= k && j < k; j++) e -= M[i + s * j] * w->al[j];
        M[i + s * k] = e;
    }
    *mkk = M[k + s * k];
    *broke = negligible(*mkk, m[s]);
    if (*broke) return OVK_OK;
    double beta = w->f[k] / *mkk;
    inner_update(c, w, k, beta);
    for (int i = k + 1; i < s; i++) w->f[i] -= beta * M[i + s * k];
    w->f[k] = 0.0;
    return OVK_OK;
}

/* the omega step up to its reduction: z = C r;  t = A z (in v);
 * vals = P^T r, P^T t, <t,r>, <t,t>, <r,r> */
static int omega_sums(ovk__ctx *c, idrs_work *w)
{
    int s = w->s, rc = ovk__ctx_pc(c, w->r, w->z);
    if (!rc) rc = ovk__ctx_matvec(c, w->z, w->v);
    if (rc) return rc;
    shadow_dots(c, w, 2, (const double *[]){w->r, w->v}, w->vals);
    w->vals[2 * s + 2] = w->rr_loc;
    return ovk__sum(c, OVK__IPROD, w->vals, 2 * s + 3);
}

/* the omega step after its reduction; *broke: <t,t> = 0 (A C r = 0) */
static void omega_finish(ovk__ctx *c, idrs_work *w, int *broke)
{
    int s = w->s;
    double tr = w->vals[2 * s], tt = w->vals[2 * s + 1], rr = w->vals[2 * s + 2];
    *broke = !(tt > 0.0);
    if (*broke) return;
    double nt = sqrt(tt), nr = sqrt(rr), rho = tr / (nt * nr);
    w->omega = tr / tt;
    if (!(fabs(rho) >= KAPPA)) w->omega = (tr < 0.0 ? -KAPPA : KAPPA) * nr / nt; /* omega kappa / |rho| */
    omega_update(c, w, w->v);
    for (int j = 0; j < s; j++) w->f[j] = w->vals[j] - w->omega * w->vals[s + j];
}

/* 1 when a value of the step's sums is not finite (the solve stops at
 * step iter - 1, whose x is kept) */
static int nonfinite(ovk__ctx *c, const idrs_work *w, int count, int iter)
{
    for (int i = 0; i < count; i++)
        if (!isfinite(w->vals[i])) {
            ovk__stop(c, iter - 1, OVK_REASON_NONFINITE, "a sum of the following step", w->vals[i]);
            return 1;
        }
    return 0;
}

/* a breakdown at step iter (what = value): 0 when the caller restarts,
 * 1 when the solve stops (a second one at the same step; status set) */
static int breakdown(ovk__ctx *c, idrs_work *w, int iter, const char *what, double value)
{
    if (w->last_restart == iter) {
        c->res->iterations = iter - 1;
        c->res->reason = OVK_REASON_BREAKDOWN;
        ovk__fail(OVK_EBREAKDOWN, "iteration %d: %s = %g again right after a restart (IDR(%d) breaks down on this "
                                  "system; try gmres, another s or another preconditioner)", iter, what, value, w->s);
        return 1;
    }
    w->last_restart = iter;
    c->res->restarts++;
    return 0;
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
    if (nonfinite(c, w, count, iter)) {
        *stop = 1;
        return OVK_OK;
    }
    if (k < s) rc = inner_finish(c, w, k, &broke, &value);
    else omega_finish(c, w, &broke);
    if (rc) return rc;
    if (!broke) {
        *next = 1;
        return OVK_OK;
    }
    if (breakdown(c, w, iter, k < s ? "M(k,k) = <p_k,g_k>" : "<t,t>", k < s ? value : w->vals[2 * s + 1])) {
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
    w->rr_loc = 0.0;
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
    if (checked) return ovk__bcgs_limit(c, bb, w->r);
    double rr = 0.0; /* the last step's residual */
    int stop = 0, replaced = 0;
    rc = ovk__ctx_dots(c, 1, (const double *[]){w->r}, (const double *[]){w->r}, &rr);
    if (!rc) rc = ovk__bcgs_check(c, c->opts->max_iter, rr, bb, w->r, &stop, &replaced);
    return rc;
}

/* ---- options, vectors, set-up ---------------------------------------------- */

static int idrs_parse(ovk__opts *o, void **params)
{
    idrs_params *p = calloc(1, sizeof *p);
    *params = p;
    if (!p) return ovk__fail(OVK_ENOMEM, "idrs");
    p->s = 4;
    const ovk__opt_entry t[] = {OVK__OPT_INT("s", 1, MAX_S, &p->s)};
    return ovk__opts_read(o, "idrs", t, 1);
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
    w->M = malloc(sizeof(double) * (size_t)(s * s + 5 * s + 4));
    if (!w->M) return ovk__fail(OVK_ENOMEM, "solver idrs: its %d x %d matrix", s, s);
    w->f = w->M + s * s;
    w->cf = w->f + s;
    w->al = w->cf + s;
    w->vals = w->al + s;
    return OVK_OK;
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
               "vectors; one reduction per step (%d values, the omega step's %d), <r,r> one step late\n",
            w->s, w->s + 1, w->s, w->s + 2, 2 * w->s + 3);
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

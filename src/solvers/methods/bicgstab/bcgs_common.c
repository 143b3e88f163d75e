/* The decisions the BiCGStab variants share and the pieces of the IDR(s)
 * variants (bcgs.h): every decision is taken on reduced values, so every
 * rank decides the same. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "bcgs.h"

int ovk__bcgs_tiny(double d, double xx, double yy)
{
    return !isfinite(d) || fabs(d) <= DBL_EPSILON * sqrt(xx * yy);
}

int ovk__bcgs_breakdown(ovk__ctx *c, ovk__bcgs_restarts *rs, int iter, const char *what, double value)
{
    c->res->iterations = iter; /* counted, also when it ends in a restart (no check of its own) */
    if (!isfinite(value)) {
        ovk__stop(c, iter, OVK_REASON_NONFINITE, what, value);
        return 1;
    }
    if (rs->last == iter) {
        c->res->iterations = iter;
        c->res->reason = OVK_REASON_BREAKDOWN;
        ovk__fail(OVK_EBREAKDOWN, "iteration %d: %s = %g again right after a restart (BiCGStab breaks down on this "
                                  "system; try gmres, or another preconditioner)",
                  iter, what, value);
        return 1;
    }
    rs->last = iter;
    c->res->restarts++;
    return 0;
}

/* the true residual at the iteration limit not finite (an operator that
 * gave a NaN there): the solve ends non-finite, x as it is (1), else 0 */
static int limit_nonfinite(ovk__ctx *c)
{
    double rel = c->res->rel_residual;
    if (isfinite(rel)) return 0;
    ovk__stop(c, c->res->iterations, OVK_REASON_NONFINITE, "||b - A x||/||b|| at the iteration limit", rel);
    return 1;
}

int ovk__bcgs_limit(ovk__ctx *c, double bb, double *r)
{
    int ok = 0, rc = ovk__confirm(c, bb, r, &ok);
    if (rc || limit_nonfinite(c)) return rc;
    if (!ok) c->res->reason = OVK_REASON_MAXIT; /* else converged or stagnated, as confirmed */
    return OVK_OK;
}

int ovk__bcgs_nonfinite(ovk__ctx *c, int iter, const double *vals, int count, const char *what)
{
    for (int i = 0; i < count; i++)
        if (!isfinite(vals[i])) {
            ovk__stop(c, iter, OVK_REASON_NONFINITE, what, vals[i]);
            return 1;
        }
    return 0;
}

int ovk__bcgs_check(ovk__ctx *c, int iter, double rr, double bb, double *r, int *stop, int *replaced)
{
    int ok = 1;
    *replaced = 0;
    int rc = ovk__iterate_check(c, iter, rr, bb, stop);
    if (rc) return rc;
    if (*stop) {
        if (c->res->reason != OVK_REASON_CONVERGED) return OVK_OK; /* monitor, divergence, non-finite */
        rc = ovk__confirm(c, bb, r, &ok); /* r = b - A x */
        if (rc || ok) return rc;
        *stop = 0;
        *replaced = 1;
        c->res->replacements++;
    }
    if (iter < c->opts->max_iter) return OVK_OK;
    *stop = 1;
    if (!*replaced) return ovk__bcgs_limit(c, bb, r);
    if (!limit_nonfinite(c)) c->res->reason = OVK_REASON_MAXIT; /* rel_residual is the true residual's already */
    return OVK_OK;
}

/* ---- IDR(s): the shadow space -------------------------------------------- */

/* a value in [-1, 1) from global row g and column j (SplitMix64) */
static double shadow_entry(uint64_t g, int j)
{
    uint64_t x = g * (uint64_t)OVK__IDR_MAX_S + (uint64_t)j + 0x1D8E4E27C47D124Full;
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    x ^= x >> 31;
    return 2.0 * (double)(x >> 11) * (1.0 / 9007199254740992.0) - 1.0;
}

/* collective: one Cholesky QR pass, P = P L^-T with L L^T = P^T P (g: s x s
 * scratch); returns OVK_OK or OVK_EINVAL (the same on every rank: reduced
 * Gram) */
static int cholqr(ovk__ctx *c, const char *name, int s, double *const *P, double *g)
{
    int n = c->n;
    for (int i = 0; i < s; i++) /* the lower triangle: g[i + s j], j <= i */
        for (int j = 0; j <= i; j++) g[i + s * j] = ovk__dot(n, P[i], P[j]);
    int rc = ovk__mpi(MPI_Allreduce(MPI_IN_PLACE, g, s * s, MPI_DOUBLE, MPI_SUM, c->comm), "MPI_Allreduce (idrs P)");
    if (rc) return rc;
    for (int j = 0; j < s; j++) { /* Cholesky, in place */
        double d = g[j + s * j];
        for (int k = 0; k < j; k++) d -= g[j + s * k] * g[j + s * k];
        if (!(d > 0.0 && isfinite(d)))
            return ovk__fail(OVK_EINVAL, "solver %s: the shadow space's %d random vectors are dependent", name, s);
        g[j + s * j] = sqrt(d);
        for (int i = j + 1; i < s; i++) {
            double e = g[i + s * j];
            for (int k = 0; k < j; k++) e -= g[i + s * k] * g[j + s * k];
            g[i + s * j] = e / g[j + s * j];
        }
    }
    for (int r = 0; r < n; r++) /* each row y = p L^-T, in place */
        for (int j = 0; j < s; j++) {
            double y = P[j][r];
            for (int k = 0; k < j; k++) y -= g[j + s * k] * P[k][r];
            P[j][r] = y / g[j + s * j];
        }
    return OVK_OK;
}

int ovk__idr_shadow(ovk__ctx *c, const char *name, int s, double *const *P, double *scratch, long long *nglobal)
{
    long long n = c->n, start = 0, total = 0;
    int rc = ovk__mpi(MPI_Exscan(&n, &start, 1, MPI_LONG_LONG, MPI_SUM, c->comm), "MPI_Exscan (idrs rows)");
    if (rc) return rc;
    rc = ovk__mpi(MPI_Allreduce(&n, &total, 1, MPI_LONG_LONG, MPI_SUM, c->comm), "MPI_Allreduce (idrs rows)");
    if (rc) return rc;
    if (c->rank == 0) start = 0; /* MPI_Exscan leaves rank 0's undefined */
    *nglobal = total;
    if (s > total)
        return ovk__fail(OVK_EOPTION, "solver %s: option s=%d exceeds the system's %lld rows (the shadow space "
                                      "needs s independent vectors)", name, s, total);
    for (int j = 0; j < s; j++)
        for (int i = 0; i < c->n; i++) P[j][i] = shadow_entry((uint64_t)(start + i), j);
    rc = cholqr(c, name, s, P, scratch); /* twice: orthonormal to rounding */
    return rc ? rc : cholqr(c, name, s, P, scratch);
}

/* ---- IDR(s): kernels ------------------------------------------------------- */

void ovk__idr_lincomb(ovk__ctx *c, double *y, double a, const double *x, int k, double *const *X, const double *coef)
{
    int n = c->n, every = ovk__chunk_rows(n, &c->hook);
    ovk__tic t0 = ovk__tic_start(c);
    for (int lo = 0, since = 0; lo < n; lo += OVK__IDR_BLOCK) {
        int m = ovk__chunk_end(lo, OVK__IDR_BLOCK, n) - lo;
        ovk__idr_block_comb(lo, m, y, a, x + lo, k, X, coef);
        ovk__idr_progress(c, m, every, lo + m == n, &since);
    }
    ovk__tic_stop(c, OVK_TIMER_AXPY, t0);
}

void ovk__idr_shadow_dots(ovk__ctx *c, int s, double *const *P, int ny, const double *const *Y, double *out)
{
    int n = c->n, every = ovk__chunk_rows(n, &c->hook), nout = ny * s + ny;
    ovk__tic t0 = ovk__tic_start(c);
    for (int j = 0; j < nout; j++) out[j] = 0.0;
    for (int lo = 0, since = 0; lo < n; lo += OVK__IDR_BLOCK) {
        int m = ovk__chunk_end(lo, OVK__IDR_BLOCK, n) - lo;
        for (int a = 0; a < ny; a++) {
            const double *restrict y = Y[a] + lo;
            for (int j = 0; j < s; j++) {
                const double *restrict p = P[j] + lo;
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
        ovk__idr_progress(c, m, every, lo + m == n, &since);
    }
    ovk__tic_stop(c, OVK_TIMER_AXPY, t0);
}

/* ---- IDR(s): the small systems and the decisions ----------------------------- */

void ovk__idr_solve_c(int s, int k, const double *M, const double *f, double *cf)
{
    for (int i = k; i < s; i++) {
        double e = f[i];
        for (int j = k; j < i; j++) e -= M[i + s * j] * cf[j];
        cf[i] = e / M[i + s * i];
    }
}

int ovk__idr_column(int s, int k, double *M, const double *m, double *al)
{
    for (int i = 0; i < k; i++) { /* M(:k,:k) alpha = m(:k) */
        double e = m[i];
        for (int j = 0; j < i; j++) e -= M[i + s * j] * al[j];
        al[i] = e / M[i + s * i];
    }
    for (int i = 0; i < s; i++) {
        double e = i < k ? 0.0 : m[i];
        for (int j = 0; i >= k && j < k; j++) e -= M[i + s * j] * al[j];
        M[i + s * k] = e;
    }
    double d = M[k + s * k];
    return !isfinite(d) || fabs(d) <= DBL_EPSILON * sqrt(m[s]);
}

double ovk__idr_omega(double tr, double tt, double rr)
{
    static const double KAPPA = 0.7;
    double nt = sqrt(tt), nr = sqrt(rr), rho = tr / (nt * nr), omega = tr / tt;
    if (!(fabs(rho) >= KAPPA)) omega = (tr < 0.0 ? -KAPPA : KAPPA) * nr / nt; /* omega kappa / |rho| */
    return omega;
}

int ovk__idr_nonfinite(ovk__ctx *c, const double *vals, int count, int iter)
{
    for (int i = 0; i < count; i++)
        if (!isfinite(vals[i])) {
            ovk__stop(c, iter - 1, OVK_REASON_NONFINITE, "a sum of the following step", vals[i]);
            return 1;
        }
    return 0;
}

int ovk__idr_unbounded(ovk__ctx *c, double xx, int iter)
{
    if (isfinite(xx)) return 0;
    ovk__stop(c, iter - 1, OVK_REASON_NONFINITE,
              "<x,x> (x grew past 1e154 while the recursive residual stayed finite: A C singular or nearly so, or "
              "the recursive residual drifted from b - A x, which pipeidrs's replace_every > 0 corrects)", xx);
    return 1;
}

int ovk__idr_breakdown(ovk__ctx *c, int *last, int s, int iter, const char *what, double value)
{
    if (*last >= 0 && iter - *last <= s + 1) { /* no whole cycle since the last restart: no progress */
        c->res->iterations = iter - 1;
        c->res->reason = OVK_REASON_BREAKDOWN;
        ovk__fail(OVK_EBREAKDOWN, "iteration %d: %s = %g again within a cycle of the restart at iteration %d (IDR(%d) "
                                  "breaks down on this system; try gmres, another s or another preconditioner)",
                  iter, what, value, *last, s);
        return 1;
    }
    *last = iter;
    c->res->restarts++;
    return 0;
}

int ovk__idr_parse_s(ovk__opts *o, const char *name, long *s)
{
    *s = 4;
    const ovk__opt_entry t[] = {OVK__OPT_INT("s", 1, OVK__IDR_MAX_S, s)};
    return ovk__opts_read(o, name, t, 1);
}

int ovk__idr_limit(ovk__ctx *c, double bb, double *r, int checked)
{
    if (checked) return ovk__bcgs_limit(c, bb, r);
    double rr = 0.0; /* the last step's residual */
    int stop = 0, replaced = 0;
    int rc = ovk__ctx_dots(c, 1, (const double *[]){r}, (const double *[]){r}, &rr);
    if (!rc) rc = ovk__bcgs_check(c, c->opts->max_iter, rr, bb, r, &stop, &replaced);
    return rc;
}

int ovk__idr_small_arrays(const char *name, int s, double **M, double **f, double **cf, double **al, double **vals)
{
    *M = malloc(sizeof(double) * (size_t)(s * s + 5 * s + 4));
    if (!*M) return ovk__fail(OVK_ENOMEM, "solver %s: its %d x %d matrix", name, s, s);
    *f = *M + s * s;
    *cf = *f + s;
    *al = *cf + s;
    *vals = *al + s;
    return OVK_OK;
}

double ovk__idr_beta(int s, int k, const double *M, double *f)
{
    double beta = f[k] / M[k + s * k];
    for (int i = k + 1; i < s; i++) f[i] -= beta * M[i + s * k];
    f[k] = 0.0;
    return beta;
}

int ovk__idr_omega_step(int s, const double *vals, double *omega, double *f)
{
    double tr = vals[2 * s], tt = vals[2 * s + 1], rr = vals[2 * s + 2];
    if (!(tt > 0.0)) return 1;
    *omega = ovk__idr_omega(tr, tt, rr);
    for (int j = 0; j < s; j++) f[j] = vals[j] - *omega * vals[s + j];
    return 0;
}

/* ---- the step idrs and pipeidrs share ----------------------------------------- */

void ovk__idr_reset(ovk__ctx *c, ovk__idr *d)
{
    int s = d->s;
    size_t bytes = sizeof(double) * (size_t)c->n;
    for (int j = 0; j < s && c->n > 0; j++) {
        memset(d->G[j], 0, bytes);
        memset(d->U[j], 0, bytes);
    }
    memset(d->M, 0, sizeof(double) * (size_t)(s * s));
    for (int j = 0; j < s; j++) d->M[j + s * j] = 1.0;
    d->omega = 1.0;
}

/* after the reduction: inner step k biorthogonalises g_k (alpha, the new
 * column of M) and updates r, x, f; the omega step sets omega and f;
 * *broke: M(k,k) negligible (*value) or <t,t> = 0, nothing updated */
static void finish(ovk__ctx *c, const ovk__idr_ops *ops, void *w, int k, int *broke, double *value)
{
    ovk__idr *d = w;
    int s = d->s;
    if (k == s) {
        *broke = ovk__idr_omega_step(s, d->vals, &d->omega, d->f);
        *value = d->vals[2 * s + 1];
        if (!*broke) ops->omega_update(c, w);
        return;
    }
    *broke = ovk__idr_column(s, k, d->M, d->vals, d->al); /* alpha, M(:,k) */
    *value = d->M[k + s * k];
    if (!*broke) ops->inner_update(c, w, k, ovk__idr_beta(s, k, d->M, d->f));
}

int ovk__idr_step(ovk__ctx *c, const ovk__idr_ops *ops, void *w, int k, int iter, int checked, double bb, int *next,
                  int *stop)
{
    ovk__idr *d = w;
    int s = d->s, replaced = 0, broke = 0, count = k < s ? s + 2 : 2 * s + 3;
    double value = 0.0;
    *next = *stop = 0;
    int rc = k < s ? ops->inner_sums(c, w, k) : ops->omega_sums(c, w);
    if (rc) return rc;
    if (!checked) {
        rc = ovk__bcgs_check(c, iter - 1, d->vals[count - 1], bb, d->r, stop, &replaced);
        if (rc || *stop) return rc;
        if (replaced) { /* r = b - A x: its norm from the check */
            d->rr_loc = 0.0;
            return ops->restart(c, w);
        }
    }
    if (ovk__idr_nonfinite(c, d->vals, count, iter) || ovk__idr_unbounded(c, d->vals[count], iter)) {
        *stop = 1;
        return OVK_OK;
    }
    finish(c, ops, w, k, &broke, &value);
    if (!broke) {
        *next = 1;
        return OVK_OK;
    }
    if (ovk__idr_breakdown(c, &d->last_restart, s, iter, k < s ? "M(k,k) = <p_k,g_k>" : "<t,t>", value)) {
        *stop = 1;
        return OVK_OK;
    }
    rc = ops->after_breakdown ? ops->after_breakdown(c, w) : OVK_OK;
    return rc ? rc : ops->restart(c, w);
}

int ovk__idr_iterate(ovk__ctx *c, const ovk__idr_ops *ops, void *w, const char *name, double bb)
{
    ovk__idr *d = w;
    int checked = 1, k = 0;
    int rc = ovk__idr_after_setup(c, d, name); /* a system of a batch: its own instance, no after_setup */
    if (rc) return rc;
    if (ops->begin) ops->begin(c, w);
    d->last_restart = -1;
    d->rr_loc = d->xx_loc = 0.0;
    rc = ops->restart(c, w); /* r = b - A x0 from the frame, its norm checked */
    if (rc) return rc;
    for (int iter = 1; iter <= c->opts->max_iter;) {
        int next = 0, stop = 0;
        rc = ovk__idr_step(c, ops, w, k, iter, checked, bb, &next, &stop);
        if (rc || stop) return rc;
        checked = !next; /* a restart comes from a checked residual */
        k = next ? (k + 1) % (d->s + 1) : 0;
        rc = ops->after_step ? ops->after_step(c, w, iter, next, k) : OVK_OK;
        if (rc) return rc;
        iter += next;
    }
    return ovk__idr_limit(c, bb, d->r, checked);
}

int ovk__idr_parse(ovk__opts *o, void **params, const char *name)
{
    ovk__idr_params *p = calloc(1, sizeof *p);
    *params = p;
    if (!p) return ovk__fail(OVK_ENOMEM, "%s", name);
    return ovk__idr_parse_s(o, name, &p->s);
}

int ovk__idr_setup(ovk__idr *d, const char *name, long s)
{
    d->s = (int)s;
    return ovk__idr_small_arrays(name, d->s, &d->M, &d->f, &d->cf, &d->al, &d->vals);
}

int ovk__idr_after_setup(ovk__ctx *c, ovk__idr *d, const char *name)
{
    if (d->shadow) return OVK_OK; /* the same on every rank: a fresh instance has none */
    int rc = ovk__idr_shadow(c, name, d->s, d->P, d->M, &d->nglobal); /* M: scratch until the restart */
    d->shadow = rc == OVK_OK;
    return rc;
}

void ovk__idr_destroy(ovk__idr *d)
{
    free(d->M);
    d->M = NULL;
}

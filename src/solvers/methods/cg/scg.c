/* s-step CG (Chronopoulos and Gear, J. Comput. Appl. Math. 25, 1989; the
 * Newton basis as in Carson's CA-CG, PhD thesis, UC Berkeley 2015): one
 * reduction per s iterations.  An outer step from the residual r makes the
 * block Y of s vectors of the Krylov space of C A and their products:
 *
 *   y_0 = C r,  y_{j+1} = g_j (C A y_j - theta_j y_j),  AY = A Y
 *
 * (s products, s preconditioner applications: as many as s PCG steps), and
 * in ONE reduction the sums Y^T A Y, (A P')^T Y, Y^T r, P'^T r and <r,r>,
 * P' the previous block of directions.  Then, all in s x s matrices:
 *
 *   B = W'^-1 (A P')^T Y        P = Y - P' B,  A P = A Y - A P' B
 *   W = P^T A P = Y^T A Y - B^T (A P')^T Y   (Cholesky; W' the previous)
 *   a = W^-1 P^T r,  P^T r = Y^T r - B^T P'^T r
 *   x += P a,  r -= A P a
 *
 * In exact arithmetic x after k outer steps minimizes the A-norm error over
 * x_0 + K_ks(C A, C r_0): PCG's iterate ks.  The shifts theta_j are the
 * Chebyshev nodes of [lmin, lmax] in Leja order, g_j = 1 / max(lmax -
 * theta_j, theta_j - lmin), the interval from Ritz values the blocks'
 * own sums give (ritz_interval): a solve without one starts with a block
 * of min(s, FIRST_S) in the monomial basis (theta = 0, g = 1: well
 * conditioned at that size), whose Ritz values set the interval, and every
 * later block of that solve widens it to its own; no reduction of its own.
 * The interval is kept for the later solves of the same values; s = 1
 * takes theta = 0 (the monomial basis: CG).
 *
 * <r,r> arrives in the next outer step's reduction: the check of r comes
 * one block late (s products may be wasted at the end).  The solve's first
 * reduction also carries <b,b> and <r0,r0> (OVK__CAP_DEFERS_INITIAL: no reduction
 * of its own before the first block).  r = b - A x after an update (one
 * product, no reduction: the sums of the next step take it) every time
 * <r,r> has dropped REPLACE below its value at the last replacement, so the
 * recursive residual does not drift from the true one (attainable accuracy
 * as PCG's), and when the last two checks' rate predicts that the next one
 * comes within LIKELY of the tolerance: a check of b - A x that meets it
 * needs no confirmation.  Any other check that meets it is confirmed on
 * b - A x (a product and a blocking reduction).
 *
 * The safeguard: a W that is not numerically positive definite (a Cholesky
 * pivot below PIVOT of its diagonal entry: the basis lost its rank), or
 * STALL iterations without ||r|| halving (the basis's rounding stalls the
 * recurrence: plat362 at 6e-8 for ever with s = 4), halves s for the rest of
 * the solve and restarts the directions from r (counted in res->restarts,
 * said by the view); at s = 1 a W not positive is CG's breakdown. */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "../../solver.h"

enum { MAX_S = 16, DEFAULT_S = 4, FIRST_S = 4, CHUNK = 1024 };
static const double PIVOT = 1e-13;   /* a Cholesky pivot below this of its diagonal: not SPD */
static const double REPLACE = 1e-4;  /* <r,r> dropped this far since the last replacement: replace */
static const double LIKELY = 100.0;  /* the next <r,r> predicted within this of rr_stop: replace */
enum { STALL = 400 };                /* iterations without ||r|| halving: the safeguard halves s */
enum { SUMS = 2 * MAX_S * MAX_S + 2 * MAX_S + 2 };

typedef struct scg_params {
    long s;
} scg_params;

typedef struct scg_work {
    double *r;
    double *Y[MAX_S], *AY[MAX_S], *P[MAX_S], *AP[MAX_S];
    int s, s_cur;
    double lmin, lmax, theta[MAX_S], g[MAX_S];
    int estimated, est_failed;
    unsigned epoch;
    double L[MAX_S * MAX_S], Lp[MAX_S * MAX_S]; /* Cholesky factors of W and W' (lower, column-major) */
    double sums[SUMS];
    int halved_at, halvings;                    /* the last solve's safeguard */
    double halved_pivot;
} scg_work;

/* ---- small dense algebra -------------------------------------------------- */

/* A = L L^T (n x n, lower of L, column-major); 0, or 1 + the column whose
 * pivot is below PIVOT of A's diagonal entry or not finite (*ratio) */
static int cholesky(int n, const double *A, double *L, double *ratio)
{
    memset(L, 0, sizeof(double) * (size_t)n * (size_t)n);
    *ratio = 1.0;
    for (int j = 0; j < n; j++) {
        double d = A[j * n + j];
        for (int k = 0; k < j; k++) d -= L[k * n + j] * L[k * n + j];
        double q = d / A[j * n + j];
        *ratio = fmin(*ratio, q);
        if (!(q > (n > 1 ? PIVOT : 0.0)) || !isfinite(d)) { /* one vector: CG's test, <p,Ap> > 0 */
            *ratio = q;
            return j + 1;
        }
        L[j * n + j] = sqrt(d);
        for (int i = j + 1; i < n; i++) {
            double v = A[j * n + i];
            for (int k = 0; k < j; k++) v -= L[k * n + i] * L[k * n + j];
            L[j * n + i] = v / L[j * n + j];
        }
    }
    return 0;
}

/* x = (L L^T)^-1 x */
static void chol_solve(int n, const double *L, double *x)
{
    for (int i = 0; i < n; i++) {
        double v = x[i];
        for (int k = 0; k < i; k++) v -= L[k * n + i] * x[k];
        x[i] = v / L[i * n + i];
    }
    for (int i = n - 1; i >= 0; i--) {
        double v = x[i];
        for (int k = i + 1; k < n; k++) v -= L[i * n + k] * x[k];
        x[i] = v / L[i * n + i];
    }
}

/* ---- the shifts ------------------------------------------------------------ */

/* Chebyshev nodes of [lmin, lmax] in Leja order (the first the largest,
 * lmin >= 0; each next the farthest in product from those before), and the
 * scales; s = 1: the monomial basis.  The order is taken on the nodes of
 * [-1, 1], so that it does not depend on the interval: the products tie
 * exactly between nodes symmetric about the centre, and logs of the
 * interval's own distances broke those ties by their rounding, differently
 * for an interval scaled by a power of two (the shifts of 2^k A were then
 * not 2^k those of A). */
static void shifts(scg_work *w)
{
    const double pi = 3.14159265358979323846;
    double unit[MAX_S], picked[MAX_S];
    int used[MAX_S] = {0}, s = w->s;
    for (int i = 0; i < s; i++) unit[i] = cos(pi * (2 * i + 1) / (2.0 * s)); /* decreasing: unit[0] the largest */
    for (int n = 0; n < s; n++) {
        int best = -1;
        double gap = -INFINITY;
        for (int i = 0; i < s; i++) {
            if (used[i]) continue;
            double v = 0.0;
            for (int k = 0; k < n; k++) v += log(fabs(unit[i] - picked[k]));
            if (best < 0 || v > gap) {
                best = i;
                gap = v;
            }
        }
        used[best] = 1;
        picked[n] = unit[best];
        w->theta[n] = s == 1 ? 0.0 : 0.5 * (w->lmax + w->lmin) + 0.5 * (w->lmax - w->lmin) * unit[best];
    }
    for (int i = 0; i < s; i++) {
        double span = fmax(fabs(w->lmax - w->theta[i]), fabs(w->theta[i] - w->lmin));
        w->g[i] = span > 0.0 && isfinite(span) ? 1.0 / span : 1.0;
    }
}

/* ---- local kernels ---------------------------------------------------------- */

/* out[k] = <X[k], Z[k]>, k < K, over the rows in chunks that stay in cache
 * (timed as axpy, the progress hook poked) */
static void pair_dots(ovk__ctx *c, int K, const double *const *X, const double *const *Z, double *out)
{
    ovk__tic t0 = ovk__tic_start(c);
    int n = c->n, every = ovk__chunk_rows(n, &c->hook), step = every < CHUNK ? every : CHUNK;
    for (int k = 0; k < K; k++) out[k] = 0.0;
    for (int lo = 0, since = 0; lo < n; lo += step) {
        int hi = ovk__chunk_end(lo, step, n);
        for (int k = 0; k < K; k++) {
            const double *restrict x = X[k], *restrict z = Z[k];
            double a = 0.0;
#pragma omp simd reduction(+ : a)
            for (int i = lo; i < hi; i++) a += x[i] * z[i];
            out[k] += a;
        }
        since += hi - lo;
        if (since >= every || hi == n) {
            ovk__poke(&c->hook);
            since = 0;
        }
    }
    ovk__tic_stop(c, OVK_TIMER_AXPY, t0);
}

/* Y_j -= P' B_j, AY_j -= AP' B_j (Y, AY become P, AP), then x += P a,
 * r -= AP a: one pass over the rows in chunks */
OVK__CLONES static void update_rows(int b, int sp, double *const *Y, double *const *AY, double *const *P,
                                    double *const *AP, const double *B, const double *a, double *restrict x,
                                    double *restrict r, int lo, int hi)
{
    for (int j = 0; j < b; j++) {
        double *restrict y = Y[j], *restrict ay = AY[j];
        for (int i = 0; i < sp; i++) {
            const double *restrict p = P[i], *restrict ap = AP[i];
            double f = B[j * sp + i];
#pragma omp simd
            for (int k = lo; k < hi; k++) {
                y[k] -= f * p[k];
                ay[k] -= f * ap[k];
            }
        }
        double aj = a[j];
#pragma omp simd
        for (int k = lo; k < hi; k++) {
            x[k] += aj * y[k];
            r[k] -= aj * ay[k];
        }
    }
}

static void update(ovk__ctx *c, scg_work *w, int b, int sp, const double *B, const double *a)
{
    ovk__tic t0 = ovk__tic_start(c);
    int n = c->n, every = ovk__chunk_rows(n, &c->hook), step = every < CHUNK ? every : CHUNK;
    for (int lo = 0, since = 0; lo < n; lo += step) {
        int hi = ovk__chunk_end(lo, step, n);
        update_rows(b, sp, w->Y, w->AY, w->P, w->AP, B, a, c->x, w->r, lo, hi);
        since += hi - lo;
        if (since >= every || hi == n) {
            ovk__poke(&c->hook);
            since = 0;
        }
    }
    ovk__tic_stop(c, OVK_TIMER_AXPY, t0);
}

/* ---- the check --------------------------------------------------------------- */

/* the check of r at iteration iter (rr = <r,r>): a convergence is confirmed
 * on b - A x, by rr itself when r is b - A x (fresh), else by a product and
 * a reduction (r then holds it, *replaced: it did not meet the tolerance) */
static int check(ovk__ctx *c, scg_work *w, int iter, double rr, double bb, int fresh, int *stop, int *replaced)
{
    int ok = 1;
    *replaced = 0;
    int rc = ovk__iterate_check(c, iter, rr, bb, stop);
    if (rc || !*stop || c->res->reason != OVK_REASON_CONVERGED) return rc;
    rc = fresh ? ovk__confirm_value(c, bb, rr, &ok) : ovk__confirm(c, bb, w->r, &ok);
    if (rc || ok) return rc;
    *stop = 0;
    if (fresh) return OVK_OK; /* the convergence test's vote on b - A x */
    *replaced = 1;
    c->res->replacements++;
    return OVK_OK;
}

/* ---- the shifts' interval from the blocks' own sums ---------------------- */

/* The Ritz values of C A on the span of a block Y (a Krylov space of C A
 * from y_0 = C r) from the sums the block reduces anyway: H = Y^T A Y, and
 * M = Y^T C^-1 Y by the recurrence of the basis, C^-1 y_0 = r and C^-1
 * y_{j+1} = g_j (A y_j - theta_j C^-1 y_j):
 *   M_i0 = <y_i, r>,  M_i,j+1 = g_j (H_ij - theta_j M_ij).
 * The pencil (H, M) by M = L L^T (a column whose pivot falls below
 * RITZ_PIVOT of its diagonal is left out: the basis is numerically
 * dependent there), then the extreme eigenvalues of L^-1 H L^-T.  -1 when
 * no column is left or a value is not finite. */
static int ritz_interval(scg_work *w, int b, const double *yay, const double *yr, double *lo, double *hi)
{
    const double RITZ_PIVOT = 1e-10;
    double H[MAX_S][MAX_S], M[MAX_S][MAX_S], L[MAX_S][MAX_S] = {{0}}, X[MAX_S][MAX_S], T[MAX_S * MAX_S];
    int idx[MAX_S], k = 0;
    for (int j = 0, at = 0; j < b; j++)
        for (int i = 0; i <= j; i++, at++) H[i][j] = H[j][i] = yay[at];
    for (int i = 0; i < b; i++) M[i][0] = yr[i];
    for (int j = 0; j + 1 < b; j++)
        for (int i = 0; i < b; i++) M[i][j + 1] = w->g[j] * (H[i][j] - w->theta[j] * M[i][j]);
    for (int i = 0; i < b; i++) /* symmetric in exact arithmetic */
        for (int j = 0; j < i; j++) M[i][j] = M[j][i] = 0.5 * (M[i][j] + M[j][i]);
    for (int j = 0; j < b; j++) { /* M restricted to idx[0..k) = L L^T */
        double col[MAX_S], d = M[j][j];
        if (!(d > 0.0) || !isfinite(d)) continue;
        for (int p = 0; p < k; p++) {
            double v = M[idx[p]][j];
            for (int q = 0; q < p; q++) v -= L[p][q] * col[q];
            col[p] = v / L[p][p];
            d -= col[p] * col[p];
        }
        if (!(d > RITZ_PIVOT * M[j][j])) continue;
        for (int p = 0; p < k; p++) L[k][p] = col[p];
        L[k][k] = sqrt(d);
        idx[k++] = j;
    }
    if (k == 0) return -1;
    for (int q = 0; q < k; q++) /* X = L^-1 H(idx, idx) */
        for (int p = 0; p < k; p++) {
            double v = H[idx[p]][idx[q]];
            for (int t = 0; t < p; t++) v -= L[p][t] * X[t][q];
            X[p][q] = v / L[p][p];
        }
    for (int q = 0; q < k; q++) /* T = L^-1 X^T = L^-1 H L^-T (symmetric) */
        for (int p = 0; p < k; p++) {
            double v = X[q][p];
            for (int t = 0; t < p; t++) v -= L[p][t] * T[t + q * k];
            T[p + q * k] = v / L[p][p];
        }
    for (int q = 0; q < k; q++)
        for (int p = 0; p < q; p++) T[q + p * k] = T[p + q * k];
    double neg[MAX_S * MAX_S];
    for (int i = 0; i < k * k; i++) neg[i] = -T[i];
    *hi = ovk__sym_eig_max(k, T);
    *lo = -ovk__sym_eig_max(k, neg);
    return isfinite(*hi) && isfinite(*lo) && *lo <= *hi ? 0 : -1;
}

/* the interval after a block's sums: the first block's Ritz values set it,
 * each later block of the same solve widens it to its own (Ritz values lie
 * inside C A's spectrum); a value not positive or not finite is left out */
static void refine(scg_work *w, int b, int sp, int first)
{
    double lo = 0.0, hi = 0.0;
    int bad = ritz_interval(w, b, w->sums, w->sums + b * (b + 1) / 2 + sp * b, &lo, &hi) != 0 || !(hi > 0.0);
    if (bad) {
        if (first) w->est_failed = 1, w->lmin = 0.0, w->lmax = 1.0;
        else return;
    } else if (first || w->est_failed) {
        w->est_failed = 0;
        w->lmin = fmax(lo, 0.0);
        w->lmax = hi;
    } else {
        w->lmin = fmin(w->lmin, fmax(lo, 0.0));
        w->lmax = fmax(w->lmax, hi);
    }
    shifts(w);
}

/* ---- the s-step loop ---------------------------------------------------------- */

/* Y from y_0 = C r, AY = A Y: b products, b preconditioner applications */
static int basis(ovk__ctx *c, scg_work *w, int b)
{
    int rc = ovk__ctx_pc(c, w->r, w->Y[0]);
    for (int j = 0; j < b && !rc; j++) {
        rc = ovk__ctx_matvec(c, w->Y[j], w->AY[j]);
        if (rc || j + 1 == b) break;
        rc = ovk__ctx_pc(c, w->AY[j], w->Y[j + 1]); /* C A y_j */
        if (rc) break;
        ovk__tic t0 = ovk__tic_start(c);
        double *y = w->Y[j + 1], *yp = w->Y[j], g = w->g[j], th = w->theta[j];
#pragma omp simd
        for (int i = 0; i < c->n; i++) y[i] = g * (y[i] - th * yp[i]);
        ovk__tic_stop(c, OVK_TIMER_AXPY, t0);
    }
    return rc;
}

/* the sums of an outer step in one reduction: <y_i, A y_j> (i <= j),
 * <A p'_i, y_j>, <y_j, r>, <p'_i, r>, <r,r> */
static int block_sums(ovk__ctx *c, scg_work *w, int b, int sp)
{
    const double *X[SUMS], *Z[SUMS];
    int K = 0;
    for (int j = 0; j < b; j++)
        for (int i = 0; i <= j; i++) X[K] = w->Y[i], Z[K++] = w->AY[j];
    for (int j = 0; j < b; j++)
        for (int i = 0; i < sp; i++) X[K] = w->AP[i], Z[K++] = w->Y[j];
    for (int j = 0; j < b; j++) X[K] = w->Y[j], Z[K++] = w->r;
    for (int i = 0; i < sp; i++) X[K] = w->P[i], Z[K++] = w->r;
    X[K] = w->r, Z[K++] = w->r;
    if (c->watch.initial_pending) X[K] = c->b, Z[K++] = c->b; /* the solve's first reduction */
    pair_dots(c, K, X, Z, w->sums);
    return ovk__sum(c, OVK__IPROD, w->sums, K);
}

/* B, W (Cholesky into w->L), a from the reduced sums; *broke (the pivot
 * ratio in *ratio) when W is not numerically SPD */
static void coefficients(scg_work *w, int b, int sp, double *B, double *a, int *broke, double *ratio)
{
    const double *yay = w->sums, *pay = yay + b * (b + 1) / 2, *yr = pay + sp * b, *pr = yr + b;
    double W[MAX_S * MAX_S];
    for (int j = 0; j < b; j++) { /* B_j = W'^-1 (A P')^T y_j */
        memcpy(B + j * sp, pay + j * sp, sizeof(double) * (size_t)sp);
        if (sp) chol_solve(sp, w->Lp, B + j * sp);
    }
    for (int j = 0, at = 0; j < b; j++)
        for (int i = 0; i <= j; i++, at++) { /* W = Y^T A Y - B^T (A P')^T Y */
            double v = yay[at];
            for (int k = 0; k < sp; k++) v -= B[i * sp + k] * pay[j * sp + k];
            W[j * b + i] = W[i * b + j] = v;
        }
    *broke = cholesky(b, W, w->L, ratio) != 0;
    if (*broke) return;
    for (int j = 0; j < b; j++) { /* P^T r = Y^T r - B^T P'^T r */
        double v = yr[j];
        for (int k = 0; k < sp; k++) v -= B[j * sp + k] * pr[k];
        a[j] = v;
    }
    chol_solve(b, w->L, a);
}

static void swap_blocks(scg_work *w)
{
    for (int j = 0; j < MAX_S; j++) {
        double *t = w->P[j];
        w->P[j] = w->Y[j];
        w->Y[j] = t;
        t = w->AP[j];
        w->AP[j] = w->AY[j];
        w->AY[j] = t;
    }
    memcpy(w->Lp, w->L, sizeof w->L);
}

/* the safeguard: s halves for the rest of the solve, the directions restart */
static int halve(ovk__ctx *c, scg_work *w, int iter, int b, double ratio, int *stop)
{
    if (b == 1) { /* CG's own breakdown: <p,Ap> not positive */
        ovk__stop(c, iter, OVK_REASON_BREAKDOWN, "<p,Ap> over <y,Ay> of the s-step block", ratio);
        *stop = 1;
        return OVK_OK;
    }
    w->s_cur = b / 2;
    w->halved_at = iter;
    w->halved_pivot = ratio;
    w->halvings++;
    c->res->restarts++;
    return OVK_OK;
}

/* A sum of the block not finite (a NaN or Inf from the operator or the
 * preconditioner, a failed callback's NaN): the solve stops on it, not on
 * a breakdown the halvings would blame on W */
static int nonfinite_sums(ovk__ctx *c, scg_work *w, int iter, int at)
{
    for (int k = 0; k <= at; k++)
        if (!isfinite(w->sums[k])) {
            ovk__stop(c, iter, OVK_REASON_NONFINITE,
                      "a sum of the s-step block (Y^T A Y, (A P)^T Y, Y^T r, <r,r>: a NaN or Inf from the operator "
                      "or the preconditioner callback, or from A's or C's values)",
                      w->sums[k]);
            return 1;
        }
    return 0;
}

static int run(ovk__ctx *c, scg_work *w, double bb)
{
    int iter = 0, stop = 0, rc = OVK_OK, sp = 0, checked = 0, best_at = 0, fresh = 1; /* fresh: r is b - A x */
    double rr_repl = -1.0, best = 0.0, rr_prev = 0.0, B[MAX_S * MAX_S], a[MAX_S];
    w->s_cur = w->s;
    w->halved_at = -1;
    w->halvings = 0;
    if (c->opts->max_iter <= 0) {
        c->res->reason = OVK_REASON_MAXIT;
        return OVK_OK;
    }
    int startup = !w->estimated, first = w->s < FIRST_S ? w->s : FIRST_S; /* the first block: monomial */
    if (startup)
        for (int j = 0; j < MAX_S; j++) w->theta[j] = 0.0, w->g[j] = 1.0;
    for (;;) {
        int want = startup && !w->estimated ? first : w->s_cur, replaced = 0, broke = 0;
        int b = c->opts->max_iter - iter < want ? c->opts->max_iter - iter : want;
        double ratio = 1.0;
        rc = b > 0 ? basis(c, w, b) : OVK_OK;
        if (!rc) rc = block_sums(c, w, b, b > 0 ? sp : 0);
        if (rc) return rc;
        int spe = b > 0 ? sp : 0, at = b * (b + 1) / 2 + spe * b + b + spe, decided = 0;
        if (nonfinite_sums(c, w, iter, at)) return OVK_OK; /* x stays the last block's */
        double rr = w->sums[at]; /* <r,r>, after the block's sums (<b,b> next while pending) */
        if (c->watch.initial_pending) rc = ovk__initial_values(c, (double[]){w->sums[at + 1], rr}, &bb, &decided);
        if (rc || decided) return rc;
        if (rr_repl < 0.0) rr_repl = best = c->watch.rnorm0 * c->watch.rnorm0;
        if (iter > checked) {
            checked = iter;
            rc = check(c, w, iter, rr, bb, fresh, &stop, &replaced);
            if (rc || stop) return rc;
            if (replaced) { /* r = b - A x: the block from it */
                fresh = 1;
                continue;
            }
        }
        if (b == 0) {
            c->res->reason = OVK_REASON_MAXIT;
            return OVK_OK;
        }
        if (rr < 0.25 * best) best = rr, best_at = iter;
        int stalled = iter - best_at > STALL && b > 1; /* the basis's rounding stalls the recurrence */
        if (!stalled) coefficients(w, b, sp, B, a, &broke, &ratio);
        if (stalled) best_at = iter, ratio = NAN, broke = 1;
        int monomial = startup && !w->estimated;
        if (startup && (b > 1 || w->s == 1)) { /* the solve that estimates: its blocks' Ritz values */
            refine(w, b, sp, monomial);
            w->estimated = 1;
            w->epoch = c->norms.epoch;
        }
        if (broke && monomial && b > 1) continue; /* its rank lost: again in the Newton basis of its Ritz values */
        if (broke) {
            rc = halve(c, w, iter, b, ratio, &stop);
            if (rc || stop) return rc;
            sp = 0; /* the directions restart from r (kept, a stalled recurrence stayed stalled: plat362) */
            continue;
        }
        update(c, w, b, sp, B, a);
        iter += b;
        swap_blocks(w);
        sp = b;
        /* the next check's <r,r> at this block's rate of decrease */
        int likely = rr_prev > 0.0 && rr < rr_prev && rr * (rr / rr_prev) < LIKELY * c->watch.rr_stop;
        rr_prev = rr;
        fresh = rr < REPLACE * rr_repl || likely;
        if (fresh) { /* r = b - A x: the next sums take it */
            rc = ovk__ctx_residual(c, w->r);
            if (rc) return rc;
            rr_repl = rr;
            c->res->replacements++;
        }
    }
}

static int scg_iterate(ovk__ctx *c, void *work, double bb)
{
    scg_work *w = work;
    if (w->estimated && w->epoch != c->norms.epoch) w->estimated = 0; /* new values: estimate again */
    return run(c, w, bb);
}

/* ---- options, vectors, set-up -------------------------------------------------- */

static int scg_parse(ovk__opts *o, void **params)
{
    scg_params *p = calloc(1, sizeof *p);
    *params = p;
    if (!p) return ovk__fail(OVK_ENOMEM, "scg's options");
    p->s = DEFAULT_S;
    const ovk__opt_entry t[] = {OVK__OPT_INT("s", 1, MAX_S, &p->s)};
    return ovk__opts_read(o, "scg", t, 1);
}

/* r, Y, AY, P, AP (s each) */
static int scg_vectors(const void *params, size_t *vec)
{
    int s = (int)((const scg_params *)params)->s, k = 0;
    if (!vec) return 1 + 4 * s;
    vec[k++] = offsetof(scg_work, r);
    for (int j = 0; j < s; j++) {
        vec[k++] = offsetof(scg_work, Y) + sizeof(double *) * (size_t)j;
        vec[k++] = offsetof(scg_work, AY) + sizeof(double *) * (size_t)j;
        vec[k++] = offsetof(scg_work, P) + sizeof(double *) * (size_t)j;
        vec[k++] = offsetof(scg_work, AP) + sizeof(double *) * (size_t)j;
    }
    return k;
}

static int scg_setup(ovk__ctx *c, void *work)
{
    scg_work *w = work;
    w->s = w->s_cur = (int)((const scg_params *)c->params)->s;
    w->halved_at = -1;
    return OVK_OK;
}

static void scg_view(const void *work, FILE *f)
{
    const scg_work *w = work;
    fprintf(f, "  scg: s = %d (one reduction per %d iterations), ", w->s, w->s);
    if (!w->estimated)
        fprintf(f, "the next solve's first block of %d in the monomial basis, its Ritz values the shifts of the next\n",
                w->s < FIRST_S ? w->s : FIRST_S);
    else if (w->s == 1) fprintf(f, "monomial basis (CG)\n");
    else if (w->est_failed) fprintf(f, "the spectrum estimate failed: shifts on [0, 1]\n");
    else
        fprintf(f, "Newton basis, Leja-ordered Chebyshev shifts on [%.6g, %.6g] (the Ritz values of the first solve's blocks)\n",
                w->lmin, w->lmax);
    if (w->halvings)
        fprintf(f, "  safeguard (%d times in the last solve): at iteration %d the block's P^T A P was not numerically "
                   "positive definite (pivot ratio %.3e; nan: the residual had not halved in %d iterations): s "
                   "halved to %d, the directions restarted\n",
                w->halvings, w->halved_at, w->halved_pivot, (int)STALL, w->s_cur);
}

const ovk__solver_ops ovk__solver_scg = {
    .work_size = sizeof(scg_work), .vectors = scg_vectors,
    .parse = scg_parse, .setup = scg_setup, .view = scg_view, .iterate = scg_iterate,
    .caps = OVK__CAP_DEFERS_INITIAL,
};

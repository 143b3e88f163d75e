/* Local vector kernels used by the solvers.  Each runs in chunks of
 * hook->every rows and calls the progress hook after each chunk, so that
 * reductions in flight progress while the kernel streams through memory.
 * Fused kernels compute several updates and local dot products in one pass. */
#include "matrix.h"

double ovk__dot(int n, const double *restrict x, const double *restrict y)
{
    double s = 0.0;
    for (int i = 0; i < n; i++) s += x[i] * y[i];
    return s;
}

/* y += a x */
void ovk__axpy(int n, double a, const double *restrict x, double *restrict y, const ovk__hook *h)
{
    int step = ovk__chunk_rows(n, h);
    for (int lo = 0; lo < n; lo += step) {
        int hi = ovk__chunk_end(lo, step, n);
        for (int i = lo; i < hi; i++) y[i] += a * x[i];
        ovk__poke(h);
    }
}

/* y = x + b y */
void ovk__xpay(int n, const double *restrict x, double b, double *restrict y, const ovk__hook *h)
{
    int step = ovk__chunk_rows(n, h);
    for (int lo = 0; lo < n; lo += step) {
        int hi = ovk__chunk_end(lo, step, n);
        for (int i = lo; i < hi; i++) y[i] = x[i] + b * y[i];
        ovk__poke(h);
    }
}

/* z = x + b y */
void ovk__zxpby(int n, const double *restrict x, double b, const double *restrict y, double *restrict z,
                const ovk__hook *h)
{
    int step = ovk__chunk_rows(n, h);
    for (int lo = 0; lo < n; lo += step) {
        int hi = ovk__chunk_end(lo, step, n);
        for (int i = lo; i < hi; i++) z[i] = x[i] + b * y[i];
        ovk__poke(h);
    }
}

/* x += a p; r -= a s (one pass) */
void ovk__axpy2(int n, double a, const double *restrict p, double *restrict x,
                const double *restrict s, double *restrict r, const ovk__hook *h)
{
    int step = ovk__chunk_rows(n, h);
    for (int lo = 0; lo < n; lo += step) {
        int hi = ovk__chunk_end(lo, step, n);
        for (int i = lo; i < hi; i++) {
            x[i] += a * p[i];
            r[i] -= a * s[i];
        }
        ovk__poke(h);
    }
}

/* y = d .* x */
void ovk__mul(int n, const double *restrict d, const double *restrict x, double *restrict y,
              const ovk__hook *h)
{
    int step = ovk__chunk_rows(n, h);
    for (int lo = 0; lo < n; lo += step) {
        int hi = ovk__chunk_end(lo, step, n);
        for (int i = lo; i < hi; i++) y[i] = d[i] * x[i];
        ovk__poke(h);
    }
}

/* y = d .* x; *yy = <y, y> (local) */
void ovk__mul_dot(int n, const double *restrict d, const double *restrict x, double *restrict y,
                  double *yy, const ovk__hook *h)
{
    int step = ovk__chunk_rows(n, h);
    double s = 0.0;
    for (int lo = 0; lo < n; lo += step) {
        int hi = ovk__chunk_end(lo, step, n);
        for (int i = lo; i < hi; i++) {
            y[i] = d[i] * x[i];
            s += y[i] * y[i];
        }
        ovk__poke(h);
    }
    *yy = s;
}

/* y += a x; *yy = <y, y> (local) */
void ovk__axpy_dot(int n, double a, const double *restrict x, double *restrict y, double *yy,
                   const ovk__hook *h)
{
    int step = ovk__chunk_rows(n, h);
    double s = 0.0;
    for (int lo = 0; lo < n; lo += step) {
        int hi = ovk__chunk_end(lo, step, n);
        for (int i = lo; i < hi; i++) {
            y[i] += a * x[i];
            s += y[i] * y[i];
        }
        ovk__poke(h);
    }
    *yy = s;
}

/* <x, y> in LANES interleaved partial sums, which the compiler turns into
 * packed SIMD: one sequential sum is bound by the latency of its additions
 * (3-4 cycles per row, below the memory bandwidth of a core). */
static double dot_lanes(int n, const double *restrict x, const double *restrict y)
{
    enum { LANES = 4 };
    double acc[LANES] = {0.0, 0.0, 0.0, 0.0};
    int i = 0;
    for (; i + LANES <= n; i += LANES)
        for (int l = 0; l < LANES; l++) acc[l] += x[i + l] * y[i + l];
    for (; i < n; i++) acc[0] += x[i] * y[i];
    return (acc[0] + acc[1]) + (acc[2] + acc[3]);
}

/* out[j] = <x[j], y[j]> (local), j < k: the rows are taken in chunks that
 * stay in cache while every pair is summed over them, so memory is read
 * once. */
void ovk__dots(int n, int k, const double *const *x, const double *const *y, double *out,
               const ovk__hook *h)
{
    enum { CACHE_ROWS = 2048 };
    int every = ovk__chunk_rows(n, h), step = every < CACHE_ROWS ? every : CACHE_ROWS;
    for (int j = 0; j < k; j++) out[j] = 0.0;
    for (int lo = 0, since = 0; lo < n; lo += step) {
        int hi = ovk__chunk_end(lo, step, n);
        for (int j = 0; j < k; j++) out[j] += dot_lanes(hi - lo, x[j] + lo, y[j] + lo);
        since += hi - lo;
        if (since >= every || hi == n) {
            ovk__poke(h);
            since = 0;
        }
    }
}

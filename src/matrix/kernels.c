/* Local vector kernels used by the solvers.  Each runs in chunks of
 * hook->every rows and calls the progress hook after each chunk, so that
 * reductions in flight progress while the kernel streams through memory.
 * Fused kernels compute several updates and local dot products in one pass. */
#include "../internal.h"

static int chunk_of(int n, const ovk__hook *h)
{
    if (h && h->fn && h->every > 0) return h->every;
    return n > 0 ? n : 1;
}

static void poke(const ovk__hook *h)
{
    if (h && h->fn) h->fn(h->arg);
}

static int end_of(int lo, int step, int n) { return n - lo > step ? lo + step : n; }

double ovk__dot(int n, const double *restrict x, const double *restrict y)
{
    double s = 0.0;
    for (int i = 0; i < n; i++) s += x[i] * y[i];
    return s;
}

/* y += a x */
void ovk__axpy(int n, double a, const double *restrict x, double *restrict y, const ovk__hook *h)
{
    int step = chunk_of(n, h);
    for (int lo = 0; lo < n; lo += step) {
        int hi = end_of(lo, step, n);
        for (int i = lo; i < hi; i++) y[i] += a * x[i];
        poke(h);
    }
}

/* y = x + b y */
void ovk__xpay(int n, const double *restrict x, double b, double *restrict y, const ovk__hook *h)
{
    int step = chunk_of(n, h);
    for (int lo = 0; lo < n; lo += step) {
        int hi = end_of(lo, step, n);
        for (int i = lo; i < hi; i++) y[i] = x[i] + b * y[i];
        poke(h);
    }
}

/* z = x + b y */
void ovk__zxpby(int n, const double *restrict x, double b, const double *restrict y, double *restrict z,
                const ovk__hook *h)
{
    int step = chunk_of(n, h);
    for (int lo = 0; lo < n; lo += step) {
        int hi = end_of(lo, step, n);
        for (int i = lo; i < hi; i++) z[i] = x[i] + b * y[i];
        poke(h);
    }
}

/* x += a p; r -= a s (one pass) */
void ovk__axpy2(int n, double a, const double *restrict p, double *restrict x,
                const double *restrict s, double *restrict r, const ovk__hook *h)
{
    int step = chunk_of(n, h);
    for (int lo = 0; lo < n; lo += step) {
        int hi = end_of(lo, step, n);
        for (int i = lo; i < hi; i++) {
            x[i] += a * p[i];
            r[i] -= a * s[i];
        }
        poke(h);
    }
}

/* y = d .* x */
void ovk__mul(int n, const double *restrict d, const double *restrict x, double *restrict y,
              const ovk__hook *h)
{
    int step = chunk_of(n, h);
    for (int lo = 0; lo < n; lo += step) {
        int hi = end_of(lo, step, n);
        for (int i = lo; i < hi; i++) y[i] = d[i] * x[i];
        poke(h);
    }
}

/* y = d .* x; *yy = <y, y> (local) */
void ovk__mul_dot(int n, const double *restrict d, const double *restrict x, double *restrict y,
                  double *yy, const ovk__hook *h)
{
    int step = chunk_of(n, h);
    double s = 0.0;
    for (int lo = 0; lo < n; lo += step) {
        int hi = end_of(lo, step, n);
        for (int i = lo; i < hi; i++) {
            y[i] = d[i] * x[i];
            s += y[i] * y[i];
        }
        poke(h);
    }
    *yy = s;
}

/* y += a x; *yy = <y, y> (local) */
void ovk__axpy_dot(int n, double a, const double *restrict x, double *restrict y, double *yy,
                   const ovk__hook *h)
{
    int step = chunk_of(n, h);
    double s = 0.0;
    for (int lo = 0; lo < n; lo += step) {
        int hi = end_of(lo, step, n);
        for (int i = lo; i < hi; i++) {
            y[i] += a * x[i];
            s += y[i] * y[i];
        }
        poke(h);
    }
    *yy = s;
}

/* Local vector kernels used by the solvers.  Each runs in chunks of
 * hook->every rows and calls the progress hook after each chunk, so that
 * reductions in flight progress while the kernel streams through memory.
 * Fused kernels compute several updates and local dot products in one pass. */
#include <math.h>
#include <string.h>

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

/* ---- dots in twice the working precision (Ogita, Rump and Oishi,
 * "Accurate sum and dot product", SIAM J. Sci. Comput. 26(6), 2005, Dot2):
 * each product split exactly into p + e by an FMA (TwoProduct), each
 * addition into t + its rounding error (TwoSum), the errors summed apart.
 * LANES interleaved sums as in dot_lanes; -ffp-contract=off (CMakeLists)
 * keeps the compiler from fusing TwoSum's operations. */

enum { DOT2_LANES = 4, DOT2_MAX = 16 };

/* a running sum s + c per lane */
typedef struct dot2_state {
    double s[DOT2_LANES], c[DOT2_LANES];
} dot2_state;

/* TwoSum: the rounding error of t = a + b, exactly: a + b = t + err */
static inline double two_sum_err(double a, double b, double t)
{
    double z = t - a;
    return (a - (t - z)) + (b - z);
}

/* s + c += a b, exactly up to the final rounding of c */
static inline void dot2_step(double *s, double *c, double a, double b)
{
    double p = a * b, e = fma(a, b, -p), t = *s + p; /* a b = p + e */
    *c += two_sum_err(*s, p, t) + e;
    *s = t;
}

/* rows [0, n) into the state, in portable C */
static void dot2_rows(int n, const double *restrict x, const double *restrict y, dot2_state *st)
{
    double s[DOT2_LANES], c[DOT2_LANES]; /* the lanes in locals: registers */
    memcpy(s, st->s, sizeof s);
    memcpy(c, st->c, sizeof c);
    int i = 0;
    for (; i + DOT2_LANES <= n; i += DOT2_LANES)
        for (int l = 0; l < DOT2_LANES; l++) dot2_step(&s[l], &c[l], x[i + l], y[i + l]);
    for (; i < n; i++) dot2_step(&s[0], &c[0], x[i], y[i]);
    memcpy(st->s, s, sizeof s);
    memcpy(st->c, c, sizeof c);
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
/* the same with AVX2 and FMA, the four lanes in one register: the same
 * operations in the same order, so the same result; the last rows by
 * dot2_rows */
__attribute__((target("avx2,fma"))) static void dot2_rows_avx(int n, const double *restrict x,
                                                              const double *restrict y, dot2_state *st)
{
    __m256d s = _mm256_loadu_pd(st->s), c = _mm256_loadu_pd(st->c);
    int i = 0;
    for (; i + DOT2_LANES <= n; i += DOT2_LANES) {
        __m256d a = _mm256_loadu_pd(x + i), b = _mm256_loadu_pd(y + i);
        __m256d p = _mm256_mul_pd(a, b), e = _mm256_fmsub_pd(a, b, p); /* a b = p + e exactly */
        __m256d t = _mm256_add_pd(s, p), z = _mm256_sub_pd(t, s);     /* s + p = t + err exactly */
        __m256d err = _mm256_add_pd(_mm256_sub_pd(s, _mm256_sub_pd(t, z)), _mm256_sub_pd(p, z));
        c = _mm256_add_pd(c, _mm256_add_pd(err, e));
        s = t;
    }
    _mm256_storeu_pd(st->s, s);
    _mm256_storeu_pd(st->c, c);
    dot2_rows(n - i, x + i, y + i, st);
}
#define DOT2_PICK() (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") ? dot2_rows_avx : dot2_rows)
#else
#define DOT2_PICK() dot2_rows
#endif

/* the lanes' sums (TwoSum again) and their errors, rounded once */
static double dot2_total(const dot2_state *st)
{
    double s = st->s[0], c = st->c[0];
    for (int l = 1; l < DOT2_LANES; l++) {
        double t = s + st->s[l];
        c += two_sum_err(s, st->s[l], t) + st->c[l];
        s = t;
    }
    return s + c;
}

void ovk__dots_exact(int n, int k, const double *const *x, const double *const *y, double *out,
                     const ovk__hook *h)
{
    enum { CACHE_ROWS = 2048 };
    void (*rows)(int, const double *, const double *, dot2_state *) = DOT2_PICK();
    int every = ovk__chunk_rows(n, h), step = every < CACHE_ROWS ? every : CACHE_ROWS;
    for (int j0 = 0; j0 < k; j0 += DOT2_MAX) { /* at most DOT2_MAX states at once */
        int kk = k - j0 < DOT2_MAX ? k - j0 : DOT2_MAX;
        dot2_state st[DOT2_MAX] = {{{0.0}, {0.0}}};
        for (int lo = 0, since = 0; lo < n; lo += step) {
            int hi = ovk__chunk_end(lo, step, n);
            for (int j = 0; j < kk; j++) rows(hi - lo, x[j0 + j] + lo, y[j0 + j] + lo, &st[j]);
            since += hi - lo;
            if (since >= every || hi == n) {
                ovk__poke(h);
                since = 0;
            }
        }
        for (int j = 0; j < kk; j++) out[j0 + j] = dot2_total(&st[j]);
    }
}

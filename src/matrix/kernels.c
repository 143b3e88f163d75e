/* Local vector kernels used by the solvers.  Each runs in chunks of
 * hook->every rows and calls the progress hook after each chunk, so that
 * reductions in flight progress while the kernel streams through memory.
 * Fused kernels compute several updates and local dot products in one pass. */
#include <math.h>
#include <stdatomic.h>
#include <string.h>

#include "matrix.h"

double ovk__dot(int n, const double *restrict x, const double *restrict y)
{
    double s = 0.0;
    for (int i = 0; i < n; i++) s += x[i] * y[i];
    return s;
}

double ovk__absmax(int n, const double *x)
{
    double m = 0.0;
    for (int i = 0; i < n; i++) {
        double v = fabs(x[i]);
        if (v > m || v != v) m = v; /* a NaN stays */
    }
    return m;
}

double ovk__sumsq_scaled(int n, const double *x, double scale)
{
    double s = 0.0;
    for (int i = 0; i < n; i++) {
        double v = scale * x[i];
        s += v * v;
    }
    return s;
}

int ovk__pow2_exponent(double m)
{
    int e = 0;
    if (!(m > 0.0) || !isfinite(m)) return 0;
    (void)frexp(m, &e); /* m = f 2^e, 0.5 <= f < 1 */
    return -e < -1000 ? -1000 : -e > 1000 ? 1000 : -e; /* 2^k a normal number */
}

/* y += a x */
void ovk__axpy(int n, double a, const double *restrict x, double *restrict y, const ovk__hook *h)
{
    OVK__CHUNKS(n, h, lo, hi) {
#pragma omp simd
        for (int i = lo; i < hi; i++) y[i] += a * x[i];
    }
}

/* y = x + b y */
void ovk__xpay(int n, const double *restrict x, double b, double *restrict y, const ovk__hook *h)
{
    OVK__CHUNKS(n, h, lo, hi) {
#pragma omp simd
        for (int i = lo; i < hi; i++) y[i] = x[i] + b * y[i];
    }
}

/* z = x + b y */
void ovk__zxpby(int n, const double *restrict x, double b, const double *restrict y, double *restrict z,
                const ovk__hook *h)
{
    OVK__CHUNKS(n, h, lo, hi) {
#pragma omp simd
        for (int i = lo; i < hi; i++) z[i] = x[i] + b * y[i];
    }
}

/* x += a p; r -= a s (one pass) */
void ovk__axpy2(int n, double a, const double *restrict p, double *restrict x,
                const double *restrict s, double *restrict r, const ovk__hook *h)
{
    OVK__CHUNKS(n, h, lo, hi) {
#pragma omp simd
        for (int i = lo; i < hi; i++) {
            x[i] += a * p[i];
            r[i] -= a * s[i];
        }
    }
}

/* y = d .* x */
void ovk__mul(int n, const double *restrict d, const double *restrict x, double *restrict y,
              const ovk__hook *h)
{
    OVK__CHUNKS(n, h, lo, hi) {
#pragma omp simd
        for (int i = lo; i < hi; i++) y[i] = d[i] * x[i];
    }
}

/* y = d .* x; *yy = <y, y> (local) */
void ovk__mul_dot(int n, const double *restrict d, const double *restrict x, double *restrict y,
                  double *yy, const ovk__hook *h)
{
    double s = 0.0;
    OVK__CHUNKS(n, h, lo, hi) {
        for (int i = lo; i < hi; i++) {
            y[i] = d[i] * x[i];
            s += y[i] * y[i];
        }
    }
    *yy = s;
}

/* y += a x; *yy = <y, y> (local) */
void ovk__axpy_dot(int n, double a, const double *restrict x, double *restrict y, double *yy,
                   const ovk__hook *h)
{
    double s = 0.0;
    OVK__CHUNKS(n, h, lo, hi) {
        for (int i = lo; i < hi; i++) {
            y[i] += a * x[i];
            s += y[i] * y[i];
        }
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

/* `group` dots over rows [0, n), each into its own state, one after the
 * other: the portable path */
static void dot2_group_c(int n, int group, const double *const *x, const double *const *y, dot2_state *st)
{
    for (int j = 0; j < group; j++) dot2_rows(n, x[j], y[j], &st[j]);
}

enum { DOT2_GROUP = 4 }; /* dots whose chains run interleaved */

#if defined(__x86_64__) && defined(__GNUC__)
#define DOT2_X86 1
#include <immintrin.h>

/* one step of Dot2 in every lane of a register of type V (intrinsics P##_*):
 * the operations of dot2_step */
#define DOT2_SIMD_STEP(P, V, s, c, a, b)                                                                     \
    do {                                                                                                     \
        V p_ = P##_mul_pd(a, b), e_ = P##_fmsub_pd(a, b, p_); /* a b = p + e exactly */                     \
        V t_ = P##_add_pd(s, p_), z_ = P##_sub_pd(t_, s);     /* s + p = t + err exactly */                 \
        V err_ = P##_add_pd(P##_sub_pd(s, P##_sub_pd(t_, z_)), P##_sub_pd(p_, z_));                         \
        c = P##_add_pd(c, P##_add_pd(err_, e_));                                                             \
        s = t_;                                                                                              \
    } while (0)
/* a dot's four lanes in an AVX2 register */
#define DOT2_AVX_STEP(s, c, a, b) DOT2_SIMD_STEP(_mm256, __m256d, s, c, a, b)

/* The same with AVX2 and FMA, the four lanes of a dot in one register: the
 * same operations in the same order, so the same result.  Each step of a
 * dot waits for its previous sum (an addition's latency), so a group of G
 * dots runs interleaved, their chains independent (bench/ovk_kernel_bench.c
 * measures the gain); the last rows by dot2_rows. */
#define DOT2_AVX_GROUP(G)                                                                                     \
    __attribute__((target("avx2,fma"))) static void dot2_avx_##G(int n, const double *const *x,              \
                                                                const double *const *y, dot2_state *st)      \
    {                                                                                                         \
        __m256d s[G], c[G];                                                                                   \
        int i = 0;                                                                                            \
        _Pragma("GCC unroll 4") for (int q = 0; q < (G); q++) s[q] = _mm256_loadu_pd(st[q].s),               \
                                                             c[q] = _mm256_loadu_pd(st[q].c);                 \
        for (; i + DOT2_LANES <= n; i += DOT2_LANES)                                                           \
            _Pragma("GCC unroll 4") for (int q = 0; q < (G); q++)                                             \
                DOT2_AVX_STEP(s[q], c[q], _mm256_loadu_pd(x[q] + i), _mm256_loadu_pd(y[q] + i));              \
        for (int q = 0; q < (G); q++) {                                                                       \
            _mm256_storeu_pd(st[q].s, s[q]);                                                                  \
            _mm256_storeu_pd(st[q].c, c[q]);                                                                  \
            dot2_rows(n - i, x[q] + i, y[q] + i, &st[q]);                                                     \
        }                                                                                                     \
    }
DOT2_AVX_GROUP(1)
DOT2_AVX_GROUP(2)
DOT2_AVX_GROUP(3)
DOT2_AVX_GROUP(4)

/* two dots' four lanes each, in the halves of one AVX-512 register: per
 * lane the operations of DOT2_AVX_STEP, so the same bits */
#define DOT2_AVX512_STEP(s, c, a, b) DOT2_SIMD_STEP(_mm512, __m512d, s, c, a, b)

/* two 4-lane vectors in the halves of one register */
__attribute__((target("avx512f"))) static inline __m512d dot2_pair(const double *lo, const double *hi)
{
    return _mm512_insertf64x4(_mm512_castpd256_pd512(_mm256_loadu_pd(lo)), _mm256_loadu_pd(hi), 1);
}

/* Two or four dots (P = 1, 2 pairs), each pair's lanes in one AVX-512
 * register: the 4-lane sums of DOT2_AVX_STEP, twice as many per
 * instruction (the same bits; the halves are filled by one insert per
 * operand) */
#define DOT2_AVX512_PAIRS(P)                                                                                  \
    __attribute__((target("avx512f,fma"))) static void dot2_avx512_##P(int n, const double *const *x,         \
                                                                      const double *const *y, dot2_state *st) \
    {                                                                                                         \
        __m512d s[P], c[P];                                                                                   \
        int i = 0;                                                                                            \
        _Pragma("GCC unroll 2") for (int q = 0; q < (P); q++) {                                               \
            s[q] = dot2_pair(st[2 * q].s, st[2 * q + 1].s);                                                   \
            c[q] = dot2_pair(st[2 * q].c, st[2 * q + 1].c);                                                   \
        }                                                                                                     \
        for (; i + DOT2_LANES <= n; i += DOT2_LANES)                                                           \
            _Pragma("GCC unroll 2") for (int q = 0; q < (P); q++) DOT2_AVX512_STEP(                            \
                s[q], c[q], dot2_pair(x[2 * q] + i, x[2 * q + 1] + i), dot2_pair(y[2 * q] + i, y[2 * q + 1] + i)); \
        for (int q = 0; q < (P); q++) {                                                                       \
            _mm256_storeu_pd(st[2 * q].s, _mm512_castpd512_pd256(s[q]));                                      \
            _mm256_storeu_pd(st[2 * q + 1].s, _mm512_extractf64x4_pd(s[q], 1));                               \
            _mm256_storeu_pd(st[2 * q].c, _mm512_castpd512_pd256(c[q]));                                      \
            _mm256_storeu_pd(st[2 * q + 1].c, _mm512_extractf64x4_pd(c[q], 1));                               \
        }                                                                                                     \
        for (int q = 0; q < 2 * (P); q++) dot2_rows(n - i, x[q] + i, y[q] + i, &st[q]);                       \
    }
DOT2_AVX512_PAIRS(1)
DOT2_AVX512_PAIRS(2)

/* a group of 1..DOT2_GROUP dots: its pairs in AVX-512 registers, an odd
 * last one by AVX2 */
static void dot2_group_avx512(int n, int group, const double *const *x, const double *const *y, dot2_state *st)
{
    static void (*const by_pairs[DOT2_GROUP / 2 + 1])(int, const double *const *, const double *const *,
                                                       dot2_state *) = {NULL, dot2_avx512_1, dot2_avx512_2};
    int pairs = group / 2, done = 2 * pairs;
    if (pairs) by_pairs[pairs](n, x, y, st);
    if (group > done) dot2_avx_1(n, x + done, y + done, st + done);
}

/* a group of 1..DOT2_GROUP dots, interleaved */
static void dot2_group_avx(int n, int group, const double *const *x, const double *const *y, dot2_state *st)
{
    static void (*const by_size[DOT2_GROUP + 1])(int, const double *const *, const double *const *,
                                                 dot2_state *) = {NULL, dot2_avx_1, dot2_avx_2, dot2_avx_3,
                                                                  dot2_avx_4};
    by_size[group](n, x, y, st);
}
#endif

typedef void (*dot2_group_fn)(int, int, const double *const *, const double *const *, dot2_state *);

/* the kernels in use: 0 until first asked, else 1 + the instruction set */
static _Atomic int dot2_choice;

int ovk__dot2_set_kernels(int isa)
{
    int best = ovk__cpu_isa(1);
    if (isa < 0 || isa > best) isa = best;
    atomic_store_explicit(&dot2_choice, 1 + isa, memory_order_relaxed);
    return isa;
}

static dot2_group_fn dot2_pick(void)
{
    int choice = atomic_load_explicit(&dot2_choice, memory_order_relaxed);
    if (choice == 0) choice = 1 + ovk__dot2_set_kernels(-1);
#ifdef DOT2_X86
    if (choice - 1 == OVK__RUN_AVX512) return dot2_group_avx512;
    if (choice - 1 == OVK__RUN_AVX2) return dot2_group_avx;
#endif
    return dot2_group_c;
}

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
    dot2_group_fn group = dot2_pick();
    int every = ovk__chunk_rows(n, h), step = every < CACHE_ROWS ? every : CACHE_ROWS;
    for (int j0 = 0; j0 < k; j0 += DOT2_MAX) { /* at most DOT2_MAX states at once */
        int kk = k - j0 < DOT2_MAX ? k - j0 : DOT2_MAX;
        dot2_state st[DOT2_MAX] = {{{0.0}, {0.0}}};
        for (int lo = 0, since = 0; lo < n; lo += step) {
            int hi = ovk__chunk_end(lo, step, n);
            for (int j = 0; j < kk; j += DOT2_GROUP) { /* the group's rows from lo */
                int g = kk - j < DOT2_GROUP ? kk - j : DOT2_GROUP;
                const double *xs[DOT2_GROUP], *ys[DOT2_GROUP];
                for (int q = 0; q < g; q++) xs[q] = x[j0 + j + q] + lo, ys[q] = y[j0 + j + q] + lo;
                group(hi - lo, g, xs, ys, &st[j]);
            }
            since += hi - lo;
            if (since >= every || hi == n) {
                ovk__poke(h);
                since = 0;
            }
        }
        for (int j = 0; j < kk; j++) out[j0 + j] = dot2_total(&st[j]);
    }
}

/* The product of a run of one repeated row (ovk__runs): y_i = sum_k c_k
 * x_{i + off_k} for consecutive rows i, each row summed in its entry order
 * from 0 as the plain row kernels do (so the product is bitwise theirs).
 *
 * Rows are independent, so a block of rows keeps one partial sum per row in
 * SIMD registers and loads x contiguously.  Each row is a chain of K
 * dependent additions; a block must hold enough rows that several chains
 * are in flight at once, or the additions' latency bounds the product.
 * The widest block this CPU supports is picked at run time: 32 rows in four
 * AVX-512 registers, 16 rows in four AVX2 registers, else 8 rows in named
 * sums the compiler vectorises as it can.  The library is built with
 * -ffp-contract=off, so every path multiplies, then adds, with the same
 * bits. */
#include <stdatomic.h>
#include <string.h>

#include "matrix_impl.h"

#if defined(__x86_64__) && defined(__GNUC__)
#define OVK_RUN_X86 1
#endif

enum { RUN_NARROW = 8, RUN_AVX2 = 16, RUN_AVX512 = 32, RUN_WIDEST = RUN_AVX512 };

typedef void (*block_fn)(const int *restrict off, const double *restrict c, int K, const double *restrict x, int i,
                         double *restrict s);

/* s[r] = sum_k c_k x_{i + r + off_k}, r < 8: eight named partial sums */
static void block_narrow(const int *restrict off, const double *restrict c, int K, const double *restrict x, int i,
                         double *restrict s)
{
    double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0, s4 = 0.0, s5 = 0.0, s6 = 0.0, s7 = 0.0;
    for (int k = 0; k < K; k++) {
        const double *restrict xs = x + i + off[k];
        double ck = c[k];
        s0 += ck * xs[0];
        s1 += ck * xs[1];
        s2 += ck * xs[2];
        s3 += ck * xs[3];
        s4 += ck * xs[4];
        s5 += ck * xs[5];
        s6 += ck * xs[6];
        s7 += ck * xs[7];
    }
    s[0] = s0, s[1] = s1, s[2] = s2, s[3] = s3, s[4] = s4, s[5] = s5, s[6] = s6, s[7] = s7;
}

#ifdef OVK_RUN_X86
typedef double v4d __attribute__((vector_size(32)));
typedef double v8d __attribute__((vector_size(64)));

/* s[r] = sum_k c_k x_{i + r + off_k}, r < 4 L: four chains of L rows, each
 * in one register of the instruction set ISA (vectors of type V) */
#define SIMD_BLOCK(name, isa, V, L)                                                                          \
    __attribute__((target(isa))) static void name(const int *restrict off, const double *restrict c, int K,  \
                                                  const double *restrict x, int i, double *restrict s)       \
    {                                                                                                        \
        V zero = {0}, s0 = zero, s1 = zero, s2 = zero, s3 = zero, x0, x1, x2, x3, ck;                         \
        for (int k = 0; k < K; k++) {                                                                        \
            const double *xs = x + i + off[k];                                                               \
            ck = c[k] - zero; /* c_k in every lane (x - 0 is x, -0 included) */                             \
            memcpy(&x0, xs, sizeof x0);                                                                      \
            memcpy(&x1, xs + (L), sizeof x1);                                                                \
            memcpy(&x2, xs + 2 * (L), sizeof x2);                                                            \
            memcpy(&x3, xs + 3 * (L), sizeof x3);                                                            \
            s0 += ck * x0;                                                                                   \
            s1 += ck * x1;                                                                                   \
            s2 += ck * x2;                                                                                   \
            s3 += ck * x3;                                                                                   \
        }                                                                                                    \
        memcpy(s, &s0, sizeof s0);                                                                           \
        memcpy(s + (L), &s1, sizeof s1);                                                                     \
        memcpy(s + 2 * (L), &s2, sizeof s2);                                                                 \
        memcpy(s + 3 * (L), &s3, sizeof s3);                                                                 \
    }
SIMD_BLOCK(block_avx2, "avx2", v4d, 4)
SIMD_BLOCK(block_avx512, "avx512f", v8d, 8)
#endif

/* the block width in use: 0 until first asked, then RUN_* rows */
static _Atomic int run_width;

static int widest_supported(void)
{
#ifdef OVK_RUN_X86
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f")) return RUN_AVX512;
    if (__builtin_cpu_supports("avx2")) return RUN_AVX2;
#endif
    return RUN_NARROW;
}

int ovk__run_set_width(int rows)
{
    int widest = widest_supported();
    int w = rows <= 0 || rows > widest ? widest : rows >= RUN_AVX512 ? RUN_AVX512 : rows >= RUN_AVX2 ? RUN_AVX2 : RUN_NARROW;
    atomic_store_explicit(&run_width, w, memory_order_relaxed);
    return w;
}

/* the block kernel of the width in use, and its rows */
static block_fn pick_wide(int *rows)
{
    int w = atomic_load_explicit(&run_width, memory_order_relaxed);
    if (w == 0) w = ovk__run_set_width(0);
    *rows = w;
#ifdef OVK_RUN_X86
    if (w == RUN_AVX512) return block_avx512;
    if (w == RUN_AVX2) return block_avx2;
#endif
    return block_narrow;
}

/* y_i = s_{i - i0}, dot += x_i y_i for rows [from, to) of a block at i0 */
static double keep_rows(const double *restrict s, const double *restrict x, double *restrict y, int i0, int from,
                        int to, double dot)
{
    for (int i = from; i < to; i++) {
        y[i] = s[i - i0];
        dot += x[i] * y[i];
    }
    return dot;
}

double ovk__run_rows(const int *restrict off, const double *restrict c, int K, const double *restrict x,
                     double *restrict y, int lo, int hi, double dot)
{
    int wide_rows;
    block_fn wide = pick_wide(&wide_rows);
    double s[RUN_WIDEST];
    int i = lo;
    for (; i + wide_rows <= hi; i += wide_rows) { /* wide blocks */
        wide(off, c, K, x, i, s);
        dot = keep_rows(s, x, y, i, i, i + wide_rows, dot);
    }
    for (; i + RUN_NARROW <= hi; i += RUN_NARROW) { /* then narrow ones */
        block_narrow(off, c, K, x, i, s);
        dot = keep_rows(s, x, y, i, i, i + RUN_NARROW, dot);
    }
    if (i < hi && hi - lo >= RUN_NARROW) { /* a tail: the piece's last eight rows, of which the new ones are kept */
        block_narrow(off, c, K, x, hi - RUN_NARROW, s);
        return keep_rows(s, x, y, hi - RUN_NARROW, i, hi, dot);
    }
    for (; i < hi; i++) { /* a piece shorter than a block (a chunk's edge) */
        double t = 0.0;
        for (int k = 0; k < K; k++) t += c[k] * x[i + off[k]];
        y[i] = t;
        dot += x[i] * t;
    }
    return dot;
}

/* The product of a run of one repeated row (ovk__runs): y_i = sum_k c_k
 * x_{i + off_k} for consecutive rows i, each row summed in its entry order
 * from 0 as the plain row kernels do (so the product is bitwise theirs).
 *
 * Rows are independent, so a block of rows keeps one partial sum per row in
 * SIMD registers and loads x contiguously.  Each row is a chain of K
 * dependent additions; a block must hold enough rows that several chains
 * are in flight at once, or the additions' latency bounds the product.
 * The widest instruction set this CPU supports is picked at run time: a run
 * goes in blocks of 32 rows in four AVX-512 registers (16 rows in four AVX2
 * registers), then what is left in 8-row blocks of the same instruction set
 * (one AVX-512 register, two AVX2 ones); without either, 8 rows in named
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

/* s[r] = sum_k c_k x_{i + r + off_k}, r < R L: R chains of L rows, each in
 * one register of the instruction set ISA (vectors of type V) */
#define SIMD_BLOCK(name, isa, V, L, R)                                                                       \
    __attribute__((target(isa))) static void name(const int *restrict off, const double *restrict c, int K,  \
                                                  const double *restrict x, int i, double *restrict s)       \
    {                                                                                                        \
        V zero = {0}, acc[R], xr, ck;                                                                        \
        for (int r = 0; r < (R); r++) acc[r] = zero;                                                         \
        for (int k = 0; k < K; k++) {                                                                        \
            const double *xs = x + i + off[k];                                                               \
            ck = c[k] - zero; /* c_k in every lane (x - 0 is x, -0 included) */                             \
            for (int r = 0; r < (R); r++) {                                                                  \
                memcpy(&xr, xs + r * (L), sizeof xr);                                                        \
                acc[r] += ck * xr;                                                                           \
            }                                                                                                \
        }                                                                                                    \
        memcpy(s, acc, sizeof acc);                                                                          \
    }
SIMD_BLOCK(avx2_16, "avx2", v4d, 4, 4)
SIMD_BLOCK(avx2_8, "avx2", v4d, 4, 2)
SIMD_BLOCK(avx512_32, "avx512f", v8d, 8, 4)
SIMD_BLOCK(avx512_8, "avx512f", v8d, 8, 1)
#endif

/* the kernels of one instruction set: a wide block of several chains, then
 * 8-row blocks for what is left of a run */
typedef struct run_kernels {
    int wide_rows;
    block_fn wide, eight;
} run_kernels;

static const run_kernels kernels[OVK__RUN_ISAS] = {
    [OVK__RUN_GENERIC] = {RUN_NARROW, block_narrow, block_narrow},
#ifdef OVK_RUN_X86
    [OVK__RUN_AVX2] = {RUN_AVX2, avx2_16, avx2_8},
    [OVK__RUN_AVX512] = {RUN_AVX512, avx512_32, avx512_8},
#endif
};

/* the kernels in use: 0 until first asked, else 1 + 2 isa + wide */
static _Atomic int run_choice;

int ovk__cpu_isa(int need_fma)
{
#ifdef OVK_RUN_X86
    __builtin_cpu_init();
    if (need_fma && !__builtin_cpu_supports("fma")) return OVK__RUN_GENERIC;
    if (__builtin_cpu_supports("avx512f")) return OVK__RUN_AVX512;
    if (__builtin_cpu_supports("avx2")) return OVK__RUN_AVX2;
#endif
    (void)need_fma;
    return OVK__RUN_GENERIC;
}

int ovk__run_set_kernels(int isa, int wide)
{
    int best = ovk__cpu_isa(0);
    if (isa < 0 || isa > best) isa = best;
    atomic_store_explicit(&run_choice, 1 + 2 * isa + (wide != 0), memory_order_relaxed);
    return isa;
}

/* the kernels in use: *wide_rows and *wide, the block for whole wide
 * blocks (the 8-row one when wide blocks are off), and the 8-row block */
static block_fn pick(int *wide_rows, block_fn *wide)
{
    int choice = atomic_load_explicit(&run_choice, memory_order_relaxed);
    if (choice == 0) {
        ovk__run_set_kernels(-1, 1);
        choice = atomic_load_explicit(&run_choice, memory_order_relaxed);
    }
    const run_kernels *k = &kernels[(choice - 1) / 2];
    int use_wide = (choice - 1) % 2;
    *wide_rows = use_wide ? k->wide_rows : RUN_NARROW;
    *wide = use_wide ? k->wide : k->eight;
    return k->eight;
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
    block_fn wide, eight = pick(&wide_rows, &wide);
    double s[RUN_WIDEST];
    int i = lo;
    for (; i + wide_rows <= hi; i += wide_rows) { /* wide blocks */
        wide(off, c, K, x, i, s);
        dot = keep_rows(s, x, y, i, i, i + wide_rows, dot);
    }
    for (; i + RUN_NARROW <= hi; i += RUN_NARROW) { /* then narrow ones */
        eight(off, c, K, x, i, s);
        dot = keep_rows(s, x, y, i, i, i + RUN_NARROW, dot);
    }
    if (i < hi && hi - lo >= RUN_NARROW) { /* a tail: the piece's last eight rows, of which the new ones are kept */
        eight(off, c, K, x, hi - RUN_NARROW, s);
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

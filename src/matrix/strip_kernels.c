/* The product of the rows of a strip (ovk__strips): y_i = sum_k a_ik
 * x_{i + off_k} for consecutive rows i with one offset list, each row
 * summed in its entry order from 0 as the plain row kernels do (so the
 * product is bitwise theirs).
 *
 * A block of OVK__STRIP_ROWS rows keeps one partial sum per row in SIMD
 * lanes (several registers: several chains in flight), loads x
 * contiguously and the entry's values of the block's rows through the
 * block-transposed copy of their dictionary indices.  (A copy of double
 * values measured slower than the plain rows on AMD Zen 3, so strips are
 * made for dictionary values only.)  The widest instruction set this CPU
 * supports is picked at run time (AVX-512, AVX2), else portable C.  The
 * library is built with -ffp-contract=off: every path multiplies, then
 * adds, with the same bits. */
#include <stdatomic.h>
#include <string.h>

#include "matrix_impl.h"
#if defined(__x86_64__) && defined(__GNUC__)
#define OVK_STRIP_X86 1
#include <immintrin.h>
#endif

enum { BLOCK = OVK__STRIP_ROWS };
_Static_assert(BLOCK == 16, "the SIMD kernels name the registers of 16 rows");

/* s[r] = sum_k dict[v_kr] x_{i + r + off_k}, r < BLOCK, for a block's
 * value indices v */
typedef void (*strip_fn)(const int *restrict off, int K, const uint8_t *restrict v, const double *restrict dict,
                         const double *restrict x, int i, double *restrict s);

static void generic_8(const int *restrict off, int K, const uint8_t *restrict v, const double *restrict dict,
                      const double *restrict x, int i, double *restrict s)
{
    const uint8_t *restrict a = v;
    double t[BLOCK] = {0};
    for (int k = 0; k < K; k++) {
        const double *restrict xs = x + i + off[k];
        const uint8_t *restrict ak = a + k * BLOCK;
        for (int r = 0; r < BLOCK; r++) t[r] += dict[ak[r]] * xs[r];
    }
    memcpy(s, t, sizeof t);
}

#ifdef OVK_STRIP_X86
/* four rows per register (AVX2) or eight (AVX-512), BLOCK rows in named
 * registers (an array of them would live on the stack) */
#define AVX2_ADD(acc, r, c) acc = _mm256_add_pd(acc, _mm256_mul_pd(c, _mm256_loadu_pd(xs + 4 * (r))))
#define AVX512_ADD(acc, r, c) acc = _mm512_add_pd(acc, _mm512_mul_pd(c, _mm512_loadu_pd(xs + 8 * (r))))

/* the dictionary's values of four indices: scalar loads (faster than
 * vgatherdpd on AMD Zen 3) */
__attribute__((target("avx2"))) static inline __m256d dict4(const double *dict, const uint8_t *ix)
{
    __m128d lo = _mm_loadh_pd(_mm_load_sd(dict + ix[0]), dict + ix[1]);
    __m128d hi = _mm_loadh_pd(_mm_load_sd(dict + ix[2]), dict + ix[3]);
    return _mm256_insertf128_pd(_mm256_castpd128_pd256(lo), hi, 1);
}

__attribute__((target("avx2"))) static void avx2_8(const int *restrict off, int K, const uint8_t *restrict v,
                                                   const double *restrict dict, const double *restrict x, int i,
                                                   double *restrict s)
{
    const uint8_t *a = v;
    __m256d a0 = _mm256_setzero_pd(), a1 = a0, a2 = a0, a3 = a0;
    for (int k = 0; k < K; k++, a += BLOCK) {
        const double *xs = x + i + off[k];
        AVX2_ADD(a0, 0, dict4(dict, a));
        AVX2_ADD(a1, 1, dict4(dict, a + 4));
        AVX2_ADD(a2, 2, dict4(dict, a + 8));
        AVX2_ADD(a3, 3, dict4(dict, a + 12));
    }
    _mm256_storeu_pd(s, a0);
    _mm256_storeu_pd(s + 4, a1);
    _mm256_storeu_pd(s + 8, a2);
    _mm256_storeu_pd(s + 12, a3);
}

/* the dictionary's values of eight indices */
__attribute__((target("avx512f"))) static inline __m512d dict8(const double *dict, const uint8_t *ix)
{
    return _mm512_i32gather_pd(_mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)ix)), dict, 8);
}

__attribute__((target("avx512f"))) static void avx512_8(const int *restrict off, int K, const uint8_t *restrict v,
                                                        const double *restrict dict, const double *restrict x,
                                                        int i, double *restrict s)
{
    const uint8_t *a = v;
    __m512d a0 = _mm512_setzero_pd(), a1 = a0;
    for (int k = 0; k < K; k++, a += BLOCK) {
        const double *xs = x + i + off[k];
        AVX512_ADD(a0, 0, dict8(dict, a));
        AVX512_ADD(a1, 1, dict8(dict, a + 8));
    }
    _mm512_storeu_pd(s, a0);
    _mm512_storeu_pd(s + 8, a1);
}
#endif

/* the kernel of each instruction set */
static const strip_fn kernels[OVK__RUN_ISAS] = {
    [OVK__RUN_GENERIC] = generic_8,
#ifdef OVK_STRIP_X86
    [OVK__RUN_AVX2] = avx2_8,
    [OVK__RUN_AVX512] = avx512_8,
#endif
};

/* the instruction set in use: -1 until first asked */
static _Atomic int strip_isa = -1;

int ovk__strip_set_kernels(int isa)
{
    int best = ovk__cpu_isa(0);
    if (isa < 0 || isa > best) isa = best;
    atomic_store_explicit(&strip_isa, isa, memory_order_relaxed);
    return isa;
}

static strip_fn pick(void)
{
    int isa = atomic_load_explicit(&strip_isa, memory_order_relaxed);
    if (isa < 0) isa = ovk__strip_set_kernels(-1);
    return kernels[isa];
}

double ovk__strip_rows(const ovk__csr *m, int s, double (*plain)(const ovk__csr *, const double *, double *, int, int, double),
                       const double *x, double *y, int lo, int hi, double dot)
{
    const ovk__strips *t = m->strips;
    int p = t->seg_pat[s];
    strip_fn block = pick();
    const int *off = t->pat_off + t->pat_ptr[p];
    int K = t->pat_ptr[p + 1] - t->pat_ptr[p];
    int lo0 = t->seg_lo[s], hi0 = t->seg_hi[s], whole = (hi0 - lo0) / BLOCK;
    int nb = whole + ((hi0 - lo0) % BLOCK != 0);
    double sum[BLOCK];
    for (int q = (lo - lo0) / BLOCK < whole ? (lo - lo0) / BLOCK : whole; q < nb; q++) {
        int r0 = q < whole ? lo0 + q * BLOCK : hi0 - BLOCK; /* the block's rows [r0, r0 + BLOCK) */
        int own = q < whole ? r0 : lo0 + whole * BLOCK; /* its rows no block before made */
        if (own >= hi) break;
        int from = own > lo ? own : lo, to = r0 + BLOCK < hi ? r0 + BLOCK : hi;
        if (from > own || to < r0 + BLOCK) { /* a block cut by [lo, hi): its rows by their entries */
            dot = plain(m, x, y, from, to, dot);
            continue;
        }
        int64_t at = t->seg_at[s] + (int64_t)q * BLOCK * K;
        block(off, K, t->tidx + at, m->vdict, x, r0, sum);
        for (int i = own; i < to; i++) { /* y_i, dot += x_i y_i in row order */
            y[i] = sum[i - r0];
            dot += x[i] * y[i];
        }
    }
    return dot;
}

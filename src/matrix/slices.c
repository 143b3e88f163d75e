/* Slices of a diag block (ovk__slices in matrix.h): rows in groups of
 * OVK__SLICE_ROWS, one row per SIMD lane, entries stored entry-major and
 * padded to the slice's longest row, so that the product gathers x for
 * eight rows at once instead of running one chain of additions per row.
 * Each window's rows go longest first, so that a slice's rows are about as
 * long as each other and the padding small.
 *
 * Each row is summed from +0 in its entry order with a multiply, then an
 * add (the library is built with -ffp-contract=off).  A lane past its row's
 * end gathers no x (masked) and adds 0 x 0 = +0, which changes no sum that
 * started from +0 (such a sum is never -0): the product is bitwise that of
 * the plain rows (up to the payload of a NaN, as with runs and strips).
 * A slice whose padding would cost more than its entries stays with the
 * plain rows. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "matrix.h"

#if defined(__x86_64__) && defined(__GNUC__)
#define SLICE_X86 1
#include <immintrin.h>
#endif

enum { R = OVK__SLICE_ROWS, W = OVK__SLICE_WINDOW };

void ovk__csr_drop_slices(ovk__csr *m)
{
    ovk__slices *s = m->slices;
    if (!s) return;
    free(s->row);
    free(s->len);
    free(s->at);
    free(s->iat);
    free(s->kind);
    free(s->val);
    free(s->idx);
    free(s);
    m->slices = NULL;
}

/* the rows of window w by length, longest first (ties in row order), into
 * the lanes of its slices */
static void order_window(const ovk__csr *m, ovk__slices *s, int w)
{
    int *row = s->row + (size_t)w * W, *len = s->len + (size_t)w * W;
    for (int a = 0; a < W; a++) { /* insertion: a window is short */
        int i = w * W + a, l = m->rowptr[i + 1] - m->rowptr[i], b = a;
        for (; b > 0 && len[b - 1] < l; b--) {
            row[b] = row[b - 1];
            len[b] = len[b - 1];
        }
        row[b] = i;
        len[b] = l;
    }
}

/* the kind of slice c and its width: plain when its padding would exceed
 * its entries, else narrow when every column is within 16 bits of its row */
static int slice_kind(const ovk__csr *m, const ovk__slices *s, int c, int *width)
{
    int w = 0, narrow = 1;
    int64_t entries = 0;
    for (int r = 0; r < R; r++) {
        int i = s->row[c * R + r], l = s->len[c * R + r];
        w = l > w ? l : w;
        entries += l;
        for (int k = m->rowptr[i]; k < m->rowptr[i + 1] && narrow; k++) {
            int o = ovk__csr_col(m, i, k) - i;
            narrow = o >= INT16_MIN && o <= INT16_MAX;
        }
    }
    *width = w;
    if (w == 0 || (int64_t)R * w > 2 * (int64_t)entries) return OVK__SLICE_PLAIN;
    return narrow ? OVK__SLICE_NARROW : OVK__SLICE_WIDE;
}

/* slots and index bytes of every slice; kinds and widths into s */
static void count_slices(const ovk__csr *m, ovk__slices *s, int *width, int64_t *slots, int64_t *bytes)
{
    *slots = *bytes = 0;
    for (int c = 0; c < s->nslice; c++) {
        int kind = slice_kind(m, s, c, &width[c]);
        s->kind[c] = (uint8_t)kind;
        s->at[c] = *slots;
        s->iat[c] = *bytes;
        if (kind == OVK__SLICE_PLAIN) continue;
        *slots += (int64_t)R * width[c];
        *bytes += (int64_t)R * width[c] * (kind == OVK__SLICE_NARROW ? 2 : 4);
    }
    s->at[s->nslice] = *slots;
}

/* slot j of lane r of slice c: entry j of its row (zero when the row is
 * shorter; the kernels mask it) */
static void fill_slice(const ovk__csr *m, ovk__slices *s, int c, int width)
{
    double *val = s->val + s->at[c];
    int16_t *off = (int16_t *)(s->idx + s->iat[c]);
    int *col = (int *)(s->idx + s->iat[c]);
    for (int r = 0; r < R; r++) {
        int i = s->row[c * R + r], len = s->len[c * R + r];
        for (int j = 0; j < width; j++) {
            int k = m->rowptr[i] + j, at = j * R + r;
            val[at] = j < len ? m->val[k] : 0.0;
            if (s->kind[c] == OVK__SLICE_NARROW) off[at] = (int16_t)(j < len ? ovk__csr_col(m, i, k) - i : 0);
            else col[at] = j < len ? ovk__csr_col(m, i, k) : i;
        }
    }
}

static _Atomic int slice_mode = OVK__SLICES_AUTO;

int ovk__slice_set_mode(int mode)
{
    int old = atomic_load_explicit(&slice_mode, memory_order_relaxed);
    if (mode >= OVK__SLICES_AUTO && mode <= OVK__SLICES_ALWAYS)
        atomic_store_explicit(&slice_mode, mode, memory_order_relaxed);
    return old;
}

/* 1 when m is to be sliced: both triangles, no runs or strips (their own
 * kernels), a whole window at least, and (AUTO) a CPU that gathers in SIMD */
static int wants_slices(const ovk__csr *m)
{
    int mode = atomic_load_explicit(&slice_mode, memory_order_relaxed);
    if (mode == OVK__SLICES_NEVER || m->upper || m->runs || m->strips || m->nrows < W) return 0;
    return mode == OVK__SLICES_ALWAYS || ovk__cpu_isa(0) == OVK__RUN_AVX512;
}

int ovk__csr_make_slices(ovk__csr *m)
{
    ovk__csr_drop_slices(m);
    if (!wants_slices(m)) return OVK_OK;
    ovk__slices *s = calloc(1, sizeof *s);
    int nwin = m->nrows / W, nslice = nwin * (W / R), *width = malloc(sizeof(int) * (size_t)nslice);
    if (s) {
        s->nwin = nwin;
        s->nslice = nslice;
        s->row = malloc(sizeof(int) * (size_t)nwin * W);
        s->len = malloc(sizeof(int) * (size_t)nwin * W);
        s->at = malloc(sizeof(int64_t) * ((size_t)nslice + 1));
        s->iat = malloc(sizeof(int64_t) * (size_t)nslice);
        s->kind = malloc((size_t)nslice);
    }
    m->slices = s;
    if (!s || !width || !s->row || !s->len || !s->at || !s->iat || !s->kind) goto nomem;
    for (int w = 0; w < nwin; w++) order_window(m, s, w);
    int64_t slots, bytes;
    count_slices(m, s, width, &slots, &bytes);
    s->val = malloc(sizeof(double) * (size_t)(slots > 0 ? slots : 1));
    s->idx = malloc((size_t)(bytes > 0 ? bytes : 1));
    if (!s->val || !s->idx) goto nomem;
    for (int c = 0; c < nslice; c++)
        if (s->kind[c] != OVK__SLICE_PLAIN) fill_slice(m, s, c, width[c]);
    s->slots = slots;
    s->idx_bytes = bytes;
    free(width);
    return OVK_OK;
nomem:
    free(width);
    ovk__csr_drop_slices(m);
    return ovk__fail(OVK_ENOMEM, "slices of a block of %d rows", m->nrows);
}

/* ---- the kernels: y for the R rows of slice c ------------------------ */

typedef void (*slice_fn)(const ovk__slices *s, int c, const double *restrict x, double *restrict y);

static void slice_generic(const ovk__slices *s, int c, const double *restrict x, double *restrict y)
{
    const double *restrict val = s->val + s->at[c];
    const int16_t *restrict off = (const int16_t *)(s->idx + s->iat[c]);
    const int *restrict col = (const int *)(s->idx + s->iat[c]);
    const int *row = s->row + c * R, *len = s->len + c * R;
    int width = (int)((s->at[c + 1] - s->at[c]) / R), narrow = s->kind[c] == OVK__SLICE_NARROW;
    double t[R] = {0.0};
    for (int j = 0; j < width; j++)
        for (int r = 0; r < R; r++) {
            if (j >= len[r]) continue;
            int at = j * R + r;
            t[r] += val[at] * x[narrow ? row[r] + off[at] : col[at]];
        }
    for (int r = 0; r < R; r++) y[row[r]] = t[r];
}

#ifdef SLICE_X86
/* each step asks for the values and indices of the entries
 * OVK__PREFETCH_AHEAD on: where the block leaves the cache, the hardware
 * prefetcher does not run far enough ahead of them */
enum { AHEAD_STEPS = OVK__PREFETCH_AHEAD / R };

__attribute__((target("avx512f,avx2"))) static void slice_avx512(const ovk__slices *s, int c, const double *restrict x,
                                                                  double *restrict y)
{
    const double *restrict val = s->val + s->at[c];
    const unsigned char *restrict idx = s->idx + s->iat[c];
    int width = (int)((s->at[c + 1] - s->at[c]) / R);
    __m256i row = _mm256_loadu_si256((const __m256i *)(s->row + c * R));
    __m512i len = _mm512_cvtepi32_epi64(_mm256_loadu_si256((const __m256i *)(s->len + c * R)));
    __m512d sum = _mm512_setzero_pd(), zero = _mm512_setzero_pd();
    int narrow = s->kind[c] == OVK__SLICE_NARROW;
    size_t step = R * (narrow ? sizeof(int16_t) : sizeof(int)); /* idx bytes per entry of the R rows */
    for (int j = 0; j < width; j++) {
        ovk__prefetch(val + R * j, (long)(R * sizeof(double)) * AHEAD_STEPS);
        ovk__prefetch(idx + step * (size_t)j, (long)step * AHEAD_STEPS);
        __mmask8 live = _mm512_cmpgt_epi64_mask(len, _mm512_set1_epi64(j)); /* lanes whose row has entry j */
        __m256i cols = narrow
                           ? _mm256_add_epi32(row, _mm256_cvtepi16_epi32(_mm_loadu_si128((const __m128i *)(idx + step * (size_t)j))))
                           : _mm256_loadu_si256((const __m256i *)(idx + step * (size_t)j));
        __m512d xg = _mm512_mask_i32gather_pd(zero, live, cols, x, 8);
        sum = _mm512_add_pd(sum, _mm512_mul_pd(_mm512_loadu_pd(val + R * j), xg));
    }
    _mm512_i32scatter_pd(y, row, sum, 8);
}
#endif

/* the kernel in use: 0 until first asked, else 1 + isa */
static _Atomic int slice_choice;

int ovk__slice_set_kernels(int isa)
{
    int best = OVK__RUN_GENERIC;
#ifdef SLICE_X86
    if (ovk__cpu_isa(0) == OVK__RUN_AVX512) best = OVK__RUN_AVX512;
#endif
    if (isa < 0 || isa > best) isa = best;
    if (isa == OVK__RUN_AVX2) isa = OVK__RUN_GENERIC; /* no AVX2 kernel: gathers of 4 did not pay */
    atomic_store_explicit(&slice_choice, 1 + isa, memory_order_relaxed);
    return isa;
}

static slice_fn pick_kernel(void)
{
    int choice = atomic_load_explicit(&slice_choice, memory_order_relaxed);
    if (choice == 0) choice = 1 + ovk__slice_set_kernels(-1);
#ifdef SLICE_X86
    if (choice - 1 == OVK__RUN_AVX512) return slice_avx512;
#endif
    return slice_generic;
}

/* y for the rows of window w (slices by kernel, plain ones by plain), then
 * dot += x_i y_i in row order */
static double window_rows(const ovk__csr *m, slice_fn kernel,
                          double (*plain)(const ovk__csr *, const double *, double *, int, int, double),
                          const double *x, double *y, int w, double dot)
{
    const ovk__slices *s = m->slices;
    for (int c = w * (W / R); c < (w + 1) * (W / R); c++) {
        if (s->kind[c] != OVK__SLICE_PLAIN) {
            kernel(s, c, x, y);
            continue;
        }
        for (int r = 0; r < R; r++) (void)plain(m, x, y, s->row[c * R + r], s->row[c * R + r] + 1, 0.0);
    }
    for (int i = w * W; i < (w + 1) * W; i++) dot += x[i] * y[i];
    return dot;
}

double ovk__slice_rows(const ovk__csr *m, double (*plain)(const ovk__csr *, const double *, double *, int, int, double),
                       const double *x, double *y, int lo, int hi, double dot)
{
    slice_fn kernel = pick_kernel();
    int w = (lo + W - 1) / W, from = w * W < hi ? w * W : hi;
    if (lo < from) dot = plain(m, x, y, lo, from, dot); /* the rows before the first whole window */
    for (; w < m->slices->nwin && (w + 1) * W <= hi; w++) dot = window_rows(m, kernel, plain, x, y, w, dot);
    from = w * W > from ? w * W : from;
    return from < hi ? plain(m, x, y, from, hi, dot) : dot;
}

/* The matrix-vector product y = A x over the storage forms of the diag
 * block (matrix_impl.h): the halo exchange starts (halo.c), the diag block
 * is multiplied while messages fly, then the off-diagonal block.  Also the
 * bytes a product moves (for the bandwidth figures) and the public
 * ovk_matvec. */
#define _DEFAULT_SOURCE /* madvise */
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

#include "matrix_impl.h"
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

/* The diag-block row kernels, one per storage form (columns as int or as
 * 16-bit offsets from the row; values as double, float or a one-byte index
 * into a dictionary: each equal to val[k] bit for bit, so every form makes
 * the same sums in the same order).  Each returns dot plus x_i y_i of its
 * rows in row order (for ovk__matvec_dot; the plain product ignores it). */
#define VAL_D(k) val[k]
#define VAL_F(k) ((double)valf[k])
#define VAL_8(k) dict[vidx[k]]
#define ROW_ARRAYS                                                                                \
    const int *restrict ptr = m->rowptr;                                                          \
    const double *restrict val = m->val;                                                          \
    const float *restrict valf = m->valf;                                                         \
    const uint8_t *restrict vidx = m->vidx;                                                       \
    const double *restrict dict = m->vdict;                                                       \
    (void)val, (void)valf, (void)vidx, (void)dict

/* row loops: the values (form VAL) and columns of the entries
 * OVK__PREFETCH_AHEAD on from entry k */
#define AT_VAL_D(k) (val + (k))
#define AT_VAL_F(k) (valf + (k))
#define AT_VAL_8(k) (vidx + (k))
#define ROW_AHEAD(VAL, k, idx)                                                                    \
    do {                                                                                          \
        OVK__AHEAD(AT_##VAL(k), 1);                                                               \
        OVK__AHEAD((idx) + (k), 1);                                                               \
    } while (0)

/* A row kernel over rows [lo, hi) of the diag block, its entries' columns
 * in m->IDX (of type IDX_T): the row's body (the variadic arguments) sets
 * s, then y_i = s and dot += x_i s. */
#define ROWS_KERNEL(NAME, VAL, IDX_T, IDX, ...)                                                   \
    static double NAME(const ovk__csr *m, const double *restrict x, double *restrict y, int lo,   \
                       int hi, double dot)                                                        \
    {                                                                                             \
        ROW_ARRAYS;                                                                               \
        const IDX_T *restrict idx = m->IDX;                                                       \
        for (int i = lo; i < hi; i++) {                                                           \
            ROW_AHEAD(VAL, ptr[i], idx);                                                          \
            double s = 0.0;                                                                       \
            __VA_ARGS__                                                                           \
            y[i] = s;                                                                             \
            dot += x[i] * s;                                                                      \
        }                                                                                         \
        return dot;                                                                               \
    }

/* y[lo:hi) = D x for rows [lo, hi): column = idx[k] (IDX col, int) or
 * i + idx[k] (IDX off16, 16-bit offsets; BASE i) */
#define PLAIN_ROWS(NAME, VAL, IDX_T, IDX, BASE)                                                   \
    ROWS_KERNEL(NAME, VAL, IDX_T, IDX, const double *restrict xb = x + (BASE);                   \
                for (int k = ptr[i]; k < ptr[i + 1]; k++) s += VAL(k) * xb[idx[k]];)
/* the same with the columns of esc16/far: an offset from the row, or the
 * next far column */
#define FAR_ROWS(NAME, VAL)                                                                       \
    ROWS_KERNEL(NAME, VAL, int16_t, esc16, const double *restrict xb = x + i;                    \
                const int *restrict far = m->far; const int *restrict fptr = m->far_ptr;          \
                if (fptr[i] == fptr[i + 1]) /* no far column: as OFF_ROWS */                      \
                    for (int k = ptr[i]; k < ptr[i + 1]; k++) s += VAL(k) * xb[idx[k]];           \
                else for (int k = ptr[i], f = fptr[i]; k < ptr[i + 1]; k++)                       \
                    s += VAL(k) * x[idx[k] != OVK__FAR ? i + idx[k] : far[f++]];)
#define COL_ROWS(NAME, VAL) PLAIN_ROWS(NAME, VAL, int, col, 0)
#define OFF_ROWS(NAME, VAL) PLAIN_ROWS(NAME, VAL, int16_t, off16, i)

/* rows [lo, hi) of y = D x when D keeps its upper triangle: row i adds
 * a_ii x_i and its a_ij x_j (j > i) to what the rows above left in y_i, and
 * leaves a_ij x_i in y_j for row j (a_ji = a_ij).  y must start at 0 and
 * the rows run in ascending order; x and y must not overlap.  y_i is final
 * (for the diag block) once row i is done.  Columns as in PLAIN_ROWS. */
#define UPPER_ROWS(NAME, VAL, IDX_T, IDX, BASE)                                                   \
    ROWS_KERNEL(NAME, VAL, IDX_T, IDX, const double *restrict xr = x + (BASE);                   \
                double *restrict yr = y + (BASE); double xi = x[i]; int k = ptr[i];               \
                s = y[i] + VAL(k) * xi; /* a_ii first */                                          \
                for (k++; k < ptr[i + 1]; k++) {                                                  \
                    double a = VAL(k);                                                            \
                    s += a * xr[idx[k]];                                                          \
                    yr[idx[k]] += a * xi;                                                         \
                })
#define UPPER_OFF_ROWS(NAME, VAL) UPPER_ROWS(NAME, VAL, int16_t, off16, i)
#define UPPER_COL_ROWS(NAME, VAL) UPPER_ROWS(NAME, VAL, int, col, 0)

/* the segment of runs r holding row lo: seg_start[a] <= lo < seg_start[a + 1] */
static int run_segment(const ovk__runs *r, int lo)
{
    int a = 0, b = r->nseg;
    while (b - a > 1) {
        int mid = (a + b) / 2;
        if (r->seg_start[mid] <= lo) a = mid;
        else b = mid;
    }
    return a;
}

/* OFF_ROWS on the compact copy of the rows between runs (ovk__strips):
 * rows [lo, hi) of segment s of the runs */
#define GAP_ROWS(NAME, VAL)                                                                       \
    static double NAME(const ovk__csr *m, int s, const double *restrict x, double *restrict y,    \
                       int lo, int hi, double dot)                                                \
    {                                                                                             \
        const ovk__strips *t = m->strips;                                                         \
        int c = t->gap_row0[s] + lo - m->runs->seg_start[s];                                      \
        const int *restrict ptr = t->gap_ptr;                                                     \
        const int16_t *restrict off = t->gap_off;                                                 \
        const double *restrict val = t->gap_val;                                                  \
        const float *restrict valf = t->gap_valf;                                                 \
        const uint8_t *restrict vidx = t->gap_idx;                                                \
        const double *restrict dict = m->vdict;                                                   \
        (void)val, (void)valf, (void)vidx, (void)dict;                                            \
        for (int i = lo; i < hi; i++, c++) { /* c: row i among the rows between runs */          \
            const double *restrict xb = x + i;                                                    \
            double sum = 0.0;                                                                     \
            for (int k = ptr[c]; k < ptr[c + 1]; k++) sum += VAL(k) * xb[off[k]];                 \
            y[i] = sum;                                                                           \
            dot += x[i] * sum;                                                                    \
        }                                                                                         \
        return dot;                                                                               \
    }

GAP_ROWS(gap_rows_d, VAL_D)
GAP_ROWS(gap_rows_f, VAL_F)
GAP_ROWS(gap_rows_8, VAL_8)
COL_ROWS(col_rows_d, VAL_D)
COL_ROWS(col_rows_f, VAL_F)
COL_ROWS(col_rows_8, VAL_8)
FAR_ROWS(far_rows_d, VAL_D)
FAR_ROWS(far_rows_f, VAL_F)
FAR_ROWS(far_rows_8, VAL_8)
OFF_ROWS(off_rows_d, VAL_D)
OFF_ROWS(off_rows_f, VAL_F)
OFF_ROWS(off_rows_8, VAL_8)
UPPER_OFF_ROWS(upper_rows_d, VAL_D)
UPPER_OFF_ROWS(upper_rows_f, VAL_F)
UPPER_OFF_ROWS(upper_rows_8, VAL_8)
UPPER_COL_ROWS(upper_col_rows_d, VAL_D)
UPPER_COL_ROWS(upper_col_rows_f, VAL_F)
UPPER_COL_ROWS(upper_col_rows_8, VAL_8)

typedef double (*rows_fn)(const ovk__csr *, const double *, double *, int, int, double);

/* the row kernel of a diag block's storage form */
static rows_fn pick_rows(const ovk__csr *m)
{
    static const rows_fn col[3] = {col_rows_d, col_rows_f, col_rows_8};
    static const rows_fn off[3] = {off_rows_d, off_rows_f, off_rows_8};
    static const rows_fn upper[3] = {upper_rows_d, upper_rows_f, upper_rows_8};
    static const rows_fn upper_col[3] = {upper_col_rows_d, upper_col_rows_f, upper_col_rows_8};
    static const rows_fn far[3] = {far_rows_d, far_rows_f, far_rows_8};
    if (m->upper) return m->off16 ? upper[m->vform] : upper_col[m->vform];
    if (m->esc16) return far[m->vform];
    return m->off16 ? off[m->vform] : col[m->vform];
}

/* rows [lo, hi) outside runs: those of strips by the strip kernels, the
 * others by their entries (plain, the kernel of the block's form) */
static double plain_rows(const ovk__csr *m, rows_fn plain, const double *x, double *y, int lo, int hi, double dot)
{
    const ovk__strips *t = m->strips;
    if (!t) return plain(m, x, y, lo, hi, dot);
    int a = 0, b = t->nseg; /* the first strip ending after lo: seg_hi[a] > lo */
    while (a < b) {
        int mid = (a + b) / 2;
        if (t->seg_hi[mid] <= lo) a = mid + 1;
        else b = mid;
    }
    for (int s = a; s < t->nseg && t->seg_lo[s] < hi; s++) {
        int from = t->seg_lo[s] > lo ? t->seg_lo[s] : lo;
        int to = t->seg_hi[s] < hi ? t->seg_hi[s] : hi;
        if (lo < from) dot = plain(m, x, y, lo, from, dot);
        dot = ovk__strip_rows(m, s, plain, x, y, from, to, dot);
        lo = to;
    }
    return lo < hi ? plain(m, x, y, lo, hi, dot) : dot;
}

/* rows [lo, hi) of a block with runs: each run by its shared row, the rows
 * between runs from their compact copy where made, else as plain_rows does */
static double runs_rows(const ovk__csr *m, rows_fn plain, const double *x, double *y, int lo, int hi, double dot)
{
    typedef double (*gap_fn)(const ovk__csr *, int, const double *, double *, int, int, double);
    static const gap_fn gaps[3] = {gap_rows_d, gap_rows_f, gap_rows_8};
    const ovk__runs *r = m->runs;
    gap_fn gap = m->strips && m->strips->gap_ptr ? gaps[m->vform] : NULL; /* their compact copy */
    for (int s = run_segment(r, lo); s < r->nseg && r->seg_start[s] < hi; s++) {
        int from = r->seg_start[s] > lo ? r->seg_start[s] : lo;
        int to = r->seg_start[s + 1] < hi ? r->seg_start[s + 1] : hi;
        int p = r->seg_pat[s];
        if (p < 0 && gap) dot = gap(m, s, x, y, from, to, dot);
        else if (p < 0) dot = plain_rows(m, plain, x, y, from, to, dot);
        else
            dot = ovk__run_rows(r->pat_off + r->pat_ptr[p], r->pat_val + r->pat_ptr[p],
                                r->pat_ptr[p + 1] - r->pat_ptr[p], x, y, from, to, dot);
    }
    return dot;
}

/* rows [lo, hi) of the diag block m, whatever its forms */
static double diag_rows(const ovk__csr *m, rows_fn plain, const double *x, double *y, int lo, int hi, double dot)
{
    if (m->slices) return ovk__slice_rows(m, plain, x, y, lo, hi, dot);
    if (m->runs) return runs_rows(m, plain, x, y, lo, hi, dot);
    return plain_rows(m, plain, x, y, lo, hi, dot);
}

/* y += O ext for every row that has offd entries; returns dot plus
 * x_i (O ext)_i */
static double offd_rows(const ovk__csr *m, const double *restrict ext, const double *restrict x,
                        double *restrict y, double dot)
{
    const int *restrict ptr = m->rowptr, *restrict col = m->col;
    const double *restrict val = m->val;
    for (int i = 0; i < m->nrows; i++) {
        if (ptr[i] == ptr[i + 1]) continue;
        double s = 0.0;
        for (int k = ptr[i]; k < ptr[i + 1]; k++) s += val[k] * ext[col[k]];
        y[i] += s;
        dot += x[i] * s;
    }
    return dot;
}

/* y = A x, the local <x, y> into *xy: the diag block in chunks with the
 * hook while the halo flies, then the offd block */
static int matvec_pass(const ovk_matrix *A, const double *x, double *y, double *xy, const ovk__hook *hook)
{
    int rc = ovk__halo_begin(A, x);
    if (rc) return rc;
    int n = A->lay.nlocal, step = ovk__chunk_rows(n, hook);
    rows_fn rows = pick_rows(&A->diag);
    double dot = 0.0;
    if (A->diag.upper) memset(y, 0, sizeof(double) * (size_t)n);
    for (int lo = 0; lo < n; lo += step) {
        int hi = ovk__chunk_end(lo, step, n);
        dot = diag_rows(&A->diag, rows, x, y, lo, hi, dot);
        ovk__poke(hook);
    }
    rc = ovk__halo_end(A);
    if (rc) return rc;
    if (A->ncols_offd > 0) dot = offd_rows(&A->offd, A->halo.ext, x, y, dot);
    *xy = dot;
    return OVK_OK;
}

int ovk__matvec(const ovk_matrix *A, const double *x, double *y, const ovk__hook *hook)
{
    double xy;
    return matvec_pass(A, x, y, &xy, hook);
}

int ovk__matvec_dot(const ovk_matrix *A, const double *x, double *y, double *xy, const ovk__hook *hook)
{
    return matvec_pass(A, x, y, xy, hook);
}

/* ---- the multi-vector product ------------------------------------------
 *
 * Without runs, the diag block is applied to up to MULTI_MAX vectors at
 * once, interleaved (x_j of row i at x[i k + j]): each entry read once
 * for the k vectors, their values contiguous.  Each vector's sums are
 * made in the single kernels' order (the same rows, entries, additions),
 * so each product is bitwise the single one's. */
enum { MULTI_MAX = 16 };

/* the kernels' start: k (W, or kk at run time), the block's arrays, the
 * sums; ATTR a function attribute (an instruction set) or nothing */
#define MULTI_HEAD(NAME, IDX_T, IDX, W, ATTR)                                                      \
    ATTR static void NAME(const ovk__csr *m, int kk, const double *restrict x, double *restrict y, \
                          int lo, int hi, double *restrict dot)                                    \
    {                                                                                             \
        const int k = (W) ? (W) : kk;                                                             \
        ROW_ARRAYS;                                                                               \
        const IDX_T *restrict idx = m->IDX;                                                       \
        double s[MULTI_MAX];

/* y = D x on k interleaved vectors, rows [lo, hi), dot[j] += x_ij y_ij */
#define PLAIN_MULTI(NAME, VAL, IDX_T, IDX, BASE, W, ATTR)                                         \
    MULTI_HEAD(NAME, IDX_T, IDX, W, ATTR)                                                         \
        for (int i = lo; i < hi; i++) {                                                           \
            for (int j = 0; j < k; j++) s[j] = 0.0;                                               \
            for (int q = ptr[i]; q < ptr[i + 1]; q++) {                                           \
                double a = VAL(q);                                                                \
                const double *restrict xc = x + (size_t)((BASE) + idx[q]) * (size_t)k;            \
                for (int j = 0; j < k; j++) s[j] += a * xc[j];                                    \
            }                                                                                     \
            const double *restrict xi = x + (size_t)i * (size_t)k;                                \
            for (int j = 0; j < k; j++) {                                                         \
                y[(size_t)i * (size_t)k + (size_t)j] = s[j];                                      \
                dot[j] += xi[j] * s[j];                                                           \
            }                                                                                     \
        }                                                                                         \
    }
/* the same for a block that keeps its upper triangle (UPPER_ROWS) */
#define UPPER_MULTI(NAME, VAL, IDX_T, IDX, BASE, W, ATTR)                                         \
    MULTI_HEAD(NAME, IDX_T, IDX, W, ATTR)                                                         \
        double xv[MULTI_MAX]; /* row i's x values, in registers */                               \
        for (int i = lo; i < hi; i++) {                                                           \
            double *restrict yi = y + (size_t)i * (size_t)k;                                      \
            int q = ptr[i];                                                                       \
            double d = VAL(q); /* a_ii first */                                                   \
            for (int j = 0; j < k; j++) xv[j] = x[(size_t)i * (size_t)k + (size_t)j];             \
            for (int j = 0; j < k; j++) s[j] = yi[j] + d * xv[j];                                 \
            for (q++; q < ptr[i + 1]; q++) {                                                      \
                double a = VAL(q);                                                                \
                const double *restrict xc = x + (size_t)((BASE) + idx[q]) * (size_t)k;            \
                double *restrict yc = y + (size_t)((BASE) + idx[q]) * (size_t)k;                  \
                for (int j = 0; j < k; j++) s[j] += a * xc[j];                                    \
                for (int j = 0; j < k; j++) yc[j] += a * xv[j];                                   \
            }                                                                                     \
            for (int j = 0; j < k; j++) {                                                         \
                yi[j] = s[j];                                                                     \
                dot[j] += xv[j] * s[j];                                                           \
            }                                                                                     \
        }                                                                                         \
    }

/* each form at a width of 4, 8 (registers: the compiler unrolls the
 * vectors' loops) or any (k at run time) */
#define PLAIN_FORMS(SUFFIX, W, ATTR)                                                               \
    PLAIN_MULTI(col_multi_d##SUFFIX, VAL_D, int, col, 0, W, ATTR)                                  \
    PLAIN_MULTI(col_multi_f##SUFFIX, VAL_F, int, col, 0, W, ATTR)                                  \
    PLAIN_MULTI(col_multi_8##SUFFIX, VAL_8, int, col, 0, W, ATTR)                                  \
    PLAIN_MULTI(off_multi_d##SUFFIX, VAL_D, int16_t, off16, i, W, ATTR)                            \
    PLAIN_MULTI(off_multi_f##SUFFIX, VAL_F, int16_t, off16, i, W, ATTR)                            \
    PLAIN_MULTI(off_multi_8##SUFFIX, VAL_8, int16_t, off16, i, W, ATTR)
#define MULTI_FORMS(SUFFIX, W, ATTR)                                                               \
    PLAIN_FORMS(SUFFIX, W, ATTR)                                                                   \
    UPPER_MULTI(upper_multi_d##SUFFIX, VAL_D, int16_t, off16, i, W, ATTR)                          \
    UPPER_MULTI(upper_multi_f##SUFFIX, VAL_F, int16_t, off16, i, W, ATTR)                          \
    UPPER_MULTI(upper_multi_8##SUFFIX, VAL_8, int16_t, off16, i, W, ATTR)                          \
    UPPER_MULTI(upper_col_multi_d##SUFFIX, VAL_D, int, col, 0, W, ATTR)                            \
    UPPER_MULTI(upper_col_multi_f##SUFFIX, VAL_F, int, col, 0, W, ATTR)                            \
    UPPER_MULTI(upper_col_multi_8##SUFFIX, VAL_8, int, col, 0, W, ATTR)
MULTI_FORMS(_any, 0, )
MULTI_FORMS(_4, 4, )
MULTI_FORMS(_8, 8, )
#if defined(__x86_64__) && defined(__GNUC__)
/* Widths 4 and 8 in AVX2 registers (a row's k sums in one or two): the
 * same multiplications and additions lane by lane (no FMA: -ffp-contract
 * is off), so the same bits.  The upper form's updates of the rows below
 * are written with vector types (the compiler leaves them scalar). */
#define MULTI_AVX2 1
#define AVX2 __attribute__((target("avx2")))
typedef double multi_v4d __attribute__((vector_size(32)));
/* entries ahead whose interleaved rows the int-column kernels prefetch
 * (columns scattered over the block miss the caches otherwise): a few
 * rows of a finite-element matrix, far enough ahead to cover a miss to
 * memory (a row's own next entries come too late) */
enum { MULTI_PREFETCH = 128 };
#define UPPER_MULTI_V(NAME, VAL, IDX_T, IDX, BASE, NV, PF)                                        \
    AVX2 static void NAME(const ovk__csr *m, int kk, const double *restrict x, double *restrict y,  \
                          int lo, int hi, double *restrict dot)                                    \
    {                                                                                             \
        enum { K = 4 * (NV) };                                                                    \
        const int nnz = m->rowptr[m->nrows];                                                      \
        (void)nnz;                                                                                \
        ROW_ARRAYS;                                                                               \
        const IDX_T *restrict idx = m->IDX;                                                       \
        multi_v4d s[NV], xv[NV], t, zero = {0};                                                   \
        (void)kk;                                                                                 \
        for (int i = lo; i < hi; i++) {                                                           \
            double *yi = y + (size_t)i * K;                                                       \
            int q = ptr[i];                                                                       \
            multi_v4d d = VAL(q) - zero; /* a_ii in every lane (x - 0 is x, -0 included) */      \
            for (int v = 0; v < (NV); v++) {                                                      \
                memcpy(&xv[v], x + (size_t)i * K + 4 * v, sizeof t);                              \
                memcpy(&t, yi + 4 * v, sizeof t);                                                 \
                s[v] = t + d * xv[v];                                                             \
            }                                                                                     \
            for (q++; q < ptr[i + 1]; q++) {                                                      \
                multi_v4d a = VAL(q) - zero;                                                      \
                size_t c = (size_t)((BASE) + idx[q]) * K;                                         \
                if ((PF) && q + MULTI_PREFETCH < nnz) { /* the rows a later entry will touch */   \
                    size_t f = (size_t)idx[q + MULTI_PREFETCH] * K;                               \
                    __builtin_prefetch(x + f);                                                    \
                    __builtin_prefetch(y + f, 1);                                                 \
                }                                                                                 \
                for (int v = 0; v < (NV); v++) {                                                  \
                    memcpy(&t, x + c + 4 * v, sizeof t);                                          \
                    s[v] += a * t;                                                                \
                    memcpy(&t, y + c + 4 * v, sizeof t);                                          \
                    t += a * xv[v];                                                               \
                    memcpy(y + c + 4 * v, &t, sizeof t);                                          \
                }                                                                                 \
            }                                                                                     \
            for (int v = 0; v < (NV); v++) memcpy(yi + 4 * v, &s[v], sizeof t);                  \
            for (int j = 0; j < K; j++) dot[j] += x[(size_t)i * K + (size_t)j] * yi[j];           \
        }                                                                                         \
    }
#define MULTI_FORMS_AVX2(SUFFIX, W)                                                                \
    PLAIN_FORMS(SUFFIX, W, AVX2)                                                                   \
    UPPER_MULTI_V(upper_multi_d##SUFFIX, VAL_D, int16_t, off16, i, (W) / 4, 0)                     \
    UPPER_MULTI_V(upper_multi_f##SUFFIX, VAL_F, int16_t, off16, i, (W) / 4, 0)                     \
    UPPER_MULTI_V(upper_multi_8##SUFFIX, VAL_8, int16_t, off16, i, (W) / 4, 0)                     \
    UPPER_MULTI_V(upper_col_multi_d##SUFFIX, VAL_D, int, col, 0, (W) / 4, 1)                       \
    UPPER_MULTI_V(upper_col_multi_f##SUFFIX, VAL_F, int, col, 0, (W) / 4, 1)                       \
    UPPER_MULTI_V(upper_col_multi_8##SUFFIX, VAL_8, int, col, 0, (W) / 4, 1)
MULTI_FORMS_AVX2(_4_avx2, 4)
MULTI_FORMS_AVX2(_8_avx2, 8)

/* a[0..3] (4 rows of 4 doubles) transposed */
AVX2 static inline void transpose4(__m256d a[4])
{
    __m256d t0 = _mm256_unpacklo_pd(a[0], a[1]), t1 = _mm256_unpackhi_pd(a[0], a[1]);
    __m256d t2 = _mm256_unpacklo_pd(a[2], a[3]), t3 = _mm256_unpackhi_pd(a[2], a[3]);
    a[0] = _mm256_permute2f128_pd(t0, t2, 0x20);
    a[1] = _mm256_permute2f128_pd(t1, t3, 0x20);
    a[2] = _mm256_permute2f128_pd(t0, t2, 0x31);
    a[3] = _mm256_permute2f128_pd(t1, t3, 0x31);
}

/* interleave() for k = 4 or 8: 4 rows of 4 vectors per 4x4 transpose */
AVX2 static void interleave_avx2(int n, int k, const double *const *X, double *restrict xb)
{
    const double *x[8];
    for (int j = 0; j < k; j++) x[j] = X[j];
    int i = 0;
    for (; i + 4 <= n; i += 4)
        for (int g = 0; g < k; g += 4) {
            __m256d a[4];
            for (int r = 0; r < 4; r++) a[r] = _mm256_loadu_pd(x[g + r] + i);
            transpose4(a);
            for (int r = 0; r < 4; r++) _mm256_storeu_pd(xb + (size_t)(i + r) * (size_t)k + (size_t)g, a[r]);
        }
    for (; i < n; i++)
        for (int j = 0; j < k; j++) xb[(size_t)i * (size_t)k + (size_t)j] = x[j][i];
}

/* deinterleave() for k = 4 or 8 */
AVX2 static void deinterleave_avx2(int k, double *restrict yb, double *const *Y, int lo, int hi)
{
    double *y[8];
    for (int j = 0; j < k; j++) y[j] = Y[j];
    const __m256d zero = _mm256_setzero_pd();
    int i = lo;
    for (; i + 4 <= hi; i += 4)
        for (int g = 0; g < k; g += 4) {
            __m256d a[4];
            for (int r = 0; r < 4; r++) {
                double *yr = yb + (size_t)(i + r) * (size_t)k + (size_t)g;
                a[r] = _mm256_loadu_pd(yr);
                _mm256_storeu_pd(yr, zero);
            }
            transpose4(a);
            for (int r = 0; r < 4; r++) _mm256_storeu_pd(y[g + r] + i, a[r]);
        }
    for (; i < hi; i++)
        for (int j = 0; j < k; j++) {
            y[j][i] = yb[(size_t)i * (size_t)k + (size_t)j];
            yb[(size_t)i * (size_t)k + (size_t)j] = 0.0;
        }
}
#endif

typedef void (*multi_fn)(const ovk__csr *, int, const double *, double *, int, int, double *);

/* the instruction set of the multi-vector kernels: -1 until first asked */
static _Atomic int multi_isa = -1;

int ovk__multi_set_kernels(int isa)
{
    int best = OVK__RUN_GENERIC;
#ifdef MULTI_AVX2
    if (ovk__cpu_isa(0) >= OVK__RUN_AVX2) best = OVK__RUN_AVX2;
#endif
    if (isa < 0 || isa > best) isa = best;
    atomic_store_explicit(&multi_isa, isa, memory_order_relaxed);
    return isa;
}

/* whether the products of k vectors run the AVX2 kernels and copies */
static int multi_avx2(int k)
{
#ifdef MULTI_AVX2
    int isa = atomic_load_explicit(&multi_isa, memory_order_relaxed);
    if (isa < 0) isa = ovk__multi_set_kernels(-1);
    return (k == 4 || k == 8) && isa == OVK__RUN_AVX2;
#else
    (void)k;
    return 0;
#endif
}

/* the kernel of m's storage form for k vectors */
static multi_fn pick_multi(const ovk__csr *m, int k)
{
#define MULTI_TABLE(W)                                                                             \
    {{col_multi_d##W, col_multi_f##W, col_multi_8##W}, {off_multi_d##W, off_multi_f##W, off_multi_8##W}, \
     {upper_col_multi_d##W, upper_col_multi_f##W, upper_col_multi_8##W},                           \
     {upper_multi_d##W, upper_multi_f##W, upper_multi_8##W}}
    static const multi_fn any[4][3] = MULTI_TABLE(_any), four[4][3] = MULTI_TABLE(_4), eight[4][3] = MULTI_TABLE(_8);
    int form = 2 * (m->upper != 0) + (m->off16 != NULL);
#ifdef MULTI_AVX2
    static const multi_fn four_avx2[4][3] = MULTI_TABLE(_4_avx2), eight_avx2[4][3] = MULTI_TABLE(_8_avx2);
    if (multi_avx2(k))
        return (k == 8 ? eight_avx2 : four_avx2)[form][m->vform];
#endif
#undef MULTI_TABLE
    return (k == 8 ? eight : k == 4 ? four : any)[form][m->vform];
}

/* Entries of the diag block per chunk of the multi-vector product: about
 * 100 KB of columns and values, which stay in cache while the k vectors'
 * kernels pass over the chunk. */
enum { MULTI_CHUNK_ENTRIES = 8192 };

/* rows per chunk of the multi-vector product (no more than the hook's) */
static int multi_chunk_rows(const ovk_matrix *A, const ovk__hook *hook)
{
    int n = A->lay.nlocal;
    double per_row = n > 0 ? (double)A->diag.rowptr[n] / n : 1.0;
    int step = (int)(MULTI_CHUNK_ENTRIES / (per_row > 1.0 ? per_row : 1.0));
    if (step < 16) step = 16;
    int every = ovk__chunk_rows(n, hook);
    return every < step ? every : step;
}

/* xb[i k + j] = X[j][i] (k a constant where inlined with one) */
static inline void interleave(int n, int k, const double *const *X, double *restrict xb)
{
    for (int i = 0; i < n; i++) {
        double *restrict xr = xb + (size_t)i * (size_t)k;
        for (int j = 0; j < k; j++) xr[j] = X[j][i];
    }
}

/* Y[j][i] = yb[i k + j] for rows [lo, hi), and those rows of yb zeroed
 * again (in cache: the next product's upper-form sums start from 0) */
static inline void deinterleave(int k, double *restrict yb, double *const *Y, int lo, int hi)
{
    for (int i = lo; i < hi; i++) {
        double *restrict yr = yb + (size_t)i * (size_t)k;
        for (int j = 0; j < k; j++) {
            Y[j][i] = yr[j];
            yr[j] = 0.0;
        }
    }
}

/* interleave() with the instruction set and width of the kernels */
static void copy_in(int n, int k, const double *const *X, double *xb)
{
#ifdef MULTI_AVX2
    if (multi_avx2(k)) {
        interleave_avx2(n, k, X, xb);
        return;
    }
#endif
    if (k == 8) interleave(n, 8, X, xb);
    else if (k == 4) interleave(n, 4, X, xb);
    else interleave(n, k, X, xb);
}

/* deinterleave() likewise */
static void copy_out(int k, double *yb, double *const *Y, int lo, int hi)
{
#ifdef MULTI_AVX2
    if (multi_avx2(k)) {
        deinterleave_avx2(k, yb, Y, lo, hi);
        return;
    }
#endif
    if (k == 8) deinterleave(8, yb, Y, lo, hi);
    else if (k == 4) deinterleave(4, yb, Y, lo, hi);
    else deinterleave(k, yb, Y, lo, hi);
}

/* Y[j] = D X[j], j < k <= MULTI_MAX, through interleaved copies xb, yb
 * (n k doubles each; yb zero on entry and on return): the block read
 * once, dot[j] += <X[j], D X[j]>.  The rows go in cache-sized chunks; a
 * chunk's y rows are final once it is done (the upper form's later rows
 * add to rows below them only), so they go out to Y while still in cache. */
static void diag_interleaved(const ovk_matrix *A, int k, const double *const *X, double *const *Y, double *xb,
                             double *yb, double *dot, const ovk__hook *hook)
{
    int n = A->lay.nlocal, every = ovk__chunk_rows(n, hook), step = multi_chunk_rows(A, hook);
    multi_fn rows = pick_multi(&A->diag, k);
    copy_in(n, k, X, xb);
    for (int lo = 0, since = 0; lo < n; lo += step) {
        int hi = ovk__chunk_end(lo, step, n);
        rows(&A->diag, k, xb, yb, lo, hi, dot);
        copy_out(k, yb, Y, lo, hi);
        since += hi - lo;
        if (since >= every) {
            ovk__poke(hook);
            since = 0;
        }
    }
    ovk__poke(hook);
}

/* Y[j] += O ext_j for every row with offd entries (ext interleaved: the
 * value of column c for vector j at ext[c k + j]), dot[j] += X[j]_i (O
 * ext_j)_i: the rows read once for up to MULTI_MAX vectors, each vector's
 * sum in offd_rows' order (k a constant where inlined with one) */
#if defined(__GNUC__)
#define MULTI_INLINE static inline __attribute__((always_inline)) /* k made a constant at each call */
#else
#define MULTI_INLINE static inline
#endif
MULTI_INLINE void offd_rows_multi(const ovk_matrix *A, int k, const double *restrict ext, const double *const *X,
                             double *const *Y, double *dot)
{
    const ovk__csr *m = &A->offd;
    const int *restrict ptr = m->rowptr, *restrict col = m->col;
    const double *restrict val = m->val;
    double s[MULTI_MAX], d[MULTI_MAX];
    const double *x[MULTI_MAX];
    double *y[MULTI_MAX];
    for (int j0 = 0; j0 < k; j0 += MULTI_MAX) {
        int kb = k - j0 < MULTI_MAX ? k - j0 : MULTI_MAX;
        for (int j = 0; j < kb; j++) { /* in registers: Y's stores cannot alias them */
            x[j] = X[j0 + j];
            y[j] = Y[j0 + j];
            d[j] = dot[j0 + j];
        }
        for (int i = 0; i < m->nrows; i++) {
            if (ptr[i] == ptr[i + 1]) continue;
            for (int j = 0; j < kb; j++) s[j] = 0.0;
            for (int q = ptr[i]; q < ptr[i + 1]; q++) {
                double a = val[q];
                const double *restrict e = ext + (size_t)col[q] * (size_t)k + (size_t)j0;
                for (int j = 0; j < kb; j++) s[j] += a * e[j];
            }
            for (int j = 0; j < kb; j++) {
                y[j][i] += s[j];
                d[j] += x[j][i] * s[j];
            }
        }
        for (int j = 0; j < kb; j++) dot[j0 + j] = d[j];
    }
}

enum { SCRATCH_HUGE = 2 << 20 }; /* a huge page */

/* *buf holds at least need doubles (*have of them now): kept when it
 * does, else replaced (by zeros when zeroed) */
static int scratch_grow(double **buf, size_t *have, size_t need, int zeroed, const char *what, int k)
{
    if (*have >= need) return OVK_OK;
    free(*buf);
    *have = 0;
    void *p = NULL;
    size_t bytes = sizeof(double) * need;
    /* a cache line per row of 8 interleaved values; past 2 MiB, huge pages
       where the kernel gives them on request (the columns scattered over
       8 times a vector's pages would miss the TLB) */
    size_t align = bytes >= SCRATCH_HUGE ? SCRATCH_HUGE : 64;
    if (posix_memalign(&p, align, bytes)) p = NULL;
    if (!(*buf = p)) return ovk__fail(OVK_ENOMEM, "%s of %d vectors", what, k);
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    if (align == SCRATCH_HUGE) (void)madvise(p, bytes, MADV_HUGEPAGE); /* a hint: refused, it changes nothing */
#endif
    if (zeroed) memset(p, 0, bytes);
    *have = need;
    return OVK_OK;
}

void ovk__multi_scratch_free(ovk__multi_scratch *ws)
{
    free(ws->xb);
    free(ws->yb);
    free(ws->ext);
    free(ws->dot);
    ovk__halo_multi_free(&ws->halo);
    memset(ws, 0, sizeof *ws);
}

/* ws has room for k vectors: grown when k exceeds every earlier k (the
 * same test on every rank), the outcome agreed, so that no rank starts a
 * product its peers cannot finish */
static int scratch_reserve(const ovk_matrix *A, int k, ovk__multi_scratch *ws)
{
    if (k <= ws->kcap) return OVK_OK;
    size_t len = (size_t)(A->lay.nlocal > 0 ? A->lay.nlocal : 1) * (size_t)(k < MULTI_MAX ? k : MULTI_MAX);
    int rc = scratch_grow(&ws->dot, &ws->dot_len, (size_t)k + 1, 0, "the sums", k);
    if (!rc && !A->diag.runs) rc = scratch_grow(&ws->xb, &ws->xb_len, len, 0, "the interleaved copies", k);
    if (!rc && !A->diag.runs) rc = scratch_grow(&ws->yb, &ws->yb_len, len, 1, "the interleaved copies", k);
    if (!rc) rc = scratch_grow(&ws->ext, &ws->ext_len, (size_t)k * A->ncols_offd + 1, 0, "the external values", k);
    if (!rc) rc = ovk__halo_multi_reserve(A, k, &ws->halo);
    rc = ovk__agree(A->lay.comm, rc);
    if (!rc) ws->kcap = k;
    return rc;
}

/* the diag block's products of the k vectors one by one, chunk by chunk,
 * with the single product's kernels (dot[j] += their sums) */
static void diag_each(const ovk_matrix *A, int k, const double *const *X, double *const *Y, double *dot,
                      const ovk__hook *hook)
{
    int n = A->lay.nlocal, step = multi_chunk_rows(A, hook);
    rows_fn rows = pick_rows(&A->diag);
    for (int j = 0; j < k && A->diag.upper; j++) memset(Y[j], 0, sizeof(double) * (size_t)n);
    for (int lo = 0; lo < n; lo += step) {
        int hi = ovk__chunk_end(lo, step, n);
        for (int j = 0; j < k; j++)
            dot[j] = diag_rows(&A->diag, rows, X[j], Y[j], lo, hi, dot[j]);
        ovk__poke(hook);
    }
}

/* the diag block's products of the k vectors (dot[j] += their sums), in
 * ws reserved for k: one by one with runs (a run's row is read once
 * anyway), or when ws has no interleaved room (reserved while the block
 * had runs, which new values took away) */
static void diag_multi(const ovk_matrix *A, int k, const double *const *X, double *const *Y, double *dot,
                       const ovk__hook *hook, ovk__multi_scratch *ws)
{
    size_t room = (size_t)(A->lay.nlocal > 0 ? A->lay.nlocal : 1) * (size_t)(k < MULTI_MAX ? k : MULTI_MAX);
    if (A->diag.runs || ws->xb_len < room || ws->yb_len < room) {
        diag_each(A, k, X, Y, dot, hook);
        return;
    }
    for (int j0 = 0; j0 < k; j0 += MULTI_MAX) { /* MULTI_MAX vectors per pass over the block */
        int kb = k - j0 < MULTI_MAX ? k - j0 : MULTI_MAX;
        diag_interleaved(A, kb, X + j0, Y + j0, ws->xb, ws->yb, dot + j0, hook);
    }
}

int ovk__matvec_multi_with(const ovk_matrix *A, int k, const double *const *X, double *const *Y, double *xy,
                           const ovk__hook *hook, ovk__multi_scratch *ws)
{
    int rc = scratch_reserve(A, k, ws);
    if (rc) return rc;
    double *dot = ws->dot;
    memset(dot, 0, sizeof(double) * (size_t)k);
    rc = ovk__halo_multi_begin(A, k, X, &ws->halo);
    if (rc) { /* a failed post: the posted messages complete before anything else */
        MPI_Waitall(A->halo.nrecv + A->halo.nsend, ws->halo.reqs, MPI_STATUSES_IGNORE);
        return rc;
    }
    diag_multi(A, k, X, Y, dot, hook, ws);
    rc = ovk__halo_multi_end(A, &ws->halo, ws->ext);
    if (rc) return rc;
    if (A->ncols_offd > 0 && k == 8) offd_rows_multi(A, 8, ws->ext, X, Y, dot);
    else if (A->ncols_offd > 0) offd_rows_multi(A, k, ws->ext, X, Y, dot);
    if (xy) memcpy(xy, dot, sizeof(double) * (size_t)k);
    return OVK_OK;
}

int ovk__matvec_multi(const ovk_matrix *A, int k, const double *const *X, double *const *Y, double *xy,
                      const ovk__hook *hook)
{
    ovk__multi_scratch ws = {0};
    int rc = ovk__matvec_multi_with(A, k, X, Y, xy, hook, &ws);
    ovk__multi_scratch_free(&ws);
    return rc;
}

/* bytes of nnz values of m as the matvec reads them */
static double value_bytes(const ovk__csr *m, double nnz)
{
    if (m->vform == OVK__VAL_DICT8) return nnz + 8.0 * m->ndict;
    return nnz * (m->vform == OVK__VAL_FLOAT ? 4.0 : 8.0);
}

/* bytes of rows read entry by entry: their row pointers (and far
 * pointers), nnz values and columns, far of them in the far list */
static double entry_bytes(const ovk__csr *d, double rows, double nnz, double far)
{
    if (d->esc16) return 8.0 * rows + value_bytes(d, nnz) + 2.0 * nnz + 4.0 * far;
    return 4.0 * rows + value_bytes(d, nnz) + (d->off16 ? 2.0 : 4.0) * nnz;
}

/* bytes of the rows [lo, hi) of d read entry by entry (no runs or strips) */
static double row_bytes(const ovk__csr *d, int lo, int hi)
{
    double far = d->esc16 ? d->far_ptr[hi] - d->far_ptr[lo] : 0.0;
    return entry_bytes(d, hi - lo, d->rowptr[hi] - d->rowptr[lo], far);
}

/* bytes of a sliced diag block: each lane's row and length, the slices'
 * values and columns, the plain slices' rows and the rows after the windows */
static double slice_bytes(const ovk__csr *d)
{
    const ovk__slices *s = d->slices;
    double b = 8.0 * s->nslice * OVK__SLICE_ROWS + 8.0 * (double)s->slots + (double)s->idx_bytes;
    for (int c = 0; c < s->nslice; c++) {
        if (s->kind[c] != OVK__SLICE_PLAIN) continue;
        for (int r = 0; r < OVK__SLICE_ROWS; r++)
            b += row_bytes(d, s->row[c * OVK__SLICE_ROWS + r], s->row[c * OVK__SLICE_ROWS + r] + 1);
    }
    return b + row_bytes(d, s->nslice * OVK__SLICE_ROWS, d->nrows);
}

/* bytes of the diag block the matvec reads: rowptr, columns and values of
 * the rows it reads entry by entry, with runs the segments and the shared
 * rows (each read once: a run's row stays in cache), with strips their
 * offset lists and block-transposed values */
static double diag_bytes(const ovk__csr *d)
{
    if (d->slices) return slice_bytes(d);
    const ovk__runs *r = d->runs;
    const ovk__strips *t = d->strips;
    double rows = d->nrows, nnz = d->rowptr[d->nrows], b = 0.0;
    if (t && t->nseg > 0) {
        for (int s = 0; s < t->nseg; s++)
            nnz -= (double)(t->seg_hi[s] - t->seg_lo[s]) * (t->pat_ptr[t->seg_pat[s] + 1] - t->pat_ptr[t->seg_pat[s]]);
        rows -= t->rows;
        b += 24.0 * t->nseg + 4.0 * t->pat_ptr[t->npat] + (double)t->nstored;
    }
    if (r) {
        for (int s = 0; s < r->nseg; s++)
            if (r->seg_pat[s] >= 0) nnz -= (double)(r->seg_start[s + 1] - r->seg_start[s]) *
                                           (d->rowptr[r->seg_start[s] + 1] - d->rowptr[r->seg_start[s]]);
        rows -= r->run_rows;
        b += 8.0 * r->nseg + 12.0 * r->pat_ptr[r->npat];
    }
    return b + entry_bytes(d, rows + 1, nnz, d->esc16 ? d->far_ptr[d->nrows] : 0.0);
}

double ovk__matvec_bytes(const ovk_matrix *A)
{
    const ovk__csr *d = &A->diag, *o = &A->offd;
    const ovk__halo *h = &A->halo;
    double n = A->lay.nlocal, b = 0.0;
    b += diag_bytes(d);      /* diag block */
    b += 8.0 * n + 8.0 * n; /* x, y */
    if (A->ncols_offd > 0) {
        int rows = 0;
        for (int i = 0; i < o->nrows; i++) rows += o->rowptr[i + 1] > o->rowptr[i];
        b += 4.0 * (n + 1) + 12.0 * o->rowptr[o->nrows] + 8.0 * A->ncols_offd; /* offd, ext */
        b += 16.0 * rows;                                                     /* y_i += */
    }
    b += 20.0 * h->send_ptr[h->nsend]; /* send_idx, x gathered, send_buf */
    return b;
}

/* the local checks of ovk_matvec's vectors */
static int check_matvec(const ovk_matrix *A, const ovk_vector *x, const ovk_vector *y)
{
    if (!x || !y) return ovk__fail(OVK_EINVAL, "ovk_matvec: NULL vector");
    if (x == y || (x->n > 0 && x->data == y->data)) return ovk__fail(OVK_EINVAL, "ovk_matvec: x and y must be distinct");
    int rc = ovk__layout_check(x->lay, "x", &A->lay, "the matrix", "ovk_matvec");
    if (rc) return rc;
    return ovk__layout_check(y->lay, "y", &A->lay, "the matrix", "ovk_matvec");
}

/* solves in whose operator or preconditioner callback the rank now is */
static OVK__RANK_LOCAL int in_callback;

void ovk__matvec_in_callback(int delta) { in_callback += delta; }

/* A failed check inside a callback: the neighbours' halo served with NaN,
 * y NaN where it is A's, the failure the caller's (the solve's next sum
 * carries it to every rank) */
static int fail_in_callback(const ovk_matrix *A, ovk_vector *y, int bad)
{
    if (y && y->data)
        for (int i = 0; i < y->n; i++) y->data[i] = NAN;
    int rc = ovk__halo_begin(A, NULL);
    if (!rc) rc = ovk__halo_end(A);
    return rc ? rc : bad;
}

int ovk_matvec(const ovk_matrix *A, const ovk_vector *x, ovk_vector *y)
{
    if (!A) return ovk__fail(OVK_EINVAL, "ovk_matvec: NULL matrix");
    int bad = check_matvec(A, x, y);
    if (in_callback && bad) return fail_in_callback(A, y, bad);
    /* outside a solve agreed: a rank that fails its checks must not leave
       the others in the halo exchange */
    int rc = in_callback ? OVK_OK : ovk__agree(A->lay.comm, bad);
    if (rc) return rc;
    return ovk__matvec(A, x->data, y->data, NULL);
}

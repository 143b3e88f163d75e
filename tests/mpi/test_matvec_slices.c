/* Slices (rows eight at a time in SIMD lanes, ovk__slices):
 *   - the product of a sliced block is bitwise that of the same rows
 *     without slices, with every slice kernel this CPU has (the portable one
 *     everywhere), hook chunks that start and end inside windows (and ones
 *     shorter than a window), x holding infinities, and ovk__matvec_dot's
 *     <x, y> bit for bit, whole and in chunks;
 *   - a ragged pattern makes all three kinds of slice somewhere: 16-bit
 *     offsets, int columns (a column beyond 16 bits of its row), and plain
 *     (a long row whose padding would cost more than the entries), with
 *     rows reordered by length in their windows, empty rows, -0.0 values
 *     and rows after the last whole window;
 *   - the slices follow the values through ovk_matrix_update_values;
 *   - a block that keeps one triangle, or has runs, is never sliced.
 * Rows split by tp_split: the last rank owns none from 3 ranks on. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "matrix/matrix.h"
#include "mpitest.h"
#include "problem.h"

static int same_bits(const double *a, const double *b, int n) { return n == 0 || !memcmp(a, b, sizeof(double) * (size_t)n); }

static void no_op(void *arg) { (void)arg; }

static uint64_t hash(int64_t i, int64_t j) { return (uint64_t)i * 1000003u + (uint64_t)j * 7919u; }

/* Row g: a_gg first, then 0 to 11 entries at distinct offsets of step 1 to
 * 3; every 97th row 90 entries, every 500th row empty, with far_cols every
 * 61st row one column 35,000 away (the block's columns then stay int);
 * values with a -0.0 now and then (salt varies them). */
static void make_ragged(tp_rows *r, int salt, int far_cols)
{
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int64_t n = (int64_t)40003 * size;
    tp_rows_alloc(r, n, 92);
    for (int i = 0; i < r->count; i++) {
        int64_t g = r->start + i, step = 1 + g % 3;
        int len = r->ptr[i], want = g % 500 == 0 ? 0 : g % 97 == 0 ? 90 : 1 + (int)(hash(g, 1) % 12);
        for (int k = 0; k < want; k++) {
            int64_t d = k == 0 ? 0 : (k % 2 ? 1 : -1) * (int64_t)((k + 1) / 2) * (want == 90 ? 1 : step);
            if (g + d < 0 || g + d >= n) continue;
            r->col[len++] = g + d;
        }
        int64_t far = g + 35000 < n ? g + 35000 : g - 35000;
        if (far_cols && want && g % 61 == 0 && far >= 0) r->col[len++] = far;
        for (int k = r->ptr[i]; k < len; k++) {
            uint64_t h = hash(g, r->col[k]) + (uint64_t)salt;
            r->val[k] = h % 53 == 0 ? -0.0 : tp_value(h);
        }
        r->ptr[i + 1] = len;
    }
}

static ovk_matrix *make(const tp_rows *r, int mode)
{
    ovk_matrix *A = NULL;
    int old = ovk__slice_set_mode(mode);
    MT_RC(OVK_OK, ovk_matrix_create_csr(MPI_COMM_WORLD, r->start, r->count, r->ptr, r->col, r->val, OVK_DUP_REJECT, &A));
    ovk__slice_set_mode(old);
    return A;
}

/* every slice kernel and hook chunking on A against y0 and xy0 (collective) */
static void check_kernels(const char *name, ovk_matrix *A, const double *x, const double *y0, double xy0, double *y)
{
    int n = ovk_matrix_nlocal(A);
    static const int every[] = {0, 5, 200, 333, 1000}; /* 5: no whole window in a chunk; the rest cut windows */
    static const int isas[] = {OVK__RUN_GENERIC, OVK__RUN_AVX512, -1};
    for (int c = 0; c < 3; c++) {
        int isa = ovk__slice_set_kernels(isas[c]);
        for (int e = 0; e < 5; e++) {
            ovk__hook h = {no_op, NULL, every[e]};
            MT_RC(OVK_OK, ovk__matvec(A, x, y, e ? &h : NULL));
            MT_CHECK(same_bits(y, y0, n), "%s: slices give another product (kernel %d, hook every %d rows)", name,
                     isa, every[e]);
        }
        for (int e = 0; e < 2; e++) {
            double xy = -1.0;
            MT_RC(OVK_OK, ovk__matvec_dot(A, x, y, &xy, e ? &(ovk__hook){no_op, NULL, 200} : NULL));
            MT_CHECK(same_bits(y, y0, n) && same_bits(&xy, &xy0, 1),
                     "%s: ovk__matvec_dot: another y or <x,y> (kernel %d, hook every %d rows)", name, isa, e ? 200 : 0);
        }
    }
}

/* the kinds of slice A has on any rank: bit k for OVK__SLICE_k (collective) */
static int kinds_of(const ovk_matrix *A)
{
    int bits = 0;
    const ovk__slices *s = A->diag.slices;
    for (int c = 0; s && c < s->nslice; c++) bits |= 1 << s->kind[c];
    MPI_Allreduce(MPI_IN_PLACE, &bits, 1, MPI_INT, MPI_BOR, MPI_COMM_WORLD);
    return bits;
}

/* r's matrix with and without slices: the same products; want_kinds the
 * kinds some rank must have */
static void check_matrix(const char *name, const tp_rows *r, int want_kinds)
{
    int n = r->count, m = n > 0 ? n : 1;
    ovk_matrix *A0 = make(r, OVK__SLICES_NEVER), *A = make(r, OVK__SLICES_ALWAYS);
    if (!A0 || !A) goto cleanup;
    MT_CHECK(!A0->diag.slices, "%s: sliced in mode NEVER", name);
    MT_CHECK(!A->diag.strips && !A->diag.runs, "%s: strips or runs, which the slices stand aside for", name);
    if (n >= OVK__SLICE_WINDOW) MT_CHECK(A->diag.slices, "%s: no slices in mode ALWAYS (%d rows)", name, n);
    int kinds = kinds_of(A);
    MT_CHECK((kinds & want_kinds) == want_kinds, "%s: slice kinds 0x%x, expected 0x%x at least", name, kinds, want_kinds);
    double *x = malloc(sizeof(double) * m), *y0 = malloc(sizeof(double) * m), *y = malloc(sizeof(double) * m);
    for (int pass = 0; pass < 2; pass++) { /* pass 1: some x_i infinite */
        for (int i = 0; i < n; i++) x[i] = pass && (r->start + i) % 389 == 0 ? INFINITY : 1.0 + tp_value((uint64_t)(r->start + i));
        double xy0 = -1.0;
        MT_RC(OVK_OK, ovk__matvec_dot(A0, x, y0, &xy0, NULL));
        check_kernels(name, A, x, y0, xy0, y);
    }
    free(x);
    free(y0);
    free(y);
cleanup:
    ovk_matrix_destroy(A0);
    ovk_matrix_destroy(A);
}

/* After ovk_matrix_update_values a sliced matrix multiplies as one made
 * with the new values, and keeps its slices. */
static void check_update(void)
{
    tp_rows a, b;
    make_ragged(&a, 0, 1);
    make_ragged(&b, 1, 1);
    int n = a.count, m = n > 0 ? n : 1;
    ovk_matrix *A = make(&a, OVK__SLICES_ALWAYS), *B = make(&b, OVK__SLICES_NEVER);
    double *x = malloc(sizeof(double) * m), *y0 = malloc(sizeof(double) * m), *y = malloc(sizeof(double) * m);
    for (int i = 0; i < n; i++) x[i] = 1.0 + tp_value((uint64_t)(a.start + i) * 3u);
    if (A && B) {
        int old = ovk__slice_set_mode(OVK__SLICES_ALWAYS); /* the update makes the form afresh */
        MT_RC(OVK_OK, ovk_matrix_update_values(A, b.ptr, b.col, b.val, OVK_DUP_REJECT));
        ovk__slice_set_mode(old);
        if (n >= OVK__SLICE_WINDOW) MT_CHECK(A->diag.slices, "update: the slices were lost");
        MT_RC(OVK_OK, ovk__matvec(B, x, y0, NULL));
        MT_RC(OVK_OK, ovk__matvec(A, x, y, NULL));
        MT_CHECK(same_bits(y, y0, n), "update: another product than a matrix made with the new values");
    }
    ovk_matrix_destroy(A);
    ovk_matrix_destroy(B);
    free(x);
    free(y0);
    free(y);
    tp_rows_free(&a);
    tp_rows_free(&b);
}

/* the 7-point Laplacian: symmetric (one triangle kept) or with runs, never sliced */
static void check_never_sliced(void)
{
    int old = ovk__slice_set_mode(OVK__SLICES_ALWAYS);
    ovk_matrix *L7 = NULL, *L27 = NULL;
    MT_RC(OVK_OK, tp_laplace(MPI_COMM_WORLD, 7, 20, 0.0, &L7));
    MT_RC(OVK_OK, tp_laplace(MPI_COMM_WORLD, 27, 20, 0.0, &L27));
    ovk__slice_set_mode(old);
    MT_CHECK(!L7 || !L7->diag.slices, "laplace7: sliced (upper %d, runs %d)", L7 ? L7->diag.upper : -1,
             L7 && L7->diag.runs);
    MT_CHECK(!L27 || !L27->diag.slices, "laplace27: sliced (upper %d, runs %d)", L27 ? L27->diag.upper : -1,
             L27 && L27->diag.runs);
    ovk_matrix_destroy(L7);
    ovk_matrix_destroy(L27);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    tp_rows r;
    make_ragged(&r, 0, 1);
    check_matrix("ragged", &r, 1 << OVK__SLICE_PLAIN | 1 << OVK__SLICE_NARROW | 1 << OVK__SLICE_WIDE);
    tp_rows_free(&r);
    make_ragged(&r, 0, 0); /* every column within 16 bits: the block's 16-bit offsets */
    check_matrix("ragged 16-bit", &r, 1 << OVK__SLICE_PLAIN | 1 << OVK__SLICE_NARROW);
    tp_rows_free(&r);
    check_update();
    check_never_sliced();
    int rc = mt_finish("test_matvec_slices");
    MPI_Finalize();
    return rc;
}

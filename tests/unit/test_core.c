/* Unit tests (one rank, MPI_COMM_SELF): status codes, CSR validation, the
 * local SpMV against a dense product, the vector kernels and their progress
 * hook, the Laplace generators against closed forms, solver bad input. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "matrix/matrix.h"
#include "solvers/methods/cg/fused.h"

static void test_status_codes(void **state)
{
    (void)state;
    for (int code = OVK_OK; code >= OVK_EPRECOND; code--) {
        assert_string_not_equal(ovk_strerror(code), "unknown status code");
        assert_string_not_equal(ovk_status_name(code), "OVK_UNKNOWN");
    }
    assert_string_equal(ovk_strerror(12345), "unknown status code");
    assert_int_equal(ovk__fail(OVK_EINVAL, "detail %d", 7), OVK_EINVAL);
    assert_string_equal(ovk_error_detail(), "detail 7");
}

/* A 3x3 matrix given row by row with global columns. */
static int make3(const int *rowptr, const ovk_gidx *cols, const double *vals, ovk_dup_policy d, ovk_matrix **A)
{
    return ovk_matrix_create_csr(MPI_COMM_SELF, 0, 3, rowptr, cols, vals, d, A);
}

static void test_csr_validation(void **state)
{
    (void)state;
    ovk_matrix *A = NULL;
    int rowptr[] = {0, 2, 3, 5};
    ovk_gidx cols[] = {0, 1, 1, 2, 2};
    double vals[] = {4, -1, 4, -1, 4};
    assert_int_equal(make3(rowptr, cols, vals, OVK_DUP_REJECT, &A), OVK_EINVAL); /* (2,2) twice */
    assert_null(A);
    assert_int_equal(make3(rowptr, cols, vals, OVK_DUP_SUM, &A), OVK_OK);
    assert_int_equal(ovk_matrix_nnz_local(A), 4);
    assert_true(A->diagonal[2] == 3.0); /* -1 + 4 summed */
    ovk_matrix_destroy(A);
    ovk_gidx bad_cols[] = {0, 3, 1, 2, 2};
    assert_int_equal(make3(rowptr, bad_cols, vals, OVK_DUP_SUM, &A), OVK_ECOLUMN);
    ovk_gidx neg_cols[] = {0, -1, 1, 2, 2};
    assert_int_equal(make3(rowptr, neg_cols, vals, OVK_DUP_SUM, &A), OVK_ECOLUMN);
    double nan_vals[] = {4, NAN, 4, -1, 4};
    assert_int_equal(make3(rowptr, cols, nan_vals, OVK_DUP_SUM, &A), OVK_ENONFINITE);
    int bad_ptr[] = {0, 2, 1, 5};
    assert_int_equal(make3(bad_ptr, cols, vals, OVK_DUP_SUM, &A), OVK_EINVAL);
    assert_int_equal(ovk_matrix_create_csr(MPI_COMM_SELF, 1, 3, rowptr, cols, vals, OVK_DUP_SUM, &A),
                     OVK_EPARTITION); /* one rank must start at row 0 */
    assert_int_equal(ovk_matrix_create_csr(MPI_COMM_SELF, 0, -1, rowptr, cols, vals, OVK_DUP_SUM, &A),
                     OVK_EINVAL);
    assert_int_equal(ovk_matrix_create_csr(MPI_COMM_SELF, 0, 3, NULL, cols, vals, OVK_DUP_SUM, &A), OVK_EINVAL);
    assert_null(A);
}

static double urand(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(*s >> 11) / 9007199254740992.0;
}

static void test_spmv_dense(void **state)
{
    (void)state;
    enum { N = 57 };
    static double dense[N][N];
    int rowptr[N + 1] = {0};
    ovk_gidx cols[N * N];
    double vals[N * N];
    uint64_t seed = 42;
    int nnz = 0;
    for (int i = 0; i < N; i++) {
        for (int j = 0; j < N; j++) {
            dense[i][j] = (urand(&seed) < 0.15 || i == j) ? urand(&seed) - 0.5 : 0.0;
            if (dense[i][j] != 0.0) {
                cols[nnz] = N - 1 - j; /* columns given out of order */
                vals[nnz++] = dense[i][N - 1 - j] = dense[i][N - 1 - j] == 0.0 ? 0.25 : dense[i][N - 1 - j];
            }
        }
        rowptr[i + 1] = nnz;
    }
    /* rebuild dense from what was passed, so the two agree exactly */
    memset(dense, 0, sizeof dense);
    for (int i = 0; i < N; i++)
        for (int k = rowptr[i]; k < rowptr[i + 1]; k++) dense[i][cols[k]] += vals[k];
    ovk_matrix *A = NULL;
    ovk_vector *x = NULL, *y = NULL;
    assert_int_equal(ovk_matrix_create_csr(MPI_COMM_SELF, 0, N, rowptr, cols, vals, OVK_DUP_SUM, &A), OVK_OK);
    assert_int_equal(ovk_vector_create(A, &x), OVK_OK);
    assert_int_equal(ovk_vector_create(A, &y), OVK_OK);
    for (int i = 0; i < N; i++) ovk_vector_data(x)[i] = urand(&seed);
    assert_int_equal(ovk_matvec(A, x, y), OVK_OK);
    for (int i = 0; i < N; i++) {
        double ref = 0.0;
        for (int j = 0; j < N; j++) ref += dense[i][j] * ovk_vector_data(x)[j];
        assert_true(fabs(ref - ovk_vector_data(y)[i]) <= 1e-13 * (1.0 + fabs(ref)));
    }
    assert_int_equal(ovk_matvec(A, x, x), OVK_EINVAL);
    assert_int_equal(ovk_matvec(A, NULL, y), OVK_EINVAL);
    ovk_vector_destroy(x);
    ovk_vector_destroy(y);
    ovk_matrix_destroy(A);
}

/* y = A x on a banded matrix with one pair of far entries: the diag block
 * keeps 16-bit column offsets only while every offset fits, and both forms
 * give bitwise the sum in the order the entries are stored. */
static void spmv_band(int n, int far, int expect_compact)
{
    int *rowptr = calloc((size_t)n + 1, sizeof(int));
    ovk_gidx *cols = malloc(sizeof(ovk_gidx) * 4 * (size_t)n);
    double *vals = malloc(sizeof(double) * 4 * (size_t)n);
    assert_non_null(rowptr);
    assert_non_null(cols);
    assert_non_null(vals);
    int nnz = 0;
    for (int i = 0; i < n; i++) {
        cols[nnz] = i, vals[nnz++] = 4.0 + i % 3;
        if (i > 0) cols[nnz] = i - 1, vals[nnz++] = -1.0 / (1 + i % 5);
        if (i + 1 < n) cols[nnz] = i + 1, vals[nnz++] = -1.0 / (2 + i % 5);
        if (i == 0) cols[nnz] = far, vals[nnz++] = 0.125;
        if (i == far) cols[nnz] = 0, vals[nnz++] = 0.125;
        rowptr[i + 1] = nnz;
    }
    ovk_matrix *A = NULL;
    ovk_vector *x = NULL, *y = NULL;
    assert_int_equal(ovk_matrix_create_csr(MPI_COMM_SELF, 0, n, rowptr, cols, vals, OVK_DUP_SUM, &A), OVK_OK);
    assert_int_equal(A->diag.off16 != NULL, expect_compact);
    assert_int_equal(A->diag.col == NULL, expect_compact);
    assert_int_equal(ovk_vector_create(A, &x), OVK_OK);
    assert_int_equal(ovk_vector_create(A, &y), OVK_OK);
    double *xd = ovk_vector_data(x), *yd = ovk_vector_data(y);
    for (int i = 0; i < n; i++) xd[i] = 1.0 / (1.0 + i % 11);
    assert_int_equal(ovk_matvec(A, x, y), OVK_OK);
    for (int i = 0; i < n; i++) {
        double ref = 0.0; /* diagonal first, then the columns in ascending order */
        ref += (4.0 + i % 3) * xd[i];
        if (i == far) ref += 0.125 * xd[0];
        if (i > 0) ref += -1.0 / (1 + i % 5) * xd[i - 1];
        if (i + 1 < n) ref += -1.0 / (2 + i % 5) * xd[i + 1];
        if (i == 0) ref += 0.125 * xd[far];
        assert_true(ref == yd[i]);
    }
    ovk_vector_destroy(x);
    ovk_vector_destroy(y);
    ovk_matrix_destroy(A);
    free(rowptr);
    free(cols);
    free(vals);
}

static void test_spmv_offsets(void **state)
{
    (void)state;
    spmv_band(40000, INT16_MAX, 1);     /* widest offset that fits */
    spmv_band(40000, INT16_MAX + 1, 0); /* one too wide: 32-bit columns */
}

static int hook_calls;
static void count_hook(void *arg)
{
    (void)arg;
    hook_calls++;
}

/* A symmetric band (offsets 1 and 7, one far pair) keeps only its upper
 * triangle, its columns as 16-bit offsets or (the far pair too far) as
 * int; the same band with one mirrored value changed keeps both.
 * Either way y = A x matches the rows summed out, with or without a
 * progress hook, and the block counts the entries of both triangles. */
static double band_value(int i, int j) /* the value of (i, j), symmetric */
{
    int lo = i < j ? i : j, d = abs(i - j);
    if (d == 0) return 8.0 + lo % 3;
    return d == 1 ? -1.0 / (2 + lo % 5) : 0.25 + 0.001 * (lo % 13);
}

static void spmv_upper(int n, int skew, int expect_upper)
{
    int *rowptr = calloc((size_t)n + 1, sizeof(int));
    ovk_gidx *cols = malloc(sizeof(ovk_gidx) * 6 * (size_t)n);
    double *vals = malloc(sizeof(double) * 6 * (size_t)n);
    assert_true(rowptr && cols && vals);
    const int reach[] = {-7, -1, 0, 1, 7};
    int nnz = 0, far = n - 1;
    for (int i = 0; i < n; i++) {
        for (int t = 0; t < 5; t++) {
            int j = i + reach[t];
            if (j < 0 || j >= n) continue;
            cols[nnz] = j;
            vals[nnz++] = band_value(i, j) + (skew && i == 6 && j == 5 ? 1e-3 : 0.0);
        }
        if (i == 0 || i == far) cols[nnz] = i == 0 ? far : 0, vals[nnz++] = 0.125;
        rowptr[i + 1] = nnz;
    }
    ovk_matrix *A = NULL;
    ovk_vector *x = NULL, *y = NULL, *y2 = NULL;
    assert_int_equal(ovk_matrix_create_csr(MPI_COMM_SELF, 0, n, rowptr, cols, vals, OVK_DUP_REJECT, &A), OVK_OK);
    assert_int_equal(A->diag.upper, expect_upper);
    assert_int_equal(A->diag.off16 != NULL, n - 1 <= INT16_MAX);
    assert_int_equal(ovk_matrix_nnz_local(A), nnz);
    /* ||A||_inf and the longest row, from either storage, as from the input */
    double norm_ref = 0.0, norm = 0.0;
    int longest_ref = 0, longest = 0;
    for (int i = 0; i < n; i++) {
        double row = 0.0;
        for (int k = rowptr[i]; k < rowptr[i + 1]; k++) row += fabs(vals[k]);
        norm_ref = fmax(norm_ref, row);
        if (rowptr[i + 1] - rowptr[i] > longest_ref) longest_ref = rowptr[i + 1] - rowptr[i];
    }
    assert_int_equal(ovk__matrix_row_stats(A, &norm, &longest), OVK_OK);
    assert_true(fabs(norm - norm_ref) <= 1e-15 * norm_ref);
    assert_int_equal(longest, longest_ref);
    assert_int_equal(ovk_vector_create(A, &x), OVK_OK);
    assert_int_equal(ovk_vector_create(A, &y), OVK_OK);
    assert_int_equal(ovk_vector_create(A, &y2), OVK_OK);
    double *xd = ovk_vector_data(x), *yd = ovk_vector_data(y);
    for (int i = 0; i < n; i++) xd[i] = 1.0 / (1.0 + i % 11);
    assert_int_equal(ovk_matvec(A, x, y), OVK_OK);
    for (int i = 0; i < n; i++) {
        double ref = 0.0, scale = 0.0;
        for (int k = rowptr[i]; k < rowptr[i + 1]; k++) {
            ref += vals[k] * xd[cols[k]];
            scale += fabs(vals[k] * xd[cols[k]]);
        }
        assert_true(fabs(ref - yd[i]) <= 1e-14 * scale);
    }
    ovk__hook h = {count_hook, NULL, 7};
    ovk_vector_set(y2, 99.0);
    assert_int_equal(ovk__matvec(A, xd, ovk_vector_data(y2), &h), OVK_OK);
    assert_memory_equal(ovk_vector_data(y2), yd, sizeof(double) * (size_t)n);
    /* new values, the storage form kept: y doubles with them */
    for (int k = 0; k < nnz; k++) vals[k] *= 2.0;
    assert_int_equal(ovk_matrix_update_values(A, rowptr, cols, vals, OVK_DUP_REJECT), OVK_OK);
    assert_int_equal(A->diag.upper, expect_upper);
    assert_int_equal(ovk_matvec(A, x, y2), OVK_OK);
    for (int i = 0; i < n; i++) assert_true(ovk_vector_data(y2)[i] == 2.0 * yd[i]);
    ovk_vector_destroy(x);
    ovk_vector_destroy(y);
    ovk_vector_destroy(y2);
    ovk_matrix_destroy(A);
    free(rowptr);
    free(cols);
    free(vals);
}

static void test_spmv_upper(void **state)
{
    (void)state;
    spmv_upper(1000, 0, 1);
    spmv_upper(1000, 1, 0);           /* a_65 != a_56 */
    spmv_upper(INT16_MAX + 2, 0, 1);  /* the far pair does not fit 16 bits: 32-bit columns, one triangle */
    spmv_upper(INT16_MAX + 2, 1, 0);
}
static void test_kernels(void **state)
{
    (void)state;
    enum { N = 100 };
    double x[N], y[N], z[N], d[N], r[N], yy;
    ovk__hook h = {count_hook, NULL, 7};
    for (int i = 0; i < N; i++) {
        x[i] = i + 1;
        y[i] = 2.0 * i;
        d[i] = 0.5;
        r[i] = 1.0;
    }
    assert_true(ovk__dot(N, x, x) == N * (N + 1.0) * (2.0 * N + 1.0) / 6.0);
    hook_calls = 0;
    ovk__axpy(N, 2.0, x, y, &h); /* y = 2i + 2(i+1) */
    assert_int_equal(hook_calls, (N + 6) / 7);
    for (int i = 0; i < N; i++) assert_true(y[i] == 4.0 * i + 2.0);
    ovk__zxpby(N, x, -1.0, x, z, NULL);
    for (int i = 0; i < N; i++) assert_true(z[i] == 0.0);
    ovk__xpay(N, x, 0.5, y, NULL); /* y = x + 0.5 y = 3i + 2 */
    for (int i = 0; i < N; i++) assert_true(y[i] == 3.0 * i + 2.0);
    ovk__mul_dot(N, d, x, z, &yy, &h);
    double ref = 0.0;
    for (int i = 0; i < N; i++) ref += 0.25 * x[i] * x[i];
    assert_true(fabs(yy - ref) <= 1e-12 * ref);
    ovk__axpy2(N, 2.0, x, z, x, r, NULL); /* z += 2x, r -= 2x */
    for (int i = 0; i < N; i++) assert_true(z[i] == 2.5 * (i + 1) && r[i] == 1.0 - 2.0 * (i + 1));
    ovk__axpy_dot(N, 1.0, x, r, &yy, NULL); /* r = 1 - (i+1) = -i */
    assert_true(yy == (N - 1.0) * N * (2.0 * N - 1.0) / 6.0);
}

/* |got - want| within a few roundings of the sum of |terms| (the fused
 * kernels sum in vector lanes, in another order than the reference) */
static void assert_sum_close(double got, double want, double scale)
{
    assert_true(fabs(got - want) <= 1e-13 * scale);
}

enum { FUSED_N = 101, FUSED_V = 9 };

static void assert_vectors_close(double got[FUSED_V][FUSED_N], double want[FUSED_V][FUSED_N])
{
    for (int j = 0; j < FUSED_V; j++)
        for (int i = 0; i < FUSED_N; i++) assert_true(fabs(got[j][i] - want[j][i]) <= 1e-14 * fabs(want[j][i]));
}

/* The fused single-reduction updates against the same steps written out one
 * by one: the vectors and the sums to rounding (a compiler may contract
 * a + b c into one fused operation, and the kernels sum in vector lanes).
 * Odd N and a hook every 7 rows cover the lane tails. */
static void test_fused_updates(void **state)
{
    (void)state;
    enum { N = FUSED_N, V = FUSED_V };
    enum { X, R, W, P, S, Z, NV, D, U };
    const double a = 0.375, b = -0.625;
    double vec[V][N], ref[V][N], v[OVK__V_COUNT], want[OVK__V_COUNT], scale[OVK__V_COUNT];
    for (int j = 0; j < V; j++)
        for (int i = 0; i < N; i++) vec[j][i] = ref[j][i] = (j == D ? 0.5 : 1.0) + 0.01 * ((i * (j + 3)) % 17) - 0.05 * j;
    ovk__hook h = {count_hook, NULL, 7};
    ovk__pipe_vecs pv = {.x = vec[X], .r = vec[R], .w = vec[W], .p = vec[P], .s = vec[S], .z = vec[Z],
                         .n = vec[NV], .d = vec[D]};
    hook_calls = 0;
    ovk__pipecg_update(N, a, b, &pv, v, &h);
    assert_int_equal(hook_calls, (N + 6) / 7);
    memset(want, 0, sizeof want);
    memset(scale, 0, sizeof scale);
#define ACC(slot, t) (want[slot] += (t), scale[slot] += fabs(t))
    for (int i = 0; i < N; i++) {
        double u0 = ref[D][i] * ref[R][i];
        ACC(OVK__V_XX, ref[X][i] * ref[X][i]);
        ACC(OVK__V_UU, u0 * u0);
        ACC(OVK__V_WW, ref[W][i] * ref[W][i]);
        ref[Z][i] = ref[NV][i] + b * ref[Z][i];
        ref[S][i] = ref[W][i] + b * ref[S][i];
        ref[P][i] = u0 + b * ref[P][i];
        ref[X][i] += a * ref[P][i];
        ref[W][i] = ref[W][i] - a * ref[Z][i];
        ref[R][i] = ref[R][i] - a * ref[S][i];
        double u = ref[D][i] * ref[R][i], q = ref[D][i] * ref[S][i];
        ACC(OVK__V_GAMMA, ref[R][i] * u);
        ACC(OVK__V_DELTA, ref[W][i] * u);
        ACC(OVK__V_RR, ref[R][i] * ref[R][i]);
        ACC(OVK__V_US, u * ref[S][i]);
        ACC(OVK__V_PW, ref[P][i] * ref[W][i]);
        ACC(OVK__V_PS, ref[P][i] * ref[S][i]);
        ACC(OVK__V_PP, ref[P][i] * ref[P][i]);
        ACC(OVK__V_SS, ref[S][i] * ref[S][i]);
        ACC(OVK__V_QQ, q * q);
        ACC(OVK__V_ZZ, ref[Z][i] * ref[Z][i]);
    }
    assert_vectors_close(vec, ref);
    for (int k = 0; k < OVK__V_COUNT; k++) assert_sum_close(v[k], want[k], scale[k]);

    /* cg1: p = u + b p; s = w + b s; x += a p; r -= a s; u = d .* r */
    memset(want, 0, sizeof want);
    memset(scale, 0, sizeof scale);
    for (int i = 0; i < N; i++) {
        ACC(OVK__V_XX, ref[X][i] * ref[X][i]);
        ACC(OVK__V_UU, ref[U][i] * ref[U][i]);
        ACC(OVK__V_WW, ref[W][i] * ref[W][i]);
        ref[P][i] = ref[U][i] + b * ref[P][i];
        ref[S][i] = ref[W][i] + b * ref[S][i];
        ref[X][i] += a * ref[P][i];
        ref[R][i] = ref[R][i] - a * ref[S][i];
        ref[U][i] = ref[D][i] * ref[R][i];
        ACC(OVK__V_GAMMA, ref[R][i] * ref[U][i]);
        ACC(OVK__V_RR, ref[R][i] * ref[R][i]);
        ACC(OVK__V_US, ref[U][i] * ref[S][i]);
        ACC(OVK__V_PS, ref[P][i] * ref[S][i]);
        ACC(OVK__V_PP, ref[P][i] * ref[P][i]);
        ACC(OVK__V_SS, ref[S][i] * ref[S][i]);
    }
#undef ACC
    for (int k = 0; k < OVK__V_COUNT; k++) v[k] = -1.0; /* slots the kernel does not own stay */
    ovk__cg1_update(N, a, b, vec[D], vec[W], vec[U], vec[P], vec[S], vec[X], vec[R], v, &h);
    assert_vectors_close(vec, ref);
    const int owned[] = {OVK__V_GAMMA, OVK__V_RR, OVK__V_US, OVK__V_PS, OVK__V_XX,
                         OVK__V_PP,    OVK__V_SS, OVK__V_UU, OVK__V_WW};
    for (size_t k = 0; k < sizeof owned / sizeof owned[0]; k++) assert_sum_close(v[owned[k]], want[owned[k]], scale[owned[k]]);
    assert_true(v[OVK__V_DELTA] == -1.0 && v[OVK__V_PW] == -1.0 && v[OVK__V_QQ] == -1.0);
}

/* 27-point: each axis contributes (3g-2) (i,j) pairs with |i-j| <= 1. */
static void check_laplace(ovk_stencil st, int gx, int gy, int gz)
{
    ovk_matrix *A = NULL;
    assert_int_equal(ovk_laplace_create(MPI_COMM_SELF, st, gx, gy, gz, 1, 1, 1, &A), OVK_OK);
    int64_t n = (int64_t)gx * gy * gz, nnz;
    if (st == OVK_STENCIL_27)
        nnz = (int64_t)(3 * gx - 2) * (3 * gy - 2) * (3 * gz - 2);
    else
        nnz = n + 2 * ((int64_t)(gx - 1) * gy * gz + (int64_t)gx * (gy - 1) * gz + (int64_t)gx * gy * (gz - 1));
    assert_int_equal(ovk_matrix_nglobal(A), n);
    assert_int_equal(ovk_matrix_nnz_local(A), nnz);
    /* row sums: diagonal minus the number of neighbours inside the grid */
    ovk_vector *one = NULL, *y = NULL;
    assert_int_equal(ovk_vector_create(A, &one), OVK_OK);
    assert_int_equal(ovk_vector_create(A, &y), OVK_OK);
    ovk_vector_set(one, 1.0);
    assert_int_equal(ovk_matvec(A, one, y), OVK_OK);
    double diag = st == OVK_STENCIL_27 ? 26.0 : 6.0, norm = 0.0;
    int nb_max = 0, longest = 0;
    for (int k = 0, row = 0; k < gz; k++)
        for (int j = 0; j < gy; j++)
            for (int i = 0; i < gx; i++, row++) {
                int ax = 1 + (i > 0) + (i < gx - 1), ay = 1 + (j > 0) + (j < gy - 1), az = 1 + (k > 0) + (k < gz - 1);
                int nb = st == OVK_STENCIL_27 ? ax * ay * az - 1 : (ax - 1) + (ay - 1) + (az - 1);
                assert_true(ovk_vector_data(y)[row] == diag - nb);
                if (nb > nb_max) nb_max = nb;
            }
    /* ||A||_inf = diag + the most neighbours (each -1); the longest row */
    assert_int_equal(ovk__matrix_row_stats(A, &norm, &longest), OVK_OK);
    assert_true(norm == diag + nb_max);
    assert_int_equal(longest, nb_max + 1);
    ovk_vector_destroy(one);
    ovk_vector_destroy(y);
    ovk_matrix_destroy(A);
}

static void test_laplace(void **state)
{
    (void)state;
    check_laplace(OVK_STENCIL_27, 5, 4, 3);
    check_laplace(OVK_STENCIL_7, 5, 4, 3);
    check_laplace(OVK_STENCIL_27, 2, 2, 2);
    ovk_matrix *A = NULL;
    assert_int_equal(ovk_laplace_create(MPI_COMM_SELF, OVK_STENCIL_27, 4, 4, 4, 2, 1, 1, &A), OVK_EPARTITION);
    assert_int_equal(ovk_laplace_create(MPI_COMM_SELF, OVK_STENCIL_27, 0, 4, 4, 1, 1, 1, &A), OVK_EINVAL);
    assert_int_equal(ovk_laplace_create(MPI_COMM_SELF, (ovk_stencil)5, 4, 4, 4, 1, 1, 1, &A), OVK_EINVAL);
    assert_null(A);
}

/* Solve a 2x2 system; returns the status. */
static int solve2(const double a[4], const double bv[2], ovk_precond pc, int maxit, ovk_result *res)
{
    int rowptr[] = {0, 2, 4};
    ovk_gidx cols[] = {0, 1, 0, 1};
    ovk_matrix *A = NULL;
    ovk_vector *b = NULL, *x = NULL;
    int rc = ovk_matrix_create_csr(MPI_COMM_SELF, 0, 2, rowptr, cols, a, OVK_DUP_REJECT, &A);
    assert_int_equal(rc, OVK_OK);
    ovk_vector_create(A, &b);
    ovk_vector_create(A, &x);
    memcpy(ovk_vector_data(b), bv, 2 * sizeof(double));
    ovk_solve_options o;
    ovk_solve_options_init(&o);
    o.precond = pc;
    o.max_it = maxit;
    o.backend = "blocking";
    rc = ovk_solve(A, b, x, &o, res);
    ovk_vector_destroy(b);
    ovk_vector_destroy(x);
    ovk_matrix_destroy(A);
    return rc;
}

/* The CG-era names of 0.2 are aliases of the solver-neutral ones: the same types, the
 * same storage for tol/rtol and max_iter/max_it, the same defaults, the same solve. */
static void test_deprecated_names(void **state)
{
    (void)state;
    ovk_pcg_options old;
    ovk_solve_options now;
    ovk_pcg_options_init(&old);
    ovk_solve_options_init(&now);
    assert_memory_equal(&old, &now, sizeof now);
    assert_true(now.rtol == 1e-8 && now.max_it == 1000);
    old.tol = 1e-5;
    old.max_iter = 7;
    assert_true(old.rtol == 1e-5 && old.max_it == 7);
    assert_int_equal(_Generic(&old, ovk_solve_options *: 1, default: 0), 1);
    ovk_pcg_result *alias = NULL;
    assert_int_equal(_Generic(alias, ovk_result *: 1, default: 0), 1);
    size_t off_old, size_old, off_new, size_new;
    assert_int_equal(ovk_abi_field("ovk_pcg_result", "rhs_norm", &off_old, &size_old), OVK_OK);
    assert_int_equal(ovk_abi_field("ovk_result", "rhs_norm", &off_new, &size_new), OVK_OK);
    assert_true(off_old == off_new && size_old == size_new);
    char want[32];
    snprintf(want, sizeof want, "%d.%d.%d", OVK_VERSION_MAJOR, OVK_VERSION_MINOR, OVK_VERSION_PATCH);
    assert_string_equal(ovk_version(), want);

    int rowptr[] = {0, 1, 2};
    ovk_gidx cols[] = {0, 1};
    double vals[] = {2, 4};
    ovk_matrix *A = NULL;
    ovk_vector *b = NULL, *x = NULL;
    assert_int_equal(ovk_matrix_create_csr(MPI_COMM_SELF, 0, 2, rowptr, cols, vals, OVK_DUP_REJECT, &A), OVK_OK);
    assert_int_equal(ovk_vector_create(A, &b), OVK_OK);
    assert_int_equal(ovk_vector_create(A, &x), OVK_OK);
    ovk_vector_data(b)[0] = ovk_vector_data(b)[1] = 1.0;
    ovk_pcg_result res;
    old.backend = now.backend = "blocking";
    assert_int_equal(ovk_pcg_solve(A, b, x, &old, &res), OVK_OK);
    assert_int_equal(res.reason, OVK_REASON_CONVERGED);
    ovk_vector_data(x)[0] = ovk_vector_data(x)[1] = 0.0;
    ovk_result res2;
    assert_int_equal(ovk_solve(A, b, x, &now, &res2), OVK_OK);
    assert_int_equal(res2.iterations, res.iterations);
    ovk_vector_destroy(b);
    ovk_vector_destroy(x);
    ovk_matrix_destroy(A);
}

static void test_solver_bad_input(void **state)
{
    (void)state;
    ovk_result res;
    double spd[4] = {2, -1, -1, 2}, b[2] = {1, 1};
    assert_int_equal(solve2(spd, b, OVK_PRECOND_DIAG, 10, &res), OVK_OK);
    assert_int_equal(res.reason, OVK_REASON_CONVERGED);
    assert_true(res.iterations <= 2);
    double zero_diag[4] = {0, 1, 1, 2};
    assert_int_equal(solve2(zero_diag, b, OVK_PRECOND_DIAG, 10, &res), OVK_EZERODIAG);
    double neg_diag[4] = {-2, 1, 1, 2};
    assert_int_equal(solve2(neg_diag, b, OVK_PRECOND_DIAG, 10, &res), OVK_EZERODIAG);
    double indefinite[4] = {1, 0, 0, -1};
    assert_int_equal(solve2(indefinite, b, OVK_PRECOND_NONE, 10, &res), OVK_EBREAKDOWN);
    assert_int_equal(res.reason, OVK_REASON_BREAKDOWN);
    double nan_b[2] = {NAN, 1};
    assert_int_equal(solve2(spd, nan_b, OVK_PRECOND_DIAG, 10, &res), OVK_ENONFINITE);
    double zero_b[2] = {0, 0};
    assert_int_equal(solve2(spd, zero_b, OVK_PRECOND_DIAG, 10, &res), OVK_OK);
    assert_int_equal(res.iterations, 0);
    double aniso[4] = {1, 0.9, 0.9, 1}, b2[2] = {1, 0};
    assert_int_equal(solve2(aniso, b2, OVK_PRECOND_DIAG, 1, &res), OVK_EMAXIT);
    assert_int_equal(res.reason, OVK_REASON_MAXIT);
    assert_int_equal(res.iterations, 1);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_status_codes), cmocka_unit_test(test_csr_validation),
        cmocka_unit_test(test_spmv_dense),   cmocka_unit_test(test_spmv_offsets),
        cmocka_unit_test(test_spmv_upper),
        cmocka_unit_test(test_kernels),      cmocka_unit_test(test_fused_updates),
        cmocka_unit_test(test_laplace),      cmocka_unit_test(test_solver_bad_input),
        cmocka_unit_test(test_deprecated_names),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    MPI_Finalize();
    return failed ? 1 : 0;
}

/* Unit tests (one rank, MPI_COMM_SELF) of the kernels that merge passes:
 * each against the plain loops it replaces, bitwise.
 *   - ovk__alg1_update = ovk__axpy2, then DiagScale with its two sums;
 *   - ovk__mul_dot = ovk__mul, then ovk__dot(m, m);
 *   - ovk__matvec_dot = ovk__matvec, then ovk__dot (one rank: no offd), on
 *     the 27- and 7-point Laplacians (with runs of one repeated row and
 *     without) and a block with empty rows, in every value form;
 *   - every value form of a block gives bitwise the product of the double
 *     values, and a dictionary of more than 256 values is refused;
 *   - the apply_many of jacobi, ic0, ssor, cheby and amg: each system bitwise
 *     its apply (and apply_dots), for 1, 3, 4 and 8 systems;
 *   - ovk__dots_exact (plcg's Gram sums): a sum of 10^7-sized terms that
 *     cancel to 10^-3 comes out within 1e-14 of it (ovk__dots: 1.0004e-3
 *     there), more than 16 dots at once as one at a time; and every kernel
 *     path this CPU has (portable C, AVX2 + FMA, AVX-512: dots interleaved
 *     in groups, two per register) gives the bits of the portable one, for
 *     1..9 dots of 0..40 and 1,000-1,003 rows of wide-ranging magnitudes;
 * with and without the progress hook (chunks of 7 rows). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "matrix/matrix.h"
#include "precond/precond.h"
#include "solvers/methods/cg/fused.h"

static int pokes;
static void poke(void *arg)
{
    (void)arg;
    pokes++;
}

static double val_of(int i, int salt) { return 0.5 + (double)((i * 7919 + salt * 104729) % 1000) / 997.0; }

static void fill(double *v, int n, int salt)
{
    for (int i = 0; i < n; i++) v[i] = val_of(i, salt) - 0.9;
}

static int same(const double *a, const double *b, int n) { return !memcmp(a, b, sizeof(double) * (size_t)n); }

static void test_alg1_update(void **state)
{
    (void)state;
    enum { N = 1001 };
    static double p[N], x[N], s[N], r[N], d[N], x2[N], s2[N], r2[N];
    fill(p, N, 1);
    fill(x, N, 2);
    fill(s, N, 3);
    fill(r, N, 4);
    for (int i = 0; i < N; i++) d[i] = 1.0 + val_of(i, 5);
    memcpy(x2, x, sizeof x);
    memcpy(s2, s, sizeof s);
    memcpy(r2, r, sizeof r);
    for (int hooked = 0; hooked < 2; hooked++) {
        ovk__hook h = {hooked ? poke : NULL, NULL, 7};
        double rs, rr, rs2 = 0.0, rr2 = 0.0;
        pokes = 0;
        ovk__alg1_update(N, 0.37, p, x, s, r, d, &rs, &rr, &h);
        assert_true(!hooked || pokes == (N + 6) / 7);
        ovk__axpy2(N, 0.37, p, x2, s2, r2, NULL); /* x += a p; r -= a s */
        for (int i = 0; i < N; i++) {             /* s = r ./ d, as Jacobi's apply_dots */
            s2[i] = r2[i] / d[i];
            rs2 += r2[i] * s2[i];
            rr2 += r2[i] * r2[i];
        }
        assert_true(same(x, x2, N) && same(s, s2, N) && same(r, r2, N));
        assert_true(rs == rs2 && rr == rr2);
    }
}

static void test_mul_dot(void **state)
{
    (void)state;
    enum { N = 999 };
    static double d[N], w[N], m[N], m2[N];
    fill(d, N, 6);
    fill(w, N, 7);
    double mm;
    ovk__mul_dot(N, d, w, m, &mm, &(ovk__hook){poke, NULL, 7});
    ovk__mul(N, d, w, m2, NULL);
    assert_true(same(m, m2, N));
    assert_true(mm == ovk__dot(N, m2, m2));
}

/* rows of a g^3 Laplacian (stencil 7 or 27), or (g < 0) a -g-row block with
 * a non-symmetric pattern, empty rows and more than 256 distinct values */
static int make(int stencil, int g, ovk_matrix **A)
{
    int n = g > 0 ? g * g * g : -g, len = 0;
    int *ptr = calloc((size_t)n + 1, sizeof(int));
    ovk_gidx *col = malloc(sizeof(ovk_gidx) * 27 * (size_t)n);
    double *val = malloc(sizeof(double) * 27 * (size_t)n);
    for (int i = 0; i < n; i++) {
        if (g < 0) {
            for (int d = -2; d <= 3 && i % 5 != 2; d++)
                if (i + d >= 0 && i + d < n && (d == 0 || (i + d) % 3 != 0)) {
                    col[len] = i + d;
                    val[len++] = val_of(i, d + 3);
                }
        } else {
            int x = i % g, y = (i / g) % g, z = i / (g * g);
            for (int dz = -1; dz <= 1; dz++)
                for (int dy = -1; dy <= 1; dy++)
                    for (int dx = -1; dx <= 1; dx++) {
                        if (x + dx < 0 || y + dy < 0 || z + dz < 0 || x + dx >= g || y + dy >= g || z + dz >= g) continue;
                        if (stencil == 7 && abs(dx) + abs(dy) + abs(dz) > 1) continue;
                        col[len] = i + dx + g * (dy + g * dz);
                        val[len++] = (dx | dy | dz) ? -1.0 : stencil - 1.0;
                    }
        }
        ptr[i + 1] = len;
    }
    int rc = ovk_matrix_create_csr(MPI_COMM_SELF, 0, n, ptr, col, val, OVK_DUP_REJECT, A);
    free(ptr);
    free(col);
    free(val);
    return rc;
}

static void check_forms(ovk_matrix *A, int want)
{
    int n = ovk_matrix_nlocal(A);
    double *x = malloc(sizeof(double) * n), *y = malloc(sizeof(double) * n), *y0 = malloc(sizeof(double) * n);
    fill(x, n, 9);
    assert_int_equal(A->diag.vform, want);
    assert_int_equal(ovk__csr_pack_values(&A->diag, 1 << OVK__VAL_DOUBLE), OVK_OK);
    assert_int_equal(ovk__matvec(A, x, y0, NULL), OVK_OK);
    for (int allow = 1; allow <= OVK__VAL_ALLOW_ALL; allow += 2) { /* double in every mask */
        ovk__hook h = {poke, NULL, 7};
        double xy;
        assert_int_equal(ovk__csr_pack_values(&A->diag, allow), OVK_OK);
        assert_true(A->diag.vform == OVK__VAL_DOUBLE || (allow >> A->diag.vform) & 1);
        assert_int_equal(ovk__matvec_dot(A, x, y, &xy, allow & 2 ? &h : NULL), OVK_OK);
        assert_true(same(y, y0, n));
        assert_true(xy == ovk__dot(n, x, y0)); /* one rank: the same sum in the same order */
    }
    free(x);
    free(y);
    free(y0);
}

static void test_matvec_dot(void **state)
{
    (void)state;
    ovk_matrix *A = NULL;
    assert_int_equal(make(27, 9, &A), OVK_OK); /* grid lines of 7 inner rows: too short for runs */
    assert_true(A->diag.upper);
    assert_null(A->diag.runs);
    check_forms(A, OVK__VAL_DICT8);
    ovk_matrix_destroy(A);
    assert_int_equal(make(27, 12, &A), OVK_OK); /* lines of 10: runs, both triangles */
    assert_non_null(A->diag.runs);
    assert_false(A->diag.upper);
    check_forms(A, OVK__VAL_DICT8);
    ovk_matrix_destroy(A);
    assert_int_equal(make(7, 11, &A), OVK_OK);
    check_forms(A, OVK__VAL_DICT8);
    ovk_matrix_destroy(A);
    assert_int_equal(make(0, -2000, &A), OVK_OK); /* non-symmetric, empty rows, > 256 values */
    assert_false(A->diag.upper);
    check_forms(A, OVK__VAL_DOUBLE);
    ovk_matrix_destroy(A);
}

/* x: 500 terms of about 1e7, the same negated in reverse order, then 1e-3:
 * <x, y> = 1e-3 exactly for y with y[i] = y[999 - i] and y[1000] = 1 */
static void cancelling(double *x, double *y, int n)
{
    for (int i = 0; i < 500; i++) {
        x[i] = 1e7 * val_of(i, 6);
        x[999 - i] = -x[i];
        y[i] = y[999 - i] = val_of(i, 7);
    }
    x[1000] = 1e-3;
    y[1000] = 1.0;
    for (int i = 1001; i < n; i++) x[i] = y[i] = 0.0;
}

static void test_dots_exact(void **state)
{
    (void)state;
    enum { N = 1003, K = 18 };
    static double x[N], y[N];
    cancelling(x, y, N);
    const double *xs[K], *ys[K];
    for (int j = 0; j < K; j++) xs[j] = x, ys[j] = y;
    for (int hooked = 0; hooked < 2; hooked++) {
        ovk__hook h = {hooked ? poke : NULL, NULL, 7};
        double out[K], one;
        pokes = 0;
        ovk__dots_exact(N, K, xs, ys, out, &h);
        assert_true(!hooked || pokes == 2 * (N + 6) / 7); /* two groups of at most 16 */
        ovk__dots_exact(N, 1, xs, ys, &one, &h);
        for (int j = 0; j < K; j++) {
            assert_true(fabs(out[j] - 1e-3) <= 1e-3 * 1e-14);
            assert_true(out[j] == one);
        }
    }
}

/* x[j][i] of magnitudes from 2^-20 to 2^20 and both signs */
static double wide(int i, int j, int salt) { return ldexp(val_of(i + 31 * j, salt) - 0.97, (i * 13 + j * 5) % 41 - 20); }

static void test_dots_exact_paths(void **state)
{
    (void)state;
    enum { K = 9, ROWS = 1003 };
    static double x[K][ROWS], y[K][ROWS];
    const double *xs[K], *ys[K];
    for (int j = 0; j < K; j++) {
        for (int i = 0; i < ROWS; i++) x[j][i] = wide(i, j, 3), y[j][i] = wide(i, j, 4);
        xs[j] = x[j], ys[j] = y[j];
    }
    const int sizes[] = {0, 1, 3, 4, 5, 7, 8, 9, 40, 1000, 1001, 1002, 1003};
    int best = ovk__dot2_set_kernels(-1);
    for (size_t m = 0; m < sizeof sizes / sizeof sizes[0]; m++)
        for (int k = 1; k <= K; k++)
            for (int hooked = 0; hooked < 2; hooked++) {
                ovk__hook h = {hooked ? poke : NULL, NULL, 7};
                double ref[K], out[K];
                assert_int_equal(ovk__dot2_set_kernels(OVK__RUN_GENERIC), OVK__RUN_GENERIC);
                ovk__dots_exact(sizes[m], k, xs, ys, ref, &h);
                for (int isa = OVK__RUN_AVX2; isa <= best; isa++) {
                    assert_int_equal(ovk__dot2_set_kernels(isa), isa);
                    ovk__dots_exact(sizes[m], k, xs, ys, out, &h);
                    assert_memory_equal(out, ref, sizeof(double) * (size_t)k);
                }
            }
    ovk__dot2_set_kernels(-1);
}

/* A preconditioner's apply_many (spec: jacobi, ic0, ssor, cheby, amg): each
 * system bitwise apply's and, where it has one, apply_dots's, with a hook
 * (blocks cut by its rows) and without */
static void check_pc_many(const char *spec)
{
    enum { K = 8 };
    static const int ks[] = {1, 3, 4, K}; /* widths 4 and 8 have kernels of their own */
    ovk_matrix *A = NULL;
    ovk__pc pc = {0};
    assert_int_equal(make(7, 13, &A), OVK_OK);
    int n = A->lay.nlocal;
    ovk__pc_env env = {.A = A, .n = n, .comm = MPI_COMM_SELF};
    assert_int_equal(ovk__pc_create(spec, &pc), OVK_OK);
    assert_int_equal(pc.type->setup(pc.state, &env), OVK_OK);
    assert_non_null(pc.type->apply_many);
    double *r[K], *z[K], *ref = malloc(sizeof(double) * (size_t)n), rz[K], rr[K];
    for (int j = 0; j < K; j++) {
        r[j] = malloc(sizeof(double) * (size_t)n);
        z[j] = malloc(sizeof(double) * (size_t)n);
        for (int i = 0; i < n; i++) r[j][i] = val_of(i, j);
    }
    const ovk__hook hooks[] = {{NULL, NULL, 0}, {poke, NULL, 100}};
    for (int h = 0; h < 2; h++)
        for (int dots = 0; dots < 1 + (pc.type->apply_dots != NULL); dots++) {
            for (int c = 0; c < 4; c++) {
                int kk = ks[c];
                assert_int_equal(pc.type->apply_many(pc.state, kk, (const double *const *)r, z, dots ? rz : NULL,
                                                     dots ? rr : NULL, &hooks[h]),
                                 OVK_OK);
                for (int j = 0; j < kk; j++) {
                    double a = 0.0, b = 0.0;
                    if (dots) pc.type->apply_dots(pc.state, r[j], ref, &a, &b, NULL);
                    else pc.type->apply(pc.state, r[j], ref, NULL);
                    assert_memory_equal(z[j], ref, sizeof(double) * (size_t)n);
                    if (dots) assert_true(rz[j] == a && rr[j] == b);
                }
            }
        }
    for (int j = 0; j < K; j++) {
        free(r[j]);
        free(z[j]);
    }
    free(ref);
    ovk__pc_destroy(&pc);
    ovk_matrix_destroy(A);
}

static void test_pc_many(void **state)
{
    (void)state;
    static const char *const specs[] = {"jacobi", "ic0", "ssor", "ssor:omega=1.3", "cheby:degree=4",
#ifdef OVK_HAVE_HYPRE
                                        "amg", "amg:precision=double,smoother=l1jacobi",
#endif
    };
    for (size_t p = 0; p < sizeof specs / sizeof *specs; p++) check_pc_many(specs[p]);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_alg1_update),
        cmocka_unit_test(test_mul_dot),
        cmocka_unit_test(test_matvec_dot),
        cmocka_unit_test(test_dots_exact),
        cmocka_unit_test(test_dots_exact_paths),
        cmocka_unit_test(test_pc_many),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    MPI_Finalize();
    return failed ? 1 : 0;
}

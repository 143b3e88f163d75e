/* Unit tests (one rank): the scale-safe sums of squares (ovk__absmax,
 * ovk__sumsq_scaled, ovk__pow2_exponent, ovk_vector_norm2 at tiny and huge
 * scales), the own eigenvalue routines that replaced LAPACK inside a solve
 * (ovk__tridiag_extremes, ovk__sym_eig_max) against closed forms, and a
 * detail passed to ovk__fail as its own argument. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "matrix/matrix.h"
#include "solvers/solver.h" /* ovk__sym_eig_max */

static void test_pow2_exponent(void **state)
{
    (void)state;
    static const double ms[] = {1e-320, 1e-300, 0.3, 1.0, 7.0, 1e300, 1.7e308};
    for (int i = 0; i < (int)(sizeof ms / sizeof ms[0]); i++) {
        int k = ovk__pow2_exponent(ms[i]);
        double f = ldexp(ms[i], k);
        assert_true(abs(k) <= 1000);
        if (abs(k) < 1000) assert_true(f >= 0.5 && f < 1.0);
        else assert_true(f > 0x1p-75 && f < 0x1p25);
    }
    assert_int_equal(ovk__pow2_exponent(0.0), 0);
    assert_int_equal(ovk__pow2_exponent(INFINITY), 0);
    assert_int_equal(ovk__pow2_exponent(NAN), 0);
}

static void test_absmax_sumsq(void **state)
{
    (void)state;
    double x[5] = {1e-300, -3e-300, 2e-300, 0.0, -1e-301};
    assert_true(ovk__absmax(5, x) == 3e-300);
    assert_true(ovk__dot(5, x, x) == 0.0); /* the plain sum underflows */
    int k = ovk__pow2_exponent(ovk__absmax(5, x));
    double ss = ovk__sumsq_scaled(5, x, ldexp(1.0, k)), nrm = ldexp(sqrt(ss), -k);
    double want = 1e-300 * sqrt(1.0 + 9.0 + 4.0 + 0.01);
    assert_true(fabs(nrm - want) <= 1e-15 * want);
    x[3] = NAN;
    assert_true(isnan(ovk__absmax(5, x)));
    assert_true(ovk__absmax(0, x) == 0.0);
    assert_false(ovk__sumsq_plain_ok(0.0));
    assert_false(ovk__sumsq_plain_ok(INFINITY));
    assert_true(ovk__sumsq_plain_ok(1.0));
}

/* ovk_vector_norm2 on MPI_COMM_SELF: sqrt(n) a for v_i = +-a at every scale */
static void test_vector_norm2(void **state)
{
    (void)state;
    enum { N = 100 };
    int ptr[N + 1];
    ovk_gidx col[N];
    double val[N];
    for (int i = 0; i < N; i++) {
        ptr[i] = i;
        col[i] = i;
        val[i] = 1.0;
    }
    ptr[N] = N;
    ovk_matrix *A = NULL;
    ovk_vector *v = NULL;
    assert_int_equal(ovk_matrix_create_csr(MPI_COMM_SELF, 0, N, ptr, col, val, OVK_DUP_REJECT, &A), OVK_OK);
    assert_int_equal(ovk_vector_create(A, &v), OVK_OK);
    static const double as[] = {0.0, 5e-324, 1e-310, 1e-300, 1e-160, 1.0, 1e160, 1e300, 1e307};
    for (int k = 0; k < (int)(sizeof as / sizeof as[0]); k++) {
        double *d = ovk_vector_data(v), nrm = -1.0, want = 10.0 * as[k];
        for (int i = 0; i < N; i++) d[i] = (i % 3 ? as[k] : -as[k]);
        assert_int_equal(ovk_vector_norm2(v, &nrm), OVK_OK);
        double tol = as[k] < 1e-300 ? 1e-2 : 1e-14; /* subnormal entries hold few digits */
        assert_true(fabs(nrm - want) <= tol * want);
    }
    ovk_vector_data(v)[7] = 1e308; /* the true norm overflows: Inf, not NaN */
    for (int i = 0; i < N; i++) ovk_vector_data(v)[i] = 1e308;
    double nrm = 0.0;
    assert_int_equal(ovk_vector_norm2(v, &nrm), OVK_OK);
    assert_true(isinf(nrm));
    ovk_vector_destroy(v);
    ovk_matrix_destroy(A);
}

/* the 1-D Laplacian tridiag(-1, 2, -1) of size k: 2 - 2 cos(j pi / (k + 1)) */
static void test_tridiag_extremes(void **state)
{
    (void)state;
    static const int ks[] = {1, 2, 7, 50, 1000};
    double d[1000], e[1000];
    for (int t = 0; t < 5; t++) {
        int k = ks[t];
        for (int i = 0; i < k; i++) {
            d[i] = 2.0;
            e[i] = -1.0;
        }
        double lmin = 0.0, lmax = 0.0, pi = acos(-1.0);
        assert_int_equal(ovk__tridiag_extremes(k, d, e, &lmin, &lmax), 0);
        double wmin = 2.0 - 2.0 * cos(pi / (k + 1)), wmax = 2.0 - 2.0 * cos(k * pi / (k + 1));
        assert_true(fabs(lmin - wmin) <= 1e-13 * 4.0);
        assert_true(fabs(lmax - wmax) <= 1e-13 * 4.0);
    }
    d[3] = NAN;
    double a, b;
    assert_int_equal(ovk__tridiag_extremes(7, d, e, &a, &b), -1);
    /* a split matrix (e = 0): its diagonal's extremes */
    double d2[4] = {3.0, -1.0, 5.0, 0.5}, e2[3] = {0.0, 0.0, 0.0};
    assert_int_equal(ovk__tridiag_extremes(4, d2, e2, &a, &b), 0);
    assert_true(fabs(a + 1.0) < 1e-14 && fabs(b - 5.0) < 1e-14);
}

/* Q diag(ev) Q^T with a Householder Q: the largest of ev */
static void test_sym_eig_max(void **state)
{
    (void)state;
    enum { K = 10 };
    double ev[K], u[K], a[K * K], un = 0.0;
    for (int i = 0; i < K; i++) {
        ev[i] = 1.0 + i * i * 0.37 - (i == 4 ? 20.0 : 0.0);
        u[i] = sin(1.0 + i);
        un += u[i] * u[i];
    }
    for (int i = 0; i < K; i++)
        for (int j = 0; j < K; j++) {
            double s = 0.0;
            for (int t = 0; t < K; t++) {
                double qit = (i == t) - 2.0 * u[i] * u[t] / un, qjt = (j == t) - 2.0 * u[j] * u[t] / un;
                s += qit * ev[t] * qjt;
            }
            a[i + j * K] = s;
        }
    double top = ovk__sym_eig_max(K, a);
    assert_true(fabs(top - ev[K - 1]) <= 1e-13 * ev[K - 1]);
    double one[1] = {-3.0};
    assert_true(ovk__sym_eig_max(1, one) == -3.0);
    double bad[4] = {1.0, NAN, NAN, 1.0};
    assert_true(isnan(ovk__sym_eig_max(2, bad)));
}

static void test_detail_as_argument(void **state)
{
    (void)state;
    ovk__fail(OVK_EINVAL, "the first cause, %d", 42);
    assert_int_equal(ovk__fail(OVK_EMPI, "wrapped: %s", ovk_error_detail()), OVK_EMPI);
    assert_string_equal(ovk_error_detail(), "wrapped: the first cause, 42");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pow2_exponent),    cmocka_unit_test(test_absmax_sumsq),
        cmocka_unit_test(test_vector_norm2),     cmocka_unit_test(test_tridiag_extremes),
        cmocka_unit_test(test_sym_eig_max),      cmocka_unit_test(test_detail_as_argument),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    MPI_Finalize();
    return failed ? 1 : 0;
}

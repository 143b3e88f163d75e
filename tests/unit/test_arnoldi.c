/* Unit tests (one rank) of the GMRES family's shared parts (gmres.c):
 *   - ovk__arnoldi: the Givens rotations of a Hessenberg matrix give, for
 *     every k, the least-squares solution y of min ||beta e_1 - H_k y||
 *     (its normal equations hold) and the residual norm |g_k| the rotation
 *     returned; a zero column is reported singular;
 *   - ovk__gmres_dots and ovk__gmres_combine against plain loops, with the
 *     progress hook poked every chunk. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "solvers/solver.h"

enum { M = 7 };

static double val_of(int i, int salt) { return -0.5 + (double)((i * 7919 + salt * 104729) % 1000) / 997.0; }

static void test_least_squares(void **state)
{
    (void)state;
    ovk__arnoldi a;
    double H[M + 1][M], beta = 2.5; /* H[i][j], i <= j + 1 */
    assert_int_equal(ovk__arnoldi_alloc(&a, M), OVK_OK);
    memset(H, 0, sizeof H);
    for (int j = 0; j < M; j++)
        for (int i = 0; i <= j + 1; i++) H[i][j] = val_of(i * M + j, 3) + (i == j ? 2.0 : 0.0);
    ovk__arnoldi_start(&a, beta);
    for (int k = 1; k <= M; k++) {
        double *col = ovk__arnoldi_column(&a, k - 1);
        for (int i = 0; i <= k; i++) col[i] = H[i][k - 1];
        double res = ovk__arnoldi_rotate(&a, k - 1);
        assert_true(ovk__arnoldi_solve(&a, k) > 0.0);
        double r[M + 1]; /* r = beta e_1 - H_k y */
        for (int i = 0; i <= k; i++) {
            r[i] = i == 0 ? beta : 0.0;
            for (int j = 0; j < k; j++) r[i] -= H[i][j] * a.y[j];
        }
        double rr = 0.0;
        for (int i = 0; i <= k; i++) rr += r[i] * r[i];
        assert_true(fabs(sqrt(rr) - res) <= 1e-12 * beta);
        for (int j = 0; j < k; j++) { /* H_k^T r = 0 */
            double s = 0.0;
            for (int i = 0; i <= k; i++) s += H[i][j] * r[i];
            assert_true(fabs(s) <= 1e-12 * beta);
        }
    }
    ovk__arnoldi_start(&a, beta); /* a zero first column: singular */
    memset(ovk__arnoldi_column(&a, 0), 0, 2 * sizeof(double));
    ovk__arnoldi_rotate(&a, 0);
    assert_true(ovk__arnoldi_solve(&a, 1) == 0.0);
    ovk__arnoldi_free(&a);
}

static int pokes;
static void poke(void *arg)
{
    (void)arg;
    pokes++;
}

/* the multi-dot and multi-axpy over 1..9 vectors (every tail of their
 * blocks of four), an odd row count and a scale */
static void test_kernels(void **state)
{
    (void)state;
    enum { N = 5003, KMAX = 9 };
    ovk__ctx c;
    memset(&c, 0, sizeof c);
    c.n = N;
    c.hook = (ovk__hook){.fn = poke, .every = 1000};
    double *X[KMAX], w[N], y[N], ref[N], out[KMAX], coef[KMAX];
    for (int k = 0; k < KMAX; k++) {
        X[k] = malloc(sizeof(double) * N);
        for (int i = 0; i < N; i++) X[k][i] = val_of(i, k);
        coef[k] = val_of(k, 9);
    }
    for (int K = 1; K <= KMAX; K++) {
        for (int i = 0; i < N; i++) w[i] = y[i] = ref[i] = val_of(i, 11 + K);
        pokes = 0;
        ovk__gmres_dots(&c, K, (const double *const *)X, w, out);
        assert_true(pokes >= N / 1000);
        for (int k = 0; k < K; k++) {
            double s = 0.0;
            for (int i = 0; i < N; i++) s += X[k][i] * w[i];
            assert_true(fabs(out[k] - s) <= 1e-12 * N);
        }
        double scale = K % 2 ? 1.0 : -0.75;
        ovk__gmres_combine(&c, K, (const double *const *)X, coef, scale, y);
        for (int k = 0; k < K; k++)
            for (int i = 0; i < N; i++) ref[i] += coef[k] * X[k][i];
        for (int i = 0; i < N; i++) assert_true(fabs(y[i] - scale * ref[i]) <= 1e-14 * (1.0 + fabs(ref[i])));
    }
    for (int k = 0; k < KMAX; k++) free(X[k]);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_least_squares),
        cmocka_unit_test(test_kernels),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    MPI_Finalize();
    return failed ? 1 : 0;
}

/* Unit test (one rank) of gmres_kernels.c's DCGS2 sums: every version of the
 * two-vector dots this CPU runs (AVX-512, AVX2, the generic quads) gives
 * the same bits as the generic one, at every alignment of the rows, for
 * one to four basis vectors and row counts around the group of eight; and
 * each sum agrees with a plain loop to rounding. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

/* gmres_kernels.c, for tests: -1 when this CPU does not run version isa */
int ovk__gmres_dots4x2_by(int isa, int nx, const double *const *X, const double *u, const double *w, int lo, int hi,
                          double *ou, double *ow);

enum { N = 2100 };

static double val_of(int i, int salt) { return -0.5 + (double)((i * 7919 + salt * 104729) % 1000) / 997.0; }

static void test_same_bits(void **state)
{
    (void)state;
    static double x[4][N], u[N], w[N];
    for (int r = 0; r < N; r++) {
        for (int i = 0; i < 4; i++) x[i][r] = val_of(r, i + 1);
        u[r] = val_of(r, 11);
        w[r] = val_of(r, 13);
    }
    const double *X[4] = {x[0], x[1], x[2], x[3]};
    static const int counts[] = {0, 1, 7, 8, 9, 15, 16, 17, 2048, 2091};
    int runs = 0;
    for (int isa = 0; isa <= 2; isa++)
        for (int c = 0; c < 10; c++)
            for (int lo = 0; lo < 9; lo++)
                for (int nx = 1; nx <= 4; nx++) {
                    int hi = lo + counts[c];
                    double ou[4] = {0}, ow[4] = {0}, gu[4] = {0}, gw[4] = {0};
                    if (ovk__gmres_dots4x2_by(isa, nx, X, u, w, lo, hi, ou, ow) != 0) continue;
                    assert_int_equal(ovk__gmres_dots4x2_by(0, nx, X, u, w, lo, hi, gu, gw), 0);
                    assert_memory_equal(ou, gu, sizeof ou);
                    assert_memory_equal(ow, gw, sizeof ow);
                    for (int i = 0; i < nx; i++) {
                        double su = 0.0, sw = 0.0, mag = 0.0;
                        for (int r = lo; r < hi; r++) {
                            su += x[i][r] * u[r];
                            sw += x[i][r] * w[r];
                            mag += fabs(x[i][r]) * (fabs(u[r]) + fabs(w[r]));
                        }
                        assert_true(fabs(ou[i] - su) <= 1e-14 * mag + 1e-300);
                        assert_true(fabs(ow[i] - sw) <= 1e-14 * mag + 1e-300);
                    }
                    runs++;
                }
    assert_true(runs >= 360); /* the generic version at least */
    assert_int_equal(ovk__gmres_dots4x2_by(3, 1, X, u, w, 0, 8, (double[4]){0}, (double[4]){0}), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_bits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

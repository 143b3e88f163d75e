/* Unit tests (one rank, MPI_COMM_SELF) of the multi-vector product's
 * kernels, each instruction set forced by ovk__multi_set_kernels: the
 * portable ones (widths any, 4 and 8) and the AVX2 ones (widths 4 and 8,
 * where the CPU runs them).  For k = 1..9 and 16 vectors, on every storage
 * form of a diag block the multi kernels read (16-bit offsets or int
 * columns, both triangles or the upper one; values as double, float or a
 * one-byte dictionary), each product Y[j] and sum <X[j], Y[j]> is bitwise
 * that of the single product ovk__matvec_dot of X[j], with and without the
 * progress hook (chunks of 7 rows). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "matrix/matrix.h"

enum { KMAX = 16, FAR = 33000 }; /* FAR: an offset past 16 bits */

static void poke(void *arg) { (void)arg; }

/* An n-row block with couplings at offsets 1, 3 and far (both sides),
 * values from a few multiples of 1/4 (exact in float, few enough for the
 * dictionary) that vary along the rows (no runs of one repeated row):
 * symmetric when sym, else a nonsymmetric pattern with empty rows.  With
 * far past 16 bits, the rows more than 600 from both ends keep a_ii only
 * (the test stays short). */
static int middle(int i, int n, int far) { return far > 5 && i >= 600 && i < n - 600; }

static ovk_matrix *make(int n, int far, int sym)
{
    static const int offs[] = {0, -1, 1, -3, 3, 0, 0};
    int *ptr = calloc((size_t)n + 1, sizeof(int)), len = 0;
    ovk_gidx *col = malloc(sizeof(ovk_gidx) * 7 * (size_t)n);
    double *val = malloc(sizeof(double) * 7 * (size_t)n);
    for (int i = 0; i < n; i++) {
        int d[7];
        memcpy(d, offs, sizeof d);
        d[5] = -far, d[6] = far;
        for (int q = 0; q < 7 && (sym || i % 11 != 4); q++) {
            int j = i + d[q];
            if (j < 0 || j >= n || (q > 0 && (middle(i, n, far) || middle(j, n, far)))) continue;
            if (!sym && q > 0 && (i + j) % 4 == 1) continue;
            col[len] = j;
            val[len++] = q == 0 ? 8.0 + 0.25 * (i % 3) : sym ? 0.25 * ((i + j) % 5) - 1.0 : 0.25 * ((2 * i + 3 * j) % 7) - 1.0;
        }
        ptr[i + 1] = len;
    }
    ovk_matrix *A = NULL;
    assert_int_equal(ovk_matrix_create_csr(MPI_COMM_SELF, 0, n, ptr, col, val, OVK_DUP_REJECT, &A), OVK_OK);
    free(ptr);
    free(col);
    free(val);
    return A;
}

/* the multi-vector products of A with the kernels of isa against the
 * single ones (y1, xy1: KMAX vectors), for k = 1..9 and 16 */
static void check_isa(const ovk_matrix *A, int isa, const double *const *X, double *const *Y, double *const *y1,
                      const double *xy1)
{
    int n = A->lay.nlocal;
    assert_int_equal(ovk__multi_set_kernels(isa), isa);
    for (int k = 1; k <= KMAX; k = k == 9 ? KMAX : k + 1) {
        ovk__hook h = {k % 2 ? poke : NULL, NULL, 7};
        double xy[KMAX];
        for (int j = 0; j < k; j++) memset(Y[j], 0xff, sizeof(double) * (size_t)n); /* NaNs: every entry written */
        assert_int_equal(ovk__matvec_multi(A, k, X, Y, xy, &h), OVK_OK);
        for (int j = 0; j < k; j++) {
            assert_true(!memcmp(Y[j], y1[j], sizeof(double) * (size_t)n));
            assert_true(!memcmp(&xy[j], &xy1[j], sizeof(double)));
        }
    }
}

/* A's diag block in each value form: the kernels of every instruction set
 * against the single products; seen[form][vform] marks what ran */
static void check_matrix(ovk_matrix *A, int best, int seen[4][3])
{
    static const int allow[] = {1 << OVK__VAL_DOUBLE, (1 << OVK__VAL_DOUBLE) | (1 << OVK__VAL_FLOAT), OVK__VAL_ALLOW_ALL};
    int n = A->lay.nlocal;
    double *X[KMAX], *Y[KMAX], *y1[KMAX], xy1[KMAX];
    for (int j = 0; j < KMAX; j++) {
        X[j] = malloc(sizeof(double) * (size_t)n);
        Y[j] = malloc(sizeof(double) * (size_t)n);
        y1[j] = malloc(sizeof(double) * (size_t)n);
        for (int i = 0; i < n; i++) X[j][i] = (double)((i * 7919 + j * 104729) % 1000) / 997.0 - 0.4;
    }
    ovk__csr_drop_runs(&A->diag); /* the kernels of the forms, not the runs' */
    for (int f = 0; f < 3; f++) {
        assert_int_equal(ovk__csr_pack_values(&A->diag, allow[f]), OVK_OK);
        assert_int_equal(A->diag.vform, f); /* the values allow each form */
        seen[2 * (A->diag.upper != 0) + (A->diag.off16 != NULL)][f]++;
        for (int j = 0; j < KMAX; j++) assert_int_equal(ovk__matvec_dot(A, X[j], y1[j], &xy1[j], NULL), OVK_OK);
        for (int isa = OVK__RUN_GENERIC; isa <= best; isa++)
            check_isa(A, isa, (const double *const *)X, Y, y1, xy1);
    }
    for (int j = 0; j < KMAX; j++) {
        free(X[j]);
        free(Y[j]);
        free(y1[j]);
    }
}

static void test_multi_kernels(void **state)
{
    (void)state;
    int best = ovk__multi_set_kernels(-1), seen[4][3] = {{0}};
    assert_true(best == OVK__RUN_GENERIC || best == OVK__RUN_AVX2);
    assert_int_equal(ovk__multi_set_kernels(OVK__RUN_ISAS), best); /* above the best: the best */
    static const int fars[] = {5, FAR}, rows[] = {2003, FAR + 501};
    for (int sym = 0; sym < 2; sym++)
        for (int d = 0; d < 2; d++) {
            ovk_matrix *A = make(rows[d], fars[d], sym);
            assert_int_equal(A->diag.upper != 0, sym);
            assert_int_equal(A->diag.off16 != NULL, d == 0);
            check_matrix(A, best, seen);
            ovk_matrix_destroy(A);
        }
    for (int form = 0; form < 4; form++)
        for (int f = 0; f < 3; f++) assert_int_equal(seen[form][f], 1);
    assert_int_equal(ovk__multi_set_kernels(-1), best);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_multi_kernels),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    MPI_Finalize();
    return failed ? 1 : 0;
}

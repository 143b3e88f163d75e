/* What the IDR(s) tests (test_idrs.c, test_pipeidrs.c) share: a small
 * dense nonsymmetric reference (60 rows, the last rank without rows at 2
 * ranks or more) solved by Gaussian elimination, a preconditioner that
 * turns NaN at its 12th application, and the bad inputs of `s`.  After
 * mpitest.h and nonsym_common.h. */
#ifndef OVK_IDR_COMMON_H
#define OVK_IDR_COMMON_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { IDR_DENSE_N = 60 };

/* rows [lo, hi) of n over the ranks but the last (which has none, at 2
 * ranks or more) */
static void split_rows(int n, int *lo, int *hi)
{
    int holders = g_size > 1 ? g_size - 1 : 1, me = g_rank < holders ? g_rank : -1;
    *lo = me < 0 ? n : (int)((long)n * me / holders);
    *hi = me < 0 ? n : (int)((long)n * (me + 1) / holders);
}

/* entry (i, j) of the dense test matrix: diagonal 3 + i/n, off-diagonals
 * at +-1, +7, -11 and a skew part, nonsymmetric and well conditioned */
static double dense_entry(int n, int i, int j)
{
    if (i == j) return 3.0 + (double)i / n;
    if (j == i + 1) return -1.2;
    if (j == i - 1) return -0.4;
    if (j == i + 7) return 0.3 + 0.2 * hash_unit((uint64_t)i);
    if (j == i - 11) return -0.5 * hash_unit((uint64_t)(i + 1000));
    return 0.0;
}

/* the local rows of the n x n matrix of entry(n, i, j) (skew: the
 * skew-symmetric tridiagonal one, entries +-1) */
static ovk_matrix *build(int n, double (*entry)(int, int, int))
{
    int lo, hi;
    split_rows(n, &lo, &hi);
    int nl = hi - lo, *ptr = malloc(sizeof(int) * (size_t)(nl + 1));
    ovk_gidx *col = malloc(sizeof(ovk_gidx) * (size_t)(5 * nl + 1));
    double *val = malloc(sizeof(double) * (size_t)(5 * nl + 1));
    ptr[0] = 0;
    for (int i = lo, k = 0; i < hi; i++) {
        static const int off[] = {-11, -1, 0, 1, 7};
        for (int d = 0; d < 5; d++) {
            int j = i + off[d];
            double a = j >= 0 && j < n ? entry(n, i, j) : 0.0;
            if (a != 0.0) {
                col[k] = j;
                val[k++] = a;
            }
        }
        ptr[i - lo + 1] = k;
    }
    ovk_matrix *A = NULL;
    MT_RC(OVK_OK, ovk_matrix_create_csr(MPI_COMM_WORLD, lo, nl, ptr, col, val, OVK_DUP_REJECT, &A));
    free(ptr);
    free(col);
    free(val);
    return A;
}

/* one solve of A x = b, b(i) = hash(i), x0 = 0; x copied to xout (local
 * rows); returns the status, res filled */
static int solve_b(ovk_matrix *A, const char *solver, const char *pc, double rtol, int maxit, double *xout,
                   ovk_pcg_result *res)
{
    ovk_vector *b = NULL, *x = NULL;
    ovk_solver *s = NULL;
    ovk_vector_create(A, &b);
    ovk_vector_create(A, &x);
    int n = ovk_vector_nlocal(b);
    double *bd = ovk_vector_data(b);
    for (int i = 0; i < n; i++) bd[i] = hash_unit((uint64_t)(ovk_matrix_row_start(A) + i) + 7u);
    ovk_solver_create(A, &s);
    int rc = ovk_solver_set_option(s, "solver", solver);
    if (!rc) rc = ovk_solver_set_option(s, "precond", pc);
    if (!rc) rc = ovk_solver_set_tolerances(s, rtol, 0.0, maxit);
    if (!rc) rc = ovk_solver_setup(s);
    if (!rc) rc = ovk_solver_solve(s, b, x, res);
    if (n > 0) memcpy(xout, ovk_vector_data(x), sizeof(double) * (size_t)n);
    ovk_solver_destroy(&s);
    ovk_vector_destroy(b);
    ovk_vector_destroy(x);
    return rc;
}

/* specs[0..nspecs) with none and jacobi to rtol 1e-12: x within 1e-9 of the
 * dense solve, in at most 2 N steps */
static void idr_dense_reference(const char *const *specs, int nspecs)
{
    int n = IDR_DENSE_N, lo, hi;
    split_rows(n, &lo, &hi);
    double *a = malloc(sizeof(double) * (size_t)(n * n)), *xr = malloc(sizeof(double) * (size_t)n);
    double *x = malloc(sizeof(double) * (size_t)n);
    for (int i = 0; i < n; i++) {
        xr[i] = hash_unit((uint64_t)i + 7u);
        for (int j = 0; j < n; j++) a[i * n + j] = dense_entry(n, i, j);
    }
    mt_dense_solve(n, a, xr);
    ovk_matrix *A = build(n, dense_entry);
    static const char *const pcs[] = {"none", "jacobi"};
    for (int k = 0; k < nspecs; k++)
        for (int p = 0; p < 2; p++) {
            ovk_pcg_result res = {0};
            int rc = solve_b(A, specs[k], pcs[p], 1e-12, 4 * n, x, &res);
            double e = 0.0, xx = 0.0;
            for (int i = lo; i < hi; i++) {
                e += (x[i - lo] - xr[i]) * (x[i - lo] - xr[i]);
                xx += xr[i] * xr[i];
            }
            double g[2] = {e, xx};
            MPI_Allreduce(MPI_IN_PLACE, g, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
            double err = sqrt(g[0] / g[1]);
            MT_CHECK(rc == OVK_OK && res.reason == OVK_REASON_CONVERGED, "dense %s %s: status %s reason %s", specs[k],
                     pcs[p], ovk_status_name(rc), ovk_reason_name(res.reason));
            MT_CHECK(err < 1e-9, "dense %s %s: error %.3e against the dense solve", specs[k], pcs[p], err);
            MT_CHECK(res.iterations <= 2 * n, "dense %s %s: %d steps for %d rows", specs[k], pcs[p], res.iterations, n);
            if (g_rank == 0)
                printf("dense %-9s %-6s %3d steps, error %.2e, true rel %.2e\n", specs[k], pcs[p], res.iterations, err,
                       res.rel_residual);
        }
    ovk_matrix_destroy(A);
    free(a);
    free(xr);
    free(x);
}

/* z = r / 2, NaN from the 12th application on */
static int nan_pc(ovk_solver *s, const double *r, double *z, void *ctx)
{
    int *calls = ctx, n = ovk_solver_nlocal(s);
    (*calls)++;
    for (int i = 0; i < n; i++) z[i] = *calls >= 12 ? NAN : 0.5 * r[i];
    return 0;
}

/* solver with nan_pc: non-finite at step 11 on every rank, x finite */
static void idr_nonfinite(const char *solver)
{
    ovk_matrix *A = convdiff(50.0, OVK_CONVDIFF_UPWIND);
    ovk_vector *b = NULL, *x = NULL;
    ovk_solver *s = NULL;
    ovk_pcg_result res = {0};
    int calls = 0;
    ovk_vector_create(A, &b);
    ovk_vector_create(A, &x);
    ovk_vector_set(b, 1.0);
    ovk_solver_create(A, &s);
    ovk_solver_set_option(s, "solver", solver);
    ovk_solver_set_precond_fn(s, nan_pc, &calls);
    int rc = ovk_solver_setup(s);
    if (!rc) rc = ovk_solver_solve(s, b, x, &res);
    expect_everywhere("NaN preconditioner", rc, OVK_ENONFINITE);
    MT_CHECK(res.reason == OVK_REASON_NONFINITE && res.iterations == 11, "NaN preconditioner: reason %s at %d",
             ovk_reason_name(res.reason), res.iterations);
    int n = ovk_vector_nlocal(x), finite = 1;
    const double *xd = ovk_vector_data(x);
    for (int i = 0; i < n; i++) finite &= isfinite(xd[i]) != 0;
    MT_CHECK(finite, "NaN preconditioner: x not finite");
    ovk_solver_destroy(&s);
    ovk_vector_destroy(b);
    ovk_vector_destroy(x);
    ovk_matrix_destroy(A);
}

/* name:s=0, -1, 65 and an unknown key: OVK_EOPTION naming name; s = 8 on
 * 5 rows: OVK_EOPTION at setup naming s=8; s = 5 on 5 rows: set up */
static void idr_bad_inputs(const char *name)
{
    char spec[64], what[96];
    ovk_matrix *A = convdiff(50.0, OVK_CONVDIFF_UPWIND);
    static const char *const bad[] = {"s=0", "s=-1", "s=65", "t=2"};
    for (int k = 0; k < 4; k++) {
        snprintf(spec, sizeof spec, "%s:%s", name, bad[k]);
        int rc = setup_with(A, spec, "jacobi");
        expect_everywhere(spec, rc, OVK_EOPTION);
        MT_CHECK(strstr(ovk_error_detail(), name) != NULL, "%s: detail '%s'", spec, ovk_error_detail());
    }
    ovk_matrix_destroy(A);
    ovk_matrix *S = build(5, dense_entry);
    snprintf(spec, sizeof spec, "%s:s=8", name);
    snprintf(what, sizeof what, "%s on 5 rows", spec);
    int rc = setup_with(S, spec, "jacobi");
    expect_everywhere(what, rc, OVK_EOPTION);
    MT_CHECK(strstr(ovk_error_detail(), name) && strstr(ovk_error_detail(), "s=8"), "s=8 on 5 rows: detail '%s'",
             ovk_error_detail());
    snprintf(spec, sizeof spec, "%s:s=5", name);
    snprintf(what, sizeof what, "%s on 5 rows", spec);
    rc = setup_with(S, spec, "jacobi");
    expect_everywhere(what, rc, OVK_OK);
    ovk_matrix_destroy(S);
}

#endif

/* The option norm=natural (PETSc's KSP_NORM_NATURAL, KSPCG's default): alg1
 * tests sqrt(<r, C r>) against sqrt(<b, C b>).  On a tridiagonal SPD
 * matrix whose diagonal varies (Jacobi's C = D^-1 is not a multiple of I,
 * so the natural norm is not the two-norm scaled), rows split unevenly (a
 * rank without rows from 3 ranks):
 *   - x0 = 0, on the fused Jacobi path and with the preconditioner as a
 *     callback (the general path): the iterations those of a textbook
 *     Jacobi-PCG on the whole vector stopping at the first k with
 *     <r_k, C r_k> < rtol^2 <b, C b> (+-1), the monitor's first norm
 *     sqrt(<b, C b>), its last rel_residual * rhs_norm (the result's of
 *     the true residual that confirmed it: to 1e-6), rhs_norm
 *     sqrt(<b, C b>), and the true residual's natural norm within rtol;
 *   - a nonzero x0: still relative to sqrt(<b, C b>) (not r0's), converged;
 *   - b times 2^-600 (<b,b> underflows: the solve runs scaled): the same
 *     iterations, the norms scaled back;
 *   - solve_many: each system as a single solve;
 *   - a variant without it (pipecg) refused at setup (OVK_EUNSUPPORTED)
 *     on every rank, a bad value (OVK_EOPTION). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpitest.h"
#include "problem.h"

enum { N = 600 };

static int rank0(void)
{
    int r = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    return r == 0;
}
#define RTOL 1e-8

static double diag_of(int64_t g) { return 2.0 + (double)(g % 7) * 3.0 + (g % 5 == 0 ? 40.0 : 0.0); }
static double rhs_of(int64_t g) { return sin(0.37 * (double)g) + 0.25 * (double)(g % 3); }

static ovk_matrix *make(void)
{
    tp_rows r;
    tp_rows_alloc(&r, N, 3);
    int len = 0;
    for (int i = 0; i < r.count; i++) {
        int64_t g = r.start + i;
        if (g > 0) r.col[len] = g - 1, r.val[len++] = -1.0;
        r.col[len] = g, r.val[len++] = diag_of(g);
        if (g < N - 1) r.col[len] = g + 1, r.val[len++] = -1.0;
        r.ptr[i + 1] = len;
    }
    ovk_matrix *A = NULL;
    MT_RC(OVK_OK, ovk_matrix_create_csr(MPI_COMM_WORLD, r.start, r.count, r.ptr, r.col, r.val, OVK_DUP_REJECT, &A));
    tp_rows_free(&r);
    return A;
}

/* y = A x on the whole vector */
static void full_matvec(const double *x, double *y)
{
    for (int g = 0; g < N; g++) y[g] = diag_of(g) * x[g] - (g > 0 ? x[g - 1] : 0.0) - (g < N - 1 ? x[g + 1] : 0.0);
}

/* textbook Jacobi-PCG from x0 = 0 on the whole vector, stopping at the
 * first k with <r, C r> < rtol^2 <b, C b>: its k, and sqrt(<b, C b>) */
static int reference_iterations(double *bnat)
{
    static double x[N], r[N], z[N], p[N], q[N];
    double gamma = 0.0;
    for (int g = 0; g < N; g++) x[g] = 0.0, r[g] = rhs_of(g), z[g] = r[g] / diag_of(g), p[g] = z[g], gamma += r[g] * z[g];
    double stop = RTOL * RTOL * gamma;
    *bnat = sqrt(gamma);
    for (int k = 1; k <= 1000; k++) {
        double pq = 0.0, gnew = 0.0;
        full_matvec(p, q);
        for (int g = 0; g < N; g++) pq += p[g] * q[g];
        double alpha = gamma / pq;
        for (int g = 0; g < N; g++) x[g] += alpha * p[g], r[g] -= alpha * q[g], z[g] = r[g] / diag_of(g), gnew += r[g] * z[g];
        if (gnew < stop) return k;
        for (int g = 0; g < N; g++) p[g] = z[g] + gnew / gamma * p[g];
        gamma = gnew;
    }
    return -1;
}

typedef struct seen {
    double first, last;
    int calls;
} seen;

static int monitor(ovk_solver *s, int iteration, double rnorm, double rel, void *ctx)
{
    seen *m = ctx;
    (void)s, (void)rel;
    if (iteration == 0) m->first = rnorm;
    m->last = rnorm;
    m->calls++;
    return 0;
}

/* z = D^-1 r, as the callback preconditioner */
static int jacobi_cb(ovk_solver *s, const double *r, double *z, void *ctx)
{
    const ovk_matrix *A = ctx;
    (void)s;
    int n = ovk_matrix_nlocal(A);
    int64_t start = ovk_matrix_row_start(A);
    for (int i = 0; i < n; i++) z[i] = r[i] / diag_of(start + i);
    return 0;
}

/* sqrt(<u, D^-1 u>) over the ranks, u = v / scale (no underflow) */
static double natural_norm(const ovk_matrix *A, const double *v, double scale)
{
    int n = ovk_matrix_nlocal(A);
    int64_t start = ovk_matrix_row_start(A);
    double s = 0.0;
    for (int i = 0; i < n; i++) s += (v[i] / scale) * (v[i] / scale) / diag_of(start + i);
    MPI_Allreduce(MPI_IN_PLACE, &s, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    return sqrt(s);
}

/* one solve with norm=natural of bscale b; x0 = 0 or x0 = x0val everywhere */
static void check_solve(ovk_matrix *A, int callback, double x0val, double bscale, int ref_its, double bnat)
{
    ovk_vector *b = NULL, *x = NULL, *r = NULL;
    ovk_vector_create(A, &b);
    ovk_vector_create(A, &x);
    ovk_vector_create(A, &r);
    int n = ovk_matrix_nlocal(A);
    int64_t start = ovk_matrix_row_start(A);
    double *bv = ovk_vector_data(b);
    for (int i = 0; i < n; i++) bv[i] = bscale * rhs_of(start + i);
    bnat *= bscale;
    ovk_vector_set(x, x0val);
    ovk_solver *s = NULL;
    seen m = {0.0, 0.0, 0};
    ovk_pcg_result res;
    MT_RC(OVK_OK, ovk_solver_create(A, &s));
    MT_RC(OVK_OK, ovk_solver_set_option(s, "solver", "alg1"));
    MT_RC(OVK_OK, ovk_solver_set_option(s, "norm", "natural"));
    MT_RC(OVK_OK, ovk_solver_set_option(s, "initial_guess_zero", x0val == 0.0 ? "1" : "0"));
    if (callback) MT_RC(OVK_OK, ovk_solver_set_precond_fn(s, jacobi_cb, A));
    else MT_RC(OVK_OK, ovk_solver_set_option(s, "precond", "jacobi"));
    MT_RC(OVK_OK, ovk_solver_set_tolerances(s, RTOL, 0.0, 1000));
    MT_RC(OVK_OK, ovk_solver_set_monitor(s, monitor, &m));
    MT_RC(OVK_OK, ovk_solver_solve(s, b, x, &res));
    ovk_matvec(A, x, r);
    double *rv = ovk_vector_data(r);
    for (int i = 0; i < n; i++) rv[i] = bv[i] - rv[i];
    double true_rel = natural_norm(A, rv, bscale) / (bnat / bscale);
    const char *path = callback ? "callback" : "jacobi";
    if (rank0()) printf("%s, x0 = %g, b times %g: %d iterations (reference %d), rel %.3e, true %.3e\n", path, x0val, bscale, res.iterations, ref_its,
                        res.rel_residual, true_rel);
    MT_CHECK(res.reason == OVK_REASON_CONVERGED && true_rel < RTOL, "%s: reason %d, natural true residual %.3e", path,
             (int)res.reason, true_rel);
    MT_CHECK(fabs(res.rhs_norm - bnat) <= 1e-12 * bnat, "%s: rhs_norm %.17g, sqrt(<b, C b>) %.17g", path, res.rhs_norm, bnat);
    MT_CHECK(fabs(m.last - res.rel_residual * res.rhs_norm) <= 1e-6 * m.last, /* the result's: the confirmation's true r */
             "%s: the monitor's last %.17g, the result's %.17g",
             path, m.last, res.rel_residual * res.rhs_norm);
    if (x0val == 0.0) {
        MT_CHECK(abs(res.iterations - ref_its) <= 1, "%s: %d iterations, the reference %d", path, res.iterations, ref_its);
        MT_CHECK(fabs(m.first - bnat) <= 1e-12 * bnat, "%s: the monitor's first %.17g, sqrt(<b, C b>) %.17g", path, m.first, bnat);
        MT_CHECK(fabs(res.rel_residual - true_rel) <= 1e-3 * true_rel, "%s: rel_residual %.6e, the true %.6e", path,
                 res.rel_residual, true_rel);
    } else {
        MT_CHECK(fabs(m.first - bnat) > 1e-3 * bnat, "%s: the monitor's first %.17g is r0's, not b's %.17g", path, m.first, bnat);
    }
    ovk_solver_destroy(&s);
    ovk_vector_destroy(b);
    ovk_vector_destroy(x);
    ovk_vector_destroy(r);
}

/* solve_many of b and 3 b with norm=natural: each converged in the
 * reference's iterations (+-1), relative to its own sqrt(<b, C b>) */
static void check_many(ovk_matrix *A, int ref_its, double bnat)
{
    ovk_vector *B[2], *X[2];
    ovk_pcg_result res[2];
    int n = ovk_matrix_nlocal(A);
    int64_t start = ovk_matrix_row_start(A);
    for (int j = 0; j < 2; j++) {
        ovk_vector_create(A, &B[j]);
        ovk_vector_create(A, &X[j]);
        double *bv = ovk_vector_data(B[j]);
        for (int i = 0; i < n; i++) bv[i] = (1 + 2 * j) * rhs_of(start + i);
    }
    ovk_solver *s = NULL;
    MT_RC(OVK_OK, ovk_solver_create(A, &s));
    MT_RC(OVK_OK, ovk_solver_set_option(s, "norm", "natural"));
    MT_RC(OVK_OK, ovk_solver_set_option(s, "initial_guess_zero", "1"));
    MT_RC(OVK_OK, ovk_solver_set_tolerances(s, RTOL, 0.0, 1000));
    MT_RC(OVK_OK, ovk_solver_solve_many(s, 2, B, X, res));
    for (int j = 0; j < 2; j++) {
        MT_CHECK(res[j].reason == OVK_REASON_CONVERGED && abs(res[j].iterations - ref_its) <= 1,
                 "solve_many system %d: reason %d, %d iterations, the reference %d", j, (int)res[j].reason, res[j].iterations, ref_its);
        MT_CHECK(fabs(res[j].rhs_norm - (1 + 2 * j) * bnat) <= 1e-12 * (1 + 2 * j) * bnat,
                 "solve_many system %d: rhs_norm %.17g, sqrt(<b, C b>) %.17g", j, res[j].rhs_norm, (1 + 2 * j) * bnat);
        ovk_vector_destroy(B[j]);
        ovk_vector_destroy(X[j]);
    }
    ovk_solver_destroy(&s);
}

/* norm=natural on a variant without it, and a bad value */
static void check_refusals(ovk_matrix *A)
{
    ovk_solver *s = NULL;
    MT_RC(OVK_OK, ovk_solver_create(A, &s));
    MT_RC(OVK_OK, ovk_solver_set_option(s, "solver", "pipecg"));
    MT_RC(OVK_OK, ovk_solver_set_option(s, "norm", "natural"));
    int rc = ovk_solver_setup(s);
    MT_CHECK(rc == OVK_EUNSUPPORTED && strstr(ovk_error_detail(), "alg1"), "pipecg + norm=natural: %s (%s)",
             ovk_status_name(rc), ovk_error_detail());
    rc = ovk_solver_set_option(s, "norm", "preconditioned");
    if (rc == OVK_OK) rc = ovk_solver_setup(s);
    MT_CHECK(rc == OVK_EOPTION && strstr(ovk_error_detail(), "norm"), "norm=preconditioned: %s (%s)", ovk_status_name(rc),
             ovk_error_detail());
    ovk_solver_destroy(&s);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    ovk_matrix *A = make();
    double bnat = 0.0;
    int ref = reference_iterations(&bnat);
    check_solve(A, 0, 0.0, 1.0, ref, bnat);
    check_solve(A, 1, 0.0, 1.0, ref, bnat);
    check_solve(A, 0, 0.5, 1.0, ref, bnat);
    check_solve(A, 0, 0.0, ldexp(1.0, -600), ref, bnat); /* <b,b> underflows: the scaled solve */
    check_many(A, ref, bnat);
    check_refusals(A);
    ovk_matrix_destroy(A);
    int status = mt_finish("test_norm_natural");
    MPI_Finalize();
    return status;
}

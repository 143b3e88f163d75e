/* Every solver x every available backend on the same global problems, split
 * unevenly over the ranks (one rank owns no rows from 3 ranks up):
 *   - converges to x* where b = A x* for a random x*;
 *   - the iteration count matches a one-rank solve of the same problem
 *     (done on MPI_COMM_SELF in this run) within 1;
 *   - every solver gives the same count as alg1 within 1, and solutions
 *     agree to the tolerance;
 *   - the result is bitwise identical on every rank;
 *   - the distributed SpMV matches the one-rank product. */
#include <math.h>
#include <string.h>

#include "mpitest.h"
#include "problem.h"

typedef struct outcome {
    int rc, iterations;
    double rel_residual, err;
} outcome;

static double max_abs_diff(const double *a, const double *b, int n)
{
    double m = 0.0;
    for (int i = 0; i < n; i++) m = fmax(m, fabs(a[i] - b[i]));
    return m;
}

/* Solve A x = A x* on comm with solver/backend; err = max |x - x*| (global). */
static outcome solve(MPI_Comm comm, int stencil, int g, const char *solver, const char *backend)
{
    outcome o = {0};
    ovk_matrix *A = NULL;
    ovk_vector *xs = NULL, *b = NULL, *x = NULL;
    o.rc = tp_laplace(comm, stencil, g, 0.0, &A);
    MT_RC(OVK_OK, o.rc);
    ovk_vector_create(A, &xs);
    ovk_vector_create(A, &b);
    ovk_vector_create(A, &x);
    for (int i = 0; i < ovk_vector_nlocal(xs); i++)
        ovk_vector_data(xs)[i] = tp_value((uint64_t)(ovk_matrix_row_start(A) + i));
    MT_RC(OVK_OK, ovk_matvec(A, xs, b));
    ovk_pcg_options opts;
    ovk_pcg_result res;
    ovk_pcg_options_init(&opts);
    opts.solver = solver;
    opts.backend = backend;
    opts.tol = 1e-10;
    o.rc = ovk_pcg_solve(A, b, x, &opts, &res);
    o.iterations = res.iterations;
    o.rel_residual = res.rel_residual;
    double local = max_abs_diff(ovk_vector_data(x), ovk_vector_data(xs), ovk_vector_nlocal(x));
    MPI_Allreduce(&local, &o.err, 1, MPI_DOUBLE, MPI_MAX, comm);
    MT_CHECK(mt_same_everywhere(comm, &res.rel_residual, 1), "%s/%s: residual differs between ranks", solver, backend);
    MT_CHECK(res.reductions > 0, "%s/%s: no reductions counted", solver, backend);
    ovk_vector_destroy(xs);
    ovk_vector_destroy(b);
    ovk_vector_destroy(x);
    ovk_matrix_destroy(A);
    return o;
}

/* The distributed product equals the one-rank product of the same matrix. */
static void check_spmv(int stencil, int g)
{
    ovk_matrix *A = NULL, *S = NULL;
    ovk_vector *x = NULL, *y = NULL, *xs = NULL, *ys = NULL;
    MT_RC(OVK_OK, tp_laplace(MPI_COMM_WORLD, stencil, g, 0.5, &A));
    MT_RC(OVK_OK, tp_laplace(MPI_COMM_SELF, stencil, g, 0.5, &S));
    ovk_vector_create(A, &x);
    ovk_vector_create(A, &y);
    ovk_vector_create(S, &xs);
    ovk_vector_create(S, &ys);
    for (int i = 0; i < ovk_vector_nlocal(xs); i++) ovk_vector_data(xs)[i] = tp_value((uint64_t)i);
    int64_t start = ovk_matrix_row_start(A);
    for (int i = 0; i < ovk_vector_nlocal(x); i++) ovk_vector_data(x)[i] = ovk_vector_data(xs)[start + i];
    MT_RC(OVK_OK, ovk_matvec(A, x, y));
    MT_RC(OVK_OK, ovk_matvec(S, xs, ys));
    double d = max_abs_diff(ovk_vector_data(y), ovk_vector_data(ys) + start, ovk_vector_nlocal(y));
    MT_CHECK(d <= 1e-12, "stencil %d: distributed SpMV differs by %g", stencil, d);
    ovk_vector_destroy(x);
    ovk_vector_destroy(y);
    ovk_vector_destroy(xs);
    ovk_vector_destroy(ys);
    ovk_matrix_destroy(A);
    ovk_matrix_destroy(S);
}

static void check_problem(int stencil, int g, int rank)
{
    outcome alg1 = solve(MPI_COMM_SELF, stencil, g, "alg1", "blocking");
    MT_RC(OVK_OK, alg1.rc);
    for (int s = 0; s < mt_recurrence_count(); s++) {
        /* the CG variants take alg1's iterations; the others their own on one rank */
        outcome ref = mt_nonsymmetric(mt_recurrence_name(s))
                          ? solve(MPI_COMM_SELF, stencil, g, mt_recurrence_name(s), "blocking")
                          : alg1;
        for (int k = 0; k <= ovk_backend_count(); k++) { /* the registry, then offload's agent engine */
            ovk_backend_info info = {.name = "offload:engine=agent", .available = 1};
            if (k < ovk_backend_count()) ovk_backend_get_info(k, &info);
            MT_CHECK(info.available, "backend %s is not available", info.name); /* none may be skipped */
            if (!info.available) continue;
            const char *solver = mt_recurrence_name(s);
            outcome o = solve(MPI_COMM_WORLD, stencil, g, solver, info.name);
            MT_RC(OVK_OK, o.rc);
            MT_CHECK(abs(o.iterations - ref.iterations) <= 1, "%d-pt g=%d %s/%s: %d iterations, one rank %d",
                     stencil, g, solver, info.name, o.iterations, ref.iterations);
            MT_CHECK(o.err < 1e-7, "%d-pt %s/%s: error %g", stencil, solver, info.name, o.err);
            MT_CHECK(o.rel_residual < 1e-10, "%d-pt %s/%s: residual %g", stencil, solver, info.name, o.rel_residual);
            if (rank == 0)
                printf("%2d-pt g=%d %-8s %-10s iterations %3d (one rank %3d) error %.2e\n", stencil, g, solver,
                       info.name, o.iterations, ref.iterations, o.err);
        }
    }
}

int main(int argc, char **argv)
{
    int rank;
    int provided = MPI_THREAD_SINGLE;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided); /* offload's agent needs it */
    MT_CHECK(provided == MPI_THREAD_MULTIPLE, "MPI_THREAD_MULTIPLE not provided (%d)", provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    check_spmv(27, 9);
    check_spmv(7, 10);
    check_problem(27, 14, rank);
    check_problem(7, 12, rank);
    int rc = mt_finish("test_pcg");
    MPI_Finalize();
    return rc;
}

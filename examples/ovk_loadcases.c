/* ovk_loadcases: K load cases of one elasticity problem solved together
 * with ovk_solver_solve_many -- an application example.
 *
 *   mpiexec -n 2 ovk_loadcases [-n NX NY NZ] [-k K] [-solver S] [-backend B]
 *                              [-precond SPEC] [-tol T] [-compare 0|1]
 *
 * The beam of ovk_elasticity (the box of tetrahedra, P1, E = 1, nu = 0.3,
 * clamped on x = 0; common/elasticity_fe.c) under K body loads: load case j
 * pulls in the direction (0.2, cos t_j, sin t_j), t_j = 2 pi j / K, each
 * node by its share of the volume.  The K systems share the matrix, the
 * preconditioner and every reduction and matrix pass (docs/solvers.md,
 * "Many right-hand sides").  Rank 0 prints one line per load case (its
 * iterations and the largest displacement), then `Iterations = N` (the
 * largest count), `Final Relative Residual Norm = R` (the largest) and
 * `Solve Time = T s` (the whole batch); with -compare 1 also the time of
 * the K cases solved one after another.  Exit status 0 when every case
 * converged. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "common/elasticity_fe.h"
#include "ovkrylov/ovkrylov.h"

typedef struct args {
    int n[3], k, compare;
    const char *solver, *backend, *precond;
    double tol;
} args;

static int parse(int argc, char **argv, args *a)
{
    for (int i = 1; i < argc; i++) {
        const char *f = argv[i];
        int more = argc - i - 1, lib = ovk_options_skip(argc, argv, i);
        if (lib) i += lib - 1; /* -ovk_*: the library's options database */
        else if (!strcmp(f, "-n") && more >= 3) {
            for (int d = 0; d < 3; d++) a->n[d] = atoi(argv[++i]);
        } else if (!strcmp(f, "-k") && more) a->k = atoi(argv[++i]);
        else if (!strcmp(f, "-solver") && more) a->solver = argv[++i];
        else if (!strcmp(f, "-backend") && more) a->backend = argv[++i];
        else if (!strcmp(f, "-precond") && more) a->precond = argv[++i];
        else if (!strcmp(f, "-tol") && more) a->tol = atof(argv[++i]);
        else if (!strcmp(f, "-compare") && more) a->compare = atoi(argv[++i]);
        else return -1;
    }
    return (a->n[0] >= 1 && a->n[1] >= 1 && a->n[2] >= 1 && a->k >= 1 && a->k <= 1000 && a->tol > 0) ? 0 : -1;
}

/* load case j of k: b = weight (0.2, cos t, sin t) at every node */
static void load_case(const ovk_fe_box *m, const double *weight, int j, int k, double *b)
{
    double t = 2.0 * acos(-1.0) * j / k, d[3] = {0.2, cos(t), sin(t)};
    for (long long n = 0; n < m->count; n++)
        for (int c = 0; c < OVK_FE_DOF; c++) b[n * OVK_FE_DOF + c] = weight[n] * d[c];
}

/* max |x_i| over the ranks */
static double largest(const ovk_vector *x)
{
    double v = 0.0;
    const double *p = ovk_vector_data_const(x);
    for (int i = 0; i < ovk_vector_nlocal(x); i++) v = fmax(v, fabs(p[i]));
    MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return v;
}

/* Collective: the K cases solved one after another; the slowest rank's seconds */
static int one_by_one(ovk_solver *s, int k, ovk_vector **B, ovk_vector **X, double *seconds)
{
    ovk_result res;
    int rc = OVK_OK;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int j = 0; !rc && j < k; j++) {
        rc = ovk_vector_set(X[j], 0.0);
        if (!rc) rc = ovk_solver_solve(s, B[j], X[j], &res);
    }
    *seconds = MPI_Wtime() - t0;
    MPI_Allreduce(MPI_IN_PLACE, seconds, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return rc;
}

/* Collective: set up once, solve the K cases together (and one by one) */
static int solve_cases(const args *a, const ovk_fe_box *m, ovk_matrix *A, const double *weight, int rank)
{
    int k = a->k, rc = OVK_OK;
    ovk_solver *s = NULL;
    ovk_vector **B = calloc((size_t)k, sizeof *B), **X = calloc((size_t)k, sizeof *X);
    ovk_result *res = calloc((size_t)k, sizeof *res);
    if (!B || !X || !res) rc = OVK_ENOMEM;
    if (!rc) rc = ovk_solver_create(A, &s);
    for (int j = 0; !rc && j < k; j++) {
        rc = ovk_vector_create(A, &B[j]);
        if (!rc) rc = ovk_vector_create(A, &X[j]);
        if (!rc) load_case(m, weight, j, k, ovk_vector_data(B[j]));
    }
    if (!rc) rc = ovk_solver_set_option(s, "solver", a->solver);
    if (!rc && a->backend) rc = ovk_solver_set_option(s, "backend", a->backend);
    if (!rc) rc = ovk_solver_set_option(s, "precond", a->precond);
    if (!rc) rc = ovk_solver_set_tolerances(s, a->tol, 0.0, 5000);
    MPI_Allreduce(MPI_IN_PLACE, &rc, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!rc) rc = ovk_solver_set_from_options(s, NULL); /* -ovk_* override the flags */
    if (!rc) rc = ovk_solver_setup(s);
    if (!rc && rank == 0) printf("Setup Time = %f s\n", ovk_solver_setup_time(s));
    if (rc) goto cleanup;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    rc = ovk_solver_solve_many(s, k, B, X, res); /* every case's status is in res */
    double t = MPI_Wtime() - t0, worst = 0.0;
    MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    int most = 0;
    for (int j = 0; j < k; j++) {
        double umax = largest(X[j]);
        if (rank == 0)
            printf("load case %d: %d iterations, relative residual %.3e, max |u| = %.6e (%s)\n", j, res[j].iterations,
                   res[j].rel_residual, umax, ovk_reason_name(res[j].reason));
        most = res[j].iterations > most ? res[j].iterations : most;
        worst = fmax(worst, res[j].rel_residual);
    }
    if (rank == 0)
        printf("Iterations = %d\nFinal Relative Residual Norm = %e\nSolve Time = %f s\n", most, worst, t);
    if (!rc && a->compare) {
        double one = 0.0;
        rc = one_by_one(s, k, B, X, &one);
        if (!rc && rank == 0) printf("one by one: %f s (together: %.2f of it)\n", one, t / one);
    }
cleanup:
    for (int j = 0; j < k; j++) {
        if (B) ovk_vector_destroy(B[j]);
        if (X) ovk_vector_destroy(X[j]);
    }
    free(B), free(X), free(res);
    int rc2 = ovk_solver_destroy(&s);
    return rc ? rc : rc2;
}

int main(int argc, char **argv)
{
    args a = {{16, 8, 8}, 6, 0, "alg1", NULL, "jacobi", 1e-8};
    int rank, size, rc;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    ovk_options_set_args(argc, argv);
    if (parse(argc, argv, &a)) {
        if (rank == 0)
            fprintf(stderr, "usage: ovk_loadcases [-n NX NY NZ] [-k K] [-solver S] [-backend B] [-precond SPEC] "
                            "[-tol T] [-compare 0|1] [-ovk_KEY VALUE ...]\n");
        MPI_Finalize();
        return 2;
    }
    ovk_fe_box m;
    ovk_fe_box_init(&m, a.n[0], a.n[1], a.n[2], 0, rank, size);
    if (rank == 0)
        printf("Load cases: %d, elasticity on %d x %d x %d cells, %lld unknowns, %d ranks\n", a.k, m.nx, m.ny, m.nz,
               ovk_fe_box_nodes(&m) * OVK_FE_DOF, size);
    ovk_matrix *A = NULL;
    double *weight = NULL, *xyz = NULL;
    rc = ovk_fe_elasticity(&m, &A, &weight, &xyz);
    if (!rc) rc = solve_cases(&a, &m, A, weight, rank);
    if (rc && rank == 0) fprintf(stderr, "ovkrylov error: %s: %s\n", ovk_strerror(rc), ovk_error_detail());
    ovk_matrix_destroy(A);
    free(weight), free(xyz);
    ovk_options_finalize();
    MPI_Finalize();
    return rc ? 1 : 0;
}

/* ovk_elasticity: 3-D linear elasticity on a box of tetrahedra, solved with
 * PCG and algebraic multigrid (amg:bs=3, the rigid-body modes from the node
 * coordinates) -- an application example.
 *
 *   mpiexec -n 2 ovk_elasticity [-n NX NY NZ] [-solver S] [-backend B]
 *                               [-precond SPEC] [-rbm 0|1] [-solves K] [-tol T] [-floating]
 *
 * The box [0, NX] x [0, NY] x [0, NZ] / max(NX, NY, NZ) (cells of side h) is
 * cut into cubes of 6 tetrahedra each (Kuhn's triangulation: every cube the
 * same way, so the mesh is conforming) with P1 elements, E = 1, nu = 0.3; it
 * is clamped on the face x = 0 and loaded by its own weight (f = (0, 0, -1)).
 * With -floating it is not clamped: the stiffness matrix is singular, its
 * null space the six rigid-body modes, declared from the node coordinates
 * (ovk_solver_set_nullspace_rigid_body); the load's rigid-body part (the net
 * force and moment of the weight) is removed, the solution has none, and
 * `Null Space Inconsistency = R` (||Z^T b|| / ||b||) is printed.
 * Unknowns are interleaved by node (ux, uy, uz), nodes numbered x fastest;
 * each rank owns a contiguous range of nodes and assembles its own rows.
 *
 * Each of the K solves (same matrix, x0 = 0) prints its iteration count; the
 * last prints the driver lines `Iterations = N`, `Final Relative Residual
 * Norm = R`, `Solve Time = T s`, plus `Setup Time = T s` (amg's hierarchy).
 * Exit status 0 when every solve converged. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "common/elasticity_fe.h"
#include "ovkrylov/ovkrylov.h"

enum { DOF = OVK_FE_DOF };

typedef struct args {
    int n[3], rbm, solves, floating;
    const char *solver, *backend, *precond;
    double tol;
} args;

/* Collective: the owned rows of the stiffness matrix, the load (own weight,
 * f = (0, 0, -1) per unit volume) and the coordinates. */
static int assemble(const ovk_fe_box *m, ovk_matrix **A, double **f, double **xyz)
{
    double *weight = NULL;
    int rc = ovk_fe_elasticity(m, A, &weight, xyz);
    *f = rc ? NULL : calloc(m->count > 0 ? (size_t)m->count * DOF : 1, sizeof(double));
    if (!rc && !*f) rc = OVK_ENOMEM;
    for (long long n = 0; !rc && n < m->count; n++) (*f)[n * DOF + 2] = -weight[n];
    free(weight);
    return rc;
}

static int parse(int argc, char **argv, args *a)
{
    for (int i = 1; i < argc; i++) {
        const char *f = argv[i];
        int more = argc - i - 1, lib = ovk_options_skip(argc, argv, i);
        if (lib) i += lib - 1; /* -ovk_*: the library's options database */
        else if (!strcmp(f, "-n") && more >= 3) {
            for (int d = 0; d < 3; d++) a->n[d] = atoi(argv[++i]);
        } else if (!strcmp(f, "-solver") && more) a->solver = argv[++i];
        else if (!strcmp(f, "-backend") && more) a->backend = argv[++i];
        else if (!strcmp(f, "-precond") && more) a->precond = argv[++i];
        else if (!strcmp(f, "-rbm") && more) a->rbm = atoi(argv[++i]);
        else if (!strcmp(f, "-solves") && more) a->solves = atoi(argv[++i]);
        else if (!strcmp(f, "-tol") && more) a->tol = atof(argv[++i]);
        else if (!strcmp(f, "-floating")) a->floating = 1;
        else return -1;
    }
    return (a->n[0] >= 1 && a->n[1] >= 1 && a->n[2] >= 1 && a->solves >= 1 && a->tol > 0) ? 0 : -1;
}

/* Collective: set up once, solve K times. */
static int solve_all(const args *a, const ovk_fe_box *m, ovk_matrix *A, const double *f, const double *xyz, int rank)
{
    ovk_solver *s = NULL;
    ovk_vector *b = NULL, *x = NULL;
    ovk_result res;
    int rc = ovk_solver_create(A, &s);
    if (!rc) rc = ovk_vector_create(A, &b);
    if (!rc) rc = ovk_vector_create(A, &x);
    if (!rc) memcpy(ovk_vector_data(b), f, sizeof(double) * (size_t)m->count * DOF);
    if (!rc) rc = ovk_solver_set_option(s, "solver", a->solver);
    if (!rc && a->backend) rc = ovk_solver_set_option(s, "backend", a->backend);
    if (!rc) rc = ovk_solver_set_option(s, "precond", a->precond);
    if (!rc) rc = ovk_solver_set_tolerances(s, a->tol, 0.0, 5000);
    if (!rc && a->rbm) rc = ovk_solver_set_coordinates(s, DOF, (int)m->count, xyz);
    MPI_Allreduce(MPI_IN_PLACE, &rc, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!rc && a->floating) rc = ovk_solver_set_nullspace_rigid_body(s, DOF, (int)m->count, xyz); /* collective */
    if (!rc) rc = ovk_solver_set_from_options(s, NULL); /* -ovk_* override the flags */
    if (!rc) rc = ovk_solver_setup(s);
    if (!rc && rank == 0) printf("Setup Time = %f s\n", ovk_solver_setup_time(s));
    for (int k = 0; !rc && k < a->solves; k++) {
        rc = ovk_vector_set(x, 0.0);
        if (!rc) rc = ovk_solver_solve(s, b, x, &res);
        if (rank == 0 && res.reason != OVK_REASON_NONE)
            printf("solve %d: %d iterations, relative residual %.3e, %.4f s\n", k + 1, res.iterations,
                   res.rel_residual, res.time_max[OVK_TIMER_SOLVE]);
    }
    if (!rc && rank == 0)
        printf("Iterations = %d\nFinal Relative Residual Norm = %e\nSolve Time = %f s\n", res.iterations,
               res.rel_residual, res.time_max[OVK_TIMER_SOLVE]);
    if (!rc && rank == 0 && a->floating) printf("Null Space Inconsistency = %e\n", res.nullspace_inconsistency);
    ovk_vector_destroy(b);
    ovk_vector_destroy(x);
    int rc2 = ovk_solver_destroy(&s);
    return rc ? rc : rc2;
}

int main(int argc, char **argv)
{
    args a = {{16, 8, 8}, 1, 1, 0, "alg1", NULL, "amg:bs=3", 1e-8};
    int rank, size, rc;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    ovk_options_set_args(argc, argv);
    if (parse(argc, argv, &a)) {
        if (rank == 0)
            fprintf(stderr, "usage: ovk_elasticity [-n NX NY NZ] [-solver S] [-backend B] [-precond SPEC] "
                            "[-rbm 0|1] [-solves K] [-tol T] [-floating] [-ovk_KEY VALUE ...]\n");
        MPI_Finalize();
        return 2;
    }
    ovk_fe_box m;
    ovk_fe_box_init(&m, a.n[0], a.n[1], a.n[2], a.floating, rank, size);
    long long nodes = ovk_fe_box_nodes(&m);
    if (rank == 0)
        printf("Elasticity: %d x %d x %d cells, %lld nodes, %lld unknowns, %d ranks\n", m.nx, m.ny, m.nz, nodes,
               nodes * DOF, size);
    ovk_matrix *A = NULL;
    double *f = NULL, *xyz = NULL;
    rc = assemble(&m, &A, &f, &xyz);
    if (!rc) rc = solve_all(&a, &m, A, f, xyz, rank);
    if (rc && rank == 0) fprintf(stderr, "ovkrylov error: %s: %s\n", ovk_strerror(rc), ovk_error_detail());
    ovk_matrix_destroy(A);
    free(f), free(xyz);
    ovk_options_finalize();
    MPI_Finalize();
    return rc ? 1 : 0;
}

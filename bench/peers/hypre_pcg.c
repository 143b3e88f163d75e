/* Peer benchmark: hypre's PCG with diagonal scaling ("DS-PCG", what hypre's
 * `ij -27pt -solver 2` runs) on the 27-point (or 7-point) Laplacian built by
 * hypre's own GenerateLaplacian27pt / GenerateLaplacian.
 *
 * The flags follow our driver ovk_laplace27:
 *   -n nx ny nz      box PER PROCESS (default 10 10 10); the global grid is
 *                    (nx*px) x (ny*py) x (nz*pz)
 *   -P px py pz      processor grid (default MPI_Dims_create, balanced; note
 *                    that hypre's ij defaults to P = nranks, Q = R = 1)
 *   -stencil 27|7    (default 27)
 *   -tol t           relative two-norm tolerance (default 1e-8)
 *   -maxit m         (default 1000)
 *   -repeat R        solve R times, report the median (default 1)
 *
 * Matrix values exactly as ij sets them:
 *   27-point: values[0] = 26 (8 if one global dim is 1, 2 if two are),
 *             values[1] = -1
 *   7-point:  values[0] = 2*(#global dims > 1), values[1..3] = -1
 * Rank r has grid coordinates p = r % px, q = (r/px) % py, s = r/(px*py) and
 * owns its box numbered contiguously, x fastest -- the same row numbering as
 * ovk_laplace_create and as petsc_cg.c.
 *
 * Solver settings as ij -solver 2: HYPRE_ParCSRPCG, two-norm (||r||/||b||),
 * tol 1e-8, max_iter 1000, rel_change 0, preconditioner
 * HYPRE_ParCSRDiagScale / HYPRE_ParCSRDiagScaleSetup.  b = 1, x0 = 0.
 *
 * Output on rank 0:
 *   Iterations = N
 *   Final Relative Residual Norm = R
 *   Solve Time = T s            (HYPRE_ParCSRPCGSolve only; max over ranks,
 *                                median over repeats)
 *   Time per Iteration = t s    (T / N)
 * Run with OMP_NUM_THREADS=1 (Debian's libHYPRE is linked against libgomp).
 * The flags, the timing and the lines are peer_common.c's.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "peer_common.h"

static void usage_abort(const char *prog, const char *msg)
{
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        fprintf(stderr, "%s: %s\n", prog, msg);
        fprintf(stderr, "usage: %s [-n nx ny nz] [-P px py pz] [-stencil 27|7] [-tol t] [-maxit m] [-repeat R]\n",
                prog);
    }
    MPI_Abort(MPI_COMM_WORLD, PEER_EXIT_USAGE);
}

/* hypre's own generator, with this rank's box; checks the rows it owns. */
static HYPRE_ParCSRMatrix laplacian(const peer_grid *g)
{
    HYPRE_Real values[4] = {peer_grid_diagonal(g), -1.0, -1.0, -1.0};
    HYPRE_BigInt row_start, row_end, col_start, col_end;
    HYPRE_ParCSRMatrix A =
        g->stencil == PEER_STENCIL_27
            ? GenerateLaplacian27pt(MPI_COMM_WORLD, g->g[0], g->g[1], g->g[2], g->P[0], g->P[1], g->P[2], g->at[0],
                                    g->at[1], g->at[2], values)
            : GenerateLaplacian(MPI_COMM_WORLD, g->g[0], g->g[1], g->g[2], g->P[0], g->P[1], g->P[2], g->at[0],
                                g->at[1], g->at[2], values);
    HYPRE_ParCSRMatrixGetLocalRange(A, &row_start, &row_end, &col_start, &col_end);
    int nlocal = (int)(row_end - row_start + 1), want = g->n[0] * g->n[1] * g->n[2];
    if (nlocal != want) {
        fprintf(stderr, "hypre_pcg: rank %d owns %d rows, expected %d\n", g->rank, nlocal, want);
        MPI_Abort(MPI_COMM_WORLD, PEER_EXIT_RUNTIME);
    }
    return A;
}

/* b = 1 and x = 0 through the IJ interface, as ij builds them. */
static void vectors(HYPRE_ParCSRMatrix A, HYPRE_IJVector ij[2], HYPRE_ParVector *b, HYPRE_ParVector *x)
{
    HYPRE_BigInt row_start, row_end, col_start, col_end;
    HYPRE_ParCSRMatrixGetLocalRange(A, &row_start, &row_end, &col_start, &col_end);
    long long n = row_end - row_start + 1;
    double *ones = malloc(sizeof *ones * (size_t)(n ? n : 1));
    if (!ones) MPI_Abort(MPI_COMM_WORLD, PEER_EXIT_RUNTIME);
    for (long long i = 0; i < n; ++i) ones[i] = 1.0;
    ij[0] = peer_ij_vector(row_start, row_end + 1, ones, b);
    ij[1] = peer_ij_vector(col_start, col_end + 1, NULL, x);
    free(ones);
}

int main(int argc, char **argv)
{
    peer_grid g;
    HYPRE_ParVector b, x;
    HYPRE_IJVector ij[2];
    HYPRE_Real relres = 0.0;
    HYPRE_Int iterations = 0;
    MPI_Init(&argc, &argv);
    const char *bad = peer_grid_parse(argc, argv, 1, &g);
    if (bad) usage_abort(argv[0], bad);
    HYPRE_Init();
    HYPRE_ParCSRMatrix A = laplacian(&g);
    vectors(A, ij, &b, &x);
    HYPRE_Solver solver = peer_hypre_pcg(g.tol, g.maxit);
    HYPRE_ParCSRPCGSetPrecond(solver, (HYPRE_PtrToParSolverFcn)HYPRE_ParCSRDiagScale,
                              (HYPRE_PtrToParSolverFcn)HYPRE_ParCSRDiagScaleSetup, NULL);
    HYPRE_ParCSRPCGSetup(solver, A, b, x);
    double *t = malloc((size_t)g.repeat * sizeof *t);
    peer_result res = {g.repeat, 0, "Converged", "no", 0.0, -1.0, NULL, t, 1};
    for (int k = 0; t && k < g.repeat; ++k) { /* the solve alone, slowest rank */
        HYPRE_ParVectorSetConstantValues(x, 0.0);
        double t0 = ovk_bench_sync();
        HYPRE_Int ierr = HYPRE_ParCSRPCGSolve(solver, A, b, x);
        t[k] = ovk_bench_slowest(MPI_Wtime() - t0);
        HYPRE_ParCSRPCGGetNumIterations(solver, &iterations);
        HYPRE_ParCSRPCGGetFinalRelativeResidualNorm(solver, &relres);
        res.converged = peer_hypre_converged(ierr, relres, g.tol) ? "yes" : "no";
    }
    res.iterations = (int)iterations;
    res.final_rel = relres;
    if (g.rank == 0) printf("Solver = hypre DS-PCG (HYPRE_ParCSRPCG + HYPRE_ParCSRDiagScale)\n");
    peer_grid_print(&g);
    if (t) peer_print_result(&res);
    free(t);
    HYPRE_ParCSRPCGDestroy(solver);
    HYPRE_IJVectorDestroy(ij[1]);
    HYPRE_IJVectorDestroy(ij[0]);
    HYPRE_ParCSRMatrixDestroy(A);
    HYPRE_Finalize();
    MPI_Finalize();
    return t ? 0 : PEER_EXIT_RUNTIME;
}

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
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "HYPRE.h"
#include "HYPRE_IJ_mv.h"
#include "HYPRE_parcsr_ls.h"

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return (n % 2) ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static void usage_abort(int rank, const char *prog, const char *msg)
{
    if (rank == 0) {
        if (msg) fprintf(stderr, "%s: %s\n", prog, msg);
        fprintf(stderr,
                "usage: %s [-n nx ny nz] [-P px py pz] [-stencil 27|7] [-tol t] [-maxit m]"
                " [-repeat R]\n",
                prog);
    }
    MPI_Abort(MPI_COMM_WORLD, 2);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    int n[3] = {10, 10, 10}, P[3] = {0, 0, 0};
    int stencil = 27, maxit = 1000, repeat = 1;
    double tol = 1e-8;
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "-n") && i + 3 < argc) {
            for (int d = 0; d < 3; ++d) n[d] = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "-P") && i + 3 < argc) {
            for (int d = 0; d < 3; ++d) P[d] = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "-stencil") && i + 1 < argc) {
            stencil = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "-tol") && i + 1 < argc) {
            tol = atof(argv[++i]);
        } else if (!strcmp(argv[i], "-maxit") && i + 1 < argc) {
            maxit = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "-repeat") && i + 1 < argc) {
            repeat = atoi(argv[++i]);
        } else {
            usage_abort(rank, argv[0], "bad or incomplete argument");
        }
    }
    if (n[0] < 1 || n[1] < 1 || n[2] < 1) usage_abort(rank, argv[0], "-n values must be >= 1");
    if (stencil != 27 && stencil != 7) usage_abort(rank, argv[0], "-stencil must be 27 or 7");
    if (repeat < 1 || maxit < 0 || !(tol > 0)) usage_abort(rank, argv[0], "bad -repeat/-maxit/-tol");
    if (P[0] == 0 && P[1] == 0 && P[2] == 0) {
        MPI_Dims_create(size, 3, P);
    } else if (P[0] < 1 || P[1] < 1 || P[2] < 1 || P[0] * P[1] * P[2] != size) {
        usage_abort(rank, argv[0], "-P px py pz must multiply to the number of ranks");
    }

    HYPRE_Init();

    /* Global grid and this rank's position, as hypre's ij does it. */
    HYPRE_BigInt gx = (HYPRE_BigInt)n[0] * P[0], gy = (HYPRE_BigInt)n[1] * P[1],
                 gz = (HYPRE_BigInt)n[2] * P[2];
    int p = rank % P[0], q = (rank / P[0]) % P[1], s = rank / (P[0] * P[1]);

    HYPRE_ParCSRMatrix A;
    if (stencil == 27) {
        HYPRE_Real values[2];
        values[0] = 26.0;
        if (gx == 1 || gy == 1 || gz == 1) values[0] = 8.0;
        if ((gx == 1 && gy == 1) || (gx == 1 && gz == 1) || (gy == 1 && gz == 1)) values[0] = 2.0;
        values[1] = -1.0;
        A = GenerateLaplacian27pt(MPI_COMM_WORLD, gx, gy, gz, P[0], P[1], P[2], p, q, s, values);
    } else {
        HYPRE_Real values[4];
        values[0] = 0.0;
        values[1] = values[2] = values[3] = -1.0;
        if (gx > 1) values[0] += 2.0;
        if (gy > 1) values[0] += 2.0;
        if (gz > 1) values[0] += 2.0;
        A = GenerateLaplacian(MPI_COMM_WORLD, gx, gy, gz, P[0], P[1], P[2], p, q, s, values);
    }

    HYPRE_BigInt row_start, row_end, col_start, col_end;
    HYPRE_ParCSRMatrixGetLocalRange(A, &row_start, &row_end, &col_start, &col_end);
    int nlocal = (int)(row_end - row_start + 1);
    if (nlocal != n[0] * n[1] * n[2]) {
        fprintf(stderr, "hypre_pcg: rank %d owns %d rows, expected %d\n", rank, nlocal,
                n[0] * n[1] * n[2]);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }

    /* b = 1 and x = 0 through the IJ interface, as ij builds them. */
    HYPRE_IJVector ij_b, ij_x;
    HYPRE_ParVector b, x;
    HYPRE_Real *vals = malloc((size_t)nlocal * sizeof *vals);
    HYPRE_IJVectorCreate(MPI_COMM_WORLD, row_start, row_end, &ij_b);
    HYPRE_IJVectorSetObjectType(ij_b, HYPRE_PARCSR);
    HYPRE_IJVectorInitialize(ij_b);
    for (int i = 0; i < nlocal; ++i) vals[i] = 1.0;
    HYPRE_IJVectorSetValues(ij_b, nlocal, NULL, vals);
    HYPRE_IJVectorAssemble(ij_b);
    HYPRE_IJVectorGetObject(ij_b, (void **)&b);

    HYPRE_IJVectorCreate(MPI_COMM_WORLD, col_start, col_end, &ij_x);
    HYPRE_IJVectorSetObjectType(ij_x, HYPRE_PARCSR);
    HYPRE_IJVectorInitialize(ij_x);
    for (int i = 0; i < nlocal; ++i) vals[i] = 0.0;
    HYPRE_IJVectorSetValues(ij_x, nlocal, NULL, vals);
    HYPRE_IJVectorAssemble(ij_x);
    HYPRE_IJVectorGetObject(ij_x, (void **)&x);
    free(vals);

    HYPRE_Solver solver;
    HYPRE_ParCSRPCGCreate(MPI_COMM_WORLD, &solver);
    HYPRE_ParCSRPCGSetMaxIter(solver, maxit);
    HYPRE_ParCSRPCGSetTol(solver, tol);
    HYPRE_ParCSRPCGSetTwoNorm(solver, 1);
    HYPRE_ParCSRPCGSetRelChange(solver, 0);
    HYPRE_ParCSRPCGSetPrintLevel(solver, 0);
    HYPRE_ParCSRPCGSetLogging(solver, 1);
    HYPRE_ParCSRPCGSetPrecond(solver, (HYPRE_PtrToParSolverFcn)HYPRE_ParCSRDiagScale,
                              (HYPRE_PtrToParSolverFcn)HYPRE_ParCSRDiagScaleSetup, NULL);
    HYPRE_ParCSRPCGSetup(solver, A, b, x);

    double *t = malloc((size_t)repeat * sizeof *t);
    HYPRE_Int iters = 0;
    HYPRE_Real relres = 0.0;
    int converged = 0;
    for (int k = 0; k < repeat; ++k) {
        HYPRE_ParVectorSetConstantValues(x, 0.0);
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        HYPRE_Int ierr = HYPRE_ParCSRPCGSolve(solver, A, b, x);
        double dt = MPI_Wtime() - t0, dtmax;
        MPI_Allreduce(&dt, &dtmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        t[k] = dtmax;
        HYPRE_ParCSRPCGGetNumIterations(solver, &iters);
        HYPRE_ParCSRPCGGetFinalRelativeResidualNorm(solver, &relres);
        /* hypre flags HYPRE_ERROR_CONV when max_iter is reached; it does not
         * flag a zero or non-finite <p, A p>, so also check the norm. */
        converged = !HYPRE_CheckError(ierr, HYPRE_ERROR_CONV) && relres < tol && relres == relres;
        HYPRE_ClearAllErrors();
    }
    double tsolve = median(t, repeat);

    if (rank == 0) {
        printf("Solver = hypre DS-PCG (HYPRE_ParCSRPCG + HYPRE_ParCSRDiagScale)\n");
        printf("Stencil = %d\n", stencil);
        printf("Ranks = %d (P = %d %d %d)\n", size, P[0], P[1], P[2]);
        printf("Local grid = %d %d %d\n", n[0], n[1], n[2]);
        printf("Global grid = %lld %lld %lld (%lld unknowns)\n", (long long)gx, (long long)gy,
               (long long)gz, (long long)(gx * gy * gz));
        printf("Repeats = %d\n", repeat);
        printf("Converged = %s\n", converged ? "yes" : "no");
        printf("Iterations = %d\n", (int)iters);
        printf("Final Relative Residual Norm = %e\n", (double)relres);
        printf("Solve Time = %.6e s\n", tsolve);
        printf("Time per Iteration = %.6e s\n", iters > 0 ? tsolve / iters : 0.0);
    }

    free(t);
    HYPRE_ParCSRPCGDestroy(solver);
    HYPRE_IJVectorDestroy(ij_x);
    HYPRE_IJVectorDestroy(ij_b);
    HYPRE_ParCSRMatrixDestroy(A);
    HYPRE_Finalize();
    MPI_Finalize();
    return 0;
}

/* Peer benchmark: PETSc KSPCG + PCJACOBI (or -pc_type ...) on the 27-point (or 7-point)
 * Laplacian of hypre's GenerateLaplacian27pt / GenerateLaplacian.
 *
 * Flags as our driver ovk_laplace27 and hypre_pcg.c:
 *   -n nx ny nz      box PER PROCESS (default 10 10 10); global grid (nx*px) x ...
 *   -P px py pz      processor grid (default MPI_Dims_create, balanced)
 *   -stencil 27|7    (default 27)
 *   -tol t           relative tolerance (default 1e-8)
 *   -maxit m         (default 1000)
 *   -repeat R        solve R times, report the median (default 1)
 * Every other option goes to PETSc (KSPSetFromOptions / MatSetFromOptions),
 * e.g. -ksp_type pipecg, -ksp_type groppcg, -ksp_monitor, -log_view.
 *
 * The matrix: MATAIJ (MATMPIAIJ on more than one rank, -mat_type overrides;
 * -mat_type sbaij stores the upper triangle, as ovkrylov does for a
 * symmetric local block).
 * Rank r sits at grid coordinates (r % px, (r/px) % py, r/(px*py)) and owns
 * the rows of its nx*ny*nz box, numbered contiguously, x fastest, rank by
 * rank -- exactly the numbering of hypre's GenerateLaplacian27pt with
 * P = px, Q = py, R = pz and of ovk_laplace_create, so all three solvers see
 * the same permutation of the same matrix.  Values as hypre's ij sets them:
 *   27-point: diagonal 26 (8 if one global dim is 1, 2 if two are), off -1
 *   7-point:  diagonal 2*(#global dims > 1), off -1
 * Dirichlet boundaries (neighbours outside the grid dropped).  b = 1, x0 = 0.
 *
 * Convergence test, made identical to hypre's PCG with two_norm = 1
 * (stop when ||r_k||_2 < tol * ||b||_2, r_k the recursively updated residual):
 *   KSPSetNormType(KSP_NORM_UNPRECONDITIONED): the monitored norm is ||r_k||_2
 *     of the unpreconditioned residual (CG then computes it with one extra
 *     dot product per iteration; hypre does the same with two_norm).
 *   KSPConvergedDefault compares it with rtol * ||r_0||_2; with the zero
 *     initial guess (KSPSetInitialGuessNonzero false, the default) r_0 = b, so
 *     the reference is ||b||_2.  We do NOT call KSPConvergedDefaultSetUIRNorm
 *     (that would use ||B b||, the preconditioned norm).
 *   abstol = 0 (hypre's a_tol default), dtol unused.
 *
 * Output on rank 0:
 *   Iterations = N
 *   Final Relative Residual Norm = R      (KSP's final ||r|| / ||b||)
 *   Solve Time = T s                      (KSPSolve only, KSPSetUp -- which
 *                                          extracts the Jacobi diagonal -- done
 *                                          before; max over ranks, median over
 *                                          repeats)
 *   Time per Iteration = t s              (T / N)
 */
#include <petscksp.h>
#include <stdlib.h>
#include <string.h>

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

/* Global row id of global grid point (X, Y, Z) in the per-rank box numbering. */
static PetscInt gid(PetscInt X, PetscInt Y, PetscInt Z, const int n[3], const int P[3])
{
    PetscInt p = X / n[0], q = Y / n[1], s = Z / n[2];
    PetscInt i = X - p * n[0], j = Y - q * n[1], k = Z - s * n[2];
    PetscInt owner = p + (PetscInt)P[0] * (q + (PetscInt)P[1] * s);
    PetscInt nloc = (PetscInt)n[0] * n[1] * n[2];
    return owner * nloc + i + (PetscInt)n[0] * (j + (PetscInt)n[1] * k);
}

int main(int argc, char **argv)
{
    PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
    PetscMPIInt rank, size;
    PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
    PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));

    int n[3] = {10, 10, 10}, P[3] = {0, 0, 0};
    int stencil = 27, maxit = 1000, repeat = 1;
    double tol = 1e-8;
    /* Our own flags (PETSc ignores unknown options; we ignore PETSc's). */
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
        }
    }
    PetscCheck(n[0] >= 1 && n[1] >= 1 && n[2] >= 1, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE,
               "-n values must be >= 1");
    PetscCheck(stencil == 27 || stencil == 7, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE,
               "-stencil must be 27 or 7");
    PetscCheck(repeat >= 1 && maxit >= 0 && tol > 0, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE,
               "bad -repeat/-maxit/-tol");
    if (P[0] == 0 && P[1] == 0 && P[2] == 0) {
        PetscCallMPI(MPI_Dims_create(size, 3, P));
    } else {
        PetscCheck(P[0] >= 1 && P[1] >= 1 && P[2] >= 1 && P[0] * P[1] * P[2] == size,
                   PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE,
                   "-P px py pz must multiply to the number of ranks");
    }

    const PetscInt gx = (PetscInt)n[0] * P[0], gy = (PetscInt)n[1] * P[1],
                   gz = (PetscInt)n[2] * P[2];
    const PetscInt nloc = (PetscInt)n[0] * n[1] * n[2];
    const int p = rank % P[0], q = (rank / P[0]) % P[1], s = rank / (P[0] * P[1]);
    const PetscInt rstart = (PetscInt)rank * nloc, rend = rstart + nloc;

    PetscScalar diag, off = -1.0;
    if (stencil == 27) {
        diag = 26.0;
        if (gx == 1 || gy == 1 || gz == 1) diag = 8.0;
        if ((gx == 1 && gy == 1) || (gx == 1 && gz == 1) || (gy == 1 && gz == 1)) diag = 2.0;
    } else {
        diag = 2.0 * ((gx > 1) + (gy > 1) + (gz > 1));
    }

    /* Exact preallocation: count diagonal-block and off-diagonal-block entries. */
    PetscInt *dnnz, *onnz;
    PetscCall(PetscMalloc2(nloc, &dnnz, nloc, &onnz));
    PetscInt cols[27];
    PetscScalar vals[27];
    for (int pass = 0; pass < 2; ++pass) {
        Mat A = NULL;
        if (pass == 1) {
            PetscCall(MatCreate(PETSC_COMM_WORLD, &A));
            PetscCall(MatSetSizes(A, nloc, nloc, PETSC_DETERMINE, PETSC_DETERMINE));
            PetscCall(MatSetType(A, MATAIJ));
            PetscCall(MatSetFromOptions(A));
            /* -mat_type sbaij: PETSc's symmetric storage (upper triangle);
               the counts of whole rows bound those of the upper parts */
            PetscBool sym;
            PetscCall(MatXAIJSetPreallocation(A, 1, dnnz, onnz, dnnz, onnz));
            PetscCall(PetscObjectTypeCompareAny((PetscObject)A, &sym, MATSBAIJ, MATSEQSBAIJ, MATMPISBAIJ, ""));
            if (sym) PetscCall(MatSetOption(A, MAT_IGNORE_LOWER_TRIANGULAR, PETSC_TRUE));
        }
        for (int k = 0; k < n[2]; ++k)
            for (int j = 0; j < n[1]; ++j)
                for (int i = 0; i < n[0]; ++i) {
                    const PetscInt X = (PetscInt)p * n[0] + i, Y = (PetscInt)q * n[1] + j,
                                   Z = (PetscInt)s * n[2] + k;
                    const PetscInt row = rstart + i + (PetscInt)n[0] * (j + (PetscInt)n[1] * k);
                    PetscInt nc = 0, nd = 0, no = 0;
                    for (int dz = -1; dz <= 1; ++dz)
                        for (int dy = -1; dy <= 1; ++dy)
                            for (int dx = -1; dx <= 1; ++dx) {
                                const int dist = abs(dx) + abs(dy) + abs(dz);
                                if (stencil == 7 && dist > 1) continue;
                                const PetscInt XX = X + dx, YY = Y + dy, ZZ = Z + dz;
                                if (XX < 0 || XX >= gx || YY < 0 || YY >= gy || ZZ < 0 || ZZ >= gz)
                                    continue;
                                const PetscInt c = gid(XX, YY, ZZ, n, P);
                                cols[nc] = c;
                                vals[nc] = dist == 0 ? diag : off;
                                ++nc;
                                if (c >= rstart && c < rend)
                                    ++nd;
                                else
                                    ++no;
                            }
                    const PetscInt lr = row - rstart;
                    if (pass == 0) {
                        dnnz[lr] = nd;
                        onnz[lr] = no;
                    } else {
                        PetscCall(MatSetValues(A, 1, &row, nc, cols, vals, INSERT_VALUES));
                    }
                }
        if (pass == 1) {
            PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
            PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));

            Vec x, b;
            PetscCall(MatCreateVecs(A, &x, &b));
            PetscCall(VecSet(b, 1.0));
            PetscReal bnorm;
            PetscCall(VecNorm(b, NORM_2, &bnorm));

            KSP ksp;
            PC pc;
            PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
            PetscCall(KSPSetOperators(ksp, A, A));
            PetscCall(KSPSetType(ksp, KSPCG));
            PetscCall(KSPGetPC(ksp, &pc));
            PetscCall(PCSetType(pc, PCJACOBI));
            PetscCall(KSPSetNormType(ksp, KSP_NORM_UNPRECONDITIONED));
            PetscCall(KSPSetInitialGuessNonzero(ksp, PETSC_FALSE));
            PetscCall(KSPSetTolerances(ksp, tol, 0.0, PETSC_DEFAULT, maxit));
            PetscCall(KSPSetFromOptions(ksp));
            PetscCall(KSPSetUp(ksp));

            double *t;
            PetscCall(PetscMalloc1(repeat, &t));
            PetscInt its = 0;
            PetscReal rnorm = 0.0;
            KSPConvergedReason reason = KSP_CONVERGED_ITERATING;
            for (int r = 0; r < repeat; ++r) {
                PetscCall(VecSet(x, 0.0));
                PetscCallMPI(MPI_Barrier(PETSC_COMM_WORLD));
                double t0 = MPI_Wtime();
                PetscCall(KSPSolve(ksp, b, x));
                double dt = MPI_Wtime() - t0, dtmax;
                PetscCallMPI(MPI_Allreduce(&dt, &dtmax, 1, MPI_DOUBLE, MPI_MAX, PETSC_COMM_WORLD));
                t[r] = dtmax;
                PetscCall(KSPGetIterationNumber(ksp, &its));
                PetscCall(KSPGetResidualNorm(ksp, &rnorm));
                PetscCall(KSPGetConvergedReason(ksp, &reason));
            }
            const double tsolve = median(t, repeat);

            /* True residual, as a check of the recursive one. */
            Vec r;
            PetscReal tnorm;
            PetscCall(VecDuplicate(b, &r));
            PetscCall(MatMult(A, x, r));
            PetscCall(VecAYPX(r, -1.0, b));
            PetscCall(VecNorm(r, NORM_2, &tnorm));

            KSPType kt;
            KSPNormType nt;
            PetscCall(KSPGetType(ksp, &kt));
            PetscCall(KSPGetNormType(ksp, &nt));
            PCType pt;
            PetscCall(PCGetType(pc, &pt));
            PetscCall(PetscPrintf(PETSC_COMM_WORLD, "Solver = PETSc %s + %s (norm %s)\n", kt, pt,
                                  KSPNormTypes[nt]));
            PetscCall(PetscPrintf(PETSC_COMM_WORLD, "Stencil = %d\n", stencil));
            PetscCall(PetscPrintf(PETSC_COMM_WORLD, "Ranks = %d (P = %d %d %d)\n", (int)size, P[0],
                                  P[1], P[2]));
            PetscCall(PetscPrintf(PETSC_COMM_WORLD, "Local grid = %d %d %d\n", n[0], n[1], n[2]));
            PetscCall(PetscPrintf(PETSC_COMM_WORLD, "Global grid = %d %d %d (%lld unknowns)\n",
                                  (int)gx, (int)gy, (int)gz, (long long)gx * gy * gz));
            PetscCall(PetscPrintf(PETSC_COMM_WORLD, "Repeats = %d\n", repeat));
            PetscCall(PetscPrintf(PETSC_COMM_WORLD, "Converged reason = %s\n",
                                  KSPConvergedReasons[reason]));
            PetscCall(PetscPrintf(PETSC_COMM_WORLD, "Iterations = %d\n", (int)its));
            PetscCall(PetscPrintf(PETSC_COMM_WORLD, "Final Relative Residual Norm = %e\n",
                                  (double)(rnorm / bnorm)));
            PetscCall(PetscPrintf(PETSC_COMM_WORLD, "True Relative Residual Norm = %e\n",
                                  (double)(tnorm / bnorm)));
            PetscCall(PetscPrintf(PETSC_COMM_WORLD, "Solve Time = %.6e s\n", tsolve));
            PetscCall(PetscPrintf(PETSC_COMM_WORLD, "Time per Iteration = %.6e s\n",
                                  its > 0 ? tsolve / (double)its : 0.0));

            PetscCall(PetscFree(t));
            PetscCall(VecDestroy(&r));
            PetscCall(VecDestroy(&x));
            PetscCall(VecDestroy(&b));
            PetscCall(KSPDestroy(&ksp));
            PetscCall(MatDestroy(&A));
        }
    }
    PetscCall(PetscFree2(dnnz, onnz));
    PetscCall(PetscFinalize());
    return 0;
}

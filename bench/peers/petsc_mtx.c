/* Peer benchmark: PETSc KSPCG on a Matrix Market file, with any PC of the
 * command line (-pc_type jacobi | bjacobi -sub_pc_type icc | sor, ...), as
 * ovk_mtx_solve runs ours: rows split in contiguous balanced blocks (rank r
 * owns [r N / P, (r+1) N / P)), b = A * 1, x0 = 0, stop when
 * ||r||_2 < tol ||b||_2 (unpreconditioned norm, as hypre's two-norm test).
 *
 *   mpiexec -n 2 petsc_mtx -f FILE.mtx [-tol T] [-maxit N] [-repeat R] [PETSc options]
 *
 * Prints Iterations, Final/True Relative Residual Norm, Setup Time (KSPSetUp:
 * the PC's factor or diagonal), Solve Time (KSPSolve, max over ranks, median
 * over R repeats).  The reader takes coordinate real/integer/pattern,
 * general/symmetric files (symmetric mirrored); it is a benchmark helper,
 * not a validating parser. */
#include <petscksp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* every entry of the file (mirrored when symmetric) */
static int read_mm(const char *path, PetscInt *N, PetscInt *nz, PetscInt **ri, PetscInt **rj, double **rv)
{
    char line[1024];
    long rows, cols, cnt;
    FILE *f = fopen(path, "r");
    if (!f || !fgets(line, sizeof line, f)) return -1;
    int sym = strstr(line, "symmetric") != NULL, pattern = strstr(line, "pattern") != NULL;
    do {
        if (!fgets(line, sizeof line, f)) return -1;
    } while (line[0] == '%');
    if (sscanf(line, "%ld %ld %ld", &rows, &cols, &cnt) != 3 || rows != cols) return -1;
    *ri = malloc(sizeof(PetscInt) * 2 * cnt);
    *rj = malloc(sizeof(PetscInt) * 2 * cnt);
    *rv = malloc(sizeof(double) * 2 * cnt);
    *nz = 0;
    for (long k = 0; k < cnt; k++) {
        long i, j;
        double v = 1.0;
        if (!fgets(line, sizeof line, f)) return -1;
        if (sscanf(line, "%ld %ld %lf", &i, &j, &v) < (pattern ? 2 : 3)) return -1;
        (*ri)[*nz] = i - 1, (*rj)[*nz] = j - 1, (*rv)[(*nz)++] = v;
        if (sym && i != j) (*ri)[*nz] = j - 1, (*rj)[*nz] = i - 1, (*rv)[(*nz)++] = v;
    }
    fclose(f);
    *N = rows;
    return 0;
}

int main(int argc, char **argv)
{
    PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
    PetscMPIInt rank, size;
    PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
    PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
    const char *path = NULL;
    int maxit = 10000, repeat = 1;
    double tol = 1e-8;
    for (int i = 1; i + 1 < argc; ++i) {
        if (!strcmp(argv[i], "-f")) path = argv[++i];
        else if (!strcmp(argv[i], "-tol")) tol = atof(argv[++i]);
        else if (!strcmp(argv[i], "-maxit")) maxit = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-repeat")) repeat = atoi(argv[++i]);
    }
    PetscCheck(path && repeat >= 1, PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "usage: petsc_mtx -f FILE.mtx");
    PetscInt N, nz, *ri, *rj;
    double *rv;
    PetscCheck(read_mm(path, &N, &nz, &ri, &rj, &rv) == 0, PETSC_COMM_SELF, PETSC_ERR_FILE_READ, "cannot read %s",
               path);
    PetscInt lo = N * rank / size, hi = N * (rank + 1) / size;
    Mat A;
    PetscCall(MatCreate(PETSC_COMM_WORLD, &A));
    PetscCall(MatSetSizes(A, hi - lo, hi - lo, N, N));
    PetscCall(MatSetType(A, MATAIJ));
    PetscCall(MatSetFromOptions(A));
    PetscCall(MatSetUp(A));
    PetscCall(MatSetOption(A, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
    for (PetscInt k = 0; k < nz; k++)
        if (ri[k] >= lo && ri[k] < hi) PetscCall(MatSetValue(A, ri[k], rj[k], rv[k], ADD_VALUES));
    PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
    Vec x, b, one;
    PetscCall(MatCreateVecs(A, &x, &b));
    PetscCall(VecDuplicate(x, &one));
    PetscCall(VecSet(one, 1.0));
    PetscCall(MatMult(A, one, b)); /* b = A * 1 */
    PetscReal bnorm, rnorm, tnorm;
    PetscCall(VecNorm(b, NORM_2, &bnorm));
    KSP ksp;
    PC pc;
    PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
    PetscCall(KSPSetOperators(ksp, A, A));
    PetscCall(KSPSetType(ksp, KSPCG));
    PetscCall(KSPGetPC(ksp, &pc));
    PetscCall(PCSetType(pc, PCJACOBI));
    PetscCall(KSPSetNormType(ksp, KSP_NORM_UNPRECONDITIONED));
    PetscCall(KSPSetTolerances(ksp, tol, 0.0, PETSC_DEFAULT, maxit));
    PetscCall(KSPSetFromOptions(ksp));
    PetscCallMPI(MPI_Barrier(PETSC_COMM_WORLD));
    double t0 = MPI_Wtime(), tsetup, dt;
    PetscCall(KSPSetUp(ksp));
    dt = MPI_Wtime() - t0;
    PetscCallMPI(MPI_Allreduce(&dt, &tsetup, 1, MPI_DOUBLE, MPI_MAX, PETSC_COMM_WORLD));
    double *t = malloc(sizeof(double) * repeat);
    PetscInt its = 0;
    KSPConvergedReason reason;
    for (int r = 0; r < repeat; ++r) {
        PetscCall(VecSet(x, 0.0));
        PetscCallMPI(MPI_Barrier(PETSC_COMM_WORLD));
        t0 = MPI_Wtime();
        PetscCall(KSPSolve(ksp, b, x));
        dt = MPI_Wtime() - t0;
        PetscCallMPI(MPI_Allreduce(&dt, &t[r], 1, MPI_DOUBLE, MPI_MAX, PETSC_COMM_WORLD));
    }
    qsort(t, (size_t)repeat, sizeof *t, cmp_double);
    PetscCall(KSPGetIterationNumber(ksp, &its));
    PetscCall(KSPGetResidualNorm(ksp, &rnorm));
    PetscCall(KSPGetConvergedReason(ksp, &reason));
    PetscCall(MatMult(A, x, one));
    PetscCall(VecAYPX(one, -1.0, b));
    PetscCall(VecNorm(one, NORM_2, &tnorm));
    PCType pt;
    PetscCall(PCGetType(pc, &pt));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "Solver = PETSc cg + %s\nConverged reason = %s\n", pt,
                          KSPConvergedReasons[reason]));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "Iterations = %d\n", (int)its));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "Final Relative Residual Norm = %e\n", (double)(rnorm / bnorm)));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "True Relative Residual Norm = %e\n", (double)(tnorm / bnorm)));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "Setup Time = %.6e s\n", tsetup));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "Solve Time = %.6e s\n", t[repeat / 2]));
    free(t);
    free(ri), free(rj), free(rv);
    PetscCall(VecDestroy(&x));
    PetscCall(VecDestroy(&b));
    PetscCall(VecDestroy(&one));
    PetscCall(KSPDestroy(&ksp));
    PetscCall(MatDestroy(&A));
    PetscCall(PetscFinalize());
    return 0;
}

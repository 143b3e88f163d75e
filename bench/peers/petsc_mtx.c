/* Peer benchmark: PETSc KSPCG on a Matrix Market file with any PC of the
 * command line, as a PETSc user runs it: Jacobi by default (as ovk_mtx_solve
 * runs ours), or -pc_type bjacobi -sub_pc_type icc | sor | gamg |
 * hypre -pc_hypre_type boomeramg, with their sub-options (KSPSetFromOptions,
 * which calls PCSetFromOptions, comes after the defaults).
 *
 *   mpiexec -n 2 petsc_mtx -f FILE.mtx [-tol T] [-maxit N] [-repeat R]
 *                          [-rhs Aones|random] [-bs N] [-coords FILE.xyz] [PETSc options]
 *
 *   -rhs Aones    b = A * 1 (default: what compare_peers.sh and precond_bench.sh
 *                 compare with ovk_mtx_solve)
 *   -rhs random   b_i = SplitMix64 of the global row i, uniform in [-1, 1)
 *                 (mtx_random_entry in mtx_local.h, the same b as ours)
 *   -bs N         MatSetBlockSize N (N divides the rows; the rows are split
 *                 on nodes of N rows), e.g. 3 for bench/fe_gen.py elasticity
 *   -coords F     node coordinates (bench/fe_gen.py's NAME.xyz; implies -bs 3):
 *                 MatNullSpaceCreateRigidBody + MatSetNearNullSpace (GAMG's
 *                 and PCHYPRE's -pc_hypre_boomeramg_vec_interp_variant use it)
 *                 and PCSetCoordinates (GAMG)
 *
 * Rows split in contiguous blocks (rank r owns the nodes [r M / P, (r+1) M / P)
 * of M = N / bs, see mtx_local.h), x0 = 0, CG stops when
 * ||r||_2 < tol ||b||_2 (unpreconditioned norm, as hypre's two-norm test).
 * Every repeat builds a new KSP: setup (KSPSetUp, which runs PCSetUp) and
 * solve (KSPSolve) are timed apart, max over ranks, median over R repeats.
 * Note that some PCs leave part of their setup to the first application
 * (e.g. Chebyshev smoothers estimate eigenvalues in their first solve): it
 * then counts in the solve time, as a user sees it.
 *
 * Prints Iterations, Final/True Relative Residual Norm, Setup Time, Solve
 * Time.  The matrix is stored with exact preallocation (MatXAIJSetPreallocation),
 * any -mat_type (aij, baij, sbaij: SBAIJ gets only the upper triangle). */
#include <petscksp.h>

#include "mtx_local.h"

int main(int argc, char **argv)
{
    PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
    PetscMPIInt rank, size;
    PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
    PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
    char path[PETSC_MAX_PATH_LEN] = "", cpath[PETSC_MAX_PATH_LEN] = "", rhs[32] = "Aones";
    PetscBool has_path, has_coords, has_bs;
    PetscInt maxit = 10000, repeat = 1, bs = 1;
    PetscReal tol = 1e-8;
    PetscCall(PetscOptionsGetString(NULL, NULL, "-f", path, sizeof path, &has_path));
    PetscCall(PetscOptionsGetString(NULL, NULL, "-coords", cpath, sizeof cpath, &has_coords));
    PetscCall(PetscOptionsGetString(NULL, NULL, "-rhs", rhs, sizeof rhs, NULL));
    PetscCall(PetscOptionsGetReal(NULL, NULL, "-tol", &tol, NULL));
    PetscCall(PetscOptionsGetInt(NULL, NULL, "-maxit", &maxit, NULL));
    PetscCall(PetscOptionsGetInt(NULL, NULL, "-repeat", &repeat, NULL));
    PetscCall(PetscOptionsGetInt(NULL, NULL, "-bs", &bs, &has_bs));
    if (has_coords && !has_bs) bs = 3;
    int random_rhs = !strcmp(rhs, "random");
    PetscCheck(has_path && repeat >= 1 && maxit >= 0 && tol > 0 && bs >= 1, PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG,
               "usage: petsc_mtx -f FILE.mtx [-tol T] [-maxit N] [-repeat R] [-rhs Aones|random] [-bs N] "
               "[-coords FILE.xyz] [PETSc options]");
    PetscCheck(random_rhs || !strcmp(rhs, "Aones"), PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG,
               "-rhs must be Aones or random");
    PetscCheck(!has_coords || bs == 3, PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "-coords needs -bs 3");

    mtx_local m;
    char err[256];
    int rc = mtx_read_local(path, (int)bs, rank, size, &m, err, sizeof err), rcmax;
    if (rc) fprintf(stderr, "petsc_mtx: rank %d: %s\n", rank, err);
    PetscCallMPI(MPI_Allreduce(&rc, &rcmax, 1, MPI_INT, MPI_MIN, PETSC_COMM_WORLD));
    PetscCheck(rcmax == 0, PETSC_COMM_WORLD, PETSC_ERR_FILE_READ, "cannot read %s", path);
    PetscInt N = (PetscInt)m.n, lo = (PetscInt)m.lo, hi = (PetscInt)m.hi, nl = hi - lo;

    Mat A;
    PetscCall(MatCreate(PETSC_COMM_WORLD, &A));
    PetscCall(MatSetSizes(A, nl, nl, N, N));
    PetscCall(MatSetType(A, MATAIJ));
    PetscCall(MatSetFromOptions(A));
    PetscBool sbaij;
    PetscCall(PetscObjectTypeCompareAny((PetscObject)A, &sbaij, MATSBAIJ, MATSEQSBAIJ, MATMPISBAIJ, ""));
    /* preallocation per block row: block columns in the diagonal / off-diagonal
     * part, all and upper (for SBAIJ) */
    PetscInt nb = nl / bs, *dnnz, *onnz, *dnnzu, *onnzu, maxrow = 1;
    PetscCall(PetscCalloc4(nb, &dnnz, nb, &onnz, nb, &dnnzu, nb, &onnzu));
    for (PetscInt r = 0; r < nl; r++) maxrow = PetscMax(maxrow, (PetscInt)(m.rowptr[r + 1] - m.rowptr[r]));
    PetscInt *tmp, *cols;
    PetscScalar *vals;
    PetscCall(PetscMalloc3(bs * maxrow, &tmp, maxrow, &cols, maxrow, &vals));
    for (PetscInt ib = 0; ib < nb; ib++) {
        PetscInt k = 0, gI = (lo + ib * bs) / bs;
        for (PetscInt r = ib * bs; r < (ib + 1) * bs; r++)
            for (long long p = m.rowptr[r]; p < m.rowptr[r + 1]; p++) tmp[k++] = (PetscInt)(m.col[p] / bs);
        PetscCall(PetscSortRemoveDupsInt(&k, tmp));
        for (PetscInt t = 0; t < k; t++) {
            int diag = tmp[t] >= lo / bs && tmp[t] < hi / bs;
            if (diag) dnnz[ib]++, dnnzu[ib] += tmp[t] >= gI;
            else onnz[ib]++, onnzu[ib] += tmp[t] >= gI;
        }
    }
    PetscCall(MatXAIJSetPreallocation(A, bs, dnnz, onnz, dnnzu, onnzu));
    PetscCall(PetscFree4(dnnz, onnz, dnnzu, onnzu));
    PetscCall(MatSetOption(A, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
    if (sbaij) PetscCall(MatSetOption(A, MAT_IGNORE_LOWER_TRIANGULAR, PETSC_TRUE));
    for (PetscInt r = 0; r < nl; r++) {
        PetscInt row = lo + r, k = 0;
        for (long long p = m.rowptr[r]; p < m.rowptr[r + 1]; p++) {
            if (sbaij && m.col[p] / bs < row / bs) continue; /* SBAIJ: upper block triangle */
            cols[k] = (PetscInt)m.col[p], vals[k++] = m.val[p];
        }
        PetscCall(MatSetValues(A, 1, &row, k, cols, vals, INSERT_VALUES));
    }
    PetscCall(PetscFree3(tmp, cols, vals));
    mtx_local_free(&m);
    PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));

    /* coordinates: rigid-body near null space and PCSetCoordinates */
    double *xyz = NULL;
    if (has_coords) {
        rc = xyz_read_local(cpath, N / 3, lo / 3, hi / 3, &xyz, err, sizeof err);
        if (rc) fprintf(stderr, "petsc_mtx: rank %d: %s\n", rank, err);
        PetscCallMPI(MPI_Allreduce(&rc, &rcmax, 1, MPI_INT, MPI_MIN, PETSC_COMM_WORLD));
        PetscCheck(rcmax == 0, PETSC_COMM_WORLD, PETSC_ERR_FILE_READ, "cannot read %s", cpath);
        Vec vc;
        MatNullSpace nsp;
        PetscScalar *a;
        PetscCall(VecCreateMPI(PETSC_COMM_WORLD, nl, N, &vc));
        PetscCall(VecSetBlockSize(vc, 3));
        PetscCall(VecGetArray(vc, &a));
        for (PetscInt i = 0; i < nl; i++) a[i] = xyz[i];
        PetscCall(VecRestoreArray(vc, &a));
        PetscCall(MatNullSpaceCreateRigidBody(vc, &nsp));
        PetscCall(MatSetNearNullSpace(A, nsp));
        PetscCall(MatNullSpaceDestroy(&nsp));
        PetscCall(VecDestroy(&vc));
    }

    Vec x, b, r;
    PetscCall(MatCreateVecs(A, &x, &b));
    PetscCall(VecDuplicate(x, &r));
    if (random_rhs) {
        PetscScalar *a;
        PetscCall(VecGetArray(b, &a));
        for (PetscInt i = 0; i < nl; i++) a[i] = mtx_random_entry(lo + i);
        PetscCall(VecRestoreArray(b, &a));
    } else {
        PetscCall(VecSet(r, 1.0));
        PetscCall(MatMult(A, r, b)); /* b = A * 1 */
    }
    PetscReal bnorm, rnorm, tnorm;
    PetscCall(VecNorm(b, NORM_2, &bnorm));

    double *ts, *tu, t0, dt;
    PetscCall(PetscMalloc2(repeat, &ts, repeat, &tu));
    PetscInt its = 0;
    KSPConvergedReason reason;
    KSP ksp = NULL;
    PC pc;
    for (PetscInt k = 0; k < repeat; ++k) {
        PetscCall(KSPDestroy(&ksp));
        PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
        PetscCall(KSPSetOperators(ksp, A, A));
        PetscCall(KSPSetType(ksp, KSPCG));
        PetscCall(KSPGetPC(ksp, &pc));
        PetscCall(PCSetType(pc, PCJACOBI));
        PetscCall(KSPSetNormType(ksp, KSP_NORM_UNPRECONDITIONED));
        PetscCall(KSPSetTolerances(ksp, tol, 0.0, PETSC_DEFAULT, maxit));
        PetscCall(KSPSetFromOptions(ksp)); /* and PCSetFromOptions: -pc_type gamg, hypre, ... */
        if (xyz) PetscCall(PCSetCoordinates(pc, 3, nl / 3, xyz)); /* a no-op for PCs without coordinates */
        PetscCall(VecSet(x, 0.0));
        PetscCallMPI(MPI_Barrier(PETSC_COMM_WORLD));
        t0 = MPI_Wtime();
        PetscCall(KSPSetUp(ksp));
        dt = MPI_Wtime() - t0;
        PetscCallMPI(MPI_Allreduce(&dt, &tu[k], 1, MPI_DOUBLE, MPI_MAX, PETSC_COMM_WORLD));
        PetscCallMPI(MPI_Barrier(PETSC_COMM_WORLD));
        t0 = MPI_Wtime();
        PetscCall(KSPSolve(ksp, b, x));
        dt = MPI_Wtime() - t0;
        PetscCallMPI(MPI_Allreduce(&dt, &ts[k], 1, MPI_DOUBLE, MPI_MAX, PETSC_COMM_WORLD));
    }
    PetscCall(KSPGetIterationNumber(ksp, &its));
    PetscCall(KSPGetResidualNorm(ksp, &rnorm));
    PetscCall(KSPGetConvergedReason(ksp, &reason));
    PetscCall(MatMult(A, x, r));
    PetscCall(VecAYPX(r, -1.0, b));
    PetscCall(VecNorm(r, NORM_2, &tnorm));
    PCType pt;
    PetscCall(PCGetType(pc, &pt));
    char pcname[64];
    PetscCall(PetscSNPrintf(pcname, sizeof pcname, "%s", pt));
    if (!strcmp(pt, PCHYPRE)) {
        const char *ht;
        PetscCall(PCHYPREGetType(pc, &ht));
        PetscCall(PetscSNPrintf(pcname, sizeof pcname, "hypre %s", ht));
    }
    MatType mt;
    PetscCall(MatGetType(A, &mt));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "Solver = PETSc cg + %s\nConverged reason = %s\n", pcname,
                          KSPConvergedReasons[reason]));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "Matrix = %s: %d rows, block size %d, %s, %d ranks\n", path, (int)N,
                          (int)bs, mt, (int)size));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "Right-hand side = %s%s\n", random_rhs ? "random" : "A * 1",
                          xyz ? "; rigid-body near null space from the coordinates" : ""));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "Repeats = %d\n", (int)repeat));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "Iterations = %d\n", (int)its));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "Final Relative Residual Norm = %e\n", (double)(rnorm / bnorm)));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "True Relative Residual Norm = %e\n", (double)(tnorm / bnorm)));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "Setup Time = %.6e s\n", mtx_median(tu, (int)repeat)));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "Solve Time = %.6e s\n", mtx_median(ts, (int)repeat)));
    PetscCall(PetscFree2(ts, tu));
    free(xyz);
    PetscCall(VecDestroy(&x));
    PetscCall(VecDestroy(&b));
    PetscCall(VecDestroy(&r));
    PetscCall(KSPDestroy(&ksp));
    PetscCall(MatDestroy(&A));
    PetscCall(PetscFinalize());
    return 0;
}

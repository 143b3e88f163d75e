/* Peer benchmark: PETSc's ksp ex50 set-up, written anew: the 5-point
 * Poisson matrix of a DMDA (unit square, Dirichlet rows on the boundary,
 * h^2-scaled), with the DM given to the KSP (KSPSetDM, KSPSetDMActive off:
 * the program's own assembled operator), so that PCMG builds its levels
 * from the DMDA's interpolation (-pc_type mg -pc_mg_levels L
 * -pc_mg_galerkin pmat), any -ksp_type, the plug-in with -dll_append.
 *
 *   mpiexec -n 2 petsc_dmda [-n N] [-repeat R] [-tol T] [-maxit M] [PETSc options]
 *
 * N x N nodes (default 513); b: -rhs random's entries (peer_random_entry
 * of the global row), x0 = 0, the KSP stops at its rtol T (default 1e-8).
 * One KSPSetUp, then R solves (default 3); prints the driver's lines (the
 * medians of the R solves, slowest rank each). */
#include <stdlib.h>
#include <string.h>

#include <petscdmda.h>

#include "peer_common.h"

static PetscErrorCode assemble(DM da, Mat *A)
{
    PetscInt xs, ys, xm, ym, M;
    PetscFunctionBeginUser;
    PetscCall(DMDAGetInfo(da, NULL, &M, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
    PetscCall(DMCreateMatrix(da, A));
    PetscCall(DMDAGetCorners(da, &xs, &ys, NULL, &xm, &ym, NULL));
    for (PetscInt j = ys; j < ys + ym; j++)
        for (PetscInt i = xs; i < xs + xm; i++) {
            MatStencil row = {.i = i, .j = j}, col[5];
            PetscScalar v[5];
            if (i == 0 || j == 0 || i == M - 1 || j == M - 1) { /* Dirichlet */
                v[0] = 4;
                PetscCall(MatSetValuesStencil(*A, 1, &row, 1, &row, v, INSERT_VALUES));
                continue;
            }
            int n = 0;
            const int di[5] = {0, -1, 1, 0, 0}, dj[5] = {0, 0, 0, -1, 1};
            for (int k = 0; k < 5; k++) {
                PetscInt ii = i + di[k], jj = j + dj[k];
                if (k && (ii == 0 || jj == 0 || ii == M - 1 || jj == M - 1)) continue; /* eliminated */
                col[n] = (MatStencil){.i = ii, .j = jj};
                v[n++] = k ? -1 : 4;
            }
            PetscCall(MatSetValuesStencil(*A, 1, &row, n, col, v, INSERT_VALUES));
        }
    PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatSetOption(*A, MAT_SPD, PETSC_TRUE));
    PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
    DM da;
    Mat A;
    Vec b, x, r;
    KSP ksp;
    PetscInt n = 513, repeat = 3, maxit = 10000, lo, hi, its = 0;
    PetscReal tol = 1e-8, bn, rn, rnorm;
    KSPConvergedReason reason;
    double *setup_s, *solve_s;
    PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
    PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
    PetscCall(PetscOptionsGetInt(NULL, NULL, "-repeat", &repeat, NULL));
    PetscCall(PetscOptionsGetInt(NULL, NULL, "-maxit", &maxit, NULL));
    PetscCall(PetscOptionsGetReal(NULL, NULL, "-tol", &tol, NULL));
    PetscCheck(n >= 5 && repeat >= 1, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-n >= 5, -repeat >= 1");
    PetscCall(DMDACreate2d(PETSC_COMM_WORLD, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_STAR, n, n,
                           PETSC_DECIDE, PETSC_DECIDE, 1, 1, NULL, NULL, &da));
    PetscCall(DMSetUp(da));
    PetscCall(assemble(da, &A));
    PetscCall(DMCreateGlobalVector(da, &b));
    PetscCall(VecDuplicate(b, &x));
    PetscCall(VecDuplicate(b, &r));
    PetscCall(VecGetOwnershipRange(b, &lo, &hi));
    {
        PetscScalar *bv;
        PetscCall(VecGetArray(b, &bv));
        for (PetscInt i = lo; i < hi; i++) bv[i - lo] = peer_random_entry((long long)i);
        PetscCall(VecRestoreArray(b, &bv));
    }
    PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
    PetscCall(KSPSetDM(ksp, da));
    PetscCall(KSPSetDMActive(ksp, PETSC_FALSE));
    PetscCall(KSPSetOperators(ksp, A, A));
    PetscCall(KSPSetType(ksp, KSPCG));
    PetscCall(KSPSetTolerances(ksp, tol, 0, PETSC_DEFAULT, maxit));
    PetscCall(KSPSetFromOptions(ksp));
    PetscCall(PetscMalloc2(repeat, &setup_s, repeat, &solve_s));
    for (PetscInt k = 0; k < repeat; k++) {
        double t0, t1, t2;
        PetscCallMPI(MPI_Barrier(PETSC_COMM_WORLD));
        t0 = MPI_Wtime();
        if (k == 0) PetscCall(KSPSetUp(ksp));
        t1 = MPI_Wtime();
        PetscCall(VecSet(x, 0));
        PetscCall(KSPSolve(ksp, b, x));
        t2 = MPI_Wtime();
        setup_s[k] = k ? setup_s[0] : t1 - t0, solve_s[k] = t2 - t1; /* one setup */
        PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &setup_s[k], 1, MPI_DOUBLE, MPI_MAX, PETSC_COMM_WORLD));
        PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &solve_s[k], 1, MPI_DOUBLE, MPI_MAX, PETSC_COMM_WORLD));
    }
    PetscCall(KSPGetIterationNumber(ksp, &its));
    PetscCall(KSPGetConvergedReason(ksp, &reason));
    PetscCall(KSPGetResidualNorm(ksp, &rnorm));
    PetscCall(MatMult(A, x, r));
    PetscCall(VecAYPX(r, -1.0, b));
    PetscCall(VecNorm(r, NORM_2, &rn));
    PetscCall(VecNorm(b, NORM_2, &bn));
    peer_result res = {.repeat = (int)repeat, .iterations = (int)its, .converged_key = "Converged reason",
                       .converged = KSPConvergedReasons[reason], .final_rel = rnorm / bn, .true_rel = rn / bn,
                       .setup_s = setup_s, .solve_s = solve_s, .per_iteration = 1};
    PetscMPIInt rank;
    PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
    if (rank == 0) peer_print_result(&res);
    PetscCall(PetscFree2(setup_s, solve_s));
    PetscCall(VecDestroy(&b));
    PetscCall(VecDestroy(&x));
    PetscCall(VecDestroy(&r));
    PetscCall(MatDestroy(&A));
    PetscCall(KSPDestroy(&ksp));
    PetscCall(DMDestroy(&da));
    PetscCall(PetscFinalize());
    return 0;
}

/* A PETSc program that never names ovkrylov: a 3-D Poisson solved with
 * whatever -ksp_type and -pc_type the command line gives (KSPSetFromOptions),
 * checked by the true residual.  ctest runs it with
 * -dll_append .../libovkrylov_petsc.so -ksp_type ovkrylov ... -expect_type
 * ovkrylov.  Exit 1 when the solve did not converge or the KSP's type is not
 * the one -expect_type names. */
#include <petscksp.h>

enum { N = 12 };

int main(int argc, char **argv)
{
    Mat A;
    Vec b, x, r;
    KSP ksp;
    KSPType type;
    PetscInt lo, hi, its;
    PetscReal rn, bn;
    KSPConvergedReason reason;
    char expect[64] = "";
    PetscBool same = PETSC_TRUE;

    PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
    PetscCall(MatCreateAIJ(PETSC_COMM_WORLD, PETSC_DECIDE, PETSC_DECIDE, N * N * N, N * N * N, 7, NULL, 7, NULL, &A));
    PetscCall(MatGetOwnershipRange(A, &lo, &hi));
    for (PetscInt row = lo; row < hi; row++) {
        PetscInt g[3] = {row % N, (row / N) % N, row / (N * N)}, stride[3] = {1, N, N * N}, cols[7], nc = 0;
        PetscScalar vals[7];
        for (int dim = 0; dim < 3; dim++)
            for (int side = -1; side <= 1; side += 2)
                if (g[dim] + side >= 0 && g[dim] + side < N) cols[nc] = row + side * stride[dim], vals[nc++] = -1;
        cols[nc] = row, vals[nc++] = 6;
        PetscCall(MatSetValues(A, 1, &row, nc, cols, vals, INSERT_VALUES));
    }
    PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatCreateVecs(A, &x, &b));
    PetscCall(VecDuplicate(b, &r));
    PetscCall(VecSet(b, 1.0));
    PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
    PetscCall(KSPSetOperators(ksp, A, A));
    PetscCall(KSPSetTolerances(ksp, 1e-8, PETSC_DEFAULT, PETSC_DEFAULT, PETSC_DEFAULT));
    PetscCall(KSPSetFromOptions(ksp));
    PetscCall(KSPSolve(ksp, b, x));
    PetscCall(KSPGetType(ksp, &type));
    PetscCall(PetscOptionsGetString(NULL, NULL, "-expect_type", expect, sizeof expect, NULL));
    if (expect[0]) PetscCall(PetscStrcmp(expect, type, &same));
    PetscCall(KSPGetIterationNumber(ksp, &its));
    PetscCall(KSPGetConvergedReason(ksp, &reason));
    PetscCall(MatMult(A, x, r));
    PetscCall(VecAYPX(r, -1.0, b));
    PetscCall(VecNorm(r, NORM_2, &rn));
    PetscCall(VecNorm(b, NORM_2, &bn));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "KSP type %s: %" PetscInt_FMT " iterations, %s, true residual %.2e: %s\n", type, its,
                          KSPConvergedReasons[reason], (double)(rn / bn), same && reason > 0 && rn < 1e-6 * bn ? "passed" : "FAILED"));
    PetscCall(KSPDestroy(&ksp));
    PetscCall(VecDestroy(&b));
    PetscCall(VecDestroy(&x));
    PetscCall(VecDestroy(&r));
    PetscCall(MatDestroy(&A));
    PetscCall(PetscFinalize());
    return same && reason > 0 && rn < 1e-6 * bn ? 0 : 1;
}

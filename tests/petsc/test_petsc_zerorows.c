/* Dirichlet rows set by MatZeroRows (columns kept) with nonzero values,
 * docs/guide.md "Coming from PETSc", at any number of ranks: a 2-D
 * 5-point Laplacian of G x G points, its boundary rows a_ii = 1 with
 * b_i = 1 (the boundary value), b = 1 inside, x0 = 0, rtol 1e-8:
 *  - with PETSc's default preconditioner (ILU(0); bjacobi + ILU(0) on
 *    more ranks), factored by PETSc from A as it is (not symmetric), KSP
 *    ovkrylov's alg1 and minres stall (no convergence in MAXIT), as
 *    PETSc's own KSPMINRES does; none claims a convergence its true
 *    residual does not have;
 *  - -pc_type none: alg1 and minres converge (ovkrylov eliminates the
 *    Dirichlet rows symmetrically; PETSc's KSPCG and KSPMINRES do not
 *    converge there on A as it is);
 *  - MatZeroRowsColumns (the system made symmetric) with the default
 *    preconditioner: alg1, minres and KSPMINRES converge.
 * Exit 1 on a failure. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <petscksp.h>

#include "ovkrylov_petsc.h"
#include "petsc_expect.h"

enum { G = 24, MAXIT = 300 };
#define RTOL 1e-8

/* the Laplacian with its boundary rows zeroed (columns too with zrc), the
 * boundary values 1 in b; x zero */
static PetscErrorCode make_system(int zrc, Mat *A, Vec *b, Vec *x)
{
    PetscInt rs, re, nb = 0, *bd;
    PetscFunctionBeginUser;
    PetscCall(MatCreateAIJ(PETSC_COMM_WORLD, PETSC_DECIDE, PETSC_DECIDE, G * G, G * G, 5, NULL, 2, NULL, A));
    PetscCall(MatGetOwnershipRange(*A, &rs, &re));
    PetscCall(PetscMalloc1(re - rs + 1, &bd));
    for (PetscInt r = rs; r < re; r++) {
        PetscInt i = r / G, j = r % G;
        PetscCall(MatSetValue(*A, r, r, 4.0, INSERT_VALUES));
        if (i > 0) PetscCall(MatSetValue(*A, r, r - G, -1.0, INSERT_VALUES));
        if (i < G - 1) PetscCall(MatSetValue(*A, r, r + G, -1.0, INSERT_VALUES));
        if (j > 0) PetscCall(MatSetValue(*A, r, r - 1, -1.0, INSERT_VALUES));
        if (j < G - 1) PetscCall(MatSetValue(*A, r, r + 1, -1.0, INSERT_VALUES));
        if (i == 0 || j == 0 || i == G - 1 || j == G - 1) bd[nb++] = r;
    }
    PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatCreateVecs(*A, x, b));
    PetscCall(VecSet(*x, 1.0)); /* the boundary values */
    PetscCall(VecSet(*b, 1.0));
    if (zrc) PetscCall(MatZeroRowsColumns(*A, nb, bd, 1.0, *x, *b));
    else PetscCall(MatZeroRows(*A, nb, bd, 1.0, *x, *b));
    PetscCall(VecSet(*x, 0.0));
    PetscCall(PetscFree(bd));
    PetscFunctionReturn(0);
}

/* KSPSolve with ksp type (ovkrylov with solver), the default PC unless
 * none; *converged: the reason says so; *rel: ||b - A x|| / ||b|| */
static PetscErrorCode run(int zrc, const char *type, const char *solver, int none, PetscBool *converged,
                          PetscReal *rel, PetscInt *its)
{
    Mat A;
    Vec b, x, r;
    KSP ksp;
    KSPConvergedReason reason;
    PetscReal rn, bn;
    PetscFunctionBeginUser;
    PetscCall(make_system(zrc, &A, &b, &x));
    PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
    PetscCall(KSPSetOperators(ksp, A, A));
    PetscCall(KSPSetType(ksp, type));
    PetscCall(KSPSetTolerances(ksp, RTOL, PETSC_DEFAULT, PETSC_DEFAULT, MAXIT));
    if (none) {
        PC pc;
        PetscCall(KSPGetPC(ksp, &pc));
        PetscCall(PCSetType(pc, PCNONE));
    }
    if (solver) PetscCall(PetscOptionsSetValue(NULL, "-ksp_ovkrylov_solver", solver));
    PetscCall(KSPSetFromOptions(ksp));
    if (solver) PetscCall(PetscOptionsClearValue(NULL, "-ksp_ovkrylov_solver"));
    PetscCall(KSPSolve(ksp, b, x));
    PetscCall(KSPGetConvergedReason(ksp, &reason));
    PetscCall(KSPGetIterationNumber(ksp, its));
    PetscCall(VecDuplicate(b, &r));
    PetscCall(MatMult(A, x, r));
    PetscCall(VecAYPX(r, -1.0, b));
    PetscCall(VecNorm(r, NORM_2, &rn));
    PetscCall(VecNorm(b, NORM_2, &bn));
    *rel = rn / bn;
    *converged = reason > 0 ? PETSC_TRUE : PETSC_FALSE;
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-18s %-8s %-6s pc %-7s: %-16s %3" PetscInt_FMT " its, true %.2e\n",
                          zrc ? "MatZeroRowsColumns" : "MatZeroRows", type, solver ? solver : "", none ? "none" : "default",
                          KSPConvergedReasons[reason], *its, (double)*rel));
    EXPECT(!*converged || *rel < 1e-6, "%s %s: claims convergence at a true residual of %g\n", type,
           solver ? solver : "", (double)*rel);
    PetscCall(VecDestroy(&r));
    PetscCall(VecDestroy(&b));
    PetscCall(VecDestroy(&x));
    PetscCall(KSPDestroy(&ksp));
    PetscCall(MatDestroy(&A));
    PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
    static const char *ovk[] = {"alg1", "minres"};
    PetscBool conv;
    PetscReal rel;
    PetscInt its;
    PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
    PetscCall(KSPOvkrylovRegister());
    for (int s = 0; s < 2; s++) {
        PetscCall(run(0, KSPOVKRYLOV, ovk[s], 0, &conv, &rel, &its));
        EXPECT(!conv, "MatZeroRows, %s + the default PC converged (%" PetscInt_FMT " its): docs/guide.md says it stalls\n",
               ovk[s], its);
        PetscCall(run(0, KSPOVKRYLOV, ovk[s], 1, &conv, &rel, &its));
        EXPECT(conv && rel < 1e-7, "MatZeroRows, %s + none: not converged (true %g)\n", ovk[s], (double)rel);
        PetscCall(run(1, KSPOVKRYLOV, ovk[s], 0, &conv, &rel, &its));
        EXPECT(conv && rel < 1e-7, "MatZeroRowsColumns, %s + the default PC: not converged (true %g)\n", ovk[s],
               (double)rel);
    }
    PetscCall(run(0, KSPMINRES, NULL, 0, &conv, &rel, &its));
    EXPECT(!conv, "MatZeroRows, KSPMINRES + the default PC converged: docs/guide.md says it stalls too\n");
    PetscCall(run(1, KSPMINRES, NULL, 0, &conv, &rel, &its));
    EXPECT(conv, "MatZeroRowsColumns, KSPMINRES + the default PC: not converged\n");
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, fails ? "%d FAILED\n" : "all passed\n", fails));
    PetscCall(PetscFinalize());
    return fails ? 1 : 0;
}

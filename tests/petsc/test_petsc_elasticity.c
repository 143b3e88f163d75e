/* KSP type "ovkrylov" with ovkrylov's amg on 3-D linear elasticity (Q1
 * hexahedra on the unit cube, clamped at x = 0, as PETSc's ksp tutorial
 * ex56), the operator carrying its block size (MatSetBlockSize 3) and near
 * null space (MatSetNearNullSpace of MatNullSpaceCreateRigidBody): with no
 * key but -ksp_ovkrylov_precond amg, alg1 + amg takes at most half the
 * iterations of amg:bs=1 (the operator's block size and modes not used)
 * and at most 1.3 times those of KSPCG + PCGAMG (which reads the same two;
 * 1.05-1.26 times at 1-4 ranks: 23, 23, 24, 23 against 21, 21, 19, 22),
 * and its answer meets the tolerance.
 * Self-checking at any number of ranks; exit 1 on a failure.  -amg SPEC
 * runs another spec in place of amg (to compare). */
#include <math.h>

#include <petscksp.h>

#include "ovkrylov_petsc.h"

enum { NE = 12 }; /* elements per direction: (NE + 1)^3 nodes, 3 unknowns each */
#define RTOL 1e-8

static int fails;

/* The Q1 element's stiffness (24 x 24, unknowns by node then x, y, z) of
 * a cube of side h, E = 1, nu = 0.3, by 2x2x2 Gauss points. */
static void element_stiffness(double h, double K[24][24])
{
    const double nu = 0.25, lam = nu / ((1 + nu) * (1 - 2 * nu)), mu = 1 / (2 * (1 + nu)), g = 1 / sqrt(3.0);
    const double D[6][6] = {{lam + 2 * mu, lam, lam, 0, 0, 0}, {lam, lam + 2 * mu, lam, 0, 0, 0}, {lam, lam, lam + 2 * mu, 0, 0, 0},
                            {0, 0, 0, mu, 0, 0},           {0, 0, 0, 0, mu, 0},           {0, 0, 0, 0, 0, mu}};
    for (int i = 0; i < 24; i++)
        for (int j = 0; j < 24; j++) K[i][j] = 0;
    for (int q = 0; q < 8; q++) {
        double xi[3] = {(q & 1 ? 1 : -1) * g, (q & 2 ? 1 : -1) * g, (q & 4 ? 1 : -1) * g}, B[6][24] = {{0}}, DB[6][24];
        for (int a = 0; a < 8; a++) {
            double s[3] = {a & 1 ? 1 : -1, a & 2 ? 1 : -1, a & 4 ? 1 : -1}, dN[3];
            for (int d = 0; d < 3; d++) /* dN_a/dx_d = dN/dxi_d 2/h */
                dN[d] = s[d] * (1 + s[(d + 1) % 3] * xi[(d + 1) % 3]) * (1 + s[(d + 2) % 3] * xi[(d + 2) % 3]) / 8 * 2 / h;
            B[0][3 * a] = dN[0], B[1][3 * a + 1] = dN[1], B[2][3 * a + 2] = dN[2];
            B[3][3 * a] = dN[1], B[3][3 * a + 1] = dN[0];
            B[4][3 * a + 1] = dN[2], B[4][3 * a + 2] = dN[1];
            B[5][3 * a] = dN[2], B[5][3 * a + 2] = dN[0];
        }
        for (int i = 0; i < 6; i++)
            for (int j = 0; j < 24; j++) {
                DB[i][j] = 0;
                for (int k = 0; k < 6; k++) DB[i][j] += D[i][k] * B[k][j];
            }
        for (int i = 0; i < 24; i++) /* K += B^T D B |J|, |J| = (h/2)^3 */
            for (int j = 0; j < 24; j++)
                for (int k = 0; k < 6; k++) K[i][j] += B[k][i] * DB[k][j] * h * h * h / 8;
    }
    for (int i = 0; i < 24; i++) /* exactly symmetric (the sums' rounding differs) */
        for (int j = 0; j < i; j++) K[i][j] = K[j][i] = (K[i][j] + K[j][i]) / 2;
}

/* The operator with block size 3 and the rigid-body modes as its near
 * null space, and the load b (gravity along z); the clamped face's rows
 * and columns eliminated (identity rows, b 0 there). */
static PetscErrorCode build(Mat *A, Vec *b)
{
    const PetscInt n1 = NE + 1, nn = n1 * n1 * n1;
    PetscInt nl = PETSC_DECIDE, nodes = nn, lo, hi, ne = NE * NE * NE, nz = 0, *zr;
    double K[24][24], h = 1.0 / NE;
    PetscScalar *pc, *pb;
    Vec coords;
    MatNullSpace nsp;
    PetscFunctionBeginUser;
    element_stiffness(h, K);
    PetscCall(PetscSplitOwnership(PETSC_COMM_WORLD, &nl, &nodes));
    PetscCall(MatCreate(PETSC_COMM_WORLD, A));
    PetscCall(MatSetSizes(*A, 3 * nl, 3 * nl, 3 * nn, 3 * nn));
    PetscCall(MatSetBlockSize(*A, 3));
    PetscCall(MatSetType(*A, MATAIJ));
    PetscCall(MatSeqAIJSetPreallocation(*A, 81, NULL));
    PetscCall(MatMPIAIJSetPreallocation(*A, 81, NULL, 81, NULL));
    /* each rank adds every element to its own rows (the others' ignored), in
       the elements' order: a_ij and a_ji the same sums, bitwise symmetric */
    PetscCall(MatSetOption(*A, MAT_IGNORE_OFF_PROC_ENTRIES, PETSC_TRUE));
    for (PetscInt e = 0; e < ne; e++) {
        PetscInt ex = e % NE, ey = (e / NE) % NE, ez = e / (NE * NE), idx[24];
        for (int a = 0; a < 8; a++) {
            PetscInt node = (ex + (a & 1)) + n1 * ((ey + (a & 2 ? 1 : 0)) + n1 * (ez + (a & 4 ? 1 : 0)));
            for (int c = 0; c < 3; c++) idx[3 * a + c] = 3 * node + c;
        }
        PetscCall(MatSetValues(*A, 24, idx, 24, idx, &K[0][0], ADD_VALUES));
    }
    PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
    /* the nodes' coordinates (rank's rows) -> the rigid-body modes; the load */
    PetscCall(MatCreateVecs(*A, NULL, b));
    PetscCall(VecDuplicate(*b, &coords));
    PetscCall(VecSetBlockSize(coords, 3));
    PetscCall(VecGetOwnershipRange(coords, &lo, &hi));
    PetscCall(VecGetArray(coords, &pc));
    PetscCall(VecGetArray(*b, &pb));
    PetscCall(PetscMalloc1(hi - lo, &zr));
    for (PetscInt r = lo; r < hi; r++) {
        PetscInt node = r / 3, c = r % 3, g[3] = {node % n1, (node / n1) % n1, node / (n1 * n1)};
        pc[r - lo] = g[c] * h;
        pb[r - lo] = g[0] == 0 ? 0.0 : c == 2 ? -h * h * h : 0.0;
        if (g[0] == 0) zr[nz++] = r;
    }
    PetscCall(VecRestoreArray(*b, &pb));
    PetscCall(VecRestoreArray(coords, &pc));
    PetscCall(MatZeroRowsColumns(*A, nz, zr, 1.0, NULL, NULL));
    PetscCall(PetscFree(zr));
    PetscCall(MatNullSpaceCreateRigidBody(coords, &nsp));
    PetscCall(MatSetNearNullSpace(*A, nsp));
    PetscCall(MatNullSpaceDestroy(&nsp));
    PetscCall(VecDestroy(&coords));
    PetscFunctionReturn(0);
}

/* Solve with the KSP type and options (in the database), its iterations;
 * expect convergence and the true residual. */
static PetscErrorCode solve(Mat A, Vec b, KSPType type, const char *label, PetscInt *its)
{
    KSP ksp;
    Vec x, r;
    PetscReal rn, bn;
    KSPConvergedReason reason;
    PetscFunctionBeginUser;
    PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
    PetscCall(KSPSetOperators(ksp, A, A));
    PetscCall(KSPSetType(ksp, type));
    PetscCall(KSPSetNormType(ksp, KSP_NORM_UNPRECONDITIONED)); /* KSPCG's test as ovkrylov's: ||b - A x|| */
    PetscCall(KSPSetTolerances(ksp, RTOL, PETSC_DEFAULT, PETSC_DEFAULT, 500));
    PetscCall(KSPSetFromOptions(ksp));
    PetscCall(VecDuplicate(b, &x));
    PetscCall(VecDuplicate(b, &r));
    PetscCall(KSPSolve(ksp, b, x));
    PetscCall(KSPGetIterationNumber(ksp, its));
    PetscCall(KSPGetConvergedReason(ksp, &reason));
    PetscCall(MatMult(A, x, r));
    PetscCall(VecAYPX(r, -1.0, b));
    PetscCall(VecNorm(r, NORM_2, &rn));
    PetscCall(VecNorm(b, NORM_2, &bn));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-22s %4" PetscInt_FMT " iterations, %s, true residual %.2e\n", label, *its,
                          KSPConvergedReasons[reason], (double)(rn / bn)));
    if (reason <= 0 || rn > 1e-6 * bn) {
        PetscCall(PetscPrintf(PETSC_COMM_WORLD, "FAIL: %s did not converge\n", label));
        fails++;
    }
    PetscCall(VecDestroy(&x));
    PetscCall(VecDestroy(&r));
    PetscCall(KSPDestroy(&ksp));
    PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
    Mat A;
    Vec b;
    PetscInt gamg, ovk, plain;
    char spec[256] = "amg";
    PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
    PetscCall(KSPOvkrylovRegister());
    PetscCall(build(&A, &b));
    PetscCall(PetscOptionsSetValue(NULL, "-pc_type", "gamg"));
    PetscCall(solve(A, b, KSPCG, "KSPCG + PCGAMG", &gamg));
    PetscCall(PetscOptionsClearValue(NULL, "-pc_type"));
    PetscCall(PetscOptionsSetValue(NULL, "-ksp_ovkrylov_solver", "alg1"));
    PetscCall(PetscOptionsGetString(NULL, NULL, "-amg", spec, sizeof spec, NULL)); /* -amg SPEC: to compare others */
    PetscCall(PetscOptionsSetValue(NULL, "-ksp_ovkrylov_precond", spec));
    PetscCall(solve(A, b, KSPOVKRYLOV, "ovkrylov alg1 + amg", &ovk));
    PetscCall(PetscOptionsSetValue(NULL, "-ksp_ovkrylov_precond", "amg:bs=1"));
    PetscCall(solve(A, b, KSPOVKRYLOV, "ovkrylov alg1 + amg:bs=1", &plain));
    PetscCall(PetscOptionsClearValue(NULL, "-ksp_ovkrylov_solver"));
    PetscCall(PetscOptionsClearValue(NULL, "-ksp_ovkrylov_precond"));
    if (ovk > 1.3 * gamg || 2 * ovk > plain) {
        PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                              "FAIL: amg %" PetscInt_FMT " iterations: more than 1.3 x GAMG's %" PetscInt_FMT
                              " or half of amg:bs=1's %" PetscInt_FMT "\n",
                              ovk, gamg, plain));
        fails++;
    }
    PetscCall(VecDestroy(&b));
    PetscCall(MatDestroy(&A));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, fails ? "%d FAILED\n" : "all passed\n", fails));
    PetscCall(PetscFinalize());
    return fails ? 1 : 0;
}

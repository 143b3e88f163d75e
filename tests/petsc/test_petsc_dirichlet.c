/* PETSc programs as ksp's tutorials write them, under KSP type "ovkrylov":
 *   - ex45's DMDA 3-D Laplacian whose boundary rows are a_ii alone (the
 *     DMDA's preallocated stencil left as explicit zeros) but whose columns
 *     are not eliminated (A not symmetric), b = h^3 everywhere: alg1, pipecg
 *     and plcg with PETSc's jacobi solve it (ovkrylov eliminates the
 *     Dirichlet rows symmetrically) in the iterations +-1 of KSPCG + jacobi
 *     on the system PETSc eliminates itself (MatZeroRowsColumnsStencil; the
 *     same unpreconditioned norm), fewer than KSPCG's on A as it is, with
 *     the true residual;
 *   - ex32's kind of pure Neumann DMDA problem with MatNullSpace (the
 *     constants): gmres + jacobi and fgmres + PCMG (DMDA interpolation)
 *     converge on a consistent b, x without a constant part; an
 *     inconsistent b converges on its projection, the inconsistency
 *     printed by -ksp_ovkrylov_print_level 1 (ovkrylov's report).
 * Self-checking at any number of ranks; exit 1 on a failure. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <petscdmda.h>
#include <petscksp.h>

#include "ovkrylov_petsc.h"
#include "petsc_expect.h"

enum { M = 13 }; /* grid points per direction: M^3 unknowns (M - 1 even: PCMG coarsens) */
#define RTOL 1e-8
#define RES_OK 1e-6

/* ex45's operator: boundary rows 2 (HxHydHz + HxHzdHy + HyHzdHx) alone;
 * neumann: ex32's kind instead, every row the 7-point stencil of the
 * neighbours it has, a_ii their count (row sums zero) */
static PetscErrorCode assemble(DM da, int neumann, Mat B)
{
    PetscInt mx, my, mz, xs, ys, zs, xm, ym, zm;
    PetscFunctionBeginUser;
    PetscCall(DMDAGetInfo(da, 0, &mx, &my, &mz, 0, 0, 0, 0, 0, 0, 0, 0, 0));
    PetscReal Hx = 1.0 / (mx - 1), Hy = 1.0 / (my - 1), Hz = 1.0 / (mz - 1);
    PetscReal wx = Hy * Hz / Hx, wy = Hx * Hz / Hy, wz = Hx * Hy / Hz;
    PetscCall(DMDAGetCorners(da, &xs, &ys, &zs, &xm, &ym, &zm));
    for (PetscInt k = zs; k < zs + zm; k++)
        for (PetscInt j = ys; j < ys + ym; j++)
            for (PetscInt i = xs; i < xs + xm; i++) {
                MatStencil row = {.k = k, .j = j, .i = i}, col[7];
                PetscScalar v[7];
                int boundary = i == 0 || j == 0 || k == 0 || i == mx - 1 || j == my - 1 || k == mz - 1, n = 0;
                if (boundary && !neumann) {
                    v[0] = 2.0 * (wx + wy + wz);
                    PetscCall(MatSetValuesStencil(B, 1, &row, 1, &row, v, INSERT_VALUES));
                    continue;
                }
                const PetscInt d[6][3] = {{-1, 0, 0}, {1, 0, 0}, {0, -1, 0}, {0, 1, 0}, {0, 0, -1}, {0, 0, 1}};
                const PetscReal w[6] = {wx, wx, wy, wy, wz, wz};
                PetscScalar diag = 0.0;
                for (int q = 0; q < 6; q++) {
                    PetscInt a = i + d[q][0], b = j + d[q][1], c = k + d[q][2];
                    if (a < 0 || b < 0 || c < 0 || a >= mx || b >= my || c >= mz) continue;
                    col[n] = (MatStencil){.k = c, .j = b, .i = a};
                    v[n++] = -w[q];
                    diag += w[q];
                }
                col[n] = row;
                v[n++] = neumann ? diag : 2.0 * (wx + wy + wz);
                PetscCall(MatSetValuesStencil(B, 1, &row, n, col, v, INSERT_VALUES));
            }
    PetscCall(MatAssemblyBegin(B, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(B, MAT_FINAL_ASSEMBLY));
    if (neumann) {
        MatNullSpace nsp;
        PetscCall(MatNullSpaceCreate(PETSC_COMM_WORLD, PETSC_TRUE, 0, NULL, &nsp));
        PetscCall(MatSetNullSpace(B, nsp));
        PetscCall(MatNullSpaceDestroy(&nsp));
    }
    PetscFunctionReturn(0);
}

static PetscErrorCode compute_matrix(KSP ksp, Mat J, Mat B, void *ctx)
{
    DM da;
    PetscFunctionBeginUser;
    (void)J;
    PetscCall(KSPGetDM(ksp, &da));
    PetscCall(assemble(da, *(int *)ctx, B));
    PetscFunctionReturn(0);
}

/* KSPCG + jacobi on ex45's system eliminated symmetrically by PETSc
 * (MatZeroRowsColumnsStencil: the boundary rows and columns, b -= A_ND x_D)
 * and on the system as it is (printed: CG on a nonsymmetric A) */
static PetscErrorCode kspcg(int eliminate, PetscInt *its)
{
    DM da;
    Mat A;
    Vec b, x;
    KSP ksp;
    PC pc;
    PetscInt mx, xs, ys, zs, xm, ym, zm, nb = 0;
    MatStencil *rows;
    PetscFunctionBeginUser;
    PetscCall(DMDACreate3d(PETSC_COMM_WORLD, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_STAR, M,
                           M, M, PETSC_DECIDE, PETSC_DECIDE, PETSC_DECIDE, 1, 1, NULL, NULL, NULL, &da));
    PetscCall(DMSetUp(da));
    PetscCall(DMCreateMatrix(da, &A));
    PetscCall(assemble(da, 0, A));
    PetscCall(DMCreateGlobalVector(da, &b));
    PetscCall(VecDuplicate(b, &x));
    PetscCall(DMDAGetInfo(da, 0, &mx, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0));
    PetscReal h = 1.0 / (mx - 1), w = h * h / h, diag = 2.0 * 3.0 * w;
    PetscCall(VecSet(b, h * h * h));
    PetscCall(VecSet(x, h * h * h / diag)); /* x_D = b_D / a_DD (only its boundary rows are read) */
    PetscCall(DMDAGetCorners(da, &xs, &ys, &zs, &xm, &ym, &zm));
    PetscCall(PetscMalloc1(xm * ym * zm, &rows));
    for (PetscInt k = zs; k < zs + zm; k++)
        for (PetscInt j = ys; j < ys + ym; j++)
            for (PetscInt i = xs; i < xs + xm; i++)
                if (i == 0 || j == 0 || k == 0 || i == mx - 1 || j == mx - 1 || k == mx - 1)
                    rows[nb++] = (MatStencil){.k = k, .j = j, .i = i};
    if (eliminate) PetscCall(MatZeroRowsColumnsStencil(A, nb, rows, diag, x, b));
    PetscCall(PetscFree(rows));
    PetscCall(VecSet(x, 0.0));
    PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
    PetscCall(KSPSetOperators(ksp, A, A));
    PetscCall(KSPSetType(ksp, KSPCG));
    PetscCall(KSPSetNormType(ksp, KSP_NORM_UNPRECONDITIONED));
    PetscCall(KSPSetTolerances(ksp, RTOL, PETSC_DEFAULT, PETSC_DEFAULT, 2000));
    PetscCall(KSPGetPC(ksp, &pc));
    PetscCall(PCSetType(pc, PCJACOBI));
    PetscCall(KSPSolve(ksp, b, x));
    PetscCall(KSPGetIterationNumber(ksp, its));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "ex45 KSPCG  + jacobi: %4" PetscInt_FMT " iterations on the system %s\n", *its,
                          eliminate ? "eliminated by MatZeroRowsColumns" : "as it is (nonsymmetric)"));
    PetscCall(KSPDestroy(&ksp));
    PetscCall(VecDestroy(&b));
    PetscCall(VecDestroy(&x));
    PetscCall(MatDestroy(&A));
    PetscCall(DMDestroy(&da));
    PetscFunctionReturn(0);
}

/* ex45's b = h^3; for the Neumann problem a mean-free one (consistent) or
 * with a mean (inconsistent): the ranks' values from the global index */
static int rhs_kind; /* 0: ex45's, 1: consistent, 2: inconsistent */

static PetscErrorCode compute_rhs(KSP ksp, Vec b, void *ctx)
{
    DM da;
    PetscInt mx, lo, hi;
    PetscScalar *v, sum;
    PetscFunctionBeginUser;
    (void)ctx;
    PetscCall(KSPGetDM(ksp, &da));
    PetscCall(DMDAGetInfo(da, 0, &mx, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0));
    if (rhs_kind == 0) {
        PetscReal h = 1.0 / (mx - 1);
        PetscCall(VecSet(b, h * h * h));
        PetscFunctionReturn(0);
    }
    PetscCall(VecGetOwnershipRange(b, &lo, &hi));
    PetscCall(VecGetArray(b, &v));
    for (PetscInt g = lo; g < hi; g++) v[g - lo] = sin(0.37 * (double)g) + (rhs_kind == 2 ? 0.5 : 0.0);
    PetscCall(VecRestoreArray(b, &v));
    if (rhs_kind == 1) {
        PetscInt n;
        PetscCall(VecGetSize(b, &n));
        PetscCall(VecSum(b, &sum));
        PetscCall(VecShift(b, -sum / (PetscReal)n));
    }
    PetscFunctionReturn(0);
}

/* a KSP on a fresh M^3 DMDA (PCMG coarsens it) */
static PetscErrorCode make_ksp(int *neumann, KSP *ksp, DM *da)
{
    PetscFunctionBeginUser;
    PetscCall(DMDACreate3d(PETSC_COMM_WORLD, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_STAR, M,
                           M, M, PETSC_DECIDE, PETSC_DECIDE, PETSC_DECIDE, 1, 1, NULL, NULL, NULL, da));
    PetscCall(DMSetFromOptions(*da));
    PetscCall(DMSetUp(*da));
    PetscCall(KSPCreate(PETSC_COMM_WORLD, ksp));
    PetscCall(KSPSetDM(*ksp, *da));
    PetscCall(KSPSetComputeRHS(*ksp, compute_rhs, NULL));
    PetscCall(KSPSetComputeOperators(*ksp, compute_matrix, neumann));
    PetscCall(KSPSetTolerances(*ksp, RTOL, PETSC_DEFAULT, PETSC_DEFAULT, 2000));
    PetscFunctionReturn(0);
}

/* ||b - A x|| / ||b|| of the KSP's own system */
static PetscErrorCode true_residual(KSP ksp, PetscReal *rel)
{
    Mat A;
    Vec b, x, r;
    PetscReal rn, bn;
    PetscFunctionBeginUser;
    PetscCall(KSPGetOperators(ksp, &A, NULL));
    PetscCall(KSPGetRhs(ksp, &b));
    PetscCall(KSPGetSolution(ksp, &x));
    PetscCall(VecDuplicate(b, &r));
    PetscCall(MatMult(A, x, r));
    PetscCall(VecAYPX(r, -1.0, b));
    PetscCall(VecNorm(r, NORM_2, &rn));
    PetscCall(VecNorm(b, NORM_2, &bn));
    *rel = rn / bn;
    PetscCall(VecDestroy(&r));
    PetscFunctionReturn(0);
}

/* ex45: KSPCG + jacobi, then ovkrylov's solver + PETSc's jacobi */
static PetscErrorCode ex45(const char *solver, PetscInt *its)
{
    static int dirichlet = 0;
    KSP ksp;
    DM da;
    PC pc;
    PetscReal rel;
    KSPConvergedReason reason;
    PetscFunctionBeginUser;
    rhs_kind = 0;
    PetscCall(make_ksp(&dirichlet, &ksp, &da));
    PetscCall(KSPGetPC(ksp, &pc));
    PetscCall(PCSetType(pc, PCJACOBI));
    PetscCall(KSPSetType(ksp, KSPOVKRYLOV));
    PetscCall(PetscOptionsSetValue(NULL, "-ksp_ovkrylov_solver", solver));
    PetscCall(KSPSetFromOptions(ksp));
    PetscCall(PetscOptionsClearValue(NULL, "-ksp_ovkrylov_solver"));
    PetscCall(KSPSolve(ksp, NULL, NULL));
    PetscCall(KSPGetIterationNumber(ksp, its));
    PetscCall(KSPGetConvergedReason(ksp, &reason));
    PetscCall(true_residual(ksp, &rel));
    EXPECT(reason > 0 && rel < RES_OK, "ex45 %s + jacobi: reason %s, %" PetscInt_FMT " iterations, true residual %g\n",
           solver, KSPConvergedReasons[reason], *its, (double)rel);
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "ex45 %-6s + jacobi: %4" PetscInt_FMT " iterations, true residual %.2e\n", solver,
                          *its, (double)rel));
    PetscCall(KSPDestroy(&ksp));
    PetscCall(DMDestroy(&da));
    PetscFunctionReturn(0);
}

/* KSPSolve, rank 0's stdout caught meanwhile: *reported is the
 * inconsistency ||Z^T b||/||b|| ovkrylov printed (print_level 1), the same
 * on every rank (-1: none printed) */
static PetscErrorCode solve_reported(KSP ksp, double *reported)
{
    PetscMPIInt rank;
    FILE *tmp = NULL;
    int saved = -1;
    char text[16384] = "";
    PetscFunctionBeginUser;
    *reported = -1.0;
    PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
    if (rank == 0) {
        fflush(stdout);
        tmp = tmpfile();
        saved = dup(1);
        dup2(fileno(tmp), 1);
    }
    PetscErrorCode ierr = KSPSolve(ksp, NULL, NULL);
    if (rank == 0) {
        fflush(stdout);
        dup2(saved, 1);
        close(saved);
        rewind(tmp);
        size_t len = fread(text, 1, sizeof text - 1, tmp);
        text[len] = '\0';
        fclose(tmp);
        const char *at = strstr(text, "||Z^T b||/||b|| = ");
        if (at) *reported = atof(at + strlen("||Z^T b||/||b|| = "));
        PetscCall(PetscPrintf(PETSC_COMM_SELF, "%s", text));
    }
    PetscCallMPI(MPI_Bcast(reported, 1, MPI_DOUBLE, 0, PETSC_COMM_WORLD));
    PetscCall(ierr);
    PetscFunctionReturn(0);
}

/* b's ||Z^T b|| / ||b||, Z = 1 / sqrt(n) */
static PetscErrorCode inconsistency(KSP ksp, double *out)
{
    Vec b;
    PetscInt n;
    PetscScalar sum;
    PetscReal bn;
    PetscFunctionBeginUser;
    PetscCall(KSPGetRhs(ksp, &b));
    PetscCall(VecGetSize(b, &n));
    PetscCall(VecSum(b, &sum));
    PetscCall(VecNorm(b, NORM_2, &bn));
    *out = PetscAbsScalar(sum) / sqrt((double)n) / bn;
    PetscFunctionReturn(0);
}

/* the Neumann problem with MatNullSpace under solver + pc (mg: PCMG on the
 * DMDA's levels, its coarse level smoothed: LU of a singular matrix fails) */
static PetscErrorCode neumann(const char *solver, const char *pc_type, int consistent)
{
    static int neumann_kind = 1;
    KSP ksp;
    DM da;
    PC pc;
    Vec x;
    PetscReal rel;
    PetscScalar sum;
    PetscInt its;
    KSPConvergedReason reason;
    double reported, want = 0.0;
    int mg = !strcmp(pc_type, PCMG);
    PetscFunctionBeginUser;
    rhs_kind = consistent ? 1 : 2;
    PetscCall(make_ksp(&neumann_kind, &ksp, &da));
    PetscCall(KSPSetType(ksp, KSPOVKRYLOV));
    PetscCall(KSPGetPC(ksp, &pc));
    PetscCall(PCSetType(pc, pc_type));
    if (mg) {
        PetscCall(PCMGSetLevels(pc, 2, NULL));
        PetscCall(PetscOptionsSetValue(NULL, "-mg_coarse_ksp_type", "richardson"));
        PetscCall(PetscOptionsSetValue(NULL, "-mg_coarse_pc_type", "sor"));
        PetscCall(PetscOptionsSetValue(NULL, "-mg_coarse_ksp_max_it", "4"));
    }
    PetscCall(PetscOptionsSetValue(NULL, "-ksp_ovkrylov_solver", solver));
    PetscCall(PetscOptionsSetValue(NULL, "-ksp_ovkrylov_print_level", "1"));
    PetscCall(KSPSetFromOptions(ksp));
    PetscCall(PetscOptionsClearValue(NULL, "-ksp_ovkrylov_solver"));
    PetscCall(PetscOptionsClearValue(NULL, "-ksp_ovkrylov_print_level"));
    PetscCall(PetscOptionsClearValue(NULL, "-mg_coarse_ksp_type"));
    PetscCall(PetscOptionsClearValue(NULL, "-mg_coarse_pc_type"));
    PetscCall(PetscOptionsClearValue(NULL, "-mg_coarse_ksp_max_it"));
    PetscCall(solve_reported(ksp, &reported));
    PetscCall(KSPGetIterationNumber(ksp, &its));
    PetscCall(KSPGetConvergedReason(ksp, &reason));
    PetscCall(KSPGetSolution(ksp, &x));
    PetscCall(inconsistency(ksp, &want));
    EXPECT(fabs(reported - want) <= 1e-3 * want + 1e-12 && (consistent ? want < 1e-12 : want > 0.1),
           "neumann %s + %s: ovkrylov reported the inconsistency %g, b's is %g\n", solver, pc_type, reported, want);
    PetscCall(VecSum(x, &sum));
    if (consistent) {
        PetscCall(true_residual(ksp, &rel));
    } else { /* the residual of b's projection: b - mean(b) - A x */
        Mat A;
        Vec b, r;
        PetscInt n;
        PetscScalar bs;
        PetscReal rn, bn;
        PetscCall(KSPGetOperators(ksp, &A, NULL));
        PetscCall(KSPGetRhs(ksp, &b));
        PetscCall(VecGetSize(b, &n));
        PetscCall(VecDuplicate(b, &r));
        PetscCall(VecSum(b, &bs));
        PetscCall(MatMult(A, x, r));
        PetscCall(VecAYPX(r, -1.0, b));
        PetscCall(VecShift(r, -bs / (PetscReal)n));
        PetscCall(VecNorm(r, NORM_2, &rn));
        PetscCall(VecCopy(b, r));
        PetscCall(VecShift(r, -bs / (PetscReal)n));
        PetscCall(VecNorm(r, NORM_2, &bn));
        rel = rn / bn;
        PetscCall(VecDestroy(&r));
    }
    EXPECT(reason > 0 && rel < RES_OK && PetscAbsScalar(sum) < 1e-8,
           "neumann %s + %s, %s b: reason %s, %" PetscInt_FMT " iterations, residual %g, sum(x) %g\n", solver, pc_type,
           consistent ? "consistent" : "inconsistent", KSPConvergedReasons[reason], its, (double)rel, (double)sum);
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "neumann %-6s + %-6s %-12s b: %4" PetscInt_FMT " iterations, residual %.2e\n",
                          solver, pc_type, consistent ? "consistent" : "inconsistent", its, (double)rel));
    PetscCall(KSPDestroy(&ksp));
    PetscCall(DMDestroy(&da));
    PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
    static const char *cg[] = {"alg1", "pipecg", "plcg"};
    PetscInt its_cg, its_plain, its;

    PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
    PetscCall(KSPOvkrylovRegister());
    PetscCall(kspcg(1, &its_cg));
    PetscCall(kspcg(0, &its_plain));
    for (int s = 0; s < 3; s++) {
        PetscCall(ex45(cg[s], &its));
        EXPECT(PetscAbsInt(its - its_cg) <= 1 && its < its_plain,
               "ex45 %s + jacobi: %" PetscInt_FMT " iterations, KSPCG + jacobi %" PetscInt_FMT " on the eliminated system, %" PetscInt_FMT
               " on A as it is\n", cg[s], its, its_cg, its_plain);
    }
    for (int consistent = 1; consistent >= 0; consistent--) {
        PetscCall(neumann("gmres", PCJACOBI, consistent));
        PetscCall(neumann("fgmres", PCMG, consistent));
    }
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, fails ? "%d FAILED\n" : "all passed\n", fails));
    PetscCall(PetscFinalize());
    return fails ? 1 : 0;
}

/* KSP type "ovkrylov" as PETSc programs use a KSP (issue 73's rows 1 and
 * 5-7): sizes of b, x and KSPMatSolve's B and X against the operator (also
 * after KSPSetOperators to another size, also when a local size differs on
 * some ranks only) as PETSc's "Nonconforming object sizes" on every rank;
 * values that turn nonsymmetric on the same pattern between two solves
 * (gmres) solved; a new MatNullSpace, operator or PC type seen although
 * the old object's address or state could repeat; a failed PC as
 * KSP_DIVERGED_PC_FAILED; the side the solver really preconditions on;
 * KSP_NORM_NONE (fixed iterations, and as PCGAMG's smoother); the natural
 * norm under alg1 in KSPCG's iterations (+-1), refused by pipecg naming
 * alg1; the preconditioned norm refused naming the supported ones; -help showing
 * ovkrylov's defaults; the true residual monitor right under CG and
 * refused where x is formed only at the end.  Self-checking at any number
 * of ranks; exit 1 on a failure. */
#include <math.h>
#include <stdarg.h>
#include <string.h>

#include <petscksp.h>

#include "ovkrylov_petsc.h"
#include "petsc_expect.h"

enum { N = 8 }; /* grid points per direction: N^3 unknowns */
#define RTOL 1e-8
#define RES_OK 1e-6

static PetscMPIInt rank, size;

/* The 7-point operator on the n^3 grid, diagonal 6 + shift + (varcoef: row
 * mod 7, so that Jacobi differs from no PC); neumann: the Laplacian whose
 * null space is the constants; zero00: a_00 = 0 (a zero pivot). */
static PetscErrorCode build(PetscInt n, double shift, int varcoef, int neumann, int zero00, Mat *A)
{
    PetscInt lo, hi;
    PetscFunctionBeginUser;
    PetscCall(MatCreateAIJ(PETSC_COMM_WORLD, PETSC_DECIDE, PETSC_DECIDE, n * n * n, n * n * n, 7, NULL, 7, NULL, A));
    PetscCall(MatGetOwnershipRange(*A, &lo, &hi));
    for (PetscInt row = lo; row < hi; row++) {
        PetscInt g[3] = {row % n, (row / n) % n, row / (n * n)}, stride[3] = {1, n, n * n}, cols[7], nc = 0;
        PetscScalar vals[7], diag = neumann ? 0 : 6 + shift + (varcoef ? row % 7 : 0);
        for (int dim = 0; dim < 3; dim++)
            for (int side = -1; side <= 1; side += 2) {
                if (g[dim] + side < 0 || g[dim] + side >= n) continue;
                cols[nc] = row + side * stride[dim];
                vals[nc++] = -1;
                if (neumann) diag += 1;
            }
        cols[nc] = row, vals[nc++] = zero00 && row == 0 ? 0 : diag;
        PetscCall(MatSetValues(*A, 1, &row, nc, cols, vals, INSERT_VALUES));
    }
    PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
    PetscFunctionReturn(0);
}

/* b_i from the global row; zero mean (consistent for the Neumann Laplacian). */
static PetscErrorCode rhs(Mat A, int zero_mean, Vec *b)
{
    PetscInt lo, hi, n;
    PetscScalar *p, sum;
    PetscFunctionBeginUser;
    PetscCall(MatCreateVecs(A, NULL, b));
    PetscCall(VecGetOwnershipRange(*b, &lo, &hi));
    PetscCall(VecGetSize(*b, &n));
    PetscCall(VecGetArray(*b, &p));
    for (PetscInt i = lo; i < hi; i++) p[i - lo] = sin(0.37 * (double)i) + 0.5;
    PetscCall(VecRestoreArray(*b, &p));
    if (zero_mean) {
        PetscCall(VecSum(*b, &sum));
        PetscCall(VecShift(*b, -sum / n));
    }
    PetscFunctionReturn(0);
}

/* ||b - A x|| / ||b|| */
static PetscErrorCode true_residual(Mat A, Vec b, Vec x, PetscReal *rel)
{
    Vec r;
    PetscReal rn, bn;
    PetscFunctionBeginUser;
    PetscCall(VecDuplicate(b, &r));
    PetscCall(MatMult(A, x, r));
    PetscCall(VecAYPX(r, -1.0, b));
    PetscCall(VecNorm(r, NORM_2, &rn));
    PetscCall(VecNorm(b, NORM_2, &bn));
    *rel = rn / bn;
    PetscCall(VecDestroy(&r));
    PetscFunctionReturn(0);
}

/* A KSP on A of the type (ovkrylov: with the solver) and PC type. */
static PetscErrorCode make_ksp(Mat A, KSPType type, const char *solver, PCType pctype, KSP *ksp)
{
    PC pc;
    PetscFunctionBeginUser;
    PetscCall(KSPCreate(PETSC_COMM_WORLD, ksp));
    PetscCall(KSPSetOperators(*ksp, A, A));
    PetscCall(KSPSetType(*ksp, type));
    PetscCall(KSPSetTolerances(*ksp, RTOL, PETSC_DEFAULT, PETSC_DEFAULT, 2000));
    PetscCall(KSPGetPC(*ksp, &pc));
    PetscCall(PCSetType(pc, pctype));
    if (solver) {
        PetscCall(PetscOptionsSetValue(NULL, "-ksp_ovkrylov_solver", solver));
        PetscCall(KSPSetFromOptions(*ksp));
        PetscCall(PetscOptionsClearValue(NULL, "-ksp_ovkrylov_solver"));
    }
    PetscFunctionReturn(0);
}

/* The first error's message, kept by the error handler. */
static PetscErrorCode keep_message(MPI_Comm comm, int line, const char *fun, const char *file, PetscErrorCode n, PetscErrorType p,
                                   const char *mess, void *ctx)
{
    (void)comm, (void)line, (void)fun, (void)file;
    if (p == PETSC_ERROR_INITIAL && mess && !((char *)ctx)[0]) strncpy(ctx, mess, 1023);
    return n;
}

/* An error expected on every rank: code `code` everywhere, the message
 * holding `expect`. */
static PetscErrorCode expect_error(const char *what, PetscErrorCode ierr, PetscErrorCode code, const char *msg, const char *expect)
{
    int bad = ierr != code || !strstr(msg, expect), any;
    PetscFunctionBeginUser;
    PetscCallMPI(MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, PETSC_COMM_WORLD));
    EXPECT(!any, "%s: error %d on rank %d, message \"%s\" (expected %d naming \"%s\" on every rank)\n", what, (int)ierr, rank, msg,
           (int)code, expect);
    if (!any) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: error %d: %s\n", what, (int)ierr, msg));
    PetscFunctionReturn(0);
}

/* KSPSolve(ksp, b, x) expected to fail with code naming expect. */
static PetscErrorCode solve_fails(const char *what, KSP ksp, Vec b, Vec x, PetscErrorCode code, const char *expect)
{
    char msg[1024] = "";
    PetscErrorCode ierr;
    PetscFunctionBeginUser;
    PetscCall(PetscPushErrorHandler(keep_message, msg));
    ierr = KSPSolve(ksp, b, x);
    PetscCall(PetscPopErrorHandler());
    PetscCall(expect_error(what, ierr, code, msg, expect));
    PetscFunctionReturn(0);
}

/* A vector of A's rows, laid out with `extra` rows more on rank 0 and
 * fewer on rank 1 (shift), or `extra` rows more on the last rank alone. */
static PetscErrorCode odd_vec(Mat A, PetscInt extra, int shift, Vec *v)
{
    PetscInt m;
    PetscFunctionBeginUser;
    PetscCall(MatGetLocalSize(A, &m, NULL));
    if (shift) m += rank == 0 ? extra : rank == 1 ? -extra : 0;
    else if (rank == size - 1) m += extra;
    PetscCall(VecCreateMPI(PETSC_COMM_WORLD, m, PETSC_DETERMINE, v));
    PetscCall(VecSet(*v, 1.0));
    PetscFunctionReturn(0);
}

/* Row 1: every size checked, on every rank. */
static PetscErrorCode sizes(Mat A, Vec b)
{
    KSP ksp;
    Vec x, odd;
    Mat small;
    PetscFunctionBeginUser;
    PetscCall(VecDuplicate(b, &x));
    if (size > 1) { /* local sizes differ on ranks 0 and 1 only, the global ones agree */
        PetscCall(odd_vec(A, 1, 1, &odd));
        PetscCall(make_ksp(A, KSPOVKRYLOV, "alg1", PCJACOBI, &ksp));
        PetscCall(solve_fails("b of another layout", ksp, odd, x, PETSC_ERR_ARG_SIZ, "local rows"));
        PetscCall(KSPDestroy(&ksp));
        PetscCall(make_ksp(A, KSPOVKRYLOV, "gmres", PCJACOBI, &ksp));
        PetscCall(solve_fails("x of another layout", ksp, b, odd, PETSC_ERR_ARG_SIZ, "local rows"));
        PetscCall(KSPDestroy(&ksp));
        PetscCall(VecDestroy(&odd));
    }
    PetscCall(odd_vec(A, 1, 0, &odd)); /* one row more, on the last rank */
    PetscCall(make_ksp(A, KSPOVKRYLOV, "alg1", PCJACOBI, &ksp));
    PetscCall(solve_fails("b one row longer", ksp, odd, x, PETSC_ERR_ARG_SIZ, "rows"));
    PetscCall(KSPDestroy(&ksp));
    PetscCall(VecDestroy(&odd));
    /* b and x of the first operator after KSPSetOperators to a smaller one */
    PetscCall(build(N - 1, 0, 0, 0, 0, &small));
    PetscCall(make_ksp(A, KSPOVKRYLOV, "pipecg", PCJACOBI, &ksp));
    PetscCall(KSPSolve(ksp, b, x));
    PetscCall(KSPReset(ksp)); /* PETSc's PC refuses another size without it */
    PetscCall(KSPSetOperators(ksp, small, small));
    PetscCall(solve_fails("KSPSetOperators to another size", ksp, b, x, PETSC_ERR_ARG_SIZ, "the operator"));
    PetscCall(KSPDestroy(&ksp));
    PetscCall(MatDestroy(&small));
    PetscCall(VecDestroy(&x));
    /* KSPMatSolve: columns, and rows on some ranks */
    for (int c = 0; c < 2; c++) {
        char msg[1024] = "";
        PetscInt m;
        Mat B, X;
        PetscErrorCode ierr;
        if (c == 1 && size == 1) break;
        PetscCall(MatGetLocalSize(A, &m, NULL));
        PetscCall(MatCreateDense(PETSC_COMM_WORLD, m, PETSC_DECIDE, PETSC_DETERMINE, 3, NULL, &B));
        m += c == 0 ? 0 : rank == 0 ? 1 : rank == 1 ? -1 : 0;
        PetscCall(MatCreateDense(PETSC_COMM_WORLD, m, PETSC_DECIDE, PETSC_DETERMINE, c == 0 ? 2 : 3, NULL, &X));
        PetscCall(MatAssemblyBegin(B, MAT_FINAL_ASSEMBLY));
        PetscCall(MatAssemblyEnd(B, MAT_FINAL_ASSEMBLY));
        PetscCall(MatAssemblyBegin(X, MAT_FINAL_ASSEMBLY));
        PetscCall(MatAssemblyEnd(X, MAT_FINAL_ASSEMBLY));
        PetscCall(make_ksp(A, KSPOVKRYLOV, "pipecg", PCJACOBI, &ksp));
        PetscCall(PetscPushErrorHandler(keep_message, msg));
        ierr = KSPMatSolve(ksp, B, X);
        PetscCall(PetscPopErrorHandler());
        PetscCall(expect_error(c == 0 ? "KSPMatSolve, 3 columns into 2" : "KSPMatSolve, X of another layout", ierr, PETSC_ERR_ARG_SIZ, msg,
                               c == 0 ? "columns" : "local rows"));
        PetscCall(KSPDestroy(&ksp));
        PetscCall(MatDestroy(&B));
        PetscCall(MatDestroy(&X));
    }
    PetscFunctionReturn(0);
}

/* Row 5: values that turn nonsymmetric on the same pattern (gmres): by
 * 1e-15, then by 0.3; each solve's answer that of the matrix it had. */
static PetscErrorCode nonsymmetric_update(void)
{
    Mat A;
    Vec b, x;
    KSP ksp;
    PetscReal rel;
    KSPConvergedReason reason;
    const double change[2] = {1e-15, 0.3};
    PetscFunctionBeginUser;
    PetscCall(build(N, 0, 1, 0, 0, &A));
    PetscCall(rhs(A, 0, &b));
    PetscCall(VecDuplicate(b, &x));
    PetscCall(make_ksp(A, KSPOVKRYLOV, "gmres", PCJACOBI, &ksp));
    PetscCall(KSPSolve(ksp, b, x));
    for (int k = 0; k < 2; k++) {
        if (rank == 0) PetscCall(MatSetValue(A, 0, 1, -1.0 - change[k], INSERT_VALUES)); /* a_01 != a_10 */
        PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
        PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
        PetscCall(VecSet(x, 0.0));
        PetscCall(KSPSolve(ksp, b, x));
        PetscCall(KSPGetConvergedReason(ksp, &reason));
        PetscCall(true_residual(A, b, x, &rel));
        EXPECT(reason > 0 && rel < RES_OK, "a_01 changed by %g: %s, residual %g\n", change[k], KSPConvergedReasons[reason], (double)rel);
    }
    PetscCall(KSPDestroy(&ksp));
    PetscCall(VecDestroy(&b));
    PetscCall(VecDestroy(&x));
    PetscCall(MatDestroy(&A));
    PetscFunctionReturn(0);
}

/* Row 6 (null space): a new, wrong MatNullSpace after the right one was
 * freed (it may take the freed one's address): refused as ovkrylov's
 * check of A z = 0, not ignored. */
static PetscErrorCode new_nullspace(void)
{
    Mat A;
    Vec b, x, z;
    KSP ksp;
    MatNullSpace nsp;
    PetscReal rel;
    KSPConvergedReason reason;
    PetscFunctionBeginUser;
    PetscCall(build(N, 0, 0, 1, 0, &A));
    PetscCall(rhs(A, 1, &b));
    PetscCall(VecDuplicate(b, &x));
    PetscCall(MatNullSpaceCreate(PETSC_COMM_WORLD, PETSC_TRUE, 0, NULL, &nsp));
    PetscCall(MatSetNullSpace(A, nsp));
    PetscCall(MatNullSpaceDestroy(&nsp));
    PetscCall(make_ksp(A, KSPOVKRYLOV, "cg1", PCJACOBI, &ksp));
    PetscCall(KSPSolve(ksp, b, x));
    PetscCall(KSPGetConvergedReason(ksp, &reason));
    PetscCall(true_residual(A, b, x, &rel));
    EXPECT(reason > 0 && rel < RES_OK, "Neumann with its null space: %s, residual %g\n", KSPConvergedReasons[reason], (double)rel);
    PetscCall(MatSetNullSpace(A, NULL)); /* the first one freed (but for a reference held) */
    PetscCall(VecDuplicate(b, &z));      /* a wrong one: e_0 */
    if (rank == 0) PetscCall(VecSetValue(z, 0, 1.0, INSERT_VALUES));
    PetscCall(VecAssemblyBegin(z));
    PetscCall(VecAssemblyEnd(z));
    PetscCall(MatNullSpaceCreate(PETSC_COMM_WORLD, PETSC_FALSE, 1, &z, &nsp));
    PetscCall(MatSetNullSpace(A, nsp));
    PetscCall(MatNullSpaceDestroy(&nsp));
    PetscCall(solve_fails("a new, wrong MatNullSpace", ksp, b, x, PETSC_ERR_ARG_WRONG, "null space"));
    PetscCall(KSPDestroy(&ksp));
    PetscCall(VecDestroy(&z));
    PetscCall(VecDestroy(&b));
    PetscCall(VecDestroy(&x));
    PetscCall(MatDestroy(&A));
    PetscFunctionReturn(0);
}

/* Row 6 (operator): KSPSetOperators to A2, the first operator freed, a
 * third built the same way (same pattern, the same count of state changes,
 * maybe the freed one's address) with other values: solved as itself. */
static PetscErrorCode new_operator(Vec b)
{
    Mat A1, A2, A3;
    Vec x;
    KSP ksp;
    PetscReal rel;
    PetscFunctionBeginUser;
    PetscCall(build(N, 0, 1, 0, 0, &A1));
    PetscCall(build(N, 1, 1, 0, 0, &A2));
    PetscCall(VecDuplicate(b, &x));
    PetscCall(make_ksp(A1, KSPOVKRYLOV, "alg1", PCJACOBI, &ksp));
    PetscCall(KSPSolve(ksp, b, x));
    PetscCall(MatDestroy(&A1));
    PetscCall(KSPSetOperators(ksp, A2, A2));
    PetscCall(build(N, 5, 1, 0, 0, &A3));
    PetscCall(KSPSetOperators(ksp, A3, A3));
    PetscCall(KSPSolve(ksp, b, x));
    PetscCall(true_residual(A3, b, x, &rel));
    EXPECT(rel < RES_OK, "a new operator after the first was freed: residual %g with it\n", (double)rel);
    PetscCall(KSPDestroy(&ksp));
    PetscCall(VecDestroy(&x));
    PetscCall(MatDestroy(&A2));
    PetscCall(MatDestroy(&A3));
    PetscFunctionReturn(0);
}

/* Row 6 (PC): the KSP's PC changed between solves, none -> jacobi -> none:
 * each solve takes a fresh KSP's iterations with that PC. */
static PetscErrorCode changed_pc(Mat A, Vec b)
{
    static const PCType types[3] = {PCNONE, PCJACOBI, PCNONE};
    KSP ksp, fresh;
    PC pc;
    Vec x;
    PetscInt its, want, first = 0;
    PetscFunctionBeginUser;
    PetscCall(VecDuplicate(b, &x));
    PetscCall(make_ksp(A, KSPOVKRYLOV, "alg1", PCNONE, &ksp));
    PetscCall(KSPGetPC(ksp, &pc));
    for (int k = 0; k < 3; k++) {
        PetscCall(PCSetType(pc, types[k]));
        PetscCall(VecSet(x, 0.0));
        PetscCall(KSPSolve(ksp, b, x));
        PetscCall(KSPGetIterationNumber(ksp, &its));
        PetscCall(make_ksp(A, KSPOVKRYLOV, "alg1", types[k], &fresh));
        PetscCall(VecSet(x, 0.0));
        PetscCall(KSPSolve(fresh, b, x));
        PetscCall(KSPGetIterationNumber(fresh, &want));
        PetscCall(KSPDestroy(&fresh));
        EXPECT(its == want, "PC changed to %s: %" PetscInt_FMT " iterations, a fresh KSP %" PetscInt_FMT "\n", types[k], its, want);
        if (k == 0) first = want;
        if (k == 1) EXPECT(want != first, "jacobi and none took the same iterations (%" PetscInt_FMT "): the check cannot tell\n", want);
    }
    PetscCall(KSPDestroy(&ksp));
    PetscCall(VecDestroy(&x));
    PetscFunctionReturn(0);
}

/* Row 7: a failed PC (bjacobi's ILU(0) at a zero pivot on rank 0) is
 * KSP_DIVERGED_PC_FAILED, as KSPCG reports it. */
static PetscErrorCode pc_failure(void)
{
    static const char *solvers[] = {"alg1", "gmres"};
    Mat A;
    Vec b, x;
    KSP ksp;
    KSPConvergedReason reason, cg;
    PetscFunctionBeginUser;
    PetscCall(build(N, 0, 0, 0, 1, &A));
    PetscCall(rhs(A, 0, &b));
    PetscCall(VecDuplicate(b, &x));
    PetscCall(make_ksp(A, KSPCG, NULL, PCBJACOBI, &ksp));
    PetscCall(KSPSolve(ksp, b, x));
    PetscCall(KSPGetConvergedReason(ksp, &cg));
    PetscCall(KSPDestroy(&ksp));
    for (int s = 0; s < 2; s++) {
        PetscCall(make_ksp(A, KSPOVKRYLOV, solvers[s], PCBJACOBI, &ksp));
        PetscCall(VecSet(x, 0.0));
        PetscCall(KSPSolve(ksp, b, x));
        PetscCall(KSPGetConvergedReason(ksp, &reason));
        EXPECT(reason == KSP_DIVERGED_PC_FAILED && cg == KSP_DIVERGED_PC_FAILED, "failed PC under %s: %s (KSPCG: %s)\n", solvers[s],
               KSPConvergedReasons[reason], KSPConvergedReasons[cg]);
        PetscCall(KSPDestroy(&ksp));
    }
    PetscCall(VecDestroy(&b));
    PetscCall(VecDestroy(&x));
    PetscCall(MatDestroy(&A));
    PetscFunctionReturn(0);
}

/* Row 7: the side each solver really preconditions on (what -ksp_view prints). */
static PetscErrorCode sides(Mat A)
{
    static const struct {
        const char *solver;
        PCSide side;
    } t[] = {{"alg1", PC_LEFT}, {"pipecg", PC_LEFT}, {"gmres", PC_RIGHT}, {"fgmres", PC_RIGHT}, {"bicgstab", PC_RIGHT}, {"idrs", PC_RIGHT},
           {"sgmres", PC_RIGHT}, {"pgmres", PC_RIGHT}, {"minres", PC_LEFT}};
    PetscFunctionBeginUser;
    for (size_t i = 0; i < sizeof t / sizeof *t; i++) {
        KSP ksp;
        PCSide side;
        PetscCall(make_ksp(A, KSPOVKRYLOV, t[i].solver, PCJACOBI, &ksp));
        PetscCall(KSPSetUp(ksp));
        PetscCall(KSPGetPCSide(ksp, &side));
        EXPECT(side == t[i].side, "%s: %s preconditioning, expected %s\n", t[i].solver, PCSides[side], PCSides[t[i].side]);
        PetscCall(KSPDestroy(&ksp));
    }
    PetscFunctionReturn(0);
}

/* Row 7: KSP_NORM_NONE runs max_it iterations (KSP_CONVERGED_ITS, norm 0)
 * to the iterate the same solver reaches in as many with a norm. */
static PetscErrorCode norm_none(Mat A, Vec b)
{
    static const char *solvers[] = {"alg1", "gmres", "pipecg"};
    enum { ITS = 7 };
    PetscFunctionBeginUser;
    for (int s = 0; s < 3; s++) {
        KSP ksp;
        Vec x[2];
        PetscInt its;
        PetscReal rnorm, diff, xn;
        KSPConvergedReason reason;
        for (int k = 0; k < 2; k++) {
            PetscCall(VecDuplicate(b, &x[k]));
            PetscCall(make_ksp(A, KSPOVKRYLOV, solvers[s], PCJACOBI, &ksp));
            PetscCall(KSPSetTolerances(ksp, k ? 1e-30 : RTOL, PETSC_DEFAULT, PETSC_DEFAULT, ITS));
            if (k == 0) PetscCall(KSPSetNormType(ksp, KSP_NORM_NONE));
            PetscCall(KSPSolve(ksp, b, x[k]));
            if (k == 0) {
                PetscCall(KSPGetIterationNumber(ksp, &its));
                PetscCall(KSPGetConvergedReason(ksp, &reason));
                PetscCall(KSPGetResidualNorm(ksp, &rnorm));
                EXPECT(its == ITS && reason == KSP_CONVERGED_ITS && rnorm == 0.0, "%s, KSP_NORM_NONE: %" PetscInt_FMT " iterations, %s, norm %g\n",
                       solvers[s], its, KSPConvergedReasons[reason], (double)rnorm);
            }
            PetscCall(KSPDestroy(&ksp));
        }
        PetscCall(VecNorm(x[1], NORM_2, &xn));
        PetscCall(VecAXPY(x[0], -1.0, x[1]));
        PetscCall(VecNorm(x[0], NORM_2, &diff));
        EXPECT(diff <= 1e-12 * xn, "%s, KSP_NORM_NONE: x differs from %d iterations with a norm by %g\n", solvers[s], ITS, (double)(diff / xn));
        PetscCall(VecDestroy(&x[0]));
        PetscCall(VecDestroy(&x[1]));
    }
    PetscFunctionReturn(0);
}

/* Row 7: ovkrylov's alg1 + PETSc's jacobi as PCGAMG's smoother (PCMG sets
 * KSP_NORM_NONE on its smoothers) under KSPFGMRES: converges within twice
 * the iterations of GAMG's own Chebyshev smoother. */
static PetscErrorCode smoother(Mat A, Vec b)
{
    KSP ksp;
    Vec x;
    PetscInt its[2];
    PetscReal rel;
    KSPConvergedReason reason;
    PetscFunctionBeginUser;
    PetscCall(VecDuplicate(b, &x));
    for (int k = 0; k < 2; k++) {
        if (k == 1) {
            PetscCall(PetscOptionsSetValue(NULL, "-mg_levels_ksp_type", "ovkrylov"));
            PetscCall(PetscOptionsSetValue(NULL, "-mg_levels_ksp_ovkrylov_solver", "alg1"));
            PetscCall(PetscOptionsSetValue(NULL, "-mg_levels_pc_type", "jacobi"));
        }
        PetscCall(make_ksp(A, KSPFGMRES, NULL, PCGAMG, &ksp));
        PetscCall(KSPSetFromOptions(ksp));
        PetscCall(VecSet(x, 0.0));
        PetscCall(KSPSolve(ksp, b, x));
        PetscCall(KSPGetIterationNumber(ksp, &its[k]));
        PetscCall(KSPGetConvergedReason(ksp, &reason));
        PetscCall(true_residual(A, b, x, &rel));
        EXPECT(reason > 0 && rel < 1e-5, "GAMG %s: %s, residual %g\n", k ? "with ovkrylov's smoother" : "", KSPConvergedReasons[reason], (double)rel);
        PetscCall(KSPDestroy(&ksp));
    }
    PetscCall(PetscOptionsClearValue(NULL, "-mg_levels_ksp_type"));
    PetscCall(PetscOptionsClearValue(NULL, "-mg_levels_ksp_ovkrylov_solver"));
    PetscCall(PetscOptionsClearValue(NULL, "-mg_levels_pc_type"));
    EXPECT(its[1] <= 2 * its[0], "GAMG with ovkrylov's smoother: %" PetscInt_FMT " iterations, with Chebyshev %" PetscInt_FMT "\n", its[1], its[0]);
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "FGMRES + GAMG: %" PetscInt_FMT " iterations, with ovkrylov alg1 as smoother %" PetscInt_FMT "\n", its[0],
                          its[1]));
    PetscCall(VecDestroy(&x));
    PetscFunctionReturn(0);
}

/* Row 7: the preconditioned norm refused, naming the supported; the
 * natural norm refused by a variant without it (pipecg), naming alg1. */
static PetscErrorCode norm_refused(Mat A, Vec b)
{
    static const KSPNormType types[] = {KSP_NORM_NATURAL, KSP_NORM_PRECONDITIONED};
    static const char *const expect[] = {"these test sqrt(<r, C r>): alg1", "supported types are unpreconditioned"};
    PetscFunctionBeginUser;
    for (int t = 0; t < 2; t++) {
        KSP ksp;
        Vec x;
        PetscCall(VecDuplicate(b, &x));
        PetscCall(make_ksp(A, KSPOVKRYLOV, "pipecg", PCJACOBI, &ksp));
        PetscCall(KSPSetNormType(ksp, types[t]));
        PetscCall(solve_fails(KSPNormTypes[types[t]], ksp, b, x, PETSC_ERR_SUP, expect[t]));
        PetscCall(KSPDestroy(&ksp));
        PetscCall(VecDestroy(&x));
    }
    PetscFunctionReturn(0);
}

typedef struct {
    PetscReal first, last;
} norms_seen;

static PetscErrorCode record_norms(KSP ksp, PetscInt it, PetscReal rnorm, void *ctx)
{
    norms_seen *m = ctx;
    (void)ksp;
    if (it == 0) m->first = rnorm;
    m->last = rnorm;
    return 0;
}

/* Row 7: -ksp_norm_type natural under alg1, with PETSc's jacobi (the
 * callback) and ovkrylov's own: KSPCG's iterations with the natural norm
 * +-1 (the operator's diagonal varies: the natural norm is not the two-norm
 * scaled), the monitor's first norm sqrt(<b, C b>), the last and the KSP's
 * final norm below rtol times it. */
static PetscErrorCode norm_natural(Mat A, Vec b)
{
    static const char *const label[] = {"KSPCG", "ovkrylov alg1 + PETSc's jacobi", "ovkrylov alg1 + its jacobi"};
    PetscInt its[3];
    PetscReal bnat = 0, final;
    PetscScalar bcb;
    Vec x, z;
    PC pc;
    PetscFunctionBeginUser;
    PetscCall(VecDuplicate(b, &x));
    PetscCall(VecDuplicate(b, &z));
    for (int k = 0; k < 3; k++) {
        KSP ksp;
        KSPConvergedReason reason;
        norms_seen m = {0, 0};
        if (k == 2) PetscCall(PetscOptionsSetValue(NULL, "-ksp_ovkrylov_precond", "jacobi"));
        PetscCall(make_ksp(A, k ? KSPOVKRYLOV : KSPCG, k ? "alg1" : NULL, PCJACOBI, &ksp));
        PetscCall(PetscOptionsClearValue(NULL, "-ksp_ovkrylov_precond"));
        PetscCall(KSPSetNormType(ksp, KSP_NORM_NATURAL));
        PetscCall(KSPMonitorSet(ksp, record_norms, &m, NULL));
        PetscCall(KSPSetUp(ksp));
        if (k == 0) { /* sqrt(<b, C b>) with KSPCG's jacobi */
            PetscCall(KSPGetPC(ksp, &pc));
            PetscCall(PCApply(pc, b, z));
            PetscCall(VecDot(b, z, &bcb));
            bnat = PetscSqrtReal(PetscRealPart(bcb));
        }
        PetscCall(VecSet(x, 0.0));
        PetscCall(KSPSolve(ksp, b, x));
        PetscCall(KSPGetIterationNumber(ksp, &its[k]));
        PetscCall(KSPGetConvergedReason(ksp, &reason));
        PetscCall(KSPGetResidualNorm(ksp, &final));
        PetscCall(PetscPrintf(PETSC_COMM_WORLD, "natural norm, %s: %" PetscInt_FMT " iterations, %s, first %.6e, final %.3e\n", label[k], its[k],
                              KSPConvergedReasons[reason], (double)m.first, (double)final));
        EXPECT(reason > 0, "natural norm, %s: %s\n", label[k], KSPConvergedReasons[reason]);
        EXPECT(PetscAbsReal(m.first - bnat) <= 1e-10 * bnat, "natural norm, %s: first norm %.17g, sqrt(<b, C b>) %.17g\n", label[k],
               (double)m.first, (double)bnat);
        EXPECT(final < RTOL * bnat && m.last < RTOL * bnat, "natural norm, %s: final %g, last monitored %g, rtol sqrt(<b, C b>) %g\n",
               label[k], (double)final, (double)m.last, (double)(RTOL * bnat));
        EXPECT(k == 0 || PetscAbs(its[k] - its[0]) <= 1, "natural norm, %s: %" PetscInt_FMT " iterations, KSPCG %" PetscInt_FMT "\n", label[k],
               its[k], its[0]);
        PetscCall(KSPDestroy(&ksp));
    }
    PetscCall(VecDestroy(&x));
    PetscCall(VecDestroy(&z));
    PetscFunctionReturn(0);
}

static char help_text[65536];
static size_t help_len;

static PetscErrorCode keep_help(MPI_Comm comm, const char fmt[], ...)
{
    va_list ap;
    (void)comm;
    va_start(ap, fmt);
    if (help_len < sizeof help_text) help_len += (size_t)vsnprintf(help_text + help_len, sizeof help_text - help_len, fmt, ap);
    va_end(ap);
    if (help_len > sizeof help_text) help_len = sizeof help_text;
    return 0;
}

/* Row 7: -help shows the defaults (the plug-in's solver auto, ovkrylov's precond jacobi). */
static PetscErrorCode help_defaults(Mat A)
{
    static const char *keys[][2] = {{"-h_ksp_ovkrylov_solver <", "auto"}, {"-h_ksp_ovkrylov_precond <", "jacobi"}};
    PetscErrorCode (*saved)(MPI_Comm, const char[], ...) = PetscHelpPrintf;
    KSP ksp;
    PetscFunctionBeginUser;
    PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
    PetscCall(KSPSetOperators(ksp, A, A));
    PetscCall(KSPSetOptionsPrefix(ksp, "h_"));
    PetscCall(KSPSetType(ksp, KSPOVKRYLOV));
    PetscCall(PetscOptionsSetValue(NULL, "-help", NULL));
    PetscHelpPrintf = keep_help;
    PetscCall(KSPSetFromOptions(ksp));
    PetscHelpPrintf = saved;
    PetscCall(PetscOptionsClearValue(NULL, "-help"));
    for (int k = 0; k < 2; k++) {
        const char *at = strstr(help_text, keys[k][0]), *end = at ? strchr(at, '>') : NULL;
        int ok = rank != 0 || (end && strstr(at, keys[k][1]) && strstr(at, keys[k][1]) < end), all; /* rank 0 prints */
        PetscCallMPI(MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, PETSC_COMM_WORLD));
        EXPECT(all, "-help: %s...> does not show the default %s\n", keys[k][0], keys[k][1]);
    }
    PetscCall(KSPDestroy(&ksp));
    PetscFunctionReturn(0);
}

/* The true residual from the KSP's solution against the monitored norm. */
static PetscErrorCode true_monitor(KSP ksp, PetscInt it, PetscReal rnorm, void *ctx)
{
    PetscReal *worst = ctx, tn;
    Vec r;
    PetscFunctionBeginUser;
    PetscCall(KSPBuildResidual(ksp, NULL, NULL, &r));
    PetscCall(VecNorm(r, NORM_2, &tn));
    PetscCall(VecDestroy(&r));
    (void)it;
    *worst = PetscMax(*worst, PetscAbsReal(tn - rnorm) / tn);
    PetscFunctionReturn(0);
}

/* Row 7: the true residual during a solve: that of the iterate under alg1
 * (the monitored norm itself, to rounding); refused under gmres, which
 * forms x only at a cycle's end. */
static PetscErrorCode true_residual_monitor(Mat A, Vec b)
{
    KSP ksp;
    Vec x;
    PetscReal worst = 0;
    PetscFunctionBeginUser;
    PetscCall(VecDuplicate(b, &x));
    PetscCall(make_ksp(A, KSPOVKRYLOV, "alg1", PCJACOBI, &ksp));
    PetscCall(KSPMonitorSet(ksp, true_monitor, &worst, NULL));
    PetscCall(KSPSolve(ksp, b, x));
    EXPECT(worst < 1e-6, "alg1: the true residual differs from the monitored norm by %g\n", (double)worst);
    PetscCall(KSPDestroy(&ksp));
    PetscCall(make_ksp(A, KSPOVKRYLOV, "gmres", PCJACOBI, &ksp));
    PetscCall(KSPMonitorSet(ksp, true_monitor, &worst, NULL));
    PetscCall(VecSet(x, 0.0));
    PetscCall(solve_fails("the true residual under gmres", ksp, b, x, PETSC_ERR_SUP, "right"));
    PetscCall(KSPDestroy(&ksp));
    PetscCall(VecDestroy(&x));
    PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
    Mat A;
    Vec b;
    PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
    PetscCall(KSPOvkrylovRegister());
    PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
    PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
    PetscCall(build(N, 0, 1, 0, 0, &A));
    PetscCall(rhs(A, 0, &b));
    PetscCall(sizes(A, b));
    PetscCall(nonsymmetric_update());
    PetscCall(new_nullspace());
    PetscCall(new_operator(b));
    PetscCall(changed_pc(A, b));
    PetscCall(pc_failure());
    PetscCall(sides(A));
    PetscCall(norm_none(A, b));
    PetscCall(smoother(A, b));
    PetscCall(norm_refused(A, b));
    PetscCall(norm_natural(A, b));
    PetscCall(help_defaults(A));
    PetscCall(true_residual_monitor(A, b));
    PetscCall(VecDestroy(&b));
    PetscCall(MatDestroy(&A));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, fails ? "%d FAILED\n" : "all passed\n", fails));
    PetscCall(PetscFinalize());
    return fails ? 1 : 0;
}

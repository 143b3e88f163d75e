/* KSP type "ovkrylov" (libovkrylov_petsc) in a PETSc program: a 3-D
 * Poisson and a convection-diffusion problem solved through KSPSolve with
 * ovkrylov's solvers and PETSc's or ovkrylov's preconditioners, checked by
 * the true residual; alg1 + PETSc's jacobi against KSPCG + jacobi (the same
 * unpreconditioned norm): the same iterations within one; new values
 * between two solves; a MATSHELL operator; BAIJ and SBAIJ; KSPMatSolve; a MatNullSpace; the
 * monitor and the residual norm; bad input (an unknown solver, a key that a
 * PETSc option sets, a refused value of another key, a CG on a nonsymmetric
 * matrix, a non-square operator, a failing MatMult) as a PETSc error on
 * every rank.  Self-checking at
 * any number of ranks; exit 1 on a failure. */
#include <math.h>
#include <string.h>

#include <petscksp.h>

#include "ovkrylov_petsc.h"
#include "petsc_expect.h"

enum { N = 10 }; /* grid points per direction: N^3 unknowns */
#define RTOL 1e-8
#define RES_OK 1e-6 /* true relative residual accepted for rtol 1e-8 */

/* The 7-point operator on the N^3 grid: Dirichlet Poisson (conv 0),
 * upwind convection-diffusion (conv > 0: nonsymmetric), or the Neumann
 * Laplacian (neumann: the constants are its null space). */
static PetscErrorCode build(double conv, int neumann, Mat *A)
{
    PetscInt lo, hi;
    PetscFunctionBeginUser;
    PetscCall(MatCreateAIJ(PETSC_COMM_WORLD, PETSC_DECIDE, PETSC_DECIDE, N * N * N, N * N * N, 7, NULL, 7, NULL, A));
    PetscCall(MatGetOwnershipRange(*A, &lo, &hi));
    for (PetscInt row = lo; row < hi; row++) {
        PetscInt g[3] = {row % N, (row / N) % N, row / (N * N)}, stride[3] = {1, N, N * N}, cols[7], nc = 0;
        PetscScalar vals[7], diag = neumann ? 0 : 6 + 3 * conv;
        for (int dim = 0; dim < 3; dim++)
            for (int side = -1; side <= 1; side += 2) {
                if (g[dim] + side < 0 || g[dim] + side >= N) continue;
                cols[nc] = row + side * stride[dim];
                vals[nc++] = side < 0 ? -1 - conv : -1;
                if (neumann) diag += 1;
            }
        cols[nc] = row, vals[nc++] = diag;
        PetscCall(MatSetValues(*A, 1, &row, nc, cols, vals, INSERT_VALUES));
    }
    PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
    PetscFunctionReturn(0);
}

/* b_i from the global row (the same b at any number of ranks); zero mean
 * when consistent (for the Neumann Laplacian). */
static PetscErrorCode rhs(Mat A, int zero_mean, Vec *b)
{
    PetscInt lo, hi;
    PetscScalar *p, sum;
    PetscFunctionBeginUser;
    PetscCall(MatCreateVecs(A, NULL, b));
    PetscCall(VecGetOwnershipRange(*b, &lo, &hi));
    PetscCall(VecGetArray(*b, &p));
    for (PetscInt i = lo; i < hi; i++) p[i - lo] = sin(0.37 * (double)i) + 0.5;
    PetscCall(VecRestoreArray(*b, &p));
    if (zero_mean) {
        PetscCall(VecSum(*b, &sum));
        PetscCall(VecShift(*b, -sum / (N * N * N)));
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

/* A KSP on (A, P) of type ovkrylov with the solver, and PETSc's PC pc or
 * ovkrylov's ovkpc (the other NULL), through the options database. */
static PetscErrorCode make_ksp(Mat A, Mat P, const char *solver, const char *pc, const char *ovkpc, KSP *ksp)
{
    PC p;
    PetscFunctionBeginUser;
    PetscCall(KSPCreate(PETSC_COMM_WORLD, ksp));
    PetscCall(KSPSetOperators(*ksp, A, P));
    PetscCall(KSPSetType(*ksp, KSPOVKRYLOV));
    PetscCall(KSPSetTolerances(*ksp, RTOL, PETSC_DEFAULT, PETSC_DEFAULT, 2000));
    PetscCall(KSPGetPC(*ksp, &p));
    if (pc) PetscCall(PCSetType(p, pc));
    PetscCall(PetscOptionsSetValue(NULL, "-ksp_ovkrylov_solver", solver));
    if (ovkpc) PetscCall(PetscOptionsSetValue(NULL, "-ksp_ovkrylov_precond", ovkpc));
    PetscCall(KSPSetFromOptions(*ksp));
    PetscCall(PetscOptionsClearValue(NULL, "-ksp_ovkrylov_solver"));
    PetscCall(PetscOptionsClearValue(NULL, "-ksp_ovkrylov_precond"));
    PetscFunctionReturn(0);
}

/* Solve A x = b with the combination; expect convergence and the true residual. */
static PetscErrorCode solve_case(const char *problem, Mat A, Vec b, const char *solver, const char *pc, const char *ovkpc,
                                 PetscInt *its_out)
{
    KSP ksp;
    Vec x;
    PetscInt its;
    PetscReal rel, rnorm, bn;
    KSPConvergedReason reason;
    PetscFunctionBeginUser;
    PetscCall(make_ksp(A, A, solver, pc, ovkpc, &ksp));
    PetscCall(VecDuplicate(b, &x));
    PetscCall(KSPSolve(ksp, b, x));
    PetscCall(KSPGetIterationNumber(ksp, &its));
    PetscCall(KSPGetConvergedReason(ksp, &reason));
    PetscCall(KSPGetResidualNorm(ksp, &rnorm));
    PetscCall(true_residual(A, b, x, &rel));
    PetscCall(VecNorm(b, NORM_2, &bn));
    EXPECT(reason > 0 && rel < RES_OK && its > 0, "%s %s + %s%s: reason %s, %" PetscInt_FMT " iterations, true residual %g\n", problem,
           solver, pc ? pc : ovkpc, pc ? "" : " (ovkrylov's)", KSPConvergedReasons[reason], its, (double)rel);
    EXPECT(rnorm / bn < RES_OK, "%s %s: KSPGetResidualNorm %g, ||b|| %g\n", problem, solver, (double)rnorm, (double)bn);
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-9s %-9s + %-8s %-9s %4" PetscInt_FMT " iterations, true residual %.2e\n", problem,
                          solver, pc ? pc : ovkpc, pc ? "(PETSc)" : "(ovkrylov)", its, (double)rel));
    if (its_out) *its_out = its;
    PetscCall(VecDestroy(&x));
    PetscCall(KSPDestroy(&ksp));
    PetscFunctionReturn(0);
}

/* alg1 + PETSc's jacobi against KSPCG + jacobi on the unpreconditioned norm. */
static PetscErrorCode against_kspcg(Mat A, Vec b, PetscInt ovk_its)
{
    KSP ksp;
    PC pc;
    Vec x;
    PetscInt its;
    PetscFunctionBeginUser;
    PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
    PetscCall(KSPSetOperators(ksp, A, A));
    PetscCall(KSPSetType(ksp, KSPCG));
    PetscCall(KSPSetNormType(ksp, KSP_NORM_UNPRECONDITIONED));
    PetscCall(KSPSetTolerances(ksp, RTOL, PETSC_DEFAULT, PETSC_DEFAULT, 2000));
    PetscCall(KSPGetPC(ksp, &pc));
    PetscCall(PCSetType(pc, PCJACOBI));
    PetscCall(VecDuplicate(b, &x));
    PetscCall(KSPSolve(ksp, b, x));
    PetscCall(KSPGetIterationNumber(ksp, &its));
    EXPECT(PetscAbsInt(its - ovk_its) <= 1, "alg1 + jacobi took %" PetscInt_FMT " iterations, KSPCG + jacobi %" PetscInt_FMT "\n", ovk_its,
           its);
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "KSPCG + jacobi: %" PetscInt_FMT " iterations, ovkrylov alg1 + jacobi %" PetscInt_FMT "\n", its,
                          ovk_its));
    PetscCall(VecDestroy(&x));
    PetscCall(KSPDestroy(&ksp));
    PetscFunctionReturn(0);
}

static PetscErrorCode count_monitor(KSP ksp, PetscInt it, PetscReal rnorm, void *ctx)
{
    PetscInt *calls = ctx;
    (void)ksp, (void)rnorm;
    PetscFunctionBeginUser;
    if (it == calls[0]) calls[0]++; /* iterations 0, 1, 2, ... in order */
    calls[1]++;
    PetscFunctionReturn(0);
}

/* New values (same pattern) between two solves, with the KSP's monitor:
 * the second answer is that of the new matrix, ovkrylov's amg reused. */
static PetscErrorCode changed_values(Mat A, Vec b, const char *ovkpc)
{
    KSP ksp;
    Vec x;
    PetscReal rel1, rel2;
    PetscInt calls[2] = {0, 0}, its;
    PetscFunctionBeginUser;
    PetscCall(make_ksp(A, A, "pipecg", ovkpc ? NULL : PCJACOBI, ovkpc, &ksp));
    PetscCall(KSPMonitorSet(ksp, count_monitor, calls, NULL));
    PetscCall(VecDuplicate(b, &x));
    PetscCall(KSPSolve(ksp, b, x));
    PetscCall(KSPGetIterationNumber(ksp, &its));
    EXPECT(calls[0] == calls[1] && calls[1] == its + 1, "monitor: %" PetscInt_FMT " calls (%" PetscInt_FMT " in order) for %" PetscInt_FMT " iterations\n",
           calls[1], calls[0], its);
    PetscCall(MatShift(A, 2.0)); /* A + 2 I: same pattern, new state */
    PetscCall(KSPSolve(ksp, b, x));
    PetscCall(true_residual(A, b, x, &rel2));
    PetscCall(MatShift(A, -2.0));
    PetscCall(true_residual(A, b, x, &rel1));
    EXPECT(rel2 < RES_OK && rel1 > 1e-3, "new values (%s): residual %g with the new matrix, %g with the old one\n", ovkpc ? ovkpc : "jacobi",
           (double)rel2, (double)rel1);
    PetscCall(VecDestroy(&x));
    PetscCall(KSPDestroy(&ksp));
    PetscFunctionReturn(0);
}

static PetscErrorCode shell_mult(Mat S, Vec x, Vec y)
{
    Mat A;
    PetscFunctionBeginUser;
    PetscCall(MatShellGetContext(S, &A));
    PetscCall(MatMult(A, x, y));
    PetscFunctionReturn(0);
}

/* MATSHELL operator (PC from the assembled Pmat): the MatMult callback
 * gives the assembled path's iterations. */
static PetscErrorCode shell_operator(Mat A, Vec b, PetscInt assembled_its)
{
    Mat S;
    KSP ksp;
    Vec x;
    PetscInt m, its;
    PetscReal rel;
    PetscFunctionBeginUser;
    PetscCall(MatGetLocalSize(A, &m, NULL));
    PetscCall(MatCreateShell(PETSC_COMM_WORLD, m, m, PETSC_DETERMINE, PETSC_DETERMINE, A, &S));
    PetscCall(MatShellSetOperation(S, MATOP_MULT, (void (*)(void))shell_mult));
    PetscCall(make_ksp(S, A, "alg1", PCJACOBI, NULL, &ksp));
    PetscCall(VecDuplicate(b, &x));
    PetscCall(KSPSolve(ksp, b, x));
    PetscCall(KSPGetIterationNumber(ksp, &its));
    PetscCall(true_residual(A, b, x, &rel));
    EXPECT(rel < RES_OK && PetscAbsInt(its - assembled_its) <= 1, "MATSHELL: %" PetscInt_FMT " iterations (assembled %" PetscInt_FMT "), residual %g\n",
           its, assembled_its, (double)rel);
    PetscCall(VecDestroy(&x));
    PetscCall(KSPDestroy(&ksp));
    PetscCall(MatDestroy(&S));
    PetscFunctionReturn(0);
}

/* The same operator as BAIJ and SBAIJ (rows read by MatGetRow; SBAIJ's
 * converted to AIJ): the AIJ path's iterations. */
static PetscErrorCode block_formats(Mat A, Vec b, PetscInt aij_its)
{
    static const MatType types[] = {MATBAIJ, MATSBAIJ};
    PetscFunctionBeginUser;
    PetscCall(MatSetOption(A, MAT_SYMMETRIC, PETSC_TRUE));
    for (int t = 0; t < 2; t++) {
        Mat B;
        KSP ksp;
        Vec x;
        PetscInt its;
        PetscReal rel;
        PetscCall(MatConvert(A, types[t], MAT_INITIAL_MATRIX, &B));
        PetscCall(make_ksp(B, B, "alg1", NULL, "jacobi", &ksp));
        PetscCall(VecDuplicate(b, &x));
        PetscCall(KSPSolve(ksp, b, x));
        PetscCall(KSPGetIterationNumber(ksp, &its));
        PetscCall(true_residual(A, b, x, &rel));
        EXPECT(rel < RES_OK && its == aij_its, "%s: %" PetscInt_FMT " iterations (AIJ %" PetscInt_FMT "), residual %g\n", types[t], its, aij_its,
               (double)rel);
        PetscCall(VecDestroy(&x));
        PetscCall(KSPDestroy(&ksp));
        PetscCall(MatDestroy(&B));
    }
    PetscFunctionReturn(0);
}

/* KSPMatSolve on K right-hand sides: every column solved. */
static PetscErrorCode mat_solve(Mat A)
{
    enum { K = 3 };
    KSP ksp;
    Mat B, X;
    PetscInt m, lo, hi;
    PetscScalar *pb;
    PetscFunctionBeginUser;
    PetscCall(MatGetLocalSize(A, &m, NULL));
    PetscCall(MatGetOwnershipRange(A, &lo, &hi));
    PetscCall(MatCreateDense(PETSC_COMM_WORLD, m, PETSC_DECIDE, PETSC_DETERMINE, K, NULL, &B));
    PetscCall(MatCreateDense(PETSC_COMM_WORLD, m, PETSC_DECIDE, PETSC_DETERMINE, K, NULL, &X));
    PetscCall(MatDenseGetArray(B, &pb));
    for (PetscInt j = 0; j < K; j++)
        for (PetscInt i = lo; i < hi; i++) pb[j * m + i - lo] = cos(0.1 * (double)(j + 1) * (double)i);
    PetscCall(MatDenseRestoreArray(B, &pb));
    PetscCall(PetscOptionsSetValue(NULL, "-ksp_ovkrylov_many_group", "2")); /* two systems' updates together */
    PetscCall(make_ksp(A, A, "pipecg", NULL, "jacobi", &ksp));
    PetscCall(PetscOptionsClearValue(NULL, "-ksp_ovkrylov_many_group"));
    PetscCall(KSPMatSolve(ksp, B, X));
    for (PetscInt j = 0; j < K; j++) {
        Vec bj, xj;
        PetscReal rel;
        PetscCall(MatDenseGetColumnVecRead(B, j, &bj));
        PetscCall(MatDenseGetColumnVecRead(X, j, &xj));
        PetscCall(true_residual(A, bj, xj, &rel));
        EXPECT(rel < RES_OK, "KSPMatSolve column %" PetscInt_FMT ": residual %g\n", j, (double)rel);
        PetscCall(MatDenseRestoreColumnVecRead(X, j, &xj));
        PetscCall(MatDenseRestoreColumnVecRead(B, j, &bj));
    }
    PetscCall(KSPDestroy(&ksp));
    PetscCall(MatDestroy(&B));
    PetscCall(MatDestroy(&X));
    PetscFunctionReturn(0);
}

/* The Neumann Laplacian with the constants as MatNullSpace: converges
 * on a consistent b, x without a constant component. */
static PetscErrorCode null_space(void)
{
    Mat A;
    Vec b, x;
    MatNullSpace nsp;
    KSP ksp;
    PetscReal rel;
    PetscScalar mean;
    KSPConvergedReason reason;
    PetscFunctionBeginUser;
    PetscCall(build(0, 1, &A));
    PetscCall(MatNullSpaceCreate(PETSC_COMM_WORLD, PETSC_TRUE, 0, NULL, &nsp));
    PetscCall(MatSetNullSpace(A, nsp));
    PetscCall(rhs(A, 1, &b));
    PetscCall(VecDuplicate(b, &x));
    PetscCall(make_ksp(A, A, "cg1", PCJACOBI, NULL, &ksp));
    PetscCall(KSPSolve(ksp, b, x));
    PetscCall(KSPGetConvergedReason(ksp, &reason));
    PetscCall(true_residual(A, b, x, &rel));
    PetscCall(VecSum(x, &mean));
    EXPECT(reason > 0 && rel < RES_OK && PetscAbsScalar(mean) < 1e-6, "null space: reason %s, residual %g, sum(x) %g\n",
           KSPConvergedReasons[reason], (double)rel, (double)mean);
    PetscCall(KSPDestroy(&ksp));
    PetscCall(MatNullSpaceDestroy(&nsp));
    PetscCall(VecDestroy(&b));
    PetscCall(VecDestroy(&x));
    PetscCall(MatDestroy(&A));
    PetscFunctionReturn(0);
}

/* The first error's message, kept by the error handler. */
static PetscErrorCode keep_message(MPI_Comm comm, int line, const char *fun, const char *file, PetscErrorCode n, PetscErrorType p,
                                   const char *mess, void *ctx)
{
    (void)comm, (void)line, (void)fun, (void)file;
    if (p == PETSC_ERROR_INITIAL && mess) strncpy(ctx, mess, 1023);
    return n;
}

/* An error expected on every rank: the code nonzero everywhere, the
 * message holding `expect`. */
static PetscErrorCode expect_error(const char *what, PetscErrorCode ierr, const char *msg, const char *expect)
{
    int bad = !ierr || !strstr(msg, expect), any;
    PetscFunctionBeginUser;
    PetscCallMPI(MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, PETSC_COMM_WORLD));
    EXPECT(!any, "%s: error %d, message \"%s\" (expected one naming \"%s\" on every rank)\n", what, (int)ierr, msg, expect);
    if (!any) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: error %d: %s\n", what, (int)ierr, msg));
    PetscFunctionReturn(0);
}

/* A shell operator whose product fails on rank 0 at the 30th call, in the solve (after
 * the product itself, whose halo exchange the other ranks wait for). */
typedef struct {
    Mat A;
    int calls;
} failing_ctx;

static PetscErrorCode failing_mult(Mat S, Vec x, Vec y)
{
    failing_ctx *f;
    PetscMPIInt rank;
    PetscFunctionBeginUser;
    PetscCall(MatShellGetContext(S, &f));
    PetscCall(MatMult(f->A, x, y));
    PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
    PetscCheck(rank != 0 || ++f->calls < 30, PETSC_COMM_SELF, PETSC_ERR_USER, "the shell's product failed on purpose");
    PetscFunctionReturn(0);
}

/* A failing operator callback: an error on every rank, no hang. */
static PetscErrorCode failing_callback(Mat A, Vec b)
{
    char msg[1024] = "";
    failing_ctx f = {A, 0};
    Mat S;
    KSP ksp;
    Vec x;
    PetscInt m;
    PetscErrorCode ierr;
    PetscFunctionBeginUser;
    PetscCall(MatGetLocalSize(A, &m, NULL));
    PetscCall(MatCreateShell(PETSC_COMM_WORLD, m, m, PETSC_DETERMINE, PETSC_DETERMINE, &f, &S));
    PetscCall(MatShellSetOperation(S, MATOP_MULT, (void (*)(void))failing_mult));
    PetscCall(make_ksp(S, A, "pipecg", PCJACOBI, NULL, &ksp));
    PetscCall(VecDuplicate(b, &x));
    PetscCall(PetscPushErrorHandler(keep_message, msg));
    ierr = KSPSolve(ksp, b, x);
    PetscCall(PetscPopErrorHandler());
    PetscCall(expect_error("failing MatMult", ierr, msg, "failed"));
    PetscCall(VecDestroy(&x));
    PetscCall(KSPDestroy(&ksp));
    PetscCall(MatDestroy(&S));
    PetscFunctionReturn(0);
}

static PetscErrorCode bad_input(Mat poisson, Mat cd, Vec b)
{
    char msg[1024] = "";
    KSP ksp;
    Vec x;
    PetscErrorCode ierr;
    PetscFunctionBeginUser;
    PetscCall(VecDuplicate(b, &x));
    /* an unknown solver: KSPSetFromOptions fails, naming the valid ones */
    PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
    PetscCall(KSPSetOperators(ksp, poisson, poisson));
    PetscCall(KSPSetOptionsPrefix(ksp, "bad_"));
    PetscCall(PetscOptionsSetValue(NULL, "-bad_ksp_type", "ovkrylov"));
    PetscCall(PetscOptionsSetValue(NULL, "-bad_ksp_ovkrylov_solver", "nosuch:l=2"));
    PetscCall(PetscPushErrorHandler(keep_message, msg));
    ierr = KSPSetFromOptions(ksp);
    PetscCall(PetscPopErrorHandler());
    PetscCall(expect_error("unknown solver", ierr, msg, "pipecg"));
    PetscCall(expect_error("unknown solver", ierr, msg, "nosuch"));
    PetscCall(PetscOptionsClearValue(NULL, "-bad_ksp_ovkrylov_solver"));
    /* a key that PETSc's own option sets: KSPSetFromOptions names that one */
    PetscCall(PetscOptionsSetValue(NULL, "-bad_ksp_ovkrylov_rtol", "1e-3"));
    msg[0] = '\0';
    PetscCall(PetscPushErrorHandler(keep_message, msg));
    ierr = KSPSetFromOptions(ksp);
    PetscCall(PetscPopErrorHandler());
    PetscCall(expect_error("-ksp_ovkrylov_rtol", ierr, msg, "-ksp_rtol"));
    PetscCall(PetscOptionsClearValue(NULL, "-bad_ksp_ovkrylov_rtol"));
    PetscCall(PetscOptionsClearValue(NULL, "-bad_ksp_type"));
    PetscCall(KSPDestroy(&ksp));
    /* any other key of ovkrylov's table reaches it: a refused value is
       ovkrylov's error at KSPSetUp, naming the key */
    PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
    PetscCall(KSPSetOperators(ksp, poisson, poisson));
    PetscCall(KSPSetOptionsPrefix(ksp, "bad_"));
    PetscCall(PetscOptionsSetValue(NULL, "-bad_ksp_type", "ovkrylov"));
    PetscCall(PetscOptionsSetValue(NULL, "-bad_ksp_ovkrylov_many_group", "-3"));
    PetscCall(KSPSetFromOptions(ksp));
    PetscCall(PetscOptionsClearValue(NULL, "-bad_ksp_type"));
    PetscCall(PetscOptionsClearValue(NULL, "-bad_ksp_ovkrylov_many_group"));
    msg[0] = '\0';
    PetscCall(PetscPushErrorHandler(keep_message, msg));
    ierr = KSPSetUp(ksp);
    PetscCall(PetscPopErrorHandler());
    PetscCall(expect_error("-ksp_ovkrylov_many_group -3", ierr, msg, "many_group"));
    PetscCall(KSPDestroy(&ksp));
    /* a CG on a nonsymmetric matrix: ovkrylov's refusal as the KSPSolve's error */
    PetscCall(make_ksp(cd, cd, "alg1", PCJACOBI, NULL, &ksp));
    msg[0] = '\0';
    PetscCall(PetscPushErrorHandler(keep_message, msg));
    ierr = KSPSolve(ksp, b, x);
    PetscCall(PetscPopErrorHandler());
    PetscCall(expect_error("CG on a nonsymmetric matrix", ierr, msg, "OVK_ENOTSYM"));
    PetscCall(KSPDestroy(&ksp));
    /* a non-square operator */
    {
        Mat R;
        PetscInt m;
        PetscCall(MatGetLocalSize(poisson, &m, NULL));
        PetscCall(MatCreateAIJ(PETSC_COMM_WORLD, m, PETSC_DECIDE, PETSC_DETERMINE, N * N * N + 1, 1, NULL, 1, NULL, &R));
        PetscCall(MatAssemblyBegin(R, MAT_FINAL_ASSEMBLY));
        PetscCall(MatAssemblyEnd(R, MAT_FINAL_ASSEMBLY));
        PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
        PetscCall(KSPSetOperators(ksp, R, R));
        PetscCall(KSPSetType(ksp, KSPOVKRYLOV));
        msg[0] = '\0';
        PetscCall(PetscPushErrorHandler(keep_message, msg));
        ierr = KSPSetUp(ksp);
        PetscCall(PetscPopErrorHandler());
        PetscCall(expect_error("non-square operator", ierr, msg, "square"));
        PetscCall(KSPDestroy(&ksp));
        PetscCall(MatDestroy(&R));
    }
    PetscCall(VecDestroy(&x));
    PetscFunctionReturn(0);
}

/* ovkrylov's amg where PETSc's hypre takes its calls: a PETSc error at
 * KSPSetFromOptions on every rank, naming both and the reason. */
static PetscErrorCode amg_refused(Mat A)
{
    char msg[1024] = "";
    KSP ksp;
    PetscErrorCode ierr;
    PetscFunctionBeginUser;
    PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
    PetscCall(KSPSetOperators(ksp, A, A));
    PetscCall(KSPSetType(ksp, KSPOVKRYLOV));
    PetscCall(PetscOptionsSetValue(NULL, "-ksp_ovkrylov_precond", "amg"));
    PetscCall(PetscPushErrorHandler(keep_message, msg));
    ierr = KSPSetFromOptions(ksp);
    PetscCall(PetscPopErrorHandler());
    PetscCall(PetscOptionsClearValue(NULL, "-ksp_ovkrylov_precond"));
    PetscCall(expect_error("amg beside PETSc's hypre", ierr, msg, "PETSc's hypre"));
    PetscCall(expect_error("amg beside PETSc's hypre", ierr, msg, "-fPIC"));
    PetscCall(KSPDestroy(&ksp));
    PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
    static const char *spd_solvers[] = {"alg1", "pipecg", "plcg:l=3", "gmres", "bicgstab"};
    static const char *petsc_pcs[] = {PCJACOBI, PCBJACOBI, PCGAMG};
    static const char *ovk_pcs[] = {"jacobi", "amg"};
    static const char *ns_solvers[] = {"gmres", "bicgstab"};
    Mat poisson, cd;
    Vec b, bcd;
    PetscInt its, alg1_its = 0;
    PetscBool no_amg, refused, has_amg;

    PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
    PetscCall(KSPOvkrylovRegister());
    /* -no_amg: a build whose ovkrylov has no amg; -amg_refused: a program
       built without -fPIC (copies of MPI's data), where PETSc's hypre
       shadows ovkrylov's: the plug-in must refuse amg (only that is run) */
    PetscCall(PetscOptionsHasName(NULL, NULL, "-no_amg", &no_amg));
    PetscCall(PetscOptionsHasName(NULL, NULL, "-amg_refused", &refused));
    has_amg = !no_amg && !refused;
    PetscCall(build(0, 0, &poisson));
    if (refused) { /* that refusal alone (a program built without -fPIC) */
        PetscCall(amg_refused(poisson));
        PetscCall(MatDestroy(&poisson));
        PetscCall(PetscPrintf(PETSC_COMM_WORLD, fails ? "%d FAILED\n" : "all passed\n", fails));
        PetscCall(PetscFinalize());
        return fails ? 1 : 0;
    }
    PetscCall(build(0.5, 0, &cd));
    PetscCall(rhs(poisson, 0, &b));
    PetscCall(rhs(cd, 0, &bcd));
    for (size_t s = 0; s < sizeof spd_solvers / sizeof *spd_solvers; s++) {
        for (size_t p = 0; p < sizeof petsc_pcs / sizeof *petsc_pcs; p++) {
            PetscCall(solve_case("poisson", poisson, b, spd_solvers[s], petsc_pcs[p], NULL, &its));
            if (s == 0 && p == 0) alg1_its = its;
        }
        for (size_t p = 0; p < sizeof ovk_pcs / sizeof *ovk_pcs; p++)
            if (p == 0 || has_amg) PetscCall(solve_case("poisson", poisson, b, spd_solvers[s], NULL, ovk_pcs[p], NULL));
    }
    for (size_t s = 0; s < sizeof ns_solvers / sizeof *ns_solvers; s++) {
        for (size_t p = 0; p < sizeof petsc_pcs / sizeof *petsc_pcs; p++)
            PetscCall(solve_case("conv-diff", cd, bcd, ns_solvers[s], petsc_pcs[p], NULL, NULL));
        for (size_t p = 0; p < sizeof ovk_pcs / sizeof *ovk_pcs; p++)
            if (p == 0 || has_amg) PetscCall(solve_case("conv-diff", cd, bcd, ns_solvers[s], NULL, ovk_pcs[p], NULL));
    }
#ifdef PETSC_HAVE_HYPRE
    /* PETSc's hypre beside ovkrylov's amg, each calling its own hypre */
    PetscCall(solve_case("poisson", poisson, b, "pipecg", PCHYPRE, NULL, NULL));
    if (has_amg) PetscCall(solve_case("poisson", poisson, b, "pipecg", NULL, "amg", NULL));
#endif
    PetscCall(against_kspcg(poisson, b, alg1_its));
    PetscCall(changed_values(poisson, b, NULL));
    if (has_amg) PetscCall(changed_values(poisson, b, "amg"));
    PetscCall(shell_operator(poisson, b, alg1_its));
    PetscCall(block_formats(poisson, b, alg1_its));
    PetscCall(mat_solve(poisson));
    PetscCall(null_space());
    PetscCall(bad_input(poisson, cd, bcd));
    PetscCall(failing_callback(poisson, b));
    PetscCall(VecDestroy(&b));
    PetscCall(VecDestroy(&bcd));
    PetscCall(MatDestroy(&poisson));
    PetscCall(MatDestroy(&cd));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, fails ? "%d FAILED\n" : "all passed\n", fails));
    PetscCall(PetscFinalize());
    return fails ? 1 : 0;
}

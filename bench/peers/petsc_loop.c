/* Peer benchmark: a time loop of PETSc KSPCG on a Matrix Market file whose
 * values change every step on the same pattern, as a PETSc user writes it:
 * one KSP for the whole loop, the matrix's values replaced before each
 * step's solve (MatCopy of the file's values, SAME_NONZERO_PATTERN, then
 * a_ij *= d_i d_j, MatDiagonalScale), so that the PC is set up again at
 * the step's KSPSetUp; GAMG with -pc_gamg_reuse_interpolation true then
 * keeps its prolongators and recomputes only the Galerkin products.
 *
 *   mpiexec -n 2 petsc_loop -f FILE.mtx [-steps S] [-eps E] [-tol T] [-maxit N]
 *                           [PETSc options, e.g. -pc_type gamg -pc_gamg_reuse_interpolation true]
 *
 * Step s (0 <= s < S) solves with A_s = D_s A D_s, where A holds the file's
 * values and d_i = 1 + E sin(8 pi i / N + s / 2) (i the global row, N the
 * rows; default E = 0.03): a congruence, so A_s stays SPD, and a_ij moves
 * by up to about 3 % per step along the rows' order (bench/gen/fe_gen.py
 * numbers the nodes along a Hilbert curve: a smooth field in space).
 * bench/ovk_loop_bench.c makes the same matrices (both take d_i from
 * bench/loop_scaling.h).  b: -rhs random's (the same every step), x0 = 0,
 * the KSP stops at ||r||_2 < T ||b||_2 (default 1e-8).
 *
 * Prints per step `step s: N iterations, setup T s, solve T s` and in the
 * end Iterations (the sum), Final Relative Residual Norm (the last step's),
 * Update Time (the value copies and scalings), Setup Time and Solve Time
 * (the sums over the steps, slowest rank each). */
#include <stdlib.h>
#include <string.h>

#include "../loop_scaling.h"
#include "peer_common.h"


typedef struct loop_args {
    peer_mtx_args mtx;
    long steps;
    double eps;
} loop_args;

static const char *parse(int argc, char **argv, loop_args *a)
{
    memset(a, 0, sizeof *a);
    a->mtx.rhs = "random", a->mtx.tol = LOOP_DEFAULT_TOL, a->mtx.maxit = LOOP_DEFAULT_MAXIT, a->mtx.repeat = 1;
    a->steps = LOOP_DEFAULT_STEPS, a->eps = LOOP_DEFAULT_EPS;
    for (int i = 1; i + 1 < argc; i++) {
        if (!strcmp(argv[i], "-steps")) {
            if (ovk_bench_long(argv[++i], 1, 100000, &a->steps)) return "-steps wants 1..100000";
        } else if (!strcmp(argv[i], "-eps")) {
            if (ovk_bench_double(argv[++i], &a->eps) || !(a->eps >= 0.0 && a->eps < 0.5)) return "-eps wants 0..0.5";
        } else if (peer_mtx_flag(argv[i], argv[i + 1], &a->mtx)) {
            i++;
        }
    }
    return peer_mtx_check(&a->mtx);
}

/* This rank's rows of the file in an AIJ matrix, preallocated exactly. */
static PetscErrorCode build_matrix(const peer_mtx *m, Mat *A)
{
    PetscInt lo = (PetscInt)m->lo, hi = (PetscInt)m->hi, nl = hi - lo, *dnnz, *onnz;
    PetscFunctionBeginUser;
    PetscCall(PetscCalloc2(nl, &dnnz, nl, &onnz));
    for (PetscInt r = 0; r < nl; r++)
        for (long long p = m->rowptr[r]; p < m->rowptr[r + 1]; p++) {
            if (m->col[p] >= lo && m->col[p] < hi) dnnz[r]++;
            else onnz[r]++;
        }
    PetscCall(MatCreateAIJ(PETSC_COMM_WORLD, nl, nl, (PetscInt)m->n, (PetscInt)m->n, 0, dnnz, 0, onnz, A));
    PetscCall(PetscFree2(dnnz, onnz));
    for (PetscInt r = 0; r < nl; r++) {
        PetscInt row = lo + r;
        for (long long p = m->rowptr[r]; p < m->rowptr[r + 1]; p++) {
            PetscInt c = (PetscInt)m->col[p];
            PetscCall(MatSetValues(*A, 1, &row, 1, &c, &m->val[p], ADD_VALUES));
        }
    }
    PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
    PetscFunctionReturn(0);
}

/* A = D_s A0 D_s */
static PetscErrorCode step_values(Mat A0, Mat A, Vec d, const loop_args *a, long step)
{
    PetscInt lo, hi, n;
    PetscScalar *v;
    PetscFunctionBeginUser;
    PetscCall(VecGetOwnershipRange(d, &lo, &hi));
    PetscCall(VecGetSize(d, &n));
    PetscCall(VecGetArray(d, &v));
    for (PetscInt i = lo; i < hi; i++) v[i - lo] = loop_row_scale(i, n, step, a->eps);
    PetscCall(VecRestoreArray(d, &v));
    PetscCall(MatCopy(A0, A, SAME_NONZERO_PATTERN));
    PetscCall(MatDiagonalScale(A, d, d));
    PetscFunctionReturn(0);
}

static PetscErrorCode run_loop(Mat A0, const loop_args *a, PetscInt lo)
{
    Mat A;
    Vec x, b, d;
    KSP ksp = NULL;
    PC pc;
    PetscInt its, nl, total_its = 0;
    PetscReal rnorm, bnorm;
    PetscScalar *v;
    double t_update = 0.0, t_setup = 0.0, t_solve = 0.0;
    PetscFunctionBeginUser;
    PetscCall(MatDuplicate(A0, MAT_COPY_VALUES, &A));
    PetscCall(MatCreateVecs(A, &x, &b));
    PetscCall(VecDuplicate(x, &d));
    PetscCall(VecGetLocalSize(b, &nl));
    PetscCall(VecGetArray(b, &v));
    for (PetscInt i = 0; i < nl; i++) v[i] = peer_random_entry(lo + i);
    PetscCall(VecRestoreArray(b, &v));
    PetscCall(VecNorm(b, NORM_2, &bnorm));
    PetscCall(peer_ksp_cg(A, a->mtx.tol, a->mtx.maxit, &ksp, &pc));
    for (long s = 0; s < a->steps; s++) {
        double t0 = ovk_bench_sync();
        PetscCall(step_values(A0, A, d, a, s));
        double tu = ovk_bench_slowest(MPI_Wtime() - t0);
        PetscCall(KSPSetOperators(ksp, A, A));
        PetscCall(VecSet(x, 0.0));
        t0 = ovk_bench_sync();
        PetscCall(KSPSetUp(ksp));
        double ts = ovk_bench_slowest(MPI_Wtime() - t0);
        t0 = ovk_bench_sync();
        PetscCall(KSPSolve(ksp, b, x));
        double tv = ovk_bench_slowest(MPI_Wtime() - t0);
        PetscCall(KSPGetIterationNumber(ksp, &its));
        PetscCall(PetscPrintf(PETSC_COMM_WORLD, "step %ld: %d iterations, setup %.4f s, solve %.4f s\n", s, (int)its,
                              ts, tv));
        total_its += its, t_update += tu, t_setup += ts, t_solve += tv;
    }
    KSPConvergedReason reason;
    PetscCall(KSPGetConvergedReason(ksp, &reason));
    PetscCall(KSPGetResidualNorm(ksp, &rnorm));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                          "Converged reason = %s (last step)\nIterations = %d\nFinal Relative Residual Norm = %e\n"
                          "Update Time = %.6f s\nSetup Time = %.6f s\nSolve Time = %.6f s\n",
                          KSPConvergedReasons[reason], (int)total_its, (double)(rnorm / bnorm), t_update, t_setup,
                          t_solve));
    PetscCall(KSPDestroy(&ksp));
    PetscCall(MatDestroy(&A));
    PetscCall(VecDestroy(&x));
    PetscCall(VecDestroy(&b));
    PetscCall(VecDestroy(&d));
    PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
    loop_args a;
    peer_mtx m;
    double *xyz = NULL;
    Mat A0;
    PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
    const char *bad = parse(argc, argv, &a);
    PetscCheck(!bad, PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG,
               "%s; usage: petsc_loop -f FILE.mtx [-steps S] [-eps E] [-tol T] [-maxit N] [PETSc options]", bad);
    int failed = peer_mtx_read("petsc_loop", &a.mtx, &m, &xyz);
    PetscCheck(!failed, PETSC_COMM_WORLD, PETSC_ERR_FILE_READ, "cannot read %s", a.mtx.path);
    PetscCall(build_matrix(&m, &A0));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "Matrix = %s: %lld rows; %ld steps, eps %g\n", a.mtx.path, m.n, a.steps,
                          a.eps));
    PetscCall(run_loop(A0, &a, (PetscInt)m.lo));
    peer_mtx_free(&m);
    free(xyz);
    PetscCall(MatDestroy(&A0));
    PetscCall(PetscFinalize());
    return 0;
}

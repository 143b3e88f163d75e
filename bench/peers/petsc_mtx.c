/* Peer benchmark: PETSc KSPCG (or -ksp_type ...) on a Matrix Market file
 * with any PC of the command line, as a PETSc user runs it: Jacobi by
 * default (as ovk_mtx_solve runs ours), or -pc_type bjacobi -sub_pc_type icc
 * | sor | gamg | hypre -pc_hypre_type boomeramg, with their sub-options
 * (KSPSetFromOptions, which calls PCSetFromOptions, comes after the
 * defaults).  A `general` (nonsymmetric) file with -ksp_type gmres | bcgs |
 * pgmres | pipebcgs: the unpreconditioned norm makes PETSc precondition on
 * the right, as ours do (-pc_type bjacobi: ILU(0) per rank, PETSc's default
 * sub-PC).
 *
 *   mpiexec -n 2 petsc_mtx -f FILE.mtx [-tol T] [-maxit N] [-repeat R]
 *                          [-rhs Aones|random] [-bs N] [-coords FILE.xyz] [-nrhs K] [PETSc options]
 *
 *   -nrhs K       then KSPMatSolve on K random right-hand sides (mat_solve)
 *
 *   -rhs Aones    b = A * 1 (default: what compare_peers.sh and precond_bench.sh
 *                 compare with ovk_mtx_solve)
 *   -rhs random   b_i = SplitMix64 of the global row i, uniform in [-1, 1)
 *                 (peer_random_entry in peer_common.h, the same b as ours)
 *   -bs N         MatSetBlockSize N (N divides the rows; the rows are split
 *                 on nodes of N rows), e.g. 3 for bench/fe_gen.py elasticity
 *   -coords F     node coordinates (bench/fe_gen.py's NAME.xyz; implies -bs 3):
 *                 MatNullSpaceCreateRigidBody + MatSetNearNullSpace (GAMG's
 *                 and PCHYPRE's -pc_hypre_boomeramg_vec_interp_variant use it)
 *                 and PCSetCoordinates (GAMG)
 *
 * Rows split in contiguous blocks (rank r owns the nodes [r M / P, (r+1) M / P)
 * of M = N / bs, see peer_common.h), x0 = 0, the KSP stops when
 * ||r||_2 < tol ||b||_2 (unpreconditioned norm, as hypre's two-norm test).
 * Every repeat builds a new KSP: setup (KSPSetUp, which runs PCSetUp, and
 * KSPSetUpOnBlocks, which factors bjacobi's blocks -- KSPSolve would
 * otherwise do it) and solve (KSPSolve) are timed apart, max over ranks,
 * median over R repeats.
 * Note that some PCs leave part of their setup to the first application
 * (e.g. Chebyshev smoothers estimate eigenvalues in their first solve): it
 * then counts in the solve time, as a user sees it.
 *
 * Prints Iterations, Final/True Relative Residual Norm, Setup Time, Solve
 * Time.  The matrix is stored with exact preallocation (MatXAIJSetPreallocation),
 * any -mat_type (aij, baij, sbaij: SBAIJ gets only the upper triangle).
 * The flags, the reading of the file, the KSP's set-up, the timing and the
 * lines are peer_common.c's. */
#include <stdlib.h>
#include <string.h>

#include "peer_common.h"

enum { DEFAULT_MAXIT = 10000, COORD_DIM = 3 };
#define DEFAULT_TOL 1e-8

/* Our flags (PETSc's options are skipped here; KSPSetFromOptions reads them). */
static const char *parse(int argc, char **argv, peer_mtx_args *a)
{
    memset(a, 0, sizeof *a);
    a->rhs = "Aones", a->tol = DEFAULT_TOL, a->maxit = DEFAULT_MAXIT, a->repeat = 1;
    for (int i = 1; i + 1 < argc; i++)
        if (peer_mtx_flag(argv[i], argv[i + 1], a)) i++;
    return peer_mtx_check(a);
}

/* Preallocation per block row: block columns in the diagonal and the
 * off-diagonal part, all and upper (for SBAIJ). */
static PetscErrorCode preallocate(Mat A, const peer_mtx *m, PetscInt bs)
{
    PetscInt lo = (PetscInt)m->lo, hi = (PetscInt)m->hi, nl = hi - lo, nb = nl / bs, maxrow = 1;
    PetscInt *dnnz, *onnz, *dnnzu, *onnzu, *tmp;
    PetscFunctionBeginUser;
    for (PetscInt r = 0; r < nl; r++) maxrow = PetscMax(maxrow, (PetscInt)(m->rowptr[r + 1] - m->rowptr[r]));
    PetscCall(PetscCalloc4(nb, &dnnz, nb, &onnz, nb, &dnnzu, nb, &onnzu));
    PetscCall(PetscMalloc1(bs * maxrow, &tmp));
    for (PetscInt ib = 0; ib < nb; ib++) {
        PetscInt k = 0, gI = (lo + ib * bs) / bs;
        for (PetscInt r = ib * bs; r < (ib + 1) * bs; r++)
            for (long long p = m->rowptr[r]; p < m->rowptr[r + 1]; p++) tmp[k++] = (PetscInt)(m->col[p] / bs);
        PetscCall(PetscSortRemoveDupsInt(&k, tmp));
        for (PetscInt t = 0; t < k; t++) {
            int diag = tmp[t] >= lo / bs && tmp[t] < hi / bs;
            if (diag) dnnz[ib]++, dnnzu[ib] += tmp[t] >= gI;
            else onnz[ib]++, onnzu[ib] += tmp[t] >= gI;
        }
    }
    PetscCall(MatXAIJSetPreallocation(A, bs, dnnz, onnz, dnnzu, onnzu));
    PetscCall(PetscFree4(dnnz, onnz, dnnzu, onnzu));
    PetscCall(PetscFree(tmp));
    PetscFunctionReturn(0);
}

/* This rank's rows of the file in A (any -mat_type; SBAIJ: the upper block triangle). */
static PetscErrorCode build_matrix(const peer_mtx *m, PetscInt bs, Mat *A)
{
    PetscInt lo = (PetscInt)m->lo, nl = (PetscInt)(m->hi - m->lo), *cols;
    PetscScalar *vals;
    PetscBool sbaij;
    PetscFunctionBeginUser;
    PetscCall(MatCreate(PETSC_COMM_WORLD, A));
    PetscCall(MatSetSizes(*A, nl, nl, (PetscInt)m->n, (PetscInt)m->n));
    PetscCall(MatSetType(*A, MATAIJ));
    PetscCall(MatSetFromOptions(*A));
    PetscCall(PetscObjectTypeCompareAny((PetscObject)*A, &sbaij, MATSBAIJ, MATSEQSBAIJ, MATMPISBAIJ, ""));
    PetscCall(preallocate(*A, m, bs));
    PetscCall(MatSetOption(*A, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
    if (sbaij) PetscCall(MatSetOption(*A, MAT_IGNORE_LOWER_TRIANGULAR, PETSC_TRUE));
    PetscCall(PetscMalloc2(m->rowptr[nl] + 1, &cols, m->rowptr[nl] + 1, &vals));
    for (PetscInt r = 0; r < nl; r++) {
        PetscInt row = lo + r, k = 0;
        for (long long p = m->rowptr[r]; p < m->rowptr[r + 1]; p++) {
            if (sbaij && m->col[p] / bs < row / bs) continue;
            cols[k] = (PetscInt)m->col[p], vals[k++] = m->val[p];
        }
        PetscCall(MatSetValues(*A, 1, &row, k, cols, vals, INSERT_VALUES));
    }
    PetscCall(PetscFree2(cols, vals));
    PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
    PetscFunctionReturn(0);
}

/* The rigid-body modes of the coordinates as A's near null space (GAMG's
 * and PCHYPRE's -pc_hypre_boomeramg_vec_interp_variant use it). */
static PetscErrorCode near_null_space(Mat A, const double *xyz, PetscInt nl)
{
    Vec vc;
    MatNullSpace nsp;
    PetscScalar *a;
    PetscFunctionBeginUser;
    PetscCall(VecCreateMPI(PETSC_COMM_WORLD, nl, PETSC_DETERMINE, &vc));
    PetscCall(VecSetBlockSize(vc, COORD_DIM));
    PetscCall(VecGetArray(vc, &a));
    for (PetscInt i = 0; i < nl; i++) a[i] = xyz[i];
    PetscCall(VecRestoreArray(vc, &a));
    PetscCall(MatNullSpaceCreateRigidBody(vc, &nsp));
    PetscCall(MatSetNearNullSpace(A, nsp));
    PetscCall(MatNullSpaceDestroy(&nsp));
    PetscCall(VecDestroy(&vc));
    PetscFunctionReturn(0);
}

/* b: random (peer_random_entry of the global row) or A * 1 (w as work) */
static PetscErrorCode right_hand_side(Mat A, int random_rhs, PetscInt lo, Vec b, Vec w)
{
    PetscFunctionBeginUser;
    if (random_rhs) {
        PetscScalar *a;
        PetscInt n;
        PetscCall(VecGetLocalSize(b, &n));
        PetscCall(VecGetArray(b, &a));
        for (PetscInt i = 0; i < n; i++) a[i] = peer_random_entry(lo + i);
        PetscCall(VecRestoreArray(b, &a));
    } else {
        PetscCall(VecSet(w, 1.0));
        PetscCall(MatMult(A, w, b));
    }
    PetscFunctionReturn(0);
}

/* Every repeat a new KSP from x = 0: KSPSetUp (which runs PCSetUp) and
 * KSPSolve timed apart, slowest rank.  The last KSP stays in *ksp. */
static PetscErrorCode solve_repeats(Mat A, const peer_mtx_args *a, const double *xyz, Vec b, Vec x, KSP *ksp,
                                    PC *pc, double *setup_s, double *solve_s)
{
    PetscInt nl;
    PetscFunctionBeginUser;
    PetscCall(VecGetLocalSize(x, &nl));
    for (int k = 0; k < a->repeat; ++k) {
        PetscCall(KSPDestroy(ksp));
        PetscCall(peer_ksp_cg(A, a->tol, a->maxit, ksp, pc));
        if (xyz) /* a no-op for PCs without coordinates */
            PetscCall(PCSetCoordinates(*pc, COORD_DIM, nl / COORD_DIM, (PetscReal *)xyz));
        PetscCall(VecSet(x, 0.0));
        double t0 = ovk_bench_sync();
        PetscCall(KSPSetUp(*ksp));
        PetscCall(KSPSetUpOnBlocks(*ksp)); /* bjacobi: the blocks' factorization, else in KSPSolve */
        setup_s[k] = ovk_bench_slowest(MPI_Wtime() - t0);
        t0 = ovk_bench_sync();
        PetscCall(KSPSolve(*ksp, b, x));
        solve_s[k] = ovk_bench_slowest(MPI_Wtime() - t0);
    }
    PetscFunctionReturn(0);
}

/* -nrhs K (K > 1): KSPMatSolve on K right-hand sides as ovk_many_bench
 * makes them (column j: a hash of the global row and j, in [0, 1)), a new
 * KSP per repeat with its setup untimed; prints `MatSolve Time = T s`
 * (median of the repeats, slowest rank) and the KSP's iterations.  PETSc
 * solves the columns of a KSPCG one after another (KSPMatSolve's
 * fallback for a KSP without a block method). */
static double many_rhs_value(long long row, long long j)
{
    unsigned long long g = (unsigned long long)row * 0x9E3779B97F4A7C15ull + (unsigned long long)j * 0xD1B54A32D192ED03ull;
    g = (g ^ (g >> 30)) * 0xBF58476D1CE4E5B9ull;
    g = (g ^ (g >> 27)) * 0x94D049BB133111EBull;
    return (double)((g ^ (g >> 31)) >> 11) * (1.0 / 9007199254740992.0);
}

static PetscErrorCode mat_solve(Mat A, const peer_mtx_args *a, PetscInt k)
{
    Mat B, X;
    KSP ksp = NULL;
    PC pc;
    PetscInt lo, hi, its = 0;
    PetscScalar *v;
    double *t;
    PetscFunctionBeginUser;
    PetscCall(MatGetOwnershipRange(A, &lo, &hi));
    PetscCall(MatCreateDense(PETSC_COMM_WORLD, hi - lo, PETSC_DECIDE, PETSC_DETERMINE, k, NULL, &B));
    PetscCall(MatDuplicate(B, MAT_DO_NOT_COPY_VALUES, &X));
    PetscCall(MatDenseGetArray(B, &v));
    for (PetscInt j = 0; j < k; j++)
        for (PetscInt i = lo; i < hi; i++) v[(size_t)j * (size_t)(hi - lo) + (size_t)(i - lo)] = many_rhs_value(i, j);
    PetscCall(MatDenseRestoreArray(B, &v));
    PetscCall(PetscMalloc1(a->repeat, &t));
    for (int r = 0; r < a->repeat; r++) {
        PetscCall(KSPDestroy(&ksp));
        PetscCall(peer_ksp_cg(A, a->tol, a->maxit, &ksp, &pc));
        PetscCall(KSPSetUp(ksp));
        PetscCall(MatZeroEntries(X));
        double t0 = ovk_bench_sync();
        PetscCall(KSPMatSolve(ksp, B, X));
        t[r] = ovk_bench_slowest(MPI_Wtime() - t0);
    }
    PetscCall(KSPGetIterationNumber(ksp, &its));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "MatSolve K = %d: last column %d iterations\nMatSolve Time = %.6f s\n",
                          (int)k, (int)its, ovk_bench_median(t, a->repeat)));
    PetscCall(PetscFree(t));
    PetscCall(KSPDestroy(&ksp));
    PetscCall(MatDestroy(&B));
    PetscCall(MatDestroy(&X));
    PetscFunctionReturn(0);
}

/* The Solver, Converged reason, Matrix and Right-hand side lines. */
static PetscErrorCode print_setting(KSP ksp, PC pc, Mat A, const peer_mtx_args *a, PetscInt N, int with_xyz)
{
    KSPType kt;
    PCType pt;
    MatType mt;
    KSPConvergedReason reason;
    char pcname[PEER_TEXT];
    int size;
    PetscFunctionBeginUser;
    MPI_Comm_size(PETSC_COMM_WORLD, &size);
    PetscCall(KSPGetConvergedReason(ksp, &reason));
    PetscCall(KSPGetType(ksp, &kt));
    PetscCall(PCGetType(pc, &pt));
    PetscCall(PetscSNPrintf(pcname, sizeof pcname, "%s", pt));
    if (!strcmp(pt, PCHYPRE)) {
        const char *ht;
        PetscCall(PCHYPREGetType(pc, &ht));
        PetscCall(PetscSNPrintf(pcname, sizeof pcname, "hypre %s", ht));
    }
    PetscCall(MatGetType(A, &mt));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "Solver = PETSc %s + %s\nConverged reason = %s\n", kt, pcname,
                          KSPConvergedReasons[reason]));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "Matrix = %s: %d rows, block size %d, %s, %d ranks\n", a->path, (int)N,
                          a->bs, mt, size));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "Right-hand side = %s%s\n", a->random_rhs ? "random" : "A * 1",
                          with_xyz ? "; rigid-body near null space from the coordinates" : ""));
    PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
    peer_mtx_args a;
    peer_mtx m;
    double *xyz, *ts, *tu;
    Mat A;
    Vec x, b, r;
    KSP ksp = NULL;
    PC pc;
    PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
    const char *bad = parse(argc, argv, &a);
    PetscCheck(!bad, PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG,
               "%s; usage: petsc_mtx -f FILE.mtx [-tol T] [-maxit N] [-repeat R] [-rhs Aones|random] [-bs N] "
               "[-coords FILE.xyz] [PETSc options]", bad);
    int failed = peer_mtx_read("petsc_mtx", &a, &m, &xyz);
    PetscCheck(!failed, PETSC_COMM_WORLD, PETSC_ERR_FILE_READ, "cannot read %s",
               failed == PEER_READ_COORDS ? a.coords : a.path);
    PetscCall(build_matrix(&m, a.bs, &A));
    if (xyz) PetscCall(near_null_space(A, xyz, (PetscInt)(m.hi - m.lo)));
    PetscCall(MatCreateVecs(A, &x, &b));
    PetscCall(VecDuplicate(x, &r));
    PetscCall(right_hand_side(A, a.random_rhs, (PetscInt)m.lo, b, r));
    PetscCall(PetscMalloc2(a.repeat, &ts, a.repeat, &tu));
    PetscCall(solve_repeats(A, &a, xyz, b, x, &ksp, &pc, tu, ts));
    peer_result res = {a.repeat, 0, NULL, NULL, 0.0, 0.0, tu, ts, 0};
    PetscCall(peer_ksp_result(ksp, A, x, b, r, &res));
    PetscCall(print_setting(ksp, pc, A, &a, (PetscInt)m.n, xyz != NULL));
    peer_print_result(&res);
    PetscInt nrhs = 0;
    PetscCall(PetscOptionsGetInt(NULL, NULL, "-nrhs", &nrhs, NULL));
    if (nrhs > 1) PetscCall(mat_solve(A, &a, nrhs));
    PetscCall(PetscFree2(ts, tu));
    peer_mtx_free(&m);
    free(xyz);
    PetscCall(peer_petsc_destroy(&ksp, &A, &x, &b, &r));
    PetscCall(PetscFinalize());
    return 0;
}

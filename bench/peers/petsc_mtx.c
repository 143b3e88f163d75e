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
 *                          [-rhs Aones|random] [-bs N] [-coords FILE.xyz] [-nrhs K]
 *                          [-fields FILE [-schur FILE.mtx]] [PETSc options]
 *
 *   -nrhs K       then KSPMatSolve on K random right-hand sides (mat_solve)
 *   -fields F     field ids, one integer 0 or 1 per row in global row order
 *                 (bench/gen/fe_gen.py stokes's NAME.fields): PCFieldSplitSetIS
 *                 "0" and "1" of this rank's rows (with -pc_type fieldsplit)
 *   -schur F      with -fields: a Matrix Market matrix of the field-1 size
 *                 (NAME.mass.mtx, row k the k-th field-1 row) given as
 *                 PCFieldSplitSetSchurPre(USER, F): the Schur complement's
 *                 preconditioner is built from it
 *
 *   -rhs Aones    b = A * 1 (default: what compare_peers.sh and precond_bench.sh
 *                 compare with ovk_mtx_solve)
 *   -rhs random   b_i = SplitMix64 of the global row i, uniform in [-1, 1)
 *                 (peer_random_entry in peer_common.h, the same b as ours)
 *   -bs N         MatSetBlockSize N (N divides the rows; the rows are split
 *                 on nodes of N rows), e.g. 3 for bench/gen/fe_gen.py elasticity
 *   -coords F     node coordinates (bench/gen/fe_gen.py's NAME.xyz; implies -bs 3):
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
#include <stdio.h>
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

/* -fields: the global rows of field 0 and of field 1 among this rank's
 * [lo, hi); *plo, *phi: this rank's range of the field-1 numbering (the
 * rows of -schur's matrix).  Every rank reads the whole file. */
static PetscErrorCode field_sets(const char *path, PetscInt n, PetscInt lo, PetscInt hi, IS *is0, IS *is1,
                                 PetscInt *plo, PetscInt *phi)
{
    PetscInt *i0, *i1, n0 = 0, n1 = 0, before = 0, k = 0;
    long v = 0;
    int bad = 0;
    PetscFunctionBeginUser;
    FILE *f = fopen(path, "r");
    PetscCheck(f, PETSC_COMM_WORLD, PETSC_ERR_FILE_OPEN, "-fields: cannot open %s", path);
    PetscCall(PetscMalloc2(hi - lo, &i0, hi - lo, &i1));
    for (; k < n && fscanf(f, "%ld", &v) == 1; k++) {
        if (v != 0 && v != 1) bad = 1;
        if (k < lo) before += v == 1;
        else if (k < hi) {
            if (v == 1) i1[n1++] = k;
            else i0[n0++] = k;
        }
    }
    if (k == n && fscanf(f, "%ld", &v) == 1) bad = 1; /* more ids than rows */
    fclose(f);
    PetscCheck(k == n && !bad, PETSC_COMM_WORLD, PETSC_ERR_FILE_UNEXPECTED,
               "-fields %s: %d ids read for %d rows, or an id other than 0 and 1, or more ids than rows", path, (int)k,
               (int)n);
    PetscCall(ISCreateGeneral(PETSC_COMM_WORLD, n0, i0, PETSC_COPY_VALUES, is0));
    PetscCall(ISCreateGeneral(PETSC_COMM_WORLD, n1, i1, PETSC_COPY_VALUES, is1));
    PetscCall(PetscFree2(i0, i1));
    *plo = before, *phi = before + n1;
    PetscFunctionReturn(0);
}

/* -schur: this rank's rows [plo, phi) of a Matrix Market file (coordinate,
 * real, general or symmetric) as an AIJ matrix of that row split.  Every rank
 * reads the whole file (a field-1-sized matrix, small). */
static PetscErrorCode schur_matrix(const char *path, PetscInt plo, PetscInt phi, Mat *S)
{
    char line[PEER_TEXT];
    long long nr = 0, nc = 0, nz = 0, i, j;
    double v;
    PetscFunctionBeginUser;
    FILE *f = fopen(path, "r");
    PetscCheck(f, PETSC_COMM_WORLD, PETSC_ERR_FILE_OPEN, "-schur: cannot open %s", path);
    int ok = fgets(line, sizeof line, f) != NULL && !strncmp(line, "%%MatrixMarket matrix coordinate real", 37);
    int sym = ok && strstr(line, "symmetric") != NULL;
    while (ok && fgets(line, sizeof line, f) && line[0] == '%') continue;
    ok = ok && sscanf(line, "%lld %lld %lld", &nr, &nc, &nz) == 3 && nr == nc;
    PetscCall(MatCreateAIJ(PETSC_COMM_WORLD, phi - plo, phi - plo, PETSC_DETERMINE, PETSC_DETERMINE, 30, NULL, 30, NULL,
                           S));
    PetscCall(MatSetOption(*S, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
    PetscInt N;
    PetscCall(MatGetSize(*S, &N, NULL));
    ok = ok && nr == N;
    for (long long k = 0; ok && k < nz; k++) {
        if (fscanf(f, "%lld %lld %lg", &i, &j, &v) != 3 || i < 1 || j < 1 || i > nr || j > nr) {
            ok = 0;
            break;
        }
        PetscInt r = (PetscInt)(i - 1), c = (PetscInt)(j - 1);
        if (r >= plo && r < phi) PetscCall(MatSetValue(*S, r, c, v, ADD_VALUES));
        if (sym && r != c && c >= plo && c < phi) PetscCall(MatSetValue(*S, c, r, v, ADD_VALUES));
    }
    fclose(f);
    PetscCheck(ok, PETSC_COMM_WORLD, PETSC_ERR_FILE_UNEXPECTED,
               "-schur %s: not a real coordinate Matrix Market file of %d rows (the field-1 rows)", path, (int)N);
    PetscCall(MatAssemblyBegin(*S, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(*S, MAT_FINAL_ASSEMBLY));
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

/* -fields and -schur: the index sets of the two fields and the Schur
 * complement's preconditioning matrix (NULL: not given). */
typedef struct splits {
    IS is0, is1;
    Mat schur;
} splits;

/* Every repeat a new KSP from x = 0: KSPSetUp (which runs PCSetUp) and
 * KSPSolve timed apart, slowest rank.  The last KSP stays in *ksp. */
static PetscErrorCode solve_repeats(Mat A, const peer_mtx_args *a, const double *xyz, const splits *fs, Vec b, Vec x,
                                    KSP *ksp, PC *pc, double *setup_s, double *solve_s)
{
    PetscInt nl;
    PetscFunctionBeginUser;
    PetscCall(VecGetLocalSize(x, &nl));
    for (int k = 0; k < a->repeat; ++k) {
        PetscCall(KSPDestroy(ksp));
        PetscCall(peer_ksp_cg(A, a->tol, a->maxit, ksp, pc));
        if (xyz) /* a no-op for PCs without coordinates */
            PetscCall(PCSetCoordinates(*pc, COORD_DIM, nl / COORD_DIM, (PetscReal *)xyz));
        if (fs->is0) { /* no-ops unless -pc_type fieldsplit */
            PetscCall(PCFieldSplitSetIS(*pc, "0", fs->is0));
            PetscCall(PCFieldSplitSetIS(*pc, "1", fs->is1));
        }
        if (fs->schur) PetscCall(PCFieldSplitSetSchurPre(*pc, PC_FIELDSPLIT_SCHUR_PRE_USER, fs->schur));
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
               "[-coords FILE.xyz] [-fields FILE [-schur FILE.mtx]] [PETSc options]", bad);
    int failed = peer_mtx_read("petsc_mtx", &a, &m, &xyz);
    PetscCheck(!failed, PETSC_COMM_WORLD, PETSC_ERR_FILE_READ, "cannot read %s",
               failed == PEER_READ_COORDS ? a.coords : a.path);
    PetscCall(build_matrix(&m, a.bs, &A));
    if (xyz) PetscCall(near_null_space(A, xyz, (PetscInt)(m.hi - m.lo)));
    PetscCall(MatCreateVecs(A, &x, &b));
    PetscCall(VecDuplicate(x, &r));
    PetscCall(right_hand_side(A, a.random_rhs, (PetscInt)m.lo, b, r));
    splits fs = {NULL, NULL, NULL};
    char fpath[PETSC_MAX_PATH_LEN], spath[PETSC_MAX_PATH_LEN];
    PetscBool has_fields, has_schur;
    PetscCall(PetscOptionsGetString(NULL, NULL, "-fields", fpath, sizeof fpath, &has_fields));
    PetscCall(PetscOptionsGetString(NULL, NULL, "-schur", spath, sizeof spath, &has_schur));
    PetscCheck(!has_schur || has_fields, PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "-schur needs -fields");
    if (has_fields) {
        PetscInt plo = 0, phi = 0;
        PetscCall(field_sets(fpath, (PetscInt)m.n, (PetscInt)m.lo, (PetscInt)m.hi, &fs.is0, &fs.is1, &plo, &phi));
        if (has_schur) PetscCall(schur_matrix(spath, plo, phi, &fs.schur));
    }
    PetscCall(PetscMalloc2(a.repeat, &ts, a.repeat, &tu));
    PetscCall(solve_repeats(A, &a, xyz, &fs, b, x, &ksp, &pc, tu, ts));
    peer_result res = {a.repeat, 0, NULL, NULL, 0.0, 0.0, tu, ts, 0};
    PetscCall(peer_ksp_result(ksp, A, x, b, r, &res));
    PetscCall(print_setting(ksp, pc, A, &a, (PetscInt)m.n, xyz != NULL));
    peer_print_result(&res);
    PetscInt nrhs = 0;
    PetscCall(PetscOptionsGetInt(NULL, NULL, "-nrhs", &nrhs, NULL));
    if (nrhs > 1) PetscCall(mat_solve(A, &a, nrhs));
    PetscCall(PetscFree2(ts, tu));
    PetscCall(ISDestroy(&fs.is0));
    PetscCall(ISDestroy(&fs.is1));
    PetscCall(MatDestroy(&fs.schur));
    peer_mtx_free(&m);
    free(xyz);
    PetscCall(peer_petsc_destroy(&ksp, &A, &x, &b, &r));
    PetscCall(PetscFinalize());
    return 0;
}

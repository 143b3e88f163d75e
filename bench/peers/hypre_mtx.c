/* Peer benchmark: hypre's own PCG with BoomerAMG as the preconditioner on a
 * Matrix Market file, as a hypre user runs it (what hypre's `ij -fromfile
 * ... -solver 1` does): HYPRE_ParCSRPCG, two-norm, rel_change 0, and
 * HYPRE_BoomerAMG with tol 0, max_iter 1 (one V-cycle per application) and
 * hypre's defaults for everything the flags below do not set.
 *
 *   mpiexec -n 2 hypre_mtx -f FILE.mtx [-tol T] [-maxit N] [-repeat R]
 *                          [-rhs random|Aones] [-bs N] [-coords FILE.xyz] [AMG flags]
 *
 *   -rhs random   b_i = SplitMix64 of the global row i, uniform in [-1, 1)
 *                 (default; mtx_random_entry in mtx_local.h, the same b as
 *                 ours and petsc_mtx -rhs random); -rhs Aones: b = A * 1
 *   -bs N         HYPRE_BoomerAMGSetNumFunctions N (unknowns interleaved by
 *                 node; the rows are split on nodes of N rows)
 *   -coords F     node coordinates (bench/fe_gen.py's NAME.xyz; implies -bs 3):
 *                 the 3 rotational rigid-body modes as interpolation vectors
 *                 (HYPRE_BoomerAMGSetInterpVectors, HYPRE_BoomerAMGSetInterpVecVariant
 *                 -vecvar, default 2 = GM-2) with nodal coarsening (-nodal,
 *                 default 4 with -coords); the translations are carried by
 *                 the unknown approach (num_functions 3)
 *   AMG flags (default: hypre's own, unset):
 *   -strong T     HYPRE_BoomerAMGSetStrongThreshold (hypre: 0.25)
 *   -coarsen C    hmis | pmis | falgout | a number (SetCoarsenType; hypre: 10 = HMIS)
 *   -interp N     SetInterpType (hypre: 6 = ext+i)
 *   -pmax N       SetPMaxElmts (hypre: 4)
 *   -agg N        SetAggNumLevels, levels of aggressive coarsening (hypre: 0)
 *   -relax N      SetRelaxType, all sweeps (hypre: 13/14, l1-Gauss-Seidel
 *                 forward down / backward up, Gaussian elimination on the coarsest)
 *   -nodal N      SetNodal (hypre: 0; N = 1..6 the block norm of nodal coarsening)
 *   -nodal_diag N SetNodalDiag (hypre: 0)
 *   -vecvar N     SetInterpVecVariant with -coords (1 GM-1, 2 GM-2, 3 LN; default 2)
 *   -qmax N       SetInterpVecQMax with -coords (hypre: no truncation)
 *   -smoothvec N  SetSmoothInterpVectors with -coords (hypre: 0)
 *   -keepsame N   SetKeepSameSign (hypre: 0)
 *   -print N      SetPrintLevel of BoomerAMG (1: the setup statistics, with
 *                 the grid and operator complexities)
 *
 * Rows split in contiguous blocks (rank r owns the nodes [r M / P, (r+1) M / P)
 * of M = N / bs, see mtx_local.h), x0 = 0, stop when ||r||_2 < tol ||b||_2.
 * Every repeat creates BoomerAMG and PCG anew: Setup Time = HYPRE_ParCSRPCGSetup
 * (which runs HYPRE_BoomerAMGSetup), Solve Time = HYPRE_ParCSRPCGSolve, each
 * max over ranks, median over R repeats.
 *
 * Output on rank 0: Iterations = N, Final Relative Residual Norm = R (hypre's
 * recursive one), True Relative Residual Norm = R (||b - A x|| / ||b||),
 * Setup Time = T s, Solve Time = T s.
 * Run with OMP_NUM_THREADS=1 (Debian's libHYPRE is linked against libgomp).
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "HYPRE.h"
#include "HYPRE_IJ_mv.h"
#include "HYPRE_parcsr_ls.h"
#include "mtx_local.h"

/* in hypre's library, declared only in its internal header */
HYPRE_Int HYPRE_BoomerAMGSetSmoothInterpVectors(HYPRE_Solver solver, HYPRE_Int smooth_interp_vectors);

static void usage_abort(int rank, const char *msg)
{
    if (rank == 0) {
        if (msg) fprintf(stderr, "hypre_mtx: %s\n", msg);
        fprintf(stderr,
                "usage: hypre_mtx -f FILE.mtx [-tol T] [-maxit N] [-repeat R] [-rhs random|Aones] [-bs N]\n"
                "       [-coords FILE.xyz] [-strong T] [-coarsen hmis|pmis|falgout|N] [-interp N] [-pmax N]\n"
                "       [-agg N] [-relax N] [-nodal N] [-nodal_diag N] [-vecvar N] [-qmax N] [-smoothvec N]\n"
                "       [-keepsame N] [-print N]\n");
    }
    MPI_Abort(MPI_COMM_WORLD, 2);
}

/* an IJ vector on [lo, hi) with VALS (NULL: zero) */
static HYPRE_IJVector ij_vector(long long lo, long long hi, const double *vals, HYPRE_ParVector *par)
{
    HYPRE_IJVector v;
    HYPRE_IJVectorCreate(MPI_COMM_WORLD, (HYPRE_BigInt)lo, (HYPRE_BigInt)hi - 1, &v);
    HYPRE_IJVectorSetObjectType(v, HYPRE_PARCSR);
    HYPRE_IJVectorInitialize(v);
    int n = (int)(hi - lo);
    double *z = NULL;
    if (!vals) vals = z = calloc((size_t)(n ? n : 1), sizeof *z);
    HYPRE_IJVectorSetValues(v, n, NULL, vals);
    HYPRE_IJVectorAssemble(v);
    HYPRE_IJVectorGetObject(v, (void **)par);
    free(z);
    return v;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    const char *path = NULL, *cpath = NULL, *rhs = "random", *coarsen_s = NULL;
    int maxit = 1000, repeat = 1, bs = 0, interp = -1, pmax = -1, agg = -1, relax = -1, nodal = -1,
        nodal_diag = -1, vecvar = 2, qmax = -1, smoothvec = -1, keepsame = -1, print = 0, coarsen = -1;
    double tol = 1e-8, strong = -1;
    for (int i = 1; i < argc; ++i) {
        const char *a = argv[i];
        if (i + 1 >= argc) usage_abort(rank, "bad or incomplete argument");
        const char *v = argv[++i];
        if (!strcmp(a, "-f")) path = v;
        else if (!strcmp(a, "-coords")) cpath = v;
        else if (!strcmp(a, "-rhs")) rhs = v;
        else if (!strcmp(a, "-tol")) tol = atof(v);
        else if (!strcmp(a, "-maxit")) maxit = atoi(v);
        else if (!strcmp(a, "-repeat")) repeat = atoi(v);
        else if (!strcmp(a, "-bs")) bs = atoi(v);
        else if (!strcmp(a, "-strong")) strong = atof(v);
        else if (!strcmp(a, "-coarsen")) coarsen_s = v;
        else if (!strcmp(a, "-interp")) interp = atoi(v);
        else if (!strcmp(a, "-pmax")) pmax = atoi(v);
        else if (!strcmp(a, "-agg")) agg = atoi(v);
        else if (!strcmp(a, "-relax")) relax = atoi(v);
        else if (!strcmp(a, "-nodal")) nodal = atoi(v);
        else if (!strcmp(a, "-nodal_diag")) nodal_diag = atoi(v);
        else if (!strcmp(a, "-vecvar")) vecvar = atoi(v);
        else if (!strcmp(a, "-qmax")) qmax = atoi(v);
        else if (!strcmp(a, "-smoothvec")) smoothvec = atoi(v);
        else if (!strcmp(a, "-keepsame")) keepsame = atoi(v);
        else if (!strcmp(a, "-print")) print = atoi(v);
        else usage_abort(rank, "unknown argument");
    }
    if (!path) usage_abort(rank, "-f FILE.mtx is required");
    if (repeat < 1 || maxit < 0 || !(tol > 0)) usage_abort(rank, "bad -repeat/-maxit/-tol");
    int random_rhs = !strcmp(rhs, "random");
    if (!random_rhs && strcmp(rhs, "Aones")) usage_abort(rank, "-rhs must be random or Aones");
    if (coarsen_s) {
        if (!strcmp(coarsen_s, "hmis")) coarsen = 10;
        else if (!strcmp(coarsen_s, "pmis")) coarsen = 8;
        else if (!strcmp(coarsen_s, "falgout")) coarsen = 6;
        else if (!strcmp(coarsen_s, "cljp")) coarsen = 0;
        else coarsen = atoi(coarsen_s);
    }
    if (cpath && bs == 0) bs = 3;
    if (cpath && bs != 3) usage_abort(rank, "-coords needs -bs 3");
    if (cpath && nodal < 0) nodal = 4;
    if (bs == 0) bs = 1;
    if (bs < 1) usage_abort(rank, "bad -bs");

    mtx_local m;
    char err[256];
    int rc = mtx_read_local(path, bs, rank, size, &m, err, sizeof err), rcmin;
    if (rc) fprintf(stderr, "hypre_mtx: rank %d: %s\n", rank, err);
    MPI_Allreduce(&rc, &rcmin, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (rcmin) MPI_Abort(MPI_COMM_WORLD, 1);
    long long lo = m.lo, hi = m.hi, nl = hi - lo;
    double *xyz = NULL;
    if (cpath) {
        rc = xyz_read_local(cpath, m.n / 3, lo / 3, hi / 3, &xyz, err, sizeof err);
        if (rc) fprintf(stderr, "hypre_mtx: rank %d: %s\n", rank, err);
        MPI_Allreduce(&rc, &rcmin, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
        if (rcmin) MPI_Abort(MPI_COMM_WORLD, 1);
    }

    HYPRE_Init();

    /* the matrix through the IJ interface, all local rows in one call */
    HYPRE_IJMatrix ij_A;
    HYPRE_ParCSRMatrix A;
    HYPRE_IJMatrixCreate(MPI_COMM_WORLD, (HYPRE_BigInt)lo, (HYPRE_BigInt)hi - 1, (HYPRE_BigInt)lo,
                         (HYPRE_BigInt)hi - 1, &ij_A);
    HYPRE_IJMatrixSetObjectType(ij_A, HYPRE_PARCSR);
    HYPRE_Int *dsz = malloc(sizeof *dsz * (size_t)(nl ? nl : 1)), *osz = malloc(sizeof *osz * (size_t)(nl ? nl : 1)),
              *ncols = malloc(sizeof *ncols * (size_t)(nl ? nl : 1));
    HYPRE_BigInt *rows = malloc(sizeof *rows * (size_t)(nl ? nl : 1));
    long long nnz = m.rowptr[nl];
    HYPRE_BigInt *cols = malloc(sizeof *cols * (size_t)(nnz ? nnz : 1));
    for (long long r = 0; r < nl; r++) {
        rows[r] = (HYPRE_BigInt)(lo + r);
        ncols[r] = (HYPRE_Int)(m.rowptr[r + 1] - m.rowptr[r]);
        dsz[r] = osz[r] = 0;
        for (long long p = m.rowptr[r]; p < m.rowptr[r + 1]; p++) {
            cols[p] = (HYPRE_BigInt)m.col[p];
            if (m.col[p] >= lo && m.col[p] < hi) dsz[r]++;
            else osz[r]++;
        }
    }
    HYPRE_IJMatrixSetDiagOffdSizes(ij_A, dsz, osz);
    HYPRE_IJMatrixInitialize(ij_A);
    HYPRE_IJMatrixSetValues(ij_A, (HYPRE_Int)nl, ncols, rows, cols, m.val);
    HYPRE_IJMatrixAssemble(ij_A);
    HYPRE_IJMatrixGetObject(ij_A, (void **)&A);
    free(dsz), free(osz), free(ncols), free(rows), free(cols);
    mtx_local_free(&m);

    /* b (random or A * 1), x, a work vector */
    double *vals = malloc(sizeof *vals * (size_t)(nl ? nl : 1));
    for (long long i = 0; i < nl; i++) vals[i] = random_rhs ? mtx_random_entry(lo + i) : 1.0;
    HYPRE_ParVector b, x, r;
    HYPRE_IJVector ij_b = ij_vector(lo, hi, vals, &b), ij_x = ij_vector(lo, hi, NULL, &x),
                   ij_r = ij_vector(lo, hi, NULL, &r);
    if (!random_rhs) {
        HYPRE_ParVectorCopy(b, r);
        HYPRE_ParCSRMatrixMatvec(1.0, A, r, 0.0, b); /* b = A * 1 */
    }
    HYPRE_Real bnorm2;
    HYPRE_ParVectorInnerProd(b, b, &bnorm2);

    /* the rotational rigid-body modes about the origin: rotation about z
     * (-y, x, 0), about x (0, -z, y), about y (z, 0, -x) */
    HYPRE_IJVector ij_rbm[3];
    HYPRE_ParVector rbm[3];
    if (xyz) {
        for (int k = 0; k < 3; k++) {
            for (long long nd = 0; nd < nl / 3; nd++) {
                double X = xyz[3 * nd], Y = xyz[3 * nd + 1], Z = xyz[3 * nd + 2], *u = vals + 3 * nd;
                if (k == 0) u[0] = -Y, u[1] = X, u[2] = 0;
                if (k == 1) u[0] = 0, u[1] = -Z, u[2] = Y;
                if (k == 2) u[0] = Z, u[1] = 0, u[2] = -X;
            }
            ij_rbm[k] = ij_vector(lo, hi, vals, &rbm[k]);
        }
    }
    free(vals);

    double *tu = malloc(sizeof *tu * (size_t)repeat), *ts = malloc(sizeof *ts * (size_t)repeat);
    HYPRE_Int iters = 0;
    HYPRE_Real relres = 0.0;
    int converged = 0;
    for (int k = 0; k < repeat; ++k) {
        HYPRE_Solver amg, pcg;
        HYPRE_BoomerAMGCreate(&amg);
        HYPRE_BoomerAMGSetTol(amg, 0.0);
        HYPRE_BoomerAMGSetMaxIter(amg, 1);
        HYPRE_BoomerAMGSetPrintLevel(amg, print);
        if (bs > 1) HYPRE_BoomerAMGSetNumFunctions(amg, bs);
        if (strong >= 0) HYPRE_BoomerAMGSetStrongThreshold(amg, strong);
        if (coarsen >= 0) HYPRE_BoomerAMGSetCoarsenType(amg, coarsen);
        if (interp >= 0) HYPRE_BoomerAMGSetInterpType(amg, interp);
        if (pmax >= 0) HYPRE_BoomerAMGSetPMaxElmts(amg, pmax);
        if (agg >= 0) HYPRE_BoomerAMGSetAggNumLevels(amg, agg);
        if (relax >= 0) HYPRE_BoomerAMGSetRelaxType(amg, relax);
        if (nodal >= 0) HYPRE_BoomerAMGSetNodal(amg, nodal);
        if (nodal_diag >= 0) HYPRE_BoomerAMGSetNodalDiag(amg, nodal_diag);
        if (keepsame >= 0) HYPRE_BoomerAMGSetKeepSameSign(amg, keepsame);
        if (xyz) {
            HYPRE_BoomerAMGSetInterpVectors(amg, 3, rbm);
            HYPRE_BoomerAMGSetInterpVecVariant(amg, vecvar);
            if (qmax >= 0) HYPRE_BoomerAMGSetInterpVecQMax(amg, qmax);
            if (smoothvec >= 0) HYPRE_BoomerAMGSetSmoothInterpVectors(amg, smoothvec);
        }
        HYPRE_ParCSRPCGCreate(MPI_COMM_WORLD, &pcg);
        HYPRE_ParCSRPCGSetMaxIter(pcg, maxit);
        HYPRE_ParCSRPCGSetTol(pcg, tol);
        HYPRE_ParCSRPCGSetTwoNorm(pcg, 1);
        HYPRE_ParCSRPCGSetRelChange(pcg, 0);
        HYPRE_ParCSRPCGSetPrintLevel(pcg, 0);
        HYPRE_ParCSRPCGSetLogging(pcg, 1);
        HYPRE_ParCSRPCGSetPrecond(pcg, (HYPRE_PtrToParSolverFcn)HYPRE_BoomerAMGSolve,
                                  (HYPRE_PtrToParSolverFcn)HYPRE_BoomerAMGSetup, amg);
        HYPRE_ParVectorSetConstantValues(x, 0.0);
        double t0, dt;
        MPI_Barrier(MPI_COMM_WORLD);
        t0 = MPI_Wtime();
        HYPRE_ParCSRPCGSetup(pcg, A, b, x);
        dt = MPI_Wtime() - t0;
        MPI_Allreduce(&dt, &tu[k], 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        MPI_Barrier(MPI_COMM_WORLD);
        t0 = MPI_Wtime();
        HYPRE_Int ierr = HYPRE_ParCSRPCGSolve(pcg, A, b, x);
        dt = MPI_Wtime() - t0;
        MPI_Allreduce(&dt, &ts[k], 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        HYPRE_ParCSRPCGGetNumIterations(pcg, &iters);
        HYPRE_ParCSRPCGGetFinalRelativeResidualNorm(pcg, &relres);
        /* hypre flags HYPRE_ERROR_CONV when max_iter is reached; it does not
         * flag a zero or non-finite <p, A p>, so also check the norm. */
        converged = !HYPRE_CheckError(ierr, HYPRE_ERROR_CONV) && relres < tol && relres == relres;
        HYPRE_ClearAllErrors();
        HYPRE_ParCSRPCGDestroy(pcg);
        HYPRE_BoomerAMGDestroy(amg);
    }
    /* true residual of the last solve */
    HYPRE_ParVectorCopy(b, r);
    HYPRE_ParCSRMatrixMatvec(-1.0, A, x, 1.0, r);
    HYPRE_Real rnorm2;
    HYPRE_ParVectorInnerProd(r, r, &rnorm2);

    if (rank == 0) {
        printf("Solver = hypre PCG + BoomerAMG (HYPRE_ParCSRPCG, two-norm; BoomerAMG tol 0, max_iter 1)\n");
        printf("Matrix = %s: %lld rows, block size %d, %d ranks\n", path, m.n, bs, size);
        printf("Right-hand side = %s\n", random_rhs ? "random" : "A * 1");
        printf("AMG settings =");
        if (bs > 1) printf(" num_functions %d", bs);
        if (strong >= 0) printf(" strong %g", strong);
        if (coarsen >= 0) printf(" coarsen %d", coarsen);
        if (interp >= 0) printf(" interp %d", interp);
        if (pmax >= 0) printf(" pmax %d", pmax);
        if (agg >= 0) printf(" agg_num_levels %d", agg);
        if (relax >= 0) printf(" relax %d", relax);
        if (nodal >= 0) printf(" nodal %d", nodal);
        if (nodal_diag >= 0) printf(" nodal_diag %d", nodal_diag);
        if (keepsame >= 0) printf(" keep_same_sign %d", keepsame);
        if (xyz) {
            printf(" interp_vectors 3 (rotations) variant %d", vecvar);
            if (qmax >= 0) printf(" qmax %d", qmax);
            if (smoothvec >= 0) printf(" smooth_interp_vectors %d", smoothvec);
        }
        printf("%s\n", (bs > 1 || strong >= 0 || coarsen >= 0 || interp >= 0 || pmax >= 0 || agg >= 0 ||
                        relax >= 0 || nodal >= 0 || nodal_diag >= 0 || keepsame >= 0 || xyz)
                           ? " (the rest hypre's defaults)"
                           : " hypre's defaults");
        printf("Repeats = %d\n", repeat);
        printf("Converged = %s\n", converged ? "yes" : "no");
        printf("Iterations = %d\n", (int)iters);
        printf("Final Relative Residual Norm = %e\n", (double)relres);
        printf("True Relative Residual Norm = %e\n", bnorm2 > 0 ? sqrt(rnorm2 / bnorm2) : 0.0);
        printf("Setup Time = %.6e s\n", mtx_median(tu, repeat));
        printf("Solve Time = %.6e s\n", mtx_median(ts, repeat));
    }

    free(tu), free(ts), free(xyz);
    if (cpath)
        for (int k = 0; k < 3; k++) HYPRE_IJVectorDestroy(ij_rbm[k]);
    HYPRE_IJVectorDestroy(ij_b);
    HYPRE_IJVectorDestroy(ij_x);
    HYPRE_IJVectorDestroy(ij_r);
    HYPRE_IJMatrixDestroy(ij_A);
    HYPRE_Finalize();
    MPI_Finalize();
    return 0;
}

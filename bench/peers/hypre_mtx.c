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
 *                 (default; peer_random_entry in peer_common.h, the same b as
 *                 ours and petsc_mtx -rhs random); -rhs Aones: b = A * 1
 *   -bs N         HYPRE_BoomerAMGSetNumFunctions N (unknowns interleaved by
 *                 node; the rows are split on nodes of N rows)
 *   -coords F     node coordinates (bench/gen/fe_gen.py's NAME.xyz; implies -bs 3):
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
 * of M = N / bs, see peer_common.h), x0 = 0, stop when ||r||_2 < tol ||b||_2.
 * Every repeat creates BoomerAMG and PCG anew: Setup Time = HYPRE_ParCSRPCGSetup
 * (which runs HYPRE_BoomerAMGSetup), Solve Time = HYPRE_ParCSRPCGSolve, each
 * max over ranks, median over R repeats.
 *
 * Output on rank 0: Iterations = N, Final Relative Residual Norm = R (hypre's
 * recursive one), True Relative Residual Norm = R (||b - A x|| / ||b||),
 * Setup Time = T s, Solve Time = T s.
 * Run with OMP_NUM_THREADS=1 (Debian's libHYPRE is linked against libgomp).
 * The common flags, the reading of the file, the PCG's set-up, the timing
 * and the lines are peer_common.c's.
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "peer_common.h"

/* in hypre's library, declared only in its internal header */
HYPRE_Int HYPRE_BoomerAMGSetSmoothInterpVectors(HYPRE_Solver solver, HYPRE_Int smooth_interp_vectors);

enum { DEFAULT_MAXIT = 1000, RIGID_ROTATIONS = 3, DIM = 3, NODAL_WITH_COORDS = 4, VECVAR_GM2 = 2 };
#define DEFAULT_TOL 1e-8

/* The AMG flags with a whole number, in the order hypre gets and the
 * settings line shows them. */
typedef HYPRE_Int (*amg_setter)(HYPRE_Solver, HYPRE_Int);
static const struct {
    const char *flag, *label;
    amg_setter set;
} amg_ints[] = {
    {"-interp", "interp", HYPRE_BoomerAMGSetInterpType},
    {"-pmax", "pmax", HYPRE_BoomerAMGSetPMaxElmts},
    {"-agg", "agg_num_levels", HYPRE_BoomerAMGSetAggNumLevels},
    {"-relax", "relax", HYPRE_BoomerAMGSetRelaxType},
    {"-nodal", "nodal", HYPRE_BoomerAMGSetNodal},
    {"-nodal_diag", "nodal_diag", HYPRE_BoomerAMGSetNodalDiag},
    {"-keepsame", "keep_same_sign", HYPRE_BoomerAMGSetKeepSameSign},
};
enum { AMG_INTS = (int)(sizeof amg_ints / sizeof amg_ints[0]), A_NODAL = 4 }; /* amg_ints[A_NODAL]: -nodal */
enum { VB, VX, VR, VECTORS }; /* b, x and the residual */

/* The AMG flags; < 0: hypre's default (unset). */
typedef struct amg_opts {
    double strong;
    int coarsen;
    int v[AMG_INTS];
    int vecvar, qmax, smoothvec; /* with -coords */
    int print;
} amg_opts;

static void usage_abort(const char *msg)
{
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        fprintf(stderr, "hypre_mtx: %s\n", msg);
        fprintf(stderr,
                "usage: hypre_mtx -f FILE.mtx [-tol T] [-maxit N] [-repeat R] [-rhs random|Aones] [-bs N]\n"
                "       [-coords FILE.xyz] [-strong T] [-coarsen hmis|pmis|falgout|N] [-interp N] [-pmax N]\n"
                "       [-agg N] [-relax N] [-nodal N] [-nodal_diag N] [-vecvar N] [-qmax N] [-smoothvec N]\n"
                "       [-keepsame N] [-print N]\n");
    }
    MPI_Abort(MPI_COMM_WORLD, PEER_EXIT_USAGE);
}

/* hypre's coarsening numbers by name; else the number itself */
static int coarsen_type(const char *s)
{
    static const struct {
        const char *name;
        int type;
    } names[] = {{"hmis", 10}, {"pmis", 8}, {"falgout", 6}, {"cljp", 0}};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (!strcmp(s, names[i].name)) return names[i].type;
    return atoi(s);
}

/* 0 when flag is an AMG flag (value stored), else -1 */
static int amg_flag(const char *flag, const char *v, amg_opts *o)
{
    for (int k = 0; k < AMG_INTS; k++)
        if (!strcmp(flag, amg_ints[k].flag)) {
            o->v[k] = atoi(v);
            return 0;
        }
    if (!strcmp(flag, "-strong")) o->strong = atof(v);
    else if (!strcmp(flag, "-coarsen")) o->coarsen = coarsen_type(v);
    else if (!strcmp(flag, "-vecvar")) o->vecvar = atoi(v);
    else if (!strcmp(flag, "-qmax")) o->qmax = atoi(v);
    else if (!strcmp(flag, "-smoothvec")) o->smoothvec = atoi(v);
    else if (!strcmp(flag, "-print")) o->print = atoi(v);
    else return -1;
    return 0;
}

/* The flags, in pairs; aborts (exit 2) on a bad one. */
static void parse(int argc, char **argv, peer_mtx_args *a, amg_opts *o)
{
    memset(a, 0, sizeof *a);
    a->rhs = "random", a->tol = DEFAULT_TOL, a->maxit = DEFAULT_MAXIT, a->repeat = 1;
    *o = (amg_opts){-1.0, -1, {0}, VECVAR_GM2, -1, -1, 0};
    for (int k = 0; k < AMG_INTS; k++) o->v[k] = -1;
    for (int i = 1; i < argc; i += 2) {
        if (i + 1 >= argc) usage_abort("bad or incomplete argument");
        if (!peer_mtx_flag(argv[i], argv[i + 1], a) && amg_flag(argv[i], argv[i + 1], o))
            usage_abort("unknown argument");
    }
    const char *bad = peer_mtx_check(a);
    if (bad) usage_abort(bad);
    if (a->coords && o->v[A_NODAL] < 0) o->v[A_NODAL] = NODAL_WITH_COORDS;
}

/* The matrix through the IJ interface, all local rows in one call. */
static HYPRE_IJMatrix ij_matrix(const peer_mtx *m, HYPRE_ParCSRMatrix *A)
{
    long long lo = m->lo, hi = m->hi, nl = hi - lo, nnz = m->rowptr[nl];
    size_t rows = (size_t)(nl ? nl : 1);
    HYPRE_IJMatrix ij;
    HYPRE_Int *dsz = malloc(sizeof *dsz * rows), *osz = malloc(sizeof *osz * rows);
    HYPRE_Int *ncols = malloc(sizeof *ncols * rows);
    HYPRE_BigInt *rowid = malloc(sizeof *rowid * rows), *cols = malloc(sizeof *cols * (size_t)(nnz ? nnz : 1));
    if (!dsz || !osz || !ncols || !rowid || !cols) MPI_Abort(MPI_COMM_WORLD, PEER_EXIT_RUNTIME);
    for (long long r = 0; r < nl; r++) {
        rowid[r] = (HYPRE_BigInt)(lo + r);
        ncols[r] = (HYPRE_Int)(m->rowptr[r + 1] - m->rowptr[r]);
        dsz[r] = osz[r] = 0;
        for (long long p = m->rowptr[r]; p < m->rowptr[r + 1]; p++) {
            cols[p] = (HYPRE_BigInt)m->col[p];
            if (m->col[p] >= lo && m->col[p] < hi) dsz[r]++;
            else osz[r]++;
        }
    }
    HYPRE_IJMatrixCreate(MPI_COMM_WORLD, (HYPRE_BigInt)lo, (HYPRE_BigInt)hi - 1, (HYPRE_BigInt)lo, (HYPRE_BigInt)hi - 1,
                         &ij);
    HYPRE_IJMatrixSetObjectType(ij, HYPRE_PARCSR);
    HYPRE_IJMatrixSetDiagOffdSizes(ij, dsz, osz);
    HYPRE_IJMatrixInitialize(ij);
    HYPRE_IJMatrixSetValues(ij, (HYPRE_Int)nl, ncols, rowid, cols, m->val);
    HYPRE_IJMatrixAssemble(ij);
    HYPRE_IJMatrixGetObject(ij, (void **)A);
    free(dsz), free(osz), free(ncols), free(rowid), free(cols);
    return ij;
}

/* The rotational rigid-body modes about the origin of the nodes xyz:
 * about z (-y, x, 0), about x (0, -z, y), about y (z, 0, -x). */
static void rigid_rotations(const double *xyz, long long lo, long long hi, HYPRE_IJVector ij[RIGID_ROTATIONS],
                            HYPRE_ParVector rbm[RIGID_ROTATIONS])
{
    long long nl = hi - lo;
    double *u = malloc(sizeof *u * (size_t)(nl ? nl : 1));
    if (!u) MPI_Abort(MPI_COMM_WORLD, PEER_EXIT_RUNTIME);
    for (int k = 0; k < RIGID_ROTATIONS; k++) {
        for (long long nd = 0; nd < nl / DIM; nd++) {
            const double *c = xyz + DIM * nd;
            double *e = u + DIM * nd;
            e[0] = k == 0 ? -c[1] : k == 1 ? 0 : c[2];
            e[1] = k == 0 ? c[0] : k == 1 ? -c[2] : 0;
            e[2] = k == 0 ? 0 : k == 1 ? c[1] : -c[0];
        }
        ij[k] = peer_ij_vector(lo, hi, u, &rbm[k]);
    }
    free(u);
}

/* BoomerAMG as a preconditioner: tol 0, one V-cycle, the flags' settings. */
static HYPRE_Solver amg_create(const amg_opts *o, int bs, HYPRE_ParVector *rbm)
{
    HYPRE_Solver amg;
    HYPRE_BoomerAMGCreate(&amg);
    HYPRE_BoomerAMGSetTol(amg, 0.0);
    HYPRE_BoomerAMGSetMaxIter(amg, 1);
    HYPRE_BoomerAMGSetPrintLevel(amg, o->print);
    if (bs > 1) HYPRE_BoomerAMGSetNumFunctions(amg, bs);
    if (o->strong >= 0) HYPRE_BoomerAMGSetStrongThreshold(amg, o->strong);
    if (o->coarsen >= 0) HYPRE_BoomerAMGSetCoarsenType(amg, o->coarsen);
    for (int k = 0; k < AMG_INTS; k++)
        if (o->v[k] >= 0) amg_ints[k].set(amg, o->v[k]);
    if (!rbm) return amg;
    HYPRE_BoomerAMGSetInterpVectors(amg, RIGID_ROTATIONS, rbm);
    HYPRE_BoomerAMGSetInterpVecVariant(amg, o->vecvar);
    if (o->qmax >= 0) HYPRE_BoomerAMGSetInterpVecQMax(amg, o->qmax);
    if (o->smoothvec >= 0) HYPRE_BoomerAMGSetSmoothInterpVectors(amg, o->smoothvec);
    return amg;
}

/* The AMG settings line. */
static void print_amg(const amg_opts *o, int bs, int rbm)
{
    int any = bs > 1 || o->strong >= 0 || o->coarsen >= 0 || rbm;
    printf("AMG settings =");
    if (bs > 1) printf(" num_functions %d", bs);
    if (o->strong >= 0) printf(" strong %g", o->strong);
    if (o->coarsen >= 0) printf(" coarsen %d", o->coarsen);
    for (int k = 0; k < AMG_INTS; k++)
        if (o->v[k] >= 0) printf(" %s %d", amg_ints[k].label, o->v[k]), any = 1;
    if (rbm) {
        printf(" interp_vectors 3 (rotations) variant %d", o->vecvar);
        if (o->qmax >= 0) printf(" qmax %d", o->qmax);
        if (o->smoothvec >= 0) printf(" smooth_interp_vectors %d", o->smoothvec);
    }
    printf("%s\n", any ? " (the rest hypre's defaults)" : " hypre's defaults");
}

/* What the repeats leave. */
typedef struct outcome {
    HYPRE_Int iterations;
    HYPRE_Real relres;
    int converged;
} outcome;

/* Every repeat creates BoomerAMG and PCG anew: HYPRE_ParCSRPCGSetup (which
 * runs HYPRE_BoomerAMGSetup) and HYPRE_ParCSRPCGSolve timed apart. */
static void solve_repeats(const peer_mtx_args *a, const amg_opts *o, HYPRE_ParVector *rbm, HYPRE_ParCSRMatrix A,
                          HYPRE_ParVector b, HYPRE_ParVector x, double *setup_s, double *solve_s, outcome *out)
{
    for (int k = 0; k < a->repeat; ++k) {
        HYPRE_Solver amg = amg_create(o, a->bs, rbm), pcg = peer_hypre_pcg(a->tol, a->maxit);
        HYPRE_ParCSRPCGSetPrecond(pcg, (HYPRE_PtrToParSolverFcn)HYPRE_BoomerAMGSolve,
                                  (HYPRE_PtrToParSolverFcn)HYPRE_BoomerAMGSetup, amg);
        HYPRE_ParVectorSetConstantValues(x, 0.0);
        double t0 = ovk_bench_sync();
        HYPRE_ParCSRPCGSetup(pcg, A, b, x);
        setup_s[k] = ovk_bench_slowest(MPI_Wtime() - t0);
        t0 = ovk_bench_sync();
        HYPRE_Int ierr = HYPRE_ParCSRPCGSolve(pcg, A, b, x);
        solve_s[k] = ovk_bench_slowest(MPI_Wtime() - t0);
        HYPRE_ParCSRPCGGetNumIterations(pcg, &out->iterations);
        HYPRE_ParCSRPCGGetFinalRelativeResidualNorm(pcg, &out->relres);
        out->converged = peer_hypre_converged(ierr, out->relres, a->tol);
        HYPRE_ParCSRPCGDestroy(pcg);
        HYPRE_BoomerAMGDestroy(amg);
    }
}

/* b: random (peer_random_entry of the global row) or A * 1, and x = 0;
 * ||b||^2 */
static double vectors(const peer_mtx_args *a, const peer_mtx *m, HYPRE_ParCSRMatrix A, HYPRE_IJVector ij[VECTORS],
                      HYPRE_ParVector v[VECTORS])
{
    long long nl = m->hi - m->lo;
    double *vals = malloc(sizeof *vals * (size_t)(nl ? nl : 1));
    HYPRE_Real bnorm2 = 0.0;
    if (!vals) MPI_Abort(MPI_COMM_WORLD, PEER_EXIT_RUNTIME);
    for (long long i = 0; i < nl; i++) vals[i] = a->random_rhs ? peer_random_entry(m->lo + i) : 1.0;
    ij[VB] = peer_ij_vector(m->lo, m->hi, vals, &v[VB]);
    ij[VX] = peer_ij_vector(m->lo, m->hi, NULL, &v[VX]);
    ij[VR] = peer_ij_vector(m->lo, m->hi, NULL, &v[VR]);
    free(vals);
    if (!a->random_rhs) {
        HYPRE_ParVectorCopy(v[VB], v[VR]);
        HYPRE_ParCSRMatrixMatvec(1.0, A, v[VR], 0.0, v[VB]); /* b = A * 1 */
    }
    HYPRE_ParVectorInnerProd(v[VB], v[VB], &bnorm2);
    return bnorm2;
}

int main(int argc, char **argv)
{
    peer_mtx_args a;
    amg_opts o;
    peer_mtx m;
    double *xyz;
    HYPRE_ParCSRMatrix A;
    HYPRE_ParVector v[VECTORS], rbm[RIGID_ROTATIONS];
    HYPRE_IJVector ij[VECTORS], ij_rbm[RIGID_ROTATIONS];
    HYPRE_Real rnorm2;
    outcome out = {0, 0.0, 0};
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    parse(argc, argv, &a, &o);
    if (peer_mtx_read("hypre_mtx", &a, &m, &xyz)) MPI_Abort(MPI_COMM_WORLD, PEER_EXIT_RUNTIME);
    HYPRE_Init();
    HYPRE_IJMatrix ij_A = ij_matrix(&m, &A);
    double bnorm2 = vectors(&a, &m, A, ij, v);
    if (xyz) rigid_rotations(xyz, m.lo, m.hi, ij_rbm, rbm);
    double *tu = malloc(sizeof *tu * (size_t)a.repeat), *ts = malloc(sizeof *ts * (size_t)a.repeat);
    if (!tu || !ts) MPI_Abort(MPI_COMM_WORLD, PEER_EXIT_RUNTIME);
    solve_repeats(&a, &o, xyz ? rbm : NULL, A, v[VB], v[VX], tu, ts, &out);
    HYPRE_ParVectorCopy(v[VB], v[VR]); /* the true residual of the last solve */
    HYPRE_ParCSRMatrixMatvec(-1.0, A, v[VX], 1.0, v[VR]);
    HYPRE_ParVectorInnerProd(v[VR], v[VR], &rnorm2);
    if (rank == 0) {
        printf("Solver = hypre PCG + BoomerAMG (HYPRE_ParCSRPCG, two-norm; BoomerAMG tol 0, max_iter 1)\n");
        printf("Matrix = %s: %lld rows, block size %d, %d ranks\n", a.path, m.n, a.bs, size);
        printf("Right-hand side = %s\n", a.random_rhs ? "random" : "A * 1");
        print_amg(&o, a.bs, xyz != NULL);
    }
    peer_result res = {a.repeat, (int)out.iterations, "Converged", out.converged ? "yes" : "no", (double)out.relres,
                       bnorm2 > 0 ? sqrt(rnorm2 / bnorm2) : 0.0, tu, ts, 0};
    peer_print_result(&res);
    free(tu), free(ts);
    for (int k = 0; xyz && k < RIGID_ROTATIONS; k++) HYPRE_IJVectorDestroy(ij_rbm[k]);
    for (int k = 0; k < VECTORS; k++) HYPRE_IJVectorDestroy(ij[k]);
    free(xyz);
    peer_mtx_free(&m);
    HYPRE_IJMatrixDestroy(ij_A);
    HYPRE_Finalize();
    MPI_Finalize();
    return 0;
}

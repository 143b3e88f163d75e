/* What the peer programs share: hypre_pcg and petsc_cg (the 27- or 7-point
 * Laplacian of ovk_laplace27's flags), hypre_mtx and petsc_mtx (a Matrix
 * Market file).  Their flags, the driver's lines they print after the
 * solves (Iterations = N, Final Relative Residual Norm = R, Solve Time = T s,
 * ...; bench/peers/compare_peers.sh and bench/amg/amg_bench.py read them), the
 * reading of this rank's rows of a Matrix Market file and of bench/gen/fe_gen.py's
 * coordinates, and the random right-hand side.  The clocks and the median of
 * the repeats are ../bench_common.h's.  The helpers of one library are
 * compiled in for the programs built on it (OVK_PEER_HYPRE, OVK_PEER_PETSC:
 * CMakeLists.txt sets them). */
#ifndef OVK_PEER_COMMON_H
#define OVK_PEER_COMMON_H

#include <stddef.h>

#include "../bench_common.h"

enum { PEER_EXIT_USAGE = 2, PEER_EXIT_RUNTIME = 1, PEER_TEXT = 256, PEER_STENCIL_27 = 27, PEER_STENCIL_7 = 7 };

/* ---- the Laplacian peers --------------------------------------------------- */

typedef struct peer_grid {
    int n[3];     /* -n: the box of every rank (default 10 10 10) */
    int P[3];     /* -P: the processor grid (default MPI_Dims_create) */
    int stencil;  /* -stencil 27|7 */
    int maxit, repeat;
    double tol;
    int rank, nranks;
    int at[3];    /* this rank's place in the processor grid: rank % px, ... */
    long long g[3]; /* the global grid, n[d] P[d] */
} peer_grid;

/* -n nx ny nz, -P px py pz, -stencil, -tol, -maxit, -repeat; any other
 * argument is an error when strict, else skipped (PETSc's options).  NULL,
 * or the message of the first bad flag or value. */
const char *peer_grid_parse(int argc, char **argv, int strict, peer_grid *g);

/* The diagonal as hypre's ij sets it (off-diagonals -1): 27-point: 26, 8
 * if one global dimension is 1, 2 if two are; 7-point: 2 per global
 * dimension > 1. */
double peer_grid_diagonal(const peer_grid *g);

/* Rank 0: the Stencil, Ranks, Local grid and Global grid lines. */
void peer_grid_print(const peer_grid *g);

/* ---- the Matrix Market peers ------------------------------------------------ */

typedef struct peer_mtx_args {
    const char *path;   /* -f FILE.mtx */
    const char *coords; /* -coords FILE.xyz (bench/gen/fe_gen.py), or NULL */
    const char *rhs;    /* -rhs random|Aones */
    double tol;
    int maxit, repeat;
    int bs;             /* -bs: rows per node (0: not given) */
    int random_rhs;     /* set by peer_mtx_check */
} peer_mtx_args;

/* When flag is one of -f, -coords, -rhs, -tol, -maxit, -repeat, -bs: its
 * value stored, 1; else 0. */
int peer_mtx_flag(const char *flag, const char *value, peer_mtx_args *a);

/* What the flags left (bs: 3 with -coords, else 1) and their checks:
 * NULL, or the message. */
const char *peer_mtx_check(peer_mtx_args *a);

/* This rank's rows [lo, hi) of an N x N matrix in CSR with global column
 * indices, sorted within each row, duplicates summed.  Row split: rank r of
 * P owns the nodes [M r / P, M (r+1) / P) of M = N / bs, i.e. for bs = 1
 * the balanced contiguous split of our ovk_mtx_solve. */
typedef struct peer_mtx {
    long long n, lo, hi;
    long long *rowptr; /* hi - lo + 1 */
    long long *col;
    double *val;
} peer_mtx;

enum { PEER_READ_OK, PEER_READ_MATRIX, PEER_READ_COORDS };

/* Collective: this rank's rows of a->path and, with -coords, the
 * coordinates of its nodes (xyz, 3 per node, interleaved).  Every rank's
 * problem is printed ("PROG: rank R: ..."); returns what failed on some
 * rank (the same on every rank). */
int peer_mtx_read(const char *prog, const peer_mtx_args *a, peer_mtx *m, double **xyz);
void peer_mtx_free(peer_mtx *m);

/* b_i of -rhs random for global row i: SplitMix64 of i, uniform in [-1, 1)
 * (the same function as ours, so that every program solves the same system
 * at every rank count). */
double peer_random_entry(long long i);

/* ---- the driver's lines ---------------------------------------------------- */

/* What a peer prints after its repeats (rank 0), in this order: Repeats,
 * the convergence line, Iterations, Final Relative Residual Norm, True
 * Relative Residual Norm, Setup Time, Solve Time (medians over the
 * repeats), Time per Iteration. */
typedef struct peer_result {
    int repeat, iterations;
    const char *converged_key;   /* "Converged" or "Converged reason"; NULL: no line */
    const char *converged;
    double final_rel;            /* the solver's own (recursive) residual norm / ||b|| */
    double true_rel;             /* ||b - A x|| / ||b||; < 0: no line */
    double *setup_s, *solve_s;   /* [repeat], slowest rank (sorted here); setup NULL: no line */
    int per_iteration;           /* the Time per Iteration line */
} peer_result;

void peer_print_result(peer_result *r);

/* ---- the libraries' helpers ----------------------------------------------- */

#ifdef OVK_PEER_HYPRE
#include <HYPRE.h>
#include <HYPRE_IJ_mv.h>
#include <HYPRE_parcsr_ls.h>

/* An IJ vector on the rows [lo, hi) with vals (NULL: zero). */
HYPRE_IJVector peer_ij_vector(long long lo, long long hi, const double *vals, HYPRE_ParVector *par);

/* hypre's PCG as ij runs it: two-norm (||r|| / ||b||), rel_change 0,
 * logging 1, no printing, tol and maxit; the caller sets the preconditioner. */
HYPRE_Solver peer_hypre_pcg(double tol, int maxit);

/* After HYPRE_ParCSRPCGSolve returned ierr: converged?  hypre flags
 * HYPRE_ERROR_CONV when max_iter is reached; it does not flag a zero or
 * non-finite <p, A p>, so the norm is checked too.  Clears the errors. */
int peer_hypre_converged(HYPRE_Int ierr, double relres, double tol);
#endif

#ifdef OVK_PEER_PETSC
#include <petscksp.h>

/* KSPCG + PCJACOBI on A, stopping when ||r_k||_2 < tol ||b||_2 as hypre's
 * two-norm test (the unpreconditioned norm, x0 = 0, abstol 0), then the
 * command line's options (KSPSetFromOptions: -ksp_type, -pc_type, ...).
 * The preconditioner's side is left to PETSc, which takes one that supports
 * the unpreconditioned norm: left for CG, right for GMRES, BCGS, PGMRES,
 * PIPEBCGS. */
PetscErrorCode peer_ksp_cg(Mat A, double tol, int maxit, KSP *ksp, PC *pc);

/* The figures of the last solve: its iterations, KSP's own residual norm
 * and ||b - A x|| (r as work), each over ||b||. */
PetscErrorCode peer_ksp_result(KSP ksp, Mat A, Vec x, Vec b, Vec r, peer_result *res);

/* Destroy the KSP, the matrix and the vectors x, b, r. */
PetscErrorCode peer_petsc_destroy(KSP *ksp, Mat *A, Vec *x, Vec *b, Vec *r);
#endif

#endif

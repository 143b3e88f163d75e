/* Peer benchmark: PETSc KSPCG + PCJACOBI (or -pc_type ...) on the 27-point (or 7-point)
 * Laplacian of hypre's GenerateLaplacian27pt / GenerateLaplacian.
 *
 * Flags as our driver ovk_laplace27 and hypre_pcg.c:
 *   -n nx ny nz      box PER PROCESS (default 10 10 10); global grid (nx*px) x ...
 *   -P px py pz      processor grid (default MPI_Dims_create, balanced)
 *   -stencil 27|7    (default 27)
 *   -tol t           relative tolerance (default 1e-8)
 *   -maxit m         (default 1000)
 *   -repeat R        solve R times, report the median (default 1)
 * Every other option goes to PETSc (KSPSetFromOptions / MatSetFromOptions),
 * e.g. -ksp_type pipecg, -ksp_type groppcg, -ksp_monitor, -log_view.
 *
 * The matrix: MATAIJ (MATMPIAIJ on more than one rank, -mat_type overrides;
 * -mat_type sbaij stores the upper triangle, as ovkrylov does for a
 * symmetric local block).
 * Rank r sits at grid coordinates (r % px, (r/px) % py, r/(px*py)) and owns
 * the rows of its nx*ny*nz box, numbered contiguously, x fastest, rank by
 * rank -- exactly the numbering of hypre's GenerateLaplacian27pt with
 * P = px, Q = py, R = pz and of ovk_laplace_create, so all three solvers see
 * the same permutation of the same matrix.  Values as hypre's ij sets them:
 *   27-point: diagonal 26 (8 if one global dim is 1, 2 if two are), off -1
 *   7-point:  diagonal 2*(#global dims > 1), off -1
 * Dirichlet boundaries (neighbours outside the grid dropped).  b = 1, x0 = 0.
 *
 * Convergence test, made identical to hypre's PCG with two_norm = 1
 * (stop when ||r_k||_2 < tol * ||b||_2, r_k the recursively updated residual):
 *   KSPSetNormType(KSP_NORM_UNPRECONDITIONED): the monitored norm is ||r_k||_2
 *     of the unpreconditioned residual (CG then computes it with one extra
 *     dot product per iteration; hypre does the same with two_norm).
 *   KSPConvergedDefault compares it with rtol * ||r_0||_2; with the zero
 *     initial guess (KSPSetInitialGuessNonzero false, the default) r_0 = b, so
 *     the reference is ||b||_2.  We do NOT call KSPConvergedDefaultSetUIRNorm
 *     (that would use ||B b||, the preconditioned norm).
 *   abstol = 0 (hypre's a_tol default), dtol unused.
 *
 * Output on rank 0:
 *   Iterations = N
 *   Final Relative Residual Norm = R      (KSP's final ||r|| / ||b||)
 *   Solve Time = T s                      (KSPSolve only, KSPSetUp -- which
 *                                          extracts the Jacobi diagonal -- done
 *                                          before; max over ranks, median over
 *                                          repeats)
 *   Time per Iteration = t s              (T / N)
 * The flags, the KSP's set-up, the timing and the lines are peer_common.c's.
 */
#include <stdlib.h>

#include "peer_common.h"

enum { STENCIL_WIDTH = 27 };

/* Global row id of global grid point (X, Y, Z) in the per-rank box numbering. */
static PetscInt gid(PetscInt X, PetscInt Y, PetscInt Z, const peer_grid *g)
{
    const int *n = g->n, *P = g->P;
    PetscInt p = X / n[0], q = Y / n[1], s = Z / n[2];
    PetscInt i = X - p * n[0], j = Y - q * n[1], k = Z - s * n[2];
    PetscInt owner = p + (PetscInt)P[0] * (q + (PetscInt)P[1] * s);
    PetscInt nloc = (PetscInt)n[0] * n[1] * n[2];
    return owner * nloc + i + (PetscInt)n[0] * (j + (PetscInt)n[1] * k);
}

/* Local row r of this rank's box (x fastest): its columns and values
 * (Dirichlet boundaries: neighbours outside the grid dropped); *nd, *no:
 * how many fall in the diagonal and the off-diagonal block.  Returns the count. */
static PetscInt stencil_row(const peer_grid *g, PetscInt r, PetscInt *cols, PetscScalar *vals, PetscInt *nd,
                            PetscInt *no)
{
    const PetscInt nloc = (PetscInt)g->n[0] * g->n[1] * g->n[2], rstart = (PetscInt)g->rank * nloc;
    const PetscInt X = g->at[0] * g->n[0] + r % g->n[0], Y = g->at[1] * g->n[1] + (r / g->n[0]) % g->n[1],
                   Z = g->at[2] * g->n[2] + r / ((PetscInt)g->n[0] * g->n[1]);
    PetscInt nc = 0;
    *nd = *no = 0;
    for (int dz = -1; dz <= 1; ++dz)
        for (int dy = -1; dy <= 1; ++dy)
            for (int dx = -1; dx <= 1; ++dx) {
                const int dist = abs(dx) + abs(dy) + abs(dz);
                const PetscInt XX = X + dx, YY = Y + dy, ZZ = Z + dz;
                if (g->stencil == PEER_STENCIL_7 && dist > 1) continue;
                if (XX < 0 || XX >= g->g[0] || YY < 0 || YY >= g->g[1] || ZZ < 0 || ZZ >= g->g[2]) continue;
                cols[nc] = gid(XX, YY, ZZ, g);
                vals[nc] = dist == 0 ? peer_grid_diagonal(g) : -1.0;
                if (cols[nc] >= rstart && cols[nc] < rstart + nloc) ++*nd;
                else ++*no;
                ++nc;
            }
    return nc;
}

/* MATAIJ (or -mat_type) with exact preallocation; -mat_type sbaij stores
 * the upper triangle (the counts of whole rows bound those of its parts). */
static PetscErrorCode build_matrix(const peer_grid *g, Mat *A)
{
    const PetscInt nloc = (PetscInt)g->n[0] * g->n[1] * g->n[2], rstart = (PetscInt)g->rank * nloc;
    PetscInt *dnnz, *onnz, cols[STENCIL_WIDTH];
    PetscScalar vals[STENCIL_WIDTH];
    PetscBool sym;
    PetscFunctionBeginUser;
    PetscCall(PetscMalloc2(nloc, &dnnz, nloc, &onnz));
    for (PetscInt r = 0; r < nloc; ++r) stencil_row(g, r, cols, vals, &dnnz[r], &onnz[r]);
    PetscCall(MatCreate(PETSC_COMM_WORLD, A));
    PetscCall(MatSetSizes(*A, nloc, nloc, PETSC_DETERMINE, PETSC_DETERMINE));
    PetscCall(MatSetType(*A, MATAIJ));
    PetscCall(MatSetFromOptions(*A));
    PetscCall(MatXAIJSetPreallocation(*A, 1, dnnz, onnz, dnnz, onnz));
    PetscCall(PetscObjectTypeCompareAny((PetscObject)*A, &sym, MATSBAIJ, MATSEQSBAIJ, MATMPISBAIJ, ""));
    if (sym) PetscCall(MatSetOption(*A, MAT_IGNORE_LOWER_TRIANGULAR, PETSC_TRUE));
    for (PetscInt r = 0; r < nloc; ++r) {
        PetscInt nd, no, row = rstart + r, nc = stencil_row(g, r, cols, vals, &nd, &no);
        PetscCall(MatSetValues(*A, 1, &row, nc, cols, vals, INSERT_VALUES));
    }
    PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
    PetscCall(PetscFree2(dnnz, onnz));
    PetscFunctionReturn(0);
}

/* The repeats from x = 0: KSPSolve alone (KSPSetUp, which extracts the
 * Jacobi diagonal, came before), slowest rank. */
static PetscErrorCode solve_repeats(KSP ksp, Vec b, Vec x, double *t, int repeat)
{
    PetscFunctionBeginUser;
    for (int k = 0; k < repeat; ++k) {
        PetscCall(VecSet(x, 0.0));
        double t0 = ovk_bench_sync();
        PetscCall(KSPSolve(ksp, b, x));
        t[k] = ovk_bench_slowest(MPI_Wtime() - t0);
    }
    PetscFunctionReturn(0);
}

static PetscErrorCode print_solver(KSP ksp, PC pc)
{
    KSPType kt;
    KSPNormType nt;
    PCType pt;
    PetscFunctionBeginUser;
    PetscCall(KSPGetType(ksp, &kt));
    PetscCall(KSPGetNormType(ksp, &nt));
    PetscCall(PCGetType(pc, &pt));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "Solver = PETSc %s + %s (norm %s)\n", kt, pt, KSPNormTypes[nt]));
    PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
    peer_grid g;
    Mat A;
    Vec x, b, r;
    KSP ksp;
    PC pc;
    KSPConvergedReason reason;
    double *t;
    PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
    const char *bad = peer_grid_parse(argc, argv, 0, &g); /* PETSc's options skipped */
    PetscCheck(!bad, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "%s", bad);
    PetscCall(build_matrix(&g, &A));
    PetscCall(MatCreateVecs(A, &x, &b));
    PetscCall(VecDuplicate(b, &r));
    PetscCall(VecSet(b, 1.0));
    PetscCall(peer_ksp_cg(A, g.tol, g.maxit, &ksp, &pc));
    PetscCall(KSPSetUp(ksp));
    PetscCall(PetscMalloc1(g.repeat, &t));
    PetscCall(solve_repeats(ksp, b, x, t, g.repeat));
    PetscCall(KSPGetConvergedReason(ksp, &reason));
    peer_result res = {g.repeat, 0, "Converged reason", KSPConvergedReasons[reason], 0.0, 0.0, NULL, t, 1};
    PetscCall(peer_ksp_result(ksp, A, x, b, r, &res)); /* the true residual: a check of the recursive one */
    PetscCall(print_solver(ksp, pc));
    peer_grid_print(&g);
    peer_print_result(&res);
    PetscCall(PetscFree(t));
    PetscCall(peer_petsc_destroy(&ksp, &A, &x, &b, &r));
    PetscCall(PetscFinalize());
    return 0;
}

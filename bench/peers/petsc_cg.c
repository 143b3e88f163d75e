/* Peer benchmark: PETSc KSPCG + PCJACOBI (or -ksp_type ..., -pc_type ...) on
 * the 27-point (or 7-point) Laplacian of hypre's GenerateLaplacian27pt /
 * GenerateLaplacian, or on the 3-D convection-diffusion operator of our
 * ovk_laplace27 -problem convdiff (ovk_convdiff_create).
 *
 * Flags as our driver ovk_laplace27 and hypre_pcg.c:
 *   -n nx ny nz      box PER PROCESS (default 10 10 10); global grid (nx*px) x ...
 *   -P px py pz      processor grid (default MPI_Dims_create, balanced)
 *   -stencil 27|7    (default 27)
 *   -problem NAME    laplace (default) or convdiff (7-point, nonsymmetric:
 *                    -ksp_type gmres, bcgs, pgmres, pipebcgs)
 *   -peclet PE       convdiff: Peclet number (default 100)
 *   -velocity vx vy vz  convdiff: the constant velocity (default 1 1 1)
 *   -scheme NAME     convdiff: upwind (default) or central
 *   -rhs ones|random b = 1 (default) or b_i = SplitMix64 of the global row i,
 *                    uniform in [0, 1) (ovk_laplace27's -rhs random, entry for
 *                    entry: (peer_random_entry + 1) / 2, exact)
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
 *   convdiff: -laplace(u) + Pe v . grad(u) on the unit cube, mesh width
 *             h_d = 1 / (g_d + 1), rows scaled by the finest h^2; per axis
 *             diffusion h^2/h_d^2 (-1, 2, -1) and convection h^2 Pe v_d / h_d,
 *             central (-1/2, 0, 1/2) or first-order upwind -- the values of
 *             ovk_convdiff_create (src/matrix/laplace.c), entry for entry.
 * Dirichlet boundaries (neighbours outside the grid dropped).  x0 = 0.
 *
 * Convergence test, made identical to hypre's PCG with two_norm = 1 and to
 * ours (stop when ||r_k||_2 < tol * ||b||_2, r_k the solver's residual):
 *   KSPSetNormType(KSP_NORM_UNPRECONDITIONED): the monitored norm is ||r_k||_2
 *     of the unpreconditioned residual (CG then computes it with one extra
 *     dot product per iteration; hypre does the same with two_norm).  PETSc
 *     then picks the preconditioner side that supports it: left for CG, right
 *     for GMRES, BCGS, PGMRES and PIPEBCGS (as our right-preconditioned
 *     nonsymmetric solvers).  -ksp_norm_type preconditioned -ksp_pc_side left
 *     gives PETSc's defaults for those.
 *   KSPConvergedDefault compares it with rtol * ||r_0||_2; with the zero
 *     initial guess (KSPSetInitialGuessNonzero false, the default) r_0 = b, so
 *     the reference is ||b||_2.  We do NOT call KSPConvergedDefaultSetUIRNorm
 *     (that would use ||B b||, the preconditioned norm).
 *   abstol = 0 (hypre's a_tol default), dtol unused.
 *
 * Output on rank 0:
 *   Iterations = N
 *   Final Relative Residual Norm = R      (KSP's final ||r|| / ||b||)
 *   True Relative Residual Norm = R       (||b - A x|| / ||b||)
 *   Setup Time = T s                      (KSPSetUp and KSPSetUpOnBlocks: the
 *                                          PC's setup, bjacobi's factorizations)
 *   Solve Time = T s                      (KSPSolve only; every repeat a new
 *                                          KSP; max over ranks, median over
 *                                          repeats)
 *   Time per Iteration = t s              (T / N)
 * The flags, the KSP's set-up, the timing and the lines are peer_common.c's.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "peer_common.h"

enum { STENCIL_WIDTH = 27 };

/* The problem beyond the grid: the convection-diffusion flags and b. */
typedef struct problem {
    int convdiff, central, random_rhs;
    double peclet, velocity[3];
    double off[3][2], diag; /* convdiff: the neighbour at -1 / +1 along each axis, the diagonal */
} problem;

/* -problem, -peclet, -velocity, -scheme, -rhs (the grid's flags are
 * peer_grid_parse's, PETSc's KSPSetFromOptions'): NULL, or what is wrong. */
static const char *parse_problem(int argc, char **argv, problem *p)
{
    *p = (problem){.peclet = 100.0, .velocity = {1.0, 1.0, 1.0}};
    for (int i = 1; i + 1 < argc; i++) {
        const char *f = argv[i], *v = argv[i + 1];
        if (!strcmp(f, "-problem")) {
            if (strcmp(v, "laplace") && strcmp(v, "convdiff")) return "-problem must be laplace or convdiff";
            p->convdiff = !strcmp(v, "convdiff");
        } else if (!strcmp(f, "-scheme")) {
            if (strcmp(v, "upwind") && strcmp(v, "central")) return "-scheme must be upwind or central";
            p->central = !strcmp(v, "central");
        } else if (!strcmp(f, "-rhs")) {
            if (strcmp(v, "ones") && strcmp(v, "random")) return "-rhs must be ones or random";
            p->random_rhs = !strcmp(v, "random");
        } else if (!strcmp(f, "-peclet")) {
            p->peclet = atof(v);
        } else if (!strcmp(f, "-velocity") && i + 3 < argc) {
            for (int d = 0; d < 3; d++) p->velocity[d] = atof(argv[i + 1 + d]);
            i += 2;
        } else {
            continue;
        }
        i++;
    }
    return p->peclet >= 0 && isfinite(p->peclet) ? NULL : "-peclet must be finite and >= 0";
}

/* ovk_convdiff_create's values (src/matrix/laplace.c, convdiff_coeffs):
 * scaled by h^2 of the finest axis; per axis d, h_d = 1 / (g_d + 1),
 * diffusion h^2/h_d^2 (-1, 2, -1), convection h^2 Pe v_d / h_d, central or
 * upwind; a flat axis has no terms. */
static void convdiff_coeffs(const peer_grid *g, problem *p)
{
    double hmin = 1.0;
    for (int d = 0; d < 3; d++)
        if (g->g[d] > 1 && 1.0 / (double)(g->g[d] + 1) < hmin) hmin = 1.0 / (double)(g->g[d] + 1);
    p->diag = 0.0;
    for (int d = 0; d < 3; d++) {
        p->off[d][0] = p->off[d][1] = 0.0;
        if (g->g[d] == 1) continue;
        double h = 1.0 / (double)(g->g[d] + 1), dif = hmin * hmin / (h * h);
        double conv = hmin * hmin * p->peclet * p->velocity[d] / h;
        p->diag += 2.0 * dif;
        if (p->central) {
            p->off[d][0] = -dif - 0.5 * conv;
            p->off[d][1] = -dif + 0.5 * conv;
        } else {
            p->off[d][0] = -dif - (conv > 0.0 ? conv : 0.0);
            p->off[d][1] = -dif + (conv < 0.0 ? conv : 0.0);
            p->diag += fabs(conv);
        }
    }
}

/* The value of the neighbour (dx, dy, dz) of a row (0, 0, 0: the diagonal). */
static double stencil_value(const peer_grid *g, const problem *p, int dx, int dy, int dz)
{
    int centre = !dx && !dy && !dz;
    if (!p->convdiff) return centre ? peer_grid_diagonal(g) : -1.0;
    if (centre) return p->diag;
    int axis = dx ? 0 : dy ? 1 : 2, side = (dx + dy + dz) > 0;
    return p->off[axis][side];
}

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
static PetscInt stencil_row(const peer_grid *g, const problem *p, PetscInt r, PetscInt *cols, PetscScalar *vals,
                            PetscInt *nd, PetscInt *no)
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
                vals[nc] = stencil_value(g, p, dx, dy, dz);
                if (cols[nc] >= rstart && cols[nc] < rstart + nloc) ++*nd;
                else ++*no;
                ++nc;
            }
    return nc;
}

/* MATAIJ (or -mat_type) with exact preallocation; -mat_type sbaij stores
 * the upper triangle (the counts of whole rows bound those of its parts). */
static PetscErrorCode build_matrix(const peer_grid *g, const problem *p, Mat *A)
{
    const PetscInt nloc = (PetscInt)g->n[0] * g->n[1] * g->n[2], rstart = (PetscInt)g->rank * nloc;
    PetscInt *dnnz, *onnz, cols[STENCIL_WIDTH];
    PetscScalar vals[STENCIL_WIDTH];
    PetscBool sym;
    PetscFunctionBeginUser;
    PetscCall(PetscMalloc2(nloc, &dnnz, nloc, &onnz));
    for (PetscInt r = 0; r < nloc; ++r) stencil_row(g, p, r, cols, vals, &dnnz[r], &onnz[r]);
    PetscCall(MatCreate(PETSC_COMM_WORLD, A));
    PetscCall(MatSetSizes(*A, nloc, nloc, PETSC_DETERMINE, PETSC_DETERMINE));
    PetscCall(MatSetType(*A, MATAIJ));
    PetscCall(MatSetFromOptions(*A));
    PetscCall(MatXAIJSetPreallocation(*A, 1, dnnz, onnz, dnnz, onnz));
    PetscCall(PetscObjectTypeCompareAny((PetscObject)*A, &sym, MATSBAIJ, MATSEQSBAIJ, MATMPISBAIJ, ""));
    if (sym) PetscCall(MatSetOption(*A, MAT_IGNORE_LOWER_TRIANGULAR, PETSC_TRUE));
    for (PetscInt r = 0; r < nloc; ++r) {
        PetscInt nd, no, row = rstart + r, nc = stencil_row(g, p, r, cols, vals, &nd, &no);
        PetscCall(MatSetValues(*A, 1, &row, nc, cols, vals, INSERT_VALUES));
    }
    PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
    PetscCall(PetscFree2(dnnz, onnz));
    PetscFunctionReturn(0);
}

/* Every repeat a new KSP from x = 0: KSPSetUp (the PC's setup) and
 * KSPSolve timed apart, slowest rank.  The last KSP stays in *ksp. */
static PetscErrorCode solve_repeats(Mat A, const peer_grid *g, Vec b, Vec x, KSP *ksp, PC *pc, double *setup_s,
                                    double *solve_s)
{
    PetscFunctionBeginUser;
    for (int k = 0; k < g->repeat; ++k) {
        PetscCall(KSPDestroy(ksp));
        PetscCall(peer_ksp_cg(A, g->tol, g->maxit, ksp, pc));
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

/* b = 1, or b_i = (peer_random_entry(i) + 1) / 2 of the global row i:
 * ovk_laplace27's [0, 1) values (the 53 bits / 2^53), exactly */
static PetscErrorCode right_hand_side(const problem *p, Vec b)
{
    PetscInt lo, hi;
    PetscScalar *a;
    PetscFunctionBeginUser;
    if (!p->random_rhs) {
        PetscCall(VecSet(b, 1.0));
        PetscFunctionReturn(0);
    }
    PetscCall(VecGetOwnershipRange(b, &lo, &hi));
    PetscCall(VecGetArray(b, &a));
    for (PetscInt i = lo; i < hi; i++) a[i - lo] = 0.5 * (peer_random_entry(i) + 1.0);
    PetscCall(VecRestoreArray(b, &a));
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

static void print_problem(const peer_grid *g, const problem *p)
{
    if (g->rank || !p->convdiff) return;
    printf("Problem = convdiff: Peclet %g, velocity (%g, %g, %g), %s\n", p->peclet, p->velocity[0], p->velocity[1],
           p->velocity[2], p->central ? "central" : "upwind");
}

int main(int argc, char **argv)
{
    peer_grid g;
    problem prob;
    Mat A;
    Vec x, b, r;
    KSP ksp = NULL;
    PC pc;
    KSPConvergedReason reason;
    double *ts, *tu;
    PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
    const char *bad = peer_grid_parse(argc, argv, 0, &g); /* PETSc's options skipped */
    if (!bad) bad = parse_problem(argc, argv, &prob);
    PetscCheck(!bad, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "%s", bad);
    if (prob.convdiff) {
        g.stencil = PEER_STENCIL_7;
        convdiff_coeffs(&g, &prob);
    }
    PetscCall(build_matrix(&g, &prob, &A));
    PetscCall(MatCreateVecs(A, &x, &b));
    PetscCall(VecDuplicate(b, &r));
    PetscCall(right_hand_side(&prob, b));
    PetscCall(PetscMalloc2(g.repeat, &tu, g.repeat, &ts));
    PetscCall(solve_repeats(A, &g, b, x, &ksp, &pc, tu, ts));
    PetscCall(KSPGetConvergedReason(ksp, &reason));
    peer_result res = {g.repeat, 0, "Converged reason", KSPConvergedReasons[reason], 0.0, 0.0, tu, ts, 1};
    PetscCall(peer_ksp_result(ksp, A, x, b, r, &res)); /* the true residual: a check of the recursive one */
    PetscCall(print_solver(ksp, pc));
    peer_grid_print(&g);
    print_problem(&g, &prob);
    peer_print_result(&res);
    PetscCall(PetscFree2(tu, ts));
    PetscCall(peer_petsc_destroy(&ksp, &A, &x, &b, &r));
    PetscCall(PetscFinalize());
    return 0;
}

/* MPI test: the nonsymmetric solvers (bicgstab, pipebicgstab) and ilu0.
 *
 *  - the shared nonsymmetric matrices (OVK_NONSYM_DIR; skipped when absent)
 *    with {jacobi, ilu0, none}, b = A x* for a random x*, x0 = 0, rtol 1e-8:
 *    converged with the true residual below rtol where BiCGStab converges
 *    (every matrix with jacobi and ilu0 but utm1700a, and cdde1, orsirr_1
 *    without a preconditioner); elsewhere (utm1700a; hor131, sherman5,
 *    watt_2 unpreconditioned, where BiCGStab stagnates, diverges or needs
 *    thousands of steps) an honest outcome within MAX_HARD steps: converged
 *    with a true residual below rtol, or a clear failure status whose
 *    residual, at the iteration limit, is the true one;
 *  - 3-D convection-diffusion at Peclet 1, 50 (upwind, central) and 1000
 *    (upwind) on the blocking backend, with ilu0 (and at Pe 50 upwind with
 *    every preconditioner) on native too, and one solve on nbc and
 *    offload:engine=agent each, with a monitor;
 *  - ilu0's storage forms: a factor with a column 40,000 rows from its row
 *    (columns kept as int) solves bitwise as the same matrix without that
 *    entry (a stored zero there; 16-bit offsets); precision=single changes
 *    the solution's bits, converges on convection-diffusion and refuses a
 *    factor value beyond float's range on one rank (on every rank);
 *  - pipebicgstab's attainable accuracy (rtol 1e-15, a fixed step count)
 *    within one digit of bicgstab's, as true residuals;
 *  - reductions counted by PMPI (native backend): bicgstab 3 per iteration,
 *    pipebicgstab 2 (in flight together, or with early=0 the paper's two
 *    phases one after the other), the same with a monitor, which rides them;
 *  - a zero-row rank (the last one, at 2 ranks or more);
 *  - pipebicgstab where the forms of its early sums cancel (a matrix with
 *    two eigenvalues): converged, with both schedules;
 *  - bad input, the same status on every rank: a CG variant on a
 *    nonsymmetric matrix (OVK_ENOTSYM, naming bicgstab; accepted once the
 *    values are made symmetric), ic0 and cheby under bicgstab, a zero
 *    pivot in ilu0 (on the last rank only), a non-finite matrix, an unknown
 *    ilu0 precision.
 * Runs at any rank count. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "mpitest.h"

#include "count_reductions.h"
#include "nonsym_common.h"

static const char *const solvers[] = {"bicgstab", "pipebicgstab", "pipebicgstab:early=0"};
enum { NSOLVERS = 3 };
static const char *const preconds[] = {"jacobi", "ilu0", "none"};

/* solve A x = A x* (x0 = 0), its MPI_Iallreduce calls counted (see ns_solve) */
static outcome solve(ovk_matrix *A, const char *solver, const char *pc, const char *backend, double rtol, int maxit,
                     int monitor)
{
    ns_run run = {.solver = solver, .pc = pc, .backend = backend, .rtol = rtol, .maxit = maxit, .monitor = monitor,
                  .count = &n_iallreduce};
    return ns_solve(A, &run);
}

/* converged truly, or a clear failure with, at the limit, the true residual */
static void expect_honest(const char *what, const outcome *o)
{
    if (o->rc == OVK_OK) {
        expect_converged(what, o);
        return;
    }
    MT_CHECK(o->rc == OVK_EMAXIT || o->rc == OVK_EBREAKDOWN || o->rc == OVK_ENONFINITE || o->rc == OVK_EPRECOND,
             "%s: status %s", what, ovk_status_name(o->rc));
    MT_CHECK(o->reason != OVK_REASON_CONVERGED, "%s: reason converged with status %s", what, ovk_status_name(o->rc));
    if (o->rc == OVK_EMAXIT)
        MT_CHECK(fabs(o->rel - o->true_rel) <= 1e-6 * o->true_rel, "%s: reported %.6e, true %.6e", what, o->rel,
                 o->true_rel);
}

/* 1 when the solve of matrix m with pc must converge */
static int must_converge(const char *m, const char *pc)
{
    if (!strcmp(m, "utm1700a")) return 0;
    if (strcmp(pc, "none")) return 1;
    return !strcmp(m, "cdde1") || !strcmp(m, "orsirr_1");
}

static void shared_matrices(void)
{
    if (!have_shared()) return;
    for (int m = 0; m < NSHARED; m++) {
        ovk_matrix *A = read_shared(m);
        if (!A) continue;
        for (int p = 0; p < 3; p++) {
            int hard = !must_converge(shared_names[m], preconds[p]);
            for (int k = 0; k < NSOLVERS; k++) {
                char what[128];
                snprintf(what, sizeof what, "%s %s %s", shared_names[m], solvers[k], preconds[p]);
                outcome o = solve(A, solvers[k], preconds[p], "blocking", RTOL, hard ? MAX_HARD : MAX_IT, 0);
                if (hard) expect_honest(what, &o);
                else expect_converged(what, &o);
                if (g_rank == 0)
                    printf("%-32s %5d its  %-20s true %.2e\n", what, o.iterations, ovk_reason_name(o.reason),
                           o.true_rel);
            }
        }
        ovk_matrix_destroy(A);
    }
}

/* pipebicgstab's attainable accuracy within one digit of bicgstab's */
static void attainable(void)
{
    static const int which[] = {0, 2}; /* cdde1, sherman5 */
    if (!dir_exists(OVK_NONSYM_DIR)) return;
    for (int w = 0; w < 2; w++) {
        int m = which[w];
        ovk_matrix *A = read_shared(m);
        if (!A) continue;
        for (int p = 0; p < 2; p++) {
            outcome c = solve(A, "bicgstab", preconds[p], "blocking", 1e-15, 300, 0);
            for (int k = 1; k < NSOLVERS; k++) {
                outcome q = solve(A, solvers[k], preconds[p], "blocking", 1e-15, 300, 0);
                MT_CHECK(q.true_rel <= 10.0 * c.true_rel + 1e-15, "%s %s: %s attains %.2e, bicgstab %.2e", shared_names[m],
                         preconds[p], solvers[k], q.true_rel, c.true_rel);
                if (g_rank == 0)
                    printf("attainable %-10s %-7s bicgstab %.2e  %s %.2e\n", shared_names[m], preconds[p], c.true_rel,
                           solvers[k], q.true_rel);
            }
        }
        ovk_matrix_destroy(A);
    }
}

static void convection_diffusion(void)
{
    static const struct {
        double pe;
        ovk_convdiff_scheme scheme;
    } cases[] = {{1.0, OVK_CONVDIFF_CENTRAL}, {50.0, OVK_CONVDIFF_UPWIND}, {50.0, OVK_CONVDIFF_CENTRAL},
                 {1000.0, OVK_CONVDIFF_UPWIND}};
    static const char *const backends[] = {"blocking", "native"};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        ovk_matrix *A = convdiff(cases[c].pe, cases[c].scheme);
        for (int p = 0; p < 3; p++)
            for (int k = 0; k < NSOLVERS; k++)
                for (int be = 0; be < 2; be++) {
                    if (be && p != 1 && c != 1) continue; /* native: ilu0 at every Pe, all at Pe 50 upwind */
                    char what[128];
                    snprintf(what, sizeof what, "convdiff Pe %g %s %s %s %s", cases[c].pe,
                             cases[c].scheme ? "central" : "upwind", solvers[k], preconds[p], backends[be]);
                    outcome o = solve(A, solvers[k], preconds[p], backends[be], RTOL, MAX_IT, 0);
                    expect_converged(what, &o);
                    if (g_rank == 0 && be == 0) printf("%-48s %4d its\n", what, o.iterations);
                }
        ovk_matrix_destroy(A);
    }
    ovk_matrix *A = convdiff(50.0, OVK_CONVDIFF_UPWIND);
    static const char *const others[] = {"nbc", "offload:engine=agent"};
    for (int be = 0; be < 2; be++)
        for (int k = 0; k < NSOLVERS; k++) {
            char what[128];
            snprintf(what, sizeof what, "convdiff Pe 50 %s ilu0 %s", solvers[k], others[be]);
            outcome o = solve(A, solvers[k], "ilu0", others[be], RTOL, MAX_IT, 1);
            expect_converged(what, &o);
        }
    ovk_matrix_destroy(A);
}

/* MPI_Iallreduce per iteration (native backend), with and without a monitor */
static void reductions(void)
{
    ovk_matrix *A = convdiff(50.0, OVK_CONVDIFF_UPWIND);
    for (int k = 0; k < NSOLVERS; k++)
        for (int mon = 0; mon < 2; mon++) {
            outcome o = solve(A, solvers[k], "jacobi", "native", 1e-30, 20, mon);
            long per = k ? 2 : 3;
            /* the frame's initial sums and <r0,r0> or the start's, and the true residual at the limit */
            MT_CHECK(o.iterations == 20 && o.reductions >= per * 20 && o.reductions <= per * 20 + 3,
                     "%s (monitor %d): %ld reductions in %d iterations", solvers[k], mon, o.reductions, o.iterations);
            if (g_rank == 0) printf("%s monitor %d: %ld reductions in %d iterations\n", solvers[k], mon, o.reductions,
                                    o.iterations);
        }
    ovk_matrix_destroy(A);
}

/* a tridiagonal nonsymmetric matrix of n rows over the ranks but the last
 * (which has none, at 2 ranks or more); the last rank's rows get a zero
 * pivot for ilu0 when zero_pivot (2x2 blocks [[1, 1], [1, 1]]) */
static int tridiag(int n, int zero_pivot, double bad, ovk_matrix **A)
{
    int holders = g_size > 1 ? g_size - 1 : 1, me = g_rank < holders ? g_rank : -1;
    int lo = me < 0 ? n : (int)((long)n * me / holders), hi = me < 0 ? n : (int)((long)n * (me + 1) / holders);
    if (zero_pivot) { /* every rank holds rows, the pivot fails on the last */
        lo = 2 * g_rank;
        hi = lo + 2;
    }
    int nl = hi - lo, *ptr = malloc(sizeof(int) * (size_t)(nl + 1));
    ovk_gidx *col = malloc(sizeof(ovk_gidx) * (size_t)(3 * nl + 1));
    double *val = malloc(sizeof(double) * (size_t)(3 * nl + 1));
    ptr[0] = 0;
    for (int i = lo, k = 0; i < hi; i++) {
        if (zero_pivot) {
            int base = i - i % 2;
            double diag = g_rank == g_size - 1 ? 1.0 : 2.0;
            col[k] = base, val[k++] = i == base ? diag : 1.0;
            col[k] = base + 1, val[k++] = i == base ? 1.0 : diag;
        } else {
            if (i > 0) col[k] = i - 1, val[k++] = -1.5;
            col[k] = i, val[k++] = i == n - 1 ? bad : 4.0;
            if (i < n - 1) col[k] = i + 1, val[k++] = -0.5;
        }
        ptr[i - lo + 1] = k;
    }
    int rc = ovk_matrix_create_csr(MPI_COMM_WORLD, lo, nl, ptr, col, val, OVK_DUP_REJECT, A);
    free(ptr);
    free(col);
    free(val);
    return rc;
}

/* A = diag(1, 3, 1, 3, ...) (n rows, the last rank none at 2 ranks or
 * more): BiCGStab's second step starts from q near 0, where pipebicgstab's
 * forms of <y,y> cancel and it sums q and y directly; both schedules must
 * converge honestly */
static void two_eigenvalues(void)
{
    enum { N = 40 };
    int holders = g_size > 1 ? g_size - 1 : 1, me = g_rank < holders ? g_rank : -1;
    int lo = me < 0 ? N : N * me / holders, hi = me < 0 ? N : N * (me + 1) / holders, nl = hi - lo;
    int ptr[N + 1];
    ovk_gidx col[N];
    double val[N];
    ptr[0] = 0;
    for (int i = 0; i < nl; i++) {
        col[i] = lo + i;
        val[i] = (lo + i) % 2 ? 3.0 : 1.0;
        ptr[i + 1] = i + 1;
    }
    ovk_matrix *A = NULL;
    MT_RC(OVK_OK, ovk_matrix_create_csr(MPI_COMM_WORLD, lo, nl, ptr, col, val, OVK_DUP_REJECT, &A));
    for (int k = 1; k < NSOLVERS; k++) {
        char what[96];
        snprintf(what, sizeof what, "diag(1, 3) %s none", solvers[k]);
        outcome o = solve(A, solvers[k], "none", "native", 1e-12, 50, 0);
        expect_converged(what, &o);
    }
    ovk_matrix_destroy(A);
}

static void zero_row_rank(void)
{
    ovk_matrix *A = NULL;
    MT_RC(OVK_OK, tridiag(60, 0, 4.0, &A));
    for (int p = 0; p < 3; p++)
        for (int k = 0; k < NSOLVERS; k++) {
            char what[96];
            snprintf(what, sizeof what, "zero-row rank %s %s", solvers[k], preconds[p]);
            outcome o = solve(A, solvers[k], preconds[p], "native", RTOL, 200, 0);
            expect_converged(what, &o);
        }
    ovk_matrix_destroy(A);
}

/* the same status on every rank */
/* the convection-diffusion values made symmetric: the 7-point Laplacian's
 * rows of this rank's box (6, -1), on the same pattern */
static int make_symmetric(ovk_matrix *A)
{
    static const int off[7][3] = {{0, 0, -1}, {0, -1, 0}, {-1, 0, 0}, {0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    int P[3] = {0, 0, 0}, bx = 10, by = 10, bz = 8, n = bx * by * bz, k = 0;
    MPI_Dims_create(g_size, 3, P);
    int *ptr = malloc(sizeof(int) * (size_t)(n + 1));
    ovk_gidx *col = malloc(sizeof(ovk_gidx) * (size_t)(7 * n));
    double *val = malloc(sizeof(double) * (size_t)(7 * n));
    int64_t gx = (int64_t)P[0] * bx, gy = (int64_t)P[1] * by, gz = (int64_t)P[2] * bz;
    int64_t x0 = (int64_t)(g_rank % P[0]) * bx, y0 = (int64_t)((g_rank / P[0]) % P[1]) * by,
            z0 = (int64_t)(g_rank / (P[0] * P[1])) * bz;
    ptr[0] = 0;
    for (int z = 0, row = 0; z < bz; z++)
        for (int y = 0; y < by; y++)
            for (int x = 0; x < bx; x++, row++) {
                for (int t = 0; t < 7; t++) {
                    int64_t a = x0 + x + off[t][0], b = y0 + y + off[t][1], c = z0 + z + off[t][2];
                    if (a < 0 || b < 0 || c < 0 || a >= gx || b >= gy || c >= gz) continue;
                    int64_t p = a / bx, q = b / by, r = c / bz, owner = p + P[0] * (q + P[1] * r);
                    col[k] = owner * n + (a - p * bx) + bx * ((b - q * by) + by * (c - r * bz));
                    val[k++] = t == 3 ? 6.0 : -1.0;
                }
                ptr[row + 1] = k;
            }
    int rc = ovk_matrix_update_values(A, ptr, col, val, OVK_DUP_REJECT);
    free(ptr);
    free(col);
    free(val);
    return rc;
}

/* 4 rows per rank: a_ii = 4, a_01 = a_10 = -1 in each block, and on the
 * last rank a_23 = v23 without a_32; with a13, a_13 = a_31 = -0.5 on every
 * rank (else row 3 holds a_33 alone: a Dirichlet row, eliminated) */
static int blocks(double v23, int a13, ovk_matrix **A)
{
    int last = g_rank == g_size - 1, rowptr[5] = {0, 2, 4 + a13, 5 + a13 + last, 6 + 2 * a13 + last};
    ovk_gidx b = 4 * (ovk_gidx)g_rank, col[9] = {b, b + 1, b, b + 1}, *c = col + 4;
    double val[9] = {4.0, -1.0, -1.0, 4.0}, *v = val + 4;
    if (a13) *c++ = b + 3, *v++ = -0.5;             /* row 1 */
    *c++ = b + 2, *v++ = 4.0;                         /* row 2 */
    if (last) *c++ = b + 3, *v++ = v23;
    if (a13) *c++ = b + 1, *v++ = -0.5;             /* row 3 */
    *c++ = b + 3, *v++ = 4.0;
    return ovk_matrix_create_csr(MPI_COMM_WORLD, b, 4, rowptr, col, val, OVK_DUP_REJECT, A);
}

static void symmetry_check(void)
{
    ovk_matrix *A = NULL;
    MT_RC(OVK_OK, blocks(-1.0, 1, &A));
    expect_everywhere("alg1, a_23 without a_32 on the last rank", setup_with(A, "alg1", "jacobi"), OVK_ENOTSYM);
    ovk_matrix_destroy(A);
    A = NULL;
    MT_RC(OVK_OK, blocks(-1.0, 0, &A));
    expect_everywhere("alg1, row 3 a_33 alone: eliminated", setup_with(A, "alg1", "jacobi"), OVK_OK);
    ovk_matrix_destroy(A);
    A = NULL;
    MT_RC(OVK_OK, blocks(0.0, 1, &A));
    expect_everywhere("alg1, a_23 = 0 stored without a_32", setup_with(A, "alg1", "jacobi"), OVK_OK);
    ovk_matrix_destroy(A);
}

/* a tridiagonal nonsymmetric matrix of FAR_ROWS rows a rank; with zero_far
 * each rank's first row also stores a zero at its block's last column;
 * the last rank's first row has the superdiagonal entry last_upper */
enum { FAR_ROWS = 40000 };
static ovk_matrix *far_tridiag(int zero_far, double last_upper)
{
    int lo = g_rank * FAR_ROWS, n = g_size * FAR_ROWS, *ptr = malloc(sizeof(int) * (FAR_ROWS + 1));
    ovk_gidx *col = malloc(sizeof(ovk_gidx) * (3 * FAR_ROWS + 1));
    double *val = malloc(sizeof(double) * (3 * FAR_ROWS + 1));
    ovk_matrix *A = NULL;
    ptr[0] = 0;
    for (int i = lo, k = 0; i < lo + FAR_ROWS; i++) {
        if (i > 0) col[k] = i - 1, val[k++] = -1.5 + 0.25 * hash_unit((uint64_t)i);
        col[k] = i, val[k++] = 4.0;
        if (i < n - 1) col[k] = i + 1, val[k++] = i == lo && g_rank == g_size - 1 ? last_upper : -0.5;
        if (zero_far && i == lo) col[k] = lo + FAR_ROWS - 1, val[k++] = 0.0;
        ptr[i - lo + 1] = k;
    }
    MT_RC(OVK_OK, ovk_matrix_create_csr(MPI_COMM_WORLD, lo, FAR_ROWS, ptr, col, val, OVK_DUP_REJECT, &A));
    free(ptr);
    free(col);
    free(val);
    return A;
}

/* x with bicgstab + pc from x0 = 0, b = A 1, rtol 1e-10; x is the caller's */
static ovk_vector *solve_far(ovk_matrix *A, const char *pc, int *iterations)
{
    ovk_vector *b = NULL, *x = NULL;
    ovk_solver *s = NULL;
    ovk_pcg_result res = {0};
    MT_RC(OVK_OK, ovk_vector_create(A, &b));
    MT_RC(OVK_OK, ovk_vector_create(A, &x));
    double *d = ovk_vector_data(b);
    for (int i = 0; i < FAR_ROWS; i++) d[i] = hash_unit((uint64_t)(g_rank * FAR_ROWS + i) + 7u);
    ovk_vector_set(x, 0.0);
    MT_RC(OVK_OK, ovk_solver_create(A, &s));
    MT_RC(OVK_OK, ovk_solver_set_option(s, "solver", "bicgstab"));
    MT_RC(OVK_OK, ovk_solver_set_option(s, "precond", pc));
    MT_RC(OVK_OK, ovk_solver_set_tolerances(s, 1e-10, 0.0, 100));
    MT_RC(OVK_OK, ovk_solver_solve(s, b, x, &res));
    *iterations = res.iterations;
    ovk_solver_destroy(&s);
    ovk_vector_destroy(b);
    return x;
}

static void ilu0_forms(void)
{
    ovk_matrix *near = far_tridiag(0, -0.5), *far = far_tridiag(1, -0.5), *big = far_tridiag(0, 1e40);
    int it_near = -1, it_far = -2, it_single = -3;
    ovk_vector *x_near = solve_far(near, "ilu0", &it_near), *x_far = solve_far(far, "ilu0", &it_far);
    ovk_vector *x_single = solve_far(near, "ilu0:precision=single", &it_single);
    int same = it_near == it_far &&
               !memcmp(ovk_vector_data(x_near), ovk_vector_data(x_far), sizeof(double) * FAR_ROWS);
    MT_CHECK(same, "ilu0 with int columns differs from 16-bit offsets (%d / %d iterations)", it_far, it_near);
    int differ = memcmp(ovk_vector_data(x_near), ovk_vector_data(x_single), sizeof(double) * FAR_ROWS) != 0;
    MPI_Allreduce(MPI_IN_PLACE, &differ, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MT_CHECK(differ, "ilu0:precision=single solves bitwise as double: the float factor is not used");
    expect_everywhere("ilu0:precision=single, 1e40 in the factor", setup_with(big, "bicgstab", "ilu0:precision=single"),
                      OVK_EPRECOND);
    ovk_vector_destroy(x_near);
    ovk_vector_destroy(x_far);
    ovk_vector_destroy(x_single);
    ovk_matrix_destroy(near);
    ovk_matrix_destroy(far);
    ovk_matrix_destroy(big);
    ovk_matrix *A = convdiff(50.0, OVK_CONVDIFF_UPWIND);
    outcome o = solve(A, "bicgstab", "ilu0:precision=single", "blocking", RTOL, MAX_IT, 0);
    expect_converged("convdiff Pe 50 bicgstab ilu0:precision=single", &o);
    if (g_rank == 0) printf("ilu0 forms: int columns bitwise as offsets; single %d its\n", o.iterations);
    ovk_matrix_destroy(A);
}

static void bad_inputs(void)
{
    ovk_matrix *A = convdiff(50.0, OVK_CONVDIFF_UPWIND), *Z = NULL, *N = NULL;
    int rc = setup_with(A, "alg1", "jacobi");
    expect_everywhere("alg1 on convection-diffusion", rc, OVK_ENOTSYM);
    MT_CHECK(rc != OVK_ENOTSYM || strstr(ovk_error_detail(), "bicgstab"), "detail: %s", ovk_error_detail());
    expect_everywhere("pipecg on convection-diffusion", setup_with(A, "pipecg", "none"), OVK_ENOTSYM);
    expect_everywhere("ic0 under bicgstab", setup_with(A, "bicgstab", "ic0"), OVK_EUNSUPPORTED);
    expect_everywhere("cheby under pipebicgstab", setup_with(A, "pipebicgstab", "cheby"), OVK_EUNSUPPORTED);
    expect_everywhere("ilu0:precision=half", setup_with(A, "bicgstab", "ilu0:precision=half"), OVK_EOPTION);
    expect_everywhere("pipebicgstab:early=2", setup_with(A, "pipebicgstab:early=2", "jacobi"), OVK_EOPTION);
    MT_RC(OVK_OK, make_symmetric(A));
    expect_everywhere("alg1 once the values are symmetric", setup_with(A, "alg1", "jacobi"), OVK_OK);
    ovk_matrix_destroy(A);
    MT_RC(OVK_OK, tridiag(2 * g_size, 1, 0.0, &Z));
    rc = setup_with(Z, "bicgstab", "ilu0");
    expect_everywhere("ilu0 zero pivot on the last rank", rc, OVK_EPRECOND);
    char row[32];
    snprintf(row, sizeof row, "row %d", 2 * g_size - 1);
    MT_CHECK(rc != OVK_EPRECOND || strstr(ovk_error_detail(), row), "detail '%s' does not name %s", ovk_error_detail(),
             row);
    ovk_matrix_destroy(Z);
    expect_everywhere("non-finite matrix", tridiag(30, 0, NAN, &N), OVK_ENONFINITE);
    ovk_matrix_destroy(N);
}

/* Under the latency model (200 us on native, one rank per core): pgmres
 * and pipebicgstab converge, and log_view finds part of their reductions'
 * time in flight hidden behind other work (gmres on blocking: none). */
static void latency_overlap(void)
{
    static const char *const cases[][2] = {{"pgmres:l=2", "native"}, {"pipebicgstab", "native"}, {"gmres", "blocking"}};
    ovk_matrix *A = convdiff(50.0, OVK_CONVDIFF_UPWIND);
    ovk_latency_model m;
    MT_RC(OVK_OK, ovk_latency_model_parse("alpha=200", &m));
    for (int k = 0; k < 3; k++) {
        ovk_reducer *red = NULL;
        ovk_solver *s = NULL;
        ovk_vector *b = NULL, *x = NULL;
        ovk_pcg_result res = {0};
        ovk_pcg_options o;
        FILE *f = g_rank == 0 ? tmpfile() : NULL;
        char text[8192] = "";
        ovk_pcg_options_init(&o);
        o.solver = cases[k][0];
        o.out = f;
        o.tol = RTOL;
        MT_RC(OVK_OK, ovk_reducer_create(MPI_COMM_WORLD, cases[k][1], &red));
        MT_RC(OVK_OK, ovk_reducer_set_latency(red, &m));
        MT_RC(OVK_OK, ovk_solver_create(A, &s));
        MT_RC(OVK_OK, ovk_solver_set_options(s, &o));
        MT_RC(OVK_OK, ovk_solver_set_reducer(s, red));
        MT_RC(OVK_OK, ovk_solver_set_option(s, "log_view", "1"));
        MT_RC(OVK_OK, ovk_vector_create(A, &b));
        MT_RC(OVK_OK, ovk_vector_create(A, &x));
        ovk_vector_set(b, 1.0);
        ovk_vector_set(x, 0.0);
        MT_RC(OVK_OK, ovk_solver_solve(s, b, x, &res));
        MT_CHECK(res.reason == OVK_REASON_CONVERGED && res.rel_residual < RTOL, "%s at 200 us: %s, %g", cases[k][0],
                 ovk_reason_name(res.reason), res.rel_residual);
        MT_RC(OVK_OK, ovk_solver_destroy(&s)); /* log_view prints here */
        if (f) {
            rewind(f);
            text[fread(text, 1, sizeof text - 1, f)] = '\0';
            fclose(f);
            const char *at = strstr(text, "of that, hidden behind other work");
            double hidden[3] = {-1.0, -1.0, -1.0};
            if (at) sscanf(at + strlen("of that, hidden behind other work"), "%lf %lf %lf", &hidden[0], &hidden[1],
                           &hidden[2]);
            if (k < 2) MT_CHECK(hidden[2] > 0.0, "%s at 200 us: hidden %g s (log_view: %.200s)", cases[k][0],
                                hidden[2], at ? at : text);
            else MT_CHECK(strstr(text, "hidden: none") != NULL, "gmres on blocking: something hidden");
            printf("latency 200 us: %-13s %3d iterations, %.3g s hidden\n", cases[k][0], res.iterations, hidden[2]);
        }
        ovk_vector_destroy(b);
        ovk_vector_destroy(x);
        ovk_reducer_destroy(red);
    }
    ovk_matrix_destroy(A);
}

int main(int argc, char **argv)
{
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided); /* offload's agent needs it */
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g_size);
    shared_matrices();
    attainable();
    convection_diffusion();
    ilu0_forms();
    reductions();
    two_eigenvalues();
    zero_row_rank();
    bad_inputs();
    symmetry_check();
    if (g_size <= 2) latency_overlap(); /* the overlap wants a core per rank */
    int status = mt_finish("test_nonsymmetric");
    MPI_Finalize();
    return status;
}

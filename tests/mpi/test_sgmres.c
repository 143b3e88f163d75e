/* sgmres (s-step GMRES), with overlap=0 and 1: against a dense LU solve of
 * a small nonsymmetric matrix for s = 1..10 (rows split unevenly, a rank
 * without rows at 3 and 4 ranks), the answer the same on every rank; on a
 * 2-D convection-diffusion problem the reductions per basis vector (PMPI on
 * the blocking and the non-blocking backend, the library's count on nbc
 * and, at s = 10, offload) are exactly 2 per block of s and one per cycle, <= 2/s + 1/m, with
 * overlap=1 one per block and two per cycle; a one-shot solve's first cycle
 * (its shifts' estimate) at most 3 + 2 above one whose shifts were known;
 * with overlap=1 on native every
 * product but a cycle's first block's runs while a reduction is posted and
 * not completed (PMPI: MPI_Iallreduce against MPI_Wait / a completing
 * MPI_Test), with overlap=0 none, and a last cycle predicted to need
 * fewer than s columns runs with blocking blocks (the view says so); the
 * safeguard forced (a monomial basis of
 * 16 powers: the block Gram matrix not numerically SPD) falls back to DCGS2
 * cycles, converges truly and says so in the view and in res.restarts; bad
 * specs (s <= 0, s > 32, s > m, s above the rows, overlap=2) fail with
 * OVK_EOPTION on every rank. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "count_reductions.h"
#include "mpitest.h"
#include "problem.h"

enum { DENSE_N = 48 };

/* the dense test matrix's entry (i, j): a shifted diagonal of varying size
 * and a nonsymmetric random part */
static double dense_entry(int i, int j)
{
    double a = 0.8 * tp_value((uint64_t)(i * DENSE_N + j)) / sqrt((double)DENSE_N);
    if (i == j) a += 1.0 + 2.0 * i / DENSE_N;
    if (j == i + 1) a += 0.7; /* a non-normal part */
    return a;
}

/* rows split by tp_split, every column stored */
static ovk_matrix *dense_matrix(int n)
{
    tp_rows r;
    ovk_matrix *A = NULL;
    tp_rows_alloc(&r, n, n);
    for (int i = 0; i < r.count; i++) {
        int at = r.ptr[i];
        for (int j = 0; j < n; j++) {
            r.col[at] = j;
            r.val[at++] = dense_entry((int)r.start + i, j);
        }
        r.ptr[i + 1] = at;
    }
    MT_RC(OVK_OK, ovk_matrix_create_csr(MPI_COMM_WORLD, r.start, r.count, r.ptr, r.col, r.val, OVK_DUP_REJECT, &A));
    tp_rows_free(&r);
    return A;
}

/* x = A^-1 b for the dense reference matrix (every rank the whole) */
static void dense_solve(int n, const double *b, double *x)
{
    double *a = malloc(sizeof(double) * (size_t)n * (size_t)n);
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < n; j++) a[i * n + j] = dense_entry(i, j);
        x[i] = b[i];
    }
    mt_dense_solve(n, a, x);
    free(a);
}

/* -lap u + p (1, -0.6) . grad u + c u on g x g, first-order upwind, c in
 * [0.5, 1.5) varying by row */
static ovk_matrix *convdiff(int g, double p)
{
    const double vel[2] = {1.0, -0.6};
    tp_rows r;
    ovk_matrix *A = NULL;
    tp_rows_alloc(&r, (int64_t)g * g, 5);
    for (int i = 0; i < r.count; i++) {
        int64_t row = r.start + i, at[2] = {row % g, row / g};
        int len = r.ptr[i];
        double d = 4.0 + 1.0 + tp_value((uint64_t)row);
        for (int k = 0; k < 2; k++) {
            double up = p * fabs(vel[k]);
            d += up;
            for (int s = -1; s <= 1; s += 2) {
                int64_t c = at[k] + s, stride = k == 0 ? 1 : g;
                if (c < 0 || c >= g) continue;
                r.col[len] = row + s * stride;
                r.val[len++] = -1.0 - ((vel[k] > 0) == (s < 0) ? up : 0.0);
            }
        }
        r.col[len] = row;
        r.val[len++] = d;
        r.ptr[i + 1] = len;
    }
    MT_RC(OVK_OK, ovk_matrix_create_csr(MPI_COMM_WORLD, r.start, r.count, r.ptr, r.col, r.val, OVK_DUP_REJECT, &A));
    tp_rows_free(&r);
    return A;
}

/* s = 1..10 against the dense solve, none and jacobi */
static void dense_reference(int rank)
{
    ovk_matrix *A = dense_matrix(DENSE_N);
    ovk_vector *b = NULL, *x = NULL;
    double bg[DENSE_N], xr[DENSE_N], xmax = 0.0;
    ovk_vector_create(A, &b);
    ovk_vector_create(A, &x);
    int64_t start;
    int count, np;
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    tp_split(DENSE_N, rank, np, &start, &count);
    for (int i = 0; i < DENSE_N; i++) bg[i] = tp_value((uint64_t)i + 101);
    dense_solve(DENSE_N, bg, xr);
    for (int i = 0; i < DENSE_N; i++) xmax = fmax(xmax, fabs(xr[i]));
    memcpy(ovk_vector_data(b), bg + start, sizeof(double) * (size_t)count);
    for (int t = 0; t < 20; t++) {
        int s = t % 10 + 1, ov = t / 10;
        char spec[48]; /* a short restart: the s-step cycles do most of the work */
        snprintf(spec, sizeof spec, "sgmres:s=%d,m=%d%s", s, s * (12 / s > 1 ? 12 / s : 1), ov ? ",overlap=1" : "");
        const char *pc = s % 2 ? "none" : "jacobi";
        mt_counted o = mt_solve_counted(A, b, x, (mt_config){spec, pc, s % 3 ? "blocking" : "native", "1e-12", 400, 0});
        double err = 0.0, *xd = ovk_vector_data(x);
        for (int i = 0; i < count; i++) err = fmax(err, fabs(xd[i] - xr[start + i]));
        MPI_Allreduce(MPI_IN_PLACE, &err, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        MT_CHECK(o.rc == OVK_OK && o.reason == OVK_REASON_CONVERGED && o.true_rel < 1e-12 && err < 1e-10 * xmax,
                 "%s/%s: status %s, %d iterations, true residual %.3e, error %.3e", spec, pc, ovk_status_name(o.rc),
                 o.iterations, o.true_rel, err / xmax);
        double got[2] = {(double)o.iterations, o.true_rel};
        MT_CHECK(mt_same_everywhere(MPI_COMM_WORLD, got, 2), "%s: iterations or residual differ across ranks", spec);
        if (rank == 0)
            printf("dense %d: %-22s %-6s %3d iterations, true residual %.2e, error %.2e, restarts %d\n", DENSE_N, spec,
                   pc, o.iterations, o.true_rel, err / xmax, o.restarts);
    }
    ovk_vector_destroy(b);
    ovk_vector_destroy(x);
    ovk_matrix_destroy(A);
}

/* the reductions of cycles 3 and 4 (iterations 45..105 of m = 30: the first
 * cycle makes the shifts' estimate): exactly 2 m / s + 1 a cycle */
static void reductions(int rank, const ovk_matrix *A, const ovk_vector *b, ovk_vector *x)
{
    static const char *const backends[] = {"blocking", "native", "nbc", "offload"};
    static const int svals[] = {3, 5, 10};
    for (int k = 0; k < 4; k++)
        for (int si = 0; si < 6; si++) {
            char spec[32];
            int s = svals[si % 3], m = 30, ov = si / 3;
            if (k == 3 && si % 3 != 2) continue; /* offload (an agent thread a rank): s = 10 only, the test's time */
            snprintf(spec, sizeof spec, "sgmres:s=%d%s", s, ov ? ",overlap=1" : "");
            mt_counted few = mt_solve_counted(A, b, x, (mt_config){spec, "jacobi", backends[k], "1e-30", 45, 0});
            mt_counted many = mt_solve_counted(A, b, x, (mt_config){spec, "jacobi", backends[k], "1e-30", 105, 0});
            int steps = many.iterations - few.iterations;
            long long grow = many.reductions - few.reductions;
            long pmpi = k == 0 ? many.allreduce - few.allreduce : many.iallreduce - few.iallreduce;
            long long want = (long long)(steps / m) * (ov ? m / s + 2 : 2 * m / s + 1);
            MT_CHECK(few.rc == OVK_EMAXIT && many.rc == OVK_EMAXIT && steps == 60 && many.restarts == 0,
                     "%s/%s: %d, %d iterations, %d restarts", spec, backends[k], few.iterations, many.iterations,
                     many.restarts);
            MT_CHECK(grow == want && (double)grow / steps <= 2.0 / s + 1.0 / m + 1e-12,
                     "%s/%s: %lld reductions in %d steps (want %lld)", spec, backends[k], grow, steps, want);
            if (k < 2) MT_CHECK(pmpi == grow, "%s/%s: PMPI counted %ld, the library %lld", spec, backends[k], pmpi, grow);
            if (k == 1)
                MT_CHECK(many.allreduce == few.allreduce, "%s native: MPI_Allreduce %ld vs %ld", spec, many.allreduce,
                         few.allreduce);
            if (rank == 0)
                printf("%-22s %-8s %lld reductions in %d steps (%.3f a basis vector; 2/s + 1/m = %.3f)\n", spec,
                       backends[k], grow, steps, (double)grow / steps, 2.0 / s + 1.0 / m);
        }
}

/* the start-up's price in a one-shot solve: its reductions (PMPI,
 * blocking) over the first cycle (30 iterations) against those of a solve
 * whose shifts were known (the second solve of one object): at most 3 more
 * plus its first blocks' (two blocks of 5 monomial vectors for the first
 * 10 columns, two sums more than one Newton block of 10; with overlap=1 the
 * first cycle's blocks are blocking: 9 sums where a later cycle waits for
 * 5) */
static void startup(int rank, const ovk_matrix *A, const ovk_vector *b, ovk_vector *x)
{
    static const char *const specs[] = {"sgmres:s=5", "sgmres:s=10", "sgmres:s=10,overlap=1"};
    for (int k = 0; k < 3; k++) {
        mt_counted once, known;
        mt_check_startup(A, b, x, specs[k], 30, 3 + 2, &once, &known);
        if (rank == 0)
            printf("%-22s one-shot: %ld reductions in its first cycle (shifts known: %ld)\n", specs[k], once.allreduce,
                   known.allreduce);
    }
}

/* the products and preconditioner applications of an operator solve, and
 * those run while a reduction is posted and not completed */
typedef struct applications {
    long mv, mv_flying, pc, pc_flying;
} applications;

enum { OP_ROWS = 400 };

/* y = A x: each rank's rows a nonsymmetric tridiagonal block of its own */
static int op_matvec(ovk_solver *s, const double *x, double *y, void *ctx)
{
    applications *a = ctx;
    int n = ovk_solver_nlocal(s);
    a->mv++;
    a->mv_flying += mt_reduction_in_flight();
    for (int i = 0; i < n; i++)
        y[i] = (1.0 + 0.01 * i) * x[i] - 1.3 * (i > 0 ? x[i - 1] : 0.0) - 0.7 * (i + 1 < n ? x[i + 1] : 0.0);
    return 0;
}

/* z = r / diag(A) */
static int op_pc(ovk_solver *s, const double *r, double *z, void *ctx)
{
    applications *a = ctx;
    int n = ovk_solver_nlocal(s);
    a->pc++;
    a->pc_flying += mt_reduction_in_flight();
    for (int i = 0; i < n; i++) z[i] = r[i] / (1.0 + 0.01 * i);
    return 0;
}

/* max_it steps (rtol 1e-30) of spec on native, counted */
static applications flying_run(int rank, const char *spec, int max_it)
{
    applications a = {0};
    ovk_solver *s = NULL;
    ovk_vector *b = NULL, *x = NULL;
    ovk_pcg_result res = {0};
    MT_RC(OVK_OK, ovk_solver_create_operator(MPI_COMM_WORLD, OP_ROWS, op_matvec, &a, &s));
    MT_RC(OVK_OK, ovk_solver_set_option(s, "solver", spec));
    MT_RC(OVK_OK, ovk_solver_set_option(s, "backend", "native"));
    MT_RC(OVK_OK, ovk_solver_set_precond_fn(s, op_pc, &a));
    MT_RC(OVK_OK, ovk_solver_set_tolerances(s, 1e-30, 0.0, max_it));
    MT_RC(OVK_OK, ovk_solver_vector_create(s, NULL, &b));
    MT_RC(OVK_OK, ovk_solver_vector_create(s, NULL, &x));
    double *bd = ovk_vector_data(b);
    for (int i = 0; i < OP_ROWS; i++) bd[i] = tp_value((uint64_t)(rank * OP_ROWS + i));
    MT_RC(OVK_OK, ovk_solver_setup(s));
    a = (applications){0};
    int rc = ovk_solver_solve(s, b, x, &res);
    MT_CHECK(rc == OVK_EMAXIT && res.iterations == max_it && res.restarts == 0,
             "%s: status %s, %d iterations, %d restarts", spec, ovk_status_name(rc), res.iterations, res.restarts);
    ovk_solver_destroy(&s);
    ovk_vector_destroy(b);
    ovk_vector_destroy(x);
    return a;
}

/* cycles 3 and 4 (iterations 45..105): a cycle's m products and its end's
 * b - A x and x += C V y; with overlap=1 the products of blocks 2..m/s
 * behind a posted reduction, m - s a cycle; with overlap=0 none */
static void in_flight(int rank)
{
    static const int svals[] = {5, 10};
    for (int ov = 0; ov < 2; ov++)
        for (int si = 0; si < 2; si++) {
            char spec[32];
            int s = svals[si], m = 30, want = ov ? 2 * (m - s) : 0;
            snprintf(spec, sizeof spec, "sgmres:s=%d,overlap=%d", s, ov);
            applications few = flying_run(rank, spec, 45), many = flying_run(rank, spec, 105);
            long mv = many.mv - few.mv, pc = many.pc - few.pc;
            long mvf = many.mv_flying - few.mv_flying, pcf = many.pc_flying - few.pc_flying;
            MT_CHECK(mv == 2 * (m + 1) && pc == 2 * (m + 1) && mvf == want && pcf == want,
                     "%s native: %ld of %ld products and %ld of %ld applications behind a posted reduction (want %d)",
                     spec, mvf, mv, pcf, pc, want);
            if (rank == 0)
                printf("%-22s native: %ld/%ld products, %ld/%ld applications (cycles 3, 4) behind a posted, "
                       "uncompleted reduction\n", spec, mvf, mv, pcf, pc);
        }
}

/* the monomial basis of 16 powers: its Gram matrix is not numerically SPD */
static void safeguard(int rank, const ovk_matrix *A, const ovk_vector *b, ovk_vector *x)
{
    mt_counted g = mt_solve_counted(A, b, x, (mt_config){"gmres", "jacobi", "blocking", "1e-8", 3000, 0});
    for (int ov = 0; ov < 2; ov++) {
        const char *spec = ov ? "sgmres:s=16,basis=monomial,overlap=1" : "sgmres:s=16,basis=monomial";
        mt_counted o = mt_solve_counted(A, b, x, (mt_config){spec, "jacobi", ov ? "native" : "blocking", "1e-8", 3000, 0});
        MT_CHECK(o.rc == OVK_OK && o.reason == OVK_REASON_CONVERGED && o.true_rel < 1e-8 && o.restarts > 0,
                 "%s: status %s, %d iterations, true residual %.3e, %d restarts", spec, ovk_status_name(o.rc),
                 o.iterations, o.true_rel, o.restarts);
        MT_CHECK(strstr(o.view, "safeguard") && strstr(o.view, "not numerically positive definite"),
                 "%s: the view does not say the safeguard acted:\n%s", spec, o.view);
        MT_CHECK(o.iterations <= 2 * g.iterations, "%s: %d iterations, gmres %d", spec, o.iterations, g.iterations);
        if (rank == 0)
            printf("forced safeguard: %s %d iterations with %d safeguard cycles\n", spec, o.iterations, o.restarts);
    }
    mt_counted n = mt_solve_counted(A, b, x, (mt_config){"sgmres:s=5", "jacobi", "blocking", "1e-8", 3000, 0});
    MT_CHECK(n.rc == OVK_OK && n.true_rel < 1e-8 && n.restarts == 0 && !strstr(n.view, "safeguard"),
             "newton s=5: status %s, true residual %.3e, %d restarts", ovk_status_name(n.rc), n.true_rel, n.restarts);
    MT_CHECK(n.iterations <= g.iterations + g.iterations / 2, "newton s=5: %d iterations, gmres %d", n.iterations,
             g.iterations);
    mt_counted v = mt_solve_counted(A, b, x, (mt_config){"sgmres:s=10,overlap=1", "jacobi", "native", "1e-8", 3000, 0});
    MT_CHECK(strstr(v.view, "in flight behind the next block's products") != NULL, "overlap=1: the view says:\n%s",
             v.view);
    MT_CHECK(v.rc == OVK_OK && v.true_rel < 1e-8 && v.restarts == 0 && !strstr(v.view, "safeguard") &&
                 v.iterations <= g.iterations + g.iterations / 2,
             "newton s=10 overlap=1: status %s, true residual %.3e, %d restarts, %d iterations (gmres %d)",
             ovk_status_name(v.rc), v.true_rel, v.restarts, v.iterations, g.iterations);
    /* m = 28: the third cycle needs a few columns, fewer than s, by the second's rate: blocking blocks */
    mt_counted t = mt_solve_counted(A, b, x, (mt_config){"sgmres:s=10,m=28,overlap=1", "jacobi", "native", "1e-8", 3000, 0});
    MT_CHECK(t.rc == OVK_OK && t.true_rel < 1e-8 && strstr(t.view, "ran with blocking blocks") != NULL,
             "s=10,m=28,overlap=1: status %s, %d iterations, true residual %.3e, view:\n%s", ovk_status_name(t.rc),
             t.iterations, t.true_rel, t.view);
    if (rank == 0)
        printf("convection-diffusion: gmres %d iterations; sgmres:s=5 %d; sgmres:s=10,overlap=1 %d; "
               "sgmres:s=10,m=28,overlap=1 %d\n", g.iterations, n.iterations, v.iterations, t.iterations);
}

/* the spec's status: at set_option or at setup */
static int spec_status(const ovk_matrix *A, const char *spec)
{
    ovk_solver *s = NULL;
    MT_RC(OVK_OK, ovk_solver_create(A, &s));
    int rc = ovk_solver_set_option(s, "solver", spec);
    if (!rc) rc = ovk_solver_setup(s);
    ovk_solver_destroy(&s);
    return rc;
}

static void bad_input(const ovk_matrix *big)
{
    static const char *const specs[] = {"sgmres:s=0", "sgmres:s=-3", "sgmres:s=33", "sgmres:s=10,m=5",
                                        "sgmres:s=4,basis=chebyshev", "sgmres:overlap=2", "sgmres:overlap=-1"};
    for (int i = 0; i < 7; i++) {
        int rc = spec_status(big, specs[i]);
        MT_CHECK(rc == OVK_EOPTION, "%s: status %s", specs[i], ovk_status_name(rc));
        double v = rc;
        MT_CHECK(mt_same_everywhere(MPI_COMM_WORLD, &v, 1), "%s: status differs across ranks", specs[i]);
    }
    ovk_matrix *small = convdiff(2, 1.0); /* 4 rows */
    int rc = spec_status(small, "sgmres:s=5");
    double v = rc;
    MT_CHECK(rc == OVK_EOPTION, "s = 5 on 4 rows: status %s", ovk_status_name(rc));
    MT_CHECK(mt_same_everywhere(MPI_COMM_WORLD, &v, 1), "s above the rows: status differs across ranks");
    rc = spec_status(small, "sgmres:s=4");
    MT_CHECK(rc == OVK_OK, "s = 4 on 4 rows: status %s", ovk_status_name(rc));
    ovk_matrix_destroy(small);
}

int main(int argc, char **argv)
{
    int rank, provided = MPI_THREAD_SINGLE;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    double t0 = MPI_Wtime();
    dense_reference(rank);
    ovk_matrix *A = convdiff(40, 2.0);
    ovk_vector *b = NULL, *x = NULL;
    ovk_vector_create(A, &b);
    ovk_vector_create(A, &x);
    mt_random_b(A, b);
    reductions(rank, A, b, x);
    startup(rank, A, b, x);
    in_flight(rank);
    safeguard(rank, A, b, x);
    bad_input(A);
    ovk_vector_destroy(b);
    ovk_vector_destroy(x);
    ovk_matrix_destroy(A);
    if (rank == 0) printf("seconds: %.2f\n", MPI_Wtime() - t0);
    int rc = mt_finish("test_sgmres");
    MPI_Finalize();
    return rc;
}

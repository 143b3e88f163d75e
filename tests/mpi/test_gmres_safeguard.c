/* The GMRES family's robustness (every GMRES on every shared matrix:
 * test_gmres_matrices): one cycle's ||I - V^T V||_F on watt_2 (cond ~1e11,
 * skipped without the shared matrices; gmres:orthloss=1, read from the
 * view) stays below 1e-10 with the default dcgs2 and is far larger with one
 * classical pass; a matrix whose Krylov basis loses its orthogonality in one
 * pass makes orth=cgs's safeguard reorthogonalize fully (the view says so)
 * and converge; a preconditioner that returns NaN or fails leaves every
 * GMRES's x finite (the last finite iterate); pgmres with shifts that
 * overflow falls back to gmres instead of failing. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mpitest.h"
#include "problem.h"

enum { VIEW_LEN = 4096 };

typedef struct outcome {
    int rc, iterations;
    ovk_reason reason;
    double rel, true_rel, start_rel; /* reported, ||b - A x|| / ||b||, ||b - A x0|| / ||b|| */
    char view[VIEW_LEN];
} outcome;

static void view_text(ovk_solver *s, char *text)
{
    FILE *f = tmpfile();
    MT_RC(OVK_OK, ovk_solver_view(s, f));
    rewind(f);
    size_t len = fread(text, 1, VIEW_LEN - 1, f);
    text[len] = '\0';
    fclose(f);
}

/* b = A 1 (ones) or random, as ovk_mtx_solve -rhs random */
static void make_b(const ovk_matrix *A, ovk_vector *b, int ones)
{
    int n = ovk_matrix_nlocal(A);
    if (ones) {
        ovk_vector *u = NULL;
        ovk_vector_duplicate(b, &u);
        ovk_vector_set(u, 1.0);
        ovk_matvec(A, u, b);
        ovk_vector_destroy(u);
        return;
    }
    double *bd = ovk_vector_data(b);
    int64_t start = ovk_matrix_row_start(A);
    for (int i = 0; i < n; i++) { /* SplitMix64 of the global row in [-1, 1): the drivers' -rhs random */
        uint64_t z = (uint64_t)(start + i) + 0x9e3779b97f4a7c15ULL;
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        z ^= z >> 31;
        bd[i] = (double)(z >> 11) / 4503599627370496.0 - 1.0;
    }
}

typedef int (*pc_fn)(ovk_solver *s, const double *in, double *out, void *ctx);

static outcome solve_to(const ovk_matrix *A, const char *solver, const char *precond, pc_fn fn, void *ctx, int ones,
                        int max_it, const char *rtol)
{
    ovk_solver *s = NULL;
    ovk_vector *b = NULL, *x = NULL;
    ovk_pcg_result res;
    outcome o = {0};
    char buf[32];
    ovk_vector_create(A, &b);
    ovk_vector_create(A, &x);
    make_b(A, b, ones);
    MT_RC(OVK_OK, ovk_solver_create((ovk_matrix *)A, &s));
    MT_RC(OVK_OK, ovk_solver_set_option(s, "solver", solver));
    if (fn) MT_RC(OVK_OK, ovk_solver_set_precond_fn(s, fn, ctx));
    else MT_RC(OVK_OK, ovk_solver_set_option(s, "precond", precond));
    MT_RC(OVK_OK, ovk_solver_set_option(s, "rtol", rtol));
    snprintf(buf, sizeof buf, "%d", max_it);
    MT_RC(OVK_OK, ovk_solver_set_option(s, "max_it", buf));
    memset(&res, 0, sizeof res);
    o.rc = ovk_solver_setup(s);
    if (!o.rc) o.rc = ovk_solver_solve(s, b, x, &res);
    o.iterations = res.iterations;
    o.reason = res.reason;
    o.rel = res.rel_residual;
    o.true_rel = mt_rel_residual(A, b, x);
    o.start_rel = 1.0; /* x0 = 0 */
    view_text(s, o.view);
    ovk_solver_destroy(&s);
    ovk_vector_destroy(b);
    ovk_vector_destroy(x);
    return o;
}

static outcome solve(const ovk_matrix *A, const char *solver, const char *precond, pc_fn fn, void *ctx, int ones,
                     int max_it)
{
    return solve_to(A, solver, precond, fn, ctx, ones, max_it, "1e-8");
}

/* converged truly, or an honest end: not "converged", the reported
 * residual the true one, not above the start */
static void expect_honest(const char *what, const outcome *o)
{
    if (o->rc == OVK_OK) {
        MT_CHECK(o->reason == OVK_REASON_CONVERGED && o->true_rel < 1e-8, "%s: true residual %.3e", what, o->true_rel);
        return;
    }
    MT_CHECK((o->rc == OVK_EMAXIT || o->rc == OVK_EBREAKDOWN) && o->reason != OVK_REASON_CONVERGED &&
                 fabs(o->rel - o->true_rel) <= 1e-6 * o->true_rel && o->true_rel <= o->start_rel * (1.0 + 1e-12),
             "%s: status %d, reason %s, reported %.12e, true %.12e", what, o->rc, ovk_reason_name(o->reason), o->rel,
             o->true_rel);
}

/* ||I - V^T V||_F of the view's orthloss line (-1: none) */
static double loss_of(const char *view)
{
    const char *at = strstr(view, "||I - V^T V||_F = ");
    return at ? atof(at + strlen("||I - V^T V||_F = ")) : -1.0;
}

/* one cycle of 30 steps on watt_2: dcgs2 keeps V orthogonal to 1e-10 */
static void orthogonality(int rank)
{
    ovk_matrix *A = mt_nonsym_matrix("watt_2");
    if (!A) return;
    outcome d = solve(A, "gmres:orthloss=1", "jacobi", NULL, NULL, 0, 30);
    outcome g = solve(A, "gmres:orthloss=1,orth=cgs", "jacobi", NULL, NULL, 0, 30);
    double ld = loss_of(d.view), lg = loss_of(g.view);
    MT_CHECK(ld >= 0.0 && ld <= 1e-10, "dcgs2: ||I - V^T V|| = %g: %s", ld, d.view);
    MT_CHECK(lg > 1e3 * ld, "cgs: ||I - V^T V|| = %g, dcgs2's %g", lg, ld);
    MT_CHECK(strstr(d.view, "(30 vectors)") != NULL, "view: %s", d.view);
    if (rank == 0) printf("watt_2, one cycle, jacobi: ||I - V^T V||_F = %.2e (dcgs2), %.2e (one classical pass)\n", ld, lg);
    ovk_matrix_destroy(A);
}

/* diagonal, CLUSTERS tight clusters spread geometrically over [1, 1e8]:
 * GMRES converges within a cycle, and as its residual falls by 1e-8 one
 * classical pass loses the basis (the loss grows as ||b|| / ||r||) */
enum { DIAG_N = 640, CLUSTERS = 5 };

static ovk_matrix *clustered(void)
{
    int r, np, count;
    int64_t start;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    tp_split(DIAG_N, r, np, &start, &count);
    int *ptr = malloc(sizeof(int) * ((size_t)count + 1));
    ovk_gidx *cols = malloc(sizeof(ovk_gidx) * ((size_t)count + 1));
    double *vals = malloc(sizeof(double) * ((size_t)count + 1));
    ptr[0] = 0;
    for (int i = 0; i < count; i++) {
        int64_t row = start + i;
        cols[i] = row;
        vals[i] = pow(10.0, 8.0 * (double)(row % CLUSTERS) / (CLUSTERS - 1)) *
                  (1.0 + 1e-6 * (double)(row / CLUSTERS) / (DIAG_N / CLUSTERS));
        ptr[i + 1] = i + 1;
    }
    ovk_matrix *A = NULL;
    MT_RC(OVK_OK, ovk_matrix_create_csr(MPI_COMM_WORLD, start, count, ptr, cols, vals, OVK_DUP_REJECT, &A));
    free(ptr);
    free(cols);
    free(vals);
    return A;
}

/* one classical pass loses the basis on watt_2 (||I - V^T V|| ~ 30 after a
 * cycle): the safeguard reorthogonalizes fully and the solve converges (to
 * 1e-5: one cycle undone, GMRES(30) is slow on watt_2); on the
 * clustered spectrum dcgs2 converges within its first cycle, one pass
 * takes more */
static void safeguard(int rank, int size)
{
    ovk_matrix *A = mt_nonsym_matrix("watt_2");
    static const char *const solvers[] = {"gmres:orth=cgs", "fgmres:orth=cgs", "gmres:orth=cgs,basis=single"};
    for (int s = 0; A && s < (size > 2 ? 1 : 3); s++) { /* 3 and 4 ranks: the first (time) */
        outcome o = solve_to(A, solvers[s], "jacobi", NULL, NULL, 0, 3000, "1e-5");
        int guarded = strstr(o.view, "safeguard: the cycle ending at iteration") != NULL;
        MT_CHECK(o.rc == OVK_OK && o.true_rel < 1e-5 && guarded, "watt_2 %s: status %d, true %g: %s",
                 solvers[s], o.rc, o.true_rel, o.view);
        if (rank == 0)
            printf("watt_2 rtol 1e-5 %-28s %5d iterations, true residual %.2e, safeguard %s\n", solvers[s],
                   o.iterations, o.true_rel, guarded ? "on" : "off");
        if (rank == 0 && s == 0) printf("%s", strstr(o.view, "  safeguard") ? strstr(o.view, "  safeguard") : "");
    }
    if (A) ovk_matrix_destroy(A);
    A = clustered();
    outcome d = solve(A, "gmres", "none", NULL, NULL, 0, 3000), g = solve(A, "gmres:orth=cgs", "none", NULL, NULL, 0, 3000);
    MT_CHECK(d.rc == OVK_OK && d.true_rel < 1e-8 && d.iterations <= 30, "clustered gmres: status %d, %d iterations",
             d.rc, d.iterations);
    expect_honest("clustered gmres:orth=cgs", &g);
    if (rank == 0)
        printf("clustered: dcgs2 %d iterations (true %.2e), one classical pass %d (true %.2e)\n", d.iterations,
               d.true_rel, g.iterations, g.true_rel);
    ovk_matrix_destroy(A);
}

/* a preconditioner (identity) that returns NaN, or fails, from its
 * call-th application on rank 0 */
typedef struct bad_pc {
    int calls, at, fail;
} bad_pc;

static int bad_apply(ovk_solver *s, const double *in, double *out, void *ctx)
{
    bad_pc *b = ctx;
    int rank, n = ovk_solver_nlocal(s);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int i = 0; i < n; i++) out[i] = in[i];
    if (++b->calls < b->at || rank != 0) return 0;
    if (b->fail) return 7;
    for (int i = 0; i < n; i++) out[i] = NAN;
    return 0;
}

/* 1-D convection-diffusion, 2000 rows */
static ovk_matrix *convdiff1(void)
{
    int r, np, count;
    int64_t start;
    const int64_t n = 2000;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    tp_split(n, r, np, &start, &count);
    int *ptr = malloc(sizeof(int) * ((size_t)count + 1));
    ovk_gidx *cols = malloc(sizeof(ovk_gidx) * (3 * (size_t)count + 1));
    double *vals = malloc(sizeof(double) * (3 * (size_t)count + 1));
    ptr[0] = 0;
    for (int i = 0; i < count; i++) {
        int64_t row = start + i;
        int len = ptr[i];
        if (row > 0) cols[len] = row - 1, vals[len++] = -1.6;
        cols[len] = row, vals[len++] = 2.2;
        if (row + 1 < n) cols[len] = row + 1, vals[len++] = -0.4;
        ptr[i + 1] = len;
    }
    ovk_matrix *A = NULL;
    MT_RC(OVK_OK, ovk_matrix_create_csr(MPI_COMM_WORLD, start, count, ptr, cols, vals, OVK_DUP_REJECT, &A));
    free(ptr);
    free(cols);
    free(vals);
    return A;
}

/* NaN or a failure from the preconditioner: x stays finite */
static void last_finite(int rank)
{
    ovk_matrix *A = convdiff1();
    static const char *const solvers[] = {"gmres", "fgmres", "gmres:basis=single", "pgmres:l=2,lmin=0.2,lmax=4",
                                          "pgmres:l=1"};
    for (int s = 0; s < 5; s++)
        for (int fail = 0; fail < 2; fail++)
            for (int at = 5; at <= 40; at += 35) {
                bad_pc b = {.at = at, .fail = fail};
                outcome o = solve(A, solvers[s], NULL, bad_apply, &b, 0, 500);
                int want = fail ? OVK_ECALLBACK : OVK_ENONFINITE;
                MT_CHECK(o.rc == want && isfinite(o.true_rel) && o.true_rel <= 1.0 + 1e-12,
                         "%s, %s at call %d: status %d, ||b - A x|| / ||b|| = %g", solvers[s], fail ? "failure" : "NaN",
                         at, o.rc, o.true_rel);
                if (rank == 0 && at == 40)
                    printf("%-28s %-7s at call %d: status %s, x finite, ||b - A x|| / ||b|| = %.2e\n", solvers[s],
                           fail ? "failure" : "NaN", at, ovk_status_name(o.rc), o.true_rel);
            }
    /* shifts whose powers overflow: the documented fallback to gmres */
    outcome o = solve(A, "pgmres:l=2,lmin=0,lmax=1e300", "jacobi", NULL, NULL, 0, 500);
    MT_CHECK(o.rc == OVK_OK && o.true_rel < 1e-8, "pgmres:lmin=0,lmax=1e300: status %d, true residual %g", o.rc,
             o.true_rel);
    ovk_matrix_destroy(A);
}

/* utm1700a, pgmres:l=3 with eisenstat: a non-finite Gram matrix falls back
 * to gmres, an honest end */
static void utm(int rank)
{
    ovk_matrix *A = mt_nonsym_matrix("utm1700a");
    if (!A) return;
    outcome o = solve(A, "pgmres:l=3", "eisenstat", NULL, NULL, 0, 300);
    expect_honest("utm1700a pgmres:l=3 eisenstat", &o);
    if (rank == 0)
        printf("utm1700a pgmres:l=3 eisenstat: %s, %d iterations, true residual %.2e\n", ovk_status_name(o.rc),
               o.iterations, o.true_rel);
    ovk_matrix_destroy(A);
}

int main(int argc, char **argv)
{
    int rank, size, provided = MPI_THREAD_SINGLE;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double t1 = MPI_Wtime();
    orthogonality(rank);
    safeguard(rank, size);
    double t2 = MPI_Wtime();
    last_finite(rank);
    utm(rank);
    if (rank == 0) printf("seconds: orthogonality and safeguard %.2f, the rest %.2f\n", t2 - t1, MPI_Wtime() - t2);
    int rc = mt_finish("test_gmres_safeguard");
    MPI_Finalize();
    return rc;
}

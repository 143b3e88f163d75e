/* groppcg, pipeprcg and plcg (l = 1..4) against alg1, with Jacobi and no
 * preconditioner, on every available backend (default options: no
 * MPI_THREAD_MULTIPLE needed):
 *   - every solve: the monitor sees each iteration once, in order (plcg's
 *     fallback to pipeprcg saw its switch iteration twice before: LFAT5,
 *     bcsstk02);
 *   - the 27- and 7-point Laplacians (uneven split, a zero-row rank from 3
 *     ranks): converged, true residual ||b - A x||/||b|| below tol, the
 *     iteration count within 2 of alg1's (same preconditioner, same ranks);
 *   - every shared matrix (skipped when absent), tol 1e-8: groppcg and
 *     pipeprcg as above, the iteration count within the limits of
 *     test_matrices: +-2 when cond2 < 1e5 (without a preconditioner
 *     +-(2 + 1 %): on bcsstk09, cond2 9.5e3, the count of CG moves by 3 with
 *     the order of the sums - pipeprcg took 277 against alg1's 274 at 2 and
 *     3 ranks, and after alg1 summed <s,p> inside the matvec, alg1 took 277
 *     and groppcg 274 at 3 ranks), 15 % from
 *     there (pipeprcg without a preconditioner 25 %: bcsstk03, cond2 6.8e6,
 *     took 435 against 391 at 2 ranks, 450 at 4 ranks in the sanitizer
 *     build), a factor 2.5 in
 *     the rounding-dominated regime (alg1 > 5n iterations: plat362;
 *     measured 1.22-1.25x); without a preconditioner only the matrices where
 *     alg1 converges within NONE_MAX_ALG1 iterations (the others are out of
 *     reach of unpreconditioned CG in a CI budget), and none where alg1's
 *     iterations x nnz exceed WORK_MAX (bcsstk13, bcsstk25: the sanitizer
 *     run at 2 ranks took 278 s of the 300 s limit with them); on the shared
 *     matrices only blocking and nbc (several reductions in flight) run,
 *     every backend on the Laplacians (time, likewise); solves with alg1 >
 *     VERY_LONG iterations on blocking only;
 *   - plcg, l = 1..4, on the shared matrices with cond2 < PLCG_COND (the
 *     well-conditioned ones) as above with +-2.  On the others (blocking
 *     only, time), Jacobi and none: converged with the true residual below
 *     tol within (1 + PLCG_ILL) alg1's count (2.5x in the rounding-dominated
 *     regime, where alg1 takes more steps than the matrix has rows: plat362,
 *     LFAT5 without a preconditioner, whose plcg count moves with the last
 *     bits of the estimated spectrum bound).  There the deep pipelines break down (the
 *     square-root breakdown) or lose the true residual, and plcg goes on
 *     with pipeprcg's recurrences from x (docs/solvers-notes.md, plcg; the
 *     worst are LFAT5 and nos3 with Jacobi at l = 3, under 1.9x alg1's
 *     count);
 *   - plcg:l=3 with several reductions in flight (native, nbc, offload):
 *     the residual history, iteration count and final residual are bitwise
 *     identical on every rank (every decision uses reduced values only);
 *   - the square-root breakdown of plcg, provoked by shifts from bounds far
 *     outside the spectrum (lmin=50,lmax=100 for D^-1 A in (0, 2)): it
 *     restarts (res.restarts > 0), replaces the bounds by its estimate, and
 *     converges with the true residual below tol;
 *   - the spec: plcg:l=9, plcg:l=0, plcg:lmin=1 (no lmax), plcg:foo=1 and
 *     groppcg:l=1 are refused with OVK_EOPTION on every rank. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include <math.h>
#include <string.h>
#include <sys/stat.h>

#include "mpitest.h"
#include "problem.h"

#ifndef OVK_MATRIX_DIR
#define OVK_MATRIX_DIR "../shared/data/matrices"
#endif

#define LAP_TOL 1e-10
#define MTX_TOL 1e-8
#define MAX_ITER 20000
#define NONE_MAX_ALG1 600  /* no preconditioner: matrices where alg1 needs at most this */
#define WORK_MAX 3e7       /* alg1 iterations x nnz beyond which a matrix is skipped */
#define VERY_LONG 2000     /* alg1 iterations beyond which only blocking runs (plat362) */
#define PLCG_COND 1e3      /* plcg: alg1's count +-2 below this cond2, on every backend */
#define PLCG_ILL 1.0       /* plcg above it (blocking only): at most (1 + PLCG_ILL) alg1's count */

static const char *const solvers[] = {"groppcg", "pipeprcg", "plcg", "plcg:l=2", "plcg:l=3", "plcg:l=4"};
enum { NSOLVERS = 6, NPLAIN = 2 }; /* the first two */
static const char *const pcs[] = {"jacobi", "none"};

typedef struct mcase {
    const char *name;
    int n;
    double cond;
} mcase;

static const mcase cases[] = {
    {"LFAT5.mtx", 14, 1.43e8},         {"bcsstk02.mtx", 66, 4.32e3},      {"pts5ldd03.mtx", 161, 51.8},
    {"494_bus.mtx", 494, 2.42e6},      {"gr_30_30.mtx", 900, 1.95e2},     {"nos3.mtx", 960, 3.77e4},
    {"bcsstk09.mtx", 1083, 9.52e3},    {"1138_bus.mtx", 1138, 8.57e6},    {"lap2D_5pt_n100.mtx", 10000, 4.13e3},
    {"bcsstk03.mtx", 112, 6.79e6},     {"plat362.mtx", 362, 2.18e11},     {"685_bus.mtx", 685, 4.23e5},
    {"bcsstk08.mtx", 1074, 2.60e7},    {"bcsstk14.mtx", 1806, 1.19e10},   {"bcsstk13.mtx", 2003, 1.10e10},
    {"bcsstk25.mtx", 15439, 4.41e12},  {"lap3D_7pt_n20.mtx", 8000, 1.78e2},
};
enum { NCASES = (int)(sizeof cases / sizeof cases[0]) };

static int g_rank;

typedef struct outcome {
    int rc;
    ovk_pcg_result res;
    double true_res;
    int calls, last, out_of_order; /* the monitor's calls, the last iteration, repeats or skips */
} outcome;

/* the monitor sees each iteration once, in order (also across plcg's
 * fallback and pipeprcg's refreshes) */
static int count_calls(ovk_solver *s, int it, double rnorm, double rel, void *ctx)
{
    (void)s, (void)rnorm, (void)rel;
    outcome *o = ctx;
    if (it != o->last + 1) o->out_of_order++;
    o->calls++;
    o->last = it;
    return 0;
}

/* ||b - A x|| / ||b|| */
static double true_rel(const ovk_matrix *A, const ovk_vector *b, const ovk_vector *x)
{
    ovk_vector *t = NULL;
    double nr = 0.0, nb = 1.0;
    ovk_vector_create(A, &t);
    ovk_matvec(A, x, t);
    ovk_vector_axpy(-1.0, b, t);
    ovk_vector_norm2(t, &nr);
    ovk_vector_norm2(b, &nb);
    ovk_vector_destroy(t);
    return nr / nb;
}

/* A x = b from x0 = 0 */
static outcome solve(const ovk_matrix *A, const ovk_vector *b, const char *solver, const char *pc,
                     const char *backend, double tol)
{
    outcome o = {.last = -1};
    ovk_vector *x = NULL;
    ovk_solver *s = NULL;
    ovk_vector_create(A, &x);
    int rc = ovk_solver_create(A, &s);
    if (!rc) rc = ovk_solver_set_option(s, "solver", solver);
    if (!rc) rc = ovk_solver_set_option(s, "precond", pc);
    if (!rc) rc = ovk_solver_set_option(s, "backend", backend);
    if (!rc) rc = ovk_solver_set_tolerances(s, tol, 0.0, MAX_ITER);
    if (!rc) rc = ovk_solver_set_monitor(s, count_calls, &o);
    if (!rc) rc = ovk_solver_setup(s);
    if (!rc) rc = ovk_solver_solve(s, b, x, &o.res);
    o.rc = rc;
    o.true_res = true_rel(A, b, x);
    ovk_solver_destroy(&s);
    ovk_vector_destroy(x);
    return o;
}

/* b = A x*, x* a hash of the global row */
static void make_rhs(const ovk_matrix *A, ovk_vector *b)
{
    ovk_vector *t = NULL;
    ovk_vector_create(A, &t);
    for (int i = 0; i < ovk_vector_nlocal(t); i++)
        ovk_vector_data(t)[i] = tp_value((uint64_t)(ovk_matrix_row_start(A) + i));
    ovk_matvec(A, t, b);
    ovk_vector_destroy(t);
}

/* The iteration count against alg1's (see the top); plcg_ill: plcg on a
 * matrix with cond2 >= PLCG_COND. */
static int close_to_alg1(const mcase *c, int it, int ref, double slack, double ill, int plcg_ill)
{
    int diff = abs(it - ref);
    if (!c) return diff <= 2;
    if (ref > 5 * c->n) return it <= 2.5 * ref;
    if (plcg_ill) return it <= (ref > c->n ? 2.5 : 1.0 + PLCG_ILL) * ref;
    if (c->cond < 1e5) return diff <= 2 + slack * ref;
    return diff <= ill * ref;
}

/* counted = 0: no iteration limit */
static void check(const mcase *c, const char *what, int counted, const outcome *o, const outcome *ref, double tol)
{
    MT_RC(OVK_OK, o->rc);
    MT_CHECK(o->res.reason == OVK_REASON_CONVERGED, "%s: %s", what, ovk_reason_name(o->res.reason));
    MT_CHECK(o->true_res < tol, "%s: true residual %g", what, o->true_res);
    MT_CHECK(o->calls == o->res.iterations + 1 && !o->out_of_order,
             "%s: %d monitor calls for %d iterations, %d out of order", what, o->calls, o->res.iterations,
             o->out_of_order);
    double slack = strstr(what, " none ") ? 0.01 : 0.0;       /* see the top */
    double ill = strstr(what, " none pipeprcg") ? 0.25 : 0.15;
    int plcg_ill = c && c->cond >= PLCG_COND && strstr(what, " plcg");
    MT_CHECK(!counted || close_to_alg1(c, o->res.iterations, ref->res.iterations, slack, ill, plcg_ill),
             "%s: %d iterations, alg1 %d", what, o->res.iterations, ref->res.iterations);
    if (g_rank == 0)
        printf("%-40s it %5d (alg1 %5d) true %.2e restarts %d repl %d\n", what, o->res.iterations,
               ref->res.iterations, o->true_res, o->res.restarts, o->res.replacements);
}

/* Which solvers run on A (c NULL: a Laplacian), on which backends, and
 * whether their counts are checked (see the top). */
static int plan(const mcase *c, int v, const char *pc, const char *backend, int alg1_its, int *counted)
{
    int plain = v < NPLAIN, well = !c || c->cond < PLCG_COND;
    (void)pc;
    *counted = 1;
    if (!plain && !well && strcmp(backend, "blocking")) return 0; /* plcg on the others: blocking (time) */
    if (c && alg1_its > VERY_LONG) return !strcmp(backend, "blocking");
    return !c || !strcmp(backend, "blocking") || !strcmp(backend, "nbc");
}

/* the new solvers x the available backends on A */
static void run_all(const ovk_matrix *A, const mcase *c, const char *label, const char *pc, double tol)
{
    ovk_vector *b = NULL;
    char what[160];
    ovk_vector_create(A, &b);
    make_rhs(A, b);
    outcome ref = solve(A, b, "alg1", pc, "blocking", tol);
    MT_RC(OVK_OK, ref.rc);
    long long nnz = ovk_matrix_nnz_local(A);
    MPI_Allreduce(MPI_IN_PLACE, &nnz, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (c && (double)ref.res.iterations * (double)nnz > WORK_MAX) {
        if (g_rank == 0) printf("%s %s: alg1 %d iterations x %lld nnz, skipped\n", label, pc, ref.res.iterations, nnz);
        ovk_vector_destroy(b);
        return;
    }
    for (int v = 0; v < NSOLVERS; v++)
        for (int k = 0; k < ovk_backend_count(); k++) {
            ovk_backend_info info;
            int counted = 1;
            ovk_backend_get_info(k, &info);
            if (!info.available || !plan(c, v, pc, info.name, ref.res.iterations, &counted)) continue;
            outcome o = solve(A, b, solvers[v], pc, info.name, tol);
            snprintf(what, sizeof what, "%s %s %s/%s", label, pc, solvers[v], info.name);
            check(c, what, counted, &o, &ref, tol);
        }
    ovk_vector_destroy(b);
}

static void test_laplacians(void)
{
    int stencils[] = {27, 7};
    for (int s = 0; s < 2; s++)
        for (int p = 0; p < 2; p++) {
            ovk_matrix *A = NULL;
            char label[32];
            MT_RC(OVK_OK, tp_laplace(MPI_COMM_WORLD, stencils[s], 12, 0.0, &A));
            snprintf(label, sizeof label, "%d-pt g=12", stencils[s]);
            run_all(A, NULL, label, pcs[p], LAP_TOL);
            ovk_matrix_destroy(A);
        }
}

static int matrix_dir_exists(void)
{
    struct stat st;
    return stat(OVK_MATRIX_DIR, &st) == 0 && S_ISDIR(st.st_mode);
}

/* alg1's count without a preconditioner decides whether the matrix runs */
static void test_matrices(void)
{
    if (!matrix_dir_exists()) {
        if (g_rank == 0) printf("note: %s not found; shared matrices skipped\n", OVK_MATRIX_DIR);
        return;
    }
    for (int k = 0; k < NCASES; k++) {
        char path[4096];
        ovk_matrix *A = NULL;
        if (mt_sanitized_skip(cases[k].n)) continue;
        snprintf(path, sizeof path, "%s/%s", OVK_MATRIX_DIR, cases[k].name);
        MT_RC(OVK_OK, ovk_mm_read(MPI_COMM_WORLD, path, &A));
        for (int p = 0; p < 2; p++) {
            if (p == 1) {
                ovk_vector *b = NULL;
                ovk_vector_create(A, &b);
                make_rhs(A, b);
                outcome ref = solve(A, b, "alg1", "none", "blocking", MTX_TOL);
                ovk_vector_destroy(b);
                if (ref.rc || ref.res.iterations > NONE_MAX_ALG1) {
                    if (g_rank == 0) printf("%s none: alg1 %d iterations, skipped\n", cases[k].name, ref.res.iterations);
                    continue;
                }
            }
            run_all(A, &cases[k], cases[k].name, pcs[p], MTX_TOL);
        }
        ovk_matrix_destroy(A);
    }
}

/* plcg:l=3 with reductions in flight: bitwise identical decisions */
static void test_bitwise(void)
{
    ovk_matrix *A = NULL;
    ovk_vector *b = NULL, *x = NULL;
    double hist[400];
    MT_RC(OVK_OK, tp_laplace(MPI_COMM_WORLD, 27, 12, 0.0, &A));
    ovk_vector_create(A, &b);
    ovk_vector_create(A, &x);
    make_rhs(A, b);
    const char *backends[] = {"native", "nbc", "offload"};
    for (int k = 0; k < 3; k++) {
        ovk_solver *s = NULL;
        ovk_pcg_result res;
        memset(hist, 0, sizeof hist);
        MT_RC(OVK_OK, ovk_solver_create(A, &s));
        MT_RC(OVK_OK, ovk_solver_set_option(s, "solver", "plcg:l=3"));
        MT_RC(OVK_OK, ovk_solver_set_option(s, "backend", backends[k]));
        MT_RC(OVK_OK, ovk_solver_set_option(s, "rtol", "1e-12"));
        MT_RC(OVK_OK, ovk_solver_set_history(s, hist, 400));
        MT_RC(OVK_OK, ovk_solver_setup(s));
        ovk_vector_set(x, 0.0);
        MT_RC(OVK_OK, ovk_solver_solve(s, b, x, &res));
        double v[3] = {res.rel_residual, (double)res.iterations, (double)res.restarts};
        MT_CHECK(mt_same_everywhere(MPI_COMM_WORLD, hist, 400), "%s: residual history differs between ranks",
                 backends[k]);
        MT_CHECK(mt_same_everywhere(MPI_COMM_WORLD, v, 3), "%s: result differs between ranks", backends[k]);
        MT_CHECK(res.history_len > 10, "%s: history of %d", backends[k], res.history_len);
        if (g_rank == 0) printf("plcg:l=3/%s: %d iterations, history bitwise identical on every rank\n", backends[k],
                                res.iterations);
        ovk_solver_destroy(&s);
    }
    ovk_vector_destroy(b);
    ovk_vector_destroy(x);
    ovk_matrix_destroy(A);
}

/* shifts from bounds far outside the spectrum: breakdown, restart, converged */
static void test_breakdown(void)
{
    ovk_matrix *A = NULL;
    ovk_vector *b = NULL;
    MT_RC(OVK_OK, tp_laplace(MPI_COMM_WORLD, 27, 12, 0.0, &A));
    ovk_vector_create(A, &b);
    make_rhs(A, b);
    const char *specs[] = {"plcg:l=2,lmin=50,lmax=100", "plcg:l=3,lmin=50,lmax=100"};
    for (int i = 0; i < 2; i++) {
        outcome o = solve(A, b, specs[i], "jacobi", "nbc", LAP_TOL);
        MT_RC(OVK_OK, o.rc);
        MT_CHECK(o.res.restarts > 0, "%s: no restart (no breakdown provoked?)", specs[i]);
        MT_CHECK(o.res.reason == OVK_REASON_CONVERGED && o.true_res < LAP_TOL, "%s: %s, true residual %g", specs[i],
                 ovk_reason_name(o.res.reason), o.true_res);
        if (g_rank == 0)
            printf("%s: %d restarts, converged in %d iterations, true residual %.2e\n", specs[i], o.res.restarts,
                   o.res.iterations, o.true_res);
    }
    ovk_vector_destroy(b);
    ovk_matrix_destroy(A);
}

static void test_specs(void)
{
    ovk_matrix *A = NULL;
    MT_RC(OVK_OK, tp_laplace(MPI_COMM_WORLD, 7, 4, 0.0, &A));
    const char *bad[] = {"plcg:l=9", "plcg:l=0", "plcg:lmin=1", "plcg:lmin=2,lmax=1", "plcg:foo=1", "groppcg:l=1"};
    for (int i = 0; i < 6; i++) {
        ovk_solver *s = NULL;
        MT_RC(OVK_OK, ovk_solver_create(A, &s));
        int rc = ovk_solver_set_option(s, "solver", bad[i]);
        if (!rc) rc = ovk_solver_setup(s);
        int lo = rc, hi = rc;
        MPI_Allreduce(MPI_IN_PLACE, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
        MPI_Allreduce(MPI_IN_PLACE, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        MT_CHECK(lo == OVK_EOPTION && hi == OVK_EOPTION, "%s: status %d..%d (%s)", bad[i], lo, hi, ovk_error_detail());
        if (g_rank == 0) printf("%-22s refused: %s\n", bad[i], ovk_error_detail());
        ovk_solver_destroy(&s);
    }
    ovk_matrix_destroy(A);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    double t0 = MPI_Wtime();
    test_specs();
    test_breakdown();
    test_bitwise();
    test_laplacians();
    test_matrices();
    if (g_rank == 0) printf("time %.2f s\n", MPI_Wtime() - t0);
    int rc = mt_finish("test_pipelines");
    MPI_Finalize();
    return rc;
}

/* Attainable accuracy: A x = b with b = A x* (x* a hash of the global row),
 * x0 = 0, a tolerance no solver can meet (1e-300) and a fixed iteration
 * count N = 2 alg1(1e-8) + 10 (alg1's count to 1e-8 with the same
 * preconditioner, at most 20000): the final relative A-norm error
 * ||x - x*||_A / ||x*||_A, which by then has stopped improving for every
 * solver (measured: alg1 reaches its floor near 1.2 alg1(1e-8)).
 *
 * Checked (CI, every shared matrix, Jacobi and no preconditioner; without a
 * preconditioner only where alg1 converges within NONE_MAX_ALG1 iterations;
 * not where N x nnz exceeds WORK_MAX: plat362 with Jacobi, bcsstk13, 14,
 * 25, which the table covers; the sanitizer run at 2 ranks took 271 s of
 * the 300 s limit with them), with err_alg1 alg1's error:
 *   - pipeprcg: err <= 10 err_alg1 (within one order of magnitude) with
 *     Jacobi on every matrix, and without a preconditioner on the matrices
 *     with cond2 < PRCG_NONE_COND.  Without one on the ill-conditioned
 *     ones it loses more (measured at 2 ranks, log10 err against alg1's:
 *     LFAT5 -9.2/-13.3, bcsstk03 -11.5/-14.0, 494_bus -12.9/-14.3, 685_bus
 *     -13.5/-14.9): checked there is only err <= 10 err_pipecg;
 *   - pipecg (its default, automatic residual replacement): err <= 10
 *     err_alg1 with Jacobi on every matrix (measured at 1 rank: within 0.2
 *     orders on the checked ones; bcsstk13, not checked, 1.1 short);
 *     without a preconditioner it is up to 9 orders short (LFAT5), which is
 *     why pipeprcg is preferred to pipecg without a preconditioner
 *     (docs/solvers-notes.md): printed, and err_pipeprcg <= 10 err_pipecg checked;
 *   - plcg, l = 1..3: err <= 10 err_alg1 with Jacobi on every matrix but
 *     those of plcg_short, and without a preconditioner on the matrices
 *     with cond2 < PRCG_NONE_COND; without one on the others, where
 *     pipeprcg itself is short, err <= 10 err_pipeprcg.  plcg_short (with
 *     Jacobi: bcsstk03, 1138_bus, 494_bus; without: LFAT5, 494_bus) is where
 *     plcg breaks down late and falls back to pipeprcg's recurrences too
 *     late to regain the accuracy within N (measured at 1-4 ranks with the
 *     two-term recurrences, orders short of alg1: bcsstk03 l = 1 2.7-3.4,
 *     l = 2 up to 1.4, l = 3 up to 1.5; 1138_bus l = 2 0.8-1.3, l = 3 up
 *     to 1.8; 494_bus l = 3 up to 1.2; with the three-term ones before:
 *     bcsstk03 l = 1 2.2-3.3, l = 2 up to 2.7, 1138_bus l = 2 2.2; LFAT5
 *     none 2 orders short of pipeprcg, 494_bus none 1.05 in the sanitizer
 *     build at 2 ranks): checked there within SHORT_ORDERS of the same
 *     reference.
 * The checks take errors as at least FLOOR = 1e-14: below that they are
 * rounding noise that changes order with the rank count (the table prints
 * them as they are).
 *
 * `mpi_test_accuracy --table` prints instead the table of docs/solvers-notes.md:
 * log10 of the error of every registered solver and plcg:l=2, l=3, on every
 * shared matrix, Jacobi and none (N capped at 20000 where alg1 does not
 * reach 1e-8), and asserts nothing. */
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

#define MAX_N 20000
#define NONE_MAX_ALG1 3000
#define WORK_MAX 3e7 /* N x nnz beyond which CI skips a case */
#define SHORT_ORDERS 4.0 /* plcg_short's bound, orders of magnitude above the reference */
#define PRCG_NONE_COND 1e5
#define FLOOR 1e-14 /* errors below are rounding noise (LFAT5: 1e-16 to 1e-17 by rank count) */

typedef struct mcase {
    const char *name;
    double cond;
} mcase;

static const mcase cases[] = {
    {"LFAT5.mtx", 1.43e8},    {"bcsstk02.mtx", 4.32e3}, {"pts5ldd03.mtx", 51.8},  {"494_bus.mtx", 2.42e6},
    {"gr_30_30.mtx", 1.95e2}, {"nos3.mtx", 3.77e4},     {"bcsstk09.mtx", 9.52e3}, {"1138_bus.mtx", 8.57e6},
    {"lap2D_5pt_n100.mtx", 4.13e3}, {"bcsstk03.mtx", 6.79e6}, {"plat362.mtx", 2.18e11}, {"685_bus.mtx", 4.23e5},
    {"bcsstk08.mtx", 2.60e7}, {"bcsstk14.mtx", 1.19e10}, {"bcsstk13.mtx", 1.10e10}, {"bcsstk25.mtx", 4.41e12},
    {"lap3D_7pt_n20.mtx", 1.78e2},
};
enum { NCASES = (int)(sizeof cases / sizeof cases[0]) };

static int g_rank;

/* The system: A, x*, b = A x*, and <x*, A x*>. */
typedef struct sys {
    ovk_matrix *A;
    ovk_vector *xs, *b, *x, *e, *ae;
    double xax;
} sys;

static void sys_init(sys *s, ovk_matrix *A)
{
    s->A = A;
    ovk_vector_create(A, &s->xs);
    ovk_vector_create(A, &s->b);
    ovk_vector_create(A, &s->x);
    ovk_vector_create(A, &s->e);
    ovk_vector_create(A, &s->ae);
    for (int i = 0; i < ovk_vector_nlocal(s->xs); i++)
        ovk_vector_data(s->xs)[i] = tp_value((uint64_t)(ovk_matrix_row_start(A) + i));
    MT_RC(OVK_OK, ovk_matvec(A, s->xs, s->b));
    MT_RC(OVK_OK, ovk_vector_dot(s->xs, s->b, &s->xax));
}

static void sys_free(sys *s)
{
    ovk_vector *v[] = {s->xs, s->b, s->x, s->e, s->ae};
    for (int i = 0; i < 5; i++) ovk_vector_destroy(v[i]);
    ovk_matrix_destroy(s->A);
}

/* Solve from x0 = 0 with tol and max_iter; the iterations done, and the
 * final ||x - x*||_A / ||x*||_A in *err. */
static int run(sys *s, const char *solver, const char *pc, double tol, int max_iter, double *err)
{
    ovk_solver *sv = NULL;
    ovk_pcg_result res;
    memset(&res, 0, sizeof res);
    ovk_vector_set(s->x, 0.0);
    int rc = ovk_solver_create(s->A, &sv);
    if (!rc) rc = ovk_solver_set_option(sv, "solver", solver);
    if (!rc) rc = ovk_solver_set_option(sv, "precond", pc);
    if (!rc) rc = ovk_solver_set_tolerances(sv, tol, 0.0, max_iter);
    if (!rc) rc = ovk_solver_setup(sv);
    if (!rc) rc = ovk_solver_solve(sv, s->b, s->x, &res);
    MT_CHECK(rc == OVK_OK || rc == OVK_EMAXIT || rc == OVK_EBREAKDOWN, "%s/%s: %s", solver, pc, ovk_error_detail());
    ovk_solver_destroy(&sv);
    double eae = 0.0;
    ovk_vector_copy(s->x, s->e);
    ovk_vector_axpy(-1.0, s->xs, s->e); /* e = x - x* */
    ovk_matvec(s->A, s->e, s->ae);
    ovk_vector_dot(s->e, s->ae, &eae);
    *err = sqrt(fabs(eae) / s->xax);
    return res.iterations;
}

static void report(const mcase *c, const char *pc, const char *solver, int n_fixed, double err, double ref)
{
    if (g_rank == 0)
        printf("%-19s %-6s %-9s N %5d  log10 err %7.2f (alg1 %7.2f)\n", c->name, pc, solver, n_fixed, log10(err),
               log10(ref));
}

/* a <= 10 b, both taken as at least FLOOR */
static int within_order(double a, double b) { return fmax(a, FLOOR) <= 10.0 * fmax(b, FLOOR); }

/* where plcg (some l = 1..3, some rank count) ends more than one order short */
static const struct {
    const char *name, *pc;
} plcg_short[] = {{"bcsstk03.mtx", "jacobi"}, {"1138_bus.mtx", "jacobi"}, {"494_bus.mtx", "jacobi"},
                  {"LFAT5.mtx", "none"}, {"494_bus.mtx", "none"}};

static int is_short(const mcase *c, const char *pc)
{
    for (size_t i = 0; i < sizeof plcg_short / sizeof plcg_short[0]; i++)
        if (!strcmp(plcg_short[i].pc, pc) && !strcmp(plcg_short[i].name, c->name)) return 1;
    return 0;
}

/* CI: pipeprcg, pipecg, plcg (l = 1..3) against alg1 (see the top) */
static void check_case(sys *s, const mcase *c, const char *pc, int n_fixed)
{
    const char *plcg[] = {"plcg", "plcg:l=2", "plcg:l=3"};
    double ref = 0.0, prcg = 0.0, pipe = 0.0, err = 0.0;
    run(s, "alg1", pc, 1e-300, n_fixed, &ref);
    run(s, "pipeprcg", pc, 1e-300, n_fixed, &prcg);
    run(s, "pipecg", pc, 1e-300, n_fixed, &pipe);
    report(c, pc, "pipeprcg", n_fixed, prcg, ref);
    report(c, pc, "pipecg", n_fixed, pipe, ref);
    if (!strcmp(pc, "jacobi") || c->cond < PRCG_NONE_COND)
        MT_CHECK(within_order(prcg, ref), "%s %s pipeprcg: log10 A-norm error %.2f, alg1 %.2f", c->name, pc, log10(prcg),
                 log10(ref));
    MT_CHECK(within_order(prcg, pipe), "%s %s pipeprcg: log10 A-norm error %.2f, pipecg %.2f", c->name, pc, log10(prcg),
             log10(pipe));
    if (!strcmp(pc, "jacobi"))
        MT_CHECK(within_order(pipe, ref), "%s %s pipecg: log10 A-norm error %.2f, alg1 %.2f", c->name, pc, log10(pipe),
                 log10(ref));
    for (int v = 0; v < 3; v++) {
        run(s, plcg[v], pc, 1e-300, n_fixed, &err);
        report(c, pc, plcg[v], n_fixed, err, ref);
        int vs_alg1 = !strcmp(pc, "jacobi") || c->cond < PRCG_NONE_COND;
        double against = vs_alg1 ? ref : prcg, orders = is_short(c, pc) ? SHORT_ORDERS : 1.0;
        MT_CHECK(fmax(err, FLOOR) <= pow(10.0, orders) * fmax(against, FLOOR), "%s %s %s: log10 A-norm error %.2f, %s %.2f",
                 c->name, pc, plcg[v], log10(err), vs_alg1 ? "alg1" : "pipeprcg", log10(against));
    }
}

/* --table: every solver, one markdown row per matrix and preconditioner */
static void table_row(sys *s, const mcase *c, const char *pc, int n_fixed)
{
    char names[32][32];
    int count = 0;
    for (int i = 0; i < mt_recurrence_count() && count < 30; i++) snprintf(names[count++], 32, "%s", mt_recurrence_name(i));
    snprintf(names[count++], 32, "plcg:l=2");
    snprintf(names[count++], 32, "plcg:l=3");
    if (g_rank == 0) printf("| %s | %s | %d |", c->name, pc, n_fixed);
    for (int v = 0; v < count; v++) {
        double err = 0.0;
        run(s, names[v], pc, 1e-300, n_fixed, &err);
        if (g_rank == 0) printf(" %.1f |", log10(err));
    }
    if (g_rank == 0) printf("\n");
    fflush(stdout);
}

static void table_header(void)
{
    if (g_rank != 0) return;
    printf("| matrix | precond | N |");
    for (int i = 0; i < mt_recurrence_count(); i++) printf(" %s |", mt_recurrence_name(i));
    printf(" plcg:l=2 | plcg:l=3 |\n|---|---|---|");
    for (int i = 0; i < mt_recurrence_count() + 2; i++) printf("---|");
    printf("\n");
}

static double global_nnz(const ovk_matrix *A)
{
    long long nnz = ovk_matrix_nnz_local(A);
    MPI_Allreduce(MPI_IN_PLACE, &nnz, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    return (double)nnz;
}

static int matrix_dir_exists(void)
{
    struct stat st;
    return stat(OVK_MATRIX_DIR, &st) == 0 && S_ISDIR(st.st_mode);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    int table = argc > 1 && !strcmp(argv[1], "--table");
    if (!matrix_dir_exists()) {
        if (g_rank == 0) printf("note: %s not found; test skipped\n", OVK_MATRIX_DIR);
        MPI_Finalize();
        return 77;
    }
    double t0 = MPI_Wtime();
    const char *pcs[] = {"jacobi", "none"};
    if (table) table_header();
    for (int k = 0; k < NCASES; k++)
        for (int p = 0; p < 2; p++) {
            char path[4096];
            ovk_matrix *A = NULL;
            sys s;
            double err;
            snprintf(path, sizeof path, "%s/%s", OVK_MATRIX_DIR, cases[k].name);
            MT_RC(OVK_OK, ovk_mm_read(MPI_COMM_WORLD, path, &A));
            if (mt_sanitized_skip(ovk_matrix_nglobal(A))) {
                ovk_matrix_destroy(A);
                continue;
            }
            sys_init(&s, A);
            int it = run(&s, "alg1", pcs[p], 1e-8, MAX_N, &err); /* alg1(1e-8) */
            int n_fixed = 2 * it + 10 < MAX_N ? 2 * it + 10 : MAX_N;
            if (table) table_row(&s, &cases[k], pcs[p], n_fixed);
            else if ((p == 0 || it <= NONE_MAX_ALG1) && (double)n_fixed * global_nnz(A) <= WORK_MAX)
                check_case(&s, &cases[k], pcs[p], n_fixed);
            sys_free(&s);
        }
    if (g_rank == 0) printf("time %.2f s\n", MPI_Wtime() - t0);
    int rc = table ? 0 : mt_finish("test_accuracy");
    MPI_Finalize();
    return rc;
}

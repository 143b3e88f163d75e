/* The solver object (solver.h) and the preconditioners:
 *   - every preconditioner x every solver x every backend converges on the
 *     uneven split (a zero-row rank at 3+ ranks) with the true residual
 *     below tol, or refuses the combination with OVK_EUNSUPPORTED;
 *   - a user operator (the assembled matvec behind the callback) and a user
 *     preconditioner reproduce the assembled iteration counts exactly;
 *   - a second and a hundredth solve on the set-up object create no
 *     communicator (PMPI counts of every communicator constructor);
 *   - a value update + solve equals a fresh object on the new values;
 *   - monitor stop, history, atol, x0 != 0, b = 0;
 *   - bad input: unknown names and options, IC(0) breakdown, Chebyshev
 *     bounds of an indefinite matrix, a failing callback on one rank, options
 *     that differ across ranks, another pattern, use before setup and after
 *     destroy: each the same clear status on every rank, no hang. */
#include <math.h>
#include <string.h>

#include "mpitest.h"
#include "problem.h"

static long n_comm_new; /* communicators created */

int MPI_Comm_dup(MPI_Comm c, MPI_Comm *n)
{
    n_comm_new++;
    return PMPI_Comm_dup(c, n);
}
int MPI_Comm_idup(MPI_Comm c, MPI_Comm *n, MPI_Request *r)
{
    n_comm_new++;
    return PMPI_Comm_idup(c, n, r);
}
int MPI_Comm_split(MPI_Comm c, int color, int key, MPI_Comm *n)
{
    n_comm_new++;
    return PMPI_Comm_split(c, color, key, n);
}
int MPI_Comm_split_type(MPI_Comm c, int type, int key, MPI_Info info, MPI_Comm *n)
{
    n_comm_new++;
    return PMPI_Comm_split_type(c, type, key, info, n);
}
int MPI_Comm_create(MPI_Comm c, MPI_Group g, MPI_Comm *n)
{
    n_comm_new++;
    return PMPI_Comm_create(c, g, n);
}

static const char *const solvers[] = {"alg1", "alg2", "overlap", "cg1", "pipecg", "groppcg", "pipeprcg", "plcg:l=3"};
static const char *const preconds[] = {"jacobi", "diag", "none", "ic0", "ssor", "ssor:omega=1.4", "cheby",
                                       "cheby:degree=4"};
static const char *const backends[] = {"blocking", "native", "nbc", "offload:engine=agent"};
enum { NSOLVERS = 8, NPRECONDS = 8, NBACKENDS = 4 };

static int g_rank, g_size;

/* b = A * (tp_value of the global row) */
static void make_rhs(ovk_matrix *A, ovk_vector *b)
{
    ovk_vector *t = NULL;
    ovk_vector_duplicate(b, &t);
    double *d = ovk_vector_data(t);
    for (int i = 0; i < ovk_vector_nlocal(t); i++) d[i] = tp_value((uint64_t)(ovk_matrix_row_start(A) + i));
    ovk_matvec(A, t, b);
    ovk_vector_destroy(t);
}

/* The 27-point Laplacian of 12^3 points per rank, b = A x* and x */
static void laplace_system(ovk_matrix **A, ovk_vector **b, ovk_vector **x)
{
    MT_RC(OVK_OK, tp_laplace(MPI_COMM_WORLD, 27, 12, 0.0, A));
    ovk_vector_create(*A, b);
    ovk_vector_create(*A, x);
    make_rhs(*A, *b);
}

static void free_system(ovk_matrix *A, ovk_vector *b, ovk_vector *x)
{
    ovk_vector_destroy(x);
    ovk_vector_destroy(b);
    ovk_matrix_destroy(A);
}

/* ||b - A x|| / ||b|| */
static double true_rel(ovk_matrix *A, const ovk_vector *b, const ovk_vector *x)
{
    ovk_vector *r = NULL;
    double rr = 0.0, bb = 0.0;
    ovk_vector_duplicate(b, &r);
    ovk_matvec(A, x, r);
    ovk_vector_scale(-1.0, r);
    ovk_vector_axpy(1.0, b, r);
    ovk_vector_dot(r, r, &rr);
    ovk_vector_dot(b, b, &bb);
    ovk_vector_destroy(r);
    return sqrt(rr / bb);
}

static ovk_solver *setup_solver(ovk_matrix *A, const char *solver, const char *pc, const char *backend, int *rc)
{
    ovk_solver *s = NULL;
    MT_RC(OVK_OK, ovk_solver_create(A, &s));
    MT_RC(OVK_OK, ovk_solver_set_option(s, "solver", solver));
    MT_RC(OVK_OK, ovk_solver_set_option(s, "precond", pc));
    MT_RC(OVK_OK, ovk_solver_set_option(s, "backend", backend));
    MT_RC(OVK_OK, ovk_solver_set_option(s, "rtol", "1e-8"));
    *rc = ovk_solver_setup(s);
    return s;
}

static int is_split(const char *solver) { return !strcmp(solver, "alg2") || !strcmp(solver, "overlap"); }

/* every preconditioner x solver x backend */
static void test_matrix_of_combinations(void)
{
    ovk_matrix *A = NULL;
    ovk_vector *b = NULL, *x = NULL;
    laplace_system(&A, &b, &x);
    int base[NPRECONDS] = {0};
    for (int k = 0; k < NBACKENDS; k++)
        for (int p = 0; p < NPRECONDS; p++)
            for (int v = 0; v < NSOLVERS; v++) {
                int rc = 0;
                ovk_pcg_result res;
                ovk_solver *s = setup_solver(A, solvers[v], preconds[p], backends[k], &rc);
                if (is_split(solvers[v]) && !strncmp(preconds[p], "cheby", 5)) {
                    MT_RC(OVK_EUNSUPPORTED, rc);
                    MT_CHECK(strstr(ovk_error_detail(), "split") != NULL, "detail: %s", ovk_error_detail());
                    ovk_solver_destroy(&s);
                    continue;
                }
                MT_RC(OVK_OK, rc);
                ovk_vector_set(x, 0.0);
                rc = ovk_solver_solve(s, b, x, &res);
                MT_CHECK(rc == OVK_OK, "%s/%s/%s: %s", solvers[v], preconds[p], backends[k], ovk_error_detail());
                double rel = true_rel(A, b, x);
                MT_CHECK(rel < 2e-8, "%s/%s/%s: true residual %g", solvers[v], preconds[p], backends[k], rel);
                if (!base[p]) base[p] = res.iterations;
                MT_CHECK(abs(res.iterations - base[p]) <= 2, "%s/%s/%s: %d iterations, alg1 %d", solvers[v],
                         preconds[p], backends[k], res.iterations, base[p]);
                MT_RC(OVK_OK, ovk_solver_destroy(&s));
                MT_CHECK(s == NULL, "destroy sets the handle to NULL");
            }
    /* fewer iterations than Jacobi: IC(0), SSOR, Chebyshev of degree 4 */
    MT_CHECK(base[3] < base[0] && base[4] < base[0], "ic0 %d, ssor %d vs jacobi %d", base[3], base[4], base[0]);
    MT_CHECK(2 * base[7] <= base[0], "cheby:degree=4 %d vs jacobi %d", base[7], base[0]);
    free_system(A, b, x);
}

/* ---- user operator and preconditioner -------------------------------------- */

typedef struct user_op {
    ovk_matrix *A;
    ovk_vector *in, *out; /* wrapping the solver's arrays */
    const double *d;      /* Jacobi: a_ii */
    int fail_rank, fail_after, calls;
} user_op;

static int op_apply(ovk_solver *s, const double *x, double *y, void *ctx)
{
    user_op *u = ctx;
    int n = ovk_solver_nlocal(s);
    memcpy(ovk_vector_data(u->in), x, sizeof(double) * (size_t)n);
    ovk_solver_progress(s);
    int rc = ovk_matvec(u->A, u->in, u->out); /* its halo exchange runs even when the call fails */
    memcpy(y, ovk_vector_data(u->out), sizeof(double) * (size_t)n);
    if (u->fail_rank == g_rank && ++u->calls > u->fail_after) return 42;
    return rc;
}

static int pc_apply(ovk_solver *s, const double *r, double *z, void *ctx)
{
    user_op *u = ctx;
    for (int i = 0; i < ovk_solver_nlocal(s); i++) z[i] = r[i] / u->d[i];
    return 0;
}

static void test_user_callbacks(void)
{
    ovk_matrix *A = NULL;
    ovk_vector *b = NULL, *x = NULL, *bu = NULL, *xu = NULL;
    MT_RC(OVK_OK, tp_laplace(MPI_COMM_WORLD, 27, 10, 0.0, &A));
    int n = ovk_matrix_nlocal(A);
    double *diag = malloc(sizeof(double) * (size_t)(n + 1));
    ovk_vector_create(A, &b);
    ovk_vector_create(A, &x);
    make_rhs(A, b);
    user_op u = {.A = A, .d = diag, .fail_rank = -1};
    ovk_vector_create(A, &u.in);
    ovk_vector_create(A, &u.out);
    for (int i = 0; i < n; i++) diag[i] = 26.0; /* the Laplacian's a_ii */
    for (int v = 0; v < NSOLVERS; v++)
        for (int k = 0; k < NBACKENDS; k++) {
            int rc = 0;
            ovk_pcg_result ra, ru;
            ovk_solver *s = setup_solver(A, solvers[v], "jacobi", backends[k], &rc), *su = NULL;
            ovk_vector_set(x, 0.0);
            MT_RC(OVK_OK, ovk_solver_solve(s, b, x, &ra));
            ovk_solver_destroy(&s);
            MT_RC(OVK_OK, ovk_solver_create_operator(MPI_COMM_WORLD, n, op_apply, &u, &su));
            MT_RC(OVK_OK, ovk_solver_set_option(su, "solver", solvers[v]));
            MT_RC(OVK_OK, ovk_solver_set_option(su, "backend", backends[k]));
            MT_RC(OVK_OK, ovk_solver_set_precond_fn(su, pc_apply, &u));
            rc = ovk_solver_setup(su);
            if (is_split(solvers[v])) { /* no split form of a callback */
                MT_RC(OVK_EUNSUPPORTED, rc);
                ovk_solver_destroy(&su);
                continue;
            }
            MT_RC(OVK_OK, rc);
            MT_RC(OVK_OK, ovk_solver_vector_create(su, NULL, &bu));
            MT_RC(OVK_OK, ovk_solver_vector_create(su, NULL, &xu));
            ovk_vector_copy(b, bu);
            MT_RC(OVK_OK, ovk_solver_solve(su, bu, xu, &ru));
            MT_CHECK(ru.iterations == ra.iterations, "%s/%s: operator %d vs matrix %d iterations", solvers[v],
                     backends[k], ru.iterations, ra.iterations);
            MT_CHECK(true_rel(A, b, xu) < 2e-8, "%s/%s: operator solve's true residual", solvers[v], backends[k]);
            /* the matrix-based preconditioner needs the matrix */
            MT_RC(OVK_OK, ovk_solver_set_precond_fn(su, NULL, NULL));
            MT_RC(OVK_OK, ovk_solver_set_option(su, "precond", "ic0"));
            MT_RC(OVK_EUNSUPPORTED, ovk_solver_setup(su));
            ovk_vector_destroy(bu);
            ovk_vector_destroy(xu);
            ovk_solver_destroy(&su);
        }
    /* a failing operator callback on one rank: OVK_ECALLBACK everywhere */
    for (int v = 0; v < NSOLVERS; v++) {
        ovk_solver *su = NULL;
        MT_RC(OVK_OK, ovk_solver_create_operator(MPI_COMM_WORLD, n, op_apply, &u, &su));
        MT_RC(OVK_OK, ovk_solver_set_option(su, "solver", solvers[v]));
        MT_RC(OVK_OK, ovk_solver_set_option(su, "precond", "none"));
        MT_RC(OVK_OK, ovk_solver_set_option(su, "backend", "nbc"));
        MT_RC(OVK_OK, ovk_solver_setup(su));
        ovk_solver_vector_create(su, NULL, &bu);
        ovk_solver_vector_create(su, NULL, &xu);
        ovk_vector_copy(b, bu);
        u.fail_rank = g_size - 1; /* from the sixth product on */
        u.fail_after = 5;
        u.calls = 0;
        int rc = ovk_solver_solve(su, bu, xu, NULL);
        MT_CHECK(rc == OVK_ECALLBACK, "%s: failing callback gives %d (%s)", solvers[v], rc, ovk_error_detail());
        MT_CHECK(strstr(ovk_error_detail(), "returned 42") != NULL, "detail: %s", ovk_error_detail());
        ovk_vector_destroy(bu);
        ovk_vector_destroy(xu);
        /* at setup (the operator norm of cg1, pipecg) the same */
        u.calls = 0;
        MT_RC(OVK_OK, ovk_solver_set_option(su, "solver", "alg2")); /* and back: the variant redone, its norm too */
        MT_RC(OVK_OK, ovk_solver_set_option(su, "solver", solvers[v]));
        rc = ovk_solver_setup(su);
        int norm = !strcmp(solvers[v], "cg1") || !strcmp(solvers[v], "pipecg"); /* ||A|| at setup */
        MT_CHECK(rc == (norm ? OVK_ECALLBACK : OVK_OK), "%s: setup with a failing callback: %d", solvers[v], rc);
        ovk_solver_destroy(&su);
        u.fail_rank = -1;
    }
    ovk_vector_destroy(u.in);
    ovk_vector_destroy(u.out);
    ovk_vector_destroy(b);
    ovk_vector_destroy(x);
    free(diag);
    ovk_matrix_destroy(A);
}

/* ---- reuse: no communicator per solve; value updates --------------------- */

/* the rows of tp_laplace(7-point, g) with `scale` times its values and
 * `shift` on the diagonal, on the same uneven split */
static int laplace_rows(int g, double scale, double shift, int64_t *start, int *count, int **ptr, ovk_gidx **cols,
                        double **vals)
{
    tp_split((int64_t)g * g * g, g_rank, g_size, start, count);
    *ptr = malloc(sizeof(int) * ((size_t)*count + 1));
    *cols = malloc(sizeof(ovk_gidx) * 7 * ((size_t)*count + 1));
    *vals = malloc(sizeof(double) * 7 * ((size_t)*count + 1));
    (*ptr)[0] = 0;
    for (int i = 0; i < *count; i++) {
        int64_t row = *start + i, x = row % g, y = (row / g) % g, z = row / ((int64_t)g * g);
        int len = (*ptr)[i];
        static const int off[7][3] = {{0, 0, 0}, {-1, 0, 0}, {1, 0, 0}, {0, -1, 0}, {0, 1, 0}, {0, 0, -1}, {0, 0, 1}};
        for (int k = 0; k < 7; k++) {
            int64_t a = x + off[k][0], b = y + off[k][1], c = z + off[k][2];
            if (a < 0 || b < 0 || c < 0 || a >= g || b >= g || c >= g) continue;
            (*cols)[len] = a + g * (b + (int64_t)g * c);
            (*vals)[len++] = k ? -scale : 6.0 * scale + shift;
        }
        (*ptr)[i + 1] = len;
    }
    return OVK_OK;
}

static void test_reuse_and_update(void)
{
    int64_t start;
    int count, *ptr = NULL;
    ovk_gidx *cols = NULL;
    double *vals = NULL;
    ovk_matrix *A = NULL, *B = NULL;
    ovk_vector *b = NULL, *x = NULL, *y = NULL;
    laplace_rows(14, 1.0, 0.5, &start, &count, &ptr, &cols, &vals);
    MT_RC(OVK_OK, ovk_matrix_create_csr(MPI_COMM_WORLD, start, count, ptr, cols, vals, OVK_DUP_REJECT, &A));
    ovk_vector_create(A, &b);
    ovk_vector_create(A, &x);
    ovk_vector_create(A, &y);
    make_rhs(A, b);
    for (int p = 0; p <= NPRECONDS; p++) { /* and plcg last: its spectrum estimate follows the values */
        int rc = 0;
        const char *sv = p == NPRECONDS ? "plcg:l=2" : strncmp(preconds[p], "cheby", 5) ? "overlap" : "pipecg";
        const char *pc = p == NPRECONDS ? "jacobi" : preconds[p];
        ovk_solver *s = setup_solver(A, sv, pc, "nbc", &rc);
        MT_RC(OVK_OK, rc);
        ovk_pcg_result r1, r2, r3;
        ovk_vector_set(x, 0.0);
        MT_RC(OVK_OK, ovk_solver_solve(s, b, x, &r1)); /* the first solve */
        long before = n_comm_new;
        for (int k = 0; k < 99; k++) {
            ovk_vector_set(x, 0.0);
            MT_RC(OVK_OK, ovk_solver_solve(s, b, x, &r2));
        }
        MT_CHECK(n_comm_new == before, "%s: %ld communicators created by 99 solves", pc, n_comm_new - before);
        if (p == 0) { /* batches: the first asks the node's cache, the next ones make no communicator */
            ovk_vector *B2[2] = {b, b}, *X2[2] = {x, y};
            ovk_pcg_result rm[2];
            MT_RC(OVK_OK, ovk_solver_solve_many(s, 2, B2, X2, rm));
            before = n_comm_new;
            for (int k = 0; k < 3; k++) {
                ovk_vector_set(x, 0.0);
                ovk_vector_set(y, 0.0);
                MT_RC(OVK_OK, ovk_solver_solve_many(s, 2, B2, X2, rm));
            }
            MT_CHECK(n_comm_new == before, "%s: %ld communicators created by 3 batches", pc, n_comm_new - before);
        }
        MT_CHECK(r2.iterations == r1.iterations, "%s: same iterations on reuse", pc);
        /* new values on the same pattern vs a fresh object on them */
        free(ptr), free(cols), free(vals);
        laplace_rows(14, 2.0, 0.25, &start, &count, &ptr, &cols, &vals);
        MT_RC(OVK_OK, ovk_matrix_update_values(A, ptr, cols, vals, OVK_DUP_REJECT));
        MT_RC(OVK_OK, ovk_matrix_create_csr(MPI_COMM_WORLD, start, count, ptr, cols, vals, OVK_DUP_REJECT, &B));
        ovk_vector_set(x, 0.0);
        MT_RC(OVK_OK, ovk_solver_solve(s, b, x, &r2));
        ovk_solver *f = setup_solver(B, sv, pc, "nbc", &rc);
        ovk_vector_set(y, 0.0);
        MT_RC(OVK_OK, ovk_solver_solve(f, b, y, &r3));
        MT_CHECK(r2.iterations == r3.iterations, "%s: update %d vs fresh %d iterations", pc, r2.iterations,
                 r3.iterations);
        MT_CHECK(!memcmp(ovk_vector_data(x), ovk_vector_data(y), sizeof(double) * (size_t)count),
                 "%s: update and fresh object give bitwise the same x", pc);
        /* and back: the old values again */
        free(ptr), free(cols), free(vals);
        laplace_rows(14, 1.0, 0.5, &start, &count, &ptr, &cols, &vals);
        MT_RC(OVK_OK, ovk_matrix_update_values(A, ptr, cols, vals, OVK_DUP_REJECT));
        ovk_vector_set(x, 0.0);
        MT_RC(OVK_OK, ovk_solver_solve(s, b, x, &r2));
        MT_CHECK(r2.iterations == r1.iterations, "%s: old values again", pc);
        ovk_solver_destroy(&f);
        ovk_matrix_destroy(B);
        ovk_solver_destroy(&s);
    }
    /* another pattern: refused everywhere, matrix unchanged */
    if (count > 0) cols[ptr[1] - 1] = (cols[ptr[1] - 1] + 3) % ((ovk_gidx)14 * 14 * 14);
    int rc = ovk_matrix_update_values(A, ptr, cols, vals, OVK_DUP_SUM);
    MT_CHECK(rc == OVK_EMISMATCH, "another pattern: %d (%s)", rc, ovk_error_detail());
    free(ptr), free(cols), free(vals);
    ovk_vector_destroy(b);
    ovk_vector_destroy(x);
    ovk_vector_destroy(y);
    ovk_matrix_destroy(A);
}

/* ---- monitor, history, atol, x0, b = 0 ----------------------------------- */

static int stop_at_5(ovk_solver *s, int it, double rnorm, double rel, void *ctx)
{
    (void)s, (void)rnorm, (void)rel;
    ++*(int *)ctx;
    return it >= 5 && g_rank == 0; /* one rank asks: every rank stops */
}

static int count_calls(ovk_solver *s, int it, double rnorm, double rel, void *ctx)
{
    (void)s, (void)rnorm, (void)rel;
    int *seen = ctx; /* seen[0] calls, seen[1] the last iteration, seen[2] repeats or skips */
    if (it != seen[1] + 1) seen[2]++;
    seen[0]++;
    seen[1] = it;
    return 0;
}

/* The monitor sees each iteration once, in order, also where a residual
 * replacement (replace_every = 1) decides an iteration again on refreshed
 * values, and across plcg's restart after a breakdown with the spec's
 * bounds (lmin=50,lmax=100 on a Jacobi Laplacian, spectrum in (0, 2)).
 * Measured before the fix: cg1 and pipecg 54 calls for 27 iterations. */
static void test_monitor_once(void)
{
    ovk_matrix *A = NULL;
    ovk_vector *b = NULL, *x = NULL;
    laplace_system(&A, &b, &x);
    const char *specs[NSOLVERS + 1];
    for (int v = 0; v < NSOLVERS; v++) specs[v] = solvers[v];
    specs[NSOLVERS] = "plcg:l=2,lmin=50,lmax=100";
    for (int v = 0; v <= NSOLVERS; v++) {
        int rc = 0, seen[3] = {0, -1, 0};
        ovk_pcg_result res;
        ovk_solver *s = setup_solver(A, specs[v], "jacobi", "nbc", &rc);
        MT_RC(OVK_OK, ovk_solver_set_option(s, "replace_every", "1"));
        MT_RC(OVK_OK, ovk_solver_set_monitor(s, count_calls, seen));
        MT_RC(OVK_OK, ovk_solver_setup(s));
        ovk_vector_set(x, 0.0);
        MT_RC(OVK_OK, ovk_solver_solve(s, b, x, &res));
        MT_CHECK(seen[0] == res.iterations + 1 && seen[2] == 0,
                 "%s: %d monitor calls for %d iterations, %d out of order (replacements %d, restarts %d)", specs[v],
                 seen[0], res.iterations, seen[2], res.replacements, res.restarts);
        MT_RC(OVK_OK, ovk_solver_destroy(&s));
    }
    free_system(A, b, x);
}

/* plcg (and auto, for it) takes the initial check's <b,b> and <r0,r0>
 * into its own first sum, the estimate's Rayleigh quotient or <r0,Cr0>,
 * where the frame took a blocking reduction of its own: the same decisions
 * at iteration 0, on every rank, on both paths (a fresh object estimates,
 * a set-up one or the spec's bounds do not): b with a NaN, b = 0, x0
 * already the solution; and the same iterates as with the bounds' solve. */
static void test_initial_in_first_sum(void)
{
    static const char *const specs[] = {"plcg:l=2", "plcg:l=2,lmin=0,lmax=1.3", "auto:maxl=3"};
    ovk_matrix *A = NULL;
    ovk_vector *b = NULL, *x = NULL, *z = NULL, *zero = NULL;
    laplace_system(&A, &b, &x);
    ovk_vector_duplicate(b, &z);
    ovk_vector_duplicate(b, &zero);
    double *bd = ovk_vector_data(b);
    int mine = ovk_vector_nlocal(b) > 0 ? g_rank : -1, nan_rank = -1; /* the last rank with rows */
    MPI_Allreduce(&mine, &nan_rank, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    for (size_t v = 0; v < sizeof specs / sizeof specs[0]; v++)
        for (int fresh = 1; fresh >= 0; fresh--) {
            int rc = 0;
            ovk_pcg_result res;
            ovk_solver *s = setup_solver(A, specs[v], "jacobi", "nbc", &rc);
            MT_RC(OVK_OK, rc);
            if (!fresh) { /* a solve first: the estimate is kept */
                ovk_vector_set(x, 0.0);
                MT_RC(OVK_OK, ovk_solver_solve(s, b, x, &res));
            }
            double keep = g_rank == nan_rank ? bd[0] : 0.0;
            if (g_rank == nan_rank) bd[0] = NAN;
            ovk_vector_set(x, 0.0);
            rc = ovk_solver_solve(s, b, x, &res);
            MT_CHECK(rc == OVK_ENONFINITE && res.iterations == 0, "%s (fresh %d): NaN in b gives %d after %d",
                     specs[v], fresh, rc, res.iterations);
            if (g_rank == nan_rank) bd[0] = keep;
            ovk_solver_destroy(&s);
            s = setup_solver(A, specs[v], "jacobi", "nbc", &rc);
            if (!fresh) MT_RC(OVK_OK, ovk_solver_solve(s, b, x, &res));
            double xx = 1.0;
            MT_RC(OVK_OK, ovk_solver_solve(s, zero, x, &res)); /* b = 0 */
            ovk_vector_dot(x, x, &xx);
            MT_CHECK(xx == 0.0 && res.iterations == 0, "%s (fresh %d): b = 0 gives x = 0", specs[v], fresh);
            ovk_solver_destroy(&s);
            s = setup_solver(A, "alg1", "jacobi", "nbc", &rc); /* x0 to 1e-6 */
            ovk_vector_set(x, 0.0);
            MT_RC(OVK_OK, ovk_solver_set_tolerances(s, 1e-6, 0.0, 1000));
            MT_RC(OVK_OK, ovk_solver_solve(s, b, x, &res));
            ovk_solver_destroy(&s);
            s = setup_solver(A, specs[v], "jacobi", "nbc", &rc);
            if (!fresh) MT_RC(OVK_OK, ovk_solver_solve(s, b, z, &res)); /* z: a scratch solution */
            MT_RC(OVK_OK, ovk_solver_set_tolerances(s, 1e-4, 0.0, 1000));
            MT_RC(OVK_OK, ovk_solver_setup(s));
            MT_RC(OVK_OK, ovk_solver_solve(s, b, x, &res)); /* x0 meets 1e-4: converged at 0 */
            MT_CHECK(res.iterations == 0 && res.reason == OVK_REASON_CONVERGED && res.restarts == 0,
                     "%s (fresh %d): x0 meeting the tolerance took %d iterations", specs[v], fresh, res.iterations);
            ovk_solver_destroy(&s);
        }
    ovk_vector_destroy(zero);
    ovk_vector_destroy(z);
    free_system(A, b, x);
}

/* out = f in, f = *ctx (2 when ctx is NULL) */
static int twice(ovk_solver *s, const double *in, double *out, void *ctx)
{
    double f = ctx ? *(const double *)ctx : 2.0;
    for (int i = 0; i < ovk_solver_nlocal(s); i++) out[i] = f * in[i];
    return 0;
}

/* Wrapped b and x: rank 0 has no rows, so its b and x hold the same pointer
 * without sharing memory (solved); x one entry into b on the other ranks
 * overlaps (OVK_EINVAL on every rank).  And a setup that fails after the
 * backend changed leaves nothing for ovk_solver_progress to reach (it read
 * the destroyed reducer before: valgrind, ASan). */
static void test_wrapped_vectors(void)
{
    int n = g_rank == 0 && g_size > 1 ? 0 : 8;
    double pool[17];
    ovk_solver *s = NULL;
    ovk_vector *b = NULL, *x = NULL;
    ovk_pcg_result res;
    MT_RC(OVK_OK, ovk_solver_create_operator(MPI_COMM_WORLD, n, twice, NULL, &s));
    MT_RC(OVK_OK, ovk_solver_set_option(s, "precond", "none"));
    MT_RC(OVK_OK, ovk_solver_setup(s));
    for (int i = 0; i < 17; i++) pool[i] = 1.0;
    MT_RC(OVK_OK, ovk_solver_vector_create(s, pool, &b));
    MT_RC(OVK_OK, ovk_solver_vector_create(s, pool + n, &x));
    for (int i = 0; i < n; i++) pool[n + i] = 0.0;
    MT_RC(OVK_OK, ovk_solver_solve(s, b, x, &res));
    for (int i = 0; i < n; i++) MT_CHECK(fabs(pool[n + i] - 0.5) < 1e-12, "x[%d] = %g, want 0.5", i, pool[n + i]);
    ovk_vector_destroy(x);
    MT_RC(OVK_OK, ovk_solver_vector_create(s, pool + (n > 0), &x));
    MT_RC(OVK_EINVAL, ovk_solver_solve(s, b, x, &res));
    ovk_vector_destroy(x);
    ovk_vector_destroy(b);
    MT_RC(OVK_OK, ovk_solver_set_option(s, "backend", "native"));
    MT_RC(OVK_OK, ovk_solver_setup(s));
    MT_RC(OVK_OK, ovk_solver_set_option(s, "backend", "bogus"));
    MT_RC(OVK_EBACKEND, ovk_solver_setup(s));
    MT_RC(OVK_OK, ovk_solver_progress(s));
    MT_RC(OVK_OK, ovk_solver_destroy(&s));
}

/* max_iter = 0: no iteration and no other work, even for a negative
 * definite operator (plcg ran its startup phase first and reported the
 * breakdown there) */
static void test_max_iter_zero(void)
{
    double minus = -2.0;
    for (int v = 0; v < NSOLVERS; v++) {
        ovk_solver *s = NULL;
        ovk_vector *b = NULL, *x = NULL;
        ovk_pcg_result res;
        MT_RC(OVK_OK, ovk_solver_create_operator(MPI_COMM_WORLD, 8, twice, &minus, &s));
        MT_RC(OVK_OK, ovk_solver_set_option(s, "solver", solvers[v]));
        MT_RC(OVK_OK, ovk_solver_set_option(s, "precond", "none"));
        MT_RC(OVK_OK, ovk_solver_set_option(s, "max_it", "0"));
        int rc = ovk_solver_setup(s);
        if (is_split(solvers[v])) {
            ovk_solver_destroy(&s);
            continue;
        }
        MT_RC(OVK_OK, rc);
        ovk_solver_vector_create(s, NULL, &b);
        ovk_solver_vector_create(s, NULL, &x);
        ovk_vector_set(b, 1.0);
        ovk_vector_set(x, 0.0);
        rc = ovk_solver_solve(s, b, x, &res);
        MT_CHECK(rc == OVK_EMAXIT && res.iterations == 0, "%s: max_iter 0 gives %d after %d iterations (%s)",
                 solvers[v], rc, res.iterations, ovk_error_detail());
        ovk_vector_destroy(x);
        ovk_vector_destroy(b);
        ovk_solver_destroy(&s);
    }
}

static void test_monitor_tolerances(void)
{
    ovk_matrix *A = NULL;
    ovk_vector *b = NULL, *x = NULL;
    double hist[200];
    laplace_system(&A, &b, &x);
    for (int v = 0; v < NSOLVERS; v++) {
        int rc = 0, calls = 0;
        ovk_pcg_result res, full;
        ovk_solver *s = setup_solver(A, solvers[v], "jacobi", "nbc", &rc);
        MT_RC(OVK_OK, ovk_solver_set_history(s, hist, 200));
        ovk_vector_set(x, 0.0);
        MT_RC(OVK_OK, ovk_solver_solve(s, b, x, &full));
        MT_CHECK(full.history_len == full.iterations + 1, "%s: history %d", solvers[v], full.history_len);
        MT_CHECK(fabs(hist[full.iterations] / hist[0] - full.rel_residual) < 1e-3 * full.rel_residual ||
                     !strcmp(solvers[v], "cg1") || !strcmp(solvers[v], "pipecg") || !strncmp(solvers[v], "plcg", 4),
                 "%s: history ends at the final residual", solvers[v]);
        /* the monitor stops the solve */
        MT_RC(OVK_OK, ovk_solver_set_monitor(s, stop_at_5, &calls));
        MT_RC(OVK_OK, ovk_solver_setup(s));
        ovk_vector_set(x, 0.0);
        rc = ovk_solver_solve(s, b, x, &res);
        MT_RC(OVK_ESTOPPED, rc);
        /* the vote rides the next reduction: every rank stops at the first check after it, one
         * iteration later, plcg:l=3 up to l + 1 */
        int late = strncmp(solvers[v], "plcg", 4) ? 1 : 4;
        MT_CHECK(res.reason == OVK_REASON_MONITOR && res.iterations > 5 && res.iterations <= 5 + late,
                 "%s: stopped at %d", solvers[v], res.iterations);
        MT_CHECK(calls == res.iterations + 1, "%s: monitor called %d times", solvers[v], calls);
        MT_RC(OVK_OK, ovk_solver_set_monitor(s, NULL, NULL));
        /* atol: converged at the first ||r|| below it */
        double atol = 1e-3 * hist[0];
        MT_RC(OVK_OK, ovk_solver_set_tolerances(s, 1e-14, atol, 1000));
        MT_RC(OVK_OK, ovk_solver_setup(s));
        ovk_vector_set(x, 0.0);
        MT_RC(OVK_OK, ovk_solver_solve(s, b, x, &res));
        int want = 0;
        while (hist[want] >= atol) want++;
        MT_CHECK(abs(res.iterations - want) <= 1, "%s: atol after %d, want %d", solvers[v], res.iterations, want);
        /* x0 != 0: the solution of the same system */
        MT_RC(OVK_OK, ovk_solver_set_tolerances(s, 1e-10, 0.0, 1000));
        MT_RC(OVK_OK, ovk_solver_setup(s));
        double *xd = ovk_vector_data(x);
        for (int i = 0; i < ovk_vector_nlocal(x); i++) xd[i] = 3.0 + tp_value((uint64_t)i);
        MT_RC(OVK_OK, ovk_solver_solve(s, b, x, &res));
        MT_CHECK(true_rel(A, b, x) < 2e-10, "%s: x0 != 0 true residual %g", solvers[v], true_rel(A, b, x));
        /* b = 0: x = 0 at once */
        ovk_vector *z = NULL;
        ovk_vector_duplicate(b, &z);
        MT_RC(OVK_OK, ovk_solver_solve(s, z, x, &res));
        double xx = 1.0;
        ovk_vector_dot(x, x, &xx);
        MT_CHECK(xx == 0.0 && res.iterations == 0, "%s: b = 0 gives x = 0", solvers[v]);
        ovk_vector_destroy(z);
        ovk_solver_destroy(&s);
    }
    free_system(A, b, x);
}

/* ---- bad input --------------------------------------------------------------- */

/* a symmetric 2x2 block per row pair [[1, 2], [2, 1]] (indefinite): IC(0)
 * breaks down, the Chebyshev bounds come out non-positive */
static int indefinite(ovk_matrix **A)
{
    int n = 2, ptr[3] = {0, 2, 4};
    ovk_gidx base = 2 * (ovk_gidx)g_rank, cols[4] = {base, base + 1, base, base + 1};
    double vals[4] = {1.0, 2.0, 2.0, 1.0};
    return ovk_matrix_create_csr(MPI_COMM_WORLD, base, n, ptr, cols, vals, OVK_DUP_REJECT, A);
}

static void expect_setup(ovk_matrix *A, const char *key, const char *value, int code, const char *word)
{
    ovk_solver *s = NULL;
    ovk_solver_create(A, &s);
    int rc = ovk_solver_set_option(s, key, value);
    if (!rc) rc = ovk_solver_setup(s);
    MT_CHECK(rc == code, "%s=%s: %d (%s), expected %d", key, value, rc, ovk_error_detail(), code);
    MT_CHECK(strstr(ovk_error_detail(), word) != NULL, "%s=%s: detail '%s' lacks '%s'", key, value,
             ovk_error_detail(), word);
    ovk_solver_destroy(&s);
}

static void test_bad_input(void)
{
    ovk_matrix *A = NULL, *I = NULL;
    ovk_vector *b = NULL, *x = NULL;
    MT_RC(OVK_OK, tp_laplace(MPI_COMM_WORLD, 7, 6, 0.0, &A));
    ovk_vector_create(A, &b);
    ovk_vector_create(A, &x);
    ovk_vector_set(b, 1.0);
    { /* a NULL output on one rank: OVK_EINVAL on every rank, no hang in the layout's collectives */
        ovk_solver *so = NULL;
        int rc = ovk_solver_create_operator(MPI_COMM_WORLD, 4, twice, NULL, g_rank == g_size - 1 ? NULL : &so);
        MT_CHECK(rc == OVK_EINVAL && so == NULL, "create_operator, NULL output on one rank: %d", rc);
    }
    expect_setup(A, "precond", "bogus", OVK_EOPTION, "cheby");     /* lists what exists */
    expect_setup(A, "precond", "ssor:omega=3", OVK_EOPTION, "omega");
    expect_setup(A, "precond", "ic0:fill=1", OVK_EOPTION, "no option");
    expect_setup(A, "solver", "bogus", OVK_EOPTION, "pipecg");
    expect_setup(A, "backend", "bogus", OVK_EBACKEND, "nbc");
    MT_RC(OVK_EINVAL, ovk_solver_set_option(NULL, "rtol", "1"));
    MT_RC(OVK_OK, indefinite(&I));
    expect_setup(I, "precond", "ic0", OVK_EPRECOND, "ssor");
    expect_setup(I, "precond", "cheby", OVK_EPRECOND, "cheby");
    ovk_matrix_destroy(I);
    /* options that differ across ranks: named, no hang */
    ovk_solver *s = NULL;
    ovk_solver_create(A, &s);
    MT_RC(OVK_EOPTION, ovk_solver_set_option(s, "nokey", "1"));
    MT_RC(OVK_EOPTION, ovk_solver_set_option(s, "rtol", "x"));
    MT_RC(OVK_EOPTION, ovk_solver_set_option(s, "rtol", "0")); /* as ovk_solver_set_tolerances says */
    if (g_size > 1 && g_rank == 1) ovk_solver_set_option(s, "max_it", "7");
    if (g_size > 1) {
        int rc = ovk_solver_setup(s);
        MT_CHECK(rc == OVK_EOPTION && strstr(ovk_error_detail(), "max_it"), "differing max_iter: %d %s", rc,
                 ovk_error_detail());
    }
    /* an unknown solver on one rank only: every rank fails */
    ovk_solver_set_option(s, "max_it", "1000");
    if (g_rank == g_size - 1) ovk_solver_set_option(s, "solver", "nosuch");
    MT_RC(OVK_EOPTION, ovk_solver_setup(s));
    ovk_solver_set_option(s, "solver", "alg1");
    /* a solve sets up by itself; bad vectors, after destroy */
    MT_RC(OVK_OK, ovk_solver_solve(s, b, x, NULL));
    MT_RC(OVK_OK, ovk_solver_setup(s));
    MT_RC(OVK_EINVAL, ovk_solver_solve(s, b, b, NULL));
    ovk_vector *other = NULL;
    ovk_matrix *C = NULL;
    MT_RC(OVK_OK, tp_laplace(MPI_COMM_WORLD, 7, 5, 0.0, &C));
    ovk_vector_create(C, &other);
    MT_RC(OVK_EMISMATCH, ovk_solver_solve(s, b, g_rank == 0 ? other : x, NULL)); /* on one rank */
    ovk_vector_destroy(other);
    ovk_matrix_destroy(C);
    double *bd = ovk_vector_data(b);
    if (g_rank == 0 && ovk_vector_nlocal(b) > 0) bd[0] = NAN;
    MT_RC(OVK_ENONFINITE, ovk_solver_solve(s, b, x, NULL));
    if (g_rank == 0 && ovk_vector_nlocal(b) > 0) bd[0] = 1.0;
    MT_RC(OVK_OK, ovk_solver_destroy(&s));
    MT_RC(OVK_EINVAL, ovk_solver_solve(s, b, x, NULL)); /* s is NULL now */
    MT_RC(OVK_OK, ovk_solver_destroy(&s));               /* twice is harmless */
    /* the one-call path agrees a bad argument on one rank */
    ovk_pcg_options o;
    ovk_pcg_options_init(&o);
    if (g_rank == 0) o.tol = -1.0;
    MT_RC(OVK_EOPTION, ovk_pcg_solve(A, b, x, &o, NULL));
    ovk_pcg_options_init(&o);
    if (g_rank == g_size - 1) o.precond_spec = "nosuch";
    MT_RC(OVK_EOPTION, ovk_pcg_solve(A, b, x, &o, NULL));
    ovk_pcg_options_init(&o);
    if (g_rank == g_size - 1) o.solver = "bogus";
    MT_RC(OVK_EOPTION, ovk_pcg_solve(A, b, x, &o, NULL));
    if (g_size > 1) { /* valid everywhere, but not the same: named */
        static const struct {
            const char *what;
            int field;
        } diff[] = {{"max_it", 0}, {"tol", 1}, {"solver", 2}, {"backend", 3}, {"precond", 4}};
        for (int k = 0; k < 5; k++) {
            ovk_pcg_options_init(&o);
            int me = g_rank == 1;
            if (diff[k].field == 0) o.max_iter = me ? 50 : 60;
            if (diff[k].field == 1) o.tol = me ? 1e-6 : 1e-8;
            if (diff[k].field == 2) o.solver = me ? "pipecg" : "alg1";
            if (diff[k].field == 3) o.backend = me ? "nbc" : "blocking";
            if (diff[k].field == 4) o.precond_spec = me ? "ssor" : "jacobi";
            int rc = ovk_pcg_solve(A, b, x, &o, NULL);
            MT_CHECK(rc == OVK_EOPTION && strstr(ovk_error_detail(), diff[k].what), "%s differs: %d %s",
                     diff[k].what, rc, ovk_error_detail());
        }
    }
    ovk_vector_destroy(b);
    ovk_vector_destroy(x);
    ovk_matrix_destroy(A);
}

int main(int argc, char **argv)
{
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g_size);
    MT_CHECK(provided == MPI_THREAD_MULTIPLE, "offload needs MPI_THREAD_MULTIPLE; this MPI gives %d", provided);
    test_matrix_of_combinations();
    test_user_callbacks();
    test_reuse_and_update();
    test_monitor_tolerances();
    test_monitor_once();
    test_initial_in_first_sum();
    test_wrapped_vectors();
    test_max_iter_zero();
    test_bad_input();
    int rc = mt_finish("test_solver");
    MPI_Finalize();
    return rc;
}

/* cg1 and pipecg on the 7- and 27-point Laplacians (split unevenly; from 3
 * ranks one rank owns no rows), with every available backend:
 *   - they converge, and the true residual ||b - A x|| / ||b|| recomputed
 *     here meets the tolerance (the exit test of both uses it);
 *   - their iteration counts are within 2 of alg1's (cond < 1e6);
 *   - the result is bitwise identical on every rank;
 *   - the Lanczos estimate (opts.condest) of every solver matches the
 *     analytic spectrum of the Jacobi-preconditioned operator D^-1 A
 *     (lambda / 26 or lambda / 6: the diagonal is constant) within 3 %;
 *   - replace_every: a fixed period replaces as often as asked, -1 never,
 *     and both still converge;
 *   - a symmetric matrix with <u,Au> = 0 for the first direction stops with
 *     OVK_EBREAKDOWN and reason "breakdown" (not a NaN, not "converged").
 * The shared matrices are checked by test_matrices.  Backends are used with
 * their default options (MPI is initialised with MPI_THREAD_MULTIPLE, which
 * offload's agent engine needs; a backend that is not available fails). */
#include <math.h>
#include <string.h>

#include "mpitest.h"
#include "problem.h"

#define TOL 1e-10

typedef struct run {
    int rc;
    ovk_pcg_result res;
    double true_res;
} run;

/* ||b - A x|| / ||b|| */
static double true_residual(const ovk_matrix *A, const ovk_vector *b, const ovk_vector *x)
{
    ovk_vector *t = NULL;
    double nr = 0.0, nb = 1.0;
    MT_RC(OVK_OK, ovk_vector_create(A, &t));
    MT_RC(OVK_OK, ovk_matvec(A, x, t));
    MT_RC(OVK_OK, ovk_vector_axpy(-1.0, b, t));
    MT_RC(OVK_OK, ovk_vector_norm2(t, &nr));
    MT_RC(OVK_OK, ovk_vector_norm2(b, &nb));
    ovk_vector_destroy(t);
    return nr / nb;
}

/* Solve A x = A x* (x* random, x0 = 0) with the given options. */
static run solve(const ovk_matrix *A, const ovk_pcg_options *opts)
{
    run r = {0};
    ovk_vector *xs = NULL, *b = NULL, *x = NULL;
    ovk_vector_create(A, &xs);
    ovk_vector_create(A, &b);
    ovk_vector_create(A, &x);
    for (int i = 0; i < ovk_vector_nlocal(xs); i++)
        ovk_vector_data(xs)[i] = tp_value((uint64_t)(ovk_matrix_row_start(A) + i));
    MT_RC(OVK_OK, ovk_matvec(A, xs, b));
    r.rc = ovk_pcg_solve(A, b, x, opts, &r.res);
    r.true_res = true_residual(A, b, x);
    double v[3] = {r.res.rel_residual, r.res.cond_est, r.true_res};
    MT_CHECK(mt_same_everywhere(ovk_matrix_comm(A), v, 3), "%s: result differs between ranks", opts->solver);
    ovk_vector_destroy(xs);
    ovk_vector_destroy(b);
    ovk_vector_destroy(x);
    return r;
}

static ovk_pcg_options options(const char *solver, const char *backend)
{
    ovk_pcg_options o;
    ovk_pcg_options_init(&o);
    o.solver = solver;
    o.backend = backend;
    o.tol = TOL;
    o.condest = 1;
    return o;
}

/* Extreme eigenvalues of the Laplacian of tp_laplace on a g^3 grid.  7-point:
 * 6 - 2 sum_d cos(k_d pi/(g+1)).  27-point: A = 27 I - T(x)T(x)T with
 * T = tridiag(1,1,1), eigenvalues 27 - t_i t_j t_k, t = 1 + 2 cos(k pi/(g+1)). */
static void spectrum(int stencil, int g, double *lmin, double *lmax)
{
    double pi = acos(-1.0);
    *lmin = INFINITY;
    *lmax = -INFINITY;
    for (int i = 1; i <= g; i++)
        for (int j = 1; j <= g; j++)
            for (int k = 1; k <= g; k++) {
                double ci = cos(i * pi / (g + 1)), cj = cos(j * pi / (g + 1)), ck = cos(k * pi / (g + 1));
                double l = stencil == 7 ? 6.0 - 2.0 * (ci + cj + ck)
                                        : 27.0 - (1 + 2 * ci) * (1 + 2 * cj) * (1 + 2 * ck);
                *lmin = fmin(*lmin, l);
                *lmax = fmax(*lmax, l);
            }
}

static void check_condest(const char *what, const run *r, double lmin, double lmax)
{
    MT_CHECK(fabs(r->res.lambda_min / lmin - 1.0) < 0.03, "%s: lambda_min %g, analytic %g", what, r->res.lambda_min, lmin);
    MT_CHECK(fabs(r->res.lambda_max / lmax - 1.0) < 0.03, "%s: lambda_max %g, analytic %g", what, r->res.lambda_max, lmax);
    MT_CHECK(fabs(r->res.cond_est / (lmax / lmin) - 1.0) < 0.03, "%s: cond %g, analytic %g", what, r->res.cond_est,
             lmax / lmin);
}

/* alg1, alg2, overlap on blocking; cg1, pipecg on every backend. */
static void check_laplacian(int stencil, int g, int rank)
{
    ovk_matrix *A = NULL;
    double lmin, lmax, d = stencil == 7 ? 6.0 : 26.0;
    char what[128];
    MT_RC(OVK_OK, tp_laplace(MPI_COMM_WORLD, stencil, g, 0.0, &A));
    spectrum(stencil, g, &lmin, &lmax);
    ovk_pcg_options o = options("alg1", "blocking");
    run ref = solve(A, &o);
    MT_RC(OVK_OK, ref.rc);
    for (int s = 0; s < mt_recurrence_count(); s++) {
        const char *solver = mt_recurrence_name(s);
        int multi = !strcmp(solver, "cg1") || !strcmp(solver, "pipecg");
        if (mt_nonsymmetric(solver)) continue; /* CG's iterations and condition estimate */
        for (int k = 0; k <= ovk_backend_count(); k++) { /* the registry, then offload's agent engine */
            ovk_backend_info info = {.name = "offload:engine=agent", .available = 1};
            if (k < ovk_backend_count()) ovk_backend_get_info(k, &info);
            MT_CHECK(info.available, "backend %s is not available", info.name); /* none may be skipped */
            if (!info.available || (!multi && strcmp(info.name, "blocking"))) continue;
            o = options(solver, info.name);
            run r = solve(A, &o);
            snprintf(what, sizeof what, "%d-pt g=%d %s/%s", stencil, g, solver, info.name);
            MT_RC(OVK_OK, r.rc);
            MT_CHECK(r.res.reason == OVK_REASON_CONVERGED, "%s: %s", what, ovk_reason_name(r.res.reason));
            MT_CHECK(abs(r.res.iterations - ref.res.iterations) <= 2, "%s: %d iterations, alg1 %d", what,
                     r.res.iterations, ref.res.iterations);
            MT_CHECK(r.true_res <= TOL || !multi, "%s: true residual %g", what, r.true_res);
            MT_CHECK(r.res.restarts == 0, "%s: %d restarts on an SPD matrix", what, r.res.restarts);
            check_condest(what, &r, lmin / d, lmax / d);
            if (rank == 0)
                printf("%-28s it %3d (alg1 %3d) true %.2e repl %d cond %.4e (analytic %.4e) lmin %.4e lmax %.4e\n",
                       what, r.res.iterations, ref.res.iterations, r.true_res, r.res.replacements, r.res.cond_est,
                       lmax / lmin, r.res.lambda_min, r.res.lambda_max);
        }
    }
    ovk_matrix_destroy(A);
}

/* replace_every: k > 0 replaces every k steps, < 0 never. */
static void check_replacement(int rank)
{
    ovk_matrix *A = NULL;
    MT_RC(OVK_OK, tp_laplace(MPI_COMM_WORLD, 27, 12, 0.0, &A));
    ovk_pcg_options o = options("alg1", "blocking");
    run ref = solve(A, &o);
    const char *solvers[] = {"cg1", "pipecg"};
    int every[] = {5, -1};
    for (int s = 0; s < 2; s++)
        for (int e = 0; e < 2; e++) {
            o = options(solvers[s], "blocking");
            o.replace_every = every[e];
            run r = solve(A, &o);
            MT_RC(OVK_OK, r.rc);
            MT_CHECK(r.true_res <= TOL, "%s replace_every %d: true residual %g", solvers[s], every[e], r.true_res);
            MT_CHECK(abs(r.res.iterations - ref.res.iterations) <= 2, "%s replace_every %d: %d iterations, alg1 %d",
                     solvers[s], every[e], r.res.iterations, ref.res.iterations);
            if (every[e] > 0)
                MT_CHECK(r.res.replacements >= r.res.iterations / every[e] - 1, "%s: %d replacements in %d steps",
                         solvers[s], r.res.replacements, r.res.iterations);
            else
                MT_CHECK(r.res.replacements == 0, "%s replace_every -1: %d replacements", solvers[s], r.res.replacements);
            if (rank == 0)
                printf("%-6s replace_every %2d: it %3d (alg1 %3d) replacements %2d true %.2e\n", solvers[s], every[e],
                       r.res.iterations, ref.res.iterations, r.res.replacements, r.true_res);
        }
    ovk_matrix_destroy(A);
}

/* diag(1, -1, 1, -1, ...), no preconditioner, b = 1: <u,Au> = 0 (n even),
 * so the first step breaks down on fresh vectors: reported at once. */
static void check_breakdown(int rank)
{
    int r, p, count;
    int64_t start, n = 40;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    tp_split(n, r, p, &start, &count);
    int ptr[41];
    ovk_gidx cols[40];
    double vals[40];
    for (int i = 0; i <= count; i++) ptr[i] = i;
    for (int i = 0; i < count; i++) {
        cols[i] = start + i;
        vals[i] = (start + i) % 2 ? -1.0 : 1.0;
    }
    ovk_matrix *A = NULL;
    ovk_vector *b = NULL, *x = NULL;
    MT_RC(OVK_OK, ovk_matrix_create_csr(MPI_COMM_WORLD, start, count, ptr, cols, vals, OVK_DUP_REJECT, &A));
    ovk_vector_create(A, &b);
    ovk_vector_create(A, &x);
    ovk_vector_set(b, 1.0);
    const char *solvers[] = {"cg1", "pipecg"};
    for (int s = 0; s < 2; s++) {
        ovk_pcg_options o = options(solvers[s], "blocking");
        o.precond = OVK_PRECOND_NONE;
        ovk_pcg_result res;
        ovk_vector_set(x, 0.0);
        int rc = ovk_pcg_solve(A, b, x, &o, &res);
        MT_RC(OVK_EBREAKDOWN, rc);
        MT_CHECK(res.reason == OVK_REASON_BREAKDOWN, "%s: reason %s", solvers[s], ovk_reason_name(res.reason));
        int finite = 1;
        for (int i = 0; i < ovk_vector_nlocal(x); i++) finite &= isfinite(ovk_vector_data(x)[i]);
        MT_CHECK(finite && isfinite(res.rel_residual), "%s: non-finite result after breakdown", solvers[s]);
        if (rank == 0) printf("%-6s indefinite: %s (%s)\n", solvers[s], ovk_status_name(rc), ovk_error_detail());
    }
    ovk_vector_destroy(b);
    ovk_vector_destroy(x);
    ovk_matrix_destroy(A);
}

int main(int argc, char **argv)
{
    int rank;
    int provided = MPI_THREAD_SINGLE;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided); /* offload's agent needs it */
    MT_CHECK(provided == MPI_THREAD_MULTIPLE, "MPI_THREAD_MULTIPLE not provided (%d)", provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    double t0 = MPI_Wtime();
    check_laplacian(27, 14, rank);
    check_laplacian(7, 12, rank);
    check_replacement(rank);
    check_breakdown(rank);
    if (rank == 0) printf("time %.2f s\n", MPI_Wtime() - t0);
    int rc = mt_finish("test_cg1_pipecg");
    MPI_Finalize();
    return rc;
}

/* Singular systems with a declared null space (ovk_solver_set_nullspace):
 * the pure Neumann 27-point Laplacian (row sums zero, the constants its
 * null space), its rows split unevenly (a rank without rows from 3 ranks).
 *   - every variant that takes a null space x {jacobi, ic0, amg}, consistent
 *     and inconsistent b: converged, x of zero mean to rounding, the
 *     projected system's true residual within the tolerance, the reported
 *     inconsistency ||Z^T b|| / ||b|| that of b's mean;
 *   - the reductions per iteration (PMPI) the same with and without it;
 *   - solve_many: each system as its own solve, its own inconsistency;
 *   - without a null space the singular system does not report converged;
 *   - bad input (k < 0, NULL vectors, a NaN, dependent or zero vectors, a
 *     wrong length, different counts on the ranks, a vector A does not
 *     annihilate, a CG variant that does not take one, a bad option value):
 *     the same status on every rank. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "mpitest.h"
#include "problem.h"

#include "count_reductions.h"

enum { G = 10 }; /* grid points per axis: 1000 rows */

static const char *const variants[] = {"alg1",     "cg1",  "pipecg",   "groppcg", "pipeprcg",
                                       "plcg",     "plcg:l=3", "minres",  "pminres"};
enum { NVAR = 9 };
/* pminres's refresh (every tenfold drop of ||r||) recomputes v = C u behind
 * the step's sum and projects it with a blocking sum of its own: the
 * reduction count is the same for the other variants only */
static int same_reductions(const char *v) { return strcmp(v, "pminres") != 0; }

static int rank, nranks;

static double gsum(double v)
{
    double out = 0.0;
    PMPI_Allreduce(&v, &out, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD); /* not counted */
    return out;
}

/* The Laplacian's rows with each diagonal the negated sum of the row's
 * off-diagonal values (pure Neumann); skew != 0 moves that much from a
 * row's last off-diagonal value to its first (nonsymmetric, A 1 = 0 kept). */
static int neumann(ovk_matrix **A, double skew)
{
    int count, *ptr;
    int64_t start;
    ovk_gidx *cols;
    double *vals;
    tp_split((int64_t)G * G * G, rank, nranks, &start, &count);
    tp_laplace_rows(27, G, 0.0, start, count, &ptr, &cols, &vals);
    for (int i = 0; i < count; i++) { /* a_ii -= the row's sum */
        double row_sum = 0.0;
        int diag = ptr[i];
        for (int p = ptr[i]; p < ptr[i + 1]; p++) row_sum += vals[p], diag = cols[p] == start + i ? p : diag;
        vals[diag] -= row_sum;
        int lo = ptr[i] == diag ? ptr[i] + 1 : ptr[i], hi = ptr[i + 1] - 1 == diag ? ptr[i + 1] - 2 : ptr[i + 1] - 1;
        if (skew != 0.0 && lo < hi) vals[lo] += skew, vals[hi] -= skew;
    }
    int rc = ovk_matrix_create_csr(MPI_COMM_WORLD, start, count, ptr, cols, vals, OVK_DUP_REJECT, A);
    free(ptr);
    free(cols);
    free(vals);
    return rc;
}

/* b: deterministic values, of zero mean (consistent) or shifted */
static void fill_b(ovk_matrix *A, ovk_vector *b, int consistent)
{
    double *v = ovk_vector_data(b), sum = 0.0;
    int n = ovk_vector_nlocal(b);
    for (int i = 0; i < n; i++) sum += v[i] = tp_value((uint64_t)(ovk_matrix_row_start(A) + i)) + 0.25;
    double mean = gsum(sum) / (double)ovk_matrix_nglobal(A);
    if (consistent)
        for (int i = 0; i < n; i++) v[i] -= mean;
}

static ovk_solver *make(ovk_matrix *A, const char *solver, const char *precond)
{
    ovk_solver *s = NULL;
    MT_RC(OVK_OK, ovk_solver_create(A, &s));
    MT_RC(OVK_OK, ovk_solver_set_option(s, "solver", solver));
    MT_RC(OVK_OK, ovk_solver_set_option(s, "precond", precond));
    return s;
}

/* one solve with the null space (by the option or the call) and its checks */
static void check_solve(ovk_matrix *A, const char *solver, const char *precond, int consistent, int by_option)
{
    ovk_vector *b = NULL, *x = NULL, *r = NULL;
    ovk_pcg_result res;
    ovk_vector_create(A, &b);
    ovk_vector_create(A, &x);
    ovk_vector_create(A, &r);
    fill_b(A, b, consistent);
    ovk_solver *s = make(A, solver, precond);
    MT_RC(OVK_OK, ovk_solver_set_tolerances(s, 1e-9, 0.0, 2000));
    if (by_option) MT_RC(OVK_OK, ovk_solver_set_option(s, "nullspace", "constant"));
    else MT_RC(OVK_OK, ovk_solver_set_nullspace(s, 1, 0, NULL));
    int rc = ovk_solver_solve(s, b, x, &res);
    MT_CHECK(rc == OVK_OK && res.reason == OVK_REASON_CONVERGED, "%s/%s b %s: status %d (%s) after %d iterations",
             solver, precond, consistent ? "consistent" : "inconsistent", rc, rc ? ovk_error_detail() : "",
             res.iterations);
    const double *bv = ovk_vector_data(b), *xv = ovk_vector_data(x);
    int n = ovk_vector_nlocal(b);
    double N = (double)ovk_matrix_nglobal(A), sb = 0.0, bb = 0.0, sx = 0.0, xx = 0.0;
    for (int i = 0; i < n; i++) sb += bv[i], bb += bv[i] * bv[i], sx += xv[i], xx += xv[i] * xv[i];
    sb = gsum(sb), bb = gsum(bb), sx = gsum(sx), xx = gsum(xx);
    /* x has no null-space part: <1,x>/sqrt(N) against ||x|| */
    MT_CHECK(fabs(sx) / sqrt(N) <= 1e-12 * sqrt(xx), "%s/%s: x's mean %g (||x|| %g)", solver, precond, sx / N,
             sqrt(xx));
    double want = fabs(sb) / sqrt(N) / sqrt(bb); /* ||Z^T b|| / ||b||, Z = 1 / sqrt(N) */
    MT_CHECK(fabs(res.nullspace_inconsistency - want) <= 1e-12 + 1e-10 * want, "%s/%s: inconsistency %.17g, b's %.17g",
             solver, precond, res.nullspace_inconsistency, want);
    if (consistent) MT_CHECK(want < 1e-12, "the consistent b has a null-space part %g", want);
    /* the projected system's true residual: b - mean(b) - A x */
    ovk_matvec(A, x, r);
    double *rv = ovk_vector_data(r), rr = 0.0, pb = 0.0;
    for (int i = 0; i < n; i++) {
        double bp = bv[i] - sb / N;
        rv[i] = bp - rv[i];
        rr += rv[i] * rv[i], pb += bp * bp;
    }
    rr = gsum(rr), pb = gsum(pb);
    MT_CHECK(sqrt(rr) <= 1e-8 * sqrt(pb), "%s/%s: ||Pb - A x|| / ||Pb|| = %g (reported %g)", solver, precond,
             sqrt(rr / pb), res.rel_residual);
    ovk_solver_destroy(&s);
    ovk_vector_destroy(b);
    ovk_vector_destroy(x);
    ovk_vector_destroy(r);
}

static void same_error(int want, int rc, const char *part, const char *what);

/* solve_many with the null space: each system as its own solve (a fresh
 * solver: the tasks' variants are fresh) to rounding, its own inconsistency */
static void check_many(ovk_matrix *A, const char *solver)
{
    enum { K = 3 };
    ovk_vector *B[K], *X[K], *y = NULL;
    ovk_pcg_result res[K], one;
    ovk_vector_create(A, &y);
    int n = ovk_matrix_nlocal(A);
    for (int j = 0; j < K; j++) {
        ovk_vector_create(A, &B[j]);
        ovk_vector_create(A, &X[j]);
        fill_b(A, B[j], j == 0);
        double *bv = ovk_vector_data(B[j]);
        for (int i = 0; i < n; i++) bv[i] *= 1.0 + j * (double)((ovk_matrix_row_start(A) + i) % 7); /* distinct b */
    }
    ovk_solver *s = make(A, solver, "jacobi");
    MT_RC(OVK_OK, ovk_solver_set_tolerances(s, 1e-9, 0.0, 2000));
    MT_RC(OVK_OK, ovk_solver_set_nullspace(s, 1, 0, NULL));
    MT_RC(OVK_OK, ovk_solver_solve_many(s, K, B, X, res));
    ovk_solver_destroy(&s);
    for (int j = 0; j < K; j++) {
        s = make(A, solver, "jacobi");
        MT_RC(OVK_OK, ovk_solver_set_tolerances(s, 1e-9, 0.0, 2000));
        MT_RC(OVK_OK, ovk_solver_set_nullspace(s, 1, 0, NULL));
        ovk_vector_set(y, 0.0); /* X[j]'s x0 */
        MT_RC(OVK_OK, ovk_solver_solve(s, B[j], y, &one));
        ovk_solver_destroy(&s);
        const double *xv = ovk_vector_data(X[j]), *yv = ovk_vector_data(y);
        double d = 0.0, m = 0.0;
        for (int i = 0; i < n; i++) d = fmax(d, fabs(xv[i] - yv[i])), m = fmax(m, fabs(yv[i]));
        double dm[2] = {d, m};
        PMPI_Allreduce(MPI_IN_PLACE, dm, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        MT_CHECK(res[j].reason == OVK_REASON_CONVERGED && res[j].iterations == one.iterations,
                 "%s solve_many system %d: %s in %d iterations, alone %d", solver, j,
                 ovk_reason_name(res[j].reason), res[j].iterations, one.iterations);
        MT_CHECK(dm[0] <= 1e-10 * dm[1], "%s solve_many system %d: max |x - x_alone| = %g of %g", solver, j, dm[0],
                 dm[1]);
        MT_CHECK(fabs(res[j].nullspace_inconsistency - one.nullspace_inconsistency) <=
                     1e-13 * one.nullspace_inconsistency + 1e-15 && (j == 0) == (one.nullspace_inconsistency < 1e-12),
                 "%s solve_many system %d: inconsistency %.17g, alone %.17g", solver, j,
                 res[j].nullspace_inconsistency, one.nullspace_inconsistency);
    }
    for (int j = 0; j < K; j++) {
        ovk_vector_destroy(B[j]);
        ovk_vector_destroy(X[j]);
    }
    ovk_vector_destroy(y);
}

/* ovk_solver_view names the null space and the last solve's inconsistency;
 * solve_many refuses it */
static void check_view(ovk_matrix *A)
{
    ovk_vector *b = NULL, *x = NULL;
    ovk_pcg_result res;
    char text[4096] = "";
    ovk_vector_create(A, &b);
    ovk_vector_create(A, &x);
    fill_b(A, b, 0);
    ovk_solver *s = make(A, "cg1", "jacobi");
    MT_RC(OVK_OK, ovk_solver_set_nullspace(s, 1, 0, NULL));
    MT_RC(OVK_OK, ovk_solver_solve(s, b, x, &res));
    FILE *f = tmpfile();
    MT_RC(OVK_OK, ovk_solver_view(s, f));
    rewind(f);
    size_t len = fread(text, 1, sizeof text - 1, f);
    text[len] = '\0';
    fclose(f);
    MT_CHECK(strstr(text, "null space: the constant and 0 vector(s)") && strstr(text, "||Z^T b||/||b|| = "),
             "the view lacks the null space: %s", text);
    ovk_solver_destroy(&s);
    ovk_vector_destroy(b);
    ovk_vector_destroy(x);
}

/* MPI_Allreduce calls (blocking backend) of a solve of exactly maxit iterations */
static long reductions(ovk_matrix *A, const char *solver, int with_ns, int maxit, long long *started)
{
    ovk_vector *b = NULL, *x = NULL;
    ovk_pcg_result res;
    ovk_vector_create(A, &b);
    ovk_vector_create(A, &x);
    fill_b(A, b, 1);
    ovk_solver *s = make(A, solver, "jacobi");
    MT_RC(OVK_OK, ovk_solver_set_option(s, "backend", "blocking"));
    MT_RC(OVK_OK, ovk_solver_set_tolerances(s, 1e-30, 0.0, maxit));
    if (with_ns) MT_RC(OVK_OK, ovk_solver_set_nullspace(s, 1, 0, NULL));
    MT_RC(OVK_OK, ovk_solver_setup(s));
    long before = n_allreduce;
    int rc = ovk_solver_solve(s, b, x, &res);
    long count = n_allreduce - before;
    MT_CHECK(rc == OVK_EMAXIT && res.iterations == maxit, "%s: status %d (%s), %d iterations", solver, rc,
             rc ? ovk_error_detail() : "", res.iterations);
    *started = res.reductions;
    ovk_solver_destroy(&s);
    ovk_vector_destroy(b);
    ovk_vector_destroy(x);
    return count;
}

static void check_reductions(ovk_matrix *A)
{
    for (int v = 0; v < NVAR; v++) {
        long long s[4];
        if (!same_reductions(variants[v])) continue;
        long plain5 = reductions(A, variants[v], 0, 5, &s[0]), plain25 = reductions(A, variants[v], 0, 25, &s[1]);
        long ns5 = reductions(A, variants[v], 1, 5, &s[2]), ns25 = reductions(A, variants[v], 1, 25, &s[3]);
        if (rank == 0)
            printf("%-7s MPI_Allreduce, 5 and 25 iterations: %ld %ld without, %ld %ld with the null space\n",
                   variants[v], plain5, plain25, ns5, ns25);
        MT_CHECK(plain25 - plain5 == ns25 - ns5 && plain25 > plain5, "%s: 20 iterations cost %ld reductions "
                 "without the null space, %ld with it", variants[v], plain25 - plain5, ns25 - ns5);
        MT_CHECK(s[1] - s[0] == s[3] - s[2], "%s: the reducer started %lld and %lld in 20 iterations", variants[v],
                 s[1] - s[0], s[3] - s[2]);
    }
}

/* a singular system without a null space is never reported converged */
static void check_without(ovk_matrix *A)
{
    ovk_vector *b = NULL, *x = NULL;
    ovk_pcg_result res;
    ovk_vector_create(A, &b);
    ovk_vector_create(A, &x);
    fill_b(A, b, 0);
    for (int v = 0; v < NVAR; v++) {
        ovk_solver *s = make(A, variants[v], "jacobi");
        MT_RC(OVK_OK, ovk_solver_set_tolerances(s, 1e-9, 0.0, 300));
        ovk_vector_set(x, 0.0);
        int rc = ovk_solver_solve(s, b, x, &res);
        MT_CHECK(rc != OVK_OK && res.reason != OVK_REASON_CONVERGED, "%s without a null space: status %d, %s",
                 variants[v], rc, ovk_reason_name(res.reason));
        ovk_solver_destroy(&s);
    }
    ovk_vector_destroy(b);
    ovk_vector_destroy(x);
}

/* status rc, the same on every rank, with `part` in the detail */
static void same_error(int want, int rc, const char *part, const char *what)
{
    long long r = rc;
    MT_CHECK(mt_same_everywhere(MPI_COMM_WORLD, &r, 1), "%s: the ranks returned different statuses", what);
    MT_CHECK(rc == want, "%s: status %d (%s), expected %d", what, rc, ovk_error_detail(), want);
    MT_CHECK(!part || strstr(ovk_error_detail(), part), "%s: detail '%s' lacks '%s'", what, ovk_error_detail(), part);
}

/* set up s with the vectors set (k of them, this rank's rows) and return the setup's status */
static int setup_with(ovk_matrix *A, int k, double *const *vec, const char *option)
{
    ovk_solver *s = make(A, "cg1", "jacobi");
    if (option) ovk_solver_set_option(s, "nullspace", option);
    int rc = ovk_solver_set_nullspace(s, 0, k, (const double *const *)vec);
    if (!rc) rc = ovk_solver_setup(s);
    ovk_solver_destroy(&s);
    return rc;
}

static void check_bad_input(ovk_matrix *A)
{
    int n = ovk_matrix_nlocal(A), first_with_rows = 0;
    double *v0 = calloc((size_t)n + 1, sizeof(double)), *v1 = calloc((size_t)n + 1, sizeof(double));
    double *vec[2] = {v0, v1};
    for (int i = 0; i < n; i++) v0[i] = tp_value((uint64_t)(ovk_matrix_row_start(A) + i) + 7u), v1[i] = 2.0 * v0[i];
    ovk_solver *s = make(A, "cg1", "jacobi");
    /* k < 0 on one rank, NULL vectors on one rank with rows */
    same_error(OVK_EINVAL, ovk_solver_set_nullspace(s, 0, rank == nranks - 1 ? -1 : 0, NULL), "k = -1", "k < 0");
    same_error(OVK_EINVAL, ovk_solver_set_nullspace(s, 0, rank == first_with_rows ? 1 : 0, NULL), "NULL",
               "NULL vectors");
    same_error(OVK_EINVAL, ovk_solver_set_nullspace(s, 2, 0, NULL), "has_constant", "has_constant 2");
    /* the wrong length: one rank's nodes do not cover its rows */
    double *xyz = calloc((size_t)(n / 3 + 1) * 3, sizeof(double));
    same_error(OVK_EINVAL, ovk_solver_set_nullspace_rigid_body(s, 3, rank == 0 ? n / 3 + 1 : n / 3, xyz), "nodes",
               "the wrong length");
    free(xyz);
    ovk_solver_destroy(&s);
    /* checked at setup: a NaN on one rank, dependent, zero, counts that differ */
    double keep = n > 0 ? v0[0] : 0.0;
    if (rank == first_with_rows) v0[0] = NAN;
    same_error(OVK_ENONFINITE, setup_with(A, 1, vec, NULL), "null-space vector 0", "a NaN on one rank");
    if (n > 0) v0[0] = keep;
    same_error(OVK_EINVAL, setup_with(A, 2, vec, NULL), "vector 1 depends", "dependent vectors");
    same_error(OVK_EINVAL, setup_with(A, 1, vec, NULL), "vector 0 is not in A's null space", "A z != 0");
    for (int i = 0; i < n; i++) v1[i] = 1.0;
    same_error(OVK_EINVAL, setup_with(A, 1, vec + 1, "constant"), "vector 0 depends", "the constant twice");
    for (int i = 0; i < n; i++) v1[i] = 0.0;
    same_error(OVK_EINVAL, setup_with(A, 1, vec + 1, NULL), "is zero", "a zero vector");
    if (nranks > 1)
        same_error(OVK_EINVAL, setup_with(A, rank == 0 ? 1 : 0, vec, NULL), "every rank", "different counts");
    same_error(OVK_EOPTION, setup_with(A, 0, NULL, "linear"), "nullspace", "option nullspace linear");
    /* a variant that does not take a null space refuses it, naming those that do */
    s = make(A, "alg2", "jacobi");
    MT_RC(OVK_OK, ovk_solver_set_option(s, "nullspace", "constant"));
    same_error(OVK_EUNSUPPORTED, ovk_solver_setup(s), "pipeprcg, plcg", "alg2");
    ovk_solver_destroy(&s);
    /* auto on nonsymmetric values takes it (its choices gmres, pgmres do: test_nullspace_nonsym.c) */
    ovk_matrix *skewed = NULL;
    MT_RC(OVK_OK, neumann(&skewed, 0.25));
    s = make(skewed, "auto", "jacobi");
    MT_RC(OVK_OK, ovk_solver_set_nullspace(s, 1, 0, NULL));
    same_error(OVK_OK, ovk_solver_setup(s), NULL, "auto, nonsymmetric");
    ovk_solver_destroy(&s);
    ovk_matrix_destroy(skewed);
    free(v0);
    free(v1);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    ovk_matrix *A = NULL;
    MT_RC(OVK_OK, neumann(&A, 0.0));
    const char *pcs[] = {"jacobi", "ic0", "amg"};
#ifdef OVK_HAVE_HYPRE
    int npc = 3;
#else
    int npc = 2;
#endif
    for (int v = 0; v < NVAR; v++)
        for (int p = 0; p < npc; p++)
            for (int consistent = 0; consistent < 2; consistent++)
                check_solve(A, variants[v], pcs[p], consistent, (v + p + consistent) % 2);
    for (int consistent = 0; consistent < 2; consistent++) /* auto: its choice takes the null space */
        check_solve(A, "auto", "jacobi", consistent, consistent);
    check_view(A);
    for (int v = 0; v < NVAR; v++) check_many(A, variants[v]);
    check_reductions(A);
    check_without(A);
    check_bad_input(A);
    ovk_matrix_destroy(A);
    int status = mt_finish("test_nullspace");
    MPI_Finalize();
    return status;
}

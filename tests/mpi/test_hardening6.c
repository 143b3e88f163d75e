/* Hostile input for the newer families (docs/robustness.md):
 *   - minres and pminres on singular systems with b outside A's range (a
 *     1-D Neumann Laplacian, a 1-D Dirichlet Laplacian shifted by its
 *     smallest eigenvalue), no preconditioner, at the iteration limit: the
 *     x returned is no worse than x = 0, the residual reported is its true
 *     one, and the detail names the null space; declared
 *     (ovk_solver_set_nullspace: the constant, or the shifted Laplacian's
 *     sine), both converge on the projected system with x orthogonal to it.
 *   - scg (s = 2, 4, 8) with a user preconditioner that writes a NaN on one
 *     rank from a call after its start-up: OVK_ENONFINITE naming the block's
 *     sums and the callback on every rank, x finite (it halved s and blamed
 *     SPD: OVK_EBREAKDOWN "... = nan (matrix or preconditioner not SPD?)").
 *   - ovk_solver_set_schur_matrix on rank 0 only, fieldsplit: OVK_EOPTION on
 *     every rank at setup naming the ranks that set none (each rank chose
 *     between the user's matrix and selfp alone: the setup deadlocked).
 *     Set everywhere as 1e-300 I, minres and pminres: the overflow's detail
 *     names the preconditioner (it said "a reduced value = -inf").
 *   - solver lifetimes (create, setup, a 5-step solve, destroy; cg1 and
 *     gmres in turn) on native:persistent=1: the resident set grows by less
 *     than 200 B per lifetime after a warm-up (it grew 1.7 kB per cg1 and
 *     11.9 kB per gmres solver: Open MPI leaks about 330 B per persistent
 *     request made and freed; the requests are now kept across reducers).
 *     With arguments `lifetimes N [backend...]` only that, N lifetimes per
 *     backend (docs/robustness.md's long run).
 *   - specs with an empty option value or a bare ':' (fieldsplit:0= took
 *     jacobi, not field 0's default; fieldsplit: and jacobi: were accepted):
 *     OVK_EOPTION on every rank at setup.
 *   - condest=1 under every solver: an estimate, or OVK_EOPTION on every
 *     rank naming the option, the solver and those that take it (minres,
 *     pminres, gmres, scg and the rest accepted it and reported 0), also in
 *     solve_many and for auto on a nonsymmetric matrix.
 *   - fgmres, gmres, minres with fieldsplit:type=diag,1=amg on an enclosed
 *     Stokes matrix (zero pressure block), the constant pressure declared:
 *     converged to 1e-12 (amg on the singular Schur block was not told it
 *     is singular, and the solves stalled near 1e-10).
 * Rows split unevenly (a rank without rows from 3 ranks). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mpitest.h"
#include "problem.h"

enum { N1 = 200 }; /* rows of the 1-D problems */
static const double PI = 3.14159265358979323846;

static int rank, nranks;

static double gsum(double v)
{
    double out = 0.0;
    MPI_Allreduce(&v, &out, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    return out;
}

/* the 1-D Laplacian tridiag(-1, 2, -1) of n rows; neumann: the end rows'
 * diagonal 1 (row sums zero); else shifted by -shift on the diagonal */
static ovk_matrix *line(int neumann, double shift)
{
    tp_rows r;
    tp_rows_alloc(&r, N1, 3);
    int k = 0;
    for (int i = 0; i < r.count; i++) {
        int64_t g = r.start + i;
        double diag = 2.0 - shift;
        if (neumann && (g == 0 || g == N1 - 1)) diag = 1.0;
        if (g > 0) r.col[k] = g - 1, r.val[k++] = -1.0;
        r.col[k] = g, r.val[k++] = diag;
        if (g < N1 - 1) r.col[k] = g + 1, r.val[k++] = -1.0;
        r.ptr[i + 1] = k;
    }
    ovk_matrix *A = NULL;
    MT_RC(OVK_OK, ovk_matrix_create_csr(MPI_COMM_WORLD, r.start, r.count, r.ptr, r.col, r.val, OVK_DUP_REJECT, &A));
    tp_rows_free(&r);
    return A;
}

/* the smallest eigenvalue of the Dirichlet line and its eigenvector's row g */
static double lambda1(void) { return 2.0 - 2.0 * cos(PI / (N1 + 1)); }
static double sine(int64_t g) { return sin(PI * (double)(g + 1) / (N1 + 1)); }

/* ||b - A x|| / ||b|| and, when z is given, |<z,x>| / (||z|| ||x||) */
static double true_rel(ovk_matrix *A, ovk_vector *b, ovk_vector *x, const double *z, double *along)
{
    ovk_vector *r = NULL;
    ovk_vector_create(A, &r);
    ovk_matvec(A, x, r);
    const double *bv = ovk_vector_data(b), *xv = ovk_vector_data(x), *rv = ovk_vector_data(r);
    double rr = 0.0, bb = 0.0, zx = 0.0, zz = 0.0, xx = 0.0;
    for (int i = 0; i < ovk_vector_nlocal(b); i++) {
        rr += (bv[i] - rv[i]) * (bv[i] - rv[i]), bb += bv[i] * bv[i];
        if (z) zx += z[i] * xv[i], zz += z[i] * z[i], xx += xv[i] * xv[i];
    }
    ovk_vector_destroy(r);
    if (along) *along = fabs(gsum(zx)) / sqrt(gsum(zz) * gsum(xx));
    return sqrt(gsum(rr) / gsum(bb));
}

/* b - its projection on z when consistent (z NULL: the constant) */
static void project(ovk_vector *b, const double *z)
{
    double *bv = ovk_vector_data(b), zb = 0.0, zz = 0.0;
    int n = ovk_vector_nlocal(b);
    for (int i = 0; i < n; i++) zb += (z ? z[i] : 1.0) * bv[i], zz += z ? z[i] * z[i] : 1.0;
    zb = gsum(zb), zz = gsum(zz);
    for (int i = 0; i < n; i++) bv[i] -= zb / zz * (z ? z[i] : 1.0);
}

/* minres/pminres on the singular A with an inconsistent b: at the limit or
 * stopped on x's growth, x no worse than 0 and its true residual reported;
 * with the null space declared, converged on the projected b */
static void singular_case(const char *what, ovk_matrix *A, const double *z, const char *solver)
{
    ovk_vector *b = NULL, *x = NULL;
    ovk_pcg_result res;
    ovk_vector_create(A, &b);
    ovk_vector_create(A, &x);
    double *bv = ovk_vector_data(b);
    for (int i = 0; i < ovk_vector_nlocal(b); i++) bv[i] = tp_value((uint64_t)(ovk_matrix_row_start(A) + i)) + 0.1;
    ovk_solver *s = NULL;
    MT_RC(OVK_OK, ovk_solver_create(A, &s));
    MT_RC(OVK_OK, ovk_solver_set_option(s, "solver", solver));
    MT_RC(OVK_OK, ovk_solver_set_option(s, "precond", "none"));
    MT_RC(OVK_OK, ovk_solver_set_tolerances(s, 1e-8, 0.0, 4 * N1));
    int rc = ovk_solver_solve(s, b, x, &res);
    const char *detail = ovk_error_detail();
    double t = true_rel(A, b, x, NULL, NULL);
    if (rank == 0)
        printf("%-8s %-9s no null space: %s after %d, reported %.3e, true %.3e\n", solver, what, ovk_status_name(rc),
               res.iterations, res.rel_residual, t);
    MT_CHECK(rc == OVK_EMAXIT || rc == OVK_EBREAKDOWN, "%s %s: status %s", solver, what, ovk_status_name(rc));
    MT_CHECK(t <= 1.0, "%s %s: x returned has ||b - A x||/||b|| = %g, worse than x = 0", solver, what, t);
    MT_CHECK(fabs(res.rel_residual - t) <= 1e-6 * t, "%s %s: reported %.6e, true %.6e", solver, what,
             res.rel_residual, t);
    MT_CHECK(strstr(detail, "ovk_solver_set_nullspace") != NULL, "%s %s: the detail names no null space: %s", solver,
             what, detail);
    /* declared: the projected system solved, x without its null-space part */
    ovk_vector_set(x, 0.0);
    const double *const zv[1] = {z};
    MT_RC(OVK_OK, ovk_solver_set_nullspace(s, z ? 0 : 1, z ? 1 : 0, z ? zv : NULL));
    rc = ovk_solver_solve(s, b, x, &res);
    MT_CHECK(rc == OVK_OK, "%s %s with the null space: %s after %d (%s)", solver, what, ovk_status_name(rc),
             res.iterations, rc ? ovk_error_detail() : "");
    double along = 0.0;
    project(b, z);
    t = true_rel(A, b, x, z, &along);
    if (rank == 0)
        printf("%-8s %-9s null space:    %s after %d, reported %.3e, true %.3e, x along it %.1e\n", solver, what,
               ovk_status_name(rc), res.iterations, res.rel_residual, t, z ? along : 0.0);
    MT_CHECK(t <= 1e-7, "%s %s with the null space: ||Pb - A x||/||Pb|| = %g", solver, what, t);
    if (z) MT_CHECK(along <= 1e-10, "%s %s: x's part along the null space %g", solver, what, along);
    ovk_solver_destroy(&s);
    ovk_vector_destroy(b);
    ovk_vector_destroy(x);
}

static void singular_minres(void)
{
    static const char *const solvers[] = {"minres", "pminres"};
    ovk_matrix *neu = line(1, 0.0), *shifted = line(0, lambda1());
    int n = ovk_matrix_nlocal(shifted);
    double *z = malloc(sizeof(double) * (size_t)(n + 1));
    for (int i = 0; i < n; i++) z[i] = sine(ovk_matrix_row_start(shifted) + i);
    for (int k = 0; k < 2; k++) {
        singular_case("neumann", neu, NULL, solvers[k]);
        singular_case("shifted", shifted, z, solvers[k]);
    }
    free(z);
    ovk_matrix_destroy(neu);
    ovk_matrix_destroy(shifted);
}

/* z = r / 2 (the line's Jacobi), a NaN in the first row of the last rank
 * with rows from call nan_from on */
typedef struct nan_pc {
    int calls, nan_from, mine, n;
} nan_pc;

static int nan_precond(ovk_solver *s, const double *in, double *out, void *ctx)
{
    (void)s;
    nan_pc *p = ctx;
    for (int i = 0; i < p->n; i++) out[i] = 0.5 * in[i];
    if (++p->calls >= p->nan_from && p->mine && p->n > 0) out[0] = NAN;
    return 0;
}

static void scg_nan(void)
{
    static const char *const specs[] = {"scg:s=2", "scg:s=4", "scg:s=8"};
    ovk_matrix *A = line(0, 0.0);
    ovk_vector *b = NULL, *x = NULL;
    ovk_pcg_result res;
    ovk_vector_create(A, &b);
    ovk_vector_create(A, &x);
    double *bv = ovk_vector_data(b);
    int n = ovk_vector_nlocal(b), last = 0;
    for (int i = 0; i < n; i++) bv[i] = tp_value((uint64_t)(ovk_matrix_row_start(A) + i));
    int has = n > 0 ? rank : -1;
    MPI_Allreduce(&has, &last, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    for (int k = 0; k < 3; k++) {
        nan_pc pc = {.nan_from = 60, .mine = rank == last, .n = n};
        ovk_solver *s = NULL;
        MT_RC(OVK_OK, ovk_solver_create(A, &s));
        MT_RC(OVK_OK, ovk_solver_set_option(s, "solver", specs[k]));
        MT_RC(OVK_OK, ovk_solver_set_precond_fn(s, nan_precond, &pc));
        MT_RC(OVK_OK, ovk_solver_set_tolerances(s, 1e-10, 0.0, 2000));
        ovk_vector_set(x, 0.0);
        int rc = ovk_solver_solve(s, b, x, &res);
        long long r = rc;
        MT_CHECK(mt_same_everywhere(MPI_COMM_WORLD, &r, 1), "%s: the ranks returned different statuses", specs[k]);
        MT_CHECK(rc == OVK_ENONFINITE && strstr(ovk_error_detail(), "s-step block") &&
                     strstr(ovk_error_detail(), "callback"),
                 "%s, a NaN from the preconditioner: %s after %d: %s", specs[k], ovk_status_name(rc), res.iterations,
                 ovk_error_detail());
        const double *xv = ovk_vector_data(x);
        int finite = 1;
        for (int i = 0; i < n; i++) finite &= isfinite(xv[i]) != 0;
        MT_CHECK(finite, "%s: x not finite", specs[k]);
        if (rank == 0) printf("%s, NaN from call 60: %s after %d\n", specs[k], ovk_status_name(rc), res.iterations);
        ovk_solver_destroy(&s);
    }
    ovk_vector_destroy(b);
    ovk_vector_destroy(x);
    ovk_matrix_destroy(A);
}

/* a Schur matrix set on rank 0 only (the rest of the setup is valid) */
/* minres and pminres + fieldsplit with the user's Schur matrix 1e-300 I
 * (its jacobi 1e300): the overflow's detail names the preconditioner (it
 * said "a reduced value = -inf") */
static void schur_tiny(void)
{
    static const char *const solvers[] = {"minres", "pminres"};
    ovk_matrix *A = line(0, 0.0), *S = NULL;
    int n = ovk_matrix_nlocal(A), n1 = 0, *field = malloc(sizeof(int) * (size_t)(n + 1));
    int64_t start = ovk_matrix_row_start(A), before = 0, mine;
    for (int i = 0; i < n; i++) n1 += field[i] = (int)((start + i) % 2);
    mine = n1;
    MPI_Exscan(&mine, &before, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) before = 0;
    int *ptr = calloc((size_t)n1 + 1, sizeof(int));
    ovk_gidx *col = malloc(sizeof(ovk_gidx) * (size_t)(n1 + 1));
    double *val = malloc(sizeof(double) * (size_t)(n1 + 1));
    for (int i = 0; i < n1; i++) ptr[i + 1] = i + 1, col[i] = before + i, val[i] = 1e-300;
    MT_RC(OVK_OK, ovk_matrix_create_csr(MPI_COMM_WORLD, before, n1, ptr, col, val, OVK_DUP_REJECT, &S));
    ovk_vector *b = NULL, *x = NULL;
    ovk_vector_create(A, &b), ovk_vector_create(A, &x);
    double *bv = ovk_vector_data(b);
    for (int i = 0; i < ovk_vector_nlocal(b); i++) bv[i] = tp_value((uint64_t)(ovk_matrix_row_start(A) + i));
    for (int k = 0; k < 2; k++) {
        ovk_solver *s = NULL;
        ovk_result res;
        MT_RC(OVK_OK, ovk_solver_create(A, &s));
        MT_RC(OVK_OK, ovk_solver_set_option(s, "solver", solvers[k]));
        MT_RC(OVK_OK, ovk_solver_set_option(s, "precond", "fieldsplit:0=jacobi,1=jacobi"));
        MT_RC(OVK_OK, ovk_solver_set_fields(s, field));
        MT_RC(OVK_OK, ovk_solver_set_schur_matrix(s, S));
        ovk_vector_set(x, 0.0);
        int rc = ovk_solver_solve(s, b, x, &res);
        const char *d = ovk_error_detail();
        long long r = rc;
        if (rank == 0) printf("Schur matrix 1e-300 I, %s: %s after %d: %s\n", solvers[k], ovk_status_name(rc),
                              res.iterations, d);
        MT_CHECK(mt_same_everywhere(MPI_COMM_WORLD, &r, 1), "Schur 1e-300 %s: the ranks returned different statuses",
                 solvers[k]);
        MT_CHECK(rc != OVK_OK && strstr(d, "preconditioner") && !strstr(d, "a reduced value"),
                 "Schur 1e-300 %s: %s: the detail names no culprit: %s", solvers[k], ovk_status_name(rc), d);
        ovk_solver_destroy(&s);
    }
    ovk_vector_destroy(b), ovk_vector_destroy(x);
    ovk_matrix_destroy(S);
    ovk_matrix_destroy(A);
    free(ptr), free(col), free(val), free(field);
}

static void schur_on_one_rank(void)
{
    if (nranks < 2) return;
    ovk_matrix *A = line(0, 0.0), *S = NULL;
    int n = ovk_matrix_nlocal(A), n1 = 0, *field = malloc(sizeof(int) * (size_t)(n + 1));
    int64_t start = ovk_matrix_row_start(A), before = 0;
    for (int i = 0; i < n; i++) n1 += field[i] = (int)((start + i) % 2);
    int64_t mine = n1;
    MPI_Exscan(&mine, &before, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) before = 0;
    int *ptr = calloc((size_t)n1 + 1, sizeof(int));
    ovk_gidx *col = malloc(sizeof(ovk_gidx) * (size_t)(n1 + 1));
    double *val = malloc(sizeof(double) * (size_t)(n1 + 1));
    for (int i = 0; i < n1; i++) ptr[i + 1] = i + 1, col[i] = before + i, val[i] = 1.0; /* a mass matrix: I */
    MT_RC(OVK_OK, ovk_matrix_create_csr(MPI_COMM_WORLD, before, n1, ptr, col, val, OVK_DUP_REJECT, &S));
    ovk_solver *s = NULL;
    MT_RC(OVK_OK, ovk_solver_create(A, &s));
    MT_RC(OVK_OK, ovk_solver_set_option(s, "solver", "minres"));
    MT_RC(OVK_OK, ovk_solver_set_option(s, "precond", "fieldsplit:0=jacobi,1=jacobi"));
    MT_RC(OVK_OK, ovk_solver_set_fields(s, field));
    if (rank == 0) MT_RC(OVK_OK, ovk_solver_set_schur_matrix(s, S));
    int rc = ovk_solver_setup(s);
    long long r = rc;
    char want[64] = "the ranks that set none: 1";
    for (int k = 2; k < nranks; k++) snprintf(want + strlen(want), sizeof want - strlen(want), ", %d", k);
    MT_CHECK(mt_same_everywhere(MPI_COMM_WORLD, &r, 1), "schur on rank 0: the ranks returned different statuses");
    MT_CHECK(rc == OVK_EOPTION && strstr(ovk_error_detail(), want), "schur on rank 0 only: %s: %s (wanted '%s')",
             ovk_status_name(rc), ovk_error_detail(), want);
    if (rank == 0) printf("schur on rank 0 only: %s: %s\n", ovk_status_name(rc), ovk_error_detail());
    /* set everywhere: the setup goes on */
    MT_RC(OVK_OK, ovk_solver_set_schur_matrix(s, S));
    MT_RC(OVK_OK, ovk_solver_setup(s));
    ovk_solver_destroy(&s);
    ovk_matrix_destroy(S);
    ovk_matrix_destroy(A);
    free(ptr), free(col), free(val), free(field);
}

static void empty_specs(void)
{
    static const char *const specs[][3] = {{"precond", "fieldsplit:0=", "has no value"},
                                           {"precond", "fieldsplit:0=,1=jacobi", "has no value"},
                                           {"precond", "fieldsplit:", "ends with ':'"},
                                           {"precond", "jacobi:", "ends with ':'"},
                                           {"solver", "scg:s=", "has no value"}};
    ovk_matrix *A = line(0, 0.0);
    int n = ovk_matrix_nlocal(A), *field = malloc(sizeof(int) * (size_t)(n + 1));
    for (int i = 0; i < n; i++) field[i] = (int)((ovk_matrix_row_start(A) + i) % 2);
    for (int k = 0; k < 5; k++) {
        ovk_solver *s = NULL;
        MT_RC(OVK_OK, ovk_solver_create(A, &s));
        MT_RC(OVK_OK, ovk_solver_set_option(s, "solver", "minres"));
        MT_RC(OVK_OK, ovk_solver_set_fields(s, field));
        int rc = ovk_solver_set_option(s, specs[k][0], specs[k][1]);
        if (!rc) rc = ovk_solver_setup(s);
        long long r = rc;
        MT_CHECK(mt_same_everywhere(MPI_COMM_WORLD, &r, 1), "%s: the ranks returned different statuses", specs[k][1]);
        MT_CHECK(rc == OVK_EOPTION && strstr(ovk_error_detail(), specs[k][2]), "%s=%s: %s: %s", specs[k][0],
                 specs[k][1], ovk_status_name(rc), ovk_error_detail());
        ovk_solver_destroy(&s);
    }
    free(field);
    ovk_matrix_destroy(A);
}

/* z = scale r, or (singular) r divided by a diagonal with a zero in the
 * first row of the first rank with rows */
typedef struct scaled_pc {
    double scale;
    int singular, first, n;
} scaled_pc;

static int scaled_precond(ovk_solver *s, const double *in, double *out, void *ctx)
{
    (void)s;
    const scaled_pc *p = ctx;
    for (int i = 0; i < p->n; i++) out[i] = p->scale * in[i];
    if (p->singular && p->first && p->n > 0) out[0] = in[0] / 0.0;
    return 0;
}

/* minres and pminres with a preconditioner that overflows (singular) or
 * scales toward zero: the detail names the preconditioner, not A */
static void minres_blame(void)
{
    static const char *const solvers[] = {"minres", "pminres"};
    ovk_matrix *A = line(0, 0.0);
    ovk_vector *b = NULL, *x = NULL;
    ovk_pcg_result res;
    ovk_vector_create(A, &b);
    ovk_vector_create(A, &x);
    double *bv = ovk_vector_data(b);
    int n = ovk_vector_nlocal(b), first = 0, has = n > 0 ? rank : nranks;
    for (int i = 0; i < n; i++) bv[i] = tp_value((uint64_t)(ovk_matrix_row_start(A) + i));
    MPI_Allreduce(&has, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    for (int k = 0; k < 4; k++) {
        scaled_pc pc = {.scale = k < 2 ? 0.5 : 1e-300, .singular = k < 2, .first = rank == first, .n = n};
        ovk_solver *s = NULL;
        MT_RC(OVK_OK, ovk_solver_create(A, &s));
        MT_RC(OVK_OK, ovk_solver_set_option(s, "solver", solvers[k % 2]));
        MT_RC(OVK_OK, ovk_solver_set_precond_fn(s, scaled_precond, &pc));
        MT_RC(OVK_OK, ovk_solver_set_tolerances(s, 1e-10, 0.0, 1000));
        ovk_vector_set(x, 0.0);
        int rc = ovk_solver_solve(s, b, x, &res);
        const char *d = ovk_error_detail();
        if (rank == 0)
            printf("%s, preconditioner %s: %s after %d: %s\n", solvers[k % 2], k < 2 ? "singular" : "x 1e-300",
                   ovk_status_name(rc), res.iterations, d);
        MT_CHECK(rc != OVK_OK ? strstr(d, "preconditioner") != NULL && !strstr(d, "A singular") : 1,
                 "%s, preconditioner %s: %s: the detail does not name the preconditioner: %s", solvers[k % 2],
                 k < 2 ? "singular" : "x 1e-300", ovk_status_name(rc), d);
        ovk_solver_destroy(&s);
    }
    ovk_vector_destroy(b);
    ovk_vector_destroy(x);
    ovk_matrix_destroy(A);
}

/* the 1-D line with its upper off-diagonal -0.5: nonsymmetric */
static ovk_matrix *skewed_line(void)
{
    tp_rows r;
    tp_rows_alloc(&r, N1, 3);
    int k = 0;
    for (int i = 0; i < r.count; i++) {
        int64_t g = r.start + i;
        if (g > 0) r.col[k] = g - 1, r.val[k++] = -1.0;
        r.col[k] = g, r.val[k++] = 2.0;
        if (g < N1 - 1) r.col[k] = g + 1, r.val[k++] = -0.5;
        r.ptr[i + 1] = k;
    }
    ovk_matrix *A = NULL;
    MT_RC(OVK_OK, ovk_matrix_create_csr(MPI_COMM_WORLD, r.start, r.count, r.ptr, r.col, r.val, OVK_DUP_REJECT, &A));
    tp_rows_free(&r);
    return A;
}

/* condest=1 under solver name (solve_many's two systems with many): an
 * estimate (lambda_max > 0, cond >= 1) or OVK_EOPTION on every rank naming
 * the option, the solver and the solvers that record the coefficients;
 * never accepted and 0 (minres, pminres, gmres, scg reported 0).  Returns
 * 1 when refused. */
static int condest_case(ovk_matrix *A, const char *name, int many)
{
    ovk_vector *b[2] = {NULL, NULL}, *x[2] = {NULL, NULL};
    ovk_result res[2];
    memset(res, 0, sizeof res);
    for (int j = 0; j < 2; j++) {
        ovk_vector_create(A, &b[j]);
        ovk_vector_create(A, &x[j]);
        double *bv = ovk_vector_data(b[j]);
        for (int i = 0; i < ovk_vector_nlocal(b[j]); i++)
            bv[i] = tp_value((uint64_t)(ovk_matrix_row_start(A) + i + 7 * j)); /* every eigenvector in b */
    }
    ovk_solver *s = NULL;
    MT_RC(OVK_OK, ovk_solver_create(A, &s));
    MT_RC(OVK_OK, ovk_solver_set_option(s, "solver", name));
    MT_RC(OVK_OK, ovk_solver_set_option(s, "precond", "none"));
    MT_RC(OVK_OK, ovk_solver_set_option(s, "condest", "1"));
    MT_RC(OVK_OK, ovk_solver_set_tolerances(s, 1e-8, 0.0, 2000));
    int rc = many ? ovk_solver_solve_many(s, 2, b, x, res) : ovk_solver_solve(s, b[0], x[0], &res[0]);
    long long r = rc;
    const char *d = ovk_error_detail();
    char named[48];
    snprintf(named, sizeof named, "solver %s ", name);
    MT_CHECK(mt_same_everywhere(MPI_COMM_WORLD, &r, 1), "condest %s: the ranks returned different statuses", name);
    if (rc == OVK_EOPTION)
        MT_CHECK(strstr(d, "condest=1") && strstr(d, named) && strstr(d, "alg1"),
                 "condest %s: the refusal names not the option, the solver and those that take it: %s", name, d);
    else
        for (int j = 0; j < (many ? 2 : 1); j++)
            MT_CHECK(rc == OVK_OK && res[j].lambda_max > 0.0 && res[j].cond_est >= 1.0,
                     "condest %s%s: %s, lambda_max %g, cond %g (accepted, and no estimate): %s", name,
                     many ? " (solve_many)" : "", ovk_status_name(rc), res[j].lambda_max, res[j].cond_est, d);
    if (rank == 0 && rc) printf("condest %s%s: %s: %s\n", name, many ? " (solve_many)" : "", ovk_status_name(rc), d);
    ovk_solver_destroy(&s);
    for (int j = 0; j < 2; j++) ovk_vector_destroy(b[j]), ovk_vector_destroy(x[j]);
    return rc == OVK_EOPTION;
}

/* condest=1 under every solver; minres and pminres refuse it (their docs
 * say so), cg1 takes it in solve_many and minres refuses it there, auto
 * refuses it on a nonsymmetric matrix (every candidate there is a GMRES) */
static void condest_everywhere(void)
{
    ovk_matrix *A = line(0, 0.0), *N = skewed_line();
    for (int k = 0; k < ovk_solver_type_count(); k++) {
        const char *name = ovk_solver_type_name(k);
        int refused = condest_case(A, name, 0);
        if (!strcmp(name, "minres") || !strcmp(name, "pminres") || !strcmp(name, "alg1"))
            MT_CHECK(refused == (strcmp(name, "alg1") != 0), "condest %s: refused %d", name, refused);
    }
    MT_CHECK(condest_case(A, "minres", 1), "condest minres (solve_many): accepted");
    MT_CHECK(!condest_case(A, "cg1", 1), "condest cg1 (solve_many): refused");
    MT_CHECK(condest_case(N, "auto", 0), "condest auto on a nonsymmetric matrix: accepted");
    ovk_matrix_destroy(N);
    ovk_matrix_destroy(A);
}

/* ---- a Stokes matrix with a zero pressure block ---------------------------- */

/* The MAC grid of KS x KS cells, velocity on the interior faces (u then v),
 * then the cell pressures: [[L, B^T], [B, 0]], L the 5-point Laplacian of
 * each component (Dirichlet walls), B the divergence.  The flow is
 * enclosed: the constant pressure is the null space. */
enum { KS = 16, SNU = (KS - 1) * KS, SN0 = 2 * SNU, SN = SN0 + KS * KS };

static int64_t s_u(int i, int j) { return i >= 1 && i <= KS - 1 && j >= 0 && j < KS ? (i - 1) * KS + j : -1; }
static int64_t s_v(int i, int j) { return i >= 0 && i < KS && j >= 1 && j <= KS - 1 ? SNU + i * (KS - 1) + (j - 1) : -1; }

/* row g's entries into col/val (at most 7), their count */
static int stokes_row(int64_t g, ovk_gidx *col, double *val)
{
    int k = 0;
    if (g >= SN0) { /* pressure (i, j): the divergence of its cell */
        int i = (int)((g - SN0) / KS), j = (int)((g - SN0) % KS);
        int64_t f[4] = {s_u(i + 1, j), s_u(i, j), s_v(i, j + 1), s_v(i, j)};
        for (int d = 0; d < 4; d++)
            if (f[d] >= 0) col[k] = f[d], val[k++] = d % 2 ? -1.0 : 1.0;
        return k;
    }
    int c = g >= SNU, i, j; /* a u face (i, j) between cells (i-1, j), (i, j); a v face likewise in j */
    if (!c) i = (int)(g / KS) + 1, j = (int)(g % KS);
    else i = (int)((g - SNU) / (KS - 1)), j = (int)((g - SNU) % (KS - 1)) + 1;
    int64_t nb[4] = {c ? s_v(i - 1, j) : s_u(i - 1, j), c ? s_v(i + 1, j) : s_u(i + 1, j),
                     c ? s_v(i, j - 1) : s_u(i, j - 1), c ? s_v(i, j + 1) : s_u(i, j + 1)};
    col[k] = g, val[k++] = 4.0;
    for (int d = 0; d < 4; d++)
        if (nb[d] >= 0) col[k] = nb[d], val[k++] = -1.0;
    /* B^T: the pressures of the two cells beside the face */
    int64_t lo = SN0 + (c ? (int64_t)i * KS + (j - 1) : (int64_t)(i - 1) * KS + j);
    int64_t hi = SN0 + (c ? (int64_t)i * KS + j : (int64_t)i * KS + j);
    col[k] = lo, val[k++] = 1.0; /* the face is the first cell's +1 side */
    col[k] = hi, val[k++] = -1.0;
    return k;
}

static ovk_matrix *stokes(void)
{
    tp_rows r;
    tp_rows_alloc(&r, SN, 8);
    int k = 0;
    for (int i = 0; i < r.count; i++) {
        k += stokes_row(r.start + i, r.col + k, r.val + k);
        r.ptr[i + 1] = k;
    }
    ovk_matrix *A = NULL;
    MT_RC(OVK_OK, ovk_matrix_create_csr(MPI_COMM_WORLD, r.start, r.count, r.ptr, r.col, r.val, OVK_DUP_SUM, &A));
    tp_rows_free(&r);
    return A;
}

/* fgmres with fieldsplit:type=diag,1=amg on the enclosed Stokes matrix, the
 * constant pressure declared as its null space, b = A y (consistent):
 * converged to rtol 1e-12 with x's true residual within 1e-11 of ||b||
 * (the Schur block's amg was not told the block is singular: its exact
 * coarsest solve put a huge constant into its output, and gmres stalled
 * near 1e-10); minres with the same blocks too */
static void stokes_null_space(void)
{
#ifdef OVK_HAVE_HYPRE
    static const char *const solvers[] = {"fgmres", "gmres", "minres"};
    ovk_matrix *A = stokes();
    int n = ovk_matrix_nlocal(A), *field = malloc(sizeof(int) * (size_t)(n + 1));
    int64_t start = ovk_matrix_row_start(A);
    double *z = malloc(sizeof(double) * (size_t)(n + 1));
    ovk_vector *b = NULL, *x = NULL, *y = NULL;
    ovk_vector_create(A, &b), ovk_vector_create(A, &x), ovk_vector_create(A, &y);
    double *yv = ovk_vector_data(y);
    for (int i = 0; i < n; i++) {
        field[i] = start + i >= SN0;
        z[i] = field[i] ? 1.0 : 0.0;
        yv[i] = tp_value((uint64_t)(start + i));
    }
    ovk_matvec(A, y, b);
    for (int k = 0; k < 2; k++) {
        ovk_solver *s = NULL;
        ovk_result res;
        MT_RC(OVK_OK, ovk_solver_create(A, &s));
        MT_RC(OVK_OK, ovk_solver_set_option(s, "solver", solvers[k]));
        MT_RC(OVK_OK, ovk_solver_set_option(s, "precond", "fieldsplit:type=diag,1=amg"));
        MT_RC(OVK_OK, ovk_solver_set_fields(s, field));
        const double *zv[1] = {z};
        MT_RC(OVK_OK, ovk_solver_set_nullspace(s, 0, 1, zv));
        MT_RC(OVK_OK, ovk_solver_set_tolerances(s, 1e-12, 0.0, 1500));
        ovk_vector_set(x, 0.0);
        int rc = ovk_solver_solve(s, b, x, &res);
        double along = 0.0, tr = true_rel(A, b, x, z, &along);
        if (rank == 0)
            printf("stokes, constant pressure declared, %s + fieldsplit:type=diag,1=amg: %s after %d, true %.2e\n",
                   solvers[k], ovk_status_name(rc), res.iterations, tr);
        MT_CHECK(rc == OVK_OK && tr < 1e-11 && along < 1e-8, "stokes %s: %s after %d iterations, true %g, "
                 "x along the null space %g: %s", solvers[k], ovk_status_name(rc), res.iterations, tr, along,
                 ovk_error_detail());
        ovk_solver_destroy(&s);
    }
    ovk_vector_destroy(b), ovk_vector_destroy(x), ovk_vector_destroy(y);
    free(field), free(z);
    ovk_matrix_destroy(A);
#endif
}

/* this process's resident set, bytes (0 where /proc is missing) */
static double rss_bytes(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    double kb = 0.0;
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, "VmRSS:", 6)) kb = atof(line + 6);
    if (f) fclose(f);
    return kb * 1024.0;
}

/* count lifetimes of a solver on backend; the largest rank's growth per
 * lifetime after `warm` of them */
static double lifetimes(ovk_matrix *A, const char *backend, int warm, int count)
{
    static const char *const solvers[] = {"cg1", "gmres"};
    ovk_vector *b = NULL, *x = NULL;
    ovk_pcg_result res;
    ovk_vector_create(A, &b);
    ovk_vector_create(A, &x);
    ovk_vector_set(b, 1.0);
    double before = 0.0;
    for (int i = 0; i < warm + count; i++) {
        if (i == warm) before = rss_bytes();
        ovk_solver *s = NULL;
        int rc = ovk_solver_create(A, &s);
        if (!rc) rc = ovk_solver_set_option(s, "solver", solvers[i % 2]);
        if (!rc) rc = ovk_solver_set_option(s, "backend", backend);
        if (!rc) rc = ovk_solver_set_tolerances(s, 1e-30, 0.0, 5);
        ovk_vector_set(x, 0.0);
        if (!rc) rc = ovk_solver_solve(s, b, x, &res);
        MT_CHECK(rc == OVK_EMAXIT, "%s on %s, lifetime %d: %s", solvers[i % 2], backend, i, ovk_status_name(rc));
        ovk_solver_destroy(&s);
    }
    double grew = (rss_bytes() - before) / count, most = 0.0;
    MPI_Allreduce(&grew, &most, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    ovk_vector_destroy(b);
    ovk_vector_destroy(x);
    return most;
}

static void lifetimes_check(void)
{
    ovk_matrix *A = line(0, 0.0);
#ifdef OVK_TEST_SANITIZED
    ovk_matrix_destroy(A); /* the sanitizers' allocator keeps freed memory: no figure */
    return;
#endif
    double per = lifetimes(A, "native:persistent=1", 50, 300);
    if (rank == 0) printf("native:persistent=1: %.0f B per solver lifetime (300 after 50)\n", per);
    MT_CHECK(per < 200.0, "native:persistent=1: the resident set grew by %.0f B per solver lifetime", per);
    ovk_matrix_destroy(A);
}

/* `lifetimes N [backend...]`: the long run, printed */
static void lifetimes_run(int count, int nb, char **backends)
{
    static const char *const all[] = {"blocking", "native", "native:persistent=1", "nbc", "offload"};
    ovk_matrix *A = line(0, 0.0);
    for (int k = 0; k < (nb ? nb : 5); k++) {
        const char *be = nb ? backends[k] : all[k];
        double per = lifetimes(A, be, count / 10, count);
        if (rank == 0) printf("%-22s %d solver lifetimes: %.0f B each\n", be, count, per);
    }
    ovk_matrix_destroy(A);
}

int main(int argc, char **argv)
{
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided); /* offload's agent needs it */
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    if (argc >= 3 && !strcmp(argv[1], "lifetimes")) {
        lifetimes_run(atoi(argv[2]), argc - 3, argv + 3);
        MPI_Finalize();
        return 0;
    }
    singular_minres();
    scg_nan();
    schur_on_one_rank();
    schur_tiny();
    empty_specs();
    minres_blame();
    condest_everywhere();
    stokes_null_space();
    lifetimes_check();
    int status = mt_finish("test_hardening6");
    MPI_Finalize();
    return status;
}

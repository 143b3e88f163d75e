/* MPI test: the fieldsplit preconditioner on a saddle-point matrix.
 *
 * The matrix: Stokes-like on a MAC grid of K x K cells, velocity (u on the
 * vertical faces, v on the horizontal ones, interior) and pressure (cell
 * centres), [[A, B^T], [B, -eps I]] with A = nu (alpha I + the 5-point
 * Laplacian) for each component (nu = 100: a viscosity, the blocks' scales
 * apart, as field split absorbs and an unsplit preconditioner does not) and
 * B the discrete divergence (stable: B^T's only null vector is the
 * constant pressure, which eps = 1e-3 removes).  The
 * rows are interleaved, two velocity rows then a pressure row, the last
 * ten pressure rows alone; at 3 ranks or more one rank holds only those
 * (no field-0 row), and at 2 or more the last rank holds none.
 *
 *  - minres + fieldsplit (type=diag: ic0 on A and jacobi on the Schur
 *    approximation; and the default, amg on A, when built with hypre)
 *    converges to rtol 1e-10 in under a third of minres + none's
 *    iterations (none stopped at 3x fieldsplit's does not converge; jacobi
 *    is refused by minres here: -eps on the diagonal), and x matches a dense reference (Gaussian elimination of the whole
 *    matrix on every rank) to 1e-7;
 *  - gmres with type=diag, lower and upper, fgmres with lower: converge,
 *    x matches the reference; the triangular forms in under 0.6x diag's
 *    iterations (with a sign of the Schur block wrong: 0.8-0.95x) and in
 *    under a third of gmres + jacobi's (gmres(30), stopped there);
 *  - the Schur approximation: selfp (C + B diag(A)^-1 B^T, formed by the
 *    library from the distributed rows) against the same matrix formed here
 *    densely and given as the user's (ovk_solver_set_schur_matrix): the
 *    same iteration count and x to 1e-12; a "pressure mass matrix" (I) as
 *    the user's: converges, matches the reference, and in another number
 *    of iterations than selfp (it is used);
 *  - bad input, the same status on every rank with a detail naming the
 *    culprit: a field id 2 (ovk_solver_set_fields), an empty field,
 *    fieldsplit without fields, schur=user without a matrix, a Schur matrix
 *    of the wrong size (and, at 3 ranks or more, distributed unlike field
 *    1), a zero diagonal entry in A with selfp, minres with type=lower and
 *    type=upper, a field's preconditioner fieldsplit or unknown.
 * Runs at any rank count. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpitest.h"

static int g_rank, g_size;

enum { K = 10, NU = (K - 1) * K, NV = K * (K - 1), NP = K * K, N0 = NU + NV, N = N0 + NP, TAIL = 10 };
static const double ALPHA = 0.5, EPS = 1e-3, VISC = 100.0;

static int perm[N];  /* new row -> natural unknown */
static int where[N]; /* natural unknown -> new row */

static int u_id(int i, int j) { return i >= 1 && i <= K - 1 && j >= 0 && j < K ? (i - 1) * K + j : -1; }
static int v_id(int i, int j) { return i >= 0 && i < K && j >= 1 && j <= K - 1 ? NU + i * (K - 1) + (j - 1) : -1; }
static int p_id(int i, int j) { return N0 + i * K + j; }

/* two velocity rows, then a pressure row; what is left of the pressure at the end */
static void make_order(void)
{
    int v = 0, p = N0, k = 0;
    while (v < N0) {
        perm[k++] = v++;
        if (v < N0) perm[k++] = v++;
        perm[k++] = p++;
    }
    while (p < N) perm[k++] = p++;
    for (int r = 0; r < N; r++) where[perm[r]] = r;
}

/* the dense matrix in natural numbering; zero_diag >= 0: that unknown's a_ii is 0 */
static void natural_matrix(double *m, int zero_diag)
{
    memset(m, 0, sizeof(double) * N * N);
    for (int c = 0; c < 2; c++) /* A: alpha I + 5-point Laplacian on each component's grid */
        for (int i = 0; i <= K; i++)
            for (int j = 0; j <= K; j++) {
                int a = c ? v_id(i, j) : u_id(i, j);
                if (a < 0) continue;
                m[a * N + a] = a == zero_diag ? 0.0 : VISC * (4.0 + ALPHA);
                int nb[4] = {c ? v_id(i - 1, j) : u_id(i - 1, j), c ? v_id(i + 1, j) : u_id(i + 1, j),
                             c ? v_id(i, j - 1) : u_id(i, j - 1), c ? v_id(i, j + 1) : u_id(i, j + 1)};
                for (int d = 0; d < 4; d++)
                    if (nb[d] >= 0) m[a * N + nb[d]] = -VISC;
            }
    for (int i = 0; i < K; i++) /* B (divergence) and B^T; -eps I */
        for (int j = 0; j < K; j++) {
            int p = p_id(i, j), f[4] = {u_id(i + 1, j), u_id(i, j), v_id(i, j + 1), v_id(i, j)};
            double s[4] = {1.0, -1.0, 1.0, -1.0};
            for (int d = 0; d < 4; d++)
                if (f[d] >= 0) m[p * N + f[d]] = m[f[d] * N + p] = s[d];
            m[p * N + p] = -EPS;
        }
}

/* the rank's rows [lo, hi) of the new order */
static void my_rows(int *lo, int *hi)
{
    int holders = g_size > 1 ? g_size - 1 : 1;
    if (g_rank >= holders) *lo = *hi = N;
    else if (holders == 1) *lo = 0, *hi = N;
    else if (g_rank == holders - 1) *lo = N - TAIL, *hi = N; /* pressure rows only */
    else {
        *lo = (N - TAIL) * g_rank / (holders - 1);
        *hi = (N - TAIL) * (g_rank + 1) / (holders - 1);
    }
}

/* rows [lo, hi) of the n x n dense matrix m (n columns) as a matrix on
 * MPI_COMM_WORLD, zeros left out */
static ovk_matrix *distribute(const double *m, int n, int lo, int hi)
{
    int nl = hi - lo, *ptr = malloc(sizeof(int) * (size_t)(nl + 1)), k = 0;
    ovk_gidx *col = malloc(sizeof(ovk_gidx) * (size_t)(nl * n + 1));
    double *val = malloc(sizeof(double) * (size_t)(nl * n + 1));
    ptr[0] = 0;
    for (int i = lo; i < hi; i++) {
        for (int j = 0; j < n; j++)
            if (m[(size_t)i * n + j] != 0.0) col[k] = j, val[k++] = m[(size_t)i * n + j];
        ptr[i - lo + 1] = k;
    }
    ovk_matrix *A = NULL;
    MT_RC(OVK_OK, ovk_matrix_create_csr(MPI_COMM_WORLD, lo, nl, ptr, col, val, OVK_DUP_REJECT, &A));
    free(ptr), free(col), free(val);
    return A;
}

/* the permuted dense matrix (new numbering) */
static void permuted_matrix(double *pm, int zero_diag)
{
    double *m = malloc(sizeof(double) * N * N);
    natural_matrix(m, zero_diag);
    for (int r = 0; r < N; r++)
        for (int c = 0; c < N; c++) pm[r * N + c] = m[perm[r] * N + perm[c]];
    free(m);
}

static double b_value(int row) { return sin(0.7 * row + 1.0) + 0.25 * cos(3.1 * row); }

/* ---- solves ------------------------------------------------------------------- */

typedef struct problem {
    double *dense; /* new numbering */
    double *xref;  /* the dense solution */
    ovk_matrix *A;
    ovk_vector *b;
    int lo, hi, *fields;
    int maxit; /* the solves' iteration limit (0: 2000) */
} problem;

typedef struct result {
    int rc, iterations;
    ovk_reason reason;
    double err; /* max |x - xref| / max |xref| */
    double x[N];
    char detail[512];
} result;

/* a solve from x = 0; fields NULL: none set; S: the user's Schur matrix */
static result solve(problem *pb, const char *solver, const char *pc, const int *fields, ovk_matrix *S)
{
    result o = {0};
    ovk_vector *x = NULL;
    ovk_solver *s = NULL;
    ovk_pcg_result res = {0};
    ovk_vector_create(pb->A, &x);
    ovk_solver_create(pb->A, &s);
    o.rc = ovk_solver_set_option(s, "solver", solver);
    if (!o.rc) o.rc = ovk_solver_set_option(s, "precond", pc);
    if (!o.rc) o.rc = ovk_solver_set_tolerances(s, 1e-10, 0.0, pb->maxit ? pb->maxit : 2000);
    if (!o.rc && fields) o.rc = ovk_solver_set_fields(s, fields);
    if (!o.rc && S) o.rc = ovk_solver_set_schur_matrix(s, S);
    if (!o.rc) o.rc = ovk_solver_setup(s);
    if (!o.rc) o.rc = ovk_solver_solve(s, pb->b, x, &res);
    if (o.rc) snprintf(o.detail, sizeof o.detail, "%s", ovk_error_detail());
    o.iterations = res.iterations;
    o.reason = res.reason;
    double loc[N] = {0}, xmax = 0.0, emax = 0.0;
    const double *xd = ovk_vector_data_const(x);
    for (int i = pb->lo; i < pb->hi; i++) loc[i] = xd[i - pb->lo];
    MPI_Allreduce(loc, o.x, N, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    for (int i = 0; i < N; i++) {
        xmax = fmax(xmax, fabs(pb->xref[i]));
        emax = fmax(emax, fabs(o.x[i] - pb->xref[i]));
    }
    o.err = emax / xmax;
    ovk_solver_destroy(&s);
    ovk_vector_destroy(x);
    return o;
}

static void expect_everywhere(const char *what, const result *o, int expected, const char *needle)
{
    int lo = o->rc, hi = o->rc;
    MPI_Allreduce(&o->rc, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&o->rc, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MT_CHECK(lo == expected && hi == expected, "%s: status %s..%s, expected %s (%s)", what, ovk_status_name(lo),
             ovk_status_name(hi), ovk_status_name(expected), o->detail);
    MT_CHECK(strstr(o->detail, needle) != NULL, "%s: detail '%s' does not name '%s'", what, o->detail, needle);
}

static void expect_solved(const char *what, const result *o, double tol)
{
    MT_CHECK(o->rc == OVK_OK && o->reason == OVK_REASON_CONVERGED, "%s: status %s reason %s (%s)", what,
             ovk_status_name(o->rc), ovk_reason_name(o->reason), o->detail);
    MT_CHECK(o->err < tol, "%s: x differs from the dense reference by %.3e (relative)", what, o->err);
}

static void problem_make(problem *pb, int zero_diag)
{
    pb->dense = malloc(sizeof(double) * N * N);
    pb->xref = malloc(sizeof(double) * N);
    permuted_matrix(pb->dense, zero_diag);
    my_rows(&pb->lo, &pb->hi);
    pb->A = distribute(pb->dense, N, pb->lo, pb->hi);
    ovk_vector_create(pb->A, &pb->b);
    double *bd = ovk_vector_data(pb->b);
    pb->fields = malloc(sizeof(int) * (size_t)(pb->hi - pb->lo + 1));
    for (int i = pb->lo; i < pb->hi; i++) {
        bd[i - pb->lo] = b_value(i);
        pb->fields[i - pb->lo] = perm[i] >= N0;
    }
    for (int i = 0; i < N; i++) pb->xref[i] = b_value(i);
    if (zero_diag >= 0) return; /* for refusals only */
    double *a = malloc(sizeof(double) * N * N);
    memcpy(a, pb->dense, sizeof(double) * N * N);
    mt_dense_solve(N, a, pb->xref);
    free(a);
}

static void problem_free(problem *pb)
{
    ovk_vector_destroy(pb->b);
    ovk_matrix_destroy(pb->A);
    free(pb->dense), free(pb->xref), free(pb->fields);
}

/* field 1's rows of this rank: [*lo, *hi) of the pressure numbering (the
 * pressure rows keep their natural order in the new one) */
static void pressure_rows(const problem *pb, int *lo, int *hi)
{
    int first = 0, count = 0;
    for (int i = 0; i < pb->lo; i++) first += perm[i] >= N0;
    for (int i = pb->lo; i < pb->hi; i++) count += perm[i] >= N0;
    *lo = first, *hi = first + count;
}

/* S = eps I + B diag(A)^-1 B^T (pressure numbering), dense */
static void selfp_dense(double *s)
{
    double *m = malloc(sizeof(double) * N * N);
    natural_matrix(m, -1);
    for (int p = 0; p < NP; p++)
        for (int q = 0; q < NP; q++) {
            double sum = p == q ? EPS : 0.0;
            for (int k = 0; k < N0; k++) sum += m[(N0 + p) * N + k] * m[k * N + N0 + q] / m[k * N + k];
            s[p * NP + q] = sum;
        }
    free(m);
}

/* ---- the checks --------------------------------------------------------------- */

/* The baseline: solver with pc from x = 0, stopped after 3 its_max
 * iterations, must not have converged (the field split took under a third
 * of its iterations); a run to the end would cost 232 (minres + none) and
 * 314 (gmres + jacobi) iterations. */
static void baseline(problem *pb, const char *solver, const char *pc, int its_max)
{
    pb->maxit = 3 * its_max;
    result o = solve(pb, solver, pc, NULL, NULL);
    pb->maxit = 0;
    MT_CHECK(o.rc == OVK_EMAXIT, "%s + %s converged in %d iterations, 3x the field split's %d allowed (%s)", solver, pc,
             o.iterations, its_max, o.detail);
    if (g_rank == 0) printf("  %s + %s: not converged in %d iterations\n", solver, pc, 3 * its_max);
}

/* *first: the solve with fieldsplit:type=diag,0=ic0,1=jacobi */
static void spd_solver(problem *pb, result *first)
{
    const char *pcs[] = {"fieldsplit:type=diag,0=ic0,1=jacobi", "fieldsplit"};
    int count = 1, its_max = 0;
#ifdef OVK_HAVE_HYPRE
    count = 2;
#endif
    for (int k = 0; k < count; k++) {
        char what[128];
        snprintf(what, sizeof what, "minres + %s", pcs[k]);
        result fs = solve(pb, "minres", pcs[k], pb->fields, NULL);
        expect_solved(what, &fs, 1e-7);
        if (fs.iterations > its_max) its_max = fs.iterations;
        if (g_rank == 0) printf("  %-48s %4d iterations\n", what, fs.iterations);
        if (k == 0) *first = fs;
    }
    baseline(pb, "minres", "none", its_max);
}

/* gmres with a block-triangular split whose blocks are symmetric takes the
 * preconditioners built for a symmetric matrix (it refused them: "built for a
 * symmetric matrix") */
static void symmetric_blocks(problem *pb)
{
    const char *pcs[] = {"fieldsplit:type=lower,0=ic0", "fieldsplit:type=lower,0=ssor", "fieldsplit:type=upper,0=cheby",
                         "fieldsplit:type=lower,0=jacobi,1=ic0"};
    for (int k = 0; k < 4; k++) {
        char what[128];
        snprintf(what, sizeof what, "gmres + %s", pcs[k]);
        result fs = solve(pb, "gmres", pcs[k], pb->fields, NULL);
        expect_solved(what, &fs, 1e-7);
        if (g_rank == 0) printf("  %-48s %4d iterations\n", what, fs.iterations);
    }
}

static void triangular(problem *pb)
{
    const char *runs[][2] = {{"gmres", "diag"}, {"gmres", "lower"}, {"gmres", "upper"}, {"fgmres", "lower"}};
    int diag_its = 0, its_max = 0;
    for (int k = 0; k < 4; k++) {
        char pc[96], what[160];
        snprintf(pc, sizeof pc, "fieldsplit:type=%s,0=ilu0,1=jacobi", runs[k][1]);
        snprintf(what, sizeof what, "%s + %s", runs[k][0], pc);
        result fs = solve(pb, runs[k][0], pc, pb->fields, NULL);
        expect_solved(what, &fs, 1e-7);
        if (k == 0) diag_its = fs.iterations;
        else { /* the block factors of the matrix (signs included): well under diag's */
            MT_CHECK(5 * fs.iterations < 3 * diag_its, "%s: %d iterations, type=diag %d", what, fs.iterations,
                     diag_its);
            if (fs.iterations > its_max) its_max = fs.iterations;
        }
        if (g_rank == 0) printf("  %-48s %4d iterations\n", what, fs.iterations);
    }
    baseline(pb, "gmres", "jacobi", its_max);
}

/* self: the solve with selfp (spd_solver's first) */
static void user_schur(problem *pb, const result *self_run)
{
    int lo, hi;
    pressure_rows(pb, &lo, &hi);
    double *s = malloc(sizeof(double) * NP * NP), *eye = calloc(NP * NP, sizeof(double));
    selfp_dense(s);
    for (int p = 0; p < NP; p++) eye[p * NP + p] = 1.0;
    ovk_matrix *S = distribute(s, NP, lo, hi), *M = distribute(eye, NP, lo, hi);
    const char *pc = "fieldsplit:type=diag,0=ic0,1=jacobi";
    const result self = *self_run;
    result user = solve(pb, "minres", "fieldsplit:type=diag,0=ic0,1=jacobi,schur=user", pb->fields, S);
    expect_solved("selfp", &self, 1e-7);
    expect_solved("the test's selfp as the user's", &user, 1e-7);
    double d = 0.0;
    for (int i = 0; i < N; i++) d = fmax(d, fabs(self.x[i] - user.x[i]));
    MT_CHECK(self.iterations == user.iterations && d < 1e-12,
             "selfp: %d iterations, the test's own selfp %d; x differs by %.3e", self.iterations, user.iterations, d);
    result mass = solve(pb, "minres", pc, pb->fields, M); /* schur defaults to the user's once set */
    expect_solved("a pressure mass matrix as the user's", &mass, 1e-7);
    MT_CHECK(mass.iterations != self.iterations, "the user's I took selfp's %d iterations: not used?",
             self.iterations);
    if (g_rank == 0) printf("  Schur: selfp %d, the test's selfp %d, I %d iterations\n", self.iterations,
                            user.iterations, mass.iterations);
    ovk_matrix_destroy(S), ovk_matrix_destroy(M);
    /* the wrong size: NP - 1 rows (the last rank with rows one fewer) */
    ovk_matrix *W = distribute(eye, NP, lo < NP - 1 ? lo : NP - 1, hi < NP - 1 ? hi : NP - 1);
    result wrong = solve(pb, "minres", pc, pb->fields, W);
    expect_everywhere("a Schur matrix of NP - 1 rows", &wrong, OVK_EMISMATCH, "the Schur matrix has 99 rows");
    ovk_matrix_destroy(W);
    if (g_size >= 3) { /* the right size, field 1's rows all on rank 0 */
        ovk_matrix *R = distribute(eye, NP, g_rank ? NP : 0, NP);
        result moved = solve(pb, "minres", pc, pb->fields, R);
        expect_everywhere("a Schur matrix distributed unlike field 1", &moved, OVK_EMISMATCH,
                          "distributed as field 1's");
        ovk_matrix_destroy(R);
    }
    free(s), free(eye);
}

static void bad_inputs(problem *pb)
{
    int nl = pb->hi - pb->lo, *bad = malloc(sizeof(int) * (size_t)(nl + 1));
    const char *pc = "fieldsplit:type=diag,0=ic0,1=jacobi";
    memcpy(bad, pb->fields, sizeof(int) * (size_t)nl);
    if (nl > 0 && pb->hi == N) bad[nl - 1] = 2; /* the last row */
    result o = solve(pb, "minres", pc, bad, NULL);
    expect_everywhere("a field id 2", &o, OVK_EINVAL, "row 279's field is 2");
    for (int i = 0; i < nl; i++) bad[i] = 0;
    o = solve(pb, "minres", pc, bad, NULL);
    expect_everywhere("every row in field 0", &o, OVK_EINVAL, "field 1 is empty");
    o = solve(pb, "minres", pc, NULL, NULL);
    expect_everywhere("fieldsplit without fields", &o, OVK_EINVAL, "ovk_solver_set_fields");
    o = solve(pb, "minres", "fieldsplit:0=ic0,schur=user", pb->fields, NULL);
    expect_everywhere("schur=user without a matrix", &o, OVK_EINVAL, "no Schur matrix is set");
    o = solve(pb, "minres", "fieldsplit:type=lower,0=ic0", pb->fields, NULL);
    expect_everywhere("minres + type=lower", &o, OVK_EUNSUPPORTED, "use type=diag");
    o = solve(pb, "minres", "fieldsplit:type=upper,0=ic0", pb->fields, NULL);
    expect_everywhere("minres + type=upper", &o, OVK_EUNSUPPORTED, "not symmetric");
    o = solve(pb, "gmres", "fieldsplit:0=fieldsplit", pb->fields, NULL);
    expect_everywhere("0=fieldsplit", &o, OVK_EOPTION, "cannot be fieldsplit");
    o = solve(pb, "gmres", "fieldsplit:1=nosuch", pb->fields, NULL);
    expect_everywhere("1=nosuch", &o, OVK_EOPTION, "field 1's preconditioner nosuch");
    free(bad);
    problem z = {0};
    problem_make(&z, 0); /* u(1, 0): row 0, a_00 = 0 */
    o = solve(&z, "gmres", "fieldsplit:type=lower,0=jacobi", z.fields, NULL);
    expect_everywhere("a zero diagonal in A with selfp", &o, OVK_EZERODIAG, "row 0 (field 0)");
    problem_free(&z);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g_size);
    make_order();
    problem pb = {0};
    problem_make(&pb, -1);
    static result diag_ic0; /* a result holds x: not on the stack */
    spd_solver(&pb, &diag_ic0);
    triangular(&pb);
    symmetric_blocks(&pb);
    user_schur(&pb, &diag_ic0);
    bad_inputs(&pb);
    problem_free(&pb);
    int rc = mt_finish("fieldsplit");
    MPI_Finalize();
    return rc;
}

/* Hardening: extreme scales, memory limits, argument and detail checks.
 *   - extreme scales: A s and b s for s = 1e-300 ... 1e+300 solve as s = 1
 *     does (the same iterations, relative residual and x) with every
 *     CG solver with none and jacobi, every nonsymmetric one with none,
 *     ilu0 and eisenstat on an upwind convection-diffusion matrix, and amg; b = 0 is
 *     exactly b = 0 (one entry of 1e-320 is not);
 *     ovk_vector_norm2 of tiny and huge vectors;
 *   - ovk_options_set_args with a NULL among argv: OVK_EINVAL naming it;
 *   - details: a status agreed twice keeps one rank prefix (ovk__agree
 *     twice; a bad diagonal on rank 1 under jacobi and amg); a setting that
 *     differs across the ranks (the coordinates' dimension) is named alone;
 *   - ovk_options_get_real on a flag alone: 1, as ovk_options_get_int. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "mpitest.h"
#include "problem.h"

enum { GRID = 8 };

static int rank, nranks;

/* the 7-point Laplacian on GRID^3 plus, for peclet > 0, a first-order
 * upwind convection along x (ovk_convdiff_create's upwind rows at cell
 * Peclet number `peclet`: a nonsymmetric M-matrix), scaled by s, rows split
 * by tp_split */
static ovk_matrix *scaled_matrix(double s, double peclet)
{
    int count, *ptr;
    int64_t start;
    ovk_gidx *cols;
    double *vals;
    ovk_matrix *A = NULL;
    tp_split((int64_t)GRID * GRID * GRID, rank, nranks, &start, &count);
    tp_laplace_rows(7, GRID, 0.0, start, count, &ptr, &cols, &vals);
    for (int i = 0; i < count; i++)
        for (int k = ptr[i]; k < ptr[i + 1]; k++) {
            if (cols[k] == start + i) vals[k] += 2.0 * peclet; /* u_i - u_{i-1}, scaled as the diffusion */
            if (cols[k] == start + i - 1 && (start + i) % GRID != 0) vals[k] -= 2.0 * peclet;
        }
    for (int k = 0; k < ptr[count]; k++) vals[k] *= s;
    MT_RC(OVK_OK, ovk_matrix_create_csr(MPI_COMM_WORLD, start, count, ptr, cols, vals, OVK_DUP_REJECT, &A));
    free(ptr);
    free(cols);
    free(vals);
    return A;
}

static ovk_matrix *scaled_laplace(double s) { return scaled_matrix(s, 0.0); }

typedef struct outcome {
    int rc, iterations;
    double rel, *x;
    char choice[32]; /* auto's variant: it follows measured timings */
} outcome;

/* solve (A s) x = b s, b_i = 1 + tp_value(i) */
static outcome solve_scaled(const char *solver, const char *pc, double s, double peclet)
{
    outcome o = {0};
    ovk_matrix *A = scaled_matrix(s, peclet);
    ovk_solver *sv = NULL;
    ovk_vector *b = NULL, *x = NULL;
    ovk_pcg_result res;
    MT_RC(OVK_OK, ovk_solver_create(A, &sv));
    MT_RC(OVK_OK, ovk_solver_set_option(sv, "solver", solver));
    MT_RC(OVK_OK, ovk_solver_set_option(sv, "precond", pc));
    MT_RC(OVK_OK, ovk_solver_set_option(sv, "rtol", "1e-8"));
    MT_RC(OVK_OK, ovk_vector_create(A, &b));
    MT_RC(OVK_OK, ovk_vector_create(A, &x));
    int n = ovk_matrix_nlocal(A);
    double *bd = ovk_vector_data(b);
    for (int i = 0; i < n; i++) bd[i] = s * (1.0 + tp_value((uint64_t)(ovk_matrix_row_start(A) + i)));
    o.rc = ovk_solver_solve(sv, b, x, &res);
    o.iterations = res.iterations;
    o.rel = res.rel_residual;
    snprintf(o.choice, sizeof o.choice, "%s", res.auto_choice);
    o.x = malloc(sizeof(double) * (size_t)(n > 0 ? n : 1));
    memcpy(o.x, ovk_vector_data(x), sizeof(double) * (size_t)n);
    ovk_vector_destroy(b);
    ovk_vector_destroy(x);
    ovk_solver_destroy(&sv);
    ovk_matrix_destroy(A);
    return o;
}

/* max_i |x_i - y_i| / max_i |y_i| over every rank */
static double max_rel_diff(const double *x, const double *y, int n)
{
    double v[2] = {0.0, 0.0};
    for (int i = 0; i < n; i++) {
        v[0] = fmax(v[0], fabs(x[i] - y[i]));
        v[1] = fmax(v[1], fabs(y[i]));
    }
    MPI_Allreduce(MPI_IN_PLACE, v, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return v[1] > 0.0 ? v[0] / v[1] : v[0];
}

/* every solver with each preconditioner of pcs on the Laplacian
 * (peclet = 0) or the upwind convection-diffusion matrix: s = 1e-300 ...
 * 1e+300 and 2^-1000 solve as s = 1: the same iterations, x within 1e-7,
 * the relative residual within rel_tol of s = 1's (s a_ij is rounded: a
 * problem that differs in its last bits, whose converged residual follows
 * them), and bitwise at 2^-1000 */
static void check_scales_of(const char *const *solvers, int nsolvers, const char *const *pcs, int npcs, double peclet,
                            double rel_tol)
{
    static const double scales[] = {1e-300, 1e-150, 1e+150, 1e+300, 0x1p-1000};
    int n = 0;
    {
        ovk_matrix *A = scaled_laplace(1.0);
        n = ovk_matrix_nlocal(A);
        ovk_matrix_destroy(A);
    }
    for (int i = 0; i < nsolvers; i++)
        for (int j = 0; j < npcs; j++) {
            outcome one = solve_scaled(solvers[i], pcs[j], 1.0, peclet);
            if (one.rc == OVK_EUNSUPPORTED) { /* alg2 needs a split preconditioner */
                free(one.x);
                continue;
            }
            MT_CHECK(one.rc == OVK_OK && one.iterations > 0, "%s, %s, Pe %g, s = 1: %s in %d", solvers[i], pcs[j],
                     peclet, ovk_status_name(one.rc), one.iterations);
            for (int k = 0; k < (int)(sizeof scales / sizeof scales[0]); k++) {
                outcome o = solve_scaled(solvers[i], pcs[j], scales[k], peclet);
                double dx = max_rel_diff(o.x, one.x, n);
                /* auto may time its way to another variant on a loaded host:
                   then converged, and x as close as two rtol 1e-8 solves are */
                int same = strcmp(o.choice, one.choice) == 0;
                MT_CHECK(o.rc == OVK_OK &&
                             (same ? o.iterations == one.iterations && fabs(o.rel - one.rel) <= rel_tol * one.rel &&
                                         dx < 1e-7
                                   : o.rel <= 1e-8 && dx < 1e-5),
                         "%s, %s, Pe %g, s = %g: %s, %d iterations, ||r||/||b|| = %.6e, ||x - x(s=1)|| = %.1e; "
                         "s = 1: %d, %.6e",
                         solvers[i], pcs[j], peclet, scales[k], ovk_status_name(o.rc), o.iterations, o.rel, dx,
                         one.iterations, one.rel);
                /* a power of two scales exactly: bitwise the solve of s = 1 (auto: if it
                   chose the same variant both times), scg's shifts from its Ritz values too */
                MT_CHECK(scales[k] != 0x1p-1000 || strcmp(o.choice, one.choice) != 0 ||
                             (dx == 0.0 && o.rel == one.rel),
                         "%s (%s), %s, Pe %g, s = 2^-1000: ||x - x(s=1)|| = %.1e, ||r||/||b|| %.17g vs %.17g",
                         solvers[i], o.choice, pcs[j], peclet, dx, o.rel, one.rel);
                free(o.x);
            }
            free(one.x);
        }
}

static void check_extreme_scales(void)
{
    static const char *const cg[] = {"alg1", "alg2", "overlap", "cg1", "pipecg", "groppcg",
                                     "pipeprcg", "plcg", "plcg:l=2", "auto", "scg:s=4", "scg:s=8"};
    static const char *const nonsym[] = {"gmres", "fgmres", "gmres:refine=ifneeded", "pgmres", "bicgstab",
                                         "pipebicgstab"};
    static const char *const pcs[] = {"none", "jacobi"};
    /* eisenstat: bicgstab iterates on its split form, r^ = sigma Lt^-1 r */
    static const char *const nonsym_pcs[] = {"none", "ilu0", "eisenstat"};
    enum { NCG = sizeof cg / sizeof *cg, NNONSYM = sizeof nonsym / sizeof *nonsym };
    check_scales_of(cg, NCG, pcs, 2, 0.0, 1e-5);
    /* pipebicgstab's residual moves by up to 5e-4 with the rounding of s a_ij */
    check_scales_of(nonsym, NNONSYM, nonsym_pcs, 3, 0.5, 1e-3);
#ifdef OVK_HAVE_HYPRE
    /* amg: hypre's hierarchy of the rounded s a_ij moves the residual more
     * (plcg:l=2 by 55 %, as at s = 3); the same iterations all the same */
    static const char *const amg[] = {"amg"};
    static const char *const amg_cg[] = {"pipecg", "plcg:l=2"};
    static const char *const amg_nonsym[] = {"gmres"};
    check_scales_of(amg_cg, 2, amg, 1, 0.0, 1.0);
    check_scales_of(amg_nonsym, 1, amg, 1, 0.5, 1.0);
#endif
}

/* a user operator: y = A x through ovk_matvec on wrapped arrays */
typedef struct op_ctx {
    ovk_matrix *A;
    ovk_vector *x, *y;
} op_ctx;

static int apply_matrix(ovk_solver *s, const double *in, double *out, void *ctx)
{
    (void)s;
    op_ctx *o = ctx;
    int n = ovk_matrix_nlocal(o->A);
    memcpy(ovk_vector_data(o->x), in, sizeof(double) * (size_t)n);
    int rc = ovk_matvec(o->A, o->x, o->y);
    memcpy(out, ovk_vector_data(o->y), sizeof(double) * (size_t)n);
    return rc;
}

/* the same problem through a user operator (||A|| from the setup's power steps) */
static outcome solve_operator(const char *solver, double s)
{
    outcome o = {0};
    op_ctx oc = {scaled_laplace(s), NULL, NULL};
    ovk_solver *sv = NULL;
    ovk_vector *b = NULL, *x = NULL;
    ovk_pcg_result res;
    int n = ovk_matrix_nlocal(oc.A);
    MT_RC(OVK_OK, ovk_vector_create(oc.A, &oc.x));
    MT_RC(OVK_OK, ovk_vector_create(oc.A, &oc.y));
    MT_RC(OVK_OK, ovk_solver_create_operator(MPI_COMM_WORLD, n, apply_matrix, &oc, &sv));
    MT_RC(OVK_OK, ovk_solver_set_option(sv, "solver", solver));
    MT_RC(OVK_OK, ovk_solver_set_option(sv, "precond", "none"));
    MT_RC(OVK_OK, ovk_solver_set_option(sv, "rtol", "1e-8"));
    MT_RC(OVK_OK, ovk_solver_vector_create(sv, NULL, &b));
    MT_RC(OVK_OK, ovk_solver_vector_create(sv, NULL, &x));
    double *bd = ovk_vector_data(b);
    for (int i = 0; i < n; i++) bd[i] = s * (1.0 + tp_value((uint64_t)(ovk_matrix_row_start(oc.A) + i)));
    o.rc = ovk_solver_solve(sv, b, x, &res);
    o.iterations = res.iterations;
    o.rel = res.rel_residual;
    ovk_vector_destroy(b);
    ovk_vector_destroy(x);
    ovk_solver_destroy(&sv);
    ovk_vector_destroy(oc.x);
    ovk_vector_destroy(oc.y);
    ovk_matrix_destroy(oc.A);
    return o;
}

static void check_operator_scales(void)
{
    static const char *const solvers[] = {"alg1", "cg1", "pipecg", "plcg:l=2"};
    static const double scales[] = {1e-300, 1e+300};
    for (int i = 0; i < 4; i++) {
        outcome one = solve_operator(solvers[i], 1.0);
        for (int k = 0; k < 2; k++) {
            outcome o = solve_operator(solvers[i], scales[k]);
            MT_CHECK(o.rc == OVK_OK && o.iterations == one.iterations && fabs(o.rel - one.rel) <= 1e-5 * one.rel,
                     "operator, %s, s = %g: %s, %d iterations, %.6e; s = 1: %s, %d, %.6e", solvers[i], scales[k],
                     ovk_status_name(o.rc), o.iterations, o.rel, ovk_status_name(one.rc), one.iterations, one.rel);
        }
    }
}

/* b = 0 exactly: x = 0 at iteration 0; b with one entry of 1e-320: solved */
static void check_zero_rhs(void)
{
    ovk_matrix *A = scaled_laplace(1.0);
    ovk_solver *sv = NULL;
    ovk_vector *b = NULL, *x = NULL;
    ovk_pcg_result res;
    MT_RC(OVK_OK, ovk_solver_create(A, &sv));
    MT_RC(OVK_OK, ovk_vector_create(A, &b));
    MT_RC(OVK_OK, ovk_vector_create(A, &x));
    int n = ovk_matrix_nlocal(A);
    double *bd = ovk_vector_data(b), *xd = ovk_vector_data(x);
    for (int i = 0; i < n; i++) xd[i] = 1.0;
    MT_RC(OVK_OK, ovk_solver_set_option(sv, "initial_guess_zero", "0"));
    int rc = ovk_solver_solve(sv, b, x, &res);
    double xn = -1.0;
    MT_RC(OVK_OK, ovk_vector_norm2(x, &xn));
    MT_CHECK(rc == OVK_OK && res.iterations == 0 && xn == 0.0, "b = 0: %s, %d iterations, ||x|| = %g",
             ovk_status_name(rc), res.iterations, xn);
    if (ovk_matrix_row_start(A) <= 17 && 17 < ovk_matrix_row_start(A) + n) bd[17 - ovk_matrix_row_start(A)] = 1e-320;
    for (int i = 0; i < n; i++) xd[i] = 0.0;
    rc = ovk_solver_solve(sv, b, x, &res);
    MT_RC(OVK_OK, ovk_vector_norm2(x, &xn));
    MT_CHECK(rc == OVK_OK && res.iterations > 0 && xn > 0.0, "b_17 = 1e-320: %s, %d iterations, ||x|| = %g",
             ovk_status_name(rc), res.iterations, xn);
    ovk_vector_destroy(b);
    ovk_vector_destroy(x);
    ovk_solver_destroy(&sv);
    ovk_matrix_destroy(A);
}

/* ||v|| for v_i = a: sqrt(N) |a| to rounding, for tiny and huge a */
static void check_norm2(void)
{
    static const double as[] = {1e-300, 3e-320, 1e-160, 1.0, 1e160, 1e300, 1e306};
    ovk_matrix *A = scaled_laplace(1.0);
    ovk_vector *v = NULL;
    MT_RC(OVK_OK, ovk_vector_create(A, &v));
    int n = ovk_matrix_nlocal(A);
    double N = (double)GRID * GRID * GRID;
    for (int k = 0; k < (int)(sizeof as / sizeof as[0]); k++) {
        double *d = ovk_vector_data(v), nrm = -1.0, want = sqrt(N) * as[k];
        for (int i = 0; i < n; i++) d[i] = (i % 2 ? -1.0 : 1.0) * as[k];
        MT_RC(OVK_OK, ovk_vector_norm2(v, &nrm));
        double tol = as[k] < 1e-307 ? 1e-3 : 1e-14; /* a subnormal holds few digits */
        MT_CHECK(fabs(nrm - want) <= tol * want, "||v||, v_i = +-%g: %.17g, expected %.17g", as[k], nrm, want);
    }
    ovk_vector_destroy(v);
    ovk_matrix_destroy(A);
}

static void check_null_argv(void)
{
    char a0[] = "prog", a1[] = "-ovk_rtol", a3[] = "-x";
    char *argv[] = {a0, a1, NULL, a3, NULL};
    int rc = ovk_options_set_args(4, argv);
    MT_CHECK(rc == OVK_EINVAL && strstr(ovk_error_detail(), "argv[2]"), "NULL argv[2]: %s (%s)", ovk_status_name(rc),
             ovk_error_detail());
    char *first[] = {NULL, a1, NULL};
    rc = ovk_options_set_args(2, first);
    MT_CHECK(rc == OVK_EINVAL && strstr(ovk_error_detail(), "argv[0]"), "NULL argv[0]: %s (%s)", ovk_status_name(rc),
             ovk_error_detail());
    MT_RC(OVK_OK, ovk_options_set_args(0, NULL));
}

/* the detail after its one "rank N: " prefix does not start with another */
static int prefixed_once(const char *d)
{
    int r = 0, used = 0;
    if (sscanf(d, "rank %d: %n", &r, &used) == 1 && used > 0) d += used;
    return strncmp(d, "rank ", 5) != 0;
}

static void check_agreed_twice(void)
{
    int culprit = nranks - 1;
    int rc = rank == culprit ? ovk__fail(OVK_EINVAL, "row 60: the cause") : OVK_OK;
    rc = ovk__agree(MPI_COMM_WORLD, rc);
    rc = ovk__agree(MPI_COMM_WORLD, rc); /* the status agreed again: the same detail */
    char want[64]; /* the culprit too reads the agreed form after the second agreement */
    snprintf(want, sizeof want, "rank %d: row 60: the cause", culprit);
    const char *d = ovk_error_detail();
    MT_CHECK(rc == OVK_EINVAL && (!strcmp(d, want) || (rank == culprit && !strcmp(d, want + 8))),
             "agreed twice: %s '%s', expected '%s'", ovk_status_name(rc), d, want);
}

/* a_ii = -1 in the first row of rank 1 (rank 0 with one rank) */
static void check_bad_diagonal(const char *pc)
{
    int count, *ptr;
    int64_t start, bad;
    ovk_gidx *cols;
    double *vals;
    ovk_matrix *A = NULL;
    ovk_solver *s = NULL;
    int64_t n = (int64_t)GRID * GRID * GRID, s1;
    int c1;
    tp_split(n, nranks > 1 ? 1 : 0, nranks, &s1, &c1);
    bad = s1;
    tp_split(n, rank, nranks, &start, &count);
    tp_laplace_rows(7, GRID, 0.0, start, count, &ptr, &cols, &vals);
    for (int i = 0; i < count; i++)
        for (int k = ptr[i]; k < ptr[i + 1]; k++)
            if (start + i == bad && cols[k] == bad) vals[k] = -1.0;
    MT_RC(OVK_OK, ovk_matrix_create_csr(MPI_COMM_WORLD, start, count, ptr, cols, vals, OVK_DUP_REJECT, &A));
    MT_RC(OVK_OK, ovk_solver_create(A, &s));
    MT_RC(OVK_OK, ovk_solver_set_option(s, "precond", pc));
    int rc = ovk_solver_setup(s);
    char row[32];
    snprintf(row, sizeof row, "row %lld", (long long)bad);
    MT_CHECK(rc == OVK_EZERODIAG && prefixed_once(ovk_error_detail()) && strstr(ovk_error_detail(), row),
             "%s, a_ii = -1 at %s: %s (%s)", pc, row, ovk_status_name(rc), ovk_error_detail());
    if (rank == 0) printf("bad diagonal, %s: %s\n", pc, ovk_error_detail());
    ovk_solver_destroy(&s);
    ovk_matrix_destroy(A);
    free(ptr);
    free(cols);
    free(vals);
}

/* coordinates of dimension 3 on rank 0 and 2 elsewhere: named alone */
static void check_coordinate_dimension(void)
{
    ovk_matrix *A = scaled_laplace(1.0);
    ovk_solver *s = NULL;
    int n = ovk_matrix_nlocal(A), dim = rank == 0 ? 3 : 2;
    double *xyz = calloc((size_t)(3 * n + 3), sizeof(double));
    MT_RC(OVK_OK, ovk_solver_create(A, &s));
    MT_RC(OVK_OK, ovk_solver_set_coordinates(s, dim, n, xyz));
    int rc = ovk_solver_setup(s);
    MT_CHECK(rc == OVK_EOPTION && strstr(ovk_error_detail(), "the coordinates' dimension differs") &&
                 !strstr(ovk_error_detail(), "monitor"),
             "coordinates' dimension 3 vs 2: %s (%s)", ovk_status_name(rc), ovk_error_detail());
    ovk_solver_destroy(&s);
    free(xyz);
    ovk_matrix_destroy(A);
}

static void check_flag_as_number(void)
{
    char a0[] = "prog", a1[] = "-my_flag", a2[] = "-my_int";
    char *argv[] = {a0, a1, a2, NULL};
    double r = 0.0;
    int i = 0, found = 0;
    MT_RC(OVK_OK, ovk_options_set_args(3, argv));
    MT_RC(OVK_OK, ovk_options_get_real("my_flag", &r, &found));
    MT_CHECK(found && r == 1.0, "get_real on a flag alone: %g (found %d)", r, found);
    MT_RC(OVK_OK, ovk_options_get_int("my_int", &i, &found));
    MT_CHECK(found && i == 1, "get_int on a flag alone: %d (found %d)", i, found);
    ovk_options_clear();
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    check_null_argv();
    check_flag_as_number();
    check_agreed_twice();
    check_bad_diagonal("jacobi");
#ifdef OVK_HAVE_HYPRE
    check_bad_diagonal("amg");
#endif
    if (nranks > 1) check_coordinate_dimension();
    check_norm2();
    check_zero_rhs();
    check_extreme_scales();
    check_operator_scales();
    int rc = mt_finish("test_hardening3");
    MPI_Finalize();
    return rc;
}

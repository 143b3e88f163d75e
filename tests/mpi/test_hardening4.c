/* Hardening, fourth round:
 *   - options: a numeric or text option given without a value (-ovk_rtol
 *     as the last word) is OVK_EOPTION naming it on every rank; a flag
 *     alone is 1; " 5" is refused as "5 " is; a long nullspace value is
 *     named with the values it may take;
 *   - scale: A alone times 1e+-300 (b of order 1) with none: every solver,
 *     gmres, fgmres and pgmres included, takes the iterations of A;
 *   - agreement: a convergence test that answers differently on one rank
 *     stops every rank at the same iteration (it hung or aborted);
 *   - contracts: setup called on some ranks only, then the solve; a NULL
 *     solver on the last rank (set_from_options, setup, solve); rowptr[n]
 *     = INT_MAX on one rank;
 *   - lifetimes: ovk_matrix_destroy of a matrix solvers use, solves after
 *     it, a second destroy;
 *   - null spaces: re-checked after ovk_matrix_update_values; b wholly in
 *     the null space gives x = 0; a singular system without a declared
 *     null space suggests one; vectors at 1e-300 and 1e+300 accepted;
 *   - iterates after a failure of a user operator (ECALLBACK, ENONFINITE):
 *     finite on every rank, every solver but the GMRES family's;
 *   - details: Matrix Market entries numbered from 1, a missing diagonal
 *     named as missing, a NaN coordinate, bicgstab's count through
 *     breakdown restarts. */
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpitest.h"
#include "problem.h"

enum { GRID = 8 };

static int rank, nranks;

/* the 7-point Laplacian on GRID^3 times s, plus for peclet > 0 a
 * first-order upwind convection along x (a nonsymmetric M-matrix) */
static ovk_matrix *make_matrix(double s, double peclet)
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
            if (cols[k] == start + i) vals[k] += 2.0 * peclet;
            if (cols[k] == start + i - 1 && (start + i) % GRID != 0) vals[k] -= 2.0 * peclet;
        }
    for (int k = 0; k < ptr[count]; k++) vals[k] *= s;
    MT_RC(OVK_OK, ovk_matrix_create_csr(MPI_COMM_WORLD, start, count, ptr, cols, vals, OVK_DUP_REJECT, &A));
    free(ptr);
    free(cols);
    free(vals);
    return A;
}

/* b_i = 1 + tp_value(i) */
static void fill_rhs(const ovk_matrix *A, ovk_vector *b)
{
    double *bd = ovk_vector_data(b);
    for (int i = 0; i < ovk_matrix_nlocal(A); i++) bd[i] = 1.0 + tp_value((uint64_t)(ovk_matrix_row_start(A) + i));
}

/* 1 when every entry of v is finite on every rank */
static int all_finite(const ovk_vector *v, int n)
{
    const double *d = ovk_vector_data((ovk_vector *)v);
    int ok = 1;
    for (int i = 0; i < n; i++) ok &= isfinite(d[i]) != 0;
    MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    return ok;
}

/* ---- options ------------------------------------------------------------ */

/* set_from_options on argv (the program name first): its status */
static int from_args(int argc, char **argv, ovk_solver *s)
{
    MT_RC(OVK_OK, ovk_options_set_args(argc, argv));
    int rc = ovk_solver_set_from_options(s, NULL);
    ovk_options_clear();
    return rc;
}

static void check_option_without_value(void)
{
    ovk_matrix *A = make_matrix(1.0, 0.0);
    ovk_solver *s = NULL;
    char buf[64];
    MT_RC(OVK_OK, ovk_solver_create(A, &s));
    static const char *const needs_value[] = {"-ovk_rtol", "-ovk_atol", "-ovk_max_it", "-ovk_solver",
                                              "-ovk_nullspace", "-ovk_print_level"};
    for (int i = 0; i < (int)(sizeof needs_value / sizeof *needs_value); i++) {
        char a0[] = "prog", a1[] = "-n", a2[] = "12", a3[64];
        snprintf(a3, sizeof a3, "%s", needs_value[i]);
        char *argv[] = {a0, a1, a2, a3, NULL};
        int rc = from_args(4, argv, s);
        MT_RC(OVK_EOPTION, rc);
        MT_CHECK(strstr(ovk_error_detail(), needs_value[i]) && strstr(ovk_error_detail(), "no value"),
                 "%s alone: %s", needs_value[i], ovk_error_detail());
    }
    /* followed by another option: still no value */
    {
        char a0[] = "prog", a1[] = "-ovk_rtol", a2[] = "-ovk_monitor";
        char *argv[] = {a0, a1, a2, NULL};
        MT_RC(OVK_EOPTION, from_args(3, argv, s));
    }
    /* on the last rank only: every rank refuses */
    {
        char a0[] = "prog", a1[] = "-ovk_atol", a2[] = "1e-9";
        char *argv[] = {a0, a1, a2, NULL};
        MT_RC(OVK_EOPTION, from_args(rank == nranks - 1 ? 2 : 3, argv, s));
    }
    /* a flag alone is 1; the value stays as set */
    {
        char a0[] = "prog", a1[] = "-ovk_initial_guess_zero", a2[] = "-ovk_rtol", a3[] = "1e-6";
        char *argv[] = {a0, a1, a2, a3, NULL};
        MT_RC(OVK_OK, from_args(4, argv, s));
        MT_RC(OVK_OK, ovk_solver_get_option(s, "initial_guess_zero", buf, sizeof buf));
        MT_CHECK(!strcmp(buf, "1"), "initial_guess_zero alone: %s", buf);
        MT_RC(OVK_OK, ovk_solver_get_option(s, "rtol", buf, sizeof buf));
        MT_CHECK(atof(buf) == 1e-6, "rtol: %s", buf);
    }
    /* white space around a number: refused on either side */
    MT_RC(OVK_EOPTION, ovk_solver_set_option(s, "max_it", " 5"));
    MT_RC(OVK_EOPTION, ovk_solver_set_option(s, "max_it", "5 "));
    MT_RC(OVK_EOPTION, ovk_solver_set_option(s, "rtol", " 1e-3"));
    /* a nullspace value of any length: named with what it may be */
    MT_RC(OVK_EOPTION, ovk_solver_set_option(s, "nullspace", "constantconstant"));
    MT_CHECK(strstr(ovk_error_detail(), "none | constant") != NULL, "long nullspace value: %s", ovk_error_detail());
    ovk_solver_destroy(&s);
    ovk_matrix_destroy(A);
}

/* ---- scale: A alone ------------------------------------------------------- */

typedef struct outcome {
    int rc, iterations;
    double rel;
} outcome;

static outcome solve_once(ovk_matrix *A, const char *solver, const char *pc, int max_it)
{
    outcome o = {0};
    ovk_solver *s = NULL;
    ovk_vector *b = NULL, *x = NULL;
    ovk_pcg_result res;
    char it[32];
    snprintf(it, sizeof it, "%d", max_it);
    MT_RC(OVK_OK, ovk_solver_create(A, &s));
    MT_RC(OVK_OK, ovk_solver_set_option(s, "solver", solver));
    MT_RC(OVK_OK, ovk_solver_set_option(s, "precond", pc));
    MT_RC(OVK_OK, ovk_solver_set_option(s, "max_it", it));
    MT_RC(OVK_OK, ovk_vector_create(A, &b));
    MT_RC(OVK_OK, ovk_vector_create(A, &x));
    fill_rhs(A, b);
    o.rc = ovk_solver_solve(s, b, x, &res);
    o.iterations = res.iterations;
    o.rel = res.rel_residual;
    ovk_vector_destroy(b);
    ovk_vector_destroy(x);
    ovk_solver_destroy(&s);
    return o;
}

/* (s A) x = b, b of order 1, for s = 1e-300 ... 1e+300: the iterations of
 * s = 1 within a few, converged */
static void check_operator_scale(void)
{
    static const char *const nonsym[] = {"gmres", "fgmres", "pgmres", "bicgstab", "pipebicgstab"};
    static const char *const cg[] = {"alg1", "cg1", "pipecg", "pipeprcg", "plcg", "plcg:l=2", "groppcg"};
    static const double scales[] = {1e-300, 1e-200, 1e+100, 1e+200, 1e+300};
    enum { NS = sizeof scales / sizeof *scales };
    ovk_matrix *one_ns = make_matrix(1.0, 0.5), *one_cg = make_matrix(1.0, 0.0), *As[2][NS];
    for (int k = 0; k < NS; k++) {
        As[0][k] = make_matrix(scales[k], 0.5);
        As[1][k] = make_matrix(scales[k], 0.0);
    }
    for (int set = 0; set < 2; set++) {
        const char *const *list = set ? cg : nonsym;
        int count = set ? (int)(sizeof cg / sizeof *cg) : (int)(sizeof nonsym / sizeof *nonsym);
        for (int i = 0; i < count; i++) {
            outcome one = solve_once(set ? one_cg : one_ns, list[i], "none", 1000);
            MT_CHECK(one.rc == OVK_OK, "%s, none, s = 1: %s", list[i], ovk_status_name(one.rc));
            for (int k = 0; k < NS; k++) {
                outcome o = solve_once(As[set][k], list[i], "none", 1000);
                MT_CHECK(o.rc == OVK_OK && abs(o.iterations - one.iterations) <= 3,
                         "%s, none, A times %g: %s in %d iterations (s = 1: %d), ||r||/||b|| = %.3e", list[i],
                         scales[k], ovk_status_name(o.rc), o.iterations, one.iterations, o.rel);
            }
        }
    }
    for (int k = 0; k < NS; k++) {
        ovk_matrix_destroy(As[0][k]);
        ovk_matrix_destroy(As[1][k]);
    }
    ovk_matrix_destroy(one_ns);
    ovk_matrix_destroy(one_cg);
}

/* ---- a convergence test that disagrees across ranks ----------------------- */

/* converged from iteration 3 on the last rank only */
static int lopsided_test(ovk_solver *s, int it, double rnorm, double bnorm, double r0, void *ctx)
{
    (void)s, (void)rnorm, (void)bnorm, (void)r0, (void)ctx;
    return rank == nranks - 1 && it >= 3 ? OVK_VERDICT_CONVERGED : OVK_VERDICT_CONTINUE;
}

/* diverged at iteration 4 on rank 0 only */
static int lopsided_diverge(ovk_solver *s, int it, double rnorm, double bnorm, double r0, void *ctx)
{
    (void)s, (void)bnorm, (void)r0, (void)ctx;
    if (rank == 0 && it == 4) return OVK_VERDICT_DIVERGED;
    return rnorm < 1e-8 * bnorm ? OVK_VERDICT_CONVERGED : OVK_VERDICT_CONTINUE;
}

static void check_lopsided_test(void)
{
    static const char *const solvers[] = {"alg1", "cg1", "pipecg", "plcg:l=2", "pipeprcg", "groppcg",
                                          "gmres", "fgmres", "pgmres", "bicgstab", "pipebicgstab"};
    ovk_matrix *A = make_matrix(1.0, 0.5), *L = make_matrix(1.0, 0.0);
    for (int i = 0; i < (int)(sizeof solvers / sizeof *solvers); i++)
        for (int which = 0; which < 2; which++) {
            ovk_matrix *M = i < 6 ? L : A;
            ovk_solver *s = NULL;
            ovk_vector *b = NULL, *x = NULL;
            ovk_pcg_result res;
            MT_RC(OVK_OK, ovk_solver_create(M, &s));
            MT_RC(OVK_OK, ovk_solver_set_option(s, "solver", solvers[i]));
            MT_RC(OVK_OK, ovk_solver_set_option(s, "max_it", "60"));
            MT_RC(OVK_OK, ovk_solver_set_convergence_test(s, which ? lopsided_diverge : lopsided_test, NULL));
            MT_RC(OVK_OK, ovk_vector_create(M, &b));
            MT_RC(OVK_OK, ovk_vector_create(M, &x));
            fill_rhs(M, b);
            int rc = ovk_solver_solve(s, b, x, &res);
            int v[2] = {res.iterations, -res.iterations};
            MPI_Allreduce(MPI_IN_PLACE, v, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
            /* one rank alone: never converged (all must say so); diverged when any says so */
            if (which == 0) MT_CHECK(nranks == 1 ? rc == OVK_OK : rc == OVK_EMAXIT, "%s: %s", solvers[i], ovk_status_name(rc));
            else MT_CHECK(rc == OVK_EDIVERGED && res.iterations == 4, "%s: %s at %d", solvers[i], ovk_status_name(rc), res.iterations);
            MT_CHECK(v[0] == -v[1], "%s: iterations differ across ranks (%d..%d)", solvers[i], -v[1], v[0]);
            ovk_vector_destroy(b);
            ovk_vector_destroy(x);
            ovk_solver_destroy(&s);
        }
    ovk_matrix_destroy(A);
    ovk_matrix_destroy(L);
}

/* ---- null spaces ------------------------------------------------------- */

/* the 7-point Laplacian with Neumann rows (diagonal = neighbours: the
 * constants are its null space), or with neumann = 0 the Dirichlet one */
static void neumann_rows(int neumann, int64_t *start, int *count, int **ptr, ovk_gidx **cols, double **vals)
{
    tp_split((int64_t)GRID * GRID * GRID, rank, nranks, start, count);
    tp_laplace_rows(7, GRID, 0.0, *start, *count, ptr, cols, vals);
    for (int i = 0; neumann && i < *count; i++) {
        double off = 0.0;
        int diag = -1;
        for (int k = (*ptr)[i]; k < (*ptr)[i + 1]; k++) {
            if ((*cols)[k] == *start + i) diag = k;
            else off += (*vals)[k];
        }
        (*vals)[diag] = -off;
    }
}

static ovk_matrix *make_neumann(void)
{
    int64_t start;
    int count, *ptr;
    ovk_gidx *cols;
    double *vals;
    ovk_matrix *A = NULL;
    neumann_rows(1, &start, &count, &ptr, &cols, &vals);
    MT_RC(OVK_OK, ovk_matrix_create_csr(MPI_COMM_WORLD, start, count, ptr, cols, vals, OVK_DUP_REJECT, &A));
    free(ptr), free(cols), free(vals);
    return A;
}

static int update_to(ovk_matrix *A, int neumann)
{
    int64_t start;
    int count, *ptr;
    ovk_gidx *cols;
    double *vals;
    neumann_rows(neumann, &start, &count, &ptr, &cols, &vals);
    int rc = ovk_matrix_update_values(A, ptr, cols, vals, OVK_DUP_REJECT);
    free(ptr), free(cols), free(vals);
    return rc;
}

/* b: 1 + tp_value(i) minus its mean (consistent), or ones (wholly in the null space) */
static void neumann_rhs(const ovk_matrix *A, ovk_vector *b, int ones)
{
    double *bd = ovk_vector_data(b), sum = 0.0;
    int n = ovk_matrix_nlocal(A);
    fill_rhs(A, b);
    for (int i = 0; i < n; i++) sum += ones ? 0.0 : bd[i];
    MPI_Allreduce(MPI_IN_PLACE, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    for (int i = 0; i < n; i++) bd[i] = ones ? 1.0 : bd[i] - sum / (double)(GRID * GRID * GRID);
}

/* declared, then values that no longer annihilate it: refused at the next
 * solve naming the constant; back to Neumann values: solved */
static void check_nullspace_update(void)
{
    ovk_matrix *A = make_neumann();
    ovk_solver *s = NULL;
    ovk_vector *b = NULL, *x = NULL;
    ovk_pcg_result res;
    MT_RC(OVK_OK, ovk_solver_create(A, &s));
    MT_RC(OVK_OK, ovk_solver_set_option(s, "nullspace", "constant"));
    MT_RC(OVK_OK, ovk_vector_create(A, &b));
    MT_RC(OVK_OK, ovk_vector_create(A, &x));
    neumann_rhs(A, b, 0);
    MT_RC(OVK_OK, ovk_solver_solve(s, b, x, &res));
    MT_RC(OVK_OK, update_to(A, 0));
    int rc = ovk_solver_solve(s, b, x, &res);
    MT_RC(OVK_EINVAL, rc);
    MT_CHECK(strstr(ovk_error_detail(), "not in A's null space") != NULL, "detail: %s", ovk_error_detail());
    MT_RC(OVK_OK, update_to(A, 1));
    MT_RC(OVK_OK, ovk_solver_solve(s, b, x, &res));
    ovk_vector_destroy(b);
    ovk_vector_destroy(x);
    ovk_solver_destroy(&s);
    ovk_matrix_destroy(A);
}

/* b = ones with the constant declared: x = 0 at iteration 0, converged,
 * the inconsistency 1; the pipelined solvers alike (those that take a null space) */
static void check_rhs_in_nullspace(void)
{
    static const char *const solvers[] = {"alg1", "cg1", "pipecg", "pipeprcg", "plcg:l=2", "groppcg"};
    ovk_matrix *A = make_neumann();
    int n = ovk_matrix_nlocal(A);
    for (int i = 0; i < (int)(sizeof solvers / sizeof *solvers); i++) {
        ovk_solver *s = NULL;
        ovk_vector *b = NULL, *x = NULL;
        ovk_pcg_result res;
        MT_RC(OVK_OK, ovk_solver_create(A, &s));
        MT_RC(OVK_OK, ovk_solver_set_option(s, "solver", solvers[i]));
        MT_RC(OVK_OK, ovk_solver_set_option(s, "precond", "none"));
        MT_RC(OVK_OK, ovk_solver_set_option(s, "nullspace", "constant"));
        MT_RC(OVK_OK, ovk_vector_create(A, &b));
        MT_RC(OVK_OK, ovk_vector_create(A, &x));
        neumann_rhs(A, b, 1);
        double *xd = ovk_vector_data(x), xmax = 0.0;
        for (int j = 0; j < n; j++) xd[j] = 3.0; /* a guess: the answer does not depend on it */
        int rc = ovk_solver_solve(s, b, x, &res);
        for (int j = 0; j < n; j++) xmax = fmax(xmax, fabs(xd[j]));
        MPI_Allreduce(MPI_IN_PLACE, &xmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        MT_CHECK(rc == OVK_OK && res.iterations == 0 && xmax == 0.0 && fabs(res.nullspace_inconsistency - 1.0) < 1e-12,
                 "%s, b in the null space: %s at %d, max |x| = %g, inconsistency %.17g", solvers[i],
                 ovk_status_name(rc), res.iterations, xmax, res.nullspace_inconsistency);
        /* a consistent b is solved as before */
        neumann_rhs(A, b, 0);
        rc = ovk_solver_solve(s, b, x, &res);
        MT_CHECK(rc == OVK_OK && res.iterations > 0, "%s, consistent b: %s", solvers[i], ovk_status_name(rc));
        ovk_vector_destroy(b);
        ovk_vector_destroy(x);
        ovk_solver_destroy(&s);
    }
    ovk_matrix_destroy(A);
}

/* without a null space, an inconsistent b on the Neumann matrix: whatever
 * the end, not "converged", and a breakdown says to declare one */
static void check_singular_hint(void)
{
    static const char *const solvers[] = {"alg1", "cg1", "pipecg", "gmres", "bicgstab"};
    ovk_matrix *A = make_neumann();
    for (int i = 0; i < (int)(sizeof solvers / sizeof *solvers); i++) {
        ovk_solver *s = NULL;
        ovk_vector *b = NULL, *x = NULL;
        ovk_pcg_result res;
        MT_RC(OVK_OK, ovk_solver_create(A, &s));
        MT_RC(OVK_OK, ovk_solver_set_option(s, "solver", solvers[i]));
        MT_RC(OVK_OK, ovk_solver_set_option(s, "max_it", "300"));
        MT_RC(OVK_OK, ovk_vector_create(A, &b));
        MT_RC(OVK_OK, ovk_vector_create(A, &x));
        neumann_rhs(A, b, 1);
        int rc = ovk_solver_solve(s, b, x, &res);
        MT_CHECK(rc != OVK_OK, "%s: singular, b = ones: converged", solvers[i]);
        MT_CHECK(strstr(ovk_error_detail(), "ovk_solver_set_nullspace") != NULL, "%s: %s: %s", solvers[i],
                 ovk_status_name(rc), ovk_error_detail());
        ovk_vector_destroy(b);
        ovk_vector_destroy(x);
        ovk_solver_destroy(&s);
    }
    ovk_matrix_destroy(A);
}

/* the constant given as a vector at 1e-300 and 1e+300: accepted, solved */
static void check_nullspace_vector_scales(void)
{
    static const double scales[] = {1e-300, 1e+300, 0x1p-1070};
    ovk_matrix *A = make_neumann();
    int n = ovk_matrix_nlocal(A);
    double *z = malloc(sizeof(double) * (size_t)(n > 0 ? n : 1));
    for (int k = 0; k < (int)(sizeof scales / sizeof *scales); k++) {
        ovk_solver *s = NULL;
        ovk_vector *b = NULL, *x = NULL;
        ovk_pcg_result res;
        for (int i = 0; i < n; i++) z[i] = scales[k];
        MT_RC(OVK_OK, ovk_solver_create(A, &s));
        MT_RC(OVK_OK, ovk_solver_set_nullspace(s, 0, 1, (const double *const[]){z}));
        MT_RC(OVK_OK, ovk_vector_create(A, &b));
        MT_RC(OVK_OK, ovk_vector_create(A, &x));
        neumann_rhs(A, b, 0);
        int rc = ovk_solver_solve(s, b, x, &res);
        MT_CHECK(rc == OVK_OK, "null-space vector of %g: %s: %s", scales[k], ovk_status_name(rc), ovk_error_detail());
        ovk_vector_destroy(b);
        ovk_vector_destroy(x);
        ovk_solver_destroy(&s);
    }
    free(z);
    ovk_matrix_destroy(A);
}

/* a NaN among the coordinates: refused, naming the node (a diagonal
 * matrix of 12 rows a rank: 4 nodes of 3) */
static void check_nan_coordinate(void)
{
    enum { ROWS = 12 };
    int ptr[ROWS + 1];
    ovk_gidx cols[ROWS];
    double vals[ROWS], xyz[ROWS] = {0};
    ovk_matrix *A = NULL;
    ovk_solver *s = NULL;
    for (int i = 0; i <= ROWS; i++) ptr[i] = i;
    for (int i = 0; i < ROWS; i++) cols[i] = (ovk_gidx)rank * ROWS + i, vals[i] = 1.0;
    MT_RC(OVK_OK, ovk_matrix_create_csr(MPI_COMM_WORLD, (ovk_gidx)rank * ROWS, ROWS, ptr, cols, vals, OVK_DUP_REJECT, &A));
    if (rank == nranks - 1) xyz[3 * 2 + 1] = NAN; /* node 2's y */
    MT_RC(OVK_OK, ovk_solver_create(A, &s));
    MT_RC(rank == nranks - 1 ? OVK_ENONFINITE : OVK_OK, ovk_solver_set_coordinates(s, 3, ROWS / 3, xyz));
    if (rank == nranks - 1) MT_CHECK(strstr(ovk_error_detail(), "node 2") != NULL, "detail: %s", ovk_error_detail());
    MT_RC(OVK_ENONFINITE, ovk_solver_set_nullspace_rigid_body(s, 3, ROWS / 3, xyz)); /* collective: agreed */
    ovk_solver_destroy(&s);
    ovk_matrix_destroy(A);
}

/* ---- contract violations ------------------------------------------------ */

/* ovk_solver_setup on rank 0 only, then the solve everywhere (twice);
 * setup twice on the last rank */
static void check_setup_on_some_ranks(void)
{
    ovk_matrix *A = make_matrix(1.0, 0.0);
    ovk_solver *s = NULL;
    ovk_vector *b = NULL, *x = NULL;
    ovk_pcg_result res;
    MT_RC(OVK_OK, ovk_vector_create(A, &b));
    MT_RC(OVK_OK, ovk_vector_create(A, &x));
    fill_rhs(A, b);
    for (int round = 0; round < 2; round++) {
        MT_RC(OVK_OK, ovk_solver_create(A, &s));
        MT_RC(OVK_OK, ovk_solver_set_option(s, "solver", round ? "pipecg" : "alg1"));
        int who = round ? nranks - 1 : 0;
        if (rank == who) MT_RC(OVK_OK, ovk_solver_setup(s));
        if (rank == who && round) MT_RC(OVK_OK, ovk_solver_setup(s));
        memset(ovk_vector_data(x), 0, sizeof(double) * (size_t)ovk_matrix_nlocal(A));
        MT_RC(OVK_OK, ovk_solver_solve(s, b, x, &res));
        int v[2] = {res.iterations, -res.iterations};
        MT_RC(OVK_OK, ovk_solver_solve(s, b, x, &res)); /* from the solution: at once */
        MPI_Allreduce(MPI_IN_PLACE, v, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        MT_CHECK(v[0] == -v[1] && v[0] > 0, "setup on rank %d only: iterations %d..%d", who, -v[1], v[0]);
        ovk_solver_destroy(&s);
    }
    ovk_vector_destroy(b);
    ovk_vector_destroy(x);
    ovk_matrix_destroy(A);
}

/* a NULL solver on the last rank: set_from_options, setup and solve fail on
 * every rank (rank 0 waited for ever) */
static void check_null_solver_on_one_rank(void)
{
    ovk_matrix *A = make_matrix(1.0, 0.0);
    ovk_solver *s = NULL;
    ovk_vector *b = NULL, *x = NULL;
    ovk_pcg_result res;
    MT_RC(OVK_OK, ovk_vector_create(A, &b));
    MT_RC(OVK_OK, ovk_vector_create(A, &x));
    fill_rhs(A, b);
    if (rank != nranks - 1 || nranks == 1) MT_RC(OVK_OK, ovk_solver_create(A, &s));
    char a0[] = "prog", a1[] = "-ovk_rtol", a2[] = "1e-6";
    char *argv[] = {a0, a1, a2, NULL};
    MT_RC(OVK_OK, ovk_options_set_args(3, argv));
    int rc = ovk_solver_set_from_options(s, NULL);
    ovk_options_clear();
    if (nranks > 1) {
        MT_CHECK(rc == (rank == nranks - 1 ? OVK_EINVAL : OVK_EMISMATCH), "set_from_options: %s", ovk_status_name(rc));
        rc = ovk_solver_setup(s);
        MT_CHECK(rc == (rank == nranks - 1 ? OVK_EINVAL : OVK_EMISMATCH), "setup: %s", ovk_status_name(rc));
        rc = ovk_solver_solve(s, b, x, &res);
        MT_CHECK(rc == (rank == nranks - 1 ? OVK_EINVAL : OVK_EMISMATCH), "solve: %s", ovk_status_name(rc));
    } else {
        MT_RC(OVK_OK, rc);
    }
    ovk_solver_destroy(&s);
    ovk_vector_destroy(b);
    ovk_vector_destroy(x);
    ovk_matrix_destroy(A);
}

/* rowptr[n] = INT_MAX on the last rank (arrays of 4 entries): refused
 * before cols is read past its end */
static void check_huge_rowptr(void)
{
    int ptr[3] = {0, 2, 4};
    ovk_gidx cols[4];
    double vals[4] = {2.0, -1.0, -1.0, 2.0};
    ovk_matrix *A = NULL;
    cols[0] = 2 * rank, cols[1] = 2 * rank + 1, cols[2] = 2 * rank, cols[3] = 2 * rank + 1;
    if (rank == nranks - 1) ptr[2] = INT_MAX;
    int rc = ovk_matrix_create_csr(MPI_COMM_WORLD, 2 * rank, 2, ptr, cols, vals, OVK_DUP_SUM, &A);
    MT_RC(OVK_EINVAL, rc);
    MT_CHECK(strstr(ovk_error_detail(), "rowptr[2]") != NULL, "detail: %s", ovk_error_detail());
    ovk_matrix_destroy(A);
}

/* ---- iterates after a failure -------------------------------------------- */

typedef struct bad_op {
    ovk_matrix *A;
    ovk_vector *in, *out;
    int calls, from, mode; /* mode 0: fails (returns 1) from call `from` on one rank; 1: NaN there */
} bad_op;

static int apply_bad(ovk_solver *s, const double *in, double *out, void *ctx)
{
    (void)s;
    bad_op *op = ctx;
    int n = ovk_matrix_nlocal(op->A);
    memcpy(ovk_vector_data(op->in), in, sizeof(double) * (size_t)n);
    ovk_matvec(op->A, op->in, op->out); /* collective: every rank calls it at every call */
    memcpy(out, ovk_vector_data(op->out), sizeof(double) * (size_t)n);
    op->calls++;
    if (rank != (nranks >= 3 ? nranks - 2 : nranks - 1) || op->calls < op->from) return 0; /* the last with rows */
    if (op->mode == 0) return 1;
    if (n > 0) out[0] = NAN;
    return 0;
}

/* a user operator that fails, or gives a NaN, on the last rank with rows from its
 * 8th call: OVK_ECALLBACK / OVK_ENONFINITE, and x finite on every rank */
static void check_iterate_after_failure(void)
{
    static const char *const solvers[] = {"alg1",   "overlap", "cg1",    "pipecg",       "groppcg",
                                          "pipeprcg", "plcg", "plcg:l=2", "auto", "bicgstab", "pipebicgstab",
                                          "gmres", "fgmres", "gmres:basis=single", "pgmres", "idrs"};
    ovk_matrix *A = make_matrix(1.0, 0.0);
    int n = ovk_matrix_nlocal(A);
    for (int i = 0; i < (int)(sizeof solvers / sizeof *solvers); i++)
        for (int mode = 0; mode < 2; mode++) {
            bad_op op = {A, NULL, NULL, 0, 8, mode};
            ovk_solver *s = NULL;
            ovk_vector *b = NULL, *x = NULL;
            ovk_pcg_result res;
            MT_RC(OVK_OK, ovk_vector_create(A, &op.in));
            MT_RC(OVK_OK, ovk_vector_create(A, &op.out));
            MT_RC(OVK_OK, ovk_vector_create(A, &b));
            MT_RC(OVK_OK, ovk_vector_create(A, &x));
            fill_rhs(A, b);
            MT_RC(OVK_OK, ovk_solver_create_operator(MPI_COMM_WORLD, n, apply_bad, &op, &s));
            MT_RC(OVK_OK, ovk_solver_set_option(s, "solver", solvers[i]));
            MT_RC(OVK_OK, ovk_solver_set_option(s, "precond", "none"));
            op.from = INT_MAX; /* the setup's norm estimate calls it too */
            MT_RC(OVK_OK, ovk_solver_setup(s));
            op.calls = 0;
            op.from = 8;
            int rc = ovk_solver_solve(s, b, x, &res);
            MT_CHECK(rc == (mode ? OVK_ENONFINITE : OVK_ECALLBACK), "%s, %s: %s: %s", solvers[i],
                     mode ? "NaN" : "failure", ovk_status_name(rc), ovk_error_detail());
            MT_CHECK(all_finite(x, n), "%s, %s: x holds non-finite values after %s at iteration %d", solvers[i],
                     mode ? "NaN" : "failure", ovk_status_name(rc), res.iterations);
            ovk_solver_destroy(&s);
            ovk_vector_destroy(b);
            ovk_vector_destroy(x);
            ovk_vector_destroy(op.in);
            ovk_vector_destroy(op.out);
        }
    ovk_matrix_destroy(A);
}

/* ---- details -------------------------------------------------------------- */

/* a Matrix Market file's entries named as the file numbers them (from 1) */
static void check_mm_one_based(void)
{
    char path[256];
    snprintf(path, sizeof path, "%s/hardening4_nonsym.mtx", OVK_BINARY_DIR);
    if (rank == 0) {
        FILE *f = fopen(path, "w");
        fprintf(f, "%%%%MatrixMarket matrix coordinate real general\n3 3 5\n1 1 4\n2 2 4\n3 3 4\n2 3 -1\n3 2 -2\n");
        fclose(f);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    ovk_matrix *A = NULL;
    ovk_solver *s = NULL;
    ovk_vector *b = NULL, *x = NULL;
    MT_RC(OVK_OK, ovk_mm_read(MPI_COMM_WORLD, path, &A));
    MT_RC(OVK_OK, ovk_solver_create(A, &s));
    MT_RC(OVK_OK, ovk_vector_create(A, &b));
    MT_RC(OVK_OK, ovk_vector_create(A, &x));
    MT_RC(OVK_ENOTSYM, ovk_solver_solve(s, b, x, NULL)); /* alg1 wants a symmetric matrix */
    const char *d = ovk_error_detail();
    MT_CHECK((strstr(d, "A(2,3)") || strstr(d, "A(3,2)")) && !strstr(d, "A(1,2)"), "detail: %s", d);
    ovk_vector_destroy(b);
    ovk_vector_destroy(x);
    ovk_solver_destroy(&s);
    ovk_matrix_destroy(A);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) remove(path);
}

/* a row without a stored diagonal: named as missing (bicgstab with jacobi) */
static void check_missing_diagonal(void)
{
    enum { ROWS = 4 };
    int ptr[ROWS + 1] = {0, 1, 2, 3, 4};
    ovk_gidx cols[ROWS];
    double vals[ROWS] = {2.0, 2.0, 1.0, 2.0};
    ovk_matrix *A = NULL;
    ovk_solver *s = NULL;
    for (int i = 0; i < ROWS; i++) cols[i] = (ovk_gidx)rank * ROWS + i;
    if (rank == nranks - 1) cols[2] = (ovk_gidx)rank * ROWS + 1; /* row 2: an off-diagonal entry only */
    MT_RC(OVK_OK, ovk_matrix_create_csr(MPI_COMM_WORLD, (ovk_gidx)rank * ROWS, ROWS, ptr, cols, vals, OVK_DUP_SUM, &A));
    MT_RC(OVK_OK, ovk_solver_create(A, &s));
    MT_RC(OVK_OK, ovk_solver_set_option(s, "solver", "bicgstab")); /* any matrix; jacobi */
    MT_RC(OVK_EZERODIAG, ovk_solver_setup(s));
    MT_CHECK(strstr(ovk_error_detail(), "no diagonal entry") != NULL, "detail: %s", ovk_error_detail());
    ovk_solver_destroy(&s);
    ovk_matrix_destroy(A);
}

/* a skew-symmetric A (<r, A r> = 0): bicgstab breaks down at every step
 * and restarts; its count is every iteration done */
static void check_breakdown_count(void)
{
    static const char *const solvers[] = {"bicgstab", "pipebicgstab"};
    enum { N = 40 };
    int64_t start;
    int count;
    tp_split(N, rank, nranks, &start, &count);
    int *ptr = calloc((size_t)count + 1, sizeof(int));
    ovk_gidx *cols = malloc(sizeof(ovk_gidx) * (size_t)(2 * count + 1));
    double *vals = malloc(sizeof(double) * (size_t)(2 * count + 1));
    for (int i = 0, k = 0; i < count; i++) {
        int64_t g = start + i;
        if (g > 0) cols[k] = g - 1, vals[k++] = -1.0;
        if (g < N - 1) cols[k] = g + 1, vals[k++] = 1.0;
        ptr[i + 1] = k;
    }
    ovk_matrix *A = NULL;
    MT_RC(OVK_OK, ovk_matrix_create_csr(MPI_COMM_WORLD, start, count, ptr, cols, vals, OVK_DUP_REJECT, &A));
    for (int i = 0; i < 2; i++) {
        ovk_solver *s = NULL;
        ovk_vector *b = NULL, *x = NULL;
        ovk_pcg_result res;
        MT_RC(OVK_OK, ovk_solver_create(A, &s));
        MT_RC(OVK_OK, ovk_solver_set_option(s, "solver", solvers[i]));
        MT_RC(OVK_OK, ovk_solver_set_option(s, "precond", "none"));
        MT_RC(OVK_OK, ovk_solver_set_option(s, "max_it", "30"));
        MT_RC(OVK_OK, ovk_vector_create(A, &b));
        MT_RC(OVK_OK, ovk_vector_create(A, &x));
        fill_rhs(A, b);
        int rc = ovk_solver_solve(s, b, x, &res);
        MT_CHECK(rc != OVK_OK && (rc != OVK_EMAXIT || res.iterations == 30),
                 "%s, skew-symmetric: %s at iteration %d (%d restarts): %s", solvers[i], ovk_status_name(rc),
                 res.iterations, res.restarts, ovk_error_detail());
        MT_CHECK(res.iterations >= res.restarts, "%s: %d iterations, %d restarts", solvers[i], res.iterations,
                 res.restarts);
        ovk_vector_destroy(b);
        ovk_vector_destroy(x);
        ovk_solver_destroy(&s);
    }
    free(ptr), free(cols), free(vals);
    ovk_matrix_destroy(A);
}

/* ---- lifetimes ----------------------------------------------------------- */

/* ovk_matrix_destroy while a solver uses the matrix: the solver keeps it;
 * its solves go on; a second destroy is refused; the solver's destroy
 * frees it (ASan: no leak, no use after free) */
static void check_matrix_outlived(void)
{
    ovk_matrix *A = make_matrix(1.0, 0.0);
    ovk_solver *s = NULL, *s2 = NULL;
    ovk_vector *b = NULL, *x = NULL;
    ovk_pcg_result res;
    MT_RC(OVK_OK, ovk_solver_create(A, &s));
    MT_RC(OVK_OK, ovk_solver_create(A, &s2));
    MT_RC(OVK_OK, ovk_vector_create(A, &b));
    MT_RC(OVK_OK, ovk_vector_create(A, &x));
    fill_rhs(A, b);
    MT_RC(OVK_OK, ovk_solver_solve(s, b, x, &res));
    MT_RC(OVK_OK, ovk_matrix_destroy(A));
    MT_RC(OVK_EINVAL, ovk_matrix_destroy(A));
    MT_CHECK(ovk_solver_comm(s) != MPI_COMM_NULL, "the solver's communicator is gone");
    memset(ovk_vector_data(x), 0, sizeof(double) * (size_t)ovk_solver_nlocal(s));
    MT_RC(OVK_OK, ovk_solver_solve(s, b, x, &res));
    MT_CHECK(res.iterations > 0, "solve after the matrix's destroy: %d iterations", res.iterations);
    MT_RC(OVK_OK, ovk_solver_destroy(&s));
    MT_RC(OVK_OK, ovk_solver_solve(s2, b, x, &res)); /* the other still has it */
    ovk_vector_destroy(b);
    ovk_vector_destroy(x);
    MT_RC(OVK_OK, ovk_solver_destroy(&s2)); /* frees A */
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    check_option_without_value();
    check_lopsided_test();
    check_operator_scale();
    check_nullspace_update();
    check_rhs_in_nullspace();
    check_singular_hint();
    check_nullspace_vector_scales();
    check_nan_coordinate();
    check_setup_on_some_ranks();
    check_null_solver_on_one_rank();
    check_huge_rowptr();
    check_iterate_after_failure();
    check_mm_one_based();
    check_missing_diagonal();
    check_breakdown_count();
    check_matrix_outlived();
    int rc = mt_finish("test_hardening4");
    MPI_Finalize();
    return rc;
}

/* Hardening, fourth round:
 *   - options: a numeric or text option given without a value (-ovk_rtol
 *     as the last word) is OVK_EOPTION naming it on every rank; a flag
 *     alone is 1; " 5" is refused as "5 " is; a long nullspace value is
 *     named with the values it may take;
 *   - scale: A alone times 1e+-300 (b of order 1) with none: every solver,
 *     gmres, fgmres and pgmres included, takes the iterations of A;
 *   - agreement: a convergence test that answers differently on one rank
 *     stops every rank at the same iteration (it hung or aborted);
 *   - lifetimes: ovk_matrix_destroy of a matrix a solver uses, solve
 *     after it; setup called on some ranks only, then the solve;
 *     ovk_solver_set_from_options with a NULL solver on the last rank;
 *   - null spaces: re-checked after ovk_matrix_update_values; b wholly in
 *     the null space gives x = 0; a singular system without a declared
 *     null space suggests one; vectors at 1e-300 and 1e+300 accepted;
 *   - iterates after a failure: finite (the last finite iterate);
 *   - details: a missing diagonal named as missing, a NaN coordinate. */
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
static int __attribute__((unused)) all_finite(const ovk_vector *v, int n)
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

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    check_option_without_value();
    check_lopsided_test();
    check_operator_scale();
    int rc = mt_finish("test_hardening4");
    MPI_Finalize();
    return rc;
}

/* Hardening, round two: each case failed before its fix.
 *   - re-entrant calls from a solver's own callbacks (monitor, operator,
 *     preconditioner): destroy, setup, set_option, a nested solve, the
 *     matrix's update and destroy, the reducer's destroy -- OVK_EBUSY, the
 *     solve undisturbed, on every rank or on one rank only;
 *   - local checks agreed before any collective step: ovk_matvec with a
 *     vector of a matrix on another communicator on one rank, a solver set
 *     up on different matrices on different ranks, an option refused on
 *     one rank only (the Fortran create's case is in test_fortran.f90);
 *   - silent acceptance: a duplicate policy that is neither SUM nor REJECT,
 *     a subnormal diagonal, a repeated key in a spec, Chebyshev bounds of
 *     an absurd ratio or below the spectrum;
 *   - bounded experiment flags: the latency model (1 s per reduction) and
 *     the noise (duty cycle under 50%). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpitest.h"
#include "ovkrylov/testing.h"
#include "problem.h"

enum { GRID = 8, CALLS = 8 };

static int rank, nranks;

/* ---- re-entrant calls ------------------------------------------------------ */

typedef struct reentry {
    ovk_solver *s;
    ovk_matrix *A;
    ovk_reducer *red;
    ovk_vector *b, *x;
    int caller;            /* the rank that calls in, or -1: every rank */
    int done;              /* calls made */
    int rc[CALLS];
    char detail[CALLS][160];
} reentry;

static const char *const call_names[CALLS] = {"ovk_solver_destroy",  "ovk_solver_setup",
                                              "ovk_solver_set_option", "ovk_solver_solve (nested)",
                                              "ovk_matrix_update_values", "ovk_matrix_destroy",
                                              "ovk_reducer_destroy", "ovk_solver_set_tolerances"};

/* the calls a callback must not make on its own solve, each recorded */
static void call_in(reentry *r)
{
    if (r->done || (r->caller >= 0 && r->caller != rank)) return;
    ovk_solver *s = r->s;
    ovk_pcg_result nested;
    int zero = 0;
    r->rc[0] = ovk_solver_destroy(&s);
    r->rc[1] = ovk_solver_setup(r->s);
    r->rc[2] = ovk_solver_set_option(r->s, "rtol", "1e-3");
    r->rc[3] = ovk_solver_solve(r->s, r->b, r->x, &nested);
    r->rc[4] = r->A ? ovk_matrix_update_values(r->A, &zero, NULL, NULL, OVK_DUP_SUM) : OVK_EBUSY; /* none */
    r->rc[5] = r->A ? ovk_matrix_destroy(r->A) : OVK_EBUSY;
    r->rc[6] = r->red ? ovk_reducer_destroy(r->red) : OVK_EBUSY;
    r->rc[7] = ovk_solver_set_tolerances(r->s, 1e-2, 0.0, 3);
    MT_CHECK(s == r->s, "ovk_solver_destroy from a callback cleared the handle");
    r->done = 1;
}

static int monitor(ovk_solver *s, int it, double rnorm, double rel, void *ctx)
{
    (void)s, (void)rnorm, (void)rel;
    if (it == 2) call_in(ctx);
    return 0;
}

static void expect_busy(const reentry *r, const char *where)
{
    if (r->caller >= 0 && r->caller != rank) return;
    MT_CHECK(r->done, "%s: the callback did not call in", where);
    for (int k = 0; k < CALLS && r->done; k++)
        MT_CHECK(r->rc[k] == OVK_EBUSY, "%s: %s from a callback: %s, expected OVK_EBUSY", where, call_names[k],
                 ovk_status_name(r->rc[k]));
}

/* the solve with a monitor that calls in equals the one without */
static void check_monitor_reentry(const char *solver, int caller)
{
    ovk_matrix *A = NULL;
    ovk_reducer *red = NULL;
    ovk_vector *b = NULL, *x = NULL;
    ovk_pcg_result ref, got;
    MT_RC(OVK_OK, tp_laplace(MPI_COMM_WORLD, 27, GRID, 0.0, &A));
    MT_RC(OVK_OK, ovk_reducer_create(ovk_matrix_comm(A), "nbc", &red));
    MT_RC(OVK_OK, ovk_vector_create(A, &b));
    MT_RC(OVK_OK, ovk_vector_create(A, &x));
    ovk_vector_set(b, 1.0);
    reentry r = {.A = A, .red = red, .b = b, .x = x, .caller = caller};
    MT_RC(OVK_OK, ovk_solver_create(A, &r.s));
    MT_RC(OVK_OK, ovk_solver_set_option(r.s, "solver", solver));
    MT_RC(OVK_OK, ovk_solver_set_reducer(r.s, red));
    MT_RC(OVK_OK, ovk_solver_setup(r.s));
    MT_RC(OVK_OK, ovk_solver_solve(r.s, b, x, &ref));
    ovk_vector_set(x, 0.0);
    MT_RC(OVK_OK, ovk_solver_set_monitor(r.s, monitor, &r));
    MT_RC(OVK_OK, ovk_solver_setup(r.s));
    int rc = ovk_solver_solve(r.s, b, x, &got);
    MT_CHECK(rc == OVK_OK, "%s, calls from rank %d: solve %s (%s)", solver, caller, ovk_status_name(rc),
             ovk_error_detail());
    MT_CHECK(got.iterations == ref.iterations && got.rel_residual == ref.rel_residual,
             "%s: the solve was disturbed: %d iterations, %g (undisturbed: %d, %g)", solver, got.iterations,
             got.rel_residual, ref.iterations, ref.rel_residual);
    expect_busy(&r, solver);
    /* after the solve, the same calls work again */
    MT_RC(OVK_OK, ovk_solver_setup(r.s));
    MT_RC(OVK_OK, ovk_solver_destroy(&r.s));
    MT_RC(OVK_OK, ovk_reducer_destroy(red));
    ovk_vector_destroy(b);
    ovk_vector_destroy(x);
    MT_RC(OVK_OK, ovk_matrix_destroy(A));
}

/* y = A x for a matrix-free solver; calls in on its first call in a solve */
typedef struct op_ctx {
    const ovk_matrix *A;
    const ovk_vector *in_shape;
    reentry r;
    int in_solve;
} op_ctx;

static int apply_op(ovk_solver *s, const double *in, double *out, void *ctx)
{
    (void)s;
    op_ctx *o = ctx;
    ovk_vector *x = NULL, *y = NULL;
    int rc = ovk_solver_vector_create(s, (double *)in, &x);
    if (!rc) rc = ovk_solver_vector_create(s, out, &y);
    if (!rc) rc = ovk_matvec(o->A, x, y);
    ovk_vector_destroy(x);
    ovk_vector_destroy(y);
    call_in(&o->r);
    return rc;
}

static int apply_pc(ovk_solver *s, const double *r, double *z, void *ctx)
{
    int n = ovk_solver_nlocal(s);
    for (int i = 0; i < n; i++) z[i] = r[i] / 26.0;
    call_in(ctx);
    return 0;
}

static void check_callback_reentry(void)
{
    ovk_matrix *A = NULL;
    op_ctx o = {0};
    MT_RC(OVK_OK, tp_laplace(MPI_COMM_WORLD, 27, GRID, 0.0, &A));
    o.A = A;
    o.r.caller = -1;
    MT_RC(OVK_OK, ovk_solver_create_operator(ovk_matrix_comm(A), ovk_matrix_nlocal(A), apply_op, &o, &o.r.s));
    MT_RC(OVK_OK, ovk_solver_set_option(o.r.s, "precond", "none"));
    MT_RC(OVK_OK, ovk_solver_set_option(o.r.s, "solver", "pipecg"));
    MT_RC(OVK_OK, ovk_solver_vector_create(o.r.s, NULL, &o.r.b));
    MT_RC(OVK_OK, ovk_solver_vector_create(o.r.s, NULL, &o.r.x));
    ovk_vector_set(o.r.b, 1.0);
    /* the operator's calls during setup (pipecg estimates ||A||) or the solve */
    int rc = ovk_solver_setup(o.r.s);
    MT_CHECK(rc == OVK_OK, "operator: setup %s (%s)", ovk_status_name(rc), ovk_error_detail());
    if (!o.r.done) MT_RC(OVK_OK, ovk_solver_solve(o.r.s, o.r.b, o.r.x, NULL));
    expect_busy(&o.r, "operator callback");
    /* the preconditioner's calls, on the last rank only */
    reentry pr = {.s = o.r.s, .b = o.r.b, .x = o.r.x, .caller = nranks - 1};
    MT_RC(OVK_OK, ovk_solver_set_precond_fn(o.r.s, apply_pc, &pr));
    MT_RC(OVK_OK, ovk_solver_setup(o.r.s));
    ovk_vector_set(o.r.x, 0.0);
    rc = ovk_solver_solve(o.r.s, o.r.b, o.r.x, NULL);
    MT_CHECK(rc == OVK_OK, "precond callback: solve %s (%s)", ovk_status_name(rc), ovk_error_detail());
    expect_busy(&pr, "precond callback");
    ovk_vector_destroy(o.r.b);
    ovk_vector_destroy(o.r.x);
    MT_RC(OVK_OK, ovk_solver_destroy(&o.r.s));
    ovk_matrix_destroy(A);
}

/* ---- agreed before any collective step ----------------------------------- */

/* An identity of n rows on comm */
static int identity(MPI_Comm comm, int64_t start, int n, double diag, ovk_matrix **A)
{
    int *ptr = malloc(sizeof(int) * ((size_t)n + 1));
    ovk_gidx *cols = malloc(sizeof(ovk_gidx) * ((size_t)n + 1));
    double *vals = malloc(sizeof(double) * ((size_t)n + 1));
    ptr[0] = 0;
    for (int i = 0; i < n; i++) {
        cols[i] = start + i;
        vals[i] = diag;
        ptr[i + 1] = i + 1;
    }
    int rc = ovk_matrix_create_csr(comm, start, n, ptr, cols, vals, OVK_DUP_REJECT, A);
    free(ptr);
    free(cols);
    free(vals);
    return rc;
}

static void check_matvec_mismatch(void)
{
    ovk_matrix *A = NULL, *B = NULL;
    ovk_vector *x = NULL, *y = NULL, *yb = NULL;
    MT_RC(OVK_OK, tp_laplace(MPI_COMM_WORLD, 27, 6, 0.0, &A));
    /* the same local rows as A's, on this rank alone */
    MT_RC(OVK_OK, identity(MPI_COMM_SELF, 0, ovk_matrix_nlocal(A), 1.0, &B));
    MT_RC(OVK_OK, ovk_vector_create(A, &x));
    MT_RC(OVK_OK, ovk_vector_create(A, &y));
    MT_RC(OVK_OK, ovk_vector_create(B, &yb));
    int rc = ovk_matvec(A, x, rank == nranks - 1 ? yb : y);
    MT_CHECK(rc == OVK_EMISMATCH, "matvec with y of a matrix on MPI_COMM_SELF on rank %d: %s (%s)", nranks - 1,
             ovk_status_name(rc), ovk_error_detail());
    MT_CHECK(strstr(ovk_error_detail(), "ranks") != NULL, "the detail does not say what differs: %s",
             ovk_error_detail());
    if (rank == 0) printf("matvec, y on another communicator: %s: %s\n", ovk_status_name(rc), ovk_error_detail());
    MT_RC(OVK_OK, ovk_matvec(A, x, y)); /* and the right call still works */
    ovk_vector_destroy(x);
    ovk_vector_destroy(y);
    ovk_vector_destroy(yb);
    ovk_matrix_destroy(A);
    ovk_matrix_destroy(B);
}

static void check_setup_on_different_matrices(void)
{
    ovk_matrix *A = NULL, *B = NULL;
    ovk_solver *s = NULL;
    MT_RC(OVK_OK, tp_laplace(MPI_COMM_WORLD, 27, 6, 0.0, &A));
    MT_RC(OVK_OK, tp_laplace(MPI_COMM_WORLD, 27, 6, 0.0, &B));
    MT_RC(OVK_OK, ovk_solver_create(rank == nranks - 1 ? B : A, &s));
    int rc = ovk_solver_setup(s);
    MT_CHECK(rc == OVK_EMISMATCH, "setup with the solver on another matrix on rank %d: %s (%s)", nranks - 1,
             ovk_status_name(rc), ovk_error_detail());
    if (rank == 0) printf("setup on different matrices: %s: %s\n", ovk_status_name(rc), ovk_error_detail());
    MT_RC(OVK_OK, ovk_solver_destroy(&s));
    MT_RC(OVK_OK, ovk_solver_create(A, &s));
    MT_RC(OVK_OK, ovk_solver_setup(s));
    MT_RC(OVK_OK, ovk_solver_destroy(&s));
    ovk_matrix_destroy(A);
    ovk_matrix_destroy(B);
}

/* an option refused on one rank leaves its old value: setup names it */
static void check_refused_option(void)
{
    ovk_matrix *A = NULL;
    ovk_solver *s = NULL;
    MT_RC(OVK_OK, tp_laplace(MPI_COMM_WORLD, 27, 6, 0.0, &A));
    MT_RC(OVK_OK, ovk_solver_create(A, &s));
    MT_RC(rank == 0 ? OVK_EOPTION : OVK_OK, ovk_solver_set_option(s, "rtol", rank == 0 ? "-1" : "1e-6"));
    int rc = ovk_solver_setup(s);
    MT_CHECK(rc == (nranks > 1 ? OVK_EOPTION : OVK_OK), "setup after tol=-1 refused on rank 0: %s (%s)",
             ovk_status_name(rc), ovk_error_detail());
    if (nranks > 1) MT_CHECK(strstr(ovk_error_detail(), "tol") != NULL, "detail: %s", ovk_error_detail());
    if (rank == 0) printf("setup after a refused option: %s: %s\n", ovk_status_name(rc), ovk_error_detail());
    MT_RC(OVK_OK, ovk_solver_set_option(s, "rtol", "1e-6"));
    MT_RC(OVK_OK, ovk_solver_setup(s));
    MT_RC(OVK_OK, ovk_solver_destroy(&s));
    ovk_matrix_destroy(A);
}

/* ---- silent acceptance ---------------------------------------------------- */

static void check_dup_policy(void)
{
    static const int bad[] = {77, -1};
    ovk_matrix *A = NULL;
    int one = 1, ptr[2] = {0, 1};
    ovk_gidx col = rank;
    double val = 2.0;
    for (int k = 0; k < 2; k++) {
        /* a bad policy on the last rank only */
        int dups = rank == nranks - 1 ? bad[k] : OVK_DUP_SUM;
        int rc = ovk_matrix_create_csr(MPI_COMM_WORLD, rank, one, ptr, &col, &val, (ovk_dup_policy)dups, &A);
        MT_CHECK(rc == OVK_EINVAL && !A, "dup_policy %d: %s (%s)", bad[k], ovk_status_name(rc), ovk_error_detail());
        if (rank == 0 && k == 0) printf("dup_policy %d: %s: %s\n", bad[k], ovk_status_name(rc), ovk_error_detail());
    }
    MT_RC(OVK_OK, ovk_matrix_create_csr(MPI_COMM_WORLD, rank, one, ptr, &col, &val, OVK_DUP_SUM, &A));
    int rc = ovk_matrix_update_values(A, ptr, &col, &val, (ovk_dup_policy)77);
    MT_CHECK(rc == OVK_EINVAL, "update_values, dup_policy 77: %s", ovk_status_name(rc));
    ovk_matrix_destroy(A);
}

static void check_subnormal_diagonal(void)
{
    static const char *const pcs[] = {"jacobi", "ssor", "cheby"};
    int64_t n = 12, start;
    int count;
    tp_split(n, rank, nranks, &start, &count);
    ovk_matrix *A = NULL;
    /* row 5 (on some rank) has a_55 = 1e-320: positive, but 1/a_55 = inf */
    int *ptr = malloc(sizeof(int) * ((size_t)count + 1));
    ovk_gidx *cols = malloc(sizeof(ovk_gidx) * ((size_t)count + 1));
    double *vals = malloc(sizeof(double) * ((size_t)count + 1));
    ptr[0] = 0;
    for (int i = 0; i < count; i++) {
        cols[i] = start + i;
        vals[i] = start + i == 5 ? 1e-320 : 2.0;
        ptr[i + 1] = i + 1;
    }
    MT_RC(OVK_OK, ovk_matrix_create_csr(MPI_COMM_WORLD, start, count, ptr, cols, vals, OVK_DUP_REJECT, &A));
    for (int k = 0; k < 3; k++) {
        ovk_solver *s = NULL;
        MT_RC(OVK_OK, ovk_solver_create(A, &s));
        MT_RC(OVK_OK, ovk_solver_set_option(s, "precond", pcs[k]));
        int rc = ovk_solver_setup(s);
        MT_CHECK(rc == OVK_EZERODIAG && strstr(ovk_error_detail(), "row 5"), "%s, a_55 = 1e-320: %s (%s)", pcs[k],
                 ovk_status_name(rc), ovk_error_detail());
        if (rank == 0 && k == 0) printf("subnormal diagonal: %s: %s\n", ovk_status_name(rc), ovk_error_detail());
        ovk_solver_destroy(&s);
    }
    ovk_matrix_destroy(A);
    free(ptr);
    free(cols);
    free(vals);
}

static void check_repeated_keys(void)
{
    ovk_reducer *red = NULL;
    int rc = ovk_reducer_create(MPI_COMM_WORLD, "nbc:thread=0,thread=1", &red);
    MT_CHECK(rc == OVK_EOPTION && strstr(ovk_error_detail(), "twice"), "nbc:thread=0,thread=1: %s (%s)",
             ovk_status_name(rc), ovk_error_detail());
    if (rank == 0) printf("repeated key: %s: %s\n", ovk_status_name(rc), ovk_error_detail());
    if (!rc) ovk_reducer_destroy(red);
    ovk_matrix *A = NULL;
    ovk_solver *s = NULL;
    MT_RC(OVK_OK, tp_laplace(MPI_COMM_WORLD, 27, 6, 0.0, &A));
    MT_RC(OVK_OK, ovk_solver_create(A, &s));
    MT_RC(OVK_OK, ovk_solver_set_option(s, "solver", "plcg:l=2,l=3"));
    rc = ovk_solver_setup(s);
    MT_CHECK(rc == OVK_EOPTION && strstr(ovk_error_detail(), "twice"), "plcg:l=2,l=3: %s (%s)",
             ovk_status_name(rc), ovk_error_detail());
    MT_RC(OVK_OK, ovk_solver_set_option(s, "solver", "alg1"));
    MT_RC(OVK_OK, ovk_solver_set_option(s, "precond", "ssor:omega=1.2,omega=1.5"));
    rc = ovk_solver_setup(s);
    MT_CHECK(rc == OVK_EOPTION && strstr(ovk_error_detail(), "twice"), "ssor:omega twice: %s (%s)",
             ovk_status_name(rc), ovk_error_detail());
    ovk_solver_destroy(&s);
    ovk_matrix_destroy(A);
}

static void check_cheby_bounds(void)
{
    static const char *const bad[] = {"cheby:emin=1e-300,emax=1e300", "cheby:emin=0.01,emax=0.5",
                                      "cheby:emin=1e-20"};
    ovk_matrix *A = NULL;
    ovk_vector *b = NULL, *x = NULL;
    MT_RC(OVK_OK, tp_laplace(MPI_COMM_WORLD, 27, 6, 0.0, &A));
    for (int k = 0; k < 3; k++) {
        ovk_solver *s = NULL;
        MT_RC(OVK_OK, ovk_solver_create(A, &s));
        MT_RC(OVK_OK, ovk_solver_set_option(s, "precond", bad[k]));
        int rc = ovk_solver_setup(s);
        MT_CHECK(rc == OVK_EOPTION, "%s: %s (%s)", bad[k], ovk_status_name(rc), ovk_error_detail());
        if (rank == 0) printf("%s: %s: %s\n", bad[k], ovk_status_name(rc), ovk_error_detail());
        ovk_solver_destroy(&s);
    }
    /* sane bounds solve */
    ovk_solver *s = NULL;
    MT_RC(OVK_OK, ovk_vector_create(A, &b));
    MT_RC(OVK_OK, ovk_vector_create(A, &x));
    ovk_vector_set(b, 1.0);
    MT_RC(OVK_OK, ovk_solver_create(A, &s));
    MT_RC(OVK_OK, ovk_solver_set_option(s, "precond", "cheby:emin=0.05,emax=2.2"));
    MT_RC(OVK_OK, ovk_solver_setup(s));
    MT_RC(OVK_OK, ovk_solver_solve(s, b, x, NULL));
    ovk_solver_destroy(&s);
    ovk_vector_destroy(b);
    ovk_vector_destroy(x);
    ovk_matrix_destroy(A);
}

/* ---- bounded experiment flags --------------------------------------------- */

static void check_latency_bounds(void)
{
    static const char *const bad[] = {"alpha=1e300", "alpha=1e9", "alpha=1000001", "gamma=1e5",
                                      "pcg-overlap-256,alpha=2e6"};
    ovk_latency_model m;
    for (int k = 0; k < 5; k++) {
        int rc = ovk_latency_model_parse(bad[k], &m);
        MT_CHECK(rc == OVK_EOPTION && strstr(ovk_error_detail(), "1 s"), "latency model %s: %s (%s)", bad[k],
                 ovk_status_name(rc), ovk_error_detail());
        if (rank == 0 && k == 0) printf("latency %s: %s: %s\n", bad[k], ovk_status_name(rc), ovk_error_detail());
    }
    MT_RC(OVK_OK, ovk_latency_model_parse("alpha=1e6", &m)); /* exactly 1 s: the limit */
    /* beta per level: 6e5 us is within 1 s on 2 ranks (1 level), not on 3-4 (2 levels) */
    MT_RC(OVK_OK, ovk_latency_model_parse("beta=6e5", &m));
    ovk_reducer *red = NULL;
    MT_RC(OVK_OK, ovk_reducer_create(MPI_COMM_WORLD, "blocking", &red));
    int rc = ovk_reducer_set_latency(red, &m);
    MT_CHECK(rc == (nranks > 2 ? OVK_EOPTION : OVK_OK), "beta=6e5 on %d ranks: %s (%s)", nranks,
             ovk_status_name(rc), ovk_error_detail());
    MT_RC(OVK_OK, ovk_reducer_set_latency(red, NULL));
    ovk_reducer_destroy(red);
}

static void check_noise_bounds(void)
{
    int rc = ovk_noise_start(1e4, 99.9, 1u); /* 99.9% of the time in noise */
    MT_CHECK(rc == OVK_EINVAL && strstr(ovk_error_detail(), "50%"), "noise 1e4 x 99.9 us: %s (%s)",
             ovk_status_name(rc), ovk_error_detail());
    if (rank == 0) printf("noise 1e4 99.9: %s: %s\n", ovk_status_name(rc), ovk_error_detail());
    rc = ovk_noise_start(1e5, 1.0, 1u); /* a signal every 10 us: more than some VMs deliver */
    MT_CHECK(rc == OVK_EINVAL && strstr(ovk_error_detail(), "hz="), "noise 1e5 x 1 us: %s (%s)",
             ovk_status_name(rc), ovk_error_detail());
    rc = ovk_noise_start(1000.0, 500.0, 1u); /* exactly 50% */
    MT_CHECK(rc == OVK_EINVAL, "noise 1000 x 500 us: %s", ovk_status_name(rc));
    MT_RC(OVK_OK, ovk_noise_start(1000.0, 100.0, 1u));
    MT_CHECK(ovk_noise_stop() >= 0, "noise stop failed");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    static const char *const solvers[] = {"alg1", "pipecg", "pipeprcg", "plcg:l=2"};
    for (int k = 0; k < 4; k++) {
        check_monitor_reentry(solvers[k], -1);
        check_monitor_reentry(solvers[k], nranks - 1);
    }
    check_callback_reentry();
    if (nranks > 1) { /* on one rank, MPI_COMM_SELF is the world */
        check_matvec_mismatch();
        check_setup_on_different_matrices();
    }
    check_refused_option();
    check_dup_policy();
    check_subnormal_diagonal();
    check_repeated_keys();
    check_cheby_bounds();
    check_latency_bounds();
    check_noise_bounds();
    int rc = mt_finish("test_hardening2");
    MPI_Finalize();
    return rc;
}

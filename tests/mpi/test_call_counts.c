/* Which MPI collectives a solve calls, counted through the PMPI profiling
 * interface: with the blocking backend no MPI_Iallreduce; with native the
 * MPI_Iallreduce count grows with the iterations (3 per iteration, 1 for the
 * single-reduction cg1 and pipecg) and MPI_Allreduce does not; with a
 * point-to-point backend (nbc) no collective grows (but for plcg's one
 * MPI_Allreduce when it falls back to pipeprcg's recurrences); ovk_matvec in
 * an operator callback adds none. */
#include <math.h>
#include <string.h>

#include "mpitest.h"
#include "problem.h"

#include "count_reductions.h"

typedef struct counts {
    long allreduce, iallreduce;
    int iterations;
} counts;

static counts run(ovk_matrix *A, const char *solver, const char *backend, int maxit)
{
    ovk_vector *b = NULL, *x = NULL;
    ovk_pcg_options o;
    ovk_pcg_result res;
    ovk_reducer *red = NULL;
    ovk_vector_create(A, &b);
    ovk_vector_create(A, &x);
    ovk_vector_set(b, 1.0);
    MT_RC(OVK_OK, ovk_reducer_create(ovk_matrix_comm(A), backend, &red));
    ovk_pcg_options_init(&o);
    o.solver = solver;
    o.reducer = red;
    o.max_iter = maxit;
    o.tol = 1e-30; /* run exactly maxit iterations */
    long a0 = n_allreduce, i0 = n_iallreduce;
    int rc = ovk_pcg_solve(A, b, x, &o, &res);
    MT_CHECK(rc == OVK_EMAXIT, "%s/%s: status %d (%s)", solver, backend, rc, rc ? ovk_error_detail() : "");
    counts c = {n_allreduce - a0, n_iallreduce - i0, res.iterations};
    ovk_reducer_destroy(red);
    ovk_vector_destroy(b);
    ovk_vector_destroy(x);
    return c;
}

/* reductions per iteration of each CG variant (docs/solvers.md; the
 * nonsymmetric solvers are counted in test_gmres.c and test_nonsymmetric.c) */
static long reductions_per_iteration(const char *solver)
{
    static const char *const one[] = {"cg1", "pipecg", "pipeprcg", "plcg"};
    for (size_t i = 0; i < sizeof one / sizeof one[0]; i++)
        if (!strcmp(solver, one[i])) return 1;
    return strcmp(solver, "groppcg") ? 3 : 2;
}

/* A set-up solver's solve makes exactly two blocking reductions of its own:
 * the agreement on entry (what changed, and the arguments' checks) and the
 * one on exit (the status, with the timers); nbc's sums are point to point.
 * rhs_norm is ||b||.  Bad arguments still fail on every rank. */
static void test_solve_overhead(ovk_matrix *A)
{
    ovk_solver *s = NULL;
    ovk_vector *b = NULL, *x = NULL;
    ovk_pcg_result res;
    long long nglobal = 0, nlocal = 0;
    MT_RC(OVK_OK, ovk_solver_create(A, &s));
    MT_RC(OVK_OK, ovk_solver_set_option(s, "solver", "cg1"));
    MT_RC(OVK_OK, ovk_solver_set_option(s, "backend", "nbc"));
    MT_RC(OVK_OK, ovk_solver_setup(s));
    ovk_vector_create(A, &b);
    ovk_vector_create(A, &x);
    ovk_vector_set(b, 2.0);
    nlocal = ovk_vector_nlocal(b);
    MPI_Allreduce(&nlocal, &nglobal, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    for (int k = 0; k < 2; k++) {
        ovk_vector_set(x, 0.0);
        long a0 = n_allreduce, i0 = n_iallreduce;
        MT_RC(OVK_OK, ovk_solver_solve(s, b, x, &res));
        long a = n_allreduce - a0, i = n_iallreduce - i0;
        MT_CHECK(a == 2 && i == 0, "solve %d: %ld MPI_Allreduce, %ld MPI_Iallreduce (2 and 0 expected)", k, a, i);
        MT_CHECK(fabs(res.rhs_norm - 2.0 * sqrt((double)nglobal)) <= 1e-14 * res.rhs_norm, "rhs_norm %.17g of %lld rows",
                 res.rhs_norm, nglobal);
    }
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0 && nlocal > 0) ovk_vector_data(b)[0] = NAN; /* one rank's b: refused everywhere */
    MT_RC(OVK_ENONFINITE, ovk_solver_solve(s, b, x, &res));
    MT_CHECK(strstr(ovk_error_detail(), "b at row") != NULL, "the refusal names b: %s", ovk_error_detail());
    ovk_vector_destroy(b);
    ovk_vector_destroy(x);
    ovk_solver_destroy(&s);
}

/* an operator through ovk_matvec; the rank fail_rank passes a NULL y from
 * its product fail_at on */
typedef struct op_ctx {
    ovk_matrix *A;
    ovk_vector *x, *y;
    int calls, fail_at, fail_rank;
} op_ctx;

static int apply_matvec(ovk_solver *s, const double *in, double *out, void *ctx)
{
    (void)s;
    op_ctx *o = ctx;
    int n = ovk_matrix_nlocal(o->A), rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int bad = rank == o->fail_rank && ++o->calls >= o->fail_at;
    memcpy(ovk_vector_data(o->x), in, sizeof(double) * (size_t)n);
    int rc = ovk_matvec(o->A, o->x, bad ? NULL : o->y);
    memcpy(out, ovk_vector_data(o->y), sizeof(double) * (size_t)n);
    return rc;
}

/* ovk_matvec inside an operator callback makes no reduction (the solve's
 * two remain); a NULL y there on one rank fails the solve on every rank,
 * with no hang: its neighbours' halo is still served */
static void test_operator_matvec(ovk_matrix *A)
{
    int size = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    op_ctx oc = {.A = A, .fail_at = 1 << 30, .fail_rank = size - 1};
    ovk_solver *s = NULL;
    ovk_vector *b = NULL, *x = NULL;
    ovk_pcg_result res;
    int n = ovk_matrix_nlocal(A);
    MT_RC(OVK_OK, ovk_vector_create(A, &oc.x));
    MT_RC(OVK_OK, ovk_vector_create(A, &oc.y));
    MT_RC(OVK_OK, ovk_solver_create_operator(MPI_COMM_WORLD, n, apply_matvec, &oc, &s));
    MT_RC(OVK_OK, ovk_solver_set_option(s, "solver", "cg1"));
    MT_RC(OVK_OK, ovk_solver_set_option(s, "backend", "nbc"));
    MT_RC(OVK_OK, ovk_solver_set_option(s, "precond", "none"));
    MT_RC(OVK_OK, ovk_solver_set_option(s, "max_it", "10"));
    MT_RC(OVK_OK, ovk_solver_set_option(s, "rtol", "1e-30"));
    MT_RC(OVK_OK, ovk_solver_setup(s));
    MT_RC(OVK_OK, ovk_solver_vector_create(s, NULL, &b));
    MT_RC(OVK_OK, ovk_solver_vector_create(s, NULL, &x));
    ovk_vector_set(b, 1.0);
    long a0 = n_allreduce, i0 = n_iallreduce;
    MT_RC(OVK_EMAXIT, ovk_solver_solve(s, b, x, &res));
    long a = n_allreduce - a0, i = n_iallreduce - i0;
    MT_CHECK(a == 2 && i == 0, "operator through ovk_matvec: %ld MPI_Allreduce, %ld MPI_Iallreduce in %d iterations "
             "(2 and 0 expected)", a, i, res.iterations);
    oc.calls = 0;
    oc.fail_at = 3;
    ovk_vector_set(x, 0.0);
    MT_RC(OVK_ECALLBACK, ovk_solver_solve(s, b, x, &res));
    ovk_vector_destroy(b);
    ovk_vector_destroy(x);
    ovk_solver_destroy(&s);
    ovk_vector_destroy(oc.x);
    ovk_vector_destroy(oc.y);
}

int main(int argc, char **argv)
{
    int rank;
    int provided = MPI_THREAD_SINGLE;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided); /* offload's agent needs it */
    MT_CHECK(provided == MPI_THREAD_MULTIPLE, "MPI_THREAD_MULTIPLE not provided (%d)", provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    ovk_matrix *A = NULL;
    MT_RC(OVK_OK, tp_laplace(MPI_COMM_WORLD, 27, 10, 0.0, &A));
    for (int s = 0; s < mt_recurrence_count(); s++) {
        const char *solver = mt_recurrence_name(s);
        long per_it = reductions_per_iteration(solver);
        for (int k = 0; k <= ovk_backend_count(); k++) { /* the registry, then offload's agent engine */
            ovk_backend_info info = {.name = "offload:engine=agent", .available = 1};
            if (k < ovk_backend_count()) ovk_backend_get_info(k, &info);
            MT_CHECK(info.available, "backend %s is not available", info.name); /* none may be skipped */
            if (!info.available) continue;
            counts few = run(A, solver, info.name, 5), many = run(A, solver, info.name, 25);
            long grow_a = many.allreduce - few.allreduce, grow_i = many.iallreduce - few.iallreduce;
            /* plcg: at the rounding floor (tol 1e-30) it falls back to pipeprcg's
             * recurrences once, whose vectors' allocation is agreed by one MPI_Allreduce */
            long once = !strcmp(solver, "plcg");
            if (rank == 0)
                printf("%-8s %-10s 5 its: Allreduce %3ld Iallreduce %3ld | 25 its: Allreduce %3ld Iallreduce %3ld\n",
                       solver, info.name, few.allreduce, few.iallreduce, many.allreduce, many.iallreduce);
            if (!strcmp(info.name, "blocking")) {
                MT_CHECK(many.iallreduce == 0, "blocking called MPI_Iallreduce %ld times", many.iallreduce);
                MT_CHECK(grow_a >= 20 * per_it, "blocking: Allreduce grew by %ld", grow_a);
            } else if (!strcmp(info.name, "native")) {
                MT_CHECK(grow_a <= once, "native: MPI_Allreduce grew by %ld", grow_a);
                MT_CHECK(grow_i >= 20 * per_it, "native: MPI_Iallreduce grew by %ld", grow_i);
            } else {
                MT_CHECK(grow_a <= once && grow_i == 0, "%s: collectives grew (%ld, %ld)", info.name, grow_a, grow_i);
            }
        }
    }
    test_solve_overhead(A);
    test_operator_matvec(A);
    ovk_matrix_destroy(A);
    int rc = mt_finish("test_call_counts");
    MPI_Finalize();
    return rc;
}

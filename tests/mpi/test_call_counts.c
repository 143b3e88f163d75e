/* Which MPI collectives a solve calls, counted through the PMPI profiling
 * interface: with the blocking backend no MPI_Iallreduce; with native the
 * MPI_Iallreduce count grows with the iterations (3 per iteration, 1 for the
 * single-reduction cg1 and pipecg) and MPI_Allreduce does not; with a
 * point-to-point backend (nbc) no collective grows (but for plcg's one
 * MPI_Allreduce when it falls back to pipeprcg's recurrences). */
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

/* reductions per iteration of each variant (docs/solvers.md) */
static long reductions_per_iteration(const char *solver)
{
    /* gmres, fgmres: one or two (CGS2), at least one */
    static const char *const one[] = {"cg1", "pipecg", "pipeprcg", "plcg", "gmres", "fgmres", "pgmres"};
    for (size_t i = 0; i < sizeof one / sizeof one[0]; i++)
        if (!strcmp(solver, one[i])) return 1;
    return strcmp(solver, "groppcg") ? 3 : 2;
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
    ovk_matrix_destroy(A);
    int rc = mt_finish("test_call_counts");
    MPI_Finalize();
    return rc;
}

/* pgmres's basis (orth=): on hor131 with Jacobi and the drivers' random b
 * (skipped without the shared matrices), pgmres:l=1,orth=dcgs2 (each v_j's
 * second classical pass delayed into the pipeline's reduction) keeps V
 * orthonormal, ||I - V^T V||_F of a cycle (orthloss=1, read from the view)
 * below 1e-10, and converges truly to 1e-8 without the fallback to gmres,
 * where orth=cgs (the basis from the Gram matrix alone) loses V's
 * orthogonality and falls back (restarts = 1); with both bases pgmres
 * starts one reduction per step (PMPI), on a blocking and a non-blocking
 * backend. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "count_reductions.h"
#include "mpitest.h"

static mt_counted solve(const ovk_matrix *A, const char *solver, const char *backend, int max_it, const char *rtol)
{
    ovk_solver *s = NULL;
    ovk_vector *b = NULL, *x = NULL;
    mt_counted o = {0};
    char buf[32];
    ovk_vector_create(A, &b);
    ovk_vector_create(A, &x);
    mt_random_b(A, b);
    MT_RC(OVK_OK, ovk_solver_create((ovk_matrix *)A, &s));
    MT_RC(OVK_OK, ovk_solver_set_option(s, "solver", solver));
    MT_RC(OVK_OK, ovk_solver_set_option(s, "precond", "jacobi"));
    MT_RC(OVK_OK, ovk_solver_set_option(s, "backend", backend));
    MT_RC(OVK_OK, ovk_solver_set_option(s, "rtol", rtol));
    snprintf(buf, sizeof buf, "%d", max_it);
    MT_RC(OVK_OK, ovk_solver_set_option(s, "max_it", buf));
    o.rc = ovk_solver_setup(s);
    mt_counted_solve(s, A, b, x, &o);
    ovk_solver_destroy(&s);
    ovk_vector_destroy(b);
    ovk_vector_destroy(x);
    return o;
}

/* ||I - V^T V||_F of the view's orthloss line (-1: none) */
static double loss_of(const char *view)
{
    const char *at = strstr(view, "||I - V^T V||_F = ");
    return at ? atof(at + strlen("||I - V^T V||_F = ")) : -1.0;
}

/* dcgs2 converges without the fallback, V orthonormal; cgs falls back */
static void robustness(int rank, const ovk_matrix *A)
{
    mt_counted d = solve(A, "pgmres:l=1,orth=dcgs2,orthloss=1", "native", 3000, "1e-8");
    mt_counted g = solve(A, "pgmres:l=1,orth=cgs,orthloss=1", "native", 3000, "1e-8");
    double ld = loss_of(d.view), lg = loss_of(g.view);
    MT_CHECK(d.rc == OVK_OK && d.reason == OVK_REASON_CONVERGED && d.true_rel < 1e-8 && d.restarts == 0,
             "dcgs2: status %s, %d iterations, true residual %.3e, %d restarts", ovk_status_name(d.rc), d.iterations,
             d.true_rel, d.restarts);
    MT_CHECK(ld >= 0.0 && ld <= 1e-10, "dcgs2: ||I - V^T V||_F = %.3e", ld);
    MT_CHECK(g.rc == OVK_OK && g.true_rel < 1e-8 && g.restarts == 1 && lg > 1e-6,
             "cgs: status %s, true residual %.3e, %d restarts, ||I - V^T V||_F = %.3e", ovk_status_name(g.rc),
             g.true_rel, g.restarts, lg);
    if (rank == 0)
        printf("hor131 pgmres:l=1 dcgs2: %d iterations, %d restarts, loss %.2e; cgs: %d iterations, %d restarts, "
               "loss %.2e\n",
               d.iterations, d.restarts, ld, g.iterations, g.restarts, lg);
}

/* one reduction per step: the reductions of steps 6..25 of the first
 * cycle (the shifts given: no estimate cycle) */
static void reductions(int rank, const ovk_matrix *A)
{
    static const char *const specs[] = {"pgmres:l=1,orth=dcgs2,lmin=0.05,lmax=1.9",
                                        "pgmres:l=2,orth=dcgs2,lmin=0.05,lmax=1.9",
                                        "pgmres:l=2,orth=cgs,lmin=0.05,lmax=1.9"};
    static const char *const backends[] = {"blocking", "native"};
    for (int s = 0; s < 3; s++)
        for (int k = 0; k < 2; k++) {
            mt_counted few = solve(A, specs[s], backends[k], 5, "1e-30");
            mt_counted many = solve(A, specs[s], backends[k], 25, "1e-30");
            long grow = k == 0 ? many.allreduce - few.allreduce : many.iallreduce - few.iallreduce;
            int steps = many.iterations - few.iterations;
            MT_CHECK(few.rc == OVK_EMAXIT && many.rc == OVK_EMAXIT && steps == 20 && many.restarts == 0,
                     "%s: %d, %d iterations, %d restarts", specs[s], few.iterations, many.iterations, many.restarts);
            MT_CHECK(grow == steps, "%s/%s: %ld reductions in %d steps", specs[s], backends[k], grow, steps);
            if (k == 1)
                MT_CHECK(many.allreduce == few.allreduce, "%s native: MPI_Allreduce %ld vs %ld", specs[s],
                         many.allreduce, few.allreduce);
            if (rank == 0) printf("%-44s %-8s %ld reductions in %d steps\n", specs[s], backends[k], grow, steps);
        }
}

int main(int argc, char **argv)
{
    int rank, provided = MPI_THREAD_SINGLE;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    double t0 = MPI_Wtime();
    ovk_matrix *A = mt_nonsym_matrix("hor131");
    if (A) {
        robustness(rank, A);
        reductions(rank, A);
        ovk_matrix_destroy(A);
    } else if (rank == 0) {
        printf("shared nonsymmetric matrices: skipped (no directory '%s')\n", OVK_NONSYM_DIR);
    }
    if (rank == 0) printf("seconds: %.2f\n", MPI_Wtime() - t0);
    int rc = mt_finish("test_pgmres_basis");
    MPI_Finalize();
    return rc;
}

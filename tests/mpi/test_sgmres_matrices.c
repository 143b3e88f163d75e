/* sgmres on the shared nonsymmetric matrices (skipped without them) with
 * jacobi and ilu0, b = A 1 and the drivers' random b, rtol 1e-8, at most
 * 900 iterations: wherever gmres converges, sgmres:s=5 and
 * sgmres:s=10,overlap=1 (and with ilu0 sgmres:s=10) converge too, its true residual below 1e-8 (plus
 * rounding), within 1.5 times gmres's iterations (basis vectors: one
 * product each); where gmres does not (utm1700a; watt_2 with jacobi and a
 * random b), sgmres never claims a convergence its true residual did not
 * reach. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "mpitest.h"

typedef struct outcome {
    int rc, iterations, restarts;
    ovk_reason reason;
    double true_rel;
} outcome;

static outcome solve(const ovk_matrix *A, const ovk_vector *b, const char *solver, const char *precond)
{
    ovk_solver *s = NULL;
    ovk_vector *x = NULL;
    ovk_pcg_result res;
    outcome o = {0};
    ovk_vector_create(A, &x);
    MT_RC(OVK_OK, ovk_solver_create(A, &s));
    MT_RC(OVK_OK, ovk_solver_set_option(s, "solver", solver));
    MT_RC(OVK_OK, ovk_solver_set_option(s, "precond", precond));
    MT_RC(OVK_OK, ovk_solver_set_option(s, "rtol", "1e-8"));
    MT_RC(OVK_OK, ovk_solver_set_option(s, "max_it", "900"));
    memset(&res, 0, sizeof res);
    o.rc = ovk_solver_solve(s, b, x, &res);
    o.iterations = res.iterations;
    o.restarts = res.restarts;
    o.reason = res.reason;
    o.true_rel = mt_rel_residual(A, b, x);
    ovk_solver_destroy(&s);
    ovk_vector_destroy(x);
    return o;
}

static void matrix(int rank, const char *name)
{
    static const char *const pcs[] = {"jacobi", "ilu0"};
    static const char *const specs[] = {"sgmres:s=5", "sgmres:s=10,overlap=1", "sgmres:s=10"};
    ovk_matrix *A = mt_nonsym_matrix(name);
    ovk_vector *b = NULL, *one = NULL;
    ovk_vector_create(A, &b);
    ovk_vector_create(A, &one);
    ovk_vector_set(one, 1.0);
    for (int rhs = 0; rhs < 2; rhs++) {
        if (rhs == 0) MT_RC(OVK_OK, ovk_matvec(A, one, b));
        else mt_random_b(A, b);
        for (int p = 0; p < 2; p++) {
            outcome g = solve(A, b, "gmres", pcs[p]);
            int gconv = g.rc == OVK_OK && g.true_rel < 1.01e-8;
            for (int k = 0; k < 2 + p; k++) { /* s = 10 blocking with ilu0 only: the test's time */
                outcome o = solve(A, b, specs[k], pcs[p]);
                if (gconv) {
                    MT_CHECK(o.rc == OVK_OK && o.true_rel < 1.01e-8 && o.iterations <= g.iterations * 3 / 2,
                             "%s %s %s b=%s: status %s, %d iterations (gmres %d), true residual %.3e", name, specs[k],
                             pcs[p], rhs ? "random" : "A1", ovk_status_name(o.rc), o.iterations, g.iterations,
                             o.true_rel);
                }
                MT_CHECK(o.reason != OVK_REASON_CONVERGED || o.true_rel < 1.01e-8,
                         "%s %s %s: converged claimed at true residual %.3e", name, specs[k], pcs[p], o.true_rel);
                if (rank == 0)
                    printf("%-9s %-6s b=%-6s %-21s %4d iterations (gmres %4d%s), true %.2e, %d safeguard cycles\n",
                           name, pcs[p], rhs ? "random" : "A1", specs[k], o.iterations, g.iterations,
                           gconv ? "" : ", unconverged", o.true_rel, o.restarts);
            }
        }
    }
    ovk_vector_destroy(b);
    ovk_vector_destroy(one);
    ovk_matrix_destroy(A);
}

int main(int argc, char **argv)
{
    static const char *const names[] = {"cdde1", "hor131", "orsirr_1", "sherman5", "watt_2", "utm1700a"};
    int rank, provided = MPI_THREAD_SINGLE;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    double t0 = MPI_Wtime();
    ovk_matrix *probe = mt_nonsym_matrix("hor131");
    if (probe) {
        ovk_matrix_destroy(probe);
        for (int i = 0; i < 6; i++) matrix(rank, names[i]);
    } else if (rank == 0) {
        printf("shared nonsymmetric matrices: skipped (no directory '%s')\n", OVK_NONSYM_DIR);
    }
    if (rank == 0) printf("seconds: %.2f\n", MPI_Wtime() - t0);
    int rc = mt_finish("test_sgmres_matrices");
    MPI_Finalize();
    return rc;
}

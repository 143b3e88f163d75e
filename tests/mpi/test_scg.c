/* scg (s-step CG): against a dense solve of a small SPD matrix for s =
 * 1..8 (rows split unevenly, a rank without rows at 3 and 4 ranks; a
 * second solve, whose shifts the first estimated: s-step from the start),
 * the same iterations on every rank; on the 27-point Laplacian exactly one
 * reduction per s iterations after the first blocks (PMPI on the blocking
 * and the non-blocking backend, the library's count on nbc), and a one-shot
 * solve (its shifts from its first, monomial block) no more than 3
 * reductions above a solve whose shifts were known; the safeguard
 * forced (a diagonal matrix of 3 distinct values, a second solve, whose
 * first block is s-step: a block of 8 in a Krylov space of dimension 3, its
 * P^T A P singular) halves s, converges and says so; bad specs fail with OVK_EOPTION on every rank. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "count_reductions.h"
#include "mpitest.h"
#include "problem.h"

enum { DENSE_N = 40, DIAG_N = 60 };

/* a symmetric random part of norm below 1 on a diagonal in [1, 3) */
static double dense_entry(int i, int j)
{
    double a = 0.4 * (tp_value((uint64_t)(i * DENSE_N + j)) + tp_value((uint64_t)(j * DENSE_N + i))) / sqrt((double)DENSE_N);
    return i == j ? a + 1.0 + 2.0 * i / DENSE_N : a;
}

/* 1 + (i mod 3) on the diagonal: 3 distinct eigenvalues */
static double diag_entry(int i, int j) { return i == j ? 1.0 + (i % 3) : 0.0; }

static ovk_matrix *matrix_of(int n, double (*entry)(int, int))
{
    tp_rows r;
    ovk_matrix *A = NULL;
    tp_rows_alloc(&r, n, n);
    for (int i = 0; i < r.count; i++) {
        int at = r.ptr[i];
        for (int j = 0; j < n; j++) {
            double v = entry((int)r.start + i, j);
            if (v == 0.0) continue;
            r.col[at] = j;
            r.val[at++] = v;
        }
        r.ptr[i + 1] = at;
    }
    MT_RC(OVK_OK, ovk_matrix_create_csr(MPI_COMM_WORLD, r.start, r.count, r.ptr, r.col, r.val, OVK_DUP_REJECT, &A));
    tp_rows_free(&r);
    return A;
}

/* x = A^-1 b for the dense reference matrix (every rank the whole) */
static void dense_solve(int n, const double *b, double *x)
{
    double *a = malloc(sizeof(double) * (size_t)n * (size_t)n);
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < n; j++) a[i * n + j] = dense_entry(i, j);
        x[i] = b[i];
    }
    mt_dense_solve(n, a, x);
    free(a);
}

static void dense_reference(int rank)
{
    ovk_matrix *A = matrix_of(DENSE_N, dense_entry);
    ovk_vector *b = NULL, *x = NULL;
    double bg[DENSE_N], xr[DENSE_N], xmax = 0.0;
    int64_t start;
    int count, np;
    ovk_vector_create(A, &b);
    ovk_vector_create(A, &x);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    tp_split(DENSE_N, rank, np, &start, &count);
    for (int i = 0; i < DENSE_N; i++) bg[i] = tp_value((uint64_t)i + 77);
    dense_solve(DENSE_N, bg, xr);
    for (int i = 0; i < DENSE_N; i++) xmax = fmax(xmax, fabs(xr[i]));
    memcpy(ovk_vector_data(b), bg + start, sizeof(double) * (size_t)count);
    for (int s = 1; s <= 8; s++) {
        char spec[32];
        snprintf(spec, sizeof spec, "scg:s=%d", s);
        const char *pc = s % 2 ? "none" : "jacobi";
        mt_counted o = mt_solve_counted(A, b, x, (mt_config){spec, pc, s % 3 ? "blocking" : "native", "1e-12", 400, 1});
        double err = 0.0, *xd = ovk_vector_data(x);
        for (int i = 0; i < count; i++) err = fmax(err, fabs(xd[i] - xr[start + i]));
        MPI_Allreduce(MPI_IN_PLACE, &err, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        MT_CHECK(o.rc == OVK_OK && o.reason == OVK_REASON_CONVERGED && o.true_rel < 1e-12 && err < 1e-10 * xmax,
                 "%s/%s: status %s, %d iterations, true residual %.3e, error %.3e", spec, pc, ovk_status_name(o.rc),
                 o.iterations, o.true_rel, err / xmax);
        double got[2] = {(double)o.iterations, o.true_rel};
        MT_CHECK(mt_same_everywhere(MPI_COMM_WORLD, got, 2), "%s: iterations or residual differ across ranks", spec);
        if (rank == 0)
            printf("dense %d: %-8s %-6s %3d iterations, true residual %.2e, error %.2e, halvings %d\n", DENSE_N, spec,
                   pc, o.iterations, o.true_rel, err / xmax, o.restarts);
    }
    ovk_vector_destroy(b);
    ovk_vector_destroy(x);
    ovk_matrix_destroy(A);
}

/* iterations 28..60 (after the first, monomial block of min(s, 4)): one
 * reduction per s iterations */
static void reductions(int rank)
{
    static const char *const backends[] = {"blocking", "native", "nbc"};
    static const int svals[] = {2, 4, 8};
    ovk_matrix *A = NULL;
    ovk_vector *b = NULL, *x = NULL;
    MT_RC(OVK_OK, tp_laplace(MPI_COMM_WORLD, 27, 16, 0.0, &A));
    ovk_vector_create(A, &b);
    ovk_vector_create(A, &x);
    mt_random_b(A, b);
    for (int k = 0; k < 3; k++)
        for (int si = 0; si < 3; si++) {
            char spec[32];
            int s = svals[si];
            snprintf(spec, sizeof spec, "scg:s=%d", s);
            mt_counted few = mt_solve_counted(A, b, x, (mt_config){spec, "jacobi", backends[k], "1e-30", 28, 0});
            mt_counted many = mt_solve_counted(A, b, x, (mt_config){spec, "jacobi", backends[k], "1e-30", 60, 0});
            int steps = many.iterations - few.iterations;
            long long grow = many.reductions - few.reductions;
            long pmpi = k == 0 ? many.allreduce - few.allreduce : many.iallreduce - few.iallreduce;
            MT_CHECK(few.rc == OVK_EMAXIT && many.rc == OVK_EMAXIT && steps == 32 && many.restarts == 0,
                     "%s/%s: %d, %d iterations, %d halvings", spec, backends[k], few.iterations, many.iterations,
                     many.restarts);
            MT_CHECK(grow == steps / s, "%s/%s: %lld reductions in %d iterations", spec, backends[k], grow, steps);
            if (k < 2) MT_CHECK(pmpi == grow, "%s/%s: PMPI counted %ld, the library %lld", spec, backends[k], pmpi, grow);
            if (rank == 0)
                printf("%-8s %-8s %lld reductions in %d iterations (%.3f an iteration)\n", spec, backends[k], grow,
                       steps, (double)grow / steps);
        }
    ovk_vector_destroy(b);
    ovk_vector_destroy(x);
    ovk_matrix_destroy(A);
}

/* the start-up's price in a one-shot solve: its reductions (PMPI, blocking)
 * over 20 iterations against those of a solve whose shifts were known (the
 * second solve of one object), at most 3 more; the same convergence to
 * rtol 1e-8 */
static void startup(int rank)
{
    static const int svals[] = {4, 8, 16};
    ovk_matrix *A = NULL;
    ovk_vector *b = NULL, *x = NULL;
    MT_RC(OVK_OK, tp_laplace(MPI_COMM_WORLD, 27, 16, 0.0, &A));
    ovk_vector_create(A, &b);
    ovk_vector_create(A, &x);
    mt_random_b(A, b);
    for (int si = 0; si < 3; si++) {
        char spec[32];
        snprintf(spec, sizeof spec, "scg:s=%d", svals[si]);
        mt_counted once, known;
        mt_check_startup(A, b, x, spec, 20, 3, &once, &known);
        mt_counted conv = mt_solve_counted(A, b, x, (mt_config){spec, "jacobi", "blocking", "1e-8", 200, 0});
        MT_CHECK(conv.rc == OVK_OK && conv.true_rel < 1.01e-8, "%s one-shot: status %s, true residual %.3e", spec,
                 ovk_status_name(conv.rc), conv.true_rel);
        if (rank == 0)
            printf("%-9s one-shot: %ld reductions in 20 iterations (shifts known: %ld); to 1e-8 in %d iterations\n",
                   spec, once.allreduce, known.allreduce, conv.iterations);
    }
    ovk_vector_destroy(b);
    ovk_vector_destroy(x);
    ovk_matrix_destroy(A);
}

static void safeguard(int rank)
{
    ovk_matrix *A = matrix_of(DIAG_N, diag_entry);
    ovk_vector *b = NULL, *x = NULL;
    ovk_vector_create(A, &b);
    ovk_vector_create(A, &x);
    mt_random_b(A, b);
    mt_counted o = mt_solve_counted(A, b, x, (mt_config){"scg:s=8", "none", "blocking", "1e-10", 200, 1}); /* the s-step solve */
    MT_CHECK(o.rc == OVK_OK && o.true_rel < 1e-10 && o.restarts > 0 && strstr(o.view, "safeguard"),
             "forced safeguard: status %s, %d iterations, true residual %.3e, %d halvings; view:\n%s",
             ovk_status_name(o.rc), o.iterations, o.true_rel, o.restarts, o.view);
    if (rank == 0)
        printf("diagonal, 3 distinct values, a second solve: scg:s=8 %d iterations, %d halvings, true residual %.2e\n", o.iterations,
               o.restarts, o.true_rel);
    ovk_vector_destroy(b);
    ovk_vector_destroy(x);
    ovk_matrix_destroy(A);
}

static void bad_input(void)
{
    static const char *const specs[] = {"scg:s=0", "scg:s=-1", "scg:s=17", "scg:l=2"};
    ovk_matrix *A = matrix_of(DENSE_N, dense_entry);
    for (int i = 0; i < 4; i++) {
        ovk_solver *s = NULL;
        MT_RC(OVK_OK, ovk_solver_create(A, &s));
        int rc = ovk_solver_set_option(s, "solver", specs[i]);
        if (!rc) rc = ovk_solver_setup(s);
        ovk_solver_destroy(&s);
        double v = rc;
        MT_CHECK(rc == OVK_EOPTION, "%s: status %s", specs[i], ovk_status_name(rc));
        MT_CHECK(mt_same_everywhere(MPI_COMM_WORLD, &v, 1), "%s: status differs across ranks", specs[i]);
    }
    ovk_matrix_destroy(A);
}

int main(int argc, char **argv)
{
    int rank, provided = MPI_THREAD_SINGLE;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    double t0 = MPI_Wtime();
    dense_reference(rank);
    reductions(rank);
    startup(rank);
    safeguard(rank);
    bad_input();
    if (rank == 0) printf("seconds: %.2f\n", MPI_Wtime() - t0);
    int rc = mt_finish("test_scg");
    MPI_Finalize();
    return rc;
}

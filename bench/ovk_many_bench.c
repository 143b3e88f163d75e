/* ovk_many_bench: ovk_solver_solve_many of K right-hand sides against K
 * single solves of the same solver object, interleaved in one run.
 *
 *   mpirun -n 2 ovk_many_bench (-f A.mtx | -n N) [-k 8] [-rounds 3] [-solver alg1]
 *          [-precond jacobi] [-tol 1e-8] [-maxit 1000] [-backend SPEC] [-latency_us A]
 *
 * -n N: the 27-point Laplacian, N^3 rows per rank.  The right-hand sides
 * are random (a hash of the global row and the system), x0 = 0.  Each
 * round runs the batch and the K single solves, their order alternating
 * between rounds; every time is the slowest rank's, from a barrier.
 * Rank 0 prints each round and the medians:
 *   many K = 8: median T s, singles: median T s, ratio R
 *   time per system per iteration: batch U us, singles V us
 *   CPU time (...): batch C s, singles D s, ratio
 *   split (s, ...): matvec B / S, precond B / S, vectors B / S, waits B / S, rest B / S
 * (U = batch time / sum of the systems' iterations; the CPU time is the
 * calling thread's, which a loaded host's descheduling does not inflate;
 * the split is the solver's timers summed over the systems, each the mean
 * over the ranks, medians over the rounds: in the batch a system's product
 * and preconditioner are its share of the combined ones, its waits its
 * share of the combined reductions'; the rest is what they leave of the
 * wall time: scalar work, task switching, the slowest rank's lag).
 * The solver reads $OVK_OPTIONS last (OVK_OPTIONS="-ovk_many_group 1"
 * runs groups of one system, 8 one group of k = 8; docs/solvers.md). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ovkrylov/ovkrylov.h>

#include "../examples/common/experiment.h"
#include "bench_common.h"

enum { MAX_ROUNDS = 64 };

/* the parts of a solve's time the split prints: product, preconditioner,
 * vector updates, reductions' waits, the rest */
enum { PART_MATVEC, PART_PRECOND, PART_AXPY, PART_WAIT, PART_REST, PARTS };
static const char *const part_name[PARTS] = {"matvec", "precond", "vectors", "waits", "rest"};

/* add one system's timers (means over the ranks) to part[] (not the rest) */
static void add_split(const ovk_pcg_result *r, double part[PARTS])
{
    const double *t = r->time_mean;
    part[PART_MATVEC] += t[OVK_TIMER_MATVEC];
    part[PART_PRECOND] += t[OVK_TIMER_PRECOND];
    part[PART_AXPY] += t[OVK_TIMER_AXPY];
    part[PART_WAIT] += t[OVK_TIMER_SDOTP_WAIT] + t[OVK_TIMER_GAMMA_WAIT] + t[OVK_TIMER_IPROD_WAIT];
}

/* out[q] = part[q], the rest what the timed parts leave of the wall time */
static void keep_split(const double part[PARTS], double wall, double out[PARTS][MAX_ROUNDS], int round)
{
    double timed = 0.0;
    for (int q = 0; q < PART_REST; q++) timed += out[q][round] = part[q];
    out[PART_REST][round] = wall - timed;
}

typedef struct opts {
    const char *file, *solver, *precond, *backend;
    long n, k, rounds, maxit;
    double tol;
    ovk_drv_experiment ex;
} opts;

static double rhs_value(long long row, long j)
{
    uint64_t g = (uint64_t)row * 0x9E3779B97F4A7C15ull + (uint64_t)j * 0xD1B54A32D192ED03ull;
    g = (g ^ (g >> 30)) * 0xBF58476D1CE4E5B9ull;
    g = (g ^ (g >> 27)) * 0x94D049BB133111EBull;
    return (double)((g ^ (g >> 31)) >> 11) * (1.0 / 9007199254740992.0);
}

static int parse(int argc, char **argv, opts *o)
{
    for (int i = 1; i < argc; i++) {
        const char *f = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        int shared = ovk_drv_parse_flag(argc, argv, &i, &o->ex); /* -latency_us, -precond, ... */
        if (shared < 0) return -1;
        if (shared) continue;
        if (!v) return -1;
        i++;
        if (!strcmp(f, "-f")) o->file = v;
        else if (!strcmp(f, "-solver")) o->solver = v;
        else if (!strcmp(f, "-backend")) o->backend = v;
        else if (!strcmp(f, "-n")) { if (ovk_bench_long(v, 1, 1000, &o->n)) return -1; }
        else if (!strcmp(f, "-k")) { if (ovk_bench_long(v, 1, 1024, &o->k)) return -1; }
        else if (!strcmp(f, "-rounds")) { if (ovk_bench_long(v, 1, MAX_ROUNDS, &o->rounds)) return -1; }
        else if (!strcmp(f, "-maxit")) { if (ovk_bench_long(v, 1, 1000000, &o->maxit)) return -1; }
        else if (!strcmp(f, "-tol")) { if (ovk_bench_double(v, &o->tol) || o->tol <= 0) return -1; }
        else return -1;
    }
    return o->file || o->n > 0 ? 0 : -1;
}

static int make_matrix(const opts *o, ovk_matrix **A)
{
    int size, px[3] = {0, 0, 0};
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (o->file) return ovk_mm_read(MPI_COMM_WORLD, o->file, A);
    MPI_Dims_create(size, 3, px);
    return ovk_laplace_create(MPI_COMM_WORLD, OVK_STENCIL_27, (int)o->n, (int)o->n, (int)o->n, px[0], px[1], px[2], A);
}

/* x = 0 for every system */
static void zero(int k, ovk_vector **X)
{
    for (int j = 0; j < k; j++) ovk_vector_set(X[j], 0.0);
}

int main(int argc, char **argv)
{
    opts o = {.solver = "alg1", .k = 8, .rounds = 3, .maxit = 1000, .tol = 1e-8};
    int rank, rc;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (parse(argc, argv, &o)) {
        if (rank == 0) fprintf(stderr, "usage: ovk_many_bench (-f A.mtx | -n N) [-k K] [-rounds R] [-solver S] "
                                       "[-precond P] [-tol T] [-maxit M] [-backend SPEC] [-latency_us A]\n");
        MPI_Finalize();
        return 2;
    }
    int k = (int)o.k, R = (int)o.rounds;
    ovk_matrix *A = NULL;
    ovk_reducer *red = NULL;
    ovk_solver *s = NULL;
    ovk_vector **B = calloc((size_t)k, sizeof *B), **X = calloc((size_t)k, sizeof *X);
    ovk_pcg_result *res = calloc((size_t)k, sizeof *res), one;
    rc = make_matrix(&o, &A);
    if (!rc) rc = ovk_drv_reducer(MPI_COMM_WORLD, o.backend, &o.ex, &red);
    if (!rc) rc = ovk_solver_create(A, &s);
    if (!rc) rc = ovk_solver_set_option(s, "solver", o.solver);
    if (!rc && o.ex.precond) rc = ovk_solver_set_option(s, "precond", o.ex.precond);
    if (!rc) rc = ovk_solver_set_reducer(s, red);
    if (!rc) rc = ovk_solver_set_tolerances(s, o.tol, 0.0, (int)o.maxit);
    if (!rc) rc = ovk_solver_set_from_options(s, NULL); /* $OVK_OPTIONS: -ovk_many_group G */
    if (!rc) rc = ovk_solver_setup(s);
    for (int j = 0; !rc && j < k; j++) {
        rc = ovk_vector_create(A, &B[j]);
        if (!rc) rc = ovk_vector_create(A, &X[j]);
        for (int i = 0; !rc && i < ovk_vector_nlocal(B[j]); i++)
            ovk_vector_data(B[j])[i] = rhs_value(ovk_matrix_row_start(A) + i, j);
    }
    if (rc) {
        if (rank == 0) fprintf(stderr, "ovk_many_bench: %s: %s\n", ovk_strerror(rc), ovk_error_detail());
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    long long nnz = (long long)ovk_matrix_nnz_local(A);
    MPI_Allreduce(MPI_IN_PLACE, &nnz, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("ovk_many_bench: %lld rows, %lld entries, solver %s, precond %s, k = %d, %d rounds\n",
               (long long)ovk_matrix_nglobal(A), nnz, o.solver,
               o.ex.precond ? o.ex.precond : "jacobi", k, R);
    double tm[MAX_ROUNDS], ts[MAX_ROUNDS], cm[MAX_ROUNDS], cs[MAX_ROUNDS];
    double pm[PARTS][MAX_ROUNDS], ps[PARTS][MAX_ROUNDS];
    long long it_many = 0, it_single = 0, red_many = 0, red_single = 0;
    double worst = 0.0;
    zero(k, X);
    ovk_solver_solve_many(s, k, B, X, res); /* warm: first touches, the variant's start-up */
    for (int r = 0; r < R; r++) {
        for (int half = 0; half < 2; half++) {
            int many = (half == 0) == (r % 2 == 0); /* alternate which goes first */
            zero(k, X);
            double t0 = ovk_bench_sync(), c0 = ovk_bench_cpu_s();
            if (many) {
                ovk_solver_solve_many(s, k, B, X, res);
                tm[r] = ovk_bench_slowest(MPI_Wtime() - t0);
                cm[r] = ovk_bench_slowest(ovk_bench_cpu_s() - c0);
                it_many = red_many = 0;
                for (int j = 0; j < k; j++) {
                    it_many += res[j].iterations;
                    worst = fmax(worst, res[j].rel_residual);
                }
                red_many = res[0].reductions;
                double part[PARTS] = {0.0};
                for (int j = 0; j < k; j++) add_split(&res[j], part);
                keep_split(part, tm[r], pm, r);
            } else {
                it_single = red_single = 0;
                double part[PARTS] = {0.0};
                for (int j = 0; j < k; j++) {
                    ovk_solver_solve(s, B[j], X[j], &one);
                    it_single += one.iterations;
                    red_single += one.reductions;
                    add_split(&one, part);
                }
                ts[r] = ovk_bench_slowest(MPI_Wtime() - t0);
                cs[r] = ovk_bench_slowest(ovk_bench_cpu_s() - c0);
                keep_split(part, ts[r], ps, r);
            }
        }
        if (rank == 0) printf("round %d: many %.6f s, singles %.6f s\n", r, tm[r], ts[r]);
    }
    double m = ovk_bench_median(tm, R), sg = ovk_bench_median(ts, R);
    double mc = ovk_bench_median(cm, R), sc = ovk_bench_median(cs, R);
    if (rank == 0) {
        printf("iterations: batch %lld (sum over systems), singles %lld; reductions: batch %lld, singles %lld; "
               "worst relative residual %.3e\n",
               it_many, it_single, red_many, red_single, worst);
        printf("many K = %d: median %.6f s, singles: median %.6f s, ratio %.3f\n", k, m, sg, m / sg);
        printf("time per system per iteration: batch %.1f us, singles %.1f us\n", 1e6 * m / (double)it_many,
               1e6 * sg / (double)it_single);
        printf("CPU time (the slowest rank's thread; waits that spin count): batch %.6f s, singles %.6f s, ratio %.3f\n",
               mc, sc, mc / sc);
        printf("split (s, batch / singles):");
        for (int q = 0; q < PARTS; q++)
            printf("%s %s %.4f / %.4f", q ? "," : "", part_name[q], ovk_bench_median(pm[q], R), ovk_bench_median(ps[q], R));
        printf("\n");
    }
    for (int j = 0; j < k; j++) {
        ovk_vector_destroy(B[j]);
        ovk_vector_destroy(X[j]);
    }
    free(B);
    free(X);
    free(res);
    ovk_solver_destroy(&s);
    ovk_reducer_destroy(red);
    ovk_matrix_destroy(A);
    MPI_Finalize();
    return 0;
}

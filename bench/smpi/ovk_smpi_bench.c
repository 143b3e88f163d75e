/* ovk_smpi_bench: the 27-point Laplacian of ovk_laplace27 (-rhs ones, Jacobi)
 * solved through the solver object's operator and preconditioner callbacks,
 * so that the compute of an iteration can be charged as a fixed cost.
 *
 * Two builds, one source:
 *   real build (mpicc):       -calibrate   times the real callbacks and the
 *       solve on the real machine and prints the costs per iteration
 *       (per call: matvec, preconditioner, and the rest of the solve, the
 *       solver's vector kernels, per preconditioner call);
 *   simulated build (smpicc): -cost MV PC REST (microseconds per call)
 *       charges them with smpi_execute() where the work happens: MV in the
 *       operator callback, PC + REST in the preconditioner callback, each in
 *       chunks of `-progress K` rows with ovk_solver_progress() between
 *       chunks (the progress hook of the library's own kernels).  Run with
 *       --cfg=smpi/simulate-computation:no, the real work is not timed.
 * It prints the driver's interface lines and one SMPI_RESULT line (simulated
 * times under SMPI; docs/scaling.md).
 *
 *   ovk_smpi_bench -n NX NY NZ -P PX PY PZ -solver S -backend B [-tol T]
 *                  [-maxit N] [-progress K] [-warmup W] [-cost MV PC REST | -calibrate]
 *
 * -warmup W: before the timed solve, one untimed solve of at most W
 * iterations from x = 0 on the same solver object, so that what a variant
 * estimates in its first solve and keeps (sgmres's Ritz values, scg's
 * spectrum) is left out of the time per iteration.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>
#include <ovkrylov/ovkrylov.h>

#ifdef OVK_SIMULATE
#include <smpi/smpi.h>
#endif

enum { PROBE_REPS = 20, DIAG_27 = 26 };

typedef struct bench {
    int n[3], P[3], maxit, progress, calibrate, warmup;
    const char *solver, *backend;
    double tol, cost_mv, cost_pc, cost_rest; /* microseconds per call / iteration */
    ovk_matrix *A;
    ovk_vector *vin, *vout; /* wrap the callbacks' arrays */
    int nlocal;
    long mv_calls, pc_calls;
    double t_mv, t_pc; /* real seconds in the callbacks (-calibrate) */
} bench;

/* cost_us of simulated compute over n rows in chunks of `every` rows, the
 * reductions in flight driven between chunks */
static int charge(ovk_solver *s, const bench *b, double cost_us)
{
    if (cost_us <= 0.0) return 0;
    int n = b->nlocal, every = b->progress > 0 ? b->progress : n;
    int chunks = n > 0 ? (n + every - 1) / every : 1;
    for (int c = 0; c < chunks; c++) {
#ifdef OVK_SIMULATE
        smpi_execute(cost_us * 1e-6 / chunks);
#endif
        if (c + 1 < chunks && b->progress > 0) {
            int rc = ovk_solver_progress(s);
            if (rc) return rc;
        }
    }
    return 0;
}

/* y = A x: the library's matvec (halo exchange included), then its cost */
static int apply_A(ovk_solver *s, const double *in, double *out, void *ctx)
{
    bench *b = ctx;
    double t0 = MPI_Wtime();
    memcpy(ovk_vector_data(b->vin), in, (size_t)b->nlocal * sizeof *in);
    int rc = ovk_matvec(b->A, b->vin, b->vout);
    if (rc) return rc;
    memcpy(out, ovk_vector_data(b->vout), (size_t)b->nlocal * sizeof *out);
    b->t_mv += MPI_Wtime() - t0;
    b->mv_calls++;
    return charge(s, b, b->cost_mv);
}

/* z = r / 26: Jacobi on the 27-point Laplacian (constant diagonal), then
 * the preconditioner's cost and the rest of the iteration's */
static int apply_C(ovk_solver *s, const double *in, double *out, void *ctx)
{
    bench *b = ctx;
    double t0 = MPI_Wtime();
    for (int i = 0; i < b->nlocal; i++) out[i] = in[i] * (1.0 / DIAG_27);
    b->t_pc += MPI_Wtime() - t0;
    b->pc_calls++;
    return charge(s, b, b->cost_pc + b->cost_rest);
}

static int parse(int argc, char **argv, bench *b)
{
    for (int i = 1; i < argc; i++) {
        const char *f = argv[i];
        int left = argc - i - 1;
        if (!strcmp(f, "-n") && left >= 3) {
            for (int d = 0; d < 3; d++) b->n[d] = atoi(argv[++i]);
        } else if (!strcmp(f, "-P") && left >= 3) {
            for (int d = 0; d < 3; d++) b->P[d] = atoi(argv[++i]);
        } else if (!strcmp(f, "-solver") && left >= 1) {
            b->solver = argv[++i];
        } else if (!strcmp(f, "-backend") && left >= 1) {
            b->backend = argv[++i];
        } else if (!strcmp(f, "-tol") && left >= 1) {
            b->tol = atof(argv[++i]);
        } else if (!strcmp(f, "-maxit") && left >= 1) {
            b->maxit = atoi(argv[++i]);
        } else if (!strcmp(f, "-progress") && left >= 1) {
            b->progress = atoi(argv[++i]);
        } else if (!strcmp(f, "-cost") && left >= 3) {
            b->cost_mv = atof(argv[++i]);
            b->cost_pc = atof(argv[++i]);
            b->cost_rest = atof(argv[++i]);
        } else if (!strcmp(f, "-warmup") && left >= 1) {
            b->warmup = atoi(argv[++i]);
        } else if (!strcmp(f, "-calibrate")) {
            b->calibrate = 1;
        } else {
            return -1;
        }
    }
    return 0;
}

/* seconds of one blocking 8-byte MPI_Allreduce, max over ranks */
static double probe_allreduce(void)
{
    double x = 1.0, y;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int r = 0; r < PROBE_REPS; r++) MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    double t = (MPI_Wtime() - t0) / PROBE_REPS;
    MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return t;
}

static int run(bench *b, int rank, int size)
{
    ovk_solver *s = NULL;
    ovk_vector *rhs = NULL, *x = NULL;
    ovk_pcg_result res;
    char num[32];
    int rc = ovk_laplace_create(MPI_COMM_WORLD, OVK_STENCIL_27, b->n[0], b->n[1], b->n[2], b->P[0], b->P[1],
                                b->P[2], &b->A);
    if (rc) return rc;
    b->nlocal = ovk_matrix_nlocal(b->A);
    rc = ovk_vector_create(b->A, &b->vin);
    if (!rc) rc = ovk_vector_create(b->A, &b->vout);
    if (!rc) rc = ovk_vector_create(b->A, &rhs);
    if (!rc) rc = ovk_vector_create(b->A, &x);
    if (!rc) rc = ovk_vector_set(rhs, 1.0);
    if (rc) return rc;
    double t_ar = probe_allreduce();
    rc = ovk_solver_create_operator(MPI_COMM_WORLD, b->nlocal, apply_A, b, &s);
    if (rc) return rc;
    rc = ovk_solver_set_option(s, "solver", b->solver);
    if (!rc) rc = ovk_solver_set_option(s, "backend", b->backend);
    snprintf(num, sizeof num, "%d", b->progress > 0 ? b->progress : -1);
    if (!rc) rc = ovk_solver_set_option(s, "progress_every", num);
    if (!rc) rc = ovk_solver_set_precond_fn(s, apply_C, b);
    if (!rc) rc = ovk_solver_set_tolerances(s, b->tol, 0.0, b->maxit);
    double t0 = MPI_Wtime();
    if (!rc) rc = ovk_solver_setup(s);
    double t_setup = MPI_Wtime() - t0;
    if (rc) goto done;
    if (b->calibrate) { /* a warm-up solve: first touches, caches */
        rc = ovk_solver_solve(s, rhs, x, &res);
        if (rc && rc != OVK_EMAXIT) goto done;
        rc = ovk_vector_set(x, 0.0);
        if (rc) goto done;
    } else if (b->warmup > 0) { /* the first solve's estimates, untimed */
        rc = ovk_solver_set_tolerances(s, b->tol, 0.0, b->warmup);
        if (!rc) rc = ovk_solver_solve(s, rhs, x, &res);
        if (rc && rc != OVK_EMAXIT) goto done;
        rc = ovk_solver_set_tolerances(s, b->tol, 0.0, b->maxit);
        if (!rc) rc = ovk_vector_set(x, 0.0);
        if (rc) goto done;
    }
    b->t_mv = b->t_pc = 0.0;
    b->mv_calls = b->pc_calls = 0;
    rc = ovk_solver_solve(s, rhs, x, &res);
    double t_solve = res.time_max[OVK_TIMER_SOLVE];
    /* the halo exchange: the operator callback's time without its charged
     * compute (in a callback ovk_matvec makes no reduction), max over ranks */
    double t_halo = b->calibrate ? 0.0 : b->t_mv / (b->mv_calls ? b->mv_calls : 1);
    MPI_Allreduce(MPI_IN_PLACE, &t_halo, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    int it = res.iterations > 0 ? res.iterations : 1;
    if (rank == 0) {
        printf("Iterations = %d\n", res.iterations);
        printf("Final Relative Residual Norm = %e\n", res.rel_residual);
        printf("Solve Time = %.6f s\n", t_solve);
    }
    if (b->calibrate) {
        /* rank 0's real costs per iteration, microseconds */
        double mv = b->t_mv / (b->mv_calls ? b->mv_calls : 1) * 1e6;
        double pc = b->t_pc / (b->pc_calls ? b->pc_calls : 1) * 1e6;
        /* the rest per preconditioner call, where it is charged (pipeprcg
         * and plcg apply the operator and preconditioner more than once per
         * iteration) */
        double rest = (t_solve - b->t_mv - b->t_pc) / (b->pc_calls ? b->pc_calls : 1) * 1e6;
        if (rank == 0)
            printf("CALIBRATION solver=%s nlocal=%d iters=%d matvec_us=%.3f pc_us=%.3f rest_us=%.3f "
                   "iter_us=%.3f\n",
                   b->solver, b->nlocal, res.iterations, mv, pc, rest, t_solve / it * 1e6);
    } else if (rank == 0) {
        /* the compute charged per iteration */
        double compute = (b->mv_calls * b->cost_mv + b->pc_calls * (b->cost_pc + b->cost_rest)) / it;
        double per_red = (double)res.reductions / it;
        double t_iter = t_solve / it * 1e6;
        /* the solve's time in reduction calls (start, test, wait), mean over
         * ranks: what of the reductions was not hidden */
        double in_red = 0.0;
        for (int k = OVK_TIMER_SDOTP_INIT; k <= OVK_TIMER_IPROD_WAIT; k++) in_red += res.time_mean[k];
        double exposed = in_red / it * 1e6;
        double full = per_red * t_ar * 1e6;
        printf("SMPI_RESULT solver=%s backend=%s ranks=%d nlocal=%d iters=%d t_iter_us=%.3f "
               "compute_us=%.3f halo_us=%.3f allreduce_us=%.3f reductions_per_iter=%.2f red_exposed_us=%.3f hidden=%.3f "
               "setup_s=%.6f solve_s=%.6f matvecs=%ld precs=%ld\n",
               b->solver, b->backend, size, b->nlocal, res.iterations, t_iter, compute, t_halo * 1e6,
               t_ar * 1e6, per_red, exposed, full > 0 ? 1.0 - exposed / full : 0.0, t_setup, t_solve, b->mv_calls, b->pc_calls);
    }
done:
    ovk_solver_destroy(&s);
    ovk_vector_destroy(rhs);
    ovk_vector_destroy(x);
    return rc;
}

int main(int argc, char **argv)
{
    bench b = {.n = {10, 10, 10}, .P = {1, 1, 1}, .maxit = 1000, .solver = "alg1", .backend = "blocking",
               .tol = 1e-7};
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int rc = parse(argc, argv, &b);
    if (rc) {
        if (rank == 0) fprintf(stderr, "ovk_smpi_bench: bad arguments (see the header of ovk_smpi_bench.c)\n");
        MPI_Finalize();
        return 2;
    }
    rc = run(&b, rank, size);
    if (rc && rank == 0) fprintf(stderr, "ovkrylov error: %s: %s\n", ovk_strerror(rc), ovk_error_detail());
    ovk_vector_destroy(b.vin);
    ovk_vector_destroy(b.vout);
    ovk_matrix_destroy(b.A);
    MPI_Finalize();
    return rc ? 1 : 0;
}

/* ovk_loop_bench: a time loop on a Matrix Market file whose values change
 * every step on the same pattern, as an application drives ovkrylov: one
 * solver for the whole loop, ovk_matrix_update_values before each step,
 * then ovk_solver_solve, which first redoes the numeric setup (with amg a
 * full setup, or with reuse=K the Galerkin products on the kept
 * interpolation): its time is the solve call's wall time less the solve's
 * own timer, as examples/ovk_heat.c counts it.  The peer is bench/peers/petsc_loop.c
 * (the same matrices, b and stopping test); bench/amg/amg_loop.sh runs both.
 *
 *   mpiexec -n 2 ovk_loop_bench -f FILE.mtx [-steps S] [-eps E] [-tol T]
 *                               [-maxit N] [-solver NAME] [-precond SPEC] [-rhs random] [-view]
 *
 * Step s (0 <= s < S) solves with A_s = D_s A D_s, A the file's values,
 * d_i = 1 + E sin(8 pi i / N + s / 2) (i the global row, N the rows;
 * default E = 0.03): SPD, a_ij moving by up to about 3 % per step
 * (bench/loop_scaling.h, petsc_loop.c's too).  Rows split as ovk_mm_read
 * splits them; b_i: SplitMix64 of the global row (ovk_mtx_solve's -rhs
 * random), the same every step; x0 = 0; stop at ||r|| < T ||b|| (1e-8).
 * Defaults: -solver cg1 -precond amg, 20 steps.
 *
 * Prints per step `step s: N iterations, setup T s, solve T s` and in the
 * end Iterations (the sum), Final Relative Residual Norm (the last step's),
 * Update Time (building the step's values and ovk_matrix_update_values),
 * Setup Time and Solve Time (sums over the steps, slowest rank each).
 * Exits 1 when a step fails, 2 on bad usage. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ovkrylov/ovkrylov.h>

#include "bench_common.h"
#include "../examples/common/experiment.h"
#include "loop_scaling.h"

enum { EXIT_USAGE = 2, HEADER_LINE = 1024 };

typedef struct loop_args {
    const char *file, *solver, *precond;
    long steps, maxit;
    double eps, tol;
    int view;
} loop_args;

static const char *parse(int argc, char **argv, loop_args *a)
{
    *a = (loop_args){.solver = "cg1", .precond = "amg", .steps = LOOP_DEFAULT_STEPS, .maxit = LOOP_DEFAULT_MAXIT,
                     .eps = LOOP_DEFAULT_EPS, .tol = LOOP_DEFAULT_TOL};
    for (int i = 1; i < argc; i++) {
        const char *f = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(f, "-view")) {
            a->view = 1;
            continue;
        }
        if (!v) return f;
        i++;
        if (!strcmp(f, "-f")) a->file = v;
        else if (!strcmp(f, "-solver")) a->solver = v;
        else if (!strcmp(f, "-precond")) a->precond = v;
        else if (!strcmp(f, "-rhs")) { /* the peers' flag: random is the one b here */
            if (strcmp(v, "random")) return f;
        }
        else if (!strcmp(f, "-steps")) {
            if (ovk_bench_long(v, 1, 100000, &a->steps)) return f;
        } else if (!strcmp(f, "-maxit")) {
            if (ovk_bench_long(v, 1, 100000000, &a->maxit)) return f;
        } else if (!strcmp(f, "-eps")) {
            if (ovk_bench_double(v, &a->eps) || !(a->eps >= 0.0 && a->eps < 0.5)) return f;
        } else if (!strcmp(f, "-tol")) {
            if (ovk_bench_double(v, &a->tol) || !(a->tol > 0.0)) return f;
        } else return f;
    }
    return a->file ? NULL : "-f";
}

/* The number of rows from the file's size line (rank 0, broadcast); -1 when unreadable. */
static long long file_rows(const char *path)
{
    long long n = -1, cols, nnz;
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        FILE *f = fopen(path, "r");
        char line[HEADER_LINE];
        while (f && fgets(line, sizeof line, f))
            if (line[0] != '%') {
                if (sscanf(line, "%lld %lld %lld", &n, &cols, &nnz) != 3) n = -1;
                break;
            }
        if (f) fclose(f);
    }
    MPI_Bcast(&n, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
    return n;
}

/* The local rows of the file: CSR, its values, and the step's values. */
typedef struct rows {
    ovk_gidx lo, n;
    int nl, *rowptr;
    ovk_gidx *cols;
    double *vals0, *vals, *d; /* d: the step's row scales, indexed by global column */
} rows;

/* vals = D_s vals0 D_s (d over all N rows: each rank's columns may be anywhere) */
static void step_values(rows *r, long step, double eps)
{
    for (ovk_gidx i = 0; i < r->n; i++) r->d[i] = loop_row_scale(i, r->n, step, eps);
    for (int i = 0; i < r->nl; i++)
        for (int p = r->rowptr[i]; p < r->rowptr[i + 1]; p++)
            r->vals[p] = r->vals0[p] * r->d[r->lo + i] * r->d[r->cols[p]];
}

static int read_rows(const char *path, rows *r)
{
    int rank, size, nl = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    memset(r, 0, sizeof *r);
    long long n = file_rows(path);
    if (n <= 0) return OVK_EFILE;
    r->lo = (ovk_gidx)(n * rank / size);
    r->nl = (int)(n * (rank + 1) / size - r->lo);
    int rc = ovk_mm_read_rows(path, r->lo, r->nl, &r->n, &nl, &r->rowptr, &r->cols, &r->vals0);
    if (!rc && r->rowptr[0] != 0) rc = OVK_EFORMAT; /* ovk_mm_read_rows starts at 0 */
    size_t nnz = rc ? 0 : (size_t)r->rowptr[r->nl];
    if (!rc) {
        r->vals = malloc(sizeof(double) * (nnz ? nnz : 1));
        r->d = malloc(sizeof(double) * (size_t)r->n);
        if (!r->vals || !r->d) rc = OVK_ENOMEM;
    }
    MPI_Allreduce(MPI_IN_PLACE, &rc, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return rc;
}

static void free_rows(rows *r)
{
    free(r->rowptr), free(r->cols), free(r->vals0), free(r->vals), free(r->d);
}

static int make_solver(const loop_args *a, const ovk_matrix *A, ovk_solver **s)
{
    int rc = ovk_solver_create(A, s);
    if (!rc) rc = ovk_solver_set_option(*s, "solver", a->solver);
    if (!rc) rc = ovk_solver_set_option(*s, "precond", a->precond);
    if (!rc) rc = ovk_solver_set_option(*s, "initial_guess_zero", "1");
    if (!rc) rc = ovk_solver_set_tolerances(*s, a->tol, 0.0, (int)a->maxit);
    return rc;
}

typedef struct totals {
    long long iterations;
    double update, setup, solve, rel;
} totals;

/* One step: the new values (but at step 0, built with them), setup, solve. */
static int one_step(const loop_args *a, rows *r, ovk_matrix *A, ovk_solver *s, ovk_vector *b, ovk_vector *x,
                    long step, totals *t)
{
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    double t0 = ovk_bench_sync();
    step_values(r, step, a->eps);
    int rc = step ? ovk_matrix_update_values(A, r->rowptr, r->cols, r->vals, OVK_DUP_SUM) : OVK_OK;
    double tu = ovk_bench_slowest(MPI_Wtime() - t0);
    if (rc) return rc;
    t0 = ovk_bench_sync();
    rc = ovk_solver_setup(s);
    double ts = ovk_bench_slowest(MPI_Wtime() - t0);
    if (rc) return rc;
    ovk_pcg_result res;
    t0 = ovk_bench_sync();
    rc = ovk_solver_solve(s, b, x, &res);
    double tw = ovk_bench_slowest(MPI_Wtime() - t0), tv = res.time_max[OVK_TIMER_SOLVE];
    ts += tw - tv; /* the numeric setup of the new values runs inside the solve call */
    if (rank == 0) printf("step %ld: %d iterations, setup %.4f s, solve %.4f s\n", step, res.iterations, ts, tv);
    t->iterations += res.iterations, t->update += tu, t->setup += ts, t->solve += tv, t->rel = res.rel_residual;
    return rc;
}

static int run_loop(const loop_args *a, rows *r, totals *t)
{
    ovk_matrix *A = NULL;
    ovk_solver *s = NULL;
    ovk_vector *b = NULL, *x = NULL;
    step_values(r, 0, a->eps);
    int rc = ovk_matrix_create_csr(MPI_COMM_WORLD, r->lo, r->nl, r->rowptr, r->cols, r->vals, OVK_DUP_SUM, &A);
    if (!rc) rc = make_solver(a, A, &s);
    if (!rc) rc = ovk_vector_create(A, &b);
    if (!rc) rc = ovk_vector_create(A, &x);
    if (rc) goto cleanup;
    double *bv = ovk_vector_data(b);
    for (int i = 0; i < r->nl; i++) bv[i] = ovk_drv_random_entry(r->lo + i);
    for (long step = 0; step < a->steps && !rc; step++) rc = one_step(a, r, A, s, b, x, step, t);
    if (!rc && a->view) rc = ovk_solver_view(s, stdout);
cleanup:
    ovk_vector_destroy(b);
    ovk_vector_destroy(x);
    ovk_solver_destroy(&s);
    ovk_matrix_destroy(A);
    return rc;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, rc;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    loop_args a;
    const char *bad = parse(argc, argv, &a);
    if (bad) {
        if (rank == 0)
            fprintf(stderr, "ovk_loop_bench: bad or missing %s; usage: ovk_loop_bench -f FILE.mtx [-steps S] [-eps E] "
                            "[-tol T] [-maxit N] [-solver NAME] [-precond SPEC] [-view]\n", bad);
        MPI_Finalize();
        return EXIT_USAGE;
    }
    rows r;
    totals t = {0};
    rc = read_rows(a.file, &r);
    if (!rc) {
        if (rank == 0)
            printf("Matrix = %s: %lld rows; %ld steps, eps %g; %s + %s\n", a.file, (long long)r.n, a.steps, a.eps,
                   a.solver, a.precond);
        rc = run_loop(&a, &r, &t);
    }
    if (rank == 0 && rc) fprintf(stderr, "ovk_loop_bench: %s: %s\n", ovk_strerror(rc), ovk_error_detail());
    if (rank == 0 && !rc)
        printf("Iterations = %lld\nFinal Relative Residual Norm = %e\nUpdate Time = %.6f s\nSetup Time = %.6f s\n"
               "Solve Time = %.6f s\n", t.iterations, t.rel, t.update, t.setup, t.solve);
    free_rows(&r);
    MPI_Finalize();
    return rc ? 1 : 0;
}

/* ovk_laplace27: the 27-point (or 7-point) Laplace driver, with flags in the
 * style of hypre's ij driver; -problem convdiff solves 3-D convection-diffusion
 * (7-point, nonsymmetric: -solver bicgstab or pipebicgstab) instead.  Prints,
 * on rank 0,
 *   Iterations = N
 *   Final Relative Residual Norm = R
 *   Solve Time = T s
 * and exits 0 when the solve converged, 1 when it did not or failed, 2 on
 * bad usage. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ovkrylov/ovkrylov.h>

#include "common/experiment.h"

typedef struct args {
    int n[3], P[3], stencil, timing, print_level, random_rhs, list_backends, list_precond, help, progress;
    const char *solver, *backend, *problem, *scheme, *bc;
    double tol, peclet, velocity[3];
    int maxit;
    ovk_drv_experiment ex;
} args;

static void usage(FILE *f)
{
    fprintf(f,
            "usage: ovk_laplace27 [flags]\n"
            "  -n nx ny nz          grid points per process (default 40 40 40)\n"
            "  -P px py pz          process grid (default: balanced, MPI_Dims_create)\n"
            "  -stencil 27|7        stencil (default 27)\n"
            "  -problem NAME        laplace (default) or convdiff: -laplace(u) + Pe v . grad(u) on the\n"
            "                       unit cube, 7-point, Dirichlet, rows scaled by h^2 (nonsymmetric:\n"
            "                       use -solver bicgstab or pipebicgstab)\n"
            "  -peclet PE           convdiff: Peclet number (default 100; cell Peclet PE |v| h / 2)\n"
            "  -velocity vx vy vz   convdiff: the constant velocity field (default 1 1 1)\n"
            "  -scheme NAME         convdiff: upwind (default) or central differences for the convection\n"
            "  -bc dirichlet|neumann  laplace: boundaries (default dirichlet); neumann is singular (row sums\n"
            "                       zero, the constants its null space): with -nullspace constant\n"
            "  -solver NAME         solver (default alg1):");
    for (int i = 0; i < ovk_solver_type_count(); i++) fprintf(f, " %s", ovk_solver_type_name(i));
    fprintf(f,
            "\n"
            "  -backend SPEC        reduction backend name[:key=value,...] (default: $OVK_REDUCE_BACKEND\n"
            "                       or blocking); -backend list shows them\n"

            "  -tol T               relative residual tolerance (default 1e-8)\n"
            "  -maxit N             iteration limit (default 1000)\n"
            "  -rhs ones|random     right-hand side (default ones); x0 = 0\n"
            "  -progress K          drive reductions every K rows in long kernels (0 default, -1 off)\n"
            "  -timing              print the time breakdown\n");
    ovk_drv_usage(f);
    fprintf(f,
            "  -print_level 0|1|2   2: residual every iteration\n"
            "  -help                this text\n");
}

static int parse_ints(int argc, char **argv, int *i, int count, int *out)
{
    for (int k = 0; k < count; k++) {
        char *end = NULL;
        if (*i + 1 >= argc) return -1;
        long v = strtol(argv[++*i], &end, 10);
        if (*end || v < -1000000000L || v > 1000000000L) return -1;
        out[k] = (int)v;
    }
    return 0;
}

static int parse_double(int argc, char **argv, int *i, double *out)
{
    char *end = NULL;
    if (*i + 1 >= argc) return -1;
    *out = strtod(argv[++*i], &end);
    return *end ? -1 : 0;
}

static int parse_doubles(int argc, char **argv, int *i, int count, double *out)
{
    for (int k = 0; k < count; k++)
        if (parse_double(argc, argv, i, &out[k])) return -1;
    return 0;
}

static int parse_word(int argc, char **argv, int *i, const char **out)
{
    if (*i + 1 >= argc) return -1;
    *out = argv[++*i];
    return 0;
}

/* Returns 0, or -1 with the offending flag in *bad. */
static int parse_args(int argc, char **argv, args *a, const char **bad)
{
    const char *rhs = "ones";
    for (int i = 1; i < argc; i++) {
        const char *f = argv[i];
        int rc = 0;
        *bad = f;
        int shared = ovk_drv_parse_flag(argc, argv, &i, &a->ex);
        if (shared) rc = shared < 0 ? -1 : 0;
        else if (!strcmp(f, "-n")) rc = parse_ints(argc, argv, &i, 3, a->n);
        else if (!strcmp(f, "-P")) rc = parse_ints(argc, argv, &i, 3, a->P);
        else if (!strcmp(f, "-stencil")) rc = parse_ints(argc, argv, &i, 1, &a->stencil);
        else if (!strcmp(f, "-problem")) rc = parse_word(argc, argv, &i, &a->problem);
        else if (!strcmp(f, "-scheme")) rc = parse_word(argc, argv, &i, &a->scheme);
        else if (!strcmp(f, "-bc")) rc = parse_word(argc, argv, &i, &a->bc);
        else if (!strcmp(f, "-peclet")) rc = parse_double(argc, argv, &i, &a->peclet);
        else if (!strcmp(f, "-velocity")) rc = parse_doubles(argc, argv, &i, 3, a->velocity);
        else if (!strcmp(f, "-solver")) rc = parse_word(argc, argv, &i, &a->solver);
        else if (!strcmp(f, "-backend")) rc = parse_word(argc, argv, &i, &a->backend);
        else if (!strcmp(f, "-tol")) rc = parse_double(argc, argv, &i, &a->tol);
        else if (!strcmp(f, "-maxit")) rc = parse_ints(argc, argv, &i, 1, &a->maxit);
        else if (!strcmp(f, "-rhs")) rc = parse_word(argc, argv, &i, &rhs);
        else if (!strcmp(f, "-progress")) rc = parse_ints(argc, argv, &i, 1, &a->progress);
        else if (!strcmp(f, "-print_level")) rc = parse_ints(argc, argv, &i, 1, &a->print_level);
        else if (!strcmp(f, "-timing")) a->timing = 1;
        else if (!strcmp(f, "-help") || !strcmp(f, "--help")) a->help = 1;
        else rc = -1;
        if (rc) return -1;
    }
    if (strcmp(rhs, "ones") && strcmp(rhs, "random")) {
        *bad = "-rhs (want ones or random)";
        return -1;
    }
    if (strcmp(a->problem, "laplace") && strcmp(a->problem, "convdiff")) {
        *bad = "-problem (want laplace or convdiff)";
        return -1;
    }
    if (strcmp(a->scheme, "upwind") && strcmp(a->scheme, "central")) {
        *bad = "-scheme (want upwind or central)";
        return -1;
    }
    if (strcmp(a->bc, "dirichlet") && strcmp(a->bc, "neumann")) {
        *bad = "-bc (want dirichlet or neumann)";
        return -1;
    }
    if (!strcmp(a->bc, "neumann") && !strcmp(a->problem, "convdiff")) {
        *bad = "-bc neumann (the laplace problem only)";
        return -1;
    }
    if (a->ex.nullspace && strcmp(a->ex.nullspace, "constant")) {
        *bad = "-nullspace (want constant)";
        return -1;
    }
    if (!strcmp(a->problem, "convdiff")) a->stencil = 7;
    a->random_rhs = !strcmp(rhs, "random");
    a->list_backends = a->backend && !strcmp(a->backend, "list");
    a->list_precond = a->ex.precond && !strcmp(a->ex.precond, "list");
    return 0;
}

/* A deterministic pseudo-random value in [0, 1) per global row, so that the
 * right-hand side does not depend on the number of ranks. */
static double hash_unit(uint64_t g)
{
    g += 0x9E3779B97F4A7C15ull;
    g = (g ^ (g >> 30)) * 0xBF58476D1CE4E5B9ull;
    g = (g ^ (g >> 27)) * 0x94D049BB133111EBull;
    g ^= g >> 31;
    return (double)(g >> 11) * (1.0 / 9007199254740992.0);
}

static int check_grid(const args *a, int size, int rank)
{
    long long prod = (long long)a->P[0] * a->P[1] * a->P[2];
    if (a->n[0] < 1 || a->n[1] < 1 || a->n[2] < 1) {
        if (rank == 0) fprintf(stderr, "ovk_laplace27: -n values must be >= 1\n");
        return -1;
    }
    if (a->P[0] < 1 || a->P[1] < 1 || a->P[2] < 1 || prod != size) {
        if (rank == 0)
            fprintf(stderr, "ovk_laplace27: -P %d %d %d needs %lld ranks, but %d are running\n", a->P[0],
                    a->P[1], a->P[2], prod, size);
        return -1;
    }
    if (a->stencil != 27 && a->stencil != 7) {
        if (rank == 0) fprintf(stderr, "ovk_laplace27: -stencil must be 27 or 7\n");
        return -1;
    }
    return 0;
}

static void report_error(int rank, int rc)
{
    if (rank == 0) fprintf(stderr, "ovkrylov error: %s: %s\n", ovk_strerror(rc), ovk_error_detail());
}

/* The solve, with the experiment flags (noise, CSV row). */
static int solve(const args *a, const ovk_matrix *A, const ovk_vector *b, ovk_vector *x,
                 const ovk_solve_options *opts, ovk_result *res)
{
    int convdiff = !strcmp(a->problem, "convdiff");
    int neumann = !strcmp(a->bc, "neumann");
    ovk_drv_run r = {.problem = convdiff ? "convdiff"
                                : a->stencil == 7 ? (neumann ? "laplace7-neumann" : "laplace7")
                                                  : (neumann ? "laplace27-neumann" : "laplace27"),
                     .nx = (long long)a->n[0] * a->P[0],
                     .ny = (long long)a->n[1] * a->P[1],
                     .nz = (long long)a->n[2] * a->P[2]};
    return ovk_drv_solve(&a->ex, &r, a->print_level >= 1, A, b, x, opts, res);
}

static int run(const args *a, int rank, int size)
{
    ovk_matrix *A = NULL;
    ovk_reducer *red = NULL;
    ovk_vector *b = NULL, *x = NULL;
    ovk_solve_options opts;
    ovk_result res;
    int convdiff = !strcmp(a->problem, "convdiff");
    int rc = convdiff ? ovk_convdiff_create(MPI_COMM_WORLD, a->n[0], a->n[1], a->n[2], a->P[0], a->P[1], a->P[2],
                                            a->velocity, a->peclet,
                                            strcmp(a->scheme, "central") ? OVK_CONVDIFF_UPWIND : OVK_CONVDIFF_CENTRAL, &A)
           : !strcmp(a->bc, "neumann")
               ? ovk_laplace_create_neumann(MPI_COMM_WORLD, (ovk_stencil)a->stencil, a->n[0], a->n[1], a->n[2], a->P[0],
                                            a->P[1], a->P[2], &A)
               : ovk_laplace_create(MPI_COMM_WORLD, (ovk_stencil)a->stencil, a->n[0], a->n[1], a->n[2], a->P[0],
                                    a->P[1], a->P[2], &A);
    if (!rc) rc = ovk_drv_reducer(MPI_COMM_WORLD, a->backend, &a->ex, &red);
    if (rc) goto cleanup;
    rc = ovk_vector_create(A, &b);
    if (!rc) rc = ovk_vector_create(A, &x);
    rc = ovk_drv_agree(rc); /* vector creation is local */
    if (rc) goto cleanup;
    double *bd = ovk_vector_data(b);
    for (int i = 0; i < ovk_vector_nlocal(b); i++)
        bd[i] = a->random_rhs ? hash_unit((uint64_t)(ovk_matrix_row_start(A) + i)) : 1.0;
    ovk_solve_options_init(&opts);
    opts.solver = a->solver;
    opts.reducer = red;
    opts.backend = a->backend; /* when red is NULL: NULL is $OVK_REDUCE_BACKEND, else blocking */
    ovk_drv_apply(&a->ex, &opts);
    opts.rtol = a->tol;
    opts.max_it = a->maxit;
    opts.print_level = a->print_level;
    opts.progress_every = a->progress;
    char solver[128];
    int named = 0; /* -ovk_solver of the options database overrides -solver */
    if (ovk_options_get("-ovk_solver", solver, sizeof solver, &named) || !named)
        snprintf(solver, sizeof solver, "%s", a->solver);
    if (rank == 0 && a->print_level >= 1 && convdiff)
        printf("ovk_laplace27: convection-diffusion, Peclet %g, velocity (%g, %g, %g), %s differences\n", a->peclet,
               a->velocity[0], a->velocity[1], a->velocity[2], a->scheme);
    if (rank == 0 && a->print_level >= 1)
        printf("ovk_laplace27: %d-point %s%s, global grid %lld x %lld x %lld (%lld rows), %d ranks "
               "(%d x %d x %d), solver %s\n",
               a->stencil, convdiff ? "operator" : "Laplacian", strcmp(a->bc, "neumann") ? "" : " (pure Neumann)",
               (long long)a->n[0] * a->P[0], (long long)a->n[1] * a->P[1],
               (long long)a->n[2] * a->P[2], (long long)ovk_matrix_nglobal(A), size, a->P[0], a->P[1],
               a->P[2], solver);
    rc = solve(a, A, b, x, &opts, &res);
    if (rank == 0 && res.reason != OVK_REASON_NONE) {
        printf("Iterations = %d\n", res.iterations);
        printf("Final Relative Residual Norm = %e\n", res.rel_residual);
        printf("Solve Time = %.6f s\n", res.time_max[OVK_TIMER_SOLVE]);
        ovk_drv_print(&a->ex, &res);
        if (a->timing) ovk_pcg_print_timing(stdout, &res);
    }
cleanup:
    if (rc) report_error(rank, rc);
    ovk_reducer_destroy(red);
    ovk_vector_destroy(b);
    ovk_vector_destroy(x);
    ovk_matrix_destroy(A);
    return rc ? 1 : 0;
}

int main(int argc, char **argv)
{
    int rank = 0, size = 1, status = 0;
    const char *bad = NULL;
    args a = {.n = {40, 40, 40}, .stencil = 27, .solver = "alg1", .tol = 1e-8, .maxit = 1000, .problem = "laplace",
              .scheme = "upwind", .bc = "dirichlet", .peclet = 100.0, .velocity = {1.0, 1.0, 1.0}};
    ovk_drv_mpi_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Dims_create(size, 3, a.P);
    if (parse_args(argc, argv, &a, &bad)) {
        if (rank == 0) {
            fprintf(stderr, "ovk_laplace27: bad or unknown flag: %s\n", bad);
            usage(stderr);
        }
        status = 2;
    } else if (a.help) {
        if (rank == 0) usage(stdout);
    } else if (a.list_backends) {
        if (rank == 0) ovk_backend_print(stdout);
    } else if (a.list_precond) {
        if (rank == 0) ovk_precond_print(stdout);
    } else if (check_grid(&a, size, rank)) {
        status = 2;
    } else {
        status = run(&a, rank, size);
    }
    ovk_options_finalize(); /* -ovk_options_left */
    MPI_Finalize();
    return status;
}

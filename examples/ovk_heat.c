/* ovk_heat: implicit Euler for the 3-D heat equation u_t = k(t) lap(u) + 1
 * on a box of n^3 points per rank (Dirichlet 0 outside), the way a
 * time-stepping application uses ovkrylov:
 *
 *   (I + dt k(t) L) u_{m+1} = u_m + dt,   k(t) = 1 + sin(t)/2,  L = 7-point
 *
 * The solver object is created and set up once; every `-update K` steps the
 * matrix gets the new k(t) on the same pattern (ovk_matrix_update_values)
 * and the next solve redoes only the numeric setup; the previous solution is
 * the initial guess.  -varcoef W replaces k(t) by a field varying in space
 * that moves a little every update (a time loop whose values change on a
 * fixed pattern: `-precond amg:reuse=K` keeps the hierarchy's interpolation).  -matfree runs the same steps through the operator
 * callback with this file's own stencil and halo exchange (and its own
 * Jacobi callback for -precond jacobi); -oneshot calls ovk_solve every
 * step instead, the full setup each time, for comparison.  The solver
 * object's options also come from -ovk_KEY VALUE and $OVK_OPTIONS (they
 * override -solver, -backend, -precond, -tol; not with -oneshot, whose
 * ovk_solve takes no options database).  examples/ovk_heat_port.c is
 * a shorter program written with the database only.
 *
 * Prints one line per step on rank 0, then Setup Time (setup, value updates
 * and numeric re-setups) and Solve Time (the solves), summed over the steps.
 * Exits 0 when every step converged, 1 otherwise, 2 on bad usage. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ovkrylov/ovkrylov.h>

#include "common/experiment.h"

typedef struct args {
    int n, steps, update, matfree, oneshot;
    double dt, tol, wave; /* wave > 0: -varcoef, the coefficient field's speed */
    const char *solver, *backend;
    ovk_drv_experiment ex;
    ovk_reducer *red; /* with the latency model of the flags, if any */
} args;

/* the rank's box and its neighbours in the process grid */
typedef struct box {
    int n, P[3], c[3], rank;
    int nb[6];          /* neighbour ranks (-x, +x, -y, +y, -z, +z) or MPI_PROC_NULL */
    MPI_Comm comm;
    double *ghost[6];   /* received faces, n*n each */
    double *send[6];
    double k_dt;        /* dt k(t) of the current matrix */
    double wave, t;     /* -varcoef: the field's speed (0: constant in space) and the matrix's time */
    int every;          /* planes between progress calls (matrix-free) */
    ovk_solver *s;      /* for ovk_solver_progress inside the callback */
} box;

static double conductivity(double t) { return 1.0 + 0.5 * sin(t); }

/* -varcoef: k(x, t) = 1 + sin(0.4 X + 0.3 Y + 0.2 Z + wave t) / 2 at grid
 * point (X, Y, Z): a field between 1/2 and 3/2 that moves by about wave dt
 * (relative) per step */
static double field(const box *b, const int c[3], const int p[3])
{
    double X = (double)c[0] * b->n + p[0], Y = (double)c[1] * b->n + p[1], Z = (double)c[2] * b->n + p[2];
    return 1.0 + 0.5 * sin(0.4 * X + 0.3 * Y + 0.2 * Z + b->wave * b->t);
}

static void usage(FILE *f)
{
    fprintf(f, "usage: ovk_heat [-n N] [-steps S] [-update K] [-dt DT] [-tol T] [-solver NAME] [-backend SPEC]\n"
               "                [-precond SPEC] [-matfree] [-oneshot] [-ovk_KEY VALUE ...] [shared flags]\n"
               "  -n N        points per rank along each axis (20)\n"
               "  -steps S    time steps (20)\n"
               "  -update K   new conductivity values every K steps (5)\n"
               "  -dt DT      time step (2)\n"
               "  -varcoef W  a coefficient field varying in space that moves by about W dt per update\n"
               "              (instead of k(t) = 1 + sin(t)/2; not with -matfree)\n"
               "  -matfree    apply the operator through the callback (own stencil and halo)\n"
               "  -oneshot    ovk_solve every step (full setup each time)\n");
    ovk_drv_usage(f);
}

static int parse(int argc, char **argv, args *a)
{
    for (int i = 1; i < argc; i++) {
        const char *f = argv[i];
        int shared = ovk_drv_parse_flag(argc, argv, &i, &a->ex);
        if (shared) {
            if (shared < 0) return -1;
            continue;
        }
        if (!strcmp(f, "-matfree")) a->matfree = 1;
        else if (!strcmp(f, "-oneshot")) a->oneshot = 1;
        else if (i + 1 >= argc) return -1;
        else if (!strcmp(f, "-n")) a->n = atoi(argv[++i]);
        else if (!strcmp(f, "-steps")) a->steps = atoi(argv[++i]);
        else if (!strcmp(f, "-update")) a->update = atoi(argv[++i]);
        else if (!strcmp(f, "-dt")) a->dt = atof(argv[++i]);
        else if (!strcmp(f, "-varcoef")) a->wave = atof(argv[++i]);
        else if (!strcmp(f, "-tol")) a->tol = atof(argv[++i]);
        else if (!strcmp(f, "-solver")) a->solver = argv[++i];
        else if (!strcmp(f, "-backend")) a->backend = argv[++i];
        else return -1;
    }
    if (a->n < 1 || a->steps < 1 || a->update < 1 || !(a->dt > 0.0) || !(a->tol > 0.0) || !(a->wave >= 0.0)) return -1;
    return (a->matfree && (a->oneshot || a->wave > 0.0)) ? -1 : 0;
}

static int box_init(box *b, int n)
{
    int size = 0, period[3] = {0, 0, 0};
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    b->n = n;
    b->P[0] = b->P[1] = b->P[2] = 0;
    MPI_Dims_create(size, 3, b->P);
    MPI_Cart_create(MPI_COMM_WORLD, 3, b->P, period, 0, &b->comm);
    MPI_Comm_rank(b->comm, &b->rank);
    MPI_Cart_coords(b->comm, b->rank, 3, b->c);
    for (int d = 0; d < 3; d++) MPI_Cart_shift(b->comm, d, 1, &b->nb[2 * d], &b->nb[2 * d + 1]);
    int ok = 1;
    for (int f = 0; f < 6; f++) {
        b->ghost[f] = calloc((size_t)n * n, sizeof(double));
        b->send[f] = calloc((size_t)n * n, sizeof(double));
        ok = ok && b->ghost[f] && b->send[f];
    }
    return ok ? 0 : OVK_ENOMEM;
}

static void box_free(box *b)
{
    for (int f = 0; f < 6; f++) {
        free(b->ghost[f]);
        free(b->send[f]);
    }
    MPI_Comm_free(&b->comm);
}

/* global id of local point (i, j, k) of the box at grid coordinates c:
 * boxes numbered by rank of MPI_COMM_WORLD order, x fastest inside */
static ovk_gidx gid(const box *b, const int c[3], int i, int j, int k)
{
    int r = (c[0] * b->P[1] + c[1]) * b->P[2] + c[2]; /* MPI_Cart_rank: row-major, no reorder */
    return (ovk_gidx)r * b->n * b->n * b->n + ((ovk_gidx)k * b->n + j) * b->n + i;
}

/* rows of I + dt k L on the box (7-point, neighbours across box faces;
 * -varcoef: the face between points p and q has dt (k_p + k_q) / 2, the
 * Dirichlet faces too) */
static int assemble(const box *b, double k_dt, int **rowptr, ovk_gidx **cols, double **vals)
{
    int n = b->n, rows = n * n * n, e = 0;
    *rowptr = malloc(sizeof(int) * ((size_t)rows + 1));
    *cols = malloc(sizeof(ovk_gidx) * (size_t)rows * 7);
    *vals = malloc(sizeof(double) * (size_t)rows * 7);
    if (!*rowptr || !*cols || !*vals) return OVK_ENOMEM;
    static const int off[6][3] = {{-1, 0, 0}, {1, 0, 0}, {0, -1, 0}, {0, 1, 0}, {0, 0, -1}, {0, 0, 1}};
    for (int k = 0, row = 0; k < n; k++)
        for (int j = 0; j < n; j++)
            for (int i = 0; i < n; i++, row++) {
                int here[3] = {i, j, k}, diag = e++;
                double k_here = b->wave > 0.0 ? field(b, b->c, here) : 1.0, sum = 0.0;
                for (int f = 0; f < 6; f++) {
                    int p[3] = {i + off[f][0], j + off[f][1], k + off[f][2]}, c[3] = {b->c[0], b->c[1], b->c[2]};
                    int d = f / 2;
                    double face = b->wave > 0.0 ? 0.5 * (k_here + field(b, c, p)) * k_dt : k_dt;
                    sum += face;
                    if (p[d] < 0 || p[d] >= n) { /* across a face: the neighbour box, if any */
                        if (b->nb[f] == MPI_PROC_NULL) continue;
                        c[d] += off[f][d];
                        p[d] = (p[d] + n) % n;
                    }
                    (*cols)[e] = gid(b, c, p[0], p[1], p[2]);
                    (*vals)[e++] = -face;
                }
                (*rowptr)[row] = diag;
                (*cols)[diag] = gid(b, b->c, i, j, k);
                (*vals)[diag] = 1.0 + sum;
            }
    (*rowptr)[rows] = e;
    return OVK_OK;
}

/* ---- the matrix-free operator: own halo exchange and stencil ---------------- */

static double at(const box *b, const double *x, int i, int j, int k)
{
    int n = b->n;
    if (i < 0) return b->ghost[0][k * n + j];
    if (i >= n) return b->ghost[1][k * n + j];
    if (j < 0) return b->ghost[2][k * n + i];
    if (j >= n) return b->ghost[3][k * n + i];
    if (k < 0) return b->ghost[4][j * n + i];
    if (k >= n) return b->ghost[5][j * n + i];
    return x[((size_t)k * n + j) * n + i];
}

/* face f of x into send[f], in the order at() reads the ghosts */
static void pack(box *b, const double *x, int f)
{
    int n = b->n, side = (f % 2) ? n - 1 : 0;
    for (int p = 0; p < n; p++)
        for (int q = 0; q < n; q++) {
            int i = q, j = q, k = p;
            if (f < 2) i = side;             /* (k, j) */
            else if (f < 4) j = side;        /* (k, i) */
            else k = side, j = p;            /* (j, i) */
            b->send[f][p * n + q] = x[((size_t)k * n + j) * n + i];
        }
}

static int halo(box *b, const double *x)
{
    MPI_Request req[12];
    int n2 = b->n * b->n;
    for (int f = 0; f < 6; f++) {
        pack(b, x, f);
        MPI_Irecv(b->ghost[f], n2, MPI_DOUBLE, b->nb[f], f ^ 1, b->comm, &req[f]);
        MPI_Isend(b->send[f], n2, MPI_DOUBLE, b->nb[f], f, b->comm, &req[6 + f]);
    }
    return MPI_Waitall(12, req, MPI_STATUSES_IGNORE) == MPI_SUCCESS ? 0 : OVK_EMPI;
}

/* y = (I + dt k L) x */
static int apply_op(ovk_solver *s, const double *x, double *y, void *ctx)
{
    box *b = ctx;
    int n = b->n, rc = halo(b, x);
    if (rc) return rc;
    double d = 1.0 + 6.0 * b->k_dt, o = b->k_dt;
    for (int k = 0; k < n; k++) {
        for (int j = 0; j < n; j++)
            for (int i = 0; i < n; i++) {
                double nb = at(b, x, i - 1, j, k) + at(b, x, i + 1, j, k) + at(b, x, i, j - 1, k) +
                            at(b, x, i, j + 1, k) + at(b, x, i, j, k - 1) + at(b, x, i, j, k + 1);
                y[((size_t)k * n + j) * n + i] = d * x[((size_t)k * n + j) * n + i] - o * nb;
            }
        if (k % b->every == 0) ovk_solver_progress(s); /* reductions in flight keep moving */
    }
    return 0;
}

/* z = r / diag: Jacobi on the operator's diagonal */
static int apply_jacobi(ovk_solver *s, const double *r, double *z, void *ctx)
{
    box *b = ctx;
    double d = 1.0 + 6.0 * b->k_dt;
    (void)s;
    for (int i = 0; i < b->n * b->n * b->n; i++) z[i] = r[i] / d;
    return 0;
}

/* ---- the time loop -------------------------------------------------------------- */

typedef struct totals {
    double setup, solve;
    int failed;
} totals;

/* the options of the flags */
static void options(const args *a, ovk_solve_options *o)
{
    ovk_solve_options_init(o);
    ovk_drv_apply(&a->ex, o);
    o->solver = a->solver;
    o->backend = a->backend;
    o->reducer = a->red;
    o->tol = a->tol;
}

static int make_solver(const args *a, box *b, ovk_matrix *A, ovk_solver **s)
{
    ovk_solve_options o;
    options(a, &o);
    const char *pc = a->ex.precond ? a->ex.precond : "jacobi";
    int own_jacobi = a->matfree && (!strcmp(pc, "jacobi") || !strcmp(pc, "diag"));
    if (own_jacobi) o.precond_spec = "none"; /* replaced by the callback below */
    int rc = a->matfree ? ovk_solver_create_operator(MPI_COMM_WORLD, b->n * b->n * b->n, apply_op, b, s)
                        : ovk_drv_agree(ovk_solver_create(A, s));
    if (rc) return rc;
    b->s = *s;
    rc = ovk_solver_set_options(*s, &o);
    if (!rc && own_jacobi) rc = ovk_solver_set_precond_fn(*s, apply_jacobi, b);
    rc = ovk_drv_agree(rc);
    if (!rc) rc = ovk_solver_set_from_options(*s, NULL); /* -ovk_* override the flags */
    return rc ? rc : ovk_solver_setup(*s);
}

/* new values of k at time t: the matrix's, or the operator's (matrix-free) */
static int update_values(const args *a, box *b, ovk_matrix *A, double t)
{
    int *rowptr = NULL, rc = OVK_OK;
    ovk_gidx *cols = NULL;
    double *vals = NULL;
    b->k_dt = a->wave > 0.0 ? a->dt : a->dt * conductivity(t);
    b->t = t;
    if (!A) return OVK_OK;
    rc = ovk_drv_agree(assemble(b, b->k_dt, &rowptr, &cols, &vals));
    if (!rc) rc = ovk_matrix_update_values(A, rowptr, cols, vals, OVK_DUP_REJECT);
    free(rowptr);
    free(cols);
    free(vals);
    return rc;
}

static int step(const args *a, ovk_solver *s, const ovk_matrix *A, ovk_vector *b, ovk_vector *u, int m,
                totals *tot)
{
    ovk_result res;
    int rank = 0, rc;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int i = 0; i < ovk_vector_nlocal(b); i++) ovk_vector_data(b)[i] = ovk_vector_data_const(u)[i] + a->dt;
    double t0 = MPI_Wtime();
    if (a->oneshot) {
        ovk_solve_options o;
        options(a, &o);
        rc = ovk_solve(A, b, u, &o, &res);
    } else {
        rc = ovk_solver_solve(s, b, u, &res); /* u: the previous solution as initial guess */
    }
    double wall = MPI_Wtime() - t0, wall_max = 0.0;
    MPI_Allreduce(&wall, &wall_max, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    tot->solve += res.time_max[OVK_TIMER_SOLVE];
    tot->setup += wall_max - res.time_max[OVK_TIMER_SOLVE]; /* numeric re-setup, or a whole one-shot setup */
    if (rank == 0 && res.reason != OVK_REASON_NONE)
        printf("step %d iterations %d residual %e\n", m, res.iterations, res.rel_residual);
    if (rc == OVK_EMAXIT || rc == OVK_EBREAKDOWN || rc == OVK_ENONFINITE) {
        tot->failed = 1;
        rc = OVK_OK; /* the time loop goes on; the exit code says so */
    }
    return rc;
}

static int run(const args *a, box *b, totals *tot)
{
    ovk_matrix *A = NULL;
    ovk_solver *s = NULL;
    ovk_vector *rhs = NULL, *u = NULL;
    int *rowptr = NULL, rc;
    ovk_gidx *cols = NULL;
    double *vals = NULL, t0 = MPI_Wtime();
    b->k_dt = a->wave > 0.0 ? a->dt : a->dt * conductivity(0.0);
    b->wave = a->wave, b->t = 0.0;
    if (!a->matfree) {
        rc = ovk_drv_agree(assemble(b, b->k_dt, &rowptr, &cols, &vals));
        if (!rc) rc = ovk_matrix_create_csr(MPI_COMM_WORLD, gid(b, b->c, 0, 0, 0), b->n * b->n * b->n, rowptr,
                                            cols, vals, OVK_DUP_REJECT, &A);
        if (rc) goto cleanup;
    }
    if (!a->oneshot && (rc = make_solver(a, b, A, &s))) goto cleanup;
    rc = s ? ovk_solver_vector_create(s, NULL, &rhs) : ovk_vector_create(A, &rhs);
    if (!rc) rc = s ? ovk_solver_vector_create(s, NULL, &u) : ovk_vector_create(A, &u);
    if ((rc = ovk_drv_agree(rc))) goto cleanup;
    double dt = MPI_Wtime() - t0;
    MPI_Allreduce(&dt, &tot->setup, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    for (int m = 1; m <= a->steps && !rc; m++) {
        if (m > 1 && (m - 1) % a->update == 0) {
            double t1 = MPI_Wtime();
            rc = update_values(a, b, A, (m - 1) * a->dt);
            dt = MPI_Wtime() - t1;
            double dmax = 0.0;
            MPI_Allreduce(&dt, &dmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
            tot->setup += dmax;
        }
        if (!rc) rc = step(a, s, A, rhs, u, m, tot);
    }
cleanup:
    ovk_vector_destroy(rhs);
    ovk_vector_destroy(u);
    int rc2 = ovk_solver_destroy(&s);
    ovk_matrix_destroy(A);
    free(rowptr);
    free(cols);
    free(vals);
    return rc ? rc : rc2;
}

int main(int argc, char **argv)
{
    args a = {.n = 20, .steps = 20, .update = 5, .dt = 2.0, .tol = 1e-8, .solver = "alg1"};
    box b = {0};
    totals tot = {0};
    int rank = 0, rc;
    ovk_drv_mpi_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (parse(argc, argv, &a)) {
        if (rank == 0) usage(stderr);
        MPI_Finalize();
        return 2;
    }
    rc = ovk_drv_agree(box_init(&b, a.n));
    b.every = 1;
    if (!rc && a.ex.have_latency) rc = ovk_drv_reducer(MPI_COMM_WORLD, a.backend, &a.ex, &a.red);
    if (!rc) rc = run(&a, &b, &tot);
    ovk_reducer_destroy(a.red);
    if (rc && rank == 0) fprintf(stderr, "ovkrylov error: %s: %s\n", ovk_strerror(rc), ovk_error_detail());
    if (!rc && rank == 0) {
        printf("Setup Time = %.6f s\n", tot.setup);
        printf("Solve Time = %.6f s\n", tot.solve);
    }
    box_free(&b);
    ovk_options_finalize(); /* -ovk_options_left */
    MPI_Finalize();
    return rc || tot.failed ? 1 : 0;
}

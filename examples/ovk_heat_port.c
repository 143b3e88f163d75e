/* ovk_heat_port: a PETSc heat-equation program ported (docs/options.md): implicit Euler on an n x n
 * grid, 5-point CSR from the program's arrays, 8 steps, k doubled at step 4, the backend switched at
 * step 6, a Jacobi callback, a monitor, a history; options from -ovk_* or $OVK_OPTIONS. */
#include <stdio.h>
#include <stdlib.h>
#include <ovkrylov/ovkrylov.h>

typedef struct app { int n, nloc, its; ovk_gidx lo, *cols; int *rowptr; double c, *diag, *vals, hist[1001]; } app;

static void fill(app *a, double c) /* rows lo.. of I - dt k lap: 1 + 4c on the diagonal, -c off it */
{
    int k = 0;
    for (int r = 0; r < a->nloc; r++) {
        ovk_gidx g = a->lo + r, i = g % a->n, j = g / a->n, nb[4] = {g - 1, g + 1, g - a->n, g + a->n};
        int in[4] = {i > 0, i < a->n - 1, j > 0, j < a->n - 1};
        a->cols[k] = g, a->vals[k++] = a->diag[r] = 1.0 + 4.0 * c;
        for (int d = 0; d < 4; d++)
            if (in[d]) a->cols[k] = nb[d], a->vals[k++] = -c;
        a->rowptr[r + 1] = k;
    }
}

static int jacobi(ovk_solver *s, const double *r, double *z, void *ctx) /* z = D^-1 r */
{
    for (int i = 0; i < ovk_solver_nlocal(s); i++) z[i] = r[i] / ((const app *)ctx)->diag[i];
    return 0;
}

static int monitor(ovk_solver *s, int it, double rnorm, double rel, void *ctx) /* counts; never stops */
{
    (void)s, (void)rnorm, (void)rel;
    return (((app *)ctx)->its = it + 1) < 0;
}

int main(int argc, char **argv)
{
    int rank, size, rc;
    app a = {.n = 32};
    ovk_matrix *A = NULL;
    ovk_solver *s = NULL;
    ovk_vector *b = NULL, *u = NULL;
    ovk_result res = {0};
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank), MPI_Comm_size(MPI_COMM_WORLD, &size);
    ovk_options_set_args(argc, argv);
    rc = ovk_options_get_int("-n", &a.n, NULL);
    ovk_gidx N = (ovk_gidx)a.n * a.n;
    a.lo = N * rank / size, a.nloc = (int)(N * (rank + 1) / size - a.lo);
    a.rowptr = calloc(a.nloc + 1, sizeof(int)), a.cols = malloc(5 * (a.nloc + 1) * sizeof(ovk_gidx));
    a.vals = malloc(5 * (a.nloc + 1) * sizeof(double)), a.diag = malloc((a.nloc + 1) * sizeof(double));
    fill(&a, a.c = 0.01 * (a.n + 1) * (a.n + 1)); /* c = dt k / h^2 with dt k = 0.01 */
    if (!rc) rc = ovk_matrix_create_csr(MPI_COMM_WORLD, a.lo, a.nloc, a.rowptr, a.cols, a.vals, OVK_DUP_SUM, &A);
    if (!rc) rc = ovk_solver_create(A, &s);
    if (!rc) rc = ovk_solver_set_precond_fn(s, jacobi, &a);
    if (!rc) rc = ovk_solver_set_monitor(s, monitor, &a);
    if (!rc) rc = ovk_solver_set_history(s, a.hist, 1001);
    if (!rc) rc = ovk_solver_set_from_options(s, NULL); /* -ovk_solver, -ovk_rtol, -ovk_view, ... */
    if (!rc) rc = ovk_vector_create(A, &b);
    if (!rc) rc = ovk_vector_create(A, &u);
    if (!rc) rc = ovk_vector_set(u, 1.0); /* u(0) = 1, u = 0 on the boundary */
    for (int step = 1; !rc && step <= 8; step++) {
        if (step == 4) fill(&a, a.c *= 2.0), rc = ovk_matrix_update_values(A, a.rowptr, a.cols, a.vals, OVK_DUP_SUM);
        if (step == 6 && !rc) rc = ovk_solver_set_option(s, "backend", "native"); /* no setup needed */
        if (!rc) rc = ovk_vector_copy(u, b); /* (I - dt k lap) u_new = u_old, u_old the initial guess */
        if (!rc) rc = ovk_solver_solve(s, b, u, &res);
        if (rank == 0 && res.history_len)
            printf("step %d iterations %d residual %.3e (||r|| %.3e, monitor calls %d)\n", step, res.iterations,
                   res.rel_residual, a.hist[res.history_len - 1], a.its);
    }
    if (rc && rank == 0) fprintf(stderr, "ovkrylov error: %s: %s\n", ovk_strerror(rc), ovk_error_detail());
    ovk_solver_destroy(&s), ovk_vector_destroy(b), ovk_vector_destroy(u), ovk_matrix_destroy(A);
    free(a.rowptr), free(a.cols), free(a.vals), free(a.diag);
    ovk_options_finalize(), MPI_Finalize();
    return rc ? 1 : 0;
}

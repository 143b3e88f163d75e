/* How an application embeds ovkrylov: it assembles its own matrix (here a
 * 2-D Poisson problem on an m x m grid with a variable coefficient, each rank
 * assembling a block of rows), solves with the default backend, then solves
 * again with the backend named on the command line.  The one-call
 * ovk_solve takes no options database; a solver object does
 * (ovk_solver_set_from_options: ovk_laplace27, ovk_heat_port).
 *
 *   mpiexec -n 4 ovk_app native
 *   mpiexec -n 4 ovk_app "nbc:alg=knomial,k=4"
 */
#include <stdio.h>
#include <stdlib.h>

#include <ovkrylov/ovkrylov.h>

/* Rows [lo, hi) of the 5-point operator -div(k grad u), k = 1 + x. */
static int assemble(MPI_Comm comm, int m, ovk_matrix **A)
{
    int rank, size, rc;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    ovk_gidx n = (ovk_gidx)m * m, lo = n * rank / size, hi = n * (rank + 1) / size;
    int nlocal = (int)(hi - lo), *rowptr = malloc(sizeof(int) * (size_t)(nlocal + 1));
    ovk_gidx *cols = malloc(sizeof(ovk_gidx) * 5 * (size_t)(nlocal + 1));
    double *vals = malloc(sizeof(double) * 5 * (size_t)(nlocal + 1));
    rowptr[0] = 0;
    for (ovk_gidx g = lo; g < hi; g++) {
        int i = (int)(g % m), j = (int)(g / m), k = rowptr[g - lo];
        double kw = 1.0 + (i - 0.5) / m, ke = 1.0 + (i + 0.5) / m, kv = 1.0 + (double)i / m;
        cols[k] = g;
        vals[k++] = kw + ke + 2.0 * kv;
        if (i > 0) cols[k] = g - 1, vals[k++] = -kw;
        if (i < m - 1) cols[k] = g + 1, vals[k++] = -ke;
        if (j > 0) cols[k] = g - m, vals[k++] = -kv;
        if (j < m - 1) cols[k] = g + m, vals[k++] = -kv;
        rowptr[g - lo + 1] = k;
    }
    rc = ovk_matrix_create_csr(comm, lo, nlocal, rowptr, cols, vals, OVK_DUP_REJECT, A);
    free(rowptr);
    free(cols);
    free(vals);
    return rc;
}

static int solve(ovk_matrix *A, const char *backend, int rank)
{
    ovk_vector *b = NULL, *x = NULL;
    ovk_solve_options opts;
    ovk_result res;
    ovk_vector_create(A, &b);
    ovk_vector_create(A, &x);
    ovk_vector_set(b, 1.0);
    ovk_solve_options_init(&opts);
    opts.solver = "overlap";
    opts.backend = backend; /* NULL: $OVK_REDUCE_BACKEND or blocking */
    int rc = ovk_solve(A, b, x, &opts, &res);
    if (rank == 0) {
        if (rc) fprintf(stderr, "ovk_app: %s: %s\n", ovk_strerror(rc), ovk_error_detail());
        else printf("backend %-24s iterations %d, relative residual %.3e\n", backend ? backend : "(default)",
                    res.iterations, res.rel_residual);
    }
    ovk_vector_destroy(b);
    ovk_vector_destroy(x);
    return rc;
}

int main(int argc, char **argv)
{
    int rank, rc;
    ovk_matrix *A = NULL;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    rc = assemble(MPI_COMM_WORLD, 64, &A);
    if (!rc) rc = solve(A, NULL, rank);
    if (!rc) rc = solve(A, argc > 1 ? argv[1] : "native", rank);
    if (rc && rank == 0) fprintf(stderr, "ovk_app: %s\n", ovk_strerror(rc));
    ovk_matrix_destroy(A);
    MPI_Finalize();
    return rc ? 1 : 0;
}

/* The smallest complete program: -u'' + 0.01 u on N points (2.01 on the diagonal, -1
 * beside it), rows split over the ranks, solved for b = 1 with the default solver (alg1,
 * Jacobi, blocking reductions; -ovk_solver pipecg etc. change it).  mpiexec -n 2 ovk_minimal */
#include <stdio.h>

#include <ovkrylov/ovkrylov.h>

enum { N = 1000 };

int main(int argc, char **argv)
{
    int rank, size, rowptr[N + 1], nnz = 0;
    ovk_gidx cols[3 * N];
    double vals[3 * N];
    ovk_matrix *A = NULL;
    ovk_vector *b = NULL, *x = NULL;
    ovk_solver *s = NULL;
    ovk_result res;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    ovk_gidx lo = (ovk_gidx)N * rank / size, hi = (ovk_gidx)N * (rank + 1) / size;
    rowptr[0] = 0;
    for (ovk_gidx i = lo; i < hi; i++) { /* this rank's rows, global column ids */
        if (i > 0) cols[nnz] = i - 1, vals[nnz++] = -1.0;
        cols[nnz] = i, vals[nnz++] = 2.01;
        if (i < N - 1) cols[nnz] = i + 1, vals[nnz++] = -1.0;
        rowptr[i - lo + 1] = nnz;
    }
    ovk_options_set_args(argc, argv); /* -ovk_KEY VALUE from the command line */
    int rc = ovk_matrix_create_csr(MPI_COMM_WORLD, lo, (int)(hi - lo), rowptr, cols, vals, OVK_DUP_REJECT, &A);
    if (!rc) rc = ovk_vector_create(A, &b);
    if (!rc) rc = ovk_vector_create(A, &x);
    if (!rc) rc = ovk_vector_set(b, 1.0);
    if (!rc) rc = ovk_solver_create(A, &s);
    if (!rc) rc = ovk_solver_set_from_options(s, NULL);
    if (!rc) rc = ovk_solver_solve(s, b, x, &res); /* x = 0 on entry: the initial guess */
    if (rank == 0 && !rc)
        printf("Iterations = %d\nFinal Relative Residual Norm = %e\n", res.iterations, res.rel_residual);
    if (rank == 0 && rc) fprintf(stderr, "ovk_minimal: %s: %s\n", ovk_strerror(rc), ovk_error_detail());
    ovk_solver_destroy(&s);
    ovk_vector_destroy(b);
    ovk_vector_destroy(x);
    ovk_matrix_destroy(A);
    ovk_options_finalize();
    MPI_Finalize();
    return rc ? 1 : 0;
}

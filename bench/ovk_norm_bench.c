/* ovk_vector_norm2's common path (a plain <x,x> within range) against the
 * plain sqrt(<x,x>) it replaced, on vectors of ordinary scale: interleaved
 * repeats (the order alternates), each `calls` calls back to back, the
 * slowest rank's seconds, the median per-repeat ratio new/plain.
 * usage: mpiexec -n P ovk_norm_bench [rows per rank ...] (default 1000 100000 1000000) */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include <ovkrylov/ovkrylov.h>

#include "bench_common.h"

enum { REPEATS = 21 };

/* seconds of calls norms of v, the new path (which) or the plain one */
static double timed(ovk_vector *v, int which, long calls, double *sink)
{
    double t0 = ovk_bench_sync(), r = 0.0;
    for (long k = 0; k < calls; k++) {
        if (which) ovk_vector_norm2(v, &r);
        else {
            ovk_vector_dot(v, v, &r);
            r = sqrt(r);
        }
        *sink += r;
    }
    return ovk_bench_slowest(MPI_Wtime() - t0);
}

static void one_size(int n, int rank, int size)
{
    ovk_matrix *A = NULL;
    ovk_vector *v = NULL;
    int *ptr = malloc(sizeof(int) * ((size_t)n + 1));
    ovk_gidx *col = malloc(sizeof(ovk_gidx) * (size_t)(n > 0 ? n : 1));
    double *val = malloc(sizeof(double) * (size_t)(n > 0 ? n : 1)), sink = 0.0, ratio[REPEATS], t[2][REPEATS];
    for (int i = 0; i < n; i++) {
        ptr[i] = i;
        col[i] = (ovk_gidx)rank * n + i;
        val[i] = 1.0;
    }
    ptr[n] = n;
    if (ovk_matrix_create_csr(MPI_COMM_WORLD, (ovk_gidx)rank * n, n, ptr, col, val, OVK_DUP_REJECT, &A) ||
        ovk_vector_create(A, &v)) {
        fprintf(stderr, "ovk_norm_bench: %s\n", ovk_error_detail());
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    double *d = ovk_vector_data(v);
    for (int i = 0; i < n; i++) d[i] = 1.0 + 1e-3 * (i % 7);
    long calls = 1;
    while (timed(v, 0, calls, &sink) < 0.05 && calls < (1L << 30)) calls *= 2; /* >= 50 ms a measurement */
    for (int r = 0; r < REPEATS; r++) {
        int first = r % 2;
        t[first][r] = timed(v, first, calls, &sink);
        t[!first][r] = timed(v, !first, calls, &sink);
        ratio[r] = t[1][r] / t[0][r];
    }
    double plain = ovk_bench_median(t[0], REPEATS), now = ovk_bench_median(t[1], REPEATS);
    double med = ovk_bench_median(ratio, REPEATS);
    if (rank == 0)
        printf("%d ranks x %9d rows: plain %.3e s/call, norm2 %.3e s/call, median ratio %.4f (%d repeats, "
               "sink %g)\n",
               size, n, plain / calls, now / calls, med, REPEATS, sink > 0.0 ? 1.0 : 0.0);
    ovk_vector_destroy(v);
    ovk_matrix_destroy(A);
    free(ptr);
    free(col);
    free(val);
}

int main(int argc, char **argv)
{
    int rank = 0, size = 1;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    static const int sizes[] = {1000, 100000, 1000000};
    if (argc > 1) {
        for (int i = 1; i < argc; i++) {
            long n = 0;
            if (ovk_bench_long(argv[i], 1, 100000000, &n)) {
                if (rank == 0) fprintf(stderr, "ovk_norm_bench: rows '%s' is not a number in [1, 1e8]\n", argv[i]);
                MPI_Finalize();
                return 2;
            }
            one_size((int)n, rank, size);
        }
    } else {
        for (int i = 0; i < 3; i++) one_size(sizes[i], rank, size);
    }
    MPI_Finalize();
    return 0;
}

/* STREAM-triad memory bandwidth, MPI flavour.
 *
 * Every rank allocates its own three arrays a, b, c of N doubles (default
 * 2^25 = 33.5 M, i.e. 256 MiB per array, 768 MiB per rank -- far larger than
 * any cache) and all ranks run the triad
 *
 *     a[i] = b[i] + s * c[i]
 *
 * at the same time (an MPI_Barrier precedes each repeat).  The time of one
 * repeat is the slowest rank's time (MPI_MAX), the aggregate bandwidth of a
 * repeat is  nranks * N * 24 bytes / that time, and the reported figure is the
 * median over the repeats (the first, warm-up repeat is discarded).
 *
 * Byte counting: 24 bytes per element, as STREAM does -- 8 read of b, 8 read
 * of c, 8 written to a.  Write-allocate traffic (the cache line of a[] read
 * from memory before it is overwritten, 8 more bytes per element unless the
 * compiler emits non-temporal stores, which GCC at -O3 does not) is NOT
 * counted.  The hardware therefore moves up to 32/24 = 1.33x the reported
 * figure.  Reporting 24 bytes keeps the number comparable with STREAM and with
 * the way we count bytes of a matvec (docs/solvers.md, "Cost per iteration"), where the write of
 * y is likewise counted once.
 *
 * Usage: mpiexec -n P ./stream_triad [-N elements_per_rank] [-repeat R]
 * Output (rank 0):  Triad GB/s = X   (GB = 1e9 bytes), plus the median time,
 * the best repeat, and MPI_Dims_create(nranks, 3) for compare_peers.sh.
 *
 * Build: mpicc -O3 -o stream_triad stream_triad.c bench_common.c (the clock,
 * the median and the triad kernel of all benchmarks).
 */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_common.h"

enum { EXIT_USAGE = 2, EXIT_RUNTIME = 1, ALIGN = 64 };
static const double SCALE = 3.0, B_VALUE = 1.0, C_VALUE = 2.0; /* a = b + s c = 7 */
static const double TRIAD_BYTES = 24.0; /* per element: b and c read, a written */

typedef struct arrays {
    double *a, *b, *c;
    long n;
} arrays;

/* -N and -repeat; exits (all ranks) on bad usage */
static void parse(int argc, char **argv, int rank, long *n, int *repeat)
{
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "-N") && i + 1 < argc)
            *n = atol(argv[++i]);
        else if (!strcmp(argv[i], "-repeat") && i + 1 < argc)
            *repeat = atoi(argv[++i]);
        else {
            if (rank == 0) fprintf(stderr, "usage: %s [-N elements_per_rank] [-repeat R]\n", argv[0]);
            MPI_Abort(MPI_COMM_WORLD, EXIT_USAGE);
        }
    }
    if (*n < 1 || *repeat < 1) {
        if (rank == 0) fprintf(stderr, "stream_triad: -N and -repeat must be positive\n");
        MPI_Abort(MPI_COMM_WORLD, EXIT_USAGE);
    }
}

/* The three arrays, first touched by the owning rank (paged in before timing). */
static void allocate(arrays *x, int rank)
{
    size_t bytes = (size_t)x->n * sizeof(double);
    if (posix_memalign((void **)&x->a, ALIGN, bytes) || posix_memalign((void **)&x->b, ALIGN, bytes) ||
        posix_memalign((void **)&x->c, ALIGN, bytes)) {
        fprintf(stderr, "stream_triad: rank %d: out of memory for N = %ld\n", rank, x->n);
        MPI_Abort(MPI_COMM_WORLD, EXIT_RUNTIME);
    }
    for (long i = 0; i < x->n; ++i) {
        x->a[i] = 0.0;
        x->b[i] = B_VALUE;
        x->c[i] = C_VALUE;
    }
}

/* Wrong elements over all ranks (the check keeps the work from being optimised away). */
static long validate(const arrays *x)
{
    long bad = 0, badsum = 0;
    for (long i = 0; i < x->n; ++i)
        if (x->a[i] != B_VALUE + SCALE * C_VALUE) ++bad;
    MPI_Reduce(&bad, &badsum, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    return badsum;
}

/* Rank 0's report; t[1..repeat] are the timed repeats (t[0] the warm-up). */
static void report(int size, long n, int repeat, double *t, long badsum)
{
    double bytes = TRIAD_BYTES * (double)n * (double)size;
    double tmin = t[1];
    for (int k = 2; k <= repeat; ++k)
        if (t[k] < tmin) tmin = t[k];
    double tmed = ovk_bench_median(t + 1, repeat);
    int dims[3] = {0, 0, 0};
    MPI_Dims_create(size, 3, dims);
    printf("Ranks = %d\n", size);
    /* The default processor grid of ovk_laplace27 and the peers at this
     * rank count (compare_peers.sh uses it to size the matrix). */
    printf("MPI_Dims_create(3) = %d %d %d\n", dims[0], dims[1], dims[2]);
    printf("Elements per rank = %ld (%.1f MiB per array)\n", n, (double)n * 8.0 / (1024.0 * 1024.0));
    printf("Repeats = %d (+1 warm-up)\n", repeat);
    printf("Bytes counted per element = 24 (write-allocate not counted)\n");
    printf("Triad median time = %.6f s\n", tmed);
    printf("Triad best GB/s = %.2f\n", bytes / tmin * 1e-9);
    printf("Triad GB/s = %.2f\n", bytes / tmed * 1e-9);
    if (badsum) printf("VALIDATION FAILED: %ld wrong elements\n", badsum);
}

int main(int argc, char **argv)
{
    int rank, size, repeat = 20;
    arrays x = {NULL, NULL, NULL, 1L << 25};
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    parse(argc, argv, rank, &x.n, &repeat);
    allocate(&x, rank);
    double *t = malloc((size_t)(repeat + 1) * sizeof *t);
    if (!t) MPI_Abort(MPI_COMM_WORLD, EXIT_RUNTIME);
    for (int k = 0; k <= repeat; ++k) { /* k == 0 is a warm-up */
        double t0 = ovk_bench_sync();
        ovk_bench_triad(x.a, x.b, x.c, SCALE, (size_t)x.n);
        t[k] = ovk_bench_slowest(MPI_Wtime() - t0);
    }
    long badsum = validate(&x);
    if (rank == 0) report(size, x.n, repeat, t, badsum);
    free(t);
    free(x.a);
    free(x.b);
    free(x.c);
    MPI_Finalize();
    return badsum ? 1 : 0;
}

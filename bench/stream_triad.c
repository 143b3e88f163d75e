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
 * the way we count bytes of a matvec (docs/benchmarks.md), where the write of
 * y is likewise counted once.
 *
 * Usage: mpiexec -n P ./stream_triad [-N elements_per_rank] [-repeat R]
 * Output (rank 0):  Triad GB/s = X   (GB = 1e9 bytes), plus the median time,
 * the best repeat, and MPI_Dims_create(nranks, 3) for compare_peers.sh.
 *
 * Build: mpicc -O3 -o stream_triad stream_triad.c
 * (see docs/benchmarks.md for -O3 vs -O3 -march=native on the bench machine).
 */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return (n % 2) ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Kept out of line so that the compiler cannot hoist or fuse across repeats. */
__attribute__((noinline)) static void triad(double *restrict a, const double *restrict b,
                                            const double *restrict c, double s, long n)
{
    for (long i = 0; i < n; ++i) a[i] = b[i] + s * c[i];
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    long n = 1L << 25;
    int repeat = 20;
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "-N") && i + 1 < argc)
            n = atol(argv[++i]);
        else if (!strcmp(argv[i], "-repeat") && i + 1 < argc)
            repeat = atoi(argv[++i]);
        else {
            if (rank == 0)
                fprintf(stderr, "usage: %s [-N elements_per_rank] [-repeat R]\n", argv[0]);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    if (n < 1 || repeat < 1) {
        if (rank == 0) fprintf(stderr, "stream_triad: -N and -repeat must be positive\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }

    double *a = NULL, *b = NULL, *c = NULL;
    if (posix_memalign((void **)&a, 64, (size_t)n * sizeof(double)) ||
        posix_memalign((void **)&b, 64, (size_t)n * sizeof(double)) ||
        posix_memalign((void **)&c, 64, (size_t)n * sizeof(double))) {
        fprintf(stderr, "stream_triad: rank %d: out of memory for N = %ld\n", rank, n);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    /* First touch by the owning rank (and page-in before timing). */
    for (long i = 0; i < n; ++i) {
        a[i] = 0.0;
        b[i] = 1.0;
        c[i] = 2.0;
    }
    const double s = 3.0;

    double *t = malloc((size_t)(repeat + 1) * sizeof *t);
    for (int k = 0; k <= repeat; ++k) { /* k == 0 is a warm-up */
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        triad(a, b, c, s, n);
        double dt = MPI_Wtime() - t0, dtmax;
        MPI_Allreduce(&dt, &dtmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        t[k] = dtmax;
    }

    /* Check the result so the work cannot be optimised away. */
    long bad = 0;
    for (long i = 0; i < n; ++i)
        if (a[i] != 1.0 + s * 2.0) ++bad;
    long badsum = 0;
    MPI_Reduce(&bad, &badsum, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);

    if (rank == 0) {
        double bytes = 24.0 * (double)n * (double)size;
        double tmin = t[1];
        for (int k = 2; k <= repeat; ++k)
            if (t[k] < tmin) tmin = t[k];
        double tmed = median(t + 1, repeat);
        int dims[3] = {0, 0, 0};
        MPI_Dims_create(size, 3, dims);
        printf("Ranks = %d\n", size);
        /* The default processor grid of ovk_laplace27 and the peers at this
         * rank count (compare_peers.sh uses it to size the matrix). */
        printf("MPI_Dims_create(3) = %d %d %d\n", dims[0], dims[1], dims[2]);
        printf("Elements per rank = %ld (%.1f MiB per array)\n", n,
               (double)n * 8.0 / (1024.0 * 1024.0));
        printf("Repeats = %d (+1 warm-up)\n", repeat);
        printf("Bytes counted per element = 24 (write-allocate not counted)\n");
        printf("Triad median time = %.6f s\n", tmed);
        printf("Triad best GB/s = %.2f\n", bytes / tmin * 1e-9);
        printf("Triad GB/s = %.2f\n", bytes / tmed * 1e-9);
        if (badsum) printf("VALIDATION FAILED: %ld wrong elements\n", badsum);
    }
    free(t);
    free(a);
    free(b);
    free(c);
    MPI_Finalize();
    return badsum ? 1 : 0;
}

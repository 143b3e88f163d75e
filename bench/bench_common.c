/* The helpers of bench_common.h. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime when built on its own (-std=c11) */
#include "bench_common.h"

#include <errno.h>
#include <math.h>
#include <mpi.h>
#include <stdlib.h>
#include <time.h>

double ovk_bench_cpu_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

double ovk_bench_sync(void)
{
    MPI_Barrier(MPI_COMM_WORLD);
    return MPI_Wtime();
}

double ovk_bench_slowest(double seconds)
{
    ovk_bench_max(&seconds, 1);
    return seconds;
}

void ovk_bench_max(double *v, int n)
{
    MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
}

static int ascending(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

double ovk_bench_median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, ascending);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

__attribute__((noinline)) void ovk_bench_triad(double *restrict a, const double *restrict b,
                                               const double *restrict c, double s, size_t n)
{
    for (size_t i = 0; i < n; i++) a[i] = b[i] + s * c[i];
}

int ovk_bench_long(const char *s, long lo, long hi, long *v)
{
    char *end = NULL;
    errno = 0;
    long x = strtol(s, &end, 10);
    if (!*s || *end || errno || x < lo || x > hi) return -1;
    *v = x;
    return 0;
}

int ovk_bench_double(const char *s, double *v)
{
    char *end = NULL;
    double x = strtod(s, &end);
    if (!*s || *end || !isfinite(x)) return -1;
    *v = x;
    return 0;
}

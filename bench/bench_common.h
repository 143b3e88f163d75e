/* What the benchmark programs of bench/ share: the clocks, the slowest
 * rank, the median of the repeats, the STREAM triad and the numbers of the
 * command line.  MPI and the C library only (no ovkrylov), so that
 * stream_triad and the peers (bench/peers/peer_common.c) use it too.
 * Every program is linked with bench_common.c. */
#ifndef OVK_BENCH_COMMON_H
#define OVK_BENCH_COMMON_H

#include <stddef.h>

/* Seconds of CPU time of the calling thread: unlike the wall clock it
 * stops while the thread is descheduled, so a calibration or a timing on a
 * busy machine sees the undisturbed rate. */
double ovk_bench_cpu_s(void);

/* The start of a run that all ranks begin together: MPI_Barrier on
 * MPI_COMM_WORLD, then MPI_Wtime. */
double ovk_bench_sync(void);

/* The slowest rank's seconds: the maximum over MPI_COMM_WORLD of each
 * rank's `seconds`. */
double ovk_bench_slowest(double seconds);

/* v[0..n-1] := the maximum over the ranks of MPI_COMM_WORLD, element by
 * element (so that every rank takes the same decision from it). */
void ovk_bench_max(double *v, int n);

/* The median of v[0..n-1], n > 0 (the mean of the middle two when n is
 * even); sorts v. */
double ovk_bench_median(double *v, int n);

/* STREAM's triad a = b + s c over n doubles, out of line (the compiler
 * cannot fuse or hoist it across repeats). */
void ovk_bench_triad(double *restrict a, const double *restrict b, const double *restrict c, double s,
                     size_t n);

/* s as a whole number in [lo, hi], or as a finite number: 0, or -1 when s
 * is not one (nothing else may follow the number); *v is set on success
 * only. */
int ovk_bench_long(const char *s, long lo, long hi, long *v);
int ovk_bench_double(const char *s, double *v);

#endif

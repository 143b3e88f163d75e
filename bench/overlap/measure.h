/* ovk_overlap_bench's measurements: one run (start, compute with polls,
 * wait), the sweep over poll counts of one message size, the latency rows
 * and the raw MPI references.  Includes output.h (and through it
 * compute.h and options.h); included by ../ovk_overlap_bench.c alone. */
#ifndef OVK_OB_MEASURE_H
#define OVK_OB_MEASURE_H

#include "output.h"

enum raw_kind { RAW_NONE, RAW_ALLREDUCE, RAW_IALLREDUCE };

/* Per-process facts shared by all measurements. */
typedef struct context {
    const options *o;
    int rank;
    double clock_read_s; /* one MPI_Wtime call */
    compute comp;
    csv_out out; /* rank 0's rows */
} context;

/* A failure of the library during a measurement: no way to keep the other
 * ranks in step, so abort the job (message, MPI_Abort) rather than hang. */
void ovk_ob_check(int rc, const char *what);

/* The rows of message size `bytes` on the backend bc->spec, bc->red (the
 * buffers are allocated here). */
void ovk_ob_run_size(const context *cx, bench_case *bc, long bytes);

/* -mode latency -raw: the rows of MPI_Allreduce or of MPI_Iallreduce +
 * MPI_Wait on MPI_COMM_WORLD at every size. */
void ovk_ob_run_raw(const context *cx, enum raw_kind kind);

#endif

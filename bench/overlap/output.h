/* ovk_overlap_bench's CSV: the file, its preamble and header, and one row
 * per measurement of either mode.  Includes compute.h (the plan's DGEMM
 * fields) and, through it, options.h. */
#ifndef OVK_OB_OUTPUT_H
#define OVK_OB_OUTPUT_H

#include "compute.h"

/* One backend and message size under measurement. */
typedef struct bench_case {
    const char *spec; /* the backend spec, or the MPI call of -raw */
    ovk_reducer *red; /* NULL for -raw */
    double *send, *recv;
    int count;
    long bytes;
} bench_case;

/* The terms of an overlap row, seconds: medians over the repeats on each
 * rank, then the maximum over the ranks. */
typedef struct row_stats {
    double base, init, test, compute, wait, overall;
    double alone; /* the compute alone (dgemm), 0: not measured */
} row_stats;

/* Where the rows go (rank 0) and what every row repeats. */
typedef struct csv_out {
    FILE *f;
    const options *o;
    int nranks, provided; /* MPI_COMM_WORLD's size, the thread level MPI provided */
} csv_out;

/* -csv FILE opened to append (the preamble first when it is empty), or
 * stdout with the preamble; NULL when the file cannot be opened. */
FILE *ovk_ob_open_output(const options *o);

void ovk_ob_print_overlap_row(const csv_out *out, const bench_case *bc, int tests, enum poll_kind poll,
                              const plan *p, const row_stats *st);

/* q: the median, minimum and 90th percentile of start + wait, seconds. */
void ovk_ob_print_latency_row(const csv_out *out, const bench_case *bc, const double q[3]);

#endif

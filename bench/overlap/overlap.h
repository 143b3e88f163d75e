/* ovk_overlap_bench's parts (bench/ovk_overlap_bench.c has the method):
 * args.c the command line, compute.c the compute phase, measure.c the
 * measurements, output.c the CSV.  Functions shared between the parts are
 * ovk_ob_*; everything else is static in its part. */
#ifndef OVK_OVERLAP_BENCH_H
#define OVK_OVERLAP_BENCH_H

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cblas.h>
#include <ovkrylov/ovkrylov.h>

#include "../../examples/common/experiment.h"


enum { EXIT_USAGE = 2, EXIT_RUNTIME = 1 };
enum bench_mode { MODE_OVERLAP, MODE_LATENCY };
enum compute_kind { COMPUTE_DUMMY, COMPUTE_DGEMM };
enum poll_kind { POLL_NONE, POLL_TEST, POLL_HOOK, POLL_KINDS };
enum raw_kind { RAW_NONE, RAW_ALLREDUCE, RAW_IALLREDUCE };
enum thread_choice { THREAD_AUTO = -1 };

#define MAX_SPECS 64
#define MAX_SIZES 32
#define MAX_TESTS 16
#define MIN_BYTES 8L
#define MAX_BYTES (16L << 20)
#define MAX_TEST_CALLS 1000000
#define MAX_REPEAT 1000000
#define DEFAULT_REPEAT 50
#define DEFAULT_LATENCY_REPEAT 1000
#define MIN_ESTIMATE_RUNS 10
#define DUMMY_WIDTH 16
#define CALIBRATE_WINDOW_S 0.001
#define CALIBRATE_WINDOWS 50
#define DGEMM_NMAX_DEFAULT 512
#define DGEMM_CALL_MAX_S 0.05 /* candidates slower than this per call are not timed further */
#define TEXT_LEN 256

extern const char *const ovk_ob_poll_names[POLL_KINDS];
extern const int ovk_ob_dgemm_sizes[];
enum { DGEMM_CANDIDATES = 18 };

typedef struct options {
    enum bench_mode mode;
    char *specs[MAX_SPECS];
    int nspecs;
    long sizes[MAX_SIZES];
    int nsizes;
    int tests[MAX_TESTS];
    int ntests;
    int polls[POLL_KINDS]; /* POLL_TEST / POLL_HOOK requested */
    enum compute_kind compute;
    int repeat, warmup;
    double compute_factor;
    int dgemm_n, dgemm_nmax;
    int have_latency;
    ovk_latency_model lat;
    double noise_hz, noise_us;
    unsigned seed;
    const char *csv;
    int thread_level; /* THREAD_AUTO or an MPI_THREAD_* level */
    int raw, list, help;
} options;

/* Per-process facts shared by all measurements. */
typedef struct context {
    const options *o;
    int rank, size, provided;
    double clock_read_s;    /* one MPI_Wtime call */
    double dummy_units_per_s;
    double dgemm_call_s[DGEMM_CANDIDATES]; /* max over ranks; 0: not timed */
    double dgemm_fixed_call_s;             /* -dgemm_n: its call time, max over ranks */
    double *a, *b, *c;      /* DGEMM operands, dgemm_nmax^2 each */
    FILE *out;
} context;

/* What the compute phase does: `units` dummy units or DGEMM calls. */
typedef struct plan {
    enum compute_kind kind;
    long units;
    int dgemm_n;
    double seconds_goal;
} plan;

/* The terms of one repeat, seconds. */
typedef struct sample {
    double init, test, compute, wait, overall;
} sample;

/* Medians over the repeats, then max over ranks. */
typedef struct row_stats {
    double base, init, test, compute, wait, overall;
    double alone; /* compute alone (dgemm), 0: not measured */
} row_stats;

typedef struct bench_case {
    ovk_reducer *red;
    double *send, *recv;
    int count;
} bench_case;

/* args.c */
void ovk_ob_usage(FILE *f);
int ovk_ob_parse_args(int argc, char **argv, options *o, char *err);
void ovk_ob_free_specs(options *o);
int ovk_ob_requested_level(int argc, char **argv);
const char *ovk_ob_level_name(int level);

/* compute.c */
void ovk_ob_run_units(const context *cx, const plan *p, long n);
double ovk_ob_measure_clock_read(void);
double ovk_ob_calibrate_dummy(void);
void ovk_ob_calibrate_dgemm(context *cx);
plan ovk_ob_make_plan(const context *cx, double seconds, int tests);

/* measure.c */
void ovk_ob_max_over_ranks(double *v, int n);
void ovk_ob_check(int rc, const char *what);
double ovk_ob_overlap_pct(const row_stats *st);
void ovk_ob_run_size(const context *cx, const char *spec, bench_case *bc, long bytes);
void ovk_ob_run_raw(const context *cx, enum raw_kind kind);

/* output.c */
void ovk_ob_csv_safe(const char *in, char *out, size_t len);
FILE *ovk_ob_open_output(const options *o);
void ovk_ob_model_text(const ovk_reducer *red, int size, double bytes, char *text, size_t len, double *us);
void ovk_ob_print_overlap_row(const context *cx, const char *spec, const bench_case *bc, long bytes, int tests,
                              enum poll_kind poll, const plan *p, const row_stats *st);

#endif

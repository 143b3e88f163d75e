/* ovk_overlap_bench's command line: the flags, their limits and defaults,
 * and the MPI thread level the backend specs ask for.  The lowest part of
 * the program: it includes no other part (options.h < compute.h <
 * output.h < measure.h < ../ovk_overlap_bench.c). */
#ifndef OVK_OB_OPTIONS_H
#define OVK_OB_OPTIONS_H

#include <stdio.h>

#include <ovkrylov/ovkrylov.h>

enum { EXIT_USAGE = 2, EXIT_RUNTIME = 1 };
enum bench_mode { MODE_OVERLAP, MODE_LATENCY };
enum compute_kind { COMPUTE_DUMMY, COMPUTE_DGEMM };
enum poll_kind { POLL_NONE, POLL_TEST, POLL_HOOK, POLL_KINDS };
enum thread_choice { THREAD_AUTO = -1 };

#define MAX_SPECS 64
#define MAX_SIZES 32
#define MAX_TESTS 16
#define TEXT_LEN 256

/* the poll column of the CSV, by enum poll_kind */
extern const char *const ovk_ob_poll_names[POLL_KINDS];

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

void ovk_ob_usage(FILE *f);

/* 0, or -1 with a message in err[TEXT_LEN].  Identical on every rank (same
 * argv).  The specs are allocated: ovk_ob_free_specs. */
int ovk_ob_parse_args(int argc, char **argv, options *o, char *err);
void ovk_ob_free_specs(options *o);

/* The level for MPI_Init_thread: -thread_level, else MPI_THREAD_MULTIPLE
 * when a -backend spec needs it (thread=1, engine=agent, offload), else
 * single.  Reads argv before MPI_Init. */
int ovk_ob_requested_level(int argc, char **argv);
const char *ovk_ob_level_name(int level);

#endif

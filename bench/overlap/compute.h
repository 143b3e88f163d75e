/* ovk_overlap_bench's compute phase: OSU's dummy loop or DGEMM calls, their
 * calibration on this process, and the plan of one measurement (how many
 * units make the wanted time).  Includes options.h only. */
#ifndef OVK_OB_COMPUTE_H
#define OVK_OB_COMPUTE_H

#include "options.h"

enum { DGEMM_CANDIDATES = 18 };

/* The calibration of the compute of -compute (overlap mode only). */
typedef struct compute {
    enum compute_kind kind;
    int dgemm_n, dgemm_nmax;               /* -dgemm_n (0: sized per plan), -dgemm_nmax */
    double dummy_units_per_s;              /* dummy: this rank's undisturbed rate */
    double dgemm_call_s[DGEMM_CANDIDATES]; /* dgemm: seconds per call, max over ranks; 0: not timed */
    double dgemm_fixed_call_s;             /* -dgemm_n: its call time, max over ranks */
    double *a, *b, *c;                     /* DGEMM operands, dgemm_nmax^2 each, one block */
} compute;

/* What the compute phase of one measurement does: `units` dummy units or
 * DGEMM calls of size dgemm_n. */
typedef struct plan {
    enum compute_kind kind;
    long units;
    int dgemm_n;
    double seconds_goal;
} plan;

/* The median time of one MPI_Wtime call. */
double ovk_ob_clock_read(void);

/* Collective: calibrate the compute of o (nothing in latency mode).
 * OVK_OK, or OVK_ENOMEM on every rank. */
int ovk_ob_compute_init(compute *c, const options *o);
void ovk_ob_compute_free(compute *c);

/* The end of the set-up line (the dummy unit's time, or the BLAS threads
 * and the DGEMM call times of every size timed). */
void ovk_ob_compute_describe(FILE *f, const compute *c);

/* The plan for `seconds` of compute cut into tests+1 slices (DGEMM: the
 * largest size whose call fits in a slice); the same on every rank. */
plan ovk_ob_make_plan(const compute *c, double seconds, int tests);

/* Run n units of plan p. */
void ovk_ob_run_units(const compute *c, const plan *p, long n);

/* The flops of a DGEMM plan's compute: 2 N^3 per call. */
double ovk_ob_plan_flops(const plan *p);

#endif

/* ovk_overlap_bench: the compute phase (dummy units or DGEMM calls), its
 * calibration and the plan of one measurement. */
#include "compute.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cblas.h>

#include "../../examples/common/experiment.h"
#include "../bench_common.h"

#define DUMMY_WIDTH 16            /* independent multiply-add chains */
#define DUMMY_FIRST_UNITS 1000L   /* the first guess of a calibration window */
#define CALIBRATE_WINDOW_S 0.001
#define CALIBRATE_WINDOWS 50
#define DGEMM_CALL_MAX_S 0.05     /* candidates slower than this per call are not timed further */
#define DGEMM_TIMED_CALLS 5       /* the fastest of these is a size's call time */
#define CLOCK_PAIRS 1000          /* MPI_Wtime pairs per round of the clock's calibration */
#define CLOCK_ROUNDS 11

static const int dgemm_sizes[DGEMM_CANDIDATES] = {4,   8,   12,  16,  24,  32,  48,   64,   96,
                                                  128, 192, 256, 384, 512, 768, 1024, 1536, 2048};

/* ---- the compute kernels --------------------------------------------------- */

static double dummy_state[DUMMY_WIDTH];

/* n units of OSU-style dummy work: DUMMY_WIDTH independent multiply-add
 * chains, a few ns per unit.  Not inlined, state in memory: the compiler
 * cannot drop or merge it. */
__attribute__((noinline)) static void dummy_units(long n)
{
    double v[DUMMY_WIDTH];
    memcpy(v, dummy_state, sizeof v);
    for (long i = 0; i < n; i++)
        for (int j = 0; j < DUMMY_WIDTH; j++) v[j] = v[j] * 0.999999999 + 1e-9;
    memcpy(dummy_state, v, sizeof v);
}

static void dgemm_calls(const compute *c, int n, long calls)
{
    for (long i = 0; i < calls; i++)
        cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0, c->a, n, c->b, n, 0.0, c->c, n);
}

void ovk_ob_run_units(const compute *c, const plan *p, long n)
{
    if (n <= 0) return;
    if (p->kind == COMPUTE_DUMMY) dummy_units(n);
    else dgemm_calls(c, p->dgemm_n, n);
}

/* ---- calibrations ---------------------------------------------------------- */

double ovk_ob_clock_read(void)
{
    double t[CLOCK_ROUNDS], sink = 0.0;
    for (int r = 0; r < CLOCK_ROUNDS; r++) {
        double t0 = MPI_Wtime();
        for (int i = 0; i < CLOCK_PAIRS; i++) sink += MPI_Wtime() - MPI_Wtime();
        t[r] = (MPI_Wtime() - t0) / CLOCK_PAIRS;
    }
    if (sink > 1.0) fprintf(stderr, "clock went backwards\n");
    return 0.5 * ovk_bench_median(t, CLOCK_ROUNDS);
}

/* Dummy units per CPU second on this rank: the best of CALIBRATE_WINDOWS
 * windows of about CALIBRATE_WINDOW_S of thread CPU time. */
static double calibrate_dummy(void)
{
    long n = DUMMY_FIRST_UNITS;
    double best = 0.0;
    for (;;) { /* grow n to one window */
        double t0 = ovk_bench_cpu_s();
        dummy_units(n);
        if (ovk_bench_cpu_s() - t0 >= CALIBRATE_WINDOW_S) break;
        n *= 2;
    }
    for (int r = 0; r < CALIBRATE_WINDOWS; r++) {
        double t0 = ovk_bench_cpu_s();
        dummy_units(n);
        double dt = ovk_bench_cpu_s() - t0;
        if (dt > 0.0 && (double)n / dt > best) best = (double)n / dt;
    }
    return best;
}

/* Time of one DGEMM call of size n: the fastest of a few (after a warm-up
 * call), i.e. the undisturbed time.  Wall clock: BLAS may use threads. */
static double time_dgemm(const compute *c, int n)
{
    double best = 0.0;
    dgemm_calls(c, n, 1);
    for (int i = 0; i < DGEMM_TIMED_CALLS; i++) {
        double t0 = MPI_Wtime();
        dgemm_calls(c, n, 1);
        double t = MPI_Wtime() - t0;
        if (i == 0 || t < best) best = t;
    }
    return best;
}

/* Seconds per DGEMM call of each candidate size (or of -dgemm_n), max over
 * ranks, so that every rank makes the same choice. */
static void calibrate_dgemm(compute *c)
{
    int slow = 0;
    for (int k = 0; k < DGEMM_CANDIDATES; k++) {
        c->dgemm_call_s[k] = 0.0;
        if (dgemm_sizes[k] > c->dgemm_nmax || slow || c->dgemm_n) continue;
        c->dgemm_call_s[k] = time_dgemm(c, dgemm_sizes[k]);
        slow = c->dgemm_call_s[k] > DGEMM_CALL_MAX_S;
    }
    ovk_bench_max(c->dgemm_call_s, DGEMM_CANDIDATES);
    c->dgemm_fixed_call_s = c->dgemm_n ? time_dgemm(c, c->dgemm_n) : 0.0;
    ovk_bench_max(&c->dgemm_fixed_call_s, 1);
}

/* DGEMM operands of the largest size in one block (any values without
 * zeros; c is only written). */
static int alloc_operands(compute *c)
{
    size_t n2 = (size_t)c->dgemm_nmax * (size_t)c->dgemm_nmax;
    c->a = calloc(3 * n2, sizeof(double));
    if (!c->a) return OVK_ENOMEM;
    c->b = c->a + n2;
    c->c = c->b + n2;
    for (size_t i = 0; i < n2; i++) {
        c->a[i] = 1.0 / (double)(i % 97 + 1);
        c->b[i] = 1.0 / (double)(i % 89 + 1);
    }
    return OVK_OK;
}

int ovk_ob_compute_init(compute *c, const options *o)
{
    memset(c, 0, sizeof *c);
    c->kind = o->compute;
    c->dgemm_n = o->dgemm_n;
    c->dgemm_nmax = o->dgemm_nmax;
    if (o->mode != MODE_OVERLAP) return OVK_OK;
    if (c->kind == COMPUTE_DUMMY) {
        c->dummy_units_per_s = calibrate_dummy();
        return OVK_OK;
    }
    int rc = ovk_drv_agree(alloc_operands(c));
    if (rc) return rc;
    calibrate_dgemm(c);
    return OVK_OK;
}

void ovk_ob_compute_free(compute *c)
{
    free(c->a); /* b and c with it */
    c->a = c->b = c->c = NULL;
}

/* 2 n^3 flops per call */
static double dgemm_flops(int n) { return 2.0 * pow(n, 3); }

void ovk_ob_compute_describe(FILE *f, const compute *c)
{
    const char *blas_threads = getenv("OPENBLAS_NUM_THREADS");
    if (c->dummy_units_per_s > 0.0) fprintf(f, ", dummy unit %.2f ns", 1e9 / c->dummy_units_per_s);
    if (c->a) fprintf(f, ", OPENBLAS_NUM_THREADS=%s", blas_threads ? blas_threads : "(unset)");
    fprintf(f, "\n");
    for (int k = 0; c->a && k < DGEMM_CANDIDATES; k++)
        if (c->dgemm_call_s[k] > 0.0)
            fprintf(f, "#   dgemm N=%d: %.2f us/call, %.2f GFLOP/s\n", dgemm_sizes[k], 1e6 * c->dgemm_call_s[k],
                    1e-9 * dgemm_flops(dgemm_sizes[k]) / c->dgemm_call_s[k]);
}

/* ---- the plan ---------------------------------------------------------------- */

/* The largest timed size whose call fits in slice_s (the smallest if none). */
static int dgemm_pick(const compute *c, double slice_s)
{
    int pick = -1;
    for (int k = 0; k < DGEMM_CANDIDATES; k++) {
        if (c->dgemm_call_s[k] <= 0.0) continue;
        if (pick < 0 || c->dgemm_call_s[k] <= slice_s) pick = k;
    }
    return pick;
}

plan ovk_ob_make_plan(const compute *c, double seconds, int tests)
{
    plan p = {c->kind, 0, 0, seconds};
    if (p.kind == COMPUTE_DUMMY) {
        p.units = (long)ceil(seconds * c->dummy_units_per_s);
        return p;
    }
    int k = c->dgemm_n ? -1 : dgemm_pick(c, seconds / (tests + 1));
    double call_s = k < 0 ? c->dgemm_fixed_call_s : c->dgemm_call_s[k];
    p.dgemm_n = k < 0 ? c->dgemm_n : dgemm_sizes[k];
    p.units = (long)ceil(seconds / call_s);
    if (p.units < 1) p.units = 1;
    return p;
}

/* The flops of one plan's compute (the DGEMM columns of the CSV). */
double ovk_ob_plan_flops(const plan *p) { return dgemm_flops(p->dgemm_n) * (double)p->units; }

/* ovk_overlap_bench: the compute phase (dummy units or DGEMM calls), its
 * calibration and the plan of one measurement. */
#include "overlap.h"

const char *const ovk_ob_poll_names[POLL_KINDS] = {"none", "test", "hook"};
const int ovk_ob_dgemm_sizes[DGEMM_CANDIDATES] = {4,   8,   12,  16,  24,  32,  48,   64,   96,
                                   128, 192, 256, 384, 512, 768, 1024, 1536, 2048};


/* ---- compute kernels ---------------------------------------------------- */

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

static void dgemm_calls(const context *cx, int n, long calls)
{
    for (long i = 0; i < calls; i++)
        cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0, cx->a, n, cx->b, n, 0.0, cx->c, n);
}


void ovk_ob_run_units(const context *cx, const plan *p, long n)
{
    if (n <= 0) return;
    if (p->kind == COMPUTE_DUMMY) dummy_units(n);
    else dgemm_calls(cx, p->dgemm_n, n);
}

/* Median time of one MPI_Wtime call. */
double ovk_ob_measure_clock_read(void)
{
    enum { PAIRS = 1000, ROUNDS = 11 };
    double t[ROUNDS], sink = 0.0;
    for (int r = 0; r < ROUNDS; r++) {
        double t0 = MPI_Wtime();
        for (int i = 0; i < PAIRS; i++) sink += MPI_Wtime() - MPI_Wtime();
        t[r] = (MPI_Wtime() - t0) / PAIRS;
    }
    if (sink > 1.0) fprintf(stderr, "clock went backwards\n");
    return 0.5 * ovk_drv_median(t, ROUNDS);
}

/* CPU time of the calling thread: unlike the wall clock it does not run
 * while the thread is preempted, so calibrations on a busy machine see the
 * undisturbed rate. */
static double thread_cpu_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Dummy units per CPU second on this rank: the best of CALIBRATE_WINDOWS
 * windows of about CALIBRATE_WINDOW_S. */
double ovk_ob_calibrate_dummy(void)
{
    long n = 1000;
    double best = 0.0;
    for (;;) { /* grow n to one window */
        double t0 = thread_cpu_s();
        dummy_units(n);
        if (thread_cpu_s() - t0 >= CALIBRATE_WINDOW_S) break;
        n *= 2;
    }
    for (int r = 0; r < CALIBRATE_WINDOWS; r++) {
        double t0 = thread_cpu_s();
        dummy_units(n);
        double dt = thread_cpu_s() - t0;
        if (dt > 0.0 && (double)n / dt > best) best = (double)n / dt;
    }
    return best;
}

/* Time of one DGEMM call of size n: the fastest of a few (after a warm-up
 * call), i.e. the undisturbed time.  Wall clock: BLAS may use threads. */
static double time_dgemm(const context *cx, int n)
{
    enum { CALLS = 5 };
    double best = 0.0;
    dgemm_calls(cx, n, 1);
    for (int i = 0; i < CALLS; i++) {
        double t0 = MPI_Wtime();
        dgemm_calls(cx, n, 1);
        double t = MPI_Wtime() - t0;
        if (i == 0 || t < best) best = t;
    }
    return best;
}

/* Seconds per DGEMM call of each candidate size (or of -dgemm_n), max over
 * ranks, so that every rank makes the same choice. */
void ovk_ob_calibrate_dgemm(context *cx)
{
    int slow = 0;
    for (int k = 0; k < DGEMM_CANDIDATES; k++) {
        cx->dgemm_call_s[k] = 0.0;
        if (ovk_ob_dgemm_sizes[k] > cx->o->dgemm_nmax || slow || cx->o->dgemm_n) continue;
        cx->dgemm_call_s[k] = time_dgemm(cx, ovk_ob_dgemm_sizes[k]);
        slow = cx->dgemm_call_s[k] > DGEMM_CALL_MAX_S;
    }
    ovk_ob_max_over_ranks(cx->dgemm_call_s, DGEMM_CANDIDATES);
    cx->dgemm_fixed_call_s = cx->o->dgemm_n ? time_dgemm(cx, cx->o->dgemm_n) : 0.0;
    ovk_ob_max_over_ranks(&cx->dgemm_fixed_call_s, 1);
}

/* The largest timed size whose call fits in slice_s (the smallest if none). */
static int dgemm_pick(const context *cx, double slice_s)
{
    int pick = -1;
    for (int k = 0; k < DGEMM_CANDIDATES; k++) {
        if (cx->dgemm_call_s[k] <= 0.0) continue;
        if (pick < 0 || cx->dgemm_call_s[k] <= slice_s) pick = k;
    }
    return pick;
}

plan ovk_ob_make_plan(const context *cx, double seconds, int tests)
{
    plan p = {cx->o->compute, 0, 0, seconds};
    if (p.kind == COMPUTE_DUMMY) {
        p.units = (long)ceil(seconds * cx->dummy_units_per_s);
        return p;
    }
    int k = cx->o->dgemm_n ? -1 : dgemm_pick(cx, seconds / (tests + 1));
    double call_s = k < 0 ? cx->dgemm_fixed_call_s : cx->dgemm_call_s[k];
    p.dgemm_n = k < 0 ? cx->o->dgemm_n : ovk_ob_dgemm_sizes[k];
    p.units = (long)ceil(seconds / call_s);
    if (p.units < 1) p.units = 1;
    return p;
}


/* ovk_overlap_bench: one measurement (start, compute with polls, wait),
 * the sweep over poll counts and sizes, and the raw MPI references. */
#include "measure.h"

#include <stdlib.h>

#include "../../examples/common/experiment.h"
#include "../bench_common.h"

#define MIN_ESTIMATE_RUNS 10 /* base runs that size the compute, at least */
#define P90 0.9
#define MEDIAN 0.5
#define MESSAGE_PERIOD 1000 /* send[i] = 1 + MESSAGE_STEP (i mod MESSAGE_PERIOD) */
#define MESSAGE_STEP 1e-3

void ovk_ob_check(int rc, const char *what)
{
    if (rc == OVK_OK) return;
    fprintf(stderr, "ovk_overlap_bench: %s failed: %s: %s\n", what, ovk_strerror(rc), ovk_error_detail());
    MPI_Abort(MPI_COMM_WORLD, EXIT_RUNTIME);
}

/* room for n samples (seconds); aborts when there is none */
static double *samples(size_t n)
{
    double *t = malloc(n * sizeof *t);
    if (!t) ovk_ob_check(OVK_ENOMEM, "allocating samples");
    return t;
}

/* ---- one run ---------------------------------------------------------------- */

static ovk_request *start(const bench_case *bc)
{
    ovk_request *req = NULL;
    ovk_ob_check(ovk_reduce_start(bc->red, bc->send, bc->recv, bc->count, OVK_DOUBLE, OVK_SUM, &req),
                 "ovk_reduce_start");
    return req;
}

static void poll_once(const bench_case *bc, ovk_request *req, enum poll_kind poll)
{
    int done = 0;
    if (poll == POLL_TEST) ovk_ob_check(ovk_reduce_test(req, &done), "ovk_reduce_test");
    else if (poll == POLL_HOOK) ovk_ob_check(ovk_reducer_progress(bc->red), "ovk_reducer_progress");
}

/* The compute phase: T+1 slices of p->units with a timed poll call between
 * slices; returns the time inside the polls (plus their clock reads). */
static double compute_with_polls(const context *cx, const bench_case *bc, const plan *p, ovk_request *req,
                                 int tests, enum poll_kind poll)
{
    double t_test = 0.0;
    long done_units = 0;
    for (int k = 0; k <= tests; k++) {
        long upto = (long)((double)p->units * (k + 1) / (tests + 1));
        ovk_ob_run_units(&cx->comp, p, upto - done_units);
        done_units = upto;
        if (k == tests) break;
        double t0 = MPI_Wtime();
        poll_once(bc, req, poll);
        t_test += MPI_Wtime() - t0 + cx->clock_read_s; /* the interval holds ~1 of the 2 reads */
    }
    return t_test;
}

/* The seconds of one start + wait of the backend (RAW_NONE) or of the MPI
 * call itself. */
static double latency_once(const bench_case *bc, enum raw_kind kind)
{
    MPI_Request mreq;
    ovk_request *req = NULL;
    double t0 = ovk_bench_sync();
    if (kind == RAW_NONE) {
        req = start(bc);
        ovk_ob_check(ovk_reduce_wait(req), "ovk_reduce_wait");
    } else if (kind == RAW_ALLREDUCE) {
        MPI_Allreduce(bc->send, bc->recv, bc->count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    } else {
        MPI_Iallreduce(bc->send, bc->recv, bc->count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &mreq);
        MPI_Wait(&mreq, MPI_STATUS_IGNORE);
    }
    double t = MPI_Wtime() - t0;
    if (req) ovk_ob_check(ovk_request_free(req), "ovk_request_free");
    return t;
}

/* The terms of one overlapped run, seconds. */
typedef struct sample {
    double init, test, compute, wait, overall;
} sample;

static sample overlap_once(const context *cx, const bench_case *bc, const plan *p, int tests, enum poll_kind poll)
{
    sample s;
    double t0 = ovk_bench_sync();
    ovk_request *req = start(bc);
    double t1 = MPI_Wtime();
    s.test = compute_with_polls(cx, bc, p, req, tests, poll);
    double t2 = MPI_Wtime();
    ovk_ob_check(ovk_reduce_wait(req), "ovk_reduce_wait");
    double t3 = MPI_Wtime();
    ovk_ob_check(ovk_request_free(req), "ovk_request_free");
    s.init = t1 - t0;
    s.compute = t2 - t1;
    s.wait = t3 - t2;
    s.overall = t3 - t0;
    return s;
}

static double compute_alone_once(const context *cx, const plan *p)
{
    double t0 = ovk_bench_sync();
    ovk_ob_run_units(&cx->comp, p, p->units);
    return MPI_Wtime() - t0;
}

/* ---- the overlap rows --------------------------------------------------------- */

/* A first estimate of the base latency, to size the compute: median of the
 * warm-up runs of start + wait (at least MIN_ESTIMATE_RUNS), max over ranks. */
static double estimate_base(const context *cx, const bench_case *bc)
{
    int n = cx->o->warmup > MIN_ESTIMATE_RUNS ? cx->o->warmup : MIN_ESTIMATE_RUNS;
    double *t = samples((size_t)n);
    for (int i = 0; i < n; i++) t[i] = latency_once(bc, RAW_NONE);
    double base = ovk_bench_median(t, n);
    free(t);
    return ovk_bench_slowest(base);
}

enum term { T_BASE, T_ALONE, T_INIT, T_TEST, T_COMPUTE, T_WAIT, T_OVERALL, TERMS };

/* R repeats, each of a base run (start + wait), the compute alone (dgemm
 * only) and an overlapped run, so that slow drifts of a shared machine hit
 * the base latency and the overlapped run alike; medians, then max over
 * ranks. */
static void measure_row(const context *cx, const bench_case *bc, const plan *p, int tests, enum poll_kind poll,
                        row_stats *st)
{
    int R = cx->o->repeat, alone = p->kind == COMPUTE_DGEMM;
    double *v = samples((size_t)R * TERMS), m[TERMS] = {0};
    for (int i = 0; i < cx->o->warmup; i++) overlap_once(cx, bc, p, tests, poll);
    for (int i = 0; i < R; i++) {
        v[T_BASE * R + i] = latency_once(bc, RAW_NONE);
        v[T_ALONE * R + i] = alone ? compute_alone_once(cx, p) : 0.0;
        sample s = overlap_once(cx, bc, p, tests, poll);
        v[T_INIT * R + i] = s.init, v[T_TEST * R + i] = s.test, v[T_COMPUTE * R + i] = s.compute;
        v[T_WAIT * R + i] = s.wait, v[T_OVERALL * R + i] = s.overall;
    }
    for (int k = 0; k < TERMS; k++) m[k] = ovk_bench_median(v + (size_t)k * R, R);
    free(v);
    ovk_bench_max(m, TERMS);
    st->base = m[T_BASE], st->alone = m[T_ALONE], st->init = m[T_INIT], st->test = m[T_TEST];
    st->compute = m[T_COMPUTE], st->wait = m[T_WAIT], st->overall = m[T_OVERALL];
}

/* One row per poll count and poll kind (0 calls: poll none). */
static void sweep_tests(const context *cx, const bench_case *bc, double base)
{
    for (int t = 0; t < cx->o->ntests; t++) {
        int tests = cx->o->tests[t];
        for (int pk = POLL_NONE; pk < POLL_KINDS; pk++) {
            enum poll_kind poll = (enum poll_kind)pk;
            if (tests == 0 ? poll != POLL_NONE : (poll == POLL_NONE || !cx->o->polls[poll])) continue;
            plan p = ovk_ob_make_plan(&cx->comp, base * cx->o->compute_factor, tests);
            row_stats st;
            measure_row(cx, bc, &p, tests, poll, &st);
            if (cx->rank == 0) ovk_ob_print_overlap_row(&cx->out, bc, tests, poll, &p, &st);
        }
    }
}

/* ---- the latency rows ---------------------------------------------------------- */

/* median, minimum and 90th percentile of R runs, max over ranks */
static void latency_row(const context *cx, const bench_case *bc, enum raw_kind kind)
{
    int R = cx->o->repeat;
    double *t = samples((size_t)R), q[3];
    for (int i = 0; i < cx->o->warmup; i++) latency_once(bc, kind);
    for (int i = 0; i < R; i++) t[i] = latency_once(bc, kind);
    q[0] = ovk_drv_quantile(t, R, MEDIAN);
    q[1] = t[0]; /* sorted by the quantile */
    q[2] = ovk_drv_quantile(t, R, P90);
    free(t);
    ovk_bench_max(q, 3);
    if (cx->rank == 0) ovk_ob_print_latency_row(&cx->out, bc, q);
}

/* ---- sizes ------------------------------------------------------------------------ */

static void alloc_buffers(bench_case *bc, long bytes)
{
    bc->bytes = bytes;
    bc->count = (int)(bytes / (long)sizeof(double));
    bc->send = malloc((size_t)bytes);
    bc->recv = malloc((size_t)bytes);
    if (!bc->send || !bc->recv) ovk_ob_check(OVK_ENOMEM, "allocating message buffers");
    for (int i = 0; i < bc->count; i++) bc->send[i] = 1.0 + MESSAGE_STEP * (i % MESSAGE_PERIOD);
}

static void free_buffers(bench_case *bc)
{
    free(bc->send);
    free(bc->recv);
    bc->send = bc->recv = NULL;
}

void ovk_ob_run_size(const context *cx, bench_case *bc, long bytes)
{
    alloc_buffers(bc, bytes);
    if (cx->o->mode == MODE_OVERLAP) sweep_tests(cx, bc, estimate_base(cx, bc));
    else latency_row(cx, bc, RAW_NONE);
    free_buffers(bc);
}

void ovk_ob_run_raw(const context *cx, enum raw_kind kind)
{
    bench_case bc = {kind == RAW_ALLREDUCE ? "MPI_Allreduce" : "MPI_Iallreduce", NULL, NULL, NULL, 0, 0};
    for (int s = 0; s < cx->o->nsizes; s++) {
        alloc_buffers(&bc, cx->o->sizes[s]);
        latency_row(cx, &bc, kind);
        free_buffers(&bc);
    }
}

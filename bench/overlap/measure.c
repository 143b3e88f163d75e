/* ovk_overlap_bench: one measurement (start, compute with polls, wait),
 * the sweep over poll counts and sizes, and the raw MPI references. */
#include "overlap.h"

/* ---- small helpers -------------------------------------------------------- */

void ovk_ob_max_over_ranks(double *v, int n)
{
    MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
}

/* A runtime failure of the library during a measurement: no way to keep the
 * other ranks in step, so abort rather than hang. */
void ovk_ob_check(int rc, const char *what)
{
    if (rc == OVK_OK) return;
    fprintf(stderr, "ovk_overlap_bench: %s failed: %s: %s\n", what, ovk_strerror(rc), ovk_error_detail());
    MPI_Abort(MPI_COMM_WORLD, EXIT_RUNTIME);
}

/* ---- one measurement ------------------------------------------------------ */




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
        ovk_ob_run_units(cx, p, upto - done_units);
        done_units = upto;
        if (k == tests) break;
        double t0 = MPI_Wtime();
        poll_once(bc, req, poll);
        t_test += MPI_Wtime() - t0 + cx->clock_read_s; /* the interval holds ~1 of the 2 reads */
    }
    return t_test;
}

static double start_wait_once(const bench_case *bc)
{
    ovk_request *req = NULL;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    ovk_ob_check(ovk_reduce_start(bc->red, bc->send, bc->recv, bc->count, OVK_DOUBLE, OVK_SUM, &req), "ovk_reduce_start");
    ovk_ob_check(ovk_reduce_wait(req), "ovk_reduce_wait");
    double t = MPI_Wtime() - t0;
    ovk_ob_check(ovk_request_free(req), "ovk_request_free");
    return t;
}

static sample overlap_once(const context *cx, const bench_case *bc, const plan *p, int tests, enum poll_kind poll)
{
    ovk_request *req = NULL;
    sample s;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    ovk_ob_check(ovk_reduce_start(bc->red, bc->send, bc->recv, bc->count, OVK_DOUBLE, OVK_SUM, &req), "ovk_reduce_start");
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
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    ovk_ob_run_units(cx, p, p->units);
    return MPI_Wtime() - t0;
}

/* A first estimate of the base latency, to size the compute: median of the
 * warm-up runs of start + wait (at least MIN_ESTIMATE_RUNS), max over ranks. */
static double estimate_base(const context *cx, const bench_case *bc)
{
    int n = cx->o->warmup > MIN_ESTIMATE_RUNS ? cx->o->warmup : MIN_ESTIMATE_RUNS;
    double *t = malloc((size_t)n * sizeof *t);
    if (!t) ovk_ob_check(OVK_ENOMEM, "allocating samples");
    for (int i = 0; i < n; i++) t[i] = start_wait_once(bc);
    double base = ovk_drv_median(t, n);
    free(t);
    ovk_ob_max_over_ranks(&base, 1);
    return base;
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
    double *v = malloc((size_t)R * TERMS * sizeof *v), m[TERMS] = {0};
    if (!v) ovk_ob_check(OVK_ENOMEM, "allocating samples");
    for (int i = 0; i < cx->o->warmup; i++) overlap_once(cx, bc, p, tests, poll);
    for (int i = 0; i < R; i++) {
        v[T_BASE * R + i] = start_wait_once(bc);
        v[T_ALONE * R + i] = alone ? compute_alone_once(cx, p) : 0.0;
        sample s = overlap_once(cx, bc, p, tests, poll);
        v[T_INIT * R + i] = s.init, v[T_TEST * R + i] = s.test, v[T_COMPUTE * R + i] = s.compute;
        v[T_WAIT * R + i] = s.wait, v[T_OVERALL * R + i] = s.overall;
    }
    for (int k = 0; k < TERMS; k++) m[k] = ovk_drv_median(v + (size_t)k * R, R);
    free(v);
    ovk_ob_max_over_ranks(m, TERMS);
    st->base = m[T_BASE], st->alone = m[T_ALONE], st->init = m[T_INIT], st->test = m[T_TEST];
    st->compute = m[T_COMPUTE], st->wait = m[T_WAIT], st->overall = m[T_OVERALL];
}

double ovk_ob_overlap_pct(const row_stats *st)
{
    double cpu_comm = st->overall - (st->compute - st->test);
    double pct = 100.0 * (1.0 - cpu_comm / st->base);
    return pct > 0.0 ? pct : 0.0;
}

/* ---- the overlap sweep -------------------------------------------------- */

static void sweep_tests(const context *cx, const char *spec, const bench_case *bc, long bytes, double base)
{
    for (int t = 0; t < cx->o->ntests; t++) {
        int tests = cx->o->tests[t];
        for (int pk = POLL_NONE; pk < POLL_KINDS; pk++) {
            enum poll_kind poll = (enum poll_kind)pk;
            if (tests == 0 ? poll != POLL_NONE : (poll == POLL_NONE || !cx->o->polls[poll])) continue;
            plan p = ovk_ob_make_plan(cx, base * cx->o->compute_factor, tests);
            row_stats st;
            measure_row(cx, bc, &p, tests, poll, &st);
            if (cx->rank == 0) ovk_ob_print_overlap_row(cx, spec, bc, bytes, tests, poll, &p, &st);
        }
    }
}

static void alloc_buffers(bench_case *bc, long bytes)
{
    bc->count = (int)(bytes / (long)sizeof(double));
    bc->send = malloc((size_t)bytes);
    bc->recv = malloc((size_t)bytes);
    if (!bc->send || !bc->recv) ovk_ob_check(OVK_ENOMEM, "allocating message buffers");
    for (int i = 0; i < bc->count; i++) bc->send[i] = 1.0 + 1e-3 * (i % 1000);
}

static void free_buffers(bench_case *bc)
{
    free(bc->send);
    free(bc->recv);
    bc->send = bc->recv = NULL;
}

static void latency_row(const context *cx, const char *spec, const bench_case *bc, long bytes, double *t, int R)
{
    double v[3];
    v[0] = ovk_drv_quantile(t, R, 0.5);
    v[1] = t[0]; /* sorted by quantile */
    v[2] = ovk_drv_quantile(t, R, 0.9);
    ovk_ob_max_over_ranks(v, 3);
    if (cx->rank) return;
    char sp[TEXT_LEN], model[TEXT_LEN];
    double lat_us = 0.0;
    ovk_ob_csv_safe(spec, sp, sizeof sp);
    ovk_ob_model_text(bc->red, cx->size, (double)bytes, model, sizeof model, &lat_us);
    fprintf(cx->out, "%s,%ld,%d,%d,%d,%.3f,%.3f,%.3f,%s,%g,%g,%g,%s\n", sp, bytes, bc->count, cx->size, R,
            1e6 * v[0], 1e6 * v[1], 1e6 * v[2], model, lat_us, cx->o->noise_hz, cx->o->noise_us,
            ovk_ob_level_name(cx->provided));
    fflush(cx->out);
}

void ovk_ob_run_size(const context *cx, const char *spec, bench_case *bc, long bytes)
{
    alloc_buffers(bc, bytes);
    if (cx->o->mode == MODE_OVERLAP) {
        sweep_tests(cx, spec, bc, bytes, estimate_base(cx, bc));
    } else {
        int R = cx->o->repeat;
        double *t = malloc((size_t)R * sizeof *t);
        if (!t) ovk_ob_check(OVK_ENOMEM, "allocating samples");
        for (int i = 0; i < cx->o->warmup; i++) start_wait_once(bc);
        for (int i = 0; i < R; i++) t[i] = start_wait_once(bc);
        latency_row(cx, spec, bc, bytes, t, R);
        free(t);
    }
    free_buffers(bc);
}

/* ---- raw MPI references (latency mode, -raw) ----------------------------- */

static double raw_once(enum raw_kind kind, const bench_case *bc)
{
    MPI_Request req;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    if (kind == RAW_ALLREDUCE) {
        MPI_Allreduce(bc->send, bc->recv, bc->count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    } else {
        MPI_Iallreduce(bc->send, bc->recv, bc->count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    }
    return MPI_Wtime() - t0;
}

void ovk_ob_run_raw(const context *cx, enum raw_kind kind)
{
    const char *name = kind == RAW_ALLREDUCE ? "MPI_Allreduce" : "MPI_Iallreduce";
    for (int s = 0; s < cx->o->nsizes; s++) {
        bench_case bc = {NULL, NULL, NULL, 0};
        int R = cx->o->repeat;
        double *t = malloc((size_t)R * sizeof *t);
        if (!t) ovk_ob_check(OVK_ENOMEM, "allocating samples");
        alloc_buffers(&bc, cx->o->sizes[s]);
        for (int i = 0; i < cx->o->warmup; i++) raw_once(kind, &bc);
        for (int i = 0; i < R; i++) t[i] = raw_once(kind, &bc);
        latency_row(cx, name, &bc, cx->o->sizes[s], t, R);
        free(t);
        free_buffers(&bc);
    }
}


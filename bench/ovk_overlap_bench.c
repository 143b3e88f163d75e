/* ovk_overlap_bench: how much of a reduction's latency a backend hides behind
 * computation (the OSU overlap method of ../shared/seeds/004_*.txt Fig. 5 and
 * Table I, and the DGEMM overlap benchmark of 000_*.txt Fig. 9a), and, with
 * -mode latency, the plain latency of start + wait.
 *
 * Per backend spec and message size (doubles, MPI sum):
 *
 *   t_pure     base latency: ovk_reduce_start + ovk_reduce_wait, no compute.
 *   Then, per number T of poll calls:
 *     t0 = now; start; t1 = now          t_init    = t1 - t0
 *     compute for c * t_pure, cut into T+1 equal slices with one poll call
 *     between consecutive slices; t2 = now
 *                                        t_compute = t2 - t1 (includes the polls)
 *                                        t_test    = time inside the poll calls
 *     wait; t3 = now                     t_wait    = t3 - t2
 *                                        t_overall = t3 - t0
 *
 *   overlap % = max(0, 100 * (1 - (t_overall - (t_compute - t_test)) / t_pure))
 *
 * (OSU's osu_iallreduce formula.)  t_overall - (t_compute - t_test) is the
 * time the CPU spent on the reduction rather than on the computation
 * (init + test + wait); 100 % means all of the base latency was hidden, 0 %
 * that none was (the reduction cost as much as alone, or more).
 *
 * Each term is the median over the repeats on each rank, then the maximum
 * over the ranks (MPI_Allreduce MAX outside the timed region); an
 * MPI_Barrier precedes every run.  Every repeat runs a base run (start +
 * wait), the compute alone (dgemm only) and an overlapped run, so that the
 * slow drifts of a shared machine hit all terms alike.  All ranks compute
 * for the same time, c * t_est (c = -compute_factor >= 1), t_est being the
 * median of the warm-up base runs (at least 10), max over ranks.
 * t_test is the sum of the intervals between the clock reads around each
 * poll call plus the cost of one clock read per call (measured at start-up):
 * the interval holds about one of the two reads, and the other one is
 * overhead of polling too, not compute.
 *
 * Poll calls (-poll): `test` = ovk_reduce_test on the request (progress mode
 * (a), explicit tests); `hook` = ovk_reducer_progress on the reducer, the
 * library's kernel hook (progress mode (b)): the library's long kernels call
 * it every K rows, which is exactly this benchmark's loop calling it between
 * T+1 slices of compute -- so `-poll hook -tests N` with the dummy loop IS
 * the kernel hook at K = compute/N.  Mode (c), the progress thread, is a
 * backend option (`nbc:thread=1`) run with -tests 0; offload engines
 * progress on their own.
 *
 * Compute (-compute): `dummy` = a busy loop of multiply-adds on 16 registers
 * (OSU's dummy compute), calibrated to time on each rank (thread CPU time); `dgemm` =
 * cblas_dgemm calls of one size N (the same N and call count on every rank)
 * chosen so that one call takes about t_pure / (T + 1); poll calls then fall
 * between calls (bunched when T exceeds the call count).  For dgemm the
 * DGEMM rate alone (the same calls without a reduction) and overlapped
 * (2 N^3 calls / (t_compute - t_test)) are reported in GFLOP/s.
 *
 * -mode latency: median, minimum and 90th percentile of start + wait over
 * -repeat runs (>= 1000 recommended), max over ranks; -raw adds MPI_Allreduce
 * and MPI_Iallreduce + MPI_Wait called directly on MPI_COMM_WORLD.
 *
 * Output: CSV (rank 0), to -csv FILE (appended; '#' comment lines with this
 * formula and the header row first when the file is empty) or stdout.
 * Bad input exits 2 on every rank with a message from rank 0; a backend that
 * is registered but cannot run here (e.g. needs MPI_THREAD_MULTIPLE, or
 * offload without its engine) is skipped with a message.
 *
 * The parts (bench/overlap): args.c the command line, compute.c the compute
 * phase and its calibration, measure.c the measurements, output.c the CSV;
 * this file the backends, the set-up and main.
 */
#include "overlap/overlap.h"

/* ---- backends ------------------------------------------------------------ */

/* Create the reducer of a spec with the -latency_* model.  OVK_OK, or a
 * status all ranks agree on (OVK_EUNSUPPORTED: skip; others: bad input). */
static int make_reducer(const options *o, const char *spec, ovk_reducer **red)
{
    int rc = ovk_reducer_create(MPI_COMM_WORLD, spec, red);
    if (rc) return rc;
    if (o->have_latency) rc = ovk_drv_agree(ovk_reducer_set_latency(*red, &o->lat));
    if (rc) {
        ovk_reducer_destroy(*red);
        *red = NULL;
    }
    return rc;
}

static void run_backend(const context *cx, const char *spec)
{
    bench_case bc = {NULL, NULL, NULL, 0};
    int rc = make_reducer(cx->o, spec, &bc.red);
    if (rc) { /* validated before: only "cannot run here" gets this far */
        if (cx->rank == 0)
            fprintf(stderr, "# skipped backend %s: %s: %s\n", spec, ovk_strerror(rc), ovk_error_detail());
        return;
    }
    for (int s = 0; s < cx->o->nsizes; s++) ovk_ob_run_size(cx, spec, &bc, cx->o->sizes[s]);
    ovk_ob_check(ovk_reducer_destroy(bc.red), "ovk_reducer_destroy");
}

/* Backends of the project that a build may leave out: an unknown name among
 * these means "not built here" (skipped), any other unknown name is an error. */
static const char *const optional_backends[] = {"offload", NULL};

static int is_optional_backend(const char *spec)
{
    size_t n = strcspn(spec, ":");
    for (int i = 0; optional_backends[i]; i++)
        if (strlen(optional_backends[i]) == n && !strncmp(spec, optional_backends[i], n)) return 1;
    return 0;
}

/* One spec: OVK_OK when it runs here (*usable = 1), OVK_OK with *usable = 0
 * when it cannot run here or is not built (skipped), else the bad-input
 * status.  Messages on rank 0. */
static int check_spec(const options *o, const char *spec, int rank, int *usable)
{
    ovk_reducer *red = NULL;
    int rc = make_reducer(o, spec, &red);
    *usable = rc == OVK_OK;
    if (rc == OVK_OK) return ovk_reducer_destroy(red);
    const char *why = ovk_error_detail();
    if (rc == OVK_EUNSUPPORTED) {
        if (rank == 0) fprintf(stderr, "# backend %s cannot run here, skipped: %s\n", spec, why);
        return OVK_OK;
    }
    if (rc == OVK_EBACKEND && is_optional_backend(spec)) {
        if (rank == 0) fprintf(stderr, "# backend %s is not built into this library, skipped: %s\n", spec, why);
        return OVK_OK;
    }
    if (rank == 0) fprintf(stderr, "ovk_overlap_bench: -backend %s: %s: %s\n", spec, ovk_strerror(rc), why);
    return rc;
}

/* Every spec creates (or is skipped), the model and the noise are
 * accepted: else a message on rank 0 and a status for exit 2. */
static int validate(const options *o, int rank, int *usable)
{
    for (int i = 0; i < o->nspecs; i++) {
        int rc = check_spec(o, o->specs[i], rank, &usable[i]);
        if (rc) return rc;
    }
    if (o->noise_hz == 0.0 && o->noise_us == 0.0) return OVK_OK;
    int rc = ovk_drv_agree(ovk_noise_start(o->noise_hz, o->noise_us, o->seed));
    ovk_noise_stop();
    if (rc && rank == 0)
        fprintf(stderr, "ovk_overlap_bench: -noise %g %g: %s\n", o->noise_hz, o->noise_us, ovk_error_detail());
    return rc;
}

/* DGEMM operands of the largest size and the per-size call times. */
static int setup_dgemm(context *cx)
{
    size_t n2 = (size_t)cx->o->dgemm_nmax * (size_t)cx->o->dgemm_nmax;
    cx->a = malloc(n2 * sizeof(double));
    cx->b = malloc(n2 * sizeof(double));
    cx->c = calloc(n2, sizeof(double));
    if (!cx->a || !cx->b || !cx->c) return OVK_ENOMEM;
    for (size_t i = 0; i < n2; i++) {
        cx->a[i] = 1.0 / (double)(i % 97 + 1);
        cx->b[i] = 1.0 / (double)(i % 89 + 1);
    }
    ovk_ob_calibrate_dgemm(cx);
    return OVK_OK;
}

static int setup_context(context *cx, const options *o)
{
    memset(cx, 0, sizeof *cx);
    cx->o = o;
    MPI_Comm_rank(MPI_COMM_WORLD, &cx->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &cx->size);
    MPI_Query_thread(&cx->provided);
    cx->clock_read_s = ovk_ob_measure_clock_read();
    if (o->mode == MODE_OVERLAP && o->compute == COMPUTE_DUMMY) cx->dummy_units_per_s = ovk_ob_calibrate_dummy();
    if (o->mode == MODE_OVERLAP && o->compute == COMPUTE_DGEMM && setup_dgemm(cx)) return OVK_ENOMEM;
    cx->out = cx->rank == 0 ? ovk_ob_open_output(o) : NULL;
    return (cx->rank == 0 && !cx->out) ? OVK_EFILE : OVK_OK;
}

static void print_setup(const context *cx)
{
    const char *blas_threads = getenv("OPENBLAS_NUM_THREADS");
    fprintf(stderr, "# ovk_overlap_bench: %d ranks, MPI thread level %s, MPI_Wtime %.1f ns", cx->size,
            ovk_ob_level_name(cx->provided), 1e9 * cx->clock_read_s);
    if (cx->dummy_units_per_s > 0.0) fprintf(stderr, ", dummy unit %.2f ns", 1e9 / cx->dummy_units_per_s);
    if (cx->a) fprintf(stderr, ", OPENBLAS_NUM_THREADS=%s", blas_threads ? blas_threads : "(unset)");
    fprintf(stderr, "\n");
    for (int k = 0; cx->a && k < DGEMM_CANDIDATES; k++)
        if (cx->dgemm_call_s[k] > 0.0)
            fprintf(stderr, "#   dgemm N=%d: %.2f us/call, %.2f GFLOP/s\n", ovk_ob_dgemm_sizes[k],
                    1e6 * cx->dgemm_call_s[k], 2e-9 * pow(ovk_ob_dgemm_sizes[k], 3) / cx->dgemm_call_s[k]);
}

/* Noise with a phase of its own on every rank. */
static void noise_on(const context *cx)
{
    if (cx->o->noise_hz <= 0.0) return;
    unsigned seed = cx->o->seed ^ (0x9E3779B9u * (unsigned)(cx->rank + 1));
    ovk_ob_check(ovk_noise_start(cx->o->noise_hz, cx->o->noise_us, seed), "ovk_noise_start");
}

static void teardown(context *cx)
{
    if (cx->out && cx->out != stdout) fclose(cx->out);
    free(cx->a), free(cx->b), free(cx->c);
}

/* ---- main ------------------------------------------------------------------ */

static int finish(options *o, int code)
{
    ovk_ob_free_specs(o);
    MPI_Finalize();
    return code;
}

int main(int argc, char **argv)
{
    int provided = 0, rank = 0;
    options o;
    char err[TEXT_LEN] = "";
    MPI_Init_thread(&argc, &argv, ovk_ob_requested_level(argc, argv), &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int prc = ovk_drv_agree(ovk_ob_parse_args(argc, argv, &o, err));
    if (prc || o.help || o.list) {
        if (rank == 0 && prc) fprintf(stderr, "ovk_overlap_bench: %s\n", err);
        if (rank == 0 && o.help) ovk_ob_usage(stdout);
        if (rank == 0 && o.list) ovk_backend_print(stdout);
        return finish(&o, prc ? EXIT_USAGE : 0);
    }
    int usable[MAX_SPECS];
    if (validate(&o, rank, usable)) return finish(&o, EXIT_USAGE);
    context cx;
    int rc = ovk_drv_agree(setup_context(&cx, &o));
    if (rc) {
        if (rank == 0 && rc == OVK_EFILE) fprintf(stderr, "ovk_overlap_bench: cannot append to -csv %s\n", o.csv);
        else if (rank == 0) fprintf(stderr, "ovk_overlap_bench: cannot set up: %s\n", ovk_strerror(rc));
        teardown(&cx);
        return finish(&o, EXIT_USAGE);
    }
    if (rank == 0) print_setup(&cx);
    noise_on(&cx); /* after the calibrations, which must see a quiet machine */
    for (int i = 0; i < o.nspecs; i++)
        if (usable[i]) run_backend(&cx, o.specs[i]);
    if (o.mode == MODE_LATENCY && o.raw) {
        ovk_ob_run_raw(&cx, RAW_ALLREDUCE);
        ovk_ob_run_raw(&cx, RAW_IALLREDUCE);
    }
    long hits = o.noise_hz > 0.0 ? ovk_noise_stop() : 0;
    if (o.noise_hz > 0.0 && rank == 0) fprintf(stderr, "# noise: %ld interruptions on rank 0\n", hits);
    teardown(&cx);
    return finish(&o, 0);
}


/* ovk_overlap_bench: how much of a reduction's latency a backend hides behind
 * computation (the OSU overlap method of ../shared/seeds/004_*.txt Fig. 5 and
 * Table I, and the DGEMM overlap benchmark of 000_*.txt Fig. 9a), and, with
 * -mode latency, the plain latency of start + wait.
 *
 * Per backend spec and message size (doubles, MPI sum), per number T of
 * poll calls:
 *
 *   t_pure     base latency: ovk_reduce_start + ovk_reduce_wait, no compute
 *   t0 = now; start; t1 = now          t_init    = t1 - t0
 *   compute for c * t_pure in T+1 equal slices, one poll call between
 *   consecutive slices; t2 = now       t_compute = t2 - t1 (polls included)
 *                                      t_test    = time inside the polls
 *   wait; t3 = now                     t_wait    = t3 - t2, t_overall = t3 - t0
 *
 *   overlap % = max(0, 100 * (1 - (t_overall - (t_compute - t_test)) / t_pure))
 *
 * (OSU's osu_iallreduce formula: t_overall - (t_compute - t_test) is the CPU
 * time the reduction cost, init + test + wait.)  bench/README.md
 * (`ovk_overlap_bench`) has the rest of the method: the statistics (medians
 * over interleaved repeats, max over ranks), the dummy and DGEMM compute,
 * the poll kinds (-poll test, the kernel hook; the progress thread), the
 * latency model and noise, the thread level, bad input and the CSV columns.
 *
 * The parts (bench/overlap), each with its header, every header including
 * only the one below it: options.{h,c} the command line, compute.{h,c} the
 * compute phase and its calibration, output.{h,c} the CSV, measure.{h,c}
 * the measurements; this file the backends, the set-up and main.  The
 * clocks, the median and the slowest rank come from ../bench_common.h.
 */
#include <stdlib.h>
#include <string.h>

#include "../examples/common/experiment.h"
#include "overlap/measure.h"

#define NOISE_PHASE_MIX 0x9E3779B9u /* spreads the rank over the seed */

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
    bench_case bc = {spec, NULL, NULL, NULL, 0, 0};
    int rc = make_reducer(cx->o, spec, &bc.red);
    if (rc) { /* validated before: only "cannot run here" gets this far */
        if (cx->rank == 0)
            fprintf(stderr, "# skipped backend %s: %s: %s\n", spec, ovk_strerror(rc), ovk_error_detail());
        return;
    }
    for (int s = 0; s < cx->o->nsizes; s++) ovk_ob_run_size(cx, &bc, cx->o->sizes[s]);
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

/* ---- set-up ---------------------------------------------------------------- */

/* The clock, the compute's calibration and rank 0's output. */
static int setup_context(context *cx, const options *o, int rank)
{
    memset(cx, 0, sizeof *cx);
    cx->o = cx->out.o = o;
    cx->rank = rank;
    MPI_Comm_size(MPI_COMM_WORLD, &cx->out.nranks);
    MPI_Query_thread(&cx->out.provided);
    cx->clock_read_s = ovk_ob_clock_read();
    int rc = ovk_ob_compute_init(&cx->comp, o);
    if (rc) return rc;
    cx->out.f = rank == 0 ? ovk_ob_open_output(o) : NULL;
    return (rank == 0 && !cx->out.f) ? OVK_EFILE : OVK_OK;
}

static void print_setup(const context *cx)
{
    fprintf(stderr, "# ovk_overlap_bench: %d ranks, MPI thread level %s, MPI_Wtime %.1f ns", cx->out.nranks,
            ovk_ob_level_name(cx->out.provided), 1e9 * cx->clock_read_s);
    ovk_ob_compute_describe(stderr, &cx->comp);
}

/* Noise with a phase of its own on every rank. */
static void noise_on(const context *cx)
{
    if (cx->o->noise_hz <= 0.0) return;
    unsigned seed = cx->o->seed ^ (NOISE_PHASE_MIX * (unsigned)(cx->rank + 1));
    ovk_ob_check(ovk_noise_start(cx->o->noise_hz, cx->o->noise_us, seed), "ovk_noise_start");
}

static void noise_off(const context *cx)
{
    if (cx->o->noise_hz <= 0.0) return;
    long hits = ovk_noise_stop();
    if (cx->rank == 0) fprintf(stderr, "# noise: %ld interruptions on rank 0\n", hits);
}

static void teardown(context *cx)
{
    if (cx->out.f && cx->out.f != stdout) fclose(cx->out.f);
    ovk_ob_compute_free(&cx->comp);
}

/* ---- main ------------------------------------------------------------------ */

static int finish(options *o, int code)
{
    ovk_ob_free_specs(o);
    MPI_Finalize();
    return code;
}

/* -help, -backend list, or a bad flag (rc != 0: exit 2). */
static int finish_early(options *o, int rank, int rc, const char *err)
{
    if (rank == 0 && rc) fprintf(stderr, "ovk_overlap_bench: %s\n", err);
    if (rank == 0 && o->help) ovk_ob_usage(stdout);
    if (rank == 0 && o->list) ovk_backend_print(stdout);
    return finish(o, rc ? EXIT_USAGE : 0);
}

static int fail_setup(context *cx, options *o, int rc)
{
    if (cx->rank == 0 && rc == OVK_EFILE) fprintf(stderr, "ovk_overlap_bench: cannot append to -csv %s\n", o->csv);
    else if (cx->rank == 0) fprintf(stderr, "ovk_overlap_bench: cannot set up: %s\n", ovk_strerror(rc));
    teardown(cx);
    return finish(o, EXIT_USAGE);
}

int main(int argc, char **argv)
{
    int provided = 0, rank = 0, usable[MAX_SPECS];
    options o;
    context cx;
    char err[TEXT_LEN] = "";
    MPI_Init_thread(&argc, &argv, ovk_ob_requested_level(argc, argv), &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int rc = ovk_drv_agree(ovk_ob_parse_args(argc, argv, &o, err));
    if (rc || o.help || o.list) return finish_early(&o, rank, rc, err);
    if (validate(&o, rank, usable)) return finish(&o, EXIT_USAGE);
    rc = ovk_drv_agree(setup_context(&cx, &o, rank));
    if (rc) return fail_setup(&cx, &o, rc);
    if (rank == 0) print_setup(&cx);
    noise_on(&cx); /* after the calibrations, which must see a quiet machine */
    for (int i = 0; i < o.nspecs; i++)
        if (usable[i]) run_backend(&cx, o.specs[i]);
    if (o.mode == MODE_LATENCY && o.raw) {
        ovk_ob_run_raw(&cx, RAW_ALLREDUCE);
        ovk_ob_run_raw(&cx, RAW_IALLREDUCE);
    }
    noise_off(&cx);
    teardown(&cx);
    return finish(&o, 0);
}

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
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cblas.h>
#include <ovkrylov/ovkrylov.h>

#include "../examples/common/experiment.h"

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

static const char *const poll_names[POLL_KINDS] = {"none", "test", "hook"};
static const int dgemm_sizes[] = {4,   8,   12,  16,  24,  32,  48,   64,   96,
                                   128, 192, 256, 384, 512, 768, 1024, 1536, 2048};
enum { DGEMM_CANDIDATES = (int)(sizeof dgemm_sizes / sizeof dgemm_sizes[0]) };

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

/* ---- small helpers -------------------------------------------------------- */

static void max_over_ranks(double *v, int n)
{
    MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
}

/* A runtime failure of the library during a measurement: no way to keep the
 * other ranks in step, so abort rather than hang. */
static void check(int rc, const char *what)
{
    if (rc == OVK_OK) return;
    fprintf(stderr, "ovk_overlap_bench: %s failed: %s: %s\n", what, ovk_strerror(rc), ovk_error_detail());
    MPI_Abort(MPI_COMM_WORLD, EXIT_RUNTIME);
}

/* text with commas (CSV separators) replaced by ';' */
static void csv_safe(const char *in, char *out, size_t len)
{
    snprintf(out, len, "%s", in);
    for (char *c = out; *c; c++)
        if (*c == ',') *c = ';';
}

/* ---- argument parsing --------------------------------------------------- */

static void usage(FILE *f)
{
    fprintf(f,
            "usage: ovk_overlap_bench [flags]          (mpiexec -n P ...)\n"
            "  -mode overlap|latency   what to measure (overlap)\n"
            "  -backend SPECS          backend spec(s), repeatable; one argument may hold several\n"
            "                          separated by spaces (default: blocking); -backend list\n"
            "  -sizes LIST             message sizes in bytes, comma-separated, K/M suffixes\n"
            "                          (multiples of 8 in [8, 16M]; default 8,64,512,4K,32K,256K,1M)\n"
            "  -tests LIST             poll calls during compute (default 0,2,10,100,1000,10000)\n"
            "  -poll test,hook         poll call: ovk_reduce_test and/or ovk_reducer_progress (test)\n"
            "  -compute dummy|dgemm    the overlapped computation (dummy)\n"
            "  -compute_factor C       compute for C x base latency, C >= 1 (1)\n"
            "  -dgemm_n N              fixed DGEMM size (default: sized to the slice), -dgemm_nmax N (512)\n"
            "  -repeat R               repeats per measurement (%d; latency mode %d)\n"
            "  -warmup W               untimed repeats first (default R/10, at least 2)\n"
            "  -latency_us A           model every reduction to take >= A us (alpha=A)\n"
            "  -latency_model TEXT     alpha=..,beta=..,gamma=..,P=.. or a preset (default $%s)\n"
            "  -noise F D              interrupt each rank F times a second for D us\n"
            "  -seed S                 noise phase seed, combined with the rank (1)\n"
            "  -thread_level auto|single|funneled|serialized|multiple\n"
            "                          MPI_Init_thread level (auto: multiple when a spec needs it)\n"
            "  -raw                    latency mode: also MPI_Allreduce, MPI_Iallreduce directly\n"
            "  -csv FILE               append CSV rows to FILE (default stdout)\n"
            "  -help\n",
            DEFAULT_REPEAT, DEFAULT_LATENCY_REPEAT, OVK_LATENCY_ENV);
    ovk_latency_preset_print(f);
}

static int bad(char *err, const char *fmt, const char *a, const char *b)
{
    snprintf(err, TEXT_LEN, fmt, a, b);
    return -1;
}

static int parse_long(const char *s, long lo, long hi, long *v)
{
    char *end = NULL;
    errno = 0;
    long x = strtol(s, &end, 10);
    if (!*s || *end || errno || x < lo || x > hi) return -1;
    *v = x;
    return 0;
}

static int parse_double(const char *s, double *v)
{
    char *end = NULL;
    *v = strtod(s, &end);
    return (*s && !*end && isfinite(*v)) ? 0 : -1;
}

/* "8,64,4K,1M": byte counts, multiples of 8 in [MIN_BYTES, MAX_BYTES]. */
static int parse_sizes(const char *s, options *o, char *err)
{
    char buf[TEXT_LEN];
    snprintf(buf, sizeof buf, "%s", s);
    o->nsizes = 0;
    for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
        char *end = NULL;
        errno = 0;
        long v = strtol(tok, &end, 10);
        long unit = (*end == 'K' || *end == 'k') ? 1024L : (*end == 'M' || *end == 'm') ? 1024L * 1024L : 1L;
        if (unit > 1) end++;
        if (end == tok || *end || errno || o->nsizes == MAX_SIZES)
            return bad(err, "-sizes: '%s' is not a byte count like 8, 4K or 1M (at most 32; in '%s')", tok, s);
        if (v > MAX_BYTES / unit || v * unit < MIN_BYTES || (v * unit) % 8)
            return bad(err, "-sizes: %s: sizes must be multiples of 8 bytes in [8, 16M] (in '%s')", tok, s);
        o->sizes[o->nsizes++] = v * unit;
    }
    return o->nsizes ? 0 : bad(err, "-sizes: empty list '%s'%s", s, "");
}

static int parse_tests(const char *s, options *o, char *err)
{
    char buf[TEXT_LEN];
    snprintf(buf, sizeof buf, "%s", s);
    o->ntests = 0;
    for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
        long v = 0;
        if (parse_long(tok, 0, MAX_TEST_CALLS, &v) || o->ntests == MAX_TESTS)
            return bad(err, "-tests: '%s' is not a count in [0, 1000000] (at most 16 of them; in '%s')", tok, s);
        o->tests[o->ntests++] = (int)v;
    }
    return o->ntests ? 0 : bad(err, "-tests: empty list '%s'%s", s, "");
}

static int parse_polls(const char *s, options *o, char *err)
{
    char buf[TEXT_LEN];
    snprintf(buf, sizeof buf, "%s", s);
    memset(o->polls, 0, sizeof o->polls);
    for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
        if (!strcmp(tok, "test")) o->polls[POLL_TEST] = 1;
        else if (!strcmp(tok, "hook")) o->polls[POLL_HOOK] = 1;
        else return bad(err, "-poll: '%s' is not test or hook (in '%s')", tok, s);
    }
    return (o->polls[POLL_TEST] || o->polls[POLL_HOOK]) ? 0 : bad(err, "-poll: empty list '%s'%s", s, "");
}

/* One -backend argument: one or more specs separated by blanks. */
static int add_specs(const char *s, options *o, char *err)
{
    const char *p = s;
    while (*p) {
        while (*p == ' ' || *p == '\t') p++;
        size_t n = strcspn(p, " \t");
        if (n == 0) break;
        if (o->nspecs == MAX_SPECS) return bad(err, "-backend: more than 64 specs (at '%s')%s", p, "");
        char *spec = malloc(n + 1);
        if (!spec) return bad(err, "out of memory%s%s", "", "");
        memcpy(spec, p, n);
        spec[n] = '\0';
        o->specs[o->nspecs++] = spec;
        p += n;
    }
    return 0;
}

static int parse_thread_level(const char *s, options *o, char *err)
{
    static const char *const names[] = {"single", "funneled", "serialized", "multiple"};
    static const int levels[] = {MPI_THREAD_SINGLE, MPI_THREAD_FUNNELED, MPI_THREAD_SERIALIZED,
                                 MPI_THREAD_MULTIPLE};
    if (!strcmp(s, "auto")) {
        o->thread_level = THREAD_AUTO;
        return 0;
    }
    for (int i = 0; i < 4; i++)
        if (!strcmp(s, names[i])) {
            o->thread_level = levels[i];
            return 0;
        }
    return bad(err, "-thread_level: '%s' is not auto, single, funneled, serialized or multiple%s", s, "");
}

static int set_latency(options *o, const char *text, char *err)
{
    if (ovk_latency_model_parse(text, &o->lat)) return bad(err, "%s%s", ovk_error_detail(), "");
    o->have_latency = 1;
    return 0;
}

static int parse_latency_us(const char *s, options *o, char *err)
{
    double a = 0.0;
    char text[64];
    if (parse_double(s, &a) || a < 0.0) return bad(err, "-latency_us: '%s' is not a number >= 0%s", s, "");
    snprintf(text, sizeof text, "alpha=%.17g", a);
    return set_latency(o, text, err);
}

static int parse_noise(const char *f, const char *d, options *o, char *err)
{
    if (parse_double(f, &o->noise_hz) || parse_double(d, &o->noise_us))
        return bad(err, "-noise: '%s %s' are not two numbers", f, d);
    /* the full range check is ovk_noise_start's, run once before measuring */
    return 0;
}

static int parse_number_flag(const char *flag, const char *v, options *o, char *err)
{
    long x = 0;
    double d = 0.0;
    if (!strcmp(flag, "-repeat") && !parse_long(v, 1, MAX_REPEAT, &x)) o->repeat = (int)x;
    else if (!strcmp(flag, "-warmup") && !parse_long(v, 0, MAX_REPEAT, &x)) o->warmup = (int)x;
    else if (!strcmp(flag, "-dgemm_n") && !parse_long(v, 1, 4096, &x)) o->dgemm_n = (int)x;
    else if (!strcmp(flag, "-dgemm_nmax") && !parse_long(v, 4, 4096, &x)) o->dgemm_nmax = (int)x;
    else if (!strcmp(flag, "-seed") && !parse_long(v, 0, 4294967295L, &x)) o->seed = (unsigned)x;
    else if (!strcmp(flag, "-compute_factor") && !parse_double(v, &d) && d >= 1.0 && d <= 1000.0)
        o->compute_factor = d;
    else if (strstr(" -repeat -warmup -dgemm_n -dgemm_nmax -seed -compute_factor ", flag))
        return bad(err, "%s: bad value '%s' (see -help for the range)", flag, v);
    else return bad(err, "unknown flag '%s' (try -help)%s", flag, "");
    return 0;
}

static int parse_word_flag(const char *flag, const char *v, options *o, char *err)
{
    if (!strcmp(flag, "-backend")) return add_specs(v, o, err);
    if (!strcmp(flag, "-sizes")) return parse_sizes(v, o, err);
    if (!strcmp(flag, "-tests")) return parse_tests(v, o, err);
    if (!strcmp(flag, "-poll")) return parse_polls(v, o, err);
    if (!strcmp(flag, "-latency_us")) return parse_latency_us(v, o, err);
    if (!strcmp(flag, "-latency_model")) return set_latency(o, v, err);
    if (!strcmp(flag, "-thread_level")) return parse_thread_level(v, o, err);
    if (!strcmp(flag, "-csv")) {
        o->csv = v;
        return 0;
    }
    if (!strcmp(flag, "-mode")) {
        if (!strcmp(v, "overlap")) o->mode = MODE_OVERLAP;
        else if (!strcmp(v, "latency")) o->mode = MODE_LATENCY;
        else return bad(err, "-mode: '%s' is not overlap or latency%s", v, "");
        return 0;
    }
    if (!strcmp(flag, "-compute")) {
        if (!strcmp(v, "dummy")) o->compute = COMPUTE_DUMMY;
        else if (!strcmp(v, "dgemm")) o->compute = COMPUTE_DGEMM;
        else return bad(err, "-compute: '%s' is not dummy or dgemm%s", v, "");
        return 0;
    }
    return parse_number_flag(flag, v, o, err);
}

static void set_defaults(options *o)
{
    memset(o, 0, sizeof *o);
    o->mode = MODE_OVERLAP;
    o->repeat = -1;
    o->warmup = -1;
    o->compute_factor = 1.0;
    o->dgemm_nmax = DGEMM_NMAX_DEFAULT;
    o->seed = 1;
    o->thread_level = THREAD_AUTO;
    o->polls[POLL_TEST] = 1;
}

static void fill_defaults(options *o)
{
    static const long sizes[] = {8, 64, 512, 4096, 32768, 262144, 1048576};
    static const int tests[] = {0, 2, 10, 100, 1000, 10000};
    char err[TEXT_LEN];
    if (!o->nspecs) add_specs("blocking", o, err);
    if (!o->nsizes) {
        o->nsizes = (int)(sizeof sizes / sizeof sizes[0]);
        memcpy(o->sizes, sizes, sizeof sizes);
    }
    if (!o->ntests) {
        o->ntests = (int)(sizeof tests / sizeof tests[0]);
        memcpy(o->tests, tests, sizeof tests);
    }
    if (o->repeat < 0) o->repeat = o->mode == MODE_LATENCY ? DEFAULT_LATENCY_REPEAT : DEFAULT_REPEAT;
    if (o->warmup < 0) o->warmup = o->repeat / 10 > 2 ? o->repeat / 10 : 2;
    if (o->dgemm_n > o->dgemm_nmax) o->dgemm_nmax = o->dgemm_n;
}

/* 0, or -1 with a message in err.  Identical on every rank (same argv). */
static int parse_args(int argc, char **argv, options *o, char *err)
{
    set_defaults(o);
    for (int i = 1; i < argc; i++) {
        const char *f = argv[i];
        int rc = 0;
        if (!strcmp(f, "-help") || !strcmp(f, "--help")) o->help = 1;
        else if (!strcmp(f, "-raw")) o->raw = 1;
        else if (!strcmp(f, "-backend") && i + 1 < argc && !strcmp(argv[i + 1], "list")) o->list = 1, i++;
        else if (!strcmp(f, "-noise") && i + 2 < argc) rc = parse_noise(argv[i + 1], argv[i + 2], o, err), i += 2;
        else if (f[0] == '-' && strcmp(f, "-noise") && i + 1 < argc) rc = parse_word_flag(f, argv[++i], o, err);
        else rc = bad(err, "unknown flag or missing value: '%s'%s (try -help)", f, "");
        if (rc) return rc;
    }
    fill_defaults(o);
    return 0;
}

static void free_specs(options *o)
{
    for (int i = 0; i < o->nspecs; i++) free(o->specs[i]);
    o->nspecs = 0;
}

/* Does some spec need MPI_THREAD_MULTIPLE?  Scans argv before MPI_Init. */
static int wants_multiple(int argc, char **argv)
{
    for (int i = 1; i + 1 < argc; i++) {
        if (strcmp(argv[i], "-backend")) continue;
        const char *s = argv[i + 1];
        if (strstr(s, "thread=1") || strstr(s, "engine=agent") || strstr(s, "offload")) return 1;
    }
    return 0;
}

static int requested_level(int argc, char **argv)
{
    for (int i = 1; i + 1 < argc; i++) {
        options tmp;
        char err[TEXT_LEN];
        if (strcmp(argv[i], "-thread_level")) continue;
        tmp.thread_level = THREAD_AUTO;
        if (!parse_thread_level(argv[i + 1], &tmp, err) && tmp.thread_level != THREAD_AUTO)
            return tmp.thread_level;
    }
    return wants_multiple(argc, argv) ? MPI_THREAD_MULTIPLE : MPI_THREAD_SINGLE;
}

static const char *level_name(int level)
{
    switch (level) {
    case MPI_THREAD_SINGLE: return "single";
    case MPI_THREAD_FUNNELED: return "funneled";
    case MPI_THREAD_SERIALIZED: return "serialized";
    case MPI_THREAD_MULTIPLE: return "multiple";
    default: return "unknown";
    }
}

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

/* What the compute phase does: `units` dummy units or DGEMM calls. */
typedef struct plan {
    enum compute_kind kind;
    long units;
    int dgemm_n;
    double seconds_goal;
} plan;

static void run_units(const context *cx, const plan *p, long n)
{
    if (n <= 0) return;
    if (p->kind == COMPUTE_DUMMY) dummy_units(n);
    else dgemm_calls(cx, p->dgemm_n, n);
}

/* Median time of one MPI_Wtime call. */
static double measure_clock_read(void)
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
static double calibrate_dummy(void)
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
static void calibrate_dgemm(context *cx)
{
    int slow = 0;
    for (int k = 0; k < DGEMM_CANDIDATES; k++) {
        cx->dgemm_call_s[k] = 0.0;
        if (dgemm_sizes[k] > cx->o->dgemm_nmax || slow || cx->o->dgemm_n) continue;
        cx->dgemm_call_s[k] = time_dgemm(cx, dgemm_sizes[k]);
        slow = cx->dgemm_call_s[k] > DGEMM_CALL_MAX_S;
    }
    max_over_ranks(cx->dgemm_call_s, DGEMM_CANDIDATES);
    cx->dgemm_fixed_call_s = cx->o->dgemm_n ? time_dgemm(cx, cx->o->dgemm_n) : 0.0;
    max_over_ranks(&cx->dgemm_fixed_call_s, 1);
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

static plan make_plan(const context *cx, double seconds, int tests)
{
    plan p = {cx->o->compute, 0, 0, seconds};
    if (p.kind == COMPUTE_DUMMY) {
        p.units = (long)ceil(seconds * cx->dummy_units_per_s);
        return p;
    }
    int k = cx->o->dgemm_n ? -1 : dgemm_pick(cx, seconds / (tests + 1));
    double call_s = k < 0 ? cx->dgemm_fixed_call_s : cx->dgemm_call_s[k];
    p.dgemm_n = k < 0 ? cx->o->dgemm_n : dgemm_sizes[k];
    p.units = (long)ceil(seconds / call_s);
    if (p.units < 1) p.units = 1;
    return p;
}

/* ---- one measurement ------------------------------------------------------ */

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

static void poll_once(const bench_case *bc, ovk_request *req, enum poll_kind poll)
{
    int done = 0;
    if (poll == POLL_TEST) check(ovk_reduce_test(req, &done), "ovk_reduce_test");
    else if (poll == POLL_HOOK) check(ovk_reducer_progress(bc->red), "ovk_reducer_progress");
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
        run_units(cx, p, upto - done_units);
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
    check(ovk_reduce_start(bc->red, bc->send, bc->recv, bc->count, OVK_DOUBLE, OVK_SUM, &req), "ovk_reduce_start");
    check(ovk_reduce_wait(req), "ovk_reduce_wait");
    double t = MPI_Wtime() - t0;
    check(ovk_request_free(req), "ovk_request_free");
    return t;
}

static sample overlap_once(const context *cx, const bench_case *bc, const plan *p, int tests, enum poll_kind poll)
{
    ovk_request *req = NULL;
    sample s;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    check(ovk_reduce_start(bc->red, bc->send, bc->recv, bc->count, OVK_DOUBLE, OVK_SUM, &req), "ovk_reduce_start");
    double t1 = MPI_Wtime();
    s.test = compute_with_polls(cx, bc, p, req, tests, poll);
    double t2 = MPI_Wtime();
    check(ovk_reduce_wait(req), "ovk_reduce_wait");
    double t3 = MPI_Wtime();
    check(ovk_request_free(req), "ovk_request_free");
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
    run_units(cx, p, p->units);
    return MPI_Wtime() - t0;
}

/* A first estimate of the base latency, to size the compute: median of the
 * warm-up runs of start + wait (at least MIN_ESTIMATE_RUNS), max over ranks. */
static double estimate_base(const context *cx, const bench_case *bc)
{
    int n = cx->o->warmup > MIN_ESTIMATE_RUNS ? cx->o->warmup : MIN_ESTIMATE_RUNS;
    double *t = malloc((size_t)n * sizeof *t);
    if (!t) check(OVK_ENOMEM, "allocating samples");
    for (int i = 0; i < n; i++) t[i] = start_wait_once(bc);
    double base = ovk_drv_median(t, n);
    free(t);
    max_over_ranks(&base, 1);
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
    if (!v) check(OVK_ENOMEM, "allocating samples");
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
    max_over_ranks(m, TERMS);
    st->base = m[T_BASE], st->alone = m[T_ALONE], st->init = m[T_INIT], st->test = m[T_TEST];
    st->compute = m[T_COMPUTE], st->wait = m[T_WAIT], st->overall = m[T_OVERALL];
}

static double overlap_pct(const row_stats *st)
{
    double cpu_comm = st->overall - (st->compute - st->test);
    double pct = 100.0 * (1.0 - cpu_comm / st->base);
    return pct > 0.0 ? pct : 0.0;
}

/* ---- output ---------------------------------------------------------------- */

static const char *const overlap_columns =
    "backend,bytes,test_calls,poll,compute,base_us,init_us,test_us,wait_us,compute_us,overall_us,"
    "overlap_pct,latency_model,latency_us,noise_hz,noise_us,nranks,dgemm_n,dgemm_calls,"
    "dgemm_gflops_alone,dgemm_gflops_overlap,thread_level,repeats";
static const char *const latency_columns =
    "backend,bytes,count,nranks,repeats,median_us,min_us,p90_us,latency_model,latency_us,noise_hz,noise_us,"
    "thread_level";

static void print_preamble(FILE *f, enum bench_mode mode)
{
    if (mode == MODE_LATENCY) {
        fprintf(f, "# ovk_overlap_bench -mode latency: start + wait of `bytes` bytes of doubles (sum);\n"
                   "# median/min/p90 over `repeats` on each rank, then the maximum over the ranks\n");
        fprintf(f, "%s\n", latency_columns);
        return;
    }
    fprintf(f,
            "# ovk_overlap_bench (OSU overlap method).  Times in us: median over `repeats` on each rank,\n"
            "# then the maximum over the ranks.  base = start+wait without compute (t_pure);\n"
            "# init = start; compute = the compute phase incl. `test_calls` poll calls (t_compute);\n"
            "# test = time inside the poll calls (t_test); wait = wait; overall = start..end of wait.\n"
            "# overlap_pct = max(0, 100*(1 - (overall - (compute - test)) / base))\n"
            "# poll: test = ovk_reduce_test, hook = ovk_reducer_progress (the kernel hook), none: 0 calls.\n"
            "# dgemm_gflops_*: 2 N^3 dgemm_calls / time, alone vs. (compute - test) while overlapped.\n");
    fprintf(f, "%s\n", overlap_columns);
}

/* Open the output; the preamble goes in first when the file is new/empty. */
static FILE *open_output(const options *o)
{
    if (!o->csv) {
        print_preamble(stdout, o->mode);
        return stdout;
    }
    FILE *f = fopen(o->csv, "a");
    if (!f) return NULL;
    if (fseek(f, 0, SEEK_END) == 0 && ftell(f) == 0) print_preamble(f, o->mode);
    return f;
}

/* The effective model of a reducer as text, and its latency for `bytes`. */
static void model_text(const ovk_reducer *red, int size, double bytes, char *text, size_t len, double *us)
{
    ovk_latency_model m;
    *us = 0.0;
    if (!red || !ovk_reducer_get_latency(red, &m)) {
        snprintf(text, len, "none");
        return;
    }
    snprintf(text, len, "alpha=%g;beta=%g;gamma=%g;P=%d", m.alpha_us, m.beta_us, m.gamma_us, m.P);
    *us = ovk_latency_model_us(&m, size, bytes);
}

static void print_dgemm_fields(FILE *f, const plan *p, const row_stats *st)
{
    if (p->kind != COMPUTE_DGEMM) {
        fprintf(f, ",,,,");
        return;
    }
    double flops = 2.0 * pow(p->dgemm_n, 3) * (double)p->units;
    double busy = st->compute - st->test;
    fprintf(f, ",%d,%ld,", p->dgemm_n, p->units);
    if (st->alone > 0.0) fprintf(f, "%.4g", 1e-9 * flops / st->alone);
    fprintf(f, ",");
    if (busy > 0.0) fprintf(f, "%.4g", 1e-9 * flops / busy);
}

static void print_overlap_row(const context *cx, const char *spec, const bench_case *bc, long bytes, int tests,
                              enum poll_kind poll, const plan *p, const row_stats *st)
{
    char sp[TEXT_LEN], model[TEXT_LEN];
    double lat_us = 0.0;
    FILE *f = cx->out;
    csv_safe(spec, sp, sizeof sp);
    model_text(bc->red, cx->size, (double)bytes, model, sizeof model, &lat_us);
    fprintf(f, "%s,%ld,%d,%s,%s,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.1f,%s,%g,%g,%g,%d", sp, bytes, tests,
            poll_names[poll], p->kind == COMPUTE_DUMMY ? "dummy" : "dgemm", 1e6 * st->base, 1e6 * st->init,
            1e6 * st->test, 1e6 * st->wait, 1e6 * st->compute, 1e6 * st->overall, overlap_pct(st), model, lat_us,
            cx->o->noise_hz, cx->o->noise_us, cx->size);
    print_dgemm_fields(f, p, st);
    fprintf(f, ",%s,%d\n", level_name(cx->provided), cx->o->repeat);
    fflush(f);
}

/* ---- the overlap sweep -------------------------------------------------- */

static void sweep_tests(const context *cx, const char *spec, const bench_case *bc, long bytes, double base)
{
    for (int t = 0; t < cx->o->ntests; t++) {
        int tests = cx->o->tests[t];
        for (int pk = POLL_NONE; pk < POLL_KINDS; pk++) {
            enum poll_kind poll = (enum poll_kind)pk;
            if (tests == 0 ? poll != POLL_NONE : (poll == POLL_NONE || !cx->o->polls[poll])) continue;
            plan p = make_plan(cx, base * cx->o->compute_factor, tests);
            row_stats st;
            measure_row(cx, bc, &p, tests, poll, &st);
            if (cx->rank == 0) print_overlap_row(cx, spec, bc, bytes, tests, poll, &p, &st);
        }
    }
}

static void alloc_buffers(bench_case *bc, long bytes)
{
    bc->count = (int)(bytes / (long)sizeof(double));
    bc->send = malloc((size_t)bytes);
    bc->recv = malloc((size_t)bytes);
    if (!bc->send || !bc->recv) check(OVK_ENOMEM, "allocating message buffers");
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
    max_over_ranks(v, 3);
    if (cx->rank) return;
    char sp[TEXT_LEN], model[TEXT_LEN];
    double lat_us = 0.0;
    csv_safe(spec, sp, sizeof sp);
    model_text(bc->red, cx->size, (double)bytes, model, sizeof model, &lat_us);
    fprintf(cx->out, "%s,%ld,%d,%d,%d,%.3f,%.3f,%.3f,%s,%g,%g,%g,%s\n", sp, bytes, bc->count, cx->size, R,
            1e6 * v[0], 1e6 * v[1], 1e6 * v[2], model, lat_us, cx->o->noise_hz, cx->o->noise_us,
            level_name(cx->provided));
    fflush(cx->out);
}

static void run_size(const context *cx, const char *spec, bench_case *bc, long bytes)
{
    alloc_buffers(bc, bytes);
    if (cx->o->mode == MODE_OVERLAP) {
        sweep_tests(cx, spec, bc, bytes, estimate_base(cx, bc));
    } else {
        int R = cx->o->repeat;
        double *t = malloc((size_t)R * sizeof *t);
        if (!t) check(OVK_ENOMEM, "allocating samples");
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

static void run_raw(const context *cx, enum raw_kind kind)
{
    const char *name = kind == RAW_ALLREDUCE ? "MPI_Allreduce" : "MPI_Iallreduce";
    for (int s = 0; s < cx->o->nsizes; s++) {
        bench_case bc = {NULL, NULL, NULL, 0};
        int R = cx->o->repeat;
        double *t = malloc((size_t)R * sizeof *t);
        if (!t) check(OVK_ENOMEM, "allocating samples");
        alloc_buffers(&bc, cx->o->sizes[s]);
        for (int i = 0; i < cx->o->warmup; i++) raw_once(kind, &bc);
        for (int i = 0; i < R; i++) t[i] = raw_once(kind, &bc);
        latency_row(cx, name, &bc, cx->o->sizes[s], t, R);
        free(t);
        free_buffers(&bc);
    }
}

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
    for (int s = 0; s < cx->o->nsizes; s++) run_size(cx, spec, &bc, cx->o->sizes[s]);
    check(ovk_reducer_destroy(bc.red), "ovk_reducer_destroy");
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
    calibrate_dgemm(cx);
    return OVK_OK;
}

static int setup_context(context *cx, const options *o)
{
    memset(cx, 0, sizeof *cx);
    cx->o = o;
    MPI_Comm_rank(MPI_COMM_WORLD, &cx->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &cx->size);
    MPI_Query_thread(&cx->provided);
    cx->clock_read_s = measure_clock_read();
    if (o->mode == MODE_OVERLAP && o->compute == COMPUTE_DUMMY) cx->dummy_units_per_s = calibrate_dummy();
    if (o->mode == MODE_OVERLAP && o->compute == COMPUTE_DGEMM && setup_dgemm(cx)) return OVK_ENOMEM;
    cx->out = cx->rank == 0 ? open_output(o) : NULL;
    return (cx->rank == 0 && !cx->out) ? OVK_EFILE : OVK_OK;
}

static void print_setup(const context *cx)
{
    const char *blas_threads = getenv("OPENBLAS_NUM_THREADS");
    fprintf(stderr, "# ovk_overlap_bench: %d ranks, MPI thread level %s, MPI_Wtime %.1f ns", cx->size,
            level_name(cx->provided), 1e9 * cx->clock_read_s);
    if (cx->dummy_units_per_s > 0.0) fprintf(stderr, ", dummy unit %.2f ns", 1e9 / cx->dummy_units_per_s);
    if (cx->a) fprintf(stderr, ", OPENBLAS_NUM_THREADS=%s", blas_threads ? blas_threads : "(unset)");
    fprintf(stderr, "\n");
    for (int k = 0; cx->a && k < DGEMM_CANDIDATES; k++)
        if (cx->dgemm_call_s[k] > 0.0)
            fprintf(stderr, "#   dgemm N=%d: %.2f us/call, %.2f GFLOP/s\n", dgemm_sizes[k],
                    1e6 * cx->dgemm_call_s[k], 2e-9 * pow(dgemm_sizes[k], 3) / cx->dgemm_call_s[k]);
}

/* Noise with a phase of its own on every rank. */
static void noise_on(const context *cx)
{
    if (cx->o->noise_hz <= 0.0) return;
    unsigned seed = cx->o->seed ^ (0x9E3779B9u * (unsigned)(cx->rank + 1));
    check(ovk_noise_start(cx->o->noise_hz, cx->o->noise_us, seed), "ovk_noise_start");
}

static void teardown(context *cx)
{
    if (cx->out && cx->out != stdout) fclose(cx->out);
    free(cx->a), free(cx->b), free(cx->c);
}

/* ---- main ------------------------------------------------------------------ */

static int finish(options *o, int code)
{
    free_specs(o);
    MPI_Finalize();
    return code;
}

int main(int argc, char **argv)
{
    int provided = 0, rank = 0;
    options o;
    char err[TEXT_LEN] = "";
    MPI_Init_thread(&argc, &argv, requested_level(argc, argv), &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int prc = ovk_drv_agree(parse_args(argc, argv, &o, err));
    if (prc || o.help || o.list) {
        if (rank == 0 && prc) fprintf(stderr, "ovk_overlap_bench: %s\n", err);
        if (rank == 0 && o.help) usage(stdout);
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
        run_raw(&cx, RAW_ALLREDUCE);
        run_raw(&cx, RAW_IALLREDUCE);
    }
    long hits = o.noise_hz > 0.0 ? ovk_noise_stop() : 0;
    if (o.noise_hz > 0.0 && rank == 0) fprintf(stderr, "# noise: %ld interruptions on rank 0\n", hits);
    teardown(&cx);
    return finish(&o, 0);
}

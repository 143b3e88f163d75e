/* ovk_overlap_bench: the command line (flags, defaults, the MPI thread
 * level the specs ask for). */
#include "options.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "../bench_common.h"

#define MIN_BYTES 8L
#define MAX_BYTES (16L << 20)
#define MAX_TEST_CALLS 1000000
#define MAX_REPEAT 1000000
#define DEFAULT_REPEAT 50
#define DEFAULT_LATENCY_REPEAT 1000
#define DGEMM_NMAX_DEFAULT 512
#define DGEMM_N_LIMIT 4096L
#define DGEMM_NMAX_MIN 4L
#define SEED_MAX 4294967295L
#define COMPUTE_FACTOR_MAX 1000.0
#define MIN_WARMUP 2
#define WARMUP_SHARE 10 /* default warm-up: repeat / 10 */
#define KIB 1024L

const char *const ovk_ob_poll_names[POLL_KINDS] = {"none", "test", "hook"};

void ovk_ob_usage(FILE *f)
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

/* The message of a bad flag in err; returns -1. */
static int bad(char *err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, TEXT_LEN, fmt, ap);
    va_end(ap);
    return -1;
}

/* ---- the comma-separated lists ------------------------------------------- */

/* One item of a list: 0, or -1 with a message (list is the whole text). */
typedef int (*item_fn)(const char *item, const char *list, options *o, char *err);

/* fn on every item of the comma-separated list of flag; an empty list is bad. */
static int each_item(const char *flag, const char *list, item_fn fn, options *o, char *err)
{
    char buf[TEXT_LEN];
    int n = 0;
    snprintf(buf, sizeof buf, "%s", list);
    for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ","), n++) {
        int rc = fn(tok, list, o, err);
        if (rc) return rc;
    }
    return n ? 0 : bad(err, "%s: empty list '%s'", flag, list);
}

/* "8", "4K", "1M": a byte count, a multiple of 8 in [MIN_BYTES, MAX_BYTES]. */
static int add_size(const char *tok, const char *list, options *o, char *err)
{
    char *end = NULL;
    errno = 0;
    long v = strtol(tok, &end, 10);
    long unit = (*end == 'K' || *end == 'k') ? KIB : (*end == 'M' || *end == 'm') ? KIB * KIB : 1L;
    if (unit > 1) end++;
    if (end == tok || *end || errno || o->nsizes == MAX_SIZES)
        return bad(err, "-sizes: '%s' is not a byte count like 8, 4K or 1M (at most 32; in '%s')", tok, list);
    if (v > MAX_BYTES / unit || v * unit < MIN_BYTES || (v * unit) % (long)sizeof(double))
        return bad(err, "-sizes: %s: sizes must be multiples of 8 bytes in [8, 16M] (in '%s')", tok, list);
    o->sizes[o->nsizes++] = v * unit;
    return 0;
}

static int add_test(const char *tok, const char *list, options *o, char *err)
{
    long v = 0;
    if (ovk_bench_long(tok, 0, MAX_TEST_CALLS, &v) || o->ntests == MAX_TESTS)
        return bad(err, "-tests: '%s' is not a count in [0, 1000000] (at most 16 of them; in '%s')", tok, list);
    o->tests[o->ntests++] = (int)v;
    return 0;
}

static int add_poll(const char *tok, const char *list, options *o, char *err)
{
    for (int k = POLL_TEST; k < POLL_KINDS; k++)
        if (!strcmp(tok, ovk_ob_poll_names[k])) {
            o->polls[k] = 1;
            return 0;
        }
    return bad(err, "-poll: '%s' is not test or hook (in '%s')", tok, list);
}

/* One -backend argument: one or more specs separated by blanks. */
static int add_specs(const char *s, options *o, char *err)
{
    const char *p = s;
    while (*p) {
        p += strspn(p, " \t");
        size_t n = strcspn(p, " \t");
        if (n == 0) break;
        if (o->nspecs == MAX_SPECS) return bad(err, "-backend: more than 64 specs (at '%s')", p);
        char *spec = malloc(n + 1);
        if (!spec) return bad(err, "out of memory");
        memcpy(spec, p, n);
        spec[n] = '\0';
        o->specs[o->nspecs++] = spec;
        p += n;
    }
    return 0;
}

/* ---- single values ----------------------------------------------------- */

static const char *const level_names[] = {"single", "funneled", "serialized", "multiple"};
static const int levels[] = {MPI_THREAD_SINGLE, MPI_THREAD_FUNNELED, MPI_THREAD_SERIALIZED, MPI_THREAD_MULTIPLE};
enum { LEVELS = (int)(sizeof levels / sizeof levels[0]) };

static int parse_thread_level(const char *s, int *level)
{
    if (!strcmp(s, "auto")) {
        *level = THREAD_AUTO;
        return 0;
    }
    for (int i = 0; i < LEVELS; i++)
        if (!strcmp(s, level_names[i])) {
            *level = levels[i];
            return 0;
        }
    return -1;
}

const char *ovk_ob_level_name(int level)
{
    for (int i = 0; i < LEVELS; i++)
        if (level == levels[i]) return level_names[i];
    return "unknown";
}

static int set_latency(options *o, const char *text, char *err)
{
    if (ovk_latency_model_parse(text, &o->lat)) return bad(err, "%s", ovk_error_detail());
    o->have_latency = 1;
    return 0;
}

static int parse_latency_us(const char *s, options *o, char *err)
{
    double a = 0.0;
    char text[TEXT_LEN];
    if (ovk_bench_double(s, &a) || a < 0.0) return bad(err, "-latency_us: '%s' is not a number >= 0", s);
    snprintf(text, sizeof text, "alpha=%.17g", a);
    return set_latency(o, text, err);
}

static int parse_noise(const char *f, const char *d, options *o, char *err)
{
    /* the full range check is ovk_noise_start's, run once before measuring */
    if (ovk_bench_double(f, &o->noise_hz) || ovk_bench_double(d, &o->noise_us))
        return bad(err, "-noise: '%s %s' are not two numbers", f, d);
    return 0;
}

/* value of one of two words: *v = 0 for the first, 1 for the second */
static int parse_choice(const char *flag, const char *v, const char *w0, const char *w1, int *to, char *err)
{
    if (strcmp(v, w0) && strcmp(v, w1)) return bad(err, "%s: '%s' is not %s or %s", flag, v, w0, w1);
    *to = strcmp(v, w0) != 0;
    return 0;
}

/* -repeat, -warmup, -dgemm_n, -dgemm_nmax, -seed, -compute_factor */
static int parse_number_flag(const char *flag, const char *v, options *o, char *err)
{
    long x = 0;
    double d = 0.0;
    if (!strcmp(flag, "-repeat") && !ovk_bench_long(v, 1, MAX_REPEAT, &x)) o->repeat = (int)x;
    else if (!strcmp(flag, "-warmup") && !ovk_bench_long(v, 0, MAX_REPEAT, &x)) o->warmup = (int)x;
    else if (!strcmp(flag, "-dgemm_n") && !ovk_bench_long(v, 1, DGEMM_N_LIMIT, &x)) o->dgemm_n = (int)x;
    else if (!strcmp(flag, "-dgemm_nmax") && !ovk_bench_long(v, DGEMM_NMAX_MIN, DGEMM_N_LIMIT, &x))
        o->dgemm_nmax = (int)x;
    else if (!strcmp(flag, "-seed") && !ovk_bench_long(v, 0, SEED_MAX, &x)) o->seed = (unsigned)x;
    else if (!strcmp(flag, "-compute_factor") && !ovk_bench_double(v, &d) && d >= 1.0 && d <= COMPUTE_FACTOR_MAX)
        o->compute_factor = d;
    else if (strstr(" -repeat -warmup -dgemm_n -dgemm_nmax -seed -compute_factor ", flag))
        return bad(err, "%s: bad value '%s' (see -help for the range)", flag, v);
    else return bad(err, "unknown flag '%s' (try -help)", flag);
    return 0;
}

/* A flag with one value. */
static int parse_flag(const char *flag, const char *v, options *o, char *err)
{
    int choice = 0, rc = 0;
    if (!strcmp(flag, "-backend")) return add_specs(v, o, err);
    if (!strcmp(flag, "-sizes")) {
        o->nsizes = 0; /* the last -sizes counts */
        return each_item(flag, v, add_size, o, err);
    }
    if (!strcmp(flag, "-tests")) {
        o->ntests = 0;
        return each_item(flag, v, add_test, o, err);
    }
    if (!strcmp(flag, "-poll")) {
        memset(o->polls, 0, sizeof o->polls);
        return each_item(flag, v, add_poll, o, err);
    }
    if (!strcmp(flag, "-latency_us")) return parse_latency_us(v, o, err);
    if (!strcmp(flag, "-latency_model")) return set_latency(o, v, err);
    if (!strcmp(flag, "-thread_level")) {
        if (parse_thread_level(v, &o->thread_level))
            return bad(err, "-thread_level: '%s' is not auto, single, funneled, serialized or multiple", v);
        return 0;
    }
    if (!strcmp(flag, "-csv")) {
        o->csv = v;
        return 0;
    }
    if (!strcmp(flag, "-mode")) {
        rc = parse_choice(flag, v, "overlap", "latency", &choice, err);
        o->mode = choice ? MODE_LATENCY : MODE_OVERLAP;
        return rc;
    }
    if (!strcmp(flag, "-compute")) {
        rc = parse_choice(flag, v, "dummy", "dgemm", &choice, err);
        o->compute = choice ? COMPUTE_DGEMM : COMPUTE_DUMMY;
        return rc;
    }
    return parse_number_flag(flag, v, o, err);
}

/* ---- defaults ------------------------------------------------------------ */

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

/* What the flags left unset. */
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
    if (o->warmup < 0) o->warmup = o->repeat / WARMUP_SHARE > MIN_WARMUP ? o->repeat / WARMUP_SHARE : MIN_WARMUP;
    if (o->dgemm_n > o->dgemm_nmax) o->dgemm_nmax = o->dgemm_n;
}

int ovk_ob_parse_args(int argc, char **argv, options *o, char *err)
{
    set_defaults(o);
    for (int i = 1; i < argc; i++) {
        const char *f = argv[i];
        int rc = 0;
        if (!strcmp(f, "-help") || !strcmp(f, "--help")) o->help = 1;
        else if (!strcmp(f, "-raw")) o->raw = 1;
        else if (!strcmp(f, "-backend") && i + 1 < argc && !strcmp(argv[i + 1], "list")) o->list = 1, i++;
        else if (!strcmp(f, "-noise") && i + 2 < argc) rc = parse_noise(argv[i + 1], argv[i + 2], o, err), i += 2;
        else if (f[0] == '-' && strcmp(f, "-noise") && i + 1 < argc) rc = parse_flag(f, argv[++i], o, err);
        else rc = bad(err, "unknown flag or missing value: '%s' (try -help)", f);
        if (rc) return rc;
    }
    fill_defaults(o);
    return 0;
}

void ovk_ob_free_specs(options *o)
{
    for (int i = 0; i < o->nspecs; i++) free(o->specs[i]);
    o->nspecs = 0;
}

/* Does some spec need MPI_THREAD_MULTIPLE? */
static int wants_multiple(int argc, char **argv)
{
    for (int i = 1; i + 1 < argc; i++) {
        if (strcmp(argv[i], "-backend")) continue;
        const char *s = argv[i + 1];
        if (strstr(s, "thread=1") || strstr(s, "engine=agent") || strstr(s, "offload")) return 1;
    }
    return 0;
}

int ovk_ob_requested_level(int argc, char **argv)
{
    int level = THREAD_AUTO;
    for (int i = 1; i + 1 < argc; i++)
        if (!strcmp(argv[i], "-thread_level") && !parse_thread_level(argv[i + 1], &level) && level != THREAD_AUTO)
            return level;
    return wants_multiple(argc, argv) ? MPI_THREAD_MULTIPLE : MPI_THREAD_SINGLE;
}

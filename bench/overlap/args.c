/* ovk_overlap_bench: the command line (flags, defaults, the MPI thread
 * level the specs ask for). */
#include "overlap.h"

/* ---- argument parsing --------------------------------------------------- */

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
        else if (f[0] == '-' && strcmp(f, "-noise") && i + 1 < argc) rc = parse_word_flag(f, argv[++i], o, err);
        else rc = bad(err, "unknown flag or missing value: '%s'%s (try -help)", f, "");
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

int ovk_ob_requested_level(int argc, char **argv)
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

const char *ovk_ob_level_name(int level)
{
    switch (level) {
    case MPI_THREAD_SINGLE: return "single";
    case MPI_THREAD_FUNNELED: return "funneled";
    case MPI_THREAD_SERIALIZED: return "serialized";
    case MPI_THREAD_MULTIPLE: return "multiple";
    default: return "unknown";
    }
}


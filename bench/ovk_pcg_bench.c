/* ovk_pcg_bench: PCG time per iteration of several solver/backend cases
 * under modelled latencies and noise, measured in ONE process so that the
 * comparisons are paired.
 *
 * On a shared machine the time of a whole solve drifts by up to 2x from
 * one minute to the next (other guests on the host share the memory
 * bandwidth), so separate `mpiexec` runs per case, minutes apart, cannot
 * resolve a 10 % difference.  Here the matrix is built once and every case
 * (solver:backend x latency x noise) is solved once per round, the rounds
 * repeated R times, the order rotated by one case each round.  Cases that
 * run next to each other see the same machine, so the program reports,
 * besides the median and minimum time per iteration of each case, two
 * paired figures, each the median over rounds of a per-round value:
 *
 *   hidden %  = 100 (1 - (t(L) - t(0)) / (reductions per iteration x L)),
 *               against the same case at L = 0 (the share of the modelled
 *               latency the solver hides; 100 %: all, 0 %: none);
 *   hidden % (timers) = the same with t = the time the solver spent in the
 *               reduction calls (init + test + wait of every inner product,
 *               the solver's own timers, max over ranks) per iteration:
 *               the latency left exposed, measured where it is paid, so
 *               that drifts of the machine's speed during the compute do
 *               not enter it (the wall-clock figure includes them);
 *   noise %   = 100 (t / t_quiet - 1), against the same case without
 *               noise (when the first -noise item is 0:0);
 *   vs ref    = t / t_ref, against the first case of -cases at the same
 *               latency and noise.
 *
 * Each case has its own solver object (solver.h), set up once before the
 * first round, as an application solving many systems would: what a set-up
 * solver keeps across solves (plcg's spectrum estimate, the preconditioner)
 * is paid in the first round only, which the medians leave out.
 *
 * Usage: mpiexec -n P ovk_pcg_bench [-n nx ny nz] [-stencil 27|7]
 *          [-cases "solver:backend ..."] [-latency "0 250"] [-noise "0:0 1000:200"]
 *          [-repeat R] [-tol T] [-precond SPEC] [-csv FILE] [-convdiff PE] [-cpu]
 *   -cases    solver[:key=value,...]:backend[:key=value,...] items (default
 *             "alg1:blocking"; e.g. "plcg:l=3:nbc": the backend starts at the
 *             first field that is a name, not key=value pairs)
 *   -latency  modelled latencies alpha in us (-latency_us of the driver), default "0"
 *   -noise    F:D items, F Hz x D us per rank (0:0 = none), default "0:0"
 *   -precond  the preconditioner of every case (default jacobi; e.g. amg)
 *   -csv      one row per solve, the columns of ovk_laplace27 -csv
 *   -convdiff PE  the upwind convection-diffusion operator of Peclet number PE, velocity
 *             (1, 1, 1) (ovk_laplace27 -problem convdiff's), instead of the Laplacian
 *   -cpu      time per iteration from the solve's CPU time (this thread's, slowest rank)
 *             instead of its wall time: the local work on a host shared with other jobs
 * Prints a markdown table on rank 0.  Exits 0, 1 on a failed solve, 2 on
 * bad usage (1 for a bad -cases, -latency or -noise item). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ovkrylov/ovkrylov.h>

#include "../examples/common/experiment.h"
#include "bench_common.h"

enum { MAX_ITEMS = 64, TEXT_SHORT = 48, TEXT_CELL = 24, EXIT_USAGE = 2, MAX_REPEAT = 1000 };
#define US_TO_S 1e-6
#define S_TO_US 1e6

typedef struct item_list {
    int count;
    char *text[MAX_ITEMS];
    char *buf;
} item_list;

typedef struct bench_case {
    const char *solver, *backend; /* backend spec */
    int red;                      /* index into the reducers */
    double lat_us, noise_hz, noise_us;
    double *tpi;                  /* [R] seconds per iteration */
    double *rdpi;                 /* [R] seconds per iteration in reduction calls */
    double rpi;                   /* reductions per iteration */
    int iterations, zero_case, quiet_case, ref_case;
    ovk_solver *obj;              /* set up on the first solve */
    char chose[32];               /* solver auto: what it chose */
} bench_case;

typedef struct bench {
    int n[3], P[3], stencil, repeat, cpu;
    double tol, peclet; /* peclet > 0: -convdiff's operator instead of the Laplacian */
    const char *csv, *precond; /* -precond SPEC for every case (NULL: jacobi) */
    item_list cases, lats, noises;
    int ncase;
    bench_case *c;
    int nred;
    const char *red_spec[MAX_ITEMS];
    ovk_reducer *red[MAX_ITEMS];
} bench;

static int split_items(const char *text, item_list *l)
{
    l->buf = strdup(text);
    if (!l->buf) return -1;
    for (char *tok = strtok(l->buf, " \t"); tok; tok = strtok(NULL, " \t")) {
        if (l->count == MAX_ITEMS) return -1;
        l->text[l->count++] = tok;
    }
    return l->count > 0 ? 0 : -1;
}

static int parse_args(int argc, char **argv, bench *b, const char **bad)
{
    const char *cases = "alg1:blocking", *lats = "0", *noises = "0:0";
    for (int i = 1; i < argc; i++) {
        const char *f = argv[i];
        int more = i + 1 < argc;
        *bad = f;
        if (!strcmp(f, "-n") && i + 3 < argc) {
            for (int k = 0; k < 3; k++) b->n[k] = atoi(argv[++i]);
        } else if (!strcmp(f, "-stencil") && more) b->stencil = atoi(argv[++i]);
        else if (!strcmp(f, "-cases") && more) cases = argv[++i];
        else if (!strcmp(f, "-latency") && more) lats = argv[++i];
        else if (!strcmp(f, "-noise") && more) noises = argv[++i];
        else if (!strcmp(f, "-repeat") && more) b->repeat = atoi(argv[++i]);
        else if (!strcmp(f, "-tol") && more) b->tol = atof(argv[++i]);
        else if (!strcmp(f, "-csv") && more) b->csv = argv[++i];
        else if (!strcmp(f, "-precond") && more) b->precond = argv[++i];
        else if (!strcmp(f, "-convdiff") && more) b->peclet = atof(argv[++i]);
        else if (!strcmp(f, "-cpu")) b->cpu = 1;
        else return -1;
    }
    *bad = "-n (each >= 1), -stencil (27 or 7), -repeat (1..1000) or -tol (> 0)";
    if (b->n[0] < 1 || b->n[1] < 1 || b->n[2] < 1 || (b->stencil != 27 && b->stencil != 7) || b->repeat < 1 ||
        b->repeat > MAX_REPEAT || !(b->tol > 0.0))
        return -1;
    *bad = "-cases, -latency or -noise: empty, or more than 64 items";
    if (split_items(cases, &b->cases) || split_items(lats, &b->lats) || split_items(noises, &b->noises)) return -1;
    return 0;
}

/* The reducer index of spec, added when new (collective). */
static int reducer_of(bench *b, const char *spec, int *idx)
{
    for (int i = 0; i < b->nred; i++)
        if (!strcmp(b->red_spec[i], spec)) return *idx = i, OVK_OK;
    int rc = ovk_reducer_create(MPI_COMM_WORLD, spec, &b->red[b->nred]);
    if (rc) return rc;
    b->red_spec[b->nred] = spec;
    *idx = b->nred++;
    return OVK_OK;
}

/* a number >= 0: 0, or -1 */
static int parse_number(const char *s, double *v)
{
    return ovk_bench_double(s, v) || *v < 0.0 ? -1 : 0;
}

/* The colon that starts the backend in "solver[:opts]:backend[:opts]": the
 * first one whose next field (up to ':' or the end) is a name, not a
 * key=value list, so that "plcg:l=3,lmax=2:nbc:radix=4" splits into
 * "plcg:l=3,lmax=2" and "nbc:radix=4".  NULL when there is none. */
static char *backend_colon(char *item)
{
    for (char *c = strchr(item, ':'); c; c = strchr(c + 1, ':')) {
        size_t len = strcspn(c + 1, ":");
        if (len > 0 && !memchr(c + 1, '=', len)) return c;
    }
    return NULL;
}

/* Case k = (s, l, q): solver:backend s at latency l and noise q, with its
 * L = 0 twin, its quiet twin and its reference (the first solver:backend at
 * the same L and noise), all parsed before it. */
static int fill_case(bench *b, int s, int l, int q, const char **bad)
{
    int nl = b->lats.count, nn = b->noises.count;
    bench_case *c = &b->c[(s * nl + l) * nn + q];
    c->solver = b->cases.text[s];
    c->backend = c->solver + strlen(c->solver) + 1;
    *bad = "-latency item (want a number >= 0)";
    if (parse_number(b->lats.text[l], &c->lat_us)) return OVK_EOPTION;
    *bad = "-noise item (want F:D, numbers >= 0)";
    char *colon = strchr(b->noises.text[q], ':');
    if (!colon) return OVK_EOPTION;
    *colon = '\0';
    int rc = parse_number(b->noises.text[q], &c->noise_hz) || parse_number(colon + 1, &c->noise_us);
    *colon = ':';
    if (rc) return OVK_EOPTION;
    c->zero_case = (s * nl + 0) * nn + q;
    if (b->c[c->zero_case].lat_us != 0.0) c->zero_case = -1;
    c->quiet_case = (s * nl + l) * nn + 0;
    if (b->c[c->quiet_case].noise_hz != 0.0) c->quiet_case = -1;
    c->ref_case = (0 * nl + l) * nn + q;
    c->tpi = calloc((size_t)b->repeat, sizeof(double));
    c->rdpi = calloc((size_t)b->repeat, sizeof(double));
    return c->tpi && c->rdpi ? OVK_OK : OVK_ENOMEM;
}

/* One case per (solver:backend, latency, noise), and the reducers. */
static int build_cases(bench *b, const char **bad)
{
    int nc = b->cases.count, nl = b->lats.count, nn = b->noises.count, rc = OVK_OK;
    b->ncase = nc * nl * nn;
    b->c = calloc((size_t)b->ncase, sizeof *b->c);
    if (!b->c) return OVK_ENOMEM;
    for (int s = 0; s < nc; s++) {
        char *colon = backend_colon(b->cases.text[s]);
        *bad = "-cases item (want solver:backend)";
        if (!colon || colon == b->cases.text[s] || !colon[1]) return OVK_EOPTION;
        *colon = '\0';
    }
    for (int s = 0; s < nc && !rc; s++)
        for (int l = 0; l < nl && !rc; l++)
            for (int q = 0; q < nn && !rc; q++) rc = fill_case(b, s, l, q, bad);
    if (rc) return rc;
    *bad = NULL;
    for (int k = 0; k < b->ncase && !rc; k++) rc = reducer_of(b, b->c[k].backend, &b->c[k].red);
    return rc;
}

/* Collective: case c's solver object on its reducer, set up once. */
static int case_object(bench *b, bench_case *c, const ovk_matrix *A, ovk_drv_run *run)
{
    ovk_pcg_options opts;
    if (c->obj) return OVK_OK;
    ovk_pcg_options_init(&opts);
    opts.solver = c->solver;
    opts.reducer = b->red[c->red];
    opts.tol = b->tol;
    if (b->precond) opts.precond_spec = b->precond;
    int rc = ovk_drv_agree(ovk_solver_create(A, &c->obj));
    if (!rc) rc = ovk_drv_agree(ovk_solver_set_options(c->obj, &opts));
    if (!rc) rc = ovk_solver_setup(c->obj);
    run->setup_s = c->obj ? ovk_solver_setup_time(c->obj) : 0.0;
    return rc;
}

/* One solve of case c from x = 0: the noise around it, the model on its
 * reducer, the CSV row. */
static int solve_case(bench *b, bench_case *c, int round, const ovk_matrix *A, const ovk_vector *bv,
                      ovk_vector *x)
{
    ovk_drv_experiment e = {.noise_hz = c->noise_hz, .noise_us = c->noise_us, .csv = b->csv};
    ovk_drv_run run = {.problem = b->peclet > 0.0 ? "convdiff" : b->stencil == 7 ? "laplace7" : "laplace27",
                       .solver = c->solver,
                       .backend = c->backend,
                       .nx = (long long)b->n[0] * b->P[0],
                       .ny = (long long)b->n[1] * b->P[1],
                       .nz = (long long)b->n[2] * b->P[2]};
    ovk_pcg_result res = {0};
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &run.nranks);
    e.lat.alpha_us = c->lat_us;
    e.have_latency = c->lat_us > 0.0;
    snprintf(e.lat_text, sizeof e.lat_text, "alpha=%g", c->lat_us);
    int rc = ovk_reducer_set_latency(b->red[c->red], &e.lat);
    if (!rc) rc = case_object(b, c, A, &run);
    if (rc) return rc;
    memset(ovk_vector_data(x), 0, sizeof(double) * (size_t)ovk_vector_nlocal(x));
    rc = ovk_drv_agree(ovk_drv_noise_start(&e, rank));
    double c0 = ovk_bench_cpu_s();
    if (!rc) rc = ovk_solver_solve(c->obj, bv, x, &res);
    double cpu = ovk_bench_slowest(ovk_bench_cpu_s() - c0);
    ovk_drv_noise_stop(&e);
    if (rank == 0 && res.reason != OVK_REASON_NONE && ovk_drv_csv_row(&e, &run, &res)) rc = rc ? rc : OVK_EFILE;
    if (!rc && res.reason != OVK_REASON_CONVERGED) rc = OVK_EMAXIT;
    if (rc) return rc;
    double red = 0.0;
    for (int t = OVK_TIMER_SDOTP_INIT; t <= OVK_TIMER_IPROD_WAIT; t++) red += res.time_max[t];
    c->tpi[round] = (b->cpu ? cpu : res.time_max[OVK_TIMER_SOLVE]) / (res.iterations > 0 ? res.iterations : 1);
    c->rdpi[round] = red / (res.iterations > 0 ? res.iterations : 1);
    c->rpi = (double)res.reductions / (res.iterations > 0 ? res.iterations : 1);
    c->iterations = res.iterations;
    snprintf(c->chose, sizeof c->chose, "%s", res.auto_choice);
    return OVK_OK;
}

/* The median over the rounds of a paired figure: f(case c, twin z, round r). */
typedef double (*paired_fn)(const bench_case *c, const bench_case *z, int r);

static double hidden_wall(const bench_case *c, const bench_case *z, int r)
{
    return 100.0 * (1.0 - (c->tpi[r] - z->tpi[r]) / (c->rpi * c->lat_us * US_TO_S));
}

static double hidden_timers(const bench_case *c, const bench_case *z, int r)
{
    return 100.0 * (1.0 - (c->rdpi[r] - z->rdpi[r]) / (c->rpi * c->lat_us * US_TO_S));
}

static double noise_cost(const bench_case *c, const bench_case *z, int r)
{
    return 100.0 * (c->tpi[r] / z->tpi[r] - 1.0);
}

static double vs_ref(const bench_case *c, const bench_case *z, int r) { return c->tpi[r] / z->tpi[r]; }

static double own_time(const bench_case *c, const bench_case *z, int r)
{
    (void)z;
    return c->tpi[r];
}

static double paired(const bench_case *c, const bench_case *z, int R, paired_fn f, double *v)
{
    for (int r = 0; r < R; r++) v[r] = f(c, z, r);
    return ovk_bench_median(v, R);
}

/* One row of the table; v: room for R values. */
static void print_case(const bench *b, const bench_case *c, double *v)
{
    int R = b->repeat;
    const bench_case *z = c->zero_case >= 0 ? &b->c[c->zero_case] : NULL;
    const bench_case *ref = &b->c[c->ref_case], *quiet = c->quiet_case >= 0 ? &b->c[c->quiet_case] : NULL;
    char noise[TEXT_SHORT], hidden[TEXT_CELL] = "-", hidden_t[TEXT_CELL] = "-", cost[TEXT_CELL] = "-",
                            vsref[TEXT_CELL] = "-";
    double lo = c->tpi[0];
    for (int r = 0; r < R; r++) lo = c->tpi[r] < lo ? c->tpi[r] : lo;
    if (c->noise_hz > 0) snprintf(noise, sizeof noise, "%g Hz x %g us", c->noise_hz, c->noise_us);
    else snprintf(noise, sizeof noise, "none");
    if (z && c->lat_us > 0 && c->rpi > 0) {
        snprintf(hidden, sizeof hidden, "%.0f %%", paired(c, z, R, hidden_wall, v));
        snprintf(hidden_t, sizeof hidden_t, "%.0f %%", paired(c, z, R, hidden_timers, v));
    }
    if (quiet && quiet != c) snprintf(cost, sizeof cost, "%+.1f %%", paired(c, quiet, R, noise_cost, v));
    if (ref != c) snprintf(vsref, sizeof vsref, "%.3f", paired(c, ref, R, vs_ref, v));
    printf("| %s%s%s | %s | %g | %s | %d | %.2f | %.1f | %.1f | %s | %s | %s | %s |\n", c->solver,
           c->chose[0] ? " -> " : "", c->chose, c->backend,
           c->lat_us, noise, c->iterations, c->rpi, S_TO_US * paired(c, c, R, own_time, v), S_TO_US * lo, hidden,
           hidden_t, cost, vsref);
}

static void print_table(const bench *b)
{
    double *v = malloc(sizeof(double) * (size_t)b->repeat);
    if (!v) return;
    printf("| solver | backend | latency us | noise | iterations | reductions/iter | median us/iter | min us/iter "
           "| hidden %% (paired) | hidden %% (timers) | noise cost %% (paired) | vs %s:%s (paired) |\n",
           b->c[0].solver, b->c[0].backend);
    printf("|---|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (int k = 0; k < b->ncase; k++) print_case(b, &b->c[k], v);
    free(v);
}

static int run(bench *b, int rank, int size, const char **bad)
{
    ovk_matrix *A = NULL;
    ovk_vector *bv = NULL, *x = NULL;
    const double vel[3] = {1.0, 1.0, 1.0};
    int rc = b->peclet > 0.0 ? ovk_convdiff_create(MPI_COMM_WORLD, b->n[0], b->n[1], b->n[2], b->P[0], b->P[1], b->P[2],
                                                   vel, b->peclet, OVK_CONVDIFF_UPWIND, &A)
                             : ovk_laplace_create(MPI_COMM_WORLD, (ovk_stencil)b->stencil, b->n[0], b->n[1], b->n[2],
                                                  b->P[0], b->P[1], b->P[2], &A);
    if (!rc) rc = ovk_drv_agree(build_cases(b, bad));
    if (rc) goto cleanup;
    rc = ovk_vector_create(A, &bv);
    if (!rc) rc = ovk_vector_create(A, &x);
    rc = ovk_drv_agree(rc);
    if (rc) goto cleanup;
    for (int i = 0; i < ovk_vector_nlocal(bv); i++) ovk_vector_data(bv)[i] = 1.0;
    if (rank == 0)
        printf("# ovk_pcg_bench: %d-point Laplacian, %d x %d x %d per rank, %d ranks, %d cases x %d rounds\n",
               b->stencil, b->n[0], b->n[1], b->n[2], size, b->ncase, b->repeat);
    for (int r = 0; r < b->repeat && !rc; r++) {
        for (int j = 0; j < b->ncase && !rc; j++) /* rotated: case (r + j) mod ncase */
            rc = solve_case(b, &b->c[(r + j) % b->ncase], r, A, bv, x);
        if (rank == 0 && !rc) {
            printf("# round %d of %d done\n", r + 1, b->repeat);
            fflush(stdout);
        }
    }
    if (!rc && rank == 0) print_table(b);
cleanup:
    if (rc && rank == 0) fprintf(stderr, "ovk_pcg_bench: %s: %s\n", ovk_strerror(rc), *bad ? *bad : ovk_error_detail());
    for (int k = 0; b->c && k < b->ncase; k++) ovk_solver_destroy(&b->c[k].obj);
    for (int i = 0; i < b->nred; i++) ovk_reducer_destroy(b->red[i]);
    for (int k = 0; b->c && k < b->ncase; k++) {
        free(b->c[k].tpi);
        free(b->c[k].rdpi);
    }
    free(b->c);
    ovk_vector_destroy(bv);
    ovk_vector_destroy(x);
    ovk_matrix_destroy(A);
    return rc;
}

/* 1 when a backend of the -cases items needs MPI_THREAD_MULTIPLE (asked of
 * the library: ovk_backend_caps; before MPI_Init). */
static int cases_need_threads(const char *text)
{
    item_list l = {0};
    int need = 0;
    if (!split_items(text, &l))
        for (int k = 0; k < l.count; k++) {
            char *colon = backend_colon(l.text[k]);
            unsigned caps = 0u;
            if (colon && !ovk_backend_caps(colon + 1, &caps) && (caps & OVK_CAP_NEEDS_THREADS)) need = 1;
        }
    free(l.buf);
    return need;
}

int main(int argc, char **argv)
{
    bench b = {.n = {40, 40, 40}, .stencil = 27, .repeat = 5, .tol = 1e-8};
    const char *bad = NULL;
    int rank, size, status = 0, thread = 0;
    for (int i = 1; i + 1 < argc; i++)
        if (!strcmp(argv[i], "-cases")) thread = cases_need_threads(argv[i + 1]);
    if (thread) {
        int provided;
        MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    } else {
        MPI_Init(&argc, &argv);
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Dims_create(size, 3, b.P);
    if (parse_args(argc, argv, &b, &bad)) {
        if (rank == 0)
            fprintf(stderr, "ovk_pcg_bench: bad or unknown flag: %s (see the header of bench/ovk_pcg_bench.c)\n", bad);
        status = EXIT_USAGE;
    } else {
        bad = NULL;
        status = run(&b, rank, size, &bad) ? 1 : 0;
    }
    free(b.cases.buf);
    free(b.lats.buf);
    free(b.noises.buf);
    MPI_Finalize();
    return status;
}

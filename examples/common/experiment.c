/* Flags shared by the drivers: -precond, -atol, -latency_us,
 * -latency_model, -noise, -csv, -condest, -replace_every; the library's
 * -ovk_* options pass through to its options database. */
#include "experiment.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* 1 when a word of text is a backend spec that needs MPI_THREAD_MULTIPLE
 * (asked of the library: ovk_backend_caps). */
static int needs_threads(const char *text)
{
    char word[256];
    unsigned caps = 0u;
    for (const char *p = text; p && *p;) {
        size_t n = strcspn(p, " ");
        snprintf(word, sizeof word, "%.*s", (int)n, p);
        if (n && n < sizeof word && !ovk_backend_caps(word, &caps) && (caps & OVK_CAP_NEEDS_THREADS)) return 1;
        p += n + (p[n] == ' ');
    }
    return 0;
}

void ovk_drv_mpi_init(int *argc, char ***argv)
{
    int provided = 0, threads = needs_threads(getenv(OVK_BACKEND_ENV)) || needs_threads(getenv("OVK_OPTIONS"));
    for (int i = 1; i < *argc; i++) threads |= needs_threads((*argv)[i]);
    if (threads) MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided);
    else MPI_Init(argc, argv);
    if (ovk_options_set_args(*argc, *argv)) fprintf(stderr, "ovk options: %s\n", ovk_error_detail());
}

int ovk_drv_agree(int rc)
{
    int worst = rc;
    if (MPI_Allreduce(&rc, &worst, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD) != MPI_SUCCESS) return OVK_EMPI;
    return worst;
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

double ovk_drv_quantile(double *v, int n, double q)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    if (q == 0.5 && n % 2 == 0) return 0.5 * (v[n / 2 - 1] + v[n / 2]);
    double t = q * n;
    int i = (int)t; /* ceil(q n) - 1, without libm */
    if (i < t) i++;
    i--;
    return v[i < 0 ? 0 : (i >= n ? n - 1 : i)];
}

double ovk_drv_median(double *v, int n) { return ovk_drv_quantile(v, n, 0.5); }

void ovk_drv_usage(FILE *f)
{
    fprintf(f,
            "  -ovk_KEY VALUE       any solver option of the library (README, \"Options\"): -ovk_solver,\n"
            "                       -ovk_precond, -ovk_backend, -ovk_rtol, -ovk_atol, -ovk_divtol, -ovk_max_it,\n"
            "                       -ovk_monitor, -ovk_view, -ovk_converged_reason, ...; also from $OVK_OPTIONS;\n"
            "                       they override the flags below and -solver, -backend, -tol, -maxit\n"
            "  -ovk_help            rank 0 lists every -ovk_ option with its value, range and meaning\n"
            "  -ovk_log_view        rank 0 prints where the solver's time went (at its destroy)\n"
            "  -ovk_options_left 0  no warning of the -ovk_ options no solver read\n");
    fprintf(f, "  -precond SPEC        preconditioner name[:key=value,...] (default jacobi):");
    for (int i = 0; i < ovk_precond_type_count(); i++) fprintf(f, " %s", ovk_precond_type_name(i));
    fprintf(f,
            "\n"
            "                       (-precond list: each with its keys; -ovk_help: the same)\n"
            "  -atol A              absolute tolerance: converged when ||r|| < max(tol ||b||, A) (0)\n"
            "  -halo MODE           halo exchange of the matvec: isend (default), persistent, neighbor\n"
            "  -nullspace constant  A is singular with the constants as null space (-ovk_nullspace constant):\n"
            "                       b's null-space part removed, its size printed (Null Space Inconsistency)\n"
            "  -nrhs K              solve K right-hand sides together (b and K - 1 random ones)\n"
            "  -latency_us A        model a network: every reduction takes at least A us\n"
            "  -latency_model TEXT  alpha=..,beta=..,gamma=..,P=.. (us, us/level, us/byte) or a preset\n"
            "                       (default $%s); presets:\n",
            OVK_LATENCY_ENV);
    ovk_latency_preset_print(f);
    fprintf(f,
            "  -noise F D           interrupt each rank F times a second for D us of busy work\n"
            "  -csv FILE            append one CSV row per solve to FILE\n"
            "  -condest             estimate the condition number (Lanczos, from the CG coefficients)\n"
            "  -replace_every K     residual replacement of cg1, pipecg, pipebicgstab, pipeidrs, pminres\n"
            "                       every K iterations (0 automatic, -1 never)\n");
}

static int set_latency(ovk_drv_experiment *e, const char *text)
{
    if (ovk_latency_model_parse(text, &e->lat)) {
        fprintf(stderr, "%s\n", ovk_error_detail());
        return -1;
    }
    e->have_latency = 1;
    snprintf(e->lat_text, sizeof e->lat_text, "%s", text);
    return 1;
}

static int parse_pos(const char *s, double *v)
{
    char *end = NULL;
    *v = strtod(s, &end);
    return (*s && !*end && *v >= 0.0) ? 0 : -1;
}

int ovk_drv_parse_flag(int argc, char **argv, int *i, ovk_drv_experiment *e)
{
    const char *f = argv[*i];
    char text[96];
    double a = 0.0;
    int nargs = !strcmp(f, "-noise") ? 2 : 1, lib = ovk_options_skip(argc, argv, *i);
    if (lib) { /* the library's options database reads it */
        *i += lib - 1;
        return 1;
    }
    if (!strcmp(f, "-condest")) {
        e->condest = 1;
        return 1;
    }
    if (strcmp(f, "-latency_us") && strcmp(f, "-latency_model") && strcmp(f, "-noise") && strcmp(f, "-csv") &&
        strcmp(f, "-replace_every") && strcmp(f, "-precond") && strcmp(f, "-atol") && strcmp(f, "-halo") &&
        strcmp(f, "-nullspace") && strcmp(f, "-nrhs"))
        return 0;
    if (*i + nargs >= argc) return -1;
    const char *v = argv[*i + 1];
    *i += nargs;
    if (!strcmp(f, "-csv")) {
        e->csv = v;
        return 1;
    }
    if (!strcmp(f, "-precond")) {
        e->precond = v;
        return 1;
    }
    if (!strcmp(f, "-atol")) return parse_pos(v, &e->atol) ? -1 : 1;
    if (!strcmp(f, "-nullspace")) {
        e->nullspace = v;
        return 1;
    }
    if (!strcmp(f, "-halo")) {
        static const char *modes[] = {"isend", "persistent", "neighbor"};
        for (int k = 0; k < 3; k++)
            if (!strcmp(v, modes[k])) e->halo = k;
        return strcmp(v, modes[e->halo]) ? -1 : 1;
    }
    if (!strcmp(f, "-latency_model")) return set_latency(e, v);
    if (!strcmp(f, "-nrhs")) {
        char *end = NULL;
        long k = strtol(v, &end, 10);
        if (!*v || *end || k < 1 || k > 100000L) return -1;
        e->nrhs = (int)k;
        return 1;
    }
    if (!strcmp(f, "-replace_every")) {
        char *end = NULL;
        long k = strtol(v, &end, 10);
        if (!*v || *end || k < -1 || k > 1000000000L) return -1;
        e->replace_every = (int)k;
        return 1;
    }
    if (!strcmp(f, "-latency_us")) {
        if (parse_pos(v, &a)) return -1;
        snprintf(text, sizeof text, "alpha=%s", v);
        return set_latency(e, text);
    }
    if (parse_pos(v, &e->noise_hz) || parse_pos(argv[*i], &e->noise_us)) return -1;
    return (e->noise_hz > 0.0 && e->noise_us > 0.0) ? 1 : -1;
}

void ovk_drv_apply(const ovk_drv_experiment *e, ovk_solve_options *opts)
{
    opts->condest = e->condest;
    opts->replace_every = e->replace_every;
    opts->precond_spec = e->precond;
    opts->atol = e->atol;
}

void ovk_drv_print(const ovk_drv_experiment *e, const ovk_result *res)
{
    if (e->condest)
        printf("Condition Estimate = %e (lambda_min = %e, lambda_max = %e)\n", res->cond_est, res->lambda_min,
               res->lambda_max);
    if (e->nullspace || e->ns_rigid)
        printf("Null Space Inconsistency = %e (||Z^T b||/||b||, removed from b; the residual above is of the "
               "projected system)\n",
               res->nullspace_inconsistency);
    if (res->replacements || res->restarts)
        printf("Residual Replacements = %d, Restarts = %d\n", res->replacements, res->restarts);
}

int ovk_drv_reducer(MPI_Comm comm, const char *spec, const ovk_drv_experiment *e, ovk_reducer **red)
{
    char db[256];
    int found = 0;
    *red = NULL;
    if (!e->have_latency) return OVK_OK; /* the solver makes its own from the backend option */
    int rc = ovk_drv_agree(ovk_options_get("-ovk_backend", db, sizeof db, &found)); /* it overrides -backend */
    if (rc) return rc;
    if (found) spec = db;
    rc = ovk_reducer_create(comm, spec, red);
    if (rc || !e->have_latency) return rc;
    rc = ovk_reducer_set_latency(*red, &e->lat);
    if (rc) {
        ovk_reducer_destroy(*red);
        *red = NULL;
    }
    return rc;
}

int ovk_drv_noise_start(const ovk_drv_experiment *e, int rank)
{
    if (e->noise_hz <= 0.0) return OVK_OK;
    return ovk_noise_start(e->noise_hz, e->noise_us, 0x9e3779b9u * (unsigned)(rank + 1));
}

long ovk_drv_noise_stop(const ovk_drv_experiment *e)
{
    return e->noise_hz > 0.0 ? ovk_noise_stop() : 0;
}

static void csv_header(FILE *f)
{
    fprintf(f, "solver,backend,latency_model,noise_hz,noise_us,nranks,nx,ny,nz,iterations,rel_residual,"
               "solve_s,us_per_iter,reductions");
    for (int t = 0; t < OVK_TIMER_COUNT; t++) {
        if (t == OVK_TIMER_SOLVE) continue;
        fputc(',', f);
        for (const char *c = ovk_timer_name((ovk_timer)t); *c; c++) fputc(*c == ' ' ? '_' : *c, f);
        fputs("_s", f);
    }
    fprintf(f, ",latency_us,problem,reason,cond_est,replacements,restarts\n");
}

/* text with its commas (they separate CSV fields) turned into ';' */
static void csv_text(const char *text, char *buf, size_t len)
{
    snprintf(buf, len, "%s", text ? text : "");
    for (char *c = buf; *c; c++)
        if (*c == ',') *c = ';';
}

int ovk_drv_csv_row(const ovk_drv_experiment *e, const ovk_drv_run *run, const ovk_result *res)
{
    char model[128], backend[256];
    if (!e->csv) return 0;
    FILE *f = fopen(e->csv, "a");
    if (!f) {
        fprintf(stderr, "cannot append to %s\n", e->csv);
        return -1;
    }
    if (fseek(f, 0, SEEK_END) == 0 && ftell(f) == 0) csv_header(f);
    csv_text(e->have_latency ? e->lat_text : "none", model, sizeof model);
    csv_text(run->backend, backend, sizeof backend);
    double solve = res->time_max[OVK_TIMER_SOLVE];
    double lat = e->have_latency ? ovk_latency_model_us(&e->lat, run->nranks, 8.0) : 0.0;
    fprintf(f, "%s,%s,%s,%g,%g,%d,%lld,%lld,%lld,%d,%.6e,%.6f,%.3f,%lld", run->solver, backend, model,
            e->noise_hz, e->noise_us, run->nranks, run->nx, run->ny, run->nz, res->iterations,
            res->rel_residual, solve, res->iterations > 0 ? 1e6 * solve / res->iterations : 0.0,
            res->reductions);
    for (int t = 0; t < OVK_TIMER_COUNT; t++)
        if (t != OVK_TIMER_SOLVE) fprintf(f, ",%.6f", res->time_max[t]);
    fprintf(f, ",%g,%s,%s,%g,%d,%d\n", lat, run->problem, ovk_reason_name(res->reason), res->cond_est,
            res->replacements, res->restarts);
    return fclose(f) == 0 ? 0 : -1;
}

static int print_residual(ovk_solver *s, int iteration, double rnorm, double rel, void *ctx)
{
    (void)rnorm;
    FILE *out = ctx;
    int rank = 0;
    MPI_Comm_rank(ovk_solver_comm(s), &rank);
    if (rank == 0) fprintf(out, "Iter %5d  ||r||/||b|| = %e\n", iteration, rel);
    return 0;
}

/* Collective: the null space of -nullspace (constant, or the vectors the
 * driver read) and of ns_rigid (the rigid-body modes of the coordinates) */
static int set_nullspace(const ovk_drv_experiment *e, ovk_solver *s)
{
    int rc = 0, n = ovk_solver_nlocal(s);
    if (e->nullspace && !strcmp(e->nullspace, "constant")) rc = ovk_solver_set_option(s, "nullspace", "constant");
    rc = ovk_drv_agree(rc);
    if (!rc && e->ns_rigid) rc = ovk_solver_set_nullspace_rigid_body(s, e->coord_dim, e->ncoords, e->coords);
    if (rc || e->ns_k <= 0) return rc;
    const double **vec = malloc(sizeof *vec * (size_t)e->ns_k);
    rc = ovk_drv_agree(vec ? 0 : OVK_ENOMEM);
    for (int j = 0; !rc && j < e->ns_k; j++) vec[j] = e->ns_vectors + (size_t)j * (size_t)n;
    if (!rc) rc = ovk_solver_set_nullspace(s, 0, e->ns_k, vec);
    free((void *)vec);
    return rc;
}

/* right-hand side j > 0 of -nrhs: a hash of (global row, j) in [0, 1) */
static double rhs_value(long long row, int j)
{
    uint64_t g = (uint64_t)row * 0x9E3779B97F4A7C15ull + (uint64_t)j * 0xD1B54A32D192ED03ull;
    g = (g ^ (g >> 30)) * 0xBF58476D1CE4E5B9ull;
    g = (g ^ (g >> 27)) * 0x94D049BB133111EBull;
    return (double)((g ^ (g >> 31)) >> 11) * (1.0 / 9007199254740992.0);
}

/* -nrhs K: b and K - 1 random right-hand sides solved together, x the
 * first's; one line per system on rank 0, *res the batch's summary */
static int solve_many(const ovk_drv_experiment *e, ovk_solver *s, const ovk_matrix *A, const ovk_vector *b,
                      ovk_vector *x, ovk_result *res)
{
    int k = e->nrhs, rank = 0, rc = OVK_OK, n = ovk_vector_nlocal(x);
    ovk_vector **B = calloc((size_t)k, sizeof *B), **X = calloc((size_t)k, sizeof *X);
    ovk_result *all = calloc((size_t)k, sizeof *all);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (!B || !X || !all) rc = OVK_ENOMEM;
    for (int j = 1; !rc && j < k; j++) {
        rc = ovk_vector_create(A, &B[j]);
        if (!rc) rc = ovk_vector_create(A, &X[j]);
        for (int i = 0; !rc && i < n; i++)
            ovk_vector_data(B[j])[i] = rhs_value(ovk_matrix_row_start(A) + i, j);
    }
    rc = ovk_drv_agree(rc);
    if (rc) goto cleanup;
    B[0] = (ovk_vector *)b; /* read only */
    X[0] = x;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    rc = ovk_solver_solve_many(s, k, B, X, all);
    double t = MPI_Wtime() - t0;
    MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    *res = all[0];
    for (int j = 0; j < k; j++) {
        if (rank == 0)
            printf("System %d: %d iterations, relative residual %e, %s\n", j, all[j].iterations, all[j].rel_residual,
                   ovk_reason_name(all[j].reason));
        if (all[j].iterations > res->iterations) res->iterations = all[j].iterations;
        if (all[j].rel_residual > res->rel_residual || isnan(all[j].rel_residual)) res->rel_residual = all[j].rel_residual;
        if (res->reason == OVK_REASON_CONVERGED) res->reason = all[j].reason;
    }
    res->time_max[OVK_TIMER_SOLVE] = t;
cleanup:
    for (int j = 1; j < k; j++) {
        if (B) ovk_vector_destroy(B[j]);
        if (X) ovk_vector_destroy(X[j]);
    }
    free(B);
    free(X);
    free(all);
    return rc;
}

/* create and set up; the residual lines through the monitor */
int ovk_drv_solver_create(const ovk_drv_experiment *e, const ovk_matrix *A, const ovk_solve_options *opts,
                          ovk_solver **out)
{
    ovk_solver *s = NULL;
    *out = NULL;
    int rc = ovk_drv_agree(ovk_solver_create(A, &s));
    if (rc) return rc;
    rc = ovk_solver_set_options(s, opts);
    if (!rc) rc = ovk_solver_set_from_options(s, NULL); /* -ovk_* (collective: every rank gets here) */
    if (!rc && e->coord_dim > 0) rc = ovk_solver_set_coordinates(s, e->coord_dim, e->ncoords, e->coords);
    if (!rc && e->schur) rc = ovk_solver_set_schur_matrix(s, e->schur);
    rc = ovk_drv_agree(rc);
    if (!rc && e->fields) rc = ovk_solver_set_fields(s, e->fields); /* collective, agreed */
    if (!rc) rc = set_nullspace(e, s);
    if (!rc && opts->print_level >= 2) {
        rc = ovk_solver_set_option(s, "print_level", "1");
        if (!rc) rc = ovk_solver_set_monitor(s, print_residual, opts->out ? opts->out : stdout);
    }
    rc = ovk_drv_agree(rc);
    if (!rc) rc = ovk_solver_setup(s);
    if (rc) {
        ovk_solver_destroy(&s);
        return rc;
    }
    *out = s;
    return OVK_OK;
}

/* create, set up, solve, destroy */
static int solve_once(const ovk_drv_experiment *e, const ovk_matrix *A, const ovk_vector *b, ovk_vector *x,
                      const ovk_solve_options *opts, ovk_result *res, ovk_drv_run *run)
{
    ovk_solver *s = NULL;
    memset(res, 0, sizeof *res);
    int rc = ovk_drv_solver_create(e, A, opts, &s);
    if (rc) return rc;
    run->setup_s = ovk_solver_setup_time(s);
    if (!rc) rc = e->nrhs > 1 ? solve_many(e, s, A, b, x, res) : ovk_solver_solve(s, b, x, res);
    ovk_solver_get_option(s, "solver", run->solver_buf, sizeof run->solver_buf); /* as run, -ovk_* included */
    ovk_solver_get_option(s, "backend", run->backend_buf, sizeof run->backend_buf); /* as resolved */
    int rc2 = ovk_solver_destroy(&s);
    return rc ? rc : rc2;
}

int ovk_drv_solve(const ovk_drv_experiment *e, ovk_drv_run *run, int print_noise, const ovk_matrix *A,
                  const ovk_vector *b, ovk_vector *x, const ovk_solve_options *opts, ovk_result *res)
{
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &run->nranks);
    int rc = ovk_drv_agree(ovk_drv_noise_start(e, rank));
    if (rc) {
        ovk_drv_noise_stop(e);
        memset(res, 0, sizeof *res);
        return rc;
    }
    if (e->halo) rc = ovk_matrix_set_halo((ovk_matrix *)A, (ovk_halo_mode)e->halo); /* the driver's own matrix */
    snprintf(run->solver_buf, sizeof run->solver_buf, "%s", opts->solver ? opts->solver : "alg1");
    snprintf(run->backend_buf, sizeof run->backend_buf, "%s", opts->backend ? opts->backend : "");
    if (!rc) rc = solve_once(e, A, b, x, opts, res, run);
    if (rank == 0 && print_noise) printf("Setup Time = %.6f s\n", run->setup_s);
    long hits = ovk_drv_noise_stop(e);
    if (rank == 0 && print_noise && e->noise_hz > 0) printf("Noise interruptions (rank 0) = %ld\n", hits);
    run->solver = run->solver_buf;
    run->backend = run->backend_buf;
    if (rank == 0 && res->reason != OVK_REASON_NONE && ovk_drv_csv_row(e, run, res)) rc = rc ? rc : OVK_EFILE;
    return rc;
}

double ovk_drv_random_entry(ovk_gidx i)
{
    uint64_t z = (uint64_t)i + 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    return (double)(z >> 11) / 4503599627370496.0 - 1.0; /* 2^52 */
}

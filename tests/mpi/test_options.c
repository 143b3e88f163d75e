/* The options database and what came with it: every key of the
 * solver's option table from the arguments and from $OVK_OPTIONS, prefixes
 * keeping two solvers apart, unused options listed, a bad value the same
 * error on every rank; the view with the resolved backend; a changed
 * option taking effect at the next solve without ovk_solver_setup; a
 * monitor adding no reduction (alg1, pipecg); divtol, the convergence test
 * and initial_guess_zero stopping or skipping where they should; the
 * log_view table at destroy (its parts within the solve, a value that
 * differs across the ranks refused). */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "mpitest.h"
#include "problem.h"

#include "count_reductions.h"

static int g_rank, g_size;

/* a non-default value of every key (the keys themselves come from the view) */
static const struct {
    const char *key, *value;
} values[] = {
    {"solver", "pipecg"},      {"backend", "nbc"},       {"precond", "ssor:omega=1.2"}, {"rtol", "0.125"},
    {"atol", "0.25"},          {"divtol", "10000"},      {"max_it", "321"},             {"print_level", "0"},
    {"progress_every", "512"}, {"condest", "1"},         {"replace_every", "-1"},       {"initial_guess_zero", "1"},
    {"monitor", "0"},          {"monitor_true", "0"},    {"view", "0"},                 {"converged_reason", "0"},
    {"log_view", "1"},         {"nullspace", "constant"}, {"norm", "natural"},        {"many_group", "3"},
    {"recycle", "2"},
    {"assume_symmetric", "1"},
};
enum { NVALUES = (int)(sizeof values / sizeof values[0]) };

/* the keys the view lists ("  options: k=v k=v ...") into keys[], their count */
static int view_keys(ovk_solver *s, char keys[][64], int max)
{
    char line[2048];
    int n = 0;
    FILE *f = tmpfile();
    MT_RC(OVK_OK, ovk_solver_view(s, f));
    rewind(f);
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, "  options:", 10))
            for (char *t = strtok(line + 10, " \n"); t && n < max; t = strtok(NULL, " \n")) {
                char *eq = strchr(t, '=');
                if (eq) *eq = '\0';
                snprintf(keys[n++], 64, "%s", t);
            }
    fclose(f);
    return n;
}

/* every key's value as read back equals what was given */
static void expect_values(ovk_solver *s, const char *how)
{
    char keys[64][64], buf[256];
    int n = view_keys(s, keys, 64);
    MT_CHECK(n == NVALUES, "%s: the view lists %d keys, the test knows %d", how, n, NVALUES);
    for (int k = 0; k < n; k++) {
        int known = 0;
        for (int i = 0; i < NVALUES; i++) {
            if (strcmp(values[i].key, keys[k])) continue;
            known = 1;
            MT_RC(OVK_OK, ovk_solver_get_option(s, keys[k], buf, sizeof buf));
            MT_CHECK(!strcmp(buf, values[i].value), "%s: %s = '%s', want '%s'", how, keys[k], buf, values[i].value);
        }
        MT_CHECK(known, "%s: key %s has no test value", how, keys[k]);
    }
}

static void test_every_key(ovk_matrix *A)
{
    char *argv[2 * NVALUES + 1], names[NVALUES][64], env[2048] = "";
    ovk_solver *s = NULL;
    argv[0] = "test_options";
    for (int i = 0; i < NVALUES; i++) {
        snprintf(names[i], sizeof names[i], "-ovk_%s", values[i].key);
        argv[1 + 2 * i] = names[i];
        argv[2 + 2 * i] = (char *)values[i].value;
        snprintf(env + strlen(env), sizeof env - strlen(env), "%s %s ", names[i], values[i].value);
    }
    /* from the arguments */
    MT_RC(OVK_OK, ovk_options_set_args(2 * NVALUES + 1, argv));
    MT_RC(OVK_OK, ovk_solver_create(A, &s));
    MT_RC(OVK_OK, ovk_solver_set_from_options(s, NULL));
    expect_values(s, "argv");
    MT_CHECK(ovk_options_left(NULL) == 0, "argv: %d options left", ovk_options_left(NULL));
    ovk_solver_destroy(&s);
    /* from $OVK_OPTIONS (no arguments) */
    setenv("OVK_OPTIONS", env, 1);
    MT_RC(OVK_OK, ovk_options_set_args(1, argv));
    MT_RC(OVK_OK, ovk_solver_create(A, &s));
    MT_RC(OVK_OK, ovk_solver_set_from_options(s, ""));
    expect_values(s, "$OVK_OPTIONS");
    /* the command line overrides the environment; a flag alone is 1 */
    char *over[] = {"test_options", "-ovk_rtol", "1e-05", "-ovk_view"};
    MT_RC(OVK_OK, ovk_options_set_args(4, over));
    MT_RC(OVK_OK, ovk_solver_set_from_options(s, NULL));
    char buf[64];
    ovk_solver_get_option(s, "rtol", buf, sizeof buf);
    MT_CHECK(!strcmp(buf, "1.0000000000000001e-05"), "argv over env: rtol %s", buf);
    ovk_solver_get_option(s, "view", buf, sizeof buf);
    MT_CHECK(!strcmp(buf, "1"), "a flag alone: view %s", buf);
    unsetenv("OVK_OPTIONS");
    ovk_solver_destroy(&s);
    ovk_options_clear();
}

/* a $OVK_OPTIONS the database refuses stays refused: the second read fails
 * too instead of ignoring the environment */
static void test_env_too_long(ovk_matrix *A)
{
    enum { WORDS = 300 };
    static char env[WORDS * 16];
    ovk_solver *s = NULL;
    char *argv[] = {"test_options"};
    env[0] = '\0';
    for (int i = 0; i < WORDS / 2; i++) strcat(env, " -ovk_rtol 0.5");
    setenv("OVK_OPTIONS", env, 1);
    ovk_options_clear();
    MT_RC(OVK_OK, ovk_solver_create(A, &s));
    MT_RC(OVK_EOPTION, ovk_solver_set_from_options(s, NULL));
    MT_RC(OVK_EOPTION, ovk_solver_set_from_options(s, NULL));
    MT_RC(OVK_EOPTION, ovk_options_set_args(1, argv));
    MT_RC(OVK_EOPTION, ovk_solver_set_from_options(s, NULL));
    unsetenv("OVK_OPTIONS");
    ovk_options_clear();
    /* a prefix too long for a name is refused, not cut short (its options silently unread) */
    static char prefix[301];
    memset(prefix, 'p', sizeof prefix - 1);
    char *longp[] = {"test_options", "-x", "0.5"};
    longp[1] = malloc(sizeof prefix + 16);
    snprintf(longp[1], sizeof prefix + 16, "-%sovk_rtol", prefix);
    MT_RC(OVK_OK, ovk_options_set_args(3, longp));
    MT_RC(OVK_EOPTION, ovk_solver_set_from_options(s, prefix));
    free(longp[1]);
    ovk_options_clear();
    ovk_solver_destroy(&s);
}

static void test_prefix_left_bad(ovk_matrix *A)
{
    ovk_solver *p = NULL, *q = NULL;
    char buf[64], line[512];
    char *argv[] = {"t", "-pressure_ovk_precond", "none", "-ovk_precond", "ic0", "-ovk_bogus", "3",
                    "-pressure_ovk_nokey", "-n", "5", "-ovk_max_it", "-1"};
    MT_RC(OVK_OK, ovk_options_set_args(10, argv)); /* without the last two */
    MT_RC(OVK_OK, ovk_solver_create(A, &p));
    MT_RC(OVK_OK, ovk_solver_create(A, &q));
    MT_RC(OVK_OK, ovk_solver_set_from_options(p, "pressure_"));
    MT_RC(OVK_OK, ovk_solver_set_from_options(q, NULL));
    ovk_solver_get_option(p, "precond", buf, sizeof buf);
    MT_CHECK(!strcmp(buf, "none"), "prefixed solver: precond %s", buf);
    ovk_solver_get_option(q, "precond", buf, sizeof buf);
    MT_CHECK(!strcmp(buf, "ic0"), "plain solver: precond %s", buf);
    /* the application's own -n is its business; the two unknown library options are listed */
    int n = 0;
    MT_RC(OVK_OK, ovk_options_get_int("-n", &n, NULL));
    MT_CHECK(n == 5, "-n read back as %d", n);
    FILE *f = tmpfile();
    int left = ovk_options_left(f);
    MT_CHECK(left == 2, "%d options left, want 2 (-ovk_bogus, -pressure_ovk_nokey)", left);
    rewind(f);
    int bogus = 0, nokey = 0;
    while (fgets(line, sizeof line, f)) {
        bogus |= strstr(line, "-ovk_bogus 3") != NULL;
        nokey |= strstr(line, "-pressure_ovk_nokey") != NULL;
    }
    fclose(f);
    MT_CHECK(bogus && nokey, "the unused options are named (%d %d)", bogus, nokey);
    /* a bad value, on one rank only: the same error on every rank */
    char *bad[] = {"t", "-ovk_max_it", g_rank == g_size - 1 ? "x" : "10"};
    MT_RC(OVK_OK, ovk_options_set_args(3, bad));
    int rc = ovk_solver_set_from_options(q, NULL);
    MT_RC(OVK_EOPTION, rc);
    MT_CHECK(strstr(ovk_error_detail(), "-ovk_max_it") != NULL, "detail: %s", ovk_error_detail());
    /* a negative number is a value, not a name; out of range is OVK_EOPTION everywhere */
    MT_RC(OVK_OK, ovk_options_set_args(12, argv));
    MT_RC(OVK_EOPTION, ovk_solver_set_from_options(q, NULL));
    MT_RC(OVK_EOPTION, ovk_solver_set_from_options(q, "bad-prefix"));
    /* an unknown solver name from the database: OVK_EOPTION at the solve's setup, on every rank */
    char *unk[] = {"t", "-ovk_solver", "nosuch"};
    MT_RC(OVK_OK, ovk_options_set_args(3, unk));
    MT_RC(OVK_OK, ovk_solver_set_from_options(q, NULL));
    MT_RC(OVK_EOPTION, ovk_solver_setup(q));
    ovk_solver_destroy(&p);
    ovk_solver_destroy(&q);
    ovk_options_clear();
}

static void test_view_backend(ovk_matrix *A)
{
    ovk_solver *s = NULL;
    char buf[256], line[1024];
    setenv(OVK_BACKEND_ENV, "nbc", 1);
    MT_RC(OVK_OK, ovk_solver_create(A, &s));
    MT_RC(OVK_OK, ovk_solver_setup(s));
    MT_RC(OVK_OK, ovk_solver_get_option(s, "backend", buf, sizeof buf));
    MT_CHECK(!strncmp(buf, "nbc", 3), "backend from $%s read back as '%s'", OVK_BACKEND_ENV, buf);
    FILE *f = tmpfile();
    MT_RC(OVK_OK, ovk_solver_view(s, f));
    rewind(f);
    int seen = 0, rows = 0;
    while (fgets(line, sizeof line, f)) {
        seen |= !strncmp(line, "  backend: nbc", 14) && strstr(line, "$" OVK_BACKEND_ENV);
        rows |= strstr(line, "matrix: ") && strstr(line, "halo isend");
    }
    fclose(f);
    MT_CHECK(seen && rows, "the view names the resolved backend and its origin (%d), the matrix (%d)", seen, rows);
    unsetenv(OVK_BACKEND_ENV);
    ovk_solver_destroy(&s);
}

/* where the backend comes from, in the documented order: default, then
 * $OVK_REDUCE_BACKEND, then a call (set_option, the struct form, the
 * database), then the application's reducer; unset again ("") the
 * environment is back */
static void test_origins(ovk_matrix *A)
{
    ovk_solver *s = NULL;
    ovk_reducer *red = NULL;
    char be[256], from[64];
    unsetenv(OVK_BACKEND_ENV);
    MT_RC(OVK_OK, ovk_solver_create(A, &s));
#define ORIGIN(want_be, want_from)                                                                         \
    do {                                                                                                   \
        MT_RC(OVK_OK, ovk_solver_get_option(s, "backend", be, sizeof be));                                 \
        MT_RC(OVK_OK, ovk_solver_get_option_origin(s, "backend", from, sizeof from));                      \
        MT_CHECK(!strncmp(be, want_be, strlen(want_be)) && !strcmp(from, want_from),                       \
                 "backend '%s' from '%s' (expected '%s' from '%s')", be, from, want_be, want_from);        \
    } while (0)
    ORIGIN("blocking", "default");
    setenv(OVK_BACKEND_ENV, "nbc", 1);
    ORIGIN("nbc", "$" OVK_BACKEND_ENV);
    MT_RC(OVK_OK, ovk_solver_set_option(s, "backend", "native"));
    ORIGIN("native", "option backend");
    MT_RC(OVK_OK, ovk_solver_set_option(s, "backend", ""));
    ORIGIN("nbc", "$" OVK_BACKEND_ENV);
    char *args[] = {"t", "-ovk_backend", "blocking"};
    MT_RC(OVK_OK, ovk_options_set_args(3, args));
    MT_RC(OVK_OK, ovk_solver_set_from_options(s, NULL));
    ORIGIN("blocking", "option backend");
    ovk_options_clear();
    ovk_pcg_options o;
    ovk_pcg_options_init(&o); /* backend NULL: unset, the environment again */
    MT_RC(OVK_OK, ovk_solver_set_options(s, &o));
    ORIGIN("nbc", "$" OVK_BACKEND_ENV);
    MT_RC(OVK_OK, ovk_solver_setup(s)); /* the reducer made from the environment's value */
    ORIGIN("nbc", "$" OVK_BACKEND_ENV);
    MT_RC(OVK_OK, ovk_reducer_create(MPI_COMM_WORLD, "blocking", &red));
    MT_RC(OVK_OK, ovk_solver_set_reducer(s, red));
    ORIGIN("blocking", "the application's reducer");
    MT_RC(OVK_OK, ovk_solver_get_option_origin(s, "rtol", from, sizeof from));
    MT_CHECK(!strcmp(from, "option rtol"), "rtol from the struct form: '%s'", from);
    MT_RC(OVK_EOPTION, ovk_solver_get_option_origin(s, "no_such", from, sizeof from));
#undef ORIGIN
    unsetenv(OVK_BACKEND_ENV);
    ovk_solver_destroy(&s);
    ovk_reducer_destroy(red);
}

/* the struct form sets its fields through the option table: the table's
 * defaults are ovk_pcg_options_init's, a refused field changes nothing and
 * is named, and each field reads back under its key */
static void test_struct_form(ovk_matrix *A)
{
    ovk_solver *s = NULL;
    ovk_pcg_options o;
    char buf[256];
    MT_RC(OVK_OK, ovk_solver_create(A, &s));
    ovk_pcg_options_init(&o);
    for (int i = 0; i < ovk_solver_option_count(); i++) { /* a fresh solver holds every default */
        const char *key = ovk_solver_option_name(i), *dflt = ovk_solver_option_default(i);
        MT_RC(OVK_OK, ovk_solver_get_option(s, key, buf, sizeof buf));
        char *end = NULL;
        double v = strtod(dflt, &end);
        int number = *dflt && !*end, same = number ? strtod(buf, NULL) == v : !strcmp(buf, dflt);
        if (*dflt) /* "": unset, resolved (the backend) */
            MT_CHECK(same, "option %s: '%s' at creation, the table's default '%s'", key, buf, dflt);
    }
    MT_CHECK(o.tol == 1e-8 && o.max_iter == 1000 && !strcmp(o.solver, "alg1") && !o.backend && !o.precond_spec,
             "ovk_pcg_options_init: tol %g, max_iter %d, solver %s", o.tol, o.max_iter, o.solver);
    o.solver = "cg1";
    o.tol = 1e-5;
    o.max_iter = 77;
    o.precond = OVK_PRECOND_NONE;
    MT_RC(OVK_OK, ovk_solver_set_options(s, &o));
    MT_RC(OVK_OK, ovk_solver_get_option(s, "max_it", buf, sizeof buf));
    MT_CHECK(!strcmp(buf, "77"), "max_it from the struct form: %s", buf);
    MT_RC(OVK_OK, ovk_solver_get_option(s, "precond", buf, sizeof buf));
    MT_CHECK(!strcmp(buf, "none"), "precond from the struct's enum: %s", buf);
    o.solver = "pipecg";
    o.print_level = 7; /* refused: nothing of this call is stored */
    MT_RC(OVK_EOPTION, ovk_solver_set_options(s, &o));
    MT_CHECK(strstr(ovk_error_detail(), "print_level") != NULL, "the refusal names print_level: %s",
             ovk_error_detail());
    MT_RC(OVK_OK, ovk_solver_get_option(s, "solver", buf, sizeof buf));
    MT_CHECK(!strcmp(buf, "cg1"), "a refused struct changed solver to %s", buf);
    double v = -1.0;
    MT_RC(OVK_OK, ovk_solver_get_info(s, "nullspace_inconsistency", &v));
    MT_CHECK(v == 0.0, "nullspace_inconsistency before any solve: %g", v);
    MT_RC(OVK_EINVAL, ovk_solver_get_info(s, "auto_choice", &v)); /* text */
    MT_RC(OVK_EINVAL, ovk_solver_get_info(s, "nosuch", &v));
    MT_CHECK(strstr(ovk_error_detail(), "auto_latency_us") != NULL, "the unknown key's detail lists the keys: %s",
             ovk_error_detail());
    size_t off = 0, size = 0;
    MT_RC(OVK_OK, ovk_abi_field("ovk_pcg_result", "nullspace_inconsistency", &off, &size));
    MT_CHECK(off == offsetof(ovk_pcg_result, nullspace_inconsistency) && size == sizeof(double), "abi field");
    MT_RC(OVK_EINVAL, ovk_abi_field("ovk_pcg_result", "nosuch", &off, &size));
    ovk_solver_destroy(&s);
}

/* reductions per iteration of the last solve */
static double per_iteration(const ovk_pcg_result *r) { return r->iterations ? (double)r->reductions / r->iterations : 0; }

static void test_setup_on_demand(ovk_matrix *A, ovk_vector *b, ovk_vector *x)
{
    ovk_solver *s = NULL;
    ovk_pcg_result res;
    char buf[256];
    MT_RC(OVK_OK, ovk_solver_create(A, &s));
    MT_RC(OVK_OK, ovk_solver_set_option(s, "backend", "blocking"));
    ovk_vector_set(x, 0.0);
    MT_RC(OVK_OK, ovk_solver_solve(s, b, x, &res)); /* no ovk_solver_setup at all */
    double alg1 = per_iteration(&res);
    int jacobi_its = res.iterations;
    MT_RC(OVK_OK, ovk_solver_set_option(s, "solver", "cg1"));
    ovk_vector_set(x, 0.0);
    MT_RC(OVK_OK, ovk_solver_solve(s, b, x, &res));
    MT_CHECK(alg1 > 2.5 && per_iteration(&res) < 1.5, "solver changed without setup: %.2f then %.2f reductions/it",
             alg1, per_iteration(&res));
    MT_RC(OVK_OK, ovk_solver_set_option(s, "precond", "ic0"));
    MT_RC(OVK_OK, ovk_solver_set_option(s, "backend", "native"));
    ovk_vector_set(x, 0.0);
    MT_RC(OVK_OK, ovk_solver_solve(s, b, x, &res));
    MT_CHECK(res.iterations < jacobi_its, "precond ic0 without setup: %d iterations, jacobi %d", res.iterations,
             jacobi_its);
    ovk_solver_get_option(s, "backend", buf, sizeof buf);
    MT_CHECK(!strncmp(buf, "native", 6), "backend changed without setup: %s", buf);
    /* explicit setup with nothing changed: one small reduction */
    long a0 = n_allreduce;
    MT_RC(OVK_OK, ovk_solver_setup(s));
    MT_CHECK(n_allreduce - a0 == 1, "setup with nothing changed: %ld MPI_Allreduce", n_allreduce - a0);
    ovk_solver_destroy(&s);
}

static int quiet_monitor(ovk_solver *s, int it, double rnorm, double rel, void *ctx)
{
    (void)s, (void)it, (void)rnorm, (void)rel;
    ++*(int *)ctx;
    return 0;
}

/* from a callback of the same solver: refused on the calling rank (OVK_EBUSY), before any communication */
static int reentrant_monitor(ovk_solver *s, int it, double rnorm, double rel, void *ctx)
{
    (void)rnorm, (void)rel;
    if (it == 2 && g_rank == g_size - 1) *(int *)ctx = ovk_solver_set_from_options(s, NULL);
    return 0;
}

static void test_monitor_cost(ovk_matrix *A, ovk_vector *b, ovk_vector *x)
{
    static const char *const solvers[] = {"alg1", "pipecg"};
    for (int v = 0; v < 2; v++) {
        long count[2], reductions[2], icount[2];
        int calls = 0;
        for (int with = 0; with < 2; with++) {
            ovk_solver *s = NULL;
            ovk_pcg_result res;
            MT_RC(OVK_OK, ovk_solver_create(A, &s));
            ovk_solver_set_option(s, "solver", solvers[v]);
            ovk_solver_set_option(s, "backend", "blocking");
            ovk_solver_set_tolerances(s, 1e-30, 0.0, 20);
            if (with) ovk_solver_set_monitor(s, quiet_monitor, &calls);
            ovk_solver_set_option(s, "backend", "native"); /* MPI_Iallreduce, one per reduction */
            ovk_vector_set(x, 0.0);
            long i0 = n_iallreduce;
            MT_RC(OVK_EMAXIT, ovk_solver_solve(s, b, x, &res));
            icount[with] = n_iallreduce - i0;
            ovk_solver_set_option(s, "backend", "blocking");
            ovk_solver_set_tolerances(s, 1e-30, 0.0, 20); /* exactly 20 iterations */
            if (with) ovk_solver_set_monitor(s, quiet_monitor, &calls);
            MT_RC(OVK_OK, ovk_solver_setup(s));
            ovk_vector_set(x, 0.0);
            long a0 = n_allreduce;
            MT_RC(OVK_EMAXIT, ovk_solver_solve(s, b, x, &res));
            count[with] = n_allreduce - a0;
            reductions[with] = res.reductions;
            ovk_solver_destroy(&s);
        }
        MT_CHECK(calls == 42, "%s: monitor called %d times", solvers[v], calls);
        MT_CHECK(icount[0] == icount[1] && icount[0] >= 20, "%s, native: MPI_Iallreduce %ld without a monitor, %ld with",
                 solvers[v], icount[0], icount[1]);
        ovk_solver *s = NULL;
        int inner = OVK_OK;
        MT_RC(OVK_OK, ovk_solver_create(A, &s));
        ovk_solver_set_option(s, "solver", solvers[v]);
        ovk_solver_set_monitor(s, reentrant_monitor, &inner);
        ovk_vector_set(x, 0.0);
        MT_RC(OVK_OK, ovk_solver_solve(s, b, x, NULL));
        MT_RC(g_rank == g_size - 1 ? OVK_EBUSY : OVK_OK, inner);
        ovk_solver_destroy(&s);
        MT_CHECK(count[0] == count[1] && reductions[0] == reductions[1],
                 "%s: MPI_Allreduce per solve %ld without a monitor, %ld with; reductions %ld, %ld", solvers[v],
                 count[0], count[1], reductions[0], reductions[1]);
        if (g_rank == 0)
            printf("%-7s 20 iterations: MPI_Allreduce %ld without a monitor, %ld with (reductions %ld, %ld); native: "
                   "MPI_Iallreduce %ld, %ld\n",
                   solvers[v], count[0], count[1], reductions[0], reductions[1], icount[0], icount[1]);
    }
}

typedef struct verdict_ctx {
    double drop;   /* converged below drop * ||r0|| */
    int diverge_at; /* or diverged at this iteration (-1: never) */
} verdict_ctx;

static int my_test(ovk_solver *s, int it, double rnorm, double bnorm, double rnorm0, void *ctx)
{
    const verdict_ctx *v = ctx;
    (void)s, (void)bnorm;
    if (it == v->diverge_at) return OVK_VERDICT_DIVERGED;
    return rnorm < v->drop * rnorm0 ? OVK_VERDICT_CONVERGED : OVK_VERDICT_CONTINUE;
}

/* the view's line that starts with `head` into line ("" when none) */
static void view_line(ovk_solver *s, const char *head, char *line, size_t len)
{
    FILE *f = tmpfile();
    line[0] = '\0';
    MT_RC(OVK_OK, ovk_solver_view(s, f));
    rewind(f);
    char buf[1024];
    while (fgets(buf, sizeof buf, f))
        if (!strncmp(buf, head, strlen(head))) snprintf(line, len, "%s", buf);
    fclose(f);
}

/* plcg's view names the shifts of its estimate, made at setup, and the
 * spec that skips it; that spec solves in as many iterations with as many
 * reductions (neither solve estimates), and its view says the shifts came
 * from the spec */
static void test_view_plcg(ovk_matrix *A, ovk_vector *b, ovk_vector *x)
{
    ovk_solver *s = NULL, *t = NULL;
    ovk_pcg_result r1, r2;
    char line[1024], spec[256] = "", want[300];
    MT_RC(OVK_OK, ovk_solver_create(A, &s));
    MT_RC(OVK_OK, ovk_solver_set_option(s, "solver", "plcg:l=2"));
    MT_RC(OVK_OK, ovk_solver_setup(s));
    view_line(s, "  plcg:", line, sizeof line);
    const char *at = strstr(line, "the spec ");
    double lmin = -1.0, lmax = 0.0;
    if (at) sscanf(at, "the spec %255[^ ] skips it", spec);
    if (at) sscanf(spec, "plcg:l=2,lmin=%lf,lmax=%lf", &lmin, &lmax);
    MT_CHECK(strstr(line, "from the spectrum estimate") && lmin == 0.0 && lmax > 1.0 && lmax < 1.4,
             "plcg after its setup's estimate (27-point, Jacobi: lmax in (1, 1.4)): '%s'", line);
    ovk_vector_set(x, 0.0);
    MT_RC(OVK_OK, ovk_solver_solve(s, b, x, &r1));
    MT_RC(OVK_OK, ovk_solver_create(A, &t));
    MT_RC(OVK_OK, ovk_solver_set_option(t, "solver", spec));
    ovk_vector_set(x, 0.0);
    MT_RC(OVK_OK, ovk_solver_solve(t, b, x, &r2));
    MT_CHECK(r2.iterations == r1.iterations && r2.reductions == r1.reductions && r2.restarts == 0,
             "%s: %d iterations, %lld reductions; with the estimate %d, %lld", spec, r2.iterations,
             (long long)r2.reductions, r1.iterations, (long long)r1.reductions);
    view_line(t, "  plcg:", line, sizeof line);
    snprintf(want, sizeof want, "  plcg: l = 2, shifts on [0, %g] from the spec", lmax);
    MT_CHECK(!strncmp(line, want, strlen(want)), "the view of %s: '%s'", spec, line);
    ovk_solver_destroy(&s);
    ovk_solver_destroy(&t);
}

static void test_stops(ovk_matrix *A, ovk_vector *b, ovk_vector *x)
{
    static const char *const solvers[] = {"alg1", "pipecg", "pipeprcg"};
    double hist[1100];
    for (int v = 0; v < 3; v++) {
        ovk_solver *s = NULL;
        ovk_pcg_result res;
        MT_RC(OVK_OK, ovk_solver_create(A, &s));
        ovk_solver_set_option(s, "solver", solvers[v]);
        ovk_solver_set_history(s, hist, 1100);
        ovk_vector_set(x, 0.0);
        MT_RC(OVK_OK, ovk_solver_solve(s, b, x, &res));
        int n = res.history_len;
        /* divtol: the first iteration whose ||r|| exceeds divtol ||r0|| */
        double peak = 0.0;
        for (int k = 1; k < n; k++) peak = fmax(peak, hist[k] / hist[0]);
        if (peak > 1.0) {
            double divtol = 1.0 + 0.5 * (peak - 1.0);
            int want = 1;
            while (hist[want] <= divtol * hist[0]) want++;
            char text[64];
            snprintf(text, sizeof text, "%.17g", divtol);
            MT_RC(OVK_OK, ovk_solver_set_option(s, "divtol", text));
            ovk_vector_set(x, 0.0);
            MT_RC(OVK_EDIVERGED, ovk_solver_solve(s, b, x, &res));
            MT_CHECK(res.reason == OVK_REASON_DIVERGED && res.iterations == want, "%s: divtol %g stopped at %d, want %d",
                     solvers[v], divtol, res.iterations, want);
            ovk_solver_set_option(s, "divtol", "0");
        } else {
            MT_CHECK(0, "%s: the residual never grew; the divtol check needs a problem where it does", solvers[v]);
        }
        /* the convergence test: converged at the first ||r|| < 1e-3 ||r0||, counted as converged */
        verdict_ctx vc = {1e-3, -1};
        int want = 0;
        while (hist[want] >= vc.drop * hist[0]) want++;
        MT_RC(OVK_OK, ovk_solver_set_convergence_test(s, my_test, &vc));
        ovk_vector_set(x, 0.0);
        MT_RC(OVK_OK, ovk_solver_solve(s, b, x, &res));
        MT_CHECK(res.reason == OVK_REASON_CONVERGED && res.iterations == want, "%s: test converged at %d, want %d",
                 solvers[v], res.iterations, want);
        vc.diverge_at = 3;
        ovk_vector_set(x, 0.0);
        MT_RC(OVK_EDIVERGED, ovk_solver_solve(s, b, x, &res));
        MT_CHECK(res.reason == OVK_REASON_DIVERGED && res.iterations == 3, "%s: test diverged at %d", solvers[v],
                 res.iterations);
        ovk_solver_destroy(&s);
    }
}

typedef struct op_ctx {
    const ovk_matrix *A;
    ovk_vector *in, *out;
    int calls;
} op_ctx;

static int op_apply(ovk_solver *s, const double *in, double *out, void *ctx)
{
    op_ctx *o = ctx;
    (void)s;
    memcpy(ovk_vector_data(o->in), in, sizeof(double) * (size_t)ovk_vector_nlocal(o->in));
    int rc = ovk_matvec(o->A, o->in, o->out);
    memcpy(out, ovk_vector_data(o->out), sizeof(double) * (size_t)ovk_vector_nlocal(o->out));
    o->calls++;
    return rc;
}

static void test_guess_zero(ovk_matrix *A, ovk_vector *b)
{
    op_ctx o = {A, NULL, NULL, 0};
    ovk_solver *s = NULL;
    ovk_vector *x = NULL;
    ovk_pcg_result res;
    ovk_vector_create(A, &o.in);
    ovk_vector_create(A, &o.out);
    MT_RC(OVK_OK, ovk_solver_create_operator(ovk_matrix_comm(A), ovk_matrix_nlocal(A), op_apply, &o, &s));
    ovk_solver_set_option(s, "precond", "none");
    ovk_solver_vector_create(s, ovk_vector_data(b), &x); /* scratch: replaced below */
    ovk_vector_destroy(x);
    ovk_solver_vector_create(s, NULL, &x);
    MT_RC(OVK_OK, ovk_solver_setup(s));
    o.calls = 0;
    MT_RC(OVK_OK, ovk_solver_solve(s, b, x, &res)); /* x = 0 given */
    int plain = o.calls, its = res.iterations;
    MT_RC(OVK_OK, ovk_solver_set_option(s, "initial_guess_zero", "1"));
    ovk_vector_set(x, 1e3); /* ignored */
    o.calls = 0;
    MT_RC(OVK_OK, ovk_solver_solve(s, b, x, &res));
    MT_CHECK(res.iterations == its && o.calls == plain - 1, "initial_guess_zero: %d iterations (%d), %d products (%d)",
             res.iterations, its, o.calls, plain);
    ovk_vector_destroy(x);
    ovk_solver_destroy(&s);
    ovk_vector_destroy(o.in);
    ovk_vector_destroy(o.out);
}

/* the value after "name" in the log_view table's row of that name: column
 * 0 min, 1 max, 2 avg; -1 when the row is missing */
static double log_row(const char *text, const char *name, int col)
{
    double v[3];
    const char *at = strstr(text, name);
    if (!at || sscanf(at + strlen(name), "%lf %lf %lf", &v[0], &v[1], &v[2]) != 3) return -1.0;
    return v[col];
}

/* rank 0's log_view table of two solves on backend be, into text */
static void log_of(ovk_matrix *A, ovk_vector *b, ovk_vector *x, const char *solver, const char *be, char *text,
                   size_t len)
{
    ovk_solver *s = NULL;
    ovk_pcg_options o;
    FILE *f = g_rank == 0 ? tmpfile() : NULL;
    ovk_pcg_options_init(&o);
    o.solver = solver;
    o.backend = be;
    o.out = f;
    MT_RC(OVK_OK, ovk_solver_create(A, &s));
    MT_RC(OVK_OK, ovk_solver_set_options(s, &o));
    MT_RC(OVK_OK, ovk_solver_set_option(s, "log_view", "1"));
    for (int k = 0; k < 2; k++) {
        ovk_vector_set(x, 0.0);
        MT_RC(OVK_OK, ovk_solver_solve(s, b, x, NULL));
    }
    MT_RC(OVK_OK, ovk_solver_destroy(&s));
    text[0] = '\0';
    if (!f) return;
    rewind(f);
    size_t n = fread(text, 1, len - 1, f);
    text[n] = '\0';
    fclose(f);
}

static void test_log_view(ovk_matrix *A, ovk_vector *b, ovk_vector *x)
{
    static const char *const parts[] = {"matrix-vector products", "preconditioner applications",
                                        "vector updates and local dot products", "diagonal scaling",
                                        "reductions: posting (starting them)",
                                        "reductions: progress calls inside kernels",
                                        "reductions: waiting (latency not hidden)"};
    static const char *const cases[][2] = {{"alg1", "blocking"}, {"pipecg", "native"}, {"pipecg", "nbc"}};
    char text[8192];
    for (int k = 0; k < 3; k++) {
        log_of(A, b, x, cases[k][0], cases[k][1], text, sizeof text);
        if (g_rank != 0) continue;
        MT_CHECK(strstr(text, "1 setup, 0 numeric setups for new values; 2 solves") != NULL, "%s/%s: counts in\n%s",
                 cases[k][0], cases[k][1], text);
        double solve = log_row(text, "solve (all parts)", 2), sum = 0.0, setup = log_row(text, "setup (all parts)", 2);
        MT_CHECK(solve > 0.0 && setup > 0.0, "%s/%s: solve %g s, setup %g s", cases[k][0], cases[k][1], solve, setup);
        for (size_t p = 0; p < sizeof parts / sizeof parts[0]; p++) {
            double v = log_row(text, parts[p], 2);
            MT_CHECK(v >= 0.0, "%s/%s: row '%s' missing", cases[k][0], cases[k][1], parts[p]);
            sum += v;
        }
        /* each figure printed to 4 digits: up to half a unit of the 4th digit off */
        MT_CHECK(sum <= solve + 5e-4 * (sum + solve), "%s/%s: the parts (%g s) exceed the solve (%g s)", cases[k][0],
                 cases[k][1], sum, solve);
        double flight = log_row(text, "reductions in flight (summed, post to wait)", 2);
        double hidden = log_row(text, "of that, hidden behind other work", 2);
        MT_CHECK(flight >= 0.0 && hidden >= 0.0 && hidden <= flight, "%s/%s: hidden %g s of %g s in flight",
                 cases[k][0], cases[k][1], hidden, flight);
        if (!strcmp(cases[k][1], "blocking"))
            MT_CHECK(hidden == 0.0 && strstr(text, "hidden: none") != NULL, "blocking: hidden %g s", hidden);
        else MT_CHECK(strstr(text, "% of the reductions' time in flight") != NULL, "%s: no hidden share", cases[k][1]);
    }
    /* log_view on one rank only: refused at setup on every rank, nothing printed at destroy */
    ovk_solver *s = NULL;
    MT_RC(OVK_OK, ovk_solver_create(A, &s));
    MT_RC(OVK_OK, ovk_solver_set_option(s, "log_view", g_rank == 0 && g_size > 1 ? "1" : "0"));
    MT_RC(g_size > 1 ? OVK_EOPTION : OVK_OK, ovk_solver_setup(s));
    if (g_size > 1) MT_CHECK(strstr(ovk_error_detail(), "log_view") != NULL, "detail: %s", ovk_error_detail());
    MT_RC(OVK_OK, ovk_solver_destroy(&s));
}

int main(int argc, char **argv)
{
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g_size);
    ovk_matrix *A = NULL;
    ovk_vector *b = NULL, *x = NULL;
    MT_RC(OVK_OK, tp_laplace(MPI_COMM_WORLD, 27, 8, 0.0, &A));
    ovk_vector_create(A, &b);
    ovk_vector_create(A, &x);
    double *bd = ovk_vector_data(b);
    for (int i = 0; i < ovk_vector_nlocal(b); i++) bd[i] = tp_value((uint64_t)(ovk_matrix_row_start(A) + i));
    test_every_key(A);
    test_env_too_long(A);
    test_prefix_left_bad(A);
    test_view_backend(A);
    test_origins(A);
    test_struct_form(A);
    test_setup_on_demand(A, b, x);
    test_monitor_cost(A, b, x);
    test_log_view(A, b, x);
    /* the driver's 27-point Laplacian, b = 1, Jacobi: the residual grows at first (44.7 -> 54.6 on a
     * 20 x 10 x 10 grid), so divtol has something to stop */
    int P[3] = {0, 0, 0};
    ovk_matrix *L = NULL;
    ovk_vector *lb = NULL, *lx = NULL;
    MPI_Dims_create(g_size, 3, P);
    MT_RC(OVK_OK, ovk_laplace_create(MPI_COMM_WORLD, OVK_STENCIL_27, 10, 10, 10, P[0], P[1], P[2], &L));
    ovk_vector_create(L, &lb);
    ovk_vector_create(L, &lx);
    ovk_vector_set(lb, 1.0);
    test_stops(L, lb, lx);
    test_view_plcg(L, lb, lx);
    ovk_vector_destroy(lb);
    ovk_vector_destroy(lx);
    ovk_matrix_destroy(L);
    test_guess_zero(A, b);
    ovk_vector_destroy(b);
    ovk_vector_destroy(x);
    ovk_matrix_destroy(A);
    int rc = mt_finish("test_options");
    MPI_Finalize();
    return rc;
}

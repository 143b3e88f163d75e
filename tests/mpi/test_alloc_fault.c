/* Every allocation of the library fails once (the injector of
 * src/util/alloc_fault.h, the technique SQLite uses for its mallocs).
 *
 * Configurations: every solver with every preconditioner on an nbc reducer
 * given to the solver (with --quick: every solver with jacobi and every
 * preconditioner with pipecg), and every backend made by pipecg's setup
 * from its option, and ovk_solver_solve_many of MANY_K systems (systems that
 * converge at different iterations) with a few solvers.  For each, a run
 * without failure counts the allocations of ovk_solver_setup and of the
 * solve; then for n = 1 .. that count
 * the n-th allocation fails on one rank (rank (n-1) mod P, so every
 * allocation fails on some rank), and
 *   - the call returns OVK_ENOMEM on every rank (no crash; no hang: each
 *     case runs under a watchdog), or OVK_OK everywhere when the library did
 *     without that allocation (a shrinking realloc) and the result is right;
 *   - afterwards the object is usable: the next setup and solve take the
 *     iterations of the run without failure (odd n), or it is destroyed
 *     cleanly and made again (even n); leaks show under LSan at exit.
 * The creations (matrix, vectors, reducer of each backend, solver and its
 * options) are swept the same way, each call's failure on the failing
 * rank, agreed everywhere for the collective ones.
 * Allocations inside MPI, hypre, LAPACK and BLAS are not the library's and
 * are not failed.  Rank 0 prints the counts and how many distinct call
 * sites failed (OVK_TEST_PRINT_SITES=1: which).
 * Usage: test_alloc_fault [--quick] [creation] [solver/precond/backend prefix ...]
 * (the solve_many configurations are named solve_many/solver/precond/backend) */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mpitest.h"
#include "problem.h"
#include "util/alloc_fault.h"

/* CASE_SECONDS: the watchdog's limit for one case (one setup or solve and
 * its recovery take milliseconds; sanitizer builds are 10x slower) */
enum { GRID = 6, MAX_SITES = 4096, CASE_SECONDS = 60, MANY_K = 3 };

static int rank, nranks;
static char current[256]; /* the case under way, for the watchdog */

static void watchdog(int sig)
{
    (void)sig;
    static const char msg[] = "test_alloc_fault: no answer within the watchdog's time (hang?) in: ";
    write(2, msg, sizeof msg - 1);
    write(2, current, strnlen(current, sizeof current));
    write(2, "\n", 1);
    const void *site = NULL;
    if (ovk__alloc_fault_fired(NULL, &site)) /* (not async-signal-safe; the process ends anyway) */
        fprintf(stderr, "the failed allocation was asked for at %p, ovk__alloc_fault_arm is at %p\n", site,
                (const void *)ovk__alloc_fault_arm);
    _exit(3);
}

/* the distinct call sites that failed on this rank, as offsets from a
 * function of the library (the same on every rank of one executable) */
static intptr_t sites[MAX_SITES];
static int nsites;
static long failures;
static long tolerated; /* failures the library did without, its result checked */

static void note_site(void)
{
    const void *site = NULL;
    if (!ovk__alloc_fault_fired(NULL, &site)) return;
    failures++;
    intptr_t off = (intptr_t)((const char *)site - (const char *)(const void *)ovk__alloc_fault_arm);
    for (int i = 0; i < nsites; i++)
        if (sites[i] == off) return;
    if (nsites < MAX_SITES) sites[nsites++] = off;
}

static int fired_seen; /* create_step reported the failure already */

/* arm the n-th allocation from now on rank (n-1) mod P, none elsewhere */
static int culprit = -1; /* the rank armed */

static void arm_on_one_rank(long n)
{
    fired_seen = 0;
    culprit = n > 0 ? (int)((n - 1) % nranks) : -1;
    ovk__alloc_fault_arm(n > 0 && (n - 1) % nranks == rank ? n : 0);
}

/* collective: 1 when the armed failure happened on some rank */
static int fired_anywhere(void)
{
    int f = ovk__alloc_fault_fired(NULL, NULL), any = 0;
    MPI_Allreduce(&f, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return any;
}

/* a collective call's status after a failure: OVK_ENOMEM on every rank,
 * or OVK_OK everywhere when the library did without that allocation (a
 * shrinking realloc): returns 1 then, for the caller to check the result */
static int expect_enomem_everywhere(int rc, int fired)
{
    int lo = 0, hi = 0;
    MPI_Allreduce(&rc, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&rc, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (fired && lo == OVK_OK && hi == OVK_OK) {
        tolerated++;
        return 1;
    }
    if (fired) {
        MT_CHECK(lo == OVK_ENOMEM && hi == OVK_ENOMEM, "%s: %s here, statuses %d..%d, expected OVK_ENOMEM everywhere (%s)",
                 current, ovk_status_name(rc), lo, hi, ovk_error_detail());
        char who[32]; /* the others' detail names the rank that failed */
        snprintf(who, sizeof who, "rank %d: ", culprit);
        MT_CHECK(rank == culprit || culprit < 0 || strstr(ovk_error_detail(), who),
                 "%s: the detail does not name rank %d: '%s'", current, culprit, ovk_error_detail());
    }
    else
        MT_CHECK(lo == OVK_OK && hi == OVK_OK, "%s: nothing failed but %s (%s)", current, ovk_status_name(rc),
                 ovk_error_detail());
    return 0;
}

/* backend_option: the solver makes its reducer from the "backend" option
 * at setup; else it is given one made beforehand.  solve_only: the setup's
 * failures are those of another configuration (counted, not failed).
 * many: the solve is ovk_solver_solve_many of MANY_K systems */
typedef struct config {
    const char *solver, *precond, *backend;
    int backend_option, solve_only, many;
} config;

typedef struct fixture {
    ovk_matrix *A;
    ovk_vector *b, *x;
    ovk_vector *B[MANY_K], *X[MANY_K]; /* the systems of solve_many */
    ovk_reducer *nbc; /* the reducer given to the solvers of the non-option configurations */
} fixture;

/* the identity, as the application's preconditioner */
static int identity(ovk_solver *s, const double *in, double *out, void *ctx)
{
    (void)ctx;
    memcpy(out, in, (size_t)ovk_solver_nlocal(s) * sizeof *out);
    return 0;
}

/* a solver of the configuration (NULL on failure) */
static int make_solver(const fixture *f, const config *c, ovk_solver **s)
{
    *s = NULL;
    int rc = ovk_solver_create(f->A, s);
    if (!rc && c->backend_option) rc = ovk_solver_set_option(*s, "backend", c->backend);
    if (!rc) rc = ovk_solver_set_option(*s, "solver", c->solver);
    if (!rc && strcmp(c->precond, "user")) rc = ovk_solver_set_option(*s, "precond", c->precond);
    if (!rc && !strcmp(c->precond, "user")) rc = ovk_solver_set_precond_fn(*s, identity, NULL);
    if (!rc) rc = ovk_solver_set_tolerances(*s, 1e-8, 0.0, 500);
    if (!rc && !c->backend_option) rc = ovk_solver_set_reducer(*s, f->nbc);
    return rc;
}

static void unmake_solver(ovk_solver **s) { MT_RC(OVK_OK, ovk_solver_destroy(s)); }

/* the configuration's solve from x = 0: res[0], or res[0 .. MANY_K) */
static int solve(const fixture *f, const config *c, ovk_solver *s, ovk_pcg_result *res)
{
    if (!c->many) {
        ovk_vector_set(f->x, 0.0);
        return ovk_solver_solve(s, f->b, f->x, res);
    }
    for (int j = 0; j < MANY_K; j++) ovk_vector_set(f->X[j], 0.0);
    return ovk_solver_solve_many(s, MANY_K, f->B, f->X, res);
}

/* 1 when every system of the solve took the reference's iterations */
static int same_iterations(const config *c, const ovk_pcg_result *res, const ovk_pcg_result *ref)
{
    for (int j = 0; j < (c->many ? MANY_K : 1); j++)
        if (res[j].iterations != ref[j].iterations) return 0;
    return 1;
}

/* the object still works: a setup and a solve as the reference */
static void expect_usable(const fixture *f, const config *c, ovk_solver *s, const ovk_pcg_result *ref)
{
    ovk_pcg_result res[MANY_K];
    int rc = ovk_solver_setup(s);
    MT_CHECK(rc == OVK_OK, "%s: setup after the failure: %s (%s)", current, ovk_status_name(rc), ovk_error_detail());
    rc = solve(f, c, s, res);
    MT_CHECK(rc == OVK_OK && same_iterations(c, res, ref), "%s: solve after the failure: %s, %d iterations (%d before)",
             current, ovk_status_name(rc), res[0].iterations, ref[0].iterations);
}

/* the configuration's name, as arguments select it */
static void config_name(const config *c, char *name, size_t len)
{
    snprintf(name, len, "%s%s/%s/%s", c->many ? "solve_many/" : "", c->solver, c->precond, c->backend);
}

/* --quick: beyond the first QUICK_ALL allocations of a phase, every
 * QUICK_STRIDE-th (nbc's reserve builds 32 schedules alike, each of ~28
 * allocations: a stride prime to that still fails each of its sites) */
enum { QUICK_ALL = 128, QUICK_STRIDE = 7 };
static int quick;

static long next_n(long n) { return quick && n >= QUICK_ALL ? n + QUICK_STRIDE : n + 1; }

/* setup and solve of one configuration, each allocation failing once */
static void sweep_config(const fixture *f, const config *c, long *total)
{
    ovk_solver *s = NULL;
    ovk_pcg_result ref[MANY_K];
    char name[160];
    double t0 = MPI_Wtime();
    config_name(c, name, sizeof name);
    snprintf(current, sizeof current, "%s: reference", name);
    alarm(CASE_SECONDS);
    MT_RC(OVK_OK, make_solver(f, c, &s));
    ovk__alloc_fault_arm(0);
    int rc = ovk_solver_setup(s);
    if (rc == OVK_EUNSUPPORTED || rc == OVK_EOPTION) { /* a combination the solver refuses (alg2 and user) */
        if (rank == 0) printf("  %-42s refused: %s\n", name, ovk_error_detail());
        unmake_solver(&s);
        return;
    }
    MT_RC(OVK_OK, rc);
    long nsetup = mt_max_long(ovk__alloc_fault_count());
    ovk__alloc_fault_arm(0);
    rc = solve(f, c, s, ref);
    long nsolve = mt_max_long(ovk__alloc_fault_count());
    MT_CHECK(rc == OVK_OK, "%s: %s (%s)", current, ovk_status_name(rc), ovk_error_detail());
    unmake_solver(&s);
    if (rc) return;

    /* setup: a fresh solver each time, so that every allocation of a first setup is reached */
    for (long n = 1; n <= (c->solve_only ? 0 : nsetup); n = next_n(n)) {
        snprintf(current, sizeof current, "%s: setup, allocation %ld of %ld fails on rank %ld", name, n, nsetup,
                 (n - 1) % nranks);
        alarm(CASE_SECONDS);
        MT_RC(OVK_OK, make_solver(f, c, &s));
        arm_on_one_rank(n);
        rc = ovk_solver_setup(s);
        note_site();
        int fired = fired_anywhere();
        ovk__alloc_fault_arm(0);
        int done_without = expect_enomem_everywhere(rc, fired);
        if (n % 2 || done_without) expect_usable(f, c, s, ref);
        unmake_solver(&s);
    }
    /* solve: one solver set up, failures in its solves */
    MT_RC(OVK_OK, make_solver(f, c, &s));
    MT_RC(OVK_OK, ovk_solver_setup(s));
    for (long n = 1; n <= nsolve; n++) {
        snprintf(current, sizeof current, "%s: solve, allocation %ld of %ld fails on rank %ld", name, n, nsolve,
                 (n - 1) % nranks);
        alarm(CASE_SECONDS);
        ovk_pcg_result res[MANY_K];
        arm_on_one_rank(n);
        rc = solve(f, c, s, res);
        note_site();
        int fired = fired_anywhere();
        ovk__alloc_fault_arm(0);
        if (expect_enomem_everywhere(rc, fired))
            MT_CHECK(same_iterations(c, res, ref), "%s: the solve did without the allocation but took %d iterations (%d)",
                     current, res[0].iterations, ref[0].iterations);
        if (n % 2) {
            expect_usable(f, c, s, ref);
        } else { /* destroyed after the failure, made again */
            unmake_solver(&s);
            MT_RC(OVK_OK, make_solver(f, c, &s));
            MT_RC(OVK_OK, ovk_solver_setup(s));
        }
    }
    unmake_solver(&s);
    alarm(0);
    *total += (c->solve_only ? 0 : nsetup) + nsolve;
    if (rank == 0)
        printf("  %-42s setup %3ld%s, solve %3ld allocations, %.1f s\n", name, nsetup,
               c->solve_only ? " (not failed)" : "", nsolve, MPI_Wtime() - t0);
}

/* the fixture's own creation, and each backend's reducer: the n-th allocation fails */
static int create_step(const char *what, int rc, int collective)
{
    int fired = ovk__alloc_fault_fired(NULL, NULL) && !fired_seen, any = 0;
    fired_seen |= fired;
    if (collective) {
        MPI_Allreduce(&fired, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        expect_enomem_everywhere(rc, any);
    } else if (fired && rc == OVK_OK) {
        tolerated++;
    } else {
        MT_CHECK(rc == (fired ? OVK_ENOMEM : OVK_OK), "%s: %s: %s (%s)", current, what, ovk_status_name(rc),
                 ovk_error_detail());
    }
    int worst = 0;
    MPI_Allreduce(&rc, &worst, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    return worst;
}

static void destroy_fixture(fixture *f)
{
    if (f->b) ovk_vector_destroy(f->b);
    if (f->x) ovk_vector_destroy(f->x);
    for (int j = 0; j < MANY_K; j++) {
        if (f->B[j]) ovk_vector_destroy(f->B[j]);
        if (f->X[j]) ovk_vector_destroy(f->X[j]);
    }
    if (f->A) MT_RC(OVK_OK, ovk_matrix_destroy(f->A));
    if (f->nbc) MT_RC(OVK_OK, ovk_reducer_destroy(f->nbc));
    *f = (fixture){0};
}

static int make_fixture(fixture *f)
{
    *f = (fixture){0};
    int rc = create_step("the matrix", tp_laplace(MPI_COMM_WORLD, 27, GRID, 0.0, &f->A), 1);
    if (!rc) rc = create_step("vector b", ovk_vector_create(f->A, &f->b), 0);
    if (!rc) rc = create_step("vector x", ovk_vector_create(f->A, &f->x), 0);
    if (!rc) rc = ovk_vector_set(f->b, 1.0);
    return rc;
}

/* the systems of solve_many (not swept: vectors as b and x): right-hand
 * sides of different content, which converge at different iterations */
static void make_many_vectors(fixture *f)
{
    for (int j = 0; j < MANY_K; j++) {
        MT_RC(OVK_OK, ovk_vector_create(f->A, &f->B[j]));
        MT_RC(OVK_OK, ovk_vector_create(f->A, &f->X[j]));
        double *b = ovk_vector_data(f->B[j]);
        for (int i = 0; i < ovk_vector_nlocal(f->B[j]); i++) b[i] = 1.0 + 0.25 * j * ((i * (j + 2) + rank) % 7);
    }
}

static void sweep_creation(const char *const *backends, int nbackends, long *total)
{
    fixture f;
    double t0 = MPI_Wtime();
    snprintf(current, sizeof current, "creation: count");
    ovk__alloc_fault_arm(0);
    MT_RC(OVK_OK, make_fixture(&f));
    long nfixture = mt_max_long(ovk__alloc_fault_count());
    ovk__alloc_fault_arm(0);
    ovk_solver *s = NULL;
    MT_RC(OVK_OK, ovk_solver_create(f.A, &s));
    MT_RC(OVK_OK, ovk_solver_set_option(s, "solver", "pipecg"));
    MT_RC(OVK_OK, ovk_solver_set_option(s, "precond", "ssor"));
    long nsolver = mt_max_long(ovk__alloc_fault_count());
    MT_RC(OVK_OK, ovk_solver_destroy(&s));
    for (long n = 1; n <= nfixture; n++) {
        fixture g;
        snprintf(current, sizeof current, "creation: matrix and vectors, allocation %ld of %ld", n, nfixture);
        alarm(CASE_SECONDS);
        arm_on_one_rank(n);
        make_fixture(&g);
        note_site();
        ovk__alloc_fault_arm(0);
        destroy_fixture(&g);
    }
    for (long n = 1; n <= nsolver; n++) {
        snprintf(current, sizeof current, "creation: solver and options, allocation %ld of %ld", n, nsolver);
        alarm(CASE_SECONDS);
        arm_on_one_rank(n);
        int rc = create_step("ovk_solver_create", ovk_solver_create(f.A, &s), 0);
        if (!rc) rc = create_step("solver option", ovk_solver_set_option(s, "solver", "pipecg"), 0);
        if (!rc) rc = create_step("precond option", ovk_solver_set_option(s, "precond", "ssor"), 0);
        note_site();
        ovk__alloc_fault_arm(0);
        MT_RC(OVK_OK, ovk_solver_destroy(&s));
    }
    *total += nfixture + nsolver;
    for (int k = 0; k < nbackends; k++) {
        ovk_reducer *red = NULL;
        ovk__alloc_fault_arm(0);
        MT_RC(OVK_OK, ovk_reducer_create(MPI_COMM_WORLD, backends[k], &red));
        long nred = mt_max_long(ovk__alloc_fault_count());
        if (red) MT_RC(OVK_OK, ovk_reducer_destroy(red));
        for (long n = 1; n <= nred; n++) {
            snprintf(current, sizeof current, "creation: reducer %s, allocation %ld of %ld", backends[k], n, nred);
            alarm(CASE_SECONDS);
            red = NULL;
            arm_on_one_rank(n);
            int rc = create_step("ovk_reducer_create", ovk_reducer_create(MPI_COMM_WORLD, backends[k], &red), 1);
            note_site();
            ovk__alloc_fault_arm(0);
            if (!rc) MT_RC(OVK_OK, ovk_reducer_destroy(red));
        }
        *total += nred;
        if (rank == 0) printf("  reducer %-22s %3ld allocations\n", backends[k], nred);
    }
    alarm(0);
    if (rank == 0)
        printf("  matrix and vectors %ld, solver and options %ld allocations; creations %.1f s\n", nfixture, nsolver,
               MPI_Wtime() - t0);
    destroy_fixture(&f);
}

/* 1 when one of the n prefixes starts name */
static int selected(const char *name, char *const *prefixes, int n)
{
    for (int i = 0; i < n; i++)
        if (!strncmp(name, prefixes[i], strlen(prefixes[i]))) return 1;
    return 0;
}

/* 1 when the backend of spec runs here (persistent collectives and the
 * fabric engine depend on the MPI and the build) */
static int runs_here(const char *spec)
{
    ovk_reducer *red = NULL;
    int rc = ovk_reducer_create(MPI_COMM_WORLD, spec, &red);
    if (red) ovk_reducer_destroy(red);
    if (rc && rank == 0) printf("%s does not run here, left out: %s\n", spec, ovk_error_detail());
    return rc == OVK_OK;
}

int main(int argc, char **argv)
{
    int provided; /* the offload backend's agent engine needs MPI_THREAD_MULTIPLE */
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    signal(SIGALRM, watchdog);
    double t0 = MPI_Wtime();

    static const char *const solvers[] = {"alg1",     "alg2",  "overlap", "cg1",    "pipecg",
                                          "groppcg",  "pipeprcg", "plcg:l=2", "auto", "gmres",
                                          "fgmres", "pgmres", "bicgstab", "pipebicgstab"};
    static const char *const preconds[] = {"none", "jacobi", "ssor", "ic0", "ilu0", "cheby", "eisenstat",
#ifdef OVK_HAVE_HYPRE
                                           "amg",
#endif
                                           "user"};
    const char *backends[8] = {"blocking", "native", "nbc", "offload:engine=agent", "blocking:verify=1",
                               "native:verify=1"};
    int nbackends = 6;
    if (runs_here("native:persistent=1")) backends[nbackends++] = "native:persistent=1";
    if (runs_here("offload:engine=fabric")) backends[nbackends++] = "offload:engine=fabric";
    enum { NSOLVERS = sizeof solvers / sizeof *solvers, NPRECONDS = sizeof preconds / sizeof *preconds };

    /* every solver with every preconditioner on one nbc reducer given to
     * them (reserved by the first setup), amg with one solver of each
     * family only (its setup takes most of the time, and a solver adds no
     * allocation of its own to it); every backend made by pipecg's setup
     * from its option (the backend's reserve is the same for every solver:
     * the sums' shapes are bounded by the frame, not the solver) */
    /* --quick (the sanitizer build): every solver with jacobi and every
     * preconditioner with pipecg, not every pair (the same call sites) */
    quick = argc > 1 && !strcmp(argv[1], "--quick");
    config configs[NSOLVERS * NPRECONDS + 20];
    int nconfigs = 0;
    for (int i = 0; i < NSOLVERS; i++)
        for (int j = 0; j < NPRECONDS; j++) {
            int family = !strcmp(solvers[i], "pipecg") || !strcmp(solvers[i], "gmres") || !strcmp(solvers[i], "bicgstab");
            int swept = quick ? !strcmp(preconds[j], "jacobi") || !strcmp(solvers[i], "pipecg")
                              : strcmp(preconds[j], "amg") || family;
            if (swept) configs[nconfigs++] = (config){solvers[i], preconds[j], "nbc", 0, 0, 0};
        }
    for (int k = 0; k < nbackends; k++) configs[nconfigs++] = (config){"pipecg", "jacobi", backends[k], 1, 0, 0};
    /* and the solves of gmres on the backends that keep a program or
     * requests per shape: its sums take every count from 2 to the step's */
    for (int k = 0; k < nbackends; k++)
        if (strstr(backends[k], "persistent") || strstr(backends[k], "fabric") || strstr(backends[k], "verify"))
            configs[nconfigs++] = (config){"gmres", "jacobi", backends[k], 1, 1, 0};
    /* and ovk_solver_solve_many's solves (its own tasks, combined sums,
     * multi-vector products): a blocking and a pipelined CG, a
     * nonsymmetric solver */
    static const char *const many_solvers[] = {"cg1", "pipecg", "bicgstab"};
    for (int k = 0; k < 3; k++) configs[nconfigs++] = (config){many_solvers[k], "jacobi", "nbc", 0, 1, MANY_K};
#ifdef OVK_HAVE_HYPRE
    configs[nconfigs++] = (config){"cg1", "amg", "nbc", 0, 1, MANY_K}; /* amg's apply_many: its room for k systems */
    /* our aggregation hierarchy: in the release sweep (under the sanitizers its 137
     * failed setups took 35 s at 2 ranks) */
    if (!quick) configs[nconfigs++] = (config){"pipecg", "amg:setup=agg", "nbc", 0, 0, 0};
    /* its coarse levels gathered: P and A_{l+1} moved after hypre's products */
    if (!quick) configs[nconfigs++] = (config){"pipecg", "amg:setup=agg,agg_gather=1e9", "nbc", 0, 0, 0};
    /* and unsmoothed, whose Galerkin product is ours (amg_galerkin.c), its
     * coarse levels gathered onto one rank (agg_gather) */
    if (!quick) configs[nconfigs++] = (config){"pipecg", "amg:setup=agg,agg_smooth=0,agg_gather=1e9", "nbc", 0, 0, 0};
#endif

    /* arguments "solver/precond/backend" (prefixes of it) run those
     * configurations only, and "creation" the creations */
    char **only = argv + 1 + quick;
    int nonly = argc - 1 - quick;
    long total = 0;
    fixture f;
    if (!nonly || selected("creation", only, nonly)) sweep_creation(backends, nbackends, &total);
    ovk__alloc_fault_arm(0);
    MT_RC(OVK_OK, make_fixture(&f));
    make_many_vectors(&f);
    MT_RC(OVK_OK, ovk_reducer_create(MPI_COMM_WORLD, "nbc", &f.nbc));
    /* its reserve made once here (swept with the nbc option below) */
    ovk_solver *warm = NULL;
    MT_RC(OVK_OK, make_solver(&f, &configs[0], &warm));
    MT_RC(OVK_OK, ovk_solver_setup(warm));
    unmake_solver(&warm);
    for (int i = 0; i < nconfigs; i++) {
        char name[160];
        config_name(&configs[i], name, sizeof name);
        if (!nonly || selected(name, only, nonly)) sweep_config(&f, &configs[i], &total);
    }
    destroy_fixture(&f);

    /* distinct call sites over the ranks: rank 0 gathers every rank's */
    long all_failures = 0;
    MPI_Reduce(&failures, &all_failures, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    int counts[64] = {0}, displs[64] = {0};
    intptr_t *every = NULL;
    if (nranks <= 64) {
        MPI_Gather(&nsites, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD);
        int sum = 0;
        for (int r = 0; r < nranks; r++) displs[r] = sum, sum += counts[r];
        every = malloc((size_t)(sum > 0 ? sum : 1) * sizeof *every);
        MPI_Gatherv(sites, nsites, MPI_INT64_T, every, counts, displs, MPI_INT64_T, 0, MPI_COMM_WORLD);
        int distinct = 0;
        for (int i = 0; i < sum && rank == 0; i++) {
            int seen = 0;
            for (int j = 0; j < i && !seen; j++) seen = every[j] == every[i];
            distinct += !seen;
        }
        /* OVK_TEST_PRINT_SITES=1: the sites as offsets from ovk__alloc_fault_arm,
         * for addr2line (its address in nm's listing plus the offset) */
        if (rank == 0 && getenv("OVK_TEST_PRINT_SITES"))
            for (int i = 0; i < sum; i++) printf("site %+ld\n", (long)every[i]);
        if (rank == 0)
            printf("%d configurations, %ld allocations counted, %ld failed (%ld done without), at %d distinct call sites, "
                   "%.1f s\n", nconfigs, total, all_failures, tolerated, distinct, MPI_Wtime() - t0);
        free(every);
    }
    int rc = mt_finish("test_alloc_fault");
    MPI_Finalize();
    return rc;
}

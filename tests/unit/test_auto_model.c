/* Unit tests of the solver auto's choice from its figures (issue 28;
 * ovk__auto_choose, auto.c's model; the measurement itself is timing and is
 * exercised in tests/mpi/test_auto.c):
 *   - no latency: alg1; a latency far below one vector pass: alg1;
 *   - figures of session 15-17's benchmarks (27-point Laplacian, 2 ranks):
 *     -n 20 at 1000 us a deep plcg, bounded by maxl; -n 60 at 1000 us,
 *     where one reduction costs less than the local work: pipecg;
 *   - maxl = 1: alg1 or pipecg only;
 *   - the depth never falls as the latency grows (alg1 0, pipecg 1,
 *     plcg:l=k k), for several work/vector splits and every maxl, in the
 *     steady state and for a first solve;
 *   - a first solve pays plcg's start-up: at -n 20, 100 us (W = 80, V =
 *     24 us) pipecg there and plcg:l=2 in the steady state; never deeper
 *     than the steady state's choice, and deep again where the latency
 *     dominates (-n 20, 1000 us);
 *   - the refined choice (ovk__auto_choose_timed): where the pass model
 *     puts pipecg and the best plcg close, the timed vector steps decide
 *     (-n 20, 100 us, session 25's figures: plcg:l=2, which the pass model
 *     misses; pipecg when plcg's step is slow); elsewhere the steps are not
 *     consulted (alg1 at 0 us, plcg:l=3 at 250 us whatever they say); never
 *     shallower as the latency grows;
 *   - the variants' vector steps, which refine times (pipecg,
 *     plcg:l=1..4, with a diagonal and a general preconditioner, on a rank
 *     with rows and one without): they run on any set-up block, leave x
 *     and the vectors finite (zero on zero vectors), and a failing
 *     preconditioner reaches the context as a failed callback;
 *   - the block auto's probe hands over (ovk__variant_setup_on): the
 *     variant's vectors come out zeroed in it, grown or shrunk; a variant's
 *     block taken back (ovk__variant_take_block) survives it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <math.h>

#include "solvers/solver.h"

#define US 1e-6

static const char *choice_for(double lat_us, double work_us, double vec_us, long maxl, int first)
{
    static char spec[32];
    ovk__auto_choose(lat_us * US, work_us * US, vec_us * US, maxl, first, spec, sizeof spec);
    return spec;
}

/* the steady state (a set-up object's later solves) */
static const char *choice(double lat_us, double work_us, double vec_us, long maxl)
{
    return choice_for(lat_us, work_us, vec_us, maxl, 0);
}

static int depth_of(const char *spec)
{
    if (!strcmp(spec, "alg1")) return 0;
    if (!strcmp(spec, "pipecg")) return 1;
    assert_int_equal(strncmp(spec, "plcg:l=", 7), 0);
    return atoi(spec + 7);
}

static void test_no_latency(void **state)
{
    (void)state;
    assert_string_equal(choice(0.0, 80.0, 20.0, 3), "alg1");
    assert_string_equal(choice(1.0, 80.0, 20.0, 8), "alg1");
    assert_string_equal(choice(0.0, 2000.0, 470.0, 3), "alg1");
}

static void test_benchmark_figures(void **state)
{
    (void)state;
    /* -n 20, 1000 us: W = 75, V = 25 us */
    assert_string_equal(choice(1000.0, 75.0, 25.0, 3), "plcg:l=3");
    assert_string_equal(choice(1000.0, 75.0, 25.0, 4), "plcg:l=4");
    /* -n 60, 1000 us: W = 2070, V = 470 us (pipecg measured fastest) */
    assert_string_equal(choice(1000.0, 2070.0, 470.0, 3), "pipecg");
    /* -n 60 at 0 us */
    assert_string_equal(choice(2.0, 2070.0, 470.0, 3), "alg1");
}

static void test_maxl_one(void **state)
{
    (void)state;
    assert_string_equal(choice(1000.0, 75.0, 25.0, 1), "pipecg");
    assert_string_equal(choice(0.0, 75.0, 25.0, 1), "alg1");
}

static void test_monotone(void **state)
{
    (void)state;
    const double work[] = {50.0, 80.0, 500.0, 2070.0}, vec_share[] = {0.1, 0.3, 0.6};
    for (int first = 0; first <= 1; first++)
        for (size_t a = 0; a < sizeof work / sizeof work[0]; a++)
            for (size_t b = 0; b < sizeof vec_share / sizeof vec_share[0]; b++)
                for (long maxl = 1; maxl <= 8; maxl++) {
                    int last = 0;
                    for (double lat = 0.0; lat <= 20000.0; lat += 25.0) {
                        int d = depth_of(choice_for(lat, work[a], vec_share[b] * work[a], maxl, first));
                        if (first) assert_true(d <= depth_of(choice(lat, work[a], vec_share[b] * work[a], maxl)));
                        assert_true(d >= last);
                        assert_true(d <= maxl);
                        last = d;
                    }
                    assert_true(last >= 1); /* a latency of 20 ms is worth hiding at any of these */
                }
}

static void test_first_solve(void **state)
{
    (void)state;
    assert_string_equal(choice(100.0, 80.0, 24.0, 4), "plcg:l=2");
    assert_string_equal(choice_for(100.0, 80.0, 24.0, 4, 1), "pipecg");
    assert_string_equal(choice_for(1000.0, 75.0, 25.0, 4, 1), "plcg:l=4");
    assert_string_equal(choice_for(0.0, 80.0, 24.0, 4, 1), "alg1");
}

/* the refined choice from figures in us; u[k]: candidate k's vector step
 * (1: pipecg, k >= 2: plcg:l=k) */
static const char *timed_for(double lat_us, double mv_us, double work_us, double vec_us, const double *u_us, long maxl,
                             int first)
{
    static char spec[32];
    double u[9];
    for (int k = 0; k <= 8; k++) u[k] = u_us[k] * US;
    ovk__auto_choose_timed(lat_us * US, mv_us * US, work_us * US, vec_us * US, u, maxl, first, spec, sizeof spec);
    return spec;
}

static void test_timed_choice(void **state)
{
    (void)state;
    /* -n 20, ovk_laplace27 -print_level 1 with the steps printed (session 25):
     * matvec 62, W 79, V 15 us; steps pipecg 24, plcg:l=k 27-36 (u[0]:
     * alg1's, not consulted) */
    const double u20[9] = {10, 24, 27, 30, 33, 36, 39, 42, 45};
    assert_string_equal(choice_for(101.0, 79.0, 15.0, 4, 1), "pipecg"); /* the pass model alone */
    assert_string_equal(timed_for(101.0, 62.0, 79.0, 15.0, u20, 4, 1), "plcg:l=2");
    const double slow_plcg[9] = {10, 24, 60, 70, 80, 90, 100, 110, 120};
    assert_string_equal(timed_for(101.0, 62.0, 79.0, 15.0, slow_plcg, 4, 1), "pipecg");
    /* far from the pair: the steps are not consulted */
    const double huge[9] = {1e6, 1e6, 1e6, 1e6, 1e6, 1e6, 1e6, 1e6, 1e6};
    assert_string_equal(timed_for(0.5, 62.0, 79.0, 15.0, huge, 4, 1), "alg1");
    assert_string_equal(timed_for(250.0, 62.0, 79.0, 15.0, huge, 4, 1), "plcg:l=3");
    assert_string_equal(timed_for(1000.0, 62.0, 79.0, 15.0, huge, 4, 1), "plcg:l=4");
    /* maxl = 1: no plcg to compare */
    assert_string_equal(timed_for(101.0, 62.0, 79.0, 15.0, huge, 1, 1), "pipecg");
    /* -n 60 (-timing, session 25): matvec 1340, W 2100, V 470 us; steps
     * alg1 440, pipecg 880, plcg:l=k 1050 + 350 (k - 1) */
    const double u60[9] = {440, 880, 1400, 1750, 2100, 2450, 2800, 3150, 3500};
    assert_string_equal(timed_for(1000.0, 1340.0, 2100.0, 470.0, u60, 4, 1), "pipecg");
    assert_string_equal(timed_for(2.0, 1340.0, 2100.0, 470.0, u60, 4, 1), "alg1");
}

static void test_timed_monotone(void **state)
{
    (void)state;
    const double u20[9] = {10, 24, 27, 30, 33, 36, 39, 42, 45};
    const double u60[9] = {440, 880, 1400, 1750, 2100, 2450, 2800, 3150, 3500};
    const double fig[2][3] = {{62.0, 79.0, 15.0}, {1340.0, 2100.0, 470.0}};
    for (int f = 0; f < 2; f++)
        for (int first = 0; first <= 1; first++)
            for (long maxl = 1; maxl <= 8; maxl++) {
                int last = 0;
                for (double lat = 0.0; lat <= 20000.0; lat += 5.0) {
                    int d = depth_of(timed_for(lat, fig[f][0], fig[f][1], fig[f][2], f ? u60 : u20, maxl, first));
                    assert_true(d >= last);
                    assert_true(d <= maxl);
                    last = d;
                }
            }
}

/* Preconditioners for the vector steps: C = diag(d) = 0.5 I, with its
 * diagonal and divisor (the fused kernels' paths), or the same as a general
 * apply only (the other paths), or a general one that fails */
enum { STEP_ROWS = 300 };
static double pc_d[STEP_ROWS], pc_a[STEP_ROWS];
static int pc_rows; /* the context's rows */

static int half_apply(void *state, const double *r, double *z, const ovk__hook *h)
{
    (void)state;
    (void)h;
    for (int i = 0; i < pc_rows; i++) z[i] = 0.5 * r[i];
    return OVK_OK;
}

static int failing_apply(void *state, const double *r, double *z, const ovk__hook *h)
{
    (void)state;
    (void)r;
    (void)z;
    (void)h;
    return ovk__fail(OVK_ECALLBACK, "test preconditioner");
}

static const double *half_diagonal(void *state)
{
    (void)state;
    return pc_d;
}

static const double *half_divisor(void *state)
{
    (void)state;
    return pc_a;
}

static const ovk__pc_type pc_diag = {.name = "half", .apply = half_apply, .diagonal = half_diagonal,
                                     .divisor = half_divisor};
static const ovk__pc_type pc_general = {.name = "half-general", .apply = half_apply};
static const ovk__pc_type pc_failing = {.name = "failing", .apply = failing_apply};

/* spec's vector step on a new zeroed block of n rows with pc: *failed = the
 * context's callback status after it */
static void run_step(const char *spec, int n, const ovk__pc_type *type, int *failed)
{
    char name[32];
    ovk__opts o;
    void *params = NULL;
    ovk__pc pc = {type, NULL};
    ovk__ctx c = {.comm = MPI_COMM_WORLD, .n = n, .pc = &pc};
    pc_rows = n;
    assert_int_equal(ovk__spec_parse("solver", OVK_EINVAL, spec, name, sizeof name, &o), OVK_OK);
    const ovk__solver *sv = ovk__solver_find(name);
    assert_non_null(sv);
    assert_non_null(sv->vector_step);
    if (sv->parse) assert_int_equal(sv->parse(&o, &params), OVK_OK);
    c.params = params;
    ovk__variant v;
    assert_int_equal(ovk__variant_setup_on(&c, sv, &v, NULL), OVK_OK);
    double x[STEP_ROWS];
    for (int i = 0; i < STEP_ROWS; i++) x[i] = 1.0;
    assert_int_equal(sv->vector_step(&c, v.work, x), OVK_OK);
    assert_int_equal(sv->vector_step(&c, v.work, x), OVK_OK);
    *failed = c.cb_failed;
    if (!c.cb_failed) {
        for (int i = 0; i < STEP_ROWS; i++) assert_true(x[i] == 1.0); /* x += a p, p = 0 */
        size_t stride = ovk__vec_stride(n);
        int count = sv->vectors ? sv->vectors(params, NULL) : sv->nvec;
        for (int k = 0; k < count; k++)
            for (int i = 0; i < n; i++) assert_true(v.block[stride * (size_t)k + (size_t)i] == 0.0);
    }
    ovk__variant_free(&v);
    free(params);
}

static void test_vector_steps(void **state)
{
    (void)state;
    static const char *const specs[] = {"pipecg", "plcg:l=1", "plcg:l=2", "plcg:l=3", "plcg:l=4"};
    const ovk__pc_type *const types[] = {&pc_diag, &pc_general};
    for (int i = 0; i < STEP_ROWS; i++) {
        pc_d[i] = 0.5;
        pc_a[i] = 2.0;
    }
    for (size_t k = 0; k < sizeof specs / sizeof specs[0]; k++) {
        int failed = 0;
        for (int t = 0; t < 2; t++) {
            run_step(specs[k], STEP_ROWS, types[t], &failed);
            assert_int_equal(failed, 0);
            run_step(specs[k], 0, types[t], &failed); /* a rank without rows */
            assert_int_equal(failed, 0);
        }
        run_step(specs[k], STEP_ROWS, &pc_failing, &failed);
        assert_int_equal(failed, OVK_ECALLBACK);
    }
}

/* a block of `vecs` vectors of n rows written with NaN, set up as alg1's (3
 * vectors): zeroed, in place of the caller's block or a new one */
static void check_setup_on(int n, int vecs)
{
    ovk__ctx c = {.comm = MPI_COMM_WORLD, .n = n};
    const ovk__solver *sv = ovk__solver_find("alg1");
    assert_non_null(sv);
    size_t len = ovk__vec_stride(n) * (size_t)vecs;
    double *block = NULL;
    if (vecs > 0) {
        block = malloc(sizeof(double) * len);
        assert_non_null(block);
        for (size_t i = 0; i < len; i++) block[i] = NAN;
    }
    ovk__variant v;
    assert_int_equal(ovk__variant_setup_on(&c, sv, &v, block), OVK_OK);
    assert_ptr_equal(v.sv, sv);
    assert_ptr_equal(v.r, v.block);
    for (int k = 0; k < 3; k++) /* r, s, p: staggered strides apart */
        for (int i = 0; i < n; i++) assert_true(v.block[ovk__vec_stride(n) * (size_t)k + (size_t)i] == 0.0);
    double *kept = v.block;
    double *taken = ovk__variant_take_block(&v);
    assert_ptr_equal(taken, kept);
    assert_null(v.sv);
    assert_null(v.work);
    if (n > 0) taken[n - 1] = 1.0; /* still ours: ASan/valgrind catch a freed block */
    free(taken);
}

static void test_setup_on(void **state)
{
    (void)state;
    check_setup_on(1000, 4); /* shrunk: auto's probe block, alg1 chosen */
    check_setup_on(1000, 2); /* grown */
    check_setup_on(100000, 4); /* a block above malloc's mmap threshold */
    check_setup_on(1000, 0);   /* none: a new block */
    check_setup_on(0, 4);      /* a rank without rows */
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_no_latency),
        cmocka_unit_test(test_benchmark_figures),
        cmocka_unit_test(test_maxl_one),
        cmocka_unit_test(test_monotone),
        cmocka_unit_test(test_first_solve),
        cmocka_unit_test(test_timed_choice),
        cmocka_unit_test(test_timed_monotone),
        cmocka_unit_test(test_vector_steps),
        cmocka_unit_test(test_setup_on),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    MPI_Finalize();
    return failed ? 1 : 0;
}

/* Unit tests of the solver auto's model (auto.h, auto_model.c; the
 * measurement itself is timing and is exercised in tests/mpi/test_auto.c):
 *   - no latency: alg1; a latency far below one vector pass: alg1;
 *   - figures of the 27-point Laplacian on 2 ranks (docs/performance.md, section 1
 *     (auto)): -n 20 at 1000 us a deep plcg, bounded by maxl; -n 60 at
 *     1000 us, where one reduction costs less than the local work: pipecg;
 *   - maxl = 1: alg1 or pipecg only;
 *   - the depth never falls as the latency grows (alg1 0, pipecg 1,
 *     plcg:l=k k), for several work/vector splits and every maxl, in the
 *     steady state and for a first solve;
 *   - a first solve pays plcg's start-up: at -n 20, 100 us (W = 80, V =
 *     24 us) pipecg there and plcg:l=2 in the steady state; never deeper
 *     than the steady state's choice, and deep again where the latency
 *     dominates (-n 20, 1000 us);
 *   - the refined choice (ovk__auto_candidates, ovk__auto_best_timed):
 *     where the pass model puts pipecg and the best plcg close, the timed
 *     vector steps decide (-n 20, 100 us: plcg:l=2, which the pass model
 *     misses; pipecg when plcg's step is slow); elsewhere the steps are not
 *     consulted (alg1 at 0 us, plcg:l=3 at 250 us whatever they say); never
 *     shallower as the latency grows.
 *   - the s-step variants (figures.sstep): never without it (every test
 *     above); never where the latency is below the work; where it is large against the
 *     work, scg:s=8 and sgmres:s=10,overlap=1 (maxl = 1, a first solve; with maxl =
 *     4 as well, in the steady state and in a first solve, whose start-up
 *     costs them a few sums); once chosen, kept as
 *     the latency grows, s never falling.
 *   - the exposed fraction of a reduction (figures.exposed): all of it
 *     never gives plcg, pgmres or overlap=1; the runner-up (test_exposed).
 *   - a cold iteration settles alg1 (gmres) only where its figures and
 *     their warm lower bound both give it: the -n 20 Laplacian's cold
 *     figures at 1 us, not at 4, 250 or 1000 us (test_cold_settles).
 *   - the exposure probe is worth its cost (1.15 L) only where the choice
 *     robust to any exposure loses more over a first solve: not at the
 *     -n 20 Laplacian's figures at 1000 us with W = 66 us, where scg:s=8
 *     is 4 % behind plcg:l=4; at W = 80, at 250 us, without the s-step
 *     variants, on a nonsymmetric matrix it is (test_probe_pays).
 *   - the vector steps alone settle alg1 (gmres), the matvec not timed
 *     (ovk__auto_nothing_to_hide): the -n 20 Laplacian's cold ones at 1 and
 *     2 us, not at 3, 250 or 1000 us; timed warm, at 2 us, not at 3 or 250;
 *     and where they do, the model chooses alg1 (gmres) whatever the matvec
 *     costs, at the cold vector part and at its warm bound, in every exposure, first solve or not, with the s-step
 *     variants allowed (test_vector_steps_settle).
 * The variants' vector steps that auto times are tested in
 * test_vector_steps.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <math.h>

#include "solvers/methods/auto/auto.h"

#define US 1e-6

static const char *choice_for(double lat_us, double work_us, double vec_us, long maxl, int first)
{
    static char spec[32];
    ovk__auto_figures f = {.latency = lat_us * US, .latency_low = lat_us * US, .work = work_us * US, .vec = vec_us * US};
    ovk__auto_spec(ovk__auto_best(&f, maxl, first), spec, sizeof spec);
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

static void test_cold_settles(void **state)
{
    (void)state;
    /* -n 20 at 0 us, cold: W = 66, V = 14, matvec 50 us */
    ovk__auto_figures f = {.latency = 1 * US, .latency_low = 1 * US, .work = 66 * US, .vec = 14 * US,
                           .matvec = 50 * US, .exposed = NAN, .sstep = 1};
    assert_int_equal(ovk__auto_cold_settles(&f, 4, 1, 0), 1);
    assert_int_equal(ovk__auto_cold_settles(&f, 4, 1, 1), 1);
    f.latency = 250 * US; /* one end of the interval is enough to leave it open */
    assert_int_equal(ovk__auto_cold_settles(&f, 4, 1, 0), 0);
    assert_int_equal(ovk__auto_cold_settles(&f, 4, 1, 1), 0);
    f.latency = f.latency_low = 1000 * US;
    assert_int_equal(ovk__auto_cold_settles(&f, 4, 0, 0), 0);
    f.latency = f.latency_low = 4 * US; /* pipecg at the warm bound */
    assert_int_equal(ovk__auto_cold_settles(&f, 4, 0, 0), 0);
}

static void test_probe_pays(void **state)
{
    (void)state;
    /* the -n 20 Laplacian at 1000 us, a first solve: where the backend hides all, plcg:l=4 by 12 us of
     * 343 (W = 66 us) or by 40 of 379 (W = 80); where none, scg:s=8; the probe costs 1.15 L */
    ovk__auto_figures f = {.latency = 1000 * US, .latency_low = 1000 * US, .work = 66 * US, .vec = 16.5 * US,
                           .matvec = 46.2 * US, .exposed = NAN, .sstep = 1};
    assert_int_equal(ovk__auto_probe_pays(&f, 4, 1, 0, 1150 * US), 0);
    assert_int_equal(ovk__auto_probe_pays(&f, 4, 1, 0, 100 * US), 1);
    f.work = 80 * US, f.vec = 20 * US, f.matvec = 56 * US;
    assert_int_equal(ovk__auto_probe_pays(&f, 4, 1, 0, 1150 * US), 1);
    f.latency = f.latency_low = 250 * US; /* plcg:l=3 against scg:s=4: 44 us an iteration */
    assert_int_equal(ovk__auto_probe_pays(&f, 4, 1, 0, 288 * US), 1);
    f.sstep = 0; /* plcg or pipecg: hundreds of us */
    f.latency = f.latency_low = 1000 * US;
    assert_int_equal(ovk__auto_probe_pays(&f, 4, 1, 0, 1150 * US), 1);
    f.sstep = 1; /* sgmres:s=10 with or without overlap=1 on a nonsymmetric matrix: 37 us an iteration */
    assert_int_equal(ovk__auto_probe_pays(&f, 4, 1, 1, 1150 * US), 1);
    f.latency = f.latency_low = 1 * US; /* alg1 either way */
    assert_int_equal(ovk__auto_probe_pays(&f, 4, 1, 0, 1.15 * US), 0);
}

static void test_vector_steps_settle(void **state)
{
    (void)state;
    /* -n 20 on 2 ranks at 0 us: the cold vector steps 13 us, the timed latency 1 us (2 on native) */
    assert_int_equal(ovk__auto_nothing_to_hide(1 * US, 13 * US, 1), 1);
    assert_int_equal(ovk__auto_nothing_to_hide(2 * US, 13 * US, 1), 1);
    assert_int_equal(ovk__auto_nothing_to_hide(3 * US, 13 * US, 1), 0);
    assert_int_equal(ovk__auto_nothing_to_hide(250 * US, 13 * US, 1), 0);
    assert_int_equal(ovk__auto_nothing_to_hide(1000 * US, 13 * US, 1), 0);
    /* timed again warm (6 us): 3 us on native is not settled cold, settled warm */
    assert_int_equal(ovk__auto_nothing_to_hide(2 * US, 6 * US, 0), 1);
    assert_int_equal(ovk__auto_nothing_to_hide(3 * US, 6 * US, 0), 0);
    assert_int_equal(ovk__auto_nothing_to_hide(3 * US, 13 * US, 0), 1);
    assert_int_equal(ovk__auto_nothing_to_hide(250 * US, 13 * US, 0), 0);
    /* where they settle it, no matvec changes the choice */
    static const double vecs[] = {5.0, 13.0, 470.0}, lat_share[] = {0.0, 0.5, 0.99}, exposures[] = {0.0, 0.5, 1.0};
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            double vec = vecs[i] * US, lat = lat_share[j] * vec / 6.0; /* 3 L < vec / 2 (at equality, ties) */
            assert_int_equal(ovk__auto_nothing_to_hide(lat, vec, 1), 1);
            assert_int_equal(ovk__auto_nothing_to_hide(lat, 0.5 * vec, 0), 1); /* the warm form: the same bound */
            for (double mv = 0.1 * vec; mv <= 100.0 * vec; mv *= 1.5)
                for (int k = 0; k < 3; k++)
                    for (int warm = 0; warm < 2; warm++)
                        for (int first = 0; first < 2; first++) {
                            double v = warm ? 0.5 * vec : vec; /* a warm pass is no faster than half a cold one */
                            ovk__auto_figures f = {lat, lat, v + mv, v, mv, 1, exposures[k], 0, 0, 0};
                            assert_int_equal(ovk__auto_best(&f, 8, first).kind, OVK__AUTO_ALG1);
                            assert_int_equal(ovk__auto_best_nonsymmetric(&f, 8, first).kind, OVK__AUTO_GMRES);
                        }
        }
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
    ovk__auto_figures f = {lat_us * US, lat_us * US, work_us * US, vec_us * US, mv_us * US, 0, 0.0, 0, 0, 0};
    ovk__auto_choice cand[2];
    double u[2];
    int n = ovk__auto_candidates(&f, maxl, first, cand);
    for (int i = 0; i < n; i++) u[i] = u_us[cand[i].kind == OVK__AUTO_PIPECG ? 1 : cand[i].depth] * US;
    ovk__auto_spec(n ? ovk__auto_best_timed(&f, cand, u, n, first) : ovk__auto_best(&f, maxl, first), spec,
                   sizeof spec);
    return spec;
}

static void test_timed_choice(void **state)
{
    (void)state;
    /* -n 20, ovk_laplace27 -print_level 1 with the steps printed:
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
    /* -n 60 (-timing): matvec 1340, W 2100, V 470 us; steps
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

static const char *nonsymmetric_choice(double lat_us, double work_us, double vec_us, long maxl, int first)
{
    static char spec[32];
    ovk__auto_figures f = {.latency = lat_us * US, .latency_low = lat_us * US, .work = work_us * US, .vec = vec_us * US};
    ovk__auto_spec(ovk__auto_best_nonsymmetric(&f, maxl, first), spec, sizeof spec);
    return spec;
}

/* a nonsymmetric matrix: gmres at no latency, pgmres deeper as the latency
 * grows against the work (never beyond 3, nor maxl), gmres longer in a
 * first solve (its first cycle is gmres's anyway) */
static void test_nonsymmetric(void **state)
{
    (void)state;
    assert_string_equal(nonsymmetric_choice(0.0, 80.0, 20.0, 4, 0), "gmres");
    assert_string_equal(nonsymmetric_choice(1.0, 2000.0, 470.0, 4, 1), "gmres");
    assert_string_equal(nonsymmetric_choice(1000.0, 100.0, 25.0, 8, 0), "pgmres:l=3");
    assert_string_equal(nonsymmetric_choice(1000.0, 100.0, 25.0, 1, 0), "pgmres:l=1");
    int last = 0;
    for (double lat = 0.0; lat <= 2000.0; lat += 50.0) {
        const char *c = nonsymmetric_choice(lat, 100.0, 25.0, 4, 0);
        int d = strcmp(c, "gmres") ? atoi(c + 9) : 0;
        assert_true(d >= last && d <= 3);
        last = d;
    }
    ovk__auto_figures f = {.latency = 40 * US, .latency_low = 40 * US, .work = 100 * US, .vec = 25 * US};
    ovk__auto_choice steady = ovk__auto_best_nonsymmetric(&f, 4, 0), first = ovk__auto_best_nonsymmetric(&f, 4, 1);
    assert_true(first.kind == OVK__AUTO_GMRES || first.depth <= steady.depth);
}

static const char *exposed_choice(double lat_us, double work_us, double vec_us, long maxl, int first, int nonsym,
                                  double exposed)
{
    static char spec[32];
    ovk__auto_figures f = {lat_us * US, lat_us * US, work_us * US, vec_us * US, 0.0, 1, exposed, 0, 0, 0};
    ovk__auto_spec(nonsym ? ovk__auto_best_nonsymmetric(&f, maxl, first) : ovk__auto_best(&f, maxl, first), spec,
                   sizeof spec);
    return spec;
}

static const char *sstep_choice(double lat_us, double work_us, double vec_us, long maxl, int first, int nonsym)
{
    static char spec[32];
    ovk__auto_figures f = {lat_us * US, lat_us * US, work_us * US, vec_us * US, 0.0, 1, 0.0, 0, 0, 0};
    ovk__auto_spec(nonsym ? ovk__auto_best_nonsymmetric(&f, maxl, first) : ovk__auto_best(&f, maxl, first), spec,
                   sizeof spec);
    return spec;
}

static int is_sstep(const char *spec) { return !strncmp(spec, "scg:s=", 6) || !strncmp(spec, "sgmres:s=", 9); }

static void test_sstep(void **state)
{
    (void)state;
    /* -n 20, 2 ranks: W = 54, V = 14 us (docs/solvers-notes.md, auto) */
    for (int nonsym = 0; nonsym <= 1; nonsym++)
        for (int first = 0; first <= 1; first++) {
            assert_false(is_sstep(sstep_choice(0.0, 54.0, 14.0, 4, first, nonsym)));
            assert_false(is_sstep(sstep_choice(0.0, 54.0, 14.0, 1, first, nonsym)));
            /* the latency below the work: never (test_auto.c relies on it) */
            for (double w = 20.0; w <= 2000.0; w *= 1.5)
                for (long maxl = 1; maxl <= 8; maxl++)
                    assert_false(is_sstep(sstep_choice(0.99 * w, w, 0.25 * w, maxl, first, nonsym)));
        }
    assert_string_equal(sstep_choice(1000.0, 54.0, 14.0, 1, 1, 0), "scg:s=8");
    assert_string_equal(sstep_choice(1000.0, 54.0, 14.0, 1, 1, 1), "sgmres:s=10,overlap=1");
    assert_string_equal(sstep_choice(1000.0, 54.0, 14.0, 1, 0, 0), "scg:s=8");
    assert_string_equal(sstep_choice(1000.0, 54.0, 14.0, 4, 0, 1), "sgmres:s=10,overlap=1");
    assert_string_equal(sstep_choice(1000.0, 54.0, 14.0, 4, 1, 1), "sgmres:s=10,overlap=1"); /* short start-up */
    assert_string_equal(sstep_choice(1000.0, 54.0, 14.0, 4, 1, 0), "scg:s=8"); /* its start-up: one short block */
    assert_string_equal(sstep_choice(5000.0, 54.0, 14.0, 4, 0, 0), "scg:s=8");
    /* where the latency is large against the work: s-step (maxl = 1, a first solve) */
    for (double w = 20.0; w <= 2000.0; w *= 1.5) {
        assert_true(is_sstep(sstep_choice(4.0 * w, w, 0.25 * w, 1, 1, 0)));
        assert_true(is_sstep(sstep_choice(2.0 * w, w, 0.25 * w, 1, 1, 1)));
    }
    /* once chosen, kept, s never falling */
    for (int nonsym = 0; nonsym <= 1; nonsym++)
        for (int first = 0; first <= 1; first++)
            for (long maxl = 1; maxl <= 3; maxl++) {
                int last = 0;
                for (double lat = 0.0; lat <= 20000.0; lat += 10.0) {
                    const char *c = sstep_choice(lat, 75.0, 25.0, maxl, first, nonsym);
                    int s = is_sstep(c) ? atoi(strchr(c, '=') + 1) : 0;
                    assert_true(s >= last);
                    last = s;
                }
            }
}

/* the fraction of a reduction the backend leaves exposed (its overlap
 * probes): all of it (blocking) never gives a variant whose gain is a sum
 * in flight (plcg, pgmres, sgmres with overlap=1; pipecg stays: one sum
 * a step where alg1 makes three), whatever the latency; none of it gives
 * the choices above; the modelled time never falls as more is exposed, and
 * the runner-up is another candidate, no faster than the choice */
static void test_exposed(void **state)
{
    (void)state;
    for (int nonsym = 0; nonsym <= 1; nonsym++)
        for (int first = 0; first <= 1; first++)
            for (double lat = 0.0; lat <= 5000.0; lat += 50.0)
                for (long maxl = 1; maxl <= 8; maxl++) {
                    const char *c = exposed_choice(lat, 54.0, 14.0, maxl, first, nonsym, 1.0);
                    assert_null(strstr(c, "plcg"));
                    assert_null(strstr(c, "pgmres"));
                    assert_null(strstr(c, "overlap=1"));
                }
    assert_string_equal(exposed_choice(1000.0, 54.0, 14.0, 4, 0, 1, 0.0), "sgmres:s=10,overlap=1");
    assert_string_equal(exposed_choice(1000.0, 54.0, 14.0, 4, 0, 1, 1.0), "sgmres:s=10");
    assert_string_equal(exposed_choice(250.0, 54.0, 14.0, 4, 0, 0, 1.0), "scg:s=4");
    assert_string_equal(exposed_choice(250.0, 54.0, 14.0, 4, 0, 0, 0.0), "plcg:l=3");
    for (int nonsym = 0; nonsym <= 1; nonsym++) {
        ovk__auto_choice pl = {nonsym ? OVK__AUTO_PGMRES : OVK__AUTO_PLCG, 3};
        double last = 0.0;
        for (double e = 0.0; e <= 1.0; e += 0.125) {
            ovk__auto_figures f = {500 * US, 500 * US, 54 * US, 14 * US, 0.0, 1, e, 0, 0, 0};
            double t = ovk__auto_modelled(&f, 0, nonsym, pl);
            assert_true(t >= last);
            last = t;
            ovk__auto_choice best = nonsym ? ovk__auto_best_nonsymmetric(&f, 4, 0) : ovk__auto_best(&f, 4, 0), second;
            ovk__auto_runner_up(&f, 4, 0, nonsym, best, &second);
            assert_false(ovk__auto_same(best, second));
            assert_true(ovk__auto_modelled(&f, 0, nonsym, second) >= ovk__auto_modelled(&f, 0, nonsym, best));
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_no_latency),
        cmocka_unit_test(test_benchmark_figures),
        cmocka_unit_test(test_maxl_one),
        cmocka_unit_test(test_cold_settles),
        cmocka_unit_test(test_probe_pays),
        cmocka_unit_test(test_vector_steps_settle),
        cmocka_unit_test(test_monotone),
        cmocka_unit_test(test_first_solve),
        cmocka_unit_test(test_timed_choice),
        cmocka_unit_test(test_timed_monotone),
        cmocka_unit_test(test_nonsymmetric),
        cmocka_unit_test(test_exposed),
        cmocka_unit_test(test_sstep),
    };
    return cmocka_run_group_tests(tests, NULL, NULL) ? 1 : 0;
}

/* Unit tests of the noise injection (include/ovkrylov/testing.h): argument
 * errors, start/stop states, that interruptions are delivered at about the
 * requested rate, and that stop restores the previous signal disposition.
 * Bounds are generous: this is not a performance test. */
#include <math.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "internal.h"
#include "util/noise.h"
#include "ovkrylov/testing.h"

#define NOISE_SIGNAL (SIGRTMIN + 2)

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Busy loop for `seconds` of wall time. */
static void spin(double seconds)
{
    double end = now_s() + seconds;
    while (now_s() < end) {
    }
}

/* Busy loop for `seconds` of this thread's CPU time (the handler's busy
 * waits included), at most 20 s of wall time: on a loaded machine the
 * thread is off the CPU for part of the wall time, and the expiries of that
 * part reach it as one signal. */
static double spin_cpu(double seconds)
{
    struct timespec c;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c);
    double c0 = (double)c.tv_sec + 1e-9 * (double)c.tv_nsec, cpu = 0.0, end = now_s() + 20.0;
    while (cpu < seconds && now_s() < end) {
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c);
        cpu = (double)c.tv_sec + 1e-9 * (double)c.tv_nsec - c0;
    }
    return cpu;
}

static void test_bad_arguments(void **state)
{
    (void)state;
    assert_int_equal(ovk_noise_start(0.0, 50.0, 1), OVK_EINVAL);
    assert_int_equal(ovk_noise_start(-10.0, 50.0, 1), OVK_EINVAL);
    assert_int_equal(ovk_noise_start(NAN, 50.0, 1), OVK_EINVAL);
    assert_int_equal(ovk_noise_start(INFINITY, 50.0, 1), OVK_EINVAL);
    assert_int_equal(ovk_noise_start(10001.0, 1.0, 1), OVK_EINVAL);
    assert_int_equal(ovk_noise_start(100.0, 0.0, 1), OVK_EINVAL);
    assert_int_equal(ovk_noise_start(100.0, -5.0, 1), OVK_EINVAL);
    assert_int_equal(ovk_noise_start(100.0, NAN, 1), OVK_EINVAL);
    assert_int_equal(ovk_noise_start(0.5, 1e6, 1), OVK_EINVAL);    /* duration >= 1 s */
    assert_int_equal(ovk_noise_start(1000.0, 1000.0, 1), OVK_EINVAL); /* 100 % of the time */
    assert_int_equal(ovk_noise_start(1000.0, 2000.0, 1), OVK_EINVAL);
    assert_string_not_equal(ovk_error_detail(), "");
    assert_int_equal(ovk_noise_stop(), 0); /* nothing was started */
}

static void test_start_stop(void **state)
{
    (void)state;
    assert_int_equal(ovk_noise_stop(), 0); /* off: no-op */
    assert_int_equal(ovk_noise_start(100.0, 10.0, 7), OVK_OK);
    assert_int_equal(ovk_noise_start(100.0, 10.0, 7), OVK_ESTATE);
    assert_true(ovk_noise_stop() >= 0);
    assert_int_equal(ovk_noise_stop(), 0);
    /* a stopped noise can be started again */
    assert_int_equal(ovk_noise_start(10000.0, 1.0, 8), OVK_OK); /* the extremes allowed */
    assert_true(ovk_noise_stop() >= 0);
}

static void test_delivery(void **state)
{
    (void)state;
    double t0 = now_s();
    assert_int_equal(ovk_noise_start(1000.0, 50.0, 12345u), OVK_OK);
    double cpu = spin_cpu(0.2);
    long n = ovk_noise_stop();
    double wall = now_s() - t0;
    print_message("1000 Hz x 50 us for %.3f s (%.3f s on the CPU): %ld interruptions\n", wall, cpu, n);
    /* at least half of one per millisecond on the CPU (the expiries while
     * the thread was off it may reach it as one signal), at most one per
     * millisecond of wall time (+50%): the rate, neither lost nor counted twice */
    assert_true(cpu >= 0.2);
    assert_true(n >= 100);
    assert_true((double)n <= 1.5e3 * wall + 1.0);
    /* stopped: no more interruptions afterwards (the next start resets the count) */
    spin(0.02);
    assert_int_equal(ovk_noise_stop(), 0);
}

/* Busy loop for `seconds`; returns the longest gap between two clock reads,
 * i.e. the longest time the loop was kept from running. */
static double spin_max_gap(double seconds)
{
    double t = now_s(), end = t + seconds, gap = 0.0;
    while (t < end) {
        double u = now_s();
        if (u - t > gap) gap = u - t;
        t = u;
    }
    return gap;
}

/* Each interruption busy-waits the requested duration: the loop sees a gap
 * of at least that length (preemption can only make gaps longer), and the
 * interruptions' total fits in the elapsed time. */
static void test_duration_honoured(void **state)
{
    (void)state;
    double t0 = now_s();
    assert_int_equal(ovk_noise_start(1000.0, 300.0, 99u), OVK_OK);
    double gap = spin_max_gap(0.1);
    long n = ovk_noise_stop();
    double elapsed = now_s() - t0;
    print_message("1000 Hz x 300 us for %.3f s: %ld interruptions, longest gap %.0f us\n", elapsed, n,
                  gap * 1e6);
    assert_true(n > 0);
    assert_true(gap >= 290e-6);
    assert_true((double)n * 300e-6 <= elapsed + 1e-3);
}

static void test_disposition_restored(void **state)
{
    (void)state;
    struct sigaction before, during, after;
    assert_int_equal(sigaction(NOISE_SIGNAL, NULL, &before), 0);
    assert_int_equal(ovk_noise_start(500.0, 20.0, 3u), OVK_OK);
    assert_int_equal(sigaction(NOISE_SIGNAL, NULL, &during), 0);
    assert_ptr_not_equal((void *)during.sa_handler, (void *)before.sa_handler);
    assert_true(during.sa_flags & SA_RESTART);
    spin(0.01);
    assert_true(ovk_noise_stop() >= 0);
    assert_int_equal(sigaction(NOISE_SIGNAL, NULL, &after), 0);
    assert_ptr_equal((void *)after.sa_handler, (void *)before.sa_handler);
    spin(0.01); /* a signal left pending would now kill the process */
}

/* Interruptions longer than their period (past the public limits): every
 * signal finds an expiry lost while it was pending; the handler disarms the
 * timer instead of starving this thread, and stop says so.  Without the
 * guard the spin below never ends (ctest's timeout). */
static void test_overload_guard(void **state)
{
    (void)state;
    assert_int_equal(ovk__noise_start_unchecked(100000.0, 20.0, 5u), OVK_OK);
    spin(0.05);
    long n = ovk_noise_stop();
    print_message("100 kHz x 20 us: %ld (%s)\n", n, ovk_error_detail());
    assert_int_equal(n, OVK_EUNSUPPORTED);
    assert_non_null(strstr(ovk_error_detail(), "faster than this machine"));
    assert_int_equal(ovk_noise_stop(), 0); /* off again */
    assert_int_equal(ovk_noise_start(1000.0, 10.0, 6u), OVK_OK); /* a fresh start is clean */
    spin(0.02);
    assert_true(ovk_noise_stop() > 0);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv); /* as in the benchmarks: MPI's helper threads exist */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bad_arguments),    cmocka_unit_test(test_start_stop),
        cmocka_unit_test(test_delivery),         cmocka_unit_test(test_duration_honoured),
        cmocka_unit_test(test_disposition_restored), cmocka_unit_test(test_overload_guard),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    MPI_Finalize();
    return failed ? 1 : 0;
}

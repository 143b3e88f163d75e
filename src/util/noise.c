/* Noise injection (include/ovkrylov/testing.h), in the testing library
 * ovkrylov_testing, not in libovkrylov: a POSIX timer on CLOCK_MONOTONIC
 * raises a real-time signal hz times a second; its handler busy-waits
 * duration_us microseconds on CLOCK_MONOTONIC, stealing the CPU from
 * whatever the interrupted thread was doing.
 *
 * On Linux the signal is directed at the thread that called
 * ovk_noise_start (SIGEV_THREAD_ID), so the noise hits the compute thread
 * even when the MPI library has helper threads; elsewhere it goes to the
 * process (SIGEV_SIGNAL). */
#define _GNU_SOURCE /* SIGEV_THREAD_ID, SYS_gettid */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "ovkrylov/testing.h"

#include "../internal.h"
#include "noise.h"

#define NOISE_SIGNAL_OFFSET 2 /* SIGRTMIN + 2: clear of the ones libraries commonly take */
#define NOISE_MAX_HZ 10000.0 /* a period of 100 us: delivering one signal costs ~30 us on some VMs */
#define NOISE_MAX_DURATION_US 1e6
#define NOISE_MAX_LOAD_US 5e5 /* duration_us * hz: microseconds of noise per second (a 50% duty cycle) */
#define NS_PER_S 1000000000LL
/* Interruptions in a row that each found an expiry lost while their signal
 * was pending: the signals (delivery included) take all the time. */
#define NOISE_STARVED_RUNS 64

static volatile sig_atomic_t interruptions;
static volatile sig_atomic_t busy_ns; /* duration of one interruption, read by the handler */
static volatile sig_atomic_t lost_streak; /* handler runs in a row with a timer overrun */
static volatile sig_atomic_t starved;     /* the handler disarmed the timer: see on_noise */

static struct noise_state {
    int on;
    int signo;
    timer_t timer;
    struct sigaction old_action;
} noise;

/* ---- the handler (async-signal-safe calls only) ---------------------- */

static long long monotonic_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * NS_PER_S + t.tv_nsec;
}

/* Overload guard: when run after run the timer has lost an expiry while the
 * previous signal was pending, the interrupted thread no longer runs at all
 * (a livelock); the handler disarms the timer and ovk_noise_stop reports it.
 * timer_getoverrun and timer_settime are async-signal-safe. */
static int starving(void)
{
    if (timer_getoverrun(noise.timer) <= 0) {
        lost_streak = 0;
        return 0;
    }
    lost_streak = lost_streak + 1;
    if (lost_streak < NOISE_STARVED_RUNS) return 0;
    const struct itimerspec disarm = {{0, 0}, {0, 0}};
    timer_settime(noise.timer, 0, &disarm, NULL);
    starved = 1;
    return 1;
}

static void on_noise(int signo)
{
    (void)signo;
    int saved_errno = errno;
    if (!starving()) {
        long long end = monotonic_ns() + busy_ns;
        while (monotonic_ns() < end) {
        }
        interruptions = interruptions + 1; /* the signal is masked while its handler runs */
    }
    errno = saved_errno;
}

/* ---- the random phase -------------------------------------------------- */

/* splitmix64 (Steele, Lea, Flood 2014): one well-mixed 64-bit value per seed. */
static uint64_t splitmix64(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ULL;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
    return x ^ (x >> 31);
}

/* Uniform in [0, 1) from the top 53 bits. */
static double uniform01(unsigned seed) { return (double)(splitmix64(seed) >> 11) * 0x1.0p-53; }

static struct timespec ns_to_timespec(long long ns)
{
    struct timespec t = {(time_t)(ns / NS_PER_S), (long)(ns % NS_PER_S)};
    return t;
}

/* ---- start / stop ------------------------------------------------------ */

static int check_args(double hz, double duration_us)
{
    if (!(hz > 0.0) || hz > NOISE_MAX_HZ)
        return ovk__fail(OVK_EINVAL, "ovk_noise_start: hz=%g not in (0, %g]", hz, NOISE_MAX_HZ);
    if (!(duration_us > 0.0) || !(duration_us < NOISE_MAX_DURATION_US))
        return ovk__fail(OVK_EINVAL, "ovk_noise_start: duration_us=%g not in (0, %g)", duration_us,
                         NOISE_MAX_DURATION_US);
    if (!(duration_us * hz < NOISE_MAX_LOAD_US))
        return ovk__fail(OVK_EINVAL,
                         "ovk_noise_start: duration_us * hz = %g us of noise per second; the limit is below %g "
                         "(a duty cycle under 50%%)",
                         duration_us * hz, NOISE_MAX_LOAD_US);
    return OVK_OK;
}

static int install_handler(int signo)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_noise;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    if (sigaction(signo, &sa, &noise.old_action) != 0)
        return ovk__fail(OVK_EUNSUPPORTED, "ovk_noise_start: sigaction(SIGRTMIN+%d): %s",
                         NOISE_SIGNAL_OFFSET, strerror(errno));
    return OVK_OK;
}

static int create_timer(int signo)
{
    struct sigevent ev;
    memset(&ev, 0, sizeof ev);
    ev.sigev_signo = signo;
#ifdef SIGEV_THREAD_ID
    ev.sigev_notify = SIGEV_THREAD_ID;
#ifdef sigev_notify_thread_id
    ev.sigev_notify_thread_id = (pid_t)syscall(SYS_gettid);
#else
    ev._sigev_un._tid = (pid_t)syscall(SYS_gettid); /* glibc < 2.35 names no macro */
#endif
#else
    ev.sigev_notify = SIGEV_SIGNAL;
#endif
    if (timer_create(CLOCK_MONOTONIC, &ev, &noise.timer) != 0)
        return ovk__fail(OVK_EUNSUPPORTED, "ovk_noise_start: timer_create: %s", strerror(errno));
    return OVK_OK;
}

/* First expiry at a phase drawn from seed in [0, period), then every period
 * (a zero it_value would disarm the timer, so the phase is at least 1 ns). */
static int arm_timer(double hz, unsigned seed)
{
    long long period_ns = llround(1e9 / hz);
    long long phase_ns = (long long)(uniform01(seed) * (double)period_ns);
    struct itimerspec its;
    its.it_interval = ns_to_timespec(period_ns);
    its.it_value = ns_to_timespec(phase_ns > 0 ? phase_ns : 1);
    if (timer_settime(noise.timer, 0, &its, NULL) != 0)
        return ovk__fail(OVK_EUNSUPPORTED, "ovk_noise_start: timer_settime: %s", strerror(errno));
    return OVK_OK;
}

/* The timer of noise.signo, armed (deleted again when arming fails). */
static int start_timer(int signo, double hz, unsigned seed)
{
    int rc = create_timer(signo);
    if (rc) return rc;
    rc = arm_timer(hz, seed);
    if (rc) timer_delete(noise.timer);
    return rc;
}

int ovk__noise_start_unchecked(double hz, double duration_us, unsigned seed)
{
    if (noise.on) return ovk__fail(OVK_ESTATE, "ovk_noise_start: noise is already on");
    noise.signo = SIGRTMIN + NOISE_SIGNAL_OFFSET;
    busy_ns = (sig_atomic_t)llround(duration_us * 1e3);
    interruptions = 0;
    lost_streak = 0;
    starved = 0;
    int rc = install_handler(noise.signo);
    if (rc) return rc;
    rc = start_timer(noise.signo, hz, seed);
    if (rc) {
        sigaction(noise.signo, &noise.old_action, NULL);
        return rc;
    }
    noise.on = 1;
    return OVK_OK;
}

int ovk_noise_start(double hz, double duration_us, unsigned seed)
{
    int rc = check_args(hz, duration_us);
    if (rc) return rc;
    return ovk__noise_start_unchecked(hz, duration_us, seed);
}

/* Drop a signal of the deleted timer that may still be pending, so that it
 * never reaches the previous disposition (the default one terminates). */
static void drain_pending(int signo)
{
    sigset_t set;
    const struct timespec zero = {0, 0};
    sigemptyset(&set);
    sigaddset(&set, signo);
    while (sigtimedwait(&set, NULL, &zero) == signo) {
    }
}

long ovk_noise_stop(void)
{
    if (!noise.on) return 0;
    sigset_t block, old_mask;
    sigemptyset(&block);
    sigaddset(&block, noise.signo);
    pthread_sigmask(SIG_BLOCK, &block, &old_mask);
    int rc = timer_delete(noise.timer);
    drain_pending(noise.signo);
    sigaction(noise.signo, &noise.old_action, NULL);
    pthread_sigmask(SIG_SETMASK, &old_mask, NULL);
    noise.on = 0;
    if (rc != 0) return ovk__fail(OVK_EUNSUPPORTED, "ovk_noise_stop: timer_delete: %s", strerror(errno));
    if (starved)
        return ovk__fail(OVK_EUNSUPPORTED,
                         "ovk_noise_stop: the interruptions came faster than this machine delivers them "
                         "(%d in a row lost a timer expiry); the noise stopped itself after %ld: "
                         "lower hz or duration_us",
                         NOISE_STARVED_RUNS, (long)interruptions);
    return (long)interruptions;
}

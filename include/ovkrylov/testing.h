/* ovkrylov's testing component: noise injection for benchmarks (the
 * PCG-Overlap paper, Sec. VII-D).  Not part of the library: ovkrylov.h does
 * not include this header, and its functions are in libovkrylov_testing
 * (CMake target ovkrylov::ovkrylov_testing, which links ovkrylov::ovkrylov;
 * by hand: -lovkrylov_testing -lm -lovkrylov), installed when the package was
 * configured with OVK_TESTING=ON (docs/install.md).
 *
 * While noise is on, the calling process is interrupted hz times a second
 * and each interruption busy-waits duration_us microseconds, the way an OS
 * daemon steals a core.  The phase of the first interruption is drawn from
 * seed, so ranks given different seeds are interrupted independently.
 *
 * Local (no communication).  One noise source per process; it uses a POSIX
 * timer delivering a real-time signal (SIGRTMIN+2) to the process -- on Linux
 * to the thread that called ovk_noise_start, so that helper threads of the
 * MPI library do not absorb it.  Handlers of other signals are untouched;
 * system calls interrupted by it restart.  Call ovk_noise_stop from the
 * thread that started the noise.  A failure's detail is in the library's
 * ovk_error_detail().
 */
#ifndef OVKRYLOV_TESTING_H
#define OVKRYLOV_TESTING_H

#include "error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Start the noise: hz in (0, 10000], duration_us in (0, 1e6) and
 * duration_us * hz < 5e5 (a duty cycle under 50%: the noise must leave the
 * run time to finish; a signal's delivery costs up to ~30 us more on some
 * virtual machines, hence the rate limit).  OVK_EINVAL
 * for values out of range, OVK_ESTATE when noise is already on, OVK_EUNSUPPORTED
 * when the timer cannot be created. */
int ovk_noise_start(double hz, double duration_us, unsigned seed);

/* Stop it (no-op when off).  Returns the number of interruptions delivered
 * since the start, or a negative status: OVK_EUNSUPPORTED also when the
 * signals came faster than the machine delivered them, run after run, and
 * the handler disarmed the timer rather than starve the interrupted thread. */
long ovk_noise_stop(void);

#ifdef __cplusplus
}
#endif
#endif

/* The noise injection's entries for its own tests (src/util/noise.c),
 * beside the public ones of include/ovkrylov/testing.h.  Not installed. */
#ifndef OVK_NOISE_H
#define OVK_NOISE_H

/* ovk_noise_start without its limits on hz and duration_us (tests of the
 * handler's overload guard). */
int ovk__noise_start_unchecked(double hz, double duration_us, unsigned seed);

#endif

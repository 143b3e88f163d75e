/* The time loop's matrices, shared by bench/ovk_loop_bench.c and its PETSc
 * peer bench/peers/petsc_loop.c so that both solve the same A_s = D_s A D_s:
 * d_i = 1 + eps sin(8 pi i / n + s / 2), i the global row of n, s the step. */
#ifndef OVK_BENCH_LOOP_SCALING_H
#define OVK_BENCH_LOOP_SCALING_H

#include <math.h>

enum { LOOP_DEFAULT_STEPS = 20, LOOP_DEFAULT_MAXIT = 10000 };
#define LOOP_DEFAULT_EPS 0.03
#define LOOP_DEFAULT_TOL 1e-8

/* d_i of step s */
static inline double loop_row_scale(long long i, long long n, long step, double eps)
{
    const double two_pi = 6.283185307179586, waves = 4.0, phase_per_step = 0.5;
    return 1.0 + eps * sin(two_pi * waves * (double)i / (double)n + phase_per_step * (double)step);
}

#endif

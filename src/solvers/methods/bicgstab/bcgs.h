/* What the BiCGStab variants (bicgstab.c, pipebicgstab.c) share: the
 * restart after a breakdown, the convergence test confirmed on the true
 * residual, and an honest residual when the iteration limit stops them
 * (bcgs_common.c). */
#ifndef OVK_BCGS_H
#define OVK_BCGS_H

#include "../../solver.h"

/* The restarts of one solve. */
typedef struct ovk__bcgs_restarts {
    int last; /* the iteration of the latest restart, or -1 */
} ovk__bcgs_restarts;

/* A breakdown of iteration iter (what = value: rho, <rhat,v>, omega or a
 * denominator near 0): returns 0 when the caller must restart (rhat = r,
 * the directions reset), 1 when the solve stops (a second breakdown before
 * a step was done, or value not finite; reason and detail set). */
int ovk__bcgs_breakdown(ovk__ctx *c, ovk__bcgs_restarts *rs, int iter, const char *what, double value);

/* 1 when |d| is negligible beside the norms of its two vectors:
 * |d| <= eps sqrt(xx yy) (or not finite). */
int ovk__bcgs_tiny(double d, double xx, double yy);

/* After <r,r> = rr of iteration iter: the history, the monitor and the
 * stop decision.  When the recursive residual converged, the true one
 * r = b - A x is computed (r overwritten) and must converge too: if it
 * does not, *replaced = 1 (r holds it; the caller rebuilds its recurrences)
 * and the solve goes on.  At max_iter the solve stops with the true
 * residual's norm (reason MAXIT, or CONVERGED if that one converged).
 * *stop = 1 when the solve ends. */
int ovk__bcgs_check(ovk__ctx *c, int iter, double rr, double bb, double *r, int *stop, int *replaced);

/* The iteration limit: r = b - A x, rel_residual its norm, reason MAXIT
 * (CONVERGED when that residual meets the tolerance).  Collective. */
int ovk__bcgs_limit(ovk__ctx *c, double bb, double *r);

#endif

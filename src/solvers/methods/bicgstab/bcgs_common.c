/* The decisions the BiCGStab variants share (bcgs.h): every one is taken
 * on reduced values, so every rank decides the same. */
#include <float.h>
#include <math.h>

#include "bcgs.h"

int ovk__bcgs_tiny(double d, double xx, double yy)
{
    return !isfinite(d) || fabs(d) <= DBL_EPSILON * sqrt(xx * yy);
}

int ovk__bcgs_breakdown(ovk__ctx *c, ovk__bcgs_restarts *rs, int iter, const char *what, double value)
{
    c->res->iterations = iter; /* counted, also when it ends in a restart (no check of its own) */
    if (!isfinite(value)) {
        ovk__stop(c, iter, OVK_REASON_NONFINITE, what, value);
        return 1;
    }
    if (rs->last == iter) {
        c->res->iterations = iter;
        c->res->reason = OVK_REASON_BREAKDOWN;
        ovk__fail(OVK_EBREAKDOWN, "iteration %d: %s = %g again right after a restart (BiCGStab breaks down on this "
                                  "system; try gmres, or another preconditioner)",
                  iter, what, value);
        return 1;
    }
    rs->last = iter;
    c->res->restarts++;
    return 0;
}

int ovk__bcgs_limit(ovk__ctx *c, double bb, double *r)
{
    int ok = 0, rc = ovk__confirm(c, bb, r, &ok);
    c->res->reason = ok ? OVK_REASON_CONVERGED : OVK_REASON_MAXIT;
    return rc;
}

int ovk__bcgs_check(ovk__ctx *c, int iter, double rr, double bb, double *r, int *stop, int *replaced)
{
    int ok = 1;
    *replaced = 0;
    int rc = ovk__iterate_check(c, iter, rr, bb, stop);
    if (rc) return rc;
    if (*stop) {
        if (c->res->reason != OVK_REASON_CONVERGED) return OVK_OK; /* monitor, divergence, non-finite */
        rc = ovk__confirm(c, bb, r, &ok); /* r = b - A x */
        if (rc || ok) return rc;
        *stop = 0;
        *replaced = 1;
        c->res->replacements++;
    }
    if (iter < c->opts->max_iter) return OVK_OK;
    *stop = 1;
    if (!*replaced) return ovk__bcgs_limit(c, bb, r);
    c->res->reason = OVK_REASON_MAXIT; /* rel_residual is the true residual's already */
    return OVK_OK;
}

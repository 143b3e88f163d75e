/* The Lanczos condition estimate from the CG coefficients the variants
 * record (ovk__lanczos_add); the tridiagonal matrix and its eigenvalues are
 * in src/util/lanczos.c.  The arrays are allocated at setup (object_setup.c). */
#include "../solver.h"

void ovk__condest_end(ovk__ctx *c)
{
    const ovk__lanczos *lz = &c->lanczos;
    double lmin = 0.0, lmax = 0.0;
    if (lz->count < 1 || ovk__lanczos_extremes(lz->count, lz->alpha, lz->beta, lz->work, &lmin, &lmax)) return;
    c->res->lambda_min = lmin;
    c->res->lambda_max = lmax;
    c->res->cond_est = lmin > 0.0 ? lmax / lmin : 0.0; /* T indefinite: breakdown */
}

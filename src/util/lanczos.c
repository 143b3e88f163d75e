/* Extreme eigenvalues of the Lanczos tridiagonal matrix that CG's
 * coefficients define (Saad, Iterative Methods, 6.7.3): with alpha_j the step
 * length of step j and beta_j the coefficient that built p_j = z_j +
 * beta_j p_{j-1} (beta_0 = 0),
 *
 *   T[j][j]   = 1/alpha_j + beta_j / alpha_{j-1}     (no second term for j = 0)
 *   T[j-1][j] = T[j][j-1] = sqrt(beta_j) / alpha_{j-1}
 *
 * Its extreme eigenvalues (Ritz values) approach those of the preconditioned
 * operator from inside.  A restart (beta_j = 0) splits T into independent
 * blocks, each the Lanczos matrix of its own Krylov space. */
#include <math.h>

#include "../internal.h"

extern void dstev_(const char *jobz, const int *n, double *d, double *e, double *z, const int *ldz,
                   double *work, int *info);

int ovk__lanczos_extremes(int k, const double *alpha, const double *beta, double *work, double *lmin,
                          double *lmax)
{
    double *d = work, *e = work + k, z = 0.0, w = 0.0; /* z, w: not referenced for jobz = 'N' */
    int info = 1, one = 1;
    if (k < 1) return -1;
    for (int j = 0; j < k; j++) {
        double bj = j > 0 ? fmax(beta[j], 0.0) : 0.0;
        d[j] = 1.0 / alpha[j] + (j > 0 ? bj / alpha[j - 1] : 0.0);
        if (j > 0) e[j - 1] = sqrt(bj) / alpha[j - 1];
    }
    dstev_("N", &k, d, e, &z, &one, &w, &info); /* eigenvalues of T, ascending */
    if (info != 0) return -1;
    *lmin = d[0];
    *lmax = d[k - 1];
    return 0;
}

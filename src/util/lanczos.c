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
 * blocks, each the Lanczos matrix of its own Krylov space.
 *
 * The eigenvalue routines here run inside a solve: no allocation, so no
 * LAPACK (OpenBLAS allocates its buffers on first use, and under a memory
 * limit retries mmap for ever). */
#include <float.h>
#include <math.h>

#include "../internal.h"

/* the number of eigenvalues of T below x (Sturm count of T - x I) */
static int below(int k, const double *d, const double *e, double x, double tiny)
{
    int count = 0;
    double q = 1.0;
    for (int i = 0; i < k; i++) {
        double ee = i > 0 ? e[i - 1] * e[i - 1] : 0.0;
        q = d[i] - x - (i > 0 ? ee / q : 0.0);
        if (fabs(q) < tiny) q = -tiny; /* a zero pivot: x counted as above */
        count += q < 0.0;
    }
    return count;
}

/* the j-th smallest eigenvalue (0-based) within the Gershgorin interval [lo, hi] */
static double bisect(int k, const double *d, const double *e, int j, double lo, double hi, double tiny)
{
    for (int it = 0; it < 200 && hi - lo > 2.0 * DBL_EPSILON * fmax(fabs(lo), fabs(hi)); it++) {
        double mid = 0.5 * (lo + hi);
        if (mid <= lo || mid >= hi) break;
        if (below(k, d, e, mid, tiny) > j) hi = mid;
        else lo = mid;
    }
    return 0.5 * (lo + hi);
}

int ovk__tridiag_extremes(int k, const double *d, const double *e, double *lmin, double *lmax)
{
    double lo = INFINITY, hi = -INFINITY, norm = 0.0;
    if (k < 1) return -1;
    for (int i = 0; i < k; i++) {
        double r = (i > 0 ? fabs(e[i - 1]) : 0.0) + (i + 1 < k ? fabs(e[i]) : 0.0);
        if (!isfinite(d[i]) || !isfinite(r)) return -1;
        lo = fmin(lo, d[i] - r);
        hi = fmax(hi, d[i] + r);
        norm = fmax(norm, fabs(d[i]) + r);
    }
    if (!isfinite(lo) || !isfinite(hi) || !isfinite(norm)) return -1;
    double tiny = fmax(norm * DBL_EPSILON * DBL_EPSILON, DBL_MIN), pad = 2.0 * DBL_EPSILON * norm + DBL_MIN;
    lo -= pad;
    hi += pad;
    *lmin = bisect(k, d, e, 0, lo, hi, tiny);
    *lmax = bisect(k, d, e, k - 1, lo, hi, tiny);
    return 0;
}

int ovk__lanczos_extremes(int k, const double *alpha, const double *beta, double *work, double *lmin,
                          double *lmax)
{
    double *d = work, *e = work + k;
    if (k < 1) return -1;
    for (int j = 0; j < k; j++) {
        double bj = j > 0 ? fmax(beta[j], 0.0) : 0.0;
        d[j] = 1.0 / alpha[j] + (j > 0 ? bj / alpha[j - 1] : 0.0);
        if (j > 0) e[j - 1] = sqrt(bj) / alpha[j - 1];
    }
    return ovk__tridiag_extremes(k, d, e, lmin, lmax);
}

double ovk__sym_eig_max(int k, double *a)
{
#define A(i, j) a[(i) + (size_t)(j) * (size_t)k]
    for (int i = 0; i < k * k; i++)
        if (!isfinite(a[i])) return NAN;
    for (int sweep = 0; sweep < 64; sweep++) {
        double off = 0.0, all = 0.0;
        for (int q = 0; q < k; q++)
            for (int p = 0; p < k; p++) {
                all += A(p, q) * A(p, q);
                if (p != q) off += A(p, q) * A(p, q);
            }
        if (!(off > DBL_EPSILON * DBL_EPSILON * all)) break;
        for (int p = 0; p < k; p++)
            for (int q = p + 1; q < k; q++) {
                double apq = A(p, q);
                if (apq == 0.0) continue;
                /* the rotation that zeroes a_pq: t = tan of its angle */
                double theta = (A(q, q) - A(p, p)) / (2.0 * apq);
                double t = fabs(theta) > 1e150 ? 0.5 / theta
                                                : (theta >= 0.0 ? 1.0 : -1.0) / (fabs(theta) + sqrt(theta * theta + 1.0));
                double c = 1.0 / sqrt(t * t + 1.0), s = t * c;
                A(p, p) -= t * apq;
                A(q, q) += t * apq;
                A(p, q) = A(q, p) = 0.0;
                for (int r = 0; r < k; r++) {
                    if (r == p || r == q) continue;
                    double arp = A(r, p), arq = A(r, q);
                    A(r, p) = A(p, r) = c * arp - s * arq;
                    A(r, q) = A(q, r) = s * arp + c * arq;
                }
            }
    }
    double m = A(0, 0);
    for (int i = 1; i < k; i++) m = fmax(m, A(i, i));
    return m;
#undef A
}

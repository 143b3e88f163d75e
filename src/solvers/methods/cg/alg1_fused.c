/* alg1's fused kernel, with hypre's DiagScale (declared in fused.h): every
 * update and local sum of a step in one pass over the vectors, in chunks
 * that call the progress hook. */
#include "fused.h"

/* alg1: the update of x and r, DiagScale and its two sums in one pass */
void ovk__alg1_update(int n, double a, const double *restrict p, double *restrict x, double *restrict s,
                      double *restrict r, const double *restrict diag, double *rs, double *rr, const ovk__hook *h)
{
    double sum_rs = 0.0, sum_rr = 0.0;
    OVK__CHUNKS(n, h, lo, hi) {
        for (int i = lo; i < hi; i++) {
            x[i] += a * p[i];
            double ri = r[i] - a * s[i], si = ri / diag[i]; /* r -= a s; s = r ./ diag */
            r[i] = ri;
            s[i] = si;
            sum_rs += ri * si;
            sum_rr += ri * ri;
        }
    }
    *rs = sum_rs;
    *rr = sum_rr;
}


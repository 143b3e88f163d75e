/* groppcg's fused kernel (declared in fused.h): every update and local sum of a
 * step in one pass over the vectors, in chunks that call the progress hook. */
#include "fused.h"

/* groppcg: x += a p; r -= a s; z -= a S, with the local <r,z>, <r,r>. */
void ovk__gropp_update(int n, double a, const double *restrict p, const double *restrict s,
                   const double *restrict S, double *restrict x, double *restrict r, double *restrict z,
                   double v[2], const ovk__hook *h)
{
    double rz = 0.0, rr = 0.0;
    OVK__CHUNKS(n, h, lo, hi) {
#pragma omp simd reduction(+ : rz, rr)
        for (int i = lo; i < hi; i++) {
            x[i] += a * p[i];
            r[i] -= a * s[i];
            z[i] -= a * S[i];
            rz += r[i] * z[i];
            rr += r[i] * r[i];
        }
    }
    v[0] = rz;
    v[1] = rr;
}


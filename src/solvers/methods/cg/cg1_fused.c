/* cg1's fused kernel (declared in fused.h): every update and local sum of a
 * step in one pass over the vectors, in chunks that call the progress hook. */
#include "fused.h"

/* cg1: p = u + b p; s = w + b s; x += a p; r -= a s; u = d .* r, with
 * <r,u>, <r,r> of the new vectors and the squared norms for the gap
 * estimate, in one pass (the sums in vector lanes, as in pipecg_rows). */
void ovk__cg1_update(int n, double a, double b, const double *restrict d, const double *restrict w,
                     double *restrict u, double *restrict p, double *restrict s, double *restrict x,
                     double *restrict r, double *v, const ovk__hook *h)
{
    double ru = 0.0, rr = 0.0, us = 0.0, ps = 0.0, xx = 0.0, pp = 0.0, ss = 0.0, uu = 0.0, ww = 0.0;
    OVK__CHUNKS(n, h, lo, hi) {
#pragma omp simd reduction(+ : ru, rr, us, ps, xx, pp, ss, uu, ww)
        for (int i = lo; i < hi; i++) {
            double pi = u[i] + b * p[i], si = w[i] + b * s[i];
            double ri = r[i] - a * si, ui = d[i] * ri;
            xx += x[i] * x[i];
            uu += u[i] * u[i];
            ww += w[i] * w[i];
            x[i] += a * pi;
            p[i] = pi;
            s[i] = si;
            r[i] = ri;
            u[i] = ui;
            ru += ri * ui;
            rr += ri * ri;
            us += ui * si;
            ps += pi * si;
            pp += pi * pi;
            ss += si * si;
        }
    }
    static const int slot[] = {OVK__V_GAMMA, OVK__V_RR, OVK__V_US, OVK__V_PS, OVK__V_XX,
                               OVK__V_PP,    OVK__V_SS, OVK__V_UU, OVK__V_WW};
    ovk__sums_store(v, 9, slot, (const double[]){ru, rr, us, ps, xx, pp, ss, uu, ww});
}

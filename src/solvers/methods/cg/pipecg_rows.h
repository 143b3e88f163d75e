/* pipecg's step on a block of rows, the one copy of its loop: inlined into
 * pipecg_fused.c's passes and rpipecg.c's (each compiled with the simd
 * pragmas honoured, -fopenmp-simd). */
#ifndef OVK_PIPECG_ROWS_H
#define OVK_PIPECG_ROWS_H

#include "../../solver.h"

/* Rows [0, m) of pipecg's step, sums added to v.  diag: u = C r and q = C s
 * formed from d (u and q neither read nor written, <x,x>, <u,u>, <w,w> of
 * the vectors before); else u and q carried by their recurrences (the
 * sums of the new vectors).  defl (not NULL, any C only): rpipecg's
 * deflation, W mu, A W mu, A C A W mu, C A W mu subtracted from u, w, n, m
 * in the recurrences of p, s, z, q.  Restrict parameters and the simd
 * reduction let the compiler keep each sum in vector lanes: thirteen
 * scalar running sums bind the pass to their additions, at a fraction of
 * the memory bandwidth.  The lanes fix the order of the additions for a
 * given build, so a rank's sums are reproducible.  Inlined with diag and
 * defl constants, the branches on them fold away: one loop for each use. */
static inline OVK__ALWAYS_INLINE void ovk__pipecg_rows(int m, double a, double b, int diag,
                                                       const double *restrict d, const double *restrict nv,
                                                       const double *restrict mv, const double *const *defl,
                                                       double *restrict x, double *restrict r, double *restrict w,
                                                       double *restrict p, double *restrict s, double *restrict z,
                                                       double *restrict u, double *restrict q, double *v)
{
    const double *restrict a0 = defl ? defl[0] : NULL, *restrict a1 = defl ? defl[1] : NULL;
    const double *restrict a2 = defl ? defl[2] : NULL, *restrict a3 = defl ? defl[3] : NULL;
    double ru = 0.0, wu = 0.0, rr = 0.0, us = 0.0, pw = 0.0, ps = 0.0, xx = 0.0, pp = 0.0, ss = 0.0, uu = 0.0,
           ww = 0.0, qq = 0.0, zz = 0.0;
#pragma omp simd reduction(+ : ru, wu, rr, us, pw, ps, xx, pp, ss, uu, ww, qq, zz)
    for (int i = 0; i < m; i++) {
        double u0 = diag ? d[i] * r[i] : u[i]; /* u = C r, before */
        double zi = (defl ? nv[i] - a2[i] : nv[i]) + b * z[i], si = (defl ? w[i] - a1[i] : w[i]) + b * s[i];
        double pi = (defl ? u0 - a0[i] : u0) + b * p[i];
        double qi = diag ? d[i] * si : (defl ? mv[i] - a3[i] : mv[i]) + b * q[i]; /* q = C s */
        double xi = x[i] + a * pi, wi = w[i] - a * zi, ri = r[i] - a * si;
        double ui = diag ? d[i] * ri : u0 - a * qi; /* u = C r, after */
        double xn = diag ? x[i] : xi, un = diag ? u0 : ui, wn = diag ? w[i] : wi; /* the norms' vectors */
        xx += xn * xn;
        uu += un * un;
        ww += wn * wn;
        x[i] = xi, z[i] = zi, s[i] = si, p[i] = pi, w[i] = wi, r[i] = ri;
        if (!diag) q[i] = qi, u[i] = ui;
        ru += ri * ui;
        wu += wi * ui;
        rr += ri * ri;
        us += ui * si;
        pw += pi * wi;
        ps += pi * si;
        pp += pi * pi;
        ss += si * si;
        qq += qi * qi;
        zz += zi * zi;
    }
    ovk__sums_add(v, OVK__V_MM, (const double[]){ru, wu, rr, us, pw, ps, xx, pp, ss, uu, ww, qq, zz});
}

#endif

/* pipecg's fused kernel (declared in fused.h): every update and local sum of a
 * step in one pass over the vectors, in chunks that call the progress hook. */
#include "fused.h"

/* rows [0, m) of ovk__pipecg_update, sums added to v.  Restrict parameters
 * and the simd reduction let the compiler keep each sum in vector lanes:
 * thirteen scalar running sums bind the pass to their additions, at a
 * fraction of the memory bandwidth.  The lanes fix the order of the
 * additions for a given build, so a rank's sums are reproducible. */
static void pipecg_rows(int m, double a, double b, const double *restrict d, const double *restrict nv,
                        double *restrict x, double *restrict r, double *restrict w, double *restrict p,
                        double *restrict s, double *restrict z, double *v)
{
    double ru = 0.0, wu = 0.0, rr = 0.0, us = 0.0, pw = 0.0, ps = 0.0, xx = 0.0, pp = 0.0, ss = 0.0, uu = 0.0,
           ww = 0.0, qq = 0.0, zz = 0.0;
#pragma omp simd reduction(+ : ru, wu, rr, us, pw, ps, xx, pp, ss, uu, ww, qq, zz)
    for (int i = 0; i < m; i++) {
        double u0 = d[i] * r[i]; /* u = C r, before */
        double zi = nv[i] + b * z[i], si = w[i] + b * s[i], pi = u0 + b * p[i];
        double qi = d[i] * si; /* q = C s */
        double wi = w[i] - a * zi, ri = r[i] - a * si;
        double ui = d[i] * ri; /* u = C r, after */
        xx += x[i] * x[i];
        uu += u0 * u0;
        ww += w[i] * w[i];
        x[i] += a * pi;
        z[i] = zi;
        s[i] = si;
        p[i] = pi;
        w[i] = wi;
        r[i] = ri;
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
    v[OVK__V_GAMMA] += ru;
    v[OVK__V_DELTA] += wu;
    v[OVK__V_RR] += rr;
    v[OVK__V_US] += us;
    v[OVK__V_PW] += pw;
    v[OVK__V_PS] += ps;
    v[OVK__V_XX] += xx;
    v[OVK__V_PP] += pp;
    v[OVK__V_SS] += ss;
    v[OVK__V_UU] += uu;
    v[OVK__V_WW] += ww;
    v[OVK__V_QQ] += qq;
    v[OVK__V_ZZ] += zz;
}

/* pipecg: the six recurrences, u and q from d, and the sums in one pass */
void ovk__pipecg_update(int n, double a, double b, const ovk__pipe_vecs *vv, double *v,
                        const ovk__hook *h)
{
    int step = ovk__chunk_rows(n, h);
    for (int j = 0; j < OVK__V_COUNT; j++) v[j] = 0.0;
    for (int lo = 0; lo < n; lo += step) {
        int m = ovk__chunk_end(lo, step, n) - lo;
        pipecg_rows(m, a, b, vv->d + lo, vv->n + lo, vv->x + lo, vv->r + lo, vv->w + lo, vv->p + lo,
                    vv->s + lo, vv->z + lo, v);
        ovk__poke(h);
    }
}


/* rows [0, m) of ovk__pipecg_update_any, sums added to v */
static void pipecg_any_rows(int m, double a, double b, const double *restrict nv, const double *restrict mv,
                            double *restrict x, double *restrict r, double *restrict w, double *restrict p,
                            double *restrict s, double *restrict z, double *restrict u, double *restrict q,
                            double *v)
{
    double ru = 0.0, wu = 0.0, rr = 0.0, us = 0.0, pw = 0.0, ps = 0.0, xx = 0.0, pp = 0.0, ss = 0.0, uu = 0.0,
           ww = 0.0, qq = 0.0, zz = 0.0;
#pragma omp simd reduction(+ : ru, wu, rr, us, pw, ps, xx, pp, ss, uu, ww, qq, zz)
    for (int i = 0; i < m; i++) {
        double zi = nv[i] + b * z[i], qi = mv[i] + b * q[i], si = w[i] + b * s[i], pi = u[i] + b * p[i];
        double xi = x[i] + a * pi, ri = r[i] - a * si, ui = u[i] - a * qi, wi = w[i] - a * zi;
        z[i] = zi, q[i] = qi, s[i] = si, p[i] = pi, x[i] = xi, r[i] = ri, u[i] = ui, w[i] = wi;
        ru += ri * ui;
        wu += wi * ui;
        rr += ri * ri;
        us += ui * si;
        pw += pi * wi;
        ps += pi * si;
        xx += xi * xi;
        pp += pi * pi;
        ss += si * si;
        uu += ui * ui;
        ww += wi * wi;
        qq += qi * qi;
        zz += zi * zi;
    }
    v[OVK__V_GAMMA] += ru;
    v[OVK__V_DELTA] += wu;
    v[OVK__V_RR] += rr;
    v[OVK__V_US] += us;
    v[OVK__V_PW] += pw;
    v[OVK__V_PS] += ps;
    v[OVK__V_XX] += xx;
    v[OVK__V_PP] += pp;
    v[OVK__V_SS] += ss;
    v[OVK__V_UU] += uu;
    v[OVK__V_WW] += ww;
    v[OVK__V_QQ] += qq;
    v[OVK__V_ZZ] += zz;
}

/* pipecg with any C: the paper's eight recurrences and the sums in one pass */
void ovk__pipecg_update_any(int n, double a, double b, const ovk__pipe_vecs *vv, double *v, const ovk__hook *h)
{
    int step = ovk__chunk_rows(n, h);
    for (int j = 0; j < OVK__V_COUNT; j++) v[j] = 0.0;
    for (int lo = 0; lo < n; lo += step) {
        int m = ovk__chunk_end(lo, step, n) - lo;
        pipecg_any_rows(m, a, b, vv->n + lo, vv->m + lo, vv->x + lo, vv->r + lo, vv->w + lo, vv->p + lo,
                        vv->s + lo, vv->z + lo, vv->u + lo, vv->q + lo, v);
        ovk__poke(h);
    }
}

/* The solvers' fused kernels, in one room: every update and local sum of a
 * step in one pass over the vectors, in chunks that call the progress hook
 * (alg1 with DiagScale, cg1 and pipecg with a diagonal preconditioner,
 * groppcg, pipeprcg).  What each computes: fused.h. */
#include "fused.h"

/* cg1: p = u + b p; s = w + b s; x += a p; r -= a s; u = d .* r, with
 * <r,u>, <r,r> of the new vectors and the squared norms for the gap
 * estimate, in one pass (the sums in vector lanes, as in pipecg_rows). */
void ovk__cg1_update(int n, double a, double b, const double *restrict d, const double *restrict w,
                     double *restrict u, double *restrict p, double *restrict s, double *restrict x,
                     double *restrict r, double *v, const ovk__hook *h)
{
    int step = ovk__chunk_rows(n, h);
    double ru = 0.0, rr = 0.0, us = 0.0, ps = 0.0, xx = 0.0, pp = 0.0, ss = 0.0, uu = 0.0, ww = 0.0;
    for (int lo = 0; lo < n; lo += step) {
        int hi = ovk__chunk_end(lo, step, n);
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
        ovk__poke(h);
    }
    v[OVK__V_GAMMA] = ru;
    v[OVK__V_RR] = rr;
    v[OVK__V_US] = us;
    v[OVK__V_PS] = ps;
    v[OVK__V_XX] = xx;
    v[OVK__V_PP] = pp;
    v[OVK__V_SS] = ss;
    v[OVK__V_UU] = uu;
    v[OVK__V_WW] = ww;
}

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

/* alg1: the update of x and r, DiagScale and its two sums in one pass */
void ovk__alg1_update(int n, double a, const double *restrict p, double *restrict x, double *restrict s,
                      double *restrict r, const double *restrict diag, double *rs, double *rr, const ovk__hook *h)
{
    int step = ovk__chunk_rows(n, h);
    double sum_rs = 0.0, sum_rr = 0.0;
    for (int lo = 0; lo < n; lo += step) {
        int hi = ovk__chunk_end(lo, step, n);
        for (int i = lo; i < hi; i++) {
            x[i] += a * p[i];
            double ri = r[i] - a * s[i], si = ri / diag[i]; /* r -= a s; s = r ./ diag */
            r[i] = ri;
            s[i] = si;
            sum_rs += ri * si;
            sum_rr += ri * ri;
        }
        ovk__poke(h);
    }
    *rs = sum_rs;
    *rr = sum_rr;
}

/* groppcg: x += a p; r -= a s; z -= a S, with the local <r,z>, <r,r>. */
void ovk__gropp_update(int n, double a, const double *restrict p, const double *restrict s,
                   const double *restrict S, double *restrict x, double *restrict r, double *restrict z,
                   double v[2], const ovk__hook *h)
{
    int step = ovk__chunk_rows(n, h);
    double rz = 0.0, rr = 0.0;
    for (int lo = 0; lo < n; lo += step) {
        int hi = ovk__chunk_end(lo, step, n);
#pragma omp simd reduction(+ : rz, rr)
        for (int i = lo; i < hi; i++) {
            x[i] += a * p[i];
            r[i] -= a * s[i];
            z[i] -= a * S[i];
            rz += r[i] * z[i];
            rr += r[i] * r[i];
        }
        ovk__poke(h);
    }
    v[0] = rz;
    v[1] = rr;
}

/* pipeprcg: the one pass of a step (pipeprcg.c), with the local sums. */
void ovk__prcg_update(int n, double a, double b, const ovk__prcg_vecs *vv, double *v, const ovk__hook *h)
{
    double *restrict x = vv->x, *restrict r = vv->r, *restrict rt = vv->rt, *restrict ww = vv->w;
    double *restrict wt = vv->wt, *restrict p = vv->p, *restrict s = vv->s, *restrict st = vv->st;
    const double *restrict u = vv->u, *restrict ut = vv->ut;
    int step = ovk__chunk_rows(n, h);
    double nu = 0.0, mu = 0.0, de = 0.0, ga = 0.0, rr = 0.0;
    for (int lo = 0; lo < n; lo += step) {
        int hi = ovk__chunk_end(lo, step, n);
#pragma omp simd reduction(+ : nu, mu, de, ga, rr)
        for (int i = lo; i < hi; i++) {
            x[i] += a * p[i];
            double ri = r[i] - a * s[i], rti = rt[i] - a * st[i];
            double wi = ww[i] - a * u[i], wti = wt[i] - a * ut[i];
            double pi = rti + b * p[i], si = wi + b * s[i], sti = wti + b * st[i];
            r[i] = ri;
            rt[i] = rti;
            ww[i] = wi;
            wt[i] = wti;
            p[i] = pi;
            s[i] = si;
            st[i] = sti;
            nu += rti * ri;
            mu += pi * si;
            de += rti * si;
            ga += sti * si;
            rr += ri * ri;
        }
        ovk__poke(h);
    }
    v[OVK__PR_NU] = nu;
    v[OVK__PR_MU] = mu;
    v[OVK__PR_DELTA] = de;
    v[OVK__PR_GAMMA] = ga;
    v[OVK__PR_RR] = rr;
}

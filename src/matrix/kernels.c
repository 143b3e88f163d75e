/* Local vector kernels used by the solvers.  Each runs in chunks of
 * hook->every rows and calls the progress hook after each chunk, so that
 * reductions in flight progress while the kernel streams through memory.
 * Fused kernels compute several updates and local dot products in one pass. */
#include "../internal.h"

static int chunk_of(int n, const ovk__hook *h)
{
    if (h && h->fn && h->every > 0) return h->every;
    return n > 0 ? n : 1;
}

static void poke(const ovk__hook *h)
{
    if (h && h->fn) h->fn(h->arg);
}

static int end_of(int lo, int step, int n) { return n - lo > step ? lo + step : n; }

double ovk__dot(int n, const double *restrict x, const double *restrict y)
{
    double s = 0.0;
    for (int i = 0; i < n; i++) s += x[i] * y[i];
    return s;
}

/* y += a x */
void ovk__axpy(int n, double a, const double *restrict x, double *restrict y, const ovk__hook *h)
{
    int step = chunk_of(n, h);
    for (int lo = 0; lo < n; lo += step) {
        int hi = end_of(lo, step, n);
        for (int i = lo; i < hi; i++) y[i] += a * x[i];
        poke(h);
    }
}

/* y = x + b y */
void ovk__xpay(int n, const double *restrict x, double b, double *restrict y, const ovk__hook *h)
{
    int step = chunk_of(n, h);
    for (int lo = 0; lo < n; lo += step) {
        int hi = end_of(lo, step, n);
        for (int i = lo; i < hi; i++) y[i] = x[i] + b * y[i];
        poke(h);
    }
}

/* z = x + b y */
void ovk__zxpby(int n, const double *restrict x, double b, const double *restrict y, double *restrict z,
                const ovk__hook *h)
{
    int step = chunk_of(n, h);
    for (int lo = 0; lo < n; lo += step) {
        int hi = end_of(lo, step, n);
        for (int i = lo; i < hi; i++) z[i] = x[i] + b * y[i];
        poke(h);
    }
}

/* x += a p; r -= a s (one pass) */
void ovk__axpy2(int n, double a, const double *restrict p, double *restrict x,
                const double *restrict s, double *restrict r, const ovk__hook *h)
{
    int step = chunk_of(n, h);
    for (int lo = 0; lo < n; lo += step) {
        int hi = end_of(lo, step, n);
        for (int i = lo; i < hi; i++) {
            x[i] += a * p[i];
            r[i] -= a * s[i];
        }
        poke(h);
    }
}

/* y = d .* x */
void ovk__mul(int n, const double *restrict d, const double *restrict x, double *restrict y,
              const ovk__hook *h)
{
    int step = chunk_of(n, h);
    for (int lo = 0; lo < n; lo += step) {
        int hi = end_of(lo, step, n);
        for (int i = lo; i < hi; i++) y[i] = d[i] * x[i];
        poke(h);
    }
}

/* y = d .* x; *yy = <y, y> (local) */
void ovk__mul_dot(int n, const double *restrict d, const double *restrict x, double *restrict y,
                  double *yy, const ovk__hook *h)
{
    int step = chunk_of(n, h);
    double s = 0.0;
    for (int lo = 0; lo < n; lo += step) {
        int hi = end_of(lo, step, n);
        for (int i = lo; i < hi; i++) {
            y[i] = d[i] * x[i];
            s += y[i] * y[i];
        }
        poke(h);
    }
    *yy = s;
}

/* y += a x; *yy = <y, y> (local) */
void ovk__axpy_dot(int n, double a, const double *restrict x, double *restrict y, double *yy,
                   const ovk__hook *h)
{
    int step = chunk_of(n, h);
    double s = 0.0;
    for (int lo = 0; lo < n; lo += step) {
        int hi = end_of(lo, step, n);
        for (int i = lo; i < hi; i++) {
            y[i] += a * x[i];
            s += y[i] * y[i];
        }
        poke(h);
    }
    *yy = s;
}

/* <x, y> in LANES interleaved partial sums, which the compiler turns into
 * packed SIMD: one sequential sum is bound by the latency of its additions
 * (3-4 cycles per row, below the memory bandwidth of a core). */
static double dot_lanes(int n, const double *restrict x, const double *restrict y)
{
    enum { LANES = 4 };
    double acc[LANES] = {0.0, 0.0, 0.0, 0.0};
    int i = 0;
    for (; i + LANES <= n; i += LANES)
        for (int l = 0; l < LANES; l++) acc[l] += x[i + l] * y[i + l];
    for (; i < n; i++) acc[0] += x[i] * y[i];
    return (acc[0] + acc[1]) + (acc[2] + acc[3]);
}

/* out[j] = <x[j], y[j]> (local), j < k: the rows are taken in chunks that
 * stay in cache while every pair is summed over them, so memory is read
 * once. */
void ovk__dots(int n, int k, const double *const *x, const double *const *y, double *out,
               const ovk__hook *h)
{
    enum { CACHE_ROWS = 2048 };
    int every = chunk_of(n, h), step = every < CACHE_ROWS ? every : CACHE_ROWS;
    for (int j = 0; j < k; j++) out[j] = 0.0;
    for (int lo = 0, since = 0; lo < n; lo += step) {
        int hi = end_of(lo, step, n);
        for (int j = 0; j < k; j++) out[j] += dot_lanes(hi - lo, x[j] + lo, y[j] + lo);
        since += hi - lo;
        if (since >= every || hi == n) {
            poke(h);
            since = 0;
        }
    }
}

/* cg1: p = u + b p; s = w + b s; x += a p; r -= a s; u = d .* r, with
 * <r,u>, <r,r> of the new vectors and the squared norms for the gap
 * estimate, in one pass (the sums in vector lanes, as in pipecg_rows). */
void ovk__cg1_update(int n, double a, double b, const double *restrict d, const double *restrict w,
                     double *restrict u, double *restrict p, double *restrict s, double *restrict x,
                     double *restrict r, double *v, const ovk__hook *h)
{
    int step = chunk_of(n, h);
    double ru = 0.0, rr = 0.0, us = 0.0, ps = 0.0, xx = 0.0, pp = 0.0, ss = 0.0, uu = 0.0, ww = 0.0;
    for (int lo = 0; lo < n; lo += step) {
        int hi = end_of(lo, step, n);
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
        poke(h);
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
    int step = chunk_of(n, h);
    for (int j = 0; j < OVK__V_COUNT; j++) v[j] = 0.0;
    for (int lo = 0; lo < n; lo += step) {
        int m = end_of(lo, step, n) - lo;
        pipecg_rows(m, a, b, vv->d + lo, vv->n + lo, vv->x + lo, vv->r + lo, vv->w + lo, vv->p + lo,
                    vv->s + lo, vv->z + lo, v);
        poke(h);
    }
}

/* pipecg's fused kernel (declared in fused.h): every update and local sum of a
 * step in one pass over the vectors, in chunks that call the progress hook. */
#include "fused.h"

/* rows [0, m) of the pass, sums added to v.  diag: u = C r and q = C s
 * formed from d (u and q neither read nor written, <x,x>, <u,u>, <w,w> of
 * the vectors before); else u and q carried by their recurrences (the
 * sums of the new vectors).  Restrict parameters and the simd reduction let
 * the compiler keep each sum in vector lanes: thirteen scalar running sums
 * bind the pass to their additions, at a fraction of the memory bandwidth.
 * The lanes fix the order of the additions for a given build, so a rank's
 * sums are reproducible.  Inlined with diag a constant (diag_rows,
 * any_rows), the branches on it fold away: one loop for each kind of C. */
static inline OVK__ALWAYS_INLINE void pipecg_rows(int m, double a, double b, int diag, const double *restrict d,
                                                  const double *restrict nv, const double *restrict mv,
                                                  double *restrict x, double *restrict r, double *restrict w,
                                                  double *restrict p, double *restrict s, double *restrict z,
                                                  double *restrict u, double *restrict q, double *v)
{
    double ru = 0.0, wu = 0.0, rr = 0.0, us = 0.0, pw = 0.0, ps = 0.0, xx = 0.0, pp = 0.0, ss = 0.0, uu = 0.0,
           ww = 0.0, qq = 0.0, zz = 0.0;
#pragma omp simd reduction(+ : ru, wu, rr, us, pw, ps, xx, pp, ss, uu, ww, qq, zz)
    for (int i = 0; i < m; i++) {
        double u0 = diag ? d[i] * r[i] : u[i]; /* u = C r, before */
        double zi = nv[i] + b * z[i], si = w[i] + b * s[i], pi = u0 + b * p[i];
        double qi = diag ? d[i] * si : mv[i] + b * q[i]; /* q = C s */
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

/* the two kinds of C, each a function of its own: its restrict parameters
 * tell the compiler that the vectors are distinct (with the body inlined
 * into the pass instead, pipecg with any C ran 8% slower) */
static void diag_rows(int m, double a, double b, const double *restrict d, const double *restrict nv,
                      double *restrict x, double *restrict r, double *restrict w, double *restrict p,
                      double *restrict s, double *restrict z, double *v)
{
    pipecg_rows(m, a, b, 1, d, nv, NULL, x, r, w, p, s, z, NULL, NULL, v);
}

static void any_rows(int m, double a, double b, const double *restrict nv, const double *restrict mv,
                     double *restrict x, double *restrict r, double *restrict w, double *restrict p,
                     double *restrict s, double *restrict z, double *restrict u, double *restrict q, double *v)
{
    pipecg_rows(m, a, b, 0, NULL, nv, mv, x, r, w, p, s, z, u, q, v);
}

/* the pass over rows [0, n) in chunks that poke the hook; diag as above */
static void pipecg_pass(int n, double a, double b, const ovk__pipe_vecs *vv, double *v, const ovk__hook *h, int diag)
{
    int step = ovk__chunk_rows(n, h);
    for (int j = 0; j < OVK__V_COUNT; j++) v[j] = 0.0;
    for (int lo = 0; lo < n; lo += step) {
        int m = ovk__chunk_end(lo, step, n) - lo;
        if (diag)
            diag_rows(m, a, b, vv->d + lo, vv->n + lo, vv->x + lo, vv->r + lo, vv->w + lo, vv->p + lo, vv->s + lo,
                      vv->z + lo, v);
        else
            any_rows(m, a, b, vv->n + lo, vv->m + lo, vv->x + lo, vv->r + lo, vv->w + lo, vv->p + lo, vv->s + lo,
                     vv->z + lo, vv->u + lo, vv->q + lo, v);
        ovk__poke(h);
    }
}

/* pipecg with a diagonal C: the six recurrences, u and q from d */
void ovk__pipecg_update(int n, double a, double b, const ovk__pipe_vecs *vv, double *v, const ovk__hook *h)
{
    pipecg_pass(n, a, b, vv, v, h, 1);
}

/* pipecg with any C: the paper's eight recurrences */
void ovk__pipecg_update_any(int n, double a, double b, const ovk__pipe_vecs *vv, double *v, const ovk__hook *h)
{
    pipecg_pass(n, a, b, vv, v, h, 0);
}

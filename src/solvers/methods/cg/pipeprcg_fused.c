/* pipeprcg's fused kernel (declared in fused.h): every update and local sum of a
 * step in one pass over the vectors, in chunks that call the progress hook. */
#include "fused.h"

/* pipeprcg: the one pass of a step (pipeprcg.c), with the local sums. */
void ovk__prcg_update(int n, double a, double b, const ovk__prcg_vecs *vv, double *v, const ovk__hook *h)
{
    double *restrict x = vv->x, *restrict r = vv->r, *restrict rt = vv->rt, *restrict ww = vv->w;
    double *restrict wt = vv->wt, *restrict p = vv->p, *restrict s = vv->s, *restrict st = vv->st;
    const double *restrict u = vv->u, *restrict ut = vv->ut;
    double nu = 0.0, mu = 0.0, de = 0.0, ga = 0.0, rr = 0.0;
    OVK__CHUNKS(n, h, lo, hi) {
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
    }
    static const int slot[] = {OVK__PR_NU, OVK__PR_MU, OVK__PR_DELTA, OVK__PR_GAMMA, OVK__PR_RR};
    ovk__sums_store(v, OVK__PR_COUNT, slot, (const double[]){nu, mu, de, ga, rr});
}

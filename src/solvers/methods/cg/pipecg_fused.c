/* pipecg's fused kernel (declared in fused.h): every update and local sum of a
 * step in one pass over the vectors, in chunks that call the progress hook. */
#include "fused.h"
#include "pipecg_rows.h"

/* the two kinds of C, each a function of its own: its restrict parameters
 * tell the compiler that the vectors are distinct (with the body inlined
 * into the pass instead, pipecg with any C ran 8% slower) */
static void diag_rows(int m, double a, double b, const double *restrict d, const double *restrict nv,
                      double *restrict x, double *restrict r, double *restrict w, double *restrict p,
                      double *restrict s, double *restrict z, double *v)
{
    ovk__pipecg_rows(m, a, b, 1, d, nv, NULL, NULL, x, r, w, p, s, z, NULL, NULL, v);
}

static void any_rows(int m, double a, double b, const double *restrict nv, const double *restrict mv,
                     double *restrict x, double *restrict r, double *restrict w, double *restrict p,
                     double *restrict s, double *restrict z, double *restrict u, double *restrict q, double *v)
{
    ovk__pipecg_rows(m, a, b, 0, NULL, nv, mv, NULL, x, r, w, p, s, z, u, q, v);
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


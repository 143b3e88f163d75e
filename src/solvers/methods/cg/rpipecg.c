/* Recycled pipelined PCG: pipecg (Ghysels and Vanroose) deflated by the
 * space the solver keeps across solves (engine/recycle.c; Saad, Yeung,
 * Erhel and Guyomarc'h's deflated CG), the space built eigCG-style from
 * the CG coefficients (Stathopoulos and Orginos).  With W, A W, C A W and
 * A C A W kept, the deflation's k sums g = W^T w ride the step's one
 * reduction, in flight behind m = C w, n = A m like pipecg's:
 *
 *   mu = E^-1 g,  delta^ = delta - mu^T g   (E = W^T A W, factored at the start)
 *   beta = gamma / gamma_old,  alpha = gamma / (delta^ - beta gamma / alpha_old)
 *   p = u - W mu + beta p;  s = w - A W mu + beta s
 *   q = m - C A W mu + beta q;  z = n - A C A W mu + beta z
 *   x += alpha p;  r -= alpha s;  u -= alpha q;  w -= alpha z
 *   gamma = <r,u>, delta = <w,u>, <r,r>, g = W^T w  -> start the reduction
 *   m = C w;  n = A m                                                 (overlap)
 *
 * so that p stays A-orthogonal to W.  The solve starts with r projected
 * (x += W E^-1 W^T r: one reduction); in a solve that collects (recycle.c:
 * until the space is full, and after a slower solve) each step's
 * u / sqrt(gamma) and coefficients feed the eigCG window (no product, no
 * reduction; a full window's thick restart runs while the step's reduction
 * is in flight), from which the solve's end makes the space again.  With a
 * diagonal C the pass forms u = d .* r and q = d .* s as pipecg's does
 * (C A W mu = d .* A W mu), and keeps neither, and it stores the next
 * m = d .* w (no pass of its own: the overlap is n = A m alone).  The decisions
 * are pipecg's (single_reduction.c: the residual replacement, the
 * true-residual exit test, the restart after a loss of positivity) on
 * delta^ in place of delta: <p,Ap> = delta^ + beta (<u,s> + <p,w>) +
 * beta^2 <p,s> holds as W^T s = W^T A p = 0.  A restart projects again and
 * ends the window's Lanczos sequence for the solve.  With recycle=0 it is
 * pipecg with the paper's recurrences for any C. */
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "../../solver.h"
#include "fused.h"
#include "pipecg_rows.h"

typedef struct rp_work {
    double *r, *u, *w, *m, *nv, *p, *s, *q, *z;
    double *x;
    int k;                /* the dimension this solve deflates */
    int started;          /* the first refresh is done (a later restart ends the window) */
    double mm;            /* <m,m> of the latest m = C w */
    ovk__eigwin win;
    double alpha_old;     /* the previous step's alpha (the window's T) */
    double sums[OVK__V_COUNT + OVK__RECYCLE_MAX]; /* reduced values, OVK__V_* slots, then g = W^T w */
    double mu[OVK__RECYCLE_MAX];
} rp_work;

enum { ROWS = 256 };

/* after a reduction: mu = E^-1 g and delta^ = delta - mu^T g in place of delta */
static void deflate_values(ovk__ctx *c, rp_work *w)
{
    const double *g = w->sums + OVK__V_COUNT;
    ovk__recycle_solve(&c->recycle, w->k, g, w->mu);
    for (int j = 0; j < w->k; j++) w->sums[OVK__V_DELTA] -= w->mu[j] * g[j];
}

/* the sums of a chunk of the vectors as they are, added to v (OVK__V_*
 * order but m's), then W^T w */
static void chunk_sums(const rp_work *w, const ovk__recycle *sp, int i0, int len, double *v)
{
    const double *restrict r = w->r + i0, *restrict u = w->u + i0, *restrict wv = w->w + i0;
    const double *restrict p = w->p + i0, *restrict s = w->s + i0, *restrict x = w->x + i0;
    const double *restrict q = w->q + i0, *restrict z = w->z + i0;
    double ru = 0.0, wu = 0.0, rr = 0.0, us = 0.0, pw = 0.0, ps = 0.0, xx = 0.0, pp = 0.0, ss = 0.0, uu = 0.0,
           ww = 0.0, qq = 0.0, zz = 0.0;
#pragma omp simd reduction(+ : ru, wu, rr, us, pw, ps, xx, pp, ss, uu, ww, qq, zz)
    for (int i = 0; i < len; i++) {
        ru += r[i] * u[i];
        wu += wv[i] * u[i];
        rr += r[i] * r[i];
        us += u[i] * s[i];
        pw += p[i] * wv[i];
        ps += p[i] * s[i];
        xx += x[i] * x[i];
        pp += p[i] * p[i];
        ss += s[i] * s[i];
        uu += u[i] * u[i];
        ww += wv[i] * wv[i];
        qq += q[i] * q[i];
        zz += z[i] * z[i];
    }
    double t[OVK__V_MM] = {[OVK__V_GAMMA] = ru, [OVK__V_DELTA] = wu, [OVK__V_RR] = rr, [OVK__V_US] = us,
                           [OVK__V_PW] = pw, [OVK__V_PS] = ps, [OVK__V_XX] = xx, [OVK__V_PP] = pp,
                           [OVK__V_SS] = ss, [OVK__V_UU] = uu, [OVK__V_WW] = ww, [OVK__V_QQ] = qq,
                           [OVK__V_ZZ] = zz};
    for (int i = 0; i < OVK__V_MM; i++) v[i] += t[i];
    ovk__recycle_dots(wv, sp->W, w->k, i0, len, v + OVK__V_COUNT);
}

/* the sums of the current vectors, in one pass (timed as axpy) */
static void all_sums(ovk__ctx *c, rp_work *w)
{
    ovk__tic t0 = ovk__tic_start(c);
    memset(w->sums, 0, sizeof w->sums);
    for (int i0 = 0; i0 < c->n; i0 += ROWS) chunk_sums(w, &c->recycle, i0, c->n - i0 < ROWS ? c->n - i0 : ROWS, w->sums);
    w->sums[OVK__V_MM] = w->mm;
    ovk__tic_stop(c, OVK_TIMER_AXPY, t0);
}

/* acc = sum_j mu_j X[j] (rows i0 .. i0 + len), four vectors per load and
 * store of the sum */
static inline void combine_rows(double *restrict acc, double *const *X, const double *mu, int k, int i0, int len)
{
    memset(acc, 0, sizeof(double) * (size_t)len);
    for (int j = 0; j < k; j += 4) {
        int nj = k - j < 4 ? k - j : 4;
        const double *restrict x0 = X[j] + i0, *restrict x1 = X[j + (nj > 1)] + i0;
        const double *restrict x2 = X[j + (nj > 2 ? 2 : 0)] + i0, *restrict x3 = X[j + (nj > 3 ? 3 : 0)] + i0;
        double m0 = mu[j], m1 = nj > 1 ? mu[j + 1] : 0.0, m2 = nj > 2 ? mu[j + 2] : 0.0, m3 = nj > 3 ? mu[j + 3] : 0.0;
#pragma omp simd
        for (int i = 0; i < len; i++) acc[i] += m0 * x0[i] + m1 * x1[i] + m2 * x2[i] + m3 * x3[i];
    }
}

/* One chunk's deflation combinations (element-wise: the same bits in every
 * clone): W mu, A W mu, A C A W mu and, unless C is diagonal, C A W mu */
OVK__CLONES static void combine_chunk(const rp_work *w, const ovk__recycle *sp, int diag, int i0, int len,
                                      double (*acc)[ROWS])
{
    combine_rows(acc[0], sp->W, w->mu, w->k, i0, len);
    combine_rows(acc[1], sp->AW, w->mu, w->k, i0, len);
    combine_rows(acc[2], sp->AMAW, w->mu, w->k, i0, len);
    if (!diag) combine_rows(acc[3], sp->MAW, w->mu, w->k, i0, len);
}

/* Row i of the step's recurrences with a diagonal C: u = d .* r and
 * q = d .* s formed in the pass (C A W mu = d .* A W mu), as pipecg's
 * kernel does, u and q not stored; the next m = d .* w stored (the
 * overlap's n = A m reads it: no pass of its own); the sums of the new
 * vectors added to t[slot * LANES] (<m,m> in slot OVK__V_MM) */
enum { LANES = 8 };
static inline OVK__ALWAYS_INLINE void row_diag(int i, double a, double b, const double *restrict d,
                                               const double *restrict nv, const double *restrict a0,
                                               const double *restrict a1, const double *restrict a2,
                                               double *restrict x, double *restrict r, double *restrict wv,
                                               double *restrict p, double *restrict s, double *restrict z,
                                               double *restrict mv, double *t)
{
    double zi = nv[i] - a2[i] + b * z[i], si = wv[i] - a1[i] + b * s[i];
    double pi = d[i] * r[i] - a0[i] + b * p[i];
    double xi = x[i] + a * pi, ri = r[i] - a * si, wi = wv[i] - a * zi;
    double ui = d[i] * ri, qi = d[i] * si, mi = d[i] * wi;
    z[i] = zi, s[i] = si, p[i] = pi, x[i] = xi, r[i] = ri, wv[i] = wi, mv[i] = mi;
    t[OVK__V_GAMMA * LANES] += ri * ui;
    t[OVK__V_DELTA * LANES] += wi * ui;
    t[OVK__V_RR * LANES] += ri * ri;
    t[OVK__V_US * LANES] += ui * si;
    t[OVK__V_PW * LANES] += pi * wi;
    t[OVK__V_PS * LANES] += pi * si;
    t[OVK__V_XX * LANES] += xi * xi;
    t[OVK__V_PP * LANES] += pi * pi;
    t[OVK__V_SS * LANES] += si * si;
    t[OVK__V_UU * LANES] += ui * ui;
    t[OVK__V_WW * LANES] += wi * wi;
    t[OVK__V_QQ * LANES] += qi * qi;
    t[OVK__V_ZZ * LANES] += zi * zi;
    t[OVK__V_MM * LANES] += mi * mi;
}

/* One chunk of the step's recurrences with a diagonal C, and the sums of
 * the new vectors (<m,m> to *mm, the others to v).  Row i's terms go to
 * sum lane i mod LANES, the lanes added in order at the end: the same
 * additions in the same order in every clone (element-wise), so that the
 * wide clones give the baseline's bits. */
OVK__CLONES static void rows_diag(int len, double a, double b, const double *restrict d, const double *restrict nv,
                                  const double *restrict a0, const double *restrict a1, const double *restrict a2,
                                  double *restrict x, double *restrict r, double *restrict wv, double *restrict p,
                                  double *restrict s, double *restrict z, double *restrict mv, double *v, double *mm)
{
    double t[OVK__V_COUNT * LANES] = {0};
    int i0 = 0;
    for (; i0 + LANES <= len; i0 += LANES) {
#pragma omp simd
        for (int l = 0; l < LANES; l++) row_diag(i0 + l, a, b, d, nv, a0, a1, a2, x, r, wv, p, s, z, mv, t + l);
    }
    for (int l = 0; i0 + l < len; l++) row_diag(i0 + l, a, b, d, nv, a0, a1, a2, x, r, wv, p, s, z, mv, t + l);
    for (int j = 0; j <= OVK__V_MM; j++) {
        double sum = 0.0;
        for (int l = 0; l < LANES; l++) sum += t[j * LANES + l];
        if (j < OVK__V_MM) v[j] += sum;
        else *mm += sum;
    }
}

/* the step's updates and the sums of the new vectors in one pass, chunk by
 * chunk: the window's Lanczos vector u / sqrt(gamma) before u changes, the
 * deflation's combinations, the recurrences (with a diagonal C, the next
 * m = C w too), then W^T w of the chunk.  sums[OVK__V_MM] is <m,m> of the
 * m the update read through n = A m. */
static void update(ovk__ctx *c, rp_work *w, double a, double b, double *lv, double scale)
{
    const ovk__recycle *sp = &c->recycle;
    const double *d = ovk__ctx_pc_diagonal(c);
    double acc[4][ROWS], mm = 0.0;
    ovk__tic t0 = ovk__tic_start(c);
    memset(w->sums, 0, sizeof w->sums);
    for (int i0 = 0; i0 < c->n; i0 += ROWS) {
        int len = c->n - i0 < ROWS ? c->n - i0 : ROWS;
        if (lv) {
            double *restrict l = lv + i0;
            const double *restrict u = w->u + i0, *restrict r = w->r + i0, *restrict dd = d ? d + i0 : NULL;
            if (dd)
                for (int i = 0; i < len; i++) l[i] = scale * (dd[i] * r[i]);
            else
                for (int i = 0; i < len; i++) l[i] = scale * u[i];
        }
        combine_chunk(w, sp, d != NULL, i0, len, acc);
        if (d)
            rows_diag(len, a, b, d + i0, w->nv + i0, acc[0], acc[1], acc[2], w->x + i0, w->r + i0, w->w + i0,
                      w->p + i0, w->s + i0, w->z + i0, w->m + i0, w->sums, &mm);
        else
            ovk__pipecg_rows(len, a, b, 0, NULL, w->nv + i0, w->m + i0,
                             (const double *const[]){acc[0], acc[1], acc[2], acc[3]}, w->x + i0,
                             w->r + i0, w->w + i0, w->p + i0, w->s + i0, w->z + i0, w->u + i0, w->q + i0,
                             w->sums);
        ovk__recycle_dots(w->w + i0, sp->W, w->k, i0, len, w->sums + OVK__V_COUNT);
    }
    w->sums[OVK__V_MM] = w->mm;
    if (d) w->mm = mm; /* of the m = C w just formed */
    ovk__tic_stop(c, OVK_TIMER_AXPY, t0);
}

/* m = C w and <m,m> (one pass with a diagonal C, as pipecg's); n = A m */
static int precond_matvec(ovk__ctx *c, rp_work *w)
{
    const double *d = ovk__ctx_pc_diagonal(c);
    ovk__tic t0;
    if (d) {
        t0 = ovk__tic_start(c);
        ovk__mul_dot(c->n, d, w->w, w->m, &w->mm, NULL); /* not poked: n = A m runs with the reduction posted */
        ovk__tic_stop(c, OVK_TIMER_PRECOND, t0);
    } else {
        int rc = ovk__ctx_pc(c, w->w, w->m); /* m = C w */
        if (rc) return rc;
        t0 = ovk__tic_start(c);
        w->mm = ovk__dot(c->n, w->m, w->m);
        ovk__tic_stop(c, OVK_TIMER_PRECOND, t0);
    }
    return ovk__ctx_matvec(c, w->m, w->nv); /* n = A m */
}

/* The first refresh and a restart: r = b - A x (unless r_ready) projected
 * on W's complement, u = C r, w = A u, the directions zero; a replacement:
 * r, u, w recomputed, s = A p, q = C s, z = A q from the kept p.  Then m, n
 * and the sums, one blocking reduction. */
static int refresh_from(ovk__ctx *c, rp_work *w, int restart, int r_ready)
{
    int rc = r_ready ? OVK_OK : ovk__ctx_residual(c, w->r); /* r = b - A x */
    if (rc) return rc;
    if (restart) {
        if (w->started) w->win.open = 0; /* the window's Lanczos sequence ends here */
        else w->win.open = ovk__recycle_collect(c);
        w->started = 1;
        rc = ovk__recycle_project(c, w->r, &w->k);
        if (rc) return rc;
    }
    rc = ovk__restart_vectors(c, 1, w->r, w->u, w->w); /* u = C r, w = A u */
    if (rc) return rc;
    if (restart) {
        double *zero[] = {w->p, w->s, w->q, w->z};
        for (int i = 0; i < 4; i++) memset(zero[i], 0, sizeof(double) * (size_t)c->n);
    } else {
        rc = ovk__ctx_matvec(c, w->p, w->s); /* s = A p */
        if (!rc) rc = ovk__ctx_pc(c, w->s, w->q); /* q = C s */
        if (!rc) rc = ovk__ctx_matvec(c, w->q, w->z); /* z = A q */
        if (rc) return rc;
    }
    rc = precond_matvec(c, w);
    if (rc) return rc;
    all_sums(c, w);
    rc = ovk__sum(c, OVK__IPROD, w->sums, OVK__V_COUNT + w->k);
    if (rc) return rc;
    deflate_values(c, w);
    return OVK_OK;
}

static int refresh(ovk__ctx *c, void *work, int restart) { return refresh_from(c, work, restart, 0); }

static int start(ovk__ctx *c, void *work) { return refresh_from(c, work, 1, 1); }

/* One step: the updates, the window's Lanczos vector u / sqrt(gamma) in
 * their pass (T's column from alpha, beta), then the reduction in flight
 * behind the next m = C w (unless the pass made it), n = A m (skipped
 * when no further step can follow) and a full window's thick restart. */
static int step(ovk__ctx *c, void *work, const ovk__single_reduction *st, int more)
{
    rp_work *w = work;
    ovk_request *req = NULL;
    int first = st->beta == 0.0 || w->alpha_old == 0.0;
    double scale = 0.0;
    double *lv = ovk__eigwin_next(&w->win, st->gamma_old, 1.0 / st->alpha + (first ? 0.0 : st->beta / w->alpha_old),
                                  first ? 0.0 : -sqrt(st->beta) / w->alpha_old, &scale);
    w->alpha_old = st->alpha;
    update(c, w, st->alpha, st->beta, lv, scale);
    int rc = ovk__sum_begin(c, OVK__IPROD, w->sums, OVK__V_COUNT + w->k, &req);
    if (rc) return rc;
    if (more) rc = ovk__ctx_pc_diagonal(c) ? ovk__ctx_matvec(c, w->m, w->nv) : precond_matvec(c, w); /* n = A m */
    if (!rc) ovk__eigwin_compress(c, &w->win); /* in flight too */
    rc = ovk__sum_finish(c, OVK__IPROD, req, rc);
    if (!rc) deflate_values(c, w);
    return rc;
}

static int iterate(ovk__ctx *c, void *work, double bb)
{
    static const ovk__single_reduction_ops ops = {.pipelined = 1, .refresh = refresh, .start = start, .step = step};
    rp_work *w = work;
    w->x = c->x;
    w->k = 0;
    w->started = 0;
    w->alpha_old = 0.0;
    w->win.cnt = 0;
    w->win.open = 0; /* set at the start (ovk__recycle_collect) */
    int rc = ovk__single_reduction_run(c, &ops, w, w->r, w->sums, bb);
    if (!rc && (c->res->reason == OVK_REASON_CONVERGED || c->res->reason == OVK_REASON_MAXIT))
        rc = ovk__recycle_update(c, &w->win);
    return rc;
}

static int setup(ovk__ctx *c, void *work)
{
    rp_work *w = work;
    int rc = ovk__recycle_reserve(c, 1);
    if (rc) return rc;
    return ovk__eigwin_alloc(&w->win, c->n, c->recycle.want);
}

static void destroy(void *work)
{
    rp_work *w = work;
    ovk__eigwin_free(&w->win);
}

#define V(f) offsetof(rp_work, f)
const ovk__solver_ops ovk__solver_rpipecg = {
    .needs_norm = 1, .caps = OVK__CAP_RECYCLES | OVK__CAP_CONDEST,
    OVK__WORK_VECTORS(rp_work, V(r), V(u), V(w), V(m), V(nv), V(p), V(s), V(q), V(z)),
    .setup = setup, .iterate = iterate, .destroy = destroy,
};

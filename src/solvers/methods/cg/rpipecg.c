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
 * (x += W E^-1 W^T r: one reduction); each step's u / sqrt(gamma) and
 * coefficients feed the eigCG window (no product, no reduction; a full
 * window's thick restart runs while the step's reduction is in flight), from
 * which the solve's end makes the space again (recycle.c).  The decisions
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

/* the sums of a chunk of the vectors, added to v (OVK__V_* order but m's) */
static void chunk_sums(const rp_work *w, const ovk__recycle *sp, int i0, int len, double *v)
{
    const double *r = w->r + i0, *u = w->u + i0, *wv = w->w + i0, *p = w->p + i0, *s = w->s + i0;
    const double *x = w->x + i0, *q = w->q + i0, *z = w->z + i0;
    double t[OVK__V_MM] = {0};
    for (int i = 0; i < len; i++) {
        t[OVK__V_GAMMA] += r[i] * u[i];
        t[OVK__V_DELTA] += wv[i] * u[i];
        t[OVK__V_RR] += r[i] * r[i];
        t[OVK__V_US] += u[i] * s[i];
        t[OVK__V_PW] += p[i] * wv[i];
        t[OVK__V_PS] += p[i] * s[i];
        t[OVK__V_XX] += x[i] * x[i];
        t[OVK__V_PP] += p[i] * p[i];
        t[OVK__V_SS] += s[i] * s[i];
        t[OVK__V_UU] += u[i] * u[i];
        t[OVK__V_WW] += wv[i] * wv[i];
        t[OVK__V_QQ] += q[i] * q[i];
        t[OVK__V_ZZ] += z[i] * z[i];
    }
    for (int i = 0; i < OVK__V_MM; i++) v[i] += t[i];
    for (int j = 0; j < w->k; j += 4) { /* W^T w, four sums per pass over w's chunk */
        int nj = w->k - j < 4 ? w->k - j : 4;
        const double *restrict w0 = sp->W[j] + i0, *restrict w1 = sp->W[j + (nj > 1)] + i0;
        const double *restrict w2 = sp->W[j + (nj > 2 ? 2 : 0)] + i0, *restrict w3 = sp->W[j + (nj > 3 ? 3 : 0)] + i0;
        double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
#pragma omp simd reduction(+ : s0, s1, s2, s3)
        for (int i = 0; i < len; i++) {
            s0 += w0[i] * wv[i];
            s1 += w1[i] * wv[i];
            s2 += w2[i] * wv[i];
            s3 += w3[i] * wv[i];
        }
        double sj[4] = {s0, s1, s2, s3};
        for (int q = 0; q < nj; q++) v[OVK__V_COUNT + j + q] += sj[q];
    }
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

/* One chunk of the step's updates (element-wise: the same bits in every
 * clone): the deflation's combinations W mu, A W mu, A C A W mu and C A W
 * mu (d .* A W mu when C is diagonal), then the recurrences */
OVK__CLONES static void update_chunk(rp_work *w, const ovk__recycle *sp, const double *d, int i0, int len, double a,
                                     double b, double *lv, double scale)
{
    double acc[4][ROWS];
    int k = w->k;
    combine_rows(acc[0], sp->W, w->mu, k, i0, len);
    combine_rows(acc[1], sp->AW, w->mu, k, i0, len);
    combine_rows(acc[2], sp->AMAW, w->mu, k, i0, len);
    if (d) {
#pragma omp simd
        for (int i = 0; i < len; i++) acc[3][i] = d[i0 + i] * acc[1][i];
    } else {
        combine_rows(acc[3], sp->MAW, w->mu, k, i0, len);
    }
    double *restrict z = w->z + i0, *restrict q = w->q + i0, *restrict s = w->s + i0, *restrict p = w->p + i0;
    double *restrict x = w->x + i0, *restrict r = w->r + i0, *restrict u = w->u + i0, *restrict wv = w->w + i0;
    const double *restrict nv = w->nv + i0, *restrict m = w->m + i0;
    const double *restrict a0 = acc[0], *restrict a1 = acc[1], *restrict a2 = acc[2], *restrict a3 = acc[3];
    if (lv) { /* the window's Lanczos vector u / sqrt(gamma), before u changes */
        double *restrict l = lv + i0;
#pragma omp simd
        for (int i = 0; i < len; i++) l[i] = scale * u[i];
    }
#pragma omp simd
    for (int i = 0; i < len; i++) {
        z[i] = nv[i] - a2[i] + b * z[i];
        q[i] = m[i] - a3[i] + b * q[i];
        s[i] = wv[i] - a1[i] + b * s[i];
        p[i] = u[i] - a0[i] + b * p[i];
        x[i] += a * p[i];
        r[i] -= a * s[i];
        u[i] -= a * q[i];
        wv[i] -= a * z[i];
    }
}

/* the step's updates, chunk by chunk, with the local sums of the new vectors */
static void update(ovk__ctx *c, rp_work *w, double a, double b, double *lv, double scale)
{
    const ovk__recycle *sp = &c->recycle;
    const double *d = ovk__ctx_pc_diagonal(c);
    ovk__tic t0 = ovk__tic_start(c);
    memset(w->sums, 0, sizeof w->sums);
    for (int i0 = 0; i0 < c->n; i0 += ROWS) {
        int len = c->n - i0 < ROWS ? c->n - i0 : ROWS;
        update_chunk(w, sp, d, i0, len, a, b, lv, scale);
        chunk_sums(w, sp, i0, len, w->sums);
    }
    ovk__tic_stop(c, OVK_TIMER_AXPY, t0);
}

/* m = C w and <m,m>; n = A m */
static int precond_matvec(ovk__ctx *c, rp_work *w)
{
    int rc = ovk__ctx_pc(c, w->w, w->m); /* m = C w */
    if (rc) return rc;
    ovk__tic t0 = ovk__tic_start(c);
    w->mm = ovk__dot(c->n, w->m, w->m);
    ovk__tic_stop(c, OVK_TIMER_PRECOND, t0);
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
 * behind the next m = C w, n = A m (skipped when no further step can
 * follow) and a full window's thick restart. */
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
    w->sums[OVK__V_MM] = w->mm; /* of the m this update read through n = A m */
    int rc = ovk__sum_begin(c, OVK__IPROD, w->sums, OVK__V_COUNT + w->k, &req);
    if (rc) return rc;
    if (more) rc = precond_matvec(c, w);
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
    w->win.open = ovk__recycle_active(c);
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
const ovk__solver ovk__solver_rpipecg = {
    .name = "rpipecg",
    .description = "recycled pipelined PCG: pipecg deflated by a space kept across solves (option recycle=K), "
                   "built eigCG-style from earlier solves' coefficients; one reduction per iteration, in flight",
    .options = "",
    .needs_norm = 1, .caps = OVK__CAP_RECYCLES | OVK__CAP_CONDEST,
    .work_size = sizeof(rp_work), .nvec = 9,
    .vec = (const size_t[]){V(r), V(u), V(w), V(m), V(nv), V(p), V(s), V(q), V(z)},
    .setup = setup, .iterate = iterate, .destroy = destroy,
};

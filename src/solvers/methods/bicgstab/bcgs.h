/* What the BiCGStab variants (bicgstab.c, pipebicgstab.c) share: the
 * restart after a breakdown, the convergence test confirmed on the true
 * residual, and an honest residual when the iteration limit stops them
 * (bcgs_common.c); and what the IDR(s) variants (idrs.c, pipeidrs.c)
 * share: the shadow space, the blocked kernels, the small triangular
 * solves, the choice of omega and the breakdown rule. */
#ifndef OVK_BCGS_H
#define OVK_BCGS_H

#include <string.h>

#include "../../solver.h"

/* The restarts of one solve. */
typedef struct ovk__bcgs_restarts {
    int last; /* the iteration of the latest restart, or -1 */
} ovk__bcgs_restarts;

/* A breakdown of iteration iter (what = value: rho, <rhat,v>, omega or a
 * denominator near 0): returns 0 when the caller must restart (rhat = r,
 * the directions reset), 1 when the solve stops (a second breakdown before
 * a step was done, or value not finite; reason and detail set). */
int ovk__bcgs_breakdown(ovk__ctx *c, ovk__bcgs_restarts *rs, int iter, const char *what, double value);

/* 1 when |d| is negligible beside the norms of its two vectors:
 * |d| <= eps sqrt(xx yy) (or not finite). */
int ovk__bcgs_tiny(double d, double xx, double yy);

/* After <r,r> = rr of iteration iter: the history, the monitor and the
 * stop decision.  When the recursive residual converged, the true one
 * r = b - A x is computed (r overwritten) and must converge too: if it
 * does not, *replaced = 1 (r holds it; the caller rebuilds its recurrences)
 * and the solve goes on.  At max_iter the solve stops with the true
 * residual's norm (reason MAXIT, or CONVERGED if that one converged).
 * *stop = 1 when the solve ends. */
int ovk__bcgs_check(ovk__ctx *c, int iter, double rr, double bb, double *r, int *stop, int *replaced);

/* The iteration limit: r = b - A x, rel_residual its norm, reason MAXIT
 * (CONVERGED when that residual meets the tolerance, NONFINITE when it is
 * not finite).  Collective. */
int ovk__bcgs_limit(ovk__ctx *c, double bb, double *r);

/* 1 when a value of the reduced vals[0..count) is not finite: the solve
 * stops at iteration iter (reason non-finite, `what` named), before the
 * update that would use them, so x stays the last finite iterate. */
int ovk__bcgs_nonfinite(ovk__ctx *c, int iter, const double *vals, int count, const char *what);

/* ---- IDR(s) (idrs.c, pipeidrs.c) ------------------------------------------ */

enum { OVK__IDR_MAX_S = 64 };

/* Solver `name`'s spec keys into *s: s=1..OVK__IDR_MAX_S (4). */
int ovk__idr_parse_s(ovk__opts *o, const char *name, long *s);

/* The end of an IDR(s) solve at the iteration limit: r (the last step's
 * residual) checked, or, when `checked` (it was), the limit's true
 * residual (ovk__bcgs_limit).  Collective. */
int ovk__idr_limit(ovk__ctx *c, double bb, double *r, int checked);
/* the kernels run over blocks of this many rows (vectorised, in cache) */
enum { OVK__IDR_BLOCK = 512 };

/* rows lo..lo+m of y = a x + sum_j coef[j] X[j], x given from row lo (x
 * and X read before y is written: y may be one of them) */
static inline void ovk__idr_block_comb(int lo, int m, double *y, double a, const double *x, int k, double *const *X,
                                       const double *coef)
{
    double b[OVK__IDR_BLOCK];
    for (int i = 0; i < m; i++) b[i] = a * x[i];
    for (int j = 0; j < k; j++) {
        const double *restrict xj = X[j] + lo;
        double cj = coef[j];
#pragma omp simd
        for (int i = 0; i < m; i++) b[i] += cj * xj[i];
    }
    memcpy(y + lo, b, sizeof(double) * (size_t)m);
}

/* m rows more of a blocked pass (*since counts them): the progress hook
 * poked every `every` rows and at the last block */
static inline void ovk__idr_progress(ovk__ctx *c, int m, int every, int last, int *since)
{
    *since += m;
    if (*since >= every || last) {
        ovk__poke(&c->hook);
        *since = 0;
    }
}

/* What idrs and pipeidrs share, the first member of each one's work. */
typedef struct ovk__idr {
    double *r;
    double *P[OVK__IDR_MAX_S], *G[OVK__IDR_MAX_S], *U[OVK__IDR_MAX_S]; /* shadow space; G = A U */
    int s;
    double *M;           /* s x s, M[i + s j] = <p_i, g_j> */
    double *f, *cf, *al; /* P^T r; the step's c; alpha */
    double *vals;        /* the step's sums: 2 s + 4 */
    double omega;
    double rr_loc;       /* the local <r,r> of the last update */
    double xx_loc;       /* the local <x,x> of the last update: not finite when x grew past 1e154 */
    int shadow;          /* P is set up */
    long long nglobal;
    int last_restart;    /* the step of the latest breakdown restart, or -1 */
} ovk__idr;

/* A variant's parts of a step; w is its work, an ovk__idr first. */
typedef struct ovk__idr_ops {
    int (*inner_sums)(ovk__ctx *c, void *w, int k); /* inner step k up to its completed reduction */
    void (*inner_update)(ovk__ctx *c, void *w, int k, double beta); /* after the new column of M */
    int (*omega_sums)(ovk__ctx *c, void *w);        /* the omega step up to its completed reduction */
    void (*omega_update)(ovk__ctx *c, void *w);     /* after omega */
    int (*restart)(ovk__ctx *c, void *w);           /* the cycle anew from r */
    int (*after_breakdown)(ovk__ctx *c, void *w);   /* before the restart a breakdown makes; NULL: none */
    void (*begin)(ovk__ctx *c, void *w);            /* at the solve's start; NULL: none */
    int (*after_step)(ovk__ctx *c, void *w, int iter, int next, int k); /* k: the next step's; NULL: none */
} ovk__idr_ops;

/* The solve (the vtable's iterate): the shadow space when a batch's instance
 * has none, the cycle from r = b - A x0, the steps up to max_it.  Collective. */
int ovk__idr_iterate(ovk__ctx *c, const ovk__idr_ops *ops, void *w, const char *name, double bb);

/* The parsed spec of both: s. */
typedef struct ovk__idr_params {
    long s;
} ovk__idr_params;
int ovk__idr_parse(ovk__opts *o, void **params, const char *name);

/* Step iter (inner step k < s, or the omega step k = s): its sums, the check of
 * step iter - 1 (unless `checked`: its norm was known), then its updates.
 * *next: 1 when the step was done, 0 when the cycle restarted (a replaced
 * residual, a breakdown); *stop: the solve ends.  Collective. */
int ovk__idr_step(ovk__ctx *c, const ovk__idr_ops *ops, void *w, int k, int iter, int checked, double bb, int *next,
                  int *stop);

/* Local: G = U = 0, M = I, omega = 1 (a restart's common part). */
void ovk__idr_reset(ovk__ctx *c, ovk__idr *d);

/* The vtable's setup (local: s from the parsed params, the small arrays),
 * after_setup (collective: the shadow space unless set) and destroy. */
int ovk__idr_setup(ovk__idr *d, const char *name, long s);
int ovk__idr_after_setup(ovk__ctx *c, ovk__idr *d, const char *name);
void ovk__idr_destroy(ovk__idr *d);

/* Local: the small arrays of an s-dimensional IDR(s) in one block: M
 * (s x s), f, c, alpha (s each), the sums (2 s + 4); *M owns it. */
int ovk__idr_small_arrays(const char *name, int s, double **M, double **f, double **cf, double **al, double **vals);

/* Collective: the rows' global count (*nglobal), the check s <= rows
 * (OVK_EOPTION naming solver `name` and its s) and P, s orthonormal random
 * vectors hashed from the global row (the same on any partition); scratch:
 * s x s.  The same status on every rank. */
int ovk__idr_shadow(ovk__ctx *c, const char *name, int s, double *const *P, double *scratch, long long *nglobal);

/* Local: y = a x + sum_j coef[j] X[j] over k vectors (y may be x or one of
 * X), blocked, the progress hook poked. */
void ovk__idr_lincomb(ovk__ctx *c, double *y, double a, const double *x, int k, double *const *X, const double *coef);

/* Local: out[a s + j] = <p_j, Y[a]> (a < ny, j < s), then <Y[0],Y[0]>
 * (ny = 1) or <Y[1],Y[0]>, <Y[1],Y[1]> (ny = 2): each vector read once. */
void ovk__idr_shadow_dots(ovk__ctx *c, int s, double *const *P, int ny, const double *const *Y, double *out);

/* M(k:,k:) cf(k:) = f(k:) (M: s x s lower triangular, M[i + s j]). */
void ovk__idr_solve_c(int s, int k, const double *M, const double *f, double *cf);

/* After the sums m = P^T g_k (m[s] = <g_k,g_k>): M(:k,:k) al = m(:k), the
 * new column M(:,k) = m - M(:,:k) al (0 above k); returns 1 when M(k,k) is
 * negligible beside ||g_k|| (or not finite). */
int ovk__idr_column(int s, int k, double *M, const double *m, double *al);

/* After the new column M(:,k): beta = f_k / M(k,k) returned, f(k+1:) -=
 * beta M(k+1:,k), f_k = 0. */
double ovk__idr_beta(int s, int k, const double *M, double *f);

/* From the omega step's sums vals = P^T r, P^T t, <t,r>, <t,t>, <r,r>:
 * 1 when <t,t> = 0 (nothing set), else 0 with *omega (ovk__idr_omega)
 * and f = P^T r - omega P^T t. */
int ovk__idr_omega_step(int s, const double *vals, double *omega, double *f);

/* omega = <t,r> / <t,t>, raised to kappa ||r|| / ||t|| when |<t,r>| <
 * kappa ||t|| ||r|| (kappa = 0.7, "maintaining the convergence"). */
double ovk__idr_omega(double tr, double tt, double rr);

/* 1 when a value of vals[0..count) is not finite: the solve stops at step
 * iter - 1 (reason non-finite). */
int ovk__idr_nonfinite(ovk__ctx *c, const double *vals, int count, int iter);

/* 1 when xx = <x,x> of the update of step iter - 1 (its sum rides step
 * iter's reduction) is not finite: x grew past 1e154 (or is not finite),
 * on a singular A C or with recurrences drifted from b - A x; the solve
 * stops at step
 * iter - 1 (reason non-finite) before step iter moves x again. */
int ovk__idr_unbounded(ovk__ctx *c, double xx, int iter);

/* A breakdown at step iter (what = value): 0 when the caller restarts the
 * cycle (*last = iter, a restart counted), 1 when the solve stops (another
 * one before a whole cycle of s + 1 steps since the last: OVK_EBREAKDOWN,
 * status set). */
int ovk__idr_breakdown(ovk__ctx *c, int *last, int s, int iter, const char *what, double value);

#endif

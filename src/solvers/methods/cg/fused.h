/* The CG variants' fused kernels (each in NAME_fused.c beside its variant):
 * one pass over the vectors for all the updates and local sums of a step.
 * The single-reduction variants' sums go to the OVK__V_* slots of solver.h,
 * pipeprcg's to OVK__PR_*. */
#ifndef OVK_FUSED_H
#define OVK_FUSED_H

#include "../../solver.h"


/* cg1, one pass: p = u + b p; s = w + b s; x += a p; r -= a s; u = d .* r.
 * v[GAMMA] = <r,u>, v[RR] = <r,r>, v[US] = <u,s>, v[PS] = <p,s> (new vectors);
 * v[XX], v[UU] of x and u before, v[PP], v[SS] after, v[WW] of w.  Other
 * slots (DELTA, PW, QQ, ZZ, MM) are left alone. */
void ovk__cg1_update(int n, double a, double b, const double *d, const double *w, double *u,
                     double *p, double *s, double *x, double *r, double *v, const ovk__hook *h);

/* The vectors of the pipelined CG (Ghysels-Vanroose). */
typedef struct ovk__pipe_vecs {
    double *x, *r, *w, *p, *s, *z; /* updated by ovk__pipecg_update */
    double *u, *q;                 /* u = C r, q = C s: not stored by the update (see below) */
    double *m, *n;                 /* m = C w, n = A m: written by the solver, not the update */
    const double *d;               /* the diagonal of C: read */
} ovk__pipe_vecs;

/* pipecg, one pass: z = n + b z; s = w + b s; p = u + b p; x += a p;
 * r -= a s; w -= a z.  With a diagonal preconditioner u = C r and q = C s
 * are not carried by recurrences (u -= a q; q = m + b q, as in the paper)
 * but formed from d in the loop: the same vectors in exact arithmetic, 24
 * fewer bytes per row, and u, q are left unwritten.  v[GAMMA] = <r,u>,
 * v[DELTA] = <w,u>, v[RR] = <r,r>, v[US] = <u,s>, v[PW] = <p,w>, v[PS] =
 * <p,s> of the new vectors; v[XX], v[UU], v[WW] of x, u, w before, v[PP],
 * v[SS], v[QQ], v[ZZ] after; v[MM] is left 0 (m is not read: the caller
 * takes <m,m> from the pass that made m). */
void ovk__pipecg_update(int n, double a, double b, const ovk__pipe_vecs *vv, double *v,
                        const ovk__hook *h);
/* pipecg with any C (the application's, IC(0), ...), one pass: the paper's
 * recurrences z = n + b z; q = m + b q; s = w + b s; p = u + b p; x += a p;
 * r -= a s; u -= a q; w -= a z, and v[GAMMA..ZZ] of the new vectors (v[MM]
 * left 0, as above). */
void ovk__pipecg_update_any(int n, double a, double b, const ovk__pipe_vecs *vv, double *v, const ovk__hook *h);

/* alg1 with hypre's DiagScale, one pass: x += a p; r -= a s; s = r ./ diag;
 * *rs = <r,s>, *rr = <r,r> (local; the same operations in the same order as
 * ovk__axpy2 followed by Jacobi's apply_dots, so bitwise their results). */
void ovk__alg1_update(int n, double a, const double *p, double *x, double *s, double *r, const double *diag,
                      double *rs, double *rr, const ovk__hook *h);

/* groppcg, one pass: x += a p; r -= a s; z -= a S; v[0] = <r,z>,
 * v[1] = <r,r> of the new vectors (local). */
void ovk__gropp_update(int n, double a, const double *p, const double *s, const double *S, double *x,
                       double *r, double *z, double v[2], const ovk__hook *h);

/* pipeprcg's reduced values: nu = <rt,r>, mu = <p,s>, delta = <rt,s>,
 * gamma = <st,s>, <r,r>. */
enum { OVK__PR_NU, OVK__PR_MU, OVK__PR_DELTA, OVK__PR_GAMMA, OVK__PR_RR, OVK__PR_COUNT };

/* The vectors of pipeprcg's step (pipeprcg.c names them). */
typedef struct ovk__prcg_vecs {
    double *x, *r, *rt, *w, *wt, *p, *s, *st; /* updated */
    const double *u, *ut;                     /* read */
} ovk__prcg_vecs;

/* pipeprcg, one pass: x += a p; r -= a s; rt -= a st; w -= a u; wt -= a ut;
 * p = rt + b p; s = w + b s; st = wt + b st; v[OVK__PR_*] of the new vectors
 * (local). */
void ovk__prcg_update(int n, double a, double b, const ovk__prcg_vecs *vv, double *v, const ovk__hook *h);

#endif

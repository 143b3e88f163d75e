/* What gmres.c (the cycles) and gmres_kernels.c (their passes over the
 * vectors) share: a basis as the kernels see it and the kernels the cycles
 * call.  All are local (no reduction), timed as axpy, and poke the
 * progress hook as they go. */
#ifndef OVK_GMRES_H
#define OVK_GMRES_H

#include "../../solver.h"

/* A basis: nf float vectors F (basis=single), then nd double vectors X;
 * coefficients and sums in that order. */
typedef struct ovk__basis {
    int nf, nd;
    const float *const *F;
    const double *const *X;
} ovk__basis;

/* out = B^T w (nf + nd local sums) */
void ovk__basis_dots(ovk__ctx *c, const ovk__basis *b, const double *w, double *out);
/* y = scale (y + B coef) in one pass over y; copy (not NULL) = (float) y */
void ovk__basis_combine(ovk__ctx *c, const ovk__basis *b, const double *coef, double scale, double *y, float *copy);
/* As ovk__basis_combine (at least one vector), and in the same pass v *= t
 * (v one of the X) or, with vs, vs = (float) t v (v left as it is), and
 * *yy = <y,y> (local) */
void ovk__basis_combine_norm(ovk__ctx *c, const ovk__basis *b, const double *coef, double scale, double *y,
                             double *v, double t, float *vs, double *yy);
/* d = [Q^T u, <u,u>, Q^T w, <u,w>] (2 k + 2 local sums, k = |Q|), Q and the
 * two vectors read once */
void ovk__basis_dots_two(ovk__ctx *c, const ovk__basis *q, const double *u, const double *w, double *d);
/* In one pass over Q, u and w: v = (u - Q s) / alpha into u (uf not NULL:
 * its float copy, v rounded to it), w = (w - Q t - tau v) / alpha */
void ovk__basis_update_two(ovk__ctx *c, const ovk__basis *q, const double *s, const double *t, double alpha,
                           double tau, double *u, double *w, float *uf);

#endif

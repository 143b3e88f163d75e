/* MINRES (Paige and Saunders, SIAM J. Numer. Anal. 12(4), 1975) for a
 * symmetric, possibly indefinite A with an SPD preconditioner C, in one
 * blocking reduction per iteration: the step forms the next Lanczos vector
 * u^ and computes v^ = C u^ and w^ = A v^ before summing, so that both
 * coefficients of the next column of the Lanczos matrix, beta^2 = <u^, v^>
 * and alpha beta^2 = <v^, w^>, come in one reduction with the terms of
 * ||r||^2 (minres.h):
 *
 *   (pass)  u_j, v_j = u^_j, v^_j / beta_j;  x += phi_{j-1} d_{j-1};
 *           r_{j-1} = s^2 r_{j-2} - phibar c u_j;
 *           u^_{j+1} = w^_j / beta_j - alpha_j u_j - beta_j u_{j-1}
 *   v^_{j+1} = C u^_{j+1};  w^_{j+1} = A v^_{j+1}
 *   <u^,v^>, <v^,w^>, <r,r>, <r,u^>, <u^,u^>  -> one reduction
 *   rotation j: phi_j, ||r_j||; the test                (minres_common.c)
 *
 * Converged by the recurrence, it is confirmed on b - A x, and started
 * afresh from that residual when it is not.  A declared null space's
 * Z^T v^ rides the same reduction (minres.h). */
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "minres.h"

typedef struct minres_work {
    ovk__minres_vecs mv;          /* mv.x is the solution vector */
    ovk__minres_qr qr;
    ovk__minres_growth growth;
    double sums[OVK__MR_ROOM];    /* reduced values, OVK__MR_* slots, then Z^T v^ */
} minres_work;

/* a (re)start from r = b - A x: u^_1 = r, v^_1 = C u^_1, w^_1 = A v^_1 and
 * one reduction of <u^,v^>, <v^,w^>, <r,r> (and Z^T v^: v^ projected) */
static int start(ovk__ctx *c, void *work, int iter, ovk__minres_action *act)
{
    minres_work *w = work;
    ovk__minres_vecs *mv = &w->mv;
    double *s = w->sums;
    int rc = ovk__minres_restart_head(c, mv, s, OVK__MR_ROOM); /* u^ = r, v^ = C u^ */
    if (rc) return rc;
    rc = ovk__ctx_matvec_dot(c, mv->v, mv->w, &s[OVK__MR_AB]); /* w^ = A v^ */
    if (rc) return rc;
    rc = ovk__sum(c, OVK__IPROD, s, ovk__nullspace_append(c, s, OVK__MR_RR + 1, OVK__MR_COUNT, mv->v));
    if (rc) return rc;
    ovk__minres_project(c, s, mv->v); /* v^ -= Z Z^T v^ */
    ovk__minres_begin(c, &w->qr, iter, s, act);
    return OVK_OK;
}

/* step j: the pass, v^ = C u^, w^ = A v^, the one reduction, the decision */
static int step(ovk__ctx *c, void *work, int iter, double bb, ovk__minres_action *act)
{
    minres_work *w = work;
    ovk__minres_vecs *mv = &w->mv;
    double *s = w->sums, uu = 0.0;
    ovk__minres_pass(c, mv, &w->qr, s); /* u = u^_{j+1}; v_old = v_j */
    int rc = ovk__minres_checkpoint(c, mv, &w->growth, iter, s); /* every OVK__MR_EVERY steps: b - A x */
    if (rc) return rc;
    rc = ovk__ctx_pc_dots(c, mv->u, mv->v, &s[OVK__MR_BB], &uu); /* v^ = C u^ */
    if (rc) return rc;
    rc = ovk__ctx_matvec_dot(c, mv->v, mv->w, &s[OVK__MR_AB]); /* w^ = A v^ */
    if (rc) return rc;
    rc = ovk__sum(c, OVK__IPROD, s, ovk__nullspace_append(c, s, OVK__MR_COUNT, OVK__MR_COUNT, mv->v));
    if (rc) return rc;
    ovk__minres_project(c, s, mv->v); /* v^ -= Z Z^T v^ */
    return ovk__minres_decide(c, mv, &w->qr, &w->growth, iter, s, bb, act);
}

static int iterate(ovk__ctx *c, void *work, double bb)
{
    minres_work *w = work;
    return ovk__minres_iterate(c, w, &w->mv, &w->growth, bb, start, step);
}

#define V(f) offsetof(minres_work, mv.f)
const ovk__solver_ops ovk__solver_minres = {
    OVK__WORK_VECTORS(minres_work, V(r), V(u_old), V(u), V(v_old), V(v), V(w), V(d_old), V(d), V(x_kept), V(x_cand),
                      V(t)),
    .iterate = iterate, .caps = OVK__CAP_NULLSPACE,
};

/* Pipelined MINRES: minres.c's iteration with the reduction of a step in
 * flight behind the step's preconditioner application and product.  As
 * Ghysels and Vanroose derive pipelined CG (Parallel Computing 40(7), 2014;
 * Cools and Vanroose's general recipe, Parallel Computing 65, 2017), the
 * vectors minres computes before its reduction, v^ = C u^ and w^ = A v^,
 * are carried by the recurrence they obey, the Lanczos relation
 *   beta_{j+1} u_{j+1} = w_j - alpha_j u_j - beta_j u_{j-1}
 * multiplied by C and by A C:
 *   v^_{j+1} = m_j - alpha_j v_j - beta_j v_{j-1},  m = C w,
 *   w^_{j+1} = n_j - alpha_j w_j - beta_j w_{j-1},  n = A m,
 * so that only m^ = C w^ and n^ = A m^ are applied, while the sums run:
 *
 *   (pass)  u_j, v_j, w_j = u^_j, v^_j, w^_j / beta_j;  x, d, r updates;
 *           u^_{j+1}, v^_{j+1}, w^_{j+1} by the recurrences, and the sums
 *   <u^,v^>, <v^,w^>, <r,r>, <r,u^>, <u^,u^>  -> start the reduction
 *   m^_{j+1} = C w^_{j+1};  n^_{j+1} = A m^_{j+1}                  (overlap)
 *   wait; rotation j, the test                          (minres_common.c)
 *
 * The carried v^, w^ drift from C u^, A v^ by rounding amplified along the
 * three-term recurrence (as Cools et al. find for pipelined CG's auxiliary
 * vectors): the Lanczos coefficients go wrong and the residual recurrence
 * stops telling the truth.  Two replacements keep its steps near minres's and
 * attainable accuracy: the carried vectors recomputed from u every tenfold
 * drop of ||r|| and at least every 50 steps (refresh, behind the step's
 * reduction), and a convergence of the recurrence confirmed on b - A x, the
 * Lanczos process started afresh from that residual when it is not met
 * (minres_common.c; docs/solvers.md).  A declared null space's Z^T v^
 * rides the step's reduction (minres.h); a refresh, which recomputes v from
 * u behind it, projects its vectors with a blocking sum of its own. */
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "minres.h"

/* the automatic refresh: each time ||r||^2 fell by DROP (||r|| by 10), and at
 * least every EVERY steps (plat362 unpreconditioned to rtol 1e-10 stalled near
 * 2e-10 for 20000 steps with the drops alone; 5731 steps with both, minres
 * 3904; hidden behind the reduction, the refresh costs 4 % more products) */
enum { DROP = 100, EVERY = 50 };

typedef struct pminres_work {
    ovk__minres_vecs mv;          /* mv.x is the solution vector */
    ovk__minres_qr qr;
    ovk__minres_growth growth;
    double sums[OVK__MR_ROOM];    /* reduced values, OVK__MR_* slots, then Z^T v^ */
    double rr_fresh;              /* ||r||^2 at the last (re)start or refresh */
    int since;                    /* steps since then */
} pminres_work;

/* replace_every: 0 when ||r|| fell tenfold since the last refresh or EVERY
 * steps have passed, k > 0 every k steps, < 0 never (the restart on an
 * unconfirmed convergence stays) */
static int refresh_due(const ovk__ctx *c, const pminres_work *w)
{
    int every = c->opts->replace_every;
    if (every < 0) return 0;
    if (every > 0) return w->since >= every;
    return w->qr.rr * DROP < w->rr_fresh || w->since >= EVERY;
}

/* the refreshed v_j and v^ projected (v -= Z Z^T v): one blocking sum of
 * their Z^T, with a null space only */
static int project_refreshed(ovk__ctx *c, ovk__minres_vecs *mv)
{
    double zv[2 * OVK__NULLSPACE_MAX];
    int nk = ovk__nullspace_count(c);
    if (!nk) return OVK_OK;
    ovk__nullspace_append(c, zv, 0, 0, mv->v_old); /* Z^T v_j at zv[0..nk) */
    ovk__nullspace_append(c, zv + nk, 0, 0, mv->v); /* Z^T v^ after it */
    int rc = ovk__sum(c, OVK__IPROD, zv, 2 * nk);
    if (rc) return rc;
    ovk__nullspace_remove(c, zv, mv->v_old, 0.0, NULL);
    ovk__nullspace_remove(c, zv + nk, mv->v, 0.0, NULL);
    return OVK_OK;
}

/* While the step's reduction runs: the carried vectors computed from u_j
 * and u^_{j+1} instead, v_j = C u_j, w_j = A v_j, v^ = C u^, w^ = A v^ (the
 * replacement of their drift; 2 more products and applications, behind the
 * sum like the step's own).  The sums in flight are of the carried v^, w^:
 * their coefficients are off by the drift once, and it does not grow on. */
static int refresh(ovk__ctx *c, pminres_work *w)
{
    ovk__minres_vecs *mv = &w->mv;
    int rc = ovk__ctx_pc(c, mv->u_old, mv->v_old);
    if (rc) return rc;
    rc = ovk__ctx_matvec(c, mv->v_old, mv->w_old);
    if (rc) return rc;
    rc = ovk__ctx_pc(c, mv->u, mv->v);
    if (rc) return rc;
    rc = ovk__ctx_matvec(c, mv->v, mv->w);
    if (rc) return rc;
    rc = project_refreshed(c, mv);
    if (rc) return rc;
    c->res->replacements++;
    w->rr_fresh = w->qr.rr;
    w->since = 0;
    return OVK_OK;
}

/* m^ = C w^; n^ = A m^ */
static int precond_matvec(ovk__ctx *c, ovk__minres_vecs *mv)
{
    int rc = ovk__ctx_pc(c, mv->w, mv->m);
    if (rc) return rc;
    return ovk__ctx_matvec(c, mv->m, mv->n);
}

/* a (re)start from r = b - A x: u^_1 = r, v^_1 = C u^_1; <u^,v^>, <r,r>
 * summed behind w^_1 = A v^_1, then <v^,w^> behind m^_1, n^_1 */
static int start(ovk__ctx *c, void *work, int iter, ovk__minres_action *act)
{
    pminres_work *w = work;
    ovk__minres_vecs *mv = &w->mv;
    double *s = w->sums, ab[1] = {0.0};
    ovk_request *req = NULL;
    int rc = ovk__minres_restart_head(c, mv, s, OVK__MR_ROOM); /* u^ = r, v^ = C u^ */
    if (rc) return rc;
    rc = ovk__sum_begin(c, OVK__IPROD, s, ovk__nullspace_append(c, s, OVK__MR_RR + 1, OVK__MR_COUNT, mv->v), &req);
    if (rc) return rc;
    rc = ovk__ctx_matvec_dot(c, mv->v, mv->w, &ab[0]); /* w^ = A v^ */
    rc = ovk__sum_finish(c, OVK__IPROD, req, rc);
    if (rc) return rc;
    ovk__minres_project(c, s, mv->v); /* v^ -= Z Z^T v^ (A Z = 0: w^ stays) */
    rc = ovk__sum_begin(c, OVK__IPROD, ab, 1, &req);
    if (rc) return rc;
    rc = precond_matvec(c, mv);
    rc = ovk__sum_finish(c, OVK__IPROD, req, rc);
    if (rc) return rc;
    s[OVK__MR_AB] = ab[0];
    ovk__minres_begin(c, &w->qr, iter, s, act);
    w->rr_fresh = w->qr.rr;
    w->since = 0;
    return OVK_OK;
}

/* step j: the pass, the reduction started, m^ = C w^ and n^ = A m^ (after a
 * refresh when due) while it runs (not after the last step), the decision */
static int step(ovk__ctx *c, void *work, int iter, double bb, ovk__minres_action *act)
{
    pminres_work *w = work;
    ovk__minres_vecs *mv = &w->mv;
    ovk_request *req = NULL;
    int more = iter < c->opts->max_iter;
    ovk__minres_pass(c, mv, &w->qr, w->sums); /* u, v, w = u^, v^, w^_{j+1} */
    w->since++;
    int rc = ovk__minres_checkpoint(c, mv, &w->growth, iter, w->sums); /* every OVK__MR_EVERY steps: b - A x */
    if (rc) return rc;
    int count = ovk__nullspace_append(c, w->sums, OVK__MR_COUNT, OVK__MR_COUNT, mv->v), fresh = 0; /* and Z^T v^ */
    rc = ovk__sum_begin(c, OVK__IPROD, w->sums, count, &req);
    if (rc) return rc;
    if (more && refresh_due(c, w)) rc = refresh(c, w), fresh = 1;
    if (more && !rc) rc = precond_matvec(c, mv);
    rc = ovk__sum_finish(c, OVK__IPROD, req, rc);
    if (rc) return rc;
    if (!fresh) ovk__minres_project(c, w->sums, mv->v); /* v^ -= Z Z^T v^ (a refresh projected its own) */
    return ovk__minres_decide(c, mv, &w->qr, &w->growth, iter, w->sums, bb, act);
}

static int iterate(ovk__ctx *c, void *work, double bb)
{
    pminres_work *w = work;
    return ovk__minres_iterate(c, w, &w->mv, &w->growth, bb, start, step);
}

#define V(f) offsetof(pminres_work, mv.f)
const ovk__solver_ops ovk__solver_pminres = {
    OVK__WORK_VECTORS(pminres_work, V(r), V(u_old), V(u), V(v_old), V(v), V(w_old), V(w), V(m), V(n), V(d_old), V(d),
                      V(x_kept), V(x_cand), V(t)),
    .iterate = iterate, .caps = OVK__CAP_NULLSPACE,
};

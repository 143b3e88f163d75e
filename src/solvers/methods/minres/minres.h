/* What the MINRES variants (minres.c, pminres.c) share, in minres_common.c:
 * the preconditioned Lanczos process in the form both run, the QR
 * factorization of its tridiagonal matrix by Givens rotations (Paige and
 * Saunders, SIAM J. Numer. Anal. 12(4), 1975), the decisions after each
 * reduction and the fused pass of a step.
 *
 * The Lanczos vectors, for C the (SPD) preconditioner: u_j, C-orthonormal
 * (<u_i, C u_j> = delta_ij), v_j = C u_j and w_j = A v_j, with
 *   beta_{j+1} u_{j+1} = w_j - alpha_j u_j - beta_j u_{j-1},
 *   alpha_j = <v_j, A v_j>,  beta_{j+1}^2 = <u^_{j+1}, C u^_{j+1}>
 * (u^ = beta u, unnormalized).  A step forms u^_{j+1}, then v^ = C u^ and
 * w^ = A v^ (the next beta^2 v_{j+1}, beta w_{j+1}), and sums <u^, v^> and
 * <v^, w^> together: both of the next step's coefficients in one reduction
 * (beta_{j+1}^2, and alpha_{j+1} beta_{j+1}^2), as Chronopoulos and Gear's
 * CG sums <r,u> and <w,u>.  minres computes v^ and w^; pminres carries them
 * (and m = C w, n = A m) by the same recurrence, so that its reduction is in
 * flight while m, n are computed.
 *
 * x_j = x_{j-1} + phi_j d_j with d_j = (v_j - eps_j d_{j-2} - delta_j
 * d_{j-1}) / gamma_j, the rotation of column j needing beta_{j+1}: the
 * update of step j is made in the pass of step j + 1.  The residual,
 * r_j = s_j^2 r_{j-1} - phibar_j c_j u_{j+1} (the residual of the
 * least-squares problem mapped back by the Lanczos basis; Choi, Paige and
 * Saunders, SIAM J. Sci. Comput. 33(4), 2011, sec. 3), is carried too, and
 * its 2-norm, which the tolerance is on, is expanded from <r_{j-1}, r_{j-1}>,
 * <r_{j-1}, u^_{j+1}> and <u^_{j+1}, u^_{j+1}>, summed in the same reduction
 * (phibar_j itself is ||r_j|| in C's norm).
 *
 * A declared null space Z (nullspace.c) is projected out of v^ = C u^, the
 * vector x is built from, as the CG variants project their direction: Z^T v^
 * rides the step's reduction and v^ -= Z Z^T v^ follows it (A Z = 0 leaves
 * w^ = A v^ as it is).  On a singular A with b outside its range x grows
 * and the recurrence stops holding its residual; pminres's carried vectors
 * can drift as far.  So every OVK__MR_EVERY steps x is copied and its true
 * residual's <t,t> rides the step's reduction: the best of these
 * checkpoints is kept; <x,x> rides every reduction, and the solve stops when
 * the rounding of A x alone, eps ||A|| ||x||, could exceed ||b||.  A solve
 * that does not converge returns the better of x and the kept iterate by
 * their true residuals, and reports that residual. */
#ifndef OVK_MINRES_H
#define OVK_MINRES_H

#include "../../solver.h"

/* the reduced values of a step: beta^2 = <u^,v^>, alpha beta^2 = <v^,w^>,
 * <r,r>, <r,u^>, <u^,u^>, <x,x>, a checkpoint's <t,t>; then Z^T v^ (a null space's OVK__MR_ROOM) */
enum { OVK__MR_BB, OVK__MR_AB, OVK__MR_RR, OVK__MR_RU, OVK__MR_UU, OVK__MR_XX, OVK__MR_TT, OVK__MR_COUNT };
enum { OVK__MR_EVERY = 50 }; /* steps between checkpoints of x (one product more each) */
enum { OVK__MR_ROOM = OVK__MR_COUNT + OVK__NULLSPACE_MAX };

/* The vectors of a step (pointers swapped by ovk__minres_pass). */
typedef struct ovk__minres_vecs {
    double *r, *x;
    double *u_old, *u;  /* u_{j-1}; u^_j, normalized in place to u_j; then u^_{j+1} in u */
    double *v_old, *v;  /* v_{j-1}; v^_j, normalized in place to v_j */
    double *w_old, *w;  /* pminres: w_{j-1}; w^_j (minres: w^_j only, w_old NULL) */
    double *m, *n;      /* pminres: m^_j = C w^_j, n^_j = A m^_j; NULL in minres */
    double *d_old, *d;  /* d_{j-2}, d_{j-1} */
    double *x_kept;     /* the checkpoint of the smallest true residual so far */
    double *x_cand, *t; /* the checkpoint whose <t,t> is in flight, t = b - A x_cand */
} ovk__minres_vecs;

/* The checkpoints (minres.h's top): one in flight, one kept (its <t,t>). */
typedef struct ovk__minres_growth {
    int pending, kept;
    double kept_tt;
    double bb_max; /* the largest beta^2 so far: a negative one within rounding of it is 0 */
} ovk__minres_growth;

/* The QR factorization as it goes, and the coefficients of the step whose
 * update is pending. */
typedef struct ovk__minres_qr {
    double cs, sn, dbar, eps, phibar;   /* the running rotation */
    double alpha, beta;                 /* alpha_j, beta_j of the coming step */
    int pending;                        /* the update of column j - 1 waits for the pass */
    double rr;                          /* ||r_j||^2 of the last decision (the recurrence's) */
    double p_eps, p_delta, p_gamma, p_phi, p_s2, p_pc; /* its eps, delta, gamma, phi, s^2, phibar c */
} ovk__minres_qr;

/* What a step's decision found. */
typedef enum ovk__minres_action {
    OVK__MR_STEP,    /* go on */
    OVK__MR_STOP,    /* res->reason set (x updated) */
    OVK__MR_RESTART  /* the recurrence converged, the true residual (now in r) did not: start afresh from it */
} ovk__minres_action;

/* Local: a (re)start at iteration iter from the reduced values v of
 * u^_1 = r (BB, AB and RR): qr set up and *act = STEP, or the solve decided
 * (a zero or non-SPD <r, C r>, a non-finite value: STOP). */
void ovk__minres_begin(ovk__ctx *c, ovk__minres_qr *qr, int iter, const double *v, ovk__minres_action *act);
/* Local: the fused pass of a step (timed as axpy): u_j, v_j (and w_j)
 * normalized by 1/beta_j, the pending update of x, d and r, u^_{j+1} (and in
 * pminres v^_{j+1}, w^_{j+1} from m, n), the local sums sums[OVK__MR_*] (BB
 * and AB only with pminres), and the pointers swapped: u, v (and w) then
 * hold the new unnormalized vectors, u_old, v_old (w_old) the normalized. */
void ovk__minres_pass(ovk__ctx *c, ovk__minres_vecs *mv, ovk__minres_qr *qr, double *sums);
/* Collective (a product and a blocking reduction when the recurrence
 * converged): the decision after step iter's reduction of v.  */
int ovk__minres_decide(ovk__ctx *c, ovk__minres_vecs *mv, ovk__minres_qr *qr, ovk__minres_growth *g, int iter,
                       const double *v, double bb, ovk__minres_action *act);
/* Collective only through the product (a user operator's): every
 * OVK__MR_EVERY steps, x copied to x_cand, t = b - A x and the local <t,t>
 * in sums[OVK__MR_TT] (after the pass, before the step's sum). */
int ovk__minres_checkpoint(ovk__ctx *c, ovk__minres_vecs *mv, ovk__minres_growth *g, int iter, double *sums);
/* Local: v -= Z coef (the coefficients of Z^T v reduced at vals[OVK__MR_COUNT]) */
void ovk__minres_project(ovk__ctx *c, const double *vals, double *v);
/* Local: v_j = 0 for the first step, and d = 0 (a fresh start). */
void ovk__minres_clear(ovk__ctx *c, ovk__minres_vecs *mv);
/* Collective only through C (a user preconditioner's): the head of a
 * (re)start from r, both variants' own: sums (room slots) cleared,
 * u^_1 = r, the other vectors cleared, v^_1 = C u^_1 with the local
 * <u^,v^> and <r,r> in sums[BB], sums[RR]. */
int ovk__minres_restart_head(ovk__ctx *c, ovk__minres_vecs *mv, double *sums, int room);
/* A variant's (re)start and step, on its work (whose vectors are mv). */
typedef int (*ovk__minres_start_fn)(ovk__ctx *c, void *work, int iter, ovk__minres_action *act);
typedef int (*ovk__minres_step_fn)(ovk__ctx *c, void *work, int iter, double bb, ovk__minres_action *act);
/* Collective: the iterations both variants run, (re)starts and steps until
 * a decision stops them (reason set); x is c->x. */
int ovk__minres_iterate(ovk__ctx *c, void *work, ovk__minres_vecs *mv, ovk__minres_growth *g, double bb,
                        ovk__minres_start_fn start, ovk__minres_step_fn step);

#endif

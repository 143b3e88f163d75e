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
 * (phibar_j itself is ||r_j|| in C's norm). */
#ifndef OVK_MINRES_H
#define OVK_MINRES_H

#include "../../solver.h"

/* the reduced values of a step: beta^2 = <u^,v^>, alpha beta^2 = <v^,w^>,
 * <r,r>, <r,u^>, <u^,u^> */
enum { OVK__MR_BB, OVK__MR_AB, OVK__MR_RR, OVK__MR_RU, OVK__MR_UU, OVK__MR_COUNT };

/* The vectors of a step (pointers swapped by ovk__minres_pass). */
typedef struct ovk__minres_vecs {
    double *r, *x;
    double *u_old, *u;  /* u_{j-1}; u^_j, normalized in place to u_j; then u^_{j+1} in u */
    double *v_old, *v;  /* v_{j-1}; v^_j, normalized in place to v_j */
    double *w_old, *w;  /* pminres: w_{j-1}; w^_j (minres: w^_j only, w_old NULL) */
    double *m, *n;      /* pminres: m^_j = C w^_j, n^_j = A m^_j; NULL in minres */
    double *d_old, *d;  /* d_{j-2}, d_{j-1} */
} ovk__minres_vecs;

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
int ovk__minres_decide(ovk__ctx *c, ovk__minres_vecs *mv, ovk__minres_qr *qr, int iter, const double *v, double bb,
                       ovk__minres_action *act);
/* Local: v_j = 0 for the first step, and d = 0 (a fresh start). */
void ovk__minres_clear(ovk__ctx *c, ovk__minres_vecs *mv);

#endif

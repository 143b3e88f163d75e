/* The solver interface: one variant per file, each exporting one
 * `const ovk__solver ovk__solver_NAME`, listed in pcg.c.  ovk_pcg_solve does
 * the argument checks, the reducer and the result; a variant only iterates. */
#ifndef OVK_SOLVER_H
#define OVK_SOLVER_H

#include <stdio.h>

#include "../internal.h"

/* Which inner product a reduction belongs to (selects its timers). */
typedef enum ovk__dot_id { OVK__SDOTP = 0, OVK__GAMMA = 1, OVK__IPROD = 2 } ovk__dot_id;

typedef struct ovk__ctx {
    const ovk_matrix *A;
    const double *b;
    double *x;
    int n;                    /* local rows */
    ovk_reducer *red;
    const ovk_pcg_options *opts;
    ovk_pcg_result *res;      /* iterations, reason, rel_residual are set by the variant */
    double t[OVK_TIMER_COUNT]; /* this rank's seconds */
    ovk__hook hook;           /* progress hook for long kernels (fn NULL: none) */
    int rank;
    int inflight;             /* ovk__dot_id of the reduction in flight, or -1 */
    double progress_time;     /* seconds spent in the progress hook so far */
} ovk__ctx;

/* Kernel timing that leaves out the time the progress hook spent inside the
 * kernel (that time is booked as the in-flight inner product's test time). */
typedef struct ovk__tic {
    double t0, p0;
} ovk__tic;


typedef struct ovk__solver {
    const char *name;
    const char *description;
    int (*solve)(ovk__ctx *c);
} ovk__solver;

/* ---- helpers shared by the variants (solver_common.c) ---------------- */

/* Start an in-place global sum of k values; times the start under dot's init
 * timer. */
int ovk__sum_begin(ovk__ctx *c, ovk__dot_id dot, double *vals, int k, ovk_request **req);
/* Complete it; times the wait under dot's wait timer. */
int ovk__sum_end(ovk__ctx *c, ovk__dot_id dot, ovk_request *req);
/* Both at once. */
int ovk__sum(ovk__ctx *c, ovk__dot_id dot, double *vals, int k);

/* bb = <b,b>, rr = <r,r> for the initial residual; returns a reason when
 * the solve is already decided (b == 0, converged at x0, non-finite). */
int ovk__initial_check(ovk__ctx *c, const double *r, double *bb, int *decided);

/* Per-iteration decision: records iterations and residual; sets *stop when
 * converged or non-finite.  Prints at print_level 2. */
void ovk__iterate_check(ovk__ctx *c, int iter, double iprod, double bb, int *stop);

/* Mark a breakdown or non-finite value found at iteration iter. */
void ovk__stop(ovk__ctx *c, int iter, ovk_reason why, const char *what, double value);

/* s = A p, timed as matvec, progress hook active. */
int ovk__ctx_matvec(ovk__ctx *c, const double *p, double *s);
/* r = b - A x (timed as matvec). */
int ovk__ctx_residual(ovk__ctx *c, double *r);
/* y = L^-1 x (DiagInvScale), with the local <y,y> when yy is not NULL;
 * timed as precond. */
void ovk__ctx_diaginv(ovk__ctx *c, const double *linv, const double *x, double *y, double *yy);
/* y += a x, timed as axpy. */
void ovk__ctx_axpy(ovk__ctx *c, double a, const double *x, double *y);
/* End of an iteration of the loops whose x update lags one step (alg2,
 * overlap): p_prev <- p, the convergence check, and on stopping (converged
 * or max_iter) the last x += alpha p.  Returns 1 when the loop must stop. */
int ovk__lagged_iter_end(ovk__ctx *c, int iter, double iprod, double bb, double alpha, double **p,
                         double **p_prev);
/* n doubles each, freed with free(); OVK_ENOMEM agreed on all ranks. */
int ovk__ctx_alloc(ovk__ctx *c, int count, double **v[]);

/* Seconds since an arbitrary origin. */
static inline double ovk__now(void) { return MPI_Wtime(); }

static inline ovk__tic ovk__tic_start(const ovk__ctx *c)
{
    ovk__tic k = {ovk__now(), c->progress_time};
    return k;
}

static inline void ovk__tic_stop(ovk__ctx *c, ovk_timer t, ovk__tic k)
{
    c->t[t] += (ovk__now() - k.t0) - (c->progress_time - k.p0);
}

/* The progress hook installed by ovk_pcg_solve: drives the reducer and books
 * the time as the in-flight inner product's test time. */
void ovk__ctx_progress(void *ctx);

/* ---- preconditioners (src/precond) ---------------------------------- */

/* Collective: OVK_EZERODIAG unless every diagonal entry is > 0. */
int ovk__diag_check(const ovk_matrix *A);
/* DiagScale with hypre's indirect addressing: s = r ./ a_ii; local <r,s> and <r,r>. */
void ovk__diagscale_dots(const ovk_matrix *A, const double *r, double *s, double *rs, double *rr,
                         const ovk__hook *h);
/* s = r (no preconditioner); local <r,s> and <r,r>. */
void ovk__identity_dots(int n, const double *r, double *s, double *rs, double *rr, const ovk__hook *h);
/* DiagInvScale setup: linv[i] = 1 / sqrt(a_ii) (all ones for OVK_PRECOND_NONE). */
int ovk__diaginv_setup(const ovk_matrix *A, ovk_precond pc, double **linv);

#endif

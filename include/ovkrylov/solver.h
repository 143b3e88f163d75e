/* ovkrylov: the solver object — set up once, solve many times.
 *
 *   ovk_solver *s;
 *   ovk_solver_create(A, &s);                          local
 *   ovk_solver_set_option(s, "solver", "pipecg");     local, by name
 *   ovk_solver_set_option(s, "precond", "ic0");
 *   ovk_solver_setup(s);                               collective
 *   for (...) ovk_solver_solve(s, b, x, &res);         collective
 *   ovk_solver_destroy(&s);                            collective
 *
 * Setup checks the options (the same on every rank: a cheap fingerprint
 * reduction names an option that differs), creates the reducer, the work
 * vectors, the preconditioner and the row statistics.  A solve on a set-up
 * object creates no communicator and allocates nothing proportional to the
 * rows, with one exception: plcg's first fallback to pipeprcg's recurrences
 * allocates their 9 vectors (agreed: OVK_ENOMEM on every rank), which the
 * object keeps for later solves.  Changing an option after setup needs another ovk_solver_setup
 * (ovk_solver_solve says OVK_ESTATE until then).  New values of the matrix
 * on the same pattern (ovk_matrix_update_values) are picked up by the next
 * solve, which redoes only the numeric setup (the preconditioner's factor,
 * diagonal or polynomial bounds, the row statistics).
 *
 * Operators and preconditioners of the application (matrix-free): a solver
 * made by ovk_solver_create_operator applies y = A x through a callback on
 * the rank's nlocal rows; ovk_solver_set_precond_fn does the same for
 * z = C r.  A callback may call ovk_solver_progress(s) inside its loops so
 * that reductions in flight keep moving.  A callback that returns nonzero
 * fails the solve with OVK_ECALLBACK on every rank: its output is replaced
 * by NaN, which every rank sees at the next reduction, so no rank waits
 * for one that stopped.  (A failing callback must still do whatever
 * communication its peers' calls do, e.g. its halo exchange: the library
 * cannot stand in for it.)
 *
 * What a callback (operator, preconditioner, monitor) may call while its
 * solver's setup or solve runs: ovk_solver_progress, the queries
 * (ovk_solver_nlocal, _comm, _get_option, _setup_time,
 * ovk_solver_vector_create), ovk_matvec and the vector functions, and
 * reductions of its own.  It must not change or free what the solve uses:
 * ovk_solver_destroy, _setup, _solve, any ovk_solver_set_* on the same
 * solver, ovk_matrix_update_values or ovk_matrix_destroy of its matrix,
 * ovk_reducer_destroy of its reducer are refused with OVK_EBUSY on the
 * calling rank, before any communication, and the solve goes on
 * undisturbed.
 *
 * A value refused by ovk_solver_set_option leaves the old one; setup
 * names an option whose value then differs across the ranks.  Setup also
 * checks that every rank's solver is on the same matrix (when the
 * matrix's communicator holds every process of MPI_COMM_WORLD: an
 * agreement on the matrices' own communicators could not be reached).
 *
 * Ownership: the object borrows the matrix (it must outlive the object and
 * keep its pattern), the callbacks' contexts, the history buffer and a
 * reducer given with ovk_solver_set_reducer; it owns the reducer it makes
 * from the "backend" option.  Options given as strings are copied.
 *
 * Options (ovk_solver_set_option, values as text; ovk_solver_get_option
 * reads them back):
 *   solver          alg1 | alg2 | overlap | cg1 | pipecg | groppcg | pipeprcg |
 *                   plcg[:l=L,lmin=A,lmax=B]  (docs/solvers.md)   (alg1)
 *   backend         reduction backend spec                  ($OVK_REDUCE_BACKEND, else blocking)
 *   precond         jacobi (diag) | none | ic0 | ssor[:omega=W] | cheby[:degree=K]   (jacobi)
 *   tol             relative tolerance > 0                  (1e-8)
 *   atol            absolute tolerance >= 0                 (0)
 *   max_iter        iteration limit >= 0                    (1000)
 *   print_level     0 | 1 | 2                               (0)
 *   progress_every  rows between progress calls; 0 default, -1 off   (0)
 *   condest         0 | 1                                   (0)
 *   replace_every   cg1/pipecg residual replacement (see pcg.h)       (0)
 * A solve converges when ||r||_2 < max(tol ||b||_2, atol).
 */
#ifndef OVKRYLOV_SOLVER_H
#define OVKRYLOV_SOLVER_H

#include <stddef.h>

#include "matrix.h"
#include "pcg.h"
#include "reduce.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ovk_solver ovk_solver;

/* out = OP(in) on the rank's rows (y = A x, or z = C r).  Return 0, or a
 * nonzero code of your own to fail the solve (OVK_ECALLBACK). */
typedef int (*ovk_apply_fn)(ovk_solver *s, const double *in, double *out, void *ctx);

/* Called on every rank after the initial residual (iteration 0) and after
 * every iteration with the same values: rnorm = ||r||_2 of the solver's
 * residual, rel = rnorm / ||b||_2.  Return 0 to go on, nonzero to stop
 * (OVK_ESTOPPED, reason OVK_REASON_MONITOR).  The ranks' answers are agreed
 * by one small blocking reduction per iteration, so a monitor costs the
 * latency hiding of that iteration. */
typedef int (*ovk_monitor_fn)(ovk_solver *s, int iteration, double rnorm, double rel, void *ctx);

/* Create a solver on an assembled matrix.  Local. */
int ovk_solver_create(const ovk_matrix *A, ovk_solver **s);
/* Create a solver on the application's operator: nlocal rows on this rank
 * (0 allowed), rows ordered by rank.  Collective over comm (the layout). */
int ovk_solver_create_operator(MPI_Comm comm, int nlocal, ovk_apply_fn matvec, void *ctx, ovk_solver **s);
/* Destroy *s and set it to NULL (NULL and *s == NULL allowed).  Collective
 * (the reducer it owns). */
int ovk_solver_destroy(ovk_solver **s);

/* Options by name (see above).  Local; OVK_EOPTION for an unknown key or a
 * malformed value.  Names of solvers, backends and preconditioners are
 * checked by ovk_solver_setup. */
int ovk_solver_set_option(ovk_solver *s, const char *key, const char *value);
/* The current value as text into buf (len bytes). */
int ovk_solver_get_option(const ovk_solver *s, const char *key, char *buf, size_t len);
/* All options of the struct form at once (its reducer, if any, borrowed). */
int ovk_solver_set_options(ovk_solver *s, const ovk_pcg_options *opts);
int ovk_solver_set_tolerances(ovk_solver *s, double tol, double atol, int max_iter);
/* Use red (borrowed; on the solver's communicator) instead of the backend
 * option; NULL goes back to the option. */
int ovk_solver_set_reducer(ovk_solver *s, ovk_reducer *red);
/* The application's preconditioner; fn NULL goes back to the precond
 * option.  Solvers that need a split C = L L^T (alg2, overlap) refuse it. */
int ovk_solver_set_precond_fn(ovk_solver *s, ovk_apply_fn fn, void *ctx);
int ovk_solver_set_monitor(ovk_solver *s, ovk_monitor_fn fn, void *ctx);
/* Coordinates of the rank's mesh nodes, for a preconditioner that builds a
 * near-null space from them (amg with bs > 1: the rigid-body modes of linear
 * elasticity, as PETSc's MatNullSpaceCreateRigidBody): nnodes points of dim
 * (1..3) doubles each, interleaved (x0 y0 z0 x1 y1 z1 ...), copied.  Node k
 * carries the rank's rows bs*k .. bs*k + bs-1.  dim 0 removes them; nnodes 0
 * (xyz may be NULL) on a rank without rows.  Local, but every rank must
 * give the same dim (checked at setup); takes effect at the next
 * ovk_solver_setup.  Preconditioners that need no coordinates ignore them. */
int ovk_solver_set_coordinates(ovk_solver *s, int dim, int nnodes, const double *xyz);
/* ||r||_2 of iterations 0, 1, ... into buf[0..len-1] (borrowed) during each
 * solve; res->history_len says how many were written.  buf NULL: off. */
int ovk_solver_set_history(ovk_solver *s, double *buf, int len);

/* Collective: check and agree the options, make the reducer, the work
 * vectors and the preconditioner. */
int ovk_solver_setup(ovk_solver *s);
/* Collective: solve A x = b, x the initial guess on entry.  Returns as
 * ovk_pcg_solve does (plus OVK_ESTOPPED, OVK_ECALLBACK); *res filled in
 * every case (res may be NULL). */
int ovk_solver_solve(ovk_solver *s, const ovk_vector *b, ovk_vector *x, ovk_pcg_result *res);

/* From inside a callback: drive the reductions in flight.  Local. */
int ovk_solver_progress(ovk_solver *s);

/* A zero vector with the solver's row layout; with data non-NULL the vector
 * wraps the caller's nlocal doubles instead (not freed by
 * ovk_vector_destroy).  Local. */
int ovk_solver_vector_create(const ovk_solver *s, double *data, ovk_vector **v);
int ovk_solver_nlocal(const ovk_solver *s);
MPI_Comm ovk_solver_comm(const ovk_solver *s);
/* Seconds of the last ovk_solver_setup (numeric setup included), max over
 * ranks. */
double ovk_solver_setup_time(const ovk_solver *s);

#ifdef __cplusplus
}
#endif
#endif

/* ovkrylov: the solver object — set up once, solve many times.
 *
 *   ovk_options_set_args(argc, argv);                 local, once (after MPI_Init)
 *   ovk_solver *s;
 *   ovk_solver_create(A, &s);                          local
 *   ovk_solver_set_option(s, "solver", "pipecg");     local, by name
 *   ovk_solver_set_from_options(s, NULL);              collective: -ovk_solver pipeprcg ... win
 *   for (...) ovk_solver_solve(s, b, x, &res);         collective (sets up what is not)
 *   ovk_solver_destroy(&s);                            collective
 *   ovk_options_finalize();                            local (warns of unused options)
 *
 * Setup checks the options (the same on every rank: a cheap fingerprint
 * reduction names an option that differs), creates the reducer, the work
 * vectors, the preconditioner and the row statistics.  It runs by itself
 * at the next solve after a change, redoing only what the change needs
 * (the backend: the reducer; precond: the preconditioner and its numeric
 * setup; solver: the variant's vectors; max_it, condest: the condition
 * estimate's room; a tolerance, print or view option: only the cross-rank
 * check); ovk_solver_setup does the same explicitly (to time it, or to
 * see a setup error apart from the solve), and costs one small reduction
 * when nothing changed.  A solve on a set-up object creates no
 * communicator and allocates nothing proportional to the rows, with two
 * exceptions (each allocation agreed: OVK_ENOMEM on every rank): plcg's
 * first fallback to pipeprcg's recurrences allocates their 9 vectors,
 * which the object keeps for later solves; and the solver auto, whose
 * measurements inside a solve (the second solve's, warm; with remeasure=1
 * the first after new values) take four vectors for the probe (grown to
 * the larger one's vectors where it times pipecg against a plcg), which
 * the new choice's vectors reuse when the choice changes (the old choice's
 * are freed) and are freed otherwise, and which after a breakdown of plcg
 * sets up pipeprcg in its place.  New values of the matrix on the same pattern
 * (ovk_matrix_update_values) are picked up by the next solve, which redoes
 * only the numeric setup (the preconditioner's factor, diagonal or
 * polynomial bounds, the row statistics).
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
 * What a callback (operator, preconditioner, monitor, convergence test)
 * may call while its solver's setup or solve runs: ovk_solver_progress,
 * the queries (ovk_solver_nlocal, _comm, _get_option, _setup_time, _view,
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
 * Ownership: the object holds a reference to the matrix (ovk_matrix_destroy
 * before the solver's destroy leaves it alive for the solver, which frees it
 * at its own destroy), borrows the callbacks' contexts, the history buffer and a
 * reducer given with ovk_solver_set_reducer; it owns the reducer it makes
 * from the "backend" option.  Options given as strings are copied.
 *
 * Options (ovk_solver_set_option, values as text; ovk_solver_get_option
 * reads them back; the options database spells each -[prefix]ovk_KEY):
 *   solver          SPD (CG variants): alg1 | alg2 | overlap | cg1 | pipecg | groppcg |
 *                   pipeprcg | plcg[:l=L,lmin=A,lmax=B] | scg[:s=S] | rpipecg | rcg;
 *                   any matrix: gmres[:restart=M,...] | fgmres[:restart=M] |
 *                   pgmres[:l=L,restart=M,lmin=A,lmax=B] | sgmres[:s=S,m=M,overlap=1] |
 *                   gcrodr[:restart=M] (with recycle=K) |
 *                   bicgstab | pipebicgstab |
 *                   idrs[:s=S] | pipeidrs[:s=S];
 *                   symmetric indefinite: minres | pminres;
 *                   either: auto[:...]           (docs/solvers.md)   (alg1)
 *   backend         reduction backend spec ($OVK_REDUCE_BACKEND, else blocking); read back
 *                   as resolved (the reducer's spec with its defaults once set up)
 *   precond         jacobi (diag) | none | ic0 | ssor[:omega=W] | cheby[:degree=K] | amg[:...];
 *                   any matrix: ilu0[:precision=P] | eisenstat[:omega=W];
 *                   fieldsplit[:type=T,0=P,1=P,schur=S] (saddle points; ovk_solver_set_fields)
 *                   (docs/preconditioners.md)                  (jacobi)
 *   rtol            relative tolerance > 0                  (1e-8)
 *   atol            absolute tolerance >= 0                 (0)
 *   divtol          diverged when ||r|| > divtol ||r0||; 0 off (0; PETSc's default is 1e4)
 *   max_it          iteration limit >= 0                    (1000)
 *   print_level     0 | 1: a line per solve (rank 0) | 2: ||r|| every iteration too   (0)
 *   progress_every  rows between progress calls; 0 default, -1 off   (0)
 *   condest         0 | 1                                   (0)
 *   replace_every   residual replacement of cg1, pipecg, pipebicgstab, pipeidrs, pminres (pcg.h) (0)
 *   initial_guess_zero  0 | 1: x0 = 0 whatever x holds; r0 = b without a product   (0)
 *   monitor         0 | 1: rank 0 prints ||r|| of every iteration (the norm the
 *                   variant reduces anyway: no reduction more)        (0)
 *   monitor_true    0 | 1: prints the true ||b - A x|| too: one product and one
 *                   blocking reduction more per iteration             (0)
 *   view            0 | 1: rank 0 prints ovk_solver_view after each setup   (0)
 *   converged_reason 0 | 1: rank 0 prints why each solve stopped     (0)
 *   assume_symmetric 0 | 1: A is declared symmetric (PETSc's MAT_SYMMETRIC): the
 *                   CG and MINRES variants take it so, unchecked; 0: its values
 *                   are checked, equal up to 2^-40 sqrt(m_i m_j) (m_i the
 *                   largest |a_ik| of row i)                         (0)
 *   nullspace       none | constant: the constant vector as A's null space (with
 *                   ovk_solver_set_nullspace's vectors, below)          (none)
 *   log_view        0 | 1: rank 0 prints the object's setup and solve times
 *                   (min/max/avg over ranks) at ovk_solver_destroy; the value
 *                   agreed at the last setup counts (docs/options.md)   (0)
 *   norm            unpreconditioned | natural: the convergence test's norm; natural
 *                   (alg1 only, else OVK_EUNSUPPORTED at setup): sqrt(<r, C r>) against
 *                   sqrt(<b, C b>), PETSc's KSP_NORM_NATURAL   (unpreconditioned)
 *   many_group      solve_many: systems whose vector updates run together between
 *                   products; 0: as fit the cache (docs/solvers.md)   (0)
 *   recycle         K in 0..32: the solver keeps a space of K vectors across its solves
 *                   (a sequence: time loop, Newton) and deflates it; rpipecg, rcg
 *                   and gcrodr (K < its restart), any other solver refuses it at setup (OVK_EOPTION naming those that
 *                   take it); ovk_solver_recycle_reset drops the space (call it when
 *                   a user operator's action changes: new values of a matrix are
 *                   seen by themselves, an operator's are not)   (0)
 * A solve converges when ||r||_2 < max(rtol ||b||_2, atol) (norm=natural:
 * sqrt(<r, C r>) < max(rtol sqrt(<b, C b>), atol)), or when the
 * application's convergence test says so.
 *
 * Status codes: an unknown key, a malformed value or an unknown name of a
 * solver or preconditioner is OVK_EOPTION (an unknown backend
 * OVK_EBACKEND); an argument the function cannot take (NULL, a negative
 * size) OVK_EINVAL; a call from a callback of the same solver OVK_EBUSY.
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
 * every iteration with the same values: rnorm = ||r||_2 of the residual the
 * variant reduces anyway (the recursive residual; of the pipelined
 * variants pipecg, groppcg, pipeprcg and plcg the norm that their one
 * reduction brings, which lags: it is the residual of an iterate the
 * recurrences have already moved past by the overlapped work), rel = rnorm
 * / ||b||_2.  No reduction of its own.  Return 0 to go on, nonzero to ask
 * to stop: the answers need not agree across ranks — each rank's request
 * rides, as one more value, in the next reduction the variant does
 * anyway, and every rank stops at the first iteration check after that
 * reduction completes (one iteration after the request for every variant
 * but plcg, up to l + 1 for plcg), with OVK_ESTOPPED and reason
 * OVK_REASON_MONITOR on every rank. */
typedef int (*ovk_monitor_fn)(ovk_solver *s, int iteration, double rnorm, double rel, void *ctx);

/* The convergence test's verdict. */
typedef enum ovk_verdict {
    OVK_VERDICT_CONTINUE = 0,  /* iterate on (max_it still stops) */
    OVK_VERDICT_CONVERGED = 1, /* stop: converged (OVK_OK, reason converged) */
    OVK_VERDICT_DIVERGED = 2   /* stop: OVK_EDIVERGED, reason diverged */
} ovk_verdict;

/* The application's convergence test, in place of ||r|| < max(rtol ||b||,
 * atol) (divtol, non-finite values and max_it still stop): called on every
 * rank at iteration 0 and after every iteration with rnorm as the monitor
 * gets it, bnorm = ||b||_2 and rnorm0 = ||r0||_2; returns an ovk_verdict.
 * Its verdict is applied at once, without a reduction, so it must be a
 * function of its arguments (and of what is the same on every rank): they
 * are reduced values, bitwise the same on every rank, so every rank
 * decides the same.  A test that consults rank-local state (a clock) must
 * agree its answer itself.  A converged verdict is taken as it is: the
 * variants that confirm the tolerance test with the true residual do not
 * second-guess it. */
typedef int (*ovk_converged_fn)(ovk_solver *s, int iteration, double rnorm, double bnorm, double rnorm0, void *ctx);

/* Create a solver on an assembled matrix.  Local. */
int ovk_solver_create(const ovk_matrix *A, ovk_solver **s);
/* Create a solver on the application's operator: nlocal rows on this rank
 * (0 allowed), rows ordered by rank.  Collective over comm (the layout). */
int ovk_solver_create_operator(MPI_Comm comm, int nlocal, ovk_apply_fn matvec, void *ctx, ovk_solver **s);
/* Destroy *s and set it to NULL (NULL and *s == NULL allowed).  Collective
 * (the reducer it owns).  The library's destroys: those that may
 * communicate, or be refused while a solve uses the object, return a
 * status (ovk_solver_destroy(&s), ovk_matrix_destroy(A),
 * ovk_reducer_destroy(red)); ovk_vector_destroy(v), local and unable to
 * fail, returns nothing.  Only the solver's takes the handle's address and
 * clears it (a solver is often kept in a struct field and destroyed from
 * several exits). */
/* Local: drop the space the option recycle keeps (the next solve starts
 * without one and builds it again). */
int ovk_solver_recycle_reset(ovk_solver *s);
int ovk_solver_destroy(ovk_solver **s);

/* Options by name (see above).  Local; OVK_EOPTION for an unknown key or a
 * malformed value.  Names of solvers, backends and preconditioners are
 * checked at the next setup (OVK_EOPTION, OVK_EBACKEND). */
int ovk_solver_set_option(ovk_solver *s, const char *key, const char *value);
/* The current value as text into buf (len bytes); "backend" as resolved
 * (the reducer's spec once set up, else the option, $OVK_REDUCE_BACKEND or
 * blocking).  Local. */
int ovk_solver_get_option(const ovk_solver *s, const char *key, char *buf, size_t len);
/* Where the value in effect comes from, as text into buf: "option KEY" (a
 * call: ovk_solver_set_option, _set_options or the options database),
 * "$VAR" (the option's environment variable: backend's
 * $OVK_REDUCE_BACKEND), "default", or for backend "the application's
 * reducer".  Local; OVK_EOPTION for an unknown key. */
int ovk_solver_get_option_origin(const ovk_solver *s, const char *key, char *buf, size_t len);
/* The option table itself (no solver needed; local, never fail): how many
 * options, and of index 0..count-1 the key, the line of help and the
 * default as text (NULL outside; a text option's default "" is unset: its
 * environment variable or the library's default applies);
 * ovk_solver_option_range writes "integer 0..2", "real > 0", ... into buf
 * (OVK_EINVAL for an index outside).  The bindings take the keys from
 * here, -ovk_help prints them. */
int ovk_solver_option_count(void);
const char *ovk_solver_option_name(int index);
const char *ovk_solver_option_help(int index);
const char *ovk_solver_option_default(int index);
int ovk_solver_option_range(int index, char *buf, size_t len);
/* All options of the struct form at once (its reducer, if any, borrowed):
 * each field sets its option through the table, as ovk_solver_set_option
 * would (every value is checked before any is stored: OVK_EOPTION names
 * the first refused and changes nothing); a NULL backend leaves that
 * option unset ($OVK_REDUCE_BACKEND, else blocking). */
int ovk_solver_set_options(ovk_solver *s, const ovk_solve_options *opts);
int ovk_solver_set_tolerances(ovk_solver *s, double tol, double atol, int max_iter);
/* Use red (borrowed; on the solver's communicator) instead of the backend
 * option; NULL goes back to the option. */
int ovk_solver_set_reducer(ovk_solver *s, ovk_reducer *red);
/* The application's preconditioner; fn NULL goes back to the precond
 * option.  Solvers that need a split C = L L^T (alg2, overlap) refuse it. */
int ovk_solver_set_precond_fn(ovk_solver *s, ovk_apply_fn fn, void *ctx);
/* The monitor (above); fn NULL removes it.  Local. */
int ovk_solver_set_monitor(ovk_solver *s, ovk_monitor_fn fn, void *ctx);
/* The convergence test (above); fn NULL goes back to the tolerances.  Local. */
int ovk_solver_set_convergence_test(ovk_solver *s, ovk_converged_fn fn, void *ctx);
/* Coordinates of the rank's mesh nodes, for a preconditioner that builds a
 * near-null space from them (amg with bs > 1: the rigid-body modes of linear
 * elasticity, as PETSc's MatNullSpaceCreateRigidBody): nnodes points of dim
 * (1..3) doubles each, interleaved (x0 y0 z0 x1 y1 z1 ...), copied.  Node k
 * carries the rank's rows bs*k .. bs*k + bs-1.  dim 0 removes them; nnodes 0
 * (xyz may be NULL) on a rank without rows.  Local, but every rank must
 * give the same dim (checked at setup); takes effect at the next
 * ovk_solver_setup.  Preconditioners that need no coordinates ignore them. */
int ovk_solver_set_coordinates(ovk_solver *s, int dim, int nnodes, const double *xyz);
/* The near-null space of A for a preconditioner that builds its coarse
 * spaces from one (amg with bs > 1), as PETSc's MatSetNearNullSpace: k
 * vectors (0 <= k <= 32) of the rank's rows, vectors[j] pointing at nlocal
 * doubles (copied; vectors may be NULL when k = 0 or nlocal = 0); k 0
 * removes them.  amg removes from each vector its part that is constant
 * in each of the bs unknowns of a node (the translations, which nodal
 * coarsening carries) and gives what remains (the rotations of
 * MatNullSpaceCreateRigidBody's modes) to hypre's interpolation, as it does
 * the rotations it makes from coordinates; given both, the vectors count.
 * Local, but every rank must give the same k (checked at setup); takes
 * effect at the next ovk_solver_setup; OVK_ENONFINITE naming the vector
 * and row holding a NaN or an infinity.  Preconditioners that take no
 * near-null space ignore it. */
int ovk_solver_set_near_nullspace(ovk_solver *s, int k, const double *const vectors[]);
/* The fields of a block system [[A, B^T], [B, -C]] (saddle points: velocity
 * and pressure, flux and pressure; KKT systems) for the fieldsplit
 * preconditioner: field_of_local_row[i] is 0 or 1 for each of the rank's
 * nlocal rows (copied; any interleaving; NULL on a rank without rows).
 * Collective: the ids are checked and the outcome agreed (OVK_EINVAL on
 * every rank naming the first row whose id is not 0 or 1); an empty field is
 * refused at setup.  Takes effect at the next ovk_solver_setup; other
 * preconditioners ignore it. */
int ovk_solver_set_fields(ovk_solver *s, const int *field_of_local_row);
/* The application's approximation of the Schur complement (a pressure
 * mass matrix) for fieldsplit's field 1 (schur=user, the default once one
 * is set): a matrix of field 1's rows, numbered in global row order, each
 * rank holding its own field-1 rows (checked at setup: OVK_EMISMATCH on
 * every rank).  Borrowed but kept alive as the solver's matrix is (its
 * ovk_matrix_destroy may come first); NULL drops it.  Local; call it on
 * every rank, and again after updating S's values.  Takes effect at the
 * next ovk_solver_setup. */
int ovk_solver_set_schur_matrix(ovk_solver *s, ovk_matrix *S);
/* The null space of a singular A (symmetric positive semi-definite, A Z =
 * 0), as PETSc's MatNullSpace: the constant vector when has_constant is 1,
 * and k vectors (0 <= k, has_constant + k <= 32) of the rank's rows,
 * vectors[j] pointing at nlocal doubles (copied; vectors may be NULL when
 * k = 0 or nlocal = 0).  Orthonormalised at the next setup, which fails
 * with OVK_EINVAL naming the vector when one is zero or depends on the
 * ones before it, or (an assembled matrix) when A does not annihilate it
 * (||A z||_2 > 1e-8 ||A||_inf, z normalised), OVK_ENONFINITE (the row)
 * when one holds a NaN or an infinity.  A solve then removes b's component in the null space
 * (res->nullspace_inconsistency reports ||Z^T b|| / ||b||), projects every
 * iteration's preconditioned residual (the projection's inner products in
 * the variant's own reduction: no reduction more per iteration) and
 * returns x without a null-space component; rel_residual is that of the
 * projected system.  The CG variants alg1, cg1, pipecg, groppcg, pipeprcg
 * and plcg take it, and auto (its choice does); the nonsymmetric solvers
 * (right-preconditioned: their residuals stay in A's range) take it with b
 * and x projected alone, no cost per iteration (for a nonsymmetric A, Z
 * must be A^T's null space too); in ovk_solver_solve and
 * ovk_solver_solve_many (each system its own inconsistency); alg2 and
 * overlap refuse it at setup (OVK_EUNSUPPORTED).  has_constant 0 and k 0 remove
 * it.  Collective: the arguments are checked and agreed (OVK_EINVAL on
 * every rank); every rank declares the same count.  The option
 * "nullspace constant" (-ovk_nullspace constant) adds the constant. */
int ovk_solver_set_nullspace(ovk_solver *s, int has_constant, int k, const double *const vectors[]);
/* The rigid-body modes of linear elasticity as the null space (a floating
 * body), as PETSc's MatNullSpaceCreateRigidBody: from nnodes points of dim
 * (2: 3 modes, two translations and a rotation; 3: 6 modes) coordinates
 * (x0 y0 z0 x1 ...), node i carrying the rows dim*i .. dim*i + dim-1
 * (nnodes * dim = nlocal).  Collective; as ovk_solver_set_nullspace. */
int ovk_solver_set_nullspace_rigid_body(ovk_solver *s, int dim, int nnodes, const double *xyz);
/* ||r||_2 of iterations 0, 1, ... into buf[0..len-1] (borrowed) during each
 * solve; res->history_len says how many were written.  buf NULL: off. */
int ovk_solver_set_history(ovk_solver *s, double *buf, int len);

/* Collective: check and agree the options, make the reducer, the work
 * vectors and the preconditioner — what is not made yet or an option
 * changed since (see above); one small reduction when nothing changed.
 * Optional: a solve does it by itself. */
int ovk_solver_setup(ovk_solver *s);
/* Collective: solve A x = b, x the initial guess on entry (zeroed first
 * with initial_guess_zero).  Sets up first what is not.  Returns as
 * ovk_pcg_solve does (plus OVK_ESTOPPED, OVK_ECALLBACK, OVK_EDIVERGED, and
 * any status of the setup); *res filled in every case (res may be NULL). */
int ovk_solver_solve(ovk_solver *s, const ovk_vector *b, ovk_vector *x, ovk_result *res);

/* Solve the k systems A X[j] = B[j] (j < k) together: each with its own
 * coefficients and convergence test, one reduction per reduction point
 * carrying all k systems' inner products (the latency paid once, not k
 * times; a pipelined variant's reduction overlaps as for one system), one
 * product per product point reading the matrix once for all k (one halo
 * message per neighbour).  Collective.  B and X are arrays of k vectors of
 * the solver's layout (X[j] holds the initial guess on entry, the solution
 * on return; the caller keeps owning them, none may overlap another);
 * results an array of k results, results[j] system j's (iterations,
 * reason, rel_residual, its timers; reductions: the whole batch's, the
 * same in each; auto_*: empty).  A system that stops without converging
 * or whose B[j] or X[j] holds a NaN or Inf (then not solved: reason
 * nonfinite, 0 iterations, X[j] unchanged) has its own reason in
 * results[j]; the others are unharmed.  Returns OVK_OK when every system
 * converged, else the status of the first one (lowest j) that did not, as
 * ovk_solver_solve would return it, with that system's detail
 * ("ovk_solver_solve_many: system j: " and ovk_solver_solve's); an argument error (k <= 0, a NULL
 * array or element, a vector of another layout, two vectors sharing
 * memory: OVK_EINVAL or OVK_EMISMATCH) or a setup error the same on every
 * rank, with no system solved.  The CG variants and auto (which runs the
 * variant it chose at setup for all k, measured once); the nonsymmetric
 * ones too (bicgstab, gmres, ...: each system's recurrence unchanged, its
 * reductions combined).  The monitor, the convergence test and the
 * application's operator and preconditioner are called per system: from
 * inside them ovk_solver_system_index says which.  The history buffer
 * records system 0's.  Unlike ovk_solver_solve it allocates per call (each
 * rank, agreed: OVK_ENOMEM on every rank): the k systems' work vectors, k
 * task stacks (2 MiB mapped each, touched as used) and the multi-vector
 * product's interleaved copies; all freed on return.  docs/solvers.md,
 * "Many right-hand sides". */
int ovk_solver_solve_many(ovk_solver *s, int k, ovk_vector *const *B, ovk_vector *const *X, ovk_result *results);
/* Inside a callback of ovk_solver_solve_many: the index j of the system
 * being solved; -1 outside it (and in ovk_solver_solve).  Local. */
int ovk_solver_system_index(const ovk_solver *s);

/* From inside a callback: drive the reductions in flight.  Local. */
int ovk_solver_progress(ovk_solver *s);

/* A zero vector with the solver's row layout; with data non-NULL the vector
 * wraps the caller's nlocal doubles instead (not freed by
 * ovk_vector_destroy).  Local. */
int ovk_solver_vector_create(const ovk_solver *s, double *data, ovk_vector **v);
int ovk_solver_nlocal(const ovk_solver *s);
MPI_Comm ovk_solver_comm(const ovk_solver *s);
/* Seconds of the last setup that did something (numeric setup included),
 * max over ranks. */
double ovk_solver_setup_time(const ovk_solver *s);

/* ---- what a solver reports by key ----------------------------------------
 *
 * Figures that belong to one solver type or feature rather than to every
 * solve, by key, so that bindings need not mirror the fields of
 * ovk_result they stand in (the fields stay for C programs, filled
 * once per solve):
 *   auto_choice              text: solver auto's chosen variant ("" else)
 *   auto_latency_us          solver auto: one blocking reduction's latency (us)
 *   auto_work_us             solver auto: one iteration's local work (us; NaN
 *                            where its vector steps alone chose alg1 or gmres)
 *   nullspace_inconsistency  with a null space: ||Z^T b|| / ||b|| (0 else)
 * Values of the last ovk_solver_solve (ovk_solver_solve_many: of its first
 * system; the others' are in their results), 0 and "" before any.  Local
 * and cheap (no communication): the values are the same on every rank
 * (agreed when measured).  An unknown key is OVK_EINVAL with the keys in
 * the detail; ovk_solver_get_info on a text key is OVK_EINVAL too (use
 * _get_info_text, which writes any key as text, numbers as %.17g).
 * ovk_solver_info_count/_name/_help list the keys (NULL outside),
 * ovk_solver_info_is_text says 1 for a text key, 0 for a number (-1
 * outside). */
int ovk_solver_get_info(const ovk_solver *s, const char *key, double *value);
int ovk_solver_get_info_text(const ovk_solver *s, const char *key, char *buf, size_t len);
int ovk_solver_info_count(void);
const char *ovk_solver_info_name(int index);
const char *ovk_solver_info_help(int index);
int ovk_solver_info_is_text(int index);

/* The layout of a struct the bindings mirror field for field (Python's
 * ctypes, Fortran's bind(C) types), checked by them at load: the offset
 * and size in bytes of field `field` of `type` ("ovk_result"), or of
 * the whole type when field is NULL (offset 0).  OVK_EINVAL for a type or
 * field the library does not list.  Local, no solver needed. */
int ovk_abi_field(const char *type, const char *field, size_t *offset, size_t *size);

/* Print the effective configuration to f: the variant and its options,
 * the preconditioner, the backend as resolved (and where it came from: the
 * option, $OVK_REDUCE_BACKEND, the default, the application's reducer),
 * the tolerances, the initial guess, the monitors, the matrix's sizes,
 * storage form and halo mode (the diagonal block as this rank stores it),
 * every option.  Local: call it on one rank (-ovk_view: rank 0 after each
 * setup). */
int ovk_solver_view(const ovk_solver *s, FILE *f);

/* ---- the options database (PETSc's KSPSetFromOptions) ------------------
 *
 * Entries "-name [value]" from the words of $OVK_OPTIONS (split at white
 * space), then from the program's arguments; the later of two entries of
 * one name wins (so the command line overrides the environment).  A word
 * after a name is its value unless it is itself a name (a number such as
 * -1 is a value); a name alone is a flag (value 1 for a 0|1 option).  The
 * library's names are -[prefix]ovk_KEY for the keys above: -ovk_solver
 * pipeprcg, -ovk_rtol 1e-6, -ovk_view, and with the prefix "pressure_"
 * -pressure_ovk_precond amg.  The database is one per process, not
 * thread-safe (set it up from one thread), and owned by the library. */

/* Hand the program's arguments (copied; argv[0] skipped) and read
 * $OVK_OPTIONS, replacing earlier ones.  Local; call it once, after
 * MPI_Init.  Without it the database holds $OVK_OPTIONS only. */
int ovk_options_set_args(int argc, char **argv);
/* Collective over the solver's communicator: set every option given as
 * -[prefix]ovk_KEY (prefix NULL or "": none; letters, digits and '_',
 * at most 219 of them, else OVK_EOPTION).  A $OVK_OPTIONS of more than
 * 256 words is OVK_EOPTION at every read of the database.  A bad value is the status of ovk_solver_set_option (OVK_EOPTION) on
 * every rank, the detail naming the entry; names of solvers, backends and
 * preconditioners are checked at the next setup.  Call it after the
 * program's own ovk_solver_set_option calls, so that the command line
 * overrides them.  With -ovk_help in the database (no prefix), rank 0 of
 * the solver's communicator then prints every -[prefix]ovk_KEY with its
 * current value, range and meaning, and the names to choose from. */
int ovk_solver_set_from_options(ovk_solver *s, const char *prefix);
/* The value of -name ("-n" or "n") into buf, *found = 1 (an empty string
 * for a flag), or *found = 0 (buf untouched).  Local; marks it used. */
int ovk_options_get(const char *name, char *buf, size_t len, int *found);
/* The same as an int or a double (a flag alone, without a value: 1 for
 * both); *value untouched when absent; OVK_EOPTION when malformed.  found
 * may be NULL. */
int ovk_options_get_int(const char *name, int *value, int *found);
int ovk_options_get_real(const char *name, double *value, int *found);
/* For a program's own argument parser: how many words at argv[i] belong to
 * a library option (a name containing "ovk_", and its value): 0, 1 or 2. */
int ovk_options_skip(int argc, char **argv, int i);
/* The library's entries no call has read (the names containing "ovk_",
 * and every entry of $OVK_OPTIONS), listed to f (NULL: counted only).
 * Local. */
int ovk_options_left(FILE *f);
/* Unless -ovk_options_left 0: rank 0 of MPI_COMM_WORLD prints a warning
 * to stdout listing the entries ovk_options_left would (with
 * -ovk_options_left 1 given: "every option was used" when none).  Then
 * frees the database.  Returns the number left (or a status < 0).  Local;
 * call it before MPI_Finalize. */
int ovk_options_finalize(void);
/* Free the database (no listing).  Local. */
void ovk_options_clear(void);

#ifdef __cplusplus
}
#endif
#endif

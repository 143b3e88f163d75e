/* The preconditioner interface: one preconditioner per file, each exporting
 * its ops, `const ovk__pc_type ovk__pc_NAME`, listed by name with its
 * description and keys in registry_list.h and chosen by a spec
 * "name[:key=value,...]" like the backends.
 *
 * A preconditioner applies C ~ A^-1 to the rank's rows.  It sits beside the
 * solvers, above matrices and vectors: it may read the matrix and run its
 * kernels, never a reduction of the solve (its setup may reduce, on the
 * matrix's communicator, and must make every rank decide the same).
 *
 * Lifetimes: create parses the options (local); setup does the numeric work
 * on the matrix's current values and may be called again after a value
 * update (collective: its status is agreed by the caller); apply runs in
 * every iteration and must not allocate; destroy frees everything. */
#ifndef OVK_PRECOND_H
#define OVK_PRECOND_H

#include "../internal.h"
#include "../matrix/matrix.h"

/* What setup sees. */
typedef struct ovk__pc_env {
    const ovk_matrix *A; /* NULL when the solver runs a user operator */
    int n;               /* local rows */
    MPI_Comm comm;       /* the solver's communicator */
    /* ovk_solver_set_coordinates: ncoords points of coord_dim doubles,
     * interleaved (coord_dim 0: none given) */
    int coord_dim, ncoords;
    const double *coords;
    /* ovk_solver_set_near_nullspace: nns_k vectors of n doubles, one after
     * the other (nns_k 0: none given) */
    int nns_k;
    const double *nns;
    /* ovk_solver_set_fields: the field (0 or 1) of each of the n rows, or
     * NULL (none given); ovk_solver_set_schur_matrix: the application's
     * Schur complement approximation, or NULL (fieldsplit.c) */
    const int *fields;
    const ovk_matrix *schur;
    int nonsymmetric;    /* the solver assumes no symmetry: a_ii of either sign is fine */
    int singular;        /* a null space is declared: A (and a coarse level) is singular */
    /* the declared null space, set up: ns_k orthonormal vectors of n rows,
     * n apart (ns_k 0: none; fieldsplit finds which block is singular) */
    int ns_k;
    const double *ns;
    /* out (NULL: not wanted): a setup whose own pass summed |a_ij| over each
     * of the rank's rows of A's current values (both blocks) may store the
     * largest sum, the rank's ||A||_inf; the solver then makes no pass of
     * its own for it.  Left alone otherwise. */
    double *row_l1_max;
} ovk__pc_env;

/* A preconditioner's ops: its math and what it needs.  Its name, alias,
 * description and keys are the registry's (registry_list.h). */
typedef struct ovk__pc_type {
    int needs_matrix;        /* 1: refuses a user operator (reads A) */
    int fixed;               /* 1: C does not scale with A (C = I); else C ~ A^-1, so
                                that 2^k A takes 2^-k C (a scaled solve, scaling.c) */
    /* Parse options (ovk__opt_*; unread ones are refused by the caller). */
    int (*create)(ovk__opts *opts, void **state);
    /* Numeric setup on A's current values. */
    int (*setup)(void *state, const ovk__pc_env *env);
    /* z = C r (r and z distinct); the hook keeps reductions in flight moving. */
    int (*apply)(void *state, const double *r, double *z, const ovk__hook *h);
    /* Optional: z = C r with the local <r,z> and <r,r> in the same pass. */
    int (*apply_dots)(void *state, const double *r, double *z, double *rz, double *rr, const ovk__hook *h);
    /* Optional: k systems in one pass (ovk_solver_solve_many): z[j] = C r[j],
     * each bitwise apply's, or with rz and rr (k values each) apply_dots's.
     * Without it a batch applies C system by system. */
    int (*apply_many)(void *state, int k, const double *const *r, double *const *z, double *rz, double *rr,
                      const ovk__hook *h);
    /* Optional split form C = L^-T L^-1 (PCG-Algorithm2/Overlap): t = L^-1 r
     * and w = L^-T t.  Both or neither. */
    int (*apply_left)(void *state, const double *r, double *t, const ovk__hook *h);
    int (*apply_right)(void *state, const double *t, double *w, const ovk__hook *h);
    /* Optional two-sided split C = M^-1, M = Lt Ut, with a product of A^ =
     * Lt^-1 A Ut^-1 cheaper than C then A (Eisenstat's trick, eisenstat.c):
     * a solver may iterate on A^ x^ = sigma Lt^-1 (b - A x0), x = x0 +
     * Ut^-1 x^ / sigma, and must judge convergence on b - A x itself.
     * sigma is a power of two of the setup (the same on every rank) that
     * keeps r^ the size of r.  All three or none; for an assembled A only
     * (needs_matrix).
     *   split_in:  rh = sigma Lt^-1 r (local; rh may be r)
     *   split_op:  w = A^ v with A the matrix of the setup, kept in the
     *              state (collective: the halo exchange of A; v and w distinct)
     *   split_out: x = 2^k Ut^-1 xh / sigma (local; x and xh distinct; k:
     *              a scaled solve's -kc, as 2^-kc C, 0 otherwise)
     * They share a scratch vector of the state: one call at a time. */
    int (*split_in)(void *state, const double *r, double *rh, const ovk__hook *h);
    int (*split_op)(void *state, const double *v, double *w, const ovk__hook *h);
    int (*split_out)(void *state, const double *xh, double *x, int k, const ovk__hook *h);
    /* Optional: C = diag(d): d, for the solvers' fused kernels; and the split
     * L^-1 = diag(l) (l = sqrt(d)).  NULL when C is not diagonal. */
    const double *(*diagonal)(void *state);
    const double *(*split_diagonal)(void *state);
    /* Optional: C r = r ./ a computed by division (hypre's DiagScale): a,
     * for the fused kernels that must match apply_dots bit for bit. */
    const double *(*divisor)(void *state);
    void (*destroy)(void *state);
    /* Optional: what the last setup built, for ovk_solver_view (local: rank 0
     * prints; figures the setup gathered). */
    void (*view)(void *state, FILE *f);
    int symmetric_only; /* 1: C is built for symmetric A (ic0, cheby): refused with a nonsymmetric matrix or solver */
} ovk__pc_type;

/* A preconditioner instance. */
typedef struct ovk__pc {
    const ovk__pc_type *type;
    void *state;
    const char *name; /* the registry's name of type, or "user" (static text) */
} ovk__pc;

/* Parse spec and create the instance (local).  Unknown names are
 * OVK_EINVAL, unknown or bad options OVK_EOPTION, each with the list of what
 * exists.  NULL or "" means "jacobi". */
int ovk__pc_create(const char *spec, ovk__pc *pc);
/* The user's preconditioner callback as an instance (user.c). */
int ovk__pc_create_user(ovk_apply_fn fn, void *ctx, ovk_solver *owner, ovk__pc *pc);
void ovk__pc_destroy(ovk__pc *pc);


/* ---- helpers shared by the preconditioners ------------------------------ */

/* Collective over A's communicator: OVK_EZERODIAG unless every a_ii > 0
 * (any_sign: every a_ii nonzero, as a nonsymmetric solver needs). */
int ovk__pc_diag_check(const ovk_matrix *A, const char *who);
int ovk__pc_diag_check_sign(const ovk_matrix *A, const char *who, int any_sign);

/* n doubles (at least one), OVK_ENOMEM with a detail naming who. */
int ovk__pc_alloc(int n, const char *who, double **v);
/* *state = a zeroed state of `size` bytes, for a create without options;
 * OVK_ENOMEM naming who. */
int ovk__pc_zeroed_state(size_t size, const char *who, void **state);

/* The rank's diagonal block as an upper triangle in CSR (tri.c): row i holds
 * a_ii first, then a_ij for j > i in increasing j.  From the matrix's
 * symmetric or full storage (for a full block the upper triangle is used as
 * is, which is the block's own when the block is symmetric). */
typedef struct ovk__upper {
    int n;
    int *ptr;    /* n+1 */
    int *col;    /* ptr[n] */
    double *val; /* ptr[n] */
} ovk__upper;

int ovk__upper_from(const ovk_matrix *A, ovk__upper *u);
void ovk__upper_free(ovk__upper *u);
/* Triangular solves with U, its off-diagonal entries scaled by w (w = 1:
 * U itself; SSOR: D + w U).  y may alias r.  The hook is called every
 * h->every rows.
 *   forward:  (D_U + w L)^T-shaped solve U_w^T y = r:
 *             y_i = (r_i - w sum_{k<i} u_ki y_k) / u_ii
 *   backward: U_w y = r:  y_i = (r_i - w sum_{j>i} u_ij y_j) / u_ii */
void ovk__upper_solve_t(const ovk__upper *u, double w, const double *r, double *y, const ovk__hook *h);
void ovk__upper_solve(const ovk__upper *u, double w, const double *r, double *y, const ovk__hook *h);
/* k <= OVK__UPPER_BLOCK_MAX systems at once (apply_many), U read once per
 * sweep: z[j] = U_w^-1 S U_w^-T r[j] (S = diag(scale), or none when
 * scale is NULL) through yb, n k doubles of the caller's with the k
 * systems interleaved; each z[j] bitwise the single solves' (the same
 * operations per system in the same order).  z[j] may be r[j]. */
enum { OVK__UPPER_BLOCK_MAX = 16 };
void ovk__upper_sweeps_block(const ovk__upper *u, double w, const double *scale, int k, const double *const *r,
                             double *const *z, double *yb, const ovk__hook *h);
/* Any k through ovk__upper_sweeps_block with the block kept in *sc (grown
 * as needed; free sc->yb to release it): OVK_OK, or OVK_ENOMEM without a
 * failure detail when the block cannot be had (nothing done: the caller
 * applies system by system, with the same bits). */
typedef struct ovk__upper_scratch {
    double *yb;
    size_t len;
} ovk__upper_scratch;
int ovk__upper_apply_many(const ovk__upper *u, double w, const double *scale, int k, const double *const *r,
                          double *const *z, ovk__upper_scratch *sc, const ovk__hook *h);

/* A strict triangle of a rank's block as CSR, as a triangular sweep reads
 * it (tri.c; ilu0, eisenstat): columns in col or as off (j - i), values
 * in val or valf, one of each pair kept. */
typedef struct ovk__tri {
    int *ptr, *col;
    int16_t *off;
    double *val;
    float *valf;
} ovk__tri;

void ovk__tri_free(ovk__tri *t);
/* 1 when every column of t's n rows is within 16 bits of its row */
int ovk__tri_offsets_fit(const ovk__tri *t, int n);
/* t's columns as 16-bit offsets (off), its values as float (single): the
 * copies replace the wide arrays; OVK_ENOMEM naming who */
int ovk__tri_compact(ovk__tri *t, int n, int off, int single, const char *who);

/* The amg preconditioner's own V-cycle (amg_cycle.c) over a hierarchy of
 * at least two levels read through lv (amg_levels.h: hypre's BoomerAMG's
 * after its setup, or setup=agg's), which must outlive the cycle.
 * Setup is collective over comm (statuses agreed) and copies the coarse
 * levels' matrices; A (level 0) is borrowed and must outlive the cycle.
 * smoothing: `degree` steps of Chebyshev iteration on D^-1 A (D the l1 row
 * norms; interval [emax / ratio, emax], emax estimated), or with jacobi
 * `degree` l1-Jacobi sweeps; with single the coarse levels multiply with
 * float values (rounded A_l, which the matrix layer then stores in 4 bytes
 * a value; P_l copied, amg_transfer.c).  Apply is local but for the halo exchanges and
 * the coarsest solve's gather, allocates nothing and calls the hook. */
typedef struct ovk__amg_cycle ovk__amg_cycle;
typedef struct ovk__amg_cycle_opts {
    int degree, jacobi;
    double ratio;
    int single; /* the coarse levels' values in float: the rounded A_l (l >= 1), the P_l */
    double corr; /* each coarse correction times corr (1: none; 0 taken as 1) */
} ovk__amg_cycle_opts;
typedef struct ovk__amg_levels ovk__amg_levels;
int ovk__amg_cycle_setup(const ovk__amg_levels *lv, const ovk_matrix *A, MPI_Comm comm, const ovk__amg_cycle_opts *o,
                         ovk__amg_cycle **out);
int ovk__amg_cycle_apply(const ovk__amg_cycle *c, const double *r, double *z, const ovk__hook *h);
/* z[j] = the cycle of r[j] for k systems, each level's matrix read once a
 * product for all k, each z[j] bitwise ovk__amg_cycle_apply's.  Collective
 * when k grows past every earlier k (the room for k systems, kept with the
 * cycle: OVK_ENOMEM on every rank without it); k the same on every rank. */
int ovk__amg_cycle_apply_many(ovk__amg_cycle *c, int k, const double *const *r, double *const *z,
                              const ovk__hook *h);
/* The hierarchy is of 2^-e times the level-0 matrix (amg.c hands hypre a
 * unit-scale copy): the coarse correction is scaled back by 2^-e. */
void ovk__amg_cycle_set_scale(ovk__amg_cycle *c, int e);
/* Collective: the cycle on the new values of the same hierarchy (hypre's
 * A_l made again on the kept P_l; level 0's matrix updated in place): each
 * level's values, l1 norms and smoother bounds, its storage and halo plan
 * kept.  OVK_EMISMATCH when a level's pattern is not the one the cycle was
 * built on (free the cycle and set it up again); on any error the cycle is
 * partly refreshed and must be freed. */
int ovk__amg_cycle_refresh(ovk__amg_cycle *c, MPI_Comm comm);
/* Collective: level 0's smoother on the new values of the solver's matrix
 * (the coarse levels kept), from l1 (the l1 norm of each of the rank's
 * rows of A) and the global maxima rho = max_i d0_i / e_i and gamma =
 * max_i c_i / e_i, where for A = S B S (S diagonal, positive) e_i = d_i /
 * s_i^2 (d_i = l1[i]), d0_i is the l1 norm of row i of the setup's A_0 and
 * c_i = sum_j |b_ij - a0_ij|: emax(D^-1 A) = emax(E^-1 B) <= emax(D0^-1 A_0)
 * rho + gamma, so the setup's estimate times rho plus gamma bounds the new
 * largest eigenvalue as well as that estimate bounded the old one.  Taken
 * (at most 1) when it is close to the setup's, else one power step
 * estimates as ovk__amg_cycle_refresh does (*derived = 0).  On an error (a non-finite l1
 * norm: OVK_EPRECOND) the cycle must be freed. */
int ovk__amg_cycle_refresh_bound(ovk__amg_cycle *c, MPI_Comm comm, const double *l1, double rho, double gamma,
                                 int *derived);
/* Local: level 0's Chebyshev bound emax (0: none, l1-Jacobi or one level). */
double ovk__amg_cycle_emax(const ovk__amg_cycle *c);
/* Collective: level 0's transfers those of diag(w) P_0 (w: a positive
 * factor for each of the rank's rows; NULL: P_0's own, as a setup leaves
 * them): the restriction P_0^T diag(w), the interpolation diag(w) P_0.
 * For A = S A_0 S (S diagonal) the hierarchy set up on A_0 with w = S^-1
 * gives the Galerkin coarse correction of A on the kept interpolation
 * S^-1 P_0.  The room it needs (a copy of P_0's values, or the float
 * copy's transpose places) is made at the first call, agreed before any
 * rank scales: OVK_ENOMEM on every rank leaves every rank's P_0 as it was. */
int ovk__amg_cycle_scale(ovk__amg_cycle *c, MPI_Comm comm, const double *w);
void ovk__amg_cycle_free(ovk__amg_cycle *c);

#endif

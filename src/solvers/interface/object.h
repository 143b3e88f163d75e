/* The solver object's struct and what the files of the object share
 * (object.c: creation and destroy; object_options.c: the option table;
 * object_setup.c; object_solve.c; object_view.c): the marks of what a
 * changed option makes the next setup redo, the parts of the object, and
 * the checks every public call makes of its handle.  Private to
 * src/solvers/interface: the public side is include/ovkrylov/solver.h. */
#ifndef OVK_OBJECT_H
#define OVK_OBJECT_H

#include <stdint.h>

#include "log_view.h"
#include "option_table.h"
#include "../solver.h"

#define OVK__SOLVER_MAGIC 0x6f766b73u /* "ovks" */

/* What a changed option makes the next setup redo (the next solve runs
 * that setup by itself): the cross-rank check of the options, the solve
 * context, the reducer, the preconditioner, the variant's work and
 * vectors, the condition estimate's room. */
enum {
    OVK__REDO_CHECK = 1u,
    OVK__REDO_CTX = 2u,
    OVK__REDO_REDUCER = 4u,
    OVK__REDO_PC = 8u,
    OVK__REDO_VARIANT = 16u,
    OVK__REDO_CONDEST = 32u,
    OVK__REDO_ALL = 63u
};

/* The application's preconditioner (a user preconditioner) and its
 * context; its operator (A NULL) is the context's (c.cb), set once at
 * creation. */
typedef struct ovk__solver_fns {
    ovk_apply_fn pc;
    void *pc_ctx;
} ovk__solver_fns;

/* What the preconditioner's setup reads besides A.  The coordinates of a
 * near-null space (ovk_solver_set_coordinates): an owned copy, n points of
 * dim doubles; the near-null space's vectors
 * (ovk_solver_set_near_nullspace): an owned copy, nns_k vectors of the
 * rank's rows one after the other; the field of each row
 * (ovk_solver_set_fields): an owned copy, or NULL; the application's Schur
 * matrix (ovk_solver_set_schur_matrix): one reference of the solver's, or
 * NULL; whether A is declared symmetric (option assume_symmetric). */
typedef struct ovk__solver_coords {
    double *xyz;
    int dim, n;
    double *nns;
    int nns_k;
    int *fields;
    ovk_matrix *schur;
    int symmetric; /* option assume_symmetric: A declared symmetric, its values not checked */
} ovk__solver_coords;

/* Refusals kept for the next setup or solve (ovk__solver_refuse,
 * ovk__solver_refuse_solve) and their details. */
typedef struct ovk__solver_refusal {
    int setup;
    char setup_detail[256];
    int solve;
    char solve_detail[256];
} ovk__solver_refusal;

/* What runs now: "setup" or "solve" while one runs (its callbacks may
 * call in), and in ovk_solver_solve_many the system whose code runs. */
typedef struct ovk__solver_running {
    const char *call;
    int system;              /* else -1 */
} ovk__solver_running;

/* What setup made: the variant, the reducer and the preconditioner. */
typedef struct ovk__solver_made {
    int ready;
    const ovk__solver *sv;
    void *params;
    ovk__variant var;        /* the variant's work struct and vectors */
    ovk__pc pc;
    ovk_reducer *red;
    int red_owned;
    uint64_t red_from;       /* the owned reducer: the fingerprint of the backend option it was made
                                from (the spec itself is held once, in backend_spec) */
    double setup_time;
} ovk__solver_made;

/* What setup learned of A's values: the version the numeric setup saw,
 * the symmetry check's, ||A||_inf on the rank as the preconditioner's
 * setup summed it for the values of pc_l1_version (pc_l1_max < 0: not
 * summed), and the rank's longest row (>= 0: known; value updates keep
 * the pattern). */
typedef struct ovk__solver_seen {
    unsigned long version;
    int sym_ok;              /* A's values of sym_version are symmetric (checked for a CG variant) */
    unsigned long sym_version;
    double pc_l1_max;
    unsigned long pc_l1_version;
    int longest_row;
    ovk__elim elim;          /* a CG variant's: A's Dirichlet rows eliminated (E the solve's matrix), or none */
} ovk__solver_seen;

/* What changed since the last setup: OVK__REDO_* of the options changed, and
 * a bit per option of the table a call set (not left at its default). */
typedef struct ovk__solver_marks {
    unsigned dirty;
    unsigned opt_set;
} ovk__solver_marks;

/* What the object keeps of its solves: -ovk_log_view's times (log_view.c)
 * and the last result, for ovk_solver_get_info (info.c). */
typedef struct ovk__solver_record {
    ovk__log log;
    ovk_result last;
} ovk__solver_record;

struct ovk_solver {
    unsigned magic;
    const ovk_matrix *A;     /* borrowed; NULL for an operator */
    ovk__layout own_lay;     /* the operator's rows */
    const ovk__layout *lay;
    ovk__solver_fns fns;
    /* the settings the option table (below) reads and writes */
    ovk_solve_options o;       /* its strings point into the buffers below */
    char solver_spec[128], backend_spec[256], precond_spec[256];
    ovk__monitor mon;        /* its true_r and stage owned */
    int guess_zero, view, converged_reason, log_view;
    char nullspace_spec[16]; /* option nullspace: "" | none | constant */
    ovk_reducer *user_red;   /* borrowed */
    ovk__solver_marks marks;
    ovk__solver_coords coords;
    ovk__nullspace ns;       /* ovk_solver_set_nullspace's copy and, set up, the basis */
    ovk__solver_refusal refusal;
    ovk__solver_running running;
    /* set up */
    ovk__solver_made made;
    ovk__solver_seen seen;
    ovk__ctx c;
    ovk__solver_record rec;
};

static inline int ovk__solver_valid(const ovk_solver *s) { return s && s->magic == OVK__SOLVER_MAGIC; }

static inline int ovk__solver_not_solver(const char *fn)
{
    return ovk__fail(OVK_EINVAL, "%s: not a solver (NULL, destroyed or never created)", fn);
}

/* Calls that change or free the object are refused while a setup or solve
 * of it runs, i.e. from its own callbacks: locally, before any
 * communication, so that the solve goes on undisturbed on every rank. */
static inline int ovk__solver_check_usable(const ovk_solver *s, const char *fn)
{
    if (!ovk__solver_valid(s)) return ovk__solver_not_solver(fn);
    if (s->running.call)
        return ovk__fail(OVK_EBUSY,
                         "%s: called from a callback during ovk_solver_%s of the same solver; the object cannot "
                         "change until it returns",
                         fn, s->running.call);
    return OVK_OK;
}

/* ---- object_options.c: the option table's side for the other files ---- */

/* every option at its default (creation): not counted as set; local */
void ovk__solver_set_defaults(ovk_solver *s);
/* the key of the option stored at offsetof(ovk_solver, field) == off ("?" when none) */
const char *ovk__solver_key_at(size_t off);
/* 1 when the option norm asks for the natural norm */
int ovk__solver_natural_norm(const ovk_solver *s);
/* the backend as it is or will be resolved (the reducer's spec, the
 * option's sources, else the default); its origin as text */
const char *ovk__solver_backend(const ovk_solver *s);
int ovk__solver_backend_origin(const ovk_solver *s, char *buf, size_t len);
/* the value in effect of option i as text; snprintf's count */
int ovk__solver_option_value(const ovk_solver *s, int i, char *buf, size_t len);
/* Collective: OVK_EOPTION naming the first option (or setting) whose value
 * differs across the ranks */
int ovk__solver_check_same(ovk_solver *s);

/* ---- object_setup.c: what destroy and the solves call ---- */

/* free what setup made (local) */
void ovk__solver_teardown(ovk_solver *s);
/* Collective: everything that depends on A's values (the preconditioner's
 * part only with pc_too) */
int ovk__solver_numeric_setup(ovk_solver *s, int pc_too);
/* the context's per-solve state as before any solve (local) */
void ovk__solver_reset_solve_state(ovk__ctx *c);
/* a call on a handle that is not a solver: refused, meeting the other
 * ranks' first agreement (EBUSY stays local) */
int ovk__solver_refuse_call(int bad, const char *fn);
/* Collective: a solve's setup of what changed; mine: this rank's argument
 * checks, *bad_args: whether some rank's failed (agreed) */
int ovk__solver_setup_on_demand(ovk_solver *s, int mine, int *bad_args);

#endif

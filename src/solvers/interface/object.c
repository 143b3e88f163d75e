/* The solver object: options by name, setup (agreed checks, the reducer,
 * the work vectors, the preconditioner, the row statistics), many solves,
 * value updates picked up by a numeric setup, destroy. */
#include <ctype.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "object.h"
#include "log_view.h"
#include "option_table.h"
#include "../solver.h"

enum { DEFAULT_PROGRESS_ROWS = 8192, NORM_STEPS = 12 };

/* ---- creation ----------------------------------------------------------- */

static int solver_new(ovk_solver **out)
{
    ovk_solver *s = calloc(1, sizeof *s);
    if (!s) return ovk__fail(OVK_ENOMEM, "solver object");
    s->magic = OVK__SOLVER_MAGIC;
    s->own_lay.comm = MPI_COMM_NULL;
    ovk_solve_options_init(&s->o);
    ovk__solver_set_defaults(s);
    s->seen.pc_l1_max = -1.0, s->seen.longest_row = -1; /* not summed, not known */
    s->o.solver = s->solver_spec;
    s->o.precond_spec = s->precond_spec;
    s->o.backend = NULL;
    s->running.system = -1;
    s->c.cb.owner = s; /* what the callbacks are handed */
    s->c.sym.nullspace_key = ovk__solver_role_key(OVK__ROLE_NULLSPACE); /* named in breakdown hints */
    *out = s;
    return OVK_OK;
}

int ovk_solver_create(const ovk_matrix *A, ovk_solver **out)
{
    if (!out) return ovk__fail(OVK_EINVAL, "ovk_solver_create: NULL output");
    *out = NULL;
    if (!A) return ovk__fail(OVK_EINVAL, "ovk_solver_create: NULL matrix");
    int rc = solver_new(out);
    if (rc) return rc;
    (*out)->A = A;
    (*out)->lay = &A->lay;
    ovk__matrix_ref(A, 1); /* A lives while the solver does, ovk_matrix_destroy or not */
    return OVK_OK;
}

/* the local part of ovk_solver_create_operator: the arguments, the object */
static int operator_new(int nlocal, ovk_apply_fn matvec, ovk_solver **out, ovk_solver **s)
{
    if (!out) return ovk__fail(OVK_EINVAL, "ovk_solver_create_operator: NULL output");
    if (nlocal < 0) return ovk__fail(OVK_EINVAL, "ovk_solver_create_operator: nlocal = %d < 0", nlocal);
    if (!matvec) return ovk__fail(OVK_EINVAL, "ovk_solver_create_operator: NULL operator callback");
    return solver_new(s);
}

int ovk_solver_create_operator(MPI_Comm comm, int nlocal, ovk_apply_fn matvec, void *ctx, ovk_solver **out)
{
    return ovk__solver_create_operator_base(comm, nlocal, matvec, ctx, 0, out);
}

int ovk__solver_create_operator_base(MPI_Comm comm, int nlocal, ovk_apply_fn matvec, void *ctx, int base,
                                     ovk_solver **out)
{
    ovk_solver *s = NULL;
    int64_t mine = nlocal, start = 0;
    int rank = 0;
    if (comm == MPI_COMM_NULL) return ovk__fail(OVK_EINVAL, "ovk_solver_create_operator: MPI_COMM_NULL");
    if (out) *out = NULL;
    int rc = ovk__agree(comm, operator_new(nlocal, matvec, out, &s));
    if (rc) goto cleanup;
    rc = ovk__mpi(MPI_Exscan(&mine, &start, 1, MPI_INT64_T, MPI_SUM, comm), "MPI_Exscan");
    if (rc) goto cleanup;
    MPI_Comm_rank(comm, &rank);
    rc = ovk__layout_init_base(comm, rank == 0 ? 0 : start, nlocal, base, &s->own_lay);
    if (rc) goto cleanup;
    s->lay = &s->own_lay;
    s->c.cb.op = matvec; /* the context's, kept across setups */
    s->c.cb.op_ctx = ctx;
    *out = s;
    return OVK_OK;
cleanup:
    if (s) free(s);
    return rc;
}

/* ---- setup -------------------------------------------------------------- */

/* Free what the next setup redoes (all of it on OVK__REDO_ALL).  Local. */
static void undo(ovk_solver *s, unsigned redo)
{
    ovk__ctx *c = &s->c;
    if (redo & OVK__REDO_VARIANT) {
        ovk__variant_free(&s->made.var);
        free(s->made.params);
        s->made.params = NULL;
        s->made.sv = NULL;
    }
    if (redo & OVK__REDO_PC) ovk__pc_destroy(&s->made.pc);
    if (redo & OVK__REDO_CONDEST) {
        free(c->lanczos.alpha);
        c->lanczos.alpha = c->lanczos.beta = c->lanczos.work = NULL;
        c->lanczos.cap = 0;
    }
    if (redo & OVK__REDO_CTX) {
        free(s->mon.true_r);
        free(s->mon.stage);
        s->mon.true_r = NULL;
        s->mon.stage = NULL;
    }
    s->made.ready = 0;
}

static void teardown(ovk_solver *s) { undo(s, OVK__REDO_ALL); }

/* a failure of a registry that names the wrong code for a bad option value
 * (an unknown name): OVK_EOPTION, the detail kept */
static int bad_option(int rc)
{
    char detail[512];
    if (rc != OVK_EINVAL) return rc;
    snprintf(detail, sizeof detail, "%s", ovk_error_detail());
    return ovk__fail(OVK_EOPTION, "%s", detail);
}

/* the variant and its spec options */
static int pick_solver(ovk_solver *s)
{
    char name[64], list[256];
    ovk__opts opts;
    int rc = ovk__spec_parse(ovk__solver_role_key(OVK__ROLE_SOLVER), OVK_EOPTION, s->solver_spec, name, sizeof name, &opts);
    if (rc) return rc;
    const ovk__solver *sv = ovk__solver_find(name);
    if (!sv) {
        ovk__solver_names(list, sizeof list, 0);
        return ovk__fail(OVK_EOPTION, "unknown solver '%s'; available: %s", name, list);
    }
    if (sv->parse) rc = sv->parse(&opts, &s->made.params);
    if (rc) return bad_option(rc);
    rc = ovk__opts_check_unused(&opts, sv->name, sv->options);
    if (rc) return bad_option(rc);
    s->made.sv = sv;
    return OVK_OK;
}

/* the preconditioner (unless kept), and whether the variant can use it */
static int pick_precond(ovk_solver *s)
{
    int rc = OVK_OK;
    if (!s->made.pc.type)
        rc = s->fns.pc ? ovk__pc_create_user(s->fns.pc, s->fns.pc_ctx, s, &s->made.pc) : ovk__pc_create(s->precond_spec, &s->made.pc);
    if (rc) return bad_option(rc);
    if (!s->A && s->made.pc.type->needs_matrix)
        return ovk__fail(OVK_EUNSUPPORTED,
                         "preconditioner %s reads the matrix; a user operator has none (use 'none' or "
                         "ovk_solver_set_precond_fn)",
                         s->made.pc.type->name);
    if (s->made.sv->nonsymmetric && s->made.pc.type->symmetric_only)
        return ovk__fail(OVK_EUNSUPPORTED,
                         "preconditioner %s is built for a symmetric matrix; solver %s assumes none (use ilu0, "
                         "eisenstat, jacobi or none)",
                         s->made.pc.type->name, s->made.sv->name);
    if (s->made.sv->split && !s->made.pc.type->apply_left) {
        char any[256];
        ovk__solver_names(any, sizeof any, 1);
        return ovk__fail(OVK_EUNSUPPORTED,
                         "solver %s needs a split preconditioner C = L L^T, which %s does not have; with it use "
                         "one of %s",
                         s->made.sv->name, s->made.pc.type->name, any);
    }
    return OVK_OK;
}

/* A variant takes a null space when it projects it out of its iterates
 * (nullspace), or when it is right-preconditioned (every nonsymmetric one):
 * its residuals stay in A's range (A Z = 0), so b projected at the start
 * and x at the end (nullspace.c) are all it needs. */
static int takes_nullspace(const ovk__solver *sv) { return sv->nullspace || sv->nonsymmetric; }

/* the option nullspace, and whether the variant takes a null space */
static int check_nullspace(const ovk_solver *s)
{
    const char *v = s->nullspace_spec;
    if (*v && strcmp(v, "none") && strcmp(v, "constant"))
        return ovk__fail(OVK_EOPTION, "nullspace '%s': none or constant (other vectors: ovk_solver_set_nullspace)", v);
    if (!s->ns.has_constant && !s->ns.user_k && strcmp(v, "constant")) return OVK_OK;
    if (takes_nullspace(s->made.sv)) return OVK_OK;
    char list[256] = "", name[64];
    for (int i = 0; i < ovk_solver_type_count(); i++) {
        const ovk__solver *sv = ovk__solver_find(ovk_solver_type_name(i));
        if (!sv || !takes_nullspace(sv)) continue;
        snprintf(name, sizeof name, "%s%s", list[0] ? ", " : "", sv->name);
        strncat(list, name, sizeof list - strlen(list) - 1);
    }
    return ovk__fail(OVK_EUNSUPPORTED, "solver %s does not take a null space; these do: %s", s->made.sv->name, list);
}

/* the option norm, and whether the variant tests the natural norm */
static int check_norm(const ovk_solver *s)
{
    const char *v = s->mon.norm;
    if (*v && strcmp(v, "unpreconditioned") && strcmp(v, "natural"))
        return ovk__fail(OVK_EOPTION, "norm '%s': unpreconditioned or natural", v);
    if (!ovk__solver_natural_norm(s) || s->made.sv->natural_norm) return OVK_OK;
    char list[256] = "", name[64];
    for (int i = 0; i < ovk_solver_type_count(); i++) {
        const ovk__solver *sv = ovk__solver_find(ovk_solver_type_name(i));
        if (!sv || !sv->natural_norm) continue;
        snprintf(name, sizeof name, "%s%s", list[0] ? ", " : "", sv->name);
        strncat(list, name, sizeof list - strlen(list) - 1);
    }
    return ovk__fail(OVK_EUNSUPPORTED,
                     "norm natural: solver %s tests ||r|| only; "
                     "these test sqrt(<r, C r>): %s",
                     s->made.sv->name, list);
}

/* option recycle: a variant that takes it, and no more vectors than rows */
static int check_recycle(const ovk_solver *s)
{
    char list[128];
    int k = s->c.recycle.want;
    const char *key = ovk__solver_key_at(offsetof(ovk_solver, c.recycle.want));
    if (k == 0) return OVK_OK;
    if (!s->made.sv->recycles) {
        ovk__solver_recycling_names(list, sizeof list);
        return ovk__fail(OVK_EOPTION, "option %s=%d: solver %s keeps no space across solves; the solvers that do: %s",
                         key, k, s->made.sv->name, list);
    }
    if ((long long)k > (long long)s->lay->nglobal)
        return ovk__fail(OVK_EOPTION, "option %s=%d: more vectors than the %lld rows", key, k,
                         (long long)s->lay->nglobal);
    return OVK_OK;
}

/* every local check of the options, the variant and the preconditioner
 * made where they are redone; the caller agrees the status */
static int check_local(ovk_solver *s)
{
    const ovk_solve_options *o = &s->o;
    if (s->refusal.setup)
        return ovk__fail(s->refusal.setup, "an option was refused on this rank when the solver was made, and none set "
                                     "since: %s",
                         s->refusal.setup_detail);
    if (!(o->tol > 0.0) || !isfinite(o->tol)) return ovk__fail(OVK_EOPTION, "rtol %g must be > 0", o->tol);
    if (!(o->atol >= 0.0) || !isfinite(o->atol)) return ovk__fail(OVK_EOPTION, "atol %g must be >= 0", o->atol);
    if (o->max_iter < 0) return ovk__fail(OVK_EOPTION, "max_it %d must be >= 0", o->max_iter);
    int rc = s->made.sv ? OVK_OK : pick_solver(s);
    if (rc) return rc;
    rc = check_nullspace(s);
    if (!rc) rc = check_norm(s);
    if (!rc) rc = check_recycle(s);
    if (rc) return rc;
    return pick_precond(s);
}

/* Collective: the caller's reducer, or one made from the backend option
 * (kept across setups while that option does not change). */
static int make_reducer(ovk_solver *s)
{
    int cmp = MPI_UNEQUAL, rc = OVK_OK;
    uint64_t from = ovk__fingerprint(s->backend_spec, strlen(s->backend_spec));
    if (s->made.red_owned && (s->user_red || from != s->made.red_from)) {
        rc = ovk__agree(s->lay->comm, ovk_reducer_destroy(s->made.red));
        if (rc) return rc;
        s->made.red = NULL;
        s->made.red_owned = 0;
        s->c.red = NULL; /* ovk_solver_progress after a failed setup must not reach it */
        memset(&s->c.hook, 0, sizeof s->c.hook);
    }
    if (s->user_red) {
        MPI_Comm_compare(ovk__reducer_comm(s->user_red), s->lay->comm, &cmp);
        if (cmp != MPI_IDENT && cmp != MPI_CONGRUENT)
            rc = ovk__fail(OVK_EMISMATCH, "the reducer was made on a communicator other than the solver's");
        rc = ovk__agree(s->lay->comm, rc);
        if (!rc) s->made.red = s->user_red;
        return rc;
    }
    if (s->made.red_owned) return OVK_OK;
    char spec[sizeof s->backend_spec];
    snprintf(spec, sizeof spec, "%s", ovk__solver_backend(s)); /* the option's sources, resolved */
    s->made.red = NULL;
    rc = ovk_reducer_create(s->lay->comm, spec, &s->made.red);
    if (rc) return rc;
    s->made.red_owned = 1;
    s->made.red_from = from;
    return OVK_OK;
}

/* the room of -ovk_monitor_true and of the monitor's vote (local) */
static int ctx_room(ovk_solver *s)
{
    if (s->mon.print_true && !s->mon.true_r) {
        int rc = ovk__pc_alloc(s->lay->nlocal, "the true residual of monitor_true", &s->mon.true_r);
        if (rc) return rc;
    }
    if (s->mon.fn && !s->mon.stage) {
        s->mon.stage = calloc(OVK__STAGE_SLOTS, sizeof *s->mon.stage);
        if (!s->mon.stage) return ovk__fail(OVK_ENOMEM, "the monitor's vote slots");
    }
    return OVK_OK;
}

static int ctx_norm(ovk__ctx *c);

/* the context's per-solve state as before any solve: no vectors, timers,
 * failed callback, monitor vote or sum of an earlier solve */
static void reset_solve_state(ovk__ctx *c)
{
    c->b = NULL;
    c->x = NULL;
    c->res = NULL;
    c->clock = (ovk__clock){.inflight = -1};
    c->watch = (ovk__monitor_state){0};
    c->cb.failed = 0;
    c->cb.detail[0] = '\0';
    c->lanczos.count = 0;
    if (c->mon.stage) memset(c->mon.stage, 0, sizeof *c->mon.stage * OVK__STAGE_SLOTS);
}

/* the solve context's configuration from the object (the norms and the
 * condition estimate's room are the setups' that make them, the
 * callbacks creation's) */
static void init_ctx(ovk_solver *s)
{
    ovk__ctx *c = &s->c;
    c->A = s->seen.elim.E && !s->made.sv->nonsymmetric ? s->seen.elim.E : s->A; /* the eliminated matrix, when made */
    c->pc = &s->made.pc;
    c->n = s->lay->nlocal;
    c->comm = s->lay->comm;
    c->rank = s->lay->rank;
    c->red = s->made.red;
    c->opts = &s->o;
    c->params = s->made.params;
    c->guess_zero = s->guess_zero;
    s->mon.natural = ovk__solver_natural_norm(s);
    c->mon = s->mon;
    c->norms.update = ctx_norm;
    c->ops = &ovk__direct_ops;
    reset_solve_state(c);
    c->hook = (ovk__hook){0};
    int every = s->o.progress_every;
    if (every >= 0 && (ovk_reducer_caps(s->made.red) & OVK_CAP_NEEDS_TEST)) {
        c->hook.fn = ovk__ctx_progress;
        c->hook.arg = c;
        c->hook.every = every > 0 ? every : DEFAULT_PROGRESS_ROWS;
    }
}

/* the power iteration's two vectors (local) */
static int two_vectors(int n, double **x, double **y)
{
    int rc = ovk__pc_alloc(n, "operator norm", x);
    if (rc) return rc;
    return ovk__pc_alloc(n, "operator norm", y);
}

/* y = A x; v = (||y||, ||x||), ||y|| summed again scaled by 2^k when
 * <y,y> under- or overflowed (an operator of extreme scale); x = y / ||y|| */
static int power_step(ovk__ctx *c, double *x, double *y, double v[2])
{
    int rc = ovk__ctx_matvec(c, x, y), k = 0;
    if (rc) return rc;
    v[0] = ovk__dot(c->n, y, y);
    v[1] = ovk__dot(c->n, x, x);
    rc = ovk__mpi(MPI_Allreduce(MPI_IN_PLACE, v, 2, MPI_DOUBLE, MPI_SUM, c->comm), "MPI_Allreduce (operator norm)");
    if (!rc && !isnan(v[0]) && !ovk__sumsq_plain_ok(v[0])) {
        double m = ovk__absmax(c->n, y);
        rc = ovk__mpi(MPI_Allreduce(MPI_IN_PLACE, &m, 1, MPI_DOUBLE, MPI_MAX, c->comm), "MPI_Allreduce (operator norm)");
        k = ovk__pow2_exponent(m);
        v[0] = rc ? 0.0 : ovk__sumsq_scaled(c->n, y, ldexp(1.0, k));
        if (!rc) rc = ovk__mpi(MPI_Allreduce(MPI_IN_PLACE, v, 1, MPI_DOUBLE, MPI_SUM, c->comm), "MPI_Allreduce (operator norm)");
    }
    if (rc) return rc;
    v[0] = ldexp(sqrt(v[0]), -k);
    v[1] = sqrt(v[1]);
    double scale = v[0] > 0.0 ? 1.0 / v[0] : 0.0;
    for (int i = 0; i < c->n; i++) x[i] = y[i] * scale;
    return OVK_OK;
}

/* Collective: ||A|| of an operator by a few power steps (||A||_2 <=
 * ||A||_inf for the gap bounds; the longest row is not known: 1). */
static int operator_norm(ovk_solver *s)
{
    ovk__ctx *c = &s->c;
    double *x = NULL, *y = NULL, v[2] = {0.0, 0.0};
    int rc = ovk__agree(c->comm, two_vectors(c->n, &x, &y));
    if (rc) goto cleanup;
    for (int i = 0; i < c->n; i++) x[i] = 1.0 + (double)((s->lay->row_start + i) % 7) / 7.0;
    for (int k = 0; k < NORM_STEPS; k++) {
        rc = power_step(c, x, y, v);
        if (rc) goto cleanup;
    }
    c->norms.anorm = 1.1 * (v[1] > 0.0 ? v[0] / v[1] : 0.0);
    c->norms.longest_row = 1.0;
    if (c->cb.failed) rc = ovk__fail(OVK_ECALLBACK, "%s (estimating ||A|| at setup)", c->cb.detail);
cleanup:
    c->cb.failed = 0;
    free(x);
    free(y);
    rc = ovk__agree(c->comm, rc);
    if (rc) return rc;
    if (!isfinite(c->norms.anorm)) /* from reduced values: the same on every rank */
        return ovk__fail(OVK_ENONFINITE, "the operator gives non-finite values (||A x|| = %g)", c->norms.anorm);
    return OVK_OK;
}

/* Collective: ||A||_inf and the longest row of an assembled matrix. */
static int matrix_norm(ovk_solver *s)
{
    double v[2] = {0.0, 0.0};
    int longest = 0, rc = OVK_OK;
    if (s->seen.pc_l1_max >= 0.0 && s->seen.pc_l1_version == s->A->values_version && s->seen.longest_row >= 0) {
        v[0] = s->seen.pc_l1_max, longest = s->seen.longest_row; /* the preconditioner's pass summed the rows */
    } else {
        rc = ovk__matrix_row_stats(s->A, &v[0], &longest);
        s->seen.longest_row = rc ? -1 : longest;
    }
    rc = ovk__agree(s->lay->comm, rc);
    if (rc) return rc;
    v[1] = longest;
    rc = ovk__mpi(MPI_Allreduce(MPI_IN_PLACE, v, 2, MPI_DOUBLE, MPI_MAX, s->lay->comm), "MPI_Allreduce (row statistics)");
    s->c.norms.anorm = v[0];
    s->c.norms.longest_row = v[1];
    return rc;
}

/* Collective: ||A|| of the current values (the numeric setup's for a
 * variant that needs it; later through c->norms.update, for a delegated one) */
static int ctx_norm(ovk__ctx *c)
{
    ovk_solver *s = c->cb.owner;
    int rc = s->A ? matrix_norm(s) : operator_norm(s);
    c->norms.current = rc == OVK_OK;
    return rc;
}

/* Collective: a variant that takes either kind of matrix is told
 * which these values are; a preconditioner built for symmetric ones is then
 * refused. */
static int note_nonsymmetric(ovk_solver *s)
{
    s->c.sym.values = 1;
    if (!s->made.pc.type->symmetric_only) return OVK_OK;
    char detail[320];
    snprintf(detail, sizeof detail, "%s", ovk_error_detail());
    return ovk__fail(OVK_EUNSUPPORTED, "solver %s: the matrix is not symmetric (%s), and preconditioner %s is built "
                                       "for a symmetric one (use ilu0, eisenstat, jacobi or none)",
                     s->made.sv->name, detail, s->made.pc.type->name);
}

/* Collective, after A's check found it not symmetric (its detail current):
 * A's Dirichlet rows eliminated, OVK_OK when that leaves E symmetric (the
 * solve then runs on E); else OVK_ENOTSYM naming A's culprit, or E's apart
 * from those rows, and nothing kept. */
static int eliminate_dirichlet(ovk_solver *s)
{
    char detail[320];
    snprintf(detail, sizeof detail, "%s", ovk_error_detail());
    int rc = ovk__elim_setup(&s->seen.elim, s->A);
    if (rc) return rc;
    if (!s->seen.elim.E) return ovk__fail(OVK_ENOTSYM, "%s", detail);
    rc = ovk__matrix_check_symmetric(s->seen.elim.E);
    if (rc != OVK_ENOTSYM) return rc;
    snprintf(detail, sizeof detail, "%s (with the columns of its %lld Dirichlet rows dropped)", ovk_error_detail(),
             s->seen.elim.count);
    ovk__elim_free(&s->seen.elim);
    return ovk__fail(OVK_ENOTSYM, "%s", detail);
}

/* Collective: a variant that assumes A symmetric (every CG variant) refuses
 * a matrix whose stored values are not, naming the nonsymmetric solvers,
 * unless they are symmetric apart from Dirichlet rows, which it then
 * eliminates; checked once per set of values.  A user operator is taken
 * at its word. */
static int check_symmetric(ovk_solver *s)
{
    char detail[320], list[256], who[32];
    if (s->A && !s->made.sv->nonsymmetric && s->coords.symmetric) { /* declared symmetric: taken at its word */
        ovk__elim_free(&s->seen.elim);
        s->c.A = s->A;
        s->seen.sym_ok = 0; /* checked again if the declaration is withdrawn */
        s->c.sym.values = 0;
        return OVK_OK;
    }
    if (!s->A || s->made.sv->nonsymmetric || (s->seen.sym_ok && s->seen.sym_version == s->A->values_version)) return OVK_OK;
    int rc = ovk__matrix_check_symmetric(s->A);
    if (rc == OVK_ENOTSYM) rc = eliminate_dirichlet(s);
    else ovk__elim_free(&s->seen.elim); /* symmetric values: nothing to eliminate */
    s->c.A = s->seen.elim.E ? s->seen.elim.E : s->A;
    if (rc != OVK_ENOTSYM) {
        s->seen.sym_ok = !rc;
        s->seen.sym_version = s->A->values_version;
        s->c.sym.values = 0;
        return rc;
    }
    if (s->made.sv->either_symmetry) return note_nonsymmetric(s);
    snprintf(detail, sizeof detail, "%s", ovk__detail_rank(ovk_error_detail(), who, sizeof who));
    ovk__solver_nonsymmetric_names(list, sizeof list);
    rc = ovk__fail(OVK_ENOTSYM, "%ssolver %s needs a symmetric matrix (a CG or MINRES variant), and here %s; for a nonsymmetric matrix use one of %s",
                   who, s->made.sv->name, detail, list);
    ovk__detail d; /* another rank's failure, named first: an agreement keeps it as it is */
    ovk__detail_save(&d);
    d.agreed = who[0] != '\0';
    ovk__detail_restore(&d);
    return rc;
}

/* Collective: everything that depends on A's values (the preconditioner's
 * part only with pc_too). */
static int numeric_setup(ovk_solver *s, int pc_too)
{
    int rc = check_symmetric(s);
    ovk__pc_env env = {.A = s->c.A, .n = s->lay->nlocal, .comm = s->lay->comm, .coord_dim = s->coords.dim,
                       .ncoords = s->coords.n, .coords = s->coords.xyz, .nns_k = s->coords.nns_k, .nns = s->coords.nns,
                       .fields = s->coords.fields, .schur = s->coords.schur,
                       .nonsymmetric = s->made.sv->nonsymmetric || s->c.sym.values, .singular = s->ns.k > 0,
                       .row_l1_max = &s->seen.pc_l1_max};
    s->seen.pc_l1_max = -1.0; /* until the setup sums the rows of these values */
    s->seen.pc_l1_version = s->A ? s->A->values_version : 0;
    if (rc) goto cleanup;
    rc = pc_too ? ovk__agree(s->lay->comm, s->made.pc.type->setup(s->made.pc.state, &env)) : OVK_OK;
    ovk__log_mark(&s->rec.log, OVK__LOG_PRECOND);
    if (rc) goto cleanup;
    s->c.norms.current = 0;
    if (s->made.sv->needs_norm || s->A) { /* an assembled A's is one pass (or the preconditioner's): every
                                        variant's scaled solve (scaling.c) needs it when A's scale is extreme */
        rc = ctx_norm(&s->c);
        ovk__log_mark(&s->rec.log, OVK__LOG_NORM);
        if (rc) goto cleanup;
    }
    if (s->A) s->seen.version = s->A->values_version;
cleanup:
    s->c.norms.epoch++; /* what a variant derived from the old values is stale, also after a failure */
    return rc;
}

/* Collective: room for the condition estimate's coefficients. */
static int condest_setup(ovk_solver *s)
{
    ovk__ctx *c = &s->c;
    int rc = OVK_OK;
    if (!s->o.condest || s->o.max_iter < 1) return OVK_OK;
    size_t cap = (size_t)s->o.max_iter;
    c->lanczos.alpha = malloc(sizeof(double) * 4 * cap);
    if (!c->lanczos.alpha) rc = ovk__fail(OVK_ENOMEM, "condition estimate of %d steps", s->o.max_iter);
    rc = ovk__agree(c->comm, rc);
    if (rc) return rc;
    c->lanczos.beta = c->lanczos.alpha + cap;
    c->lanczos.work = c->lanczos.beta + cap;
    c->lanczos.cap = s->o.max_iter;
    return OVK_OK;
}

/* What a rank brings to the first agreement of a setup: the OVK__REDO_* marks,
 * whether it is set up, which call it is in (ovk_solver_setup, or a solve
 * setting up on demand) and, in a solve, whether its arguments failed their
 * local checks (the solve's one agreement on entry). */
enum { STATE_NOT_READY = 64u, STATE_IN_SETUP = 128u, STATE_IN_SOLVE = 256u, STATE_BAD_ARGS = 512u, STATE_BITS = 10 };

/* Collective: set up what is not (all of it the first time, after a
 * failure or ovk_solver_set_options, or when any rank is not set up; else
 * what the changed options of any rank mark), nothing when nothing changed
 * but one reduction of the marks, which also compares the objects' ids
 * (ovk__layout_agree_state).  *mixed: some ranks were in ovk_solver_setup
 * and others in a solve (call): the solve ranks set up with them and
 * agree again, meeting the setup ranks' own solve next. */
static int setup_what_changed(ovk_solver *s, unsigned call, int *mixed, int *bad_args)
{
    double t0 = MPI_Wtime();
    unsigned redo = (s->made.ready ? s->marks.dirty : OVK__REDO_ALL) | (s->made.ready ? 0u : STATE_NOT_READY) | call;
    int rc = ovk__layout_agree_state(s->lay, &redo, STATE_BITS, "ovk_solver_setup: the solvers' matrices (or operators)");
    *mixed = (redo & STATE_IN_SETUP) && (redo & STATE_IN_SOLVE);
    *bad_args = (redo & STATE_BAD_ARGS) != 0;
    if (rc) goto fail;
    if (redo & STATE_NOT_READY) s->made.ready = 0;
    redo &= OVK__REDO_ALL;
    if (!redo) return OVK_OK;
    ovk__log_start(&s->rec.log, 0);
    if (!s->made.ready) redo = OVK__REDO_ALL;
    undo(s, redo);
    rc = ovk__agree(s->lay->comm, check_local(s));
    if (rc) goto fail;
    rc = ovk__solver_check_same(s);
    ovk__log_mark(&s->rec.log, OVK__LOG_CHECK);
    if (rc) goto fail;
    if (redo & OVK__REDO_REDUCER) {
        rc = make_reducer(s);
        ovk__log_mark(&s->rec.log, OVK__LOG_BACKEND);
        if (rc) goto fail;
    }
    rc = ctx_room(s);
    /* what the solve's sums (OVK__RESERVED_VALS values, OVK__STAGE_SLOTS in
     * flight) allocate in the backend, made here where a failure is agreed */
    if (!rc) rc = ovk__reducer_reserve(s->made.red, OVK__RESERVED_VALS, OVK_DOUBLE, OVK_SUM, OVK__STAGE_SLOTS);
    rc = ovk__agree(s->lay->comm, rc);
    if (rc) goto fail;
    init_ctx(s);
    if (redo & OVK__REDO_CHECK) {
        rc = ovk__nullspace_setup(&s->ns, s->lay, !strcmp(s->nullspace_spec, "constant"));
        if (rc) goto fail;
    }
    s->c.ns = s->ns.k ? &s->ns : NULL;
    if (redo & OVK__REDO_VARIANT) {
        rc = ovk__variant_setup(&s->c, s->made.sv, &s->made.var);
        ovk__log_mark(&s->rec.log, OVK__LOG_VECTORS);
        if (rc) goto fail;
    }
    if (redo & (OVK__REDO_PC | OVK__REDO_VARIANT)) {
        rc = numeric_setup(s, (redo & OVK__REDO_PC) != 0);
        if (rc) goto fail;
    }
    if (redo & (OVK__REDO_CHECK | OVK__REDO_PC | OVK__REDO_VARIANT)) {
        rc = ovk__nullspace_check(&s->c); /* A Z = 0 */
        if (rc) goto fail;
    }
    if (redo & OVK__REDO_CONDEST) {
        rc = condest_setup(s);
        ovk__log_mark(&s->rec.log, OVK__LOG_VECTORS);
        if (rc) goto fail;
    }
    if (redo & (OVK__REDO_REDUCER | OVK__REDO_PC | OVK__REDO_VARIANT)) {
        rc = ovk__variant_after_setup(&s->c, &s->made.var);
        ovk__log_mark(&s->rec.log, OVK__LOG_MEASURE);
        if (rc) goto fail;
    }
    double dt = MPI_Wtime() - t0;
    rc = ovk__mpi(MPI_Allreduce(&dt, &s->made.setup_time, 1, MPI_DOUBLE, MPI_MAX, s->lay->comm),
                  "MPI_Allreduce (setup time)");
    if (rc) goto fail;
    s->made.ready = 1;
    s->marks.dirty = 0;
    s->rec.log.on = s->log_view; /* agreed (check_same): destroy's reduction on every rank or none */
    if (s->view && s->lay->rank == 0) ovk_solver_view(s, s->o.out ? s->o.out : stdout);
    return OVK_OK;
fail:
    teardown(s);
    return rc;
}

int ovk__solver_agree(const ovk_solver *s, int rc, const char *what)
{
    unsigned bits = rc ? 1u : 0u;
    const ovk__layout *lay = ovk__solver_valid(s) ? s->lay : NULL;
    int arc = ovk__layout_agree_state(lay, &bits, STATE_BITS, what);
    if (!lay) return rc;
    if (arc) return arc;
    return bits ? ovk__agree(lay->comm, rc) : OVK_OK;
}

/* a call on a handle that is not a solver (NULL, destroyed): refused; the
 * rank meets the others' first agreement (which then fails) instead of
 * leaving them waiting; EBUSY (from a callback) stays local */
static int refuse_call(int bad, const char *fn)
{
    return bad == OVK_EBUSY ? bad : ovk__solver_agree(NULL, bad, fn);
}

int ovk_solver_setup(ovk_solver *s)
{
    int bad = ovk__solver_check_usable(s, "ovk_solver_setup"), mixed = 0, bad_args = 0;
    if (bad) return refuse_call(bad, "ovk_solver_setup");
    s->running.call = "setup"; /* operator callbacks run in the norm estimate */
    ovk__matrix_hold(s->A, 1);
    int rc = setup_what_changed(s, STATE_IN_SETUP, &mixed, &bad_args);
    ovk__matrix_hold(s->A, -1);
    s->running.call = NULL;
    return rc;
}

/* ---- solve -------------------------------------------------------------- */

/* Collective: a solve's setup of what changed; while some ranks were in
 * ovk_solver_setup (which the solve does itself), set up with them and
 * agree again, meeting their solve.  The same agreement carries whether a
 * rank's arguments failed (mine): *bad_args, the same on every rank. */
static int setup_on_demand(ovk_solver *s, int mine, int *bad_args)
{
    int mixed = 1, rc = OVK_OK;
    unsigned call = STATE_IN_SOLVE | (mine ? STATE_BAD_ARGS : 0u);
    while (!rc && mixed) rc = setup_what_changed(s, call, &mixed, bad_args);
    return rc;
}

static int check_finite(const ovk_vector *v, const char *what)
{
    for (int i = 0; i < v->n; i++)
        if (!isfinite(v->data[i]))
            return ovk__fail(OVK_ENONFINITE, "%s at row %lld is %g", what, ovk__row_id(v->lay, i), v->data[i]);
    return OVK_OK;
}

/* b's and x's local entries share memory (wrapped pointers can: zero-row
 * ranks may hold the same pointer without sharing anything) */
static int overlap(const ovk_vector *b, const ovk_vector *x)
{
    uintptr_t b0 = (uintptr_t)b->data, x0 = (uintptr_t)x->data;
    return b->n > 0 && x->n > 0 && b0 < x0 + sizeof(double) * (size_t)x->n &&
           x0 < b0 + sizeof(double) * (size_t)b->n;
}

static int check_vectors(const ovk_solver *s, const ovk_vector *b, const ovk_vector *x)
{
    (void)s;
    if (!b || !x) return ovk__fail(OVK_EINVAL, "ovk_solver_solve: NULL vector");
    if (b == x || overlap(b, x)) return ovk__fail(OVK_EINVAL, "ovk_solver_solve: b and x must not overlap");
    int rc = ovk__layout_check(b->lay, "b", s->lay, "the solver", "ovk_solver_solve");
    if (rc) return rc;
    rc = ovk__layout_check(x->lay, "x", s->lay, "the solver", "ovk_solver_solve");
    if (rc) return rc;
    rc = check_finite(b, "b");
    if (rc) return rc;
    return check_finite(x, "x0");
}

/* Collective: the solve's status agreed and, in the same reduction, the
 * max and mean over ranks of the per-rank timers */
static int agree_and_time(ovk__ctx *c, int rc)
{
    int size = 1;
    MPI_Comm_size(c->comm, &size);
    rc = ovk__agree_values(c->comm, rc, c->clock.t, OVK_TIMER_COUNT, c->res->time_max, c->res->time_mean);
    for (int i = 0; i < OVK_TIMER_COUNT; i++) c->res->time_mean[i] /= size;
    return rc;
}

static int status_of(const ovk_result *r)
{
    switch (r->reason) {
    case OVK_REASON_CONVERGED: return OVK_OK;
    case OVK_REASON_MAXIT:
        return ovk__fail(OVK_EMAXIT, "no convergence in %d iterations (||r||/||b|| = %g)", r->iterations,
                         r->rel_residual);
    case OVK_REASON_BREAKDOWN: return OVK_EBREAKDOWN; /* detail set where detected */
    case OVK_REASON_NONFINITE: return OVK_ENONFINITE;
    case OVK_REASON_MONITOR:
        return ovk__fail(OVK_ESTOPPED, "the monitor stopped the solve at iteration %d", r->iterations);
    case OVK_REASON_DIVERGED:
        return ovk__fail(OVK_EDIVERGED, "diverged at iteration %d (||r||/||b|| = %g)", r->iterations,
                         r->rel_residual);
    case OVK_REASON_STAGNATED: return OVK_ESTAGNATED; /* detail set where detected */
    default: return OVK_EINVAL;
    }
}

/* the variant's word on a solve at the iteration limit, after the detail */
static int limit_note(int rc, const char *note)
{
    char detail[512];
    snprintf(detail, sizeof detail, "%s", ovk_error_detail());
    return ovk__fail(rc, "%s: %s", detail, note);
}

/* Collective, after a solve that failed (iteration limit, breakdown,
 * divergence) on an assembled A without a declared null space: when A
 * annihilates the constant vector (||A 1||_2 <= 1e-8 ||A||_inf sqrt(N),
 * a pure Neumann problem), the detail says so and how to declare it.  One
 * product and one reduction, on the failure path only; nothing when the
 * room cannot be had (agreed). */
static int singular_hint(ovk_solver *s, int rc)
{
    ovk__ctx *c = &s->c;
    double *one = NULL, *a1 = NULL, v[2] = {0.0, 0.0};
    if ((rc != OVK_EMAXIT && rc != OVK_EBREAKDOWN && rc != OVK_EDIVERGED) || c->ns || !s->A || !c->norms.current)
        return rc;
    char detail[512];
    snprintf(detail, sizeof detail, "%s", ovk_error_detail());
    int bad = ovk__pc_alloc(c->n, "the singularity check", &one);
    if (!bad) bad = ovk__pc_alloc(c->n, "the singularity check", &a1);
    bad = ovk__agree(c->comm, bad); /* before the product: collective */
    for (int i = 0; !bad && i < c->n; i++) one[i] = 1.0;
    if (!bad) bad = ovk__agree(c->comm, ovk__matvec(s->A, one, a1, NULL)); /* A 1 */
    v[0] = bad ? 0.0 : ovk__dot(c->n, a1, a1);
    v[1] = c->n;
    free(one);
    free(a1);
    if (bad) return ovk__fail(rc, "%s", detail);
    bad = ovk__mpi(MPI_Allreduce(MPI_IN_PLACE, v, 2, MPI_DOUBLE, MPI_SUM, c->comm), "MPI_Allreduce (||A 1||)");
    if (bad) return bad;
    if (!(sqrt(v[0]) <= 1e-8 * c->norms.anorm * sqrt(v[1])) || strstr(detail, "ovk_solver_set_nullspace"))
        return ovk__fail(rc, "%s", detail);
    return ovk__fail(rc, "%s; A annihilates the constant vector (||A 1|| = %.3g): it is singular, declare its null "
                         "space (-ovk_%s constant, or ovk_solver_set_nullspace)",
                     detail, sqrt(v[0]), ovk__solver_key_at(offsetof(ovk_solver, nullspace_spec)));
}

static void begin_solve(ovk__ctx *c, const ovk_vector *b, ovk_vector *x, ovk_result *res)
{
    reset_solve_state(c);
    c->b = b->data;
    c->x = x->data;
    c->res = res;
}

/* rank 0: the one-line summary of print_level 1 and -ovk_converged_reason */
static void report_solve(const ovk_solver *s, const ovk_result *res, int rc)
{
    FILE *f = s->o.out ? s->o.out : stdout;
    if (s->lay->rank != 0) return;
    if (s->converged_reason)
        fprintf(f, "ovk: solve %s (%s) at iteration %d\n", rc == OVK_OK ? "converged" : "did not converge",
                ovk_reason_name(res->reason), res->iterations);
    if (s->o.print_level >= 1)
        fprintf(f, "ovk_solver_solve: %s, %s, backend %s: %s in %d iterations, ||r||/||b|| = %.3e, %.6f s, %lld "
                   "reductions\n",
                s->made.sv->name, s->made.pc.type->name, ovk_reducer_spec(s->made.red), ovk_reason_name(res->reason),
                res->iterations, res->rel_residual, res->time_max[OVK_TIMER_SOLVE], res->reductions);
    if (s->o.print_level >= 1 && s->c.ns)
        fprintf(f, "ovk_solver_solve: null space of %d vectors: ||Z^T b||/||b|| = %.3e (b's inconsistency, "
                   "removed; ||r||/||b|| is of the projected system)\n",
                s->c.ns->k, res->nullspace_inconsistency);
}

/* the status of a solve whose callbacks may have failed on this rank (local) */
static int solved(const ovk__ctx *c, int rc)
{
    if (rc) return rc;
    if (c->cb.failed) return ovk__fail(OVK_ECALLBACK, "%s", c->cb.detail);
    return OVK_OK;
}

/* Collective: the solve after setup_on_demand; mine: this rank's argument
 * checks, bad_args: some rank's failed (agreed there, so the detail is
 * shared only on that path) */
static int run_solve(ovk_solver *s, const ovk_vector *b, ovk_vector *x, ovk_result *res, int mine, int bad_args)
{
    ovk__ctx *c = &s->c;
    int rc = bad_args ? ovk__agree(s->lay->comm, mine) : OVK_OK;
    if (rc) return rc;
    if (s->A && s->A->values_version != s->seen.version) {
        ovk__log_start(&s->rec.log, 1);
        rc = numeric_setup(s, 1);
        if (rc) return rc;
        rc = ovk__nullspace_check(c); /* the new values must still annihilate Z */
        if (rc) return rc;
    }
    begin_solve(c, b, x, res);
    long long started = ovk__reducer_started(c->red);
    rc = ovk__elim_begin_solve(c, &s->seen.elim, s->A); /* b' = b - A_ND x_D */
    if (!rc) rc = ovk__nullspace_begin_solve(c); /* b -= Z Z^T b */
    if (!rc) rc = ovk__variant_solve(c, &s->made.var);
    if (!rc) rc = ovk__nullspace_end_solve(c); /* x -= Z Z^T x */
    ovk__elim_end_solve(c, &s->seen.elim, s->A); /* x_D = b_D / a_DD */
    rc = agree_and_time(c, solved(c, rc));
    ovk__condest_end(c);
    res->reductions = ovk__reducer_started(c->red) - started;
    ovk__log_solve(&s->rec.log, c, res);
    if (rc) return rc;
    rc = status_of(res);
    if (rc == OVK_EMAXIT && c->watch.limit_note) rc = limit_note(rc, c->watch.limit_note);
    rc = singular_hint(s, rc);
    report_solve(s, res, rc);
    return rc;
}

int ovk_solver_solve(ovk_solver *s, const ovk_vector *b, ovk_vector *x, ovk_result *res)
{
    ovk_result local_res;
    int bad = ovk__solver_check_usable(s, "ovk_solver_solve");
    if (bad == OVK_EBUSY) return bad; /* the outer solve's *res may be this res */
    if (!res) res = &local_res;
    memset(res, 0, sizeof *res);
    if (bad) return refuse_call(bad, "ovk_solver_solve");
    s->running.call = "solve";
    ovk__matrix_hold(s->A, 1);
    char why[OVK__DETAIL_LEN];
    int bad_args = 0, mine = s->refusal.solve ? ovk__fail(s->refusal.solve, "%s", s->refusal.solve_detail)
                                              : check_vectors(s, b, x);
    snprintf(why, sizeof why, "%s", mine ? ovk_error_detail() : "");
    int rc = setup_on_demand(s, mine, &bad_args); /* what changed since the last setup, if anything */
    if (!rc && mine) ovk__fail(mine, "%s", why); /* the argument's detail, whatever the setup wrote */
    if (!rc) {
        ovk__reducer_hold(s->made.red, 1);
        rc = run_solve(s, b, x, res, mine, bad_args);
        ovk__reducer_hold(s->made.red, -1);
        s->rec.last = *res;
    }
    ovk__matrix_hold(s->A, -1);
    s->running.call = NULL;
    s->refusal.solve = 0;
    return rc;
}

/* ---- many right-hand sides ---------------------------------------------- */

/* the checks of solve_many's arrays (local); *bad[j]: system j's vectors
 * hold a NaN or Inf on this rank */
static int check_many(const ovk_solver *s, int k, ovk_vector *const *B, ovk_vector *const *X, ovk_result *res,
                      int *bad)
{
    static const char fn[] = "ovk_solver_solve_many";
    if (k <= 0) return ovk__fail(OVK_EINVAL, "%s: k = %d systems (at least 1)", fn, k);
    if (!B || !X || !res) return ovk__fail(OVK_EINVAL, "%s: NULL %s array", fn, !B ? "B" : !X ? "X" : "results");
    for (int j = 0; j < k; j++) {
        if (!B[j] || !X[j]) return ovk__fail(OVK_EINVAL, "%s: %s[%d] is NULL", fn, !B[j] ? "B" : "X", j);
        int rc = ovk__layout_check(B[j]->lay, "B[j]", s->lay, "the solver", fn);
        if (!rc) rc = ovk__layout_check(X[j]->lay, "X[j]", s->lay, "the solver", fn);
        if (rc) return ovk__fail(rc, "%s (j = %d)", ovk_error_detail(), j);
    }
    for (int j = 0; j < k; j++) /* X[j] may share memory with no vector; B's may share among themselves */
        for (int i = 0; i < k; i++)
            if (overlap(B[i], X[j]) || (i != j && overlap(X[i], X[j])))
                return ovk__fail(OVK_EINVAL, "%s: X[%d] shares memory with %s[%d]", fn, j, i == j || overlap(B[i], X[j]) ? "B" : "X", i);
    for (int j = 0; j < k; j++) {
        bad[j] = check_finite(B[j], "b") || check_finite(X[j], "x0");
        if (bad[j]) ovk__fail(OVK_ENONFINITE, "%s: system %d: %s", fn, j, ovk_error_detail());
    }
    return OVK_OK;
}

/* Collective: the systems whose input is not finite on some rank, agreed
 * (their results say so; the detail is the first such system's) */
static int agree_finite(const ovk_solver *s, int k, int *bad, ovk_result *res, int *st)
{
    char detail[256];
    snprintf(detail, sizeof detail, "%s", ovk_error_detail());
    int rc = ovk__mpi(MPI_Allreduce(MPI_IN_PLACE, bad, k, MPI_INT, MPI_MAX, s->lay->comm), "MPI_Allreduce");
    for (int j = 0; !rc && j < k; j++) {
        st[j] = OVK_OK;
        if (!bad[j]) continue;
        res[j].reason = OVK_REASON_NONFINITE;
        st[j] = OVK_ENONFINITE;
    }
    ovk__fail(OVK_ENONFINITE, "%s", detail);
    return rc;
}

static int run_many(ovk_solver *s, int k, ovk_vector *const *B, ovk_vector *const *X, ovk_result *res)
{
    ovk__ctx *c = &s->c;
    size_t room = k > 0 ? (size_t)k : 1;
    int *bad = calloc(room, sizeof(int)), *st = calloc(room, sizeof(int));
    const double **b = calloc(room, sizeof *b);
    double **x = calloc(room, sizeof *x);
    char(*why)[OVK__DETAIL_LEN] = calloc(room, sizeof *why);
    double *elim_b = NULL; /* the Dirichlet rows' b' */
    int rc = bad && st && b && x && why ? OVK_OK : ovk__fail(OVK_ENOMEM, "ovk_solver_solve_many: %d systems", k);
    if (!rc) rc = s->refusal.solve ? ovk__fail(s->refusal.solve, "%s", s->refusal.solve_detail) : check_many(s, k, B, X, res, bad);
    rc = ovk__agree(s->lay->comm, rc);
    if (!rc) rc = agree_finite(s, k, bad, res, st);
    if (!rc && s->A && s->A->values_version != s->seen.version) rc = numeric_setup(s, 1);
    if (rc) goto cleanup;
    for (int j = 0; j < k; j++) { /* a refused system gets no task */
        b[j] = bad[j] ? NULL : B[j]->data;
        x[j] = X[j]->data;
    }
    reset_solve_state(c);
    long long started = ovk__reducer_started(c->red);
    rc = ovk__elim_many_begin(c, &s->seen.elim, s->A, k, b, x, &elim_b); /* each b' = b - A_ND x_D */
    if (!rc) rc = ovk__many_solve(c, &s->made.var, k, b, x, res, st, why, &s->running.system);
    for (int j = 0; !rc && j < k; j++)
        if (!bad[j]) ovk__elim_fix(c, &s->seen.elim, s->A, B[j]->data, X[j]->data); /* x_D = b_D / a_DD */
    long long reductions = ovk__reducer_started(c->red) - started;
    reset_solve_state(c);
    if (rc) goto cleanup;
    int first = OVK_OK;
    for (int j = k - 1; j >= 0; j--) { /* backwards: the detail left is the first failure's */
        res[j].reductions = reductions;
        if (bad[j]) st[j] = ovk__fail(OVK_ENONFINITE, "ovk_solver_solve_many: system %d: b or x0 not finite", j);
        else if (st[j]) ovk__fail(st[j], "ovk_solver_solve_many: system %d: %s", j, why[j]);
        else {
            st[j] = status_of(&res[j]);
            if (st[j] == OVK_EBREAKDOWN || st[j] == OVK_ENONFINITE) /* the detail set in the solve */
                ovk__fail(st[j], "%s", why[j]);
            if (st[j]) ovk__fail(st[j], "ovk_solver_solve_many: system %d: %s", j, ovk_error_detail());
        }
        if (!bad[j]) report_solve(s, &res[j], st[j]);
        if (st[j]) first = st[j];
    }
    rc = first;
cleanup:
    free(elim_b);
    free(bad);
    free(st);
    free(b);
    free(x);
    free(why);
    return rc;
}

int ovk_solver_solve_many(ovk_solver *s, int k, ovk_vector *const *B, ovk_vector *const *X, ovk_result *results)
{
    int bad = ovk__solver_check_usable(s, "ovk_solver_solve_many");
    if (bad == OVK_EBUSY) return bad;
    if (results && k > 0) memset(results, 0, sizeof *results * (size_t)k);
    if (bad) return refuse_call(bad, "ovk_solver_solve_many");
    s->running.call = "solve";
    ovk__matrix_hold(s->A, 1);
    int bad_args = 0, rc = setup_on_demand(s, OVK_OK, &bad_args); /* run_many agrees on its arguments */
    if (!rc) {
        ovk__reducer_hold(s->made.red, 1);
        rc = run_many(s, k, B, X, results);
        ovk__reducer_hold(s->made.red, -1);
        if (results && k > 0) s->rec.last = results[0];
    }
    ovk__matrix_hold(s->A, -1);
    s->running.call = NULL;
    s->refusal.solve = 0;
    s->running.system = -1;
    return rc;
}

const ovk_result *ovk__solver_last_result(const ovk_solver *s) { return ovk__solver_valid(s) ? &s->rec.last : NULL; }

int ovk_solver_system_index(const ovk_solver *s) { return ovk__solver_valid(s) ? s->running.system : -1; }

/* ---- the rest ----------------------------------------------------------- */

/* Collective: -ovk_log_view's table, named by the options as the getter
 * spells them */
static void log_view(const ovk_solver *s)
{
    ovk__log_names names = {"", "", ""};
    ovk_solver_get_option(s, ovk__solver_role_key(OVK__ROLE_SOLVER), names.solver, sizeof names.solver);
    ovk_solver_get_option(s, ovk__solver_role_key(OVK__ROLE_PRECOND), names.precond, sizeof names.precond);
    ovk_solver_get_option(s, ovk__solver_role_key(OVK__ROLE_BACKEND), names.backend, sizeof names.backend);
    ovk__log_view(&s->rec.log, &names, ovk_solver_comm(s), s->o.out ? s->o.out : stdout);
}

/* ovk_solver_destroy, or with local (a garbage collector's release, at a
 * moment that differs between ranks) without its collective parts: no
 * -ovk_log_view report, the reducer discarded without its agreement */
static int destroy(ovk_solver **sp, int local)
{
    if (!sp || !*sp) return OVK_OK;
    ovk_solver *s = *sp;
    int bad = ovk__solver_check_usable(s, local ? "ovk__solver_release" : "ovk_solver_destroy");
    if (bad) return bad;
    int rc = OVK_OK;
    if (s->rec.log.on && !local) log_view(s); /* collective */
    teardown(s);
    if (s->made.red_owned && local) ovk__reducer_discard(s->made.red);
    else if (s->made.red_owned) rc = ovk_reducer_destroy(s->made.red);
    if (s->lay == &s->own_lay) ovk__layout_free(&s->own_lay);
    free(s->coords.xyz);
    free(s->coords.nns);
    free(s->coords.fields);
    ovk__matrix_ref(s->coords.schur, -1);
    ovk__nullspace_free(&s->ns);
    ovk__recycle_free(&s->c.recycle);
    ovk__elim_free(&s->seen.elim);
    ovk__matrix_ref(s->A, -1); /* frees A when its destroy came first */
    s->magic = 0;
    free(s);
    *sp = NULL;
    return rc;
}

int ovk_solver_recycle_reset(ovk_solver *s)
{
    int rc = ovk__solver_check_usable(s, "ovk_solver_recycle_reset");
    if (rc) return rc;
    if (s->c.recycle.k > 0) ovk__recycle_drop(&s->c.recycle, "reset by the application");
    return OVK_OK;
}

int ovk_solver_destroy(ovk_solver **sp) { return destroy(sp, 0); }
int ovk__solver_release(ovk_solver **sp) { return destroy(sp, 1); }

int ovk__solver_usable(const ovk_solver *s, const char *fn) { return ovk__solver_check_usable(s, fn); }

int ovk_solver_progress(ovk_solver *s)
{
    if (!ovk__solver_valid(s)) return ovk__solver_not_solver("ovk_solver_progress");
    if (s->c.red && s->c.hook.fn) ovk__ctx_progress(&s->c);
    return OVK_OK;
}

int ovk_solver_vector_create(const ovk_solver *s, double *data, ovk_vector **v)
{
    if (!ovk__solver_valid(s)) return ovk__solver_not_solver("ovk_solver_vector_create");
    if (!v) return ovk__fail(OVK_EINVAL, "ovk_solver_vector_create: NULL output");
    return ovk__vector_new(s->lay, data, v);
}

int ovk_solver_nlocal(const ovk_solver *s) { return ovk__solver_valid(s) ? s->lay->nlocal : 0; }
MPI_Comm ovk_solver_comm(const ovk_solver *s) { return ovk__solver_valid(s) ? s->lay->comm : MPI_COMM_NULL; }
double ovk_solver_setup_time(const ovk_solver *s) { return ovk__solver_valid(s) ? s->made.setup_time : 0.0; }

/* ---- the one-call convenience ------------------------------------------ */

int ovk_pcg_solve(const ovk_matrix *A, const ovk_vector *b, ovk_vector *x, const ovk_pcg_options *opts,
                  ovk_pcg_result *res)
{
    return ovk_solve(A, b, x, opts, res);
}

int ovk_solve(const ovk_matrix *A, const ovk_vector *b, ovk_vector *x, const ovk_solve_options *opts,
              ovk_result *res)
{
    ovk_solver *s = NULL;
    if (res) memset(res, 0, sizeof *res);
    int rc2, rc = ovk_solver_create(A, &s); /* a NULL A is a local error: no communicator to agree on */
    if (rc) return rc;
    if (!opts) rc = ovk__fail(OVK_EINVAL, "ovk_solve: NULL options");
    else rc = ovk_solver_set_options(s, opts);
    rc = ovk__agree(A->lay.comm, rc);
    if (rc) goto cleanup;
    rc = ovk_solver_setup(s);
    if (rc) goto cleanup;
    rc = ovk_solver_solve(s, b, x, res);
cleanup:
    rc2 = ovk_solver_destroy(&s);
    if (!rc) rc = rc2; /* the first failure */
    return rc;
}

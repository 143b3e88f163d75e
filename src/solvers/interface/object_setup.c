/* The solver object's setup: the options' local checks (the variant and
 * its spec, the preconditioner, null space, norm, recycling) and their
 * cross-rank agreement, the reducer, the solve context, the variant's work
 * and vectors, the numeric setup of A's values (symmetry and Dirichlet
 * elimination, the preconditioner, ||A||), the condition estimate's room;
 * each redone only when the options it depends on changed (the OVK__REDO_*
 * marks), and ovk_solver_setup, or a solve setting up on demand, as the
 * one entry that agrees on what to redo. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "object.h"

enum { DEFAULT_PROGRESS_ROWS = 8192, NORM_STEPS = 12 };

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

void ovk__solver_teardown(ovk_solver *s) { undo(s, OVK__REDO_ALL); }

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
    if (sv->ops->parse) rc = sv->ops->parse(&opts, &s->made.params);
    if (rc) return bad_option(rc);
    rc = ovk__opts_check_unused(&opts, sv->name, sv->keys);
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
                         s->made.pc.name);
    if (ovk__has_cap(s->made.sv, OVK__CAP_NONSYMMETRIC) && s->made.pc.type->symmetric_only)
        return ovk__fail(OVK_EUNSUPPORTED,
                         "preconditioner %s is built for a symmetric matrix; solver %s assumes none (use ilu0, "
                         "eisenstat, jacobi or none)",
                         s->made.pc.name, s->made.sv->name);
    if (s->made.sv->ops->split && !s->made.pc.type->apply_left) {
        char any[256];
        ovk__solver_names(any, sizeof any, 1);
        return ovk__fail(OVK_EUNSUPPORTED,
                         "solver %s needs a split preconditioner C = L L^T, which %s does not have; with it use "
                         "one of %s",
                         s->made.sv->name, s->made.pc.name, any);
    }
    return OVK_OK;
}

/* A variant takes a null space when it projects it out of its iterates
 * (nullspace), or when it is right-preconditioned (every nonsymmetric one):
 * its residuals stay in A's range (A Z = 0), so b projected at the start
 * and x at the end (nullspace.c) are all it needs. */
static int takes_nullspace(const ovk__solver *sv) { return ovk__has_cap(sv, OVK__CAP_NULLSPACE) || ovk__has_cap(sv, OVK__CAP_NONSYMMETRIC); }

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
    if (!ovk__solver_natural_norm(s) || ovk__has_cap(s->made.sv, OVK__CAP_NATURAL_NORM)) return OVK_OK;
    char list[256] = "", name[64];
    for (int i = 0; i < ovk_solver_type_count(); i++) {
        const ovk__solver *sv = ovk__solver_find(ovk_solver_type_name(i));
        if (!sv || !ovk__has_cap(sv, OVK__CAP_NATURAL_NORM)) continue;
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
    if (!ovk__has_cap(s->made.sv, OVK__CAP_RECYCLES)) {
        ovk__solver_recycling_names(list, sizeof list);
        return ovk__fail(OVK_EOPTION, "option %s=%d: solver %s keeps no space across solves; the solvers that do: %s",
                         key, k, s->made.sv->name, list);
    }
    if ((long long)k > (long long)s->lay->nglobal)
        return ovk__fail(OVK_EOPTION, "option %s=%d: more vectors than the %lld rows", key, k,
                         (long long)s->lay->nglobal);
    return OVK_OK;
}

/* option condest: a variant that records the CG coefficients */
static int check_condest(const ovk_solver *s)
{
    char list[160];
    if (!s->o.condest || ovk__has_cap(s->made.sv, OVK__CAP_CONDEST)) return OVK_OK;
    ovk__solver_cap_names(list, sizeof list, OVK__CAP_CONDEST);
    return ovk__fail(OVK_EOPTION, "option condest=1: solver %s records no CG coefficients to estimate from; the "
                     "solvers that do: %s", s->made.sv->name, list);
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
    if (!rc) rc = check_condest(s);
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
void ovk__solver_reset_solve_state(ovk__ctx *c)
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
    c->A = s->seen.elim.E && !ovk__has_cap(s->made.sv, OVK__CAP_NONSYMMETRIC) ? s->seen.elim.E : s->A; /* the eliminated matrix, when made */
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
    ovk__solver_reset_solve_state(c);
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
/* Collective: v[0..k) (k <= 2) maxed over the ranks through the solve's
 * reducer, as every global sum (the latency model charges it), its time on
 * this rank in c.norms.sum_time */
static int reducer_max(ovk_solver *s, double *v, int k)
{
    double in[2] = {v[0], k > 1 ? v[1] : 0.0}, t0 = ovk__now();
    ovk_request *req = NULL;
    int rc = ovk_reduce_start(s->c.red, in, v, k, OVK_DOUBLE, OVK_MAX, &req);
    if (!rc) rc = ovk_reduce_wait(req);
    if (req) ovk_request_free(req);
    s->c.norms.sum_time = rc ? 0.0 : ovk__now() - t0;
    if (rc) rc = ovk__fail(rc, "the sum of the matrix norm: %s", ovk_error_detail());
    return ovk__agree(s->lay->comm, rc);
}

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
    s->c.norms.sum_time = 0.0;
    rc = s->c.red ? reducer_max(s, v, 2)
                  : ovk__mpi(MPI_Allreduce(MPI_IN_PLACE, v, 2, MPI_DOUBLE, MPI_MAX, s->lay->comm),
                             "MPI_Allreduce (row statistics)");
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
                     s->made.sv->name, detail, s->made.pc.name);
}

/* Collective, after A's check found it not symmetric (its detail current):
 * A's Dirichlet rows eliminated, OVK_OK when that leaves E symmetric (the
 * solve then runs on E); else OVK_ENOTSYM naming A's culprit, or E's apart
 * from those rows, and nothing kept. */
static int eliminate_dirichlet(ovk_solver *s, int (*check)(const ovk_matrix *))
{
    char detail[320];
    snprintf(detail, sizeof detail, "%s", ovk_error_detail());
    int rc = ovk__elim_setup(&s->seen.elim, s->A);
    if (rc) return rc;
    if (!s->seen.elim.E) return ovk__fail(OVK_ENOTSYM, "%s", detail);
    rc = check(s->seen.elim.E);
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
    if (s->A && !ovk__has_cap(s->made.sv, OVK__CAP_NONSYMMETRIC) && s->coords.symmetric) { /* declared symmetric: taken at its word */
        ovk__elim_free(&s->seen.elim);
        s->c.A = s->A;
        s->seen.sym_ok = 0; /* checked again if the declaration is withdrawn */
        s->c.sym.values = 0;
        return OVK_OK;
    }
    if (!s->A || ovk__has_cap(s->made.sv, OVK__CAP_NONSYMMETRIC) || (s->seen.sym_ok && s->seen.sym_version == s->A->values_version)) return OVK_OK;
    /* a variant that takes either kind needs only the verdict */
    int (*check)(const ovk_matrix *) = ovk__has_cap(s->made.sv, OVK__CAP_EITHER_SYMMETRY)
                                           ? ovk__matrix_check_symmetric_quick
                                           : ovk__matrix_check_symmetric;
    int rc = check(s->A);
    if (rc == OVK_ENOTSYM) rc = eliminate_dirichlet(s, check);
    else ovk__elim_free(&s->seen.elim); /* symmetric values: nothing to eliminate */
    s->c.A = s->seen.elim.E ? s->seen.elim.E : s->A;
    if (rc != OVK_ENOTSYM) {
        s->seen.sym_ok = !rc;
        s->seen.sym_version = s->A->values_version;
        s->c.sym.values = 0;
        return rc;
    }
    if (ovk__has_cap(s->made.sv, OVK__CAP_EITHER_SYMMETRY)) return note_nonsymmetric(s);
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
int ovk__solver_numeric_setup(ovk_solver *s, int pc_too)
{
    int rc = check_symmetric(s);
    ovk__pc_env env = {.A = s->c.A, .n = s->lay->nlocal, .comm = s->lay->comm, .coord_dim = s->coords.dim,
                       .ncoords = s->coords.n, .coords = s->coords.xyz, .nns_k = s->coords.nns_k, .nns = s->coords.nns,
                       .fields = s->coords.fields, .schur = s->coords.schur,
                       .nonsymmetric = ovk__has_cap(s->made.sv, OVK__CAP_NONSYMMETRIC) || s->c.sym.values, .singular = s->ns.k > 0,
                       .ns_k = s->ns.k, .ns = s->ns.basis,
                       .row_l1_max = &s->seen.pc_l1_max};
    s->seen.pc_l1_max = -1.0; /* until the setup sums the rows of these values */
    s->seen.pc_l1_version = s->A ? s->A->values_version : 0;
    if (rc) goto cleanup;
    rc = pc_too ? ovk__agree(s->lay->comm, s->made.pc.type->setup(s->made.pc.state, &env)) : OVK_OK;
    ovk__log_mark(&s->rec.log, OVK__LOG_PRECOND);
    if (rc) goto cleanup;
    s->c.norms.current = 0;
    if (s->made.sv->ops->needs_norm || s->A) { /* an assembled A's is one pass (or the preconditioner's): every
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
    if (!rc) rc = ovk__reducer_reserve(s->made.red, 2, OVK_DOUBLE, OVK_MAX, 1); /* the matrix norm's (reducer_max) */
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
        rc = ovk__solver_numeric_setup(s, (redo & OVK__REDO_PC) != 0);
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
    ovk__solver_teardown(s);
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
int ovk__solver_refuse_call(int bad, const char *fn)
{
    return bad == OVK_EBUSY ? bad : ovk__solver_agree(NULL, bad, fn);
}

int ovk_solver_setup(ovk_solver *s)
{
    int bad = ovk__solver_check_usable(s, "ovk_solver_setup"), mixed = 0, bad_args = 0;
    if (bad) return ovk__solver_refuse_call(bad, "ovk_solver_setup");
    s->running.call = "setup"; /* operator callbacks run in the norm estimate */
    ovk__matrix_hold(s->A, 1);
    int rc = setup_what_changed(s, STATE_IN_SETUP, &mixed, &bad_args);
    ovk__matrix_hold(s->A, -1);
    s->running.call = NULL;
    return rc;
}

/* Collective: a solve's setup of what changed; while some ranks were in
 * ovk_solver_setup (which the solve does itself), set up with them and
 * agree again, meeting their solve.  The same agreement carries whether a
 * rank's arguments failed (mine): *bad_args, the same on every rank. */
int ovk__solver_setup_on_demand(ovk_solver *s, int mine, int *bad_args)
{
    int mixed = 1, rc = OVK_OK;
    unsigned call = STATE_IN_SOLVE | (mine ? STATE_BAD_ARGS : 0u);
    while (!rc && mixed) rc = setup_what_changed(s, call, &mixed, bad_args);
    return rc;
}

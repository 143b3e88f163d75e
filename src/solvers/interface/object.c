/* The solver object and its lifetime: creation on an assembled matrix or
 * on the application's operator, destroy (with -ovk_log_view's report),
 * the handle's accessors (rows, communicator, setup time, vectors on its
 * rows, progress of the reducer), and ovk_solve, the one call that
 * creates, sets up, solves and destroys.  What the object is made of, and
 * the checks every call makes of its handle, are in object.h; its options
 * in object_options.c, its setup in object_setup.c, its solves in
 * object_solve.c, its view in object_view.c. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "object.h"

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
    ovk__solver_teardown(s);
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

/* PMPI wrappers that count the reductions a test program starts (each test
 * is its own executable, so one definition per program): n_allreduce
 * blocking (allreduce_log: how many values each carried), n_iallreduce non-blocking; n_done the completions (an MPI_Wait,
 * or an MPI_Test that found its request done). */
#ifndef OVK_TEST_COUNT_REDUCTIONS_H
#define OVK_TEST_COUNT_REDUCTIONS_H

#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "mpitest.h"

static long n_allreduce, n_iallreduce;
/* when a test points it at a buffer: the values each blocking reduction
 * carried, in order, up to allreduce_log_cap of them */
static int *allreduce_log, allreduce_log_len, allreduce_log_cap;

int MPI_Allreduce(const void *s, void *r, int c, MPI_Datatype t, MPI_Op o, MPI_Comm comm)
{
    n_allreduce++;
    if (allreduce_log && allreduce_log_len < allreduce_log_cap) allreduce_log[allreduce_log_len++] = c;
    return PMPI_Allreduce(s, r, c, t, o, comm);
}

int MPI_Iallreduce(const void *s, void *r, int c, MPI_Datatype t, MPI_Op o, MPI_Comm comm, MPI_Request *q)
{
    n_iallreduce++;
    return PMPI_Iallreduce(s, r, c, t, o, comm, q);
}

static long n_done;

int MPI_Wait(MPI_Request *q, MPI_Status *st)
{
    n_done++;
    return PMPI_Wait(q, st);
}

int MPI_Test(MPI_Request *q, int *flag, MPI_Status *st)
{
    int rc = PMPI_Test(q, flag, st);
    if (*flag) n_done++;
    return rc;
}

/* a non-blocking reduction is posted and not yet completed (native backend) */
static inline int mt_reduction_in_flight(void) { return n_iallreduce > n_done; }

enum { MT_VIEW_LEN = 4096 };

/* A solve and what the tests of a variant's reductions read of it. */
typedef struct mt_counted {
    int rc, iterations, restarts, replacements;
    ovk_reason reason;
    double true_rel;          /* ||b - A x|| / ||b|| of the x returned */
    long long reductions;     /* the result's count */
    long allreduce, iallreduce; /* the solve's, as PMPI counts them */
    char view[MT_VIEW_LEN];   /* ovk_solver_view after the solve */
} mt_counted;

/* Collective: o->rc (a setup's status) unless 0, else the solve of s (set up)
 * on b from x, counted; then s's view. */
static inline void mt_counted_solve(ovk_solver *s, const ovk_matrix *A, const ovk_vector *b, ovk_vector *x, mt_counted *o)
{
    ovk_pcg_result res;
    memset(&res, 0, sizeof res);
    long a0 = n_allreduce, i0 = n_iallreduce;
    if (!o->rc) o->rc = ovk_solver_solve(s, b, x, &res);
    o->allreduce = n_allreduce - a0;
    o->iallreduce = n_iallreduce - i0;
    o->iterations = res.iterations;
    o->restarts = res.restarts;
    o->replacements = res.replacements;
    o->reason = res.reason;
    o->reductions = res.reductions;
    o->true_rel = mt_rel_residual(A, b, x);
    FILE *f = tmpfile();
    size_t len = 0;
    if (f && ovk_solver_view(s, f) == OVK_OK) {
        rewind(f);
        len = fread(o->view, 1, MT_VIEW_LEN - 1, f);
    }
    if (f) fclose(f);
    o->view[len] = '\0';
}

/* A counted solve's settings: from x = 0 on a fresh solver, with again the
 * outcome of its second solve from x = 0 (the first's start-up state, such
 * as the s-step solvers' shifts, kept). */
typedef struct mt_config {
    const char *solver, *precond, *backend, *rtol;
    int max_it;
    int again;
} mt_config;

/* Collective: the solve of cf on A, b (x its answer), counted. */
static inline mt_counted mt_solve_counted(const ovk_matrix *A, const ovk_vector *b, ovk_vector *x, mt_config cf)
{
    ovk_solver *s = NULL;
    ovk_pcg_result res;
    mt_counted o = {0};
    char buf[32];
    ovk_vector_set(x, 0.0);
    MT_RC(OVK_OK, ovk_solver_create(A, &s));
    MT_RC(OVK_OK, ovk_solver_set_option(s, "solver", cf.solver));
    MT_RC(OVK_OK, ovk_solver_set_option(s, "precond", cf.precond));
    MT_RC(OVK_OK, ovk_solver_set_option(s, "backend", cf.backend));
    MT_RC(OVK_OK, ovk_solver_set_option(s, "rtol", cf.rtol));
    snprintf(buf, sizeof buf, "%d", cf.max_it);
    MT_RC(OVK_OK, ovk_solver_set_option(s, "max_it", buf));
    memset(&res, 0, sizeof res);
    o.rc = ovk_solver_setup(s);
    if (!o.rc && cf.again) {
        o.rc = ovk_solver_solve(s, b, x, &res);
        if (o.rc == OVK_EMAXIT) o.rc = OVK_OK; /* max_it steps: the second solve's status counts */
        ovk_vector_set(x, 0.0);
    }
    mt_counted_solve(s, A, b, x, &o);
    ovk_solver_destroy(&s);
    return o;
}

/* Collective: a start-up's price in reductions.  max_it steps of spec
 * (jacobi, blocking, rtol 1e-30) one-shot and as the second solve of one
 * object (its start-up state kept): both run max_it steps and the
 * one-shot's reductions, as PMPI and the library count them, are at most
 * extra above the other's.  The counts in *once and *known. */
static inline void mt_check_startup(const ovk_matrix *A, const ovk_vector *b, ovk_vector *x, const char *spec,
                                    int max_it, long extra, mt_counted *once, mt_counted *known)
{
    *once = mt_solve_counted(A, b, x, (mt_config){spec, "jacobi", "blocking", "1e-30", max_it, 0});
    *known = mt_solve_counted(A, b, x, (mt_config){spec, "jacobi", "blocking", "1e-30", max_it, 1});
    MT_CHECK(once->iterations == max_it && known->iterations == max_it && once->allreduce <= known->allreduce + extra &&
                 once->reductions <= known->reductions + extra,
             "%s: one-shot %d iterations, %ld reductions (the library: %lld); start-up state kept %d iterations, %ld "
             "(%lld)",
             spec, once->iterations, once->allreduce, once->reductions, known->iterations, known->allreduce,
             known->reductions);
}

#endif

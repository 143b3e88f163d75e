/* The solver registry, names of reasons and timers, and ovk_pcg_solve: the
 * one-call convenience on top of the solver object (object.c). */
#include <string.h>

#include "../solver.h"

extern const ovk__solver ovk__solver_alg1;
extern const ovk__solver ovk__solver_alg2;
extern const ovk__solver ovk__solver_overlap;
extern const ovk__solver ovk__solver_cg1;
extern const ovk__solver ovk__solver_pipecg;
extern const ovk__solver ovk__solver_groppcg;
extern const ovk__solver ovk__solver_pipeprcg;
extern const ovk__solver ovk__solver_plcg;
extern const ovk__solver ovk__solver_gmres;
extern const ovk__solver ovk__solver_fgmres;
extern const ovk__solver ovk__solver_pgmres;
extern const ovk__solver ovk__solver_auto;
extern const ovk__solver ovk__solver_bicgstab;
extern const ovk__solver ovk__solver_pipebicgstab;
extern const ovk__solver ovk__solver_idrs;
/* SOLVERS: declarations of further variants go here. */

static const ovk__solver *const solvers[] = {
    &ovk__solver_alg1,
    &ovk__solver_alg2,
    &ovk__solver_overlap,
    &ovk__solver_cg1,
    &ovk__solver_pipecg,
    &ovk__solver_groppcg,
    &ovk__solver_pipeprcg,
    &ovk__solver_plcg,
    &ovk__solver_gmres,
    &ovk__solver_fgmres,
    &ovk__solver_pgmres,
    &ovk__solver_auto,
    &ovk__solver_bicgstab,
    &ovk__solver_pipebicgstab,
    &ovk__solver_idrs,
    /* SOLVERS: further variants go here. */
};

enum { SOLVER_COUNT = (int)(sizeof solvers / sizeof solvers[0]) };

int ovk_solver_type_count(void) { return SOLVER_COUNT; }
const char *ovk_solver_type_name(int i) { return (i >= 0 && i < SOLVER_COUNT) ? solvers[i]->name : NULL; }
const char *ovk_solver_type_description(int i)
{
    return (i >= 0 && i < SOLVER_COUNT) ? solvers[i]->description : NULL;
}
int ovk_solver_type_nonsymmetric(int i) { return (i >= 0 && i < SOLVER_COUNT) ? solvers[i]->nonsymmetric : 0; }

const ovk__solver *ovk__solver_find(const char *name)
{
    for (int i = 0; i < SOLVER_COUNT; i++)
        if (strcmp(solvers[i]->name, name) == 0) return solvers[i];
    return NULL;
}

void ovk__solver_names(char *buf, size_t len, int unsplit_only)
{
    buf[0] = '\0';
    for (int i = 0; i < SOLVER_COUNT; i++) {
        if (!unsplit_only || !solvers[i]->split) ovk__list_add(buf, len, ", ", solvers[i]->name);
    }
}

void ovk__solver_nonsymmetric_names(char *buf, size_t len)
{
    buf[0] = '\0';
    for (int i = 0; i < SOLVER_COUNT; i++)
        if (solvers[i]->nonsymmetric) ovk__list_add(buf, len, ", ", solvers[i]->name);
}

static const char *const reason_names[] = {
#define OVK_REASON_NAME_(name, value, text) [value] = text,
    OVK_REASON_LIST(OVK_REASON_NAME_)
#undef OVK_REASON_NAME_
};

const char *ovk_reason_name(ovk_reason r)
{
    return ((unsigned)r < sizeof reason_names / sizeof reason_names[0]) ? reason_names[r] : "unknown";
}

static const char *const timer_names[OVK_TIMER_COUNT] = {
#define OVK_TIMER_NAME_(name, text) [name] = text,
    OVK_TIMER_LIST(OVK_TIMER_NAME_)
#undef OVK_TIMER_NAME_
};

const char *ovk_timer_name(ovk_timer t) { return ((unsigned)t < OVK_TIMER_COUNT) ? timer_names[t] : "unknown"; }

int ovk_pcg_solve(const ovk_matrix *A, const ovk_vector *b, ovk_vector *x, const ovk_pcg_options *opts,
                  ovk_pcg_result *res)
{
    ovk_solver *s = NULL;
    if (res) memset(res, 0, sizeof *res);
    int rc2, rc = ovk_solver_create(A, &s); /* a NULL A is a local error: no communicator to agree on */
    if (rc) return rc;
    if (!opts) rc = ovk__fail(OVK_EINVAL, "ovk_pcg_solve: NULL options");
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

void ovk_pcg_print_timing(FILE *f, const ovk_pcg_result *r)
{
    fprintf(f, "%-12s %12s %12s %8s\n", "operation", "max (s)", "mean (s)", "% solve");
    double total = r->time_max[OVK_TIMER_SOLVE] > 0 ? r->time_max[OVK_TIMER_SOLVE] : 1.0;
    for (int t = 0; t < OVK_TIMER_COUNT; t++)
        fprintf(f, "%-12s %12.6f %12.6f %8.2f\n", timer_names[t], r->time_max[t], r->time_mean[t],
                100.0 * r->time_max[t] / total);
    fprintf(f, "iterations %d, reductions %lld, time per iteration %.3e s\n", r->iterations, r->reductions,
            r->iterations > 0 ? r->time_max[OVK_TIMER_SOLVE] / r->iterations : 0.0);
}

/* The registry of the variants: each is one `const ovk__solver` of its
 * family's folder (solver.h), listed here once.  The interface lists and
 * finds them here; a variant that runs another (auto, a fallback) finds it
 * here too, never by calling into its file. */
#include <string.h>

#include "../solver.h"

extern const ovk__solver ovk__solver_alg1;
extern const ovk__solver ovk__solver_alg2;
extern const ovk__solver ovk__solver_overlap;
extern const ovk__solver ovk__solver_cg1;
extern const ovk__solver ovk__solver_pipecg;
extern const ovk__solver ovk__solver_rpipecg;
extern const ovk__solver ovk__solver_rcg;
extern const ovk__solver ovk__solver_groppcg;
extern const ovk__solver ovk__solver_pipeprcg;
extern const ovk__solver ovk__solver_plcg;
extern const ovk__solver ovk__solver_scg;
extern const ovk__solver ovk__solver_gmres;
extern const ovk__solver ovk__solver_fgmres;
extern const ovk__solver ovk__solver_pgmres;
extern const ovk__solver ovk__solver_sgmres;
extern const ovk__solver ovk__solver_gcrodr;
extern const ovk__solver ovk__solver_auto;
extern const ovk__solver ovk__solver_bicgstab;
extern const ovk__solver ovk__solver_pipebicgstab;
extern const ovk__solver ovk__solver_idrs;
extern const ovk__solver ovk__solver_pipeidrs;
extern const ovk__solver ovk__solver_minres, ovk__solver_pminres;
/* SOLVERS: declarations of further variants go here. */

static const ovk__solver *const solvers[] = {
    &ovk__solver_alg1,
    &ovk__solver_alg2,
    &ovk__solver_overlap,
    &ovk__solver_cg1,
    &ovk__solver_pipecg,
    &ovk__solver_rpipecg,
    &ovk__solver_rcg,
    &ovk__solver_groppcg,
    &ovk__solver_pipeprcg,
    &ovk__solver_plcg,
    &ovk__solver_scg,
    &ovk__solver_gmres,
    &ovk__solver_fgmres,
    &ovk__solver_pgmres,
    &ovk__solver_sgmres,
    &ovk__solver_gcrodr,
    &ovk__solver_auto,
    &ovk__solver_bicgstab,
    &ovk__solver_pipebicgstab,
    &ovk__solver_idrs,
    &ovk__solver_pipeidrs,
    &ovk__solver_minres, &ovk__solver_pminres,
    /* SOLVERS: further variants go here. */
};

enum { SOLVER_COUNT = (int)(sizeof solvers / sizeof solvers[0]) };

int ovk_solver_type_count(void) { return SOLVER_COUNT; }
const char *ovk_solver_type_name(int i) { return (i >= 0 && i < SOLVER_COUNT) ? solvers[i]->name : NULL; }
const char *ovk_solver_type_description(int i)
{
    return (i >= 0 && i < SOLVER_COUNT) ? solvers[i]->description : NULL;
}
int ovk_solver_type_nonsymmetric(int i) { return (i >= 0 && i < SOLVER_COUNT) ? ovk__has_cap(solvers[i], OVK__CAP_NONSYMMETRIC) : 0; }

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
        if (ovk__has_cap(solvers[i], OVK__CAP_NONSYMMETRIC)) ovk__list_add(buf, len, ", ", solvers[i]->name);
}

void ovk__solver_recycling_names(char *buf, size_t len)
{
    buf[0] = '\0';
    for (int i = 0; i < SOLVER_COUNT; i++)
        if (ovk__has_cap(solvers[i], OVK__CAP_RECYCLES)) ovk__list_add(buf, len, ", ", solvers[i]->name);
}

void ovk__solver_cap_names(char *buf, size_t len, unsigned cap)
{
    buf[0] = '\0';
    for (int i = 0; i < SOLVER_COUNT; i++)
        if (ovk__has_cap(solvers[i], cap)) ovk__list_add(buf, len, ", ", solvers[i]->name);
}

/* The registry of the variants, made from its list (registry_list.h): each
 * variant's name, description and keys with its ops (a `const
 * ovk__solver_ops` of its family's folder, solver.h).  The interface lists
 * and finds them here; a variant that runs another (auto, a fallback) finds
 * it here too, never by calling into its file. */
#include <string.h>

#include "../solver.h"

#define OVK__SOLVER(name, description, keys) extern const ovk__solver_ops ovk__solver_##name;
#include "registry_list.h"
#undef OVK__SOLVER

static const ovk__solver solvers[] = {
#define OVK__SOLVER(name, description, keys) {#name, description, keys, &ovk__solver_##name},
#include "registry_list.h"
#undef OVK__SOLVER
};

enum { SOLVER_COUNT = (int)(sizeof solvers / sizeof solvers[0]) };

int ovk_solver_type_count(void) { return SOLVER_COUNT; }
const char *ovk_solver_type_name(int i) { return (i >= 0 && i < SOLVER_COUNT) ? solvers[i].name : NULL; }
const char *ovk_solver_type_description(int i)
{
    return (i >= 0 && i < SOLVER_COUNT) ? solvers[i].description : NULL;
}
int ovk_solver_type_nonsymmetric(int i)
{
    return (i >= 0 && i < SOLVER_COUNT) ? ovk__has_cap(&solvers[i], OVK__CAP_NONSYMMETRIC) : 0;
}

const ovk__solver *ovk__solver_find(const char *name)
{
    for (int i = 0; i < SOLVER_COUNT; i++)
        if (strcmp(solvers[i].name, name) == 0) return &solvers[i];
    return NULL;
}

void ovk__solver_names(char *buf, size_t len, int unsplit_only)
{
    buf[0] = '\0';
    for (int i = 0; i < SOLVER_COUNT; i++) {
        if (!unsplit_only || !solvers[i].ops->split) ovk__list_add(buf, len, ", ", solvers[i].name);
    }
}

void ovk__solver_nonsymmetric_names(char *buf, size_t len) { ovk__solver_cap_names(buf, len, OVK__CAP_NONSYMMETRIC); }

void ovk__solver_recycling_names(char *buf, size_t len) { ovk__solver_cap_names(buf, len, OVK__CAP_RECYCLES); }

void ovk__solver_cap_names(char *buf, size_t len, unsigned cap)
{
    buf[0] = '\0';
    for (int i = 0; i < SOLVER_COUNT; i++)
        if (ovk__has_cap(&solvers[i], cap)) ovk__list_add(buf, len, ", ", solvers[i].name);
}

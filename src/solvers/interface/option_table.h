/* The solver's option table (object_options.c) as its readers inside the library
 * see it (help.c, options.c, log_view.c), and the solver's last result for
 * the info queries (info.c).  The public side (names,
 * help, defaults, ranges, origins) is in include/ovkrylov/solver.h. */
#ifndef OVK_OPTION_TABLE_H
#define OVK_OPTION_TABLE_H

#include "../solver.h"

/* how the library's code names an option without spelling its key; for
 * the first three, the registry whose names it takes (what -ovk_help
 * lists under it) */
typedef enum ovk__opt_role {
    OVK__ROLE_NONE,
    OVK__ROLE_SOLVER,  /* the Krylov variants (pcg.c's registry) */
    OVK__ROLE_PRECOND, /* the preconditioners */
    OVK__ROLE_BACKEND, /* the reduction backends */
    OVK__ROLE_NULLSPACE /* the declared null space (named in the engine's hints) */
} ovk__opt_role;

/* the role of option i (OVK__ROLE_NONE outside) */
ovk__opt_role ovk__solver_option_role(int i);
/* the key of the option of `role` (NULL for OVK__ROLE_NONE) */
const char *ovk__solver_role_key(ovk__opt_role role);
/* the result of s's last solve (ovk_solver_solve_many: of its first
 * system), zero before any; NULL when s is not a solver (info.c) */
const ovk_result *ovk__solver_last_result(const ovk_solver *s);

#endif

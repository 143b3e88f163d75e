/* The application's own preconditioner: z = C r through a callback on the
 * rank's rows (ovk_solver_set_precond_fn).  A nonzero return is reported as
 * OVK_ECALLBACK; the solver layer decides what the ranks do about it. */
#include <stdlib.h>

#include "precond.h"

typedef struct user_pc {
    ovk_apply_fn fn;
    void *ctx;
    ovk_solver *owner;
} user_pc;

static int user_setup(void *state, const ovk__pc_env *env)
{
    (void)state;
    (void)env;
    return OVK_OK;
}

static int user_apply(void *state, const double *r, double *z, const ovk__hook *h)
{
    user_pc *u = state;
    (void)h; /* the callback drives progress itself, through ovk_solver_progress */
    int urc = u->fn(u->owner, r, z, u->ctx);
    return urc ? ovk__fail(OVK_ECALLBACK, "the preconditioner callback returned %d", urc) : OVK_OK;
}

static void user_destroy(void *state) { free(state); }

static const ovk__pc_type user_type = {
    .setup = user_setup, .destroy = user_destroy,
    .apply = user_apply,
};

int ovk__pc_create_user(ovk_apply_fn fn, void *ctx, ovk_solver *owner, ovk__pc *pc)
{
    user_pc *u = malloc(sizeof *u);
    if (!u) return ovk__fail(OVK_ENOMEM, "user preconditioner");
    *u = (user_pc){fn, ctx, owner};
    pc->type = &user_type;
    pc->name = "user";
    pc->state = u;
    return OVK_OK;
}

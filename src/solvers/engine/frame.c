/* The frame every variant runs in: its work struct and vectors from what it
 * declares (solver.h), the timed solve around its recurrence (r = b - A x,
 * the initial check, then iterate), the fallback entry, and the breakdown
 * classification the recurrences share. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../solver.h"

/* the offsets of the variant's vector fields (the declared list, or
 * vectors() filling room, malloc'd: any count), and their count; -1 when
 * room cannot be had */
static int vector_fields(const ovk__ctx *c, const ovk__solver *sv, size_t **room, const size_t **vec)
{
    *room = NULL;
    *vec = sv->ops->vec;
    if (!sv->ops->vectors) return sv->ops->nvec;
    int count = sv->ops->vectors(c->params, NULL);
    *room = malloc(sizeof(size_t) * (size_t)(count > 0 ? count : 1));
    if (!*room) return -1;
    *vec = *room;
    return sv->ops->vectors(c->params, *room);
}

size_t ovk__vec_stride(int n)
{
    enum { PAGE = 512, STAGGER = 72 }; /* doubles: 4 KiB; 576 B = 9 cache lines */
    return ((size_t)(n > 0 ? n : 1) + PAGE - 1) / PAGE * PAGE + STAGGER;
}

/* Local: the work struct, and its vector fields pointed at zeroed vectors
 * of n doubles in one block, in the declared order (the first, r, at the
 * block's start): the caller's block resized (realloc keeps the pages it
 * has touched when it can) or a new one.  The starts are staggered by 9
 * cache lines modulo 4 KiB (ovk__vec_stride), so that the 10-18 streams of
 * a fused kernel do not all map to the same cache sets (measured on
 * pipecg's update: up to 20 % faster than page-aligned vectors). */
static int allocate(ovk__ctx *c, const ovk__solver *sv, ovk__variant *v, double *block)
{
    size_t *room;
    const size_t *off;
    size_t stride = ovk__vec_stride(c->n);
    int count = vector_fields(c, sv, &room, &off);
    if (count < 0) {
        free(block);
        return ovk__fail(OVK_ENOMEM, "the vector list of solver %s", sv->name);
    }
    size_t len = stride * (size_t)count;
    if (block) {
        double *resized = realloc(block, len * sizeof(double));
        if (!resized) free(block); /* still the caller's: ours to free */
        else memset(resized, 0, len * sizeof(double));
        v->block = resized;
    } else {
        v->block = calloc(len, sizeof(double));
    }
    v->work = v->block ? calloc(1, sv->ops->work_size) : NULL;
    if (v->work)
        for (int i = 0; i < count; i++) *(double **)((char *)v->work + off[i]) = v->block + stride * (size_t)i;
    free(room);
    if (!v->block) return ovk__fail(OVK_ENOMEM, "%d work vectors of %d rows", count, c->n);
    if (!v->work) return ovk__fail(OVK_ENOMEM, "solver %s", sv->name);
    v->r = v->block;
    return OVK_OK;
}

int ovk__variant_setup_on(ovk__ctx *c, const ovk__solver *sv, ovk__variant *v, double *block)
{
    memset(v, 0, sizeof *v);
    int rc = allocate(c, sv, v, block);
    if (!rc) {
        v->sv = sv; /* from here on its destroy frees what setup made */
        if (sv->ops->setup) rc = sv->ops->setup(c, v->work);
    }
    rc = ovk__agree(c->comm, rc); /* one agreement for the vectors and the setup */
    if (rc) ovk__variant_free(v);
    return rc;
}

int ovk__variant_setup(ovk__ctx *c, const ovk__solver *sv, ovk__variant *v)
{
    return ovk__variant_setup_on(c, sv, v, NULL);
}

int ovk__variant_run(ovk__ctx *c, ovk__variant *v)
{
    double bb = 0.0, t_solve = ovk__now();
    int decided = 0, rc = OVK_OK;
    if (c->guess_zero) memset(c->x, 0, sizeof(double) * (size_t)c->n); /* x0 = 0 */
    rc = ovk__ctx_start_residual(c, v->r);
    if (rc) goto done;
    c->sym.running = ovk__has_cap(v->sv, OVK__CAP_NONSYMMETRIC);
    /* OVK__CAP_DEFERS_INITIAL: not at max_iter 0 (no first reduction); norm=natural
       always (C r0 and <r0, C r0> are the variant's) */
    c->watch.initial_pending = c->mon.natural || (ovk__has_cap(v->sv, OVK__CAP_DEFERS_INITIAL) && c->opts->max_iter > 0);
    if (!c->watch.initial_pending) rc = ovk__initial_check(c, v->r, &bb, &decided);
    if (rc || decided) goto done;
    rc = v->sv->ops->iterate(c, v->work, bb);
done:
    c->watch.initial_pending = 0;
    c->clock.t[OVK_TIMER_SOLVE] = ovk__now() - t_solve;
    return rc;
}

int ovk__variant_resume(ovk__ctx *c, const ovk__solver *sv, ovk__variant *v, double bb, int iter0)
{
    if (!sv->ops->resume) return ovk__fail(OVK_EINVAL, "solver %s cannot resume another's solve", sv->name);
    if (!v->sv) {
        int rc = ovk__variant_setup(c, sv, v);
        if (rc) return rc;
    }
    c->sym.running = ovk__has_cap(sv, OVK__CAP_NONSYMMETRIC);
    return sv->ops->resume(c, v->work, bb, iter0);
}

int ovk__variant_after_setup(ovk__ctx *c, ovk__variant *v)
{
    return v->sv && v->sv->ops->after_setup ? v->sv->ops->after_setup(c, v->work) : OVK_OK;
}

int ovk__variant_delegate(ovk__ctx *c, ovk__variant *inner, void *params, const double *r, double bb, int *ran)
{
    int decided = 0, rc = OVK_OK;
    *ran = 0;
    if (c->watch.initial_pending && !ovk__has_cap(inner->sv, OVK__CAP_DEFERS_INITIAL)) rc = ovk__initial_check(c, r, &bb, &decided);
    if (!rc && !decided && inner->sv->ops->needs_norm && !c->norms.current) rc = c->norms.update(c);
    if (rc || decided) return rc;
    if (c->n > 0) memcpy(inner->r, r, sizeof(double) * (size_t)c->n);
    c->sym.running = ovk__has_cap(inner->sv, OVK__CAP_NONSYMMETRIC);
    void *saved = c->params;
    c->params = params;
    rc = inner->sv->ops->iterate(c, inner->work, bb);
    c->params = saved;
    *ran = 1;
    return rc;
}

void ovk__variant_free(ovk__variant *v)
{
    if (v->sv && v->sv->ops->destroy) v->sv->ops->destroy(v->work);
    free(v->work);
    free(v->block);
    memset(v, 0, sizeof *v);
}

double *ovk__variant_take_block(ovk__variant *v)
{
    double *block = v->block;
    v->block = NULL;
    ovk__variant_free(v);
    return block;
}

int ovk__breakdown(ovk__ctx *c, int iter, const char *what, double v, int zero_ok)
{
    if (isfinite(v) && (v > 0.0 || (zero_ok && v == 0.0))) return 0;
    ovk__stop(c, iter, isfinite(v) ? OVK_REASON_BREAKDOWN : OVK_REASON_NONFINITE, what, v);
    return 1;
}

int ovk__restart_vectors(ovk__ctx *c, int r_ready, double *r, double *u, double *w)
{
    int rc = r_ready ? OVK_OK : ovk__ctx_residual(c, r); /* r = b - A x */
    if (rc) return rc;
    rc = ovk__ctx_pc(c, r, u); /* u = C r */
    if (rc) return rc;
    return ovk__ctx_matvec(c, u, w); /* w = A u */
}

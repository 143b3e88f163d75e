/* The frame every variant runs in: its work struct and vectors from what it
 * declares (solver.h), the timed solve around its recurrence (r = b - A x,
 * the initial check, then iterate), the fallback entry, and the breakdown
 * classification the recurrences share. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "solver.h"

/* count work vectors of n doubles (zeroed) in one block, freed with
 * free(*block): the starts are staggered by 9 cache lines modulo 4 KiB, so
 * that the 10-18 streams of a fused kernel do not all map to the same cache
 * sets (measured on pipecg's update: up to 20 % faster than page-aligned
 * vectors).  Collective: OVK_ENOMEM, or the caller's failure rc, agreed
 * on all ranks. */
static int alloc_block(ovk__ctx *c, int rc, int count, double **v[], double **block)
{
    enum { PAGE = 512, STAGGER = 72 }; /* doubles: 4 KiB; 576 B = 9 cache lines */
    size_t stride = ((size_t)(c->n > 0 ? c->n : 1) + PAGE - 1) / PAGE * PAGE + STAGGER;
    *block = rc ? NULL : calloc(stride * (size_t)count, sizeof(double));
    if (!rc && !*block) rc = ovk__fail(OVK_ENOMEM, "%d work vectors of %d rows", count, c->n);
    for (int i = 0; i < count; i++) *v[i] = *block ? *block + stride * (size_t)i : NULL;
    return ovk__agree(c->comm, rc);
}

/* the offsets of the variant's vector fields, and their count */
static int vector_fields(const ovk__ctx *c, const ovk__solver *sv, size_t vec[OVK__MAX_VECS])
{
    if (sv->vectors) return sv->vectors(c->params, vec);
    memcpy(vec, sv->vec, sizeof(size_t) * (size_t)sv->nvec);
    return sv->nvec;
}

int ovk__variant_setup(ovk__ctx *c, const ovk__solver *sv, ovk__variant *v)
{
    size_t off[OVK__MAX_VECS];
    double **fields[OVK__MAX_VECS];
    memset(v, 0, sizeof *v);
    v->work = calloc(1, sv->work_size);
    int count = v->work ? vector_fields(c, sv, off) : 0;
    for (int i = 0; i < count; i++) fields[i] = (double **)((char *)v->work + off[i]);
    /* one agreement for both allocations */
    int rc = alloc_block(c, v->work ? OVK_OK : ovk__fail(OVK_ENOMEM, "solver %s", sv->name), count, fields,
                         &v->block);
    if (rc) {
        ovk__variant_free(v);
        return rc;
    }
    v->r = *fields[0];
    v->sv = sv;
    if (sv->setup) sv->setup(c, v->work);
    return OVK_OK;
}

int ovk__variant_solve(ovk__ctx *c, ovk__variant *v)
{
    double bb = 0.0, t_solve = ovk__now();
    int decided = 0;
    int rc = ovk__ctx_residual(c, v->r); /* r = b - A x */
    if (rc) goto done;
    rc = ovk__initial_check(c, v->r, &bb, &decided);
    if (rc || decided) goto done;
    rc = v->sv->iterate(c, v->work, bb);
done:
    c->t[OVK_TIMER_SOLVE] = ovk__now() - t_solve;
    return rc;
}

int ovk__variant_resume(ovk__ctx *c, const ovk__solver *sv, ovk__variant *v, double bb, int iter0)
{
    if (!sv->resume) return ovk__fail(OVK_EINVAL, "solver %s cannot resume another's solve", sv->name);
    if (!v->sv) {
        int rc = ovk__variant_setup(c, sv, v);
        if (rc) return rc;
    }
    return sv->resume(c, v->work, bb, iter0);
}

void ovk__variant_free(ovk__variant *v)
{
    if (v->sv && v->sv->destroy) v->sv->destroy(v->work);
    free(v->work);
    free(v->block);
    memset(v, 0, sizeof *v);
}

int ovk__breakdown(ovk__ctx *c, int iter, const char *what, double v, int zero_ok)
{
    if (isfinite(v) && (v > 0.0 || (zero_ok && v == 0.0))) return 0;
    ovk__stop(c, iter, isfinite(v) ? OVK_REASON_BREAKDOWN : OVK_REASON_NONFINITE, what, v);
    return 1;
}

/* Solves whose scale would under- or overflow the sums: a b with <b,b>
 * beyond [2^-256, 2^256] (b = 1e-300 everywhere: <b,b> = 0, taken for
 * b = 0 by a plain test) or an A with ||A||_inf beyond [2^-128, 2^128].
 * The solve runs again on (2^ka A) y = 2^kb b and returns x = 2^(ka - kb) y,
 * with 2^kb max |b_i| and 2^ka ||A||_inf near 1.  Powers of two scale
 * exactly: where nothing under- or overflows, the iterates are bitwise
 * those of the unscaled solve.  A itself is not touched: each product is
 * 2^k1 A (2^k2 p) and each preconditioner 2^-k2 C (2^-k1 r), k1 + k2 = ka,
 * (C ~ A^-1 scales as 2^-ka; C = I, pc none, does not), and the
 * preconditioner's diagonals the fused kernels read are scaled copies.
 * An ordinary solve pays a comparison at its initial check and a branch
 * per product and preconditioner call. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../solver.h"

/* y = 2^k x (n entries, in place when y == x) */
static void scale_vec(int n, int k, const double *x, double *y)
{
    for (int i = 0; i < n; i++) y[i] = ldexp(x[i], k);
}

/* a copy of the preconditioner's array p (NULL: none) scaled by 2^k */
static int scaled_copy(int n, const double *p, int k, double **out)
{
    *out = NULL;
    if (!p) return OVK_OK;
    int rc = ovk__pc_alloc(n, "the scaled solve's preconditioner", out);
    if (rc) return rc;
    scale_vec(n, k, p, *out);
    return OVK_OK;
}

static void release(ovk__scaling *sc)
{
    free(sc->tmp);
    free(sc->diag);
    free(sc->divisor);
    free(sc->split);
    memset(sc, 0, sizeof *sc);
}

/* local: the scaled b (in *bs) and the room of the scaled products */
static int make_room(ovk__ctx *c, double **bs)
{
    const ovk__pc_type *t = c->pc->type;
    ovk__scaling *sc = &c->scale;
    int rc = ovk__pc_alloc(c->n, "the scaled solve's right-hand side", bs);
    if (!rc) rc = ovk__pc_alloc(c->n, "the scaled solve's products", &sc->tmp);
    if (rc || !sc->kc) return rc;
    rc = scaled_copy(c->n, t->diagonal ? t->diagonal(c->pc->state) : NULL, -sc->kc, &sc->diag);
    if (!rc) rc = scaled_copy(c->n, t->divisor ? t->divisor(c->pc->state) : NULL, sc->kc, &sc->divisor);
    if (!rc)
        rc = scaled_copy(c->n, t->split_diagonal ? t->split_diagonal(c->pc->state) : NULL, -sc->kc / 2, &sc->split);
    return rc;
}

/* b = 0 exactly: x = 0, converged at iteration 0 (as hypre returns) */
static int zero_rhs(ovk__ctx *c)
{
    for (int i = 0; i < c->n; i++) c->x[i] = 0.0;
    c->res->iterations = 0;
    c->res->rel_residual = 0.0;
    c->res->reason = OVK_REASON_CONVERGED;
    return OVK_OK;
}

/* the solve again on (2^ka A) y = 2^kb b (b = 0 exactly: x = 0,
 * converged); OVK_ENOMEM when its two to five vectors cannot be had */
static int solve_scaled(ovk__ctx *c, ovk__variant *v)
{
    ovk__scaling *sc = &c->scale;
    const double *b = c->b;
    double *bs = NULL, bmax = ovk__absmax(c->n, b);
    int rc = ovk__mpi(MPI_Allreduce(MPI_IN_PLACE, &bmax, 1, MPI_DOUBLE, MPI_MAX, c->comm), "MPI_Allreduce (max |b_i|)");
    if (rc) return rc;
    if (bmax == 0.0) return zero_rhs(c); /* the exact test: no entry of b is nonzero */
    if (!c->norms.current) rc = c->norms.update(c); /* ||A||_inf (an operator: its estimate) */
    if (rc) return rc;
    memset(sc, 0, sizeof *sc);
    sc->kb = ovk__pow2_exponent(bmax);
    if (ovk__anorm_out(c->norms.anorm)) sc->ka = ovk__pow2_exponent(c->norms.anorm) & ~1; /* even */
    sc->kc = c->pc->type->fixed ? 0 : sc->ka;
    rc = ovk__agree(c->comm, make_room(c, &bs));
    if (rc) goto cleanup;
    scale_vec(c->n, sc->kb, b, bs);
    if (!c->guess_zero) scale_vec(c->n, sc->kb - sc->ka, c->x, c->x); /* y0 = 2^(kb - ka) x0 */
    double anorm = c->norms.anorm;
    c->norms.anorm = ldexp(anorm, sc->ka);
    if (sc->ka != sc->kc) c->norms.epoch++; /* plcg's spectrum of CA: now 2^ka C A */
    c->b = bs;
    c->lanczos.count = 0;
    sc->active = 1;
    rc = ovk__variant_run(c, v);
    sc->active = 0;
    c->b = b;
    c->norms.anorm = anorm;
    if (sc->ka != sc->kc) c->norms.epoch++;
    scale_vec(c->n, sc->ka - sc->kb, c->x, c->x); /* x = 2^(ka - kb) y */
cleanup:
    free(bs);
    release(sc);
    return rc;
}

int ovk__variant_solve(ovk__ctx *c, ovk__variant *v)
{
    if (ovk__scale_needed(c, 1.0)) return solve_scaled(c, v); /* ||A|| out of range */
    c->scale.wanted = 0;
    int rc = ovk__variant_run(c, v);
    if (rc || !c->scale.wanted) return rc;
    return solve_scaled(c, v); /* <b,b> out of range */
}

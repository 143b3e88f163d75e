/* The solve of a system whose Dirichlet rows were eliminated symmetrically
 * (solver.h, ovk__elim): E made at setup from A's values, each solve's
 * right-hand side b' = b - A x~ (one product with A), x's Dirichlet rows
 * set from b at the end.  E x = b' and A x = b have the same solution: on
 * a Dirichlet row both say a_ii x_i = b_i; on another row E drops
 * a_ij x_j, j Dirichlet, which b' subtracts with x_j = b_j / a_jj. */
#include <stdlib.h>
#include <string.h>

#include "../solver.h"

void ovk__elim_free(ovk__elim *e)
{
    ovk_matrix_destroy(e->E);
    free(e->rows);
    free(e->b);
    free(e->xd);
    memset(e, 0, sizeof *e);
}

int ovk__elim_setup(ovk__elim *e, const ovk_matrix *A)
{
    ovk_matrix *E = e->E; /* its values updated when the pattern is the same */
    e->E = NULL;
    ovk__elim_free(e);
    e->E = E;
    int rc = ovk__matrix_eliminate(A, &e->E, &e->rows, &e->nrows, &e->count);
    if (rc || !e->E) return rc;
    size_t rows = (size_t)(A->lay.nlocal > 0 ? A->lay.nlocal : 1);
    e->b = calloc(rows, sizeof(double));
    e->xd = calloc(rows, sizeof(double));
    rc = e->b && e->xd ? OVK_OK : ovk__fail(OVK_ENOMEM, "the Dirichlet rows' right-hand side: %zu rows", rows);
    rc = ovk__agree(A->lay.comm, rc);
    if (rc) ovk__elim_free(e);
    return rc;
}

int ovk__elim_rhs(ovk__ctx *c, ovk__elim *e, const ovk_matrix *A, const double *b, double *out, double *x)
{
    int n = A->lay.nlocal;
    ovk__tic t0 = ovk__tic_start(c);
    for (int q = 0; q < e->nrows; q++) { /* x~: the known values, 0 elsewhere (xd stays 0 between solves) */
        int i = e->rows[q];
        e->xd[i] = b[i] / A->diagonal[i];
        if (x) x[i] = e->xd[i]; /* the initial guess exact there */
    }
    int rc = ovk__matvec(A, e->xd, out, &c->hook); /* A x~ */
    for (int i = 0; i < n; i++) out[i] = b[i] - out[i];
    for (int q = 0; q < e->nrows; q++) { /* b'_i = b_i on a Dirichlet row; xd back to 0 */
        int i = e->rows[q];
        out[i] = b[i];
        e->xd[i] = 0.0;
    }
    ovk__tic_stop(c, OVK_TIMER_MATVEC, t0);
    return rc;
}

/* the solve runs on E */
static int active(const ovk__ctx *c, const ovk__elim *e) { return e->E && c->A == e->E; }

void ovk__elim_fix(const ovk__ctx *c, const ovk__elim *e, const ovk_matrix *A, const double *b, double *x)
{
    for (int q = 0; active(c, e) && q < e->nrows; q++) {
        int i = e->rows[q];
        x[i] = b[i] / A->diagonal[i];
    }
}

int ovk__elim_begin_solve(ovk__ctx *c, ovk__elim *e, const ovk_matrix *A)
{
    if (!active(c, e)) return OVK_OK; /* none, or a variant that runs on A */
    e->b_in = c->b;
    int rc = ovk__elim_rhs(c, e, A, c->b, e->b, c->guess_zero ? NULL : c->x);
    c->b = e->b;
    return rc;
}

void ovk__elim_end_solve(ovk__ctx *c, const ovk__elim *e, const ovk_matrix *A)
{
    if (active(c, e)) ovk__elim_fix(c, e, A, e->b_in, c->x);
}

int ovk__elim_many_begin(ovk__ctx *c, ovk__elim *e, const ovk_matrix *A, int k, const double **b, double *const *x,
                         double **room)
{
    *room = NULL;
    if (!active(c, e)) return OVK_OK; /* also an operator solver's (A NULL) */
    int n = A->lay.nlocal, rc;
    *room = malloc(sizeof(double) * (size_t)(n > 0 ? n : 1) * (size_t)k);
    rc = ovk__agree(c->comm, *room ? OVK_OK : ovk__fail(OVK_ENOMEM, "the Dirichlet rows' %d right-hand sides", k));
    for (int j = 0; !rc && j < k; j++) {
        if (!b[j]) continue; /* a refused system: the same on every rank */
        double *out = *room + (size_t)j * (size_t)(n > 0 ? n : 1);
        rc = ovk__elim_rhs(c, e, A, b[j], out, c->guess_zero ? NULL : x[j]);
        b[j] = out;
    }
    return rc;
}

/* The amg cycle's grid transfers in single precision (amg:precision=single):
 * a copy of hypre's interpolation P_l with float weights, by fine rows for
 * the interpolation x_f += P x_c and transposed (by coarse rows) for the
 * restriction y_c = alpha P^T r, so that both read P once in its row order
 * (a gather, where hypre's P^T r scatters).  8 bytes an entry instead of
 * ParCSR's 12.  The halo goes through hypre's communication package of P:
 * forward (job 1) the coarse values P's offd columns need, backward (job
 * 2) the sums of the offd part for the coarse rows other ranks own.
 *
 * The restriction of the float copy is the exact transpose of its
 * interpolation, so that the cycle stays symmetric: only the Galerkin
 * product (hypre's, of the double P) differs from P^T A P by the rounding
 * of the weights.  The weights may be those of diag(w) P (amg's scaled
 * reuse: ovk__amg_transfer_scale), both copies alike. */
#include <stdlib.h>
#include <string.h>

#include "amg_transfer.h"

struct ovk__amg_transfer {
    int nf, nc, nx;                /* fine rows, coarse rows (local), P's offd columns */
    int *ptr, *col;                /* P's diag block by fine rows, coarse local columns */
    float *val;
    int *tptr, *tcol;              /* the same block transposed: by coarse rows, fine columns */
    float *tval;
    int *tpos;                     /* entry k of the diag block is entry tpos[k] of the transpose (made at
                                      the first scaling: ovk__amg_transfer_scale_room) */
    int *optr, *ocol;              /* P's offd block: columns into ext */
    float *oval;
    hypre_ParCSRCommPkg *pkg;      /* P's (hypre's) */
    int kcap;                      /* room for kcap systems' halos: */
    double *kbuf, *kext;           /* the rows other ranks need (send map) and P's offd columns' values, */
    hypre_ParCSRCommHandle **kch;  /* system j's at j nsend and j nx, and their exchanges */
};

void ovk__amg_transfer_free(ovk__amg_transfer *t)
{
    if (!t) return;
    free(t->ptr), free(t->col), free(t->val), free(t->tptr), free(t->tcol), free(t->tval), free(t->tpos);
    free(t->optr), free(t->ocol), free(t->oval);
    free(t->kbuf), free(t->kext), free(t->kch);
    free(t);
}

/* the block's rows as CSR of float values (ptr: n + 1 entries) */
static int copy_block(hypre_CSRMatrix *B, int n, int **ptr, int **col, float **val)
{
    const int *bi = hypre_CSRMatrixI(B), *bj = hypre_CSRMatrixJ(B);
    const double *bv = hypre_CSRMatrixData(B);
    int nnz = n > 0 && bi ? bi[n] : 0;
    *ptr = malloc(sizeof(int) * ((size_t)n + 1));
    *col = malloc(sizeof(int) * ((size_t)nnz + 1));
    *val = malloc(sizeof(float) * ((size_t)nnz + 1));
    if (!*ptr || !*col || !*val) return ovk__fail(OVK_ENOMEM, "amg: a float copy of P (%d entries)", nnz);
    for (int i = 0; i <= n; i++) (*ptr)[i] = bi && n > 0 ? bi[i] : 0;
    for (int k = 0; k < nnz; k++) {
        (*col)[k] = bj[k];
        (*val)[k] = (float)bv[k];
    }
    return OVK_OK;
}

/* t's transpose of the diag block (nc rows) by a counting sort */
static int transpose_block(ovk__amg_transfer *t)
{
    int nnz = t->ptr[t->nf];
    t->tptr = calloc((size_t)t->nc + 1, sizeof(int));
    t->tcol = malloc(sizeof(int) * ((size_t)nnz + 1));
    t->tval = malloc(sizeof(float) * ((size_t)nnz + 1));
    if (!t->tptr || !t->tcol || !t->tval) return ovk__fail(OVK_ENOMEM, "amg: P^T (%d entries)", nnz);
    for (int k = 0; k < nnz; k++) t->tptr[t->col[k] + 1]++;
    for (int j = 0; j < t->nc; j++) t->tptr[j + 1] += t->tptr[j];
    for (int i = 0; i < t->nf; i++)
        for (int k = t->ptr[i]; k < t->ptr[i + 1]; k++) {
            int at = t->tptr[t->col[k]]++;
            t->tcol[at] = i;
            t->tval[at] = t->val[k];
        }
    for (int j = t->nc; j > 0; j--) t->tptr[j] = t->tptr[j - 1]; /* back to the row starts */
    t->tptr[0] = 0;
    return OVK_OK;
}

int ovk__amg_transfer_scale_room(ovk__amg_transfer *t)
{
    if (t->tpos) return OVK_OK;
    int nnz = t->ptr[t->nf];
    t->tpos = malloc(sizeof(int) * ((size_t)nnz + 1));
    if (!t->tpos) return ovk__fail(OVK_ENOMEM, "amg: the places of P^T's %d entries (reuse_scale)", nnz);
    /* the transpose's counting sort again, its row starts as cursors */
    for (int i = 0; i < t->nf; i++)
        for (int k = t->ptr[i]; k < t->ptr[i + 1]; k++) t->tpos[k] = t->tptr[t->col[k]]++;
    for (int j = t->nc; j > 0; j--) t->tptr[j] = t->tptr[j - 1];
    t->tptr[0] = 0;
    return OVK_OK;
}

void ovk__amg_transfer_scale(ovk__amg_transfer *t, hypre_ParCSRMatrix *P, const double *w)
{
    hypre_CSRMatrix *D = hypre_ParCSRMatrixDiag(P), *O = hypre_ParCSRMatrixOffd(P);
    const double *dv = hypre_CSRMatrixData(D), *ov = hypre_CSRMatrixData(O);
    for (int i = 0; i < t->nf; i++) {
        double wi = w ? w[i] : 1.0; /* row i of diag(w) P: the same rounding as the copy's when w = 1 */
        for (int k = t->ptr[i]; k < t->ptr[i + 1]; k++) t->val[k] = t->tval[t->tpos[k]] = (float)(wi * dv[k]);
        if (t->nx > 0) /* else optr has no rows */
            for (int k = t->optr[i]; k < t->optr[i + 1]; k++) t->oval[k] = (float)(wi * ov[k]);
    }
}

/* the entries of the send map: the coarse rows other ranks need */
static int send_count(const ovk__amg_transfer *t)
{
    return hypre_ParCSRCommPkgSendMapStart(t->pkg, hypre_ParCSRCommPkgNumSends(t->pkg));
}

/* Local: the float copy of P (its communication package made before). */
static int make_copy(hypre_ParCSRMatrix *P, ovk__amg_transfer *t)
{
    hypre_CSRMatrix *D = hypre_ParCSRMatrixDiag(P), *O = hypre_ParCSRMatrixOffd(P);
    t->nf = hypre_CSRMatrixNumRows(D);
    t->nc = hypre_CSRMatrixNumCols(D);
    t->nx = hypre_CSRMatrixNumCols(O);
    t->pkg = hypre_ParCSRMatrixCommPkg(P);
    int rc = copy_block(D, t->nf, &t->ptr, &t->col, &t->val);
    if (!rc) rc = copy_block(O, t->nx > 0 ? t->nf : 0, &t->optr, &t->ocol, &t->oval);
    if (!rc) rc = transpose_block(t);
    return rc ? rc : ovk__amg_transfer_reserve(t, 1);
}

int ovk__amg_transfer_make(MPI_Comm comm, hypre_ParCSRMatrix *P, ovk__amg_transfer **out)
{
    *out = NULL;
    ovk__amg_transfer *t = calloc(1, sizeof *t);
    /* agreed first: no rank may skip the collective package creation below */
    int rc = ovk__agree(comm, t ? OVK_OK : ovk__fail(OVK_ENOMEM, "amg: float P"));
    /* collective: hypre's package of P's halo, when its setup made none */
    if (!rc && !hypre_ParCSRMatrixCommPkg(P) && hypre_MatvecCommPkgCreate(P))
        rc = ovk__fail(OVK_EPRECOND, "amg: hypre_MatvecCommPkgCreate failed in hypre (P)");
    rc = ovk__agree(comm, rc);
    if (!rc) rc = ovk__agree(comm, make_copy(P, t));
    if (rc) {
        ovk__amg_transfer_free(t);
        return rc;
    }
    *out = t;
    return OVK_OK;
}

/* one row's sum of w_k v[c_k] over [lo, hi) */
static inline double row_sum(const int *restrict c, const float *restrict w, const double *restrict v, int lo, int hi)
{
    double s = 0.0;
    for (int k = lo; k < hi; k++) s += (double)w[k] * v[c[k]];
    return s;
}

/* x_f[i] += (P_diag x_c)_i for rows [lo, hi) of one system */
static void interpolate_one(const ovk__amg_transfer *t, const double *restrict xc, double *restrict xf, int lo, int hi)
{
    const int *restrict ptr = t->ptr;
    for (int i = lo; i < hi; i++) xf[i] += row_sum(t->col, t->val, xc, ptr[i], ptr[i + 1]);
}

static int fail_comm(void) { return ovk__fail(OVK_EPRECOND, "amg: hypre's halo exchange of P failed"); }

int ovk__amg_transfer_reserve(ovk__amg_transfer *t, int k)
{
    if (k <= t->kcap) return OVK_OK;
    double *buf = malloc(sizeof(double) * ((size_t)send_count(t) * (size_t)k + 1));
    double *ext = malloc(sizeof(double) * ((size_t)t->nx * (size_t)k + 1));
    hypre_ParCSRCommHandle **ch = malloc(sizeof(hypre_ParCSRCommHandle *) * (size_t)k);
    if (!buf || !ext || !ch) { /* the room held stays */
        free(buf), free(ext), free(ch);
        return ovk__fail(OVK_ENOMEM, "amg: P's halo for %d system(s)", k);
    }
    free(t->kbuf), free(t->kext), free(t->kch);
    t->kbuf = buf, t->kext = ext, t->kch = ch, t->kcap = k;
    return OVK_OK;
}

/* the exchanges of the k systems ended (all of them, also after a failure) */
static int end_all(const ovk__amg_transfer *t, int k)
{
    int bad = 0;
    for (int j = 0; j < k; j++) bad |= hypre_ParCSRCommHandleDestroy(t->kch[j]) != 0;
    return bad ? fail_comm() : OVK_OK;
}

int ovk__amg_interpolate(const ovk__amg_transfer *t, int k, const double *const *xc, double *const *xf,
                              const ovk__hook *h)
{
    const int *elm = hypre_ParCSRCommPkgSendMapElmts(t->pkg);
    int nsend = send_count(t), nx = t->nx, step = ovk__chunk_rows(t->nf, h);
    for (int j = 0; j < k; j++) { /* system j's coarse values other ranks need, sent */
        double *buf = t->kbuf + (size_t)j * (size_t)nsend;
        for (int s = 0; s < nsend; s++) buf[s] = xc[j][elm[s]];
        t->kch[j] = hypre_ParCSRCommHandleCreate(1, t->pkg, buf, t->kext + (size_t)j * (size_t)nx);
    }
    for (int lo = 0; lo < t->nf; lo += step) { /* x_f += P_diag x_c, each row of P read once for all k */
        int hi = ovk__chunk_end(lo, step, t->nf);
        if (k == 1) /* the same sums without the loop over systems, which costs as much as P's short rows */
            interpolate_one(t, xc[0], xf[0], lo, hi);
        else
            for (int i = lo; i < hi; i++)
                for (int j = 0; j < k; j++) xf[j][i] += row_sum(t->col, t->val, xc[j], t->ptr[i], t->ptr[i + 1]);
        ovk__poke(h);
    }
    int rc = end_all(t, k);
    for (int i = 0; i < t->nf && nx > 0 && !rc; i++)
        for (int j = 0; j < k && t->optr[i] < t->optr[i + 1]; j++)
            xf[j][i] += row_sum(t->ocol, t->oval, t->kext + (size_t)j * (size_t)nx, t->optr[i], t->optr[i + 1]);
    ovk__poke(h);
    return rc;
}

int ovk__amg_restrict(const ovk__amg_transfer *t, int k, double alpha, const double *const *r, double *const *yc,
                           const ovk__hook *h)
{
    const int *elm = hypre_ParCSRCommPkgSendMapElmts(t->pkg);
    int nsend = send_count(t), nx = t->nx, step = ovk__chunk_rows(t->nc, h);
    if (nx > 0) memset(t->kext, 0, sizeof(double) * (size_t)nx * (size_t)k);
    for (int i = 0; i < t->nf && nx > 0; i++) /* ext_j = P_offd^T r_j, for the columns' owners */
        for (int q = t->optr[i]; q < t->optr[i + 1]; q++)
            for (int j = 0; j < k; j++)
                t->kext[(size_t)j * (size_t)nx + (size_t)t->ocol[q]] += (double)t->oval[q] * r[j][i];
    for (int j = 0; j < k; j++)
        t->kch[j] = hypre_ParCSRCommHandleCreate(2, t->pkg, t->kext + (size_t)j * (size_t)nx,
                                                 t->kbuf + (size_t)j * (size_t)nsend);
    for (int lo = 0; lo < t->nc; lo += step) { /* y_c = alpha P_diag^T r, each row of P^T read once for all k */
        int hi = ovk__chunk_end(lo, step, t->nc);
        for (int c = lo; c < hi; c++)
            for (int j = 0; j < k; j++) yc[j][c] = alpha * row_sum(t->tcol, t->tval, r[j], t->tptr[c], t->tptr[c + 1]);
        ovk__poke(h);
    }
    int rc = end_all(t, k);
    for (int j = 0; j < k && !rc; j++) /* the other ranks' parts of our rows */
        for (int s = 0; s < nsend; s++) yc[j][elm[s]] += alpha * t->kbuf[(size_t)j * (size_t)nsend + (size_t)s];
    return rc;
}

/* The amg cycle's grid transfers: a copy of the interpolation P_l by fine
 * rows for the interpolation x_f += P x_c and transposed (by coarse rows)
 * for the restriction y_c = alpha P^T r, so that both read P once in its
 * row order (a gather, where a ParCSR P^T r scatters).  The weights are
 * float (amg:precision=single: 8 bytes an entry instead of ParCSR's 12) or
 * double.  The halo is the copy's own plan (amg_plan.c), made once from the
 * global ids of P's offd columns and the coarse partition: forward, the coarse values
 * P's offd columns need; backward, the sums of the offd part for the
 * coarse rows other ranks own; one message per neighbour for all k systems.
 *
 * The restriction is the exact transpose of the interpolation, so that the
 * cycle stays symmetric.  The weights may be those of diag(w) P (amg's
 * scaled reuse: ovk__amg_transfer_scale), both copies alike. */
#include <stdlib.h>
#include <string.h>

#include "amg_plan.h"
#include "amg_transfer.h"

/* the transfers' messages, on the amg's own communicator (a duplicate),
 * one level's at a time */
enum { TRANSFER_TAG = 8207 };

struct ovk__amg_transfer {
    MPI_Comm comm;
    int single;                    /* the weights are float (else double) */
    int nf, nc, nx;                /* fine rows, coarse rows (local), P's offd columns */
    int *ptr, *col;                /* P's diag block by fine rows, coarse local columns */
    void *val;
    int *tptr, *tcol;              /* the same block transposed: by coarse rows, fine columns */
    void *tval;
    int *tpos;                     /* entry k of the diag block is entry tpos[k] of the transpose (made at
                                      the first scaling: ovk__amg_transfer_scale_room) */
    int *optr, *ocol;              /* P's offd block: columns into ext */
    void *oval;
    ovk__amg_plan pl;              /* the coarse rows each neighbour's P columns read; P's offd columns by owner */
    MPI_Request *reqs;             /* [nsend + nrecv] */
    int kcap;                      /* room for kcap systems: */
    double *kbuf, *kext;           /* system j's sent rows at j ns, its offd columns' values at j nx, */
    double *sbuf, *rbuf;           /* and the messages, each neighbour's k systems side by side */
};

void ovk__amg_transfer_free(ovk__amg_transfer *t)
{
    if (!t) return;
    free(t->ptr), free(t->col), free(t->val), free(t->tptr), free(t->tcol), free(t->tval), free(t->tpos);
    free(t->optr), free(t->ocol), free(t->oval);
    ovk__amg_plan_free(&t->pl), free(t->reqs);
    free(t->kbuf), free(t->kext), free(t->sbuf), free(t->rbuf);
    free(t);
}

static size_t wsize(const ovk__amg_transfer *t) { return t->single ? sizeof(float) : sizeof(double); }

/* weight k of the array v */
static inline void put_w(const ovk__amg_transfer *t, void *v, int k, double x)
{
    if (t->single) ((float *)v)[k] = (float)x;
    else ((double *)v)[k] = x;
}

/* the block's rows as CSR of t's weights (ptr: n + 1 entries; bptr NULL: empty rows) */
static int copy_block(const ovk__amg_transfer *t, int n, const int *bptr, const int *bcol, const double *bval,
                      int **ptr, int **col, void **val)
{
    int nnz = n > 0 && bptr ? bptr[n] : 0;
    *ptr = malloc(sizeof(int) * ((size_t)n + 1));
    *col = malloc(sizeof(int) * ((size_t)nnz + 1));
    *val = malloc(wsize(t) * ((size_t)nnz + 1));
    if (!*ptr || !*col || !*val) return ovk__fail(OVK_ENOMEM, "amg: a copy of P (%d entries)", nnz);
    for (int i = 0; i <= n; i++) (*ptr)[i] = bptr && n > 0 ? bptr[i] : 0;
    for (int k = 0; k < nnz; k++) {
        (*col)[k] = bcol[k];
        put_w(t, *val, k, bval[k]);
    }
    return OVK_OK;
}

/* t's transpose of the diag block (nc rows) by a counting sort */
static int transpose_block(ovk__amg_transfer *t)
{
    int nnz = t->ptr[t->nf];
    size_t ws = wsize(t);
    t->tptr = calloc((size_t)t->nc + 1, sizeof(int));
    t->tcol = malloc(sizeof(int) * ((size_t)nnz + 1));
    t->tval = malloc(ws * ((size_t)nnz + 1));
    if (!t->tptr || !t->tcol || !t->tval) return ovk__fail(OVK_ENOMEM, "amg: P^T (%d entries)", nnz);
    for (int k = 0; k < nnz; k++) t->tptr[t->col[k] + 1]++;
    for (int j = 0; j < t->nc; j++) t->tptr[j + 1] += t->tptr[j];
    for (int i = 0; i < t->nf; i++)
        for (int k = t->ptr[i]; k < t->ptr[i + 1]; k++) {
            int at = t->tptr[t->col[k]]++;
            t->tcol[at] = i;
            memcpy((char *)t->tval + ws * (size_t)at, (const char *)t->val + ws * (size_t)k, ws);
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

void ovk__amg_transfer_scale(ovk__amg_transfer *t, const ovk__amg_prows *p, const double *w)
{
    for (int i = 0; i < t->nf; i++) {
        double wi = w ? w[i] : 1.0; /* row i of diag(w) P: the same rounding as the copy's when w = 1 */
        for (int k = t->ptr[i]; k < t->ptr[i + 1]; k++) {
            put_w(t, t->val, k, wi * p->dval[k]);
            put_w(t, t->tval, t->tpos[k], wi * p->dval[k]);
        }
        if (t->nx > 0) /* else optr has no rows */
            for (int k = t->optr[i]; k < t->optr[i + 1]; k++) put_w(t, t->oval, k, wi * p->oval[k]);
    }
}

/* ---- the copy and its halo plan (amg_plan.c) ------------------------------ */

/* send-map entries: the coarse rows other ranks read */
static int send_count(const ovk__amg_transfer *t) { return t->pl.send_ptr[t->pl.nsend]; }

int ovk__amg_transfer_make(MPI_Comm comm, const ovk__amg_prows *p, int single, ovk__amg_transfer **out)
{
    *out = NULL;
    ovk__amg_transfer *t = calloc(1, sizeof *t);
    int rc = ovk__agree(comm, t ? OVK_OK : ovk__fail(OVK_ENOMEM, "amg: a copy of P"));
    if (rc) goto cleanup;
    t->comm = comm, t->single = single, t->nf = p->nf, t->nc = p->nc, t->nx = p->nx;
    rc = ovk__amg_plan_make(comm, p->c0, p->nx, p->cmap, &t->pl);
    if (rc) goto cleanup;
    t->reqs = malloc(sizeof(MPI_Request) * ((size_t)(t->pl.nsend + t->pl.nrecv) + 1));
    rc = t->reqs ? OVK_OK : ovk__fail(OVK_ENOMEM, "amg: P's halo requests");
    if (!rc) rc = copy_block(t, t->nf, p->dptr, p->dcol, p->dval, &t->ptr, &t->col, &t->val);
    if (!rc) rc = copy_block(t, t->nx > 0 ? t->nf : 0, p->optr, p->ocol, p->oval, &t->optr, &t->ocol, &t->oval);
    if (!rc) rc = transpose_block(t);
    if (!rc) rc = ovk__amg_transfer_reserve(t, 1);
    rc = ovk__agree(comm, rc);
cleanup:
    if (rc) ovk__amg_transfer_free(t);
    else *out = t;
    return rc;
}

int ovk__amg_transfer_reserve(ovk__amg_transfer *t, int k)
{
    if (k <= t->kcap) return OVK_OK;
    size_t ns = (size_t)send_count(t) * (size_t)k + 1, nx = (size_t)t->nx * (size_t)k + 1;
    double *kbuf = malloc(sizeof(double) * ns), *sbuf = malloc(sizeof(double) * ns);
    double *kext = malloc(sizeof(double) * nx), *rbuf = malloc(sizeof(double) * nx);
    if (!kbuf || !sbuf || !kext || !rbuf) { /* the room held stays */
        free(kbuf), free(sbuf), free(kext), free(rbuf);
        return ovk__fail(OVK_ENOMEM, "amg: P's halo for %d system(s)", k);
    }
    free(t->kbuf), free(t->sbuf), free(t->kext), free(t->rbuf);
    t->kbuf = kbuf, t->sbuf = sbuf, t->kext = kext, t->rbuf = rbuf, t->kcap = k;
    return OVK_OK;
}

/* ---- the exchanges -------------------------------------------------------- */

/* Post one message a neighbour each way for k systems: to the `to` ranks
 * (their entries at to_ptr) from out, from the `from` ranks into in; each
 * neighbour's k systems side by side (system j's block at ptr k + j cnt). */
static int post(const ovk__amg_transfer *t, int k, int nto, const int *to, const int *to_ptr, const double *out,
                int nfrom, const int *from, const int *from_ptr, double *in)
{
    int rc = OVK_OK;
    for (int r = 0; r < nfrom && !rc; r++)
        rc = ovk__mpi(MPI_Irecv(in + (size_t)from_ptr[r] * (size_t)k, (from_ptr[r + 1] - from_ptr[r]) * k, MPI_DOUBLE,
                                from[r], TRANSFER_TAG, t->comm, &t->reqs[r]), "MPI_Irecv (amg transfer)");
    for (int s = 0; s < nto && !rc; s++)
        rc = ovk__mpi(MPI_Isend(out + (size_t)to_ptr[s] * (size_t)k, (to_ptr[s + 1] - to_ptr[s]) * k, MPI_DOUBLE,
                                to[s], TRANSFER_TAG, t->comm, &t->reqs[nfrom + s]), "MPI_Isend (amg transfer)");
    return rc;
}

static int wait_all(const ovk__amg_transfer *t)
{
    return ovk__mpi(MPI_Waitall(t->pl.nsend + t->pl.nrecv, t->reqs, MPI_STATUSES_IGNORE), "MPI_Waitall (amg transfer)");
}

/* message position of entry q (of a neighbour's entries from lo to hi) of system j */
static inline size_t at(int lo, int hi, int q, int k, int j)
{
    return (size_t)lo * (size_t)k + (size_t)j * (size_t)(hi - lo) + (size_t)(q - lo);
}

/* ---- the products ---------------------------------------------------------- */

/* one row's sum of w_k v[c_k] over [lo, hi), float or double weights */
static inline double row_sum_f(const int *restrict c, const float *restrict w, const double *restrict v, int lo, int hi)
{
    double s = 0.0;
    for (int k = lo; k < hi; k++) s += (double)w[k] * v[c[k]];
    return s;
}
static inline double row_sum_d(const int *restrict c, const double *restrict w, const double *restrict v, int lo,
                               int hi)
{
    double s = 0.0;
    for (int k = lo; k < hi; k++) s += w[k] * v[c[k]];
    return s;
}
static inline double row_sum(const ovk__amg_transfer *t, const int *c, const void *w, const double *v, int lo, int hi)
{
    return t->single ? row_sum_f(c, w, v, lo, hi) : row_sum_d(c, w, v, lo, hi);
}
static inline double weight(const ovk__amg_transfer *t, const void *w, int k)
{
    return t->single ? (double)((const float *)w)[k] : ((const double *)w)[k];
}

/* x_f[i] += (P_diag x_c)_i for rows [lo, hi) of one system */
static void interpolate_one(const ovk__amg_transfer *t, const double *restrict xc, double *restrict xf, int lo, int hi)
{
    const int *restrict ptr = t->ptr;
    if (t->single)
        for (int i = lo; i < hi; i++) xf[i] += row_sum_f(t->col, t->val, xc, ptr[i], ptr[i + 1]);
    else
        for (int i = lo; i < hi; i++) xf[i] += row_sum_d(t->col, t->val, xc, ptr[i], ptr[i + 1]);
}

int ovk__amg_interpolate(const ovk__amg_transfer *t, int k, const double *const *xc, double *const *xf,
                         const ovk__hook *h)
{
    int nx = t->nx, step = ovk__chunk_rows(t->nf, h);
    for (int s = 0; s < t->pl.nsend; s++) /* the coarse values other ranks need, each neighbour's k systems */
        for (int j = 0; j < k; j++)
            for (int q = t->pl.send_ptr[s]; q < t->pl.send_ptr[s + 1]; q++)
                t->sbuf[at(t->pl.send_ptr[s], t->pl.send_ptr[s + 1], q, k, j)] = xc[j][t->pl.send_idx[q]];
    int rc = post(t, k, t->pl.nsend, t->pl.send_rank, t->pl.send_ptr, t->sbuf, t->pl.nrecv, t->pl.recv_rank, t->pl.recv_ptr, t->rbuf);
    for (int lo = 0; lo < t->nf; lo += step) { /* x_f += P_diag x_c, each row of P read once for all k */
        int hi = ovk__chunk_end(lo, step, t->nf);
        if (k == 1) /* the same sums without the loop over systems, which costs as much as P's short rows */
            interpolate_one(t, xc[0], xf[0], lo, hi);
        else
            for (int i = lo; i < hi; i++)
                for (int j = 0; j < k; j++) xf[j][i] += row_sum(t, t->col, t->val, xc[j], t->ptr[i], t->ptr[i + 1]);
        ovk__poke(h);
    }
    if (!rc) rc = wait_all(t);
    for (int r = 0; r < t->pl.nrecv && !rc; r++) /* the offd columns' values, system after system */
        for (int j = 0; j < k; j++)
            for (int q = t->pl.recv_ptr[r]; q < t->pl.recv_ptr[r + 1]; q++)
                t->kext[(size_t)j * (size_t)nx + (size_t)q] = t->rbuf[at(t->pl.recv_ptr[r], t->pl.recv_ptr[r + 1], q, k, j)];
    for (int i = 0; i < t->nf && nx > 0 && !rc; i++)
        for (int j = 0; j < k && t->optr[i] < t->optr[i + 1]; j++)
            xf[j][i] += row_sum(t, t->ocol, t->oval, t->kext + (size_t)j * (size_t)nx, t->optr[i], t->optr[i + 1]);
    ovk__poke(h);
    return rc;
}

int ovk__amg_restrict(const ovk__amg_transfer *t, int k, double alpha, const double *const *r, double *const *yc,
                      const ovk__hook *h)
{
    int nx = t->nx, step = ovk__chunk_rows(t->nc, h);
    if (nx > 0) memset(t->kext, 0, sizeof(double) * (size_t)nx * (size_t)k);
    for (int i = 0; i < t->nf && nx > 0; i++) /* ext_j = P_offd^T r_j, for the columns' owners */
        for (int q = t->optr[i]; q < t->optr[i + 1]; q++)
            for (int j = 0; j < k; j++)
                t->kext[(size_t)j * (size_t)nx + (size_t)t->ocol[q]] += weight(t, t->oval, q) * r[j][i];
    for (int o = 0; o < t->pl.nrecv; o++) /* to the owners, each one's k systems side by side */
        for (int j = 0; j < k; j++)
            for (int q = t->pl.recv_ptr[o]; q < t->pl.recv_ptr[o + 1]; q++)
                t->rbuf[at(t->pl.recv_ptr[o], t->pl.recv_ptr[o + 1], q, k, j)] = t->kext[(size_t)j * (size_t)nx + (size_t)q];
    int rc = post(t, k, t->pl.nrecv, t->pl.recv_rank, t->pl.recv_ptr, t->rbuf, t->pl.nsend, t->pl.send_rank, t->pl.send_ptr, t->sbuf);
    for (int lo = 0; lo < t->nc; lo += step) { /* y_c = alpha P_diag^T r, each row of P^T read once for all k */
        int hi = ovk__chunk_end(lo, step, t->nc);
        if (t->single) /* the weights' type chosen once a chunk */
            for (int c = lo; c < hi; c++)
                for (int j = 0; j < k; j++) yc[j][c] = alpha * row_sum_f(t->tcol, t->tval, r[j], t->tptr[c], t->tptr[c + 1]);
        else
            for (int c = lo; c < hi; c++)
                for (int j = 0; j < k; j++) yc[j][c] = alpha * row_sum_d(t->tcol, t->tval, r[j], t->tptr[c], t->tptr[c + 1]);
        ovk__poke(h);
    }
    if (!rc) rc = wait_all(t);
    for (int j = 0; j < k && !rc; j++) /* the other ranks' parts of our rows, in the send map's order */
        for (int s = 0; s < t->pl.nsend; s++)
            for (int q = t->pl.send_ptr[s]; q < t->pl.send_ptr[s + 1]; q++)
                yc[j][t->pl.send_idx[q]] += alpha * t->sbuf[at(t->pl.send_ptr[s], t->pl.send_ptr[s + 1], q, k, j)];
    return rc;
}

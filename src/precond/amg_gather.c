/* The aggregation hierarchy's coarse levels gathered onto fewer ranks
 * (amg:setup=agg,agg_gather=R; amg_agg.c builds the levels): a level whose
 * rows per rank holding rows fall below R goes onto every 2nd, 4th, ...
 * rank, in the same global numbering, so that the levels are those of the
 * ungathered hierarchy and only their owners change.  The coarse nodes and
 * their rows of B move to their group's first rank before P_tent is built
 * on the gathered partition; a smoothed P and A_{l+1} are formed on the
 * rank's own aggregates and then moved (one all-to-all of rows each). */
#include <stdlib.h>
#include <string.h>

#include "amg_agg_impl.h"

/* Local (global values only, so every rank the same): the stride of the
 * coarse level, from the fine level's: doubled while the coarse level's
 * rows per rank holding them stay below gather (0: never), up to one rank */
int ovk__amg_coarse_stride(int size, int stride, long long rows, double gather)
{
    while (gather > 0.0 && stride < size && (double)rows < gather * (double)((size + stride - 1) / stride))
        stride *= 2;
    return stride;
}

/* Collective: c->own0, own1 and *next, the first aggregate of the next
 * group of ranks (the node numbering's start on an idle rank): the coarse
 * unknowns of ranks r .. r+stride-1 (r a multiple of stride) owned by r, in
 * the same global numbering; the idle ranks own an empty range at the next
 * group's start, so that "the last rank whose start is <= id" owns id. */
int ovk__amg_coarse_owners(level_graph *g, coarse *c, ovk_gidx *next)
{
    int s = c->stride, r = g->rank, t = r / s * s, end = t + s < g->size ? t + s : g->size;
    if (s == 1) {
        c->own0 = c->cstart, c->own1 = c->cstart + c->cptr[c->nagg];
        *next = c->astart + c->nagg;
        return OVK_OK;
    }
    long long mine[2] = {(long long)c->cstart, (long long)c->astart};
    long long *all = malloc(sizeof(long long) * 2 * ((size_t)g->size + 1));
    int rc = ovk__agree(g->comm, all ? OVK_OK : ovk__amg_agg_nomem("the gathered partition"));
    if (!rc) rc = ovk__mpi(MPI_Allgather(mine, 2, MPI_LONG_LONG, all, 2, MPI_LONG_LONG, g->comm), "MPI_Allgather (amg agg)");
    if (!rc) all[2 * g->size] = (long long)c->nglobal, all[2 * g->size + 1] = (long long)c->atotal;
    if (!rc) {
        c->own0 = r == t ? all[2 * t] : all[2 * end];
        c->own1 = all[2 * end];
        *next = all[2 * end + 1];
    }
    free(all);
    return rc;
}

/* Collective: the coarse nodes (their unknowns' counts, their rows of B)
 * of ranks r .. r+stride-1 onto rank r, in rank order (which is the global
 * order): one MPI_Alltoallv of records [nagg, each aggregate's unknowns,
 * B's rows].  next: coarse_owners'. */
int ovk__amg_gather_coarse(level_graph *g, coarse *c, int k, ovk_gidx next)
{
    int s = c->stride, r = g->rank, t = r / s * s, nc = c->cptr[c->nagg];
    int *scount = calloc((size_t)g->size + 1, sizeof(int)), *rcount = malloc(sizeof(int) * ((size_t)g->size + 1));
    int *rdisp = malloc(sizeof(int) * ((size_t)g->size + 1));
    double *send = malloc(sizeof(double) * (1 + (size_t)c->nagg + (size_t)nc * k)), *recv = NULL;
    int rc = ovk__agree(g->comm, scount && rcount && rdisp && send ? OVK_OK : ovk__amg_agg_nomem("gathering a level"));
    if (!rc) {
        scount[t] = 1 + c->nagg + nc * k;
        send[0] = c->nagg;
        for (int a = 0; a < c->nagg; a++) send[1 + a] = c->cptr[a + 1] - c->cptr[a];
        for (int i = 0; i < nc; i++)
            for (int j = 0; j < k; j++) send[1 + c->nagg + (size_t)i * k + j] = c->B[(size_t)j * nc + i];
        rc = ovk__amg_agg_exchange(g, send, scount, &recv, rcount, rdisp);
    }
    int nagg = 0, ncg = 0;
    for (int p = 0; !rc && p < g->size; p++)
        if (rcount[p]) {
            int na = (int)recv[rdisp[p]];
            nagg += na, ncg += (rcount[p] - 1 - na) / k;
        }
    int *cptr = rc ? NULL : malloc(sizeof(int) * ((size_t)nagg + 1));
    double *B = rc ? NULL : malloc(sizeof(double) * ((size_t)ncg * k + 1));
    if (!rc) rc = cptr && B ? OVK_OK : ovk__amg_agg_nomem("gathering a level");
    rc = ovk__agree(g->comm, rc);
    if (!rc) {
        int a = 0, i = 0;
        cptr[0] = 0;
        for (int p = 0; p < g->size; p++) {
            if (!rcount[p]) continue;
            const double *q = recv + rdisp[p];
            int na = (int)q[0], ni = (rcount[p] - 1 - na) / k;
            for (int e = 0; e < na; e++, a++) cptr[a + 1] = cptr[a] + (int)q[1 + e];
            for (int e = 0; e < ni; e++, i++)
                for (int j = 0; j < k; j++) B[(size_t)j * ncg + i] = q[1 + na + (size_t)e * k + j];
        }
        free(c->cptr), free(c->B);
        c->cptr = cptr, c->B = B, cptr = NULL, B = NULL;
        c->nagg = nagg, c->cstart = c->own0;
        if (r != t) c->astart = next; /* idle: no nodes, at the next group's start */
    }
    free(scount), free(rcount), free(rdisp), free(send), free(recv), free(cptr), free(B);
    return rc;
}

/* Local: H's rows with global columns (ptr: n + 1, gcol and val: its entries) */
static int rows_of(const ovk__amg_csr *H, int **ptr, ovk_gidx **gcol, double **val)
{
    int n = H->n, nd = ovk__amg_csr_dnnz(H), no = ovk__amg_csr_onnz(H);
    *ptr = malloc(sizeof(int) * ((size_t)n + 1));
    *gcol = malloc(sizeof(ovk_gidx) * ((size_t)nd + no + 1));
    *val = malloc(sizeof(double) * ((size_t)nd + no + 1));
    if (!*ptr || !*gcol || !*val) return ovk__amg_agg_nomem("a gathered level");
    int e = 0;
    (*ptr)[0] = 0;
    for (int i = 0; i < n; i++) {
        for (int t = H->dptr[i]; t < H->dptr[i + 1]; t++) (*gcol)[e] = H->c0 + H->dcol[t], (*val)[e++] = H->dval[t];
        for (int t = H->optr[i]; t < H->optr[i + 1]; t++) (*gcol)[e] = H->cmap[H->ocol[t]], (*val)[e++] = H->oval[t];
        (*ptr)[i + 1] = e;
    }
    return OVK_OK;
}

/* Collective: P's columns and Ac's rows and columns on c's gathered
 * partition (own0 .. own1): P's rows stay, Ac's rows go to the first rank
 * of their group in rank order (one MPI_Alltoallv of [entries, (column,
 * value) ...] records) */
int ovk__amg_to_gathered(level_graph *g, coarse *c, ovk__amg_csr **P, ovk__amg_csr **Ac)
{
    int *ptr = NULL, *scount = calloc((size_t)g->size + 1, sizeof(int)), *rcount = malloc(sizeof(int) * ((size_t)g->size + 1));
    int *rdisp = malloc(sizeof(int) * ((size_t)g->size + 1)), *nptr = NULL;
    ovk_gidx *gcol = NULL, *ncol = NULL;
    double *val = NULL, *send = NULL, *recv = NULL, *nval = NULL;
    ovk__amg_csr *Pg = NULL, *Ag = NULL;
    int rc = ovk__agree(g->comm, scount && rcount && rdisp ? rows_of(*P, &ptr, &gcol, &val) : ovk__amg_agg_nomem("a gathered level"));
    ovk_gidx Nf = (*P)->nrows, Nc = c->nglobal;
    if (!rc) rc = ovk__amg_csr_of_rows(g->comm, Nf, Nc, (*P)->r0, g->n, c->own0, c->own1, ptr, gcol, val, 0, &Pg);
    free(ptr), free(gcol), free(val), ptr = NULL, gcol = NULL, val = NULL;
    int n = rc ? 0 : (*Ac)->n;
    if (!rc) rc = ovk__agree(g->comm, rows_of(*Ac, &ptr, &gcol, &val));
    if (!rc) { /* the records to the group's first rank */
        int t = g->rank / c->stride * c->stride;
        scount[t] = n + 2 * ptr[n];
        send = malloc(sizeof(double) * ((size_t)scount[t] + 1));
        rc = send ? OVK_OK : ovk__amg_agg_nomem("a gathered level");
        for (int i = 0, at = 0; !rc && i < n; i++) {
            send[at++] = ptr[i + 1] - ptr[i];
            for (int e = ptr[i]; e < ptr[i + 1]; e++) send[at++] = (double)gcol[e], send[at++] = val[e];
        }
        rc = ovk__agree(g->comm, rc);
    }
    if (!rc) rc = ovk__amg_agg_exchange(g, send, scount, &recv, rcount, rdisp);
    int m = (int)(c->own1 - c->own0);
    size_t tot = 0;
    for (int p = 0; !rc && p < g->size; p++) tot += (size_t)rcount[p];
    if (!rc) {
        nptr = malloc(sizeof(int) * ((size_t)m + 1));
        ncol = malloc(sizeof(ovk_gidx) * (tot / 2 + 1));
        nval = malloc(sizeof(double) * (tot / 2 + 1));
        rc = nptr && ncol && nval ? OVK_OK : ovk__amg_agg_nomem("a gathered level");
    }
    rc = ovk__agree(g->comm, rc);
    if (!rc) { /* the records in rank order: the rows in global order */
        int i = 0, e = 0;
        nptr[0] = 0;
        for (int p = 0; p < g->size; p++)
            for (size_t at = (size_t)rdisp[p]; at < (size_t)rdisp[p] + (size_t)rcount[p]; i++) {
                int len = (int)recv[at++];
                for (int q = 0; q < len; q++, e++) ncol[e] = (ovk_gidx)recv[at++], nval[e] = recv[at++];
                nptr[i + 1] = e;
            }
        if (i != m) rc = ovk__fail(OVK_EPRECOND, "amg (setup=agg): %d rows gathered for %d", i, m);
        rc = ovk__agree(g->comm, rc);
    }
    if (!rc) rc = ovk__amg_csr_of_rows(g->comm, Nc, Nc, c->own0, m, c->own0, c->own1, nptr, ncol, nval, 1, &Ag);
    if (!rc) {
        ovk__amg_csr_free(*P), ovk__amg_csr_free(*Ac);
        *P = Pg, *Ac = Ag, Pg = Ag = NULL;
    }
    ovk__amg_csr_free(Pg), ovk__amg_csr_free(Ag);
    free(ptr), free(gcol), free(val), free(scount), free(rcount), free(rdisp), free(send), free(recv);
    free(nptr), free(ncol), free(nval);
    return rc;
}


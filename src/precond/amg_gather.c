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
int ovk__amg_coarse_owners(level_graph *g, coarse *c, HYPRE_BigInt *next)
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
int ovk__amg_gather_coarse(level_graph *g, coarse *c, int k, HYPRE_BigInt next)
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

/* Local: a rank's rows (ptr, global columns gcol, val) as a new hypre
 * matrix of N x M with rows r0 .. r0+n and diag columns c0 .. c1 (a square
 * matrix: the diagonal entry first in its row, as hypre keeps it), its
 * communication package made (collective) */
int ovk__amg_parcsr_of_rows(MPI_Comm comm, HYPRE_BigInt N, HYPRE_BigInt M, HYPRE_BigInt r0, int n, HYPRE_BigInt c0,
                          HYPRE_BigInt c1, const int *ptr, const HYPRE_BigInt *gcol, const double *val, int square,
                          hypre_ParCSRMatrix **out)
{
    int nnz = ptr[n], ndiag = 0, no = 0;
    for (int e = 0; e < nnz; e++) ndiag += gcol[e] >= c0 && gcol[e] < c1;
    HYPRE_BigInt *cmap = malloc(sizeof(HYPRE_BigInt) * ((size_t)(nnz - ndiag) + 1));
    int rc = cmap ? OVK_OK : ovk__amg_agg_nomem("a gathered level");
    for (int e = 0; !rc && e < nnz; e++)
        if (!(gcol[e] >= c0 && gcol[e] < c1)) cmap[no++] = gcol[e];
    if (!rc) {
        qsort(cmap, (size_t)no, sizeof *cmap, ovk__amg_agg_cmp_big);
        int u = 0;
        for (int t = 0; t < no; t++)
            if (!u || cmap[u - 1] != cmap[t]) cmap[u++] = cmap[t];
        no = u;
    }
    HYPRE_BigInt rs[2] = {r0, r0 + n}, cs[2] = {c0, c1};
    hypre_ParCSRMatrix *H = NULL;
    if (!rc) {
        H = hypre_ParCSRMatrixCreate(comm, N, M, rs, cs, no, ndiag, nnz - ndiag);
        if (!H || hypre_ParCSRMatrixInitialize(H)) rc = ovk__amg_agg_fail_hy("hypre_ParCSRMatrixCreate");
    }
    rc = ovk__agree(comm, rc);
    if (!rc) {
        hypre_CSRMatrix *D = hypre_ParCSRMatrixDiag(H), *O = hypre_ParCSRMatrixOffd(H);
        HYPRE_Int *di = hypre_CSRMatrixI(D), *dj = hypre_CSRMatrixJ(D), *oi = hypre_CSRMatrixI(O), *oj = hypre_CSRMatrixJ(O);
        double *dv = hypre_CSRMatrixData(D), *ov = hypre_CSRMatrixData(O);
        if (no) memcpy(hypre_ParCSRMatrixColMapOffd(H), cmap, sizeof(HYPRE_BigInt) * (size_t)no);
        int ed = 0, eo = 0;
        di[0] = oi[0] = 0;
        for (int i = 0; i < n; i++) {
            int first = ed;
            for (int e = ptr[i]; e < ptr[i + 1]; e++) {
                if (gcol[e] >= c0 && gcol[e] < c1) {
                    dj[ed] = (HYPRE_Int)(gcol[e] - c0), dv[ed] = val[e];
                    if (square && gcol[e] == r0 + i && ed > first) { /* the diagonal first */
                        HYPRE_Int tj = dj[first];
                        double tv = dv[first];
                        dj[first] = dj[ed], dv[first] = dv[ed], dj[ed] = tj, dv[ed] = tv;
                    }
                    ed++;
                    continue;
                }
                int lo = 0, hi = no - 1; /* the place of gcol[e] among the offd columns */
                while (lo < hi) {
                    int mid = (lo + hi) / 2;
                    if (cmap[mid] < gcol[e]) lo = mid + 1;
                    else hi = mid;
                }
                oj[eo] = lo, ov[eo++] = val[e];
            }
            di[i + 1] = ed, oi[i + 1] = eo;
        }
        rc = ovk__agree(comm, hypre_ParCSRMatrixSetNumNonzeros(H) ? ovk__amg_agg_fail_hy("SetNumNonzeros") : OVK_OK);
        if (!rc) rc = ovk__agree(comm, hypre_MatvecCommPkgCreate(H) ? ovk__amg_agg_fail_hy("hypre_MatvecCommPkgCreate") : OVK_OK);
    }
    if (rc && H) hypre_ParCSRMatrixDestroy(H), H = NULL;
    free(cmap);
    *out = H;
    return rc;
}

/* the entries of a block */
static int csr_count(hypre_CSRMatrix *M)
{
    int n = hypre_CSRMatrixNumRows(M);
    return n > 0 ? hypre_CSRMatrixI(M)[n] : 0;
}

/* Local: H's rows with global columns (ptr: n + 1, gcol and val: its entries) */
static int rows_of(hypre_ParCSRMatrix *H, int **ptr, HYPRE_BigInt **gcol, double **val)
{
    hypre_CSRMatrix *D = hypre_ParCSRMatrixDiag(H), *O = hypre_ParCSRMatrixOffd(H);
    int n = hypre_CSRMatrixNumRows(D), nd = csr_count(D), no = hypre_CSRMatrixNumCols(O) ? csr_count(O) : 0;
    const HYPRE_Int *di = hypre_CSRMatrixI(D), *dj = hypre_CSRMatrixJ(D), *oi = hypre_CSRMatrixI(O), *oj = hypre_CSRMatrixJ(O);
    const double *dv = hypre_CSRMatrixData(D), *ov = hypre_CSRMatrixData(O);
    const HYPRE_BigInt *cmap = hypre_ParCSRMatrixColMapOffd(H), c0 = hypre_ParCSRMatrixFirstColDiag(H);
    *ptr = malloc(sizeof(int) * ((size_t)n + 1));
    *gcol = malloc(sizeof(HYPRE_BigInt) * ((size_t)nd + no + 1));
    *val = malloc(sizeof(double) * ((size_t)nd + no + 1));
    if (!*ptr || !*gcol || !*val) return ovk__amg_agg_nomem("a gathered level");
    int e = 0;
    (*ptr)[0] = 0;
    for (int i = 0; i < n; i++) {
        for (int t = di[i]; t < di[i + 1]; t++) (*gcol)[e] = c0 + dj[t], (*val)[e++] = dv[t];
        for (int t = no ? oi[i] : 0; no && t < oi[i + 1]; t++) (*gcol)[e] = cmap[oj[t]], (*val)[e++] = ov[t];
        (*ptr)[i + 1] = e;
    }
    return OVK_OK;
}

/* Collective: P's columns and Ac's rows and columns on c's gathered
 * partition (own0 .. own1): P's rows stay, Ac's rows go to the first rank
 * of their group in rank order (one MPI_Alltoallv of [entries, (column,
 * value) ...] records) */
int ovk__amg_to_gathered(level_graph *g, coarse *c, hypre_ParCSRMatrix **P, hypre_ParCSRMatrix **Ac)
{
    int *ptr = NULL, *scount = calloc((size_t)g->size + 1, sizeof(int)), *rcount = malloc(sizeof(int) * ((size_t)g->size + 1));
    int *rdisp = malloc(sizeof(int) * ((size_t)g->size + 1)), *nptr = NULL;
    HYPRE_BigInt *gcol = NULL, *ncol = NULL;
    double *val = NULL, *send = NULL, *recv = NULL, *nval = NULL;
    hypre_ParCSRMatrix *Pg = NULL, *Ag = NULL;
    int rc = ovk__agree(g->comm, scount && rcount && rdisp ? rows_of(*P, &ptr, &gcol, &val) : ovk__amg_agg_nomem("a gathered level"));
    HYPRE_BigInt Nf = hypre_ParCSRMatrixGlobalNumRows(*P), Nc = c->nglobal;
    if (!rc)
        rc = ovk__amg_parcsr_of_rows(g->comm, Nf, Nc, hypre_ParCSRMatrixFirstRowIndex(*P), g->n, c->own0, c->own1, ptr, gcol, val,
                            0, &Pg);
    free(ptr), free(gcol), free(val), ptr = NULL, gcol = NULL, val = NULL;
    int n = rc ? 0 : hypre_CSRMatrixNumRows(hypre_ParCSRMatrixDiag(*Ac));
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
        ncol = malloc(sizeof(HYPRE_BigInt) * (tot / 2 + 1));
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
                for (int q = 0; q < len; q++, e++) ncol[e] = (HYPRE_BigInt)recv[at++], nval[e] = recv[at++];
                nptr[i + 1] = e;
            }
        if (i != m) rc = ovk__fail(OVK_EPRECOND, "amg (setup=agg): %d rows gathered for %d", i, m);
        rc = ovk__agree(g->comm, rc);
    }
    if (!rc) rc = ovk__amg_parcsr_of_rows(g->comm, Nc, Nc, c->own0, m, c->own0, c->own1, nptr, ncol, nval, 1, &Ag);
    if (!rc) {
        hypre_ParCSRMatrixDestroy(*P), hypre_ParCSRMatrixDestroy(*Ac);
        *P = Pg, *Ac = Ag, Pg = Ag = NULL;
    }
    if (Pg) hypre_ParCSRMatrixDestroy(Pg);
    if (Ag) hypre_ParCSRMatrixDestroy(Ag);
    free(ptr), free(gcol), free(val), free(scount), free(rcount), free(rdisp), free(send), free(recv);
    free(nptr), free(ncol), free(nval);
    return rc;
}


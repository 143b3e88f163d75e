/* The Galerkin product A_c = P^T A P of unsmoothed aggregation by sums, as
 * AGMG, AmgX and Ginkgo form it for piecewise-constant prolongation: P has
 * a few entries a row (P_tent: one aggregate's columns, as many as its
 * block of the near-null space keeps; smoothed: those of the aggregates
 * next to the row's), so
 *   (A_c)_cd = sum over a_ij of p_ic a_ij p_jd,
 * summed as the rank's rows of A P first (nnz(A) k products, k: P's
 * longest row), then P^T of the rank's rows times them (nnz(A P) k): no
 * general distributed sparse product, no P^T formed as a matrix.
 *
 * Build (collective):
 *   1. P's rows at A's offd columns from their ranks (A's halo plan, one
 *      message each way per neighbour): each row's columns and values;
 *   2. the coarse columns this rank touches numbered compactly: its own
 *      (P's diag columns) then the others in ascending global order;
 *   3. the rank's rows of A P (a sparse accumulator a row), P^T of its
 *      rows (coarse column -> fine rows), and for each coarse row c it
 *      touches the partial row sum_i p_ic (A P)_i (partial sums in a fixed
 *      order);
 *   4. partial rows of coarse rows owned elsewhere (aggregates crossing a
 *      rank boundary) sent to the owner, (row, column) once, then values;
 *   5. A_c's rows laid out (the diagonal first, as hypre's product does),
 *      each partial sum's slot kept.
 * A value update (reuse: P and the patterns kept) redoes 3 for the values
 * and adds each partial sum into its slot (4's values only): the numeric
 * sum only. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "amg_galerkin.h"

enum { TAG_HALO = 8217 };

struct ovk__amg_rap {
    MPI_Comm comm;
    int size;
    int nf, no;           /* A's local rows, offd columns */
    int nc, ne;           /* coarse columns: the rank's own, the others (compact) */
    ovk_gidx c0;      /* the first own coarse column */
    int *pptr, *pcol;     /* P's local rows, compact columns */
    double *pval;
    int *hptr, *hcol;     /* P's rows at A's offd columns */
    double *hval;
    int *tptr, *trow;     /* P^T: compact coarse column -> the local fine rows */
    double *tval;
    int *apptr, *apcol;   /* A P: local rows, compact columns */
    double *apval;
    size_t apcap;
    int *mark, *list;     /* the accumulator's [nc + ne] */
    double *acc;
    int *runlen, rmax;    /* the length of the run of columns starting at a column (0: inside one), the longest */
    double *blk;          /* the accumulator of a run of coarse rows: [nc + ne][rmax] */
    size_t nout;          /* the partial sums, in the order of step 3 */
    double *out;
    int *dest;            /* >= 0: A_c's slot (diag values then offd); < 0: -1 - the send position */
    int *scount, *sdisp, *rcount, *rdisp;
    double *sbuf, *rbuf;
    size_t nrecv;
    int *rdest;           /* each received sum's slot */
    int annz_d, annz_o, cnnz_d, cnnz_o; /* A's and A_c's local entries at the build */
};

static int nomem(const char *what) { return ovk__fail(OVK_ENOMEM, "amg (Galerkin product): %s", what); }

static int cmp_big(const void *a, const void *b)
{
    ovk_gidx x = *(const ovk_gidx *)a, y = *(const ovk_gidx *)b;
    return (x > y) - (x < y);
}

/* index of id in the sorted v[0..n), or -1 */
static int find_big(const ovk_gidx *v, int n, ovk_gidx id)
{
    int lo = 0, hi = n - 1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        if (v[mid] < id) lo = mid + 1;
        else if (v[mid] > id) hi = mid - 1;
        else return mid;
    }
    return -1;
}

void ovk__amg_rap_free(ovk__amg_rap *r)
{
    if (!r) return;
    free(r->pptr), free(r->pcol), free(r->pval), free(r->hptr), free(r->hcol), free(r->hval);
    free(r->tptr), free(r->trow), free(r->tval), free(r->mark), free(r->list), free(r->acc);
    free(r->runlen), free(r->blk);
    free(r->apptr), free(r->apcol), free(r->apval);
    free(r->out), free(r->dest), free(r->scount), free(r->sdisp), free(r->rcount), free(r->rdisp);
    free(r->sbuf), free(r->rbuf), free(r->rdest);
    free(r);
}

/* ---- 1. P's rows at A's offd columns ------------------------------------- */

/* Local: row i of P as global columns and values (at most kmax) into w:
 * [count, columns..., values...] */
static void pack_row(const ovk__amg_csr *P, int i, int kmax, double *w)
{
    int t = 0;
    for (int e = P->dptr[i]; e < P->dptr[i + 1]; e++, t++)
        w[1 + t] = (double)(P->c0 + P->dcol[e]), w[1 + kmax + t] = P->dval[e];
    for (int e = P->optr[i]; e < P->optr[i + 1]; e++, t++)
        w[1 + t] = (double)P->cmap[P->ocol[e]], w[1 + kmax + t] = P->oval[e];
    w[0] = t;
}

/* Collective with A's neighbours (statuses agreed): the packed rows of P
 * at A's offd columns into *halo ([no] records of 1 + 2 kmax) from the
 * rank's own (loc [nf] records); status: the caller's so far. */
static int halo_rows(const ovk__amg_csr *A, const double *loc, int kmax, double **halo, int status)
{
    size_t W = 1 + 2 * (size_t)kmax;
    *halo = status ? NULL : malloc(sizeof(double) * ((size_t)A->nx * W + 1));
    int rc = status ? status : *halo ? OVK_OK : nomem("P's halo rows");
    return ovk__amg_csr_halo(A, (int)W, loc, *halo, rc);
}

/* ---- 2. the compact coarse columns, P's rows on them, P^T ---------------- */

/* Local: the compact column of global column id (ext: the others, sorted) */
static int compact(const ovk__amg_rap *r, const ovk_gidx *ext, ovk_gidx id)
{
    if (id >= r->c0 && id < r->c0 + r->nc) return (int)(id - r->c0);
    int e = find_big(ext, r->ne, id);
    return e < 0 ? -1 : r->nc + e;
}

/* Local: rows [0, n) of packed records (W wide) as CSR on compact columns */
static int unpack_rows(const ovk__amg_rap *r, const ovk_gidx *ext, const double *rec, int n, int kmax, int **ptr,
                       int **col, double **val)
{
    size_t W = 1 + 2 * (size_t)kmax, tot = 0;
    for (int i = 0; i < n; i++) tot += (size_t)rec[i * W];
    *ptr = malloc(sizeof(int) * ((size_t)n + 1));
    *col = malloc(sizeof(int) * (tot + 1));
    *val = malloc(sizeof(double) * (tot + 1));
    if (!*ptr || !*col || !*val) return nomem("P's rows");
    (*ptr)[0] = 0;
    for (int i = 0, t = 0; i < n; i++) {
        const double *w = rec + i * W;
        for (int s = 0; s < (int)w[0]; s++, t++) {
            (*col)[t] = compact(r, ext, (ovk_gidx)w[1 + s]);
            (*val)[t] = w[1 + kmax + s];
            if ((*col)[t] < 0) return ovk__fail(OVK_EPRECOND, "amg (Galerkin product): a column of P not numbered");
        }
        (*ptr)[i + 1] = t;
    }
    return OVK_OK;
}

/* Local: ext = the sorted other columns of the local and halo rows of P */
static int other_columns(ovk__amg_rap *r, const double *loc, const double *halo, int kmax, ovk_gidx **ext)
{
    size_t W = 1 + 2 * (size_t)kmax, cap = ((size_t)r->nf + (size_t)r->no) * (size_t)kmax + 1, n = 0;
    *ext = malloc(sizeof(ovk_gidx) * cap);
    if (!*ext) return nomem("coarse columns");
    for (int pass = 0; pass < 2; pass++) {
        const double *rec = pass ? halo : loc;
        int rows = pass ? r->no : r->nf;
        for (int i = 0; i < rows; i++)
            for (int s = 0; s < (int)rec[i * W]; s++) {
                ovk_gidx id = (ovk_gidx)rec[i * W + 1 + s];
                if (id < r->c0 || id >= r->c0 + r->nc) (*ext)[n++] = id;
            }
    }
    qsort(*ext, n, sizeof **ext, cmp_big);
    size_t u = 0;
    for (size_t t = 0; t < n; t++)
        if (!u || (*ext)[u - 1] != (*ext)[t]) (*ext)[u++] = (*ext)[t];
    r->ne = (int)u;
    return OVK_OK;
}

/* Local: the runs of compact columns: the longest intervals that every row
 * of P (local and halo) holds whole, contiguous and ascending, or not at
 * all (a coarse node's columns: an aggregate's near-null space), so that
 * the sums below take a run at a time.  brk[d]: a run ends at d. */
static int find_runs(ovk__amg_rap *r)
{
    int nct = r->nc + r->ne;
    char *brk = calloc((size_t)nct + 1, 1);
    r->runlen = malloc(sizeof(int) * ((size_t)nct + 1));
    if (!brk || !r->runlen) {
        free(brk);
        return nomem("coarse runs");
    }
    if (nct) brk[nct - 1] = 1;
    const int *ptr[2] = {r->pptr, r->hptr}, *col[2] = {r->pcol, r->hcol};
    int rows[2] = {r->nf, r->no};
    for (int b = 0; b < 2; b++)
        for (int i = 0; i < rows[b]; i++)
            for (int s = ptr[b][i]; s < ptr[b][i + 1]; s++) {
                int d = col[b][s];
                if (s + 1 == ptr[b][i + 1] || col[b][s + 1] != d + 1) brk[d] = 1;
                if (d > 0 && (s == ptr[b][i] || col[b][s - 1] != d - 1)) brk[d - 1] = 1;
            }
    r->rmax = 1;
    for (int d = 0, start = 0; d < nct; d++) {
        r->runlen[d] = 0;
        if (!brk[d]) continue;
        r->runlen[start] = d - start + 1;
        if (d - start + 1 > r->rmax) r->rmax = d - start + 1;
        start = d + 1;
    }
    free(brk);
    return OVK_OK;
}

/* Local: P^T of the local rows, by compact coarse column */
static int transpose(ovk__amg_rap *r)
{
    int nct = r->nc + r->ne, nnz = r->pptr[r->nf];
    r->tptr = calloc((size_t)nct + 2, sizeof(int));
    r->trow = malloc(sizeof(int) * ((size_t)nnz + 1));
    r->tval = malloc(sizeof(double) * ((size_t)nnz + 1));
    if (!r->tptr || !r->trow || !r->tval) return nomem("P^T");
    for (int t = 0; t < nnz; t++) r->tptr[r->pcol[t] + 2]++;
    for (int c = 0; c < nct; c++) r->tptr[c + 2] += r->tptr[c + 1];
    for (int i = 0; i < r->nf; i++)
        for (int t = r->pptr[i]; t < r->pptr[i + 1]; t++) {
            int at = r->tptr[r->pcol[t] + 1]++;
            r->trow[at] = i, r->tval[at] = r->pval[t];
        }
    return OVK_OK;
}

/* ---- 3. the partial rows ------------------------------------------------- */

/* Local: room for at least need entries in the arrays (NULL: not grown) */
static int grow(size_t need, size_t *cap, double **v, int **a, int **b)
{
    if (need <= *cap) return OVK_OK;
    size_t nc = 2 * need + 16;
    double *nv = realloc(*v, sizeof(double) * nc);
    if (nv) *v = nv;
    int *na = a ? realloc(*a, sizeof(int) * nc) : NULL;
    if (na) *a = na;
    int *nb = b ? realloc(*b, sizeof(int) * nc) : NULL;
    if (nb) *b = nb;
    if (!nv || (a && !na) || (b && !nb)) return nomem("partial sums");
    *cap = nc;
    return OVK_OK;
}

static int pattern_moved(void)
{
    return ovk__fail(OVK_EMISMATCH, "amg (Galerkin product): A's pattern is not that of the kept product");
}

/* Local: the rows of A P (local rows, compact columns) into r->ap*: each
 * row's sums in the order of first touch (the same for the same patterns);
 * sym: the pattern too, grown as needed, else checked against it.
 * nnz(A) k products. */
static int ap_rows(ovk__amg_rap *r, const ovk__amg_csr *A, int sym)
{
    const int *ai[2] = {A->dptr, A->optr}, *aj[2] = {A->dcol, A->ocol};
    const double *av[2] = {A->dval, A->oval};
    const int *qp[2] = {r->pptr, r->hptr}, *qc[2] = {r->pcol, r->hcol};
    const double *qv[2] = {r->pval, r->hval};
    int *mark = r->mark, *list = r->list;
    const int *runlen = r->runlen;
    double *restrict acc = r->acc;
    size_t o = 0;
    for (int c = 0; c < r->nc + r->ne; c++) mark[c] = -1;
    if (sym) r->apptr[0] = 0;
    for (int i = 0; i < r->nf; i++) {
        int cnt = 0;
        for (int b = 0; b < 2; b++) /* (A P)_i = sum_j a_ij P_j */
            for (int e = ai[b][i]; e < ai[b][i + 1]; e++) {
                int j = (int)aj[b][e];
                double a = av[b][e];
                for (int s = qp[b][j], len; s < qp[b][j + 1]; s += len) { /* a run of P_j: d .. d + len - 1 */
                    int d = qc[b][s];
                    len = runlen[d];
                    if (mark[d] != i) {
                        mark[d] = i;
                        for (int t = 0; t < len; t++) acc[d + t] = 0.0, list[cnt++] = d + t;
                    }
                    const double *restrict q = qv[b] + s;
                    for (int t = 0; t < len; t++) acc[d + t] += a * q[t];
                }
            }
        if (sym && grow(o + (size_t)cnt, &r->apcap, &r->apval, &r->apcol, NULL)) return nomem("A P");
        if (!sym && (size_t)r->apptr[i + 1] != o + (size_t)cnt) return pattern_moved();
        for (int t = 0; t < cnt; t++, o++) {
            r->apval[o] = acc[list[t]];
            if (sym) r->apcol[o] = list[t];
            else if (r->apcol[o] != list[t]) return pattern_moved();
        }
        if (sym) {
            if (o > INT32_MAX) return ovk__fail(OVK_EPRECOND, "amg (Galerkin product): A P has %zu local entries", o);
            r->apptr[i + 1] = (int)o;
        }
    }
    return OVK_OK;
}

/* Local: each touched coarse row's partial row sum_i p_ic (A P)_i into
 * r->out, in the order of the compact rows and of first touch; with row and
 * col (not NULL) their compact row and column, grown as needed (*cap).
 * nnz(A P) k products. */
static int partial_rows(ovk__amg_rap *r, const ovk__amg_csr *A, int **row, int **col, size_t *cap)
{
    int rc = ap_rows(r, A, row != NULL);
    if (rc) return rc;
    int *mark = r->mark, *list = r->list, R = r->rmax;
    double *blk = r->blk, *p = r->acc; /* p: the run's weights of one fine row */
    size_t o = 0;
    for (int c = 0; c < r->nc + r->ne; c++) mark[c] = -1;
    for (int c = 0, len; c < r->nc + r->ne; c += len) {
        /* coarse rows c .. c + len - 1 (a run): the same fine rows of P^T,
         * in the same order; the sums of each row in the order of one */
        int cnt = 0, n = r->tptr[c + 1] - r->tptr[c];
        len = r->runlen[c];
        for (int u = 0; u < n; u++) {
            int i = r->trow[r->tptr[c] + u];
            for (int t = 0; t < len; t++) p[t] = r->tval[r->tptr[c + t] + u];
            for (int e = r->apptr[i]; e < r->apptr[i + 1]; e++) {
                int d = r->apcol[e];
                double v = r->apval[e], *b = blk + (size_t)d * R;
                if (mark[d] != c) {
                    mark[d] = c, list[cnt++] = d;
                    for (int t = 0; t < len; t++) b[t] = 0.0;
                }
                for (int t = 0; t < len; t++) b[t] += p[t] * v;
            }
        }
        size_t need = o + (size_t)cnt * (size_t)len;
        if (row && grow(need, cap, &r->out, row, col)) return nomem("partial sums");
        if (!row && need > r->nout) return pattern_moved();
        for (int t = 0; t < len; t++)
            for (int k = 0; k < cnt; k++, o++) {
                r->out[o] = blk[(size_t)list[k] * R + t];
                if (row) (*row)[o] = c + t, (*col)[o] = list[k];
            }
    }
    if (!row && o != r->nout) return pattern_moved();
    r->nout = o;
    return OVK_OK;
}

/* ---- 4. and 5.: the owners' rows ---------------------------------------- */

/* Local: A_c's values zeroed, the rank's own partial sums added by slot,
 * the others' into the send buffer */
static void own_sums(ovk__amg_rap *r, ovk__amg_csr *Ac)
{
    double *dv = Ac->dval, *ov = Ac->oval;
    int nd = (int)r->cnnz_d;
    if (nd) memset(dv, 0, sizeof(double) * (size_t)nd);
    if (r->cnnz_o) memset(ov, 0, sizeof(double) * (size_t)r->cnnz_o);
    for (size_t t = 0; t < r->nout; t++) {
        int d = r->dest[t];
        if (d >= nd) ov[d - nd] += r->out[t];
        else if (d >= 0) dv[d] += r->out[t];
        else r->sbuf[-1 - d] = r->out[t];
    }
}

/* Local: the received sums (r->rbuf) added by slot */
static void received_sums(ovk__amg_rap *r, ovk__amg_csr *Ac)
{
    double *dv = Ac->dval, *ov = Ac->oval;
    int nd = (int)r->cnnz_d;
    for (size_t q = 0; q < r->nrecv; q++) {
        int d = r->rdest[q];
        if (d >= nd) ov[d - nd] += r->rbuf[q];
        else dv[d] += r->rbuf[q];
    }
}

/* Collective: every partial sum into A_c's values, the others' sent to
 * their owners */
static int scatter_sums(ovk__amg_rap *r, ovk__amg_csr *Ac)
{
    own_sums(r, Ac);
    int rc = ovk__mpi(MPI_Alltoallv(r->sbuf, r->scount, r->sdisp, MPI_DOUBLE, r->rbuf, r->rcount, r->rdisp, MPI_DOUBLE,
                                    r->comm),
                      "MPI_Alltoallv (amg Galerkin sums)");
    if (!rc) received_sums(r, Ac);
    return rc;
}

/* Local: the rank of coarse row id (starts: [size + 1]) */
static int owner_of(const ovk_gidx *starts, int size, ovk_gidx id)
{
    int lo = 0, hi = size - 1;
    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;
        if (starts[mid] <= id) lo = mid;
        else hi = mid - 1;
    }
    return lo;
}

/* The layout's working arrays (step 5) */
typedef struct layout {
    int *row, *col;            /* each partial sum's compact row and column */
    ovk_gidx *ext;         /* the compact others, sorted; then with the received columns */
    ovk_gidx *starts;      /* [size + 1] the coarse partition */
    long long *spair, *rpair;  /* (row, column) of the sums sent and received */
    int *rrow, *rcol;          /* a received sum's local row and compact column */
    int *rfirst, *rperm;       /* received sums by local row */
    int *slot, *used, *first;  /* per compact column; first: each local row's first partial sum */
} layout;

static void layout_free(layout *L)
{
    free(L->row), free(L->col), free(L->ext), free(L->starts), free(L->spair), free(L->rpair);
    free(L->rrow), free(L->rcol), free(L->rfirst), free(L->rperm), free(L->slot), free(L->used), free(L->first);
}

/* Collective: the partial sums of rows owned elsewhere to their owners as
 * (row, column, value) triples (the value's bits), the sends' positions in
 * r->dest */
static int send_pattern(ovk__amg_rap *r, layout *L)
{
    int size = r->size;
    r->scount = calloc((size_t)size + 1, sizeof(int)), r->sdisp = calloc((size_t)size + 1, sizeof(int));
    r->rcount = calloc((size_t)size + 1, sizeof(int)), r->rdisp = calloc((size_t)size + 1, sizeof(int));
    int *cur = calloc((size_t)size + 1, sizeof(int)), *c2 = malloc(sizeof(int) * ((size_t)size + 1));
    int *d2 = malloc(sizeof(int) * ((size_t)size + 1)), *r2 = malloc(sizeof(int) * ((size_t)size + 1));
    int *rd2 = malloc(sizeof(int) * ((size_t)size + 1));
    r->dest = malloc(sizeof(int) * (r->nout + 1));
    int rc = r->scount && r->sdisp && r->rcount && r->rdisp && cur && c2 && d2 && r2 && rd2 && r->dest
                 ? OVK_OK
                 : nomem("the sums' pattern");
    size_t nsend = 0;
    for (size_t t = 0; !rc && t < r->nout; t++)
        if (L->row[t] >= r->nc) r->scount[owner_of(L->starts, size, L->ext[L->row[t] - r->nc])]++, nsend++;
    for (int p = 1; !rc && p < size; p++) r->sdisp[p] = r->sdisp[p - 1] + r->scount[p - 1];
    r->sbuf = rc ? NULL : malloc(sizeof(double) * (nsend + 1));
    L->spair = rc ? NULL : malloc(sizeof(long long) * (3 * nsend + 1));
    if (!rc && (!r->sbuf || !L->spair)) rc = nomem("the sums' pattern");
    for (size_t t = 0; !rc && t < r->nout; t++) {
        if (L->row[t] < r->nc) continue;
        ovk_gidx id = L->ext[L->row[t] - r->nc];
        int p = owner_of(L->starts, size, id), at = r->sdisp[p] + cur[p]++;
        int c = L->col[t];
        r->dest[t] = -1 - at;
        L->spair[3 * at] = id, L->spair[3 * at + 1] = c < r->nc ? r->c0 + c : L->ext[c - r->nc];
        memcpy(&L->spair[3 * at + 2], &r->out[t], sizeof(double)); /* the build's values with the pattern */
    }
    rc = ovk__agree(r->comm, rc);
    if (!rc) rc = ovk__mpi(MPI_Alltoall(r->scount, 1, MPI_INT, r->rcount, 1, MPI_INT, r->comm), "MPI_Alltoall (amg Galerkin)");
    size_t nrecv = 0;
    for (int p = 0; !rc && p < size; p++) r->rdisp[p] = (int)nrecv, nrecv += (size_t)r->rcount[p];
    if (!rc && nrecv > INT32_MAX / 2) rc = ovk__fail(OVK_EPRECOND, "amg (Galerkin product): %zu sums to receive", nrecv);
    r->nrecv = nrecv;
    if (!rc) {
        r->rbuf = malloc(sizeof(double) * (nrecv + 1)), L->rpair = malloc(sizeof(long long) * (3 * nrecv + 1));
        r->rdest = malloc(sizeof(int) * (nrecv + 1));
        rc = r->rbuf && L->rpair && r->rdest ? OVK_OK : nomem("the sums received");
    }
    rc = ovk__agree(r->comm, rc);
    for (int p = 0; !rc && p < size; p++)
        c2[p] = 3 * r->scount[p], d2[p] = 3 * r->sdisp[p], r2[p] = 3 * r->rcount[p], rd2[p] = 3 * r->rdisp[p];
    if (!rc)
        rc = ovk__mpi(MPI_Alltoallv(L->spair, c2, d2, MPI_LONG_LONG, L->rpair, r2, rd2, MPI_LONG_LONG, r->comm),
                      "MPI_Alltoallv (amg Galerkin pattern)");
    free(cur), free(c2), free(d2), free(r2), free(rd2);
    return rc;
}

/* Local: the received columns joined to the compact others (renumbering
 * the partial sums' columns), the received sums by local row */
static int join_received(ovk__amg_rap *r, layout *L, int *ne2)
{
    size_t nr = r->nrecv;
    ovk_gidx *all = malloc(sizeof(ovk_gidx) * ((size_t)r->ne + nr + 1));
    int *remap = malloc(sizeof(int) * ((size_t)r->ne + 1));
    L->rrow = malloc(sizeof(int) * (nr + 1)), L->rcol = malloc(sizeof(int) * (nr + 1));
    L->rfirst = calloc((size_t)r->nc + 2, sizeof(int)), L->rperm = malloc(sizeof(int) * (nr + 1));
    if (!all || !remap || !L->rrow || !L->rcol || !L->rfirst || !L->rperm) {
        free(all), free(remap);
        return nomem("the sums received");
    }
    size_t n = 0;
    for (int e = 0; e < r->ne; e++) all[n++] = L->ext[e];
    for (size_t q = 0; q < nr; q++) {
        ovk_gidx c = L->rpair[3 * q + 1];
        if (c < r->c0 || c >= r->c0 + r->nc) all[n++] = c;
    }
    qsort(all, n, sizeof *all, cmp_big);
    size_t u = 0;
    for (size_t t = 0; t < n; t++)
        if (!u || all[u - 1] != all[t]) all[u++] = all[t];
    for (int e = 0; e < r->ne; e++) remap[e] = find_big(all, (int)u, L->ext[e]);
    for (size_t t = 0; t < r->nout; t++)
        if (L->col[t] >= r->nc) L->col[t] = r->nc + remap[L->col[t] - r->nc];
    int rc = OVK_OK;
    for (size_t q = 0; q < nr; q++) {
        ovk_gidx row = L->rpair[3 * q], c = L->rpair[3 * q + 1];
        memcpy(&r->rbuf[q], &L->rpair[3 * q + 2], sizeof(double));
        if (row < r->c0 || row >= r->c0 + r->nc) rc = ovk__fail(OVK_EPRECOND, "amg (Galerkin product): a row sent astray");
        L->rrow[q] = rc ? 0 : (int)(row - r->c0);
        L->rcol[q] = c >= r->c0 && c < r->c0 + r->nc ? (int)(c - r->c0) : r->nc + find_big(all, (int)u, c);
        L->rfirst[L->rrow[q] + 2]++;
    }
    for (int c = 0; c < r->nc; c++) L->rfirst[c + 2] += L->rfirst[c + 1];
    for (size_t q = 0; q < nr; q++) L->rperm[L->rfirst[L->rrow[q] + 1]++] = (int)q;
    free(L->ext), free(remap);
    L->ext = all, *ne2 = (int)u;
    return rc;
}

/* Local: the sums of local row c: its own partial sums, then those received */
static int row_count(const layout *L, int c) { return L->first[c + 1] - L->first[c] + L->rfirst[c + 1] - L->rfirst[c]; }

/* Local: the index of row c's k-th sum (own: < nout; received: nout + q) */
static size_t row_sum(const ovk__amg_rap *r, const layout *L, int c, int k)
{
    int n1 = L->first[c + 1] - L->first[c];
    return k < n1 ? (size_t)L->first[c] + (size_t)k : r->nout + (size_t)L->rperm[L->rfirst[c] + k - n1];
}

static int sum_col(const ovk__amg_rap *r, const layout *L, size_t x)
{
    return x < r->nout ? L->col[x] : L->rcol[x - r->nout];
}

/* Collective: A_c laid out from the sums' columns, each sum's slot */
static int lay_out(ovk__amg_rap *r, layout *L, ovk_gidx N, ovk__amg_csr **Ac)
{
    int ne2 = 0, rc = join_received(r, L, &ne2);
    int nct = r->nc + ne2;
    L->slot = rc ? NULL : malloc(sizeof(int) * ((size_t)nct + 1));
    L->used = rc ? NULL : calloc((size_t)nct + 1, sizeof(int));
    L->first = rc ? NULL : calloc((size_t)r->nc + 1, sizeof(int));
    int *di = rc ? NULL : malloc(sizeof(int) * ((size_t)r->nc + 1));
    int *oi = rc ? NULL : malloc(sizeof(int) * ((size_t)r->nc + 1));
    int *offd = rc ? NULL : malloc(sizeof(int) * ((size_t)ne2 + 1)); /* an other column's offd index */
    if (!rc && (!L->slot || !L->used || !L->first || !di || !oi || !offd)) rc = nomem("the coarse operator's layout");
    if (!rc) { /* own sums: rows < nc first, contiguous by row */
        size_t t = 0;
        for (int c = 0; c < r->nc; c++) {
            L->first[c] = (int)t;
            while (t < r->nout && L->row[t] == c) t++;
        }
        L->first[r->nc] = (int)t;
        for (int c = 0; c < nct; c++) L->slot[c] = -1;
        di[0] = oi[0] = 0;
        for (int c = 0; c < r->nc; c++) { /* pass 1: counts */
            int nd = 0, no = 0;
            for (int k = 0; k < row_count(L, c); k++) {
                int d = sum_col(r, L, row_sum(r, L, c, k));
                if (L->slot[d] == c) continue;
                L->slot[d] = c;
                if (d < r->nc) nd++;
                else no++, L->used[d] = 1;
            }
            di[c + 1] = di[c] + nd, oi[c + 1] = oi[c] + no;
        }
    }
    int ncols = 0;
    for (int d = r->nc; !rc && d < nct; d++)
        if (L->used[d]) L->used[d] = ncols++ + 1; /* 1 + its offd column */
    *Ac = NULL;
    if (!rc) rc = ovk__amg_csr_alloc(r->comm, N, N, r->c0, r->nc, r->c0, r->nc, di[r->nc], oi[r->nc], ncols, Ac);
    rc = ovk__agree(r->comm, rc);
    if (!rc) {
        int *dj = (*Ac)->dcol, *oj = (*Ac)->ocol;
        ovk_gidx *cmap = (*Ac)->cmap;
        memcpy((*Ac)->dptr, di, sizeof(int) * ((size_t)r->nc + 1));
        memcpy((*Ac)->optr, oi, sizeof(int) * ((size_t)r->nc + 1));
        for (int d = r->nc; d < nct; d++)
            if (L->used[d]) offd[d - r->nc] = L->used[d] - 1, cmap[L->used[d] - 1] = L->ext[d - r->nc];
        r->cnnz_d = di[r->nc], r->cnnz_o = oi[r->nc];
        for (int c = 0; c < nct; c++) L->slot[c] = -1, L->used[c] = -1; /* used: the row that set slot */
        for (int c = 0; c < r->nc; c++) { /* pass 2: slots, the diagonal first */
            int pd = di[c], po = oi[c];
            for (int k = 0; k < row_count(L, c); k++)
                if (sum_col(r, L, row_sum(r, L, c, k)) == c && L->used[c] != c) L->used[c] = c, L->slot[c] = (int)pd, dj[pd++] = c;
            for (int k = 0; k < row_count(L, c); k++) {
                size_t x = row_sum(r, L, c, k);
                int d = sum_col(r, L, x);
                if (L->used[d] != c) {
                    L->used[d] = c;
                    if (d < r->nc) L->slot[d] = (int)pd, dj[pd++] = d;
                    else L->slot[d] = (int)(r->cnnz_d + po), oj[po++] = offd[d - r->nc];
                }
                if (x < r->nout) r->dest[x] = L->slot[d];
                else r->rdest[x - r->nout] = L->slot[d];
            }
        }
    }
    free(di), free(oi), free(offd);
    return rc;
}

/* ---- the entry points ----------------------------------------------------- */

/* Collective: steps 1-3 (sums 0: 1, 2 and A P's rows only) */
static int rows_and_sums(ovk__amg_rap *r, const ovk__amg_csr *A, const ovk__amg_csr *P, layout *L, int sums)
{
    int kmax = 0;
    for (int i = 0; i < r->nf; i++) {
        int len = P->dptr[i + 1] - P->dptr[i] + P->optr[i + 1] - P->optr[i];
        if (len > kmax) kmax = len;
    }
    /* the longest row and the statuses in one reduction, the coarse partition */
    L->starts = malloc(sizeof(ovk_gidx) * ((size_t)r->size + 1));
    double mine = kmax, most = 0.0, sum = 0.0;
    int rc = ovk__agree_values(r->comm, L->starts ? OVK_OK : nomem("the coarse partition"), &mine, 1, &most, &sum);
    if (!rc) rc = ovk__mpi(MPI_Allgather(&r->c0, 1, MPI_INT64_T, L->starts, 1, MPI_INT64_T, r->comm),
                           "MPI_Allgather (amg Galerkin)");
    if (rc) return rc;
    L->starts[r->size] = P->ncols;
    kmax = (int)most;
    size_t W = 1 + 2 * (size_t)kmax;
    double *loc = malloc(sizeof(double) * ((size_t)r->nf * W + 1)), *halo = NULL;
    for (int i = 0; loc && i < r->nf; i++) pack_row(P, i, kmax, loc + i * W);
    rc = halo_rows(A, loc, kmax, &halo, loc ? OVK_OK : nomem("P's rows"));
    if (!rc) rc = other_columns(r, loc, halo, kmax, &L->ext);
    if (!rc) rc = unpack_rows(r, L->ext, loc, r->nf, kmax, &r->pptr, &r->pcol, &r->pval);
    if (!rc) rc = unpack_rows(r, L->ext, halo, r->no, kmax, &r->hptr, &r->hcol, &r->hval);
    if (!rc) rc = find_runs(r);
    if (!rc && sums) rc = transpose(r);
    if (!rc) {
        size_t nct = (size_t)r->nc + (size_t)r->ne + 1;
        r->mark = malloc(sizeof(int) * nct), r->list = malloc(sizeof(int) * nct), r->acc = malloc(sizeof(double) * nct);
        r->apptr = malloc(sizeof(int) * ((size_t)r->nf + 1));
        r->blk = sums ? malloc(sizeof(double) * nct * (size_t)r->rmax) : NULL;
        rc = r->mark && r->list && r->acc && r->apptr && (r->blk || !sums) ? OVK_OK : nomem("the accumulator");
    }
    size_t cap = 0;
    if (!rc) rc = sums ? partial_rows(r, A, &L->row, &L->col, &cap) : ap_rows(r, A, 1);
    free(loc), free(halo);
    return ovk__agree(r->comm, rc);
}

/* Collective: a new plan of A and P (NULL on every rank if one failed) */
static ovk__amg_rap *plan_new(const ovk__amg_csr *A, const ovk__amg_csr *P, int *rc)
{
    MPI_Comm comm = A->comm;
    ovk__amg_rap *r = calloc(1, sizeof *r);
    *rc = ovk__agree(comm, r ? OVK_OK : nomem("the product's plan"));
    if (*rc) {
        free(r); /* made here, failed on another rank */
        return NULL;
    }
    r->comm = comm;
    MPI_Comm_size(comm, &r->size);
    r->nf = A->n, r->no = A->nx, r->nc = P->nc, r->c0 = P->c0;
    r->annz_d = ovk__amg_csr_dnnz(A), r->annz_o = ovk__amg_csr_onnz(A);
    return r;
}

int ovk__amg_smooth_rows(const ovk__amg_csr *A, const ovk__amg_csr *P, const double *scale, int **ptr,
                         ovk_gidx **gcol, double **val)
{
    *ptr = NULL, *gcol = NULL, *val = NULL;
    int rc;
    ovk__amg_rap *r = plan_new(A, P, &rc);
    if (rc) return rc;
    layout L = {0};
    rc = rows_and_sums(r, A, P, &L, 0);
    size_t nnz = rc ? 0 : (size_t)r->apptr[r->nf];
    if (!rc) {
        *ptr = malloc(sizeof(int) * ((size_t)r->nf + 1));
        *gcol = malloc(sizeof(ovk_gidx) * (nnz + 1));
        *val = malloc(sizeof(double) * (nnz + 1));
        rc = *ptr && *gcol && *val ? OVK_OK : nomem("the smoothed prolongator's rows");
    }
    int *at = r->list, *stamp = r->mark; /* a compact column's entry in the current row */
    for (int c = 0; !rc && c < r->nc + r->ne; c++) stamp[c] = -1;
    for (int i = 0; !rc && i < r->nf; i++) {
        (*ptr)[i] = r->apptr[i];
        for (int e = r->apptr[i]; e < r->apptr[i + 1]; e++) { /* - scale_i (A P)_i */
            int d = r->apcol[e];
            stamp[d] = i, at[d] = e;
            (*gcol)[e] = d < r->nc ? r->c0 + d : L.ext[d - r->nc];
            (*val)[e] = -scale[i] * r->apval[e];
        }
        for (int t = r->pptr[i]; t < r->pptr[i + 1]; t++) { /* + P_i: in (A P)_i's pattern, a_ii > 0 */
            int d = r->pcol[t];
            if (stamp[d] != i) rc = ovk__fail(OVK_EPRECOND, "amg (smoothed prolongator): row %d has no diagonal entry", i);
            else (*val)[at[d]] += r->pval[t];
        }
    }
    if (!rc) (*ptr)[r->nf] = (int)nnz;
    rc = ovk__agree(r->comm, rc);
    if (rc) free(*ptr), free(*gcol), free(*val), *ptr = NULL, *gcol = NULL, *val = NULL;
    layout_free(&L);
    ovk__amg_rap_free(r);
    return rc;
}

int ovk__amg_rap_build(const ovk__amg_csr *A, const ovk__amg_csr *P, ovk__amg_csr **Ac, ovk__amg_rap **plan)
{
    MPI_Comm comm = A->comm;
    *Ac = NULL;
    if (plan) *plan = NULL;
    int rc;
    ovk__amg_rap *r = plan_new(A, P, &rc);
    if (rc) return rc;
    layout L = {0};
    rc = rows_and_sums(r, A, P, &L, 1);
    if (!rc) rc = send_pattern(r, &L);
    if (!rc) rc = lay_out(r, &L, P->ncols, Ac);
    if (!rc) own_sums(r, *Ac), received_sums(r, *Ac); /* the values came with the pattern */
    rc = ovk__amg_csr_finish(comm, Ac, rc);
    layout_free(&L);
    if (!rc && plan) *plan = r;
    else ovk__amg_rap_free(r);
    return rc;
}

int ovk__amg_rap_values(ovk__amg_rap *r, const ovk__amg_csr *A, ovk__amg_csr *Ac)
{
    int rc = OVK_OK;
    if (A->n != r->nf || A->nx != r->no || ovk__amg_csr_dnnz(A) != r->annz_d || ovk__amg_csr_onnz(A) != r->annz_o ||
        ovk__amg_csr_dnnz(Ac) != r->cnnz_d || ovk__amg_csr_onnz(Ac) != r->cnnz_o)
        rc = ovk__fail(OVK_EMISMATCH, "amg (Galerkin product): A's pattern is not that of the kept product");
    if (!rc) rc = partial_rows(r, A, NULL, NULL, NULL);
    rc = ovk__agree(r->comm, rc);
    if (!rc) rc = ovk__agree(r->comm, scatter_sums(r, Ac));
    return rc;
}

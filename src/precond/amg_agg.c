/* The amg preconditioner's aggregation hierarchy (amg:setup=agg): smoothed
 * aggregation (Vanek, Mandel, Brezina 1996; the design of GAMG, ML/MueLu
 * and AMGCL's smoothed aggregation) on aggregates from a distance-2
 * maximal independent set (MIS-2; Bell, Dalton, Olson 2012), distributed
 * across the ranks, an aggregate free to cross rank boundaries.
 *
 * One level l -> l+1, on A_l (our level type, amg_csr.h) with nodes (level 0: bs
 * unknowns each; a coarse level: one node per aggregate, as many unknowns
 * as the aggregate's near-null space has columns) and B_l (n_l x k):
 *   1. strength: nodes I, J strongly coupled when the Frobenius norm of
 *      block A_IJ is at least threshold sqrt(|A_II| |A_JJ|) (threshold 0:
 *      every nonzero block; halved a level, and while most nodes would
 *      have no strong neighbour: strong_graph);
 *   2. MIS-2 of the strength graph: each undecided node's tuple (status,
 *      hash of its global id, id), the largest within distance 2 found by
 *      two max-exchanges; a node whose own tuple is the largest joins the
 *      set, one that sees a member within distance 2 leaves; until every
 *      node is decided.  Everything depends on the graph and the global
 *      ids only, so the aggregates are those of any rank count;
 *   3. aggregates: each root with its neighbours (roots are 3 apart, so a
 *      neighbour has one root), then every other node joins the aggregate
 *      of a neighbour from the first pass (the one with the smallest root
 *      id); the aggregates are numbered in the order of their roots;
 *   4. tentative prolongator: each node's rows of B_l go to its root's
 *      rank; there each aggregate's block (its nodes in global order) is
 *      factored B_a = Q_a R_a (modified Gram-Schmidt, twice; a column
 *      within 1e-9 of the span of the earlier ones adds no coarse unknown),
 *      Q_a's rows go back to the nodes' ranks as rows of P_tent and R_a is
 *      the aggregate's rows of B_{l+1}: P_tent B_{l+1} = B_l;
 *   5. smoothing: P = (I - w D^-1 A) P_tent, D = diag(A), w = 4 / (3
 *      lambda), lambda from power steps on D^-1 A; the rows of A P_tent by
 *      the same sums as step 6 (amg_galerkin.c);
 *   6. A_{l+1} = P^T A P by sums over P's rows (amg_galerkin.c), smoothed
 *      or not: the rows of A P, then P^T's; on smoothed elasticity 2.6x
 *      faster than hypre's general product.
 * Coarsening stops at coarse_size global rows, max_levels, or when a level
 * shrinks by less than a tenth; the coarsest level is the cycle's dense
 * LU (amg_coarse.c), as with BoomerAMG's hierarchy.  A coarse level may go onto
 * fewer ranks (agg_gather): amg_gather.c. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "amg_agg_impl.h"

enum { MAXLEV = 40, POWER_STEPS = 10 };
#define QR_DROP 1e-9
#define STALL 0.9
#define THRESHOLD_MIN 1e-3

int ovk__amg_agg_nomem(const char *what) { return ovk__fail(OVK_ENOMEM, "amg (setup=agg): %s", what); }

/* a bijection of 64-bit integers (splitmix64's finalizer), for the MIS's
 * pseudo-random order */
static uint64_t mix(uint64_t z)
{
    z += 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static void graph_free(level_graph *g)
{
    free(g->nptr), free(g->node_of_row), free(g->nstarts), free(g->onode), free(g->ogid);
    free(g->gptr), free(g->gadj), free(g->rowbuf), free(g->offdbuf);
    memset(g, 0, sizeof *g);
}

/* Collective (statuses agreed): ov[q] = v[the node of offd node q] (v: one
 * value per local node), through A's halo a row at a time */
static int node_halo(level_graph *g, const double *v, double *ov)
{
    for (int i = 0; i < g->n; i++) g->rowbuf[i] = v[g->node_of_row[i]];
    int rc = ovk__amg_csr_halo(g->A, 1, g->rowbuf, g->offdbuf, OVK_OK);
    for (int j = 0; !rc && j < g->no; j++) ov[g->onode[j]] = g->offdbuf[j];
    return rc;
}

/* Local: the rank's nodes from nptr (set by the caller), node_of_row and the offd nodes. */
static int graph_nodes(level_graph *g, const ovk_gidx *onode_gid_of_col)
{
    g->onode = malloc(sizeof(int) * ((size_t)g->no + 1));
    g->ogid = malloc(sizeof(ovk_gidx) * ((size_t)g->no + 1));
    if (!g->onode || !g->ogid) return ovk__amg_agg_nomem("node maps");
    g->nono = 0; /* offd columns ascend by global id, a node's unknowns are consecutive */
    for (int j = 0; j < g->no; j++) {
        if (!g->nono || g->ogid[g->nono - 1] != onode_gid_of_col[j]) g->ogid[g->nono++] = onode_gid_of_col[j];
        g->onode[j] = g->nono - 1;
    }
    return OVK_OK;
}

/* Collective: the global node id of each offd column, through the halo. */
static int offd_node_ids(level_graph *g, ovk_gidx **out)
{
    ovk_gidx *ocol = malloc(sizeof(ovk_gidx) * ((size_t)g->no + 1));
    int rc = ocol ? OVK_OK : ovk__amg_agg_nomem("node ids");
    for (int i = 0; !rc && i < g->n; i++) g->rowbuf[i] = (double)(g->nstart + g->node_of_row[i]);
    rc = ovk__amg_csr_halo(g->A, 1, g->rowbuf, g->offdbuf, rc); /* by rows: the offd nodes are not known yet */
    for (int j = 0; !rc && j < g->no; j++) ocol[j] = (ovk_gidx)g->offdbuf[j];
    if (rc) free(ocol), ocol = NULL;
    *out = ocol;
    return rc;
}

/* Collective: g's nodes (nptr, nn and nstart set by the caller), its halo
 * buffers, every rank's first node and the offd nodes. */
static int graph_setup(level_graph *g, const ovk__amg_csr *A)
{
    g->A = A;
    g->n = A->n;
    g->no = A->nx;
    g->rowbuf = malloc(sizeof(double) * ((size_t)g->n + 1));
    g->offdbuf = malloc(sizeof(double) * ((size_t)g->no + 1));
    g->nstarts = malloc(sizeof(ovk_gidx) * ((size_t)g->size + 1));
    g->node_of_row = malloc(sizeof(int) * ((size_t)g->n + 1));
    int rc = g->rowbuf && g->offdbuf && g->nstarts && g->node_of_row ? OVK_OK : ovk__amg_agg_nomem("halo buffers");
    rc = ovk__agree(g->comm, rc);
    if (rc) return rc;
    for (int I = 0; I < g->nn; I++)
        for (int r = g->nptr[I]; r < g->nptr[I + 1]; r++) g->node_of_row[r] = I;
    long long s = (long long)g->nstart, mine = g->nn, total = 0;
    long long *starts = (long long *)g->nstarts; /* ovk_gidx is 64-bit */
    rc = ovk__mpi(MPI_Allgather(&s, 1, MPI_LONG_LONG, starts, 1, MPI_LONG_LONG, g->comm), "MPI_Allgather (amg agg)");
    if (!rc) rc = ovk__mpi(MPI_Allreduce(&mine, &total, 1, MPI_LONG_LONG, MPI_SUM, g->comm), "MPI_Allreduce (amg agg)");
    if (rc) return rc;
    starts[g->size] = total;
    ovk_gidx *ocol = NULL;
    rc = offd_node_ids(g, &ocol);
    if (rc) return rc;
    rc = ovk__agree(g->comm, graph_nodes(g, ocol));
    free(ocol);
    return rc;
}

/* Local: acc[J] += a_ij^2 over node I's rows (J: local node, or nn + offd
 * node), the touched J listed in list (*len) */
static void block_norms(const level_graph *g, int I, double *acc, int *list, int *len, char *seen)
{
    const int *di = g->A->dptr, *dj = g->A->dcol, *oi = g->A->optr, *oj = g->A->ocol;
    const double *dv = g->A->dval, *ov = g->A->oval;
    *len = 0;
    for (int r = g->nptr[I]; r < g->nptr[I + 1]; r++) {
        for (int e = di[r]; e < di[r + 1]; e++) {
            int J = g->node_of_row[dj[e]];
            if (!seen[J]) seen[J] = 1, acc[J] = 0.0, list[(*len)++] = J;
            acc[J] += dv[e] * dv[e];
        }
        for (int e = oi[r]; e < oi[r + 1]; e++) {
            int J = g->nn + g->onode[oj[e]];
            if (!seen[J]) seen[J] = 1, acc[J] = 0.0, list[(*len)++] = J;
            acc[J] += ov[e] * ov[e];
        }
    }
}

/* Collective: the strong graph of g's nodes; *isolated: how many of the
 * rank's nodes have no strong neighbour. */
static int strength(level_graph *g, double threshold, long long *isolated)
{
    size_t nnz = (size_t)ovk__amg_csr_dnnz(g->A) + (size_t)ovk__amg_csr_onnz(g->A);
    int m = g->nn + g->nono;
    double *acc = malloc(sizeof(double) * ((size_t)m + 1)), *dn = malloc(sizeof(double) * ((size_t)m + 1));
    int *list = malloc(sizeof(int) * ((size_t)m + 1));
    char *seen = calloc((size_t)m + 1, 1);
    g->gptr = malloc(sizeof(int) * ((size_t)g->nn + 1));
    g->gadj = malloc(sizeof(int) * (nnz + 1));
    int rc = acc && dn && list && seen && g->gptr && g->gadj ? OVK_OK : ovk__amg_agg_nomem("strength graph");
    *isolated = 0;
    rc = ovk__agree(g->comm, rc);
    for (int I = 0; !rc && threshold > 0.0 && I < g->nn; I++) { /* |A_II| (threshold 0: every nonzero block) */
        int len;
        block_norms(g, I, acc, list, &len, seen);
        dn[I] = seen[I] ? sqrt(acc[I]) : 0.0;
        for (int t = 0; t < len; t++) seen[list[t]] = 0;
    }
    if (!rc && threshold > 0.0) rc = node_halo(g, dn, dn + g->nn);
    if (!rc) {
        g->gptr[0] = 0;
        for (int I = 0; I < g->nn; I++) {
            int len, at = g->gptr[I];
            block_norms(g, I, acc, list, &len, seen);
            for (int t = 0; t < len; t++) {
                int J = list[t];
                seen[J] = 0;
                double s = sqrt(acc[J]);
                if (J != I && s > 0.0 && (threshold == 0.0 || s >= threshold * sqrt(dn[I] * dn[J]))) g->gadj[at++] = J;
            }
            g->gptr[I + 1] = at;
            *isolated += at == g->gptr[I];
        }
    }
    free(acc), free(dn), free(list), free(seen);
    return rc;
}

/* the global id of neighbour J of g */
static ovk_gidx gid_of(const level_graph *g, int J) { return J < g->nn ? g->nstart + J : g->ogid[J - g->nn]; }

enum { ST_OUT = 0, ST_UND = 1, ST_IN = 2 };
#define ST_UNIT 0x1p51

/* Local: m[I] = the largest key over I and its neighbours, for the nodes
 * marked in `want`; with drop, a node with no undecided node in reach
 * (itself and its neighbours decided, seen on k) is no longer wanted by
 * anyone and is dropped from `want`. */
static void max_step(const level_graph *g, const double *k, double *m, char *want, int drop)
{
    for (int I = 0; I < g->nn; I++) {
        if (!want[I]) continue;
        double b = k[I];
        int und = b >= ST_UNIT && b < 2 * ST_UNIT;
        for (int e = g->gptr[I]; e < g->gptr[I + 1]; e++) {
            double kj = k[g->gadj[e]];
            und |= kj >= ST_UNIT && kj < 2 * ST_UNIT;
            if (kj > b) b = kj;
        }
        m[I] = b;
        if (drop && !und) want[I] = 0;
    }
}

/* Collective: in[I] = 1 for the nodes of an MIS-2 (dist 2) or MIS-1
 * (dist 1: one max step) of g's strong graph.  Each round: every
 * undecided node's key UND + a hash of its global id (51 bits), a
 * member's IN, a non-member's OUT (0); the largest within distance 2 (1)
 * by two (one) max steps over the halo; an undecided node that finds its
 * own key joins, one that finds a member's leaves.  Two nodes whose
 * hashes collide may both join (the aggregation takes the smallest root
 * id of several): what is decided depends on the graph and the ids only.
 * A node with no undecided node in reach takes no further part (decisions
 * are final), so later rounds cost what is left undecided. */
static int mis(level_graph *g, int dist, char *in)
{
    int m = g->nn + g->nono;
    double *k = malloc(sizeof(double) * ((size_t)m + 1)), *mx = malloc(sizeof(double) * ((size_t)m + 1));
    double *own = malloc(sizeof(double) * ((size_t)g->nn + 1));
    char *st = malloc((size_t)g->nn + 1), *act = malloc((size_t)g->nn + 1), *und = malloc((size_t)g->nn + 1);
    int rc = k && mx && own && st && act && und ? OVK_OK : ovk__amg_agg_nomem("MIS");
    rc = ovk__agree(g->comm, rc);
    for (int I = 0; !rc && I < g->nn; I++) {
        st[I] = ST_UND, act[I] = 1, mx[I] = 0.0;
        own[I] = ST_UNIT + (double)(mix((uint64_t)(g->nstart + I)) >> 13); /* < 2 ST_UNIT */
    }
    while (!rc) {
        for (int I = 0; I < g->nn; I++) {
            k[I] = st[I] == ST_UND ? own[I] : st[I] * ST_UNIT;
            und[I] = st[I] == ST_UND;
        }
        rc = node_halo(g, k, k + g->nn);
        if (rc) break;
        if (dist == 1) { /* distance 1, on the undecided nodes */
            max_step(g, k, mx, und, 0);
        } else {
            max_step(g, k, mx, act, 1); /* distance 1, on the nodes some undecided node reads */
            rc = node_halo(g, mx, mx + g->nn);
            if (rc) break;
            max_step(g, mx, k, und, 0); /* distance 2, on the undecided nodes: into k */
            memcpy(mx, k, sizeof(double) * (size_t)g->nn);
        }
        long long left = 0;
        for (int I = 0; I < g->nn; I++) {
            if (st[I] != ST_UND) continue;
            if (mx[I] == own[I]) st[I] = ST_IN;
            else if (mx[I] >= 2 * ST_UNIT) st[I] = ST_OUT;
            else left++;
        }
        rc = ovk__mpi(MPI_Allreduce(MPI_IN_PLACE, &left, 1, MPI_LONG_LONG, MPI_SUM, g->comm), "MPI_Allreduce (amg agg MIS)");
        if (rc || !left) break;
    }
    for (int I = 0; !rc && I < g->nn; I++) in[I] = st[I] == ST_IN;
    free(k), free(mx), free(own), free(st), free(act), free(und);
    return rc;
}

/* Collective: agg[I] = the global id of node I's aggregate's root. */
static int aggregate(level_graph *g, const char *in, ovk_gidx *agg)
{
    int m = g->nn + g->nono;
    double *a1 = malloc(sizeof(double) * ((size_t)m + 1)), *s = malloc(sizeof(double) * ((size_t)m + 1));
    int rc = ovk__agree(g->comm, a1 && s ? OVK_OK : ovk__amg_agg_nomem("aggregates"));
    for (int I = 0; !rc && I < g->nn; I++) s[I] = in[I];
    if (!rc) rc = node_halo(g, s, s + g->nn);
    for (int I = 0; !rc && I < g->nn; I++) { /* pass 1: the roots and their neighbours */
        a1[I] = -1.0;
        if (in[I]) a1[I] = (double)(g->nstart + I);
        for (int e = g->gptr[I]; !in[I] && e < g->gptr[I + 1]; e++)
            if (s[g->gadj[e]] > 0.5) { /* a root (MIS-1: the smallest of several) */
                double r = (double)gid_of(g, g->gadj[e]);
                if (a1[I] < 0.0 || r < a1[I]) a1[I] = r;
            }
    }
    if (!rc) rc = node_halo(g, a1, a1 + g->nn);
    int lost = 0;
    for (int I = 0; !rc && I < g->nn; I++) { /* pass 2: the smallest root of a pass-1 neighbour */
        double best = a1[I];
        for (int e = g->gptr[I]; best < 0.0 && e < g->gptr[I + 1]; e++) {
            double c = a1[g->gadj[e]];
            if (c >= 0.0) best = c;
        }
        for (int e = g->gptr[I]; a1[I] < 0.0 && e < g->gptr[I + 1]; e++) {
            double c = a1[g->gadj[e]];
            if (c >= 0.0 && c < best) best = c;
        }
        if (best < 0.0) lost = 1;
        agg[I] = (ovk_gidx)best;
    }
    if (!rc && lost) rc = ovk__fail(OVK_EPRECOND, "amg (setup=agg): a node is not within distance 2 of an aggregate root");
    free(a1), free(s);
    return ovk__agree(g->comm, rc);
}

/* the rank owning global node id */
static int owner(const level_graph *g, ovk_gidx id)
{
    int lo = 0, hi = g->size - 1;
    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;
        if (g->nstarts[mid] <= id) lo = mid;
        else hi = mid - 1;
    }
    return lo;
}

/* a member record on its root's rank */
typedef struct member {
    ovk_gidx gid;
    int agg;   /* local aggregate */
    int src;   /* the rank it came from */
    size_t at; /* its payload in the receive buffer */
    int ndof;
} member;

/* Local: M = Q R (m x k, column after column, in place: Q in M's first r
 * columns), R k x k column after column, *r the rank kept. */
static void qr(double *M, int m, int k, double *R, int *r)
{
    int rank = 0;
    memset(R, 0, sizeof(double) * (size_t)k * (size_t)k);
    for (int j = 0; j < k; j++) {
        double *v = M + (size_t)j * m, nrm0 = 0.0, nrm = 0.0;
        for (int i = 0; i < m; i++) nrm0 += v[i] * v[i];
        for (int pass = 0; pass < 2; pass++)
            for (int q = 0; q < rank; q++) {
                const double *u = M + (size_t)q * m;
                double c = 0.0;
                for (int i = 0; i < m; i++) c += u[i] * v[i];
                for (int i = 0; i < m; i++) v[i] -= c * u[i];
                R[(size_t)j * k + q] += c;
            }
        for (int i = 0; i < m; i++) nrm += v[i] * v[i];
        nrm = sqrt(nrm), nrm0 = sqrt(nrm0);
        if (nrm0 > 0.0 && nrm > QR_DROP * nrm0) {
            double *dst = M + (size_t)rank * m;
            for (int i = 0; i < m; i++) dst[i] = v[i] / nrm;
            R[(size_t)j * k + rank] = nrm;
            rank++;
        }
    }
    *r = rank;
}

static void coarse_free(coarse *c)
{
    free(c->cptr), free(c->B);
    ovk__amg_csr_free(c->Pt);
    memset(c, 0, sizeof *c);
}

static int exscan(MPI_Comm comm, long long mine, long long *before, long long *total)
{
    long long b = 0;
    int rc = ovk__mpi(MPI_Exscan(&mine, &b, 1, MPI_LONG_LONG, MPI_SUM, comm), "MPI_Exscan (amg agg)");
    int rank;
    MPI_Comm_rank(comm, &rank);
    if (rank == 0) b = 0;
    *before = b;
    if (!rc) rc = ovk__mpi(MPI_Allreduce(&mine, total, 1, MPI_LONG_LONG, MPI_SUM, comm), "MPI_Allreduce (amg agg)");
    return rc;
}

/* Collective: records to their ranks; *recv (malloc'd) and rcount/rdisp. */
int ovk__amg_agg_exchange(level_graph *g, const double *send, const int *scount, double **recv, int *rcount, int *rdisp)
{
    int *sdisp = malloc(sizeof(int) * ((size_t)g->size + 1));
    int rc = ovk__agree(g->comm, sdisp ? OVK_OK : ovk__amg_agg_nomem("exchange"));
    if (!rc) rc = ovk__mpi(MPI_Alltoall(scount, 1, MPI_INT, rcount, 1, MPI_INT, g->comm), "MPI_Alltoall (amg agg)");
    long long tot = 0;
    for (int p = 0; !rc && p < g->size; p++) {
        sdisp[p] = p ? sdisp[p - 1] + scount[p - 1] : 0;
        rdisp[p] = (int)tot;
        tot += rcount[p];
    }
    if (!rc && tot > INT32_MAX) rc = ovk__fail(OVK_EPRECOND, "amg (setup=agg): %lld values to receive (more than an int)", tot);
    *recv = rc ? NULL : malloc(sizeof(double) * ((size_t)tot + 1));
    if (!rc) rc = *recv ? OVK_OK : ovk__amg_agg_nomem("exchange");
    rc = ovk__agree(g->comm, rc);
    if (!rc)
        rc = ovk__mpi(MPI_Alltoallv(send, scount, sdisp, MPI_DOUBLE, *recv, rcount, rdisp, MPI_DOUBLE, g->comm),
                      "MPI_Alltoallv (amg agg)");
    free(sdisp);
    return rc;
}

enum { HDR = 3 }; /* a record: [root or first coarse id, node id, ndof or rank], payload ndof x k */

int ovk__amg_agg_cmp_big(const void *a, const void *b)
{
    ovk_gidx x = *(const ovk_gidx *)a, y = *(const ovk_gidx *)b;
    return (x > y) - (x < y);
}

/* Collective: P_tent of the fine level's rows from the replies. */
static int build_ptent(level_graph *g, coarse *c, const double *rep, const int *rcount, int k, ovk_gidx c0,
                       ovk_gidx c1, ovk__amg_csr **out)
{
    size_t tot = 0;
    for (int p = 0; p < g->size; p++) tot += (size_t)rcount[p];
    int *rr = malloc(sizeof(int) * ((size_t)g->nn + 1));
    ovk_gidx *first = malloc(sizeof(ovk_gidx) * ((size_t)g->nn + 1));
    size_t *at = malloc(sizeof(size_t) * ((size_t)g->nn + 1));
    int rc = rr && first && at ? OVK_OK : ovk__amg_agg_nomem("tentative prolongator");
    for (size_t pos = 0; !rc && pos < tot;) {
        ovk_gidx f = (ovk_gidx)rep[pos], id = (ovk_gidx)rep[pos + 1];
        int r = (int)rep[pos + 2], I = (int)(id - g->nstart), nd = g->nptr[I + 1] - g->nptr[I];
        first[I] = f, rr[I] = r, at[I] = pos;
        pos += HDR + (size_t)nd * (size_t)k;
    }
    size_t nnz = 0; /* P_tent's rows with global columns: node I's unknown d, first[I] + j for j < rr[I] */
    for (int I = 0; !rc && I < g->nn; I++) nnz += (size_t)(g->nptr[I + 1] - g->nptr[I]) * (size_t)rr[I];
    int *ptr = rc ? NULL : malloc(sizeof(int) * ((size_t)g->n + 1));
    ovk_gidx *gcol = rc ? NULL : malloc(sizeof(ovk_gidx) * (nnz + 1));
    double *val = rc ? NULL : malloc(sizeof(double) * (nnz + 1));
    if (!rc && !(ptr && gcol && val)) rc = ovk__amg_agg_nomem("tentative prolongator");
    if (!rc && nnz > INT32_MAX) rc = ovk__fail(OVK_EPRECOND, "amg (setup=agg): %zu entries of P_tent on a rank", nnz);
    rc = ovk__agree(g->comm, rc);
    if (!rc) {
        int e = 0;
        ptr[0] = 0;
        for (int I = 0; I < g->nn; I++)
            for (int d = 0; d < g->nptr[I + 1] - g->nptr[I]; d++) {
                const double *q = rep + at[I] + HDR + (size_t)d * (size_t)k;
                for (int j = 0; j < rr[I]; j++) gcol[e] = first[I] + j, val[e++] = q[j];
                ptr[g->nptr[I] + d + 1] = e;
            }
        rc = ovk__amg_csr_of_rows(g->comm, g->A->nrows, c->nglobal, g->A->r0, g->n, c0, c1, ptr, gcol, val, 0, out);
    }
    free(rr), free(first), free(at), free(ptr), free(gcol), free(val);
    return rc;
}


/* Local: each local root's aggregate index (aidx), the count in *nagg. */
static void number_roots(const level_graph *g, const char *in, int *aidx, int *nagg)
{
    int a = 0;
    for (int I = 0; I < g->nn; I++) aidx[I] = in[I] ? a++ : -1;
    *nagg = a;
}

/* Local: the member records of the receive buffer, sorted by aggregate
 * and node id (the order of a block's rows whatever the rank count): a
 * stable counting sort by aggregate of the records in the order of their
 * ranks, each rank's in ascending node id (member_records), the ranks'
 * nodes ascending with the rank. */
static int parse_members(const level_graph *g, const double *recv, const int *rcount, const int *rdisp, int k,
                         const int *aidx, int nagg, member **out, int *count)
{
    int cnt = 0;
    int *first = calloc((size_t)nagg + 2, sizeof(int));
    if (!first) return ovk__amg_agg_nomem("aggregate members");
    for (int p = 0; p < g->size; p++)
        for (size_t pos = (size_t)rdisp[p]; pos < (size_t)rdisp[p] + (size_t)rcount[p];
             pos += HDR + (size_t)recv[pos + 2] * (size_t)k)
            cnt++, first[aidx[(ovk_gidx)recv[pos] - g->nstart] + 2]++;
    for (int a = 0; a < nagg; a++) first[a + 2] += first[a + 1];
    member *m = malloc(sizeof(member) * ((size_t)cnt + 1));
    if (!m) {
        free(first);
        return ovk__amg_agg_nomem("aggregate members");
    }
    for (int p = 0; p < g->size; p++)
        for (size_t pos = (size_t)rdisp[p]; pos < (size_t)rdisp[p] + (size_t)rcount[p];
             pos += HDR + (size_t)recv[pos + 2] * (size_t)k) {
            int a = aidx[(ovk_gidx)recv[pos] - g->nstart];
            m[first[a + 1]++] = (member){(ovk_gidx)recv[pos + 1], a, p, pos, (int)recv[pos + 2]};
        }
    free(first);
    *out = m, *count = cnt;
    return OVK_OK;
}

/* Local: each aggregate's block of B factored, Q over the members'
 * payloads, R (k x k a block) in Rall, the rank in ra. */
static int factor_blocks(member *m, int cnt, double *recv, int k, int nagg, double *Rall, int *ra)
{
    int maxm = 0;
    for (int s = 0, e; s < cnt; s = e) {
        int rows = 0;
        for (e = s; e < cnt && m[e].agg == m[s].agg; e++) rows += m[e].ndof;
        if (rows > maxm) maxm = rows;
    }
    double *M = malloc(sizeof(double) * ((size_t)maxm * (size_t)k + 1));
    if (!M) return ovk__amg_agg_nomem("aggregate blocks");
    for (int a = 0; a < nagg; a++) ra[a] = 0;
    for (int s = 0, e; s < cnt; s = e) {
        int rows = 0;
        for (e = s; e < cnt && m[e].agg == m[s].agg; e++) rows += m[e].ndof;
        for (int t = s, row = 0; t < e; t++) /* M = the block, column after column */
            for (int d = 0; d < m[t].ndof; d++, row++)
                for (int j = 0; j < k; j++) M[(size_t)j * rows + row] = recv[m[t].at + HDR + (size_t)d * k + j];
        qr(M, rows, k, Rall + (size_t)m[s].agg * k * k, &ra[m[s].agg]);
        for (int t = s, row = 0; t < e; t++) /* Q's rows over the payloads */
            for (int d = 0; d < m[t].ndof; d++, row++)
                for (int j = 0; j < ra[m[s].agg]; j++) recv[m[t].at + HDR + (size_t)d * k + j] = M[(size_t)j * rows + row];
    }
    free(M);
    return OVK_OK;
}

/* Local: the send buffer of each node's record to its root's rank. */
static int member_records(const level_graph *g, const ovk_gidx *agg, const double *B, int k, double **send,
                          int *scount)
{
    int *cur = calloc((size_t)g->size + 1, sizeof(int));
    if (!cur) return ovk__amg_agg_nomem("aggregate records");
    for (int p = 0; p < g->size; p++) scount[p] = 0;
    for (int I = 0; I < g->nn; I++) scount[owner(g, agg[I])] += HDR + (g->nptr[I + 1] - g->nptr[I]) * k;
    size_t tot = 0;
    for (int p = 0; p < g->size; p++) cur[p] = (int)tot, tot += (size_t)scount[p];
    double *s = malloc(sizeof(double) * (tot + 1));
    if (!s) {
        free(cur);
        return ovk__amg_agg_nomem("aggregate records");
    }
    for (int I = 0; I < g->nn; I++) {
        int p = owner(g, agg[I]), nd = g->nptr[I + 1] - g->nptr[I];
        double *r = s + cur[p];
        r[0] = (double)agg[I], r[1] = (double)(g->nstart + I), r[2] = nd;
        for (int d = 0; d < nd; d++)
            for (int j = 0; j < k; j++) r[HDR + d * k + j] = B[(size_t)j * g->n + g->nptr[I] + d];
        cur[p] += HDR + nd * k;
    }
    free(cur);
    *send = s;
    return OVK_OK;
}

/* Collective: P_tent and B_{l+1} of g's aggregates (agg: each node's
 * root; in: the roots). */
static int tentative(level_graph *g, const ovk_gidx *agg, const char *in, const double *B, int k, double gather,
                     int late, coarse *c)
{
    int *aidx = malloc(sizeof(int) * ((size_t)g->nn + 1)), *scount = malloc(sizeof(int) * ((size_t)g->size + 1));
    int *rcount = malloc(sizeof(int) * ((size_t)g->size + 1)), *rdisp = malloc(sizeof(int) * ((size_t)g->size + 1));
    int *rc2 = malloc(sizeof(int) * ((size_t)g->size + 1)), *rd2 = malloc(sizeof(int) * ((size_t)g->size + 1));
    double *send = NULL, *recv = NULL, *rep = NULL, *Rall = NULL;
    int *ra = NULL, cnt = 0;
    member *m = NULL;
    int rc = aidx && scount && rcount && rdisp && rc2 && rd2 ? OVK_OK : ovk__amg_agg_nomem("aggregates");
    if (!rc) number_roots(g, in, aidx, &c->nagg);
    if (!rc) rc = member_records(g, agg, B, k, &send, scount);
    rc = ovk__agree(g->comm, rc);
    long long before = 0, total = 0;
    if (!rc) rc = exscan(g->comm, c->nagg, &before, &total);
    c->astart = before, c->atotal = total;
    if (!rc) rc = ovk__amg_agg_exchange(g, send, scount, &recv, rcount, rdisp);
    if (!rc) rc = parse_members(g, recv, rcount, rdisp, k, aidx, c->nagg, &m, &cnt);
    if (!rc) {
        Rall = malloc(sizeof(double) * ((size_t)c->nagg * k * k + 1));
        ra = malloc(sizeof(int) * ((size_t)c->nagg + 1));
        c->cptr = malloc(sizeof(int) * ((size_t)c->nagg + 1));
        rc = Rall && ra && c->cptr ? OVK_OK : ovk__amg_agg_nomem("aggregate factors");
    }
    if (!rc) rc = factor_blocks(m, cnt, recv, k, c->nagg, Rall, ra);
    rc = ovk__agree(g->comm, rc);
    if (!rc) {
        c->cptr[0] = 0;
        for (int a = 0; a < c->nagg; a++) c->cptr[a + 1] = c->cptr[a] + ra[a];
        rc = exscan(g->comm, c->cptr[c->nagg], &before, &total);
        c->cstart = before, c->nglobal = total;
        c->stride = ovk__amg_coarse_stride(g->size, c->stride, total, gather);
    }
    ovk_gidx next = 0;
    if (!rc) rc = ovk__amg_coarse_owners(g, c, &next);
    if (!rc) { /* the replies: [first coarse id, node id, rank], Q's rows */
        for (int t = 0; t < cnt; t++) {
            double *r = recv + m[t].at;
            r[0] = (double)(c->cstart + c->cptr[m[t].agg]), r[2] = ra[m[t].agg];
        }
        rc = ovk__amg_agg_exchange(g, recv, rcount, &rep, rc2, rd2);
    }
    if (!rc) { /* B_{l+1}: each aggregate's R */
        int nc = c->cptr[c->nagg];
        c->B = malloc(sizeof(double) * ((size_t)nc * k + 1));
        rc = c->B ? OVK_OK : ovk__amg_agg_nomem("coarse near-null space");
        for (int a = 0; !rc && a < c->nagg; a++)
            for (int i = 0; i < ra[a]; i++)
                for (int j = 0; j < k; j++) c->B[(size_t)j * nc + c->cptr[a] + i] = Rall[(size_t)a * k * k + (size_t)j * k + i];
    }
    rc = ovk__agree(g->comm, rc);
    /* late (a smoothed P): P_tent on the partition of the rank's own
     * aggregates, P and A_{l+1} moved to the gathered one after the products */
    if (!rc) {
        ovk_gidx c0 = late ? c->cstart : c->own0, c1 = late ? c->cstart + c->cptr[c->nagg] : c->own1;
        rc = build_ptent(g, c, rep, rc2, k, c0, c1, &c->Pt);
    }
    if (!rc && c->stride > 1) rc = ovk__amg_gather_coarse(g, c, k, next);
    free(aidx), free(scount), free(rcount), free(rdisp), free(rc2), free(rd2);
    free(send), free(recv), free(rep), free(Rall), free(ra), free(m);
    return rc;
}

/* Collective (statuses agreed): w = A v, each row's diag part summed,
 * then its offd part added (ext: room for A's offd columns) */
static int matvec(const ovk__amg_csr *A, const double *v, double *ext, double *w)
{
    int rc = ovk__amg_csr_halo(A, 1, v, ext, OVK_OK);
    for (int i = 0; !rc && i < A->n; i++) {
        double d = 0.0, o = 0.0;
        for (int e = A->dptr[i]; e < A->dptr[i + 1]; e++) d += A->dval[e] * v[A->dcol[e]];
        for (int e = A->optr[i]; e < A->optr[i + 1]; e++) o += A->oval[e] * ext[A->ocol[e]];
        w[i] = d + o;
    }
    return rc;
}

/* Collective: lambda ~ lambda_max(D^-1 A) from power steps (Rayleigh
 * quotient x^T A x / x^T D x: a bound from below) */
static int lambda_max(const ovk__amg_csr *A, const double *dinv, double *lam)
{
    MPI_Comm comm = A->comm;
    int n = A->n;
    double *vd = malloc(sizeof(double) * ((size_t)n + 1)), *wd = malloc(sizeof(double) * ((size_t)n + 1));
    double *ext = malloc(sizeof(double) * ((size_t)A->nx + 1));
    int rc = ovk__agree(comm, vd && wd && ext ? OVK_OK : ovk__amg_agg_nomem("power steps"));
    *lam = 1.0;
    if (!rc) {
        for (int i = 0; i < n; i++) vd[i] = 1.0 + (double)(mix((uint64_t)(A->r0 + i)) >> 11) * 0x1p-53;
        for (int step = 0; step < POWER_STEPS && !rc; step++) {
            rc = matvec(A, vd, ext, wd);
            double s[3] = {0.0, 0.0, 0.0}; /* v^T A v, v^T D v, |D^-1 A v|^2 */
            for (int i = 0; !rc && i < n; i++) {
                double z = dinv[i] * wd[i];
                s[0] += vd[i] * wd[i], s[1] += vd[i] * vd[i] / dinv[i], s[2] += z * z;
            }
            if (!rc) rc = ovk__mpi(MPI_Allreduce(MPI_IN_PLACE, s, 3, MPI_DOUBLE, MPI_SUM, comm), "MPI_Allreduce (amg agg)");
            if (!rc && s[1] > 0.0) *lam = s[0] / s[1];
            double f = !rc && s[2] > 0.0 ? 1.0 / sqrt(s[2]) : 0.0;
            for (int i = 0; !rc && i < n; i++) vd[i] = f * dinv[i] * wd[i];
            if (!rc && f == 0.0) break;
        }
    }
    free(vd), free(wd), free(ext);
    if (!rc && !(*lam > 0.0 && isfinite(*lam)))
        rc = ovk__fail(OVK_EPRECOND, "amg (setup=agg): the estimate of lambda_max(D^-1 A) is %g (A not SPD?)", *lam);
    return rc;
}

/* Collective: P = (I - w D^-1 A) Pt, w = 4 / (3 lambda), by our row sums
 * (amg_galerkin.c) */
static int smooth_p(const ovk__amg_csr *A, const ovk__amg_csr *Pt, ovk__amg_csr **P)
{
    MPI_Comm comm = A->comm;
    int n = A->n;
    double *dinv = malloc(sizeof(double) * ((size_t)n + 1));
    int rc = dinv ? OVK_OK : ovk__amg_agg_nomem("prolongator smoothing");
    for (int i = 0; !rc && i < n; i++) {
        double a = 0.0;
        for (int e = A->dptr[i]; e < A->dptr[i + 1]; e++)
            if (A->dcol[e] == i) a += A->dval[e];
        if (!(a > 0.0)) rc = ovk__fail(OVK_EZERODIAG, "amg (setup=agg): a level's diagonal entry %g at local row %d", a, i);
        else dinv[i] = 1.0 / a;
    }
    rc = ovk__agree(comm, rc);
    double lam = 1.0;
    if (!rc) rc = lambda_max(A, dinv, &lam);
    int *ptr = NULL;
    ovk_gidx *gcol = NULL;
    double *val = NULL, w = 4.0 / (3.0 * lam);
    for (int i = 0; !rc && i < n; i++) dinv[i] *= w; /* the rows' scale w D^-1 */
    *P = NULL;
    if (!rc) rc = ovk__amg_smooth_rows(A, Pt, dinv, &ptr, &gcol, &val);
    if (!rc)
        rc = ovk__amg_csr_of_rows(comm, A->nrows, Pt->ncols, A->r0, n, Pt->c0, Pt->c0 + Pt->nc, ptr, gcol, val, 0, P);
    free(ptr), free(gcol), free(val);
    free(dinv);
    return rc;
}

void ovk__amg_agg_keep_free(ovk__amg_agg_keep *keep)
{
    for (int l = 0; l < keep->nlev && l < MAXLEV; l++) {
        ovk__amg_csr_free(keep->ptent[l]);
        free(keep->b[l]);
    }
    memset(keep, 0, sizeof *keep);
}

void ovk__amg_agg_hier_free(ovk__amg_agg_hier *h)
{
    for (int l = 0; l < MAXLEV; l++) {
        if (l > 0) ovk__amg_csr_free(h->A[l]);
        ovk__amg_csr_free(h->P[l]);
    }
    memset(h, 0, sizeof *h);
}

/* Collective: the strong graph of level l: threshold halved a level (as
 * AMGCL and ML do: coarse operators couple more weakly), and halved again
 * (to 0 below THRESHOLD_MIN) while most nodes would have no strong
 * neighbour: each would be an aggregate of its own, a level that does not
 * coarsen and fills in (the 27-point Laplacian's couplings are 1/26 of its
 * diagonal: 0.08 leaves every node alone). */
static int strong_graph(level_graph *g, int l, double threshold)
{
    double th = ldexp(threshold, -l);
    for (;;) {
        long long iso[2] = {0, g->nn};
        int rc = strength(g, th, &iso[0]);
        if (!rc) rc = ovk__mpi(MPI_Allreduce(MPI_IN_PLACE, iso, 2, MPI_LONG_LONG, MPI_SUM, g->comm), "MPI_Allreduce (amg agg)");
        if (rc || th == 0.0 || 2 * iso[0] <= iso[1]) return rc;
        th = th / 2 < THRESHOLD_MIN ? 0.0 : th / 2;
        free(g->gptr), free(g->gadj);
        g->gptr = NULL, g->gadj = NULL;
    }
}

/* Collective: one level's aggregation, P and A_{l+1}. */
static int one_level(level_graph *g, int l, const ovk__amg_agg_opts *o, const double *B, int k, coarse *c,
                     ovk__amg_csr **P, ovk__amg_csr **Ac, ovk__amg_rap **plan)
{
    char *in = malloc((size_t)g->nn + 1);
    ovk_gidx *agg = malloc(sizeof(ovk_gidx) * ((size_t)g->nn + 1));
    int rc = ovk__agree(g->comm, in && agg ? OVK_OK : ovk__amg_agg_nomem("aggregates"));
    if (!rc) rc = graph_setup(g, g->A);
    if (!rc) rc = strong_graph(g, l, o->threshold);
    if (!rc) rc = mis(g, l < o->mis2_levels ? 2 : 1, in);
    if (!rc) rc = aggregate(g, in, agg);
    if (!rc) rc = tentative(g, agg, in, B, k, o->gather, o->smooth, c);
    *P = NULL;
    if (!rc && o->smooth) rc = smooth_p(g->A, c->Pt, P);
    if (!rc && !o->smooth) rc = ovk__agree(g->comm, ovk__amg_csr_copy(c->Pt, P));
    if (!rc) rc = ovk__amg_rap_build(g->A, *P, Ac, plan);
    /* a smoothed level gathered: the products ran on the rank's own
     * aggregates' partition (on a P whose columns are all on another rank
     * its Galerkin product took 75 % of the setup), then P's columns and
     * A_{l+1}'s rows move to the gathered partition */
    if (!rc && o->smooth && c->stride > 1) rc = ovk__amg_to_gathered(g, c, P, Ac);
    free(in), free(agg);
    return rc;
}

int ovk__amg_agg_build(const ovk__amg_csr *A, int k, const double *B, const ovk__amg_agg_opts *o,
                       ovk__amg_agg_hier *h, ovk__amg_agg_keep *keep, ovk__amg_rap **plans)
{
    MPI_Comm comm = A->comm;
    ovk__amg_csr **As = h->A, **Ps = h->P;
    memset(h, 0, sizeof *h);
    As[0] = (ovk__amg_csr *)A; /* borrowed: never freed here */
    int nlev = 1, size, rank, bs = o->bs, stride = 1; /* every stride-th rank holds the level's rows */
    MPI_Comm_size(comm, &size), MPI_Comm_rank(comm, &rank);
    int n0 = A->n;
    int *nptr = malloc(sizeof(int) * ((size_t)n0 / bs + 1));
    int rc = ovk__agree(comm, nptr ? OVK_OK : ovk__amg_agg_nomem("nodes"));
    int nn = n0 / bs;
    for (int I = 0; !rc && I <= nn; I++) nptr[I] = I * bs;
    ovk_gidx nstart = A->r0 / bs;
    const double *Bcur = B;
    double *Bown = NULL;
    if (keep) memset(keep, 0, sizeof *keep), keep->k = k;
    int maxl = o->max_levels < MAXLEV ? o->max_levels : MAXLEV;
    for (int l = 0; !rc && l + 1 < maxl; l++) {
        ovk_gidx rows = As[l]->nrows;
        if (l > 0 && rows <= o->coarse_size) break;
        level_graph g = {.comm = comm, .size = size, .rank = rank, .A = As[l], .nn = nn, .nptr = nptr, .nstart = nstart};
        coarse c = {.stride = stride};
        rc = one_level(&g, l, o, Bcur, k, &c, &Ps[l], &As[l + 1], plans && !o->smooth ? &plans[l] : NULL);
        g.nptr = NULL; /* ours, not the graph's */
        graph_free(&g);
        if (!rc && o->singular && l > 0 && c.nglobal <= k) {
            /* a singular A (a declared null space): a level of no more rows than
             * the near-null space's vectors holds little but the null space, its
             * operator is zero but for rounding; the level above is the coarsest */
            ovk__amg_csr_free(As[l + 1]), ovk__amg_csr_free(Ps[l]);
            As[l + 1] = Ps[l] = NULL;
            if (plans) ovk__amg_rap_free(plans[l]), plans[l] = NULL;
            coarse_free(&c);
            break;
        }
        if (!rc) nlev++;
        if (!rc && keep) {
            int nl = As[l]->n;
            keep->ptent[l] = c.Pt, c.Pt = NULL;
            keep->b[l] = malloc(sizeof(double) * ((size_t)nl * k + 1));
            keep->nlev = l + 1;
            rc = ovk__agree(comm, keep->b[l] ? OVK_OK : ovk__amg_agg_nomem("kept near-null space"));
            if (!rc && nl) memcpy(keep->b[l], Bcur, sizeof(double) * (size_t)nl * k);
        }
        if (rc) {
            coarse_free(&c);
            break;
        }
        free(nptr), free(Bown);
        nptr = c.cptr, c.cptr = NULL, nn = c.nagg, nstart = c.astart, stride = c.stride;
        Bown = c.B, c.B = NULL, Bcur = Bown;
        ovk_gidx crows = c.nglobal;
        coarse_free(&c);
        if (l >= 1 && (double)crows > STALL * (double)rows) break; /* coarsening stalled */
    }
    if (!rc && keep && nlev > 1) { /* the coarsest level's near-null space */
        int nl = As[nlev - 1]->n;
        keep->b[nlev - 1] = malloc(sizeof(double) * ((size_t)nl * k + 1));
        keep->nlev = nlev;
        rc = ovk__agree(comm, keep->b[nlev - 1] ? OVK_OK : ovk__amg_agg_nomem("kept near-null space"));
        if (!rc && nl) memcpy(keep->b[nlev - 1], Bcur, sizeof(double) * (size_t)nl * k);
    }
    free(nptr), free(Bown);
    h->nlev = nlev, h->sweeps = o->singular;
    if (rc) ovk__amg_agg_hier_free(h);
    return rc;
}

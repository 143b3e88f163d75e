/* The test A == A^T of the stored values, for the solvers that need a
 * symmetric matrix (CG).  Entry by entry, equal up to the rounding of an
 * assembly: |a_ij - a_ji| <= SYM_RTOL sqrt(m_i m_j), m_i = max_k |a_ik|
 * the scale of row i (a finite-element matrix summed in another order
 * differs in the last bits of its rows' scale, also where one mirror is an
 * exact zero and the other assembly noise); an entry stored on one side
 * only is compared with 0 the same way.  Each pair is first compared
 * against its own size (no row scale needed); only those that fail that
 * take their rows' scales.  Every pair is visited: a refusal names the
 * pair of the largest mismatch over all ranks; the quick check (a verdict
 * only) stops at the first mismatch.  A sample of rows checked first and
 * a screen then settle most matrices without the walk (below).
 *
 * Cost: O(nnz) local work and one int per row.  The diag block is walked
 * once, each upper entry meeting its mirror through a cursor per row (a
 * block that keeps one triangle is symmetric by construction and costs
 * nothing).  Once the values of a matrix have been updated on its pattern
 * (a time loop), the walk is made once more without values and kept with
 * the block: the positions of its mirror pairs and lone entries (about
 * one int per stored entry), so that each later check is one pass over
 * them; where that list finds no room the cursors walk as before.  Each offd entry (i, j) is sent as (i, j, a_ij), 24 bytes, to
 * the owner of column j, which holds a_ji: two point-to-point rounds with
 * the halo's neighbours (counts, then entries), no global communication
 * but the agreements of the allocations and of the verdict. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "matrix_impl.h"

enum { COUNT_TAG = 11, ENTRY_TAG = 12 };
/* pairs ahead whose scattered mirror is fetched while this one is compared:
 * the pass waits on those fetches (on the FE Poisson loop at 2 ranks, 4
 * ahead took twice as long as 16); 64 took 0.78x the time of 16 (median
 * of 9 interleaved rounds) */
enum { PREFETCH_AHEAD = 64 };

enum { SYM_RTOL_EXP = -40 }; /* SYM_RTOL = 2^-40 ~ 9e-13 */

/* a_ij and a_ji equal up to rounding of their own size (the fast test);
 * 2^SYM_RTOL_EXP big by a product (exact as ldexp's) but where it would
 * be subnormal */
static inline int mirror_equal(double a, double b)
{
    double fa = fabs(a), fb = fabs(b), big = fa > fb ? fa : fb;
    static const double rtol = 0x1p-40; /* 2^SYM_RTOL_EXP */
    _Static_assert(SYM_RTOL_EXP == -40, "rtol is 2^SYM_RTOL_EXP");
    double tol = big >= 0x1p-960 ? big * rtol : ldexp(big, SYM_RTOL_EXP);
    return a == b || fabs(a - b) <= tol;
}

/* |a - b| in units of the tolerance at the rows' scales mi, mj:
 * <= 1 is equal up to rounding (Inf for a difference at a zero scale or
 * a non-finite value) */
static double excess(double a, double b, double mi, double mj)
{
    double d = fabs(a - b), tol = ldexp(sqrt(mi) * sqrt(mj), SYM_RTOL_EXP);
    if (a == b) return 0.0;
    if (!(d == d) || !(tol > 0.0)) return INFINITY;
    return d / tol;
}

/* m_i = max_k |a_ik| over both blocks of local row i */
static double row_scale(const ovk_matrix *A, int i)
{
    const ovk__csr *d = &A->diag, *o = &A->offd;
    double m = 0.0; /* a NaN entry is passed over, as fmax would (no call per entry) */
    for (int k = d->rowptr[i]; k < d->rowptr[i + 1]; k++) m = fabs(d->val[k]) > m ? fabs(d->val[k]) : m;
    for (int k = o->rowptr[i]; k < o->rowptr[i + 1]; k++) m = fabs(o->val[k]) > m ? fabs(o->val[k]) : m;
    return m;
}

/* The largest mismatch met so far (ratio: excess; > 1 refuses), its
 * entry (i, j) as reported ids and whether a_ji is stored. */
typedef struct sym_worst {
    double ratio;
    long long i, j;
    double aij, aji;
    int stored;
} sym_worst;

static void note_pair(sym_worst *w, double ratio, long long i, long long j, double aij, double aji, int stored)
{
    if (!(ratio <= w->ratio)) *w = (sym_worst){ratio, i, j, aij, aji, stored};
}

typedef struct triple {
    int64_t row, col;
    double val, scale; /* a_rc and m_r */
} triple;

/* the mismatch of diag entries a_ij (local i, j) and a_ji, if it is the largest */
static void note_local(const ovk_matrix *A, sym_worst *w, int i, int j, double aij, double aji, int stored)
{
    double ratio = excess(aij, aji, row_scale(A, i), row_scale(A, j));
    if (ratio > 1.0) note_pair(w, ratio, ovk__row_id(&A->lay, i), ovk__row_id(&A->lay, j), aij, aji, stored);
}

/* the first entry of row j from k on that is left of the diagonal, or the
 * row's end; a row's entries other than a_ii ascend */
static int next_lower(const ovk__csr *d, int j, int k)
{
    for (; k < d->rowptr[j + 1]; k++) {
        int c = ovk__csr_col(d, j, k);
        if (c > j) return d->rowptr[j + 1];
        if (c < j) return k;
    }
    return k;
}

/* What the pattern walk does with what it meets: check (each mirror pair
 * equal, each lone entry zero; the largest mismatch into *worst) or record
 * (the pairs' and lone entries' positions, for mirror_symmetric). */
typedef struct pair_sink {
    const ovk_matrix *A;
    int record;
    int *pair, *lone;
    int np, nl;
    sym_worst *worst;
    int quick; /* stop at the first mismatch */
} pair_sink;

/* the walk stops: a quick check met a mismatch */
enum { STOP = -1 };
static inline int met(const pair_sink *s) { return s->quick && s->worst->ratio > 1.0 ? STOP : OVK_OK; }

/* upper entry k = (i, j) and its mirror t = (j, i) */
static inline int take_pair(pair_sink *s, int i, int k, int j, int t)
{
    const double *v = s->A->diag.val;
    if (s->record) s->pair[s->np++] = k, s->pair[s->np++] = t;
    else if (!mirror_equal(v[k], v[t])) note_local(s->A, s->worst, i, j, v[k], v[t], 1);
    return s->record ? OVK_OK : met(s);
}

/* entry k of row i, whose mirror is not stored */
static inline int take_lone(pair_sink *s, int i, int k)
{
    const ovk__csr *d = &s->A->diag;
    if (s->record) s->lone[s->nl++] = k;
    else if (d->val[k] != 0.0) note_local(s->A, s->worst, i, ovk__csr_col(d, i, k), d->val[k], 0.0, 0);
    return s->record ? OVK_OK : met(s);
}

/* The diag block's pattern walk: each a_ij, j > i, met with a_ji.  Rows
 * are visited in order, so the lower entries of a row j are met in the
 * order they are stored: cur[j] (n ints of the caller's) is the next one
 * of row j to meet. */
static int walk_pairs(pair_sink *s, int *cur)
{
    const ovk__csr *d = &s->A->diag;
    int n = s->A->lay.nlocal, rc = OVK_OK;
    for (int j = 0; j < n; j++) cur[j] = next_lower(d, j, d->rowptr[j]);
    for (int i = 0; i < n && !rc; i++)
        for (int k = d->rowptr[i]; k < d->rowptr[i + 1] && !rc; k++) {
            int j = ovk__csr_col(d, i, k);
            if (j <= i) continue;
            for (; !rc && cur[j] < d->rowptr[j + 1] && ovk__csr_col(d, j, cur[j]) < i;
                 cur[j] = next_lower(d, j, cur[j] + 1))
                rc = take_lone(s, j, cur[j]); /* a_jc, c < i, met by no a_cj */
            if (rc) break;
            if (cur[j] < d->rowptr[j + 1] && ovk__csr_col(d, j, cur[j]) == i) {
                rc = take_pair(s, i, k, j, cur[j]);
                cur[j] = next_lower(d, j, cur[j] + 1);
            } else {
                rc = take_lone(s, i, k);
            }
        }
    for (int j = 0; j < n && !rc; j++) /* lower entries that no upper one met */
        for (; !rc && cur[j] < d->rowptr[j + 1]; cur[j] = next_lower(d, j, cur[j] + 1)) rc = take_lone(s, j, cur[j]);
    return rc;
}

/* Local: the diag block's mirror pairs and lone entries, kept with it;
 * OVK_ENOMEM (no detail: the caller walks and checks instead) when there
 * is no room. */
static int build_mirror(const ovk_matrix *A)
{
    ovk__csr *d = (ovk__csr *)&A->diag; /* a cache: A stays logically const */
    int n = A->lay.nlocal, nnz = n > 0 ? d->rowptr[n] : 0;
    int *cur = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    pair_sink s = {.A = A, .record = 1, .pair = malloc(sizeof(int) * ((size_t)nnz + 1)),
                   .lone = malloc(sizeof(int) * ((size_t)nnz + 1))};
    if (!cur || !s.pair || !s.lone) {
        free(cur), free(s.pair), free(s.lone);
        return OVK_ENOMEM;
    }
    (void)walk_pairs(&s, cur); /* recording cannot fail */
    free(cur);
    int *fit = realloc(s.pair, sizeof(int) * (size_t)(s.np > 0 ? s.np : 1)); /* the walk's own size */
    if (fit) s.pair = fit;
    fit = realloc(s.lone, sizeof(int) * (size_t)(s.nl > 0 ? s.nl : 1));
    if (fit) s.lone = fit;
    d->mirror = s.pair, d->nmirror = s.np / 2, d->lone = s.lone, d->nlone = s.nl;
    return OVK_OK;
}

/* the row of entry k of d (a binary search of rowptr) */
static int row_of(const ovk__csr *d, int n, int k)
{
    int lo = 0, hi = n - 1;
    while (lo < hi) {
        int mid = lo + (hi - lo + 1) / 2;
        if (d->rowptr[mid] <= k) lo = mid;
        else hi = mid - 1;
    }
    return lo;
}

/* The diag block by its mirror pairs: each pair equal, each lone entry
 * zero (the largest mismatch into *w, as diag_symmetric). */
static void mirror_symmetric(const ovk_matrix *A, sym_worst *w)
{
    const ovk__csr *d = &A->diag;
    const double *v = d->val;
    int n = A->lay.nlocal, all = 1;
    for (int p = 0; p < d->nmirror; p++) {
        if (p + PREFETCH_AHEAD < d->nmirror) __builtin_prefetch(&v[d->mirror[2 * (p + PREFETCH_AHEAD) + 1]]);
        all &= mirror_equal(v[d->mirror[2 * p]], v[d->mirror[2 * p + 1]]);
    }
    for (int p = 0; p < d->nmirror && !all; p++) /* those not equal to their own size, at their rows' scale */
        if (!mirror_equal(v[d->mirror[2 * p]], v[d->mirror[2 * p + 1]])) {
            int k = d->mirror[2 * p], t = d->mirror[2 * p + 1], i = row_of(d, n, k);
            note_local(A, w, i, ovk__csr_col(d, i, k), v[k], v[t], 1);
        }
    for (int q = 0; q < d->nlone; q++)
        if (v[d->lone[q]] != 0.0) {
            int k = d->lone[q], i = row_of(d, n, k);
            note_local(A, w, i, ovk__csr_col(d, i, k), v[k], 0.0, 0);
        }
}

/* The diag block: each a_ij, j > i, equal to a_ji (the largest mismatch
 * into *w); OVK_OK or OVK_ENOMEM. */
static int diag_symmetric(const ovk_matrix *A, sym_worst *w, int quick)
{
    const ovk__csr *d = &A->diag;
    int n = A->lay.nlocal;
    if (d->upper) return OVK_OK; /* kept one triangle: symmetric bit for bit */
    /* values updated on a kept pattern (a time loop): the pairs once, then
     * one pass over them each time instead of the walk's scattered cursors;
     * without room for them, the walk */
    if (A->values_version > 0 && !d->mirror) (void)build_mirror(A);
    if (d->mirror) {
        mirror_symmetric(A, w);
        return OVK_OK;
    }
    int *cur = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    if (!cur) return ovk__fail(OVK_ENOMEM, "symmetry check: %d rows", n);
    pair_sink s = {.A = A, .worst = w, .quick = quick};
    int rc = walk_pairs(&s, cur);
    free(cur);
    return rc == STOP ? OVK_OK : rc;
}

/* index of global column g in col_map, or -1 */
static int find_col(const ovk_matrix *A, ovk_gidx g)
{
    int lo = 0, hi = A->ncols_offd - 1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        if (A->col_map[mid] == g) return mid;
        if (A->col_map[mid] < g) lo = mid + 1;
        else hi = mid - 1;
    }
    return -1;
}

/* the offd entries of this rank, grouped by the owner of their column
 * (the halo's receive side: col_map[recv_ptr[j], recv_ptr[j+1]) is owned
 * by recv_rank[j]); cnt[j] entries for recv_rank[j] from out + off[j] */
static int pack_offd(const ovk_matrix *A, triple **out, int *cnt, int *off)
{
    const ovk__halo *h = &A->halo;
    const ovk__csr *o = &A->offd;
    int n = A->lay.nlocal, nnz = o->rowptr[n];
    int *owner = malloc(sizeof(int) * (size_t)(A->ncols_offd + 1));
    *out = malloc(sizeof(triple) * (size_t)(nnz > 0 ? nnz : 1));
    if (!owner || !*out) {
        free(owner);
        return ovk__fail(OVK_ENOMEM, "symmetry check: %d offd entries", nnz);
    }
    for (int j = 0; j < h->nrecv; j++) {
        cnt[j] = 0;
        for (int c = h->recv_ptr[j]; c < h->recv_ptr[j + 1]; c++) owner[c] = j;
    }
    for (int k = 0; k < nnz; k++) cnt[owner[o->col[k]]]++;
    off[0] = 0;
    for (int j = 0; j < h->nrecv; j++) off[j + 1] = off[j] + cnt[j];
    for (int j = 0; j < h->nrecv; j++) cnt[j] = 0;
    for (int i = 0; i < n; i++) {
        double m = o->rowptr[i + 1] > o->rowptr[i] ? row_scale(A, i) : 0.0;
        for (int k = o->rowptr[i]; k < o->rowptr[i + 1]; k++) {
            int j = owner[o->col[k]];
            triple e = {A->lay.row_start + i, A->col_map[o->col[k]], o->val[k], m};
            (*out)[off[j] + cnt[j]++] = e;
        }
    }
    free(owner);
    return OVK_OK;
}

/* a received (r, g, a_rg, m_r) against this rank's a_gr (0 when not
 * stored), the largest mismatch into *w */
static void match_remote(const ovk_matrix *A, const triple *e, sym_worst *w)
{
    const ovk__csr *o = &A->offd;
    int i = (int)(e->col - A->lay.row_start), c = find_col(A, e->row);
    double mine = 0.0;
    int stored = 0;
    for (int k = c < 0 ? 0 : o->rowptr[i]; c >= 0 && k < o->rowptr[i + 1] && !stored; k++)
        if (o->col[k] == c) mine = o->val[k], stored = 1;
    if (stored ? mirror_equal(mine, e->val) : e->val == 0.0) return;
    double ratio = excess(e->val, mine, e->scale, row_scale(A, i));
    if (ratio > 1.0)
        note_pair(w, ratio, ovk__gid(&A->lay, e->row), ovk__gid(&A->lay, e->col), e->val, mine, stored);
}

/* post the receives and sends of one round; wait for all */
static int exchange(const ovk_matrix *A, int tag, size_t unit, void *sendbuf, const int *scnt, const int *soff,
                    void *recvbuf, const int *rcnt, const int *roff, MPI_Request *req)
{
    const ovk__halo *h = &A->halo;
    int nr = 0, rc = OVK_OK;
    char *sb = sendbuf, *rb = recvbuf;
    for (int j = 0; j < h->nsend && !rc; j++) /* the ranks whose rows hold columns of ours */
        rc = ovk__mpi(MPI_Irecv(rb + unit * (size_t)roff[j], (int)unit * rcnt[j], MPI_BYTE, h->send_rank[j], tag,
                                A->lay.comm, &req[nr++]),
                      "MPI_Irecv (symmetry check)");
    for (int j = 0; j < h->nrecv && !rc; j++)
        rc = ovk__mpi(MPI_Isend(sb + unit * (size_t)soff[j], (int)unit * scnt[j], MPI_BYTE, h->recv_rank[j], tag,
                                A->lay.comm, &req[nr++]),
                      "MPI_Isend (symmetry check)");
    int rc2 = ovk__mpi(MPI_Waitall(nr, req, MPI_STATUSES_IGNORE), "MPI_Waitall (symmetry check)");
    return rc ? rc : rc2;
}

/* the offd entries against their mirrors on the ranks that own them (an
 * entry (i, g) whose mirror is not stored is compared with 0 by the owner
 * of g, which receives it); the largest mismatch into *w.  The allocations
 * are agreed before each round, so that no rank waits for a message a
 * failed one will not send. */
static int offd_symmetric(const ovk_matrix *A, sym_worst *w)
{
    const ovk__halo *h = &A->halo;
    int ns = h->nsend, nr = h->nrecv, most = ns > nr ? ns : nr;
    triple *out = NULL, *in = NULL;
    int *ints = calloc((size_t)(4 * (most + 1)), sizeof(int));
    MPI_Request *req = malloc(sizeof(MPI_Request) * (size_t)(ns + nr + 1));
    int *idx = ints, *one = idx + most + 1, *scnt = one + most + 1, *soff = scnt + most + 1;
    int *rcnt = NULL, *roff = NULL; /* in counts, once agreed */
    int rc = ints && req ? pack_offd(A, &out, scnt, soff)
                                 : ovk__fail(OVK_ENOMEM, "symmetry check: %d neighbours", ns + nr);
    int *counts = malloc(sizeof(int) * (size_t)(2 * (ns + 1)));
    if (!rc && !counts) rc = ovk__fail(OVK_ENOMEM, "symmetry check: %d neighbours", ns);
    rc = ovk__agree(A->lay.comm, rc);
    if (rc) goto cleanup;
    rcnt = counts;
    roff = counts + ns + 1;
    for (int j = 0; j <= most; j++) {
        idx[j] = j;
        one[j] = 1;
    }
    rc = exchange(A, COUNT_TAG, sizeof(int), scnt, one, idx, rcnt, one, idx, req); /* the counts */
    roff[0] = 0;
    for (int j = 0; !rc && j < ns; j++) roff[j + 1] = roff[j] + rcnt[j];
    if (!rc) {
        in = malloc(sizeof(triple) * (size_t)(roff[ns] > 0 ? roff[ns] : 1));
        if (!in) rc = ovk__fail(OVK_ENOMEM, "symmetry check: %d entries received", roff[ns]);
    }
    rc = ovk__agree(A->lay.comm, rc);
    if (rc) goto cleanup;
    rc = exchange(A, ENTRY_TAG, sizeof(triple), out, scnt, soff, in, rcnt, roff, req); /* the entries */
    for (int k = 0; !rc && k < roff[ns]; k++) match_remote(A, &in[k], w);
cleanup:
    free(out);
    free(in);
    free(ints);
    free(counts);
    free(req);
    return rc;
}

/* The screen, before the entry-by-entry check: with weights w_j = z_j /
 * sqrt(m_j), z_j in [1, 2) a hash of j's global id, each row's sum over its
 * other entries, y_i = sum_j a_ij w_j, against its column's, t_i = sum_j
 * a_ji w_j, scattered while the rows are walked in order (the offd terms to
 * their columns' owners: one double pair per halo column).  A symmetric diag
 * block gives t_i the same terms in the same order as y_i, bit for bit; a
 * row passes when |y_i - t_i| <= 2^SCREEN_RTOL_EXP sum_j (|a_ij| + |a_ji|)
 * w_j.  One pass over A, two halo rounds and one sum instead of the walk's
 * scattered cursors (about 40 products' time on a 27-point Laplacian).  A
 * pair above the tolerance shows in its row and its column unless others of
 * the same rows cancel it at these random weights; a mismatch of fewer than
 * about len/16 tolerances (len the row's entries) may pass.  A row that
 * fails, a zero or non-finite row scale, or no room: the check decides. */
enum { SCREEN_RTOL_EXP = -46, SCREEN_TAG = 13 };

static double screen_weight(int64_t g, double m)
{
    uint64_t h = (uint64_t)g + 0x9E3779B97F4A7C15u; /* splitmix64's finaliser */
    h = (h ^ (h >> 30)) * 0xBF58476D1CE4E5B9u;
    h = (h ^ (h >> 27)) * 0x94D049BB133111EBu;
    h ^= h >> 31;
    return (1.0 + (double)(h >> 11) * 0x1p-53) / sqrt(m);
}

typedef struct screen_work {
    double *m, *w, *y, *t;       /* [n], [n], and pairs (the sum, of |a| too): [2 n] */
    double *mg, *wg, *tg, *back; /* halo columns: [nc], [nc], [2 nc] pairs; [2 received] */
    int *cnt;                        /* [2 (ns + nr + 2)]: counts and offsets of the pairs */
    ovk__halo_multi hm;
} screen_work;

static void screen_free(screen_work *s)
{
    free(s->m), free(s->w), free(s->y), free(s->t);
    free(s->mg), free(s->wg), free(s->tg), free(s->back), free(s->cnt);
    ovk__halo_multi_free(&s->hm);
}

static int screen_alloc(const ovk_matrix *A, screen_work *s)
{
    const ovk__halo *h = &A->halo;
    size_t n = (size_t)A->lay.nlocal + 1, nc = (size_t)A->ncols_offd + 1;
    size_t back = 2 * (size_t)h->send_ptr[h->nsend] + 1;
    int ok = (s->m = malloc(n * sizeof(double))) != NULL;
    ok &= (s->w = malloc(n * sizeof(double))) != NULL;
    ok &= (s->y = malloc(2 * n * sizeof(double))) != NULL;
    ok &= (s->t = calloc(2 * n, sizeof(double))) != NULL;
    ok &= (s->mg = calloc(nc, sizeof(double))) != NULL;
    ok &= (s->wg = malloc(nc * sizeof(double))) != NULL;
    ok &= (s->tg = calloc(2 * nc, sizeof(double))) != NULL;
    ok &= (s->back = malloc(back * sizeof(double))) != NULL;
    ok &= (s->cnt = calloc(2 * (size_t)(h->nsend + h->nrecv + 2), sizeof(int))) != NULL;
    return ok ? ovk__halo_multi_reserve(A, 1, &s->hm) : OVK_ENOMEM;
}

/* Local: y and the scattered t, tg of one pass (pairs: the sum, the sum of
 * |a|); 0 where a row scale is zero or not finite (no weight) */
static int screen_pass(const ovk_matrix *A, screen_work *s)
{
    const ovk__csr *d = &A->diag, *o = &A->offd;
    int n = A->lay.nlocal;
    for (int c = 0; c < A->ncols_offd; c++) {
        if (!(s->mg[c] > 0.0 && s->mg[c] <= DBL_MAX)) return 0;
        s->wg[c] = screen_weight(A->col_map[c], s->mg[c]);
    }
    for (int i = 0; i < n; i++) {
        if (!(s->m[i] > 0.0 && s->m[i] <= DBL_MAX)) return 0;
        s->w[i] = screen_weight(A->lay.row_start + i, s->m[i]);
    }
    for (int i = 0; i < n; i++) {
        double y = 0.0, ya = 0.0, wi = s->w[i];
        for (int k = d->upper ? d->rowptr[i + 1] : d->rowptr[i]; k < d->rowptr[i + 1]; k++) {
            int j = ovk__csr_col(d, i, k);
            double a = d->val[k];
            if (j == i) continue;
            y += a * s->w[j], ya += fabs(a) * s->w[j];
            s->t[2 * j] += a * wi, s->t[2 * j + 1] += fabs(a) * wi;
        }
        for (int k = o->rowptr[i]; k < o->rowptr[i + 1]; k++) {
            int c = o->col[k];
            double a = o->val[k];
            y += a * s->wg[c], ya += fabs(a) * s->wg[c];
            s->tg[2 * c] += a * wi, s->tg[2 * c + 1] += fabs(a) * wi;
        }
        s->y[2 * i] = y, s->y[2 * i + 1] = ya;
    }
    return 1;
}

/* Collective: *passed when every row of every rank passes the screen;
 * *sampled when a rank's sample met a mismatch (mine: this rank's), the
 * screen then not run (it would fail) */
static int screen(const ovk_matrix *A, int mine, int *sampled, int *passed)
{
    const ovk__halo *h = &A->halo;
    screen_work s = {0};
    int ns = h->nsend, nr = h->nrecv, n = A->lay.nlocal, pass = 0;
    int flags[2] = {!mine && screen_alloc(A, &s) != OVK_OK, mine}; /* agreed in one sum */
    int rc = ovk__mpi(MPI_Allreduce(MPI_IN_PLACE, flags, 2, MPI_INT, MPI_MAX, A->lay.comm), "MPI_Allreduce (symmetry)");
    *passed = 0;
    *sampled = !rc && flags[1];
    if (rc || flags[0] || flags[1]) { /* sampled, or no room: the check decides (its allocations are smaller) */
        screen_free(&s);
        return rc;
    }
    for (int i = 0; i < n; i++) s.m[i] = row_scale(A, i);
    rc = ovk__halo_multi_begin(A, 1, (const double *const[]){s.m}, &s.hm);
    if (!rc) rc = ovk__halo_multi_end(A, &s.hm, s.mg); /* the halo columns' row scales */
    rc = ovk__agree(A->lay.comm, rc);
    if (rc) goto cleanup;
    pass = screen_pass(A, &s);
    int *scnt = s.cnt, *soff = scnt + nr + 1, *rcnt = soff + nr + 1, *roff = rcnt + ns + 1;
    for (int j = 0; j < nr; j++) soff[j] = h->recv_ptr[j], scnt[j] = h->recv_ptr[j + 1] - h->recv_ptr[j];
    for (int j = 0; j < ns; j++) roff[j] = h->send_ptr[j], rcnt[j] = h->send_ptr[j + 1] - h->send_ptr[j];
    MPI_Request *req = (MPI_Request *)s.hm.reqs; /* ns + nr of them */
    rc = ovk__agree(A->lay.comm, exchange(A, SCREEN_TAG, 2 * sizeof(double), s.tg, scnt, soff, s.back, rcnt,
                                          roff, req)); /* t of the columns of ours held on other ranks */
    if (rc) goto cleanup;
    for (int q = 0; q < h->send_ptr[ns]; q++) {
        int i = h->send_idx[q];
        s.t[2 * i] += s.back[2 * q], s.t[2 * i + 1] += s.back[2 * q + 1];
    }
    for (int i = 0; i < n && pass; i++)
        pass = fabs(s.y[2 * i] - s.t[2 * i]) <= ldexp(s.y[2 * i + 1] + s.t[2 * i + 1], SCREEN_RTOL_EXP);
    rc = ovk__mpi(MPI_Allreduce(MPI_IN_PLACE, &pass, 1, MPI_INT, MPI_MIN, A->lay.comm), "MPI_Allreduce (symmetry)");
    *passed = !rc && pass;
cleanup:
    screen_free(&s);
    return rc;
}

/* The sample, before the screen: the diag pairs of SAMPLE_ROWS rows spread
 * over the local ones, each entry's mirror found in its row by a binary
 * search, up to the first mismatch (a few us on a symmetric 27-point
 * Laplacian, where the screen takes a pass over A and two halo rounds:
 * 16 rows took 14 us of its 0.3 ms at 4,000 rows a rank).  A mismatch met
 * there is one of the check's own (the same tolerance): a quick check is
 * settled by it, a full one skips the screen, which would fail, and walks.
 * A matrix whose asymmetry is everywhere (a convection term) is met at the
 * first row. */
enum { SAMPLE_ROWS = 4 };

/* the position of column c in row j of d, or -1; the entries other than
 * a_jj ascend, a_jj first or in its place */
static int find_in_row(const ovk__csr *d, int j, int c)
{
    int lo = d->rowptr[j], hi = d->rowptr[j + 1] - 1;
    if (lo <= hi && ovk__csr_col(d, j, lo) == j) {
        if (c == j) return lo;
        lo++;
    }
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2, m = ovk__csr_col(d, j, mid);
        if (m == c) return mid;
        if (m < c) lo = mid + 1;
        else hi = mid - 1;
    }
    return -1;
}

/* Local: the sampled rows' diag entries against their mirrors (an entry
 * whose mirror is not stored against 0), the first mismatch into *w; a
 * kept triangle is symmetric by construction */
static void sample_pairs(const ovk_matrix *A, sym_worst *w)
{
    const ovk__csr *d = &A->diag;
    int n = A->lay.nlocal, step = n > SAMPLE_ROWS ? n / SAMPLE_ROWS : 1;
    for (int i = 0; i < n && !d->upper && !(w->ratio > 1.0); i += step)
        for (int k = d->rowptr[i]; k < d->rowptr[i + 1] && !(w->ratio > 1.0); k++) {
            int j = ovk__csr_col(d, i, k), t = j == i ? -1 : find_in_row(d, j, i);
            if (j == i || (t >= 0 ? mirror_equal(d->val[k], d->val[t]) : d->val[k] == 0.0)) continue;
            note_local(A, w, i, j, d->val[k], t >= 0 ? d->val[t] : 0.0, t >= 0);
        }
}

/* Collective: the largest ratio of all ranks in *out, and its rank */
typedef struct ratio_rank {
    double ratio;
    int rank;
} ratio_rank;
static int largest(const ovk_matrix *A, const sym_worst *w, ratio_rank *out)
{
    ratio_rank in = {w->ratio, 0};
    MPI_Comm_rank(A->lay.comm, &in.rank);
    return ovk__mpi(MPI_Allreduce(&in, out, 1, MPI_DOUBLE_INT, MPI_MAXLOC, A->lay.comm), "MPI_Allreduce (symmetry check)");
}

static int check(const ovk_matrix *A, int quick)
{
    sym_worst w = {0.0, 0, 0, 0.0, 0.0, 0};
    ratio_rank out = {0.0, 0};
    sample_pairs(A, &w);
    int sampled = 0, passed = 0, rc = screen(A, w.ratio > 1.0, &sampled, &passed);
    if (rc || passed) return rc;
    if (!(quick && sampled)) rc = diag_symmetric(A, &w, quick); /* a sampled mismatch settles a quick check */
    if (quick) { /* a diag block's mismatch settles it: no exchange */
        rc = ovk__agree(A->lay.comm, rc);
        if (!rc) rc = largest(A, &w, &out);
        if (rc) return rc;
    }
    if (out.ratio <= 1.0) {
        /* every rank takes part in the exchange, whatever its diag block said */
        int rc2 = offd_symmetric(A, &w);
        rc = ovk__agree(A->lay.comm, rc ? rc : rc2);
        if (!rc) rc = largest(A, &w, &out); /* the largest mismatch of all ranks, named by the rank that met it */
        if (rc || out.ratio <= 1.0) return rc;
    }
    int rank;
    MPI_Comm_rank(A->lay.comm, &rank);
    if (out.rank == rank) {
        char stored[48];
        if (w.stored) snprintf(stored, sizeof stored, "%.17g", w.aji);
        else snprintf(stored, sizeof stored, "not stored (0)");
        rc = ovk__fail(OVK_ENOTSYM,
                       "A(%lld,%lld) = %.17g but A(%lld,%lld) = %s, %s mismatch: %.3g times the rounding "
                       "tolerance 2^%d sqrt(m_i m_j), m_i the largest |a_ik| of row i",
                       w.i, w.j, w.aij, w.j, w.i, stored, quick ? "a" : "the largest", w.ratio, SYM_RTOL_EXP);
    }
    return ovk__agree(A->lay.comm, rc);
}

int ovk__matrix_check_symmetric(const ovk_matrix *A) { return check(A, 0); }

int ovk__matrix_check_symmetric_quick(const ovk_matrix *A) { return check(A, 1); }

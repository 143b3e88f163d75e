/* Schedules of the "nbc" backend: builders for each allreduce algorithm,
 * the executor that walks a schedule round by round, and the cache.
 *
 * Determinism: every algorithm computes each result element by one fixed
 * combination tree whose shape depends only on (nranks, count, parameters),
 * and every REDUCE keeps its operands in the order "lower-ranked part
 * first".  The final value is either computed by all members of a group
 * from the same operands in the same order, or computed once and copied.
 * So every rank gets bitwise the same result, on every run (docs/nbc.md).
 */
#include <limits.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "nbc_sched.h"

const char *const ovk__nbc_alg_names[] = {"auto", "rd", "kring", "knomial", "twolevel", "rsa", NULL};

/* A k-nomial tree node has at most (k-1) children per level and at most
 * 31 levels (int ranks). */
#define KNOMIAL_MAX_CHILDREN ((OVK__NBC_K_MAX - 1) * 31)

/* ---- the builder -------------------------------------------------------- */

/* Actions are appended to the current round.  An allocation failure is
 * recorded in rc and turns every later call into a no-op; the caller checks
 * rc once at the end. */
typedef struct builder {
    ovk__nbc_action *act;
    int nact, cap;
    int *round; /* start of each round */
    int nrounds, rcap;
    size_t tmp_elems;
    int rc;
} builder;

static int grow(void **p, int *cap, int need, size_t elem)
{
    if (need <= *cap) return OVK_OK;
    int ncap = *cap ? *cap : 16;
    while (ncap < need) {
        if (ncap > INT_MAX / 2) return ovk__fail(OVK_ENOMEM, "nbc: schedule too long");
        ncap *= 2;
    }
    void *q = realloc(*p, (size_t)ncap * elem);
    if (!q) return ovk__fail(OVK_ENOMEM, "nbc: schedule of %d entries", ncap);
    *p = q;
    *cap = ncap;
    return OVK_OK;
}

static void b_free(builder *b)
{
    free(b->act);
    free(b->round);
    memset(b, 0, sizeof *b);
}

/* Open a new round; the previous one is closed. */
static void b_round(builder *b)
{
    if (b->rc) return;
    b->rc = grow((void **)&b->round, &b->rcap, b->nrounds + 1, sizeof *b->round);
    if (!b->rc) b->round[b->nrounds++] = b->nact;
}

static void b_push(builder *b, ovk__nbc_action a)
{
    if (b->rc) return;
    b->rc = grow((void **)&b->act, &b->cap, b->nact + 1, sizeof *b->act);
    if (!b->rc) b->act[b->nact++] = a;
}

static void b_need_tmp(builder *b, size_t end)
{
    if (end > b->tmp_elems) b->tmp_elems = end;
}

static ovk__nbc_ref recv_at(size_t off) { return (ovk__nbc_ref){OVK__NBC_BUF_RECV, off}; }
static ovk__nbc_ref tmp_at(size_t off) { return (ovk__nbc_ref){OVK__NBC_BUF_TMP, off}; }
static ovk__nbc_ref send_at(size_t off) { return (ovk__nbc_ref){OVK__NBC_BUF_SEND, off}; }

static void b_send(builder *b, int peer, ovk__nbc_ref src, int count)
{
    b_push(b, (ovk__nbc_action){.kind = OVK__NBC_SEND, .peer = peer, .count = count, .src = src});
}

static void b_recv(builder *b, int peer, ovk__nbc_ref dst, int count)
{
    b_push(b, (ovk__nbc_action){.kind = OVK__NBC_RECV, .peer = peer, .count = count, .dst = dst});
}

static void b_copy(builder *b, ovk__nbc_ref dst, ovk__nbc_ref src, int count)
{
    b_push(b, (ovk__nbc_action){.kind = OVK__NBC_COPY, .peer = -1, .count = count, .src = src, .dst = dst});
}

/* dst = x op y, x being the operand from the lower-ranked part. */
static void b_reduce(builder *b, ovk__nbc_ref dst, ovk__nbc_ref x, ovk__nbc_ref y, int count)
{
    b_push(b, (ovk__nbc_action){.kind = OVK__NBC_REDUCE, .peer = -1, .count = count, .src = x,
                                .src2 = y, .dst = dst});
}

/* Number of actions in round r of b. */
static int b_round_end(const builder *b, int r) { return r + 1 < b->nrounds ? b->round[r + 1] : b->nact; }

/* ---- groups and spans ---------------------------------------------------- */

/* The ranks taking part in one phase: member i is rank[i] of the backend's
 * communicator (rank == NULL: member i is rank i); me is our index. */
typedef struct group {
    const int *rank;
    int n, me;
} group;

static int g_rank(const group *g, int i) { return g->rank ? g->rank[i] : i; }

/* The part of the accumulator (the receive buffer) a phase reduces. */
typedef struct span {
    size_t off;
    int cnt;
} span;

static int pow_floor(int n, int k)
{
    int p = 1;
    while ((long)p * k <= n) p *= k;
    return p;
}

/* Elements [off(lo), off(hi)) of a: the blocks lo..hi-1 of nblocks equal-ish
 * blocks. */
static size_t block_off(span a, int b, int nblocks)
{
    return a.off + (size_t)((long long)a.cnt * b / nblocks);
}

static span blocks(span a, int lo, int hi, int nblocks)
{
    size_t s = block_off(a, lo, nblocks), e = block_off(a, hi, nblocks);
    return (span){s, (int)(e - s)};
}

/* ---- fold of the ranks beyond a power --------------------------------- */

/* Members i >= base send their value to proxy i % base; a proxy combines
 * its own value with its extras' in member order (x_p op x_{p+base} op
 * x_{p+2 base} ...).  Two rounds on every member. */
static void fold_extras(builder *b, const group *g, int base, span a, size_t tmp)
{
    int me = g->me, n = g->n;
    b_round(b);
    if (me >= base) b_send(b, g_rank(g, me % base), recv_at(a.off), a.cnt);
    for (int j = 1; me < base && me + j * base < n; j++) {
        b_recv(b, g_rank(g, me + j * base), tmp_at(tmp + (size_t)(j - 1) * a.cnt), a.cnt);
        b_need_tmp(b, tmp + (size_t)j * a.cnt);
    }
    b_round(b);
    for (int j = 1; me < base && me + j * base < n; j++)
        b_reduce(b, recv_at(a.off), recv_at(a.off), tmp_at(tmp + (size_t)(j - 1) * a.cnt), a.cnt);
}

/* The proxies hand the result back to their extras.  One round. */
static void unfold_extras(builder *b, const group *g, int base, span a)
{
    int me = g->me, n = g->n;
    b_round(b);
    if (me >= base) b_recv(b, g_rank(g, me % base), recv_at(a.off), a.cnt);
    for (int j = 1; me < base && me + j * base < n; j++)
        b_send(b, g_rank(g, me + j * base), recv_at(a.off), a.cnt);
}

/* ---- recursive doubling ------------------------------------------------- */

/* Step with distance `mask`: exchange with me ^ mask, then combine
 * lower-half value op upper-half value.  Both partners compute the same
 * operands in the same order, so the block [base, base + 2 mask) has one
 * value everywhere. */
static void rd_allreduce(builder *b, const group *g, span a, size_t tmp)
{
    int p2 = pow_floor(g->n, 2), me = g->me;
    ovk__nbc_ref acc = recv_at(a.off), t = tmp_at(tmp);
    b_need_tmp(b, tmp + (size_t)a.cnt);
    fold_extras(b, g, p2, a, tmp);
    for (int mask = 1; mask < p2; mask <<= 1) {
        int partner = me ^ mask;
        b_round(b);
        if (me < p2) {
            b_send(b, g_rank(g, partner), acc, a.cnt);
            b_recv(b, g_rank(g, partner), t, a.cnt);
        }
        b_round(b);
        if (me < p2 && partner < me) b_reduce(b, acc, t, acc, a.cnt);
        else if (me < p2) b_reduce(b, acc, acc, t, a.cnt);
    }
    unfold_extras(b, g, p2, a);
}

/* ---- recursive k-ing ---------------------------------------------------- */

/* Scratch slot of group member m when we are member `digit`. */
static size_t kring_slot(size_t tmp, int m, int digit, int cnt)
{
    return tmp + (size_t)(m < digit ? m : m - 1) * (size_t)cnt;
}

/* Left fold v_0 op v_1 op ... op v_{k-1} of the k members base + m d,
 * v_digit being our accumulator.  The result goes to the accumulator; when
 * we are not member 0 it is built in member 0's slot and copied, so that
 * our own value is still intact when its turn comes. */
static void kring_combine(builder *b, int k, int digit, span a, size_t tmp)
{
    ovk__nbc_ref acc = recv_at(a.off);
    ovk__nbc_ref r = digit == 0 ? acc : tmp_at(kring_slot(tmp, 0, digit, a.cnt));
    for (int m = 1; m < k; m++) {
        ovk__nbc_ref v = m == digit ? acc : tmp_at(kring_slot(tmp, m, digit, a.cnt));
        b_reduce(b, r, r, v, a.cnt);
    }
    if (digit != 0) b_copy(b, acc, r, a.cnt);
}

/* Cheetah's recursive k-ing on pk = k^L members, the others folded into
 * proxies first.  Step d = 1, k, k^2, ...: the k members that differ only in
 * digit (me / d) % k exchange all-to-all and all compute the same left fold. */
static void kring_allreduce(builder *b, const group *g, int k, span a, size_t tmp)
{
    int pk = pow_floor(g->n, k), me = g->me;
    b_need_tmp(b, tmp + (size_t)(k - 1) * a.cnt);
    fold_extras(b, g, pk, a, tmp);
    for (long d = 1; d < pk; d *= k) {
        int digit = (int)((me / d) % k), base = me - digit * (int)d;
        b_round(b);
        for (int m = 0; me < pk && m < k; m++) {
            if (m == digit) continue;
            int peer = g_rank(g, base + m * (int)d);
            b_send(b, peer, recv_at(a.off), a.cnt);
            b_recv(b, peer, tmp_at(kring_slot(tmp, m, digit, a.cnt)), a.cnt);
        }
        b_round(b);
        if (me < pk) kring_combine(b, k, digit, a, tmp);
    }
    unfold_extras(b, g, pk, a);
}

/* ---- k-nomial trees ----------------------------------------------------- */

/* Reduce to member 0: receive all children's subtree values at once, fold
 * them into ours in ascending member order (x_me op S_c1 op S_c2 ...), send
 * the result to the parent.  Three rounds. */
static void knomial_reduce(builder *b, const group *g, int k, span a, size_t tmp)
{
    int child[KNOMIAL_MAX_CHILDREN], parent;
    int nchild = ovk__knomial_family(g->me, g->n, k, child, &parent);
    b_need_tmp(b, tmp + (size_t)nchild * a.cnt);
    b_round(b);
    for (int i = 0; i < nchild; i++)
        b_recv(b, g_rank(g, child[i]), tmp_at(tmp + (size_t)i * a.cnt), a.cnt);
    b_round(b);
    for (int i = 0; i < nchild; i++)
        b_reduce(b, recv_at(a.off), recv_at(a.off), tmp_at(tmp + (size_t)i * a.cnt), a.cnt);
    b_round(b);
    if (parent >= 0) b_send(b, g_rank(g, parent), recv_at(a.off), a.cnt);
}

/* Broadcast from member 0 down the same tree, largest subtrees first.  Two
 * rounds. */
static void knomial_bcast(builder *b, const group *g, int k, span a)
{
    int child[KNOMIAL_MAX_CHILDREN], parent;
    int nchild = ovk__knomial_family(g->me, g->n, k, child, &parent);
    b_round(b);
    if (parent >= 0) b_recv(b, g_rank(g, parent), recv_at(a.off), a.cnt);
    b_round(b);
    for (int i = nchild - 1; i >= 0; i--) b_send(b, g_rank(g, child[i]), recv_at(a.off), a.cnt);
}

/* ---- reduce-scatter + allgather (Rabenseifner) ------------------------ */

/* On p2 = 2^L members after the fold: recursive halving leaves member i
 * with block i of p2 fully reduced (each block combined by one fixed binary
 * tree, lower half first), recursive doubling gathers the blocks.  Every
 * member opens the same rounds (2 fold, 2L halving, L doubling, 1 unfold:
 * no b_round call depends on the member), which segment pipelining relies
 * on: a message of segment s at step t is in the same round everywhere. */
static void rsa_allreduce(builder *b, const group *g, span a, size_t tmp)
{
    int p2 = pow_floor(g->n, 2), me = g->me, lo = 0, hi = p2;
    b_need_tmp(b, tmp + (size_t)a.cnt);
    fold_extras(b, g, p2, a, tmp);
    for (int mask = p2 / 2; mask >= 1; mask >>= 1) {
        int upper = (me & mask) != 0, mid = lo + mask, partner = me ^ mask;
        span keep = upper ? blocks(a, mid, hi, p2) : blocks(a, lo, mid, p2);
        span give = upper ? blocks(a, lo, mid, p2) : blocks(a, mid, hi, p2);
        b_round(b);
        if (me < p2) {
            b_send(b, g_rank(g, partner), recv_at(give.off), give.cnt);
            b_recv(b, g_rank(g, partner), tmp_at(tmp), keep.cnt);
        }
        b_round(b);
        if (me < p2 && upper) b_reduce(b, recv_at(keep.off), tmp_at(tmp), recv_at(keep.off), keep.cnt);
        else if (me < p2) b_reduce(b, recv_at(keep.off), recv_at(keep.off), tmp_at(tmp), keep.cnt);
        if (upper) lo = mid;
        else hi = mid;
    }
    for (int mask = 1; mask < p2; mask <<= 1) {
        int mine = me & ~(mask - 1), theirs = (me ^ mask) & ~(mask - 1);
        span have = blocks(a, mine, mine + mask, p2), get = blocks(a, theirs, theirs + mask, p2);
        b_round(b);
        if (me < p2) {
            b_send(b, g_rank(g, me ^ mask), recv_at(have.off), have.cnt);
            b_recv(b, g_rank(g, me ^ mask), recv_at(get.off), get.cnt);
        }
    }
    unfold_extras(b, g, p2, a);
}

/* Append round r of every sub-builder s to round r + s of b (skew one
 * round): while segment s sends, segment s-1 reduces what it received. */
static void merge_skewed(builder *b, const builder *sub, int nsub)
{
    int len = sub[0].nrounds;
    for (int r = 0; r < len + nsub - 1; r++) {
        b_round(b);
        int first = r - len + 1 > 0 ? r - len + 1 : 0, last = r < nsub - 1 ? r : nsub - 1;
        for (int s = first; s <= last; s++)
            for (int i = sub[s].round[r - s]; i < b_round_end(&sub[s], r - s); i++) b_push(b, sub[s].act[i]);
    }
}

/* Long vectors stream in segments of about seg_elems elements (at least
 * g->n each so that no block is empty), each a Rabenseifner allreduce of
 * its own, started one round after the previous one.  A segment lives for
 * `len` rounds, so segments s and s + len never overlap and share scratch. */
static void rsa_segmented(builder *b, const group *g, span a, size_t tmp, size_t seg_elems)
{
    long nseg = (long)(((size_t)a.cnt + seg_elems - 1) / seg_elems);
    if (nseg > a.cnt / g->n) nseg = a.cnt / g->n;
    if (nseg <= 1) {
        rsa_allreduce(b, g, a, tmp);
        return;
    }
    builder *sub = calloc((size_t)nseg, sizeof *sub);
    if (!sub) {
        if (!b->rc) b->rc = ovk__fail(OVK_ENOMEM, "nbc: %ld segment schedules", nseg);
        return;
    }
    int seg_max = (int)((a.cnt + nseg - 1) / nseg), len = 0;
    for (long s = 0; s < nseg && !b->rc; s++) {
        span part = blocks(a, (int)s, (int)s + 1, (int)nseg);
        size_t slot = len ? (size_t)(s % len) : 0;
        rsa_allreduce(&sub[s], g, part, tmp + slot * (size_t)seg_max);
        b->rc = sub[s].rc;
        len = sub[0].nrounds;
        b_need_tmp(b, tmp + (slot + 1) * (size_t)seg_max);
    }
    if (!b->rc) merge_skewed(b, sub, (int)nseg);
    for (long s = 0; s < nseg; s++) b_free(&sub[s]);
    free(sub);
}

/* ---- choosing and composing ------------------------------------------- */

/* The algorithm auto selection resolves to for this message. */
static ovk__nbc_alg choose(const ovk__nbc_params *prm, int nranks, int count, ovk_datatype type)
{
    if (prm->alg != OVK__NBC_AUTO) return prm->alg;
    size_t bytes = (size_t)count * ovk__type_size(type);
    return bytes >= prm->rsa_bytes && count >= nranks ? OVK__NBC_RSA : OVK__NBC_RD;
}

/* One flat (not node-aware) allreduce of span a over group g. */
static void flat_allreduce(builder *b, const ovk__nbc_params *prm, ovk__nbc_alg alg, const group *g,
                           span a, size_t seg_elems)
{
    if (alg == OVK__NBC_RSA && a.cnt < g->n) alg = OVK__NBC_RD; /* blocks would be empty */
    switch (alg) {
    case OVK__NBC_KRING: kring_allreduce(b, g, prm->k, a, 0); break;
    case OVK__NBC_KNOMIAL:
        knomial_reduce(b, g, prm->k, a, 0);
        knomial_bcast(b, g, prm->k, a);
        break;
    case OVK__NBC_RSA: rsa_segmented(b, g, a, 0, seg_elems); break;
    default: rd_allreduce(b, g, a, 0); break;
    }
}

/* Members of our node and the node leaders (lowest rank of each node), both
 * in ascending rank order. */
static int node_groups(const ovk__nbc_topo *t, int *member, group *node, int *leader, group *lead)
{
    int mine = t->node_of[t->rank];
    node->rank = member;
    node->n = lead->n = 0;
    lead->rank = leader;
    lead->me = -1;
    for (int r = 0; r < t->size; r++) {
        if (t->node_of[r] < 0 || t->node_of[r] > r || t->node_of[t->node_of[r]] != t->node_of[r])
            return ovk__fail(OVK_EINVAL, "nbc: bad node map at rank %d", r);
        if (t->node_of[r] == mine) {
            if (r == t->rank) node->me = node->n;
            member[node->n++] = r;
        }
        if (t->node_of[r] == r) {
            if (r == t->rank) lead->me = lead->n;
            leader[lead->n++] = r;
        }
    }
    return OVK_OK;
}

/* Node-aware: k-nomial reduce to the node leader, allreduce among leaders
 * with prm->inter, k-nomial broadcast from the leader. */
static int twolevel_allreduce(builder *b, const ovk__nbc_params *prm, const ovk__nbc_topo *t, span a,
                              size_t seg_elems)
{
    int rc = OVK_OK;
    int *member = malloc((size_t)t->size * sizeof *member), *leader = malloc((size_t)t->size * sizeof *leader);
    group node, lead;
    if (!member || !leader) {
        rc = ovk__fail(OVK_ENOMEM, "nbc: node map of %d ranks", t->size);
        goto cleanup;
    }
    rc = node_groups(t, member, &node, leader, &lead);
    if (rc) goto cleanup;
    knomial_reduce(b, &node, prm->k, a, 0);
    if (node.me == 0) flat_allreduce(b, prm, prm->inter, &lead, a, seg_elems);
    knomial_bcast(b, &node, prm->k, a);
cleanup:
    free(member);
    free(leader);
    return rc;
}

/* ---- finishing ---------------------------------------------------------- */

static int is_comm(const ovk__nbc_action *a) { return a->kind == OVK__NBC_SEND || a->kind == OVK__NBC_RECV; }

/* Move the builder's arrays into s, dropping empty rounds. */
static int b_finish(builder *b, ovk__nbc_sched *s)
{
    int rc = grow((void **)&b->round, &b->rcap, b->nrounds + 1, sizeof *b->round);
    if (rc) return rc;
    int kept = 0;
    for (int r = 0; r < b->nrounds; r++) {
        int start = b->round[r], end = b_round_end(b, r), ncomm = 0;
        if (start == end) continue;
        for (int i = start; i < end; i++) ncomm += is_comm(&b->act[i]);
        if (ncomm > s->max_comm) s->max_comm = ncomm;
        b->round[kept++] = start;
    }
    b->round[kept] = b->nact;
    s->act = b->act;
    s->nactions = b->nact;
    s->round = b->round;
    s->nrounds = kept;
    s->tmp_elems = b->tmp_elems;
    b->act = NULL;
    b->round = NULL;
    return OVK_OK;
}

static int check_params(const ovk__nbc_params *prm, const ovk__nbc_topo *t, int count)
{
    if (prm->k < OVK__NBC_K_MIN || prm->k > OVK__NBC_K_MAX)
        return ovk__fail(OVK_EINVAL, "nbc: radix %d not in [%d, %d]", prm->k, OVK__NBC_K_MIN, OVK__NBC_K_MAX);
    if (prm->alg >= OVK__NBC_NALGS || prm->inter == OVK__NBC_TWOLEVEL || prm->inter >= OVK__NBC_NALGS)
        return ovk__fail(OVK_EINVAL, "nbc: bad algorithm");
    if (t->size < 1 || t->rank < 0 || t->rank >= t->size || count < 0)
        return ovk__fail(OVK_EINVAL, "nbc: bad rank %d of %d or count %d", t->rank, t->size, count);
    return OVK_OK;
}

int ovk__nbc_build(const ovk__nbc_params *prm, const ovk__nbc_topo *topo, int count, ovk_datatype type,
                   ovk_op op, ovk__nbc_sched **out)
{
    builder b = {0};
    ovk__nbc_sched *s = NULL;
    int rc = check_params(prm, topo, count);
    if (rc) goto cleanup;
    s = calloc(1, sizeof *s);
    if (!s) {
        rc = ovk__fail(OVK_ENOMEM, "nbc: schedule");
        goto cleanup;
    }
    s->count = count;
    s->type = type;
    s->op = op;
    s->alg = choose(prm, topo->size, count, type);
    size_t seg_elems = prm->seg_bytes / ovk__type_size(type);
    if (seg_elems == 0) seg_elems = 1;
    group all = {NULL, topo->size, topo->rank};
    span whole = {0, count};
    b_round(&b); /* round 0: the accumulator starts as our contribution */
    b_copy(&b, recv_at(0), send_at(0), count);
    if (s->alg == OVK__NBC_TWOLEVEL) rc = twolevel_allreduce(&b, prm, topo, whole, seg_elems);
    else flat_allreduce(&b, prm, s->alg, &all, whole, seg_elems);
    if (rc) goto cleanup;
    rc = b.rc;
    if (rc) goto cleanup;
    rc = b_finish(&b, s);
cleanup:
    b_free(&b);
    if (rc) {
        ovk__nbc_sched_free(s);
        s = NULL;
    }
    *out = s;
    return rc;
}

void ovk__nbc_sched_free(ovk__nbc_sched *s)
{
    if (!s) return;
    free(s->act);
    free(s->round);
    free(s);
}

/* ---- the cache ---------------------------------------------------------- */

static atomic_long total_hits, total_misses;

void ovk__nbc_cache_totals(long *hits, long *misses)
{
    *hits = atomic_load(&total_hits);
    *misses = atomic_load(&total_misses);
}

static int same_key(const ovk__nbc_sched *s, int count, ovk_datatype type, ovk_op op)
{
    return s->count == count && s->type == type && s->op == op;
}

/* An empty slot, else the least recently used idle one (freed), else -1. */
static int cache_victim(ovk__nbc_cache *c)
{
    int victim = -1;
    for (int i = 0; i < OVK__NBC_CACHE_SIZE; i++) {
        ovk__nbc_sched *s = c->slot[i];
        if (!s) return i;
        if (s->refs == 0 && (victim < 0 || s->last_use < c->slot[victim]->last_use)) victim = i;
    }
    if (victim >= 0) {
        ovk__nbc_sched_free(c->slot[victim]);
        c->slot[victim] = NULL;
    }
    return victim;
}

int ovk__nbc_cache_get(ovk__nbc_cache *c, const ovk__nbc_params *prm, const ovk__nbc_topo *topo, int count,
                       ovk_datatype type, ovk_op op, ovk__nbc_sched **out)
{
    for (int i = 0; i < OVK__NBC_CACHE_SIZE; i++) {
        ovk__nbc_sched *s = c->slot[i];
        if (s && same_key(s, count, type, op)) {
            s->refs++;
            s->last_use = ++c->clock;
            c->hits++;
            atomic_fetch_add(&total_hits, 1);
            *out = s;
            return OVK_OK;
        }
    }
    c->misses++;
    atomic_fetch_add(&total_misses, 1);
    ovk__nbc_sched *s = NULL;
    int rc = ovk__nbc_build(prm, topo, count, type, op, &s);
    if (rc) return rc;
    int slot = cache_victim(c);
    s->cached = slot >= 0; /* every slot busy: used once, freed by put */
    if (slot >= 0) c->slot[slot] = s;
    s->refs = 1;
    s->last_use = ++c->clock;
    *out = s;
    return OVK_OK;
}

void ovk__nbc_cache_put(ovk__nbc_cache *c, ovk__nbc_sched *s)
{
    (void)c;
    if (--s->refs == 0 && !s->cached) ovk__nbc_sched_free(s);
}

void ovk__nbc_cache_clear(ovk__nbc_cache *c)
{
    for (int i = 0; i < OVK__NBC_CACHE_SIZE; i++) {
        ovk__nbc_sched_free(c->slot[i]);
        c->slot[i] = NULL;
    }
}

/* ---- the executor ------------------------------------------------------- */

static void *ref_ptr(const ovk__nbc_exec *ex, ovk__nbc_ref r)
{
    size_t elem = ovk__type_size(ex->s->type);
    char *base = r.buf == OVK__NBC_BUF_SEND ? (char *)(uintptr_t)ex->sendbuf
                 : r.buf == OVK__NBC_BUF_RECV ? (char *)ex->recvbuf
                                              : (char *)ex->tmp;
    return base + r.off * elem;
}

static MPI_Datatype mpi_type(ovk_datatype t) { return t == OVK_INT64 ? MPI_INT64_T : MPI_DOUBLE; }

static int post_comm(ovk__nbc_exec *ex, const ovk__nbc_action *a)
{
    MPI_Datatype dt = mpi_type(ex->s->type);
    MPI_Request *req = &ex->reqs[ex->nreq];
    int rc = OVK_OK;
    if (a->kind == OVK__NBC_SEND)
        rc = ovk__mpi(MPI_Isend(ref_ptr(ex, a->src), a->count, dt, a->peer, ex->tag, ex->comm, req), "MPI_Isend");
    else
        rc = ovk__mpi(MPI_Irecv(ref_ptr(ex, a->dst), a->count, dt, a->peer, ex->tag, ex->comm, req), "MPI_Irecv");
    if (rc) return rc;
    ex->nreq++;
    return OVK_OK;
}

static void run_local(ovk__nbc_exec *ex, const ovk__nbc_action *a)
{
    void *dst = ref_ptr(ex, a->dst);
    const void *src = ref_ptr(ex, a->src);
    size_t elem = ovk__type_size(ex->s->type);
    if (a->kind == OVK__NBC_COPY) {
        if (dst != src) memcpy(dst, src, (size_t)a->count * elem); /* in place: nothing to copy */
        return;
    }
    ovk__reduce_local(ex->s->type, ex->s->op, dst, src, ref_ptr(ex, a->src2), a->count);
}

/* Start the current round: post its messages, then run its local actions
 * (which overlap them). */
static int post_round(ovk__nbc_exec *ex)
{
    const ovk__nbc_sched *s = ex->s;
    int first = s->round[ex->round], end = s->round[ex->round + 1];
    ex->nreq = 0;
    for (int i = first; i < end; i++) {
        if (!is_comm(&s->act[i])) continue;
        int rc = post_comm(ex, &s->act[i]);
        if (rc) return rc;
    }
    for (int i = first; i < end; i++)
        if (!is_comm(&s->act[i])) run_local(ex, &s->act[i]);
    ex->posted = 1;
    return OVK_OK;
}

/* The posted round's requests tested: *finished when they all completed
 * (then the executor moves to the next round). */
static int test_round(ovk__nbc_exec *ex, int *finished, int *advanced)
{
    int rc = OVK_OK;
    *finished = 1;
    if (ex->nreq) rc = ovk__mpi(MPI_Testall(ex->nreq, ex->reqs, finished, MPI_STATUSES_IGNORE), "MPI_Testall");
    if (rc || !*finished) return rc;
    ex->posted = 0;
    ex->nreq = 0;
    ex->round++;
    *advanced = 1;
    return OVK_OK;
}

int ovk__nbc_exec_progress(ovk__nbc_exec *ex, int *done, int *advanced)
{
    *done = 0;
    for (;;) {
        if (ex->posted) {
            int finished = 0;
            int rc = test_round(ex, &finished, advanced);
            if (rc || !finished) return rc;
        }
        if (ex->round == ex->s->nrounds) {
            *done = 1;
            return OVK_OK;
        }
        int rc = post_round(ex);
        if (rc) return rc;
    }
}

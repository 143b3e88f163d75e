/* Task lists of the "offload" backend (offload.h): recursive doubling (the
 * seed's Fig. 1) and k-nomial reduce + broadcast (Fig. 2), over all ranks
 * ("Flat") or node-local k-nomial reduce to a leader, the algorithm among
 * leaders, node-local broadcast ("Two-Level").
 *
 * Builders thread a value through the phases: `val` names the slot holding
 * the current partial result and the task that produces it (-1: the input,
 * ready at post).  Every receive gets a fresh slot, so a slot is written by
 * one receive or by calcs of the same value only; a calc that overwrites a
 * slot waits for the send that reads it.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "offload_tasks.h"

/* Message ids: phase (two-level step) times 64 plus the step in the phase. */
enum { PHASE_INTRA_REDUCE = 0, PHASE_INTER = 1, PHASE_INTRA_BCAST = 2, PHASE_STRIDE = 64 };
enum { STEP_FOLD = 0, STEP_UNFOLD = 1, STEP_RD0 = 2, STEP_KN_REDUCE = 0, STEP_KN_BCAST = 1 };

/* A k-nomial node has at most (k-1) children per level, 31 levels. */
#define MAX_CHILDREN ((OVK__OFF_K_MAX - 1) * 31)

typedef struct val {
    int slot, task;
} val;

/* The ranks of one phase: member i is rank[i]; me is our index. */
typedef struct group {
    const int *rank;
    int n, me;
} group;

typedef struct builder {
    ovk__off_list *l;
    int rc; /* first failure; later calls do nothing */
} builder;

static int tag_of(int phase, int step) { return phase * PHASE_STRIDE + step; }

/* ---- appending tasks ------------------------------------------------------ */

static int push(builder *b, ovk__off_task t, val a, val c)
{
    ovk__off_list *l = b->l;
    if (b->rc) return -1;
    if (l->ntasks == l->cap) {
        int ncap = l->cap ? 2 * l->cap : 16;
        ovk__off_task *p = realloc(l->task, (size_t)ncap * sizeof *p);
        if (!p) {
            b->rc = ovk__fail(OVK_ENOMEM, "offload: task list of %d tasks", ncap);
            return -1;
        }
        l->task = p;
        l->cap = ncap;
    }
    if (a.task >= 0) t.pred[t.npred++] = a.task;
    if (c.task >= 0 && c.task != a.task) t.pred[t.npred++] = c.task;
    l->task[l->ntasks] = t;
    return l->ntasks++;
}

static const val NONE = {0, -1};

/* Send v to peer once v is ready; returns the task. */
static int t_send(builder *b, int peer, int tag, val v)
{
    return push(b, (ovk__off_task){.kind = OVK__OFF_SEND, .peer = peer, .tag = tag, .slot = v.slot}, v, NONE);
}

/* Receive from peer into a fresh slot, posted with the list. */
static val t_recv(builder *b, int peer, int tag)
{
    int slot = b->l->nslots++;
    int t = push(b, (ovk__off_task){.kind = OVK__OFF_RECV, .peer = peer, .tag = tag, .slot = slot}, NONE, NONE);
    return (val){slot, t};
}

/* first = first op second, in first's slot, once both are ready and the
 * task `after` (a send reading first's slot, or -1) has completed. */
static val t_calc(builder *b, val first, val second, int after)
{
    ovk__off_task t = {.kind = OVK__OFF_CALC, .slot = first.slot, .src = second.slot};
    val dep = after >= 0 ? (val){first.slot, after} : first;
    return (val){first.slot, push(b, t, dep, second)};
}

/* ---- groups --------------------------------------------------------------- */

static int g_rank(const group *g, int i) { return g->rank ? g->rank[i] : i; }

static int pow2_floor(int n)
{
    int p = 1;
    while (p <= n / 2) p *= 2;
    return p;
}

/* ---- recursive doubling (Fig. 1) -------------------------------------------- */

/* With p2 the largest power of two <= n: member i >= p2 hands its value to
 * proxy i - p2 and gets the result back; the proxy first combines
 * x_proxy op x_extra.  Step s: exchange with me ^ 2^s, then the lower
 * member's value op the upper's, computed by both partners from the same
 * operands in the same order (the lower value is in the destination: our
 * accumulator when we are lower, the received slot when we are upper). */
static val rd_phase(builder *b, const group *g, int phase, val in)
{
    int p2 = pow2_floor(g->n), me = g->me;
    val cur = in;
    if (me >= p2) {
        t_send(b, g_rank(g, me - p2), tag_of(phase, STEP_FOLD), cur);
        return t_recv(b, g_rank(g, me - p2), tag_of(phase, STEP_UNFOLD));
    }
    if (me + p2 < g->n) cur = t_calc(b, cur, t_recv(b, g_rank(g, me + p2), tag_of(phase, STEP_FOLD)), -1);
    for (int mask = 1, s = 0; mask < p2; mask <<= 1, s++) {
        int partner = me ^ mask, tag = tag_of(phase, STEP_RD0 + s);
        int sent = t_send(b, g_rank(g, partner), tag, cur);
        val got = t_recv(b, g_rank(g, partner), tag);
        cur = me < partner ? t_calc(b, cur, got, sent) : t_calc(b, got, (val){cur.slot, sent}, -1);
    }
    if (me + p2 < g->n) t_send(b, g_rank(g, me + p2), tag_of(phase, STEP_UNFOLD), cur);
    return cur;
}

/* ---- k-nomial trees (Fig. 2) ------------------------------------------------ */

/* Reduce to member 0: x_me op S_c1 op S_c2 ... in ascending child order
 * (each S_c the value of a contiguous range of members), then to the
 * parent.  The value is meaningful at member 0 only. */
static val knomial_reduce(builder *b, const group *g, int k, int phase, val in)
{
    int child[MAX_CHILDREN], parent;
    int nchild = ovk__knomial_family(g->me, g->n, k, child, &parent);
    val cur = in;
    for (int i = 0; i < nchild; i++)
        cur = t_calc(b, cur, t_recv(b, g_rank(g, child[i]), tag_of(phase, STEP_KN_REDUCE)), -1);
    if (parent >= 0) t_send(b, g_rank(g, parent), tag_of(phase, STEP_KN_REDUCE), cur);
    return cur;
}

/* Broadcast member 0's value down the same tree, largest subtrees first. */
static val knomial_bcast(builder *b, const group *g, int k, int phase, val in)
{
    int child[MAX_CHILDREN], parent;
    int nchild = ovk__knomial_family(g->me, g->n, k, child, &parent);
    val cur = parent >= 0 ? t_recv(b, g_rank(g, parent), tag_of(phase, STEP_KN_BCAST)) : in;
    for (int i = nchild - 1; i >= 0; i--) t_send(b, g_rank(g, child[i]), tag_of(phase, STEP_KN_BCAST), cur);
    return cur;
}

static val allreduce_phase(builder *b, const group *g, ovk__off_alg alg, int k, int phase, val in)
{
    if (alg == OVK__OFF_RD) return rd_phase(b, g, phase, in);
    return knomial_bcast(b, g, k, phase, knomial_reduce(b, g, k, phase, in));
}

/* ---- schemes ---------------------------------------------------------------- */

/* members[] = the ranks r with pick(r) (ascending); returns how many, and
 * our index in *me (-1 when we are not one). */
static int collect(const ovk__off_topo *t, int node, int leaders, int *members, int *me)
{
    int n = 0;
    *me = -1;
    for (int r = 0; r < t->size; r++) {
        int in = leaders ? t->node_of[r] == r : t->node_of[r] == node;
        if (!in) continue;
        if (r == t->rank) *me = n;
        members[n++] = r;
    }
    return n;
}

/* Node-local k-nomial reduce to the leader (lowest rank), the algorithm
 * among leaders, node-local k-nomial broadcast. */
static val twolevel(builder *b, ovk__off_alg alg, int k, const ovk__off_topo *t, int *members)
{
    group node = {members, 0, 0};
    node.n = collect(t, t->node_of[t->rank], 0, members, &node.me);
    val v = knomial_reduce(b, &node, k, PHASE_INTRA_REDUCE, (val){0, -1});
    if (node.me == 0) {
        int *leaders = members + t->size;
        group lead = {leaders, 0, 0};
        lead.n = collect(t, 0, 1, leaders, &lead.me);
        v = allreduce_phase(b, &lead, alg, k, PHASE_INTER, v);
    }
    return knomial_bcast(b, &node, k, PHASE_INTRA_BCAST, v);
}

/* Count successors and sinks. */
static void finish(ovk__off_list *l)
{
    l->nsinks = 0;
    for (int i = 0; i < l->ntasks; i++) l->task[i].nsucc = 0;
    for (int i = 0; i < l->ntasks; i++)
        for (int p = 0; p < l->task[i].npred; p++) l->task[l->task[i].pred[p]].nsucc++;
    for (int i = 0; i < l->ntasks; i++) l->nsinks += l->task[i].nsucc == 0;
}

int ovk__off_build(ovk__off_alg alg, ovk__off_scheme scheme, int k, const ovk__off_topo *topo,
                   ovk__off_list *out)
{
    builder b = {out, OVK_OK};
    int *members = NULL;
    memset(out, 0, sizeof *out);
    out->nslots = 1;
    if (scheme == OVK__OFF_TWOLEVEL) {
        if (!(members = malloc(2 * (size_t)topo->size * sizeof *members)))
            return ovk__fail(OVK_ENOMEM, "offload: node lists of %d ranks", topo->size);
        out->result = twolevel(&b, alg, k, topo, members).slot;
        free(members);
    } else {
        group world = {NULL, topo->size, topo->rank};
        out->result = allreduce_phase(&b, &world, alg, k, PHASE_INTER, (val){0, -1}).slot;
    }
    if (b.rc) {
        ovk__off_list_free(out);
        return b.rc;
    }
    finish(out);
    return OVK_OK;
}

void ovk__off_list_free(ovk__off_list *l)
{
    free(l->task);
    memset(l, 0, sizeof *l);
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

int ovk__off_peers(const ovk__off_list *l, int *peers)
{
    int n = 0;
    for (int i = 0; i < l->ntasks; i++) {
        if (l->task[i].kind == OVK__OFF_CALC) continue;
        int seen = 0;
        for (int j = 0; j < n && !seen; j++) seen = peers[j] == l->task[i].peer;
        if (!seen) peers[n++] = l->task[i].peer;
    }
    qsort(peers, (size_t)n, sizeof *peers, cmp_int);
    return n;
}

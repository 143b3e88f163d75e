/* Unit tests of the nbc schedule builders, without MPI traffic.
 *
 * A simulator runs the schedules of all P ranks in one process under the
 * strictest MPI semantics: a send completes only when the matching receive
 * is posted (as MPI_Ssend), messages between two ranks match in posting
 * order, and the data moves at match time (so a local action that touched
 * a buffer of a message of its own round would be caught).  Checked for
 * every algorithm, rank count 1..MAX_P, radix, node layout, count, type and
 * op: no deadlock, no size mismatch, the right result, and bitwise the same
 * result on every rank.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "backends/nbc_sched.h"

#define MAX_P 17
#define SUM_RTOL 1e-12

/* ---- the simulator ------------------------------------------------------ */

typedef struct msg {
    void *buf;
    int count;
} msg;

typedef struct queue {
    msg *m;
    int head, tail, cap;
} queue;

typedef struct simrank {
    ovk__nbc_sched *s;
    char *orig, *send, *recv, *tmp; /* orig: the inputs, kept for the reference */
    int round, posted, pending;
} simrank;

typedef struct sim {
    int p;
    size_t elem;
    simrank r[MAX_P];
    queue sendq[MAX_P][MAX_P]; /* [src][dst] */
    queue recvq[MAX_P][MAX_P]; /* [dst][src] */
} sim;

static void q_push(queue *q, msg m)
{
    if (q->tail == q->cap) {
        q->cap = q->cap ? 2 * q->cap : 8;
        q->m = realloc(q->m, (size_t)q->cap * sizeof *q->m);
        assert_non_null(q->m);
    }
    q->m[q->tail++] = m;
}

static char *ref_ptr(const sim *S, const simrank *R, ovk__nbc_ref ref)
{
    char *base = ref.buf == OVK__NBC_BUF_SEND ? R->send : ref.buf == OVK__NBC_BUF_RECV ? R->recv : R->tmp;
    return base + ref.off * S->elem;
}

/* Post the current round of rank i: messages first, then local actions. */
static void sim_post(sim *S, int i)
{
    simrank *R = &S->r[i];
    const ovk__nbc_sched *s = R->s;
    for (int a = s->round[R->round]; a < s->round[R->round + 1]; a++) {
        const ovk__nbc_action *x = &s->act[a];
        assert_true(x->peer != i || (x->kind != OVK__NBC_SEND && x->kind != OVK__NBC_RECV));
        if (x->kind == OVK__NBC_SEND) q_push(&S->sendq[i][x->peer], (msg){ref_ptr(S, R, x->src), x->count});
        if (x->kind == OVK__NBC_RECV) q_push(&S->recvq[i][x->peer], (msg){ref_ptr(S, R, x->dst), x->count});
        if (x->kind == OVK__NBC_SEND || x->kind == OVK__NBC_RECV) R->pending++;
    }
    for (int a = s->round[R->round]; a < s->round[R->round + 1]; a++) {
        const ovk__nbc_action *x = &s->act[a];
        char *dst = ref_ptr(S, R, x->dst), *src = ref_ptr(S, R, x->src);
        if (x->kind == OVK__NBC_COPY && dst != src) memcpy(dst, src, (size_t)x->count * S->elem);
        if (x->kind == OVK__NBC_REDUCE)
            ovk__reduce_local(s->type, s->op, dst, src, ref_ptr(S, R, x->src2), x->count);
    }
    R->posted = 1;
}

/* Match queued sends and receives; returns the number matched. */
static int sim_match(sim *S)
{
    int matched = 0;
    for (int src = 0; src < S->p; src++)
        for (int dst = 0; dst < S->p; dst++) {
            queue *sq = &S->sendq[src][dst], *rq = &S->recvq[dst][src];
            while (sq->head < sq->tail && rq->head < rq->tail) {
                msg s = sq->m[sq->head++], r = rq->m[rq->head++];
                assert_int_equal(s.count, r.count);
                memcpy(r.buf, s.buf, (size_t)s.count * S->elem);
                S->r[src].pending--;
                S->r[dst].pending--;
                matched++;
            }
        }
    return matched;
}

/* Advance rank i as far as it goes; returns 1 if anything happened. */
static int sim_advance(sim *S, int i)
{
    simrank *R = &S->r[i];
    int moved = 0;
    for (;;) {
        if (R->posted) {
            if (R->pending) return moved;
            R->posted = 0;
            R->round++;
            moved = 1;
        }
        if (R->round == R->s->nrounds) return moved;
        sim_post(S, i);
        moved = 1;
    }
}

static void sim_run(sim *S)
{
    for (;;) {
        int moved = sim_match(S), finished = 1;
        for (int i = 0; i < S->p; i++) {
            moved |= sim_advance(S, i);
            finished &= S->r[i].round == S->r[i].s->nrounds;
        }
        if (finished) break;
        if (!moved) fail_msg("deadlock");
    }
    for (int src = 0; src < S->p; src++)
        for (int dst = 0; dst < S->p; dst++) {
            assert_int_equal(S->sendq[src][dst].head, S->sendq[src][dst].tail);
            assert_int_equal(S->recvq[src][dst].head, S->recvq[src][dst].tail);
        }
}

static void sim_free(sim *S)
{
    for (int i = 0; i < S->p; i++) {
        ovk__nbc_sched_free(S->r[i].s);
        if (S->r[i].recv != S->r[i].send) free(S->r[i].recv);
        free(S->r[i].send);
        free(S->r[i].tmp);
        free(S->r[i].orig);
    }
    for (int a = 0; a < MAX_P; a++)
        for (int b = 0; b < MAX_P; b++) {
            free(S->sendq[a][b].m);
            free(S->recvq[a][b].m);
        }
    free(S);
}

/* ---- inputs and references ---------------------------------------------- */

static uint64_t rng_state = 88172645463325252ull;

static uint64_t rng(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* Values of mixed sign and magnitude, so that summation order shows. */
static void fill(void *buf, ovk_datatype t, int n)
{
    for (int i = 0; i < n; i++) {
        if (t == OVK_INT64) {
            ((int64_t *)buf)[i] = (int64_t)rng();
        } else {
            double mant = (double)(rng() >> 11) / 9007199254740992.0 - 0.5;
            ((double *)buf)[i] = mant * (double)(1u << (rng() % 20));
        }
    }
}

static void check_result(const sim *S, ovk_datatype t, ovk_op op, int n, const char *what)
{
    for (int j = 0; j < n; j++) {
        double ref = 0, abs_sum = 0;
        int64_t iref = 0;
        for (int i = 0; i < S->p; i++) {
            double d = ((const double *)S->r[i].orig)[j];
            int64_t v = ((const int64_t *)S->r[i].orig)[j];
            if (t == OVK_DOUBLE) {
                ref = i == 0 ? d : op == OVK_SUM ? ref + d : op == OVK_MAX ? (d > ref ? d : ref) : (d < ref ? d : ref);
                abs_sum += d < 0 ? -d : d;
            } else {
                iref = i == 0 ? v
                       : op == OVK_SUM ? (int64_t)((uint64_t)iref + (uint64_t)v)
                       : op == OVK_MAX ? (v > iref ? v : iref)
                                       : (v < iref ? v : iref);
            }
        }
        for (int i = 0; i < S->p; i++) {
            const char *mine = S->r[i].recv + (size_t)j * S->elem, *first = S->r[0].recv + (size_t)j * S->elem;
            if (memcmp(mine, first, S->elem) != 0) fail_msg("%s: rank %d differs from rank 0 at %d", what, i, j);
        }
        if (t == OVK_INT64 && ((const int64_t *)S->r[0].recv)[j] != iref) fail_msg("%s: wrong at %d", what, j);
        double got = ((const double *)S->r[0].recv)[j];
        double tol = op == OVK_SUM ? SUM_RTOL * S->p * abs_sum : 0.0;
        if (t == OVK_DOUBLE && !(got - ref <= tol && ref - got <= tol))
            fail_msg("%s: at %d got %.17g want %.17g", what, j, got, ref);
    }
}

/* Build and simulate one allreduce on p ranks; node_of may be NULL. */
static void run_case(const ovk__nbc_params *prm, int p, const int *node_of, int count, ovk_datatype t,
                     ovk_op op, int in_place)
{
    char what[160];
    snprintf(what, sizeof what, "alg=%s k=%d inter=%s p=%d count=%d type=%d op=%d inplace=%d",
             ovk__nbc_alg_names[prm->alg], prm->k, ovk__nbc_alg_names[prm->inter], p, count, (int)t, (int)op,
             in_place);
    int ident[MAX_P];
    for (int i = 0; i < p; i++) ident[i] = i;
    sim *S = calloc(1, sizeof *S);
    assert_non_null(S);
    S->p = p;
    S->elem = ovk__type_size(t);
    size_t bytes = (size_t)count * S->elem + 1;
    for (int i = 0; i < p; i++) {
        ovk__nbc_topo topo = {p, i, (int *)(node_of ? node_of : ident)};
        simrank *R = &S->r[i];
        assert_int_equal(ovk__nbc_build(prm, &topo, count, t, op, &R->s), OVK_OK);
        R->orig = malloc(bytes);
        R->send = malloc(bytes);
        R->recv = in_place ? R->send : malloc(bytes);
        R->tmp = malloc(R->s->tmp_elems * S->elem + 1);
        fill(R->orig, t, count);
        memcpy(R->send, R->orig, bytes - 1);
    }
    sim_run(S);
    check_result(S, t, op, count, what);
    sim_free(S);
}

static const int counts[] = {1, 2, 3, 7, 100, 1000};
#define NCOUNTS ((int)(sizeof counts / sizeof counts[0]))

/* All rank counts, counts, types and ops for one parameter set. */
static void sweep(const ovk__nbc_params *prm, int pmax, const int *(*nodes)(int p))
{
    for (int p = 1; p <= pmax; p++)
        for (int c = 0; c < NCOUNTS; c++)
            for (int t = 0; t < 2; t++)
                for (int op = 0; op < 3; op++)
                    run_case(prm, p, nodes ? nodes(p) : NULL, counts[c], (ovk_datatype)t, (ovk_op)op,
                             (c + op) % 2);
}

static ovk__nbc_params params(ovk__nbc_alg alg, int k)
{
    return (ovk__nbc_params){.alg = alg, .k = k, .inter = OVK__NBC_RD, .seg_bytes = 1 << 20, .rsa_bytes = 4096};
}

/* ---- tests ---------------------------------------------------------------- */

static void test_rd(void **st)
{
    (void)st;
    ovk__nbc_params prm = params(OVK__NBC_RD, 2);
    sweep(&prm, MAX_P, NULL);
}

static void test_kring(void **st)
{
    (void)st;
    for (int k = OVK__NBC_K_MIN; k <= OVK__NBC_K_MAX; k++) {
        ovk__nbc_params prm = params(OVK__NBC_KRING, k);
        sweep(&prm, MAX_P, NULL);
    }
}

static void test_knomial(void **st)
{
    (void)st;
    for (int k = OVK__NBC_K_MIN; k <= OVK__NBC_K_MAX; k++) {
        ovk__nbc_params prm = params(OVK__NBC_KNOMIAL, k);
        sweep(&prm, MAX_P, NULL);
    }
}

static void test_rsa(void **st)
{
    (void)st;
    ovk__nbc_params prm = params(OVK__NBC_RSA, 2);
    sweep(&prm, MAX_P, NULL);
    prm.seg_bytes = 1024; /* 1000 doubles: 8 segments, pipelined */
    sweep(&prm, MAX_P, NULL);
    prm.alg = OVK__NBC_AUTO;
    sweep(&prm, 6, NULL);
}

static int node_map[MAX_P];

static const int *nodes_of_3(int p)
{
    for (int r = 0; r < p; r++) node_map[r] = r / 3 * 3;
    return node_map;
}

/* Round-robin placement: even ranks on one node, odd ranks on another. */
static const int *nodes_alternating(int p)
{
    for (int r = 0; r < p; r++) node_map[r] = r % 2;
    return node_map;
}

static const int *nodes_of_1(int p)
{
    for (int r = 0; r < p; r++) node_map[r] = r;
    return node_map;
}

static void test_twolevel(void **st)
{
    (void)st;
    const ovk__nbc_alg inter[] = {OVK__NBC_RD, OVK__NBC_KRING, OVK__NBC_KNOMIAL, OVK__NBC_RSA};
    for (int i = 0; i < 4; i++) {
        ovk__nbc_params prm = params(OVK__NBC_TWOLEVEL, 3);
        prm.inter = inter[i];
        prm.seg_bytes = 1024;
        sweep(&prm, 13, nodes_of_3);
        sweep(&prm, 9, nodes_alternating);
        sweep(&prm, 9, nodes_of_1);
    }
}

/* The cache counts misses once per key and hits after that; schedules in
 * use survive eviction. */
static void test_cache(void **st)
{
    (void)st;
    ovk__nbc_cache c = {0};
    ovk__nbc_params prm = params(OVK__NBC_RD, 2);
    ovk__nbc_topo topo = {4, 1, NULL};
    ovk__nbc_sched *a = NULL, *b = NULL, *held = NULL;
    assert_int_equal(ovk__nbc_cache_get(&c, &prm, &topo, 10, OVK_DOUBLE, OVK_SUM, &a), OVK_OK);
    assert_int_equal(ovk__nbc_cache_get(&c, &prm, &topo, 10, OVK_DOUBLE, OVK_SUM, &b), OVK_OK);
    assert_ptr_equal(a, b);
    assert_int_equal(c.hits, 1);
    assert_int_equal(c.misses, 1);
    ovk__nbc_cache_put(&c, a);
    ovk__nbc_cache_put(&c, b);
    assert_int_equal(ovk__nbc_cache_get(&c, &prm, &topo, 10, OVK_DOUBLE, OVK_MAX, &held), OVK_OK);
    for (int n = 1; n <= 3 * OVK__NBC_CACHE_SIZE; n++) {
        assert_int_equal(ovk__nbc_cache_get(&c, &prm, &topo, 100 + n, OVK_INT64, OVK_SUM, &a), OVK_OK);
        ovk__nbc_cache_put(&c, a);
    }
    assert_int_equal(held->count, 10); /* still valid: it was in use */
    assert_int_equal(held->op, OVK_MAX);
    ovk__nbc_cache_put(&c, held);
    assert_int_equal(c.misses, 2 + 3 * OVK__NBC_CACHE_SIZE);
    ovk__nbc_cache_clear(&c);
}

static void test_bad_params(void **st)
{
    (void)st;
    ovk__nbc_sched *s = NULL;
    ovk__nbc_topo topo = {4, 0, NULL};
    ovk__nbc_params prm = params(OVK__NBC_KRING, 1);
    assert_int_equal(ovk__nbc_build(&prm, &topo, 10, OVK_DOUBLE, OVK_SUM, &s), OVK_EINVAL);
    prm.k = 9;
    assert_int_equal(ovk__nbc_build(&prm, &topo, 10, OVK_DOUBLE, OVK_SUM, &s), OVK_EINVAL);
    prm.k = 2;
    topo.rank = 4;
    assert_int_equal(ovk__nbc_build(&prm, &topo, 10, OVK_DOUBLE, OVK_SUM, &s), OVK_EINVAL);
    assert_null(s);
}

/* Recursive doubling on 4 ranks: 1 copy round, 2 steps of (exchange,
 * combine) and nothing else; the combine puts the lower block first. */
static void test_rd_shape(void **st)
{
    (void)st;
    ovk__nbc_params prm = params(OVK__NBC_RD, 2);
    ovk__nbc_topo topo = {4, 3, NULL};
    ovk__nbc_sched *s = NULL;
    assert_int_equal(ovk__nbc_build(&prm, &topo, 5, OVK_DOUBLE, OVK_SUM, &s), OVK_OK);
    assert_int_equal(s->nrounds, 5);
    assert_int_equal(s->max_comm, 2);
    const ovk__nbc_action *x = &s->act[s->round[2]];
    assert_int_equal(x->kind, OVK__NBC_REDUCE);
    assert_int_equal(x->src.buf, OVK__NBC_BUF_TMP); /* partner 2 < 3: its value first */
    ovk__nbc_sched_free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rd_shape), cmocka_unit_test(test_bad_params), cmocka_unit_test(test_cache),
        cmocka_unit_test(test_rd),       cmocka_unit_test(test_kring),      cmocka_unit_test(test_knomial),
        cmocka_unit_test(test_rsa),      cmocka_unit_test(test_twolevel),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Backend "nbc": allreduce as LibNBC-style schedules of point-to-point
 * rounds (nbc_sched.c), progressed by test/wait, by the library's progress
 * hook, or by an optional progress thread.
 *
 * Per operation: a pooled nbc_op (executor state, MPI requests, scratch)
 * whose pointer is kept in the request's impl scratch.  Outstanding
 * operations form a list in start order; every test/wait/progress call
 * makes one pass over it, so operations complete in any order.  Messages of
 * one operation carry tag seq % tag_range, seq counting the operations the
 * backend started; all ranks start them in the same order, so tags agree.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "nbc_sched.h"

#define NAME "nbc"
/* Default radix/degree, rsa segment and auto-selection threshold (bytes). */
#define DEFAULT_K 4
#define DEFAULT_SEG_BYTES (1024L * 1024)
#define DEFAULT_RSA_BYTES (128L * 1024)
#define MIN_SEG_BYTES 1024L
#define MAX_BYTES_OPT (1L << 30)
/* Progress thread back-off while operations are outstanding (ns). */
#define BACKOFF_MIN_NS 1000L
#define BACKOFF_MAX_NS 100000L
#define NS_PER_S 1000000000L

static const char *const inter_names[] = {"rd", "kring", "knomial", "rsa", NULL};
static const ovk__nbc_alg inter_algs[] = {OVK__NBC_RD, OVK__NBC_KRING, OVK__NBC_KNOMIAL, OVK__NBC_RSA};

typedef struct nbc_op {
    ovk__nbc_exec ex;
    ovk__nbc_sched *sched;
    struct nbc_op *prev, *next; /* outstanding list, or free list (next) */
    unsigned long long seq;
    int done;
    size_t tmp_bytes; /* capacity of ex.tmp */
    int req_cap;      /* capacity of ex.reqs */
} nbc_op;

typedef struct nbc_state {
    MPI_Comm comm; /* the generic layer's private communicator (not ours to free) */
    ovk__nbc_params prm;
    ovk__nbc_topo topo;
    ovk__nbc_cache cache;
    long tag_range;
    unsigned long long seq;
    nbc_op *head, *tail; /* outstanding, oldest first */
    nbc_op *free_ops;
    /* progress thread */
    int threaded, stop;
    pthread_t thread;
    pthread_mutex_t mutex;
    pthread_cond_t work;
    int sync_init; /* mutex and condition initialised */
    /* nbc_wait's copy of every posted request (without the thread) */
    MPI_Request *pending;
    int pending_cap;
} nbc_state;

/* What lives in the request's impl scratch. */
typedef struct nbc_req {
    nbc_op *op; /* NULL: complete without messages (count 0, one rank) */
} nbc_req;

_Static_assert(sizeof(nbc_req) <= OVK__REQ_IMPL_BYTES, "nbc_req must fit the request scratch");

/* ---- locking (only with the progress thread) --------------------------- */

static void lock(nbc_state *s)
{
    if (s->threaded) pthread_mutex_lock(&s->mutex);
}

static void unlock(nbc_state *s)
{
    if (s->threaded) pthread_mutex_unlock(&s->mutex);
}

/* ---- the operation pool ------------------------------------------------- */

static void op_free(nbc_op *op)
{
    free(op->ex.tmp);
    free(op->ex.reqs);
    free(op);
}

/* Grow op's scratch and request array to what sched needs. */
static int op_fit(nbc_op *op, const ovk__nbc_sched *sched)
{
    size_t bytes = sched->tmp_elems * ovk__type_size(sched->type);
    if (bytes > op->tmp_bytes) {
        void *t = realloc(op->ex.tmp, bytes);
        if (!t) return ovk__fail(OVK_ENOMEM, "nbc: %zu bytes of scratch", bytes);
        op->ex.tmp = t;
        op->tmp_bytes = bytes;
    }
    if (sched->max_comm > op->req_cap) {
        MPI_Request *r = realloc(op->ex.reqs, (size_t)sched->max_comm * sizeof *r);
        if (!r) return ovk__fail(OVK_ENOMEM, "nbc: %d requests", sched->max_comm);
        op->ex.reqs = r;
        op->req_cap = sched->max_comm;
    }
    return OVK_OK;
}

static int op_acquire(nbc_state *s, const ovk__nbc_sched *sched, nbc_op **out)
{
    nbc_op *op = s->free_ops;
    if (op) s->free_ops = op->next;
    else if (!(op = calloc(1, sizeof *op))) return ovk__fail(OVK_ENOMEM, "nbc: operation");
    int rc = op_fit(op, sched);
    if (rc) {
        op->next = s->free_ops;
        s->free_ops = op;
        return rc;
    }
    *out = op;
    return OVK_OK;
}

static void op_release(nbc_state *s, nbc_op *op)
{
    ovk__nbc_cache_put(&s->cache, op->sched);
    op->sched = NULL;
    op->next = s->free_ops;
    s->free_ops = op;
}

/* ---- the outstanding list ----------------------------------------------- */

static void list_append(nbc_state *s, nbc_op *op)
{
    op->prev = s->tail;
    op->next = NULL;
    if (s->tail) s->tail->next = op;
    else s->head = op;
    s->tail = op;
}

static void list_remove(nbc_state *s, nbc_op *op)
{
    if (op->prev) op->prev->next = op->next;
    else s->head = op->next;
    if (op->next) op->next->prev = op->prev;
    else s->tail = op->prev;
    op->prev = op->next = NULL;
}

/* One pass over the outstanding operations: test posted rounds, post the
 * next ones, unlink the finished.  *advanced: some round completed. */
static int progress_all(nbc_state *s, int *advanced)
{
    nbc_op *op = s->head;
    while (op) {
        nbc_op *next = op->next;
        int rc = ovk__nbc_exec_progress(&op->ex, &op->done, advanced);
        if (rc) return rc;
        if (op->done) list_remove(s, op);
        op = next;
    }
    return OVK_OK;
}

/* ---- options and topology ------------------------------------------------ */

static int read_options(ovk__opts *o, ovk__nbc_params *prm, long *ppn, long *thread)
{
    int alg = OVK__NBC_AUTO, inter = 0;
    long k = DEFAULT_K, seg = DEFAULT_SEG_BYTES, thresh = DEFAULT_RSA_BYTES;
    const ovk__opt_entry t[] = {
        OVK__OPT_CHOICE("alg", ovk__nbc_alg_names, &alg),
        OVK__OPT_INT("k", OVK__NBC_K_MIN, OVK__NBC_K_MAX, &k),
        OVK__OPT_CHOICE("inter", inter_names, &inter),
        OVK__OPT_INT("ppn", 0, INT32_MAX, ppn),
        OVK__OPT_INT("seg", MIN_SEG_BYTES, MAX_BYTES_OPT, &seg),
        OVK__OPT_INT("thresh", 0, MAX_BYTES_OPT, &thresh),
        OVK__OPT_INT("thread", 0, 1, thread),
    };
    int rc = ovk__opts_read(o, NAME, t, (int)(sizeof t / sizeof t[0]));
    if (rc) return rc;
    prm->alg = (ovk__nbc_alg)alg;
    prm->k = (int)k;
    prm->inter = inter_algs[inter];
    prm->seg_bytes = (size_t)seg;
    prm->rsa_bytes = (size_t)thresh;
    return OVK_OK;
}

/* node_of[r] = lowest rank on r's node: from ppn (pretend nodes of ppn
 * consecutive ranks) or, for ppn = 0, from MPI_COMM_TYPE_SHARED.  Only
 * twolevel looks at nodes; the others get one node per rank, no
 * collective. */
static int find_nodes(nbc_state *s, long ppn)
{
    s->topo.node_of = malloc((size_t)s->topo.size * sizeof *s->topo.node_of);
    if (!s->topo.node_of) return ovk__fail(OVK_ENOMEM, "nbc: node map");
    if (s->prm.alg != OVK__NBC_TWOLEVEL) ppn = 1;
    if (ppn > 0) {
        for (int r = 0; r < s->topo.size; r++) s->topo.node_of[r] = (int)(r / ppn * ppn);
        return OVK_OK;
    }
    return ovk__node_leaders(s->comm, s->topo.rank, s->topo.node_of);
}

static int find_tag_range(nbc_state *s)
{
    int flag = 0;
    int *ub = NULL;
    int rc = ovk__mpi(MPI_Comm_get_attr(s->comm, MPI_TAG_UB, &ub, &flag), "MPI_Comm_get_attr");
    if (rc) return rc;
    s->tag_range = flag ? (long)*ub + 1 : 32768L; /* MPI guarantees tags up to 32767 */
    return OVK_OK;
}

/* ---- the progress thread ---------------------------------------------- */

static void nap(long ns)
{
    struct timespec t = {ns / NS_PER_S, ns % NS_PER_S};
    while (nanosleep(&t, &t) == -1 && errno == EINTR) {
    }
}

/* Sleep on `work` while nothing is outstanding; otherwise one progress pass,
 * then a back-off that doubles while passes find nothing to do. */
static void *progress_thread(void *arg)
{
    nbc_state *s = arg;
    long backoff = BACKOFF_MIN_NS;
    pthread_mutex_lock(&s->mutex);
    while (!s->stop) {
        if (!s->head) {
            pthread_cond_wait(&s->work, &s->mutex);
            backoff = BACKOFF_MIN_NS;
            continue;
        }
        int advanced = 0;
        (void)progress_all(s, &advanced); /* a failing MPI call fails again in the owner's test */
        pthread_mutex_unlock(&s->mutex);
        backoff = advanced ? BACKOFF_MIN_NS : (backoff * 2 < BACKOFF_MAX_NS ? backoff * 2 : BACKOFF_MAX_NS);
        nap(backoff);
        pthread_mutex_lock(&s->mutex);
    }
    pthread_mutex_unlock(&s->mutex);
    return NULL;
}

static int start_thread(nbc_state *s)
{
    int provided = MPI_THREAD_SINGLE;
    int rc = ovk__mpi(MPI_Query_thread(&provided), "MPI_Query_thread");
    if (rc) return rc;
    if (provided != MPI_THREAD_MULTIPLE)
        return ovk__fail(OVK_EUNSUPPORTED, "nbc:thread=1 needs MPI initialised with MPI_THREAD_MULTIPLE "
                                           "(MPI_Init_thread); this process has level %d",
                         provided);
    s->threaded = 1;
    if (pthread_create(&s->thread, NULL, progress_thread, s) != 0) {
        s->threaded = 0;
        return ovk__fail(OVK_ENOMEM, "nbc: cannot start the progress thread");
    }
    return OVK_OK;
}

static void stop_thread(nbc_state *s)
{
    if (!s->threaded) return;
    pthread_mutex_lock(&s->mutex);
    s->stop = 1;
    pthread_cond_signal(&s->work);
    pthread_mutex_unlock(&s->mutex);
    pthread_join(s->thread, NULL);
    s->threaded = 0;
}

/* ---- the vtable ----------------------------------------------------------- */

static void nbc_destroy(void *state)
{
    nbc_state *s = state;
    if (!s) return;
    stop_thread(s);
    while (s->free_ops) {
        nbc_op *op = s->free_ops;
        s->free_ops = op->next;
        op_free(op);
    }
    ovk__nbc_cache_clear(&s->cache);
    if (s->sync_init) {
        pthread_mutex_destroy(&s->mutex);
        pthread_cond_destroy(&s->work);
    }
    free(s->topo.node_of);
    free(s->pending);
    free(s);
}

static int nbc_create(MPI_Comm comm, ovk__opts *opts, void **state)
{
    long ppn = 0, thread = 0;
    nbc_state *s = NULL;
    ovk__nbc_params prm;
    int rc = read_options(opts, &prm, &ppn, &thread);
    if (rc) return rc;
    if (!(s = calloc(1, sizeof *s))) return ovk__fail(OVK_ENOMEM, "nbc backend state");
    s->comm = comm;
    s->prm = prm;
    rc = ovk__mpi(MPI_Comm_rank(s->comm, &s->topo.rank), "MPI_Comm_rank");
    if (rc) goto cleanup;
    rc = ovk__mpi(MPI_Comm_size(s->comm, &s->topo.size), "MPI_Comm_size");
    if (rc) goto cleanup;
    rc = find_nodes(s, ppn);
    if (rc) goto cleanup;
    rc = find_tag_range(s);
    if (rc) goto cleanup;
    if (pthread_mutex_init(&s->mutex, NULL) != 0 || pthread_cond_init(&s->work, NULL) != 0) {
        rc = ovk__fail(OVK_ENOMEM, "nbc: mutex");
        goto cleanup;
    }
    s->sync_init = 1;
    if (thread) rc = start_thread(s);
    if (rc) goto cleanup;
    *state = s;
    return OVK_OK;
cleanup:
    nbc_destroy(s);
    return rc;
}

/* Tags of outstanding operations must stay distinct. */
static int check_tag_window(const nbc_state *s)
{
    if (s->head && s->seq - s->head->seq >= (unsigned long long)s->tag_range)
        return ovk__fail(OVK_EBUSY, "nbc: %ld operations started since the oldest outstanding one; "
                                    "tags would repeat (complete it first)",
                         s->tag_range);
    return OVK_OK;
}

static int start_locked(nbc_state *s, const ovk__reduction *r, nbc_req *req)
{
    ovk__nbc_sched *sched = NULL;
    nbc_op *op = NULL;
    int advanced = 0;
    int rc = check_tag_window(s);
    if (rc) return rc;
    rc = ovk__nbc_cache_get(&s->cache, &s->prm, &s->topo, r->count, r->type, r->op, &sched);
    if (rc) return rc;
    rc = op_acquire(s, sched, &op);
    if (rc) {
        ovk__nbc_cache_put(&s->cache, sched);
        return rc;
    }
    op->sched = sched;
    op->seq = s->seq++;
    op->done = 0;
    op->ex = (ovk__nbc_exec){.s = sched, .sendbuf = r->sendbuf, .recvbuf = r->recvbuf, .tmp = op->ex.tmp,
                             .comm = s->comm, .tag = (int)(op->seq % (unsigned long long)s->tag_range),
                             .reqs = op->ex.reqs};
    list_append(s, op);
    req->op = op;
    /* post round 0 (and whatever completes at once) */
    rc = ovk__nbc_exec_progress(&op->ex, &op->done, &advanced);
    if (op->done) list_remove(s, op);
    return rc;
}

static int nbc_start(void *state, const ovk__reduction *r, void *impl)
{
    nbc_state *s = state;
    nbc_req *req = impl;
    req->op = NULL;
    if (ovk__reduction_is_local(r, s->topo.size)) return OVK_OK;
    lock(s);
    int rc = start_locked(s, r, req);
    if (s->threaded && s->head) pthread_cond_signal(&s->work);
    unlock(s);
    return rc;
}

static int pending_room(nbc_state *s, int n);

/* The schedules of counts 1..max_count (cached), inflight free operations
 * fit for every one of them, and the wait's request list for them all. */
static int nbc_reserve(void *state, int max_count, ovk_datatype type, ovk_op op, int inflight)
{
    nbc_state *s = state;
    nbc_op *held = NULL; /* off the free list while they are fit */
    int rc = OVK_OK, max_comm = 0;
    if (s->topo.size == 1) return OVK_OK; /* every start is local */
    lock(s);
    for (int k = 0; k < inflight && !rc; k++) {
        nbc_op *o = s->free_ops;
        if (o) s->free_ops = o->next;
        else if (!(o = calloc(1, sizeof *o))) rc = ovk__fail(OVK_ENOMEM, "nbc: operation");
        if (o) o->next = held, held = o;
    }
    for (int count = 1; count <= max_count && !rc; count++) {
        ovk__nbc_sched *sched = NULL;
        rc = ovk__nbc_cache_get(&s->cache, &s->prm, &s->topo, count, type, op, &sched);
        if (rc) break;
        if (sched->max_comm > max_comm) max_comm = sched->max_comm;
        for (nbc_op *o = held; o && !rc; o = o->next) rc = op_fit(o, sched);
        ovk__nbc_cache_put(&s->cache, sched);
    }
    if (!rc) rc = pending_room(s, max_comm * inflight);
    while (held) {
        nbc_op *next = held->next;
        held->next = s->free_ops;
        s->free_ops = held;
        held = next;
    }
    unlock(s);
    return rc;
}

/* One progress pass; when req's operation has finished, hand its op back. */
static int test_locked(nbc_state *s, nbc_req *req, int *done)
{
    int advanced = 0;
    int rc = progress_all(s, &advanced);
    *done = !req->op || req->op->done;
    if (*done && req->op) {
        op_release(s, req->op);
        req->op = NULL;
    }
    return rc;
}

static int nbc_test(void *state, void *impl, int *done)
{
    nbc_state *s = state;
    nbc_req *req = impl;
    if (!req->op) {
        *done = 1;
        return OVK_OK;
    }
    lock(s);
    int rc = test_locked(s, req, done);
    unlock(s);
    return rc;
}

/* Room for n pending requests in s's scratch. */
static int pending_room(nbc_state *s, int n)
{
    if (n <= s->pending_cap) return OVK_OK;
    MPI_Request *r = realloc(s->pending, sizeof *r * (size_t)n);
    if (!r) return ovk__fail(OVK_ENOMEM, "nbc: the wait's request list");
    s->pending = r;
    s->pending_cap = n;
    return OVK_OK;
}

/* The posted requests of every operation, in list order, into s->pending
 * (to: copy them in) or the k-th of them back from it (!to). */
static void pending_copy(nbc_state *s, int to, int k)
{
    int n = 0;
    for (nbc_op *op = s->head; op; op = op->next)
        for (int i = 0; op->ex.posted && i < op->ex.nreq; i++, n++) {
            if (to) s->pending[n] = op->ex.reqs[i];
            else if (n == k) {
                op->ex.reqs[i] = s->pending[k];
                return;
            }
        }
}

/* Block in MPI until one message of any operation in flight completes
 * (then the caller progresses them all): the posted requests of every
 * operation, copied into one list for MPI_Waitany, the completed one
 * written back as MPI_REQUEST_NULL (which the round's MPI_Testall counts
 * as complete).  Every operation's messages wake it, so a rank blocked
 * here still answers the round a peer waits for in another operation. */
static int block_on_pending(nbc_state *s)
{
    int n = 0, k = MPI_UNDEFINED;
    for (nbc_op *op = s->head; op; op = op->next) n += op->ex.posted ? op->ex.nreq : 0;
    if (n == 0) return OVK_OK;
    int rc = pending_room(s, n);
    if (rc) return rc;
    pending_copy(s, 1, 0);
    rc = ovk__mpi(MPI_Waitany(n, s->pending, &k, MPI_STATUS_IGNORE), "MPI_Waitany");
    if (!rc && k != MPI_UNDEFINED) pending_copy(s, 0, k);
    return rc;
}

/* Progress until req's operation is done.  Without the progress thread
 * the rank blocks in MPI between passes instead of spinning on MPI_Testall
 * (the same messages complete; a simulator (SMPI) then advances its clock
 * to the next message instead of charging thousands of polls). */
static int nbc_wait(void *state, void *impl)
{
    nbc_state *s = state;
    int done = 0;
    for (;;) {
        int rc = nbc_test(state, impl, &done);
        if (rc || done) return rc;
        if (s->threaded) sched_yield(); /* let the progress thread take the lock */
        else {
            rc = block_on_pending(s);
            if (rc) return rc;
        }
    }
}

static int nbc_progress(void *state)
{
    nbc_state *s = state;
    int advanced = 0;
    lock(s);
    int rc = s->head ? progress_all(s, &advanced) : OVK_OK;
    unlock(s);
    return rc;
}

void ovk__nbc_cache_stats(void *state, long *hits, long *misses)
{
    nbc_state *s = state;
    if (!s) {
        ovk__nbc_cache_totals(hits, misses);
        return;
    }
    lock(s);
    *hits = s->cache.hits;
    *misses = s->cache.misses;
    unlock(s);
}

/* With the progress thread, reductions advance without test calls. */
static unsigned nbc_caps_of(const void *state)
{
    const nbc_state *s = state;
    return s->threaded ? (OVK_CAP_NONBLOCKING | OVK_CAP_ASYNC)
                       : (OVK_CAP_NONBLOCKING | OVK_CAP_NEEDS_TEST | OVK_CAP_SCHEDULED);
}

/* thread=1 starts a progress thread that calls MPI. */
static int nbc_caps_of_spec(ovk__opts *o, unsigned *caps)
{
    long thread = 0;
    int rc = ovk__opt_int(o, NAME, "thread", 0, 1, &thread);
    *caps = thread ? (OVK_CAP_NONBLOCKING | OVK_CAP_ASYNC | OVK_CAP_NEEDS_THREADS)
                   : (OVK_CAP_NONBLOCKING | OVK_CAP_NEEDS_TEST | OVK_CAP_SCHEDULED);
    return rc;
}

const ovk__backend ovk__backend_nbc = {
    .name = NAME,
    .description = "LibNBC-style schedules of point-to-point rounds, progressed by test/progress "
                   "(or a thread)",
    .options = "alg=auto|rd|kring|knomial|twolevel|rsa: algorithm (auto: rd below thresh bytes, "
               "rsa from there); k=2..8: radix of kring, degree of knomial and of twolevel's node trees "
               "(default 4); inter=rd|kring|knomial|rsa: leader algorithm of twolevel (default rd); "
               "ppn=N: twolevel pretends nodes of N consecutive ranks (0: real nodes); "
               "seg=bytes: rsa segment size (default 1048576); thresh=bytes: auto switch to rsa "
               "(default 131072); thread=0|1: progress thread (needs MPI_THREAD_MULTIPLE)",
    .caps = OVK_CAP_NONBLOCKING | OVK_CAP_NEEDS_TEST | OVK_CAP_SCHEDULED, .available = NULL,
    .caps_of = nbc_caps_of, .caps_of_spec = nbc_caps_of_spec,
    .create = nbc_create, .reserve = nbc_reserve, .destroy = nbc_destroy,
    .start = nbc_start, .test = nbc_test, .wait = nbc_wait, .progress = nbc_progress,
};

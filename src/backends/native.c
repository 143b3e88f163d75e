/* Backend "native": the MPI library's own MPI_Iallreduce on the inner
 * communicator the objects on the user's communicator share (its
 * collectives are started in program order from the calling thread).
 *
 * persistent=1 uses persistent collectives (MPI-4 MPI_Allreduce_init, or Open
 * MPI's MPIX_Allreduce_init extension).  A persistent request binds its
 * buffers at init, and initialising one is collective, so the choice of
 * request must be the same on every rank whatever the callers' buffer
 * addresses: requests are kept per class (count, type, op), each class a ring
 * of RING requests used in turn by the class's starts, all reducing through
 * buffers owned by the ring entry (sendbuf is copied in at the start, the
 * result out at the completion).  The k-th start of a class takes entry
 * k mod RING; when that entry still runs the reduction started RING starts
 * earlier, that one is completed first.  Classes beyond NCLASS evict the one
 * started least recently, never one the reserve pinned.  Every decision
 * depends only on the sequence of starts (and of setups' reserves), which is
 * the same on every rank.  A class's buffers are one allocation made when
 * the class is claimed: the reserve claims the classes of the sums a solve
 * does, so that its starts allocate nothing (the requests are initialised at
 * their first start: MPI's, not ours).
 *
 * A destroyed reducer's idle classes, requests initialised, go to its
 * communicator's pool (an attribute of the inner communicator, freed with
 * it), and the next persistent reducer on it adopts them instead of
 * initialising new ones: Open MPI 4.1 leaks about 330 B per persistent
 * request initialised and freed, 12 kB per gmres solver.  The ranks may
 * destroy reducers in different orders (a Python finalizer), so a reducer
 * adopts the pool only when a fingerprint of it is the same on every rank
 * (one reduction at creation); else it starts with none.
 *
 * verify=1 checks that each result is bitwise identical on every rank, which
 * the MPI standard does not promise: the result words x and their complements
 * ~x are reduced with MPI_BAND on a private communicator (equal
 * everywhere iff AND x == ~AND ~x, i.e. AND == OR).  The checks are started
 * in the order of the reductions' starts, so ranks that complete requests in
 * different orders still match them; a request is complete once its check is.
 * A mismatch is OVK_EMPI on every rank.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"

/* OVK_HAVE_MPI_ALLREDUCE_INIT, OVK_HAVE_MPIX_ALLREDUCE_INIT: found by CMake
 * (check_symbol_exists) in the MPI the library is built with.  The
 * persistent path is compiled either way; without such an MPI,
 * allreduce_init reports MPI_ERR_OTHER, and native_create refuses
 * persistent=1 naming the missing call, so it is never reached. */
#if defined(OVK_HAVE_MPI_ALLREDUCE_INIT)
#define ALLREDUCE_INIT MPI_Allreduce_init
#define PERSISTENT_SOURCE "MPI-4 MPI_Allreduce_init"
#elif defined(OVK_HAVE_MPIX_ALLREDUCE_INIT)
#include <mpi-ext.h>
#define ALLREDUCE_INIT MPIX_Allreduce_init
#define PERSISTENT_SOURCE "Open MPI MPIX_Allreduce_init"
#endif

#ifdef ALLREDUCE_INIT
enum { have_persistent = 1 };
#define PERSISTENT_OPTION "persistent=0|1: use " PERSISTENT_SOURCE " persistent requests; "
#else
enum { have_persistent = 0 };
#define PERSISTENT_SOURCE "persistent collectives"
#define PERSISTENT_OPTION "persistent=0|1: persistent collectives (not available with this MPI); "
#endif

#define NCLASS 64 /* reduction classes (count, type, op) kept */
#define NLOOSE 16 /* of them never pinned by the reserve: room for other shapes */
#define RING 4    /* persistent requests per class */

typedef struct native_req native_req;

/* One persistent request and the buffers it is bound to. */
typedef struct pentry {
    MPI_Request req;
    void *send, *recv;  /* count elements each */
    native_req *owner;  /* the request running on it, or NULL */
} pentry;

typedef struct pclass {
    int count;
    ovk_datatype type;
    ovk_op op;
    int used;                  /* 1 when this slot holds a class */
    int pinned;                /* claimed by the reserve: never evicted */
    unsigned char *mem;        /* the ring's buffers, 2 RING count elements */
    unsigned long long starts; /* starts of this class so far */
    unsigned long long last;   /* reducer start number of its latest start */
    pentry ring[RING];
} pclass;

typedef struct native_state {
    MPI_Comm comm;
    MPI_Comm vcomm; /* verify=1: the checks' communicator, else MPI_COMM_NULL */
    int persistent, verify;
    unsigned long long seq; /* starts so far */
    native_req *queue;      /* verify=1: requests not yet checked, in start order */
    pclass cls[NCLASS];
    uint64_t *vpool;        /* verify=1: reserved check buffers of 2 vpool_count words */
    uint64_t **vfree;       /* the free ones */
    int vpool_n, vpool_count, nvfree;
} native_state;

struct native_req {
    MPI_Request req;      /* non-persistent request */
    pentry *entry;        /* persistent entry while it runs there, else NULL */
    void *recvbuf;        /* the caller's result buffer */
    int count;
    ovk_datatype type;
    int reduced;          /* the result is in recvbuf */
    unsigned long long seq;
    uint64_t *vbuf;       /* verify: x, ~x, reduced with MPI_BAND */
    MPI_Request vreq;     /* verify: the check in flight, once started */
    int vstarted;
    native_req *next;     /* verify queue */
};

_Static_assert(sizeof(native_req) <= OVK__REQ_IMPL_BYTES, "native_req must fit the request scratch");

/* Initialise e's persistent request on its buffers for class k: an MPI
 * error code. */
#ifdef ALLREDUCE_INIT
static int allreduce_init(pentry *e, const pclass *k, MPI_Comm comm)
{
    return ALLREDUCE_INIT(e->send, e->recv, k->count, ovk__mpi_type(k->type), ovk__mpi_op(k->op), comm,
                          MPI_INFO_NULL, &e->req);
}
#else
static int allreduce_init(pentry *e, const pclass *k, MPI_Comm comm)
{
    (void)e, (void)k, (void)comm;
    return MPI_ERR_OTHER; /* not reached: native_create refuses persistent=1 */
}
#endif

static int adopt(native_state *s); /* below: the communicator's pool */

static int native_create(MPI_Comm comm, ovk__opts *opts, void **state)
{
    long persistent = 0, verify = 0;
    int rc = ovk__opt_int(opts, "native", "persistent", 0, 1, &persistent);
    if (rc) return rc;
    rc = ovk__opt_int(opts, "native", "verify", 0, 1, &verify);
    if (rc) return rc;
    if (persistent && !have_persistent)
        return ovk__fail(OVK_EUNSUPPORTED, "native:persistent=1 needs MPI_Allreduce_init (MPI-4) or "
                                           "Open MPI's MPIX_Allreduce_init; this MPI has neither");
    native_state *s = calloc(1, sizeof *s);
    if (s) s->vcomm = MPI_COMM_NULL; /* not 0: Open MPI's MPI_COMM_NULL is an object's address */
    rc = s ? OVK_OK : ovk__fail(OVK_ENOMEM, "native backend state");
    if (verify || persistent) rc = ovk__agree(comm, rc); /* before the collective MPI_Comm_dup, adopt */
    if (rc) goto cleanup;
    s->comm = comm;
    s->persistent = (int)persistent;
    s->verify = (int)verify;
    for (int c = 0; c < NCLASS; c++)
        for (int i = 0; i < RING; i++) s->cls[c].ring[i].req = MPI_REQUEST_NULL;
    if (verify) rc = ovk__mpi(MPI_Comm_dup(comm, &s->vcomm), "MPI_Comm_dup");
    if (!rc && persistent) rc = adopt(s); /* collective: the pool's classes, when alike on every rank */
    if (rc) goto cleanup;
    *state = s;
    return OVK_OK;
cleanup:
    if (s && s->vcomm != MPI_COMM_NULL) MPI_Comm_free(&s->vcomm);
    free(s);
    return rc;
}

static void entry_free(pentry *e)
{
    if (e->req != MPI_REQUEST_NULL) MPI_Request_free(&e->req);
    e->req = MPI_REQUEST_NULL;
}

/* Release class k's requests and buffers: the slot is free again. */
static void class_free(pclass *k)
{
    for (int i = 0; i < RING; i++) entry_free(&k->ring[i]);
    free(k->mem);
    memset(k, 0, sizeof *k);
    for (int i = 0; i < RING; i++) k->ring[i].req = MPI_REQUEST_NULL;
}

/* ---- the communicator's pool of idle classes ---------------------------- */

typedef struct ppool {
    int n;              /* classes held, oldest first */
    pclass cls[NCLASS];
} ppool;

static int pool_key = MPI_KEYVAL_INVALID; /* on an inner communicator: its pool */

/* The communicator is freed (its last object went, or MPI is finalized):
 * the pool's requests and buffers go with it. */
static int pool_deleted(MPI_Comm comm, int key, void *val, void *extra)
{
    (void)comm, (void)key, (void)extra;
    ppool *p = val;
    for (int i = 0; i < p->n; i++) class_free(&p->cls[i]);
    free(p);
    return MPI_SUCCESS;
}

/* comm's pool, made when `make` (NULL when it cannot be had). Local. */
static ppool *pool_of(MPI_Comm comm, int make)
{
    ppool *p = NULL;
    int flag = 0;
    if (pool_key == MPI_KEYVAL_INVALID &&
        MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, pool_deleted, &pool_key, NULL) != MPI_SUCCESS)
        return NULL;
    if (MPI_Comm_get_attr(comm, pool_key, &p, &flag) == MPI_SUCCESS && flag) return p;
    if (!make || !(p = calloc(1, sizeof *p))) return NULL;
    if (MPI_Comm_set_attr(comm, pool_key, p) != MPI_SUCCESS) {
        free(p);
        return NULL;
    }
    return p;
}

/* a class holds no running reduction */
static int idle(const pclass *k)
{
    for (int i = 0; i < RING; i++)
        if (k->ring[i].owner) return 0;
    return 1;
}

/* FNV-1a over the pool's classes (count, type, op), in order */
static uint64_t pool_print(const ppool *p)
{
    uint64_t h = 1469598103934665603ull;
    int n = p ? p->n : 0;
    for (int i = -1; i < n; i++) {
        long long v[3] = {n, 0, 0};
        if (i >= 0) v[0] = p->cls[i].count, v[1] = p->cls[i].type, v[2] = p->cls[i].op;
        const unsigned char *b = (const unsigned char *)v;
        for (size_t j = 0; j < sizeof v; j++) h = (h ^ b[j]) * 1099511628211ull;
    }
    return h;
}

/* Collective: the pool's classes taken by s when the pool is the same on
 * every rank (then every rank takes the same classes, in the same order). */
static int adopt(native_state *s)
{
    ppool *p = pool_of(s->comm, 0);
    uint64_t h = pool_print(p);
    int first = -1, rc = ovk__differs(s->comm, &h, 1, &first);
    if (rc || first >= 0 || !p) return rc;
    for (int i = 0; i < p->n; i++) {
        pclass *k = &s->cls[i];
        *k = p->cls[i];
        k->starts = k->last = 0;
        k->pinned = 0;
    }
    p->n = 0;
    return OVK_OK;
}

/* Local: k's class into comm's pool (the oldest freed when it is full),
 * or freed */
static void deposit(ppool *p, pclass *k)
{
    if (!p || !k->used || !idle(k)) {
        class_free(k);
        return;
    }
    if (p->n == NCLASS) {
        class_free(&p->cls[0]);
        memmove(p->cls, p->cls + 1, sizeof(pclass) * (NCLASS - 1));
        p->n--;
    }
    p->cls[p->n++] = *k;
    memset(k, 0, sizeof *k);
    for (int i = 0; i < RING; i++) k->ring[i].req = MPI_REQUEST_NULL;
}

static void native_destroy(void *state)
{
    native_state *s = state;
    ppool *p = s->persistent ? pool_of(s->comm, 1) : NULL;
    for (int c = 0; c < NCLASS; c++) deposit(p, &s->cls[c]);
    if (s->vcomm != MPI_COMM_NULL) MPI_Comm_free(&s->vcomm);
    free(s->vpool);
    free(s->vfree);
    free(s);
}

static size_t bytes_of(int count, ovk_datatype type) { return (size_t)count * ovk__type_size(type); }

/* ---- completion of the reduction itself ------------------------------- */

/* Complete nr's reduction (block when `block`); *done = 1 once recvbuf holds
 * the result.  A persistent entry is released here. */
static int reduce_poll(native_req *nr, int block, int *done)
{
    int mrc;
    *done = nr->reduced;
    if (nr->reduced) return OVK_OK;
    MPI_Request *q = nr->entry ? &nr->entry->req : &nr->req;
    if (block) {
        mrc = MPI_Wait(q, MPI_STATUS_IGNORE);
        *done = 1;
    } else {
        mrc = MPI_Test(q, done, MPI_STATUS_IGNORE);
    }
    if (mrc != MPI_SUCCESS) return ovk__mpi_fail(mrc, block ? "MPI_Wait" : "MPI_Test");
    if (!*done) return OVK_OK;
    if (nr->entry) { /* copy the result out of the entry's buffer */
        if (nr->count) memcpy(nr->recvbuf, nr->entry->recv, bytes_of(nr->count, nr->type));
        nr->entry->owner = NULL;
        nr->entry = NULL;
    }
    nr->reduced = 1;
    return OVK_OK;
}

/* ---- persistent requests ------------------------------------------------ */

/* The class of (count, type, op): found, or a free slot, or the least
 * recently started unpinned class, evicted (its running reductions
 * completed first); new, it gets its buffers. */
static int class_of(native_state *s, int count, ovk_datatype type, ovk_op op, pclass **out)
{
    pclass *victim = NULL;
    int done = 0;
    for (int c = 0; c < NCLASS; c++) {
        pclass *k = &s->cls[c];
        if (k->used && k->count == count && k->type == type && k->op == op) {
            *out = k;
            return OVK_OK;
        }
        if (k->pinned) continue;
        if (!victim || !k->used || (victim->used && k->last < victim->last)) victim = k;
    }
    for (int i = 0; i < RING; i++) {
        pentry *e = &victim->ring[i];
        int rc = e->owner ? reduce_poll(e->owner, 1, &done) : OVK_OK;
        if (rc) return rc;
    }
    class_free(victim);
    size_t bytes = bytes_of(count, type);
    if (!(victim->mem = malloc(2 * RING * (bytes ? bytes : 1))))
        return ovk__fail(OVK_ENOMEM, "native: persistent buffers of %d x %zu bytes", 2 * RING, bytes);
    for (int i = 0; i < RING; i++) {
        victim->ring[i].send = victim->mem + 2 * i * bytes;
        victim->ring[i].recv = victim->mem + (2 * i + 1) * bytes;
    }
    victim->used = 1;
    victim->count = count;
    victim->type = type;
    victim->op = op;
    *out = victim;
    return OVK_OK;
}

/* Initialise entry e's request on its buffers (at its first start). */
static int entry_init(native_state *s, const pclass *k, pentry *e)
{
    int rc = ovk__mpi(allreduce_init(e, k, s->comm), PERSISTENT_SOURCE);
    if (rc) e->req = MPI_REQUEST_NULL;
    return rc;
}

static int start_persistent(native_state *s, const ovk__reduction *r, native_req *nr)
{
    pclass *k = NULL;
    int done = 0;
    int rc = class_of(s, r->count, r->type, r->op, &k);
    if (rc) return rc;
    pentry *e = &k->ring[k->starts % RING];
    k->starts++;
    k->last = s->seq;
    /* the reduction started RING starts of this class ago still runs here */
    if (e->owner) rc = reduce_poll(e->owner, 1, &done);
    if (rc) return rc;
    if (e->req == MPI_REQUEST_NULL) rc = entry_init(s, k, e);
    if (rc) return rc;
    if (r->count) memcpy(e->send, r->sendbuf, bytes_of(r->count, r->type)); /* in place: recvbuf holds the input */
    rc = ovk__mpi(MPI_Start(&e->req), "MPI_Start");
    if (rc) return rc;
    e->owner = nr;
    nr->entry = e;
    return OVK_OK;
}

/* ---- the verification ------------------------------------------------- */

/* A check buffer of 2 count words: a reserved one when free, else its own. */
static uint64_t *check_buffer(native_state *s, int count)
{
    if (count <= s->vpool_count && s->nvfree > 0) return s->vfree[--s->nvfree];
    return malloc(2 * (size_t)(count ? count : 1) * sizeof(uint64_t));
}

static void check_release(native_state *s, uint64_t *b)
{
    size_t words = 2 * (size_t)s->vpool_count * (size_t)s->vpool_n;
    if (s->vpool && b >= s->vpool && b < s->vpool + words) s->vfree[s->nvfree++] = b;
    else free(b);
}

/* verify=1: inflight check buffers for sums of up to max_count values (made
 * again only when larger ones are asked for and none is in use) */
static int reserve_checks(native_state *s, int max_count, int inflight)
{
    if (max_count <= s->vpool_count && inflight <= s->vpool_n) return OVK_OK;
    if (s->nvfree != s->vpool_n) return OVK_OK; /* checks in flight: kept */
    int count = max_count > s->vpool_count ? max_count : s->vpool_count;
    int n = inflight > s->vpool_n ? inflight : s->vpool_n;
    uint64_t *pool = malloc(2 * (size_t)count * (size_t)n * sizeof *pool);
    uint64_t **list = malloc((size_t)n * sizeof *list);
    if (!pool || !list) {
        free(pool);
        free(list);
        return ovk__fail(OVK_ENOMEM, "native:verify: %d check buffers of %d words", n, 2 * count);
    }
    free(s->vpool);
    free(s->vfree);
    s->vpool = pool, s->vfree = list, s->vpool_count = count, s->vpool_n = s->nvfree = n;
    for (int i = 0; i < n; i++) list[i] = pool + 2 * (size_t)count * (size_t)i;
    return OVK_OK;
}

/* Start the checks, in start order, of every queued reduction complete here
 * (or, with `upto`, complete the reductions up to it first, and none after
 * it: a later one may not be started on every rank yet). */
static int verify_advance(native_state *s, const native_req *upto)
{
    int rc = OVK_OK, done = 0;
    for (native_req *q = s->queue; q; q = q->next) {
        if (q->vstarted) {
            if (q == upto) break; /* a test started its check already */
            continue;
        }
        rc = reduce_poll(q, upto != NULL, &done);
        if (rc || !done) return rc;
        size_t n = (size_t)q->count;
        q->vbuf = check_buffer(s, q->count);
        if (!q->vbuf) return ovk__fail(OVK_ENOMEM, "native:verify: check buffer of %zu words", 2 * n);
        if (n) memcpy(q->vbuf, q->recvbuf, n * sizeof(uint64_t)); /* both types are 8 bytes */
        for (size_t i = 0; i < n; i++) q->vbuf[n + i] = ~q->vbuf[i];
        rc = ovk__mpi(MPI_Iallreduce(MPI_IN_PLACE, q->vbuf, 2 * q->count, MPI_UINT64_T, MPI_BAND, s->vcomm, &q->vreq),
                      "MPI_Iallreduce (verify)");
        if (rc) return rc;
        q->vstarted = 1;
        if (q == upto) break;
    }
    return OVK_OK;
}

static void verify_unqueue(native_state *s, native_req *nr)
{
    for (native_req **p = &s->queue; *p; p = &(*p)->next)
        if (*p == nr) {
            *p = nr->next;
            break;
        }
}

/* The check of nr, once its MPI_BAND is complete: AND x == ~AND ~x. */
static int verify_finish(native_state *s, native_req *nr)
{
    size_t n = (size_t)nr->count, i = 0;
    while (i < n && nr->vbuf[i] == ~nr->vbuf[n + i]) i++;
    verify_unqueue(s, nr);
    check_release(s, nr->vbuf);
    nr->vbuf = NULL;
    if (i == n) return OVK_OK;
    return ovk__fail(OVK_EMPI, "native:verify=1: the MPI_Iallreduce result of reduction #%llu (%d %s) differs "
                     "between ranks at element %zu; the MPI library's reduction is not bitwise reproducible",
                     nr->seq, nr->count, nr->type == OVK_INT64 ? "int64" : "doubles", i);
}

/* ---- the backend entries ---------------------------------------------- */

static const void *send_arg(const ovk__reduction *r)
{
    return r->sendbuf == r->recvbuf ? MPI_IN_PLACE : r->sendbuf;
}

/* A request of its own for r (persistent=0). */
static int start_once(native_state *s, const ovk__reduction *r, native_req *nr)
{
    return ovk__mpi(MPI_Iallreduce(send_arg(r), r->recvbuf, r->count, ovk__mpi_type(r->type), ovk__mpi_op(r->op),
                                   s->comm, &nr->req),
                    "MPI_Iallreduce");
}

static int native_start(void *state, const ovk__reduction *r, void *impl)
{
    native_state *s = state;
    native_req *nr = impl;
    memset(nr, 0, sizeof *nr);
    nr->req = nr->vreq = MPI_REQUEST_NULL;
    nr->recvbuf = r->recvbuf;
    nr->count = r->count;
    nr->type = r->type;
    nr->seq = s->seq;
    int rc = s->persistent ? start_persistent(s, r, nr) : start_once(s, r, nr);
    if (rc) return rc;
    s->seq++;
    if (s->verify) { /* append: the queue is in start order */
        native_req **p = &s->queue;
        while (*p) p = &(*p)->next;
        *p = nr;
    }
    return OVK_OK;
}

static int native_test(void *state, void *impl, int *done)
{
    native_state *s = state;
    native_req *nr = impl;
    if (!s->verify) return reduce_poll(nr, 0, done);
    *done = 0;
    int rc = verify_advance(s, NULL);
    if (rc || !nr->vstarted) return rc;
    rc = ovk__mpi(MPI_Test(&nr->vreq, done, MPI_STATUS_IGNORE), "MPI_Test (verify)");
    if (rc || !*done) return rc;
    return verify_finish(s, nr);
}

static int native_wait(void *state, void *impl)
{
    native_state *s = state;
    native_req *nr = impl;
    int done = 0;
    if (!s->verify) return reduce_poll(nr, 1, &done);
    int rc = verify_advance(s, nr);
    if (rc) return rc;
    rc = ovk__mpi(MPI_Wait(&nr->vreq, MPI_STATUS_IGNORE), "MPI_Wait (verify)");
    if (rc) return rc;
    return verify_finish(s, nr);
}

/* The classes of counts 1 .. max_count, pinned, their buffers made now (as
 * many as leave NLOOSE classes free for other shapes; the rest are claimed
 * at their first start), and verify=1's check buffers.  Without them a
 * start allocates nothing of ours. */
static int native_reserve(void *state, int max_count, ovk_datatype type, ovk_op op, int inflight)
{
    native_state *s = state;
    int rc = s->verify ? reserve_checks(s, max_count, inflight) : OVK_OK;
    if (rc || !s->persistent) return rc;
    int pinned = 0;
    for (int c = 0; c < NCLASS; c++) pinned += s->cls[c].pinned;
    for (int count = 1; count <= max_count; count++) {
        pclass *k = NULL;
        if (pinned >= NCLASS - NLOOSE) break;
        rc = class_of(s, count, type, op, &k);
        if (rc) return rc;
        pinned += !k->pinned;
        k->pinned = 1;
    }
    return OVK_OK;
}

static int native_available(void) { return 1; }

const ovk__backend ovk__backend_native = {
    .name = "native",
    .description = "the MPI library's MPI_Iallreduce (progress as the MPI provides it)",
    .options = PERSISTENT_OPTION "verify=0|1: check every result is bitwise identical on all ranks (OVK_EMPI if not)",
    .shares_comm = 1,
    .caps = OVK_CAP_NONBLOCKING | OVK_CAP_NEEDS_TEST, .available = native_available,
    .create = native_create, .reserve = native_reserve, .destroy = native_destroy,
    .start = native_start, .test = native_test, .wait = native_wait, .progress = NULL,
};

/* Engine "fabric" of the offload backend: the task list posted as libfabric
 * triggered operations (fi_trigger(3), deferred work queue), so that the
 * provider runs it and the host only reads a completion counter.
 *
 * Per reducer: one fabric/domain, a receive endpoint R (all receives; the
 * loop-back target of the calcs) and NTX transmit endpoints, an address
 * vector of every rank's R (exchanged over MPI once, at create), and per
 * queue slot a registered buffer of the list's slots and completion
 * counters.  Per reduction the host copies the input into slot 0, zeroes the
 * slot's counters, queues one deferred work item per operation and returns:
 *
 *   RECV  fi_trecv into the slot, posted at once (no predecessor)
 *   SEND  fi_tsend to the peer's R, triggered by its predecessor's counter
 *   CALC  fi_atomic to our own R (loop-back): dst op= src, FI_SUM, FI_MIN or
 *         FI_MAX on FI_DOUBLE or FI_INT64, triggered likewise
 *   join  a task with two predecessors waits on its own counter, which
 *         FI_OP_CNTR_ADD items raise by one per completed predecessor
 *
 * Every operation completes into a counter of its own (deferred work has a
 * completion counter per item), so early data of a later step can never be
 * mistaken for the current step's; the sinks complete into the slot's DONE
 * counter, and test is one fi_cntr_read of it.
 *
 * What the sockets provider (Debian's libfabric 1.17) needs, found by
 * probing (docs/offload.md):
 *  - an operation triggered from inside a completion of endpoint X must not
 *    be posted on X (the provider reports completions holding X's connection
 *    lock and posting takes it again: self-deadlock).  Operations are
 *    therefore coloured: receives on R, sends and calcs on TX[c] with c
 *    different from the endpoints of their predecessors (at most two
 *    predecessors: three colours suffice);
 *  - a triggered operation that meets an unconnected peer fails with EAGAIN
 *    and is never retried: every connection is made at create (warm-up);
 *  - an atomic carries at most fi_atomicvalid elements (512 doubles) and a
 *    trigger fires all its operations into one transmit ring: long calcs run
 *    as a chain of groups, a group being at most the transmit queue's size
 *    shared by the `depth` reductions that may fire at once;
 *  - counters are 32-bit: each reduction starts them from zero (a slot is
 *    reused only once all its operations have completed, and every event of
 *    a reduction is caused by its own operations);
 *  - the progress thread spins FI_SOCKETS_PE_WAITTIME ms after each event
 *    (default 10), starving the host on small machines: set to 0 unless the
 *    user set it.
 */
#ifdef OVK_HAVE_LIBFABRIC

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rdma/fabric.h>
#include <rdma/fi_atomic.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_tagged.h>
#include <rdma/fi_trigger.h>

#include "offload.h"

#define FABRIC_API FI_VERSION(1, 11)
/* Transmit endpoints (colours). */
#define NTX 3
#define R_EP NTX
/* Atomics fired by one trigger: the transmit queue's size over twice the
 * depth (room for the sends), within [1, MAX_GROUP]. */
#define MAX_GROUP 64
/* Tag layout: sequence number, message id, sender; the warm-up bit. */
#define TAG_SEQ_SHIFT 48
#define TAG_MSG_SHIFT 40
#define TAG_WARM (1ull << 39)
#define TAG_EP_SHIFT 32
#define SEQ_WINDOW (1ull << 16)
#define NAME_MAX_LEN 256
#define WARMUP_TIMEOUT_S 60.0
/* The host's wait: naps from NAP_MIN_NS doubling to NAP_MAX_NS; a check
 * for failed operations every CHECK_S. */
#define NAP_MIN_NS 2000L
#define NAP_MAX_NS 100000L
#define CHECK_S 1.0
#define NS_PER_S 1000000000L
#define ALIGN 64
#define WAITTIME_ENV "FI_SOCKETS_PE_WAITTIME"
/* Unexpected messages (a peer ahead of us) the provider may buffer; past it
 * they wait in the peer's socket until the receive is posted (sockets
 * defaults to 0: every early message stalls the progress thread). */
#define UNEXPECTED_BYTES ((size_t)1 << 24)

/* ---- the process-wide probe ------------------------------------------------- */

static pthread_once_t probe_once = PTHREAD_ONCE_INIT;
static int probe_ok;
static char probe_why[1024];

static struct fi_info *make_hints(int trigger)
{
    struct fi_info *h = fi_allocinfo();
    if (!h) return NULL;
    h->ep_attr->type = FI_EP_RDM;
    h->caps = FI_TAGGED | FI_ATOMIC | FI_SEND | FI_RECV | FI_WRITE | FI_REMOTE_WRITE | (trigger ? FI_TRIGGER : 0);
    h->mode = FI_CONTEXT | FI_CONTEXT2;
    h->domain_attr->data_progress = FI_PROGRESS_AUTO;
    h->domain_attr->threading = FI_THREAD_SAFE;
    h->domain_attr->mr_mode = FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY;
    h->rx_attr->total_buffered_recv = UNEXPECTED_BYTES;
    return h;
}

/* What a provider lacks of the hints, appended to buf ("tcp: FI_TRIGGER"). */
static void describe_lack(const struct fi_info *i, char *buf, size_t len)
{
    static const struct {
        uint64_t cap;
        const char *name;
    } caps[] = {{FI_TRIGGER, "FI_TRIGGER"}, {FI_TAGGED, "FI_TAGGED"}, {FI_ATOMIC, "FI_ATOMIC"}};
    size_t at = strlen(buf);
    snprintf(buf + at, len - at, "%s%s lacks", at ? "; " : "", i->fabric_attr->prov_name);
    for (size_t c = 0; c < sizeof caps / sizeof caps[0]; c++) {
        if (i->caps & caps[c].cap) continue;
        strncat(buf, " ", len - strlen(buf) - 1);
        strncat(buf, caps[c].name, len - strlen(buf) - 1);
    }
}

/* The providers with reliable datagram endpoints here and which of the
 * capabilities each lacks, for the refusal. */
static void list_providers(char *buf, size_t len)
{
    struct fi_info *h = fi_allocinfo(), *info = NULL;
    buf[0] = '\0';
    if (h) h->ep_attr->type = FI_EP_RDM;
    if (h && fi_getinfo(FABRIC_API, NULL, NULL, 0, h, &info) == 0)
        for (struct fi_info *i = info; i; i = i->next) {
            if (strstr(buf, i->fabric_attr->prov_name)) continue;
            describe_lack(i, buf, len);
        }
    fi_freeinfo(info);
    fi_freeinfo(h);
}

static void probe(void)
{
    char others[384];
    struct fi_info *h = NULL, *info = NULL;
    setenv(WAITTIME_ENV, "0", 0); /* the user's value wins */
    h = make_hints(1);
    int ret = h ? fi_getinfo(FABRIC_API, NULL, NULL, 0, h, &info) : -FI_ENOMEM;
    probe_ok = ret == 0;
    if (!probe_ok) {
        list_providers(others, sizeof others);
        const char *fp = getenv("FI_PROVIDER");
        snprintf(probe_why, sizeof probe_why,
                 "no libfabric provider offers triggered operations (FI_TRIGGER) with tagged messages and "
                 "atomics on FI_EP_RDM endpoints with automatic progress (fi_getinfo: %s; %s%s%s)",
                 fi_strerror(-ret), others[0] ? others : "no provider with FI_EP_RDM endpoints",
                 fp ? "; FI_PROVIDER=" : "", fp ? fp : "");
    }
    fi_freeinfo(info);
    fi_freeinfo(h);
}

static int fabric_usable(char *why, size_t len)
{
    pthread_once(&probe_once, probe);
    if (!probe_ok) snprintf(why, len, "%s", probe_why);
    return probe_ok;
}

/* ---- structures ------------------------------------------------------------ */

/* One deferred work item and what it points to (the provider keeps pointers
 * to work.context until the operation completes). */
typedef struct fop {
    struct fi_deferred_work work;
    union {
        struct fi_op_tagged tagged;
        struct fi_op_atomic atomic;
        struct fi_op_cntr cntr;
    } op;
    struct iovec iov;
    struct fi_ioc ioc;
    struct fi_rma_ioc rioc;
    void *desc;
    int root;      /* triggered by the zero counter: queued last, runs at once */
    int msg_tag;   /* SEND/RECV: the list's message id */
    int tag_rank;  /* SEND: us; RECV: the sender */
} fop;

/* A virtual task: a list task, or one group of a long calc. */
typedef struct vtask {
    int task;     /* list task */
    int first;    /* element offset of a calc group */
    int chunks;   /* atomics of a calc group */
    int npred, pred[OVK__OFF_MAX_PRED];
    int own;      /* counter it completes into */
    int m;        /* operations completing into own */
    int color;    /* endpoint: TX[color] or R_EP */
} vtask;

/* Program key: what a slot's program was built for. */
typedef struct prog_key {
    int count;
    ovk_datatype type;
    ovk_op op;
} prog_key;

typedef struct fslot {
    prog_key key;
    int built;
    unsigned char *buf; /* nslots x count elements, registered */
    size_t cap;
    struct fid_mr *mr;
    struct fid_cntr **cntr; /* [ncntr]; 0 is DONE */
    int ncntr, cntr_cap;
    fop *ops;
    int nops, ops_cap;
    int done_at; /* DONE's value once every sink has completed */
    void *recvbuf;
} fslot;

typedef struct fabric {
    MPI_Comm comm; /* the generic layer's (not ours to free) */
    int rank, size;
    const ovk__off_list *tl;
    int depth;
    struct fi_info *info;
    struct fid_fabric *fabric;
    struct fid_domain *domain;
    struct fid_av *av;
    struct fid_ep *ep[NTX + 1]; /* TX[0..NTX-1], R */
    struct fid_cq *cq[NTX + 1];
    struct fid_cntr *zero;
    fi_addr_t *addr; /* [size] every rank's R */
    size_t maxat[2][3]; /* atomic elements per operation, by datatype and op */
    int group;          /* atomics fired by one trigger */
    uint64_t next_key;
    fslot *slot; /* [depth] */
    vtask *vt;   /* a program's virtual tasks while it is built */
    int *last;   /* [ntasks]: each task's last virtual task, likewise */
    int vt_cap;
    char warm[NTX + 1]; /* warm-up payloads: one per TX endpoint, R's receive buffer */
    struct fid_mr *warm_mr;
    char broken[256]; /* a post failed half-way: its slot holds stale work; refuse further posts */
} fabric;

static int fi_fail(int ret, const char *call)
{
    return ovk__fail(OVK_EMPI, "offload fabric: %s failed: %s", call, fi_strerror(ret < 0 ? -ret : ret));
}

/* The status of a libfabric call's return value: OVK_OK when >= 0. */
static int fi_check(ssize_t ret, const char *call) { return ret < 0 ? fi_fail((int)ret, call) : OVK_OK; }

static enum fi_datatype fi_type(ovk_datatype t) { return t == OVK_INT64 ? FI_INT64 : FI_DOUBLE; }

static enum fi_op fi_op_of(ovk_op op)
{
    switch (op) {
    case OVK_MAX: return FI_MAX;
    case OVK_MIN: return FI_MIN;
    default: return FI_SUM;
    }
}

/* ---- set-up --------------------------------------------------------------------- */

/* Endpoint e with its completion queue, bound to the address vector. */
static int open_endpoint(fabric *f, int e)
{
    struct fi_cq_attr cq_attr = {.format = FI_CQ_FORMAT_TAGGED, .wait_obj = FI_WAIT_NONE};
    int rc = fi_check(fi_endpoint(f->domain, f->info, &f->ep[e], NULL), "fi_endpoint");
    if (rc) return rc;
    rc = fi_check(fi_cq_open(f->domain, &cq_attr, &f->cq[e], NULL), "fi_cq_open");
    if (rc) return rc;
    rc = fi_check(fi_ep_bind(f->ep[e], &f->av->fid, 0), "fi_ep_bind (address vector)");
    if (rc) return rc;
    rc = fi_check(fi_ep_bind(f->ep[e], &f->cq[e]->fid, FI_TRANSMIT | FI_RECV), "fi_ep_bind (completion queue)");
    if (rc) return rc;
    return fi_check(fi_enable(f->ep[e]), "fi_enable");
}

static int open_endpoints(fabric *f)
{
    struct fi_av_attr av_attr = {.type = FI_AV_TABLE, .count = (size_t)f->size};
    struct fi_cntr_attr ca = {.events = FI_CNTR_EVENTS_COMP, .wait_obj = FI_WAIT_UNSPEC};
    int rc = fi_check(fi_fabric(f->info->fabric_attr, &f->fabric, NULL), "fi_fabric");
    if (rc) return rc;
    rc = fi_check(fi_domain(f->fabric, f->info, &f->domain, NULL), "fi_domain");
    if (rc) return rc;
    rc = fi_check(fi_av_open(f->domain, &av_attr, &f->av, NULL), "fi_av_open");
    if (rc) return rc;
    rc = fi_check(fi_cntr_open(f->domain, &ca, &f->zero, NULL), "fi_cntr_open");
    if (rc) return rc;
    for (int e = 0; e <= NTX; e++) {
        rc = open_endpoint(f, e);
        if (rc) return rc;
    }
    return OVK_OK;
}

/* The atomics the calcs need, and how many elements one may carry. */
static int query_atomics(fabric *f)
{
    static const ovk_op ops[3] = {OVK_SUM, OVK_MAX, OVK_MIN};
    for (int t = 0; t < 2; t++)
        for (int o = 0; o < 3; o++) {
            size_t n = 0;
            int ret = fi_atomicvalid(f->ep[0], fi_type((ovk_datatype)t), fi_op_of(ops[o]), &n);
            if (ret < 0 || n == 0)
                return ovk__fail(OVK_EUNSUPPORTED, "offload fabric: provider %s has no atomic %s on %s (%s)",
                                 f->info->fabric_attr->prov_name, o == 0 ? "FI_SUM" : o == 1 ? "FI_MAX" : "FI_MIN",
                                 t ? "FI_INT64" : "FI_DOUBLE", fi_strerror(ret < 0 ? -ret : 0));
            f->maxat[t][ops[o]] = n;
        }
    return OVK_OK;
}

/* The deferred work queue (fi_control FI_QUEUE_WORK) that posts the lists:
 * one item whose trigger is already met (add 0 to the zero counter). */
static int check_work_queue(fabric *f)
{
    struct fi_op_cntr add = {.cntr = f->zero, .value = 0};
    struct fi_deferred_work w = {.threshold = 0, .triggering_cntr = f->zero, .op_type = FI_OP_CNTR_ADD,
                                 .op.cntr = &add};
    int ret = fi_control(&f->domain->fid, FI_QUEUE_WORK, &w);
    if (ret < 0)
        return ovk__fail(OVK_EUNSUPPORTED, "offload fabric: provider %s has FI_TRIGGER but no deferred work "
                                           "queue (fi_control FI_QUEUE_WORK: %s)",
                         f->info->fabric_attr->prov_name, fi_strerror(-ret));
    return OVK_OK;
}

/* Local resources.  The probe has run (the backend asked usable()). */
static int open_local(fabric *f)
{
    struct fi_info *h = make_hints(1);
    if (!h) return ovk__fail(OVK_ENOMEM, "offload fabric: hints");
    int rc = fi_check(fi_getinfo(FABRIC_API, NULL, NULL, 0, h, &f->info), "fi_getinfo");
    fi_freeinfo(h);
    if (rc) return rc;
    size_t group = f->info->tx_attr->size / (2 * (size_t)f->depth);
    f->group = group < 1 ? 1 : group > MAX_GROUP ? MAX_GROUP : (int)group;
    rc = open_endpoints(f);
    if (rc) return rc;
    rc = query_atomics(f);
    if (rc) return rc;
    return check_work_queue(f);
}

/* Every rank's R address, over MPI (the only MPI traffic of the engine). */
static int exchange_addresses(fabric *f)
{
    char name[NAME_MAX_LEN] = {0}, *all = NULL;
    size_t len = sizeof name;
    int maxlen = 0;
    int rc = ovk__agree(f->comm, fi_check(fi_getname(&f->ep[R_EP]->fid, name, &len), "fi_getname"));
    if (rc) return rc;
    int mylen = (int)len;
    rc = ovk__mpi(MPI_Allreduce(&mylen, &maxlen, 1, MPI_INT, MPI_MAX, f->comm), "MPI_Allreduce");
    if (rc) return rc;
    if (!(all = calloc((size_t)f->size, (size_t)maxlen)) || !(f->addr = calloc((size_t)f->size, sizeof *f->addr)))
        rc = ovk__fail(OVK_ENOMEM, "offload fabric: address table");
    rc = ovk__agree(f->comm, rc);
    if (rc) goto cleanup;
    rc = ovk__mpi(MPI_Allgather(name, maxlen, MPI_BYTE, all, maxlen, MPI_BYTE, f->comm), "MPI_Allgather");
    if (rc) goto cleanup;
    int ret = fi_av_insert(f->av, all, (size_t)f->size, f->addr, 0, NULL);
    if (ret != f->size) rc = fi_fail(ret < 0 ? ret : -FI_EINVAL, "fi_av_insert");
    rc = ovk__agree(f->comm, rc);
cleanup:
    free(all);
    return rc;
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Drain n successful completions from the CQs (warm-up only). */
static int drain(fabric *f, int n)
{
    double t0 = now_s();
    while (n > 0) {
        for (int e = 0; e <= NTX; e++) {
            struct fi_cq_tagged_entry c;
            ssize_t got = fi_cq_read(f->cq[e], &c, 1);
            if (got > 0) n--;
            else if (got != -FI_EAGAIN) {
                struct fi_cq_err_entry err = {0};
                fi_cq_readerr(f->cq[e], &err, 0);
                return ovk__fail(OVK_EMPI, "offload fabric: connecting to the peers failed: %s",
                                 fi_strerror(err.err));
            }
        }
        if (now_s() - t0 > WARMUP_TIMEOUT_S)
            return ovk__fail(OVK_EMPI, "offload fabric: peers did not connect within %.0f s", WARMUP_TIMEOUT_S);
    }
    return OVK_OK;
}

static ssize_t post_retry(ssize_t (*fn)(fabric *, int, int, void *), fabric *f, int e, int peer, void *ctx)
{
    ssize_t ret;
    while ((ret = fn(f, e, peer, ctx)) == -FI_EAGAIN) sched_yield();
    return ret;
}

static ssize_t warm_recv(fabric *f, int e, int peer, void *ctx)
{
    return fi_trecv(f->ep[R_EP], &f->warm[NTX], 1, fi_mr_desc(f->warm_mr), FI_ADDR_UNSPEC,
                    TAG_WARM | (uint64_t)e << TAG_EP_SHIFT | (uint64_t)peer, 0, ctx);
}

static ssize_t warm_send(fabric *f, int e, int peer, void *ctx)
{
    return fi_tsend(f->ep[e], &f->warm[e], 1, fi_mr_desc(f->warm_mr), f->addr[peer],
                    TAG_WARM | (uint64_t)e << TAG_EP_SHIFT | (uint64_t)f->rank, ctx);
}

/* Connect every transmit endpoint to the R of every peer of the list and to
 * our own R (the calcs' loop-back), with one tiny message each way: a
 * triggered operation meeting an unconnected peer would stall. */
/* One tiny message each way per transmit endpoint and peer (np of them). */
static int warm_post(fabric *f, const int *peers, int np, struct fi_context2 *ctx)
{
    for (int e = 0; e < NTX; e++)
        for (int p = 0; p < np; p++) {
            ssize_t ret = post_retry(warm_recv, f, e, peers[p], &ctx[2 * (e * np + p)]);
            if (ret >= 0) ret = post_retry(warm_send, f, e, peers[p], &ctx[2 * (e * np + p) + 1]);
            if (ret < 0) return fi_fail((int)ret, "warm-up fi_tsend/fi_trecv");
        }
    return OVK_OK;
}

/* Collective: what it needs, agreed before any message (a rank that posts
 * none leaves its peers waiting for the connection timeout). */
static int warm_up(fabric *f)
{
    int *peers = malloc(((size_t)f->size + 1) * sizeof *peers);
    struct fi_context2 *ctx = NULL;
    int np = 0, rc = peers ? OVK_OK : ovk__fail(OVK_ENOMEM, "offload fabric: peer list");
    if (!rc) {
        np = ovk__off_peers(f->tl, peers);
        peers[np++] = f->rank;
        ctx = calloc(2 * (size_t)np * NTX, sizeof *ctx);
        if (!ctx) rc = ovk__fail(OVK_ENOMEM, "offload fabric: warm-up contexts");
    }
    if (!rc)
        rc = fi_check(fi_mr_reg(f->domain, f->warm, sizeof f->warm, FI_SEND | FI_RECV, 0, f->next_key++, 0,
                                &f->warm_mr, NULL),
                      "fi_mr_reg (warm-up)");
    rc = ovk__agree(f->comm, rc);
    if (rc) goto cleanup;
    rc = warm_post(f, peers, np, ctx);
    if (rc) goto cleanup;
    rc = drain(f, 2 * np * NTX);
cleanup:
    free(ctx);
    free(peers);
    return rc;
}

static void fabric_destroy_local(fabric *f)
{
    for (int e = 0; e <= NTX; e++)
        if (f->ep[e]) fi_close(&f->ep[e]->fid);
    for (int e = 0; e <= NTX; e++)
        if (f->cq[e]) fi_close(&f->cq[e]->fid);
    if (f->warm_mr) fi_close(&f->warm_mr->fid);
    for (int s = 0; f->slot && s < f->depth; s++) {
        fslot *sl = &f->slot[s];
        for (int c = 0; c < sl->ncntr; c++) fi_close(&sl->cntr[c]->fid);
        if (sl->mr) fi_close(&sl->mr->fid);
        free(sl->cntr);
        free(sl->ops);
        free(sl->buf);
    }
    free(f->slot);
    free(f->vt);
    free(f->last);
    if (f->zero) fi_close(&f->zero->fid);
    if (f->av) fi_close(&f->av->fid);
    if (f->domain) fi_close(&f->domain->fid);
    if (f->fabric) fi_close(&f->fabric->fid);
    fi_freeinfo(f->info);
    free(f->addr);
    free(f);
}

/* Collective: no peer may still be talking to our endpoints. */
static void fabric_destroy(void *eng)
{
    fabric *f = eng;
    if (!f) return;
    MPI_Barrier(f->comm);
    fabric_destroy_local(f);
}

/* Local: the engine's state in *out and its libfabric resources. */
static int fabric_new(MPI_Comm comm, const ovk__off_list *tl, int depth, fabric **out)
{
    fabric *f = calloc(1, sizeof *f);
    *out = f;
    if (!f) return ovk__fail(OVK_ENOMEM, "offload fabric");
    f->comm = comm;
    f->tl = tl;
    f->depth = depth;
    f->next_key = 1;
    MPI_Comm_rank(comm, &f->rank);
    MPI_Comm_size(comm, &f->size);
    if (!(f->slot = calloc((size_t)depth, sizeof *f->slot))) return ovk__fail(OVK_ENOMEM, "offload fabric: slots");
    return open_local(f);
}

static int fabric_create(MPI_Comm comm, const ovk__off_list *tl, int depth, void **eng,
                         unsigned long long *window)
{
    fabric *f = NULL;
    int rc = ovk__agree(comm, fabric_new(comm, tl, depth, &f));
    if (rc) goto cleanup;
    rc = exchange_addresses(f);
    if (rc) goto cleanup;
    rc = ovk__agree(comm, warm_up(f));
    if (rc) goto cleanup;
    *eng = f;
    *window = SEQ_WINDOW;
    return OVK_OK;
cleanup:
    if (f) fabric_destroy_local(f);
    return rc;
}

/* ---- a slot's program ------------------------------------------------------------ */

static size_t elem_size(const fslot *sl) { return ovk__type_size(sl->key.type); }

static unsigned char *slot_ptr(const fslot *sl, int slot, int first)
{
    return sl->buf + ((size_t)slot * (size_t)sl->key.count + (size_t)first) * elem_size(sl);
}

/* The registered buffer, grown (re-registered) when count needs more.  The
 * slot is idle; only our own calcs use its key, so nobody else must learn of
 * the change. */
static int fit_buffer(fabric *f, fslot *sl, size_t bytes)
{
    if (bytes <= sl->cap) return OVK_OK;
    if (sl->mr) fi_close(&sl->mr->fid);
    sl->mr = NULL;
    free(sl->buf);
    sl->cap = 0;
    sl->buf = NULL;
    size_t cap = (bytes + ALIGN - 1) / ALIGN * ALIGN;
    if (posix_memalign((void **)&sl->buf, ALIGN, cap) != 0) {
        sl->buf = NULL;
        return ovk__fail(OVK_ENOMEM, "offload fabric: %zu bytes of registered buffer", cap);
    }
    uint64_t access = FI_SEND | FI_RECV | FI_READ | FI_WRITE | FI_REMOTE_READ | FI_REMOTE_WRITE;
    int rc = fi_check(fi_mr_reg(f->domain, sl->buf, cap, access, 0, f->next_key++, 0, &sl->mr, NULL), "fi_mr_reg");
    if (rc) return rc;
    sl->cap = cap;
    return OVK_OK;
}

static int fit_counters(fabric *f, fslot *sl, int n)
{
    struct fi_cntr_attr ca = {.events = FI_CNTR_EVENTS_COMP, .wait_obj = FI_WAIT_UNSPEC};
    if (n > sl->cntr_cap) {
        struct fid_cntr **c = realloc(sl->cntr, (size_t)n * sizeof *c);
        if (!c) return ovk__fail(OVK_ENOMEM, "offload fabric: %d counters", n);
        sl->cntr = c;
        sl->cntr_cap = n;
    }
    while (sl->ncntr < n) {
        int rc = fi_check(fi_cntr_open(f->domain, &ca, &sl->cntr[sl->ncntr], NULL), "fi_cntr_open");
        if (rc) return rc;
        sl->ncntr++;
    }
    return OVK_OK;
}

static int fit_ops(fslot *sl, int nops)
{
    if (nops <= sl->ops_cap) return OVK_OK;
    fop *o = realloc(sl->ops, (size_t)nops * sizeof *o);
    if (!o) return ovk__fail(OVK_ENOMEM, "offload fabric: %d work items", nops);
    sl->ops = o;
    sl->ops_cap = nops;
    return OVK_OK;
}

/* Elements one atomic of this key carries. */
static int chunk_elems(const fabric *f, const prog_key *key)
{
    size_t max = f->maxat[key->type][key->op];
    return max < (size_t)key->count ? (int)max : key->count;
}

/* The build's scratch for n virtual tasks. */
static int fit_vtasks(fabric *f, int n)
{
    if (!f->last && !(f->last = malloc((size_t)(f->tl->ntasks ? f->tl->ntasks : 1) * sizeof *f->last)))
        return ovk__fail(OVK_ENOMEM, "offload fabric: program of %d tasks", f->tl->ntasks);
    if (n <= f->vt_cap) return OVK_OK;
    vtask *v = realloc(f->vt, (size_t)n * sizeof *v);
    if (!v) return ovk__fail(OVK_ENOMEM, "offload fabric: program of %d tasks", f->tl->ntasks);
    f->vt = v;
    f->vt_cap = n;
    return OVK_OK;
}

/* Split the list into virtual tasks (calcs into groups of at most
 * f->group atomics, chained), with predecessors among them, in f->vt. */
static int make_vtasks(fabric *f, const prog_key *key, int *nout)
{
    const ovk__off_list *tl = f->tl;
    int per = chunk_elems(f, key);
    int nchunk = (key->count + per - 1) / per, ngroup = (nchunk + f->group - 1) / f->group, n = 0;
    int rc = fit_vtasks(f, tl->ntasks * ngroup + 1);
    if (rc) return rc;
    vtask *v = f->vt;
    int *last = f->last;
    for (int i = 0; i < tl->ntasks; i++) {
        const ovk__off_task *t = &tl->task[i];
        int groups = t->kind == OVK__OFF_CALC ? ngroup : 1;
        for (int g = 0; g < groups; g++, n++) {
            int c0 = g * f->group, c1 = c0 + f->group < nchunk ? c0 + f->group : nchunk;
            v[n] = (vtask){.task = i, .first = c0 * per, .chunks = t->kind == OVK__OFF_CALC ? c1 - c0 : 0};
            if (g > 0) v[n].pred[v[n].npred++] = n - 1;
            else
                for (int p = 0; p < t->npred; p++) v[n].pred[v[n].npred++] = last[t->pred[p]];
        }
        last[i] = n - 1;
    }
    *nout = n;
    return OVK_OK;
}

/* Endpoints: receives on R; the others on the smallest TX colour that none
 * of their predecessors used (a trigger fires inside a completion of a
 * predecessor's endpoint). */
static int colour(const ovk__off_list *tl, vtask *v, int n)
{
    for (int i = 0; i < n; i++) {
        const ovk__off_task *t = &tl->task[v[i].task];
        if (t->kind == OVK__OFF_RECV) {
            if (v[i].npred)
                return ovk__fail(OVK_EINVAL, "offload fabric: task %d receives after a trigger", v[i].task);
            v[i].color = R_EP;
            continue;
        }
        int used = 0;
        for (int p = 0; p < v[i].npred; p++) used |= 1 << v[v[i].pred[p]].color;
        v[i].color = 0;
        while (used >> v[i].color & 1) v[i].color++;
        if (v[i].color >= NTX)
            return ovk__fail(OVK_EINVAL, "offload fabric: task %d needs more than %d endpoints", v[i].task, NTX);
    }
    return OVK_OK;
}

/* Counters: 0 is DONE (the sinks complete into it), then one per virtual
 * task that has successors, then the joins (one per task with two
 * predecessors), from *join_base on. */
static void assign_counters(const ovk__off_list *tl, vtask *v, int n, int *ncntr, int *join_base, int *nops,
                            int *done_at)
{
    int c = 1, joins = 0, ops = 0;
    *done_at = 0;
    for (int i = 0; i < n; i++) {
        const ovk__off_task *t = &tl->task[v[i].task];
        int sink = t->nsucc == 0 && (i + 1 == n || v[i + 1].task != v[i].task);
        v[i].m = t->kind == OVK__OFF_CALC ? v[i].chunks : 1;
        v[i].own = sink ? 0 : c++;
        if (sink) *done_at += v[i].m;
        joins += v[i].npred > 1;
        ops += v[i].m + (v[i].npred > 1 ? v[i].npred : 0);
    }
    *join_base = c;
    *ncntr = c + joins;
    *nops = ops;
}

static fop *next_op(fslot *sl) { return &sl->ops[sl->nops++]; }

/* The deferred work fields every item has. */
static void set_work(fop *o, enum fi_op_type type, struct fid_cntr *trig, uint64_t thr, struct fid_cntr *done)
{
    o->work.op_type = type;
    o->work.triggering_cntr = trig;
    o->work.threshold = thr;
    o->work.completion_cntr = done;
}

/* The trigger of virtual task i: nothing (the zero counter), its one
 * predecessor's counter, or a join counter raised by CNTR_ADD items. */
static void trigger_of(fslot *sl, const vtask *v, int i, int *join_next, struct fid_cntr **trig, uint64_t *thr)
{
    if (v[i].npred == 0) {
        *trig = NULL;
        *thr = 0;
        return;
    }
    if (v[i].npred == 1) {
        *trig = sl->cntr[v[v[i].pred[0]].own];
        *thr = (uint64_t)v[v[i].pred[0]].m;
        return;
    }
    struct fid_cntr *join = sl->cntr[(*join_next)++];
    for (int p = 0; p < v[i].npred; p++) {
        const vtask *pv = &v[v[i].pred[p]];
        fop *o = next_op(sl);
        o->op.cntr = (struct fi_op_cntr){.cntr = join, .value = 1};
        set_work(o, FI_OP_CNTR_ADD, sl->cntr[pv->own], (uint64_t)pv->m, NULL);
        o->work.op.cntr = &o->op.cntr;
    }
    *trig = join;
    *thr = (uint64_t)v[i].npred;
}

static void add_message(fabric *f, fslot *sl, const ovk__off_task *t, const vtask *vi, struct fid_cntr *trig,
                        uint64_t thr)
{
    fop *o = next_op(sl);
    int recv = t->kind == OVK__OFF_RECV;
    o->iov = (struct iovec){slot_ptr(sl, t->slot, 0), (size_t)sl->key.count * elem_size(sl)};
    o->desc = fi_mr_desc(sl->mr);
    o->msg_tag = t->tag;
    o->tag_rank = recv ? t->peer : f->rank;
    o->op.tagged = (struct fi_op_tagged){.ep = f->ep[vi->color],
                                         .msg = {.msg_iov = &o->iov, .desc = &o->desc, .iov_count = 1,
                                                 .addr = recv ? FI_ADDR_UNSPEC : f->addr[t->peer],
                                                 .context = &o->work.context}};
    o->root = trig == NULL;
    set_work(o, recv ? FI_OP_TRECV : FI_OP_TSEND, trig ? trig : f->zero, thr, sl->cntr[vi->own]);
    o->work.op.tagged = &o->op.tagged;
}

/* Loop-back atomics: dst op= src for the group's chunks, into our own R. */
static void add_calc(fabric *f, fslot *sl, const ovk__off_task *t, const vtask *vi, struct fid_cntr *trig,
                     uint64_t thr)
{
    int per = chunk_elems(f, &sl->key);
    int virt = (f->info->domain_attr->mr_mode & FI_MR_VIRT_ADDR) != 0;
    for (int c = 0; c < vi->chunks; c++) {
        int first = vi->first + c * per, n = sl->key.count - first < per ? sl->key.count - first : per;
        unsigned char *dst = slot_ptr(sl, t->slot, first);
        fop *o = next_op(sl);
        o->ioc = (struct fi_ioc){slot_ptr(sl, t->src, first), (size_t)n};
        o->rioc = (struct fi_rma_ioc){virt ? (uint64_t)(uintptr_t)dst : (uint64_t)(dst - sl->buf), (size_t)n,
                                      fi_mr_key(sl->mr)};
        o->desc = fi_mr_desc(sl->mr);
        o->op.atomic = (struct fi_op_atomic){
            .ep = f->ep[vi->color],
            .msg = {.msg_iov = &o->ioc, .desc = &o->desc, .iov_count = 1, .addr = f->addr[f->rank],
                    .rma_iov = &o->rioc, .rma_iov_count = 1, .datatype = fi_type(sl->key.type),
                    .op = fi_op_of(sl->key.op), .context = &o->work.context}};
        o->root = trig == NULL;
        set_work(o, FI_OP_ATOMIC, trig ? trig : f->zero, thr, sl->cntr[vi->own]);
        o->work.op.atomic = &o->op.atomic;
    }
}

static int fill_program(fabric *f, fslot *sl, const vtask *v, int n, int join_next)
{
    for (int i = 0; i < n; i++) {
        const ovk__off_task *t = &f->tl->task[v[i].task];
        struct fid_cntr *trig;
        uint64_t thr;
        trigger_of(sl, v, i, &join_next, &trig, &thr);
        if (t->kind == OVK__OFF_CALC) add_calc(f, sl, t, &v[i], trig, thr);
        else add_message(f, sl, t, &v[i], trig, thr);
    }
    return OVK_OK;
}

/* Build the slot's program for key (the slot is idle).  It allocates only
 * what the slot has not yet: nothing for a key the reserve covered. */
static int build_program(fabric *f, fslot *sl, const prog_key *key)
{
    int n = 0, ncntr = 0, join_base = 0, nops = 0;
    sl->built = 0;
    sl->key = *key;
    int rc = fit_buffer(f, sl, (size_t)f->tl->nslots * (size_t)key->count * ovk__type_size(key->type));
    if (rc) return rc;
    rc = make_vtasks(f, key, &n);
    if (rc) return rc;
    rc = colour(f->tl, f->vt, n);
    if (rc) return rc;
    assign_counters(f->tl, f->vt, n, &ncntr, &join_base, &nops, &sl->done_at);
    rc = fit_counters(f, sl, ncntr);
    if (rc) return rc;
    rc = fit_ops(sl, nops);
    if (rc) return rc;
    memset(sl->ops, 0, (size_t)nops * sizeof *sl->ops);
    sl->nops = 0;
    rc = fill_program(f, sl, f->vt, n, join_base);
    if (rc) return rc;
    sl->built = 1;
    return OVK_OK;
}

/* The room of slot's programs for counts 1 .. max_count: a program's
 * buffer, tasks, counters and work items grow with the count, so the
 * largest one's room holds each of them.  The slot's program is built again
 * at its next post. */
static int fabric_reserve(void *eng, int slot, int max_count, ovk_datatype type, ovk_op op)
{
    fabric *f = eng;
    fslot *sl = &f->slot[slot];
    if (max_count < 1 || f->broken[0]) return OVK_OK;
    int rc = build_program(f, sl, &(prog_key){max_count, type, op});
    sl->built = 0;
    return rc;
}

/* ---- posting and testing ------------------------------------------------------ */

static uint64_t wire_tag(const fop *o, unsigned long long seq)
{
    return (uint64_t)(seq % SEQ_WINDOW) << TAG_SEQ_SHIFT | (uint64_t)o->msg_tag << TAG_MSG_SHIFT |
           (uint64_t)(uint32_t)o->tag_rank;
}

static int queue(fabric *f, fop *o, unsigned long long seq)
{
    ssize_t ret;
    if (o->work.op_type == FI_OP_TSEND || o->work.op_type == FI_OP_TRECV) o->op.tagged.msg.tag = wire_tag(o, seq);
    memset(&o->work.context, 0, sizeof o->work.context);
    while ((ret = fi_control(&f->domain->fid, FI_QUEUE_WORK, &o->work)) == -FI_EAGAIN) sched_yield();
    return fi_check(ret, "fi_control(FI_QUEUE_WORK)");
}

/* Queueing order: 0 triggered items, 1 root receives, 2 other roots. */
static int queue_pass(const fop *o)
{
    if (!o->root) return 0;
    return o->work.op_type == FI_OP_TRECV ? 1 : 2;
}

/* Zero the slot's counters, then queue its items: triggered ones first
 * (their counters are still zero), then the roots, which run at once,
 * receives before sends. */
static int queue_all(fabric *f, fslot *sl, unsigned long long seq)
{
    for (int c = 0; c < sl->ncntr; c++) {
        int rc = fi_check(fi_cntr_set(sl->cntr[c], 0), "fi_cntr_set");
        if (rc) return rc;
    }
    for (int pass = 0; pass < 3; pass++)
        for (int i = 0; i < sl->nops; i++) {
            if (queue_pass(&sl->ops[i]) != pass) continue;
            int rc = queue(f, &sl->ops[i], seq);
            if (rc) return rc;
        }
    return OVK_OK;
}

static int fabric_post(void *eng, const ovk__off_post *p)
{
    fabric *f = eng;
    fslot *sl = &f->slot[p->slot];
    prog_key key = {p->r->count, p->r->type, p->r->op};
    int rc = OVK_OK;
    if (f->broken[0]) return ovk__fail(OVK_EMPI, "%s", f->broken);
    if (!sl->built || memcmp(&key, &sl->key, sizeof key) != 0) rc = build_program(f, sl, &key);
    if (rc) return rc;
    memcpy(slot_ptr(sl, 0, 0), p->r->sendbuf, (size_t)key.count * elem_size(sl));
    sl->recvbuf = p->r->recvbuf;
    rc = queue_all(f, sl, p->seq);
    if (rc) snprintf(f->broken, sizeof f->broken, "offload fabric: unusable since a post failed: %s", ovk_error_detail());
    return rc;
}

static void copy_out(fslot *sl, const ovk__off_list *tl)
{
    memcpy(sl->recvbuf, sl->buf + (size_t)tl->result * (size_t)sl->key.count * elem_size(sl),
           (size_t)sl->key.count * elem_size(sl));
}

static int fabric_test(void *eng, int slot, int *done)
{
    fabric *f = eng;
    fslot *sl = &f->slot[slot];
    *done = fi_cntr_read(sl->cntr[0]) >= (uint64_t)sl->done_at;
    if (*done) copy_out(sl, f->tl);
    return OVK_OK;
}

/* A failed operation reports to its endpoint's completion queue. */
static int check_errors(fabric *f)
{
    for (int e = 0; e <= NTX; e++) {
        struct fi_cq_err_entry err = {0};
        if (fi_cq_readerr(f->cq[e], &err, 0) > 0)
            return ovk__fail(OVK_EMPI, "offload fabric: a triggered operation failed: %s",
                             fi_cq_strerror(f->cq[e], err.prov_errno, err.err_data, NULL, 0));
    }
    return OVK_OK;
}

static void nap(long ns)
{
    struct timespec t = {ns / NS_PER_S, ns % NS_PER_S};
    while (nanosleep(&t, &t) == -1 && errno == EINTR) {
    }
}

/* Read the DONE counter until the sinks have completed, napping between
 * reads (from NAP_MIN_NS, doubling up to NAP_MAX_NS) so that the provider's
 * progress thread gets a core on a small machine (measured: yielding instead
 * costs 8x at 4 ranks on 2 cores); every CHECK_S the completion queues are
 * checked for a failed operation.  (The provider's fi_cntr_wait with a
 * timeout returns at once, and without one it could not report such a
 * failure.) */
static int fabric_wait(void *eng, int slot)
{
    fabric *f = eng;
    fslot *sl = &f->slot[slot];
    double last_check = now_s();
    long ns = NAP_MIN_NS;
    while (fi_cntr_read(sl->cntr[0]) < (uint64_t)sl->done_at) {
        nap(ns);
        ns = ns * 2 < NAP_MAX_NS ? ns * 2 : NAP_MAX_NS;
        if (now_s() - last_check < CHECK_S) continue;
        last_check = now_s();
        int rc = check_errors(f);
        if (rc) return rc;
    }
    copy_out(sl, f->tl);
    return OVK_OK;
}

const ovk__off_engine ovk__off_fabric = {
    .name = "fabric",
    .needs_threads = 0, .usable = fabric_usable,
    .create = fabric_create, .reserve = fabric_reserve, .destroy = fabric_destroy,
    .post = fabric_post, .test = fabric_test, .wait = fabric_wait,
};

#else
/* Built without libfabric: the fabric engine is absent (offload.c says so). */
typedef int ovk__off_fabric_absent;
#endif

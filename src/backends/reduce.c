/* The generic reduction layer: the reducer (its private communicator, the
 * backend in use: the slot a decorator takes with ovk__reducer_set_backend),
 * the request pool and request states.  Backends only move data; every
 * state check lives here.  Which backend a spec names, and the reducer made
 * from a spec, are the registry's (registry.c): this file calls neither it
 * nor a decorator. */
#include <stdlib.h>
#include <string.h>

#include "backend.h"

enum req_state { REQ_FREE = 0, REQ_ACTIVE, REQ_DONE };

#define POOL_CHUNK 16

struct ovk_request {
    ovk_reducer *red;
    enum req_state state;
    int waited;
    int status;     /* a failure found by a test or a progress call, kept for the wait */
    char *detail;   /* its ovk_error_detail() (owned; NULL when none or out of memory) */
    struct ovk_request *next_free;
    _Alignas(16) unsigned char impl[OVK__REQ_IMPL_BYTES + OVK__REQ_DECOR_BYTES];
};

typedef struct pool_chunk {
    struct pool_chunk *next;
    struct ovk_request req[POOL_CHUNK];
} pool_chunk;

struct ovk_reducer {
    const ovk__backend *base; /* the backend of the spec */
    const ovk__backend *be;   /* the one in use: base, or a decorator around it */
    void *state;
    MPI_Comm comm;
    char spec[256];
    int outstanding;
    int users; /* solves in flight (ovk__reducer_hold) */
    long long started;
    ovk_request *free_list;
    pool_chunk *chunks;
};

/* ---- reducers --------------------------------------------------------- */

/* POOL_CHUNK more free requests */
static int grow_pool(ovk_reducer *red)
{
    pool_chunk *c = calloc(1, sizeof *c);
    if (!c) return ovk__fail(OVK_ENOMEM, "request pool");
    c->next = red->chunks;
    red->chunks = c;
    for (int i = POOL_CHUNK - 1; i >= 0; i--) {
        c->req[i].red = red;
        c->req[i].next_free = red->free_list;
        red->free_list = &c->req[i];
    }
    return OVK_OK;
}

/* The first POOL_CHUNK requests come with the reducer: a start, which no
 * rank can refuse alone once the others are in the collective, allocates
 * only beyond them. */
int ovk__reducer_alloc(const ovk__backend *be, const char *spec, ovk_reducer **out)
{
    ovk_reducer *red = calloc(1, sizeof *red);
    if (!red) return ovk__fail(OVK_ENOMEM, "reducer");
    red->base = red->be = be;
    red->comm = MPI_COMM_NULL;
    snprintf(red->spec, sizeof red->spec, "%s", spec);
    *out = red;
    return grow_pool(red);
}

int ovk__reducer_reserve(ovk_reducer *red, int max_count, ovk_datatype type, ovk_op op, int inflight)
{
    int free_requests = 0;
    for (const ovk_request *r = red->free_list; r; r = r->next_free) free_requests++;
    while (free_requests + red->outstanding < inflight) {
        int rc = grow_pool(red);
        if (rc) return rc;
        free_requests += POOL_CHUNK;
    }
    return red->be->reserve ? red->be->reserve(red->state, max_count, type, op, inflight) : OVK_OK;
}

int ovk__reducer_open(ovk_reducer *red, MPI_Comm comm)
{
    return red->base->shares_comm ? ovk__comm_acquire(comm, &red->comm) : ovk__comm_private(comm, &red->comm);
}

static void close_comm(ovk_reducer *red)
{
    if (red->base->shares_comm) ovk__comm_release(&red->comm);
    else if (red->comm != MPI_COMM_NULL) MPI_Comm_free(&red->comm);
}

static void free_pool(ovk_reducer *red)
{
    while (red->chunks) {
        pool_chunk *next = red->chunks->next;
        for (int i = 0; i < POOL_CHUNK; i++) free(red->chunks->req[i].detail); /* completed, never freed */
        free(red->chunks);
        red->chunks = next;
    }
}

void ovk__reducer_discard(ovk_reducer *red)
{
    if (!red) return;
    if (red->state) red->be->destroy(red->state);
    free_pool(red);
    close_comm(red);
    free(red);
}

int ovk_reducer_destroy(ovk_reducer *red)
{
    if (!red) return OVK_OK;
    if (red->users) /* local: only the callback's rank is here */
        return ovk__fail(OVK_EBUSY, "ovk_reducer_destroy: the reducer is in use by %d solve(s) in flight (called "
                                    "from a callback?); destroy it after the solve returns",
                         red->users);
    int rc = red->outstanding ? ovk__fail(OVK_EBUSY, "ovk_reducer_destroy: %d requests still outstanding",
                                          red->outstanding)
                              : OVK_OK;
    rc = ovk__agree(red->comm, rc);
    if (rc) return rc; /* one busy rank: nobody enters the collective destroy */
    red->be->destroy(red->state);
    free_pool(red);
    close_comm(red);
    free(red);
    return OVK_OK;
}

const char *ovk_reducer_name(const ovk_reducer *red) { return red ? red->base->name : ""; }
unsigned ovk_reducer_caps(const ovk_reducer *red)
{
    if (!red) return 0u;
    return red->be->caps_of ? red->be->caps_of(red->state) : red->be->caps;
}
const char *ovk_reducer_spec(const ovk_reducer *red) { return red ? red->spec : ""; }
MPI_Comm ovk__reducer_comm(const ovk_reducer *red) { return red->comm; }
int ovk__reducer_users(const ovk_reducer *red) { return red->users; }
long long ovk__reducer_started(const ovk_reducer *red) { return red->started; }

const ovk__backend *ovk__reducer_backend(const ovk_reducer *red, void **state)
{
    *state = red->state;
    return red->be;
}

void ovk__reducer_set_backend(ovk_reducer *red, const ovk__backend *be, void *state)
{
    red->be = be;
    red->state = state;
}

int ovk__reducer_outstanding(const ovk_reducer *red) { return red->outstanding; }

/* ---- requests --------------------------------------------------------- */

static int request_alloc(ovk_reducer *red, ovk_request **out)
{
    if (!red->free_list) {
        int rc = grow_pool(red);
        if (rc) return rc;
    }
    ovk_request *r = red->free_list;
    red->free_list = r->next_free;
    r->state = REQ_ACTIVE;
    r->waited = 0;
    r->status = OVK_OK;
    r->detail = NULL;
    *out = r;
    return OVK_OK;
}

static void request_release(ovk_request *r)
{
    free(r->detail);
    r->detail = NULL;
    r->state = REQ_FREE;
    r->next_free = r->red->free_list;
    r->red->free_list = r;
}

static int check_reduction(const ovk__reduction *x)
{
    if (x->count < 0) return ovk__fail(OVK_EINVAL, "reduction count %d < 0", x->count);
    if (x->count > 0 && (!x->sendbuf || !x->recvbuf))
        return ovk__fail(OVK_EINVAL, "reduction buffer is NULL");
    if (x->type != OVK_DOUBLE && x->type != OVK_INT64)
        return ovk__fail(OVK_EINVAL, "unknown datatype %d", (int)x->type);
    if (x->op != OVK_SUM && x->op != OVK_MAX && x->op != OVK_MIN)
        return ovk__fail(OVK_EINVAL, "unknown reduction op %d", (int)x->op);
    return OVK_OK;
}

static int start_on(ovk_request *r, const ovk__reduction *x)
{
    ovk_reducer *red = r->red;
    int rc = red->be->start(red->state, x, r->impl);
    if (rc) {
        request_release(r);
        return rc;
    }
    red->outstanding++;
    red->started++;
    return OVK_OK;
}

int ovk_reduce_start(ovk_reducer *red, const void *sendbuf, void *recvbuf, int count,
                     ovk_datatype type, ovk_op op, ovk_request **req)
{
    ovk__reduction x = {sendbuf, recvbuf, count, type, op};
    ovk_request *r = NULL;
    if (!red || !req) return ovk__fail(OVK_EINVAL, "ovk_reduce_start: NULL reducer or request");
    *req = NULL;
    int rc = check_reduction(&x);
    if (rc) return rc;
    rc = request_alloc(red, &r);
    if (rc) return rc;
    rc = start_on(r, &x);
    if (rc) return rc;
    *req = r;
    return OVK_OK;
}

static void mark_done(ovk_request *r)
{
    r->state = REQ_DONE;
    r->red->outstanding--;
}

/* Keep a failure found before the wait: the request is complete, and every
 * later test or wait of it returns the failure with its detail. */
static void keep_failure(ovk_request *r, int rc)
{
    const char *d = ovk_error_detail();
    size_t len = strlen(d) + 1;
    r->status = rc;
    r->detail = malloc(len);
    if (r->detail) memcpy(r->detail, d, len);
}

/* The kept failure, raised again. */
static int kept_failure(const ovk_request *r, const char *call)
{
    if (r->detail) return ovk__fail(r->status, "%s", r->detail);
    return ovk__fail(r->status, "%s: the reduction failed in an earlier test or progress call", call);
}

/* Test the backend once. */
static int poll(ovk_request *r)
{
    int done = 0;
    int rc = r->red->be->test(r->red->state, r->impl, &done);
    if (rc) keep_failure(r, rc);
    if (rc || done) mark_done(r); /* failed: complete, so that it can be freed */
    return rc;
}

static int state_error(const ovk_request *r, const char *call)
{
    if (!r) return ovk__fail(OVK_EINVAL, "%s: NULL request", call);
    if (r->state == REQ_FREE) return ovk__fail(OVK_ESTATE, "%s: request was already freed", call);
    return OVK_OK;
}

int ovk_reduce_test(ovk_request *r, int *done)
{
    int rc = state_error(r, "ovk_reduce_test");
    if (rc) return rc;
    if (!done) return ovk__fail(OVK_EINVAL, "ovk_reduce_test: NULL flag");
    *done = 0;
    if (r->state == REQ_ACTIVE) {
        rc = poll(r);
        if (rc) return rc;
    }
    if (r->status) return kept_failure(r, "ovk_reduce_test"); /* failed earlier */
    *done = r->state == REQ_DONE;
    return OVK_OK;
}

int ovk_reduce_wait(ovk_request *r)
{
    int rc = state_error(r, "ovk_reduce_wait");
    if (rc) return rc;
    if (r->waited) return ovk__fail(OVK_ESTATE, "ovk_reduce_wait: request was already waited on");
    if (r->state == REQ_ACTIVE) {
        rc = r->red->be->wait(r->red->state, r->impl);
        mark_done(r); /* failed: complete, so that it can be freed */
    } else if (r->status) {
        rc = kept_failure(r, "ovk_reduce_wait"); /* failed in a test or progress call */
    }
    r->waited = 1;
    return rc;
}

int ovk_request_free(ovk_request *r)
{
    int rc = state_error(r, "ovk_request_free");
    if (rc) return rc;
    if (r->state == REQ_ACTIVE)
        return ovk__fail(OVK_EBUSY, "ovk_request_free: request still in flight; wait on it first");
    request_release(r);
    return OVK_OK;
}

int ovk_reducer_progress(ovk_reducer *red)
{
    if (!red) return ovk__fail(OVK_EINVAL, "ovk_reducer_progress: NULL reducer");
    if (red->outstanding == 0) return OVK_OK;
    if (red->be->progress) return red->be->progress(red->state);
    /* no progress entry: poll every request in flight */
    for (pool_chunk *c = red->chunks; c; c = c->next)
        for (int i = 0; i < POOL_CHUNK; i++) {
            ovk_request *r = &c->req[i];
            if (r->state != REQ_ACTIVE) continue;
            int rc = poll(r);
            if (rc) return rc;
        }
    return OVK_OK;
}

void ovk__reducer_hold(ovk_reducer *red, int delta)
{
    if (red) red->users += delta;
}

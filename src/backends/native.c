/* Backend "native": the MPI library's own MPI_Iallreduce on the backend's
 * private communicator.  With persistent=1 it uses persistent collectives
 * (MPI-4 MPI_Allreduce_init, or Open MPI's MPIX_Allreduce_init extension),
 * initialised once per distinct (buffers, count, type, op) and then only
 * started and completed. */
#include <stdlib.h>
#include <string.h>

#include "backend.h"

/* OVK_HAVE_MPI_ALLREDUCE_INIT, OVK_HAVE_MPIX_ALLREDUCE_INIT: found by CMake
 * (check_symbol_exists) in the MPI the library is built with. */
#if defined(OVK_HAVE_MPI_ALLREDUCE_INIT)
#define HAVE_PERSISTENT 1
#define ALLREDUCE_INIT MPI_Allreduce_init
#define PERSISTENT_SOURCE "MPI-4 MPI_Allreduce_init"
#elif defined(OVK_HAVE_MPIX_ALLREDUCE_INIT)
#include <mpi-ext.h>
#define HAVE_PERSISTENT 1
#define ALLREDUCE_INIT MPIX_Allreduce_init
#define PERSISTENT_SOURCE "Open MPI MPIX_Allreduce_init"
#else
#define HAVE_PERSISTENT 0
#endif

/* Persistent requests are kept per distinct reduction; the request pool of
 * the generic layer reuses a handful of buffers, so a small cache suffices. */
#define PCACHE_SIZE 64

typedef struct pentry {
    ovk__reduction key;
    MPI_Request req;
    int busy;
    unsigned long last_use;
} pentry;

typedef struct native_state {
    MPI_Comm comm;
    int persistent;
    unsigned long clock;
    pentry cache[PCACHE_SIZE];
} native_state;

typedef struct native_req {
    MPI_Request req;  /* non-persistent request */
    pentry *entry;    /* persistent entry, or NULL */
} native_req;

static int native_create(MPI_Comm comm, ovk__opts *opts, void **state)
{
    long persistent = 0;
    int rc = ovk__opt_int(opts, "native", "persistent", 0, 1, &persistent);
    if (rc) return rc;
    if (persistent && !HAVE_PERSISTENT)
        return ovk__fail(OVK_EUNSUPPORTED, "native:persistent=1 needs MPI_Allreduce_init (MPI-4) or "
                                           "Open MPI's MPIX_Allreduce_init; this MPI has neither");
    native_state *s = calloc(1, sizeof *s);
    if (!s) return ovk__fail(OVK_ENOMEM, "native backend state");
    s->comm = comm;
    s->persistent = (int)persistent;
    for (int i = 0; i < PCACHE_SIZE; i++) s->cache[i].req = MPI_REQUEST_NULL;
    *state = s;
    return OVK_OK;
}

static void native_destroy(void *state)
{
    native_state *s = state;
    for (int i = 0; i < PCACHE_SIZE; i++)
        if (s->cache[i].req != MPI_REQUEST_NULL) MPI_Request_free(&s->cache[i].req);
    free(s);
}

static const void *send_arg(const ovk__reduction *r)
{
    return r->sendbuf == r->recvbuf ? MPI_IN_PLACE : r->sendbuf;
}

#if HAVE_PERSISTENT
static int same_key(const ovk__reduction *a, const ovk__reduction *b)
{
    return a->sendbuf == b->sendbuf && a->recvbuf == b->recvbuf && a->count == b->count &&
           a->type == b->type && a->op == b->op;
}

/* Find the persistent request of r, or initialise one in the least recently
 * used idle slot.  Every rank makes the same calls in the same order, so the
 * collective initialisations match. */
static int persistent_entry(native_state *s, const ovk__reduction *r, pentry **out)
{
    pentry *victim = NULL;
    for (int i = 0; i < PCACHE_SIZE; i++) {
        pentry *e = &s->cache[i];
        if (e->req != MPI_REQUEST_NULL && same_key(&e->key, r) && !e->busy) {
            *out = e;
            return OVK_OK;
        }
        if (!e->busy && (!victim || e->last_use < victim->last_use)) victim = e;
    }
    if (!victim) return ovk__fail(OVK_EBUSY, "native: more than %d persistent reductions in flight", PCACHE_SIZE);
    if (victim->req != MPI_REQUEST_NULL) MPI_Request_free(&victim->req);
    int mrc = ALLREDUCE_INIT(send_arg(r), r->recvbuf, r->count, ovk__mpi_type(r->type),
                             ovk__mpi_op(r->op), s->comm, MPI_INFO_NULL, &victim->req);
    if (mrc != MPI_SUCCESS) return ovk__mpi_fail(mrc, PERSISTENT_SOURCE);
    victim->key = *r;
    *out = victim;
    return OVK_OK;
}

static int start_persistent(native_state *s, const ovk__reduction *r, native_req *nr)
{
    pentry *e = NULL;
    int rc = persistent_entry(s, r, &e);
    if (rc) return rc;
    int mrc = MPI_Start(&e->req);
    if (mrc != MPI_SUCCESS) return ovk__mpi_fail(mrc, "MPI_Start");
    e->busy = 1;
    e->last_use = ++s->clock;
    nr->entry = e;
    return OVK_OK;
}
#endif

static int native_start(void *state, const ovk__reduction *r, void *impl)
{
    native_state *s = state;
    native_req *nr = impl;
    nr->req = MPI_REQUEST_NULL;
    nr->entry = NULL;
#if HAVE_PERSISTENT
    if (s->persistent) return start_persistent(s, r, nr);
#endif
    int mrc = MPI_Iallreduce(send_arg(r), r->recvbuf, r->count, ovk__mpi_type(r->type),
                             ovk__mpi_op(r->op), s->comm, &nr->req);
    return mrc == MPI_SUCCESS ? OVK_OK : ovk__mpi_fail(mrc, "MPI_Iallreduce");
}

static MPI_Request *request_of(native_req *nr) { return nr->entry ? &nr->entry->req : &nr->req; }

static int native_test(void *state, void *impl, int *done)
{
    (void)state;
    native_req *nr = impl;
    int mrc = MPI_Test(request_of(nr), done, MPI_STATUS_IGNORE);
    if (mrc != MPI_SUCCESS) return ovk__mpi_fail(mrc, "MPI_Test");
    if (*done && nr->entry) nr->entry->busy = 0;
    return OVK_OK;
}

static int native_wait(void *state, void *impl)
{
    (void)state;
    native_req *nr = impl;
    int mrc = MPI_Wait(request_of(nr), MPI_STATUS_IGNORE);
    if (mrc != MPI_SUCCESS) return ovk__mpi_fail(mrc, "MPI_Wait");
    if (nr->entry) nr->entry->busy = 0;
    return OVK_OK;
}

static int native_available(void) { return 1; }

const ovk__backend ovk__backend_native = {
    .name = "native",
    .description = "the MPI library's MPI_Iallreduce (progress as the MPI provides it)",
#if HAVE_PERSISTENT
    .options = "persistent=0|1: use " PERSISTENT_SOURCE " persistent requests",
#else
    .options = "persistent=0|1: persistent collectives (not available with this MPI)",
#endif
    .caps = OVK_CAP_NONBLOCKING | OVK_CAP_NEEDS_TEST,
    .available = native_available,
    .create = native_create,
    .destroy = native_destroy,
    .start = native_start,
    .test = native_test,
    .wait = native_wait,
    .progress = NULL,
};

_Static_assert(sizeof(native_req) <= OVK__REQ_IMPL_BYTES, "native_req must fit the request scratch");

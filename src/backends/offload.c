/* Backend "offload": allreduce as a task list (offload.h) handed to an engine
 * that runs it without the host, in the manner of the seed's CORE-Direct
 * offload: the host posts and later reads a flag or a counter.
 *
 *   engine=fabric  libfabric triggered operations (offload_fabric.c)
 *   engine=agent   a dedicated thread per process (offload_agent.c)
 *
 * The task list is built once per reducer (its shape depends on the ranks
 * and the algorithm only).  Reductions in flight occupy slots of a queue of
 * `depth`; a start finding every slot taken is refused with OVK_EBUSY.  The
 * slot, the sequence number and the trivial cases (count 0, one rank) are
 * handled here; engines only run lists.  See docs/offload.md.
 */
#include <stdlib.h>
#include <string.h>

#include "offload.h"

#define NAME "offload"
#define DEFAULT_DEPTH 16
#define MAX_DEPTH 64

enum engine_choice { ENGINE_AUTO = 0, ENGINE_FABRIC, ENGINE_AGENT };
static const char *const engine_names[] = {"auto", "fabric", "agent", NULL};
static const char *const alg_names[] = {"rd", "knomial", NULL};
static const char *const scheme_names[] = {"flat", "twolevel", NULL};

/* Bits of the engines usable on a rank (agreed over the communicator). */
enum { USE_FABRIC = 1, USE_AGENT = 2 };

typedef struct off_conf {
    int engine;
    ovk__off_alg alg;
    ovk__off_scheme scheme;
    int k, depth;
    long ppn;
} off_conf;

typedef struct off_state {
    MPI_Comm comm; /* the generic layer's private communicator (not ours to free) */
    int rank, size;
    off_conf conf;
    int *node_of;
    ovk__off_list tl;
    const ovk__off_engine *eng;
    void *e;
    unsigned long long window, seq;
    unsigned long long *slot_seq; /* [depth] sequence number of the reduction in the slot */
    unsigned char *busy;          /* [depth] */
    int nbusy;
} off_state;

/* What lives in the request's impl scratch. */
typedef struct off_req {
    int slot; /* -1: complete without the engine (count 0, one rank) */
} off_req;

_Static_assert(sizeof(off_req) <= OVK__REQ_IMPL_BYTES, "off_req must fit the request scratch");

/* ---- engines -------------------------------------------------------------- */

static const ovk__off_engine *fabric_engine(void)
{
#ifdef OVK_HAVE_LIBFABRIC
    return &ovk__off_fabric;
#else
    return NULL;
#endif
}

/* The engines usable here; why_fabric/why_agent say what is missing. */
static int usable_bits(char *why_fabric, char *why_agent, size_t len)
{
    const ovk__off_engine *fab = fabric_engine();
    int bits = 0;
    if (!fab) snprintf(why_fabric, len, "the fabric engine is not built (libfabric was not found at build time)");
    else if (fab->usable(why_fabric, len)) bits |= USE_FABRIC;
    if (ovk__off_agent.usable(why_agent, len)) bits |= USE_AGENT;
    return bits;
}

static int off_available(void)
{
    char w1[256], w2[256];
    return usable_bits(w1, w2, sizeof w1) != 0;
}

/* What the engine of an offload spec needs: engine=auto takes fabric when
 * it is usable in this process, else the agent thread.  Local. */
static int off_caps_of_spec(ovk__opts *o, unsigned *caps)
{
    char why[256];
    int engine = ENGINE_AUTO;
    int rc = ovk__opt_choice(o, NAME, "engine", engine_names, &engine);
    const ovk__off_engine *fab = fabric_engine();
    int fabric = engine == ENGINE_FABRIC || (engine == ENGINE_AUTO && fab && fab->usable(why, sizeof why));
    *caps = OVK_CAP_NONBLOCKING | OVK_CAP_ASYNC;
    if (!fabric || (fab && fab->needs_threads)) *caps |= OVK_CAP_NEEDS_THREADS;
    return rc;
}

/* The engine every rank can run: the requested one, or for auto fabric
 * before agent.  Collective. */
static int choose_engine(off_state *s, const ovk__off_engine **out)
{
    char why_fabric[256], why_agent[256];
    int mine = usable_bits(why_fabric, why_agent, sizeof why_fabric), all = 0;
    int rc = ovk__mpi(MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_BAND, s->comm), "MPI_Allreduce");
    if (rc) return rc;
    if (s->conf.engine == ENGINE_FABRIC || (s->conf.engine == ENGINE_AUTO && (all & USE_FABRIC))) {
        if (!(all & USE_FABRIC))
            return ovk__fail(OVK_EUNSUPPORTED, "offload:engine=fabric: %s",
                             (mine & USE_FABRIC) ? "not usable on every rank" : why_fabric);
        *out = fabric_engine();
        return OVK_OK;
    }
    if (all & USE_AGENT) {
        *out = &ovk__off_agent;
        return OVK_OK;
    }
    if (s->conf.engine == ENGINE_AGENT)
        return ovk__fail(OVK_EUNSUPPORTED, "offload:engine=agent: %s",
                         (mine & USE_AGENT) ? "not usable on every rank" : why_agent);
    return ovk__fail(OVK_EUNSUPPORTED, "offload: no engine can run here: fabric: %s; agent: %s", why_fabric,
                     why_agent);
}

/* ---- options and nodes ------------------------------------------------------ */

static int read_options(ovk__opts *o, off_conf *c)
{
    int engine = ENGINE_AUTO, alg = OVK__OFF_RD, scheme = OVK__OFF_FLAT;
    long k = OVK__OFF_K_MIN, depth = DEFAULT_DEPTH, ppn = 0;
    const ovk__opt_entry t[] = {
        OVK__OPT_CHOICE("engine", engine_names, &engine),
        OVK__OPT_CHOICE("alg", alg_names, &alg),
        OVK__OPT_INT("k", OVK__OFF_K_MIN, OVK__OFF_K_MAX, &k),
        OVK__OPT_CHOICE("scheme", scheme_names, &scheme),
        OVK__OPT_INT("ppn", 0, INT32_MAX, &ppn),
        OVK__OPT_INT("depth", 1, MAX_DEPTH, &depth),
    };
    int rc = ovk__opts_read(o, NAME, t, (int)(sizeof t / sizeof t[0]));
    if (rc) return rc;
    *c = (off_conf){engine, (ovk__off_alg)alg, (ovk__off_scheme)scheme, (int)k, (int)depth, ppn};
    return OVK_OK;
}

/* node_of[r] = lowest rank on r's node: nodes of ppn consecutive ranks, or
 * for ppn = 0 the real ones (MPI_COMM_TYPE_SHARED).  Only twolevel looks at
 * nodes; flat gets one node per rank without a collective. */
static int find_nodes(off_state *s)
{
    long ppn = s->conf.scheme == OVK__OFF_TWOLEVEL ? s->conf.ppn : 1;
    if (!(s->node_of = malloc((size_t)s->size * sizeof *s->node_of)))
        return ovk__fail(OVK_ENOMEM, "offload: node map");
    if (ppn > 0) {
        for (int r = 0; r < s->size; r++) s->node_of[r] = (int)(r / ppn * ppn);
        return OVK_OK;
    }
    return ovk__node_leaders(s->comm, s->rank, s->node_of);
}

/* ---- the vtable ------------------------------------------------------------- */

static void off_destroy(void *state)
{
    off_state *s = state;
    if (!s) return;
    if (s->e) s->eng->destroy(s->e);
    ovk__off_list_free(&s->tl);
    free(s->node_of);
    free(s->slot_seq);
    free(s->busy);
    free(s);
}

/* Everything local: options, ranks, queue bookkeeping. */
static int init_state(MPI_Comm comm, ovk__opts *opts, off_state **out)
{
    off_state *s = calloc(1, sizeof *s);
    if (!s) return ovk__fail(OVK_ENOMEM, "offload backend state");
    *out = s;
    s->comm = comm;
    int rc = read_options(opts, &s->conf);
    if (rc) return rc;
    rc = ovk__mpi(MPI_Comm_rank(comm, &s->rank), "MPI_Comm_rank");
    if (rc) return rc;
    rc = ovk__mpi(MPI_Comm_size(comm, &s->size), "MPI_Comm_size");
    if (rc) return rc;
    s->slot_seq = calloc((size_t)s->conf.depth, sizeof *s->slot_seq);
    s->busy = calloc((size_t)s->conf.depth, 1);
    if (!s->slot_seq || !s->busy) return ovk__fail(OVK_ENOMEM, "offload: queue of %d", s->conf.depth);
    return OVK_OK;
}

static int off_create(MPI_Comm comm, ovk__opts *opts, void **state)
{
    off_state *s = NULL;
    int rc = ovk__agree(comm, init_state(comm, opts, &s));
    if (rc) goto cleanup;
    rc = ovk__agree(comm, find_nodes(s));
    if (rc) goto cleanup;
    ovk__off_topo topo = {s->size, s->rank, s->node_of};
    rc = ovk__agree(comm, ovk__off_build(s->conf.alg, s->conf.scheme, s->conf.k, &topo, &s->tl));
    if (rc) goto cleanup;
    rc = choose_engine(s, &s->eng);
    if (rc) goto cleanup;
    rc = s->eng->create(comm, &s->tl, s->conf.depth, &s->e, &s->window);
    if (rc) goto cleanup;
    *state = s;
    return OVK_OK;
cleanup:
    off_destroy(s);
    return rc;
}

/* A free queue slot whose tag window is clear, or OVK_EBUSY. */
static int find_slot(const off_state *s, int *slot)
{
    int free_slot = -1;
    for (int i = 0; i < s->conf.depth; i++) {
        if (!s->busy[i]) {
            if (free_slot < 0) free_slot = i;
        } else if (s->seq - s->slot_seq[i] >= s->window) {
            return ovk__fail(OVK_EBUSY, "offload: %llu reductions started since the oldest one in flight; "
                                        "message tags would repeat (complete it first)",
                             s->window);
        }
    }
    if (free_slot < 0)
        return ovk__fail(OVK_EBUSY, "offload: %d reductions in flight fill the engine's queue (depth=%d); "
                                    "complete one first, or raise depth (at most %d)",
                         s->conf.depth, s->conf.depth, MAX_DEPTH);
    *slot = free_slot;
    return OVK_OK;
}

static int off_start(void *state, const ovk__reduction *r, void *impl)
{
    off_state *s = state;
    off_req *req = impl;
    int slot = -1;
    req->slot = -1;
    if (ovk__reduction_is_local(r, s->size)) return OVK_OK;
    int rc = find_slot(s, &slot);
    if (rc) return rc;
    rc = s->eng->post(s->e, &(ovk__off_post){r, slot, s->seq});
    if (rc) return rc;
    s->busy[slot] = 1;
    s->slot_seq[slot] = s->seq++;
    s->nbusy++;
    req->slot = slot;
    return OVK_OK;
}

static void release(off_state *s, off_req *req)
{
    s->busy[req->slot] = 0;
    s->nbusy--;
    req->slot = -1;
}

static int off_test(void *state, void *impl, int *done)
{
    off_state *s = state;
    off_req *req = impl;
    *done = 1;
    if (req->slot < 0) return OVK_OK;
    int rc = s->eng->test(s->e, req->slot, done);
    if (rc) return rc;
    if (*done) release(s, req);
    return OVK_OK;
}

static int off_wait(void *state, void *impl)
{
    off_state *s = state;
    off_req *req = impl;
    if (req->slot < 0) return OVK_OK;
    int rc = s->eng->wait(s->e, req->slot);
    if (rc) return rc;
    release(s, req);
    return OVK_OK;
}

#ifdef OVK_HAVE_LIBFABRIC
#define ENGINE_OPTION "engine=auto|fabric|agent: who runs the task lists (auto: fabric when a libfabric "    \
                      "provider has triggered operations, else agent)"
#else
#define ENGINE_OPTION "engine=auto|agent: who runs the task lists (fabric: not built, libfabric was not found)"
#endif

/* The engine's scratch for posts of up to max_count elements, in every
 * idle slot (a slot busy with the caller's own reduction keeps what it has
 * until a later reserve; one rank: every reduction is trivial). */
static int off_reserve(void *state, int max_count, ovk_datatype type, ovk_op op, int inflight)
{
    (void)inflight; /* the engine's depth bounds the reductions in flight */
    off_state *s = state;
    int rc = OVK_OK;
    if (s->size == 1 || !s->eng->reserve) return OVK_OK;
    for (int i = 0; i < s->conf.depth && !rc; i++)
        if (!s->busy[i]) rc = s->eng->reserve(s->e, i, max_count, type, op);
    return rc;
}

const ovk__backend ovk__backend_offload = {
    .name = NAME,
    .description = "CORE-Direct-style task lists run without the host: libfabric triggered operations "
                   "or an agent thread",
    .options = ENGINE_OPTION "; alg=rd|knomial: recursive doubling (default) or k-nomial reduce+bcast; "
               "k=2..4: k-nomial degree, also of twolevel's node trees (default 2); scheme=flat|twolevel: "
               "all ranks in the algorithm (default) or node-local reduce, leaders, node-local bcast; "
               "ppn=N: twolevel pretends nodes of N consecutive ranks (0: real nodes); depth=1..64: "
               "reductions in flight (default 16)",
    .caps = OVK_CAP_NONBLOCKING | OVK_CAP_ASYNC, .available = off_available,
    .caps_of = NULL, .caps_of_spec = off_caps_of_spec,
    .create = off_create, .reserve = off_reserve, .destroy = off_destroy,
    .start = off_start, .test = off_test, .wait = off_wait, .progress = NULL,
};

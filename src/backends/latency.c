/* The latency backend: a decorator that wraps the backend of a reducer and
 * holds every reduction until the modelled latency of a bigger machine has
 * passed (latency_model.c computes it; reduce.h states the semantics).
 * ovk_reducer_set_latency and $OVK_LATENCY_MODEL put it in place; the
 * generic layer sees only another backend.
 *
 * A backend that progresses only inside test calls (OVK_CAP_NEEDS_TEST)
 * runs L as ceil(log2 P) levels of L / levels each, and a level starts only
 * at the test (or progress) call that sees the previous one finished, as a
 * round of a schedule on a big machine would; the others complete L after
 * the start.  A backend that cannot overlap waits L out in start. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"

/* One request: the wrapped backend's scratch, then the model's clock. */
typedef struct lat_req {
    _Alignas(16) unsigned char inner[OVK__REQ_IMPL_BYTES];
    int inner_done;    /* the wrapped backend has completed it */
    int levels_left;   /* levels still to run */
    double due;        /* MPI_Wtime() at which the current level ends */
    double level_s;    /* seconds per level */
    struct lat_req *prev, *next; /* the requests in flight */
} lat_req;
_Static_assert(sizeof(lat_req) <= OVK__REQ_IMPL_BYTES + OVK__REQ_DECOR_BYTES,
               "lat_req must fit the request scratch of a decorator");

typedef struct lat_state {
    const ovk__backend *be; /* the wrapped backend and its state (owned) */
    void *state;
    unsigned caps;          /* of the wrapped instance */
    int size;               /* ranks of the reducer's communicator */
    ovk_latency_model model;
    lat_req *inflight;
} lat_state;

/* ---- the model's clock ------------------------------------------------- */

static void clock_start(const lat_state *s, lat_req *q, const ovk__reduction *x)
{
    double bytes = (double)x->count * (double)ovk__type_size(x->type);
    double L = 1e-6 * ovk_latency_model_us(&s->model, s->size, bytes);
    int P = s->model.P > 0 ? s->model.P : s->size, levels = 1;
    while ((1LL << levels) < P) levels++;
    if (!(s->caps & OVK_CAP_NEEDS_TEST)) levels = 1;
    q->level_s = L / levels;
    q->levels_left = levels;
    q->due = MPI_Wtime() + q->level_s;
}

/* Called at every test: move the clock on by the level finished by now. */
static int clock_done(lat_req *q)
{
    double now = MPI_Wtime();
    if (q->levels_left > 0 && now >= q->due) {
        q->levels_left--;
        q->due = now + q->level_s; /* the next level starts at this call */
    }
    return q->levels_left == 0;
}

/* Spin through the remaining levels, as a blocking wait polls. */
static void clock_wait(lat_req *q)
{
    while (!clock_done(q)) {
    }
}

/* ---- the list of requests in flight ------------------------------------ */

static void link_req(lat_state *s, lat_req *q)
{
    q->prev = NULL;
    q->next = s->inflight;
    if (s->inflight) s->inflight->prev = q;
    s->inflight = q;
}

static void unlink_req(lat_state *s, lat_req *q)
{
    if (q->prev) q->prev->next = q->next;
    else s->inflight = q->next;
    if (q->next) q->next->prev = q->prev;
    q->prev = q->next = NULL;
}

/* ---- the vtable -------------------------------------------------------- */

static int lat_start(void *state, const ovk__reduction *r, void *impl)
{
    lat_state *s = state;
    lat_req *q = impl;
    q->inner_done = 0;
    clock_start(s, q, r);
    int rc = s->be->start(s->state, r, q->inner);
    if (rc) return rc;
    if (!(s->caps & OVK_CAP_NONBLOCKING)) clock_wait(q); /* cannot overlap: wait L out here */
    link_req(s, q);
    return OVK_OK;
}

static int lat_test(void *state, void *impl, int *done)
{
    lat_state *s = state;
    lat_req *q = impl;
    *done = 0;
    if (!q->inner_done) {
        int rc = s->be->test(s->state, q->inner, &q->inner_done);
        if (rc) { /* failed: complete */
            unlink_req(s, q);
            return rc;
        }
    }
    *done = clock_done(q) && q->inner_done;
    if (*done) unlink_req(s, q);
    return OVK_OK;
}

static int lat_wait(void *state, void *impl)
{
    lat_state *s = state;
    lat_req *q = impl;
    int rc = q->inner_done ? OVK_OK : s->be->wait(s->state, q->inner);
    q->inner_done = 1;
    unlink_req(s, q);
    if (rc) return rc;
    clock_wait(q);
    return OVK_OK;
}

/* The wrapped backend's progress; a progress call is a test to the clock. */
static int lat_progress(void *state)
{
    lat_state *s = state;
    int rc = s->be->progress(s->state);
    if (rc) return rc;
    for (lat_req *q = s->inflight; q; q = q->next) clock_done(q);
    return OVK_OK;
}

static void lat_destroy(void *state)
{
    lat_state *s = state;
    if (!s) return;
    s->be->destroy(s->state);
    free(s);
}

static unsigned lat_caps_of(const void *state) { return ((const lat_state *)state)->caps; }

static int lat_reserve(void *state, int max_count, ovk_datatype type, ovk_op op, int inflight)
{
    lat_state *s = state;
    return s->be->reserve ? s->be->reserve(s->state, max_count, type, op, inflight) : OVK_OK;
}

#define LAT_FIELDS                                                                \
    .name = "latency",                                                            \
    .description = "a bigger machine's reduction latency around another backend", \
    .options = "",                                                                \
    .caps = 0u, .available = NULL,                                                \
    .caps_of = lat_caps_of,                                                       \
    .create = NULL, .reserve = lat_reserve, .destroy = lat_destroy,               \
    .start = lat_start, .test = lat_test, .wait = lat_wait

/* Around a backend with a progress entry: drive it, then the clocks. */
static const ovk__backend latency_driven = {LAT_FIELDS, .progress = lat_progress};
/* Around one without: the generic layer polls every request (lat_test). */
static const ovk__backend latency_polled = {LAT_FIELDS, .progress = NULL};

static int is_latency(const ovk__backend *be) { return be == &latency_driven || be == &latency_polled; }

/* ---- putting the model on a reducer ------------------------------------ */

/* Wrap the reducer's (unwrapped) backend in a latency backend with model m. */
static int wrap(ovk_reducer *red, const ovk_latency_model *m)
{
    void *inner_state = NULL;
    const ovk__backend *inner = ovk__reducer_backend(red, &inner_state);
    lat_state *s = calloc(1, sizeof *s);
    if (!s) return ovk__fail(OVK_ENOMEM, "latency backend");
    s->be = inner;
    s->state = inner_state;
    s->caps = inner->caps_of ? inner->caps_of(inner_state) : inner->caps;
    s->model = *m;
    MPI_Comm_size(ovk__reducer_comm(red), &s->size);
    ovk__reducer_set_backend(red, inner->progress ? &latency_driven : &latency_polled, s);
    return OVK_OK;
}

/* Put the wrapped backend back in place, if wrapped. */
static void unwrap(ovk_reducer *red)
{
    void *state = NULL;
    const ovk__backend *be = ovk__reducer_backend(red, &state);
    if (!is_latency(be)) return;
    lat_state *s = state;
    ovk__reducer_set_backend(red, s->be, s->state);
    free(s);
}

int ovk_reducer_set_latency(ovk_reducer *red, const ovk_latency_model *m)
{
    if (!red) return ovk__fail(OVK_EINVAL, "ovk_reducer_set_latency: NULL reducer");
    int busy = ovk__reducer_outstanding(red);
    if (busy) return ovk__fail(OVK_EBUSY, "ovk_reducer_set_latency: %d requests outstanding", busy);
    if (m) {
        int size = 1;
        MPI_Comm_size(ovk__reducer_comm(red), &size);
        int rc = ovk__latency_check(m, size);
        if (rc) return rc;
    }
    unwrap(red);
    return (m && !ovk__latency_is_zero(m)) ? wrap(red, m) : OVK_OK;
}

int ovk_reducer_get_latency(const ovk_reducer *red, ovk_latency_model *m)
{
    void *state = NULL;
    if (!red || !m) return 0;
    memset(m, 0, sizeof *m);
    if (!is_latency(ovk__reducer_backend(red, &state))) return 0;
    *m = ((const lat_state *)state)->model;
    return 1;
}

/* The model in $OVK_LATENCY_MODEL, if any. */
int ovk__latency_from_env(ovk_reducer *red)
{
    const char *env = getenv(OVK_LATENCY_ENV);
    ovk_latency_model m;
    if (!env || !*env) return OVK_OK;
    int rc = ovk_latency_model_parse(env, &m);
    if (rc) {
        char why[256];
        snprintf(why, sizeof why, "%s", ovk_error_detail());
        return ovk__fail(rc, "$%s: %s", OVK_LATENCY_ENV, why);
    }
    return ovk_reducer_set_latency(red, &m);
}

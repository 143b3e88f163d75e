/* The generic reduction layer: backend selection from a spec string, the
 * request pool and request states, split-phase inner products.  Backends
 * only move data; every state check lives here. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"

enum req_state { REQ_FREE = 0, REQ_ACTIVE, REQ_DONE };

#define POOL_CHUNK 16

struct ovk_request {
    ovk_reducer *red;
    enum req_state state;
    int waited;
    int impl_done;   /* the backend has completed it (the model may still hold it) */
    double due;      /* MPI_Wtime() before which the latency model holds it ... */
    int levels_left; /* ... and, for test-driven backends, levels still to run */
    double level_s;  /* seconds per level */
    struct ovk_request *next_free;
    double dot_local[OVK_DOT_MAX];
    _Alignas(16) unsigned char impl[OVK__REQ_IMPL_BYTES];
};

typedef struct pool_chunk {
    struct pool_chunk *next;
    struct ovk_request req[POOL_CHUNK];
} pool_chunk;

struct ovk_reducer {
    const ovk__backend *be;
    void *state;
    MPI_Comm comm;
    char spec[256];
    int outstanding;
    long long started;
    int size;                /* ranks of comm */
    int has_model;           /* a latency model is set */
    ovk_latency_model model;
    ovk_request *free_list;
    pool_chunk *chunks;
};

/* ---- types ------------------------------------------------------------ */

MPI_Datatype ovk__mpi_type(ovk_datatype t) { return t == OVK_INT64 ? MPI_INT64_T : MPI_DOUBLE; }

MPI_Op ovk__mpi_op(ovk_op op)
{
    switch (op) {
    case OVK_MAX: return MPI_MAX;
    case OVK_MIN: return MPI_MIN;
    default: return MPI_SUM;
    }
}

size_t ovk__type_size(ovk_datatype t) { return t == OVK_INT64 ? sizeof(int64_t) : sizeof(double); }

static void backend_names(char *buf, size_t len)
{
    buf[0] = '\0';
    for (int i = 0; i < ovk__backend_registry_count(); i++) {
        strncat(buf, i ? ", " : "", len - strlen(buf) - 1);
        strncat(buf, ovk__backend_at(i)->name, len - strlen(buf) - 1);
    }
}

/* ---- reducers --------------------------------------------------------- */

static const char *resolve_spec(const char *spec)
{
    if (spec && *spec) return spec;
    const char *env = getenv(OVK_BACKEND_ENV);
    return (env && *env) ? env : OVK_BACKEND_DEFAULT;
}

static int lookup_backend(const char *name, const ovk__backend **be)
{
    char names[256];
    *be = ovk__backend_find(name);
    if (!*be) {
        backend_names(names, sizeof names);
        return ovk__fail(OVK_EBACKEND, "unknown backend '%s'; available: %s", name, names);
    }
    if ((*be)->available && !(*be)->available())
        return ovk__fail(OVK_EUNSUPPORTED, "backend %s is compiled in but cannot run here", name);
    return OVK_OK;
}

/* The model in $OVK_LATENCY_MODEL, if any. */
static int latency_from_env(ovk_reducer *red)
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

int ovk_reducer_create(MPI_Comm comm, const char *spec, ovk_reducer **out)
{
    int rc = OVK_OK;
    ovk__opts opts;
    char name[64];
    const ovk__backend *be = NULL;
    ovk_reducer *red = NULL;
    if (!out || comm == MPI_COMM_NULL) return ovk__fail(OVK_EINVAL, "ovk_reducer_create: NULL argument");
    *out = NULL;
    spec = resolve_spec(spec);
    rc = ovk__spec_parse("backend", OVK_EBACKEND, spec, name, sizeof name, &opts);
    if (!rc) rc = lookup_backend(name, &be);
    if (!rc && !(red = calloc(1, sizeof *red))) rc = ovk__fail(OVK_ENOMEM, "reducer");
    rc = ovk__agree(comm, rc);
    if (rc) goto cleanup;
    red->be = be;
    snprintf(red->spec, sizeof red->spec, "%s", spec);
    OVK__MPI(MPI_Comm_dup(comm, &red->comm));
    MPI_Comm_size(red->comm, &red->size);
    rc = be->create(red->comm, &opts, &red->state);
    if (!rc) rc = ovk__opts_check_unused(&opts, be->name, be->options);
    if (!rc) rc = latency_from_env(red);
    rc = ovk__agree(red->comm, rc);
    if (rc) goto cleanup;
    *out = red;
    return OVK_OK;
cleanup:
    if (red) {
        if (red->state) be->destroy(red->state);
        if (red->comm != MPI_COMM_NULL && red->comm != 0) MPI_Comm_free(&red->comm);
        free(red);
    }
    return rc;
}

int ovk_reducer_destroy(ovk_reducer *red)
{
    if (!red) return OVK_OK;
    if (red->outstanding)
        return ovk__fail(OVK_EBUSY, "ovk_reducer_destroy: %d requests still outstanding", red->outstanding);
    red->be->destroy(red->state);
    while (red->chunks) {
        pool_chunk *next = red->chunks->next;
        free(red->chunks);
        red->chunks = next;
    }
    MPI_Comm_free(&red->comm);
    free(red);
    return OVK_OK;
}

const char *ovk_reducer_name(const ovk_reducer *red) { return red ? red->be->name : ""; }
unsigned ovk_reducer_caps(const ovk_reducer *red)
{
    if (!red) return 0u;
    return red->be->caps_of ? red->be->caps_of(red->state) : red->be->caps;
}
const char *ovk_reducer_spec(const ovk_reducer *red) { return red ? red->spec : ""; }
MPI_Comm ovk__reducer_comm(const ovk_reducer *red) { return red->comm; }
long long ovk__reducer_started(const ovk_reducer *red) { return red->started; }

int ovk_reducer_set_latency(ovk_reducer *red, const ovk_latency_model *m)
{
    if (!red) return ovk__fail(OVK_EINVAL, "ovk_reducer_set_latency: NULL reducer");
    if (red->outstanding)
        return ovk__fail(OVK_EBUSY, "ovk_reducer_set_latency: %d requests outstanding", red->outstanding);
    if (m && (!(m->alpha_us >= 0.0) || !(m->beta_us >= 0.0) || !(m->gamma_us >= 0.0) || m->P < 0 ||
              !isfinite(m->alpha_us + m->beta_us + m->gamma_us)))
        return ovk__fail(OVK_EOPTION, "latency model: parameters must be finite and >= 0");
    red->has_model = m && !ovk__latency_is_zero(m);
    memset(&red->model, 0, sizeof red->model);
    if (red->has_model) red->model = *m;
    return OVK_OK;
}

int ovk_reducer_get_latency(const ovk_reducer *red, ovk_latency_model *m)
{
    if (!red || !m) return 0;
    *m = red->model;
    return red->has_model;
}

/* The modelled latency L of a reduction starting now.  A backend that
 * progresses only inside test calls (OVK_CAP_NEEDS_TEST) runs L as
 * ceil(log2 P) levels of L / levels each, and a level starts only at the
 * test call that sees the previous one finished, as a round of a schedule
 * on a big machine would; the others complete L after the start. */
static void model_start(ovk_request *r, const ovk__reduction *x)
{
    ovk_reducer *red = r->red;
    double bytes = (double)x->count * (double)ovk__type_size(x->type);
    double L = 1e-6 * ovk_latency_model_us(&red->model, red->size, bytes);
    int P = red->model.P > 0 ? red->model.P : red->size, levels = 1;
    while ((1LL << levels) < P) levels++;
    if (!(ovk_reducer_caps(red) & OVK_CAP_NEEDS_TEST)) levels = 1;
    r->level_s = L / levels;
    r->levels_left = levels;
    r->due = MPI_Wtime() + r->level_s;
}

/* Called at every test: move the model on by the levels finished by now. */
static int model_done(ovk_request *r)
{
    if (!r->red->has_model) return 1;
    double now = MPI_Wtime();
    if (r->levels_left > 0 && now >= r->due) {
        r->levels_left--;
        r->due = now + r->level_s; /* the next level starts at this call */
    }
    return r->levels_left == 0;
}

/* Spin through the remaining levels, as a blocking wait polls. */
static void model_wait(ovk_request *r)
{
    while (!model_done(r)) {
    }
}

/* ---- requests --------------------------------------------------------- */

static int request_alloc(ovk_reducer *red, ovk_request **out)
{
    if (!red->free_list) {
        pool_chunk *c = calloc(1, sizeof *c);
        if (!c) return ovk__fail(OVK_ENOMEM, "request pool");
        c->next = red->chunks;
        red->chunks = c;
        for (int i = POOL_CHUNK - 1; i >= 0; i--) {
            c->req[i].red = red;
            c->req[i].next_free = red->free_list;
            red->free_list = &c->req[i];
        }
    }
    ovk_request *r = red->free_list;
    red->free_list = r->next_free;
    r->state = REQ_ACTIVE;
    r->waited = 0;
    r->impl_done = 0;
    r->due = 0.0;
    *out = r;
    return OVK_OK;
}

static void request_release(ovk_request *r)
{
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
    if (red->has_model) model_start(r, x);
    int rc = red->be->start(red->state, x, r->impl);
    if (rc) {
        request_release(r);
        return rc;
    }
    /* a backend that cannot overlap waits out the modelled latency here */
    if (red->has_model && !(ovk_reducer_caps(red) & OVK_CAP_NONBLOCKING)) model_wait(r);
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
    int rc = check_reduction(&x);
    if (!rc) rc = request_alloc(red, &r);
    if (!rc) rc = start_on(r, &x);
    *req = rc ? NULL : r;
    return rc;
}

static void mark_done(ovk_request *r)
{
    r->state = REQ_DONE;
    r->red->outstanding--;
}

/* Test the backend once; done when it has completed and the modelled
 * latency (if any) has passed. */
static int poll(ovk_request *r)
{
    if (!r->impl_done) {
        int rc = r->red->be->test(r->red->state, r->impl, &r->impl_done);
        if (rc) { /* failed: complete, so that it can be freed */
            r->impl_done = 1;
            mark_done(r);
            return rc;
        }
    }
    if (model_done(r) && r->impl_done) mark_done(r);
    return OVK_OK;
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
    *done = r->state == REQ_DONE;
    return OVK_OK;
}

int ovk_reduce_wait(ovk_request *r)
{
    int rc = state_error(r, "ovk_reduce_wait");
    if (rc) return rc;
    if (r->waited) return ovk__fail(OVK_ESTATE, "ovk_reduce_wait: request was already waited on");
    if (r->state == REQ_ACTIVE) {
        if (!r->impl_done) rc = r->red->be->wait(r->red->state, r->impl);
        r->impl_done = 1;
        if (rc) { /* failed: complete, so that it can be freed */
            mark_done(r);
            r->waited = 1;
            return rc;
        }
        model_wait(r);
        mark_done(r);
    }
    r->waited = 1;
    return OVK_OK;
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
    if (red->be->progress) {
        int rc = red->be->progress(red->state);
        if (rc || !red->has_model) return rc;
        for (pool_chunk *c = red->chunks; c; c = c->next) /* a progress call is a test to the model */
            for (int i = 0; i < POOL_CHUNK; i++)
                if (c->req[i].state == REQ_ACTIVE) model_done(&c->req[i]);
        return OVK_OK;
    }
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

/* ---- split-phase inner products --------------------------------------- */

static double local_dot(const ovk_vector *x, const ovk_vector *y)
{
    const double *a = x->data, *b = y->data;
    double s = 0.0;
    for (int i = 0; i < x->n; i++) s += a[i] * b[i];
    return s;
}

int ovk_dot_init(ovk_reducer *red, int k, const ovk_vector *const *x, const ovk_vector *const *y,
                 double *result, ovk_request **req)
{
    int rc = OVK_OK;
    ovk_request *r = NULL;
    if (!red || !x || !y || !result || !req) return ovk__fail(OVK_EINVAL, "ovk_dot_init: NULL argument");
    if (k < 1 || k > OVK_DOT_MAX) return ovk__fail(OVK_EINVAL, "ovk_dot_init: k=%d not in [1, %d]", k, OVK_DOT_MAX);
    for (int i = 0; i < k && !rc; i++) rc = ovk__vector_check_pair(x[i], y[i]);
    if (rc) return rc;
    rc = request_alloc(red, &r);
    if (rc) return rc;
    for (int i = 0; i < k; i++) r->dot_local[i] = local_dot(x[i], y[i]);
    ovk__reduction xr = {r->dot_local, result, k, OVK_DOUBLE, OVK_SUM};
    rc = start_on(r, &xr);
    *req = rc ? NULL : r;
    return rc;
}

int ovk_dot_wait(ovk_request *req)
{
    int rc = ovk_reduce_wait(req);
    if (rc) return rc;
    return ovk_request_free(req);
}

/* ---- listing ---------------------------------------------------------- */

int ovk_backend_count(void) { return ovk__backend_registry_count(); }

int ovk_backend_get_info(int index, ovk_backend_info *info)
{
    if (!info || index < 0 || index >= ovk__backend_registry_count())
        return ovk__fail(OVK_EINVAL, "ovk_backend_get_info: bad index %d", index);
    const ovk__backend *be = ovk__backend_at(index);
    info->name = be->name;
    info->description = be->description;
    info->options = be->options;
    info->available = be->available ? be->available() : 1;
    return OVK_OK;
}

void ovk_backend_print(FILE *f)
{
    for (int i = 0; i < ovk__backend_registry_count(); i++) {
        const ovk__backend *be = ovk__backend_at(i);
        int avail = be->available ? be->available() : 1;
        fprintf(f, "  %-10s %s%s\n", be->name, be->description, avail ? "" : " [not available here]");
        if (be->options[0]) fprintf(f, "  %-10s options: %s\n", "", be->options);
    }
}

/* The backends compiled into the library, by name, and what is made of a
 * spec: ovk_reducer_create (a reducer of reduce.c running the spec's
 * backend, then the decorators the environment asks for), the capability
 * query and the listing.  Adding a backend is one new file exporting its
 * ovk__backend and one line in `backends` below; adding a decorator applied
 * from the environment, one line in decorate(). */
#include <stdlib.h>
#include <string.h>

#include "backend.h"

extern const ovk__backend ovk__backend_blocking;
extern const ovk__backend ovk__backend_native;
extern const ovk__backend ovk__backend_nbc;
extern const ovk__backend ovk__backend_offload;
/* REGISTRY: declarations of further backends go here. */

static const ovk__backend *const backends[] = {
    &ovk__backend_blocking,
    &ovk__backend_native,
    &ovk__backend_nbc,
    &ovk__backend_offload,
    /* REGISTRY: further backends go here. */
};

enum { NBACKENDS = (int)(sizeof backends / sizeof backends[0]) };

static const ovk__backend *find(const char *name)
{
    for (int i = 0; i < NBACKENDS; i++)
        if (strcmp(backends[i]->name, name) == 0) return backends[i];
    return NULL;
}

static void backend_names(char *buf, size_t len)
{
    buf[0] = '\0';
    for (int i = 0; i < NBACKENDS; i++) ovk__list_add(buf, len, ", ", backends[i]->name);
}

/* Decorators applied to every new reducer when the environment asks. */
static int decorate(ovk_reducer *red) { return ovk__latency_from_env(red); }

/* ---- a reducer from a spec ---------------------------------------------- */

static const char *resolve_spec(const char *spec)
{
    if (spec && *spec) return spec;
    const char *env = getenv(OVK_BACKEND_ENV);
    return (env && *env) ? env : OVK_BACKEND_DEFAULT;
}

static int lookup_backend(const char *name, const ovk__backend **be)
{
    char names[256];
    *be = find(name);
    if (!*be) {
        backend_names(names, sizeof names);
        return ovk__fail(OVK_EBACKEND, "unknown backend '%s'; available: %s", name, names);
    }
    if ((*be)->available && !(*be)->available())
        return ovk__fail(OVK_EUNSUPPORTED, "backend %s is compiled in but cannot run here", name);
    return OVK_OK;
}

/* Collective: the resolved spec (from $OVK_REDUCE_BACKEND when none was
 * given) is the same on every rank; else different backends would issue
 * collectives that do not match. */
static int same_spec(MPI_Comm comm, const char *spec)
{
    uint64_t h = ovk__fingerprint(spec, strlen(spec));
    int first = -1, rc = ovk__differs(comm, &h, 1, &first);
    if (rc || first < 0) return rc;
    return ovk__fail(OVK_EBACKEND, "the backend spec differs across the ranks ('%s' on this one): give the same "
                                   "spec, or the same $OVK_REDUCE_BACKEND, everywhere", spec);
}

/* Local: under SimGrid SMPI (the OVK_SIMULATE build) every rank is a thread
 * of the simulator that runs only until its next MPI call, so a thread of our
 * own that calls MPI (nbc:thread=1, offload's agent) would never be scheduled
 * correctly: such a spec is refused rather than left to hang. */
static int simulable(const char *name, const ovk__backend *be, ovk__opts *opts)
{
#ifdef OVK_SIMULATE
    unsigned caps = be->caps;
    int rc = be->caps_of_spec ? be->caps_of_spec(opts, &caps) : OVK_OK;
    if (rc) return rc;
    if (caps & OVK_CAP_NEEDS_THREADS)
        return ovk__fail(OVK_EUNSUPPORTED, "backend '%s' runs a thread that calls MPI, which SimGrid SMPI "
                                           "cannot simulate (this is an OVK_SIMULATE build): use blocking, "
                                           "native or nbc without thread=1", name);
#else
    (void)name, (void)be, (void)opts;
#endif
    return OVK_OK;
}

/* Local (the caller agrees): the output pointer, the spec's options and
 * backend, and the reducer for it. */
static int prepare(const char *spec, ovk_reducer **out, ovk__opts *opts, const ovk__backend **be,
                   ovk_reducer **red)
{
    char name[64];
    if (!out) return ovk__fail(OVK_EINVAL, "ovk_reducer_create: NULL output");
    int rc = ovk__spec_parse("backend", OVK_EBACKEND, spec, name, sizeof name, opts);
    if (rc) return rc;
    rc = lookup_backend(name, be);
    if (rc) return rc;
    rc = simulable(name, *be, opts);
    if (rc) return rc;
    return ovk__reducer_alloc(*be, spec, red);
}

/* Collective, not agreed: the backend's state on the reducer's
 * communicator from its options (all of them read), then the decorators. */
static int start_backend(ovk_reducer *red, const ovk__backend *be, ovk__opts *opts)
{
    void *state = NULL;
    int rc = be->create(ovk__reducer_comm(red), opts, &state);
    ovk__reducer_set_backend(red, be, state);
    if (rc) return rc;
    rc = ovk__opts_check_unused(opts, be->name, be->options);
    if (rc) return rc;
    return decorate(red);
}

int ovk_reducer_create(MPI_Comm comm, const char *spec, ovk_reducer **out)
{
    ovk__opts opts;
    const ovk__backend *be = NULL;
    ovk_reducer *red = NULL;
    /* no communicator: nothing to agree over (a rank passing MPI_COMM_NULL
     * is not a member of the others' communicator) */
    if (comm == MPI_COMM_NULL) return ovk__fail(OVK_EINVAL, "ovk_reducer_create: MPI_COMM_NULL communicator");
    /* the arguments, agreed with the spec before any other collective */
    if (out) *out = NULL;
    spec = resolve_spec(spec);
    int rc = ovk__agree(comm, prepare(spec, out, &opts, &be, &red));
    if (rc) goto cleanup;
    rc = same_spec(comm, spec);
    if (rc) goto cleanup;
    rc = ovk__reducer_open(red, comm);
    if (rc) goto cleanup;
    rc = ovk__agree(ovk__reducer_comm(red), start_backend(red, be, &opts));
    if (rc) goto cleanup;
    *out = red;
    return OVK_OK;
cleanup:
    ovk__reducer_discard(red);
    return rc;
}

/* ---- the capability query and the listing ------------------------------ */

int ovk_backend_caps(const char *spec, unsigned *caps)
{
    ovk__opts opts;
    char name[64];
    if (!caps) return ovk__fail(OVK_EINVAL, "ovk_backend_caps: NULL argument");
    *caps = 0u;
    int rc = ovk__spec_parse("backend", OVK_EBACKEND, resolve_spec(spec), name, sizeof name, &opts);
    if (rc) return rc;
    const ovk__backend *be = find(name);
    if (!be) return ovk__fail(OVK_EBACKEND, "unknown backend '%s'", name);
    if (!be->caps_of_spec) {
        *caps = be->caps;
        return OVK_OK;
    }
    return be->caps_of_spec(&opts, caps);
}

int ovk_backend_count(void) { return NBACKENDS; }

int ovk_backend_get_info(int index, ovk_backend_info *info)
{
    if (!info || index < 0 || index >= NBACKENDS)
        return ovk__fail(OVK_EINVAL, "ovk_backend_get_info: bad index %d", index);
    const ovk__backend *be = backends[index];
    info->name = be->name;
    info->description = be->description;
    info->options = be->options;
    info->available = be->available ? be->available() : 1;
    return OVK_OK;
}

void ovk_backend_print(FILE *f)
{
    for (int i = 0; i < NBACKENDS; i++) {
        const ovk__backend *be = backends[i];
        int avail = be->available ? be->available() : 1;
        fprintf(f, "  %-10s %s%s\n", be->name, be->description, avail ? "" : " [not available here]");
        if (be->options[0]) fprintf(f, "  %-10s options: %s\n", "", be->options);
    }
}

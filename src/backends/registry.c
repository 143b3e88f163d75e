/* The backends compiled into the library, by name.  Adding a backend is one
 * new file exporting its ovk__backend and one line in `backends` below. */
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

int ovk__backend_registry_count(void) { return (int)(sizeof backends / sizeof backends[0]); }

const ovk__backend *ovk__backend_at(int index) { return backends[index]; }

/* Decorators applied to every new reducer when the environment asks. */
int ovk__backend_decorate(ovk_reducer *red) { return ovk__latency_from_env(red); }

const ovk__backend *ovk__backend_find(const char *name)
{
    for (int i = 0; i < ovk__backend_registry_count(); i++)
        if (strcmp(backends[i]->name, name) == 0) return backends[i];
    return NULL;
}

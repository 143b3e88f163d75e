/* The allocation-failure injector: the __wrap_ side of the library's
 * malloc, calloc, realloc and posix_memalign (see alloc_fault.h). */
#include "util/alloc_fault.h"

#include <errno.h>
#include <mpi.h>
#include <stdatomic.h>
#include <stdlib.h>

void *__real_malloc(size_t size);
void *__real_calloc(size_t nmemb, size_t size);
void *__real_realloc(void *p, size_t size);
int __real_posix_memalign(void **p, size_t alignment, size_t size);

#define OVK_WRAP __attribute__((visibility("hidden")))
OVK_WRAP void *__wrap_malloc(size_t size);
OVK_WRAP void *__wrap_calloc(size_t nmemb, size_t size);
OVK_WRAP void *__wrap_realloc(void *p, size_t size);
OVK_WRAP int __wrap_posix_memalign(void **p, size_t alignment, size_t size);

static atomic_long count;        /* allocations since the arming */
static atomic_long fail_at;      /* the one to fail, 0: none */
static atomic_size_t fired_size; /* its size + 1 once failed, else 0 */
static atomic_int env_state;     /* 0: environment not read, 1: read */
static const void *_Atomic fired_site; /* the caller of the failed one */

void ovk__alloc_fault_arm(long n)
{
    atomic_store(&env_state, 1); /* an explicit arming overrides the environment */
    atomic_store(&fail_at, 0);
    atomic_store(&count, 0);
    atomic_store(&fired_size, 0);
    atomic_store(&fail_at, n > 0 ? n : 0);
}

long ovk__alloc_fault_count(void) { return atomic_load(&count); }

int ovk__alloc_fault_fired(size_t *bytes, const void **site)
{
    size_t s = atomic_load(&fired_size);
    if (bytes) *bytes = s ? s - 1 : 0;
    if (site) *site = s ? atomic_load(&fired_site) : NULL;
    return s != 0;
}

/* OVK_ALLOC_FAIL / OVK_ALLOC_FAIL_RANK, read at the first allocation after
 * MPI_Init (the rank is needed) or at the first one if either is unset.
 * getenv and MPI_Comm_rank do not allocate through the wrappers. */
static void read_environment(void)
{
    const char *n = getenv("OVK_ALLOC_FAIL");
    if (!n) {
        atomic_store(&env_state, 1);
        return;
    }
    const char *r = getenv("OVK_ALLOC_FAIL_RANK");
    if (r) {
        int up = 0, down = 0, rank = 0;
        MPI_Initialized(&up);
        if (up) MPI_Finalized(&down);
        if (!up || down) return; /* ask again at the next allocation */
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        if (atoi(r) != rank) {
            atomic_store(&env_state, 1);
            return;
        }
    }
    int expected = 0;
    if (atomic_compare_exchange_strong(&env_state, &expected, 1)) atomic_store(&fail_at, atol(n));
}

/* 1 when this allocation is the one to fail */
static int should_fail(size_t size, const void *site)
{
    if (atomic_load_explicit(&env_state, memory_order_relaxed) == 0) read_environment();
    long k = atomic_fetch_add(&count, 1) + 1;
    long at = atomic_load(&fail_at);
    if (at == 0 || k != at) return 0;
    atomic_store(&fired_site, site);
    atomic_store(&fired_size, size + 1);
    return 1;
}

void *__wrap_malloc(size_t size)
{
    if (should_fail(size, __builtin_return_address(0))) return NULL;
    return __real_malloc(size);
}

void *__wrap_calloc(size_t nmemb, size_t size)
{
    if (should_fail(nmemb * size, __builtin_return_address(0))) return NULL;
    return __real_calloc(nmemb, size);
}

void *__wrap_realloc(void *p, size_t size)
{
    if (should_fail(size, __builtin_return_address(0))) return NULL; /* p stays valid, as on a real failure */
    return __real_realloc(p, size);
}

int __wrap_posix_memalign(void **p, size_t alignment, size_t size)
{
    if (should_fail(size, __builtin_return_address(0))) return ENOMEM;
    return __real_posix_memalign(p, alignment, size);
}

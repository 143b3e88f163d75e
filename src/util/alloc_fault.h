/* The allocation-failure injector (src/util/alloc_fault.c): every malloc,
 * calloc, realloc and posix_memalign of the library's own code is counted,
 * and the n-th one from an arming can be made to fail (return NULL or
 * ENOMEM) on the calling process.  The library's objects are linked with
 * --wrap for these functions (CMakeLists.txt), so allocations of MPI, hypre,
 * LAPACK or the program itself are neither counted nor failed.
 *
 * The environment variables OVK_ALLOC_FAIL=n and OVK_ALLOC_FAIL_RANK=r
 * (default: every rank) arm it from the process's first allocation, for a
 * reproduction under any program.  Not installed; tests call it directly.
 * Thread-safe (atomic counters); local, not collective. */
#ifndef OVK_ALLOC_FAULT_H
#define OVK_ALLOC_FAULT_H

#include <stddef.h>

/* Count allocations from zero, and fail the n-th one from now (n >= 1;
 * n = 0: fail none).  Clears the record of a failure. */
void ovk__alloc_fault_arm(long n);

/* Allocations made since the last arming (failed ones included). */
long ovk__alloc_fault_count(void);

/* 1 when the armed failure happened; then *bytes = its size and *site =
 * the return address in the library's code that asked for it (each may be
 * NULL): the call site, for coverage counts. */
int ovk__alloc_fault_fired(size_t *bytes, const void **site);

#endif

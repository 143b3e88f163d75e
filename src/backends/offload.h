/* The "offload" backend's engines: what offload.c asks of an engine that
 * executes a task list (offload_tasks.h) without the host.  One engine per
 * file (offload_agent.c, offload_fabric.c), listed in offload.c. */
#ifndef OVK_OFFLOAD_H
#define OVK_OFFLOAD_H

#include <stddef.h>

#include "offload_tasks.h"

/* ---- engines --------------------------------------------------------------- */

/* One reduction as an engine sees it: posted into one of `depth` slots with a
 * sequence number (every rank numbers its reductions alike; message tags
 * derive from it). */
typedef struct ovk__off_post {
    const ovk__reduction *r;
    int slot;
    unsigned long long seq;
} ovk__off_post;

typedef struct ovk__off_engine {
    const char *name;
    /* 1 when it runs a thread that calls MPI (needs MPI_THREAD_MULTIPLE). */
    int needs_threads;
    /* Local: 1 when the engine can run in this process; else 0 and why names
     * what is missing. */
    int (*usable)(char *why, size_t len);
    /* Collective over comm (the generic layer's private communicator).
     * *window: how many sequence numbers the message tags tell apart. */
    int (*create)(MPI_Comm comm, const ovk__off_list *tl, int depth, void **eng,
                  unsigned long long *window);
    /* Collective; nothing is in flight. */
    void (*destroy)(void *eng);
    /* Local: hand the task list to the engine for p (count > 0, size > 1). */
    int (*post)(void *eng, const ovk__off_post *p);
    /* Local, no communication: *done = 1 once the result is in recvbuf. */
    int (*test)(void *eng, int slot, int *done);
    /* Local: until test would say done (the host sleeps or yields). */
    int (*wait)(void *eng, int slot);
    /* Local: allocate now what posts of 1 .. max_count elements of type with
     * op into slot (idle) need (backend.h's reserve; may be NULL: post
     * allocates nothing). */
    int (*reserve)(void *eng, int slot, int max_count, ovk_datatype type, ovk_op op);
} ovk__off_engine;

extern const ovk__off_engine ovk__off_agent;
#ifdef OVK_HAVE_LIBFABRIC
extern const ovk__off_engine ovk__off_fabric;
#endif

#endif

/* The reduction backend interface.  One backend per file, each exporting one
 * `const ovk__backend ovk__backend_NAME` and listed in registry.c.
 *
 * The generic layer (reduce.c) owns requests, their states and the error
 * checks (wait twice, free in flight); a backend only moves data.  Per
 * request it gets OVK__REQ_IMPL_BYTES of aligned scratch (`impl`) that lives
 * from start until the request completes.
 *
 * A decorator (latency.c) is a backend that wraps the reducer's backend:
 * it is not in the registry (create is NULL), replaces the reducer's
 * backend with ovk__reducer_set_backend while no request is outstanding,
 * owns the wrapped state (its destroy destroys it) and gets
 * OVK__REQ_DECOR_BYTES more scratch per request, the first
 * OVK__REQ_IMPL_BYTES of which it passes on.
 *
 * The calls run one way: registry.c (a reducer from a spec, the decorators
 * the environment asks for) calls reduce.c and the decorators; a decorator
 * calls reduce.c; reduce.c calls neither.
 */
#ifndef OVK_BACKEND_H
#define OVK_BACKEND_H

#include <mpi.h>

#include "../internal.h"

#define OVK__REQ_IMPL_BYTES 128
#define OVK__REQ_DECOR_BYTES 64
/* One reduction as described to a backend. */
typedef struct ovk__reduction {
    const void *sendbuf; /* == recvbuf: in place */
    void *recvbuf;
    int count;
    ovk_datatype type;
    ovk_op op;
} ovk__reduction;

typedef struct ovk__backend {
    const char *name;
    const char *description; /* one line */
    const char *options;     /* "key=values: meaning; ..." */
    unsigned caps;           /* OVK_CAP_* */
    /* 1: its traffic is collectives called in program order from the calling
     * thread, so it runs on the inner communicator every object on the
     * user's communicator shares; 0: a private duplicate of it (its own tags
     * or a thread that calls MPI). */
    int shares_comm;
    /* 1 when usable in this process (may be NULL: always). */
    int (*available)(void);
    /* Collective.  comm is owned by the generic layer: the shared inner
     * communicator (shares_comm) or a private duplicate.
     * Read options with ovk__opt_*; unread options are reported as unknown.
     * NULL for a decorator. */
    int (*create)(MPI_Comm comm, ovk__opts *opts, void **state);
    /* Collective. */
    void (*destroy)(void *state);
    /* Start r; keep whatever is needed in impl. */
    int (*start)(void *state, const ovk__reduction *r, void *impl);
    /* Poll; set *done when recvbuf holds the result. */
    int (*test)(void *state, void *impl, int *done);
    /* Complete. */
    int (*wait)(void *state, void *impl);
    /* Drive every outstanding reduction (may be NULL). */
    int (*progress)(void *state);
    /* Local: allocate now what starts (and their tests and waits) of 1 ..
     * max_count elements of type with op, up to inflight outstanding, would
     * otherwise allocate, so that none of them can fail alone on one rank
     * (the others would wait in the collective for ever).  NULL: start
     * allocates nothing. */
    int (*reserve)(void *state, int max_count, ovk_datatype type, ovk_op op, int inflight);
    /* Capabilities of this instance when they depend on its options (may be
     * NULL: `caps` above). */
    unsigned (*caps_of)(const void *state);
    /* What an instance made from opts will offer and need, OVK_CAP_* with
     * OVK_CAP_NEEDS_THREADS, without creating it; local, callable before
     * MPI_Init (may be NULL: `caps` above). */
    int (*caps_of_spec)(ovk__opts *opts, unsigned *caps);
} ovk__backend;

/* Datatypes and operators (ops.c): the MPI datatype and op for a reduction
 * (MPI-collective backends), the element size, and dst[i] = a[i] op b[i]
 * with the operand order kept (dst may alias a or b) for the backends that
 * combine values themselves. */
MPI_Datatype ovk__mpi_type(ovk_datatype t);
MPI_Op ovk__mpi_op(ovk_op op);
size_t ovk__type_size(ovk_datatype t);
void ovk__reduce_local(ovk_datatype type, ovk_op op, void *dst, const void *a, const void *b, int n);
/* 1 when reduction r over `size` ranks needs no message: count 0 (nothing
 * to do) or one rank (recvbuf = sendbuf, copied here); else 0 (ops.c). */
int ovk__reduction_is_local(const ovk__reduction *r, int size);

/* The k-nomial tree over members 0..n-1 rooted at member 0 (tree.c): the
 * children of member me in ascending order (level 1, k, k^2, ..., then
 * digit; at most (k-1) ceil(log_k n) of them) and its parent (-1 at the
 * root).  Returns the number of children. */
int ovk__knomial_family(int me, int n, int k, int *child, int *parent);
/* Collective over comm, where this process is `rank`: node_of[r] = the
 * lowest rank on r's node (MPI_COMM_TYPE_SHARED), for every rank r (tree.c). */
int ovk__node_leaders(MPI_Comm comm, int rank, int *node_of);

/* OVK_OK when m's parameters are finite, >= 0, and a reduction of
 * OVK__LATENCY_CHECK_BYTES on comm_size ranks (m->P when set) models at most
 * OVK__LATENCY_MAX_US; else OVK_EOPTION naming the limit (latency_model.c). */
#define OVK__LATENCY_MAX_US 1e6     /* one second per reduction */
#define OVK__LATENCY_CHECK_BYTES 128.0 /* the largest dot-product batch (OVK_DOT_MAX doubles) */
int ovk__latency_check(const ovk_latency_model *m, int comm_size);
/* 1 when the model adds no latency (latency_model.c). */
int ovk__latency_is_zero(const ovk_latency_model *m);
/* Wrap red's backend in the latency backend when $OVK_LATENCY_MODEL is set
 * (latency.c; registry.c applies it to every new reducer).  Local. */
int ovk__latency_from_env(ovk_reducer *red);

/* Decorators (reduce.c): the backend in use and its state; put another in
 * place (no request may be outstanding); the requests in flight.  Local. */
const ovk__backend *ovk__reducer_backend(const ovk_reducer *red, void **state);
void ovk__reducer_set_backend(ovk_reducer *red, const ovk__backend *be, void *state);
int ovk__reducer_outstanding(const ovk_reducer *red);
/* The solves in flight that use red (ovk__reducer_hold).  Local. */
int ovk__reducer_users(const ovk_reducer *red);

/* A new reducer, for the registry's ovk_reducer_create (reduce.c): made
 * with backend be (not yet created) and its spec, local; its communicator
 * (collective: the inner communicator of comm, shared when be->shares_comm,
 * else a private duplicate of it); and its release (the backend's destroy
 * is collective when its state exists). */
int ovk__reducer_alloc(const ovk__backend *be, const char *spec, ovk_reducer **out);
/* Local: the backend's reserve (above) and requests for inflight
 * reductions; call it where its status can be agreed (a setup). */
int ovk__reducer_reserve(ovk_reducer *red, int max_count, ovk_datatype type, ovk_op op, int inflight);
int ovk__reducer_open(ovk_reducer *red, MPI_Comm comm);
void ovk__reducer_discard(ovk_reducer *red);

/* ---- what the layers above use of a reducer (reduce.c) -------------- */

MPI_Comm ovk__reducer_comm(const ovk_reducer *red);
long long ovk__reducer_started(const ovk_reducer *red);
/* A solve in flight uses red (delta +1 at its start, -1 at its end): while
 * any does, ovk_reducer_destroy says OVK_EBUSY.  Local. */
void ovk__reducer_hold(ovk_reducer *red, int delta);

#endif

/* The schedule engine of the "nbc" backend (LibNBC style).
 *
 * A schedule is one rank's part of an allreduce, written down once as a
 * contiguous array of actions split into rounds:
 *
 *   SEND    count elements of src to peer
 *   RECV    count elements from peer into dst
 *   COPY    dst = src                       (local)
 *   REDUCE  dst = src op src2, elementwise  (local; operand order is kept)
 *
 * Round semantics (the executor relies on them, every builder obeys them):
 *   - round n is started only when every send/receive of round n-1 has
 *     completed locally;
 *   - starting a round posts all its sends and receives (they are
 *     independent of each other), then runs its local actions in order;
 *   - local actions never touch a buffer that a send or receive of the same
 *     round uses, so they overlap that round's messages.
 *
 * Buffers are named, not addressed, so that one schedule serves every
 * reduction with the same (count, datatype, op): the user's send buffer, the
 * user's receive buffer (the accumulator) and a per-operation scratch area of
 * sched->tmp_elems elements.  Offsets and counts are in elements.
 *
 * Schedules are built per (communicator, count, datatype, op) for the
 * algorithm and parameters fixed when the backend was created, and cached.
 */
#ifndef OVK_NBC_SCHED_H
#define OVK_NBC_SCHED_H

#include <stddef.h>

#include "backend.h"

/* ---- algorithms and parameters ---------------------------------------- */

typedef enum ovk__nbc_alg {
    OVK__NBC_AUTO = 0, /* rd below the size threshold, rsa above */
    OVK__NBC_RD,       /* recursive doubling with fold of the extra ranks */
    OVK__NBC_KRING,    /* recursive k-ing (Cheetah) with proxies */
    OVK__NBC_KNOMIAL,  /* k-nomial reduce to rank 0, k-nomial broadcast */
    OVK__NBC_TWOLEVEL, /* intra-node reduce, inter-leader allreduce, intra bcast */
    OVK__NBC_RSA,      /* reduce-scatter + allgather (Rabenseifner), segmented */
    OVK__NBC_NALGS
} ovk__nbc_alg;

/* Names indexed by ovk__nbc_alg, NULL-terminated (for ovk__opt_choice). */
extern const char *const ovk__nbc_alg_names[];

/* Limits of the radix/degree option. */
#define OVK__NBC_K_MIN 2
#define OVK__NBC_K_MAX 8

typedef struct ovk__nbc_params {
    ovk__nbc_alg alg;
    int k;                /* radix of kring, degree of knomial and of the intra-node trees */
    ovk__nbc_alg inter;   /* inter-leader algorithm of twolevel (rd, kring, knomial, rsa) */
    size_t seg_bytes;     /* rsa segment size */
    size_t rsa_bytes;     /* auto: rsa from this message size on */
} ovk__nbc_params;

/* Who is where: node_of[r] is the lowest rank on rank r's node. */
typedef struct ovk__nbc_topo {
    int size, rank;
    int *node_of; /* [size] */
} ovk__nbc_topo;

/* ---- schedules -------------------------------------------------------- */

typedef enum ovk__nbc_kind { OVK__NBC_SEND, OVK__NBC_RECV, OVK__NBC_COPY, OVK__NBC_REDUCE } ovk__nbc_kind;

typedef enum ovk__nbc_buf { OVK__NBC_BUF_SEND, OVK__NBC_BUF_RECV, OVK__NBC_BUF_TMP } ovk__nbc_buf;

typedef struct ovk__nbc_ref {
    ovk__nbc_buf buf;
    size_t off; /* elements */
} ovk__nbc_ref;

typedef struct ovk__nbc_action {
    ovk__nbc_kind kind;
    int peer;  /* SEND/RECV: rank in the backend's communicator */
    int count; /* elements */
    ovk__nbc_ref src, src2, dst;
} ovk__nbc_action;

typedef struct ovk__nbc_sched {
    int count;
    ovk_datatype type;
    ovk_op op;
    ovk__nbc_alg alg;   /* the algorithm actually used (auto resolved) */
    int nactions;
    ovk__nbc_action *act;
    int nrounds;
    int *round;         /* round r is act[round[r]] .. act[round[r+1]-1] */
    size_t tmp_elems;   /* scratch needed per operation */
    int max_comm;       /* most sends + receives in one round */
    int refs;           /* operations using it (cache bookkeeping) */
    int cached;         /* owned by a cache */
    unsigned long last_use;
} ovk__nbc_sched;

/* Build the schedule of topo->rank.  OVK_ENOMEM or OVK_EINVAL (bad params). */
int ovk__nbc_build(const ovk__nbc_params *prm, const ovk__nbc_topo *topo, int count,
                   ovk_datatype type, ovk_op op, ovk__nbc_sched **out);
void ovk__nbc_sched_free(ovk__nbc_sched *s);

/* ---- the schedule cache ----------------------------------------------- */

#define OVK__NBC_CACHE_SIZE 64

typedef struct ovk__nbc_cache {
    ovk__nbc_sched *slot[OVK__NBC_CACHE_SIZE];
    unsigned long clock;
    long hits, misses;
} ovk__nbc_cache;

/* Find or build the schedule for (count, type, op) and take a reference. */
int ovk__nbc_cache_get(ovk__nbc_cache *c, const ovk__nbc_params *prm, const ovk__nbc_topo *topo,
                       int count, ovk_datatype type, ovk_op op, ovk__nbc_sched **out);
/* Drop a reference taken by ovk__nbc_cache_get. */
void ovk__nbc_cache_put(ovk__nbc_cache *c, ovk__nbc_sched *s);
void ovk__nbc_cache_clear(ovk__nbc_cache *c);

/* Cache counters of one nbc backend state, or (state == NULL) summed over
 * every nbc reducer of the process.  For tests. */
void ovk__nbc_cache_stats(void *state, long *hits, long *misses);
/* The process-wide sums behind ovk__nbc_cache_stats(NULL, ...). */
void ovk__nbc_cache_totals(long *hits, long *misses);

/* ---- the executor ----------------------------------------------------- */

typedef struct ovk__nbc_exec {
    const ovk__nbc_sched *s;
    const void *sendbuf;
    void *recvbuf;
    void *tmp;
    MPI_Comm comm;
    int tag;
    int round;  /* current round */
    int posted; /* its messages are posted */
    int nreq;
    MPI_Request *reqs; /* at least s->max_comm entries */
} ovk__nbc_exec;

/* Advance ex as far as it goes without blocking: test the posted round,
 * post the next ones.  *done = 1 once the last round completed; *advanced
 * is set (never cleared) when a round completed. */
int ovk__nbc_exec_progress(ovk__nbc_exec *ex, int *done, int *advanced);

#endif

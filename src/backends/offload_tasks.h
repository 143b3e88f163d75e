/* The "offload" backend's task lists (offload_tasks.c): engine-neutral, in
 * the CORE-Direct model of the seed paper (send, receive, wait for
 * completions, calc).  The engines that execute them are in offload.h.
 *
 * A task list is one rank's part of an allreduce, written down once per
 * reducer as a DAG over named buffers ("slots" of count elements each):
 *
 *   SEND  slot -> peer, message id tag
 *   RECV  slot <- peer, message id tag      (every receive has its own slot)
 *   CALC  slot = slot op src, elementwise   (slot holds the first operand)
 *
 * A task may start when its predecessors (at most OVK__OFF_MAX_PRED) have
 * completed: that is the seed's "wait for n completions".  Slot 0 holds the
 * input when the list is posted; the result ends in slot `result`.  The shape
 * does not depend on count, datatype or op, so one list serves every
 * reduction of the reducer.  CALC keeps the operand order of the seed's
 * loop-back calc: dst = dst op src, dst being the value of the lower-numbered
 * member (or subtree), which is what makes results bitwise identical on all
 * ranks (docs/offload.md).
 */
#ifndef OVK_OFFLOAD_TASKS_H
#define OVK_OFFLOAD_TASKS_H

#include "backend.h"

/* ---- task lists ---------------------------------------------------------- */

typedef enum ovk__off_alg { OVK__OFF_RD, OVK__OFF_KNOMIAL } ovk__off_alg;
typedef enum ovk__off_scheme { OVK__OFF_FLAT, OVK__OFF_TWOLEVEL } ovk__off_scheme;
typedef enum ovk__off_kind { OVK__OFF_SEND, OVK__OFF_RECV, OVK__OFF_CALC } ovk__off_kind;

/* Limits of the k-nomial degree option. */
#define OVK__OFF_K_MIN 2
#define OVK__OFF_K_MAX 4
#define OVK__OFF_MAX_PRED 2
/* Message ids of one reduction fit in 8 bits. */
#define OVK__OFF_TAG_BITS 8

typedef struct ovk__off_task {
    ovk__off_kind kind;
    int peer;  /* SEND/RECV: rank in the reducer's communicator */
    int tag;   /* SEND/RECV: message id, the same on sender and receiver */
    int slot;  /* SEND: source; RECV: destination; CALC: destination and first operand */
    int src;   /* CALC: second operand */
    int npred;
    int pred[OVK__OFF_MAX_PRED]; /* earlier tasks (indices are in topological order) */
    int nsucc;                   /* tasks that wait for this one; 0 makes it a sink */
} ovk__off_task;

typedef struct ovk__off_list {
    int ntasks, cap;
    ovk__off_task *task;
    int nslots; /* slot 0 is the input */
    int result; /* slot holding the result once every task has completed */
    int nsinks;
} ovk__off_list;

/* Who is where: node_of[r] is the lowest rank on rank r's node (only the
 * twolevel scheme looks at it). */
typedef struct ovk__off_topo {
    int size, rank;
    const int *node_of;
} ovk__off_topo;

/* Build rank topo->rank's list.  OVK_ENOMEM. */
int ovk__off_build(ovk__off_alg alg, ovk__off_scheme scheme, int k, const ovk__off_topo *topo,
                   ovk__off_list *out);
void ovk__off_list_free(ovk__off_list *l);
/* The distinct peers of a list, ascending, into peers[] (room for topo size);
 * returns their number. */
int ovk__off_peers(const ovk__off_list *l, int *peers);

#endif

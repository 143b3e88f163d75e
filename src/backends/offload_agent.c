/* Engine "agent" of the offload backend: a dedicated thread per reducer
 * plays the network card.  The host posts a reduction (a slot in a queue and
 * a condition-variable signal) and later reads the slot's done flag; the
 * agent owns every posted task list and runs it over MPI point-to-point on
 * its own duplicate of the communicator.
 *
 * Agent loop: sleep on the condition variable while nothing is posted;
 * otherwise one pass over the active reductions (start the tasks whose
 * predecessors completed, test the messages in flight), then, when the pass
 * completed nothing, back off: a few yields, then naps doubling from
 * BACKOFF_MIN_NS to BACKOFF_MAX_NS, reset by any progress or post.
 *
 * Tags: message id (8 bits) plus the reduction's sequence number modulo the
 * window the MPI tag range leaves, so that reductions in flight together
 * never share a tag.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "offload.h"

#define BACKOFF_MIN_NS 1000L
#define BACKOFF_MAX_NS 100000L
#define NS_PER_S 1000000000L
/* Passes without progress that only yield before the naps start. */
#define SPIN_PASSES 64
/* MPI guarantees tags up to 32767. */
#define MIN_TAG_UB 32767

enum task_state { T_WAITING = 0, T_POSTED, T_DONE };

/* One reduction in a queue slot. */
typedef struct agent_op {
    /* written by the host before the post, read by the agent */
    const void *sendbuf;
    void *recvbuf;
    int count;
    ovk_datatype type;
    ovk_op op;
    int tagbase;
    /* the agent's */
    unsigned char *tmp; /* slots 1.. */
    size_t tmp_bytes;
    unsigned char *state; /* [ntasks] */
    MPI_Request *req;     /* [ntasks] */
    int ndone;
    struct agent_op *next; /* posted or active list */
    atomic_int done;       /* the host's test */
} agent_op;

typedef struct agent {
    MPI_Comm comm; /* ours (a duplicate) */
    const ovk__off_list *tl;
    int depth;
    unsigned long long window;
    agent_op *ops; /* [depth] */
    pthread_t thread;
    pthread_mutex_t mutex;
    pthread_cond_t work, finished;
    int sync_init, running, stop;
    agent_op *posted; /* handed over by the host, oldest first */
    agent_op *posted_tail;
    atomic_int failed; /* an MPI call of the agent failed: later posts and tests report it */
    char failure[MPI_MAX_ERROR_STRING + 64];
} agent;

/* ---- executing one task list ----------------------------------------------- */

static void *slot_ptr(agent_op *o, int slot)
{
    if (slot == 0) return o->recvbuf;
    return o->tmp + (size_t)(slot - 1) * (size_t)o->count * ovk__type_size(o->type);
}

static int ready(const agent_op *o, const ovk__off_task *t)
{
    for (int p = 0; p < t->npred; p++)
        if (o->state[t->pred[p]] != T_DONE) return 0;
    return 1;
}

static int start_task(agent *a, agent_op *o, int i)
{
    const ovk__off_task *t = &a->tl->task[i];
    MPI_Datatype dt = ovk__mpi_type(o->type);
    int mrc = MPI_SUCCESS, tag = o->tagbase + t->tag;
    if (t->kind == OVK__OFF_CALC) {
        ovk__reduce_local(o->type, o->op, slot_ptr(o, t->slot), slot_ptr(o, t->slot),
                              slot_ptr(o, t->src), o->count);
        o->state[i] = T_DONE;
        o->ndone++;
        return MPI_SUCCESS;
    }
    if (t->kind == OVK__OFF_SEND)
        mrc = MPI_Isend(slot_ptr(o, t->slot), o->count, dt, t->peer, tag, a->comm, &o->req[i]);
    else
        mrc = MPI_Irecv(slot_ptr(o, t->slot), o->count, dt, t->peer, tag, a->comm, &o->req[i]);
    o->state[i] = T_POSTED;
    return mrc;
}

/* One pass: test what is in flight, start what became ready.  *advanced
 * when some task completed. */
static int run_pass(agent *a, agent_op *o, int *advanced)
{
    for (int i = 0; i < a->tl->ntasks; i++) {
        int mrc = MPI_SUCCESS, flag = 0;
        if (o->state[i] == T_POSTED) {
            mrc = MPI_Test(&o->req[i], &flag, MPI_STATUS_IGNORE);
            if (flag) {
                o->state[i] = T_DONE;
                o->ndone++;
                *advanced = 1;
            }
        } else if (o->state[i] == T_WAITING && ready(o, &a->tl->task[i])) {
            mrc = start_task(a, o, i);
            *advanced |= o->state[i] == T_DONE;
        }
        if (mrc != MPI_SUCCESS) return mrc;
    }
    return MPI_SUCCESS;
}

/* The agent's first look at a posted reduction: the input into slot 0. */
static void begin(agent_op *o, int ntasks)
{
    if (o->sendbuf != o->recvbuf) memcpy(o->recvbuf, o->sendbuf, (size_t)o->count * ovk__type_size(o->type));
    memset(o->state, T_WAITING, (size_t)ntasks);
    o->ndone = 0;
}

/* The result into recvbuf, then the flag the host reads (release: the
 * data is visible before the flag). */
static void complete(agent *a, agent_op *o)
{
    if (a->tl->result != 0)
        memcpy(o->recvbuf, slot_ptr(o, a->tl->result), (size_t)o->count * ovk__type_size(o->type));
    atomic_store_explicit(&o->done, 1, memory_order_release);
}

/* ---- the thread ---------------------------------------------------------- */

static void nap(long ns)
{
    struct timespec t = {ns / NS_PER_S, ns % NS_PER_S};
    while (nanosleep(&t, &t) == -1 && errno == EINTR) {
    }
}

/* After `passes` passes in a row that completed nothing: yield for a while,
 * then nap, doubling from BACKOFF_MIN_NS up to BACKOFF_MAX_NS. */
static void idle_pass(long passes)
{
    if (passes <= SPIN_PASSES) {
        sched_yield();
        return;
    }
    long ns = BACKOFF_MIN_NS;
    for (long i = SPIN_PASSES + 1; i < passes && ns < BACKOFF_MAX_NS; i++) ns *= 2;
    nap(ns < BACKOFF_MAX_NS ? ns : BACKOFF_MAX_NS);
}

/* Record an MPI failure; the host sees it at its next post or wait. */
static void fail(agent *a, int mrc)
{
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (MPI_Error_string(mrc, msg, &len) != MPI_SUCCESS) snprintf(msg, sizeof msg, "code %d", mrc);
    pthread_mutex_lock(&a->mutex);
    snprintf(a->failure, sizeof a->failure, "offload agent: point-to-point message failed: %.200s", msg);
    atomic_store(&a->failed, 1);
    pthread_cond_broadcast(&a->finished);
    pthread_mutex_unlock(&a->mutex);
}

/* Move the host's posts to the active list (mutex held). */
static agent_op *take_posted(agent *a, agent_op *active)
{
    agent_op **end = &active;
    while (*end) end = &(*end)->next;
    for (agent_op *o = a->posted; o; o = o->next) begin(o, a->tl->ntasks);
    *end = a->posted;
    a->posted = a->posted_tail = NULL;
    return active;
}

/* One pass over the active reductions; finished ones leave the list. */
static agent_op *pass(agent *a, agent_op *active, int *advanced)
{
    agent_op **link = &active;
    while (*link) {
        agent_op *o = *link;
        int mrc = run_pass(a, o, advanced);
        if (mrc != MPI_SUCCESS) {
            fail(a, mrc);
            *link = o->next;
            continue;
        }
        if (o->ndone < a->tl->ntasks) {
            link = &o->next;
            continue;
        }
        *link = o->next;
        complete(a, o);
        pthread_mutex_lock(&a->mutex);
        pthread_cond_broadcast(&a->finished);
        pthread_mutex_unlock(&a->mutex);
    }
    return active;
}

static void *agent_main(void *arg)
{
    agent *a = arg;
    agent_op *active = NULL;
    long backoff = 0;
    pthread_mutex_lock(&a->mutex);
    while (!a->stop) {
        if (a->posted) {
            active = take_posted(a, active);
            backoff = 0;
        }
        if (!active) {
            pthread_cond_wait(&a->work, &a->mutex); /* idle: sleep until a post */
            continue;
        }
        pthread_mutex_unlock(&a->mutex);
        int advanced = 0;
        active = pass(a, active, &advanced);
        if (advanced) backoff = 0;
        else idle_pass(++backoff);
        pthread_mutex_lock(&a->mutex);
    }
    pthread_mutex_unlock(&a->mutex);
    return NULL;
}

/* ---- the engine ------------------------------------------------------------ */

static int agent_usable(char *why, size_t len)
{
    int init = 0, provided = MPI_THREAD_SINGLE;
    if (MPI_Initialized(&init) != MPI_SUCCESS || !init) {
        snprintf(why, len, "MPI is not initialised");
        return 0;
    }
    if (MPI_Query_thread(&provided) != MPI_SUCCESS || provided != MPI_THREAD_MULTIPLE) {
        snprintf(why, len,
                 "the agent engine needs MPI initialised with MPI_THREAD_MULTIPLE (MPI_Init_thread); "
                 "this process has thread level %d",
                 provided);
        return 0;
    }
    return 1;
}

static void agent_destroy(void *eng)
{
    agent *a = eng;
    if (!a) return;
    if (a->running) {
        pthread_mutex_lock(&a->mutex);
        a->stop = 1;
        pthread_cond_signal(&a->work);
        pthread_mutex_unlock(&a->mutex);
        pthread_join(a->thread, NULL);
    }
    for (int i = 0; a->ops && i < a->depth; i++) {
        free(a->ops[i].tmp);
        free(a->ops[i].state);
        free(a->ops[i].req);
    }
    free(a->ops);
    if (a->sync_init) {
        pthread_mutex_destroy(&a->mutex);
        pthread_cond_destroy(&a->work);
        pthread_cond_destroy(&a->finished);
    }
    if (a->comm != MPI_COMM_NULL) MPI_Comm_free(&a->comm);
    free(a);
}

static int alloc_ops(agent *a)
{
    size_t n = a->tl->ntasks ? (size_t)a->tl->ntasks : 1;
    if (!(a->ops = calloc((size_t)a->depth, sizeof *a->ops)))
        return ovk__fail(OVK_ENOMEM, "offload agent: %d queue slots", a->depth);
    for (int i = 0; i < a->depth; i++) {
        a->ops[i].state = malloc(n);
        a->ops[i].req = malloc(n * sizeof *a->ops[i].req);
        if (!a->ops[i].state || !a->ops[i].req) return ovk__fail(OVK_ENOMEM, "offload agent: task states");
    }
    return OVK_OK;
}

static int tag_window(agent *a)
{
    int flag = 0, *ub = NULL;
    int rc = ovk__mpi(MPI_Comm_get_attr(a->comm, MPI_TAG_UB, &ub, &flag), "MPI_Comm_get_attr");
    if (rc) return rc;
    a->window = (unsigned long long)((flag ? *ub : MIN_TAG_UB) + 1L) >> OVK__OFF_TAG_BITS;
    return OVK_OK;
}

/* The agent's mutex and conditions, and its thread. */
static int start_agent(agent *a)
{
    if (pthread_mutex_init(&a->mutex, NULL) || pthread_cond_init(&a->work, NULL) ||
        pthread_cond_init(&a->finished, NULL))
        return ovk__fail(OVK_ENOMEM, "offload agent: mutex");
    a->sync_init = 1;
    if (pthread_create(&a->thread, NULL, agent_main, a) != 0)
        return ovk__fail(OVK_ENOMEM, "offload agent: cannot start the agent thread");
    a->running = 1;
    return OVK_OK;
}

static int agent_create(MPI_Comm comm, const ovk__off_list *tl, int depth, void **eng,
                        unsigned long long *window)
{
    char why[256];
    agent *a = calloc(1, sizeof *a);
    int rc = a ? OVK_OK : ovk__fail(OVK_ENOMEM, "offload agent");
    if (a) {
        a->comm = MPI_COMM_NULL;
        a->tl = tl;
        a->depth = depth;
        rc = agent_usable(why, sizeof why) ? alloc_ops(a) : ovk__fail(OVK_EUNSUPPORTED, "offload: %s", why);
    }
    rc = ovk__agree(comm, rc); /* before MPI_Comm_dup, which every rank must reach */
    if (rc) goto cleanup;
    rc = ovk__mpi(MPI_Comm_dup(comm, &a->comm), "MPI_Comm_dup");
    if (rc) goto cleanup;
    rc = tag_window(a);
    if (rc) goto cleanup;
    rc = start_agent(a);
    if (rc) goto cleanup;
    *eng = a;
    *window = a->window;
    return OVK_OK;
cleanup:
    agent_destroy(a);
    return rc;
}

/* Scratch of slots 1.. for this count (the slot is idle: the agent is done
 * with it). */
static int fit_tmp(agent *a, agent_op *o, int count, ovk_datatype type)
{
    size_t bytes = (size_t)(a->tl->nslots - 1) * (size_t)count * ovk__type_size(type);
    if (bytes <= o->tmp_bytes) return OVK_OK;
    void *t = realloc(o->tmp, bytes);
    if (!t) return ovk__fail(OVK_ENOMEM, "offload agent: %zu bytes of scratch", bytes);
    o->tmp = t;
    o->tmp_bytes = bytes;
    return OVK_OK;
}

/* Queue o for the agent (under the mutex), unless the agent has failed. */
static int append_locked(agent *a, agent_op *o)
{
    if (atomic_load(&a->failed)) return ovk__fail(OVK_EMPI, "%s", a->failure);
    if (a->posted_tail) a->posted_tail->next = o;
    else a->posted = o;
    a->posted_tail = o;
    pthread_cond_signal(&a->work);
    return OVK_OK;
}

static int agent_post(void *eng, const ovk__off_post *p)
{
    agent *a = eng;
    agent_op *o = &a->ops[p->slot];
    int rc = fit_tmp(a, o, p->r->count, p->r->type);
    if (rc) return rc;
    *o = (agent_op){.sendbuf = p->r->sendbuf, .recvbuf = p->r->recvbuf, .count = p->r->count,
                    .type = p->r->type, .op = p->r->op,
                    .tagbase = (int)(p->seq % a->window) << OVK__OFF_TAG_BITS, .tmp = o->tmp,
                    .tmp_bytes = o->tmp_bytes, .state = o->state, .req = o->req};
    atomic_init(&o->done, 0);
    pthread_mutex_lock(&a->mutex);
    rc = append_locked(a, o);
    pthread_mutex_unlock(&a->mutex);
    return rc;
}

static int agent_test(void *eng, int slot, int *done)
{
    agent *a = eng;
    *done = atomic_load_explicit(&a->ops[slot].done, memory_order_acquire);
    if (*done || !atomic_load(&a->failed)) return OVK_OK;
    pthread_mutex_lock(&a->mutex);
    int rc = ovk__fail(OVK_EMPI, "%s", a->failure);
    pthread_mutex_unlock(&a->mutex);
    return rc;
}

/* Sleep until the agent signals a completion (or a failure). */
static int agent_wait(void *eng, int slot)
{
    agent *a = eng;
    agent_op *o = &a->ops[slot];
    int rc = OVK_OK;
    if (atomic_load_explicit(&o->done, memory_order_acquire)) return OVK_OK;
    pthread_mutex_lock(&a->mutex);
    while (!atomic_load_explicit(&o->done, memory_order_acquire) && !atomic_load(&a->failed))
        pthread_cond_wait(&a->finished, &a->mutex);
    if (!atomic_load_explicit(&o->done, memory_order_acquire)) rc = ovk__fail(OVK_EMPI, "%s", a->failure);
    pthread_mutex_unlock(&a->mutex);
    return rc;
}

static int agent_reserve(void *eng, int slot, int max_count, ovk_datatype type, ovk_op op)
{
    agent *a = eng;
    (void)op; /* the scratch depends on the size only */
    return fit_tmp(a, &a->ops[slot], max_count, type);
}

const ovk__off_engine ovk__off_agent = {
    .name = "agent",
    .needs_threads = 1, .usable = agent_usable,
    .create = agent_create, .reserve = agent_reserve, .destroy = agent_destroy,
    .post = agent_post, .test = agent_test, .wait = agent_wait,
};

/* Many right-hand sides: the k systems of ovk_solver_solve_many run as k
 * cooperative tasks on the calling thread (ucontext coroutines, each on a
 * stack of its own), each the unchanged variant in its own context copy and
 * variant instance, sharing the set-up matrix, preconditioner and reducer.
 * Where a variant meets the outside (solver_common.c: the sums' start and
 * wait, the products) a task in a batch yields, and the scheduler below
 * combines what the tasks wait for:
 *
 *   run every ready task, in index order, until it yields or ends;
 *   if tasks have just started a sum and none waits for a product: post
 *     every sum not yet posted as ONE reduction, before the work the
 *     tasks overlap with it (their preconditioners, their products), and
 *     let them go on;
 *   if tasks wait for the preconditioner (one with apply_many): apply it
 *     to all of them at once (the diagonal or factors read once);
 *   if tasks wait for products: post the sums those tasks started as ONE
 *     reduction carrying all their values (each at its offset), then ONE
 *     multi-vector product for all of them (the matrix read once, one halo
 *     message per neighbour);
 *   else (every task waits for a sum): post every sum not yet posted as
 *     ONE reduction, and wait for the oldest combined reduction a task
 *     needs.
 *
 * With option many_group G (0, the default: as many systems as fit the
 * cache a rank can count on, its last-level cache over the ranks sharing
 * it, the smallest share and the largest system over the ranks; all k
 * when they fit), "run every ready task" runs them in groups of G when G <
 * k: a group's tasks run, their sums
 * posted among themselves (one reduction per group per sum point) and
 * waited for, until each waits for a product or preconditioner or is
 * done; then the next group.  So one system's vector updates between two
 * products can stay in cache, while the product and preconditioner stay
 * one for all k.
 *
 * The order depends only on the tasks' control flow, which depends only on
 * reduced values, and on the group size, the same on every rank: every
 * rank posts the same reductions in the same order.
 * A pipelined variant keeps its overlap: the combined sum is posted before
 * the products its tasks run while it flies, and waited for after them.  A
 * blocking collective inside a task (the scaled solve's max |b_i|, plcg's
 * spectrum estimate, a preconditioner's own) is not combined but is
 * correct: every rank reaches it at the same point of the same order. */
#define _GNU_SOURCE /* ucontext, mmap's MAP_ANONYMOUS */
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include "../solver.h"

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define OVK_MANY_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) && !defined(OVK_MANY_ASAN)
#define OVK_MANY_ASAN 1
#endif
#ifdef OVK_MANY_ASAN
#include <sanitizer/common_interface_defs.h>
#endif
#if defined(__has_include)
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#define OVK_MANY_VALGRIND 1
#endif
#endif

/* A task's stack (mapped, its pages touched as used), a guard page below. */
enum { TASK_STACK_BYTES = 2 << 20 };
/* Sums a task may have started and not yet waited for (plcg: 2 l + 4). */
enum { TASK_SUMS = OVK__STAGE_SLOTS + 8 };

typedef enum { TASK_READY, TASK_STARTED, TASK_PC, TASK_PRODUCT, TASK_SUM, TASK_DONE } task_state;

/* A started sum: the task's values, then where they ride. */
typedef struct sum_token {
    double *vals;
    int n;
    int group;  /* the combined reduction carrying it, -1 until posted */
    int task;   /* the index of the task that started it */
    int offset; /* its first value there */
    int used;
} sum_token;

/* One combined reduction.  Its slot keeps buf for the next one. */
typedef struct group {
    ovk_request *req;
    double *buf;
    size_t cap;     /* doubles buf holds */
    long long seq;  /* posting order */
    int tokens;     /* its sums not yet collected by their task */
    int count;      /* its sums */
    int done, rc;
    ovk__detail why; /* rc's detail, for each sum's task */
    double waited;  /* the seconds its wait took */
} group;

typedef struct ovk__many ovk__many;
typedef struct ovk__task ovk__task;

struct ovk__task {
    ovk__many *m;
    int index;
    ucontext_t uc;
    void *map;       /* the stack's mapping (guard page first) */
    size_t map_len;
    unsigned vg_id;
    void *asan_fake;
    ovk__ctx c;
    ovk__variant var;
    ovk__nullspace ns; /* the solver's set-up basis (shared) with this system's projected b */
    task_state state;
    int rc;
    ovk__detail why; /* its own view of the thread's detail, kept while others run */
    const double *p; /* a product asked for: s = A p, and <p,s> into ps when not NULL */
    double *s, *ps, took;
    const double *r; /* a preconditioner asked for: z = C r, <r,z> and <r,r> into rz, rr when not NULL */
    double *z, *rz, *rr;
    int prc;
    sum_token *await;
    sum_token sums[TASK_SUMS];
};

struct ovk__many {
    ovk__task *tasks;
    int k;
    ucontext_t main;
    void *asan_fake;
    const void *main_bottom;
    size_t main_size;
    ovk__task *running;
    ovk__detail main_why; /* the scheduler's detail while a task runs */
    sum_token **unposted; /* sums started and not yet posted, in start order */
    int nunposted;
    group *groups;
    int ngroups;
    long long seq;
    const ovk_matrix *A;
    ovk_reducer *red;
    MPI_Comm comm;         /* the solver's, for agreements */
    ovk__hook hook;        /* the reducer's progress during a product */
    const double **X;      /* the product's scratch: k operands, results, sums */
    double **Y, *xy, *xx;
    ovk__multi_scratch scratch; /* the products' interleaved copies, kept across them */
    int *current;
    int group; /* tasks run together between two products (k: all) */
};

static OVK__RANK_LOCAL ovk__task *starting;

/* ---- switching ---------------------------------------------------------- */

static void enter_task(ovk__many *m, ovk__task *t)
{
    m->running = t;
    *m->current = t->index;
    starting = t; /* read by task_main at the task's first entry */
    ovk__detail_save(&m->main_why); /* each system sees its own failures' detail, not the others' */
    ovk__detail_restore(&t->why);
#ifdef OVK_MANY_ASAN
    __sanitizer_start_switch_fiber(&m->asan_fake, (char *)t->map + sysconf(_SC_PAGESIZE),
                                   t->map_len - (size_t)sysconf(_SC_PAGESIZE));
#endif
    swapcontext(&m->main, &t->uc);
#ifdef OVK_MANY_ASAN
    __sanitizer_finish_switch_fiber(m->asan_fake, NULL, NULL);
#endif
    ovk__detail_save(&t->why);
    ovk__detail_restore(&m->main_why);
    m->running = NULL;
    *m->current = -1;
}

/* back to the scheduler; returns when the scheduler resumes t */
static void yield(ovk__task *t)
{
    ovk__many *m = t->m;
#ifdef OVK_MANY_ASAN
    __sanitizer_start_switch_fiber(&t->asan_fake, m->main_bottom, m->main_size);
#endif
    swapcontext(&t->uc, &m->main);
#ifdef OVK_MANY_ASAN
    __sanitizer_finish_switch_fiber(t->asan_fake, &m->main_bottom, &m->main_size);
#endif
}

/* a task's whole life: its variant's solve */
static void task_main(void)
{
    ovk__task *t = starting;
    ovk__many *m = t->m;
#ifdef OVK_MANY_ASAN
    __sanitizer_finish_switch_fiber(NULL, &m->main_bottom, &m->main_size);
#endif
    t->rc = ovk__nullspace_begin_solve(&t->c); /* b -= Z Z^T b */
    if (!t->rc) t->rc = ovk__variant_solve(&t->c, &t->var);
    if (!t->rc) t->rc = ovk__nullspace_end_solve(&t->c); /* x -= Z Z^T x */
    t->state = TASK_DONE;
#ifdef OVK_MANY_ASAN
    __sanitizer_start_switch_fiber(NULL, m->main_bottom, m->main_size); /* this stack ends */
#endif
    setcontext(&m->main);
}

/* Local: t's stack and context, ready to enter task_main */
static int task_stack(ovk__task *t)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    t->map_len = TASK_STACK_BYTES + page;
    t->map = mmap(NULL, t->map_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (t->map == MAP_FAILED) {
        t->map = NULL;
        return ovk__fail(OVK_ENOMEM, "the stack of system %d", t->index);
    }
    mprotect(t->map, page, PROT_NONE); /* an overflow faults instead of writing elsewhere */
    if (getcontext(&t->uc)) return ovk__fail(OVK_ENOMEM, "the context of system %d", t->index);
    t->uc.uc_stack.ss_sp = (char *)t->map + page;
    t->uc.uc_stack.ss_size = TASK_STACK_BYTES;
    t->uc.uc_link = NULL;
#ifdef OVK_MANY_VALGRIND
    t->vg_id = VALGRIND_STACK_REGISTER((char *)t->map + page, (char *)t->map + t->map_len);
#endif
    makecontext(&t->uc, task_main, 0);
    return OVK_OK;
}

/* ---- the yield points: the batch's loop ops ------------------------------- */

/* A system's sums and products wait for the batch, which combines them
 * with the other systems' (the ops of solver.h, on the task in c->many.task).
 * sum_post takes the n values at vals (reduced in place by the wait) and
 * gives a token for *req; sum_wait waits for it (*waited: the seconds of
 * the combined wait booked to this system).  sum_posted: the task waits
 * until every system has started its sums, so that they go as one
 * reduction before the work meant to overlap it. */
static int batch_sum_post(ovk__ctx *c, double *vals, int n, ovk_request **req)
{
    ovk__task *t = c->many.task;
    ovk__many *m = t->m;
    sum_token *tok = NULL;
    for (int i = 0; i < TASK_SUMS && !tok; i++)
        if (!t->sums[i].used) tok = &t->sums[i];
    if (!tok) return ovk__fail(OVK_EUNSUPPORTED, "more than %d sums in flight in system %d", TASK_SUMS, t->index);
    *tok = (sum_token){.vals = vals, .n = n, .group = -1, .task = t->index, .used = 1};
    m->unposted[m->nunposted++] = tok;
    *req = (ovk_request *)(void *)tok; /* a token, never handed to the reducer */
    return OVK_OK;
}

static void batch_sum_posted(ovk__ctx *c)
{
    ovk__task *t = c->many.task;
    t->state = TASK_STARTED;
    yield(t);
}

static int batch_sum_wait(ovk__ctx *c, ovk_request *req, double *waited)
{
    ovk__task *t = c->many.task;
    ovk__many *m = t->m;
    sum_token *tok = (sum_token *)(void *)req;
    if (tok->group < 0 || !m->groups[tok->group].done) {
        t->await = tok;
        t->state = TASK_SUM;
        yield(t);
    }
    group *g = &m->groups[tok->group];
    int rc = g->rc;
    if (rc) ovk__detail_restore(&g->why);
    if (!rc) memcpy(tok->vals, g->buf + tok->offset, sizeof(double) * (size_t)tok->n);
    *waited = g->waited / g->count;
    tok->used = 0;
    g->tokens--; /* at 0, every sum collected: the slot is free */
    return rc;
}

/* back to the scheduler until it has run what t asks for (state), its
 * share of the batch's time added to the system's timer */
static int run_by_batch(ovk__ctx *c, ovk__task *t, task_state state, int timer)
{
    t->state = state;
    yield(t);
    c->clock.t[timer] += t->took;
    return t->prc;
}

/* s = A p (and ps not NULL: the local <p,s>) in the batch's multi-vector
 * product, its share of the time; an operator's products stay the
 * system's own */
static int batch_product(ovk__ctx *c, const double *p, double *s, double *ps)
{
    if (!c->A) return ovk__direct_ops.product(c, p, s, ps);
    ovk__task *t = c->many.task;
    t->p = p;
    t->s = s;
    t->ps = ps;
    return run_by_batch(c, t, TASK_PRODUCT, OVK_TIMER_MATVEC);
}

/* z = C r (and rz, rr not NULL: the local <r,z>, <r,r>) with the other
 * systems' (the preconditioner's apply_many), its share of the time; the
 * system's own when C has no apply_many (or apply_dots, for the sums) or
 * the solve is scaled (its 2^-k factors stay per system) */
static int batch_pc(ovk__ctx *c, const double *r, double *z, double *rz, double *rr)
{
    const ovk__pc_type *type = c->pc->type;
    if (!type->apply_many || c->scale.kc || (rz && !type->apply_dots)) return ovk__direct_ops.pc(c, r, z, rz, rr);
    ovk__task *t = c->many.task;
    t->r = r;
    t->z = z;
    t->rz = rz;
    t->rr = rr;
    return run_by_batch(c, t, TASK_PC, OVK_TIMER_PRECOND);
}

static const ovk__loop_ops batch_ops = {
    .sum_post = batch_sum_post, .sum_posted = batch_sum_posted, .sum_wait = batch_sum_wait,
    .product = batch_product, .pc = batch_pc, .combined = 1,
};

/* ---- the scheduler ------------------------------------------------------ */

/* A free group slot (index) whose buffer holds total values, the array
 * or the buffer grown.  Every rank posts the same sums in the same order,
 * so every rank grows at the same post: the outcome is agreed there (a
 * rank without the memory must not leave the others in the reduction),
 * and a slot's buffer is kept, at least k OVK__RESERVED_VALS values, so
 * that growing is rare. */
static int group_slot(ovk__many *m, int total, int *slot)
{
    int i = 0, rc = OVK_OK;
    while (i < m->ngroups && (m->groups[i].req || m->groups[i].tokens > 0)) i++;
    if (i == m->ngroups) {
        group *more = realloc(m->groups, sizeof(group) * (size_t)(m->ngroups + 1));
        if (more) {
            m->groups = more;
            memset(&m->groups[m->ngroups++], 0, sizeof(group));
        }
        rc = ovk__agree(m->comm, more ? OVK_OK : ovk__fail(OVK_ENOMEM, "a combined reduction"));
        if (rc) return rc;
    }
    group *g = &m->groups[i];
    size_t need = (size_t)m->k * OVK__RESERVED_VALS;
    if (need < (size_t)total) need = (size_t)total;
    if (!g->buf || g->cap < (size_t)total) {
        free(g->buf);
        g->cap = (g->buf = malloc(sizeof(double) * need)) ? need : 0;
        rc = ovk__agree(m->comm, g->buf ? OVK_OK : ovk__fail(OVK_ENOMEM, "a combined reduction of %d values", total));
    }
    *slot = i;
    return rc;
}

/* The sums started since the last post, as one reduction carrying them
 * all; with before_product (other tasks wait for a product) the sums of a
 * task that waits for a sum not yet posted (a blocking sum) are held until
 * no task waits for a product, so that systems one phase apart still share
 * a reduction, while the others (a pipelined variant's, to fly while the
 * product runs) go now. */
static int post(ovk__many *m, int before_product)
{
    int slot = 0, total = 0, count = 0, held = 0;
    sum_token **go = m->unposted + m->k * TASK_SUMS; /* the second half of the room */
    for (int i = 0; i < m->nunposted; i++) {
        sum_token *tok = m->unposted[i];
        const ovk__task *t = &m->tasks[tok->task];
        if (before_product && t->state == TASK_SUM && t->await->group < 0) m->unposted[held++] = tok;
        else {
            go[count++] = tok;
            total += tok->n;
        }
    }
    m->nunposted = held;
    if (count == 0) return OVK_OK;
    int rc = group_slot(m, total, &slot);
    if (rc) return rc;
    group *g = &m->groups[slot];
    *g = (group){.buf = g->buf, .cap = g->cap, .seq = m->seq++, .tokens = count, .count = count};
    for (int i = 0, off = 0; i < count; i++) {
        go[i]->group = slot;
        go[i]->offset = off;
        memcpy(g->buf + off, go[i]->vals, sizeof(double) * (size_t)go[i]->n);
        off += go[i]->n;
    }
    g->rc = ovk_reduce_start(m->red, g->buf, g->buf, total, OVK_DOUBLE, OVK_SUM, &g->req);
    if (g->rc) { /* the failure goes to each sum's wait */
        ovk__detail_save(&g->why);
        g->req = NULL;
        g->done = 1;
    }
    return OVK_OK;
}

static void progress(void *arg) { ovk_reducer_progress(((ovk__many *)arg)->red); }

/* the products the tasks wait for, as one multi-vector product */
static void products(ovk__many *m)
{
    int n = 0;
    for (int j = 0; j < m->k; j++) {
        ovk__task *t = &m->tasks[j];
        if (t->state != TASK_PRODUCT) continue;
        m->X[n] = t->p;
        m->Y[n++] = t->s;
    }
    double t0 = ovk__now();
    int rc = ovk__matvec_multi_with(m->A, n, m->X, m->Y, m->xy, &m->hook, &m->scratch);
    double share = (ovk__now() - t0) / n;
    for (int j = 0, i = 0; j < m->k; j++) {
        ovk__task *t = &m->tasks[j];
        if (t->state != TASK_PRODUCT) continue;
        if (t->ps) *t->ps = m->xy[i];
        i++;
        t->prc = rc;
        if (rc) ovk__detail_save(&t->why); /* the task reads the failure when it resumes */
        t->took = share;
        t->state = TASK_READY;
    }
}

/* the preconditioner of the tasks that wait for it with (dots 1) or
 * without its sums, as one apply_many */
static void pc_group(ovk__many *m, int dots)
{
    int n = 0;
    for (int j = 0; j < m->k; j++) {
        ovk__task *t = &m->tasks[j];
        if (t->state != TASK_PC || (t->rz != NULL) != dots) continue;
        m->X[n] = t->r;
        m->Y[n++] = t->z;
    }
    if (n == 0) return;
    const ovk__pc *pc = m->tasks[0].c.pc;
    double t0 = ovk__now();
    int rc = pc->type->apply_many(pc->state, n, m->X, m->Y, dots ? m->xy : NULL, dots ? m->xx : NULL, &m->hook);
    double share = (ovk__now() - t0) / n;
    for (int j = 0, i = 0; j < m->k; j++) {
        ovk__task *t = &m->tasks[j];
        if (t->state != TASK_PC || (t->rz != NULL) != dots) continue;
        if (dots) {
            *t->rz = m->xy[i];
            *t->rr = m->xx[i];
        }
        i++;
        t->prc = rc;
        if (rc) ovk__detail_save(&t->why); /* the task reads the failure when it resumes */
        t->took = share;
        t->state = TASK_READY;
    }
}

/* every task waits for a sum: wait for the oldest combined reduction one
 * of them needs, and ready its waiters */
static int wait_oldest(ovk__many *m)
{
    group *oldest = NULL;
    for (int j = 0; j < m->k; j++) {
        ovk__task *t = &m->tasks[j];
        if (t->state != TASK_SUM) continue;
        group *g = &m->groups[t->await->group];
        if (!g->done && (!oldest || g->seq < oldest->seq)) oldest = g;
    }
    if (oldest) {
        double t0 = ovk__now();
        oldest->rc = ovk_reduce_wait(oldest->req);
        int rc2 = ovk_request_free(oldest->req);
        if (!oldest->rc) oldest->rc = rc2;
        if (oldest->rc) ovk__detail_save(&oldest->why);
        oldest->req = NULL;
        oldest->done = 1;
        oldest->waited = ovk__now() - t0;
    }
    int woken = 0;
    for (int j = 0; j < m->k; j++) {
        ovk__task *t = &m->tasks[j];
        if (t->state == TASK_SUM && m->groups[t->await->group].done) {
            t->state = TASK_READY;
            woken++;
        }
    }
    return woken ? OVK_OK : ovk__fail(OVK_EINVAL, "solve_many: no system can go on (internal error)");
}

/* Tasks that have just started a sum go on; when no task waits for a
 * product, the sums go first as one reduction, which then flies while the
 * tasks run what they overlap with it.  Else (systems a phase apart) they
 * go on unposted, and post() combines their sums at the product. */
static int release_started(ovk__many *m, int want_product)
{
    int rc = want_product ? OVK_OK : post(m, 0);
    for (int j = 0; j < m->k; j++)
        if (m->tasks[j].state == TASK_STARTED) m->tasks[j].state = TASK_READY;
    return rc;
}

/* Tasks [first, last) until each waits for a product or a preconditioner
 * or is done, their sums posted among themselves and waited for; the sums
 * they leave in flight (a pipelined variant's) go out before the next
 * group runs. */
static int run_group(ovk__many *m, int first, int last)
{
    for (;;) {
        int started = 0, summing = 0;
        for (int j = first; j < last; j++)
            if (m->tasks[j].state == TASK_READY) enter_task(m, &m->tasks[j]);
        for (int j = first; j < last; j++) {
            started += m->tasks[j].state == TASK_STARTED;
            summing += m->tasks[j].state == TASK_SUM;
        }
        int rc = started ? release_started(m, 0) : post(m, 0);
        if (rc || started) {
            if (rc) return rc;
            continue;
        }
        if (!summing) return OVK_OK;
        if ((rc = wait_oldest(m))) return rc;
    }
}

/* every ready task, in groups of m->group when they are fewer than k */
static int run_ready(ovk__many *m)
{
    for (int first = 0; m->group < m->k && first < m->k; first += m->group) {
        int rc = run_group(m, first, m->k - first > m->group ? first + m->group : m->k);
        if (rc) return rc;
    }
    for (int j = 0; j < m->k; j++)
        if (m->tasks[j].state == TASK_READY) enter_task(m, &m->tasks[j]);
    return OVK_OK;
}

static int schedule(ovk__many *m)
{
    for (;;) {
        int live = 0, want_product = 0, started = 0, want_pc = 0;
        int rc = run_ready(m);
        if (rc) return rc;
        for (int j = 0; j < m->k; j++) {
            live += m->tasks[j].state != TASK_DONE;
            want_product += m->tasks[j].state == TASK_PRODUCT;
            started += m->tasks[j].state == TASK_STARTED;
            want_pc += m->tasks[j].state == TASK_PC;
        }
        if (!live) return OVK_OK;
        if (!started && want_pc) { /* the preconditioner first: its tasks may join the product */
            pc_group(m, 0);
            pc_group(m, 1);
            continue;
        }
        rc = started ? release_started(m, want_product) : post(m, want_product);
        if (rc) return rc;
        if (started) continue;
        if (want_product) products(m);
        else if ((rc = wait_oldest(m))) return rc;
    }
}

/* ---- the batch's set-up ------------------------------------------------- */

/* The variant the tasks run: v's own, or the one v chose at setup (its
 * `chosen` hook: a variant that delegates), so that the k systems run one
 * measurement's choice (*params: that variant's parsed options, the
 * caller's to free). */
static int task_variant(ovk__ctx *c, const ovk__variant *v, const ovk__solver **sv, void **params)
{
    char name[64];
    ovk__opts opts;
    *sv = v->sv;
    *params = NULL;
    if (!v->sv->ops->chosen) return OVK_OK;
    const char *spec = v->sv->ops->chosen(v->work, sv);
    if (!spec) return ovk__fail(OVK_EUNSUPPORTED, "solve_many: %s has not chosen a variant", v->sv->name);
    int rc = ovk__spec_parse("solver", OVK_EOPTION, spec, name, sizeof name, &opts);
    if (!rc && (*sv)->ops->parse) rc = (*sv)->ops->parse(&opts, params);
    if (!rc && (*sv)->ops->needs_norm && !c->norms.current)
        rc = c->norms.update(c); /* collective, on every rank alike */
    return rc;
}

/* Local: task j's context (the template's copy, with what a solve writes
 * made its own) */
static int task_ctx(ovk__many *m, const ovk__ctx *c, int j, const double *b, double *x, ovk_result *res,
                    void *params)
{
    ovk__task *t = &m->tasks[j];
    t->m = m;
    t->index = j;
    t->c = *c;
    t->c.many.task = t;
    t->c.ops = &batch_ops;
    t->c.b = b;
    t->c.x = x;
    t->c.res = res;
    if (params) t->c.params = params;
    if (t->c.hook.fn) t->c.hook.arg = &t->c;
    if (j > 0) t->c.mon.history = NULL; /* the history buffer is system 0's */
    t->c.mon.stage = NULL;
    t->c.mon.true_r = NULL;
    t->c.lanczos.alpha = t->c.lanczos.beta = t->c.lanczos.work = NULL;
    if (c->ns) { /* the basis shared, b's projection and inconsistency the task's own */
        t->ns = (ovk__nullspace){.k = c->ns->k, .constant = c->ns->constant, .basis = c->ns->basis,
                                 .inconsistency = -1.0};
        t->c.ns = &t->ns;
        if (!(t->ns.b = malloc(sizeof(double) * (size_t)(c->n > 0 ? c->n : 1))))
            return ovk__fail(OVK_ENOMEM, "the projected b of system %d", j);
    }
    if (c->mon.stage && !(t->c.mon.stage = calloc(OVK__STAGE_SLOTS, sizeof *c->mon.stage)))
        return ovk__fail(OVK_ENOMEM, "the monitor's slots of system %d", j);
    if (c->mon.true_r && !(t->c.mon.true_r = malloc(sizeof(double) * (size_t)(c->n > 0 ? c->n : 1))))
        return ovk__fail(OVK_ENOMEM, "the true residual of system %d", j);
    if (c->lanczos.cap > 0) {
        size_t cap = (size_t)c->lanczos.cap;
        if (!(t->c.lanczos.alpha = malloc(sizeof(double) * 4 * cap)))
            return ovk__fail(OVK_ENOMEM, "the condition estimate of system %d", j);
        t->c.lanczos.beta = t->c.lanczos.alpha + cap;
        t->c.lanczos.work = t->c.lanczos.beta + cap;
    }
    t->state = TASK_READY;
    return task_stack(t);
}

/* ---- the group size -------------------------------------------------- */

/* a cache's file under /sys as a number (its K/M/G suffix applied); 0 when
 * absent */
static long long sys_number(const char *dir, const char *file)
{
    char path[160], text[64] = "";
    snprintf(path, sizeof path, "%s/%s", dir, file);
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    if (!fgets(text, sizeof text, f)) text[0] = '\0';
    fclose(f);
    char *end = text;
    long long v = strtoll(text, &end, 10);
    int shift = *end == 'K' ? 10 : *end == 'M' ? 20 : *end == 'G' ? 30 : 0;
    return v > 0 ? v << shift : 0;
}

/* the CPUs of a list "0-3,8,10-11" (0 when unreadable) */
static int cpu_count(const char *dir)
{
    char path[160], text[256] = "";
    snprintf(path, sizeof path, "%s/shared_cpu_list", dir);
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    if (!fgets(text, sizeof text, f)) text[0] = '\0';
    fclose(f);
    int count = 0;
    for (char *p = text; *p >= '0' && *p <= '9';) {
        long lo = strtol(p, &p, 10), hi = *p == '-' ? strtol(p + 1, &p, 10) : lo;
        count += hi >= lo ? (int)(hi - lo + 1) : 0;
        if (*p == ',') p++;
    }
    return count;
}

/* Local: the bytes of the last-level cache this rank can count on: its
 * size (/sys for the CPU it runs on, else sysconf's L3) over the ranks of
 * the node that share it, taken as all node_ranks unless fewer CPUs share
 * it; 0 when unknown. */
static long long cache_share(int node_ranks)
{
    char dir[128];
    long long bytes = 0;
    int level = 0, sharing = 0, cpu = sched_getcpu();
    for (int i = 0; i < 8; i++) { /* the cache indices, the deepest level kept */
        snprintf(dir, sizeof dir, "/sys/devices/system/cpu/cpu%d/cache/index%d", cpu > 0 ? cpu : 0, i);
        int lv = (int)sys_number(dir, "level");
        long long b = sys_number(dir, "size");
        if (lv > level && b > 0) {
            level = lv;
            bytes = b;
            sharing = cpu_count(dir);
        }
    }
#ifdef _SC_LEVEL3_CACHE_SIZE
    if (bytes <= 0) bytes = sysconf(_SC_LEVEL3_CACHE_SIZE);
#endif
    int ranks = sharing > 0 && sharing < node_ranks ? sharing : node_ranks;
    return bytes > 0 ? bytes / (ranks > 0 ? ranks : 1) : 0;
}

/* Collective at a solver's first batch (the cache share, MIN over the
 * ranks, kept in c), local after: the tasks run together between two
 * products (m->group), option many_group: > 0 that many; 0 as many systems
 * as the smallest cache share holds of one system's vectors (the variant's
 * nvec and x, at the largest rank's rows), at least 1; all k when they
 * fit, when some rank cannot tell its cache, or without a matrix (a user
 * operator: no product to group around).  Every rank runs the same groups. */
static int group_size(ovk__many *m, ovk__ctx *c, int nvec, int forced)
{
    m->group = m->k;
    if (forced > 0 || !c->A) {
        if (forced > 0 && forced < m->k) m->group = forced;
        return OVK_OK;
    }
    if (!c->many.cache_asked) { /* once per solver: a node communicator and a sum */
        int node_ranks = 1;
        MPI_Comm node = MPI_COMM_NULL;
        int rc = ovk__mpi(MPI_Comm_split_type(c->comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node),
                          "MPI_Comm_split_type");
        if (!rc) {
            MPI_Comm_size(node, &node_ranks);
            MPI_Comm_free(&node);
        }
        rc = ovk__agree(c->comm, rc);
        if (rc) return rc;
        long long share = cache_share(node_ranks);
        rc = ovk__mpi(MPI_Allreduce(MPI_IN_PLACE, &share, 1, MPI_LONG_LONG, MPI_MIN, c->comm),
                      "MPI_Allreduce (the cache)");
        if (rc) return rc;
        c->many.cache = share;
        c->many.cache_asked = 1;
    }
    const ovk__layout *lay = &c->A->lay;
    long long rows = 0; /* the largest rank's, from the layout every rank holds */
    for (int r = 0; r < lay->size; r++)
        if (lay->starts[r + 1] - lay->starts[r] > rows) rows = lay->starts[r + 1] - lay->starts[r];
    long long cache = c->many.cache, system = (nvec + 1) * rows * (long long)sizeof(double);
    if (cache > 0 && system > 0 && cache / system < m->k) m->group = cache / system > 1 ? (int)(cache / system) : 1;
    return OVK_OK;
}

static void task_free(ovk__task *t)
{
    ovk__variant_free(&t->var);
    free(t->ns.b); /* the basis is the solver's */
    free(t->c.mon.stage);
    free(t->c.mon.true_r);
    free(t->c.lanczos.alpha);
#ifdef OVK_MANY_VALGRIND
    if (t->map) VALGRIND_STACK_DEREGISTER(t->vg_id);
#endif
    if (t->map) munmap(t->map, t->map_len);
}

static int batch_new(ovk__many *m, const ovk__ctx *c, int k)
{
    memset(m, 0, sizeof *m);
    m->k = k;
    m->A = c->A;
    m->red = c->red;
    m->comm = c->comm;
    m->tasks = calloc((size_t)k, sizeof *m->tasks);
    m->unposted = calloc(2 * (size_t)k * TASK_SUMS, sizeof *m->unposted); /* the list, the posted ones */
    m->X = calloc((size_t)k, sizeof *m->X);
    m->Y = calloc((size_t)k, sizeof *m->Y);
    m->xy = calloc((size_t)k, sizeof *m->xy);
    m->xx = calloc((size_t)k, sizeof *m->xx);
    if (!m->tasks || !m->unposted || !m->X || !m->Y || !m->xy || !m->xx) return ovk__fail(OVK_ENOMEM, "%d systems", k);
    if (c->hook.fn) m->hook = (ovk__hook){.fn = progress, .arg = m, .every = c->hook.every};
    return OVK_OK;
}

static void batch_free(ovk__many *m)
{
    for (int j = 0; m->tasks && j < m->k; j++) task_free(&m->tasks[j]);
    for (int i = 0; i < m->ngroups; i++) {
        if (m->groups[i].req) { /* only after a failure: complete it before its buffer goes */
            ovk_reduce_wait(m->groups[i].req);
            ovk_request_free(m->groups[i].req);
        }
        free(m->groups[i].buf);
    }
    free(m->groups);
    free(m->tasks);
    free(m->unposted);
    free(m->X);
    free(m->Y);
    free(m->xy);
    free(m->xx);
    ovk__multi_scratch_free(&m->scratch);
}

/* Collective: max and mean over the ranks of every system's timers, in
 * two reductions */
static int gather_times(ovk__many *m, MPI_Comm comm, ovk_result *results)
{
    int size = 1, k = m->k, n = k * OVK_TIMER_COUNT;
    MPI_Comm_size(comm, &size);
    double *t = malloc(sizeof(double) * 3 * (size_t)n);
    int rc = ovk__agree(comm, t ? OVK_OK : ovk__fail(OVK_ENOMEM, "the timers of %d systems", k));
    if (rc) {
        free(t);
        return rc;
    }
    for (int j = 0; j < k; j++) memcpy(t + j * OVK_TIMER_COUNT, m->tasks[j].c.clock.t, sizeof m->tasks[j].c.clock.t);
    rc = ovk__mpi(MPI_Allreduce(t, t + n, n, MPI_DOUBLE, MPI_MAX, comm), "MPI_Allreduce (timers)");
    if (!rc) rc = ovk__mpi(MPI_Allreduce(t, t + 2 * n, n, MPI_DOUBLE, MPI_SUM, comm), "MPI_Allreduce (timers)");
    for (int j = 0; !rc && j < k; j++)
        for (int i = 0; i < OVK_TIMER_COUNT; i++) {
            results[j].time_max[i] = t[n + j * OVK_TIMER_COUNT + i];
            results[j].time_mean[i] = t[2 * n + j * OVK_TIMER_COUNT + i] / size;
        }
    free(t);
    return rc;
}

int ovk__many_solve(ovk__ctx *c, const ovk__variant *v, int k, const double *const *B, double *const *X,
                    ovk_result *results, int *st, char (*why)[OVK__DETAIL_LEN], int *current)
{
    ovk__many m;
    const ovk__solver *sv = NULL;
    void *params = NULL;
    *current = -1;
    int rc = ovk__agree(c->comm, batch_new(&m, c, k));
    m.current = current;
    if (!rc) rc = ovk__agree(c->comm, task_variant(c, v, &sv, &params));
    if (!rc) {
        int nvec = sv->ops->vectors ? sv->ops->vectors(params ? params : c->params, NULL) : sv->ops->nvec;
        rc = group_size(&m, c, nvec > 0 ? nvec : 1, c->many.group);
    }
    for (int j = 0; !rc && j < k; j++) {
        if (!B[j]) continue; /* a system left out (its input refused): no task */
        rc = ovk__agree(c->comm, task_ctx(&m, c, j, B[j], X[j], &results[j], params));
        if (!rc) rc = ovk__variant_setup(&m.tasks[j].c, sv, &m.tasks[j].var);
    }
    for (int j = 0; !rc && j < k; j++)
        if (!B[j]) m.tasks[j].state = TASK_DONE;
    if (!rc) rc = schedule(&m);
    rc = ovk__agree(c->comm, rc);
    for (int j = 0; !rc && j < k; j++) {
        ovk__ctx *tc = &m.tasks[j].c;
        if (!B[j]) continue;
        int mine = m.tasks[j].rc;
        if (mine) ovk__detail_restore(&m.tasks[j].why);
        if (!mine && tc->cb.failed) mine = ovk__fail(OVK_ECALLBACK, "%s", tc->cb.detail);
        st[j] = ovk__agree(c->comm, mine);
        snprintf(why[j], OVK__DETAIL_LEN, "%s", st[j] ? ovk_error_detail() : m.tasks[j].why.text);
        ovk__condest_end(tc);
    }
    if (!rc) rc = gather_times(&m, c->comm, results);
    batch_free(&m);
    free(params);
    *current = -1;
    return rc;
}

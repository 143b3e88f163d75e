/* ovkrylov: split-phase global reductions behind run-time selectable backends.
 *
 * A reducer is one backend instance bound to a communicator.  Backends are
 * registered by name ("blocking", "native", ...) and chosen at run time with
 * a spec string "name[:key=value,...]".  Every reduction is split in phases:
 *
 *   ovk_reduce_start()  starts it and returns a request (at once, with the
 *                       nonblocking backends)
 *   ovk_reduce_test()   polls (and drives progress for backends that need it)
 *   ovk_reduce_wait()   completes it; recvbuf then holds the result
 *   ovk_request_free()  returns a completed request to the reducer
 *
 * Several requests may be outstanding at once and may be completed in any
 * order.  Every rank must start the same reductions in the same order.
 *
 * What is guaranteed about the result, per backend:
 *   nbc, offload  bitwise identical on every rank, by construction: one
 *                 combination order, fixed by the schedule, computed once
 *                 and sent (docs/nbc.md, docs/offload.md);
 *   blocking, native (and native:persistent=1)
 *                 whatever the MPI library's MPI_Allreduce / MPI_Iallreduce
 *                 returns.  The MPI standard does not promise identical
 *                 bits on every rank (common implementations give them);
 *                 with the option verify=1 (e.g. "native:verify=1") every
 *                 result is checked bitwise across ranks, at the cost of a
 *                 second reduction of twice the size, and a difference is
 *                 OVK_EMPI on every rank, naming the element.
 * Integer (OVK_INT64) sums, and MAX and MIN, are exact on every backend;
 * double sums are exact up to the rounding of the backend's combination
 * order.  A failed request (e.g. a verify=1 mismatch) is complete: free it.
 *
 * Lifetimes: a reducer owns a private duplicate of the communicator and its
 * requests; free every request before ovk_reducer_destroy().  sendbuf and
 * recvbuf must stay valid and sendbuf unchanged until the request completes.
 * sendbuf == recvbuf means "in place".
 */
#ifndef OVKRYLOV_REDUCE_H
#define OVKRYLOV_REDUCE_H

#include <mpi.h>
#include <stdio.h>

#include "matrix.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ovk_reducer ovk_reducer;
typedef struct ovk_request ovk_request;

typedef enum ovk_datatype { OVK_DOUBLE = 0, OVK_INT64 = 1 } ovk_datatype;
typedef enum ovk_op { OVK_SUM = 0, OVK_MAX = 1, OVK_MIN = 2 } ovk_op;

/* Backend capability flags. */
enum {
    OVK_CAP_NONBLOCKING = 1u << 0, /* start returns before the reduction is done */
    OVK_CAP_NEEDS_TEST = 1u << 1,  /* progress happens only inside test/wait calls */
    OVK_CAP_ASYNC = 1u << 2,       /* progresses on its own (thread or hardware) */
    OVK_CAP_NEEDS_THREADS = 1u << 3, /* needs MPI initialised with MPI_THREAD_MULTIPLE
                                        (reported by ovk_backend_caps only) */
    OVK_CAP_SCHEDULED = 1u << 4      /* runs its own schedule, a step at each test or progress
                                        call: work that calls them hides it (nbc) */
};

/* Name of the environment variable read when no backend is chosen in code. */
#define OVK_BACKEND_ENV "OVK_REDUCE_BACKEND"
/* Backend used when neither code nor environment choose one. */
#define OVK_BACKEND_DEFAULT "blocking"

/* Create a reducer on comm.  spec is "name[:key=value,...]"; NULL or "" means
 * the value of $OVK_REDUCE_BACKEND, or "blocking" when that is unset.  When
 * $OVK_LATENCY_MODEL is set, the reducer starts with that latency model
 * (see below; a bad value is OVK_EOPTION).
 * Collective over comm.  Unknown names give OVK_EBACKEND, unknown options or
 * bad values OVK_EOPTION; ovk_error_detail() then lists what is available.
 * A NULL red is OVK_EINVAL; like a bad spec, a failure on any rank is the
 * status on every rank.  The spec (after the environment) must be the same
 * on every rank: one that differs is OVK_EBACKEND everywhere.  comm == MPI_COMM_NULL is OVK_EINVAL, locally. */
int ovk_reducer_create(MPI_Comm comm, const char *spec, ovk_reducer **red);

/* Destroy a reducer (NULL allowed).  Collective over the reducer's
 * communicator.  Fails with OVK_EBUSY on every rank, destroying nothing,
 * while requests are outstanding on any rank; and with OVK_EBUSY on the
 * calling rank alone, communicating nothing, while a solver's solve uses
 * the reducer (a call from one of its callbacks). */
int ovk_reducer_destroy(ovk_reducer *red);

const char *ovk_reducer_name(const ovk_reducer *red);
unsigned ovk_reducer_caps(const ovk_reducer *red);
/* The spec the reducer was created from, with defaults filled in. */
const char *ovk_reducer_spec(const ovk_reducer *red);

/* Start reducing count elements.  Collective in order: every rank must
 * start the same reductions in the same order.  Backends with
 * OVK_CAP_NONBLOCKING return at once; the others (blocking, and
 * blocking:verify=1 with its check) run the whole reduction inside this
 * call, so it blocks until every rank has started it. */
int ovk_reduce_start(ovk_reducer *red, const void *sendbuf, void *recvbuf, int count,
                     ovk_datatype type, ovk_op op, ovk_request **req);
/* *done = 1 once complete (the request may then be waited on at no cost).
 * A failure found by a test or by ovk_reducer_progress (e.g. a verify=1
 * mismatch) completes the request with that status: this and every later
 * test return it (with *done = 0), and so does the wait. */
int ovk_reduce_test(ovk_request *req, int *done);
/* Block until complete; returns the reduction's status, including a failure
 * an earlier test or progress call found.  Waiting on a request that a test
 * found complete costs nothing (OVK_OK, or its failure).  Waiting a second
 * time, or on a freed request, is OVK_ESTATE. */
int ovk_reduce_wait(ovk_request *req);
/* Return a completed request to its reducer.  OVK_EBUSY while in flight (the
 * request stays valid and must still be waited on). */
int ovk_request_free(ovk_request *req);
/* Drive progress of every outstanding request of the reducer.  Returns the
 * first failure found; with backends polled request by request (blocking,
 * native, offload) the failed request keeps it for its test and wait. */
int ovk_reducer_progress(ovk_reducer *red);

/* Split-phase inner products for applications: compute the k local dot
 * products <x[i], y[i]> into result[0..k-1] and start their global sums as
 * one in-place reduction of k values; result holds the sums once the
 * request is complete and is undefined until then (backends write partial
 * sums into it while the reduction runs).  k <= OVK_DOT_MAX.
 * Like ovk_reduce_start: every rank calls it in the same order, and it may
 * block until every rank has called it (backends without
 * OVK_CAP_NONBLOCKING).  The request belongs to red.  (The solvers
 * compute their dot products in fused kernels and call ovk_reduce_start.) */
#define OVK_DOT_MAX 16
int ovk_dot_init(ovk_reducer *red, int k, const ovk_vector *const *x, const ovk_vector *const *y,
                 double *result, ovk_request **req);
/* Wait for and free a request from ovk_dot_init. */
int ovk_dot_wait(ovk_request *req);

/* ---- the network-latency model ------------------------------------------
 *
 * A model of a bigger machine on a small one: with a model set, a reduction
 * of `bytes` bytes started at time t completes no earlier than t + L,
 *
 *     L = alpha + beta * ceil(log2 P) + gamma * bytes     (microseconds),
 *
 * and not before the real reduction has completed.  Backends that cannot
 * overlap (no OVK_CAP_NONBLOCKING) wait out L inside ovk_reduce_start; for
 * the others, test reports "not yet" until L has passed, and wait spins until
 * then.  A backend that progresses only inside test calls
 * (OVK_CAP_NEEDS_TEST) runs L as ceil(log2 P) levels of L/levels each, and a
 * level starts only at the test (or ovk_reducer_progress) call that finds the
 * previous one finished, as the rounds of a schedule would on a big machine:
 * without test calls during the compute, only the first level overlaps.  The
 * model changes only timing: results are those of the backend.  The model
 * is a backend of its own that wraps the reducer's (src/backends/latency.c);
 * ovk_reducer_name and ovk_reducer_caps still describe the wrapped one.
 *
 * Text syntax (OVK_LATENCY_ENV, drivers' -latency_model):
 *   "none" | PRESET | "alpha=A,beta=B,gamma=G,P=N" (any subset; others 0,
 *   P 0 = the communicator's size) | "PRESET,key=value,..." (overrides).
 * Presets (ovk_latency_preset_print lists them) come from the seed papers. */
typedef struct ovk_latency_model {
    double alpha_us;  /* per reduction */
    double beta_us;   /* per level of a binary tree: times ceil(log2 P) */
    double gamma_us;  /* per byte of the reduced vector */
    int P;            /* modelled rank count; 0: the real communicator size */
} ovk_latency_model;

/* Environment variable read by ovk_reducer_create (same text syntax). */
#define OVK_LATENCY_ENV "OVK_LATENCY_MODEL"

/* Parse text into *m.  OVK_EOPTION (with a detail naming the bad part) for
 * unknown keys or presets, negative or non-finite values, P < 0, and a
 * model under which one reduction of 128 bytes would take more than 1 s
 * (checked again for the real communicator size when the model is set:
 * ovk_reducer_set_latency, $OVK_LATENCY_MODEL).  Local. */
int ovk_latency_model_parse(const char *text, ovk_latency_model *m);
/* The modelled latency in microseconds of a reduction of `bytes` bytes on a
 * communicator of comm_size ranks (used when m->P is 0). */
double ovk_latency_model_us(const ovk_latency_model *m, int comm_size, double bytes);
/* Set (m != NULL) or clear (m == NULL) the model of a reducer.  Call it on
 * every rank with the same model while no request is outstanding
 * (OVK_EBUSY otherwise).  Local; no communication. */
int ovk_reducer_set_latency(ovk_reducer *red, const ovk_latency_model *m);
/* The reducer's model; 0 when none is set (then *m is all zeros). */
int ovk_reducer_get_latency(const ovk_reducer *red, ovk_latency_model *m);
/* Print the presets with their parameters, one per line. */
void ovk_latency_preset_print(FILE *f);

/* Registered backends. */
typedef struct ovk_backend_info {
    const char *name;
    const char *description; /* one line */
    const char *options;     /* "key=values: meaning; ..." or "" */
    int available;           /* 0 when compiled in but unusable here */
} ovk_backend_info;

/* What a reducer made from spec would offer and need (OVK_CAP_* flags, with
 * OVK_CAP_NEEDS_THREADS when it runs a thread that calls MPI: then MPI must
 * be initialised with MPI_THREAD_MULTIPLE), without creating it.  spec as in
 * ovk_reducer_create (NULL or "": $OVK_REDUCE_BACKEND, else blocking).
 * offload with engine=auto answers for the engine this process can run
 * (fabric when usable, else the agent thread).  Local; may be called before
 * MPI_Init.  OVK_EBACKEND for an unknown name, OVK_EOPTION for a malformed
 * spec or a bad value of an option the answer depends on; other options are
 * checked only by ovk_reducer_create. */
int ovk_backend_caps(const char *spec, unsigned *caps);

int ovk_backend_count(void);
int ovk_backend_get_info(int index, ovk_backend_info *info);
/* Print the backends, one per line with their options, to f. */
void ovk_backend_print(FILE *f);

#ifdef __cplusplus
}
#endif
#endif

/* ovkrylov: split-phase global reductions behind run-time selectable backends.
 *
 * A reducer is one backend instance bound to a communicator.  Backends are
 * registered by name ("blocking", "native", ...) and chosen at run time with
 * a spec string "name[:key=value,...]".  Every reduction is split in phases:
 *
 *   ovk_reduce_start()  starts it and returns a request at once
 *   ovk_reduce_test()   polls (and drives progress for backends that need it)
 *   ovk_reduce_wait()   completes it; recvbuf then holds the result
 *   ovk_request_free()  returns a completed request to the reducer
 *
 * Several requests may be outstanding at once and may be completed in any
 * order.  Every rank must start the same reductions in the same order.  The
 * result is bitwise identical on all ranks.
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
    OVK_CAP_ASYNC = 1u << 2        /* progresses on its own (thread or hardware) */
};

/* Name of the environment variable read when no backend is chosen in code. */
#define OVK_BACKEND_ENV "OVK_REDUCE_BACKEND"
/* Backend used when neither code nor environment choose one. */
#define OVK_BACKEND_DEFAULT "blocking"

/* Create a reducer on comm.  spec is "name[:key=value,...]"; NULL or "" means
 * the value of $OVK_REDUCE_BACKEND, or "blocking" when that is unset.
 * Collective over comm.  Unknown names give OVK_EBACKEND, unknown options or
 * bad values OVK_EOPTION; ovk_error_detail() then lists what is available. */
int ovk_reducer_create(MPI_Comm comm, const char *spec, ovk_reducer **red);

/* Destroy a reducer (NULL allowed).  Collective over the reducer's
 * communicator.  Fails with OVK_EBUSY, destroying nothing, while requests are
 * outstanding. */
int ovk_reducer_destroy(ovk_reducer *red);

const char *ovk_reducer_name(const ovk_reducer *red);
unsigned ovk_reducer_caps(const ovk_reducer *red);
/* The spec the reducer was created from, with defaults filled in. */
const char *ovk_reducer_spec(const ovk_reducer *red);

/* Start reducing count elements.  Local (no synchronisation is implied). */
int ovk_reduce_start(ovk_reducer *red, const void *sendbuf, void *recvbuf, int count,
                     ovk_datatype type, ovk_op op, ovk_request **req);
/* *done = 1 once complete (the request may then be waited on at no cost). */
int ovk_reduce_test(ovk_request *req, int *done);
/* Block until complete.  Waiting on a completed or freed request is
 * OVK_ESTATE. */
int ovk_reduce_wait(ovk_request *req);
/* Return a completed request to its reducer.  OVK_EBUSY while in flight (the
 * request stays valid and must still be waited on). */
int ovk_request_free(ovk_request *req);
/* Drive progress of every outstanding request of the reducer. */
int ovk_reducer_progress(ovk_reducer *red);

/* Split-phase inner products: start the global sums of k local dot products
 * <x[i], y[i]> as one reduction of k values; result[0..k-1] holds them once
 * the request is complete.  k <= OVK_DOT_MAX. */
#define OVK_DOT_MAX 16
int ovk_dot_init(ovk_reducer *red, int k, const ovk_vector *const *x, const ovk_vector *const *y,
                 double *result, ovk_request **req);
/* Wait for and free a request from ovk_dot_init. */
int ovk_dot_wait(ovk_request *req);

/* Registered backends. */
typedef struct ovk_backend_info {
    const char *name;
    const char *description; /* one line */
    const char *options;     /* "key=values: meaning; ..." or "" */
    int available;           /* 0 when compiled in but unusable here */
} ovk_backend_info;

int ovk_backend_count(void);
int ovk_backend_get_info(int index, ovk_backend_info *info);
/* Print the backends, one per line with their options, to f. */
void ovk_backend_print(FILE *f);

#ifdef __cplusplus
}
#endif
#endif

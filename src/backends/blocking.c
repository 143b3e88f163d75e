/* Backend "blocking": MPI_Allreduce at start; test and wait find it done. */
#include <stdlib.h>

#include "backend.h"

typedef struct blocking_state {
    MPI_Comm comm; /* the private communicator, owned by the generic layer */
} blocking_state;

static int blocking_create(MPI_Comm comm, ovk__opts *opts, void **state)
{
    (void)opts;
    blocking_state *s = malloc(sizeof *s);
    if (!s) return ovk__fail(OVK_ENOMEM, "blocking backend state");
    s->comm = comm;
    *state = s;
    return OVK_OK;
}

static void blocking_destroy(void *state) { free(state); }

static int blocking_start(void *state, const ovk__reduction *r, void *impl)
{
    (void)impl;
    MPI_Comm comm = ((blocking_state *)state)->comm;
    if (r->count == 0) return OVK_OK;
    const void *send = r->sendbuf == r->recvbuf ? MPI_IN_PLACE : r->sendbuf;
    int mrc = MPI_Allreduce(send, r->recvbuf, r->count, ovk__mpi_type(r->type), ovk__mpi_op(r->op), comm);
    return mrc == MPI_SUCCESS ? OVK_OK : ovk__mpi_fail(mrc, "MPI_Allreduce");
}

static int blocking_test(void *state, void *impl, int *done)
{
    (void)state;
    (void)impl;
    *done = 1;
    return OVK_OK;
}

static int blocking_wait(void *state, void *impl)
{
    (void)state;
    (void)impl;
    return OVK_OK;
}

const ovk__backend ovk__backend_blocking = {
    .name = "blocking",
    .description = "MPI_Allreduce, complete when started (no overlap)",
    .options = "",
    .caps = 0,
    .available = NULL,
    .create = blocking_create,
    .destroy = blocking_destroy,
    .start = blocking_start,
    .test = blocking_test,
    .wait = blocking_wait,
    .progress = NULL,
};

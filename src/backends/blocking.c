/* Backend "blocking": MPI_Allreduce at start; test and wait find it done.
 *
 * verify=1 checks that the result is bitwise identical on every rank, which
 * the MPI standard does not promise: the result words x and their complements
 * ~x are reduced with MPI_BAND (equal everywhere iff AND x == ~AND ~x, i.e.
 * AND == OR); a mismatch is OVK_EMPI on every rank. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"

typedef struct blocking_state {
    MPI_Comm comm; /* the shared inner communicator, owned by the generic layer */
    int verify;
    unsigned long long seq; /* reductions so far */
    uint64_t *check;        /* verify=1: the reserved check buffer, 2 check_count words */
    int check_count;
} blocking_state;

static int blocking_create(MPI_Comm comm, ovk__opts *opts, void **state)
{
    long verify = 0;
    int rc = ovk__opt_int(opts, "blocking", "verify", 0, 1, &verify);
    if (rc) return rc;
    blocking_state *s = calloc(1, sizeof *s);
    if (!s) return ovk__fail(OVK_ENOMEM, "blocking backend state");
    s->comm = comm;
    s->verify = (int)verify;
    *state = s;
    return OVK_OK;
}

static void blocking_destroy(void *state)
{
    blocking_state *s = state;
    free(s->check);
    free(s);
}

/* verify=1: the check buffer of sums of up to max_count values */
static int blocking_reserve(void *state, int max_count, ovk_datatype type, ovk_op op, int inflight)
{
    (void)type, (void)op, (void)inflight; /* one check at a time, 8-byte words */
    blocking_state *s = state;
    if (!s->verify || max_count <= s->check_count) return OVK_OK;
    uint64_t *w = malloc(2 * (size_t)max_count * sizeof *w);
    if (!w) return ovk__fail(OVK_ENOMEM, "blocking:verify: check buffer of %d words", 2 * max_count);
    free(s->check);
    s->check = w;
    s->check_count = max_count;
    return OVK_OK;
}

/* The result in buf is the same bytes on every rank: AND x == ~AND ~x. */
static int verify_same(blocking_state *s, const void *buf, int count)
{
    size_t n = (size_t)count, i = 0;
    uint64_t *w = count <= s->check_count ? s->check : malloc(2 * n * sizeof *w);
    if (!w) return ovk__fail(OVK_ENOMEM, "blocking:verify: check buffer of %zu words", 2 * n);
    memcpy(w, buf, n * sizeof *w); /* both types are 8 bytes */
    for (size_t k = 0; k < n; k++) w[n + k] = ~w[k];
    int rc = ovk__mpi(MPI_Allreduce(MPI_IN_PLACE, w, 2 * count, MPI_UINT64_T, MPI_BAND, s->comm), "MPI_Allreduce");
    if (rc) goto cleanup;
    while (i < n && w[i] == ~w[n + i]) i++;
    if (i < n)
        rc = ovk__fail(OVK_EMPI, "blocking:verify=1: the MPI_Allreduce result of reduction #%llu (%d values) "
                       "differs between ranks at element %zu; the MPI library's reduction is not bitwise "
                       "reproducible", s->seq, count, i);
cleanup:
    if (w != s->check) free(w);
    return rc;
}

static int blocking_start(void *state, const ovk__reduction *r, void *impl)
{
    (void)impl;
    blocking_state *s = state;
    if (r->count == 0) return OVK_OK;
    const void *send = r->sendbuf == r->recvbuf ? MPI_IN_PLACE : r->sendbuf;
    int rc = ovk__mpi(MPI_Allreduce(send, r->recvbuf, r->count, ovk__mpi_type(r->type), ovk__mpi_op(r->op), s->comm),
                      "MPI_Allreduce");
    if (rc) return rc;
    if (s->verify) rc = verify_same(s, r->recvbuf, r->count);
    s->seq++;
    return rc;
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
    .options = "verify=0|1: check every result is bitwise identical on all ranks (OVK_EMPI if not)",
    .shares_comm = 1,
    .caps = 0, .available = NULL,
    .create = blocking_create, .reserve = blocking_reserve, .destroy = blocking_destroy,
    .start = blocking_start, .test = blocking_test, .wait = blocking_wait, .progress = NULL,
};

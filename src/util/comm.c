/* The library's communicators.  Every object made on a user's communicator
 * shares one duplicate of it, the inner communicator (as PETSc does): made
 * by the first object, cached on the user's communicator with an attribute,
 * errors returned on it (an MPI failure is OVK_EMPI, never an abort), and
 * freed when the last object on it goes and the user's communicator is
 * freed (its attribute deleted), whichever comes last.  So the objects
 * never exhaust MPI's communicators, and whether one is cached is the same
 * on every rank whatever order the ranks drop their objects in (a Python
 * finalizer runs at a different moment on each rank).  An object that needs
 * a tag space or a collective order of its own (a thread that calls MPI, an
 * outside library) takes a private duplicate of the inner communicator
 * (ovk__comm_private), which inherits its error handler. */
#include <stdlib.h>

#include "../internal.h"

typedef struct inner {
    MPI_Comm comm;  /* the shared duplicate */
    MPI_Comm outer; /* the user's communicator while it holds the attribute */
    int refs;       /* objects on it, + 1 while outer holds it */
} inner;

static int outer_key = MPI_KEYVAL_INVALID; /* on a user's communicator: its inner */
static int inner_key = MPI_KEYVAL_INVALID; /* on an inner communicator: itself */

static void drop(inner *n)
{
    if (--n->refs > 0) return;
    MPI_Comm_delete_attr(n->comm, inner_key);
    MPI_Comm_free(&n->comm);
    free(n);
}

/* The user's communicator is freed (or MPI finalized): its reference goes. */
static int outer_deleted(MPI_Comm comm, int key, void *val, void *extra)
{
    (void)comm, (void)key, (void)extra;
    inner *n = val;
    n->outer = MPI_COMM_NULL;
    drop(n);
    return MPI_SUCCESS;
}

static int make_keys(void)
{
    if (outer_key == MPI_KEYVAL_INVALID &&
        MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, outer_deleted, &outer_key, NULL) != MPI_SUCCESS)
        return ovk__fail(OVK_EMPI, "MPI_Comm_create_keyval (the inner communicator's cache)");
    if (inner_key == MPI_KEYVAL_INVALID &&
        MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &inner_key, NULL) != MPI_SUCCESS)
        return ovk__fail(OVK_EMPI, "MPI_Comm_create_keyval (the inner communicator's mark)");
    return OVK_OK;
}

/* The cached inner of comm (comm itself when it is one), or NULL. Local. */
static inner *cached(MPI_Comm comm)
{
    inner *n = NULL;
    int flag = 0;
    if (MPI_Comm_get_attr(comm, inner_key, &n, &flag) == MPI_SUCCESS && flag) return n;
    if (MPI_Comm_get_attr(comm, outer_key, &n, &flag) == MPI_SUCCESS && flag) return n;
    return NULL;
}

/* MPI_Comm_dup(comm) with errors returned, whatever comm's error handler */
static int dup_returning(MPI_Comm comm, MPI_Comm *out)
{
    MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
    int got = MPI_Comm_get_errhandler(comm, &eh) == MPI_SUCCESS;
    if (got) MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    int mrc = MPI_Comm_dup(comm, out);
    if (got) {
        MPI_Comm_set_errhandler(comm, eh);
        MPI_Errhandler_free(&eh);
    }
    if (mrc != MPI_SUCCESS) *out = MPI_COMM_NULL;
    return ovk__mpi(mrc, "MPI_Comm_dup (the inner communicator)");
}

/* Collective the first time over comm: a new inner cached on comm. */
static int make_inner(MPI_Comm comm, inner **out)
{
    inner *n = calloc(1, sizeof *n);
    int rc = n ? OVK_OK : ovk__fail(OVK_ENOMEM, "the inner communicator");
    if (n) n->comm = MPI_COMM_NULL; /* not 0 in every MPI */
    rc = ovk__agree(comm, rc);
    if (!rc) rc = ovk__agree(comm, dup_returning(comm, &n->comm));
    if (!rc) MPI_Comm_set_errhandler(n->comm, MPI_ERRORS_RETURN);
    if (!rc) rc = ovk__mpi(MPI_Comm_set_attr(n->comm, inner_key, n), "MPI_Comm_set_attr");
    if (!rc) rc = ovk__mpi(MPI_Comm_set_attr(comm, outer_key, n), "MPI_Comm_set_attr");
    if (rc) {
        if (n && n->comm != MPI_COMM_NULL) MPI_Comm_free(&n->comm);
        free(n);
        return rc;
    }
    n->outer = comm;
    n->refs = 1; /* comm's */
    *out = n;
    return OVK_OK;
}

int ovk__comm_acquire(MPI_Comm comm, MPI_Comm *out)
{
    *out = MPI_COMM_NULL;
    int rc = make_keys();
    if (rc) return rc;
    inner *n = cached(comm);
    if (!n) rc = make_inner(comm, &n);
    if (rc) return rc;
    n->refs++;
    *out = n->comm;
    return OVK_OK;
}

void ovk__comm_release(MPI_Comm *comm)
{
    if (*comm == MPI_COMM_NULL) return;
    inner *n = NULL;
    int flag = 0;
    if (MPI_Comm_get_attr(*comm, inner_key, &n, &flag) == MPI_SUCCESS && flag) drop(n);
    *comm = MPI_COMM_NULL;
}

int ovk__comm_private(MPI_Comm comm, MPI_Comm *out)
{
    MPI_Comm in = MPI_COMM_NULL;
    *out = MPI_COMM_NULL;
    int rc = ovk__comm_acquire(comm, &in);
    if (rc) return rc;
    int mrc = MPI_Comm_dup(in, out);
    if (mrc != MPI_SUCCESS) *out = MPI_COMM_NULL;
    rc = ovk__agree(in, ovk__mpi(mrc, "MPI_Comm_dup (a private communicator)"));
    if (rc && *out != MPI_COMM_NULL) MPI_Comm_free(out);
    ovk__comm_release(&in);
    return rc;
}

/* Status codes, their names, and the per-thread failure detail. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "../internal.h"

static _Thread_local char detail[OVK__DETAIL_LEN];
static _Thread_local int detail_agreed; /* detail came from another rank's failure, prefixed */

typedef struct status_entry {
    int code;
    const char *name;
    const char *text;
} status_entry;

static const status_entry statuses[] = {
#define OVK_STATUS_ENTRY_(name, value, text) {name, #name, text},
    OVK_STATUS_LIST(OVK_STATUS_ENTRY_)
#undef OVK_STATUS_ENTRY_
};

static const status_entry *find_status(int code)
{
    for (size_t i = 0; i < sizeof statuses / sizeof statuses[0]; i++)
        if (statuses[i].code == code) return &statuses[i];
    return NULL;
}

const char *ovk_strerror(int status)
{
    const status_entry *e = find_status(status);
    return e ? e->text : "unknown status code";
}

const char *ovk_status_name(int status)
{
    const status_entry *e = find_status(status);
    return e ? e->name : "OVK_UNKNOWN";
}

const char *ovk_error_detail(void) { return detail; }

void ovk__detail_save(ovk__detail *d)
{
    memcpy(d->text, detail, sizeof detail);
    d->agreed = detail_agreed;
}

void ovk__detail_restore(const ovk__detail *d)
{
    memcpy(detail, d->text, sizeof detail);
    detail[sizeof detail - 1] = '\0';
    detail_agreed = d->agreed;
}

int ovk__fail(int code, const char *fmt, ...)
{
    char text[sizeof detail]; /* an argument may be the detail itself (ovk_error_detail()) */
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    memcpy(detail, text, sizeof detail);
    detail_agreed = 0;
    return code;
}

int ovk__mpi_fail(int mpi_rc, const char *call)
{
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (MPI_Error_string(mpi_rc, msg, &len) != MPI_SUCCESS) snprintf(msg, sizeof msg, "code %d", mpi_rc);
    return ovk__fail(OVK_EMPI, "%s failed: %s", call, msg);
}

int ovk__mpi(int mpi_err, const char *what)
{
    if (mpi_err == MPI_SUCCESS) return OVK_OK;
    return ovk__mpi_fail(mpi_err, what);
}

int ovk__agree(MPI_Comm comm, int rc)
{
    /* pack (status, rank) so the smallest status and its lowest rank win */
    int in[2], out[2], me = 0;
    MPI_Comm_rank(comm, &me);
    in[0] = rc;
    in[1] = me;
    if (MPI_Allreduce(in, out, 1, MPI_2INT, MPI_MINLOC, comm) != MPI_SUCCESS)
        return ovk__fail(OVK_EMPI, "MPI_Allreduce failed while agreeing on a status");
    if (out[0] == OVK_OK) return OVK_OK;
    /* share the failing rank's detail so that every rank can report it;
     * one agreed already (a status agreed again) keeps its rank prefix */
    char msg[sizeof detail + 1];
    memcpy(msg, detail, sizeof detail);
    msg[sizeof detail - 1] = '\0';
    msg[sizeof detail] = (char)detail_agreed;
    if (MPI_Bcast(msg, (int)sizeof msg, MPI_CHAR, out[1], comm) != MPI_SUCCESS)
        return ovk__fail(OVK_EMPI, "MPI_Bcast failed while agreeing on a status");
    if (me == out[1]) return out[0];
    if (msg[sizeof detail]) memcpy(detail, msg, sizeof detail);
    else ovk__fail(out[0], "rank %d: %s", out[1], msg);
    detail_agreed = 1;
    return out[0];
}

uint64_t ovk__fingerprint(const void *p, size_t len)
{
    const unsigned char *b = p;
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < len; i++) h = (h ^ b[i]) * 0x100000001b3ull;
    return h;
}

int ovk__differs(MPI_Comm comm, const uint64_t *h, int k, int *first)
{
    uint64_t m[2 * OVK__MAX_FINGERPRINTS];
    *first = -1;
    if (k < 0 || k > OVK__MAX_FINGERPRINTS) return ovk__fail(OVK_EINVAL, "ovk__differs: %d fingerprints", k);
    for (int i = 0; i < k; i++) {
        m[i] = h[i];
        m[k + i] = ~h[i]; /* min of ~h = ~max of h */
    }
    if (MPI_Allreduce(MPI_IN_PLACE, m, 2 * k, MPI_UINT64_T, MPI_MIN, comm) != MPI_SUCCESS)
        return ovk__fail(OVK_EMPI, "MPI_Allreduce (fingerprints)");
    for (int i = 0; i < k && *first < 0; i++)
        if (m[i] != ~m[k + i]) *first = i;
    return OVK_OK;
}

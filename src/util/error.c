/* Status codes, their names, and the per-thread failure detail. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "../internal.h"

static OVK__RANK_LOCAL char detail[OVK__DETAIL_LEN];
static OVK__RANK_LOCAL int detail_agreed; /* detail came from another rank's failure, prefixed */

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

#define OVK_STR_(x) #x
#define OVK_STR(x) OVK_STR_(x)
const char *ovk_version(void)
{
    return OVK_STR(OVK_VERSION_MAJOR) "." OVK_STR(OVK_VERSION_MINOR) "." OVK_STR(OVK_VERSION_PATCH);
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

const char *ovk__detail_rank(const char *d, char *prefix, size_t len)
{
    int rank = -1, n = 0;
    prefix[0] = '\0';
    if (sscanf(d, "rank %d: %n", &rank, &n) != 1 || n == 0) return d;
    snprintf(prefix, len, "%.*s", n, d);
    return d + n;
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

/* ovk__agree_values's reduction, element by element of a block: the
 * lowest (status, rank) key, then n maxima, then n sums (n from the
 * block's size) */
static void key_max_sum(void *in, void *inout, int *len, MPI_Datatype *type)
{
    int bytes = 0;
    MPI_Type_size(*type, &bytes);
    int total = bytes / (int)sizeof(double), n = (total - 1) / 2;
    const double *a = in;
    double *b = inout;
    for (int k = 0; k < *len; k++, a += total, b += total) {
        b[0] = a[0] < b[0] ? a[0] : b[0];
        for (int i = 1; i <= n; i++) b[i] = a[i] > b[i] ? a[i] : b[i];
        for (int i = n + 1; i <= 2 * n; i++) b[i] += a[i];
    }
}

int ovk__agree_values(MPI_Comm comm, int rc, const double *v, int n, double *max, double *sum)
{
    double buf[1 + 2 * OVK__AGREE_VALUES_MAX];
    int me = 0, size = 1, err;
    MPI_Datatype block;
    MPI_Op op;
    if (n < 0 || n > OVK__AGREE_VALUES_MAX) return ovk__fail(OVK_EINVAL, "ovk__agree_values: %d values", n);
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &size);
    buf[0] = (double)rc * size + me; /* the smallest status and its lowest rank win, as ovk__agree */
    for (int i = 0; i < n; i++) buf[1 + i] = buf[1 + n + i] = v[i];
    err = MPI_Type_contiguous(1 + 2 * n, MPI_DOUBLE, &block); /* one block: never split between op calls */
    if (err == MPI_SUCCESS) err = MPI_Type_commit(&block);
    if (err != MPI_SUCCESS) return ovk__mpi_fail(err, "MPI_Type_contiguous (agreement)");
    err = MPI_Op_create(key_max_sum, 1, &op);
    if (err == MPI_SUCCESS) {
        err = MPI_Allreduce(MPI_IN_PLACE, buf, 1, block, op, comm);
        MPI_Op_free(&op);
    }
    MPI_Type_free(&block);
    if (err != MPI_SUCCESS) return ovk__mpi_fail(err, "MPI_Allreduce (agreement)");
    for (int i = 0; i < n; i++) {
        max[i] = buf[1 + i];
        sum[i] = buf[1 + n + i];
    }
    /* a failure somewhere: agree again, sharing its detail (the failure path only) */
    return floor(buf[0] / size) == OVK_OK ? OVK_OK : ovk__agree(comm, rc);
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

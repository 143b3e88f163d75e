/* Status codes, their names, and the per-thread failure detail. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "../internal.h"

static _Thread_local char detail[512];

typedef struct status_entry {
    int code;
    const char *name;
    const char *text;
} status_entry;

static const status_entry statuses[] = {
    {OVK_OK, "OVK_OK", "success"},
    {OVK_EINVAL, "OVK_EINVAL", "invalid argument"},
    {OVK_ENOMEM, "OVK_ENOMEM", "out of memory"},
    {OVK_EMPI, "OVK_EMPI", "MPI call failed"},
    {OVK_EPARTITION, "OVK_EPARTITION", "row ranges do not tile the global range"},
    {OVK_ECOLUMN, "OVK_ECOLUMN", "column index out of range"},
    {OVK_EMISMATCH, "OVK_EMISMATCH", "layouts or communicators do not match"},
    {OVK_EZERODIAG, "OVK_EZERODIAG", "zero, negative or missing diagonal entry"},
    {OVK_EFILE, "OVK_EFILE", "cannot open or read file"},
    {OVK_EFORMAT, "OVK_EFORMAT", "malformed input file"},
    {OVK_ENOTSYM, "OVK_ENOTSYM", "matrix is not symmetric"},
    {OVK_EBACKEND, "OVK_EBACKEND", "unknown reduction backend"},
    {OVK_EOPTION, "OVK_EOPTION", "unknown option or bad option value"},
    {OVK_EUNSUPPORTED, "OVK_EUNSUPPORTED", "not supported by this build or MPI library"},
    {OVK_ESTATE, "OVK_ESTATE", "request used in the wrong state"},
    {OVK_EBUSY, "OVK_EBUSY", "request still in flight"},
    {OVK_EBREAKDOWN, "OVK_EBREAKDOWN", "Krylov breakdown (matrix not SPD?)"},
    {OVK_ENONFINITE, "OVK_ENONFINITE", "NaN or Inf encountered"},
    {OVK_EMAXIT, "OVK_EMAXIT", "iteration limit reached without convergence"},
    {OVK_ECALLBACK, "OVK_ECALLBACK", "a user callback failed"},
    {OVK_ESTOPPED, "OVK_ESTOPPED", "stopped by the monitor callback"},
    {OVK_EPRECOND, "OVK_EPRECOND", "preconditioner setup failed"},
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

int ovk__fail(int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof detail, fmt, ap);
    va_end(ap);
    return code;
}

int ovk__mpi_fail(int mpi_rc, const char *call)
{
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (MPI_Error_string(mpi_rc, msg, &len) != MPI_SUCCESS) snprintf(msg, sizeof msg, "code %d", mpi_rc);
    return ovk__fail(OVK_EMPI, "%s failed: %s", call, msg);
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
    /* share the failing rank's detail so that every rank can report it */
    char msg[sizeof detail];
    memcpy(msg, detail, sizeof msg);
    if (MPI_Bcast(msg, (int)sizeof msg, MPI_CHAR, out[1], comm) != MPI_SUCCESS)
        return ovk__fail(OVK_EMPI, "MPI_Bcast failed while agreeing on a status");
    msg[sizeof msg - 1] = '\0';
    if (me != out[1]) ovk__fail(out[0], "rank %d: %s", out[1], msg);
    return out[0];
}

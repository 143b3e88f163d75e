/* The element-wise reduction operators and datatypes shared by every
 * backend: the MPI equivalents for the MPI-collective backends, and the local
 * combination dst = a op b (operand order kept) for the backends that
 * combine themselves (nbc schedules, offload engines). */
#include <stdint.h>
#include <string.h>

#include "backend.h"

/* ---- types ------------------------------------------------------------ */

MPI_Datatype ovk__mpi_type(ovk_datatype t) { return t == OVK_INT64 ? MPI_INT64_T : MPI_DOUBLE; }

MPI_Op ovk__mpi_op(ovk_op op)
{
    switch (op) {
    case OVK_MAX: return MPI_MAX;
    case OVK_MIN: return MPI_MIN;
    default: return MPI_SUM;
    }
}

size_t ovk__type_size(ovk_datatype t) { return t == OVK_INT64 ? sizeof(int64_t) : sizeof(double); }

int ovk__reduction_is_local(const ovk__reduction *r, int size)
{
    if (r->count == 0) return 1;
    if (size > 1) return 0;
    if (r->sendbuf != r->recvbuf) memcpy(r->recvbuf, r->sendbuf, (size_t)r->count * ovk__type_size(r->type));
    return 1;
}

/* ---- element-wise operators -------------------------------------------- */

static void sum_f64(double *d, const double *a, const double *b, int n)
{
    for (int i = 0; i < n; i++) d[i] = a[i] + b[i];
}

static void max_f64(double *d, const double *a, const double *b, int n)
{
    for (int i = 0; i < n; i++) d[i] = a[i] < b[i] ? b[i] : a[i];
}

static void min_f64(double *d, const double *a, const double *b, int n)
{
    for (int i = 0; i < n; i++) d[i] = b[i] < a[i] ? b[i] : a[i];
}

/* Two's complement wrap-around, as MPI implementations do (no signed
 * overflow in C). */
static void sum_i64(int64_t *d, const int64_t *a, const int64_t *b, int n)
{
    for (int i = 0; i < n; i++) d[i] = (int64_t)((uint64_t)a[i] + (uint64_t)b[i]);
}

static void max_i64(int64_t *d, const int64_t *a, const int64_t *b, int n)
{
    for (int i = 0; i < n; i++) d[i] = a[i] < b[i] ? b[i] : a[i];
}

static void min_i64(int64_t *d, const int64_t *a, const int64_t *b, int n)
{
    for (int i = 0; i < n; i++) d[i] = b[i] < a[i] ? b[i] : a[i];
}

void ovk__reduce_local(ovk_datatype type, ovk_op op, void *dst, const void *a, const void *b, int n)
{
    if (type == OVK_INT64) {
        if (op == OVK_MAX) max_i64(dst, a, b, n);
        else if (op == OVK_MIN) min_i64(dst, a, b, n);
        else sum_i64(dst, a, b, n);
        return;
    }
    if (op == OVK_MAX) max_f64(dst, a, b, n);
    else if (op == OVK_MIN) min_f64(dst, a, b, n);
    else sum_f64(dst, a, b, n);
}

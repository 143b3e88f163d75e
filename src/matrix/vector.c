/* Distributed vectors: creation and the local kernels.  Level-1 kernels are
 * plain loops the compiler vectorises: they are memory-bound, so a loop runs
 * at the same bandwidth as a BLAS call, and fused loops (see kernels.c) move
 * fewer bytes than any sequence of BLAS calls could. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "matrix.h"

/* 1 when a and b hold the same processes in the same order */
static int same_group(const ovk__layout *a, const ovk__layout *b)
{
    int cmp = MPI_UNEQUAL;
    if (a->id == b->id) return 1; /* one layout's copies */
    MPI_Comm_compare(a->comm, b->comm, &cmp);
    return cmp == MPI_IDENT || cmp == MPI_CONGRUENT;
}

/* What differs between two layouts: the cheap fields first, the
 * communicators' groups (a comparison of process lists) last. */
typedef enum lay_diff { LAY_SAME, LAY_SIZE, LAY_NGLOBAL, LAY_NLOCAL, LAY_START, LAY_GROUP } lay_diff;

static lay_diff first_difference(const ovk__layout *a, const ovk__layout *b)
{
    if (a == b) return LAY_SAME;
    if (a->size != b->size) return LAY_SIZE;
    if (a->nglobal != b->nglobal) return LAY_NGLOBAL;
    if (a->nlocal != b->nlocal) return LAY_NLOCAL;
    if (a->row_start != b->row_start) return LAY_START;
    return same_group(a, b) ? LAY_SAME : LAY_GROUP;
}


int ovk__layout_check(const ovk__layout *a, const char *an, const ovk__layout *b, const char *bn,
                      const char *what)
{
    switch (first_difference(a, b)) {
    case LAY_SAME: return OVK_OK;
    case LAY_SIZE:
        return ovk__fail(OVK_EMISMATCH, "%s: %s is on %d ranks but %s on %d", what, an, a->size, bn, b->size);
    case LAY_NGLOBAL:
        return ovk__fail(OVK_EMISMATCH, "%s: %s has %lld global rows but %s %lld", what, an, (long long)a->nglobal,
                         bn, (long long)b->nglobal);
    case LAY_NLOCAL:
        return ovk__fail(OVK_EMISMATCH, "%s: %s has %d local rows but %s %d", what, an, a->nlocal, bn, b->nlocal);
    case LAY_START:
        return ovk__fail(OVK_EMISMATCH, "%s: %s's local rows start at global row %lld but %s's at %lld", what, an,
                         ovk__gid(a, a->row_start), bn, ovk__gid(b, b->row_start));
    default:
        return ovk__fail(OVK_EMISMATCH, "%s: %s and %s are on communicators of different processes", what, an, bn);
    }
}

int ovk__vector_check_pair(const ovk_vector *x, const ovk_vector *y)
{
    if (!x || !y) return ovk__fail(OVK_EINVAL, "vector is NULL");
    return ovk__layout_check(x->lay, "x", y->lay, "y", "vectors of different layouts");
}

int ovk__vector_new(const ovk__layout *lay, double *wrap, ovk_vector **out)
{
    ovk_vector *v = malloc(sizeof *v);
    double *d = wrap ? wrap : calloc((size_t)(lay->nlocal > 0 ? lay->nlocal : 1), sizeof(double));
    if (!v || !d) {
        free(v);
        if (!wrap) free(d);
        return ovk__fail(OVK_ENOMEM, "vector of %d entries", lay->nlocal);
    }
    v->lay = lay;
    v->n = lay->nlocal;
    v->data = d;
    v->owns = !wrap;
    *out = v;
    return OVK_OK;
}

int ovk_vector_create(const ovk_matrix *A, ovk_vector **v)
{
    if (!A || !v) return ovk__fail(OVK_EINVAL, "ovk_vector_create: NULL argument");
    return ovk__vector_new(&A->lay, NULL, v);
}

int ovk_vector_duplicate(const ovk_vector *x, ovk_vector **v)
{
    if (!x || !v) return ovk__fail(OVK_EINVAL, "ovk_vector_duplicate: NULL argument");
    return ovk__vector_new(x->lay, NULL, v);
}

void ovk_vector_destroy(ovk_vector *v)
{
    if (!v) return;
    if (v->owns) free(v->data);
    free(v);
}

double *ovk_vector_data(ovk_vector *v) { return v ? v->data : NULL; }
const double *ovk_vector_data_const(const ovk_vector *v) { return v ? v->data : NULL; }
int ovk_vector_nlocal(const ovk_vector *v) { return v ? v->n : 0; }

int ovk_vector_set(ovk_vector *v, double alpha)
{
    if (!v) return ovk__fail(OVK_EINVAL, "ovk_vector_set: NULL vector");
    for (int i = 0; i < v->n; i++) v->data[i] = alpha;
    return OVK_OK;
}

int ovk_vector_copy(const ovk_vector *x, ovk_vector *y)
{
    int rc = ovk__vector_check_pair(x, y);
    if (rc) return rc;
    if (x != y) memcpy(y->data, x->data, sizeof(double) * (size_t)x->n);
    return OVK_OK;
}

int ovk_vector_axpy(double alpha, const ovk_vector *x, ovk_vector *y)
{
    int rc = ovk__vector_check_pair(x, y);
    if (rc) return rc;
    ovk__axpy(x->n, alpha, x->data, y->data, NULL);
    return OVK_OK;
}

int ovk_vector_scale(double alpha, ovk_vector *x)
{
    if (!x) return ovk__fail(OVK_EINVAL, "ovk_vector_scale: NULL vector");
    for (int i = 0; i < x->n; i++) x->data[i] *= alpha;
    return OVK_OK;
}

static int global_sum(const ovk_vector *x, double local, double *result)
{
    return ovk__mpi(MPI_Allreduce(&local, result, 1, MPI_DOUBLE, MPI_SUM, x->lay->comm), "MPI_Allreduce");
}

int ovk_vector_dot(const ovk_vector *x, const ovk_vector *y, double *result)
{
    int rc = ovk__vector_check_pair(x, y);
    if (rc) return rc;
    if (!result) return ovk__fail(OVK_EINVAL, "ovk_vector_dot: NULL result");
    return global_sum(x, ovk__dot(x->n, x->data, y->data), result);
}

int ovk_vector_norm2(const ovk_vector *x, double *result)
{
    int rc = ovk_vector_dot(x, x, result);
    if (rc || isnan(*result) || ovk__sumsq_plain_ok(*result)) {
        if (!rc) *result = sqrt(*result);
        return rc;
    }
    /* <x,x> underflowed or overflowed: again as 2^-k ||2^k x|| with 2^k max |x_i| in [0.5, 1) */
    double m = ovk__absmax(x->n, x->data);
    rc = ovk__mpi(MPI_Allreduce(MPI_IN_PLACE, &m, 1, MPI_DOUBLE, MPI_MAX, x->lay->comm), "MPI_Allreduce");
    if (rc) return rc;
    if (m == 0.0 || !isfinite(m)) {
        *result = m;
        return OVK_OK;
    }
    int k = ovk__pow2_exponent(m);
    rc = global_sum(x, ovk__sumsq_scaled(x->n, x->data, ldexp(1.0, k)), result);
    if (rc) return rc;
    *result = ldexp(sqrt(*result), -k);
    return OVK_OK;
}

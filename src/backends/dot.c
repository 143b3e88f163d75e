/* Split-phase inner products of vectors (public API of reduce.h): the local
 * dot products, then one in-place sum on the reducer.  The solvers keep
 * their own fused kernels and call ovk_reduce_start directly; these are for
 * applications. */
#include "../matrix/matrix.h"
#include "backend.h"

int ovk_dot_init(ovk_reducer *red, int k, const ovk_vector *const *x, const ovk_vector *const *y,
                 double *result, ovk_request **req)
{
    if (!red || !x || !y || !result || !req) return ovk__fail(OVK_EINVAL, "ovk_dot_init: NULL argument");
    if (k < 1 || k > OVK_DOT_MAX) return ovk__fail(OVK_EINVAL, "ovk_dot_init: k=%d not in [1, %d]", k, OVK_DOT_MAX);
    for (int i = 0; i < k; i++) {
        int rc = ovk__vector_check_pair(x[i], y[i]);
        if (rc) return rc;
    }
    /* the local sums go to result, reduced there in place */
    for (int i = 0; i < k; i++) result[i] = ovk__dot(x[i]->n, x[i]->data, y[i]->data);
    return ovk_reduce_start(red, result, result, k, OVK_DOUBLE, OVK_SUM, req);
}

int ovk_dot_wait(ovk_request *req)
{
    int rc = ovk_reduce_wait(req);
    if (rc) return rc;
    return ovk_request_free(req);
}

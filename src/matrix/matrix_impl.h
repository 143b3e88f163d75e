/* Internals of the matrix layer shared by its files. */
#ifndef OVK_MATRIX_IMPL_H
#define OVK_MATRIX_IMPL_H

#include "../internal.h"

/* Collective: build the communication package of y = A x from col_map. */
int ovk__halo_setup(ovk_matrix *A);
void ovk__halo_free(ovk__halo *h);

/* y_i = sum_k c_k x_{i + off_k} and dot += x_i y_i for the rows [lo, hi)
 * of a run of one shared row (K entries at offsets off, values c), each row
 * summed in entry order; returns dot.  x must hold every x_{i + off_k}. */
double ovk__run_rows(const int *off, const double *c, int K, const double *x, double *y, int lo, int hi,
                     double dot);

/* Matrix Market reader: when nonzero, the bytes this process may allocate
 * (the reader otherwise takes its share of the node's memory and the
 * rlimits).  For tests and the fuzz target, which grant a stated amount. */
extern size_t ovk__mem_cap;

#endif

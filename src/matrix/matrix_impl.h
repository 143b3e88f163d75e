/* Internals of the matrix layer shared by its files. */
#ifndef OVK_MATRIX_IMPL_H
#define OVK_MATRIX_IMPL_H

#include "matrix.h"

/* Collective: build the communication package of y = A x from col_map. */
int ovk__halo_setup(ovk_matrix *A);
void ovk__halo_free(ovk__halo *h);

/* Matrix Market reader: when nonzero, the bytes this process may allocate
 * (the reader otherwise takes its share of the node's memory and the
 * rlimits).  For tests and the fuzz target, which grant a stated amount. */
extern size_t ovk__mem_cap;

#endif

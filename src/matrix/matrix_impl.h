/* Internals of the matrix layer shared by its files. */
#ifndef OVK_MATRIX_IMPL_H
#define OVK_MATRIX_IMPL_H

#include "../internal.h"

/* Collective: build the communication package of y = A x from col_map. */
int ovk__halo_setup(ovk_matrix *A);
void ovk__halo_free(ovk__halo *h);

#endif

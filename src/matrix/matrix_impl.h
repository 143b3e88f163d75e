/* Internals of the matrix layer shared by its files. */
#ifndef OVK_MATRIX_IMPL_H
#define OVK_MATRIX_IMPL_H

#include "../internal.h"

/* Collective: duplicate comm and gather the row ranges; OVK_EPARTITION
 * (identically on every rank) when they do not tile [0, N) in rank order. */
int ovk__layout_init(MPI_Comm comm, ovk_gidx row_start, int nlocal, ovk__layout *lay);
void ovk__layout_free(ovk__layout *lay);

/* Collective: build the communication package of y = A x from col_map. */
int ovk__halo_setup(ovk_matrix *A);
void ovk__halo_free(ovk__halo *h);

/* Matrix Market reader: when nonzero, the bytes this process may allocate
 * (the reader otherwise takes its share of the node's memory and the
 * rlimits).  For tests and the fuzz target, which grant a stated amount. */
extern size_t ovk__mem_cap;

#endif

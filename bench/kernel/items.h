/* ovk_kernel_bench's items: the kernels it measures (the matvec in each
 * storage form and its compute ceiling, the vector updates and dot
 * products, the solvers' fused updates, whole iterations), on the 27-point
 * Laplacian or on vectors alone, with the bytes each call moves.  Only
 * items.c sees src/; this header shows none of it. */
#ifndef OVK_KB_ITEMS_H
#define OVK_KB_ITEMS_H

enum { OVK_KB_ITEMS = 26 }; /* the number of items (items.c checks it) */

/* The matrix in its forms, the vectors, Jacobi, the progress hook. */
typedef struct ovk_kb_items kb_items;

/* Collective: the Laplacian with a box of edge^3 rows per rank (the ranks
 * side by side in x) in every form, or with edge 0 no matrix and vectors of
 * n rows; the hook every `every` rows (0: none); aligned: every vector on a
 * page instead of the staggered block of ovk__ctx_alloc_block.  *kb is set
 * (ovk_kb_free it) also when the status is not OVK_OK. */
int ovk_kb_setup(int edge, int n, int every, int aligned, kb_items **kb);
void ovk_kb_free(kb_items *kb);

const char *ovk_kb_name(int k);
int ovk_kb_needs_matrix(int k);

/* Item k `calls` times back to back. */
void ovk_kb_run(kb_items *kb, int k, long calls);

/* Bytes of one call of item k on this rank, and its working set. */
void ovk_kb_bytes(const kb_items *kb, int k, double *bytes, double *ws);

int ovk_kb_rows(const kb_items *kb);                /* the rows of this rank's vectors */
const char *ovk_kb_value_form(const kb_items *kb);  /* dict8, float or double as packed; - without a matrix */
double ovk_kb_sink(const kb_items *kb);             /* the sum of the kernels' results (keeps them alive) */

#endif

/* The amg cycle's products with level 0 (the solver's matrix) through a
 * float copy of its values (amg_fine.c), made at the cycle's setup and
 * refreshed with the matrix's values. */
#ifndef OVK_AMG_FINE_H
#define OVK_AMG_FINE_H

#include "precond.h"

typedef struct ovk__amg_fine ovk__amg_fine;

/* Local: the float copy of A's values; *out NULL (and OVK_OK) when A's
 * storage form already streams fewer bytes (the caller then multiplies
 * with A itself).  A is borrowed and must outlive the copy. */
int ovk__amg_fine_make(const ovk_matrix *A, ovk__amg_fine **out);
/* Local: the copy of A's current values (after ovk_matrix_update_values). */
void ovk__amg_fine_refresh(ovk__amg_fine *f);
/* y = A x with the float values.  Collective with A's halo neighbours;
 * calls the hook. */
int ovk__amg_fine_matvec(const ovk__amg_fine *f, const double *x, double *y, const ovk__hook *h);
void ovk__amg_fine_free(ovk__amg_fine *f);

#endif

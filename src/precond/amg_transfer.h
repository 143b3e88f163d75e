/* The amg cycle's grid transfers (amg_transfer.c): a copy of one
 * interpolation P_l, its weights in float or double, with its own halo
 * plan, made at the cycle's setup from P's rows (no hypre type) and kept
 * while P_l is (a refresh on the kept interpolation keeps it). */
#ifndef OVK_AMG_TRANSFER_H
#define OVK_AMG_TRANSFER_H

#include "amg_coarse.h"

typedef struct ovk__amg_transfer ovk__amg_transfer;

/* One rank's rows of P (borrowed): nf fine rows, the nc coarse rows the
 * rank owns (global c0 .. c0 + nc - 1, the coarse partition in rank order);
 * the diag block (dptr [nf + 1], local coarse columns dcol, dval) and the
 * offd block (optr [nf + 1], or NULL when nx is 0; ocol into cmap, oval),
 * cmap [nx] the global ids of the offd columns, ascending. */
typedef struct ovk__amg_prows {
    int nf, nc, nx;
    ovk_gidx c0;
    const int *dptr, *dcol, *optr, *ocol;
    const double *dval, *oval;
    const ovk_gidx *cmap;
} ovk__amg_prows;

/* Collective over comm (P's ranks; statuses agreed): the copy of P
 * (single: float weights, else double) and its halo plan. */
int ovk__amg_transfer_make(MPI_Comm comm, const ovk__amg_prows *p, int single, ovk__amg_transfer **out);
/* Local: room for k systems' halos (kept; one system's made with t;
 * OVK_ENOMEM without it, the room held before kept: the caller agrees on
 * the outcome). */
int ovk__amg_transfer_reserve(ovk__amg_transfer *t, int k);
/* x_f[j] += P x_c[j] and y_c[j] = alpha P^T r[j] for k systems (no more
 * than reserved), each row of P read once for all k, each system's result
 * the same operations in the same order whatever k; the k halos in one
 * message per neighbour.  Collective with P's halo neighbours; call the
 * hook.  A failed exchange is reported on the rank that saw it only: the
 * ranks are then out of step, as after any failed MPI call the library
 * does not agree on. */
int ovk__amg_interpolate(const ovk__amg_transfer *t, int k, const double *const *xc, double *const *xf,
                         const ovk__hook *h);
int ovk__amg_restrict(const ovk__amg_transfer *t, int k, double alpha, const double *const *r, double *const *yc,
                      const ovk__hook *h);
/* Local: room for scaling the weights (each entry's place in the
 * transpose, 4 bytes an entry, made once): OVK_ENOMEM without it, nothing
 * changed (the caller agrees on the outcome). */
int ovk__amg_transfer_scale_room(ovk__amg_transfer *t);
/* Local, after ovk__amg_transfer_scale_room: the copy's weights those of
 * diag(w) P (w: a factor for each fine row; NULL: P's own again), in both
 * the interpolation and its transpose, from p (the rows the copy was made
 * of, their values unchanged since). */
void ovk__amg_transfer_scale(ovk__amg_transfer *t, const ovk__amg_prows *p, const double *w);
void ovk__amg_transfer_free(ovk__amg_transfer *t);

#endif

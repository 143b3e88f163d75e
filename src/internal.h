/* ovkrylov internals shared by the library's layers.  Not installed. */
#ifndef OVK_INTERNAL_H
#define OVK_INTERNAL_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "ovkrylov/ovkrylov.h"

/* ---- errors (src/util/error.c) ---------------------------------------- */

/* Record a detail message for the calling thread and return code. */
int ovk__fail(int code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Collective: every rank of comm gets the same status.  When any rank failed
 * the result is the smallest (most negative) code; ranks that did not fail
 * record a detail naming the failing rank.  Returns OVK_EMPI if MPI fails. */
int ovk__agree(MPI_Comm comm, int rc);

/* Map an MPI error to OVK_EMPI with a detail naming the call. */
int ovk__mpi_fail(int mpi_rc, const char *call);

#define OVK__MPI(call)                                                                            \
    do {                                                                                          \
        int ovk__mrc = (call);                                                                    \
        if (ovk__mrc != MPI_SUCCESS) {                                                            \
            rc = ovk__mpi_fail(ovk__mrc, #call);                                                  \
            goto cleanup;                                                                         \
        }                                                                                         \
    } while (0)

/* ---- progress hook ---------------------------------------------------- */

/* Long local kernels call fn(arg) every `every` rows so that reductions in
 * flight progress while they run.  A NULL hook (or fn) means no calls. */
typedef struct ovk__hook {
    void (*fn)(void *arg);
    void *arg;
    int every;
} ovk__hook;

/* ---- reducers (src/backends/reduce.c) -------------------------------- */

MPI_Comm ovk__reducer_comm(const ovk_reducer *red);
long long ovk__reducer_started(const ovk_reducer *red);

/* ---- local kernels (src/matrix/kernels.c); h may be NULL ------------- */

double ovk__dot(int n, const double *x, const double *y);
void ovk__axpy(int n, double a, const double *x, double *y, const ovk__hook *h);
void ovk__xpay(int n, const double *x, double b, double *y, const ovk__hook *h);
void ovk__zxpby(int n, const double *x, double b, const double *y, double *z, const ovk__hook *h);
void ovk__axpy2(int n, double a, const double *p, double *x, const double *s, double *r,
                const ovk__hook *h);
void ovk__mul(int n, const double *d, const double *x, double *y, const ovk__hook *h);
void ovk__mul_dot(int n, const double *d, const double *x, double *y, double *yy,
                  const ovk__hook *h);
void ovk__axpy_dot(int n, double a, const double *x, double *y, double *yy, const ovk__hook *h);

/* Local dot products in one pass: out[j] = <x[j], y[j]> for j < k (k <= 16). */
void ovk__dots(int n, int k, const double *const *x, const double *const *y, double *out,
               const ovk__hook *h);

/* Slots of the local sums produced by the single-reduction kernels (cg1,
 * pipecg): <r,u>, <w,u>, <r,r>; <u,s>, <p,w>, <p,s> (new u, w with the p, s
 * of the step, for <p,Ap> of the next step); then the squared norms of the
 * vectors that the residual-gap estimate needs. */
enum {
    OVK__V_GAMMA, OVK__V_DELTA, OVK__V_RR, OVK__V_US, OVK__V_PW, OVK__V_PS,
    OVK__V_XX, OVK__V_PP, OVK__V_SS, OVK__V_UU, OVK__V_WW, OVK__V_QQ, OVK__V_ZZ, OVK__V_MM,
    OVK__V_COUNT
};

/* cg1, one pass: p = u + b p; s = w + b s; x += a p; r -= a s; u = d .* r.
 * v[GAMMA] = <r,u>, v[RR] = <r,r>, v[US] = <u,s>, v[PS] = <p,s> (new vectors);
 * v[XX], v[UU] of x and u before, v[PP], v[SS] after, v[WW] of w.  Other
 * slots (DELTA, PW, QQ, ZZ, MM) are left alone. */
void ovk__cg1_update(int n, double a, double b, const double *d, const double *w, double *u,
                     double *p, double *s, double *x, double *r, double *v, const ovk__hook *h);

/* The vectors of the pipelined CG (Ghysels-Vanroose). */
typedef struct ovk__pipe_vecs {
    double *x, *r, *w, *p, *s, *z; /* updated by ovk__pipecg_update */
    double *u, *q;                 /* u = C r, q = C s: not stored by the update (see below) */
    double *m, *n;                 /* m = C w, n = A m: written by the solver, not the update */
    const double *d;               /* the diagonal of C: read */
} ovk__pipe_vecs;

/* pipecg, one pass: z = n + b z; s = w + b s; p = u + b p; x += a p;
 * r -= a s; w -= a z.  With a diagonal preconditioner u = C r and q = C s
 * are not carried by recurrences (u -= a q; q = m + b q, as in the paper)
 * but formed from d in the loop: the same vectors in exact arithmetic, 24
 * fewer bytes per row, and u, q are left unwritten.  v[GAMMA] = <r,u>,
 * v[DELTA] = <w,u>, v[RR] = <r,r>, v[US] = <u,s>, v[PW] = <p,w>, v[PS] =
 * <p,s> of the new vectors; v[XX], v[UU], v[WW] of x, u, w before, v[PP],
 * v[SS], v[QQ], v[ZZ] after; v[MM] is left 0 (m is not read: the caller
 * takes <m,m> from the pass that made m). */
void ovk__pipecg_update(int n, double a, double b, const ovk__pipe_vecs *vv, double *v,
                        const ovk__hook *h);

/* ---- layout, vectors, matrices (src/matrix) -------------------------- */

typedef struct ovk__layout {
    MPI_Comm comm; /* the matrix's private duplicate */
    int rank, size;
    ovk_gidx nglobal;
    ovk_gidx row_start;
    int nlocal;
    ovk_gidx *starts; /* size+1 entries: rank r owns [starts[r], starts[r+1]) */
} ovk__layout;

struct ovk_vector {
    const ovk__layout *lay;
    int n;
    double *data;
};

typedef struct ovk__csr {
    int nrows;
    int *rowptr;     /* nrows+1, rowptr[0] == 0 */
    int *col;        /* column of each entry; NULL once compacted to off16 */
    int16_t *off16;  /* diag block only: col - row of each entry, when every
                        one fits (banded matrices: 2 B instead of 4 B per
                        entry the matvec streams); else NULL */
    double *val;
    int upper;       /* diag block only: 1 when the block is symmetric and
                        each row keeps a_ii (first) and its entries right of
                        the diagonal only, a_ji = a_ij standing for the rest */
    int64_t nnz;     /* entries the block stands for (both triangles when upper) */
} ovk__csr;

/* Replace m->col by 16-bit offsets from the row when every |col - row| fits
 * (m must be a square diag block); otherwise leave m unchanged.  Returns
 * OVK_OK or OVK_ENOMEM. */
int ovk__csr_compact(ovk__csr *m);

/* Keep only the diagonal and upper triangle of a compacted (off16) square
 * block, when the block is symmetric bit for bit; otherwise leave m
 * unchanged.  Every row must start with a_ii (the caller checks: the
 * matrix's has_diag_first).  The matvec then streams each
 * off-diagonal pair once.  Returns OVK_OK or OVK_ENOMEM. */
int ovk__csr_keep_upper(ovk__csr *m);

/* Local ||A||_inf over the owned rows and the longest owned row (entries of
 * both blocks). */
int ovk__matrix_row_stats(const ovk_matrix *A, double *norm_inf, int *longest);

/* The communication package of y = A x, built once at setup. */
typedef struct ovk__halo {
    int nsend;       /* ranks we send to */
    int *send_rank;  /* [nsend] */
    int *send_ptr;   /* [nsend+1] into send_idx */
    int *send_idx;   /* local row ids to pack */
    double *send_buf;
    int nrecv;       /* ranks we receive from */
    int *recv_rank;  /* [nrecv] */
    int *recv_ptr;   /* [nrecv+1] into the external vector */
    double *ext;     /* x values of the offd columns, [ncols_offd] */
    MPI_Request *reqs; /* [nsend + nrecv] */
} ovk__halo;

struct ovk_matrix {
    ovk__layout lay;
    ovk__csr diag;       /* local columns; the diagonal entry first in its row */
    ovk__csr offd;       /* columns compressed into col_map */
    int ncols_offd;
    ovk_gidx *col_map;   /* [ncols_offd] sorted global ids of offd columns */
    double *diagonal;    /* a_ii, 0 when absent */
    int has_diag_first;  /* every row's first diag-block entry is a_ii */
    ovk__halo halo;
};

/* Halo exchange split so that work can run while messages fly. */
int ovk__halo_begin(const ovk_matrix *A, const double *x);
int ovk__halo_end(const ovk_matrix *A);

/* y = A x with an optional progress hook. */
int ovk__matvec(const ovk_matrix *A, const double *x, double *y, const ovk__hook *hook);

/* 1 when two layouts describe the same rows on the same ranks. */
int ovk__layout_same(const ovk__layout *a, const ovk__layout *b);

/* OVK_OK when x and y are non-NULL and share a layout, else OVK_EINVAL or
 * OVK_EMISMATCH with a detail. */
int ovk__vector_check_pair(const ovk_vector *x, const ovk_vector *y);

#endif

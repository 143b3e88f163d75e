/* ovkrylov: distributed CSR matrices and vectors.
 *
 * A matrix or vector is split by rows over the ranks of an MPI communicator:
 * rank r owns the contiguous global rows [row_start(r), row_start(r) + nlocal(r)),
 * and the ranks' ranges tile [0, nglobal) in rank order.  Global indices are
 * 64-bit (ovk_gidx); local sizes are int.  A rank may own zero rows.
 *
 * Lifetimes: objects are created by ovk_*_create* and destroyed by the matching
 * ovk_*_destroy.  A matrix keeps a duplicate of the communicator it was built
 * on; destroy it before MPI_Finalize.  Vectors borrow the layout of the matrix
 * or vector they were created from, which must outlive them.
 */
#ifndef OVKRYLOV_MATRIX_H
#define OVKRYLOV_MATRIX_H

#include <mpi.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef int64_t ovk_gidx;

typedef struct ovk_matrix ovk_matrix;
typedef struct ovk_vector ovk_vector;

/* How ovk_matrix_create_csr treats repeated (row, column) pairs. */
typedef enum ovk_dup_policy {
    OVK_DUP_SUM = 0,   /* add duplicate entries (finite-element assembly) */
    OVK_DUP_REJECT = 1 /* fail with OVK_EINVAL */
} ovk_dup_policy;

/* Build a matrix from this rank's rows, given as CSR with global column ids,
 * the way hypre's IJ interface is fed.  Collective over comm.
 *
 *   row_start  first global row owned by this rank
 *   nlocal     number of rows owned by this rank (may be 0)
 *   rowptr     nlocal+1 offsets into cols/vals (rowptr[0] need not be 0)
 *   cols       global column ids, any order within a row
 *   vals       values
 *
 * The matrix is square; its size is the sum of nlocal over the ranks.  The
 * input is validated on every rank and the outcome agreed: row ranges must
 * tile the global range in rank order (OVK_EPARTITION), column ids must lie in
 * [0, nglobal) (OVK_ECOLUMN), values must be finite (OVK_ENONFINITE), and so
 * must the sums OVK_DUP_SUM makes of duplicates; A NULL on one rank is
 * OVK_EINVAL on every rank.  The input arrays are copied; the caller keeps
 * ownership. */
int ovk_matrix_create_csr(MPI_Comm comm, ovk_gidx row_start, int nlocal, const int *rowptr,
                          const ovk_gidx *cols, const double *vals, ovk_dup_policy dups,
                          ovk_matrix **A);

/* New values on the same pattern (time stepping, Newton): the same rows, in
 * the same form as ovk_matrix_create_csr's, with the same (row, column)
 * pairs after duplicates are merged.  The halo plan and the storage are
 * kept; solvers on A redo only their numeric setup at their next solve.
 * Collective over A's communicator; nothing changes on OVK_ENONFINITE (the
 * values are checked as by ovk_matrix_create_csr) or OVK_EMISMATCH: the
 * pattern differs, or a matrix stored as symmetric (one triangle) gets
 * values that are not.  The arrays are copied. */
int ovk_matrix_update_values(ovk_matrix *A, const int *rowptr, const ovk_gidx *cols, const double *vals,
                             ovk_dup_policy dups);

/* Free a matrix (NULL is allowed).  Collective: frees the matrix's
 * duplicate of the communicator.  While solvers made on A exist, A is
 * only marked destroyed and lives until the last of them is destroyed
 * (ovk_solver_destroy then frees it): a solver keeps its matrix alive.
 * OVK_EBUSY (nothing freed, nothing communicated) while a solve or setup of
 * a solver on A is in flight, i.e. when called from one of its callbacks;
 * ovk_matrix_update_values says the same then.  OVK_EINVAL for a second
 * destroy of a matrix kept by its solvers.  Returns OVK_OK otherwise. */
int ovk_matrix_destroy(ovk_matrix *A);

/* Layout queries (local, no communication). */
ovk_gidx ovk_matrix_nglobal(const ovk_matrix *A);
ovk_gidx ovk_matrix_row_start(const ovk_matrix *A);
int ovk_matrix_nlocal(const ovk_matrix *A);
int64_t ovk_matrix_nnz_local(const ovk_matrix *A);
MPI_Comm ovk_matrix_comm(const ovk_matrix *A);

/* y = A x.  Collective: the argument checks are agreed first (one small
 * reduction: a vector of another layout or communicator on one rank is
 * OVK_EMISMATCH on every rank), then the halo exchange.  x and y must have
 * A's layout and be distinct.  Inside an operator or preconditioner
 * callback of a solve the checks are not agreed (no reduction): a rank
 * whose checks fail still serves its neighbours' halo (NaN), sets y to NaN
 * and returns the failure; the callback returns it and the solve fails
 * with OVK_ECALLBACK on every rank. */
int ovk_matvec(const ovk_matrix *A, const ovk_vector *x, ovk_vector *y);

/* How y = A x exchanges the halo (the x values of other ranks' rows). */
typedef enum ovk_halo_mode {
    OVK_HALO_ISEND = 0,      /* MPI_Irecv/MPI_Isend per neighbour and product (default) */
    OVK_HALO_PERSISTENT = 1, /* persistent requests built once, MPI_Startall per product */
    OVK_HALO_NEIGHBOR = 2    /* MPI_Ineighbor_alltoallv on a distributed-graph communicator */
} ovk_halo_mode;

/* Select the halo exchange of A.  Collective over A's communicator (every
 * rank must pass the same mode; the neighbour mode creates a communicator).
 * The products are bitwise the same in every mode.  OVK_EINVAL for an
 * unknown mode. */
int ovk_matrix_set_halo(ovk_matrix *A, ovk_halo_mode mode);
ovk_halo_mode ovk_matrix_get_halo(const ovk_matrix *A);

/* Create a zero vector with A's row layout.  Not collective. */
int ovk_vector_create(const ovk_matrix *A, ovk_vector **v);
/* Create a zero vector with the same layout as v.  Not collective. */
int ovk_vector_duplicate(const ovk_vector *v, ovk_vector **w);
void ovk_vector_destroy(ovk_vector *v);

/* The local part: nlocal doubles, writable, in global-row order. */
double *ovk_vector_data(ovk_vector *v);
const double *ovk_vector_data_const(const ovk_vector *v);
int ovk_vector_nlocal(const ovk_vector *v);

/* Local vector kernels (no communication). */
int ovk_vector_set(ovk_vector *v, double alpha);                   /* v = alpha */
int ovk_vector_copy(const ovk_vector *x, ovk_vector *y);           /* y = x */
int ovk_vector_axpy(double alpha, const ovk_vector *x, ovk_vector *y); /* y += alpha x */
int ovk_vector_scale(double alpha, ovk_vector *x);                 /* x *= alpha */

/* Global reductions over the blocking path (collective). */
int ovk_vector_dot(const ovk_vector *x, const ovk_vector *y, double *result);
int ovk_vector_norm2(const ovk_vector *x, double *result);

#ifdef __cplusplus
}
#endif
#endif

/* The C side of the Python package (python/ovkrylov, ctypes): the public
 * functions that take an MPI_Comm, on a Fortran communicator handle
 * (MPI_Fint, mpi4py's Comm.py2f()).  MPI_Comm is a pointer in Open MPI and
 * an int in MPICH; the Fortran handle is an int in both, so a ctypes
 * binding needs no compiler and no knowledge of the MPI's ABI.  The
 * package also uses fortran.c's entries (ovk__f_agree, ovk__f_fail,
 * ovk__f_matrix_create_csr, ovk__f_reducer_create, ovk__f_solver_comm).
 * Also what Matrix needs that the public API does not give: a vector on the
 * caller's array with the matrix's layout (A @ x without copies), the
 * diagonal, and this rank's rows as CSR (to_scipy_local, the pattern of
 * update_values for matrices the package did not assemble).
 * Not declared in the installed headers. */
#include <stdint.h>
#include <stdlib.h>

#include "../solvers/solver.h"

int ovk__py_laplace_create(MPI_Fint fcomm, int stencil, int nx, int ny, int nz, int px, int py, int pz,
                           ovk_matrix **A);
int ovk__py_mm_read(MPI_Fint fcomm, const char *path, ovk_matrix **A);
int ovk__py_solver_create_operator(MPI_Fint fcomm, int nlocal, ovk_apply_fn matvec, void *ctx, ovk_solver **s);

int ovk__py_laplace_create(MPI_Fint fcomm, int stencil, int nx, int ny, int nz, int px, int py, int pz,
                           ovk_matrix **A)
{
    return ovk_laplace_create(MPI_Comm_f2c(fcomm), (ovk_stencil)stencil, nx, ny, nz, px, py, pz, A);
}

int ovk__py_mm_read(MPI_Fint fcomm, const char *path, ovk_matrix **A)
{
    return ovk_mm_read(MPI_Comm_f2c(fcomm), path, A);
}

/* Row ids in failure details counted from 0, as NumPy counts. */
int ovk__py_solver_create_operator(MPI_Fint fcomm, int nlocal, ovk_apply_fn matvec, void *ctx, ovk_solver **s)
{
    return ovk__solver_create_operator_base(MPI_Comm_f2c(fcomm), nlocal, matvec, ctx, 0, s);
}

int ovk__py_busy(const ovk_matrix *A, const ovk_solver *s, const char *fn);

/* Local, before any agreement: OVK_EBUSY (with the C call's detail) when
 * the call comes from a callback of a solve that uses A or s (either may be
 * NULL); the package's collective calls that change them ask it first, so
 * that the calling rank fails alone and nothing collective starts. */
int ovk__py_busy(const ovk_matrix *A, const ovk_solver *s, const char *fn)
{
    int rc = A ? ovk__matrix_usable(A, fn) : OVK_OK;
    if (!rc && s) rc = ovk__solver_usable(s, fn);
    return rc == OVK_EBUSY ? rc : OVK_OK;
}

int ovk__py_release(ovk_matrix *A, ovk_solver *s, ovk_reducer *red);

/* Local, nothing collective: the object of a Python wrapper the garbage
 * collector dropped without close() (its moment differs between ranks),
 * whichever of A, s, red is not NULL: its memory and its reference to the
 * inner communicator.  A reducer with requests outstanding, or in use by a
 * solve, is kept (OVK_EBUSY). */
int ovk__py_release(ovk_matrix *A, ovk_solver *s, ovk_reducer *red)
{
    if (A) return ovk_matrix_destroy(A);
    if (s) return ovk__solver_release(&s);
    if (red && (ovk__reducer_outstanding(red) || ovk__reducer_users(red)))
        return ovk__fail(OVK_EBUSY, "the reducer has requests outstanding or a solve uses it");
    ovk__reducer_discard(red);
    return OVK_OK;
}

int ovk__py_matrix_vector(const ovk_matrix *A, double *data, ovk_vector **v);
int ovk__py_matrix_diagonal(const ovk_matrix *A, double *d);
int ovk__py_matrix_local_nnz(const ovk_matrix *A, int64_t *nnz);
int ovk__py_matrix_local_csr(const ovk_matrix *A, int *rowptr, ovk_gidx *cols, double *vals);

/* A vector of A's layout on the caller's nlocal doubles (not freed by
 * ovk_vector_destroy; data NULL: a zero vector of its own).  Local. */
int ovk__py_matrix_vector(const ovk_matrix *A, double *data, ovk_vector **v)
{
    if (!A || !v) return ovk__fail(OVK_EINVAL, "ovk__py_matrix_vector: NULL argument");
    return ovk__vector_new(&A->lay, data, v);
}

/* d = the rank's a_ii (0 where absent).  Local. */
int ovk__py_matrix_diagonal(const ovk_matrix *A, double *d)
{
    if (!A || (!d && A->lay.nlocal)) return ovk__fail(OVK_EINVAL, "ovk__py_matrix_diagonal: NULL argument");
    for (int i = 0; i < A->lay.nlocal; i++) d[i] = A->diagonal[i];
    return OVK_OK;
}

/* The entries of the rank's rows (both triangles, both blocks).  Local. */
int ovk__py_matrix_local_nnz(const ovk_matrix *A, int64_t *nnz)
{
    if (!A || !nnz) return ovk__fail(OVK_EINVAL, "ovk__py_matrix_local_nnz: NULL argument");
    int n = A->lay.nlocal;
    int *ptr = malloc(sizeof(int) * (size_t)(n + 1));
    if (!ptr) return ovk__fail(OVK_ENOMEM, "ovk__py_matrix_local_nnz: %d rows", n);
    int rc = ovk__matrix_diag_ptr(A, ptr);
    if (!rc) *nnz = (int64_t)ptr[n] + (n ? A->offd.rowptr[n] : 0);
    free(ptr);
    return rc;
}

/* The rank's rows as CSR with global columns: rowptr [nlocal + 1], cols and
 * vals [ovk__py_matrix_local_nnz]; each row the diag block's entries (a_ii
 * first), then the offd block's.  Local. */
int ovk__py_matrix_local_csr(const ovk_matrix *A, int *rowptr, ovk_gidx *cols, double *vals)
{
    if (!A || !rowptr) return ovk__fail(OVK_EINVAL, "ovk__py_matrix_local_csr: NULL argument");
    int n = A->lay.nlocal, rc = OVK_OK;
    int *dptr = malloc(sizeof(int) * (size_t)(n + 1));
    if (!dptr) return ovk__fail(OVK_ENOMEM, "ovk__py_matrix_local_csr: %d rows", n);
    rc = ovk__matrix_diag_ptr(A, dptr);
    int nd = rc ? 0 : dptr[n];
    int *dcol = rc ? NULL : malloc(sizeof(int) * (size_t)(nd > 0 ? nd : 1));
    double *dval = rc ? NULL : malloc(sizeof(double) * (size_t)(nd > 0 ? nd : 1));
    if (!rc && (!dcol || !dval)) rc = ovk__fail(OVK_ENOMEM, "ovk__py_matrix_local_csr: %d entries", nd);
    if (!rc) rc = ovk__matrix_diag_fill(A, dptr, dcol, dval);
    if (rc) goto cleanup;
    /* row i: its diag entries (global columns), then its offd entries */
    const ovk__csr *o = &A->offd;
    int64_t at = 0;
    rowptr[0] = 0;
    for (int i = 0; i < n; i++) {
        for (int k = dptr[i]; k < dptr[i + 1]; k++, at++) {
            cols[at] = A->lay.row_start + dcol[k];
            vals[at] = dval[k];
        }
        for (int k = o->rowptr[i]; k < o->rowptr[i + 1]; k++, at++) {
            cols[at] = A->col_map[ovk__csr_col(o, i, k)];
            vals[at] = o->val[k];
        }
        if (at > INT32_MAX) {
            rc = ovk__fail(OVK_EUNSUPPORTED, "ovk__py_matrix_local_csr: more than 2^31 - 1 entries on one rank");
            goto cleanup;
        }
        rowptr[i + 1] = (int)at;
    }
cleanup:
    free(dptr);
    free(dcol);
    free(dval);
    return rc;
}

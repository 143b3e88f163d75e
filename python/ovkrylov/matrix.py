"""Distributed CSR matrices (include/ovkrylov/matrix.h, problems.h)."""
import ctypes

import numpy as np
from mpi4py import MPI

from ._lib import Collective, agree, check, fhandle, lib

_INT_MAX = 2**31 - 1


def _int_array(a, dtype, what):
    """a as a C-contiguous array of dtype (the library copies it): integers of
    another width are converted when they fit; anything else is refused."""
    a = np.asarray(a)
    if a.ndim != 1:
        return None, f"{what} must be 1-D, not {a.ndim}-D"
    if a.size and not np.issubdtype(a.dtype, np.integer):
        return None, f"{what} must hold integers, not {a.dtype}"
    info = np.iinfo(dtype)
    if a.size and (a.min() < info.min or a.max() > info.max):
        return None, f"{what} has values outside {np.dtype(dtype).name}"
    return np.ascontiguousarray(a, dtype=dtype), None


class Matrix(Collective):
    """A square matrix split by rows over an mpi4py communicator: this rank owns
    the contiguous global rows [row_start, row_start + nlocal).  The library
    keeps its own copy of the entries and a duplicate of the communicator.

    Collective: the constructors and close().  Call close() on every rank (or
    use `with`): it frees a communicator.  An object left to the garbage
    collector is not destroyed (that would be a collective call at a moment
    that differs between ranks): it is leaked with a ResourceWarning."""

    _what = "matrix"

    def __init__(self, handle, comm):
        self._h = handle
        self.comm = comm

    # ---- constructors ---------------------------------------------------
    @classmethod
    def from_csr(cls, comm, row_start, indptr, indices=None, data=None):
        """This rank's rows as CSR with global column ids: indptr (nlocal + 1
        offsets), indices (global columns), data (values); or, given a
        scipy.sparse matrix of this rank's rows (shape nlocal x nglobal) as
        indptr, its CSR arrays.  Repeated entries are summed.  Collective."""
        f = fhandle(comm)
        problem = None
        if indices is None and data is None and hasattr(indptr, "tocsr"):
            csr = indptr.tocsr()
            indptr, indices, data = csr.indptr, csr.indices, csr.data
        try:
            row_start = int(row_start)
        except (TypeError, ValueError):
            problem = f"row_start must be an integer, not {type(row_start).__name__}"
        ip, p1 = _int_array(indptr, np.int32, "indptr")
        ix, p2 = _int_array(indices if indices is not None else [], np.int64, "indices")
        problem = problem or p1 or p2
        vals = None
        if not problem:
            d = np.asarray(data if data is not None else [])
            if d.ndim != 1 or not (np.issubdtype(d.dtype, np.floating) or np.issubdtype(d.dtype, np.integer)):
                problem = f"data must be a 1-D real array, not {d.ndim}-D {d.dtype}"
            else:
                vals = np.ascontiguousarray(d, dtype=np.float64)
        if not problem:
            nlocal = ip.size - 1
            if nlocal < 0:
                problem = "indptr must have nlocal + 1 >= 1 entries"
            elif nlocal > _INT_MAX:
                problem = "too many rows on this rank"
            else:
                nnz = int(ip[-1]) - int(ip[0])
                if nnz < 0 or ix.size < int(ip[-1]) or vals.size < int(ip[-1]):
                    problem = (f"indptr ends at {int(ip[-1])} but indices has {ix.size} and data "
                               f"{vals.size} entries")
                elif ix.size != vals.size:
                    problem = f"indices has {ix.size} entries and data {vals.size}"
        agree(f, problem)
        h = ctypes.c_void_p()
        check(lib.ovk__f_matrix_create_csr(f, row_start, nlocal,
                                           ip.ctypes.data_as(ctypes.POINTER(ctypes.c_int)),
                                           ix.ctypes.data_as(ctypes.POINTER(ctypes.c_int64)),
                                           vals.ctypes.data_as(ctypes.POINTER(ctypes.c_double)),
                                           0, 0, ctypes.byref(h)))
        return cls(h, comm)

    @classmethod
    def laplace27(cls, comm, n, stencil=27, grid=None):
        """hypre's 3-D Laplacian (27-point, or stencil=7) on an n x n x n box of
        points per rank (n an int or (nx, ny, nz)); the ranks form the grid
        MPI_Dims_create picks (or grid=(px, py, pz)), as build/examples/
        ovk_laplace27 does.  Collective."""
        f = fhandle(comm)
        nx, ny, nz = (n, n, n) if np.isscalar(n) else tuple(n)
        px, py, pz = grid if grid is not None else MPI.Compute_dims(comm.Get_size(), 3)
        h = ctypes.c_void_p()
        check(lib.ovk__py_laplace_create(f, int(stencil), int(nx), int(ny), int(nz), int(px), int(py), int(pz),
                                         ctypes.byref(h)))
        return cls(h, comm)

    @classmethod
    def from_mtx(cls, comm, path):
        """A Matrix Market file, split in balanced blocks of rows (every rank
        reads it).  Collective."""
        f = fhandle(comm)
        h = ctypes.c_void_p()
        check(lib.ovk__py_mm_read(f, str(path).encode(), ctypes.byref(h)))
        return cls(h, comm)

    # ---- queries --------------------------------------------------------
    @property
    def nlocal(self):
        return lib.ovk_matrix_nlocal(self.handle)

    @property
    def nglobal(self):
        return lib.ovk_matrix_nglobal(self.handle)

    @property
    def row_start(self):
        return lib.ovk_matrix_row_start(self.handle)

    @property
    def nnz_local(self):
        return lib.ovk_matrix_nnz_local(self.handle)

    def _destroy(self):
        """Solvers on the matrix must be closed first."""
        check(lib.ovk_matrix_destroy(self._h))

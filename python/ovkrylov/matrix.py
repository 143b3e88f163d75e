"""Distributed CSR matrices (include/ovkrylov/matrix.h, problems.h)."""
import ctypes

import numpy as np
from mpi4py import MPI

from ._lib import ArgumentError, Collective, agree, check, fhandle, lib

_INT_MAX = 2**31 - 1
_DP = ctypes.POINTER(ctypes.c_double)
_IP = ctypes.POINTER(ctypes.c_int)
_LP = ctypes.POINTER(ctypes.c_int64)


def _int_array(a, dtype, what):
    """a as a C-contiguous array of dtype (the library copies it): integers of
    another width are converted when they fit; anything else is refused."""
    a = np.asarray(a)
    if a.ndim != 1:
        return None, f"{what} must be 1-D, not {a.ndim}-D"
    if a.size and not np.issubdtype(a.dtype, np.integer):
        return None, f"{what} must hold integers, not {a.dtype}"
    info = np.iinfo(dtype)
    if a.size:  # as Python ints: a uint64 past 2^63 compared as a float would pass
        lo, hi = int(a.min()), int(a.max())
        if lo < info.min or hi > info.max:
            bad = lo if lo < info.min else hi
            return None, f"{what} has the value {bad}, outside {np.dtype(dtype).name}"
    return np.array(a, dtype=dtype, order="C", copy=True), None


def _vector(a, n, what, writeable=False):
    """(array, problem): a float64 1-D C-contiguous array of n entries."""
    if not isinstance(a, np.ndarray):
        return None, f"{what} must be a numpy.ndarray, not {type(a).__name__}"
    if np.iscomplexobj(a):
        return None, (f"{what} is complex ({a.dtype}): the library is real (pass {what}.real and {what}.imag "
                      "apart)")
    if a.dtype != np.float64:
        return None, f"{what} has dtype {a.dtype}, expected float64"
    if a.ndim != 1 or a.shape[0] != n:
        return None, f"{what} has shape {a.shape}, expected ({n},) (this rank's rows)"
    if not a.flags.c_contiguous:
        return None, f"{what} is not contiguous (pass numpy.ascontiguousarray({what}))"
    if writeable and not a.flags.writeable:
        return None, f"{what} is read-only"
    return a, None


class Matrix(Collective):
    """A square matrix split by rows over an mpi4py communicator: this rank owns
    the contiguous global rows [row_start, row_start + nlocal).  The library
    keeps its own copy of the entries and a duplicate of the communicator.

    Collective: the constructors, update_values(), mult() (A @ x) and
    close(); local: the sizes, diagonal(), to_scipy_local().  Call close() on
    every rank (or use `with`): it frees a communicator.  While a Solver on
    the matrix is open, close() only marks the matrix closed (no call on it
    works any more) and the last such solver's close() destroys it: closing
    the matrix first, as a `with` block around the solver's creation does,
    is safe.  A matrix the garbage collector drops without close() is
    released there (locally, nothing collective)."""

    _what = "matrix"

    def __init__(self, handle, comm, pattern=None):
        self._h = handle
        self.comm = comm
        self._pattern = pattern  # (indptr int32, indices int64) of update_values(data)
        self._users = 0  # open solvers on this matrix
        self._close_pending = False
        self._track()

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
        return cls(h, comm, (ip, ix))

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

    # ---- lifetime -------------------------------------------------------
    @property
    def handle(self):
        if not self._h or self._close_pending:
            raise ArgumentError("the matrix is closed")
        return self._h

    def close(self):
        """Destroy the matrix (collective: call it on every rank).  While
        solvers on it are open, it is only marked closed (local, no
        communication) and destroyed by the last one's close().  A second
        close does nothing."""
        if self._h and not self._close_pending:
            if self._users:
                self._close_pending = True
                return
            super().close()

    def _hold(self):
        """A solver on the matrix was created."""
        self._users += 1

    def _release(self):
        """A solver on the matrix was closed: destroy a matrix closed meanwhile
        (collective: the solver's close was)."""
        self._users -= 1
        if self._close_pending and not self._users:
            self._close_pending = False
            super().close()

    # ---- queries (local) ----------------------------------------------------
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

    @property
    def shape(self):
        n = self.nglobal
        return (n, n)

    def diagonal(self):
        """This rank's a_ii (0.0 where the row has none) as a new array.  Local."""
        d = np.zeros(self.nlocal)
        check(lib.ovk__py_matrix_diagonal(self.handle, d.ctypes.data_as(_DP)))
        return d

    def _local_csr(self):
        """(indptr int32, indices int64, data) of this rank's rows, global
        columns, as the library stores them.  Local."""
        h = self.handle
        n = lib.ovk_matrix_nlocal(h)
        nnz = ctypes.c_int64()
        check(lib.ovk__py_matrix_local_nnz(h, ctypes.byref(nnz)))
        ip = np.zeros(n + 1, dtype=np.int32)
        ix = np.zeros(nnz.value, dtype=np.int64)
        vals = np.zeros(nnz.value)
        check(lib.ovk__py_matrix_local_csr(h, ip.ctypes.data_as(_IP), ix.ctypes.data_as(_LP),
                                           vals.ctypes.data_as(_DP)))
        return ip, ix, vals

    def to_scipy_local(self):
        """This rank's rows as a scipy.sparse.csr_matrix of shape (nlocal,
        nglobal), global columns: the values the library holds now (repeated
        entries summed; each row's diagonal entry first).  Local."""
        import scipy.sparse as sp
        ip, ix, vals = self._local_csr()
        return sp.csr_matrix((vals, ix, ip), shape=(len(ip) - 1, self.nglobal))

    # ---- products (collective) ------------------------------------------------
    def mult(self, x, y=None):
        """y = A x on this rank's rows: x (and y, written when given, else a
        new array) float64, 1-D, contiguous, of nlocal entries, not sharing
        memory.  Returns y.  Collective (the halo exchange): the argument
        checks are agreed first, so a bad x on one rank raises ArgumentError
        on every rank."""
        h = self.handle
        n = lib.ovk_matrix_nlocal(h)
        x, problem = _vector(x, n, "x")
        if not problem and y is not None:
            y, problem = _vector(y, n, "y", writeable=True)
            if not problem and np.shares_memory(x, y):
                problem = "x and y share memory"
        agree(lib.ovk__f_matrix_comm(h), problem)
        if y is None:
            y = np.empty(n)
        vx, vy = ctypes.c_void_p(), ctypes.c_void_p()
        try:
            check(lib.ovk__py_matrix_vector(h, x.ctypes.data_as(_DP) if n else None, ctypes.byref(vx)))
            check(lib.ovk__py_matrix_vector(h, y.ctypes.data_as(_DP) if n else None, ctypes.byref(vy)))
            check(lib.ovk_matvec(h, vx, vy))
        finally:
            lib.ovk_vector_destroy(vx)
            lib.ovk_vector_destroy(vy)
        return y

    def __matmul__(self, x):
        """A @ x: mult(x) of a float64 1-D array (x converted when it is a
        list or another real dtype, on every rank alike; complex x refused)."""
        if not isinstance(x, np.ndarray) or x.dtype != np.float64:
            if np.iscomplexobj(x):
                return self.mult(np.asarray(x))  # refused there: a conversion would drop the imaginary part
            try:
                x = np.ascontiguousarray(x, dtype=np.float64)
            except (TypeError, ValueError):
                pass  # mult names it
        elif not x.flags.c_contiguous:
            x = np.ascontiguousarray(x)
        return self.mult(x)

    # ---- new values (collective) -------------------------------------------------
    def update_values(self, indptr, indices=None, data=None):
        """New values on the same pattern (time stepping, Newton): solvers on
        the matrix redo only their numeric setup at their next solve (amg
        with reuse=K: the kept hierarchy, docs/preconditioners.md).

            A.update_values(data)                    # the pattern the matrix was made with
            A.update_values(K_local)                 # a scipy.sparse matrix of this rank's rows
            A.update_values(indptr, indices, data)   # CSR as for from_csr

        data alone follows the entries given to from_csr (indptr, indices, as
        given), or, for a matrix from laplace27 or from_mtx, those of
        to_scipy_local().  The (row, column) pairs must be those the matrix
        was made with (after summing repeats): else OVK_EMISMATCH and the
        values are unchanged; non-finite values: OVK_ENONFINITE.
        Collective."""
        h = self.handle
        check(lib.ovk__py_busy(h, None, b"Matrix.update_values"))  # from a callback: this rank alone, nothing collective
        problem = None
        if indices is None and data is None and hasattr(indptr, "tocsr"):
            csr = indptr.tocsr()
            indptr, indices, data = csr.indptr, csr.indices, csr.data
        if indices is None and data is None:
            data = indptr
            if self._pattern is None:
                self._pattern = self._local_csr()[:2]
            ip, ix = self._pattern
        else:
            ip, p1 = _int_array(indptr, np.int32, "indptr")
            ix, p2 = _int_array(indices if indices is not None else [], np.int64, "indices")
            problem = p1 or p2
        vals = None
        if not problem:
            d = np.asarray(data if data is not None else [])
            if d.ndim != 1 or not (np.issubdtype(d.dtype, np.floating) or np.issubdtype(d.dtype, np.integer)):
                problem = f"data must be a 1-D real array, not {d.ndim}-D {d.dtype}"
            else:
                vals = np.ascontiguousarray(d, dtype=np.float64)
        n = lib.ovk_matrix_nlocal(h)
        if not problem and ip.size != n + 1:
            problem = f"indptr has {ip.size} entries, expected nlocal + 1 = {n + 1}"
        if not problem and (ix.size < int(ip[-1]) or vals.size != ix.size):
            problem = (f"data has {vals.size} entries and indices {ix.size}, for a pattern of "
                       f"{int(ip[-1])} (indptr[-1])")
        agree(lib.ovk__f_matrix_comm(h), problem)
        check(lib.ovk_matrix_update_values(h, ip.ctypes.data_as(_IP), ix.ctypes.data_as(_LP),
                                           vals.ctypes.data_as(_DP), 0))

    def _destroy(self):
        check(lib.ovk_matrix_destroy(self._h))

    def _gc_release(self):
        check(lib.ovk__py_release(self._h, None, None))  # local, as ovk_matrix_destroy is

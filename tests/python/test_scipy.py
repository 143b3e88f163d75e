"""Matrices from SciPy and the solutions against SciPy's."""
import numpy as np
import pytest
import scipy.sparse.linalg as spla

import ovkrylov
from conftest import gather, my_rows, poisson7


@pytest.mark.parametrize("solver", ["alg1", "pipeprcg", "plcg"])
def test_solution_matches_scipy(comm, solver):
    """The rows of a SciPy matrix on each rank (global columns); the gathered
    solution is SciPy's direct solution (and close to scipy.sparse.linalg.cg's)."""
    K = poisson7(9)
    n = K.shape[0]
    lo, hi = my_rows(comm, n)
    b = np.sin(np.arange(n) + 1.0)
    with ovkrylov.Matrix.from_csr(comm, lo, K[lo:hi]) as A:
        assert (A.nglobal, A.row_start, A.nlocal) == (n, lo, hi - lo)
        with ovkrylov.Solver(A, solver=solver, rtol=1e-11, from_options=False) as s:
            x, info = s.solve(b[lo:hi].copy())
    x = gather(comm, x)
    exact = spla.spsolve(K.tocsc(), b)
    assert np.linalg.norm(x - exact) <= 1e-9 * np.linalg.norm(exact)
    if comm.Get_size() == 1:
        xc, rc = spla.cg(K, b, tol=1e-11, atol=0.0, maxiter=1000)
        assert rc == 0 and np.linalg.norm(x - xc) <= 1e-8 * np.linalg.norm(exact)


def test_from_csr_arrays_and_duplicates(comm):
    """indptr/indices/data of other integer widths; repeated entries summed."""
    K = poisson7(5)
    n = K.shape[0]
    lo, hi = my_rows(comm, n)
    L = K[lo:hi].tocoo()
    # every entry split in two halves: the sums are K's
    rows = np.concatenate([L.row, L.row])
    cols = np.concatenate([L.col, L.col]).astype(np.int32)
    vals = np.concatenate([L.data / 2, L.data / 2])
    order = np.argsort(rows, kind="stable")
    indptr = np.searchsorted(rows[order], np.arange(hi - lo + 1)).astype(np.int64)
    b = np.ones(hi - lo)
    with ovkrylov.Matrix.from_csr(comm, lo, indptr, cols[order], vals[order]) as A, \
            ovkrylov.Matrix.from_csr(comm, lo, K[lo:hi]) as B:
        with ovkrylov.Solver(A, from_options=False) as s, ovkrylov.Solver(B, from_options=False) as t:
            x, i1 = s.solve(b)
            y, i2 = t.solve(b)
    assert i1.iterations == i2.iterations and np.allclose(x, y, rtol=1e-12, atol=0)


def test_zero_row_rank(comm):
    """A rank may own no rows (the last rank here, when there are several)."""
    K = poisson7(4)
    n, p, r = K.shape[0], comm.Get_size(), comm.Get_rank()
    bounds = [i * n // max(p - 1, 1) for i in range(p)] + [n] if p > 1 else [0, n]
    lo, hi = bounds[r], bounds[r + 1]
    with ovkrylov.Matrix.from_csr(comm, lo, K[lo:hi]) as A, ovkrylov.Solver(A, from_options=False) as s:
        x, info = s.solve(np.ones(hi - lo))
    assert info.converged
    assert np.allclose(gather(comm, x), spla.spsolve(K.tocsc(), np.ones(n)), rtol=1e-7)


def test_from_mtx(comm):
    import os
    path = os.path.join(os.environ.get("OVK_MATRIX_DIR", ""), "gr_30_30.mtx")
    if not os.path.exists(path):
        pytest.skip(f"{path} absent")
    with ovkrylov.Matrix.from_mtx(comm, path) as A, ovkrylov.Solver(A, rtol=1e-10, from_options=False) as s:
        x, info = s.solve(np.ones(A.nlocal))
        assert info.converged and A.nglobal == 900

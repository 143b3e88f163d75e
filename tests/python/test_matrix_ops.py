"""Matrix.update_values, A @ x / mult, diagonal, to_scipy_local: against SciPy
on the gathered matrix; new values change the solvers' answers."""
import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.linalg as spla

import ovkrylov
from conftest import gather, my_rows, poisson7


def _local(comm, m=6):
    K = poisson7(m)
    lo, hi = my_rows(comm, K.shape[0])
    return K, lo, hi


def test_mult_and_matmul(comm):
    K, lo, hi = _local(comm)
    x = np.sin(np.arange(K.shape[0]) + 1.0)
    with ovkrylov.Matrix.from_csr(comm, lo, K[lo:hi]) as A:
        y = A @ x[lo:hi]
        z = np.empty(hi - lo)
        assert A.mult(x[lo:hi], z) is z
        w = A @ list(x[lo:hi])  # converted
        with pytest.raises(ovkrylov.ArgumentError, match="share memory"):
            A.mult(z, z)
        with pytest.raises(ovkrylov.ArgumentError, match="shape"):
            A @ np.ones(hi - lo + (comm.Get_rank() == comm.Get_size() - 1))  # wrong on the last rank only
    assert np.allclose(gather(comm, y), K @ x, rtol=1e-14, atol=0)
    assert np.array_equal(y, z) and np.array_equal(y, w)


def test_laplace27_to_scipy_and_diagonal(comm):
    with ovkrylov.Matrix.laplace27(comm, 4) as A:
        L = A.to_scipy_local()
        assert L.shape == (A.nlocal, A.nglobal) and L.nnz == A.nnz_local
        assert np.array_equal(A.diagonal(), np.full(A.nlocal, 26.0))
        assert np.array_equal(L.diagonal(A.row_start), A.diagonal())
        x = np.cos(np.arange(A.nlocal) + A.row_start)
        assert np.allclose(L @ gather(comm, x), A @ x, rtol=1e-14, atol=1e-14)
        assert abs(L.sum() - (26 * A.nlocal - (L.nnz - A.nlocal))) < 1e-9  # -1 off the diagonal


def test_update_values_changes_the_answer(comm):
    """K, then 2K + I on the same pattern (data alone, a SciPy matrix, CSR
    arrays): the solver on A follows, without being made again."""
    K, lo, hi = _local(comm)
    n = K.shape[0]
    b = np.ones(n)
    K2 = (2 * K + sp.identity(n)).tocsr()
    K2.sort_indices()
    Kl = K[lo:hi]
    with ovkrylov.Matrix.from_csr(comm, lo, Kl) as A, \
            ovkrylov.Solver(A, precond="ic0", rtol=1e-11, from_options=False) as s:
        x1, _ = s.solve(b[lo:hi])
        assert np.allclose(gather(comm, x1), spla.spsolve(K.tocsc(), b), rtol=1e-8)
        A.update_values(K2[lo:hi].data)  # the pattern from_csr was given (same order)
        assert np.allclose(A.diagonal(), 13.0)
        x2, _ = s.solve(b[lo:hi])
        assert np.allclose(gather(comm, x2), spla.spsolve(K2.tocsc(), b), rtol=1e-8)
        A.update_values(Kl)  # a SciPy matrix
        x3, _ = s.solve(b[lo:hi])
        assert np.allclose(x3, x1, rtol=1e-9)
        L = K2[lo:hi]
        A.update_values(L.indptr, L.indices, L.data)
        assert np.allclose(A.diagonal(), 13.0)
        assert np.allclose(A @ np.ones(hi - lo), L @ np.ones(n))


def test_update_values_of_laplace27_and_amg_reuse(comm):
    """data alone on a matrix the package did not assemble: to_scipy_local's
    order; amg (reuse) follows the new values."""
    with ovkrylov.Matrix.laplace27(comm, 5) as A, \
            ovkrylov.Solver(A, precond="amg", rtol=1e-10, from_options=False) as s:
        b = np.ones(A.nlocal)
        try:
            x1, i1 = s.solve(b)
        except ovkrylov.Error as e:
            if e.name in ("OVK_EOPTION", "OVK_EUNSUPPORTED"):
                pytest.skip("amg not built (no hypre)")
            raise
        L = A.to_scipy_local()
        A.update_values(4.0 * L.data)
        x2, i2 = s.solve(b)
        assert i2.converged and np.allclose(x2, x1 / 4.0, rtol=1e-8)


def test_update_values_errors(comm):
    K, lo, hi = _local(comm, 4)
    with ovkrylov.Matrix.from_csr(comm, lo, K[lo:hi]) as A:
        nnz = K[lo:hi].nnz
        bad = np.ones(nnz + (1 if comm.Get_rank() == 0 else 0))  # wrong on rank 0 only
        with pytest.raises(ovkrylov.ArgumentError, match="data has"):
            A.update_values(bad)
        vals = K[lo:hi].data.copy()
        vals[0] = np.nan if comm.Get_rank() == comm.Get_size() - 1 else vals[0]
        with pytest.raises(ovkrylov.Error) as e:
            A.update_values(vals)
        assert e.value.name == "OVK_ENONFINITE"
        other = (K[lo:hi] + sp.eye(hi - lo, K.shape[0], k=lo + 3)).tocsr()  # a new entry
        with pytest.raises(ovkrylov.Error) as e:
            A.update_values(other)
        assert e.value.name == "OVK_EMISMATCH"
        assert np.allclose(A.diagonal(), 6.0)  # unchanged

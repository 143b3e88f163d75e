"""Solver.solve_many: k systems together give the k single solves' iterations
and solutions; layout errors; check=False."""
import numpy as np
import pytest

import ovkrylov
from conftest import my_rows, poisson7


@pytest.mark.parametrize("solver", ["alg1", "cg1", "pipecg"])
def test_many_as_single_solves(comm, solver):
    K = poisson7(8)
    lo, hi = my_rows(comm, K.shape[0])
    k = 5
    rng = np.random.default_rng(7)
    Bfull = rng.random((k, K.shape[0]))
    B = np.ascontiguousarray(Bfull[:, lo:hi])
    with ovkrylov.Matrix.from_csr(comm, lo, K[lo:hi]) as A, \
            ovkrylov.Solver(A, solver=solver, rtol=1e-9, backend="nbc", from_options=False) as s:
        X, infos = s.solve_many(B)
        singles = [s.solve(B[j]) for j in range(k)]
        Bt = np.asfortranarray(B.T)  # one column per system: its transpose is (k, nlocal), no copy
        Y, _ = s.solve_many(Bt.T)
    assert X.shape == B.shape and len(infos) == k
    for j, (x, info) in enumerate(singles):
        assert infos[j].converged and infos[j].status == 0
        assert infos[j].iterations == info.iterations, f"system {j}"
        assert np.allclose(X[j], x, rtol=1e-10, atol=1e-12)
    assert np.array_equal(X, Y)
    assert infos[0].history.size == infos[0].iterations + 1 and infos[1].history.size == 0
    assert infos[0].reductions == infos[k - 1].reductions  # the batch's


def test_many_x0_and_check_false(comm, laplace):
    n = laplace.nlocal
    B = np.stack([np.ones(n), 2 * np.ones(n)])
    with ovkrylov.Solver(laplace, from_options=False) as s:
        X, infos = s.solve_many(B)
        X2, again = s.solve_many(B, X0=X)
        assert all(i.iterations <= 1 for i in again) and np.allclose(X2, X)
    with ovkrylov.Solver(laplace, max_it=2, from_options=False) as s:
        with pytest.raises(ovkrylov.Error) as e:
            s.solve_many(B)
        assert e.value.name == "OVK_EMAXIT" and len(e.value.info) == 2 and e.value.x.shape == B.shape
        X, infos = s.solve_many(B, check=False)
        assert [i.reason for i in infos] == ["iteration limit"] * 2
        assert infos[0].status == ovkrylov.STATUS["OVK_EMAXIT"]


def test_many_bad_arguments_everywhere(comm, laplace):
    n = laplace.nlocal
    last = comm.Get_rank() == comm.Get_size() - 1
    with ovkrylov.Solver(laplace, from_options=False) as s:
        for B, words in ((np.ones(n), "shape"), (np.ones((2, n), dtype=np.float32), "float32"),
                         (np.ones((n, 2)).T, "C-contiguous" if n != 2 else "shape"), ([np.ones(n)], "ndarray")):
            with pytest.raises(ovkrylov.ArgumentError, match=words):
                s.solve_many(B)
        # k differs on one rank: refused on every rank, before the solve
        k = 3 if last and comm.Get_size() > 1 else 2
        if comm.Get_size() > 1:
            with pytest.raises(ovkrylov.ArgumentError, match="systems"):
                s.solve_many(np.ones((k, n)))
        X, infos = s.solve_many(np.ones((2, n)))  # the solver goes on
        assert all(i.converged for i in infos)

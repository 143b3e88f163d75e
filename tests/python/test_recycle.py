"""Option recycle from Python: rpipecg keeps its space across solves (a second
solve of the same matrix takes fewer iterations), Solver.recycle_reset drops
it (the next solve is a fresh one), and a solver that keeps no space refuses
the option at setup, naming rpipecg."""
import numpy as np
import pytest

import ovkrylov
from conftest import my_rows, poisson7


def test_recycle_sequence_and_reset(comm):
    K = poisson7(10)
    lo, hi = my_rows(comm, K.shape[0])
    rng = np.random.default_rng(3)
    b1, b2 = rng.random(K.shape[0])[lo:hi], rng.random(K.shape[0])[lo:hi]
    with ovkrylov.Matrix.from_csr(comm, lo, K[lo:hi]) as A, \
            ovkrylov.Solver(A, solver="rpipecg", recycle=4, rtol=1e-9, from_options=False) as s:
        _, first = s.solve(b1)
        _, second = s.solve(b2)
        s.recycle_reset()
        _, third = s.solve(b1)
    assert first.converged and second.converged and third.converged
    assert second.iterations < first.iterations
    assert third.iterations == first.iterations


def test_recycle_refused_by_pipecg(comm, laplace):
    with ovkrylov.Solver(laplace, solver="pipecg", recycle=3, from_options=False) as s:
        with pytest.raises(ovkrylov.Error, match="rpipecg"):
            s.setup()

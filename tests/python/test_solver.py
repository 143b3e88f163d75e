"""Options, the options database, view, the result, the split-phase reductions."""
import numpy as np
import pytest

import ovkrylov


def test_info(comm, laplace):
    with ovkrylov.Solver(laplace, solver="cg1", rtol=1e-6, condest=True, from_options=False) as s:
        assert s.get_option("solver") == "cg1" and float(s.get_option("rtol")) == 1e-6
        x, info = s.solve(np.ones(laplace.nlocal))
    assert info.converged and info.status == 0 and info.residual < 1e-6
    assert info.history.shape == (info.iterations + 1,) and info.history[-1] < info.history[0]
    assert info.times["solve"] > 0 and info.setup_time >= 0 and info.reductions > 0
    assert 0 < info.lambda_min < info.lambda_max


def test_x0_and_inplace(comm, laplace):
    b = np.ones(laplace.nlocal)
    with ovkrylov.Solver(laplace, from_options=False) as s:
        x, info = s.solve(b)
        x0 = x.copy()
        y, again = s.solve(b, x0=x0)
        assert y is not x0 and again.iterations <= 1 and np.array_equal(x0, x)
        z = np.zeros_like(b)
        w, _ = s.solve(b, x0=z, inplace=True)
        assert w is z and np.allclose(z, x)


def test_options_database(comm, laplace):
    rest = ovkrylov.options(["prog", "-ovk_solver", "groppcg", "-other", "-p_ovk_rtol", "1e-5"])
    try:
        assert rest == ["prog", "-other"]
        with ovkrylov.Solver(laplace, solver="alg1") as s:  # the database overrides the keyword
            assert s.get_option("solver") == "groppcg"
            assert "groppcg" in s.view()
        with ovkrylov.Solver(laplace, prefix="p_") as s:
            assert float(s.get_option("rtol")) == 1e-5
    finally:
        ovkrylov.options(["prog"])


@pytest.mark.parametrize("backend", ["blocking", "native", "nbc"])
def test_dot_start_wait(comm, backend):
    rng = np.random.default_rng(comm.Get_rank())
    x, y = rng.random(50), rng.random(50)
    with ovkrylov.Reducer(comm, backend) as red:
        assert red.spec.startswith(backend)
        req = ovkrylov.dot_start(red, x, y)
        req2 = ovkrylov.dot_start(red, [x, y], [x, x])
        req2.test()
        d = ovkrylov.wait(req)
        d2 = ovkrylov.wait(req2)
        m = ovkrylov.wait(ovkrylov.reduce_start(red, [comm.Get_rank(), -comm.Get_rank()], op="max"))
        with pytest.raises(ovkrylov.ArgumentError):
            req.wait()
    assert d == pytest.approx(comm.allreduce(x @ y), rel=1e-13)
    assert d2 == pytest.approx([comm.allreduce(x @ x), comm.allreduce(y @ x)], rel=1e-13)
    assert list(m) == [comm.Get_size() - 1, 0]


def test_no_leak(comm):
    """1,000 create/solve/destroy cycles of a solver (and of a matrix every
    10th): the resident set grows by less than 4 MB after the first 100."""
    def rss_kb():
        with open("/proc/self/status") as f:
            return next(int(line.split()[1]) for line in f if line.startswith("VmRSS:"))
    b = np.ones(27)
    before = None
    A = None
    for i in range(1000):
        if i == 100:
            before = rss_kb()
        if i % 10 == 0:
            if A:
                A.close()
            A = ovkrylov.Matrix.laplace27(comm, 3)
        with ovkrylov.Solver(A, from_options=False) as s:
            s.solve(b)
    A.close()
    grown = rss_kb() - before
    assert grown < 4096, f"RSS grew by {grown} kB over 900 cycles"

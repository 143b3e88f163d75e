"""Python callbacks: a matrix-free operator, a preconditioner, a monitor; an
exception raised in one (on one rank) fails the solve on every rank."""
import numpy as np
import pytest

import ovkrylov
from conftest import my_rows, poisson7


class Poisson:
    """y = K x on this rank's rows, the halo through an allgather."""

    def __init__(self, comm, m=8):
        self.comm = comm
        self.K = poisson7(m)
        self.n = self.K.shape[0]
        self.lo, self.hi = my_rows(comm, self.n)
        self.rows = self.K[self.lo:self.hi]
        self.calls = 0

    def __call__(self, x, y):
        self.calls += 1
        y[:] = self.rows @ np.concatenate(self.comm.allgather(x))


def test_operator_matches_assembled(comm):
    op = Poisson(comm)
    b = np.ones(op.hi - op.lo)
    with ovkrylov.Solver.operator(comm, op.hi - op.lo, op, precond="none", rtol=1e-10,
                                  from_options=False) as s:
        x, info = s.solve(b)
    with ovkrylov.Matrix.from_csr(comm, op.lo, op.rows) as A, \
            ovkrylov.Solver(A, precond="none", rtol=1e-10, from_options=False) as t:
        y, ref = t.solve(b)
    assert info.converged and op.calls >= info.iterations
    assert abs(info.iterations - ref.iterations) <= 1
    assert np.allclose(x, y, rtol=1e-8, atol=0)


@pytest.mark.parametrize("solver", ["alg1", "pipecg", "pipeprcg"])
def test_python_jacobi_as_the_library(comm, laplace, solver):
    d = np.full(laplace.nlocal, 26.0)  # the 27-point Laplacian's diagonal

    def jacobi(r, z):
        z[:] = r / d

    with ovkrylov.Solver(laplace, solver=solver, precond=jacobi, from_options=False) as s:
        x, info = s.solve(np.ones(laplace.nlocal))
    with ovkrylov.Solver(laplace, solver=solver, precond="jacobi", from_options=False) as t:
        y, ref = t.solve(np.ones(laplace.nlocal))
    assert abs(info.iterations - ref.iterations) <= 1 and np.allclose(x, y, rtol=1e-7)


def test_monitor_sees_the_history(comm, laplace):
    seen = []
    with ovkrylov.Solver(laplace, monitor=lambda it, rnorm, rel: seen.append((it, rnorm)),
                         from_options=False) as s:
        x, info = s.solve(np.ones(laplace.nlocal))
    assert [it for it, _ in seen] == list(range(info.iterations + 1))
    assert np.array_equal([r for _, r in seen], info.history)
    assert comm.allgather(len(seen)) == [len(seen)] * comm.Get_size()


def test_monitor_stops(comm, laplace):
    with ovkrylov.Solver(laplace, monitor=lambda it, rnorm, rel: it >= 3, from_options=False) as s:
        with pytest.raises(ovkrylov.Error) as e:
            s.solve(np.ones(laplace.nlocal))
    assert e.value.name == "OVK_ESTOPPED" and e.value.info.reason == "stopped by the monitor"
    assert e.value.x.shape == (laplace.nlocal,)


class Boom(Exception):
    pass


def _fails_on_last_rank(comm, inner, at=4):
    """A callback that raises Boom on the last rank at its at-th call, after
    its communication (the operator's halo exchange: the peers' calls wait
    for it, solver.h)."""
    calls = [0]

    def cb(*args):
        calls[0] += 1
        out = inner(*args)
        if comm.Get_rank() == comm.Get_size() - 1 and calls[0] == at:
            raise Boom("on purpose")
        return out
    return cb


def _expect_failure(comm, s, b, name):
    with pytest.raises(ovkrylov.Error) as e:
        s.solve(b)
    assert e.value.name == name
    last = comm.Get_rank() == comm.Get_size() - 1
    assert isinstance(e.value.__cause__, Boom) == last  # the Python exception where it was raised
    # the object still works: a solve without the failing call
    return e.value


def test_operator_exception_fails_everywhere(comm):
    op = Poisson(comm)
    f = _fails_on_last_rank(comm, op)
    with ovkrylov.Solver.operator(comm, op.hi - op.lo, f, precond="none", from_options=False) as s:
        _expect_failure(comm, s, np.ones(op.hi - op.lo), "OVK_ECALLBACK")
        x, info = s.solve(np.ones(op.hi - op.lo))  # the callback raises only once
        assert info.converged


def test_precond_exception_fails_everywhere(comm, laplace):
    def jacobi(r, z):
        z[:] = r / 26.0
    with ovkrylov.Solver(laplace, solver="pipeprcg", precond=_fails_on_last_rank(comm, jacobi),
                         from_options=False) as s:
        _expect_failure(comm, s, np.ones(laplace.nlocal), "OVK_ECALLBACK")


def test_monitor_exception_fails_everywhere(comm, laplace):
    with ovkrylov.Solver(laplace, monitor=_fails_on_last_rank(comm, lambda *a: False), from_options=False) as s:
        e = _expect_failure(comm, s, np.ones(laplace.nlocal), "OVK_ESTOPPED")
        assert e.info.reason == "stopped by the monitor"


def test_progress_and_close_from_a_callback(comm, laplace):
    """A callback may call progress(); close() from inside is refused (OVK_EBUSY)."""
    s = ovkrylov.Solver(laplace, solver="pipecg", backend="nbc", from_options=False)
    refused = []

    def jacobi(r, z):
        s.progress()
        if not refused:
            with pytest.raises(ovkrylov.Error) as e:
                s.close()
            refused.append(e.value.name)
        z[:] = r / 26.0
    s.set_options(precond=jacobi)
    x, info = s.solve(np.ones(laplace.nlocal))
    s.close()
    assert info.converged and refused == ["OVK_EBUSY"]


class Laplace1D:
    """The 1-D Laplacian [-1 2 -1] on nlocal rows per rank, its halo (one value
    each side) exchanged with mpi4py's buffer interface on the arrays the
    library passes (comm.Sendrecv(x[:1], ...)): they must be plain float64."""

    def __init__(self, comm, nlocal):
        self.comm, self.n = comm, nlocal
        r, p = comm.Get_rank(), comm.Get_size()
        from mpi4py import MPI
        self.left = r - 1 if r > 0 else MPI.PROC_NULL
        self.right = r + 1 if r < p - 1 else MPI.PROC_NULL
        self.ghost = np.zeros(2)

    def __call__(self, x, y):
        assert x.dtype == np.float64 and memoryview(x).format == "d"
        g = self.ghost
        g[:] = 0.0
        self.comm.Sendrecv(x[:1], dest=self.left, recvbuf=g[1:], source=self.right)
        self.comm.Sendrecv(x[-1:], dest=self.right, recvbuf=g[:1], source=self.left)
        y[:] = 2.0 * x
        y[1:] -= x[:-1]
        y[:-1] -= x[1:]
        y[0] -= g[0]
        y[-1] -= g[1]


def test_operator_halo_exchange_with_mpi4py_buffers(comm):
    """A matrix-free operator doing its own halo exchange (issue: KeyError '<d')."""
    nl = 40
    op = Laplace1D(comm, nl)
    n, lo = nl * comm.Get_size(), nl * comm.Get_rank()
    b = np.sin(np.arange(lo, lo + nl) * 0.1) + 1.0
    with ovkrylov.Solver.operator(comm, nl, op, precond="none", rtol=1e-10, from_options=False) as s:
        x, info = s.solve(b)
    rows = [(i, j, 2.0 if i == j else -1.0) for i in range(lo, lo + nl) for j in (i - 1, i, i + 1) if 0 <= j < n]
    indptr = np.searchsorted([r for r, _, _ in rows], np.arange(lo, lo + nl + 1))
    with ovkrylov.Matrix.from_csr(comm, lo, indptr, [c for _, c, _ in rows], [v for _, _, v in rows]) as A, \
            ovkrylov.Solver(A, precond="none", rtol=1e-10, from_options=False) as t:
        y, ref = t.solve(b)
    assert info.converged and info.iterations == ref.iterations
    assert np.allclose(x, y, rtol=1e-9, atol=0)


def test_precond_arrays_are_mpi4py_buffers(comm, laplace):
    """The preconditioner's arrays too: a global Allreduce on them works."""
    from mpi4py import MPI
    seen = []

    def jacobi(r, z):
        z[:] = r / 26.0
        total = np.zeros(1)
        comm.Allreduce(z[:1], total, op=MPI.SUM)
        seen.append(total[0])
    with ovkrylov.Solver(laplace, precond=jacobi, from_options=False) as s:
        x, info = s.solve(np.ones(laplace.nlocal))
    assert info.converged and len(seen) >= info.iterations

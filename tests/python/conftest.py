"""Shared fixtures of the Python package's tests (run under mpiexec by run.sh)."""
import os

import numpy as np
import pytest
import scipy.sparse as sp
from mpi4py import MPI

import ovkrylov


@pytest.fixture
def comm():
    return MPI.COMM_WORLD


def reference_cases():
    """The C driver's results at this rank count: (solver, precond, backend, exit, iterations, residual)."""
    path = os.environ.get("OVK_PY_REFERENCE")
    if not path:
        return []
    rows = []
    with open(path) as f:
        for line in f:
            s, p, b, rc, its, res = line.split()
            rows.append((s, p, b, int(rc), None if its == "-" else int(its), None if res == "-" else float(res)))
    return rows


def poisson7(m):
    """The 7-point 3-D Poisson matrix on an m x m x m grid (Dirichlet), CSR."""
    t = sp.diags([-np.ones(m - 1), 2 * np.ones(m), -np.ones(m - 1)], [-1, 0, 1])
    e = sp.identity(m)
    return (sp.kron(sp.kron(t, e), e) + sp.kron(sp.kron(e, t), e) + sp.kron(sp.kron(e, e), t)).tocsr()


def my_rows(comm, n):
    """This rank's balanced block of rows [lo, hi) of n."""
    r, p = comm.Get_rank(), comm.Get_size()
    return r * n // p, (r + 1) * n // p


def gather(comm, x):
    return np.concatenate(comm.allgather(x))


@pytest.fixture
def laplace(comm):
    A = ovkrylov.Matrix.laplace27(comm, 6)
    yield A
    A.close()


@pytest.fixture
def deadline():
    """A hang ends the process (and so mpiexec's job) after 60 s, with every
    thread's traceback, instead of waiting for ctest's timeout."""
    import faulthandler
    faulthandler.dump_traceback_later(60, exit=True)
    yield
    faulthandler.cancel_dump_traceback_later()

"""Lifetimes: a solver keeps its matrix alive (Matrix.close() while a solver
is open is deferred to the solver's close), whatever order the ranks close
in; each test ends a hang after 60 s (the deadline fixture)."""
import numpy as np
import pytest

import ovkrylov


def test_with_idiom(comm, deadline):
    """The matrix's `with` ends before the solver is used (issue: a hang)."""
    with ovkrylov.Matrix.laplace27(comm, 4) as A:
        s = ovkrylov.Solver(A, from_options=False)
    with pytest.raises(ovkrylov.ArgumentError, match="closed"):
        A.nlocal  # closed for the program ...
    x, info = s.solve(np.ones(s.nlocal))  # ... alive for its solver
    assert info.converged
    s.close()
    assert A._h is None  # destroyed by the solver's close


def test_close_out_of_order_on_one_rank(comm, deadline):
    """Rank 0 closes the matrix first, the others the solver first; two
    solvers on one matrix: the matrix goes with the last."""
    A = ovkrylov.Matrix.laplace27(comm, 4)
    s = ovkrylov.Solver(A, from_options=False)
    t = ovkrylov.Solver(A, solver="cg1", from_options=False)
    if comm.Get_rank() == 0:
        A.close()
        A.close()  # twice: nothing more
    x, info = s.solve(np.ones(s.nlocal))
    s.close()
    if comm.Get_rank() != 0:
        A.close()
    assert A._h is not None  # t still uses it on every rank
    y, info2 = t.solve(np.ones(t.nlocal))
    t.close()
    assert A._h is None and info.converged and info2.converged and np.allclose(x, y, rtol=1e-7)
    with pytest.raises(ovkrylov.ArgumentError, match="closed"):
        ovkrylov.Solver(A)


def test_closed_matrix_refuses_everything(comm, deadline):
    A = ovkrylov.Matrix.laplace27(comm, 3)
    s = ovkrylov.Solver(A, from_options=False)
    A.close()
    for call in (lambda: A @ np.ones(27), lambda: A.update_values(np.ones(10)), A.diagonal, A.to_scipy_local,
                 lambda: ovkrylov.Solver(A)):
        with pytest.raises(ovkrylov.ArgumentError, match="closed"):
            call()
    s.close()


def test_failed_solver_does_not_hold(comm, deadline):
    """A solver whose creation failed (a bad option) leaves the matrix free."""
    A = ovkrylov.Matrix.laplace27(comm, 3)
    with pytest.raises(ovkrylov.Error):
        ovkrylov.Solver(A, no_such_option=1, from_options=False)
    A.close()
    assert A._h is None


def test_new_solver_on_a_matrix_closed_on_one_rank(comm, deadline):
    """Rank 0 closed the matrix (kept for its open solver), the others did
    not: a new Solver on it is refused on every rank, no rank waits."""
    A = ovkrylov.Matrix.laplace27(comm, 3)
    s = ovkrylov.Solver(A, from_options=False)
    if comm.Get_rank() == 0:
        A.close()
    with pytest.raises(ovkrylov.ArgumentError, match="closed"):
        ovkrylov.Solver(A, from_options=False)
    s.close()
    A.close()
    assert A._h is None

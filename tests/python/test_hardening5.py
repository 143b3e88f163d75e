"""Hardening, fifth round (objects, callbacks, options): calls from a callback
on one rank are OVK_EBUSY there with nothing collective; a monitor raising on
one rank with check=False fails the solve on every rank; complex vectors and
unknown solver names refused at the call; objects dropped without close()
release what they hold."""
import gc
import warnings

import numpy as np
import pytest

import ovkrylov


def _on_last_rank(comm):
    return comm.Get_rank() == comm.Get_size() - 1


@pytest.mark.parametrize("call", ["update_values", "set_nullspace"])
def test_changes_from_a_callback_on_one_rank(comm, laplace, deadline, call):
    """Issue: a hang (the argument agreement ran before the busy check)."""
    data = laplace.to_scipy_local().data
    refused = []

    def monitor(it, rnorm, rel):
        if it == 1 and _on_last_rank(comm) and not refused:
            with pytest.raises(ovkrylov.Error) as e:
                if call == "update_values":
                    laplace.update_values(data)
                else:
                    s.set_nullspace(True)
            refused.append(e.value.name)
        return False
    with ovkrylov.Solver(laplace, monitor=monitor, from_options=False) as s:
        x, info = s.solve(np.ones(laplace.nlocal))
    assert info.converged
    assert refused == (["OVK_EBUSY"] if _on_last_rank(comm) else [])


@pytest.mark.parametrize("solver", ["alg1", "gmres", "idrs", "bicgstab", "pipeidrs"])
def test_monitor_raising_on_one_rank_check_false(comm, laplace, deadline, solver):
    """Issue: that rank raised, the others returned normally."""
    class Boom(Exception):
        pass

    def monitor(it, rnorm, rel):
        if it == 2 and _on_last_rank(comm):
            raise Boom("on the last rank")
        return False
    with ovkrylov.Solver(laplace, solver=solver, monitor=monitor, from_options=False) as s:
        with pytest.raises(ovkrylov.Error) as e:
            s.solve(np.ones(laplace.nlocal), check=False)
        assert e.value.name == "OVK_ESTOPPED"
        assert isinstance(e.value.__cause__, Boom) == _on_last_rank(comm)
        if not _on_last_rank(comm):
            assert "Boom: on the last rank" in e.value.detail
        s.set_options(monitor=lambda *a: False)
        x, info = s.solve(np.ones(laplace.nlocal), check=False)  # the object still works
        assert info.converged


def test_complex_vector_refused(comm, laplace):
    """Issue: A @ x with complex x dropped the imaginary part."""
    x = np.ones(laplace.nlocal) * (1 + 2j)
    with pytest.raises(ovkrylov.ArgumentError, match="complex"):
        laplace @ x
    with pytest.raises(ovkrylov.ArgumentError, match="complex"):
        laplace.mult(x)


def test_unknown_solver_refused_at_the_call(comm, laplace):
    """Issue: set_options(solver="cgg") erred only at the next solve."""
    with ovkrylov.Solver(laplace, from_options=False) as s:
        with pytest.raises(ovkrylov.Error, match="cgg"):
            s.set_options(solver="cgg")
        x, info = s.solve(np.ones(laplace.nlocal))
        assert info.converged


def test_dropped_objects_are_released(comm, deadline):
    """Issue: objects dropped without close() kept their communicators (MPI
    ran out).  5,000 dropped at moments that differ between ranks (rank 0 at
    once, the others 250 or 100 at a time; the solvers' cycles collected
    every 20 or 100): each released by the garbage collector (its
    ResourceWarning), then the program goes on."""
    rank = comm.Get_rank()
    held = []
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        for i in range(4800):
            held.append(ovkrylov.Matrix.laplace27(comm, 2))
            if rank == 0 or len(held) == 250:
                held.clear()
        with ovkrylov.Matrix.laplace27(comm, 2) as A:
            for i in range(200):  # set up: a reducer each, nbc's on a private communicator
                s = ovkrylov.Solver(A, solver="cg1", backend="nbc" if i % 2 else "blocking", from_options=False)
                s.setup()
                held.append(s)
                if rank == 0 or len(held) == 100:
                    held.clear()
                if i % (20 if rank == 0 else 100) == 19:
                    gc.collect()  # a solver's callbacks make a cycle
            del s
            held.clear()
            gc.collect()
    released = [w for w in seen if issubclass(w.category, ResourceWarning) and "released" in str(w.message)]
    assert len(released) == 5000, [str(w.message) for w in seen if w not in released][:3]
    with ovkrylov.Matrix.laplace27(comm, 4) as A, ovkrylov.Solver(A, from_options=False) as s:
        x, info = s.solve(np.ones(A.nlocal))
    assert info.converged

"""Every solver and preconditioner through Python: the iterations and residual
of the C driver (build/examples/ovk_laplace27 -n 8 8 8, right-hand side ones,
x0 = 0) at the same rank count."""
import numpy as np
import pytest

import ovkrylov
from conftest import reference_cases

CASES = reference_cases()


@pytest.mark.skipif(not CASES, reason="no reference file ($OVK_PY_REFERENCE; tests/python/run.sh writes it)")
@pytest.mark.parametrize("solver,precond,backend,rc,its,res", CASES,
                         ids=[f"{c[0]}-{c[1]}-{c[2]}" for c in CASES] or None)
def test_as_the_c_driver(comm, solver, precond, backend, rc, its, res):
    with ovkrylov.Matrix.laplace27(comm, 8) as A:
        with ovkrylov.Solver(A, solver=solver, precond=precond, backend=backend, from_options=False) as s:
            if rc != 0:  # the driver failed (amg without hypre): so must Python, with an Error
                with pytest.raises(ovkrylov.Error):
                    s.solve(np.ones(A.nlocal))
                return
            x, info = s.solve(np.ones(A.nlocal))
    assert info.iterations == its
    assert info.residual == pytest.approx(res, rel=1e-6)  # the driver prints 7 digits
    assert info.reason == "converged" and info.residual < 1e-8


def test_auto_converges(comm):
    """auto measures the machine at setup (its choice varies): it converges."""
    with ovkrylov.Matrix.laplace27(comm, 8) as A, ovkrylov.Solver(A, solver="auto", from_options=False) as s:
        x, info = s.solve(np.ones(A.nlocal))
        assert info.converged and info.residual < 1e-8 and info.auto_choice

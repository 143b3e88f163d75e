"""Bad input: clear Python exceptions, on every rank alike, before the library
is called; the library's statuses as ovkrylov.Error with code, name and detail."""
import numpy as np
import pytest

import ovkrylov


@pytest.mark.parametrize("make,words", [
    (lambda n: np.ones(n, dtype=np.float32), "dtype float32"),
    (lambda n: np.ones(n + 1), "shape"),
    (lambda n: np.ones(2 * n)[::2], "not contiguous"),
    (lambda n: np.ones((n, 1)), "shape"),
    (lambda n: list(np.ones(n)), "numpy.ndarray"),
])
def test_bad_vector_everywhere(comm, laplace, make, words):
    with ovkrylov.Solver(laplace, from_options=False) as s:
        with pytest.raises(ovkrylov.ArgumentError, match=words):
            s.solve(make(laplace.nlocal))
        with pytest.raises(ValueError):
            s.solve(np.ones(laplace.nlocal), x0=make(laplace.nlocal))


def test_bad_vector_on_one_rank_fails_every_rank(comm, laplace):
    """Only rank 0's b is wrong: every rank raises (no rank enters the solve alone)."""
    n = laplace.nlocal
    b = np.ones(n, dtype=np.float32) if comm.Get_rank() == 0 else np.ones(n)
    with ovkrylov.Solver(laplace, from_options=False) as s:
        with pytest.raises(ovkrylov.ArgumentError) as e:
            s.solve(b)
        assert e.value.code == ovkrylov.STATUS["OVK_EINVAL"] and "float32" in e.value.detail
        x, info = s.solve(np.ones(n))  # and the solver goes on
        assert info.converged


def test_closed_communicator(comm):
    dup = comm.Dup()
    dup.Free()
    with pytest.raises(ovkrylov.ArgumentError, match="COMM_NULL"):
        ovkrylov.Matrix.laplace27(dup, 4)
    with pytest.raises(TypeError):
        ovkrylov.Matrix.laplace27("world", 4)


def test_use_after_close(comm):
    A = ovkrylov.Matrix.laplace27(comm, 4)
    s = ovkrylov.Solver(A, from_options=False)
    s.close()
    s.close()  # a second close does nothing
    with pytest.raises(ovkrylov.ArgumentError, match="closed"):
        s.solve(np.ones(A.nlocal))
    with pytest.raises(ovkrylov.ArgumentError, match="closed"):
        s.view()
    A.close()
    with pytest.raises(ovkrylov.ArgumentError, match="closed"):
        A.nlocal
    with pytest.raises(ovkrylov.ArgumentError, match="closed"):
        ovkrylov.Solver(A)


def test_library_statuses(comm, laplace):
    with pytest.raises(ovkrylov.Error) as e:
        ovkrylov.Solver(laplace, no_such_option=1, from_options=False)
    assert e.value.name == "OVK_EOPTION" and "no_such_option" in str(e.value)
    with pytest.raises(ovkrylov.Error) as e:  # a solver's name at the call, on every rank
        ovkrylov.Solver(laplace, solver="nosuch", from_options=False)
    assert e.value.name == "OVK_EOPTION" and "nosuch" in e.value.detail
    with ovkrylov.Solver(laplace, precond="nosuch", from_options=False) as s:  # a preconditioner's at setup
        with pytest.raises(ovkrylov.Error) as e:
            s.solve(np.ones(laplace.nlocal))
        assert e.value.name == "OVK_EOPTION" and "nosuch" in e.value.detail
    with ovkrylov.Solver(laplace, max_it=2, from_options=False) as s:
        with pytest.raises(ovkrylov.Error) as e:
            s.solve(np.ones(laplace.nlocal))
        assert e.value.name == "OVK_EMAXIT" and e.value.info.iterations == 2
        assert e.value.code == ovkrylov.STATUS["OVK_EMAXIT"] and e.value.info.reason == "iteration limit"
    with pytest.raises(ovkrylov.Error) as e:
        ovkrylov.Matrix.from_mtx(comm, "/nonexistent/matrix.mtx")
    assert e.value.name == "OVK_EFILE" and "nonexistent" in e.value.detail


def test_bad_csr(comm):
    lo, n = comm.Get_rank() * 2, 2 * comm.Get_size()
    indptr = np.array([0, 1, 2])
    data = np.array([1.0, 1.0])
    with pytest.raises(ovkrylov.Error) as e:  # a column outside the matrix
        ovkrylov.Matrix.from_csr(comm, lo, indptr, np.array([lo, n + 5]), data)
    assert e.value.name == "OVK_ECOLUMN"
    with pytest.raises(ovkrylov.ArgumentError, match="indices has"):
        ovkrylov.Matrix.from_csr(comm, lo, indptr, np.array([lo, lo + 1, lo]), data)
    with pytest.raises(ovkrylov.ArgumentError, match="integers"):
        ovkrylov.Matrix.from_csr(comm, lo, indptr, np.array([lo, lo + 1.0]), data)
    with pytest.raises(ovkrylov.Error) as e:  # rows that do not tile the range
        ovkrylov.Matrix.from_csr(comm, lo + 1, indptr, np.array([lo + 1, lo + 1]), data)
    assert e.value.name in ("OVK_EPARTITION", "OVK_ECOLUMN")


def test_operator_bad_arguments(comm):
    with pytest.raises(ovkrylov.ArgumentError, match="callable"):
        ovkrylov.Solver.operator(comm, 4, None)
    with pytest.raises(ovkrylov.Error):
        ovkrylov.Solver.operator(comm, -1, lambda x, y: None)


def test_indices_past_int64_and_nlocal_past_int(comm):
    """uint64 columns >= 2^63 named as they are (not wrapped); nlocal >= 2^31
    refused before the library (not wrapped to a negative int)."""
    lo = comm.Get_rank()
    with pytest.raises(ovkrylov.ArgumentError, match="9223372036854775817"):
        ovkrylov.Matrix.from_csr(comm, lo, [0, 1], np.array([2**63 + 9], dtype=np.uint64), [1.0])
    with pytest.raises(ovkrylov.ArgumentError, match="2147483648"):
        ovkrylov.Solver.operator(comm, 2**31, lambda x, y: None)


def test_check_false_returns_the_reason(comm, laplace):
    with ovkrylov.Solver(laplace, max_it=2, from_options=False) as s:
        x, info = s.solve(np.ones(laplace.nlocal), check=False)
        assert info.reason == "iteration limit" and not info.converged
        assert info.status == ovkrylov.STATUS["OVK_EMAXIT"] and x.shape == (laplace.nlocal,)
        text = repr(info)
        assert "\n" not in text and len(text) < 120 and "iteration limit" in text
        with pytest.raises(ovkrylov.ArgumentError):  # argument errors still raise
            s.solve(np.ones(3), check=False)
    with ovkrylov.Solver(laplace, precond="nosuch", from_options=False) as s:
        with pytest.raises(ovkrylov.Error):  # so do option errors
            s.solve(np.ones(laplace.nlocal), check=False)


def test_version_is_the_libraries():
    """ovkrylov.__version__ is include/ovkrylov/ovkrylov.h's (the C library's)."""
    import pathlib
    import re
    h = (pathlib.Path(__file__).resolve().parents[2] / "include" / "ovkrylov" / "ovkrylov.h").read_text()
    parts = [re.search(rf"#define OVK_VERSION_{p} +([0-9]+)", h) for p in ("MAJOR", "MINOR", "PATCH")]
    assert all(parts) and ovkrylov.__version__ == ".".join(m.group(1) for m in parts)


def test_nul_in_strings_refused(comm, laplace):
    """A NUL inside a string is refused (OVK_EOPTION), not cut short: 'scg:s=4\\x00junk'
    ran scg:s=4."""
    with pytest.raises(ovkrylov.Error, match="NUL") as e:
        ovkrylov.Solver(laplace, solver="scg:s=4\x00junk", from_options=False)
    assert e.value.name == "OVK_EOPTION"
    with ovkrylov.Solver(laplace, from_options=False) as s:
        with pytest.raises(ovkrylov.Error, match="NUL"):
            s.set_options(precond="jacobi\x00")
        assert s.get_option("precond") != "jacobi\x00"
    with pytest.raises(ovkrylov.Error, match="NUL"):
        ovkrylov.Reducer(comm, "native\x00:persistent=1")

"""The keys the package takes come from the library (the option table and the
info keys), and the one struct it mirrors is checked against the library's
layout."""
import ctypes

import numpy as np
import pytest

import ovkrylov
from ovkrylov import _lib


def test_option_keys_are_the_library_table(laplace):
    keys = ovkrylov.option_keys()
    assert len(keys) == _lib.lib.ovk_solver_option_count() >= 10
    assert all(keys.values())  # a line of help each
    with ovkrylov.Solver(laplace, from_options=False) as s:
        for k in keys:  # every key the package lists, the library reads back
            assert isinstance(s.get_option(k), str)
        s.set_options(rtol=1e-9)
        assert float(s.get_option("rtol")) == 1e-9


def test_unknown_keyword_names_the_library_keys(laplace):
    with pytest.raises(ovkrylov.Error) as e:
        ovkrylov.Solver(laplace, rtoll=1e-6, from_options=False)
    assert e.value.name == "OVK_EOPTION" and "rtoll" in e.value.detail
    assert all(k in e.value.detail for k in ovkrylov.option_keys())


def test_solver_info_from_the_library(comm, laplace):
    b = np.ones(laplace.nlocal)
    with ovkrylov.Solver(laplace, solver="alg1", rtol=1e-8, from_options=False) as s:
        before = s.solver_info()
        assert set(before) == set(_lib.INFO_KEYS) and before["auto_choice"] == ""
        x, info = s.solve(b)
        assert info.converged and info.auto_choice == ""
        assert set(info.extra) == set(_lib.INFO_KEYS) - {"auto_choice"}
        extra = dict(info.extra)  # rhs_norm: ||b|| of every solve; the others: of auto or a null space
        assert extra.pop("rhs_norm") == pytest.approx(np.sqrt(comm.allreduce(laplace.nlocal)), rel=1e-14)
        assert all(v == 0.0 for v in extra.values())
        buf = ctypes.create_string_buffer(64)
        assert _lib.lib.ovk_solver_get_info_text(s.handle, b"no_such_key", buf, len(buf)) == _lib.EINVAL
        assert "auto_choice" in _lib.lib.ovk_error_detail().decode()


def test_version_is_the_library_s():
    assert _lib.lib.ovk_version().decode() == ovkrylov.__version__


def test_result_layout_is_checked():
    assert _lib.layout_problems(_lib.Result, "ovk_result") == []
    # the deprecated name of 0.2 is the same struct
    assert _lib.layout_problems(_lib.Result, "ovk_pcg_result") == []

    class Swapped(ctypes.Structure):  # two fields exchanged: the check must see it
        _fields_ = [(n, t) for n, t in _lib.Result._fields_]
        _fields_[0], _fields_[1] = _fields_[1], _fields_[0]
    problems = _lib.layout_problems(Swapped, "ovk_result")
    assert any("iterations" in p for p in problems) and any("rel_residual" in p for p in problems)

    class Short(ctypes.Structure):
        _fields_ = _lib.Result._fields_[:-1]
    assert any(p.startswith("size") for p in _lib.layout_problems(Short, "ovk_result"))

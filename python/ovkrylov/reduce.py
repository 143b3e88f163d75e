"""Split-phase reductions for applications (include/ovkrylov/reduce.h)."""
import ctypes

import numpy as np

from . import _lib
from ._lib import ArgumentError, Collective, Error, check, fhandle, lib

_OPS = {"sum": 0, "max": 1, "min": 2}
_in_flight = set()  # requests started and not waited: their buffers stay alive


class Reducer(Collective):
    """A reduction backend on a communicator ("blocking", "native", "nbc",
    "offload", with options: "nbc:radix=4"; None: $OVK_REDUCE_BACKEND, else
    blocking).  Collective: the constructor and close(); call close() on every
    rank once every request is waited (one the garbage collector drops
    without close() is released there, locally)."""

    _what = "reducer"

    def __init__(self, comm, backend=None):
        f = fhandle(comm)
        h = ctypes.c_void_p()
        spec = str(backend or "")
        nul = f"backend {spec!r} holds a NUL character" if "\x00" in spec else None
        _lib.agree(f, nul, _lib.STATUS["OVK_EOPTION"])  # collective: no rank creates alone
        check(lib.ovk__f_reducer_create(f, spec.encode(), ctypes.byref(h)))
        self._h = h
        self.comm = comm
        self._track()

    @property
    def spec(self):
        return lib.ovk_reducer_spec(self.handle).decode()

    def _destroy(self):
        check(lib.ovk_reducer_destroy(self._h))

    def _gc_release(self):
        check(lib.ovk__py_release(None, None, self._h))  # OVK_EBUSY with requests in flight: leaked


class Request:
    """A reduction in flight: test() polls, wait() completes it (ovkrylov.wait)."""

    def __init__(self, reducer, buf, scalar):
        self._reducer = reducer  # outlives the request
        self._buf = buf
        self._scalar = scalar
        self._h = ctypes.c_void_p()

    def test(self):
        """True once complete (drives progress for the backends that need it)."""
        if not self._h:
            raise ArgumentError("the request was already waited")
        done = ctypes.c_int()
        check(lib.ovk_reduce_test(self._h, ctypes.byref(done)))
        return bool(done.value)

    def wait(self):
        """Complete the reduction and return the result (a float for one
        value, else an array)."""
        if not self._h:
            raise ArgumentError("the request was already waited")
        rc = lib.ovk_reduce_wait(self._h)
        detail = lib.ovk_error_detail().decode(errors="replace") if rc else None
        lib.ovk_request_free(self._h)
        self._h = None
        _in_flight.discard(self)
        if rc:
            raise Error(rc, detail)
        return float(self._buf[0]) if self._scalar else self._buf


def _start(reducer, buf, op, scalar):
    if not isinstance(reducer, Reducer):
        raise ArgumentError(f"a Reducer is needed, not {type(reducer).__name__}")
    if op not in _OPS:
        raise ArgumentError(f"op must be one of {sorted(_OPS)}, not {op!r}")
    req = Request(reducer, buf, scalar)
    p = buf.ctypes.data_as(ctypes.c_void_p)
    check(lib.ovk_reduce_start(reducer.handle, p, p, buf.size, 0, _OPS[op], ctypes.byref(req._h)))
    _in_flight.add(req)
    return req


def reduce_start(reducer, values, op="sum"):
    """Start the global reduction (sum, max or min) of the float64 values of
    every rank, element by element; returns a Request.  Every rank starts the
    same reductions in the same order."""
    buf = np.array(values, dtype=np.float64, ndmin=1).ravel().copy()
    return _start(reducer, buf, op, np.ndim(values) == 0)


def dot_start(reducer, x, y):
    """Split-phase inner products: the local <x, y> (or, given lists, every
    <x[i], y[i]> of up to 16 pairs) computed now, their global sums started
    as one reduction.  Returns a Request; wait(req) gives the sum(s)."""
    pairs = list(zip(x, y)) if isinstance(x, (list, tuple)) else [(x, y)]
    if isinstance(x, (list, tuple)) != isinstance(y, (list, tuple)) or len(pairs) != (
            len(x) if isinstance(x, (list, tuple)) else 1):
        raise ArgumentError("dot_start needs two arrays or two lists of arrays of the same length")
    if not 1 <= len(pairs) <= 16:
        raise ArgumentError(f"dot_start takes 1 to 16 pairs, not {len(pairs)}")
    for a, b in pairs:
        if not (isinstance(a, np.ndarray) and isinstance(b, np.ndarray)) or a.shape != b.shape:
            raise ArgumentError("dot_start: each pair must be two numpy arrays of the same shape")
    buf = np.array([np.dot(a.ravel(), b.ravel()) for a, b in pairs], dtype=np.float64)
    return _start(reducer, buf, "sum", not isinstance(x, (list, tuple)))


def wait(req):
    """Complete a request from dot_start or reduce_start; returns the result."""
    return req.wait()

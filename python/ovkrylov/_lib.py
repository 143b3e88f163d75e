"""The shared library through ctypes: loading, prototypes, status codes.

ctypes (the standard library) rather than cffi: no compiler and no extra
package at import time, and the few structures and callbacks of the C API
are short to declare by hand; ovk_result, the one struct mirrored, is
checked field by field against the library's layout (ovk_abi_field) at
import.  The option keys and the per-solver figures (auto_choice, ...) come
from the library by name (ovk_solver_option_name, ovk_solver_get_info), not
from lists here.  Communicators cross as Fortran handles (int in
every MPI; src/bind/python.c converts them).

Where libovkrylov.so is found, first that wins:
  1. $OVKRYLOV_LIBRARY (a path);
  2. _config.LIBRARY, written by CMake into the build tree's copy of the
     package (build/python/ovkrylov) and into the installed one (relative
     to the package);
  3. the dynamic loader's search (libovkrylov.so.0 on LD_LIBRARY_PATH or
     in the system's library directories).
"""
import atexit
import ctypes
import os
import sys
import warnings
import weakref
from ctypes import POINTER, c_char, c_char_p, c_double, c_int, c_int64, c_longlong, c_size_t, c_void_p

from mpi4py import MPI  # noqa: F401  (MPI is initialised before the library is loaded)


def _library_path():
    path = os.environ.get("OVKRYLOV_LIBRARY")
    if path:
        return path
    try:
        from ._config import LIBRARY
    except ImportError:
        return "libovkrylov.so.0"
    if not os.path.isabs(LIBRARY):
        return os.path.normpath(os.path.join(os.path.dirname(__file__), LIBRARY))
    return LIBRARY


def _load():
    path = _library_path()
    try:
        return ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)
    except OSError as e:
        raise ImportError(f"ovkrylov: cannot load the C library {path!r} ({e}); set OVKRYLOV_LIBRARY "
                          "to the path of libovkrylov.so (the build tree's or the installed one)") from None


lib = _load()

TIMER_COUNT = 14  # OVK_TIMER_COUNT (checked against the library below)


class Result(ctypes.Structure):
    """ovk_result (include/ovkrylov/pcg.h); its layout is checked at import."""
    _fields_ = [("iterations", c_int), ("rel_residual", c_double), ("reason", c_int),
                ("reductions", c_longlong), ("time_max", c_double * TIMER_COUNT),
                ("time_mean", c_double * TIMER_COUNT), ("lambda_min", c_double),
                ("lambda_max", c_double), ("cond_est", c_double), ("replacements", c_int),
                ("restarts", c_int), ("history_len", c_int), ("auto_latency_us", c_double),
                ("auto_work_us", c_double), ("auto_choice", c_char * 32),
                ("nullspace_inconsistency", c_double), ("rhs_norm", c_double)]


# callbacks: ovk_apply_fn, ovk_monitor_fn
APPLY_FN = ctypes.CFUNCTYPE(c_int, c_void_p, POINTER(c_double), POINTER(c_double), c_void_p)
MONITOR_FN = ctypes.CFUNCTYPE(c_int, c_void_p, c_int, c_double, c_double, c_void_p)

_P = c_void_p  # every opaque handle
_Pp = POINTER(c_void_p)
_DP = POINTER(c_double)
_prototypes = {
    "ovk_strerror": (c_char_p, [c_int]),
    "ovk_version": (c_char_p, []),
    "ovk_status_name": (c_char_p, [c_int]),
    "ovk_error_detail": (c_char_p, []),
    "ovk_reason_name": (c_char_p, [c_int]),
    "ovk_timer_name": (c_char_p, [c_int]),
    "ovk__f_fail": (c_int, [c_int, c_char_p]),
    "ovk__f_agree": (c_int, [c_int, c_int]),
    "ovk_abi_field": (c_int, [c_char_p, c_char_p, POINTER(c_size_t), POINTER(c_size_t)]),
    "ovk_solver_option_count": (c_int, []),
    "ovk_solver_option_name": (c_char_p, [c_int]),
    "ovk_solver_option_help": (c_char_p, [c_int]),
    "ovk_solver_info_count": (c_int, []),
    "ovk_solver_info_name": (c_char_p, [c_int]),
    "ovk_solver_info_is_text": (c_int, [c_int]),
    "ovk_solver_get_info": (c_int, [_P, c_char_p, _DP]),
    "ovk_solver_get_info_text": (c_int, [_P, c_char_p, c_char_p, c_size_t]),
    "ovk__f_matrix_create_csr": (c_int, [c_int, c_int64, c_int, POINTER(c_int), POINTER(c_int64), _DP, c_int,
                                         c_int, _Pp]),
    "ovk__f_matrix_comm": (c_int, [_P]),
    "ovk__f_solver_comm": (c_int, [_P]),
    "ovk__f_reducer_create": (c_int, [c_int, c_char_p, _Pp]),
    "ovk__f_solver_view": (c_int, [_P, POINTER(c_void_p), POINTER(c_size_t)]),
    "ovk__f_free": (None, [c_void_p]),
    "ovk__py_laplace_create": (c_int, [c_int, c_int, c_int, c_int, c_int, c_int, c_int, c_int, _Pp]),
    "ovk__py_mm_read": (c_int, [c_int, c_char_p, _Pp]),
    "ovk__py_solver_create_operator": (c_int, [c_int, c_int, APPLY_FN, c_void_p, _Pp]),
    "ovk__py_busy": (c_int, [_P, _P, c_char_p]),
    "ovk__py_release": (c_int, [_P, _P, _P]),
    "ovk__py_matrix_vector": (c_int, [_P, _DP, _Pp]),
    "ovk__py_matrix_diagonal": (c_int, [_P, _DP]),
    "ovk__py_matrix_local_nnz": (c_int, [_P, POINTER(c_int64)]),
    "ovk__py_matrix_local_csr": (c_int, [_P, POINTER(c_int), POINTER(c_int64), _DP]),
    "ovk_matrix_update_values": (c_int, [_P, POINTER(c_int), POINTER(c_int64), _DP, c_int]),
    "ovk_matrix_destroy": (c_int, [_P]),
    "ovk_matrix_nglobal": (c_int64, [_P]),
    "ovk_matrix_row_start": (c_int64, [_P]),
    "ovk_matrix_nlocal": (c_int, [_P]),
    "ovk_matrix_nnz_local": (c_int64, [_P]),
    "ovk_matvec": (c_int, [_P, _P, _P]),
    "ovk_vector_destroy": (None, [_P]),
    "ovk_solver_create": (c_int, [_P, _Pp]),
    "ovk_solver_destroy": (c_int, [_Pp]),
    "ovk_solver_set_option": (c_int, [_P, c_char_p, c_char_p]),
    "ovk_solver_recycle_reset": (c_int, [_P]),
    "ovk_solver_get_option": (c_int, [_P, c_char_p, c_char_p, c_size_t]),
    "ovk_solver_set_precond_fn": (c_int, [_P, APPLY_FN, c_void_p]),
    "ovk_solver_set_monitor": (c_int, [_P, MONITOR_FN, c_void_p]),
    "ovk_solver_set_history": (c_int, [_P, _DP, c_int]),
    "ovk_solver_set_nullspace": (c_int, [_P, c_int, c_int, POINTER(_DP)]),
    "ovk_solver_set_fields": (c_int, [_P, POINTER(c_int)]),
    "ovk_solver_set_schur_matrix": (c_int, [_P, _P]),
    "ovk_solver_setup": (c_int, [_P]),
    "ovk_solver_solve": (c_int, [_P, _P, _P, POINTER(Result)]),
    "ovk_solver_solve_many": (c_int, [_P, c_int, _Pp, _Pp, POINTER(Result)]),
    "ovk_solver_progress": (c_int, [_P]),
    "ovk_solver_vector_create": (c_int, [_P, _DP, _Pp]),
    "ovk_solver_nlocal": (c_int, [_P]),
    "ovk_solver_setup_time": (c_double, [_P]),
    "ovk_solver_set_from_options": (c_int, [_P, c_char_p]),
    "ovk_options_set_args": (c_int, [c_int, POINTER(c_char_p)]),
    "ovk_options_finalize": (c_int, []),
    "ovk_options_skip": (c_int, [c_int, POINTER(c_char_p), c_int]),
    "ovk_reducer_destroy": (c_int, [_P]),
    "ovk_reducer_spec": (c_char_p, [_P]),
    "ovk_reduce_start": (c_int, [_P, c_void_p, c_void_p, c_int, c_int, c_int, _Pp]),
    "ovk_reduce_test": (c_int, [_P, POINTER(c_int)]),
    "ovk_reduce_wait": (c_int, [_P]),
    "ovk_request_free": (c_int, [_P]),
    "ovk_solver_type_count": (c_int, []),
    "ovk_solver_type_name": (c_char_p, [c_int]),
}
for _name, (_res, _args) in _prototypes.items():
    _f = getattr(lib, _name)
    _f.restype = _res
    _f.argtypes = _args


def layout_problems(cls, cname):
    """How the ctypes Structure cls differs from the library's struct cname
    (its size, each field's offset and size: ovk_abi_field); [] when alike."""
    off, size = c_size_t(), c_size_t()
    problems = []
    if lib.ovk_abi_field(cname.encode(), None, ctypes.byref(off), ctypes.byref(size)):
        return [f"the library does not list {cname}"]
    if size.value != ctypes.sizeof(cls):
        problems.append(f"size {ctypes.sizeof(cls)} here, {size.value} in the library")
    for name, _ in cls._fields_:
        f = getattr(cls, name)
        if lib.ovk_abi_field(cname.encode(), name.encode(), ctypes.byref(off), ctypes.byref(size)):
            problems.append(f"field {name}: not in the library's {cname}")
        elif (f.offset, f.size) != (off.value, size.value):
            problems.append(f"field {name}: offset {f.offset}, size {f.size} here; {off.value}, {size.value} "
                            "in the library")
    return problems


_problems = layout_problems(Result, "ovk_result")
if lib.ovk_timer_name(TIMER_COUNT - 1) != b"solve":
    _problems.append(f"OVK_TIMER_COUNT is not {TIMER_COUNT}")
if _problems:
    raise ImportError("ovkrylov: the library's ovk_result differs from the package's (the package and "
                      f"libovkrylov.so are of different versions): {'; '.join(_problems)}")

# the option table's keys and the solver's info keys, from the library
OPTION_KEYS = tuple(lib.ovk_solver_option_name(i).decode() for i in range(lib.ovk_solver_option_count()))
INFO_KEYS = {lib.ovk_solver_info_name(i).decode(): bool(lib.ovk_solver_info_is_text(i))
             for i in range(lib.ovk_solver_info_count())}  # key: text (else a number)

# status codes: every name of error.h, from the library itself
STATUS = {}
for _code in range(0, -64, -1):
    _n = lib.ovk_status_name(_code).decode()
    if _code and not _n.startswith("OVK_E"):
        break
    STATUS[_n] = _code
EINVAL = STATUS["OVK_EINVAL"]
ECALLBACK = STATUS["OVK_ECALLBACK"]
ESTOPPED = STATUS["OVK_ESTOPPED"]
# a solve that ran and stopped without converging (Solver.solve(check=False) returns them)
NOT_CONVERGED = {STATUS[n] for n in ("OVK_EMAXIT", "OVK_EBREAKDOWN", "OVK_ENONFINITE", "OVK_ESTOPPED",
                                     "OVK_EDIVERGED", "OVK_ESTAGNATED")}


class Error(Exception):
    """A status of the library: .code (negative int), .name ("OVK_EMAXIT"),
    .detail (ovk_error_detail(): which row, option, file line).  Collective
    calls raise it on every rank alike.  A failed solve carries .info (the
    SolveInfo) and .x (the last iterate)."""

    def __init__(self, code, detail=None, info=None, x=None):
        self.code = code
        self.name = lib.ovk_status_name(code).decode()
        self.text = lib.ovk_strerror(code).decode()
        self.detail = lib.ovk_error_detail().decode(errors="replace") if detail is None else detail
        self.info = info
        self.x = x
        msg = f"{self.name}: {self.text}"
        if self.detail:
            msg += f": {self.detail}"
        super().__init__(msg)


class ArgumentError(Error, ValueError, TypeError):
    """A bad argument found in Python before the library was called (wrong
    dtype, length, layout, a closed communicator or object): OVK_EINVAL,
    also a ValueError and a TypeError."""

    def __init__(self, detail):
        super().__init__(EINVAL, detail)


def cbytes(text, what):
    """text as C's NUL-terminated bytes; a NUL inside it is refused
    (Error OVK_EOPTION): the library would read only what comes before it."""
    text = str(text)
    if "\x00" in text:
        raise Error(STATUS["OVK_EOPTION"],
                    detail=f"{what} {text!r} holds a NUL character: the library would read only "
                           f"{text.split(chr(0), 1)[0]!r}")
    return text.encode()


def check(rc, **kw):
    """Raise Error for a nonzero status."""
    if rc:
        raise Error(rc, **kw)


def fhandle(comm, what="comm"):
    """The Fortran handle of an mpi4py communicator (a closed one refused)."""
    if not isinstance(comm, MPI.Comm):
        raise ArgumentError(f"{what} must be an mpi4py MPI.Comm, not {type(comm).__name__}")
    if comm == MPI.COMM_NULL:
        raise ArgumentError(f"{what} is MPI.COMM_NULL (freed or closed)")
    return comm.py2f()


def agree(fcomm, problem, code=EINVAL):
    """Collective: every rank learns whether one found a problem (a message,
    or None) before a collective call, and raises ArgumentError (code
    OVK_EINVAL; else Error of code) with the failing rank's detail; no rank
    enters the library alone."""
    rc = lib.ovk__f_fail(code, problem.encode()) if problem else 0
    rc = lib.ovk__f_agree(fcomm, rc)
    if rc:
        detail = problem or lib.ovk_error_detail().decode(errors="replace")
        raise ArgumentError(detail) if rc == EINVAL else Error(rc, detail)


class LeakWarning(UserWarning):
    """An object of the package was still open at interpreter exit: it is
    leaked (a destroy then would come after MPI_Finalize on some rank).  A
    UserWarning, so Python shows it by default."""


_open = weakref.WeakSet()  # the objects not closed yet (named at exit)


def _caller_site():
    """file:line of the first caller outside the package."""
    here = os.path.dirname(os.path.abspath(__file__))
    f = sys._getframe(1)
    while f is not None and os.path.dirname(os.path.abspath(f.f_code.co_filename)) == here:
        f = f.f_back
    return f"{f.f_code.co_filename}:{f.f_lineno}" if f is not None else "?"


class Collective:
    """What the package's objects share: a handle (self._h, None once closed),
    close() through the subclass's _destroy() (collective: every rank calls
    it), `with` blocks, and a garbage collector that releases: an object
    dropped without close() is released by _gc_release() (local, nothing
    collective, so the moment, which differs between ranks, does not
    matter: its memory and its reference to the communicator every object
    on the user's shares), with a ResourceWarning (hidden by default) naming
    where it was made.  Those still open at interpreter exit are leaked with
    a LeakWarning (a release after MPI_Finalize cannot be made)."""
    _h = None
    _what = "object"
    _site = "?"
    _reported = False

    def _track(self):
        """Called once the handle is set: the object counts as open."""
        self._site = _caller_site()
        _open.add(self)

    @property
    def handle(self):
        if not self._h:
            raise ArgumentError(f"the {self._what} is closed")
        return self._h

    def close(self):
        """Destroy the object.  Collective: call it on every rank.  A second
        close does nothing."""
        if self._h:
            self._destroy()
            self._h = None
            _open.discard(self)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _leak_warning(self, when):
        if self._h and not self._reported:
            self._reported = True
            warnings.warn(f"ovkrylov: a {self._what} made at {self._site} {when} is not closed and is leaked "
                          "(close() is collective: call it on every rank, or use `with`)", LeakWarning,
                          stacklevel=3)

    def _gc_release(self):
        """Local: the subclass's object without anything collective."""
        raise NotImplementedError

    def __del__(self):
        if not self._h or self._reported:
            return
        try:
            if not MPI.Is_initialized() or MPI.Is_finalized():
                return
            self._gc_release()
            self._h = None
        except Exception:  # noqa: BLE001 -- in use (a reducer's request in flight): leaked
            self._leak_warning("dropped by the garbage collector")
            return
        warnings.warn(f"ovkrylov: a {self._what} made at {self._site} was dropped without close() and released by "
                      "the garbage collector", ResourceWarning, stacklevel=2)


@atexit.register
def _report_open():
    """At exit (before mpi4py's MPI_Finalize): name every object still open."""
    for obj in list(_open):
        obj._leak_warning("still open at exit")

"""The solver object (include/ovkrylov/solver.h): set up once, solve many times."""
import ctypes
import sys
from dataclasses import dataclass, field, fields

import numpy as np
from mpi4py import MPI

from . import _lib
from ._lib import APPLY_FN, MONITOR_FN, ArgumentError, Collective, Error, Result, agree, cbytes, check, fhandle, lib

check_ = check  # solve()'s keyword argument `check` shadows it there
# a system's status from its reason (ovk_reason: converged, iteration limit, breakdown, non-finite,
# stopped by the monitor, diverged, stagnated)
_REASON_STATUS = {1: 0, 2: _lib.STATUS["OVK_EMAXIT"], 3: _lib.STATUS["OVK_EBREAKDOWN"],
                  4: _lib.STATUS["OVK_ENONFINITE"], 5: _lib.STATUS["OVK_ESTOPPED"], 6: _lib.STATUS["OVK_EDIVERGED"],
                  7: _lib.STATUS["OVK_ESTAGNATED"]}
from .matrix import Matrix

_DP = ctypes.POINTER(ctypes.c_double)


@dataclass(repr=False)
class SolveInfo:
    """What a solve reports (ovk_result): status (0, or the OVK_E* code
    of a solve that stopped without converging), reason ("converged",
    "iteration limit", "breakdown", "non-finite", "stopped by the monitor",
    "diverged"), times in seconds, the max over the ranks (times_mean: the
    mean); history: ||r||_2 of iterations 0, 1, ...  repr() is one line."""
    status: int
    iterations: int
    residual: float  # final ||r|| / ||b||
    reason: str
    reductions: int
    times: dict
    times_mean: dict
    setup_time: float
    history: np.ndarray
    replacements: int = 0
    restarts: int = 0
    lambda_min: float = 0.0
    lambda_max: float = 0.0
    cond_est: float = 0.0
    auto_choice: str = ""
    extra: dict = field(default_factory=dict)

    @property
    def solve_time(self):
        return self.times["solve"]

    @property
    def converged(self):
        return self.reason == "converged"

    def __repr__(self):
        return (f"SolveInfo({self.reason}, {self.iterations} iterations, residual {self.residual:.3e}, "
                f"solve {self.times.get('solve', 0.0):.4g} s)")


def _text(value):
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, float):
        return repr(value)
    return str(value)


class _Views:
    """NumPy arrays over the library's vectors, by address, for the callbacks
    (the solver's work vectors are the same at every call: views are made
    once); bounded, so that arrays of the caller's that come and go do not
    pile up."""

    def __init__(self, n):
        self.n = n
        self.ro = {}
        self.rw = {}

    def get(self, ptr, writeable):
        cache = self.rw if writeable else self.ro
        addr = ctypes.cast(ptr, ctypes.c_void_p).value
        v = cache.get(addr)
        if v is None:
            if len(cache) > 64:
                cache.clear()
            if self.n:  # .view: native byte order ('d'), which mpi4py takes ('<d' from ctypes it does not)
                v = np.ctypeslib.as_array(ptr, shape=(self.n,)).view(np.float64)
            else:
                v = np.empty(0)
            v.flags.writeable = writeable
            cache[addr] = v
        return v


class Solver(Collective):
    """A Krylov solver on a Matrix, or on a Python operator (Solver.operator).

        s = Solver(A, solver="pipeprcg", precond="amg", backend="nbc", rtol=1e-8)
        x, info = s.solve(b)

    Every option of the library's option table by keyword (the keys of
    ovkrylov.option_keys(), from the library: solver, backend, precond, rtol,
    ...); values as Python values (True -> "1") or as the library's text.  Then, unless from_options=False, the options
    database (ovkrylov.options(sys.argv), $OVK_OPTIONS: -[prefix]ovk_KEY)
    overrides them.  precond may also be a callable precond(r, z) that
    writes z = C r; monitor a callable monitor(iteration, rnorm, rel) that
    returns a true value to stop the solve.

    Collective over the matrix's communicator: the constructor, solve(),
    solve_many(), setup() and close().  Call close() on every rank (or use
    `with`); one the garbage collector drops is released there without
    anything collective (no -ovk_log_view report).  The solver keeps its matrix alive: a Matrix closed
    while the solver is open is destroyed by the solver's close().  New
    values of the matrix (Matrix.update_values) are taken at the next solve
    (only the numeric setup is redone)."""

    _what = "solver"

    def __init__(self, A, prefix=None, from_options=True, **options):
        if not isinstance(A, Matrix):
            raise ArgumentError(f"Solver needs an ovkrylov.Matrix, not {type(A).__name__} "
                                "(a Python operator: Solver.operator(comm, nlocal, matvec))")
        if not A._h:
            raise ArgumentError("the matrix is closed")  # destroyed on this rank: no communicator left
        self._init_fields(A.comm, None)
        self.matrix = A
        h = ctypes.c_void_p()
        if A._close_pending:  # closed by the program, alive for its solvers: refused on every rank
            rc = lib.ovk__f_fail(_lib.EINVAL, b"the matrix is closed")
        else:
            rc = lib.ovk_solver_create(A._h, ctypes.byref(h))
        self._h = h if not rc else None
        self._configure(rc, prefix, from_options, options, lib.ovk__f_matrix_comm(A._h))
        A._hold()  # the matrix is destroyed after this solver
        self._track()

    @classmethod
    def operator(cls, comm, nlocal, matvec, prefix=None, from_options=True, **options):
        """A solver on the application's operator: matvec(x, y) writes y = A x
        on this rank's nlocal rows (x read-only, both plain float64 arrays
        that mpi4py takes as buffers, e.g. comm.Sendrecv(x[:1], ...); the
        rows ordered by rank).  A matvec that raises fails the solve with
        OVK_ECALLBACK on every rank; it must still do whatever communication
        its peers' calls do (its halo exchange).  Collective."""
        self = cls.__new__(cls)
        f = fhandle(comm)
        self._init_fields(comm, None)
        self.matrix = None
        problem = None if callable(matvec) else f"matvec must be callable, not {type(matvec).__name__}"
        try:
            nlocal = int(nlocal)
            if not 0 <= nlocal <= 2**31 - 1:
                problem = problem or f"nlocal = {nlocal}: the rows of one rank must lie in [0, 2^31 - 1]"
        except (TypeError, ValueError):
            problem = problem or f"nlocal must be an int, not {type(nlocal).__name__}"
        agree(f, problem)
        self._matvec = matvec
        self._matvec_fn = APPLY_FN(self._apply_cb(lambda: self._matvec))
        h = ctypes.c_void_p()
        check(lib.ovk__py_solver_create_operator(f, nlocal, self._matvec_fn, None, ctypes.byref(h)))
        self._h = h
        self._configure(0, prefix, from_options, options, lib.ovk__f_solver_comm(h))
        self._track()
        return self

    def _init_fields(self, comm, _):
        self._h = None
        self.comm = comm
        self._cb_error = None
        self._matvec = self._precond = self._monitor = None
        self._matvec_fn = self._precond_fn = self._monitor_fn = None
        self._views = None
        self._history = None
        self._in_solve = False

    def _configure(self, rc, prefix, from_options, options, fcomm):
        """Set the keyword options, agree the outcome on fcomm (the matrix's
        communicator: every rank has it, whether its solver was made or not),
        then the database."""
        problem, code = None, _lib.EINVAL
        if rc:
            problem, code = lib.ovk_error_detail().decode(errors="replace") or lib.ovk_strerror(rc).decode(), rc
        else:
            self._views = _Views(lib.ovk_solver_nlocal(self._h))
            for key, value in options.items():
                try:
                    self._set_one(key, value)
                except Error as e:
                    problem, code = f"option {key}={value!r}: {e.detail or e.text}", e.code
                    break
        try:
            agree(fcomm, problem, code)
        except Error:
            self._discard()
            raise
        if from_options:
            try:
                self._call(lib.ovk_solver_set_from_options(self._h, prefix.encode() if prefix else None))
            except Error:
                self._discard()  # every rank: the database's outcome is agreed
                raise

    def _discard(self):
        """Destroy after a failure every rank agreed on."""
        if self._h:
            lib.ovk_solver_destroy(ctypes.byref(self._h))
            self._h = None

    def _set_one(self, key, value):
        if key not in _lib.OPTION_KEYS:  # the library's table: the same refusal as ovk_solver_set_option's
            raise Error(_lib.STATUS["OVK_EOPTION"],
                        detail=f"unknown solver option '{key}'; options: {', '.join(_lib.OPTION_KEYS)}")
        if key == "precond" and callable(value):
            self._precond = value
            self._precond_fn = APPLY_FN(self._apply_cb(lambda: self._precond))
            check(lib.ovk_solver_set_precond_fn(self._h, self._precond_fn, None))
        elif key == "monitor" and callable(value):
            self._monitor = value
            self._monitor_fn = MONITOR_FN(self._monitor_cb)
            check(lib.ovk_solver_set_monitor(self._h, self._monitor_fn, None))
        else:
            if key == "solver":  # the name checked here, not at the next setup
                name = _text(value).split(":", 1)[0]
                known = [lib.ovk_solver_type_name(i).decode() for i in range(lib.ovk_solver_type_count())]
                if name and name not in known:
                    raise Error(_lib.STATUS["OVK_EOPTION"],
                                detail=f"unknown solver '{name}'; available: {', '.join(known)}")
            if key == "precond" and self._precond is not None:
                self._precond = self._precond_fn = None
                check(lib.ovk_solver_set_precond_fn(self._h, APPLY_FN(), None))
            check(lib.ovk_solver_set_option(self._h, cbytes(key, "option key"),
                                            cbytes(_text(value), f"option {key}'s value")))

    # ---- callbacks --------------------------------------------------------
    def _apply_cb(self, target):
        views = lambda: self._views  # noqa: E731

        def cb(_s, inp, out, _ctx):
            try:
                v = views()
                target()(v.get(inp, False), v.get(out, True))
                return 0
            except BaseException:  # noqa: B036 -- reported after the solve, on this rank
                if self._cb_error is None:
                    self._cb_error = sys.exc_info()[1]
                return 1
        return cb

    def _monitor_cb(self, _s, it, rnorm, rel, _ctx):
        try:
            return 1 if self._monitor(it, rnorm, rel) else 0
        except BaseException:  # noqa: B036
            if self._cb_error is None:
                self._cb_error = sys.exc_info()[1]
            return 1

    # ---- options ----------------------------------------------------------
    def set_options(self, **options):
        """Options by keyword (local; a refused value raises at once on the
        calling rank, and setup names one that differs across ranks)."""
        self.handle
        for key, value in options.items():
            self._set_one(key, value)

    def get_option(self, key):
        """The current value of an option as text ("backend" as resolved)."""
        buf = ctypes.create_string_buffer(512)
        check(lib.ovk_solver_get_option(self.handle, cbytes(key, "option key"), buf, len(buf)))
        return buf.value.decode()

    @property
    def nlocal(self):
        return lib.ovk_solver_nlocal(self.handle)

    def setup(self):
        """Set up what is not (collective; a solve does it by itself)."""
        self._call(lib.ovk_solver_setup(self.handle))

    def recycle_reset(self):
        """Drop the space option recycle keeps across solves (local; the next
        solve starts without one and builds it again)."""
        check(lib.ovk_solver_recycle_reset(self.handle))

    def set_nullspace(self, has_constant=False, vectors=None):
        """The null space of a singular A (ovk_solver_set_nullspace): the
        constant vector when has_constant, and vectors: k float64 arrays of
        nlocal entries (a sequence, or a 2-D array of shape (k, nlocal)), the
        same k on every rank; copied.  Checked at the next setup (A must
        annihilate them).  has_constant=False with no vectors removes it.
        Collective."""
        h = self.handle
        check(lib.ovk__py_busy(None, h, b"Solver.set_nullspace"))  # from a callback: this rank alone, nothing collective
        n, problem, arr = self._views.n, None, np.zeros((0, self._views.n))
        if vectors is not None and not (isinstance(vectors, (list, tuple)) and len(vectors) == 0):
            try:
                arr = np.array(vectors, dtype=np.float64, ndmin=2, order="C")
            except (TypeError, ValueError) as e:
                problem = f"vectors: {e}"
            if not problem and (arr.ndim != 2 or arr.shape[1] != n):
                problem = f"vectors have shape {arr.shape}, expected (k, {n}) (k vectors of this rank's rows)"
        if not problem and not isinstance(has_constant, (bool, int, np.bool_)):
            problem = f"has_constant must be a bool, not {type(has_constant).__name__}"
        agree(lib.ovk__f_solver_comm(h), problem)
        k = arr.shape[0]
        rows = (_DP * max(k, 1))(*[arr[j].ctypes.data_as(_DP) if n else None for j in range(k)])
        self._call(lib.ovk_solver_set_nullspace(h, 1 if has_constant else 0, k, rows))

    def set_fields(self, fields):
        """The field (0 or 1) of each of this rank's rows, for the fieldsplit
        preconditioner (ovk_solver_set_fields): an integer array of nlocal
        entries, copied.  Collective: a wrong length, and an id other than
        0 or 1 (naming the row), raise on every rank."""
        h = self.handle
        check(lib.ovk__py_busy(None, h, b"Solver.set_fields"))  # from a callback: this rank alone
        n, problem, arr = self._views.n, None, None
        try:
            arr = np.asarray(fields)
        except (TypeError, ValueError) as e:
            problem = f"fields: {e}"
        if not problem and (arr.ndim != 1 or arr.shape[0] != n):
            problem = f"fields have shape {arr.shape}, expected ({n},) (one id per row of this rank)"
        elif not problem and arr.dtype.kind not in "biu":
            problem = f"fields must be integers, not {arr.dtype}"
        elif not problem and n and (arr.min() < -2**31 or arr.max() >= 2**31):
            problem = "a field id is out of range (0 or 1)"
        agree(lib.ovk__f_solver_comm(h), problem)
        ids = np.ascontiguousarray(arr, dtype=np.int32)
        self._call(lib.ovk_solver_set_fields(h, ids.ctypes.data_as(ctypes.POINTER(ctypes.c_int)) if n else None))

    def set_schur_matrix(self, M):
        """fieldsplit's Schur complement approximation (schur=user; a pressure
        mass matrix; ovk_solver_set_schur_matrix): a Matrix of field 1's
        rows, this rank holding its own field-1 rows (checked at setup), or
        None to drop it.  The solver keeps M alive.  Call it on every rank."""
        h = self.handle
        if M is not None and not isinstance(M, Matrix):
            raise Error(_lib.EINVAL, detail=f"set_schur_matrix: a Matrix or None, not {type(M).__name__}")
        check(lib.ovk_solver_set_schur_matrix(h, M.handle if M is not None else None))
        self._schur = M

    def progress(self):
        """From inside a callback: drive the reductions in flight (local)."""
        check(lib.ovk_solver_progress(self.handle))

    def view(self, file=None):
        """The effective configuration as text (local; printed to file if given)."""
        text = ctypes.c_void_p()
        n = ctypes.c_size_t()
        check(lib.ovk__f_solver_view(self.handle, ctypes.byref(text), ctypes.byref(n)))
        try:
            s = ctypes.string_at(text, n.value).decode(errors="replace")
        finally:
            lib.ovk__f_free(text)
        if file is not None:
            file.write(s)
        return s

    def _call(self, rc, **kw):
        """Raise for a status of a collective call; a callback's exception is
        the cause on the rank where it was raised."""
        err, self._cb_error = self._cb_error, None
        if rc:
            e = Error(rc, **kw)
            raise e from err
        if err is not None:  # a stop asked by a raising monitor that converged first
            raise err

    # ---- solve --------------------------------------------------------------
    def _check_vec(self, a, what, n):
        from .matrix import _vector
        return _vector(a, n, what)[1]

    def solve(self, b, x0=None, inplace=False, check=True):
        """Solve A x = b on this rank's rows: b (and x0, the initial guess;
        zero when None) float64, 1-D, contiguous, of nlocal entries.  The
        library works on b and x in place (no copy); x is a new array, or x0
        itself with inplace=True.  Returns (x, info).

        A solve that stops without converging (iteration limit, breakdown,
        non-finite values, the monitor's stop, divergence) raises Error on
        every rank with .info and .x; with check=False it returns (x, info)
        instead, info.status the OVK_E* code and info.reason why, as a
        KSPConvergedReason.  Bad arguments, bad options and a callback that
        raised always raise.  Collective."""
        h = self.handle
        if self._in_solve:
            raise ArgumentError("solve() called from a callback of the same solver")
        n = self._views.n
        problem = self._check_vec(b, "b", n)
        if not problem and x0 is not None:
            problem = self._check_vec(x0, "x0", n)
            if not problem and inplace and not x0.flags.writeable:
                problem = "x0 is read-only (inplace=True writes the solution into it)"
        if not problem and inplace and x0 is None:
            problem = "inplace=True needs x0"
        agree(lib.ovk__f_solver_comm(h), problem)
        if x0 is None:
            x = np.zeros(n)
        else:
            x = x0 if inplace else x0.copy()
        hist = self._history_buffer()
        vb, vx = ctypes.c_void_p(), ctypes.c_void_p()
        res = Result()
        try:
            check_(lib.ovk_solver_vector_create(h, b.ctypes.data_as(_DP) if n else None, ctypes.byref(vb)))
            check_(lib.ovk_solver_vector_create(h, x.ctypes.data_as(_DP) if n else None, ctypes.byref(vx)))
            self._cb_error = None
            self._in_solve = True
            try:
                rc = lib.ovk_solver_solve(h, vb, vx, ctypes.byref(res))
            finally:
                self._in_solve = False
        finally:
            lib.ovk_vector_destroy(vb)
            lib.ovk_vector_destroy(vx)
        info = self._info(rc, res, hist)
        self._agree_callbacks(h, rc, info=info, x=x)
        self._call(rc if check or not self._stopped(rc, [res]) else 0, info=info, x=x)
        return x, info

    def _agree_callbacks(self, h, rc, **kw):
        """Collective, after a solve: when a callback raised on some rank,
        every rank raises (check=True or not), Error of the solve's status
        (OVK_ECALLBACK if it converged first), with the callback's exception
        as the cause on its rank and its text named in the detail on the
        others."""
        err, detail = self._cb_error, lib.ovk_error_detail().decode(errors="replace")
        mine = 0
        if err is not None:
            mine = lib.ovk__f_fail(_lib.STATUS["OVK_ECALLBACK"], f"{type(err).__name__}: {err}"[:200].encode())
        raised = lib.ovk__f_agree(lib.ovk__f_solver_comm(h), mine)
        if not raised:
            return
        self._cb_error = None
        if err is not None:
            if not rc:
                raise err
            raise Error(rc, detail=detail, **kw) from err
        other = lib.ovk_error_detail().decode(errors="replace")
        raise Error(rc or raised, detail=f"{detail + '; ' if detail else ''}a callback raised on {other}", **kw)

    def _stopped(self, rc, results):
        """rc is a solve that ran and stopped without converging (no
        argument, option or callback failure)."""
        return rc in _lib.NOT_CONVERGED and self._cb_error is None and any(r.reason for r in results)

    def solve_many(self, B, X0=None, check=True):
        """Solve the k systems A X[j] = B[j] together (ovk_solver_solve_many:
        one reduction per reduction point and one pass over the matrix per
        product for all k).  B: float64 of shape (k, nlocal), C-contiguous,
        ONE ROW PER SYSTEM (B[j] is system j's right-hand side on this rank's
        rows; for one column per system, an (nlocal, k) array in Fortran
        order, pass its transpose B.T: no copy); the same k on every rank.
        X0: the initial guesses, the same shape (zero when None).  Returns
        (X, infos): X of B's shape, a new array (X[j] system j's solution),
        infos the list of k SolveInfo (reductions: the batch's; the history
        only in infos[0]).  A system that does not converge raises Error on
        every rank with .info (the list) and .x (X); with check=False the
        call returns them, each info saying its reason.  Collective."""
        h = self.handle
        if self._in_solve:
            raise ArgumentError("solve_many() called from a callback of the same solver")
        n = self._views.n
        problem, k = None, 0
        if not isinstance(B, np.ndarray):
            problem = f"B must be a numpy.ndarray, not {type(B).__name__}"
        elif B.dtype != np.float64:
            problem = f"B has dtype {B.dtype}, expected float64"
        elif B.ndim != 2 or B.shape[1] != n or B.shape[0] < 1:
            problem = (f"B has shape {B.shape}, expected (k, {n}) with k >= 1: one row per system "
                       "(for one column per system pass B.T)")
        elif not B.flags.c_contiguous:
            problem = "B is not C-contiguous (one row per system; pass numpy.ascontiguousarray(B))"
        else:
            k = B.shape[0]
        if not problem and X0 is not None:
            if not isinstance(X0, np.ndarray) or X0.dtype != np.float64 or X0.shape != B.shape:
                problem = f"X0 must be a float64 array of B's shape {B.shape}"
        f = lib.ovk__f_solver_comm(h)
        agree(f, problem)
        ks = np.array([k, -k], dtype=np.int64)
        MPI.Comm.f2py(f).Allreduce(MPI.IN_PLACE, ks, op=MPI.MAX)
        agree(f, None if ks[0] == -ks[1] else
              f"solve_many: B has {k} systems on this rank, between {-ks[1]} and {ks[0]} over the ranks")
        X = np.zeros((k, n)) if X0 is None else np.array(X0, dtype=np.float64, order="C", copy=True)
        hist = self._history_buffer()
        vb = (ctypes.c_void_p * k)()
        vx = (ctypes.c_void_p * k)()
        res = (Result * k)()
        try:
            v = ctypes.c_void_p()
            for j in range(k):
                check_(lib.ovk_solver_vector_create(h, B[j].ctypes.data_as(_DP) if n else None, ctypes.byref(v)))
                vb[j] = v.value
                check_(lib.ovk_solver_vector_create(h, X[j].ctypes.data_as(_DP) if n else None, ctypes.byref(v)))
                vx[j] = v.value
            self._cb_error = None
            self._in_solve = True
            try:
                rc = lib.ovk_solver_solve_many(h, k, vb, vx, res)
            finally:
                self._in_solve = False
        finally:
            for j in range(k):
                lib.ovk_vector_destroy(vb[j])
                lib.ovk_vector_destroy(vx[j])
        empty = np.zeros(0)
        infos = [self._info(_REASON_STATUS.get(res[j].reason, rc), res[j], hist if j == 0 else empty, j)
                 for j in range(k)]
        self._agree_callbacks(h, rc, info=infos, x=X)
        self._call(rc if check or not self._stopped(rc, res) else 0, info=infos, x=X)
        return X, infos

    def _history_buffer(self):
        """The history buffer: max_it + 1 norms (set again when max_it grew)."""
        try:
            need = int(self.get_option("max_it")) + 1
        except (Error, ValueError):
            need = 1001
        if self._history is None or self._history.size < need:
            self._history = np.zeros(need)
            check(lib.ovk_solver_set_history(self._h, self._history.ctypes.data_as(_DP), need))
        return self._history

    def solver_info(self):
        """What the solver reports by key (ovk_solver_get_info: auto_choice,
        auto_latency_us, ...; the keys are the library's), of the last solve
        (solve_many: of its first system).  Local."""
        out = {}
        buf = ctypes.create_string_buffer(256)
        val = ctypes.c_double()
        for key, text in _lib.INFO_KEYS.items():
            if text:
                check(lib.ovk_solver_get_info_text(self.handle, key.encode(), buf, len(buf)))
                out[key] = buf.value.decode()
            else:
                check(lib.ovk_solver_get_info(self.handle, key.encode(), ctypes.byref(val)))
                out[key] = val.value
        return out

    def _info(self, rc, res, hist, system=0):
        names = [lib.ovk_timer_name(i).decode() for i in range(_lib.TIMER_COUNT)]
        reported = self.solver_info()
        if system:  # solve_many's later systems: their own value where the result has one
            reported.update({k: getattr(res, k) for k in reported if hasattr(res, k) and not _lib.INFO_KEYS[k]})
        own = {f.name for f in fields(SolveInfo)}  # a key of its own in SolveInfo, else in extra
        return SolveInfo(
            status=rc, iterations=res.iterations, residual=res.rel_residual,
            reason=lib.ovk_reason_name(res.reason).decode(), reductions=res.reductions,
            times=dict(zip(names, res.time_max)), times_mean=dict(zip(names, res.time_mean)),
            setup_time=lib.ovk_solver_setup_time(self._h), history=hist[:res.history_len].copy(),
            replacements=res.replacements, restarts=res.restarts, lambda_min=res.lambda_min,
            lambda_max=res.lambda_max, cond_est=res.cond_est,
            **{k: v for k, v in reported.items() if k in own},
            extra={k: v for k, v in reported.items() if k not in own})

    # ---- lifetime -------------------------------------------------------------
    def _gc_release(self):
        """Dropped without close(): the solver and the reducer it made,
        without anything collective (its matrix too when closed meanwhile)."""
        h = ctypes.c_void_p(self._h.value)
        check(lib.ovk__py_release(None, h, None))
        self._history = None
        A = self.matrix
        if A is not None:
            A._users -= 1
            if A._close_pending and not A._users and A._h:
                A._close_pending = False
                A._gc_release()
                A._h = None
                _lib._open.discard(A)

    def _destroy(self):
        """The solver and the reducer it made."""
        h = ctypes.c_void_p(self._h.value)
        check(lib.ovk_solver_destroy(ctypes.byref(h)))
        self._history = None
        if self.matrix is not None:
            self.matrix._release()  # destroys a matrix closed meanwhile

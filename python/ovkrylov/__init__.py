"""ovkrylov from Python: MPI Krylov solvers that hide the latency of global
reductions, over the C library (libovkrylov.so) through ctypes.

    from mpi4py import MPI
    import numpy as np, ovkrylov
    A = ovkrylov.Matrix.laplace27(MPI.COMM_WORLD, 20)
    with ovkrylov.Solver(A, solver="pipeprcg", precond="jacobi", backend="nbc") as s:
        x, info = s.solve(np.ones(A.nlocal))
    A.close()

Communicators are mpi4py's; vectors NumPy float64 arrays of this rank's rows.
Errors are ovkrylov.Error (.code, .name, .detail), raised on every rank alike
by collective calls.  Objects are destroyed by close() (collective: call it
on every rank) or a `with` block; one the garbage collector drops is
released there (locally, nothing collective); those still open at
interpreter exit are leaked, with a LeakWarning (shown by default).  A
solver keeps its matrix alive (closing the matrix first is safe).
docs/python.md.
"""
import atexit

from ._lib import OPTION_KEYS, STATUS, ArgumentError, Error, LeakWarning, lib
from .matrix import Matrix
from .reduce import Reducer, Request, dot_start, reduce_start, wait
from .solver import SolveInfo, Solver

__version__ = "0.3.0"  # include/ovkrylov/ovkrylov.h's OVK_VERSION_* (ctest version_agrees); pyproject.toml reads it here

__all__ = ["Matrix", "Solver", "SolveInfo", "Error", "ArgumentError", "LeakWarning", "Reducer", "Request",
           "dot_start", "reduce_start", "wait", "options", "options_finalize", "solvers", "option_keys", "STATUS",
           "__version__"]

_options_set = False


def options(argv=None):
    """Hand the program's arguments (argv[0] skipped) and $OVK_OPTIONS to the
    options database: every Solver then reads -[prefix]ovk_KEY entries
    (-ovk_solver pipeprcg -ovk_rtol 1e-6 -ovk_view).  Local.  At exit the
    library warns of the -ovk_ entries no solver used (-ovk_options_left 0:
    silent).  Returns argv without the library's entries."""
    global _options_set
    import sys
    argv = list(sys.argv if argv is None else argv)
    words = [str(a).encode() for a in argv]
    arr = (lib.ovk_options_set_args.argtypes[1]._type_ * (len(words) + 1))(*words, None)
    rc = lib.ovk_options_set_args(len(words), arr)
    if rc:
        raise Error(rc)
    if not _options_set:
        atexit.register(options_finalize)  # runs before mpi4py's MPI_Finalize (registered earlier)
        _options_set = True
    rest, i = [], 0
    while i < len(argv):
        skip = lib.ovk_options_skip(len(words), arr, i) if i else 0
        if skip:
            i += skip
        else:
            rest.append(argv[i])
            i += 1
    return rest


def options_finalize():
    """Warn of unused -ovk_ options (rank 0 of MPI_COMM_WORLD) and free the
    database.  Local; called at exit after options()."""
    from mpi4py import MPI
    if MPI.Is_initialized() and not MPI.Is_finalized():
        lib.ovk_options_finalize()


def solvers():
    """The names of the solver variants."""
    return [lib.ovk_solver_type_name(i).decode() for i in range(lib.ovk_solver_type_count())]


def option_keys():
    """The solver's option keys, from the library's option table (what
    Solver(**options), set_options and -ovk_KEY take), with their line of
    help: {key: help}."""
    return {k: lib.ovk_solver_option_help(i).decode() for i, k in enumerate(OPTION_KEYS)}

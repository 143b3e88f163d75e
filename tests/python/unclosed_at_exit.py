"""Objects left open at interpreter exit: no collective destroy (ranks would
reach them at different moments, after MPI_Finalize): the program exits at
once, and Python's default warning filters show a LeakWarning per object (no
filter set here), naming where it was made; the solver one rank drops early
is released by the garbage collector, locally (no warning shown).  Run by run.sh under mpiexec (not a pytest file: it must end the
interpreter)."""
import numpy as np
from mpi4py import MPI

import ovkrylov

A = ovkrylov.Matrix.laplace27(MPI.COMM_WORLD, 4)
s = ovkrylov.Solver(A, solver="pipecg", backend="nbc", from_options=False)
s.solve(np.ones(A.nlocal))
r = ovkrylov.Reducer(MPI.COMM_WORLD, "nbc")
if MPI.COMM_WORLD.Get_rank() == MPI.COMM_WORLD.Get_size() - 1:
    del s  # one rank drops its solver early: released locally, no collective call follows
print("leaving without close", flush=True)

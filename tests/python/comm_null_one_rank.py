"""MPI.COMM_NULL on rank 0 only, the others giving MPI.COMM_WORLD: rank 0
raises ArgumentError at once, before any communication; the others cannot
learn it (they wait in the collective for rank 0), so the program is run as
`python -m mpi4py` (as docs/python.md says), whose uncaught-exception handler
aborts the job: it ends, no hang.  Run by run.sh under a timeout."""
import sys

from mpi4py import MPI

import ovkrylov

comm = MPI.COMM_NULL if MPI.COMM_WORLD.Get_rank() == 0 else MPI.COMM_WORLD
A = ovkrylov.Matrix.laplace27(comm, 4)  # rank 0 raises here
A.close()
print("not reached with a COMM_NULL on rank 0", flush=True)
sys.exit(0)

"""3-D Poisson (7-point, Dirichlet) assembled with SciPy, each rank giving its
block of rows, solved with two ovkrylov solvers; on one rank compared with
scipy.sparse.linalg.cg.

    PYTHONPATH=build/python mpiexec -n 2 /usr/bin/python3 python/examples/poisson.py [-m 24] [-ovk_... options]

Each line also gives the true relative residual ||b - A x|| / ||b||, from A @ x.
"""
import argparse
import sys
import time

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla
from mpi4py import MPI

import ovkrylov


def poisson7(m):
    t = sp.diags([-np.ones(m - 1), 2 * np.ones(m), -np.ones(m - 1)], [-1, 0, 1])
    e = sp.identity(m)
    return (sp.kron(sp.kron(t, e), e) + sp.kron(sp.kron(e, t), e) + sp.kron(sp.kron(e, e), t)).tocsr()


def main():
    argv = ovkrylov.options(sys.argv)  # -ovk_KEY VALUE entries go to the solvers
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("-m", type=int, default=24, help="grid points per direction (m^3 unknowns)")
    args = p.parse_args(argv[1:])
    comm = MPI.COMM_WORLD
    rank, size = comm.Get_rank(), comm.Get_size()
    K = poisson7(args.m)
    n = K.shape[0]
    lo, hi = rank * n // size, (rank + 1) * n // size
    b = np.ones(n)
    with ovkrylov.Matrix.from_csr(comm, lo, K[lo:hi]) as A:
        for solver, precond in (("alg1", "jacobi"), ("pipeprcg", "ic0")):
            with ovkrylov.Solver(A, solver=solver, precond=precond, backend="nbc", rtol=1e-8) as s:
                x, info = s.solve(b[lo:hi])
            r = b[lo:hi] - A @ x  # the true residual, this rank's rows
            true = np.sqrt(comm.allreduce(r @ r) / comm.allreduce(b[lo:hi] @ b[lo:hi]))
            if rank == 0:
                print(f"{solver:9s} {precond:7s} iterations {info.iterations:4d}  relative residual "
                      f"{info.residual:.3e} (true {true:.3e})  solve {info.solve_time:.4f} s")
    if size == 1:
        t = time.perf_counter()
        xc, rc = spla.cg(K, b, tol=1e-8, atol=0.0, maxiter=1000)
        t = time.perf_counter() - t
        print(f"scipy cg  none    converged {rc == 0}  solve {t:.4f} s  "
              f"|x - x_scipy| / |x_scipy| = {np.linalg.norm(x - xc) / np.linalg.norm(xc):.2e}")


if __name__ == "__main__":
    main()

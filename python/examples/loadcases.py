"""k load cases of one problem solved together with Solver.solve_many: the
3-D Poisson matrix (7-point, m^3 unknowns, assembled with SciPy, each rank
its block of rows) under k heat sources, each a Gaussian bump centred at a
different point; one reduction per iteration and one pass over the matrix
per product carry all k systems (docs/solvers.md, "Many right-hand sides").

    PYTHONPATH=build/python mpiexec -n 2 /usr/bin/python3 python/examples/loadcases.py [-m 24] [-k 8]
        [--compare] [-ovk_... options]

Rank 0 prints one line per case (iterations, residual, largest value), then
`Iterations = N` (the largest count), `Final Relative Residual Norm = R` (the
largest), `Solve Time = T s` (the batch, the library's timer); with --compare
also the time of the k cases solved one after another.
"""
import argparse
import sys
import time

import numpy as np
import scipy.sparse as sp
from mpi4py import MPI

import ovkrylov


def poisson7(m):
    t = sp.diags([-np.ones(m - 1), 2 * np.ones(m), -np.ones(m - 1)], [-1, 0, 1])
    e = sp.identity(m)
    return (sp.kron(sp.kron(t, e), e) + sp.kron(sp.kron(e, t), e) + sp.kron(sp.kron(e, e), t)).tocsr()


def sources(m, k, lo, hi):
    """B of shape (k, hi - lo): one row per load case, case j a bump centred at
    a point of a circle in the box."""
    i = np.arange(lo, hi)
    x, y, z = (i // (m * m)) / m, (i // m % m) / m, (i % m) / m
    B = np.empty((k, hi - lo))
    for j in range(k):
        a = 2 * np.pi * j / k
        cx, cy, cz = 0.5 + 0.3 * np.cos(a), 0.5 + 0.3 * np.sin(a), 0.5
        B[j] = np.exp(-((x - cx) ** 2 + (y - cy) ** 2 + (z - cz) ** 2) / 0.01)
    return B


def main():
    argv = ovkrylov.options(sys.argv)
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("-m", type=int, default=24, help="grid points per direction")
    p.add_argument("-k", type=int, default=8, help="load cases")
    p.add_argument("--compare", action="store_true", help="also solve the cases one after another")
    args = p.parse_args(argv[1:])
    comm = MPI.COMM_WORLD
    rank, size = comm.Get_rank(), comm.Get_size()
    K = poisson7(args.m)
    n = K.shape[0]
    lo, hi = rank * n // size, (rank + 1) * n // size
    B = sources(args.m, args.k, lo, hi)
    with ovkrylov.Matrix.from_csr(comm, lo, K[lo:hi]) as A, \
            ovkrylov.Solver(A, solver="cg1", precond="ic0", rtol=1e-8) as s:
        s.setup()
        X, infos = s.solve_many(B)
        if args.compare:
            comm.Barrier()
            t = time.perf_counter()
            for j in range(args.k):
                s.solve(B[j])
            t_single = comm.allreduce(time.perf_counter() - t, op=MPI.MAX)
    peaks = X.max(axis=1) if X.shape[1] else np.full(args.k, -np.inf)
    comm.Allreduce(MPI.IN_PLACE, peaks, op=MPI.MAX)
    if rank == 0:
        for j, info in enumerate(infos):
            print(f"case {j}: {info.iterations} iterations, relative residual {info.residual:.3e}, "
                  f"{info.reason}, max u = {peaks[j]:.5f}")
        print(f"Iterations = {max(i.iterations for i in infos)}")
        print(f"Final Relative Residual Norm = {max(i.residual for i in infos):e}")
        print(f"Solve Time = {infos[0].solve_time:.6f} s")
        if args.compare:
            print(f"one after another: {t_single:.6f} s")


if __name__ == "__main__":
    main()

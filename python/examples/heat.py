"""Implicit Euler for the heat equation u_t = div(k grad u) + 1 on an m^3 grid
(Dirichlet 0 outside), each rank assembling its block of rows with SciPy, with
a conductivity k(x, t) that moves every step:

    (I + dt S(t) L S(t)) u_{n+1} = u_n + dt,   S(t) = diag(sqrt(k(x, t))),
    k(x, t) = 1 + 0.5 sin(2 pi (x + y + z) / m - t),   L the 7-point Laplacian

The pattern stays, the values change.  --mode reuse (default): one Matrix and
one Solver for the whole loop; every step Matrix.update_values(data) and the
next solve redoes only the numeric setup (amg: its reuse keeps the
interpolation, docs/preconditioners.md).  --mode rebuild: a new Matrix and a
new Solver every step (a full setup each time), for comparison.

    PYTHONPATH=build/python mpiexec -n 2 /usr/bin/python3 python/examples/heat.py [-m 32] [--steps 20]
        [--precond amg] [--mode reuse|rebuild] [-v] [-ovk_... options]

Rank 0 prints a line per step with -v, then `Steps = N`, `Iterations = I`
(summed), `Setup Time = T s` (Matrix and Solver creation and update_values),
`Loop Time = T s` (the whole time loop, wall, max over the ranks).
"""
import argparse
import sys
import time

import numpy as np
import scipy.sparse as sp
from mpi4py import MPI

import ovkrylov


def laplace7(m):
    t = sp.diags([-np.ones(m - 1), 2 * np.ones(m), -np.ones(m - 1)], [-1, 0, 1])
    e = sp.identity(m)
    return (sp.kron(sp.kron(t, e), e) + sp.kron(sp.kron(e, t), e) + sp.kron(sp.kron(e, e), t)).tocsr()


class Heat:
    """This rank's rows of I + dt S L S on L's pattern (which holds the diagonal)."""

    def __init__(self, comm, m, dt):
        n = m**3
        r, p = comm.Get_rank(), comm.Get_size()
        self.lo, self.hi = r * n // p, (r + 1) * n // p
        L = laplace7(m)[self.lo:self.hi]
        L.sort_indices()
        self.L, self.m, self.dt = L, m, dt
        self.rows = np.repeat(np.arange(self.lo, self.hi), np.diff(L.indptr))
        self.diag = L.indices == self.rows
        i = np.arange(n)
        self.phase = 2 * np.pi * (i // (m * m) + (i // m) % m + i % m) / m

    def values(self, t):
        """The matrix's entries at time t, in L's CSR order."""
        s = np.sqrt(1.0 + 0.5 * np.sin(self.phase - t))
        return self.dt * self.L.data * s[self.rows] * s[self.L.indices] + self.diag

    def matrix(self, comm, t):
        return ovkrylov.Matrix.from_csr(comm, self.lo, self.L.indptr, self.L.indices, self.values(t))


def main():
    argv = ovkrylov.options(sys.argv)
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("-m", type=int, default=32, help="grid points per direction (m^3 unknowns in all)")
    p.add_argument("--steps", type=int, default=20)
    p.add_argument("--dt", type=float, default=2.0)
    p.add_argument("--precond", default="amg", help="the solvers' preconditioner (amg: reuse=20 by default)")
    p.add_argument("--solver", default="cg1")
    p.add_argument("--rtol", type=float, default=1e-8)
    p.add_argument("--mode", choices=["reuse", "rebuild"], default="reuse")
    p.add_argument("-v", action="store_true", help="a line per step")
    args = p.parse_args(argv[1:])
    comm = MPI.COMM_WORLD
    heat = Heat(comm, args.m, args.dt)
    opts = dict(solver=args.solver, precond=args.precond, rtol=args.rtol)
    u = np.zeros(heat.hi - heat.lo)
    its, t_setup = 0, 0.0
    comm.Barrier()
    t0 = time.perf_counter()
    A = s = None
    for step in range(1, args.steps + 1):
        t = step * args.dt * 0.1
        ts = time.perf_counter()
        if args.mode == "rebuild" or A is None:
            if s is not None:
                s.close()
                A.close()
            A = heat.matrix(comm, t)
            s = ovkrylov.Solver(A, **opts)
        else:
            A.update_values(heat.values(t))  # same pattern: the solver redoes its numeric setup only
        t_setup += time.perf_counter() - ts
        u, info = s.solve(u + args.dt, x0=u)
        its += info.iterations
        if args.v and comm.Get_rank() == 0:
            print(f"step {step:3d}  t {t:6.2f}  iterations {info.iterations:3d}  residual {info.residual:.2e}  "
                  f"solve {info.solve_time:.4f} s")
    s.close()
    A.close()
    loop = comm.allreduce(time.perf_counter() - t0, op=MPI.MAX)
    t_setup = comm.allreduce(t_setup, op=MPI.MAX)
    umax = comm.allreduce(float(u.max()) if u.size else 0.0, op=MPI.MAX)
    if comm.Get_rank() == 0:
        print(f"max u = {umax:.6f}")
        print(f"Steps = {args.steps}")
        print(f"Iterations = {its}")
        print(f"Setup Time = {t_setup:.6f} s")
        print(f"Loop Time = {loop:.6f} s")


if __name__ == "__main__":
    main()

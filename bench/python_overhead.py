"""The Python layer's cost, two measurements (bench/python_overhead.sh runs them):

  solve     one solve of the 27-point Laplacian (-n N per rank, b = ones, x0 = 0,
            default options: alg1, jacobi, blocking) through the package, printing the
            driver's lines (Solve Time: the library's own timer, as the C driver's) and
            "Python Time = T s": the wall time of the Python call Solver.solve() (its
            argument checks and their agreement, the history buffer, the result; the
            solver set up before), max over the ranks.
  operator  (one rank) the cost of one call of a matrix-free Python operator: solves with
            Solver.operator of y = D x (D diagonal, distinct entries; 500 iterations, the
            solve stopped by the iteration limit) against the same D assembled (the C
            product), interleaved; (difference of the medians) / calls, and the body's
            own cost called from Python in a loop.
"""
import sys
import time

import numpy as np
from mpi4py import MPI

import ovkrylov


def solve(n):
    comm = MPI.COMM_WORLD
    with ovkrylov.Matrix.laplace27(comm, n) as A, ovkrylov.Solver(A, from_options=False) as s:
        b = np.ones(A.nlocal)
        s.setup()  # the call below times the solve alone, as Solve Time does
        comm.Barrier()
        t = time.perf_counter()
        x, info = s.solve(b)
        t = comm.allreduce(time.perf_counter() - t, op=MPI.MAX)
    if comm.Get_rank() == 0:
        print(f"Iterations = {info.iterations}")
        print(f"Final Relative Residual Norm = {info.residual:e}")
        print(f"Solve Time = {info.solve_time:.6f} s")
        print(f"Python Time = {t:.6f} s")


def operator(nlocal, its=500, repeats=5):
    comm = MPI.COMM_SELF
    d = np.linspace(1.0, 1e4, nlocal)  # y = D x: as many distinct eigenvalues as rows
    calls = [0]

    def matvec(x, y):
        calls[0] += 1
        np.multiply(x, d, out=y)

    opts = dict(precond="none", rtol=1e-300, max_it=its, from_options=False)
    t_py, t_c, direct = [], [], []
    x, y = np.ones(nlocal), np.empty(nlocal)
    with ovkrylov.Matrix.from_csr(comm, 0, np.arange(nlocal + 1), np.arange(nlocal), d) as D:
        for _ in range(repeats):  # interleaved: the Python operator, the same D assembled, the body alone
            with ovkrylov.Solver.operator(comm, nlocal, matvec, **opts) as s:
                calls[0] = 0
                try:
                    s.solve(np.ones(nlocal))
                except ovkrylov.Error as e:
                    t_py.append(e.info.solve_time)
                    n_py = (calls[0], e.info.iterations)
            with ovkrylov.Solver(D, **opts) as s:
                try:
                    s.solve(np.ones(nlocal))
                except ovkrylov.Error as e:
                    t_c.append(e.info.solve_time)
                    n_c = e.info.iterations
            t = time.perf_counter()
            for _ in range(n_py[0]):
                matvec(x, y)
            direct.append((time.perf_counter() - t) / n_py[0])
    per_call = (np.median(t_py) - np.median(t_c)) / n_py[0]
    print(f"nlocal {nlocal}: {n_py[1]} iterations, {n_py[0]} operator calls (assembled: {n_c} iterations)")
    print(f"  solve: Python operator {np.median(t_py) * 1e3:.2f} ms, assembled diagonal {np.median(t_c) * 1e3:.2f} ms "
          f"(medians of {repeats})")
    print(f"  Python operator cost per call (beyond the C product) = {per_call * 1e6:.2f} us; "
          f"its body alone from Python {np.median(direct) * 1e6:.2f} us")


if __name__ == "__main__":
    mode = sys.argv[1]
    if mode == "solve":
        solve(int(sys.argv[2]))
    else:
        operator(int(sys.argv[2]))

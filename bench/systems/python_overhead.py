"""The Python layer's cost, two measurements (bench/systems/python_overhead.sh runs them):

  solve     one solve of the 27-point Laplacian (-n N per rank, b = ones, x0 = 0,
            default options: alg1, jacobi, blocking) through the package, printing the
            driver's lines (Solve Time: the library's own timer, as the C driver's) and
            "Python Time = T s": the wall time of the Python call Solver.solve() (its
            argument checks and their agreement, the history buffer, the result; the
            solver set up before), max over the ranks.
  cost      the package's own cost per call: solve() (and solve_many() of 8 systems) on
            a tiny Laplacian (-n 2 per rank), 300 calls each: the median of (wall time of
            the call - the library's Solve Time), which the load of a shared machine
            disturbs far less than a difference of two long solves.
  many      solve_many of k systems on the 27-point Laplacian (-n N per rank): b = ones
            and the k - 1 right-hand sides of the C driver's -nrhs k (the same hash of
            (global row, j)), the solver set up before; prints the driver's lines, with
            Solve Time the wall time of the Python call Solver.solve_many() (max over the
            ranks), as the driver's -nrhs times its ovk_solver_solve_many call.
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


def rhs_value(rows, j):
    """examples/common/experiment.c's right-hand side j > 0 of -nrhs: a hash of
    (global row, j) in [0, 1), in uint64 arithmetic (wrapping)."""
    u = np.uint64
    with np.errstate(over="ignore"):
        g = rows.astype(u) * u(0x9E3779B97F4A7C15) + u(j) * u(0xD1B54A32D192ED03)
        g = (g ^ (g >> u(30))) * u(0xBF58476D1CE4E5B9)
        g = (g ^ (g >> u(27))) * u(0x94D049BB133111EB)
        return ((g ^ (g >> u(31))) >> u(11)).astype(np.float64) * (1.0 / 9007199254740992.0)


def cost(calls=300):
    comm = MPI.COMM_WORLD
    with ovkrylov.Matrix.laplace27(comm, 2) as A, ovkrylov.Solver(A, from_options=False) as s:
        b = np.ones(A.nlocal)
        B = np.ones((8, A.nlocal))
        s.setup()
        one, eight = [], []
        for _ in range(calls):
            t = time.perf_counter()
            x, info = s.solve(b)
            one.append(time.perf_counter() - t - info.solve_time)
            t = time.perf_counter()
            X, infos = s.solve_many(B)
            eight.append(time.perf_counter() - t - infos[0].solve_time)
    one = comm.allreduce(float(np.median(one)), op=MPI.MAX)
    eight = comm.allreduce(float(np.median(eight)), op=MPI.MAX)
    if comm.Get_rank() == 0:
        print(f"Python cost per solve() = {one * 1e6:.1f} us (median of {calls}, max over ranks)")
        print(f"Python cost per solve_many() of 8 = {eight * 1e6:.1f} us")


def many(n, k):
    comm = MPI.COMM_WORLD
    with ovkrylov.Matrix.laplace27(comm, n) as A, ovkrylov.Solver(A, from_options=False) as s:
        rows = np.arange(A.row_start, A.row_start + A.nlocal, dtype=np.int64)
        B = np.empty((k, A.nlocal))
        B[0] = 1.0
        for j in range(1, k):
            B[j] = rhs_value(rows, j)
        s.setup()
        comm.Barrier()
        t = time.perf_counter()
        X, infos = s.solve_many(B)
        t = comm.allreduce(time.perf_counter() - t, op=MPI.MAX)
    if comm.Get_rank() == 0:
        for j, info in enumerate(infos):
            print(f"System {j}: {info.iterations} iterations, relative residual {info.residual:e}, {info.reason}")
        print(f"Iterations = {max(i.iterations for i in infos)}")
        print(f"Final Relative Residual Norm = {max(i.residual for i in infos):e}")
        print(f"Solve Time = {t:.6f} s")


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
    elif mode == "cost":
        cost()
    elif mode == "many":
        many(int(sys.argv[2]), int(sys.argv[3]))
    else:
        operator(int(sys.argv[2]))

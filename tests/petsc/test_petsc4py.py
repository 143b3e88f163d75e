"""KSP type ovkrylov from petsc4py: the plug-in loaded by petsc4py.init's
-dll_append, ksp.setType("ovkrylov"), a 3-D Poisson solved with pipecg and
PETSc's jacobi, checked by the true residual and against KSPCG's iterations;
with -amg also with ovkrylov's amg beside PETSc's own hypre (PCHYPRE), each
converging (the plug-in loads ovkrylov apart from PETSc's hypre); a saddle
point [[A, B^T], [B, 0]] with minres and ovkrylov's fieldsplit, the fields
from -ksp_ovkrylov_fields FILE (converged; a file one id short refused).

    mpiexec -n 2 python3 test_petsc4py.py PATH/libovkrylov_petsc.so [-amg]
"""
import os
import sys

import petsc4py

petsc4py.init(["-dll_append", sys.argv[1]])
from petsc4py import PETSc  # noqa: E402

N = 10


def poisson():
    A = PETSc.Mat().createAIJ([N**3, N**3], nnz=7)
    lo, hi = A.getOwnershipRange()
    for row in range(lo, hi):
        g = (row % N, (row // N) % N, row // (N * N))
        for dim, stride in enumerate((1, N, N * N)):
            for side in (-1, 1):
                if 0 <= g[dim] + side < N:
                    A.setValue(row, row + side * stride, -1.0)
        A.setValue(row, row, 6.0)
    A.assemble()
    return A


def solve(A, b, ksp_type, pc="jacobi", **options):
    opts = PETSc.Options()
    for key, value in options.items():
        opts[key] = value
    ksp = PETSc.KSP().create()
    ksp.setOperators(A)
    ksp.setType(ksp_type)
    ksp.getPC().setType(pc)
    ksp.setNormType(PETSc.KSP.NormType.UNPRECONDITIONED)
    ksp.setTolerances(rtol=1e-8)
    ksp.setFromOptions()
    for key in options:
        opts.delValue(key)
    x = b.duplicate()
    ksp.solve(b, x)
    r = b.duplicate()
    A.mult(x, r)
    r.aypx(-1.0, b)
    result = (ksp.getType(), ksp.getIterationNumber(), ksp.getConvergedReason(), r.norm() / b.norm())
    ksp.destroy()
    return result


def saddle(m):
    """A the 1-D Laplacian of 2m velocity rows, B the differences of m
    disjoint pairs, rows interleaved u u p; the matrix and each row's field."""
    n, fields = 3 * m, [int(r % 3 == 2) for r in range(3 * m)]
    u = lambda k: 3 * (k // 2) + k % 2  # noqa: E731 (velocity k's row)
    K = PETSc.Mat().createAIJ([n, n], nnz=4)
    lo, hi = K.getOwnershipRange()
    for k in range(2 * m):
        if lo <= u(k) < hi:
            K.setValue(u(k), u(k), 2.0)
            for j in (k - 1, k + 1):
                if 0 <= j < 2 * m:
                    K.setValue(u(k), u(j), -1.0)
            K.setValue(u(k), 3 * (k // 2) + 2, 1.0 if k % 2 == 0 else -1.0)
    for j in range(m):
        if lo <= 3 * j + 2 < hi:
            K.setValues([3 * j + 2], [u(2 * j), u(2 * j + 1)], [1.0, -1.0])
    K.assemble()
    return K, fields


def error_of(call):
    """The text of the PETSc.Error that call() raises (its traceback and message); '' when it succeeds."""
    try:
        call()
    except PETSc.Error as e:
        return str(e)
    return ""


def fieldsplit():
    from mpi4py import MPI
    comm = MPI.COMM_WORLD
    K, fields = saddle(20)
    b = K.createVecLeft()
    b.set(1.0)
    huge = fields[:5] + ["99999999999999999999"] + fields[6:]  # an id that overflows any integer
    names = comm.bcast([f"fields_{os.getpid()}", f"short_{os.getpid()}", f"huge_{os.getpid()}"]
                       if comm.rank == 0 else None)
    if comm.rank == 0:
        for name, ids in zip(names, (fields, fields[:-1], huge)):
            with open(name, "w") as f:
                f.write(" ".join(map(str, ids)) + "\n")
    comm.barrier()
    try:
        spec = {"ksp_ovkrylov_solver": "minres", "ksp_ovkrylov_precond": "fieldsplit:0=jacobi"}
        _, its, reason, rel = solve(K, b, "ovkrylov", ksp_ovkrylov_fields=names[0], **spec)
        PETSc.Sys.Print(f"minres + fieldsplit: {its} iterations, reason {reason}, true residual {rel:.2e}")
        ok = reason > 0 and rel < 1e-6
        try:
            solve(K, b, "ovkrylov", ksp_ovkrylov_fields=names[1], **spec)
            ok = False
        except PETSc.Error:
            PETSc.Sys.Print("a fields file one id short: refused")
        said = error_of(lambda: solve(K, b, "ovkrylov", ksp_ovkrylov_fields=names[2], **spec))
        if "99999999999999999999" in said and "entry 6" in said:  # the value as written, where
            PETSc.Sys.Print("a field id of 99999999999999999999: refused, named as written")
        else:
            PETSc.Sys.Print(f"a field id of 99999999999999999999: not named as written: {said!r}")
            ok = False
    finally:
        comm.barrier()
        if comm.rank == 0:
            for name in names:
                os.remove(name)
    return ok


def main():
    A = poisson()
    b = A.createVecLeft()
    b.set(1.0)
    kind, its, reason, rel = solve(A, b, "ovkrylov", ksp_ovkrylov_solver="pipecg")
    _, cg_its, _, _ = solve(A, b, "cg")
    PETSc.Sys.Print(f"KSP type {kind}: {its} iterations (KSPCG {cg_its}), reason {reason}, true residual {rel:.2e}")
    ok = kind == "ovkrylov" and reason > 0 and rel < 1e-6 and abs(its - cg_its) <= 1
    if "-amg" in sys.argv[2:]:
        for name, pc, options in (("ovkrylov's amg", "jacobi", {"ksp_ovkrylov_precond": "amg"}),
                                  ("PETSc's hypre", "hypre", {})):
            _, its, reason, rel = solve(A, b, "ovkrylov", pc=pc, ksp_ovkrylov_solver="pipecg", **options)
            PETSc.Sys.Print(f"pipecg + {name}: {its} iterations, reason {reason}, true residual {rel:.2e}")
            ok = ok and reason > 0 and rel < 1e-6
    ok = fieldsplit() and ok
    PETSc.Sys.Print("passed" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

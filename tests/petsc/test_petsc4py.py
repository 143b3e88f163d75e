"""KSP type ovkrylov from petsc4py: the plug-in loaded by petsc4py.init's
-dll_append, ksp.setType("ovkrylov"), a 3-D Poisson solved with pipecg and
PETSc's jacobi, checked by the true residual and against KSPCG's iterations;
with -amg also with ovkrylov's amg beside PETSc's own hypre (PCHYPRE), each
converging (the plug-in loads ovkrylov apart from PETSc's hypre).

    mpiexec -n 2 python3 test_petsc4py.py PATH/libovkrylov_petsc.so [-amg]
"""
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
    PETSc.Sys.Print("passed" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/python3
"""fe_advdiff.py -- an unstructured nonsymmetric test matrix (Matrix Market `general`):
P1 advection-diffusion on fe_gen.py's gmsh mesh, streamline-upwind Petrov-Galerkin.

Run it with Debian's Python, /usr/bin/python3, as fe_gen.py (same packages:
gmsh python3-gmsh python3-scipy python3-numpy).  The mesh, the node ordering
and the element geometry are fe_gen.py's (imported): the unit cube with a
spherical inclusion and a cylindrical through-hole, linear tetrahedra of size
about H.

Problem: -eps laplace(u) + beta . grad(u) = f, constant velocity beta (default
(1, 0.5, 0.25), normalised to |beta| = 1), eps = 1 / PE (global Peclet number
PE, default 100) outside the inclusion and eps * JUMP inside it (default
JUMP 1: homogeneous).  u = 0 on the inflow face x = 0 (eliminated: rows and
columns of those nodes dropped), natural (zero total flux of the diffusion)
elsewhere.  Element matrix of tetrahedron T (volume V, barycentric gradients
G_i), for test function i and trial function j:

  K_ij = eps V G_i . G_j                  diffusion
       + V/4 beta . G_j                   Galerkin convection (int phi_i = V/4)
       + tau V (beta . G_i)(beta . G_j)   SUPG (P1: the second derivatives vanish)

with tau = h_T / (2 |beta|) (coth(Pe_T) - 1 / Pe_T), Pe_T = |beta| h_T / (2 eps)
and h_T = the diameter of the sphere of T's volume; --galerkin drops the
SUPG term.  At H = 0.013 and PE = 100 the element Peclet numbers are about
0.6: diagonally weighted but not dominant, solvable by GMRES or BiCGStab with
Jacobi or block-Jacobi ILU(0).

Output NAME.mtx: "%%MatrixMarket matrix coordinate real general", every
stored entry, 1-based, %.17g.  No right-hand side is written: the drivers'
`-rhs random` gives every program the same b (SplitMix64 of the global row).
Checks printed: the nonsymmetry max|A - A^T| / max|A|, the diagonal's sign,
the rows that are not diagonally dominant, the interface of contiguous 2- and
4-rank splits, and with --check scipy's GMRES + ILU at small sizes.

Sizes (2-core VM shared with other jobs, gmsh 4.8 Delaunay, 1 thread; times of the whole run):
  /usr/bin/python3 bench/gen/fe_advdiff.py -h 0.06  -o /tmp/fe/advdiff_small.mtx
      n =   4,557  nnz =    61,197                                      5 s
  /usr/bin/python3 bench/gen/fe_advdiff.py -h 0.013 -o /tmp/fe/advdiff.mtx
      n = 332,277  nnz = 4,983,661  (1,985,953 tets; element Peclet
      median 0.48, max 0.66; 4.0 % interface rows at 2 ranks)        855 s (mesh 757 s), 184 MB file
"""
import argparse
import os
import sys
import time

import numpy as np
import scipy.sparse as sp

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fe_gen  # noqa: E402  (the mesh, the orderings, the element geometry)

log = fe_gen.log


def supg_tau(V, beta_norm, eps):
    """SUPG parameter per element: h / (2 |beta|) (coth(Pe) - 1/Pe), h the volume's sphere diameter."""
    h = np.cbrt(6.0 * V / np.pi)
    pe = beta_norm * h / (2.0 * eps)
    pe = np.maximum(pe, 1e-12)
    xi = np.where(pe > 1e-3, 1.0 / np.tanh(pe) - 1.0 / pe, pe / 3.0)  # series near 0
    return h / (2.0 * beta_norm) * xi, pe


def assemble(xyz, tets, eps, beta, supg, chunk=400_000):
    """global advection-diffusion matrix over all nodes, duplicates summed; element Peclet numbers."""
    nn, ne = len(xyz), len(tets)
    rows = np.empty(ne * 16, dtype=np.int32)
    cols = np.empty(ne * 16, dtype=np.int32)
    vals = np.empty(ne * 16)
    bnorm = np.linalg.norm(beta)
    pes = np.empty(ne)
    for s in range(0, ne, chunk):
        e = min(s + chunk, ne)
        t = tets[s:e]
        V, G = fe_gen.tet_geometry(xyz, t)
        ep = eps[s:e]
        bG = G @ beta                                        # (m, 4): beta . G_j
        K = (ep * V)[:, None, None] * np.matmul(G, G.transpose(0, 2, 1))
        K += (V / 4.0)[:, None, None] * bG[:, None, :]       # row i, column j: V/4 beta . G_j
        tau, pes[s:e] = supg_tau(V, bnorm, ep)
        if supg:
            K += (tau * V)[:, None, None] * bG[:, :, None] * bG[:, None, :]
        a, b = s * 16, e * 16
        rows[a:b] = np.repeat(t, 4, axis=1).ravel()
        cols[a:b] = np.tile(t, (1, 4)).ravel()
        vals[a:b] = K.ravel()
    A = sp.csr_matrix((vals, (rows, cols)), shape=(nn, nn))
    del rows, cols, vals
    A.sum_duplicates()
    A.sort_indices()
    return A, pes


def write_mtx(path, A, comment):
    C = A.tocoo()
    n = A.shape[0]
    with open(path, "w", buffering=1 << 22) as f:
        f.write("%%MatrixMarket matrix coordinate real general\n")
        for line in comment:
            f.write(f"% {line}\n")
        f.write(f"{n} {n} {C.nnz}\n")
        step = 250_000
        for s in range(0, C.nnz, step):
            e = min(s + step, C.nnz)
            m = e - s
            buf = [None] * (3 * m)
            buf[0::3] = (C.row[s:e].astype(np.int64) + 1).tolist()
            buf[1::3] = (C.col[s:e].astype(np.int64) + 1).tolist()
            buf[2::3] = C.data[s:e].tolist()
            f.write(("%d %d %.17g\n" * m) % tuple(buf))
    return C.nnz


def check(A, do_solve):
    n = A.shape[0]
    d = A.diagonal()
    asym = abs(A - A.T).max() / abs(A).max()
    off = np.asarray(abs(A).sum(axis=1)).ravel() - np.abs(d)
    weak = int((np.abs(d) < off).sum())
    log(f"check: max|A - A^T| / max|A| = {asym:.2e} (nonsymmetric); diagonal min {d.min():.3e} max {d.max():.3e}"
        f" ({'positive' if d.min() > 0 else 'NOT POSITIVE'}); {weak} of {n} rows not diagonally dominant")
    ok = d.min() > 0 and asym > 0
    if do_solve:
        from scipy.sparse.linalg import gmres, spilu, LinearOperator
        b = np.random.default_rng(1).uniform(-1, 1, n)
        ilu = spilu(A.tocsc(), drop_tol=0.0, fill_factor=1.0)
        M = LinearOperator((n, n), matvec=ilu.solve)
        x, info, its = fe_gen.scipy_solve(gmres, A, b, 1e-8, M=M, restart=30, maxiter=2000, callback_type="pr_norm",
                                          atol=0.0)
        rel = np.linalg.norm(b - A @ x) / np.linalg.norm(b)
        log(f"check: scipy GMRES(30) + ILU, random b, rtol 1e-8: info {info}, {its} inner iterations, "
            f"true relative residual {rel:.2e}")
        ok = ok and info == 0
    return ok


def main():
    ap = argparse.ArgumentParser(
        add_help=False, description="unstructured P1 SUPG advection-diffusion matrix (gmsh + numpy/scipy)",
        epilog="see the header of this file for the problem and the sizes")
    ap.add_argument("-h", dest="h", type=float, default=0.05, help="mesh size (default 0.05)")
    ap.add_argument("-o", dest="out", required=True, help="output NAME.mtx")
    ap.add_argument("--peclet", type=float, default=100.0, help="global Peclet number |beta| / eps (default 100)")
    ap.add_argument("--beta", type=float, nargs=3, default=[1.0, 0.5, 0.25],
                    help="velocity direction (normalised; default 1 0.5 0.25)")
    ap.add_argument("--jump", type=float, default=1.0, help="diffusion inside the inclusion / outside (default 1)")
    ap.add_argument("--galerkin", action="store_true", help="plain Galerkin: no SUPG term")
    ap.add_argument("--order", choices=["hilbert", "rcm", "natural"], default="hilbert",
                    help="node numbering (default hilbert)")
    ap.add_argument("--algo", type=int, default=1, help="gmsh Mesh.Algorithm3D (default 1, Delaunay)")
    ap.add_argument("--threads", type=int, default=1, help="gmsh threads (default 1)")
    ap.add_argument("--check", action="store_true", help="also solve with scipy GMRES + ILU (small sizes)")
    ap.add_argument("-v", action="store_true", help="gmsh's messages")
    ap.add_argument("--help", action="help", help="this message")
    a = ap.parse_args()
    if not a.peclet > 0 or not a.jump > 0:
        ap.error("--peclet and --jump must be > 0")
    beta = np.asarray(a.beta, dtype=np.float64)
    if not np.linalg.norm(beta) > 0:
        ap.error("--beta must not be zero")
    if beta[0] <= 0:
        ap.error("--beta: x component must be > 0 (x = 0 is the inflow face)")
    beta = beta / np.linalg.norm(beta)
    os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)

    xyz, tets, incl = fe_gen.mesh(a.h, a.algo, a.threads, a.v)
    t_mesh = time.time() - fe_gen.T0
    log(f"mesh: h = {a.h}: {len(xyz)} nodes, {len(tets)} tets ({incl.sum()} in the inclusion)")
    free = xyz[:, 0] > 1e-9
    new = fe_gen.order_free_nodes(a.order, xyz, tets, free)
    nf = int(free.sum())
    tets_new = new[tets]
    xyz_new = np.empty_like(xyz)
    xyz_new[new] = xyz
    eps = np.where(incl, a.jump, 1.0) / a.peclet
    t1 = time.time()
    A, pes = assemble(xyz_new, tets_new, eps, beta, not a.galerkin)
    A = A[:nf, :nf].tocsr()                      # eliminate the inflow nodes (numbered last)
    A.eliminate_zeros()
    A.sort_indices()
    n = A.shape[0]
    log(f"assembly: n = {n} unknowns, nnz = {A.nnz}, {A.nnz / n:.1f} per row ({time.time() - t1:.1f} s); "
        f"element Peclet numbers: median {np.median(pes):.2f}, max {pes.max():.2f}")
    for p in (2, 4):
        k = fe_gen.interface(A, 1, p)
        log(f"contiguous split over {p} ranks: {k} interface rows ({100.0 * k / n:.2f} %)")
    ok = check(A, a.check)
    t1 = time.time()
    comment = [f"fe_advdiff.py -h {a.h} --peclet {a.peclet:g} --beta {a.beta[0]:g} {a.beta[1]:g} {a.beta[2]:g}"
               f" --jump {a.jump:g}{' --galerkin' if a.galerkin else ''} --order {a.order}: {len(xyz)} nodes,"
               f" {len(tets)} tets of fe_gen.py's geometry; P1 {'Galerkin' if a.galerkin else 'SUPG'}"
               " advection-diffusion, u = 0 on x = 0 (eliminated)"]
    nnz = write_mtx(a.out, A, comment)
    log(f"wrote {a.out}: {n} rows, {nnz} entries ({os.path.getsize(a.out) / 1e6:.0f} MB, {time.time() - t1:.1f} s)")
    log(f"done: n = {n}; mesh {t_mesh:.1f} s, total {time.time() - fe_gen.T0:.1f} s{'' if ok else '; CHECKS FAILED'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/python3
"""fe_gen.py -- unstructured finite-element SPD test matrices (Matrix Market).

Run it with Debian's Python, /usr/bin/python3 (the shebang says so): it needs
the Debian packages python3-gmsh, python3-numpy and python3-scipy, which a
pyenv or venv `python3` earlier on PATH does not see:

    apt-get install -y --no-install-recommends gmsh python3-gmsh python3-scipy python3-numpy

Domain: the unit cube [0,1]^3 with a spherical inclusion (centre
(0.6, 0.5, 0.5), radius 0.25, a separate material, meshed conformingly) and a
cylindrical through-hole along z (axis x = y = 0.25, radius 0.1), built with
gmsh's OpenCASCADE kernel and meshed by gmsh with linear tetrahedra of size
about H (-h H).  Both problems are clamped on the face x = 0 (the hole and the
inclusion do not touch it) and free (natural boundary condition) elsewhere.

  poisson     P1 Galerkin for -div(k grad u) = f, k = 1 outside and k = JUMP
              (default 1000) inside the inclusion; the Dirichlet rows and
              columns are eliminated.  One unknown per free node.
  elasticity  P1 3-D isotropic linear elasticity, E = 1, nu = 0.3 (element
              stiffness V B^T D B), E = JUMP inside the inclusion (default 1:
              homogeneous); clamped (u = 0) on x = 0, those dofs eliminated.
              Unknowns interleaved by node, dof = 3*node + component, so block
              size 3 holds on every row split that is a multiple of 3.  Also
              writes NAME.xyz: the number of nodes, then "x y z" per free node
              in the order of the matrix's node blocks (for rigid-body modes).

The free nodes are renumbered for locality (default: along a 3-D Hilbert
curve, --order hilbert; or --order rcm, reverse Cuthill-McKee on the node
graph), so that contiguous row splits have small interfaces; the interface
of 2- and 4-rank contiguous node splits is printed.

Output NAME.mtx: "%%MatrixMarket matrix coordinate real symmetric", lower
triangle, 1-based, %.17g.  Checks printed every time: symmetry, positive
diagonal, the kernel of the unconstrained matrix (constants for poisson, the
six rigid-body modes for elasticity); positive definiteness by a dense
Cholesky for n <= 6000 (plus the smallest eigenvalue by eigsh for
n <= 10000), and with --cg by scipy's Jacobi-CG at any size.

Sizes (this machine: 2 cores; gmsh 4.8, Delaunay, 1 thread; times of the whole run):

  /usr/bin/python3 bench/fe_gen.py poisson    -h 0.07   -o /tmp/fe/poisson_small.mtx
      n =   3,137  nnz =     41,119                        1 s (3 s with --cg)
  /usr/bin/python3 bench/fe_gen.py elasticity -h 0.1    -o /tmp/fe/elast_small.mtx
      n =   3,387  nnz =    124,853  (1,129 nodes)         1 s
  /usr/bin/python3 bench/fe_gen.py poisson    -h 0.0095 -o /tmp/fe/poisson.mtx
      n = 838,212  nnz = 12,694,374  (5.1 M tets)        317 s (mesh 297 s), 3.8 GB, 243 MB file
  /usr/bin/python3 bench/fe_gen.py elasticity -h 0.0181 -o /tmp/fe/elast.mtx
      n = 387,849  nnz = 17,200,789  (129,283 nodes)      67 s (mesh 37 s),  4 GB, 316 MB file

The unknowns grow like h^-3: about 0.72 / h^3 free nodes at these sizes.
The mesh takes most of the time; --algo 10 (gmsh's HXT, parallel) meshes the
Poisson case in 38 s instead of 297 s, but HXT's meshes differ from run to
run (and are a bit coarser: 755,911 unknowns at h = 0.0095), while Delaunay
with 1 thread gives the same file every time (for a given gmsh version).
See bench/README.md, "Unstructured FE matrices", for the peers on them.
"""
import argparse
import os
import sys
import time

import numpy as np
import scipy.sparse as sp

T0 = time.time()


def log(msg):
    print(f"[{time.time() - T0:7.1f} s] {msg}", flush=True)


# ---------------------------------------------------------------- geometry + mesh
SPHERE = (0.6, 0.5, 0.5, 0.25)      # centre, radius: the inclusion
CYLINDER = (0.25, 0.25, 0.1)         # axis x, y (along z through the cube), radius: the hole


def mesh(h, algo, threads, verbose):
    """gmsh tetrahedral mesh: coords (nn,3), tets (ne,4) 0-based, inclusion flag (ne,)."""
    import gmsh
    gmsh.initialize()
    try:
        gmsh.option.setNumber("General.Terminal", 1 if verbose else 0)
        gmsh.option.setNumber("General.NumThreads", threads)
        gmsh.model.add("fe_gen")
        occ = gmsh.model.occ
        box = occ.addBox(0, 0, 0, 1, 1, 1)
        cx, cy, r = CYLINDER
        cyl = occ.addCylinder(cx, cy, -0.1, 0, 0, 1.2, r)
        cut, _ = occ.cut([(3, box)], [(3, cyl)])
        sx, sy, sz, sr = SPHERE
        sph = occ.addSphere(sx, sy, sz, sr)
        # fragment: the cube minus the sphere and the sphere, sharing the interface
        occ.fragment(cut, [(3, sph)])
        occ.synchronize()
        vols = [t for d, t in gmsh.model.getEntities(3)]
        incl = []
        for v in vols:
            x0, y0, z0, x1, y1, z1 = gmsh.model.getBoundingBox(3, v)
            if x0 > sx - sr - 0.01 and x1 < sx + sr + 0.01 and y0 > sy - sr - 0.01 and y1 < sy + sr + 0.01:
                incl.append(v)
        if len(vols) != 2 or len(incl) != 1:
            raise RuntimeError(f"unexpected geometry: volumes {vols}, inclusion {incl}")
        gmsh.option.setNumber("Mesh.MeshSizeMax", h)
        gmsh.option.setNumber("Mesh.MeshSizeMin", 0.0)
        gmsh.option.setNumber("Mesh.MeshSizeFromCurvature", 0)
        gmsh.option.setNumber("Mesh.MeshSizeExtendFromBoundary", 1)
        gmsh.option.setNumber("Mesh.Algorithm3D", algo)
        gmsh.model.mesh.generate(3)
        tags, xyz, _ = gmsh.model.mesh.getNodes()
        tags = np.asarray(tags, dtype=np.int64)
        xyz = np.asarray(xyz, dtype=np.float64).reshape(-1, 3)
        tets, flag = [], []
        for v in vols:
            etypes, _, enodes = gmsh.model.mesh.getElements(3, v)
            for et, en in zip(etypes, enodes):
                if et != 4:
                    raise RuntimeError(f"element type {et} in volume {v}: only linear tetrahedra expected")
                en = np.asarray(en, dtype=np.int64).reshape(-1, 4)
                tets.append(en)
                flag.append(np.full(len(en), v in incl))
    finally:
        gmsh.finalize()
    tets = np.concatenate(tets)
    flag = np.concatenate(flag)
    # gmsh node tags -> 0-based indices of the nodes the tets use
    lut = np.full(tags.max() + 1, -1, dtype=np.int64)
    lut[tags] = np.arange(len(tags))
    tets = lut[tets]
    used = np.unique(tets)
    remap = np.full(len(tags), -1, dtype=np.int64)
    remap[used] = np.arange(len(used))
    return xyz[used], remap[tets], flag


# ---------------------------------------------------------------- orderings
def hilbert_keys(pts, bits=21):
    """Hilbert index of points (N,3) in [lo,hi]^3 (Skilling's transpose algorithm, vectorised)."""
    lo, hi = pts.min(axis=0), pts.max(axis=0)
    scale = (2 ** bits - 1) / max((hi - lo).max(), 1e-300)
    X = [np.floor((pts[:, d] - lo[d]) * scale).astype(np.uint64) for d in range(3)]
    n = 3
    M = np.uint64(1 << (bits - 1))
    Q = M
    while Q > 1:
        P = Q - np.uint64(1)
        for i in range(n):
            high = (X[i] & Q) != 0
            X[0] = np.where(high, X[0] ^ P, X[0])
            t = np.where(high, np.uint64(0), (X[0] ^ X[i]) & P)
            X[0] ^= t
            X[i] ^= t
        Q >>= np.uint64(1)
    for i in range(1, n):
        X[i] ^= X[i - 1]
    t = np.zeros_like(X[0])
    Q = M
    while Q > 1:
        t = np.where((X[n - 1] & Q) != 0, t ^ (Q - np.uint64(1)), t)
        Q >>= np.uint64(1)
    for i in range(n):
        X[i] ^= t
    key = np.zeros_like(X[0])
    for b in range(bits - 1, -1, -1):
        for i in range(n):
            key = (key << np.uint64(1)) | ((X[i] >> np.uint64(b)) & np.uint64(1))
    return key


def node_graph(tets, nn):
    """node adjacency (CSR pattern, diagonal included) of the mesh."""
    i = np.repeat(tets, 4, axis=1).ravel()
    j = np.tile(tets, (1, 4)).ravel()
    g = sp.csr_matrix((np.ones(len(i), dtype=np.int8), (i, j)), shape=(nn, nn))
    g.sum_duplicates()
    return g


def order_free_nodes(kind, xyz, tets, free):
    """new index of every node: free nodes 0..nf-1 in ORDER, fixed ones after them."""
    nn = len(xyz)
    fidx = np.flatnonzero(free)
    if kind == "hilbert":
        perm = fidx[np.argsort(hilbert_keys(xyz[fidx]), kind="stable")]
    elif kind == "rcm":
        from scipy.sparse.csgraph import reverse_cuthill_mckee
        g = node_graph(tets, nn)[fidx][:, fidx].tocsr()
        perm = fidx[reverse_cuthill_mckee(g, symmetric_mode=True)]
    elif kind == "natural":
        perm = fidx
    else:
        raise ValueError(kind)
    new = np.empty(nn, dtype=np.int64)
    new[perm] = np.arange(len(perm))
    new[np.flatnonzero(~free)] = len(perm) + np.arange(nn - len(perm))
    return new


# ---------------------------------------------------------------- element kernels
def tet_geometry(xyz, tets):
    """volumes (ne,) and barycentric gradients (ne,4,3) of linear tets."""
    p0 = xyz[tets[:, 0]]
    e1, e2, e3 = xyz[tets[:, 1]] - p0, xyz[tets[:, 2]] - p0, xyz[tets[:, 3]] - p0
    c23, c31, c12 = np.cross(e2, e3), np.cross(e3, e1), np.cross(e1, e2)
    det = np.einsum("ij,ij->i", e1, c23)
    if np.any(det == 0):
        raise RuntimeError("degenerate tetrahedron")
    G = np.empty((len(tets), 4, 3))
    G[:, 1], G[:, 2], G[:, 3] = c23 / det[:, None], c31 / det[:, None], c12 / det[:, None]
    G[:, 0] = -(G[:, 1] + G[:, 2] + G[:, 3])
    return np.abs(det) / 6.0, G


def iso_D(E, nu):
    lam = E * nu / ((1 + nu) * (1 - 2 * nu))
    mu = E / (2 * (1 + nu))
    D = np.zeros((6, 6))
    D[:3, :3] = lam
    D[np.arange(3), np.arange(3)] = lam + 2 * mu
    D[np.arange(3, 6), np.arange(3, 6)] = mu
    return D


def assemble(problem, xyz, tets, coef, nu, chunk=400_000):
    """global matrix over all nodes (dofs) in the numbering of TETS, duplicates summed."""
    nn, ne = len(xyz), len(tets)
    bs = 1 if problem == "poisson" else 3
    nd = 4 * bs
    rows = np.empty(ne * nd * nd, dtype=np.int32)
    cols = np.empty(ne * nd * nd, dtype=np.int32)
    vals = np.empty(ne * nd * nd)
    D = iso_D(1.0, nu) if bs == 3 else None
    for s in range(0, ne, chunk):
        e = min(s + chunk, ne)
        t = tets[s:e]
        V, G = tet_geometry(xyz, t)
        w = V * coef[s:e]
        if bs == 1:
            K = w[:, None, None] * np.matmul(G, G.transpose(0, 2, 1))
            dofs = t
        else:
            B = np.zeros((e - s, 6, 12))
            B[:, 0, 0::3], B[:, 1, 1::3], B[:, 2, 2::3] = G[:, :, 0], G[:, :, 1], G[:, :, 2]
            B[:, 3, 1::3], B[:, 3, 2::3] = G[:, :, 2], G[:, :, 1]     # gamma_yz
            B[:, 4, 0::3], B[:, 4, 2::3] = G[:, :, 2], G[:, :, 0]     # gamma_xz
            B[:, 5, 0::3], B[:, 5, 1::3] = G[:, :, 1], G[:, :, 0]     # gamma_xy
            K = w[:, None, None] * np.matmul(B.transpose(0, 2, 1), np.matmul(D, B))
            dofs = (3 * t[:, :, None] + np.arange(3)).reshape(-1, 12)
        a, b = s * nd * nd, e * nd * nd
        rows[a:b] = np.repeat(dofs, nd, axis=1).ravel()
        cols[a:b] = np.tile(dofs, (1, nd)).ravel()
        vals[a:b] = K.ravel()
    A = sp.csr_matrix((vals, (rows, cols)), shape=(nn * bs, nn * bs))   # sums duplicates
    del rows, cols, vals
    A.sum_duplicates()
    A.sort_indices()
    return A


# ---------------------------------------------------------------- checks
def kernel_check(problem, A, xyz_new):
    """relative residual of the unconstrained matrix on its kernel."""
    n = A.shape[0]
    scale = abs(A).max()
    if problem == "poisson":
        Z = [np.ones(n)]
    else:
        x, y, z = xyz_new[:, 0], xyz_new[:, 1], xyz_new[:, 2]
        o, l = np.zeros_like(x), np.ones_like(x)
        modes = [(l, o, o), (o, l, o), (o, o, l), (-y, x, o), (o, -z, y), (z, o, -x)]
        Z = [np.column_stack(m).ravel() for m in modes]
    return max(np.abs(A @ v).max() / (scale * np.abs(v).max()) for v in Z)


def interface(A, bs, nparts):
    """rows (nodes) with a neighbour on another rank, contiguous node split into NPARTS."""
    nnod = A.shape[0] // bs
    owner_node = np.zeros(nnod, dtype=np.int64)
    for r in range(nparts):
        owner_node[nnod * r // nparts: nnod * (r + 1) // nparts] = r
    C = A.tocoo()
    ri, ci = C.row // bs, C.col // bs
    cut = owner_node[ri] != owner_node[ci]
    return len(np.unique(ri[cut]))


def check(A, asym, do_cg):
    n = A.shape[0]
    d = A.diagonal()
    log(f"check: max|A - A^T| / max|A| = {asym:.2e} as assembled (written: the lower triangle of (A + A^T)/2);"
        f" diagonal min {d.min():.3e} max {d.max():.3e} ({'positive' if d.min() > 0 else 'NOT POSITIVE'})")
    ok = asym <= 1e-13 and d.min() > 0
    if n <= 6000:
        try:
            np.linalg.cholesky(A.toarray())
            log(f"check: dense Cholesky of the {n} x {n} matrix succeeded: positive definite")
        except np.linalg.LinAlgError:
            log("check: dense Cholesky FAILED: not positive definite")
            ok = False
    if n <= 10000:
        from scipy.sparse.linalg import eigsh
        lmin = eigsh(A.tocsc(), k=1, sigma=0, which="LM", return_eigenvectors=False)[0]
        lmax = eigsh(A, k=1, which="LA", return_eigenvectors=False, tol=1e-3)[0]
        log(f"check: eigsh lambda_min = {lmin:.6e}, lambda_max ~ {lmax:.6e}, cond ~ {lmax / lmin:.3e}")
        ok = ok and lmin > 0
    if do_cg:
        from scipy.sparse.linalg import cg, LinearOperator
        b = np.random.default_rng(1).uniform(-1, 1, n)
        dinv = 1.0 / d
        M = LinearOperator((n, n), matvec=lambda v: dinv * v)
        its = [0]

        def cb(_):
            its[0] += 1
        kw = {"rtol": 1e-8} if "rtol" in cg.__code__.co_varnames else {"tol": 1e-8}
        x, info = cg(A, b, M=M, maxiter=100000, callback=cb, atol=0.0, **kw)
        rel = np.linalg.norm(b - A @ x) / np.linalg.norm(b)
        log(f"check: scipy Jacobi-CG, random b, rtol 1e-8: info {info}, {its[0]} iterations, "
            f"true relative residual {rel:.2e}")
        ok = ok and info == 0
    return ok


# ---------------------------------------------------------------- output
def write_mtx(path, A, comment):
    L = sp.tril(A, format="coo")
    n = A.shape[0]
    with open(path, "w", buffering=1 << 22) as f:
        f.write("%%MatrixMarket matrix coordinate real symmetric\n")
        for line in comment:
            f.write(f"% {line}\n")
        f.write(f"{n} {n} {L.nnz}\n")
        step = 250_000
        for s in range(0, L.nnz, step):
            e = min(s + step, L.nnz)
            m = e - s
            buf = [None] * (3 * m)
            buf[0::3] = (L.row[s:e].astype(np.int64) + 1).tolist()
            buf[1::3] = (L.col[s:e].astype(np.int64) + 1).tolist()
            buf[2::3] = L.data[s:e].tolist()
            f.write(("%d %d %.17g\n" * m) % tuple(buf))
    return L.nnz


def write_xyz(path, pts):
    with open(path, "w", buffering=1 << 22) as f:
        f.write(f"{len(pts)}\n")
        step = 250_000
        for s in range(0, len(pts), step):
            chunk = pts[s:s + step]
            f.write(("%.17g %.17g %.17g\n" * len(chunk)) % tuple(chunk.ravel().tolist()))


def main():
    ap = argparse.ArgumentParser(
        add_help=False, description="unstructured P1 finite-element SPD matrices (gmsh + numpy/scipy)",
        epilog="see the header of this file for the sizes")
    ap.add_argument("problem", choices=["poisson", "elasticity"])
    ap.add_argument("-h", dest="h", type=float, default=0.1, help="mesh size (default 0.1)")
    ap.add_argument("-o", dest="out", required=True, help="output NAME.mtx (elasticity also NAME.xyz)")
    ap.add_argument("--jump", type=float, default=None,
                    help="coefficient inside the inclusion: k (poisson, default 1000) or E (elasticity, default 1)")
    ap.add_argument("--nu", type=float, default=0.3, help="Poisson ratio (elasticity, default 0.3)")
    ap.add_argument("--order", choices=["hilbert", "rcm", "natural"], default="hilbert",
                    help="node numbering (default hilbert)")
    ap.add_argument("--algo", type=int, default=1,
                    help="gmsh Mesh.Algorithm3D: 1 Delaunay (default), 10 HXT (parallel), 4 Frontal")
    ap.add_argument("--threads", type=int, default=1, help="gmsh threads (default 1: Delaunay is then deterministic, and 2 does not make it faster)")
    ap.add_argument("--cg", action="store_true", help="also check with scipy Jacobi-CG (any size)")
    ap.add_argument("--no-check", action="store_true", help="skip the Cholesky/eigsh checks")
    ap.add_argument("-v", action="store_true", help="gmsh's messages")
    ap.add_argument("--help", action="help", help="this message")
    a = ap.parse_args()
    jump = a.jump if a.jump is not None else (1000.0 if a.problem == "poisson" else 1.0)
    bs = 1 if a.problem == "poisson" else 3
    out = a.out
    base = out[:-4] if out.endswith(".mtx") else out
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)

    xyz, tets, incl = mesh(a.h, a.algo, a.threads, a.v)
    t_mesh = time.time() - T0
    log(f"mesh: h = {a.h}: {len(xyz)} nodes, {len(tets)} tets ({incl.sum()} in the inclusion)")
    free = xyz[:, 0] > 1e-9
    t1 = time.time()
    new = order_free_nodes(a.order, xyz, tets, free)
    nf = int(free.sum())
    xyz_new = np.empty_like(xyz)
    xyz_new[new] = xyz
    tets_new = new[tets]
    log(f"order: {a.order}, {nf} free nodes, {len(xyz) - nf} on x = 0 ({time.time() - t1:.1f} s)")
    coef = np.where(incl, jump, 1.0)
    t1 = time.time()
    A = assemble(a.problem, xyz_new, tets_new, coef, a.nu)
    kres = kernel_check(a.problem, A, xyz_new)
    A = A[: nf * bs, : nf * bs].tocsr()      # eliminate the clamped nodes (numbered last)
    asym = abs(A - A.T).max() / abs(A).max()
    A = ((A + A.T) * 0.5).tocsr()            # rounding left a few entries ~1e-16 apart
    A.eliminate_zeros()                      # entries that cancelled exactly (both triangles alike)
    A.sort_indices()
    t_asm = time.time() - t1
    n = A.shape[0]
    log(f"assembly: n = {n} unknowns, nnz = {A.nnz} (lower triangle {(A.nnz + n) // 2}), "
        f"{A.nnz / n:.1f} per row ({t_asm:.1f} s); unconstrained matrix on its kernel: {kres:.1e} (relative)")
    for p in (2, 4):
        k = interface(A, bs, p)
        log(f"contiguous node split over {p} ranks: {k} interface nodes ({100.0 * k / nf:.2f} % of {nf})")
    ok = True
    if not a.no_check:
        ok = check(A, asym, a.cg)
    t1 = time.time()
    comment = [f"fe_gen.py {a.problem} -h {a.h} --jump {jump:g}" + (f" --nu {a.nu:g}" if bs == 3 else "") +
               f" --order {a.order}: {len(xyz)} nodes, {len(tets)} tets, gmsh tetrahedra of the unit cube"
               " with a spherical inclusion and a cylindrical hole; clamped on x = 0"]
    if bs == 3:
        comment.append("dof = 3*node + component (block size 3); coordinates in " + os.path.basename(base) + ".xyz")
    nnz_low = write_mtx(out, A, comment)
    if bs == 3:
        write_xyz(base + ".xyz", xyz_new[:nf])
    log(f"wrote {out}{' and ' + base + '.xyz' if bs == 3 else ''}: {n} rows, {nnz_low} stored entries "
        f"({os.path.getsize(out) / 1e6:.0f} MB, {time.time() - t1:.1f} s)")
    log(f"done: {a.problem} n = {n} nnz = {A.nnz}; mesh {t_mesh:.1f} s, assembly {t_asm:.1f} s, total "
        f"{time.time() - T0:.1f} s{'' if ok else '; CHECKS FAILED'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/python3
"""fe_gen.py -- unstructured finite-element test matrices (Matrix Market): SPD (poisson,
elasticity) and symmetric indefinite saddle points (stokes).

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

  stokes      2-D Stokes, -lap u + grad p = 0, div u = 0, Taylor-Hood P2-P1 on
              gmsh triangles (straight-sided: P2 nodes at the vertices and edge
              midpoints), viscosity 1, in the vector-Laplacian form.  The matrix
              is [[A, B^T], [B, 0]] with B[k, a] = -int psi_k div phi_a: symmetric
              indefinite, n_u positive and n_p negative eigenvalues.  The
              Dirichlet velocity dofs are eliminated symmetrically (their
              values moved to the right-hand side).  --geometry channel
              (default): the DFG flow past a cylinder, [0, 2.2] x [0, 0.41]
              minus the disk of radius 0.05 at (0.2, 0.2), parabolic inflow of
              peak 0.3 at x = 0, no slip on the walls and the cylinder, and the
              do-nothing (natural) condition at the outflow x = 2.2, which fixes
              the pressure: no null space.  --geometry cavity: the lid-driven
              unit square (u = (1, 0) on y = 1, corners included), whose
              pressure is defined up to a constant (B^T 1 = 0, checked): one
              pressure dof (the vertex nearest the origin) is pinned to 0, its
              row and column removed.  Unknowns interleaved by P2 node in the
              node order: ux, uy (when free), then p at vertices.  Also
              writes NAME.rhs.mtx (b, Matrix Market array), NAME.fields (0 for
              a velocity row, 1 for a pressure row, one a line in row order)
              and NAME.mass.mtx (the P1 pressure mass matrix, symmetric, its
              row k the k-th pressure row of NAME.mtx).  Checks: symmetry, the
              inertia (dense eigenvalues, n <= 4000), a direct solve and
              scipy's MINRES with diag(A^-1, diag(Mp)^-1) (n <= 100,000).

The free nodes are renumbered for locality (default: along a 3-D Hilbert
curve, --order hilbert; or --order rcm, reverse Cuthill-McKee on the node
graph), so that contiguous row splits have small interfaces; the interface
of 2- and 4-rank contiguous node splits is printed (stokes: the P2 nodes, their
rows contiguous, and the split is on rows).

Output NAME.mtx: "%%MatrixMarket matrix coordinate real symmetric", lower
triangle, 1-based, %.17g.  Checks printed every time: symmetry, positive
diagonal, the kernel of the unconstrained matrix (constants for poisson, the
six rigid-body modes for elasticity); positive definiteness by a dense
Cholesky for n <= 6000 (plus the smallest eigenvalue by eigsh for
n <= 10000), and with --cg by scipy's Jacobi-CG at any size.

Sizes (this machine: 2 cores; gmsh 4.8, Delaunay, 1 thread; times of the whole run):

  /usr/bin/python3 bench/gen/fe_gen.py poisson    -h 0.07   -o /tmp/fe/poisson_small.mtx
      n =   3,137  nnz =     41,119                        1 s (3 s with --cg)
  /usr/bin/python3 bench/gen/fe_gen.py elasticity -h 0.1    -o /tmp/fe/elast_small.mtx
      n =   3,387  nnz =    124,853  (1,129 nodes)         1 s
  /usr/bin/python3 bench/gen/fe_gen.py poisson    -h 0.0095 -o /tmp/fe/poisson.mtx
      n = 838,212  nnz = 12,694,374  (5.1 M tets)        317 s (mesh 297 s), 3.8 GB, 243 MB file
  /usr/bin/python3 bench/gen/fe_gen.py elasticity -h 0.0181 -o /tmp/fe/elast.mtx
      n = 387,849  nnz = 17,200,789  (129,283 nodes)      67 s (mesh 37 s),  4 GB, 316 MB file

  /usr/bin/python3 bench/gen/fe_gen.py stokes -h 0.022  -o /tmp/fe/stokes1.mtx
      n =  19,661  nnz =    285,240  (2,345 vertices)        4 s (with the checks)
  /usr/bin/python3 bench/gen/fe_gen.py stokes -h 0.011  -o /tmp/fe/stokes2.mtx
      n =  78,156  nnz =  1,147,706  (9,004 vertices)       27 s (with the checks; SuperLU 17 s)
  /usr/bin/python3 bench/gen/fe_gen.py stokes -h 0.0055 -o /tmp/fe/stokes3.mtx
      n = 310,006  nnz =  4,584,560  (35,084 vertices)      11 s (mesh 4 s), 85 MB file

The unknowns grow like h^-3: about 0.72 / h^3 free nodes at these sizes (stokes, 2-D: h^-2,
about 9.4 / h^2 unknowns).
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
        x, info, its = scipy_solve(cg, A, b, 1e-8, M=M, maxiter=100000, atol=0.0)
        rel = np.linalg.norm(b - A @ x) / np.linalg.norm(b)
        log(f"check: scipy Jacobi-CG, random b, rtol 1e-8: info {info}, {its} iterations, "
            f"true relative residual {rel:.2e}")
        ok = ok and info == 0
    return ok


def scipy_solve(method, A, b, rtol, **kw):
    """x, info and the iterations (counted by its callback) of a scipy.sparse.linalg method, rtol
    under the name the installed scipy takes (tol before 1.12)"""
    its = [0]

    def cb(_):
        its[0] += 1
    name = "rtol" if "rtol" in method.__code__.co_varnames else "tol"
    x, info = method(A, b, callback=cb, **{name: rtol}, **kw)
    return x, info, its[0]


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


# ---------------------------------------------------------------- Stokes (2-D Taylor-Hood P2-P1)
CHANNEL = (2.2, 0.41, 0.2, 0.2, 0.05, 0.3)   # length, height, cylinder centre x, y, radius, peak inflow


def mesh2d(geometry, h, verbose):
    """gmsh triangles: vertex coordinates (nv,2), triangles (nt,3) 0-based, counter-clockwise."""
    import gmsh
    gmsh.initialize()
    try:
        gmsh.option.setNumber("General.Terminal", 1 if verbose else 0)
        gmsh.model.add("fe_gen_stokes")
        occ = gmsh.model.occ
        if geometry == "channel":
            L, H, cx, cy, r, _ = CHANNEL
            rect = occ.addRectangle(0, 0, 0, L, H)
            disk = occ.addDisk(cx, cy, 0, r, r)
            occ.cut([(2, rect)], [(2, disk)])
        else:
            occ.addRectangle(0, 0, 0, 1, 1)
        occ.synchronize()
        gmsh.option.setNumber("Mesh.MeshSizeMax", h)
        gmsh.option.setNumber("Mesh.MeshSizeMin", 0.0)
        gmsh.option.setNumber("Mesh.MeshSizeFromCurvature", 0)
        gmsh.option.setNumber("Mesh.Algorithm", 6)      # Frontal-Delaunay
        gmsh.model.mesh.generate(2)
        tags, xyz, _ = gmsh.model.mesh.getNodes()
        etypes, _, enodes = gmsh.model.mesh.getElements(2)
    finally:
        gmsh.finalize()
    if list(etypes) != [2]:
        raise RuntimeError(f"element types {list(etypes)}: only linear triangles expected")
    tags = np.asarray(tags, dtype=np.int64)
    xy = np.asarray(xyz, dtype=np.float64).reshape(-1, 3)[:, :2]
    tri = np.asarray(enodes[0], dtype=np.int64).reshape(-1, 3)
    lut = np.full(tags.max() + 1, -1, dtype=np.int64)
    lut[tags] = np.arange(len(tags))
    tri = lut[tri]
    used = np.unique(tri)
    remap = np.full(len(tags), -1, dtype=np.int64)
    remap[used] = np.arange(len(used))
    xy, tri = xy[used], remap[tri]
    e1, e2 = xy[tri[:, 1]] - xy[tri[:, 0]], xy[tri[:, 2]] - xy[tri[:, 0]]
    neg = e1[:, 0] * e2[:, 1] - e1[:, 1] * e2[:, 0] < 0
    tri[neg] = tri[neg][:, [0, 2, 1]]
    return xy, tri


def p2_nodes(xy, tri):
    """P2 nodes: the vertices, then the edge midpoints (straight edges).  Returns the node
    coordinates, the element's 6 nodes (vertices 0-2, midpoints of edges 01, 12, 20) and the
    boundary edges (pairs of vertices, and their midpoint node)."""
    nv = len(xy)
    loc = np.array([[0, 1], [1, 2], [2, 0]])
    ev = np.sort(tri[:, loc], axis=2).reshape(-1, 2)
    key = ev[:, 0] * nv + ev[:, 1]
    ukey, inv, cnt = np.unique(key, return_inverse=True, return_counts=True)
    edges = np.column_stack([ukey // nv, ukey % nv])
    nodes = np.vstack([xy, 0.5 * (xy[edges[:, 0]] + xy[edges[:, 1]])])
    el = np.hstack([tri, nv + inv.reshape(-1, 3)])
    bnd = np.flatnonzero(cnt == 1)
    return nodes, el, edges[bnd], nv + bnd


def assemble_stokes(nodes, el, chunk=200_000):
    """Over all P2 nodes (velocity dofs 2*node + component) and vertices (pressure):
    the vector Laplacian A, the divergence B (B[k, a] = -int psi_k div phi_a) and the P1 mass
    matrix Mp; 3-point edge-midpoint rule, exact for these degree-2 integrands on straight
    triangles."""
    nn, ne = len(nodes), len(el)
    nv = el[:, :3].max() + 1
    lam_q = np.array([[0.5, 0.5, 0.0], [0.0, 0.5, 0.5], [0.5, 0.0, 0.5]])
    ar, ac, av, br, bc, bv, mr, mc, mv = ([] for _ in range(9))
    for s in range(0, ne, chunk):
        t = el[s:s + chunk]
        p = nodes[t[:, :3]]
        e1, e2 = p[:, 1] - p[:, 0], p[:, 2] - p[:, 0]
        det = e1[:, 0] * e2[:, 1] - e1[:, 1] * e2[:, 0]
        if np.any(det <= 0):
            raise RuntimeError("degenerate or inverted triangle")
        area = 0.5 * det
        G = np.empty((len(t), 3, 2))                   # barycentric gradients
        G[:, 1] = np.column_stack([e2[:, 1], -e2[:, 0]]) / det[:, None]
        G[:, 2] = np.column_stack([-e1[:, 1], e1[:, 0]]) / det[:, None]
        G[:, 0] = -(G[:, 1] + G[:, 2])
        K = np.zeros((len(t), 6, 6))
        Bq = np.zeros((len(t), 3, 12))
        for lam in lam_q:
            w = area / 3.0
            d = np.empty((len(t), 6, 2))                # gradients of the P2 basis at the point
            for i in range(3):
                d[:, i] = (4.0 * lam[i] - 1.0) * G[:, i]
            for k, (i, j) in enumerate(((0, 1), (1, 2), (2, 0))):
                d[:, 3 + k] = 4.0 * (lam[i] * G[:, j] + lam[j] * G[:, i])
            K += w[:, None, None] * np.matmul(d, d.transpose(0, 2, 1))
            # -psi_k div phi_a, velocity dof 2a + c
            Bq[:, :, 0::2] -= (w[:, None] * lam[None, :])[:, :, None] * d[:, None, :, 0]
            Bq[:, :, 1::2] -= (w[:, None] * lam[None, :])[:, :, None] * d[:, None, :, 1]
        Me = area[:, None, None] * (np.ones((3, 3)) + np.eye(3))[None] / 12.0
        vd = (2 * t[:, :, None] + np.arange(2)).reshape(-1, 12)
        for c in range(2):
            dof = 2 * t + c
            ar.append(np.repeat(dof, 6, axis=1).ravel())
            ac.append(np.tile(dof, (1, 6)).ravel())
            av.append(K.ravel())
        pv = t[:, :3]
        br.append(np.repeat(pv, 12, axis=1).ravel())
        bc.append(np.tile(vd, (1, 3)).ravel())
        bv.append(Bq.ravel())
        mr.append(np.repeat(pv, 3, axis=1).ravel())
        mc.append(np.tile(pv, (1, 3)).ravel())
        mv.append(Me.ravel())
    cat = np.concatenate
    A = sp.csr_matrix((cat(av), (cat(ar), cat(ac))), shape=(2 * nn, 2 * nn))
    B = sp.csr_matrix((cat(bv), (cat(br), cat(bc))), shape=(nv, 2 * nn))
    M = sp.csr_matrix((cat(mv), (cat(mr), cat(mc))), shape=(nv, nv))
    for X in (A, B, M):
        X.sum_duplicates()
        X.sort_indices()
    return A, B, M


def stokes_boundary(geometry, nodes, bedges, bmid, tol=1e-9):
    """Dirichlet P2 nodes and their velocity: channel: parabolic inflow at x = 0, no slip on
    the walls and the cylinder, the outflow x = L free (do-nothing); cavity: u = (1, 0) on the
    lid y = 1 (its corners included), no slip on the other sides."""
    x, y = nodes[:, 0], nodes[:, 1]
    if geometry == "channel":
        L, H, _, _, _, um = CHANNEL
        out = (np.abs(x[bedges[:, 0]] - L) < tol) & (np.abs(x[bedges[:, 1]] - L) < tol)
        keep = ~out
        dn = np.unique(np.concatenate([bedges[keep].ravel(), bmid[keep]]))
        g = np.zeros((len(nodes), 2))
        inflow = dn[np.abs(x[dn]) < tol]
        g[inflow, 0] = 4.0 * um * y[inflow] * (H - y[inflow]) / H ** 2
    else:
        dn = np.unique(np.concatenate([bedges.ravel(), bmid]))
        g = np.zeros((len(nodes), 2))
        g[dn[np.abs(y[dn] - 1.0) < tol], 0] = 1.0
    fixed = np.zeros(len(nodes), dtype=bool)
    fixed[dn] = True
    return fixed, g


def stokes_system(geometry, nodes, el, order, bedges, bmid):
    """The symmetric saddle-point system over the free dofs, interleaved by node in the
    order of ORDER: K = [[A, B^T], [B, 0]], b, field ids, the pressure mass matrix (rows in
    the order of the pressure rows of K), and what the checks need."""
    nn = len(nodes)
    nv = el[:, :3].max() + 1
    t1 = time.time()
    A, B, M = assemble_stokes(nodes, el)
    log(f"assembly: {len(el)} triangles, {nn} P2 nodes, {nv} vertices ({time.time() - t1:.1f} s)")
    fixed, g = stokes_boundary(geometry, nodes, bedges, bmid)
    # dofs of the full system: velocity 2*node + c, pressure 2*nn + vertex
    keep_p = np.ones(nv, dtype=bool)
    pinned = None
    if geometry == "cavity":
        # the pressure is defined up to a constant (B^T 1 = 0 on the free velocity dofs):
        # one vertex's pressure is fixed to 0, its row and column removed
        pinned = int(np.argmin(nodes[:nv, 0] ** 2 + nodes[:nv, 1] ** 2))
        keep_p[pinned] = False
    # interleaved numbering: nodes along ORDER, each node's free ux, uy, then p (vertices)
    per = np.zeros((nn, 3), dtype=bool)
    per[:, 0] = per[:, 1] = ~fixed
    per[:nv, 2] = keep_p
    full = np.empty((nn, 3), dtype=np.int64)
    full[:, 0], full[:, 1] = 2 * np.arange(nn), 2 * np.arange(nn) + 1
    full[:, 2] = -1
    full[:nv, 2] = 2 * nn + np.arange(nv)
    sel = per[order]
    dofs = full[order][sel]                 # full-system index of every row, in row order
    fields = np.broadcast_to(np.array([0, 0, 1]), (nn, 3))[sel].astype(np.int8)
    K = sp.bmat([[A, B.T], [B, None]], format="csr")
    gfull = np.zeros(2 * nn + nv)
    gfull[0:2 * nn:2], gfull[1:2 * nn:2] = g[:, 0], g[:, 1]
    b = -(K[dofs] @ gfull)                    # Dirichlet values moved to the right-hand side
    Kf = K[dofs][:, dofs].tocsr()
    pv = dofs[fields == 1] - 2 * nn           # vertices of the pressure rows, in row order
    Mp = M[pv][:, pv].tocsr()
    info = {"nu": int((fields == 0).sum()), "np": int((fields == 1).sum()), "pinned": pinned,
            "Bt1": None}
    if geometry == "cavity":
        vf = np.flatnonzero(np.repeat(~fixed, 2))
        Bf = B[:, vf]
        info["Bt1"] = np.abs(Bf.T @ np.ones(nv)).max() / abs(Bf).max()
    return Kf, b, fields, Mp, info


def stokes_check(K, b, fields, Mp, info):
    """Symmetry, the inertia (n_u positive and n_p negative eigenvalues) on small cases, a
    direct solve and scipy's MINRES with the block-diagonal preconditioner diag(A^-1,
    diag(Mp)^-1) (SPD, A^-1 by SuperLU) up to 100,000 rows."""
    from scipy.sparse.linalg import minres, splu, LinearOperator
    n = K.shape[0]
    ok = True
    asym = abs(K - K.T).max() / abs(K).max()
    log(f"check: max|K - K^T| / max|K| = {asym:.2e}; {info['nu']} velocity and {info['np']} pressure rows")
    ok = ok and asym <= 1e-13
    if info["Bt1"] is not None:
        log(f"check: max|B^T 1| / max|B| = {info['Bt1']:.1e} before pinning (the constant pressure is the null space);"
            f" pressure pinned at vertex {info['pinned']}")
    if n <= 4000:
        ev = np.linalg.eigvalsh(K.toarray())
        npos, nneg = int((ev > 0).sum()), int((ev < 0).sum())
        amin = np.abs(ev).min()
        log(f"check: inertia {npos} positive, {nneg} negative, smallest |eigenvalue| {amin:.3e} "
            f"(expected {info['nu']} positive, {info['np']} negative)")
        ok = ok and npos == info["nu"] and nneg == info["np"] and amin > 1e-10 * np.abs(ev).max()
    u = fields == 0
    if n <= 100_000:
        x = splu(K.tocsc()).solve(b)
        rel = np.linalg.norm(b - K @ x) / np.linalg.norm(b)
        log(f"check: direct solve (SuperLU) relative residual {rel:.1e}; max |u| = {np.abs(x[u]).max():.4f}")
        ok = ok and rel < 1e-10
        Alu = splu(K[u][:, u].tocsc())
        dm = 1.0 / Mp.diagonal()
        iu, ip = np.flatnonzero(u), np.flatnonzero(~u)

        def prec(v):
            y = np.empty_like(v)
            y[iu] = Alu.solve(v[iu])
            y[ip] = dm * v[ip]
            return y
        xm, flag, its = scipy_solve(minres, K, b, 1e-8, M=LinearOperator((n, n), matvec=prec), maxiter=2000)
        relm = np.linalg.norm(b - K @ xm) / np.linalg.norm(b)
        log(f"check: scipy MINRES, preconditioner diag(A^-1, diag(Mp)^-1): flag {flag}, {its} iterations, "
            f"true relative residual {relm:.1e}")
        ok = ok and flag == 0
    return ok


def write_vector(path, v, comment):
    with open(path, "w", buffering=1 << 22) as f:
        f.write("%%MatrixMarket matrix array real general\n")
        for line in comment:
            f.write(f"% {line}\n")
        f.write(f"{len(v)} 1\n")
        f.write(("%.17g\n" * len(v)) % tuple(v.tolist()))


def stokes_main(a):
    geometry = a.geometry
    h = a.h if a.h is not None else 0.02
    out = a.out
    base = out[:-4] if out.endswith(".mtx") else out
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    xy, tri = mesh2d(geometry, h, a.v)
    t_mesh = time.time() - T0
    log(f"mesh: {geometry}, h = {h}: {len(xy)} vertices, {len(tri)} triangles")
    nodes, el, bedges, bmid = p2_nodes(xy, tri)
    if a.order == "hilbert":
        pts = np.column_stack([nodes, np.zeros(len(nodes))])
        order = np.argsort(hilbert_keys(pts), kind="stable")
    elif a.order == "rcm":
        from scipy.sparse.csgraph import reverse_cuthill_mckee
        i = np.repeat(el, 6, axis=1).ravel()
        j = np.tile(el, (1, 6)).ravel()
        g = sp.csr_matrix((np.ones(len(i), dtype=np.int8), (i, j)), shape=(len(nodes), len(nodes)))
        order = np.asarray(reverse_cuthill_mckee(g, symmetric_mode=True), dtype=np.int64)
    else:
        order = np.arange(len(nodes))
    t1 = time.time()
    K, b, fields, Mp, info = stokes_system(geometry, nodes, el, order, bedges, bmid)
    K = ((K + K.T) * 0.5).tocsr()
    K.eliminate_zeros()
    K.sort_indices()
    Mp = ((Mp + Mp.T) * 0.5).tocsr()
    t_asm = time.time() - t1
    n = K.shape[0]
    log(f"system: n = {n} ({info['nu']} velocity, {info['np']} pressure), nnz = {K.nnz}, "
        f"{K.nnz / n:.1f} per row ({t_asm:.1f} s)")
    for p in (2, 4):
        k = interface(K, 1, p)
        log(f"contiguous row split over {p} ranks: {k} interface rows ({100.0 * k / n:.2f} %)")
    ok = True
    if not a.no_check:
        ok = stokes_check(K, b, fields, Mp, info)
    t1 = time.time()
    desc = (f"fe_gen.py stokes --geometry {geometry} -h {h} --order {a.order}: Taylor-Hood P2-P1, "
            f"{len(xy)} vertices, {len(tri)} triangles; {info['nu']} velocity rows (field 0), "
            f"{info['np']} pressure rows (field 1), interleaved by node")
    bc = ("channel with a cylinder, parabolic inflow, no slip on walls and cylinder, do-nothing outflow "
           "(no pressure null space)" if geometry == "channel" else
           f"lid-driven cavity, pressure pinned to 0 at vertex {info['pinned']} (row and column removed)")
    nnz_low = write_mtx(out, K, [desc, bc, "[[A, B^T], [B, 0]], Dirichlet velocity eliminated symmetrically"])
    write_vector(base + ".rhs.mtx", b, [desc, "right-hand side: the Dirichlet values moved over, f = 0"])
    with open(base + ".fields", "w") as f:
        f.write("\n".join(map(str, fields.tolist())) + "\n")
    write_mtx(base + ".mass.mtx", Mp, [desc, "P1 pressure mass matrix, rows in the order of the pressure (field 1) "
                                             "rows of " + os.path.basename(out)])
    log(f"wrote {out} ({nnz_low} stored entries, {os.path.getsize(out) / 1e6:.0f} MB), {base}.rhs.mtx, "
        f"{base}.fields, {base}.mass.mtx ({time.time() - t1:.1f} s)")
    log(f"done: stokes n = {n} nnz = {K.nnz}; mesh {t_mesh:.1f} s, assembly {t_asm:.1f} s, total "
        f"{time.time() - T0:.1f} s{'' if ok else '; CHECKS FAILED'}")
    return 0 if ok else 1


def main():
    ap = argparse.ArgumentParser(
        add_help=False, description="unstructured finite-element matrices: P1 SPD, P2-P1 Stokes (gmsh + numpy/scipy)",
        epilog="see the header of this file for the sizes")
    ap.add_argument("problem", choices=["poisson", "elasticity", "stokes"])
    ap.add_argument("-h", dest="h", type=float, default=None, help="mesh size (default 0.1; stokes 0.02)")
    ap.add_argument("-o", dest="out", required=True,
                    help="output NAME.mtx (elasticity also NAME.xyz; stokes also NAME.rhs.mtx, NAME.fields, "
                         "NAME.mass.mtx)")
    ap.add_argument("--geometry", choices=["channel", "cavity"], default="channel",
                    help="stokes: flow past a cylinder (default) or the lid-driven cavity")
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
    if a.problem == "stokes":
        return stokes_main(a)
    if a.h is None:
        a.h = 0.1
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

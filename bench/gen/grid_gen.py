#!/usr/bin/python3
"""grid_gen.py -- structured test matrices of the amg suite (Matrix Market,
symmetric, lower triangle), for the drivers that read files (ovk_mtx_solve,
bench/peers/petsc_mtx):

  aniso N      anisotropic diffusion -u_xx - u_yy - EPS u_zz (EPS 1e-3, -eps),
               7-point finite differences on the N^3 interior points of the
               unit cube, u = 0 on the boundary; natural order (x fastest).
  incl N       high contrast: -div(k grad u) = f, cell-centred finite volumes
               on N^3 cells, harmonic face means, u = 0 on the boundary (a
               half cell away); k = CONTRAST (1e5, -contrast) inside 5 balls of
               radius 0.1 at fixed centres, 1 elsewhere.
  q1elast N    structured Q1 elasticity: trilinear hexahedra on N x N x N cubes
               of the unit cube (2x2x2 Gauss points), E = 1, nu = 0.3, clamped on
               x = 0 (those dofs eliminated); dof = 3 node + component, nodes
               x fastest.  Also writes NAME.xyz (fe_gen.py's format: the
               number of nodes, then "x y z" per free node) for the rigid-body
               modes.

    /usr/bin/python3 bench/gen/grid_gen.py aniso 64 -o /tmp/suite/aniso.mtx
"""
import argparse
import os
import sys

import numpy as np
import scipy.sparse as sp

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fe_gen import write_mtx, write_xyz  # noqa: E402


def grid_ops(n, wx, wy, wz, diag_extra):
    """A from face weights: wx (n, n, n-1) between x-neighbours, wy (n, n-1, n),
    wz (n-1, n, n) (arrays indexed [z, y, x]) and diag_extra (n, n, n)"""
    idx = np.arange(n ** 3).reshape(n, n, n)
    rows, cols, vals = [], [], []
    diag = diag_extra.copy()
    for w, a, b in ((wx, idx[:, :, :-1], idx[:, :, 1:]), (wy, idx[:, :-1, :], idx[:, 1:, :]),
                    (wz, idx[:-1, :, :], idx[1:, :, :])):
        rows.append(b.ravel()), cols.append(a.ravel()), vals.append(-w.ravel())  # lower: b > a
        np.add.at(diag.reshape(-1), a.ravel(), w.ravel())
        np.add.at(diag.reshape(-1), b.ravel(), w.ravel())
    rows.append(idx.ravel()), cols.append(idx.ravel()), vals.append(diag.ravel())
    L = sp.coo_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))), shape=(n ** 3, n ** 3))
    return (L + sp.tril(L, -1).T).tocsr()


def aniso(n, eps):
    h2 = float(n + 1) ** 2
    # boundary neighbours: a missing neighbour in x adds 1, in z eps (u = 0 there)
    extra = np.zeros((n, n, n))
    extra[:, :, 0] += 1
    extra[:, :, -1] += 1
    extra[:, 0, :] += 1
    extra[:, -1, :] += 1
    extra[0, :, :] += eps
    extra[-1, :, :] += eps
    A = grid_ops(n, np.ones((n, n, n - 1)), np.ones((n, n - 1, n)), eps * np.ones((n - 1, n, n)), extra)
    return A * h2


def incl(n, contrast):
    c = (np.arange(n) + 0.5) / n
    z, y, x = np.meshgrid(c, c, c, indexing="ij")
    k = np.ones((n, n, n))
    centres = [(0.3, 0.3, 0.3), (0.7, 0.3, 0.6), (0.4, 0.7, 0.5), (0.7, 0.7, 0.25), (0.3, 0.5, 0.75)]
    for cx, cy, cz in centres:
        k[(x - cx) ** 2 + (y - cy) ** 2 + (z - cz) ** 2 < 0.1 ** 2] = contrast
    harm = lambda a, b: 2.0 * a * b / (a + b)  # noqa: E731
    wx, wy, wz = harm(k[:, :, :-1], k[:, :, 1:]), harm(k[:, :-1, :], k[:, 1:, :]), harm(k[:-1, :, :], k[1:, :, :])
    extra = np.zeros((n, n, n))  # a boundary face: the cell's k over half a cell
    for sl in ((slice(None), slice(None), 0), (slice(None), slice(None), -1), (slice(None), 0, slice(None)),
               (slice(None), -1, slice(None)), (0, slice(None), slice(None)), (-1, slice(None), slice(None))):
        extra[sl] += 2.0 * k[sl]
    return grid_ops(n, wx, wy, wz, extra)  # the fluxes over h (face area h^2, distance h): scaled by 1 / h


def q1_element(nu):
    """the 24 x 24 stiffness of a unit cube's trilinear hexahedron (E = 1),
    its nodes (a, b, c) in {0, 1}^3 in the order a + 2 b + 4 c, dofs 3 node + comp"""
    lam, mu = nu / ((1 + nu) * (1 - 2 * nu)), 1.0 / (2 * (1 + nu))
    D = np.zeros((6, 6))
    D[:3, :3] = lam
    D[np.arange(3), np.arange(3)] += 2 * mu
    D[3:, 3:] = np.eye(3) * mu
    corners = np.array([(a, b, c) for c in (0, 1) for b in (0, 1) for a in (0, 1)], dtype=float)
    g = 0.5 / np.sqrt(3.0)
    K = np.zeros((24, 24))
    for px in (0.5 - g, 0.5 + g):
        for py in (0.5 - g, 0.5 + g):
            for pz in (0.5 - g, 0.5 + g):
                p = np.array([px, py, pz])
                # N_a = prod over d of (corner ? p : 1 - p); its gradient on the unit cube
                f = np.where(corners == 1, p, 1 - p)
                s = np.where(corners == 1, 1.0, -1.0)
                grad = np.stack([s[:, 0] * f[:, 1] * f[:, 2], f[:, 0] * s[:, 1] * f[:, 2], f[:, 0] * f[:, 1] * s[:, 2]], 1)
                B = np.zeros((6, 24))
                for a in range(8):
                    gx, gy, gz = grad[a]
                    B[0, 3 * a], B[1, 3 * a + 1], B[2, 3 * a + 2] = gx, gy, gz
                    B[3, 3 * a], B[3, 3 * a + 1] = gy, gx
                    B[4, 3 * a + 1], B[4, 3 * a + 2] = gz, gy
                    B[5, 3 * a], B[5, 3 * a + 2] = gz, gx
                K += B.T @ D @ B / 8.0
    return K  # h^3 / h^2 = h: times h for cubes of side h


def q1elast(n, nu):
    m = n + 1
    Ke = q1_element(nu) / n
    e = np.arange(n)
    ez, ey, ex = (a.ravel() for a in np.meshgrid(e, e, e, indexing="ij"))
    nodes = np.stack([(ex + a) + m * ((ey + b) + m * (ez + c)) for c in (0, 1) for b in (0, 1) for a in (0, 1)], 1)
    dofs = (3 * nodes[:, :, None] + np.arange(3)).reshape(-1, 24).astype(np.int64)
    rows = np.repeat(dofs, 24, axis=1).ravel()
    cols = np.tile(dofs, (1, 24)).ravel()
    vals = np.tile(Ke.ravel(), len(dofs))
    keepr = rows >= cols
    A = sp.coo_matrix((vals[keepr], (rows[keepr], cols[keepr])), shape=(3 * m ** 3, 3 * m ** 3)).tocsr()
    A = A + sp.tril(A, -1).T
    node = np.arange(m ** 3)
    free_nodes = node[node % m != 0]  # clamped on x = 0
    free = (3 * free_nodes[:, None] + np.arange(3)).ravel()
    A = A[free][:, free].tocsr()
    pts = np.stack([free_nodes % m, (free_nodes // m) % m, free_nodes // (m * m)], 1) / n
    return A, pts


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("problem", choices=["aniso", "incl", "q1elast"])
    ap.add_argument("n", type=int)
    ap.add_argument("-o", dest="out", required=True)
    ap.add_argument("-eps", type=float, default=1e-3)
    ap.add_argument("-contrast", type=float, default=1e5)
    a = ap.parse_args()
    pts = None
    if a.problem == "aniso":
        A, what = aniso(a.n, a.eps), f"anisotropic diffusion, {a.n}^3 points, eps {a.eps}"
    elif a.problem == "incl":
        A, what = incl(a.n, a.contrast), f"high contrast {a.contrast} in 5 balls, {a.n}^3 cells"
    else:
        (A, pts), what = q1elast(a.n, 0.3), f"Q1 elasticity, {a.n}^3 hexahedra, clamped on x = 0"
    nnz = write_mtx(a.out, A, [f"grid_gen.py {a.problem}: {what}"])
    if pts is not None:
        write_xyz(os.path.splitext(a.out)[0] + ".xyz", pts)
    print(f"{a.out}: {A.shape[0]} rows, {nnz} stored entries ({what})")


if __name__ == "__main__":
    main()

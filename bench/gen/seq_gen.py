#!/usr/bin/python3
"""seq_gen.py -- sequences of linear systems (Matrix Market), for solvers that
carry something from one solve to the next (ovk_mtx_solve -f A1,A2,... -b
b1,b2,..., option recycle).

  inclusions  a time loop of the pressure equation of bubbly flow:
              -div(k grad p) = f on the unit square, p = 0 on the boundary
              (eliminated), cell-centred finite volumes on an N x N grid with
              harmonic face means; k = 1 outside and k = CONTRAST (default 1e3)
              inside NB circular inclusions of radius R that move a little each
              step (a fixed drift and a slow rotation), the interface smeared
              over 1.5 cells (a smoothed Heaviside of the level set, geometric
              in k), as level-set bubbly-flow codes smear the density.  SPD, the same 5-point
              pattern at every step (ovk_matrix_update_values), a handful of
              small eigenvalues per inclusion: what recycling is for.
  wind        a time loop of convection-diffusion, -eps lap u + w . grad u = f,
              upwind differences on the N x N interior grid of the unit square,
              u = 0 on the boundary; the wind w = |w| (cos t, sin t) turns by
              TURN radians per step.  Nonsymmetric, one pattern.

Each step k writes PREFIX_k.mtx (the matrix) and PREFIX_k_b.mtx (a dense
Matrix Market array of one column: a smooth source plus a random part seeded by
k), and the script prints the -f and -b lists for ovk_mtx_solve.  Needs
python3-numpy and python3-scipy (Debian's /usr/bin/python3).

  bench/gen/seq_gen.py inclusions -n 200 -steps 12 -o /tmp/incl
  mpirun -n 2 build/examples/ovk_mtx_solve $(cat /tmp/incl.args) -solver rpipecg -ovk_recycle 8
"""
import argparse
import sys

import numpy as np
import scipy.sparse as sp


def inclusion_field(n, t, count, radius, contrast, seed):
    """k on the N x N cells at step t: CONTRAST inside the moving circles"""
    rng = np.random.default_rng(seed)
    centres = 0.2 + 0.6 * rng.random((count, 2))
    drift = 0.004 * (rng.random((count, 2)) - 0.5)
    h = 1.0 / n
    xc = (np.arange(n) + 0.5) * h
    X, Y = np.meshgrid(xc, xc, indexing="ij")
    inside = np.zeros((n, n))
    ang = 0.01 * t
    width = 1.5 * h  # the level set's smeared interface, as bubbly-flow codes smear the density
    for c, d in zip(centres, drift):
        cx = 0.5 + (c[0] - 0.5) * np.cos(ang) - (c[1] - 0.5) * np.sin(ang) + d[0] * t
        cy = 0.5 + (c[0] - 0.5) * np.sin(ang) + (c[1] - 0.5) * np.cos(ang) + d[1] * t
        phi = radius - np.sqrt((X - cx) ** 2 + (Y - cy) ** 2)
        heav = np.clip(0.5 + phi / (2 * width) + np.sin(np.pi * phi / width) / (2 * np.pi), 0.0, 1.0)
        heav[phi > width] = 1.0
        heav[phi < -width] = 0.0
        inside = np.maximum(inside, heav)
    return np.exp(np.log(contrast) * inside)  # k from 1 to CONTRAST across the interface


def diffusion_matrix(k):
    """cell-centred FV of -div(k grad p), p = 0 outside (Dirichlet at the
    boundary faces, half a cell away), harmonic face means; scaled by 1/h^2
    times h^2 (the matrix of the scaled equation)"""
    n = k.shape[0]
    idx = np.arange(n * n).reshape(n, n)
    rows, cols, vals = [], [], []
    diag = np.zeros((n, n))
    # interior faces in x and y
    for axis in (0, 1):
        a = k.take(range(n - 1), axis=axis)
        b = k.take(range(1, n), axis=axis)
        t = 2.0 * a * b / (a + b)
        i = idx.take(range(n - 1), axis=axis).ravel()
        j = idx.take(range(1, n), axis=axis).ravel()
        rows += [i, j]
        cols += [j, i]
        vals += [-t.ravel(), -t.ravel()]
        sl_lo = [slice(None)] * 2
        sl_hi = [slice(None)] * 2
        sl_lo[axis] = slice(0, n - 1)
        sl_hi[axis] = slice(1, n)
        diag[tuple(sl_lo)] += t
        diag[tuple(sl_hi)] += t
        # boundary faces: the Dirichlet value half a cell away, 2 k
        first = [slice(None)] * 2
        last = [slice(None)] * 2
        first[axis] = 0
        last[axis] = n - 1
        diag[tuple(first)] += 2.0 * k[tuple(first)]
        diag[tuple(last)] += 2.0 * k[tuple(last)]
    rows.append(idx.ravel())
    cols.append(idx.ravel())
    vals.append(diag.ravel())
    A = sp.coo_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))), shape=(n * n, n * n))
    return A.tocsr()


def wind_matrix(n, eps, speed, angle):
    """upwind convection-diffusion on the N x N interior grid, h = 1/(N+1)"""
    h = 1.0 / (n + 1)
    wx, wy = speed * np.cos(angle), speed * np.sin(angle)
    idx = np.arange(n * n).reshape(n, n)
    main = 4.0 * eps / h**2 + (abs(wx) + abs(wy)) / h
    rows, cols, vals = [idx.ravel()], [idx.ravel()], [np.full(n * n, main)]
    # neighbour (di, dj): diffusion -eps/h^2, upwind part from the wind component
    for di, dj, w in ((-1, 0, wx), (1, 0, -wx), (0, -1, wy), (0, 1, -wy)):
        i0, i1 = max(0, -di), n - max(0, di)
        j0, j1 = max(0, -dj), n - max(0, dj)
        src = idx[i0:i1, j0:j1].ravel()
        dst = idx[i0 + di:i1 + di, j0 + dj:j1 + dj].ravel()
        v = -eps / h**2 - max(w, 0.0) / h
        rows.append(src)
        cols.append(dst)
        vals.append(np.full(src.size, v))
    A = sp.coo_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))), shape=(n * n, n * n))
    return A.tocsr()


def write_mtx(path, A, comment, symmetric):
    A = sp.coo_matrix(A)
    if symmetric:
        keep = A.row >= A.col
        r, c, v = A.row[keep], A.col[keep], A.data[keep]
    else:
        r, c, v = A.row, A.col, A.data
    with open(path, "w") as f:
        f.write("%%%%MatrixMarket matrix coordinate real %s\n" % ("symmetric" if symmetric else "general"))
        f.write("%% %s\n" % comment)
        f.write("%d %d %d\n" % (A.shape[0], A.shape[1], len(v)))
        np.savetxt(f, np.column_stack([r + 1, c + 1, v]), fmt="%d %d %.17g")


def write_vector(path, b, comment):
    with open(path, "w") as f:
        f.write("%%MatrixMarket matrix array real general\n")
        f.write("%% %s\n" % comment)
        f.write("%d 1\n" % b.size)
        np.savetxt(f, b, fmt="%.17g")


def rhs(n_side, k, seed):
    """a smooth source plus a random part seeded by the step"""
    x = (np.arange(n_side) + 0.5) / n_side
    X, Y = np.meshgrid(x, x, indexing="ij")
    smooth = np.sin(np.pi * X) * np.sin(2 * np.pi * Y)
    noise = np.random.default_rng(seed * 1000 + k).uniform(-1.0, 1.0, (n_side, n_side))
    return (smooth + 0.5 * noise).ravel()


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("problem", choices=["inclusions", "wind"])
    p.add_argument("-n", type=int, default=100, help="grid cells (or interior points) per side")
    p.add_argument("-steps", type=int, default=10, help="systems in the sequence")
    p.add_argument("-o", required=True, help="output prefix")
    p.add_argument("-count", type=int, default=8, help="inclusions")
    p.add_argument("-radius", type=float, default=0.05, help="inclusion radius")
    p.add_argument("-contrast", type=float, default=1e3, help="k inside the inclusions")
    p.add_argument("-eps", type=float, default=0.01, help="wind: diffusion")
    p.add_argument("-speed", type=float, default=1.0, help="wind: |w|")
    p.add_argument("-turn", type=float, default=0.05, help="wind: radians per step")
    p.add_argument("-seed", type=int, default=1)
    a = p.parse_args()
    files, bs = [], []
    for k in range(a.steps):
        if a.problem == "inclusions":
            kf = inclusion_field(a.n, k, a.count, a.radius, a.contrast, a.seed)
            A = diffusion_matrix(kf)
            note = "bubbly-flow pressure, step %d: %d inclusions of k=%g, r=%g, %dx%d cells" % (
                k, a.count, a.contrast, a.radius, a.n, a.n)
            sym = True
        else:
            A = wind_matrix(a.n, a.eps, a.speed, a.turn * k)
            note = "convection-diffusion, step %d: eps=%g, wind %g at %g rad, %dx%d points" % (
                k, a.eps, a.speed, a.turn * k, a.n, a.n)
            sym = False
        f = "%s_%d.mtx" % (a.o, k)
        fb = "%s_%d_b.mtx" % (a.o, k)
        write_mtx(f, A, note, sym)
        write_vector(fb, rhs(a.n, k, a.seed), "right-hand side of " + note)
        files.append(f)
        bs.append(fb)
    args = "-f %s -b %s" % (",".join(files), ",".join(bs))
    with open(a.o + ".args", "w") as f:
        f.write(args + "\n")
    print(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/python3
"""The 27-point Laplacian of ovk_laplace27 (26 on the diagonal, -1 off it) on an
nx x ny x nz grid in natural order (x fastest), written as a symmetric Matrix
Market file (lower triangle), so that our ovk_mtx_solve and the peers that
read Matrix Market (bench/peers/hypre_mtx, petsc_mtx) solve the same matrix.
A contiguous row split over P ranks cuts the grid along z, as ovk_laplace27
-n NX NY NZ/P does with its processor grid 1 x 1 x P.

    /usr/bin/python3 bench/gen/laplace_mtx.py 40 40 80 /tmp/fe/lap40.mtx   # -n 40, 2 ranks
    /usr/bin/python3 bench/gen/laplace_mtx.py 60 60 120 /tmp/fe/lap60.mtx  # -n 60, 2 ranks
"""
import sys

import numpy as np


def main():
    nx, ny, nz = (int(a) for a in sys.argv[1:4])
    out = sys.argv[4]
    n = nx * ny * nz
    idx = np.arange(n, dtype=np.int64)
    x, y, z = idx % nx, (idx // nx) % ny, idx // (nx * ny)
    rows, cols, vals = [idx], [idx], [np.full(n, 26.0)]
    for dz in (-1, 0, 1):
        for dy in (-1, 0, 1):
            for dx in (-1, 0, 1):
                if (dz, dy, dx) >= (0, 0, 0):
                    continue  # the lower triangle: neighbours before the row
                ok = (x + dx >= 0) & (x + dx < nx) & (y + dy >= 0) & (y + dy < ny) & (z + dz >= 0) & (z + dz < nz)
                i = idx[ok]
                rows.append(i)
                cols.append(i + dx + nx * (dy + ny * dz))
                vals.append(np.full(i.size, -1.0))
    r, c, v = np.concatenate(rows), np.concatenate(cols), np.concatenate(vals)
    order = np.lexsort((c, r))
    with open(out, "w") as f:
        f.write("%%MatrixMarket matrix coordinate real symmetric\n")
        f.write(f"% 27-point Laplacian {nx} x {ny} x {nz} (bench/gen/laplace_mtx.py)\n")
        f.write(f"{n} {n} {r.size}\n")
        np.savetxt(f, np.column_stack((r[order] + 1, c[order] + 1, v[order])), fmt="%d %d %g")
    print(f"wrote {out}: {n} rows, {r.size} stored entries")


if __name__ == "__main__":
    main()

#!/usr/bin/python3
"""gcrodr_ref.py -- a plain NumPy GCRO-DR(m, k) (Parks, de Sturler, Mackey,
Johnson and Maiti, SISC 2006), right-preconditioned by Jacobi as gcrodr is:
m Arnoldi steps a cycle besides the k recycled vectors, the k harmonic Ritz
vectors of smallest |theta| kept at each cycle's end, C = A D^-1 U made again
(and orthonormalised) for each new matrix, x0 projected (x0 += U C^T r0).
For checking gcrodr's iteration counts on a bench/gen/seq_gen.py sequence and
what the carried space is worth.

  bench/systems/gcrodr_ref.py PREFIX STEPS [-m 30] [-k 10] [-mode carried|fresh]

carried: the space goes from one system to the next (gcrodr's default);
fresh: every system starts without it (what gcrodr does after a carried
solve took more than a fresh one's iterations plus k).  Prints each system's
iterations and true relative residual, then the sum over systems 2..STEPS.
Needs python3-numpy and python3-scipy (Debian's /usr/bin/python3).
"""
import argparse

import numpy as np
import scipy.io
import scipy.linalg as sla
import scipy.sparse as sp


def load(prefix, steps):
    mats = [sp.csr_matrix(scipy.io.mmread("%s_%d.mtx" % (prefix, s))) for s in range(steps)]
    rhs = [np.asarray(scipy.io.mmread("%s_%d_b.mtx" % (prefix, s))).ravel() for s in range(steps)]
    return mats, rhs


def keep_smallest(theta, vecs, k):
    """the real columns of the k smallest |theta| (a complex pair as its two parts, or neither)"""
    mag = np.abs(theta)
    mag[~np.isfinite(mag)] = np.inf
    cols, used = [], set()
    for i in np.argsort(mag, kind="stable"):
        if len(cols) >= k or not np.isfinite(mag[i]):
            break
        if i in used:
            continue
        if theta[i].imag == 0.0:
            cols.append(vecs[:, i].real)
            used.add(i)
            continue
        if len(cols) + 2 > k:
            break
        cols += [vecs[:, i].real, vecs[:, i].imag]
        used.update((i, i + 1 if theta[i].imag > 0 else i - 1))  # LAPACK: a pair's members adjacent
    return np.column_stack(cols)


def cycle(op, r, C, m, target, its, maxit):
    """Arnoldi on (I - C C^T) op from r, classical Gram-Schmidt twice; stops at the target residual"""
    k = 0 if C is None else C.shape[1]
    V, H, B = np.zeros((r.size, m + 1)), np.zeros((m + 1, m)), np.zeros((k, m))
    beta = np.linalg.norm(r)
    V[:, 0] = r / beta
    for j in range(m):
        w = op(V[:, j])
        for _ in range(2):
            if k:
                b = C.T @ w
                w -= C @ b
                B[:, j] += b
            h = V[:, : j + 1].T @ w
            w -= V[:, : j + 1] @ h
            H[: j + 1, j] += h
        H[j + 1, j] = np.linalg.norm(w)
        V[:, j + 1] = w / H[j + 1, j]
        e = np.zeros(j + 2)
        e[0] = beta
        y = np.linalg.lstsq(H[: j + 2, : j + 1], e, rcond=None)[0]
        its += 1
        if np.linalg.norm(e - H[: j + 2, : j + 1] @ y) <= target or its >= maxit:
            break
    mk = j + 1
    return V[:, : mk + 1], H[: mk + 1, :mk], B[:, :mk], y, its


def solve(A, b, U, m, k, rtol, maxit=20000):
    d = 1.0 / A.diagonal()
    op = lambda v: A @ (d * v)  # A D^-1: the solve is of A D^-1 y = b, x = D^-1 y
    y, r, its, C = np.zeros(b.size), b.copy(), 0, None
    target = rtol * np.linalg.norm(b)
    if U is not None:  # C = A D^-1 U for these values, orthonormal; x0 projected
        C, R = np.linalg.qr(np.column_stack([op(u) for u in U.T]))
        U = U @ np.linalg.inv(R)
        g = C.T @ r
        y += U @ g
        r -= C @ g
    while np.linalg.norm(r) > target and its < maxit:
        V, H, Bm, y2, its = cycle(op, r, C, m, target, its, maxit)
        mk = H.shape[1]
        if C is None:  # a GMRES(m) cycle; its harmonic Ritz vectors start the space
            y += V[:, :mk] @ y2
            if mk >= k:
                P = keep_smallest(*sla.eig(H.T @ H, H[:mk, :mk].T), k)
                Q, R = np.linalg.qr(H @ P)
                C, U = V @ Q, V[:, :mk] @ P @ np.linalg.inv(R)
        else:
            kk = C.shape[1]
            y += U @ (-Bm @ y2) + V[:, :mk] @ y2
            G = np.zeros((kk + mk + 1, kk + mk))
            G[:kk, :kk], G[:kk, kk:], G[kk:, kk:] = np.eye(kk), Bm, H
            What, Vhat = np.column_stack([C, V]), np.column_stack([U, V[:, :mk]])
            P = keep_smallest(*sla.eig(G.T @ G, G.T @ (What.T @ Vhat)), k)
            Q, R = np.linalg.qr(G @ P)
            C, U = What @ Q, Vhat @ P @ np.linalg.inv(R)
        r = b - op(y)
    return d * y, its, U


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("prefix")
    p.add_argument("steps", type=int)
    p.add_argument("-m", type=int, default=30, help="Arnoldi steps a cycle (gcrodr's restart)")
    p.add_argument("-k", type=int, default=10, help="recycled vectors")
    p.add_argument("-rtol", type=float, default=1e-8)
    p.add_argument("-mode", choices=["carried", "fresh"], default="carried")
    a = p.parse_args()
    mats, rhs = load(a.prefix, a.steps)
    U, later = None, 0
    for s in range(a.steps):
        x, its, Unew = solve(mats[s], rhs[s], U if a.mode == "carried" else None, a.m, a.k, a.rtol)
        U = Unew
        print("system %d: %d iterations, true relative residual %.2e"
              % (s + 1, its, np.linalg.norm(rhs[s] - mats[s] @ x) / np.linalg.norm(rhs[s])), flush=True)
        later += its if s > 0 else 0
    print("systems 2..%d: %d iterations" % (a.steps, later))


if __name__ == "__main__":
    main()

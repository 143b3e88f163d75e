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
solve took more than a fresh one's iterations plus k); project: the carried
space projects x0 only, the cycles start a space of their own; first: the
carried space for the first cycle only; beside: the carried space kept
fixed through the solve beside k vectors the cycles make (2k in all; the
next system carries those k).  -update N: only a solve's first N cycles
make the space again, later ones keep it (0: every cycle); -settle F:
the space kept after the first cycle that cut the true residual by F.  -same solves every system's b with the first
matrix, -cycles prints the true residual at each cycle's end, -ritz the
harmonic Ritz pairs of A D^-1 in the space system 1 leaves (theta and
||A D^-1 u - theta u||) and the 12 eigenvalues of A D^-1 nearest 0.  Prints
each system's iterations and true relative residual, then the sum over
systems 2..STEPS.  Needs python3-numpy and python3-scipy (Debian's
/usr/bin/python3).
"""
import argparse

import numpy as np
import scipy.io
import scipy.linalg as sla
import scipy.sparse as sp
import scipy.sparse.linalg as spla


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


def harmonic_update(C, U, V, H, Bm, k):
    """the k harmonic Ritz vectors of [U, V_m] (GCRO-DR's cycle end), or of V_m alone without U"""
    mk = H.shape[1]
    if C is None:
        P = keep_smallest(*sla.eig(H.T @ H, H[:mk, :mk].T), k)
        Q, R = np.linalg.qr(H @ P)
        return V @ Q, V[:, :mk] @ P @ np.linalg.inv(R), P, R
    kk = C.shape[1]
    G = np.zeros((kk + mk + 1, kk + mk))
    G[:kk, :kk], G[:kk, kk:], G[kk:, kk:] = np.eye(kk), Bm, H
    What, Vhat = np.column_stack([C, V]), np.column_stack([U, V[:, :mk]])
    P = keep_smallest(*sla.eig(G.T @ G, G.T @ (What.T @ Vhat)), k)
    Q, R = np.linalg.qr(G @ P)
    return What @ Q, Vhat @ P @ np.linalg.inv(R), P, R


def solve(A, b, U, m, k, rtol, mode="carried", cycles=False, maxit=20000, update=0, settle=0.0):
    """one system; U the carried space (None: fresh).  Returns x, iterations and the space to carry"""
    d = 1.0 / A.diagonal()
    op = lambda v: A @ (d * v)  # A D^-1: the solve is of A D^-1 y = b, x = D^-1 y
    y, r, its, C, Cf, Uf = np.zeros(b.size), b.copy(), 0, None, None, None
    target = rtol * np.linalg.norm(b)
    if U is not None:  # C = A D^-1 U for these values, orthonormal; x0 projected
        C, R = np.linalg.qr(np.column_stack([op(u) for u in U.T]))
        U = U @ np.linalg.inv(R)
        g = C.T @ r
        y += U @ g
        r -= C @ g
        if mode == "project":
            C = U = None
        elif mode == "beside":
            Cf, Uf, C, U = C, U, None, None
    cycle_no, settled, rprev = 0, False, np.linalg.norm(r)
    while np.linalg.norm(r) > target and its < maxit:
        Call = C if Cf is None else (Cf if C is None else np.column_stack([Cf, C]))
        V, H, Bm, y2, its = cycle(op, r, Call, m, target, its, maxit)
        mk = H.shape[1]
        kf = 0 if Cf is None else Cf.shape[1]
        if Call is not None:
            Uall = U if Cf is None else (Uf if U is None else np.column_stack([Uf, U]))
            y += Uall @ (-Bm @ y2)
        y += V[:, :mk] @ y2
        if C is None and mk < k:
            pass
        elif (settled or (update and cycle_no >= update)) and C is not None:
            pass  # the space settled: kept as it is for the rest of the solve
        else:
            C, U, P, R = harmonic_update(C, U, V, H, Bm[kf:], k)
            if kf:  # U - Uf Cf^T A D^-1 U, so that A D^-1 U = C (C is orthogonal to Cf)
                kk = P.shape[0] - mk
                U -= Uf @ (np.column_stack([np.zeros((kf, kk)), Bm[:kf]]) @ P @ np.linalg.inv(R))
        r = b - op(y)
        cycle_no += 1
        rnow = np.linalg.norm(r)
        settled = settled or (settle > 0 and C is not None and rnow <= settle * rprev)
        rprev = rnow
        if mode == "first" and cycle_no == 1 and U is not None and Cf is None and Call is not None:
            C = U = None  # the carried space served the first cycle
        if cycles:
            print("  cycle %d: %d iterations, true relative residual %.2e" % (cycle_no, its, np.linalg.norm(r) / np.linalg.norm(b)))
    return d * y, its, U


def ritz_report(A, U):
    """the harmonic Ritz pairs of A D^-1 in span U, and the eigenvalues of A D^-1 nearest 0"""
    d = 1.0 / A.diagonal()
    B = sp.csc_matrix(A @ sp.diags(d))
    C, R = np.linalg.qr(B @ U)
    U = U @ np.linalg.inv(R)
    mu, Z = sla.eig(C.T @ U)  # (B U)^T (B U) z = theta (B U)^T U z, B U = C orthonormal
    theta = 1.0 / mu
    for i in np.argsort(np.abs(theta)):
        u = U @ Z[:, i]
        u /= np.linalg.norm(u)
        print("  theta %.4f%+.4fi  ||A D^-1 u - theta u|| %.1e" % (theta[i].real, theta[i].imag, np.linalg.norm(B @ u - theta[i] * u)))
    ev = spla.eigs(B, k=12, sigma=0, return_eigenvectors=False)
    print("  eigenvalues nearest 0:", " ".join("%.4f%+.4fi" % (e.real, e.imag) for e in np.sort_complex(ev)))


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("prefix")
    p.add_argument("steps", type=int)
    p.add_argument("-m", type=int, default=30, help="Arnoldi steps a cycle (gcrodr's restart)")
    p.add_argument("-k", type=int, default=10, help="recycled vectors")
    p.add_argument("-rtol", type=float, default=1e-8)
    p.add_argument("-mode", choices=["carried", "fresh", "project", "first", "beside"], default="carried")
    p.add_argument("-update", type=int, default=0, help="cycles a solve that update the space (0: every cycle)")
    p.add_argument("-settle", type=float, default=0.0, help="keep the space once a cycle cut the residual by this")
    p.add_argument("-same", action="store_true", help="every b with the first matrix")
    p.add_argument("-cycles", action="store_true", help="the true residual at each cycle's end")
    p.add_argument("-ritz", action="store_true", help="the pairs of the space system 1 leaves")
    a = p.parse_args()
    mats, rhs = load(a.prefix, a.steps)
    U, later = None, 0
    for s in range(a.steps):
        A = mats[0] if a.same else mats[s]
        x, its, Unew = solve(A, rhs[s], U if a.mode != "fresh" else None, a.m, a.k, a.rtol, a.mode, a.cycles,
                         update=a.update, settle=a.settle)
        if s == 0 and a.ritz:
            ritz_report(A, Unew)
        U = Unew
        print("system %d: %d iterations, true relative residual %.2e"
              % (s + 1, its, np.linalg.norm(rhs[s] - A @ x) / np.linalg.norm(rhs[s])), flush=True)
        later += its if s > 0 else 0
    print("systems 2..%d: %d iterations" % (a.steps, later))


if __name__ == "__main__":
    main()

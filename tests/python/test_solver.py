"""Options, the options database, view, the result, the split-phase reductions."""
import numpy as np
import pytest

import ovkrylov


def test_info(comm, laplace):
    with ovkrylov.Solver(laplace, solver="cg1", rtol=1e-6, condest=True, from_options=False) as s:
        assert s.get_option("solver") == "cg1" and float(s.get_option("rtol")) == 1e-6
        x, info = s.solve(np.ones(laplace.nlocal))
    assert info.converged and info.status == 0 and info.residual < 1e-6
    assert info.history.shape == (info.iterations + 1,) and info.history[-1] < info.history[0]
    assert info.times["solve"] > 0 and info.setup_time >= 0 and info.reductions > 0
    assert 0 < info.lambda_min < info.lambda_max


def test_x0_and_inplace(comm, laplace):
    b = np.ones(laplace.nlocal)
    with ovkrylov.Solver(laplace, from_options=False) as s:
        x, info = s.solve(b)
        x0 = x.copy()
        y, again = s.solve(b, x0=x0)
        assert y is not x0 and again.iterations <= 1 and np.array_equal(x0, x)
        z = np.zeros_like(b)
        w, _ = s.solve(b, x0=z, inplace=True)
        assert w is z and np.allclose(z, x)


def test_options_database(comm, laplace):
    rest = ovkrylov.options(["prog", "-ovk_solver", "groppcg", "-other", "-p_ovk_rtol", "1e-5"])
    try:
        assert rest == ["prog", "-other"]
        with ovkrylov.Solver(laplace, solver="alg1") as s:  # the database overrides the keyword
            assert s.get_option("solver") == "groppcg"
            assert "groppcg" in s.view()
        with ovkrylov.Solver(laplace, prefix="p_") as s:
            assert float(s.get_option("rtol")) == 1e-5
    finally:
        ovkrylov.options(["prog"])


@pytest.mark.parametrize("backend", ["blocking", "native", "nbc"])
def test_dot_start_wait(comm, backend):
    rng = np.random.default_rng(comm.Get_rank())
    x, y = rng.random(50), rng.random(50)
    with ovkrylov.Reducer(comm, backend) as red:
        assert red.spec.startswith(backend)
        req = ovkrylov.dot_start(red, x, y)
        req2 = ovkrylov.dot_start(red, [x, y], [x, x])
        req2.test()
        d = ovkrylov.wait(req)
        d2 = ovkrylov.wait(req2)
        m = ovkrylov.wait(ovkrylov.reduce_start(red, [comm.Get_rank(), -comm.Get_rank()], op="max"))
        with pytest.raises(ovkrylov.ArgumentError):
            req.wait()
    assert d == pytest.approx(comm.allreduce(x @ y), rel=1e-13)
    assert d2 == pytest.approx([comm.allreduce(x @ x), comm.allreduce(y @ x)], rel=1e-13)
    assert list(m) == [comm.Get_size() - 1, 0]


def test_no_leak(comm):
    """1,000 create/solve/destroy cycles of a solver (and of a matrix every
    10th): the resident set grows by less than 4 MB after the first 100."""
    def rss_kb():
        with open("/proc/self/status") as f:
            return next(int(line.split()[1]) for line in f if line.startswith("VmRSS:"))
    b = np.ones(27)
    before = None
    A = None
    for i in range(1000):
        if i == 100:
            before = rss_kb()
        if i % 10 == 0:
            if A:
                A.close()
            A = ovkrylov.Matrix.laplace27(comm, 3)
        with ovkrylov.Solver(A, from_options=False) as s:
            s.solve(b)
    A.close()
    grown = rss_kb() - before
    assert grown < 4096, f"RSS grew by {grown} kB over 900 cycles"


def _neumann_path(comm, n=60):
    """The 1-D pure Neumann Laplacian (row sums zero), this rank's rows."""
    lo, hi = comm.Get_rank() * n // comm.Get_size(), (comm.Get_rank() + 1) * n // comm.Get_size()
    indptr, indices, data = [0], [], []
    for i in range(lo, hi):
        cols = [j for j in (i - 1, i, i + 1) if 0 <= j < n]
        indices += cols
        data += [len(cols) - 1.0 if j == i else -1.0 for j in cols]
        indptr.append(len(indices))
    return ovkrylov.Matrix.from_csr(comm, lo, indptr, indices, data), lo, hi


@pytest.mark.parametrize("solver", ["cg1", "plcg", "minres", "pminres"])
def test_nullspace(comm, solver):
    n = 60
    A, lo, hi = _neumann_path(comm, n)
    with A:
        b = np.sin(np.arange(lo, hi) + 1.0) + 0.5  # inconsistent: a nonzero mean
        want = abs(comm.allreduce(b.sum())) / np.sqrt(n) / np.sqrt(comm.allreduce(b @ b))
        xs = []
        for kw in ({"has_constant": True}, {"vectors": [np.full(hi - lo, 3.0)]},
                   {"vectors": np.full((1, hi - lo), -2.0)}):
            with ovkrylov.Solver(A, solver=solver, rtol=1e-10, from_options=False) as s:
                s.set_nullspace(**kw)
                x, info = s.solve(b)
            assert info.converged
            assert info.extra["nullspace_inconsistency"] == pytest.approx(want, rel=1e-10)
            assert abs(comm.allreduce(x.sum())) <= 1e-10 * np.sqrt(comm.allreduce(x @ x))
            xs.append(x)
        assert np.allclose(xs[0], xs[1], rtol=0, atol=1e-8) and np.allclose(xs[0], xs[2], rtol=0, atol=1e-8)
        with ovkrylov.Solver(A, solver=solver, max_it=200, from_options=False) as s:
            s.set_nullspace(has_constant=True)
            s.set_nullspace()  # removed again: the singular system does not converge
            with pytest.raises(ovkrylov.Error):
                s.solve(b)
            with pytest.raises(ovkrylov.ArgumentError):
                s.set_nullspace(vectors=[np.ones(hi - lo + 1)])
            with pytest.raises(ovkrylov.Error, match="not in A's null space"):
                s.set_nullspace(vectors=[np.arange(lo, hi, dtype=float) ** 2])
                s.setup()


def _saddle(m):
    """[[A, B^T], [B, 0]]: A the 1-D Laplacian of 2m velocity rows, B the
    differences of m disjoint pairs; rows interleaved u u p.  CSR and fields."""
    import scipy.sparse as sp
    n = 2 * m
    a = sp.diags([-np.ones(n - 1), 2 * np.ones(n), -np.ones(n - 1)], [-1, 0, 1])
    b = sp.lil_matrix((m, n))
    for j in range(m):
        b[j, 2 * j], b[j, 2 * j + 1] = 1.0, -1.0
    k = sp.bmat([[a, b.T], [b, None]]).tocsr()
    perm = np.empty(3 * m, dtype=int)  # new row -> natural unknown
    perm[0::3], perm[1::3], perm[2::3] = np.arange(0, n, 2), np.arange(1, n, 2), n + np.arange(m)
    return k[perm][:, perm].tocsr(), (perm >= n).astype(int)


def test_fieldsplit(comm):
    from conftest import my_rows
    m = 20
    K, fields = _saddle(m)
    lo, hi = my_rows(comm, 3 * m)
    A = ovkrylov.Matrix.from_csr(comm, lo, K[lo:hi])
    plo = int(fields[:lo].sum())
    M = ovkrylov.Matrix.from_csr(comm, plo, ovkrylov_identity_rows(plo, int(fields[lo:hi].sum()), m))
    b = np.ones(hi - lo)
    with A, M:
        with ovkrylov.Solver(A, solver="minres", precond="fieldsplit:0=jacobi", rtol=1e-10, from_options=False) as s:
            with pytest.raises(ovkrylov.Error, match="ovk_solver_set_fields"):
                s.solve(b)
            with pytest.raises(ovkrylov.Error, match="expected"):
                s.set_fields(fields[lo:hi][:-1] if hi > lo else [0])
            bad = fields[lo:hi].copy()
            if hi == 3 * m:
                bad[-1] = 2
            with pytest.raises(ovkrylov.Error, match=f"row {3 * m - 1}'s field is 2"):
                s.set_fields(bad)
            s.set_fields(fields[lo:hi])
            x, info = s.solve(b)
            assert info.converged
        with ovkrylov.Solver(A, solver="gmres", precond="fieldsplit:type=lower,0=jacobi", rtol=1e-10,
                             from_options=False) as s:
            s.set_fields(fields[lo:hi])
            s.set_schur_matrix(M)
            y, info = s.solve(b)
            assert info.converged and "user" in s.view()
    xs, ys = np.concatenate(comm.allgather(x)), np.concatenate(comm.allgather(y))
    assert np.linalg.norm(K @ xs - 1) < 1e-8 * np.sqrt(3 * m) and np.allclose(xs, ys, atol=1e-7)


def test_schur_raised_on_one_rank(comm):
    """set_schur_matrix raising on rank 0 (caught) and a solve: an Error on
    every rank naming rank 0 as one that set none (it hung: the ranks chose
    between the user's matrix and selfp apart)."""
    if comm.size < 2:
        pytest.skip("needs 2 ranks")
    from conftest import my_rows
    m = 20
    K, fields = _saddle(m)
    lo, hi = my_rows(comm, 3 * m)
    A = ovkrylov.Matrix.from_csr(comm, lo, K[lo:hi])
    plo = int(fields[:lo].sum())
    M = ovkrylov.Matrix.from_csr(comm, plo, ovkrylov_identity_rows(plo, int(fields[lo:hi].sum()), m))
    with A, M:
        with ovkrylov.Solver(A, solver="minres", precond="fieldsplit:0=jacobi", from_options=False) as s:
            s.set_fields(fields[lo:hi])
            try:
                s.set_schur_matrix("not a matrix" if comm.rank == 0 else M)
            except ovkrylov.Error:
                pass
            with pytest.raises(ovkrylov.Error, match="the ranks that set none: 0"):
                s.solve(np.ones(hi - lo))


def ovkrylov_identity_rows(start, count, n):
    """Rows [start, start + count) of the n x n identity, CSR."""
    import scipy.sparse as sp
    return sp.identity(n, format="csr")[start:start + count]

#!/usr/bin/env python3
"""Render the generated blocks of docs/performance.md from bench/results/*.csv.

    bench/report/report_render.py [-results DIR] [-doc FILE] [-check] [-o FILE]

Each block sits between `<!-- report:NAME -->` and `<!-- /report:NAME -->`
and is made from one data file alone (NAMES below: block -> file; a block
not named there is rendered by `table` from NAME.csv, '-' read as '_').  A data
file is CSV; its leading `# key: value` lines name the machine (`machine`)
and the commands that produced it (`command`, one per line); other `#` lines
are notes for the reader of the file and are not rendered.  `# problem: X`
lines inside amg.csv and amg_loop.csv start the rows of one problem.

Without -check the doc is rewritten in place (or written to -o FILE);
with -check nothing is written and the exit status is 1 when any block
differs from what its data render (the differing blocks are named), 2 when a
data file or an end marker is missing or a markdown table stands outside the
blocks (every table of the doc is generated).  A renderer whose block the doc
does not hold is not run.  Python 3 standard library only.
"""
import argparse
import csv
import io
import os
import statistics
import sys

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # bench/


def read_data(path):
    """-> (meta dict of lists, list of (problem, rows as dicts))"""
    meta = {}
    groups = []
    problem, lines = None, []

    def flush():
        if lines:
            groups.append((problem, list(csv.DictReader(io.StringIO("\n".join(lines))))))

    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("#"):
                key, sep, val = line[1:].strip().partition(":")
                if key == "problem" and sep:
                    flush()
                    problem, lines = val.strip(), []
                elif sep and key in ("machine", "command", "what"):
                    meta.setdefault(key, []).append(val.strip())
                continue
            if line.strip():
                lines.append(line)
    flush()
    return meta, groups


def rows_of(path):
    meta, groups = read_data(path)
    return meta, [r for _, g in groups for r in g]


def med(v):
    return statistics.median(v)


def head(meta, what, table=True):
    """the commands, the machine and what the table holds: one line"""
    cmds = meta.get("command", ["(not recorded)"])
    out = ["Run: " + "; ".join(f"`{c}`" for c in cmds) + ". Machine: "
           + "; ".join(meta.get("machine", ["not recorded"])) + "." + (" " + what if what else "")]
    return out + ([""] if table else [])


def f0(x):
    return f"{float(x):.0f}"


# ---------------------------------------------------------------- latency
def latency(path):
    meta, rows = rows_of(path)
    sizes = list(dict.fromkeys(r["n"] for r in rows))
    order, it, rp, t, hid = [], {}, {}, {}, {}
    for r in rows:
        s, ch = r["solver"], ""
        if "->" in s:
            s, ch = s.split("->", 1)
        if s not in order:
            order.append(s)
        n, lat = r["n"], r["latency_us"]
        if lat == "0":
            it[s, n], rp[s, n] = r["iterations"], r["reductions_per_iter"]
        t[s, n, lat] = f0(r["median_us_per_iter"]) + (f" ({ch})" if ch else "")
        if lat in ("250", "1000") and r["hidden_pct"] not in ("-", ""):
            hid[s, n, lat] = ("0" if r["hidden_pct"] == "-0" else r["hidden_pct"]) + "%"
    lats = ("0", "100", "250", "1000")
    hlats = [L for L in ("250", "1000") if any(k[2] == L for k in hid)] or ["1000"]
    out = head(meta, "Median µs per iteration at each modelled latency; hidden: the share of the latency "
               "the solver hides, paired by round" + ("; `auto`'s choice in parentheses" if any(
                   "->" in r["solver"] for r in rows) else "") + ":")
    out.append("| solver | iterations | reductions/iter | " + " | ".join(
        f"{n}³: {L} µs" if L == "0" else f"{L} µs" for n in sizes for L in lats) + " | "
        + " | ".join(f"hidden at {L} µs" for L in hlats) + " |")
    out.append("|---|---:|---:|" + "---:|" * (len(sizes) * len(lats) + len(hlats)))
    for s in order:
        out.append(f"| {s} | " + " / ".join(it.get((s, n), "-") for n in sizes) + " | "
                   + " / ".join(rp.get((s, n), "-") for n in sizes) + " | "
                   + " | ".join(t.get((s, n, L), "-") for n in sizes for L in lats) + " | "
                   + " | ".join(" / ".join(hid.get((s, n, L), "-") for n in sizes) for L in hlats) + " |")
    return out


# ---------------------------------------------------------------- precond
def precond(path):
    meta, rows = rows_of(path)
    pcs, solvers, it, v, ch, best = [], [], {}, {}, {}, {}
    for r in rows:
        pc, lat = r["precond"], r["latency_us"]
        base, _, chose = r["solver"].partition("->")
        if pc not in pcs:
            pcs.append(pc)
        if base not in solvers:
            solvers.append(base)
        it[pc] = r["iterations"]
        v[pc, base, lat] = float(r["ms_per_solve"])
        if chose:
            ch[pc, base, lat] = chose
        if (pc, lat) not in best or v[pc, base, lat] < best[pc, lat]:
            best[pc, lat] = v[pc, base, lat]
    lats = ("0", "250")
    out = head(meta, "Milliseconds per solve (iterations × median time per iteration), setup excluded; "
               "the fastest with each preconditioner in bold; `auto`'s choice in parentheses:")
    out.append("| solver | " + " | ".join(f"{pc} ({it[pc]} it.), {L} µs" for pc in pcs for L in lats) + " |")
    out.append("|---|" + "---:|" * (len(pcs) * len(lats)))
    for s in solvers:
        cells = []
        for pc in pcs:
            for L in lats:
                x = v.get((pc, s, L))
                if x is None:
                    cells.append("-")
                    continue
                c = f"{x:.0f}" + (f" ({ch[pc, s, L]})" if (pc, s, L) in ch else "")
                cells.append(f"**{c}**" if x == best[pc, L] else c)
        out.append(f"| {s} | " + " | ".join(cells) + " |")
    return out


# ---------------------------------------------------------------- oneshot
def oneshot_cells(meta, rows):
    """oneshot_bench.sh's printed ratios, one row per grid and latency"""
    out = head(meta, "Per grid and modelled latency: the fastest fixed solver one-shot (one `mpiexec` per "
               "solve, setup + solve, median µs per iteration), and `auto` over it (below 1: `auto` faster): "
               "one-shot by medians, one-shot paired by round (`auto`, `auto:maxl=4`); repeated solves of "
               "set-up objects (`auto`, `auto:maxl=4`, over the fastest fixed solver there):")
    out += ["| grid per rank | latency µs | fastest fixed, µs/it | auto, one-shot | paired: auto | auto:maxl=4 "
            "| repeated: auto | auto:maxl=4 |", "|---|---:|---|---:|---:|---:|---:|---:|"]
    for r in rows:
        out.append(f"| {r['n']}³ | {r['latency_us']} | {r['best_fixed']} {float(r['best_fixed_us_per_iter']):.1f} | "
                   + " | ".join(r[k] for k in ("auto_over_best", "auto_paired", "automaxl4_paired",
                                               "auto_repeated", "automaxl4_repeated")) + " |")
    return out


def oneshot(path):
    meta, rows = rows_of(path)
    if rows and "best_fixed" in rows[0]:
        return oneshot_cells(meta, rows)
    solvers, lats, data = [], [], {}
    for r in rows:
        if r["solver"] not in solvers:
            solvers.append(r["solver"])
        if r["latency_us"] not in lats:
            lats.append(r["latency_us"])
        data.setdefault((r["solver"], r["latency_us"]), []).append(r)
    lats.sort(key=int)

    def per_it(r, setup):
        n = int(r["iterations"]) or 1
        return 1e6 * (float(r["solve_s"]) + (float(r["setup_s"]) if setup else 0)) / n

    its = sorted({r["iterations"] for r in rows})
    rst = sorted({r["restarts"] for r in rows})
    out = head(meta, f"One `mpiexec` of the driver per solve, nbc, {'/'.join(its)} iterations, restarts "
               f"{'/'.join(rst)}; medians over the interleaved rounds of µs per iteration, solve alone / "
               "setup + solve; `auto`'s choices in parentheses; last rows: `auto`'s setup + solve over the "
               "fastest fixed solver's (by median), paired by round, median over rounds:")
    out.append("| solver | " + " | ".join(f"{L} µs" for L in lats) + " |")
    out.append("|---|" + "---:|" * len(lats))
    for s in solvers:
        cells = []
        for L in lats:
            rs = data.get((s, L))
            if not rs:
                cells.append("-")
                continue
            chose = list(dict.fromkeys(r["auto_choice"] for r in rs if r["auto_choice"] != "-"))
            cells.append(f"{med([per_it(r, False) for r in rs]):.0f} / {med([per_it(r, True) for r in rs]):.0f}"
                         + (f" ({'/'.join(chose)})" if chose else ""))
        out.append(f"| {s} | " + " | ".join(cells) + " |")
    autos = [s for s in solvers if s.startswith("auto")]
    best = {}
    for L in lats:
        fixed = [s for s in solvers if (s, L) in data and not s.startswith("auto") and "lmax=" not in s]
        best[L] = min(fixed, key=lambda s: med([per_it(r, True) for r in data[s, L]]))
    for a in autos:
        cells = []
        for L in lats:
            bt = {r["round"]: per_it(r, True) for r in data[best[L], L]}
            q = [per_it(r, True) / bt[r["round"]] for r in data.get((a, L), []) if bt.get(r["round"])]
            cells.append((f"{med(q):.2f}" if q else "-") + f" ({best[L]})")
        out.append(f"| {a} / fastest fixed | " + " | ".join(cells) + " |")
    return out


# ---------------------------------------------------------------- peers
def peers(path):
    meta, rows = rows_of(path)
    ns = list(dict.fromkeys(r["n"] for r in rows))
    solvers = list(dict.fromkeys(r["solver"] for r in rows))
    by = {(r["n"], r["solver"]): r for r in rows}
    its = {n: "/".join(sorted({r["iterations"] for r in rows if r["n"] == n})) for n in ns}
    res = {n: sorted({float(r["rel_residual"]) for r in rows if r["n"] == n and r.get("rel_residual", "-") != "-"})
           for n in ns}  # a recorded run may lack the residuals
    out = head(meta, "Blocking reductions, no modelled latency; one `mpiexec` per program and repeat, interleaved; "
               "median ms per iteration, and ours over hypre's and over PETSc's with AIJ (below 1: ours faster); "
               + "; ".join(f"`-n {n}`: {its[n]} iterations"
                           + (f", final residual {res[n][0]:.4e}–{res[n][-1]:.4e}" if res[n] else "")
                           for n in ns) + ":")
    out.append("| solver | " + " | ".join(f"`-n {n}`: ms/it | / hypre | / PETSc" for n in ns) + " |")
    out.append("|---|" + "---:|---:|---:|" * len(ns))
    for s in solvers:
        cells = []
        for n in ns:
            r = by.get((n, s))
            if not r:
                cells += ["-", "-", "-"]
                continue
            ms = float(r["ms_per_iter"])
            cells.append(f"{ms:.3f}" if ms < 10 else f"{ms:.1f}")
            for ref in ("hypre DS-PCG", "PETSc KSPcg + Jacobi"):
                q = by.get((n, ref))
                cells.append(f"{ms / float(q['ms_per_iter']):.2f}" if q and s.startswith("ovkrylov") else "-")
        out.append(f"| {s} | " + " | ".join(cells) + " |")
    return out


# ---------------------------------------------------------------- amg
def amg(path):
    meta, groups = read_data(path)
    medians = any(r["round"] == "median" for _, g in groups for r in g)
    out = head(meta, ("Medians of 3 interleaved rounds (the data file holds the medians)" if medians else
                      "Medians over the interleaved rounds")
               + "; ours / this: the problem's first case's time over this case's, paired by round "
               "but for a separate run (below 1: ours faster):")
    out += ["| problem | case | iterations | setup s | solve s | setup + solve s | ours / this, solve | ours / this, total |",
            "|---|---|---:|---:|---:|---:|---:|---:|"]
    for problem, rows in groups:
        cases = list(dict.fromkeys(r["case"] for r in rows))
        by = {c: [r for r in rows if r["case"] == c] for c in cases}
        ours = cases[0]
        ob = {r["round"]: r for r in by[ours]}
        for i, c in enumerate(cases):
            rs = by[c]
            su = [float(r["setup_s"]) for r in rs]
            so = [float(r["solve_s"]) for r in rs]
            tot = [a + b for a, b in zip(su, so)]
            q = []
            for k, f in (("s", lambda r: float(r["solve_s"])),
                         ("t", lambda r: float(r["setup_s"]) + float(r["solve_s"]))):
                if i == 0:
                    q.append("-")
                    continue
                paired = [f(ob[r["round"]]) / f(r) for r in rs if r["round"] in ob]
                if paired:
                    q.append(f"{med(paired):.2f}")
                else:  # a separate run: medians against medians
                    q.append(f"{med([f(r) for r in by[ours]]) / med([f(r) for r in rs]):.2f}")
            note = (f" ({len(rs)} round{'s' if len(rs) > 1 else ''}"
                    f"{'' if rs[0]['round'] in ob else ', a separate run'})") if len(rs) != len(by[ours]) else ""
            out.append(f"| {problem if i == 0 else ''} | {c}{note} | {med([int(r['iterations']) for r in rs]):.0f} | "
                       f"{med(su):.2f} | {med(so):.2f} | {med(tot):.2f} | {q[0]} | {q[1]} |")
    return out


# ---------------------------------------------------------------- nonsym
def nonsym(path):
    meta, rows = rows_of(path)
    by = {r["id"]: r for r in rows}

    def spi(i):
        return float(by[i]["s_per_iter"])

    def q(a, b):
        return f"{spi(a) / spi(b):.2f}" if a in by and b in by else "-"

    out = head(meta, "Ratios of medians, ours / peer (below 1: ours faster); per iteration (`s_per_iter`) "
               "unless said; the three values: jacobi, ILU(0), ILU(0) with the factor read as float; "
               "latency rows on convdiff `-n 20`:")
    out += ["| ratio | measured, convdiff `-n 60` | measured, unstructured | target |", "|---|---|---|---|"]
    for ours, peer, what in (("gmres", "gmres", "gmres / KSPGMRES"),
                             ("gmresb", "gmres", "gmres:basis=single / KSPGMRES"),
                             ("bicgstab", "bcgs", "bicgstab / KSPBCGS")):
        cells = []
        for p in ("cd", "fe"):
            if ours == "gmresb":
                ids = [f"{p}_ours_gmres_{x}" for x in ("jacobib", "ilu0b", "ilu0sb")]
            else:
                ids = [f"{p}_ours_{ours}_{x}" for x in ("jacobi", "ilu0", "ilu0s")]
            peers_ = [f"{p}_petsc_{peer}_{x}" for x in ("jacobi", "ilu0", "ilu0")]
            cells.append(", ".join(q(a, b) for a, b in zip(ids, peers_)))
        out.append(f"| {what}, 0 µs | {cells[0]} | {cells[1]} | 0.8 |")
    l = [f"lat_ours_pgmres_l{k}" for k in range(1, 5)]
    best = min((i for i in l if i in by), key=spi, default=None)
    if best:
        bl = best.rsplit("l", 1)[1]
        out.append(f"| pgmres / our gmres, 250 µs: l = 2 (default); best of l = 1..4 (l = {bl}) | "
                   f"{q('lat_ours_pgmres_l2', 'lat_ours_gmres')}; {q(best, 'lat_ours_gmres')} | | 0.5 |")
        out.append(f"| pgmres / KSPPGMRES, 250 µs: l = 2; l = {bl} | "
                   f"{q('lat_ours_pgmres_l2', 'lat_petsc_pgmres')}; {q(best, 'lat_petsc_pgmres')} | | 0.7 |")
    out.append(f"| pipebicgstab / our bicgstab, 250 µs (with `early=0`, the paper's schedule) | "
               f"{q('lat_ours_pipebicgstab', 'lat_ours_bicgstab')} ({q('lat_ours_pipebicgstab_e0', 'lat_ours_bicgstab')}) | | 0.6 |")
    out.append(f"| pipebicgstab / KSPPIPEBCGS, 250 µs (`early=0`) | "
               f"{q('lat_ours_pipebicgstab', 'lat_petsc_pipebcgs')} ({q('lat_ours_pipebicgstab_e0', 'lat_petsc_pipebcgs')}) | | 0.8 |")
    # time to solution on the unstructured matrix, converged runs
    fe = [r for r in rows if r["problem"] == "fe" and r["converged"] == "1" and r["latency_us"] == "0"]

    def fastest(rs, f):
        return min(rs, key=f) if rs else None

    solve = lambda r: float(r["solve_s"])
    total = lambda r: float(r["setup_s"]) + float(r["solve_s"])
    ours = [r for r in fe if r["who"] == "ours"]
    plain = [r for r in ours if ":" not in r["solver"] and ":" not in r["precond"]]
    pet = [r for r in fe if r["who"] == "petsc"]
    if ours and pet:
        for what, group in (("fastest of ours", ours), ("fastest of ours at defaults (no tuned key)", plain)):
            a, b = fastest(group, solve), fastest(pet, solve)
            c, d = fastest(group, total), fastest(pet, total)
            out.append(f"| {what} / fastest PETSc, solve; setup + solve "
                       f"({a['solver']} + {a['precond']}, {a['iterations']} it., {solve(a):.3f} + {float(a['setup_s']):.3f} s; "
                       f"PETSc {b['solver'].upper()} + {b['precond']}, {b['iterations']} it., {solve(b):.3f} + {float(b['setup_s']):.3f} s) | "
                       f" | {solve(a) / solve(b):.2f}; {total(c) / total(d):.2f} | 0.8 |")
    return out


# ---------------------------------------------------------------- python
def python(path):
    meta, rows = rows_of(path)
    out = head(meta, "", table=False)
    out[-1] += " " + "; ".join(f"{r['quantity']}: **{r['value']}{' ' + r['unit'] if r['unit'] else ''}**"
                               for r in rows) + "."
    return out


# ---------------------------------------------------------------- many
def many(path):
    meta, rows = rows_of(path)
    cases = list(dict.fromkeys(r["case"] for r in rows))
    out = head(meta, "k = 8 random right-hand sides, Jacobi unless said, rtol 1e-8; batch and singles "
               "interleaved, medians; per system per iteration: time over the iterations of all systems; "
               "PETSc: `KSPMatSolve` (the columns one after another):")
    out += ["| case | solve_many(8) | 8 single solves | ratio (target) | per system per iteration, batch / singles "
            "| reductions, batch / singles | PETSc | ours / PETSc (target) |",
            "|---|---:|---:|---:|---|---|---:|---:|"]

    def unit(sec):
        return f"{sec * 1e3:.2f} ms" if sec >= 1e-3 else f"{sec * 1e6:.0f} µs"

    def tgt(t):
        return f" (≤ {t})" if t else ""

    for c in cases:
        rs = [r for r in rows if r["case"] == c]
        b = [r for r in rs if r["who"] == "batch"]
        s = [r for r in rs if r["who"] == "singles"]
        p = [r for r in rs if r["who"] == "petsc"]
        mb, ms = med([float(r["time_s"]) for r in b]), med([float(r["time_s"]) for r in s])
        pc = (f"{float(p[0]['time_s']):.3g} s | {mb / float(p[0]['time_s']):.2f}{tgt(p[0]['target'])}" if p else "- | -")
        out.append(f"| {b[0]['label']} | {mb:.3g} s | {ms:.3g} s | {mb / ms:.2f}{tgt(b[0]['target'])} | "
                   f"{unit(mb / int(b[0]['iterations']))} / {unit(ms / int(s[0]['iterations']))} | "
                   f"{int(b[0]['reductions']):,} / {int(s[0]['reductions']):,} | {pc} |")
    return out


# ---------------------------------------------------------------- neumann
def neumann(path):
    meta, rows = rows_of(path)
    out = head(meta, "Medians over the interleaved rounds (range in parentheses); reductions as `-ovk_log_view` counts them:")
    out += ["| solver | iterations, Dirichlet / Neumann | Solve Time, Dirichlet | Solve Time, Neumann | "
            "Neumann / Dirichlet, time | reductions per solve, Dirichlet / Neumann |",
            "|---|---|---:|---:|---:|---|"]
    for s in dict.fromkeys(r["solver"] for r in rows):
        d = [r for r in rows if r["solver"] == s and r["bc"] == "dirichlet"]
        n = [r for r in rows if r["solver"] == s and r["bc"] == "neumann"]
        td, tn = [float(r["solve_s"]) for r in d], [float(r["solve_s"]) for r in n]
        out.append(f"| {s} | {d[0]['iterations']} / {n[0]['iterations']} | "
                   f"{med(td):.3f} s ({min(td):.3f}–{max(td):.3f}) | {med(tn):.3f} s ({min(tn):.3f}–{max(tn):.3f}) | "
                   f"{med(tn) / med(td):.2f} | {d[0]['reductions']} / {n[0]['reductions']} |")
    return out


# ---------------------------------------------------------------- any table
def table(path):
    """a data file whose columns are the table's: rendered as they are"""
    meta, rows = rows_of(path)
    what = "; ".join(meta.get("what", []))
    out = head(meta, what)
    if rows:
        cols = list(rows[0].keys())
        out.append("| " + " | ".join(cols) + " |")
        out.append("|" + "|".join("---" for _ in cols) + "|")
        out += ["| " + " | ".join(r[c] for c in cols) + " |" for r in rows]
    return out



# ---------------------------------------------------------------- summary
def summary(results):
    """ours over hypre and PETSc, one row a comparison, from the data files of
    other blocks (a row whose data file or rows are missing is left out)"""
    rows = []

    def add(what, hypre, petsc, src):
        cell = lambda r: "-" if r is None else f"{r:.2f}"
        rows.append(f"| {what} | {cell(hypre)} | {cell(petsc)} | {src} |")

    def label(problem):  # the problem's name and size: "FE Poisson, 838,212 unknowns"
        return ", ".join(problem.split(", ")[:2])

    def amg_rows(fn, what, src):
        _, groups = read_data(os.path.join(results, fn))
        for problem, rs in groups:
            cases = list(dict.fromkeys(r["case"] for r in rs))
            tot = {c: med([float(r["setup_s"]) + float(r["solve_s"]) for r in rs if r["case"] == c]) for c in cases}
            peer = {p: next((tot[cases[0]] / tot[c] for c in cases[1:] if c.startswith(p)), None)
                    for p in ("hypre", "PETSc")}
            add(what.format(label(problem)), peer["hypre"], peer["PETSc"], src)

    def nonsym_rows():
        _, rs = rows_of(os.path.join(results, "nonsym.csv"))
        by = {r["id"]: float(r["s_per_iter"]) for r in rs}
        for ours, peer, what in (("fe_ours_gmres_ilu0", "fe_petsc_gmres_ilu0", "GMRES(30) + ILU(0)"),
                                 ("fe_ours_bicgstab_ilu0", "fe_petsc_bcgs_ilu0", "BiCGStab + ILU(0)")):
            if ours in by and peer in by:
                add(f"{what}, unstructured advection–diffusion, per iteration", None, by[ours] / by[peer], "§7")

    def many_rows():
        _, rs = rows_of(os.path.join(results, "many.csv"))
        for c in dict.fromkeys(r["case"] for r in rs):
            b = [float(r["time_s"]) for r in rs if r["case"] == c and r["who"] == "batch"]
            p = [float(r["time_s"]) for r in rs if r["case"] == c and r["who"] == "petsc"]
            if b and p:
                what = next(r["label"] for r in rs if r["case"] == c).split(", ")[0]
                add(f"8 right-hand sides in one call against KSPMatSolve, {what}", None, med(b) / med(p), "§9")
                return

    def stokes_rows():
        _, rs = rows_of(os.path.join(results, "stokes.csv"))
        big = max(int(r["rows"]) for r in rs)
        for r in rs:
            if int(r["rows"]) == big and r["case"] == "ovk-selfp":
                add(f"Stokes, {big:,} rows, minres + fieldsplit, setup + solve", None,
                    float(r["total / petsc-selfp"]), "§15")

    for f in (lambda: amg_rows("amg.csv", "CG + AMG, {}, setup + solve", "`amg.csv`"),
              lambda: amg_rows("amg_loop.csv", "CG + AMG in a time loop, {}", "§11"),
              nonsym_rows, many_rows, stokes_rows):
        try:
            f()
        except (OSError, KeyError, ValueError, StopIteration, statistics.StatisticsError):
            pass
    out = ["Run: `bench/report.sh -render` (this table from the data files of the sections named, where their "
           "runs and machines are; `amg.csv`: the default amg against hypre's and PETSc's, at larger sizes than §5's suite). "
           "Ratios of medians, ours / peer's default solver (below 1: ours faster):", "",
           "| comparison | ours / hypre | ours / PETSc | section |", "|---|---:|---:|---|"]
    return out + rows


NAMES = {  # block -> (data file, renderer); None: the renderer reads the results folder
    "latency": ("latency.csv", latency),
    "precond": ("precond.csv", precond),
    "amg": ("amg.csv", amg),
    "amg-loop": ("amg_loop.csv", amg),
    "nonsym": ("nonsym.csv", nonsym),
    "python": ("python.csv", python),
    "many": ("many.csv", many),
    "neumann": ("neumann.csv", neumann),
    "summary": (None, summary),
    "idrs": ("idrs.csv", table),
    "idrs-latency": ("idrs_latency.csv", table),
    "minres-latency": ("minres_latency.csv", table),
    "petsc": ("petsc.csv", table),
    "stokes": ("stokes.csv", table),
}


def splice(doc, name, body):
    start, end = f"<!-- report:{name} -->", f"<!-- /report:{name} -->"
    lines = doc.split("\n")
    try:
        i, j = lines.index(start), lines.index(end)
    except ValueError:
        return None, None
    return "\n".join(lines[:i + 1] + body + lines[j:]), "\n".join(lines[i + 1:j])


def tables_outside(doc):
    """(line number, section) of each markdown table (a row followed by a
    |---| row) outside the generated blocks"""
    out, inside, section = [], None, "preamble"
    lines = doc.split("\n")
    for i, line in enumerate(lines):
        if line.startswith("## "):
            section = line[3:]
        if line.startswith("<!-- report:") and line.endswith(" -->"):
            inside = line
        elif line.startswith("<!-- /report:"):
            inside = None
        elif (not inside and line.startswith("|") and i + 1 < len(lines)
              and set(lines[i + 1].replace(" ", "")) <= set("|-:") and lines[i + 1].startswith("|")):
            out.append((i + 1, section))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-results", default=os.path.join(HERE, "results"))
    ap.add_argument("-doc", default=os.path.join(HERE, "..", "docs", "performance.md"))
    ap.add_argument("-o", help="write the rendered doc here instead of in place")
    ap.add_argument("-check", action="store_true")
    a = ap.parse_args()
    with open(a.doc, encoding="utf-8") as f:
        doc = f.read()
    bad, missing = [], []
    names = dict(NAMES)
    for line in doc.split("\n"):
        if line.startswith("<!-- report:") and line.endswith(" -->"):
            name = line[len("<!-- report:"):-len(" -->")]
            names.setdefault(name, (name.replace("-", "_") + ".csv", table))
    for name, (fn, render) in names.items():
        if f"<!-- report:{name} -->" not in doc.split("\n"):
            continue  # a renderer the doc does not use (its table was removed)
        path = os.path.join(a.results, fn) if fn else a.results
        if not os.path.exists(path):
            missing.append(f"{name}: no data file {path}")
            continue
        body = render(path)
        new, old = splice(doc, name, body)
        if new is None:
            missing.append(f"{name}: no <!-- /report:{name} --> end marker in {a.doc}")
            continue
        if old != "\n".join(body):
            bad.append(name)
        doc = new
    for line_no, sec in tables_outside(doc):
        missing.append(f"a table outside a generated block at line {line_no} ({sec}): make it a data file "
                       "bench/results/NAME.csv and a block <!-- report:NAME -->")
    for m in missing:
        print("report_render: " + m, file=sys.stderr)
    if a.check:
        if bad:
            print("report_render: blocks differ from their data (run bench/report.sh -render): "
                  + " ".join(bad), file=sys.stderr)
        return 2 if missing else (1 if bad else 0)
    with open(a.o or a.doc, "w", encoding="utf-8") as f:
        f.write(doc)
    return 2 if missing else 0


if __name__ == "__main__":
    sys.exit(main())

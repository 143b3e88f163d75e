#!/usr/bin/env python3
"""Time to solution with algebraic multigrid: ours against hypre's PCG +
BoomerAMG and PETSc's CG + GAMG / CG + hypre, on one Matrix Market file, in
interleaved rounds (every case once per round, the order rotated by one each
round) so that the machine's drift hits every case alike.

    bench/amg/amg_bench.py -b build -p /tmp/ovk-peers -n 2 -r 5 -f /tmp/fe/poisson.mtx \\
        [-bs 3 -coords /tmp/fe/elast.xyz] CASES_FILE

CASES_FILE: one case a line, `label | program | flags`, where program is
`ovk` (build/examples/ovk_mtx_solve -precond ...), `hypre` (peers/hypre_mtx)
or `petsc` (peers/petsc_mtx); for a time loop of changing values,
`ovk-loop` (build/bench/ovk_loop_bench) or `petsc-loop` (peers/petsc_loop),
whose Setup and Solve Time are sums over the steps; a peer's program
followed by the word `default` marks the peer at its defaults (the ratios
against the fastest of those get their own columns); `#` starts a comment.  Every program reads the
same file, splits the rows in the same contiguous blocks (of whole nodes with
-bs) and solves from x0 = 0 to ||r|| < 1e-8 ||b|| with the same random b
(SplitMix64 of the global row).  -bs and -coords are passed to every case
(ovk and the peers take the same flags).

-raw FILE appends every run (round, label, iterations, setup, solve) as CSV.
-from_raw RAW takes the runs of an earlier -raw file instead of running.
-csv FILE -problem NAME appends the medians as rows of a generated table of
docs/performance.md (problem, case, iterations, setup, solve, their sum, and
this case's setup + solve over the first case's, paired by round), with the
header when FILE is new.

Reports per case the medians of Setup Time, Solve Time and their sum, the
iterations, and the ratios of ours to the fastest peer case (by solve time
and by setup + solve), each from the same rounds; prints a markdown table.
"""
import argparse
import csv
import os
import re
import statistics
import subprocess
import sys

LINES = {"it": r"^Iterations = (\d+)", "setup": r"^Setup Time = ([0-9.eE+-]+) s",
         "solve": r"^Solve Time = ([0-9.eE+-]+) s"}


def parse_cases(path):
    cases = []
    for line in open(path):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        label, prog, flags = (p.strip() for p in line.split("|", 2))
        prog, *marks = prog.split()
        cases.append({"label": label, "prog": prog, "default": "default" in marks, "flags": flags.split(),
                      "runs": []})
    return cases


def command(a, case):
    env_mpi = ["mpiexec", "-n", str(a.n)] + (["--oversubscribe"] if a.n > os.cpu_count() else [])
    common = ["-f", a.f, "-tol", "1e-8", "-rhs", "random"]
    if a.bs > 1:
        common += ["-bs", str(a.bs)]
    if a.coords and case["prog"] != "ovk-nocoords":
        common += ["-coords", a.coords]
    prog = case["prog"]
    if prog in ("ovk", "ovk-nocoords"):
        exe = [os.path.join(a.b, "examples", "ovk_mtx_solve"), "-print_level", "1", "-maxit", "5000"]
    elif prog == "hypre":
        exe = [os.path.join(a.p, "hypre_mtx"), "-maxit", "5000"]
    elif prog == "petsc":
        exe = [os.path.join(a.p, "petsc_mtx"), "-maxit", "5000"]
    elif prog == "ovk-loop":
        exe = [os.path.join(a.b, "bench", "ovk_loop_bench"), "-maxit", "5000"]
    elif prog == "petsc-loop":
        exe = [os.path.join(a.p, "petsc_loop"), "-maxit", "5000"]
    else:
        sys.exit(f"unknown program {prog}")
    return env_mpi + exe + common + case["flags"]


def run_once(a, case):
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", OMPI_ALLOW_RUN_AS_ROOT="1",
               OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    p = subprocess.run(command(a, case), capture_output=True, text=True, env=env, timeout=3600)
    got = {}
    for key, rx in LINES.items():
        m = re.search(rx, p.stdout, re.M)
        got[key] = float(m.group(1)) if m else None
    if p.returncode or None in got.values():
        print(f"# {case['label']}: exit {p.returncode}: {p.stderr.strip()[-300:]}", file=sys.stderr)
        return None
    return got


def load_raw(a, cases):
    """the runs of a -raw file, by round, into the cases of the same labels"""
    by = {c["label"]: c for c in cases}
    rows = []
    for line in list(open(a.from_raw))[1:]:  # round,label,iterations,setup,solve; the label may hold commas
        f = line.rstrip("\n").split(",")
        rows.append({"round": f[0], "case": ",".join(f[1:-3]).strip('"'), "iterations": f[-3], "setup_s": f[-2],
                     "solve_s": f[-1]})
    a.r = max(int(r["round"]) for r in rows)
    for c in cases:
        c["runs"] = [None] * a.r
    for r in rows:
        if r["case"] in by and r["iterations"]:
            by[r["case"]]["runs"][int(r["round"]) - 1] = {"it": float(r["iterations"]), "setup": float(r["setup_s"]),
                                                          "solve": float(r["solve_s"])}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-b", default="build")
    ap.add_argument("-p", default="/tmp/ovk-peers")
    ap.add_argument("-n", type=int, default=2)
    ap.add_argument("-r", type=int, default=5)
    ap.add_argument("-f", required=True)
    ap.add_argument("-bs", type=int, default=1)
    ap.add_argument("-coords")
    ap.add_argument("-raw")
    ap.add_argument("-csv")
    ap.add_argument("-from_raw", help="read the runs from this -raw file instead of running them")
    ap.add_argument("-problem", default="")
    ap.add_argument("cases")
    a = ap.parse_args()
    cases = parse_cases(a.cases)
    if a.from_raw:
        load_raw(a, cases)
    for r in range(0 if a.from_raw else a.r):
        for k in range(len(cases)):
            case = cases[(k + r) % len(cases)]
            got = run_once(a, case)
            case["runs"].append(got)
            if a.raw:
                new = not os.path.exists(a.raw)
                with open(a.raw, "a") as f:
                    if new:
                        f.write("round,case,iterations,setup_s,solve_s\n")
                    g = got or {"it": "", "setup": "", "solve": ""}
                    f.write(f"{r + 1},{case['label']},{g['it']},{g['setup']},{g['solve']}\n")
        print(f"# round {r + 1} of {a.r} done", file=sys.stderr)
    # per round: the fastest peer's solve and total, for paired ratios
    peers = [c for c in cases if not c["prog"].startswith("ovk")]
    print(f"\n{a.f}: {a.n} ranks, {a.r} interleaved rounds, medians (bs {a.bs}, coords {a.coords})\n")
    defaults = [c for c in peers if c["default"]]
    print("| case | iterations | setup s | solve s | setup + solve s | solve / best peer | total / best peer "
          "| solve / best default peer | total / best default peer |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    ratio = lambda v: f"{statistics.median(v):.2f}" if v else "-"
    for c in cases:
        ok = [g for g in c["runs"] if g]
        if not ok:
            print(f"| {c['label']} | failed | | | | | | | |")
            continue
        med = {k: statistics.median(g[k] for g in ok) for k in ("it", "setup", "solve")}
        cells = []
        for group in (peers, defaults):
            rs, rt = [], []
            for i, g in enumerate(c["runs"]):
                prs = [p["runs"][i] for p in group if p["runs"][i]]
                if g and prs:
                    rs.append(g["solve"] / min(p["solve"] for p in prs))
                    rt.append((g["setup"] + g["solve"]) / min(p["setup"] + p["solve"] for p in prs))
            cells += [ratio(rs), ratio(rt)]
        print(f"| {c['label']} | {med['it']:.0f} | {med['setup']:.3f} | {med['solve']:.3f} | "
              f"{med['setup'] + med['solve']:.3f} | " + " | ".join(cells) + " |")
    if a.csv:
        write_csv(a, cases)


def write_csv(a, cases):
    """the medians as table rows; total / first: paired by round against cases[0]"""
    new = not os.path.exists(a.csv)
    first = cases[0]["runs"]
    with open(a.csv, "a", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        if new:
            w.writerow(["problem", "case", "iterations", "setup s", "solve s", "setup + solve s",
                        "total / first case"])
        for k, c in enumerate(cases):
            ok = [g for g in c["runs"] if g]
            name = a.problem if k == 0 else ""
            if not ok:
                w.writerow([name, c["label"], "failed", "", "", "", ""])
                continue
            med = {key: statistics.median(g[key] for g in ok) for key in ("it", "setup", "solve")}
            pr = [(g["setup"] + g["solve"]) / (h["setup"] + h["solve"]) for g, h in zip(c["runs"], first) if g and h]
            q = "-" if k == 0 else (f"{statistics.median(pr):.2f}" if pr else "-")
            w.writerow([name, c["label"], f"{med['it']:.0f}", f"{med['setup']:.2f}", f"{med['solve']:.2f}",
                        f"{med['setup'] + med['solve']:.2f}", q])


if __name__ == "__main__":
    main()

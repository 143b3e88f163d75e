#!/usr/bin/env bash
# big.sh -- the big-problem table of docs/performance.md section 5 (the block
# report:amg-big, bench/results/amg_big.csv): FE Poisson and FE elasticity
# of bench/gen/fe_gen.py at sizes where setup matters, solved by the
# default amg (setup=boomeramg), setup=agg (smoothed; on Poisson also with a
# strength threshold), the cheap unsmoothed setup=agg and PETSc's CG + GAMG
# at its defaults, in interleaved rounds (bench/amg/amg_bench.py), with each
# case's ratios to the targets' references: setup / solve, setup + solve
# over the default's and over GAMG's (paired by round, medians).
#
#   bench/amg/big.sh [-b build] [-p /tmp/ovk-peers] [-d /tmp/amg-big] [-r 3] [-n 2]
#                    [-o bench/results/amg_big.csv] [-machine "text"] [-table 1]
#
# -table 1: no runs, the table again from the runs in -d (poisson.raw,
# elast.raw; the load is then not recorded: say it in -machine).
#
# The matrices are made in -d unless there already (Debian's /usr/bin/python3
# with gmsh, numpy, scipy; a few minutes each):
#   FE Poisson     bench/gen/fe_gen.py poisson -h 0.0095     (838,212 rows)
#   FE elasticity  bench/gen/fe_gen.py elasticity -h 0.0181  (387,849 rows, bs 3, coordinates)
# Random b, x0 = 0, rtol 1e-8, cg1 (PETSc CG); elasticity with bs=3 and the
# coordinates' rigid-body modes for every case.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=$root/build peers=/tmp/ovk-peers data=/tmp/amg-big rounds=3 np=2 out=$root/bench/results/amg_big.csv table=0
machine="$(lscpu | sed -n 's/^Model name: *//p' | head -1), $(getconf _NPROCESSORS_ONLN) cores"
while [ $# -gt 0 ]; do
  case $1 in
    -b) build=$2 ;; -p) peers=$2 ;; -d) data=$2 ;; -r) rounds=$2 ;; -n) np=$2 ;; -o) out=$2 ;;
    -machine) machine=$2 ;; -table) table=$2 ;;
    *) echo "big.sh: unknown flag $1" >&2; exit 2 ;;
  esac
  shift 2
done
PY=/usr/bin/python3
mkdir -p "$data"
make_once() { # FILE COMMAND...: run COMMAND unless FILE exists
  local f=$1; shift
  [ -s "$f" ] || "$@" > "$f.log" 2>&1 || { echo "big.sh: making $f failed (see $f.log)" >&2; exit 1; }
}
make_once "$data/poisson.mtx" $PY "$root/bench/gen/fe_gen.py" poisson -h 0.0095 -o "$data/poisson.mtx"
make_once "$data/elast.mtx" $PY "$root/bench/gen/fe_gen.py" elasticity -h 0.0181 -o "$data/elast.mtx"

# ---- the cases (label | program | flags): the default first, GAMG last -----
agg0=setup=agg,agg_smooth=0,agg_corr=1.6,degree=3
cat > "$data/scalar.txt" <<EOF
ours cg1 + amg (default, setup=boomeramg) | ovk | -solver cg1 -precond amg
ours cg1 + amg:setup=agg | ovk | -solver cg1 -precond amg:setup=agg
ours cg1 + amg:$agg0 | ovk | -solver cg1 -precond amg:$agg0
ours cg1 + amg:setup=agg,agg_threshold=0.02 | ovk | -solver cg1 -precond amg:setup=agg,agg_threshold=0.02
PETSc CG + GAMG | petsc default | -pc_type gamg
EOF
cat > "$data/elasticity.txt" <<EOF
ours cg1 + amg:bs=3 (default, setup=boomeramg) | ovk | -solver cg1 -precond amg:bs=3
ours cg1 + amg:bs=3,setup=agg | ovk | -solver cg1 -precond amg:bs=3,setup=agg
ours cg1 + amg:bs=3,$agg0 | ovk | -solver cg1 -precond amg:bs=3,$agg0
PETSc CG + GAMG, modes | petsc default | -pc_type gamg
EOF

rows() { grep -v '^%' "$1" | head -1 | awk '{printf "%\047d", $1}'; }
load0=- load1=-
if [ "$table" = 0 ]; then
  load0=$(cut -d' ' -f1 /proc/loadavg)
  rm -f "$data"/poisson.raw "$data"/elast.raw
  python3 "$here/amg_bench.py" -b "$build" -p "$peers" -n "$np" -r "$rounds" -f "$data/poisson.mtx" \
    -raw "$data/poisson.raw" "$data/scalar.txt" > "$data/poisson.md"
  python3 "$here/amg_bench.py" -b "$build" -p "$peers" -n "$np" -r "$rounds" -f "$data/elast.mtx" -bs 3 \
    -coords "$data/elast.xyz" -raw "$data/elast.raw" "$data/elasticity.txt" > "$data/elast.md"
  load1=$(cut -d' ' -f1 /proc/loadavg)
fi

# ---- the table ----------------------------------------------------------------
$PY - "$out" "$machine" "$rounds" "$np" "$load0" "$load1" \
  "$data/poisson.raw" "$data/scalar.txt" "FE Poisson, $(rows "$data/poisson.mtx")" 0.35 \
  "$data/elast.raw" "$data/elasticity.txt" "FE elasticity, $(rows "$data/elast.mtx")" 0.5 <<'EOF'
import csv, statistics, sys
out, machine, rounds, np, l0, l1 = sys.argv[1:7]
problems = [sys.argv[7 + 4 * p: 11 + 4 * p] for p in range(2)]

def runs(raw):  # label -> {round: (iterations, setup, solve)}; a label may hold commas
    by = {}
    for line in list(open(raw))[1:]:
        f = line.rstrip("\n").split(",")
        if f[-3]:
            by.setdefault(",".join(f[1:-3]).strip('"'), {})[int(f[0])] = (float(f[-3]), float(f[-2]), float(f[-1]))
    return by

def paired(a, b):  # median over the rounds both ran of a's setup + solve over b's
    return statistics.median((a[r][1] + a[r][2]) / (b[r][1] + b[r][2]) for r in a if r in b)

with open(out, "w", newline="") as f:
    f.write(f"# machine: {machine}" + ("" if l0 == "-" else f"; load {l0} before, {l1} after") + "\n")
    f.write("# command: bench/peers/build.sh /tmp/ovk-peers; "
            f"bench/amg/big.sh -b build -p /tmp/ovk-peers -r {rounds} -n {np}\n")
    f.write(f"# what: Medians of {rounds} interleaved rounds at {np} ranks, random b, rtol 1e-8; "
            "elasticity with bs=3 and the coordinates' rigid-body modes in every case; PETSc at its defaults; "
            "setup / solve, and setup + solve over the default's and over GAMG's, paired by round "
            "(targets: setup / solve <= 0.5, / default <= 0.6, / GAMG <= 0.35 on Poisson and <= 0.5 on elasticity)\n")
    w = csv.writer(f, lineterminator="\n")
    w.writerow(["problem", "configuration", "setup s", "solve s", "iterations", "setup + solve s",
                "setup / solve", "/ default", "/ GAMG"])
    for raw, cases, name, _ in problems:
        by = runs(raw)
        labels = [l.split("|")[0].strip() for l in open(cases) if l.strip() and not l.startswith("#")]
        default, gamg = by[labels[0]], by[labels[-1]]
        for k, lab in enumerate(labels):
            r = by[lab]
            med = [statistics.median(v[t] for v in r.values()) for t in range(3)]
            w.writerow([name if k == 0 else "", lab, f"{med[1]:.2f}", f"{med[2]:.2f}", f"{med[0]:.0f}",
                        f"{med[1] + med[2]:.2f}",
                        f"{statistics.median(v[1] / v[2] for v in r.values()):.2f}",
                        "-" if k == 0 else f"{paired(r, default):.2f}",
                        "-" if k == len(labels) - 1 else f"{paired(r, gamg):.2f}"])
print(f"{out}: written")
EOF

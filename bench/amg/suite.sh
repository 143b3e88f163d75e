#!/usr/bin/env bash
# suite.sh -- the amg suite of docs/performance.md section 5: seven families of
# problems, each solved by our amg's configurations and by PETSc's Krylov +
# GAMG at its defaults, in interleaved rounds (bench/amg/amg_bench.py), into
# one table (bench/results/amg_suite.csv, the block report:amg-suite).
#
#   bench/amg/suite.sh [-b build] [-p /tmp/ovk-peers] [-d /tmp/amg-suite] [-r 1] [-n 2]
#                      [-o bench/results/amg_suite.csv] [-machine "text"] [-cases gather [-gather R]]
#
# -cases gather: instead, setup=agg (unsmoothed as below, and smoothed) with
# its coarse levels never gathered (agg_gather=0, the first of each pair)
# against agg_gather=R (1000), on the same families (no peers; -o
# defaults to bench/results/amg_gather.csv; docs/preconditioners.md,
# "Coarse levels gathered").
#
# The matrices are made in -d unless there already (Debian's /usr/bin/python3
# with gmsh, numpy, scipy):
#   FE Poisson         bench/gen/fe_gen.py poisson -h 0.019 (k = 1000 in the ball)
#   FE elasticity      bench/gen/fe_gen.py elasticity -h 0.03 (bs 3, coordinates)
#   Q1 elasticity      bench/gen/grid_gen.py q1elast 32 (bs 3, coordinates)
#   27-point Laplacian bench/gen/laplace_mtx.py 40 40 80
#   anisotropic        bench/gen/grid_gen.py aniso 50 (eps 1e-3)
#   inclusions         bench/gen/grid_gen.py incl 50 (k = 1e5 in 5 balls)
#   convection-diff.   bench/gen/fe_advdiff.py -h 0.02 (gmres)
# -p: the peers of bench/peers/build.sh (petsc_mtx).  Random b, x0 = 0,
# rtol 1e-8; the SPD families with cg1 (PETSc CG), convection-diffusion
# with gmres (PETSc GMRES, capped at 500 iterations: at its defaults it does
# not converge there); the elasticity families with bs=3 and the
# coordinates' rigid-body modes for every case.  Ratio to the default: a
# case's setup + solve over the default's, paired by round, median.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=$root/build peers=/tmp/ovk-peers data=/tmp/amg-suite rounds=1 np=2 out= cases=default gather=1000
machine="$(lscpu | sed -n 's/^Model name: *//p' | head -1), $(getconf _NPROCESSORS_ONLN) cores"
while [ $# -gt 0 ]; do
  case $1 in
    -b) build=$2 ;; -p) peers=$2 ;; -d) data=$2 ;; -r) rounds=$2 ;; -n) np=$2 ;; -o) out=$2 ;;
    -machine) machine=$2 ;; -cases) cases=$2 ;; -gather) gather=$2 ;;
    *) echo "suite.sh: unknown flag $1" >&2; exit 2 ;;
  esac
  shift 2
done
PY=/usr/bin/python3
mkdir -p "$data"
case $cases in
  default) out=${out:-$root/bench/results/amg_suite.csv} ;;
  gather) out=${out:-$root/bench/results/amg_gather.csv} ;;
  *) echo "suite.sh: -cases default or gather, not $cases" >&2; exit 2 ;;
esac

# ---- the matrices ----------------------------------------------------------
make_once() { # FILE COMMAND...: run COMMAND unless FILE exists
  local f=$1; shift
  [ -s "$f" ] || "$@" > "$f.log" 2>&1 || { echo "suite.sh: making $f failed (see $f.log)" >&2; exit 1; }
}
make_once "$data/fe_poisson.mtx" $PY "$root/bench/gen/fe_gen.py" poisson -h 0.019 -o "$data/fe_poisson.mtx" --no-check
make_once "$data/fe_elast.mtx" $PY "$root/bench/gen/fe_gen.py" elasticity -h 0.03 -o "$data/fe_elast.mtx" --no-check
make_once "$data/q1_elast.mtx" $PY "$root/bench/gen/grid_gen.py" q1elast 32 -o "$data/q1_elast.mtx"
make_once "$data/lap27.mtx" $PY "$root/bench/gen/laplace_mtx.py" 40 40 80 "$data/lap27.mtx"
make_once "$data/aniso.mtx" $PY "$root/bench/gen/grid_gen.py" aniso 50 -o "$data/aniso.mtx"
make_once "$data/incl.mtx" $PY "$root/bench/gen/grid_gen.py" incl 50 -o "$data/incl.mtx"
make_once "$data/advdiff.mtx" $PY "$root/bench/gen/fe_advdiff.py" -h 0.02 -o "$data/advdiff.mtx"

# ---- the cases (label | program | flags; the first is the default) ----------
agg0=setup=agg,agg_smooth=0,agg_corr=1.6,degree=2
cat > "$data/scalar.txt" <<EOF
ours cg1 + amg (default, setup=boomeramg) | ovk | -solver cg1 -precond amg
ours cg1 + amg:$agg0 | ovk | -solver cg1 -precond amg:$agg0
ours cg1 + amg:setup=agg | ovk | -solver cg1 -precond amg:setup=agg
PETSc CG + GAMG | petsc default | -pc_type gamg
EOF
cat > "$data/elasticity.txt" <<EOF
ours cg1 + amg:bs=3 (default, setup=boomeramg) | ovk | -solver cg1 -precond amg:bs=3
ours cg1 + amg:bs=3,$agg0 | ovk | -solver cg1 -precond amg:bs=3,$agg0
ours cg1 + amg:bs=3,setup=agg | ovk | -solver cg1 -precond amg:bs=3,setup=agg
PETSc CG + GAMG, modes | petsc default | -pc_type gamg
EOF
cat > "$data/nonsym.txt" <<EOF
ours gmres + amg (default, setup=boomeramg) | ovk | -solver gmres -precond amg
ours gmres + amg:$agg0 | ovk | -solver gmres -precond amg:$agg0
ours gmres + amg:setup=agg | ovk | -solver gmres -precond amg:setup=agg
PETSc GMRES + GAMG | petsc default | -ksp_type gmres -pc_type gamg -maxit 500
EOF

if [ "$cases" = gather ]; then # pairs: never gathered, then agg_gather=$gather
  for kind in scalar elasticity nonsym; do
    case $kind in scalar) sv="cg1" bs="" ;; elasticity) sv="cg1" bs="bs=3," ;; nonsym) sv="gmres" bs="" ;; esac
    for smooth in "$agg0" setup=agg; do
      tag=$([ "$smooth" = setup=agg ] && echo smoothed || echo unsmoothed)
      printf 'ours %s + amg:%s%s,agg_gather=0 | ovk | -solver %s -precond amg:%s%s,agg_gather=0\n' \
        "$sv" "$bs" "$smooth" "$sv" "$bs" "$smooth" > "$data/$kind-$tag.txt"
      printf 'ours %s + amg:%s%s,agg_gather=%s | ovk | -solver %s -precond amg:%s%s,agg_gather=%s\n' \
        "$sv" "$bs" "$smooth" "$gather" "$sv" "$bs" "$smooth" "$gather" >> "$data/$kind-$tag.txt"
    done
  done
fi

# ---- the runs ----------------------------------------------------------------
tmp=$data/suite.csv
rm -f "$tmp" "$data"/*.raw
rows() { grep -v '^%' "$1" | head -1 | awk '{printf "%\047d", $1}'; }
bench() { # NAME FILE CASES [flags]
  local name=$1 f=$2 cases=$3 tag
  shift 3
  tag=$(basename "$f" .mtx)$(basename "$cases" .txt)
  echo "# suite: $name ($(cut -d' ' -f1-3 /proc/loadavg))" >&2
  python3 "$here/amg_bench.py" -b "$build" -p "$peers" -n "$np" -r "$rounds" -f "$f" "$@" -raw "$data/$tag.raw" \
    -csv "$tmp" -problem "$name, $(rows "$f")" "$cases" > "$data/$tag.md"
}
load0=$(cut -d' ' -f1 /proc/loadavg)
sets=default
[ "$cases" = gather ] && sets="-unsmoothed -smoothed"
for set in $sets; do
  [ "$set" = default ] && set=
  bench "FE Poisson (jump 1e3)" "$data/fe_poisson.mtx" "$data/scalar$set.txt"
  bench "FE elasticity" "$data/fe_elast.mtx" "$data/elasticity$set.txt" -bs 3 -coords "$data/fe_elast.xyz"
  bench "Q1 elasticity" "$data/q1_elast.mtx" "$data/elasticity$set.txt" -bs 3 -coords "$data/q1_elast.xyz"
  bench "27-point Laplacian" "$data/lap27.mtx" "$data/scalar$set.txt"
  bench "anisotropic (eps 1e-3)" "$data/aniso.mtx" "$data/scalar$set.txt"
  bench "inclusions (1e5)" "$data/incl.mtx" "$data/scalar$set.txt"
  bench "convection-diffusion" "$data/advdiff.mtx" "$data/nonsym$set.txt"
done
load1=$(cut -d' ' -f1 /proc/loadavg)

# ---- the table: a row a problem, a cell a configuration (-cases gather: a row a case) --
$PY - "$tmp" "$out" "$machine" "$rounds" "$load0" "$load1" "$cases" "$np" "$gather" <<'EOF'
import csv, sys
src, out, machine, rounds, l0, l1, cases, np, gather = sys.argv[1:10]
rows = list(csv.DictReader(open(src)))
with open(out, "w", newline="") as f:
    f.write(f"# machine: {machine}; load {l0} before, {l1} after\n")
    if cases == "gather":
        f.write(f"# command: bench/amg/suite.sh -b build -r {rounds} -n {np} -cases gather -gather {gather}\n")
        f.write(f"# what: Medians of {rounds} interleaved round(s) at {np} ranks, random b, rtol 1e-8; setup=agg "
                "(bs=3 and the coordinates' rigid-body modes on elasticity) with agg_gather=0 (never gathered) "
                f"and {gather}; ratio: setup + solve over agg_gather=0's (the row above), paired by round\n")
    else:
        f.write("# command: bench/peers/build.sh /tmp/ovk-peers; bench/amg/suite.sh -b build -p /tmp/ovk-peers"
                f" -r {rounds}\n")
        f.write(f"# what: Medians of {rounds} interleaved round(s) at 2 ranks, random b, rtol 1e-8; ours with no keys "
                "but bs=3 on elasticity, where every case has the coordinates' rigid-body modes, cg1 but gmres on "
                "convection-diffusion; PETSc CG (GMRES) at its defaults; a cell: setup + solve = their sum, iterations, "
                "and (but the default's) setup + solve over the default's, paired by round\n")
    w = csv.writer(f, lineterminator="\n")
    if cases == "gather":
        w.writerow(["problem", "configuration", "setup s", "solve s", "iterations", "setup + solve s",
                    "ratio to the default"])
    else:  # one row a problem, one column a configuration (in the cases files' order)
        w.writerow(["problem", "default (setup=boomeramg)", "setup=agg,agg_smooth=0,agg_corr=1.6,degree=2",
                    "setup=agg", "PETSc + GAMG"])
    line = []
    for r in rows:  # every configuration that converges takes far fewer than 500 iterations
        stuck = r["iterations"].isdigit() and int(r["iterations"]) >= 500
        its = f"{r['iterations']}, not converged" if stuck else r["iterations"]
        ratio = "-" if stuck else r["total / first case"]
        if cases == "gather":
            w.writerow([r["problem"], r["case"], r["setup s"], r["solve s"], its, r["setup + solve s"], ratio])
            continue
        if r["problem"] and line:
            w.writerow(line)
        if r["problem"]:
            line = [r["problem"]]
        cell = f"{r['setup s']} + {r['solve s']} = {r['setup + solve s']} s, {r['iterations']} it"
        line.append(f"{cell}, not converged" if stuck else cell if len(line) == 1 else f"{cell}, {ratio}")
    if line:
        w.writerow(line)
print(f"{out}: {len(rows)} rows")
EOF

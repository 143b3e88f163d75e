#!/usr/bin/env bash
# petsc_dmda_bench.sh -- KSP type ovkrylov with PETSc's own preconditioners (mg on the DMDA's levels,
# jacobi) through the callback, against KSPCG with the same PC, on ksp ex50's DMDA Poisson
# (bench/peers/petsc_dmda), in one interleaved run (docs/performance.md, section 13).
#
# Usage: bench/peers/petsc_dmda_bench.sh [-b DIR] [-np N] [-r R] [-n_mg N] [-n_jacobi N] [-o FILE.csv]
#   -b DIR       build dir with the plug-in and the peers (cmake -DOVK_BUILD_PEERS=ON, target ovk_peers)
#   -np N        MPI ranks (default 2)
#   -r R         rounds (default 3): every case once per round, in the same order
#   -n_mg N      grid N x N for mg (default 513; -pc_mg_levels 5 -pc_mg_galerkin pmat)
#   -n_jacobi N  grid N x N for jacobi (default 257)
#   -o FILE      the CSV (bench/report/report_render.py's format; default: stdout)
# Cases: KSPCG, KSPPIPECG, the plug-in's alg1 and pipecg with each PC.
# Each run: one KSPSetUp, then 3 solves from x0 = 0, random b, rtol 1e-8 on ||b - A x|| (KSPCG and
# KSPPIPECG with -ksp_norm_type unpreconditioned, the test ovkrylov makes); its median solve time.  The table: the
# iterations, KSPCG's median time, and per case the median over the rounds (and range) of its ratio to
# KSPCG's time in the same round, and the plug-in's pipecg over KSPPIPECG's.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
B=$here/../../build NP=2 R=3 NMG=513 NJAC=257 OUT=""
while [ $# -gt 0 ]; do
  case $1 in
    -b) B=$2; shift 2 ;; -np) NP=$2; shift 2 ;; -r) R=$2; shift 2 ;;
    -n_mg) NMG=$2; shift 2 ;; -n_jacobi) NJAC=$2; shift 2 ;; -o) OUT=$2; shift 2 ;;
    *) echo "petsc_dmda_bench.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
PLUG=$B/petsc/libovkrylov_petsc.so PEER=$B/bench/peers/petsc_dmda
for f in "$PLUG" "$PEER"; do
  [ -e "$f" ] || { echo "petsc_dmda_bench.sh: $f missing (cmake -DOVK_BUILD_PEERS=ON; build ovk_peers)" >&2; exit 2; }
done
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1
MPI=(mpiexec -n "$NP" --oversubscribe)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
load0=$(cut -d' ' -f1 /proc/loadavg)
cases="mg:cg mg:alg1 mg:pipecg mg:kpipecg jacobi:cg jacobi:alg1 jacobi:pipecg jacobi:kpipecg"
for round in $(seq 1 "$R"); do
  for c in $cases; do
    pc=${c%%:*} solver=${c#*:}
    if [ "$pc" = mg ]; then args=(-n "$NMG" -pc_type mg -pc_mg_levels 5 -pc_mg_galerkin pmat)
    else args=(-n "$NJAC" -pc_type jacobi); fi
    if [ "$solver" = cg ]; then args+=(-ksp_type cg -ksp_norm_type unpreconditioned)
    elif [ "$solver" = kpipecg ]; then args+=(-ksp_type pipecg -ksp_norm_type unpreconditioned)
    else args+=(-dll_append "$PLUG" -ksp_type ovkrylov -ksp_ovkrylov_solver "$solver"); fi
    "${MPI[@]}" "$PEER" -repeat 3 "${args[@]}" > "$tmp/out" 2>&1 || { cat "$tmp/out" >&2; exit 1; }
    its=$(sed -n 's/^Iterations = //p' "$tmp/out") t=$(sed -n 's/^Solve Time = \(.*\) s$/\1/p' "$tmp/out")
    echo "$round $pc $solver $its $t" >> "$tmp/raw"
  done
done
load1=$(cut -d' ' -f1 /proc/loadavg)
{
  echo "# machine: $(getconf _NPROCESSORS_ONLN) cores, $(uname -m); PETSc 3.18 (Debian), Open MPI; 1-minute load $load0 before, $load1 after"
  echo "# command: bench/peers/petsc_dmda_bench.sh -np $NP -r $R -n_mg $NMG -n_jacobi $NJAC"
  echo "# what: ksp ex50's DMDA Poisson (bench/peers/petsc_dmda, ${NMG}^2 rows with mg, ${NJAC}^2 with jacobi), $NP ranks, random b, rtol 1e-8 on ||b - A x||; iterations KSPCG's (another case's when they differ); KSPCG ms the median over $R interleaved rounds of each run's median of 3 solves; ratios: the median over the rounds of the case's time over KSPCG's (last column: over KSPPIPECG's) in the same round (the rounds' range)"
  python3 - "$tmp/raw" <<'EOF'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
t = {(r[0], r[1], r[2]): (int(r[3]), float(r[4])) for r in rows}
print("pc,iterations,KSPCG ms,plug-in alg1 / KSPCG,plug-in pipecg / KSPCG,KSPPIPECG / KSPCG,plug-in pipecg / KSPPIPECG")
rs = sorted({r[0] for r in rows})
for pc in ("mg", "jacobi"):
    cells = []
    for s in ("alg1", "pipecg", "kpipecg"):
        if (rs[0], pc, s) not in t:
            cells.append("-")
            continue
        q = [t[(x, pc, s)][1] / t[(x, pc, "cg")][1] for x in rs]
        cells.append(f"{statistics.median(q):.2f} ({min(q):.2f}-{max(q):.2f})")
    q = [t[(x, pc, "pipecg")][1] / t[(x, pc, "kpipecg")][1] for x in rs]
    cells.append(f"{statistics.median(q):.2f} ({min(q):.2f}-{max(q):.2f})")
    ms = statistics.median(t[(x, pc, "cg")][1] * 1e3 for x in rs)
    its = {s: t[(rs[0], pc, s)][0] for s in ("cg", "alg1", "pipecg", "kpipecg") if (rs[0], pc, s) in t}
    it = str(its["cg"]) + "".join(f" ({s} {n})" for s, n in its.items() if n != its["cg"])
    print(f"PETSc's {pc},{it},{ms:.0f}," + ",".join(cells))
EOF
} > "$tmp/csv"
if [ -n "$OUT" ]; then cp "$tmp/csv" "$OUT"; else cat "$tmp/csv"; fi

#!/usr/bin/env bash
# The time loop with changing values: examples/ovk_heat -varcoef (a
# coefficient field that moves by about W dt per step, new values every
# step on the same pattern), cg1 + each amg spec, in interleaved rounds (every
# spec once per round); prints per spec the total iterations and the medians
# of Setup Time (the first setup, the value updates and the numeric
# re-setups) and Solve Time over the rounds, and the ratio of setup + solve
# to the first spec's.
# usage: bench/amg/amg_loop.sh BUILD_DIR NP ROUNDS "ovk_heat flags" SPEC...
#   bench/amg/amg_loop.sh build 2 3 "-n 40 -steps 20 -update 1 -varcoef 0.02" amg:reuse=0 amg:reuse=5 amg
set -euo pipefail
build=$1 np=$2 rounds=$3 flags=$4
shift 4
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1
raw=$(mktemp)
trap 'rm -f "$raw"' EXIT
for r in $(seq "$rounds"); do
  for spec in "$@"; do
    # shellcheck disable=SC2086
    out=$(mpiexec -n "$np" "$build/examples/ovk_heat" $flags -solver cg1 -precond "$spec" 2>&1) || true
    its=$(awk '/^step/ {s += $4} END {print s + 0}' <<<"$out")
    su=$(sed -n 's/^Setup Time = \([0-9.]*\) s/\1/p' <<<"$out")
    so=$(sed -n 's/^Solve Time = \([0-9.]*\) s/\1/p' <<<"$out")
    echo "$spec $its ${su:-nan} ${so:-nan}" >>"$raw"
  done
done
echo "uptime: $(uptime)"
python3 - "$raw" "$@" <<'EOF'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
base = None
print("| spec | iterations (20 steps) | setup (s) | solve (s) | setup + solve | vs first |")
print("|---|---|---|---|---|---|")
for spec in sys.argv[2:]:
    r = [x for x in rows if x[0] == spec]
    su = statistics.median(float(x[2]) for x in r)
    so = statistics.median(float(x[3]) for x in r)
    base = base or su + so
    print(f"| `{spec}` | {r[0][1]} | {su:.2f} | {so:.2f} | {su + so:.2f} | {(su + so) / base:.2f} |")
EOF

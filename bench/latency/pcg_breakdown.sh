#!/usr/bin/env bash
# Table I of the PCG-Overlap paper for our three solvers: the per-operation
# time breakdown (max over ranks, seconds) from `ovk_laplace27 -timing`, every
# solver x backend in one run, median solve time over REPEAT runs.
# usage: bench/latency/pcg_breakdown.sh [BUILD_DIR] [NP] [N] [REPEAT] [BACKENDS]
set -euo pipefail
build=${1:-build} np=${2:-2} n=${3:-60} repeat=${4:-3} backends=${5:-"blocking native nbc"}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1
drv="$build/examples/ovk_laplace27"
ops="matvec precond axpy sdotp gamma iprod solve"
printf '| solver | backend | iters |'; for o in $ops; do printf ' %s |' "$o"; done; printf ' s/iter |\n'
printf '|---|---|---|'; for o in $ops; do printf -- '---|'; done; printf -- '---|\n'
for s in alg1 alg2 overlap; do
  for b in $backends; do
    best=""
    for r in $(seq "$repeat"); do
      out=$(mpiexec -n "$np" --oversubscribe "$drv" -n "$n" "$n" "$n" -solver "$s" -backend "$b" -timing)
      t=$(echo "$out" | awk '/^solve /{print $2}')
      echo "$t $(echo "$out" | tr '\n' '|')"
    done | sort -g | awk -v r="$repeat" 'NR==int((r+1)/2)' > /tmp/ovk_breakdown.$$
    out=$(cut -d' ' -f2- /tmp/ovk_breakdown.$$ | tr '|' '\n')
    its=$(echo "$out" | sed -n 's/^Iterations = //p')
    row="| $s | $b | $its |"
    for o in $ops; do
      case $o in
        sdotp|gamma|iprod) v=$(echo "$out" | awk -v o="$o" '$1==o {s+=$3} END {printf "%.3f", s}') ;;
        *) v=$(echo "$out" | awk -v o="$o" '$1==o {printf "%.3f", $2}') ;;
      esac
      row="$row $v |"
    done
    t=$(echo "$out" | awk '/^solve /{print $2}')
    row="$row $(awk -v t="$t" -v i="$its" 'BEGIN{printf "%.2e", t/i}') |"
    echo "$row"
  done
done
rm -f /tmp/ovk_breakdown.$$

#!/usr/bin/env bash
# amg's coarse levels gathered onto fewer ranks (amg:setup=agg,agg_gather=R)
# against not, on simulated ranks (docs/scaling.md, "amg's coarse levels
# gathered"): the 27-point Laplacian, 8^3 rows per rank (weak scaling),
# cg1 + amg:setup=agg, b = ones, rtol 1e-8, the study's SMPI settings
# (bench/smpi/settings.sh: compute costs nothing, so the times are those of
# the messages and reductions alone).  The simulation is deterministic: one
# run each.
#   bench/smpi/amg_gather.sh [OUT.csv]
# Environment: SMPI_BUILD [build-smpi], PLATFORM [fattree-qdr.xml],
# RANKS ["64 128 256"], GATHER ["0 100 1000"], LIMIT [3600 s a run; 256 ranks
# take 10-25 minutes each on a 2-core host].
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-/dev/stdout}
sim=${SMPI_BUILD:-$root/build-smpi}/examples/ovk_laplace27
platform=${PLATFORM:-$root/bench/smpi/platforms/fattree-qdr.xml}
ranks=${RANKS:-64 128 256}
gathers=${GATHER:-0 100 1000}
limit=${LIMIT:-3600}
source "$root/bench/smpi/settings.sh"
[ -x "$sim" ] || { echo "amg_gather.sh: $sim not built (cmake -DOVK_SIMULATE=ON)" >&2; exit 1; }
grid() { # the ranks' 3-D grid
  case $1 in 64) echo "4 4 4" ;; 128) echo "8 4 4" ;; 256) echo "8 8 4" ;; 512) echo "8 8 8" ;; *) return 1 ;; esac
}
echo "ranks,agg_gather,iterations,solve_s,per_iteration_us,ranks_by_level" >"$out"
for np in $ranks; do
  P=$(grid "$np") || { echo "amg_gather.sh: no grid for $np ranks" >&2; exit 1; }
  for g in $gathers; do
    o=$(ovk_smpi_run "$limit" "$np" "$platform" "$sim" -n 8 8 8 -P $P -rhs ones -tol 1e-8 -solver cg1 \
      -precond "amg:setup=agg,agg_gather=$g" -ovk_view 1)
    it=$(sed -n 's/^Iterations = //p' <<<"$o")
    st=$(sed -n 's/^Solve Time = \([0-9.e+-]*\) s$/\1/p' <<<"$o")
    lv=$(sed -n 's/.*ranks holding rows by level: *//p' <<<"$o" | head -n 1 | tr ' ' '/')
    [ -n "$it" ] && [ -n "$st" ] || { echo "amg_gather.sh: $np ranks, agg_gather=$g failed:" >&2; echo "$o" | tail -5 >&2; exit 1; }
    pi=$(awk -v s="$st" -v i="$it" 'BEGIN{printf "%.1f", 1e6 * s / i}')
    echo "$np,$g,$it,$st,$pi,$lv" >>"$out"
  done
done

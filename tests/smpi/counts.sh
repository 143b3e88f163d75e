#!/usr/bin/env bash
# Simulated ranks solve the problem real ranks solve: the 27-point Laplacian on
# a 32^3 grid (ones right-hand side, so that the problem does not depend on the
# partition; tol 1e-7, where the residual history has a wide margin: 1.5e-7 at
# iteration 42, 6.6e-8 at 43) with alg1, pipecg and pipeprcg on the blocking and
# nbc backends, once on REF_NP real ranks (the reference build's driver under
# mpiexec) and once on 64 simulated ranks (SMPI).  Every simulated count must be
# the real count of its pair, and all the counts the same.  sgmres and scg (the
# s-step variants, blocking: their sums do not overlap) take their own counts
# (45 and 44), each the same real and simulated.
#   counts.sh SMPIRUN PLATFORM SIM_DRIVER REF_MPIEXEC REF_DRIVER
# Exit 77 (skipped) when no reference driver was configured.
set -uo pipefail
smpirun=$1 platform=$2 sim=$3 mpiexec=$4 ref=$5
here=$(cd "$(dirname "$0")" && pwd)
if [ -z "$ref" ] || [ ! -x "$ref" ]; then
  echo "skipped: no reference driver (configure with -DOVK_SMPI_REFERENCE_DRIVER=<a real build>/examples/ovk_laplace27)"
  exit 77
fi
source "$here/smpi_settings.sh"
problem=(-rhs ones -tol 1e-7)
fail=0
first=""
count() { sed -n 's/^Iterations = \([0-9]*\)$/\1/p' <<<"$1"; }
for pair in alg1/blocking alg1/nbc pipecg/blocking pipecg/nbc pipeprcg/blocking pipeprcg/nbc sgmres/blocking scg/blocking; do
  solver=${pair%/*} backend=${pair#*/}
  real=$(timeout 60 "$mpiexec" -n 4 "$ref" -n 16 16 32 -P 2 2 1 -solver $solver -backend $backend "${problem[@]}" 2>&1)
  start=$(date +%s.%N)
  simout=$(ovk_smpirun 64 "$platform" "$sim" -n 8 8 8 -P 4 4 4 -solver $solver -backend $backend "${problem[@]}")
  rc=$?
  wall=$(echo "$(date +%s.%N) - $start" | bc)
  r=$(count "$real") s=$(count "$simout")
  printf '%-9s %-9s real (4 ranks) %-4s simulated (64 ranks) %-4s  (%.1f s wall)\n' $solver $backend "${r:-?}" "${s:-?}" "$wall"
  if [ $rc -ne 0 ] || [ -z "$r" ] || [ -z "$s" ] || [ "$r" != "$s" ]; then
    echo "FAIL: $solver/$backend: real '$r', simulated '$s' (smpirun exit $rc)"
    [ -z "$s" ] && echo "$simout" | grep -v '^\[' | tail -5
    [ -z "$r" ] && echo "$real" | tail -5
    fail=1
  fi
  [ -z "$first" ] && first=$r
  if [ "$r" != "$first" ] && [[ $solver != s* ]]; then # the s-step pairs: their own counts
    echo "FAIL: $solver/$backend takes $r iterations, alg1/blocking $first"
    fail=1
  fi
done
exit $fail

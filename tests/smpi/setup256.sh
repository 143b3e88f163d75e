#!/usr/bin/env bash
# 256 simulated ranks: the 27-point Laplacian (4^3 rows per rank, 8 x 8 x 4
# ranks) is created, the pipecg solver set up on the nbc backend (its
# schedules, the agreements) and solved to 1e-1; the driver must report its
# iterations and a residual below the tolerance.
#   setup256.sh SMPIRUN PLATFORM SIM_DRIVER
set -uo pipefail
smpirun=$1 platform=$2 sim=$3
here=$(cd "$(dirname "$0")" && pwd)
source "$here/smpi_settings.sh"
start=$(date +%s)
out=$(ovk_smpirun 256 "$platform" "$sim" -n 4 4 4 -P 8 8 4 -solver pipecg -backend nbc -rhs ones -tol 1e-1 -print_level 1)
rc=$?
echo "$out" | grep -v '^\[' | grep -v 'smpirun\|privatization'
echo "wall time: $(( $(date +%s) - start )) s"
it=$(sed -n 's/^Iterations = \([0-9]*\)$/\1/p' <<<"$out")
res=$(sed -n 's/^Final Relative Residual Norm = \(.*\)$/\1/p' <<<"$out")
if [ $rc -ne 0 ] || [ -z "$it" ] || ! awk -v r="$res" 'BEGIN { exit !(r + 0 < 1e-1) }'; then
  echo "FAIL: 256 simulated ranks: exit $rc, iterations '$it', residual '$res'"
  exit 1
fi

#!/bin/bash
# Is one build of the Laplace driver slower per iteration than another?
# Interleaved pairs (the order alternates), time per iteration from the
# driver's own lines, and the median of the per-pair ratios after/before.
# Usage: bench/latency/ab_pair.sh BEFORE_EXE AFTER_EXE [repeats] [sizes] [solvers]
#   e.g. bench/latency/ab_pair.sh /tmp/old/build/examples/ovk_laplace27 build/examples/ovk_laplace27 11 "40 60" "alg1 pipecg"
set -eu
before=$1 after=$2 repeats=${3:-11} sizes=${4:-"40 60"} solvers=${5:-"alg1 pipecg"}
ranks=${RANKS:-2}
export OMP_NUM_THREADS=1
# one run: "iterations seconds-per-iteration"
run() {
  mpiexec -n "$ranks" "$1" -n "$2" "$2" "$2" -solver "$3" 2>&1 |
    awk '/^Iterations =/{it=$3} /^Solve Time =/{t=$4} END{if (it > 0) printf "%d %.9f\n", it, t/it; else print "0 0"}'
}
echo "# size solver its_before s/it_before its_after s/it_after"
for n in $sizes; do
  for s in $solvers; do
    for r in $(seq "$repeats"); do
      if [ $((r % 2)) = 1 ]; then b=$(run "$before" "$n" "$s"); a=$(run "$after" "$n" "$s")
      else a=$(run "$after" "$n" "$s"); b=$(run "$before" "$n" "$s"); fi
      echo "$n $s $b $a"
    done
  done
done | tee /dev/stderr | awk '
  !/^#/ { k = $1 " " $2; c[k]++; r[k, c[k]] = $6 / $4; it[k] = $3 "/" $5 }
  END {
    for (k in c) {
      n = c[k]; for (i = 1; i <= n; i++) v[i] = r[k, i]
      for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
      med = (n % 2) ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
      printf "-n %s: iterations before/after %s, median after/before %.3f (min %.3f, max %.3f, %d pairs)\n", k, it[k], med, v[1], v[n], n
    }
  }'

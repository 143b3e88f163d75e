#!/bin/bash
# Recycling on sequences (docs/performance.md, "Recycling"): each configuration
# solves the whole sequence with one solver object (ovk_mtx_solve -f A1,...
# -b b1,...), the configurations interleaved (A, B, C, A, B, C, ...); per run the
# iterations of systems 2..K summed, the sequence's total solve time, and the
# time per iteration over systems 2..K; then the medians per configuration and
# their ratios to the first, and (paired) the medians of each repeat's own ratio
# to the first configuration's run of that repeat (steadier on a loaded host).
# Usage: bench/systems/recycle_bench.sh ARGSFILE repeats "CONFIG1" "CONFIG2" ...
#   ARGSFILE: the -f/-b line bench/gen/seq_gen.py wrote (PREFIX.args)
#   CONFIG:   ovk_mtx_solve flags, e.g. "-solver pipecg" "-solver rpipecg -ovk_recycle 8"
# Environment: RANKS (2), EXE (build/examples/ovk_mtx_solve), EXTRA (more flags for every run,
# e.g. "-latency_us 250" or "-precond amg").
set -eu
argsfile=$1 repeats=$2
shift 2
ranks=${RANKS:-2} exe=${EXE:-build/examples/ovk_mtx_solve} extra=${EXTRA:-}
export OMP_NUM_THREADS=1
# one run: "iterations(2..K) total_time time(2..K)/iterations(2..K)"
run() {
  mpiexec -n "$ranks" "$exe" $(cat "$argsfile") -maxit 20000 $extra $1 2>&1 |
    awk '/^System /{k++} /^Iterations =/{if (k > 1) it += $3} /^Solve Time =/{if (k > 1) t2 += $4}
         /^Total Solve Time =/{t = $5} END{if (it > 0) printf "%d %.6f %.9f\n", it, t, t2 / it; else print "0 0 0"}'
}
echo "# config repeat its(2..K) total_s s/it(2..K)"
for r in $(seq "$repeats"); do
  i=0
  for cfg in "$@"; do
    i=$((i + 1))
    echo "$i $r $(run "$cfg")"
  done
done | tee /dev/stderr | awk -v names="$(printf '%s|' "$@")" '
  function median(a, n,   i, j, t) {
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
  !/^#/ { c[$1]++; it[$1, c[$1]] = $3; tt[$1, c[$1]] = $4; pi[$1, c[$1]] = $5; if ($1 > m) m = $1 }
  END {
    split(names, nm, "|")
    printf "%-40s %10s %8s %10s %8s %12s %8s %8s %8s\n", "config", "its 2..K", "ratio", "total s", "ratio", "s/it 2..K", "ratio",
      "t paired", "s/it p."
    for (k = 1; k <= m; k++) {
      for (i = 1; i <= c[k]; i++) { a[i] = it[k, i]; b[i] = tt[k, i]; d[i] = pi[k, i]; e[i] = tt[k, i] / tt[1, i]; f[i] = pi[k, i] / pi[1, i] }
      mi[k] = median(a, c[k]); mt[k] = median(b, c[k]); mp[k] = median(d, c[k])
      printf "%-40s %10d %8.2f %10.2f %8.2f %12.3e %8.2f %8.2f %8.2f\n", nm[k], mi[k], mi[k] / mi[1], mt[k], mt[k] / mt[1], mp[k], mp[k] / mp[1],
        median(e, c[k]), median(f, c[k])
    }
  }'

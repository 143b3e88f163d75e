#!/usr/bin/env bash
# minres_bench.sh -- minres against pminres per iteration under the latency model, in one
# interleaved run: every case once per repeat, in the same order; medians and minima.
#
# Usage: bench/latency/minres_bench.sh [options]
#   -b DIR      build dir of ovkrylov (default: the repository's build/)
#   -np N       MPI ranks (default 2)
#   -r R        repeats (default 7)
#   -n S        box per rank (default 16: -n 16 16 16, 4,096 rows a rank)
#   -latency_us A  every reduction at least A us (default 250)
#   -backends "B..."  reduction backends (default "native nbc")
#   -pc P       preconditioner (default jacobi)
#
# The 27-point Laplacian of ovk_laplace27 (SPD: minres runs on it as on any symmetric matrix;
# the cost of an iteration does not depend on the signs of the eigenvalues), b = ones, rtol
# 1e-8.  CSV on stdout: backend, solver, iterations, reductions, the median and the smallest
# ms per iteration over the repeats, and the median over the repeats of pminres's time per
# iteration over minres's of the same repeat.
set -u
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
BUILD="$HERE/../../build"
NP=2 R=7 N=16 LAT=250 BACKENDS="native nbc" PC=jacobi
while [ $# -gt 0 ]; do
    case "$1" in
        -b) BUILD="$2"; shift 2 ;;
        -np) NP="$2"; shift 2 ;;
        -r) R="$2"; shift 2 ;;
        -n) N="$2"; shift 2 ;;
        -latency_us) LAT="$2"; shift 2 ;;
        -backends) BACKENDS="$2"; shift 2 ;;
        -pc) PC="$2"; shift 2 ;;
        *) echo "minres_bench.sh: unknown option $1" >&2; exit 2 ;;
    esac
done
EXE="$BUILD/examples/ovk_laplace27"
[ -x "$EXE" ] || { echo "minres_bench.sh: no $EXE (build the examples)" >&2; exit 2; }
raw=$(mktemp)
trap 'rm -f "$raw"' EXIT
for r in $(seq 1 "$R"); do
    for be in $BACKENDS; do
        for s in minres pminres; do
            line=$(mpirun -n "$NP" "$EXE" -n "$N" "$N" "$N" -solver "$s" -backend "$be" -latency_us "$LAT" \
                -precond "$PC" -timing 2>&1 | grep -o 'iterations [0-9]*, reductions [0-9]*, time per iteration [0-9.e+-]*')
            [ -n "$line" ] || { echo "minres_bench.sh: $s on $be failed" >&2; exit 1; }
            echo "$r $be $s $line" >> "$raw"
        done
    done
done
# fields: repeat backend solver "iterations" N, "reductions" N, "time per iteration" T
awk '
  function med(a, n,    i, j, t) { for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
                                   return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
  { k = $2 " " $3; sub(",", "", $5); sub(",", "", $7); it[k] = $5; red[k] = $7; n[k]++; t[k, n[k]] = $NF * 1e3
    tt[$1, k] = $NF; if (!($2 in seen)) { seen[$2] = 1; order[++nb] = $2 } }
  END {
    print "backend,solver,iterations,reductions,ms per iteration (median),ms per iteration (min),pminres / minres"
    for (b = 1; b <= nb; b++) {
      be = order[b]; m = 0
      for (r = 1; (r, be " minres") in tt; r++) q[++m] = tt[r, be " pminres"] / tt[r, be " minres"]
      ratio = med(q, m)
      for (s = 0; s < 2; s++) {
        k = be " " (s ? "pminres" : "minres"); c = n[k]; mn = 1e30
        for (i = 1; i <= c; i++) { v[i] = t[k, i]; if (v[i] < mn) mn = v[i] }
        printf "%s,%s,%s,%s,%.3f,%.3f,%s\n", be, (s ? "pminres" : "minres"), it[k], red[k], med(v, c), mn, (s ? sprintf("%.2f", ratio) : "1")
      }
    }
  }' "$raw"

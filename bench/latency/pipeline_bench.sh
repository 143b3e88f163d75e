#!/usr/bin/env bash
# pipeline_bench.sh -- the pipelined solvers under the latency model
# (docs/performance.md): one ovk_pcg_bench run (paired rounds, every case in
# every round, order rotated) per grid size, then a plot of time per
# iteration against the modelled latency.
#
# Usage: bench/latency/pipeline_bench.sh [-b BUILD] [-np N] [-r R] [-o OUTDIR] [-backend SPEC]
#                                [-s "SOLVERS"] [sizes]
#   sizes: grid points per rank per axis (default: 20 60)
#   -s: the solvers (default: alg1 pipecg groppcg pipeprcg plcg:l=1,2,3,4,6);
#   `auto` is plotted under its own name whatever it chose
# Writes OUTDIR/n<size>.md (ovk_pcg_bench's table), OUTDIR/n<size>.dat
# (solver latency median-us/iter hidden%), OUTDIR/pipelines.png, and prints
# the tables.  Needs gnuplot for the plot (skipped without it).
set -eu
BUILD=build
NP=2
R=7
OUT=""
BACKEND=nbc
SOLVERS="alg1 pipecg groppcg pipeprcg plcg:l=1 plcg:l=2 plcg:l=3 plcg:l=4 plcg:l=6"
while [ $# -gt 0 ]; do
    case "$1" in
        -b) BUILD="$2"; shift 2 ;;
        -np) NP="$2"; shift 2 ;;
        -r) R="$2"; shift 2 ;;
        -o) OUT="$2"; shift 2 ;;
        -backend) BACKEND="$2"; shift 2 ;;
        -s) SOLVERS="$2"; shift 2 ;;
        *) break ;;
    esac
done
SIZES="${*:-20 60}"
[ -n "$OUT" ] || OUT=$(mktemp -d)
mkdir -p "$OUT"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1
LATS="0 100 250 1000"
cases=""
for s in $SOLVERS; do cases="$cases $s:$BACKEND"; done

echo "# $(date -u +%FT%TZ) $(uname -n) $(env -u OMP_NUM_THREADS nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
for n in $SIZES; do
    echo "## -n $n $n $n, $NP ranks, backend $BACKEND, $R rounds"
    mpiexec -n "$NP" "$BUILD/bench/ovk_pcg_bench" -n "$n" "$n" "$n" -cases "${cases# }" -latency "$LATS" \
        -repeat "$R" | tee "$OUT/n$n.md"
    # solver latency median hidden(paired)
    awk -F'|' '/^\| [a-z]/ && $4 ~ /[0-9]/ { gsub(/ /, ""); sub(/->.*/, "", $2); h = $10; sub(/%/, "", h); if (h == "-") h = "nan";
               print $2, $4, $8, h }' "$OUT/n$n.md" > "$OUT/n$n.dat"
done

command -v gnuplot >/dev/null || { echo "gnuplot not found: no plot"; exit 0; }
plots=""
for n in $SIZES; do plots="$plots $n"; done
{
    echo "set terminal pngcairo size 1100,450 font ',10'"
    echo "set output '$OUT/pipelines.png'"
    echo "set multiplot layout 1,$(echo $SIZES | wc -w)"
    echo "set xlabel 'modelled latency per reduction (us)'; set ylabel 'time per iteration (us)'"
    echo "set key top left; set grid; set logscale y"
    for n in $SIZES; do
        echo "set title '27-point Laplacian -n $n, $NP ranks, $BACKEND'"
        printf "plot"
        sep=""
        for s in $SOLVERS; do
            printf "%s '%s' using (strcol(1) eq '%s' ? \$2 : 1/0):3 with linespoints title '%s'" "$sep" "$OUT/n$n.dat" "$s" "$s"
            sep=","
        done
        echo
    done
    echo "unset multiplot"
} | gnuplot
echo "plot: $OUT/pipelines.png"

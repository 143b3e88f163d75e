#!/usr/bin/env bash
# Plots of scaling.sh's results.txt (gnuplot, Debian's gnuplot-nox): per
# study, the simulated time per iteration against the rank count, one line
# per solver/backend (log-log), and the share of the reductions hidden.
#   plots.sh results.txt OUTDIR     writes OUTDIR/scaling_STUDY_time.png
#                                   and OUTDIR/scaling_STUDY_hidden.png
set -euo pipefail
results=$1
outdir=$2
command -v gnuplot >/dev/null || { echo "plots.sh: gnuplot not found (apt-get install gnuplot-nox)" >&2; exit 1; }
mkdir -p "$outdir"
data=$(mktemp -d)
trap 'rm -rf "$data"' EXIT
# one file per study and case: "ranks t_iter_us hidden_percent", sorted by ranks
awk -v dir="$data" '
/^SMPI_RESULT/ && !/FAILED/ {
  delete f
  for (i = 2; i <= NF; i++) { k = $i; sub(/=.*/, "", k); v = $i; sub(/^[^=]*=/, "", v); f[k] = v }
  c = f["solver"] "_" f["backend"]; gsub(/[:=]/, "", c)
  print f["ranks"], f["t_iter_us"], 100 * f["hidden"] > (dir "/" f["study"] "__" c ".dat")
  print f["solver"] "/" f["backend"] > (dir "/" f["study"] "__" c ".label")
}' "$results"
for study in $(ls "$data" | sed 's/__.*//' | sort -u); do
  for f in "$data/${study}__"*.dat; do sort -n -o "$f" "$f"; done
  plot_time="" plot_hidden=""
  for f in "$data/${study}__"*.dat; do
    label=$(head -1 "${f%.dat}.label")
    dash=$([[ $f == *_blocking.dat ]] && echo 2 || echo 1)
    plot_time+="'$f' using 1:2 with linespoints dt $dash title '$label', "
    plot_hidden+="'$f' using 1:3 with linespoints dt $dash title '$label', "
  done
  gnuplot <<EOF
set terminal pngcairo size 900,560 font ",10"
set logscale x 2
set xlabel "simulated ranks"
set key outside right noenhanced
set grid
set output "$outdir/scaling_${study}_time.png"
set logscale y
set ylabel "time per iteration, simulated us"
set title "$study scaling: time per iteration (SMPI, fattree-pcg-overlap-256; dashed: blocking)"
plot ${plot_time%, }
set output "$outdir/scaling_${study}_hidden.png"
unset logscale y
set yrange [-10:110]
set ylabel "share of the reductions hidden, %"
set title "$study scaling: share of the reduction latency hidden (dashed: blocking)"
plot ${plot_hidden%, }
EOF
  echo "$outdir/scaling_${study}_time.png $outdir/scaling_${study}_hidden.png"
done

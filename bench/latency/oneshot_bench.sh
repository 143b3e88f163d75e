#!/usr/bin/env bash
# oneshot_bench.sh -- one-shot against repeated solves (docs/performance.md,
# section 3): every solver at every modelled latency, 2 ranks, nbc,
#   one-shot:  the driver, one mpiexec per solve (setup and start-up
#              included), rounds interleaved: each round runs every
#              (solver, latency) cell once, the order rotated by one each round;
#   repeated:  ovk_pcg_bench (one set-up object per case, the first solve
#              left out of the medians; its own paired rounds).
# Prints, per size, the one-shot table (median over rounds of us per
# iteration of the solve alone and of setup + solve, iterations, restarts,
# auto's choice) and the repeated table, then the done-when ratios.
#
# Usage: bench/latency/oneshot_bench.sh [-b BUILD] [-np N] [-r "R20 R60"] [-o OUTDIR] [-bounds] [sizes]
#   sizes: grid points per rank per axis (default: 20 60); -r: rounds per
#   size (default "5 2": -n 60 solves take seconds each); -bounds: also
#   plcg:l=2 and l=3 with the shifts in the spec, as plcg prints them after
#   its estimate (one run of each at 0 us first: what a user who solved the
#   same operator before would pass), one-shot only
set -eu
BUILD=build
NP=2
ROUNDS="5 2"
OUT=""
BOUNDS=0
while [ $# -gt 0 ]; do
    case "$1" in
        -b) BUILD="$2"; shift 2 ;;
        -np) NP="$2"; shift 2 ;;
        -r) ROUNDS="$2"; shift 2 ;;
        -o) OUT="$2"; shift 2 ;;
        -bounds) BOUNDS=1; shift ;;
        *) break ;;
    esac
done
SIZES="${*:-20 60}"
[ -n "$OUT" ] || OUT=$(mktemp -d)
mkdir -p "$OUT"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1
SOLVERS="alg1 pipecg pipeprcg plcg:l=1 plcg:l=2 plcg:l=3 plcg:l=4 auto auto:maxl=4"
LATS="0 100 250 1000"
DRIVER="$BUILD/examples/ovk_laplace27"

echo "# $(date -u +%FT%TZ) $(uname -n) $(env -u OMP_NUM_THREADS nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
k=0
for n in $SIZES; do
    k=$((k + 1))
    R=$(echo $ROUNDS | cut -d' ' -f$k)
    R=${R:-1}
    raw="$OUT/oneshot_n$n.raw"
    : > "$raw"
    solvers="$SOLVERS"
    if [ "$BOUNDS" = 1 ]; then # the spec plcg prints: "... (the spec plcg:l=2,lmin=0,lmax=1.34736 skips it)"
        for l in 2 3; do
            spec=$(mpiexec -n "$NP" "$DRIVER" -n "$n" "$n" "$n" -solver "plcg:l=$l" -backend nbc -print_level 1 2>&1 |
                sed -n 's/.*(the spec \(plcg:[^ ]*\) skips it).*/\1/p' | head -1)
            [ -n "$spec" ] && solvers="$solvers $spec"
        done
    fi
    cells=()
    for L in $LATS; do for s in $solvers; do cells+=("$s@$L"); done; done
    ncell=${#cells[@]}
    for r in $(seq 0 $((R - 1))); do
        for i in $(seq 0 $((ncell - 1))); do
            cell=${cells[$(((i + r) % ncell))]}
            s=${cell%@*}
            L=${cell#*@}
            o=$(mpiexec -n "$NP" "$DRIVER" -n "$n" "$n" "$n" -solver "$s" -backend nbc -latency_us "$L" \
                -print_level 1 2>&1 || true)
            it=$(echo "$o" | awk '/^Iterations =/ {print $3}')
            st=$(echo "$o" | awk '/^Solve Time =/ {print $4}')
            su=$(echo "$o" | awk '/^Setup Time =/ {print $4}')
            rs=$(echo "$o" | awk -F'Restarts = ' '/Restarts =/ {print $2}')
            ch=$(echo "$o" | awk '/^auto:/ {print $NF}')
            echo "$s $L ${it:-0} ${st:-nan} ${su:-0} ${rs:-0} ${ch:--} $r" >> "$raw"
        done
        echo "# -n $n one-shot round $((r + 1)) of $R done $(date -u +%T), load $(cut -d' ' -f1 /proc/loadavg)" >&2
    done
    echo "## -n $n $n $n per rank, $NP ranks, nbc: one-shot (driver, one mpiexec per solve), $R rounds"
    echo "| solver | latency us | iterations | restarts | solve us/iter | setup+solve us/iter | auto chose |"
    echo "|---|---:|---:|---:|---:|---:|---|"
    for L in $LATS; do for s in $solvers; do
        awk -v s="$s" -v L="$L" '$1 == s && $2 == L {
                n++; it[n] = $3; a[n] = 1e6 * $4 / ($3 > 0 ? $3 : 1); b[n] = 1e6 * ($4 + $5) / ($3 > 0 ? $3 : 1);
                rs = $6; ch = (ch == "" || ch == $7) ? $7 : ch "/" $7 }
            function med(v, n,   i, j, t) { for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++)
                    if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
                return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2 }
            END { printf "| %s | %s | %d | %s | %.1f | %.1f | %s |\n", s, L, med(it, n), rs, med(a, n), med(b, n), ch }' \
            "$raw"
    done; done | tee "$OUT/oneshot_n$n.md"
    echo
    cases=""
    for s in $SOLVERS; do cases="$cases $s:nbc"; done
    echo "## -n $n $n $n per rank, $NP ranks, nbc: repeated (ovk_pcg_bench, set-up objects), $((R + 1)) rounds"
    mpiexec -n "$NP" "$BUILD/bench/ovk_pcg_bench" -n "$n" "$n" "$n" -cases "${cases# }" -latency "$LATS" \
        -repeat "$((R + 1))" | tee "$OUT/repeated_n$n.md"
    echo
done

# the done-when ratios from the one-shot tables (setup + solve per iteration)
for n in $SIZES; do
    f="$OUT/oneshot_n$n.md"
    awk -F'|' -v n="$n" '{ gsub(/ /, ""); s = $2; L = $3; v = $7 + 0; t[s, L] = v; if (s ~ /^plcg/) pl[s] = 1;
            if (s !~ /^auto/ && s !~ /lmax=/ && s != "solver" && s !~ /^-/) fixed[s] = 1; lats[L] = 1 }
        END {
            for (L in lats) { if (L !~ /^[0-9]+$/) continue; best = ""; for (s in fixed) if (best == "" || t[s, L] < t[best, L]) best = s;
                printf "-n %s %s us: best fixed %s %.1f us/iter, auto %.1f (%.2fx)\n", n, L, best, t[best, L], t["auto", L], t["auto", L] / t[best, L] }
            for (k = 0; k < 2; k++) { # plcg with its estimate, then with the bounds in the spec (-bounds)
                bp = ""; for (s in pl) if ((s ~ /lmax=/) == k && (bp == "" || t[s, 250] < t[bp, 250])) bp = s
                if (bp != "") printf "-n %s 250 us: best plcg%s %s %.1f us/iter = %.2fx its 0 us time, %.2fx pipecg (%.1f)\n",
                    n, k ? " (spec bounds)" : "", bp, t[bp, 250], t[bp, 250] / t[bp, 0], t[bp, 250] / t["pipecg", 250],
                    t["pipecg", 250] } }' "$f"
done
# auto against the best fixed choice paired by round (the two ran within one
# round, minutes apart at most, where the medians above compare rounds run up to
# an hour apart): the median over rounds of auto's setup + solve over the best
# fixed choice's (that of the medians above) in the same round
for n in $SIZES; do
    awk -v n="$n" '{ v = ($3 > 0 ? 1e6 * ($4 + $5) / $3 : 0); t[$1, $2, $8] = v; sol[$1] = 1; lat[$2] = 1; rnd[$8] = 1 }
        function med(v, k,   i, j, x) { for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++)
                if (v[j] < v[i]) { x = v[i]; v[i] = v[j]; v[j] = x }
            return k % 2 ? v[(k + 1) / 2] : (v[k / 2] + v[k / 2 + 1]) / 2 }
        END {
            for (L in lat) {
                best = ""; bt = 0
                for (s in sol) { if (s ~ /^auto/ || s ~ /lmax=/) continue; k = 0
                    for (r in rnd) if ((s, L, r) in t) a[++k] = t[s, L, r]
                    m = med(a, k); if (best == "" || m < bt) { best = s; bt = m } }
                for (au in sol) { if (au !~ /^auto/) continue; k = 0
                    for (r in rnd) if ((au, L, r) in t && (best, L, r) in t && t[best, L, r] > 0)
                        a[++k] = t[au, L, r] / t[best, L, r]
                    printf "-n %s %s us: %s / %s paired by round, median of %d: %.2fx\n", n, L, au, best, k, med(a, k) }
            } }' "$OUT/oneshot_n$n.raw" | sort -t' ' -k3,3n
done
echo "raw data: $OUT"

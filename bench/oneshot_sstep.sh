#!/usr/bin/env bash
# oneshot_sstep.sh -- the s-step solvers and auto one-shot (docs/performance.md,
# section 7, "One-shot solves"): one mpiexec per solve, setup and start-up
# included, 2 ranks, the latency model, rounds interleaved (each round runs
# every (problem, solver, backend, latency) cell once, the order rotated by
# one each round).  Problems: the 27-point Laplacian -n 10 20 20 per rank
# (20^3 = 8,000 rows, 4,000 a rank) and convection-diffusion (upwind, Peclet
# 100) -n 16 16 16 per rank (8,192 rows, 4,096 a rank), Jacobi, rtol 1e-8.
# Prints per cell the median over rounds of (setup + solve) / iterations (us
# per iteration, per basis vector for the GMRES variants), then the ratios
# paired by round (medians): sgmres / gmres, scg / plcg:l=3, and auto over
# the best fixed solver of the same backend and latency.
#
# Usage: bench/oneshot_sstep.sh [-b BUILD] [-r ROUNDS] [-o OUTDIR] [-summary RAW]
#   -summary RAW: only the tables of an earlier run's raw data
set -eu
BUILD=build
ROUNDS=5
OUT=""
RAW=""
while [ $# -gt 0 ]; do
    case "$1" in
        -summary) RAW="$2"; shift 2 ;;
        -b) BUILD="$2"; shift 2 ;;
        -r) ROUNDS="$2"; shift 2 ;;
        -o) OUT="$2"; shift 2 ;;
        *) echo "unknown argument $1" >&2; exit 2 ;;
    esac
done
[ -n "$OUT" ] || OUT=$(mktemp -d)
mkdir -p "$OUT"
if [ -z "$RAW" ]; then
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1
DRIVER="$BUILD/examples/ovk_laplace27"
LAP_SOLVERS="alg1 pipecg plcg:l=3 plcg:l=4 scg:s=4 scg:s=8 auto"
CD_SOLVERS="gmres pgmres:l=2 pgmres:l=3 sgmres:s=10 sgmres:s=10,overlap=1 auto"
LATS="0 250 1000"
BACKENDS="nbc native"
echo "# $(date -u +%FT%TZ) $(uname -n) $(env -u OMP_NUM_THREADS nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
cells=()
for be in $BACKENDS; do for L in $LATS; do
    for s in $LAP_SOLVERS; do cells+=("lap|$s|$be|$L"); done
    for s in $CD_SOLVERS; do cells+=("cd|$s|$be|$L"); done
done; done
raw="$OUT/oneshot_sstep.raw"
: > "$raw"
n=${#cells[@]}
for r in $(seq 0 $((ROUNDS - 1))); do
    for i in $(seq 0 $((n - 1))); do
        IFS='|' read -r p s be L <<< "${cells[$(((i + r) % n))]}"
        if [ "$p" = lap ]; then args="-n 10 20 20"; else args="-problem convdiff -peclet 100 -n 16 16 16"; fi
        o=$(mpiexec -n 2 "$DRIVER" $args -precond jacobi -solver "$s" -backend "$be" -latency_us "$L" \
            -print_level 1 2>&1 || true)
        it=$(echo "$o" | awk '/^Iterations =/ {print $3}')
        st=$(echo "$o" | awk '/^Solve Time =/ {print $4}')
        su=$(echo "$o" | awk '/^Setup Time =/ {print $4}')
        ch=$(echo "$o" | awk '/^auto:/ {print $NF}')
        echo "$p $s $be $L ${it:-0} ${st:-nan} ${su:-0} ${ch:--} $r" >> "$raw"
    done
    echo "# round $((r + 1)) of $ROUNDS done $(date -u +%T), load $(cut -d' ' -f1 /proc/loadavg)" >&2
done
echo "# load at the end $(cut -d' ' -f1-3 /proc/loadavg)"
fi
raw=${RAW:-$raw}
awk '
    function med(v, k,   i, j, x) { for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++)
            if (v[j] < v[i]) { x = v[i]; v[i] = v[j]; v[j] = x }
        return k % 2 ? v[(k + 1) / 2] : (v[k / 2] + v[k / 2 + 1]) / 2 }
    { key = $1 SUBSEP $2 SUBSEP $3 SUBSEP $4; t[key, $9] = ($5 > 0 ? 1e6 * ($6 + $7) / $5 : 1e99)
      its[key] = $5; ch[key] = ch[key] == "" || ch[key] == $8 ? $8 : ch[key] "/" $8
      cell[key] = 1; rnd[$9] = 1; solver[$1, $2] = 1; be[$3] = 1; lat[$4] = 1 }
    function cellmed(key,   k, r, a) { k = 0; for (r in rnd) if ((key, r) in t) a[++k] = t[key, r]; return med(a, k) }
    function paired(k1, k2,   k, r, a) { k = 0; for (r in rnd) if ((k1, r) in t && (k2, r) in t) a[++k] = t[k1, r] / t[k2, r]
        return med(a, k) }
    END {
        print "| problem | solver | backend | latency us | iterations | setup+solve us/iter | auto chose |"
        print "|---|---|---|---:|---:|---:|---|"
        for (key in cell) { split(key, f, SUBSEP)
            printf "| %s | %s | %s | %s | %d | %.1f | %s |\n", f[1], f[2], f[3], f[4], its[key], cellmed(key),
                f[2] == "auto" ? ch[key] : "" | "sort -t\"|\" -k2,2 -k4,4 -k5,5n -k3,3" }
        close("sort -t\"|\" -k2,2 -k4,4 -k5,5n -k3,3")
        print ""
        for (b in be) for (L in lat) {
            printf "%s %5s us: sgmres:s=10 / gmres %.2f, sgmres:s=10,overlap=1 / gmres %.2f, scg:s=8 / plcg:l=3 %.2f, scg:s=4 / plcg:l=3 %.2f\n", b, L,
                paired("cd" SUBSEP "sgmres:s=10" SUBSEP b SUBSEP L, "cd" SUBSEP "gmres" SUBSEP b SUBSEP L),
                paired("cd" SUBSEP "sgmres:s=10,overlap=1" SUBSEP b SUBSEP L, "cd" SUBSEP "gmres" SUBSEP b SUBSEP L),
                paired("lap" SUBSEP "scg:s=8" SUBSEP b SUBSEP L, "lap" SUBSEP "plcg:l=3" SUBSEP b SUBSEP L),
                paired("lap" SUBSEP "scg:s=4" SUBSEP b SUBSEP L, "lap" SUBSEP "plcg:l=3" SUBSEP b SUBSEP L)
            for (pi = 0; pi < 2; pi++) { p = pi ? "cd" : "lap"; best = ""; bt = 0
                for (k in solver) { split(k, g, SUBSEP); if (g[1] != p || g[2] == "auto") continue
                    m = cellmed(p SUBSEP g[2] SUBSEP b SUBSEP L); if (best == "" || m < bt) { best = g[2]; bt = m } }
                printf "%s %5s us %s: auto / best fixed (%s) %.2f paired by round\n", b, L, p, best,
                    paired(p SUBSEP "auto" SUBSEP b SUBSEP L, p SUBSEP best SUBSEP b SUBSEP L) }
        }
    }' "$raw" | tee "$OUT/oneshot_sstep.md"
echo "raw data: $raw"

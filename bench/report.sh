#!/usr/bin/env bash
# report.sh -- rerun the headline benchmarks, write their data files
# (bench/results/NAME.csv) and regenerate the tables and plots of
# docs/performance.md from the data files.
#
# Usage: bench/report.sh [-b BUILD] [-p PEERS] [-np N] [-r R] [-o OUT] [-parts "..."]
#                        [-no-doc] [-quick]
#        bench/report.sh -render   # measure nothing: every table from bench/results/*.csv
#        bench/report.sh -check    # exit 1 when a table differs from what its data render
#   -b BUILD   build directory (default build; configured and built, Release,
#              when it has no ovk_pcg_bench)
#   -p PEERS   where the hypre/PETSc peer programs are (default
#              /tmp/ovk-peers; built there by bench/peers/build.sh when
#              missing; a peer whose library is not installed is skipped)
#   -np N      MPI ranks (default 2)
#   -r R       rounds of the paired benchmarks (default 5)
#   -o OUT     raw outputs (default: a fresh mktemp directory)
#   -parts     any of: latency precond oneshot peers (default: all)
#   -no-doc    leave docs/performance.md, docs/img and bench/results alone
#              (the data files and the rendered doc go to OUT)
#   -quick     a smoke test of the script: -n 10, 2 rounds (implies -no-doc)
#   -parts "" -o OUT   measure nothing: the data files, the doc and the plots
#              from the output an earlier run left in OUT
#   -render    rewrite every generated block of docs/performance.md from
#              bench/results/*.csv (bench/report/report_render.py; python3)
#   -check     the same, writing nothing: exit 1 when a block differs from
#              its data, 2 when a data file or block is missing
#
# Parts (each one existing benchmark; 43 min at a load of 17 on 2 cores; less when quiet).  On a
# machine shared with other jobs run it at a higher priority (as root:
# nice -n -15 bench/report.sh); each data file's machine line records niceness and load.
#   latency  bench/latency/pipeline_bench.sh: time per iteration of every solver
#            against the modelled reduction latency, -n 20 and -n 40
#   precond  ovk_pcg_bench per preconditioner (jacobi ic0 amg): which solver
#            is fastest with which preconditioner, 0 and 250 us, -n 40
#   oneshot  bench/latency/oneshot_bench.sh -n 20: one mpiexec per solve (setup
#            included), auto against the best fixed solver
#   peers    bench/peers/compare_peers.sh: ours against hypre DS-PCG and PETSc CG
#
# docs/performance.md holds the generated text between marker lines
#   <!-- report:NAME -->  ...  <!-- /report:NAME -->
# made from one data file each (bench/report/report_render.py lists them: the four
# parts above and the data files of the benchmarks this script does not run);
# everything outside the markers is written by hand.  A part that was not
# run, or was skipped, keeps its data file.  Each data file starts with
# `# machine:` and `# command:` lines; the plots go to docs/img/.
set -u
# the whole script is one compound command, read before it runs: editing this
# file (or checking out another commit) during a run cannot derail it
{
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD=build
PEERS=/tmp/ovk-peers
NP=2
R=5
OUT=""
PARTS="latency precond oneshot peers"
DOC=1
QUICK=0
while [ $# -gt 0 ]; do
    case "$1" in
        -b) BUILD="$2"; shift 2 ;;
        -p) PEERS="$2"; shift 2 ;;
        -np) NP="$2"; shift 2 ;;
        -r) R="$2"; shift 2 ;;
        -o) OUT="$2"; shift 2 ;;
        -parts) PARTS="$2"; shift 2 ;;
        -no-doc) DOC=0; shift ;;
        -quick) QUICK=1; DOC=0; shift ;;
        -render) exec python3 "$(dirname "${BASH_SOURCE[0]}")/report/report_render.py" ;;
        -check) exec python3 "$(dirname "${BASH_SOURCE[0]}")/report/report_render.py" -check ;;
        *) echo "report.sh: unknown argument $1 (see the head of the script)" >&2; exit 2 ;;
    esac
done
cd "$REPO" || exit 2
[ -n "$OUT" ] || OUT=$(mktemp -d /tmp/ovk-report.XXXXXX)
mkdir -p "$OUT"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1
unset OVK_LATENCY_MODEL OVK_REDUCE_BACKEND OVK_OPTIONS
T0=$(date +%s)
COMMIT=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
DATE=$(date -u +%F)
if [ "$QUICK" = 1 ]; then SIZES_LAT="10"; N_PRE=10; N_ONE=10; SIZES_PEER="10"; R=2
else SIZES_LAT="20 40"; N_PRE=40; N_ONE=20; SIZES_PEER="40 60"; fi

log() { echo "report: $*" >&2; }
part_on() { case " $PARTS " in *" $1 "*) return 0 ;; esac; return 1; }

# ------------------------------------------------------------------ build
if [ -n "$PARTS" ] && { [ ! -x "$BUILD/bench/ovk_pcg_bench" ] || [ ! -x "$BUILD/examples/ovk_laplace27" ]; }; then
    log "building $BUILD (Release)"
    cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DOVK_BUILD_TESTS=OFF > "$OUT/build.log" 2>&1 &&
        cmake --build "$BUILD" -j2 >> "$OUT/build.log" 2>&1 || { log "build failed: $OUT/build.log"; exit 1; }
fi

# ------------------------------------------------------------------ machine
if [ -n "$PARTS" ]; then # a run with no part regenerates the doc from OUT's earlier output
    cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
    cores=$(env -u OMP_NUM_THREADS nproc)
    mpi=$(mpiexec --version 2>&1 | head -1)
    cc=$(cc --version | head -1)
    echo "$cpu, $cores cores; $mpi; $cc; niceness $(nice); load at start $(cut -d' ' -f1 /proc/loadavg)" \
        > "$OUT/machine.txt"
    echo "$DATE $COMMIT $R" > "$OUT/stamp.txt"
fi
read -r DATE COMMIT R_RUN < "$OUT/stamp.txt" || { log "$OUT has no earlier run (stamp.txt)"; exit 2; }
R=${R_RUN:-$R}  # the rounds of the run whose output is rendered

# md_rows FILE: the data rows of an ovk_pcg_bench table as "|"-separated
# fields without spaces: solver backend latency noise iterations red/iter
# median min hidden hidden_timers noise_cost vs_ref
md_rows() { awk -F'|' '/^\| [a-z]/ && $4 ~ /[0-9]/ { gsub(/ /, ""); print }' "$1"; }

# collect NAME: make OUT/NAME.csv of part NAME from OUT (after measuring it, or
# with -parts "" from an earlier run's output)
collect() { part_on "$1" || [ -z "$PARTS" ]; }

# ------------------------------------------------------------------ latency
solvers="alg1 cg1 pipecg groppcg pipeprcg plcg:l=2 plcg:l=3 plcg:l=4 auto"
cmds_latency=("bench/report.sh -parts latency" "bench/latency/pipeline_bench.sh -np $NP -r $R -s \"$solvers\" $SIZES_LAT")
if part_on latency; then
    log "latency: bench/latency/pipeline_bench.sh -r $R -s \"$solvers\" $SIZES_LAT"
    bench/latency/pipeline_bench.sh -b "$BUILD" -np "$NP" -r "$R" -o "$OUT/latency" -s "$solvers" $SIZES_LAT \
        > "$OUT/latency.log" 2>&1 || log "latency: pipeline_bench.sh failed (see $OUT/latency.log)"
fi
if collect latency && [ -d "$OUT/latency" ]; then
    echo "solver,backend,latency_us,iterations,reductions_per_iter,median_us_per_iter,min_us_per_iter,hidden_pct,hidden_timers_pct,n" \
        > "$OUT/latency.csv"
    for n in $SIZES_LAT; do
        [ -s "$OUT/latency/n$n.md" ] || continue
        md_rows "$OUT/latency/n$n.md" | awk -F'|' -v n="$n" -v OFS=, '{ sub(/%/, "", $10); sub(/%/, "", $11)
            print $2, $3, $4, $6, $7, $8, $9, $10, $11, n }' >> "$OUT/latency.csv"
    done
fi

# ------------------------------------------------------------------ precond
cases="alg1:nbc cg1:nbc pipecg:nbc pipeprcg:nbc plcg:l=2:nbc auto:nbc"
pcs="jacobi ic0 amg"
cmds_precond=("bench/report.sh -parts precond"
    "mpiexec -n $NP build/bench/ovk_pcg_bench -n $N_PRE $N_PRE $N_PRE -cases \"$cases\" -latency \"0 250\" -repeat $R -precond PC   # PC = $pcs")
if part_on precond; then
    ovk_pcs=$("$BUILD/examples/ovk_laplace27" -precond list 2>&1)
    echo "precond,solver,backend,latency_us,iterations,median_us_per_iter,ms_per_solve" > "$OUT/precond.csv"
    for pc in $pcs; do
        if [ "$pc" = amg ] && ! echo "$ovk_pcs" | grep -q '^ *amg'; then
            echo "amg: not in this build (hypre 64-bit not installed): skipped" >> "$OUT/skipped.txt"; continue
        fi
        log "precond: ovk_pcg_bench -precond $pc"
        mpiexec -n "$NP" "$BUILD/bench/ovk_pcg_bench" -n "$N_PRE" "$N_PRE" "$N_PRE" -cases "$cases" -latency "0 250" \
            -repeat "$R" -precond "$pc" > "$OUT/precond_$pc.md" 2> "$OUT/precond_$pc.log" ||
            log "precond $pc: ovk_pcg_bench failed (see $OUT/precond_$pc.log)"
        md_rows "$OUT/precond_$pc.md" | awk -F'|' -v pc="$pc" -v OFS=, '{ print pc, $2, $3, $4, $6, $8, $6 * $8 / 1000 }' \
            >> "$OUT/precond.csv"
    done
fi

# ------------------------------------------------------------------ oneshot
cmds_oneshot=("bench/report.sh -parts oneshot" "bench/latency/oneshot_bench.sh -np $NP -r 3 $N_ONE")
if part_on oneshot; then
    log "oneshot: bench/latency/oneshot_bench.sh -r 3 $N_ONE"
    bench/latency/oneshot_bench.sh -b "$BUILD" -np "$NP" -r 3 -o "$OUT/oneshot" "$N_ONE" > "$OUT/oneshot.log" 2> "$OUT/oneshot.err" ||
        log "oneshot: oneshot_bench.sh failed (see $OUT/oneshot.err)"
fi
if collect oneshot && [ -s "$OUT/oneshot/oneshot_n$N_ONE.raw" ]; then
    echo "solver,latency_us,iterations,solve_s,setup_s,restarts,auto_choice,round" > "$OUT/oneshot.csv"
    tr ' ' , < "$OUT/oneshot/oneshot_n$N_ONE.raw" >> "$OUT/oneshot.csv"
fi

# ------------------------------------------------------------------ peers
osolvers="alg1 cg1 pipecg pipeprcg"
cmds_peers=("bench/report.sh -parts peers"
    "bench/peers/compare_peers.sh -np $NP -r $R -n \"$SIZES_PEER\" -s \"$osolvers\" -k \"cg cg:sbaij\" -m \"\"")
if part_on peers; then
    [ -x "$PEERS/stream_triad" ] || bench/peers/build.sh "$PEERS" > "$OUT/peers_build.log" 2>&1 ||
        log "peers: bench/peers/build.sh failed (see $OUT/peers_build.log)"
    if [ -x "$PEERS/hypre_pcg" ] || [ -x "$PEERS/petsc_cg" ] || [ -x "$PEERS/stream_triad" ]; then
        log "peers: bench/peers/compare_peers.sh -r $R -n \"$SIZES_PEER\" -s \"$osolvers\" -k \"cg cg:sbaij\" -m \"\""
        bench/peers/compare_peers.sh -b "$BUILD" -p "$PEERS" -np "$NP" -r "$R" -n "$SIZES_PEER" -s "$osolvers" \
            -k "cg cg:sbaij" -m "" > "$OUT/peers.md" 2> "$OUT/peers.err" ||
            log "peers: compare_peers.sh failed (see $OUT/peers.err)"
    else
        log "peers: not run: no peer program could be built (bench/peers/build.sh; apt-get install libhypre-dev petsc-dev)"
    fi
fi
if collect peers && [ -s "$OUT/peers.md" ]; then
    # what compare_peers.sh skipped (it builds the peers it misses when it can)
    missing=$(sed -n 's/^# \(hypre\|PETSc\) peer missing.*(\(apt-get install [^;]*\);.*/\1 (\2)/p' "$OUT/peers.err" | tr '\n' ' ')
    [ -z "$missing" ] || echo "peers: not installed, skipped: $missing" | tee -a "$OUT/skipped.txt" >&2
    echo "n,solver,iterations,rel_residual,ms_per_iter,solve_s" > "$OUT/peers.csv"
    awk -F'|' '/^\| [0-9]+ \(/ { for (i = 2; i <= 8; i++) gsub(/^ +| +$/, "", $i); n = $2; sub(/ .*/, "", n)
               gsub(/, /, " ", $3)  # the solver column as one CSV field
               if ($3 ~ /ovkrylov|hypre|PETSc/) printf "%s,%s,%s,%s,%s,%s\n", n, $3, $4, $5, $6, $8 }' \
        "$OUT/peers.md" | sed 's/\*//g' >> "$OUT/peers.csv"
fi

# ------------------------------------------------------------------ machine, at the end
if [ -n "$PARTS" ]; then
    load_end=$(cut -d' ' -f1 /proc/loadavg)
    load_start=$(sed -n 's/.*load at start \([0-9.]*\).*/\1/p' "$OUT/machine.txt")
    busy=""
    awk -v a="${load_start:-0}" -v b="$load_end" -v c="$(env -u OMP_NUM_THREADS nproc)" 'BEGIN { exit !(a > c || b > c) }' &&
        busy=" (1-minute load averages above the core count: other jobs shared the cores)"
    echo "$(cat "$OUT/machine.txt"), at the end $load_end$busy; $NP ranks, Release build, OMP_NUM_THREADS=1" \
        > "$OUT/machine.txt.new" && mv "$OUT/machine.txt.new" "$OUT/machine.txt"
fi

# ------------------------------------------------------------------ data files
# OUT/NAME.csv, headed by its machine, commands and commit -> DIR/NAME.csv,
# for the parts measured now (or, with -parts "", found in OUT)
write_data() {
    local dir="$1" f c arr
    mkdir -p "$dir"
    for f in latency precond oneshot peers; do
        collect "$f" && [ -s "$OUT/$f.csv" ] || continue
        arr="cmds_$f[@]"
        {
            echo "# machine: $(cat "$OUT/machine.txt")"
            for c in "${!arr}"; do echo "# command: $c"; done
            echo "# commit: $COMMIT ($DATE), bench/report.sh"
            cat "$OUT/$f.csv"
        } > "$dir/$f.csv"
    done
}

# ------------------------------------------------------------------ plots
plots() {
    command -v gnuplot > /dev/null || { echo "plots: gnuplot not installed (apt-get install gnuplot-nox): skipped" |
        tee -a "$OUT/skipped.txt" >&2; return; }
    [ -s "$OUT/latency/pipelines.png" ] && cp "$OUT/latency/pipelines.png" docs/img/pipelines_latency.png
    if [ -s "$OUT/peers.csv" ] && [ "$(wc -l < "$OUT/peers.csv")" -gt 1 ]; then
        awk -F, 'NR > 1 { s = $2; gsub(/ovkrylov /, "", s); gsub(/ \(blocking\)/, "", s); sub(/KSPcg \+ Jacobi/, "CG", s)
                   gsub(/[ ]/, "_", s)
                   if (!(s in seen)) { seen[s] = 1; order[++k] = s }; v[s, $1] = $5; N[$1] = 1 }
             END { printf "solver"; for (n in N) printf " n%s", n; printf "\n"
                   for (i = 1; i <= k; i++) { s = order[i]; printf "%s", s
                     for (n in N) printf " %s", ((s, n) in v) ? v[s, n] : "?"; printf "\n" } }' "$OUT/peers.csv" > "$OUT/peers.dat"
        gnuplot <<EOF > "$OUT/gnuplot.log" 2>&1 || log "plots: gnuplot failed (see $OUT/gnuplot.log)"
set terminal pngcairo size 900,420 font ',10'
set output 'docs/img/peers.png'
set style data histograms; set style histogram clustered gap 1; set style fill solid 0.8 border -1
set ylabel 'ms per iteration (median)'; set grid ytics; set key top left
set xtics rotate by -30 noenhanced
set title '27-point Laplacian, Jacobi, $NP ranks'
plot for [c=2:*] '$OUT/peers.dat' using c:xtic(1) title columnhead(c)
EOF
    fi
}

# ------------------------------------------------------------------ the doc
if [ "$DOC" = 1 ]; then
    plots
    write_data bench/results
    python3 bench/report/report_render.py || log "bench/report/report_render.py failed"
else  # the data files and the doc as they would be, in OUT
    mkdir -p "$OUT/results"
    cp bench/results/*.csv "$OUT/results/" 2> /dev/null
    write_data "$OUT/results"
    python3 bench/report/report_render.py -results "$OUT/results" -o "$OUT/performance.md" ||
        log "bench/report/report_render.py failed"
fi
echo "total $(( $(date +%s) - T0 )) s" >> "$OUT/timing.txt"
log "done in $(( $(date +%s) - T0 )) s: raw outputs in $OUT$([ -s "$OUT/skipped.txt" ] && echo "; skipped: $(tr '\n' ' ' < "$OUT/skipped.txt")")"
exit
}

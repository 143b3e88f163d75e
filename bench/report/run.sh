#!/usr/bin/env bash
# bench/report/run.sh -- the whole evaluation in one command: build, run, CSV, plots.
#
# usage: bench/report/run.sh [-b BUILD_DIR] [-o OUT_DIR] [-p "a b c d e f"] [-quick] [-h]
#   -b DIR   build directory (default: <repo>/build-bench; configured Release here)
#   -o DIR   output directory (default: <repo>/bench/results/<date>-<time>)
#   -p LIST  parts to run (default "a b c d e f"):
#              a  overlap % of every available backend vs message size and test calls
#                 (ovk_overlap_bench, 2 ranks; dummy and DGEMM compute; no model and the
#                 pcg-overlap-256 latency model)
#              b  latency of every nbc algorithm, blocking, native, raw MPI (2 and 4 ranks)
#              c  PCG time per iteration: every solver x blocking/native/nbc x modelled
#                 latency 0/25/100/250 us at -n 40 40 40, and every solver x nbc (+ alg1
#                 blocking) x 0/250 us at -n 60 60 60 (bench/ovk_pcg_bench: all cases in one process, interleaved, paired)
#              d  noise injection: F in {20,100,1000} Hz x D in {50,200} us (+ none) on
#                 alg1 (blocking) and overlap, pipecg, cg1 (nbc), at 0 and 250 us
#                 (ovk_pcg_bench again)
#              e  peers: bench/peers/compare_peers.sh (hypre DS-PCG, PETSc CG/PIPECG/GROPPCG vs
#                 alg1, alg2, cg1, pipecg) if installed
#              f  plots (gnuplot; installs gnuplot-nox when missing) and summary.md
#   -quick   a smoke test of the script (few repeats and sizes; about 2 minutes)
#   -budget S  time budget in seconds (default 840): the peers run once instead of R_PEERS
#            times when 88 % of it has passed; summary.md says what was trimmed.
#
# Writes into OUT_DIR: machine.txt, run.log, timing.txt, overlap.csv, overlap_dgemm.csv,
# latency.csv, pcg.csv, noise.csv, peers.md + peers.csv (when the peers ran),
# plotdata/*.dat, *.png, summary.md, logs/.  See bench/README.md for the columns.
#
# Budget: under 15 minutes on 2 cores (Open MPI, shared memory).  Repeats per part are the
# R_* variables below.  As root, Open MPI needs OMPI_ALLOW_RUN_AS_ROOT*, set here; runs with
# more ranks than cores get --oversubscribe.
set -uo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BUILD="$REPO/build-bench"
OUT=""
PARTS="a b c d e f"
QUICK=0
BUDGET=840

while [ $# -gt 0 ]; do
    case "$1" in
        -b) BUILD="$2"; shift 2 ;;
        -o) OUT="$2"; shift 2 ;;
        -p) PARTS="$2"; shift 2 ;;
        -quick) QUICK=1; shift ;;
        -budget) BUDGET="$2"; shift 2 ;;
        -h|--help) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) echo "run.sh: unknown option $1 (try -h)" >&2; exit 2 ;;
    esac
done
case "$BUILD" in /*) ;; *) BUILD="$PWD/$BUILD" ;; esac
[ -n "$OUT" ] || OUT="$REPO/bench/results/$(date +%Y%m%d-%H%M%S)"
case "$OUT" in /*) ;; *) OUT="$PWD/$OUT" ;; esac
case "$BUDGET" in ''|*[!0-9]*) echo "run.sh: -budget wants whole seconds, not '$BUDGET'" >&2; exit 2 ;; esac
for p in $PARTS; do
    case "$p" in a|b|c|d|e|f) ;; *) echo "run.sh: unknown part '$p' (a-f)" >&2; exit 2 ;; esac
done
mkdir -p "$OUT/logs" "$OUT/plotdata" || { echo "run.sh: cannot create $OUT" >&2; exit 2; }

# ---------------------------------------------------------------- settings
OV_SIZES="8,64,512,4K,32K,256K,1M"   # overlap: 1 double .. 1 MiB
OV_TESTS="0,2,10,100,1000,10000"     # Table I of the Ialltoall paper
OV_MODEL="pcg-overlap-256"           # ~250 us at 256 modelled ranks, 8 tree levels
R_OVERLAP=30                         # repeats per overlap row
DG_SIZES="8,1M"                      # DGEMM compute
DG_TESTS="0,10,100"
LAT_SIZES="8,24,1M"                  # 1 double, 3 doubles, 1 MiB
R_LATENCY=1000
LAT_SPECS="blocking native nbc nbc:alg=rd nbc:alg=kring,k=2 nbc:alg=kring,k=3 nbc:alg=kring,k=4"
LAT_SPECS="$LAT_SPECS nbc:alg=knomial,k=2 nbc:alg=knomial,k=4 nbc:alg=twolevel nbc:alg=twolevel,ppn=1 nbc:alg=rsa"
PCG_BACKENDS="blocking native nbc"
PCG_LAT40="0 25 100 250"
PCG_LAT60="0 250"
R_PCG40=11                           # rounds of ovk_pcg_bench (every case once per round)
R_PCG60=15
NOISE_CONFIGS="0:0 20:50 20:200 100:50 100:200 1000:50 1000:200"   # F:D, 0:0 = no noise
NOISE_LATS="0 250"
NOISE_N=40
R_NOISE=9
R_PEERS=3
PEER_KSPS="cg pipecg groppcg"        # PETSc KSP types (+ Jacobi)
PEER_OURS="alg1 alg2 cg1 pipecg"     # our solvers in the peer table (blocking backend)
if [ "$QUICK" = 1 ]; then
    OV_SIZES="8,1M"; OV_TESTS="0,10,1000"; R_OVERLAP=5; DG_TESTS="0,10"
    R_LATENCY=100; LAT_SPECS="blocking native nbc nbc:alg=rsa"
    PCG_LAT40="0 250"; PCG_LAT60="0 250"; R_PCG40=1; R_PCG60=1
    NOISE_CONFIGS="0:0 1000:200"; NOISE_LATS="250"; NOISE_N=20; R_NOISE=1; R_PEERS=1
fi

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1
unset OVK_LATENCY_MODEL OVK_REDUCE_BACKEND      # every setting comes from the flags below
NCPU=$(nproc --all 2>/dev/null || nproc)
T_START=$(date +%s)
BENCH="$BUILD/bench/ovk_overlap_bench"
DRIVER="$BUILD/examples/ovk_laplace27"
PCG_BENCH="$BUILD/bench/ovk_pcg_bench"
CMD_TIMEOUT=600                                 # no single run may hang the evaluation

log() { printf '[%4ds] %s\n' "$(( $(date +%s) - T_START ))" "$*" | tee -a "$OUT/run.log"; }
skip() { log "skipped: $*"; echo "$*" >> "$OUT/skipped.txt"; }
# mpirun NP CMD...: MPI launch with --oversubscribe beyond the core count, with a timeout
mpirun() {
    local np="$1"; shift
    local extra=()
    [ "$np" -gt "$NCPU" ] && extra=(--oversubscribe)
    timeout "$CMD_TIMEOUT" mpiexec "${extra[@]}" -n "$np" "$@"
}
part_on() { case " $PARTS " in *" $1 "*) return 0 ;; esac; return 1; }
# over_budget FRACTION: has FRACTION of the time budget passed?
over_budget() { [ "$(( $(date +%s) - T_START ))" -ge "$(awk -v b="$BUDGET" -v f="$1" 'BEGIN {printf "%d", b * f}')" ]; }
trimmed() { log "trimmed: $*"; echo "$*" >> "$OUT/trimmed.txt"; }
# check_load WHEN: warn when other jobs compete for the cores (1-minute load > half the cores)
check_load() {
    local l; l=$(cut -d' ' -f1 /proc/loadavg)
    if awk -v l="$l" -v n="$NCPU" 'BEGIN {exit !(l > 0.5 * n)}'; then
        log "warning: load average $l on $NCPU cores $1: other jobs compete, timings will be noisy"
        echo "load average $l on $NCPU cores $1: other jobs competed, timings are noisy" >> "$OUT/warnings.txt"
    fi
}
part_time() { echo "$1 $(( $(date +%s) - $2 )) s" >> "$OUT/timing.txt"; }

# ---------------------------------------------------------------- machine facts
machine_facts() {
    {
        echo "date: $(date -Iseconds)"
        echo "host: $(uname -n), kernel $(uname -r), $(cat /etc/debian_version 2>/dev/null | sed 's/^/Debian /')"
        echo "cpu: $(lscpu | sed -n 's/^Model name:[[:space:]]*//p')"
        echo "cores: $NCPU ($(lscpu | sed -n 's/^Thread(s) per core:[[:space:]]*//p') thread(s) per core);" \
             "L3: $(lscpu | sed -n 's/^L3 cache:[[:space:]]*//p')"
        echo "memory: $(free -g | awk '/^Mem:/ {print $2 " GiB"}')"
        echo "mpi: $(mpiexec --version 2>&1 | head -n 1)"
        echo "compiler: $(cc --version 2>/dev/null | head -n 1)"
        echo "blas: $(readlink -f /usr/lib/x86_64-linux-gnu/libblas.so.3 2>/dev/null)"
        echo "commit: $(git -C "$REPO" rev-parse HEAD 2>/dev/null)" \
             "($(git -C "$REPO" status --porcelain 2>/dev/null | grep -c . ) modified/untracked paths)"
        echo "build: $BUILD (CMAKE_BUILD_TYPE=Release)"
        echo "load at start: $(cut -d' ' -f1-3 /proc/loadavg)"
        echo "env: OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1; ranks > $NCPU run with --oversubscribe"
    } > "$OUT/machine.txt"
}

# ---------------------------------------------------------------- build
build() {
    local t0; t0=$(date +%s)
    log "build: cmake Release in $BUILD"
    if ! cmake -S "$REPO" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DOVK_BUILD_TESTS=OFF \
            > "$OUT/logs/cmake.log" 2>&1 ||
       ! cmake --build "$BUILD" -j "$NCPU" --target ovk_overlap_bench ovk_pcg_bench ovk_laplace27 \
            > "$OUT/logs/build.log" 2>&1; then
        log "build FAILED, see $OUT/logs/build.log"; tail -n 20 "$OUT/logs/build.log"; exit 1
    fi
    part_time build "$t0"
}

# ---------------------------------------------------------------- backends available
# The registered backends as `-backend list` prints them, asked under
# MPI_THREAD_MULTIPLE (backends needing it report "not available" otherwise).
backend_list() { mpirun 1 "$BENCH" -backend list -thread_level multiple 2>/dev/null; }
# offload specs to run: one per engine of its engine= option ("auto" left out),
# or "" when offload is not compiled in or cannot run here.
offload_specs() {
    local list line engines e
    list=$(backend_list)
    line=$(echo "$list" | awk '$1 == "offload"' | head -n 1)
    if [ -z "$line" ]; then echo ""; return; fi
    if echo "$line" | grep -q 'not available here'; then echo ""; return; fi
    engines=$(echo "$list" | awk 'f && /options:/ {print; exit} $1 == "offload" {f = 1}' |
              sed -n 's/.*engine=\([a-z0-9|]*\).*/\1/p' | tr '|' ' ')
    engines=$(echo " $engines " | sed 's/ auto / /g')
    if [ -z "${engines// /}" ]; then echo "offload"; return; fi
    for e in $engines; do printf 'offload:engine=%s ' "$e"; done
}

# ---------------------------------------------------------------- (a) overlap
part_a() {
    local t0 offl multi model margs; t0=$(date +%s)
    rm -f "$OUT/overlap.csv" "$OUT/overlap_dgemm.csv"   # a rerun into the same directory starts afresh
    offl=$(offload_specs)
    if [ -z "$offl" ]; then skip "(a,b) offload backend: not built or not available here (-backend list)"; fi
    multi="nbc:thread=1 $offl"   # these need MPI_THREAD_MULTIPLE: own runs, so the others keep SINGLE
    for model in none "$OV_MODEL"; do
        margs=(-latency_model "$model")
        log "(a) overlap, dummy compute, model $model: blocking native nbc"
        mpirun 2 "$BENCH" -backend "blocking native nbc" -sizes "$OV_SIZES" -tests "$OV_TESTS" -poll test,hook \
            -repeat "$R_OVERLAP" "${margs[@]}" -csv "$OUT/overlap.csv" >> "$OUT/logs/overlap.log" 2>&1 ||
            log "(a) FAILED (see logs/overlap.log)"
        log "(a) overlap, dummy compute, model $model: $multi"
        mpirun 2 "$BENCH" -backend "$multi" -sizes "$OV_SIZES" -tests "$OV_TESTS" -poll test \
            -repeat "$R_OVERLAP" "${margs[@]}" -csv "$OUT/overlap.csv" >> "$OUT/logs/overlap.log" 2>&1 ||
            log "(a) FAILED (see logs/overlap.log)"
        log "(a) overlap, DGEMM compute, model $model"
        mpirun 2 "$BENCH" -backend "blocking native nbc" -compute dgemm -sizes "$DG_SIZES" -tests "$DG_TESTS" \
            -repeat "$R_OVERLAP" "${margs[@]}" -csv "$OUT/overlap_dgemm.csv" >> "$OUT/logs/overlap.log" 2>&1 ||
            log "(a) FAILED (see logs/overlap.log)"
        mpirun 2 "$BENCH" -backend "$multi" -compute dgemm -sizes "$DG_SIZES" -tests "$DG_TESTS" \
            -repeat "$R_OVERLAP" "${margs[@]}" -csv "$OUT/overlap_dgemm.csv" >> "$OUT/logs/overlap.log" 2>&1 ||
            log "(a) FAILED (see logs/overlap.log)"
    done
    part_time a "$t0"
}

# ---------------------------------------------------------------- (b) latency
part_b() {
    local t0 np offl; t0=$(date +%s)
    rm -f "$OUT/latency.csv"
    offl=$(offload_specs)
    for np in 2 4; do
        log "(b) latency, $np ranks: $R_LATENCY repeats x sizes $LAT_SIZES"
        mpirun "$np" "$BENCH" -mode latency -raw -backend "$LAT_SPECS" -sizes "$LAT_SIZES" -repeat "$R_LATENCY" \
            -csv "$OUT/latency.csv" >> "$OUT/logs/latency.log" 2>&1 || log "(b) FAILED (see logs/latency.log)"
        mpirun "$np" "$BENCH" -mode latency -backend "nbc:thread=1 $offl" -sizes "$LAT_SIZES" -repeat "$R_LATENCY" \
            -csv "$OUT/latency.csv" >> "$OUT/logs/latency.log" 2>&1 || log "(b) FAILED (see logs/latency.log)"
    done
    part_time b "$t0"
}

# ---------------------------------------------------------------- PCG driver helpers
driver_ok() {
    if ! mpirun 1 "$DRIVER" -help 2>/dev/null | grep -q -- '-csv'; then
        skip "(c,d) $DRIVER has no -csv flag (driver too old)"; return 1
    fi
}
solvers() { mpirun 1 "$DRIVER" -help 2>/dev/null | sed -n 's/.*-solver NAME.*): *//p'; }
# ---------------------------------------------------------------- (c) PCG vs latency
# pcg_bench OUTBASE CSV n cases latencies noises rounds: one ovk_pcg_bench
# process (all cases interleaved, paired figures) -> OUTBASE.md (its table)
pcg_bench() {
    local out="$1" csv="$2" n="$3" cases="$4" lats="$5" noises="$6" rounds="$7"
    echo "== -n $n -cases \"$cases\" -latency \"$lats\" -noise \"$noises\" -repeat $rounds" >> "$OUT/logs/pcg_bench.log"
    mpirun 2 "$PCG_BENCH" -n "$n" "$n" "$n" -cases "$cases" -latency "$lats" -noise "$noises" \
        -repeat "$rounds" -csv "$csv" > "$out.txt" 2>> "$OUT/logs/pcg_bench.log" ||
        log "ovk_pcg_bench -n $n FAILED (exit $?; see logs/pcg_bench.log)"
    grep '^|' "$out.txt" > "$out.md" || true
}
pcg_cases() { # every solver x every backend of PCG_BACKENDS, alg1:blocking first (the reference)
    local s b c="alg1:blocking"
    for s in $(solvers); do for b in $PCG_BACKENDS; do
        [ "$s:$b" = alg1:blocking ] || c="$c $s:$b"
    done; done
    echo "$c"
}
part_c() {
    local t0 cases s; t0=$(date +%s)
    rm -f "$OUT/pcg.csv"
    driver_ok || return
    [ -x "$PCG_BENCH" ] || { skip "(c) $PCG_BENCH not built"; return; }
    cases=$(pcg_cases)
    log "(c) PCG (ovk_pcg_bench): [$cases] x latency [$PCG_LAT40] at n=40, $R_PCG40 rounds"
    pcg_bench "$OUT/pcg_n40" "$OUT/pcg.csv" 40 "$cases" "$PCG_LAT40" "0:0" "$R_PCG40"
    # n=60: a solve takes ~1 s, so fewer cases (every solver on nbc, alg1 also blocking) keep a
    # round short (~12 s) and the pairs close in time
    cases="alg1:blocking"; for s in $(solvers); do cases="$cases $s:nbc"; done
    log "(c) PCG (ovk_pcg_bench): [$cases] x latency [$PCG_LAT60] at n=60, $R_PCG60 rounds"
    pcg_bench "$OUT/pcg_n60" "$OUT/pcg.csv" 60 "$cases" "$PCG_LAT60" "0:0" "$R_PCG60"
    part_time c "$t0"
}

# ---------------------------------------------------------------- (d) noise
part_d() {
    local t0 s sl cases; t0=$(date +%s)
    rm -f "$OUT/noise.csv"
    driver_ok || return
    [ -x "$PCG_BENCH" ] || { skip "(d) $PCG_BENCH not built"; return; }
    sl=" $(solvers) "
    cases="alg1:blocking overlap:nbc"
    for s in pipecg cg1; do case "$sl" in *" $s "*) cases="$cases $s:nbc" ;; esac; done
    log "(d) noise (ovk_pcg_bench): [$cases] x [$NOISE_CONFIGS] (Hz:us) x latency [$NOISE_LATS], n=$NOISE_N, $R_NOISE rounds"
    pcg_bench "$OUT/noise" "$OUT/noise.csv" "$NOISE_N" "$cases" "$NOISE_LATS" "$NOISE_CONFIGS" "$R_NOISE"
    part_time d "$t0"
}

# ---------------------------------------------------------------- (e) peers
part_e() {
    local t0 r="$R_PEERS"; t0=$(date +%s)
    rm -f "$OUT/peers.md" "$OUT/peers.csv"
    if [ ! -e /usr/include/hypre/HYPRE_parcsr_ls.h ] && ! pkg-config --exists petsc 2>/dev/null; then
        skip "(e) peers: install libhypre-dev petsc-dev (then bench/peers/build.sh)"; return
    fi
    if [ "$r" -gt 1 ] && over_budget 0.88; then
        r=1; trimmed "(e) peers: 1 of $R_PEERS repeats (88 % of the ${BUDGET} s budget passed)"
    fi
    log "(e) peers: bench/peers/build.sh; compare_peers.sh -r $r -k \"$PEER_KSPS\" -s \"$PEER_OURS\""
    bash "$REPO/bench/peers/build.sh" "$OUT/peers_bin" > "$OUT/logs/peers_build.log" 2>&1 ||
        log "(e) peers build had errors (see logs/peers_build.log)"
    [ -x "$OUT/peers_bin/hypre_pcg" ] || skip "(e) hypre peer: not built (install libhypre-dev)"
    [ -x "$OUT/peers_bin/petsc_cg" ] || skip "(e) PETSc peer: not built (install petsc-dev)"
    bash "$REPO/bench/peers/compare_peers.sh" -b "$BUILD" -p "$OUT/peers_bin" -r "$r" -k "$PEER_KSPS" -s "$PEER_OURS" \
        -l "$OUT/logs/peers" > "$OUT/peers.md" 2> "$OUT/logs/peers.log" || log "(e) compare_peers.sh FAILED"
    # the markdown rows -> peers.csv
    awk -F'|' 'BEGIN {print "n,solver,iterations,rel_residual,ms_per_iter,solve_s"}
        $3 ~ /ovkrylov|hypre|PETSc/ {
            n = $2; sub(/^ */, "", n); sub(/ .*/, "", n); s = $3; gsub(/^ +| +$/, "", s); it = $4
            gsub(/[^0-9]/, "", it); rr = $5; gsub(/ /, "", rr); ms = $6; gsub(/ /, "", ms); so = $8; gsub(/ /, "", so)
            print n "," s "," it "," rr "," ms "," so }' "$OUT/peers.md" > "$OUT/peers.csv"
    part_time e "$t0"
}

# ---------------------------------------------------------------- (f) plots and summary
# Shared awk helpers: column lookup by header name, median.
AWK_LIB='
function header(line,   n, i, f) { n = split(line, f, ","); for (i = 1; i <= n; i++) C[f[i]] = i; have = 1 }
function median(list,   n, v, i, j, t) {
    n = split(list, v, " "); if (n == 0) return "?"
    for (i = 2; i <= n; i++) { t = v[i] + 0; j = i - 1; while (j >= 1 && v[j] + 0 > t) { v[j + 1] = v[j]; j-- } v[j + 1] = t }
    return (n % 2) ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2 }
function addcol(name) { if (!(name in COL)) { COL[name] = ++NCOL; COLNAME[NCOL] = name } }
function addrow(name) { if (!(name in ROW)) { ROW[name] = ++NROW; ROWNAME[NROW] = name } }
'

# overlap.csv -> plotdata/overlap_size_{none,model}.dat (bytes x backend: T=0 and best T)
#             -> plotdata/overlap_tests_{none,model}_{8,1048576}.dat (T x backend/poll)
overlap_data() {
    local which
    for which in none model; do
        awk -F, -v which="$which" -v dir="$OUT/plotdata" "$AWK_LIB"'
        /^#/ { next }
        !have { header($0); next }
        $C["backend"] == "backend" { next }
        { m = $C["latency_model"]; if ((which == "none") != (m == "none")) next
          b = $C["backend"]; gsub(/;/, ",", b); by = $C["bytes"]; t = $C["test_calls"]; p = $C["poll"]; ov = $C["overlap_pct"]
          addcol(b); addrow(by); v[b, by, t, p] = ov
          if (t == 0) t0[b, by] = ov
          if (!((b, by) in best) || ov + 0 > best[b, by] + 0) { best[b, by] = ov; bestt[b, by] = t "/" p }
          T[t] = 1; if (p != "none") POLLS[b, p] = 1 }
        END {
          f = dir "/overlap_size_" which ".dat"
          printf "bytes" > f
          for (i = 1; i <= NCOL; i++) printf " %s_T0 %s_best", COLNAME[i], COLNAME[i] > f
          printf "\n" > f
          for (r = 1; r <= NROW; r++) { by = ROWNAME[r]; printf "%s", by > f
            for (i = 1; i <= NCOL; i++) { b = COLNAME[i]
              printf " %s %s", ((b, by) in t0) ? t0[b, by] : "?", ((b, by) in best) ? best[b, by] : "?" > f }
            printf "\n" > f }
          close(f)
          nt = 0; for (t in T) TT[++nt] = t + 0
          for (i = 2; i <= nt; i++) { x = TT[i]; j = i - 1; while (j >= 1 && TT[j] > x) { TT[j + 1] = TT[j]; j-- } TT[j + 1] = x }
          for (r = 1; r <= NROW; r++) { by = ROWNAME[r]; if (by != 8 && by != 1048576) continue
            f = dir "/overlap_tests_" which "_" by ".dat"; printf "tests" > f
            for (i = 1; i <= NCOL; i++) { b = COLNAME[i]; if ((b, "test") in POLLS) printf " %s/test", b > f
                                                         if ((b, "hook") in POLLS) printf " %s/hook", b > f }
            printf "\n" > f
            for (k = 1; k <= nt; k++) { t = TT[k]; printf "%d", t > f
              for (i = 1; i <= NCOL; i++) { b = COLNAME[i]
                if ((b, "test") in POLLS) printf " %s", (t == 0) ? ((b, by, 0, "none") in v ? v[b, by, 0, "none"] : "?") : (((b, by, t, "test") in v) ? v[b, by, t, "test"] : "?") > f
                if ((b, "hook") in POLLS) printf " %s", (t == 0) ? ((b, by, 0, "none") in v ? v[b, by, 0, "none"] : "?") : (((b, by, t, "hook") in v) ? v[b, by, t, "hook"] : "?") > f }
              printf "\n" > f }
            close(f) }
          for (i = 1; i <= NCOL; i++) for (r = 1; r <= NROW; r++) { b = COLNAME[i]; by = ROWNAME[r]
            if (by == 8 || by == 1048576)
              printf "| %s | %s | %s | %s | %s |\n", which, b, (by == 8) ? "8 B" : "1 MiB", \
                ((b, by) in t0) ? t0[b, by] : "-", ((b, by) in best) ? (best[b, by] > 0 ? best[b, by] " (" bestt[b, by] ")" : best[b, by]) : "-" > (dir "/overlap_summary_" which ".md") }
        }' "$OUT/overlap.csv"
    done
}

# pcg.csv / noise.csv -> medians per (grid, solver, backend, latency, noise)
pcg_medians() { # CSV -> lines "grid solver backend latency_us noise_hz noise_us us_per_iter iterations red_per_iter nruns"
    awk -F, "$AWK_LIB"'
    !have { header($0); next }
    $1 == "solver" { next }
    { k = $C["nx"] "x" $C["ny"] "x" $C["nz"] SUBSEP $C["solver"] SUBSEP $C["backend"] SUBSEP $C["latency_us"] SUBSEP $C["noise_hz"] SUBSEP $C["noise_us"]
      if (!(k in n)) order[++K] = k
      n[k]++; t[k] = t[k] " " $C["us_per_iter"]; it[k] = it[k] " " $C["iterations"]
      if ($C["iterations"] > 0) rp[k] = rp[k] " " ($C["reductions"] / $C["iterations"]) }
    END { for (i = 1; i <= K; i++) { k = order[i]; split(k, f, SUBSEP)
            printf "%s %s %s %s %s %s %s %s %s %d\n", f[1], f[2], f[3], f[4], f[5], f[6], median(t[k]), median(it[k]), median(rp[k]), n[k] } }' "$1"
}

pcg_data() {
    [ -s "$OUT/pcg.csv" ] || return
    pcg_medians "$OUT/pcg.csv" > "$OUT/plotdata/pcg_medians.txt"
    local grid b
    for grid in $(awk '{print $1}' "$OUT/plotdata/pcg_medians.txt" | sort -u); do
        for b in $PCG_BACKENDS; do
            awk -v g="$grid" -v b="$b" "$AWK_LIB"'
            $1 == g && $3 == b && $5 == 0 { addrow($4); addcol($2); v[$4, $2] = $7 }
            END { printf "latency_us"; for (i = 1; i <= NCOL; i++) printf " %s", COLNAME[i]; printf "\n"
                  for (r = 1; r <= NROW; r++) { printf "%s", ROWNAME[r]
                    for (i = 1; i <= NCOL; i++) printf " %s", ((ROWNAME[r], COLNAME[i]) in v) ? v[ROWNAME[r], COLNAME[i]] : "?"
                    printf "\n" } }' "$OUT/plotdata/pcg_medians.txt" > "$OUT/plotdata/pcg_${grid}_${b}.dat"
            # a grid/backend pair that was not run: no file, so that gnuplot skips its panel
            [ "$(wc -l < "$OUT/plotdata/pcg_${grid}_${b}.dat")" -gt 1 ] || rm -f "$OUT/plotdata/pcg_${grid}_${b}.dat"
        done
    done
}

noise_data() {
    [ -s "$OUT/noise.csv" ] || return
    pcg_medians "$OUT/noise.csv" > "$OUT/plotdata/noise_medians.txt"
    local lat
    for lat in $NOISE_LATS; do
        awk -v lat="$lat" "$AWK_LIB"'
        $4 == lat { key = $2 "/" $3; addcol(key)
                    if ($5 == 0) base[key] = $7
                    else { cfg = $5 "Hz/" $6 "us"; addrow(cfg); v[cfg, key] = $7 } }
        END { printf "noise"; for (i = 1; i <= NCOL; i++) printf " %s", COLNAME[i]; printf "\n"
              for (r = 1; r <= NROW; r++) { printf "%s", ROWNAME[r]
                for (i = 1; i <= NCOL; i++) { k = COLNAME[i]
                  if (((ROWNAME[r], k) in v) && (k in base) && base[k] > 0) printf " %.1f", 100 * (v[ROWNAME[r], k] / base[k] - 1)
                  else printf " ?" }
                printf "\n" } }' "$OUT/plotdata/noise_medians.txt" > "$OUT/plotdata/noise_${lat}.dat"
    done
}

peers_data() {
    [ -s "$OUT/peers.csv" ] || return
    awk -F, "$AWK_LIB"'
    NR == 1 { next }
    { s = $2; gsub(/ /, "_", s); gsub(/[()]/, "", s); addrow($1); addcol(s); v[$1, s] = $5 }
    END { printf "n"; for (i = 1; i <= NCOL; i++) printf " %s", COLNAME[i]; printf "\n"
          for (r = 1; r <= NROW; r++) { printf "%s", ROWNAME[r]
            for (i = 1; i <= NCOL; i++) printf " %s", ((ROWNAME[r], COLNAME[i]) in v && v[ROWNAME[r], COLNAME[i]] != "-") ? v[ROWNAME[r], COLNAME[i]] : "?"
            printf "\n" } }' "$OUT/peers.csv" > "$OUT/plotdata/peers.dat"
}

ensure_gnuplot() {
    command -v gnuplot > /dev/null && return 0
    local sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    log "(f) installing gnuplot-nox (apt-get)"
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends gnuplot-nox \
        > "$OUT/logs/apt.log" 2>&1 ||
    { $sudo apt-get update -qq >> "$OUT/logs/apt.log" 2>&1 &&
      DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends gnuplot-nox \
        >> "$OUT/logs/apt.log" 2>&1; }
    command -v gnuplot > /dev/null
}

# summary.md: the numbers of this run, from its CSVs.
summary() {
    local f="$OUT/summary.md"
    {
        echo "# Evaluation summary ($(date -Iseconds))"
        echo
        if [ -s "$OUT/warnings.txt" ]; then sed 's/^/**Warning:** /; s/$/\n/' "$OUT/warnings.txt"; fi
        echo '```'; cat "$OUT/machine.txt"; echo '```'
        echo
        if [ -s "$OUT/overlap.csv" ]; then
            echo "## Overlap % (ovk_overlap_bench, 2 ranks, dummy compute = base latency)"
            echo
            echo "model: none = real shared memory; model = $OV_MODEL. best = highest over the whole test-call"
            echo "sweep, 0 included (T/poll in parentheses)."
            echo
            echo "| model | backend | size | 0 tests | best |"
            echo "|---|---|---|---:|---:|"
            cat "$OUT/plotdata/overlap_summary_none.md" "$OUT/plotdata/overlap_summary_model.md" 2>/dev/null
            echo
        fi
        if [ -s "$OUT/overlap_dgemm.csv" ]; then
            echo "## DGEMM overlapped vs alone (GFLOP/s)"
            echo
            echo "| backend | bytes | tests | latency model | dgemm N x calls | overlap % | GFLOP/s alone | overlapped |"
            echo "|---|---:|---:|---|---|---:|---:|---:|"
            awk -F, "$AWK_LIB"'/^#/ {next} !have {header($0); next} $1 == "backend" {next}
                { printf "| %s | %s | %s | %s | %s x %s | %s | %s | %s |\n", $C["backend"], $C["bytes"], $C["test_calls"],
                  $C["latency_model"], $C["dgemm_n"], $C["dgemm_calls"], $C["overlap_pct"], $C["dgemm_gflops_alone"], $C["dgemm_gflops_overlap"] }' \
                "$OUT/overlap_dgemm.csv"
            echo
        fi
        if [ -s "$OUT/latency.csv" ]; then
            echo "## Latency of start + wait (median of $R_LATENCY, max over ranks), us"
            echo
            awk -F, "$AWK_LIB"'/^#/ {next} !have {header($0); next} $1 == "backend" {next}
                { b = $C["backend"]; gsub(/;/, ",", b); c = $C["nranks"] " ranks, " $C["bytes"] " B"
                  addrow(b); addcol(c); v[b, c] = $C["median_us"] }
                END { printf "| backend |"; for (i = 1; i <= NCOL; i++) printf " %s |", COLNAME[i]; printf "\n|---|"
                      for (i = 1; i <= NCOL; i++) printf "---:|"; printf "\n"
                      for (r = 1; r <= NROW; r++) { printf "| `%s` |", ROWNAME[r]
                        for (i = 1; i <= NCOL; i++) printf " %s |", ((ROWNAME[r], COLNAME[i]) in v) ? v[ROWNAME[r], COLNAME[i]] : "-"
                        printf "\n" } }' "$OUT/latency.csv"
            echo
        fi
        local t
        for t in pcg_n40:"-n 40 40 40" pcg_n60:"-n 60 60 60" noise:"noise, -n $NOISE_N $NOISE_N $NOISE_N"; do
            [ -s "$OUT/${t%%:*}.md" ] || continue
            echo "## PCG, paired (ovk_pcg_bench, ${t#*:}, 2 ranks; all cases in one process, rounds interleaved)"
            echo
            grep '^# ovk_pcg_bench' "$OUT/${t%%:*}.txt" | sed 's/^# //'
            echo
            echo "median/min over rounds; hidden = 100 (1 - (t(L) - t(0)) / (reductions/iter x L)) with t the time per"
            echo "iteration (paired) or the time in reduction calls per iteration (timers); noise cost ="
            echo "100 (t / t(no noise) - 1) and the ratio to the first case: each per round against the case run in"
            echo "the same round, then the median over rounds."
            echo
            cat "$OUT/${t%%:*}.md"
            echo
        done
        if [ -s "$OUT/plotdata/pcg_medians.txt" ]; then
            echo "## PCG time per iteration, unpaired (us; median of the runs of each case, runs per case: $(awk '{print $10}' "$OUT/plotdata/pcg_medians.txt" | sort -u | tr '\n' ' '| sed 's/ $//')) vs modelled latency (-latency_us)"
            echo
            echo "hidden = share of the modelled latency the solver hides: 1 - (t(L) - t(0)) / (reductions per iteration x L)."
            echo
            echo "| grid | solver | backend | iterations | reductions/iter | t(0) | t(L) by L | hidden at max L |"
            echo "|---|---|---|---:|---:|---:|---|---:|"
            awk "$AWK_LIB"'$5 == 0 { k = $1 " " $2 " " $3; if (!(k in seen)) { seen[k] = 1; order[++K] = k }
                      t[k, $4] = $7; it[k] = $8; rp[k] = $9; if ($4 + 0 > maxl[k] + 0) maxl[k] = $4; L[k] = L[k] " " $4 "=" $7 }
                END { for (i = 1; i <= K; i++) { k = order[i]; split(k, f, " "); m = maxl[k]
                        h = ((k, 0) in t && m > 0 && rp[k] > 0) ? sprintf("%.0f%%", 100 * (1 - (t[k, m] - t[k, 0]) / (rp[k] * m))) : "-"
                        printf "| %s | %s | %s | %s | %.2f | %s | %s | %s |\n", f[1], f[2], f[3], it[k], rp[k], ((k, 0) in t) ? t[k, 0] : "-", L[k], h } }' \
                "$OUT/plotdata/pcg_medians.txt"
            echo
        fi
        if [ -s "$OUT/plotdata/noise_medians.txt" ]; then
            echo "## Noise, unpaired: time per iteration (us; median of the runs of each case, runs per case: $(awk '{print $10}' "$OUT/plotdata/noise_medians.txt" | sort -u | tr '\n' ' ' | sed 's/ $//')) and degradation vs no noise"
            echo
            echo "| latency_us | solver/backend | noise | us/iter | degradation |"
            echo "|---:|---|---|---:|---:|"
            awk '{ k = $4 " " $2 "/" $3; if ($5 == 0) base[k] = $7; row[++n] = $0 }
                 END { for (i = 1; i <= n; i++) { split(row[i], f, " "); k = f[4] " " f[2] "/" f[3]
                         cfg = (f[5] == 0) ? "none" : f[5] " Hz x " f[6] " us"
                         d = (f[5] != 0 && base[k] > 0) ? sprintf("%+.1f%%", 100 * (f[7] / base[k] - 1)) : "-"
                         printf "| %s | %s | %s | %s | %s |\n", f[4], f[2] "/" f[3], cfg, f[7], d } }' \
                "$OUT/plotdata/noise_medians.txt"
            echo
        fi
        if [ -s "$OUT/peers.md" ]; then echo "## Peers (bench/peers/compare_peers.sh)"; echo; cat "$OUT/peers.md"; echo; fi
        if [ -s "$OUT/skipped.txt" ]; then echo "## Skipped"; echo; sed 's/^/- /' "$OUT/skipped.txt"; echo; fi
        if [ -s "$OUT/trimmed.txt" ]; then echo "## Trimmed (time budget)"; echo; sed 's/^/- /' "$OUT/trimmed.txt"; echo; fi
        echo "## Timing of this run"; echo; echo '```'; cat "$OUT/timing.txt" 2>/dev/null; echo '```'
    } > "$f"
}

part_f() {
    local t0; t0=$(date +%s)
    rm -f "$OUT"/plotdata/*.dat "$OUT"/plotdata/*.txt "$OUT"/plotdata/*.md "$OUT"/*.png
    [ -s "$OUT/overlap.csv" ] && overlap_data
    pcg_data
    noise_data
    peers_data
    if ensure_gnuplot; then
        log "(f) plots: gnuplot bench/report/plots.gp"
        gnuplot -e "dir='$OUT'" "$REPO/bench/report/plots.gp" > "$OUT/logs/gnuplot.log" 2>&1 ||
            log "(f) gnuplot reported errors (see logs/gnuplot.log)"
    else
        skip "(f) plots: gnuplot not installed and apt-get install gnuplot-nox failed (see logs/apt.log)"
    fi
    part_time f "$t0"
    summary
}

# ---------------------------------------------------------------- main
main() {
    local measure=0
    for p in a b c d e; do part_on "$p" && measure=1; done
    log "output: $OUT; parts: $PARTS$([ "$QUICK" = 1 ] && echo ' (quick)')"
    if [ "$measure" = 1 ]; then   # a plots-only run (-p f) keeps the facts of the measuring run
        rm -f "$OUT/warnings.txt" "$OUT/trimmed.txt" "$OUT/skipped.txt" "$OUT/timing.txt"
        machine_facts
        check_load "at the start"
        build
    fi
    part_on a && part_a
    part_on b && part_b
    part_on c && part_c
    part_on d && part_d
    part_on e && part_e
    if [ "$measure" = 1 ]; then
        echo "load at end: $(cut -d' ' -f1-3 /proc/loadavg)" >> "$OUT/machine.txt"
        check_load "at the end"
        echo "total $(( $(date +%s) - T_START )) s" >> "$OUT/timing.txt"
    fi
    part_on f && part_f
    log "done in $(( $(date +%s) - T_START )) s: $OUT (summary.md, *.csv, *.png)"
    ls "$OUT"/*.png 2>/dev/null | sed 's/^/  /'
}
# one line: bash has read the whole file before main runs, so editing the
# script during a run cannot derail it
main; exit

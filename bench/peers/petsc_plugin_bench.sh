#!/usr/bin/env bash
# petsc_plugin_bench.sh -- KSP type ovkrylov (libovkrylov_petsc) inside an unchanged PETSc
# program, peers/petsc_mtx loaded with -dll_append, against ovk_mtx_solve on the same matrix and
# options and against PETSc's own KSPs, in one interleaved run (docs/performance.md, section 13).
#
# Usage: bench/peers/petsc_plugin_bench.sh -f FILE.mtx [options]
#   -b DIR      build dir with the plug-in and the peers (default: the repository's build/,
#               configured with -DOVK_BUILD_PEERS=ON and built with the target ovk_peers):
#               DIR/petsc/libovkrylov_petsc.so, DIR/examples/ovk_mtx_solve,
#               DIR/bench/peers/petsc_mtx, DIR/bench/peers/libovk_delay_pmpi.so
#   -np N       MPI ranks (default 2)
#   -r R        rounds (default 3): every case once per round, in the same order; medians
#   -lat US     the modelled reduction latency of section B (default 250): PETSc's reductions
#               held by LD_PRELOAD=libovk_delay_pmpi.so OVK_PMPI_DELAY_US=US, ours by
#               OVK_LATENCY_MODEL=alpha=US (the same model, docs/latency-model.md)
#   -maxit N    iteration cap (default 10000); time per iteration is compared, a capped run counts
#   -sections S letters of ABC (default ABC)
#
# b random (SplitMix64 of the global row, the same in both programs), x0 = 0, rtol 1e-8 on
# ||b - A x|| / ||b|| (petsc_mtx sets KSP_NORM_UNPRECONDITIONED).
#   A  0 us: the plug-in with ovkrylov's matrix and preconditioner (-ksp_ovkrylov_precond jacobi)
#      against ovk_mtx_solve, alg1 (blocking) and plcg:l=3 (nbc) (target: ratio <= 1.05).
#      Both from the same points: ovkrylov's solve timer (ovk_mtx_solve's `Solve Time`; in the
#      plug-in the same timer, read from -ksp_ovkrylov_log_view's "solve (all parts)", max over
#      ranks): the iterations, from x0 = 0 to the last check.  Neither includes ovk_solver_solve's
#      entry (its agreement on what changed, the finiteness checks of b and x0, the timers'
#      reduction).  petsc_mtx's `Solve Time`, the whole KSPSolve (those, plus the plug-in's
#      KSPSolve: ||b||, wrapping b and x, the check for a changed operator), is printed beside
#      it, with the mean excess in us per solve.
#   B  -lat us: the plug-in's plcg:l=3 on nbc with PETSc's jacobi (the KSP's PC, as callback)
#      and with ovkrylov's (-ksp_ovkrylov_precond jacobi: the same preconditioner, its kernel)
#      against KSPPIPECG (target <= 0.5) and KSPPIPELCG with -ksp_pipelcg_pipel 3 (<= 0.6),
#      PETSc's jacobi (KSPPIPELCG takes only the natural norm: it runs with
#      -ksp_norm_type natural, so its stopping point differs; per iteration compares)
#   C  0 us: the plug-in's alg1 with PETSc's gamg through the callback against KSPCG + gamg
#      (iterations equal, time per iteration <= 1.05)
# Prints one markdown table: median iterations, solve time and us per iteration per case (and for
# the plug-in's A cases the whole KSPSolve), and the ratios of the targets; the load before and after.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
B=$here/../../build F="" NP=2 R=3 LAT=250 MAXIT=10000 SECTIONS=ABC
while [ $# -gt 0 ]; do
  case $1 in
    -b) B=$2; shift 2 ;; -f) F=$2; shift 2 ;; -np) NP=$2; shift 2 ;; -r) R=$2; shift 2 ;;
    -lat) LAT=$2; shift 2 ;; -maxit) MAXIT=$2; shift 2 ;; -sections) SECTIONS=$2; shift 2 ;;
    *) echo "petsc_plugin_bench.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
[ -n "$F" ] || { echo "petsc_plugin_bench.sh: -f FILE.mtx is required" >&2; exit 2; }
PLUG=$B/petsc/libovkrylov_petsc.so OVK=$B/examples/ovk_mtx_solve
PEER=$B/bench/peers/petsc_mtx DELAY=$B/bench/peers/libovk_delay_pmpi.so
for f in "$PLUG" "$OVK" "$PEER" "$DELAY"; do
  [ -e "$f" ] || { echo "petsc_plugin_bench.sh: $f missing (cmake -DOVK_BUILD_PEERS=ON; build ovk_peers)" >&2; exit 2; }
done
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1
MPI=(mpiexec -n "$NP" --oversubscribe)
LATENV=(-x LD_PRELOAD="$DELAY" -x OVK_PMPI_DELAY_US="$LAT" -x OVK_LATENCY_MODEL="alpha=$LAT")
COMMON=(-f "$F" -rhs random -maxit "$MAXIT")
PETSC=("$PEER" "${COMMON[@]}" -dll_append "$PLUG")
OVKPC=(-ksp_type ovkrylov -ksp_ovkrylov_precond jacobi -ksp_ovkrylov_log_view 1)

# case id | section | command (words of an array literal)
declare -A CMD SEC
add() { SEC[$1]=$2; CMD[$1]=$3; ORDER+=("$1"); }
ORDER=()
add ours_alg1 A '"${MPI[@]}" "$OVK" "${COMMON[@]}" -solver alg1 -precond jacobi'
add plugin_alg1 A '"${MPI[@]}" "${PETSC[@]}" "${OVKPC[@]}" -ksp_ovkrylov_solver alg1'
add ours_plcg3 A '"${MPI[@]}" "$OVK" "${COMMON[@]}" -solver plcg:l=3 -backend nbc -precond jacobi'
add plugin_plcg3 A '"${MPI[@]}" "${PETSC[@]}" "${OVKPC[@]}" -ksp_ovkrylov_solver plcg:l=3 -ksp_ovkrylov_backend nbc'
add plugin_plcg3_lat B '"${MPI[@]}" "${LATENV[@]}" "${PETSC[@]}" -ksp_type ovkrylov -ksp_ovkrylov_solver plcg:l=3 -ksp_ovkrylov_backend nbc -pc_type jacobi'
add plugin_plcg3_ovkpc_lat B '"${MPI[@]}" "${LATENV[@]}" "${PETSC[@]}" -ksp_type ovkrylov -ksp_ovkrylov_solver plcg:l=3 -ksp_ovkrylov_backend nbc -ksp_ovkrylov_precond jacobi'
add petsc_pipecg_lat B '"${MPI[@]}" "${LATENV[@]}" "${PETSC[@]}" -ksp_type pipecg -pc_type jacobi'
add petsc_pipelcg3_lat B '"${MPI[@]}" "${LATENV[@]}" "${PETSC[@]}" -ksp_type pipelcg -ksp_pipelcg_pipel 3 -ksp_norm_type natural -pc_type jacobi'
add plugin_alg1_gamg C '"${MPI[@]}" "${PETSC[@]}" -ksp_type ovkrylov -ksp_ovkrylov_solver alg1 -pc_type gamg'
add petsc_cg_gamg C '"${MPI[@]}" "${PETSC[@]}" -ksp_type cg -pc_type gamg'

LOG=$(mktemp -d)
echo "# petsc_plugin_bench.sh -f $F -np $NP -r $R -lat $LAT -maxit $MAXIT; $(getconf _NPROCESSORS_ONLN) cores; load before: $(cut -d' ' -f1-3 /proc/loadavg)"
for ((round = 1; round <= R; round++)); do
  for id in "${ORDER[@]}"; do
    [[ $SECTIONS == *${SEC[$id]}* ]] || continue
    # a capped run exits nonzero and still counts; one without the driver lines failed
    eval "${CMD[$id]}" > "$LOG/$id.$round" 2>&1 || true
    grep -q '^Solve Time = ' "$LOG/$id.$round" ||
      echo "# $id round $round failed: $(grep -m2 'ERROR: [A-Z]' "$LOG/$id.$round" | tr '\n' ' ')"
  done
done
median() { sort -g | awk '{v[NR] = $1} END {if (!NR) print "nan"; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
# the solve time of case $1 in round $2: ovkrylov's solve timer where the run printed its log
# view (the plug-in's A cases), else the driver's `Solve Time`
solve_of() {
  local f=$LOG/$1.$2 v
  v=$(awk '$1 == "solve" && $2 == "(all" {print $5; exit}' "$f")
  [ -n "$v" ] || v=$(sed -n 's/^Solve Time = \([^ ]*\).*/\1/p' "$f" | head -1)
  echo "$v"
}
# us per iteration of case $1 in round $2 (empty when the run failed)
tpi_of() {
  local f=$LOG/$1.$2 i s
  grep -q '^Solve Time = ' "$f" || return 0
  i=$(sed -n 's/^Iterations = //p' "$f" | head -1) s=$(solve_of "$1" "$2")
  [ -n "$i" ] && [ -n "$s" ] && awk -v s="$s" -v i="$i" 'BEGIN {printf "%.3f", i ? 1e6 * s / i : 0}'
}
# us per iteration of case $1 in round $2 with the driver's setup counted in (setup + solve) / its
tot_of() {
  local f=$LOG/$1.$2 i s u
  grep -q '^Solve Time = ' "$f" || return 0
  i=$(sed -n 's/^Iterations = //p' "$f" | head -1) s=$(sed -n 's/^Solve Time = \([^ ]*\).*/\1/p' "$f" | head -1)
  u=$(sed -n 's/^Setup Time = \([^ ]*\).*/\1/p' "$f" | head -1)
  [ -n "$i" ] && [ -n "$s" ] && [ -n "$u" ] && awk -v s="$s" -v u="$u" -v i="$i" 'BEGIN {printf "%.3f", i ? 1e6 * (s + u) / i : 0}'
}
declare -A IT TPI SOL WHOLE SET
echo
echo "| case | iterations | setup s | solve s | us per iteration | whole KSPSolve s (excess us) |"
echo "|---|---:|---:|---:|---:|---:|"
for id in "${ORDER[@]}"; do
  [[ $SECTIONS == *${SEC[$id]}* ]] || continue
  its="" sols="" tpis="" wholes="" excess="" sets=""
  for ((round = 1; round <= R; round++)); do
    f=$LOG/$id.$round t=$(tpi_of "$id" "$round")
    [ -n "$t" ] || continue
    s=$(solve_of "$id" "$round") w=$(sed -n 's/^Solve Time = \([^ ]*\).*/\1/p' "$f" | head -1)
    its+="$(sed -n 's/^Iterations = //p' "$f" | head -1) " sols+="$s " tpis+="$t "
    sets+="$(sed -n 's/^Setup Time = \([^ ]*\).*/\1/p' "$f" | head -1) "
    if [ "$s" != "$w" ] && grep -q 'ovk log_view' "$f"; then
      wholes+="$w " excess+="$(awk -v w="$w" -v s="$s" 'BEGIN {printf "%.1f", 1e6 * (w - s)}') "
    fi
  done
  IT[$id]=$(echo $its | tr ' ' '\n' | median) SOL[$id]=$(echo $sols | tr ' ' '\n' | median)
  TPI[$id]=$(echo $tpis | tr ' ' '\n' | median) WHOLE[$id]="-" SET[$id]=$(echo $sets | tr ' ' '\n' | median)
  [ -n "$wholes" ] && WHOLE[$id]="$(echo $wholes | tr ' ' '\n' | median) ($(echo $excess | tr ' ' '\n' | median))"
  echo "| $id (${SEC[$id]}) | ${IT[$id]} | ${SET[$id]} | ${SOL[$id]} | ${TPI[$id]} | ${WHOLE[$id]} |"
done
# the rounds' paired ratios of case $2 over case $3, each round's figure from function $1
pairs_of() {
  local r a b pairs=""
  for ((r = 1; r <= R; r++)); do
    a=$($1 "$2" "$r") b=$($1 "$3" "$r")
    [ -n "$a" ] && [ -n "$b" ] && pairs+="$(awk -v a="$a" -v b="$b" 'BEGIN {printf "%.3f", a / b}') "
  done
  echo $pairs
}
# the ratio of the medians of us per iteration, and the range of the rounds' paired ratios
ratio() {
  awk -v a="${TPI[$1]:-nan}" -v b="${TPI[$2]:-nan}" 'BEGIN {if (b + 0 > 0) printf "%.3f", a / b; else printf "nan"}'
  pairs_of tpi_of "$1" "$2" | tr ' ' '\n' | sort -g | awk 'NR == 1 {lo = $1} {hi = $1} END {if (NR) printf " (rounds %s-%s)", lo, hi}'
}
# the same with setup counted in: the median of the rounds' paired ratios
ratio_tot() { pairs_of tot_of "$1" "$2" | tr ' ' '\n' | median; }
echo
[[ $SECTIONS == *A* ]] && echo "A: plugin / ovk_mtx_solve per iteration: alg1 $(ratio plugin_alg1 ours_alg1), plcg:l=3 $(ratio plugin_plcg3 ours_plcg3) (target <= 1.05)"
[[ $SECTIONS == *B* ]] && echo "B: at $LAT us, plugin plcg:l=3 nbc / KSPPIPECG $(ratio plugin_plcg3_lat petsc_pipecg_lat) (target <= 0.5), / KSPPIPELCG(l=3) $(ratio plugin_plcg3_lat petsc_pipelcg3_lat) (<= 0.6)" &&
  echo "B with ovkrylov's jacobi (-ksp_ovkrylov_precond jacobi, the same preconditioner) / KSPPIPECG $(ratio plugin_plcg3_ovkpc_lat petsc_pipecg_lat), / KSPPIPELCG(l=3) $(ratio plugin_plcg3_ovkpc_lat petsc_pipelcg3_lat)" &&
  echo "B with each program's setup counted in, (setup + solve) / iterations: / KSPPIPECG $(ratio_tot plugin_plcg3_lat petsc_pipecg_lat), / KSPPIPELCG(l=3) $(ratio_tot plugin_plcg3_lat petsc_pipelcg3_lat)"
[[ $SECTIONS == *C* ]] && echo "C: gamg through the callback: iterations ${IT[plugin_alg1_gamg]:-nan} vs KSPCG ${IT[petsc_cg_gamg]:-nan}; per iteration $(ratio plugin_alg1_gamg petsc_cg_gamg) (target <= 1.05)"
echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg); raw outputs in $LOG"

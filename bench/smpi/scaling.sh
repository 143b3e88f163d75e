#!/usr/bin/env bash
# The simulated scaling study of docs/scaling.md.
#   bench/smpi/scaling.sh [OUTDIR]
# Needs a real build with the benchmarks (REAL_BUILD, default build: its
# bench/ovk_smpi_bench measures the compute costs on one real rank) and a
# simulated one (SMPI_BUILD, default build-smpi: cmake -DOVK_SIMULATE=ON).
# Environment (defaults in brackets):
#   PLATFORM   platform file [bench/smpi/platforms/fattree-pcg-overlap-256.xml]
#   RANKS      simulated rank counts ["16 64 256"]
#   SOLVERS    ["alg1 pipecg pipeprcg plcg:l=2 plcg:l=3 plcg:l=4"]; an item
#              solver/backend (e.g. plcg:l=3/nbc) runs on that backend only.
#              sgmres* and scg* run one untimed solve of MAXIT iterations
#              first (-warmup: their first solve's estimate, kept)
#   BACKENDS   ["blocking nbc"]   (native: SMPI's MPI_Iallreduce, see docs/scaling.md)
#   STUDIES    ["strong weak"]    strong: 40 x 40 x 160 rows in all (1000 per rank
#              at 256 ranks); weak: 20^3 = 8000 rows per rank
#   MAXIT      iterations timed per run [30] (time per iteration; no convergence needed)
#   LIMIT      wall-time bound of one simulation, seconds [900]
#   REPS       real runs per calibration, the least of each cost kept [5]
#   JOBS       simulations run at once [1]: every calibration (real runs on
#              this host) is done first, alone; the simulations after it
#              charge those fixed costs, so running them side by side does
#              not change their results, only their wall times
# Writes OUTDIR/results.txt (one SMPI_RESULT line per run, with its wall
# time), OUTDIR/costs.txt (the calibration) and OUTDIR/tables.md.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-$root/build-smpi/scaling}
real=${REAL_BUILD:-$root/build}/bench/ovk_smpi_bench
sim=${SMPI_BUILD:-$root/build-smpi}/bench/ovk_smpi_bench
platform=${PLATFORM:-$root/bench/smpi/platforms/fattree-pcg-overlap-256.xml}
ranks=${RANKS:-16 64 256}
solvers=${SOLVERS:-alg1 pipecg pipeprcg plcg:l=2 plcg:l=3 plcg:l=4}
backends=${BACKENDS:-blocking nbc}
studies=${STUDIES:-strong weak}
maxit=${MAXIT:-30}
limit=${LIMIT:-900}
source "$root/bench/smpi/settings.sh"
for exe in "$real" "$sim"; do
  [ -x "$exe" ] || { echo "scaling.sh: $exe not built (see the header)" >&2; exit 1; }
done
mkdir -p "$out"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1

# The process grid of NP ranks and the local box of a study: prints "px py pz nx ny nz".
grid() {
  local np=$1 study=$2 px py pz
  case $np in
    16) px=2 py=2 pz=4 ;; 32) px=2 py=4 pz=4 ;; 64) px=4 py=4 pz=4 ;;
    128) px=4 py=4 pz=8 ;; 256) px=8 py=8 pz=4 ;; 512) px=8 py=8 pz=8 ;; 1024) px=8 py=8 pz=16 ;;
    *) echo "scaling.sh: no grid for $np ranks" >&2; return 1 ;;
  esac
  if [ "$study" = strong ]; then
    echo $px $py $pz $((40 / px)) $((40 / py)) $((160 / pz))
  else
    echo $px $py $pz 20 20 20
  fi
}

# Compute costs per iteration of SOLVER at a local box, from one real rank:
# per column, the minimum of 5 runs of "matvec_us pc_us rest_us" (each after a
# warm-up solve): the cost of the work without the preemptions of a shared host.
declare -A cost
calibrate() {
  local solver=$1 nx=$2 ny=$3 nz=$4 key="$1 $2 $3 $4"
  [ -n "${cost[$key]:-}" ] && return 0
  local runs=()
  for rep in $(seq 1 "${REPS:-5}"); do
    runs+=("$(mpiexec -n 1 "$real" -n $nx $ny $nz -P 1 1 1 -solver $solver -maxit 200 -tol 1e-7 -calibrate 2>/dev/null |
      sed -n 's/.*matvec_us=\([^ ]*\) pc_us=\([^ ]*\) rest_us=\([^ ]*\).*/\1 \2 \3/p')")
  done
  local med=() col
  for col in 1 2 3; do # the minimum of each column
    med+=("$(printf '%s\n' "${runs[@]}" | awk -v c=$col 'NF == 3 { print $c }' | sort -g | head -1)")
  done
  cost[$key]="${med[*]}"
  echo "$key $(tr ' ' '\n' <<<"${cost[$key]}" | paste -sd' ')" >>"$out/costs.txt"
}

: >"$out/costs.txt"
: >"$out/results.txt"
echo "# $(date -u +%FT%TZ) $(uptime)" >>"$out/results.txt"
jobs=$out/jobs.txt
: >"$jobs"
# Phase 1, alone on the host: every calibration, and the list of simulations.
n=0
for study in $studies; do
  for np in $ranks; do
    read -r px py pz nx ny nz <<<"$(grid $np $study)" || exit 1
    nlocal=$((nx * ny * nz))
    every=$(( (nlocal + 3) / 4 )) # four progress calls per kernel (docs/scaling.md)
    # the matvec and the preconditioner are the same work whatever the solver:
    # their cost is the least any solver's calibration measured
    mv="" pc=""
    for item in $solvers; do
      solver=${item%%/*}
      calibrate $solver $nx $ny $nz
      read -r m p r <<<"${cost["$solver $nx $ny $nz"]}"
      mv=$(printf '%s\n' $mv $m | sort -g | head -1) pc=$(printf '%s\n' $pc $p | sort -g | head -1)
    done
    for item in $solvers; do
      solver=${item%%/*} pinned=$backends
      [ "$item" != "$solver" ] && pinned=${item#*/}
      read -r m p r <<<"${cost["$solver $nx $ny $nz"]}"
      charge="$mv $pc $r"
      echo "charged $solver $nx $ny $nz: $charge" >>"$out/costs.txt"
      for backend in $pinned; do
        n=$((n + 1))
        echo "$n $study $np $solver $backend $nlocal $every $px $py $pz $nx $ny $nz $charge" >>"$jobs"
      done
    done
  done
done

# Phase 2: the simulations, JOBS at a time, each result in its own file.
simulate() { # one line of jobs.txt
  local k study np solver backend nlocal every px py pz nx ny nz c1 c2 c3 start line wall
  read -r k study np solver backend nlocal every px py pz nx ny nz c1 c2 c3 <<<"$1"
  local warm=0
  case $solver in sgmres* | scg*) warm=$maxit ;; esac # their first solve's estimate, untimed
  start=$(date +%s.%N)
  line=$(ovk_smpi_run "$limit" $np "$platform" "$sim" -n $nx $ny $nz -P $px $py $pz -solver $solver \
         -backend $backend -maxit $maxit -tol 1e-30 -progress $every -warmup $warm -cost $c1 $c2 $c3 | grep '^SMPI_RESULT')
  wall=$(echo "$(date +%s.%N) - $start" | bc)
  [ -n "$line" ] || line="SMPI_RESULT solver=$solver backend=$backend ranks=$np nlocal=$nlocal FAILED"
  printf '%s study=%s wall_s=%.1f\n' "$line" $study "$wall" | tee "$out/job.$k"
}
export -f simulate ovk_smpi_run
export limit platform sim maxit out
export OVK_SMPI_CFG_TEXT="${OVK_SMPI_CFG[*]}"
xargs -P "${JOBS:-1}" -d '\n' -I{} bash -c 'OVK_SMPI_CFG=($OVK_SMPI_CFG_TEXT); simulate "$1"' _ {} <"$jobs"
for k in $(seq 1 "$n"); do cat "$out/job.$k" >>"$out/results.txt" && rm -f "$out/job.$k"; done
bash "$root/bench/smpi/tables.sh" "$out/results.txt" >"$out/tables.md"
echo "tables: $out/tables.md"

#!/usr/bin/env bash
# The Python layer's overhead (bench/systems/python_overhead.py), at NP ranks, each
# pair interleaved REPEATS times, medians:
#  1. the C driver (ovk_laplace27 -n N N N) and the same solve from Python:
#     Solve Time (the library's timer) and the Python call's wall time; then
#     the package's own cost per solve() and per solve_many() of 8, measured
#     directly (300 calls on a tiny matrix: wall time minus the library's);
#  2. solve_many of 8 systems: the C driver's -nrhs 8 and Solver.solve_many of
#     the same 8 right-hand sides (wall time of the call on both sides);
#  3. the heat loop (python/examples/heat.py -m HEAT_M, HEAT_STEPS steps, amg):
#     update_values + amg's reuse against a new Matrix and Solver every step;
#  4. a matrix-free Python operator's cost per call (one rank).
# Not a test.
# usage: bench/systems/python_overhead.sh [BUILD_DIR [N [NP [REPEATS]]]]   (build 40 2 7)
#        environment: HEAT_M (32), HEAT_STEPS (10)
set -euo pipefail
build=${1:-build} n=${2:-40} np=${3:-2} reps=${4:-7}
src=$(cd "$(dirname "$0")/../.." && pwd)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1
export PYTHONPATH="$build/python"
py=${PYTHON:-/usr/bin/python3}
c_times=() py_times=() py_walls=()
for ((i = 0; i < reps; i++)); do
  out=$(mpiexec -n "$np" "$build/examples/ovk_laplace27" -n "$n" "$n" "$n" </dev/null)
  c_times+=("$(sed -n 's/^Solve Time = \([0-9.e+-]*\) s$/\1/p' <<<"$out")")
  c_its=$(sed -n 's/^Iterations = //p' <<<"$out")
  out=$(mpiexec -n "$np" "$py" "$src/bench/systems/python_overhead.py" solve "$n" </dev/null)
  py_times+=("$(sed -n 's/^Solve Time = \([0-9.e+-]*\) s$/\1/p' <<<"$out")")
  py_walls+=("$(sed -n 's/^Python Time = \([0-9.e+-]*\) s$/\1/p' <<<"$out")")
  py_its=$(sed -n 's/^Iterations = //p' <<<"$out")
  echo "repeat $i: C ${c_times[-1]} s ($c_its it)  Python ${py_times[-1]} s, call ${py_walls[-1]} s ($py_its it)"
done
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR] = $1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }
mc=$(median "${c_times[@]}") mp=$(median "${py_times[@]}") mw=$(median "${py_walls[@]}")
echo "median Solve Time: C driver $mc s, Python $mp s (library timer), Python call $mw s (wall)"
awk -v c="$mc" -v p="$mp" -v w="$mw" 'BEGIN { printf "Python / C: %.3f (library timer), %.3f (wall time of the call)\n", p / c, w / c }'
over=(); for ((i = 0; i < reps; i++)); do over+=("$(awk -v p="${py_times[i]}" -v w="${py_walls[i]}" 'BEGIN { print w - p }')"); done
echo "median of (Python call - its Solve Time): $(median "${over[@]}") s (the package's own cost per solve)"
echo "machine: $(env -u OMP_NUM_THREADS nproc) cores, $(uname -m), load $(cut -d' ' -f1-3 /proc/loadavg) (shared: other jobs run)"
mpiexec -n "$np" "$py" "$src/bench/systems/python_overhead.py" cost </dev/null
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", a / b }'; }
c_many=() py_many=()
for ((i = 0; i < reps; i++)); do
  out=$(mpiexec -n "$np" "$build/examples/ovk_laplace27" -n "$n" "$n" "$n" -nrhs 8 </dev/null)
  c_many+=("$(sed -n 's/^Solve Time = \([0-9.e+-]*\) s$/\1/p' <<<"$out")")
  c_it=$(sed -n 's/^Iterations = //p' <<<"$out")
  out=$(mpiexec -n "$np" "$py" "$src/bench/systems/python_overhead.py" many "$n" 8 </dev/null)
  py_many+=("$(sed -n 's/^Solve Time = \([0-9.e+-]*\) s$/\1/p' <<<"$out")")
  py_it=$(sed -n 's/^Iterations = //p' <<<"$out")
  echo "solve_many repeat $i: C -nrhs 8 ${c_many[-1]} s ($c_it it)  Python solve_many ${py_many[-1]} s ($py_it it)"
done
mc=$(median "${c_many[@]}") mp=$(median "${py_many[@]}")
echo "median solve_many of 8: C driver $mc s, Python $mp s: Python / C $(ratio "$mp" "$mc")"
hm=${HEAT_M:-32} hs=${HEAT_STEPS:-10}
reuse=() rebuild=()
for ((i = 0; i < reps; i++)); do
  out=$(mpiexec -n "$np" "$py" "$src/python/examples/heat.py" -m "$hm" --steps "$hs" --mode reuse </dev/null)
  reuse+=("$(sed -n 's/^Loop Time = \([0-9.e+-]*\) s$/\1/p' <<<"$out")")
  it_a=$(sed -n 's/^Iterations = //p' <<<"$out")
  out=$(mpiexec -n "$np" "$py" "$src/python/examples/heat.py" -m "$hm" --steps "$hs" --mode rebuild </dev/null)
  rebuild+=("$(sed -n 's/^Loop Time = \([0-9.e+-]*\) s$/\1/p' <<<"$out")")
  it_b=$(sed -n 's/^Iterations = //p' <<<"$out")
  echo "heat repeat $i: update_values + amg reuse ${reuse[-1]} s ($it_a it)  rebuild ${rebuild[-1]} s ($it_b it)"
done
ma=$(median "${reuse[@]}") mb=$(median "${rebuild[@]}")
echo "median heat loop (-m $hm, $hs steps): reuse $ma s, rebuild $mb s: reuse / rebuild $(ratio "$ma" "$mb")"
echo "machine: load $(cut -d' ' -f1-3 /proc/loadavg)"
mpiexec -n 1 "$py" "$src/bench/systems/python_overhead.py" operator 1000 </dev/null
mpiexec -n 1 "$py" "$src/bench/systems/python_overhead.py" operator 64000 </dev/null

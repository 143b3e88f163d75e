#!/usr/bin/env bash
# The Python layer's overhead (bench/python_overhead.py): the C driver
# (ovk_laplace27 -n N N N) and the same solve from Python at NP ranks,
# interleaved, REPEATS times each; medians of Solve Time (the library's
# timer) and of the Python call's wall time.  Then a matrix-free Python
# operator's cost per call (one rank).  Not a test.
# usage: bench/python_overhead.sh [BUILD_DIR [N [NP [REPEATS]]]]   (build 40 2 7)
set -euo pipefail
build=${1:-build} n=${2:-40} np=${3:-2} reps=${4:-7}
src=$(cd "$(dirname "$0")/.." && pwd)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1
export PYTHONPATH="$build/python"
py=${PYTHON:-/usr/bin/python3}
c_times=() py_times=() py_walls=()
for ((i = 0; i < reps; i++)); do
  out=$(mpiexec -n "$np" "$build/examples/ovk_laplace27" -n "$n" "$n" "$n" </dev/null)
  c_times+=("$(sed -n 's/^Solve Time = \([0-9.e+-]*\) s$/\1/p' <<<"$out")")
  c_its=$(sed -n 's/^Iterations = //p' <<<"$out")
  out=$(mpiexec -n "$np" "$py" "$src/bench/python_overhead.py" solve "$n" </dev/null)
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
mpiexec -n 1 "$py" "$src/bench/python_overhead.py" operator 1000 </dev/null
mpiexec -n 1 "$py" "$src/bench/python_overhead.py" operator 64000 </dev/null

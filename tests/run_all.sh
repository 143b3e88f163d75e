#!/usr/bin/env bash
# The whole test suite: a release build under ctest, then the same suite
# rebuilt with AddressSanitizer + UndefinedBehaviorSanitizer.
set -euo pipefail
cd "$(dirname "$0")/.."
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1
jobs=$(env -u OMP_NUM_THREADS -u OMP_THREAD_LIMIT nproc) # GNU nproc answers OMP_NUM_THREADS

# Every ctest pass through run_ctest BUILD_DIR [ARGS]: its output also goes to a log, from
# which the end of this script counts the tests that were skipped (exit code 77: each
# prints why), so that a run that skipped some never reads as everything passed.
logs=$(mktemp -d)
run_ctest() {
  local dir=$1
  shift
  (cd "$dir" && ctest "$@" 2>&1) | tee "$logs/$(basename "$dir").log"
}
report_skipped() {
  local skipped="" log
  for log in "$logs"/*.log; do
    [ -e "$log" ] || continue
    skipped+=$(sed -n -E "s/^[[:space:]]*[0-9]+ - (.*) \(Skipped\)\$/$(basename "$log" .log): \1/p" "$log")$'\n'
  done
  skipped=$(grep -v '^$' <<<"$skipped" || true)
  if [ -n "$skipped" ]; then
    echo "run_all: $(wc -l <<<"$skipped") tests skipped (each prints why: BUILD/Testing/Temporary/LastTest.log):"
    sed 's/^/  /' <<<"$skipped"
  else
    echo "run_all: 0 tests skipped"
  fi
  # the closing tally over every ctest pass (ctest counts a skipped test among the passed)
  local total=0 failed=0 nskip n f
  nskip=$(grep -c . <<<"$skipped" || true)
  for log in "$logs"/*.log; do
    [ -e "$log" ] || continue
    read -r f n < <(sed -n -E 's/^.* ([0-9]+) tests failed out of ([0-9]+)$/\1 \2/p' "$log" | tail -1) || continue
    total=$((total + n)) failed=$((failed + f))
  done
  echo "run_all: $((total - failed - nskip)) passed, $failed failed, $nskip skipped"
}
trap 'report_skipped; rm -rf "$logs"' EXIT

cmake -S . -B build-test -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build build-test -j"$jobs"
run_ctest build-test -j"$jobs" --output-on-failure

cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DOVK_SANITIZE=ON -DOVK_BUILD_BENCH=OFF
cmake --build build-asan -j"$jobs"
# The sanitizers look for memory errors and undefined behaviour, which the runs at 1 and 3
# ranks exercise (no message at 1; halos, an odd count and a rank without rows at 3; the
# longest sweeps at 3 only; tests/CMakeLists.txt, OVK_MPI_RANKS_SANITIZE); the runs at 2, 4
# and 5-8 ranks, the checks of text and the drivers' long comparisons run in the release
# build above.
run_ctest build-asan -j"$jobs" --output-on-failure -E '_np4$'

# The Matrix Market reader under libFuzzer (clang) for a bounded time (60 s).
bash tests/fuzz/run.sh

# ---- MPICH --------------------------------------------------------------------
# The release build and its tests once more, against MPICH (Debian's libmpich-dev,
# selected explicitly: the default mpicc, mpiexec and FindMPI stay Open MPI).
# MPICH 4.0's ch4 device busy-polls while it waits and has no setting that makes it
# yield (MPIR_CVAR_POLLS_BEFORE_YIELD is ch3's; MPIR_CVAR_ASYNC_PROGRESS adds a polling
# thread), so with more ranks than cores every reduction waits for a descheduled rank:
# tests run here only at rank counts up to the cores (OVK_MPICH_MAX_RANKS, default
# the core count); the Open MPI runs above cover every rank count.
# (GNU nproc answers OMP_NUM_THREADS, exported above, when it is set.)
cores=$(env -u OMP_NUM_THREADS -u OMP_THREAD_LIMIT nproc)
# The MPI a binary loads, by implementation: Open MPI (libmpi, libmpi_usempif08, ...)
# is "libmpi.so", MPICH (libmpich, libmpichfort) "libmpich.so".
mpi_of() { ldd "$1" | grep -oE 'libmpi[a-z_0-9]*\.so' |
  sed -E 's/^libmpich[a-z_0-9]*\.so$/libmpich.so/; s/^libmpi_[a-z_0-9]*\.so$/libmpi.so/' | sort -u | paste -sd' ' -; }
expect_mpi() { # BINARY LIB "what": BINARY loads LIB and no other MPI library
  [ "$(mpi_of "$1")" = "$2" ] || { echo "$3: $1 loads '$(mpi_of "$1")', not $2 only" >&2; exit 1; }
}
expect_mpi build-test/tests/mpi_test_pcg libmpi.so \
  "the default MPI (mpicc, FindMPI) must stay Open MPI; update-alternatives --auto mpi restores it"
grep -q "Open MPI\|OpenRTE" <<<"$(mpiexec --version 2>&1)" ||
  { echo "the default mpiexec is not Open MPI; update-alternatives --auto mpirun restores it" >&2; exit 1; }

# docs/install.md's MPICH command, Fortran included: CMake takes the Fortran MPI from
# mpicc.mpich's sibling (mpifort.mpich), so the module loads MPICH only.
cmake -S . -B build-mpich -DCMAKE_BUILD_TYPE=RelWithDebInfo -DOVK_BUILD_FORTRAN=ON \
  -DMPI_C_COMPILER="$(command -v mpicc.mpich)" -DMPIEXEC_EXECUTABLE="$(command -v mpiexec.mpich)"
cmake --build build-mpich -j"$jobs"
for bin in tests/mpi_test_pcg examples/ovk_laplace27 libovkrylov_fortran.so examples/ovk_laplace27_f \
           tests/ftest_fortran; do
  expect_mpi "build-mpich/$bin" libmpich.so "the MPICH build"
done
max_np=${OVK_MPICH_MAX_RANKS:-$cores}
over=$(cd build-mpich && ctest -N | sed -n 's/.*_np\([0-9][0-9]*\)$/\1/p' | sort -un |
       awk -v m="$max_np" '$1 > m' | paste -sd'|' -)
echo "MPICH: tests at up to $max_np ranks${over:+ (not run here: ${over//|/, } ranks)}"
# The longest solver sweeps (every shared matrix with every variant; the scales) are not
# run here at 1 rank: one process sends no message, so they would repeat the Open MPI
# release pass's 1-rank runs of the same code; MPICH runs them at 2 ranks, and every other
# program at every rank count up to the cores.
sweeps="mpi_test_(matrices|accuracy|pipelines|nonsymmetric|solve_many|hardening3)_np1"
skip="$sweeps\$${over:+|_np($over)\$}"
# ctest's outside_project installs build-mpich into a scratch prefix and builds and runs
# the C and Fortran outside programs against it (CMake package, plain cc + pkg-config
# with ovkrylov.pc's mpich module, mpifort.mpich + ovkrylov-fortran.pc), each checked
# with ldd to load MPICH only (tests/outside/run.sh).
grep -q ' outside_project$' <<<"$(cd build-mpich && ctest -N)" || # (not ctest | grep -q: pipefail)
  { echo "the MPICH build has no outside_project test" >&2; exit 1; }
run_ctest build-mpich -j"$jobs" --output-on-failure -E "$skip"

# ---- SimGrid SMPI -------------------------------------------------------------
# The simulated build (-DOVK_SIMULATE=ON, smpicc; docs/scaling.md): at 64 simulated
# ranks alg1, pipecg and pipeprcg on blocking and nbc take the iterations of the
# same problem on 4 real ranks (build-test's driver under Open MPI's mpiexec), and a
# setup and solve at 256 simulated ranks completes (tests/smpi; ~1-2 min on 2 idle
# cores, the two tests run side by side). Skipped when SimGrid is not installed.
if command -v smpicc >/dev/null 2>&1 && command -v smpirun >/dev/null 2>&1; then
  cmake -S . -B build-smpi -DOVK_SIMULATE=ON -DCMAKE_BUILD_TYPE=Release \
    -DOVK_SMPI_REFERENCE_DRIVER="$PWD/build-test/examples/ovk_laplace27"
  cmake --build build-smpi -j"$jobs"
  run_ctest build-smpi -j"$jobs" --output-on-failure
else
  echo "SMPI: skipped (no smpicc/smpirun: libsimgrid-dev and simgrid are not installed)"
fi

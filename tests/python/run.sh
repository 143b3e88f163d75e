#!/usr/bin/env bash
# The Python package's tests (tests/python/test_*.py, pytest) under mpiexec -n NP,
# after the C driver solved the same problems at NP ranks: the tests compare
# their iterations and residuals with the driver's (the reference file).
# usage: run.sh NP BUILD_DIR SOURCE_DIR PYTHON MPIEXEC "MPIEXEC_PREFLAGS" [sanitize]
# Exit 77 (skipped) with the reason when the Python side cannot run here.
set -u
np=$1 build=$2 src=$3 py=$4 mpiexec=$5 pre=$6 sanitize=${7:-}
if [ -n "$sanitize" ]; then
  echo "skipped: the AddressSanitizer build's library needs libasan preloaded into an uninstrumented" \
       "python3 (and reports the interpreter's own allocations); the release build runs these tests"
  exit 77
fi
if ! "$py" -c 'import mpi4py, numpy, scipy, pytest' 2>/dev/null; then
  echo "skipped: $py lacks mpi4py, numpy, scipy or pytest (Debian: python3-mpi4py python3-numpy" \
       "python3-scipy python3-pytest, which .ci/deps.sh installs)"
  exit 77
fi
# mpi4py and the library must load the same MPI (Debian's mpi4py is built on Open MPI;
# the MPICH build's library would load both into one process).
mpi_of() { ldd "$1" | grep -oE 'libmpi[a-z_0-9]*\.so' |
  sed -E 's/^libmpich[a-z_0-9]*\.so$/libmpich.so/; s/^libmpi_[a-z_0-9]*\.so$/libmpi.so/' | sort -u | paste -sd' ' -; }
mpi4py_so=$("$py" -c 'import mpi4py.MPI as M; print(M.__file__)')
if [ "$(mpi_of "$mpi4py_so")" != "$(mpi_of "$build/libovkrylov.so")" ]; then
  echo "skipped: mpi4py loads $(mpi_of "$mpi4py_so"), this build's library $(mpi_of "$build/libovkrylov.so")"
  exit 77
fi

# ---- the C driver's iterations and residuals (the reference) ---------------
ref=$(mktemp)
trap 'rm -f "$ref"' EXIT
# every solver (jacobi) and every preconditioner (pipeprcg); nbc's sums are the same bits on
# every rank, by construction
cases="alg1 jacobi blocking
alg2 jacobi nbc
overlap jacobi nbc
cg1 jacobi nbc
pipecg jacobi nbc
groppcg jacobi nbc
pipeprcg jacobi nbc
plcg jacobi nbc
pipeprcg none nbc
pipeprcg ic0 nbc
pipeprcg ssor nbc
pipeprcg cheby nbc
pipeprcg amg nbc"
while read -r solver precond backend; do
  out=$("$mpiexec" -n "$np" $pre "$build/examples/ovk_laplace27" -n 8 8 8 -solver "$solver" \
        -precond "$precond" -backend "$backend" 2>&1 </dev/null)
  rc=$?
  its=$(sed -n 's/^Iterations = //p' <<<"$out")
  res=$(sed -n 's/^Final Relative Residual Norm = //p' <<<"$out")
  echo "$solver $precond $backend $rc ${its:--} ${res:--}" >>"$ref"
done <<<"$cases"
echo "the C driver at $np ranks (solver precond backend exit iterations residual):"
cat "$ref"

export PYTHONPATH="$build/python${PYTHONPATH:+:$PYTHONPATH}" OVK_PY_REFERENCE="$ref"
export OVK_MATRIX_DIR="${OVK_MATRIX_DIR:-$src/../shared/data/matrices}"
export PYTHONDONTWRITEBYTECODE=1
unset OVK_OPTIONS OVK_REDUCE_BACKEND
"$mpiexec" -n "$np" $pre "$py" -m pytest -q -p no:cacheprovider --color=no -rs "$src/tests/python"
rc=$?
# objects not closed at exit: no hang (60 s bound), a LeakWarning per object on every rank,
# shown by Python's default warning filters, but for the solver the last rank dropped (released
# by the garbage collector, locally)
out=$(timeout 60 "$mpiexec" -n "$np" $pre "$py" "$src/tests/python/unclosed_at_exit.py" 2>&1 </dev/null)
erc=$?
warned=$(grep -c "LeakWarning: ovkrylov: a .* made at .*unclosed_at_exit.py:[0-9]* .* is not closed and is leaked" <<<"$out")
if [ "$erc" -ne 0 ] || [ "$warned" -ne $((3 * np - 1)) ]; then
  echo "FAIL objects left open at exit: exit $erc, $warned warnings (expected 0 and $((3 * np - 1))):"
  echo "$out"
  rc=1
else
  echo "ok   objects left open at exit: exit 0 at once, $warned LeakWarnings"
fi
# MPI.COMM_NULL on rank 0 only: rank 0's ArgumentError, and `python -m mpi4py` ends the job (60 s bound)
out=$(timeout 60 "$mpiexec" -n "$np" $pre "$py" -m mpi4py "$src/tests/python/comm_null_one_rank.py" 2>&1 </dev/null)
erc=$?
if [ "$erc" -ne 0 ] && [ "$erc" -ne 124 ] && grep -q "ArgumentError: .*COMM_NULL" <<<"$out" &&
   ! grep -q "not reached" <<<"$out"; then
  echo "ok   MPI.COMM_NULL on rank 0: ArgumentError there, the job ended (exit $erc)"
else
  echo "FAIL MPI.COMM_NULL on rank 0: exit $erc (124: the timeout):"; echo "$out"; rc=1
fi
# the installed package (cmake --install into a scratch prefix) loads the installed library
prefix=$(mktemp -d)
trap 'rm -f "$ref"; rm -rf "$prefix"' EXIT
if cmake --install "$build" --prefix "$prefix" >/dev/null; then
  out=$(cd / && env -u OVKRYLOV_LIBRARY PYTHONPATH="$prefix/lib/python3/dist-packages" timeout 60 \
        "$mpiexec" -n "$np" $pre "$py" -c '
import numpy as np, ovkrylov, ovkrylov._lib as L
from mpi4py import MPI
with ovkrylov.Matrix.laplace27(MPI.COMM_WORLD, 4) as A, ovkrylov.Solver(A, from_options=False) as s:
    x, info = s.solve(np.ones(A.nlocal))
lines = MPI.COMM_WORLD.gather("installed %s %s" % (L._library_path(), info.reason))
if lines: print("\n".join(lines))  # rank 0 prints them all, so no two lines interleave' 2>&1 </dev/null)
  if [ "$(grep -c "^installed $prefix/.*/libovkrylov.so.0 converged$" <<<"$out")" -eq "$np" ]; then
    echo "ok   the installed package at $np ranks"
  else
    echo "FAIL the installed package:"; echo "$out"; rc=1
  fi
else
  echo "FAIL cmake --install $build"; rc=1
fi
# pip (offline, --no-build-isolation) into a fresh venv that sees Debian's NumPy and mpi4py, the
# library taken from this build (OVKRYLOV_BUILD_DIR; without it setup.py builds its own with CMake),
# then the poisson example from the venv's interpreter; once (at 1 rank)
if [ "$np" -eq 1 ]; then
  if ! "$py" -c 'import venv, ensurepip, setuptools, wheel' 2>/dev/null || ! "$py" -m pip --version >/dev/null 2>&1; then
    echo "FAIL pip install: $py lacks venv, ensurepip, setuptools or wheel (Debian: python3-venv" \
         "python3-pip python3-setuptools python3-wheel, which .ci/deps.sh installs)"; rc=1
  else
    venv=$(mktemp -d)
    trap 'rm -f "$ref"; rm -rf "$prefix" "$venv"' EXIT
    # the venv without its own pip (ensurepip takes seconds): Debian's pip installs into it (--python)
    if ! out=$("$py" -m venv --without-pip --system-site-packages "$venv" 2>&1 &&
               cd "$src" && OVKRYLOV_BUILD_DIR="$build" "$py" -m pip --python "$venv/bin/python" install \
                 --no-build-isolation --no-index --no-cache-dir . 2>&1); then
      echo "FAIL pip install --no-build-isolation . into a fresh venv:"; echo "$out"; rc=1
    else
      out=$(cd / && env -u PYTHONPATH -u OVKRYLOV_LIBRARY timeout 60 "$mpiexec" -n 2 $pre "$venv/bin/python" \
            -c 'import ovkrylov, ovkrylov._lib as L; from mpi4py import MPI
lines = MPI.COMM_WORLD.gather("version %s %s" % (ovkrylov.__version__, L._library_path()))
if lines: print("\n".join(lines), flush=True)' 2>&1 &&
            cd / && env -u PYTHONPATH -u OVKRYLOV_LIBRARY timeout 60 "$mpiexec" -n 2 $pre "$venv/bin/python" \
            "$src/python/examples/poisson.py" -m 12 2>&1 </dev/null)
      if [ "$(grep -c "^version [0-9.]* $venv/.*/ovkrylov/libovkrylov.so.0$" <<<"$out")" -eq 2 ] &&
         [ "$(grep -cE '^(alg1|pipeprcg) .* relative residual [0-9.]+e-(09|1[0-9])' <<<"$out")" -eq 2 ]; then
        echo "ok   pip install --no-build-isolation . into a fresh venv, import ovkrylov, poisson.py at 2 ranks"
      else
        echo "FAIL the pip-installed package:"; echo "$out"; rc=1
      fi
    fi
  fi
fi
exit $rc

#!/usr/bin/env bash
# many_bench.sh -- ovk_solver_solve_many against single solves and PETSc's
# KSPMatSolve (docs/performance.md, "Many right-hand sides"): k = 8 random
# right-hand sides, 2 ranks, each case one ovk_many_bench run (batch and
# singles interleaved, medians of R rounds) or one petsc_mtx run (medians of
# R repeats); the load (uptime) is printed before each run.
#
# Usage: bench/systems/many_bench.sh [-b BUILD] [-p PEERS] [-r R] [-maxit M] FE.mtx LAP.mtx
#   FE.mtx:  a finite-element matrix (bench/gen/fe_gen.py, e.g. elasticity -h 0.0181)
#   LAP.mtx: the 27-point Laplacian of -n 40 on 2 ranks (bench/gen/laplace_mtx.py 40 40 80)
#   -maxit M caps the FE solves (every system then runs M iterations: the
#   figure is the time per system per iteration); the Laplacian converges.
#   PEERS: bench/peers/build.sh's directory (default /tmp/ovk-peers; skipped
#   when petsc_mtx is not there).
set -eu
BUILD=build
PEERS=/tmp/ovk-peers
R=3
MAXIT=150
while [ $# -gt 0 ]; do
    case "$1" in
        -b) BUILD="$2"; shift 2 ;;
        -p) PEERS="$2"; shift 2 ;;
        -r) R="$2"; shift 2 ;;
        -maxit) MAXIT="$2"; shift 2 ;;
        *) break ;;
    esac
done
[ $# -eq 2 ] || { sed -n 2,16p "$0"; exit 2; }
FE="$1"
LAP="$2"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1
MPI="mpiexec --oversubscribe -n 2"
echo "commit $(git rev-parse --short HEAD 2>/dev/null || echo '?'); $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-), $(nproc) cores"
run() {
    echo
    echo "## $*"
    echo "load: $(uptime)"
    $MPI "$@" 2>&1 | grep -v '^round '
}
many="$BUILD/bench/ovk_many_bench"
run "$many" -f "$FE" -k 8 -rounds "$R" -solver alg1 -maxit "$MAXIT"
[ -x "$PEERS/petsc_mtx" ] && run "$PEERS/petsc_mtx" -f "$FE" -rhs random -nrhs 8 -repeat "$R" -maxit "$MAXIT"
run "$many" -n 40 -k 8 -rounds "$R" -solver alg1
run "$many" -f "$LAP" -k 8 -rounds "$R" -solver alg1
[ -x "$PEERS/petsc_mtx" ] && run "$PEERS/petsc_mtx" -f "$LAP" -rhs random -nrhs 8 -repeat "$R"
run "$many" -n 20 -k 8 -rounds "$R" -solver pipecg -backend native -latency_us 250
run "$many" -n 20 -k 8 -rounds "$R" -solver pipecg -precond ic0 -backend native -latency_us 250
run "$many" -n 20 -k 8 -rounds "$R" -solver alg1 -backend native -latency_us 250

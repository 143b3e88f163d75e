#!/usr/bin/env bash
# gmres_orth_bench.sh -- the Gram-Schmidt of gmres per iteration, in one interleaved run:
#   0 us, convection-diffusion -n N0 per rank (2 ranks: 2 N0^3 rows), Jacobi: our gmres
#        (orth=dcgs2, the default) and gmres:orth=cgs (one classical pass, the norm after
#        it) against PETSc KSPGMRES (right preconditioning, unpreconditioned norm)
#   0 us, -n NL per rank: gmres and gmres:orth=cgs, the local work w of a step (the
#        latency bound's w in docs/performance.md section 7)
#   LAT us per reduction (ours -latency_us), -n NL per rank, Jacobi: gmres, gmres:orth=cgs,
#        pgmres (l=2, native backend), pgmres with the shifts given (the pipeline only) and
#        pgmres:orth=dcgs2 (each v's second pass inside the pipeline)
# Every case once per repeat, in the same order; medians of the seconds per iteration.
# The load (uptime) before and after the run goes to stderr.
#
# Usage: bench/nonsym/gmres_orth_bench.sh [-b BUILD] [-p PEERS] [-r R] [-n0 N0] [-nl NL] [-lat US]
#   BUILD: ovkrylov's build dir (default build/); PEERS: bench/peers/build.sh's dir
#   (default /tmp/ovk-peers; "" skips PETSc); R repeats (default 3); N0 50, NL 20, US 250
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
B="$here/../../build"; P=/tmp/ovk-peers; R=3; N0=50; NL=20; LAT=250
while [ $# -gt 0 ]; do
    case "$1" in
        -b) B="$2"; shift 2 ;; -p) P="$2"; shift 2 ;; -r) R="$2"; shift 2 ;;
        -n0) N0="$2"; shift 2 ;; -nl) NL="$2"; shift 2 ;; -lat) LAT="$2"; shift 2 ;;
        *) echo "unknown option $1" >&2; exit 2 ;;
    esac
done
export OMP_NUM_THREADS=1
MPI=(mpiexec -n 2)
OURS="$B/examples/ovk_laplace27"
CD=(-problem convdiff -rhs random -tol 1e-8)
declare -a NAMES CMDS
add() { NAMES+=("$1"); shift; CMDS+=("$*"); }
for s in gmres gmres:orth=cgs; do
    add "0us $s" "${MPI[*]} $OURS ${CD[*]} -n $N0 $N0 $N0 -solver $s -precond jacobi -backend blocking -maxit 90"
done
[ -n "$P" ] && add "0us petsc-gmres" "${MPI[*]} $P/petsc_cg ${CD[*]} -n $N0 $N0 $N0 -ksp_type gmres -pc_type jacobi -maxit 90"
for s in gmres gmres:orth=cgs; do
    add "0us -n $NL $s" "${MPI[*]} $OURS ${CD[*]} -n $NL $NL $NL -solver $s -precond jacobi -backend blocking -maxit 390"
done
for s in gmres gmres:orth=cgs; do
    add "${LAT}us $s" "${MPI[*]} $OURS ${CD[*]} -n $NL $NL $NL -solver $s -precond jacobi -backend blocking -latency_us $LAT -maxit 390"
done
for s in pgmres pgmres:lmin=0,lmax=2 pgmres:orth=dcgs2; do
    add "${LAT}us $s" "${MPI[*]} $OURS ${CD[*]} -n $NL $NL $NL -solver $s -precond jacobi -backend native -latency_us $LAT -maxit 390"
done
declare -A T
echo "load before: $(uptime)" >&2
for ((r = 1; r <= R; r++)); do
    for i in "${!NAMES[@]}"; do
        out=$(${CMDS[$i]} 2>&1 || true)
        it=$(sed -n 's/^Iterations = //p' <<<"$out" | head -1)
        st=$(sed -n 's/^Solve Time = \([0-9.e+-]*\) s.*/\1/p' <<<"$out" | head -1)
        per=$(awk -v t="$st" -v n="$it" 'BEGIN { if (n > 0) printf "%.3e", t / n; else print "nan" }')
        T[$i]="${T[$i]:-} $per"
        echo "repeat $r: ${NAMES[$i]}: $it iterations, $st s, $per s/iteration" >&2
    done
done
echo "load after: $(uptime)" >&2
median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
echo "| case | median s per iteration |"
echo "|---|---|"
for i in "${!NAMES[@]}"; do echo "| ${NAMES[$i]} | $(median <<<"${T[$i]}") |"; done

#!/usr/bin/env bash
# idrs_bench.sh -- IDR(s) and pipelined IDR(s) against BiCGStab (ours) and PETSc's KSPBCGS and
# KSPBCGSL on the 3-D convection-diffusion problem of the drivers, in one interleaved run.
#
# Usage: bench/nonsym/idrs_bench.sh [options]
#   -b DIR      build dir of ovkrylov (default: the repository's build/)
#   -p DIR      dir of the peer petsc_cg (default /tmp/ovk-peers; built with
#               bench/peers/build.sh DIR when missing)
#   -np N       MPI ranks (default 2)
#   -r R        repeats (default 5): every case once per repeat, in the same order; medians
#   -n S        box per rank (default 40: -n 40 40 40)
#   -peclet PE  Peclet number (default 1000; velocity 1 1 1, upwind: the drivers' defaults)
#   -s "S..."   the s of idrs and pipeidrs to run (default "2 4 8")
#   -backends "B..."  reduction backends of ours (default "blocking"; pipeidrs wants one that
#               progresses in flight: native, nbc); each of ours runs once per backend
#   -latency_us A  ours under the latency model, every reduction at least A us (default 0:
#               none); PETSc's rows are left out when A > 0 (no such model there)
#   -peers 0|1  PETSc's rows (default 1)
#   -pcs "P..." preconditioners (default "jacobi ilu0"; PETSc: jacobi, bjacobi = ILU(0) per rank)
#   -l DIR      keep the raw outputs in DIR (default: a fresh mktemp dir)
#
# Every run: b random (SplitMix64 of the global row, the same in both codes), x0 = 0, rtol
# 1e-8.  Ours and KSPBCGS precondition on the right and test ||b - A x|| / ||b||.  KSPBCGSL
# runs PETSc's default, left preconditioning with the preconditioned norm: on the right
# (PETSc 3.18) it reports convergence with a true residual of order 10 (x not unwound).
# Products: PETSc's MatMult count (-log_view); ours by the recurrences, the product of
# r0 = b - A x0 included: bicgstab 2 per iteration + 2 (r0, the confirmation of the true
# residual), idrs 1 per step + 3 (r0, the step whose sums carry the last norm, the
# confirmation), pipeidrs 1 per step + 4 (idrs's and r~ = A C r0) + 2 per residual
# replacement.  Ours with -backends other than blocking are named solver@backend.
# Markdown table on stdout: medians over the repeats of the solve time, the
# ratio to the fastest idrs row of the same preconditioner, the time per iteration,
# iterations and products, the true relative residual.
set -u

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
BUILD="$ROOT/build"
PEERS=/tmp/ovk-peers
NP=2
R=5
N=40
PE=1000
SS="2 4 8"
PCS="jacobi ilu0"
BACKENDS="blocking"
LAT=0
PEERS_ON=1
LOGDIR=""
while [ $# -gt 0 ]; do
    case "$1" in
        -b) BUILD="$2"; shift 2 ;;
        -p) PEERS="$2"; shift 2 ;;
        -np) NP="$2"; shift 2 ;;
        -r) R="$2"; shift 2 ;;
        -n) N="$2"; shift 2 ;;
        -peclet) PE="$2"; shift 2 ;;
        -s) SS="$2"; shift 2 ;;
        -pcs) PCS="$2"; shift 2 ;;
        -backends) BACKENDS="$2"; shift 2 ;;
        -latency_us) LAT="$2"; shift 2 ;;
        -peers) PEERS_ON="$2"; shift 2 ;;
        -l) LOGDIR="$2"; shift 2 ;;
        -h|--help) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) echo "idrs_bench.sh: unknown option $1 (try -h)" >&2; exit 2 ;;
    esac
done

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1
MPIEXEC=(mpiexec -n "$NP")
[ "$NP" -gt "$(nproc --all)" ] && MPIEXEC=(mpiexec --oversubscribe -n "$NP")
[ -n "$LOGDIR" ] || LOGDIR="$(mktemp -d /tmp/idrs_bench.XXXXXX)"
mkdir -p "$LOGDIR"
OURS="$BUILD/examples/ovk_laplace27"
PCG="$PEERS/petsc_cg"
[ "$LAT" = 0 ] || PEERS_ON=0
NEED=("$OURS")
if [ "$PEERS_ON" = 1 ]; then
    [ -x "$PCG" ] || bash "$HERE/../peers/build.sh" "$PEERS" >&2 || true
    NEED+=("$PCG")
fi
for p in "${NEED[@]}"; do [ -x "$p" ] || { echo "idrs_bench.sh: $p missing" >&2; exit 1; }; done

CD=(-problem convdiff -peclet "$PE" -rhs random -tol 1e-8 -n "$N" "$N" "$N" -maxit 5000)
IDS=()
declare -A WHO PC CMD
add() { # id who pc -- command...
    IDS+=("$1"); WHO[$1]="$2"; PC[$1]="$3"; local id=$1; shift 4; CMD[$id]=$(printf '%q ' "$@")
}
LATOPT=(); [ "$LAT" = 0 ] || LATOPT=(-latency_us "$LAT")
for pc in $PCS; do
    ppc="-pc_type jacobi"; [ "$pc" = ilu0 ] && ppc="-pc_type bjacobi"
    for be in $BACKENDS; do
        sfx=""; [ "$BACKENDS" = blocking ] || sfx="@$be"
        OB=(-backend "$be" "${LATOPT[@]}")
        add "bicgstab$sfx""_$pc" ours "$pc" -- "${MPIEXEC[@]}" "$OURS" "${CD[@]}" "${OB[@]}" -solver bicgstab -precond "$pc"
        for s in $SS; do
            add "idrs$s$sfx""_$pc" ours "$pc" -- "${MPIEXEC[@]}" "$OURS" "${CD[@]}" "${OB[@]}" -solver "idrs:s=$s" -precond "$pc"
            add "pipeidrs$s$sfx""_$pc" ours "$pc" -- "${MPIEXEC[@]}" "$OURS" "${CD[@]}" "${OB[@]}" -solver "pipeidrs:s=$s" \
                -precond "$pc"
        done
    done
    [ "$PEERS_ON" = 1 ] || continue
    # shellcheck disable=SC2086
    add "KSPBCGS_$pc" petsc "$pc" -- "${MPIEXEC[@]}" "$PCG" "${CD[@]}" -ksp_type bcgs $ppc -log_view
    # shellcheck disable=SC2086
    add "KSPBCGSL_$pc" petsc "$pc" -- "${MPIEXEC[@]}" "$PCG" "${CD[@]}" -ksp_type bcgsl -ksp_pc_side left \
        -ksp_norm_type preconditioned $ppc -log_view
done

echo "# $(uname -n), $(nproc --all) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo "# load before: $(uptime | sed 's/.*load average: //')"
for ((rep = 1; rep <= R; rep++)); do
    for id in "${IDS[@]}"; do
        eval "${CMD[$id]}" > "$LOGDIR/$id.$rep.out" 2>&1 || echo "# $id repeat $rep: exit $?" >&2
    done
done
echo "# load after: $(uptime | sed 's/.*load average: //')"
echo "# commands (repeats $R, outputs in $LOGDIR):"
for id in "${IDS[@]}"; do echo "#   $id: ${CMD[$id]}"; done

field() { sed -n "s/^$2 = \\([^ ]*\\).*/\\1/p" "$1" | tail -1; }
median() { sort -g | awk '{v[NR] = $1} END {if (NR == 0) print "nan"; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
declare -A T IT PR TR
for id in "${IDS[@]}"; do
    f="$LOGDIR/$id.1.out"
    T[$id]=$(for ((rep = 1; rep <= R; rep++)); do field "$LOGDIR/$id.$rep.out" "Solve Time"; done | median)
    IT[$id]=$(field "$f" Iterations)
    if [ "${WHO[$id]}" = petsc ]; then
        PR[$id]=$(awk '$1 == "MatMult" {print $2}' "$f" | head -1)
        TR[$id]=$(field "$f" "True Relative Residual Norm")
    else
        rp=$(field "$f" "Residual Replacements" | tr -d ,)
        case "$id" in
            bicgstab*) PR[$id]=$((2 * ${IT[$id]:-0} + 2)) ;;
            pipeidrs*) PR[$id]=$((${IT[$id]:-0} + 4 + 2 * ${rp:-0})) ;;
            *) PR[$id]=$((${IT[$id]:-0} + 3)) ;;
        esac
        TR[$id]=$(field "$f" "Final Relative Residual Norm")
    fi
done
echo
echo "| preconditioner | solver | iterations | products | true rel. residual | solve time (s, median) | ms / iteration | time / best idrs |"
echo "|---|---|---|---|---|---|---|---|"
for pc in $PCS; do
    best=""
    for id in "${IDS[@]}"; do
        if [ "${PC[$id]}" != "$pc" ] || [ "${id#idrs}" = "$id" ]; then continue; fi
        t=${T[$id]}
        if [ -z "$best" ] || awk "BEGIN {exit !($t < $best)}"; then best=$t; fi
    done
    for id in "${IDS[@]}"; do
        [ "${PC[$id]}" = "$pc" ] || continue
        name=$id; name=${name%_"$pc"}; name=${name/idrs/idrs:s=}
        ratio=$(awk "BEGIN {printf \"%.2f\", ${T[$id]} / $best}")
        per=$(awk "BEGIN {it = ${IT[$id]:-0}; if (it > 0) printf \"%.3f\", 1000 * ${T[$id]} / it; else print \"nan\"}")
        echo "| $pc | $name | ${IT[$id]} | ${PR[$id]} | ${TR[$id]} | ${T[$id]} | $per | $ratio |"
    done
done

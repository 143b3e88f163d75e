#!/usr/bin/env bash
# stokes_bench.sh -- MINRES with a block-diagonal field-split preconditioner on Stokes matrices of
# bench/gen/fe_gen.py (2-D Taylor-Hood P2-P1, flow past a cylinder) at three mesh sizes: ovkrylov's
# minres + fieldsplit against PETSc's KSPMINRES + PCFIELDSPLIT, in one interleaved run (every case
# once per round, the cases' order rotated from round to round), medians of the rounds.
#
# Usage: bench/systems/stokes_bench.sh [options]
#   -b DIR      build dir of ovkrylov (default: the repository's build/)
#   -p DIR      the peer programs (default /tmp/ovk-peers; bench/peers/build.sh DIR builds them)
#   -d DIR      where the matrices are (generated there when missing; default /tmp/ovk-stokes)
#   -np N       MPI ranks (default 2)
#   -r R        rounds (default 3)
#   -h "H..."   mesh sizes (default "0.022 0.011 0.0055": 19,661, 78,156 and 310,006 rows)
#   -cases "C..."  (default "ovk-selfp ovk-user petsc-selfp petsc-selfp-8 petsc-user")
#   -o FILE     the CSV with its # machine, # command and # what lines (default: stdout)
#
# Cases (b random, the same in both programs; x0 = 0):
#   ovk-selfp   ovk_mtx_solve -solver minres -precond fieldsplit:type=diag,0=amg,1=jacobi,schur=selfp
#               -fields NAME.fields; rtol 1e-8 on ||b - A x|| (minres confirms it by the true residual)
#   ovk-user    the same with schur=user -schur NAME.mass.mtx (the pressure mass matrix)
#   ovk-none    minres without a preconditioner (the baseline; thousands of iterations)
#   petsc-selfp petsc_mtx -ksp_type minres -pc_type fieldsplit, Schur diag factorization (the
#               block-diagonal preconditioner diag(A, -S) with S's sign flipped: SPD, as MINRES
#               needs), GAMG (one V-cycle, preonly) on the velocity block, the Schur block by
#               jacobi of selfp's assembled Sp = -B diag(A)^-1 B^T; -fields NAME.fields as the two
#               index sets.  PETSc 3.18's KSPMINRES tests only the preconditioned norm, so its rtol
#               is 1e-10: its true residual then reaches about ovkrylov's 1e-8 (printed in the
#               table); this is the reference of the ratio column
#   petsc-selfp-8  the same at rtol 1e-8 on PETSc's preconditioned norm (true residual ~1e-6)
#   petsc-user  petsc-selfp with -schur NAME.mass.mtx (PCFieldSplitSetSchurPre USER) and
#               -pc_fieldsplit_schur_scale 1 (the mass matrix is positive), rtol 1e-10
#
# CSV columns: rows, case, iterations, true relative residual, setup s, solve s, setup + solve s
# (medians), and setup + solve over petsc-selfp's of the same round and mesh (median of the
# rounds' ratios).  A case whose program or preconditioner is missing is left out with a message.
set -u
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
BUILD="$HERE/../../build" PEERS=/tmp/ovk-peers DIR=/tmp/ovk-stokes NP=2 R=3 HS="0.022 0.011 0.0055"
CASES="ovk-selfp ovk-user petsc-selfp petsc-selfp-8 petsc-user" OUT=""
ARGS="$*"
while [ $# -gt 0 ]; do
    case "$1" in
        -b) BUILD="$2"; shift 2 ;;
        -p) PEERS="$2"; shift 2 ;;
        -d) DIR="$2"; shift 2 ;;
        -np) NP="$2"; shift 2 ;;
        -r) R="$2"; shift 2 ;;
        -h) HS="$2"; shift 2 ;;
        -cases) CASES="$2"; shift 2 ;;
        -o) OUT="$2"; shift 2 ;;
        *) echo "stokes_bench.sh: unknown option $1" >&2; exit 2 ;;
    esac
done
OVK="$BUILD/examples/ovk_mtx_solve" PETSC="$PEERS/petsc_mtx"
CORES=$(getconf _NPROCESSORS_ONLN)
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1
MPI=(mpirun -n "$NP")
[ "$NP" -gt "$CORES" ] && MPI+=(--oversubscribe)
load() { cut -d' ' -f1 /proc/loadavg; }
LOAD0=$(load)

# the cases this build and these peers can run
keep=""
for c in $CASES; do
    case "$c" in
        ovk-selfp|ovk-user)
            if [ ! -x "$OVK" ]; then echo "stokes_bench.sh: $c skipped: no $OVK" >&2; continue; fi
            if ! "$OVK" -precond list 2>&1 | grep -qw fieldsplit; then
                echo "stokes_bench.sh: $c skipped: this build has no fieldsplit preconditioner" >&2; continue
            fi ;;
        ovk-none)
            [ -x "$OVK" ] || { echo "stokes_bench.sh: $c skipped: no $OVK" >&2; continue; } ;;
        petsc-selfp|petsc-selfp-8|petsc-user)
            [ -x "$PETSC" ] || { echo "stokes_bench.sh: $c skipped: no $PETSC (bench/peers/build.sh $PEERS)" >&2; continue; } ;;
        *) echo "stokes_bench.sh: unknown case $c" >&2; exit 2 ;;
    esac
    keep="$keep $c"
done
CASES=$keep
[ -n "$CASES" ] || { echo "stokes_bench.sh: no case can run" >&2; exit 1; }

# the matrices
mkdir -p "$DIR"
for h in $HS; do
    F="$DIR/stokes_$h"
    if [ ! -f "$F.mtx" ] || [ ! -f "$F.fields" ] || [ ! -f "$F.mass.mtx" ]; then
        /usr/bin/python3 "$HERE/../gen/fe_gen.py" stokes -h "$h" -o "$F.mtx" >&2 || { echo "stokes_bench.sh: fe_gen.py failed" >&2; exit 1; }
    fi
done

PETSC_FS=(-ksp_type minres -ksp_norm_type preconditioned -pc_type fieldsplit -pc_fieldsplit_type schur
          -pc_fieldsplit_schur_fact_type diag -fieldsplit_0_ksp_type preonly -fieldsplit_0_pc_type gamg
          -fieldsplit_1_ksp_type preonly -fieldsplit_1_pc_type jacobi)
command() { # case, matrix base name -> the command line in CMD
    local F="$2"
    case "$1" in
        ovk-selfp) CMD=("$OVK" -print_level 1 -f "$F.mtx" -solver minres -fields "$F.fields"
                        -precond "fieldsplit:type=diag,0=amg,1=jacobi,schur=selfp") ;;
        ovk-user) CMD=("$OVK" -print_level 1 -f "$F.mtx" -solver minres -fields "$F.fields" -schur "$F.mass.mtx"
                       -precond "fieldsplit:type=diag,0=amg,1=jacobi,schur=user") ;;
        ovk-none) CMD=("$OVK" -print_level 1 -f "$F.mtx" -solver minres -precond none) ;;
        petsc-selfp) CMD=("$PETSC" -f "$F.mtx" -fields "$F.fields" "${PETSC_FS[@]}"
                          -pc_fieldsplit_schur_precondition selfp -tol 1e-10) ;;
        petsc-selfp-8) CMD=("$PETSC" -f "$F.mtx" -fields "$F.fields" "${PETSC_FS[@]}"
                            -pc_fieldsplit_schur_precondition selfp) ;;
        petsc-user) CMD=("$PETSC" -f "$F.mtx" -fields "$F.fields" -schur "$F.mass.mtx" "${PETSC_FS[@]}"
                         -pc_fieldsplit_schur_scale 1 -tol 1e-10) ;;
    esac
    CMD+=(-rhs random -maxit 20000)
    [ "$1" = petsc-selfp ] || [ "$1" = petsc-user ] || CMD+=(-tol 1e-8)
}

raw=$(mktemp)
trap 'rm -f "$raw"' EXIT
read -r -a list <<< "$CASES"
nc=${#list[@]}
for r in $(seq 1 "$R"); do
    for h in $HS; do
        F="$DIR/stokes_$h"
        n=$(grep -v '^%' "$F.mtx" | head -1 | cut -d' ' -f1)
        for k in $(seq 0 $((nc - 1))); do
            c=${list[$(((k + r - 1) % nc))]}
            command "$c" "$F"
            out=$("${MPI[@]}" "${CMD[@]}" 2>&1)
            it=$(sed -n 's/^Iterations = \([0-9]*\).*/\1/p' <<< "$out" | head -1)
            res=$(sed -n 's/^True Relative Residual Norm = \([0-9.e+-]*\).*/\1/p' <<< "$out" | head -1)
            # ovk_mtx_solve's final norm is the true residual's (minres confirms it before stopping)
            [ -n "$res" ] || res=$(sed -n 's/^Final Relative Residual Norm = \([0-9.e+-]*\).*/\1/p' <<< "$out" | head -1)
            su=$(sed -n 's/^Setup Time = \([0-9.e+-]*\).*/\1/p' <<< "$out" | head -1)
            so=$(sed -n 's/^Solve Time = \([0-9.e+-]*\).*/\1/p' <<< "$out" | head -1)
            if [ -z "$it" ] || [ -z "$su" ] || [ -z "$so" ] || grep -q "Stop reason = [^c]" <<< "$out" \
               || grep -q "Converged reason = DIVERGED" <<< "$out"; then
                echo "stokes_bench.sh: $c on h = $h failed:" >&2; tail -5 <<< "$out" >&2; exit 1
            fi
            echo "$r $h $n $c $it $res $su $so" >> "$raw"
            echo "stokes_bench.sh: round $r h $h $c: $it iterations, setup $su s, solve $so s" >&2
        done
    done
done
LOAD1=$(load)

emit() {
    echo "# machine: $(lscpu | sed -n 's/^Model name: *//p' | head -1), $CORES cores; $(mpirun --version 2>/dev/null | head -1); PETSc $(pkg-config --modversion petsc 2>/dev/null); 1-minute load $LOAD0 at the start, $LOAD1 at the end"
    echo "# command: bench/systems/stokes_bench.sh $ARGS"
    echo "# what: bench/gen/fe_gen.py stokes (channel) at h = $HS, $NP ranks, $R interleaved rounds, b random; medians; ratio: (setup + solve) / petsc-selfp's, median of the rounds"
    awk -v cases="$CASES" '
      function med(a, n,    i, j, t) { for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
                                       return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
      { k = $2 SUBSEP $4; c[k]++; m = c[k]; it[k, m] = $5; rs[k, m] = $6; su[k, m] = $7; so[k, m] = $8
        tot[$1, $2, $4] = $7 + $8; rows[$2] = $3; if (!($2 in seen)) { seen[$2] = 1; hs[++nh] = $2 } }
      END {
        nc = split(cases, cl, " ")
        print "rows,case,iterations,true relative residual,setup s,solve s,setup + solve s,total / petsc-selfp"
        for (i = 1; i <= nh; i++) for (j = 1; j <= nc; j++) {
          h = hs[i]; cs = cl[j]; k = h SUBSEP cs; m = c[k]; if (!m) continue
          q = 0
          for (t = 1; t <= m; t++) { a1[t] = it[k, t]; a2[t] = rs[k, t]; a3[t] = su[k, t]; a4[t] = so[k, t]; a5[t] = su[k, t] + so[k, t]
                                     if ((t, h, "petsc-selfp") in tot) b[++q] = tot[t, h, cs] / tot[t, h, "petsc-selfp"] }
          printf "%d,%s,%d,%.1e,%.3f,%.3f,%.3f,%s\n", rows[h], cs, med(a1, m), med(a2, m), med(a3, m), med(a4, m), med(a5, m), (q ? sprintf("%.2f", med(b, q)) : "")
        }
      }' "$raw"
}
if [ -n "$OUT" ]; then emit > "$OUT"; else emit; fi

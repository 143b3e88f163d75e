#!/usr/bin/env bash
# precond_bench.sh -- the preconditioners against PETSc's, the solver object
# against the one-shot path, and the preconditioners under the latency model.
#
# Usage: bench/latency/precond_bench.sh [-b BUILD] [-p PEERS] [-np N] [-r R] [-o OUTDIR] [parts]
#   parts: any of a b c (default: a b c)
#   a  iterations, setup and solve time of every preconditioner x {alg1, pipecg}
#      on the 27-point Laplacian -n 40 and on every shared matrix, next to
#      PETSc CG with -pc_type jacobi, bjacobi/icc and sor (bench/peers:
#      petsc_cg, petsc_mtx, built into PEERS by bench/peers/build.sh when
#      missing); R interleaved repeats, medians
#   b  ovk_heat, 100 steps: the solver object (setup once) vs -oneshot
#      (ovk_pcg_solve every step) per backend
#   c  -n 40 under the 250 us latency model, nbc: time to solution of every
#      preconditioner x {alg1, overlap, pipecg}
# Writes OUTDIR/{a,b,c}.txt (raw "key value" rows) and prints markdown tables.
set -u
BUILD=/work/main/build
PEERS=/tmp/ovk-peers
NP=2
R=5
OUT=""
MATDIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/../shared/data/matrices"
while [ $# -gt 0 ]; do
    case "$1" in
        -b) BUILD="$2"; shift 2 ;;
        -p) PEERS="$2"; shift 2 ;;
        -np) NP="$2"; shift 2 ;;
        -r) R="$2"; shift 2 ;;
        -o) OUT="$2"; shift 2 ;;
        *) break ;;
    esac
done
PARTS="${*:-a b c}"
[ -n "$OUT" ] || OUT=$(mktemp -d)
mkdir -p "$OUT"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1
MPI="mpiexec -n $NP --oversubscribe"
EX="$BUILD/examples"
if [ ! -x "$PEERS/petsc_cg" ] || [ ! -x "$PEERS/petsc_mtx" ]; then
    echo "# building peers: bench/peers/build.sh $PEERS" >&2
    bash "$(dirname "${BASH_SOURCE[0]}")/../peers/build.sh" "$PEERS" >&2 || true
fi
OURS_PC="jacobi none ic0 ssor cheby cheby:degree=4"
PETSC_PC=("jacobi" "bjacobi -sub_pc_type icc" "sor")
field() { sed -n "s/^$1 = \([0-9.e+-]*\).*/\1/p" | head -1; }
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "nan"; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# one run: prints "iterations setup solve" (setup nan when not printed)
ours() { # problem-args...
    local o; o=$($MPI "$@" -print_level 1 2>&1)
    echo "$(echo "$o" | field Iterations) $(echo "$o" | field "Setup Time") $(echo "$o" | field "Solve Time") $(echo "$o" | grep -q '^Iterations' && echo ok || echo fail)"
}
petsc() {
    local o; o=$($MPI "$@" 2>&1)
    local reason; reason=$(echo "$o" | sed -n 's/^Converged reason = //p')
    echo "$(echo "$o" | field Iterations) $(echo "$o" | field "Setup Time") $(echo "$o" | field "Solve Time") $(case "$reason" in CONVERGED*) echo ok ;; *) echo fail ;; esac)"
}

# part a: one problem; configurations interleaved over R rounds
part_a_problem() { # name kind(lap|mtx) file
    local name=$1 kind=$2 file=$3 cfgs=() r c
    for s in alg1 pipecg; do for p in $OURS_PC; do cfgs+=("ours $s $p"); done; done
    for i in 0 1 2; do cfgs+=("petsc $i"); done
    for ((r = 0; r < R; r++)); do
        for c in "${cfgs[@]}"; do
            set -- $c
            if [ "$1" = ours ]; then
                if [ "$kind" = lap ]; then line=$(ours "$EX/ovk_laplace27" -n 40 40 40 -solver "$2" -precond "$3")
                else line=$(ours "$EX/ovk_mtx_solve" -f "$file" -maxit 20000 -solver "$2" -precond "$3"); fi
                echo "$name ours:$2:$3 $line"
            else
                if [ "$kind" = lap ]; then line=$(petsc "$PEERS/petsc_cg" -n 40 40 40 -pc_type ${PETSC_PC[$2]})
                else line=$(petsc "$PEERS/petsc_mtx" -f "$file" -maxit 20000 -pc_type ${PETSC_PC[$2]}); fi
                echo "$name petsc:cg:$(echo ${PETSC_PC[$2]} | sed 's/ -sub_pc_type /+/') $line"
            fi
        done
    done
}

summarize() { # file: "problem config its setup solve ok" rows -> medians per (problem, config)
    awk '{ k = $1 " " $2; its[k] = $3; ok[k] = (ok[k] == "" || ok[k] == "ok") ? $6 : ok[k];
           set[k] = set[k] " " $4; sol[k] = sol[k] " " $5; if (!(k in seen)) { seen[k] = 1; order[++n] = k } }
         END { for (i = 1; i <= n; i++) { k = order[i]; print k, its[k], ok[k] "|" set[k] "|" sol[k] } }' "$1" |
    while read -r prob cfg its rest; do
        okf=${rest%%|*}; rest=${rest#*|}; st=${rest%%|*}; so=${rest#*|}
        echo "$prob $cfg $its $(echo $st | tr ' ' '\n' | median) $(echo $so | tr ' ' '\n' | median) $okf"
    done
}

if [[ " $PARTS " == *" a "* ]]; then
    : > "$OUT/a.raw"
    part_a_problem laplace27-n40 lap "" >> "$OUT/a.raw"
    for f in "$MATDIR"/*.mtx; do part_a_problem "$(basename "$f" .mtx)" mtx "$f" >> "$OUT/a.raw"; done
    summarize "$OUT/a.raw" > "$OUT/a.txt"
    echo "## a: problem config iterations setup_s solve_s status (medians of $R)"
    cat "$OUT/a.txt"
fi

if [[ " $PARTS " == *" b "* ]]; then
    : > "$OUT/b.raw"
    for ((r = 0; r < R; r++)); do
        for be in blocking native nbc offload:engine=agent offload:engine=fabric; do
            for mode in object oneshot; do
                flag=""; [ $mode = oneshot ] && flag=-oneshot
                o=$($MPI "$EX/ovk_heat" -n 20 -steps 100 -update 10 -backend "$be" $flag 2>&1)
                echo "$be $mode $(echo "$o" | field 'Setup Time') $(echo "$o" | field 'Solve Time') $(echo "$o" | grep -c '^step')" >> "$OUT/b.raw"
            done
        done
    done
    echo "## b: backend mode setup_s solve_s steps (medians of $R)"
    awk '{ k = $1 " " $2; s[k] = s[k] " " $3; v[k] = v[k] " " $4; n[k] = $5; if (!(k in seen)) { seen[k] = 1; o[++m] = k } }
         END { for (i = 1; i <= m; i++) print o[i] "|" s[o[i]] "|" v[o[i]] "|" n[o[i]] }' "$OUT/b.raw" |
    while IFS='|' read -r k s v n; do
        echo "$k $(echo $s | tr ' ' '\n' | median) $(echo $v | tr ' ' '\n' | median) $n"
    done | tee "$OUT/b.txt"
fi

if [[ " $PARTS " == *" c "* ]]; then
    : > "$OUT/c.raw"
    for ((r = 0; r < R; r++)); do
        for s in alg1 overlap pipecg; do
            for p in $OURS_PC; do
                [ $s = overlap ] && [[ $p == cheby* ]] && continue
                for lat in 0 250; do
                    line=$(ours "$EX/ovk_laplace27" -n 40 40 40 -solver $s -precond $p -backend nbc -latency_us $lat)
                    echo "lat$lat $s:$p $line" >> "$OUT/c.raw"
                done
            done
        done
    done
    summarize "$OUT/c.raw" > "$OUT/c.txt"
    echo "## c: latency config iterations setup_s solve_s status (medians of $R)"
    cat "$OUT/c.txt"
fi
echo "raw outputs in $OUT"

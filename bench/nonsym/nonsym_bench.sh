#!/usr/bin/env bash
# nonsym_bench.sh -- the nonsymmetric solvers against PETSc, in one interleaved run
# (the performance targets of issue 45).
#
# Usage: bench/nonsym/nonsym_bench.sh -f FILE.mtx [options]
#   -b DIR      build dir of ovkrylov (default: the repository's build/); the drivers are
#               DIR/examples/ovk_laplace27 and DIR/examples/ovk_mtx_solve
#   -p DIR      dir of the peers petsc_cg, petsc_mtx and libovk_delay_pmpi.so
#               (default /tmp/ovk-peers; built with bench/peers/build.sh DIR when missing)
#   -f FILE     the unstructured nonsymmetric matrix (bench/gen/fe_advdiff.py -h 0.013: >= 300,000
#               unknowns); "" skips its sections
#   -np N       MPI ranks (default 2)
#   -r R        repeats (default 3): every case once per repeat, in the same order, so that
#               slow phases of a shared machine hit every case alike; medians over R
#   -n0 S       convection-diffusion box per rank at 0 us (default 60: -n 60 60 60)
#   -nl S       box per rank under the latency model (default 20)
#   -lat US     the modelled latency (default 250): ours -latency_us US, PETSc
#               LD_PRELOAD=libovk_delay_pmpi.so OVK_PMPI_DELAY_US=US
#   -ls "L..."  pgmres depths to run under latency, each L the rest of a spec pgmres:l=L
#               (default "1 2 3 4 2,lmin=0,lmax=2": the last with the shifts given, the
#               interval of Jacobi-preconditioned upwind convection-diffusion's real parts,
#               instead of the first cycle's estimate; the default depth, 2, is named as such)
#   -pb SPEC    our backend for the pipelined solvers (default native: MPI_Iallreduce, as
#               PETSc's); the classical ones run on blocking
#   -maxit_it N iteration cap of the per-iteration convection-diffusion runs (default 90:
#               three GMRES(30) cycles; time per iteration is compared, a capped run counts)
#   -maxit N    iteration cap of the other runs (default 390, 13 GMRES(30) cycles: a capped
#               run counts per iteration, not to solution)
#   -peclet PE  convection-diffusion Peclet number (default 100, velocity 1 1 1, upwind:
#               ovk_laplace27's defaults)
#   -amg 0|1    also our amg and PETSc's hypre BoomerAMG on FILE (default 1)
#   -o DIR      where the CSV files go (default: /tmp/ovk-nonsym); the rows of
#               docs/performance.md's table are those of bench/results/nonsym.csv
#   -tag NAME   their name: DIR/nonsym_NAME.csv (every run) and DIR/nonsym_NAME_summary.csv
#               (medians, one row per case) (default: the date, YYYYMMDD)
#   -l DIR      keep the raw outputs in DIR (default: a fresh mktemp dir)
#   -parse      no runs: the tables and CSV from the outputs already in -l DIR (repeats
#               1..R), e.g. of a run stopped after R complete repeats
#   -sections S the sections to run, letters of ABC (default ABC)
#
# Every run: 2 ranks, b random (SplitMix64 of the global row, the same b in every
# program), x0 = 0, rtol 1e-8 on ||b - A x|| / ||b|| (PETSc: KSP_NORM_UNPRECONDITIONED,
# which makes it precondition on the right as ours; "PETSc defaults" rows run left
# preconditioning with the preconditioned norm instead).  Preconditioners side by side:
# ours jacobi = PETSc jacobi, ours ilu0 = PETSc bjacobi (ILU(0) per rank, its default
# sub-PC), ours amg = PETSc hypre boomeramg (defaults).
#
# Sections (markdown tables on stdout; ratios ours / peer, < 1: ours faster):
#   A  time per iteration at 0 us on convdiff -n0 and on FILE: our gmres and bicgstab
#      (blocking) against PETSc KSPGMRES and KSPBCGS with the same preconditioner
#      (target <= 0.8); also ours with ilu0:precision=single against PETSc's bjacobi and
#      gmres:basis=single (the Krylov basis stored as float; with ilu0 and ilu0:precision=single)
#      against KSPGMRES
#   B  under the latency model at -nl, Jacobi: pgmres (default depth and the best l of
#      -ls, backend -pb) against our gmres (target <= 0.5) and PETSc KSPPGMRES with the
#      wrapper (<= 0.7); pipebicgstab (and early=0, the paper's schedule) against our
#      bicgstab (<= 0.6) and KSPPIPEBCGS (<= 0.8)
#   C  time to solution on FILE: the fastest of ours (gmres, bicgstab x jacobi; gmres,
#      bicgstab, pipebicgstab, pgmres x ilu0; bicgstab x eisenstat, eisenstat:omega=1.5;
#      bicgstab x amg) against the fastest PETSc
#      (GMRES, BCGS x jacobi; GMRES, BCGS, PGMRES, PIPEBCGS x bjacobi; BCGS x hypre)
#      converged with the same test, setup beside it (<= 0.8, by solve time and by
#      setup + solve).  PETSc's defaults (left, preconditioned norm) run on convdiff only.
set -u

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
BUILD="$ROOT/build"
PEERS=/tmp/ovk-peers
FILE=""
NP=2
R=3
N0=60
NL=20
LAT=250
LS="1 2 3 4 2,lmin=0,lmax=2"
PB=native
MAXIT_IT=90
MAXIT=390
PECLET=100
AMG=1
OUTDIR=/tmp/ovk-nonsym
TAG="$(date -u +%Y%m%d)"
LOGDIR=""
PARSE=0
SECTIONS=ABC

while [ $# -gt 0 ]; do
    case "$1" in
        -b) BUILD="$2"; shift 2 ;;
        -p) PEERS="$2"; shift 2 ;;
        -f) FILE="$2"; shift 2 ;;
        -np) NP="$2"; shift 2 ;;
        -r) R="$2"; shift 2 ;;
        -n0) N0="$2"; shift 2 ;;
        -nl) NL="$2"; shift 2 ;;
        -lat) LAT="$2"; shift 2 ;;
        -ls) LS="$2"; shift 2 ;;
        -pb) PB="$2"; shift 2 ;;
        -maxit_it) MAXIT_IT="$2"; shift 2 ;;
        -maxit) MAXIT="$2"; shift 2 ;;
        -peclet) PECLET="$2"; shift 2 ;;
        -amg) AMG="$2"; shift 2 ;;
        -o) OUTDIR="$2"; shift 2 ;;
        -tag) TAG="$2"; shift 2 ;;
        -l) LOGDIR="$2"; shift 2 ;;
        -parse) PARSE=1; shift ;;
        -sections) SECTIONS="$2"; shift 2 ;;
        -h|--help) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) echo "nonsym_bench.sh: unknown option $1 (try -h)" >&2; exit 2 ;;
    esac
done

NCPU=$(nproc --all 2>/dev/null || nproc)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1
MPIEXEC=(mpiexec -n "$NP")
[ "$NP" -gt "$NCPU" ] && MPIEXEC=(mpiexec --oversubscribe -n "$NP")
[ -n "$LOGDIR" ] || LOGDIR="$(mktemp -d /tmp/nonsym_bench.XXXXXX)"
mkdir -p "$LOGDIR" "$OUTDIR"

OURS="$BUILD/examples/ovk_laplace27"
OURS_MTX="$BUILD/examples/ovk_mtx_solve"
PCG="$PEERS/petsc_cg"
PMTX="$PEERS/petsc_mtx"
DELAY="$PEERS/libovk_delay_pmpi.so"
if [ ! -x "$PCG" ] || [ ! -x "$PMTX" ] || [ ! -e "$DELAY" ]; then
    echo "# building peers: $HERE/../peers/build.sh $PEERS" >&2
    bash "$HERE/../peers/build.sh" "$PEERS" >&2 || true
fi
for p in "$OURS" "$OURS_MTX" "$PCG" "$PMTX" "$DELAY"; do
    [ -e "$p" ] || { echo "nonsym_bench.sh: $p missing (ovkrylov build: -b; peers: bench/peers/build.sh)" >&2; exit 1; }
done
if [ -n "$FILE" ] && [ ! -r "$FILE" ]; then
    echo "nonsym_bench.sh: cannot read $FILE (make it with bench/gen/fe_advdiff.py)" >&2
    exit 1
fi
[ -n "$FILE" ] || echo "# no -f FILE: the unstructured sections skipped" >&2

# ---------------------------------------------------------------- the cases
# One case: ID, then the fields of the summary (section, problem, who, solver,
# preconditioner, backend, latency_us), then the command (an array in CMD_<ID>).
IDS=()
declare -A F_SEC F_PROB F_WHO F_SOL F_PC F_BE F_LAT
cid() { echo "${1//[^A-Za-z0-9_]/_}"; } # a case's id: letters, digits, _
add() { # id section problem who solver pc backend latency -- command...
    local id; id=$(cid "$1")
    # a section asked for (A's runs on FILE count in C too)
    case "$SECTIONS" in *"$2"*) ;; *) { [ "$3" = fe ] && [[ "$SECTIONS" == *C* ]]; } || return 0 ;; esac
    F_SEC[$id]="$2"; F_PROB[$id]="$3"; F_WHO[$id]="$4"; F_SOL[$id]="$5"; F_PC[$id]="$6"; F_BE[$id]="$7"
    F_LAT[$id]="$8"
    shift 9
    IDS+=("$id")
    eval "CMD_$id=(\"\$@\")"
}
petsc_pc() { # ours' name -> PETSc's options
    case "$1" in
        jacobi) echo "-pc_type jacobi" ;;
        ilu0) echo "-pc_type bjacobi" ;;
        amg) echo "-pc_type hypre -pc_hypre_type boomeramg" ;;
    esac
}
petsc_ksp() { case "$1" in gmres) echo gmres ;; bicgstab) echo bcgs ;; pgmres) echo pgmres ;; pipebicgstab) echo pipebcgs ;; esac; }
DEFAULTS=(-ksp_norm_type preconditioned -ksp_pc_side left)
CD=(-problem convdiff -peclet "$PECLET" -rhs random -tol 1e-8)

# A: per iteration at 0 us
for pc in jacobi ilu0; do
    for s in gmres bicgstab; do
        k=$(petsc_ksp "$s")
        add "cd_ours_${s}_$pc" A "convdiff-n$N0" ours "$s" "$pc" blocking 0 -- \
            "${MPIEXEC[@]}" "$OURS" "${CD[@]}" -n "$N0" "$N0" "$N0" -solver "$s" -precond "$pc" -backend blocking -print_level 1 \
            -maxit "$MAXIT_IT"
        # shellcheck disable=SC2046
        add "cd_petsc_${k}_$pc" A "convdiff-n$N0" petsc "$k" "$pc" - 0 -- \
            "${MPIEXEC[@]}" "$PCG" "${CD[@]}" -n "$N0" "$N0" "$N0" -ksp_type "$k" $(petsc_pc "$pc") -maxit "$MAXIT_IT"
        if [ -n "$FILE" ]; then
            add "fe_ours_${s}_$pc" A fe ours "$s" "$pc" blocking 0 -- \
                "${MPIEXEC[@]}" "$OURS_MTX" -f "$FILE" -rhs random -tol 1e-8 -solver "$s" -precond "$pc" -print_level 1 \
                -backend blocking -maxit "$MAXIT"
            # shellcheck disable=SC2046
            add "fe_petsc_${k}_$pc" A fe petsc "$k" "$pc" - 0 -- \
                "${MPIEXEC[@]}" "$PMTX" -f "$FILE" -rhs random -tol 1e-8 -ksp_type "$k" $(petsc_pc "$pc") -maxit "$MAXIT"
        fi
    done
done
# ours tuned: ilu0 with its factor read as float (ids *_ilu0s), against PETSc's bjacobi
for s in gmres bicgstab; do
    add "cd_ours_${s}_ilu0s" A "convdiff-n$N0" ours "$s" ilu0:precision=single blocking 0 -- \
        "${MPIEXEC[@]}" "$OURS" "${CD[@]}" -n "$N0" "$N0" "$N0" -solver "$s" -precond ilu0:precision=single -backend blocking \
        -print_level 1 -maxit "$MAXIT_IT"
    [ -n "$FILE" ] && add "fe_ours_${s}_ilu0s" A fe ours "$s" ilu0:precision=single blocking 0 -- \
        "${MPIEXEC[@]}" "$OURS_MTX" -f "$FILE" -rhs random -tol 1e-8 -solver "$s" -precond ilu0:precision=single \
        -print_level 1 -backend blocking -maxit "$MAXIT"
done
# ours tuned: gmres with its Krylov basis stored as float (ids *_jacobib, *_ilu0b; *_ilu0sb with the
# float ILU(0) factor too), against PETSc's same PC
for pc in jacobi ilu0 ilu0:precision=single; do
    id=${pc/:precision=single/s}
    add "cd_ours_gmres_${id}b" A "convdiff-n$N0" ours gmres:basis=single "$pc" blocking 0 -- \
        "${MPIEXEC[@]}" "$OURS" "${CD[@]}" -n "$N0" "$N0" "$N0" -solver gmres:basis=single -precond "$pc" \
        -backend blocking -print_level 1 -maxit "$MAXIT_IT"
    [ -n "$FILE" ] && add "fe_ours_gmres_${id}b" A fe ours gmres:basis=single "$pc" blocking 0 -- \
        "${MPIEXEC[@]}" "$OURS_MTX" -f "$FILE" -rhs random -tol 1e-8 -solver gmres:basis=single -precond "$pc" \
        -print_level 1 -backend blocking -maxit "$MAXIT"
done
for k in gmres bcgs; do # PETSc at its defaults: left preconditioning, preconditioned norm
    add "cd_petscdef_${k}_ilu0" A "convdiff-n$N0" petsc-defaults "$k" ilu0 - 0 -- \
        "${MPIEXEC[@]}" "$PCG" "${CD[@]}" -n "$N0" "$N0" "$N0" -ksp_type "$k" -pc_type bjacobi "${DEFAULTS[@]}" \
        -maxit "$MAXIT_IT"
done

# B: under the latency model, Jacobi
LATENV=(-x LD_PRELOAD="$DELAY" -x OVK_PMPI_DELAY_US="$LAT")
for s in gmres bicgstab; do
    add "lat_ours_$s" B "convdiff-n$NL" ours "$s" jacobi blocking "$LAT" -- \
        "${MPIEXEC[@]}" "$OURS" "${CD[@]}" -n "$NL" "$NL" "$NL" -solver "$s" -precond jacobi -backend blocking -print_level 1 \
        -latency_us "$LAT" -maxit "$MAXIT"
done
for l in $LS; do
    add "lat_ours_pgmres_l$l" B "convdiff-n$NL" ours "pgmres:l=$l" jacobi "$PB" "$LAT" -- \
        "${MPIEXEC[@]}" "$OURS" "${CD[@]}" -n "$NL" "$NL" "$NL" -solver "pgmres:l=$l" -precond jacobi -backend "$PB" -print_level 1 \
        -latency_us "$LAT" -maxit "$MAXIT"
done
add "lat_ours_pipebicgstab" B "convdiff-n$NL" ours pipebicgstab jacobi "$PB" "$LAT" -- \
    "${MPIEXEC[@]}" "$OURS" "${CD[@]}" -n "$NL" "$NL" "$NL" -solver pipebicgstab -precond jacobi -backend "$PB" -print_level 1 \
    -latency_us "$LAT" -maxit "$MAXIT"
add "lat_ours_pipebicgstab_e0" B "convdiff-n$NL" ours "pipebicgstab:early=0" jacobi "$PB" "$LAT" -- \
    "${MPIEXEC[@]}" "$OURS" "${CD[@]}" -n "$NL" "$NL" "$NL" -solver pipebicgstab:early=0 -precond jacobi -backend "$PB" \
    -print_level 1 -latency_us "$LAT" -maxit "$MAXIT"
for k in gmres pgmres bcgs pipebcgs; do
    add "lat_petsc_$k" B "convdiff-n$NL" petsc "$k" jacobi delay_pmpi "$LAT" -- \
        mpiexec "${LATENV[@]}" "${MPIEXEC[@]:1}" "$PCG" "${CD[@]}" -n "$NL" "$NL" "$NL" -ksp_type "$k" -pc_type jacobi \
        -maxit "$MAXIT"
done

# C: time to solution on FILE (A's fe runs of gmres and bicgstab count here too)
if [ -n "$FILE" ]; then
    PCS="ilu0"; [ "$AMG" = 1 ] && PCS="$PCS amg"
    for pc in $PCS; do
        for s in gmres bicgstab pipebicgstab pgmres; do
            [ -n "${F_SEC[fe_ours_${s}_$pc]:-}" ] && continue
            [ "$pc" = amg ] && [ "$s" != bicgstab ] && continue # setup-bound: one Krylov method
            be=blocking; case "$s" in pipebicgstab|pgmres) be="$PB" ;; esac
            add "fe_ours_${s}_$pc" C fe ours "$s" "$pc" "$be" 0 -- \
                "${MPIEXEC[@]}" "$OURS_MTX" -f "$FILE" -rhs random -tol 1e-8 -solver "$s" -precond "$pc" -print_level 1 \
                -backend "$be" -maxit "$MAXIT"
        done
    done
    # ours: bicgstab on the split form of block SSOR (eisenstat: Eisenstat's trick, omega 1 and 1.5)
    for pc in eisenstat eisenstat:omega=1.5; do
        add "fe_ours_bicgstab_$pc" C fe ours bicgstab "$pc" blocking 0 -- \
            "${MPIEXEC[@]}" "$OURS_MTX" -f "$FILE" -rhs random -tol 1e-8 -solver bicgstab -precond "$pc" -print_level 1 \
            -backend blocking -maxit "$MAXIT"
    done
    for pc in ilu0 amg; do
        [ "$pc" = amg ] && [ "$AMG" != 1 ] && continue
        for k in gmres bcgs pgmres pipebcgs; do
            [ -n "${F_SEC[fe_petsc_${k}_$pc]:-}" ] && continue
            [ "$pc" = amg ] && [ "$k" != bcgs ] && continue
            # shellcheck disable=SC2046
            add "fe_petsc_${k}_$pc" C fe petsc "$k" "$pc" - 0 -- \
                "${MPIEXEC[@]}" "$PMTX" -f "$FILE" -rhs random -tol 1e-8 -ksp_type "$k" $(petsc_pc "$pc") -maxit "$MAXIT"
        done
    done
fi

# ---------------------------------------------------------------- the runs
MACHINE="$(lscpu | sed -n 's/^Model name:[[:space:]]*//p'), $NCPU cores"
# the commits measured: this script's, and the source tree of the build (with
# the branches of an uncommitted merge in it, if any)
SRC="$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$BUILD/CMakeCache.txt" 2>/dev/null)"
SRC_COMMIT="$(git -C "${SRC:-$ROOT}" rev-parse --short HEAD 2>/dev/null || echo unknown)"
if [ -n "$SRC" ] && git -C "$SRC" rev-parse -q --verify MERGE_HEAD >/dev/null 2>&1; then
    SRC_COMMIT="$SRC_COMMIT + uncommitted merge of $(git -C "$SRC" rev-parse --short MERGE_HEAD)"
fi
COMMIT="script $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown), ovkrylov $SRC_COMMIT"
LOAD_BEFORE="$(uptime | sed 's/.*load average: //')"
echo "# machine: $MACHINE (shared, noisy); load before: $LOAD_BEFORE"
echo "# $COMMIT; ranks $NP; repeats $R; cases ${#IDS[@]}; logs $LOGDIR"
[ "$PARSE" = 1 ] && [ ! -d "$LOGDIR" ] && { echo "nonsym_bench.sh: -parse needs -l DIR" >&2; exit 2; }
[ "$PARSE" = 1 ] && echo "# -parse: the outputs of $LOGDIR, repeats 1..$R"
for rep in $(seq 1 "$R"); do
    [ "$PARSE" = 1 ] && break
    for id in "${IDS[@]}"; do
        eval "cmd=(\"\${CMD_$id[@]}\")"
        printf '%s\n' "${cmd[*]}" >"$LOGDIR/$id.$rep.cmd"
        "${cmd[@]}" >"$LOGDIR/$id.$rep.out" 2>&1 || echo "# $id repeat $rep: exit $? (see $LOGDIR/$id.$rep.out)" >&2
    done
    echo "# repeat $rep of $R done $(date -u +%H:%M:%S); load $(uptime | sed 's/.*load average: //')" >&2
done
LOAD_AFTER="$(uptime | sed 's/.*load average: //')"

# ---------------------------------------------------------------- parsing
getval() {
    awk -v k="$2" 'index($0, "=") {
        key = substr($0, 1, index($0, "=") - 1); gsub(/^[ \t]+|[ \t]+$/, "", key)
        if (key == k) { v = substr($0, index($0, "=") + 1); split(v, w, " "); print w[1]; exit } }' "$1"
}
median() { sort -g | awk '{v[NR]=$1} END {if (NR==0) {print ""; exit}
    if (NR%2) print v[(NR+1)/2]; else printf "%.9g\n", (v[NR/2]+v[NR/2+1])/2}'; }
ratio() { [ -n "$1" ] && [ -n "$2" ] && awk -v a="$1" -v b="$2" 'BEGIN{printf "%.2f", a/b}' || printf -- "-"; }
ms() { [ -n "$1" ] && awk -v t="$1" 'BEGIN{printf "%.3f", t*1e3}' || printf -- "-"; }
# converged: ours' reason line or PETSc's, else the residual against 1e-8
converged() {
    local f="$1" reason rr
    reason=$(getval "$f" "Converged reason")
    [ -n "$reason" ] || reason=$(sed -n 's/.*[Cc]onverged[_ ]reason[^A-Za-z]*\([A-Za-z_]*\).*/\1/p' "$f" | head -n 1)
    rr=$(getval "$f" "True Relative Residual Norm"); [ -n "$rr" ] || rr=$(getval "$f" "Final Relative Residual Norm")
    case "$reason" in
        CONVERGED*|converged*) echo 1 ;;
        DIVERGED*|diverged*|*not*) echo 0 ;;
        *) awk -v r="${rr:-1}" 'BEGIN{print (r != "" && r + 0 < 1e-8) ? 1 : 0}' ;;
    esac
}

RAW="$OUTDIR/nonsym_$TAG.csv"
SUM="$OUTDIR/nonsym_${TAG}_summary.csv"
echo "# nonsym_bench.sh, $COMMIT, $MACHINE (shared, noisy), $NP ranks, rtol 1e-8, random b" >"$RAW"
echo "id,section,problem,who,solver,precond,backend,latency_us,repeat,iterations,final_rel,true_rel,converged,setup_s,solve_s,s_per_iter" >>"$RAW"
declare -A M_IT M_TPI M_SOLVE M_SETUP M_CONV M_RR
for id in "${IDS[@]}"; do
    tpis=""; sols=""; sets=""; its=""; conv=1; rr=""
    for rep in $(seq 1 "$R"); do
        f="$LOGDIR/$id.$rep.out"
        it=$(getval "$f" "Iterations"); fr=$(getval "$f" "Final Relative Residual Norm")
        tr=$(getval "$f" "True Relative Residual Norm"); ts=$(getval "$f" "Solve Time")
        su=$(getval "$f" "Setup Time"); c=$(converged "$f")
        if [ -z "$it" ] || [ -z "$ts" ]; then conv=0; continue; fi
        tpi=$(awk -v t="$ts" -v i="$it" 'BEGIN{if (i > 0) printf "%.9g", t/i}')
        echo "$id,${F_SEC[$id]},${F_PROB[$id]},${F_WHO[$id]},\"${F_SOL[$id]}\",${F_PC[$id]},${F_BE[$id]},${F_LAT[$id]},$rep,$it,$fr,$tr,$c,$su,$ts,$tpi" >>"$RAW"
        its="$its $it"; tpis="$tpis $tpi"; sols="$sols $ts"; [ -n "$su" ] && sets="$sets $su"
        [ "$c" = 1 ] || conv=0
        rr="${tr:-$fr}"
    done
    M_IT[$id]=$(echo $its | tr ' ' '\n' | median); M_TPI[$id]=$(echo $tpis | tr ' ' '\n' | median)
    M_SOLVE[$id]=$(echo $sols | tr ' ' '\n' | median); M_SETUP[$id]=$(echo $sets | tr ' ' '\n' | median)
    M_CONV[$id]=$conv; M_RR[$id]=$rr
    [ -n "$its" ] || M_CONV[$id]=0
done
echo "# nonsym_bench.sh, $COMMIT, $MACHINE (shared, noisy), $NP ranks, $R repeats, load before: $LOAD_BEFORE, after: $LOAD_AFTER" >"$SUM"
echo "id,section,problem,who,solver,precond,backend,latency_us,iterations,true_or_final_rel,converged,setup_s,solve_s,s_per_iter" >>"$SUM"
for id in "${IDS[@]}"; do
    echo "$id,${F_SEC[$id]},${F_PROB[$id]},${F_WHO[$id]},\"${F_SOL[$id]}\",${F_PC[$id]},${F_BE[$id]},${F_LAT[$id]},${M_IT[$id]},${M_RR[$id]},${M_CONV[$id]},${M_SETUP[$id]},${M_SOLVE[$id]},${M_TPI[$id]}" >>"$SUM"
done

# ---------------------------------------------------------------- tables
row() { # id [ratio columns...]
    local id="$1"; shift
    local name="${F_WHO[$id]} ${F_SOL[$id]}"
    printf '| %s | %s | %s | %s | %s | %s | %s | %s |' "${F_PROB[$id]}" "$name" "${F_PC[$id]}" "${F_BE[$id]}" \
        "${M_IT[$id]:--}$([ "${M_CONV[$id]}" = 1 ] || echo ' (not conv.)')" "${M_RR[$id]:--}" "$(ms "${M_SETUP[$id]}")" \
        "$(ms "${M_TPI[$id]}")"
    for r in "$@"; do printf ' %s |' "$r"; done
    echo
}
have() { [ -n "${F_SEC[$1]:-}" ] && [ -n "${M_TPI[$1]:-}" ]; }
tpi_ratio() { have "$1" && have "$2" && ratio "${M_TPI[$1]}" "${M_TPI[$2]}" || printf -- "-"; }

echo
echo "## A. Time per iteration at 0 us (blocking; target ours / PETSc <= 0.8)"
echo
echo "| problem | solver | PC | backend | iterations | rel. residual | setup (ms) | ms/iteration | ours / PETSc | ours / PETSc defaults |"
echo "|---|---|---|---|---:|---:|---:|---:|---:|---:|"
for prob in cd fe; do
    for pc in jacobi ilu0 ilu0s jacobib ilu0b ilu0sb; do
        base=${pc%b}; base=${base%s} # the tuned cases' PETSc: the plain PC's
        for s in gmres bicgstab; do
            k=$(petsc_ksp "$s")
            o="${prob}_ours_${s}_$pc"; p="${prob}_petsc_${k}_$base"; d="${prob}_petscdef_${k}_$base"
            have "$o" || continue
            row "$o" "$(tpi_ratio "$o" "$p")" "$(tpi_ratio "$o" "$d")"
            [ "$pc" = "$base" ] || continue # PETSc's rows printed with the plain PC
            have "$p" && row "$p" - -
            have "$d" && row "$d" - -
        done
    done
done

echo
echo "## B. Under ${LAT} us per reduction at -n $NL per rank (Jacobi; ours -latency_us $LAT, PETSc LD_PRELOAD delay_pmpi)"
echo
echo "| problem | solver | PC | backend | iterations | rel. residual | setup (ms) | ms/iteration | / our gmres or bicgstab | / PETSc pipelined |"
echo "|---|---|---|---|---:|---:|---:|---:|---:|---:|"
best_l=""; best_tpi=""
for l in $LS; do
    id=$(cid "lat_ours_pgmres_l$l")
    have "$id" && [ "${M_CONV[$id]}" = 1 ] || continue
    if [ -z "$best_tpi" ] || awk -v a="${M_TPI[$id]}" -v b="$best_tpi" 'BEGIN{exit !(a < b)}'; then
        best_l=$l; best_tpi=${M_TPI[$id]}
    fi
done
have lat_ours_gmres && row lat_ours_gmres - -
for l in $LS; do
    id=$(cid "lat_ours_pgmres_l$l")
    have "$id" || continue
    row "$id" "$(tpi_ratio "$id" lat_ours_gmres)" "$(tpi_ratio "$id" lat_petsc_pgmres)"
done
for k in gmres pgmres; do have "lat_petsc_$k" && row "lat_petsc_$k" - -; done
have lat_ours_bicgstab && row lat_ours_bicgstab - -
for id in lat_ours_pipebicgstab lat_ours_pipebicgstab_e0; do
    have "$id" && row "$id" "$(tpi_ratio "$id" lat_ours_bicgstab)" "$(tpi_ratio "$id" lat_petsc_pipebcgs)"
done
for k in bcgs pipebcgs; do have "lat_petsc_$k" && row "lat_petsc_$k" - -; done
echo
echo "pgmres default depth (l = 2) / our gmres: $(tpi_ratio lat_ours_pgmres_l2 lat_ours_gmres) (target 0.5); / PETSc KSPPGMRES: $(tpi_ratio lat_ours_pgmres_l2 lat_petsc_pgmres) (target 0.7)"
[ -n "$best_l" ] && echo "pgmres best (l = $best_l) / our gmres: $(tpi_ratio "$(cid "lat_ours_pgmres_l$best_l")" lat_ours_gmres) (target 0.5); / PETSc KSPPGMRES: $(tpi_ratio "$(cid "lat_ours_pgmres_l$best_l")" lat_petsc_pgmres) (target 0.7)"
echo "pipebicgstab / our bicgstab: $(tpi_ratio lat_ours_pipebicgstab lat_ours_bicgstab) (target 0.6); / PETSc KSPPIPEBCGS: $(tpi_ratio lat_ours_pipebicgstab lat_petsc_pipebcgs) (target 0.8); early=0: $(tpi_ratio lat_ours_pipebicgstab_e0 lat_ours_bicgstab), $(tpi_ratio lat_ours_pipebicgstab_e0 lat_petsc_pipebcgs)"

if [ -n "$FILE" ]; then
    echo
    echo "## C. Time to solution on $(basename "$FILE") (converged runs; target fastest of ours / fastest PETSc <= 0.8)"
    echo
    echo "| problem | solver | PC | backend | iterations | rel. residual | setup (ms) | ms/iteration | solve (s) | setup + solve (s) |"
    echo "|---|---|---|---|---:|---:|---:|---:|---:|---:|"
    declare -A TOT
    for id in "${IDS[@]}"; do
        [ "${F_PROB[$id]}" = fe ] || continue
        have "$id" || continue
        TOT[$id]=$(awk -v a="${M_SETUP[$id]:-0}" -v b="${M_SOLVE[$id]}" 'BEGIN{printf "%.9g", a+b}')
        row "$id" "$(awk -v b="${M_SOLVE[$id]}" 'BEGIN{printf "%.3f", b}')" \
            "$(awk -v b="${TOT[$id]}" 'BEGIN{printf "%.3f", b}')"
    done
    # the fastest converged run of WHO by solve time (s) or by setup + solve (t)
    fastest() {
        local who="$1" by="$2" best="" bt="" v id
        for id in "${!TOT[@]}"; do
            [ "${F_WHO[$id]}" = "$who" ] && [ "${M_CONV[$id]}" = 1 ] || continue
            v=${M_SOLVE[$id]}; [ "$by" = t ] && v=${TOT[$id]}
            if [ -z "$bt" ] || awk -v a="$v" -v b="$bt" 'BEGIN{exit !(a < b)}'; then best=$id; bt=$v; fi
        done
        echo "$best"
    }
    echo
    for by in s t; do
        bo=$(fastest ours "$by"); bp=$(fastest petsc "$by")
        if [ -z "$bo" ] || [ -z "$bp" ]; then
            echo "no converged run of ours or of PETSc on $(basename "$FILE")"
            break
        fi
        what="solve"; [ "$by" = t ] && what="setup + solve"
        echo "by $what: fastest of ours ${F_SOL[$bo]} + ${F_PC[$bo]} ($(ms "${M_SOLVE[$bo]}") ms solve, $(ms "${M_SETUP[$bo]}") ms setup);" \
             "fastest PETSc (same test) ${F_SOL[$bp]} + ${F_PC[$bp]} ($(ms "${M_SOLVE[$bp]}") ms solve, $(ms "${M_SETUP[$bp]}") ms setup);" \
             "ours / PETSc: solve $(ratio "${M_SOLVE[$bo]}" "${M_SOLVE[$bp]}"), setup + solve $(ratio "${TOT[$bo]}" "${TOT[$bp]}") (target 0.8)"
        echo
    done
fi
echo
echo "# CSV: $RAW (every run), $SUM (medians); load after: $LOAD_AFTER"

#!/usr/bin/env bash
# compare_peers.sh -- ovkrylov's solvers vs hypre DS-PCG vs PETSc KSPCG, side by side.
#
# Usage: bench/peers/compare_peers.sh [options]
#   -b DIR      build dir of ovkrylov (default /work/main/build); the driver is
#               DIR/examples/ovk_laplace27
#   -p DIR      dir of the peer binaries hypre_pcg, petsc_cg, stream_triad
#               (default /tmp/ovk-peers; built with `bench/peers/build.sh DIR`
#               when missing)
#   -np N       MPI ranks (default 2)
#   -n "S1 S2"  per-process box edges to run (default "40 60": -n 40 40 40, -n 60 60 60)
#   -r R        repeats of every run (default 5); medians are reported
#   -k "KSPS"   PETSc KSP types to run (default "cg cg:sbaij pipecg"; e.g. "cg pipecg groppcg");
#               TYPE:MAT also sets -mat_type MAT (e.g. "cg cg:sbaij": KSPCG on
#               PETSc's symmetric upper-triangle storage as well); the
#               "ours / PETSc" column is always against plain KSPCG
#   -s "SOLVERS" our solvers to run, blocking backend (default "alg1 cg1 pipecg");
#               each gets ratios against hypre and PETSc KSPCG, and the
#               fastest of them (median time per iteration) is named under
#               the table with its ratio to every PETSc storage; our pipecg
#               is also set against PETSc's PIPECG
#   -m "MTX"    shared Matrix Market matrices to run as well (default
#               "bcsstk25 lap3D_7pt_n20 lap2D_5pt_n100"; "" for none): ours
#               through ovk_mtx_solve, PETSc through peers/petsc_mtx (the
#               same KSPS; :sbaij adds -mat_ignore_lower_triangular), Jacobi,
#               b = A 1, tol 1e-8, at most -maxit iterations
#   -mdir DIR   where they are (default: the repository's ../shared/data/matrices)
#   -maxit N    iteration cap of the matrix runs (default 2000): time per
#               iteration is compared, so a capped run still counts
#   -stencil S  27 (default) or 7
#   -base DIR   also run our solvers from the build DIR (e.g. of an earlier
#               commit), interleaved with the others, as rows "(base)" and a
#               line "now / base" per solver: before/after in one run
#   -l DIR      keep the raw outputs in DIR (default: a fresh mktemp dir)
#
# Every repeat is a separate mpiexec of each program, interleaved (STREAM, ours,
# hypre, PETSc, STREAM, ours, ...) so that slow phases of a noisy machine hit
# all solvers alike.  Time per iteration = Solve Time / Iterations of that run;
# the table shows the median over the R runs.  Ratios are ours / peer (> 1:
# ours slower).  A peer whose binary is missing is skipped with a message.
#
# Matvec effective bandwidth of ours: the bytes a CSR matvec on the
# (symmetric) Laplacian's most compact stored form would stream,
#   = 3 * (nnz + nrows) / 2 + 28 * nrows
#     (the diagonal and upper triangle, (nnz + nrows) / 2 entries of a
#     one-byte value index + a 2-byte column offset; per row 8 x read, 8 y
#     zeroed, 8 y written, 4 rowptr), divided by the matvec's time.  The
#     Laplacian's interior rows are runs of one repeated row
#     (src/matrix/runs.c) and the matvec reads only x, y and the shared rows
#     there, so this is an effective figure: above 100 % of the triad means
#     faster than any matvec that streams that CSR form could be.
# summed over ranks, divided by (matvec seconds, max over ranks) / matvec calls
# from the -timing table of ovk_laplace27; calls = iterations + 1 unless the
# driver prints a count.  Compared with the STREAM triad of the same rank count.
set -u

BUILD=/work/main/build
PEERS=/tmp/ovk-peers
NP=2
SIZES="40 60"
R=5
KSPS="cg cg:sbaij pipecg"
OSOLVERS="alg1 cg1 pipecg"
MATS="bcsstk25 lap3D_7pt_n20 lap2D_5pt_n100"
MDIR=""
MAXIT=2000
BASE=""
STENCIL=27
LOGDIR=""
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

while [ $# -gt 0 ]; do
    case "$1" in
        -b) BUILD="$2"; shift 2 ;;
        -p) PEERS="$2"; shift 2 ;;
        -np) NP="$2"; shift 2 ;;
        -n) SIZES="$2"; shift 2 ;;
        -r) R="$2"; shift 2 ;;
        -k) KSPS="$2"; shift 2 ;;
        -s) OSOLVERS="$2"; shift 2 ;;
        -stencil) STENCIL="$2"; shift 2 ;;
        -l) LOGDIR="$2"; shift 2 ;;
        -m) MATS="$2"; shift 2 ;;
        -mdir) MDIR="$2"; shift 2 ;;
        -maxit) MAXIT="$2"; shift 2 ;;
        -base) BASE="$2"; shift 2 ;;
        -h|--help) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) echo "compare_peers.sh: unknown option $1 (try -h)" >&2; exit 2 ;;
    esac
done

NCPU=$(nproc --all 2>/dev/null || nproc) # before OMP_NUM_THREADS=1, which GNU nproc honours
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1
MPIEXEC=(mpiexec -n "$NP")
[ "$NP" -gt "$NCPU" ] && MPIEXEC=(mpiexec --oversubscribe -n "$NP")

[ -n "$LOGDIR" ] || LOGDIR="$(mktemp -d /tmp/compare_peers.XXXXXX)"
mkdir -p "$LOGDIR"

OURS="$BUILD/examples/ovk_laplace27"
OURS_MTX="$BUILD/examples/ovk_mtx_solve"
PETSC_MTX="$PEERS/petsc_mtx"
[ -n "$MDIR" ] || MDIR="$(cd "$HERE/../.." && pwd)/../shared/data/matrices"
HYPRE="$PEERS/hypre_pcg"
PETSC="$PEERS/petsc_cg"
STREAM="$PEERS/stream_triad"

if [ ! -x "$HYPRE" ] || [ ! -x "$PETSC" ] || [ ! -x "$STREAM" ]; then
    echo "# building peers: $HERE/build.sh $PEERS" >&2
    bash "$HERE/build.sh" "$PEERS" >&2 || true
fi
have() { [ -x "$1" ]; }
have "$OURS" || echo "# ovkrylov driver missing ($OURS): skipped" >&2
have "$HYPRE" || echo "# hypre peer missing ($HYPRE): skipped (apt-get install libhypre-dev; bench/peers/build.sh)" >&2
have "$PETSC" || echo "# PETSc peer missing ($PETSC): skipped (apt-get install petsc-dev; bench/peers/build.sh)" >&2
have "$STREAM" || echo "# stream_triad missing ($STREAM): skipped" >&2
[ -z "$MATS" ] || have "$OURS_MTX" || echo "# ovk_mtx_solve missing ($OURS_MTX): matrices skipped for ours" >&2
[ -z "$MATS" ] || have "$PETSC_MTX" || echo "# petsc_mtx missing ($PETSC_MTX): matrices skipped for PETSc" >&2

# value after "key =" in a file (first match); strips a trailing unit
getval() {
    awk -v k="$2" 'index($0, "=") {
        key = substr($0, 1, index($0, "=") - 1); gsub(/^[ \t]+|[ \t]+$/, "", key)
        if (key == k) { v = substr($0, index($0, "=") + 1); split(v, w, " "); print w[1]; exit } }' "$1"
}
median() { sort -g | awk '{v[NR]=$1} END {if (NR==0) {print ""; exit}
    if (NR%2) print v[(NR+1)/2]; else printf "%.9g\n", (v[NR/2]+v[NR/2+1])/2}'; }
fmt_ms() { [ -n "$1" ] && awk -v t="$1" 'BEGIN{printf "%.4f", t*1e3}' || printf -- "-"; }
ratio() { [ -n "$1" ] && [ -n "$2" ] && awk -v a="$1" -v b="$2" 'BEGIN{printf "%.2f", a/b}' || printf -- "-"; }

# Parse one run: prints "iterations relres solve_time time_per_iter"
parse_run() {
    local f="$1" it rr ts
    it=$(getval "$f" "Iterations")
    rr=$(getval "$f" "Final Relative Residual Norm")
    ts=$(getval "$f" "Solve Time")
    if [ -z "$it" ] || [ -z "$ts" ] || [ "$it" -eq 0 ] 2>/dev/null; then echo "- - - -"; return; fi
    echo "$it $rr $ts $(awk -v t="$ts" -v i="$it" 'BEGIN{printf "%.9g", t/i}')"
}
# Matvec seconds (max over ranks) from the -timing table: row "matvec  max  mean  %"
parse_matvec() {
    awk 'tolower($1)=="matvec" && $2 ~ /^[0-9.eE+-]+$/ {print $2; exit}' "$1"
}
# Matvec call count if the driver prints one ("matvec calls = N" / "matvecs N" ...)
parse_matvec_calls() {
    sed -n 's/.*matvec[a-z ]*calls[^0-9]*\([0-9][0-9]*\).*/\1/Ip' "$1" | head -n 1
}

# The shared matrices of -m, one repeat: ours (every solver), then PETSc (every KSP).
run_matrices() {
    local rep="$1" m f o k margs
    for m in $MATS; do
        f="$MDIR/$m.mtx"
        [ -r "$f" ] || { [ "$rep" = 1 ] && echo "# $f missing: skipped" >&2; continue; }
        if have "$OURS_MTX"; then
            for o in $OSOLVERS; do
                "${MPIEXEC[@]}" "$OURS_MTX" -f "$f" -solver "$o" -backend blocking -maxit "$MAXIT" -timing \
                    >"$LOGDIR/mtx_ours_$o.$m.$rep.out" 2>&1
            done
        fi
        if have "$PETSC_MTX"; then
            for k in $KSPS; do
                margs=(); [ "${k#*:}" != "$k" ] && margs=(-mat_type "${k#*:}")
                [ "${k#*:}" = sbaij ] && margs+=(-mat_ignore_lower_triangular)
                "${MPIEXEC[@]}" "$PETSC_MTX" -f "$f" -ksp_type "${k%%:*}" "${margs[@]}" -maxit "$MAXIT" \
                    >"$LOGDIR/mtx_petsc_${k/:/_}.$m.$rep.out" 2>&1
            done
        fi
    done
}

echo "# machine: $(lscpu | sed -n 's/^Model name:[[:space:]]*//p'), $NCPU cores; load: $(uptime | sed 's/.*load average: //')"
echo "# ranks: $NP, repeats: $R, stencil: $STENCIL, logs: $LOGDIR"

# ---------------------------------------------------------------- runs
for rep in $(seq 1 "$R"); do
    if have "$STREAM"; then
        "${MPIEXEC[@]}" "$STREAM" -repeat 10 >"$LOGDIR/stream.$rep.out" 2>&1
    fi
    for s in $SIZES; do
        nargs=(-n "$s" "$s" "$s")
        if have "$OURS"; then
            sarg=(); [ "$STENCIL" = 27 ] || sarg=(-stencil "$STENCIL")
            for o in $OSOLVERS; do
                "${MPIEXEC[@]}" "$OURS" "${nargs[@]}" "${sarg[@]}" -solver "$o" -backend blocking -timing \
                    >"$LOGDIR/ours_$o.$s.$rep.out" 2>&1
                if [ -n "$BASE" ]; then
                    "${MPIEXEC[@]}" "$BASE/examples/ovk_laplace27" "${nargs[@]}" "${sarg[@]}" -solver "$o" \
                        -backend blocking -timing >"$LOGDIR/base_$o.$s.$rep.out" 2>&1
                fi
            done
        fi
        if have "$HYPRE"; then
            "${MPIEXEC[@]}" "$HYPRE" "${nargs[@]}" -stencil "$STENCIL" >"$LOGDIR/hypre.$s.$rep.out" 2>&1
        fi
        if have "$PETSC"; then
            for k in $KSPS; do
                margs=(); [ "${k#*:}" != "$k" ] && margs=(-mat_type "${k#*:}")
                "${MPIEXEC[@]}" "$PETSC" "${nargs[@]}" -stencil "$STENCIL" -ksp_type "${k%%:*}" "${margs[@]}" \
                    >"$LOGDIR/petsc_${k/:/_}.$s.$rep.out" 2>&1
            done
        fi
    done
    run_matrices "$rep"
done

# ---------------------------------------------------------------- STREAM
TRIAD=""
DIMS=""
if have "$STREAM"; then
    TRIAD=$(for f in "$LOGDIR"/stream.*.out; do getval "$f" "Triad GB/s"; done | median)
    DIMS=$(sed -n 's/^MPI_Dims_create(3) = //p' "$LOGDIR/stream.1.out" | head -n 1)
    echo
    echo "STREAM triad, $NP ranks: $TRIAD GB/s aggregate (median of $R runs x 10 repeats; 24 B/element, write-allocate not counted)"
    echo "  per run: $(for f in "$LOGDIR"/stream.*.out; do getval "$f" "Triad GB/s"; done | tr '\n' ' ')"
fi

# stats of one solver at one size:
#   "iters relres tpi_median ts_median niters_distinct tpi_min-tpi_max(ms)"
stats() {
    local pre="$1" s="$2" f its tpis tss rrs
    its=""; tpis=""; tss=""; rrs=""
    for f in "$LOGDIR/$pre.$s".*.out; do
        [ -e "$f" ] || continue
        read -r it rr ts tpi < <(parse_run "$f")
        [ "$it" = "-" ] && continue
        its="$its $it"; rrs="$rrs $rr"; tss="$tss $ts"; tpis="$tpis $tpi"
    done
    [ -n "$its" ] || { echo "- - - - 0 -"; return; }
    echo "$(echo $its | tr ' ' '\n' | median) $(echo $rrs | awk '{print $1}') \
$(echo $tpis | tr ' ' '\n' | median) $(printf '%.4g' "$(echo $tss | tr ' ' '\n' | median)") \
$(echo $its | tr ' ' '\n' | sort -u | wc -l) \
$(echo $tpis | tr ' ' '\n' | sort -g | awk 'NR==1{lo=$1} {hi=$1} END{printf "%.3g-%.3g", lo*1e3, hi*1e3}')"
}

# ---------------------------------------------------------------- table
echo
echo "| n per rank (global) | solver | iterations | final rel. residual | time/iteration (ms) | min-max (ms) | solve (s) | ours / hypre | ours / PETSc |"
echo "|---|---|---:|---:|---:|---:|---:|---:|---:|"
MVROWS=()
BEST=()
for s in $SIZES; do
    glob="$s^3"
    if [ -n "$DIMS" ]; then
        read -r dx dy dz <<<"$DIMS"
        glob="$((s * dx))x$((s * dy))x$((s * dz))"
    fi
    O1=${OSOLVERS%% *}   # the matvec bandwidth is taken from the first solver's runs
    read -r o_it o_rr o_tpi o_ts o_nd o_mm < <(stats "ours_$O1" "$s")
    read -r h_it h_rr h_tpi h_ts h_nd h_mm < <(stats hypre "$s")
    read -r p_it p_rr p_tpi p_ts p_nd p_mm < <(stats petsc_cg "$s")
    [ "$h_tpi" = "-" ] && h_tpi=""
    [ "$p_tpi" = "-" ] && p_tpi=""
    row() { # name it rr tpi ts nd minmax
        local tpi="$4"; [ "$tpi" = "-" ] && tpi=""
        local rh="-" rp="-"
        if [ "${1#ovkrylov }" != "$1" ]; then
            rh=$(ratio "$tpi" "$h_tpi"); rp=$(ratio "$tpi" "$p_tpi")
        fi
        local note=""; [ "$6" -gt 1 ] 2>/dev/null && note=" (varies!)"
        echo "| $s ($glob) | $1 | $2$note | $3 | $(fmt_ms "$tpi") | $7 | $5 | $rh | $rp |"
    }
    best=""; best_tpi=""; pipe_tpi=""
    if have "$OURS"; then
        for o in $OSOLVERS; do
            read -r a_it a_rr a_tpi a_ts a_nd a_mm < <(stats "ours_$o" "$s")
            row "ovkrylov $o (blocking)" $a_it $a_rr "$a_tpi" $a_ts $a_nd $a_mm
            [ "$o" = pipecg ] && [ "$a_tpi" != "-" ] && pipe_tpi=$a_tpi
            if [ -n "$BASE" ]; then
                read -r b_it b_rr b_tpi b_ts b_nd b_mm < <(stats "base_$o" "$s")
                row "ovkrylov $o (base)" $b_it $b_rr "$b_tpi" $b_ts $b_nd $b_mm
                [ "$b_tpi" != "-" ] && [ "$a_tpi" != "-" ] && BEST+=("n = $s: $o now / base: $(ratio "$a_tpi" "$b_tpi") (iterations $a_it / $b_it)")
            fi
            if [ "$a_tpi" != "-" ] && { [ -z "$best_tpi" ] || awk -v a="$a_tpi" -v b="$best_tpi" 'BEGIN{exit !(a < b)}'; }; then
                best=$o; best_tpi=$a_tpi
            fi
        done
        [ -n "$best" ] && BEST+=("n = $s: fastest of ours: $best, $(fmt_ms "$best_tpi") ms/iteration; ours/hypre $(ratio "$best_tpi" "$h_tpi"), ours/PETSc KSPCG $(ratio "$best_tpi" "$p_tpi")")
    fi
    have "$HYPRE" && row "hypre DS-PCG" $h_it $h_rr "$h_tpi" $h_ts $h_nd $h_mm
    if have "$PETSC"; then
        for k in $KSPS; do
            read -r k_it k_rr k_tpi k_ts k_nd k_mm < <(stats "petsc_${k/:/_}" "$s")
            mt=""; [ "${k#*:}" != "$k" ] && mt=", ${k#*:}"
            row "PETSc KSP${k%%:*} + Jacobi${mt}" $k_it $k_rr "$k_tpi" $k_ts $k_nd $k_mm
            if [ -n "$mt" ] && [ -n "$best_tpi" ] && [ "$k_tpi" != "-" ]; then
                BEST+=("n = $s: fastest of ours / PETSc KSP${k%%:*}${mt}: $(ratio "$best_tpi" "$k_tpi")")
            fi
            if [ "$k" = pipecg ] && [ "$k_tpi" != "-" ] && [ -n "${pipe_tpi:-}" ]; then
                BEST+=("n = $s: ours pipecg / PETSc KSPPIPECG: $(ratio "$pipe_tpi" "$k_tpi")")
            fi
        done
    fi
    if [ "$o_it" != "-" ] && have "$OURS"; then
        # global matrix: G = s * dims; nnz independent of the processor grid
        read -r dx dy dz <<<"${DIMS:-}"
        if [ -z "${dx:-}" ]; then
            echo "# cannot size the matrix (no MPI_Dims_create from stream_triad): matvec GB/s skipped" >&2
            continue
        fi
        mvs=""; for f in "$LOGDIR/ours_$O1.$s".*.out; do
            mt=$(parse_matvec "$f"); it=$(getval "$f" "Iterations"); nc=$(parse_matvec_calls "$f")
            [ -n "$nc" ] || nc=$(( ${it:-0} + 1 ))
            [ -n "$mt" ] && mvs="$mvs $(awk -v t="$mt" -v c="$nc" 'BEGIN{printf "%.9g", t/c}')"
        done
        if [ -z "$mvs" ]; then
            echo "# no matvec row in the -timing output of ours at n=$s: matvec GB/s skipped" >&2
            continue
        fi
        mvt=$(echo $mvs | tr ' ' '\n' | median)
        MVROWS+=("$(awk -v s="$s" -v dx="$dx" -v dy="$dy" -v dz="$dz" -v st="$STENCIL" -v t="$mvt" -v tr="$TRIAD" '
            BEGIN {
                gx = s*dx; gy = s*dy; gz = s*dz; rows = gx*gy*gz
                if (st == 27) nnz = (3*gx-2)*(3*gy-2)*(3*gz-2)
                else nnz = rows + 2*((gx-1)*gy*gz + gx*(gy-1)*gz + gx*gy*(gz-1))
                bytes = 3*(nnz + rows)/2 + 28*rows
                gbs = bytes / t * 1e-9
                pct = (tr != "") ? sprintf("%.0f%%", 100*gbs/tr) : "-"
                printf "| %s (%dx%dx%d) | %d | %d | %.2f | %.4f | %.1f | %s |", s, gx, gy, gz, rows, nnz, bytes/1e6, t*1e3, gbs, pct
            }')")
    fi
done

if [ ${#BEST[@]} -gt 0 ]; then
    echo
    printf '%s\n' "${BEST[@]}"
fi
if [ ${#MVROWS[@]} -gt 0 ]; then
    echo
    echo "Matvec effective bandwidth of ours ($O1; bytes/matvec = 3*(nnz+rows)/2 + 28*rows, those of the one-triangle CSR form, which the runs no longer read; aggregate over ranks; time/matvec = median over runs of matvec max-seconds / calls):"
    echo
    echo "| n per rank (global) | rows | nnz | CSR MB/matvec | ms/matvec | effective GB/s | % of triad |"
    echo "|---|---:|---:|---:|---:|---:|---:|"
    printf '%s\n' "${MVROWS[@]}"
fi
# ---------------------------------------------------------------- matrices
if [ -n "$MATS" ]; then
    echo
    echo "Shared matrices ($NP ranks, Jacobi, b = A 1, tol 1e-8, at most $MAXIT iterations; ours: ovk_mtx_solve, blocking; PETSc: petsc_mtx):"
    echo
    echo "| matrix | solver | iterations | final rel. residual | time/iteration (ms) | min-max (ms) | solve (s) | ours / PETSc KSPCG |"
    echo "|---|---|---:|---:|---:|---:|---:|---:|"
    for m in $MATS; do
        [ -r "$MDIR/$m.mtx" ] || continue
        read -r c_it c_rr c_tpi c_ts c_nd c_mm < <(stats "mtx_petsc_cg" "$m")
        [ "$c_tpi" = "-" ] && c_tpi=""
        for o in $OSOLVERS; do
            read -r a_it a_rr a_tpi a_ts a_nd a_mm < <(stats "mtx_ours_$o" "$m")
            [ "$a_tpi" = "-" ] && a_tpi=""
            echo "| $m | ovkrylov $o (blocking) | $a_it | $a_rr | $(fmt_ms "$a_tpi") | $a_mm | $a_ts | $(ratio "$a_tpi" "$c_tpi") |"
        done
        for k in $KSPS; do
            read -r k_it k_rr k_tpi k_ts k_nd k_mm < <(stats "mtx_petsc_${k/:/_}" "$m")
            [ "$k_tpi" = "-" ] && k_tpi=""
            mt=""; [ "${k#*:}" != "$k" ] && mt=", ${k#*:}"
            echo "| $m | PETSc KSP${k%%:*} + Jacobi${mt} | $k_it | $k_rr | $(fmt_ms "$k_tpi") | $k_mm | $k_ts | - |"
        done
    done
fi

echo
echo "# load after: $(uptime | sed 's/.*load average: //')"

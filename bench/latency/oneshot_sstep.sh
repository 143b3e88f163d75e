#!/usr/bin/env bash
# oneshot_sstep.sh -- the s-step solvers and auto one-shot (docs/performance.md,
# section 7, "One-shot solves"): one mpiexec per solve, setup and start-up
# included, 2 ranks, the latency model, rounds interleaved (each round runs
# every (problem, solver, backend, latency) cell once, the order rotated by
# one each round).  Problems: the 27-point Laplacian -n 10 20 20 per rank
# (20^3 = 8,000 rows, 4,000 a rank) and convection-diffusion (upwind, Peclet
# 100) -n 16 16 16 per rank (8,192 rows, 4,096 a rank), Jacobi, rtol 1e-8.
# Writes OUTDIR/oneshot_sstep.csv, the data of docs/performance.md's block:
# per backend and latency the ratios paired by round (medians): sgmres /
# gmres per basis vector, scg / plcg:l=3 per iteration; and per problem the
# fastest fixed solver by its median time to solution (setup + solve),
# auto's choices with the medians of its measured latency L and local work
# W (where timed), and auto / that solver in time to solution, paired by round.
#
# Usage: bench/latency/oneshot_sstep.sh [-b BUILD] [-r ROUNDS] [-o OUTDIR] [-summary RAW]
#        [-lats "0 250 1000"] [-backends "nbc native"] [-lap SOLVERS] [-cd SOLVERS]
#   -summary RAW: only the tables of an earlier run's raw data
#   -lats, -backends, -lap, -cd: a subset of the cells (a paired check of auto
#   against one solver: -lats 0 -lap "alg1 auto" -cd "pgmres:l=3 auto"; the
#   columns of solvers left out are nan)
set -eu
BUILD=build
ROUNDS=5
LAP_SOLVERS="alg1 pipecg plcg:l=3 plcg:l=4 scg:s=4 scg:s=8 auto"
CD_SOLVERS="gmres pgmres:l=2 pgmres:l=3 sgmres:s=10 sgmres:s=10,overlap=1 auto"
LATS="0 250 1000"
BACKENDS="nbc native"
OUT=""
RAW=""
while [ $# -gt 0 ]; do
    case "$1" in
        -summary) RAW="$2"; shift 2 ;;
        -b) BUILD="$2"; shift 2 ;;
        -r) ROUNDS="$2"; shift 2 ;;
        -o) OUT="$2"; shift 2 ;;
        -lats) LATS="$2"; shift 2 ;;
        -backends) BACKENDS="$2"; shift 2 ;;
        -lap) LAP_SOLVERS="$2"; shift 2 ;;
        -cd) CD_SOLVERS="$2"; shift 2 ;;
        *) echo "unknown argument $1" >&2; exit 2 ;;
    esac
done
[ -n "$OUT" ] || OUT=$(mktemp -d)
mkdir -p "$OUT"
if [ -z "$RAW" ]; then
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1
DRIVER="$BUILD/examples/ovk_laplace27"

cells=()
for be in $BACKENDS; do for L in $LATS; do
    for s in $LAP_SOLVERS; do cells+=("lap|$s|$be|$L"); done
    for s in $CD_SOLVERS; do cells+=("cd|$s|$be|$L"); done
done; done
raw="$OUT/oneshot_sstep.raw"
echo "# load $(cut -d' ' -f1 /proc/loadavg) at the start" > "$raw"
n=${#cells[@]}
for r in $(seq 0 $((ROUNDS - 1))); do
    for i in $(seq 0 $((n - 1))); do
        IFS='|' read -r p s be L <<< "${cells[$(((i + r) % n))]}"
        if [ "$p" = lap ]; then args="-n 10 20 20"; else args="-problem convdiff -peclet 100 -n 16 16 16"; fi
        o=$(mpiexec -n 2 "$DRIVER" $args -precond jacobi -solver "$s" -backend "$be" -latency_us "$L" \
            -print_level 1 2>&1 || true)
        it=$(echo "$o" | awk '/^Iterations =/ {print $3}')
        st=$(echo "$o" | awk '/^Solve Time =/ {print $4}')
        su=$(echo "$o" | awk '/^Setup Time =/ {print $4}')
        ch=$(echo "$o" | awk '/^auto:/ {print $NF}')
        lw=$(echo "$o" | awk '/^auto:/ {print $3, ($7 ~ /^[0-9.]+$/ ? $7 : "nan")}') # W: nan where not timed
        echo "$p $s $be $L ${it:-0} ${st:-nan} ${su:-0} ${ch:--} $r ${lw:-nan nan}" >> "$raw"
    done
    echo "# load $(cut -d' ' -f1 /proc/loadavg) after round $((r + 1))" >> "$raw"
    echo "# round $((r + 1)) of $ROUNDS done $(date -u +%T), load $(cut -d' ' -f1 /proc/loadavg)" >&2
done
fi
raw=${RAW:-$raw}
python3 - "$raw" "$OUT" <<'PY'
import collections, statistics, sys
raw, out = sys.argv[1], sys.argv[2]
t, tot, its, lw, ch = {}, {}, {}, collections.defaultdict(list), collections.defaultdict(list)
head = [l.strip() for l in open(raw) if l.startswith("#")]
for line in open(raw):
    f = line.split()
    if not f or f[0].startswith("#"):
        continue
    key, rnd = (f[0], f[1], f[2], int(f[3])), int(f[8])
    it = int(f[4])
    t[key + (rnd,)] = 1e6 * (float(f[5]) + float(f[6])) / it if it > 0 else float("inf")
    tot[key + (rnd,)] = 1e3 * (float(f[5]) + float(f[6])) if it > 0 else float("inf")
    its[key] = it
    if f[1] == "auto":
        ch[key].append(f[7])
        if len(f) > 10 and f[9] != "nan":
            lw[key].append((float(f[9]), float(f[10])))
rounds = sorted({k[4] for k in t})
def cell(p, s, be, L, t=tot):
    v = [t[(p, s, be, L, r)] for r in rounds if (p, s, be, L, r) in t]
    return statistics.median(v) if v else float("nan")
def paired(a, b, t=t):
    v = [t[a + (r,)] / t[b + (r,)] for r in rounds if a + (r,) in t and b + (r,) in t]
    return statistics.median(v) if v else float("nan")
cells = {k[:4] for k in t}
bes = sorted({k[2] for k in cells}, key=lambda b: b != "nbc")
lats = sorted({k[3] for k in cells})
loads = [float(h.split()[2]) for h in head if h.startswith("# load ")]
machine = "# machine: AMD EPYC KVM guest, 2 cores; Open MPI 4.1.4, GCC 12.2; RelWithDebInfo; " + (
    "1-minute load average %.1f-%.1f during the run (%s)" % (min(loads), max(loads), "other jobs shared the 2 cores" if max(loads) > 3 else "quiet") if loads else "load not recorded")
command = "# command: bench/latency/oneshot_sstep.sh -b build -r %d -o bench/results   # the rounds in oneshot_sstep.raw; -summary bench/results/oneshot_sstep.raw -o bench/results renders these tables again" % len(rounds)
def auto_cells(p, be, L):
    fixed = sorted({k[1] for k in cells if k[0] == p and k[1] != "auto"})
    if not fixed or (p, "auto", be, L) not in cells:
        return ["-", "-", "nan"]
    best = min(fixed, key=lambda s: cell(p, s, be, L))
    key = (p, "auto", be, L)
    cnt = collections.Counter(ch[key])
    chose = " ".join("%s%s" % (c, "" if n == len(ch[key]) else " (%d of %d)" % (n, len(ch[key]))) for c, n in cnt.most_common())
    Ls, Ws = [x[0] for x in lw[key]], [x[1] for x in lw[key] if x[1] == x[1]]
    if Ls:  # W "-" where auto chose from its vector steps alone in every round (the matvec not timed)
        chose += " (%.0f, %s)" % (statistics.median(Ls), "%.0f" % statistics.median(Ws) if Ws else "-")
    return ["%s %.2f" % (best, cell(p, best, be, L)), chose, "%.2f" % paired(key, (p, best, be, L), tot)]
def q(x):
    return '"%s"' % x if "," in x else x
with open(out + "/oneshot_sstep.csv", "w") as o:
    print(machine, file=o)
    print(command, file=o)
    print("# what: medians of %d rounds. The s-step columns: (setup + solve) per basis vector (per iteration for CG), the ratio paired by round. The auto columns, per problem: the fastest fixed solver of the cell by its median time to solution (setup + solve) and that time; auto's choice (of how many rounds when they differ) with the medians of its measured latency L and local work W per iteration (W over the rounds that timed it; -: none did, the vector steps chose alone); auto / that solver in time to solution, paired by round" % len(rounds), file=o)
    print('backend,latency us,sgmres:s=10 / gmres,"sgmres:s=10,overlap=1 / gmres",scg:s=8 / plcg:l=3,"Laplacian: best fixed, ms","Laplacian: auto (L, W us)",Laplacian: auto / best,"convdiff: best fixed, ms","convdiff: auto (L, W us)",convdiff: auto / best', file=o)
    for be in bes:
        for L in lats:
            r = [paired(("cd", "sgmres:s=10", be, L), ("cd", "gmres", be, L)),
                 paired(("cd", "sgmres:s=10,overlap=1", be, L), ("cd", "gmres", be, L)),
                 paired(("lap", "scg:s=8", be, L), ("lap", "plcg:l=3", be, L))]
            row = [be, str(L)] + ["%.2f" % x for x in r] + auto_cells("lap", be, L) + auto_cells("cd", be, L)
            print(",".join(q(x) for x in row), file=o)
for n in ("oneshot_sstep.csv",):
    print(open(out + "/" + n).read())
PY
echo "raw data: $raw; table: $OUT/oneshot_sstep.csv"
